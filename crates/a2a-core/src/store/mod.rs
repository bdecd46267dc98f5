//! Storage of tasks and push notification configs: traits the handler depends on, and in-memory
//! implementations ([`memory`]).
//!
//! The task store is written to incrementally ([`TaskStore::apply`] with a [`TaskMutation`]), so a
//! streaming artifact costs the size of its chunk, not of the whole task, and a SQL backend can map
//! a mutation to a row insert. Every read and write is scoped ([`Scope`]: tenant and owner), so a
//! caller never sees another caller's tasks (spec 13.1). Later backends (SQLite, PostgreSQL)
//! implement the same traits; the handler does not change.

pub mod memory;

use a2a_proto::v1::{Task, TaskPushNotificationConfig, TaskState};
use async_trait::async_trait;

use crate::context::ProtocolVersion;
use crate::error::Result;
pub use crate::lifecycle::TaskMutation;

/// Who may see a task: the tenant it was created in and the principal that created it (`None`
/// when the server does not authenticate; such tasks are visible to every caller of the tenant).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Scope {
    /// The request's `tenant` (empty when unused).
    pub tenant: String,
    /// The id of the principal that created the task.
    pub owner: Option<String>,
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

/// Persistent storage of tasks.
#[async_trait]
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task. Its status timestamp is its sort key.
    async fn create(&self, scope: &Scope, task: Task) -> Result<()>;

    /// Applies a change to a stored task (see [`crate::lifecycle::apply_mutation`]).
    /// `Error::TaskNotFound` if there is no such task.
    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<()>;

    /// The task, projected by `view`, if it exists and `scope` may see it.
    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<Task>>;

    /// The scope a task was created in (for the handler's access checks and runtime setup).
    async fn scope_of(&self, task_id: &str) -> Result<Option<Scope>>;

    /// Tasks of `scope` matching `query`, most recently updated first.
    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage>;
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

/// Persistent storage of push notification configs, per task.
#[async_trait]
pub trait PushConfigStore: Send + Sync + 'static {
    /// Creates or replaces (same task and id) a config, registered by a client speaking
    /// `version`; returns the config as stored. A replaced config takes the new version.
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
