//! The cluster contract as a test suite (feature `testing`): every [`Cluster`] runs it (the
//! in-memory one and PostgreSQL's), and so should one you write on another engine.
//!
//! ```ignore
//! #[tokio::test(flavor = "multi_thread")]
//! async fn my_cluster_keeps_the_contract() {
//!     let store = Arc::new(MyStore::connect(..).await);
//!     let ttl = Duration::from_millis(600);
//!     a2a_core::cluster::testing::cluster_suite(store.clone(), ttl, || async {
//!         Arc::new(MyCluster::join(&store, ttl).await) as Arc<dyn Cluster>
//!     })
//!     .await;
//! }
//! ```
//!
//! `join` makes a new replica on the shared store; `ttl` is the time-to-live the replicas were
//! made with. The suite works with fresh task ids, so it can run on a database that holds data.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_proto::v1::{StreamResponse, TaskState, TaskStatus, TaskStatusUpdateEvent};
use tokio::sync::broadcast;

use super::{Cluster, Note};
use crate::store::testing::task;
use crate::store::{Scope, TaskMutation, TaskStore};

/// Runs every cluster check, in order.
pub async fn cluster_suite<F, Fut>(store: Arc<dyn TaskStore>, ttl: Duration, mut join: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Arc<dyn Cluster>>,
{
    let (a, b, c) = (join().await, join().await, join().await);
    assert!(
        a.replica_id() != b.replica_id() && b.replica_id() != c.replica_id(),
        "every replica has an id of its own"
    );
    events_reach_every_replica_in_order(&store, &a, &b).await;
    cancel_requests_reach_every_replica(&a, &b).await;
    orphans_are_claimed_once_and_live_runners_keep_their_tasks(&store, ttl, &a, &b, &c).await;
}

fn fresh(label: &str) -> String {
    format!("cluster-{label}-{}", a2a_proto::new_id())
}

fn scope() -> Scope {
    Scope { tenant: "cluster-suite".into(), owner: Some("alice".into()) }
}

fn now_ms() -> i64 {
    a2a_proto::Timestamp::now_millis().as_millis()
}

fn status_event(task_id: &str, state: TaskState) -> StreamResponse {
    TaskStatusUpdateEvent {
        task_id: task_id.into(),
        context_id: "ctx".into(),
        status: Some(TaskStatus { state: state.into(), message: None, timestamp: None }),
        metadata: None,
    }
    .into()
}

/// The next note about `task_id` (other tasks' notes and `Lost` are skipped).
async fn next_note(notes: &mut broadcast::Receiver<Note>, task_id: &str) -> Note {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match notes.recv().await {
                Ok(Note::Event { task_id: t, seq }) if t == task_id => {
                    return Note::Event { task_id: t, seq }
                }
                Ok(Note::Cancel { task_id: t }) if t == task_id => return Note::Cancel { task_id: t },
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => panic!("the notes channel closed"),
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no note about {task_id} within 10 s"))
}

/// Published events are announced to every replica, in order, and readable from any replica by
/// `seq`, page by page.
pub async fn events_reach_every_replica_in_order(
    store: &Arc<dyn TaskStore>,
    a: &Arc<dyn Cluster>,
    b: &Arc<dyn Cluster>,
) {
    let id = fresh("events");
    store.create(&scope(), &task(&id, "ctx", TaskState::Submitted, now_ms())).await.unwrap();
    let (mut at_a, mut at_b) = (a.notes(), b.notes());
    let events: Vec<StreamResponse> = [TaskState::Submitted, TaskState::Working, TaskState::Working]
        .iter()
        .map(|state| status_event(&id, *state))
        .collect();
    for (i, event) in events.iter().enumerate() {
        a.publish(&id, i as u64 + 1, event, TaskState::Working).await.unwrap();
    }
    for notes in [&mut at_a, &mut at_b] {
        for seq in 1..=3 {
            assert_eq!(next_note(notes, &id).await, Note::Event { task_id: id.clone(), seq }, "in order");
        }
    }
    let all = b.events_after(&id, 0, 10).await.unwrap();
    let expected: Vec<(u64, StreamResponse)> = (1..=3).zip(events.iter().cloned()).collect();
    assert_eq!(all, expected, "every event, by seq, as published");
    assert_eq!(
        b.events_after(&id, 1, 1).await.unwrap(),
        vec![(2, events[1].clone())],
        "after 1, one at most"
    );
    assert!(b.events_after(&id, 3, 10).await.unwrap().is_empty(), "nothing after the last");
    assert!(b.events_after(&fresh("none"), 0, 10).await.unwrap().is_empty(), "an unknown task has none");
}

/// A cancel request reaches every replica, the requester's included.
pub async fn cancel_requests_reach_every_replica(a: &Arc<dyn Cluster>, b: &Arc<dyn Cluster>) {
    let id = fresh("cancel");
    let (mut at_a, mut at_b) = (a.notes(), b.notes());
    b.request_cancel(&id).await.unwrap();
    for notes in [&mut at_a, &mut at_b] {
        assert_eq!(next_note(notes, &id).await, Note::Cancel { task_id: id.clone() });
    }
}

/// A running task whose runner has no live heartbeat is claimed by exactly one of the replicas
/// that heartbeat, and so is one that never got a runner once it is older than the
/// time-to-live; a live runner's task and a finished task are never claimed.
pub async fn orphans_are_claimed_once_and_live_runners_keep_their_tasks(
    store: &Arc<dyn TaskStore>,
    ttl: Duration,
    dead: &Arc<dyn Cluster>,
    b: &Arc<dyn Cluster>,
    c: &Arc<dyn Cluster>,
) {
    let (orphan, live, finished, unowned) =
        (fresh("orphan"), fresh("live"), fresh("finished"), fresh("unowned"));
    for id in [&orphan, &live, &finished, &unowned] {
        store.create(&scope(), &task(id, "ctx", TaskState::Working, now_ms())).await.unwrap();
    }
    // `dead` stops heartbeating once it has joined: after one time-to-live its task is an
    // orphan. `b` runs `live` and heartbeats; it publishes before its first heartbeat call (a
    // replica is alive from when it joins).
    dead.publish(&orphan, 2, &status_event(&orphan, TaskState::Working), TaskState::Working).await.unwrap();
    b.publish(&live, 2, &status_event(&live, TaskState::Working), TaskState::Working).await.unwrap();
    dead.publish(&finished, 2, &status_event(&finished, TaskState::Working), TaskState::Working)
        .await
        .unwrap();
    let completed = TaskStatus { state: TaskState::Completed.into(), message: None, timestamp: None };
    store.apply(&finished, TaskMutation::Status(&completed)).await.unwrap();
    dead.publish(&finished, 3, &status_event(&finished, TaskState::Completed), TaskState::Completed)
        .await
        .unwrap();

    let mut claims: HashMap<String, Vec<String>> = HashMap::new();
    let started = Instant::now();
    // Heartbeat both live replicas concurrently for three lifetimes.
    while started.elapsed() < ttl * 3 {
        let (from_b, from_c) = tokio::join!(b.heartbeat(), c.heartbeat());
        for (replica, orphans) in [(b, from_b.unwrap()), (c, from_c.unwrap())] {
            for claimed in orphans {
                if [&orphan, &live, &finished, &unowned].contains(&&claimed.task_id) {
                    assert_eq!(claimed.scope, scope(), "an orphan comes with its stored scope");
                    claims.entry(claimed.task_id).or_default().push(replica.replica_id().to_owned());
                }
            }
        }
        if started.elapsed() < ttl / 2 {
            assert!(
                !claims.contains_key(&unowned),
                "a task without a runner is given the time-to-live first"
            );
            assert!(!claims.contains_key(&orphan), "a replica is alive for one time-to-live after it joined");
        }
        tokio::time::sleep(ttl / 6).await;
    }
    assert_eq!(
        claims.get(&orphan).map(Vec::len),
        Some(1),
        "a dead runner's task is claimed once: {claims:?}"
    );
    assert_eq!(
        claims.get(&unowned).map(Vec::len),
        Some(1),
        "so is a running task without a runner: {claims:?}"
    );
    assert!(!claims.contains_key(&live), "a live runner keeps its task: {claims:?}");
    assert!(!claims.contains_key(&finished), "a finished task is nobody's orphan: {claims:?}");
}
