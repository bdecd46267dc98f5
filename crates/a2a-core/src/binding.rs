//! [`Binding`]: the three standard protocol bindings (spec 5.8), the one home of their identity
//! and their names. Each crate adds what it does with a binding (serve it, connect to it,
//! report on it) on top of this type.

use std::fmt;

/// The well-known path of the public agent card (spec 8.2), under an agent's base URL: the one
/// spelling every crate serves, fetches and reports it by.
pub const AGENT_CARD_PATH: &str = "/.well-known/agent-card.json";

/// A standard protocol binding, as an `AgentInterface` names it in `protocolBinding` (0.3
/// cards: `preferredTransport`, `additionalInterfaces[].transport`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binding {
    /// JSON-RPC 2.0 over HTTP (spec 9), `JSONRPC`.
    JsonRpc,
    /// HTTP+JSON/REST (spec 11), `HTTP+JSON`.
    Rest,
    /// gRPC (spec 10), `GRPC`.
    Grpc,
}

impl Binding {
    /// Every standard binding, in the spec's order.
    pub const ALL: [Binding; 3] = [Binding::JsonRpc, Binding::Rest, Binding::Grpc];

    /// The `protocolBinding` value of the spec (5.8, 8.3.1): `JSONRPC`, `HTTP+JSON` or `GRPC`.
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

    /// Whether the binding carries ProtoJSON (JSON-RPC, HTTP+JSON); gRPC carries protobuf.
    pub fn is_json(self) -> bool {
        matches!(self, Binding::JsonRpc | Binding::Rest)
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.protocol_binding())
    }
}

/// A request body's data frames joined into one buffer: the first frame kept as it is (no copy
/// for a body that arrives in one frame, as nearly all do), later ones appended after it. The
/// JSON bindings' servers read their bodies frame by frame, each applying its own size limit and
/// errors, and join the frames with this.
#[derive(Debug, Default)]
pub struct BodyFrames {
    first: Option<bytes::Bytes>,
    joined: Vec<u8>,
}

impl BodyFrames {
    /// Appends a frame's data.
    pub fn push(&mut self, data: bytes::Bytes) {
        match &self.first {
            None => self.first = Some(data),
            Some(head) => {
                if self.joined.is_empty() {
                    self.joined.extend_from_slice(head);
                }
                self.joined.extend_from_slice(&data);
            }
        }
    }

    /// The whole body.
    pub fn into_bytes(self) -> bytes::Bytes {
        if self.joined.is_empty() {
            self.first.unwrap_or_default()
        } else {
            bytes::Bytes::from(self.joined)
        }
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
        assert!(Binding::Rest.is_json() && !Binding::Grpc.is_json());
    }

    #[test]
    fn body_frames_join_in_order_and_keep_a_single_frame_as_it_is() {
        assert!(BodyFrames::default().into_bytes().is_empty());
        let one = bytes::Bytes::from_static(b"{\"a\":1}");
        let mut frames = BodyFrames::default();
        frames.push(one.clone());
        let body = frames.into_bytes();
        assert_eq!(body, one);
        assert_eq!(body.as_ptr(), one.as_ptr(), "a single frame is not copied");
        let mut frames = BodyFrames::default();
        for part in ["", "{\"a\"", "", ":1", "}"] {
            frames.push(bytes::Bytes::from(part));
        }
        assert_eq!(frames.into_bytes(), "{\"a\":1}");
    }
}
