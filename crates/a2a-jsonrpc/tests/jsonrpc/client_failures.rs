//! The client against fake peers that answer a canned HTTP response, to pin how it reads foreign
//! and broken replies. A fresh client's first request has id 1.

use a2a_core::{A2aService, CallContext, Error, ServiceParams};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{DeleteTaskPushNotificationConfigRequest, GetTaskRequest, SubscribeToTaskRequest};
use axum::routing::post;
use futures::StreamExt;
use http::StatusCode;

use crate::support::TestServer;

/// A peer answering every POST with `status`, `content_type` and `body`.
async fn peer(status: u16, content_type: &'static str, body: &'static str) -> TestServer {
    let status = StatusCode::from_u16(status).unwrap();
    let router = axum::Router::new().route(
        "/",
        post(move || async move { (status, [(http::header::CONTENT_TYPE, content_type)], body) }),
    );
    TestServer::start(router).await
}

async fn get_task(server: &TestServer) -> Result<a2a_proto::v1::Task, Error> {
    let request = GetTaskRequest { id: "task-1".into(), ..Default::default() };
    server.client().get_task(&CallContext::v1(), request).await
}

async fn stream_items(server: &TestServer) -> Vec<Result<a2a_proto::v1::StreamResponse, Error>> {
    let request = SubscribeToTaskRequest { id: "task-1".into(), ..Default::default() };
    server.client().subscribe_to_task(&CallContext::v1(), request).await.unwrap().collect().await
}

#[tokio::test]
async fn an_unreachable_server_is_a_transport_error_naming_the_url() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    drop(listener);

    let error =
        JsonRpcClient::new(&url).get_task(&CallContext::v1(), GetTaskRequest::default()).await.unwrap_err();
    match error {
        Error::Transport { reason } => {
            assert!(reason.contains(&url) && reason.contains("GetTask"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_invalid_url_is_a_transport_error() {
    let error = JsonRpcClient::new("not a url").get_task(&CallContext::v1(), GetTaskRequest::default()).await;
    assert!(matches!(error, Err(Error::Transport { .. })), "{error:?}");
}

#[tokio::test]
async fn a_reply_that_is_not_json_rpc_is_a_transport_error() {
    let server = peer(200, "text/html", "<html>hello</html>").await;
    let error = get_task(&server).await.unwrap_err();
    assert!(
        matches!(error, Error::Transport { ref reason } if reason.contains("not a JSON-RPC response")),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_http_error_without_a_json_rpc_body_is_a_transport_error_naming_the_status() {
    let server = peer(502, "text/plain", "upstream down").await;
    let error = get_task(&server).await.unwrap_err();
    match error {
        Error::Transport { reason } => assert_eq!(reason, "HTTP 502 Bad Gateway: upstream down"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn http_401_and_403_without_a_json_rpc_body_are_authentication_errors() {
    let server = peer(401, "text/plain", "").await;
    assert!(matches!(get_task(&server).await, Err(Error::Unauthenticated { .. })));
    let server = peer(403, "text/plain", "forbidden").await;
    assert!(matches!(get_task(&server).await, Err(Error::PermissionDenied { .. })));
}

#[tokio::test]
async fn a_json_rpc_error_is_read_whatever_the_http_status() {
    let server = peer(
        500,
        "application/json",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"Task not found","data":[
            {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND",
             "domain":"a2a-protocol.org","metadata":{"taskId":"task-1"}}]}}"#,
    )
    .await;
    let error = get_task(&server).await.unwrap_err();
    assert!(matches!(error, Error::TaskNotFound { ref task_id } if task_id == "task-1"), "{error:?}");
}

#[tokio::test]
async fn an_error_without_details_is_read_from_its_code() {
    let server =
        peer(200, "application/json", r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"nope"}}"#)
            .await;
    assert!(matches!(get_task(&server).await, Err(Error::TaskNotCancelable { .. })));
}

#[tokio::test]
async fn an_error_answered_with_a_null_id_is_still_that_error() {
    let server = peer(
        200,
        "application/json",
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Invalid JSON payload"}}"#,
    )
    .await;
    let error = get_task(&server).await.unwrap_err();
    assert!(
        matches!(error, Error::ParseError { ref reason } if reason == "Invalid JSON payload"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a2a_go_style_errors_with_object_data_and_its_auth_code_are_understood() {
    let server = peer(
        200,
        "application/json",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-31401,"message":"unauthenticated","data":{"error":"no token"}}}"#,
    )
    .await;
    assert!(matches!(get_task(&server).await, Err(Error::Unauthenticated { .. })));
}

#[tokio::test]
async fn an_unknown_error_code_is_an_internal_error_keeping_the_message() {
    let server = peer(
        200,
        "application/json",
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32050,"message":"quota exhausted"}}"#,
    )
    .await;
    match get_task(&server).await.unwrap_err() {
        Error::Internal { reason } => assert_eq!(reason, "JSON-RPC error -32050: quota exhausted"),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_result_that_is_not_the_methods_result_type_is_an_invalid_agent_response() {
    let server = peer(200, "application/json", r#"{"jsonrpc":"2.0","id":1,"result":{"id":5}}"#).await;
    let error = get_task(&server).await.unwrap_err();
    assert!(
        matches!(error, Error::InvalidAgentResponse { ref reason } if reason.contains("Task")),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_result_for_another_request_id_is_rejected() {
    let server = peer(200, "application/json", r#"{"jsonrpc":"2.0","id":77,"result":{"id":"task-1"}}"#).await;
    assert!(matches!(get_task(&server).await, Err(Error::Transport { .. })));
}

#[tokio::test]
async fn delete_accepts_an_empty_object_result_too() {
    let server = peer(200, "application/json", r#"{"jsonrpc":"2.0","id":1,"result":{}}"#).await;
    let request = DeleteTaskPushNotificationConfigRequest::default();
    server.client().delete_task_push_notification_config(&CallContext::v1(), request).await.unwrap();
}

#[tokio::test]
async fn a_streaming_method_answered_with_a_single_result_is_a_transport_error() {
    let server =
        peer(200, "application/json", r#"{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"task-1"}}}"#).await;
    let request = SubscribeToTaskRequest::default();
    let error = server.client().subscribe_to_task(&CallContext::v1(), request).await.err().unwrap();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
}

#[tokio::test]
async fn a_named_error_event_as_the_python_and_js_sdks_send_ends_the_stream_with_that_error() {
    let server = peer(
        200,
        "text/event-stream",
        concat!(
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"task-1\"}}}\n\n",
            ": keep-alive\n\n",
            "event: error\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32004,\"message\":\"gone\"}}\n\n",
            "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":{\"id\":\"never read\"}}}\n\n",
        ),
    )
    .await;
    let items = stream_items(&server).await;
    assert_eq!(items.len(), 2, "{items:?}");
    assert_eq!(items[0].as_ref().unwrap().task_id(), Some("task-1"));
    assert!(matches!(items[1], Err(Error::UnsupportedOperation { .. })), "{items:?}");
}

#[tokio::test]
async fn a_malformed_stream_event_ends_the_stream_with_an_error() {
    let server = peer(200, "text/event-stream", "data: {not json\n\ndata: {}\n\n").await;
    let items = stream_items(&server).await;
    assert_eq!(items.len(), 1);
    assert!(matches!(items[0], Err(Error::Transport { .. })), "{items:?}");

    let server =
        peer(200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"task\":7}}\n\n")
            .await;
    let items = stream_items(&server).await;
    assert!(matches!(items[..], [Err(Error::InvalidAgentResponse { .. })]), "{items:?}");
}

#[tokio::test]
async fn a_service_param_that_cannot_be_a_header_fails_before_sending() {
    let server = peer(500, "text/plain", "must not be reached").await;
    let ctx = CallContext::new(ServiceParams::v1().with("X-Bad", "line\nbreak"));
    let error = server.client().get_task(&ctx, GetTaskRequest::default()).await.unwrap_err();
    assert!(matches!(error, Error::Transport { ref reason } if reason.contains("x-bad")), "{error:?}");
}
