//! `a2a-interop-driver`: this workspace's three clients against an A2A agent written with an
//! official SDK (run by `cargo xtask interop`; see `docs/interop.md`).
//!
//! ```text
//! a2a-interop-driver --url http://127.0.0.1:PORT [--protocol 1.0|0.3]
//! ```
//!
//! Fetches the agent card at `URL/.well-known/agent-card.json`, then for every binding (JSON-RPC,
//! HTTP+JSON, gRPC) builds our client for the card's interface of that binding
//! (`a2a_client::ClientBuilder::binding_client`, the interface's tenant on every binding) and runs the same
//! operations, with the same assertions, as the official SDKs' clients do against our server
//! (`tests/interop/python/sdk_client.py`, `tests/interop/js/sdk_client.mjs`), plus a push round
//! trip: a task whose notifications go to a webhook receiver in this process that parses every
//! payload with our types.
//!
//! With `--protocol 0.3` the agent is a 0.3 agent (`--v03-file-bytes base64-text` for one built
//! with a2a-sdk 0.3, which reads file bytes only in that encoding): the card is read as a 0.3 card
//! (`a2a_v03`'s `AgentCard::from_v03`), each client is built for the card's 0.3 interface in
//! `ProtocolVersion::V0_3`, and the operations are those of the 0.3 line
//! ([`a2a_interop_records::OPERATIONS_V03`]: the 0.3 SDK clients' list; `ListTasks` and the other 1.0-only
//! checks have no 0.3 counterpart). The webhook then expects 0.3 push bodies (the Task in 0.3 JSON).
//!
//! Each cell is one JSON line on stdout, an `interop` record of `a2a_interop_records` as the other
//! interop programs print it:
//! `{"record":"interop","binding":"GRPC","op":"card","outcome":"pass","detail":""}`. The exit code
//! is 1 if any cell failed.

mod checks;
mod webhook;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use a2a_client::ClientBuilder;
use a2a_core::{A2aService, ProtocolVersion, AGENT_CARD_PATH};
use a2a_interop_records::{Outcome, Record};
use a2a_proto::v1::{AgentCard, AgentInterface};
use a2a_v03::ProtoFileBytes;
use anyhow::Context as _;
use clap::Parser;

use crate::checks::Checks;
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

    /// The A2A version to speak: 1.0, or 0.3 for an agent of the 0.3 line.
    #[arg(long, value_enum, default_value_t = Protocol::V1_0)]
    protocol: Protocol,

    /// Whether the agent's push sender sends `Authorization` from the config's authentication
    /// (the 0.3 SDKs send only the token header; see docs/interop.md).
    #[arg(long, value_enum, default_value_t = Sending::Sent)]
    push_authorization: Sending,

    /// With `--protocol 0.3`: what our gRPC and HTTP+JSON clients put into the 0.3 proto's file
    /// bytes field: `bytes` (the default) or `base64-text`, which agents built with a2a-sdk
    /// (Python) 0.3 need (`a2a_v03::file_bytes`, docs/interop.md).
    #[arg(long, value_enum, default_value_t = FileBytes::Bytes)]
    v03_file_bytes: FileBytes,
}

/// The driver's spelling of [`ProtoFileBytes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum FileBytes {
    /// [`ProtoFileBytes::Bytes`].
    Bytes,
    /// [`ProtoFileBytes::Base64Text`].
    Base64Text,
}

impl From<FileBytes> for ProtoFileBytes {
    fn from(value: FileBytes) -> Self {
        match value {
            FileBytes::Bytes => ProtoFileBytes::Bytes,
            FileBytes::Base64Text => ProtoFileBytes::Base64Text,
        }
    }
}

/// The protocol version the driver speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Protocol {
    /// A2A 1.0 (the card's 1.x interfaces).
    #[value(name = "1.0")]
    V1_0,
    /// A2A 0.3 (the card's 0.3 interfaces, the clients' 0.3 mode).
    #[value(name = "0.3")]
    V0_3,
}

impl Protocol {
    /// The interfaces of this version declare a `protocolVersion` starting so.
    fn interface_prefix(self) -> &'static str {
        match self {
            Protocol::V1_0 => "1.",
            Protocol::V0_3 => "0.3",
        }
    }

    fn version(self) -> ProtocolVersion {
        match self {
            Protocol::V1_0 => ProtocolVersion::V1_0,
            Protocol::V0_3 => ProtocolVersion::V0_3,
        }
    }
}

/// Whether a peer sends a header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Sending {
    /// The header is sent.
    Sent,
    /// The header is not sent.
    Omitted,
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
    let operations = checks::operations(args.protocol);
    let card = match fetch_card(&args.url).await {
        Ok(card) => card,
        Err(err) => {
            // Without a card no operation can run: every cell fails, with the reason.
            for binding in BINDINGS {
                for op in operations.iter().map(|o| o.name) {
                    report(binding, op, Err(&err));
                }
            }
            return ExitCode::FAILURE;
        }
    };
    let webhook = match Webhook::start(args.protocol).await {
        Ok(webhook) => Arc::new(webhook),
        Err(err) => {
            eprintln!("cannot start the webhook receiver: {err:#}");
            return ExitCode::FAILURE;
        }
    };
    let mut failed = false;
    for binding in BINDINGS {
        let client = match client_for(&card, binding, args.protocol, args.v03_file_bytes.into()) {
            Ok(client) => client,
            Err(err) => {
                for op in operations.iter().map(|o| o.name) {
                    report(binding, op, Err(&err));
                }
                failed = true;
                continue;
            }
        };
        let checks = Checks::new(
            client,
            card.clone(),
            binding,
            Arc::clone(&webhook),
            args.protocol,
            (args.push_token_with_auth, args.push_authorization),
        );
        for op in operations.iter().map(|o| o.name) {
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
    let record = match outcome {
        Ok(()) => Record::interop(Some(binding), op, Outcome::Pass, ""),
        Err(err) => {
            let detail = format!("{err:#}").split_whitespace().collect::<Vec<_>>().join(" ");
            eprintln!("check {binding} {op} FAILED: {err:?}");
            Record::interop(Some(binding), op, Outcome::Fail, &detail)
        }
    };
    println!("{}", record.to_line());
}

/// The agent card at `base_url` + [`AGENT_CARD_PATH`] (spec 8.2), fetched and read by
/// a2a-client (`ClientBuilder::fetch_card`): any form, a 0.3 card through `a2a_v03`'s reader,
/// which gives each 0.3 interface `protocolVersion` 0.3.
async fn fetch_card(base_url: &str) -> anyhow::Result<AgentCard> {
    ClientBuilder::default()
        .fetch_card(base_url)
        .await
        .with_context(|| format!("the agent card at {}{AGENT_CARD_PATH}", base_url.trim_end_matches('/')))
}

/// The card's interface of `binding` in `protocol`'s version.
fn interface<'a>(
    card: &'a AgentCard,
    binding: &str,
    protocol: Protocol,
) -> anyhow::Result<&'a AgentInterface> {
    let prefix = protocol.interface_prefix();
    card.supported_interfaces
        .iter()
        .find(|i| i.protocol_binding == binding && i.protocol_version.starts_with(prefix))
        .with_context(|| format!("the card has no {prefix}x {binding} interface"))
}

/// Our client for the card's interface of `binding`, speaking `protocol`
/// ([`ClientBuilder::binding_client`]: raw, the interface's tenant on every request of every
/// binding, `file_bytes` for 0.3 file bytes over gRPC and HTTP+JSON).
fn client_for(
    card: &AgentCard,
    binding: &str,
    protocol: Protocol,
    file_bytes: ProtoFileBytes,
) -> anyhow::Result<Arc<dyn A2aService>> {
    let interface = interface(card, binding, protocol)?;
    ClientBuilder::default()
        .v03_file_bytes(file_bytes)
        .binding_client(interface, protocol.version())
        .with_context(|| format!("our client for the {binding} interface at {}", interface.url))
}
