//! [`ErrorKind`]: what errors are compared by. Every binding's client recovers the kind of an
//! error (from the `google.rpc.ErrorInfo` reason, or the binding's code), so two bindings agree
//! when their kinds agree, whatever their messages say. Also the spec 5.4 table of the codes each
//! binding must put on the wire for each kind.

use std::fmt;

use a2a_core::Error;

/// The kind of an [`a2a_core::Error`]: its variant, without the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the variants are those of `a2a_core::Error`, documented there
pub enum ErrorKind {
    TaskNotFound,
    TaskNotCancelable,
    PushNotificationNotSupported,
    UnsupportedOperation,
    ContentTypeNotSupported,
    InvalidAgentResponse,
    ExtendedAgentCardNotConfigured,
    ExtensionSupportRequired,
    VersionNotSupported,
    ParseError,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    Unauthenticated,
    PermissionDenied,
    ResourceExhausted,
    Internal,
    Transport,
}

impl ErrorKind {
    /// The kind of `error`.
    pub fn of(error: &Error) -> ErrorKind {
        match error {
            Error::TaskNotFound { .. } => ErrorKind::TaskNotFound,
            Error::TaskNotCancelable { .. } => ErrorKind::TaskNotCancelable,
            Error::PushNotificationNotSupported => ErrorKind::PushNotificationNotSupported,
            Error::UnsupportedOperation { .. } => ErrorKind::UnsupportedOperation,
            Error::ContentTypeNotSupported { .. } => ErrorKind::ContentTypeNotSupported,
            Error::InvalidAgentResponse { .. } => ErrorKind::InvalidAgentResponse,
            Error::ExtendedAgentCardNotConfigured => ErrorKind::ExtendedAgentCardNotConfigured,
            Error::ExtensionSupportRequired { .. } => ErrorKind::ExtensionSupportRequired,
            Error::VersionNotSupported { .. } => ErrorKind::VersionNotSupported,
            Error::ParseError { .. } => ErrorKind::ParseError,
            Error::InvalidRequest { .. } => ErrorKind::InvalidRequest,
            Error::MethodNotFound { .. } => ErrorKind::MethodNotFound,
            Error::InvalidParams { .. } => ErrorKind::InvalidParams,
            Error::Unauthenticated { .. } => ErrorKind::Unauthenticated,
            Error::PermissionDenied { .. } => ErrorKind::PermissionDenied,
            Error::ResourceExhausted { .. } => ErrorKind::ResourceExhausted,
            Error::Internal { .. } => ErrorKind::Internal,
            Error::Transport { .. } => ErrorKind::Transport,
        }
    }

    /// The name, as the variant is spelled.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TaskNotFound => "TaskNotFound",
            ErrorKind::TaskNotCancelable => "TaskNotCancelable",
            ErrorKind::PushNotificationNotSupported => "PushNotificationNotSupported",
            ErrorKind::UnsupportedOperation => "UnsupportedOperation",
            ErrorKind::ContentTypeNotSupported => "ContentTypeNotSupported",
            ErrorKind::InvalidAgentResponse => "InvalidAgentResponse",
            ErrorKind::ExtendedAgentCardNotConfigured => "ExtendedAgentCardNotConfigured",
            ErrorKind::ExtensionSupportRequired => "ExtensionSupportRequired",
            ErrorKind::VersionNotSupported => "VersionNotSupported",
            ErrorKind::ParseError => "ParseError",
            ErrorKind::InvalidRequest => "InvalidRequest",
            ErrorKind::MethodNotFound => "MethodNotFound",
            ErrorKind::InvalidParams => "InvalidParams",
            ErrorKind::Unauthenticated => "Unauthenticated",
            ErrorKind::PermissionDenied => "PermissionDenied",
            ErrorKind::ResourceExhausted => "ResourceExhausted",
            ErrorKind::Internal => "Internal",
            ErrorKind::Transport => "Transport",
        }
    }

    /// The `google.rpc.ErrorInfo` reason of an A2A-specific error (spec 10.6, 11.6).
    pub fn reason(self) -> Option<&'static str> {
        Some(match self {
            ErrorKind::TaskNotFound => "TASK_NOT_FOUND",
            ErrorKind::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            ErrorKind::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ErrorKind::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorKind::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            ErrorKind::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            ErrorKind::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            ErrorKind::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            ErrorKind::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            _ => return None,
        })
    }

    /// The JSON-RPC `error.code` of spec 5.4 (A2A errors) and 9.5 (standard errors).
    pub fn jsonrpc_code(self) -> Option<i64> {
        Some(match self {
            ErrorKind::TaskNotFound => -32001,
            ErrorKind::TaskNotCancelable => -32002,
            ErrorKind::PushNotificationNotSupported => -32003,
            ErrorKind::UnsupportedOperation => -32004,
            ErrorKind::ContentTypeNotSupported => -32005,
            ErrorKind::InvalidAgentResponse => -32006,
            ErrorKind::ExtendedAgentCardNotConfigured => -32007,
            ErrorKind::ExtensionSupportRequired => -32008,
            ErrorKind::VersionNotSupported => -32009,
            ErrorKind::ParseError => -32700,
            ErrorKind::InvalidRequest => -32600,
            ErrorKind::MethodNotFound => -32601,
            ErrorKind::InvalidParams => -32602,
            ErrorKind::Internal => -32603,
            ErrorKind::Unauthenticated
            | ErrorKind::PermissionDenied
            | ErrorKind::ResourceExhausted
            | ErrorKind::Transport => return None,
        })
    }

    /// The JSON-RPC `error.code` of A2A 0.3 (0.3 spec 8.1, 8.2): the same as 1.0's for the errors
    /// 0.3 defines; `None` for those it does not (ExtensionSupportRequired, VersionNotSupported,
    /// and the authentication errors 0.3 leaves to HTTP).
    pub fn v03_code(self) -> Option<i64> {
        match self {
            ErrorKind::ExtensionSupportRequired | ErrorKind::VersionNotSupported => None,
            other => other.jsonrpc_code(),
        }
    }

    /// Whether the agent, not the caller, is at fault: an HTTP 5xx rather than 4xx (0.3 spec
    /// 3.2.3: "appropriate HTTP status codes ... that correspond to A2A error types").
    pub fn is_server_side(self) -> bool {
        matches!(self, ErrorKind::Internal | ErrorKind::InvalidAgentResponse | ErrorKind::Transport)
    }

    /// The gRPC status code of spec 5.4 (A2A errors) and 3.3.2 (validation, auth, system errors).
    pub fn grpc_code(self) -> Option<tonic::Code> {
        use tonic::Code;
        Some(match self {
            ErrorKind::TaskNotFound => Code::NotFound,
            ErrorKind::TaskNotCancelable
            | ErrorKind::PushNotificationNotSupported
            | ErrorKind::UnsupportedOperation
            | ErrorKind::ExtendedAgentCardNotConfigured
            | ErrorKind::ExtensionSupportRequired
            | ErrorKind::VersionNotSupported => Code::FailedPrecondition,
            ErrorKind::ContentTypeNotSupported | ErrorKind::InvalidParams => Code::InvalidArgument,
            ErrorKind::InvalidAgentResponse | ErrorKind::Internal => Code::Internal,
            ErrorKind::Unauthenticated => Code::Unauthenticated,
            ErrorKind::PermissionDenied => Code::PermissionDenied,
            ErrorKind::ResourceExhausted => Code::ResourceExhausted,
            ErrorKind::ParseError
            | ErrorKind::InvalidRequest
            | ErrorKind::MethodNotFound
            | ErrorKind::Transport => return None,
        })
    }

    /// The HTTP status of spec 5.4 (A2A errors) and 3.3.2 (validation, auth, system errors).
    pub fn http_status(self) -> Option<u16> {
        Some(match self {
            ErrorKind::TaskNotFound => 404,
            ErrorKind::TaskNotCancelable
            | ErrorKind::PushNotificationNotSupported
            | ErrorKind::UnsupportedOperation
            | ErrorKind::ContentTypeNotSupported
            | ErrorKind::ExtendedAgentCardNotConfigured
            | ErrorKind::ExtensionSupportRequired
            | ErrorKind::VersionNotSupported
            | ErrorKind::InvalidParams => 400,
            ErrorKind::InvalidAgentResponse | ErrorKind::Internal => 500,
            ErrorKind::Unauthenticated => 401,
            ErrorKind::PermissionDenied => 403,
            ErrorKind::ResourceExhausted => 429,
            ErrorKind::ParseError
            | ErrorKind::InvalidRequest
            | ErrorKind::MethodNotFound
            | ErrorKind::Transport => return None,
        })
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kind_of_an_error_names_its_variant_and_a2a_kinds_have_the_core_reason() {
        let error = Error::TaskNotFound { task_id: "t".into() };
        assert_eq!(ErrorKind::of(&error).name(), "TaskNotFound");
        assert_eq!(ErrorKind::of(&error).reason(), error.reason());
        let invalid = Error::invalid_param("pageSize", "too big");
        assert_eq!(ErrorKind::of(&invalid), ErrorKind::InvalidParams);
        assert_eq!(ErrorKind::of(&invalid).reason(), None);
    }

    #[test]
    fn the_0_3_codes_are_1_0_s_where_0_3_defines_the_error() {
        assert_eq!(ErrorKind::TaskNotFound.v03_code(), Some(-32001));
        assert_eq!(ErrorKind::ExtendedAgentCardNotConfigured.v03_code(), Some(-32007));
        assert_eq!(ErrorKind::InvalidParams.v03_code(), Some(-32602));
        assert_eq!(ErrorKind::ExtensionSupportRequired.v03_code(), None);
        assert_eq!(ErrorKind::VersionNotSupported.v03_code(), None);
    }

    #[test]
    fn the_wire_codes_follow_the_spec_5_4_table() {
        let rows = [
            (ErrorKind::TaskNotFound, -32001, tonic::Code::NotFound, 404),
            (ErrorKind::TaskNotCancelable, -32002, tonic::Code::FailedPrecondition, 400),
            (ErrorKind::PushNotificationNotSupported, -32003, tonic::Code::FailedPrecondition, 400),
            (ErrorKind::UnsupportedOperation, -32004, tonic::Code::FailedPrecondition, 400),
            (ErrorKind::ContentTypeNotSupported, -32005, tonic::Code::InvalidArgument, 400),
            (ErrorKind::InvalidAgentResponse, -32006, tonic::Code::Internal, 500),
            (ErrorKind::ExtendedAgentCardNotConfigured, -32007, tonic::Code::FailedPrecondition, 400),
            (ErrorKind::ExtensionSupportRequired, -32008, tonic::Code::FailedPrecondition, 400),
            (ErrorKind::VersionNotSupported, -32009, tonic::Code::FailedPrecondition, 400),
        ];
        for (kind, rpc, grpc, http) in rows {
            assert_eq!(kind.jsonrpc_code(), Some(rpc), "{kind}");
            assert_eq!(kind.grpc_code(), Some(grpc), "{kind}");
            assert_eq!(kind.http_status(), Some(http), "{kind}");
        }
    }
}
