//! The reference server, started for real on a loopback port, driven over all three bindings with
//! each binding's client (every scenario written once, run per binding) and with raw HTTP/JSON
//! written from the spec's examples (so a bug shared by our client and server cannot hide).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::push::DestinationPolicy;
use a2a_core::{A2aService, CallContext, Error, EventStream, ServiceParams};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, stream_response::Payload, CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, Message, SendMessageConfiguration, SendMessageRequest, StreamResponse,
    SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
};
use a2a_rest::RestClient;
use a2a_server::{RunningServer, Server};
use futures::StreamExt;
use serde_json::{json, Value};

struct Env {
    server: RunningServer,
    bindings: Vec<(&'static str, Arc<dyn A2aService>)>,
}

async fn start() -> Env {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .extended_agent_card(a2a_server::demo::demo_extended_card())
        .executor(a2a_server::demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    let bindings: Vec<(&'static str, Arc<dyn A2aService>)> = vec![
        ("JSONRPC", Arc::new(JsonRpcClient::new(format!("{url}/")))),
        ("HTTP+JSON", Arc::new(RestClient::new(&url).unwrap())),
        ("GRPC", Arc::new(GrpcClient::connect_lazy(server.addr().to_string()).unwrap())),
    ];
    Env { server, bindings }
}

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

fn immediately(mut request: SendMessageRequest) -> SendMessageRequest {
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    request
}

async fn send_task(client: &dyn A2aService, request: SendMessageRequest) -> Task {
    match client.send_message(&ctx(), request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn collect(stream: EventStream) -> Vec<StreamResponse> {
    tokio::time::timeout(Duration::from_secs(20), stream.map(|e| e.unwrap()).collect())
        .await
        .expect("the stream ends")
}

fn state_of(event: &StreamResponse) -> Option<TaskState> {
    match &event.payload {
        Some(Payload::Task(t)) => Some(t.state()),
        Some(Payload::StatusUpdate(u)) => u.status.as_ref().map(|s| s.state()),
        _ => None,
    }
}

#[tokio::test]
async fn send_message_completes_an_echo_task_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let task = send_task(client.as_ref(), send(&format!("hello over {binding}"))).await;
        assert_eq!(task.state(), TaskState::Completed, "{binding}");
        assert_eq!(
            task.artifacts[0].parts[0].as_text(),
            Some(format!("hello over {binding}").as_str()),
            "{binding}"
        );
        assert_eq!(task.history.len(), 1, "{binding}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_direct_reply_is_a_message_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let reply = client.send_message(&ctx(), send("reply pong")).await.unwrap();
        let Some(send_message_response::Payload::Message(message)) = reply.payload else {
            panic!("{binding}: expected a message")
        };
        assert_eq!(message.text(), "pong", "{binding}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn streaming_delivers_the_task_then_every_chunk_in_order_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let events = collect(client.send_streaming_message(&ctx(), send("stream 7")).await.unwrap()).await;
        assert!(
            matches!(events[0].payload, Some(Payload::Task(_))),
            "{binding}: spec 3.1.2 starts with the Task"
        );
        let chunks: Vec<(String, bool, bool)> = events
            .iter()
            .filter_map(|e| match &e.payload {
                Some(Payload::ArtifactUpdate(u)) => Some((
                    u.artifact.as_ref().unwrap().parts[0].as_text().unwrap().to_owned(),
                    u.append,
                    u.last_chunk,
                )),
                _ => None,
            })
            .collect();
        let expected: Vec<_> = (0..7).map(|i| (format!("chunk {i}\n"), i > 0, i == 6)).collect();
        assert_eq!(chunks, expected, "{binding}");
        assert_eq!(state_of(events.last().unwrap()), Some(TaskState::Completed), "{binding}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn multi_turn_keeps_task_and_context_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let asked = send_task(client.as_ref(), send("ask")).await;
        assert_eq!(asked.state(), TaskState::InputRequired, "{binding}");
        let answer = SendMessageRequest {
            message: Some(Message::user_text("Ada").with_task_id(&asked.id)),
            ..Default::default()
        };
        let done = send_task(client.as_ref(), answer).await;
        assert_eq!(
            (done.id.as_str(), done.context_id.as_str()),
            (asked.id.as_str(), asked.context_id.as_str())
        );
        assert_eq!(done.state(), TaskState::Completed, "{binding}");
        assert_eq!(done.artifacts[0].parts[0].as_text(), Some("Hello, Ada!"), "{binding}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn get_list_cancel_and_subscribe_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let running = send_task(client.as_ref(), immediately(send("wait 60"))).await;
        assert!(!running.state().is_terminal(), "{binding}: returnImmediately");

        let got = client
            .get_task(
                &ctx(),
                GetTaskRequest { id: running.id.clone(), history_length: Some(0), ..Default::default() },
            )
            .await
            .unwrap();
        assert!(got.history.is_empty(), "{binding}: historyLength 0 omits history");

        let listed = client
            .list_tasks(
                &ctx(),
                ListTasksRequest { context_id: running.context_id.clone(), ..Default::default() },
            )
            .await
            .unwrap();
        assert_eq!(listed.tasks.iter().map(|t| &t.id).collect::<Vec<_>>(), [&running.id], "{binding}");
        assert_eq!((listed.total_size, listed.next_page_token.as_str()), (1, ""), "{binding}");

        let subscription = client
            .subscribe_to_task(
                &ctx(),
                SubscribeToTaskRequest { id: running.id.clone(), ..Default::default() },
            )
            .await
            .unwrap();
        let canceled = client
            .cancel_task(&ctx(), CancelTaskRequest { id: running.id.clone(), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(canceled.state(), TaskState::Canceled, "{binding}");
        let events = collect(subscription).await;
        assert!(matches!(events[0].payload, Some(Payload::Task(_))), "{binding}: snapshot first");
        assert_eq!(
            state_of(events.last().unwrap()),
            Some(TaskState::Canceled),
            "{binding}: ends at the terminal state"
        );

        let err =
            client.cancel_task(&ctx(), CancelTaskRequest { id: got.id.clone(), ..Default::default() }).await;
        assert_eq!(err.unwrap().state(), TaskState::Canceled, "{binding}: cancel is idempotent");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn list_pages_through_tasks_newest_first_over_every_binding() {
    let env = start().await;
    let mut created = Vec::new();
    for i in 0..5 {
        created.push(send_task(env.bindings[0].1.as_ref(), send(&format!("task {i}"))).await.id);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    created.reverse();
    for (binding, client) in &env.bindings {
        let mut seen = Vec::new();
        let mut token = String::new();
        loop {
            let page = client
                .list_tasks(
                    &ctx(),
                    ListTasksRequest {
                        page_size: Some(2),
                        page_token: token,
                        include_artifacts: Some(true),
                        ..Default::default()
                    },
                )
                .await
                .unwrap();
            assert_eq!(page.total_size, 5, "{binding}");
            assert!(page.tasks.iter().all(|t| !t.artifacts.is_empty()), "{binding}: includeArtifacts");
            seen.extend(page.tasks.into_iter().map(|t| t.id));
            if page.next_page_token.is_empty() {
                break;
            }
            token = page.next_page_token;
        }
        assert_eq!(seen, created, "{binding}");
        let err = client
            .list_tasks(&ctx(), ListTasksRequest { page_size: Some(101), ..Default::default() })
            .await
            .unwrap_err();
        assert_eq!(err.field_violations()[0].field, "pageSize", "{binding}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn push_config_crud_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let task = send_task(client.as_ref(), send("ask")).await;
        let config = TaskPushNotificationConfig {
            task_id: task.id.clone(),
            url: "http://127.0.0.1:9/hook".into(),
            token: "t".into(),
            ..Default::default()
        };
        let created = client.create_task_push_notification_config(&ctx(), config).await.unwrap();
        assert!(!created.id.is_empty(), "{binding}");
        let get = GetTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: created.id.clone(),
            ..Default::default()
        };
        assert_eq!(
            client.get_task_push_notification_config(&ctx(), get.clone()).await.unwrap(),
            created,
            "{binding}"
        );
        let list = ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() };
        assert_eq!(
            client.list_task_push_notification_configs(&ctx(), list.clone()).await.unwrap().configs.len(),
            1
        );
        let delete = DeleteTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: created.id.clone(),
            ..Default::default()
        };
        client.delete_task_push_notification_config(&ctx(), delete.clone()).await.unwrap();
        client.delete_task_push_notification_config(&ctx(), delete).await.expect("idempotent");
        let err = client.get_task_push_notification_config(&ctx(), get).await.unwrap_err();
        assert!(matches!(err, Error::TaskNotFound { .. }), "{binding}: {err:?}");
    }
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn errors_keep_their_kind_over_every_binding() {
    let env = start().await;
    for (binding, client) in &env.bindings {
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        match client.get_task(&ctx(), missing.clone()).await {
            Err(Error::TaskNotFound { task_id }) => assert_eq!(task_id, "no-such-task", "{binding}"),
            other => panic!("{binding}: {other:?}"),
        }
        let done = send_task(client.as_ref(), send("echo")).await;
        let err = client
            .cancel_task(&ctx(), CancelTaskRequest { id: done.id.clone(), ..Default::default() })
            .await
            .unwrap_err();
        assert!(
            matches!(err, Error::TaskNotCancelable { state: TaskState::Completed, .. }),
            "{binding}: {err:?}"
        );
        let err = client
            .subscribe_to_task(&ctx(), SubscribeToTaskRequest { id: done.id.clone(), ..Default::default() })
            .await
            .err()
            .unwrap();
        assert!(matches!(err, Error::UnsupportedOperation { .. }), "{binding}: {err:?}");
        let old = CallContext::new(ServiceParams::new().with("A2A-Version", "9.9"));
        let err = client.get_task(&old, missing.clone()).await.unwrap_err();
        assert!(
            matches!(err, Error::VersionNotSupported { ref version, .. } if version == "9.9"),
            "{binding}: {err:?}"
        );
        let mut empty = send("x");
        empty.message.as_mut().unwrap().parts.clear();
        let err = client.send_message(&ctx(), empty).await.unwrap_err();
        assert_eq!(err.field_violations()[0].field, "message.parts", "{binding}");
        let card =
            client.get_extended_agent_card(&ctx(), GetExtendedAgentCardRequest::default()).await.unwrap();
        assert!(card.description.ends_with("(extended card)"), "{binding}");
        // spec 3.1.11, a complete card: a 1.0 and a 0.3 interface per binding (docs/versions.md).
        assert_eq!(card.supported_interfaces.len(), 6, "{binding}: spec 3.1.11, a complete card");
    }
    env.server.shutdown().await.unwrap();
}

// ---- Push notifications to a real webhook receiver ----

#[tokio::test]
async fn push_notifications_reach_a_real_webhook_with_credentials_in_order() {
    /// What the webhook saw: the Authorization header, the token header, the body.
    type Delivery = (Option<String>, Option<String>, Value);
    let received: Arc<Mutex<Vec<Delivery>>> = Arc::default();
    let sink = received.clone();
    let webhook = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |headers: axum::http::HeaderMap, body: String| {
            let sink = sink.clone();
            async move {
                let header = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::to_owned);
                sink.lock().unwrap().push((
                    header("authorization"),
                    header("x-a2a-notification-token"),
                    serde_json::from_str(&body).unwrap(),
                ));
                axum::http::StatusCode::OK
            }
        }),
    );
    let hook_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let hook_addr = hook_listener.local_addr().unwrap();
    let hook = tokio::spawn(async move { axum::serve(hook_listener, webhook).await });

    let env = start().await;
    let raw = reqwest::Client::new()
        .post(format!("{}/message:send", env.server.url()))
        .header("A2A-Version", "1.0")
        .json(&json!({
            "message": {"messageId": "m-push", "role": "ROLE_USER", "parts": [{"text": "stream 3"}]},
            "configuration": {"taskPushNotificationConfig": {
                "url": format!("http://{hook_addr}/hook"), "token": "tok-1",
                "authentication": {"scheme": "Bearer", "credentials": "secret"}
            }}
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.status(), 200);
    let deliveries = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let got = received.lock().unwrap().clone();
            if got.iter().any(|(_, _, v)| v["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED") {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the webhook receives the completion");
    let kinds: Vec<&str> =
        deliveries.iter().map(|(_, _, v)| v.as_object().unwrap().keys().next().unwrap().as_str()).collect();
    assert_eq!(
        kinds,
        ["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]
    );
    for (auth, token, body) in &deliveries {
        assert_eq!(auth.as_deref(), Some("Bearer secret"));
        assert_eq!(token.as_deref(), Some("tok-1"));
        a2a_proto::json::from_value::<StreamResponse>(body.clone())
            .expect("every payload is a StreamResponse");
    }
    env.server.shutdown().await.unwrap();
    hook.abort();
}

#[tokio::test]
async fn push_to_a_private_address_is_refused_without_the_allowlist() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .executor(a2a_server::demo::DemoAgent)
        .spawn(listener)
        .await
        .unwrap();
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    let task = send_task(&client, send("ask")).await;
    let config = TaskPushNotificationConfig {
        task_id: task.id,
        url: "http://127.0.0.1:1/hook".into(),
        ..Default::default()
    };
    let err = client.create_task_push_notification_config(&ctx(), config).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "url", "spec 13.2: {err:?}");
    server.shutdown().await.unwrap();
}

// ---- Raw HTTP written from the spec ----

#[tokio::test]
async fn raw_jsonrpc_from_the_spec_examples() {
    let env = start().await;
    let http = reqwest::Client::new();
    let rpc = |body: Value| {
        http.post(format!("{}/", env.server.url())).header("A2A-Version", "1.0").json(&body).send()
    };
    // spec 9.4.1 with a 6.1 message.
    let reply: Value = rpc(json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"role": "ROLE_USER", "parts": [{"text": "What is the weather today?"}], "messageId": "msg-uuid"}
    }}))
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    assert_eq!(reply["jsonrpc"], "2.0");
    assert_eq!(reply["id"], 1);
    assert_eq!(reply["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let task_id = reply["result"]["task"]["id"].as_str().unwrap().to_owned();
    // spec 9.4.3
    let got: Value = rpc(json!({"jsonrpc": "2.0", "id": "two", "method": "GetTask", "params": {"id": task_id, "historyLength": 10}}))
        .await.unwrap().json().await.unwrap();
    assert_eq!((got["id"].clone(), got["result"]["id"].clone()), (json!("two"), json!(task_id)));
    // spec 9.5: TaskNotFound is -32001 with an ErrorInfo in error.data.
    let missing: Value =
        rpc(json!({"jsonrpc": "2.0", "id": 2, "method": "GetTask", "params": {"id": "nonexistent-task-id"}}))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
    assert_eq!(missing["error"]["code"], -32001);
    assert_eq!(missing["error"]["data"][0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
    assert_eq!(missing["error"]["data"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(missing["error"]["data"][0]["domain"], "a2a-protocol.org");
    assert_eq!(missing["error"]["data"][0]["metadata"]["taskId"], "nonexistent-task-id");
    // No A2A-Version means 0.3 (spec 3.6.2), which this server does not speak yet; the query
    // parameter form (spec 3.6.1) works.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "ListTasks", "params": {}});
    let no_version: Value =
        http.post(format!("{}/", env.server.url())).json(&body).send().await.unwrap().json().await.unwrap();
    assert_eq!(no_version["error"]["code"], -32009);
    let by_query: Value = http
        .post(format!("{}/?A2A-Version=1.0", env.server.url()))
        .json(&body)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(by_query["result"]["tasks"].is_array(), "{by_query}");
    // spec 9.5 standard errors.
    let parse: Value = http
        .post(format!("{}/", env.server.url()))
        .header("content-type", "application/json")
        .body("{oops")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!((parse["error"]["code"].clone(), parse["id"].clone()), (json!(-32700), Value::Null));
    // `message/send` is A2A 0.3 (docs/versions.md); `tasks/list` is neither a 1.0 nor a 0.3 method.
    let unknown: Value = rpc(json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/list", "params": {}}))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(unknown["error"]["code"], -32601);
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn raw_jsonrpc_streaming_is_sse_of_jsonrpc_responses() {
    let env = start().await;
    let response = reqwest::Client::new()
        .post(format!("{}/", env.server.url()))
        .header("A2A-Version", "1.0")
        .json(&json!({"jsonrpc": "2.0", "id": "s1", "method": "SendStreamingMessage", "params": {
            "message": {"role": "ROLE_USER", "parts": [{"text": "stream 2"}], "messageId": "m"}}}))
        .send()
        .await
        .unwrap();
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let body = response.text().await.unwrap();
    let events: Vec<Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    assert!(events.iter().all(|e| e["jsonrpc"] == "2.0" && e["id"] == "s1"), "spec 9.4.2");
    let kinds: Vec<&str> =
        events.iter().map(|e| e["result"].as_object().unwrap().keys().next().unwrap().as_str()).collect();
    assert_eq!(kinds, ["task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"]);
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn raw_rest_from_the_spec_examples() {
    let env = start().await;
    let http = reqwest::Client::new();
    let url = env.server.url();
    // spec 6.1
    let response = http
        .post(format!("{url}/message:send"))
        .header("A2A-Version", "1.0")
        .header("content-type", "application/a2a+json")
        .body(r#"{"message": {"role": "ROLE_USER", "parts": [{"text": "What is the weather today?"}], "messageId": "msg-uuid"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers()["content-type"].to_str().unwrap().starts_with("application/a2a+json"));
    let sent: Value = response.json().await.unwrap();
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let id = sent["task"]["id"].as_str().unwrap();
    // spec 11.5
    let got: Value = http
        .get(format!("{url}/tasks/{id}?historyLength=0"))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(got["id"], id);
    assert!(got.get("history").is_none(), "historyLength=0 omits history");
    // spec 6.5 list
    let listed: Value = http
        .get(format!(
            "{url}/tasks?contextId={}&pageSize=10&historyLength=3",
            sent["task"]["contextId"].as_str().unwrap()
        ))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        (listed["totalSize"].clone(), listed["pageSize"].clone(), listed["nextPageToken"].clone()),
        (json!(1), json!(10), json!(""))
    );
    assert!(listed["tasks"][0].get("artifacts").is_none(), "spec 3.1.4: artifacts omitted by default");
    // spec 11.6 error body for TaskNotFound
    let missing =
        http.get(format!("{url}/tasks/task-123")).header("A2A-Version", "1.0").send().await.unwrap();
    assert_eq!(missing.status(), 404);
    let body: Value = missing.json().await.unwrap();
    assert_eq!(
        (body["error"]["code"].clone(), body["error"]["status"].clone()),
        (json!(404), json!("NOT_FOUND"))
    );
    assert_eq!(body["error"]["details"][0]["reason"], "TASK_NOT_FOUND");
    // spec 6.5 validation error: 400 with a BadRequest naming the field
    let invalid =
        http.get(format!("{url}/tasks?pageSize=150")).header("A2A-Version", "1.0").send().await.unwrap();
    assert_eq!(invalid.status(), 400);
    let body: Value = invalid.json().await.unwrap();
    let violations = &body["error"]["details"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["@type"] == "type.googleapis.com/google.rpc.BadRequest")
        .unwrap()["fieldViolations"];
    assert_eq!(violations[0]["field"], "pageSize");
    // spec 11.7 SSE: bare StreamResponse objects
    let stream = http
        .post(format!("{url}/message:stream"))
        .header("A2A-Version", "1.0")
        .json(&json!({"message": {"role": "ROLE_USER", "parts": [{"text": "stream 1"}], "messageId": "m2"}}))
        .send()
        .await
        .unwrap();
    assert!(stream.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    let text = stream.text().await.unwrap();
    let first: Value =
        serde_json::from_str(text.lines().find_map(|l| l.strip_prefix("data:")).unwrap().trim()).unwrap();
    assert!(first.get("task").is_some(), "{first}");
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_agent_card_lists_every_interface_and_supports_conditional_requests() {
    let env = start().await;
    let http = reqwest::Client::new();
    let url = format!("{}/.well-known/agent-card.json", env.server.url());
    let response = http.get(&url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let etag = response.headers()["etag"].to_str().unwrap().to_owned();
    assert!(response.headers()["cache-control"].to_str().unwrap().contains("max-age="), "spec 8.6.1");
    let card: Value = response.json().await.unwrap();
    let interfaces: Vec<(String, String, String)> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["protocolBinding"].as_str().unwrap().into(),
                i["url"].as_str().unwrap().into(),
                i["protocolVersion"].as_str().unwrap().into(),
            )
        })
        .collect();
    let base = env.server.url();
    let grpc = env.server.addr().to_string();
    assert_eq!(
        interfaces,
        [
            ("JSONRPC".to_owned(), base.clone(), "1.0".to_owned()),
            ("HTTP+JSON".to_owned(), base.clone(), "1.0".to_owned()),
            ("GRPC".to_owned(), grpc.clone(), "1.0".to_owned()),
            // Every binding also serves A2A 0.3 (docs/versions.md): declared after the 1.0 entries.
            ("JSONRPC".to_owned(), base.clone(), "0.3".to_owned()),
            ("HTTP+JSON".to_owned(), base, "0.3".to_owned()),
            ("GRPC".to_owned(), grpc, "0.3".to_owned()),
        ]
    );
    a2a_proto::json::from_value::<a2a_proto::v1::AgentCard>(card).expect("the card parses as an AgentCard");
    let cached = http.get(&url).header("If-None-Match", &etag).send().await.unwrap();
    assert_eq!(cached.status(), 304);
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn graceful_shutdown_ends_open_streams_cleanly() {
    let env = start().await;
    let client = env.bindings[0].1.clone();
    let grpc = env.bindings[2].1.clone();
    let mut sse = client.send_streaming_message(&ctx(), send("wait 300")).await.unwrap();
    let mut grpc_stream = grpc.send_streaming_message(&ctx(), send("wait 300")).await.unwrap();
    assert!(matches!(sse.next().await, Some(Ok(_))));
    assert!(matches!(grpc_stream.next().await, Some(Ok(_))));
    tokio::time::timeout(Duration::from_secs(10), env.server.shutdown())
        .await
        .expect("shutdown does not wait for streams forever")
        .unwrap();
    let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(5), sse.collect::<Vec<_>>()).await.unwrap();
    assert!(rest.iter().all(Result::is_ok), "the SSE stream ends without an error: {rest:?}");
}

#[tokio::test]
async fn grpc_reflection_and_health_answer_on_the_shared_port() {
    use tonic_health::pb::{health_client::HealthClient, HealthCheckRequest};
    use tonic_reflection::pb::v1::{
        server_reflection_client::ServerReflectionClient, server_reflection_request::MessageRequest,
        server_reflection_response::MessageResponse, ServerReflectionRequest,
    };
    let env = start().await;
    let channel = tonic::transport::Endpoint::from_shared(env.server.url()).unwrap().connect().await.unwrap();
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut responses = ServerReflectionClient::new(channel.clone())
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let Some(MessageResponse::ListServicesResponse(list)) =
        responses.next().await.unwrap().unwrap().message_response
    else {
        panic!("expected a service list")
    };
    let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"lf.a2a.v1.A2AService"), "{names:?}");
    let health = HealthClient::new(channel)
        .check(HealthCheckRequest { service: "lf.a2a.v1.A2AService".into() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(health.status, 1, "SERVING");
    env.server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bindings_can_be_served_on_ports_of_their_own() {
    let main = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let rest_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (grpc_addr, rest_addr) = (grpc_listener.local_addr().unwrap(), rest_listener.local_addr().unwrap());
    let server = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .executor(a2a_server::demo::DemoAgent)
        .binding_listener(a2a_server::Binding::Grpc, grpc_listener)
        .binding_listener(a2a_server::Binding::Rest, rest_listener)
        .spawn(main)
        .await
        .unwrap();
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let url_of = |binding: &str| -> String {
        card["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["protocolBinding"] == binding)
            .unwrap()["url"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert_eq!(url_of("GRPC"), grpc_addr.to_string());
    assert_eq!(url_of("HTTP+JSON"), format!("http://{rest_addr}"));
    assert_eq!(url_of("JSONRPC"), server.url());
    let clients: [(&str, Arc<dyn A2aService>); 3] = [
        ("JSONRPC", Arc::new(JsonRpcClient::new(format!("{}/", url_of("JSONRPC"))))),
        ("HTTP+JSON", Arc::new(RestClient::new(url_of("HTTP+JSON")).unwrap())),
        ("GRPC", Arc::new(GrpcClient::connect_lazy(url_of("GRPC")).unwrap())),
    ];
    for (binding, client) in &clients {
        let task = send_task(client.as_ref(), send("echo")).await;
        assert_eq!(task.state(), TaskState::Completed, "{binding}");
    }
    // REST moved away from the main port.
    let moved = reqwest::Client::new()
        .get(format!("{}/tasks", server.url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(moved.status(), 404);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn json_rpc_at_a_path_is_served_there_with_its_trailing_slash_twin_and_advertised_in_the_card() {
    let server = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .executor(a2a_server::demo::DemoAgent)
        .jsonrpc_path("jsonrpc/")
        .spawn(tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap())
        .await
        .unwrap();
    let url = server.url();
    let card: Value =
        reqwest::get(format!("{url}{}", a2a_server::AGENT_CARD_PATH)).await.unwrap().json().await.unwrap();
    let advertised: Vec<&str> = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["protocolBinding"] == "JSONRPC")
        .map(|i| i["url"].as_str().unwrap())
        .collect();
    let expected = format!("{url}/jsonrpc");
    assert!(!advertised.is_empty() && advertised.iter().all(|u| *u == expected), "{advertised:?}");
    assert_eq!(card["url"], expected.as_str(), "the 0.3 card field names the same endpoint");
    for at in [expected.clone(), format!("{expected}/")] {
        let task = send_task(&JsonRpcClient::new(at.clone()), send("echo")).await;
        assert_eq!(task.state(), TaskState::Completed, "{at}");
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
    let root = reqwest::Client::new().post(format!("{url}/")).json(&body).send().await.unwrap();
    assert_eq!(root.status(), 404, "JSON-RPC is no longer at /");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn into_app_refuses_bindings_on_their_own_port_and_its_shutdown_token_ends_open_streams() {
    let separate = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let main = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let error = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .executor(a2a_server::demo::DemoAgent)
        .binding_listener(a2a_server::Binding::Grpc, separate)
        .into_app(main.local_addr().unwrap())
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{error}");
    assert!(error.to_string().contains("binding_listener"), "{error}");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .executor(a2a_server::demo::DemoAgent)
        .into_app(addr)
        .unwrap();
    assert_eq!(app.recover().await.unwrap(), 0);
    let shutdown = app.shutdown.clone();
    tokio::spawn(async move { axum::serve(listener, app.router).await });
    let client = JsonRpcClient::new(format!("http://{addr}/"));
    let mut stream = client.send_streaming_message(&ctx(), send("wait 60")).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), stream.next()).await.unwrap().unwrap().unwrap();
    shutdown.cancel();
    let rest = tokio::time::timeout(Duration::from_secs(10), stream.collect::<Vec<_>>()).await;
    assert!(rest.is_ok(), "the open stream ends when the app's shutdown token is cancelled");
}
