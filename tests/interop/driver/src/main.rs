//! `a2a-interop-driver`: this workspace's three clients against an A2A agent written with an
//! official SDK (run by `cargo xtask interop`; see `docs/interop.md`).
//!
//! ```text
//! a2a-interop-driver --url http://127.0.0.1:PORT
//! ```
//!
//! Fetches the agent card at `URL/.well-known/agent-card.json`, then for every binding (JSON-RPC,
//! HTTP+JSON, gRPC) builds our client for the card's interface of that binding and runs the same
//! operations, with the same assertions, as the official SDKs' clients do against our server
//! (`tests/interop/python/sdk_client.py`, `tests/interop/js/sdk_client.mjs`), plus a push round
//! trip: a task whose notifications go to a webhook receiver in this process that parses every
//! payload with our types.
//!
//! Each cell is one tab-separated line on stdout, the format of the other interop programs:
//! `INTEROP<TAB>binding<TAB>op<TAB>pass|fail<TAB>detail`. The exit code is 1 if any cell failed.

mod checks;
mod webhook;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::A2aService;
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{AgentCard, AgentInterface};
use a2a_rest::RestClient;
use anyhow::Context as _;
use clap::Parser;

use crate::checks::{Checks, OPERATIONS};
use crate::webhook::Webhook;

/// The bindings in the order they are checked, as spelled in `AgentInterface.protocolBinding`.
const BINDINGS: [&str; 3] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/// The longest a single check may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Parser)]
#[command(about = "Drives an A2A agent over every binding with this workspace's clients")]
struct Args {
    /// Base URL of the agent: its card is at URL/.well-known/agent-card.json.
    #[arg(long)]
    url: String,

    /// Whether the agent's push sender sends the config's token header when the config also has
    /// authentication (the spec names no token header; see docs/interop.md).
    #[arg(long, value_enum, default_value_t = TokenWithAuth::Sent)]
    push_token_with_auth: TokenWithAuth,
}

/// How a peer's push sender treats `TaskPushNotificationConfig.token` next to `authentication`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TokenWithAuth {
    /// The token header (`X-A2A-Notification-Token` or `A2A-Notification-Token`) carries it.
    Sent,
    /// No token header: only `Authorization` is sent.
    Omitted,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let card = match fetch_card(&args.url).await {
        Ok(card) => card,
        Err(err) => {
            // Without a card no operation can run: every cell fails, with the reason.
            for binding in BINDINGS {
                for op in OPERATIONS {
                    report(binding, op, Err(&err));
                }
            }
            return ExitCode::FAILURE;
        }
    };
    let webhook = match Webhook::start().await {
        Ok(webhook) => Arc::new(webhook),
        Err(err) => {
            eprintln!("cannot start the webhook receiver: {err:#}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for binding in BINDINGS {
        let client = match client_for(&card, binding) {
            Ok(client) => client,
            Err(err) => {
                for op in OPERATIONS {
                    report(binding, op, Err(&err));
                }
                failed = true;
                continue;
            }
        };
        let checks =
            Checks::new(client, card.clone(), binding, Arc::clone(&webhook), args.push_token_with_auth);
        for op in OPERATIONS {
            let outcome = match tokio::time::timeout(CHECK_TIMEOUT, checks.run(op)).await {
                Ok(outcome) => outcome,
                Err(_) => Err(anyhow::anyhow!("timed out after {CHECK_TIMEOUT:?}")),
            };
            failed |= outcome.is_err();
            report(binding, op, outcome.as_ref().map(|_| ()));
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Prints one matrix cell (and the failure's cause chain on stderr).
fn report(binding: &str, op: &str, outcome: Result<(), &anyhow::Error>) {
    match outcome {
        Ok(()) => println!("INTEROP\t{binding}\t{op}\tpass\t"),
        Err(err) => {
            let detail = format!("{err:#}").split_whitespace().collect::<Vec<_>>().join(" ");
            eprintln!("check {binding} {op} FAILED: {err:?}");
            println!("INTEROP\t{binding}\t{op}\tfail\t{detail}");
        }
    }
}

/// The agent card, parsed with our ProtoJSON rules (spec 8.2: the well-known URI).
async fn fetch_card(base_url: &str) -> anyhow::Result<AgentCard> {
    let url = format!("{}/.well-known/agent-card.json", base_url.trim_end_matches('/'));
    let response = reqwest::Client::new()
        .get(&url)
        .header("A2A-Version", "1.0")
        .send()
        .await
        .with_context(|| format!("GET {url}"))?
        .error_for_status()
        .with_context(|| format!("GET {url}"))?;
    let body = response.bytes().await.with_context(|| format!("reading {url}"))?;
    a2a_proto::json::from_slice(&body).with_context(|| format!("parsing the agent card from {url}"))
}

/// The card's 1.x interface of `binding`.
fn interface<'a>(card: &'a AgentCard, binding: &str) -> anyhow::Result<&'a AgentInterface> {
    card.supported_interfaces
        .iter()
        .find(|i| i.protocol_binding == binding && i.protocol_version.starts_with("1."))
        .with_context(|| format!("the card has no 1.x {binding} interface"))
}

/// Our client for the card's interface of `binding`.
fn client_for(card: &AgentCard, binding: &str) -> anyhow::Result<Arc<dyn A2aService>> {
    let interface = interface(card, binding)?;
    let url = interface.url.clone();
    Ok(match binding {
        "JSONRPC" => Arc::new(JsonRpcClient::new(url)),
        "HTTP+JSON" => {
            Arc::new(RestClient::new(&url).context("REST interface url")?.with_tenant(&interface.tenant))
        }
        "GRPC" => Arc::new(GrpcClient::connect_lazy(url).context("gRPC interface url")?),
        other => anyhow::bail!("unknown binding {other}"),
    })
}
