//! A2A 0.3 on the same endpoint: a slash method name (`message/send`, `tasks/get`, ...) is a 0.3
//! request, answered in 0.3 shape (the JSON of the 0.3 JSON Schema) with 0.3 error codes.
//!
//! The method name decides the version, not the `A2A-Version` header: slash names exist only in
//! 0.3 and PascalCase names only in 1.0, so the request's shape is unambiguous (the way the
//! official SDKs serve both versions on one endpoint, docs/interop-notes.md). A slash method sent with
//! `A2A-Version: 1.0` (or any other value) is therefore still served as 0.3; the header is not
//! consulted. Everything else about the request (envelope, id, notifications, body limit) is the
//! same as for 1.0.
//!
//! The translation is `a2a-v03`'s: [`V03Request::from_jsonrpc`], [`V03Request::call`] with
//! [`Form::Json`] on the same [`A2aService`] the 1.0 methods call (so both versions see the same
//! tasks), errors with [`a2a_v03::error::to_v03`]. Streaming methods answer SSE, each `data:` line
//! a 0.3 JSON-RPC response object; the stream ends after the event whose `final` is `true`.

use std::convert::Infallible;
use std::time::Duration;

use a2a_core::{A2aService, CallContext, Error};
pub(crate) use a2a_v03::Method;
use a2a_v03::{Form, Reply, Request, V03Request};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::stream::BoxStream;
use futures::{stream, StreamExt};
use http::{header, StatusCode};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::Value;

use crate::envelope::Id;

/// Answers the 0.3 request `method` with `params`; `id` is `None` for a notification (executed,
/// answered with 204 and no body, as for 1.0).
pub(crate) async fn handle(
    service: &dyn A2aService,
    ctx: &CallContext,
    method: Method,
    id: Option<Id>,
    params: Option<&RawValue>,
    keep_alive: Duration,
) -> Response {
    let result = call(service, ctx, method, params).await;
    let Some(id) = id else {
        if let Err(error) = result {
            tracing::debug!(%error, %method, "A2A 0.3 notification failed");
        }
        return StatusCode::NO_CONTENT.into_response();
    };
    match result {
        Ok(Reply::Value(value)) => json(success(&id, value)),
        Ok(Reply::Stream(events)) => sse(id, events, keep_alive),
        Err(error) => json(failure(&id, &error)),
    }
}

async fn call(
    service: &dyn A2aService,
    ctx: &CallContext,
    method: Method,
    params: Option<&RawValue>,
) -> Result<Reply, Error> {
    let params: Option<Value> = match params {
        None => None,
        Some(raw) => Some(
            serde_json::from_str(raw.get())
                .map_err(|e| Error::invalid_param("params", format!("not readable: {e}")))?,
        ),
    };
    match &params {
        None | Some(Value::Null | Value::Object(_)) => {}
        Some(_) => {
            return Err(Error::invalid_param(
                "params",
                "must be a JSON object of named parameters; A2A methods take no positional parameters",
            ))
        }
    }
    let params = params.filter(|p| !p.is_null());
    Request::from_jsonrpc(method, params.as_ref())?.call(service, ctx, Form::Json).await
}

/// A response object; the id is written verbatim, as for 1.0 (see `envelope`).
#[derive(Serialize)]
struct Envelope<'a> {
    jsonrpc: &'static str,
    id: &'a Id,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<Value>,
}

/// A 0.3 success response object.
fn success(id: &Id, result: Value) -> String {
    write(Envelope { jsonrpc: "2.0", id, result: Some(result), error: None })
}

/// A 0.3 error response object (0.3 spec 6.12, codes of [`a2a_v03::error`]).
fn failure(id: &Id, error: &Error) -> String {
    write(Envelope { jsonrpc: "2.0", id, result: None, error: Some(a2a_v03::error::to_v03(error)) })
}

fn write(envelope: Envelope<'_>) -> String {
    serde_json::to_string(&envelope).unwrap_or_else(|_| {
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error: the response could not be serialized"}}"#.to_owned()
    })
}

fn json(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// The SSE response of a 0.3 stream (0.3 spec 3.3.1): one JSON-RPC response per event; an error
/// ends the stream as a last error response object.
fn sse(id: Id, events: BoxStream<'static, a2a_core::Result<Value>>, keep_alive: Duration) -> Response {
    let frames = stream::unfold(Some(events), move |events| {
        let id = id.clone();
        async move {
            let mut events = events?;
            let (data, next) = match events.next().await? {
                Ok(event) => (success(&id, event), Some(events)),
                Err(error) => (failure(&id, &error), None),
            };
            Some((Ok::<_, Infallible>(Event::default().data(data)), next))
        }
    });
    Sse::new(frames).keep_alive(KeepAlive::new().interval(keep_alive)).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_objects_carry_the_0_3_code_and_the_id() {
        let body: Value =
            serde_json::from_str(&failure(&Id::null(), &Error::TaskNotFound { task_id: "t1".into() }))
                .unwrap();
        assert_eq!(body["jsonrpc"], "2.0");
        assert_eq!(body["id"], Value::Null);
        assert_eq!(body["error"]["code"], -32001);
        assert!(body.get("result").is_none());
        let body: Value =
            serde_json::from_str(&failure(&Id::null(), &Error::ExtendedAgentCardNotConfigured)).unwrap();
        assert_eq!(body["error"]["code"], -32007);
    }
}
