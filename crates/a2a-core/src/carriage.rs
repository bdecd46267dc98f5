//! What the binding clients share: the protocol version is picked once, when a client is built.
//!
//! A binding's client (JSON-RPC, REST, gRPC) keeps its connection (the binding's *wire*: URL,
//! HTTP client, gRPC channel, ...) and one [`Carriage`] over that wire, chosen from the protocol
//! version it was built for: one implementation carries the 11 operations as A2A 1.0, another as
//! A2A 0.3 (in the binding's `client_v03` module). The client's [`A2aService`](crate::A2aService)
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
use crate::error::Result;
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
