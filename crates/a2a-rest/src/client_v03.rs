//! The 0.3 carriage of [`RestClient`](crate::RestClient)
//! (`with_protocol_version(ProtocolVersion::V0_3)`): the same
//! [`A2aService`](a2a_core::A2aService) calls, sent to the 0.3 HTTP+JSON routes under `/v1/`.
//!
//! The routes and bodies are `a2a-v03`'s ([`a2a_v03::rest::http_call`], the inverse of the
//! server's route table); this module sends them and reads the replies:
//! - bodies are ProtoJSON of the 0.3 proto, `Content-Type: application/json`; the headers are
//!   [`a2a_v03::client_params`] (`A2A-Version: 0.3`, extensions also in `X-A2A-Extensions`);
//! - replies are read by [`a2a_v03::client::read_response`]; one that does not translate is
//!   [`Error::InvalidAgentResponse`];
//! - `tasks/{id}:subscribe` is POSTed (0.3 spec 7.9); a server answering 405 is asked again with
//!   GET (the 0.3 proto's annotation), and so is every later subscription of this client;
//! - streams end after the `final: true` status update ([`a2a_v03::client::read_events`]);
//! - errors: [`error_v03`].

use std::sync::atomic::Ordering;

use a2a_core::carriage::Carriage;
use a2a_core::{CallContext, Error, EventStream, Operation, ProtocolVersion, Request, Response, Result};
use a2a_v03::rest::HttpCall;
use async_trait::async_trait;
use http::header::CONTENT_TYPE;
use http::{Method, StatusCode};
use reqwest::RequestBuilder;
use serde_json::Value;

use crate::client::{check_event_stream, transport_error, Wire, EVENT_STREAM};
use crate::{error, sse};

/// The media type of 0.3 HTTP+JSON bodies (0.3 spec 3.2.3).
const JSON: &str = "application/json";

/// A2A 0.3: the routes of [`a2a_v03::rest::http_call`], file bytes as the wire's `file_bytes`
/// says.
pub(crate) struct V03;

impl V03 {
    /// The HTTP request of a 0.3 call.
    fn request(
        wire: &Wire,
        ctx: &CallContext,
        call: &HttpCall,
        accept: &'static str,
    ) -> Result<RequestBuilder> {
        let mut url = wire.url("", &call.path);
        url.set_query(call.query.as_deref());
        let method = Method::from_bytes(call.method.as_bytes()).map_err(Error::internal)?;
        let headers = wire.headers(&a2a_v03::client_params(&ctx.params), accept)?;
        let mut request = wire.http().request(method, url).headers(headers);
        if let Some(body) = &call.body {
            let body = serde_json::to_vec(body).map_err(Error::internal)?;
            request = request.header(CONTENT_TYPE, JSON).body(body);
        }
        Ok(request)
    }

    /// Sends the unary 0.3 call of `request`; returns the reply body (`null` for an empty one).
    async fn unary(wire: &Wire, ctx: &CallContext, request: &Request) -> Result<Value> {
        let call = a2a_v03::rest::http_call(request)?;
        let response = wire.send(Self::request(wire, ctx, &call, JSON)?).await?;
        let status = response.status();
        let body =
            response.bytes().await.map_err(|err| transport_error("reading the response failed", &err))?;
        if !status.is_success() {
            return Err(error_v03(status, &body));
        }
        if body.iter().all(u8::is_ascii_whitespace) {
            return Ok(Value::Null);
        }
        serde_json::from_slice(&body).map_err(|err| Error::InvalidAgentResponse {
            reason: format!("the reply to {} {} is not JSON: {err}", call.method, call.path),
        })
    }

    /// Sends the streaming 0.3 call of `request` (`message:stream`, `tasks/{id}:subscribe`).
    async fn streaming(wire: &Wire, ctx: &CallContext, request: &Request) -> Result<EventStream> {
        let mut call = a2a_v03::rest::http_call(request)?;
        let subscribe = request.operation() == Operation::SubscribeToTask;
        let as_get = |call: &mut HttpCall| {
            call.method = "GET";
            call.body = None;
        };
        if subscribe && wire.subscribe_with_get().load(Ordering::Relaxed) {
            as_get(&mut call);
        }
        let mut response = wire.send(Self::request(wire, ctx, &call, EVENT_STREAM)?).await?;
        if subscribe && call.method == "POST" && response.status() == StatusCode::METHOD_NOT_ALLOWED {
            wire.subscribe_with_get().store(true, Ordering::Relaxed);
            as_get(&mut call);
            response = wire.send(Self::request(wire, ctx, &call, EVENT_STREAM)?).await?;
        }
        let status = response.status();
        if !status.is_success() {
            let body =
                response.bytes().await.map_err(|err| transport_error("reading the response failed", &err))?;
            return Err(error_v03(status, &body));
        }
        check_event_stream(&response)?;
        Ok(events(response))
    }
}

#[async_trait]
impl Carriage<Wire> for V03 {
    async fn call(&self, wire: &Wire, ctx: &CallContext, mut request: Request) -> Result<Response> {
        wire.file_bytes.encode_request(&mut request);
        let operation = request.operation();
        if operation.is_streaming() {
            return Ok(Response::Stream(Self::streaming(wire, ctx, &request).await?));
        }
        // A delete reads nothing of the reply.
        a2a_v03::client::read_response(operation, &Self::unary(wire, ctx, &request).await?)
    }

    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V0_3
    }
}

/// The 1.0 events of a 0.3 agent's SSE `response`: the 0.3 events, translated, ending after the
/// 0.3 stream's final event.
pub(crate) fn events(response: reqwest::Response) -> EventStream {
    a2a_v03::client::read_events(sse::decode_with(response, parse_event_v03))
}

/// The error of a non-2xx answer of a 0.3 agent (`status`, raw `body`):
/// - a 0.3 error object `{"code", "message", "data"?}` (what a2a-js, a2a-go and our server send;
///   a negative JSON-RPC code): [`a2a_v03::error::from_v03`], 1.0 details in `data` first;
/// - a 1.0 google.rpc.Status body `{"error": {..}}`: read as from a 1.0 agent;
/// - otherwise the status decides, as for 1.0 (`400` invalid params, `404` method not found,
///   `409` task not cancelable, `415`, `501`, `502`, ...), plus what a2a-python's 0.3 server
///   sends with a bare `{"message"}` body: `422` invalid params and `404` task not found.
pub(crate) fn error_v03(status: StatusCode, body: &[u8]) -> Error {
    let value = serde_json::from_slice::<Value>(body).ok();
    if let Some(value) = &value {
        if value.get("code").and_then(Value::as_i64).is_some_and(|code| code < 0) {
            return a2a_v03::error::from_v03(value);
        }
        if value.get("error").is_some_and(Value::is_object) {
            return error::from_status_json(status, value);
        }
    }
    let message = value.as_ref().and_then(|v| v.get("message")).and_then(Value::as_str).map(str::to_owned);
    match (status.as_u16(), message) {
        (422, message) => {
            Error::invalid_params_unattributed(message.unwrap_or_else(|| error::snippet(status, body)))
        }
        (404, Some(_)) => Error::TaskNotFound { task_id: String::new() },
        (_, message) => {
            error::fallback(status, None, &message.unwrap_or_else(|| error::snippet(status, body)))
        }
    }
}

/// One SSE event of a 0.3 stream: its data as JSON (a 0.3 `StreamResponse` in ProtoJSON), or the
/// error it carries (an event named `error`, or data that is an error object).
fn parse_event_v03(name: &str, data: &str) -> Result<Value> {
    let value: Value = match serde_json::from_str(data) {
        Ok(value) => value,
        Err(_) if name == "error" => return Err(Error::Internal { reason: data.to_owned() }),
        Err(err) => {
            return Err(Error::InvalidAgentResponse { reason: format!("an SSE event is not JSON: {err}") })
        }
    };
    // No `StreamResponse` has a top-level `code` or `error`.
    if value.get("code").is_some_and(Value::is_i64) {
        return Err(a2a_v03::error::from_v03(&value));
    }
    if value.get("error").is_some_and(Value::is_object) {
        return Err(error::from_status_json(error::event_status(&value), &value));
    }
    if name == "error" {
        return Err(Error::Internal { reason: data.to_owned() });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn error_of(status: u16, body: &Value) -> Error {
        error_v03(StatusCode::from_u16(status).unwrap(), body.to_string().as_bytes())
    }

    #[test]
    fn error_objects_decide_then_1_0_bodies_then_the_status() {
        let body = a2a_v03::error::to_v03(&Error::TaskNotCancelable {
            task_id: "t".into(),
            state: a2a_proto::v1::TaskState::Completed,
        });
        assert!(
            matches!(error_of(409, &body), Error::TaskNotCancelable { ref task_id, .. } if task_id == "t")
        );
        assert!(matches!(
            error_of(400, &json!({"code": -32001, "message": "m"})),
            Error::TaskNotFound { .. }
        ));
        let v1 = json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "m"}});
        assert!(matches!(error_of(404, &v1), Error::TaskNotFound { .. }));
        assert!(matches!(error_of(404, &json!({"message": "Task not found"})), Error::TaskNotFound { .. }));
        assert!(matches!(error_of(404, &json!({"detail": "Not Found"})), Error::MethodNotFound { .. }));
        assert!(matches!(error_of(422, &json!({"message": "bad"})), Error::InvalidParams { .. }));
        assert!(matches!(error_of(409, &json!({"message": "no"})), Error::TaskNotCancelable { .. }));
        assert!(matches!(error_of(500, &json!({"code": 500, "message": "x"})), Error::Internal { .. }));
    }

    #[test]
    fn sse_error_events_are_errors_and_other_events_are_values() {
        let error = a2a_v03::error::to_v03(&Error::TaskNotFound { task_id: "t1".into() }).to_string();
        assert!(matches!(parse_event_v03("error", &error), Err(Error::TaskNotFound { .. })));
        assert!(matches!(parse_event_v03("message", &error), Err(Error::TaskNotFound { .. })));
        assert!(matches!(parse_event_v03("error", "boom"), Err(Error::Internal { .. })));
        assert!(matches!(parse_event_v03("", "{not json"), Err(Error::InvalidAgentResponse { .. })));
        let event = json!({"statusUpdate": {"taskId": "t", "final": true}});
        assert_eq!(parse_event_v03("", &event.to_string()).unwrap(), event);
    }
}
