//! Fixtures: a scripted [`A2aService`] that answers canned values (or a chosen error) and records
//! every call, a server on a loopback port, and raw HTTP helpers.

use std::sync::{Arc, Mutex};

use a2a_core::{A2aService, CallContext, Error, EventStream, Operation};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    AgentCapabilities, AgentCard, Artifact, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, ListTasksRequest,
    ListTasksResponse, Message, SendMessageRequest, SendMessageResponse, StreamResponse,
    SubscribeToTaskRequest, Task, TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use async_trait::async_trait;
use futures::StreamExt;
use serde::Serialize;
use serde_json::Value;

/// Makes a fresh error each time it is called (`Error` is not `Clone`).
pub(crate) type ErrorFactory = Box<dyn Fn() -> Error + Send + Sync>;

/// One call the service received.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) operation: Operation,
    pub(crate) ctx: CallContext,
    /// The request message as ProtoJSON, to assert on what the binding decoded.
    pub(crate) request: Value,
}

#[derive(Default)]
struct Script {
    calls: Vec<Call>,
    /// Every call fails with this error before doing anything.
    fail: Option<ErrorFactory>,
    /// Streams yield this many events, then this error.
    stream_fail_after: Option<(usize, ErrorFactory)>,
    /// Streams yield their first event, then stay open without another event.
    stream_hangs: bool,
}

/// The scripted service. Answers are derived from the request (ids are echoed) so that tests can
/// check what arrived.
#[derive(Default)]
pub(crate) struct Scripted {
    script: Mutex<Script>,
}

impl Scripted {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// Every following call fails with `make()`.
    pub(crate) fn fail_with(&self, make: impl Fn() -> Error + Send + Sync + 'static) {
        self.script.lock().unwrap().fail = Some(Box::new(make));
    }

    /// Every following stream yields `events` events, then `make()`.
    pub(crate) fn fail_stream_after(&self, events: usize, make: impl Fn() -> Error + Send + Sync + 'static) {
        self.script.lock().unwrap().stream_fail_after = Some((events, Box::new(make)));
    }

    /// Every following stream yields its first event and then nothing, without ending.
    pub(crate) fn hang_streams(&self) {
        self.script.lock().unwrap().stream_hangs = true;
    }

    pub(crate) fn calls(&self) -> Vec<Call> {
        self.script.lock().unwrap().calls.clone()
    }

    pub(crate) fn last_call(&self) -> Call {
        self.calls().pop().expect("the service was called")
    }

    fn record<R: Serialize>(
        &self,
        operation: Operation,
        ctx: &CallContext,
        request: &R,
    ) -> Result<(), Error> {
        let mut script = self.script.lock().unwrap();
        let request = serde_json::to_value(request).unwrap();
        script.calls.push(Call { operation, ctx: ctx.clone(), request });
        match &script.fail {
            Some(make) => Err(make()),
            None => Ok(()),
        }
    }

    fn stream(&self, task_id: &str) -> EventStream {
        let script = self.script.lock().unwrap();
        let mut items: Vec<Result<StreamResponse, Error>> =
            stream_events(task_id).into_iter().map(Ok).collect();
        if let Some((after, make)) = &script.stream_fail_after {
            items.truncate(*after);
            items.push(Err(make()));
        }
        if script.stream_hangs {
            items.truncate(1);
            return futures::stream::iter(items).chain(futures::stream::pending()).boxed();
        }
        futures::stream::iter(items).boxed()
    }
}

/// A task in `state`.
pub(crate) fn task(id: &str, state: TaskState) -> Task {
    Task {
        id: id.into(),
        context_id: "ctx-1".into(),
        status: Some(TaskStatus { state: state.into(), ..Default::default() }),
        ..Default::default()
    }
}

/// What every stream of the scripted service carries: the task, a status update, an artifact,
/// and the final status (spec 3.1.2's task lifecycle stream).
pub(crate) fn stream_events(task_id: &str) -> Vec<StreamResponse> {
    let status = |state: TaskState| TaskStatusUpdateEvent {
        task_id: task_id.into(),
        context_id: "ctx-1".into(),
        status: Some(TaskStatus { state: state.into(), ..Default::default() }),
        ..Default::default()
    };
    vec![
        task(task_id, TaskState::Working).into(),
        status(TaskState::Working).into(),
        TaskArtifactUpdateEvent {
            task_id: task_id.into(),
            context_id: "ctx-1".into(),
            artifact: Some(Artifact { artifact_id: "a-1".into(), ..Artifact::new(vec![]) }),
            ..Default::default()
        }
        .into(),
        status(TaskState::Completed).into(),
    ]
}

pub(crate) fn push_config(task_id: &str, id: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        task_id: task_id.into(),
        id: id.into(),
        url: "https://client.example.com/webhook".into(),
        ..Default::default()
    }
}

pub(crate) fn agent_card() -> AgentCard {
    AgentCard {
        name: "Scripted Agent".into(),
        description: "answers from a script".into(),
        version: "1.0.0".into(),
        capabilities: Some(AgentCapabilities { streaming: Some(true), ..Default::default() }),
        ..Default::default()
    }
}

#[async_trait]
impl A2aService for Scripted {
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, Error> {
        self.record(Operation::SendMessage, ctx, &request)?;
        let text = request.message.as_ref().map(Message::text).unwrap_or_default();
        Ok(if text == "reply with a message" {
            Message::agent_text("a direct reply").into()
        } else {
            task("task-1", TaskState::Completed).into()
        })
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream, Error> {
        self.record(Operation::SendStreamingMessage, ctx, &request)?;
        Ok(self.stream("task-1"))
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task, Error> {
        self.record(Operation::GetTask, ctx, &request)?;
        Ok(task(&request.id, TaskState::Working))
    }

    async fn list_tasks(
        &self,
        ctx: &CallContext,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse, Error> {
        self.record(Operation::ListTasks, ctx, &request)?;
        Ok(ListTasksResponse {
            tasks: vec![task("task-1", TaskState::Working)],
            next_page_token: String::new(),
            page_size: request.page_size.unwrap_or(50),
            total_size: 1,
        })
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task, Error> {
        self.record(Operation::CancelTask, ctx, &request)?;
        Ok(task(&request.id, TaskState::Canceled))
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, Error> {
        self.record(Operation::SubscribeToTask, ctx, &request)?;
        Ok(self.stream(&request.id))
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, Error> {
        self.record(Operation::CreateTaskPushNotificationConfig, ctx, &request)?;
        Ok(TaskPushNotificationConfig { id: "cfg-1".into(), ..request })
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, Error> {
        self.record(Operation::GetTaskPushNotificationConfig, ctx, &request)?;
        Ok(push_config(&request.task_id, &request.id))
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, Error> {
        self.record(Operation::ListTaskPushNotificationConfigs, ctx, &request)?;
        Ok(ListTaskPushNotificationConfigsResponse {
            configs: vec![push_config(&request.task_id, "cfg-1"), push_config(&request.task_id, "cfg-2")],
            next_page_token: String::new(),
        })
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), Error> {
        self.record(Operation::DeleteTaskPushNotificationConfig, ctx, &request)
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, Error> {
        self.record(Operation::GetExtendedAgentCard, ctx, &request)?;
        Ok(agent_card())
    }
}

/// A server on `127.0.0.1`, port chosen by the OS; stopped when dropped.
pub(crate) struct TestServer {
    /// The JSON-RPC endpoint, e.g. `http://127.0.0.1:41234/`.
    pub(crate) url: String,
    task: tokio::task::JoinHandle<()>,
}

impl TestServer {
    /// Serves `router` on an already bound listener: no waiting for the server to come up.
    pub(crate) async fn start(router: axum::Router) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let task = tokio::spawn(async move {
            axum::serve(listener, router).await.unwrap();
        });
        TestServer { url, task }
    }

    pub(crate) fn client(&self) -> JsonRpcClient {
        JsonRpcClient::new(&self.url)
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The scripted service behind [`a2a_jsonrpc::router`].
pub(crate) async fn serve_scripted() -> (TestServer, Arc<Scripted>) {
    let service = Scripted::new();
    let server = TestServer::start(a2a_jsonrpc::router(service.clone())).await;
    (server, service)
}

/// A raw HTTP answer.
#[derive(Debug)]
pub(crate) struct Raw {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) content_type: String,
    pub(crate) body: String,
}

impl Raw {
    /// The body as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }

    /// The `data` of each SSE event, parsed as JSON.
    pub(crate) fn events(&self) -> Vec<Value> {
        self.body
            .split("\n\n")
            .filter_map(|event| event.lines().find_map(|line| line.strip_prefix("data:")))
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    }
}

/// POSTs `body` as it is, with `headers`.
pub(crate) async fn post_raw(url: &str, body: impl Into<reqwest::Body>, headers: &[(&str, &str)]) -> Raw {
    let mut request = reqwest::Client::new().post(url).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body).send().await.unwrap();
    let status = response.status();
    let content_type =
        response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let body = response.text().await.unwrap();
    Raw { status, content_type, body }
}

/// POSTs a JSON-RPC request written as JSON text, with `A2A-Version: 1.0`, and returns the
/// answer, asserting the transport rules every JSON answer follows (HTTP 200, JSON content).
pub(crate) async fn rpc(url: &str, body: &str) -> Value {
    let raw = post_raw(url, body.to_owned(), &[("A2A-Version", "1.0")]).await;
    assert_eq!(raw.status, 200, "{}", raw.body);
    assert_eq!(raw.content_type, "application/json", "{}", raw.body);
    raw.json()
}
