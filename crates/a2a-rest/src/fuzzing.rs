//! Entry points for the `cargo fuzz` targets in `fuzz/` (feature `fuzzing`; `docs/fuzzing.md`):
//! the client's SSE decoders, which are private, called exactly as the client calls them. Not an
//! API: hidden from the docs and absent without the feature.

use a2a_core::EventStream;

/// The events the 1.0 client reads from an SSE `response` (`message:stream`, `:subscribe`).
pub fn sse_events(response: reqwest::Response) -> EventStream {
    crate::sse::decode(response)
}

/// The events the client in 0.3 mode reads from an SSE `response` (`/v1/message:stream`,
/// `/v1/tasks/{id}:subscribe`).
pub fn sse_events_v03(response: reqwest::Response) -> EventStream {
    crate::client_v03::events(response)
}
