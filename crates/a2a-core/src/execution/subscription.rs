//! A subscriber's view of a runtime: ordered events, lag recovery by snapshot, and the end rules of
//! each kind of stream.

use std::sync::Arc;

use a2a_proto::v1::{Message, StreamResponse, Task, TaskState};
use tokio::sync::{broadcast, Semaphore};

use super::{Envelope, TaskRuntime};
use crate::error::{Error, Result};
use crate::store::TaskView;

/// When a stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StreamMode {
    /// SendStreamingMessage (and a blocking SendMessage): at a terminal or interrupted state
    /// (spec 11.7), or when the execution ends.
    Execution,
    /// SubscribeToTask: at a terminal state only (spec 3.1.6); it outlives executions.
    Task,
}

/// One step of a subscription.
#[derive(Debug)]
pub(crate) enum Step {
    /// A task event (or a resync snapshot), and the task's state after it. Shared with the other
    /// subscribers: a caller that only needs the state (a blocking SendMessage) copies nothing.
    Event(Arc<StreamResponse>, TaskState),
    /// The execution answered with a message and no task.
    Reply(Message),
    /// The execution ended without reaching a state that ends the stream; with the error if it
    /// failed before creating a task.
    Ended(Option<Arc<Error>>),
}

/// A subscriber of one task runtime.
pub(crate) struct Subscription {
    runtime: Arc<TaskRuntime>,
    rx: broadcast::Receiver<Envelope>,
    mode: StreamMode,
    /// Events with a sequence number up to this are already reflected in what was delivered.
    delivered_through: u64,
    window: Option<Arc<Semaphore>>,
    finished: bool,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("task_id", &self.runtime.task_id)
            .field("mode", &self.mode)
            .finish()
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // An abandoned originating stream must not hold the agent back.
        if let Some(window) = &self.window {
            window.close();
        }
    }
}

impl Subscription {
    pub(crate) fn new(
        runtime: Arc<TaskRuntime>,
        rx: broadcast::Receiver<Envelope>,
        mode: StreamMode,
        window: Option<Arc<Semaphore>>,
    ) -> Self {
        Subscription { runtime, rx, mode, delivered_through: 0, window, finished: false }
    }

    /// Skips events already reflected in a snapshot the caller delivered itself.
    pub(crate) fn skip_through(&mut self, seq: u64) {
        self.delivered_through = self.delivered_through.max(seq);
    }

    /// The `seq` of the last event (or snapshot) delivered.
    pub(crate) fn position(&self) -> u64 {
        self.delivered_through
    }

    /// Whether the state ends a stream of this mode.
    pub(crate) fn ends(&self, state: TaskState) -> bool {
        state.is_terminal() || (self.mode == StreamMode::Execution && state.is_interrupted())
    }

    /// The next step, or `None` once the stream has ended.
    pub(crate) async fn next(&mut self) -> Option<Result<Step>> {
        if self.finished {
            return None;
        }
        loop {
            match self.rx.recv().await {
                Ok(Envelope::Event { seq, event, state }) => {
                    if let Some(window) = &self.window {
                        window.add_permits(1);
                    }
                    if seq <= self.delivered_through {
                        continue;
                    }
                    self.delivered_through = seq;
                    self.finished = self.ends(state);
                    return Some(Ok(Step::Event(event, state)));
                }
                Ok(Envelope::Reply(message)) => {
                    self.finished = true;
                    return Some(Ok(Step::Reply((*message).clone())));
                }
                Ok(Envelope::ExecutionEnded { error }) => {
                    if self.mode == StreamMode::Execution {
                        self.finished = true;
                        return Some(Ok(Step::Ended(error)));
                    }
                }
                Ok(Envelope::Resync) => {
                    // Lossless resync: a snapshot reflects everything missed (module docs).
                    crate::stats::record_resync(0);
                    return Some(self.resync().await);
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    crate::stats::record_resync(missed);
                    return Some(self.resync().await);
                }
                Err(broadcast::error::RecvError::Closed) => {
                    self.finished = true;
                    return None;
                }
            }
        }
    }

    async fn resync(&mut self) -> Result<Step> {
        let (seq, task) = self.runtime.snapshot(TaskView::FULL).await?;
        let task: Task = task.ok_or_else(|| Error::TaskNotFound { task_id: self.runtime.task_id.clone() })?;
        self.delivered_through = seq;
        let state = task.state();
        self.finished = self.ends(state);
        Ok(Step::Event(Arc::new(StreamResponse::from(task)), state))
    }
}
