//! The metrics through OpenTelemetry (feature `otel`; `cargo nextest run -p a2a-server --features
//! otel --test otel_metrics`): `Metrics::export_to` publishes every family of the Prometheus
//! scrape on a meter, with the same names and labels as attributes: counters and gauges read at
//! collection, the duration histograms recorded as calls end with the scrape's bucket bounds.
//! Collected by the SDK's in-memory exporter; and the binary's OTLP export of both traces and
//! metrics to a collector on loopback.

mod common;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{GetTaskRequest, Message, SendMessageRequest};
use a2a_server::{Metrics, Server};
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData, ResourceMetrics};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};

fn has(attributes: &mut dyn Iterator<Item = &KeyValue>, wanted: &[(&str, &str)]) -> bool {
    let attributes: Vec<(String, String)> =
        attributes.map(|kv| (kv.key.to_string(), kv.value.as_str().into_owned())).collect();
    wanted.iter().all(|(k, v)| attributes.iter().any(|(key, value)| key == k && value == v))
}

/// The value of the counter `name` at the series with `labels`, in the last collection.
fn counter(collected: &[ResourceMetrics], name: &str, labels: &[(&str, &str)]) -> Option<u64> {
    let metric = collected.last()?.scope_metrics().flat_map(|s| s.metrics()).find(|m| m.name() == name)?;
    let AggregatedMetrics::U64(MetricData::Sum(sum)) = metric.data() else { panic!("{name} is a u64 sum") };
    sum.data_points().find(|p| has(&mut p.attributes(), labels)).map(|p| p.value())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_metric_is_published_on_an_opentelemetry_meter() {
    let exporter = InMemoryMetricExporter::default();
    let provider =
        SdkMeterProvider::builder().with_reader(PeriodicReader::builder(exporter.clone()).build()).build();
    let metrics = Metrics::new();
    metrics.export_to(&provider.meter("test"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .metrics(metrics.clone())
        .spawn(listener)
        .await
        .unwrap();
    let clients = common::clients(&server).await;
    for (_, client) in &clients {
        let send = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
        client.send_message(&CallContext::v1(), send).await.unwrap();
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        client.get_task(&CallContext::v1(), missing).await.unwrap_err();
    }
    provider.force_flush().unwrap();
    let collected = exporter.get_finished_metrics().unwrap();

    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        for (version, outcome, operation) in
            [("1.0", "ok", "SendMessage"), ("0.3", "ok", "SendMessage"), ("1.0", "TASK_NOT_FOUND", "GetTask")]
        {
            let labels =
                [("operation", operation), ("binding", binding), ("version", version), ("outcome", outcome)];
            assert_eq!(counter(&collected, "a2a_requests", &labels), Some(1), "{labels:?}");
            // The same figure as the scrape's.
            assert_eq!(
                metrics.requests_in(
                    a2a_core::Binding::ALL.into_iter().find(|b| b.protocol_binding() == binding).unwrap(),
                    a2a_core::Operation::ALL.into_iter().find(|o| o.method() == operation).unwrap(),
                    if version == "1.0" {
                        a2a_core::ProtocolVersion::V1_0
                    } else {
                        a2a_core::ProtocolVersion::V0_3
                    },
                    outcome
                ),
                1
            );
        }
    }
    let last = collected.last().unwrap();
    let find = |name: &str| last.scope_metrics().flat_map(|s| s.metrics()).find(|m| m.name() == name);
    let duration = find("a2a_request_duration").expect("the duration histogram");
    assert_eq!(duration.unit(), "s");
    let AggregatedMetrics::F64(MetricData::Histogram(histogram)) = duration.data() else {
        panic!("a2a_request_duration is an f64 histogram")
    };
    let send = histogram
        .data_points()
        .find(|p| has(&mut p.attributes(), &[("operation", "SendMessage"), ("binding", "GRPC")]))
        .expect("SendMessage over gRPC timed");
    assert_eq!(send.count(), 2, "1.0 and 0.3");
    assert_eq!(send.bounds().count(), 18, "the scrape's bounds");
    assert!(find("a2a_store_operation_duration").is_some());
    for gauge in ["a2a_open_streams", "a2a_active_executions", "a2a_live_tasks"] {
        let metric = find(gauge).unwrap_or_else(|| panic!("{gauge}"));
        assert!(matches!(metric.data(), AggregatedMetrics::I64(MetricData::Gauge(_))), "{gauge}");
    }
    for family in ["a2a_subscriber_resyncs", "a2a_limit_refusals", "a2a_push_notifications"] {
        assert!(find(family).is_some(), "{family}");
    }
    server.shutdown().await.unwrap();
    provider.shutdown().unwrap();
}

/// The binary with `--otlp-endpoint http://.../v1/traces` posts OTLP protobuf to the collector:
/// spans to `/v1/traces` and, at the same base, metrics to `/v1/metrics`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_exports_traces_and_metrics_over_otlp() {
    use std::sync::{Arc, Mutex};
    /// What the collector received: path, content type, body.
    type Posts = Arc<Mutex<Vec<(String, String, Vec<u8>)>>>;
    let received: Posts = Arc::default();
    let seen = Arc::clone(&received);
    let collector = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let seen = Arc::clone(&seen);
        async move {
            let path = request.uri().path().to_owned();
            let content_type = request
                .headers()
                .get("content-type")
                .map(|v| v.to_str().unwrap_or_default().to_owned())
                .unwrap_or_default();
            let body = axum::body::to_bytes(request.into_body(), 1 << 24).await.unwrap().to_vec();
            seen.lock().unwrap().push((path, content_type, body));
            axum::http::StatusCode::OK
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let collector_url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, collector).await.unwrap() });
    let server = common::ServerProcess::start_with_env(
        ["--store", "memory", "--otlp-endpoint", &format!("{collector_url}/v1/traces")],
        &[("OTEL_METRIC_EXPORT_INTERVAL", "200"), ("OTEL_BSP_SCHEDULE_DELAY", "200")],
    )
    .await;
    let client = a2a_jsonrpc::JsonRpcClient::new(server.jsonrpc_url());
    let send = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
    client.send_message(&CallContext::v1(), send).await.unwrap();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let contains = |body: &[u8], needle: &str| body.windows(needle.len()).any(|w| w == needle.as_bytes());
    loop {
        let got = received.lock().unwrap().clone();
        let metrics = got.iter().any(|(path, content_type, body)| {
            path == "/v1/metrics"
                && content_type == "application/x-protobuf"
                && contains(body, "a2a_requests")
        });
        let traces = got.iter().any(|(path, _, body)| path == "/v1/traces" && contains(body, "SendMessage"));
        if metrics && traces {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "within 20 s: metrics {metrics}, traces {traces}; paths {:?}",
            got.iter().map(|(p, ..)| p.clone()).collect::<Vec<_>>()
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
