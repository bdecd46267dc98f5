//! Counters of what the handler and its task runtimes do that no single call sees, for an
//! operator's metrics:
//! - how often a subscriber fell behind and was resynchronised from a snapshot (the fan-out
//!   policy of the execution module: a subscriber more than the ring behind, or one whose runtime
//!   abandoned a write, reads a fresh `Task` instead of the events it missed). Process-wide
//!   relaxed atomics, bumped only on the resync path (never per event), for every handler of the
//!   process together, like a global allocator's statistics: per-handler plumbing through every
//!   runtime would cost more than the figure is worth;
//! - the agent executor calls in progress, per handler ([`ExecutionKind`],
//!   `DefaultRequestHandler::active_executions`): the handler makes every call, so it counts
//!   them where it makes them, with no wrapper around the executor.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

static RESYNCS: AtomicU64 = AtomicU64::new(0);
static LAGGED_EVENTS: AtomicU64 = AtomicU64::new(0);

/// What subscribers of task runtimes have needed so far, in this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubscriberStats {
    /// Resynchronisations: a subscriber received a `Task` snapshot in place of events it could
    /// not be given (it lagged more than the ring, or a write was abandoned half-way).
    pub resyncs: u64,
    /// Events subscribers missed by lagging, all of them made up for by those snapshots.
    pub lagged_events: u64,
}

/// The counters so far.
pub fn subscriber_stats() -> SubscriberStats {
    SubscriberStats {
        resyncs: RESYNCS.load(Ordering::Relaxed),
        lagged_events: LAGGED_EVENTS.load(Ordering::Relaxed),
    }
}

/// Counts one resync, after `lagged` events were missed (0: an abandoned write).
pub(crate) fn record_resync(lagged: u64) {
    RESYNCS.fetch_add(1, Ordering::Relaxed);
    if lagged > 0 {
        LAGGED_EVENTS.fetch_add(lagged, Ordering::Relaxed);
    }
}

/// What an [`AgentExecutor`](crate::AgentExecutor) call does: the kinds of executions in progress
/// (`DefaultRequestHandler::active_executions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExecutionKind {
    /// `execute`: a message being worked on.
    Execute,
    /// `cancel`: a CancelTask being carried out by the agent.
    Cancel,
    /// `recover`: a task whose execution is gone (a previous run, a stopped replica), being
    /// resolved.
    Recover,
}

impl ExecutionKind {
    /// Every kind.
    pub const ALL: [ExecutionKind; 3] =
        [ExecutionKind::Execute, ExecutionKind::Cancel, ExecutionKind::Recover];

    /// The lowercase name, the executor method it counts (a metric's label value).
    pub fn as_str(self) -> &'static str {
        match self {
            ExecutionKind::Execute => "execute",
            ExecutionKind::Cancel => "cancel",
            ExecutionKind::Recover => "recover",
        }
    }
}

/// One handler's executor calls in progress, per [`ExecutionKind`].
#[derive(Debug, Default)]
pub(crate) struct Executions([AtomicI64; ExecutionKind::ALL.len()]);

impl Executions {
    /// Calls of `kind` in progress now.
    pub(crate) fn active(&self, kind: ExecutionKind) -> i64 {
        self.0[kind as usize].load(Ordering::Relaxed)
    }

    /// Counts one call of `kind` until the guard drops (a return, an error, a panic unwinding,
    /// a dropped future).
    pub(crate) fn running(self: &Arc<Self>, kind: ExecutionKind) -> Running {
        self.0[kind as usize].fetch_add(1, Ordering::Relaxed);
        Running { executions: Arc::clone(self), kind }
    }
}

/// One executor call in progress ([`Executions::running`]).
pub(crate) struct Running {
    executions: Arc<Executions>,
    kind: ExecutionKind,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.executions.0[self.kind as usize].fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resync_counts_once_with_the_events_it_made_up_for() {
        // Other tests of this process may resync meanwhile: compare lower bounds only.
        let before = subscriber_stats();
        record_resync(5);
        record_resync(0);
        let after = subscriber_stats();
        assert!(after.resyncs >= before.resyncs + 2);
        assert!(after.lagged_events >= before.lagged_events + 5);
    }

    #[test]
    fn an_execution_counts_while_its_guard_lives() {
        let executions = Arc::new(Executions::default());
        let execute = executions.running(ExecutionKind::Execute);
        let cancel = executions.running(ExecutionKind::Cancel);
        assert_eq!(executions.active(ExecutionKind::Execute), 1);
        assert_eq!(executions.active(ExecutionKind::Cancel), 1);
        assert_eq!(executions.active(ExecutionKind::Recover), 0);
        drop(execute);
        assert_eq!(executions.active(ExecutionKind::Execute), 0);
        drop(cancel);
        assert_eq!(executions.active(ExecutionKind::Cancel), 0);
    }
}
