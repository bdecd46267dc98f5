//! The canned answers the REST tests assert on (spec 6's examples: `task-uuid`, the report
//! artifact), over the scripted service and the test server shared in `a2a-test-support`.

use std::sync::Arc;

use a2a_core::{EventStream, Result};
use a2a_proto::v1::{
    AgentCapabilities, AgentCard, Artifact, GetExtendedAgentCardRequest, ListTasksRequest, ListTasksResponse,
    Message, Part, SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest,
    TaskPushNotificationConfig, TaskState,
};
pub(crate) use a2a_test_support::fixtures::task;
use a2a_test_support::fixtures::{artifact_update, status_update};
use a2a_test_support::Answers;
pub(crate) use a2a_test_support::TestServer;
use futures::StreamExt as _;

/// The scripted service with the REST suite's answers.
pub(crate) type Scripted = a2a_test_support::Scripted<RestAnswers>;

/// The shared canned answers, but for the values of the spec's REST examples.
#[derive(Debug, Default)]
pub(crate) struct RestAnswers;

impl Answers for RestAnswers {
    fn send_message(&self, request: SendMessageRequest) -> Result<SendMessageResponse> {
        let mut task = task("task-uuid", TaskState::Completed);
        task.history = request.message.into_iter().collect();
        task.history.push(Message::agent_text("done"));
        Ok(task.into())
    }

    fn send_streaming_message(&self, _request: SendMessageRequest) -> Result<EventStream> {
        Ok(a2a_test_support::events(events("task-uuid")))
    }

    fn list_tasks(&self, request: ListTasksRequest) -> Result<ListTasksResponse> {
        Ok(ListTasksResponse {
            tasks: vec![task("3f36680c-7f37-4a5f-945e-d78981fafd36", TaskState::Completed)],
            next_page_token: String::new(),
            page_size: request.page_size.unwrap_or(50),
            total_size: 1,
        })
    }

    fn subscribe_to_task(&self, request: SubscribeToTaskRequest) -> Result<EventStream> {
        Ok(a2a_test_support::events(events(&request.id)))
    }

    fn create_task_push_notification_config(
        &self,
        mut request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        if request.id.is_empty() {
            request.id = "cfg-1".into();
        }
        Ok(request)
    }

    fn push_config(&self, task_id: &str, id: &str) -> TaskPushNotificationConfig {
        push_config(task_id, id)
    }

    fn get_extended_agent_card(&self, _request: GetExtendedAgentCardRequest) -> Result<AgentCard> {
        Ok(extended_card())
    }
}

/// The canned event sequence of a task (spec 6.2): the Task, an artifact, completion.
pub(crate) fn events(task_id: &str) -> Vec<StreamResponse> {
    let report =
        Artifact { artifact_id: "a-1".into(), parts: vec![Part::text("# Report\n\n")], ..Default::default() };
    vec![
        task(task_id, TaskState::Working).into(),
        artifact_update(task_id, report),
        status_update(task_id, TaskState::Completed),
    ]
}

/// The canned push config of a task.
pub(crate) fn push_config(task_id: &str, id: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        url: "https://client.example.com/webhook/a2a-notifications".into(),
        ..a2a_test_support::fixtures::push_config(task_id, id)
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
