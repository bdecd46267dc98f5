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
                Ok(event) => (envelope::success(&id, &event), Some(events)),
                Err(error) => (envelope::failure(&id, &error), None),
            };
            Some((Ok::<_, Infallible>(Event::default().data(data)), next))
        }
    });
    Sse::new(frames).keep_alive(KeepAlive::new().interval(keep_alive)).into_response()
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
