//! The write-behind of a runtime's events: tuned code, apart from the rules events follow
//! (`check_event`, [`crate::lifecycle`]) and the fan-out ([`super`]).
//!
//! An executor's `publish` checks its event and queues it ([`TaskRuntime::publish`], the queueing
//! itself in `super`); the queue is stored in one store call
//! ([`TaskStore::create_with_burst`](crate::store::TaskStore::create_with_burst) for a new
//! task, [`TaskStore::apply_burst`](crate::store::TaskStore::apply_burst)) when the executor next
//! yields ([`TaskRuntime::run_execution`]; a task spawned at the first queued event when the
//! publisher is not the execution), when anything else needs the lock (another write, the end
//! of the execution, a cancel, [`TaskRuntime::flush`]), or at [`MAX_QUEUED`] events. Only then
//! are the events handed out: a burst costs one write, and nobody hears of an event before it is
//! stored. A new task's first burst is kept ([`Written`]), so the blocking send that follows
//! answers from it instead of reading the store.
//!
//! What it buys, against writing each event as it is published (`MAX_QUEUED` = 1, the rest
//! unchanged): 16.8% of the instructions of an echo SendMessage on JSON-RPC, 16.6% on REST, 12.6%
//! on gRPC (callgrind, memory store, `docs/benchmarks.md`, eleventh pass), and more on SQLite,
//! where each write is a transaction. The publish slices ([`PUBLISH_SLICE`]) keep an agent that
//! publishes without pause from holding its worker thread.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use a2a_proto::v1::{stream_response::Payload, StreamResponse, Task, TaskState};
use tokio::sync::MutexGuard;

use super::{apply_event, mutation_of, Channel, Envelope, RunState, TaskRuntime};
use crate::context::ProtocolVersion;
use crate::error::{Error, Result};
use crate::lifecycle::apply_mutation;
use crate::push::Notification;
use crate::store::{self, StoredPushConfig, TaskMutation, TaskView};

/// How long an agent may publish without a break before its task yields (see
/// [`TaskRuntime::publish`]).
pub(super) const PUBLISH_SLICE: std::time::Duration = std::time::Duration::from_millis(10);

/// A pause between two publishes this long ends a slice.
pub(super) const PUBLISH_GAP: std::time::Duration = std::time::Duration::from_micros(200);

/// Events an execution may publish ahead of the store: the publish that queues this many writes
/// them itself (module docs, write-behind).
pub(super) const MAX_QUEUED: usize = 64;

impl Written {
    /// The task as stored at `seq`, projected by `view`: the created task with the events folded
    /// in, their contents moved unless a subscriber still holds one (then copied).
    pub(super) fn into_task(self, view: TaskView) -> Option<Task> {
        let mut task = match self.burst {
            Burst::Unheard { mut created, events } => {
                for (mut event, _) in events {
                    apply_event(&mut created, &mut event);
                }
                created
            }
            Burst::Shared { mut created, events } => {
                // Taken out of their `Arc`s in place: moving whole events out would copy each one.
                let mut task = match Arc::get_mut(&mut created) {
                    Some(StreamResponse { payload: Some(Payload::Task(task)) }) => std::mem::take(task),
                    Some(_) => return None,
                    None => match &created.payload {
                        Some(Payload::Task(task)) => task.clone(),
                        _ => return None,
                    },
                };
                for mut event in events {
                    match Arc::get_mut(&mut event) {
                        Some(owned) => apply_event(&mut task, owned),
                        None => apply_mutation(&mut task, mutation_of(&event)),
                    }
                }
                task
            }
        };
        view.trim(&mut task);
        Some(task)
    }
}

/// A task this runtime created with its first burst: the created task and the burst's events
/// (folded on demand, see [`TaskRuntime::written_at`]), and the `seq` after them.
pub(super) struct Written {
    pub(super) seq: u64,
    pub(super) burst: Burst,
}

/// The created task and the events of a first burst.
// One per runtime at most, in its state where the pending task it replaces was: boxing the task
// would cost the allocation `Unheard` saves.
#[allow(clippy::large_enum_variant)]
pub(super) enum Burst {
    /// As handed out to subscribers (or other replicas), who may still hold them.
    Shared { created: Arc<StreamResponse>, events: Vec<Arc<StreamResponse>> },
    /// As stored, when nobody could hear them: no subscriber had made the event channel and there
    /// is no cluster. A subscriber that comes later reads a snapshot (or the state, under the
    /// lock) after subscribing, and the store has them by then.
    Unheard { created: Task, events: Vec<(StreamResponse, TaskState)> },
}

/// The runtime's lock held for a write. It is armed from the moment a write goes to the store
/// until its event is broadcast; dropped while armed (its future was dropped half-way), it leaves
/// the runtime consistent: the next writer re-reads the stored state, and subscribers
/// resynchronise from a snapshot.
pub(super) struct Writing<'a> {
    pub(super) state: MutexGuard<'a, RunState>,
    pub(super) tx: &'a Channel,
    pub(super) armed: bool,
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.state.stale = true;
            self.tx.send(Envelope::Resync);
        }
    }
}

/// How far [`TaskRuntime::publish`] got without waiting.
pub(super) enum Attempt<'a> {
    /// The event was taken or refused.
    Done(Result<()>),
    /// The event is queued; what is left: the write of a full queue (under this lock), then the
    /// originating stream's window for `sent` events.
    Queued { flush: Option<Writing<'a>>, sent: u32 },
    /// The event waits for the lock (after a yield, at the end of a slice).
    Wait { event: Box<StreamResponse>, yield_first: bool },
}

tokio::task_local! {
    /// The runtime whose execution the current task runs ([`TaskRuntime::key`]).
    pub(super) static EXECUTING: usize;
}

impl TaskRuntime {
    /// Takes the runtime's lock, first re-reading the stored state if an earlier write was
    /// abandoned or failed. Queued events stay queued.
    pub(super) async fn lock(&self) -> Result<Writing<'_>> {
        let mut writing = Writing { state: self.state.lock().await, tx: &self.tx, armed: false };
        self.refresh(&mut writing.state).await?;
        Ok(writing)
    }

    /// Re-reads the stored state if it is stale.
    pub(super) async fn refresh(&self, run: &mut RunState) -> Result<()> {
        if run.stale {
            run.written = None;
            let view = TaskView { history_length: Some(0), include_artifacts: false };
            if let Some(stored) = self.store.get(&self.scope, &self.task_id, view).await? {
                run.state = stored.task.state();
                run.last_seq = run.last_seq.max(stored.seq);
            }
            run.stale = false;
        }
        Ok(())
    }

    /// Takes the runtime's lock for a write of its own: [`lock`](Self::lock), then the queued
    /// events are stored and handed out first. A failed write of them is kept for the execution
    /// (its next publish, or its end) and does not fail the caller.
    pub(super) async fn writing(&self) -> Result<Writing<'_>> {
        let mut writing = self.lock().await?;
        if let Err(error) = self.flush_locked(&mut writing).await {
            writing.state.deferred = Some(error);
            self.refresh(&mut writing.state).await?;
        }
        Ok(writing)
    }

    /// Stores and hands out every event published so far; the error of a write of them that
    /// failed (now or since the last publish). [`TaskUpdater::flush`](crate::TaskUpdater::flush).
    pub(crate) async fn flush(&self) -> Result<()> {
        let mut writing = self.lock().await?;
        if let Some(error) = writing.state.deferred.take() {
            return Err(error);
        }
        self.flush_locked(&mut writing).await
    }

    /// The write-behind: stores the queued events (and the pending task they follow) in one
    /// store call, then hands them out with their `seq`. On failure nothing is handed out, the
    /// subscribers resynchronise, the pending task stays pending, and the runtime re-reads the
    /// stored state before the next write.
    pub(super) async fn flush_locked(&self, writing: &mut Writing<'_>) -> Result<()> {
        if writing.state.queue.is_empty() {
            return Ok(());
        }
        // Boxed: the write's state (the push configs, the store call, the broadcast) would be
        // most of the size of every future that may flush (each publish, each lock taken for a
        // write), and those futures are moved whole, however little of them is live. A write
        // is rare next to them and pays one allocation.
        Box::pin(self.write_queue(writing)).await
    }

    /// [`flush_locked`](Self::flush_locked) with events queued.
    pub(super) async fn write_queue(&self, writing: &mut Writing<'_>) -> Result<()> {
        let queue = std::mem::take(&mut writing.state.queue);
        let configs = match self.push_configs(&writing.state).await {
            Ok(configs) => configs,
            Err(error) => {
                // Without the configs the events cannot be stored with their notifications.
                self.release_primary(queue.len() + usize::from(writing.state.pending.is_some()));
                self.tx.send(Envelope::Resync);
                return Err(error);
            }
        };
        // A 0.3 webhook receives the task as it is after each event: one write per event then.
        let per_event = queue.len() > 1 && configs.iter().any(|c| c.version == ProtocolVersion::V0_3);
        if !per_event {
            return self.store_burst(writing, queue, &configs).await;
        }
        let mut events = queue.into_iter();
        loop {
            let Some(event) = events.next() else { return Ok(()) };
            let burst = vec![event];
            if let Err(error) = self.store_burst(writing, burst, &configs).await {
                // The events after a failed one were checked against a state that never was.
                self.release_primary(events.len());
                return Err(error);
            }
        }
    }

    /// The task's push configs (none without push delivery, nor before a task whose send
    /// registered none is stored: `RunState::pending_configs`).
    pub(super) async fn push_configs(&self, run: &RunState) -> Result<Vec<StoredPushConfig>> {
        match &self.push {
            Some(_) if run.pending.is_some() && !run.pending_configs => Ok(Vec::new()),
            Some(push) => push.configs(&self.task_id).await,
            None => Ok(Vec::new()),
        }
    }

    /// One store call for `burst` (see [`flush_locked`](Self::flush_locked)), with the push
    /// notifications its events cause for `configs`: in the same store call when the store keeps
    /// the outbox, else into the in-memory outbox right after it.
    pub(super) async fn store_burst(
        &self,
        writing: &mut Writing<'_>,
        mut burst: Vec<(StreamResponse, TaskState)>,
        configs: &[StoredPushConfig],
    ) -> Result<()> {
        let pending = writing.state.pending.take();
        let notify = match &self.push {
            Some(push) if !configs.is_empty() => {
                for (event, _) in &mut burst {
                    self.fill_ids(event);
                }
                let created = pending.as_ref().map(|task| StreamResponse::from(task.clone()));
                let events: Vec<&StreamResponse> =
                    created.iter().chain(burst.iter().map(|(event, _)| event)).collect();
                push.notifications(&self.task_id, configs, &events)
            }
            _ => Vec::new(),
        };
        let in_store = self.push.as_ref().is_some_and(|push| push.in_store());
        let passed: &[Notification] = if in_store { &notify } else { &[] };
        writing.armed = true;
        let stored = {
            let changes: Vec<TaskMutation<'_>> = burst.iter().map(|(event, _)| mutation_of(event)).collect();
            let written = store::Burst::new(&changes).notifying(passed);
            match &pending {
                Some(task) => self.store.create_with_burst(&self.scope, task, written).await,
                None => {
                    writing.state.written = None;
                    self.store.apply_burst(&self.scope, &self.task_id, written).await
                }
            }
        };
        let last_seq = match stored {
            Ok(seq) => seq,
            Err(error) => {
                writing.armed = false;
                let sent = burst.len() + usize::from(pending.is_some());
                if let Some(task) = pending {
                    writing.state.state = task.state();
                    writing.state.pending = Some(task);
                } else {
                    writing.state.stale = true;
                }
                self.tx.send(Envelope::Resync);
                self.release_primary(sent);
                if matches!(error, Error::InvalidAgentResponse { .. }) {
                    // Refused by the store: another writer got there first (a CancelTask).
                    let view = TaskView { history_length: Some(0), include_artifacts: false };
                    if let Ok(Some(stored)) = self.store.get(&self.scope, &self.task_id, view).await {
                        self.cancelled_elsewhere(stored.task.state());
                    }
                }
                return Err(error);
            }
        };
        if let Some(push) = self.push.as_ref().filter(|_| !notify.is_empty()) {
            if in_store {
                push.stored(notify.len());
            } else {
                // The stored task is exactly the task after the burst (the caller holds the lock).
                let task_after = || async {
                    Ok(self
                        .store
                        .get(&self.scope, &self.task_id, TaskView::FULL)
                        .await?
                        .map(|stored| stored.task))
                };
                push.enqueue(notify, task_after).await;
            }
        }
        // The stored task is the created one with this burst folded in (the store contract):
        // kept for a blocking send.
        if let Some(task) = pending {
            if !self.tx.made() && self.cluster.is_none() {
                // Nobody can hear these events (`Burst::Unheard`): handed out, they would only
                // be numbered.
                self.created.store(true, Ordering::Release);
                writing.state.last_seq = writing.state.last_seq.max(last_seq);
                writing.armed = false;
                let burst = Burst::Unheard { created: task, events: burst };
                writing.state.written = Some(Written { seq: last_seq, burst });
                return Ok(());
            }
            let created = self.announce_created(writing, task).await;
            let mut events = Vec::with_capacity(burst.len());
            self.hand_out(writing, burst, last_seq, Some(&mut events)).await;
            writing.state.written = Some(Written { seq: last_seq, burst: Burst::Shared { created, events } });
        } else {
            self.hand_out(writing, burst, last_seq, None).await;
        }
        writing.armed = false;
        Ok(())
    }

    /// The task as stored at `seq`, projected by `view`, if this runtime wrote it whole and
    /// nothing changed it since (see `RunState::written`). Taken: its events are folded into the
    /// created task by moving their contents, unless a subscriber still holds one (then copied).
    /// A later call finds nothing, and its caller reads the store, which holds the same task.
    pub(crate) async fn written_at(&self, seq: u64, view: TaskView) -> Option<Task> {
        let written = self.state.lock().await.written.take_if(|written| written.seq == seq)?;
        written.into_task(view)
    }

    /// Writes the queued events in a task of their own.
    pub(super) fn spawn_flush(self: &Arc<Self>) {
        let runtime = Arc::clone(self);
        let span = crate::trace::span_for_spawn();
        tokio::spawn(tracing::Instrument::instrument(
            async move {
                if let Ok(mut writing) = runtime.lock().await {
                    if let Err(error) = runtime.flush_locked(&mut writing).await {
                        writing.state.deferred = Some(error);
                    }
                }
            },
            span,
        ));
    }

    /// What identifies this runtime's execution task ([`EXECUTING`]).
    pub(super) fn key(&self) -> usize {
        std::ptr::from_ref(self) as usize
    }

    /// Runs an execution's future (in the task spawned for it) as this runtime's execution: its
    /// publishes only queue, and whenever the agent waits (the future is pending) with events
    /// queued, a task writes them (module docs, write-behind).
    pub(crate) async fn run_execution<F: std::future::Future>(self: &Arc<Self>, execution: F) -> F::Output {
        use std::future::Future as _;
        let mut execution = std::pin::pin!(EXECUTING.scope(self.key(), execution));
        std::future::poll_fn(|cx| {
            let polled = execution.as_mut().poll(cx);
            if polled.is_pending() && self.flush_wanted.swap(false, Ordering::AcqRel) {
                self.spawn_flush();
            }
            polled
        })
        .await
    }

    /// Validates, stores and broadcasts one event from the executor.
    ///
    /// The runtime's own awaits (its lock, the store, push queueing) do not count against the
    /// executor task's cooperative budget: otherwise, with many subscribers woken by every event,
    /// the agent would be sent to the back of the run queue every few dozen events, behind all of
    /// them, and a fan-out to a thousand subscribers would slow the agent down a hundredfold. So
    /// that an agent publishing in a tight loop cannot hold a worker thread for long, it yields
    /// once it has been publishing for [`PUBLISH_SLICE`] without a break.
    ///
    /// The event is checked and queued by this call itself when the runtime's lock is free (the
    /// updater makes the call when its own future is first polled): the future returned holds
    /// no event, only what is left to wait for (the write of a full queue, the originating
    /// stream's window), and is ready at once when nothing is. An event that must wait (for the
    /// lock, a stale state's read, or the yield that ends a slice) waits in a box. Every updater
    /// call's future, and every agent future around them, is that much smaller to move.
    pub(crate) fn publish(
        self: &Arc<Self>,
        event: StreamResponse,
    ) -> impl std::future::Future<Output = Result<()>> + Send + '_ {
        let attempt = self.try_publish(event);
        async move {
            let outcome = match attempt {
                Attempt::Done(outcome) => return outcome,
                Attempt::Queued { flush, sent } => {
                    tokio::task::unconstrained(self.after_queued(flush, sent)).await
                }
                Attempt::Wait { event, yield_first } => {
                    if yield_first {
                        tokio::task::yield_now().await;
                        self.slice_start_us.store(self.micros(), Ordering::Relaxed);
                    }
                    tokio::task::unconstrained(self.publish_now(event)).await
                }
            };
            self.last_publish_us.store(self.micros(), Ordering::Relaxed);
            outcome
        }
    }

    /// Microseconds since the runtime was made (for [`PUBLISH_SLICE`]).
    pub(super) fn micros(&self) -> u64 {
        self.born.elapsed().as_micros() as u64
    }

    /// The part of [`publish`](Self::publish) done without waiting.
    pub(super) fn try_publish(self: &Arc<Self>, event: StreamResponse) -> Attempt<'_> {
        let now = self.micros();
        let slice = self.slice_start_us.load(Ordering::Relaxed);
        if now.saturating_sub(slice) > PUBLISH_SLICE.as_micros() as u64 {
            // A gap since the last publish starts a new slice; a long run of publishing yields.
            if now.saturating_sub(self.last_publish_us.load(Ordering::Relaxed))
                < PUBLISH_GAP.as_micros() as u64
            {
                return Attempt::Wait { event: Box::new(event), yield_first: true };
            }
            self.slice_start_us.store(now, Ordering::Relaxed);
        }
        let writing = match self.state.try_lock() {
            Ok(state) if !state.stale => Writing { state, tx: &self.tx, armed: false },
            _ => return Attempt::Wait { event: Box::new(event), yield_first: false },
        };
        let (flush, sent) = match self.queue(writing, event) {
            Ok(queued) => queued,
            Err(error) => {
                self.last_publish_us.store(now, Ordering::Relaxed);
                return Attempt::Done(Err(error));
            }
        };
        if flush.is_none() && (sent == 0 || self.primary.lock().expect("primary lock").is_none()) {
            // Nothing to wait for: the publish ended now.
            self.last_publish_us.store(now, Ordering::Relaxed);
            return Attempt::Done(Ok(()));
        }
        Attempt::Queued { flush, sent }
    }

    /// [`publish`](Self::publish) of an event that waits for the runtime's lock.
    pub(super) async fn publish_now(self: &Arc<Self>, event: Box<StreamResponse>) -> Result<()> {
        let writing = self.lock().await?;
        let (flush, sent) = self.queue(writing, *event)?;
        self.after_queued(flush, sent).await
    }

    /// What is left of a publish once its event is queued: the write of a full queue (under the
    /// lock `flush` holds), then the originating stream's window.
    pub(super) async fn after_queued(&self, flush: Option<Writing<'_>>, sent: u32) -> Result<()> {
        if let Some(mut writing) = flush {
            self.flush_locked(&mut writing).await?;
        }
        self.wait_for_primary(sent).await;
        Ok(())
    }

    /// Backpressure from the originating stream (see the module docs).
    pub(super) async fn wait_for_primary(&self, sent: u32) {
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

    /// After an event is queued under `writing`: the lock back when the queue is written now (a
    /// burst of [`MAX_QUEUED`] events is written by its publisher: the queue stays bounded), else
    /// `None`, a write of the queue being on its way (started here at the first queued event).
    pub(super) fn schedule_write<'a>(self: &'a Arc<Self>, writing: Writing<'a>) -> Option<Writing<'a>> {
        let queued = writing.state.queue.len();
        if queued >= MAX_QUEUED {
            return Some(writing);
        }
        if queued == 1 {
            // Written when this task next yields (or by whoever takes the lock first): the events
            // the execution publishes until then share the write. Inside the execution's own
            // task, its poll wrapper ([`TaskRuntime::run_execution`]) starts the write when the
            // agent waits, and the end of the execution flushes: no task is spawned for an agent
            // that publishes and returns.
            if EXECUTING.try_with(|key| *key == self.key()).unwrap_or(false) {
                self.flush_wanted.store(true, Ordering::Release);
            } else {
                self.spawn_flush();
            }
        }
        None
    }
}
