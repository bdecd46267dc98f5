//! [`Metered`]: an [`A2aService`] wrapper that counts and times every call of one binding, and
//! keeps the open streams gauge. One wrapper per binding: the binding is known by which router it
//! was given to, the operation by which method is called, the outcome by the result.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use a2a_core::{A2aService, Binding, CallContext, EventStream, Operation, Result};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use async_trait::async_trait;
use futures::{Stream, StreamExt};

use super::{outcome_index, Counters, Metrics, CANCELLED, OK, OUTCOMES};

/// The span of one operation: an OpenTelemetry span with the feature `otel`, nothing without.
#[cfg(feature = "otel")]
type OperationSpan = tracing::Span;
#[cfg(not(feature = "otel"))]
type OperationSpan = ();

/// Counts and times the calls `inner` answers on `binding`.
pub(crate) struct Metered {
    inner: Arc<dyn A2aService>,
    binding: Binding,
    counters: Arc<Counters>,
}

impl Metered {
    pub(crate) fn new(inner: Arc<dyn A2aService>, binding: Binding, metrics: &Metrics) -> Self {
        Metered { inner, binding, counters: Arc::clone(metrics.counters()) }
    }

    /// The span of a call of `operation` about `request`.
    #[cfg(feature = "otel")]
    fn span(
        &self,
        operation: Operation,
        ctx: &CallContext,
        request: &impl crate::otel::Ids,
    ) -> OperationSpan {
        crate::otel::operation_span(operation, self.binding, ctx, request.ids())
    }

    /// No span without the feature `otel`.
    #[cfg(not(feature = "otel"))]
    fn span<R>(&self, _: Operation, _: &CallContext, _: &R) -> OperationSpan {}

    /// Runs one call (in `span`), recording its outcome and duration, or `cancelled` if the
    /// caller drops it.
    async fn call<T>(
        &self,
        operation: Operation,
        ctx: &CallContext,
        span: &OperationSpan,
        call: impl std::future::Future<Output = Result<T>>,
    ) -> Result<T> {
        let mut pending =
            Pending { metered: self, operation, ctx, span, started: Instant::now(), done: false };
        #[cfg(feature = "otel")]
        let result = tracing::Instrument::instrument(call, span.clone()).await;
        #[cfg(not(feature = "otel"))]
        let result = call.await;
        pending.done = true;
        let outcome = match &result {
            Ok(_) => OK,
            Err(error) => outcome_index(error),
        };
        pending.record(outcome);
        result
    }

    /// Counts `stream` as open until it is dropped (ended, or abandoned by its client).
    fn open(&self, operation: Operation, stream: EventStream) -> EventStream {
        self.counters.stream_opened(self.binding, operation);
        OpenStream { inner: stream, counters: Arc::clone(&self.counters), binding: self.binding, operation }
            .boxed()
    }
}

/// A call in flight; dropped before it is `done`, the caller went away (a client that
/// disconnected, a deadline): recorded as `cancelled`.
struct Pending<'a> {
    metered: &'a Metered,
    operation: Operation,
    ctx: &'a CallContext,
    #[cfg_attr(not(feature = "otel"), allow(dead_code))]
    span: &'a OperationSpan,
    started: Instant,
    done: bool,
}

impl Pending<'_> {
    fn record(&self, outcome: usize) {
        let elapsed = self.started.elapsed();
        let metered = self.metered;
        metered.counters.record(metered.binding, self.operation, self.ctx.wire_version, outcome, elapsed);
        #[cfg(feature = "otel")]
        crate::otel::record_outcome(self.span, OUTCOMES[outcome]);
        // Names and timings only: never the message's content or the caller's credentials.
        tracing::debug!(
            operation = self.operation.method(),
            binding = metered.binding.protocol_binding(),
            version = self.ctx.wire_version.as_str(),
            outcome = OUTCOMES[outcome],
            elapsed_us = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX),
            "A2A call answered"
        );
    }
}

impl Drop for Pending<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.record(CANCELLED);
        }
    }
}

/// A stream counted in the open streams gauge while it lives.
struct OpenStream {
    inner: EventStream,
    counters: Arc<Counters>,
    binding: Binding,
    operation: Operation,
}

impl Stream for OpenStream {
    type Item = Result<StreamResponse>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(cx)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl Drop for OpenStream {
    fn drop(&mut self) {
        self.counters.stream_closed(self.binding, self.operation);
    }
}

#[async_trait]
impl A2aService for Metered {
    // Written out rather than with `#[async_trait]`, for the busiest operation: that would move
    // the request into a future of its own, to hand it on at the first poll; here it goes
    // straight into the inner call's future (which does nothing until polled either), and this
    // one holds only that.
    fn send_message<'life0, 'life1, 'async_trait>(
        &'life0 self,
        ctx: &'life1 CallContext,
        request: SendMessageRequest,
    ) -> a2a_core::service::Call<'async_trait, SendMessageResponse>
    where
        'life0: 'async_trait,
        'life1: 'async_trait,
        Self: 'async_trait,
    {
        let operation = Operation::SendMessage;
        let span = self.span(operation, ctx, &request);
        let call = self.inner.send_message(ctx, request);
        Box::pin(async move {
            let result = self.call(operation, ctx, &span, call).await;
            // A new task's ids are known only from the reply.
            #[cfg(feature = "otel")]
            if let Ok(response) = &result {
                crate::otel::record_ids(&span, crate::otel::Ids::ids(response));
            }
            result
        })
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        let operation = Operation::SendStreamingMessage;
        let span = self.span(operation, ctx, &request);
        let stream =
            self.call(operation, ctx, &span, self.inner.send_streaming_message(ctx, request)).await?;
        Ok(self.open(operation, stream))
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        let span = self.span(Operation::GetTask, ctx, &request);
        self.call(Operation::GetTask, ctx, &span, self.inner.get_task(ctx, request)).await
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        let span = self.span(Operation::ListTasks, ctx, &request);
        self.call(Operation::ListTasks, ctx, &span, self.inner.list_tasks(ctx, request)).await
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        let span = self.span(Operation::CancelTask, ctx, &request);
        self.call(Operation::CancelTask, ctx, &span, self.inner.cancel_task(ctx, request)).await
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        let operation = Operation::SubscribeToTask;
        let span = self.span(operation, ctx, &request);
        let stream = self.call(operation, ctx, &span, self.inner.subscribe_to_task(ctx, request)).await?;
        Ok(self.open(operation, stream))
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        let operation = Operation::CreateTaskPushNotificationConfig;
        let span = self.span(operation, ctx, &request);
        let call = self.inner.create_task_push_notification_config(ctx, request);
        self.call(operation, ctx, &span, call).await
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        let operation = Operation::GetTaskPushNotificationConfig;
        let span = self.span(operation, ctx, &request);
        let call = self.inner.get_task_push_notification_config(ctx, request);
        self.call(operation, ctx, &span, call).await
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        let operation = Operation::ListTaskPushNotificationConfigs;
        let span = self.span(operation, ctx, &request);
        let call = self.inner.list_task_push_notification_configs(ctx, request);
        self.call(operation, ctx, &span, call).await
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        let operation = Operation::DeleteTaskPushNotificationConfig;
        let span = self.span(operation, ctx, &request);
        let call = self.inner.delete_task_push_notification_config(ctx, request);
        self.call(operation, ctx, &span, call).await
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        let operation = Operation::GetExtendedAgentCard;
        let span = self.span(operation, ctx, &request);
        self.call(operation, ctx, &span, self.inner.get_extended_agent_card(ctx, request)).await
    }
}
