//! A2A 0.3 without this crate's `v03` feature: 0.3 requests are recognised and refused.
//!
//! The ten 0.3 method names (`message/send`, `tasks/get`, ...; 0.3 spec 7) are 0.3 requests
//! whatever `A2A-Version` says, as with the feature on; any other name is read as 1.0 (an unknown
//! slash name such as `tasks/list` is MethodNotFound either way). Without the translation it is answered with VersionNotSupported (spec 3.6.2:
//! version `0.3`, supported `1.0`) in the 1.0 envelope, with the request's id; a notification is
//! answered with 204 and no body, as for 1.0. Nothing reaches the service.

use std::time::Duration;

use a2a_core::{A2aService, CallContext, ProtocolVersion};
use axum::response::{IntoResponse, Response};
use http::{header, StatusCode};
use serde_json::value::RawValue;

use crate::envelope::{self, Id};

/// The JSON-RPC methods of A2A 0.3 (0.3 spec 7; `a2a_v03::Method::ALL`, which the tests compare).
const NAMES: [&str; 10] = [
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "tasks/resubscribe",
    "agent/getAuthenticatedExtendedCard",
];

/// A 0.3 method, known by its name alone.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Method;

impl Method {
    /// `Some` for the name of a 0.3 method (case-sensitive, as JSON-RPC is).
    pub(crate) fn from_name(name: &str) -> Option<Self> {
        NAMES.contains(&name).then_some(Method)
    }
}

/// Answers a 0.3 request with VersionNotSupported; `id` is `None` for a notification (204).
pub(crate) async fn handle(
    _service: &dyn A2aService,
    _ctx: &CallContext,
    _method: Method,
    id: Option<Id>,
    _params: Option<&RawValue>,
    _keep_alive: Duration,
) -> Response {
    let Some(id) = id else {
        return StatusCode::NO_CONTENT.into_response();
    };
    (
        [(header::CONTENT_TYPE, "application/json")],
        envelope::failure(&id, &ProtocolVersion::V0_3.not_supported(&[ProtocolVersion::V1_0])),
    )
        .into_response()
}
