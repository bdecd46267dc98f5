//! API keys in front of every binding (`a2a_server::auth`): the card stays public and declares
//! the scheme; a caller without a known key is Unauthenticated on every binding (HTTP 401 with
//! `WWW-Authenticate`, gRPC UNAUTHENTICATED, JSON-RPC -32010); and one principal's task is
//! invisible to another on every operation (spec 13.1: TaskNotFound, never "forbidden").

use std::sync::Arc;

use a2a_core::{A2aService, CallContext, Error};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, CancelTaskRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, Message, SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig,
    TaskState,
};
use a2a_rest::RestClient;
use a2a_server::auth::{ApiKeys, KeyLocation};
use a2a_server::{RunningServer, Server};
use axum::http::HeaderName;
use common::{clients_v1 as clients, demo, send, spawn, task_of};

mod common;

async fn server() -> RunningServer {
    let keys = ApiKeys::new("apiKey", KeyLocation::Header(HeaderName::from_static("x-api-key")))
        .key("k-alice", "alice")
        .key("k-bob", "bob");
    let mut card = a2a_demo::demo_card();
    keys.declare_in(&mut card);
    spawn(
        demo(card)
            .push_destination_policy(a2a_core::push::DestinationPolicy::allow_all())
            .layer(keys.layer()),
    )
    .await
}

fn as_key(key: Option<&str>) -> CallContext {
    let mut ctx = CallContext::v1();
    if let Some(key) = key {
        ctx.params.insert("x-api-key", key);
    }
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_is_public_and_declares_the_scheme_and_calls_need_a_known_key() {
    let server = server().await;
    let http = reqwest::Client::new();
    let card: serde_json::Value = http
        .get(format!("{}/.well-known/agent-card.json", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["location"], "header");
    assert_eq!(card["securitySchemes"]["apiKey"]["apiKeySecurityScheme"]["name"], "x-api-key");
    assert!(card["securityRequirements"][0]["schemes"]["apiKey"].is_object(), "{card}");

    for (binding, client) in clients(&server).await {
        for key in [None, Some("k-mallory")] {
            let error = client.send_message(&as_key(key), send("hello")).await.unwrap_err();
            assert!(matches!(error, Error::Unauthenticated { .. }), "{binding} {key:?}: {error:?}");
            let error = client.list_tasks(&as_key(key), ListTasksRequest::default()).await.unwrap_err();
            assert!(matches!(error, Error::Unauthenticated { .. }), "{binding} {key:?}: {error:?}");
        }
        task_of(client.as_ref(), &as_key(Some("k-alice")), "hello").await;
    }

    // On HTTP the answer is a 401 that says how to authenticate (RFC 9110 11.6.1).
    let response = http
        .post(format!("{}/message:send", server.url()))
        .header("A2A-Version", "1.0")
        .json(&serde_json::json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let challenge = response.headers()["www-authenticate"].to_str().unwrap();
    assert!(challenge.starts_with("ApiKey"), "{challenge}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_principals_task_does_not_exist_on_any_operation_or_binding() {
    let server = server().await;
    let (alice, bob) = (as_key(Some("k-alice")), as_key(Some("k-bob")));
    for (binding, client) in clients(&server).await {
        let client = client.as_ref();
        let task = task_of(client, &alice, "ask").await;
        assert_eq!(task.state(), TaskState::InputRequired);
        let id = task.id.clone();
        let not_found = |what: &str, result: Result<(), Error>| match result {
            Err(Error::TaskNotFound { .. }) => {}
            other => panic!("{binding}, {what}: bob must get TaskNotFound, got {other:?}"),
        };
        not_found(
            "get",
            client.get_task(&bob, GetTaskRequest { id: id.clone(), ..Default::default() }).await.map(drop),
        );
        not_found(
            "cancel",
            client
                .cancel_task(&bob, CancelTaskRequest { id: id.clone(), ..Default::default() })
                .await
                .map(drop),
        );
        not_found(
            "subscribe",
            client
                .subscribe_to_task(&bob, SubscribeToTaskRequest { id: id.clone(), ..Default::default() })
                .await
                .map(drop),
        );
        let continued = SendMessageRequest {
            message: Some(Message::user_text("Mallory").with_task_id(&id)),
            ..Default::default()
        };
        not_found("continue", client.send_message(&bob, continued).await.map(drop));
        let config = TaskPushNotificationConfig {
            task_id: id.clone(),
            url: "https://hooks.example.com/a2a".into(),
            ..Default::default()
        };
        not_found(
            "create push config",
            client.create_task_push_notification_config(&bob, config).await.map(drop),
        );
        let list_configs =
            ListTaskPushNotificationConfigsRequest { task_id: id.clone(), ..Default::default() };
        not_found(
            "list push configs",
            client.list_task_push_notification_configs(&bob, list_configs).await.map(drop),
        );

        let listed = client.list_tasks(&bob, ListTasksRequest::default()).await.unwrap();
        assert!(listed.tasks.iter().all(|t| t.id != id), "{binding}: bob lists none of alice's tasks");
        let mine = client.list_tasks(&alice, ListTasksRequest::default()).await.unwrap();
        assert!(mine.tasks.iter().any(|t| t.id == id), "{binding}: alice lists hers");
        let bobs = task_of(client, &bob, "hello").await;
        let bob_total = client.list_tasks(&bob, ListTasksRequest::default()).await.unwrap().total_size;
        let alice_total = client.list_tasks(&alice, ListTasksRequest::default()).await.unwrap().total_size;
        assert!(bob_total >= 1 && alice_total >= 1, "{binding}");
        assert!(
            client
                .get_task(&alice, GetTaskRequest { id: bobs.id.clone(), ..Default::default() })
                .await
                .is_err(),
            "{binding}: and the other way round"
        );
        // Alice still has her task, untouched by bob's attempts.
        let mine = client.get_task(&alice, GetTaskRequest { id, ..Default::default() }).await.unwrap();
        assert_eq!(mine.state(), TaskState::InputRequired, "{binding}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_0_3_surface_obeys_the_same_keys_and_isolation() {
    use a2a_core::ProtocolVersion::V0_3;
    let server = server().await;
    let url = server.url();
    let v03: Vec<(&str, Arc<dyn A2aService>)> = vec![
        ("JSONRPC 0.3", Arc::new(JsonRpcClient::new(format!("{url}/")).with_protocol_version(V0_3))),
        ("HTTP+JSON 0.3", Arc::new(RestClient::new(&url).unwrap().with_protocol_version(V0_3))),
        ("GRPC 0.3", Arc::new(GrpcClient::connect(url.clone()).await.unwrap().with_protocol_version(V0_3))),
    ];
    let (alice, bob) = (as_key(Some("k-alice")), as_key(Some("k-bob")));
    for (binding, client) in v03 {
        let error = client.send_message(&as_key(None), send("hello")).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{binding}: {error:?}");
        let task = task_of(client.as_ref(), &alice, "ask").await;
        let get = || GetTaskRequest { id: task.id.clone(), ..Default::default() };
        assert!(matches!(client.get_task(&bob, get()).await, Err(Error::TaskNotFound { .. })), "{binding}");
        assert_eq!(
            client.get_task(&alice, get()).await.unwrap().state(),
            TaskState::InputRequired,
            "{binding}"
        );
    }
    server.shutdown().await.unwrap();
}

/// An authorization rule of the user's own, as a service around the default handler: only the
/// principal `admin` may cancel.
struct OnlyAdminsCancel(a2a_core::DefaultRequestHandler);

#[async_trait::async_trait]
impl A2aService for OnlyAdminsCancel {
    async fn call(
        &self,
        ctx: &CallContext,
        request: a2a_core::Request,
    ) -> a2a_core::Result<a2a_core::Response> {
        let admin = ctx.principal.as_ref().is_some_and(|p| p.id == "admin");
        if request.operation() == a2a_core::Operation::CancelTask && !admin {
            return Err(Error::PermissionDenied { reason: "only admins cancel".into() });
        }
        self.0.call(ctx, request).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_service_of_ones_own_behind_the_same_layer_serves_every_binding() {
    let keys = ApiKeys::new("apiKey", KeyLocation::Header(HeaderName::from_static("x-api-key")))
        .key("k-alice", "alice")
        .key("k-admin", "admin");
    let mut card = a2a_demo::demo_card();
    keys.declare_in(&mut card);
    let policy = a2a_core::push::DestinationPolicy::public_only();
    let handler = a2a_core::DefaultRequestHandler::builder(card.clone(), a2a_demo::DemoAgent)
        .push_transport(Arc::new(a2a_server::push_http::HttpPushTransport::new(policy)))
        .build()
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(card)
        .service(Arc::new(OnlyAdminsCancel(handler)))
        .layer(keys.layer())
        .spawn(listener)
        .await
        .unwrap();
    let (alice, admin) = (as_key(Some("k-alice")), as_key(Some("k-admin")));
    for (binding, client) in clients(&server).await {
        let client = client.as_ref();
        // Tasks without an owner would be everyone's: here each caller is a principal, so the
        // admin cancels what the admin started.
        let mut request = send("wait 30");
        request.configuration =
            Some(a2a_proto::v1::SendMessageConfiguration { return_immediately: true, ..Default::default() });
        let Some(send_message_response::Payload::Task(task)) =
            client.send_message(&admin, request).await.unwrap().payload
        else {
            panic!("{binding}: a task")
        };
        let cancel = || CancelTaskRequest { id: task.id.clone(), ..Default::default() };
        let error = client.cancel_task(&alice, cancel()).await.unwrap_err();
        assert!(matches!(error, Error::PermissionDenied { .. }), "{binding}: {error:?}");
        assert_eq!(
            client.cancel_task(&admin, cancel()).await.unwrap().state(),
            TaskState::Canceled,
            "{binding}"
        );
        let error = client.send_message(&as_key(None), send("hello")).await.unwrap_err();
        assert!(
            matches!(error, Error::Unauthenticated { .. }),
            "{binding}: the layer still applies: {error:?}"
        );
    }
    server.shutdown().await.unwrap();
}
