//! What a client gets when a bug makes a request panic inside a binding or the request handler:
//! a clear internal error in the binding's own shape, instead of a dropped connection. (Panics of
//! an agent's executor never get here: the handler turns them into a failed task, spec 4.1.3.)
//!
//! - JSON-RPC and REST: HTTP 500 with a JSON-RPC error object (`-32603`, id `null`: the request
//!   could not be answered), which a REST client reads as INTERNAL by its status.
//! - gRPC: status INTERNAL (13) in the trailers-only form, as tonic writes any error.

use std::any::Any;
use std::convert::Infallible;
use std::future::Future;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use http::{header, HeaderValue, Request, StatusCode};

/// The message every panic response carries (the panic's own text goes to the log only: it may
/// name internals).
const MESSAGE: &str = "internal error: the server failed while handling this request";

/// Catches a panic of the service it wraps, in its `call` or while its future is polled, and
/// answers with an internal error in the shape the request asked for: gRPC by its content type
/// ([`crate::is_grpc`]), JSON-RPC/REST otherwise.
///
/// One layer for every binding, applied with the size limits and the request ids (one route
/// level for all three): tower-http's `CatchPanic`, one per router before, added a boxed route
/// level to every request and boxed every response body again.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CatchPanicLayer;

impl<S> tower::Layer<S> for CatchPanicLayer {
    type Service = CatchPanic<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CatchPanic { inner }
    }
}

/// The service of [`CatchPanicLayer`].
#[derive(Debug, Clone)]
pub(crate) struct CatchPanic<S> {
    inner: S,
}

impl<S> tower::Service<Request<Body>> for CatchPanic<S>
where
    S: tower::Service<Request<Body>, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = CatchPanicFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let grpc = crate::is_grpc(request.headers());
        match catch_unwind(AssertUnwindSafe(|| self.inner.call(request))) {
            Ok(inner) => CatchPanicFuture::Running { inner, grpc },
            Err(panic) => CatchPanicFuture::Panicked { response: Some(answer(grpc, panic.as_ref())) },
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`CatchPanic`].
    #[project = CatchPanicProj]
    pub(crate) enum CatchPanicFuture<F> {
        Running { #[pin] inner: F, grpc: bool },
        Panicked { response: Option<Response> },
    }
}

impl<F> Future for CatchPanicFuture<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            CatchPanicProj::Running { inner, grpc } => {
                match catch_unwind(AssertUnwindSafe(|| inner.poll(cx))) {
                    Ok(poll) => poll,
                    Err(panic) => Poll::Ready(Ok(answer(*grpc, panic.as_ref()))),
                }
            }
            CatchPanicProj::Panicked { response } => {
                Poll::Ready(Ok(response.take().expect("a panic is answered once")))
            }
        }
    }
}

/// The answer to a request that panicked.
fn answer(grpc: bool, panic: &(dyn Any + Send)) -> Response {
    log(panic);
    if grpc {
        // Status INTERNAL in the trailers-only form, as tonic writes any error.
        let (parts, ()) = tonic::Status::internal(MESSAGE).into_http::<()>().into_parts();
        return Response::from_parts(parts, Body::empty());
    }
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32603, "message": MESSAGE},
    });
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn log(panic: &(dyn Any + Send)) {
    let text = panic
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(not a string)");
    tracing::error!(panic = text, "a request panicked; answered with an internal error");
}

#[cfg(test)]
mod tests {
    use axum::routing::post;
    use axum::Router;
    use tower::ServiceExt;

    use super::*;

    async fn panicking() -> &'static str {
        panic!("a bug")
    }

    /// A service whose `call` panics (before any future exists).
    #[derive(Clone)]
    struct PanicsInCall;

    impl tower::Service<Request<Body>> for PanicsInCall {
        type Response = Response;
        type Error = Infallible;
        type Future = std::future::Ready<Result<Response, Infallible>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, _: Request<Body>) -> Self::Future {
            panic!("a bug in call")
        }
    }

    #[tokio::test]
    async fn a_panic_in_call_is_answered_too() {
        use tower::Layer as _;
        let request = http::Request::post("/").body(Body::empty()).unwrap();
        let response = CatchPanicLayer.layer(PanicsInCall).oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let request = http::Request::post("/x").header(header::CONTENT_TYPE, "application/grpc+proto");
        let response =
            CatchPanicLayer.layer(PanicsInCall).oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.headers()["grpc-status"], "13");
    }

    #[tokio::test]
    async fn a_request_that_does_not_panic_is_answered_by_the_service() {
        let app = Router::new().route("/", post(|| async { "fine" })).layer(CatchPanicLayer);
        let response = app.oneshot(http::Request::post("/").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(&axum::body::to_bytes(response.into_body(), 16).await.unwrap()[..], b"fine");
    }

    #[tokio::test]
    async fn a_panic_over_http_is_a_jsonrpc_internal_error_with_status_500() {
        let app = Router::new().route("/", post(panicking)).layer(CatchPanicLayer);
        let response = app.oneshot(http::Request::post("/").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"]["code"], -32603);
        assert_eq!(body["id"], serde_json::Value::Null);
    }

    #[tokio::test]
    async fn a_panic_over_grpc_is_status_internal() {
        let app = Router::new().route("/a2a.Svc/Call", post(panicking)).layer(CatchPanicLayer);
        let request = http::Request::post("/a2a.Svc/Call")
            .header(header::CONTENT_TYPE, "application/grpc")
            .body(Body::empty())
            .unwrap();
        let response = app.oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "gRPC errors travel with HTTP 200");
        assert_eq!(response.headers()["grpc-status"], "13");
        assert_eq!(response.headers()[header::CONTENT_TYPE], "application/grpc");
    }
}
