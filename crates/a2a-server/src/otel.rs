//! OpenTelemetry traces (feature `otel`). The server's `tracing` spans become OpenTelemetry spans
//! through `tracing-opentelemetry` (whoever installs the subscriber adds its layer: the binary
//! does with `--otlp-endpoint`):
//!
//! - the request span of [`request_id`](crate::request_id), one per HTTP request or gRPC call,
//!   is the SERVER span: semantic conventions' `http.request.method`, `url.path`,
//!   `http.response.status_code` (gRPC: `rpc.system=grpc` too), and `a2a.request_id`. Its parent
//!   is the W3C trace context of the request's `traceparent` / `tracestate` headers (gRPC:
//!   metadata), so a caller's trace continues here;
//! - inside it, one span per A2A operation, named `lf.a2a.v1.A2AService/{method}`, with
//!   `rpc.service`, `rpc.method`, `rpc.system` (`grpc` or `jsonrpc`; none for HTTP+JSON) and
//!   A2A's own: `a2a.method`, `a2a.binding`, `a2a.protocol_version`, `a2a.task_id`,
//!   `a2a.context_id` (from the request, or the reply of a SendMessage), `a2a.outcome`; an
//!   error sets `error.type` to the outcome, and a server fault (`INTERNAL_ERROR`) marks the span's
//!   status as an error. Never message content.
//!
//! - the execution of a request runs in its span, and the push notifications its events cause
//!   carry its W3C trace context (`traceparent`, `tracestate`) to the webhook, stored with them in
//!   the outbox: core reads the context through [`current_trace`] ([`a2a_core::trace`]).
//! - our clients add the current context to their outgoing calls
//!   (`ServiceParams::with_current_trace`), so a chain of agents is one trace.

use a2a_core::{Binding, CallContext, Operation};
use a2a_proto::v1::{send_message_response, SendMessageResponse};
use opentelemetry::propagation::{Extractor, TextMapPropagator};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use tracing::field::Empty;
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// The gRPC service name, the `rpc.service` of every operation (spec 10).
const SERVICE: &str = "lf.a2a.v1.A2AService";

/// Headers as an OpenTelemetry [`Extractor`].
struct Headers<'a>(&'a http::HeaderMap);

impl Extractor for Headers<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(http::HeaderName::as_str).collect()
    }
}

/// The current span's W3C trace context, if it belongs to a trace: what core stores with push
/// notifications ([`a2a_core::trace::set_reader`]).
pub(crate) fn current_trace() -> Option<a2a_core::trace::TraceContext> {
    use opentelemetry::trace::TraceContextExt as _;
    let context = tracing::Span::current().context();
    if !context.span().span_context().is_valid() {
        return None;
    }
    let mut carrier = std::collections::HashMap::new();
    TraceContextPropagator::new().inject_context(&context, &mut carrier);
    Some(a2a_core::trace::TraceContext {
        traceparent: carrier.remove("traceparent")?,
        tracestate: carrier.remove("tracestate").filter(|state| !state.is_empty()),
    })
}

/// The request span: the SERVER span of an HTTP request or gRPC call, child of the caller's
/// W3C trace context when the request carries one.
pub(crate) fn request_span<B>(request: &http::Request<B>, request_id: &str) -> tracing::Span {
    let grpc = request
        .headers()
        .get(http::header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
    let path = request.uri().path();
    // Span names stay few: a gRPC path names the method; an HTTP path holds ids, so only the
    // method names an HTTP span.
    let name = if grpc { path.trim_start_matches('/') } else { request.method().as_str() };
    let span = tracing::error_span!(
        target: "a2a_server::request",
        "request",
        // `Display`, as without `otel` (`crate::request_id`): no `Debug` escaping per char.
        request_id = %request_id,
        otel.name = name,
        otel.kind = "server",
        http.request.method = request.method().as_str(),
        url.path = path,
        rpc.system = if grpc { Some("grpc") } else { None },
        http.response.status_code = Empty,
        a2a.request_id = %request_id,
    );
    if request.headers().contains_key("traceparent") {
        let parent = TraceContextPropagator::new().extract(&Headers(request.headers()));
        // Fails only when the span is disabled (no subscriber wants it): nothing to parent then.
        let _ = span.set_parent(parent);
    }
    span
}

/// Records the response's status on the request span.
pub(crate) fn record_status(span: &tracing::Span, status: http::StatusCode) {
    span.record("http.response.status_code", status.as_u16());
}

/// The span of one A2A operation.
pub(crate) fn operation_span(
    operation: Operation,
    binding: Binding,
    ctx: &CallContext,
    ids: (Option<&str>, Option<&str>),
) -> tracing::Span {
    let rpc_system = match binding {
        Binding::Grpc => Some("grpc"),
        Binding::JsonRpc => Some("jsonrpc"),
        Binding::Rest => None,
    };
    let span = tracing::info_span!(
        target: "a2a_server::operation",
        "a2a.operation",
        otel.name = format!("{SERVICE}/{}", operation.method()),
        otel.kind = "internal",
        otel.status_code = Empty,
        rpc.system = rpc_system,
        rpc.service = SERVICE,
        rpc.method = operation.method(),
        a2a.method = operation.method(),
        a2a.binding = binding.protocol_binding(),
        a2a.protocol_version = ctx.wire_version.as_str(),
        a2a.task_id = Empty,
        a2a.context_id = Empty,
        a2a.outcome = Empty,
        error.type = Empty,
    );
    record_ids(&span, ids);
    span
}

/// Records a task id and a context id, the non-empty ones.
pub(crate) fn record_ids(span: &tracing::Span, (task_id, context_id): (Option<&str>, Option<&str>)) {
    if let Some(id) = task_id.filter(|id| !id.is_empty()) {
        span.record("a2a.task_id", id);
    }
    if let Some(id) = context_id.filter(|id| !id.is_empty()) {
        span.record("a2a.context_id", id);
    }
}

/// Records how the operation ended (`outcome`: `ok`, `cancelled` or an error's name).
pub(crate) fn record_outcome(span: &tracing::Span, outcome: &'static str) {
    span.record("a2a.outcome", outcome);
    if outcome != "ok" {
        span.record("error.type", outcome);
    }
    if outcome == "INTERNAL_ERROR" {
        span.record("otel.status_code", "ERROR");
    }
}

/// The task and context ids of a SendMessage reply (a new task's are known only from it).
pub(crate) fn reply_ids(reply: &SendMessageResponse) -> (Option<&str>, Option<&str>) {
    match &reply.payload {
        Some(send_message_response::Payload::Task(task)) => (Some(&task.id), Some(&task.context_id)),
        Some(send_message_response::Payload::Message(message)) => {
            (Some(&message.task_id), Some(&message.context_id))
        }
        None => (None, None),
    }
}
