//! The ceilings: servers that answer the benchmarked routes with the same bytes as an A2A server,
//! without any A2A logic, so every A2A figure can be read as a fraction of what this machine's
//! HTTP and gRPC stacks can do at all.
//!
//! - `ceiling-http`: a bare axum server (same axum, hyper and tokio configuration as the reference
//!   server: multi-threaded runtime, `TCP_NODELAY`). `POST /` reads only the JSON-RPC `id` and
//!   `method` members of the body and answers with a response object whose `result` is the
//!   captured reply; `POST /message:send` answers the captured reply as is. The streaming methods
//!   (`SendStreamingMessage` over JSON-RPC, `POST /message:stream`) replay the captured events as
//!   SSE with the same framing and keep-alive as the bindings.
//! - `ceiling-grpc`: a bare tonic server for `lf.a2a.v1.A2AService` whose codec passes bytes
//!   through: the request is not decoded, the reply is the captured `SendMessageResponse` already
//!   encoded as protobuf (and the captured events for `SendStreamingMessage`).
//!
//! The replies are captured from the A2A server under test by the harness (see
//! [`Replies::capture_dir`]); both ceilings print `... listening on http://ADDR` once bound.

use std::convert::Infallible;
use std::path::Path;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_proto::v1::{SendMessageResponse, StreamResponse};
use anyhow::Context as _;
use axum::body::Bytes;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::serve::ListenerExt;
use axum::Router;
use bytes::{Buf, BufMut};
use futures::StreamExt;
use prost::Message as _;
use serde::Deserialize;
use serde_json::value::RawValue;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::server::{Grpc, NamedService, ServerStreamingService, UnaryService};
use tonic::Status;

/// The file holding the captured SendMessage reply (ProtoJSON `SendMessageResponse`).
const SEND_FILE: &str = "send.json";
/// The file holding the captured stream (one ProtoJSON `StreamResponse` per line).
const STREAM_FILE: &str = "stream.jsonl";
/// The bindings' SSE keep-alive interval (both bindings default to 15 s).
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What the ceilings answer: the reply to SendMessage and the events of SendStreamingMessage, as
/// ProtoJSON text.
#[derive(Debug, Clone)]
pub(crate) struct Replies {
    /// The `SendMessageResponse` JSON.
    pub(crate) send: Bytes,
    /// The `StreamResponse` JSON of each event.
    pub(crate) stream: Vec<Bytes>,
}

impl Replies {
    /// Replies captured from decoded messages, written as the bindings write them.
    pub(crate) fn from_messages(
        send: &SendMessageResponse,
        stream: &[StreamResponse],
    ) -> anyhow::Result<Self> {
        Ok(Replies {
            send: a2a_proto::json::to_vec(send)?.into(),
            stream: stream
                .iter()
                .map(|e| a2a_proto::json::to_vec(e).map(Bytes::from))
                .collect::<Result<_, _>>()?,
        })
    }

    /// Writes the replies into `dir` for the ceiling processes.
    pub(crate) fn capture_dir(&self, dir: &Path) -> anyhow::Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join(SEND_FILE), &self.send)?;
        let mut lines = Vec::new();
        for event in &self.stream {
            lines.extend_from_slice(event);
            lines.push(b'\n');
        }
        std::fs::write(dir.join(STREAM_FILE), lines)?;
        Ok(())
    }

    /// Reads replies written by [`capture_dir`](Self::capture_dir).
    pub(crate) fn load(dir: &Path) -> anyhow::Result<Self> {
        let send = std::fs::read(dir.join(SEND_FILE)).with_context(|| format!("reading {SEND_FILE}"))?;
        let stream =
            std::fs::read(dir.join(STREAM_FILE)).with_context(|| format!("reading {STREAM_FILE}"))?;
        let stream = stream
            .split(|b| *b == b'\n')
            .filter(|line| !line.is_empty())
            .map(Bytes::copy_from_slice)
            .collect();
        Ok(Replies { send: send.into(), stream })
    }
}

/// Serves the bare HTTP ceiling on `listener` until the process ends.
pub(crate) async fn serve_http(listener: tokio::net::TcpListener, replies: Replies) -> anyhow::Result<()> {
    let app = http_router(Arc::new(replies));
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app).await?;
    Ok(())
}

fn http_router(replies: Arc<Replies>) -> Router {
    Router::new()
        .route("/", post(jsonrpc))
        .route("/message:send", post(rest_send))
        .route("/message:stream", post(rest_stream))
        .with_state(replies)
}

/// The JSON-RPC members the ceiling reads.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    id: &'a RawValue,
    #[serde(borrow)]
    method: &'a str,
}

async fn jsonrpc(State(replies): State<Arc<Replies>>, body: Bytes) -> Response {
    let Ok(envelope) = serde_json::from_slice::<Envelope<'_>>(&body) else {
        return (http::StatusCode::BAD_REQUEST, "not a JSON-RPC request").into_response();
    };
    if envelope.method == "SendStreamingMessage" {
        let id = envelope.id.get().to_owned();
        let events = futures::stream::iter(0..replies.stream.len())
            .map(move |i| Ok::<_, Infallible>(Event::default().data(success(&id, &replies.stream[i]))));
        return Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response();
    }
    ([(http::header::CONTENT_TYPE, "application/json")], success(envelope.id.get(), &replies.send))
        .into_response()
}

/// `{"jsonrpc":"2.0","id":ID,"result":RESULT}` around an already serialized result.
fn success(id: &str, result: &[u8]) -> String {
    let mut out = String::with_capacity(result.len() + id.len() + 32);
    out.push_str(r#"{"jsonrpc":"2.0","id":"#);
    out.push_str(id);
    out.push_str(r#","result":"#);
    out.push_str(std::str::from_utf8(result).unwrap_or("null"));
    out.push('}');
    out
}

async fn rest_send(State(replies): State<Arc<Replies>>, _body: Bytes) -> Response {
    ([(http::header::CONTENT_TYPE, "application/a2a+json")], replies.send.clone()).into_response()
}

async fn rest_stream(State(replies): State<Arc<Replies>>, _body: Bytes) -> Response {
    let events = futures::stream::iter(0..replies.stream.len()).map(move |i| {
        Ok::<_, Infallible>(Event::default().data(std::str::from_utf8(&replies.stream[i]).unwrap_or("{}")))
    });
    Sse::new(events).keep_alive(KeepAlive::new().interval(KEEP_ALIVE)).into_response()
}

/// Serves the bare gRPC ceiling on `listener` until the process ends.
pub(crate) async fn serve_grpc(listener: tokio::net::TcpListener, replies: Replies) -> anyhow::Result<()> {
    let send: SendMessageResponse = a2a_proto::json::from_slice(&replies.send)?;
    let stream = replies
        .stream
        .iter()
        .map(|event| {
            a2a_proto::json::from_slice::<StreamResponse>(event).map(|e| Bytes::from(e.encode_to_vec()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let service = RawA2a { send: Bytes::from(send.encode_to_vec()), stream: Arc::new(stream) };
    let incoming = tokio_stream::wrappers::TcpListenerStream::new(listener).map(|accepted| {
        accepted.inspect(|tcp| {
            let _ = tcp.set_nodelay(true);
        })
    });
    tonic::transport::Server::builder().add_service(service).serve_with_incoming(incoming).await?;
    Ok(())
}

/// A codec that passes message bytes through: nothing is decoded or encoded.
#[derive(Debug, Clone, Copy, Default)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Bytes;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }

    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn encode(&mut self, item: Bytes, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put(item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Bytes>, Status> {
        Ok(Some(src.copy_to_bytes(src.remaining())))
    }
}

/// `lf.a2a.v1.A2AService` answering SendMessage and SendStreamingMessage with fixed bytes.
#[derive(Debug, Clone)]
struct RawA2a {
    send: Bytes,
    stream: Arc<Vec<Bytes>>,
}

impl NamedService for RawA2a {
    const NAME: &'static str = "lf.a2a.v1.A2AService";
}

type BoxFuture<T> = Pin<Box<dyn std::future::Future<Output = T> + Send + 'static>>;

impl tonic::codegen::Service<http::Request<tonic::body::Body>> for RawA2a {
    type Response = http::Response<tonic::body::Body>;
    type Error = Infallible;
    type Future = BoxFuture<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<tonic::body::Body>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move {
            let response = match request.uri().path() {
                "/lf.a2a.v1.A2AService/SendMessage" => {
                    Grpc::new(RawCodec).unary(Unary(this.send), request).await
                }
                "/lf.a2a.v1.A2AService/SendStreamingMessage" => {
                    Grpc::new(RawCodec).server_streaming(Streaming(this.stream), request).await
                }
                _ => Status::unimplemented("the gRPC ceiling serves SendMessage and SendStreamingMessage")
                    .into_http(),
            };
            Ok(response)
        })
    }
}

struct Unary(Bytes);

impl UnaryService<Bytes> for Unary {
    type Response = Bytes;
    type Future = std::future::Ready<Result<tonic::Response<Bytes>, Status>>;

    fn call(&mut self, _request: tonic::Request<Bytes>) -> Self::Future {
        std::future::ready(Ok(tonic::Response::new(self.0.clone())))
    }
}

struct Streaming(Arc<Vec<Bytes>>);

type EventStream = futures::stream::BoxStream<'static, Result<Bytes, Status>>;

impl ServerStreamingService<Bytes> for Streaming {
    type Response = Bytes;
    type ResponseStream = EventStream;
    type Future = std::future::Ready<Result<tonic::Response<EventStream>, Status>>;

    fn call(&mut self, _request: tonic::Request<Bytes>) -> Self::Future {
        let events = Arc::clone(&self.0);
        let stream = futures::stream::iter((0..events.len()).map(move |i| Ok(events[i].clone()))).boxed();
        std::future::ready(Ok(tonic::Response::new(stream)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonrpc_success_wraps_the_captured_result_with_the_request_id() {
        assert_eq!(success("7", br#"{"task":{}}"#), r#"{"jsonrpc":"2.0","id":7,"result":{"task":{}}}"#);
        assert_eq!(success(r#""a""#, b"1"), r#"{"jsonrpc":"2.0","id":"a","result":1}"#);
    }

    #[test]
    fn captured_replies_survive_the_round_trip_through_files() {
        let dir = std::env::temp_dir().join(format!("a2a-bench-replies-{}", std::process::id()));
        let replies = Replies {
            send: Bytes::from_static(br#"{"task":{"id":"t"}}"#),
            stream: vec![Bytes::from_static(br#"{"task":{"id":"t"}}"#), Bytes::from_static(b"{}")],
        };
        replies.capture_dir(&dir).unwrap();
        let loaded = Replies::load(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(loaded.send, replies.send);
        assert_eq!(loaded.stream, replies.stream);
    }
}
