//! JSON-RPC over Server-Sent Events (spec 9.4.2): each event's `data` is one complete response
//! object for the streaming request's id. Both directions live here: the server turns an
//! [`EventStream`] into an SSE response, the client turns an SSE body back into an [`EventStream`].
//!
//! An `Err` item ends the stream: the server sends it as a final error response object (a plain
//! `data:` event, the shape of spec 9.4.2; the Python and JS SDKs add `event: error`, which the
//! client here accepts as well) and the client yields it as the stream's last item.

use std::convert::Infallible;
use std::time::Duration;

use a2a_core::{Error, EventStream};
use a2a_proto::v1::StreamResponse;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use eventsource_stream::Eventsource;
use futures::stream::BoxStream;
use futures::{stream, StreamExt};
use serde_json::value::RawValue;

use crate::envelope::{self, Id, ReadError};

/// The SSE response for the events of request `id`, with a keep-alive comment after every
/// `keep_alive` of silence (proxies cut idle streams, docs/interop-notes.md).
pub(crate) fn response(id: Id, events: EventStream, keep_alive: Duration) -> Response {
    let frames = stream::unfold(Some(events), move |events| {
        let id = id.clone();
        async move {
            let mut events = events?;
            let (data, next) = match events.next().await? {
                Ok(event) => (event_data(&id, &event), Some(events)),
                Err(error) => (envelope::failure(&id, &error), None),
            };
            Some((Ok::<_, Infallible>(Event::default().data(data)), next))
        }
    });
    Sse::new(frames).keep_alive(KeepAlive::new().interval(keep_alive)).into_response()
}

/// One event's data: the response object for `id` carrying `event`, the bytes
/// [`envelope::success`] writes, written by a2a-proto's JSON writer (faster than serde_json on
/// strings) straight into it ([`envelope::success_message`]).
fn event_data(id: &Id, event: &StreamResponse) -> String {
    match envelope::success_message(id, event).map(String::from_utf8) {
        Ok(Ok(data)) => data,
        // The event cannot be written (or, never, the id and JSON copied are not text): serde_json
        // fails alike, and `success` answers that failure as it always has.
        Ok(Err(_)) | Err(_) => envelope::success(id, event),
    }
}

/// The events of an SSE response to request `request_id` (client side). Transport failures,
/// malformed events and error objects each end the stream with their `Err`.
pub(crate) fn events(response: reqwest::Response, request_id: u64) -> EventStream {
    results(response, request_id, crate::error::from_wire, |result| {
        a2a_proto::json::from_slice::<StreamResponse>(result.get().as_bytes()).map_err(|e| {
            Error::InvalidAgentResponse { reason: format!("a stream event is not a StreamResponse: {e}") }
        })
    })
}

/// The `result`s of the response objects of an SSE response to request `request_id`, each
/// decoded by `decode` (client side); error objects are read by `read_error`. Transport
/// failures, malformed events, error objects and results `decode` rejects each end the stream
/// with their `Err`.
pub(crate) fn results<T: Send + 'static>(
    response: reqwest::Response,
    request_id: u64,
    read_error: ReadError,
    decode: fn(&RawValue) -> Result<T, Error>,
) -> BoxStream<'static, Result<T, Error>> {
    let source = response.bytes_stream().eventsource().boxed();
    stream::unfold(Some(source), move |source| async move {
        let mut source = source?;
        loop {
            let item = match source.next().await? {
                Err(error) => Err(Error::Transport { reason: format!("the event stream broke: {error}") }),
                // An event without data (e.g. only `event:` or `id:` lines) carries no response.
                Ok(event) if event.data.trim().is_empty() => continue,
                Ok(event) => {
                    envelope::parse_response(event.data.as_bytes(), request_id, read_error).and_then(decode)
                }
            };
            let next = item.is_ok().then_some(source);
            return Some((item, next));
        }
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use a2a_proto::v1::{Task, TaskState, TaskStatus};

    use super::*;

    /// An event's data is the response object `envelope::success` writes, to the byte, for ids of
    /// each kind and events whose strings need escapes; an event that cannot be written is the
    /// error object `success` makes of it.
    #[test]
    fn event_data_is_what_the_envelope_writes() {
        let event = |id: &str, state: i32| {
            StreamResponse::from(Task {
                id: id.into(),
                context_id: "ctx \"quoted\" \\ \n\u{1}é😀".into(),
                status: Some(TaskStatus { state, ..Default::default() }),
                ..Default::default()
            })
        };
        for body in [
            r#"{"jsonrpc":"2.0","id":7,"method":"SendStreamingMessage"}"#,
            r#"{"jsonrpc":"2.0","id":"a\"b","method":"SendStreamingMessage"}"#,
            r#"{"jsonrpc":"2.0","id":-1.5e3,"method":"SendStreamingMessage"}"#,
        ] {
            let id = envelope::parse_request(body.as_bytes()).unwrap().id.unwrap();
            for event in [event("t", TaskState::Working.into()), event(&"x".repeat(100), 0), event("t", 999)]
            {
                assert_eq!(event_data(&id, &event), envelope::success(&id, &event), "{body}");
            }
        }
        assert!(event_data(&Id::null(), &event("t", 999)).contains("Invalid variant 999"));
    }
}
