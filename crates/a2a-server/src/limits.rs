//! [`Limits`]: what one request, one caller and all open streams may cost the server, each
//! refused with a clear error in the shape of the binding the request came in on
//! (`docs/operations.md`, "Limits").
//!
//! Where each is enforced:
//! - request body size: by each binding (JSON-RPC `-32600` with HTTP 200, as the official Python
//!   SDK answers; REST 413; gRPC `OUT_OF_RANGE`, tonic's answer to a message over its limit);
//! - URL length (414), header size (431) and the body read timeout (408): by the HTTP layer of
//!   this module, in front of every binding;
//! - open streams and subscribers per task, and how long a stream may stay idle or open: by
//!   `crate::streams`, around the service;
//! - what a request carries and a read returns ([`ContentLimits`]): by the handler in
//!   `a2a_core`, the same for every binding;
//! - calls per caller: [`crate::rate_limit`].

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_core::handler::ContentLimits;
use a2a_core::Error;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request};
use axum::response::Response;
use http::{header, HeaderMap, HeaderValue, StatusCode, Version};
use http_body::{Body as _, Frame, SizeHint};
use tokio::task::futures::TaskLocalFuture;

use crate::metrics::{Limit, Metrics};

/// The server's limits, with their defaults; set them with `ServerBuilder::limits`, or on the
/// reference server with the flags named on each field.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Request body size in bytes, on JSON-RPC and REST, and each gRPC request message
    /// (`--max-body-bytes`, default 16 MiB).
    pub max_body_bytes: usize,
    /// Request target (path and query) length in bytes; longer is 414 URI Too Long
    /// (`--max-uri-bytes`, default 8 KiB).
    pub max_uri_bytes: usize,
    /// Size of the request's headers (names and values) in bytes; larger is 431 Request Header
    /// Fields Too Large (`--max-header-bytes`, default 64 KiB).
    pub max_header_bytes: usize,
    /// How long a request's body may take to arrive, from the request's headers; a slower body
    /// is 408 Request Timeout and the connection is closed (`--body-read-timeout`, default 30 s).
    pub body_read_timeout: Duration,
    /// Streams (SendStreamingMessage, SubscribeToTask) open at once on the server, every binding
    /// together; one more is refused with `ResourceExhausted` (`--max-streams`, default 10 000).
    pub max_streams: usize,
    /// Streams open at once on one client connection (HTTP/2 multiplexes many on one; HTTP/1.1
    /// carries one at a time anyway) (`--max-streams-per-connection`, default 100). Needs the
    /// peer address: `serve` and `spawn` have it; with `app`, serve with connect info.
    pub max_streams_per_connection: usize,
    /// SubscribeToTask streams open at once on one task (`--max-subscribers-per-task`, default
    /// 64).
    pub max_subscribers_per_task: usize,
    /// A stream that sends no event for this long ends, as at shutdown (`--stream-idle-timeout`,
    /// default none). The SSE keep-alive comments do not count as events.
    pub stream_idle_timeout: Option<Duration>,
    /// A stream ends this long after it started, as at shutdown (`--stream-max-duration`,
    /// default none); a client resubscribes to go on.
    pub stream_max_duration: Option<Duration>,
    /// What a request may carry and a read return, enforced by the handler:
    /// `--max-parts-per-message`, `--max-metadata-bytes`, `--max-push-configs-per-task`,
    /// `--max-history-length`.
    pub content: ContentLimits,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: 16 * 1024 * 1024,
            max_uri_bytes: 8 * 1024,
            max_header_bytes: 64 * 1024,
            body_read_timeout: Duration::from_secs(30),
            max_streams: 10_000,
            max_streams_per_connection: 100,
            max_subscribers_per_task: 64,
            stream_idle_timeout: None,
            stream_max_duration: None,
            content: ContentLimits::default(),
        }
    }
}

/// The binding whose shape a refusal before the binding takes: gRPC by the content type,
/// JSON-RPC by its path, REST otherwise.
#[derive(Debug, Clone)]
pub(crate) struct Shapes {
    /// The JSON-RPC path (normalized), if JSON-RPC is served on this router.
    pub(crate) jsonrpc_path: Option<String>,
}

impl Shapes {
    /// `error` answered with HTTP `status` in the shape of the binding `request` is for. gRPC
    /// answers with the error's status in the trailers-only form (HTTP 200), as tonic does.
    pub(crate) fn refuse(
        &self,
        request: &http::request::Parts,
        status: StatusCode,
        error: Error,
    ) -> Response {
        self.shape_of(request).refuse(status, error)
    }

    /// The shape of the binding `request` is for.
    fn shape_of(&self, request: &http::request::Parts) -> Shape {
        if crate::is_grpc(&request.headers) {
            return Shape::Grpc;
        }
        let path = request.uri.path();
        let jsonrpc =
            self.jsonrpc_path.as_deref().is_some_and(|p| path == p || path.strip_suffix('/') == Some(p));
        if jsonrpc {
            Shape::JsonRpc
        } else {
            Shape::Rest
        }
    }
}

/// The binding a refusal answers for ([`Shapes::shape_of`]).
#[derive(Debug, Clone, Copy)]
enum Shape {
    Grpc,
    JsonRpc,
    Rest,
}

impl Shape {
    /// `error` answered with HTTP `status` in this binding's shape (see [`Shapes::refuse`]).
    fn refuse(self, status: StatusCode, error: Error) -> Response {
        let mut response = match self {
            Shape::Grpc => return a2a_grpc::error::to_status(&error).into_http::<Body>(),
            Shape::JsonRpc => {
                let mut response = a2a_jsonrpc::error_response(&error);
                if let Error::ResourceExhausted { retry_after_secs: Some(secs), .. } = &error {
                    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(*secs));
                }
                response
            }
            Shape::Rest => a2a_rest::error_response(error),
        };
        *response.status_mut() = status;
        response
    }
}

/// What the HTTP limits layer needs.
#[derive(Debug, Clone)]
pub(crate) struct HttpLimits {
    pub(crate) limits: Arc<Limits>,
    pub(crate) shapes: Shapes,
    pub(crate) metrics: Metrics,
}

/// The HTTP limits layer, in front of every binding: refuses a request whose URL or headers are
/// too large before anything reads it, answers 408 when its body did not arrive within the body
/// read timeout, and tells the stream limits which connection the request came on. A layer of
/// its own (not `axum::middleware::from_fn`): its future is a concrete type, with no box, no
/// clone of the inner service or of the state per request.
#[derive(Debug, Clone)]
pub(crate) struct HttpLimitsLayer {
    state: Arc<HttpLimits>,
}

impl HttpLimitsLayer {
    pub(crate) fn new(state: HttpLimits) -> Self {
        HttpLimitsLayer { state: Arc::new(state) }
    }
}

impl<S> tower::Layer<S> for HttpLimitsLayer {
    type Service = HttpLimitsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        HttpLimitsService { inner, state: Arc::clone(&self.state) }
    }
}

/// The service of [`HttpLimitsLayer`].
#[derive(Debug, Clone)]
pub(crate) struct HttpLimitsService<S> {
    inner: S,
    state: Arc<HttpLimits>,
}

impl<S> tower::Service<Request> for HttpLimitsService<S>
where
    S: tower::Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = HttpLimitsFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let state = &self.state;
        let limits = &state.limits;
        let (parts, body) = request.into_parts();
        let uri_bytes = parts.uri.path_and_query().map_or(0, |p| p.as_str().len());
        if uri_bytes > limits.max_uri_bytes {
            let error = Error::InvalidRequest {
                reason: format!(
                    "the request URL is {uri_bytes} bytes; this server accepts at most {} (max_uri_bytes)",
                    limits.max_uri_bytes
                ),
            };
            state.metrics.refused(Limit::MaxUriBytes);
            let response = state.shapes.refuse(&parts, StatusCode::URI_TOO_LONG, error);
            return HttpLimitsFuture::Refused { response: Some(response) };
        }
        let header_bytes = header_bytes(&parts.headers);
        if header_bytes > limits.max_header_bytes {
            let error = Error::InvalidRequest {
                reason: format!(
                    "the request headers are {header_bytes} bytes; this server accepts at most {} \
                     (max_header_bytes)",
                    limits.max_header_bytes
                ),
            };
            state.metrics.refused(Limit::MaxHeaderBytes);
            let response = state.shapes.refuse(&parts, StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE, error);
            return HttpLimitsFuture::Refused { response: Some(response) };
        }
        // A body already received in full (most requests without one) cannot be slow.
        let (body, watch) = if body.is_end_stream() {
            (body, None)
        } else {
            let timed_out = Arc::new(AtomicBool::new(false));
            let body = Body::new(TimedBody {
                inner: body,
                deadline: tokio::time::Instant::now() + limits.body_read_timeout,
                timer: None,
                timed_out: Arc::clone(&timed_out),
            });
            // What a refusal for a slow body needs of the request, read now: the request itself
            // goes on.
            let watch = SlowBody {
                timed_out,
                shape: state.shapes.shape_of(&parts),
                version: parts.version,
                state: Arc::clone(state),
            };
            (body, Some(watch))
        };
        let connection = parts.extensions.get::<ConnectInfo<SocketAddr>>().map(|info| info.0);
        let request = Request::from_parts(parts, body);
        match connection {
            // The call and every poll of its future see the connection (`crate::streams`).
            Some(connection) => {
                let inner = crate::streams::CONNECTION.sync_scope(connection, || self.inner.call(request));
                HttpLimitsFuture::Scoped { inner: crate::streams::CONNECTION.scope(connection, inner), watch }
            }
            None => HttpLimitsFuture::Plain { inner: self.inner.call(request), watch },
        }
    }
}

/// What [`HttpLimitsFuture`] needs to answer 408 once the binding has answered a request whose
/// body was too slow.
#[derive(Debug)]
struct SlowBody {
    timed_out: Arc<AtomicBool>,
    shape: Shape,
    version: Version,
    state: Arc<HttpLimits>,
}

impl SlowBody {
    /// `response` as it is, or the 408 that replaces it if the body timed out.
    fn answer(self, response: Response) -> Response {
        if !self.timed_out.load(Ordering::Acquire) {
            return response;
        }
        // Whatever the binding made of the failed read, the cause is the slow body.
        self.state.metrics.refused(Limit::BodyReadTimeout);
        let error = Error::InvalidRequest {
            reason: format!(
                "the request body did not arrive within {} s (body_read_timeout)",
                self.state.limits.body_read_timeout.as_secs_f64()
            ),
        };
        let mut response = self.shape.refuse(StatusCode::REQUEST_TIMEOUT, error);
        if matches!(self.version, Version::HTTP_10 | Version::HTTP_11) {
            // RFC 9110 15.5.9: the server may close the connection; the rest of the body would
            // otherwise have to be read first. (HTTP/2 has no such header: the stream is reset.)
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

pin_project_lite::pin_project! {
    /// The future of [`HttpLimitsService`].
    #[project = HttpLimitsProj]
    pub(crate) enum HttpLimitsFuture<F> {
        /// Refused before the binding saw it; `None` once answered.
        Refused { response: Option<Response> },
        /// Served without a known connection.
        Plain { #[pin] inner: F, watch: Option<SlowBody> },
        /// Served with the connection in scope.
        Scoped { #[pin] inner: TaskLocalFuture<SocketAddr, F>, watch: Option<SlowBody> },
    }
}

impl<F> Future for HttpLimitsFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let (result, watch) = match self.project() {
            HttpLimitsProj::Refused { response } => {
                return Poll::Ready(Ok(response.take().expect("polled after completion")));
            }
            HttpLimitsProj::Plain { inner, watch } => (std::task::ready!(inner.poll(cx)), watch),
            HttpLimitsProj::Scoped { inner, watch } => (std::task::ready!(inner.poll(cx)), watch),
        };
        let Ok(response) = result;
        Poll::Ready(Ok(match watch.take() {
            Some(watch) => watch.answer(response),
            None => response,
        }))
    }
}

/// The size of `headers`: each name and value (their separators are not counted, so the limit
/// means the same on HTTP/1.1 and HTTP/2). The request id is not counted: the server sets it
/// itself when the client sent none, and it is at most [`crate::request_id::MAX_LEN`] bytes.
fn header_bytes(headers: &HeaderMap) -> usize {
    headers
        .iter()
        .filter(|(name, _)| *name != crate::request_id::REQUEST_ID)
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum()
}

/// A request body that fails once its deadline passes before it ended, and says so. The timer
/// starts only when the body first has to be waited for: a body already received in full (most
/// requests) costs no timer.
struct TimedBody {
    inner: Body,
    deadline: tokio::time::Instant,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    timed_out: Arc<AtomicBool>,
}

/// The error a [`TimedBody`] ends with.
#[derive(Debug)]
struct BodyTimedOut;

impl std::fmt::Display for BodyTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the request body did not arrive in time")
    }
}

impl std::error::Error for BodyTimedOut {}

impl http_body::Body for TimedBody {
    type Data = Bytes;
    type Error = axum::BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if let Poll::Ready(frame) = Pin::new(&mut self.inner).poll_frame(cx) {
            return Poll::Ready(frame.map(|frame| frame.map_err(Into::into)));
        }
        let deadline = self.deadline;
        let timer = self.timer.get_or_insert_with(|| Box::pin(tokio::time::sleep_until(deadline)));
        if timer.as_mut().poll(cx).is_ready() {
            self.timed_out.store(true, Ordering::Release);
            return Poll::Ready(Some(Err(BodyTimedOut.into())));
        }
        Poll::Pending
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_bytes_count_names_and_values() {
        let mut headers = HeaderMap::new();
        headers.insert("x-a", HeaderValue::from_static("12345"));
        headers.append("x-a", HeaderValue::from_static("6"));
        assert_eq!(header_bytes(&headers), 3 + 5 + 3 + 1);
    }

    #[test]
    fn the_jsonrpc_path_and_its_twin_take_the_jsonrpc_shape() {
        let shapes = Shapes { jsonrpc_path: Some("/rpc".into()) };
        for (path, jsonrpc) in [("/rpc", true), ("/rpc/", true), ("/tasks/x", false)] {
            let (parts, ()) = http::Request::get(path).body(()).unwrap().into_parts();
            let response = shapes.refuse(
                &parts,
                StatusCode::TOO_MANY_REQUESTS,
                Error::ResourceExhausted { reason: "x".into(), retry_after_secs: Some(2) },
            );
            assert_eq!(response.status(), StatusCode::TOO_MANY_REQUESTS);
            assert_eq!(response.headers()[header::RETRY_AFTER], "2", "{path}");
            let content_type = response.headers()[header::CONTENT_TYPE].to_str().unwrap();
            assert_eq!(content_type == "application/json", jsonrpc, "{path}: {content_type}");
        }
    }
}
