//! A server that sends a `grpc-status-details-bin` which is not base64, in the headers of a
//! trailers-only reply and in the trailers of a stream: tonic alone panics reading it
//! (`Status::from_header_map`); our client drops the undecodable details and reads the error from
//! the status code.

use std::convert::Infallible;

use a2a_core::{A2aService, CallContext, Error};
use a2a_grpc::GrpcClient;
use a2a_proto::v1::{GetTaskRequest, Message, SendMessageRequest};
use axum::body::Body;
use bytes::Bytes;
use futures::StreamExt;
use http::{HeaderMap, HeaderValue, Response};
use http_body_util::StreamBody;

fn bad_status(code: &'static str) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert("grpc-status", HeaderValue::from_static(code));
    headers.insert("grpc-message", HeaderValue::from_static("nope"));
    headers.insert("grpc-status-details-bin", HeaderValue::from_static("this is not base64!"));
    headers
}

/// Serves `reply` for every request over HTTP/2 on 127.0.0.1; returns the `http://` URL.
async fn hostile(reply: fn() -> Response<Body>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let app = axum::Router::new().fallback(move || async move { reply() });
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}")
}

#[tokio::test]
async fn undecodable_details_in_a_trailers_only_reply_are_an_error_not_a_panic() {
    let url = hostile(|| {
        let mut response = Response::new(Body::empty());
        *response.headers_mut() = bad_status("5");
        response.headers_mut().insert("content-type", HeaderValue::from_static("application/grpc"));
        response
    })
    .await;
    let client = GrpcClient::connect_lazy(url).unwrap();
    let request = GetTaskRequest { id: "t1".into(), ..Default::default() };
    let error = client.get_task(&CallContext::v1(), request).await.unwrap_err();
    assert!(matches!(error, Error::TaskNotFound { .. }), "NOT_FOUND without details: {error:?}");
}

#[tokio::test]
async fn undecodable_details_in_a_streams_trailers_are_an_error_not_a_panic() {
    let url = hostile(|| {
        let trailers = http_body::Frame::<Bytes>::trailers(bad_status("13"));
        let body = StreamBody::new(futures::stream::iter([Ok::<_, Infallible>(trailers)]));
        let mut response = Response::new(Body::new(body));
        response.headers_mut().insert("content-type", HeaderValue::from_static("application/grpc"));
        response
    })
    .await;
    let client = GrpcClient::connect_lazy(url).unwrap();
    let request = SendMessageRequest { message: Some(Message::user_text("hi")), ..Default::default() };
    let outcome = match client.send_streaming_message(&CallContext::v1(), request).await {
        Ok(mut events) => events.next().await.expect("the stream reports how it ended").map(|_| ()),
        Err(error) => Err(error),
    };
    let error = outcome.unwrap_err();
    assert!(matches!(error, Error::Internal { .. }), "INTERNAL without details: {error:?}");
}
