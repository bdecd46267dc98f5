//! Our three binding clients in A2A 0.3 mode (`with_protocol_version(ProtocolVersion::V0_3)`)
//! against the reference server, which serves 0.3 on the same endpoints: every operation 0.3 has,
//! errors mapped back to the right `a2a_core::Error`, the one it lacks refused without a request,
//! and the same tasks read by a 1.0 client of the same binding (one server, one task store).
//!
//! Each scenario is written once against `&dyn A2aService` and run over every binding.

use std::time::Duration;

use a2a_core::push::DestinationPolicy;
use a2a_core::{A2aService, CallContext, Error, EventStream, ProtocolVersion};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, stream_response, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, SendMessageConfiguration,
    SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
};
use a2a_rest::RestClient;
use a2a_server::{RunningServer, Server};
use futures::StreamExt;

const V0_3: ProtocolVersion = ProtocolVersion::V0_3;

async fn start() -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .extended_agent_card(a2a_server::demo::demo_extended_card())
        .executor(a2a_server::demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .spawn(listener)
        .await
        .unwrap()
}

use a2a_core::Binding;

const BINDINGS: [Binding; 3] = Binding::ALL;

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

fn send(text: &str, return_immediately: bool) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(Message::user_text(text)),
        configuration: Some(SendMessageConfiguration { return_immediately, ..Default::default() }),
        ..Default::default()
    }
}

async fn send_task(client: &dyn A2aService, text: &str, return_immediately: bool) -> Task {
    match client.send_message(&ctx(), send(text, return_immediately)).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// Every event of a stream; the stream must end by itself (the guard only turns a hang into a
/// failure).
async fn drain(events: EventStream) -> Vec<Result<StreamResponse, Error>> {
    tokio::time::timeout(Duration::from_secs(30), events.collect())
        .await
        .expect("the 0.3 stream ends after its final event")
}

fn artifact_text(task: &Task) -> String {
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect()
}

#[tokio::test]
async fn send_blocking_and_return_immediately_then_get_with_history_length_and_cancel() {
    let server = start().await;
    for binding in BINDINGS {
        let client = client(binding, &server.url(), V0_3).await;
        let client = client.as_ref();
        let done = send_task(client, "hello over 0.3", false).await;
        assert_eq!(done.state(), TaskState::Completed, "{binding:?}");
        assert_eq!(artifact_text(&done), "hello over 0.3", "{binding:?}");

        // A second turn on an input-required task: its history holds several messages.
        let asked = send_task(client, "ask", false).await;
        assert_eq!(asked.state(), TaskState::InputRequired, "{binding:?}");
        let answer = SendMessageRequest {
            message: Some(
                Message::user_text("Ada").with_task_id(&asked.id).with_context_id(&asked.context_id),
            ),
            ..Default::default()
        };
        client.send_message(&ctx(), answer).await.unwrap();
        let all = client
            .get_task(&ctx(), GetTaskRequest { id: asked.id.clone(), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(all.state(), TaskState::Completed, "{binding:?}");
        assert!(all.history.len() > 1, "{binding:?}: {:?}", all.history);
        let last = client
            .get_task(
                &ctx(),
                GetTaskRequest { id: asked.id.clone(), history_length: Some(1), ..Default::default() },
            )
            .await
            .unwrap();
        assert_eq!(last.history, all.history[all.history.len() - 1..], "{binding:?}: historyLength 1");

        let running = send_task(client, "wait 60", true).await;
        assert!(!running.state().is_terminal(), "{binding:?}: {:?}", running.state());
        let canceled = client
            .cancel_task(&ctx(), CancelTaskRequest { id: running.id.clone(), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(canceled.state(), TaskState::Canceled, "{binding:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn streaming_runs_to_the_final_status_update_and_subscribe_follows_a_task() {
    let server = start().await;
    for binding in BINDINGS {
        let client = client(binding, &server.url(), V0_3).await;
        let client = client.as_ref();
        let events = client.send_streaming_message(&ctx(), send("stream 3", false)).await.unwrap();
        let events: Vec<StreamResponse> = drain(events).await.into_iter().map(Result::unwrap).collect();
        use stream_response::Payload;
        assert!(matches!(events[0].payload, Some(Payload::Task(_))), "{binding:?}: {events:?}");
        let chunks = events.iter().filter(|e| matches!(e.payload, Some(Payload::ArtifactUpdate(_)))).count();
        assert_eq!(chunks, 3, "{binding:?}");
        let Some(Payload::StatusUpdate(last)) = &events.last().unwrap().payload else { panic!("{events:?}") };
        assert_eq!(last.status.as_ref().unwrap().state(), TaskState::Completed, "{binding:?}");

        let running = send_task(client, "wait 60", true).await;
        let mut subscription = client
            .subscribe_to_task(
                &ctx(),
                SubscribeToTaskRequest { id: running.id.clone(), ..Default::default() },
            )
            .await
            .unwrap();
        let first = subscription.next().await.unwrap().unwrap();
        assert_eq!(first.task_id(), Some(running.id.as_str()), "{binding:?}");
        client
            .cancel_task(&ctx(), CancelTaskRequest { id: running.id.clone(), ..Default::default() })
            .await
            .unwrap();
        let rest: Vec<StreamResponse> = drain(subscription).await.into_iter().map(Result::unwrap).collect();
        let Some(Payload::StatusUpdate(last)) = &rest.last().unwrap().payload else { panic!("{rest:?}") };
        assert_eq!(last.status.as_ref().unwrap().state(), TaskState::Canceled, "{binding:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn push_configs_are_set_read_listed_and_deleted_and_the_extended_card_is_read() {
    let server = start().await;
    for binding in BINDINGS {
        let client = client(binding, &server.url(), V0_3).await;
        let client = client.as_ref();
        let task = send_task(client, "ask", false).await;
        assert_eq!(task.state(), TaskState::InputRequired);
        let config = TaskPushNotificationConfig {
            task_id: task.id.clone(),
            id: "c1".into(),
            url: "http://127.0.0.1:9/hook".into(),
            token: "tok".into(),
            ..Default::default()
        };
        let created = client.create_task_push_notification_config(&ctx(), config.clone()).await.unwrap();
        assert_eq!((created.task_id.as_str(), created.id.as_str()), (task.id.as_str(), "c1"), "{binding:?}");
        let read = client
            .get_task_push_notification_config(
                &ctx(),
                GetTaskPushNotificationConfigRequest {
                    task_id: task.id.clone(),
                    id: "c1".into(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(read, config, "{binding:?}");
        let listed = client
            .list_task_push_notification_configs(
                &ctx(),
                ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() },
            )
            .await
            .unwrap();
        assert_eq!(listed.configs, [config], "{binding:?}");
        client
            .delete_task_push_notification_config(
                &ctx(),
                DeleteTaskPushNotificationConfigRequest {
                    task_id: task.id.clone(),
                    id: "c1".into(),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let listed = client
            .list_task_push_notification_configs(
                &ctx(),
                ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() },
            )
            .await
            .unwrap();
        assert!(listed.configs.is_empty(), "{binding:?}");

        let card =
            client.get_extended_agent_card(&ctx(), GetExtendedAgentCardRequest::default()).await.unwrap();
        assert!(card.description.ends_with("(extended card)"), "{binding:?}: {}", card.description);
        assert_eq!(card.name, a2a_server::demo::demo_card().name);
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn errors_come_back_as_the_right_error_variants() {
    let server = start().await;
    for binding in BINDINGS {
        let client = client(binding, &server.url(), V0_3).await;
        let client = client.as_ref();
        let missing = GetTaskRequest { id: "no-such-task".into(), ..Default::default() };
        match client.get_task(&ctx(), missing).await {
            Err(Error::TaskNotFound { task_id }) => assert_eq!(task_id, "no-such-task", "{binding:?}"),
            other => panic!("{binding:?}: {other:?}"),
        }
        let done = send_task(client, "hello", false).await;
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
        let stream = client
            .subscribe_to_task(
                &ctx(),
                SubscribeToTaskRequest { id: "no-such-task".into(), ..Default::default() },
            )
            .await;
        let error = match stream {
            Err(error) => error,
            Ok(events) => drain(events).await.into_iter().find_map(Result::err).expect("an error"),
        };
        assert!(matches!(error, Error::TaskNotFound { .. }), "{binding:?}: {error:?}");
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

#[tokio::test]
async fn tasks_created_over_0_3_are_read_over_1_0_and_the_other_way_round() {
    let server = start().await;
    for binding in BINDINGS {
        let v03 = client(binding, &server.url(), V0_3).await;
        let v10 = client(binding, &server.url(), ProtocolVersion::V1_0).await;
        let from_v03 = send_task(v03.as_ref(), "made in 0.3", false).await;
        let read = v10
            .get_task(&CallContext::v1(), GetTaskRequest { id: from_v03.id.clone(), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(artifact_text(&read), "made in 0.3", "{binding:?}");
        assert_eq!(read.context_id, from_v03.context_id);
        let from_v10 = send_task(v10.as_ref(), "made in 1.0", false).await;
        let read = v03
            .get_task(&ctx(), GetTaskRequest { id: from_v10.id.clone(), ..Default::default() })
            .await
            .unwrap();
        assert_eq!(artifact_text(&read), "made in 1.0", "{binding:?}");
        // ListTasks, which 0.3 lacks, sees the 0.3 task over 1.0.
        let listed = v10.list_tasks(&CallContext::v1(), ListTasksRequest::default()).await.unwrap();
        assert!(listed.tasks.iter().any(|t| t.id == from_v03.id), "{binding:?}");
    }
    server.shutdown().await.unwrap();
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
    let app = Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .extended_agent_card(a2a_server::demo::demo_extended_card())
        .executor(a2a_server::demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .into_app(addr)
        .unwrap();
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
    for binding in BINDINGS {
        let client = client(binding, &url, V0_3).await;
        let client = client.as_ref();
        let task = send_task(client, "hello", false).await;
        assert_eq!(task.state(), TaskState::Completed, "{binding:?}");
        client.get_task(&ctx(), GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
        let events = client.send_streaming_message(&ctx(), send("stream 2", false)).await.unwrap();
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
