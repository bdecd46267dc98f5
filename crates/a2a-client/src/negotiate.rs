//! Negotiation: which of a card's interfaces a client uses, as a (binding, protocol version, URL)
//! triple, [`Selected`].
//!
//! The candidates are the card's `supportedInterfaces` (spec 8.3.1; a 0.3 card read by
//! `AgentCard::from_v03` lists its `url` and `additionalInterfaces` there, as 0.3 interfaces). An
//! interface is usable when
//! - its `protocolBinding` is one this build speaks (the crate feature of the binding is on) and the caller
//!   allows (all by default);
//! - its `protocolVersion` is one the client speaks: `Major.Minor` 1.0 or 0.3, a patch part
//!   ignored (spec 3.6: patch versions "MUST not be considered when clients and servers
//!   negotiate"); an empty or other version is not;
//! - it can carry its tenant: a 0.3 interface with a tenant cannot (0.3 requests have no tenant
//!   field, and spec 8.3.2 requires sending it).
//!
//! Of the usable interfaces the client takes the first by
//! 1. version: 1.0 before 0.3 (a 0.3 interface loses 1.0 features: `ListTasks`, tenants, ...);
//! 2. the caller's binding order, when the caller gave one ([`ClientBuilder::bindings`]);
//! 3. the card's order (spec 8.3.2: "prefer earlier entries when multiple options are
//!    supported").
//!
//! A version pinned with [`ClientBuilder::protocol_version`] admits that version only: spec
//! 3.6.3 asks clients that need a version to avoid "automatic fallback to older versions, to
//! prevent silently losing functionality". No usable interface is an error naming every
//! interface the card offers.
//!
//! [`ClientBuilder::bindings`]: crate::ClientBuilder::bindings
//! [`ClientBuilder::protocol_version`]: crate::ClientBuilder::protocol_version

use a2a_core::{Error, ProtocolVersion, Result};
use a2a_proto::v1::{AgentCard, AgentInterface};

use crate::binding::Binding;

/// The protocol versions this client speaks, preferred first.
#[cfg(feature = "v03")]
pub const SUPPORTED_VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];

/// The protocol versions this client speaks: 1.0 alone, without the `v03` feature.
#[cfg(not(feature = "v03"))]
pub const SUPPORTED_VERSIONS: [ProtocolVersion; 1] = [ProtocolVersion::V1_0];

/// The interface a [`Client`](crate::Client) talks to: the outcome of negotiation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selected {
    binding: Binding,
    protocol_version: ProtocolVersion,
    url: String,
    tenant: String,
}

impl Selected {
    /// `interface` (its URL and tenant) over `binding` in `protocol_version`, as the caller
    /// chose it rather than negotiation.
    pub(crate) fn chosen(
        binding: Binding,
        protocol_version: ProtocolVersion,
        interface: &AgentInterface,
    ) -> Self {
        Selected { binding, protocol_version, url: interface.url.clone(), tenant: interface.tenant.clone() }
    }

    /// The binding.
    pub fn binding(&self) -> Binding {
        self.binding
    }

    /// The protocol version spoken (`Major.Minor`).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.protocol_version
    }

    /// The interface's URL as the card declares it (for gRPC often a bare `host:port`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The interface's tenant, if it declares one: requests that leave `tenant` empty carry it
    /// (spec 8.3.2).
    pub fn tenant(&self) -> Option<&str> {
        Some(self.tenant.as_str()).filter(|t| !t.is_empty())
    }
}

impl std::fmt::Display for Selected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {} at {}", self.binding, self.protocol_version, self.url)?;
        if let Some(tenant) = self.tenant() {
            write!(f, " (tenant {tenant})")?;
        }
        Ok(())
    }
}

/// The version an interface declares, if the client speaks it (`1.0.1` is 1.0; empty is none).
fn version_of(interface: &AgentInterface) -> Option<ProtocolVersion> {
    let raw = interface.protocol_version.trim();
    if raw.is_empty() {
        return None;
    }
    ProtocolVersion::resolve(Some(raw), &SUPPORTED_VERSIONS).ok()
}

/// The interface chosen from `card` (see the module docs). `bindings`: the caller's allowed
/// bindings in preference order (`None`: all, in the card's order); `pinned`: the only version
/// accepted.
pub(crate) fn select(
    card: &AgentCard,
    bindings: Option<&[Binding]>,
    pinned: Option<ProtocolVersion>,
) -> Result<Selected> {
    let mut ranked = ranked(card, bindings, pinned)?;
    Ok(ranked.remove(0))
}

/// Every usable interface of `card`, best first (the order [`select`] takes the first of);
/// never empty.
pub(crate) fn ranked(
    card: &AgentCard,
    bindings: Option<&[Binding]>,
    pinned: Option<ProtocolVersion>,
) -> Result<Vec<Selected>> {
    let allowed: Vec<Binding> = match bindings {
        Some(list) => list.iter().copied().filter(|b| crate::binding::is_available(*b)).collect(),
        None => Binding::ALL.into_iter().filter(|b| crate::binding::is_available(*b)).collect(),
    };
    if allowed.is_empty() {
        let asked = bindings.unwrap_or(&Binding::ALL);
        return Err(Error::unsupported(format!(
            "none of the bindings asked for ({}) is compiled into this build of a2a-client \
             (features `jsonrpc`, `rest`, `grpc`)",
            join(asked.iter().map(Binding::to_string), "none")
        )));
    }
    if card.supported_interfaces.is_empty() {
        return Err(Error::unsupported(
            "the agent card declares no interface (`supportedInterfaces` is empty; a 0.3 card has no `url`)",
        ));
    }
    let versions: Vec<ProtocolVersion> = match pinned {
        Some(version) => vec![version],
        None => SUPPORTED_VERSIONS.to_vec(),
    };
    let rank_of = |binding: Binding| match bindings {
        Some(_) => allowed.iter().position(|b| *b == binding).unwrap_or(usize::MAX),
        None => 0,
    };
    let mut usable: Vec<_> = card
        .supported_interfaces
        .iter()
        .enumerate()
        .filter_map(|(index, interface)| {
            let binding = Binding::from_protocol_binding(&interface.protocol_binding)?;
            let version = version_of(interface)?;
            // 0.3 requests cannot carry a tenant.
            let carries_tenant = interface.tenant.is_empty() || version != ProtocolVersion::V0_3;
            let usable = allowed.contains(&binding) && versions.contains(&version) && carries_tenant;
            let version_rank = SUPPORTED_VERSIONS.iter().position(|v| *v == version).unwrap_or(usize::MAX);
            usable.then_some(((version_rank, rank_of(binding), index), binding, version, interface))
        })
        .collect();
    usable.sort_by_key(|(rank, ..)| *rank);
    match usable.is_empty() {
        false => Ok(usable
            .into_iter()
            .map(|(_, binding, protocol_version, interface)| Selected {
                binding,
                protocol_version,
                url: interface.url.clone(),
                tenant: interface.tenant.clone(),
            })
            .collect()),
        true => {
            let over = join(allowed.iter().map(Binding::to_string), "no binding");
            let offered = join(card.supported_interfaces.iter().map(describe), "nothing");
            Err(Error::unsupported(match pinned {
                Some(version) => format!(
                    "the agent offers no A2A {version} interface over {over} (the client is pinned to \
                     {version}: no fallback to another version, spec 3.6.3); it offers: {offered}"
                ),
                None => format!(
                    "the agent offers no interface this client can use (A2A 1.0 or 0.3 over {over}); \
                     it offers: {offered}"
                ),
            }))
        }
    }
}

/// `JSONRPC 1.0 at https://h/a2a (tenant t)`, as the card declares it.
fn describe(interface: &AgentInterface) -> String {
    let text = |s: &str| if s.trim().is_empty() { "(none)".to_owned() } else { s.to_owned() };
    let mut out = format!(
        "{} {} at {}",
        text(&interface.protocol_binding),
        text(&interface.protocol_version),
        text(&interface.url)
    );
    if !interface.tenant.is_empty() {
        out.push_str(&format!(" (tenant {})", interface.tenant));
    }
    out
}

fn join(items: impl Iterator<Item = String>, empty: &str) -> String {
    let items: Vec<String> = items.collect();
    if items.is_empty() {
        empty.to_owned()
    } else {
        items.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_v03::{Form, V03};
    use serde_json::json;
    use ProtocolVersion::{V0_3, V1_0};

    fn interface(binding: &str, version: &str, url: &str) -> AgentInterface {
        AgentInterface {
            url: url.into(),
            protocol_binding: binding.into(),
            tenant: String::new(),
            protocol_version: version.into(),
        }
    }

    fn card(interfaces: Vec<AgentInterface>) -> AgentCard {
        AgentCard { name: "A".into(), supported_interfaces: interfaces, ..Default::default() }
    }

    /// The card the reference server serves: the union card, 1.0 interfaces first, then their
    /// 0.3 twins (`a2a_v03::with_v03_interfaces`), read back as a client reads it.
    fn union_card() -> AgentCard {
        let v1 = card(vec![
            interface("JSONRPC", "1.0", "http://h:8080"),
            interface("HTTP+JSON", "1.0", "http://h:8080"),
            interface("GRPC", "1.0", "h:8080"),
        ]);
        let served = a2a_v03::with_v03_interfaces(&v1).to_v03(Form::Json);
        AgentCard::from_v03(&served).unwrap()
    }

    fn chosen(card: &AgentCard, bindings: Option<&[Binding]>, pinned: Option<ProtocolVersion>) -> String {
        select(card, bindings, pinned).unwrap().to_string()
    }

    #[test]
    fn a_1_0_only_card_gives_its_first_interface() {
        let card = card(vec![
            interface("GRPC", "1.0", "grpc.example.com:443"),
            interface("JSONRPC", "1.0", "https://example.com/rpc"),
        ]);
        assert_eq!(chosen(&card, None, None), "GRPC 1.0 at grpc.example.com:443", "card order, spec 8.3.2");
        let error = select(&card, None, Some(V0_3)).unwrap_err().to_string();
        assert!(
            error.contains("no A2A 0.3 interface") && error.contains("GRPC 1.0 at grpc.example.com:443"),
            "{error}"
        );
    }

    #[test]
    fn a_0_3_card_read_through_from_v03_gives_0_3_interfaces() {
        // What an A2A 0.3 agent serves: 0.3's fields only (`url`, `preferredTransport`,
        // `additionalInterfaces`), no `supportedInterfaces`.
        let mut v03 = card(vec![
            interface("JSONRPC", "0.3", "https://old.example.com/a2a"),
            interface("HTTP+JSON", "0.3", "https://old.example.com/rest"),
        ])
        .to_v03(Form::Json);
        v03.as_object_mut().unwrap().remove("supportedInterfaces");
        assert_eq!(
            (&v03["preferredTransport"], &v03["additionalInterfaces"][1]["transport"]),
            (&json!("JSONRPC"), &json!("HTTP+JSON"))
        );
        let card = AgentCard::from_v03(&v03).unwrap();
        assert_eq!(chosen(&card, None, None), "JSONRPC 0.3 at https://old.example.com/a2a");
        assert_eq!(
            chosen(&card, Some(&[Binding::Rest]), None),
            "HTTP+JSON 0.3 at https://old.example.com/rest"
        );
        assert_eq!(chosen(&card, None, Some(V0_3)), "JSONRPC 0.3 at https://old.example.com/a2a");
        // spec 3.6.3: a client pinned to 1.0 does not fall back to the 0.3 interfaces.
        let error = select(&card, None, Some(V1_0)).unwrap_err();
        assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
        let text = error.to_string();
        assert!(
            text.contains("pinned to 1.0") && text.contains("JSONRPC 0.3 at https://old.example.com/a2a"),
            "{text}"
        );
        assert!(text.contains("HTTP+JSON 0.3 at https://old.example.com/rest"), "{text}");
    }

    #[test]
    fn the_union_card_gives_1_0_and_pinning_0_3_gives_its_0_3_twin() {
        let card = union_card();
        assert_eq!(card.supported_interfaces.len(), 6);
        assert_eq!(chosen(&card, None, None), "JSONRPC 1.0 at http://h:8080");
        assert_eq!(chosen(&card, None, Some(V1_0)), "JSONRPC 1.0 at http://h:8080");
        assert_eq!(chosen(&card, None, Some(V0_3)), "JSONRPC 0.3 at http://h:8080");
        assert_eq!(chosen(&card, Some(&[Binding::Grpc]), Some(V0_3)), "GRPC 0.3 at h:8080");
    }

    #[test]
    fn version_1_0_wins_over_0_3_before_binding_and_card_order() {
        let card = card(vec![
            interface("JSONRPC", "0.3", "http://old"),
            interface("GRPC", "1.0", "new:50051"),
            interface("HTTP+JSON", "1.0", "http://new"),
        ]);
        assert_eq!(chosen(&card, None, None), "GRPC 1.0 at new:50051");
        let json_first = [Binding::JsonRpc, Binding::Rest, Binding::Grpc];
        assert_eq!(
            chosen(&card, Some(&json_first), None),
            "HTTP+JSON 1.0 at http://new",
            "1.0 first, then the caller's order"
        );
        assert_eq!(
            chosen(&card, Some(&[Binding::JsonRpc]), None),
            "JSONRPC 0.3 at http://old",
            "only JSON-RPC allowed"
        );
    }

    #[test]
    fn the_caller_s_binding_order_ranks_before_the_card_s() {
        let card = union_card();
        assert_eq!(chosen(&card, Some(&[Binding::Grpc, Binding::JsonRpc]), None), "GRPC 1.0 at h:8080");
        assert_eq!(
            chosen(&card, Some(&[Binding::Rest, Binding::Rest]), None),
            "HTTP+JSON 1.0 at http://h:8080"
        );
    }

    #[test]
    fn unknown_bindings_and_versions_are_ignored_and_patch_versions_do_not_count() {
        let card = card(vec![
            interface("WEBSOCKET", "1.0", "ws://h"),
            interface("JSONRPC", "2.0", "http://h/v2"),
            interface("JSONRPC", "", "http://h/none"),
            interface("JSONRPC", "0.2.5", "http://h/v02"),
            interface("http+json", "1.0.3", "http://h/rest"),
        ]);
        assert_eq!(chosen(&card, None, None), "HTTP+JSON 1.0 at http://h/rest");
        let nothing = self::card(card.supported_interfaces[..4].to_vec());
        let error = select(&nothing, None, None).unwrap_err().to_string();
        for offered in
            ["WEBSOCKET 1.0 at ws://h", "JSONRPC 2.0 at http://h/v2", "JSONRPC (none) at http://h/none"]
        {
            assert!(error.contains(offered), "{error}");
        }
        assert!(error.contains("no interface this client can use"), "{error}");
    }

    #[test]
    fn tenants_are_kept_and_a_0_3_interface_with_a_tenant_is_unusable() {
        let mut with_tenant = interface("JSONRPC", "1.0", "http://h");
        with_tenant.tenant = "acme".into();
        let selected = select(&card(vec![with_tenant.clone()]), None, None).unwrap();
        assert_eq!(selected.tenant(), Some("acme"));
        assert_eq!(selected.to_string(), "JSONRPC 1.0 at http://h (tenant acme)");
        let mut v03 = with_tenant;
        v03.protocol_version = "0.3".into();
        let error = select(&card(vec![v03]), None, None).unwrap_err().to_string();
        assert!(error.contains("JSONRPC 0.3 at http://h (tenant acme)"), "{error}");
    }

    #[test]
    fn grpc_interface_urls_are_kept_as_the_card_declares_them() {
        for url in ["grpc.example.com:443", "127.0.0.1:50051", "http://127.0.0.1:50051", "https://h/a2a/grpc"]
        {
            let selected = select(&card(vec![interface("GRPC", "1.0", url)]), None, None).unwrap();
            assert_eq!((selected.binding(), selected.url()), (Binding::Grpc, url));
        }
    }

    #[test]
    fn no_interfaces_or_no_bindings_are_errors() {
        let error = select(&card(vec![]), None, None).unwrap_err().to_string();
        assert!(error.contains("declares no interface"), "{error}");
        let error = select(&union_card(), Some(&[]), None).unwrap_err().to_string();
        assert!(error.contains("none of the bindings asked for (none)"), "{error}");
    }
}
