//! What an operator sees of a running server, checked on real servers over real HTTP: readiness
//! that follows the task store (PostgreSQL refusing connections, then back), metrics that move by
//! exactly the calls made on each binding (gRPC on a port of its own, an error outcome, open
//! streams and executions), request ids echoed or generated on every binding, and the binary's
//! JSON log lines carrying them (docs/operations.md).

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{A2aService, Binding, CallContext, Error, Operation};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, CancelTaskRequest, GetTaskRequest, Message, SendMessageRequest,
    SubscribeToTaskRequest, Task,
};
use a2a_rest::RestClient;
use a2a_server::metrics::{ExecutionKind, Metrics};
use a2a_server::{RunningServer, Server};
use a2a_store_sql::testing::{admin_url, TestDatabase};
use a2a_store_sql::PostgresStore;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// How long a test waits for something the server does by itself (a hang guard, not a speed
/// assertion).
const PATIENCE: Duration = Duration::from_secs(30);

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

async fn send_task(client: &dyn A2aService, text: &str) -> Task {
    match client.send_message(&ctx(), send(text)).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// Polls `check` until it holds, for at most [`PATIENCE`].
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !check().await {
        assert!(tokio::time::Instant::now() < deadline, "{what}: not within {PATIENCE:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn listener() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.unwrap()
}

/// `GET url`: the status and the body as JSON (`Null` if it is not JSON).
async fn get_json(url: &str) -> (u16, Value) {
    let response = reqwest::get(url).await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// One sample of a scrape: its metric name, labels and value.
type Sample = (String, BTreeMap<String, String>, f64);

/// The samples of an OpenMetrics text (our label values never hold commas or quotes).
fn samples(text: &str) -> Vec<Sample> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("a sample: {line}"));
            let (name, labels) = match series.split_once('{') {
                Some((name, labels)) => (name, labels.trim_end_matches('}')),
                None => (series, ""),
            };
            let labels = labels
                .split(',')
                .filter(|pair| !pair.is_empty())
                .map(|pair| {
                    let (key, value) = pair.split_once('=').unwrap();
                    (key.to_owned(), value.trim_matches('"').to_owned())
                })
                .collect();
            (name.to_owned(), labels, value.parse().unwrap_or_else(|_| panic!("a number: {line}")))
        })
        .collect()
}

/// The sum of the samples of `name` that have all of `labels`.
fn value(samples: &[Sample], name: &str, labels: &[(&str, &str)]) -> f64 {
    samples
        .iter()
        .filter(|(n, l, _)| {
            n == name && labels.iter().all(|(k, v)| l.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|(_, _, v)| v)
        .sum()
}

async fn scrape(url: &str) -> Vec<Sample> {
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"].to_str().unwrap().to_owned();
    assert!(content_type.starts_with("application/openmetrics-text"), "{content_type}");
    let text = response.text().await.unwrap();
    assert!(text.ends_with("# EOF\n"), "a complete scrape");
    samples(&text)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readiness_is_503_while_postgres_refuses_connections_and_200_once_it_is_back() {
    let db = TestDatabase::create("ready").await;
    let name = db.url().parse::<tokio_postgres::Config>().unwrap().get_dbname().unwrap().to_owned();
    let store = Arc::new(PostgresStore::connect(db.url()).await.unwrap());
    let metrics_port = listener().await;
    let metrics_url = format!("http://{}", metrics_port.local_addr().unwrap());
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .task_store(store.clone())
        .push_config_store(store)
        .metrics_listener(metrics_port)
        .spawn(listener().await)
        .await
        .unwrap();
    let base = server.url();
    for url in [&base, &metrics_url] {
        assert_eq!(get_json(&format!("{url}/readyz")).await, (200, json!({"status": "ready"})));
        assert_eq!(get_json(&format!("{url}/healthz")).await, (200, json!({"status": "ok"})));
    }

    // The outage: the database refuses new connections and the server's are ended.
    let (admin, connection) =
        admin_url().parse::<tokio_postgres::Config>().unwrap().connect(tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    admin.batch_execute(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS false")).await.unwrap();
    admin
        .execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", &[&name])
        .await
        .unwrap();
    let unready = json!({"status": "unavailable", "reason": "the task store is unreachable"});
    for url in [&base, &metrics_url] {
        let probe = format!("{url}/readyz");
        eventually("readiness turns 503", || async { get_json(&probe).await == (503, unready.clone()) })
            .await;
        // Alive all the same: nothing to restart.
        assert_eq!(get_json(&format!("{url}/healthz")).await.0, 200);
    }
    assert!(server.metrics().store_errors(a2a_server::metrics::StoreOperation::Ping) > 0);

    admin.batch_execute(&format!("ALTER DATABASE {name} ALLOW_CONNECTIONS true")).await.unwrap();
    for url in [&base, &metrics_url] {
        let probe = format!("{url}/readyz");
        eventually("readiness returns to 200", || async { get_json(&probe).await.0 == 200 }).await;
    }
    // And the server serves again, without a restart.
    let client = JsonRpcClient::new(format!("{base}/"));
    send_task(&client, "hello").await;
    server.shutdown().await.unwrap();
}

/// A server with JSON-RPC and REST on the main port, gRPC on a port of its own, and a metrics
/// port; a client per binding.
struct Env {
    server: RunningServer,
    metrics_url: String,
    clients: Vec<(Binding, Arc<dyn A2aService>)>,
}

async fn start() -> Env {
    let grpc_port = listener().await;
    let grpc_addr = grpc_port.local_addr().unwrap();
    let metrics_port = listener().await;
    let metrics_url = format!("http://{}/metrics", metrics_port.local_addr().unwrap());
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .binding_listener(Binding::Grpc, grpc_port)
        .metrics_listener(metrics_port)
        .spawn(listener().await)
        .await
        .unwrap();
    let base = server.url();
    let clients: Vec<(Binding, Arc<dyn A2aService>)> = vec![
        (Binding::JsonRpc, Arc::new(JsonRpcClient::new(format!("{base}/")))),
        (Binding::Rest, Arc::new(RestClient::new(&base).unwrap())),
        (Binding::Grpc, Arc::new(GrpcClient::connect_lazy(grpc_addr.to_string()).unwrap())),
    ];
    Env { server, metrics_url, clients }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_counters_move_by_exactly_the_calls_made_on_each_binding() {
    let env = start().await;
    let before = scrape(&env.metrics_url).await;
    let before_store = value(&before, "a2a_store_operation_duration_seconds_count", &[]);
    for (binding, client) in &env.clients {
        let task = send_task(client.as_ref(), "hello").await;
        client.get_task(&ctx(), GetTaskRequest { id: task.id, ..Default::default() }).await.unwrap();
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        let error = client.get_task(&ctx(), missing).await.unwrap_err();
        assert!(matches!(error, Error::TaskNotFound { .. }), "{binding}: {error:?}");
    }
    let after = scrape(&env.metrics_url).await;
    let metrics: &Metrics = env.server.metrics();
    for binding in Binding::ALL {
        let b = binding.protocol_binding();
        let delta = |operation: &str, outcome: &str| {
            let labels = [("operation", operation), ("binding", b), ("version", "1.0"), ("outcome", outcome)];
            value(&after, "a2a_requests_total", &labels) - value(&before, "a2a_requests_total", &labels)
        };
        assert_eq!(delta("SendMessage", "ok"), 1.0, "{b}");
        assert_eq!(delta("GetTask", "ok"), 1.0, "{b}");
        assert_eq!(delta("GetTask", "TASK_NOT_FOUND"), 1.0, "{b}");
        let all = |samples: &[Sample]| value(samples, "a2a_requests_total", &[("binding", b)]);
        assert_eq!(all(&after) - all(&before), 3.0, "{b}: three calls, nothing else counted");
        let timed = [("operation", "GetTask"), ("binding", b)];
        assert_eq!(value(&after, "a2a_request_duration_seconds_count", &timed), 2.0, "{b}");
        assert_eq!(
            value(&after, "a2a_request_duration_seconds_bucket", &[("le", "+Inf"), timed[0], timed[1]]),
            2.0
        );
        // In-process, the same figures.
        assert_eq!(metrics.requests(binding, Operation::GetTask, "TASK_NOT_FOUND"), 1, "{b}");
        assert_eq!(metrics.requests(binding, Operation::SendMessage, "ok"), 1, "{b}");
        assert_eq!(metrics.timed_requests(binding, Operation::GetTask), 2, "{b}");
    }
    assert!(
        value(&after, "a2a_store_operation_duration_seconds_count", &[]) > before_store,
        "the store is timed"
    );
    // A 0.3 caller (no A2A-Version, a 0.3 method name) is counted as such (docs/versions.md).
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tasks/get", "params": {"id": "no-such-task"}});
    let reply: Value = reqwest::Client::new()
        .post(format!("{}/", env.server.url()))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(reply["error"].is_object(), "{reply}");
    let labels =
        [("operation", "GetTask"), ("binding", "JSONRPC"), ("version", "0.3"), ("outcome", "TASK_NOT_FOUND")];
    assert_eq!(value(&scrape(&env.metrics_url).await, "a2a_requests_total", &labels), 1.0);
    // The demo card declares push notifications: their counters are there, at zero.
    assert_eq!(value(&after, "a2a_push_notifications_total", &[("result", "delivered")]), 0.0);
    assert!(after.iter().any(|(name, _, _)| name == "a2a_push_retries_total"));
    assert!(after.iter().any(|(name, _, _)| name == "a2a_push_notifications_queued_total"));
    assert!(after.iter().any(|(name, _, _)| name == "a2a_subscriber_resyncs_total"));

    // The probes are on the main port and on the metrics port, not on gRPC's own port.
    let metrics_base = env.metrics_url.trim_end_matches("/metrics");
    for url in [env.server.url(), metrics_base.to_owned()] {
        assert_eq!(get_json(&format!("{url}/readyz")).await.0, 200, "{url}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_streams_and_executions_are_gauged_until_the_task_is_canceled() {
    let env = start().await;
    let metrics = env.server.metrics().clone();
    for (binding, client) in &env.clients {
        let b = binding.protocol_binding();
        // `wait`: the demo agent works until canceled.
        let mut stream = client.send_streaming_message(&ctx(), send("wait 120")).await.unwrap();
        let first = stream.next().await.expect("a first event").unwrap();
        let task_id = first.task_id().expect("a task event").to_owned();
        let mut subscription = client
            .subscribe_to_task(&ctx(), SubscribeToTaskRequest { id: task_id.clone(), ..Default::default() })
            .await
            .unwrap();
        subscription.next().await.expect("the task, first").unwrap();
        assert_eq!(metrics.open_streams(*binding, Operation::SendStreamingMessage), 1, "{b}");
        assert_eq!(metrics.open_streams(*binding, Operation::SubscribeToTask), 1, "{b}");
        assert_eq!(metrics.active_executions(ExecutionKind::Execute), 1, "{b}");
        let scraped = scrape(&env.metrics_url).await;
        for operation in ["SendStreamingMessage", "SubscribeToTask"] {
            let labels = [("operation", operation), ("binding", b)];
            assert_eq!(value(&scraped, "a2a_open_streams", &labels), 1.0, "{b} {operation}");
        }
        assert_eq!(value(&scraped, "a2a_active_executions", &[("kind", "execute")]), 1.0);

        client.cancel_task(&ctx(), CancelTaskRequest { id: task_id, ..Default::default() }).await.unwrap();
        // Both streams end at the terminal state; the execution returns once canceled.
        let (rest, more) = tokio::time::timeout(PATIENCE, async {
            (stream.collect::<Vec<_>>().await, subscription.collect::<Vec<_>>().await)
        })
        .await
        .expect("the streams end");
        assert!(rest.iter().chain(&more).all(Result::is_ok), "{b}: clean ends");
        eventually("the streams close", || async {
            metrics.open_streams(*binding, Operation::SendStreamingMessage) == 0
                && metrics.open_streams(*binding, Operation::SubscribeToTask) == 0
        })
        .await;
        eventually("the execution ends", || async { metrics.active_executions(ExecutionKind::Execute) == 0 })
            .await;
        assert_eq!(metrics.requests(*binding, Operation::CancelTask, "ok"), 1, "{b}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_its_client_abandons_is_counted_as_cancelled() {
    let env = start().await;
    let (_, grpc) = env.clients.iter().find(|(b, _)| *b == Binding::Grpc).unwrap();
    // A blocking SendMessage on a task that works until canceled: the client gives up waiting,
    // which resets its HTTP/2 stream, and the server drops the call.
    let ctx = ctx();
    let call = grpc.send_message(&ctx, send("wait 120"));
    assert!(tokio::time::timeout(Duration::from_millis(500), call).await.is_err(), "the call blocks");
    let metrics = env.server.metrics().clone();
    eventually("the abandoned call is counted", || async {
        metrics.requests(Binding::Grpc, Operation::SendMessage, "cancelled") == 1
    })
    .await;
    assert_eq!(metrics.requests(Binding::Grpc, Operation::SendMessage, "ok"), 0);
    env.server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_are_echoed_when_sane_and_generated_otherwise_on_every_binding() {
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .spawn(listener().await)
        .await
        .unwrap();
    let base = server.url();
    let http = reqwest::Client::new();
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "no-such-task"}});
    // gRPC: a health check over HTTP/2, with its 5-byte frame of an empty request.
    let h2 = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    let calls = |id: Option<&str>| {
        let with = |request: reqwest::RequestBuilder| match id {
            Some(id) => request.header("x-request-id", id),
            None => request,
        };
        [
            ("JSONRPC", with(http.post(format!("{base}/")).header("A2A-Version", "1.0").json(&rpc))),
            ("HTTP+JSON", with(http.get(format!("{base}/tasks/no-such-task")).header("A2A-Version", "1.0"))),
            (
                "GRPC",
                with(
                    h2.post(format!("{base}/grpc.health.v1.Health/Check"))
                        .header("content-type", "application/grpc")
                        .header("te", "trailers")
                        .body(vec![0u8; 5]),
                ),
            ),
            ("probe", with(http.get(format!("{base}/readyz")))),
        ]
    };
    let echoed = |response: &reqwest::Response| {
        response
            .headers()
            .get("x-request-id")
            .map(|v| v.to_str().unwrap().to_owned())
            .expect("an x-request-id")
    };
    for (name, call) in calls(Some("client-chosen-id.42")) {
        let response = call.send().await.unwrap();
        assert_eq!(echoed(&response), "client-chosen-id.42", "{name}");
    }
    let too_long = "x".repeat(a2a_server::request_id::MAX_LEN + 1);
    for id in [None, Some("has spaces in it"), Some(too_long.as_str())] {
        let mut seen = Vec::new();
        for (name, call) in calls(id) {
            let generated = echoed(&call.send().await.unwrap());
            assert_eq!(generated.len(), 36, "{name}: a UUID, not {id:?}: {generated}");
            assert!(!seen.contains(&generated), "{name}: each request its own id");
            seen.push(generated);
        }
    }
    server.shutdown().await.unwrap();
}

/// Whether a JSON log line was written inside the request with this id.
fn carries(line: &Value, request_id: &str) -> bool {
    line["span"]["request_id"] == request_id
        || line["spans"].as_array().is_some_and(|spans| spans.iter().any(|s| s["request_id"] == request_id))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_log_lines_parse_and_carry_the_request_id_without_message_content() {
    let (server, mut log) = common::ServerProcess::start_logging([
        "--store",
        "memory",
        "--log-format",
        "json",
        "--log",
        "info,a2a_server=debug",
        "--metrics-listen",
        "127.0.0.1:0",
    ])
    .await;
    let metrics_url = server
        .banner
        .iter()
        .find_map(|line| line.strip_prefix("metrics on "))
        .expect("the metrics address is printed")
        .to_owned();
    let secret = "a secret the logs must never hold";
    let send = |id: Option<&str>| {
        let request =
            reqwest::Client::new().post(server.jsonrpc_url()).header("A2A-Version", "1.0").json(&json!({
                "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
                "params": {"message": {"role": "ROLE_USER", "parts": [{"text": secret}], "messageId": "m-1"}}
            }));
        let request = match id {
            Some(id) => request.header("x-request-id", id),
            None => request,
        };
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), 200);
            response.headers()["x-request-id"].to_str().unwrap().to_owned()
        }
    };
    let chosen = send(Some("log-test-7f3a")).await;
    assert_eq!(chosen, "log-test-7f3a");
    let generated = send(None).await;

    let mut found = Vec::new();
    let mut lines = 0;
    tokio::time::timeout(PATIENCE, async {
        while found.len() < 2 {
            let line = log.next_line().await.unwrap().expect("the server logs until it is stopped");
            lines += 1;
            assert!(!line.contains(secret), "message content in the log: {line}");
            let parsed: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
            for field in ["timestamp", "level", "target"] {
                assert!(parsed.get(field).is_some(), "{field} in {line}");
            }
            for id in [&chosen, &generated] {
                if carries(&parsed, id) && parsed["message"] == "A2A call answered" {
                    assert_eq!(parsed["operation"], "SendMessage", "{line}");
                    assert_eq!(parsed["binding"], "JSONRPC", "{line}");
                    assert_eq!(parsed["outcome"], "ok", "{line}");
                    found.push(id.clone());
                }
            }
        }
    })
    .await
    .expect("a log line per request");
    assert!(lines > found.len(), "the startup lines are JSON too");

    let scraped = scrape(&metrics_url).await;
    let labels = [("operation", "SendMessage"), ("binding", "JSONRPC"), ("outcome", "ok")];
    assert_eq!(value(&scraped, "a2a_requests_total", &labels), 2.0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_log_lines_carry_the_request_id_in_the_request_span() {
    // The text format writes the id bare (recorded with `Display`: it is visible ASCII already).
    let (server, mut log) =
        common::ServerProcess::start_logging(["--store", "memory", "--log", "warn,a2a_server=debug"]).await;
    let response = reqwest::Client::new()
        .post(server.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .header("x-request-id", "log-text-5c1d")
        .json(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "no-such-task"}
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(response.headers()["x-request-id"], "log-text-5c1d");
    tokio::time::timeout(PATIENCE, async {
        loop {
            let line = log.next_line().await.unwrap().expect("the server logs until it is stopped");
            if line.contains("A2A call answered") {
                // With `otel` the span carries more fields after the id.
                assert!(line.contains("request{request_id=log-text-5c1d"), "{line}");
                assert!(line.contains(r#"outcome="TASK_NOT_FOUND""#), "{line}");
                break;
            }
        }
    })
    .await
    .expect("the call's log line");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_embedder_serves_the_apps_metrics_router_on_a_listener_of_its_own() {
    let builder = || Server::builder().agent_card(a2a_demo::demo_card()).executor(a2a_demo::DemoAgent);
    let main = listener().await;
    let addr = main.local_addr().unwrap();
    // What app cannot honour is refused, never dropped silently.
    let refused = builder().metrics_listener(listener().await).app(addr).unwrap_err();
    assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput, "{refused}");
    let shadowing = builder().jsonrpc_path("/readyz").app(addr).unwrap_err();
    assert!(shadowing.to_string().contains("probe"), "{shadowing}");

    let app = builder().app(addr).unwrap();
    let metrics_port = listener().await;
    let metrics_url = format!("http://{}/metrics", metrics_port.local_addr().unwrap());
    let (metrics_router, router, stop) = (app.metrics_router(), app.router, app.shutdown.clone());
    tokio::spawn(async move { axum::serve(metrics_port, metrics_router).await });
    tokio::spawn(async move { axum::serve(main, router).await });
    let client = JsonRpcClient::new(format!("http://{addr}/"));
    send_task(&client, "hello").await;
    let labels = [("operation", "SendMessage"), ("binding", "JSONRPC"), ("outcome", "ok")];
    assert_eq!(value(&scrape(&metrics_url).await, "a2a_requests_total", &labels), 1.0);
    assert_eq!(app.metrics.requests(Binding::JsonRpc, Operation::SendMessage, "ok"), 1);
    let probe = metrics_url.replace("/metrics", "/readyz");
    assert_eq!(get_json(&probe).await.0, 200);
    stop.cancel();
    assert_eq!(
        get_json(&probe).await,
        (503, json!({"status": "unavailable", "reason": "the server is shutting down"}))
    );
}
