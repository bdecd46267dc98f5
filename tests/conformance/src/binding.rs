//! [`Binding`]: the three standard protocol bindings (spec 5.3), how an agent card names them
//! (`AgentInterface.protocolBinding`, spec 8.3.1) and how the suite connects a client to one, in
//! either protocol version.

use std::fmt;
use std::sync::Arc;

use a2a_core::{A2aService, Error, ProtocolVersion};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::AgentInterface;
use a2a_rest::RestClient;

use crate::tenant::WithTenant;

/// One of the standard protocol bindings, in the order the report lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP (spec 9).
    JsonRpc,
    /// HTTP+JSON/REST (spec 11).
    HttpJson,
    /// gRPC (spec 10).
    Grpc,
}

impl Binding {
    /// Every standard binding.
    pub const ALL: [Binding; 3] = [Binding::JsonRpc, Binding::HttpJson, Binding::Grpc];

    /// The `protocolBinding` value of spec 5.8 / 8.3.1: `JSONRPC`, `HTTP+JSON`, `GRPC`.
    pub fn name(self) -> &'static str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::HttpJson => "HTTP+JSON",
            Binding::Grpc => "GRPC",
        }
    }

    /// The binding a card's `protocolBinding` names (case-insensitive), if it is a standard one.
    pub fn from_protocol_binding(name: &str) -> Option<Binding> {
        Binding::ALL.into_iter().find(|b| b.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Whether the binding carries ProtoJSON, so raw JSON (unknown fields, enum names) can be sent.
    pub fn is_json(self) -> bool {
        matches!(self, Binding::JsonRpc | Binding::HttpJson)
    }

    /// A client for `interface` speaking `version`, setting the interface's tenant on every
    /// request (spec 8.3.2; 0.3 has no tenants, so a 0.3 client never gets one).
    ///
    /// # Errors
    /// [`Error::Transport`] if the interface's URL cannot be used by the binding's client.
    pub fn connect(
        self,
        interface: &AgentInterface,
        version: ProtocolVersion,
    ) -> Result<Arc<dyn A2aService>, Error> {
        let url = interface.url.trim();
        let client: Arc<dyn A2aService> = match self {
            Binding::JsonRpc => Arc::new(JsonRpcClient::new(url).with_protocol_version(version)),
            Binding::HttpJson => Arc::new(
                RestClient::new(url)
                    .map_err(|e| Error::Transport {
                        reason: format!("the HTTP+JSON interface URL {url:?} is not a base URL: {e}"),
                    })?
                    .with_protocol_version(version),
            ),
            Binding::Grpc => Arc::new(GrpcClient::connect_lazy(url)?.with_protocol_version(version)),
        };
        Ok(if interface.tenant.is_empty() || version == ProtocolVersion::V0_3 {
            client
        } else {
            Arc::new(WithTenant::new(client, interface.tenant.clone()))
        })
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_names_are_read_case_insensitively_and_custom_bindings_are_not_standard() {
        assert_eq!(Binding::from_protocol_binding("jsonrpc"), Some(Binding::JsonRpc));
        assert_eq!(Binding::from_protocol_binding("HTTP+JSON"), Some(Binding::HttpJson));
        assert_eq!(Binding::from_protocol_binding(" GRPC "), Some(Binding::Grpc));
        assert_eq!(Binding::from_protocol_binding("https://example.com/bindings/websocket/v1"), None);
    }
}
