//! Entry points for the `cargo fuzz` targets in `fuzz/` (feature `fuzzing`; `docs/fuzzing.md`):
//! the client's SSE decoders, which are private, called exactly as the client calls them. Not an
//! API: hidden from the docs and absent without the feature.

use a2a_core::EventStream;

/// The events the 1.0 client reads from an SSE `response` to request `request_id`
/// (`SendStreamingMessage`, `SubscribeToTask`).
pub fn sse_events(response: reqwest::Response, request_id: u64) -> EventStream {
    crate::sse::events(response, request_id)
}

/// The events the client in 0.3 mode reads from an SSE `response` to request `request_id`
/// (`message/stream`, `tasks/resubscribe`).
pub fn sse_events_v03(response: reqwest::Response, request_id: u64) -> EventStream {
    crate::client_v03::events(response, request_id)
}
