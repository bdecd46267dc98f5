//! Faults, on a real server over loopback and every binding: clients that go away in the middle
//! of a call or a stream, agents that panic, hang or publish after their task ended. Each fault
//! must leave the task in a defined state, keep the server serving, and leak nothing: the open
//! stream gauges, the active executions and the live task runtimes return to where they were
//! (`docs/operations.md`, "Faults").

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::{
    A2aService, AgentExecutor, Binding, CallContext, Error, Operation, RequestContext, TaskUpdater,
};
use a2a_demo::{demo_card, DemoAgent};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, stream_response, Artifact, CancelTaskRequest, GetTaskRequest, ListTasksRequest,
    Message, Part, SendMessageRequest, SubscribeToTaskRequest, Task, TaskState,
};
use a2a_rest::RestClient;
use a2a_server::metrics::{ExecutionKind, Metrics};
use a2a_server::{RunningServer, Server, ServerBuilder};
use async_trait::async_trait;
use futures::StreamExt;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, Notify};

/// How long a test waits for something the server does by itself (a hang guard, not a speed
/// assertion).
const PATIENCE: Duration = Duration::from_secs(30);

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

/// Polls `check` until it holds, for at most [`PATIENCE`] (the state it waits for has no event a
/// client can await: a gauge, a task's state after a disconnect).
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "{what}: not within {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A server with every binding on one port, and a client per binding.
struct Env {
    server: RunningServer,
    clients: Vec<(Binding, Arc<dyn A2aService>)>,
}

impl Env {
    async fn start(executor: impl AgentExecutor) -> Env {
        Env::serve(Server::builder().agent_card(demo_card()).executor(executor)).await
    }

    /// The server `builder` makes, on a loopback port.
    async fn serve(builder: ServerBuilder) -> Env {
        let server = builder.spawn(TcpListener::bind("127.0.0.1:0").await.unwrap()).await.unwrap();
        let base = server.url();
        let clients: Vec<(Binding, Arc<dyn A2aService>)> = vec![
            (Binding::JsonRpc, Arc::new(JsonRpcClient::new(format!("{base}/")))),
            (Binding::Rest, Arc::new(RestClient::new(&base).unwrap())),
            (Binding::Grpc, Arc::new(GrpcClient::connect_lazy(server.addr().to_string()).unwrap())),
        ];
        Env { server, clients }
    }

    fn metrics(&self) -> Metrics {
        self.server.metrics().clone()
    }

    /// Waits until no execution runs, no stream is open and no task runtime is alive: what a
    /// server that leaks nothing returns to once its tasks are over.
    async fn settles(&self, what: &str) {
        let metrics = self.metrics();
        eventually(&format!("{what}: everything ends"), || async {
            let streams: i64 = Binding::ALL
                .into_iter()
                .flat_map(|b| {
                    [Operation::SendStreamingMessage, Operation::SubscribeToTask]
                        .map(|operation| metrics.open_streams(b, operation))
                })
                .sum();
            streams == 0
                && metrics.active_executions(ExecutionKind::Execute) == 0
                && metrics.active_executions(ExecutionKind::Cancel) == 0
                && metrics.live_tasks() == Some(0)
        })
        .await;
    }
}

async fn get(client: &dyn A2aService, id: &str) -> Task {
    client.get_task(&ctx(), GetTaskRequest { id: id.into(), ..Default::default() }).await.unwrap()
}

fn task_of(reply: a2a_proto::v1::SendMessageResponse) -> Task {
    match reply.payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// The only task of `context_id`, once it is in `state`.
async fn task_in_context(client: &dyn A2aService, context_id: &str, state: TaskState) -> Task {
    let found = Arc::new(Mutex::new(None));
    eventually(&format!("a {state:?} task in context {context_id}"), || {
        let found = Arc::clone(&found);
        async move {
            let request = ListTasksRequest { context_id: context_id.into(), ..Default::default() };
            let tasks = client.list_tasks(&ctx(), request).await.unwrap().tasks;
            let task = tasks.into_iter().find(|t| t.state() == state);
            let done = task.is_some();
            *found.lock().unwrap() = task;
            done
        }
    })
    .await;
    let task = found.lock().unwrap().take();
    task.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_send_its_client_drops_leaves_the_task_working_and_cancelable() {
    let env = Env::start(DemoAgent).await;
    let metrics = env.metrics();
    for (binding, client) in &env.clients {
        // `wait`: the demo agent works until canceled; the blocking call waits for the end.
        let context_id = a2a_proto::new_id();
        let request = SendMessageRequest {
            message: Some(Message::user_text("wait 120").with_context_id(context_id.clone())),
            ..Default::default()
        };
        let caller = Arc::clone(client);
        let call = tokio::spawn(async move { caller.send_message(&ctx(), request).await });
        let task = task_in_context(client.as_ref(), &context_id, TaskState::Working).await;
        assert!(!call.is_finished(), "{binding}: the call blocks while the task works");
        // The client goes away: its connection (HTTP/1.1) or HTTP/2 stream (gRPC) is closed.
        call.abort();
        assert!(call.await.unwrap_err().is_cancelled());
        eventually(&format!("{binding}: the server sees the call abandoned"), || async {
            metrics.requests(*binding, Operation::SendMessage, "cancelled") == 1
        })
        .await;

        // The task does not depend on its caller: still working, and cancelable.
        assert_eq!(get(client.as_ref(), &task.id).await.state(), TaskState::Working, "{binding}");
        let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
        let canceled = client.cancel_task(&ctx(), cancel).await.unwrap();
        assert_eq!(canceled.state(), TaskState::Canceled, "{binding}");
        env.settles(&format!("{binding}")).await;
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_their_clients_drop_close_their_gauges_and_leave_no_task_runtime() {
    let env = Env::start(DemoAgent).await;
    let metrics = env.metrics();
    for (binding, client) in &env.clients {
        // A task that works until canceled, with its originating stream and a subscriber.
        let mut stream = client.send_streaming_message(&ctx(), send("wait 120")).await.unwrap();
        let first = stream.next().await.expect("a first event").unwrap();
        let task_id = first.task_id().expect("a task event").to_owned();
        let subscribe = SubscribeToTaskRequest { id: task_id.clone(), ..Default::default() };
        let mut subscription = client.subscribe_to_task(&ctx(), subscribe).await.unwrap();
        subscription.next().await.expect("the task, first").unwrap();
        assert_eq!(metrics.open_streams(*binding, Operation::SendStreamingMessage), 1, "{binding}");
        assert_eq!(metrics.open_streams(*binding, Operation::SubscribeToTask), 1, "{binding}");

        drop(stream);
        drop(subscription);
        eventually(&format!("{binding}: both gauges return to 0"), || async {
            metrics.open_streams(*binding, Operation::SendStreamingMessage) == 0
                && metrics.open_streams(*binding, Operation::SubscribeToTask) == 0
        })
        .await;
        // The task goes on without its streams, and ends when canceled.
        assert_eq!(get(client.as_ref(), &task_id).await.state(), TaskState::Working, "{binding}");
        let cancel = CancelTaskRequest { id: task_id.clone(), ..Default::default() };
        assert_eq!(client.cancel_task(&ctx(), cancel).await.unwrap().state(), TaskState::Canceled);
        env.settles(&format!("{binding}, wait")).await;

        // A stream dropped while its agent is producing: the originating stream applies
        // backpressure to the agent, so a stream nobody reads any more must not stall it.
        let mut stream = client.send_streaming_message(&ctx(), send("stream 400")).await.unwrap();
        let first = stream.next().await.expect("a first event").unwrap();
        let task_id = first.task_id().expect("a task event").to_owned();
        stream.next().await.expect("a second event").unwrap();
        drop(stream);
        eventually(&format!("{binding}: the task streamed to nobody completes"), || async {
            get(client.as_ref(), &task_id).await.state() == TaskState::Completed
        })
        .await;
        let task = get(client.as_ref(), &task_id).await;
        let chunks: usize = task.artifacts.iter().map(|a| a.parts.len()).sum();
        assert_eq!(chunks, 400, "{binding}: every chunk is stored");
        env.settles(&format!("{binding}, stream")).await;
    }
    // The server still serves.
    for (binding, client) in &env.clients {
        let task = task_of(client.send_message(&ctx(), send("hello")).await.unwrap());
        assert_eq!(task.state(), TaskState::Completed, "{binding}");
    }
    env.server.shutdown().await.unwrap();
}

/// A test agent with the faults the demo agent does not have (the first word picks one):
/// - `panic`: starts work, then panics;
/// - `hang`: starts work, then waits forever, cancellation or not;
/// - `late`: completes, then publishes an artifact in the same execution (and returns its error);
/// - `later`: completes and returns, leaving a task behind that publishes an artifact when the
///   test says so, after the execution has ended;
/// - anything else: echo (`COMPLETED`).
///
/// What `late` and `later` got from their publish goes to `refusals`.
#[derive(Clone)]
struct FaultyAgent {
    refusals: mpsc::UnboundedSender<a2a_core::Result<()>>,
    go_late: Arc<Notify>,
}

#[async_trait]
impl AgentExecutor for FaultyAgent {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> a2a_core::Result<()> {
        let late_artifact = || Artifact::new(vec![Part::text("too late")]).with_name("late");
        match ctx.message.text().as_str() {
            "panic" => {
                updater.start_work(None).await?;
                updater.flush().await?;
                panic!("the test agent panics on purpose");
            }
            "hang" => {
                updater.start_work(None).await?;
                updater.flush().await?;
                std::future::pending::<()>().await;
                unreachable!()
            }
            "late" => {
                updater.complete(None).await?;
                let outcome = updater.add_artifact(late_artifact()).await;
                self.refusals.send(outcome.clone()).unwrap();
                outcome
            }
            "later" => {
                updater.complete(None).await?;
                let (refusals, go) = (self.refusals.clone(), Arc::clone(&self.go_late));
                let updater = updater.clone();
                tokio::spawn(async move {
                    go.notified().await;
                    refusals.send(updater.add_artifact(late_artifact()).await).unwrap();
                });
                Ok(())
            }
            text => {
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(text)]).with_name("echo")).await?;
                updater.complete(None).await
            }
        }
    }
}

fn faulty_agent() -> (FaultyAgent, mpsc::UnboundedReceiver<a2a_core::Result<()>>) {
    let (refusals, received) = mpsc::unbounded_channel();
    (FaultyAgent { refusals, go_late: Arc::new(Notify::new()) }, received)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_panics_fails_its_task_with_a_message_and_the_server_serves_on() {
    let (agent, _refusals) = faulty_agent();
    let env = Env::start(agent).await;
    for (binding, client) in &env.clients {
        let task = task_of(client.send_message(&ctx(), send("panic")).await.unwrap());
        assert_eq!(task.state(), TaskState::Failed, "{binding}");
        let why =
            task.status.as_ref().and_then(|s| s.message.as_ref()).map(Message::text).unwrap_or_default();
        assert!(why.contains("the agent panicked: the test agent panics on purpose"), "{binding}: {why}");
        assert_eq!(get(client.as_ref(), &task.id).await.state(), TaskState::Failed, "{binding}: stored");

        // A streaming send of the same: the stream ends with the FAILED status, not an error.
        let events: Vec<_> =
            client.send_streaming_message(&ctx(), send("panic")).await.unwrap().collect().await;
        let last = events.last().expect("events").as_ref().unwrap();
        let state = match &last.payload {
            Some(stream_response::Payload::StatusUpdate(update)) => update.status.as_ref().map(|s| s.state()),
            _ => None,
        };
        assert_eq!(state, Some(TaskState::Failed), "{binding}: {events:?}");

        // The next request is served as usual.
        let task = task_of(client.send_message(&ctx(), send("hello")).await.unwrap());
        assert_eq!(task.state(), TaskState::Completed, "{binding}");
    }
    env.settles("panics").await;
    env.server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_hangs_through_a_cancel_has_its_task_canceled_and_is_dropped_after_the_grace() {
    let (agent, _refusals) = faulty_agent();
    let env = Env::start(agent).await;
    let metrics = env.metrics();
    for (binding, client) in &env.clients {
        let mut request = send("hang");
        request.configuration =
            Some(a2a_proto::v1::SendMessageConfiguration { return_immediately: true, ..Default::default() });
        let task = task_of(client.send_message(&ctx(), request).await.unwrap());
        eventually(&format!("{binding}: the agent works"), || async {
            get(client.as_ref(), &task.id).await.state() == TaskState::Working
        })
        .await;
        let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
        let canceled = tokio::time::timeout(PATIENCE, client.cancel_task(&ctx(), cancel))
            .await
            .expect("the cancel answers although the agent ignores it")
            .unwrap();
        assert_eq!(canceled.state(), TaskState::Canceled, "{binding}");
        assert_eq!(get(client.as_ref(), &task.id).await.state(), TaskState::Canceled, "{binding}: stored");
        // Canceling again is idempotent (spec 3.3.1).
        let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
        assert_eq!(client.cancel_task(&ctx(), cancel).await.unwrap().state(), TaskState::Canceled);
    }
    // The server serves on.
    for (binding, client) in &env.clients {
        let task = task_of(client.send_message(&ctx(), send("hello")).await.unwrap());
        assert_eq!(task.state(), TaskState::Completed, "{binding}");
    }
    assert_eq!(metrics.active_executions(ExecutionKind::Cancel), 0);
    // The hung executions are dropped `CANCEL_GRACE` after their cancel: nothing stays behind.
    assert!(a2a_core::handler::CANCEL_GRACE < PATIENCE);
    env.settles("hung agents").await;
    for (binding, client) in &env.clients {
        let listed = client.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap().tasks;
        let states: Vec<_> = listed.iter().map(Task::state).collect();
        assert_eq!(states.iter().filter(|s| **s == TaskState::Canceled).count(), 3, "{binding}: {states:?}");
    }
    env.server.shutdown().await.unwrap();
}

/// Everything this test process logs at `warn` and above (nextest runs each test in a process
/// of its own).
fn captured_warnings() -> Arc<Mutex<Vec<u8>>> {
    struct Sink(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Sink {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().write(buf)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let logs = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&logs);
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::WARN)
        .with_ansi(false)
        .with_writer(move || Sink(Arc::clone(&sink)))
        .finish();
    tracing::subscriber::set_global_default(subscriber).unwrap();
    logs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_published_after_the_task_ended_are_refused_logged_and_nothing_is_stored() {
    let logs = captured_warnings();
    let (agent, mut refusals) = faulty_agent();
    let go_late = Arc::clone(&agent.go_late);
    let env = Env::start(agent).await;
    for (binding, client) in &env.clients {
        // In the same execution, right after `complete`.
        let task = task_of(client.send_message(&ctx(), send("late")).await.unwrap());
        let refusal = refusals.recv().await.unwrap();
        assert!(matches!(refusal, Err(Error::InvalidAgentResponse { .. })), "{binding}: {refusal:?}");
        // After the execution ended, from a task the agent left behind.
        let later = task_of(client.send_message(&ctx(), send("later")).await.unwrap());
        go_late.notify_one();
        let refusal = refusals.recv().await.unwrap();
        assert!(matches!(refusal, Err(Error::InvalidAgentResponse { .. })), "{binding}: {refusal:?}");

        for task in [task, later] {
            let stored = get(client.as_ref(), &task.id).await;
            assert_eq!(stored.state(), TaskState::Completed, "{binding}");
            assert!(stored.artifacts.is_empty(), "{binding}: nothing stored after the end: {stored:?}");
            assert_eq!(stored.history, task.history, "{binding}");
            let logged = String::from_utf8(logs.lock().unwrap().clone()).unwrap();
            let refused = logged
                .lines()
                .filter(|l| l.contains("the agent's update was refused") && l.contains(&task.id))
                .count();
            assert_eq!(refused, 1, "{binding}: the refusal is logged once for {}:\n{logged}", task.id);
        }
    }
    env.settles("late updates").await;
    env.server.shutdown().await.unwrap();
}

/// A bug in a layer of the embedder's (here: one that panics when a request carries `x-panic`)
/// is answered with an internal error in each binding's own shape, never a dropped connection,
/// and the server goes on serving every binding.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_a_layer_is_an_internal_error_on_every_binding_and_the_server_keeps_serving() {
    let panics = axum::middleware::from_fn(
        |request: axum::extract::Request, next: axum::middleware::Next| async move {
            if request.headers().contains_key("x-panic") {
                panic!("a bug in a layer");
            }
            next.run(request).await
        },
    );
    let env = Env::serve(Server::builder().agent_card(demo_card()).executor(DemoAgent).layer(panics)).await;
    let mut poisoned = ctx();
    poisoned.params.insert("x-panic", "1");
    for (binding, client) in &env.clients {
        match client.send_message(&poisoned, send("hello")).await {
            Err(Error::Internal { .. }) => {}
            other => panic!("{binding}: an internal error expected, got {other:?}"),
        }
        let answer = client.send_message(&ctx(), send("hello")).await;
        assert!(answer.is_ok(), "{binding}: served after the panic: {answer:?}");
    }
    env.server.shutdown().await.unwrap();
}
