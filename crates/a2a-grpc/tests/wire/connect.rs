//! How `GrpcClient` finds an agent: bare `host:port` as agent cards advertise it, URLs with a
//! path prefix, and connection failures as `Error::Transport`.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use a2a_core::{A2aService, CallContext, Error};
use a2a_grpc::GrpcClient;
use a2a_proto::v1::GetTaskRequest;
use tonic::body::Body;
use tonic::codegen::{BoxFuture, Service};
use tonic::server::NamedService;
use tonic::transport::Server;

use crate::support::{Scripted, TestServer};

fn get_task() -> GetTaskRequest {
    GetTaskRequest { id: "task-1".into(), ..Default::default() }
}

#[tokio::test]
async fn a_bare_host_and_port_as_agent_cards_advertise_is_plain_http() {
    let server = TestServer::start(Scripted::new()).await;

    for endpoint in [server.addr.to_string(), format!("{}/", server.url())] {
        let client = GrpcClient::connect(&*endpoint).await.unwrap();
        assert_eq!(client.get_task(&CallContext::v1(), get_task()).await.unwrap().id, "task-1", "{endpoint}");
    }

    server.stop().await;
}

/// A port nothing listens on: bound, then released.
async fn closed_port() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    addr.to_string()
}

#[tokio::test]
async fn connecting_to_a_closed_port_is_a_transport_error() {
    let endpoint = closed_port().await;
    match GrpcClient::connect(&*endpoint).await {
        Err(Error::Transport { reason }) => assert!(!reason.is_empty()),
        other => panic!("expected a Transport error, got {other:?}"),
    }
}

#[tokio::test]
async fn a_lazy_client_reports_the_closed_port_on_the_first_call() {
    let client = GrpcClient::connect_lazy(closed_port().await).unwrap();
    let error = client.get_task(&CallContext::v1(), get_task()).await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
}

/// Routes `/a2a/grpc/lf.a2a.v1.A2AService/*` to the A2A service with the prefix removed, as a
/// path-routing proxy in front of an agent would; records the paths it was asked for.
#[derive(Clone)]
struct StripPrefix<S> {
    inner: S,
    seen: Arc<Mutex<Vec<String>>>,
}

impl<S> NamedService for StripPrefix<S> {
    const NAME: &'static str = "a2a/grpc/lf.a2a.v1.A2AService";
}

impl<S> Service<http::Request<Body>> for StripPrefix<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>, Error = Infallible>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = Infallible;
    type Future = BoxFuture<Self::Response, Self::Error>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        let path = request.uri().path().to_owned();
        self.seen.lock().unwrap().push(path.clone());
        let stripped = path.strip_prefix("/a2a/grpc").unwrap_or(&path);
        *request.uri_mut() = stripped.parse().unwrap();
        Box::pin(self.inner.call(request))
    }
}

#[tokio::test]
async fn a_url_path_prefixes_every_method_path() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let proxy = StripPrefix { inner: a2a_grpc::server(Scripted::new()), seen: seen.clone() };
    let server = TestServer::start_router(Server::builder().add_service(proxy)).await;

    // As in spec 8.5's sample card: `"url": "https://.../a2a/grpc"` for GRPC.
    let client = GrpcClient::connect(format!("{}/a2a/grpc/", server.url())).await.unwrap();
    assert_eq!(client.get_task(&CallContext::v1(), get_task()).await.unwrap().id, "task-1");
    assert_eq!(*seen.lock().unwrap(), ["/a2a/grpc/lf.a2a.v1.A2AService/GetTask"]);

    drop(client);
    server.stop().await;
}
