//! `a2a-server`: the A2A reference server with the built-in demo agent.
//!
//! Run with `cargo run -p a2a-server` (listens on 127.0.0.1:8080), or see `--help`.

use a2a_core::handler::ContentLimits;
use a2a_core::push::{DestinationPolicy, IpNet};
use a2a_server::store::StoreChoice;
use a2a_server::{Binding, Limits};
use anyhow::Context as _;
use clap::Parser;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

mod allocator;
mod log_fields;

/// The binary's allocator (the library leaves the choice to its users): see `docs/benchmarks.md`
/// for what it changes.
#[global_allocator]
static ALLOCATOR: allocator::MiMalloc = allocator::MiMalloc;

/// The A2A reference server: JSON-RPC, REST and gRPC on one port, with a demo agent.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080", env = "A2A_LISTEN")]
    listen: String,

    /// Base URL advertised in the agent card for JSON-RPC and REST (default: http://<listen address>).
    #[arg(long, env = "A2A_PUBLIC_URL")]
    public_url: Option<String>,

    /// gRPC address advertised in the agent card, as host:port or as a URL (http://host:port,
    /// https://host:port/path), written as given (default: host:port of the public URL).
    #[arg(long, env = "A2A_GRPC_URL")]
    grpc_url: Option<String>,

    /// Serve gRPC on this address of its own instead of the main port.
    #[arg(long, value_name = "HOST:PORT")]
    grpc_listen: Option<String>,

    /// The path JSON-RPC is served at (and advertised with), e.g. /jsonrpc; its trailing-slash
    /// twin is served too.
    #[arg(long, default_value = "/", env = "A2A_JSONRPC_PATH")]
    jsonrpc_path: String,

    /// How the agent card is written: `union` (1.0 plus the 0.3 fields and interfaces, readable by
    /// both) or `v1` (1.0 only, for strict 1.0 readers; 0.3 requests are still served).
    #[arg(long, default_value = "union", env = "A2A_CARD_FORM", value_parser = parse_card_form)]
    card_form: a2a_server::CardForm,

    /// Serve the web console at /console on the main port (off by default): the agent cards with
    /// their validation, a chat, the tasks, health and request metrics; behind the same
    /// authentication as the API (`docs/console.md`).
    #[arg(long, env = "A2A_CONSOLE")]
    console: bool,

    /// Sign the agent card (spec 8.4) with this PEM private key: P-256 (ES256), P-384 (ES384),
    /// Ed25519 (EdDSA) or RSA (RS256). The card served, in its --card-form, and the extended card
    /// carry the signature (`docs/security.md`).
    #[arg(long, value_name = "FILE", env = "A2A_CARD_SIGNING_KEY", requires = "card_signing_kid")]
    card_signing_key: Option<std::path::PathBuf>,

    /// With --card-signing-key: the key id (`kid`) written into the signature's protected header.
    #[arg(long, value_name = "KID", env = "A2A_CARD_SIGNING_KID", requires = "card_signing_key")]
    card_signing_kid: Option<String>,

    /// With --card-signing-key: a URL of a JWKS holding the public key, written as the header's
    /// `jku` (verifiers need not follow it; ours do not by default).
    #[arg(long, value_name = "URL", env = "A2A_CARD_SIGNING_JKU", requires = "card_signing_key")]
    card_signing_jku: Option<String>,

    /// Serve JSON-RPC on this address of its own instead of the main port.
    #[arg(long, value_name = "HOST:PORT")]
    jsonrpc_listen: Option<String>,

    /// Serve REST on this address of its own instead of the main port.
    #[arg(long, value_name = "HOST:PORT")]
    rest_listen: Option<String>,

    /// Networks push notifications may reach besides public addresses, e.g. 127.0.0.0/8 (repeatable).
    #[arg(long = "push-allow", value_name = "CIDR")]
    push_allow: Vec<IpNet>,

    /// Where tasks and push configs are kept: `sqlite` (the file a2a.sqlite3 in --data-dir),
    /// `sqlite:PATH`, `memory` (lost on exit) or `postgres://USER@HOST/DB` (the database must exist).
    #[arg(long, default_value = "sqlite", env = "A2A_STORE", value_parser = clap::value_parser!(StoreChoice))]
    store: StoreChoice,

    /// Directory of the server's data (the default SQLite store), created if missing.
    #[arg(long, default_value = "a2a-data", env = "A2A_DATA_DIR")]
    data_dir: std::path::PathBuf,

    /// What a committed write of the SQLite store survives: `process` (the server's death, e.g.
    /// kill -9) or `power-loss` (a power cut too, at one fsync per group of commits).
    #[arg(long, default_value = "process", env = "A2A_SQLITE_DURABILITY",
          value_parser = a2a_server::store::parse_durability)]
    sqlite_durability: a2a_store_sql::Durability,

    /// With PostgreSQL, how many seconds a replica may go without a heartbeat before another
    /// one resolves its running tasks (the restart policy); heartbeats go every third of it.
    #[arg(long, default_value = "10", env = "A2A_REPLICA_TTL", value_parser = a2a_server::store::parse_seconds)]
    replica_ttl: std::time::Duration,

    /// Require an API key on every operation: `KEY=PRINCIPAL`, repeatable. The card declares the
    /// scheme (its header: `--api-key-header`); a caller without a known key gets
    /// Unauthenticated, and each principal sees only its own tasks (`docs/security.md`).
    #[arg(long = "api-key", value_name = "KEY=PRINCIPAL", value_parser = parse_api_key)]
    api_keys: Vec<(String, String)>,

    /// The header clients send their API key in.
    #[arg(long, default_value = "X-API-Key", value_parser = clap::value_parser!(axum::http::HeaderName))]
    api_key_header: axum::http::HeaderName,

    /// Serve another agent (the demo agent, under its own card) at this tenant (repeatable): its
    /// card is at /NAME/.well-known/agent-card.json and its interfaces carry `tenant: NAME`; its
    /// tasks are its own. It requires what the main agent requires, unless it has API keys of
    /// its own (--tenant-api-key) (`docs/tenants.md`).
    #[arg(long = "tenant", value_name = "NAME")]
    tenants: Vec<String>,

    /// An API key of one tenant's agent (repeatable): that agent then requires its own keys
    /// (scheme `apiKey-NAME`, in the --api-key-header), and no other credential.
    #[arg(long = "tenant-api-key", value_name = "NAME:KEY=PRINCIPAL", value_parser = parse_tenant_api_key)]
    tenant_api_keys: Vec<(String, String, String)>,

    /// With a JWT setting: a scope every token must grant (repeatable; from its `scope` or `scp`
    /// claim). A valid token without it is refused with 403 / PERMISSION_DENIED.
    #[arg(long, value_name = "SCOPE")]
    jwt_required_scope: Vec<String>,

    /// Require a Bearer JWT signed with this key on every operation (alternative to the other
    /// authenticators): a PEM public key file (RSA, EC or Ed25519) or a file holding an HMAC
    /// secret of at least 32 bytes (a trailing newline is not part of it). The principal is the
    /// token's `sub` (`docs/security.md`).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["jwt_jwks_url", "oidc_issuer", "oauth2_issuer"])]
    jwt_key: Option<std::path::PathBuf>,

    /// Require a Bearer JWT signed with a key of this JWKS URL (cached; fetched again for an
    /// unknown `kid`, at most every 30 s).
    #[arg(long, value_name = "URL", conflicts_with_all = ["oidc_issuer", "oauth2_issuer"])]
    jwt_jwks_url: Option<String>,

    /// With --jwt-key or --jwt-jwks-url: the `iss` tokens must have.
    #[arg(long, value_name = "ISSUER")]
    jwt_issuer: Option<String>,

    /// With --jwt-key, --jwt-jwks-url, --oidc-issuer or --oauth2-issuer: an audience `aud` must name
    /// (repeatable: any of them).
    #[arg(long, value_name = "AUDIENCE")]
    jwt_audience: Vec<String>,

    /// The JWT algorithms accepted, comma-separated, e.g. RS256,ES256 (default: every algorithm
    /// of the key's kind; HMAC ones only with an HMAC secret, never `none`).
    #[arg(long, value_name = "ALG,...", value_delimiter = ',', value_parser = parse_algorithm)]
    jwt_algorithms: Vec<a2a_server::auth::JwtAlgorithm>,

    /// Require an access token (a JWT) of this OpenID Connect provider: its discovery document
    /// `{URL}/.well-known/openid-configuration` is read at startup for its `jwks_uri`, and
    /// tokens must have `iss` = URL.
    #[arg(long, value_name = "URL", conflicts_with = "oauth2_issuer")]
    oidc_issuer: Option<String>,

    /// Require an access token (a JWT, RFC 9068) of this OAuth 2.0 authorization server: its
    /// metadata (RFC 8414, `/.well-known/oauth-authorization-server`) is read at startup for its
    /// `jwks_uri` and the flow the card declares, and tokens must have `iss` = URL.
    #[arg(long, value_name = "URL")]
    oauth2_issuer: Option<String>,

    /// Require HTTP Basic on every operation (alternative to the other authenticators):
    /// `USER:HASH`, repeatable, HASH an Argon2 PHC string (`$argon2id$v=19$...`, e.g. from
    /// `echo -n PASSWORD | argon2 SALT -id -t 2 -k 19456 -p 1 -e`). The principal is the user name.
    #[arg(long = "basic-user", value_name = "USER:HASH", value_parser = parse_basic_user)]
    basic_users: Vec<(String, String)>,

    /// Basic users from a file: one `USER:HASH` a line (`#` comments and blank lines skipped).
    #[arg(long, value_name = "FILE")]
    basic_users_file: Option<std::path::PathBuf>,

    /// Serve every port but the metrics one over TLS with this certificate chain (PEM, leaf
    /// first); needs --tls-key. HTTP/1.1, HTTP/2 and gRPC share the TLS port (ALPN), responses
    /// carry Strict-Transport-Security, and SIGHUP reloads both files without a restart.
    #[arg(long, value_name = "FILE", env = "A2A_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,

    /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
    #[arg(long, value_name = "FILE", env = "A2A_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,

    /// Verify TLS client certificates against the CA certificates (PEM) in this file, and accept
    /// a verified one as a credential: its subject CN is the principal, and the card declares
    /// the `mtls` scheme (an alternative to the other authenticators). Needs --tls-cert.
    #[arg(long, value_name = "FILE", env = "A2A_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<std::path::PathBuf>,

    /// With --tls-client-ca: refuse TLS handshakes without a client certificate (by default a
    /// client may present none and authenticate otherwise).
    #[arg(long, requires = "tls_client_ca")]
    tls_client_cert_required: bool,

    /// With --tls-client-ca: which name of the client certificate is the principal: `cn` (the
    /// subject CN, the default), `san-uri` (e.g. a SPIFFE ID), `san-dns` or `san-email` (the first
    /// subject alternative name of that kind); a certificate without one is refused.
    #[arg(long, value_name = "KIND", default_value = "cn", requires = "tls_client_ca")]
    tls_client_identity: a2a_server::auth::CertificateIdentity,

    /// Refuse `http` webhook URLs: push notifications go over TLS only.
    #[arg(long, env = "A2A_PUSH_HTTPS_ONLY")]
    push_https_only: bool,

    /// Attempts per push notification, the first included, before it is given up (retried on
    /// connection errors, timeouts, 5xx and 429; `docs/push.md`).
    #[arg(long, default_value_t = 8, env = "A2A_PUSH_MAX_ATTEMPTS", value_parser = clap::value_parser!(u32).range(1..))]
    push_max_attempts: u32,

    /// Seconds after its first attempt within which a push notification may be retried.
    #[arg(long, default_value = "600", env = "A2A_PUSH_MAX_AGE", value_parser = a2a_server::store::parse_seconds)]
    push_max_age: std::time::Duration,

    /// Largest request body in bytes (JSON-RPC, REST) and gRPC request message (docs/operations.md,
    /// "Limits").
    #[arg(long, default_value_t = Limits::default().max_body_bytes, env = "A2A_MAX_BODY_BYTES")]
    max_body_bytes: usize,

    /// Longest request URL (path and query) in bytes; longer is 414.
    #[arg(long, default_value_t = Limits::default().max_uri_bytes, env = "A2A_MAX_URI_BYTES")]
    max_uri_bytes: usize,

    /// Largest request headers (names and values) in bytes; larger is 431.
    #[arg(long, default_value_t = Limits::default().max_header_bytes, env = "A2A_MAX_HEADER_BYTES")]
    max_header_bytes: usize,

    /// Seconds a request body may take to arrive; a slower one is 408 and the connection closed.
    #[arg(long, default_value = "30", env = "A2A_BODY_READ_TIMEOUT", value_parser = a2a_server::store::parse_seconds)]
    body_read_timeout: std::time::Duration,

    /// Streams (SendStreamingMessage, SubscribeToTask) open at once on the server; one more is
    /// refused with ResourceExhausted.
    #[arg(long, default_value_t = Limits::default().max_streams, env = "A2A_MAX_STREAMS")]
    max_streams: usize,

    /// Streams open at once on one client connection (HTTP/2 carries many on one).
    #[arg(long, default_value_t = Limits::default().max_streams_per_connection, env = "A2A_MAX_STREAMS_PER_CONNECTION")]
    max_streams_per_connection: usize,

    /// SubscribeToTask streams open at once on one task.
    #[arg(long, default_value_t = Limits::default().max_subscribers_per_task, env = "A2A_MAX_SUBSCRIBERS_PER_TASK")]
    max_subscribers_per_task: usize,

    /// Seconds a stream may go without an event before it ends cleanly (default: no limit).
    #[arg(long, env = "A2A_STREAM_IDLE_TIMEOUT", value_parser = a2a_server::store::parse_seconds)]
    stream_idle_timeout: Option<std::time::Duration>,

    /// Seconds a stream may stay open before it ends cleanly (default: no limit).
    #[arg(long, env = "A2A_STREAM_MAX_DURATION", value_parser = a2a_server::store::parse_seconds)]
    stream_max_duration: Option<std::time::Duration>,

    /// Parts one message may have.
    #[arg(long, default_value_t = ContentLimits::default().max_parts_per_message, env = "A2A_MAX_PARTS_PER_MESSAGE")]
    max_parts_per_message: usize,

    /// Size in bytes (as JSON) of each metadata object of a send: the request's, the message's,
    /// each part's.
    #[arg(long, default_value_t = ContentLimits::default().max_metadata_bytes, env = "A2A_MAX_METADATA_BYTES")]
    max_metadata_bytes: usize,

    /// Push notification configs one task may have.
    #[arg(long, default_value_t = ContentLimits::default().max_push_configs_per_task, env = "A2A_MAX_PUSH_CONFIGS_PER_TASK")]
    max_push_configs_per_task: usize,

    /// Messages of history one read returns; a larger historyLength is refused.
    #[arg(long, default_value_t = ContentLimits::default().max_history_length, env = "A2A_MAX_HISTORY_LENGTH")]
    max_history_length: usize,

    /// Calls per caller (principal, else client IP): N/s, N/m or N/h; over it is HTTP 429 with
    /// Retry-After, gRPC RESOURCE_EXHAUSTED (default: no rate limit).
    #[arg(long, value_name = "N/s", env = "A2A_RATE_LIMIT", value_parser = a2a_server::RateLimit::parse)]
    rate_limit: Option<a2a_server::RateLimit>,

    /// Calls a caller may make at once after a quiet period (default: N of --rate-limit).
    #[arg(long, value_name = "B", env = "A2A_RATE_BURST", requires = "rate_limit",
          value_parser = clap::value_parser!(u32).range(1..))]
    rate_burst: Option<u32>,

    /// Seconds a graceful shutdown (SIGTERM, SIGINT) waits for calls in flight before exiting;
    /// open streams end at once.
    #[arg(long, default_value = "30", env = "A2A_SHUTDOWN_TIMEOUT", value_parser = a2a_server::store::parse_seconds)]
    shutdown_timeout: std::time::Duration,

    /// Log filter (tracing EnvFilter syntax), e.g. "info" or "a2a_core=debug".
    #[arg(long, default_value = "info", env = "A2A_LOG")]
    log: String,

    /// How log lines are written to stderr: `text` (for people) or `json` (one object per line,
    /// with the request's `request_id`; docs/operations.md).
    #[arg(long, default_value = "text", env = "A2A_LOG_FORMAT", value_parser = ["text", "json"])]
    log_format: String,

    /// Serve the Prometheus scrape (/metrics) and the probes (/healthz, /readyz) on this address
    /// of its own (off by default; keep it off the public network).
    #[arg(long, value_name = "HOST:PORT", env = "A2A_METRICS_LISTEN")]
    metrics_listen: Option<String>,

    /// Export OpenTelemetry traces over OTLP (HTTP + protobuf) to this URL, e.g.
    /// http://127.0.0.1:4318/v1/traces (built with the `otel` feature; docs/operations.md).
    #[cfg(feature = "otel")]
    #[arg(long, value_name = "URL", env = "A2A_OTLP_ENDPOINT")]
    otlp_endpoint: Option<String>,

    /// Export every metric over OTLP (HTTP + protobuf) to this URL, e.g.
    /// http://127.0.0.1:4318/v1/metrics, every 60 s (OTEL_METRIC_EXPORT_INTERVAL, in ms, to
    /// change it). Default: the --otlp-endpoint with /v1/traces replaced by /v1/metrics.
    #[cfg(feature = "otel")]
    #[arg(long, value_name = "URL", env = "A2A_OTLP_METRICS_ENDPOINT")]
    otlp_metrics_endpoint: Option<String>,
}

fn parse_api_key(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((key, principal)) if !key.trim().is_empty() && !principal.trim().is_empty() => {
            Ok((key.trim().to_owned(), principal.trim().to_owned()))
        }
        _ => Err(format!("{value:?}: use KEY=PRINCIPAL")),
    }
}

fn parse_tenant_api_key(value: &str) -> Result<(String, String, String), String> {
    let Some((tenant, key)) = value.split_once(':').filter(|(tenant, _)| !tenant.trim().is_empty()) else {
        return Err(format!("{value:?}: use NAME:KEY=PRINCIPAL"));
    };
    let (key, principal) = parse_api_key(key)?;
    Ok((tenant.trim().to_owned(), key, principal))
}

fn parse_algorithm(value: &str) -> Result<a2a_server::auth::JwtAlgorithm, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("{value:?}: not a JWT algorithm (HS256, RS256, ES256, EdDSA, ...)"))
}

/// The JWT authenticator the `--jwt-*` / `--oidc-issuer` flags ask for, if any.
async fn jwt_of(args: &Args) -> anyhow::Result<Option<a2a_server::auth::Jwt>> {
    use a2a_server::auth::Jwt;
    let jwt = match (&args.jwt_key, &args.jwt_jwks_url, &args.oidc_issuer, &args.oauth2_issuer) {
        (Some(path), ..) => Jwt::key_file(path)?,
        (_, Some(url), ..) => Jwt::jwks_url(url)?,
        (_, _, Some(issuer), _) => Jwt::openid_connect(issuer).await?,
        (.., Some(issuer)) => Jwt::oauth2(issuer).await?,
        (None, None, None, None) => {
            if args.jwt_issuer.is_some() || !args.jwt_audience.is_empty() || !args.jwt_algorithms.is_empty() {
                anyhow::bail!(
                    "--jwt-issuer, --jwt-audience and --jwt-algorithms need --jwt-key, --jwt-jwks-url, \
                     --oidc-issuer or --oauth2-issuer"
                );
            }
            return Ok(None);
        }
    };
    let mut jwt = match &args.jwt_issuer {
        Some(_) if args.oidc_issuer.is_some() || args.oauth2_issuer.is_some() => {
            anyhow::bail!("--oidc-issuer and --oauth2-issuer set the issuer: leave out --jwt-issuer")
        }
        Some(issuer) => jwt.issuer(issuer),
        None => jwt,
    };
    for audience in &args.jwt_audience {
        jwt = jwt.audience(audience);
    }
    if !args.jwt_algorithms.is_empty() {
        jwt = jwt.algorithms(&args.jwt_algorithms)?;
    }
    Ok(Some(jwt.required_scopes(args.jwt_required_scope.iter().cloned())))
}

fn parse_basic_user(value: &str) -> Result<(String, String), String> {
    match value.split_once(':') {
        Some((user, hash)) if !user.is_empty() && !hash.is_empty() => Ok((user.to_owned(), hash.to_owned())),
        _ => Err("use USER:HASH".to_owned()),
    }
}

fn parse_card_form(value: &str) -> Result<a2a_server::CardForm, String> {
    match value {
        "union" => Ok(a2a_server::CardForm::Union),
        "v1" => Ok(a2a_server::CardForm::V1),
        _ => Err(format!("{value:?}: use union or v1")),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let logs = tracing_subscriber::fmt::layer().with_writer(std::io::stderr);
    let logs = if args.log_format == "json" {
        // Event fields at the top level beside `timestamp`, `level`, `target`, `message`; the
        // request's span (with `request_id`) as `span`, all open spans as `spans`.
        logs.json().flatten_event(true).with_current_span(true).with_span_list(true).boxed()
    } else {
        logs.with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
            .fmt_fields(log_fields::TextFields::default())
            .boxed()
    };
    let filter = EnvFilter::try_new(&args.log).context("--log")?;
    // With the log layer alone, its filter is the subscriber's: a per-layer filter costs a lookup
    // of the span's filter state at every enter and exit of every span (the request's span is
    // entered at each poll of the request), about 1k instructions per request.
    #[cfg(not(feature = "otel"))]
    tracing_subscriber::registry().with(filter).with(logs).init();
    // The traces layer sees every span whatever the log level: the filter is the log layer's own.
    #[cfg(feature = "otel")]
    let logs = logs.with_filter(filter);
    #[cfg(feature = "otel")]
    let traces = match &args.otlp_endpoint {
        Some(url) => Some(traces::export_to(url)?),
        None => None,
    };
    #[cfg(feature = "otel")]
    tracing_subscriber::registry().with(logs).with(traces.as_ref().map(traces::layer)).init();
    let metrics = a2a_server::Metrics::new();
    #[cfg(feature = "otel")]
    let meters = {
        let url = args.otlp_metrics_endpoint.clone().or_else(|| {
            args.otlp_endpoint
                .as_deref()
                .and_then(|url| url.strip_suffix("/v1/traces"))
                .map(|base| format!("{base}/v1/metrics"))
        });
        match url {
            Some(url) => Some(traces::export_metrics(&url, &metrics)?),
            None => None,
        }
    };

    let cluster = a2a_store_sql::ClusterOptions { ttl: args.replica_ttl, ..Default::default() };
    let stores = args
        .store
        .open(&args.data_dir, args.sqlite_durability, cluster)
        .await
        .context("opening the store")?;
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .with_context(|| format!("binding {}", args.listen))?;
    let local = listener.local_addr()?;
    let (mut card, mut extended_card) = (a2a_demo::demo_card(), a2a_demo::demo_extended_card());
    let api_keys = (!args.api_keys.is_empty()).then(|| {
        let location = a2a_server::auth::KeyLocation::Header(args.api_key_header.clone());
        let keys = args
            .api_keys
            .iter()
            .fold(a2a_server::auth::ApiKeys::new("apiKey", location), |keys, (key, who)| keys.key(key, who));
        keys.declare_in(&mut card);
        keys.declare_in(&mut extended_card);
        keys
    });
    let jwt = jwt_of(&args).await.context("the JWT settings")?;
    let mut basic = a2a_server::auth::BasicUsers::new();
    if let Some(path) = &args.basic_users_file {
        basic = basic.file(path).context("--basic-users-file")?;
    }
    for (user, hash) in &args.basic_users {
        basic = basic.user(user, hash).context("--basic-user")?;
    }
    let client_certificates = args.tls_client_ca.is_some().then(|| {
        let certificates = a2a_server::auth::ClientCertificates::new().identity(args.tls_client_identity);
        certificates.declare_in(&mut card);
        certificates.declare_in(&mut extended_card);
        certificates
    });
    let basic = (!basic.is_empty()).then(|| {
        basic.declare_in(&mut card);
        basic.declare_in(&mut extended_card);
        basic
    });
    if let Some(jwt) = &jwt {
        if let Err(error) = jwt.prefetch().await {
            // The provider may be back by the first token: serve, but say so now.
            tracing::warn!(%error, "JWT keys not available yet; tokens are refused until they are");
        }
        jwt.declare_in(&mut card);
        jwt.declare_in(&mut extended_card);
    }
    let (tenants, tenant_keys) = tenants_of(&args, &card, &extended_card)?;
    let mut builder = a2a_server::Server::builder()
        .metrics(metrics)
        .agent_card(card)
        .extended_agent_card(extended_card)
        .executor(a2a_demo::DemoAgent)
        .push_destination_policy({
            let policy = DestinationPolicy::public_only().allowing(args.push_allow);
            if args.push_https_only {
                policy.https_only()
            } else {
                policy
            }
        })
        .push_retry_policy(a2a_core::push::RetryPolicy {
            max_attempts: args.push_max_attempts,
            max_age: args.push_max_age,
            ..Default::default()
        })
        .task_store(stores.tasks)
        .push_config_store(stores.push_configs)
        .shutdown_timeout(args.shutdown_timeout)
        .limits(Limits {
            max_body_bytes: args.max_body_bytes,
            max_uri_bytes: args.max_uri_bytes,
            max_header_bytes: args.max_header_bytes,
            body_read_timeout: args.body_read_timeout,
            max_streams: args.max_streams,
            max_streams_per_connection: args.max_streams_per_connection,
            max_subscribers_per_task: args.max_subscribers_per_task,
            stream_idle_timeout: args.stream_idle_timeout,
            stream_max_duration: args.stream_max_duration,
            content: ContentLimits {
                max_parts_per_message: args.max_parts_per_message,
                max_metadata_bytes: args.max_metadata_bytes,
                max_push_configs_per_task: args.max_push_configs_per_task,
                max_history_length: args.max_history_length,
            },
        });
    if let Some(mut limit) = args.rate_limit {
        if let Some(burst) = args.rate_burst {
            limit.burst = burst;
        }
        builder = builder.rate_limit(limit);
    }
    if let Some(cluster) = stores.cluster {
        builder = builder.cluster(cluster);
    }
    for (name, agent) in tenants {
        println!("tenant {name}: card at {}", a2a_server::tenant_card_path(&name));
        builder = builder.tenant(name, agent);
    }
    for keys in tenant_keys {
        builder = builder.layer(keys.layer());
    }
    if let Some(keys) = api_keys {
        println!("API keys required ({} principals, header {})", args.api_keys.len(), args.api_key_header);
        builder = builder.layer(keys.layer());
    }
    if let Some(jwt) = jwt {
        println!("Bearer JWTs accepted (card scheme {})", jwt.scheme_name());
        builder = builder.layer(jwt.layer());
    }
    if let Some(certificates) = client_certificates {
        println!("TLS client certificates accepted (principal: {:?})", args.tls_client_identity);
        builder = builder.layer(certificates.layer());
    }
    if let Some(basic) = basic {
        println!("HTTP Basic accepted ({} users)", basic.len());
        builder = builder.layer(basic.layer());
    }
    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => {
            let tls = a2a_server::tls::TlsConfig::from_pem_files(cert, key).context("TLS")?;
            match &args.tls_client_ca {
                Some(ca) => Some(tls.client_certificates(ca, args.tls_client_cert_required).context("TLS")?),
                None => Some(tls),
            }
        }
        _ => None,
    };
    // The demo agent's approval URLs (skill `authorize`, spec 7.6): outermost, a capability URL
    // that needs no credential.
    builder = builder.layer(a2a_demo::AuthorizeLayer::new().https(tls.is_some()));
    if let Some(tls) = &tls {
        builder = builder.tls(tls.clone());
        reload_on_sighup(tls.clone());
    }
    if let Some(url) = args.public_url {
        builder = builder.public_url(url);
    }
    builder = builder.jsonrpc_path(args.jsonrpc_path).card_form(args.card_form).console(args.console);
    if let (Some(path), Some(kid)) = (&args.card_signing_key, &args.card_signing_kid) {
        let pem =
            std::fs::read(path).with_context(|| format!("reading --card-signing-key {}", path.display()))?;
        let mut signer = a2a_card_sign::CardSigner::from_pem(&pem, kid.clone())
            .with_context(|| format!("--card-signing-key {}", path.display()))?;
        if let Some(jku) = &args.card_signing_jku {
            signer = signer.jku(jku.clone());
        }
        builder = builder.sign_card(signer);
    }
    if let Some(address) = args.grpc_url {
        builder = builder.grpc_url(address);
    }
    for (binding, address) in [
        (Binding::Grpc, args.grpc_listen),
        (Binding::JsonRpc, args.jsonrpc_listen),
        (Binding::Rest, args.rest_listen),
    ] {
        if let Some(address) = address {
            let listener = tokio::net::TcpListener::bind(&address)
                .await
                .with_context(|| format!("binding {address} for {binding:?}"))?;
            println!("{binding:?} on its own port: {}", listener.local_addr()?);
            builder = builder.binding_listener(binding, listener);
        }
    }
    if let Some(address) = args.metrics_listen {
        let listener = tokio::net::TcpListener::bind(&address)
            .await
            .with_context(|| format!("binding {address} for the metrics"))?;
        println!("metrics on http://{}{}", listener.local_addr()?, a2a_server::metrics::METRICS_PATH);
        builder = builder.metrics_listener(listener);
    }
    let scheme = if tls.is_some() { "https" } else { "http" };
    println!("a2a-server listening on {scheme}://{local}");
    println!("tasks kept in: {}", stores.description);
    println!("agent card: {scheme}://{local}{}", a2a_server::AGENT_CARD_PATH);
    tracing::info!(%local, "serving JSON-RPC (POST /), REST and gRPC");
    builder.serve(listener).await.context("serving")?;
    #[cfg(feature = "otel")]
    if let Some(provider) = traces {
        // Sends what is still batched.
        provider.shutdown().context("exporting the last traces")?;
    }
    #[cfg(feature = "otel")]
    if let Some(provider) = meters {
        provider.shutdown().context("exporting the last metrics")?;
    }
    Ok(())
}

/// A tenant's name and agent.
type Tenant = (String, a2a_server::TenantAgent);

/// `--tenant` and `--tenant-api-key`: the tenants' agents (the demo agent, named after the
/// tenant) and the API key authenticators of those with keys of their own. A tenant without
/// keys of its own requires what the main `card` requires.
fn tenants_of(
    args: &Args,
    card: &a2a_proto::v1::AgentCard,
    extended: &a2a_proto::v1::AgentCard,
) -> anyhow::Result<(Vec<Tenant>, Vec<a2a_server::auth::ApiKeys>)> {
    if let Some((tenant, ..)) =
        args.tenant_api_keys.iter().find(|(tenant, ..)| !args.tenants.contains(tenant))
    {
        anyhow::bail!("--tenant-api-key {tenant}:...: there is no --tenant {tenant}");
    }
    let (mut agents, mut authenticators) = (Vec::new(), Vec::new());
    for name in &args.tenants {
        let named = |card: &a2a_proto::v1::AgentCard| {
            let mut card = card.clone();
            card.name = format!("{} (tenant {name})", card.name);
            card.supported_interfaces.clear();
            card
        };
        let (mut card, mut extended) = (named(card), named(extended));
        let own: Vec<_> = args.tenant_api_keys.iter().filter(|(tenant, ..)| tenant == name).collect();
        if !own.is_empty() {
            for card in [&mut card, &mut extended] {
                card.security_schemes.clear();
                card.security_requirements.clear();
            }
            let location = a2a_server::auth::KeyLocation::Header(args.api_key_header.clone());
            let keys = own.iter().fold(
                a2a_server::auth::ApiKeys::new(format!("apiKey-{name}"), location),
                |keys, (_, key, who)| keys.key(key, who),
            );
            keys.declare_in(&mut card);
            keys.declare_in(&mut extended);
            authenticators.push(keys);
        }
        let agent = a2a_server::TenantAgent::new(card, a2a_demo::DemoAgent).extended_agent_card(extended);
        agents.push((name.clone(), agent));
    }
    Ok((agents, authenticators))
}

/// `--tls-cert`/`--tls-key`: SIGHUP reads both files again (a renewed certificate); on an error
/// the certificate in use stays, and the error is logged.
fn reload_on_sighup(tls: a2a_server::tls::TlsConfig) {
    #[cfg(unix)]
    tokio::spawn(async move {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut hangups) = signal(SignalKind::hangup()) else { return };
        while hangups.recv().await.is_some() {
            match tls.reload() {
                Ok(()) => tracing::info!("TLS certificate reloaded"),
                Err(error) => tracing::error!(%error, "TLS certificate not reloaded; the previous one stays"),
            }
        }
    });
    #[cfg(not(unix))]
    drop(tls);
}

/// `--otlp-endpoint`: the OTLP exporter and the `tracing` layer that feeds it.
#[cfg(feature = "otel")]
mod traces {
    use anyhow::Context as _;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_otlp::WithExportConfig as _;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing_subscriber::Layer as _;

    /// A provider exporting in batches over OTLP/HTTP to `url`.
    pub(crate) fn export_to(url: &str) -> anyhow::Result<SdkTracerProvider> {
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_endpoint(url)
            .build()
            .context("--otlp-endpoint")?;
        let resource = opentelemetry_sdk::Resource::builder().with_service_name("a2a-server").build();
        Ok(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource).build())
    }

    /// A meter provider exporting `metrics` over OTLP/HTTP to `url`, periodically.
    pub(crate) fn export_metrics(
        url: &str,
        metrics: &a2a_server::Metrics,
    ) -> anyhow::Result<opentelemetry_sdk::metrics::SdkMeterProvider> {
        use opentelemetry::metrics::MeterProvider as _;
        let exporter = opentelemetry_otlp::MetricExporter::builder()
            .with_http()
            .with_endpoint(url)
            .build()
            .context("--otlp-metrics-endpoint")?;
        let resource = opentelemetry_sdk::Resource::builder().with_service_name("a2a-server").build();
        let provider = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
            .with_periodic_exporter(exporter)
            .with_resource(resource)
            .build();
        metrics.export_to(&provider.meter("a2a-server"));
        Ok(provider)
    }

    /// The server's spans (`a2a_server` targets: requests and operations) for `provider`,
    /// whatever `--log` lets through to the log.
    pub(crate) fn layer<S>(provider: &SdkTracerProvider) -> impl tracing_subscriber::Layer<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        let filter =
            tracing_subscriber::filter::Targets::new().with_target("a2a_server", tracing::Level::INFO);
        tracing_opentelemetry::layer().with_tracer(provider.tracer("a2a-server")).with_filter(filter)
    }
}
