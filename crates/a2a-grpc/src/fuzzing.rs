//! Entry points for the `cargo fuzz` targets in `fuzz/` (feature `fuzzing`; `docs/fuzzing.md`):
//! how the client reads a status from a peer's response headers or trailers, private steps
//! included. Not an API: hidden from the docs and absent without the feature.

use a2a_core::Error;
use http::HeaderMap;

/// The error the client reports for the status in `headers` (a trailers-only response's headers,
/// or the trailers), or `None` if they carry no `grpc-status`: the client's guard
/// (`grpc-status-details-bin` tonic cannot decode is dropped), tonic's own reading
/// (`Status::from_header_map`, as its decoder calls it), then [`crate::error::from_status`] (or,
/// with `v03`, the 0.3 client's reading, which also looks at `a2a-error`).
pub fn status_error(mut headers: HeaderMap, v03: bool) -> Option<Error> {
    crate::guard::sanitize(&mut headers);
    let status = tonic::Status::from_header_map(&headers)?;
    Some(if v03 { crate::client_v03::from_status_v03(&status) } else { crate::error::from_status(&status) })
}
