//! Bodies that are not JSON, not a request object, or carry params that do not fit: each gets
//! the JSON-RPC 2.0 error with the right code and id, with HTTP 200 and a JSON body.

use a2a_core::error::BAD_REQUEST_TYPE;
use a2a_core::Operation;
use a2a_jsonrpc::JsonRpcServer;
use serde_json::{json, Value};

use crate::support::{post_raw, rpc, serve_scripted, Scripted, TestServer};

/// Posts `body` and returns `(error.code, id)` of the answer, asserting it is an error.
async fn error_of(url: &str, body: &str) -> (i64, Value) {
    let answer = rpc(url, body).await;
    assert_eq!(answer["jsonrpc"], "2.0");
    assert!(answer.get("result").is_none(), "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "{answer}");
    (answer["error"]["code"].as_i64().unwrap(), answer["id"].clone())
}

#[tokio::test]
async fn bodies_that_are_not_json_are_parse_errors_with_null_id() {
    let (server, service) = serve_scripted().await;
    for body in ["", "not json", "{", r#"{"jsonrpc":"2.0","id":1,"method":"GetTask"} trailing"#, "{'a':1}"] {
        assert_eq!(error_of(&server.url, body).await, (-32700, Value::Null), "{body:?}");
    }
    // Invalid UTF-8 inside a string.
    let raw =
        post_raw(&server.url, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}".to_vec(), &[]).await;
    assert_eq!(raw.json()["error"]["code"], -32700);
    assert!(service.calls().is_empty());
}

#[tokio::test]
async fn batches_are_answered_with_one_invalid_request_error() {
    let (server, service) = serve_scripted().await;
    let one = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#;
    for body in ["[]".to_owned(), format!("[{one}]"), format!("[{one},{one}]")] {
        let answer = rpc(&server.url, &body).await;
        assert_eq!(answer["error"]["code"], -32600, "{body}");
        assert_eq!(answer["id"], Value::Null);
        assert!(answer["error"]["message"].as_str().unwrap().contains("batch"), "{answer}");
    }
    assert!(service.calls().is_empty());
}

#[tokio::test]
async fn malformed_envelopes_are_invalid_requests() {
    let (server, service) = serve_scripted().await;
    let cases = [
        // Not an object.
        (r#""GetTask""#, Value::Null),
        ("42", Value::Null),
        ("null", Value::Null),
        // `jsonrpc` missing, wrong, or not a string: the id is echoed.
        (r#"{"id":1,"method":"GetTask","params":{}}"#, json!(1)),
        (r#"{"jsonrpc":"1.0","id":2,"method":"GetTask","params":{}}"#, json!(2)),
        (r#"{"jsonrpc":2.0,"id":3,"method":"GetTask","params":{}}"#, json!(3)),
        // `method` missing or not a string.
        (r#"{"jsonrpc":"2.0","id":"m","params":{}}"#, json!("m")),
        (r#"{"jsonrpc":"2.0","id":"n","method":42}"#, json!("n")),
        (r#"{"jsonrpc":"2.0","id":"o","method":null}"#, json!("o")),
        // An id of a type JSON-RPC does not allow cannot be echoed.
        (r#"{"jsonrpc":"2.0","id":{"a":1},"method":"GetTask","params":{}}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":[1],"method":"GetTask","params":{}}"#, Value::Null),
        (r#"{"jsonrpc":"2.0","id":true,"method":"GetTask","params":{}}"#, Value::Null),
        // A member given twice.
        (r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","method":"CancelTask"}"#, Value::Null),
    ];
    for (body, id) in cases {
        assert_eq!(error_of(&server.url, body).await, (-32600, id), "{body}");
    }
    assert!(service.calls().is_empty());
}

#[tokio::test]
async fn unknown_methods_are_method_not_found_with_the_id() {
    let (server, service) = serve_scripted().await;
    // Neither 1.0 (spec 9.1: PascalCase) nor 0.3 methods (slash names are served as 0.3, see
    // `v03.rs`; 0.3 has no `tasks/list`), and wrong case.
    for method in ["tasks/list", "Message/Send", "gettask", "Frobnicate", ""] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":"u","method":"{method}","params":{{}}}}"#);
        assert_eq!(error_of(&server.url, &body).await, (-32601, json!("u")), "{method}");
    }
    assert!(service.calls().is_empty());
}

#[tokio::test]
async fn params_that_are_not_an_object_are_invalid_params() {
    let (server, service) = serve_scripted().await;
    for params in [r#"["task-1"]"#, r#""task-1""#, "7", "true"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{params}}}"#);
        let answer = rpc(&server.url, &body).await;
        assert_eq!(answer["error"]["code"], -32602, "{params}");
        assert_eq!(answer["error"]["data"][0]["fieldViolations"][0]["field"], "params");
    }
    assert!(service.calls().is_empty());
}

#[tokio::test]
async fn undecodable_params_are_invalid_params_naming_the_field() {
    let (server, service) = serve_scripted().await;
    let cases = [
        ("GetTask", r#"{"id": 5}"#, "id"),
        ("GetTask", r#"{"id": "t", "historyLength": "ten"}"#, "historyLength"),
        ("ListTasks", r#"{"status": "TASK_STATE_RUNNING"}"#, "status"),
        ("ListTasks", r#"{"statusTimestampAfter": "yesterday"}"#, "statusTimestampAfter"),
        (
            "SendMessage",
            r#"{"message": {"role": "ROLE_USER", "parts": [{"text": 1}]}}"#,
            "message.parts[0].text",
        ),
        ("SendMessage", r#"{"message": {"role": "ROLE_ROBOT"}}"#, "message.role"),
        ("CreateTaskPushNotificationConfig", r#"{"url": ["x"]}"#, "url"),
    ];
    for (method, params, field) in cases {
        let body = format!(r#"{{"jsonrpc":"2.0","id":9,"method":"{method}","params":{params}}}"#);
        let answer = rpc(&server.url, &body).await;
        assert_eq!(answer["id"], 9);
        assert_eq!(answer["error"]["code"], -32602, "{method} {params}: {answer}");
        let detail = &answer["error"]["data"][0];
        assert_eq!(detail["@type"], BAD_REQUEST_TYPE);
        assert_eq!(detail["fieldViolations"][0]["field"], field, "{method} {params}: {answer}");
    }
    assert!(service.calls().is_empty());
}

#[tokio::test]
async fn a_body_over_the_limit_is_an_invalid_request() {
    let service = Scripted::new();
    let server =
        TestServer::start(JsonRpcServer::new(service.clone()).max_body_bytes(256).into_router()).await;
    let padding = "x".repeat(1024);
    let body = format!(r#"{{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{{"id":"{padding}"}}}}"#);

    let answer = rpc(&server.url, &body).await;
    assert_eq!(answer["error"]["code"], -32600);
    assert_eq!(answer["id"], Value::Null);
    assert!(answer["error"]["message"].as_str().unwrap().contains("256 bytes"), "{answer}");
    assert!(service.calls().is_empty());

    // A body under the limit still works.
    let answer = rpc(&server.url, r#"{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"t"}}"#).await;
    assert_eq!(answer["result"]["id"], "t");
}

#[tokio::test]
async fn notifications_are_executed_and_answered_with_no_content() {
    let (server, service) = serve_scripted().await;
    let raw =
        post_raw(&server.url, r#"{"jsonrpc":"2.0","method":"CancelTask","params":{"id":"t-1"}}"#, &[]).await;
    assert_eq!(raw.status, 204);
    assert!(raw.body.is_empty());
    assert_eq!(service.last_call().operation, Operation::CancelTask);

    // Failures of notifications are not reported either (JSON-RPC 2.0 section 4.1).
    for body in [
        r#"{"jsonrpc":"2.0","method":"NoSuchMethod"}"#,
        r#"{"jsonrpc":"2.0","method":"GetTask","params":{"id":5}}"#,
        r#"{"jsonrpc":"2.0","method":"SubscribeToTask","params":{"id":"t-1"}}"#,
    ] {
        let raw = post_raw(&server.url, body, &[]).await;
        assert_eq!((raw.status.as_u16(), raw.body.as_str()), (204, ""), "{body}");
    }
}

#[tokio::test]
async fn a_request_without_id_but_with_a_bad_envelope_is_answered() {
    let (server, _service) = serve_scripted().await;
    // Not a valid request object, so not a notification either: the error carries id null.
    assert_eq!(error_of(&server.url, r#"{"method":"GetTask"}"#).await, (-32600, Value::Null));
}

#[tokio::test]
async fn other_http_methods_are_not_allowed() {
    let (server, _service) = serve_scripted().await;
    let response = reqwest::Client::new().get(&server.url).send().await.unwrap();
    assert_eq!(response.status(), 405);
}

#[tokio::test]
async fn params_nested_deeper_than_protobuf_can_carry_are_invalid_params() {
    // Found by fuzzing (docs/fuzzing.md): message metadata nested 60 deep was accepted, and the
    // finished task could then not be decoded by the store. Spec 9.5: invalid params, -32602.
    let (server, service) = serve_scripted().await;
    let metadata = format!("{}1{}", r#"{"a":"#.repeat(60), "}".repeat(60));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{{"message":{{"messageId":"m","role":"ROLE_USER","parts":[{{"text":"hi"}}],"metadata":{metadata}}}}}}}"#
    );
    assert_eq!(error_of(&server.url, &body).await, (-32602, json!(7)));
    // The 0.3 method on the same endpoint too.
    #[cfg(feature = "v03")]
    {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":8,"method":"message/send","params":{{"message":{{"kind":"message","messageId":"m","role":"user","parts":[{{"kind":"text","text":"hi"}}],"metadata":{metadata}}}}}}}"#
        );
        assert_eq!(error_of(&server.url, &body).await, (-32602, json!(8)));
    }
    assert!(service.calls().is_empty());
}
