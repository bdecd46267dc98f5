//! [`Error`]: one variant per A2A error of spec 3.3.2, plus the standard request errors.
//!
//! Core knows each error's protocol-level identity (its `google.rpc.ErrorInfo` reason, spec 10.6 /
//! 11.6) and its details; it does not know JSON-RPC codes, HTTP statuses or gRPC codes: each binding
//! maps [`Error`] with one exhaustive `match` (spec 5.4), so a new variant fails to compile there.
//! The JSON form of the details (spec 9.5, 11.6: an array of `@type` objects) is shared by the two
//! JSON bindings and lives here ([`Error::to_json_details`], [`Error::from_json_details`]).

use std::collections::BTreeMap;

use a2a_proto::v1::TaskState;
use serde_json::{json, Map, Value};

/// `Result` with [`Error`] as the default error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The `google.rpc.ErrorInfo.domain` of every A2A error (spec 10.6).
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";
/// The ProtoJSON `@type` of `google.rpc.ErrorInfo`.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// The ProtoJSON `@type` of `google.rpc.BadRequest`.
pub const BAD_REQUEST_TYPE: &str = "type.googleapis.com/google.rpc.BadRequest";

/// An error followed by its chain of sources, e.g. `error sending request: connection refused`:
/// what the clients put in [`Error::Transport`], so that the root cause is not lost.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// Every error an A2A operation can end with, on the server and on the client side.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// `TaskNotFoundError`: the task (or the push config) does not exist or is not accessible.
    #[error("task {task_id} not found")]
    TaskNotFound {
        /// The id asked for.
        task_id: String,
    },
    /// `TaskNotCancelableError`: the task is in a state that cannot be canceled.
    #[error("task {task_id} cannot be canceled: it is {}", state.as_str_name())]
    TaskNotCancelable {
        /// The task.
        task_id: String,
        /// Its state when cancellation was attempted.
        state: TaskState,
    },
    /// `PushNotificationNotSupportedError` (spec 3.3.4).
    #[error("push notifications are not supported by this agent")]
    PushNotificationNotSupported,
    /// `UnsupportedOperationError`: the operation, or an aspect of it, is not supported.
    #[error("unsupported operation: {reason}")]
    UnsupportedOperation {
        /// What is unsupported, for a person to read.
        reason: String,
    },
    /// `ContentTypeNotSupportedError`: a media type in the request is not supported.
    #[error("content type {media_type} is not supported")]
    ContentTypeNotSupported {
        /// The offending media type.
        media_type: String,
    },
    /// `InvalidAgentResponseError`: an agent's reply does not conform to the specification.
    #[error("invalid agent response: {reason}")]
    InvalidAgentResponse {
        /// What is wrong with it.
        reason: String,
    },
    /// `ExtendedAgentCardNotConfiguredError` (spec 3.1.11).
    #[error("the agent declares an extended agent card but has none configured")]
    ExtendedAgentCardNotConfigured,
    /// `ExtensionSupportRequiredError`: the request did not declare required extensions.
    #[error("the agent requires extensions the request did not declare: {}", uris.join(", "))]
    ExtensionSupportRequired {
        /// The required extension URIs missing from `A2A-Extensions`.
        uris: Vec<String>,
    },
    /// `VersionNotSupportedError` (spec 3.6.2).
    #[error("{}; supported: {} (send the A2A-Version header)", describe_version(version), supported.join(", "))]
    VersionNotSupported {
        /// The version asked for (empty means 0.3).
        version: String,
        /// The versions this endpoint supports.
        supported: Vec<String>,
    },
    /// The payload is not valid JSON (JSON-RPC `-32700`).
    #[error("invalid JSON payload: {reason}")]
    ParseError {
        /// The parser's description.
        reason: String,
    },
    /// The request is not a valid request object (JSON-RPC `-32600`).
    #[error("invalid request: {reason}")]
    InvalidRequest {
        /// What is wrong with it.
        reason: String,
    },
    /// The method or route does not exist (JSON-RPC `-32601`).
    #[error("method not found: {method}")]
    MethodNotFound {
        /// The method asked for.
        method: String,
    },
    /// The parameters are invalid (spec 5.7), naming each offending field.
    #[error("invalid parameters: {}", describe(violations))]
    InvalidParams {
        /// One entry per invalid field, sent as `google.rpc.BadRequest.fieldViolations`.
        violations: Vec<FieldViolation>,
    },
    /// Missing or invalid credentials (spec 7.4).
    #[error("unauthenticated: {reason}")]
    Unauthenticated {
        /// Why, without leaking secrets.
        reason: String,
    },
    /// The caller may not perform this operation (spec 7.5).
    #[error("permission denied: {reason}")]
    PermissionDenied {
        /// Why, without naming resources the caller cannot see.
        reason: String,
    },
    /// A limit of the server was reached (too many requests from this caller, too many open
    /// streams): the request was valid and may succeed later. Not one of spec 3.3.2's A2A
    /// errors; its "system errors" ask for a retry hint, given here in seconds when known.
    #[error("resource exhausted: {reason}")]
    ResourceExhausted {
        /// Which limit, for a person to read.
        reason: String,
        /// When to try again, if the server knows (HTTP `Retry-After`, gRPC `RetryInfo`).
        retry_after_secs: Option<u64>,
    },
    /// A fault on the agent's side.
    #[error("internal error: {reason}")]
    Internal {
        /// What failed.
        reason: String,
    },
    /// Client side: the call did not complete (connection refused, timeout, a reply that is not an
    /// A2A reply). Never sent by a server.
    #[error("transport error: {reason}")]
    Transport {
        /// What failed.
        reason: String,
    },
}

/// One invalid field of a request (`google.rpc.BadRequest.FieldViolation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldViolation {
    /// The field's path in camelCase, e.g. `message.parts`.
    pub field: String,
    /// What is wrong with it and what would be valid.
    pub description: String,
}

fn describe_version(version: &str) -> String {
    if version.is_empty() {
        // spec 3.6.2: an absent or empty A2A-Version means 0.3.
        "a request without A2A-Version is A2A 0.3, which this endpoint does not serve".into()
    } else {
        format!("A2A version {version:?} is not supported")
    }
}

/// `field: description` per violation; a violation of no particular field is its description
/// alone (never `: description`).
fn describe(violations: &[FieldViolation]) -> String {
    violations
        .iter()
        .map(|v| {
            if v.field.is_empty() {
                v.description.clone()
            } else {
                format!("{}: {}", v.field, v.description)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The `google.rpc.ErrorInfo` of an A2A error (spec 10.6, 11.6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    /// UPPER_SNAKE_CASE error name without the `Error` suffix, e.g. `TASK_NOT_FOUND`.
    pub reason: String,
    /// Always [`ERROR_DOMAIN`] for A2A errors.
    pub domain: String,
    /// Context such as `taskId`.
    pub metadata: BTreeMap<String, String>,
}

/// What a client appends to an `Unauthenticated` reason for each `WWW-Authenticate` value of the
/// answer (RFC 9110 11.6.1): ` [WWW-Authenticate: <value>]`. [`Error::with_challenges`] writes it,
/// [`Error::challenges`] reads it back: one format, whichever binding saw the answer.
const CHALLENGE_MARKER: &str = " [WWW-Authenticate: ";

/// The `WWW-Authenticate` values kept in an `Unauthenticated` error's `reason`
/// ([`Error::with_challenges`]), in order.
pub fn challenges_in(reason: &str) -> Vec<&str> {
    reason.split(CHALLENGE_MARKER).skip(1).map(|part| part.strip_suffix(']').unwrap_or(part)).collect()
}

impl Error {
    /// This error with `challenges` (the `WWW-Authenticate` values of the HTTP answer) kept in
    /// its reason when it is `Unauthenticated`, so a caller can see how to authenticate
    /// ([`challenges`](Self::challenges)); any other error as it is.
    #[must_use]
    pub fn with_challenges(self, challenges: &[String]) -> Self {
        match self {
            Error::Unauthenticated { mut reason } if !challenges.is_empty() => {
                for challenge in challenges {
                    reason.push_str(CHALLENGE_MARKER);
                    reason.push_str(challenge);
                    reason.push(']');
                }
                Error::Unauthenticated { reason }
            }
            other => other,
        }
    }

    /// The `WWW-Authenticate` values [`with_challenges`](Self::with_challenges) kept in an
    /// `Unauthenticated` error, in order; empty for any other error.
    pub fn challenges(&self) -> Vec<&str> {
        let Error::Unauthenticated { reason } = self else { return Vec::new() };
        challenges_in(reason)
    }

    /// Invalid parameters with a single violation.
    pub fn invalid_param(field: impl Into<String>, description: impl Into<String>) -> Self {
        Error::InvalidParams {
            violations: vec![FieldViolation { field: field.into(), description: description.into() }],
        }
    }

    /// Invalid parameters that name no field (a peer's validation error without a BadRequest):
    /// one violation of the request as a whole, with an empty field path. Every client uses this
    /// so that the same peer error reads the same on every binding.
    pub fn invalid_params_unattributed(description: impl Into<String>) -> Self {
        Self::invalid_param("", description)
    }

    /// `message` without the text `Display` puts before the payload of `template` (an error of
    /// the same variant with an empty payload), e.g. `"internal error: "`. Clients that rebuild
    /// an error from a wire code and a message use it, so that a peer sending `Display` of its
    /// error (as our servers do) does not get the prefix written twice.
    pub fn strip_display_prefix<'m>(message: &'m str, template: &Error) -> &'m str {
        message.strip_prefix(template.to_string().as_str()).unwrap_or(message)
    }

    /// An internal error from anything displayable.
    pub fn internal(reason: impl std::fmt::Display) -> Self {
        Error::Internal { reason: reason.to_string() }
    }

    /// An unsupported operation with a reason.
    pub fn unsupported(reason: impl Into<String>) -> Self {
        Error::UnsupportedOperation { reason: reason.into() }
    }

    /// The JSON-RPC `error.code` of this error (spec 5.4, 9.5): the A2A errors' -32001..-32009,
    /// JSON-RPC's own -32700/-32600/-32601/-32602/-32603, and this project's choice for what the
    /// spec leaves open (-32010 unauthenticated, -32011 permission denied, -32012 resource
    /// exhausted). A2A 0.3 numbers its errors the same way.
    pub fn json_rpc_code(&self) -> i64 {
        match self {
            Error::TaskNotFound { .. } => -32001,
            Error::TaskNotCancelable { .. } => -32002,
            Error::PushNotificationNotSupported => -32003,
            Error::UnsupportedOperation { .. } => -32004,
            Error::ContentTypeNotSupported { .. } => -32005,
            Error::InvalidAgentResponse { .. } => -32006,
            Error::ExtendedAgentCardNotConfigured => -32007,
            Error::ExtensionSupportRequired { .. } => -32008,
            Error::VersionNotSupported { .. } => -32009,
            Error::Unauthenticated { .. } => -32010,
            Error::PermissionDenied { .. } => -32011,
            Error::ResourceExhausted { .. } => -32012,
            Error::ParseError { .. } => -32700,
            Error::InvalidRequest { .. } => -32600,
            Error::MethodNotFound { .. } => -32601,
            Error::InvalidParams { .. } => -32602,
            // Transport is client-side only; a server that meets one (e.g. while calling another
            // agent) failed internally.
            Error::Internal { .. } | Error::Transport { .. } => -32603,
        }
    }

    /// The error a JSON-RPC error `code` names when a peer sent no details to say it exactly
    /// (the reverse of [`json_rpc_code`](Self::json_rpc_code)), with `message` as its text:
    /// without the prefix `Display` adds when the peer sent `Display` of its error, as our
    /// servers do ([`strip_display_prefix`](Self::strip_display_prefix)). Also reads a2a-go's
    /// -31401 / -31403 for unauthenticated / permission denied. `None` for a code of no error.
    pub fn from_json_rpc_code(code: i64, message: &str) -> Option<Error> {
        let text = |make: fn(String) -> Error| {
            make(Error::strip_display_prefix(message, &make(String::new())).to_owned())
        };
        Some(match code {
            -32001 => Error::TaskNotFound { task_id: String::new() },
            -32002 => Error::TaskNotCancelable { task_id: String::new(), state: Default::default() },
            -32003 => Error::PushNotificationNotSupported,
            -32004 => text(|reason| Error::UnsupportedOperation { reason }),
            -32005 => Error::ContentTypeNotSupported { media_type: String::new() },
            -32006 => text(|reason| Error::InvalidAgentResponse { reason }),
            -32007 => Error::ExtendedAgentCardNotConfigured,
            -32008 => Error::ExtensionSupportRequired { uris: Vec::new() },
            -32009 => Error::VersionNotSupported { version: String::new(), supported: Vec::new() },
            -32010 | -31401 => text(|reason| Error::Unauthenticated { reason }),
            -32011 | -31403 => text(|reason| Error::PermissionDenied { reason }),
            -32012 => text(|reason| Error::ResourceExhausted { reason, retry_after_secs: None }),
            -32700 => text(|reason| Error::ParseError { reason }),
            -32600 => text(|reason| Error::InvalidRequest { reason }),
            -32601 => text(|method| Error::MethodNotFound { method }),
            // Without a BadRequest there is no field to name; the message is the description.
            -32602 => text(Error::invalid_params_unattributed),
            -32603 => text(|reason| Error::Internal { reason }),
            _ => return None,
        })
    }

    /// Every error's name ([`name`](Self::name)), indexed by [`name_index`](Self::name_index):
    /// the nine A2A-specific errors first, by their ErrorInfo reason (spec 3.3.2's table: the
    /// spec name in upper snake case without `_ERROR`), then the standard request errors.
    pub const NAMES: [&'static str; 18] = [
        "TASK_NOT_FOUND",
        "TASK_NOT_CANCELABLE",
        "PUSH_NOTIFICATION_NOT_SUPPORTED",
        "UNSUPPORTED_OPERATION",
        "CONTENT_TYPE_NOT_SUPPORTED",
        "INVALID_AGENT_RESPONSE",
        "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
        "EXTENSION_SUPPORT_REQUIRED",
        "VERSION_NOT_SUPPORTED",
        "PARSE_ERROR",
        "INVALID_REQUEST",
        "METHOD_NOT_FOUND",
        "INVALID_PARAMS",
        "UNAUTHENTICATED",
        "PERMISSION_DENIED",
        "RESOURCE_EXHAUSTED",
        "INTERNAL_ERROR",
        "TRANSPORT_ERROR",
    ];

    /// How many of [`NAMES`](Self::NAMES) are A2A-specific errors (the rest are standard).
    const A2A_ERRORS: usize = 9;

    /// The index of this error's name in [`NAMES`](Self::NAMES): one exhaustive match, so a new
    /// variant does not compile until it has a name (a metric can keep one counter per name).
    pub fn name_index(&self) -> usize {
        match self {
            Error::TaskNotFound { .. } => 0,
            Error::TaskNotCancelable { .. } => 1,
            Error::PushNotificationNotSupported => 2,
            Error::UnsupportedOperation { .. } => 3,
            Error::ContentTypeNotSupported { .. } => 4,
            Error::InvalidAgentResponse { .. } => 5,
            Error::ExtendedAgentCardNotConfigured => 6,
            Error::ExtensionSupportRequired { .. } => 7,
            Error::VersionNotSupported { .. } => 8,
            Error::ParseError { .. } => 9,
            Error::InvalidRequest { .. } => 10,
            Error::MethodNotFound { .. } => 11,
            Error::InvalidParams { .. } => 12,
            Error::Unauthenticated { .. } => 13,
            Error::PermissionDenied { .. } => 14,
            Error::ResourceExhausted { .. } => 15,
            Error::Internal { .. } => 16,
            Error::Transport { .. } => 17,
        }
    }

    /// This error's name, for logs and metrics: the ErrorInfo reason of an A2A-specific error,
    /// else the standard error's (`INVALID_PARAMS`, `INTERNAL_ERROR`, ...; `PARSE_ERROR` and
    /// `TRANSPORT_ERROR` too, which the bindings' ErrorInfo does not name).
    pub fn name(&self) -> &'static str {
        Self::NAMES[self.name_index()]
    }

    /// The ErrorInfo reason of A2A-specific errors (spec 3.3.2's table), `None` for the standard
    /// request errors (parse, invalid request/params, method not found, auth, internal, transport).
    pub fn reason(&self) -> Option<&'static str> {
        let index = self.name_index();
        (index < Self::A2A_ERRORS).then_some(Self::NAMES[index])
    }

    /// The ErrorInfo every binding attaches (spec 9.5, 10.6, 11.6): for A2A-specific errors
    /// the spec's reason, with the ids, state or versions the error concerns as metadata
    /// (camelCase keys); for the standard errors the reasons the official SDKs use
    /// (`INVALID_PARAMS`, `INVALID_REQUEST` (also for parse errors), `METHOD_NOT_FOUND`,
    /// `INTERNAL_ERROR`, `UNAUTHENTICATED`, `PERMISSION_DENIED`), since their clients classify
    /// errors by ErrorInfo alone. `None` only for [`Error::Transport`], which no server sends.
    pub fn error_info(&self) -> Option<ErrorInfo> {
        let reason = match self.reason() {
            Some(reason) => reason,
            // The official SDKs send parse errors as invalid requests; no server sends a
            // transport failure.
            None => match self {
                Error::ParseError { .. } => "INVALID_REQUEST",
                Error::Transport { .. } => return None,
                standard => standard.name(),
            },
        };
        let mut metadata = BTreeMap::new();
        match self {
            Error::TaskNotFound { task_id } => {
                metadata.insert("taskId".into(), task_id.clone());
            }
            Error::TaskNotCancelable { task_id, state } => {
                metadata.insert("taskId".into(), task_id.clone());
                metadata.insert("state".into(), state.as_str_name().into());
            }
            Error::UnsupportedOperation { reason } | Error::InvalidAgentResponse { reason } => {
                metadata.insert("reason".into(), reason.clone());
            }
            Error::ContentTypeNotSupported { media_type } => {
                metadata.insert("mediaType".into(), media_type.clone());
            }
            Error::ExtensionSupportRequired { uris } => {
                metadata.insert("extensions".into(), uris.join(","));
            }
            Error::VersionNotSupported { version, supported } => {
                metadata.insert("version".into(), version.clone());
                metadata.insert("supportedVersions".into(), supported.join(","));
            }
            Error::ResourceExhausted { reason, retry_after_secs } => {
                metadata.insert("reason".into(), reason.clone());
                if let Some(secs) = retry_after_secs {
                    metadata.insert("retryAfterSeconds".into(), secs.to_string());
                }
            }
            _ => {}
        }
        Some(ErrorInfo { reason: reason.into(), domain: ERROR_DOMAIN.into(), metadata })
    }

    /// The field violations of [`Error::InvalidParams`] (empty for every other error).
    pub fn field_violations(&self) -> &[FieldViolation] {
        match self {
            Error::InvalidParams { violations } => violations,
            _ => &[],
        }
    }

    /// Rebuilds an error from its ErrorInfo `reason` and `metadata` (client side): every
    /// A2A-specific reason, and the standard reasons of [`error_info`](Self::error_info) except
    /// `INVALID_PARAMS` (whose violations travel in the BadRequest, which callers read instead).
    /// `None` for any other reason.
    pub fn from_error_info(reason: &str, metadata: &BTreeMap<String, String>, message: &str) -> Option<Self> {
        let get = |key: &str| metadata.get(key).cloned().unwrap_or_default();
        let list = |key: &str| {
            metadata
                .get(key)
                .map(|v| v.split(',').filter(|s| !s.is_empty()).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let or_message = |key: &str| metadata.get(key).cloned().unwrap_or_else(|| message.to_owned());
        Some(match reason {
            "TASK_NOT_FOUND" => Error::TaskNotFound { task_id: get("taskId") },
            "TASK_NOT_CANCELABLE" => Error::TaskNotCancelable {
                task_id: get("taskId"),
                state: metadata.get("state").and_then(|s| TaskState::from_str_name(s)).unwrap_or_default(),
            },
            "PUSH_NOTIFICATION_NOT_SUPPORTED" => Error::PushNotificationNotSupported,
            "UNSUPPORTED_OPERATION" => Error::UnsupportedOperation { reason: or_message("reason") },
            "CONTENT_TYPE_NOT_SUPPORTED" => Error::ContentTypeNotSupported { media_type: get("mediaType") },
            "INVALID_AGENT_RESPONSE" => Error::InvalidAgentResponse { reason: or_message("reason") },
            "EXTENDED_AGENT_CARD_NOT_CONFIGURED" => Error::ExtendedAgentCardNotConfigured,
            "EXTENSION_SUPPORT_REQUIRED" => Error::ExtensionSupportRequired { uris: list("extensions") },
            "VERSION_NOT_SUPPORTED" => {
                Error::VersionNotSupported { version: get("version"), supported: list("supportedVersions") }
            }
            "RESOURCE_EXHAUSTED" => Error::ResourceExhausted {
                reason: or_message("reason"),
                retry_after_secs: metadata.get("retryAfterSeconds").and_then(|s| s.parse().ok()),
            },
            _ => return None,
        })
    }

    /// The error's details as ProtoJSON `Any` objects (spec 9.5 `error.data`, 11.6
    /// `error.details`): an ErrorInfo for A2A errors, a BadRequest for invalid parameters.
    pub fn to_json_details(&self) -> Vec<Value> {
        let mut details = Vec::new();
        // The BadRequest first: spec 9.5's example shows it alone at index 0.
        if let Error::InvalidParams { violations } = self {
            let violations: Vec<Value> =
                violations.iter().map(|v| json!({"field": v.field, "description": v.description})).collect();
            details.push(json!({"@type": BAD_REQUEST_TYPE, "fieldViolations": violations}));
        }
        if let Some(info) = self.error_info() {
            details.push(json!({
                "@type": ERROR_INFO_TYPE,
                "reason": info.reason,
                "domain": info.domain,
                "metadata": info.metadata,
            }));
        }
        details
    }

    /// [`from_json_details`](Self::from_json_details) of a JSON-RPC `error.data` member (or a
    /// 0.3 error object's `data`): spec 9.5 makes it an array of `@type` objects; a single object
    /// (as some peers send) is read as a one-element array, anything else as no details.
    pub fn from_json_error_data(message: &str, data: Option<&Value>) -> Option<Self> {
        let details: &[Value] = match data {
            Some(Value::Array(items)) => items,
            Some(object @ Value::Object(_)) => std::slice::from_ref(object),
            _ => &[],
        };
        Self::from_json_details(message, details)
    }

    /// Client side: the error described by JSON details, if they identify one: an A2A ErrorInfo
    /// (domain [`ERROR_DOMAIN`]), or a BadRequest (invalid params). `None` means the caller falls
    /// back to the binding's numeric code.
    pub fn from_json_details(message: &str, details: &[Value]) -> Option<Self> {
        for detail in details {
            let Some(object) = detail.as_object() else { continue };
            if object.get("@type").and_then(Value::as_str) == Some(ERROR_INFO_TYPE)
                && object.get("domain").and_then(Value::as_str) == Some(ERROR_DOMAIN)
            {
                let reason = object.get("reason").and_then(Value::as_str).unwrap_or_default();
                let metadata = string_map(object.get("metadata"));
                if let Some(error) = Error::from_error_info(reason, &metadata, message) {
                    return Some(error);
                }
            }
        }
        details.iter().find_map(|detail| {
            let object = detail.as_object()?;
            (object.get("@type").and_then(Value::as_str) == Some(BAD_REQUEST_TYPE)).then(|| {
                let violations = object
                    .get("fieldViolations")
                    .and_then(Value::as_array)
                    .map(|items| {
                        items
                            .iter()
                            .map(|v| FieldViolation {
                                field: v.get("field").and_then(Value::as_str).unwrap_or_default().into(),
                                description: v
                                    .get("description")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default()
                                    .into(),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Error::InvalidParams { violations }
            })
        })
    }
}

fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    let empty = Map::new();
    let object = value.and_then(Value::as_object).unwrap_or(&empty);
    object
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().map(str::to_owned).unwrap_or_else(|| v.to_string())))
        .collect()
}

/// What tests that walk the error model share (feature `testing`).
#[cfg(any(test, feature = "testing"))]
pub mod testing {
    use super::Error;
    use a2a_proto::v1::TaskState;

    /// One error of each kind, in the order of [`Error::NAMES`]: the nine A2A errors, then the
    /// standard ones (`one_of_each()[i].name() == Error::NAMES[i]`).
    pub fn one_of_each() -> Vec<Error> {
        vec![
            Error::TaskNotFound { task_id: "t1".into() },
            Error::TaskNotCancelable { task_id: "t1".into(), state: TaskState::Completed },
            Error::PushNotificationNotSupported,
            Error::unsupported("streaming is not supported"),
            Error::ContentTypeNotSupported { media_type: "image/png".into() },
            Error::InvalidAgentResponse { reason: "bad".into() },
            Error::ExtendedAgentCardNotConfigured,
            Error::ExtensionSupportRequired { uris: vec!["urn:a".into(), "urn:b".into()] },
            Error::VersionNotSupported { version: "9.9".into(), supported: vec!["0.3".into(), "1.0".into()] },
            Error::ParseError { reason: "eof".into() },
            Error::InvalidRequest { reason: "no method".into() },
            Error::MethodNotFound { method: "Foo".into() },
            Error::invalid_param("message.parts", "at least one part is required"),
            Error::Unauthenticated { reason: "no token".into() },
            Error::PermissionDenied { reason: "not yours".into() },
            Error::ResourceExhausted { reason: "full".into(), retry_after_secs: None },
            Error::internal("boom"),
            Error::Transport { reason: "down".into() },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_kept_in_an_unauthenticated_reason_and_read_back() {
        let values =
            vec![r#"Bearer realm="a2a", error="invalid_token""#.to_owned(), "Basic realm=\"a2a\"".to_owned()];
        let error = Error::Unauthenticated { reason: "401 Unauthorized".into() }.with_challenges(&values);
        assert_eq!(error.challenges(), values.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(error.to_string().starts_with("unauthenticated: 401 Unauthorized ["), "{error}");
        let other = Error::internal("x").with_challenges(&values);
        assert!(other.challenges().is_empty() && matches!(other, Error::Internal { .. }));
        assert!(Error::Unauthenticated { reason: "no challenge".into() }.challenges().is_empty());
    }

    #[test]
    fn invalid_params_read_well_with_and_without_a_field() {
        assert_eq!(
            Error::invalid_params_unattributed("the request is not a SendMessageRequest").to_string(),
            "invalid parameters: the request is not a SendMessageRequest"
        );
        assert_eq!(
            Error::invalid_param("message.parts", "must not be empty").to_string(),
            "invalid parameters: message.parts: must not be empty"
        );
    }

    fn every_a2a_error() -> Vec<Error> {
        let mut errors = super::testing::one_of_each();
        errors.truncate(Error::A2A_ERRORS);
        errors
    }

    #[test]
    fn one_of_each_is_in_the_order_of_the_names() {
        let names: Vec<&str> = super::testing::one_of_each().iter().map(Error::name).collect();
        assert_eq!(names, Error::NAMES);
    }

    #[test]
    fn json_rpc_codes_follow_the_spec_5_4_table_and_read_back() {
        let codes: Vec<i64> = every_a2a_error().iter().map(Error::json_rpc_code).collect();
        assert_eq!(codes, [-32001, -32002, -32003, -32004, -32005, -32006, -32007, -32008, -32009]);
        let standard = [
            (Error::Unauthenticated { reason: "no token".into() }, -32010),
            (Error::PermissionDenied { reason: "not yours".into() }, -32011),
            (Error::ResourceExhausted { reason: "full".into(), retry_after_secs: None }, -32012),
            (Error::ParseError { reason: "eof".into() }, -32700),
            (Error::InvalidRequest { reason: "no method".into() }, -32600),
            (Error::MethodNotFound { method: "Foo".into() }, -32601),
            (Error::invalid_params_unattributed("bad"), -32602),
            (Error::internal("boom"), -32603),
        ];
        for (error, code) in standard {
            assert_eq!(error.json_rpc_code(), code, "{error:?}");
            // Sent as `Display`, read back by its code alone: the same error.
            let back = Error::from_json_rpc_code(code, &error.to_string()).unwrap();
            assert_eq!(format!("{back:?}"), format!("{error:?}"));
        }
        assert_eq!(Error::Transport { reason: "x".into() }.json_rpc_code(), -32603);
        for error in every_a2a_error() {
            let back = Error::from_json_rpc_code(error.json_rpc_code(), &error.to_string()).unwrap();
            assert_eq!(back.reason(), error.reason());
        }
        assert!(matches!(Error::from_json_rpc_code(-31401, "no"), Some(Error::Unauthenticated { .. })));
        assert!(matches!(Error::from_json_rpc_code(-31403, "no"), Some(Error::PermissionDenied { .. })));
        assert!(Error::from_json_rpc_code(-32050, "custom").is_none());
    }

    #[test]
    fn every_error_has_its_own_name_and_the_a2a_ones_are_their_reasons() {
        let mut names = Error::NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Error::NAMES.len());
        for error in every_a2a_error() {
            assert_eq!(Some(error.name()), error.reason());
        }
        assert_eq!(Error::invalid_param("id", "empty").name(), "INVALID_PARAMS");
        assert_eq!(Error::ParseError { reason: "eof".into() }.name(), "PARSE_ERROR");
        assert_eq!(Error::Transport { reason: "down".into() }.name(), "TRANSPORT_ERROR");
        assert_eq!(Error::internal("x").reason(), None);
    }

    #[test]
    fn reasons_are_the_spec_names_in_upper_snake_case_without_error_suffix() {
        let reasons: Vec<_> = every_a2a_error().iter().map(|e| e.reason().unwrap()).collect();
        assert_eq!(
            reasons,
            [
                "TASK_NOT_FOUND",
                "TASK_NOT_CANCELABLE",
                "PUSH_NOTIFICATION_NOT_SUPPORTED",
                "UNSUPPORTED_OPERATION",
                "CONTENT_TYPE_NOT_SUPPORTED",
                "INVALID_AGENT_RESPONSE",
                "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
                "EXTENSION_SUPPORT_REQUIRED",
                "VERSION_NOT_SUPPORTED",
            ]
        );
    }

    #[test]
    fn every_a2a_error_round_trips_through_json_details() {
        for error in every_a2a_error() {
            let details = error.to_json_details();
            assert_eq!(details[0]["@type"], ERROR_INFO_TYPE);
            assert_eq!(details[0]["domain"], ERROR_DOMAIN);
            let back = Error::from_json_details(&error.to_string(), &details).unwrap();
            assert_eq!(format!("{back:?}"), format!("{error:?}"));
        }
    }

    #[test]
    fn invalid_params_carry_a_bad_request_with_the_field() {
        let error = Error::invalid_param("message.parts", "at least one part is required");
        let details = error.to_json_details();
        assert_eq!(
            details[0],
            json!({"@type": BAD_REQUEST_TYPE, "fieldViolations": [
                {"field": "message.parts", "description": "at least one part is required"}]})
        );
        let back = Error::from_json_details("x", &details).unwrap();
        assert_eq!(back.field_violations(), error.field_violations());
    }

    #[test]
    fn standard_errors_carry_the_reasons_the_official_sdks_use() {
        let cases = [
            (Error::ParseError { reason: "x".into() }, "INVALID_REQUEST"),
            (Error::InvalidRequest { reason: "x".into() }, "INVALID_REQUEST"),
            (Error::MethodNotFound { method: "x".into() }, "METHOD_NOT_FOUND"),
            (Error::invalid_param("f", "d"), "INVALID_PARAMS"),
            (Error::Unauthenticated { reason: "x".into() }, "UNAUTHENTICATED"),
            (Error::PermissionDenied { reason: "x".into() }, "PERMISSION_DENIED"),
            (Error::internal("x"), "INTERNAL_ERROR"),
        ];
        for (error, reason) in cases {
            assert_eq!(error.reason(), None, "not an A2A-specific error: {error:?}");
            let info = error.error_info().unwrap();
            assert_eq!((info.reason.as_str(), info.domain.as_str()), (reason, ERROR_DOMAIN));
        }
        assert!(Error::Transport { reason: "x".into() }.error_info().is_none());
    }

    #[test]
    fn resource_exhausted_round_trips_with_its_retry_hint() {
        for retry_after_secs in [Some(3), None] {
            let error = Error::ResourceExhausted { reason: "rate limit".into(), retry_after_secs };
            let info = error.error_info().unwrap();
            assert_eq!(info.reason, "RESOURCE_EXHAUSTED");
            let back = Error::from_json_details(&error.to_string(), &error.to_json_details()).unwrap();
            assert_eq!(format!("{back:?}"), format!("{error:?}"));
        }
    }

    #[test]
    fn invalid_params_send_both_error_info_and_bad_request_and_come_back_with_violations() {
        let error = Error::invalid_param("message.parts", "at least one part is required");
        let details = error.to_json_details();
        assert_eq!(details.len(), 2);
        let back = Error::from_json_details("m", &details).unwrap();
        assert_eq!(back.field_violations(), error.field_violations());
    }

    #[test]
    fn task_not_found_metadata_names_the_task() {
        let info = Error::TaskNotFound { task_id: "abc".into() }.error_info().unwrap();
        assert_eq!(info.metadata.get("taskId").map(String::as_str), Some("abc"));
    }

    #[test]
    fn foreign_error_info_is_not_mistaken_for_an_a2a_error() {
        let details =
            vec![json!({"@type": ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": "example.com"})];
        assert!(Error::from_json_details("m", &details).is_none());
    }
}
