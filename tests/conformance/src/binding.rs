//! [`Binding`]: the three standard protocol bindings (spec 5.3), how an agent card names them
//! (`AgentInterface.protocolBinding`, spec 8.3.1) and how the suite connects a client to one, in
//! either protocol version.

use std::sync::Arc;

use a2a_client::ClientBuilder;
use a2a_core::{A2aService, Error, ProtocolVersion};
use a2a_proto::v1::AgentInterface;

pub use a2a_core::Binding;

/// How the suite connects a client to one of a binding's interfaces.
pub trait Connect {
    /// A raw client for `interface` over this binding speaking `version`
    /// ([`ClientBuilder::binding_client`]: no negotiation, no retries, no default parameters,
    /// the scenario's `A2A-Version` sent as it is), setting the interface's tenant on every
    /// request (spec 8.3.2).
    ///
    /// # Errors
    /// Those of [`ClientBuilder::binding_client`]: the interface's URL cannot be used by the
    /// binding's client, or it is a 0.3 interface with a tenant.
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
        let interface = AgentInterface {
            url: interface.url.trim().to_owned(),
            protocol_binding: self.protocol_binding().to_owned(),
            ..interface.clone()
        };
        ClientBuilder::default().binding_client(&interface, version)
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
