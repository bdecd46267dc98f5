//! The agent-facing API: implement [`AgentExecutor`] with your agent's logic, publish what it does
//! through the [`TaskUpdater`] it receives.
//!
//! The handler owns the [`Task`]: the executor never builds one. It publishes status updates,
//! artifacts (whole, or in chunks with `append` / `lastChunk`, spec 4.2.2) or a single direct
//! [`Message`] reply, and the handler validates each event against the state machine
//! ([`crate::lifecycle`]), stores it, streams it to every subscriber in order and posts it to
//! the task's webhooks.
//!
//! ```
//! use a2a_core::executor::{AgentExecutor, RequestContext, TaskUpdater};
//! use a2a_proto::v1::{Artifact, Part};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> a2a_core::Result<()> {
//!         updater.start_work(None).await?;
//!         updater.add_artifact(Artifact::new(vec![Part::text(ctx.message.text())])).await?;
//!         updater.complete(None).await
//!     }
//! }
//! ```

use std::future::Future;
use std::sync::Arc;

use a2a_proto::v1::{
    Artifact, Message, Part, Role, SendMessageConfiguration, StreamResponse, Task, TaskArtifactUpdateEvent,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use async_trait::async_trait;
use pbjson_types::Struct;
use tokio_util::sync::CancellationToken;

use crate::context::CallContext;
use crate::error::{Error, Result};
use crate::execution::{ProducerGuard, TaskRuntime};

/// Your agent. One call of [`execute`](Self::execute) per incoming message; [`cancel`](Self::cancel)
/// when a client cancels the task.
#[async_trait]
pub trait AgentExecutor: Send + Sync + 'static {
    /// Processes `ctx.message`. Publish at least one event: a status update or artifact (the
    /// handler then creates the task), or one [`TaskUpdater::reply`] message for a task-less
    /// answer. Returning `Err` fails the task (or, if nothing was published yet, fails the call).
    ///
    /// A blocking SendMessage returns when the task reaches a terminal or interrupted state, or
    /// when `execute` has returned and every clone of `updater` is dropped; a stream ends then too.
    ///
    /// Once the task is canceled (`ctx.cancellation` fires), `execute` should return soon: past
    /// [`CANCEL_GRACE`](crate::handler::CANCEL_GRACE) the handler drops its future (it is not
    /// polled again; what it published is kept) and logs a warning.
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()>;

    /// Called by CancelTask on a non-terminal task, after `ctx.cancellation` of any running
    /// execution has fired. The default publishes `CANCELED`; override to clean up first. If the
    /// task is not terminal when this returns, the handler marks it `CANCELED` itself.
    async fn cancel(&self, task: Task, updater: TaskUpdater) -> Result<()> {
        let _ = task;
        updater.cancel(None).await
    }

    /// Called at startup for each task a previous run of the server left `SUBMITTED` or
    /// `WORKING` (its execution died with the process; see `DefaultRequestHandler::recover`). The
    /// default marks it `FAILED` with [`RESTARTED`] as the status message. Override to resume the
    /// work instead: keep `updater` (e.g. move it into a spawned task) and publish as usual.
    async fn recover(&self, task: Task, updater: TaskUpdater) -> Result<()> {
        let _ = task;
        updater.fail(Some(updater.agent_text(RESTARTED))).await
    }
}

/// The status message of a task the server failed because it restarted while the task ran.
pub const RESTARTED: &str = "The server restarted while this task was running; it was not finished.";

/// A shared executor is an executor (so a builder can take an `Arc<dyn AgentExecutor>` where it
/// takes any executor). Callers that hold one call through it (`(*executor).execute(..)`): a
/// method call on the `Arc` itself would take this impl, one more boxed future per call.
#[async_trait]
impl<T: AgentExecutor + ?Sized> AgentExecutor for Arc<T> {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        (**self).execute(ctx, updater).await
    }

    async fn cancel(&self, task: Task, updater: TaskUpdater) -> Result<()> {
        (**self).cancel(task, updater).await
    }

    async fn recover(&self, task: Task, updater: TaskUpdater) -> Result<()> {
        (**self).recover(task, updater).await
    }
}

/// What the executor knows about the message it processes.
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The task this message belongs to (newly generated for a new task, spec 3.4.2).
    pub task_id: String,
    /// The task's context (the client's, or newly generated, spec 3.4.1).
    pub context_id: String,
    /// The incoming message, with `taskId` and `contextId` filled in.
    pub message: Message,
    /// The task as it was before this message, when the message continues an existing task.
    pub task: Option<Task>,
    /// The tasks named by `message.referenceTaskIds` that exist and are visible to the caller.
    pub reference_tasks: Vec<Task>,
    /// The request's configuration (accepted output modes, history length, ...).
    pub configuration: Option<SendMessageConfiguration>,
    /// The request's metadata.
    pub metadata: Option<Struct>,
    /// The request's tenant.
    pub tenant: String,
    /// The caller's principal and service parameters (e.g. the `A2A-Extensions` in use).
    pub call: CallContext,
    /// Fires when the task is canceled: stop working and return (within
    /// [`CANCEL_GRACE`](crate::handler::CANCEL_GRACE), or the execution is dropped).
    pub cancellation: CancellationToken,
}

/// The executor's handle on its task: every method publishes one event (or none, for
/// [`submit`](Self::submit) on an existing task). Cheap to clone; keep a clone to publish from
/// other tasks. Publishing fails with `InvalidAgentResponse` when the event is not valid now
/// (e.g. after a terminal state, or a reply after task events), except an update that lost a
/// race with CancelTask, which is dropped without an error ([`publish`](Self::publish)).
#[derive(Clone)]
pub struct TaskUpdater {
    runtime: Arc<TaskRuntime>,
    _guard: Arc<ProducerGuard>,
}

impl std::fmt::Debug for TaskUpdater {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskUpdater").field("task_id", &self.runtime.task_id).finish_non_exhaustive()
    }
}

impl TaskUpdater {
    pub(crate) fn new(runtime: Arc<TaskRuntime>, guard: Arc<ProducerGuard>) -> Self {
        TaskUpdater { runtime, _guard: guard }
    }

    /// The task's id.
    pub fn task_id(&self) -> &str {
        &self.runtime.task_id
    }

    /// The task's context id.
    pub fn context_id(&self) -> &str {
        &self.runtime.context_id
    }

    /// Whether the task has been canceled.
    pub fn is_cancelled(&self) -> bool {
        self.runtime.cancellation.is_cancelled()
    }

    /// Completes when the task is canceled.
    pub async fn cancelled(&self) {
        self.runtime.cancellation.cancelled().await;
    }

    /// An agent message in this task and context, with a fresh id.
    pub fn agent_message(&self, parts: Vec<Part>) -> Message {
        Message::agent(parts).with_task_id(self.task_id()).with_context_id(self.context_id())
    }

    /// A one-part text [`agent_message`](Self::agent_message).
    pub fn agent_text(&self, text: impl Into<String>) -> Message {
        self.agent_message(vec![Part::text(text)])
    }

    /// Publishes any event. Ids left empty are filled in; ids of another task are refused.
    ///
    /// # Updates racing a cancellation
    /// Once a CancelTask has reached the task ([`is_cancelled`](Self::is_cancelled) is true, or
    /// the update finds the task `CANCELED`: with several replicas the CancelTask may have been
    /// taken by another one, and its token then fires here), an update its state no longer
    /// admits (a status or artifact after `CANCELED`) is dropped and the call returns `Ok(())`:
    /// an agent that sends periodic updates needs no error handling for that race. It learns of the cancellation from [`cancelled`](Self::cancelled) /
    /// [`is_cancelled`](Self::is_cancelled) (or `RequestContext::cancellation`), and should stop
    /// working then. Without a cancellation, an update the state does not admit is an
    /// `InvalidAgentResponse` error, as always: that is a bug of the agent.
    ///
    /// # When the event is stored
    /// The call returns once the event is checked and queued in order; it is stored (together
    /// with the events published right after it) before any subscriber sees it. A write that
    /// fails is reported by the next call (or [`flush`](Self::flush)), and ends the execution
    /// as failed if nothing calls again.
    pub async fn publish(&self, event: impl Into<StreamResponse>) -> Result<()> {
        self.unless_cancelled(self.runtime.publish(event.into()).await)
    }

    /// An update the store refused after a cancellation is dropped (see [`publish`](Self::publish)).
    fn unless_cancelled(&self, outcome: Result<()>) -> Result<()> {
        match outcome {
            Err(Error::InvalidAgentResponse { reason }) if self.is_cancelled() => {
                tracing::debug!(task_id = %self.task_id(), %reason, "an update after the task was canceled was dropped");
                Ok(())
            }
            Err(Error::InvalidAgentResponse { reason }) => {
                // A bug of the agent (e.g. an update after the task ended): refused before it is
                // stored, and logged here, whether or not the agent reports the error.
                tracing::warn!(task_id = %self.task_id(), %reason, "the agent's update was refused");
                Err(Error::InvalidAgentResponse { reason })
            }
            other => other,
        }
    }

    /// Waits until every event published so far is stored and handed to the task's
    /// subscribers, and returns the error of a write of them that failed.
    ///
    /// [`publish`](Self::publish) returns once the event is checked and queued, in order: the
    /// events an execution publishes without waiting in between are stored together, in one
    /// write, before any subscriber, webhook or reader sees them (a client is never told of an
    /// event a restart could lose). An agent that must know an event is durable before it acts
    /// on the outside world (it charges a card once the task says so, say) calls this first. The
    /// end of an execution flushes by itself.
    pub async fn flush(&self) -> Result<()> {
        self.unless_cancelled(self.runtime.flush().await)
    }

    /// Makes sure the task exists (state `SUBMITTED` for a new task), without another event.
    pub async fn submit(&self) -> Result<()> {
        self.runtime.ensure_created().await
    }

    /// Publishes a status update.
    pub async fn update_status(&self, state: TaskState, message: Option<Message>) -> Result<()> {
        let status = TaskStatus { state: state.into(), message, timestamp: None };
        // The ids are left empty: the runtime fills them in when the event is handed out. The
        // event goes straight to the runtime, which takes it at once: this future holds no copy.
        let event = TaskStatusUpdateEvent {
            task_id: String::new(),
            context_id: String::new(),
            status: Some(status),
            metadata: None,
        };
        self.unless_cancelled(self.runtime.publish(event.into()).await)
    }

    /// `WORKING`.
    pub fn start_work(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::Working, message)
    }

    /// `COMPLETED` (terminal).
    pub fn complete(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::Completed, message)
    }

    /// `FAILED` (terminal).
    pub fn fail(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::Failed, message)
    }

    /// `REJECTED` (terminal): the agent will not perform the task.
    pub fn reject(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::Rejected, message)
    }

    /// `CANCELED` (terminal).
    pub fn cancel(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::Canceled, message)
    }

    /// `INPUT_REQUIRED` (interrupted): the client continues the task with a new message. The
    /// message, usually the question, is optional like every status message.
    pub fn require_input(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::InputRequired, message)
    }

    /// `AUTH_REQUIRED` (interrupted, spec 7.6); the message is optional like every status message.
    pub fn require_auth(&self, message: Option<Message>) -> impl Future<Output = Result<()>> + Send + '_ {
        self.update_status(TaskState::AuthRequired, message)
    }

    /// Publishes a whole artifact (`append: false`, `lastChunk: true`).
    pub fn add_artifact(&self, artifact: Artifact) -> impl Future<Output = Result<()>> + Send + '_ {
        self.artifact_update(artifact, false, true)
    }

    /// Publishes a chunk to append to the artifact of the same id (spec 4.2.2).
    pub fn append_artifact(
        &self,
        artifact: Artifact,
        last_chunk: bool,
    ) -> impl Future<Output = Result<()>> + Send + '_ {
        self.artifact_update(artifact, true, last_chunk)
    }

    /// Publishes an artifact update with explicit `append` and `lastChunk`.
    pub async fn artifact_update(&self, artifact: Artifact, append: bool, last_chunk: bool) -> Result<()> {
        // As in `update_status`: empty ids, and the event straight to the runtime.
        let event = TaskArtifactUpdateEvent {
            task_id: String::new(),
            context_id: String::new(),
            artifact: Some(artifact),
            append,
            last_chunk,
            metadata: None,
        };
        self.unless_cancelled(self.runtime.publish(event.into()).await)
    }

    /// Answers with a direct message and no task (spec 3.1.1): only as the first and only event of
    /// an execution for a new task.
    pub async fn reply(&self, mut message: Message) -> Result<()> {
        if message.role == Role::Unspecified as i32 {
            message.role = Role::Agent.into();
        }
        self.unless_cancelled(self.runtime.publish(message.into()).await)
    }
}
