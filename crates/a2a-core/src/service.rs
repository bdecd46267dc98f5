//! [`A2aService`]: the 11 operations of spec 3.1 as one trait, served and called alike.
//!
//! The server side implements it once ([`DefaultRequestHandler`](crate::handler::DefaultRequestHandler))
//! and every binding's server exposes any implementation. Every binding's client implements it too,
//! so application code and tests are written once for all bindings, and an in-process handler can
//! stand wherever a remote agent can.
//!
//! An implementation writes one method, [`call`](A2aService::call), over the operation table's
//! [`Request`] and [`Response`]; callers use the typed methods (`send_message`, `get_task`, ...),
//! which build the request and take the result out of the response.

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
use crate::operation::{Request, Response};

/// A boxed future of a result, what `#[async_trait]` makes of an `async fn`.
#[deprecated(
    since = "0.2.0",
    note = "no trait of this crate returns it any more: `A2aService` has one `call` method and `AgentExecutor`'s \
            methods are plain `async fn`s (CHANGELOG.md)"
)]
pub type Call<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T>> + Send + 'a>>;

/// The events of a streaming operation, in order (spec 3.5.2). The stream ends after a terminal
/// (or, for SendStreamingMessage, interrupted) state; an `Err` item ends it abnormally.
pub type EventStream = BoxStream<'static, Result<StreamResponse>>;

/// The abstract A2A service (spec 3.1). Errors found before a stream starts (validation, unknown
/// task, capabilities) are returned as `Err` from the call itself, so that bindings can answer
/// them as ordinary error responses.
///
/// Implement [`call`](Self::call); the typed methods are its callers' forms and are not meant to
/// be overridden (a layer around a service calls the inner service's `call`, so an override would
/// be skipped by it).
///
/// ```
/// use a2a_core::{A2aService, CallContext, Request, Response, Result};
///
/// /// A layer: logs each operation, then hands the call on.
/// struct Logged<S>(S);
///
/// #[async_trait::async_trait]
/// impl<S: A2aService> A2aService for Logged<S> {
///     async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
///         println!("{}", request.operation());
///         self.0.call(ctx, request).await
///     }
/// }
/// ```
#[async_trait]
pub trait A2aService: Send + Sync + 'static {
    /// Runs one operation: `request` says which, the response carries its result.
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response>;

    /// 3.1.1: send a message; the reply is a Task or a Message.
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        self.call(ctx, Request::SendMessage(request)).await?.try_into()
    }

    /// 3.1.2: send a message and stream the task's events (or the single reply Message).
    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        self.call(ctx, Request::SendStreamingMessage(request)).await?.try_into()
    }

    /// 3.1.3: the current state of a task.
    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        self.call(ctx, Request::GetTask(request)).await?.try_into()
    }

    /// 3.1.4: tasks matching filters, newest update first, with cursor pagination.
    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        self.call(ctx, Request::ListTasks(request)).await?.try_into()
    }

    /// 3.1.5: cancel a task; returns its updated state.
    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        self.call(ctx, Request::CancelTask(request)).await?.try_into()
    }

    /// 3.1.6: stream a task's events, starting with the Task itself.
    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        self.call(ctx, Request::SubscribeToTask(request)).await?.try_into()
    }

    /// 3.1.7: register a webhook for a task.
    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        self.call(ctx, Request::CreateTaskPushNotificationConfig(request)).await?.try_into()
    }

    /// 3.1.8: one webhook registration of a task.
    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        self.call(ctx, Request::GetTaskPushNotificationConfig(request)).await?.try_into()
    }

    /// 3.1.9: the webhook registrations of a task.
    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        self.call(ctx, Request::ListTaskPushNotificationConfigs(request)).await?.try_into()
    }

    /// 3.1.10: remove a webhook registration (idempotent).
    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        self.call(ctx, Request::DeleteTaskPushNotificationConfig(request)).await?.try_into()
    }

    /// 3.1.11: the extended agent card for an authenticated caller.
    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        self.call(ctx, Request::GetExtendedAgentCard(request)).await?.try_into()
    }
}
