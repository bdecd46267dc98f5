//! The web console (`a2a-server --console`, [`ServerBuilder::console`](crate::ServerBuilder::console)),
//! served under [`CONSOLE_PATH`] on the main port: a TypeScript application (its sources in
//! `crates/a2a-server/console/`, the script and style built into `console/dist/`, checked in and
//! embedded here with the page `console/src/index.html`, so building the server needs no Node) that talks to the server's own JSON-RPC and HTTP+JSON
//! endpoints as any client does, with the credential the user enters, and to the small API below
//! for what A2A does not carry. `docs/console.md` says what each view shows.
//!
//! Authentication: the console sits behind the same layers as the API (the server's
//! authentication [`layer`](crate::ServerBuilder::layer)s identify the caller) and admits a
//! caller exactly when the main agent would ([`a2a_core::security::check`] against its card): a
//! server without security has an open console, one with `--api-key` wants a key. What is
//! served without a credential is the page itself (HTML, script, style: the login view, no data);
//! every answer with data is of the API, which answers 401 (403 for missing scopes) otherwise:
//! - `GET /console/api/session`: who the caller is (`{"principal": ..}`), what the login checks;
//! - `GET /console/api/agents`: every agent served (the main one and each tenant): its card
//!   as served, the card's URL, and the validation `a2a-cli card get --validate` makes
//!   ([`a2a_proto::validate`]) of that document;
//! - `GET /console/api/status`: liveness, readiness ([`health`](crate::health)), uptime and a
//!   snapshot of the request metrics ([`Metrics`]).

use std::sync::Arc;
use std::time::Instant;

use a2a_core::{Binding, Operation, Principal};
use a2a_proto::v1::AgentCard;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Extension, Router};
use serde_json::{json, Value};

use crate::health::Readiness;
use crate::metrics::{ExecutionKind, Metrics};

/// Where the console is served.
pub const CONSOLE_PATH: &str = "/console";

// The page is not built (`console/build.mjs`): embedded from its source.
const INDEX_HTML: &str = include_str!("../console/src/index.html");
const CONSOLE_JS: &str = include_str!("../console/dist/console.js");
const CONSOLE_CSS: &str = include_str!("../console/dist/console.css");

/// The page's own policy: its script and style only, no frames; requests may go to any
/// interface the cards list (an interface on another port is another origin).
const CONTENT_SECURITY_POLICY: &str =
    "default-src 'self'; connect-src *; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'";

/// One agent the console shows.
#[derive(Debug, Clone)]
pub(crate) struct ConsoleAgent {
    /// `None` for the main agent.
    pub(crate) tenant: Option<String>,
    /// The path its card is served at.
    pub(crate) card_path: String,
    /// The card document as served.
    pub(crate) document: Value,
}

/// What the console's API reads.
pub(crate) struct Console {
    /// The main agent's card: whose security the console requires.
    pub(crate) card: AgentCard,
    pub(crate) agents: Vec<ConsoleAgent>,
    pub(crate) metrics: Metrics,
    pub(crate) readiness: Readiness,
    pub(crate) started: Instant,
}

/// The console's routes: the page's assets and the API (behind [`admit`]).
pub(crate) fn router(console: Console) -> Router {
    let console = Arc::new(console);
    let api = Router::new()
        .route("/session", get(session))
        .route("/agents", get(agents))
        .route("/status", get(status))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such console API") })
        .layer(axum::middleware::from_fn_with_state(Arc::clone(&console), admit))
        .with_state(console);
    Router::new()
        .route(CONSOLE_PATH, get(|| async { Redirect::permanent("/console/") }))
        .route("/console/", get(|| async { asset("text/html; charset=utf-8", INDEX_HTML) }))
        .route("/console/console.js", get(|| async { asset("text/javascript; charset=utf-8", CONSOLE_JS) }))
        .route("/console/console.css", get(|| async { asset("text/css; charset=utf-8", CONSOLE_CSS) }))
        .nest_service("/console/api", api)
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY)),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
        ],
        body,
    )
        .into_response()
}

fn api_json(status: StatusCode, body: &Value) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body.to_string(),
    )
        .into_response()
}

fn error(status: StatusCode, message: &str) -> Response {
    api_json(status, &json!({ "error": message }))
}

/// Admits exactly the callers the main agent admits (the module docs).
async fn admit(
    State(console): State<Arc<Console>>,
    principal: Option<Extension<Principal>>,
    request: Request,
    next: Next,
) -> Response {
    match a2a_core::security::check(&console.card, principal.as_ref().map(|p| &p.0)) {
        Ok(()) => next.run(request).await,
        Err(e @ a2a_core::Error::PermissionDenied { .. }) => error(StatusCode::FORBIDDEN, &e.to_string()),
        Err(e) => error(StatusCode::UNAUTHORIZED, &e.to_string()),
    }
}

async fn session(principal: Option<Extension<Principal>>) -> Response {
    let principal = principal.map(|p| p.0.id.clone());
    api_json(StatusCode::OK, &json!({ "principal": principal }))
}

async fn agents(State(console): State<Arc<Console>>) -> Response {
    let agents: Vec<Value> = console
        .agents
        .iter()
        .map(|agent| {
            let report = a2a_v03::validate_card(&agent.document);
            json!({
                "tenant": agent.tenant,
                "cardPath": agent.card_path,
                "card": agent.document,
                "validation": { "valid": report.is_valid(), "problems": report.problems, "notes": report.notes },
            })
        })
        .collect();
    api_json(StatusCode::OK, &json!({ "agents": agents }))
}

async fn status(State(console): State<Arc<Console>>) -> Response {
    let ready = console.readiness.check().await;
    let metrics = &console.metrics;
    let mut requests = Vec::new();
    for binding in Binding::ALL {
        for operation in Operation::ALL {
            let total = metrics.timed_requests(binding, operation);
            if total == 0 {
                continue;
            }
            requests.push(json!({
                "binding": binding.protocol_binding(),
                "operation": operation.method(),
                "total": total,
                "ok": metrics.requests(binding, operation, "ok"),
                "openStreams": metrics.open_streams(binding, operation),
            }));
        }
    }
    let body = json!({
        "live": true,
        "ready": ready.is_ok(),
        "reason": ready.err().map(|unready| unready.reason()),
        "uptimeSeconds": console.started.elapsed().as_secs(),
        "liveTasks": metrics.live_tasks(),
        "executions": {
            "execute": metrics.active_executions(ExecutionKind::Execute),
            "cancel": metrics.active_executions(ExecutionKind::Cancel),
        },
        "requests": requests,
    });
    api_json(StatusCode::OK, &body)
}
