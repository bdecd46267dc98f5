//! The per-call context every operation receives: the authenticated principal and the service
//! parameters (spec 3.2.6), plus protocol version resolution (spec 3.6).
//!
//! The tenant is not repeated here: every request message carries it in its `tenant` field (the
//! REST binding fills that field from the `/{tenant}/...` path), and the handler passes it on to
//! the executor in [`RequestContext`](crate::executor::RequestContext).

use std::sync::Arc;

use crate::error::Error;

/// The name of the version service parameter (header / metadata key).
pub const VERSION_PARAM: &str = "a2a-version";
/// The name of the extensions service parameter (header / metadata key).
pub const EXTENSIONS_PARAM: &str = "a2a-extensions";

/// Whether a header or metadata name belongs to the transport itself rather than to A2A: the
/// names HTTP/1.1, HTTP/2 and gRPC use for framing (`host`, `content-type`, `connection`, `te`,
/// `grpc-*`, pseudo-headers, ...). These are never service parameters, in either direction.
pub fn is_transport_header(name: &str) -> bool {
    // Compared without a lowercased copy, and only with the names sharing the first letter:
    // this runs for every header of every request.
    let is = |known: &str| name.eq_ignore_ascii_case(known);
    let Some(first) = name.bytes().next() else { return true };
    match first.to_ascii_lowercase() {
        b':' => true,
        b'a' => is("accept") || is("accept-encoding"),
        b'c' => is("connection") || is("content-encoding") || is("content-length") || is("content-type"),
        b'e' => is("expect"),
        b'g' => name.get(..5).is_some_and(|prefix| prefix.eq_ignore_ascii_case("grpc-")),
        b'h' => is("host"),
        b'k' => is("keep-alive"),
        b'p' => is("proxy-connection"),
        b't' => is("te") || is("trailer") || is("transfer-encoding"),
        b'u' => is("upgrade") || is("user-agent"),
        _ => false,
    }
}

/// Whether a header or metadata name carries credentials (`authorization`, `cookie`, ...).
///
/// Incoming credentials are for the authentication layer in front of the handler, which turns them
/// into a [`Principal`]: they never reach an agent as service parameters, so a context an agent
/// passes on to a client cannot forward them to the next hop (spec 7.6.3 warns about credentials
/// travelling along chains of agents). A client still sends credentials its caller puts in the
/// parameters on purpose.
pub fn is_credential_header(name: &str) -> bool {
    ["authorization", "proxy-authorization", "cookie", "set-cookie"]
        .iter()
        .any(|known| known.eq_ignore_ascii_case(name))
}

/// Service parameters (spec 3.2.6): case-insensitive names, case-sensitive values. Bindings fill
/// them from HTTP headers or gRPC metadata (names are stored lowercased); clients send them.
///
/// Cloning is cheap: the entries are shared until one of the clones changes them (copy on write),
/// so a request context can take its caller's parameters without copying every header.
#[derive(Clone, Default)]
pub struct ServiceParams {
    entries: Arc<Entries>,
}

/// The entries of [`ServiceParams`]: every name and value in one buffer, and where each pair is
/// in it, in the order of the names. A request's parameters cost three allocations however many
/// there are (a map of `String`s cost two per entry and one per tree node). A value replaced or
/// joined is written again at the end of the buffer; what it leaves behind is unused until the
/// entries are dropped (they are a request's, or a client's few).
#[derive(Clone, Default)]
struct Entries {
    text: String,
    /// Sorted by name (bytes of the lowercase name), names unique.
    spans: Vec<Span>,
}

/// Where one entry's name and value are in [`Entries::text`].
#[derive(Clone, Copy)]
struct Span {
    name: (u32, u32),
    value: (u32, u32),
}

impl Entries {
    fn name(&self, span: &Span) -> &str {
        &self.text[span.name.0 as usize..span.name.1 as usize]
    }

    fn value(&self, span: &Span) -> &str {
        &self.text[span.value.0 as usize..span.value.1 as usize]
    }

    /// The position of `name` (any case): names are compared ignoring ASCII case, by length
    /// first, so a lookup makes no lowercased copy and compares few bytes (a call has a few
    /// parameters).
    fn position(&self, name: &str) -> Option<usize> {
        let name = name.as_bytes();
        self.spans.iter().position(|span| {
            span.name.1 - span.name.0 == name.len() as u32
                && self.text.as_bytes()[span.name.0 as usize..span.name.1 as usize].eq_ignore_ascii_case(name)
        })
    }

    /// Appends `parts` to the buffer as one string; returns its bounds.
    fn write(&mut self, parts: &[&str]) -> (u32, u32) {
        let start = self.text.len();
        for part in parts {
            self.text.push_str(part);
        }
        (narrow(start), narrow(self.text.len()))
    }

    /// Inserts the lowercase `name` at `at` (its place in the order) with `value`.
    fn insert_at(&mut self, at: usize, lowercase_name: &str, value: &str) {
        let name = self.write(&[lowercase_name]);
        let value = self.write(&[value]);
        self.spans.insert(at, Span { name, value });
    }

    /// Sets `name` (any case) to `value`, or with `join`, adds `value` to its value after a comma.
    fn set(&mut self, name: &str, value: &str, join: bool) {
        match self.position(name) {
            Some(at) => {
                let span = self.spans[at];
                if join && span.value.1 as usize == self.text.len() {
                    // The last value written: extended in place.
                    self.spans[at].value.1 = self.write(&[",", value]).1;
                } else if join {
                    let old = self.value(&span).to_owned();
                    self.spans[at].value = self.write(&[&old, ",", value]);
                } else {
                    self.spans[at].value = self.write(&[value]);
                }
            }
            None => {
                let lowercase = lowercase(name);
                let at = self.spans.partition_point(|span| self.name(span) < &*lowercase);
                self.insert_at(at, &lowercase, value);
            }
        }
    }
}

/// A position in [`Entries::text`].
fn narrow(n: usize) -> u32 {
    u32::try_from(n).expect("service parameters smaller than 4 GiB")
}

/// `name` lowercased, borrowed when it is lowercase already (every HTTP/2 and gRPC name, and
/// every name the http crate hands out): how a new name is stored.
fn lowercase(name: &str) -> std::borrow::Cow<'_, str> {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(name.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

impl PartialEq for ServiceParams {
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for ServiceParams {}

impl std::fmt::Debug for ServiceParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        struct Map<'a>(&'a ServiceParams);
        impl std::fmt::Debug for Map<'_> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_map().entries(self.0.iter()).finish()
            }
        }
        f.debug_struct("ServiceParams").field("entries", &Map(self)).finish()
    }
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
        let entries = &*self.entries;
        let at = entries.position(name)?;
        Some(entries.value(&entries.spans[at]))
    }

    /// Sets `name` (any case) to `value`, replacing a previous value.
    pub fn insert(&mut self, name: &str, value: impl Into<String>) {
        Arc::make_mut(&mut self.entries).set(name, &value.into(), false);
    }

    /// Adds a value to `name`, joining with a comma if it has one (how repeated headers combine).
    pub fn append(&mut self, name: &str, value: &str) {
        Arc::make_mut(&mut self.entries).set(name, value, true);
    }

    /// Builder form of [`insert`](Self::insert).
    pub fn with(mut self, name: &str, value: impl Into<String>) -> Self {
        self.insert(name, value);
        self
    }

    /// Removes `name`.
    pub fn remove(&mut self, name: &str) -> Option<String> {
        let at = self.entries.position(name)?;
        // Something to remove: only now are the entries unshared.
        let entries = Arc::make_mut(&mut self.entries);
        let span = entries.spans.remove(at);
        Some(entries.value(&span).to_owned())
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

    /// Iterates `(lowercase name, value)` pairs.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        let entries = &*self.entries;
        entries.spans.iter().map(move |span| (entries.name(span), entries.value(span)))
    }

    /// The parameters of an incoming call, from its headers or metadata: every entry that is
    /// neither [transport](is_transport_header) nor [credentials](is_credential_header) and whose
    /// value is UTF-8; repeated names are joined with commas (spec 9.2, 10.2, 11.2). Every
    /// binding's server builds its parameters with this one function.
    pub fn from_transport<'a>(entries: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Self {
        // Built in place (one buffer for every name and value, room for a request's few made
        // at once), shared once done.
        let mut built = Entries { text: String::with_capacity(128), spans: Vec::with_capacity(4) };
        for (name, value) in entries {
            if is_transport_header(name) || is_credential_header(name) {
                continue;
            }
            if let Ok(value) = std::str::from_utf8(value) {
                built.set(name, value, true);
            }
        }
        ServiceParams { entries: Arc::new(built) }
    }

    /// Takes `A2A-Version` from a URL query string (name in any case) when no header carried it
    /// (spec 3.6.1: clients may send the version as a request parameter).
    pub fn with_query_version(mut self, query: Option<&str>) -> Self {
        if self.version().is_none() {
            let version = query.and_then(|q| {
                url::form_urlencoded::parse(q.as_bytes())
                    .find(|(name, _)| name.eq_ignore_ascii_case(VERSION_PARAM))
                    .map(|(_, value)| value.into_owned())
            });
            if let Some(version) = version {
                self.insert(VERSION_PARAM, version);
            }
        }
        self
    }

    /// What a client sends as headers or metadata: every parameter that is not a
    /// [transport header](is_transport_header) (the client sets those itself; a parameter named
    /// `host` or `content-type` would corrupt its request). Every binding's client sends exactly
    /// these.
    pub fn outgoing(&self) -> impl Iterator<Item = (&str, &str)> {
        self.iter().filter(|(name, _)| !is_transport_header(name))
    }

    /// These parameters with the current trace context added ([`crate::trace::current`]) when
    /// they carry none: what a client sends, so that a call an agent makes while serving a
    /// traced request continues that trace. Borrowed as they are when there is no context to
    /// add (no reader installed, no current trace, or a `traceparent` set by the caller).
    pub fn with_current_trace(&self) -> std::borrow::Cow<'_, ServiceParams> {
        if self.get("traceparent").is_some() {
            return std::borrow::Cow::Borrowed(self);
        }
        match crate::trace::current() {
            Some(trace) => {
                let mut params = self.clone();
                for (name, value) in trace.headers() {
                    params.insert(name, value);
                }
                std::borrow::Cow::Owned(params)
            }
            None => std::borrow::Cow::Borrowed(self),
        }
    }

    /// What a client sends for a call with these parameters: them with the current trace context
    /// ([`with_current_trace`](Self::with_current_trace)), and `A2A-Version: 1.0` when they name
    /// no version (spec 3.6.1: a client sends the version it speaks; a version already there, such
    /// as a 0.3 client's or one chosen on purpose, is kept). Every binding's client sends the
    /// [`outgoing`](Self::outgoing) entries of these.
    pub fn to_send(&self) -> std::borrow::Cow<'_, ServiceParams> {
        let mut params = self.with_current_trace();
        if params.version().is_none() {
            params.to_mut().insert(VERSION_PARAM, ProtocolVersion::V1_0.as_str());
        }
        params
    }

    /// Whether there are no parameters.
    pub fn is_empty(&self) -> bool {
        self.entries.spans.is_empty()
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

    /// [`Error::VersionNotSupported`] for a request of this version to an endpoint serving only
    /// `supported`: how a binding built without 0.3 (its `v03` feature off) refuses a request it
    /// recognises as 0.3 by its shape (a slash method name, a `/v1/` path, the 0.3 gRPC package).
    pub fn not_supported(self, supported: &[ProtocolVersion]) -> Error {
        Error::VersionNotSupported {
            version: self.as_str().to_owned(),
            supported: supported.iter().map(|v| v.as_str().to_owned()).collect(),
        }
    }

    /// Reads an `A2A-Version` value. Absent or empty means 0.3 (spec 3.6.2). Only `Major.Minor`
    /// counts: a patch part is ignored (spec 3.6). Anything else is
    /// [`Error::VersionNotSupported`] listing `supported`.
    pub fn resolve(raw: Option<&str>, supported: &[ProtocolVersion]) -> Result<Self, Error> {
        let raw = raw.unwrap_or("").trim();
        let parsed = if raw.is_empty() {
            Some(ProtocolVersion::V0_3)
        } else if raw == "1.0" {
            // What every 1.0 client sends, on every request: no parse.
            Some(ProtocolVersion::V1_0)
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
///
/// Besides its id, a principal says which of the agent card's security schemes its request
/// proved ([`schemes`](Self::schemes), with the scopes each granted) and which it presented
/// and had refused ([`refused`](Self::refused)), so that each agent a server hosts (its
/// tenants, each with its own card) enforces exactly the requirements its own card declares
/// (`a2a_core::security`). A principal that names no scheme at all (an authenticator of your
/// own that does not say) satisfies every requirement, as before schemes were recorded.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Principal {
    /// A stable identifier (user id, client id, key id).
    pub id: String,
    /// The security schemes (names in the card's `securitySchemes`) whose credentials this
    /// request proved, with the scopes each granted.
    pub schemes: Vec<GrantedScheme>,
    /// The security schemes whose credentials this request presented and had refused: an agent
    /// declaring one of them refuses the request, whatever else it proved.
    pub refused: Vec<String>,
}

/// A security scheme a request's credentials proved, with the scopes they grant (OAuth 2 and
/// OpenID Connect access tokens; empty for API keys, Basic and mutual TLS).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct GrantedScheme {
    /// The scheme's name in the card's `securitySchemes`.
    pub name: String,
    /// The scopes granted.
    pub scopes: Vec<String>,
}

impl Principal {
    /// A principal with this id, naming no scheme.
    pub fn new(id: impl Into<String>) -> Self {
        Principal { id: id.into(), schemes: Vec::new(), refused: Vec::new() }
    }

    /// This principal, having proved the scheme `name` with these granted `scopes`.
    #[must_use]
    pub fn with_scheme(
        mut self,
        name: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        let name = name.into();
        let scopes: Vec<String> = scopes.into_iter().map(Into::into).collect();
        match self.schemes.iter_mut().find(|s| s.name == name) {
            Some(granted) => {
                for scope in scopes {
                    if !granted.scopes.contains(&scope) {
                        granted.scopes.push(scope);
                    }
                }
            }
            None => self.schemes.push(GrantedScheme { name, scopes }),
        }
        self
    }

    /// Whether this principal proved the scheme `name`.
    pub fn proved(&self, name: &str) -> Option<&GrantedScheme> {
        self.schemes.iter().find(|s| s.name == name)
    }
}

/// What every operation receives besides its request message.
///
/// On the server, bindings build it from the transport (headers or metadata) and an
/// authentication layer may set the principal. On the client side the same type is the per-call
/// input: its params are sent as headers or metadata, and the principal and wire version are
/// ignored.
#[derive(Debug, Clone)]
pub struct CallContext {
    /// The service parameters of the call.
    pub params: ServiceParams,
    /// The authenticated caller, or `None` when the server does not authenticate.
    pub principal: Option<Principal>,
    /// The protocol version the caller spoke on the wire. Core serves 1.0 only, so a 0.3 request
    /// reaches the handler translated, with `A2A-Version: 1.0` in its params; this field keeps
    /// what the caller really spoke, for what outlives the call in the caller's version: a push
    /// config registered by a 0.3 client gets its notifications in the 0.3 format (0.3 spec
    /// 9.5). [`V1_0`](ProtocolVersion::V1_0) unless a 0.3 edge (`a2a_v03::context_for_core`)
    /// says otherwise.
    pub wire_version: ProtocolVersion,
}

impl Default for CallContext {
    /// No parameters, no principal, wire version 1.0.
    fn default() -> Self {
        Self::new(ServiceParams::new())
    }
}

impl CallContext {
    /// A context with these parameters, no principal and wire version 1.0.
    pub fn new(params: ServiceParams) -> Self {
        CallContext { params, principal: None, wire_version: ProtocolVersion::V1_0 }
    }

    /// A context asking for A2A 1.0 (the usual client-side context).
    pub fn v1() -> Self {
        Self::new(ServiceParams::v1())
    }

    /// Sets the principal.
    pub fn with_principal(self, principal: Principal) -> Self {
        Self { principal: Some(principal), ..self }
    }

    /// Sets the [wire version](Self::wire_version).
    pub fn with_wire_version(self, version: ProtocolVersion) -> Self {
        Self { wire_version: version, ..self }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ProtocolVersion::*;

    #[test]
    fn a_version_not_served_is_refused_naming_it_and_the_supported_ones() {
        match V0_3.not_supported(&[V1_0]) {
            Error::VersionNotSupported { version, supported } => {
                assert_eq!((version.as_str(), supported), ("0.3", vec!["1.0".to_owned()]));
            }
            other => panic!("{other:?}"),
        }
        assert!(V0_3.not_supported(&[V1_0]).to_string().contains("\"0.3\" is not supported"));
    }

    #[test]
    fn a_client_sends_1_0_unless_the_parameters_name_a_version() {
        let mut params = ServiceParams::new();
        params.insert("A2A-Extensions", "urn:a");
        let sent = params.to_send();
        assert_eq!(sent.version(), Some("1.0"));
        assert_eq!(sent.get("a2a-extensions"), Some("urn:a"));
        params.insert("A2A-Version", "0.3");
        assert_eq!(params.to_send().version(), Some("0.3"));
        params.insert("A2A-Version", "9.9");
        assert_eq!(params.to_send().version(), Some("9.9"), "a version chosen on purpose is sent");
    }

    #[test]
    fn names_are_case_insensitive_and_extensions_split_on_commas() {
        let mut params = ServiceParams::new();
        params.insert("A2A-Extensions", "urn:a, urn:b,,");
        params.append("a2a-extensions", "urn:c");
        assert_eq!(params.extensions(), ["urn:a", "urn:b", "urn:c"]);
        params.insert("A2A-VERSION", "1.0");
        assert_eq!(params.version(), Some("1.0"));
        assert_eq!(params.get("A2A-Version"), Some("1.0"));
        assert_eq!(params.get("a2a-version"), Some("1.0"));
        assert_eq!(params.get("a2a-versio"), None);
    }

    #[test]
    fn transport_headers_are_the_framing_names_in_any_case() {
        const NAMES: [&str; 15] = [
            "accept",
            "accept-encoding",
            "connection",
            "content-encoding",
            "content-length",
            "content-type",
            "expect",
            "host",
            "keep-alive",
            "proxy-connection",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "user-agent",
        ];
        for name in NAMES {
            assert!(is_transport_header(name), "{name}");
            assert!(is_transport_header(&name.to_ascii_uppercase()), "{name}");
            // One letter off, or one more or one fewer, is no transport header.
            assert!(!is_transport_header(&format!("{name}s")), "{name}s");
            assert!(!is_transport_header(&name[1..]), "{name} without its first letter");
            assert!(!is_transport_header(&name.replacen(|c: char| c.is_ascii_lowercase(), "x", 1)));
        }
        for name in ["", ":path", ":authority", "grpc-timeout", "GRPC-Status", "grpc-"] {
            assert!(is_transport_header(name), "{name:?}");
        }
        for name in ["a2a-version", "a2a-extensions", "x-request-id", "grpc", "traceparent", "accepts"] {
            assert!(!is_transport_header(name), "{name}");
        }
    }

    #[test]
    fn appending_joins_repeated_names_whatever_their_case() {
        let mut params = ServiceParams::new();
        params.append("x-a", "1");
        params.append("X-A", "2");
        params.append("x-a", "3");
        params.append("X-b", "4");
        params.append("x-b", "5");
        assert_eq!(params.iter().collect::<Vec<_>>(), [("x-a", "1,2,3"), ("x-b", "4,5")]);
    }

    #[test]
    fn joining_or_replacing_an_earlier_value_keeps_every_other_entry() {
        let mut params = ServiceParams::new();
        params.append("x-b", "1");
        params.append("X-A", "2");
        params.append("x-c", "3");
        params.append("x-b", "4");
        params.insert("X-A", "5");
        params.append("x-c", "6");
        assert_eq!(params.iter().collect::<Vec<_>>(), [("x-a", "5"), ("x-b", "1,4"), ("x-c", "3,6")]);
        assert_eq!(params.remove("X-B").as_deref(), Some("1,4"));
        assert_eq!((params.get("x-b"), params.get("X-C")), (None, Some("3,6")));
        assert_eq!(params, ServiceParams::new().with("x-c", "3,6").with("x-a", "5"));
        assert_eq!(format!("{params:?}"), r#"ServiceParams { entries: {"x-a": "5", "x-c": "3,6"} }"#);
    }

    #[test]
    fn transport_entries_become_params_without_framing_or_credentials() {
        let headers: [(&str, &[u8]); 7] = [
            ("A2A-Version", b"1.0"),
            ("a2a-extensions", b"urn:a"),
            ("A2A-Extensions", b"urn:b"),
            ("x-custom", b"kept"),
            ("Authorization", b"Bearer secret"),
            ("content-type", b"application/json"),
            ("x-binary", &[0xff, 0xfe]),
        ];
        let params = ServiceParams::from_transport(headers);
        let names: Vec<_> = params.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a2a-extensions", "a2a-version", "x-custom"]);
        assert_eq!(params.extensions(), ["urn:a", "urn:b"]);
        assert!(params.get("authorization").is_none(), "credentials are not service parameters");
    }

    #[test]
    fn the_query_version_applies_only_without_a_header() {
        let from_query = ServiceParams::new().with_query_version(Some("x=1&a2a-VERSION=1.0"));
        assert_eq!(from_query.version(), Some("1.0"));
        let header =
            ServiceParams::new().with("A2A-Version", "0.3").with_query_version(Some("A2A-Version=1.0"));
        assert_eq!(header.version(), Some("0.3"));
        assert_eq!(ServiceParams::new().with_query_version(None).version(), None);
    }

    #[test]
    fn outgoing_params_skip_framing_but_keep_deliberate_credentials() {
        let params = ServiceParams::v1()
            .with("host", "elsewhere")
            .with("Authorization", "Bearer mine")
            .with("grpc-timeout", "1S")
            .with("x-trace", "t");
        let sent: Vec<_> = params.outgoing().collect();
        assert_eq!(sent, [("a2a-version", "1.0"), ("authorization", "Bearer mine"), ("x-trace", "t")]);
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

#[cfg(test)]
mod sharing_tests {
    use super::*;

    #[test]
    fn clones_share_entries_until_one_changes() {
        let original = ServiceParams::new().with("X-One", "1").with("x-two", "2");
        let mut copy = original.clone();
        assert!(Arc::ptr_eq(&original.entries, &copy.entries), "a clone copies nothing");
        assert_eq!(copy.remove("x-absent"), None);
        assert!(Arc::ptr_eq(&original.entries, &copy.entries), "removing nothing copies nothing");
        copy.append("X-ONE", "3");
        copy.insert("x-three", "3");
        assert_eq!(copy.remove("X-Two").as_deref(), Some("2"));
        assert_eq!(original.iter().collect::<Vec<_>>(), [("x-one", "1"), ("x-two", "2")], "unchanged");
        assert_eq!(copy.iter().collect::<Vec<_>>(), [("x-one", "1,3"), ("x-three", "3")]);
    }
}
