//! What the binding clients share: the protocol version is picked once, when a client is built.
//!
//! A binding's client (JSON-RPC, REST, gRPC) keeps its connection (the binding's *wire*: URL,
//! HTTP client, gRPC channel, ...) and one [`Carriage`] over that wire, chosen from the protocol
//! version it was built for: one implementation carries the 11 operations as A2A 1.0, another as
//! A2A 0.3 (in the binding's `client_v03` module, behind its `v03` feature), and [`Unavailable`]
//! stands for a version the build does not speak. The client's [`A2aService`](crate::A2aService)
//! methods are written once: each hands its call to the carriage, so no method asks which
//! version it speaks.
//!
//! The other thing every binding's client shares is which service parameters it sends:
//! [`ServiceParams::to_send`](crate::ServiceParams::to_send).

use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use async_trait::async_trait;

use crate::context::{CallContext, ProtocolVersion};
use crate::error::{Error, Result};
use crate::service::EventStream;

/// The 11 operations of [`A2aService`](crate::A2aService) as one protocol version carries them
/// over a binding's wire `W`: its methods, paths, message shapes, headers and error reading.
///
/// A binding client holds one (`Arc<dyn Carriage<W>>`) from construction on and forwards every
/// call to it with its wire.
#[async_trait]
pub trait Carriage<W: Sync + ?Sized>: Send + Sync + 'static {
    /// The protocol version carried.
    fn version(&self) -> ProtocolVersion;

    /// SendMessage (spec 3.1.1).
    async fn send_message(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse>;

    /// SendStreamingMessage (spec 3.1.2).
    async fn send_streaming_message(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream>;

    /// GetTask (spec 3.1.3).
    async fn get_task(&self, wire: &W, ctx: &CallContext, request: GetTaskRequest) -> Result<Task>;

    /// ListTasks (spec 3.1.4).
    async fn list_tasks(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: ListTasksRequest,
    ) -> Result<ListTasksResponse>;

    /// CancelTask (spec 3.1.5).
    async fn cancel_task(&self, wire: &W, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task>;

    /// SubscribeToTask (spec 3.1.6).
    async fn subscribe_to_task(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream>;

    /// CreateTaskPushNotificationConfig (spec 3.1.7).
    async fn create_task_push_notification_config(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig>;

    /// GetTaskPushNotificationConfig (spec 3.1.8).
    async fn get_task_push_notification_config(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig>;

    /// ListTaskPushNotificationConfigs (spec 3.1.9).
    async fn list_task_push_notification_configs(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse>;

    /// DeleteTaskPushNotificationConfig (spec 3.1.10).
    async fn delete_task_push_notification_config(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()>;

    /// GetExtendedAgentCard (spec 3.1.11).
    async fn get_extended_agent_card(
        &self,
        wire: &W,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard>;
}

/// A binding client: its wire and the carriage chosen when it was built. Every such client is an
/// [`A2aService`](crate::A2aService) through the one implementation below, each operation handed
/// to the carriage with the wire, so no binding writes the 11 forwarding methods again.
pub trait CarriedClient: Send + Sync + 'static {
    /// The binding's connection.
    type Wire: Send + Sync + 'static;

    /// The connection the carriage uses.
    fn wire(&self) -> &Self::Wire;

    /// The protocol version's carriage.
    fn carriage(&self) -> &dyn Carriage<Self::Wire>;
}

#[async_trait]
impl<C: CarriedClient> crate::A2aService for C {
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        self.carriage().send_message(self.wire(), ctx, request).await
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        self.carriage().send_streaming_message(self.wire(), ctx, request).await
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        self.carriage().get_task(self.wire(), ctx, request).await
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        self.carriage().list_tasks(self.wire(), ctx, request).await
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        self.carriage().cancel_task(self.wire(), ctx, request).await
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        self.carriage().subscribe_to_task(self.wire(), ctx, request).await
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        self.carriage().create_task_push_notification_config(self.wire(), ctx, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        self.carriage().get_task_push_notification_config(self.wire(), ctx, request).await
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        self.carriage().list_task_push_notification_configs(self.wire(), ctx, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        self.carriage().delete_task_push_notification_config(self.wire(), ctx, request).await
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        self.carriage().get_extended_agent_card(self.wire(), ctx, request).await
    }
}

/// The carriage of a protocol version this build of a binding does not speak (its feature is
/// off): every call fails with [`Error::UnsupportedOperation`] naming the version and the crate,
/// and nothing is sent.
#[derive(Debug, Clone)]
pub struct Unavailable {
    version: ProtocolVersion,
    binding: &'static str,
}

impl Unavailable {
    /// The carriage refusing `version` in the crate named `binding` (e.g. `"a2a-jsonrpc"`).
    pub fn new(version: ProtocolVersion, binding: &'static str) -> Self {
        Unavailable { version, binding }
    }

    /// The error of every call.
    pub fn error(&self) -> Error {
        Error::unsupported(format!(
            "{} does not speak A2A {} in this build (its `v03` feature is off); the request was not sent",
            self.binding, self.version
        ))
    }
}

#[async_trait]
impl<W: Sync + ?Sized> Carriage<W> for Unavailable {
    fn version(&self) -> ProtocolVersion {
        self.version
    }

    async fn send_message(
        &self,
        _: &W,
        _: &CallContext,
        _: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        Err(self.error())
    }

    async fn send_streaming_message(
        &self,
        _: &W,
        _: &CallContext,
        _: SendMessageRequest,
    ) -> Result<EventStream> {
        Err(self.error())
    }

    async fn get_task(&self, _: &W, _: &CallContext, _: GetTaskRequest) -> Result<Task> {
        Err(self.error())
    }

    async fn list_tasks(&self, _: &W, _: &CallContext, _: ListTasksRequest) -> Result<ListTasksResponse> {
        Err(self.error())
    }

    async fn cancel_task(&self, _: &W, _: &CallContext, _: CancelTaskRequest) -> Result<Task> {
        Err(self.error())
    }

    async fn subscribe_to_task(
        &self,
        _: &W,
        _: &CallContext,
        _: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        Err(self.error())
    }

    async fn create_task_push_notification_config(
        &self,
        _: &W,
        _: &CallContext,
        _: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        Err(self.error())
    }

    async fn get_task_push_notification_config(
        &self,
        _: &W,
        _: &CallContext,
        _: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        Err(self.error())
    }

    async fn list_task_push_notification_configs(
        &self,
        _: &W,
        _: &CallContext,
        _: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        Err(self.error())
    }

    async fn delete_task_push_notification_config(
        &self,
        _: &W,
        _: &CallContext,
        _: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        Err(self.error())
    }

    async fn get_extended_agent_card(
        &self,
        _: &W,
        _: &CallContext,
        _: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        Err(self.error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_unavailable_version_fails_every_call_naming_the_version_and_the_crate() {
        let carriage = Unavailable::new(ProtocolVersion::V0_3, "a2a-jsonrpc");
        let ctx = CallContext::v1();
        assert_eq!(Carriage::<()>::version(&carriage), ProtocolVersion::V0_3);
        let error =
            Carriage::<()>::get_task(&carriage, &(), &ctx, GetTaskRequest::default()).await.unwrap_err();
        assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
        let text = error.to_string();
        assert!(text.contains("a2a-jsonrpc") && text.contains("0.3") && text.contains("v03"), "{text}");
        let error =
            Carriage::<()>::send_streaming_message(&carriage, &(), &ctx, SendMessageRequest::default())
                .await
                .err()
                .unwrap();
        assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
    }
}
