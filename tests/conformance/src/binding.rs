//! [`Binding`]: the three standard protocol bindings (spec 5.3), how an agent card names them
//! (`AgentInterface.protocolBinding`, spec 8.3.1) and how the suite connects a client to one, in
//! either protocol version.

use std::sync::Arc;

use a2a_core::{A2aService, Error, ProtocolVersion};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::AgentInterface;
use a2a_rest::RestClient;

use crate::tenant::WithTenant;

pub use a2a_core::Binding;

/// How the suite connects a client to one of a binding's interfaces.
pub trait Connect {
    /// A client for `interface` speaking `version`, setting the interface's tenant on every
    /// request (spec 8.3.2; 0.3 has no tenants, so a 0.3 client never gets one).
    ///
    /// # Errors
    /// [`Error::Transport`] if the interface's URL cannot be used by the binding's client.
    fn connect(
        self,
        interface: &AgentInterface,
        version: ProtocolVersion,
    ) -> Result<Arc<dyn A2aService>, Error>;
}

impl Connect for Binding {
    fn connect(
        self,
        interface: &AgentInterface,
        version: ProtocolVersion,
    ) -> Result<Arc<dyn A2aService>, Error> {
        let url = interface.url.trim();
        let client: Arc<dyn A2aService> = match self {
            Binding::JsonRpc => Arc::new(JsonRpcClient::new(url).with_protocol_version(version)),
            Binding::Rest => Arc::new(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn card_names_are_read_case_insensitively_and_custom_bindings_are_not_standard() {
        assert_eq!(Binding::from_protocol_binding("jsonrpc"), Some(Binding::JsonRpc));
        assert_eq!(Binding::from_protocol_binding("HTTP+JSON"), Some(Binding::Rest));
        assert_eq!(Binding::from_protocol_binding(" GRPC "), Some(Binding::Grpc));
        assert_eq!(Binding::from_protocol_binding("https://example.com/bindings/websocket/v1"), None);
    }
}
