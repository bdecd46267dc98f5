//! A2A 0.3 on the same endpoint: slash methods reach the same service as the 1.0 operation and are
//! answered in 0.3 shape with 0.3 codes, whatever `A2A-Version` says.

use a2a_core::{Error, Operation};
use a2a_proto::v1::TaskState;
use serde_json::json;

use crate::support::{post_raw, serve_scripted};

const SEND: &str = r#"{"jsonrpc":"2.0","id":"req-1","method":"message/send","params":{"message":{"kind":"message","role":"user","messageId":"m1","parts":[{"kind":"text","text":"hi"}]},"configuration":{"blocking":false}}}"#;

#[tokio::test]
async fn a_slash_method_is_the_1_0_operation_answered_in_0_3_shape() {
    let (server, service) = serve_scripted().await;
    let raw = post_raw(&server.url, SEND, &[("X-A2A-Extensions", "urn:ext")]).await;
    assert_eq!((raw.status.as_u16(), raw.content_type.as_str()), (200, "application/json"));
    let reply = raw.json();
    assert_eq!(reply["id"], "req-1");
    assert_eq!(reply["result"]["kind"], "task");
    assert_eq!(reply["result"]["status"]["state"], "completed");
    let call = service.last_call();
    assert_eq!(call.operation, Operation::SendMessage);
    assert_eq!(call.request["message"]["parts"][0]["text"], "hi");
    assert_eq!(call.request["configuration"]["returnImmediately"], true, "blocking: false");
    // Core serves 1.0: the translated request carries 1.0 and 0.3's extensions header.
    assert_eq!(call.ctx.params.version(), Some("1.0"));
    assert_eq!(call.ctx.params.extensions(), ["urn:ext"]);
}

#[tokio::test]
async fn the_method_name_decides_over_the_version_header() {
    let (server, _service) = serve_scripted().await;
    for version in ["1.0", "0.3", "9.9"] {
        let reply = post_raw(&server.url, SEND, &[("A2A-Version", version)]).await.json();
        assert_eq!(reply["result"]["kind"], "task", "A2A-Version {version}");
    }
}

#[tokio::test]
async fn a_0_3_notification_is_executed_and_answered_with_204() {
    let (server, service) = serve_scripted().await;
    let body = r#"{"jsonrpc":"2.0","method":"tasks/get","params":{"id":"t9"}}"#;
    let raw = post_raw(&server.url, body, &[]).await;
    assert_eq!(raw.status.as_u16(), 204);
    assert!(raw.body.is_empty());
    assert_eq!(service.last_call().operation, Operation::GetTask);
    assert_eq!(service.last_call().request["id"], "t9");
}

#[tokio::test]
async fn service_errors_and_bad_params_get_0_3_error_objects() {
    let (server, service) = serve_scripted().await;
    let raw =
        post_raw(&server.url, r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":[1]}"#, &[]).await;
    assert_eq!(raw.json()["error"]["code"], -32602);
    // `tasks/list` is no 0.3 JSON-RPC method (0.3 spec 3.5.6: gRPC/REST only).
    let raw =
        post_raw(&server.url, r#"{"jsonrpc":"2.0","id":2,"method":"tasks/list","params":{}}"#, &[]).await;
    let reply = raw.json();
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    service.fail_with(|| Error::TaskNotCancelable { task_id: "t1".into(), state: TaskState::Completed });
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"id":"t1"}}"#;
    let reply = post_raw(&server.url, body, &[]).await.json();
    assert_eq!((reply["id"].as_i64(), reply["error"]["code"].as_i64()), (Some(3), Some(-32002)), "{reply}");
    assert!(reply.get("result").is_none());
}

#[tokio::test]
async fn message_stream_sends_0_3_events_and_ends_after_final() {
    let (server, _service) = serve_scripted().await;
    let body = SEND.replace("message/send", "message/stream");
    let raw = post_raw(&server.url, body, &[]).await;
    assert!(raw.content_type.starts_with("text/event-stream"), "{}", raw.content_type);
    let events = raw.events();
    let kinds: Vec<_> = events.iter().map(|e| e["result"]["kind"].as_str().unwrap().to_owned()).collect();
    assert_eq!(kinds, ["task", "status-update", "artifact-update", "status-update"]);
    assert!(events.iter().all(|e| e["id"] == "req-1" && e["jsonrpc"] == "2.0"));
    assert_eq!(events[1]["result"]["final"], false);
    assert_eq!(events[3]["result"]["final"], true);
}

#[tokio::test]
async fn an_error_in_a_0_3_stream_is_its_last_event_with_the_0_3_code() {
    let (server, service) = serve_scripted().await;
    service.fail_stream_after(1, || Error::TaskNotFound { task_id: "t1".into() });
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": "tasks/resubscribe", "params": {"id": "t1"}});
    let events = post_raw(&server.url, body.to_string(), &[]).await.events();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["result"]["kind"], "task");
    assert_eq!(events[1]["error"]["code"], -32001);
    assert_eq!(events[1]["id"], 5);
}
