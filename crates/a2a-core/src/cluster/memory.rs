//! Replicas inside one process: handlers that share one task store and one
//! [`InMemoryCluster`] behave as replicas of one server. For tests of the replica rules (and of a
//! user's executor under them) without a database; the event log is kept in full.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_proto::v1::{StreamResponse, TaskState};
use async_trait::async_trait;
use tokio::sync::broadcast;

use super::{Cluster, Note, NumberedEvents, Orphan};
use crate::error::Result;
use crate::store::TaskStore;

/// The shared side of in-process replicas: make one per "deployment", then one
/// [`replica`](InMemoryCluster::replica) per handler.
#[derive(Debug, Clone)]
pub struct InMemoryCluster {
    shared: Arc<Shared>,
}

struct Shared {
    tasks: Arc<dyn TaskStore>,
    notes: broadcast::Sender<Note>,
    ttl: Duration,
    state: Mutex<State>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").finish_non_exhaustive()
    }
}

#[derive(Default)]
struct State {
    events: HashMap<String, BTreeMap<u64, StreamResponse>>,
    /// The runner of each running task.
    runners: HashMap<String, String>,
    /// Each replica's last heartbeat.
    heartbeats: HashMap<String, Instant>,
    /// Replicas that are dead ([`InMemoryCluster::kill`]).
    dead: HashSet<String>,
    /// Replicas whose events are lost ([`InMemoryCluster::lose_events_of`]).
    muted: HashSet<String>,
    /// Running tasks without a runner, since when they were first seen so (claimed once that
    /// is older than the time-to-live: a task is stored before its first event is published).
    unowned: HashMap<String, Instant>,
    next_replica: u64,
}

impl InMemoryCluster {
    /// Replicas sharing `tasks` (the store every replica's handler uses). A replica whose last
    /// heartbeat is older than `ttl` is dead; heartbeats are sent every third of it.
    pub fn new(tasks: Arc<dyn TaskStore>, ttl: Duration) -> Self {
        InMemoryCluster {
            shared: Arc::new(Shared {
                tasks,
                notes: broadcast::channel(4096).0,
                ttl,
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// A new replica's view of the cluster, for one handler.
    pub fn replica(&self) -> Arc<dyn Cluster> {
        let id = {
            let mut state = self.shared.state.lock().expect("cluster lock");
            state.next_replica += 1;
            let id = format!("replica-{}", state.next_replica);
            // Joining is the first heartbeat.
            state.heartbeats.insert(id.clone(), Instant::now());
            id
        };
        Arc::new(Replica { id, shared: Arc::clone(&self.shared) })
    }

    /// Declares a replica dead at once, as if its process had been killed and its time-to-live
    /// had passed: its running tasks become orphans at the next heartbeat of another replica,
    /// and its events reach no one. (Its handler keeps running: stop using it.)
    pub fn kill(&self, replica_id: &str) {
        let mut state = self.shared.state.lock().expect("cluster lock");
        state.dead.insert(replica_id.to_owned());
        state.muted.insert(replica_id.to_owned());
    }

    /// From now on the events a replica publishes are lost, as when a replica dies between a
    /// store commit and its event log write: the other replicas' subscribers must see a gap.
    pub fn lose_events_of(&self, replica_id: &str) {
        self.shared.state.lock().expect("cluster lock").muted.insert(replica_id.to_owned());
    }
}

struct Replica {
    id: String,
    shared: Arc<Shared>,
}

#[async_trait]
impl Cluster for Replica {
    fn replica_id(&self) -> &str {
        &self.id
    }

    async fn publish(&self, task_id: &str, seq: u64, event: &StreamResponse, state: TaskState) -> Result<()> {
        {
            let mut shared = self.shared.state.lock().expect("cluster lock");
            if shared.muted.contains(&self.id) {
                // A dead replica's writes no longer reach anyone.
                return Ok(());
            }
            shared.events.entry(task_id.to_owned()).or_default().insert(seq, event.clone());
            if state.is_running() {
                shared.runners.insert(task_id.to_owned(), self.id.clone());
            } else {
                shared.runners.remove(task_id);
            }
        }
        let _ = self.shared.notes.send(Note::Event { task_id: task_id.to_owned(), seq });
        Ok(())
    }

    async fn events_after(&self, task_id: &str, after: u64, limit: usize) -> Result<NumberedEvents> {
        let shared = self.shared.state.lock().expect("cluster lock");
        Ok(shared.events.get(task_id).map_or_else(Vec::new, |events| {
            events.range(after + 1..).take(limit).map(|(seq, event)| (*seq, event.clone())).collect()
        }))
    }

    async fn request_cancel(&self, task_id: &str) -> Result<()> {
        let _ = self.shared.notes.send(Note::Cancel { task_id: task_id.to_owned() });
        Ok(())
    }

    fn notes(&self) -> broadcast::Receiver<Note> {
        self.shared.notes.subscribe()
    }

    async fn heartbeat(&self) -> Result<Vec<Orphan>> {
        let running = self.shared.tasks.running().await?;
        let now = Instant::now();
        let ttl = self.shared.ttl;
        let mut shared = self.shared.state.lock().expect("cluster lock");
        if shared.dead.contains(&self.id) {
            return Ok(Vec::new());
        }
        shared.heartbeats.insert(self.id.clone(), now);
        let alive = |shared: &State, replica: &str| {
            !shared.dead.contains(replica)
                && shared.heartbeats.get(replica).is_some_and(|at| now.duration_since(*at) < ttl)
        };
        let mut orphans = Vec::new();
        let mut unowned = HashMap::new();
        for (scope, task_id) in running {
            let orphaned = match shared.runners.get(&task_id) {
                Some(runner) => !alive(&shared, runner),
                None => {
                    let since = shared.unowned.get(&task_id).copied().unwrap_or(now);
                    let orphaned = now.duration_since(since) >= ttl;
                    if !orphaned {
                        unowned.insert(task_id.clone(), since);
                    }
                    orphaned
                }
            };
            if orphaned {
                shared.runners.insert(task_id.clone(), self.id.clone());
                orphans.push(Orphan { scope, task_id });
            }
        }
        shared.unowned = unowned;
        Ok(orphans)
    }

    fn heartbeat_interval(&self) -> Duration {
        self.shared.ttl / 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::memory::InMemoryTaskStore;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn keeps_the_cluster_contract() {
        let store = Arc::new(InMemoryTaskStore::new());
        let ttl = Duration::from_millis(300);
        let cluster = InMemoryCluster::new(store.clone(), ttl);
        crate::cluster::testing::cluster_suite(store, ttl, || {
            let replica = cluster.replica();
            async move { replica }
        })
        .await;
    }
}
