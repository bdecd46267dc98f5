//! In-memory stores: the defaults of the reference server (no external service needed).
//!
//! Tasks are indexed per scope by `(status timestamp, id)`, and within a scope by context and by
//! state, so GetTask is a hash lookup and a ListTasks page costs O(log n + page) whatever the
//! number of stored tasks (one filter), independent of other scopes' tasks.

use std::collections::{BTreeSet, HashMap};
use std::sync::RwLock;

use a2a_proto::v1::{Task, TaskPushNotificationConfig};
use async_trait::async_trait;

use super::{Cursor, PushConfigStore, Scope, TaskMutation, TaskPage, TaskQuery, TaskStore, TaskView};
use crate::error::{Error, Result};
use crate::lifecycle::apply_mutation;

/// A [`TaskStore`] in process memory.
#[derive(Debug, Default)]
pub struct InMemoryTaskStore {
    inner: RwLock<Tasks>,
}

#[derive(Debug, Default)]
struct Tasks {
    by_id: HashMap<String, Entry>,
    scopes: HashMap<Scope, ScopeIndex>,
}

#[derive(Debug)]
struct Entry {
    task: Task,
    scope: Scope,
    key: Cursor,
}

#[derive(Debug, Default)]
struct ScopeIndex {
    all: BTreeSet<Cursor>,
    by_context: HashMap<String, BTreeSet<Cursor>>,
    by_state: HashMap<i32, BTreeSet<Cursor>>,
}

impl ScopeIndex {
    fn insert(&mut self, task: &Task, key: &Cursor) {
        self.all.insert(key.clone());
        self.by_context.entry(task.context_id.clone()).or_default().insert(key.clone());
        self.by_state.entry(state_of(task)).or_default().insert(key.clone());
    }

    fn remove(&mut self, task: &Task, key: &Cursor) {
        self.all.remove(key);
        if let Some(set) = self.by_context.get_mut(&task.context_id) {
            set.remove(key);
            if set.is_empty() {
                self.by_context.remove(&task.context_id);
            }
        }
        let state = state_of(task);
        if let Some(set) = self.by_state.get_mut(&state) {
            set.remove(key);
            if set.is_empty() {
                self.by_state.remove(&state);
            }
        }
    }
}

fn state_of(task: &Task) -> i32 {
    task.status.as_ref().map_or(0, |s| s.state)
}

/// The sort key of a task: its status timestamp in milliseconds, then its id.
pub(crate) fn sort_key(task: &Task) -> Cursor {
    let updated_ms =
        task.status.as_ref().and_then(|s| s.timestamp.as_ref()).map_or(0, a2a_proto::Timestamp::as_millis);
    Cursor { updated_ms, task_id: task.id.clone() }
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks are stored.
    pub fn len(&self) -> usize {
        self.inner.read().expect("task store lock").by_id.len()
    }

    /// Whether no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn visible(entry_scope: &Scope, caller: &Scope) -> bool {
    entry_scope.tenant == caller.tenant && (entry_scope.owner.is_none() || entry_scope.owner == caller.owner)
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn create(&self, scope: &Scope, task: Task) -> Result<()> {
        let mut inner = self.inner.write().expect("task store lock");
        if inner.by_id.contains_key(&task.id) {
            return Err(Error::internal(format!("task {} already exists", task.id)));
        }
        let key = sort_key(&task);
        inner.scopes.entry(scope.clone()).or_default().insert(&task, &key);
        inner.by_id.insert(task.id.clone(), Entry { task, scope: scope.clone(), key });
        Ok(())
    }

    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<()> {
        let mut inner = self.inner.write().expect("task store lock");
        let Tasks { by_id, scopes } = &mut *inner;
        let entry = by_id.get_mut(task_id).ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
        if let TaskMutation::Status(_) = mutation {
            // The sort key and the state index change: reindex around the mutation.
            let index = scopes.entry(entry.scope.clone()).or_default();
            index.remove(&entry.task, &entry.key);
            apply_mutation(&mut entry.task, mutation);
            entry.key = sort_key(&entry.task);
            index.insert(&entry.task, &entry.key);
        } else {
            apply_mutation(&mut entry.task, mutation);
        }
        Ok(())
    }

    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<Task>> {
        let inner = self.inner.read().expect("task store lock");
        Ok(inner.by_id.get(task_id).filter(|e| visible(&e.scope, scope)).map(|e| view.project(&e.task)))
    }

    async fn scope_of(&self, task_id: &str) -> Result<Option<Scope>> {
        let inner = self.inner.read().expect("task store lock");
        Ok(inner.by_id.get(task_id).map(|e| e.scope.clone()))
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
        let inner = self.inner.read().expect("task store lock");
        // Tasks of the caller's scope plus, for an authenticated caller, the tenant's unowned ones.
        let mut sources: Vec<&ScopeIndex> = Vec::new();
        if let Some(index) = inner.scopes.get(scope) {
            sources.push(index);
        }
        if scope.owner.is_some() {
            let shared = Scope { tenant: scope.tenant.clone(), owner: None };
            if let Some(index) = inner.scopes.get(&shared) {
                sources.push(index);
            }
        }
        let empty = BTreeSet::new();
        let candidate_sets: Vec<&BTreeSet<Cursor>> = sources
            .iter()
            .map(|index| match (&query.context_id, query.state) {
                (Some(context), _) => index.by_context.get(context).unwrap_or(&empty),
                (None, Some(state)) => index.by_state.get(&(state as i32)).unwrap_or(&empty),
                (None, None) => &index.all,
            })
            .collect();
        let matches = |key: &Cursor| -> bool {
            let entry = &inner.by_id[&key.task_id];
            query.state.is_none_or(|s| state_of(&entry.task) == s as i32)
                && query.context_id.as_ref().is_none_or(|c| &entry.task.context_id == c)
                && query.updated_at_or_after_ms.is_none_or(|t| key.updated_ms >= t)
        };
        // A single source with at most one filter has an exact size; otherwise count the matches.
        let simple = candidate_sets.len() == 1
            && query.updated_at_or_after_ms.is_none()
            && !(query.context_id.is_some() && query.state.is_some());
        let total_size = if simple {
            candidate_sets[0].len()
        } else {
            candidate_sets.iter().map(|set| set.iter().filter(|k| matches(k)).count()).sum()
        };

        // Merge the (usually one) descending iterators, starting after the cursor.
        let mut iterators: Vec<_> = candidate_sets
            .iter()
            .map(|set| {
                let range = match &query.after {
                    Some(after) => set.range(..after.clone()),
                    None => set.range(..),
                };
                range.rev().filter(|k| matches(k)).peekable()
            })
            .collect();
        let mut keys = Vec::with_capacity(query.page_size + 1);
        while keys.len() <= query.page_size {
            let next = iterators
                .iter_mut()
                .enumerate()
                .filter_map(|(i, it)| it.peek().map(|k| (i, *k)))
                .max_by(|a, b| a.1.cmp(b.1));
            let Some((i, _)) = next else { break };
            keys.push(iterators[i].next().expect("peeked").clone());
        }
        let more = keys.len() > query.page_size;
        keys.truncate(query.page_size);
        let next = if more { keys.last().cloned() } else { None };
        let tasks = keys.iter().map(|k| query.view.project(&inner.by_id[&k.task_id].task)).collect();
        Ok(TaskPage { tasks, next, total_size })
    }
}

/// A [`PushConfigStore`] in process memory.
#[derive(Debug, Default)]
pub struct InMemoryPushConfigStore {
    inner: RwLock<HashMap<String, Vec<TaskPushNotificationConfig>>>,
}

impl InMemoryPushConfigStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl PushConfigStore for InMemoryPushConfigStore {
    async fn put(&self, config: TaskPushNotificationConfig) -> Result<TaskPushNotificationConfig> {
        let mut inner = self.inner.write().expect("push store lock");
        let configs = inner.entry(config.task_id.clone()).or_default();
        match configs.iter_mut().find(|c| c.id == config.id) {
            Some(existing) => *existing = config.clone(),
            None => configs.push(config.clone()),
        }
        Ok(config)
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<TaskPushNotificationConfig>> {
        let inner = self.inner.read().expect("push store lock");
        Ok(inner.get(task_id).and_then(|c| c.iter().find(|c| c.id == config_id)).cloned())
    }

    async fn list(&self, task_id: &str) -> Result<Vec<TaskPushNotificationConfig>> {
        Ok(self.inner.read().expect("push store lock").get(task_id).cloned().unwrap_or_default())
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        let mut inner = self.inner.write().expect("push store lock");
        let Some(configs) = inner.get_mut(task_id) else { return Ok(false) };
        let before = configs.len();
        configs.retain(|c| c.id != config_id);
        let removed = configs.len() != before;
        if configs.is_empty() {
            inner.remove(task_id);
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{TaskState, TaskStatus};
    use a2a_proto::Timestamp;

    fn task(id: &str, context: &str, state: TaskState, ms: i64) -> Task {
        Task {
            id: id.into(),
            context_id: context.into(),
            status: Some(TaskStatus {
                state: state.into(),
                message: None,
                timestamp: Some(Timestamp { seconds: ms / 1000, nanos: ((ms % 1000) * 1_000_000) as i32 }),
            }),
            ..Default::default()
        }
    }

    fn query(page_size: usize) -> TaskQuery {
        TaskQuery {
            context_id: None,
            state: None,
            updated_at_or_after_ms: None,
            page_size,
            after: None,
            view: TaskView::FULL,
        }
    }

    fn ids(page: &TaskPage) -> Vec<&str> {
        page.tasks.iter().map(|t| t.id.as_str()).collect()
    }

    #[tokio::test]
    async fn pages_are_newest_first_and_cursors_stay_stable_under_concurrent_inserts() {
        let store = InMemoryTaskStore::new();
        let scope = Scope::default();
        for i in 0..5 {
            store.create(&scope, task(&format!("t{i}"), "c", TaskState::Working, 1000 + i)).await.unwrap();
        }
        let first = store.list(&scope, &query(2)).await.unwrap();
        assert_eq!(ids(&first), ["t4", "t3"]);
        assert_eq!(first.total_size, 5);
        // A task created between two page requests is newer: it must not shift later pages.
        store.create(&scope, task("new", "c", TaskState::Working, 5000)).await.unwrap();
        let second = store.list(&scope, &TaskQuery { after: first.next.clone(), ..query(2) }).await.unwrap();
        assert_eq!(ids(&second), ["t2", "t1"]);
        let third = store.list(&scope, &TaskQuery { after: second.next.clone(), ..query(2) }).await.unwrap();
        assert_eq!(ids(&third), ["t0"]);
        assert!(third.next.is_none(), "last page has no cursor");
    }

    #[tokio::test]
    async fn filters_combine_and_count_all_matches() {
        let store = InMemoryTaskStore::new();
        let scope = Scope::default();
        store.create(&scope, task("a", "c1", TaskState::Working, 1)).await.unwrap();
        store.create(&scope, task("b", "c1", TaskState::Completed, 2)).await.unwrap();
        store.create(&scope, task("c", "c2", TaskState::Working, 3)).await.unwrap();
        let by_context =
            store.list(&scope, &TaskQuery { context_id: Some("c1".into()), ..query(10) }).await.unwrap();
        assert_eq!(ids(&by_context), ["b", "a"]);
        let by_state =
            store.list(&scope, &TaskQuery { state: Some(TaskState::Working), ..query(10) }).await.unwrap();
        assert_eq!(ids(&by_state), ["c", "a"]);
        let both = store
            .list(
                &scope,
                &TaskQuery { context_id: Some("c1".into()), state: Some(TaskState::Working), ..query(10) },
            )
            .await
            .unwrap();
        assert_eq!((ids(&both), both.total_size), (vec!["a"], 1));
        let recent =
            store.list(&scope, &TaskQuery { updated_at_or_after_ms: Some(2), ..query(10) }).await.unwrap();
        assert_eq!((ids(&recent), recent.total_size), (vec!["c", "b"], 2));
    }

    #[tokio::test]
    async fn a_status_update_moves_the_task_to_the_front_and_reindexes_its_state() {
        let store = InMemoryTaskStore::new();
        let scope = Scope::default();
        store.create(&scope, task("a", "c", TaskState::Working, 1)).await.unwrap();
        store.create(&scope, task("b", "c", TaskState::Working, 2)).await.unwrap();
        let done = task("a", "c", TaskState::Completed, 3).status.unwrap();
        store.apply("a", TaskMutation::Status(&done)).await.unwrap();
        assert_eq!(ids(&store.list(&scope, &query(10)).await.unwrap()), ["a", "b"]);
        let working =
            store.list(&scope, &TaskQuery { state: Some(TaskState::Working), ..query(10) }).await.unwrap();
        assert_eq!(ids(&working), ["b"]);
    }

    #[tokio::test]
    async fn scopes_isolate_tenants_and_owners() {
        let store = InMemoryTaskStore::new();
        let alice = Scope { tenant: "t".into(), owner: Some("alice".into()) };
        let bob = Scope { tenant: "t".into(), owner: Some("bob".into()) };
        let anonymous = Scope { tenant: "t".into(), owner: None };
        store.create(&alice, task("a", "c", TaskState::Working, 1)).await.unwrap();
        store.create(&anonymous, task("shared", "c", TaskState::Working, 2)).await.unwrap();
        assert!(store.get(&bob, "a", TaskView::FULL).await.unwrap().is_none());
        assert!(store.get(&alice, "a", TaskView::FULL).await.unwrap().is_some());
        assert!(store.get(&Scope::default(), "a", TaskView::FULL).await.unwrap().is_none(), "other tenant");
        assert_eq!(ids(&store.list(&bob, &query(10)).await.unwrap()), ["shared"]);
        assert_eq!(ids(&store.list(&alice, &query(10)).await.unwrap()), ["shared", "a"]);
    }

    #[tokio::test]
    async fn views_limit_history_and_omit_artifacts() {
        let store = InMemoryTaskStore::new();
        let mut t = task("a", "c", TaskState::Working, 1);
        t.history = (0..5).map(|i| a2a_proto::v1::Message::user_text(i.to_string())).collect();
        t.artifacts.push(a2a_proto::v1::Artifact::new(vec![a2a_proto::v1::Part::text("x")]));
        store.create(&Scope::default(), t).await.unwrap();
        let view = TaskView { history_length: Some(2), include_artifacts: false };
        let got = store.get(&Scope::default(), "a", view).await.unwrap().unwrap();
        assert_eq!(got.history.iter().map(|m| m.text()).collect::<Vec<_>>(), ["3", "4"]);
        assert!(got.artifacts.is_empty());
        let none = TaskView { history_length: Some(0), include_artifacts: true };
        assert!(store.get(&Scope::default(), "a", none).await.unwrap().unwrap().history.is_empty());
    }

    #[tokio::test]
    async fn push_configs_are_replaced_by_id_and_deleted_idempotently() {
        let store = InMemoryPushConfigStore::new();
        let config = |id: &str, url: &str| TaskPushNotificationConfig {
            id: id.into(),
            task_id: "t".into(),
            url: url.into(),
            ..Default::default()
        };
        store.put(config("1", "http://a")).await.unwrap();
        store.put(config("2", "http://b")).await.unwrap();
        store.put(config("1", "http://c")).await.unwrap();
        let all = store.list("t").await.unwrap();
        assert_eq!(all.iter().map(|c| c.url.as_str()).collect::<Vec<_>>(), ["http://c", "http://b"]);
        assert!(store.delete("t", "1").await.unwrap());
        assert!(!store.delete("t", "1").await.unwrap());
        assert!(store.get("t", "1").await.unwrap().is_none());
    }
}
