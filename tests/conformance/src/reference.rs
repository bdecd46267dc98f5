//! In-process reference servers: the demo agent as the agent under test, and the configurations
//! some scenarios need that a working agent cannot show on its own (a card without optional
//! capabilities, an extended card declared but not configured, a required extension, an agent
//! whose reply is invalid). Used by the suite's own tests and by `a2a-conformance
//! --reference-setups` when it tests the reference server.

use std::net::SocketAddr;

use a2a_core::push::DestinationPolicy;
use a2a_core::{AgentExecutor, RequestContext, TaskUpdater};
use a2a_demo::{demo_card, demo_extended_card, DemoAgent};
use a2a_proto::v1::{AgentCapabilities, AgentCard, AgentExtension};
use a2a_server::{RunningServer, Server};
use anyhow::Context as _;
use async_trait::async_trait;

use crate::scenario::{Capability, Setup};
use crate::target::Target;

/// The extension the [`Setup::RequiredExtension`] server requires.
pub const REQUIRED_EXTENSION: &str = "urn:a2a-conformance:required-extension:v1";

/// An agent that returns without publishing anything: its SendMessage reply can be neither a
/// Task nor a Message (spec 3.3.2 InvalidAgentResponseError).
#[derive(Debug, Clone, Copy, Default)]
pub struct SilentAgent;

#[async_trait]
impl AgentExecutor for SilentAgent {
    async fn execute(&self, _ctx: RequestContext, _updater: TaskUpdater) -> a2a_core::Result<()> {
        Ok(())
    }
}

/// The reference servers for every [`Setup`] besides [`Setup::Agent`].
#[derive(Debug)]
pub struct ReferenceSetups {
    servers: Vec<(Vec<Setup>, RunningServer)>,
}

impl ReferenceSetups {
    /// Starts one server per configuration on `127.0.0.1:0`.
    ///
    /// # Errors
    /// When a server cannot bind or start.
    pub async fn start() -> anyhow::Result<ReferenceSetups> {
        let mut servers = Vec::new();
        // One card without any optional capability stands for all three `Lacking` setups.
        let mut minimal = demo_card();
        minimal.capabilities = Some(AgentCapabilities {
            streaming: Some(false),
            push_notifications: Some(false),
            extensions: vec![],
            extended_agent_card: Some(false),
        });
        let lacking = vec![
            Setup::Lacking(Capability::Streaming),
            Setup::Lacking(Capability::PushNotifications),
            Setup::Lacking(Capability::ExtendedAgentCard),
        ];
        servers.push((lacking, spawn(Server::builder().agent_card(minimal).executor(DemoAgent)).await?));
        // The demo card declares extendedAgentCard; no extended card is given.
        servers.push((
            vec![Setup::ExtendedCardNotConfigured],
            spawn(
                Server::builder()
                    .agent_card(demo_card())
                    .executor(DemoAgent)
                    .push_destination_policy(loopback()),
            )
            .await?,
        ));
        let mut extension = demo_card();
        if let Some(capabilities) = extension.capabilities.as_mut() {
            capabilities.extensions.push(AgentExtension {
                uri: REQUIRED_EXTENSION.into(),
                description: "Required by the conformance suite's RequiredExtension setup.".into(),
                required: true,
                params: None,
            });
        }
        servers.push((
            vec![Setup::RequiredExtension],
            spawn(
                Server::builder()
                    .agent_card(extension)
                    .extended_agent_card(demo_extended_card())
                    .executor(DemoAgent)
                    .push_destination_policy(loopback()),
            )
            .await?,
        ));
        servers.push((
            vec![Setup::InvalidAgentResponse],
            spawn(
                Server::builder()
                    .agent_card(silent_card())
                    .executor(SilentAgent)
                    .push_destination_policy(loopback()),
            )
            .await?,
        ));
        Ok(ReferenceSetups { servers })
    }

    /// Each setup with its server, discovered from its card.
    ///
    /// # Errors
    /// When a card cannot be read.
    pub async fn targets(&self, http: &reqwest::Client) -> anyhow::Result<Vec<(Setup, Target)>> {
        let mut targets = Vec::new();
        for (setups, server) in &self.servers {
            let target = Target::discover(&server.url(), http).await?;
            for setup in setups {
                targets.push((*setup, target.clone()));
            }
        }
        Ok(targets)
    }

    /// Stops every server.
    ///
    /// # Errors
    /// When a server fails while shutting down.
    pub async fn shutdown(self) -> anyhow::Result<()> {
        for (_, server) in self.servers {
            server.shutdown().await?;
        }
        Ok(())
    }
}

/// The reference server with the demo agent, as `a2a-server` runs it (push to loopback allowed so
/// the suite's local webhook is reachable).
///
/// # Errors
/// When it cannot bind or start.
pub async fn spawn_demo_agent() -> anyhow::Result<RunningServer> {
    spawn(
        Server::builder()
            .agent_card(demo_card())
            .extended_agent_card(demo_extended_card())
            .executor(DemoAgent)
            .push_destination_policy(loopback()),
    )
    .await
}

/// The address the local webhook and the servers share.
fn loopback() -> DestinationPolicy {
    let loopback = "127.0.0.0/8".parse().expect("a valid network");
    DestinationPolicy::public_only().allowing([loopback])
}

/// The card of the [`SilentAgent`]: the demo card, whose skills a silent agent does not perform,
/// so only the card's shape is kept.
fn silent_card() -> AgentCard {
    let mut card = demo_card();
    card.name = "Silent agent (answers nothing)".into();
    card
}

async fn spawn(builder: a2a_server::ServerBuilder) -> anyhow::Result<RunningServer> {
    let local: SocketAddr = "127.0.0.1:0".parse().expect("a valid address");
    let listener = tokio::net::TcpListener::bind(local).await.context("binding 127.0.0.1:0")?;
    builder.spawn(listener).await.context("starting a reference server")
}
