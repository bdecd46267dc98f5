//! [`Target`]: an agent under test, as its card describes it: the card, read over plain HTTP from
//! the well-known URI (spec 8.2), and one [`Endpoint`] per standard binding the card declares for
//! A2A 1.0 (spec 8.3.1), or the reason that binding cannot be tested.

use std::sync::Arc;

use a2a_core::A2aService;
use a2a_proto::v1::{AgentCard, AgentInterface};
use anyhow::Context as _;

use crate::binding::Binding;

/// The well-known path of the agent card (spec 8.2).
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";

/// One binding of a target: the interface the card declares for it and a client on it.
#[derive(Clone)]
pub struct Endpoint {
    /// The binding.
    pub binding: Binding,
    /// The card's entry for it.
    pub interface: AgentInterface,
    /// A client speaking the binding to the interface's URL (with its tenant).
    pub client: Arc<dyn A2aService>,
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("binding", &self.binding)
            .field("url", &self.interface.url)
            .finish_non_exhaustive()
    }
}

/// An agent under test.
#[derive(Debug, Clone)]
pub struct Target {
    /// Where its card was found (scheme, host, port: the base of the well-known URI).
    pub base_url: String,
    /// Its public card.
    pub card: AgentCard,
    endpoints: Vec<Endpoint>,
    untestable: Vec<(Binding, String)>,
}

impl Target {
    /// Reads the card at `base_url` + [`AGENT_CARD_PATH`] and connects a client to each standard
    /// binding it declares for protocol version 1.0.
    ///
    /// # Errors
    /// When the card cannot be fetched or is not an AgentCard.
    pub async fn discover(base_url: &str, http: &reqwest::Client) -> anyhow::Result<Target> {
        let base_url = base_url.trim().trim_end_matches('/').to_owned();
        let card = fetch_card(&base_url, http).await?.card;
        Ok(Self::from_card(base_url, card))
    }

    /// A target for `card` found at `base_url`.
    pub fn from_card(base_url: String, card: AgentCard) -> Target {
        let mut endpoints = Vec::new();
        let mut untestable = Vec::new();
        for binding in Binding::ALL {
            let declared: Vec<&AgentInterface> = card
                .supported_interfaces
                .iter()
                .filter(|i| Binding::from_protocol_binding(&i.protocol_binding) == Some(binding))
                .collect();
            // spec 8.3.2: the first entry wins; only 1.0 interfaces are in scope (spec 3.6).
            let Some(interface) = declared.iter().find(|i| is_v1(&i.protocol_version)) else {
                let reason = if declared.is_empty() {
                    format!("the agent card declares no {binding} interface")
                } else {
                    let versions: Vec<&str> = declared.iter().map(|i| i.protocol_version.as_str()).collect();
                    format!("the card's {binding} interfaces are for protocol versions {versions:?}, not 1.0")
                };
                untestable.push((binding, reason));
                continue;
            };
            match binding.connect(interface) {
                Ok(client) => {
                    endpoints.push(Endpoint { binding, interface: (*interface).clone(), client });
                }
                Err(error) => {
                    untestable.push((binding, format!("cannot connect to {:?}: {error}", interface.url)))
                }
            }
        }
        Target { base_url, card, endpoints, untestable }
    }

    /// The bindings under test, in report order.
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// The endpoint of `binding`, if the card offers it.
    pub fn endpoint(&self, binding: Binding) -> Option<&Endpoint> {
        self.endpoints.iter().find(|e| e.binding == binding)
    }

    /// Why `binding` cannot be tested, if it cannot.
    pub fn untestable(&self, binding: Binding) -> Option<&str> {
        self.untestable.iter().find(|(b, _)| *b == binding).map(|(_, reason)| reason.as_str())
    }

    /// Replaces the client of `binding` by `wrap(client)`: decorators that observe or alter one
    /// binding (this is how the suite's own tests prove it can fail).
    pub fn wrap_client(
        &mut self,
        binding: Binding,
        wrap: impl FnOnce(Arc<dyn A2aService>) -> Arc<dyn A2aService>,
    ) {
        if let Some(endpoint) = self.endpoints.iter_mut().find(|e| e.binding == binding) {
            endpoint.client = wrap(Arc::clone(&endpoint.client));
        }
    }

    /// Whether the card declares `skill` (by `AgentSkill.id`).
    pub fn has_skill(&self, skill: &str) -> bool {
        self.card.skills.iter().any(|s| s.id == skill)
    }

    /// The extension URIs the card marks `required` (spec 3.3.4): every call must declare them.
    pub fn required_extensions(&self) -> Vec<String> {
        self.card
            .capabilities
            .as_ref()
            .map(|c| c.extensions.iter().filter(|e| e.required).map(|e| e.uri.clone()).collect())
            .unwrap_or_default()
    }
}

/// `Major.Minor` is 1.0 (spec 3.6: a patch part does not count).
fn is_v1(version: &str) -> bool {
    let mut parts = version.trim().split('.');
    parts.next() == Some("1") && parts.next() == Some("0")
}

/// The card as served: the HTTP facts the card scenario checks, and the parsed card.
#[derive(Debug, Clone)]
pub struct CardResponse {
    /// The HTTP status.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: Option<String>,
    /// `Cache-Control`.
    pub cache_control: Option<String>,
    /// `ETag`.
    pub etag: Option<String>,
    /// The body as JSON.
    pub json: serde_json::Value,
    /// The body as an AgentCard (ProtoJSON).
    pub card: AgentCard,
}

/// GETs the card at `base_url` + [`AGENT_CARD_PATH`] (spec 8.2).
///
/// # Errors
/// When the request fails, the status is not 200, or the body is not an AgentCard.
pub async fn fetch_card(base_url: &str, http: &reqwest::Client) -> anyhow::Result<CardResponse> {
    let url = format!("{}{AGENT_CARD_PATH}", base_url.trim_end_matches('/'));
    let response = http.get(&url).send().await.with_context(|| format!("GET {url}"))?;
    let status = response.status().as_u16();
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let (content_type, cache_control, etag) =
        (header("content-type"), header("cache-control"), header("etag"));
    let body = response.bytes().await.with_context(|| format!("reading {url}"))?;
    anyhow::ensure!(status == 200, "GET {url}: HTTP {status}: {}", String::from_utf8_lossy(&body));
    let json: serde_json::Value =
        serde_json::from_slice(&body).with_context(|| format!("the card at {url} is not JSON"))?;
    let card: AgentCard = a2a_proto::json::from_slice(&body)
        .map_err(|e| anyhow::anyhow!("the card at {url} is not an A2A 1.0 AgentCard: {e}"))?;
    Ok(CardResponse { status, content_type, cache_control, etag, json, card })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interface(binding: &str, url: &str, version: &str) -> AgentInterface {
        AgentInterface {
            url: url.into(),
            protocol_binding: binding.into(),
            tenant: String::new(),
            protocol_version: version.into(),
        }
    }

    #[test]
    fn only_1_0_interfaces_are_tested_and_the_rest_say_why() {
        let card = AgentCard {
            supported_interfaces: vec![
                interface("JSONRPC", "http://127.0.0.1:1/v03", "0.3"),
                interface("JSONRPC", "http://127.0.0.1:1/", "1.0"),
                interface("GRPC", "127.0.0.1:2", "0.3"),
            ],
            ..Default::default()
        };
        let target = Target::from_card("http://127.0.0.1:1".into(), card);
        let bindings: Vec<_> = target.endpoints().iter().map(|e| e.binding).collect();
        assert_eq!(bindings, [Binding::JsonRpc]);
        assert_eq!(target.endpoint(Binding::JsonRpc).unwrap().interface.url, "http://127.0.0.1:1/");
        assert!(target.untestable(Binding::HttpJson).unwrap().contains("no HTTP+JSON interface"));
        assert!(target.untestable(Binding::Grpc).unwrap().contains("[\"0.3\"]"));
    }

    #[test]
    fn versions_compare_by_major_and_minor() {
        assert!(is_v1("1.0"));
        assert!(is_v1("1.0.2"));
        assert!(!is_v1("1.1"));
        assert!(!is_v1("0.3"));
        assert!(!is_v1(""));
    }
}
