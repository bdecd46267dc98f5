//! The JSON-RPC error codes of [`a2a_core::Error`] (spec 5.4, 9.5): the one exhaustive table from
//! error to code, and its inverse for clients.
//!
//! | Error | code |
//! | --- | --- |
//! | `TaskNotFound` | -32001 |
//! | `TaskNotCancelable` | -32002 |
//! | `PushNotificationNotSupported` | -32003 |
//! | `UnsupportedOperation` | -32004 |
//! | `ContentTypeNotSupported` | -32005 |
//! | `InvalidAgentResponse` | -32006 |
//! | `ExtendedAgentCardNotConfigured` | -32007 |
//! | `ExtensionSupportRequired` | -32008 |
//! | `VersionNotSupported` | -32009 |
//! | `Unauthenticated` | -32010 (this implementation's choice, see below) |
//! | `PermissionDenied` | -32011 (this implementation's choice, see below) |
//! | `ResourceExhausted` | -32012 (this implementation's choice, see below) |
//! | `ParseError` | -32700 |
//! | `InvalidRequest` | -32600 |
//! | `MethodNotFound` | -32601 |
//! | `InvalidParams` | -32602 |
//! | `Internal`, `Transport` | -32603 |
//!
//! Spec 3.3.2 leaves authentication and authorization errors to a "JSON-RPC custom error"; this
//! binding uses the next two free codes of the A2A range (-32001 to -32099), and the one after
//! for a server limit reached (a rate limit, too many open streams). On input it also reads
//! the codes a2a-go uses for them (-31401, -31403).
//!
//! Clients decide the error from the `google.rpc.ErrorInfo` (or `BadRequest`) in `error.data`
//! first, as spec 10.6 / docs/interop-notes.md ask, and use the numeric code only when no detail names the
//! error: peers differ in their codes more than in their reasons.

use a2a_core::Error;
use serde_json::Value;

/// `-32700`: the body is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// `-32600`: the JSON is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// `-32601`: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// `-32602`: the parameters do not fit the method.
pub const INVALID_PARAMS: i64 = -32602;
/// `-32603`: a fault on the server.
pub const INTERNAL_ERROR: i64 = -32603;
/// `-32010`: missing or invalid credentials (this binding's choice; spec 3.3.2 leaves it open).
pub const UNAUTHENTICATED: i64 = -32010;
/// `-32011`: the caller may not do this (this binding's choice; spec 3.3.2 leaves it open).
pub const PERMISSION_DENIED: i64 = -32011;
/// `-32012`: a limit of the server was reached; retry later (this binding's choice).
pub const RESOURCE_EXHAUSTED: i64 = -32012;

/// The JSON-RPC `error.code` of `error` (spec 5.4, 9.5): [`Error::json_rpc_code`].
pub fn code(error: &Error) -> i64 {
    error.json_rpc_code()
}

/// The error a JSON-RPC error object describes (client side).
///
/// `data` is the `error.data` member: spec 9.5 makes it an array of `@type` objects; a single
/// object (as some peers send) is read as a one-element array, anything else is ignored. A
/// `google.rpc.ErrorInfo` of the A2A domain or a `google.rpc.BadRequest` decides the error;
/// otherwise the code does, and an unknown code becomes [`Error::Internal`] naming it.
pub fn from_wire(code: i64, message: &str, data: Option<&Value>) -> Error {
    Error::from_json_error_data(message, data).unwrap_or_else(|| from_code(code, message))
}

/// The fallback of [`from_wire`]: the error named by the code alone
/// ([`Error::from_json_rpc_code`]); an unknown code is an internal error naming it.
fn from_code(code: i64, message: &str) -> Error {
    Error::from_json_rpc_code(code, message)
        .unwrap_or_else(|| Error::Internal { reason: format!("JSON-RPC error {code}: {message}") })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_core::error::{BAD_REQUEST_TYPE, ERROR_INFO_TYPE};
    use serde_json::json;

    #[test]
    fn error_info_decides_over_a_disagreeing_code() {
        let data = json!([{"@type": ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND",
            "domain": "a2a-protocol.org", "metadata": {"taskId": "t9"}}]);
        let error = from_wire(-32603, "whatever", Some(&data));
        assert!(matches!(error, Error::TaskNotFound { ref task_id } if task_id == "t9"), "{error:?}");
    }

    #[test]
    fn a_single_detail_object_is_read_like_an_array_of_one() {
        let data =
            json!({"@type": BAD_REQUEST_TYPE, "fieldViolations": [{"field": "id", "description": "d"}]});
        let error = from_wire(-32602, "m", Some(&data));
        assert_eq!(error.field_violations()[0].field, "id");
    }

    #[test]
    fn without_details_the_code_decides_and_display_prefixes_are_removed() {
        let error = from_wire(-32603, "internal error: disk full", None);
        assert!(matches!(error, Error::Internal { ref reason } if reason == "disk full"), "{error:?}");
        let error = from_wire(-32601, "method not found: Foo", None);
        assert!(matches!(error, Error::MethodNotFound { ref method } if method == "Foo"), "{error:?}");
        let error = from_wire(-32004, "no streaming", None);
        assert!(matches!(error, Error::UnsupportedOperation { ref reason } if reason == "no streaming"));
    }

    #[test]
    fn a2a_go_auth_codes_are_understood() {
        assert!(matches!(from_wire(-31401, "no token", None), Error::Unauthenticated { .. }));
        assert!(matches!(from_wire(-31403, "no", None), Error::PermissionDenied { .. }));
    }

    #[test]
    fn unknown_codes_become_internal_errors_naming_code_and_message() {
        let error = from_wire(-32099, "custom trouble", Some(&json!("not details")));
        match error {
            Error::Internal { reason } => assert_eq!(reason, "JSON-RPC error -32099: custom trouble"),
            other => panic!("{other:?}"),
        }
    }
}
