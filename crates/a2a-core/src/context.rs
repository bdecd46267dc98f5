//! The per-call context every operation receives: the authenticated principal and the service
//! parameters (spec 3.2.6), plus protocol version resolution (spec 3.6).
//!
//! The tenant is not repeated here: every request message carries it in its `tenant` field (the
//! REST binding fills that field from the `/{tenant}/...` path), and the handler passes it on to
//! the executor in [`RequestContext`](crate::executor::RequestContext).

use std::collections::BTreeMap;

use crate::error::Error;

/// The name of the version service parameter (header / metadata key).
pub const VERSION_PARAM: &str = "a2a-version";
/// The name of the extensions service parameter (header / metadata key).
pub const EXTENSIONS_PARAM: &str = "a2a-extensions";

/// Service parameters (spec 3.2.6): case-insensitive names, case-sensitive values. Bindings fill
/// them from HTTP headers or gRPC metadata (names are stored lowercased); clients send them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServiceParams {
    entries: BTreeMap<String, String>,
}

impl ServiceParams {
    /// No parameters.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parameters asking for A2A 1.0, as a 1.0 client sends on every call (spec 3.6.1).
    pub fn v1() -> Self {
        let mut params = Self::new();
        params.insert(VERSION_PARAM, ProtocolVersion::V1_0.as_str());
        params
    }

    /// The value of `name` (any case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.entries.get(&name.to_ascii_lowercase()).map(String::as_str)
    }

    /// Sets `name` (any case) to `value`, replacing a previous value.
    pub fn insert(&mut self, name: &str, value: impl Into<String>) {
        self.entries.insert(name.to_ascii_lowercase(), value.into());
    }

    /// Adds a value to `name`, joining with a comma if it has one (how repeated headers combine).
    pub fn append(&mut self, name: &str, value: &str) {
        self.entries
            .entry(name.to_ascii_lowercase())
            .and_modify(|v| {
                v.push(',');
                v.push_str(value);
            })
            .or_insert_with(|| value.to_owned());
    }

    /// Builder form of [`insert`](Self::insert).
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Self {
        self.insert(name, value);
        self
    }

    /// Removes `name`.
    pub fn remove(&mut self, name: &str) -> Option<String> {
        self.entries.remove(&name.to_ascii_lowercase())
    }

    /// The raw `A2A-Version` value, if sent.
    pub fn version(&self) -> Option<&str> {
        self.get(VERSION_PARAM)
    }

    /// The extension URIs of `A2A-Extensions` (comma-separated, trimmed, empty entries dropped).
    pub fn extensions(&self) -> Vec<&str> {
        self.get(EXTENSIONS_PARAM)
            .map(|v| v.split(',').map(str::trim).filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// Iterates `(lowercase name, value)` pairs, e.g. to send them as headers.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.entries.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A protocol version this workspace knows (spec 3.6: `Major.Minor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// A2A 0.3: what an empty or absent `A2A-Version` means (spec 3.6.2).
    V0_3,
    /// A2A 1.0.
    V1_0,
}

impl ProtocolVersion {
    /// `"0.3"` or `"1.0"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V0_3 => "0.3",
            ProtocolVersion::V1_0 => "1.0",
        }
    }

    /// Reads an `A2A-Version` value. Absent or empty means 0.3 (spec 3.6.2). Only `Major.Minor`
    /// counts: a patch part is ignored (spec 3.6). Anything else is
    /// [`Error::VersionNotSupported`] listing `supported`.
    pub fn resolve(raw: Option<&str>, supported: &[ProtocolVersion]) -> Result<Self, Error> {
        let raw = raw.unwrap_or("").trim();
        let parsed = if raw.is_empty() {
            Some(ProtocolVersion::V0_3)
        } else {
            let mut parts = raw.split('.');
            let major = parts.next().and_then(|p| p.parse::<u32>().ok());
            let minor = parts.next().and_then(|p| p.parse::<u32>().ok());
            let patch_ok = parts.next().is_none_or(|p| p.parse::<u32>().is_ok()) && parts.next().is_none();
            match (major, minor, patch_ok) {
                (Some(0), Some(3), true) => Some(ProtocolVersion::V0_3),
                (Some(1), Some(0), true) => Some(ProtocolVersion::V1_0),
                _ => None,
            }
        };
        match parsed {
            Some(version) if supported.contains(&version) => Ok(version),
            _ => Err(Error::VersionNotSupported {
                version: raw.to_owned(),
                supported: supported.iter().map(|v| v.as_str().to_owned()).collect(),
            }),
        }
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An authenticated caller, as established by the server's authentication layer (spec 7.4).
/// Tasks are scoped to the principal that created them (spec 13.1).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal {
    /// A stable identifier (user id, client id, key id).
    pub id: String,
}

impl Principal {
    /// A principal with this id.
    pub fn new(id: impl Into<String>) -> Self {
        Principal { id: id.into() }
    }
}

/// What every operation receives besides its request message.
///
/// On the server, bindings build it from the transport (headers or metadata) and an
/// authentication layer may set the principal. On the client side the same type is the per-call
/// input: its params are sent as headers or metadata, and the principal is ignored.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    /// The service parameters of the call.
    pub params: ServiceParams,
    /// The authenticated caller, or `None` when the server does not authenticate.
    pub principal: Option<Principal>,
}

impl CallContext {
    /// A context with these parameters and no principal.
    pub fn new(params: ServiceParams) -> Self {
        CallContext { params, principal: None }
    }

    /// A context asking for A2A 1.0 (the usual client-side context).
    pub fn v1() -> Self {
        Self::new(ServiceParams::v1())
    }

    /// Sets the principal.
    pub fn with_principal(mut self, principal: Principal) -> Self {
        self.principal = Some(principal);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn names_are_case_insensitive_and_extensions_split_on_commas() {
        let mut params = ServiceParams::new();
        params.insert("A2A-Extensions", "urn:a, urn:b,,");
        params.append("a2a-extensions", "urn:c");
        assert_eq!(params.extensions(), ["urn:a", "urn:b", "urn:c"]);
        params.insert("A2A-VERSION", "1.0");
        assert_eq!(params.version(), Some("1.0"));
    }

    #[test]
    fn version_resolution_follows_spec_3_6() {
        let both = [V0_3, V1_0];
        assert_eq!(ProtocolVersion::resolve(Some("1.0"), &both).unwrap(), V1_0);
        assert_eq!(ProtocolVersion::resolve(Some("1.0.1"), &both).unwrap(), V1_0, "patch ignored");
        assert_eq!(ProtocolVersion::resolve(None, &both).unwrap(), V0_3, "absent means 0.3");
        assert_eq!(ProtocolVersion::resolve(Some(""), &both).unwrap(), V0_3, "empty means 0.3");
        assert_eq!(ProtocolVersion::resolve(Some("0.3"), &both).unwrap(), V0_3);
        for bad in ["9.9", "1", "1.x", "1.0.0.0", "v1.0", "0.5"] {
            let err = ProtocolVersion::resolve(Some(bad), &both).unwrap_err();
            assert!(matches!(err, Error::VersionNotSupported { .. }), "{bad}");
        }
        match ProtocolVersion::resolve(None, &[V1_0]).unwrap_err() {
            Error::VersionNotSupported { version, supported } => {
                assert_eq!(version, "");
                assert_eq!(supported, ["1.0"]);
            }
            other => panic!("{other:?}"),
        }
    }
}
