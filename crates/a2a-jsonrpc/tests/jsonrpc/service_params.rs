//! Service parameters (spec 3.2.6, 9.2) and the principal travelling from HTTP to the service.

use a2a_core::{A2aService, CallContext, Principal, ServiceParams};
use a2a_proto::v1::GetTaskRequest;
use axum::Extension;

use crate::support::{post_raw, serve_scripted, Scripted, TestServer};

const GET_TASK: &str = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#;

fn get_task() -> GetTaskRequest {
    GetTaskRequest { id: "t".into(), ..Default::default() }
}

#[tokio::test]
async fn the_version_header_reaches_the_service() {
    let (server, service) = serve_scripted().await;
    post_raw(&server.url, GET_TASK, &[("A2A-Version", "1.0")]).await;
    assert_eq!(service.last_call().ctx.params.version(), Some("1.0"));
}

#[tokio::test]
async fn the_version_query_parameter_is_used_when_there_is_no_header() {
    let (server, service) = serve_scripted().await;
    post_raw(&format!("{}?A2A-Version=1.0", server.url), GET_TASK, &[]).await;
    assert_eq!(service.last_call().ctx.params.version(), Some("1.0"));

    post_raw(&format!("{}?A2A-Version=0.3", server.url), GET_TASK, &[("A2A-Version", "1.0")]).await;
    assert_eq!(service.last_call().ctx.params.version(), Some("1.0"), "the header wins");
}

#[tokio::test]
async fn a_missing_version_is_passed_on_as_missing_for_the_handler_to_judge() {
    let (server, service) = serve_scripted().await;
    let raw = post_raw(&server.url, GET_TASK, &[]).await;
    assert_eq!(raw.json()["result"]["id"], "t", "the binding itself does not validate the version");
    assert_eq!(service.last_call().ctx.params.version(), None);
}

#[tokio::test]
async fn extensions_and_custom_headers_reach_the_service() {
    let (server, service) = serve_scripted().await;
    let extensions =
        "https://example.com/extensions/geolocation/v1,https://standards.org/extensions/citations/v1";
    post_raw(&server.url, GET_TASK, &[("A2A-Extensions", extensions), ("X-Trace-Id", "abc-123")]).await;

    let params = service.last_call().ctx.params;
    assert_eq!(
        params.extensions(),
        ["https://example.com/extensions/geolocation/v1", "https://standards.org/extensions/citations/v1"]
    );
    assert_eq!(params.get("x-trace-id"), Some("abc-123"));
}

#[tokio::test]
async fn the_client_sends_the_context_params_as_headers() {
    let (server, service) = serve_scripted().await;
    let params =
        ServiceParams::v1().with("A2A-Extensions", "urn:ext:a,urn:ext:b").with("X-Tenant-Hint", "blue");
    server.client().get_task(&CallContext::new(params), get_task()).await.unwrap();

    let received = service.last_call().ctx.params;
    assert_eq!(received.version(), Some("1.0"));
    assert_eq!(received.extensions(), ["urn:ext:a", "urn:ext:b"]);
    assert_eq!(received.get("x-tenant-hint"), Some("blue"));
}

#[tokio::test]
async fn the_client_sends_version_1_0_when_the_context_names_none() {
    let (server, service) = serve_scripted().await;
    server.client().get_task(&CallContext::default(), get_task()).await.unwrap();
    assert_eq!(service.last_call().ctx.params.version(), Some("1.0"));

    let older = CallContext::new(ServiceParams::new().with("A2A-Version", "0.3"));
    server.client().get_task(&older, get_task()).await.unwrap();
    assert_eq!(service.last_call().ctx.params.version(), Some("0.3"), "an explicit version is kept");
}

#[tokio::test]
async fn a_context_copied_from_an_incoming_request_does_not_corrupt_the_outgoing_one() {
    let (server, service) = serve_scripted().await;
    // What a proxy would forward: framing headers of another request.
    let params = ServiceParams::v1()
        .with("content-length", "99999")
        .with("content-type", "text/plain")
        .with("host", "elsewhere.example");
    let task = server.client().get_task(&CallContext::new(params), get_task()).await.unwrap();
    assert_eq!(task.id, "t", "the request arrived intact");
    let received = service.last_call().ctx.params;
    for framing in ["content-length", "content-type", "host"] {
        assert_eq!(received.get(framing), None, "{framing} is transport, never a service parameter");
    }
}

#[tokio::test]
async fn a_principal_set_by_an_auth_layer_reaches_the_service() {
    let service = Scripted::new();
    let router = a2a_jsonrpc::router(service.clone()).layer(Extension(Principal::new("alice")));
    let server = TestServer::start(router).await;

    server.client().get_task(&CallContext::v1(), get_task()).await.unwrap();
    assert_eq!(service.last_call().ctx.principal, Some(Principal::new("alice")));
}

#[tokio::test]
async fn without_an_auth_layer_there_is_no_principal() {
    let (server, service) = serve_scripted().await;
    server.client().get_task(&CallContext::v1(), get_task()).await.unwrap();
    assert_eq!(service.last_call().ctx.principal, None);
}

#[tokio::test]
async fn the_router_can_be_nested_under_a_path() {
    let service = Scripted::new();
    let app = axum::Router::new().nest("/a2a/jsonrpc", a2a_jsonrpc::router(service.clone()));
    let server = TestServer::start(app).await;

    let client = a2a_jsonrpc::JsonRpcClient::new(format!("{}a2a/jsonrpc", server.url));
    assert_eq!(client.get_task(&CallContext::v1(), get_task()).await.unwrap().id, "t");
}
