//! [`WithTenant`]: puts an interface's `tenant` into every request that has none (spec 8.3.2:
//! a client that selects an interface with a tenant sends it in every request), on every binding,
//! so callers never think about tenants. [`ClientBuilder::binding_client`](crate::ClientBuilder::binding_client)
//! wraps its binding clients in it.

use std::sync::Arc;

use a2a_core::{A2aService, CallContext, EventStream, Result};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use async_trait::async_trait;

/// An [`A2aService`] that sets `tenant` on each request whose `tenant` is empty, then calls
/// `inner`; a request's own tenant is kept. The [`CallContext`] is passed on unchanged.
#[derive(Clone)]
pub struct WithTenant {
    inner: Arc<dyn A2aService>,
    tenant: String,
}

impl std::fmt::Debug for WithTenant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithTenant").field("tenant", &self.tenant).finish_non_exhaustive()
    }
}

impl WithTenant {
    /// Calls `inner` with `tenant` filled in.
    pub fn new(inner: Arc<dyn A2aService>, tenant: impl Into<String>) -> Self {
        WithTenant { inner, tenant: tenant.into() }
    }

    fn fill(&self, tenant: &mut String) {
        if tenant.is_empty() {
            tenant.clone_from(&self.tenant);
        }
    }
}

#[async_trait]
impl A2aService for WithTenant {
    async fn send_message(
        &self,
        ctx: &CallContext,
        mut request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        self.fill(&mut request.tenant);
        self.inner.send_message(ctx, request).await
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        mut request: SendMessageRequest,
    ) -> Result<EventStream> {
        self.fill(&mut request.tenant);
        self.inner.send_streaming_message(ctx, request).await
    }

    async fn get_task(&self, ctx: &CallContext, mut request: GetTaskRequest) -> Result<Task> {
        self.fill(&mut request.tenant);
        self.inner.get_task(ctx, request).await
    }

    async fn list_tasks(
        &self,
        ctx: &CallContext,
        mut request: ListTasksRequest,
    ) -> Result<ListTasksResponse> {
        self.fill(&mut request.tenant);
        self.inner.list_tasks(ctx, request).await
    }

    async fn cancel_task(&self, ctx: &CallContext, mut request: CancelTaskRequest) -> Result<Task> {
        self.fill(&mut request.tenant);
        self.inner.cancel_task(ctx, request).await
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        mut request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        self.fill(&mut request.tenant);
        self.inner.subscribe_to_task(ctx, request).await
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        mut request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        self.fill(&mut request.tenant);
        self.inner.create_task_push_notification_config(ctx, request).await
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        mut request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        self.fill(&mut request.tenant);
        self.inner.get_task_push_notification_config(ctx, request).await
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        mut request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        self.fill(&mut request.tenant);
        self.inner.list_task_push_notification_configs(ctx, request).await
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        mut request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        self.fill(&mut request.tenant);
        self.inner.delete_task_push_notification_config(ctx, request).await
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        mut request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        self.fill(&mut request.tenant);
        self.inner.get_extended_agent_card(ctx, request).await
    }
}
