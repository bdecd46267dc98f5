//! The multi-transport A2A reference server: JSON-RPC, HTTP+JSON/REST and gRPC on one port, as a
//! library and as the `a2a-server` binary.
//!
//! Where it sits: on top of everything. It composes the three binding crates around one
//! [`a2a_core::DefaultRequestHandler`] and adds what a deployment needs: the agent card endpoint
//! with caching, push delivery over HTTP, gRPC reflection and health, graceful shutdown, and what
//! an operator watches: liveness and readiness probes ([`health`]), a request id per request
//! ([`request_id`]) and metrics ([`metrics`], `docs/operations.md`), and what protects it:
//! [`Limits`] on requests and streams and a [`rate_limit`] per caller. It holds no protocol logic
//! of its own.
//!
//! Layout on one port (the official Python SDK's default): JSON-RPC at `POST /`, the REST routes at
//! the root (`/message:send`, `/tasks/{id}`, ...), gRPC chosen by `content-type: application/grpc`,
//! and the card at `/.well-known/agent-card.json`, whose `supportedInterfaces` list all three.
//!
//! Features: `bin` (default) builds the `a2a-server` binary (its command line, log output and
//! allocator); `otel` makes the request and operation spans OpenTelemetry spans with W3C trace
//! context from the caller, publishes the metrics on an OpenTelemetry meter
//! ([`Metrics::export_to`]) (`docs/operations.md`), and gives the binary `--otlp-endpoint` and
//! `--otlp-metrics-endpoint`.
//!
//! A2A 0.3 clients are served on the same endpoints and see the same tasks (`docs/versions.md`):
//! JSON-RPC slash methods, REST under `/v1/...`, gRPC package `a2a.v1` beside `lf.a2a.v1`. The
//! card is the "union" card, readable by 0.3 and 1.0 clients, declaring a 1.0 and (after all
//! 1.0 entries) a 0.3 interface per binding.
//!
//! ```no_run
//! use a2a_core::{AgentExecutor, RequestContext, Result, TaskUpdater};
//! use a2a_proto::v1::{Artifact, Part};
//!
//! struct Echo;
//!
//! #[async_trait::async_trait]
//! impl AgentExecutor for Echo {
//!     async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
//!         updater.add_artifact(Artifact::new(vec![Part::text(ctx.message.text())])).await?;
//!         updater.complete(None).await
//!     }
//! }
//!
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! a2a_server::Server::builder()
//!     .agent_card(a2a_demo::demo_card())
//!     .executor(Echo)
//!     .serve(listener)
//!     .await
//! # }
//! ```

pub mod auth;
pub mod card;
pub mod catalog;
mod console;
/// The demo agent, which moved to its own crate so that this library carries none.
#[cfg(feature = "bin")]
#[deprecated(
    since = "0.2.0",
    note = "the demo agent is the `a2a-demo` crate: use `a2a_demo::...` (CHANGELOG.md)"
)]
pub mod demo {
    pub use a2a_demo::*;
}
pub mod health;
mod limits;
pub mod metrics;
#[cfg(feature = "otel")]
mod otel;
mod panic;
pub mod push_http;
pub mod rate_limit;
pub mod request_id;
pub mod store;
mod streams;
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::push::DestinationPolicy;
use a2a_core::store::{PushConfigStore, TaskStore};
use a2a_core::{A2aService, AgentExecutor, DefaultRequestHandler};
use a2a_proto::v1::AgentCard;
use axum::body::Body;
use axum::extract::Request;
use axum::serve::ListenerExt;
use axum::Router;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

pub use a2a_core::handler::TenantAgent;
pub use card::{interfaces, interfaces_of, tenant_card_path, CardForm, AGENT_CARD_PATH};
pub use catalog::AI_CATALOG_PATH;
pub use console::CONSOLE_PATH;
pub use limits::Limits;
pub use metrics::Metrics;
pub use push_http::HttpPushTransport;
pub use rate_limit::RateLimit;

/// Entry point: [`Server::builder`].
#[derive(Debug)]
pub struct Server;

impl Server {
    /// A builder with nothing configured.
    pub fn builder() -> ServerBuilder {
        ServerBuilder::default()
    }
}

/// Configures and runs a reference server.
#[derive(Default)]
pub struct ServerBuilder {
    card: Option<AgentCard>,
    extended_card: Option<AgentCard>,
    extended_card_for: Option<Arc<a2a_core::handler::ExtendedCardFn>>,
    tenants: Vec<(String, TenantAgent)>,
    executor: Option<Arc<dyn AgentExecutor>>,
    tasks: Option<Arc<dyn TaskStore>>,
    push_configs: Option<Arc<dyn PushConfigStore>>,
    cluster: Option<Arc<dyn a2a_core::cluster::Cluster>>,
    policy: DestinationPolicy,
    push_retry: Option<a2a_core::push::RetryPolicy>,
    push_timeout: Option<std::time::Duration>,
    public_url: Option<String>,
    grpc_url: Option<String>,
    jsonrpc_path: Option<String>,
    card_form: CardForm,
    card_signer: Option<Arc<a2a_card_sign::CardSigner>>,
    extensions_required_for: Option<Vec<a2a_core::Operation>>,
    separate: Vec<(Binding, TcpListener)>,
    push_transport: Option<Arc<dyn a2a_core::push::PushTransport>>,
    layers: Vec<Arc<dyn Fn(Router) -> Router + Send + Sync>>,
    service: Option<Arc<dyn A2aService>>,
    metrics: Option<Metrics>,
    metrics_listener: Option<TcpListener>,
    tls: Option<tls::TlsConfig>,
    limits: Limits,
    rate_limit: Option<RateLimit>,
    shutdown_timeout: Option<Duration>,
    console: bool,
}

/// How long a graceful shutdown waits for calls in flight by default (see
/// [`ServerBuilder::shutdown_timeout`]).
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

/// One of the three protocol bindings the server offers (`a2a_core::Binding`).
pub use a2a_core::Binding;

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder").field("public_url", &self.public_url).finish_non_exhaustive()
    }
}

impl ServerBuilder {
    /// The public agent card. Its `supportedInterfaces` are filled in from the public URL when empty;
    /// each tenantless interface of another version then gets a 0.3 twin (same URL and binding,
    /// listed after the given ones), since every binding of this server also serves A2A 0.3.
    pub fn agent_card(self, card: AgentCard) -> Self {
        Self { card: Some(card), ..self }
    }

    /// The extended card for authenticated callers (spec 3.1.11).
    pub fn extended_agent_card(mut self, card: AgentCard) -> Self {
        self.extended_card = Some(card);
        self.extended_card_for = None;
        self
    }

    /// The extended card computed per caller (spec 3.1.11: what an authenticated caller sees
    /// may differ by principal); `None` answers `ExtendedAgentCardNotConfigured`. Signed like
    /// the static one when the card is ([`sign_card`](Self::sign_card)); a card without
    /// interfaces gets the public card's.
    pub fn extended_agent_card_for(
        mut self,
        compute: impl Fn(Option<&a2a_core::Principal>) -> Option<AgentCard> + Send + Sync + 'static,
    ) -> Self {
        self.extended_card_for = Some(Arc::new(compute));
        self.extended_card = None;
        self
    }

    /// Serves another agent at `tenant` (spec 4.4.1 `AgentInterface.tenant`), with its own card,
    /// executor, security and extended card, on the same ports and stores as the main agent
    /// (`a2a_core::handler::HandlerBuilder::tenant` says how requests are routed; `docs/tenants.md`).
    /// Its card is served at [`tenant_card_path`] (`/{tenant}/.well-known/agent-card.json`),
    /// 1.0 only (A2A 0.3 has no tenants), signed like the main card; when it lists no
    /// interfaces it gets the main card's 1.0 interfaces with `tenant` set. Security: the
    /// server's authentication [`layer`](Self::layer)s identify callers for every agent, and
    /// each agent admits exactly the schemes its own card requires (`docs/security.md`). Needs
    /// an [`executor`](Self::executor) (not a [`service`](Self::service)) for the main agent.
    pub fn tenant(mut self, tenant: impl Into<String>, agent: TenantAgent) -> Self {
        let tenant = tenant.into();
        self.tenants.retain(|(name, _)| *name != tenant);
        self.tenants.push((tenant, agent));
        self
    }

    /// The agent logic.
    pub fn executor(self, executor: impl AgentExecutor) -> Self {
        Self { executor: Some(Arc::new(executor)), ..self }
    }

    /// Serves `service` instead of the default handler built from [`executor`](Self::executor):
    /// any [`A2aService`], e.g. a `DefaultRequestHandler` wrapped in an authorization check of
    /// your own, or a proxy to another agent. Give one or the other. The stores, push and
    /// cluster settings of this builder configure the default handler only; a service brings its
    /// own, and `serve` runs no `recover` for it.
    pub fn service(self, service: Arc<dyn A2aService>) -> Self {
        Self { service: Some(service), ..self }
    }

    /// Makes this server one replica of several sharing its task store (see
    /// `a2a_core::cluster`; for PostgreSQL, `a2a_store_sql::PostgresStore::cluster`).
    /// `serve` starts its heartbeat; with [`app`](Self::app), [`App::recover`] does.
    pub fn cluster(self, cluster: Arc<dyn a2a_core::cluster::Cluster>) -> Self {
        Self { cluster: Some(cluster), ..self }
    }

    /// Where tasks are stored (default: in memory, `a2a_core::store::memory::InMemoryTaskStore`).
    pub fn task_store(self, store: Arc<dyn TaskStore>) -> Self {
        Self { tasks: Some(store), ..self }
    }

    /// Push config storage (default: in memory).
    pub fn push_config_store(self, store: Arc<dyn PushConfigStore>) -> Self {
        Self { push_configs: Some(store), ..self }
    }

    /// Wraps every binding, on every port, in `layer` (the card endpoint too): an
    /// authentication layer that puts an `a2a_core::Principal` in the request extensions (see
    /// [`auth`]), a rate limit, a trace. Layers given later wrap those given earlier.
    pub fn layer<L>(mut self, layer: L) -> Self
    where
        L: tower::Layer<axum::routing::Route> + Clone + Send + Sync + 'static,
        L::Service: tower::Service<Request<Body>> + Clone + Send + Sync + 'static,
        <L::Service as tower::Service<Request<Body>>>::Response: axum::response::IntoResponse + 'static,
        <L::Service as tower::Service<Request<Body>>>::Error: Into<std::convert::Infallible> + 'static,
        <L::Service as tower::Service<Request<Body>>>::Future: Send + 'static,
    {
        self.layers.push(Arc::new(move |router: Router| router.layer(layer.clone())));
        self
    }

    /// Serves every port but the metrics one over TLS with this certificate (`tls` module docs):
    /// ALPN h2 and http/1.1, gRPC included, `Strict-Transport-Security` on responses, and
    /// `https` in the default public URL.
    pub fn tls(self, config: tls::TlsConfig) -> Self {
        Self { tls: Some(config), ..self }
    }

    /// The server's limits: request sizes, body read timeout, open streams, and what a request
    /// may carry (default [`Limits::default`]; `docs/operations.md`, "Limits").
    pub fn limits(self, limits: Limits) -> Self {
        Self { limits, ..self }
    }

    /// Limits every caller to `limit` (default: no rate limit): a token bucket per principal
    /// (from an authentication [`layer`](Self::layer)), else per client IP address. A call over
    /// it is refused with HTTP 429 and `Retry-After`, or gRPC `RESOURCE_EXHAUSTED` ([`rate_limit`]).
    pub fn rate_limit(self, limit: RateLimit) -> Self {
        Self { rate_limit: Some(limit), ..self }
    }

    /// How long a graceful shutdown waits for the calls in flight (default
    /// [`DEFAULT_SHUTDOWN_TIMEOUT`]): open streams end at once, unary calls may finish within
    /// it. Past it, `serve` returns and the calls still running are abandoned (the binary then
    /// exits): a blocking SendMessage of a task that works for an hour does not hold the
    /// shutdown for an hour.
    pub fn shutdown_timeout(self, timeout: Duration) -> Self {
        Self { shutdown_timeout: Some(timeout), ..self }
    }

    /// Serves the web console at `/console` on the main port (default off; `docs/console.md`):
    /// the agent cards with their validation, a chat over the cards' HTTP bindings, the task list,
    /// each task's history, artifacts and push configs, and the server's health and request
    /// metrics. It admits the callers the main agent admits (the same authentication layers);
    /// without a credential only the login page is served.
    pub fn console(self, enabled: bool) -> Self {
        Self { console: enabled, ..self }
    }

    /// How push notifications are sent (default: `push_http::HttpPushTransport` with the
    /// destination policy): a transport of your own must check every address it connects to.
    pub fn push_transport(self, transport: Arc<dyn a2a_core::push::PushTransport>) -> Self {
        Self { push_transport: Some(transport), ..self }
    }

    /// How failed webhook deliveries are retried (default `RetryPolicy::default()`).
    pub fn push_retry_policy(self, retry: a2a_core::push::RetryPolicy) -> Self {
        Self { push_retry: Some(retry), ..self }
    }

    /// The timeout of each webhook request (default 10 s).
    pub fn push_timeout(self, timeout: std::time::Duration) -> Self {
        Self { push_timeout: Some(timeout), ..self }
    }

    /// Which webhook destinations are allowed (default: public addresses only, spec 13.2).
    pub fn push_destination_policy(self, policy: DestinationPolicy) -> Self {
        Self { policy, ..self }
    }

    /// The base URL clients use for JSON-RPC and REST (default: `http://` + the listen address).
    pub fn public_url(self, url: impl Into<String>) -> Self {
        Self { public_url: Some(url.into()), ..self }
    }

    /// The gRPC address the card advertises (default: the host and port of the public URL), in
    /// either form, written into the card as given:
    /// - `host:port`, what the spec's examples and most clients use (our `GrpcClient` takes it
    ///   as `https://` on port 443 and `http://` elsewhere);
    /// - a URL, `http://host:port` or `https://host:port[/path]`, for clients that need the scheme
    ///   spelled out (some official SDKs' gRPC clients) or a path-routing proxy in front.
    pub fn grpc_url(self, address: impl Into<String>) -> Self {
        Self { grpc_url: Some(address.into()), ..self }
    }

    /// Serves JSON-RPC at `path` instead of `/` (e.g. `/jsonrpc`, as many official SDK agents
    /// do; the trailing-slash twin is served too), and advertises that URL in the card.
    pub fn jsonrpc_path(self, path: impl Into<String>) -> Self {
        Self { jsonrpc_path: Some(path.into()), ..self }
    }

    /// How the card is written: the union of 1.0 and 0.3 (the default) or 1.0 only
    /// ([`CardForm`]). With `V1` the card lists no 0.3 interfaces; 0.3 requests are still served.
    pub fn card_form(self, form: CardForm) -> Self {
        Self { card_form: form, ..self }
    }

    /// Signs the agent card with `signer` (spec 8.4): the card served at [`AGENT_CARD_PATH`], in
    /// its form ([`card_form`](Self::card_form)), and the extended card
    /// (`GetExtendedAgentCard`) carry its signature, appended to any they already have.
    pub fn sign_card(self, signer: a2a_card_sign::CardSigner) -> Self {
        Self { card_signer: Some(Arc::new(signer)), ..self }
    }

    /// Enforces the card's required extensions only for these operations (default: every one);
    /// see `a2a_core::handler::HandlerBuilder::extensions_required_for`.
    pub fn extensions_required_for(
        mut self,
        operations: impl IntoIterator<Item = a2a_core::Operation>,
    ) -> Self {
        self.extensions_required_for = Some(operations.into_iter().collect());
        self
    }

    /// Serves `binding` on a port of its own instead of the main one (and advertises it there).
    /// The agent card stays on the main port.
    pub fn binding_listener(mut self, binding: Binding, listener: TcpListener) -> Self {
        self.separate.retain(|(b, _)| *b != binding);
        self.separate.push((binding, listener));
        self
    }

    /// Records this server's metrics in `metrics` (default: a new [`Metrics`], readable from
    /// [`RunningServer::metrics`] or [`App::metrics`]); keep a clone to read them in-process.
    pub fn metrics(self, metrics: Metrics) -> Self {
        Self { metrics: Some(metrics), ..self }
    }

    /// Serves the Prometheus scrape ([`metrics::METRICS_PATH`]) and the probes
    /// ([`health`]) on `listener`, a port of its own that needs no A2A credentials: keep it off
    /// the public network. Off by default; the probes are on the main port anyway.
    pub fn metrics_listener(self, listener: TcpListener) -> Self {
        Self { metrics_listener: Some(listener), ..self }
    }

    /// The complete HTTP + gRPC application for a server reachable at `local` (used for the
    /// default public URL), for users who serve it themselves (their own listener, layers or
    /// routes). What [`serve`](Self::serve) does around the router is theirs then, and
    /// [`App`] carries what they need for it:
    /// - resolve the tasks a previous run left running before the first request
    ///   ([`App::recover`]);
    /// - set `TCP_NODELAY` on accepted sockets (Nagle's algorithm holds small SSE events and
    ///   gRPC frames back up to 40 ms): `axum::serve(listener.tap_io(|tcp| { let _ =
    ///   tcp.set_nodelay(true); }), app.router)` with `axum::serve::ListenerExt`;
    /// - cancel [`App::shutdown`] when stopping, so open streams end cleanly and a graceful
    ///   shutdown does not wait for them forever;
    /// - with a [`rate_limit`](Self::rate_limit), serve
    ///   `app.router.into_make_service_with_connect_info::<SocketAddr>()`, so that callers
    ///   without a principal are told apart by their address (else they share one bucket).
    ///
    /// # Errors
    /// `InvalidInput` if a binding was given a listener of its own
    /// ([`binding_listener`](Self::binding_listener)): one router cannot serve it, and the card
    /// would advertise a port nobody serves. Use [`serve`](Self::serve) or [`spawn`](Self::spawn)
    /// for that, or mount the binding crates' routers yourself. Likewise with a
    /// [`metrics_listener`](Self::metrics_listener): serve [`App::metrics_router`] on it yourself,
    /// and with [`tls`](Self::tls): serve the router over TLS yourself.
    pub fn app(self, local: SocketAddr) -> std::io::Result<App> {
        if self.metrics_listener.is_some() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "app builds one router, but a metrics listener was given (metrics_listener): \
                 serve App::metrics_router on it, or use serve or spawn",
            ));
        }
        if self.tls.is_some() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "app builds a router, not a TLS listener, but TLS was given (tls): serve the \
                 router over TLS yourself, or use serve or spawn",
            ));
        }
        if let Some((binding, _)) = self.separate.first() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "app builds one router, but {binding:?} was given a listener of its own \
                     (binding_listener): use serve or spawn, which serve every listener"
                ),
            ));
        }
        let shutdown = CancellationToken::new();
        let (apps, card) = self.build(local, shutdown.clone())?;
        Ok(App {
            router: apps.main,
            card,
            shutdown,
            metrics: apps.metrics,
            readiness: apps.readiness,
            handler: apps.handler,
        })
    }

    /// The router and the card of [`app`](Self::app), as the first release's `into_app`
    /// returned them. What `app` adds (tasks left running resolved with [`App::recover`], the
    /// shutdown token that ends open streams, the metrics) is dropped: a task a previous run left
    /// running stays `WORKING` until a client cancels it, and a graceful shutdown waits for open
    /// streams.
    #[deprecated(
        since = "0.2.0",
        note = "use `app`, which returns an `App` (router, card, shutdown token, recover, metrics); CHANGELOG.md"
    )]
    pub fn into_app(self, local: SocketAddr) -> std::io::Result<(Router, AgentCard)> {
        self.app(local).map(|app| (app.router, app.card))
    }

    fn build(mut self, local: SocketAddr, shutdown: CancellationToken) -> std::io::Result<(Apps, AgentCard)> {
        // Core carries the request's trace into the execution and its push notifications.
        #[cfg(feature = "otel")]
        a2a_core::trace::set_reader(otel::current_trace);
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_owned());
        let mut card = self.card.take().ok_or_else(|| invalid("an agent card is required"))?;
        let metrics = self.metrics.take().unwrap_or_default();
        let executor = match (self.executor.take(), &self.service) {
            (Some(_), Some(_)) => return Err(invalid("give an executor or a service, not both")),
            (None, None) => return Err(invalid("an executor (or a service) is required")),
            (executor, _) => executor,
        };
        let separate: Vec<(Binding, TcpListener, SocketAddr)> = std::mem::take(&mut self.separate)
            .into_iter()
            .map(|(binding, listener)| listener.local_addr().map(|addr| (binding, listener, addr)))
            .collect::<std::io::Result<_>>()?;
        let own_port = |binding: Binding| separate.iter().find(|(b, _, _)| *b == binding).map(|(_, _, a)| *a);
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        let public_url = self.public_url.clone().unwrap_or_else(|| format!("{scheme}://{local}"));
        let grpc_url = match (own_port(Binding::Grpc), self.grpc_url.clone()) {
            (_, Some(address)) => address,
            (Some(addr), None) => addr.to_string(),
            (None, None) => {
                let url = url::Url::parse(&public_url).map_err(|e| invalid(&format!("public URL: {e}")))?;
                let host = url.host_str().ok_or_else(|| invalid("the public URL has no host"))?;
                let port = url.port_or_known_default().unwrap_or(local.port());
                if host.contains(':') {
                    format!("[{host}]:{port}")
                } else {
                    format!("{host}:{port}")
                }
            }
        };
        let http_url = |binding: Binding| {
            own_port(binding).map_or_else(|| public_url.clone(), |a| format!("{scheme}://{a}"))
        };
        let jsonrpc_path = a2a_jsonrpc::normalize_path(self.jsonrpc_path.as_deref().unwrap_or("/"));
        if own_port(Binding::JsonRpc).is_none() && health::is_probe_path(&jsonrpc_path) {
            return Err(invalid(&format!(
                "the JSON-RPC path {jsonrpc_path} is the path of a health probe on the main port"
            )));
        }
        if card.supported_interfaces.is_empty() {
            let base = http_url(Binding::JsonRpc);
            let jsonrpc_url = if jsonrpc_path == "/" {
                base
            } else {
                format!("{}{jsonrpc_path}", base.trim_end_matches('/'))
            };
            card.supported_interfaces =
                card::interfaces_of(&jsonrpc_url, &http_url(Binding::Rest), &grpc_url);
        }
        // Every binding also serves 0.3: declare it (a 0.3 twin after the 1.0 entries), unless
        // the card is to be 1.0 only.
        if self.card_form == CardForm::Union {
            card = a2a_v03::with_v03_interfaces(&card);
        }
        if self.service.is_some() && !self.tenants.is_empty() {
            return Err(invalid("tenant agents need the default handler: give an executor, not a service"));
        }
        // Each tenant's card: the main card's 1.0 interfaces with its tenant, unless it lists its own.
        let main_interfaces: Vec<_> = card
            .supported_interfaces
            .iter()
            .filter(|i| i.protocol_version == "1.0" && i.tenant.is_empty())
            .cloned()
            .collect();
        for (name, agent) in &mut self.tenants {
            a2a_core::handler::validate_tenant_name(name).map_err(|e| invalid(&e.to_string()))?;
            let tenant_card = agent.card_mut();
            if tenant_card.supported_interfaces.is_empty() {
                tenant_card.supported_interfaces = main_interfaces
                    .iter()
                    .map(|interface| a2a_proto::v1::AgentInterface {
                        tenant: name.clone(),
                        ..interface.clone()
                    })
                    .collect();
            }
        }
        // Each card document is made (and signed) once, here: served at its path and shown by the
        // console as served.
        let signer = self.card_signer.as_deref();
        let document = card::document(&card, self.card_form, signer)
            .map_err(|e| invalid(&format!("signing the agent card: {e}")))?;
        let mut card_router = card::document_router(AGENT_CARD_PATH, document.clone().into());
        // The tenants' cards and documents, for the catalog and the console (the handler takes
        // the agents).
        let mut tenant_cards: Vec<(String, AgentCard, Vec<u8>)> = Vec::new();
        for (name, agent) in &self.tenants {
            let tenant_document = card::document(agent.card(), CardForm::V1, signer)
                .map_err(|e| invalid(&format!("signing the card of tenant {name}: {e}")))?;
            let path = card::tenant_card_path(name);
            card_router = card_router.merge(card::document_router(&path, tenant_document.clone().into()));
            tenant_cards.push((name.clone(), agent.card().clone(), tenant_document));
        }
        let (handler, service, store): (Option<DefaultRequestHandler>, Arc<dyn A2aService>, _) =
            match executor {
                Some(executor) => {
                    let (handler, store) = self.default_handler(&card, executor, &metrics)?;
                    metrics.attach_handler(handler.clone());
                    (Some(handler.clone()), Arc::new(handler), Some(store))
                }
                None => (None, self.service.take().expect("checked above"), None),
            };
        let readiness = health::Readiness::new(store, shutdown.clone());
        // The catalog of every agent's card (public, like the cards), and the console.
        let tenant_refs: Vec<(&str, &AgentCard)> =
            tenant_cards.iter().map(|(name, card, _)| (name.as_str(), card)).collect();
        card_router =
            card_router.merge(catalog::router(&catalog::document(&public_url, &card, &tenant_refs)));
        if self.console {
            let served = |bytes: &[u8]| -> std::io::Result<serde_json::Value> {
                serde_json::from_slice(bytes).map_err(|e| invalid(&format!("the agent card: {e}")))
            };
            let mut agents = vec![console::ConsoleAgent {
                tenant: None,
                card_path: AGENT_CARD_PATH.to_owned(),
                document: served(&document)?,
            }];
            for (name, _, tenant_document) in &tenant_cards {
                agents.push(console::ConsoleAgent {
                    tenant: Some(name.clone()),
                    card_path: card::tenant_card_path(name),
                    document: served(tenant_document)?,
                });
            }
            card_router = card_router.merge(console::router(console::Console {
                card: card.clone(),
                agents,
                metrics: metrics.clone(),
                readiness: readiness.clone(),
                started: std::time::Instant::now(),
            }));
        }
        let limits = self.limits.clone();
        // Stream limits, and every stream ended when shutdown begins.
        let service: Arc<dyn A2aService> =
            Arc::new(streams::StreamLimits::new(service, &limits, metrics.clone(), shutdown));
        // One metered service per binding: the binding is known by the router it serves.
        let metered = |binding: Binding| -> Arc<dyn A2aService> {
            Arc::new(metrics::Metered::new(Arc::clone(&service), binding, &metrics))
        };
        let on_main = |binding: Binding| own_port(binding).is_none();
        let layers = std::mem::take(&mut self.layers);
        let limits = Arc::new(limits);
        // Every response of a TLS port, the probes' too, says to stay on HTTPS.
        let tls = self.tls.is_some();
        // The request ids, outside everything. Without TLS they are set by the same layer as the
        // size limits (just outside them: one boxed route level less per request) and by a layer
        // of their own on the probes; with TLS, HSTS comes between them and the limits, so they
        // wrap the whole router.
        let outermost = |router: Router| {
            if tls {
                tls::with_hsts(router).layer(request_id::RequestIdLayer)
            } else {
                router
            }
        };
        let rate_limit = self.rate_limit.map(rate_limit::Buckets::new);
        // From the inside out: the rate limit inside the user's layers (it reads the principal
        // an authentication layer sets), the size limits and body timeout outside them (no
        // layer reads an oversized request), the probes outside the user's layers (no
        // credentials needed), the request ids outside everything (so an authentication
        // layer's logs carry them too).
        let wrap = |router: Router, jsonrpc_path: Option<&str>| {
            let shapes = limits::Shapes { jsonrpc_path: jsonrpc_path.map(str::to_owned) };
            let router = match &rate_limit {
                Some(buckets) => router.layer(axum::middleware::from_fn_with_state(
                    rate_limit::RateLimitState {
                        buckets: buckets.clone(),
                        shapes: shapes.clone(),
                        metrics: metrics.clone(),
                    },
                    rate_limit::enforce,
                )),
                None => router,
            };
            let router = layers.iter().fold(router, |router, layer| layer(router));
            let limits = limits::HttpLimitsLayer::new(limits::HttpLimits {
                limits: Arc::clone(&limits),
                shapes,
                metrics: metrics.clone(),
            });
            // A panic anywhere inside (a binding, the handler, a user's layer) is answered in
            // its binding's shape (`panic`); in the same layer as the limits: no route level of
            // its own.
            if tls {
                router.layer((limits, panic::CatchPanicLayer))
            } else {
                router.layer((request_id::RequestIdLayer, limits, panic::CatchPanicLayer))
            }
        };
        let probes = || {
            let probes = health::router(readiness.clone());
            if tls {
                probes
            } else {
                probes.layer(request_id::RequestIdLayer)
            }
        };
        let jsonrpc_on_main = on_main(Binding::JsonRpc).then_some(jsonrpc_path.as_str());
        let main = wrap(
            app(
                &metered,
                card_router,
                &limits,
                jsonrpc_on_main,
                on_main(Binding::Rest),
                on_main(Binding::Grpc),
            ),
            jsonrpc_on_main,
        )
        .merge(probes());
        let main = outermost(main);
        let separate = separate
            .into_iter()
            .map(|(binding, listener, _)| {
                let router = match binding {
                    Binding::JsonRpc => a2a_jsonrpc::JsonRpcServer::new(metered(binding))
                        .path(&jsonrpc_path)
                        .max_body_bytes(limits.max_body_bytes)
                        .into_router(),
                    Binding::Rest => a2a_rest::RestServer::new(metered(binding))
                        .max_body_bytes(limits.max_body_bytes)
                        .into_router(),
                    Binding::Grpc => grpc_router(metered(binding), limits.max_body_bytes),
                };
                let jsonrpc = (binding == Binding::JsonRpc).then_some(jsonrpc_path.as_str());
                (listener, outermost(wrap(router, jsonrpc)))
            })
            .collect();
        let metrics_port = self.metrics_listener.take().map(|listener| {
            (listener, metrics::router(metrics.clone()).merge(health::router(readiness.clone())))
        });
        Ok((Apps { main, separate, metrics_port, handler, metrics, readiness }, card))
    }

    /// The default handler: `executor` with this builder's stores, push and cluster settings,
    /// each counted in `metrics`; and its task store, for the readiness probe.
    fn default_handler(
        &mut self,
        card: &AgentCard,
        executor: Arc<dyn AgentExecutor>,
        metrics: &Metrics,
    ) -> std::io::Result<(DefaultRequestHandler, Arc<dyn TaskStore>)> {
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_owned());
        let mut handler =
            DefaultRequestHandler::builder_for(TenantAgent::with_executor(card.clone(), executor))
                .content_limits(self.limits.content)
                .push_destination_policy(self.policy.clone())
                .push_timeout(Duration::from_secs(10));
        if let Some(operations) = self.extensions_required_for.take() {
            handler = handler.extensions_required_for(operations);
        }
        if card.capabilities.as_ref().and_then(|c| c.push_notifications) == Some(true) {
            let transport = self
                .push_transport
                .take()
                .unwrap_or_else(|| Arc::new(HttpPushTransport::new(self.policy.clone())));
            handler = handler.push_transport(transport).push_v03_body(push_http::task_body_v03);
            if let Some(retry) = self.push_retry {
                handler = handler.push_retry_policy(retry);
            }
            if let Some(timeout) = self.push_timeout {
                handler = handler.push_timeout(timeout);
            }
        }
        if let Some(extended) = self.extended_card.take() {
            // spec 3.1.11: the extended card is a complete card; 4.4.1 requires its interfaces
            // (the handler gives it the public card's when it lists none).
            if let Some(signer) = &self.card_signer {
                // Signed once, here, so that a card that cannot be signed fails at startup (the
                // interfaces the handler adds carry no number, so they cannot make it fail).
                sign_extended(signer, &extended)
                    .map_err(|e| invalid(&format!("signing the extended card: {e}")))?;
            }
            handler = handler.extended_agent_card(extended);
        }
        if let Some(compute) = self.extended_card_for.take() {
            handler = handler.extended_agent_card_for(move |principal| compute(principal));
        }
        if let Some(signer) = self.card_signer.clone() {
            // Every extended card, of every agent, is signed as it is returned.
            handler = handler.finish_extended_cards(Arc::new(move |extended| {
                sign_extended(&signer, &extended)
                    .map_err(|e| a2a_core::Error::internal(format!("signing the extended card: {e}")))
            }));
        }
        for (name, agent) in std::mem::take(&mut self.tenants) {
            handler = handler.tenant(name, agent);
        }
        let tasks =
            self.tasks.take().unwrap_or_else(|| Arc::new(a2a_core::store::memory::InMemoryTaskStore::new()));
        let tasks: Arc<dyn TaskStore> = Arc::new(metrics::TimedTaskStore::new(tasks, metrics));
        handler = handler.task_store(Arc::clone(&tasks));
        if let Some(cluster) = self.cluster.take() {
            handler = handler.cluster(cluster);
        }
        let push_configs = self
            .push_configs
            .take()
            .unwrap_or_else(|| Arc::new(a2a_core::store::memory::InMemoryPushConfigStore::new()));
        handler =
            handler.push_config_store(Arc::new(metrics::TimedPushConfigStore::new(push_configs, metrics)));
        let handler = handler.build().map_err(|e| invalid(&e.to_string()))?;
        Ok((handler, tasks))
    }

    /// Serves on `listener` until the process receives SIGINT or SIGTERM, then shuts down
    /// gracefully.
    pub async fn serve(self, listener: TcpListener) -> std::io::Result<()> {
        self.serve_with_shutdown(listener, shutdown_signal()).await
    }

    /// Serves on `listener` until `signal` completes, then shuts down gracefully: stops accepting,
    /// lets in-flight unary calls finish (for the [`shutdown_timeout`](Self::shutdown_timeout)
    /// at most), and ends open streams cleanly.
    ///
    /// Before accepting the first request it resolves the tasks a previous run left running
    /// (`DefaultRequestHandler::recover`: by default they become `FAILED` with a status message
    /// saying the server restarted), so no client ever sees a task that nothing executes.
    pub async fn serve_with_shutdown(
        self,
        listener: TcpListener,
        signal: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let local = listener.local_addr()?;
        let token = CancellationToken::new();
        let tls = self.tls.as_ref().map(tls::TlsConfig::server_config);
        let timeout = self.shutdown_timeout.unwrap_or(DEFAULT_SHUTDOWN_TIMEOUT);
        let (apps, _) = self.build(local, token.clone())?;
        if let Some(handler) = &apps.handler {
            handler
                .recover()
                .await
                .map_err(|e| std::io::Error::other(format!("resolving interrupted tasks: {e}")))?;
        }
        let mut others = Vec::new();
        for (listener, router) in apps.separate {
            others.push(tokio::spawn(serve_until(
                listener,
                router,
                tls.clone(),
                token.clone().cancelled_owned(),
            )));
        }
        if let Some((listener, router)) = apps.metrics_port {
            others.push(tokio::spawn(serve_until(listener, router, None, token.clone().cancelled_owned())));
        }
        let stop = token.clone();
        tokio::spawn(async move {
            signal.await;
            tracing::info!("shutting down: finishing in-flight calls and ending open streams");
            stop.cancel();
        });
        let aborts: Vec<_> = others.iter().map(tokio::task::JoinHandle::abort_handle).collect();
        let serving = async {
            let main = serve_until(listener, apps.main, tls, token.clone().cancelled_owned()).await;
            for other in others {
                other.await.map_err(std::io::Error::other)??;
            }
            main
        };
        let deadline = async {
            token.cancelled().await;
            tokio::time::sleep(timeout).await;
        };
        tokio::select! {
            result = serving => result,
            () = deadline => {
                tracing::warn!(
                    timeout_s = timeout.as_secs_f64(),
                    "graceful shutdown did not finish within the shutdown timeout: abandoning the \
                     calls still in flight"
                );
                aborts.iter().for_each(tokio::task::AbortHandle::abort);
                Ok(())
            }
        }
    }

    /// Starts serving in the background; the returned handle stops it.
    pub async fn spawn(mut self, listener: TcpListener) -> std::io::Result<RunningServer> {
        let addr = listener.local_addr()?;
        let stop = CancellationToken::new();
        let signal = stop.clone().cancelled_owned();
        let metrics = self.metrics.get_or_insert_with(Metrics::new).clone();
        let scheme = if self.tls.is_some() { "https" } else { "http" };
        // The listener is bound already: connections queue until the server task accepts them.
        let task = tokio::spawn(self.serve_with_shutdown(listener, signal));
        Ok(RunningServer { addr, scheme, stop, task, metrics })
    }
}

/// A server started with [`ServerBuilder::spawn`].
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    scheme: &'static str,
    stop: CancellationToken,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
    metrics: Metrics,
}

impl RunningServer {
    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://` (`https://` with TLS) + the address.
    pub fn url(&self) -> String {
        format!("{}://{}", self.scheme, self.addr)
    }

    /// The server's metrics, read in-process.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Shuts down gracefully and waits for the server to finish.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.stop.cancel();
        self.task.await.map_err(std::io::Error::other)?
    }
}

/// The main port's application, the bindings served on ports of their own, and the handler
/// behind them.
/// What [`ServerBuilder::app`] builds: the router, the card it serves, and what
/// [`ServerBuilder::serve`] would do around them.
#[derive(Debug)]
pub struct App {
    /// The main port's router: the card, JSON-RPC, REST and gRPC.
    pub router: Router,
    /// The card the router serves, with its interfaces filled in.
    pub card: AgentCard,
    /// Cancel to end every open stream (at shutdown); the readiness probe answers 503 from then on.
    pub shutdown: CancellationToken,
    /// The application's metrics (serve them with [`App::metrics_router`], or read them).
    pub metrics: Metrics,
    readiness: health::Readiness,
    handler: Option<DefaultRequestHandler>,
}

impl App {
    /// Resolves the tasks a previous run left running (`DefaultRequestHandler::recover`, the
    /// restart policy of `docs/deployment.md`); call it once before serving. Returns how many.
    /// With a service of your own ([`ServerBuilder::service`]) there is nothing to resolve: 0.
    pub async fn recover(&self) -> std::io::Result<usize> {
        let Some(handler) = &self.handler else { return Ok(0) };
        handler
            .recover()
            .await
            .map_err(|e| std::io::Error::other(format!("resolving interrupted tasks: {e}")))
    }

    /// What the `--metrics-listen` port serves: the scrape ([`metrics::METRICS_PATH`]) and the
    /// probes ([`health`]; the main router has them too), for a listener of the embedder's own.
    pub fn metrics_router(&self) -> Router {
        metrics::router(self.metrics.clone()).merge(health::router(self.readiness.clone()))
    }
}

struct Apps {
    main: Router,
    separate: Vec<(TcpListener, Router)>,
    metrics_port: Option<(TcpListener, Router)>,
    handler: Option<DefaultRequestHandler>,
    metrics: Metrics,
    readiness: health::Readiness,
}

/// Serves `router` on `listener` (over TLS with `tls`) until `shutdown` completes, then finishes
/// gracefully.
async fn serve_until(
    listener: TcpListener,
    router: Router,
    tls: Option<Arc<rustls::ServerConfig>>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    if let Some(config) = tls {
        let listener = tls::TlsListener::new(listener, config)?;
        return axum::serve(listener, tls::WithTlsClient(router)).with_graceful_shutdown(shutdown).await;
    }
    // Nagle's algorithm would hold back small SSE events and gRPC frames for up to 40 ms.
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    // The client's address: the rate limit's key for callers without a principal.
    axum::serve(listener, router.into_make_service_with_connect_info::<SocketAddr>())
        .with_graceful_shutdown(shutdown)
        .await
}

/// The main port's application: the card's router, and each binding not given a port of its own;
/// gRPC is chosen by the request's content type. `jsonrpc`: the JSON-RPC path, if JSON-RPC is served here.
fn app(
    service: &dyn Fn(Binding) -> Arc<dyn A2aService>,
    card: Router,
    limits: &Limits,
    jsonrpc: Option<&str>,
    rest: bool,
    grpc: bool,
) -> Router {
    let mut http = card;
    if let Some(path) = jsonrpc {
        http = http.merge(
            a2a_jsonrpc::JsonRpcServer::new(service(Binding::JsonRpc))
                .path(path)
                .max_body_bytes(limits.max_body_bytes)
                .into_router(),
        );
    }
    if rest {
        http = http.merge(
            a2a_rest::RestServer::new(service(Binding::Rest))
                .max_body_bytes(limits.max_body_bytes)
                .into_router(),
        );
    }
    if !grpc {
        return http;
    }
    let grpc = grpc_router(service(Binding::Grpc), limits.max_body_bytes);
    Router::new().fallback_service(ByContentType { grpc, http })
}

/// The main port's choice between gRPC and the HTTP bindings, by the request's content type
/// ([`is_grpc`]): each request goes straight to the router it is for (no clone of a router, no
/// further future around its answer).
#[derive(Clone)]
struct ByContentType {
    grpc: Router,
    http: Router,
}

impl tower::Service<Request<Body>> for ByContentType {
    type Response = axum::response::Response;
    type Error = std::convert::Infallible;
    type Future = axum::routing::future::RouteFuture<std::convert::Infallible>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        // A router is always ready.
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<Body>) -> Self::Future {
        let target = if is_grpc(request.headers()) { &mut self.grpc } else { &mut self.http };
        tower::Service::call(target, request)
    }
}

fn is_grpc(headers: &http::HeaderMap) -> bool {
    headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/grpc"))
}

/// The gRPC services; `max_message_bytes`: the limit of each request message.
fn grpc_router(service: Arc<dyn A2aService>, max_message_bytes: usize) -> Router {
    let reflection_v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(a2a_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(a2a_proto::FILE_DESCRIPTOR_SET_V0_3)
        .build_v1()
        .expect("the embedded descriptor set is valid");
    let reflection_v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(a2a_proto::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(a2a_proto::FILE_DESCRIPTOR_SET_V0_3)
        .build_v1alpha()
        .expect("the embedded descriptor set is valid");
    let (health_reporter, health) = tonic_health::server::health_reporter();
    tokio::spawn(async move {
        health_reporter
            .set_service_status("lf.a2a.v1.A2AService", tonic_health::ServingStatus::Serving)
            .await;
        health_reporter.set_service_status("a2a.v1.A2AService", tonic_health::ServingStatus::Serving).await;
    });
    // A2A 0.3's `a2a.v1.A2AService` beside 1.0's `lf.a2a.v1.A2AService`: routed by package.
    tonic::service::Routes::new(
        a2a_grpc::server(Arc::clone(&service)).max_decoding_message_size(max_message_bytes),
    )
    .add_service(a2a_grpc::server_v03(service).max_decoding_message_size(max_message_bytes))
    .add_service(reflection_v1)
    .add_service(reflection_v1alpha)
    .add_service(health)
    .prepare()
    .into_axum_router()
}

/// `extended` with `signer`'s signature appended. It is served as ProtoJSON by each binding; a
/// verifier reconstructs the REQUIRED fields pbjson leaves out at their default
/// (`a2a_card_sign::verify`).
fn sign_extended(
    signer: &a2a_card_sign::CardSigner,
    extended: &AgentCard,
) -> Result<AgentCard, a2a_card_sign::Error> {
    let mut signed = extended.clone();
    signed.signatures.push(signer.signature(&a2a_card_sign::card_json(extended))?);
    Ok(signed)
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM.
pub async fn shutdown_signal() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}

#[cfg(test)]
mod tests {
    use axum::routing::post;
    use tower::ServiceExt;

    use super::*;

    /// What answered: the router each request was sent to.
    async fn answered_by(content_type: Option<&str>) -> String {
        let dispatch = ByContentType {
            grpc: Router::new().fallback(|| async { "grpc" }),
            http: Router::new().route("/", post(|| async { "http" })),
        };
        let mut request = http::Request::post("/");
        if let Some(content_type) = content_type {
            request = request.header(http::header::CONTENT_TYPE, content_type);
        }
        let response = dispatch.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        let bytes = axum::body::to_bytes(response.into_body(), 1024).await.unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    #[tokio::test]
    async fn grpc_is_chosen_by_the_content_type_and_everything_else_is_http() {
        for grpc in ["application/grpc", "application/grpc+proto", "application/grpc-web"] {
            assert_eq!(answered_by(Some(grpc)).await, "grpc", "{grpc}");
        }
        for http in ["application/json", "text/plain", "application/a2a+json", "Application/grpc"] {
            assert_eq!(answered_by(Some(http)).await, "http", "{http}");
        }
        assert_eq!(answered_by(None).await, "http", "no content type");
    }
}
