//! The one mapping between [`a2a_core::Error`] and HTTP (spec 5.4, 11.6), both ways.
//!
//! Server side: every error is answered with its spec 5.4 HTTP status and the google.rpc.Status
//! JSON body of spec 11.6:
//! `{"error":{"code":<http status>,"status":"<google.rpc.Code name>","message":..,"details":[..]}}`,
//! `details` being [`Error::to_json_details`] (ErrorInfo for A2A errors, BadRequest for invalid
//! parameters). A few wire-level rejections keep the body of their error but use a more precise
//! HTTP status: 405 (with `Allow`), 413 and 415 ([`Rejection`]).
//!
//! Client side ([`from_status_body`]): the error comes from the ErrorInfo `reason` (or a
//! BadRequest) when present; only without one does the HTTP status decide, and then the 1.0.0
//! statuses that peers still send (409, 415, 501, 502; see docs/interop-notes.md) are understood too.

use std::fmt::Write as _;

use a2a_core::Error;
use a2a_proto::v1::TaskState;
use axum::response::{IntoResponse, Response};
use http::header::{ALLOW, CONTENT_TYPE, RETRY_AFTER};
use http::{HeaderValue, Method, StatusCode};
use serde_json::{json, Value};

use crate::A2A_JSON;

/// The HTTP status and google.rpc.Code name of every error (spec 5.4, plus the standard errors).
pub(crate) fn status_of(error: &Error) -> (StatusCode, &'static str) {
    match error {
        Error::TaskNotFound { .. } => (StatusCode::NOT_FOUND, "NOT_FOUND"),
        Error::TaskNotCancelable { .. } => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Error::PushNotificationNotSupported => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Error::UnsupportedOperation { .. } => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Error::ContentTypeNotSupported { .. } => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        Error::InvalidAgentResponse { .. } => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
        Error::ExtendedAgentCardNotConfigured => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Error::ExtensionSupportRequired { .. } => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Error::VersionNotSupported { .. } => (StatusCode::BAD_REQUEST, "FAILED_PRECONDITION"),
        Error::ParseError { .. } => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        Error::InvalidRequest { .. } => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        Error::MethodNotFound { .. } => (StatusCode::NOT_FOUND, "UNIMPLEMENTED"),
        Error::InvalidParams { .. } => (StatusCode::BAD_REQUEST, "INVALID_ARGUMENT"),
        Error::Unauthenticated { .. } => (StatusCode::UNAUTHORIZED, "UNAUTHENTICATED"),
        Error::PermissionDenied { .. } => (StatusCode::FORBIDDEN, "PERMISSION_DENIED"),
        Error::ResourceExhausted { .. } => (StatusCode::TOO_MANY_REQUESTS, "RESOURCE_EXHAUSTED"),
        Error::Internal { .. } => (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL"),
        // Client-only; a server that sees one (e.g. from a proxied call) reports it unavailable.
        Error::Transport { .. } => (StatusCode::SERVICE_UNAVAILABLE, "UNAVAILABLE"),
    }
}

/// The spec 11.6 body of `error`, with `code` the HTTP status actually sent.
pub(crate) fn body(error: &Error, code: StatusCode) -> Value {
    let (_, status) = status_of(error);
    json!({
        "error": {
            "code": code.as_u16(),
            "status": status,
            "message": error.to_string(),
            "details": error.to_json_details(),
        }
    })
}

/// Answers `error` with its spec 5.4 HTTP status and the google.rpc.Status JSON body of spec
/// 11.6 (`Content-Type: application/a2a+json`).
///
/// The REST server uses it for every failed call; it is public so that layers in front of the
/// router (authentication, rate limits) can answer in the same shape, e.g.
/// `error_response(Error::Unauthenticated { reason: "missing bearer token".into() })`.
pub fn error_response(error: Error) -> Response {
    Rejection::from(error).into_response()
}

/// A failed request as the server answers it: an error, the HTTP status to send (spec 5.4's, or
/// a more precise one for wire-level rejections) and, for 405, the `Allow` header.
#[derive(Debug)]
pub(crate) struct Rejection {
    error: Error,
    status: StatusCode,
    allow: Option<HeaderValue>,
}

impl Rejection {
    /// The error the body describes.
    pub(crate) fn error(&self) -> &Error {
        &self.error
    }

    /// The HTTP status that will be sent.
    pub(crate) fn status(&self) -> StatusCode {
        self.status
    }

    /// 405: the route exists but not for this method (RFC 9110 15.5.6 requires `Allow`).
    pub(crate) fn method_not_allowed(method: &Method, path: &str, allow: &[Method]) -> Self {
        let list = allow.iter().map(Method::as_str).collect::<Vec<_>>().join(", ");
        Rejection {
            error: Error::MethodNotFound { method: format!("{method} {path} (allowed: {list})") },
            status: StatusCode::METHOD_NOT_ALLOWED,
            allow: HeaderValue::from_str(&list).ok(),
        }
    }

    /// 413: the body is larger than the configured limit.
    pub(crate) fn payload_too_large(limit: usize) -> Self {
        Rejection {
            error: Error::InvalidRequest {
                reason: format!("the request body exceeds the limit of {limit} bytes"),
            },
            status: StatusCode::PAYLOAD_TOO_LARGE,
            allow: None,
        }
    }

    /// 415: a body in a media type other than `application/a2a+json` or `application/json`.
    pub(crate) fn unsupported_media_type(content_type: &str) -> Self {
        Rejection {
            error: Error::InvalidRequest {
                reason: format!(
                    "unsupported request content type `{content_type}`; send `application/a2a+json` \
                     or `application/json`"
                ),
            },
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            allow: None,
        }
    }
}

impl From<Error> for Rejection {
    fn from(error: Error) -> Self {
        let (status, _) = status_of(&error);
        Rejection { error, status, allow: None }
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        let body = body(&self.error, self.status).to_string();
        let mut response =
            (self.status, [(CONTENT_TYPE, HeaderValue::from_static(A2A_JSON))], body).into_response();
        if let Some(allow) = self.allow {
            response.headers_mut().insert(ALLOW, allow);
        }
        retry_after(&self.error, &mut response);
        response
    }
}

/// Adds `Retry-After` (RFC 9110 10.2.3, in seconds) to the answer of an error that knows when
/// to retry: [`Error::ResourceExhausted`] with a hint.
pub(crate) fn retry_after(error: &Error, response: &mut Response) {
    if let Error::ResourceExhausted { retry_after_secs: Some(secs), .. } = error {
        response.headers_mut().insert(RETRY_AFTER, HeaderValue::from(*secs));
    }
}

/// Client side: the error of a non-2xx response (`status`, raw `body`).
pub(crate) fn from_status_body(status: StatusCode, body: &[u8]) -> Error {
    match serde_json::from_slice::<Value>(body) {
        Ok(value) if value.get("error").is_some_and(Value::is_object) => from_status_json(status, &value),
        _ => fallback(status, None, &snippet(status, body)),
    }
}

/// Client side: the error of a google.rpc.Status JSON body `{"error":{...}}`, as found in an
/// error response or an SSE error event (then `status` is its `error.code`, or 500).
pub(crate) fn from_status_json(status: StatusCode, value: &Value) -> Error {
    let error = &value["error"];
    let message = error["message"].as_str().unwrap_or_default();
    let details = error["details"].as_array().map(Vec::as_slice).unwrap_or_default();
    if let Some(found) = Error::from_json_details(message, details) {
        return found;
    }
    let message = if message.is_empty() { status.to_string() } else { message.to_owned() };
    fallback(status, error["status"].as_str(), &message)
}

/// The HTTP status of an SSE error event: its `error.code`, or 500 if it has none.
pub(crate) fn event_status(value: &Value) -> StatusCode {
    value["error"]["code"]
        .as_u64()
        .and_then(|code| u16::try_from(code).ok())
        .and_then(|code| StatusCode::from_u16(code).ok())
        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

/// The error a status implies when the body identifies none (no ErrorInfo or BadRequest). Reads
/// the spec 1.0.1 table and the 1.0.0 one (409, 415, 501, 502); `rpc_status` (the body's
/// google.rpc.Code name, if any) separates NOT_FOUND from UNIMPLEMENTED on 404 and
/// FAILED_PRECONDITION from INVALID_ARGUMENT on 400. Ids and states are unknown here, so they
/// are left empty.
pub(crate) fn fallback(status: StatusCode, rpc_status: Option<&str>, message: &str) -> Error {
    let reason = message.to_owned();
    match status.as_u16() {
        400 if rpc_status == Some("FAILED_PRECONDITION") => Error::UnsupportedOperation { reason },
        // spec 3.3.2: a validation error is "invalid parameters" on every binding (400
        // INVALID_ARGUMENT here, -32602 / INVALID_ARGUMENT elsewhere); no field is named.
        400 if rpc_status.is_none_or(|s| s == "INVALID_ARGUMENT") => {
            Error::invalid_params_unattributed(reason)
        }
        401 => Error::Unauthenticated { reason },
        403 => Error::PermissionDenied { reason },
        429 => Error::ResourceExhausted { reason, retry_after_secs: None },
        // A 404 without a google.rpc.Status body is most likely a wrong base URL.
        404 if rpc_status.is_some_and(|s| s != "UNIMPLEMENTED") => {
            Error::TaskNotFound { task_id: String::new() }
        }
        404 | 405 => Error::MethodNotFound { method: reason },
        409 => Error::TaskNotCancelable { task_id: String::new(), state: TaskState::Unspecified },
        415 => Error::ContentTypeNotSupported { media_type: String::new() },
        501 => Error::UnsupportedOperation { reason },
        502 => Error::InvalidAgentResponse { reason },
        503 | 504 => Error::Transport { reason },
        400..=499 => Error::InvalidRequest { reason },
        500..=599 => Error::Internal { reason },
        _ => Error::Transport { reason: format!("unexpected HTTP status {status}: {reason}") },
    }
}

/// A short human-readable description of a body that is not a google.rpc.Status.
pub(crate) fn snippet(status: StatusCode, body: &[u8]) -> String {
    const MAX: usize = 200;
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    let mut out = format!("HTTP {status}");
    if !text.is_empty() {
        let cut: String = text.chars().take(MAX).collect();
        let _ = write!(out, ": {cut}");
        if text.chars().count() > MAX {
            out.push('…');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn body_has_the_spec_11_6_shape() {
        let value = body(&Error::TaskNotFound { task_id: "task-123".into() }, StatusCode::NOT_FOUND);
        assert_eq!(value["error"]["code"], 404);
        assert_eq!(value["error"]["status"], "NOT_FOUND");
        assert_eq!(value["error"]["details"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
        assert_eq!(value["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
        assert_eq!(value["error"]["details"][0]["domain"], "a2a-protocol.org");
        assert_eq!(value["error"]["details"][0]["metadata"]["taskId"], "task-123");
    }

    #[test]
    fn spec_11_6_example_body_is_read_as_task_not_found() {
        let body = br#"{"error":{"code":404,"status":"NOT_FOUND",
            "message":"The specified task ID does not exist or is not accessible",
            "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND",
            "domain":"a2a-protocol.org","metadata":{"taskId":"task-123","timestamp":"2025-11-09T10:30:00.000Z"}}]}}"#;
        match from_status_body(StatusCode::NOT_FOUND, body) {
            Error::TaskNotFound { task_id } => assert_eq!(task_id, "task-123"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn error_info_wins_over_the_status() {
        // A 1.0.0 peer sends 409 for TaskNotCancelable, a 1.0.1 peer 400: the reason decides.
        let info = Error::TaskNotCancelable { task_id: "t".into(), state: TaskState::Completed };
        let value = body(&info, StatusCode::CONFLICT);
        let bytes = value.to_string();
        for status in [StatusCode::CONFLICT, StatusCode::BAD_REQUEST, StatusCode::IM_A_TEAPOT] {
            assert!(matches!(
                from_status_body(status, bytes.as_bytes()),
                Error::TaskNotCancelable { state: TaskState::Completed, .. }
            ));
        }
    }

    #[test]
    fn statuses_without_error_info_fall_back_to_both_tables() {
        let status_body = |code: u16, status: &str| {
            json!({"error": {"code": code, "status": status, "message": "m"}}).to_string().into_bytes()
        };
        let cases: Vec<(u16, Vec<u8>, &str)> = vec![
            (400, status_body(400, "INVALID_ARGUMENT"), "InvalidParams"),
            (400, Vec::new(), "InvalidParams"),
            (400, status_body(400, "FAILED_PRECONDITION"), "UnsupportedOperation"),
            (401, Vec::new(), "Unauthenticated"),
            (403, Vec::new(), "PermissionDenied"),
            (404, status_body(404, "NOT_FOUND"), "TaskNotFound"),
            (404, status_body(404, "UNIMPLEMENTED"), "MethodNotFound"),
            (404, b"<html>not found</html>".to_vec(), "MethodNotFound"),
            (405, Vec::new(), "MethodNotFound"),
            (409, status_body(409, "FAILED_PRECONDITION"), "TaskNotCancelable"),
            (413, Vec::new(), "InvalidRequest"),
            (415, status_body(415, "INVALID_ARGUMENT"), "ContentTypeNotSupported"),
            (500, Vec::new(), "Internal"),
            (501, status_body(501, "UNIMPLEMENTED"), "UnsupportedOperation"),
            (502, Vec::new(), "InvalidAgentResponse"),
            (503, Vec::new(), "Transport"),
            (302, Vec::new(), "Transport"),
        ];
        for (code, body, expected) in cases {
            let error = from_status_body(StatusCode::from_u16(code).unwrap(), &body);
            let name = format!("{error:?}");
            assert!(name.starts_with(expected), "{code}: expected {expected}, got {name}");
        }
    }

    #[test]
    fn non_json_bodies_are_quoted_briefly_in_the_message() {
        let long = "x".repeat(500);
        match from_status_body(StatusCode::INTERNAL_SERVER_ERROR, long.as_bytes()) {
            Error::Internal { reason } => {
                assert!(reason.starts_with("HTTP 500 Internal Server Error: xxx"));
                assert!(reason.chars().count() < 250, "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn method_not_allowed_sets_allow_and_keeps_the_json_body() {
        let response =
            Rejection::method_not_allowed(&Method::GET, "/message:send", &[Method::POST]).into_response();
        assert_eq!(response.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(response.headers()[ALLOW], "POST");
        assert_eq!(response.headers()[CONTENT_TYPE], A2A_JSON);
    }

    #[test]
    fn event_status_defaults_to_500() {
        assert_eq!(event_status(&json!({"error": {"code": 404}})), StatusCode::NOT_FOUND);
        assert_eq!(event_status(&json!({"error": {}})), StatusCode::INTERNAL_SERVER_ERROR);
        assert_eq!(event_status(&json!({"error": {"code": 70000}})), StatusCode::INTERNAL_SERVER_ERROR);
    }
}
