//! OpenTelemetry traces (feature `otel`; `cargo nextest run -p a2a-server --features otel --test
//! otel`): a caller's W3C trace context, sent as `traceparent` on each binding, is the parent of
//! the server's request span, whose child is the operation's span with the rpc.* and A2A
//! attributes of docs/operations.md. Spans are collected by an in-process exporter. The push
//! notifications a traced call causes carry its trace to the webhook.
//!
//! One test in this binary: it installs the process's global `tracing` subscriber.

use std::sync::{Arc, Mutex};

use a2a_core::{A2aService, Binding, CallContext, Error, ServiceParams};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{send_message_response, GetTaskRequest, Message, SendMessageRequest, Task};
use a2a_rest::RestClient;
use a2a_server::Server;
use opentelemetry::trace::{SpanId, SpanKind, TraceId, TracerProvider as _};
use opentelemetry::Value;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SdkTracerProvider, SpanData, SpanExporter};
use tracing_subscriber::layer::SubscriberExt as _;

mod common;

use common::webhook::{kind, Receiver, STREAM_2};

/// Keeps every exported span.
#[derive(Debug, Clone, Default)]
struct Collected(Arc<Mutex<Vec<SpanData>>>);

impl SpanExporter for Collected {
    fn export(&self, batch: Vec<SpanData>) -> impl std::future::Future<Output = OTelSdkResult> + Send {
        self.0.lock().unwrap().extend(batch);
        std::future::ready(Ok(()))
    }
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a Value> {
    span.attributes.iter().find(|kv| kv.key.as_str() == key).map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|v| v.as_str().into_owned())
}

/// An agent that answers by asking the agent at `next` (with our JSON-RPC client, passing no
/// trace context of its own) and relaying its task's state.
struct Relay {
    next: String,
}

#[async_trait::async_trait]
impl a2a_core::AgentExecutor for Relay {
    async fn execute(
        &self,
        _ctx: a2a_core::RequestContext,
        updater: a2a_core::TaskUpdater,
    ) -> a2a_core::Result<()> {
        let request = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
        JsonRpcClient::new(self.next.clone()).send_message(&CallContext::v1(), request).await?;
        updater.complete(None).await
    }
}

/// The caller's span every request continues.
const CALLER_SPAN: &str = "00f067aa0ba902b7";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_trace_continues_through_each_binding_with_a2a_attributes() {
    let collected = Collected::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(collected.clone()).build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    tracing::subscriber::set_global_default(subscriber).unwrap();

    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .push_destination_policy(
            a2a_core::push::DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]),
        )
        .spawn(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let base = server.url();
    let clients: Vec<(Binding, Arc<dyn A2aService>, &str)> = vec![
        (
            Binding::JsonRpc,
            Arc::new(JsonRpcClient::new(format!("{base}/"))),
            "4bf92f3577b34da6a3ce929d0e0e4736",
        ),
        (Binding::Rest, Arc::new(RestClient::new(&base).unwrap()), "5bf92f3577b34da6a3ce929d0e0e4736"),
        (
            Binding::Grpc,
            Arc::new(GrpcClient::connect_lazy(server.addr().to_string()).unwrap()),
            "6bf92f3577b34da6a3ce929d0e0e4736",
        ),
    ];
    let mut tasks = Vec::new();
    for (_, client, trace_id) in &clients {
        // The W3C trace context travels as a service parameter: a header, or gRPC metadata.
        let ctx = CallContext::new(
            ServiceParams::v1().with("traceparent", format!("00-{trace_id}-{CALLER_SPAN}-01")),
        );
        let request = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
        let task: Task = match client.send_message(&ctx, request).await.unwrap().payload {
            Some(send_message_response::Payload::Task(task)) => task,
            other => panic!("a task, got {other:?}"),
        };
        client.get_task(&ctx, GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        assert!(matches!(client.get_task(&ctx, missing).await, Err(Error::TaskNotFound { .. })));
        tasks.push(task);
    }

    // A traced call whose task has a webhook: every notification continues the caller's trace
    // (the execution runs in the request's span; the trace is stored with each notification).
    let hook = Receiver::start(Vec::new()).await;
    let push_trace = "7bf92f3577b34da6a3ce929d0e0e4736";
    let ctx = CallContext::new(
        ServiceParams::v1().with("traceparent", format!("00-{push_trace}-{CALLER_SPAN}-01")),
    );
    let request = SendMessageRequest {
        message: Some(Message::user_text("stream 2")),
        configuration: Some(a2a_proto::v1::SendMessageConfiguration {
            task_push_notification_config: Some(a2a_proto::v1::TaskPushNotificationConfig {
                url: hook.url.clone(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    clients[0].1.send_message(&ctx, request).await.unwrap();
    let notified = hook.wait_delivered(STREAM_2.len()).await;
    assert_eq!(notified.iter().map(|s| kind(&s.body)).collect::<Vec<_>>(), STREAM_2);
    for seen in &notified {
        let traceparent =
            seen.headers.iter().find(|(name, _)| name == "traceparent").map(|(_, v)| v.as_str());
        assert!(
            traceparent.is_some_and(|t| t.starts_with(&format!("00-{push_trace}-"))),
            "{}: the caller's trace, got {traceparent:?}",
            kind(&seen.body)
        );
    }

    // A chain of two agents is one trace: an agent that calls another agent with our client,
    // passing no trace context itself, continues the trace of the call it serves.
    let chain_trace = "8bf92f3577b34da6a3ce929d0e0e4736";
    let front = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(Relay { next: format!("{base}/") })
        .spawn(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let ctx = CallContext::new(
        ServiceParams::v1().with("traceparent", format!("00-{chain_trace}-{CALLER_SPAN}-01")),
    );
    let request = SendMessageRequest { message: Some(Message::user_text("relay")), ..Default::default() };
    JsonRpcClient::new(format!("{}/", front.url())).send_message(&ctx, request).await.unwrap();
    front.shutdown().await.unwrap();

    server.shutdown().await.unwrap();
    provider.force_flush().unwrap();

    let chain = TraceId::from_hex(chain_trace).unwrap();
    // A span ends when its last clone is dropped: an execution, which runs in its request's span,
    // may still be finishing when the reply is back. Wait for the chain's two operations.
    let operations_in = |spans: &[SpanData]| {
        spans
            .iter()
            .filter(|s| s.span_context.trace_id() == chain && s.name == "lf.a2a.v1.A2AService/SendMessage")
            .count()
    };
    for _ in 0..100 {
        if operations_in(&collected.0.lock().unwrap()) >= 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let spans = collected.0.lock().unwrap().clone();
    let sends: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.span_context.trace_id() == chain && s.name == "lf.a2a.v1.A2AService/SendMessage")
        .collect();
    assert_eq!(
        sends.len(),
        2,
        "the front agent's SendMessage and the one it made to the next agent: {sends:#?}"
    );
    let servers: Vec<&SpanData> = spans
        .iter()
        .filter(|s| s.span_context.trace_id() == chain && s.span_kind == SpanKind::Server)
        .collect();
    assert!(
        servers
            .iter()
            .any(|s| s.parent_span_is_remote && s.parent_span_id != SpanId::from_hex(CALLER_SPAN).unwrap()),
        "the next agent's request span is a child of a span of the front agent: {servers:#?}"
    );
    for ((binding, _, trace_id), task) in clients.iter().zip(&tasks) {
        let b = binding.protocol_binding();
        let trace = TraceId::from_hex(trace_id).unwrap();
        let in_trace: Vec<&SpanData> = spans.iter().filter(|s| s.span_context.trace_id() == trace).collect();
        let operation = |method: &str, task_id: &str| {
            in_trace
                .iter()
                .copied()
                .find(|s| {
                    s.name == format!("lf.a2a.v1.A2AService/{method}")
                        && text(s, "a2a.task_id").as_deref() == Some(task_id)
                })
                .unwrap_or_else(|| panic!("{b}: a {method} span for {task_id} in {in_trace:#?}"))
        };
        for (method, task_id, outcome) in [
            ("SendMessage", task.id.as_str(), "ok"),
            ("GetTask", &task.id, "ok"),
            ("GetTask", "no-such-task", "TASK_NOT_FOUND"),
        ] {
            let span = operation(method, task_id);
            assert_eq!(text(span, "rpc.method").as_deref(), Some(method), "{b}");
            assert_eq!(text(span, "rpc.service").as_deref(), Some("lf.a2a.v1.A2AService"), "{b}");
            assert_eq!(text(span, "a2a.method").as_deref(), Some(method), "{b}");
            assert_eq!(text(span, "a2a.binding").as_deref(), Some(b));
            assert_eq!(text(span, "a2a.protocol_version").as_deref(), Some("1.0"), "{b}");
            assert_eq!(text(span, "a2a.outcome").as_deref(), Some(outcome), "{b}");
            let expected_system = match binding {
                Binding::Grpc => Some("grpc"),
                Binding::JsonRpc => Some("jsonrpc"),
                Binding::Rest => None,
            };
            assert_eq!(text(span, "rpc.system").as_deref(), expected_system, "{b}");
            if outcome == "ok" {
                assert_eq!(text(span, "error.type"), None, "{b}");
            } else {
                assert_eq!(text(span, "error.type").as_deref(), Some(outcome), "{b}");
            }
            // Its parent: the request's SERVER span, whose parent is the caller's span.
            let request = in_trace
                .iter()
                .find(|s| s.span_context.span_id() == span.parent_span_id)
                .unwrap_or_else(|| panic!("{b}: the request span of {method}"));
            assert_eq!(request.span_kind, SpanKind::Server, "{b}");
            assert_eq!(request.parent_span_id, SpanId::from_hex(CALLER_SPAN).unwrap(), "{b}");
            assert!(request.parent_span_is_remote, "{b}");
            assert!(text(request, "http.request.method").is_some(), "{b}");
            assert!(text(request, "a2a.request_id").is_some_and(|id| id.len() == 36), "{b}");
            let status = attribute(request, "http.response.status_code").map(|v| v.as_str().into_owned());
            assert!(status.is_some(), "{b}: the response status is recorded");
        }
        // The reply names the new task's context.
        let sent = operation("SendMessage", &task.id);
        assert_eq!(text(sent, "a2a.context_id").as_deref(), Some(task.context_id.as_str()), "{b}");
        assert!(
            spans.iter().all(|s| s.attributes.iter().all(|kv| !kv.value.as_str().contains("hello"))),
            "no message content in any span"
        );
    }
}
