//! [`check`]: the whole suite against the agent at a URL, with what it needs around it (a local
//! webhook, and the reference setups when asked for). What the `a2a-conformance` binary runs.

use std::net::SocketAddr;

use anyhow::Context as _;

use crate::reference::ReferenceSetups;
use crate::report::Report;
use crate::runner::Suite;
use crate::target::Target;
use crate::webhook::Webhook;

/// How to run the suite against an agent.
#[derive(Debug, Clone)]
pub struct Options {
    /// Also start the in-process reference servers for the scenarios that need a server
    /// configured in a particular way. Meaningful when the agent under test is the reference
    /// server itself: the configured servers then stand in for it.
    pub reference_setups: bool,
    /// The webhook URL to register in push configs; `None` starts a local receiver on
    /// [`webhook_listen`](Self::webhook_listen).
    pub webhook_url: Option<String>,
    /// Where the local webhook receiver listens.
    pub webhook_listen: SocketAddr,
    /// Only these scenarios (all when empty).
    pub only: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reference_setups: false,
            webhook_url: None,
            webhook_listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            only: Vec::new(),
        }
    }
}

/// Runs the suite against the agent whose card is at `url` + `/.well-known/agent-card.json`.
///
/// # Errors
/// When the card cannot be read, or the webhook or reference servers cannot start. Failing
/// scenarios are not errors: they are in the [`Report`].
pub async fn check(url: &str, options: &Options) -> anyhow::Result<Report> {
    let http = reqwest::Client::new();
    let agent = Target::discover(url, &http).await.context("reading the agent card")?;
    let webhook = match &options.webhook_url {
        Some(_) => None,
        None => Some(Webhook::start(options.webhook_listen).await.context("starting the local webhook")?),
    };
    let webhook_url = options.webhook_url.clone().or_else(|| webhook.as_ref().map(Webhook::url));
    let references = if options.reference_setups { Some(ReferenceSetups::start().await?) } else { None };
    let mut suite = Suite::new(agent).only(&options.only);
    if let Some(url) = webhook_url {
        suite = suite.with_webhook(url);
    }
    if let Some(references) = &references {
        for (setup, target) in references.targets(&http).await? {
            suite = suite.with_reference(setup, target);
        }
    }
    let report = suite.run().await;
    if let Some(references) = references {
        references.shutdown().await?;
    }
    Ok(report)
}
