//! Without the `v03` feature: the endpoint serves 1.0 only. Each 0.3 method is refused with
//! VersionNotSupported (1.0 envelope, the request's id) before anything reaches the service, and
//! a client asked for 0.3 fails every call without sending it.

use a2a_core::{A2aService, CallContext, Error, ProtocolVersion};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{GetTaskRequest, SendMessageRequest};
use serde_json::json;

use crate::support::{post_raw, rpc, serve_scripted};

#[tokio::test]
async fn every_0_3_method_is_refused_with_version_not_supported() {
    let (server, service) = serve_scripted().await;
    // `a2a_v03::Method::ALL` (a dev-dependency): the names the crate recognises without it.
    for method in a2a_v03::Method::ALL {
        let body = json!({"jsonrpc": "2.0", "id": method.name(), "method": method.name(), "params": {}});
        for version in ["0.3", "1.0"] {
            let answer = post_raw(&server.url, body.to_string(), &[("A2A-Version", version)]).await;
            assert_eq!((answer.status.as_u16(), answer.content_type.as_str()), (200, "application/json"));
            let answer = answer.json();
            assert_eq!(answer["id"], method.name());
            assert_eq!(
                answer["error"]["code"],
                -32009,
                "{} with A2A-Version {version}: {answer}",
                method.name()
            );
            assert_eq!(answer["error"]["data"][0]["reason"], "VERSION_NOT_SUPPORTED");
            assert_eq!(answer["error"]["data"][0]["metadata"]["version"], "0.3");
            assert_eq!(answer["error"]["data"][0]["metadata"]["supportedVersions"], "1.0");
        }
    }
    // A 0.3 notification gets no answer, as any notification.
    let notification = json!({"jsonrpc": "2.0", "method": "message/send", "params": {}});
    let answer = post_raw(&server.url, notification.to_string(), &[]).await;
    assert_eq!((answer.status.as_u16(), answer.body.as_str()), (204, ""));
    assert!(service.calls().is_empty(), "nothing reaches the service");
    // A slash name that is no 0.3 method is unknown, as with the feature on.
    let answer = rpc(&server.url, r#"{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}"#).await;
    assert_eq!(answer["error"]["code"], -32601);
    // 1.0 is served.
    let answer =
        rpc(&server.url, r#"{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"t1"}}"#).await;
    assert!(answer.get("result").is_some(), "{answer}");
}

#[tokio::test]
async fn a_0_3_client_fails_every_call_without_sending_it() {
    let (server, service) = serve_scripted().await;
    let client = JsonRpcClient::new(&server.url).with_protocol_version(ProtocolVersion::V0_3);
    assert_eq!(client.protocol_version(), ProtocolVersion::V0_3);
    let ctx = CallContext::v1();
    let error =
        client.get_task(&ctx, GetTaskRequest { id: "t1".into(), ..Default::default() }).await.unwrap_err();
    assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
    assert!(error.to_string().contains("`v03` feature"), "{error}");
    let error = client.send_streaming_message(&ctx, SendMessageRequest::default()).await.err().unwrap();
    assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
    assert!(service.calls().is_empty());
    // The same client in 1.0 calls the agent.
    let client = client.with_protocol_version(ProtocolVersion::V1_0);
    client.get_task(&ctx, GetTaskRequest { id: "t1".into(), ..Default::default() }).await.unwrap();
    assert_eq!(service.calls().len(), 1);
}
