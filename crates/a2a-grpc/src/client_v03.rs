//! [`GrpcClient`] speaking A2A 0.3 (`with_protocol_version(ProtocolVersion::V0_3)`): the same
//! [`A2aService`](a2a_core::A2aService) calls, made on 0.3's `a2a.v1.A2AService` over the same
//! channel.
//!
//! The mapping is in the crate docs (*A2A 0.3*); messages are translated by `a2a-v03`'s
//! [`ProtoV03`], this module only picks the RPC and reads replies and statuses. File parts of a
//! sent message are first put into the client's [`ProtoFileBytes`](a2a_v03::ProtoFileBytes)
//! encoding ([`GrpcClient::with_v03_file_bytes`]).

use a2a_core::{CallContext, Error, EventStream, Result};
use a2a_proto::v0_3;
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, SendMessageRequest, SendMessageResponse, SubscribeToTaskRequest,
    Task, TaskPushNotificationConfig,
};
use a2a_v03::ProtoV03;
use futures::StreamExt;
use tonic::codec::Streaming;
use tonic::{Request, Response, Status};
use tonic_types::{ErrorDetail, StatusExt};

use crate::client::GrpcClient;
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

/// The 1.0 reply of a unary 0.3 call.
fn unary<P, T>(result: std::result::Result<Response<P>, Status>) -> Result<T>
where
    T: ProtoV03<Proto = P>,
{
    let reply = result.map(Response::into_inner).map_err(|status| from_status_v03(&status))?;
    T::from_v03_proto(&reply).map_err(a2a_v03::error::invalid_agent_response)
}

/// The 1.0 events of a 0.3 server stream: each 0.3 `StreamResponse` read through its ProtoJSON,
/// ending after the event that ends a 0.3 stream or the first error.
fn server_stream(
    result: std::result::Result<Response<Streaming<v0_3::StreamResponse>>, Status>,
) -> Result<EventStream> {
    let events = result.map(Response::into_inner).map_err(|status| from_status_v03(&status))?;
    let values = end_after_error(events, |status: Status| from_status_v03(&status))
        .map(|item| {
            item.and_then(|event| {
                serde_json::to_value(&event).map_err(|e| Error::InvalidAgentResponse {
                    reason: format!("a 0.3 StreamResponse cannot be read: {e}"),
                })
            })
        })
        .boxed();
    Ok(a2a_v03::client::read_events(values))
}

impl GrpcClient {
    /// A tonic request carrying `message` and the 0.3 service parameters of the context
    /// ([`a2a_v03::client_params`]: `a2a-version: 0.3`, extensions also in `x-a2a-extensions`).
    fn request_v03<T>(ctx: &CallContext, message: T) -> Result<Request<T>> {
        let ctx = CallContext::new(a2a_v03::client_params(&ctx.params));
        Self::request(&ctx, message)
    }

    pub(crate) async fn send_message_v03(
        &self,
        ctx: &CallContext,
        mut request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        self.v03_file_bytes().encode(&mut request);
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        unary(self.stub_v03().send_message(request).await)
    }

    pub(crate) async fn send_streaming_message_v03(
        &self,
        ctx: &CallContext,
        mut request: SendMessageRequest,
    ) -> Result<EventStream> {
        self.v03_file_bytes().encode(&mut request);
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        server_stream(self.stub_v03().send_streaming_message(request).await)
    }

    pub(crate) async fn get_task_v03(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        unary(self.stub_v03().get_task(request).await)
    }

    pub(crate) async fn cancel_task_v03(
        &self,
        ctx: &CallContext,
        request: CancelTaskRequest,
    ) -> Result<Task> {
        let task_id = request.id.clone();
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        let reply = self.stub_v03().cancel_task(request).await.map_err(|s| cancel_error(&s, task_id))?;
        Task::from_v03_proto(&reply.into_inner()).map_err(a2a_v03::error::invalid_agent_response)
    }

    pub(crate) async fn subscribe_to_task_v03(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        server_stream(self.stub_v03().task_subscription(request).await)
    }

    pub(crate) async fn create_task_push_notification_config_v03(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        let request = Self::request_v03(ctx, a2a_v03::proto::create_request_to_proto(&request)?)?;
        unary(self.stub_v03().create_task_push_notification_config(request).await)
    }

    pub(crate) async fn get_task_push_notification_config_v03(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        unary(self.stub_v03().get_task_push_notification_config(request).await)
    }

    pub(crate) async fn list_task_push_notification_configs_v03(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        unary(self.stub_v03().list_task_push_notification_config(request).await)
    }

    pub(crate) async fn delete_task_push_notification_config_v03(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        self.stub_v03()
            .delete_task_push_notification_config(request)
            .await
            .map(drop)
            .map_err(|status| from_status_v03(&status))
    }

    pub(crate) async fn get_extended_agent_card_v03(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        let request = Self::request_v03(ctx, request.to_v03_proto()?)?;
        unary(self.stub_v03().get_agent_card(request).await)
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
