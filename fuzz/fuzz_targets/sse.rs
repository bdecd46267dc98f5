//! The clients' Server-Sent Events decoding: an SSE response body, cut into chunks, read by the
//! decoder a streaming call of each client uses (`a2a-jsonrpc` and `a2a-rest`, 1.0 and 0.3
//! modes; entry points of their `fuzzing` feature). The first byte picks the client, the second
//! the chunk size (1 to 256 bytes, so events and lines straddle chunks); the rest is the body.
//! JSON-RPC events answer request id 1.
//!
//! Checks: no panic, no hang; the stream ends, and ends right after its first error.

#![no_main]

use std::convert::Infallible;

use a2a_core::EventStream;
use a2a_fuzz::{block_on, Input};
use bytes::Bytes;
use futures::StreamExt as _;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let client = input.byte();
    let chunk = usize::from(input.byte()) + 1;
    let body = input.rest();
    let response = response(body, chunk);
    let events: EventStream = match client % 4 {
        0 => a2a_jsonrpc::fuzzing::sse_events(response, 1),
        1 => a2a_jsonrpc::fuzzing::sse_events_v03(response, 1),
        2 => a2a_rest::fuzzing::sse_events(response),
        _ => a2a_rest::fuzzing::sse_events_v03(response),
    };
    block_on(drain(events, body.len()));
});

/// A `200 text/event-stream` response whose body arrives in `chunk`-byte pieces.
fn response(body: &[u8], chunk: usize) -> reqwest::Response {
    let pieces: Vec<Result<Bytes, Infallible>> =
        body.chunks(chunk).map(|piece| Ok(Bytes::copy_from_slice(piece))).collect();
    let body = reqwest::Body::wrap_stream(futures::stream::iter(pieces));
    let response = http::Response::builder()
        .header(http::header::CONTENT_TYPE, "text/event-stream")
        .body(body)
        .expect("a valid response");
    reqwest::Response::from(response)
}

/// Reads every item: no more than one per byte of the body (each event takes at least a line),
/// nothing after an error.
async fn drain(mut events: EventStream, body_len: usize) {
    let mut items = 0usize;
    while let Some(item) = events.next().await {
        items += 1;
        assert!(items <= body_len, "{items} events from {body_len} bytes");
        if item.is_err() {
            assert!(events.next().await.is_none(), "an item after the stream's error");
            return;
        }
    }
}
