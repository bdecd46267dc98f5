//! SSE responses of SendStreamingMessage and SubscribeToTask (spec 9.4.2, 9.4.6).

use std::time::Duration;

use a2a_core::{A2aService, CallContext, Error};
use a2a_jsonrpc::JsonRpcServer;
use a2a_proto::v1::{SendMessageRequest, SubscribeToTaskRequest};
use a2a_test_support::fixtures::stream_events;
use futures::StreamExt;

use crate::support::{post_raw, serve_scripted, Scripted, TestServer};

const STREAM: &str = r#"{"jsonrpc":"2.0","id":"s-1","method":"SendStreamingMessage","params":{
    "message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"Write a report"}]}}}"#;

#[tokio::test]
async fn events_arrive_in_order_each_as_a_response_for_the_request_id() {
    let (server, _service) = serve_scripted().await;
    let raw = post_raw(&server.url, STREAM, &[]).await;

    assert_eq!(raw.status, 200);
    assert_eq!(raw.content_type, "text/event-stream");
    // Exactly one data line per event.
    let data_lines = raw.body.lines().filter(|l| l.starts_with("data:")).count();
    assert_eq!(data_lines, 4, "{}", raw.body);
    let events = raw.events();
    for event in &events {
        assert_eq!(event["jsonrpc"], "2.0");
        assert_eq!(event["id"], "s-1");
    }
    let results: Vec<_> = events.into_iter().map(|e| e["result"].clone()).collect();
    let expected: Vec<_> = stream_events("task-1").iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    assert_eq!(results, expected);
    assert!(results[0].get("task").is_some() && results[3].get("statusUpdate").is_some());
}

#[tokio::test]
async fn an_error_before_the_stream_starts_is_an_ordinary_json_error_response() {
    let (server, service) = serve_scripted().await;
    service.fail_with(|| Error::unsupported("streaming is not supported"));

    let raw = post_raw(&server.url, STREAM, &[]).await;
    assert_eq!(raw.status, 200);
    assert_eq!(raw.content_type, "application/json");
    let answer = raw.json();
    assert_eq!(answer["id"], "s-1");
    assert_eq!(answer["error"]["code"], -32004);

    let request = SendMessageRequest::default();
    let error = server.client().send_streaming_message(&CallContext::v1(), request).await.err().unwrap();
    assert!(
        matches!(error, Error::UnsupportedOperation { ref reason } if reason == "streaming is not supported")
    );
}

#[tokio::test]
async fn an_error_mid_stream_is_the_final_event() {
    let (server, service) = serve_scripted().await;
    service.fail_stream_after(2, || Error::internal("executor crashed"));

    let raw = post_raw(&server.url, STREAM, &[]).await;
    let events = raw.events();
    assert_eq!(events.len(), 3, "{}", raw.body);
    assert!(events[..2].iter().all(|e| e.get("result").is_some()));
    assert_eq!(events[2]["id"], "s-1");
    assert_eq!(events[2]["error"]["code"], -32603);
    assert_eq!(events[2]["error"]["message"], "internal error: executor crashed");
}

#[tokio::test]
async fn the_client_yields_the_events_before_a_mid_stream_error_then_the_error_then_ends() {
    let (server, service) = serve_scripted().await;
    service.fail_stream_after(1, || Error::TaskNotFound { task_id: "task-2".into() });
    let request = SubscribeToTaskRequest { id: "task-2".into(), ..Default::default() };
    let items: Vec<_> =
        server.client().subscribe_to_task(&CallContext::v1(), request).await.unwrap().collect().await;

    assert_eq!(items.len(), 2);
    assert_eq!(items[0].as_ref().unwrap(), &stream_events("task-2")[0]);
    assert!(matches!(items[1], Err(Error::TaskNotFound { ref task_id }) if task_id == "task-2"), "{items:?}");
}

#[tokio::test]
async fn idle_streams_get_keep_alive_comments() {
    let service = Scripted::new();
    service.hang_streams();
    let router =
        JsonRpcServer::new(service.clone()).keep_alive_interval(Duration::from_millis(20)).into_router();
    let server = TestServer::start(router).await;

    let mut response = reqwest::Client::new().post(&server.url).body(STREAM).send().await.unwrap();
    let mut received = String::new();
    // The first event, then (the stream being idle) a comment line, which clients ignore.
    while !received.contains("\n:") {
        let chunk = tokio::time::timeout(Duration::from_secs(5), response.chunk()).await.unwrap().unwrap();
        received.push_str(&String::from_utf8_lossy(&chunk.expect("the stream stays open")));
    }
    assert!(
        received.starts_with("data: {\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"result\":{\"task\""),
        "{received}"
    );
}

#[tokio::test]
async fn the_client_stream_stays_usable_across_keep_alive_comments() {
    let service = Scripted::new();
    service.hang_streams();
    let router =
        JsonRpcServer::new(service.clone()).keep_alive_interval(Duration::from_millis(10)).into_router();
    let server = TestServer::start(router).await;

    let mut stream = server
        .client()
        .send_streaming_message(&CallContext::v1(), SendMessageRequest::default())
        .await
        .unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), stream_events("task-1")[0]);
    // Several keep-alives pass; none of them surfaces as an item.
    let next = tokio::time::timeout(Duration::from_millis(100), stream.next()).await;
    assert!(next.is_err(), "no item expected, got {next:?}");
}
