//! [`Metered`]: an [`A2aService`] layer that counts and times every call of one binding, and
//! keeps the open streams gauge. One layer per binding: the binding is known by which router it
//! was given to, the operation by the request, the outcome by the result.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use a2a_core::{A2aService, Binding, CallContext, EventStream, Operation, Request, Response, Result};
use a2a_proto::v1::StreamResponse;
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

    /// The span of a call of `request`.
    #[cfg(feature = "otel")]
    fn span(&self, ctx: &CallContext, request: &Request) -> OperationSpan {
        crate::otel::operation_span(
            request.operation(),
            self.binding,
            ctx,
            (request.task_id(), request.context_id()),
        )
    }

    /// No span without the feature `otel`.
    #[cfg(not(feature = "otel"))]
    fn span(&self, _: &CallContext, _: &Request) -> OperationSpan {}

    /// Counts `stream` as open until it is dropped (ended, or abandoned by its client).
    fn open(&self, operation: Operation, stream: EventStream) -> EventStream {
        self.counters.stream_opened(self.binding, operation);
        OpenStream { inner: stream, counters: Arc::clone(&self.counters), binding: self.binding, operation }
            .boxed()
    }
}

/// Each call (in its span) recorded with its outcome and duration, or `cancelled` if the caller
/// drops it; a stream counted as open while it lives.
#[async_trait]
impl A2aService for Metered {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        let operation = request.operation();
        let span = self.span(ctx, &request);
        let mut pending =
            Pending { metered: self, operation, ctx, span: &span, started: Instant::now(), done: false };
        let call = self.inner.call(ctx, request);
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
        match result? {
            Response::Stream(events) => Ok(Response::Stream(self.open(operation, events))),
            // A new task's ids are known only from the reply.
            #[cfg(feature = "otel")]
            Response::SendMessage(reply) => {
                crate::otel::record_ids(&span, crate::otel::reply_ids(&reply));
                Ok(Response::SendMessage(reply))
            }
            response => Ok(response),
        }
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
