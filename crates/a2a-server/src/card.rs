//! The public agent card at `/.well-known/agent-card.json` (spec 8.2), with HTTP caching (spec 8.6):
//! `Cache-Control: max-age`, an `ETag` derived from the card's bytes, and `304 Not Modified` for a
//! matching `If-None-Match`.
//!
//! The card is served as the "union" card of `a2a-v03` (`card.to_v03(Form::Json)`): the 1.0 card
//! as it is (1.0 readers ignore the rest), plus the 0.3 members a 0.3 client requires (`url`,
//! `preferredTransport`, `additionalInterfaces`, `protocolVersion: "0.3.0"`,
//! `supportsAuthenticatedExtendedCard`), taken from the card's 0.3 interfaces. One document for
//! both versions, so the `ETag` and caches need no `Vary: A2A-Version`.

use std::hash::{Hash, Hasher};

use a2a_proto::v1::{AgentCard, AgentInterface};
use a2a_v03::{Form, V03};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;

/// The well-known path of the agent card.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";

/// How long clients may cache the card.
const MAX_AGE_SECONDS: u32 = 300;

/// The interfaces a server on `public_url` (JSON-RPC and REST) and `grpc_address` (gRPC,
/// `host:port` as the proto's `AgentInterface.url` comment says) offers, in preference order.
pub fn interfaces(public_url: &str, grpc_address: &str) -> Vec<AgentInterface> {
    interfaces_of(public_url, public_url, grpc_address)
}

/// The interfaces of a server whose bindings may be on different ports, in preference order.
pub fn interfaces_of(jsonrpc_url: &str, rest_url: &str, grpc_address: &str) -> Vec<AgentInterface> {
    let interface = |url: &str, binding: &str| AgentInterface {
        url: url.to_owned(),
        protocol_binding: binding.to_owned(),
        tenant: String::new(),
        protocol_version: "1.0".to_owned(),
    };
    vec![interface(jsonrpc_url, "JSONRPC"), interface(rest_url, "HTTP+JSON"), interface(grpc_address, "GRPC")]
}

/// The router serving the card.
pub(crate) fn router(card: &AgentCard) -> Router {
    let union = V03::to_v03(card, Form::Json);
    let body = Bytes::from(serde_json::to_vec(&union).expect("a JSON value always serializes"));
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut hasher);
    let etag =
        HeaderValue::from_str(&format!("\"{:016x}\"", hasher.finish())).expect("hex is a valid header");
    Router::new()
        .route(AGENT_CARD_PATH, get(move |headers: HeaderMap| serve(headers, body.clone(), etag.clone())))
}

async fn serve(request: HeaderMap, body: Bytes, etag: HeaderValue) -> Response {
    let cache = HeaderValue::from_str(&format!("public, max-age={MAX_AGE_SECONDS}")).expect("valid header");
    let matches = request.get_all(header::IF_NONE_MATCH).iter().any(|value| {
        value.to_str().is_ok_and(|v| {
            v.split(',').map(str::trim).any(|tag| tag == "*" || tag == etag.to_str().unwrap_or(""))
        })
    });
    if matches {
        return (StatusCode::NOT_MODIFIED, [(header::ETAG, etag), (header::CACHE_CONTROL, cache)])
            .into_response();
    }
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
        ],
        body,
    )
        .into_response()
}
