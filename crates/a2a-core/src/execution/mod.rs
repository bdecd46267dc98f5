//! Running tasks: one [`TaskRuntime`] per task with live executions or subscribers, which orders,
//! validates, stores and fans out every event.
//!
//! Write-behind ([`write_behind`], tuned code whose doc says what it buys): an executor's
//! `publish` checks its event against the state after the events already queued and queues it;
//! the queue is stored in one store call when the executor next yields, when anything else needs
//! the lock, or at a bound. Only then are the events handed out: a burst costs one write, and
//! nobody hears of an event before it is stored.
//!
//! Fan-out policy (spec 3.5.2: every stream gets the same events in the same order):
//! - Each event is applied to the store under the runtime's lock; the store numbers it (the task's
//!   `seq`, see [`crate::store`]) and checks it against the stored state, then it is broadcast to
//!   every subscriber through a bounded ring ([`CHANNEL_CAPACITY`] events) with that number.
//! - The stream of the request that started the execution (SendStreamingMessage) applies
//!   backpressure: the agent's `publish` waits while that client is [`PRIMARY_WINDOW`] events
//!   behind, so it never loses an event however slow it reads.
//! - Any other subscriber never slows the agent or the others. If it falls more than the ring
//!   behind, it is resynchronised losslessly: it receives a fresh `Task` snapshot (which reflects
//!   every event it missed) and continues with the events after it; events already reflected in
//!   the snapshot are skipped by sequence number. Memory per task stays bounded by the ring.
//!   Snapshots are plain store reads (the store returns the task with its `seq`, atomically), so
//!   they never take the runtime's lock: a thousand lagging subscribers do not queue in front of
//!   the agent's next `publish`, and the rule holds for any store.
//! - A write whose future is dropped half-way (an executor that gives up on a `publish` inside a
//!   `select!`) may or may not have reached the store. Its guard ([`Writing`]) then tells every
//!   subscriber to resynchronise from a snapshot and makes the next writer re-read the stored
//!   state, so nothing is lost or duplicated and no later subscriber pays for it.
//! - The rules an event must follow are pure functions: [`check_event`] here (what an execution
//!   may publish when) and [`crate::lifecycle::check_mutation`] (what a task may become), which
//!   the store applies again atomically with the write.
//! - A runtime lives while an execution or a subscriber holds it; the registry keeps only weak
//!   references, so idle tasks cost nothing here (the store holds them).
//! - With several replicas ([`crate::cluster`]), a runtime also hands its subscribers the events
//!   other replicas published ([`TaskRuntime::feed`]) and publishes its own to them. Every event
//!   handed out carries its store `seq`; the runtime remembers the last one, and a gap (an event
//!   stored elsewhere that was not fed here first) sends the subscribers a resync before the next
//!   event, so nothing is lost whichever replica stored what.

mod registry;
mod subscription;
mod write_behind;

use write_behind::{Writing, Written};
#[cfg(test)]
mod tests;

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use a2a_proto::v1::{stream_response::Payload, Message, Role, StreamResponse, Task, TaskState, TaskStatus};
use tokio::sync::{broadcast, Semaphore};
use tokio_util::sync::CancellationToken;

pub(crate) use registry::Registry;

pub(crate) use subscription::{Step, StreamMode, Subscription};

use crate::cluster::{state_after, Cluster};
use crate::error::{Error, Result};
use crate::lifecycle::{apply_owned_artifact, apply_owned_status, check_mutation, TaskMutation};
use crate::push::PushDispatcher;
use crate::store::{Scope, TaskStore, TaskView};

/// What every runtime of a handler writes to and reads from.
#[derive(Clone)]
pub(crate) struct Backends {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) push: Option<Arc<PushDispatcher>>,
    pub(crate) cluster: Option<Arc<dyn Cluster>>,
}

/// Events buffered per task for subscribers.
pub(crate) const CHANNEL_CAPACITY: usize = 256;
/// How far the originating stream may fall behind before the agent waits for it.
pub(crate) const PRIMARY_WINDOW: usize = 64;
/// Events read from the cluster's log at a time.
const FEED_BATCH: usize = 256;

/// What flows from a runtime to its subscribers.
#[derive(Debug, Clone)]
pub(crate) enum Envelope {
    /// A task event, with its sequence number and the task's state after it.
    Event { seq: u64, event: Arc<StreamResponse>, state: TaskState },
    /// A direct message reply: the execution produced no task.
    Reply(Arc<Message>),
    /// Every producer of the task is gone; `error` if the execution failed before creating a task.
    ExecutionEnded { error: Option<Arc<Error>> },
    /// A write was abandoned half-way: what subscribers hold may miss an event; they read a
    /// snapshot (see [`Writing`]).
    Resync,
}

struct RunState {
    /// The task's state as this runtime last wrote or read it, and after the events queued in
    /// `queue` (the store has the last word).
    state: TaskState,
    /// Events the execution published that are not stored yet (write-behind, module docs), each
    /// with the state after it. Only status and artifact updates.
    queue: Vec<(StreamResponse, TaskState)>,
    /// Why a write of queued events failed, for the execution's next publish or its end.
    deferred: Option<Error>,
    /// The execution's direct reply (spec 3.1.1), once it gave one: it publishes nothing after.
    reply: Option<Arc<Message>>,
    /// The task as stored at a `seq`, when this runtime created it with its first burst and
    /// nothing changed it since: a blocking SendMessage answers from it instead of a read.
    written: Option<Written>,
    /// The task to create on the first event, until then.
    pending: Option<Task>,
    /// Whether the send that made the pending task registered a push config for it: otherwise
    /// it has none until it is stored (nobody else can name a task that is not stored yet), and
    /// its first write looks none up.
    pending_configs: bool,
    /// A write was abandoned: `state` must be read again from the store before the next write.
    stale: bool,
    /// The `seq` of the last event handed to subscribers (or of the snapshot the runtime was
    /// made from).
    last_seq: u64,
}

/// A new task's runtime is made with the task to create and whether its send registered a push
/// config for it (`RunState::pending_configs`).
struct Pending {
    task: Task,
    push_config: bool,
}

/// A runtime's event channel, made by its first subscriber: a task that nobody follows (a
/// blocking SendMessage whose execution ran to its end inline reads the runtime's records
/// instead) never allocates the ring. Sending before the channel exists is what sending to a
/// channel without receivers is: nobody hears it, as nobody subscribed yet.
#[derive(Default)]
struct Channel(OnceLock<broadcast::Sender<Envelope>>);

impl Channel {
    fn send(&self, envelope: Envelope) {
        if let Some(tx) = self.0.get() {
            let _ = tx.send(envelope);
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<Envelope> {
        self.0.get_or_init(|| broadcast::channel(CHANNEL_CAPACITY).0).subscribe()
    }

    /// Whether a subscriber has made the channel.
    fn made(&self) -> bool {
        self.0.get().is_some()
    }
}

/// Where a runtime stands once its queued events are stored: what a blocking SendMessage needs
/// to know whether it is done (see [`TaskRuntime::standing`]).
#[derive(Debug)]
pub(crate) struct Standing {
    /// The `seq` of the last event handed out.
    pub(crate) seq: u64,
    /// The task's state after it.
    pub(crate) state: TaskState,
    /// The execution's direct reply, if it gave one.
    pub(crate) reply: Option<Arc<Message>>,
}

/// The live side of one task.
pub(crate) struct TaskRuntime {
    pub(crate) task_id: String,
    pub(crate) context_id: String,
    pub(crate) scope: Scope,
    pub(crate) cancellation: CancellationToken,
    store: Arc<dyn TaskStore>,
    push: Option<Arc<PushDispatcher>>,
    cluster: Option<Arc<dyn Cluster>>,
    state: tokio::sync::Mutex<RunState>,
    tx: Channel,
    producers: AtomicUsize,
    /// Held while a producer registers and while the end of the producers is announced: an end
    /// announced late (after the last events were written, in a task of its own) must not reach
    /// the subscribers of an execution that began meanwhile ([`TaskRuntime::announce_end`]).
    ending: Mutex<()>,
    failure: Mutex<Option<Error>>,
    primary: Mutex<Option<Arc<Semaphore>>>,
    /// Whether the task is in the store (before that, it is `RunState::pending`).
    created: AtomicBool,
    /// For [`write_behind::PUBLISH_SLICE`]: when the runtime was made, when the current slice of publishing
    /// started and when the last publish ended (microseconds since `born`).
    born: std::time::Instant,
    slice_start_us: AtomicU64,
    last_publish_us: AtomicU64,
    /// Events are queued by the execution's own task and no write is under way for them: its
    /// poll wrapper starts one when the agent waits ([`TaskRuntime::run_execution`]).
    flush_wanted: AtomicBool,
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
    /// For an execution: its agent has returned, and what is left is to store what it published
    /// ([`agent_returned`](Self::agent_returned)).
    returned: AtomicBool,
}

impl std::fmt::Debug for ProducerGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProducerGuard").field("task_id", &self.runtime.task_id).finish()
    }
}

impl ProducerGuard {
    /// Records that the execution's agent has returned: it publishes nothing more, so the
    /// outcome of its execution is what it published (stored at the execution's end).
    pub(crate) fn set_agent_returned(&self) {
        self.returned.store(true, Ordering::Release);
    }

    /// Whether [`set_agent_returned`](Self::set_agent_returned) was called.
    pub(crate) fn agent_returned(&self) -> bool {
        self.returned.load(Ordering::Acquire)
    }
}

impl Drop for ProducerGuard {
    fn drop(&mut self) {
        if self.runtime.producers.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The end is announced after the last events: queued ones are written first.
            let queued = self.runtime.state.try_lock().map_or(true, |run| !run.queue.is_empty());
            match tokio::runtime::Handle::try_current() {
                Ok(handle) if queued => {
                    let runtime = Arc::clone(&self.runtime);
                    let span = crate::trace::span_for_spawn();
                    handle.spawn(tracing::Instrument::instrument(
                        async move {
                            if let Err(error) = runtime.flush().await {
                                tracing::debug!(task_id = %runtime.task_id, %error, "the last events were not stored");
                            }
                            runtime.announce_end();
                        },
                        span,
                    ));
                }
                _ => self.runtime.announce_end(),
            }
        }
    }
}

impl TaskRuntime {
    /// A runtime for a task that does not exist yet: `pending` is created on the first event.
    /// `push_config`: whether its send registered a push config for it (see
    /// `RunState::pending_configs`).
    pub(crate) fn for_new_task(
        pending: Task,
        push_config: bool,
        scope: Scope,
        backends: &Backends,
    ) -> Arc<Self> {
        let (task_id, context_id) = (pending.id.clone(), pending.context_id.clone());
        let pending = Pending { task: pending, push_config };
        Self::build(task_id, context_id, scope, TaskState::Submitted, Some(pending), 0, backends)
    }

    /// A runtime for a stored task, read at `seq`.
    pub(crate) fn for_existing_task(task: &Task, seq: u64, scope: Scope, backends: &Backends) -> Arc<Self> {
        Self::build(task.id.clone(), task.context_id.clone(), scope, task.state(), None, seq, backends)
    }

    fn build(
        task_id: String,
        context_id: String,
        scope: Scope,
        state: TaskState,
        pending: Option<Pending>,
        last_seq: u64,
        backends: &Backends,
    ) -> Arc<Self> {
        let created = pending.is_none();
        let pending_configs = pending.as_ref().is_some_and(|pending| pending.push_config);
        let pending = pending.map(|pending| pending.task);
        Arc::new(TaskRuntime {
            task_id,
            context_id,
            scope,
            cancellation: CancellationToken::new(),
            store: Arc::clone(&backends.store),
            push: backends.push.clone(),
            cluster: backends.cluster.clone(),
            state: tokio::sync::Mutex::new(RunState {
                state,
                queue: Vec::new(),
                deferred: None,
                reply: None,
                written: None,
                pending,
                pending_configs,
                stale: false,
                last_seq,
            }),
            tx: Channel::default(),
            producers: AtomicUsize::new(0),
            ending: Mutex::new(()),
            failure: Mutex::new(None),
            primary: Mutex::new(None),
            created: AtomicBool::new(created),
            born: std::time::Instant::now(),
            slice_start_us: AtomicU64::new(0),
            last_publish_us: AtomicU64::new(0),
            flush_wanted: AtomicBool::new(false),
        })
    }

    /// Tells the subscribers that every producer is gone, unless one came since: an execution
    /// that continues the task (a multi-turn answer) registers its producer before it subscribes,
    /// so the end of the execution before it, announced late, never ends its wait.
    fn announce_end(&self) {
        let _ending = self.ending.lock().expect("ending lock");
        if self.producers.load(Ordering::Acquire) > 0 {
            return;
        }
        let error = self.failure().map(Arc::new);
        self.tx.send(Envelope::ExecutionEnded { error });
    }

    /// Why the execution failed before it created a task, if it did.
    pub(crate) fn failure(&self) -> Option<Error> {
        self.failure.lock().expect("failure lock").clone()
    }

    /// Where the runtime stands after the events published so far (stored first).
    pub(crate) async fn standing(&self) -> Result<Standing> {
        let writing = self.writing().await?;
        let run = &writing.state;
        Ok(Standing { seq: run.last_seq, state: run.state, reply: run.reply.clone() })
    }

    /// [`standing`](Self::standing), and in the same hold of the lock [`written_at`](Self::written_at)
    /// its `seq`: what a blocking send whose execution ended at its first poll answers with.
    pub(crate) async fn standing_and_written(&self, view: TaskView) -> Result<(Standing, Option<Task>)> {
        let (standing, written) = {
            let mut writing = self.writing().await?;
            let run = &mut *writing.state;
            let seq = run.last_seq;
            let standing = Standing { seq, state: run.state, reply: run.reply.clone() };
            (standing, run.written.take_if(|written| written.seq == seq))
        };
        Ok((standing, written.and_then(|written| written.into_task(view))))
    }

    /// Registers a producer; events published through it keep the runtime alive.
    pub(crate) fn producer(self: &Arc<Self>) -> Arc<ProducerGuard> {
        {
            let _ending = self.ending.lock().expect("ending lock");
            self.producers.fetch_add(1, Ordering::AcqRel);
        }
        Arc::new(ProducerGuard { runtime: Arc::clone(self), returned: AtomicBool::new(false) })
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

    /// The task and the `seq` of the last event it reflects: a store read, without the runtime's
    /// lock once the task exists (before that, the pending task at `seq` 0).
    pub(crate) async fn snapshot(&self, view: TaskView) -> Result<(u64, Option<Task>)> {
        if !self.created.load(Ordering::Acquire) {
            let state = self.state.lock().await;
            if let Some(pending) = &state.pending {
                return Ok((0, Some(view.project(pending))));
            }
        }
        Ok(match self.store.get(&self.scope, &self.task_id, view).await? {
            Some(stored) => (stored.seq, Some(stored.task)),
            None => (0, None),
        })
    }

    /// Whether an execution (or a cancel call) is producing this task's events here.
    pub(crate) fn has_producers(&self) -> bool {
        self.producers.load(Ordering::Acquire) > 0
    }

    /// Returns once this runtime has handed its subscribers a terminal state (an event, or a
    /// resync whose snapshot is terminal): what they hear after that cannot precede it.
    pub(crate) async fn until_terminal(self: &Arc<Self>) {
        let mut subscription = self.subscribe(StreamMode::Task, false);
        {
            // Flushed first: `state` then is what was handed out.
            let Ok(run) = self.writing().await else { return };
            if run.state.state.is_terminal() {
                return;
            }
            subscription.skip_through(run.state.last_seq);
        }
        while let Some(step) = subscription.next().await {
            if matches!(step, Ok(Step::Event(_, state)) if state.is_terminal()) {
                return;
            }
        }
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
    pub(crate) async fn finish_execution(self: &Arc<Self>, outcome: Result<()>) {
        // What the execution published is stored first ([`flush`](Self::flush)); a write that
        // failed is its failure. The state is read under the same lock.
        let read = |run: &RunState| (run.pending.is_none(), run.reply.is_some(), run.state);
        let (flushed, (created, replied, state)) = match self.lock().await {
            Ok(mut writing) => {
                let flushed = match writing.state.deferred.take() {
                    Some(error) => Err(error),
                    None => self.flush_locked(&mut writing).await,
                };
                (flushed, read(&writing.state))
            }
            Err(error) => (Err(error), read(&*self.state.lock().await)),
        };
        let outcome = match (outcome, flushed) {
            (Ok(()), Err(error)) => Err(error),
            (outcome, _) => outcome,
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
                // Boxed: a failure is rare, and its publish would double this future's size.
                if let Err(error) = Box::pin(self.publish(failed.into())).await {
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
        // Under the lock, after the queued events, so that the message takes its place among
        // the events.
        let mut writing = self.writing().await?;
        debug_assert!(writing.state.pending.is_none());
        writing.state.written = None;
        self.store.apply(&self.task_id, TaskMutation::History(message)).await?;
        Ok(())
    }

    /// Hands out the events of a burst just stored, the last one at `last_seq` (the caller holds
    /// the armed lock), keeping them in `kept` too if given.
    async fn hand_out(
        &self,
        writing: &mut Writing<'_>,
        burst: Vec<(StreamResponse, TaskState)>,
        last_seq: u64,
        mut kept: Option<&mut Vec<Arc<StreamResponse>>>,
    ) {
        let first_seq = last_seq + 1 - burst.len() as u64;
        for ((mut event, state), seq) in burst.into_iter().zip(first_seq..) {
            self.fill_ids(&mut event);
            let event = Arc::new(event);
            if let Some(kept) = kept.as_deref_mut() {
                kept.push(Arc::clone(&event));
            }
            self.broadcast(&mut writing.state, seq, Arc::clone(&event), state);
            self.tell_cluster(seq, &event, state).await;
        }
    }

    /// Gives back the originating stream's window for events that will never reach it.
    fn release_primary(&self, events: usize) {
        if events == 0 {
            return;
        }
        if let Some(semaphore) = self.primary.lock().expect("primary lock").as_ref() {
            semaphore.add_permits(events);
        }
    }

    /// Creates the pending task, if any, publishing it as the first event.
    pub(crate) async fn ensure_created(&self) -> Result<()> {
        let mut writing = self.writing().await?;
        if writing.state.reply.is_some() {
            return Err(invalid("the execution already answered with a message"));
        }
        let sent = self.create_pending(&mut writing).await?;
        drop(writing);
        self.wait_for_primary(sent).await;
        Ok(())
    }

    /// Stores the pending task, if any, and broadcasts it as event 1 (with its push
    /// notifications). On a store error the task stays pending.
    async fn create_pending(&self, writing: &mut Writing<'_>) -> Result<u32> {
        if writing.state.pending.is_none() {
            return Ok(0);
        }
        let configs = self.push_configs(&writing.state).await?;
        self.store_burst(writing, Vec::new(), &configs).await?;
        Ok(1)
    }

    /// Hands out a task just stored as its event 1 (the caller holds the armed lock).
    async fn announce_created(&self, writing: &mut Writing<'_>, pending: Task) -> Arc<StreamResponse> {
        self.created.store(true, Ordering::Release);
        let state = pending.state();
        let event = Arc::new(StreamResponse::from(pending));
        self.broadcast(&mut writing.state, 1, Arc::clone(&event), state);
        self.tell_cluster(1, &event, state).await;
        event
    }

    /// Hands a stored event to this replica's subscribers, unless it was handed out already (fed
    /// from the cluster). A gap since the last event handed out makes them resynchronise from a
    /// snapshot first (module docs). Returns whether the event was sent.
    fn broadcast(&self, run: &mut RunState, seq: u64, event: Arc<StreamResponse>, state: TaskState) -> bool {
        if seq <= run.last_seq {
            return false;
        }
        if seq > run.last_seq + 1 {
            self.tx.send(Envelope::Resync);
        }
        run.last_seq = seq;
        self.tx.send(Envelope::Event { seq, event, state });
        true
    }

    /// Publishes a stored event to the other replicas, if there are any. A failure is logged:
    /// their subscribers see a gap at the next event and resynchronise.
    async fn tell_cluster(&self, seq: u64, event: &StreamResponse, state: TaskState) {
        if let Some(cluster) = &self.cluster {
            if let Err(error) = cluster.publish(&self.task_id, seq, event, state).await {
                tracing::warn!(task_id = %self.task_id, seq, %error, "could not publish an event to the other replicas");
            }
        }
    }

    /// Hands this replica's subscribers the events other replicas published: those of a
    /// [`Note::Event`](crate::cluster::Note::Event) up to `up_to`, or (`None`, notes were lost)
    /// every event logged after the last one handed out. Events the log no longer has (pruned,
    /// or their publisher died before logging them) are replaced by a resync.
    pub(crate) async fn feed(&self, up_to: Option<u64>) {
        let Some(cluster) = &self.cluster else { return };
        // Own events first: those fed after them are numbered after them.
        let Ok(mut writing) = self.writing().await else { return };
        let run = &mut *writing.state;
        if run.pending.is_some() {
            return;
        }
        loop {
            if up_to.is_some_and(|seq| seq <= run.last_seq) {
                return;
            }
            let events = match cluster.events_after(&self.task_id, run.last_seq, FEED_BATCH).await {
                Ok(events) => events,
                Err(error) => {
                    tracing::warn!(task_id = %self.task_id, %error, "could not read other replicas' events");
                    run.stale = true;
                    self.tx.send(Envelope::Resync);
                    return;
                }
            };
            let read = events.len();
            if read == 0 {
                if let Some(seq) = up_to {
                    // Announced but not in the log: the store has it, a snapshot reflects it.
                    run.last_seq = seq;
                    run.stale = true;
                    self.tx.send(Envelope::Resync);
                }
                return;
            }
            run.written = None;
            for (seq, event) in events {
                let state = state_after(&event, run.state);
                if self.broadcast(run, seq, Arc::new(event), state) {
                    run.state = state;
                }
            }
            if read < FEED_BATCH {
                return;
            }
        }
    }

    /// Checks, fills and queues an event under the lock `writing` holds (or records a direct
    /// reply). Returns the lock when the queue must be written now ([`write_behind::MAX_QUEUED`]), and how many
    /// events the originating stream will be sent.
    fn queue<'a>(
        self: &'a Arc<Self>,
        mut writing: Writing<'a>,
        mut event: StreamResponse,
    ) -> Result<(Option<Writing<'a>>, u32)> {
        if let Some(error) = writing.state.deferred.take() {
            // An earlier event of this execution was not stored: this one, checked against a
            // state that never was, is not taken either.
            return Err(error);
        }
        let new_task = writing.state.pending.is_some() && writing.state.queue.is_empty();
        check_event(event.payload.as_ref(), new_task, writing.state.reply.is_some())?;
        let payload = event.payload.as_mut().expect("checked by check_event");
        if let Payload::Message(message) = payload {
            self.fill_message(message, false);
            let reply = Arc::new(std::mem::take(message));
            writing.state.reply = Some(Arc::clone(&reply));
            self.tx.send(Envelope::Reply(reply));
            return Ok((None, 0));
        }
        self.fill_event(payload)?;
        // Checked here against the state this runtime knows (after the queued events), for an
        // early answer; the store checks it again atomically with the write.
        let new_state = match check_mutation(&self.task_id, writing.state.state, &mutation_of(&event)) {
            Ok(state) => state,
            Err(error) => {
                self.cancelled_elsewhere(writing.state.state);
                return Err(error);
            }
        };
        writing.state.state = new_state;
        writing.state.queue.push((event, new_state));
        // A new task is stored with its first events, in one write (spec 3.1.2: the Task is still
        // handed out first, as event 1): that is one more event for the originating stream.
        let sent = 1 + u32::from(new_task);
        Ok((self.schedule_write(writing), sent))
    }

    /// An update was refused because the task is in `state`: if that is CANCELED, a CancelTask
    /// reached the task through the store (with several replicas, possibly before its note did),
    /// so the execution's token fires now and the update is dropped as after any cancellation
    /// ([`TaskUpdater::publish`](crate::TaskUpdater::publish)).
    fn cancelled_elsewhere(&self, state: TaskState) {
        if state == TaskState::Canceled {
            self.cancellation.cancel();
        }
    }

    /// Checks an update's ids and fills a status's timestamp and message ids; refuses the ids of
    /// another task. Empty ids stay empty until the event is handed out ([`fill_ids`](Self::fill_ids)):
    /// an event nobody hears (folded into the task a blocking send answers with) never needs them.
    fn fill_event(&self, payload: &mut Payload) -> Result<()> {
        let (task_id, context_id) = match payload {
            Payload::StatusUpdate(update) => (&update.task_id, &update.context_id),
            Payload::ArtifactUpdate(update) => (&update.task_id, &update.context_id),
            Payload::Task(_) | Payload::Message(_) => return Ok(()),
        };
        let foreign = |id: &str, own: &str| !id.is_empty() && id != own;
        if foreign(task_id, &self.task_id) || foreign(context_id, &self.context_id) {
            fn or_own<'a>(id: &'a str, own: &'a str) -> &'a str {
                if id.is_empty() {
                    own
                } else {
                    id
                }
            }
            return Err(invalid(format!(
                "event for task {} / context {} published on task {} / context {}",
                or_own(task_id, &self.task_id),
                or_own(context_id, &self.context_id),
                self.task_id,
                self.context_id
            )));
        }
        if let Payload::StatusUpdate(update) = payload {
            let status = update.status.get_or_insert_with(TaskStatus::default);
            if status.timestamp.is_none() {
                status.timestamp = Some(now());
            }
            if let Some(message) = status.message.as_mut() {
                self.fill_message(message, true);
            }
        }
        Ok(())
    }

    /// Fills an update's empty ids with this task's: every event handed out (to subscribers,
    /// other replicas, webhooks) carries them.
    fn fill_ids(&self, event: &mut StreamResponse) {
        let (task_id, context_id) = match &mut event.payload {
            Some(Payload::StatusUpdate(update)) => (&mut update.task_id, &mut update.context_id),
            Some(Payload::ArtifactUpdate(update)) => (&mut update.task_id, &mut update.context_id),
            _ => return,
        };
        if task_id.is_empty() {
            task_id.clone_from(&self.task_id);
        }
        if context_id.is_empty() {
            context_id.clone_from(&self.context_id);
        }
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

/// What an execution may publish, whatever the task's state (the state itself is
/// [`check_mutation`]'s): status and artifact updates; a direct `Message` reply only as the first
/// and only event of a new task's execution (spec 3.1.1); never a `Task` (the handler maintains
/// it); nothing after a reply.
pub(crate) fn check_event(payload: Option<&Payload>, new_task: bool, replied: bool) -> Result<()> {
    if replied {
        return Err(invalid("the execution already answered with a message; it can publish nothing more"));
    }
    match payload {
        None => Err(invalid("an event must hold a task, message, status update or artifact update")),
        Some(Payload::Task(_)) => {
            Err(invalid("executors publish status and artifact updates; the handler maintains the Task"))
        }
        Some(Payload::ArtifactUpdate(update)) if update.artifact.is_none() => {
            Err(invalid("an artifact update needs an artifact with an id and at least one part"))
        }
        Some(Payload::Message(_)) if !new_task => Err(invalid(
            "a Message reply must be the only event of a new task's execution; \
             attach messages to status updates instead",
        )),
        Some(_) => Ok(()),
    }
}

/// [`apply_mutation`](crate::lifecycle::apply_mutation) of an event nobody else holds (one [`check_event`] admitted and
/// `fill_event` filled): the same change, its status or artifact moved into the task instead of
/// copied (the event is left without it).
fn apply_event(task: &mut Task, event: &mut StreamResponse) {
    match &mut event.payload {
        Some(Payload::StatusUpdate(update)) => {
            apply_owned_status(task, update.status.take().expect("filled by fill_event"));
        }
        Some(Payload::ArtifactUpdate(update)) => {
            let artifact = update.artifact.take().expect("checked by check_event");
            apply_owned_artifact(task, artifact, update.append);
        }
        _ => unreachable!("check_event admits only status and artifact updates into the queue"),
    }
}

/// The store change of an event [`check_event`] admitted and `fill_event` filled.
fn mutation_of(event: &StreamResponse) -> TaskMutation<'_> {
    match event.payload.as_ref() {
        Some(Payload::StatusUpdate(u)) => {
            TaskMutation::Status(u.status.as_ref().expect("filled by fill_event"))
        }
        Some(Payload::ArtifactUpdate(u)) => TaskMutation::Artifact {
            artifact: u.artifact.as_ref().expect("checked by check_mutation"),
            append: u.append,
        },
        _ => unreachable!("check_event admits only status and artifact updates into the queue"),
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidAgentResponse { reason: reason.into() }
}

/// The current time, truncated to milliseconds (spec 5.6.1).
pub(crate) fn now() -> a2a_proto::Timestamp {
    a2a_proto::Timestamp::now_millis()
}
