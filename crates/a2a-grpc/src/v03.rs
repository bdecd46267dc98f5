//! A2A 0.3 over gRPC: [`GrpcServiceV03`] serves any [`a2a_core::A2aService`] as 0.3's
//! `a2a.v1.A2AService` ([`server_v03`]), beside the 1.0 service `lf.a2a.v1.A2AService` on the
//! same server (the packages differ, so both are routed by path).
//!
//! The package decides the version, not the `a2a-version` metadata. Each call is translated by
//! `a2a-v03`: the 0.3 message to the 1.0 request ([`ProtoV03`]), the call made through
//! [`a2a_v03::V03Request::call`] (which gives the service a 1.0 context, names invalid fields in 0.3
//! terms, answers `GetTaskPushNotificationConfig` without a config id with the task's first
//! config, and ends streams after the 0.3 `final` event), and the reply written back as the 0.3
//! message. Both versions reach the same service, so they see the same tasks.
//!
//! Each RPC is the 1.0 operation of its method (`a2a_v03::Method::rpc`; `TaskSubscription` is
//! SubscribeToTask, `GetAgentCard` is GetExtendedAgentCard, 0.3 spec 3.5.6); `docs/versions.md`
//! has the table. The messages are read by `a2a_v03::proto::ProtoRequest` (the send requests by
//! [`ProtoV03`]).
//!
//! Errors: the status code and details are those of the 1.0 binding ([`to_status`]: spec 5.4's
//! code, `google.rpc.ErrorInfo`, `google.rpc.BadRequest` with 0.3 field names); the 0.3 proto
//! defines no error mapping. The 0.3 JSON-RPC code of the error ([`a2a_v03::error::code`]) is added
//! as the `a2a-error` metadata entry, where the a2a-js SDK's gRPC client looks for it.

use std::fmt;
use std::sync::Arc;

use a2a_core::{CallContext, Error, Principal};
use a2a_proto::v0_3;
use a2a_proto::v0_3::grpc::a2a_service_server::{A2aService as GeneratedA2aService, A2aServiceServer};
use a2a_v03::proto::ProtoRequest as _;
use a2a_v03::{Form, ProtoV03, Reply, Request as V03Request, V03Request as _};
use futures::stream::{BoxStream, StreamExt};
use serde::de::DeserializeOwned;
use tonic::metadata::MetadataValue;
use tonic::{Request, Response, Status};

use crate::error::to_status;
use crate::metadata::params_from_metadata;
use crate::DEFAULT_MAX_MESSAGE_SIZE;

/// The tonic service for 0.3's `a2a.v1.A2AService`, delegating every call to an
/// [`a2a_core::A2aService`] through the `a2a-v03` translation.
#[derive(Clone)]
pub struct GrpcServiceV03 {
    service: Arc<dyn a2a_core::A2aService>,
}

impl GrpcServiceV03 {
    /// Serves `service` to 0.3 clients.
    pub fn new(service: Arc<dyn a2a_core::A2aService>) -> Self {
        GrpcServiceV03 { service }
    }
}

impl fmt::Debug for GrpcServiceV03 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GrpcServiceV03").finish_non_exhaustive()
    }
}

/// `service` as a tonic service for 0.3's `a2a.v1.A2AService`, with the message size limits of
/// [`server`](crate::server) ([`DEFAULT_MAX_MESSAGE_SIZE`]). Add it beside `server(service)` to
/// serve both versions on one port.
pub fn server_v03(service: Arc<dyn a2a_core::A2aService>) -> A2aServiceServer<GrpcServiceV03> {
    A2aServiceServer::new(GrpcServiceV03::new(service))
        .max_decoding_message_size(DEFAULT_MAX_MESSAGE_SIZE)
        .max_encoding_message_size(DEFAULT_MAX_MESSAGE_SIZE)
}

/// A server stream of 0.3 `StreamResponse`s.
type ResponseStream = BoxStream<'static, Result<v0_3::StreamResponse, Status>>;

/// The context and message of an incoming call (the context as the client sent it;
/// [`a2a_v03::V03Request::call`] turns it into the 1.0 context core expects).
fn into_call<T>(request: Request<T>) -> (CallContext, T) {
    let (metadata, extensions, message) = request.into_parts();
    let ctx = CallContext {
        principal: extensions.get::<Principal>().cloned(),
        ..CallContext::new(params_from_metadata(&metadata))
    };
    (ctx, message)
}

/// `error` as a status in 0.3 terms: the 1.0 binding's status plus the `a2a-error` entry.
fn status(error: &Error) -> Status {
    tracing::debug!(%error, "answering an A2A 0.3 gRPC call with an error");
    let mut status = to_status(error);
    if let Ok(code) = MetadataValue::try_from(a2a_v03::error::code(error).to_string()) {
        status.metadata_mut().insert(crate::client_v03::ERROR_CODE_METADATA, code);
    }
    status
}

/// A 0.3 message from the ProtoJSON value `a2a-v03` wrote for it.
fn to_proto<P: DeserializeOwned>(value: serde_json::Value) -> Result<P, Error> {
    serde_json::from_value(value)
        .map_err(|e| Error::internal(format!("the reply does not fit the 0.3 proto: {e}")))
}

impl GrpcServiceV03 {
    async fn reply(&self, ctx: &CallContext, request: V03Request) -> Result<Reply, Status> {
        request.call(self.service.as_ref(), ctx, Form::ProtoJson).await.map_err(|e| status(&e))
    }

    /// A unary call whose reply is the 0.3 message `P`.
    async fn unary<P: DeserializeOwned>(
        &self,
        ctx: CallContext,
        request: Result<V03Request, Error>,
    ) -> Result<Response<P>, Status> {
        let request = request.map_err(|e| status(&e))?;
        match self.reply(&ctx, request).await? {
            Reply::Value(value) => to_proto(value).map(Response::new).map_err(|e| status(&e)),
            Reply::Stream(_) => Err(status(&Error::internal("a unary 0.3 call answered a stream"))),
        }
    }

    /// A streaming call: each item the 0.3 `StreamResponse`; an error ends the stream as its
    /// final status.
    async fn streaming(
        &self,
        ctx: CallContext,
        request: Result<V03Request, Error>,
    ) -> Result<Response<ResponseStream>, Status> {
        let request = request.map_err(|e| status(&e))?;
        let Reply::Stream(events) = self.reply(&ctx, request).await? else {
            return Err(status(&Error::internal("a streaming 0.3 call answered a single value")));
        };
        // `Reply::Stream` ends after its first error; so does this stream.
        let stream = events
            .map(|item| item.and_then(to_proto::<v0_3::StreamResponse>).map_err(|e| status(&e)))
            .boxed();
        Ok(Response::new(stream))
    }
}

#[tonic::async_trait]
impl GeneratedA2aService for GrpcServiceV03 {
    async fn send_message(
        &self,
        request: Request<v0_3::SendMessageRequest>,
    ) -> Result<Response<v0_3::SendMessageResponse>, Status> {
        let (ctx, message) = into_call(request);
        let request = ProtoV03::from_v03_proto(&message).map(V03Request::SendMessage);
        self.unary(ctx, request).await
    }

    type SendStreamingMessageStream = ResponseStream;

    async fn send_streaming_message(
        &self,
        request: Request<v0_3::SendMessageRequest>,
    ) -> Result<Response<Self::SendStreamingMessageStream>, Status> {
        let (ctx, message) = into_call(request);
        let request = ProtoV03::from_v03_proto(&message).map(V03Request::SendStreamingMessage);
        self.streaming(ctx, request).await
    }

    async fn get_task(&self, request: Request<v0_3::GetTaskRequest>) -> Result<Response<v0_3::Task>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.unary(ctx, request).await
    }

    async fn cancel_task(
        &self,
        request: Request<v0_3::CancelTaskRequest>,
    ) -> Result<Response<v0_3::Task>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.unary(ctx, request).await
    }

    type TaskSubscriptionStream = ResponseStream;

    async fn task_subscription(
        &self,
        request: Request<v0_3::TaskSubscriptionRequest>,
    ) -> Result<Response<Self::TaskSubscriptionStream>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.streaming(ctx, request).await
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<v0_3::CreateTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v0_3::TaskPushNotificationConfig>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.unary(ctx, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<v0_3::GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v0_3::TaskPushNotificationConfig>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.unary(ctx, request).await
    }

    async fn list_task_push_notification_config(
        &self,
        request: Request<v0_3::ListTaskPushNotificationConfigRequest>,
    ) -> Result<Response<v0_3::ListTaskPushNotificationConfigResponse>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.unary(ctx, request).await
    }

    async fn get_agent_card(
        &self,
        request: Request<v0_3::GetAgentCardRequest>,
    ) -> Result<Response<v0_3::AgentCard>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        self.unary(ctx, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<v0_3::DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        let (ctx, message) = into_call(request);
        let request = message.to_request();
        let request = request.map_err(|e| status(&e))?;
        match self.reply(&ctx, request).await? {
            Reply::Value(_) => Ok(Response::new(())),
            Reply::Stream(_) => Err(status(&Error::internal("a unary 0.3 call answered a stream"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_carry_the_0_3_code_as_a2a_error_metadata() {
        let status = status(&Error::TaskNotFound { task_id: "t1".into() });
        assert_eq!(status.code(), tonic::Code::NotFound);
        assert_eq!(status.metadata().get("a2a-error").unwrap(), "-32001");
        let status = super::status(&Error::ExtendedAgentCardNotConfigured);
        assert_eq!(status.metadata().get("a2a-error").unwrap(), "-32007");
    }
}
