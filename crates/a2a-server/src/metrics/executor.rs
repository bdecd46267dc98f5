//! [`CountedExecutor`]: an [`AgentExecutor`] wrapper that keeps the executions gauge: how many
//! `execute`, `cancel` and `recover` calls are in progress.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use a2a_core::service::Call;
use a2a_core::{AgentExecutor, RequestContext, TaskUpdater};
use a2a_proto::v1::Task;

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

impl CountedExecutor {
    /// `call` (the inner executor's future, which does nothing until polled), counted from its
    /// first poll to its end. Written out rather than with `#[async_trait]`: that would move the
    /// request context into a future of its own first, to hand it on at the first poll; here it
    /// goes straight into the inner executor's future, and this one holds only that.
    fn counted<'a>(&'a self, kind: ExecutionKind, call: Call<'a, ()>) -> Call<'a, ()> {
        Box::pin(async move {
            let _running = self.running(kind);
            call.await
        })
    }
}

impl AgentExecutor for CountedExecutor {
    fn execute<'life0, 'async_trait>(
        &'life0 self,
        ctx: RequestContext,
        updater: TaskUpdater,
    ) -> Call<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        self.counted(ExecutionKind::Execute, self.inner.execute(ctx, updater))
    }

    fn cancel<'life0, 'async_trait>(&'life0 self, task: Task, updater: TaskUpdater) -> Call<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        self.counted(ExecutionKind::Cancel, self.inner.cancel(task, updater))
    }

    fn recover<'life0, 'async_trait>(&'life0 self, task: Task, updater: TaskUpdater) -> Call<'async_trait, ()>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        self.counted(ExecutionKind::Recover, self.inner.recover(task, updater))
    }
}
