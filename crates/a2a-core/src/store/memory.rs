//! The in-memory stores: the contract of [`crate::store`] in its plainest form, meant to be read.
//!
//! One lock around one map of tasks. `get` is a hash lookup; `list` filters and sorts the tasks
//! the caller can see, so it costs O(n log n) in the number of stored tasks: right for tests,
//! examples and small agents. For many stored tasks in memory use [`super::compact`], and for
//! tasks that survive a restart a SQL store (`a2a-store-sql`); both pass the same
//! [`testing`](super) suite as this one.

use std::collections::HashMap;
use std::sync::Mutex;

use a2a_proto::v1::{Task, TaskPushNotificationConfig};
use async_trait::async_trait;

use super::{
    refuse_notifications, updated_ms, Cursor, PushConfigStore, Scope, StoredPushConfig, StoredTask,
    TaskMutation, TaskPage, TaskQuery, TaskStore, TaskView,
};
use crate::context::ProtocolVersion;
use crate::error::{Error, Result};
use crate::lifecycle::{apply_mutation, check_mutation, is_event};
use crate::push::Notification;
use crate::store::{check_all, fold_new_task};

/// A [`TaskStore`] in process memory.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    tasks: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug)]
struct Entry {
    scope: Scope,
    task: Task,
    seq: u64,
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks are stored.
    pub fn len(&self) -> usize {
        self.tasks.lock().expect("task store lock").len()
    }

    /// Whether no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Whether `task` passes `query`'s filters (not the cursor).
fn matches(task: &Task, query: &TaskQuery) -> bool {
    query.context_id.as_ref().is_none_or(|context| *context == task.context_id)
        && query.state.is_none_or(|state| task.state() == state)
        && query.updated_at_or_after_ms.is_none_or(|since| updated_ms(task) >= since)
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
        let mut tasks = self.tasks.lock().expect("task store lock");
        if tasks.contains_key(&task.id) {
            return Err(Error::internal(format!("task {} already exists", task.id)));
        }
        tasks.insert(task.id.clone(), Entry { scope: scope.clone(), task: task.clone(), seq: 1 });
        Ok(())
    }

    async fn create_and_apply_all(
        &self,
        scope: &Scope,
        task: &Task,
        changes: &[TaskMutation<'_>],
        notify: &[Notification],
    ) -> Result<u64> {
        refuse_notifications(notify)?;
        let (folded, seq) = fold_new_task(task, changes)?;
        let mut tasks = self.tasks.lock().expect("task store lock");
        if tasks.contains_key(&task.id) {
            return Err(Error::internal(format!("task {} already exists", task.id)));
        }
        tasks.insert(task.id.clone(), Entry { scope: scope.clone(), task: folded, seq });
        Ok(seq)
    }

    async fn apply_all(
        &self,
        _scope: &Scope,
        task_id: &str,
        changes: &[TaskMutation<'_>],
        notify: &[Notification],
    ) -> Result<u64> {
        refuse_notifications(notify)?;
        let mut tasks = self.tasks.lock().expect("task store lock");
        let entry = tasks.get_mut(task_id).ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
        check_all(task_id, entry.task.state(), changes)?;
        for change in changes {
            apply_mutation(&mut entry.task, *change);
            entry.seq += u64::from(is_event(change));
        }
        Ok(entry.seq)
    }

    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
        let mut tasks = self.tasks.lock().expect("task store lock");
        let entry = tasks.get_mut(task_id).ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
        check_mutation(task_id, entry.task.state(), &mutation)?;
        apply_mutation(&mut entry.task, mutation);
        if is_event(&mutation) {
            entry.seq += 1;
        }
        Ok(entry.seq)
    }

    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>> {
        let tasks = self.tasks.lock().expect("task store lock");
        Ok(tasks
            .get(task_id)
            .filter(|entry| scope.sees(&entry.scope))
            .map(|entry| StoredTask { task: view.project(&entry.task), seq: entry.seq }))
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
        let tasks = self.tasks.lock().expect("task store lock");
        let mut found: Vec<(Cursor, &Task)> = tasks
            .values()
            .filter(|entry| scope.sees(&entry.scope) && matches(&entry.task, query))
            .map(|entry| {
                (Cursor { updated_ms: updated_ms(&entry.task), task_id: entry.task.id.clone() }, &entry.task)
            })
            .collect();
        let total_size = found.len();
        // Newest first, ties by id descending: the reverse of the cursor's order.
        found.sort_unstable_by(|a, b| b.0.cmp(&a.0));
        let start = query.after.as_ref().map_or(0, |after| found.partition_point(|(key, _)| key >= after));
        let page = &found[start..];
        let taken = &page[..page.len().min(query.page_size)];
        let next = (taken.len() < page.len()).then(|| taken.last().map(|(key, _)| key.clone())).flatten();
        Ok(TaskPage {
            tasks: taken.iter().map(|(_, task)| query.view.project(task)).collect(),
            next,
            total_size,
        })
    }

    async fn running(&self) -> Result<Vec<(Scope, String)>> {
        let tasks = self.tasks.lock().expect("task store lock");
        Ok(tasks
            .values()
            .filter(|entry| entry.task.state().is_running())
            .map(|entry| (entry.scope.clone(), entry.task.id.clone()))
            .collect())
    }
}

/// A [`PushConfigStore`] in process memory.
#[derive(Debug, Default)]
pub struct InMemoryPushConfigStore {
    configs: Mutex<HashMap<String, Vec<StoredPushConfig>>>,
}

impl InMemoryPushConfigStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl PushConfigStore for InMemoryPushConfigStore {
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig> {
        let mut all = self.configs.lock().expect("push store lock");
        let configs = all.entry(config.task_id.clone()).or_default();
        let stored = StoredPushConfig { config: config.clone(), version };
        match configs.iter_mut().find(|c| c.config.id == config.id) {
            Some(existing) => *existing = stored,
            None => configs.push(stored),
        }
        Ok(config)
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<StoredPushConfig>> {
        let all = self.configs.lock().expect("push store lock");
        Ok(all.get(task_id).and_then(|c| c.iter().find(|c| c.config.id == config_id)).cloned())
    }

    async fn list(&self, task_id: &str) -> Result<Vec<StoredPushConfig>> {
        Ok(self.configs.lock().expect("push store lock").get(task_id).cloned().unwrap_or_default())
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        let mut all = self.configs.lock().expect("push store lock");
        let Some(configs) = all.get_mut(task_id) else { return Ok(false) };
        let before = configs.len();
        configs.retain(|c| c.config.id != config_id);
        let removed = configs.len() != before;
        if configs.is_empty() {
            all.remove(task_id);
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_task_store_keeps_the_contract() {
        crate::store::testing::task_store_suite(&InMemoryTaskStore::new()).await;
    }

    #[tokio::test]
    async fn the_push_config_store_keeps_the_contract() {
        crate::store::testing::push_config_store_suite(&InMemoryPushConfigStore::new()).await;
    }
}
