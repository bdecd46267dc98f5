//! Service parameters (spec 3.2.6) travel as gRPC metadata (spec 10.2) and reach the service in
//! its `CallContext`, as does a principal set by an authentication layer.

use a2a_core::{A2aService, CallContext, Principal, ServiceParams};
use a2a_proto::v1::GetTaskRequest;
use tonic::metadata::MetadataValue;
use tonic::transport::Server;
use tonic::Request;

use crate::support::{Scripted, TestServer};

fn get_task() -> GetTaskRequest {
    GetTaskRequest { id: "task-1".into(), ..Default::default() }
}

fn params_of(ctx: &CallContext) -> Vec<(String, String)> {
    ctx.params.iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

#[tokio::test]
async fn version_extensions_and_custom_params_reach_the_service_and_nothing_else() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let client = server.client().await;

    let params = ServiceParams::new()
        .with("A2A-Version", "1.0")
        .with("A2A-Extensions", "https://example.com/ext/geo/v1,https://example.com/ext/cite/v1")
        .with("X-Request-Origin", "unit-test");
    client.get_task(&CallContext::new(params), get_task()).await.unwrap();

    let ctx = scripted.last_context();
    assert_eq!(
        ctx.params.extensions(),
        ["https://example.com/ext/geo/v1", "https://example.com/ext/cite/v1"]
    );
    // Exactly these: transport metadata (te, content-type, user-agent, grpc-*) is not a parameter.
    assert_eq!(
        params_of(&ctx),
        [
            (
                "a2a-extensions".into(),
                "https://example.com/ext/geo/v1,https://example.com/ext/cite/v1".into()
            ),
            ("a2a-version".into(), "1.0".into()),
            ("x-request-origin".into(), "unit-test".into()),
        ]
    );
    assert_eq!(ctx.principal, None);

    drop(client);
    server.stop().await;
}

#[tokio::test]
async fn the_client_sends_version_1_0_unless_the_context_names_one() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let client = server.client().await;

    client.get_task(&CallContext::default(), get_task()).await.unwrap();
    assert_eq!(scripted.last_context().params.version(), Some("1.0"), "spec 3.6.1: clients send A2A-Version");

    let older = CallContext::new(ServiceParams::new().with("a2a-version", "0.3"));
    client.get_task(&older, get_task()).await.unwrap();
    assert_eq!(scripted.last_context().params.version(), Some("0.3"));

    drop(client);
    server.stop().await;
}

#[tokio::test]
async fn the_server_passes_parameters_through_without_adding_a_version() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let mut raw = server.raw_client().await;

    // A peer that sends no version and repeats a2a-extensions instead of joining the values.
    let mut request = Request::new(get_task());
    request.metadata_mut().append("a2a-extensions", MetadataValue::from_static("urn:a"));
    request.metadata_mut().append("a2a-extensions", MetadataValue::from_static("urn:b"));
    raw.get_task(request).await.unwrap();

    let ctx = scripted.last_context();
    assert_eq!(ctx.params.version(), None, "validating the version is the handler's job (spec 3.6.2)");
    assert_eq!(ctx.params.get("a2a-extensions"), Some("urn:a,urn:b"));

    drop(raw);
    server.stop().await;
}

#[tokio::test]
async fn a_principal_set_by_an_authentication_layer_reaches_the_service() {
    let scripted = Scripted::new();
    // Stands for an authentication middleware: it checks the credentials and records the caller
    // in the request extensions.
    let authenticate = |mut request: Request<()>| {
        let caller = request.metadata().get("authorization").and_then(|v| v.to_str().ok()).map(str::to_owned);
        if let Some(token) = caller.as_deref().and_then(|v| v.strip_prefix("Bearer ")) {
            request.extensions_mut().insert(Principal::new(format!("user-of-{token}")));
        }
        Ok(request)
    };
    let service = tonic::service::interceptor::InterceptedService::new(
        a2a_grpc::server(scripted.clone()),
        authenticate,
    );
    let server = TestServer::start_router(Server::builder().add_service(service)).await;
    let client = server.client().await;

    let ctx = CallContext::new(ServiceParams::v1().with("Authorization", "Bearer abc"));
    client.get_task(&ctx, get_task()).await.unwrap();
    assert_eq!(scripted.last_context().principal, Some(Principal::new("user-of-abc")));

    client.get_task(&CallContext::v1(), get_task()).await.unwrap();
    assert_eq!(scripted.last_context().principal, None);

    drop(client);
    server.stop().await;
}
