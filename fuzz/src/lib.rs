//! What the fuzz targets share: the product's real server stack over an in-memory agent, a
//! runtime to drive it, and small readers of the fuzz input. See `docs/fuzzing.md`.
//!
//! Every target calls the workspace's own code; nothing here re-implements a decoder. The
//! service is the real [`DefaultRequestHandler`] (in-memory stores, a push transport that
//! delivers nothing) with an [`Echo`] executor that finishes at once, so one input costs
//! microseconds and leaves nothing behind: each input gets a fresh handler.

use std::future::Future;
use std::sync::Arc;

use a2a_core::executor::{AgentExecutor, RequestContext, TaskUpdater};
use a2a_core::push::{PushFailure, PushRequest, PushTransport};
use a2a_core::{A2aService, CallContext, DefaultRequestHandler};
use a2a_proto::v1::{AgentCapabilities, AgentCard, AgentSkill, Artifact, ListTasksRequest, Part};
use async_trait::async_trait;
use bytes::Bytes;
use http_body_util::BodyExt as _;

thread_local! {
    /// One current-thread runtime per fuzzing thread (libFuzzer runs inputs on one thread).
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread Tokio runtime");
}

/// Runs `future` to completion on this thread's runtime. Tasks it spawned and left running (a
/// non-blocking SendMessage's execution) go on at the next call.
pub fn block_on<F: Future>(future: F) -> F::Output {
    RUNTIME.with(|runtime| runtime.block_on(future))
}

/// The agent: works, echoes the message's text as an artifact, completes.
#[derive(Debug)]
pub struct Echo;

#[async_trait]
impl AgentExecutor for Echo {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> a2a_core::Result<()> {
        updater.start_work(None).await?;
        updater.add_artifact(Artifact::new(vec![Part::text(ctx.message.text())])).await?;
        updater.complete(None).await
    }
}

/// A push transport that accepts every notification and sends nothing (no network here).
#[derive(Debug)]
struct Discard;

#[async_trait]
impl PushTransport for Discard {
    async fn send(&self, _request: PushRequest) -> Result<(), PushFailure> {
        Ok(())
    }
}

/// The agent card: streaming, push notifications and an extended card, so that every operation
/// reaches its real work instead of a capability error.
pub fn agent_card() -> AgentCard {
    AgentCard {
        name: "echo".into(),
        description: "fuzzing agent".into(),
        version: "1.0.0".into(),
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: vec![],
            extended_agent_card: Some(true),
        }),
        default_input_modes: vec!["text/plain".into(), "application/json".into(), "image/*".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![AgentSkill {
            id: "echo".into(),
            name: "echo".into(),
            description: "echoes".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// A fresh handler (in-memory stores) around [`Echo`].
pub fn service() -> Arc<dyn A2aService> {
    let handler = DefaultRequestHandler::builder(agent_card(), Echo)
        .extended_agent_card(agent_card())
        .push_transport(Arc::new(Discard))
        .build()
        .expect("the fuzzing agent's handler builds");
    Arc::new(handler)
}

/// Reads every task the input left in `service`'s store back (ListTasks with history and
/// artifacts): what a binding accepted must be storable and readable, never an internal error
/// later.
pub async fn check_stored_tasks(service: &dyn A2aService) {
    let request = ListTasksRequest {
        include_artifacts: Some(true),
        history_length: Some(1000),
        page_size: Some(100),
        ..Default::default()
    };
    match service.list_tasks(&CallContext::v1(), request).await {
        Ok(_) => {}
        Err(error @ (a2a_core::Error::Internal { .. } | a2a_core::Error::InvalidAgentResponse { .. })) => {
            panic!("the stored tasks cannot be read back: {error}")
        }
        Err(_) => {}
    }
}

/// The bytes of a response body, read to its end (an SSE stream ends when the task does; one
/// that never ends is a hang libFuzzer's `-timeout` reports).
pub async fn read_body(body: axum::body::Body) -> Bytes {
    match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => panic!("the response body failed: {error}"),
    }
}

/// A reader of the fuzz input: a few leading bytes choose among variants, the rest is data.
#[derive(Debug)]
pub struct Input<'a>(pub &'a [u8]);

impl<'a> Input<'a> {
    /// The next byte (0 once the input is used up).
    pub fn byte(&mut self) -> u8 {
        match self.0.split_first() {
            Some((first, rest)) => {
                self.0 = rest;
                *first
            }
            None => 0,
        }
    }

    /// Up to the next `\n` (not included), or everything left.
    pub fn line(&mut self) -> &'a [u8] {
        match self.0.iter().position(|&b| b == b'\n') {
            Some(end) => {
                let line = &self.0[..end];
                self.0 = &self.0[end + 1..];
                line
            }
            None => std::mem::take(&mut self.0),
        }
    }

    /// Whatever is left.
    pub fn rest(self) -> &'a [u8] {
        self.0
    }
}
