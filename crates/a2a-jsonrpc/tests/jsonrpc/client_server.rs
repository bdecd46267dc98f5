use a2a_core::{A2aService, CallContext, Operation};
use a2a_proto::v1::{
    send_message_response, stream_response, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, SendMessageRequest,
    SubscribeToTaskRequest, TaskPushNotificationConfig, TaskState,
};
use a2a_test_support::fixtures::{agent_card, stream_events, task};
use futures::StreamExt;
use serde_json::json;

use crate::support::serve_scripted;

fn send_request(text: &str) -> SendMessageRequest {
    let mut message = Message::user_text(text);
    message.message_id = "msg-1".into();
    SendMessageRequest { message: Some(message), ..Default::default() }
}

#[tokio::test]
async fn send_message_delivers_the_message_and_returns_the_task() {
    let (server, service) = serve_scripted().await;
    let response = server.client().send_message(&CallContext::v1(), send_request("hello")).await.unwrap();

    assert_eq!(
        response.payload,
        Some(send_message_response::Payload::Task(task("task-1", TaskState::Completed)))
    );
    let call = service.last_call();
    assert_eq!(call.operation, Operation::SendMessage);
    assert_eq!(call.request["message"]["messageId"], "msg-1");
    assert_eq!(call.request["message"]["parts"][0]["text"], "hello");
}

#[tokio::test]
async fn send_message_can_return_a_direct_message() {
    let (server, _service) = serve_scripted().await;
    let response =
        server.client().send_message(&CallContext::v1(), send_request("reply with a message")).await.unwrap();
    match response.payload {
        Some(send_message_response::Payload::Message(message)) => {
            assert_eq!(message.text(), "a direct reply")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn send_streaming_message_yields_every_event_in_order_then_ends() {
    let (server, service) = serve_scripted().await;
    let stream =
        server.client().send_streaming_message(&CallContext::v1(), send_request("go")).await.unwrap();
    let events: Vec<_> = stream.map(Result::unwrap).collect().await;

    assert_eq!(events, stream_events("task-1"));
    assert_eq!(service.last_call().operation, Operation::SendStreamingMessage);
}

#[tokio::test]
async fn get_task_passes_id_and_history_length_and_returns_the_task() {
    let (server, service) = serve_scripted().await;
    let request = GetTaskRequest { id: "task-7".into(), history_length: Some(0), ..Default::default() };
    let got = server.client().get_task(&CallContext::v1(), request).await.unwrap();

    assert_eq!(got, task("task-7", TaskState::Working));
    // An explicit 0 must arrive as 0, not as "unset" (spec 3.2.4 gives them different meanings).
    assert_eq!(service.last_call().request, json!({"id": "task-7", "historyLength": 0}));
}

#[tokio::test]
async fn list_tasks_passes_the_filters_and_returns_the_page() {
    let (server, service) = serve_scripted().await;
    let request = ListTasksRequest {
        context_id: "ctx-1".into(),
        status: TaskState::Working.into(),
        page_size: Some(10),
        include_artifacts: Some(true),
        ..Default::default()
    };
    let page = server.client().list_tasks(&CallContext::v1(), request).await.unwrap();

    assert_eq!(page.tasks, [task("task-1", TaskState::Working)]);
    assert_eq!((page.page_size, page.total_size, page.next_page_token.as_str()), (10, 1, ""));
    assert_eq!(
        service.last_call().request,
        json!({"contextId": "ctx-1", "status": "TASK_STATE_WORKING", "pageSize": 10, "includeArtifacts": true})
    );
}

#[tokio::test]
async fn cancel_task_returns_the_canceled_task() {
    let (server, service) = serve_scripted().await;
    let request = CancelTaskRequest { id: "task-3".into(), ..Default::default() };
    let got = server.client().cancel_task(&CallContext::v1(), request).await.unwrap();

    assert_eq!(got.state(), TaskState::Canceled);
    assert_eq!(service.last_call().operation, Operation::CancelTask);
    assert_eq!(service.last_call().request["id"], "task-3");
}

#[tokio::test]
async fn subscribe_to_task_yields_the_task_first_then_its_updates() {
    let (server, service) = serve_scripted().await;
    let request = SubscribeToTaskRequest { id: "task-9".into(), ..Default::default() };
    let stream = server.client().subscribe_to_task(&CallContext::v1(), request).await.unwrap();
    let events: Vec<_> = stream.map(Result::unwrap).collect().await;

    assert!(matches!(events[0].payload, Some(stream_response::Payload::Task(ref t)) if t.id == "task-9"));
    assert_eq!(events, stream_events("task-9"));
    assert_eq!(service.last_call().operation, Operation::SubscribeToTask);
}

#[tokio::test]
async fn create_push_config_sends_the_config_and_returns_it_with_its_id() {
    let (server, service) = serve_scripted().await;
    let config = TaskPushNotificationConfig {
        task_id: "task-1".into(),
        url: "https://client.example.com/webhook".into(),
        token: "secret".into(),
        ..Default::default()
    };
    let created = server
        .client()
        .create_task_push_notification_config(&CallContext::v1(), config.clone())
        .await
        .unwrap();

    assert_eq!(created, TaskPushNotificationConfig { id: "cfg-1".into(), ..config });
    assert_eq!(service.last_call().request["token"], "secret");
}

#[tokio::test]
async fn get_push_config_returns_the_named_config() {
    let (server, _service) = serve_scripted().await;
    let request = GetTaskPushNotificationConfigRequest {
        task_id: "task-1".into(),
        id: "cfg-4".into(),
        ..Default::default()
    };
    let config =
        server.client().get_task_push_notification_config(&CallContext::v1(), request).await.unwrap();
    assert_eq!((config.task_id.as_str(), config.id.as_str()), ("task-1", "cfg-4"));
}

#[tokio::test]
async fn list_push_configs_returns_every_config() {
    let (server, service) = serve_scripted().await;
    let request = ListTaskPushNotificationConfigsRequest { task_id: "task-1".into(), ..Default::default() };
    let list =
        server.client().list_task_push_notification_configs(&CallContext::v1(), request).await.unwrap();

    let ids: Vec<_> = list.configs.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["cfg-1", "cfg-2"]);
    assert_eq!(service.last_call().request, json!({"taskId": "task-1"}));
}

#[tokio::test]
async fn delete_push_config_succeeds_and_reaches_the_service() {
    let (server, service) = serve_scripted().await;
    let request = DeleteTaskPushNotificationConfigRequest {
        task_id: "task-1".into(),
        id: "cfg-1".into(),
        ..Default::default()
    };
    server.client().delete_task_push_notification_config(&CallContext::v1(), request).await.unwrap();

    let call = service.last_call();
    assert_eq!(call.operation, Operation::DeleteTaskPushNotificationConfig);
    assert_eq!(call.request, json!({"taskId": "task-1", "id": "cfg-1"}));
}

#[tokio::test]
async fn get_extended_agent_card_returns_the_card() {
    let (server, service) = serve_scripted().await;
    let card = server
        .client()
        .get_extended_agent_card(&CallContext::v1(), GetExtendedAgentCardRequest::default())
        .await
        .unwrap();
    assert_eq!(card, agent_card());
    assert_eq!(service.last_call().operation, Operation::GetExtendedAgentCard);
}

#[tokio::test]
async fn tenant_in_the_request_message_reaches_the_service() {
    let (server, service) = serve_scripted().await;
    let request = GetTaskRequest { id: "t".into(), tenant: "acme".into(), ..Default::default() };
    server.client().get_task(&CallContext::v1(), request).await.unwrap();
    assert_eq!(service.last_call().request["tenant"], "acme");
}
