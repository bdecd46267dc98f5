//! [`CountedExecutor`]: an [`AgentExecutor`] wrapper that keeps the executions gauge: how many
//! `execute`, `cancel` and `recover` calls are in progress.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use a2a_core::{AgentExecutor, RequestContext, Result, TaskUpdater};
use a2a_proto::v1::Task;
use async_trait::async_trait;

use super::{Counters, ExecutionKind, Metrics};

/// Counts the calls of `inner` in progress.
pub(crate) struct CountedExecutor {
    inner: Arc<dyn AgentExecutor>,
    counters: Arc<Counters>,
}

impl CountedExecutor {
    pub(crate) fn new(inner: Arc<dyn AgentExecutor>, metrics: &Metrics) -> Self {
        CountedExecutor { inner, counters: Arc::clone(metrics.counters()) }
    }

    fn running(&self, kind: ExecutionKind) -> Running<'_> {
        self.counters.execution(kind).fetch_add(1, Ordering::Relaxed);
        Running { counters: &self.counters, kind }
    }
}

/// One call in progress; its drop (a return, an error, a panic unwinding, a cancelled future)
/// ends it in the gauge.
struct Running<'a> {
    counters: &'a Counters,
    kind: ExecutionKind,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.counters.execution(self.kind).fetch_sub(1, Ordering::Relaxed);
    }
}

#[async_trait]
impl AgentExecutor for CountedExecutor {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        let _running = self.running(ExecutionKind::Execute);
        (*self.inner).execute(ctx, updater).await
    }

    async fn cancel(&self, task: Task, updater: TaskUpdater) -> Result<()> {
        let _running = self.running(ExecutionKind::Cancel);
        (*self.inner).cancel(task, updater).await
    }

    async fn recover(&self, task: Task, updater: TaskUpdater) -> Result<()> {
        let _running = self.running(ExecutionKind::Recover);
        (*self.inner).recover(task, updater).await
    }
}
