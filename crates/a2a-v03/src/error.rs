//! Errors in 0.3 terms: [`a2a_core::Error`] as a 0.3 error object and back, and invalid-params
//! field paths renamed from 1.0 to 0.3 ([`in_v03_terms`]).
//!
//! 0.3 errors are `{"code", "message", "data"?}`: the JSON-RPC `error` member, and the bare body of
//! HTTP+JSON error responses in the 0.3 SDKs (a2a-js, a2a-go). Codes (0.3 spec section 8):
//!
//! | Error | 0.3 code | note |
//! | --- | --- | --- |
//! | `TaskNotFound` | -32001 | |
//! | `TaskNotCancelable` | -32002 | |
//! | `PushNotificationNotSupported` | -32003 | |
//! | `UnsupportedOperation` | -32004 | |
//! | `ContentTypeNotSupported` | -32005 | |
//! | `InvalidAgentResponse` | -32006 | |
//! | `ExtendedAgentCardNotConfigured` | -32007 | 0.3's `AuthenticatedExtendedCardNotConfiguredError` |
//! | `ExtensionSupportRequired` | -32008 | no 0.3 counterpart: 1.0's code, a server-defined code in 0.3's reserved range |
//! | `VersionNotSupported` | -32009 | no 0.3 counterpart: likewise |
//! | `Unauthenticated` | -32010 | no 0.3 counterpart (0.3 answers HTTP 401): the 1.0 JSON-RPC binding's choice |
//! | `PermissionDenied` | -32011 | no 0.3 counterpart (0.3 answers HTTP 403): likewise |
//! | `ResourceExhausted` | -32012 | no 0.3 counterpart (0.3 answers HTTP 429): likewise |
//! | `ParseError` | -32700 | |
//! | `InvalidRequest` | -32600 | |
//! | `MethodNotFound` | -32601 | |
//! | `InvalidParams` | -32602 | |
//! | `Internal`, `Transport` | -32603 | |
//!
//! The 0.3 spec lets servers use -32000..-32099 for errors it does not define, "documented
//! clearly": that is this table. `message` is the error's `Display`. `data`, free-form in 0.3,
//! carries 1.0's details array (`google.rpc.ErrorInfo` with the reason and ids, `BadRequest` with
//! the field violations) when there is one: a 0.3 client ignores it, and our client recovers the
//! exact error from it.

use a2a_core::error::FieldViolation;
use a2a_core::Error;
use serde_json::{json, Value};

use crate::method::Method;

/// The 0.3 error code of `error` (module table): 0.3 numbers its errors as 1.0's JSON-RPC
/// binding does ([`Error::json_rpc_code`]).
pub fn code(error: &Error) -> i64 {
    error.json_rpc_code()
}

/// `error` as a 0.3 error object: `{"code", "message", "data"?}`.
pub fn to_v03(error: &Error) -> Value {
    let details = error.to_json_details();
    let mut object = json!({ "code": code(error), "message": error.to_string() });
    if !details.is_empty() {
        object["data"] = Value::Array(details);
    }
    object
}

/// The error a 0.3 error object describes (client side). 1.0 details in `data` (as we send them)
/// decide first; otherwise the code does, and an unknown or missing code is
/// [`Error::Internal`] with the message.
pub fn from_v03(error: &Value) -> Error {
    let message = error.get("message").and_then(Value::as_str).unwrap_or_default();
    if let Some(error) = Error::from_json_error_data(message, error.get("data")) {
        return error;
    }
    // By the code alone: the same table as 1.0's JSON-RPC ([`Error::from_json_rpc_code`]), but
    // for invalid params, which name the 0.3 request's `params` as a whole.
    match error.get("code").and_then(Value::as_i64) {
        Some(-32602) => Error::invalid_param("params", message),
        Some(code) => Error::from_json_rpc_code(code, message)
            .unwrap_or_else(|| Error::Internal { reason: format!("A2A 0.3 error {code}: {message}") }),
        None => Error::Internal { reason: format!("A2A 0.3 error without code: {message}") },
    }
}

/// Client side: `error` from reading a 0.3 agent's *reply* (which [`V03::from_v03`] reports as
/// invalid params, naming the field) as [`Error::InvalidAgentResponse`]: the agent, not the
/// caller, sent something invalid. Other errors are returned unchanged.
///
/// [`V03::from_v03`]: crate::V03::from_v03
pub fn invalid_agent_response(error: Error) -> Error {
    match error {
        Error::InvalidParams { violations } => Error::InvalidAgentResponse {
            reason: violations
                .iter()
                .map(|v| format!("{}: {}", v.field, v.description))
                .collect::<Vec<_>>()
                .join("; "),
        },
        other => other,
    }
}

/// `error` with the field paths of its violations renamed from the 1.0 request of `method` to the
/// 0.3 params a 0.3 client sent (core validates the translated 1.0 request, so its paths are 1.0
/// paths): `message.parts[0].raw` → `message.parts[0].file.bytes`, `url` of a push config →
/// `pushNotificationConfig.url`, `taskId` of a push config lookup → `id`, ... Other errors are
/// returned unchanged.
pub fn in_v03_terms(error: Error, method: Method) -> Error {
    match error {
        Error::InvalidParams { violations } => Error::InvalidParams {
            violations: violations
                .into_iter()
                .map(|v| FieldViolation { field: rename(&v.field, method), description: v.description })
                .collect(),
        },
        other => other,
    }
}

/// One path, 1.0 → 0.3.
fn rename(path: &str, method: Method) -> String {
    let segments: Vec<&str> = path.split('.').collect();
    let renamed: Vec<String> = match method {
        Method::MessageSend | Method::MessageStream => match segments.as_slice() {
            ["message", parts, field] if parts.starts_with("parts[") => {
                let file_field = match *field {
                    "raw" => Some("bytes"),
                    "url" => Some("uri"),
                    "mediaType" => Some("mimeType"),
                    "filename" => Some("name"),
                    _ => None,
                };
                match file_field {
                    Some(f) => vec!["message".into(), (*parts).into(), "file".into(), f.into()],
                    None => own(&segments),
                }
            }
            ["configuration", "returnImmediately"] => vec!["configuration".into(), "blocking".into()],
            ["configuration", "taskPushNotificationConfig", rest @ ..] => {
                let mut out = vec!["configuration".into(), "pushNotificationConfig".into()];
                out.extend(push_fields(rest));
                out
            }
            _ => own(&segments),
        },
        Method::PushNotificationConfigSet => match segments.as_slice() {
            [first, ..] if matches!(*first, "taskId" | "tenant") => own(&segments),
            rest => {
                let mut out = vec!["pushNotificationConfig".into()];
                out.extend(push_fields(rest));
                out
            }
        },
        Method::PushNotificationConfigGet | Method::PushNotificationConfigDelete => match segments.as_slice()
        {
            ["taskId"] => vec!["id".into()],
            ["id"] => vec!["pushNotificationConfigId".into()],
            _ => own(&segments),
        },
        Method::PushNotificationConfigList => match segments.as_slice() {
            ["taskId"] => vec!["id".into()],
            _ => own(&segments),
        },
        Method::TasksGet
        | Method::TasksCancel
        | Method::TasksResubscribe
        | Method::GetAuthenticatedExtendedCard => own(&segments),
    };
    renamed.join(".")
}

fn own(segments: &[&str]) -> Vec<String> {
    segments.iter().map(|s| (*s).to_owned()).collect()
}

/// The fields of a flat 1.0 push config as fields of a 0.3 `PushNotificationConfig`.
fn push_fields(segments: &[&str]) -> Vec<String> {
    match segments {
        ["authentication", "scheme"] => vec!["authentication".into(), "schemes".into()],
        other => own(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_core::error::testing::one_of_each;

    #[test]
    fn a_message_repeating_the_variants_prefix_is_not_written_twice() {
        let error = from_v03(&json!({"code": -32603, "message": "internal error: the disk is full"}));
        assert_eq!(error.to_string(), "internal error: the disk is full");
        let error = from_v03(&json!({"code": -32004, "message": "no such thing"}));
        assert_eq!(error.to_string(), Error::unsupported("no such thing").to_string());
    }

    #[test]
    fn codes_follow_the_0_3_table() {
        let codes: Vec<i64> = one_of_each().iter().map(code).collect();
        assert_eq!(
            codes,
            [
                -32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009, -32700, -32600,
                -32601, -32602, -32010, -32011, -32012, -32603, -32603
            ]
        );
    }

    #[test]
    fn a2a_errors_round_trip_through_their_details_and_the_rest_by_code() {
        for error in one_of_each() {
            let wire = to_v03(&error);
            assert_eq!(wire["code"], code(&error));
            assert_eq!(wire["message"], error.to_string());
            let back = from_v03(&wire);
            assert_eq!(code(&back), code(&error), "{wire}");
            if error.reason().is_some() || matches!(error, Error::InvalidParams { .. }) {
                assert_eq!(format!("{back:?}"), format!("{error:?}"), "details carry the exact error");
            }
        }
    }

    #[test]
    fn plain_0_3_errors_are_recognised_by_code() {
        let task_not_found = from_v03(&json!({"code": -32001, "message": "Task not found"}));
        assert!(matches!(task_not_found, Error::TaskNotFound { .. }));
        let unknown = from_v03(&json!({"code": -32050, "message": "custom"}));
        assert!(matches!(unknown, Error::Internal { ref reason } if reason.contains("-32050")));
        let python_rest = from_v03(&json!({"message": "Task not found"}));
        assert!(matches!(python_rest, Error::Internal { .. }));
    }

    #[test]
    fn unreadable_replies_are_invalid_agent_responses() {
        use crate::V03;
        let error = a2a_proto::v1::Task::from_v03(&json!({"status": {"state": "running"}})).unwrap_err();
        let error = invalid_agent_response(error);
        assert!(
            matches!(&error, Error::InvalidAgentResponse { reason } if reason.starts_with("status.state:")),
            "{error:?}"
        );
        assert!(matches!(invalid_agent_response(Error::internal("x")), Error::Internal { .. }));
    }

    #[test]
    fn field_paths_are_renamed_to_the_0_3_params() {
        let cases = [
            (Method::MessageSend, "message.parts[2].raw", "message.parts[2].file.bytes"),
            (Method::MessageStream, "message.parts[0].url", "message.parts[0].file.uri"),
            (Method::MessageSend, "message.parts[0].mediaType", "message.parts[0].file.mimeType"),
            (Method::MessageSend, "message.messageId", "message.messageId"),
            (Method::MessageSend, "configuration.returnImmediately", "configuration.blocking"),
            (
                Method::MessageSend,
                "configuration.taskPushNotificationConfig.authentication.scheme",
                "configuration.pushNotificationConfig.authentication.schemes",
            ),
            (
                Method::MessageSend,
                "configuration.taskPushNotificationConfig.url",
                "configuration.pushNotificationConfig.url",
            ),
            (Method::PushNotificationConfigSet, "url", "pushNotificationConfig.url"),
            (Method::PushNotificationConfigSet, "taskId", "taskId"),
            (
                Method::PushNotificationConfigSet,
                "authentication.scheme",
                "pushNotificationConfig.authentication.schemes",
            ),
            (Method::PushNotificationConfigGet, "taskId", "id"),
            (Method::PushNotificationConfigGet, "id", "pushNotificationConfigId"),
            (Method::PushNotificationConfigDelete, "id", "pushNotificationConfigId"),
            (Method::PushNotificationConfigList, "taskId", "id"),
            (Method::TasksGet, "historyLength", "historyLength"),
        ];
        for (method, v1, v03) in cases {
            let error = in_v03_terms(Error::invalid_param(v1, "bad"), method);
            assert_eq!(error.field_violations()[0].field, v03, "{method} {v1}");
            assert_eq!(error.field_violations()[0].description, "bad");
        }
        let other = in_v03_terms(Error::TaskNotFound { task_id: "t".into() }, Method::TasksGet);
        assert!(matches!(other, Error::TaskNotFound { .. }));
    }
}
