//! Without the `v03` feature: `server_v03` still serves 0.3's `a2a.v1.A2AService`, refusing every
//! call with VersionNotSupported before anything reaches the service, and a client asked for 0.3
//! fails every call without sending it.

use a2a_core::{A2aService, CallContext, Error, ProtocolVersion};
use a2a_proto::v0_3;
use a2a_proto::v0_3::grpc::a2a_service_client::A2aServiceClient;
use tonic::transport::Server;
use tonic::Code;

use crate::support::{wire_details, Scripted, TestServer};

async fn start() -> (std::sync::Arc<Scripted>, TestServer) {
    let service = Scripted::new();
    let router = Server::builder()
        .add_service(a2a_grpc::server(service.clone()))
        .add_service(a2a_grpc::server_v03(service.clone()));
    (service, TestServer::start_router(router).await)
}

fn assert_refused(status: &tonic::Status, what: &str) {
    assert_eq!(status.code(), Code::FailedPrecondition, "{what}: {status:?}");
    let info = wire_details(status).error_info.unwrap_or_else(|| panic!("{what}: no ErrorInfo"));
    assert_eq!(info.reason, "VERSION_NOT_SUPPORTED", "{what}");
    assert_eq!(info.metadata["version"], "0.3", "{what}");
    assert_eq!(info.metadata["supportedVersions"], "1.0", "{what}");
}

#[tokio::test]
async fn every_0_3_call_is_refused_with_version_not_supported() {
    let (service, server) = start().await;
    let mut v03 = A2aServiceClient::new(server.channel().await);
    let send = v0_3::SendMessageRequest::default();
    assert_refused(&v03.send_message(send.clone()).await.unwrap_err(), "SendMessage");
    assert_refused(&v03.send_streaming_message(send).await.err().unwrap(), "SendStreamingMessage");
    assert_refused(&v03.get_task(v0_3::GetTaskRequest::default()).await.unwrap_err(), "GetTask");
    assert_refused(&v03.cancel_task(v0_3::CancelTaskRequest::default()).await.unwrap_err(), "CancelTask");
    let subscribe = v0_3::TaskSubscriptionRequest::default();
    assert_refused(&v03.task_subscription(subscribe).await.err().unwrap(), "TaskSubscription");
    let create = v0_3::CreateTaskPushNotificationConfigRequest::default();
    assert_refused(&v03.create_task_push_notification_config(create).await.unwrap_err(), "Create");
    let get = v0_3::GetTaskPushNotificationConfigRequest::default();
    assert_refused(&v03.get_task_push_notification_config(get).await.unwrap_err(), "Get");
    let list = v0_3::ListTaskPushNotificationConfigRequest::default();
    assert_refused(&v03.list_task_push_notification_config(list).await.unwrap_err(), "List");
    let delete = v0_3::DeleteTaskPushNotificationConfigRequest::default();
    assert_refused(&v03.delete_task_push_notification_config(delete).await.unwrap_err(), "Delete");
    assert_refused(
        &v03.get_agent_card(v0_3::GetAgentCardRequest::default()).await.unwrap_err(),
        "GetAgentCard",
    );
    assert!(service.operations().is_empty(), "nothing reaches the service");
    // The 1.0 service on the same server answers.
    let mut v1 = server.raw_client().await;
    v1.get_task(a2a_proto::v1::GetTaskRequest { id: "t1".into(), ..Default::default() }).await.unwrap();
    server.stop().await;
}

#[tokio::test]
async fn a_0_3_client_fails_every_call_without_sending_it() {
    let (service, server) = start().await;
    let client = server.client().await.with_protocol_version(ProtocolVersion::V0_3);
    assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);
    let request = a2a_proto::v1::GetTaskRequest { id: "t1".into(), ..Default::default() };
    let error = client.get_task(&CallContext::v1(), request.clone()).await.unwrap_err();
    assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
    assert!(error.to_string().contains("a2a-grpc") && error.to_string().contains("`v03` feature"), "{error}");
    assert!(service.operations().is_empty());
    let client = client.with_protocol_version(ProtocolVersion::V1_0);
    client.get_task(&CallContext::v1(), request).await.unwrap();
    assert_eq!(service.operations().len(), 1);
    server.stop().await;
}
