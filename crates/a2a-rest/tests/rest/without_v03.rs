//! Without the `v03` feature: the router serves 1.0 only. Every path under `/v1/` is refused with
//! VersionNotSupported in the 1.0 error body before anything reaches the service, and a client
//! asked for 0.3 fails every call without sending it.

use a2a_core::{A2aService, CallContext, Error, ProtocolVersion};
use a2a_proto::v1::{GetTaskRequest, ListTasksRequest};
use serde_json::{json, Value};

use crate::support::{client, serve};

#[tokio::test]
async fn every_0_3_route_is_refused_with_version_not_supported() {
    let (service, server) = serve().await;
    let http = reqwest::Client::new();
    let send = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]}});
    let requests = [
        http.post(server.url("/v1/message:send")).json(&send),
        http.post(server.url("/v1/message:stream")).json(&send),
        http.get(server.url("/v1/tasks/t1")),
        http.post(server.url("/v1/tasks/t1:cancel")),
        http.post(server.url("/v1/tasks/t1:subscribe")),
        http.get(server.url("/v1/tasks/t1/pushNotificationConfigs")),
        http.delete(server.url("/v1/tasks/t1/pushNotificationConfigs/c1")),
        http.get(server.url("/v1/card")),
        // Not a 0.3 route either, but under `/v1/`: never the routes of a tenant `v1`.
        http.get(server.url("/v1/tasks")),
    ];
    for request in requests {
        let request = request.header("A2A-Version", "0.3").build().unwrap();
        let what = format!("{} {}", request.method(), request.url().path());
        let response = http.execute(request).await.unwrap();
        assert_eq!(response.status(), 400, "{what}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["status"], "FAILED_PRECONDITION", "{what}: {body}");
        let info = &body["error"]["details"][0];
        assert_eq!(info["reason"], "VERSION_NOT_SUPPORTED", "{what}: {body}");
        assert_eq!(
            (&info["metadata"]["version"], &info["metadata"]["supportedVersions"]),
            (&json!("0.3"), &json!("1.0"))
        );
    }
    assert!(service.calls().is_empty(), "nothing reaches the service");
    // 1.0 is served.
    let tasks = client(&server).list_tasks(&CallContext::v1(), ListTasksRequest::default()).await;
    assert!(tasks.is_ok(), "{tasks:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_0_3_client_fails_every_call_without_sending_it() {
    let (service, server) = serve().await;
    let client = client(&server).with_protocol_version(ProtocolVersion::V0_3);
    assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);
    let request = GetTaskRequest { id: "t1".into(), ..Default::default() };
    let error = client.get_task(&CallContext::v1(), request.clone()).await.unwrap_err();
    assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
    assert!(error.to_string().contains("a2a-rest") && error.to_string().contains("`v03` feature"), "{error}");
    assert!(service.calls().is_empty());
    let client = client.with_protocol_version(ProtocolVersion::V1_0);
    client.get_task(&CallContext::v1(), request).await.unwrap();
    assert_eq!(service.calls().len(), 1);
    server.stop().await;
}
