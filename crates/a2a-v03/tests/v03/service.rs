//! `Request::call` against core's real `DefaultRequestHandler` (no sockets): 0.3 requests in, 0.3
//! results and errors out, valid against the 0.3 schema and proto.

use std::sync::Arc;
use std::time::Duration;

use a2a_core::push::{PushRequest, PushTransport};
use a2a_core::{
    A2aService, AgentExecutor, CallContext, DefaultRequestHandler, Error, RequestContext, ServiceParams,
    TaskUpdater,
};
use a2a_proto::v1::{
    AgentCapabilities, AgentCard, AgentExtension, AgentInterface, Artifact, Part, TaskState,
};
use a2a_v03::{rest, Form, Method, Reply, Request, V03Request};
use futures::StreamExt;
use serde_json::{json, Value};

use crate::support::{assert_proto_valid, assert_schema_valid, fixture, success};

/// Echo (the default), `stream N` (N artifact chunks), `ask` (input-required, then completed by the
/// next message), `wait` (works until canceled), `reply` (a direct message).
struct Scripted;

#[async_trait::async_trait]
impl AgentExecutor for Scripted {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> a2a_core::Result<()> {
        let text = ctx.message.text();
        let mut words = text.split_whitespace();
        let continuing = ctx.task.as_ref().is_some_and(|t| t.state() == TaskState::InputRequired);
        match words.next().unwrap_or_default() {
            _ if continuing => {
                updater.add_artifact(Artifact::new(vec![Part::text(format!("Hello, {text}!"))])).await?;
                updater.complete(None).await
            }
            "reply" => updater.reply(updater.agent_text("direct")).await,
            "ask" => updater.require_input(Some(updater.agent_text("What is your name?"))).await,
            "wait" => {
                updater.start_work(None).await?;
                updater.cancelled().await;
                Ok(())
            }
            "stream" => {
                let chunks: usize = words.next().and_then(|n| n.parse().ok()).unwrap_or(2);
                updater.start_work(None).await?;
                let mut artifact = Artifact::new(vec![]);
                for i in 0..chunks {
                    artifact.parts = vec![Part::text(format!("chunk {i}"))];
                    updater.artifact_update(artifact.clone(), i > 0, i + 1 == chunks).await?;
                }
                updater.complete(None).await
            }
            _ => {
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(text.clone())])).await?;
                updater.complete(None).await
            }
        }
    }
}

struct NoDelivery;

#[async_trait::async_trait]
impl PushTransport for NoDelivery {
    async fn send(&self, _request: PushRequest) -> Result<(), a2a_core::push::PushFailure> {
        Ok(())
    }
}

fn card(required_extension: bool) -> AgentCard {
    AgentCard {
        name: "Scripted".into(),
        description: "Test agent".into(),
        version: "1".into(),
        supported_interfaces: vec![AgentInterface {
            url: "http://127.0.0.1:9/".into(),
            protocol_binding: "JSONRPC".into(),
            tenant: String::new(),
            protocol_version: "1.0".into(),
        }],
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: vec![AgentExtension {
                uri: "urn:test:ext".into(),
                required: required_extension,
                ..Default::default()
            }],
            extended_agent_card: Some(true),
        }),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        ..Default::default()
    }
}

fn handler_with(card: AgentCard) -> DefaultRequestHandler {
    let extended = AgentCard { description: "Extended".into(), ..card.clone() };
    DefaultRequestHandler::builder(card, Scripted)
        .push_transport(Arc::new(NoDelivery))
        .extended_agent_card(extended)
        .build()
        .unwrap()
}

fn handler() -> DefaultRequestHandler {
    handler_with(card(false))
}

/// What a 0.3 client sends: no `A2A-Version` header.
fn ctx() -> CallContext {
    CallContext::default()
}

async fn call(service: &DefaultRequestHandler, method: Method, params: Value) -> Result<Reply, Error> {
    Request::from_jsonrpc(method, Some(&params))?.call(service, &ctx(), Form::Json).await
}

async fn value(service: &DefaultRequestHandler, method: Method, params: Value) -> Value {
    match call(service, method, params).await {
        Ok(Reply::Value(value)) => value,
        other => panic!("{method}: {other:?}"),
    }
}

async fn events(service: &DefaultRequestHandler, method: Method, params: Value) -> Vec<Value> {
    let Ok(Reply::Stream(stream)) = call(service, method, params).await else {
        panic!("{method} did not stream")
    };
    let collected = tokio::time::timeout(Duration::from_secs(10), stream.collect::<Vec<_>>()).await;
    collected.expect("the 0.3 stream ends").into_iter().map(|e| e.unwrap()).collect()
}

fn send(text: &str) -> Value {
    json!({"message": {"kind": "message", "messageId": a2a_proto::new_id(), "role": "user",
                       "parts": [{"kind": "text", "text": text}]}})
}

fn error_of(result: Result<Reply, Error>) -> Value {
    match result {
        Err(error) => {
            let wire = a2a_v03::error::to_v03(&error);
            assert_schema_valid("JSONRPCErrorResponse", &json!({"jsonrpc": "2.0", "id": 1, "error": wire}));
            wire
        }
        Ok(reply) => panic!("expected an error, got {reply:?}"),
    }
}

#[tokio::test]
async fn message_send_of_the_spec_example_returns_a_completed_0_3_task() {
    let service = handler();
    let example = fixture("spec/9_2-1-request-message-send.json");
    let result = value(&service, Method::MessageSend, example["params"].clone()).await;
    assert_schema_valid("SendMessageSuccessResponse", &success(result.clone()));
    assert_eq!(result["kind"], "task");
    assert_eq!(result["status"]["state"], "completed");
    assert_eq!(result["artifacts"][0]["parts"][0], json!({"kind": "text", "text": "tell me a joke"}));
    assert_eq!(result["history"][0]["messageId"], "9229e770-767c-417b-a0b0-f0741243c589");
}

#[tokio::test]
async fn without_the_translation_core_refuses_a_header_less_request() {
    // Why `call` sets A2A-Version for core: the same request straight to core is refused (3.6.2).
    let Request::SendMessage(request) =
        Request::from_jsonrpc(Method::MessageSend, Some(&send("hi"))).unwrap()
    else {
        panic!()
    };
    let direct = handler().send_message(&ctx(), request).await;
    assert!(matches!(direct, Err(Error::VersionNotSupported { .. })), "{direct:?}");
}

#[tokio::test]
async fn a_direct_reply_is_a_0_3_message() {
    let result = value(&handler(), Method::MessageSend, send("reply please")).await;
    assert_schema_valid("SendMessageSuccessResponse", &success(result.clone()));
    assert_eq!(result["kind"], "message");
    assert_eq!(result["role"], "agent");
}

#[tokio::test]
async fn message_stream_sends_0_3_events_and_ends_with_the_final_one() {
    let events = events(&handler(), Method::MessageStream, send("stream 3")).await;
    for event in &events {
        assert_schema_valid("SendStreamingMessageSuccessResponse", &success(event.clone()));
    }
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["task", "status-update", "artifact-update", "artifact-update", "artifact-update", "status-update"]
    );
    let finals: Vec<bool> =
        events.iter().filter_map(|e| e.get("final")).map(|f| f.as_bool().unwrap()).collect();
    assert_eq!(finals, [false, true]);
    assert_eq!(events.last().unwrap()["status"]["state"], "completed");
    let chunks: Vec<(bool, bool)> = events[2..5]
        .iter()
        .map(|e| (e["append"].as_bool().unwrap(), e["lastChunk"].as_bool().unwrap()))
        .collect();
    assert_eq!(chunks, [(false, false), (true, false), (true, true)]);
}

#[tokio::test]
async fn input_required_ends_the_stream_with_final_and_the_next_send_completes_the_task() {
    let service = handler();
    let events = events(&service, Method::MessageStream, send("ask")).await;
    let last = events.last().unwrap();
    assert_eq!((last["kind"].as_str(), last["final"].as_bool()), (Some("status-update"), Some(true)));
    assert_eq!(last["status"]["state"], "input-required");
    assert_eq!(last["status"]["message"]["parts"][0]["text"], "What is your name?");
    let task_id = last["taskId"].as_str().unwrap().to_owned();
    let mut answer = send("Ada");
    answer["message"]["taskId"] = task_id.clone().into();
    answer["configuration"] = json!({"blocking": true});
    let done = value(&service, Method::MessageSend, answer).await;
    assert_eq!(done["id"], task_id.as_str());
    assert_eq!(done["status"]["state"], "completed");
    assert_eq!(done["artifacts"][0]["parts"][0]["text"], "Hello, Ada!");
    // tasks/get with historyLength 0 means "no limit" in 0.3.
    let task = value(&service, Method::TasksGet, json!({"id": task_id, "historyLength": 0})).await;
    assert_schema_valid("GetTaskSuccessResponse", &success(task.clone()));
    assert!(task["history"].as_array().unwrap().len() >= 2, "{task}");
    let one = value(&service, Method::TasksGet, json!({"id": task_id, "historyLength": 1})).await;
    assert_eq!(one["history"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn resubscribe_follows_the_task_until_cancel_ends_it_with_final_canceled() {
    let service = handler();
    let mut params = send("wait");
    params["configuration"] = json!({"blocking": false});
    let task = value(&service, Method::MessageSend, params).await;
    assert_eq!(task["status"]["state"], "working", "blocking: false returns after the first event");
    let task_id = task["id"].as_str().unwrap().to_owned();
    let Ok(Reply::Stream(mut stream)) =
        call(&service, Method::TasksResubscribe, json!({"id": task_id})).await
    else {
        panic!()
    };
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!((first["kind"].as_str(), first["status"]["state"].as_str()), (Some("task"), Some("working")));
    let canceled = value(&service, Method::TasksCancel, json!({"id": task_id})).await;
    assert_schema_valid("CancelTaskSuccessResponse", &success(canceled.clone()));
    assert_eq!(canceled["status"]["state"], "canceled");
    let rest: Vec<Value> = tokio::time::timeout(Duration::from_secs(10), stream.collect::<Vec<_>>())
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.unwrap())
        .collect();
    let last = rest.last().unwrap();
    assert_eq!((last["status"]["state"].as_str(), last["final"].as_bool()), (Some("canceled"), Some(true)));
    // Canceling again is idempotent; a completed task is not cancelable: -32002.
    let done = value(&service, Method::MessageSend, send("hello")).await;
    let error = error_of(call(&service, Method::TasksCancel, json!({"id": done["id"]})).await);
    assert_eq!(error["code"], -32002);
}

#[tokio::test]
async fn push_config_methods_speak_0_3_end_to_end() {
    let service = handler();
    let task = value(&service, Method::MessageSend, send("hello")).await;
    let task_id = task["id"].as_str().unwrap().to_owned();
    let set = value(
        &service,
        Method::PushNotificationConfigSet,
        json!({"taskId": task_id, "pushNotificationConfig": {"url": "https://client.example.com/hook", "token": "tok",
               "authentication": {"schemes": ["Bearer"], "credentials": "secret"}}}),
    )
    .await;
    assert_schema_valid("SetTaskPushNotificationConfigSuccessResponse", &success(set.clone()));
    let config_id = set["pushNotificationConfig"]["id"].as_str().unwrap().to_owned();
    assert!(!config_id.is_empty(), "core assigns an id");
    assert_eq!(set["pushNotificationConfig"]["authentication"]["schemes"], json!(["Bearer"]));
    // `get` with the task id only (0.3's TaskIdParams form) answers the task's config.
    let by_task = value(&service, Method::PushNotificationConfigGet, json!({"id": task_id})).await;
    assert_eq!(by_task, set);
    let by_id = value(
        &service,
        Method::PushNotificationConfigGet,
        json!({"id": task_id, "pushNotificationConfigId": config_id}),
    )
    .await;
    assert_eq!(by_id, set);
    let list = value(&service, Method::PushNotificationConfigList, json!({"id": task_id})).await;
    assert_schema_valid("ListTaskPushNotificationConfigSuccessResponse", &success(list.clone()));
    assert_eq!(list, json!([set]));
    let deleted = value(
        &service,
        Method::PushNotificationConfigDelete,
        json!({"id": task_id, "pushNotificationConfigId": config_id}),
    )
    .await;
    assert_eq!(deleted, Value::Null);
    let error = error_of(call(&service, Method::PushNotificationConfigGet, json!({"id": task_id})).await);
    assert_eq!(error["code"], -32001, "no config left");
}

#[tokio::test]
async fn core_errors_come_back_in_0_3_terms() {
    let service = handler();
    // A refused webhook: core names `url`, the 0.3 client sent `pushNotificationConfig.url`.
    let task = value(&service, Method::MessageSend, send("hello")).await;
    let error = error_of(
        call(
            &service,
            Method::PushNotificationConfigSet,
            json!({"taskId": task["id"], "pushNotificationConfig": {"url": "http://127.0.0.1/hook"}}),
        )
        .await,
    );
    assert_eq!(error["code"], -32602);
    let violations =
        &error["data"].as_array().unwrap().iter().find(|d| d.get("fieldViolations").is_some()).unwrap()
            ["fieldViolations"];
    assert_eq!(violations[0]["field"], "pushNotificationConfig.url");
    // A message without messageId (spec example 9.4 step 1): `message.messageId`.
    let example = fixture("spec/9_4-1-request-message-send.json");
    let error = a2a_v03::error::from_v03(&error_of(
        call(&service, Method::MessageSend, example["params"].clone()).await,
    ));
    assert_eq!(error.field_violations()[0].field, "message.messageId");
    // A file the agent does not accept: -32005.
    let png = json!({"message": {"kind": "message", "messageId": "m", "role": "user",
        "parts": [{"kind": "file", "file": {"uri": "https://x/y.png", "mimeType": "image/png"}}]}});
    assert_eq!(error_of(call(&service, Method::MessageSend, png).await)["code"], -32005);
    // An unknown task: -32001, with the id recoverable by our client.
    let error = error_of(call(&service, Method::TasksGet, json!({"id": "nope"})).await);
    assert_eq!(error["code"], -32001);
    assert!(matches!(a2a_v03::error::from_v03(&error), Error::TaskNotFound { task_id } if task_id == "nope"));
}

#[tokio::test]
async fn required_extensions_are_read_from_the_0_3_header() {
    let service = handler_with(card(true));
    let error = error_of(call(&service, Method::MessageSend, send("hi")).await);
    assert_eq!(error["code"], -32008);
    let ctx = CallContext::new(ServiceParams::new().with("X-A2A-Extensions", "urn:test:ext"));
    let request = Request::from_jsonrpc(Method::MessageSend, Some(&send("hi"))).unwrap();
    let Reply::Value(task) = request.call(&service, &ctx, Form::Json).await.unwrap() else { panic!() };
    assert_eq!(task["status"]["state"], "completed");
}

#[tokio::test]
async fn the_extended_card_is_a_valid_union_card() {
    let card = value(&handler(), Method::GetAuthenticatedExtendedCard, Value::Null).await;
    assert_schema_valid("GetAuthenticatedExtendedCardSuccessResponse", &success(card.clone()));
    assert_eq!(card["description"], "Extended");
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], "http://127.0.0.1:9/");
    assert_eq!(card["supportsAuthenticatedExtendedCard"], true);
}

#[tokio::test]
async fn rest_routes_answer_with_0_3_proto_json() {
    let service = handler();
    let rest_call = |verb: &'static str, path: String, query: Option<&'static str>, body: Option<Value>| {
        let service = service.clone();
        async move {
            let request = rest::route(verb, &path, query, body.as_ref())?;
            request.call(&service, &ctx(), Form::ProtoJson).await
        }
    };
    let body =
        json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hello rest"}]}});
    let Reply::Value(sent) = rest_call("POST", "/v1/message:send".into(), None, Some(body)).await.unwrap()
    else {
        panic!()
    };
    assert_proto_valid("SendMessageResponse", &sent);
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let task_id = sent["task"]["id"].as_str().unwrap().to_owned();
    let Reply::Value(task) =
        rest_call("GET", format!("/v1/tasks/{task_id}"), Some("historyLength=1"), None).await.unwrap()
    else {
        panic!()
    };
    assert_proto_valid("Task", &task);
    assert_eq!(task["history"].as_array().unwrap().len(), 1);
    let config = json!({"parent": format!("tasks/{task_id}"), "config": {"pushNotificationConfig": {"url": "https://h.example.com/x"}}});
    let Reply::Value(created) =
        rest_call("POST", format!("/v1/tasks/{task_id}/pushNotificationConfigs"), None, Some(config))
            .await
            .unwrap()
    else {
        panic!()
    };
    assert_proto_valid("TaskPushNotificationConfig", &created);
    assert!(created["name"]
        .as_str()
        .unwrap()
        .starts_with(&format!("tasks/{task_id}/pushNotificationConfigs/")));
    let Reply::Value(list) =
        rest_call("GET", format!("/v1/tasks/{task_id}/pushNotificationConfigs"), None, None).await.unwrap()
    else {
        panic!()
    };
    assert_proto_valid("ListTaskPushNotificationConfigResponse", &list);
    let Reply::Value(card) = rest_call("GET", "/v1/card".into(), None, None).await.unwrap() else { panic!() };
    assert_proto_valid("AgentCard", &card);
    let Reply::Stream(stream) =
        rest_call("POST", "/v1/message:stream".into(), None, Some(send("stream 2"))).await.unwrap()
    else {
        panic!()
    };
    let events: Vec<Value> = stream.map(|e| e.unwrap()).collect().await;
    for event in &events {
        assert_proto_valid("StreamResponse", event);
    }
    assert_eq!(events.last().unwrap()["statusUpdate"]["final"], true);
    let error = rest_call("GET", "/v1/tasks/nope".into(), None, None).await.unwrap_err();
    assert!(matches!(error, Error::TaskNotFound { .. }));
}

/// Compile-time check: bindings spawn `call` on multi-threaded runtimes (axum, tonic).
#[allow(dead_code)]
fn call_futures_and_replies_are_send(
    service: &DefaultRequestHandler,
    dynamic: &dyn A2aService,
    request: Request,
) {
    fn assert_send<T: Send>(_: &T) {}
    let ctx = ctx();
    assert_send(&request.clone().call(service, &ctx, Form::Json));
    assert_send(&request.call(dynamic, &ctx, Form::ProtoJson));
    fn assert_reply_send<T: Send + 'static>() {}
    assert_reply_send::<Reply>();
}
