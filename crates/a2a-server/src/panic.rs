//! What a client gets when a bug makes a request panic inside a binding or the request handler:
//! a clear internal error in the binding's own shape, instead of a dropped connection. (Panics of
//! an agent's executor never get here: the handler turns them into a failed task, spec 4.1.3.)
//!
//! - JSON-RPC and REST: HTTP 500 with a JSON-RPC error object (`-32603`, id `null`: the request
//!   could not be answered), which a REST client reads as INTERNAL by its status.
//! - gRPC: status INTERNAL (13) in the trailers-only form, as tonic writes any error.

use std::any::Any;

use axum::body::Body;
use axum::response::Response;
use http::{header, HeaderValue, StatusCode};
use tower_http::catch_panic::{CatchPanicLayer, ResponseForPanic};

/// The message every panic response carries (the panic's own text goes to the log only: it may
/// name internals).
const MESSAGE: &str = "internal error: the server failed while handling this request";

/// The layer for the JSON-RPC and REST routers.
pub(crate) fn http_layer() -> CatchPanicLayer<HttpPanic> {
    CatchPanicLayer::custom(HttpPanic)
}

/// The layer for the gRPC router.
pub(crate) fn grpc_layer() -> CatchPanicLayer<GrpcPanic> {
    CatchPanicLayer::custom(GrpcPanic)
}

/// [`http_layer`]'s response.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpPanic;

impl ResponseForPanic for HttpPanic {
    type ResponseBody = Body;

    fn response_for_panic(&mut self, panic: Box<dyn Any + Send + 'static>) -> Response<Body> {
        log(panic.as_ref());
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
}

/// [`grpc_layer`]'s response.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GrpcPanic;

impl ResponseForPanic for GrpcPanic {
    type ResponseBody = Body;

    fn response_for_panic(&mut self, panic: Box<dyn Any + Send + 'static>) -> Response<Body> {
        log(panic.as_ref());
        let (parts, ()) = tonic::Status::internal(MESSAGE).into_http::<()>().into_parts();
        Response::from_parts(parts, Body::empty())
    }
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

    #[tokio::test]
    async fn a_panic_over_http_is_a_jsonrpc_internal_error_with_status_500() {
        let app = Router::new().route("/", post(panicking)).layer(http_layer());
        let response = app.oneshot(http::Request::post("/").body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(response.status(), StatusCode::INTERNAL_SERVER_ERROR);
        let bytes = axum::body::to_bytes(response.into_body(), 1 << 16).await.unwrap();
        let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(body["error"]["code"], -32603);
        assert_eq!(body["id"], serde_json::Value::Null);
    }

    #[tokio::test]
    async fn a_panic_over_grpc_is_status_internal() {
        let app = Router::new().route("/a2a.Svc/Call", post(panicking)).layer(grpc_layer());
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
