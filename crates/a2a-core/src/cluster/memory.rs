//! Replicas inside one process: handlers that share one task store and one
//! [`InMemoryCluster`] behave as replicas of one server. For tests of the replica rules (and of a
//! user's executor under them) without a database; the event log is kept in full.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::v1::{StreamResponse, TaskState};
use async_trait::async_trait;
use tokio::sync::broadcast;

use super::{Cluster, Note, Orphan};
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
    heartbeat_interval: Duration,
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
    /// Replicas that are dead ([`InMemoryCluster::kill`]).
    dead: HashSet<String>,
    /// Replicas whose events are lost ([`InMemoryCluster::lose_events_of`]).
    muted: HashSet<String>,
    /// Running tasks without a runner at the last heartbeat (claimed at the next one if still
    /// so: a task is stored before its first event is published).
    unowned: HashSet<String>,
    next_replica: u64,
}

impl InMemoryCluster {
    /// Replicas sharing `tasks` (the store every replica's handler uses), whose heartbeats are
    /// called every `heartbeat_interval`.
    pub fn new(tasks: Arc<dyn TaskStore>, heartbeat_interval: Duration) -> Self {
        InMemoryCluster {
            shared: Arc::new(Shared {
                tasks,
                notes: broadcast::channel(4096).0,
                heartbeat_interval,
                state: Mutex::new(State::default()),
            }),
        }
    }

    /// A new replica's view of the cluster, for one handler.
    pub fn replica(&self) -> Arc<dyn Cluster> {
        let id = {
            let mut state = self.shared.state.lock().expect("cluster lock");
            state.next_replica += 1;
            format!("replica-{}", state.next_replica)
        };
        Arc::new(Replica { id, shared: Arc::clone(&self.shared) })
    }

    /// Declares a replica dead, as if its process had been killed: its running tasks become
    /// orphans at the next heartbeat of another replica. (Its handler keeps running: stop using
    /// it.)
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

    async fn events_after(
        &self,
        task_id: &str,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, StreamResponse)>> {
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
        let mut shared = self.shared.state.lock().expect("cluster lock");
        if shared.dead.contains(&self.id) {
            return Ok(Vec::new());
        }
        let mut orphans = Vec::new();
        let mut unowned = HashSet::new();
        for (scope, task_id) in running {
            let orphaned = match shared.runners.get(&task_id) {
                Some(runner) => shared.dead.contains(runner),
                None if shared.unowned.contains(&task_id) => true,
                None => {
                    unowned.insert(task_id);
                    continue;
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
        self.shared.heartbeat_interval
    }
}
