//! A2A 0.3 beside 1.0: every path under `/v1/` is a 0.3 HTTP+JSON route (0.3 spec 3.2.3, 3.5.6),
//! answered in 0.3 shape (ProtoJSON of the 0.3 proto) with 0.3 error bodies.
//!
//! The path decides the version, not the `A2A-Version` header: 1.0 has no `/v1` prefix, 0.3 has
//! nothing else (the way the official SDKs serve both versions on one server, docs/interop-notes.md). So
//! `/v1/...` is never read as the 1.0 routes of a tenant named `v1`: such a tenant cannot use the
//! `/{tenant}/...` path form and sends its `tenant` in the body or query of the unprefixed routes
//! instead.
//!
//! The translation is `a2a-v03`'s ([`a2a_v03::rest::route`], [`V03Request::call`] with
//! [`Form::ProtoJson`]) on the same [`A2aService`] the 1.0 routes call, so both versions see the
//! same tasks. The wire rules of the 1.0 routes apply to the body (size limit 413, JSON content
//! type 415, JSON syntax), answered in the 0.3 error shape.
//!
//! # Errors
//!
//! The body is the 0.3 error object, `{"code", "message", "data"?}` ([`a2a_v03::error::to_v03`]),
//! as a2a-js and a2a-go 0.3 send it; `data` carries the 1.0 details. The 0.3 spec asks only for
//! "appropriate" HTTP statuses (3.2.3); these follow a2a-js 0.3 where it defines one:
//!
//! | Error | HTTP |
//! | :-- | :-- |
//! | ParseError, InvalidRequest, InvalidParams, PushNotificationNotSupported, UnsupportedOperation, ExtensionSupportRequired, VersionNotSupported | 400 |
//! | Unauthenticated | 401 |
//! | PermissionDenied | 403 |
//! | TaskNotFound, MethodNotFound, ExtendedAgentCardNotConfigured | 404 |
//! | TaskNotCancelable | 409 |
//! | ContentTypeNotSupported | 415 |
//! | ResourceExhausted | 429 |
//! | Internal, InvalidAgentResponse | 500 |
//! | Transport (never expected on a server) | 503 |
//!
//! Size and media type rejections keep their precise statuses (413, 415). A `/v1/` path that is
//! no 0.3 route is 404 with a body in both shapes (the 0.3 members beside the 1.0 `error`
//! object): nothing tells which version its client speaks. An error after an SSE
//! stream started is a last event named `error` whose data is the 0.3 error object.

use std::convert::Infallible;
use std::time::Duration;

use a2a_core::{A2aService, Error};
use a2a_v03::{Form, Reply, V03Request};
use axum::body::Body;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::stream::BoxStream;
use futures::{stream, StreamExt};
use http::header::CONTENT_TYPE;
use http::request::Parts;
use http::{HeaderValue, Method, StatusCode};
use serde_json::Value;

use crate::server::{call_context, read_body};

/// The media type of 0.3 HTTP+JSON bodies (0.3 spec 3.2.3).
const JSON: &str = "application/json";

/// Whether the request is for a 0.3 route.
pub(crate) fn is_v03(parts: &Parts) -> bool {
    a2a_v03::rest::is_v03_path(parts.uri.path())
}

/// Answers a 0.3 request (see the module docs).
pub(crate) async fn handle(
    service: &dyn A2aService,
    parts: &Parts,
    body: Body,
    max_body_bytes: usize,
    keep_alive: Duration,
) -> Response {
    let body = if parts.method == Method::POST {
        match read_body(&parts.headers, body, max_body_bytes).await {
            Ok(object) if object.is_empty() => None,
            Ok(object) => Some(Value::Object(object)),
            Err(rejection) => return error_response(rejection.error(), rejection.status()),
        }
    } else {
        None
    };
    let path = parts.uri.path();
    let request = match a2a_v03::rest::route(parts.method.as_str(), path, parts.uri.query(), body.as_ref()) {
        Ok(request) => request,
        Err(error @ Error::MethodNotFound { .. }) => return unknown_route(&error),
        Err(error) => return error_response(&error, status_of(&error)),
    };
    let ctx = call_context(parts);
    match request.call(service, &ctx, Form::ProtoJson).await {
        // `tasks/pushNotificationConfig/delete`: google.protobuf.Empty, `{}` as for 1.0.
        Ok(Reply::Value(Value::Null)) => ok("{}".to_owned()),
        Ok(Reply::Value(value)) => ok(value.to_string()),
        Ok(Reply::Stream(events)) => sse(events, keep_alive),
        Err(error) => {
            if status_of(&error).is_server_error() {
                tracing::warn!(method = %parts.method, path, %error, "A2A 0.3 REST call failed");
            }
            error_response(&error, status_of(&error))
        }
    }
}

fn ok(body: String) -> Response {
    ([(CONTENT_TYPE, HeaderValue::from_static(JSON))], body).into_response()
}

/// The HTTP status of a 0.3 error (module table).
pub(crate) fn status_of(error: &Error) -> StatusCode {
    match error {
        Error::ParseError { .. }
        | Error::InvalidRequest { .. }
        | Error::InvalidParams { .. }
        | Error::PushNotificationNotSupported
        | Error::UnsupportedOperation { .. }
        | Error::ExtensionSupportRequired { .. }
        | Error::VersionNotSupported { .. } => StatusCode::BAD_REQUEST,
        Error::Unauthenticated { .. } => StatusCode::UNAUTHORIZED,
        Error::PermissionDenied { .. } => StatusCode::FORBIDDEN,
        Error::TaskNotFound { .. } | Error::MethodNotFound { .. } | Error::ExtendedAgentCardNotConfigured => {
            StatusCode::NOT_FOUND
        }
        Error::TaskNotCancelable { .. } => StatusCode::CONFLICT,
        Error::ContentTypeNotSupported { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        Error::ResourceExhausted { .. } => StatusCode::TOO_MANY_REQUESTS,
        Error::Internal { .. } | Error::InvalidAgentResponse { .. } => StatusCode::INTERNAL_SERVER_ERROR,
        Error::Transport { .. } => StatusCode::SERVICE_UNAVAILABLE,
    }
}

/// `status` with the 0.3 error object of `error` as the body.
fn error_response(error: &Error, status: StatusCode) -> Response {
    let body = a2a_v03::error::to_v03(error).to_string();
    let mut response = (status, [(CONTENT_TYPE, HeaderValue::from_static(JSON))], body).into_response();
    crate::error::retry_after(error, &mut response);
    response
}

/// 404 for a `/v1/` path that is no 0.3 route. Nothing tells which version the client speaks,
/// so the body has both shapes: the 0.3 members (`code`, `message`, `data`) and the 1.0 `error`
/// object of spec 11.6, which do not collide (like the union agent card). The media type stays
/// 1.0's `application/a2a+json`, as for every other unknown path; it is JSON to 0.3 clients too.
fn unknown_route(error: &Error) -> Response {
    let status = StatusCode::NOT_FOUND;
    let mut body = crate::error::body(error, status);
    if let (Value::Object(both), Value::Object(v03)) = (&mut body, a2a_v03::error::to_v03(error)) {
        both.extend(v03);
    }
    (status, [(CONTENT_TYPE, HeaderValue::from_static(crate::A2A_JSON))], body.to_string()).into_response()
}

/// The SSE response of a 0.3 stream: one `data:` line per 0.3 `StreamResponse` (ProtoJSON), and
/// after an error a last event named `error` with the 0.3 error object.
fn sse(events: BoxStream<'static, a2a_core::Result<Value>>, keep_alive: Duration) -> Response {
    let frames = stream::unfold(Some(events), |events| async move {
        let mut events = events?;
        let (frame, next) = match events.next().await? {
            Ok(event) => (Event::default().data(event.to_string()), Some(events)),
            Err(error) => {
                tracing::debug!(%error, "A2A 0.3 SSE stream ends with an error");
                (Event::default().event("error").data(a2a_v03::error::to_v03(&error).to_string()), None)
            }
        };
        Some((Ok::<_, Infallible>(frame), next))
    });
    Sse::new(frames).keep_alive(KeepAlive::new().interval(keep_alive)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_follow_the_module_table() {
        assert_eq!(status_of(&Error::TaskNotFound { task_id: "t".into() }), StatusCode::NOT_FOUND);
        assert_eq!(
            status_of(&Error::TaskNotCancelable { task_id: "t".into(), state: Default::default() }),
            StatusCode::CONFLICT
        );
        assert_eq!(status_of(&Error::invalid_param("id", "x")), StatusCode::BAD_REQUEST);
        assert_eq!(status_of(&Error::internal("x")), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
