//! [`CliError`]: the spec's two error layers (SPEC.md §11.4, Appendix B and D): a protocol failure
//! carries the A2A error name, a CLI-local one an `A2ACLI_ERR_*` code; each has its exit status.

use a2a_core::Error;
use serde_json::{json, Value};

/// Exit statuses (SPEC.md §11.6).
pub(crate) mod exit {
    /// The CLI could not complete the operation.
    pub(crate) const FAILURE: u8 = 1;
    /// Invalid arguments, flags or flag combination.
    pub(crate) const USAGE: u8 = 2;
    /// The agent or its card could not be reached or resolved.
    pub(crate) const UNREACHABLE: u8 = 3;
    /// Authentication could not be completed.
    pub(crate) const AUTH: u8 = 4;
    /// `--timeout` expired.
    pub(crate) const TIMEOUT: u8 = 5;
}

/// A failure of one invocation, as reported: the Appendix B envelope plus the exit status.
#[derive(Debug, Clone)]
pub(crate) struct CliError {
    /// The A2A error name (`TaskNotFoundError`) or an `A2ACLI_ERR_*` code.
    pub(crate) code: String,
    /// For a person.
    pub(crate) message: String,
    /// A next step, ideally a command.
    pub(crate) hint: Option<String>,
    /// The protocol's own code for the error when it has one: the `google.rpc.ErrorInfo` reason
    /// every binding carries (e.g. `TASK_NOT_FOUND`), the same on all three.
    pub(crate) a2a_code: Option<String>,
    /// The exit status.
    pub(crate) exit: u8,
}

impl CliError {
    /// A CLI-local error.
    pub(crate) fn local(code: &str, exit: u8, message: impl Into<String>) -> Self {
        CliError { code: code.into(), message: message.into(), hint: None, a2a_code: None, exit }
    }

    /// `A2ACLI_ERR_USAGE`, exit 2.
    pub(crate) fn usage(message: impl Into<String>) -> Self {
        Self::local("A2ACLI_ERR_USAGE", exit::USAGE, message)
    }

    /// `A2ACLI_ERR_INTERNAL`, exit 1.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::local("A2ACLI_ERR_INTERNAL", exit::FAILURE, message)
    }

    /// With a hint.
    pub(crate) fn hint(self, hint: impl Into<String>) -> Self {
        Self { hint: Some(hint.into()), ..self }
    }

    /// An error of an A2A call. `credentials`: whether the caller supplied any (an
    /// authentication failure is then "rejected", else "missing").
    pub(crate) fn from_a2a(error: &Error, credentials: bool) -> Self {
        let a2a_code = error.error_info().map(|info| info.reason);
        let protocol = |name: &str| CliError {
            code: name.into(),
            message: error.to_string(),
            hint: None,
            a2a_code: a2a_code.clone(),
            exit: exit::FAILURE,
        };
        match error {
            Error::TaskNotFound { .. } => protocol("TaskNotFoundError"),
            Error::TaskNotCancelable { .. } => protocol("TaskNotCancelableError"),
            Error::PushNotificationNotSupported => protocol("PushNotificationNotSupportedError"),
            Error::UnsupportedOperation { .. } => protocol("UnsupportedOperationError"),
            Error::ContentTypeNotSupported { .. } => protocol("ContentTypeNotSupportedError"),
            Error::InvalidAgentResponse { .. } => protocol("InvalidAgentResponseError"),
            Error::ExtendedAgentCardNotConfigured => protocol("ExtendedAgentCardNotConfiguredError"),
            Error::ExtensionSupportRequired { .. } => protocol("ExtensionSupportRequiredError"),
            Error::VersionNotSupported { .. } => protocol("VersionNotSupportedError"),
            Error::ParseError { .. } => protocol("JSONParseError"),
            Error::InvalidRequest { .. } => protocol("InvalidRequestError"),
            Error::MethodNotFound { .. } => protocol("MethodNotFoundError"),
            Error::InvalidParams { .. } => protocol("InvalidParamsError"),
            Error::Internal { .. } => protocol("InternalError"),
            Error::ResourceExhausted { .. } => {
                protocol("ResourceExhaustedError").hint("the agent is busy or rate-limits this caller: retry later")
            }
            Error::Unauthenticated { .. } | Error::PermissionDenied { .. } => {
                let (code, hint) = if credentials {
                    ("A2ACLI_ERR_AUTH_FAILED", "check the credential (--bearer / --api-key or their A2ACLI_ variables)")
                } else {
                    (
                        "A2ACLI_ERR_CREDENTIALS_MISSING",
                        "the agent needs credentials: see its security schemes with `a2a-cli card get`, then pass --bearer or --api-key (or A2ACLI_BEARER / A2ACLI_API_KEY)",
                    )
                };
                CliError {
                    code: code.into(),
                    message: error.to_string(),
                    hint: Some(hint.into()),
                    a2a_code,
                    exit: exit::AUTH,
                }
            }
            Error::Transport { .. } => CliError {
                code: "A2ACLI_ERR_UNREACHABLE".into(),
                message: error.to_string(),
                hint: Some("check that the agent is running and reachable at the URL its card declares (--debug shows it)".into()),
                a2a_code: None,
                exit: exit::UNREACHABLE,
            },
        }
    }

    /// The Appendix B envelope.
    pub(crate) fn to_json(&self) -> Value {
        json!({
            "error": {
                "code": self.code,
                "message": self.message,
                "hint": self.hint,
                "a2aCode": self.a2a_code,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_errors_keep_their_a2a_name_and_reason() {
        let error = CliError::from_a2a(&Error::TaskNotFound { task_id: "t1".into() }, false);
        assert_eq!(error.code, "TaskNotFoundError");
        assert_eq!(error.exit, exit::FAILURE);
        let json = error.to_json();
        assert_eq!(json["error"]["a2aCode"], "TASK_NOT_FOUND");
        assert_eq!(json["error"]["message"], "task t1 not found");
        assert!(json["error"]["hint"].is_null());
    }

    #[test]
    fn cli_local_errors_have_their_exit_status() {
        let missing = CliError::from_a2a(&Error::Unauthenticated { reason: "no".into() }, false);
        assert_eq!((missing.code.as_str(), missing.exit), ("A2ACLI_ERR_CREDENTIALS_MISSING", exit::AUTH));
        let rejected = CliError::from_a2a(&Error::PermissionDenied { reason: "no".into() }, true);
        assert_eq!((rejected.code.as_str(), rejected.exit), ("A2ACLI_ERR_AUTH_FAILED", exit::AUTH));
        let down = CliError::from_a2a(&Error::Transport { reason: "refused".into() }, false);
        assert_eq!((down.code.as_str(), down.exit), ("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE));
        assert_eq!(CliError::usage("x").exit, exit::USAGE);
    }
}
