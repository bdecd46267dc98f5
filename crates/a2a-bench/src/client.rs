//! Our three clients behind one [`A2aService`], and where each binding of a server is: read from
//! its agent card's `supportedInterfaces` (so any A2A server URL works), or, for the ceilings,
//! from their known layout.

use std::sync::Arc;

use a2a_client::ClientBuilder;
use a2a_core::{A2aService, CallContext, ProtocolVersion, AGENT_CARD_PATH};
use a2a_proto::v1::{
    AgentCard, AgentInterface, Message, SendMessageConfiguration, SendMessageRequest, StreamResponse, Task,
    TaskState,
};
use anyhow::{bail, Context as _};
use futures::StreamExt;

pub(crate) use a2a_core::Binding;

/// The names this harness gives the bindings in its flags and reports: `jsonrpc`, `rest`,
/// `grpc` (the spec's own names are `Binding::protocol_binding`).
pub(crate) trait ReportName {
    /// The report name.
    fn name(self) -> &'static str;
}

impl ReportName for Binding {
    fn name(self) -> &'static str {
        match self {
            Binding::JsonRpc => "jsonrpc",
            Binding::Rest => "rest",
            Binding::Grpc => "grpc",
        }
    }
}

/// Writes a binding by its report name (for `#[serde(serialize_with)]`).
pub(crate) fn serialize_name<S: serde::Serializer>(
    binding: &Binding,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(binding.name())
}

/// Where each binding of one server is served: the interface of each (its URL and tenant).
#[derive(Debug, Clone, Default)]
pub(crate) struct Endpoints {
    jsonrpc: Option<AgentInterface>,
    rest: Option<AgentInterface>,
    grpc: Option<AgentInterface>,
}

/// A 1.0 interface of `binding` at `url`, without a tenant (the ceilings have no card).
fn interface(binding: Binding, url: String) -> AgentInterface {
    AgentInterface {
        url,
        protocol_binding: binding.protocol_binding().into(),
        protocol_version: ProtocolVersion::V1_0.as_str().into(),
        tenant: String::new(),
    }
}

impl Endpoints {
    /// The ceilings' layout: JSON-RPC at `POST /` and REST at the root of `http`, gRPC at `grpc`.
    pub(crate) fn ceiling(http: &str, grpc: &str) -> Self {
        let grpc = grpc.trim_start_matches("http://").to_owned();
        Endpoints {
            jsonrpc: Some(interface(Binding::JsonRpc, format!("{}/", http.trim_end_matches('/')))),
            rest: Some(interface(Binding::Rest, http.into())),
            grpc: Some(interface(Binding::Grpc, grpc)),
        }
    }

    /// The 1.x interfaces the agent card at `base_url` + [`AGENT_CARD_PATH`] declares (fetched
    /// and read by a2a-client).
    pub(crate) async fn discover(base_url: &str) -> anyhow::Result<(Self, AgentCard)> {
        let card = ClientBuilder::default().fetch_card(base_url).await.with_context(|| {
            format!("fetching the agent card at {}{AGENT_CARD_PATH}", base_url.trim_end_matches('/'))
        })?;
        let mut endpoints = Endpoints::default();
        for interface in &card.supported_interfaces {
            if !interface.protocol_version.is_empty() && !interface.protocol_version.starts_with("1.") {
                continue;
            }
            let slot = match interface.protocol_binding.as_str() {
                b if b == Binding::JsonRpc.protocol_binding() => &mut endpoints.jsonrpc,
                b if b == Binding::Rest.protocol_binding() => &mut endpoints.rest,
                b if b == Binding::Grpc.protocol_binding() => &mut endpoints.grpc,
                _ => continue,
            };
            slot.get_or_insert_with(|| interface.clone());
        }
        Ok((endpoints, card))
    }

    /// The interface of `binding`, if the server offers one.
    fn interface(&self, binding: Binding) -> Option<&AgentInterface> {
        match binding {
            Binding::JsonRpc => self.jsonrpc.as_ref(),
            Binding::Rest => self.rest.as_ref(),
            Binding::Grpc => self.grpc.as_ref(),
        }
    }

    /// Where `binding` is served, if it is.
    pub(crate) fn get(&self, binding: Binding) -> Option<&str> {
        self.interface(binding).map(|interface| interface.url.as_str())
    }

    /// A new client (its own connection pool) for `binding`, in 1.0, with the interface's
    /// tenant ([`ClientBuilder::binding_client`]). Call it inside the runtime that will drive
    /// the client: connections belong to the runtime they were opened in.
    pub(crate) fn client(&self, binding: Binding) -> anyhow::Result<Arc<dyn A2aService>> {
        let Some(interface) = self.interface(binding) else {
            bail!("the server offers no {} interface", binding.name())
        };
        Ok(ClientBuilder::default().binding_client(interface, ProtocolVersion::V1_0)?)
    }
}

/// A SendMessage request with a one-part text message (a fresh message id each time).
pub(crate) fn send_request(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

/// A request continuing task `task_id`.
pub(crate) fn send_to_task(text: &str, task_id: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text).with_task_id(task_id)), ..Default::default() }
}

/// A request that returns as soon as the task exists (spec 3.2.2 `returnImmediately`).
pub(crate) fn send_returning_immediately(text: &str) -> SendMessageRequest {
    SendMessageRequest {
        configuration: Some(SendMessageConfiguration { return_immediately: true, ..Default::default() }),
        ..send_request(text)
    }
}

/// The task a SendMessage answered with, or why the reply is not one.
pub(crate) fn reply_task(reply: a2a_proto::v1::SendMessageResponse) -> Result<Task, String> {
    match reply.payload {
        Some(a2a_proto::v1::send_message_response::Payload::Task(task)) => Ok(task),
        other => Err(format!("expected a task, got {other:?}")),
    }
}

/// Sends one echo message and checks the reply is a completed task (the reference server's echo
/// also returns an artifact, a2a-rs's helloworld only a status message: both are accepted).
pub(crate) async fn echo(client: &dyn A2aService, text: &str) -> Result<Task, String> {
    let reply =
        client.send_message(&CallContext::v1(), send_request(text)).await.map_err(|e| e.to_string())?;
    let task = reply_task(reply)?;
    if task.state() != TaskState::Completed {
        return Err(format!("expected a completed task, got {:?}", task.state()));
    }
    Ok(task)
}

/// Every event of a streaming send of `text`.
pub(crate) async fn collect_stream(
    client: &dyn A2aService,
    text: &str,
) -> anyhow::Result<Vec<StreamResponse>> {
    let mut stream = client.send_streaming_message(&CallContext::v1(), send_request(text)).await?;
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event?);
    }
    Ok(events)
}
