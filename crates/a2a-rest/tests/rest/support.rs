//! The scripted [`A2aService`] (canned answers, recorded calls, errors on demand) and a test
//! server bound to 127.0.0.1 port 0.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::{A2aService, CallContext, Error, EventStream, Operation, Result};
use a2a_proto::v1::{
    AgentCapabilities, AgentCard, Artifact, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTaskPushNotificationConfigsResponse, ListTasksRequest,
    ListTasksResponse, Message, Part, SendMessageRequest, SendMessageResponse, StreamResponse,
    SubscribeToTaskRequest, Task, TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use async_trait::async_trait;
use axum::Router;
use futures::StreamExt as _;
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// One call the service received.
#[derive(Debug, Clone)]
pub(crate) struct Call {
    pub(crate) operation: Operation,
    pub(crate) ctx: CallContext,
    /// The request message as ProtoJSON.
    pub(crate) request: Value,
}

impl Call {
    /// The request message, typed.
    pub(crate) fn request<T: DeserializeOwned + prost::Name>(&self) -> T {
        a2a_proto::json::from_value(self.request.clone()).unwrap()
    }

    /// A service parameter of the call.
    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.ctx.params.get(name)
    }
}

/// Answers every operation with canned data derived from the request, records each call, and
/// fails (or breaks a stream) when told to.
#[derive(Debug, Default)]
pub(crate) struct Scripted {
    calls: Mutex<Vec<Call>>,
    error: Mutex<Option<Error>>,
    stream_error: Mutex<Option<Error>>,
    stall: AtomicBool,
}

impl Scripted {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// The next call returns `error` (before any stream starts).
    pub(crate) fn fail_next(&self, error: Error) {
        *self.error.lock().unwrap() = Some(error);
    }

    /// The next stream yields its first event, then `error`.
    pub(crate) fn fail_stream_after_first_event(&self, error: Error) {
        *self.stream_error.lock().unwrap() = Some(error);
    }

    /// The next stream yields its first event, then stays open without events.
    pub(crate) fn stall_next_stream(&self) {
        self.stall.store(true, Ordering::SeqCst);
    }

    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.lock().unwrap().clone()
    }

    /// The only call received; fails if there were none or several.
    pub(crate) fn only_call(&self) -> Call {
        let calls = self.calls();
        assert_eq!(
            calls.len(),
            1,
            "expected exactly one call, got {:?}",
            calls.iter().map(|c| c.operation).collect::<Vec<_>>()
        );
        calls.into_iter().next().unwrap()
    }

    fn record<T: Serialize>(&self, operation: Operation, ctx: &CallContext, request: &T) -> Result<()> {
        let request = serde_json::to_value(request).unwrap();
        self.calls.lock().unwrap().push(Call { operation, ctx: ctx.clone(), request });
        match self.error.lock().unwrap().take() {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    fn stream(&self, events: Vec<StreamResponse>) -> EventStream {
        let first = events[0].clone();
        if let Some(error) = self.stream_error.lock().unwrap().take() {
            return futures::stream::iter([Ok(first), Err(error)]).boxed();
        }
        if self.stall.swap(false, Ordering::SeqCst) {
            return futures::stream::iter([Ok(first)]).chain(futures::stream::pending()).boxed();
        }
        futures::stream::iter(events.into_iter().map(Ok)).boxed()
    }
}

/// The canned task: context `ctx-1`, the given id and state.
pub(crate) fn task(id: &str, state: TaskState) -> Task {
    Task {
        id: id.into(),
        context_id: "ctx-1".into(),
        status: Some(TaskStatus { state: state.into(), ..Default::default() }),
        ..Default::default()
    }
}

/// The canned event sequence of a task (spec 6.2): the Task, an artifact, completion.
pub(crate) fn events(task_id: &str) -> Vec<StreamResponse> {
    vec![
        task(task_id, TaskState::Working).into(),
        TaskArtifactUpdateEvent {
            task_id: task_id.into(),
            context_id: "ctx-1".into(),
            artifact: Some(Artifact {
                artifact_id: "a-1".into(),
                parts: vec![Part::text("# Report\n\n")],
                ..Default::default()
            }),
            ..Default::default()
        }
        .into(),
        TaskStatusUpdateEvent {
            task_id: task_id.into(),
            context_id: "ctx-1".into(),
            status: Some(TaskStatus { state: TaskState::Completed.into(), ..Default::default() }),
            ..Default::default()
        }
        .into(),
    ]
}

/// The canned push config of a task.
pub(crate) fn push_config(task_id: &str, id: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        id: id.into(),
        task_id: task_id.into(),
        url: "https://client.example.com/webhook/a2a-notifications".into(),
        ..Default::default()
    }
}

/// The canned extended agent card.
pub(crate) fn extended_card() -> AgentCard {
    AgentCard {
        name: "Extended Agent with Additional Skills".into(),
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
    ) -> Result<SendMessageResponse> {
        self.record(Operation::SendMessage, ctx, &request)?;
        let mut task = task("task-uuid", TaskState::Completed);
        task.history = request.message.into_iter().collect();
        task.history.push(Message::agent_text("done"));
        Ok(task.into())
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        self.record(Operation::SendStreamingMessage, ctx, &request)?;
        Ok(self.stream(events("task-uuid")))
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        self.record(Operation::GetTask, ctx, &request)?;
        Ok(task(&request.id, TaskState::Working))
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        self.record(Operation::ListTasks, ctx, &request)?;
        Ok(ListTasksResponse {
            tasks: vec![task("3f36680c-7f37-4a5f-945e-d78981fafd36", TaskState::Completed)],
            next_page_token: String::new(),
            page_size: request.page_size.unwrap_or(50),
            total_size: 1,
        })
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        self.record(Operation::CancelTask, ctx, &request)?;
        Ok(task(&request.id, TaskState::Canceled))
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        self.record(Operation::SubscribeToTask, ctx, &request)?;
        Ok(self.stream(events(&request.id)))
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        mut request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        self.record(Operation::CreateTaskPushNotificationConfig, ctx, &request)?;
        if request.id.is_empty() {
            request.id = "cfg-1".into();
        }
        Ok(request)
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        self.record(Operation::GetTaskPushNotificationConfig, ctx, &request)?;
        Ok(push_config(&request.task_id, &request.id))
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
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
    ) -> Result<()> {
        self.record(Operation::DeleteTaskPushNotificationConfig, ctx, &request)
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        self.record(Operation::GetExtendedAgentCard, ctx, &request)?;
        Ok(extended_card())
    }
}

/// A server on 127.0.0.1 port 0, running until [`TestServer::stop`].
#[derive(Debug)]
pub(crate) struct TestServer {
    base: String,
    shutdown: oneshot::Sender<()>,
    handle: JoinHandle<()>,
}

impl TestServer {
    /// Serves `router` on an already bound listener, so it accepts connections at once.
    pub(crate) async fn start(router: Router) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (shutdown, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        TestServer { base, shutdown, handle }
    }

    /// The base URL, `http://127.0.0.1:<port>`.
    pub(crate) fn base(&self) -> &str {
        &self.base
    }

    /// The absolute URL of `path_and_query`.
    pub(crate) fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base)
    }

    /// Stops the server: gracefully, or by aborting it if a connection (an SSE stream a test
    /// left open) holds it up for more than a second.
    pub(crate) async fn stop(self) {
        let _ = self.shutdown.send(());
        let abort = self.handle.abort_handle();
        if tokio::time::timeout(Duration::from_secs(1), self.handle).await.is_err() {
            abort.abort();
        }
    }
}

/// A scripted service behind the default REST router.
pub(crate) async fn serve() -> (Arc<Scripted>, TestServer) {
    let service = Scripted::new();
    let server = TestServer::start(a2a_rest::router(service.clone())).await;
    (service, server)
}

/// A client of `server`.
pub(crate) fn client(server: &TestServer) -> a2a_rest::RestClient {
    a2a_rest::RestClient::new(server.base()).unwrap()
}

/// Every event of a stream, errors included.
pub(crate) async fn collect(stream: EventStream) -> Vec<Result<StreamResponse>> {
    stream.collect().await
}
