//! The reference server's own concerns, on a loopback port: the agent card endpoint (every
//! interface, caching headers, conditional requests), graceful shutdown of open streams, gRPC
//! reflection and health on the shared port, bindings on ports of their own, JSON-RPC at a path,
//! `app`, push notifications over real HTTP (credentials, order, the loopback refusal of
//! spec 13.2), and the demo agent's echo answer, exactly. What A2A behaviour every binding must show is the conformance suite's
//! (`tests/conformance`, run against this server in CI).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::{A2aService, CallContext};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{StreamResponse, TaskPushNotificationConfig, TaskState};
use a2a_rest::RestClient;
use a2a_server::{RunningServer, Server};
use common::{reference, send, spawn, task_of};
use futures::StreamExt;
use serde_json::{json, Value};

fn ctx() -> CallContext {
    CallContext::v1()
}

/// The demo server with its extended card and push to loopback webhooks allowed.
async fn start() -> RunningServer {
    spawn(reference()).await
}

#[tokio::test]
async fn the_agent_card_lists_every_interface_and_supports_conditional_requests() {
    let server = start().await;
    let http = reqwest::Client::new();
    let url = format!("{}/.well-known/agent-card.json", server.url());
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
    let base = server.url();
    let grpc = server.addr().to_string();
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
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn graceful_shutdown_ends_open_streams_cleanly() {
    let server = start().await;
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    let grpc = GrpcClient::connect(server.url()).await.unwrap();
    let mut sse = client.send_streaming_message(&ctx(), send("wait 300")).await.unwrap();
    let mut grpc_stream = grpc.send_streaming_message(&ctx(), send("wait 300")).await.unwrap();
    assert!(matches!(sse.next().await, Some(Ok(_))));
    assert!(matches!(grpc_stream.next().await, Some(Ok(_))));
    tokio::time::timeout(Duration::from_secs(10), server.shutdown())
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
    let server = start().await;
    let channel = tonic::transport::Endpoint::from_shared(server.url()).unwrap().connect().await.unwrap();
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
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn bindings_can_be_served_on_ports_of_their_own() {
    let main = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let rest_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let (grpc_addr, rest_addr) = (grpc_listener.local_addr().unwrap(), rest_listener.local_addr().unwrap());
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
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
        let task = task_of(client.as_ref(), &ctx(), "echo").await;
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
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
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
        let task = task_of(&JsonRpcClient::new(at.clone()), &ctx(), "echo").await;
        assert_eq!(task.state(), TaskState::Completed, "{at}");
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
    let root = reqwest::Client::new().post(format!("{url}/")).json(&body).send().await.unwrap();
    assert_eq!(root.status(), 404, "JSON-RPC is no longer at /");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn app_refuses_bindings_on_their_own_port_and_its_shutdown_token_ends_open_streams() {
    let separate = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let main = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let error = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .binding_listener(a2a_server::Binding::Grpc, separate)
        .app(main.local_addr().unwrap())
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "{error}");
    assert!(error.to_string().contains("binding_listener"), "{error}");

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app =
        Server::builder().agent_card(a2a_demo::demo_card()).executor(a2a_demo::DemoAgent).app(addr).unwrap();
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

/// The deprecation path of `into_app` (CHANGELOG.md): code written against the first release,
/// which destructured its `(Router, AgentCard)`, compiles and serves as it did.
#[tokio::test]
#[allow(deprecated)]
async fn the_deprecated_into_app_still_returns_the_router_and_the_card_it_serves() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (router, card): (axum::Router, a2a_proto::v1::AgentCard) = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .into_app(addr)
        .unwrap();
    assert!(card.supported_interfaces.iter().any(|i| i.url.contains(&addr.port().to_string())), "{card:?}");
    tokio::spawn(async move { axum::serve(listener, router).await });
    let client = JsonRpcClient::new(format!("http://{addr}/"));
    let reply = client.send_message(&ctx(), send("hello")).await.unwrap();
    assert!(reply.payload.is_some(), "the router serves the agent");
    let error = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .binding_listener(
            a2a_server::Binding::Grpc,
            tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap(),
        )
        .into_app(addr)
        .unwrap_err();
    assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput, "refused as `app` refuses it");
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

    let server = start().await;
    let raw = reqwest::Client::new()
        .post(format!("{}/message:send", server.url()))
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
    server.shutdown().await.unwrap();
    hook.abort();
}

#[tokio::test]
async fn push_to_a_private_address_is_refused_without_the_allowlist() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .spawn(listener)
        .await
        .unwrap();
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    let task = task_of(&client, &ctx(), "ask").await;
    let config = TaskPushNotificationConfig {
        task_id: task.id,
        url: "http://127.0.0.1:1/hook".into(),
        ..Default::default()
    };
    let err = client.create_task_push_notification_config(&ctx(), config).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "url", "spec 13.2: {err:?}");
    server.shutdown().await.unwrap();
}

/// The demo agent's `echo` skill as the README's tour shows it, exactly, on every binding in 1.0
/// and 0.3: a completed task whose one artifact, named `echo`, holds the message text and
/// nothing else, and whose history is the one user message (the conformance suite compares
/// these across bindings for any agent; what our demo answers is pinned here).
#[tokio::test]
async fn the_demo_echo_answers_exactly_the_text_in_one_artifact_with_the_message_as_history() {
    let server = start().await;
    for (name, client) in common::clients(&server).await {
        let text = format!("hello over {name}");
        let task = task_of(&*client, &ctx(), &text).await;
        assert_eq!(task.state(), TaskState::Completed, "{name}");
        assert_eq!(task.artifacts.len(), 1, "{name}: {task:?}");
        let artifact = &task.artifacts[0];
        assert_eq!(artifact.name, "echo", "{name}");
        assert_eq!(artifact.parts.len(), 1, "{name}");
        assert_eq!(artifact.parts[0].as_text(), Some(text.as_str()), "{name}");
        assert_eq!(task.history.len(), 1, "{name}: the user message only: {:?}", task.history);
        assert_eq!(task.history[0].text(), text, "{name}");
        assert_eq!(task.history[0].task_id, task.id, "{name}");
        assert_eq!(task.history[0].context_id, task.context_id, "{name}");
    }
    server.shutdown().await.unwrap();
}
