//! Three reference server processes on one PostgreSQL database behave as one server
//! (`docs/deployment.md`, "Several replicas"): a task executed on one replica is streamed,
//! read, listed and canceled from the others, over three different bindings, and the running
//! task of a replica killed with SIGKILL is resolved by the restart policy on another one, its
//! subscribers told.

mod common;

use std::time::Duration;

use a2a_core::executor::RESTARTED;
use a2a_core::{A2aService, CallContext, EventStream};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    stream_response::Payload, CancelTaskRequest, GetTaskRequest, ListTasksRequest, Message,
    SendMessageRequest, StreamResponse, SubscribeToTaskRequest, TaskState,
};
use a2a_rest::RestClient;
use a2a_store_sql::testing::TestDatabase;
use common::ServerProcess;
use futures::StreamExt;

/// The replicas' time-to-live: a killed replica's tasks are resolved within about this long.
const TTL_SECONDS: &str = "1.5";

async fn replica(db: &TestDatabase) -> ServerProcess {
    ServerProcess::start(["--store", db.url(), "--replica-ttl", TTL_SECONDS]).await
}

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

fn subscribe(id: &str) -> SubscribeToTaskRequest {
    SubscribeToTaskRequest { id: id.into(), ..Default::default() }
}

fn get(id: &str) -> GetTaskRequest {
    GetTaskRequest { id: id.into(), ..Default::default() }
}

async fn next(stream: &mut EventStream) -> StreamResponse {
    tokio::time::timeout(Duration::from_secs(20), stream.next())
        .await
        .expect("an event within 20 s")
        .expect("the stream goes on")
        .expect("an event, not an error")
}

async fn rest_of(stream: EventStream) -> Vec<StreamResponse> {
    let events: Vec<_> = tokio::time::timeout(Duration::from_secs(30), stream.collect::<Vec<_>>())
        .await
        .expect("the stream ends within 30 s");
    events.into_iter().map(|e| e.expect("an event, not an error")).collect()
}

fn state_of(event: &StreamResponse) -> Option<TaskState> {
    match &event.payload {
        Some(Payload::Task(task)) => Some(task.state()),
        Some(Payload::StatusUpdate(update)) => update.status.as_ref().map(|s| s.state()),
        _ => None,
    }
}

/// Reads a stream until the task is WORKING; returns the task id.
async fn until_working(stream: &mut EventStream) -> String {
    loop {
        let event = next(stream).await;
        if state_of(&event) == Some(TaskState::Working) {
            if let Some(Payload::StatusUpdate(update)) = event.payload {
                return update.task_id;
            }
        }
    }
}

/// The artifact text a client rebuilds from a stream: chunks append, a Task snapshot resets.
fn text_of(events: &[StreamResponse]) -> String {
    let mut text = String::new();
    for event in events {
        match &event.payload {
            Some(Payload::Task(task)) => {
                text = task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect();
            }
            Some(Payload::ArtifactUpdate(update)) => {
                if !update.append {
                    text.clear();
                }
                text.extend(update.artifact.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()));
            }
            _ => {}
        }
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_on_one_postgres_database_behave_as_one_server() {
    let db = TestDatabase::create("replicas").await;
    let (mut a, b, c) = (replica(&db).await, replica(&db).await, replica(&db).await);
    let on_a = JsonRpcClient::new(a.jsonrpc_url());
    let on_b = RestClient::new(&b.url).unwrap();
    let on_c = GrpcClient::connect(c.url.clone()).await.unwrap();

    // A stream executed on A and subscribed to on B: the same events in the same order, no
    // gap and no duplicate between B's snapshot and its live events (spec 3.1.6, 3.5.2).
    let mut origin = on_a.send_streaming_message(&ctx(), send("stream 25 40")).await.unwrap();
    let first = next(&mut origin).await;
    let Some(Payload::Task(task)) = &first.payload else { panic!("a task first, got {first:?}") };
    let id = task.id.clone();
    next(&mut origin).await; // WORKING: B subscribes while A streams the chunks.
    let remote = rest_of(on_b.subscribe_to_task(&ctx(), subscribe(&id)).await.unwrap()).await;
    let mut local = vec![first.clone()];
    local.extend(rest_of(origin).await);
    let expected: String = (0..25).map(|i| format!("chunk {i}\n")).collect();
    assert_eq!(text_of(&local), expected, "the originating stream on A");
    assert_eq!(text_of(&remote), expected, "the subscriber on B");
    assert_eq!(state_of(remote.last().unwrap()), Some(TaskState::Completed));
    assert!(matches!(remote[0].payload, Some(Payload::Task(_))), "spec 3.1.6: the task first");
    let after_snapshot = remote.len() - 1;
    assert!(after_snapshot > 0, "B heard live events, not just a snapshot");
    assert_eq!(&remote[1..], &local[local.len() - after_snapshot..], "B's live events are A's, in order");

    // Read and listed on C (gRPC).
    let stored = on_c.get_task(&ctx(), get(&id)).await.unwrap();
    assert_eq!(stored.state(), TaskState::Completed);
    assert_eq!(text_of(&[stored.into()]), expected);
    let listed = on_c.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
    assert_eq!((listed.total_size, listed.tasks[0].id.as_str()), (1, id.as_str()));

    // CancelTask on C reaches the execution on A: A's originating stream and B's subscriber
    // both end with CANCELED.
    let mut waiting = on_a.send_streaming_message(&ctx(), send("wait 60")).await.unwrap();
    let w = until_working(&mut waiting).await;
    let watch = on_b.subscribe_to_task(&ctx(), subscribe(&w)).await.unwrap();
    let canceled = on_c.cancel_task(&ctx(), CancelTaskRequest { id: w.clone(), ..Default::default() }).await;
    assert_eq!(canceled.unwrap().state(), TaskState::Canceled);
    for (name, events) in
        [("A's originating stream", rest_of(waiting).await), ("B's subscriber", rest_of(watch).await)]
    {
        assert_eq!(events.last().and_then(state_of), Some(TaskState::Canceled), "{name}: {events:?}");
    }
    assert_eq!(on_a.get_task(&ctx(), get(&w)).await.unwrap().state(), TaskState::Canceled);

    // A dies (SIGKILL) while running a task that B watches: another replica resolves it by the
    // restart policy once A's heartbeat expires, and B's subscriber hears it.
    let mut running = on_a.send_streaming_message(&ctx(), send("wait 120")).await.unwrap();
    let k = until_working(&mut running).await;
    let watch = on_b.subscribe_to_task(&ctx(), subscribe(&k)).await.unwrap();
    a.kill_9().await;
    drop(running);
    let events = rest_of(watch).await;
    assert_eq!(events.last().and_then(state_of), Some(TaskState::Failed), "{events:?}");
    let failed = on_c.get_task(&ctx(), get(&k)).await.unwrap();
    assert_eq!(failed.state(), TaskState::Failed);
    let said = failed.status.as_ref().and_then(|s| s.message.as_ref()).map(Message::text);
    assert_eq!(said.as_deref(), Some(RESTARTED));

    // A restarted replica joins the same database and serves what the others stored.
    let a = replica(&db).await;
    let on_a = JsonRpcClient::new(a.jsonrpc_url());
    let listed = on_a.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
    assert_eq!(listed.total_size, 3);
    assert_eq!(on_a.get_task(&ctx(), get(&k)).await.unwrap().state(), TaskState::Failed);
}

/// Two replicas deliver the notifications of tasks executed on one of them: while the webhook
/// is down both retry from the shared outbox, and once it is back each notification arrives
/// once (one replica claims it), in order per task, however the attempts were shared.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_push_delivery_and_deliver_each_notification_once_in_order() {
    use common::webhook::{kind, Answer, Receiver, STREAM_2};
    let db = TestDatabase::create("replicas_push").await;
    let hook = Receiver::start(Vec::new()).await;
    hook.answer_from_now_on(Answer::Status(503));
    let args = |db: &TestDatabase| {
        [
            "--store",
            db.url(),
            "--replica-ttl",
            TTL_SECONDS,
            "--push-allow",
            "127.0.0.0/8",
            "--push-max-attempts",
            "100",
        ]
        .map(str::to_owned)
    };
    let (a, _b) = (ServerProcess::start(args(&db)).await, ServerProcess::start(args(&db)).await);
    let on_a = JsonRpcClient::new(a.jsonrpc_url());
    let mut ids = Vec::new();
    for _ in 0..3 {
        let mut request = send("stream 2");
        request.configuration = Some(a2a_proto::v1::SendMessageConfiguration {
            task_push_notification_config: Some(a2a_proto::v1::TaskPushNotificationConfig {
                url: hook.url.clone(),
                ..Default::default()
            }),
            ..Default::default()
        });
        let reply = on_a.send_message(&ctx(), request).await.unwrap();
        let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = reply.payload else { panic!() };
        ids.push(task.id);
    }
    hook.wait_until(|seen| seen.len() >= 6).await.expect("the first notifications are retried");
    hook.answer_from_now_on(Answer::Ok);
    let log = hook.wait_delivered(3 * STREAM_2.len()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let delivered: Vec<_> = hook.seen().into_iter().filter(|s| s.answer == Answer::Ok).collect();
    assert_eq!(delivered.len(), 3 * STREAM_2.len(), "each notification delivered once: {log:?}");
    for id in &ids {
        let of_task: Vec<String> = delivered
            .iter()
            .filter(|s| {
                let event = s.body.as_object().unwrap().values().next().unwrap();
                event["taskId"].as_str().or(event["id"].as_str()) == Some(id.as_str())
            })
            .map(|s| kind(&s.body))
            .collect();
        assert_eq!(of_task, STREAM_2, "task {id}: every notification once, in order");
    }
}
