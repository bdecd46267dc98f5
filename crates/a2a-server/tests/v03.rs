//! A2A 0.3 on the reference server, the server's 0.3 edge and our clients in 0.3 mode: the same
//! port and the same tasks as 1.0, a request told to be 0.3 by its shape and `A2A-Version`, 0.3
//! replies in 0.3's shapes and codes, webhooks notified in the version they were registered with,
//! the union card, the 0.3 proto's non-blocking default; and the 0.3 clients speaking only 0.3 on
//! the wire, reading the details of 0.3 errors and refusing what 0.3 lacks without a request.
//!
//! Requests are raw HTTP/JSON written from the 0.3 spec's examples (JSON-RPC, HTTP+JSON) and the
//! raw 0.3 tonic client (gRPC), so a bug shared by our translation and a client of ours cannot
//! hide. Replies are checked against the 0.3 JSON Schema (`a2a.json`, vendored by
//! `crates/a2a-v03`). What every binding must do in 0.3 (each operation, its errors, streams,
//! push configs) is the conformance suite's, in its 0.3 columns (`tests/conformance`).

mod common;

use std::sync::OnceLock;
use std::time::Duration;

use a2a_core::{A2aService, Binding, CallContext, Error, EventStream, ProtocolVersion};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v0_3;
use a2a_proto::v0_3::grpc::a2a_service_client::A2aServiceClient;
use a2a_proto::v1::{
    CancelTaskRequest, GetExtendedAgentCardRequest, GetTaskRequest, ListTasksRequest, Message,
    SendMessageRequest, StreamResponse, Task, TaskPushNotificationConfig, TaskState,
};
use a2a_rest::RestClient;
use a2a_server::RunningServer;
use common::{reference, spawn, task_of};
use futures::StreamExt;
use serde_json::{json, Value};

const V0_3: ProtocolVersion = ProtocolVersion::V0_3;

async fn start() -> RunningServer {
    spawn(reference()).await
}

/// A validator for the 0.3 JSON Schema definition `definition`.
fn schema(definition: &str) -> jsonschema::Validator {
    static DOC: OnceLock<Value> = OnceLock::new();
    let doc = DOC.get_or_init(|| {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../a2a-v03/tests/fixtures/a2a.json");
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    });
    assert!(doc["definitions"].get(definition).is_some(), "a2a.json has no {definition}");
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$ref": format!("#/definitions/{definition}"),
        "definitions": doc["definitions"],
    });
    jsonschema::draft7::new(&schema).unwrap()
}

#[track_caller]
fn assert_valid_v03(definition: &str, instance: &Value) {
    let errors: Vec<String> =
        schema(definition).iter_errors(instance).map(|e| format!("at {}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "not a valid 0.3 {definition}: {errors:?}\n{instance:#}");
}

/// A 0.3 JSON-RPC call without `A2A-Version` (0.3 clients send none): status and body.
async fn rpc_v03(server: &RunningServer, method: &str, params: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    post_rpc(format!("{}/", server.url()), None, &body).await
}

/// A JSON-RPC request object POSTed to `url`, with `A2A-Version: version` if given: the answer,
/// which comes with HTTP 200 whatever it says (JSON-RPC errors included).
async fn post_rpc(url: String, version: Option<&str>, body: &Value) -> Value {
    let mut request = reqwest::Client::new().post(url).json(body);
    if let Some(version) = version {
        request = request.header("A2A-Version", version);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    response.json().await.unwrap()
}

/// The JSON payloads of an SSE body's `data:` lines.
async fn sse_data(response: reqwest::Response) -> Vec<Value> {
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = tokio::time::timeout(Duration::from_secs(20), response.text())
        .await
        .expect("the 0.3 stream ends after its final event")
        .unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect()
}

fn user_message_v03(text: &str) -> Value {
    json!({"kind": "message", "role": "user", "messageId": uuid(), "parts": [{"kind": "text", "text": text}]})
}

fn uuid() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("msg-{}", N.fetch_add(1, Ordering::Relaxed))
}

/// A task made over 1.0 JSON-RPC.
async fn send_v1(server: &RunningServer, text: &str) -> Task {
    task_of(&JsonRpcClient::new(format!("{}/", server.url())), &CallContext::v1(), text).await
}

// ---- JSON-RPC ----

#[tokio::test]
async fn jsonrpc_message_send_of_the_0_3_spec_example_without_a_version_gets_a_0_3_task() {
    let server = start().await;
    // 0.3 spec 9.2, verbatim but for the text.
    let reply = rpc_v03(
        &server,
        "message/send",
        json!({
            "message": {"role": "user", "parts": [{"kind": "text", "text": "tell me a joke"}],
                        "messageId": "9229e770-767c-417b-a0b0-f0741243c589"},
            "metadata": {}
        }),
    )
    .await;
    assert_valid_v03("SendMessageSuccessResponse", &reply);
    assert_eq!(reply["id"], 7);
    let task = &reply["result"];
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "completed");
    assert_eq!(task["artifacts"][0]["parts"][0], json!({"kind": "text", "text": "tell me a joke"}));
    assert_eq!(task["history"][0]["role"], "user");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn jsonrpc_the_same_operation_in_1_0_shape_with_the_header_gets_the_1_0_reply() {
    let server = start().await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {
        "message": {"role": "ROLE_USER", "parts": [{"text": "hi"}], "messageId": "m-1"}}});
    let reply: Value = post_rpc(format!("{}/", server.url()), Some("1.0"), &body).await;
    assert_eq!(reply["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{reply}");
    assert!(reply["result"].get("kind").is_none());
    // Without the header the PascalCase method is 1.0 asked as 0.3: VersionNotSupported (-32009).
    let reply: Value = post_rpc(format!("{}/", server.url()), None, &body).await;
    assert_eq!(reply["error"]["code"], -32009, "{reply}");
    // The version as a query parameter (spec 3.6.1) makes the same request 1.0 again.
    let reply: Value = post_rpc(format!("{}/?A2A-Version=1.0", server.url()), None, &body).await;
    assert_eq!(reply["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{reply}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn jsonrpc_a_slash_method_is_0_3_even_with_a_1_0_version_header() {
    let server = start().await;
    let body = json!({"jsonrpc": "2.0", "id": "x", "method": "message/send",
                      "params": {"message": user_message_v03("hello")}});
    let reply: Value = post_rpc(format!("{}/", server.url()), Some("1.0"), &body).await;
    assert_valid_v03("SendMessageSuccessResponse", &reply);
    assert_eq!(reply["result"]["status"]["state"], "completed");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_task_created_in_0_3_is_read_in_1_0_and_one_created_in_1_0_is_read_in_0_3() {
    let server = start().await;
    let created = rpc_v03(&server, "message/send", json!({"message": user_message_v03("from 0.3")})).await;
    let id = created["result"]["id"].as_str().unwrap().to_owned();
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    let task =
        client.get_task(&CallContext::v1(), GetTaskRequest { id: id.clone(), ..Default::default() }).await;
    let task = task.unwrap();
    assert_eq!(
        (task.state(), task.artifacts[0].parts[0].as_text()),
        (TaskState::Completed, Some("from 0.3"))
    );
    assert_eq!(task.context_id, created["result"]["contextId"].as_str().unwrap());
    // ListTasks, which 0.3 lacks, lists the 0.3 task over 1.0.
    let listed = client.list_tasks(&CallContext::v1(), ListTasksRequest::default()).await.unwrap();
    assert!(listed.tasks.iter().any(|t| t.id == id), "{listed:?}");

    let task = send_v1(&server, "from 1.0").await;
    let got = rpc_v03(&server, "tasks/get", json!({"id": task.id})).await;
    assert_valid_v03("GetTaskSuccessResponse", &got);
    assert_eq!(got["result"]["id"], task.id.as_str());
    assert_eq!(got["result"]["artifacts"][0]["parts"][0]["text"], "from 1.0");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn jsonrpc_message_stream_in_0_3_carries_kinds_and_ends_with_final() {
    let server = start().await;
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "message/stream",
                      "params": {"message": user_message_v03("stream 3")}});
    let response =
        reqwest::Client::new().post(format!("{}/", server.url())).json(&body).send().await.unwrap();
    let events = sse_data(response).await;
    for event in &events {
        assert_valid_v03("SendStreamingMessageSuccessResponse", event);
        assert_eq!(event["id"], 3);
    }
    let kinds: Vec<&str> = events.iter().map(|e| e["result"]["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"task"), "{kinds:?}");
    assert_eq!(kinds.iter().filter(|k| **k == "artifact-update").count(), 3, "{kinds:?}");
    let last = &events.last().unwrap()["result"];
    assert_eq!((last["kind"].as_str(), last["final"].as_bool()), (Some("status-update"), Some(true)));
    assert_eq!(last["status"]["state"], "completed");
    let finals = events.iter().filter(|e| e["result"]["final"] == true).count();
    assert_eq!(finals, 1, "only the last event is final");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn jsonrpc_errors_come_in_each_version_s_shape_and_codes() {
    let server = start().await;
    let reply = rpc_v03(&server, "tasks/get", json!({"id": "no-such-task"})).await;
    assert_valid_v03("JSONRPCErrorResponse", &reply);
    assert_eq!(reply["error"]["code"], -32001);
    // Invalid 0.3 params name the 0.3 field.
    let bad = json!({"message": {"kind": "message", "role": "user", "messageId": "m",
                                 "parts": [{"kind": "file", "file": {"bytes": "not base64!"}}]}});
    let reply = rpc_v03(&server, "message/send", bad).await;
    assert_eq!(reply["error"]["code"], -32602);
    assert!(reply["error"].to_string().contains("message.parts[0].file.bytes"), "{reply}");
    // 1.0: the same lookup with the header, the ErrorInfo array in `data` (spec 9.5).
    let reply: Value = post_rpc(
        format!("{}/", server.url()),
        Some("1.0"),
        &json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "no-such-task"}}),
    )
    .await;
    assert_eq!(reply["error"]["code"], -32001);
    assert_eq!(reply["error"]["data"][0]["reason"], "TASK_NOT_FOUND", "{reply}");
    // 0.3 has no `tasks/list` JSON-RPC method.
    let reply = rpc_v03(&server, "tasks/list", json!({})).await;
    assert_eq!(reply["error"]["code"], -32601);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn jsonrpc_push_configs_and_the_extended_card_work_in_0_3() {
    let server = start().await;
    let asked = rpc_v03(&server, "message/send", json!({"message": user_message_v03("ask")})).await;
    assert_eq!(asked["result"]["status"]["state"], "input-required");
    let task_id = asked["result"]["id"].as_str().unwrap().to_owned();
    let set = rpc_v03(
        &server,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": task_id, "pushNotificationConfig": {"id": "c1", "url": "http://127.0.0.1:9/hook", "token": "tok"}}),
    )
    .await;
    assert_valid_v03("SetTaskPushNotificationConfigSuccessResponse", &set);
    assert_eq!(set["result"]["pushNotificationConfig"]["id"], "c1");
    let got = rpc_v03(
        &server,
        "tasks/pushNotificationConfig/get",
        json!({"id": task_id, "pushNotificationConfigId": "c1"}),
    )
    .await;
    assert_valid_v03("GetTaskPushNotificationConfigSuccessResponse", &got);
    assert_eq!(got["result"]["pushNotificationConfig"]["token"], "tok");
    let listed = rpc_v03(&server, "tasks/pushNotificationConfig/list", json!({"id": task_id})).await;
    assert_valid_v03("ListTaskPushNotificationConfigSuccessResponse", &listed);
    assert_eq!(listed["result"].as_array().unwrap().len(), 1);
    let deleted = rpc_v03(
        &server,
        "tasks/pushNotificationConfig/delete",
        json!({"id": task_id, "pushNotificationConfigId": "c1"}),
    )
    .await;
    assert_valid_v03("DeleteTaskPushNotificationConfigSuccessResponse", &deleted);
    let card = rpc_v03(&server, "agent/getAuthenticatedExtendedCard", Value::Null).await;
    assert_valid_v03("GetAuthenticatedExtendedCardSuccessResponse", &card);
    assert!(card["result"]["description"].as_str().unwrap().ends_with("(extended card)"));
    server.shutdown().await.unwrap();
}

// ---- HTTP+JSON ----

#[tokio::test]
async fn rest_v1_routes_answer_0_3_protojson_and_share_tasks_with_1_0() {
    let server = start().await;
    let http = reqwest::Client::new();
    let base = server.url();
    // 0.3 spec 3.5.6: `POST /v1/message:send`, body the proto's SendMessageRequest.
    let response = http
        .post(format!("{base}/v1/message:send"))
        .json(&json!({"message": {"messageId": "m-r", "role": "ROLE_USER", "content": [{"text": "over rest"}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let reply: Value = response.json().await.unwrap();
    let task = &reply["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{reply}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "over rest");
    let id = task["id"].as_str().unwrap().to_owned();
    // The same task in 1.0, at the 1.0 route.
    let v1: Value = http
        .get(format!("{base}/tasks/{id}"))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(v1["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(v1["artifacts"][0]["parts"][0]["text"], "over rest");
    // A 1.0 task at the 0.3 route.
    let created = send_v1(&server, "made in 1.0").await;
    let got: Value =
        http.get(format!("{base}/v1/tasks/{}", created.id)).send().await.unwrap().json().await.unwrap();
    assert_eq!(got["id"], created.id.as_str());
    assert_eq!(got["artifacts"][0]["parts"][0]["text"], "made in 1.0");
    assert!(got.get("kind").is_none(), "ProtoJSON has no kind");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rest_v1_streaming_ends_with_the_final_status_update() {
    let server = start().await;
    let response = reqwest::Client::new()
        .post(format!("{}/v1/message:stream", server.url()))
        .json(
            &json!({"message": {"messageId": "m-s", "role": "ROLE_USER", "content": [{"text": "stream 2"}]}}),
        )
        .send()
        .await
        .unwrap();
    let events = sse_data(response).await;
    assert!(events[0].get("task").is_some(), "{events:?}");
    assert_eq!(events.iter().filter(|e| e.get("artifactUpdate").is_some()).count(), 2);
    let last = &events.last().unwrap()["statusUpdate"];
    assert_eq!(
        (last["final"].as_bool(), last["status"]["state"].as_str()),
        (Some(true), Some("TASK_STATE_COMPLETED"))
    );
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn rest_errors_come_in_each_version_s_shape() {
    let server = start().await;
    let http = reqwest::Client::new();
    let response = http.get(format!("{}/v1/tasks/no-such-task", server.url())).send().await.unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], -32001, "{body}");
    assert!(body.get("error").is_none());
    let response = http
        .get(format!("{}/tasks/no-such-task", server.url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["status"], "NOT_FOUND", "{body}");
    // Canceling a finished task: 409 in 0.3 (as a2a-js), -32002.
    let done = send_v1(&server, "done").await;
    let response = http.post(format!("{}/v1/tasks/{}:cancel", server.url(), done.id)).send().await.unwrap();
    assert_eq!(response.status(), 409);
    assert_eq!(response.json::<Value>().await.unwrap()["code"], -32002);
    server.shutdown().await.unwrap();
}

// ---- gRPC ----

async fn grpc_v03(server: &RunningServer) -> A2aServiceClient<tonic::transport::Channel> {
    let channel = tonic::transport::Channel::from_shared(server.url()).unwrap().connect().await.unwrap();
    A2aServiceClient::new(channel)
}

fn proto_message(text: &str) -> v0_3::Message {
    v0_3::Message {
        message_id: uuid(),
        role: v0_3::Role::User as i32,
        content: vec![v0_3::Part { part: Some(v0_3::part::Part::Text(text.into())) }],
        ..Default::default()
    }
}

#[tokio::test]
async fn grpc_a2a_v1_service_serves_0_3_clients_on_the_same_port_and_tasks() {
    let server = start().await;
    let mut client = grpc_v03(&server).await;
    let request =
        v0_3::SendMessageRequest { request: Some(proto_message("over grpc")), ..Default::default() };
    let reply = client.send_message(request).await.unwrap().into_inner();
    let Some(v0_3::send_message_response::Payload::Task(task)) = reply.payload else { panic!("{reply:?}") };
    assert_eq!(task.status.as_ref().unwrap().state, v0_3::TaskState::Completed as i32);
    // The same task over 1.0 JSON-RPC.
    let v1 = JsonRpcClient::new(format!("{}/", server.url()))
        .get_task(&CallContext::v1(), GetTaskRequest { id: task.id.clone(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(v1.artifacts[0].parts[0].as_text(), Some("over grpc"));
    // A 1.0 task over 0.3 gRPC.
    let created = send_v1(&server, "grpc reads me").await;
    let got = client
        .get_task(v0_3::GetTaskRequest { name: format!("tasks/{}", created.id), history_length: 0 })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(got.id, created.id);
    let Some(v0_3::part::Part::Text(text)) = &got.artifacts[0].parts[0].part else { panic!("{got:?}") };
    assert_eq!(text, "grpc reads me");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn grpc_0_3_streams_end_with_final_and_errors_carry_the_0_3_code() {
    let server = start().await;
    let mut client = grpc_v03(&server).await;
    let request = v0_3::SendMessageRequest { request: Some(proto_message("stream 2")), ..Default::default() };
    let mut stream = client.send_streaming_message(request).await.unwrap().into_inner();
    let mut events = Vec::new();
    while let Some(event) =
        tokio::time::timeout(Duration::from_secs(20), stream.message()).await.expect("stream ends").unwrap()
    {
        events.push(event.payload.unwrap());
    }
    assert!(matches!(events[0], v0_3::stream_response::Payload::Task(_)));
    let Some(v0_3::stream_response::Payload::StatusUpdate(last)) = events.last() else {
        panic!("{events:?}")
    };
    assert!(last.r#final);
    assert_eq!(last.status.as_ref().unwrap().state, v0_3::TaskState::Completed as i32);

    let status = client
        .get_task(v0_3::GetTaskRequest { name: "tasks/no-such-task".into(), history_length: 0 })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::NotFound);
    assert_eq!(status.metadata().get("a2a-error").unwrap(), "-32001");
    server.shutdown().await.unwrap();
}

// ---- Push notifications: each webhook in the version it was registered with ----

/// One notification as the webhook received it.
#[derive(Debug)]
struct Delivery {
    path: String,
    headers: axum::http::HeaderMap,
    body: Value,
}

impl Delivery {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// A real webhook receiver on a loopback port: its base URL, what it receives (any path), and the
/// task serving it.
async fn webhook() -> (String, tokio::sync::mpsc::UnboundedReceiver<Delivery>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new().fallback(
        move |uri: axum::http::Uri, headers: axum::http::HeaderMap, body: String| {
            let tx = tx.clone();
            async move {
                let body = serde_json::from_str(&body).expect("a JSON body");
                let _ = tx.send(Delivery { path: uri.path().to_owned(), headers, body });
                axum::http::StatusCode::OK
            }
        },
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let task = tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (url, rx, task)
}

/// The deliveries to each of `paths`, once each has received `n`, in arrival order.
async fn deliveries(
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Delivery>,
    paths: &[&str],
    n: usize,
) -> Vec<Vec<Delivery>> {
    let mut got: Vec<Vec<Delivery>> = paths.iter().map(|_| Vec::new()).collect();
    while got.iter().any(|g| g.len() < n) {
        let delivery = tokio::time::timeout(Duration::from_secs(20), rx.recv())
            .await
            .unwrap_or_else(|_| panic!("{n} notifications per webhook, got {got:?}"))
            .expect("the webhook runs");
        let i = paths.iter().position(|p| *p == delivery.path).unwrap_or_else(|| panic!("{delivery:?}"));
        got[i].push(delivery);
    }
    got
}

/// Checks a notification to a webhook registered over 0.3: the 0.3 JSON `Task` (0.3 spec 9.5),
/// with the 0.3 headers; returns its state.
#[track_caller]
fn v03_task_state(delivery: &Delivery, token: &str) -> String {
    assert_valid_v03("Task", &delivery.body);
    assert_eq!(delivery.body["kind"], "task", "{:?}", delivery.body);
    assert_eq!(delivery.header("content-type"), Some("application/json"));
    assert_eq!(delivery.header("x-a2a-notification-token"), Some(token));
    delivery.body["status"]["state"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn webhooks_set_over_0_3_get_0_3_tasks_and_over_1_0_stream_responses_on_one_task() {
    let (hook, mut received, hook_task) = webhook().await;
    let server = start().await;
    let asked = rpc_v03(&server, "message/send", json!({"message": user_message_v03("ask")})).await;
    assert_eq!(asked["result"]["status"]["state"], "input-required");
    let task_id = asked["result"]["id"].as_str().unwrap().to_owned();
    let set = rpc_v03(
        &server,
        "tasks/pushNotificationConfig/set",
        json!({"taskId": task_id, "pushNotificationConfig": {
            "url": format!("{hook}/v03"), "token": "tok-03",
            "authentication": {"schemes": ["Bearer"], "credentials": "cred-03"}}}),
    )
    .await;
    assert_valid_v03("SetTaskPushNotificationConfigSuccessResponse", &set);
    let v1_config = a2a_proto::v1::TaskPushNotificationConfig {
        task_id: task_id.clone(),
        url: format!("{hook}/v1"),
        token: "tok-1".into(),
        ..Default::default()
    };
    JsonRpcClient::new(format!("{}/", server.url()))
        .create_task_push_notification_config(&CallContext::v1(), v1_config)
        .await
        .unwrap();

    // The 0.3 client answers: WORKING, an artifact, COMPLETED.
    let mut answer = user_message_v03("Ada");
    answer["taskId"] = json!(task_id);
    let done = rpc_v03(&server, "message/send", json!({"message": answer})).await;
    assert_eq!(done["result"]["status"]["state"], "completed", "{done}");

    let got = deliveries(&mut received, &["/v03", "/v1"], 3).await;
    let states: Vec<String> = got[0].iter().map(|d| v03_task_state(d, "tok-03")).collect();
    assert_eq!(states, ["working", "working", "completed"], "the task after each event");
    assert_eq!(got[0][0].body["id"], task_id.as_str());
    assert!(got[0][0].body.get("artifacts").is_none(), "no artifact yet");
    assert_eq!(got[0][1].body["artifacts"][0]["parts"][0]["text"], "Hello, Ada!");
    assert_eq!(got[0][2].body, done["result"], "the last one is the task as tasks/get shows it");
    assert!(got[0].iter().all(|d| d.header("authorization") == Some("Bearer cred-03")));

    let kinds: Vec<&str> =
        got[1].iter().map(|d| d.body.as_object().unwrap().keys().next().unwrap().as_str()).collect();
    assert_eq!(kinds, ["statusUpdate", "artifactUpdate", "statusUpdate"], "spec 4.3.3: the events");
    for delivery in &got[1] {
        a2a_proto::json::from_value::<a2a_proto::v1::StreamResponse>(delivery.body.clone())
            .expect("a 1.0 StreamResponse");
        assert_eq!(delivery.header("content-type"), Some("application/a2a+json"));
        assert_eq!(delivery.header("x-a2a-notification-token"), Some("tok-1"));
    }
    server.shutdown().await.unwrap();
    hook_task.abort();
}

#[tokio::test]
async fn jsonrpc_message_send_with_a_0_3_push_config_gets_the_task_at_every_step() {
    let (hook, mut received, hook_task) = webhook().await;
    let server = start().await;
    // 0.3 spec 9.5, step 1: the config in message/send's configuration.
    let reply = rpc_v03(
        &server,
        "message/send",
        json!({"message": user_message_v03("stream 2"), "configuration": {"pushNotificationConfig": {
            "url": format!("{hook}/hook"), "token": "secure-client-token-for-task-aaa",
            "authentication": {"schemes": ["Bearer"]}}}}),
    )
    .await;
    assert_eq!(reply["result"]["status"]["state"], "completed", "{reply}");
    // The task, WORKING, two chunks, COMPLETED.
    let got = deliveries(&mut received, &["/hook"], 5).await.remove(0);
    let states: Vec<String> =
        got.iter().map(|d| v03_task_state(d, "secure-client-token-for-task-aaa")).collect();
    assert_eq!(states, ["submitted", "working", "working", "working", "completed"]);
    let texts = |d: &Delivery| -> Vec<String> {
        let parts = d.body["artifacts"][0]["parts"].as_array().cloned().unwrap_or_default();
        parts.iter().map(|p| p["text"].as_str().unwrap().to_owned()).collect()
    };
    assert_eq!(texts(&got[2]), ["chunk 0\n"]);
    assert_eq!(texts(&got[3]), ["chunk 0\n", "chunk 1\n"], "the appended chunk is in the task");
    assert_eq!(got[4].body, reply["result"]);
    // A scheme without credentials: nothing to put in an Authorization header.
    assert!(got.iter().all(|d| d.header("authorization").is_none()));
    server.shutdown().await.unwrap();
    hook_task.abort();
}

#[tokio::test]
async fn webhooks_set_over_0_3_rest_and_grpc_get_0_3_tasks_whoever_drives_the_task() {
    let (hook, mut received, hook_task) = webhook().await;
    let server = start().await;
    let task = send_v1(&server, "ask").await;
    let id = task.id.as_str();
    // 0.3 HTTP+JSON: the proto's CreateTaskPushNotificationConfigRequest as ProtoJSON.
    let response = reqwest::Client::new()
        .post(format!("{}/v1/tasks/{id}/pushNotificationConfigs", server.url()))
        .json(&json!({"parent": format!("tasks/{id}"), "configId": "rest", "config": {
            "name": format!("tasks/{id}/pushNotificationConfigs/rest"),
            "pushNotificationConfig": {"url": format!("{hook}/rest"), "token": "tok-rest"}}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    // 0.3 gRPC.
    let config = v0_3::TaskPushNotificationConfig {
        name: format!("tasks/{id}/pushNotificationConfigs/grpc"),
        push_notification_config: Some(v0_3::PushNotificationConfig {
            id: "grpc".into(),
            url: format!("{hook}/grpc"),
            token: "tok-grpc".into(),
            authentication: None,
        }),
    };
    let request = v0_3::CreateTaskPushNotificationConfigRequest {
        parent: format!("tasks/{id}"),
        config_id: "grpc".into(),
        config: Some(config),
    };
    grpc_v03(&server).await.create_task_push_notification_config(request).await.unwrap();

    // A 1.0 client drives the task: the webhooks still get what their 0.3 clients expect.
    let answer = SendMessageRequest {
        message: Some(Message::user_text("Ada").with_task_id(id)),
        ..Default::default()
    };
    JsonRpcClient::new(format!("{}/", server.url())).send_message(&CallContext::v1(), answer).await.unwrap();
    let got = deliveries(&mut received, &["/rest", "/grpc"], 3).await;
    for (deliveries, token) in got.iter().zip(["tok-rest", "tok-grpc"]) {
        let states: Vec<String> = deliveries.iter().map(|d| v03_task_state(d, token)).collect();
        assert_eq!(states, ["working", "working", "completed"], "{token}");
    }
    server.shutdown().await.unwrap();
    hook_task.abort();
}

// ---- The agent card ----

#[tokio::test]
async fn the_union_card_is_also_a_valid_0_3_card() {
    let server = start().await;
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_valid_v03("AgentCard", &card);
    // The 1.0 view (every interface, in order) is `reference_server.rs`'s, with the caching headers.
    let base = server.url();
    let grpc = server.addr().to_string();
    // The 0.3 view: the first 0.3 interface is `url` + `preferredTransport`, all of them are
    // `additionalInterfaces`.
    assert_eq!(
        (card["url"].as_str(), card["preferredTransport"].as_str()),
        (Some(base.as_str()), Some("JSONRPC"))
    );
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(
        card["additionalInterfaces"],
        json!([
            {"url": base, "transport": "JSONRPC"},
            {"url": base, "transport": "HTTP+JSON"},
            {"url": grpc, "transport": "GRPC"},
        ])
    );
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true);
    server.shutdown().await.unwrap();
}

/// The 0.3 proto's `blocking` is a plain proto3 `bool`: `false` is not written, so a configuration
/// without it is non-blocking. a2a-sdk 0.3 (REST and gRPC clients) asks for non-blocking sends
/// exactly so, and both 0.3 SDK servers read it so (docs/interop.md, the 0.3 findings). A `wait`
/// task must come back unfinished and be cancelable, over both proto bindings.
#[tokio::test]
async fn a_proto_configuration_without_blocking_is_non_blocking_over_rest_and_grpc() {
    let server = start().await;
    let http = reqwest::Client::new();
    let base = server.url();
    let body = json!({
        "message": {"messageId": uuid(), "role": "ROLE_USER", "content": [{"text": "wait 60"}]},
        "configuration": {"acceptedOutputModes": []},
    });
    let reply: Value =
        http.post(format!("{base}/v1/message:send")).json(&body).send().await.unwrap().json().await.unwrap();
    let state = &reply["task"]["status"]["state"];
    assert!(state == "TASK_STATE_SUBMITTED" || state == "TASK_STATE_WORKING", "{reply}");
    let id = reply["task"]["id"].as_str().unwrap();
    let canceled: Value =
        http.post(format!("{base}/v1/tasks/{id}:cancel")).send().await.unwrap().json().await.unwrap();
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELLED", "{canceled}");

    let mut client = grpc_v03(&server).await;
    let request = v0_3::SendMessageRequest {
        request: Some(proto_message("wait 60")),
        configuration: Some(v0_3::SendMessageConfiguration::default()),
        ..Default::default()
    };
    let reply = client.send_message(request).await.unwrap().into_inner();
    let Some(v0_3::send_message_response::Payload::Task(task)) = reply.payload else { panic!("{reply:?}") };
    let state = task.status.as_ref().unwrap().state;
    assert!(
        state == v0_3::TaskState::Submitted as i32 || state == v0_3::TaskState::Working as i32,
        "{task:?}"
    );
    let canceled = client
        .cancel_task(v0_3::CancelTaskRequest { name: format!("tasks/{}", task.id) })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(canceled.status.unwrap().state, v0_3::TaskState::Cancelled as i32);

    // No configuration at all stays blocking (the 1.0 default; a2a-js reads it so too).
    let request = v0_3::SendMessageRequest { request: Some(proto_message("echo")), ..Default::default() };
    let reply = client.send_message(request).await.unwrap().into_inner();
    let Some(v0_3::send_message_response::Payload::Task(task)) = reply.payload else { panic!("{reply:?}") };
    assert_eq!(task.status.unwrap().state, v0_3::TaskState::Completed as i32);
    server.shutdown().await.unwrap();
}

// ---- Our clients in 0.3 mode ----

/// A client of `binding` for the server at `url` speaking `version`.
async fn client(binding: Binding, url: &str, version: ProtocolVersion) -> Box<dyn A2aService> {
    match binding {
        Binding::JsonRpc => Box::new(JsonRpcClient::new(format!("{url}/")).with_protocol_version(version)),
        Binding::Rest => Box::new(RestClient::new(url).unwrap().with_protocol_version(version)),
        Binding::Grpc => Box::new(GrpcClient::connect(url).await.unwrap().with_protocol_version(version)),
    }
}

fn ctx() -> CallContext {
    // A context asking for 1.0, as most callers pass: the 0.3 client must send 0.3 regardless.
    CallContext::v1()
}

/// Every event of a stream; the stream must end by itself (the guard only turns a hang into a
/// failure).
async fn drain(events: EventStream) -> Vec<Result<StreamResponse, Error>> {
    tokio::time::timeout(Duration::from_secs(30), events.collect())
        .await
        .expect("the 0.3 stream ends after its final event")
}

/// What the conformance suite does not look into: the details a 0.3 error brings back to a 0.3
/// client (the task, its state), and invalid fields named as the 0.3 request has them.
#[tokio::test]
async fn the_0_3_clients_read_error_details_and_the_0_3_field_names() {
    let server = start().await;
    for binding in Binding::ALL {
        let client = client(binding, &server.url(), V0_3).await;
        let client = client.as_ref();
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        match client.get_task(&ctx(), missing).await {
            Err(Error::TaskNotFound { task_id }) => assert_eq!(task_id, "no-such-task", "{binding:?}"),
            other => panic!("{binding:?}: {other:?}"),
        }
        let done = task_of(client, &ctx(), "hello").await;
        match client
            .cancel_task(&ctx(), CancelTaskRequest { id: done.id.clone(), ..Default::default() })
            .await
        {
            Err(Error::TaskNotCancelable { task_id, state }) => {
                assert_eq!((task_id.as_str(), state), (done.id.as_str(), TaskState::Completed), "{binding:?}")
            }
            other => panic!("{binding:?}: {other:?}"),
        }
        // No message at all: the agent's validation names the 0.3 field.
        match client.send_message(&ctx(), SendMessageRequest::default()).await {
            Err(Error::InvalidParams { violations }) => {
                assert_eq!(violations[0].field, "message", "{binding:?}: {violations:?}")
            }
            other => panic!("{binding:?}: {other:?}"),
        }
        // Invalid fields are named as the 0.3 request has them.
        let no_url = TaskPushNotificationConfig { task_id: done.id.clone(), ..Default::default() };
        match client.create_task_push_notification_config(&ctx(), no_url).await {
            Err(Error::InvalidParams { violations }) => {
                assert_eq!(violations[0].field, "pushNotificationConfig.url", "{binding:?}: {violations:?}")
            }
            other => panic!("{binding:?}: {other:?}"),
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn list_tasks_is_refused_without_sending_a_request() {
    // Nothing listens on port 9 (discard): any request would be a transport error.
    let clients: [(Binding, Box<dyn A2aService>); 3] = [
        (Binding::JsonRpc, Box::new(JsonRpcClient::new("http://127.0.0.1:9/").with_protocol_version(V0_3))),
        (Binding::Rest, Box::new(RestClient::new("http://127.0.0.1:9").unwrap().with_protocol_version(V0_3))),
        (
            Binding::Grpc,
            Box::new(GrpcClient::connect_lazy("127.0.0.1:9").unwrap().with_protocol_version(V0_3)),
        ),
    ];
    for (binding, client) in clients {
        match client.list_tasks(&ctx(), ListTasksRequest::default()).await {
            Err(Error::UnsupportedOperation { reason }) => {
                assert!(reason.contains("ListTasks") && reason.contains("0.3"), "{binding:?}: {reason}")
            }
            other => panic!("{binding:?}: {other:?}"),
        }
        // The same client does send the operations 0.3 has (and fails to connect).
        let error = client.get_task(&ctx(), GetTaskRequest { id: "t".into(), ..Default::default() }).await;
        assert!(matches!(error, Err(Error::Transport { .. })), "{binding:?}: {error:?}");
    }
}

#[test]
fn clients_report_the_version_they_speak() {
    assert_eq!(JsonRpcClient::new("http://h/").protocol_version(), ProtocolVersion::V1_0);
    assert_eq!(JsonRpcClient::new("http://h/").with_protocol_version(V0_3).protocol_version(), V0_3);
    assert_eq!(RestClient::new("http://h").unwrap().protocol_version(), ProtocolVersion::V1_0);
    assert_eq!(RestClient::new("http://h").unwrap().with_protocol_version(V0_3).protocol_version(), V0_3);
}

/// The requests a [`v03_only`] agent refused (each described), shared with the test.
type Refused = std::sync::Arc<std::sync::Mutex<Vec<String>>>;

/// The reference server behind a gate that lets only A2A 0.3 through: JSON-RPC slash methods,
/// REST under `/v1/`, gRPC package `a2a.v1`, each with `A2A-Version: 0.3` (what our 0.3 clients
/// send); everything else is refused (and recorded), as a 0.3-only agent would. Proves that the
/// clients speak 0.3 on the wire, not 1.0 that the dual server would also answer.
async fn v03_only() -> (String, Refused, tokio::task::JoinHandle<()>) {
    use axum::body::{to_bytes, Body};
    use axum::extract::{Request, State};
    use axum::middleware::{from_fn_with_state, Next};
    use axum::response::{IntoResponse, Response};

    async fn gate(State(refused): State<Refused>, request: Request, next: Next) -> Response {
        let path = request.uri().path().to_owned();
        if path == a2a_server::AGENT_CARD_PATH {
            return next.run(request).await;
        }
        let version = request.headers().get("a2a-version").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let grpc = request
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/grpc"));
        let (parts, body) = request.into_parts();
        let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
        let shape_ok = if grpc {
            path.starts_with("/a2a.v1.A2AService/")
        } else if path == "/" {
            let method = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|v| v.get("method").and_then(|m| m.as_str()).map(str::to_owned));
            method.is_some_and(|m| m.contains('/'))
        } else {
            path.starts_with("/v1/")
        };
        if !shape_ok || version.as_deref() != Some("0.3") {
            refused.lock().unwrap().push(format!("{} {path} (A2A-Version {version:?})", parts.method));
            return (http::StatusCode::NOT_FOUND, "not an A2A 0.3 request").into_response();
        }
        next.run(Request::from_parts(parts, Body::from(body))).await
    }

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = reference().app(addr).unwrap();
    let refused = Refused::default();
    let app = app.router.layer(from_fn_with_state(refused.clone(), gate));
    let task = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (format!("http://{addr}"), refused, task)
}

#[tokio::test]
async fn the_0_3_clients_speak_only_0_3_on_the_wire() {
    let (url, refused, server) = v03_only().await;
    for binding in Binding::ALL {
        let client = client(binding, &url, V0_3).await;
        let client = client.as_ref();
        let task = task_of(client, &ctx(), "hello").await;
        assert_eq!(task.state(), TaskState::Completed, "{binding:?}");
        client.get_task(&ctx(), GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
        let events = client.send_streaming_message(&ctx(), common::send("stream 2")).await.unwrap();
        assert!(drain(events).await.iter().all(Result::is_ok), "{binding:?}");
        let config = TaskPushNotificationConfig {
            task_id: task.id.clone(),
            id: "c".into(),
            url: "http://127.0.0.1:9/hook".into(),
            ..Default::default()
        };
        client.create_task_push_notification_config(&ctx(), config).await.unwrap();
        client.get_extended_agent_card(&ctx(), GetExtendedAgentCardRequest::default()).await.unwrap();
        // The 1.0 client of the same binding is refused by the gate.
        let v10 = self::client(binding, &url, ProtocolVersion::V1_0).await;
        let error =
            v10.get_task(&CallContext::v1(), GetTaskRequest { id: task.id, ..Default::default() }).await;
        assert!(error.is_err(), "{binding:?}: the gate lets 1.0 through");
    }
    let refused = refused.lock().unwrap().clone();
    assert_eq!(refused.len(), 3, "only the three 1.0 calls are refused: {refused:?}");
    assert!(refused.iter().all(|r| r.contains("Some(\"1.0\")")), "{refused:?}");
    server.abort();
}
