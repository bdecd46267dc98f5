//! The public agent card at `/.well-known/agent-card.json` (spec 8.2), with HTTP caching (spec 8.6):
//! `Cache-Control: max-age`, an `ETag` derived from the card's bytes, `Last-Modified` (when the
//! router was built: the card cannot change after that), and `304 Not Modified` for a matching
//! `If-None-Match`, or, without one, an `If-Modified-Since` at or after it.
//!
//! [`router`] is public, for users who compose their own routes around it.
//!
//! By default ([`CardForm::Union`]) the card is served as the "union" card of `a2a-v03` (`card.to_v03(Form::Json)`): the 1.0 card
//! as it is (1.0 readers ignore the rest), plus the 0.3 members a 0.3 client requires (`url`,
//! `preferredTransport`, `additionalInterfaces`, `protocolVersion: "0.3.0"`,
//! `supportsAuthenticatedExtendedCard`), taken from the card's 0.3 interfaces. One document for
//! both versions, so the `ETag` and caches need no `Vary: A2A-Version`. [`CardForm::V1`] serves
//! the 1.0 card alone (for strict 1.0 readers that reject unknown fields); the 0.3 endpoints are
//! still served, only not advertised.
//!
//! With a signer ([`signed_router`], `ServerBuilder::sign_card`), the document served is signed
//! as served (spec 8.4): the union document's signature covers the union JSON (its 0.3 members
//! too), the 1.0 document's covers [`a2a_card_sign::card_json`] (REQUIRED fields present even at
//! their default, as 8.4.1 wants). A client verifies the bytes it receives either way.

use std::hash::{Hash, Hasher};

use a2a_card_sign::CardSigner;
use a2a_proto::v1::{AgentCard, AgentInterface};
use a2a_v03::{Form, V03};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use bytes::Bytes;

/// The well-known path of the agent card (spec 8.2): `a2a_core::AGENT_CARD_PATH`.
pub use a2a_core::AGENT_CARD_PATH;

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

/// How the card is written on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum CardForm {
    /// The 1.0 card plus the 0.3 members and 0.3 twin interfaces (see the module docs): readable
    /// by 0.3 and 1.0 clients. The default.
    #[default]
    Union,
    /// The 1.0 card only (ProtoJSON of `AgentCard`), for strict 1.0 readers.
    V1,
}

/// The router serving `card` at [`AGENT_CARD_PATH`] in `form`, with the caching headers of the
/// module docs.
pub fn router(card: &AgentCard, form: CardForm) -> Router {
    signed_router(card, form, None).expect("an unsigned card always serializes")
}

/// [`router`], serving the card signed by `signer` when there is one: the signature is appended
/// to the card's own `signatures`. Fails when the card cannot be signed (a number without an
/// RFC 8785 form).
pub fn signed_router(
    card: &AgentCard,
    form: CardForm,
    signer: Option<&CardSigner>,
) -> Result<Router, a2a_card_sign::Error> {
    signed_router_at(AGENT_CARD_PATH, card, form, signer)
}

/// Where the card of the agent served at `tenant` is: `/{tenant}/.well-known/agent-card.json`
/// (the well-known path under the tenant's segment, where the official Java SDK's client looks
/// for it; `docs/decisions.md`).
pub fn tenant_card_path(tenant: &str) -> String {
    format!("/{tenant}{AGENT_CARD_PATH}")
}

/// [`signed_router`] serving the card at `path` instead of [`AGENT_CARD_PATH`].
pub fn signed_router_at(
    path: &str,
    card: &AgentCard,
    form: CardForm,
    signer: Option<&CardSigner>,
) -> Result<Router, a2a_card_sign::Error> {
    Ok(document_router(path, Bytes::from(document(card, form, signer)?)))
}

/// The router serving `body`, a card document made by [`document`], at `path` (the caching
/// headers of the module docs).
pub(crate) fn document_router(path: &str, body: Bytes) -> Router {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    body.hash(&mut hasher);
    let etag =
        HeaderValue::from_str(&format!("\"{:016x}\"", hasher.finish())).expect("hex is a valid header");
    // HTTP dates have whole seconds: the card is dated to the second it was built in.
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let modified = std::time::UNIX_EPOCH + std::time::Duration::from_secs(since_epoch.as_secs());
    let served = std::sync::Arc::new(Served { body, etag, modified });
    Router::new().route(path, get(move |headers: HeaderMap| std::future::ready(serve(&headers, &served))))
}

/// The card document served for `form`, signed by `signer` if given.
pub(crate) fn document(
    card: &AgentCard,
    form: CardForm,
    signer: Option<&CardSigner>,
) -> Result<Vec<u8>, a2a_card_sign::Error> {
    let serialized = "a card always serializes";
    let Some(signer) = signer else {
        return Ok(match form {
            CardForm::Union => serde_json::to_vec(&V03::to_v03(card, Form::Json)).expect(serialized),
            CardForm::V1 => a2a_proto::json::to_vec(card).expect(serialized),
        });
    };
    let mut document = match form {
        CardForm::Union => V03::to_v03(card, Form::Json),
        CardForm::V1 => a2a_card_sign::card_json(card),
    };
    signer.sign_document(&mut document)?;
    Ok(serde_json::to_vec(&document).expect(serialized))
}

struct Served {
    body: Bytes,
    etag: HeaderValue,
    modified: std::time::SystemTime,
}

fn serve(request: &HeaderMap, card: &Served) -> Response {
    let cache = HeaderValue::from_str(&format!("public, max-age={MAX_AGE_SECONDS}")).expect("valid header");
    let last_modified = httpdate::fmt_http_date(card.modified);
    let last_modified = HeaderValue::from_str(&last_modified).expect("an HTTP date is a valid header");
    let etag = card.etag.clone();
    // RFC 9110 13.2.2: If-None-Match wins; If-Modified-Since counts only without it.
    let fresh = if request.contains_key(header::IF_NONE_MATCH) {
        request.get_all(header::IF_NONE_MATCH).iter().any(|value| {
            value.to_str().is_ok_and(|v| {
                v.split(',').map(str::trim).any(|tag| tag == "*" || tag == etag.to_str().unwrap_or(""))
            })
        })
    } else {
        request
            .get(header::IF_MODIFIED_SINCE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| httpdate::parse_http_date(v).ok())
            .is_some_and(|since| since >= card.modified)
    };
    if fresh {
        return (
            StatusCode::NOT_MODIFIED,
            [(header::ETAG, etag), (header::CACHE_CONTROL, cache), (header::LAST_MODIFIED, last_modified)],
        )
            .into_response();
    }
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (header::ETAG, etag),
            (header::CACHE_CONTROL, cache),
            (header::LAST_MODIFIED, last_modified),
        ],
        card.body.clone(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;

    use super::*;

    fn card() -> AgentCard {
        let mut card = a2a_demo::demo_card();
        card.supported_interfaces = interfaces("http://127.0.0.1:8080", "127.0.0.1:8080");
        a2a_v03::with_v03_interfaces(&card)
    }

    async fn get_card(router: &Router, header: Option<(header::HeaderName, &str)>) -> Response {
        let mut request = Request::get(AGENT_CARD_PATH);
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap()
    }

    #[tokio::test]
    async fn the_card_is_dated_and_a_client_that_has_it_gets_304() {
        let router = router(&card(), CardForm::Union);
        let first = get_card(&router, None).await;
        assert_eq!(first.status(), StatusCode::OK);
        let modified = first.headers()[header::LAST_MODIFIED].to_str().unwrap().to_owned();
        let at = httpdate::parse_http_date(&modified).unwrap();
        assert!(at <= std::time::SystemTime::now(), "{modified}");
        let same = get_card(&router, Some((header::IF_MODIFIED_SINCE, &modified))).await;
        assert_eq!(same.status(), StatusCode::NOT_MODIFIED);
        let older = httpdate::fmt_http_date(at - std::time::Duration::from_secs(60));
        assert_eq!(
            get_card(&router, Some((header::IF_MODIFIED_SINCE, &older))).await.status(),
            StatusCode::OK
        );
        // If-None-Match wins over If-Modified-Since (RFC 9110 13.2.2).
        let request = Request::get(AGENT_CARD_PATH)
            .header(header::IF_NONE_MATCH, "\"other\"")
            .header(header::IF_MODIFIED_SINCE, &modified);
        let both = router.clone().oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(both.status(), StatusCode::OK);
    }

    #[tokio::test]
    async fn a_v1_card_has_no_0_3_members_or_interfaces() {
        let body = |response: Response| async move {
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
            serde_json::from_slice::<serde_json::Value>(&bytes).unwrap()
        };
        let mut plain = a2a_demo::demo_card();
        plain.supported_interfaces = interfaces("http://127.0.0.1:8080", "127.0.0.1:8080");
        let v1 = body(get_card(&router(&plain, CardForm::V1), None).await).await;
        for member in ["url", "preferredTransport", "additionalInterfaces", "protocolVersion"] {
            assert!(v1.get(member).is_none(), "{member} in {v1}");
        }
        let versions: Vec<&str> = v1["supportedInterfaces"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["protocolVersion"].as_str().unwrap())
            .collect();
        assert_eq!(versions, ["1.0", "1.0", "1.0"]);
        let parsed: AgentCard = a2a_proto::json::from_value(v1).unwrap();
        assert_eq!(parsed, plain, "the v1 body is the card, nothing more");
        let union = body(get_card(&router(&card(), CardForm::Union), None).await).await;
        assert_eq!(union["protocolVersion"], "0.3.0");
    }

    /// spec 8.4: the card served, in either form, carries a signature over what is served, which
    /// verifies with the signer's public key and no longer does once the document is changed.
    #[tokio::test]
    async fn a_signed_card_verifies_in_either_form() {
        let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/../a2a-card-sign/tests/data/keys/");
        let private = std::fs::read(format!("{keys}es256.key.pem")).unwrap();
        let public = std::fs::read(format!("{keys}es256.pub.pem")).unwrap();
        let signer = CardSigner::from_pem(&private, "card-key").unwrap();
        let trusted = a2a_card_sign::TrustedKeys::new().with_pem(Some("card-key"), &public).unwrap();
        for form in [CardForm::Union, CardForm::V1] {
            let router = signed_router(&card(), form, Some(&signer)).unwrap();
            let response = get_card(&router, None).await;
            let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
            let mut served: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let verified = a2a_card_sign::verify(&served, &trusted).unwrap();
            assert_eq!(verified.kid.as_deref(), Some("card-key"), "{form:?}");
            assert_eq!(served.get("protocolVersion").is_some(), form == CardForm::Union);
            served["name"] = "Someone else".into();
            assert!(a2a_card_sign::verify(&served, &trusted).is_err(), "{form:?}");
        }
    }
}
