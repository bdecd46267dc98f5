//! Storage of tasks and push notification configs: the contract every backend keeps, the
//! in-memory stores ([`memory`]), and the reusable conformance suite ([`testing`], feature
//! `testing`) that every backend runs: memory, SQLite, PostgreSQL, and any store a user writes.
//!
//! # The task store contract
//!
//! A task is written incrementally: [`TaskStore::create`] once, then one [`TaskStore::apply`] per
//! change ([`TaskMutation`]), so a streaming artifact chunk costs the size of the chunk (a row
//! insert in SQL), never a rewrite of the whole task.
//!
//! - **Sequence numbers.** Every task carries the number of *stream events* applied to it, its
//!   `seq`: creation is event 1, each [`TaskMutation::Status`] and [`TaskMutation::Artifact`]
//!   adds one. A [`TaskMutation::History`] (a client message continuing the task) is not a stream
//!   event (spec 3.2.3) and leaves `seq` unchanged. [`TaskStore::get`] returns the task *and* its
//!   `seq`, read atomically: a subscriber that reads a snapshot at `seq = n` and then skips live
//!   events numbered `<= n` gets every event exactly once (spec 3.1.6, 3.5.2), whichever process
//!   published them.
//! - **Atomicity.** `create` and `apply` are atomic: a concurrent `get` or `list` sees the task
//!   before or after the change, never half of it, and once they return `Ok` the change is
//!   durable to the backend's promise (memory: the process; SQLite/PostgreSQL: committed).
//! - **The rules are the store's too.** `apply` checks the mutation against the *stored* state with
//!   [`check_mutation`] in the same atomic step, so two writers (two replicas, or an executor
//!   racing a CancelTask) can never clobber each other: a terminal task stays terminal, an
//!   illegal transition is refused with the error [`check_mutation`] gives, whoever writes.
//! - **Scoping.** `create` records the task's [`Scope`]; `get` and `list` return only tasks whose
//!   scope is visible to the caller's ([`Scope::sees`]), and a task another scope cannot see is
//!   indistinguishable from a missing one (spec 13.1). `apply` is unscoped: only the handler calls
//!   it, for a task it has already resolved for its caller.
//! - **Listing.** `list` orders by status timestamp (milliseconds), newest first, ties broken by
//!   id (descending); [`TaskQuery::after`] is a keyset cursor (the last task of the previous page),
//!   so a page costs the same however deep it is, and pages stay stable under concurrent inserts:
//!   every task that matches and does not change while a client pages is returned exactly once. A
//!   task updated meanwhile moves to the front (it may then be missed by that pass, or seen
//!   twice). `total_size` counts every match at the time of the page's read, filters applied
//!   before counting, in the caller's scope only.
//! - **Push outbox.** A store may keep the push notifications its events cause
//!   ([`TaskStore::outbox`], [`crate::push::outbox`]): [`TaskStore::create_with_burst`] and
//!   [`TaskStore::apply_burst`] then write them in the same atomic step as the events, so an event
//!   is never stored without its notifications, nor a notification without its event.
//! - **Recovery.** [`TaskStore::running`] lists the tasks an execution was producing
//!   (`SUBMITTED` or `WORKING`), so that a server that restarts can resolve what its previous run
//!   left unfinished (the handler's restart policy, `DefaultRequestHandler::recover`).
//!
//! # The push config store contract
//!
//! Configs are keyed by (task id, config id). `put` creates or replaces; a replaced config keeps
//! its place in the task's creation order and takes the new registration version. `list` returns
//! a task's configs in creation order. `delete` is idempotent. Access control is the handler's: it
//! resolves the task for the caller before touching its configs.

/// The in-memory task store's name before it was the only one (CHANGELOG.md).
#[deprecated(since = "0.2.0", note = "the one in-memory task store is `store::memory::InMemoryTaskStore`")]
pub mod compact {
    pub use super::memory::{HOT_TERMINAL, SHARDS};

    /// [`InMemoryTaskStore`](super::memory::InMemoryTaskStore), by its earlier name.
    pub type CompactTaskStore = super::memory::InMemoryTaskStore;
}
pub mod memory;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use a2a_proto::v1::{Task, TaskPushNotificationConfig, TaskState};
use async_trait::async_trait;

use std::sync::Arc;

use crate::context::ProtocolVersion;
use crate::error::Result;
pub use crate::lifecycle::{apply_mutation, check_mutation, is_event, TaskMutation};
use crate::push::{Notification, PushOutbox, PushPayload};

/// Who may see a task: the tenant it was created in and the principal that created it (`None`
/// when the server does not authenticate; such tasks are visible to every caller of the tenant).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    /// The request's `tenant` (empty when unused).
    pub tenant: String,
    /// The id of the principal that created the task.
    pub owner: Option<String>,
}

impl Scope {
    /// Whether a caller in `self` may see a task created in `task`: same tenant, and the task has
    /// no owner or the same one.
    pub fn sees(&self, task: &Scope) -> bool {
        self.tenant == task.tenant && (task.owner.is_none() || task.owner == self.owner)
    }
}

/// How much of a task to return (spec 3.2.4, 3.1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskView {
    /// At most this many of the most recent history messages; `None`: all of them.
    pub history_length: Option<usize>,
    /// Whether to include artifacts.
    pub include_artifacts: bool,
}

impl TaskView {
    /// The whole task.
    pub const FULL: TaskView = TaskView { history_length: None, include_artifacts: true };

    /// Copies the parts of `task` this view selects (only those: history beyond the limit and
    /// unwanted artifacts are never cloned).
    pub fn project(&self, task: &Task) -> Task {
        let history = match self.history_length {
            None => task.history.clone(),
            Some(n) => task.history[task.history.len().saturating_sub(n)..].to_vec(),
        };
        Task {
            id: task.id.clone(),
            context_id: task.context_id.clone(),
            status: task.status.clone(),
            artifacts: if self.include_artifacts { task.artifacts.clone() } else { Vec::new() },
            history,
            metadata: task.metadata.clone(),
        }
    }

    /// Trims an owned task to this view in place (no copy).
    pub fn trim(&self, task: &mut Task) {
        if let Some(n) = self.history_length {
            let excess = task.history.len().saturating_sub(n);
            task.history.drain(..excess);
        }
        if !self.include_artifacts {
            task.artifacts.clear();
        }
    }
}

/// A task as stored, with the sequence number of the last stream event it reflects (see the
/// module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    /// The task, projected by the requested [`TaskView`].
    pub task: Task,
    /// How many stream events the task reflects (1 after `create`).
    pub seq: u64,
}

/// The position after which a list page starts: the sort key of the last task of the previous page.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cursor {
    /// Status timestamp in milliseconds since the epoch.
    pub updated_ms: i64,
    /// Task id (ties broken by id).
    pub task_id: String,
}

/// A validated ListTasks query (spec 3.1.4).
#[derive(Debug, Clone)]
pub struct TaskQuery {
    /// Only tasks of this context.
    pub context_id: Option<String>,
    /// Only tasks in this state.
    pub state: Option<TaskState>,
    /// Only tasks whose status timestamp is at or after this instant (milliseconds since epoch).
    pub updated_at_or_after_ms: Option<i64>,
    /// Page size, 1..=100.
    pub page_size: usize,
    /// Start after this position (newest first).
    pub after: Option<Cursor>,
    /// What to include of each task.
    pub view: TaskView,
}

/// One page of ListTasks.
#[derive(Debug, Clone, Default)]
pub struct TaskPage {
    /// The tasks, most recently updated first.
    pub tasks: Vec<Task>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<Cursor>,
    /// How many tasks match the filters in all pages.
    pub total_size: usize,
}

/// The sort key of a task: its status timestamp in milliseconds (0 without one).
pub fn updated_ms(task: &Task) -> i64 {
    task.status.as_ref().and_then(|s| s.timestamp.as_ref()).map_or(0, a2a_proto::Timestamp::as_millis)
}

/// Checks a chain of changes starting from `state` with [`check_mutation`]; returns the state
/// after the last one.
pub fn check_all(task_id: &str, mut state: TaskState, changes: &[TaskMutation<'_>]) -> Result<TaskState> {
    for change in changes {
        state = check_mutation(task_id, state, change)?;
    }
    Ok(state)
}

/// A new task with its first changes applied, as [`TaskStore::create_with_burst`] stores it,
/// and its `seq` (1 for the creation, plus one per stream event). The changes are checked first
/// ([`check_all`]); nothing is copied if one is refused.
pub fn fold_new_task(task: &Task, changes: &[TaskMutation<'_>]) -> Result<(Task, u64)> {
    check_all(&task.id, task.state(), changes)?;
    let mut folded = task.clone();
    let mut seq = 1;
    for change in changes {
        apply_mutation(&mut folded, *change);
        seq += u64::from(is_event(change));
    }
    Ok((folded, seq))
}

/// Gives the notifications without a payload (0.3 configs) `task`: the task as the write that
/// stores them leaves it.
pub fn fill_task_payloads(notifications: &mut [Notification], task: &Task) {
    let mut shared: Option<PushPayload> = None;
    for notification in notifications.iter_mut().filter(|n| n.payload.is_none()) {
        let payload = shared.get_or_insert_with(|| PushPayload::TaskV0_3(Arc::new(task.clone())));
        notification.payload = Some(payload.clone());
    }
}

/// What an execution changed in a task since the store last wrote it (an execution's burst:
/// the task runtime's write-behind, `docs/architecture.md`), with the push notifications these
/// events cause: what [`TaskStore::create_with_burst`] and [`TaskStore::apply_burst`] write in one
/// atomic step.
#[derive(Debug, Clone, Copy, Default)]
pub struct Burst<'a> {
    /// The changes, in order.
    pub changes: &'a [TaskMutation<'a>],
    /// The push notifications these events cause, to be stored in the store's
    /// [`outbox`](TaskStore::outbox) in the same atomic step (empty unless the store has one).
    /// A notification without a payload gets the task as these changes leave it (a 0.3
    /// webhook's body), read in that step.
    pub notify: &'a [Notification],
}

impl<'a> Burst<'a> {
    /// The burst of `changes`, causing no notification.
    pub fn new(changes: &'a [TaskMutation<'a>]) -> Self {
        Burst { changes, notify: &[] }
    }

    /// The same changes, causing `notify`.
    #[must_use]
    pub fn notifying(self, notify: &'a [Notification]) -> Self {
        Burst { notify, ..self }
    }

    /// A new task with this burst applied, as [`TaskStore::create_with_burst`] stores it: the
    /// folded task and its `seq` ([`fold_new_task`]) with the burst's notifications, each
    /// without a payload given the folded task ([`fill_task_payloads`]). Nothing is copied if a
    /// change is refused.
    pub fn fold_new(&self, task: &Task) -> Result<(Task, u64, Vec<Notification>)> {
        let (folded, seq) = fold_new_task(task, self.changes)?;
        let mut notify = self.notify.to_vec();
        fill_task_payloads(&mut notify, &folded);
        Ok((folded, seq, notify))
    }
}

/// Persistent storage of tasks. The contract is in the [module docs](self); the
/// [`testing`] suite checks it.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task in `scope`, as its event 1. Its status timestamp is its sort key. An
    /// internal error if a task with this id exists.
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()>;

    /// Creates a new task (event 1) and applies its first change (event 2) in one atomic step:
    /// both or neither. The change is checked against the new task's state first; if it is
    /// refused, nothing is written and its error is returned. Returns the `seq` after the change
    /// (2). A new task's first event always comes with its creation, so a store that can do both
    /// in one transaction saves a commit per task; the default creates, then applies.
    async fn create_and_apply(&self, scope: &Scope, task: &Task, first: TaskMutation<'_>) -> Result<u64> {
        check_mutation(&task.id, task.state(), &first)?;
        self.create(scope, task).await?;
        self.apply(&task.id, first).await
    }

    /// Creates a new task (event 1) together with an execution's [`Burst`] (events 2, 3, ...:
    /// the changes it made before any of them was stored), in one atomic step: all or nothing.
    /// The changes are checked in order against the new task's state first; if one is refused,
    /// nothing is written and its error is returned. Returns the `seq` after the last change.
    ///
    /// The stored task is exactly what creating it and applying the changes one by one would
    /// store ([`apply_mutation`] folds them: [`fold_new_task`]), so a store may write it as one
    /// row of its final state, with the burst's notifications in the same step. The default
    /// calls the deprecated [`create_and_apply_all`](Self::create_and_apply_all), so a store
    /// written against it keeps its behaviour; that creates, then applies one change at a time
    /// (not atomic against a crash between them; every store of this workspace overrides this
    /// method).
    #[allow(deprecated)]
    async fn create_with_burst(&self, scope: &Scope, task: &Task, burst: Burst<'_>) -> Result<u64> {
        self.create_and_apply_all(scope, task, burst.changes, burst.notify).await
    }

    /// Applies an execution's [`Burst`] of consecutive changes of one task atomically: each is
    /// checked against the state the ones before it leave (the first against the stored state)
    /// and if one is refused, nothing is written and its error is returned. Returns the task's
    /// `seq` after the last one. `scope` is one that sees the task; like [`apply`](Self::apply),
    /// the change itself is unscoped.
    ///
    /// The default calls the deprecated [`apply_all`](Self::apply_all), so a store written
    /// against it keeps its behaviour; that applies the changes one at a time after checking the
    /// chain against a read of the stored state (atomic against refusals, not against a
    /// concurrent writer or a crash between them; every store of this workspace overrides this
    /// method).
    #[allow(deprecated)]
    async fn apply_burst(&self, scope: &Scope, task_id: &str, burst: Burst<'_>) -> Result<u64> {
        self.apply_all(scope, task_id, burst.changes, burst.notify).await
    }

    /// [`create_with_burst`](Self::create_with_burst) with the burst's two parts apart: what a
    /// store implemented before [`Burst`] existed (its default creates, then applies one change
    /// at a time). It is called only by the default of `create_with_burst`.
    #[deprecated(since = "0.2.0", note = "implement and call `create_with_burst`, which takes a `Burst`")]
    async fn create_and_apply_all(
        &self,
        scope: &Scope,
        task: &Task,
        changes: &[TaskMutation<'_>],
        notify: &[Notification],
    ) -> Result<u64> {
        let seq = match changes.split_first() {
            None => {
                self.create(scope, task).await?;
                1
            }
            Some((first, rest)) => {
                check_all(&task.id, task.state(), changes)?;
                let mut seq = self.create_and_apply(scope, task, *first).await?;
                for change in rest {
                    seq = self.apply(&task.id, *change).await?;
                }
                seq
            }
        };
        enqueue_after(self, scope, &task.id, notify).await?;
        Ok(seq)
    }

    /// [`apply_burst`](Self::apply_burst) with the burst's two parts apart: what a store
    /// implemented before [`Burst`] existed (its default reads the task's state with `scope`,
    /// checks the chain, then applies one change at a time). It is called only by the default of
    /// `apply_burst`.
    #[deprecated(since = "0.2.0", note = "implement and call `apply_burst`, which takes a `Burst`")]
    async fn apply_all(
        &self,
        scope: &Scope,
        task_id: &str,
        changes: &[TaskMutation<'_>],
        notify: &[Notification],
    ) -> Result<u64> {
        let view = TaskView { history_length: Some(0), include_artifacts: false };
        let stored = self
            .get(scope, task_id, view)
            .await?
            .ok_or_else(|| crate::Error::TaskNotFound { task_id: task_id.into() })?;
        check_all(task_id, stored.task.state(), changes)?;
        let mut seq = stored.seq;
        for change in changes {
            seq = self.apply(task_id, *change).await?;
        }
        enqueue_after(self, scope, task_id, notify).await?;
        Ok(seq)
    }

    /// The push notifications outbox this store keeps with its tasks, if it keeps one: then
    /// [`create_with_burst`](Self::create_with_burst) and [`apply_burst`](Self::apply_burst)
    /// store the notifications an execution's events cause in the same atomic step as the
    /// events, and a restart loses none. `None` (the default): the handler keeps them in memory.
    fn outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        None
    }

    /// Applies one change atomically, after checking it against the stored state with
    /// [`check_mutation`] (its error is returned unchanged and nothing is written). Returns the
    /// task's `seq` after the change. `Error::TaskNotFound` if there is no such task.
    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64>;

    /// The task, projected by `view`, with its `seq`, if it exists and `scope` may see it.
    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>>;

    /// Tasks of `scope` matching `query`, most recently updated first.
    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage>;

    /// Every task, in any scope, whose state is `SUBMITTED` or `WORKING`: what executions were
    /// producing. Read once at startup, to resolve tasks a previous run left unfinished.
    async fn running(&self) -> Result<Vec<(Scope, String)>>;

    /// Whether the store can serve now: one cheap round trip to its backend (a `SELECT 1` on a
    /// pooled connection, say), for a server's readiness probe. `Err` says why not (the database
    /// is unreachable, the writer stopped). Callers bound it with a timeout of their own, since a
    /// hung backend may not answer at all. The default, for in-process stores, is always `Ok`.
    async fn ping(&self) -> Result<()> {
        Ok(())
    }
}

/// What a store without an outbox does with notifications passed to it: refuses them, writing
/// nothing (the handler passes none to such a store).
pub(crate) fn refuse_notifications(notify: &[Notification]) -> Result<()> {
    if notify.is_empty() {
        Ok(())
    } else {
        Err(crate::Error::internal("push notifications were passed to a task store without an outbox"))
    }
}

/// What the default bursts of [`TaskStore`] (its deprecated two-part methods) do with
/// their notifications once the changes are written (not atomic with them): fill in the missing
/// payloads from a read of the task, and enqueue them in the store's outbox.
async fn enqueue_after<S: TaskStore + ?Sized>(
    store: &S,
    scope: &Scope,
    task_id: &str,
    notify: &[Notification],
) -> Result<()> {
    if notify.is_empty() {
        return Ok(());
    }
    let outbox = store.outbox().ok_or_else(|| {
        crate::Error::internal("push notifications were passed to a task store without an outbox")
    })?;
    let mut notify = notify.to_vec();
    if notify.iter().any(|n| n.payload.is_none()) {
        let task = store.get(scope, task_id, TaskView::FULL).await?.map(|stored| stored.task);
        let task = task.ok_or_else(|| crate::Error::TaskNotFound { task_id: task_id.into() })?;
        fill_task_payloads(&mut notify, &task);
    }
    outbox.enqueue(notify).await
}

/// A push config as stored: the config and the protocol version of the client that registered it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredPushConfig {
    /// The config, as the push config operations return it.
    pub config: TaskPushNotificationConfig,
    /// The version the registering client spoke ([`CallContext::wire_version`]): notifications to
    /// this config are sent in that version's format ([`crate::push`]). Internal: no operation
    /// returns it.
    ///
    /// [`CallContext::wire_version`]: crate::CallContext::wire_version
    pub version: ProtocolVersion,
}

/// Persistent storage of push notification configs, per task. The contract is in the
/// [module docs](self).
#[async_trait]
pub trait PushConfigStore: Send + Sync + 'static {
    /// Creates or replaces (same task and id) a config, registered by a client speaking
    /// `version`; returns the config as stored. A replaced config takes the new version and keeps
    /// its place in the creation order.
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig>;

    /// One config of a task.
    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<StoredPushConfig>>;

    /// Every config of a task, in creation order.
    async fn list(&self, task_id: &str) -> Result<Vec<StoredPushConfig>>;

    /// Removes a config; `true` if it existed.
    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool>;
}
