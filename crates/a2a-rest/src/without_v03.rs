//! A2A 0.3 without this crate's `v03` feature: 0.3 requests are recognised and refused.
//!
//! Every path under `/v1/` is a 0.3 route, whatever `A2A-Version` says, as with the feature on
//! (and so never the 1.0 routes of a tenant named `v1`). Without the translation it is answered
//! with VersionNotSupported (spec 3.6.2: version `0.3`, supported `1.0`) in the 1.0 error body
//! (400, `FAILED_PRECONDITION`, spec 11.6), its body unread. Nothing reaches the service.

use std::time::Duration;

use a2a_core::{A2aService, ProtocolVersion};
use axum::body::Body;
use axum::response::Response;
use http::request::Parts;

/// Where the 0.3 routes are (0.3 spec 3.5.6).
const PREFIX: &str = "/v1/";

/// Whether the request is for a 0.3 route.
pub(crate) fn is_v03(parts: &Parts) -> bool {
    parts.uri.path().starts_with(PREFIX)
}

/// Answers a 0.3 request with VersionNotSupported.
pub(crate) async fn handle(
    _service: &dyn A2aService,
    _parts: &Parts,
    _body: Body,
    _max_body_bytes: usize,
    _keep_alive: Duration,
) -> Response {
    crate::error_response(ProtocolVersion::V0_3.not_supported(&[ProtocolVersion::V1_0]))
}
