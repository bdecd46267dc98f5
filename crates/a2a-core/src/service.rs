//! [`A2aService`]: the 11 operations of spec 3.1 as one trait, served and called alike.
//!
//! The server side implements it once ([`DefaultRequestHandler`](crate::handler::DefaultRequestHandler))
//! and every binding's server exposes any implementation. Every binding's client implements it too,
//! so application code and tests are written once for all bindings, and an in-process handler can
//! stand wherever a remote agent can.

use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use async_trait::async_trait;
use futures::stream::BoxStream;

use crate::context::CallContext;
use crate::error::Result;

/// The future a method of [`A2aService`] or [`AgentExecutor`](crate::AgentExecutor) returns
/// (what `#[async_trait]` makes of an `async fn`): for a method written out by hand, which hands
/// an inner call's future on (or wraps it) instead of moving its arguments into a future of its
/// own first.
pub type Call<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T>> + Send + 'a>>;

/// The events of a streaming operation, in order (spec 3.5.2). The stream ends after a terminal
/// (or, for SendStreamingMessage, interrupted) state; an `Err` item ends it abnormally.
pub type EventStream = BoxStream<'static, Result<StreamResponse>>;

/// The abstract A2A service (spec 3.1). Errors found before a stream starts (validation, unknown
/// task, capabilities) are returned as `Err` from the call itself, so that bindings can answer
/// them as ordinary error responses.
#[async_trait]
pub trait A2aService: Send + Sync + 'static {
    /// 3.1.1: send a message; the reply is a Task or a Message.
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse>;

    /// 3.1.2: send a message and stream the task's events (or the single reply Message).
    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream>;

    /// 3.1.3: the current state of a task.
    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task>;

    /// 3.1.4: tasks matching filters, newest update first, with cursor pagination.
    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse>;

    /// 3.1.5: cancel a task; returns its updated state.
    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task>;

    /// 3.1.6: stream a task's events, starting with the Task itself.
    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream>;

    /// 3.1.7: register a webhook for a task.
    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig>;

    /// 3.1.8: one webhook registration of a task.
    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig>;

    /// 3.1.9: the webhook registrations of a task.
    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse>;

    /// 3.1.10: remove a webhook registration (idempotent).
    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()>;

    /// 3.1.11: the extended agent card for an authenticated caller.
    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard>;
}
