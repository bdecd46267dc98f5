//! Server streaming (spec 10.7) through `GrpcClient`: events in order, a mid-stream error as the
//! last item, and a client that goes away releasing the server's stream.

use std::time::Duration;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{Message, SendMessageRequest, SubscribeToTaskRequest};
use futures::StreamExt;

use crate::support::{
    assert_same_error, midway_error, streamed_events, subscribed_events, Scripted, TestServer, FAIL_MIDWAY,
    HANG,
};

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

#[tokio::test]
async fn events_arrive_in_the_order_the_service_sent_them() {
    let server = TestServer::start(Scripted::new()).await;
    let client = server.client().await;

    let mut stream = client.send_streaming_message(&CallContext::v1(), send("go")).await.unwrap();
    for expected in streamed_events() {
        assert_eq!(stream.next().await.unwrap().unwrap(), expected);
    }
    assert!(stream.next().await.is_none());

    let request = SubscribeToTaskRequest { id: "task-5".into(), ..Default::default() };
    let events: Vec<_> = client.subscribe_to_task(&CallContext::v1(), request).await.unwrap().collect().await;
    assert_eq!(events.into_iter().map(Result::unwrap).collect::<Vec<_>>(), subscribed_events("task-5"));

    drop((stream, client));
    server.stop().await;
}

#[tokio::test]
async fn a_mid_stream_error_is_the_last_item() {
    let server = TestServer::start(Scripted::new()).await;
    let client = server.client().await;

    let mut stream = client.send_streaming_message(&CallContext::v1(), send(FAIL_MIDWAY)).await.unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), streamed_events()[0]);
    let error = stream.next().await.unwrap().unwrap_err();
    assert_same_error(&error, &midway_error());
    assert!(stream.next().await.is_none(), "nothing follows the error");

    drop((stream, client));
    server.stop().await;
}

#[tokio::test]
async fn a_client_that_drops_its_stream_releases_the_servers_stream() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let client = server.client().await;

    let dropped = scripted.answers().hang_stream_dropped.clone();
    let released = dropped.notified();
    let mut stream = client.send_streaming_message(&CallContext::v1(), send(HANG)).await.unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), streamed_events()[0]);
    // The service's stream now waits forever; only the client going away can end it.
    drop(stream);
    tokio::time::timeout(Duration::from_secs(10), released)
        .await
        .expect("the server kept the stream of a client that went away");

    // The connection is still good for further calls.
    let events: Vec<_> =
        client.send_streaming_message(&CallContext::v1(), send("again")).await.unwrap().collect().await;
    assert_eq!(events.len(), streamed_events().len());

    drop(client);
    server.stop().await;
}
