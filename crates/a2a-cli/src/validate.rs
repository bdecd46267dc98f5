//! `card get --validate` (SPEC.md §10.1, Tier 2): the check itself is
//! [`a2a_proto::validate`] (shared with the reference server's console); this module fetches the
//! raw document it checks.

use serde_json::Value;

use crate::agent::CardRef;
use crate::error::{exit, CliError};

/// The card document `-a` names, as it is (no parsing into a card): a file's JSON, or the JSON
/// the card URL serves (a plain `GET`, no credential: SPEC.md §12.4).
pub(crate) async fn fetch_document(global: &crate::cli::Global) -> Result<Value, CliError> {
    let Some(reference) = &global.agent_card else {
        return Err(CliError::usage(
            "no agent: pass -a/--agent-card <host|url|file> (or set A2ACLI_AGENT_CARD)",
        ));
    };
    let invalid = |why: String| CliError::local("A2ACLI_ERR_CARD_INVALID", exit::FAILURE, why);
    let (bytes, source) = match CardRef::parse(reference)? {
        CardRef::File(path) => {
            let bytes = std::fs::read(&path).map_err(|e| {
                CliError::local(
                    "A2ACLI_ERR_CARD_NOT_FOUND",
                    exit::UNREACHABLE,
                    format!("cannot read the card file {path}: {e}"),
                )
            })?;
            (bytes, path)
        }
        card_ref @ (CardRef::Base(_) | CardRef::Url(_)) => {
            let url = match card_ref {
                CardRef::Base(url) if !url.ends_with(a2a_client::AGENT_CARD_PATH) => {
                    format!("{}{}", url.trim_end_matches('/'), a2a_client::AGENT_CARD_PATH)
                }
                CardRef::Base(url) | CardRef::Url(url) | CardRef::File(url) => url,
            };
            let client = reqwest::Client::builder()
                .danger_accept_invalid_certs(global.insecure)
                .timeout(global.timeout.unwrap_or(std::time::Duration::from_secs(30)))
                .build()
                .map_err(|e| CliError::internal(format!("cannot build the HTTP client: {e}")))?;
            let unreachable = |e: String| CliError::local("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE, e);
            let response = client
                .get(&url)
                .header(reqwest::header::ACCEPT, "application/json")
                .send()
                .await
                .map_err(|e| unreachable(format!("GET {url}: {e}")))?;
            if !response.status().is_success() {
                return Err(CliError::local(
                    "A2ACLI_ERR_CARD_NOT_FOUND",
                    exit::UNREACHABLE,
                    format!("GET {url}: HTTP {}", response.status()),
                ));
            }
            let bytes = response.bytes().await.map_err(|e| unreachable(format!("GET {url}: {e}")))?;
            (bytes.to_vec(), url)
        }
    };
    serde_json::from_slice(&bytes)
        .map_err(|e| invalid(format!("the agent card at {source} is not JSON: {e}")))
}
