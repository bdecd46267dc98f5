//! The scripted [`A2aService`]: canned answers, recorded calls, failures on demand.

use std::sync::{Arc, Mutex};

use a2a_core::{A2aService, CallContext, Error, EventStream, Operation, Request, Response, Result};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, Message,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task,
    TaskPushNotificationConfig, TaskState,
};
use async_trait::async_trait;
use futures::StreamExt as _;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::Notify;

use crate::fixtures::{agent_card, push_config, stream_events, task};

/// Makes a fresh error each time it is called (`Error` is not `Clone`).
type ErrorFactory = Box<dyn Fn() -> Error + Send + Sync>;

/// One call the service received.
#[derive(Debug, Clone)]
pub struct Call {
    /// Which operation.
    pub operation: Operation,
    /// The context the binding built (service parameters, principal, version, tenant).
    pub ctx: CallContext,
    /// The request message as ProtoJSON, to assert on what the binding decoded.
    pub request: Value,
}

impl Call {
    /// The request message, typed.
    pub fn request<T: DeserializeOwned + prost::Name>(&self) -> T {
        a2a_proto::json::from_value(self.request.clone()).unwrap()
    }

    /// A service parameter of the call.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.ctx.params.get(name)
    }
}

/// The canned answer of each operation. Every method has a default (the values of
/// [`fixtures`](crate::fixtures), ids echoed from the request so that tests can see what
/// arrived); a test suite overrides the ones its assertions depend on. An `Err` is returned to the
/// caller as it is (after the call was recorded).
#[allow(unused_variables)]
pub trait Answers: Send + Sync + 'static {
    /// SendMessage: task `task-1`, completed; a direct agent message for the text
    /// `reply with a message`.
    fn send_message(&self, request: SendMessageRequest) -> Result<SendMessageResponse> {
        let text = request.message.as_ref().map(Message::text).unwrap_or_default();
        Ok(if text == "reply with a message" {
            Message::agent_text("a direct reply").into()
        } else {
            task("task-1", TaskState::Completed).into()
        })
    }

    /// SendStreamingMessage: [`stream_events`] of `task-1`.
    fn send_streaming_message(&self, request: SendMessageRequest) -> Result<EventStream> {
        Ok(events(stream_events("task-1")))
    }

    /// GetTask: the task asked for, working.
    fn get_task(&self, request: GetTaskRequest) -> Result<Task> {
        Ok(task(&request.id, TaskState::Working))
    }

    /// ListTasks: `task-1`, working, one page of the requested size (50 by default).
    fn list_tasks(&self, request: ListTasksRequest) -> Result<ListTasksResponse> {
        Ok(ListTasksResponse {
            tasks: vec![task("task-1", TaskState::Working)],
            next_page_token: String::new(),
            page_size: request.page_size.unwrap_or(50),
            total_size: 1,
        })
    }

    /// CancelTask: the task asked for, canceled.
    fn cancel_task(&self, request: CancelTaskRequest) -> Result<Task> {
        Ok(task(&request.id, TaskState::Canceled))
    }

    /// SubscribeToTask: [`stream_events`] of the task asked for.
    fn subscribe_to_task(&self, request: SubscribeToTaskRequest) -> Result<EventStream> {
        Ok(events(stream_events(&request.id)))
    }

    /// CreateTaskPushNotificationConfig: the request with id `cfg-1`.
    fn create_task_push_notification_config(
        &self,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        Ok(TaskPushNotificationConfig { id: "cfg-1".into(), ..request })
    }

    /// The push config of `task_id` with id `id` that Get and List answer with: [`push_config`].
    fn push_config(&self, task_id: &str, id: &str) -> TaskPushNotificationConfig {
        push_config(task_id, id)
    }

    /// GetTaskPushNotificationConfig: [`Answers::push_config`] with the ids asked for.
    fn get_task_push_notification_config(
        &self,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        Ok(self.push_config(&request.task_id, &request.id))
    }

    /// ListTaskPushNotificationConfigs: `cfg-1` and `cfg-2` of the task asked for.
    fn list_task_push_notification_configs(
        &self,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        Ok(ListTaskPushNotificationConfigsResponse {
            configs: vec![
                self.push_config(&request.task_id, "cfg-1"),
                self.push_config(&request.task_id, "cfg-2"),
            ],
            next_page_token: String::new(),
        })
    }

    /// DeleteTaskPushNotificationConfig: done.
    fn delete_task_push_notification_config(
        &self,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        Ok(())
    }

    /// GetExtendedAgentCard: [`agent_card`].
    fn get_extended_agent_card(&self, request: GetExtendedAgentCardRequest) -> Result<AgentCard> {
        Ok(agent_card())
    }
}

/// A stream of `events`, each `Ok`.
pub fn events(events: Vec<StreamResponse>) -> EventStream {
    futures::stream::iter(events.into_iter().map(Ok)).boxed()
}

/// The first `events` events of `stream`, then nothing, without ending; `dropped` is notified
/// when the stream is dropped (proves that a server let go of it).
pub fn hang_after(stream: EventStream, events: usize, dropped: Arc<Notify>) -> EventStream {
    let guard = DropSignal(dropped);
    stream
        .take(events)
        .chain(futures::stream::pending().map(move |item: Result<StreamResponse>| {
            let _keep = &guard;
            item
        }))
        .boxed()
}

/// The answers of [`fixtures`](crate::fixtures), unchanged.
#[derive(Debug, Default, Clone, Copy)]
pub struct DefaultAnswers;

impl Answers for DefaultAnswers {}

/// How streams end: after how many events, and with what.
enum StreamEnd {
    Fail(usize, ErrorFactory),
    Hang,
}

#[derive(Default)]
struct Script {
    calls: Vec<Call>,
    /// Every call fails with this error before answering.
    fail: Option<ErrorFactory>,
    /// The next call fails with this error before answering.
    fail_next: Option<Error>,
    /// How every stream ends.
    streams: Option<StreamEnd>,
    /// How the next stream ends.
    next_stream: Option<StreamEnd>,
}

/// An [`A2aService`] that answers with `A` ([`DefaultAnswers`] unless a suite brings its own),
/// records every call, and fails when told to. Failures set with `fail_with`/`fail_stream_after`
/// /`hang_streams` apply to every following call; the `*_next*` ones to the next call only.
pub struct Scripted<A = DefaultAnswers> {
    answers: A,
    script: Mutex<Script>,
    hung_stream_dropped: Arc<Notify>,
}

impl<A> std::fmt::Debug for Scripted<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scripted").field("calls", &self.script.lock().unwrap().calls).finish_non_exhaustive()
    }
}

impl<A: Answers + Default> Scripted<A> {
    /// A service answering with `A::default()`.
    pub fn new() -> Arc<Self> {
        Self::with_answers(A::default())
    }
}

impl<A: Answers> Scripted<A> {
    /// A service answering with `answers`.
    pub fn with_answers(answers: A) -> Arc<Self> {
        Arc::new(Self { answers, script: Mutex::default(), hung_stream_dropped: Arc::default() })
    }

    /// The canned answers.
    pub fn answers(&self) -> &A {
        &self.answers
    }

    /// Every following call fails with `make()`, after it was recorded.
    pub fn fail_with(&self, make: impl Fn() -> Error + Send + Sync + 'static) {
        self.script.lock().unwrap().fail = Some(Box::new(make));
    }

    /// The next call fails with `error`, after it was recorded (before any stream starts).
    pub fn fail_next(&self, error: Error) {
        self.script.lock().unwrap().fail_next = Some(error);
    }

    /// Every following stream yields at most `events` events, then `make()`.
    pub fn fail_stream_after(&self, events: usize, make: impl Fn() -> Error + Send + Sync + 'static) {
        self.script.lock().unwrap().streams = Some(StreamEnd::Fail(events, Box::new(make)));
    }

    /// The next stream yields at most `events` events, then `error`.
    pub fn fail_next_stream_after(&self, events: usize, error: Error) {
        let error = Mutex::new(Some(error));
        let make = move || error.lock().unwrap().take().expect("one stream, one error");
        self.script.lock().unwrap().next_stream = Some(StreamEnd::Fail(events, Box::new(make)));
    }

    /// Every following stream yields its first event and then nothing, without ending.
    pub fn hang_streams(&self) {
        self.script.lock().unwrap().streams = Some(StreamEnd::Hang);
    }

    /// The next stream yields its first event and then nothing, without ending.
    pub fn hang_next_stream(&self) {
        self.script.lock().unwrap().next_stream = Some(StreamEnd::Hang);
    }

    /// Notified each time a hanging stream is dropped: proves the server let go of it.
    pub fn hung_stream_dropped(&self) -> Arc<Notify> {
        self.hung_stream_dropped.clone()
    }

    /// Every call so far, in order.
    pub fn calls(&self) -> Vec<Call> {
        self.script.lock().unwrap().calls.clone()
    }

    /// The operations called so far, in order.
    pub fn operations(&self) -> Vec<Operation> {
        self.script.lock().unwrap().calls.iter().map(|call| call.operation).collect()
    }

    /// The last call; panics if there was none.
    #[track_caller]
    pub fn last_call(&self) -> Call {
        self.calls().pop().expect("the service was called")
    }

    /// The context of the last call; panics if there was none.
    #[track_caller]
    pub fn last_context(&self) -> CallContext {
        self.last_call().ctx
    }

    /// The only call received; panics if there were none or several.
    #[track_caller]
    pub fn only_call(&self) -> Call {
        let calls = self.calls();
        assert_eq!(
            calls.len(),
            1,
            "expected exactly one call, got {:?}",
            calls.iter().map(|c| c.operation).collect::<Vec<_>>()
        );
        calls.into_iter().next().unwrap()
    }

    fn record(&self, ctx: &CallContext, request: &Request) -> Result<()> {
        let mut script = self.script.lock().unwrap();
        let operation = request.operation();
        let request = serde_json::to_value(request).unwrap();
        script.calls.push(Call { operation, ctx: ctx.clone(), request });
        if let Some(error) = script.fail_next.take() {
            return Err(error);
        }
        match &script.fail {
            Some(make) => Err(make()),
            None => Ok(()),
        }
    }

    /// `stream`, ended as the script says.
    fn shape(&self, stream: EventStream) -> EventStream {
        let mut script = self.script.lock().unwrap();
        let end = script.next_stream.take();
        let end = end.as_ref().or(script.streams.as_ref());
        match end {
            None => stream,
            Some(StreamEnd::Fail(after, make)) => {
                stream.take(*after).chain(futures::stream::iter([Err(make())])).boxed()
            }
            Some(StreamEnd::Hang) => hang_after(stream, 1, self.hung_stream_dropped.clone()),
        }
    }
}

/// Notifies when dropped.
struct DropSignal(Arc<Notify>);

impl Drop for DropSignal {
    fn drop(&mut self) {
        self.0.notify_one();
    }
}

#[async_trait]
impl<A: Answers> A2aService for Scripted<A> {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        self.record(ctx, &request)?;
        let answers = &self.answers;
        Ok(match request {
            Request::SendMessage(request) => Response::SendMessage(answers.send_message(request)?),
            Request::SendStreamingMessage(request) => {
                Response::Stream(self.shape(answers.send_streaming_message(request)?))
            }
            Request::GetTask(request) => Response::Task(answers.get_task(request)?),
            Request::ListTasks(request) => Response::ListTasks(answers.list_tasks(request)?),
            Request::CancelTask(request) => Response::Task(answers.cancel_task(request)?),
            Request::SubscribeToTask(request) => {
                Response::Stream(self.shape(answers.subscribe_to_task(request)?))
            }
            Request::CreateTaskPushNotificationConfig(request) => {
                Response::PushConfig(answers.create_task_push_notification_config(request)?)
            }
            Request::GetTaskPushNotificationConfig(request) => {
                Response::PushConfig(answers.get_task_push_notification_config(request)?)
            }
            Request::ListTaskPushNotificationConfigs(request) => {
                Response::PushConfigs(answers.list_task_push_notification_configs(request)?)
            }
            Request::DeleteTaskPushNotificationConfig(request) => {
                answers.delete_task_push_notification_config(request)?;
                Response::Deleted
            }
            Request::GetExtendedAgentCard(request) => {
                Response::AgentCard(answers.get_extended_agent_card(request)?)
            }
        })
    }
}
