//! The gRPC suite's canned answers (over the scripted service shared in `a2a-test-support`),
//! a real tonic server on 127.0.0.1 port 0, the error cases of spec 5.4 with the status code each
//! must have on the wire, and the wire's status details.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::error::FieldViolation;
use a2a_core::{Error, EventStream, Result};
use a2a_grpc::GrpcClient;
use a2a_proto::v1::grpc::a2a_service_client::A2aServiceClient;
use a2a_proto::v1::{
    send_message_response, stream_response, AgentCard, Artifact, CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest, GetTaskRequest, ListTasksRequest,
    ListTasksResponse, Message, SendMessageRequest, SendMessageResponse, StreamResponse,
    SubscribeToTaskRequest, Task, TaskArtifactUpdateEvent, TaskPushNotificationConfig, TaskState,
};
pub(crate) use a2a_test_support::assert_same_error;
use a2a_test_support::fixtures::status_update;
pub(crate) use a2a_test_support::fixtures::task;
use a2a_test_support::{events, hang_after, Answers};
use tokio::sync::{oneshot, Notify};
use tokio::task::JoinHandle;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::server::Router;
use tonic::transport::{Channel, Server};
use tonic::Code;

/// Message text that makes SendStreamingMessage fail after its first event.
pub(crate) const FAIL_MIDWAY: &str = "fail-midway";
/// Message text that makes SendStreamingMessage send one event and then wait forever.
pub(crate) const HANG: &str = "hang";
/// Message text that makes SendMessage reply with a Message instead of a Task.
pub(crate) const REPLY_WITH_MESSAGE: &str = "reply-with-message";
/// The error SendStreamingMessage ends with after its first event for [`FAIL_MIDWAY`].
pub(crate) fn midway_error() -> Error {
    Error::InvalidAgentResponse { reason: "the executor produced an artifact for another task".into() }
}

/// A task id (GetTask, CancelTask, SubscribeToTask) or message text (SendMessage,
/// SendStreamingMessage) that makes the call fail before any reply with `error_cases()[index]`.
pub(crate) fn error_trigger(index: usize) -> String {
    format!("error:{index}")
}

fn triggered_error(key: &str) -> Option<Error> {
    let index: usize = key.strip_prefix("error:")?.parse().ok()?;
    error_cases().into_iter().nth(index).map(|case| case.error)
}

/// One error and how it must look on the wire (spec 5.4, 1.0.1 table) and back at a client.
pub(crate) struct ErrorCase {
    pub(crate) error: Error,
    pub(crate) code: Code,
    /// The ErrorInfo reason (spec 10.6), for A2A errors.
    pub(crate) reason: Option<&'static str>,
    /// What `GrpcClient` gives back. Identical to `error` whenever the wire carries enough to
    /// tell; the standard errors without an ErrorInfo are read from their code alone.
    pub(crate) back: Error,
}

/// Every `a2a_core::Error` variant, in declaration order.
pub(crate) fn error_cases() -> Vec<ErrorCase> {
    fn same(error: Error, code: Code, reason: Option<&'static str>) -> ErrorCase {
        let back = rebuild(&error);
        ErrorCase { error, code, reason, back }
    }
    let parts_violation = || FieldViolation {
        field: "message.parts".into(),
        description: "at least one part is required".into(),
    };
    vec![
        same(Error::TaskNotFound { task_id: "task-9".into() }, Code::NotFound, Some("TASK_NOT_FOUND")),
        same(
            Error::TaskNotCancelable { task_id: "task-9".into(), state: TaskState::Completed },
            Code::FailedPrecondition,
            Some("TASK_NOT_CANCELABLE"),
        ),
        same(
            Error::PushNotificationNotSupported,
            Code::FailedPrecondition,
            Some("PUSH_NOTIFICATION_NOT_SUPPORTED"),
        ),
        same(
            Error::unsupported("streaming is not enabled"),
            Code::FailedPrecondition,
            Some("UNSUPPORTED_OPERATION"),
        ),
        same(
            Error::ContentTypeNotSupported { media_type: "image/png".into() },
            Code::InvalidArgument,
            Some("CONTENT_TYPE_NOT_SUPPORTED"),
        ),
        same(
            Error::InvalidAgentResponse { reason: "reply is neither task nor message".into() },
            Code::Internal,
            Some("INVALID_AGENT_RESPONSE"),
        ),
        same(
            Error::ExtendedAgentCardNotConfigured,
            Code::FailedPrecondition,
            Some("EXTENDED_AGENT_CARD_NOT_CONFIGURED"),
        ),
        same(
            Error::ExtensionSupportRequired { uris: vec!["urn:a".into(), "urn:b".into()] },
            Code::FailedPrecondition,
            Some("EXTENSION_SUPPORT_REQUIRED"),
        ),
        same(
            Error::VersionNotSupported { version: "9.9".into(), supported: vec!["0.3".into(), "1.0".into()] },
            Code::FailedPrecondition,
            Some("VERSION_NOT_SUPPORTED"),
        ),
        // INVALID_ARGUMENT without ErrorInfo or BadRequest: read as invalid parameters, the
        // message kept as a violation of the whole request.
        ErrorCase {
            error: Error::ParseError { reason: "unexpected end of input".into() },
            code: Code::InvalidArgument,
            reason: None,
            back: Error::InvalidParams {
                violations: vec![FieldViolation {
                    field: String::new(),
                    description: "invalid JSON payload: unexpected end of input".into(),
                }],
            },
        },
        ErrorCase {
            error: Error::InvalidRequest { reason: "no method".into() },
            code: Code::InvalidArgument,
            reason: None,
            back: Error::InvalidParams {
                violations: vec![FieldViolation {
                    field: String::new(),
                    description: "invalid request: no method".into(),
                }],
            },
        },
        // UNIMPLEMENTED without ErrorInfo: how 1.0.0 peers send UnsupportedOperation.
        ErrorCase {
            error: Error::MethodNotFound { method: "Frobnicate".into() },
            code: Code::Unimplemented,
            reason: None,
            back: Error::unsupported("method not found: Frobnicate"),
        },
        same(Error::InvalidParams { violations: vec![parts_violation()] }, Code::InvalidArgument, None),
        same(Error::Unauthenticated { reason: "missing bearer token".into() }, Code::Unauthenticated, None),
        same(
            Error::PermissionDenied { reason: "scope tasks:read missing".into() },
            Code::PermissionDenied,
            None,
        ),
        same(Error::internal("task store unavailable"), Code::Internal, None),
        same(Error::Transport { reason: "upstream agent unreachable".into() }, Code::Unavailable, None),
    ]
}

/// A second instance of `error` (core's `Error` is not `Clone`).
fn rebuild(error: &Error) -> Error {
    match error {
        Error::InvalidParams { violations } => Error::InvalidParams { violations: violations.clone() },
        Error::Unauthenticated { reason } => Error::Unauthenticated { reason: reason.clone() },
        Error::PermissionDenied { reason } => Error::PermissionDenied { reason: reason.clone() },
        Error::Internal { reason } => Error::Internal { reason: reason.clone() },
        Error::Transport { reason } => Error::Transport { reason: reason.clone() },
        other => {
            let info = other.error_info().expect("rebuild: only A2A errors and the variants above");
            Error::from_error_info(&info.reason, &info.metadata, "").unwrap()
        }
    }
}

/// The events SendStreamingMessage sends for an ordinary message (spec 3.1.2: the Task first).
pub(crate) fn streamed_events() -> Vec<StreamResponse> {
    let artifact = TaskArtifactUpdateEvent {
        task_id: "task-1".into(),
        context_id: "ctx-1".into(),
        artifact: Some(Artifact { artifact_id: "art-1".into(), name: "answer".into(), ..Default::default() }),
        append: false,
        last_chunk: true,
        metadata: None,
    };
    vec![
        task("task-1", TaskState::Submitted).into(),
        status_update("task-1", TaskState::Working),
        StreamResponse { payload: Some(stream_response::Payload::ArtifactUpdate(artifact)) },
        status_update("task-1", TaskState::Completed),
    ]
}

/// The events SubscribeToTask sends for task `id`.
pub(crate) fn subscribed_events(id: &str) -> Vec<StreamResponse> {
    vec![task(id, TaskState::Working).into(), status_update(id, TaskState::Completed)]
}

/// A push config as the scripted service returns it.
pub(crate) fn push_config(task_id: &str, id: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        task_id: task_id.into(),
        id: id.into(),
        url: format!("https://hooks.example.com/{id}"),
        token: "secret-token".into(),
        ..Default::default()
    }
}

/// The scripted service with the gRPC suite's answers.
pub(crate) type Scripted = a2a_test_support::Scripted<GrpcAnswers>;

/// The gRPC suite's canned answers: message texts and task ids pick errors ([`error_trigger`]),
/// a broken or hanging stream ([`FAIL_MIDWAY`], [`HANG`]) or a Message reply
/// ([`REPLY_WITH_MESSAGE`]).
#[derive(Debug, Default)]
pub(crate) struct GrpcAnswers {
    /// Notified when the stream of a [`HANG`] call is dropped.
    pub(crate) hang_stream_dropped: Arc<Notify>,
}

fn text_of(request: &SendMessageRequest) -> String {
    request.message.as_ref().map(Message::text).unwrap_or_default()
}

fn fail_if_triggered(key: &str) -> Result<()> {
    triggered_error(key).map_or(Ok(()), Err)
}

impl Answers for GrpcAnswers {
    fn send_message(&self, request: SendMessageRequest) -> Result<SendMessageResponse> {
        let text = text_of(&request);
        fail_if_triggered(&text)?;
        let message = request.message.unwrap_or_default();
        let payload = if text == REPLY_WITH_MESSAGE {
            send_message_response::Payload::Message(Message::agent_text("hello").with_context_id("ctx-1"))
        } else {
            let mut task = task("task-1", TaskState::Working);
            task.history.push(message);
            send_message_response::Payload::Task(task)
        };
        Ok(SendMessageResponse { payload: Some(payload) })
    }

    fn send_streaming_message(&self, request: SendMessageRequest) -> Result<EventStream> {
        let text = text_of(&request);
        fail_if_triggered(&text)?;
        let first: StreamResponse = task("task-1", TaskState::Submitted).into();
        Ok(match text.as_str() {
            FAIL_MIDWAY => futures::StreamExt::boxed(futures::stream::iter([Ok(first), Err(midway_error())])),
            HANG => hang_after(events(vec![first]), 1, self.hang_stream_dropped.clone()),
            _ => events(streamed_events()),
        })
    }

    fn get_task(&self, request: GetTaskRequest) -> Result<Task> {
        fail_if_triggered(&request.id)?;
        let mut task = task(&request.id, TaskState::Completed);
        // Echo the tenant so tests can see request fields arrive untouched.
        task.metadata = Some(pbjson_struct("tenant", &request.tenant));
        Ok(task)
    }

    fn list_tasks(&self, request: ListTasksRequest) -> Result<ListTasksResponse> {
        Ok(ListTasksResponse {
            tasks: vec![task("task-2", TaskState::Working), task("task-1", TaskState::Completed)],
            next_page_token: "page-2".into(),
            page_size: request.page_size.unwrap_or(50),
            total_size: 7,
        })
    }

    fn cancel_task(&self, request: CancelTaskRequest) -> Result<Task> {
        fail_if_triggered(&request.id)?;
        Ok(task(&request.id, TaskState::Canceled))
    }

    fn subscribe_to_task(&self, request: SubscribeToTaskRequest) -> Result<EventStream> {
        fail_if_triggered(&request.id)?;
        Ok(events(subscribed_events(&request.id)))
    }

    fn create_task_push_notification_config(
        &self,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        Ok(TaskPushNotificationConfig { id: "cfg-new".into(), ..request })
    }

    fn push_config(&self, task_id: &str, id: &str) -> TaskPushNotificationConfig {
        push_config(task_id, id)
    }

    fn delete_task_push_notification_config(
        &self,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        fail_if_triggered(&request.id)
    }

    fn get_extended_agent_card(&self, _request: GetExtendedAgentCardRequest) -> Result<AgentCard> {
        Ok(AgentCard { name: "Scripted agent".into(), version: "1.2.3".into(), ..Default::default() })
    }
}

fn pbjson_struct(key: &str, value: &str) -> pbjson_types::Struct {
    [(key.to_owned(), pbjson_types::Value::from(value.to_owned()))].into_iter().collect()
}

/// A running server on 127.0.0.1, stopped by [`TestServer::stop`] (or when dropped).
pub(crate) struct TestServer {
    pub(crate) addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Serves `service` with `a2a_grpc::server` and nothing else.
    pub(crate) async fn start(service: Arc<dyn a2a_core::A2aService>) -> Self {
        Self::start_router(Server::builder().add_service(a2a_grpc::server(service))).await
    }

    /// Serves `router` on a fresh port: the listener is bound before this returns, so the first
    /// call can be made at once.
    pub(crate) async fn start_router(router: Router) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (shutdown, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            router
                .serve_with_incoming_shutdown(TcpListenerStream::new(listener), async {
                    stopped.await.ok();
                })
                .await
                .unwrap();
        });
        TestServer { addr, shutdown: Some(shutdown), handle: Some(handle) }
    }

    /// `http://127.0.0.1:port`.
    pub(crate) fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Our client, connected.
    pub(crate) async fn client(&self) -> GrpcClient {
        GrpcClient::connect(self.url()).await.unwrap()
    }

    /// The generated tonic client, connected: sees the wire as any other gRPC peer would.
    pub(crate) async fn raw_client(&self) -> A2aServiceClient<Channel> {
        A2aServiceClient::new(self.channel().await)
    }

    /// A plain tonic channel to the server.
    pub(crate) async fn channel(&self) -> Channel {
        tonic::transport::Endpoint::from_shared(self.url()).unwrap().connect().await.unwrap()
    }

    /// Stops the server and waits until it has (graceful shutdown lets open calls finish).
    pub(crate) async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            shutdown.send(()).ok();
        }
        if let Some(handle) = self.handle.take() {
            tokio::time::timeout(Duration::from_secs(10), handle)
                .await
                .expect("server did not stop within 10 s")
                .unwrap();
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            shutdown.send(()).ok();
        }
        if let Some(handle) = self.handle.take() {
            handle.abort();
        }
    }
}

/// The details of a status, decoded from the `grpc-status-details-bin` bytes with prost alone
/// (not with the crate's or tonic-types' helpers), as any peer would read them.
#[derive(Debug, Default)]
pub(crate) struct WireDetails {
    /// The `@type` URL of every detail, in order.
    pub(crate) type_urls: Vec<String>,
    pub(crate) error_info: Option<tonic_types::pb::ErrorInfo>,
    pub(crate) bad_request: Option<tonic_types::pb::BadRequest>,
}

pub(crate) fn wire_details(status: &tonic::Status) -> WireDetails {
    use prost::Message as _;
    let mut out = WireDetails::default();
    if status.details().is_empty() {
        return out;
    }
    let rpc_status =
        tonic_types::pb::Status::decode(status.details()).expect("details are a google.rpc.Status");
    // google.rpc.Status repeats code and message; they must agree with the gRPC status itself.
    assert_eq!(rpc_status.code, status.code() as i32);
    assert_eq!(rpc_status.message, status.message());
    for any in rpc_status.details {
        match any.type_url.as_str() {
            "type.googleapis.com/google.rpc.ErrorInfo" => {
                out.error_info = Some(tonic_types::pb::ErrorInfo::decode(any.value.as_slice()).unwrap());
            }
            "type.googleapis.com/google.rpc.BadRequest" => {
                out.bad_request = Some(tonic_types::pb::BadRequest::decode(any.value.as_slice()).unwrap());
            }
            _ => {}
        }
        out.type_urls.push(any.type_url);
    }
    out
}
