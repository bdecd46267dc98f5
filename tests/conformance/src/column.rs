//! [`Column`]: one (binding, protocol version) pair of an agent, a column of the report. Each
//! interface a card declares (`AgentInterface.protocolBinding` and `protocolVersion`, spec 8.3.1)
//! is one; an agent that serves A2A 0.3 beside 1.0 (spec 3.6.2) has up to six.

use std::fmt;

use a2a_core::ProtocolVersion;

use crate::binding::Binding;

/// A binding spoken in a protocol version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Column {
    /// The binding.
    pub binding: Binding,
    /// The protocol version.
    pub version: ProtocolVersion,
}

impl Column {
    /// The versions the suite tests, in report order: 1.0 first.
    pub const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];

    /// Every column, in report order: the three 1.0 bindings, then the three 0.3 ones.
    pub const ALL: [Column; 6] = [
        Column::new(Binding::JsonRpc, ProtocolVersion::V1_0),
        Column::new(Binding::Rest, ProtocolVersion::V1_0),
        Column::new(Binding::Grpc, ProtocolVersion::V1_0),
        Column::new(Binding::JsonRpc, ProtocolVersion::V0_3),
        Column::new(Binding::Rest, ProtocolVersion::V0_3),
        Column::new(Binding::Grpc, ProtocolVersion::V0_3),
    ];

    /// `binding` in `version`.
    pub const fn new(binding: Binding, version: ProtocolVersion) -> Column {
        Column { binding, version }
    }

    /// `binding` in A2A 1.0.
    pub const fn v1(binding: Binding) -> Column {
        Column::new(binding, ProtocolVersion::V1_0)
    }

    /// `binding` in A2A 0.3.
    pub const fn v03(binding: Binding) -> Column {
        Column::new(binding, ProtocolVersion::V0_3)
    }

    /// Whether this column speaks A2A 0.3.
    pub fn is_v03(self) -> bool {
        self.version == ProtocolVersion::V0_3
    }

    /// `JSONRPC 1.0`, `HTTP+JSON 0.3`, ...: the binding's `protocolBinding` and the version.
    pub fn name(self) -> String {
        format!("{} {}", self.binding.protocol_binding(), self.version.as_str())
    }

    /// The position in [`Column::ALL`], for ordering.
    fn rank(self) -> usize {
        Column::ALL.iter().position(|c| *c == self).unwrap_or(usize::MAX)
    }
}

/// A binding alone means its 1.0 column (what the suite tested before it knew 0.3).
impl From<Binding> for Column {
    fn from(binding: Binding) -> Column {
        Column::v1(binding)
    }
}

impl PartialOrd for Column {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Report order: [`Column::ALL`].
impl Ord for Column {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.rank().cmp(&other.rank())
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.binding.protocol_binding(), self.version.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_named_by_binding_and_version_and_ordered_1_0_first() {
        assert_eq!(Column::v03(Binding::Rest).to_string(), "HTTP+JSON 0.3");
        assert_eq!(Column::from(Binding::Grpc), Column::v1(Binding::Grpc));
        let mut columns = Column::ALL.to_vec();
        columns.reverse();
        columns.sort();
        assert_eq!(columns, Column::ALL);
        assert!(Column::v1(Binding::Grpc) < Column::v03(Binding::JsonRpc));
    }
}
