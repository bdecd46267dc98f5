//! `server_v03`: A2A 0.3's `a2a.v1.A2AService` beside `lf.a2a.v1.A2AService` on one server, seen
//! by the generated 0.3 tonic client.

use std::time::Duration;

use a2a_core::{Error, Operation};
use a2a_proto::v0_3;
use a2a_proto::v0_3::grpc::a2a_service_client::A2aServiceClient;
use tonic::transport::Server;
use tonic::Code;

use crate::support::{error_cases, error_trigger, Scripted, TestServer};

async fn start() -> (std::sync::Arc<Scripted>, TestServer) {
    let service = Scripted::new();
    let router = Server::builder()
        .add_service(a2a_grpc::server(service.clone()))
        .add_service(a2a_grpc::server_v03(service.clone()));
    (service, TestServer::start_router(router).await)
}

fn message(text: &str) -> v0_3::Message {
    v0_3::Message {
        message_id: "m-1".into(),
        role: v0_3::Role::User as i32,
        content: vec![v0_3::Part { part: Some(v0_3::part::Part::Text(text.into())) }],
        ..Default::default()
    }
}

fn index_of(matches: impl Fn(&Error) -> bool) -> usize {
    error_cases().iter().position(|case| matches(&case.error)).unwrap()
}

#[tokio::test]
async fn both_packages_are_served_and_reach_the_same_service_in_1_0() {
    let (service, server) = start().await;
    let mut v03 = A2aServiceClient::new(server.channel().await);
    let request = v0_3::SendMessageRequest { request: Some(message("hi")), ..Default::default() };
    let mut call = tonic::Request::new(request);
    call.metadata_mut().insert("x-a2a-extensions", "urn:ext".parse().unwrap());
    let reply = v03.send_message(call).await.unwrap().into_inner();
    let Some(v0_3::send_message_response::Payload::Task(task)) = reply.payload else { panic!("{reply:?}") };
    assert_eq!(task.id, "task-1");
    assert_eq!(task.history[0].content[0].part, Some(v0_3::part::Part::Text("hi".into())));
    let ctx = service.last_context();
    assert_eq!(ctx.params.version(), Some("1.0"), "the service is called in 1.0");
    assert_eq!(ctx.params.extensions(), ["urn:ext"]);
    // The 1.0 service on the same server still answers.
    let mut v1 = server.raw_client().await;
    v1.get_task(a2a_proto::v1::GetTaskRequest { id: "t1".into(), ..Default::default() }).await.unwrap();
    assert_eq!(service.operations(), [Operation::SendMessage, Operation::GetTask]);
    server.stop().await;
}

#[tokio::test]
async fn resource_names_become_ids_and_push_configs_round_trip() {
    let (service, server) = start().await;
    let mut v03 = A2aServiceClient::new(server.channel().await);
    let task = v03
        .get_task(v0_3::GetTaskRequest { name: "tasks/t-7".into(), history_length: 3 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(task.id, "t-7");
    let config = v03
        .get_task_push_notification_config(v0_3::GetTaskPushNotificationConfigRequest {
            name: "tasks/t-7/pushNotificationConfigs/c-1".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(config.name, "tasks/t-7/pushNotificationConfigs/c-1");
    assert_eq!(config.push_notification_config.unwrap().token, "secret-token");
    v03.delete_task_push_notification_config(v0_3::DeleteTaskPushNotificationConfigRequest {
        name: "tasks/t-7/pushNotificationConfigs/c-1".into(),
    })
    .await
    .unwrap();
    assert_eq!(
        service.operations(),
        [
            Operation::GetTask,
            Operation::GetTaskPushNotificationConfig,
            Operation::DeleteTaskPushNotificationConfig
        ]
    );
    server.stop().await;
}

#[tokio::test]
async fn the_0_3_stream_ends_with_the_final_status_update() {
    let (_service, server) = start().await;
    let mut v03 = A2aServiceClient::new(server.channel().await);
    let request = v0_3::SendMessageRequest { request: Some(message("go")), ..Default::default() };
    let mut stream = v03.send_streaming_message(request).await.unwrap().into_inner();
    let mut finals = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(10), stream.message())
        .await
        .expect("the stream ends")
        .unwrap()
    {
        if let Some(v0_3::stream_response::Payload::StatusUpdate(update)) = event.payload {
            finals.push(update.r#final);
        }
    }
    assert_eq!(finals, [false, true]);
    server.stop().await;
}

#[tokio::test]
async fn errors_keep_the_1_0_status_and_add_the_0_3_code() {
    let (service, server) = start().await;
    let mut v03 = A2aServiceClient::new(server.channel().await);
    let not_found = error_trigger(index_of(|e| matches!(e, Error::TaskNotFound { .. })));
    let status = v03
        .get_task(v0_3::GetTaskRequest { name: format!("tasks/{not_found}"), history_length: 0 })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    assert_eq!(status.metadata().get("a2a-error").unwrap(), "-32001");
    assert!(matches!(a2a_grpc::error::from_status(&status), Error::TaskNotFound { .. }));
    // An invalid 0.3 message (a role the 0.3 proto does not define) never reaches the service.
    let bad = v0_3::Message { role: 7, ..message("x") };
    let status = v03
        .send_message(v0_3::SendMessageRequest { request: Some(bad), ..Default::default() })
        .await
        .unwrap_err();
    assert_eq!(status.code(), Code::InvalidArgument);
    assert_eq!(status.metadata().get("a2a-error").unwrap(), "-32602");
    let error = a2a_grpc::error::from_status(&status);
    assert!(matches!(error, Error::InvalidParams { .. }), "{error:?}");
    assert_eq!(service.operations(), [Operation::GetTask]);
    server.stop().await;
}
