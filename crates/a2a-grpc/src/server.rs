//! The server side: [`GrpcService`] serves any [`a2a_core::A2aService`] as
//! `lf.a2a.v1.A2AService` (spec 10.3).
//!
//! Each call becomes a [`CallContext`] (service parameters from the metadata, spec 10.2; the
//! principal an authentication layer left in the request extensions) plus the request message,
//! unchanged. Nothing is validated here: version, extensions, capabilities and required fields
//! are the handler's concern, so every binding answers them alike.

use std::fmt;
use std::sync::Arc;

use a2a_core::{CallContext, Principal};
use a2a_proto::v1::grpc::a2a_service_server::{A2aService as GeneratedA2aService, A2aServiceServer};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use futures::stream::BoxStream;
use tonic::{Request, Response, Status};

use crate::error::to_status;
use crate::metadata::params_from_metadata;
use crate::stream::end_after_error;
use crate::DEFAULT_MAX_MESSAGE_SIZE;

/// The tonic service for `lf.a2a.v1.A2AService` (spec 10), delegating every call to an
/// [`a2a_core::A2aService`].
///
/// Usually built through [`server`], which wraps it in the generated [`A2aServiceServer`] with
/// this crate's message size limits.
#[derive(Clone)]
pub struct GrpcService {
    service: Arc<dyn a2a_core::A2aService>,
}

impl GrpcService {
    /// Serves `service`.
    pub fn new(service: Arc<dyn a2a_core::A2aService>) -> Self {
        GrpcService { service }
    }
}

impl GrpcService {
    /// Runs one operation and takes its result out of the response.
    async fn call<R: TryFrom<a2a_core::Response, Error = a2a_core::Error>>(
        &self,
        ctx: &CallContext,
        request: a2a_core::Request,
    ) -> a2a_core::Result<R> {
        self.service.call(ctx, request).await?.try_into()
    }
}

impl fmt::Debug for GrpcService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GrpcService").finish_non_exhaustive()
    }
}

/// `service` as a tonic service for `lf.a2a.v1.A2AService`, ready for
/// `tonic::transport::Server::add_service` or a `tonic::service::Routes` shared with other
/// bindings.
///
/// Requests and replies are limited to [`DEFAULT_MAX_MESSAGE_SIZE`] each way (tonic's own default
/// of 4 MiB is easily reached by a message with an inline file part). Chain
/// [`max_decoding_message_size`](A2aServiceServer::max_decoding_message_size) or
/// [`max_encoding_message_size`](A2aServiceServer::max_encoding_message_size) on the result to
/// choose other limits; compression can be enabled the same way.
pub fn server(service: Arc<dyn a2a_core::A2aService>) -> A2aServiceServer<GrpcService> {
    A2aServiceServer::new(GrpcService::new(service))
        .max_decoding_message_size(DEFAULT_MAX_MESSAGE_SIZE)
        .max_encoding_message_size(DEFAULT_MAX_MESSAGE_SIZE)
}

/// A server stream of `StreamResponse`s (SendStreamingMessage, SubscribeToTask).
type ResponseStream = BoxStream<'static, Result<StreamResponse, Status>>;

/// The context and message of an incoming call.
fn into_call<T>(request: Request<T>) -> (CallContext, T) {
    let (metadata, extensions, message) = request.into_parts();
    let ctx = CallContext {
        principal: extensions.get::<Principal>().cloned(),
        ..CallContext::new(params_from_metadata(&metadata))
    };
    (ctx, message)
}

/// A unary reply: the message, or the error as a status with its details.
fn reply<T>(result: a2a_core::Result<T>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(|error| {
        tracing::debug!(%error, "answering an A2A gRPC call with an error");
        to_status(&error)
    })
}

/// A streaming reply. An error before the stream exists is the call's status; an error item ends
/// the stream with it as the final status (spec 3.5.2). When the client goes away, tonic drops
/// the response stream and with it the handler's `EventStream`.
fn reply_stream(result: a2a_core::Result<a2a_core::EventStream>) -> Result<Response<ResponseStream>, Status> {
    let events = reply(result)?.into_inner();
    Ok(Response::new(end_after_error(events, |error| {
        tracing::debug!(%error, "ending an A2A gRPC stream with an error");
        to_status(&error)
    })))
}

#[tonic::async_trait]
impl GeneratedA2aService for GrpcService {
    async fn send_message(
        &self,
        request: Request<SendMessageRequest>,
    ) -> Result<Response<SendMessageResponse>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::SendMessage(message)).await)
    }

    type SendStreamingMessageStream = ResponseStream;

    async fn send_streaming_message(
        &self,
        request: Request<SendMessageRequest>,
    ) -> Result<Response<Self::SendStreamingMessageStream>, Status> {
        let (ctx, message) = into_call(request);
        reply_stream(self.call(&ctx, a2a_core::Request::SendStreamingMessage(message)).await)
    }

    async fn get_task(&self, request: Request<GetTaskRequest>) -> Result<Response<Task>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::GetTask(message)).await)
    }

    async fn list_tasks(
        &self,
        request: Request<ListTasksRequest>,
    ) -> Result<Response<ListTasksResponse>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::ListTasks(message)).await)
    }

    async fn cancel_task(&self, request: Request<CancelTaskRequest>) -> Result<Response<Task>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::CancelTask(message)).await)
    }

    type SubscribeToTaskStream = ResponseStream;

    async fn subscribe_to_task(
        &self,
        request: Request<SubscribeToTaskRequest>,
    ) -> Result<Response<Self::SubscribeToTaskStream>, Status> {
        let (ctx, message) = into_call(request);
        reply_stream(self.call(&ctx, a2a_core::Request::SubscribeToTask(message)).await)
    }

    async fn create_task_push_notification_config(
        &self,
        request: Request<TaskPushNotificationConfig>,
    ) -> Result<Response<TaskPushNotificationConfig>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::CreateTaskPushNotificationConfig(message)).await)
    }

    async fn get_task_push_notification_config(
        &self,
        request: Request<GetTaskPushNotificationConfigRequest>,
    ) -> Result<Response<TaskPushNotificationConfig>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::GetTaskPushNotificationConfig(message)).await)
    }

    async fn list_task_push_notification_configs(
        &self,
        request: Request<ListTaskPushNotificationConfigsRequest>,
    ) -> Result<Response<ListTaskPushNotificationConfigsResponse>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::ListTaskPushNotificationConfigs(message)).await)
    }

    async fn get_extended_agent_card(
        &self,
        request: Request<GetExtendedAgentCardRequest>,
    ) -> Result<Response<AgentCard>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::GetExtendedAgentCard(message)).await)
    }

    async fn delete_task_push_notification_config(
        &self,
        request: Request<DeleteTaskPushNotificationConfigRequest>,
    ) -> Result<Response<()>, Status> {
        let (ctx, message) = into_call(request);
        reply(self.call(&ctx, a2a_core::Request::DeleteTaskPushNotificationConfig(message)).await)
    }
}
