//! Our three clients behind one [`A2aService`], and where each binding of a server is: read from
//! its agent card's `supportedInterfaces` (so any A2A server URL works), or, for the ceilings,
//! from their known layout.

use std::sync::Arc;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{
    AgentCard, Message, SendMessageConfiguration, SendMessageRequest, StreamResponse, Task, TaskState,
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

/// Where each binding of one server is served.
#[derive(Debug, Clone, Default)]
pub(crate) struct Endpoints {
    jsonrpc: Option<String>,
    rest: Option<String>,
    grpc: Option<String>,
}

impl Endpoints {
    /// The ceilings' layout: JSON-RPC at `POST /` and REST at the root of `http`, gRPC at `grpc`.
    pub(crate) fn ceiling(http: &str, grpc: &str) -> Self {
        let grpc = grpc.trim_start_matches("http://").to_owned();
        Endpoints {
            jsonrpc: Some(format!("{}/", http.trim_end_matches('/'))),
            rest: Some(http.into()),
            grpc: Some(grpc),
        }
    }

    /// The 1.x interfaces the agent card at `base_url` declares.
    pub(crate) async fn discover(base_url: &str) -> anyhow::Result<(Self, AgentCard)> {
        let url = format!("{}/.well-known/agent-card.json", base_url.trim_end_matches('/'));
        let body = reqwest::get(&url)
            .await
            .and_then(reqwest::Response::error_for_status)
            .with_context(|| format!("fetching the agent card at {url}"))?
            .bytes()
            .await?;
        let card: AgentCard = a2a_proto::json::from_slice(&body).with_context(|| format!("parsing {url}"))?;
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
            slot.get_or_insert_with(|| interface.url.clone());
        }
        Ok((endpoints, card))
    }

    /// Where `binding` is served, if it is.
    pub(crate) fn get(&self, binding: Binding) -> Option<&str> {
        match binding {
            Binding::JsonRpc => self.jsonrpc.as_deref(),
            Binding::Rest => self.rest.as_deref(),
            Binding::Grpc => self.grpc.as_deref(),
        }
    }

    /// A new client (its own connection pool) for `binding`. Call it inside the runtime that
    /// will drive the client: connections belong to the runtime they were opened in.
    pub(crate) fn client(&self, binding: Binding) -> anyhow::Result<Arc<dyn A2aService>> {
        let Some(url) = self.get(binding) else { bail!("the server offers no {} interface", binding.name()) };
        Ok(match binding {
            Binding::JsonRpc => Arc::new(a2a_jsonrpc::JsonRpcClient::new(url)),
            Binding::Rest => Arc::new(a2a_rest::RestClient::new(url)?),
            Binding::Grpc => Arc::new(a2a_grpc::GrpcClient::connect_lazy(url)?),
        })
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
