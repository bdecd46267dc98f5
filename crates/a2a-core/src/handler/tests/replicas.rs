//! Several replicas in one process: handlers sharing one store and one
//! [`InMemoryCluster`](crate::cluster::memory::InMemoryCluster). The rules of `crate::cluster`:
//! a subscriber anywhere gets every event once and in order, CancelTask anywhere reaches the
//! execution, and a dead replica's running tasks are resolved by exactly one other replica.

use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;

use super::*;
use crate::cluster::memory::InMemoryCluster;
use crate::store::memory::InMemoryTaskStore;

/// What the replicas' executors saw, shared by all of them.
#[derive(Default)]
struct Probe {
    /// Lets a `hold` execution publish its artifact.
    go: Notify,
    /// Executions whose cancellation token fired.
    cancelled: AtomicUsize,
    /// Tasks handed to `recover`.
    recovered: AtomicUsize,
}

struct Replicated(Arc<Probe>);

#[async_trait]
impl AgentExecutor for Replicated {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        let text = ctx.message.text();
        let mut words = text.split_whitespace();
        match words.next().unwrap_or("") {
            // `tick N`: N chunks of one artifact, 10 ms apart, then COMPLETED.
            "tick" => {
                let n: usize = words.next().and_then(|w| w.parse().ok()).unwrap_or(10);
                updater.start_work(None).await?;
                for i in 0..n {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    let chunk = Artifact {
                        artifact_id: "ticks".into(),
                        parts: vec![Part::text(i.to_string())],
                        ..Default::default()
                    };
                    updater.artifact_update(chunk, i > 0, i + 1 == n).await?;
                }
                updater.complete(None).await
            }
            // `hold`: WORKING; an artifact when the probe says go; then until canceled.
            "hold" => {
                updater.start_work(None).await?;
                tokio::select! {
                    () = self.0.go.notified() => {
                        updater.add_artifact(Artifact::new(vec![Part::text("late")])).await?;
                        updater.cancelled().await;
                    }
                    () = updater.cancelled() => {}
                }
                self.0.cancelled.fetch_add(1, Ordering::SeqCst);
                Ok(())
            }
            other => Err(Error::internal(format!("unknown script {other:?}"))),
        }
    }

    async fn recover(&self, _task: Task, updater: TaskUpdater) -> Result<()> {
        self.0.recovered.fetch_add(1, Ordering::SeqCst);
        updater.fail(Some(updater.agent_text(crate::executor::RESTARTED))).await
    }
}

struct Replicas {
    cluster: InMemoryCluster,
    handlers: Vec<DefaultRequestHandler>,
    ids: Vec<String>,
    probe: Arc<Probe>,
}

/// `n` replicas, each with its heartbeat running (a time-to-live of 300 ms: long enough that a
/// busy test machine never makes a live replica look dead).
async fn replicas(n: usize) -> Replicas {
    let store = Arc::new(InMemoryTaskStore::new());
    let cluster = InMemoryCluster::new(store.clone(), Duration::from_millis(300));
    let probe = Arc::new(Probe::default());
    let mut handlers = Vec::new();
    let mut ids = Vec::new();
    for _ in 0..n {
        let replica = cluster.replica();
        ids.push(replica.replica_id().to_owned());
        let handler = DefaultRequestHandler::builder(card(true, false), Replicated(Arc::clone(&probe)))
            .task_store(store.clone())
            .cluster(replica)
            .build()
            .unwrap();
        assert_eq!(handler.recover().await.unwrap(), 0);
        handlers.push(handler);
    }
    Replicas { cluster, handlers, ids, probe }
}

fn subscribe(task: &Task) -> SubscribeToTaskRequest {
    SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() }
}

fn get(task: &Task) -> GetTaskRequest {
    GetTaskRequest { id: task.id.clone(), ..Default::default() }
}

/// Sends `text` and returns the task as soon as it exists (returnImmediately).
async fn start(h: &DefaultRequestHandler, text: &str) -> Task {
    let mut request = send(text);
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    send_task(h, request).await
}

async fn wait_until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    tokio::time::timeout(Duration::from_secs(10), async {
        while !done().await {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("timed out waiting until {what}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subscriber_on_another_replica_gets_every_event_once_and_in_order() {
    let r = replicas(2).await;
    let (a, b) = (&r.handlers[0], &r.handlers[1]);
    let n = 40;
    let mut origin = a.send_streaming_message(&ctx(), send(&format!("tick {n}"))).await.unwrap();
    let first = origin.next().await.unwrap().unwrap();
    let Some(Payload::Task(task)) = first.payload.clone() else { panic!("a task first, got {first:?}") };
    // Subscribe on B while A executes: a snapshot, then the rest as events fed from the bus.
    let remote = collect(b.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap()).await;
    let remote: Vec<StreamResponse> = remote.into_iter().map(Result::unwrap).collect();
    let mut local = vec![first];
    local.extend(collect(origin).await.into_iter().map(Result::unwrap));

    let expected: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    for (name, events) in [("the originating stream on A", &local), ("the subscriber on B", &remote)] {
        assert_eq!(replay(events), (expected.clone(), Some(TaskState::Completed)), "{name}");
    }
    assert_eq!(kind(&remote[0]), "task", "spec 3.1.6: the task as it is now, first");
    let tasks = remote.iter().filter(|e| kind(e) == "task").count();
    assert_eq!(tasks, 1, "no resync: every event after the snapshot came through the bus");
    // After the snapshot, B's events are exactly A's events with the same content.
    let snapshot_seq = local.len() - (remote.len() - 1);
    assert_eq!(&local[snapshot_seq..], &remote[1..], "spec 3.5.2: the same events in the same order");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_on_a_third_replica_reaches_the_execution_and_every_stream() {
    let r = replicas(3).await;
    let (a, b, c) = (&r.handlers[0], &r.handlers[1], &r.handlers[2]);
    let mut origin = a.send_streaming_message(&ctx(), send("hold")).await.unwrap();
    let Some(Payload::Task(task)) = origin.next().await.unwrap().unwrap().payload else { panic!() };
    let subscriber = b.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap();
    wait_until("the task is WORKING", async || {
        c.get_task(&ctx(), get(&task)).await.unwrap().state() == TaskState::Working
    })
    .await;

    let canceled =
        c.cancel_task(&ctx(), CancelTaskRequest { id: task.id.clone(), ..Default::default() }).await;
    assert_eq!(canceled.unwrap().state(), TaskState::Canceled);
    wait_until("the execution on A saw its token fire", async || {
        r.probe.cancelled.load(Ordering::SeqCst) == 1
    })
    .await;
    for (name, stream) in [("the originating stream on A", origin), ("the subscriber on B", subscriber)] {
        let events: Vec<StreamResponse> = collect(stream).await.into_iter().map(Result::unwrap).collect();
        assert_eq!(status_of(events.last().unwrap()), Some(TaskState::Canceled), "{name}: {events:?}");
    }
    for h in &r.handlers {
        let listed = h.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
        assert_eq!(listed.tasks.len(), 1);
        assert_eq!(listed.tasks[0].state(), TaskState::Canceled);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dead_replicas_running_task_is_resolved_once_and_its_subscribers_hear_it() {
    let r = replicas(3).await;
    let (a, b, c) = (&r.handlers[0], &r.handlers[1], &r.handlers[2]);
    let task = start(a, "hold").await;
    let subscriber = b.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap();

    // Live replicas' tasks are left alone, however many heartbeats pass.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(c.get_task(&ctx(), get(&task)).await.unwrap().state(), TaskState::Working);
    assert_eq!(r.probe.recovered.load(Ordering::SeqCst), 0);

    // A's event log writes fail, then its execution writes an artifact to the store that no
    // other replica hears of, then A dies. B's subscriber must get the artifact anyway, from a
    // snapshot, when another replica resolves the task.
    r.cluster.lose_events_of(&r.ids[0]);
    r.probe.go.notify_one();
    wait_until("the unheard artifact is stored", async || {
        c.get_task(&ctx(), get(&task)).await.unwrap().artifacts.len() == 1
    })
    .await;
    r.cluster.kill(&r.ids[0]);
    let events: Vec<StreamResponse> = collect(subscriber).await.into_iter().map(Result::unwrap).collect();
    let last = events.last().unwrap();
    assert_eq!(status_of(last), Some(TaskState::Failed), "{events:?}");
    let Some(Payload::Task(resynced)) = &last.payload else {
        panic!("the missed artifact makes a gap: B resynchronises from a snapshot, got {events:?}")
    };
    assert_eq!(resynced.artifacts.len(), 1, "the zombie's artifact is in the snapshot");
    let failed = c.get_task(&ctx(), get(&task)).await.unwrap();
    assert_eq!(failed.state(), TaskState::Failed);
    assert_eq!(failed.status.unwrap().message.unwrap().text(), crate::executor::RESTARTED);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(r.probe.recovered.load(Ordering::SeqCst), 1, "exactly one replica claims an orphan");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_continued_on_another_replica_streams_everywhere() {
    let r = replicas(2).await;
    let (a, b) = (&r.handlers[0], &r.handlers[1]);
    let first = start(a, "tick 3").await;
    wait_until("the first task completes", async || {
        a.get_task(&ctx(), get(&first)).await.unwrap().state() == TaskState::Completed
    })
    .await;
    // Two tasks, each executed on one replica and subscribed to on the other, interleaved.
    let on_a = start(a, "hold").await;
    let on_b = start(b, "hold").await;
    let watch_a = b.subscribe_to_task(&ctx(), subscribe(&on_a)).await.unwrap();
    let watch_b = a.subscribe_to_task(&ctx(), subscribe(&on_b)).await.unwrap();
    let cancel = |t: &Task| CancelTaskRequest { id: t.id.clone(), ..Default::default() };
    b.cancel_task(&ctx(), cancel(&on_a)).await.unwrap();
    a.cancel_task(&ctx(), cancel(&on_b)).await.unwrap();
    for stream in [watch_a, watch_b] {
        let events: Vec<StreamResponse> = collect(stream).await.into_iter().map(Result::unwrap).collect();
        assert_eq!(status_of(events.last().unwrap()), Some(TaskState::Canceled));
    }
    wait_until("both executions saw their tokens", async || r.probe.cancelled.load(Ordering::SeqCst) == 2)
        .await;
}
