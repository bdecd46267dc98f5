//! The 0.3 carriage of [`GrpcClient`](crate::GrpcClient)
//! (`with_protocol_version(ProtocolVersion::V0_3)`): the same
//! [`A2aService`](a2a_core::A2aService) calls, made on 0.3's `a2a.v1.A2AService` over the same
//! channel.
//!
//! The mapping is in the crate docs (*A2A 0.3*); messages are translated by `a2a-v03`
//! (`a2a_v03::proto`), this module only picks the RPC and reads replies and statuses. File parts of a
//! sent message are first put into the client's [`ProtoFileBytes`](a2a_v03::ProtoFileBytes)
//! encoding ([`GrpcClient::with_v03_file_bytes`](crate::GrpcClient::with_v03_file_bytes)).

use a2a_core::carriage::Carriage;
use a2a_core::{CallContext, Error, ProtocolVersion, Request, Response, Result};
use async_trait::async_trait;
use futures::StreamExt;
use tonic::Status;
use tonic_types::{ErrorDetail, StatusExt};

use crate::client::{call_raw, tonic_request, Raw, Wire};
use crate::error::from_status;
use crate::stream::end_after_error;

/// The metadata entry in which the a2a-js SDK's 0.3 gRPC server puts the 0.3 error code (and
/// our 0.3 service too, see `server_v03`).
pub(crate) const ERROR_CODE_METADATA: &str = "a2a-error";

/// The error of a status from a 0.3 service.
///
/// An `google.rpc.ErrorInfo` of the A2A domain or a `google.rpc.BadRequest` decides, as for 1.0
/// ([`from_status`]; our 0.3 service sends them). Without them, the 0.3 JSON-RPC code in the
/// `a2a-error` metadata (a2a-js) decides through [`a2a_v03::error::from_v03`]; failing that, the
/// status code does, as for 1.0.
pub(crate) fn from_status_v03(status: &Status) -> Error {
    let detailed = status.get_error_details_vec().iter().any(|detail| match detail {
        ErrorDetail::ErrorInfo(info) => info.domain == a2a_core::error::ERROR_DOMAIN,
        ErrorDetail::BadRequest(_) => true,
        _ => false,
    });
    let code = status
        .metadata()
        .get(ERROR_CODE_METADATA)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    match code {
        Some(code) if !detailed => {
            a2a_v03::error::from_v03(&serde_json::json!({ "code": code, "message": status.message() }))
        }
        _ => from_status(status),
    }
}

/// The error of a refused 0.3 CancelTask. 0.3 gRPC servers without error details (@a2a-js/sdk
/// 0.3 sends neither an ErrorInfo nor an `a2a-error` code for it) refuse a cancel with
/// FAILED_PRECONDITION, which on CancelTask can only mean TaskNotCancelable (the 0.3 SDKs' own
/// clients read it so); anything that says more is read as usual.
fn cancel_error(status: &Status, task_id: String) -> Error {
    match from_status_v03(status) {
        Error::Internal { .. } if status.code() == tonic::Code::FailedPrecondition => {
            Error::TaskNotCancelable { task_id, state: Default::default() }
        }
        other => other,
    }
}

/// The gRPC service of A2A 0.3 (the 0.3 proto's package `a2a.v1`).
const SERVICE: &str = "a2a.v1.A2AService";

/// A2A 0.3: 0.3's `a2a.v1.A2AService` on the same channel, messages translated by `a2a-v03`
/// ([`a2a_v03::proto::encode_request`], [`a2a_v03::proto::decode_reply`]), file bytes as
/// the wire's `file_bytes` says.
pub(crate) struct V03;

#[async_trait]
impl Carriage<Wire> for V03 {
    async fn call(&self, wire: &Wire, ctx: &CallContext, mut request: Request) -> Result<Response> {
        wire.file_bytes.encode_request(&mut request);
        let operation = request.operation();
        let rpc = a2a_v03::client::method(operation)?.rpc();
        let message = a2a_v03::proto::encode_request(&request)?;
        // The 0.3 context: `a2a-version: 0.3`, extensions also in `x-a2a-extensions`.
        let message = tonic_request(&a2a_v03::client_params(&ctx.params), message)?;
        let raw =
            call_raw(wire, SERVICE, rpc, message, operation.is_streaming()).await.map_err(|status| {
                match &request {
                    Request::CancelTask(cancel) => cancel_error(&status, cancel.id.clone()),
                    _ => from_status_v03(&status),
                }
            })?;
        match raw {
            Raw::Reply(bytes) => a2a_v03::proto::decode_reply(operation, &bytes),
            Raw::Stream(events) => {
                let values = end_after_error(events, |status: Status| from_status_v03(&status))
                    .map(|item| item.and_then(|bytes| a2a_v03::proto::event_value(&bytes)))
                    .boxed();
                Ok(Response::Stream(a2a_v03::client::read_events(values)))
            }
        }
    }

    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V0_3
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::metadata::MetadataValue;

    #[test]
    fn a_bare_failed_precondition_on_cancel_is_task_not_cancelable() {
        let bare = Status::new(tonic::Code::FailedPrecondition, "Task cannot be canceled");
        assert!(matches!(
            cancel_error(&bare, "t1".into()),
            Error::TaskNotCancelable { task_id, .. } if task_id == "t1"
        ));
        // A code that says more wins; other bare codes keep their usual reading.
        let not_found = with_code(tonic::Code::FailedPrecondition, "-32001");
        assert!(matches!(cancel_error(&not_found, "t1".into()), Error::TaskNotFound { .. }));
        let internal = Status::new(tonic::Code::Internal, "boom");
        assert!(matches!(cancel_error(&internal, "t1".into()), Error::Internal { .. }));
    }

    fn with_code(code: tonic::Code, a2a_error: &'static str) -> Status {
        let mut status = Status::new(code, "message");
        status.metadata_mut().insert(ERROR_CODE_METADATA, MetadataValue::from_static(a2a_error));
        status
    }

    #[test]
    fn the_a2a_error_code_decides_without_details() {
        // a2a-js sends UNIMPLEMENTED for TaskNotCancelable, with the 0.3 code beside it.
        let error = from_status_v03(&with_code(tonic::Code::Unimplemented, "-32002"));
        assert!(matches!(error, Error::TaskNotCancelable { .. }), "{error:?}");
        let error = from_status_v03(&with_code(tonic::Code::NotFound, "-32001"));
        assert!(matches!(error, Error::TaskNotFound { .. }), "{error:?}");
    }

    #[test]
    fn details_decide_over_the_a2a_error_code_and_the_code_over_nothing() {
        let mut status = crate::error::to_status(&Error::TaskNotFound { task_id: "t1".into() });
        status.metadata_mut().insert(ERROR_CODE_METADATA, MetadataValue::from_static("-32603"));
        let error = from_status_v03(&status);
        assert!(matches!(error, Error::TaskNotFound { ref task_id } if task_id == "t1"), "{error:?}");
        let error = from_status_v03(&Status::new(tonic::Code::InvalidArgument, "bad"));
        assert!(matches!(error, Error::InvalidParams { .. }), "{error:?}");
    }
}
