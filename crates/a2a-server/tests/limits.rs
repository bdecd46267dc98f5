//! The server's limits (`a2a_server::Limits`, `docs/operations.md` "Limits") and its rate limit,
//! over every binding: for each limit, a request exactly at it passes and one just over it is
//! refused with the error of that binding (JSON-RPC, HTTP+JSON, gRPC; in A2A 1.0 and, where the
//! 0.3 surface has the operation, 0.3).
//!
//! Content limits are checked by the handler, so the clients of every binding and version must
//! see `InvalidParams` naming the field and the limit. Transport limits are checked on the wire:
//! raw HTTP/1.1 requests let the tests set every header byte and the pace of a body.

use std::net::SocketAddr;
use std::time::Duration;

use a2a_core::handler::ContentLimits;
use a2a_core::push::DestinationPolicy;
use a2a_core::{A2aService, Binding, CallContext, Error, EventStream, ProtocolVersion};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::pbjson_types::{value::Kind, Struct, Value};
use a2a_proto::v1::stream_response::Payload;
use a2a_proto::v1::{
    send_message_response, CancelTaskRequest, GetTaskRequest, ListTasksRequest, Message, Part,
    SendMessageConfiguration, SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task,
    TaskPushNotificationConfig, TaskState,
};
use a2a_rest::RestClient;
use a2a_server::auth::{ApiKeys, KeyLocation};
use a2a_server::metrics::Limit;
use a2a_server::{Limits, RateLimit, RunningServer, Server};
use futures::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A demo-agent server with `limits` (and a rate limit with API keys `k-alice`, `k-bob`, ...).
async fn start(limits: Limits, rate_limit: Option<RateLimit>) -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut builder = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::allow_all())
        .limits(limits);
    if let Some(limit) = rate_limit {
        let keys = ["alice", "bob", "carol", "dave", "erin", "frank"].into_iter().fold(
            ApiKeys::new("apiKey", KeyLocation::Header(http::HeaderName::from_static("x-api-key"))),
            |keys, who| keys.key(format!("k-{who}"), who),
        );
        builder = builder.layer(keys.layer()).rate_limit(limit);
    }
    builder.spawn(listener).await.unwrap()
}

/// The client of every binding in every version, named for the failure messages.
async fn clients(server: &RunningServer) -> Vec<(String, Box<dyn A2aService>)> {
    let url = server.url();
    let mut clients: Vec<(String, Box<dyn A2aService>)> = Vec::new();
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        for binding in Binding::ALL {
            let client: Box<dyn A2aService> = match binding {
                Binding::JsonRpc => {
                    Box::new(JsonRpcClient::new(format!("{url}/")).with_protocol_version(version))
                }
                Binding::Rest => Box::new(RestClient::new(&url).unwrap().with_protocol_version(version)),
                Binding::Grpc => {
                    Box::new(GrpcClient::connect(url.clone()).await.unwrap().with_protocol_version(version))
                }
            };
            clients.push((format!("{binding:?} {version:?}"), client));
        }
    }
    clients
}

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(message: Message) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(message),
        configuration: Some(SendMessageConfiguration { return_immediately: true, ..Default::default() }),
        ..Default::default()
    }
}

async fn task_of(client: &dyn A2aService, message: Message) -> Task {
    match client.send_message(&ctx(), send(message)).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("a task, got {other:?}"),
    }
}

/// `error` is InvalidParams and its text names `field` and `limit`.
#[track_caller]
fn assert_invalid_params(who: &str, error: &Error, field: &str, limit: &str) {
    let text = error.to_string();
    assert!(
        matches!(error, Error::InvalidParams { .. }) && text.contains(field) && text.contains(limit),
        "{who}: want InvalidParams naming {field} and {limit}, got {error:?}"
    );
}

/// `error` is ResourceExhausted and its text names `limit`.
#[track_caller]
fn assert_exhausted(who: &str, error: &Error, limit: &str) {
    assert!(
        matches!(error, Error::ResourceExhausted { .. }) && error.to_string().contains(limit),
        "{who}: want ResourceExhausted naming {limit}, got {error:?}"
    );
}

fn content(content: ContentLimits) -> Limits {
    Limits { content, ..Limits::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parts_per_message_at_the_limit_pass_and_one_more_is_invalid_params_everywhere() {
    let server =
        start(content(ContentLimits { max_parts_per_message: 3, ..ContentLimits::default() }), None).await;
    let parts = |n: usize| Message::user((0..n).map(|i| Part::text(format!("part {i}"))).collect());
    for (who, client) in clients(&server).await {
        task_of(client.as_ref(), parts(3)).await;
        let error = client.send_message(&ctx(), send(parts(4))).await.unwrap_err();
        assert_invalid_params(&who, &error, "message.parts", "max_parts_per_message");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_at_the_limit_passes_and_one_byte_more_is_invalid_params_everywhere() {
    let server =
        start(content(ContentLimits { max_metadata_bytes: 64, ..ContentLimits::default() }), None).await;
    // {"k":"xx..."} is 8 bytes of JSON around the value.
    let metadata = |size: usize| Struct {
        fields: [("k".to_owned(), Value { kind: Some(Kind::StringValue("x".repeat(size - 8))) })].into(),
    };
    for (who, client) in clients(&server).await {
        let mut at_limit = Message::user_text("hello");
        at_limit.metadata = Some(metadata(64));
        task_of(client.as_ref(), at_limit).await;
        let mut over = Message::user_text("hello");
        over.metadata = Some(metadata(65));
        let error = client.send_message(&ctx(), send(over)).await.unwrap_err();
        assert_invalid_params(&who, &error, "message.metadata", "max_metadata_bytes");
        let request =
            SendMessageRequest { metadata: Some(metadata(65)), ..send(Message::user_text("hello")) };
        let error = client.send_message(&ctx(), request).await.unwrap_err();
        assert_invalid_params(&who, &error, "metadata", "max_metadata_bytes");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_configs_up_to_the_limit_pass_and_one_more_is_invalid_params_everywhere() {
    let limits = content(ContentLimits { max_push_configs_per_task: 2, ..ContentLimits::default() });
    let server = start(limits, None).await;
    let config = |task: &Task, id: &str| TaskPushNotificationConfig {
        task_id: task.id.clone(),
        id: id.into(),
        url: "http://127.0.0.1:9/webhook".into(),
        ..Default::default()
    };
    for (who, client) in clients(&server).await {
        let task = task_of(client.as_ref(), Message::user_text("ask")).await;
        for id in ["a", "b"] {
            client.create_task_push_notification_config(&ctx(), config(&task, id)).await.unwrap();
        }
        let error =
            client.create_task_push_notification_config(&ctx(), config(&task, "c")).await.unwrap_err();
        assert_invalid_params(&who, &error, "taskId", "max_push_configs_per_task");
        // Replacing one of them is no new config.
        client.create_task_push_notification_config(&ctx(), config(&task, "a")).await.unwrap();
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_up_to_the_limit_is_returned_and_asking_for_more_returns_the_most_recent_up_to_it_everywhere()
{
    let server =
        start(content(ContentLimits { max_history_length: 2, ..ContentLimits::default() }), None).await;
    for (who, client) in clients(&server).await {
        // ask, the agent's question, the answer, the agent's greeting: 4 messages of history.
        let task = task_of(client.as_ref(), Message::user_text("ask")).await;
        let answer = Message::user_text("Ada").with_task_id(task.id.clone());
        let request = SendMessageRequest { message: Some(answer), ..Default::default() };
        client.send_message(&ctx(), request).await.unwrap();
        let get = |history_length: Option<i32>| GetTaskRequest {
            id: task.id.clone(),
            history_length,
            ..Default::default()
        };
        let at_limit = client.get_task(&ctx(), get(Some(2))).await.unwrap();
        assert_eq!(at_limit.history.len(), 2, "{who}");
        let unasked = client.get_task(&ctx(), get(None)).await.unwrap();
        assert_eq!(unasked.history.len(), 2, "{who}: without historyLength, the most recent up to the limit");
        assert_eq!(unasked.history, at_limit.history, "{who}");
        // spec 3.2.4: historyLength is an upper bound; above the limit, the most recent up to it.
        let above = client.get_task(&ctx(), get(Some(3))).await.unwrap();
        assert_eq!(above.history, at_limit.history, "{who}: more than the limit is the limit");
        let far_above = client.get_task(&ctx(), get(Some(i32::MAX))).await.unwrap();
        assert_eq!(far_above.history, at_limit.history, "{who}");
        let list = ListTasksRequest { history_length: Some(5), ..Default::default() };
        let page = client.list_tasks(&ctx(), list).await;
        if !who.contains("V0_3") {
            let page = page.unwrap();
            let listed = page.tasks.iter().find(|t| t.id == task.id).expect("the task is listed");
            assert_eq!(listed.history, at_limit.history, "{who}: ListTasks too");
        }
        let reply = client
            .send_message(
                &ctx(),
                SendMessageRequest {
                    message: Some(Message::user_text("hello")),
                    configuration: Some(SendMessageConfiguration {
                        history_length: Some(50),
                        ..Default::default()
                    }),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let Some(send_message_response::Payload::Task(echoed)) = reply.payload else {
            panic!("{who}: the echo answers a task")
        };
        assert!(echoed.history.len() <= 2, "{who}: a send's reply too: {:?}", echoed.history);
    }
    server.shutdown().await.unwrap();

    // The task a SubscribeToTask stream starts with is a read too: with a limit of 0, a task
    // waiting for input (its history: the user's message) starts the stream without history.
    let server =
        start(content(ContentLimits { max_history_length: 0, ..ContentLimits::default() }), None).await;
    for (who, client) in clients(&server).await {
        let open = task_of(client.as_ref(), Message::user_text("ask")).await;
        let mut stream = client.subscribe_to_task(&ctx(), subscribe(&open)).await.unwrap();
        let Some(Ok(StreamResponse { payload: Some(Payload::Task(first)) })) = stream.next().await else {
            panic!("{who}: the stream starts with the task")
        };
        assert_eq!(first.history.len(), 0, "{who}: {first:?}");
        assert_eq!(first.status.map(|s| s.state()), Some(TaskState::InputRequired), "{who}");
        drop(stream);
        client.cancel_task(&ctx(), CancelTaskRequest { id: open.id, ..Default::default() }).await.unwrap();
    }
    server.shutdown().await.unwrap();
}

/// A raw HTTP/1.1 exchange: `head` (request line and headers, without the blank line; the
/// connection is closed after the answer), then `body`. Returns the status, the lower-case
/// header lines and the body.
async fn raw(addr: SocketAddr, head: &str, body: &[u8]) -> (u16, String, String) {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(format!("{head}\r\n\r\n").as_bytes()).await.unwrap();
    stream.write_all(body).await.unwrap();
    read_answer(&mut stream).await
}

async fn read_answer(stream: &mut tokio::net::TcpStream) -> (u16, String, String) {
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), stream.read_to_end(&mut answer))
        .await
        .expect("the server answers and closes the connection")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let (head, body) = answer.split_once("\r\n\r\n").expect("a complete HTTP answer");
    let status = head[9..12].parse().unwrap();
    (status, head.to_ascii_lowercase(), body.to_owned())
}

/// A JSON body padded with spaces to exactly `size` bytes.
fn padded(json: &serde_json::Value, size: usize) -> Vec<u8> {
    let mut body = json.to_string().into_bytes();
    assert!(body.len() <= size);
    body.resize(size, b' ');
    body
}

fn rest_send() -> serde_json::Value {
    serde_json::json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}})
}

fn jsonrpc_get_task() -> serde_json::Value {
    serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "no-such-task"}})
}

fn post(path: &str, body: &[u8], content_type: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nhost: a2a\r\nconnection: close\r\na2a-version: 1.0\r\n\
         content-type: {content_type}\r\ncontent-length: {}",
        body.len()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bodies_at_the_limit_pass_and_one_byte_more_is_refused_in_each_bindings_shape() {
    const LIMIT: usize = 4096;
    let server = start(Limits { max_body_bytes: LIMIT, ..Limits::default() }, None).await;
    let addr = server.addr();

    // HTTP+JSON (1.0 and the 0.3 routes): 413 with the google.rpc.Status body.
    for path in ["/message:send", "/v1/message:send"] {
        let json = if path.starts_with("/v1") {
            serde_json::json!({"message": {"messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}})
        } else {
            rest_send()
        };
        let body = padded(&json, LIMIT);
        let (status, _, answer) = raw(addr, &post(path, &body, "application/json"), &body).await;
        assert_eq!(status, 200, "{path} at the limit: {answer}");
        let body = padded(&json, LIMIT + 1);
        let (status, _, answer) = raw(addr, &post(path, &body, "application/json"), &body).await;
        assert_eq!(status, 413, "{path} over the limit: {answer}");
        assert!(answer.contains("4096"), "{path}: {answer}");
    }

    // JSON-RPC: -32600 with HTTP 200, as the official Python SDK answers.
    let body = padded(&jsonrpc_get_task(), LIMIT);
    let (status, _, answer) = raw(addr, &post("/", &body, "application/json"), &body).await;
    assert_eq!(status, 200);
    assert!(answer.contains("-32001"), "at the limit the call runs (TaskNotFound): {answer}");
    let body = padded(&jsonrpc_get_task(), LIMIT + 1);
    let (status, _, answer) = raw(addr, &post("/", &body, "application/json"), &body).await;
    assert_eq!(status, 200);
    assert!(answer.contains("-32600") && answer.contains("4096"), "{answer}");

    // gRPC: the request message's size; tonic answers OUT_OF_RANGE, which our client reads as
    // Internal with tonic's message.
    let client = GrpcClient::connect(server.url()).await.unwrap();
    let request_of_size = |size: usize| {
        let mut text = "x".repeat(size);
        loop {
            let request =
                SendMessageRequest { message: Some(Message::user_text(text.clone())), ..Default::default() };
            let len = prost::Message::encoded_len(&request);
            match len.cmp(&size) {
                std::cmp::Ordering::Equal => return request,
                std::cmp::Ordering::Greater => text.truncate(text.len() - (len - size)),
                std::cmp::Ordering::Less => text.push('x'),
            }
        }
    };
    client.send_message(&ctx(), request_of_size(LIMIT)).await.unwrap();
    let error = client.send_message(&ctx(), request_of_size(LIMIT + 1)).await.unwrap_err();
    assert!(error.to_string().contains("too large"), "{error:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn urls_at_the_limit_pass_and_one_byte_more_is_414_on_the_http_bindings() {
    const LIMIT: usize = 256;
    let server = start(Limits { max_uri_bytes: LIMIT, ..Limits::default() }, None).await;
    let addr = server.addr();
    let get =
        |path: String| format!("GET {path} HTTP/1.1\r\nhost: a2a\r\nconnection: close\r\na2a-version: 1.0");

    // HTTP+JSON: at the limit the route runs (no such task: 404); one more byte is 414.
    let task_path = |len: usize| format!("/tasks/{}", "t".repeat(len - "/tasks/".len()));
    let (status, _, answer) = raw(addr, &get(task_path(LIMIT)), b"").await;
    assert_eq!(status, 404, "{answer}");
    let (status, _, answer) = raw(addr, &get(task_path(LIMIT + 1)), b"").await;
    assert_eq!(status, 414, "{answer}");
    assert!(
        answer.contains("max_uri_bytes") && answer.contains("\"status\":\"INVALID_ARGUMENT\""),
        "{answer}"
    );

    // JSON-RPC (the query string counts): the JSON-RPC error object, with HTTP 414.
    let body = jsonrpc_get_task().to_string().into_bytes();
    let rpc_path = |len: usize| format!("/?pad={}", "p".repeat(len - "/?pad=".len()));
    let (status, _, answer) = raw(addr, &post(&rpc_path(LIMIT), &body, "application/json"), &body).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.contains("-32001"), "{answer}");
    let (status, _, answer) = raw(addr, &post(&rpc_path(LIMIT + 1), &body, "application/json"), &body).await;
    assert_eq!(status, 414, "{answer}");
    assert!(answer.contains("-32600") && answer.contains("max_uri_bytes"), "{answer}");
    assert_eq!(server.metrics().limit_refusals(Limit::MaxUriBytes), 2);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_at_the_limit_pass_and_one_byte_more_is_431_or_invalid_argument_on_grpc() {
    const LIMIT: usize = 1024;
    let server = start(Limits { max_header_bytes: LIMIT, ..Limits::default() }, None).await;
    let addr = server.addr();
    // Names and values: host a2a (7), connection close (15), a2a-version 1.0 (14), x-pad P.
    let get = |total: usize| {
        let pad = "p".repeat(total - 7 - 15 - 14 - "x-pad".len());
        format!(
            "GET /tasks/no-such-task HTTP/1.1\r\nhost: a2a\r\nconnection: close\r\na2a-version: 1.0\r\nx-pad: {pad}"
        )
    };
    let (status, _, answer) = raw(addr, &get(LIMIT), b"").await;
    assert_eq!(status, 404, "at the limit the route runs: {answer}");
    let (status, _, answer) = raw(addr, &get(LIMIT + 1), b"").await;
    assert_eq!(status, 431, "{answer}");
    assert!(answer.contains("max_header_bytes"), "{answer}");

    // JSON-RPC: the JSON-RPC error object with HTTP 431.
    let body = jsonrpc_get_task().to_string().into_bytes();
    let head = format!("{}\r\nx-pad: {}", post("/", &body, "application/json"), "p".repeat(LIMIT));
    let (status, _, answer) = raw(addr, &head, &body).await;
    assert_eq!(status, 431, "{answer}");
    assert!(answer.contains("-32600") && answer.contains("max_header_bytes"), "{answer}");

    // gRPC: metadata are headers; the status is INVALID_ARGUMENT naming the limit.
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let client = GrpcClient::connect(server.url()).await.unwrap().with_protocol_version(version);
        let get = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        let error = client.get_task(&ctx(), get.clone()).await.unwrap_err();
        assert!(matches!(error, Error::TaskNotFound { .. }), "{version:?}: {error:?}");
        let mut big = ctx();
        big.params.insert("x-pad", "p".repeat(LIMIT));
        let error = client.get_task(&big, get).await.unwrap_err();
        assert_invalid_params(&format!("gRPC {version:?}"), &error, "headers", "max_header_bytes");
    }
    assert_eq!(server.metrics().limit_refusals(Limit::MaxHeaderBytes), 4);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_slower_than_the_read_timeout_is_408_and_the_connection_closes_or_a_grpc_status() {
    let limits = Limits { body_read_timeout: Duration::from_millis(300), ..Limits::default() };
    let server = start(limits, None).await;
    let addr = server.addr();
    for (path, json, shape) in
        [("/message:send", rest_send(), "\"error\":{"), ("/", jsonrpc_get_task(), "\"jsonrpc\":\"2.0\"")]
    {
        // A whole body in time is served.
        let body = json.to_string().into_bytes();
        let (status, _, answer) = raw(addr, &post(path, &body, "application/json"), &body).await;
        assert_eq!(status, 200, "{path}: {answer}");
        // Ten bytes of a hundred, then nothing: the server answers without waiting for more.
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let head = post(path, &[b' '; 100], "application/json");
        stream.write_all(format!("{head}\r\n\r\n").as_bytes()).await.unwrap();
        stream.write_all(&body[..10]).await.unwrap();
        let (status, head, answer) = read_answer(&mut stream).await;
        assert_eq!(status, 408, "{path}: {answer}");
        assert!(head.contains("connection: close"), "{path}: {head}");
        assert!(answer.contains(shape) && answer.contains("body_read_timeout"), "{path}: {answer}");
    }

    // gRPC (HTTP/2): a request message announced as 10 bytes of which none come. The answer is
    // a gRPC status naming the limit, in the trailers-only form.
    let http2 = reqwest::Client::builder().http2_prior_knowledge().build().unwrap();
    let frame_head: Result<_, std::io::Error> = Ok(axum::body::Bytes::from_static(&[0, 0, 0, 0, 10]));
    let stalled = futures::stream::iter([frame_head]).chain(futures::stream::pending());
    let response = http2
        .post(format!("{}/lf.a2a.v1.A2AService/GetTask", server.url()))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(reqwest::Body::wrap_stream(stalled))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["grpc-status"], "3", "INVALID_ARGUMENT: {:?}", response.headers());
    let message = response.headers()["grpc-message"].to_str().unwrap();
    assert!(message.contains("body_read_timeout"), "{message}");
    assert_eq!(server.metrics().limit_refusals(Limit::BodyReadTimeout), 3);
    server.shutdown().await.unwrap();
}

/// Reads `events` to its end (a guard turns a hang into a failure): every item must be Ok.
async fn drain(who: &str, events: EventStream) -> Vec<StreamResponse> {
    let events: Vec<_> = tokio::time::timeout(Duration::from_secs(30), events.collect())
        .await
        .unwrap_or_else(|_| panic!("{who}: the stream ends"));
    events.into_iter().map(|event| event.unwrap_or_else(|e| panic!("{who}: {e:?}"))).collect()
}

fn subscribe(task: &Task) -> SubscribeToTaskRequest {
    SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_over_the_per_task_and_total_limits_are_resource_exhausted_everywhere() {
    let limits = Limits { max_streams: 3, max_subscribers_per_task: 2, ..Limits::default() };
    let server = start(limits, None).await;
    for (who, client) in clients(&server).await {
        let client = client.as_ref();
        let first = task_of(client, Message::user_text("wait")).await;
        let s1 = client.subscribe_to_task(&ctx(), subscribe(&first)).await.unwrap();
        let s2 = client.subscribe_to_task(&ctx(), subscribe(&first)).await.unwrap();
        let error = client.subscribe_to_task(&ctx(), subscribe(&first)).await.err().unwrap();
        assert_exhausted(&who, &error, "max_subscribers_per_task");

        let second = task_of(client, Message::user_text("wait")).await;
        let s3 = client.subscribe_to_task(&ctx(), subscribe(&second)).await.unwrap();
        let streaming = send(Message::user_text("hello"));
        let error = client.send_streaming_message(&ctx(), streaming.clone()).await.err().unwrap();
        assert_exhausted(&who, &error, "max_streams");

        // Streams that end give their places back.
        for task in [&first, &second] {
            let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
            client.cancel_task(&ctx(), cancel).await.unwrap();
        }
        for stream in [s1, s2, s3] {
            drain(&who, stream).await;
        }
        let events = drain(&who, client.send_streaming_message(&ctx(), streaming).await.unwrap()).await;
        assert!(!events.is_empty(), "{who}");
    }
    let metrics = server.metrics();
    assert_eq!(metrics.limit_refusals(Limit::MaxSubscribersPerTask), 6);
    assert_eq!(metrics.limit_refusals(Limit::MaxStreams), 6);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streams_over_the_per_connection_limit_are_resource_exhausted_on_that_connection_only() {
    // gRPC multiplexes every call of a client on one HTTP/2 connection. (An HTTP/1.1 connection
    // carries one stream at a time: our JSON-RPC and REST clients open one per stream.)
    let limits = Limits { max_streams_per_connection: 2, ..Limits::default() };
    let server = start(limits, None).await;
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let who = format!("gRPC {version:?}");
        let client = GrpcClient::connect(server.url()).await.unwrap().with_protocol_version(version);
        let task = task_of(&client, Message::user_text("wait")).await;
        let s1 = client.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap();
        let s2 = client.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap();
        let error = client.subscribe_to_task(&ctx(), subscribe(&task)).await.err().unwrap();
        assert_exhausted(&who, &error, "max_streams_per_connection");
        // Another connection has places of its own.
        let other = GrpcClient::connect(server.url()).await.unwrap().with_protocol_version(version);
        let s3 = other.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap();
        client
            .cancel_task(&ctx(), CancelTaskRequest { id: task.id.clone(), ..Default::default() })
            .await
            .unwrap();
        for stream in [s1, s2, s3] {
            drain(&who, stream).await;
        }
    }
    assert_eq!(server.metrics().limit_refusals(Limit::MaxStreamsPerConnection), 2);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_and_overlong_streams_end_cleanly_everywhere() {
    let idle = Limits { stream_idle_timeout: Some(Duration::from_millis(300)), ..Limits::default() };
    let server = start(idle, None).await;
    for (who, client) in clients(&server).await {
        // A working task sends its snapshot, then nothing: the stream ends without an error.
        let task = task_of(client.as_ref(), Message::user_text("wait")).await;
        let events = drain(&who, client.subscribe_to_task(&ctx(), subscribe(&task)).await.unwrap()).await;
        assert_eq!(events.len(), 1, "{who}: only the snapshot, got {events:?}");
        let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
        client.cancel_task(&ctx(), cancel).await.unwrap();
    }
    server.shutdown().await.unwrap();

    let total = Limits { stream_max_duration: Some(Duration::from_millis(300)), ..Limits::default() };
    let server = start(total, None).await;
    for (who, client) in clients(&server).await {
        // 1000 chunks 50 ms apart would take 50 s; the stream ends cleanly well before.
        let request = send(Message::user_text("stream 1000 50"));
        let events = drain(&who, client.send_streaming_message(&ctx(), request).await.unwrap()).await;
        let completed = events.iter().any(|event| {
            matches!(&event.payload, Some(Payload::StatusUpdate(update))
                if update.status.as_ref().is_some_and(|s| s.state() == TaskState::Completed))
        });
        assert!(!completed, "{who}: the stream ended before the task did");
        let task_id = events.iter().find_map(|e| e.task_id().map(str::to_owned)).expect("a task id");
        client.cancel_task(&ctx(), CancelTaskRequest { id: task_id, ..Default::default() }).await.unwrap();
    }
    server.shutdown().await.unwrap();
}

fn as_key(key: &str) -> CallContext {
    let mut ctx = ctx();
    ctx.params.insert("x-api-key", key);
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_burst_passes_then_429_with_retry_after_and_principals_are_independent() {
    // One call a minute: nothing refills while the test runs.
    let limit = RateLimit { per_second: 1.0 / 60.0, burst: 3 };
    let server = start(Limits::default(), Some(limit)).await;
    let principals = ["alice", "bob", "carol", "dave", "erin", "frank"];
    for ((who, client), principal) in clients(&server).await.into_iter().zip(principals) {
        let key = as_key(&format!("k-{principal}"));
        let get = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        for _ in 0..3 {
            let error = client.get_task(&key, get.clone()).await.unwrap_err();
            assert!(matches!(error, Error::TaskNotFound { .. }), "{who}: within the burst: {error:?}");
        }
        let error = client.get_task(&key, get.clone()).await.unwrap_err();
        assert_exhausted(&who, &error, "rate limit");
    }
    assert_eq!(server.metrics().limit_refusals(Limit::RateLimit), 6);
    assert!(server.metrics().render().contains("a2a_limit_refusals_total{limit=\"rate_limit\"} 6"));
    server.shutdown().await.unwrap();
    // Each principal spent its own burst: a fresh one still has all of it.
    let fresh = RateLimit { per_second: 1.0 / 60.0, burst: 1 };
    let server = start(Limits::default(), Some(fresh)).await;
    let addr = server.addr();
    let get = |key: &str| {
        format!(
            "GET /tasks/no-such-task HTTP/1.1\r\nhost: a2a\r\nconnection: close\r\na2a-version: 1.0\r\nx-api-key: {key}"
        )
    };
    let (status, _, answer) = raw(addr, &get("k-alice"), b"").await;
    assert_eq!(status, 404, "{answer}");
    let (status, head, answer) = raw(addr, &get("k-alice"), b"").await;
    assert_eq!(status, 429, "{answer}");
    let retry_after: u64 = head
        .lines()
        .find_map(|line| line.strip_prefix("retry-after: "))
        .expect("a Retry-After header")
        .trim()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    assert!(answer.contains("RESOURCE_EXHAUSTED"), "{answer}");
    let (status, _, answer) = raw(addr, &get("k-bob"), b"").await;
    assert_eq!(status, 404, "bob has a bucket of his own: {answer}");

    // JSON-RPC: 429 with Retry-After and the JSON-RPC error object (-32012).
    let body = jsonrpc_get_task().to_string().into_bytes();
    let head = format!("{}\r\nx-api-key: k-carol", post("/", &body, "application/json"));
    let (status, _, _) = raw(addr, &head, &body).await;
    assert_eq!(status, 200);
    let (status, head, answer) = raw(addr, &head, &body).await;
    assert_eq!(status, 429, "{answer}");
    assert!(head.contains("retry-after: "), "{head}");
    assert!(answer.contains("-32012") && answer.contains("RESOURCE_EXHAUSTED"), "{answer}");
    server.shutdown().await.unwrap();
}

/// The deepest nesting of objects and arrays in `value` (a scalar is 0, `{}` is 1).
fn depth(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Object(members) => 1 + members.values().map(depth).max().unwrap_or(0),
        serde_json::Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// `request` with the metadata of its message (at `root` + `/message`) nested so that the
/// SendMessageRequest at `root` is `total` deep.
fn nested_to(mut request: serde_json::Value, root: &str, total: usize) -> serde_json::Value {
    let pointer = format!("{root}/message/metadata");
    let mut levels = 1;
    loop {
        let mut metadata = serde_json::json!("leaf");
        for _ in 0..levels {
            metadata = serde_json::json!({ "a": metadata });
        }
        *request.pointer_mut(&pointer).unwrap() = metadata;
        match depth(request.pointer(root).unwrap()).cmp(&total) {
            std::cmp::Ordering::Less => levels += 1,
            std::cmp::Ordering::Equal => return request,
            std::cmp::Ordering::Greater => panic!("cannot reach {total}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_nested_to_the_depth_limit_passes_and_one_level_more_is_refused() {
    // a2a_proto::json::MAX_DEPTH: fixed, the depth protobuf can carry (not a setting). It is
    // the depth of the request message: the body on REST, `params` on JSON-RPC.
    const MAX_DEPTH: usize = 32;
    let server = start(Limits::default(), None).await;
    let addr = server.addr();
    let rest = serde_json::json!({"message": {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}], "metadata": {}}});
    let rpc = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": rest.clone()});
    for (path, request, root) in [("/message:send", rest, ""), ("/", rpc, "/params")] {
        let body = nested_to(request.clone(), root, MAX_DEPTH).to_string().into_bytes();
        let (status, _, answer) = raw(addr, &post(path, &body, "application/json"), &body).await;
        assert_eq!(status, 200, "{path} at the limit: {answer}");
        assert!(!answer.contains("\"error\""), "{path} at the limit: {answer}");
        let body = nested_to(request, root, MAX_DEPTH + 1).to_string().into_bytes();
        let (status, _, answer) = raw(addr, &post(path, &body, "application/json"), &body).await;
        assert!(answer.contains("nested deeper than 32"), "{path} over the limit: {answer}");
        if path == "/" {
            assert!(status == 200 && answer.contains("-32602"), "{answer}");
        } else {
            assert!(status == 400 && answer.contains("INVALID_ARGUMENT"), "{status} {answer}");
        }
    }
    // gRPC: the handler applies the same depth to what protobuf carries (request 1, message 2,
    // metadata 3, then the nested levels).
    let client = GrpcClient::connect(server.url()).await.unwrap();
    let nested = |levels: usize| {
        let mut value = Value { kind: Some(Kind::StringValue("leaf".into())) };
        for _ in 0..levels {
            value =
                Value { kind: Some(Kind::StructValue(Struct { fields: [("a".to_owned(), value)].into() })) };
        }
        let mut message = Message::user_text("hi");
        message.metadata = Some(Struct { fields: [("a".to_owned(), value)].into() });
        send(message)
    };
    client.send_message(&ctx(), nested(MAX_DEPTH - 3)).await.unwrap();
    let error = client.send_message(&ctx(), nested(MAX_DEPTH - 2)).await.unwrap_err();
    assert_invalid_params("gRPC", &error, "message.metadata", "MAX_DEPTH");
    server.shutdown().await.unwrap();
}

mod common;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_flags_set_the_limits_and_the_rate_limit_keys_on_the_address() {
    let server = common::ServerProcess::start([
        "--store",
        "memory",
        "--max-parts-per-message",
        "2",
        "--max-uri-bytes",
        "64",
        "--rate-limit",
        "1/h",
        "--rate-burst",
        "2",
    ])
    .await;
    let client = JsonRpcClient::new(server.jsonrpc_url());
    let three = Message::user(vec![Part::text("a"), Part::text("b"), Part::text("c")]);
    let error = client.send_message(&ctx(), send(three)).await.unwrap_err();
    assert_invalid_params("--max-parts-per-message", &error, "message.parts", "max_parts_per_message");
    let addr: SocketAddr = server.url.trim_start_matches("http://").parse().unwrap();
    let long = format!("GET /tasks/{} HTTP/1.1\r\nhost: a2a\r\nconnection: close", "t".repeat(64));
    let (status, _, answer) = raw(addr, &long, b"").await;
    assert_eq!(status, 414, "--max-uri-bytes: {answer}");
    // Without authentication, callers are told apart by their address: this one spends the
    // second call of its burst (the 414 was refused before the rate limit), then is refused.
    let get = GetTaskRequest { id: "t".into(), ..Default::default() };
    let error = client.get_task(&ctx(), get.clone()).await.unwrap_err();
    assert!(matches!(error, Error::TaskNotFound { .. }), "{error:?}");
    let error = client.get_task(&ctx(), get).await.unwrap_err();
    assert_exhausted("--rate-limit", &error, "rate limit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_under_load_answers_the_calls_in_flight_and_ends_every_stream_cleanly() {
    let server = start(Limits::default(), None).await;
    let clients: Vec<(String, std::sync::Arc<dyn A2aService>)> =
        clients(&server).await.into_iter().map(|(who, client)| (who, client.into())).collect();
    // A stream open on every binding and version, its first event read.
    let mut streams = Vec::new();
    for (who, client) in &clients {
        let mut stream =
            client.send_streaming_message(&ctx(), send(Message::user_text("wait"))).await.unwrap();
        assert!(matches!(stream.next().await, Some(Ok(_))), "{who}");
        streams.push((who.clone(), stream));
    }
    // Four callers per client sending blocking echo messages back to back until the server is
    // gone; each says when it has had an answer, so the shutdown comes under load.
    let (answered, mut answers) = tokio::sync::mpsc::channel(64);
    let mut callers = Vec::new();
    for (who, client) in &clients {
        for _ in 0..4 {
            let (who, client, answered) = (who.clone(), client.clone(), answered.clone());
            callers.push(tokio::spawn(async move {
                let mut ok = 0usize;
                loop {
                    let request = SendMessageRequest {
                        message: Some(Message::user_text("hello")),
                        ..Default::default()
                    };
                    match client.send_message(&ctx(), request).await {
                        Ok(_) => {
                            ok += 1;
                            if ok == 1 {
                                answered.send(()).await.unwrap();
                            }
                        }
                        Err(error) => return (who, ok, error),
                    }
                }
            }));
        }
    }
    drop(answered);
    for _ in 0..callers.len() {
        answers.recv().await.unwrap();
    }
    tokio::time::timeout(Duration::from_secs(30), server.shutdown())
        .await
        .expect("the shutdown finishes under load")
        .unwrap();
    for caller in callers {
        let (who, ok, error) = caller.await.unwrap();
        // Every call the server took was answered; the first refused one found no server.
        assert!(ok >= 1, "{who}");
        assert!(matches!(error, Error::Transport { .. }), "{who}: after {ok} answers: {error:?}");
    }
    for (who, stream) in streams {
        drain(&who, stream).await;
    }
}

/// An agent that says when it starts a task, then works on it until canceled.
struct Hangs(std::sync::Arc<tokio::sync::Notify>);

#[async_trait::async_trait]
impl a2a_core::AgentExecutor for Hangs {
    async fn execute(
        &self,
        _ctx: a2a_core::RequestContext,
        updater: a2a_core::TaskUpdater,
    ) -> a2a_core::Result<()> {
        updater.start_work(None).await?;
        self.0.notify_one();
        updater.cancelled().await;
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_still_in_flight_at_the_shutdown_timeout_does_not_hold_the_shutdown() {
    let started = std::sync::Arc::new(tokio::sync::Notify::new());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(Hangs(started.clone()))
        .push_destination_policy(DestinationPolicy::allow_all())
        .shutdown_timeout(Duration::from_millis(300))
        .spawn(listener)
        .await
        .unwrap();
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    // A blocking SendMessage waits for a task that never ends by itself.
    let request = SendMessageRequest { message: Some(Message::user_text("work")), ..Default::default() };
    let call = tokio::spawn(async move { client.send_message(&ctx(), request).await });
    started.notified().await;
    tokio::time::timeout(Duration::from_secs(30), server.shutdown())
        .await
        .expect("the shutdown returns once its timeout has passed")
        .unwrap();
    call.abort();
}
