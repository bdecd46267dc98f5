//! The one mapping between [`a2a_core::Error`] and gRPC [`Status`], both directions (spec 5.4,
//! 10.6).
//!
//! Server side, [`to_status`] picks the status code from the 1.0.1 table of spec 5.4 in a single
//! exhaustive `match`, so a new error variant fails to compile here, and attaches the details:
//! a `google.rpc.ErrorInfo` (reason, domain `a2a-protocol.org`, metadata) for every A2A error and a
//! `google.rpc.BadRequest` for invalid parameters.
//!
//! Client side, [`from_status`] decides the error from the ErrorInfo `reason`, never from the code
//! alone: peers implementing spec 1.0.0 still send other codes for the same errors
//! (`UNIMPLEMENTED` for UnsupportedOperation, for instance). Only a status without an A2A
//! ErrorInfo falls back to its code.
//!
//! These are free functions rather than `From` impls because both types are foreign to this
//! crate (the orphan rule forbids `impl From<a2a_core::Error> for tonic::Status` here).

use std::collections::{BTreeMap, HashMap};
use std::error::Error as _;

use a2a_core::error::{FieldViolation, ERROR_DOMAIN};
use a2a_core::Error;
use tonic::{Code, Status};
use tonic_types::{ErrorDetail, ErrorDetails, StatusExt};

/// The gRPC status a server answers `error` with: the code of spec 5.4, a message for people,
/// and the details of spec 10.6 (ErrorInfo for A2A errors, BadRequest for invalid parameters).
pub fn to_status(error: &Error) -> Status {
    let (code, message) = code_and_message(error);
    let mut details = ErrorDetails::new();
    if let Some(info) = error.error_info() {
        details.set_error_info(
            info.reason,
            info.domain,
            info.metadata.into_iter().collect::<HashMap<_, _>>(),
        );
    }
    if let Error::InvalidParams { violations } = error {
        // Sent even when empty: the BadRequest is what tells a client these were invalid
        // *parameters* rather than another INVALID_ARGUMENT error.
        details.set_bad_request(
            violations
                .iter()
                .map(|v| tonic_types::FieldViolation::new(&v.field, &v.description))
                .collect::<Vec<_>>(),
        );
    }
    if let Error::ResourceExhausted { retry_after_secs: Some(secs), .. } = error {
        details.set_retry_info(Some(std::time::Duration::from_secs(*secs)));
    }
    if details.error_info().is_none() && details.bad_request().is_none() {
        return Status::new(code, message);
    }
    Status::with_error_details(code, message, details)
}

/// Spec 5.4 (the 1.0.1 table) plus the standard errors, and the status message of each.
///
/// Errors whose kind is already told by the code (authentication, permission, internal,
/// transport) send their bare reason as the message, so that [`from_status`] gives back the same
/// reason instead of a doubled "internal error: internal error: ..." prefix.
fn code_and_message(error: &Error) -> (Code, String) {
    match error {
        Error::TaskNotFound { .. } => (Code::NotFound, error.to_string()),
        Error::TaskNotCancelable { .. } => (Code::FailedPrecondition, error.to_string()),
        Error::PushNotificationNotSupported => (Code::FailedPrecondition, error.to_string()),
        Error::UnsupportedOperation { .. } => (Code::FailedPrecondition, error.to_string()),
        Error::ContentTypeNotSupported { .. } => (Code::InvalidArgument, error.to_string()),
        Error::InvalidAgentResponse { .. } => (Code::Internal, error.to_string()),
        Error::ExtendedAgentCardNotConfigured => (Code::FailedPrecondition, error.to_string()),
        Error::ExtensionSupportRequired { .. } => (Code::FailedPrecondition, error.to_string()),
        Error::VersionNotSupported { .. } => (Code::FailedPrecondition, error.to_string()),
        Error::ParseError { .. } => (Code::InvalidArgument, error.to_string()),
        Error::InvalidRequest { .. } => (Code::InvalidArgument, error.to_string()),
        Error::MethodNotFound { .. } => (Code::Unimplemented, error.to_string()),
        Error::InvalidParams { .. } => (Code::InvalidArgument, error.to_string()),
        Error::Unauthenticated { reason } => (Code::Unauthenticated, reason.clone()),
        Error::PermissionDenied { reason } => (Code::PermissionDenied, reason.clone()),
        Error::ResourceExhausted { reason, .. } => (Code::ResourceExhausted, reason.clone()),
        Error::Internal { reason } => (Code::Internal, reason.clone()),
        // Client-side only; should a server ever see one (e.g. a proxying agent whose upstream
        // call failed), the agent it depends on is unavailable.
        Error::Transport { reason } => (Code::Unavailable, reason.clone()),
    }
}

/// The error a client reports for `status`.
///
/// In order: an ErrorInfo of domain `a2a-protocol.org` with a known reason gives that A2A error;
/// a status tonic made up locally from a connection or HTTP/2 failure gives
/// [`Error::Transport`]; otherwise the code decides:
///
/// | Code | Error |
/// | :--- | :---- |
/// | `NOT_FOUND` | [`Error::TaskNotFound`], task id empty (unknown) |
/// | `INVALID_ARGUMENT` | [`Error::InvalidParams`]: the BadRequest's violations, else the message as a violation of the whole request (empty field) |
/// | `UNIMPLEMENTED` | [`Error::UnsupportedOperation`] (spec 1.0.0's code for it) |
/// | `UNAUTHENTICATED`, `PERMISSION_DENIED` | [`Error::Unauthenticated`], [`Error::PermissionDenied`] |
/// | `RESOURCE_EXHAUSTED` | [`Error::ResourceExhausted`] (a limit of the server: a rate limit, open streams; tonic's own for a message over the size limit is `OUT_OF_RANGE`) |
/// | `UNAVAILABLE`, `DEADLINE_EXCEEDED`, `CANCELLED` | [`Error::Transport`] |
/// | any other (incl. `FAILED_PRECONDITION`, shared by six A2A errors) | [`Error::Internal`] |
///
/// The reason or description is the status message throughout.
pub fn from_status(status: &Status) -> Error {
    let details = status.get_error_details_vec();
    for detail in &details {
        if let ErrorDetail::ErrorInfo(info) = detail {
            if info.domain == ERROR_DOMAIN {
                let metadata = camel_case_keys(&info.metadata);
                if let Some(error) = Error::from_error_info(&info.reason, &metadata, status.message()) {
                    return error;
                }
            }
        }
    }
    // tonic attaches the underlying error as `source` only to statuses it builds itself from an
    // I/O, HTTP/2 or timeout failure; a status received from the peer never has one.
    if status.source().is_some() {
        return Error::Transport { reason: describe_with_sources(status) };
    }
    let bad_request = details.into_iter().find_map(|detail| match detail {
        ErrorDetail::BadRequest(bad_request) => Some(bad_request),
        _ => None,
    });
    from_code(status, bad_request)
}

/// The fallback for a status without an A2A ErrorInfo: both the 1.0.1 and the 1.0.0 tables of
/// spec 5.4 are read (docs/interop-notes.md), and codes that several errors share become the most general
/// one. Exhaustive over [`Code`], so the choice for every code is visible here.
fn from_code(status: &Status, bad_request: Option<tonic_types::BadRequest>) -> Error {
    let message = status.message().to_owned();
    match status.code() {
        // Which task (or push config) is unknown cannot be told without the ErrorInfo metadata.
        Code::NotFound => Error::TaskNotFound { task_id: String::new() },
        Code::InvalidArgument => Error::InvalidParams {
            violations: match bad_request {
                Some(bad_request) => bad_request
                    .field_violations
                    .into_iter()
                    .map(|v| FieldViolation { field: v.field, description: v.description })
                    .collect(),
                // No field is named: keep the peer's explanation as a violation of the request
                // as a whole (empty field path) rather than dropping it.
                None if message.is_empty() => Vec::new(),
                None => Error::invalid_params_unattributed(message).field_violations().to_vec(),
            },
        },
        // 1.0.0 sent UNIMPLEMENTED for UnsupportedOperation (and some peers for
        // PushNotificationNotSupported); a server without the method at all answers it too.
        Code::Unimplemented => Error::UnsupportedOperation {
            reason: if message.is_empty() {
                "the agent does not implement this method".into()
            } else {
                message
            },
        },
        Code::Unauthenticated => Error::Unauthenticated { reason: message },
        Code::PermissionDenied => Error::PermissionDenied { reason: message },
        Code::ResourceExhausted => Error::ResourceExhausted { reason: message, retry_after_secs: None },
        // The call did not complete: the peer (or a proxy in front of it) is unreachable or the
        // deadline passed.
        Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => Error::Transport { reason: message },
        // FAILED_PRECONDITION is shared by six A2A errors and cannot be narrowed down without an
        // ErrorInfo; the rest are server faults or codes A2A never uses.
        Code::Ok
        | Code::Unknown
        | Code::AlreadyExists
        | Code::FailedPrecondition
        | Code::Aborted
        | Code::OutOfRange
        | Code::Internal
        | Code::DataLoss => Error::Internal {
            reason: if message.is_empty() {
                format!("gRPC status {:?} without a message", status.code())
            } else {
                message
            },
        },
    }
}

/// ErrorInfo metadata with camelCase keys as core reads them. Spec 10.6's example spells the key
/// `task_id`; accept such snake_case keys from peers by adding their camelCase form.
fn camel_case_keys(metadata: &HashMap<String, String>) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = metadata.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    for (key, value) in metadata {
        if key.contains('_') {
            let mut camel = String::with_capacity(key.len());
            let mut upper = false;
            for c in key.chars() {
                match c {
                    '_' => upper = !camel.is_empty(),
                    c if upper => {
                        camel.extend(c.to_uppercase());
                        upper = false;
                    }
                    c => camel.push(c),
                }
            }
            out.entry(camel).or_insert_with(|| value.clone());
        }
    }
    out
}

/// The status message followed by its chain of sources, e.g.
/// `tcp connect error: Connection refused (os error 111)`.
fn describe_with_sources(status: &Status) -> String {
    let mut text = status.message().to_owned();
    let mut source = status.source();
    while let Some(error) = source {
        let part = error.to_string();
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        source = error.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_metadata_keys_are_read_as_camel_case() {
        let metadata = HashMap::from([
            ("task_id".to_owned(), "t1".to_owned()),
            ("supported_versions".to_owned(), "1.0".to_owned()),
            ("mediaType".to_owned(), "a/b".to_owned()),
        ]);
        let keys = camel_case_keys(&metadata);
        assert_eq!(keys.get("taskId").map(String::as_str), Some("t1"));
        assert_eq!(keys.get("supportedVersions").map(String::as_str), Some("1.0"));
        assert_eq!(keys.get("mediaType").map(String::as_str), Some("a/b"));
    }

    #[test]
    fn resource_exhausted_carries_retry_info_and_comes_back_with_its_hint() {
        let error = Error::ResourceExhausted { reason: "rate limit".into(), retry_after_secs: Some(3) };
        let status = to_status(&error);
        assert_eq!(status.code(), Code::ResourceExhausted);
        let retry = status.get_details_retry_info().expect("a RetryInfo");
        assert_eq!(retry.retry_delay, Some(std::time::Duration::from_secs(3)));
        assert!(matches!(
            from_status(&status),
            Error::ResourceExhausted { retry_after_secs: Some(3), reason } if reason == "rate limit"
        ));
    }

    #[test]
    fn camel_case_key_wins_over_its_snake_case_twin() {
        let metadata = HashMap::from([
            ("task_id".to_owned(), "snake".to_owned()),
            ("taskId".to_owned(), "camel".to_owned()),
        ]);
        assert_eq!(camel_case_keys(&metadata).get("taskId").map(String::as_str), Some("camel"));
    }

    #[test]
    fn spec_10_6_example_error_is_task_not_found_with_its_id() {
        // The example of spec 10.6, metadata keys as written there.
        let details = ErrorDetails::with_error_info(
            "TASK_NOT_FOUND",
            "a2a-protocol.org",
            HashMap::from([
                ("task_id".to_owned(), "task-123".to_owned()),
                ("timestamp".to_owned(), "2025-11-09T10:30:00Z".to_owned()),
            ]),
        );
        let status = Status::with_error_details(Code::NotFound, "Task with ID 'task-123' not found", details);
        match from_status(&status) {
            Error::TaskNotFound { task_id } => assert_eq!(task_id, "task-123"),
            other => panic!("expected TaskNotFound, got {other:?}"),
        }
    }

    #[test]
    fn error_info_of_another_domain_falls_back_to_the_code() {
        let details = ErrorDetails::with_error_info("TASK_NOT_FOUND", "example.com", HashMap::new());
        let status = Status::with_error_details(Code::FailedPrecondition, "nope", details);
        assert!(matches!(from_status(&status), Error::Internal { reason } if reason == "nope"));
    }

    #[test]
    fn unknown_a2a_reason_falls_back_to_the_code() {
        let details = ErrorDetails::with_error_info("SOMETHING_NEW", ERROR_DOMAIN, HashMap::new());
        let status = Status::with_error_details(Code::NotFound, "gone", details);
        assert!(matches!(from_status(&status), Error::TaskNotFound { task_id } if task_id.is_empty()));
    }

    #[test]
    fn undecodable_details_fall_back_to_the_code() {
        let status = Status::with_details(Code::PermissionDenied, "no", bytes_of(&[0xff, 0xff, 0xff]));
        assert!(matches!(from_status(&status), Error::PermissionDenied { reason } if reason == "no"));
    }

    #[test]
    fn invalid_argument_without_bad_request_keeps_the_message_as_a_violation() {
        let error = from_status(&Status::invalid_argument("Invalid request parameters"));
        assert_eq!(
            error.field_violations(),
            [FieldViolation { field: String::new(), description: "Invalid request parameters".into() }]
        );
    }

    #[test]
    fn invalid_params_without_violations_still_carry_a_bad_request() {
        let status = to_status(&Error::InvalidParams { violations: Vec::new() });
        assert_eq!(status.code(), Code::InvalidArgument);
        assert!(status.get_error_details().bad_request().is_some());
        assert!(matches!(from_status(&status), Error::InvalidParams { violations } if violations.is_empty()));
    }

    #[test]
    fn statuses_tonic_builds_from_io_failures_are_transport_errors() {
        let io = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "connection refused");
        let status = Status::from_error(Box::new(io));
        match from_status(&status) {
            Error::Transport { reason } => assert!(reason.contains("connection refused"), "{reason}"),
            other => panic!("expected Transport, got {other:?}"),
        }
    }

    fn bytes_of(data: &[u8]) -> tonic::codegen::Bytes {
        tonic::codegen::Bytes::copy_from_slice(data)
    }
}
