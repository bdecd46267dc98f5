//! Running tasks: one [`TaskRuntime`] per task with live executions or subscribers, which orders,
//! validates, stores and fans out every event.
//!
//! Fan-out policy (spec 3.5.2: every stream gets the same events in the same order):
//! - Each event gets a sequence number under the runtime's lock, is applied to the store, then
//!   broadcast to every subscriber through a bounded ring ([`CHANNEL_CAPACITY`] events).
//! - The stream of the request that started the execution (SendStreamingMessage) applies
//!   backpressure: the agent's `publish` waits while that client is [`PRIMARY_WINDOW`] events
//!   behind, so it never loses an event however slow it reads.
//! - Any other subscriber never slows the agent or the others. If it falls more than the ring
//!   behind, it is resynchronised losslessly: it receives a fresh `Task` snapshot (which reflects
//!   every event it missed) and continues with the events after it; events already reflected in
//!   the snapshot are skipped by sequence number. Memory per task stays bounded by the ring.
//!   Snapshots are read without the runtime's lock when possible (a sequence lock over the stored
//!   task, see [`TaskRuntime::snapshot`]): a thousand lagging subscribers must not queue in front
//!   of the agent's next `publish`.
//! - A runtime lives while an execution or a subscriber holds it; the registry keeps only weak
//!   references, so idle tasks cost nothing here (the store holds them).

mod registry;
mod subscription;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use a2a_proto::v1::{stream_response::Payload, Message, Role, StreamResponse, Task, TaskState, TaskStatus};
use tokio::sync::{broadcast, Semaphore};
use tokio_util::sync::CancellationToken;

pub(crate) use registry::Registry;
pub(crate) use subscription::{Step, StreamMode, Subscription};

use crate::error::{Error, Result};
use crate::lifecycle::{can_transition, TaskMutation};
use crate::push::PushDispatcher;
use crate::store::{Scope, TaskStore, TaskView};

/// Events buffered per task for subscribers.
pub(crate) const CHANNEL_CAPACITY: usize = 256;
/// How far the originating stream may fall behind before the agent waits for it.
pub(crate) const PRIMARY_WINDOW: usize = 64;
/// Lock-free snapshot attempts before a snapshot waits for the runtime's lock: two after a yield,
/// then backing off from 1 to 64 ms (about 130 ms in all).
const OPTIMISTIC_SNAPSHOTS: usize = 9;
/// How long an agent may publish without a break before its task yields (see
/// [`TaskRuntime::publish`]).
const PUBLISH_SLICE: std::time::Duration = std::time::Duration::from_millis(10);
/// A pause between two publishes this long ends a slice.
const PUBLISH_GAP: std::time::Duration = std::time::Duration::from_micros(200);

/// What flows from a runtime to its subscribers.
#[derive(Debug, Clone)]
pub(crate) enum Envelope {
    /// A task event, with its sequence number and the task's state after it.
    Event { seq: u64, event: Arc<StreamResponse>, state: TaskState },
    /// A direct message reply: the execution produced no task.
    Reply(Arc<Message>),
    /// Every producer of the task is gone; `error` if the execution failed before creating a task.
    ExecutionEnded { error: Option<Arc<Error>> },
}

struct RunState {
    seq: u64,
    state: TaskState,
    /// The task to create on the first event, until then.
    pending: Option<Task>,
    replied: bool,
}

/// The live side of one task.
pub(crate) struct TaskRuntime {
    pub(crate) task_id: String,
    pub(crate) context_id: String,
    pub(crate) scope: Scope,
    pub(crate) cancellation: CancellationToken,
    store: Arc<dyn TaskStore>,
    push: Option<Arc<PushDispatcher>>,
    state: tokio::sync::Mutex<RunState>,
    tx: broadcast::Sender<Envelope>,
    producers: AtomicUsize,
    failure: Mutex<Option<Error>>,
    primary: Mutex<Option<Arc<Semaphore>>>,
    /// Sequence lock over the stored task: odd while a writer (holding `state`) changes it.
    version: AtomicU64,
    /// The sequence number of the last event applied to the store; read when `version` is even.
    applied: AtomicU64,
    /// Whether the task is in the store (before that, it is `RunState::pending`).
    created: AtomicBool,
    /// For [`PUBLISH_SLICE`]: when the runtime was made, when the current slice of publishing
    /// started and when the last publish ended (microseconds since `born`).
    born: std::time::Instant,
    slice_start_us: AtomicU64,
    last_publish_us: AtomicU64,
}

impl std::fmt::Debug for TaskRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskRuntime").field("task_id", &self.task_id).finish_non_exhaustive()
    }
}

/// Counts one execution (or cancel call) as a producer of events while any clone of its
/// [`TaskUpdater`](crate::executor::TaskUpdater) lives.
pub(crate) struct ProducerGuard {
    runtime: Arc<TaskRuntime>,
}

impl std::fmt::Debug for ProducerGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProducerGuard").field("task_id", &self.runtime.task_id).finish()
    }
}

impl Drop for ProducerGuard {
    fn drop(&mut self) {
        if self.runtime.producers.fetch_sub(1, Ordering::AcqRel) == 1 {
            let error = self.runtime.failure.lock().expect("failure lock").take().map(Arc::new);
            let _ = self.runtime.tx.send(Envelope::ExecutionEnded { error });
        }
    }
}

impl TaskRuntime {
    /// A runtime for a task that does not exist yet: `pending` is created on the first event.
    pub(crate) fn for_new_task(
        pending: Task,
        scope: Scope,
        store: Arc<dyn TaskStore>,
        push: Option<Arc<PushDispatcher>>,
    ) -> Arc<Self> {
        Self::build(
            pending.id.clone(),
            pending.context_id.clone(),
            scope,
            TaskState::Submitted,
            Some(pending),
            store,
            push,
        )
    }

    /// A runtime for a stored task.
    pub(crate) fn for_existing_task(
        task: &Task,
        scope: Scope,
        store: Arc<dyn TaskStore>,
        push: Option<Arc<PushDispatcher>>,
    ) -> Arc<Self> {
        Self::build(task.id.clone(), task.context_id.clone(), scope, task.state(), None, store, push)
    }

    fn build(
        task_id: String,
        context_id: String,
        scope: Scope,
        state: TaskState,
        pending: Option<Task>,
        store: Arc<dyn TaskStore>,
        push: Option<Arc<PushDispatcher>>,
    ) -> Arc<Self> {
        let (tx, _) = broadcast::channel(CHANNEL_CAPACITY);
        let created = pending.is_none();
        Arc::new(TaskRuntime {
            task_id,
            context_id,
            scope,
            cancellation: CancellationToken::new(),
            store,
            push,
            state: tokio::sync::Mutex::new(RunState { seq: 0, state, pending, replied: false }),
            tx,
            producers: AtomicUsize::new(0),
            failure: Mutex::new(None),
            primary: Mutex::new(None),
            version: AtomicU64::new(0),
            applied: AtomicU64::new(0),
            created: AtomicBool::new(created),
            born: std::time::Instant::now(),
            slice_start_us: AtomicU64::new(0),
            last_publish_us: AtomicU64::new(0),
        })
    }

    /// Registers a producer; events published through it keep the runtime alive.
    pub(crate) fn producer(self: &Arc<Self>) -> Arc<ProducerGuard> {
        self.producers.fetch_add(1, Ordering::AcqRel);
        Arc::new(ProducerGuard { runtime: Arc::clone(self) })
    }

    /// Subscribes to events from now on. With `primary`, the agent waits for this subscriber.
    pub(crate) fn subscribe(self: &Arc<Self>, mode: StreamMode, primary: bool) -> Subscription {
        let rx = self.tx.subscribe();
        let window = primary.then(|| {
            let semaphore = Arc::new(Semaphore::new(PRIMARY_WINDOW));
            if let Some(old) = self.primary.lock().expect("primary lock").replace(Arc::clone(&semaphore)) {
                old.close();
            }
            semaphore
        });
        Subscription::new(Arc::clone(self), rx, mode, window)
    }

    /// The stored task and the sequence number of the last event it reflects.
    ///
    /// Read optimistically first, without the runtime's lock: the version is read before and after
    /// reading the store, and the snapshot is kept only if no writer ran in between (writers make
    /// the version odd while they change the stored task). While the agent publishes a burst, a
    /// snapshot (which copies the whole task) rarely fits between two events: the attempts back
    /// off, so that the burst ends first, rather than queueing on the lock in front of the agent.
    /// After [`OPTIMISTIC_SNAPSHOTS`] attempts (an agent that never pauses), the snapshot is taken
    /// under the lock, which guarantees progress.
    pub(crate) async fn snapshot(&self, view: TaskView) -> Result<(u64, Option<Task>)> {
        for attempt in 0..OPTIMISTIC_SNAPSHOTS {
            let before = self.version.load(Ordering::Acquire);
            if before % 2 == 0 && self.created.load(Ordering::Acquire) {
                let seq = self.applied.load(Ordering::Acquire);
                let task = self.store.get(&self.scope, &self.task_id, view).await?;
                if self.version.load(Ordering::Acquire) == before {
                    return Ok((seq, task));
                }
            }
            match attempt {
                0 | 1 => tokio::task::yield_now().await,
                n => tokio::time::sleep(std::time::Duration::from_millis(1 << (n - 2))).await,
            }
        }
        self.locked_snapshot(view).await
    }

    /// [`snapshot`](Self::snapshot) under the runtime's lock.
    async fn locked_snapshot(&self, view: TaskView) -> Result<(u64, Option<Task>)> {
        let state = self.state.lock().await;
        let task = match &state.pending {
            Some(pending) => Some(view.project(pending)),
            None => self.store.get(&self.scope, &self.task_id, view).await?,
        };
        Ok((state.seq, task))
    }

    /// The state as the runtime knows it (the pending task's, before creation).
    pub(crate) async fn current_state(&self) -> TaskState {
        self.state.lock().await.state
    }

    /// Records why the execution failed, reported to waiters if no task was ever created.
    pub(crate) fn record_failure(&self, error: Error) {
        *self.failure.lock().expect("failure lock") = Some(error);
    }

    /// Whether the task has been created in the store.
    pub(crate) fn is_created(&self) -> bool {
        self.created.load(Ordering::Acquire)
    }

    /// Records how an execution ended. A failure fails the task (spec 4.1.3) if it exists and is
    /// not terminal yet; before the task exists, the error is reported to the caller instead. An
    /// execution that published nothing at all is an invalid agent response.
    pub(crate) async fn finish_execution(&self, outcome: Result<()>) {
        let (created, replied, state) = {
            let state = self.state.lock().await;
            (state.pending.is_none(), state.replied, state.state)
        };
        match outcome {
            Ok(()) if !created && !replied => self
                .record_failure(invalid("the agent finished without publishing a task update or a message")),
            Ok(()) => {}
            Err(error) if created && !state.is_terminal() => {
                tracing::warn!(task_id = %self.task_id, %error, "agent execution failed");
                let message = Message::agent_text(format!("The agent failed: {error}"));
                let failed = a2a_proto::v1::TaskStatusUpdateEvent {
                    task_id: self.task_id.clone(),
                    context_id: self.context_id.clone(),
                    status: Some(TaskStatus {
                        state: TaskState::Failed.into(),
                        message: Some(message),
                        timestamp: None,
                    }),
                    metadata: None,
                };
                if let Err(error) = self.publish(failed.into()).await {
                    tracing::debug!(task_id = %self.task_id, %error, "could not mark the task failed");
                }
            }
            Err(error) if !created && !replied => self.record_failure(error),
            Err(error) => {
                tracing::warn!(task_id = %self.task_id, %error, "agent execution failed after the task ended")
            }
        }
    }

    /// Appends a client message to the stored task's history (no stream event: history is not
    /// streamed, spec 3.2.3).
    pub(crate) async fn append_history(&self, message: &Message) -> Result<()> {
        let state = self.state.lock().await;
        debug_assert!(state.pending.is_none());
        self.begin_write();
        let applied = self.store.apply(&self.task_id, TaskMutation::History(message)).await;
        self.end_write(state.seq);
        applied
    }

    /// Marks the stored task as changing (the caller holds `state`). A write that is never ended
    /// (its future dropped mid-way) leaves the version odd: snapshots then always take the lock.
    fn begin_write(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// The stored task reflects every event up to `seq` again.
    fn end_write(&self, seq: u64) {
        self.applied.store(seq, Ordering::Release);
        self.version.fetch_add(1, Ordering::AcqRel);
    }

    /// Creates the pending task, if any, publishing it as the first event.
    pub(crate) async fn ensure_created(&self) -> Result<()> {
        let mut state = self.state.lock().await;
        if state.replied {
            return Err(invalid("the execution already answered with a message"));
        }
        let sent = self.create_pending(&mut state).await?;
        drop(state);
        self.wait_for_primary(sent).await;
        Ok(())
    }

    async fn create_pending(&self, state: &mut RunState) -> Result<u32> {
        let Some(pending) = state.pending.take() else { return Ok(0) };
        self.begin_write();
        if let Err(error) = self.store.create(&self.scope, pending.clone()).await {
            self.end_write(state.seq);
            state.pending = Some(pending);
            return Err(error);
        }
        state.seq += 1;
        self.created.store(true, Ordering::Release);
        self.end_write(state.seq);
        let event = StreamResponse::from(pending);
        self.dispatch_push(&event).await;
        let _ = self.tx.send(Envelope::Event { seq: state.seq, event: Arc::new(event), state: state.state });
        Ok(1)
    }

    /// Validates, stores and broadcasts one event from the executor.
    ///
    /// The runtime's own awaits (its lock, the store, push queueing) do not count against the
    /// executor task's cooperative budget: otherwise, with many subscribers woken by every event,
    /// the agent would be sent to the back of the run queue every few dozen events, behind all of
    /// them, and a fan-out to a thousand subscribers would slow the agent down a hundredfold. So
    /// that an agent publishing in a tight loop cannot hold a worker thread for long, it yields
    /// once it has been publishing for [`PUBLISH_SLICE`] without a break.
    pub(crate) async fn publish(&self, event: StreamResponse) -> Result<()> {
        let now = self.born.elapsed().as_micros() as u64;
        let slice = self.slice_start_us.load(Ordering::Relaxed);
        if now.saturating_sub(slice) > PUBLISH_SLICE.as_micros() as u64 {
            // A gap since the last publish starts a new slice; a long run of publishing yields.
            if now.saturating_sub(self.last_publish_us.load(Ordering::Relaxed))
                < PUBLISH_GAP.as_micros() as u64
            {
                tokio::task::yield_now().await;
            }
            self.slice_start_us.store(self.born.elapsed().as_micros() as u64, Ordering::Relaxed);
        }
        let outcome = tokio::task::unconstrained(self.publish_now(event)).await;
        self.last_publish_us.store(self.born.elapsed().as_micros() as u64, Ordering::Relaxed);
        outcome
    }

    async fn publish_now(&self, mut event: StreamResponse) -> Result<()> {
        let mut state = self.state.lock().await;
        if state.replied {
            return Err(invalid(
                "the execution already answered with a message; it can publish nothing more",
            ));
        }
        let Some(payload) = event.payload.as_mut() else {
            return Err(invalid("an event must hold a task, message, status update or artifact update"));
        };
        let mut new_state = state.state;
        match payload {
            Payload::Message(message) => {
                if state.pending.is_none() || state.seq > 0 {
                    return Err(invalid(
                        "a Message reply must be the only event of a new task's execution; \
                         attach messages to status updates instead",
                    ));
                }
                self.fill_message(message, false);
                state.replied = true;
                let message = Arc::new(message.clone());
                drop(state);
                let _ = self.tx.send(Envelope::Reply(message));
                return Ok(());
            }
            Payload::Task(_) => {
                return Err(invalid(
                    "executors publish status and artifact updates; the handler maintains the Task",
                ));
            }
            Payload::StatusUpdate(update) => {
                self.check_ids(&mut update.task_id, &mut update.context_id)?;
                let status = update.status.get_or_insert_with(TaskStatus::default);
                let target = TaskState::try_from(status.state).unwrap_or(TaskState::Unspecified);
                if !can_transition(state.state, target) {
                    return Err(invalid(format!(
                        "task {} cannot move from {} to {}",
                        self.task_id,
                        state.state.as_str_name(),
                        target.as_str_name()
                    )));
                }
                if status.timestamp.is_none() {
                    status.timestamp = Some(now());
                }
                if let Some(message) = status.message.as_mut() {
                    self.fill_message(message, true);
                }
                new_state = target;
            }
            Payload::ArtifactUpdate(update) => {
                self.check_ids(&mut update.task_id, &mut update.context_id)?;
                if state.state.is_terminal() {
                    return Err(invalid(format!(
                        "task {} is {}: it takes no more artifacts",
                        self.task_id,
                        state.state.as_str_name()
                    )));
                }
                match &update.artifact {
                    Some(a) if !a.artifact_id.is_empty() && !a.parts.is_empty() => {}
                    _ => {
                        return Err(invalid(
                            "an artifact update needs an artifact with an id and at least one part",
                        ))
                    }
                }
            }
        }

        let mut sent = self.create_pending(&mut state).await?;
        let mutation = match event.payload.as_ref() {
            Some(Payload::StatusUpdate(u)) => TaskMutation::Status(u.status.as_ref().expect("filled above")),
            Some(Payload::ArtifactUpdate(u)) => TaskMutation::Artifact {
                artifact: u.artifact.as_ref().expect("checked above"),
                append: u.append,
            },
            _ => unreachable!("other payloads returned above"),
        };
        self.begin_write();
        if let Err(error) = self.store.apply(&self.task_id, mutation).await {
            self.end_write(state.seq);
            return Err(error);
        }
        state.seq += 1;
        state.state = new_state;
        self.end_write(state.seq);
        self.dispatch_push(&event).await;
        let _ = self.tx.send(Envelope::Event { seq: state.seq, event: Arc::new(event), state: new_state });
        sent += 1;
        let terminal = new_state.is_terminal();
        drop(state);
        if terminal {
            if let Some(push) = &self.push {
                push.finish_task(&self.task_id);
            }
        }
        self.wait_for_primary(sent).await;
        Ok(())
    }

    /// Queues `event` for the task's webhooks. The caller holds `state` and has stored the event,
    /// so the stored task is exactly the task after it (what a 0.3 webhook receives).
    async fn dispatch_push(&self, event: &StreamResponse) {
        if let Some(push) = &self.push {
            let task_after = || self.store.get(&self.scope, &self.task_id, TaskView::FULL);
            push.dispatch(&self.task_id, event, task_after).await;
        }
    }

    /// Backpressure from the originating stream (see the module docs).
    async fn wait_for_primary(&self, sent: u32) {
        if sent == 0 {
            return;
        }
        let semaphore = self.primary.lock().expect("primary lock").clone();
        if let Some(semaphore) = semaphore {
            if let Ok(permits) = semaphore.acquire_many(sent).await {
                permits.forget();
            }
        }
    }

    fn check_ids(&self, task_id: &mut String, context_id: &mut String) -> Result<()> {
        if task_id.is_empty() {
            task_id.clone_from(&self.task_id);
        }
        if context_id.is_empty() {
            context_id.clone_from(&self.context_id);
        }
        if *task_id != self.task_id || *context_id != self.context_id {
            return Err(invalid(format!(
                "event for task {task_id} / context {context_id} published on task {} / context {}",
                self.task_id, self.context_id
            )));
        }
        Ok(())
    }

    /// Fills a message's empty ids. A direct reply belongs to no task (spec 3.1.1); a status
    /// message belongs to this one.
    fn fill_message(&self, message: &mut Message, in_task: bool) {
        if message.message_id.is_empty() {
            message.message_id = a2a_proto::new_id();
        }
        if message.role == Role::Unspecified as i32 {
            message.role = Role::Agent.into();
        }
        if message.context_id.is_empty() {
            message.context_id.clone_from(&self.context_id);
        }
        if in_task && message.task_id.is_empty() {
            message.task_id.clone_from(&self.task_id);
        }
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidAgentResponse { reason: reason.into() }
}

/// The current time, truncated to milliseconds (spec 5.6.1).
pub(crate) fn now() -> a2a_proto::Timestamp {
    a2a_proto::Timestamp::now_millis()
}
