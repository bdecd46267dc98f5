//! [`Binding`]: the three protocol bindings an agent card can declare (spec 5.8, 8.3).

use std::fmt;

/// A protocol binding, as an [`AgentInterface`](a2a_proto::v1::AgentInterface) names it in
/// `protocolBinding` (0.3 cards: `preferredTransport`, `additionalInterfaces[].transport`).
///
/// Every variant exists whatever the crate's features; one whose feature (`jsonrpc`, `rest`,
/// `grpc`) is off is never selected ([`Binding::is_available`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Binding {
    /// JSON-RPC 2.0 (spec 9), `JSONRPC`.
    JsonRpc,
    /// HTTP+JSON/REST (spec 11), `HTTP+JSON`.
    Rest,
    /// gRPC (spec 10), `GRPC`.
    Grpc,
}

impl Binding {
    /// Every binding, in this crate's documentation order.
    pub const ALL: [Binding; 3] = [Binding::JsonRpc, Binding::Rest, Binding::Grpc];

    /// The `protocolBinding` value of the spec: `JSONRPC`, `HTTP+JSON` or `GRPC`.
    pub fn protocol_binding(self) -> &'static str {
        match self {
            Binding::JsonRpc => "JSONRPC",
            Binding::Rest => "HTTP+JSON",
            Binding::Grpc => "GRPC",
        }
    }

    /// The binding a card's `protocolBinding` (or 0.3 `transport`) names, ignoring case and
    /// surrounding spaces; `None` for any other binding (the field is an open string, spec 5.8).
    pub fn from_protocol_binding(name: &str) -> Option<Self> {
        let name = name.trim();
        Self::ALL.into_iter().find(|b| b.protocol_binding().eq_ignore_ascii_case(name))
    }

    /// Whether this build of the crate can speak the binding (its feature is on).
    pub fn is_available(self) -> bool {
        match self {
            Binding::JsonRpc => cfg!(feature = "jsonrpc"),
            Binding::Rest => cfg!(feature = "rest"),
            Binding::Grpc => cfg!(feature = "grpc"),
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.protocol_binding())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_spec_s_and_read_without_regard_to_case() {
        for binding in Binding::ALL {
            assert_eq!(Binding::from_protocol_binding(binding.protocol_binding()), Some(binding));
        }
        assert_eq!(Binding::from_protocol_binding(" http+json "), Some(Binding::Rest));
        assert_eq!(Binding::from_protocol_binding("jsonrpc"), Some(Binding::JsonRpc));
        assert_eq!(Binding::from_protocol_binding("HTTP"), None);
        assert_eq!(Binding::from_protocol_binding("WEBSOCKET"), None);
        assert_eq!(Binding::Grpc.to_string(), "GRPC");
    }
}
