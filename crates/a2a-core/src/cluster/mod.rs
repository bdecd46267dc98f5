//! Several replicas of one server: what they share besides the stores. The seam is one trait,
//! [`Cluster`], next to the stores; a handler without one is a single server (nothing here runs).
//!
//! A [`Cluster`] does three jobs:
//!
//! - **Event bus.** Each replica stores an event (the store numbers it: the task's `seq`, see
//!   [`crate::store`]), broadcasts it to its own subscribers, then [`Cluster::publish`]es it.
//!   Every replica hears a [`Note::Event`]; one that has subscribers to that task reads the events
//!   it has not seen yet with [`Cluster::events_after`] and hands them to them in `seq` order. A
//!   subscriber therefore gets every event once, in order, whichever replica published it (spec
//!   3.1.6, 3.5.2): it starts from a store snapshot at `seq = n` and skips events `<= n`, exactly
//!   as on one server.
//! - **Gaps are never papered over.** The event log is written after the store commit, not in the
//!   same transaction, so a replica that dies between the two (or a log pruned of old events)
//!   leaves a hole. A replica that sees a hole in the sequence it hands out, from the bus or from
//!   its own writes interleaved with another replica's, tells its subscribers to resynchronise
//!   from a store snapshot, the same lossless path a slow subscriber takes on one server.
//! - **Cancel and liveness.** [`Cluster::request_cancel`] reaches the replica executing a task
//!   (its executor's cancellation token fires). Each replica proves it is alive with
//!   [`Cluster::heartbeat`]; the replica that last published a running (`SUBMITTED` / `WORKING`)
//!   state of a task is its *runner*. When a runner's heartbeat expires, another replica claims
//!   its running tasks (each by exactly one replica) and resolves them by the restart policy
//!   ([`crate::AgentExecutor::recover`]), so a subscriber or a client polling GetTask never waits
//!   for a dead replica forever.
//!
//! Implementations: [`memory::InMemoryCluster`] (replicas inside one process, for tests) and the
//! PostgreSQL one in `a2a-store-sql` (LISTEN/NOTIFY and an event table). Both run the contract
//! as a suite, `testing::cluster_suite` (feature `testing`), as should any other.

pub mod memory;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use std::time::Duration;

use a2a_proto::v1::{stream_response::Payload, StreamResponse, TaskState};
use async_trait::async_trait;
use tokio::sync::broadcast;

use crate::error::Result;
use crate::store::Scope;

/// Logged events of one task with their numbers (`seq`), in order ([`Cluster::events_after`]).
pub type NumberedEvents = Vec<(u64, StreamResponse)>;

/// What one replica tells the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// Events of `task_id` up to `seq` are committed and readable with
    /// [`Cluster::events_after`].
    Event {
        /// The task.
        task_id: String,
        /// Its latest event's sequence number.
        seq: u64,
    },
    /// A client asked to cancel `task_id`: the replica executing it fires the execution's
    /// cancellation token.
    Cancel {
        /// The task.
        task_id: String,
    },
    /// Notes may have been lost (the bus reconnected, or this receiver lagged): every task with
    /// subscribers here must be read again.
    Lost,
}

/// A task whose runner died, claimed by this replica for the restart policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The task's scope, as stored.
    pub scope: Scope,
    /// The task.
    pub task_id: String,
}

/// What replicas of one server share besides the stores (see the [module docs](self)).
#[async_trait]
pub trait Cluster: Send + Sync + 'static {
    /// This replica's id: unique to this process's run.
    fn replica_id(&self) -> &str;

    /// Logs an event this replica stored (and broadcast to its own subscribers) as `seq` of
    /// `task_id`, and tells every replica. `state` is the task's state after it: a running state
    /// makes this replica the task's runner; any other releases the task.
    async fn publish(&self, task_id: &str, seq: u64, event: &StreamResponse, state: TaskState) -> Result<()>;

    /// The logged events of `task_id` numbered after `after`, in order, at most `limit` of them.
    /// Old events may have been pruned and the latest may not be logged yet: the caller checks
    /// the numbers for a gap.
    async fn events_after(&self, task_id: &str, after: u64, limit: usize) -> Result<NumberedEvents>;

    /// Asks every replica to cancel its execution of `task_id` ([`Note::Cancel`]).
    async fn request_cancel(&self, task_id: &str) -> Result<()>;

    /// The notes of every replica, this one's included, from now on.
    fn notes(&self) -> broadcast::Receiver<Note>;

    /// Proves this replica alive, and claims the running tasks whose runner is not (its
    /// heartbeat is older than the cluster's time-to-live): each orphan is returned to exactly
    /// one replica, which becomes its runner. Called every [`heartbeat_interval`]. A replica is
    /// alive from the moment it joins (making the value that implements this trait is its first
    /// heartbeat), so it may publish before its first call here.
    ///
    /// [`heartbeat_interval`]: Cluster::heartbeat_interval
    async fn heartbeat(&self) -> Result<Vec<Orphan>>;

    /// How often [`heartbeat`](Cluster::heartbeat) is called (a fraction of the time-to-live).
    fn heartbeat_interval(&self) -> Duration;
}

/// The task's state after `event`, given the state before it (an artifact update changes none).
pub(crate) fn state_after(event: &StreamResponse, before: TaskState) -> TaskState {
    match &event.payload {
        Some(Payload::Task(task)) => task.state(),
        Some(Payload::StatusUpdate(update)) => update.status.as_ref().map_or(before, |status| status.state()),
        _ => before,
    }
}
