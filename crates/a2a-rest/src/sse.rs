//! Server-Sent Events (spec 11.7): encoding an [`EventStream`] on the server, decoding one on
//! the client.
//!
//! Each event is one `data:` line holding a bare `StreamResponse` (ProtoJSON). If the stream
//! yields an `Err`, the server sends one last event named `error` whose data is the google.rpc.Status
//! body of spec 11.6 (`{"error":{...}}`), then ends the stream. The event name follows the Python
//! SDK, which sends and expects it; the client also recognizes an unnamed event whose data has a
//! top-level `error` object, since no `StreamResponse` has such a field. A comment line is sent as
//! keep-alive (every 15 s by default) so idle streams survive proxies (a2a-go#168).

use std::convert::Infallible;
use std::time::Duration;

use a2a_core::{Error, EventStream};
use a2a_proto::v1::StreamResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use eventsource_stream::{EventStreamError, Eventsource as _};
use futures::stream::BoxStream;
use futures::{Stream, StreamExt as _};
use serde_json::Value;

use crate::client::transport_error;
use crate::error;

/// Server side: the `text/event-stream` response carrying `events`.
pub(crate) fn response(events: EventStream, keep_alive: Duration) -> Response {
    Sse::new(frames(events)).keep_alive(KeepAlive::new().interval(keep_alive)).into_response()
}

/// The SSE events of `events`: one per item, and after an `Err` item a final error event.
fn frames(events: EventStream) -> impl Stream<Item = Result<Event, Infallible>> + Send + 'static {
    futures::stream::unfold(Some(events), |state| async move {
        let mut events = state?;
        let frame = match events.next().await? {
            Ok(item) => match a2a_proto::json::to_string(&item) {
                Ok(json) => return Some((Ok(Event::default().data(json)), Some(events))),
                Err(err) => error_event(&Error::internal(format!("cannot serialize a stream event: {err}"))),
            },
            Err(error) => error_event(&error),
        };
        // The stream ends after the error event; `events` is dropped here.
        Some((Ok(frame), None))
    })
}

fn error_event(error: &Error) -> Event {
    tracing::debug!(%error, "SSE stream ends with an error");
    let (status, _) = error::status_of(error);
    Event::default().event("error").data(error::body(error, status).to_string())
}

/// Client side: the `StreamResponse`s of an SSE response body. Ends after the first error (an
/// error event, undecodable data, or a broken connection), which is yielded as `Err`.
pub(crate) fn decode(response: reqwest::Response) -> EventStream {
    decode_with(response, parse_event)
}

/// Client side: the items `parse` makes of each event's name and data (events without data are
/// skipped). Ends after the first error (`parse` failing or a broken connection), which is
/// yielded as `Err`.
pub(crate) fn decode_with<T: Send + 'static>(
    response: reqwest::Response,
    parse: fn(&str, &str) -> Result<T, Error>,
) -> BoxStream<'static, Result<T, Error>> {
    let events = response.bytes_stream().eventsource();
    futures::stream::unfold(Some(events), move |state| async move {
        let mut events = state?;
        loop {
            let event = match events.next().await? {
                Ok(event) => event,
                Err(EventStreamError::Transport(err)) => {
                    return Some((Err(transport_error("the event stream broke", &err)), None))
                }
                Err(other) => {
                    let reason = format!("the event stream is malformed: {other}");
                    return Some((Err(Error::Transport { reason }), None));
                }
            };
            if event.data.trim().is_empty() {
                continue;
            }
            return match parse(&event.event, &event.data) {
                Ok(item) => Some((Ok(item), Some(events))),
                Err(error) => Some((Err(error), None)),
            };
        }
    })
    .boxed()
}

/// One event's `StreamResponse`, or the error it carries.
fn parse_event(name: &str, data: &str) -> Result<StreamResponse, Error> {
    let value: Value = match serde_json::from_str(data) {
        Ok(value) => value,
        Err(_) if name == "error" => return Err(Error::Internal { reason: data.to_owned() }),
        Err(err) => return Err(transport_error("an SSE event is not JSON", &err)),
    };
    if value.get("error").is_some_and(Value::is_object) {
        return Err(error::from_status_json(error::event_status(&value), &value));
    }
    if name == "error" {
        return Err(Error::Internal { reason: data.to_owned() });
    }
    a2a_proto::json::from_value(value)
        .map_err(|err| transport_error("an SSE event is not a StreamResponse", &err))
}

#[cfg(test)]
mod tests {
    use a2a_proto::v1::{Task, TaskState, TaskStatus};

    use super::*;

    #[test]
    fn data_of_a_stream_response_is_parsed() {
        let item = parse_event(
            "message",
            r#"{"task": {"id": "task-uuid", "contextId": "context-uuid", "status": {"state": "TASK_STATE_WORKING"}}}"#,
        )
        .unwrap();
        let expected = Task {
            id: "task-uuid".into(),
            context_id: "context-uuid".into(),
            status: Some(TaskStatus { state: TaskState::Working.into(), ..Default::default() }),
            ..Default::default()
        };
        assert_eq!(item, StreamResponse::from(expected));
    }

    #[test]
    fn error_bodies_are_errors_with_or_without_the_event_name() {
        let data = error::body(&Error::TaskNotFound { task_id: "t9".into() }, http::StatusCode::NOT_FOUND)
            .to_string();
        for name in ["error", "message"] {
            match parse_event(name, &data) {
                Err(Error::TaskNotFound { task_id }) => assert_eq!(task_id, "t9"),
                other => panic!("{name}: {other:?}"),
            }
        }
    }

    #[test]
    fn an_error_event_with_foreign_data_is_an_internal_error() {
        assert!(matches!(parse_event("error", "boom"), Err(Error::Internal { reason }) if reason == "boom"));
        assert!(matches!(parse_event("error", "{\"x\":1}"), Err(Error::Internal { .. })));
    }

    #[test]
    fn undecodable_data_is_a_transport_error() {
        assert!(matches!(parse_event("message", "{not json"), Err(Error::Transport { .. })));
        assert!(matches!(parse_event("message", r#"{"task": 5}"#), Err(Error::Transport { .. })));
    }
}
