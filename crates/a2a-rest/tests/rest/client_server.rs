//! Our client against our server: every operation arrives with its request and service
//! parameters intact, and every answer comes back intact.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use a2a_core::{A2aService, CallContext, Operation, Principal, ServiceParams};
use a2a_proto::v1::{
    send_message_response, AuthenticationInfo, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, SendMessageConfiguration,
    SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig, TaskState,
};
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::IntoResponse;
use http::{Method, StatusCode};

use crate::support::{
    self, client, collect, events, extended_card, push_config, serve, Scripted, TestServer,
};

fn ctx_with_custom_param() -> CallContext {
    CallContext::new(
        ServiceParams::new().with("X-Trace-Id", "trace-7").with("A2A-Extensions", "urn:ext:a,urn:ext:b"),
    )
}

#[tokio::test]
async fn send_message_delivers_request_and_params_and_returns_the_task() {
    let (service, server) = serve().await;
    let request = SendMessageRequest {
        message: Some(Message::user_text("What is the weather today?").with_context_id("ctx-1")),
        configuration: Some(SendMessageConfiguration {
            accepted_output_modes: vec!["text/plain".into()],
            ..Default::default()
        }),
        ..Default::default()
    };

    let response = client(&server).send_message(&ctx_with_custom_param(), request.clone()).await.unwrap();

    let Some(send_message_response::Payload::Task(task)) = response.payload else { panic!("{response:?}") };
    assert_eq!(task.id, "task-uuid");
    assert_eq!(task.history[0], request.message.clone().unwrap());
    let call = service.only_call();
    assert_eq!(call.operation, Operation::SendMessage);
    assert_eq!(call.request::<SendMessageRequest>(), request);
    assert_eq!(call.param("x-trace-id"), Some("trace-7"));
    assert_eq!(call.param("A2A-Extensions"), Some("urn:ext:a,urn:ext:b"));
    assert_eq!(call.param("a2a-version"), Some("1.0"), "the client defaults the version (spec 3.6.1)");
    server.stop().await;
}

#[tokio::test]
async fn an_explicit_version_param_is_sent_instead_of_the_default() {
    let (service, server) = serve().await;
    let ctx = CallContext::new(ServiceParams::new().with("A2A-Version", "0.3"));
    client(&server).get_task(&ctx, GetTaskRequest { id: "t".into(), ..Default::default() }).await.unwrap();
    assert_eq!(service.only_call().param("a2a-version"), Some("0.3"));
    server.stop().await;
}

#[tokio::test]
async fn send_streaming_message_yields_every_event_in_order() {
    let (service, server) = serve().await;
    let request =
        SendMessageRequest { message: Some(Message::user_text("Write a report")), ..Default::default() };

    let stream = client(&server).send_streaming_message(&CallContext::v1(), request.clone()).await.unwrap();
    let received: Vec<_> = collect(stream).await.into_iter().map(Result::unwrap).collect();

    assert_eq!(received, events("task-uuid"));
    assert_eq!(service.only_call().request::<SendMessageRequest>(), request);
    server.stop().await;
}

#[tokio::test]
async fn get_task_sends_id_in_path_and_history_length_in_query() {
    let (service, server) = serve().await;
    let request = GetTaskRequest { id: "task-123".into(), history_length: Some(0), ..Default::default() };

    let task = client(&server).get_task(&CallContext::v1(), request.clone()).await.unwrap();

    assert_eq!(task, support::task("task-123", TaskState::Working));
    let call = service.only_call();
    assert_eq!(call.operation, Operation::GetTask);
    assert_eq!(call.request::<GetTaskRequest>(), request, "historyLength=0 is kept distinct from unset");
    server.stop().await;
}

#[tokio::test]
async fn list_tasks_sends_every_filter() {
    let (service, server) = serve().await;
    let request = ListTasksRequest {
        context_id: "c295ea44-7543-4f78-b524-7a38915ad6e4".into(),
        status: TaskState::InputRequired.into(),
        page_size: Some(10),
        page_token: "base64+cursor/token==".into(),
        history_length: Some(3),
        status_timestamp_after: Some(a2a_proto::Timestamp { seconds: 1_762_684_200, nanos: 0 }),
        include_artifacts: Some(true),
        ..Default::default()
    };

    let response = client(&server).list_tasks(&CallContext::v1(), request.clone()).await.unwrap();

    assert_eq!(response.tasks.len(), 1);
    assert_eq!(response.page_size, 10);
    assert_eq!(service.only_call().request::<ListTasksRequest>(), request);
    server.stop().await;
}

#[tokio::test]
async fn cancel_task_posts_to_the_cancel_verb() {
    let (service, server) = serve().await;
    let request = CancelTaskRequest { id: "task-9".into(), ..Default::default() };

    let task = client(&server).cancel_task(&CallContext::v1(), request.clone()).await.unwrap();

    assert_eq!(task.state(), TaskState::Canceled);
    let call = service.only_call();
    assert_eq!(call.operation, Operation::CancelTask);
    assert_eq!(call.request::<CancelTaskRequest>(), request);
    server.stop().await;
}

#[tokio::test]
async fn subscribe_to_task_streams_the_task_events() {
    let (service, server) = serve().await;
    let request = SubscribeToTaskRequest { id: "task-5".into(), ..Default::default() };

    let stream = client(&server).subscribe_to_task(&CallContext::v1(), request.clone()).await.unwrap();
    let received: Vec<_> = collect(stream).await.into_iter().map(Result::unwrap).collect();

    assert_eq!(received, events("task-5"));
    assert_eq!(service.only_call().request::<SubscribeToTaskRequest>(), request);
    server.stop().await;
}

/// A server that only accepts GET for SubscribeToTask (the proto annotation), as one community
/// crate does (docs/interop-notes.md).
async fn serve_subscribe_by_get_only() -> (Arc<Scripted>, Arc<AtomicUsize>, TestServer) {
    let service = Scripted::new();
    let posts = Arc::new(AtomicUsize::new(0));
    let counter = posts.clone();
    let router = a2a_rest::router(service.clone()).layer(axum::middleware::from_fn(
        move |request: Request, next: Next| {
            let counter = counter.clone();
            async move {
                if request.method() == Method::POST && request.uri().path().ends_with(":subscribe") {
                    counter.fetch_add(1, Ordering::SeqCst);
                    return (StatusCode::METHOD_NOT_ALLOWED, [("allow", "GET")]).into_response();
                }
                next.run(request).await
            }
        },
    ));
    (service, posts, TestServer::start(router).await)
}

#[tokio::test]
async fn subscribe_falls_back_to_get_on_405_and_remembers_it() {
    let (service, posts, server) = serve_subscribe_by_get_only().await;
    let client = client(&server);

    for id in ["t1", "t2"] {
        let request = SubscribeToTaskRequest { id: id.into(), ..Default::default() };
        let stream = client.subscribe_to_task(&CallContext::v1(), request).await.unwrap();
        let received: Vec<_> = collect(stream).await.into_iter().map(Result::unwrap).collect();
        assert_eq!(received, events(id));
    }

    assert_eq!(posts.load(Ordering::SeqCst), 1, "only the first subscription tried POST");
    let ids: Vec<String> = service.calls().iter().map(|c| c.request::<SubscribeToTaskRequest>().id).collect();
    assert_eq!(ids, ["t1", "t2"]);
    server.stop().await;
}

#[tokio::test]
async fn push_config_operations_round_trip() {
    let (service, server) = serve().await;
    let client = client(&server);
    let ctx = CallContext::v1();
    let config = TaskPushNotificationConfig {
        task_id: "task-1".into(),
        url: "https://client.example.com/webhook".into(),
        token: "tok".into(),
        authentication: Some(AuthenticationInfo { scheme: "Bearer".into(), credentials: "secret".into() }),
        ..Default::default()
    };

    let created = client.create_task_push_notification_config(&ctx, config.clone()).await.unwrap();
    let got = client
        .get_task_push_notification_config(
            &ctx,
            GetTaskPushNotificationConfigRequest {
                task_id: "task-1".into(),
                id: "cfg-1".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let listed = client
        .list_task_push_notification_configs(
            &ctx,
            ListTaskPushNotificationConfigsRequest {
                task_id: "task-1".into(),
                page_size: 5,
                page_token: "p2".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    let delete = DeleteTaskPushNotificationConfigRequest {
        task_id: "task-1".into(),
        id: "cfg-1".into(),
        ..Default::default()
    };
    client.delete_task_push_notification_config(&ctx, delete.clone()).await.unwrap();

    assert_eq!(created, TaskPushNotificationConfig { id: "cfg-1".into(), ..config.clone() });
    assert_eq!(got, push_config("task-1", "cfg-1"));
    assert_eq!(listed.configs, [push_config("task-1", "cfg-1"), push_config("task-1", "cfg-2")]);
    let calls = service.calls();
    let operations: Vec<Operation> = calls.iter().map(|c| c.operation).collect();
    assert_eq!(
        operations,
        [
            Operation::CreateTaskPushNotificationConfig,
            Operation::GetTaskPushNotificationConfig,
            Operation::ListTaskPushNotificationConfigs,
            Operation::DeleteTaskPushNotificationConfig,
        ]
    );
    assert_eq!(calls[0].request::<TaskPushNotificationConfig>(), config);
    let list = calls[2].request::<ListTaskPushNotificationConfigsRequest>();
    assert_eq!((list.page_size, list.page_token.as_str()), (5, "p2"));
    assert_eq!(calls[3].request::<DeleteTaskPushNotificationConfigRequest>(), delete);
    server.stop().await;
}

#[tokio::test]
async fn get_extended_agent_card_returns_the_card() {
    let (service, server) = serve().await;
    let card = client(&server)
        .get_extended_agent_card(&CallContext::v1(), GetExtendedAgentCardRequest::default())
        .await
        .unwrap();
    assert_eq!(card, extended_card());
    assert_eq!(service.only_call().operation, Operation::GetExtendedAgentCard);
    server.stop().await;
}

#[tokio::test]
async fn client_tenant_reaches_every_operation() {
    let (service, server) = serve().await;
    let client = client(&server).with_tenant("acme corp");
    let ctx = CallContext::v1();
    let send = || SendMessageRequest { message: Some(Message::user_text("hi")), ..Default::default() };

    client.send_message(&ctx, send()).await.unwrap();
    collect(client.send_streaming_message(&ctx, send()).await.unwrap()).await;
    client.get_task(&ctx, GetTaskRequest { id: "t".into(), ..Default::default() }).await.unwrap();
    client.list_tasks(&ctx, ListTasksRequest::default()).await.unwrap();
    client.cancel_task(&ctx, CancelTaskRequest { id: "t".into(), ..Default::default() }).await.unwrap();
    collect(
        client
            .subscribe_to_task(&ctx, SubscribeToTaskRequest { id: "t".into(), ..Default::default() })
            .await
            .unwrap(),
    )
    .await;
    client
        .create_task_push_notification_config(
            &ctx,
            TaskPushNotificationConfig { task_id: "t".into(), ..push_config("t", "") },
        )
        .await
        .unwrap();
    client
        .get_task_push_notification_config(
            &ctx,
            GetTaskPushNotificationConfigRequest {
                task_id: "t".into(),
                id: "c".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    client
        .list_task_push_notification_configs(
            &ctx,
            ListTaskPushNotificationConfigsRequest { task_id: "t".into(), ..Default::default() },
        )
        .await
        .unwrap();
    client
        .delete_task_push_notification_config(
            &ctx,
            DeleteTaskPushNotificationConfigRequest {
                task_id: "t".into(),
                id: "c".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    client.get_extended_agent_card(&ctx, GetExtendedAgentCardRequest::default()).await.unwrap();

    let calls = service.calls();
    assert_eq!(calls.len(), 11);
    for call in calls {
        assert_eq!(call.request["tenant"], "acme corp", "{:?}", call.operation);
    }
    server.stop().await;
}

#[tokio::test]
async fn a_request_tenant_overrides_the_client_tenant() {
    let (service, server) = serve().await;
    let request = GetTaskRequest { id: "t".into(), tenant: "other".into(), ..Default::default() };
    client(&server).with_tenant("acme").get_task(&CallContext::v1(), request).await.unwrap();
    assert_eq!(service.only_call().request["tenant"], "other");
    server.stop().await;
}

#[tokio::test]
async fn ids_with_reserved_characters_arrive_unchanged() {
    let (service, server) = serve().await;
    let client = client(&server);
    let ctx = CallContext::v1();
    let odd = "a/b c:cancel?x=1#frag%20é+";

    client.get_task(&ctx, GetTaskRequest { id: odd.into(), ..Default::default() }).await.unwrap();
    client.cancel_task(&ctx, CancelTaskRequest { id: odd.into(), ..Default::default() }).await.unwrap();
    client
        .delete_task_push_notification_config(
            &ctx,
            DeleteTaskPushNotificationConfigRequest {
                task_id: odd.into(),
                id: odd.into(),
                tenant: odd.into(),
            },
        )
        .await
        .unwrap();

    let calls = service.calls();
    assert_eq!(calls[0].request::<GetTaskRequest>().id, odd);
    assert_eq!(calls[1].request::<CancelTaskRequest>().id, odd);
    let delete = calls[2].request::<DeleteTaskPushNotificationConfigRequest>();
    assert_eq!((delete.task_id.as_str(), delete.id.as_str(), delete.tenant.as_str()), (odd, odd, odd));
    server.stop().await;
}

#[tokio::test]
async fn principal_from_request_extensions_reaches_the_service() {
    let service = Scripted::new();
    let router = a2a_rest::router(service.clone()).layer(axum::middleware::from_fn(
        |mut request: Request, next: Next| async move {
            request.extensions_mut().insert(Principal::new("alice"));
            next.run(request).await
        },
    ));
    let server = TestServer::start(router).await;

    client(&server)
        .get_task(&CallContext::v1(), GetTaskRequest { id: "t".into(), ..Default::default() })
        .await
        .unwrap();

    assert_eq!(service.only_call().ctx.principal, Some(Principal::new("alice")));
    server.stop().await;
}

#[tokio::test]
async fn client_base_path_prefixes_every_route() {
    let service = Scripted::new();
    let server =
        TestServer::start(axum::Router::new().nest("/a2a/v1", a2a_rest::router(service.clone()))).await;
    let client = a2a_rest::RestClient::new(format!("{}/a2a/v1/", server.base())).unwrap();

    let task = client
        .get_task(&CallContext::v1(), GetTaskRequest { id: "t1".into(), ..Default::default() })
        .await
        .unwrap();

    assert_eq!(task, support::task("t1", TaskState::Working));
    server.stop().await;
}

#[tokio::test]
async fn empty_path_ids_fail_in_the_client_naming_the_field() {
    let (service, server) = serve().await;
    let err = client(&server).get_task(&CallContext::v1(), GetTaskRequest::default()).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "id");
    assert!(service.calls().is_empty());
    server.stop().await;
}

/// Compile-time check: the client is usable behind `Arc<dyn A2aService>` like any handler.
#[allow(dead_code)]
fn client_is_an_a2a_service(client: a2a_rest::RestClient) -> Arc<dyn A2aService> {
    Arc::new(client)
}
