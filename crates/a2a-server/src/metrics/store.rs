//! [`TimedTaskStore`] and [`TimedPushConfigStore`]: store wrappers that time every call and count
//! the calls that fail because the backend failed. Every method is forwarded, the ones with
//! defaults too, so a backend's own `create_and_apply`, `create_with_burst` and `apply_burst` (one
//! transaction each) and its push outbox stay in use. (Not the deprecated `create_and_apply_all`
//! and `apply_all`: only those two methods' defaults call them.)

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use a2a_core::push::PushOutbox;
use a2a_core::store::{
    Burst, PushConfigStore, Scope, StoredPushConfig, StoredTask, TaskMutation, TaskPage, TaskQuery,
    TaskStore, TaskView,
};
use a2a_core::{Error, ProtocolVersion, Result};
use a2a_proto::v1::{Task, TaskPushNotificationConfig};
use async_trait::async_trait;

use super::{Counters, Metrics, StoreOperation};

async fn timed<T>(
    counters: &Counters,
    operation: StoreOperation,
    call: impl Future<Output = Result<T>>,
) -> Result<T> {
    let started = Instant::now();
    let result = call.await;
    // An A2A error (a refused transition, a missing task) is the store keeping its contract;
    // only an internal error says the backend failed.
    let failed = matches!(result, Err(Error::Internal { .. }));
    counters.store_done(operation, started.elapsed(), failed);
    result
}

/// Times the calls of a task store.
pub(crate) struct TimedTaskStore {
    inner: Arc<dyn TaskStore>,
    counters: Arc<Counters>,
}

impl TimedTaskStore {
    pub(crate) fn new(inner: Arc<dyn TaskStore>, metrics: &Metrics) -> Self {
        TimedTaskStore { inner, counters: Arc::clone(metrics.counters()) }
    }
}

#[async_trait]
impl TaskStore for TimedTaskStore {
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
        timed(&self.counters, StoreOperation::Create, self.inner.create(scope, task)).await
    }

    async fn create_and_apply(&self, scope: &Scope, task: &Task, first: TaskMutation<'_>) -> Result<u64> {
        let call = self.inner.create_and_apply(scope, task, first);
        timed(&self.counters, StoreOperation::CreateAndApply, call).await
    }

    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
        timed(&self.counters, StoreOperation::Apply, self.inner.apply(task_id, mutation)).await
    }

    async fn create_with_burst(&self, scope: &Scope, task: &Task, burst: Burst<'_>) -> Result<u64> {
        let call = self.inner.create_with_burst(scope, task, burst);
        timed(&self.counters, StoreOperation::CreateAndApplyAll, call).await
    }

    async fn apply_burst(&self, scope: &Scope, task_id: &str, burst: Burst<'_>) -> Result<u64> {
        timed(&self.counters, StoreOperation::ApplyAll, self.inner.apply_burst(scope, task_id, burst)).await
    }

    /// The backend's own outbox, untimed (its calls are the push pump's, not a request's).
    fn outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        self.inner.outbox()
    }

    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>> {
        timed(&self.counters, StoreOperation::Get, self.inner.get(scope, task_id, view)).await
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
        timed(&self.counters, StoreOperation::List, self.inner.list(scope, query)).await
    }

    async fn running(&self) -> Result<Vec<(Scope, String)>> {
        timed(&self.counters, StoreOperation::Running, self.inner.running()).await
    }

    async fn ping(&self) -> Result<()> {
        timed(&self.counters, StoreOperation::Ping, self.inner.ping()).await
    }
}

/// Times the calls of a push config store.
pub(crate) struct TimedPushConfigStore {
    inner: Arc<dyn PushConfigStore>,
    counters: Arc<Counters>,
}

impl TimedPushConfigStore {
    pub(crate) fn new(inner: Arc<dyn PushConfigStore>, metrics: &Metrics) -> Self {
        TimedPushConfigStore { inner, counters: Arc::clone(metrics.counters()) }
    }
}

#[async_trait]
impl PushConfigStore for TimedPushConfigStore {
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig> {
        timed(&self.counters, StoreOperation::PushConfigPut, self.inner.put(config, version)).await
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<StoredPushConfig>> {
        timed(&self.counters, StoreOperation::PushConfigGet, self.inner.get(task_id, config_id)).await
    }

    async fn list(&self, task_id: &str) -> Result<Vec<StoredPushConfig>> {
        timed(&self.counters, StoreOperation::PushConfigList, self.inner.list(task_id)).await
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        timed(&self.counters, StoreOperation::PushConfigDelete, self.inner.delete(task_id, config_id)).await
    }
}
