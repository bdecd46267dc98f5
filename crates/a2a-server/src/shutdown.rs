//! Graceful shutdown for streams: wraps any [`A2aService`] so that every stream it returns ends
//! cleanly (a normal end of stream, not an error) when shutdown begins. Without it an open SSE
//! stream or gRPC server stream would keep the server from ever finishing its graceful shutdown.

use a2a_core::{A2aService, CallContext, EventStream, Result};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use async_trait::async_trait;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

/// An [`A2aService`] whose streams end when `token` is cancelled.
pub(crate) struct EndStreamsOnShutdown {
    pub(crate) inner: std::sync::Arc<dyn A2aService>,
    pub(crate) token: CancellationToken,
}

impl EndStreamsOnShutdown {
    fn bound(&self, stream: EventStream) -> EventStream {
        let token = self.token.clone();
        stream.take_until(async move { token.cancelled_owned().await }).boxed()
    }
}

#[async_trait]
impl A2aService for EndStreamsOnShutdown {
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        self.inner.send_message(ctx, request).await
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        Ok(self.bound(self.inner.send_streaming_message(ctx, request).await?))
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        self.inner.get_task(ctx, request).await
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        self.inner.list_tasks(ctx, request).await
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        self.inner.cancel_task(ctx, request).await
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        Ok(self.bound(self.inner.subscribe_to_task(ctx, request).await?))
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        self.inner.create_task_push_notification_config(ctx, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        self.inner.get_task_push_notification_config(ctx, request).await
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        self.inner.list_task_push_notification_configs(ctx, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        self.inner.delete_task_push_notification_config(ctx, request).await
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        self.inner.get_extended_agent_card(ctx, request).await
    }
}
