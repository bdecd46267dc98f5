//! The Agentic Resource Discovery catalog at [`AI_CATALOG_PATH`] (`/.well-known/ai-catalog.json`):
//! one document listing the agent card of every agent this server serves, the main agent and
//! each tenant (A2A leaves discovery beyond the well-known card to it).
//!
//! The shape follows the ARD / AI Catalog draft (Linux Foundation AI Catalog working group): an
//! envelope with `specVersion`, the `host` that publishes it, and `entries`, each with a
//! domain-anchored URN `identifier`, a `displayName`, the `mediaType`
//! `application/a2a-agent-card+json` and the `url` of the card (the draft wants exactly one of
//! `url` and inline `data`: the card stays the one source, with its caching and signature).
//! `description` and `tags` (the skills' tags) help a registry index the entry without fetching
//! the card; `docs/console.md` shows a document.
//!
//! Like the agent card, the catalog is public (no credential: it is what a client reads before
//! it knows how to authenticate), and built once when the server starts.

use a2a_proto::v1::AgentCard;
use axum::http::{header, HeaderValue};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};

use crate::card::{tenant_card_path, AGENT_CARD_PATH};

/// Where the catalog is served.
pub const AI_CATALOG_PATH: &str = "/.well-known/ai-catalog.json";

/// The media type of an entry that is an A2A agent card.
pub const A2A_CARD_MEDIA_TYPE: &str = "application/a2a-agent-card+json";

/// The version of the ARD draft whose shape [`document`] writes.
pub const SPEC_VERSION: &str = "0.9";

/// The catalog of a server reachable at `public_url` serving `main` and the `tenants`' agents.
pub fn document(public_url: &str, main: &AgentCard, tenants: &[(&str, &AgentCard)]) -> Value {
    let base = public_url.trim_end_matches('/');
    let host = url::Url::parse(public_url)
        .ok()
        .and_then(|url| url.host_str().map(str::to_owned))
        .unwrap_or_else(|| "localhost".to_owned());
    let publisher = main
        .provider
        .as_ref()
        .map(|p| p.organization.clone())
        .filter(|o| !o.is_empty())
        .unwrap_or_else(|| main.name.clone());
    let entry = |identifier: String, path: &str, card: &AgentCard| {
        let mut tags: Vec<&str> =
            card.skills.iter().flat_map(|s| s.tags.iter().map(String::as_str)).collect();
        tags.sort_unstable();
        tags.dedup();
        json!({
            "identifier": identifier,
            "displayName": card.name,
            "mediaType": A2A_CARD_MEDIA_TYPE,
            "url": format!("{base}{path}"),
            "description": card.description,
            "tags": tags,
        })
    };
    let mut entries = vec![entry(format!("urn:ai:{host}:a2a"), AGENT_CARD_PATH, main)];
    for (tenant, card) in tenants {
        entries.push(entry(format!("urn:ai:{host}:a2a:{tenant}"), &tenant_card_path(tenant), card));
    }
    json!({
        "specVersion": SPEC_VERSION,
        "host": { "displayName": publisher, "identifier": format!("urn:ai:{host}"), "url": base },
        "entries": entries,
    })
}

/// The router serving `document` at [`AI_CATALOG_PATH`].
pub(crate) fn router(document: &Value) -> Router {
    let body = bytes::Bytes::from(document.to_string());
    Router::new().route(
        AI_CATALOG_PATH,
        get(move || {
            let body = body.clone();
            async move {
                (
                    [
                        (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
                        (header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=300")),
                    ],
                    body,
                )
                    .into_response()
            }
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_is_an_entry_pointing_at_its_card() {
        let mut main = AgentCard { name: "Main".into(), description: "d".into(), ..AgentCard::default() };
        main.skills.push(a2a_proto::v1::AgentSkill {
            tags: vec!["b".into(), "a".into(), "b".into()],
            ..Default::default()
        });
        let acme = AgentCard { name: "Acme".into(), ..AgentCard::default() };
        let catalog = document("http://example.com:8080/", &main, &[("acme", &acme)]);
        assert_eq!(catalog["specVersion"], SPEC_VERSION);
        assert_eq!(catalog["host"]["displayName"], "Main");
        let entries = catalog["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0]["identifier"], "urn:ai:example.com:a2a");
        assert_eq!(entries[0]["url"], "http://example.com:8080/.well-known/agent-card.json");
        assert_eq!(entries[0]["tags"], json!(["a", "b"]));
        assert_eq!(entries[1]["identifier"], "urn:ai:example.com:a2a:acme");
        assert_eq!(entries[1]["url"], "http://example.com:8080/acme/.well-known/agent-card.json");
        assert!(entries.iter().all(|e| e["mediaType"] == A2A_CARD_MEDIA_TYPE && e.get("data").is_none()));
    }
}
