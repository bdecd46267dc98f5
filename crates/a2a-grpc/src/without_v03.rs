//! A2A 0.3 without this crate's `v03` feature: [`GrpcServiceV03`] still serves 0.3's
//! `a2a.v1.A2AService` beside the 1.0 service, but refuses every call.
//!
//! The package decides the version, as with the feature on. Without the translation every RPC is
//! answered with VersionNotSupported (spec 3.6.2: version `0.3`, supported `1.0`) as the 1.0
//! binding sends it ([`to_status`]: `FAILED_PRECONDITION` with an `ErrorInfo`), rather than the
//! bare `UNIMPLEMENTED` of a service that is not there. Nothing reaches the service. Code that
//! adds [`server_v03`] builds either way.

use std::fmt;
use std::sync::Arc;

use a2a_core::ProtocolVersion;
use a2a_proto::v0_3;
use a2a_proto::v0_3::grpc::a2a_service_server::{A2aService as GeneratedA2aService, A2aServiceServer};
use futures::stream::BoxStream;
use tonic::{Request, Response, Status};

use crate::error::to_status;
use crate::DEFAULT_MAX_MESSAGE_SIZE;

/// The tonic service for 0.3's `a2a.v1.A2AService` in a build without the `v03` feature: every
/// call is refused with VersionNotSupported (module docs).
#[derive(Clone)]
pub struct GrpcServiceV03 {
    _service: Arc<dyn a2a_core::A2aService>,
}

impl GrpcServiceV03 {
    /// The service refusing 0.3 calls for `service` (which they never reach).
    pub fn new(service: Arc<dyn a2a_core::A2aService>) -> Self {
        GrpcServiceV03 { _service: service }
    }
}

impl fmt::Debug for GrpcServiceV03 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GrpcServiceV03").finish_non_exhaustive()
    }
}

/// `service` behind 0.3's `a2a.v1.A2AService`, refusing every call (module docs). Add it beside
/// `server(service)` so that 0.3 clients learn which version the port speaks.
pub fn server_v03(service: Arc<dyn a2a_core::A2aService>) -> A2aServiceServer<GrpcServiceV03> {
    // The limits of `server`, so that a large 0.3 request is refused for its version too.
    A2aServiceServer::new(GrpcServiceV03::new(service))
        .max_decoding_message_size(DEFAULT_MAX_MESSAGE_SIZE)
        .max_encoding_message_size(DEFAULT_MAX_MESSAGE_SIZE)
}

/// A server stream of 0.3 `StreamResponse`s (never produced).
type ResponseStream = BoxStream<'static, Result<v0_3::StreamResponse, Status>>;

/// The status of every call.
fn refused<T>() -> Result<Response<T>, Status> {
    Err(to_status(&ProtocolVersion::V0_3.not_supported(&[ProtocolVersion::V1_0])))
}

#[tonic::async_trait]
impl GeneratedA2aService for GrpcServiceV03 {
    async fn send_message(
        &self,
        _: Request<v0_3::SendMessageRequest>,
    ) -> Result<Response<v0_3::SendMessageResponse>, Status> {
        refused()
    }

    type SendStreamingMessageStream = ResponseStream;

    async fn send_streaming_message(
        &self,
        _: Request<v0_3::SendMessageRequest>,
    ) -> Result<Response<Self::SendStreamingMessageStream>, Status> {
        refused()
    }

    async fn get_task(&self, _: Request<v0_3::GetTaskRequest>) -> Result<Response<v0_3::Task>, Status> {
        refused()
    }

    async fn cancel_task(&self, _: Request<v0_3::CancelTaskRequest>) -> Result<Response<v0_3::Task>, Status> {
        refused()
    }

    type TaskSubscriptionStream = ResponseStream;

    async fn task_subscription(
        &self,
        _: Request<v0_3::TaskSubscriptionRequest>,
    ) -> Result<Response<Self::TaskSubscriptionStream>, Status> {
        refused()
    }

    async fn create_task_push_notification_config(
        &self,
        _: Request<v0_3::CreateTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v0_3::TaskPushNotificationConfig>, Status> {
        refused()
    }

    async fn get_task_push_notification_config(
        &self,
        _: Request<v0_3::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v0_3::TaskPushNotificationConfig>, Status> {
        refused()
    }

    async fn list_task_push_notification_config(
        &self,
        _: Request<v0_3::ListTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v0_3::ListTaskPushNotificationConfigResponse>, Status> {
        refused()
    }

    async fn get_agent_card(
        &self,
        _: Request<v0_3::GetAgentCardRequest>,
    ) -> Result<Response<v0_3::AgentCard>, Status> {
        refused()
    }

    async fn delete_task_push_notification_config(
        &self,
        _: Request<v0_3::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        refused()
    }
}
