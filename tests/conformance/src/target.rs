//! [`Target`]: an agent under test, as its card describes it: the card, read over plain HTTP from
//! the well-known URI (spec 8.2), and one [`Endpoint`] per column, i.e. per standard binding the
//! card declares for A2A 1.0 and, when it declares any 0.3 interface, per binding for 0.3 (spec
//! 8.3.1, 3.6.2), or the reason that column cannot be tested.

use std::sync::Arc;

use a2a_core::{A2aService, ProtocolVersion};
use a2a_proto::v1::{AgentCard, AgentInterface};
use anyhow::Context as _;

use crate::binding::Binding;
use crate::binding::Connect as _;
use crate::column::Column;

/// The well-known path of the agent card (spec 8.2).
pub use a2a_core::AGENT_CARD_PATH;

/// One column of a target: the interface the card declares for it and a client on it.
#[derive(Clone)]
pub struct Endpoint {
    /// The binding and protocol version.
    pub column: Column,
    /// The card's entry for it.
    pub interface: AgentInterface,
    /// A client speaking the binding, in the column's version, to the interface's URL (with its
    /// tenant, in 1.0).
    pub client: Arc<dyn A2aService>,
}

impl Endpoint {
    /// The binding.
    pub fn binding(&self) -> Binding {
        self.column.binding
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Endpoint")
            .field("column", &self.column)
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
    columns: Vec<Column>,
    endpoints: Vec<Endpoint>,
    untestable: Vec<(Column, String)>,
}

impl Target {
    /// Reads the card at `base_url` + [`AGENT_CARD_PATH`] and connects a client to each column
    /// it declares.
    ///
    /// # Errors
    /// When the card cannot be fetched or is not an AgentCard.
    pub async fn discover(base_url: &str, http: &reqwest::Client) -> anyhow::Result<Target> {
        let base_url = base_url.trim().trim_end_matches('/').to_owned();
        let card = fetch_card(&base_url, http).await?.card;
        Ok(Self::from_card(base_url, card))
    }

    /// A target for `card` found at `base_url`.
    ///
    /// The columns are the three 1.0 bindings (as before the suite knew 0.3: a binding the card
    /// does not declare is a skip with the reason) and, when the card declares any interface for
    /// 0.3, the three 0.3 bindings as well.
    pub fn from_card(base_url: String, card: AgentCard) -> Target {
        let mut endpoints = Vec::new();
        let mut untestable = Vec::new();
        let declares_v03 = card
            .supported_interfaces
            .iter()
            .any(|i| version_of(&i.protocol_version) == Some(ProtocolVersion::V0_3));
        let columns: Vec<Column> =
            Column::ALL.into_iter().filter(|c| c.version == ProtocolVersion::V1_0 || declares_v03).collect();
        for column in columns.iter().copied() {
            let binding = column.binding;
            let declared: Vec<&AgentInterface> = card
                .supported_interfaces
                .iter()
                .filter(|i| Binding::from_protocol_binding(&i.protocol_binding) == Some(binding))
                .collect();
            // spec 8.3.2: the first entry wins; spec 3.6: versions compare by Major.Minor.
            let Some(interface) =
                declared.iter().find(|i| version_of(&i.protocol_version) == Some(column.version))
            else {
                let reason = if declared.is_empty() {
                    format!("the agent card declares no {binding} interface")
                } else {
                    let versions: Vec<&str> = declared.iter().map(|i| i.protocol_version.as_str()).collect();
                    format!(
                        "the card's {binding} interfaces are for protocol versions {versions:?}, not {}",
                        column.version
                    )
                };
                untestable.push((column, reason));
                continue;
            };
            if column.is_v03() && !interface.tenant.is_empty() {
                // 0.3 requests have no tenant field and 0.3 routes no tenant segment.
                untestable.push((
                    column,
                    format!(
                        "the card's {binding} 0.3 interface has the tenant {:?}, which A2A 0.3 cannot address",
                        interface.tenant
                    ),
                ));
                continue;
            }
            match binding.connect(interface, column.version) {
                Ok(client) => {
                    endpoints.push(Endpoint { column, interface: (*interface).clone(), client });
                }
                Err(error) => {
                    untestable.push((column, format!("cannot connect to {:?}: {error}", interface.url)))
                }
            }
        }
        Target { base_url, card, columns, endpoints, untestable }
    }

    /// The columns of the report for this agent, in report order (tested or not).
    pub fn columns(&self) -> &[Column] {
        &self.columns
    }

    /// The columns under test, in report order.
    pub fn endpoints(&self) -> &[Endpoint] {
        &self.endpoints
    }

    /// The endpoint of `column` (a [`Binding`] alone is its 1.0 column), if the card offers it.
    pub fn endpoint(&self, column: impl Into<Column>) -> Option<&Endpoint> {
        let column = column.into();
        self.endpoints.iter().find(|e| e.column == column)
    }

    /// Why `column` cannot be tested, if it cannot.
    pub fn untestable(&self, column: impl Into<Column>) -> Option<&str> {
        let column = column.into();
        if !self.columns.contains(&column) {
            return Some("the agent card declares no interface for this protocol version");
        }
        self.untestable.iter().find(|(c, _)| *c == column).map(|(_, reason)| reason.as_str())
    }

    /// Replaces the client of `column` (a [`Binding`] alone is its 1.0 column) by
    /// `wrap(client)`: decorators that observe or alter one column (this is how the suite's own
    /// tests prove it can fail).
    pub fn wrap_client(
        &mut self,
        column: impl Into<Column>,
        wrap: impl FnOnce(Arc<dyn A2aService>) -> Arc<dyn A2aService>,
    ) {
        let column = column.into();
        if let Some(endpoint) = self.endpoints.iter_mut().find(|e| e.column == column) {
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

/// The version a card's `protocolVersion` names, by `Major.Minor` (spec 3.6: a patch part does
/// not count), if the suite knows it.
pub fn version_of(version: &str) -> Option<ProtocolVersion> {
    let mut parts = version.trim().split('.');
    match (parts.next(), parts.next()) {
        (Some("1"), Some("0")) => Some(ProtocolVersion::V1_0),
        (Some("0"), Some("3")) => Some(ProtocolVersion::V0_3),
        _ => None,
    }
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
    /// The body as an AgentCard: ProtoJSON, or a 0.3 card read as 1.0.
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
    // A card with `supportedInterfaces` is a 1.0 (or union) card; one without is a 0.3 card,
    // whose `url`, `preferredTransport` and `additionalInterfaces` become 0.3 interfaces.
    let card: AgentCard = if json.get("supportedInterfaces").is_some() {
        a2a_proto::json::from_slice(&body)
            .map_err(|e| anyhow::anyhow!("the card at {url} is not an A2A 1.0 AgentCard: {e}"))?
    } else {
        <AgentCard as a2a_v03::V03>::from_v03(&json)
            .map_err(|e| anyhow::anyhow!("the card at {url} is neither a 1.0 nor a 0.3 AgentCard: {e}"))?
    };
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

    #[tokio::test] // a gRPC client connects lazily, on the runtime
    async fn each_declared_version_and_binding_is_a_column_and_the_rest_say_why() {
        let card = AgentCard {
            supported_interfaces: vec![
                interface("JSONRPC", "http://127.0.0.1:1/v03", "0.3"),
                interface("JSONRPC", "http://127.0.0.1:1/", "1.0"),
                interface("GRPC", "127.0.0.1:2", "0.3"),
            ],
            ..Default::default()
        };
        let target = Target::from_card("http://127.0.0.1:1".into(), card);
        let columns: Vec<String> = target.endpoints().iter().map(|e| e.column.name()).collect();
        assert_eq!(columns, ["JSONRPC 1.0", "JSONRPC 0.3", "GRPC 0.3"]);
        assert_eq!(target.columns(), Column::ALL);
        assert_eq!(target.endpoint(Binding::JsonRpc).unwrap().interface.url, "http://127.0.0.1:1/");
        assert_eq!(
            target.endpoint(Column::v03(Binding::JsonRpc)).unwrap().interface.url,
            "http://127.0.0.1:1/v03"
        );
        assert!(target.untestable(Binding::Rest).unwrap().contains("no HTTP+JSON interface"));
        assert!(target.untestable(Binding::Grpc).unwrap().contains("[\"0.3\"], not 1.0"));
        assert!(target.untestable(Column::v03(Binding::Rest)).unwrap().contains("no HTTP+JSON interface"));
    }

    #[test]
    fn a_card_without_0_3_interfaces_has_the_three_1_0_columns_only() {
        let card = AgentCard {
            supported_interfaces: vec![interface("JSONRPC", "http://127.0.0.1:1/", "1.0")],
            ..Default::default()
        };
        let target = Target::from_card("http://127.0.0.1:1".into(), card);
        assert_eq!(target.columns(), &Column::ALL[..3]);
        assert!(target.untestable(Column::v03(Binding::JsonRpc)).is_some());
    }

    #[test]
    fn a_0_3_interface_with_a_tenant_cannot_be_addressed() {
        let mut tenanted = interface("JSONRPC", "http://127.0.0.1:1/", "0.3");
        tenanted.tenant = "acme".into();
        let card = AgentCard { supported_interfaces: vec![tenanted], ..Default::default() };
        let target = Target::from_card("http://127.0.0.1:1".into(), card);
        assert!(target.untestable(Column::v03(Binding::JsonRpc)).unwrap().contains("tenant"));
    }

    #[test]
    fn versions_compare_by_major_and_minor() {
        assert_eq!(version_of("1.0"), Some(ProtocolVersion::V1_0));
        assert_eq!(version_of("1.0.2"), Some(ProtocolVersion::V1_0));
        assert_eq!(version_of("0.3.0"), Some(ProtocolVersion::V0_3));
        assert_eq!(version_of("1.1"), None);
        assert_eq!(version_of(""), None);
    }
}
