//! `GrpcClient` against `a2a_grpc::server`: each of the 11 operations of spec 3.1 reaches the
//! service with its request intact and brings the reply back intact.

use a2a_core::{A2aService, CallContext, Operation};
use a2a_proto::v1::{
    send_message_response, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, Part, SendMessageRequest,
    SubscribeToTaskRequest, TaskState,
};
use futures::StreamExt;

use crate::support::{
    push_config, streamed_events, subscribed_events, task, Scripted, TestServer, REPLY_WITH_MESSAGE,
};

fn send_request(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

#[tokio::test]
async fn all_eleven_operations_round_trip_through_client_and_server() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let client = server.client().await;
    let ctx = CallContext::v1();

    // 3.1.1 SendMessage: the message arrives whole (the service echoes it into the history).
    let message =
        Message::user(vec![Part::text("hi"), Part::raw(vec![0, 1, 2, 255], "application/octet-stream")])
            .with_context_id("ctx-1");
    let request = SendMessageRequest { message: Some(message.clone()), ..Default::default() };
    match client.send_message(&ctx, request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => {
            assert_eq!(task.id, "task-1");
            assert_eq!(task.state(), TaskState::Working);
            assert_eq!(task.history, [message]);
        }
        other => panic!("expected a Task, got {other:?}"),
    }
    // ... or a Message, the other arm of the reply.
    match client.send_message(&ctx, send_request(REPLY_WITH_MESSAGE)).await.unwrap().payload {
        Some(send_message_response::Payload::Message(reply)) => assert_eq!(reply.text(), "hello"),
        other => panic!("expected a Message, got {other:?}"),
    }

    // 3.1.2 SendStreamingMessage.
    let events: Vec<_> =
        client.send_streaming_message(&ctx, send_request("stream")).await.unwrap().collect().await;
    let events: Vec<_> = events.into_iter().map(Result::unwrap).collect();
    assert_eq!(events, streamed_events());

    // 3.1.3 GetTask, with a request field (tenant) echoed back.
    let request = GetTaskRequest { id: "task-7".into(), tenant: "acme".into(), history_length: Some(2) };
    let got = client.get_task(&ctx, request).await.unwrap();
    assert_eq!(got.id, "task-7");
    assert_eq!(got.metadata.unwrap().fields["tenant"], pbjson_types::Value::from("acme"));

    // 3.1.4 ListTasks.
    let listed =
        client.list_tasks(&ctx, ListTasksRequest { page_size: Some(2), ..Default::default() }).await.unwrap();
    assert_eq!(listed.tasks, [task("task-2", TaskState::Working), task("task-1", TaskState::Completed)]);
    assert_eq!((listed.next_page_token.as_str(), listed.page_size, listed.total_size), ("page-2", 2, 7));

    // 3.1.5 CancelTask.
    let canceled = client
        .cancel_task(&ctx, CancelTaskRequest { id: "task-7".into(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(canceled, task("task-7", TaskState::Canceled));

    // 3.1.6 SubscribeToTask.
    let request = SubscribeToTaskRequest { id: "task-7".into(), ..Default::default() };
    let events: Vec<_> = client.subscribe_to_task(&ctx, request).await.unwrap().collect().await;
    let events: Vec<_> = events.into_iter().map(Result::unwrap).collect();
    assert_eq!(events, subscribed_events("task-7"));

    // 3.1.7 CreateTaskPushNotificationConfig: the service assigns the id.
    let config = push_config("task-7", "");
    let created = client.create_task_push_notification_config(&ctx, config.clone()).await.unwrap();
    assert_eq!(created, a2a_proto::v1::TaskPushNotificationConfig { id: "cfg-new".into(), ..config });

    // 3.1.8 GetTaskPushNotificationConfig.
    let request = GetTaskPushNotificationConfigRequest {
        task_id: "task-7".into(),
        id: "cfg-1".into(),
        ..Default::default()
    };
    assert_eq!(
        client.get_task_push_notification_config(&ctx, request).await.unwrap(),
        push_config("task-7", "cfg-1")
    );

    // 3.1.9 ListTaskPushNotificationConfigs.
    let request = ListTaskPushNotificationConfigsRequest { task_id: "task-7".into(), ..Default::default() };
    let listed = client.list_task_push_notification_configs(&ctx, request).await.unwrap();
    assert_eq!(listed.configs, [push_config("task-7", "cfg-1"), push_config("task-7", "cfg-2")]);

    // 3.1.10 DeleteTaskPushNotificationConfig: google.protobuf.Empty on the wire.
    let request = DeleteTaskPushNotificationConfigRequest {
        task_id: "task-7".into(),
        id: "cfg-1".into(),
        ..Default::default()
    };
    client.delete_task_push_notification_config(&ctx, request).await.unwrap();

    // 3.1.11 GetExtendedAgentCard.
    let card = client.get_extended_agent_card(&ctx, GetExtendedAgentCardRequest::default()).await.unwrap();
    assert_eq!((card.name.as_str(), card.version.as_str()), ("Scripted agent", "1.2.3"));

    let mut expected = Operation::ALL.to_vec();
    expected.insert(1, Operation::SendMessage); // the second SendMessage, replied to with a Message
    assert_eq!(scripted.operations(), expected);

    drop(client);
    server.stop().await;
}

#[tokio::test]
async fn a_message_above_tonics_4_mib_default_limit_is_accepted() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let client = server.client().await;

    // 6 MiB inline file: over tonic's 4 MiB default, under DEFAULT_MAX_MESSAGE_SIZE, both ways
    // (the scripted reply echoes the message in the task history).
    let file = vec![7u8; 6 * 1024 * 1024];
    let message = Message::user(vec![Part::raw(file.clone(), "application/octet-stream")]);
    let request = SendMessageRequest { message: Some(message), ..Default::default() };
    match client.send_message(&CallContext::v1(), request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => {
            assert_eq!(task.history[0].parts[0], Part::raw(file, "application/octet-stream"));
        }
        other => panic!("expected a Task, got {other:?}"),
    }

    drop(client);
    server.stop().await;
}

#[tokio::test]
async fn a_message_above_the_configured_limit_is_refused_before_reaching_the_service() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    // The client's own limit would stop the request first; lift it to see the server's.
    let client = server.client().await.max_message_size(64 * 1024 * 1024);

    let file = vec![7u8; a2a_grpc::DEFAULT_MAX_MESSAGE_SIZE + 1];
    let message = Message::user(vec![Part::raw(file, "application/octet-stream")]);
    let request = SendMessageRequest { message: Some(message), ..Default::default() };
    let error = client.send_message(&CallContext::v1(), request).await.unwrap_err();
    // tonic answers RESOURCE_EXHAUSTED, which carries no A2A error: read as Internal.
    assert!(matches!(error, a2a_core::Error::Internal { .. }), "{error:?}");
    assert!(scripted.operations().is_empty());

    drop(client);
    server.stop().await;
}
