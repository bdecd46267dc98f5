//! The server: an axum [`Router`] answering JSON-RPC 2.0 requests at `POST /` (spec 9) by calling
//! an [`A2aService`].
//!
//! Every answer that carries a JSON-RPC response object has HTTP status 200 and
//! `Content-Type: application/json`, errors included (as the Python, JS and Go SDKs do): the
//! JSON-RPC error code is the error's identity, not the HTTP status. Streaming methods answer
//! `text/event-stream` unless they fail before the stream starts. A notification (a request
//! without an `id` member) is executed and answered with `204 No Content` and no body, errors
//! included, as JSON-RPC 2.0 section 4.1 requires.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{A2aService, Error, Operation};
use axum::body::{Body, Bytes, HttpBody as _};
use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use http::{header, HeaderValue, StatusCode};

use crate::dispatch::{self, Outcome};
use crate::envelope::{self, Id, Rejection};
use crate::{context, sse, v03};

/// The JSON-RPC server with its settings; [`router`] is the short form with the defaults.
///
/// ```
/// # use std::sync::Arc;
/// # fn build(service: Arc<dyn a2a_core::A2aService>) -> axum::Router {
/// use a2a_jsonrpc::JsonRpcServer;
///
/// JsonRpcServer::new(service).max_body_bytes(1024 * 1024).into_router()
/// # }
/// ```
#[derive(Clone)]
pub struct JsonRpcServer {
    service: Arc<dyn A2aService>,
    max_body_bytes: usize,
    keep_alive: Duration,
    path: String,
}

impl JsonRpcServer {
    /// The default request body limit: 16 MiB.
    pub const DEFAULT_MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
    /// The default interval of SSE keep-alive comments: 15 s.
    pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

    /// A server for `service` with the default settings.
    pub fn new(service: Arc<dyn A2aService>) -> Self {
        JsonRpcServer {
            service,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            keep_alive: Self::DEFAULT_KEEP_ALIVE,
            path: "/".to_owned(),
        }
    }

    /// Serves at `path` (default `/`), e.g. `/jsonrpc` as many official SDK agents do; the same
    /// path with a trailing slash is served too (`/jsonrpc/`). A path without a leading `/` gets
    /// one.
    pub fn path(self, path: &str) -> Self {
        Self { path: normalize_path(path), ..self }
    }

    /// Limits request bodies to `bytes`; larger ones get a `-32600` error response.
    pub fn max_body_bytes(self, bytes: usize) -> Self {
        Self { max_body_bytes: bytes, ..self }
    }

    /// Sends an SSE keep-alive comment on streams idle for `interval`.
    pub fn keep_alive_interval(self, interval: Duration) -> Self {
        Self { keep_alive: interval, ..self }
    }

    /// The router serving `POST` at the [`path`](Self::path) (`/` by default).
    pub fn into_router(self) -> Router {
        let limit = self.max_body_bytes;
        let shared =
            Arc::new(Shared { service: self.service, max_body_bytes: limit, keep_alive: self.keep_alive });
        let mut router = Router::new().route(&self.path, post(handle));
        if self.path != "/" {
            router = router.route(&format!("{}/", self.path), post(handle));
        }
        // The handler reads the body within `max_body_bytes` itself (`read_body`).
        router.with_state(shared)
    }
}

impl fmt::Debug for JsonRpcServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonRpcServer")
            .field("max_body_bytes", &self.max_body_bytes)
            .field("keep_alive", &self.keep_alive)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// The form of a JSON-RPC path the server serves and advertises: a leading `/`, no trailing one
/// (`jsonrpc/` -> `/jsonrpc`; empty -> `/`).
pub fn normalize_path(path: &str) -> String {
    let trimmed = path.trim_matches('/');
    if trimmed.is_empty() {
        "/".to_owned()
    } else {
        format!("/{trimmed}")
    }
}

/// The router serving `service` over JSON-RPC at `POST /`, with the default settings of
/// [`JsonRpcServer`].
pub fn router(service: Arc<dyn A2aService>) -> Router {
    JsonRpcServer::new(service).into_router()
}

struct Shared {
    service: Arc<dyn A2aService>,
    max_body_bytes: usize,
    keep_alive: Duration,
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let body = match read_body(body, shared.max_body_bytes).await {
        Ok(body) => body,
        Err(error) => return json(envelope::failure(&Id::null(), &error)),
    };
    let request = match envelope::parse_request(&body) {
        Ok(request) => request,
        Err(Rejection { id, error }) => return json(envelope::failure(&id, &error)),
    };
    let ctx = context::from_parts(&parts);
    // A slash method name is A2A 0.3, whatever `A2A-Version` says (see `v03`).
    if let Some(method) = v03::Method::from_name(&request.method) {
        let service = &*shared.service;
        let params = request.params.raw();
        return v03::handle(service, &ctx, method, request.id, params, shared.keep_alive).await;
    }
    let operation = Operation::from_method(&request.method);
    let Some(id) = request.id else {
        // A notification: run it, drop whatever it produced (a stream is dropped as if its client
        // had disconnected at once) and answer nothing.
        match operation {
            Some(operation) => {
                if let Err(error) =
                    dispatch::call(&*shared.service, &ctx, operation, request.params, &Id::null()).await
                {
                    tracing::debug!(%error, method = %request.method, "notification failed");
                }
            }
            None => tracing::debug!(method = %request.method, "notification of an unknown method"),
        }
        return StatusCode::NO_CONTENT.into_response();
    };
    let Some(operation) = operation else {
        return json(envelope::failure(&id, &Error::MethodNotFound { method: request.method }));
    };
    match dispatch::call(&*shared.service, &ctx, operation, request.params, &id).await {
        Ok(Outcome::Unary(response)) => json(response),
        Ok(Outcome::Stream(events)) => sse::response(id, events, shared.keep_alive),
        Err(error) => json(envelope::failure(&id, &error)),
    }
}

/// The request body, read in full within `limit` bytes; or the error for a body that could not
/// be read: too large, or the connection failed. What axum's `Bytes` extractor under a
/// `DefaultBodyLimit` of `limit` did here (`http_body_util::Limited`: an error as soon as the data
/// received passes the limit), with the same errors, without boxing the body again.
async fn read_body(mut body: Body, limit: usize) -> Result<Bytes, Error> {
    let mut frames = a2a_core::binding::BodyFrames::default();
    let mut received = 0usize;
    while let Some(frame) = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await {
        let frame = frame.map_err(|error| Error::InvalidRequest {
            reason: format!("the request body could not be read: Failed to buffer the request body: {error}"),
        })?;
        // Trailers are no part of the body.
        let Ok(data) = frame.into_data() else { continue };
        received += data.len();
        if received > limit {
            return Err(Error::InvalidRequest {
                reason: format!("the request body exceeds the limit of {limit} bytes"),
            });
        }
        frames.push(data);
    }
    Ok(frames.into_bytes())
}

/// Answers `error` as a JSON-RPC error response with id `null` (the request was not read),
/// HTTP status 200 and `Content-Type: application/json`, like every error of this binding.
///
/// For layers in front of the router that refuse a request before it is read (a rate limit, a
/// size limit) and answer in this binding's shape; such a layer may set an HTTP status of its
/// own (429 with `Retry-After` for a rate limit) on the response.
pub fn error_response(error: &Error) -> Response {
    json(envelope::failure(&Id::null(), error))
}

fn json(body: impl Into<Body>) -> Response {
    let mut response = Response::new(body.into());
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunked(chunks: &[&'static str]) -> Body {
        let chunks: Vec<Result<Bytes, std::io::Error>> =
            chunks.iter().map(|chunk| Ok(Bytes::from_static(chunk.as_bytes()))).collect();
        Body::from_stream(futures::stream::iter(chunks))
    }

    fn reason(error: Error) -> String {
        match error {
            Error::InvalidRequest { reason } => reason,
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test]
    async fn a_body_is_read_whole_up_to_the_limit_in_any_chunks() {
        assert_eq!(read_body(Body::from("{}"), 2).await.unwrap(), "{}");
        assert_eq!(read_body(chunked(&["a", "", "bc", "d"]), 4).await.unwrap(), "abcd");
        assert_eq!(read_body(chunked(&["", "ab"]), 4).await.unwrap(), "ab");
        assert_eq!(read_body(Body::empty(), 0).await.unwrap(), "");
    }

    #[tokio::test]
    async fn a_body_past_the_limit_is_refused_however_it_arrives() {
        let over = "the request body exceeds the limit of 3 bytes";
        assert_eq!(reason(read_body(Body::from("abcd"), 3).await.unwrap_err()), over);
        assert_eq!(reason(read_body(chunked(&["ab", "cd"]), 3).await.unwrap_err()), over);
    }

    #[tokio::test]
    async fn a_body_that_fails_is_an_invalid_request_saying_why() {
        let failing = Body::from_stream(futures::stream::iter(vec![
            Ok(Bytes::from_static(b"ab")),
            Err(std::io::Error::other("connection reset")),
        ]));
        assert_eq!(
            reason(read_body(failing, 100).await.unwrap_err()),
            "the request body could not be read: Failed to buffer the request body: connection reset"
        );
    }
}
