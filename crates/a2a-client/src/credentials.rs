//! What a caller holds to authenticate ([`Credentials`]) and how a card says to present it
//! ([`Presentation`]): the client side of spec 7.3 ("the client discovers the server's required
//! authentication schemes via the `securitySchemes` field in the AgentCard", then "includes these
//! credentials in protocol-appropriate headers or metadata for every A2A request").
//!
//! # Which credential goes where
//!
//! A credential is presented only as a scheme the card declares (spec 4.5; a2a-cli SPEC §12.4):
//!
//! | credential | accepted by | carried as |
//! | --- | --- | --- |
//! | API key | `apiKeySecurityScheme` | the header, query parameter or cookie the scheme names (`location`, `name`); gRPC: metadata for `header` and `cookie`, never `query` (a gRPC call has no query) |
//! | bearer token (static or a [`TokenSource`]) | `httpAuthSecurityScheme` with scheme `Bearer`, `oauth2SecurityScheme`, `openIdConnectSecurityScheme` | `Authorization: Bearer <token>` |
//! | user and password | `httpAuthSecurityScheme` with scheme `Basic` | `Authorization: Basic <base64(user:password)>` |
//! | client certificate and key | `mtlsSecurityScheme` (but see below) | the TLS connection of every binding |
//!
//! The card's `securityRequirements` are alternatives (OR-ed), the schemes within one all needed
//! (AND-ed). The credentials are presented as the **first requirement they satisfy**; a card with
//! schemes and no requirements takes each scheme as an alternative of its own (by name). When no
//! requirement is satisfied, every declared scheme a credential fits is used, so the agent's answer
//! (a 401 with its challenges) says what is missing, and [`Presentation::unmet`] lists the
//! requirements and what each lacks: the call is still made, the agent decides.
//!
//! A credential no declared scheme accepts is **never sent** ([`Presentation::unaccepted`]). A
//! client certificate is the exception that is not one: TLS presents it only when the server's
//! handshake asks for one, so it is configured whenever given.
//!
//! The agent card itself is always fetched anonymously; the extended card
//! (`GetExtendedAgentCard`) is a call like the others and carries the credentials.

use std::fmt;
use std::sync::Arc;

use a2a_core::{Binding, Result, ServiceParams};
use a2a_proto::v1::security_scheme::Scheme;
use a2a_proto::v1::AgentCard;
use async_trait::async_trait;

/// Gives bearer tokens: an OAuth 2 client, a file a login command keeps, a secret store.
///
/// The client asks for a token before each call with `refresh = false` (a source should cache
/// it), and once with `refresh = true` after the agent refused a call as unauthenticated (the
/// token expired or was revoked): the call is then retried once with the new token. An error is
/// the call's error.
#[async_trait]
pub trait TokenSource: Send + Sync + 'static {
    /// The current token, or a new one when `refresh` is true.
    async fn token(&self, refresh: bool) -> Result<String>;
}

/// A bearer token: fixed, or from a source.
#[derive(Clone)]
enum Bearer {
    Static(String),
    Source(Arc<dyn TokenSource>),
}

/// A client certificate (chain) and its private key, PEM, for mutual TLS.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientCertificate {
    cert_pem: Vec<u8>,
    key_pem: Vec<u8>,
}

impl ClientCertificate {
    /// From the PEM of a certificate (possibly followed by its chain) and of its private key
    /// (PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem(cert_pem: impl Into<Vec<u8>>, key_pem: impl Into<Vec<u8>>) -> Self {
        ClientCertificate { cert_pem: cert_pem.into(), key_pem: key_pem.into() }
    }

    /// The certificate PEM.
    pub fn cert_pem(&self) -> &[u8] {
        &self.cert_pem
    }

    /// The private key PEM.
    pub fn key_pem(&self) -> &[u8] {
        &self.key_pem
    }

    /// The identity for a `reqwest` client (`reqwest::ClientBuilder::identity`): what a caller
    /// that gives its own [`http_client`](crate::ClientBuilder::http_client) adds to it.
    ///
    /// # Errors
    /// [`a2a_core::Error::InvalidRequest`] when the PEM is not a certificate and a key.
    #[cfg(feature = "tls")]
    pub fn to_reqwest(&self) -> Result<reqwest::Identity> {
        let mut pem = self.cert_pem.clone();
        pem.push(b'\n');
        pem.extend_from_slice(&self.key_pem);
        reqwest::Identity::from_pem(&pem).map_err(|e| a2a_core::Error::InvalidRequest {
            reason: format!(
                "the client certificate and key are not usable PEM: {}",
                a2a_core::error::error_chain(&e)
            ),
        })
    }
}

impl fmt::Debug for ClientCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientCertificate")
            .field("cert_pem", &format_args!("<{} bytes>", self.cert_pem.len()))
            .field("key_pem", &"<redacted>")
            .finish()
    }
}

/// What a caller holds to authenticate to agents, for
/// [`ClientBuilder::credentials`](crate::ClientBuilder::credentials): presented to each agent as
/// its card declares (the [module docs](self) say how). Any combination may be given.
#[derive(Clone, Default)]
pub struct Credentials {
    api_key: Option<String>,
    bearer: Option<Bearer>,
    basic: Option<(String, String)>,
    certificate: Option<ClientCertificate>,
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never a secret in a log.
        f.debug_struct("Credentials")
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field(
                "bearer",
                &self.bearer.as_ref().map(|b| match b {
                    Bearer::Static(_) => "<redacted>",
                    Bearer::Source(_) => "<token source>",
                }),
            )
            .field("basic", &self.basic.as_ref().map(|(user, _)| format!("{user}:<redacted>")))
            .field("certificate", &self.certificate)
            .finish()
    }
}

/// The kinds of credential, for [`Presentation`] and [`MissingRequirement`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CredentialKind {
    /// An API key.
    ApiKey,
    /// A bearer token (static or from a [`TokenSource`]).
    Bearer,
    /// HTTP Basic user and password.
    Basic,
    /// A client certificate (mutual TLS).
    ClientCertificate,
}

impl fmt::Display for CredentialKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CredentialKind::ApiKey => "API key",
            CredentialKind::Bearer => "bearer token",
            CredentialKind::Basic => "HTTP Basic user and password",
            CredentialKind::ClientCertificate => "client certificate",
        })
    }
}

impl Credentials {
    /// No credentials.
    pub fn new() -> Self {
        Self::default()
    }

    /// An API key, for the card's `apiKeySecurityScheme` (header, query parameter or cookie).
    #[must_use]
    pub fn api_key(self, key: impl Into<String>) -> Self {
        Self { api_key: Some(key.into()), ..self }
    }

    /// A fixed bearer token, for an HTTP `Bearer`, OAuth 2 or OpenID Connect scheme. Replaces a
    /// [`token_source`](Self::token_source).
    #[must_use]
    pub fn bearer(self, token: impl Into<String>) -> Self {
        Self { bearer: Some(Bearer::Static(token.into())), ..self }
    }

    /// Bearer tokens from `source`, asked again (`refresh = true`) after the agent refused a call
    /// as unauthenticated, and that call retried once. Replaces a [`bearer`](Self::bearer) token.
    #[must_use]
    pub fn token_source(self, source: impl TokenSource) -> Self {
        Self { bearer: Some(Bearer::Source(Arc::new(source))), ..self }
    }

    /// HTTP Basic credentials, for an HTTP `Basic` scheme.
    #[must_use]
    pub fn basic(self, user: impl Into<String>, password: impl Into<String>) -> Self {
        Self { basic: Some((user.into(), password.into())), ..self }
    }

    /// A client certificate for mutual TLS on every binding's connection (feature `tls`).
    #[must_use]
    pub fn client_certificate(self, certificate: ClientCertificate) -> Self {
        Self { certificate: Some(certificate), ..self }
    }

    /// The client certificate, if one was given.
    pub fn certificate(&self) -> Option<&ClientCertificate> {
        self.certificate.as_ref()
    }

    /// Whether nothing was given.
    pub fn is_empty(&self) -> bool {
        self.kinds().is_empty()
    }

    /// The kinds of credential given.
    pub fn kinds(&self) -> Vec<CredentialKind> {
        let mut kinds = Vec::new();
        if self.api_key.is_some() {
            kinds.push(CredentialKind::ApiKey);
        }
        if self.bearer.is_some() {
            kinds.push(CredentialKind::Bearer);
        }
        if self.basic.is_some() {
            kinds.push(CredentialKind::Basic);
        }
        if self.certificate.is_some() {
            kinds.push(CredentialKind::ClientCertificate);
        }
        kinds
    }

    /// How these credentials are presented to the agent of `card` over `binding` (see the
    /// [module docs](self)).
    pub fn presentation(&self, card: &AgentCard, binding: Binding) -> Presentation {
        let declared: Vec<(&String, &Scheme)> = {
            let mut schemes: Vec<_> =
                card.security_schemes.iter().filter_map(|(n, s)| Some((n, s.scheme.as_ref()?))).collect();
            schemes.sort_by(|a, b| a.0.cmp(b.0));
            schemes
        };
        let fits = |name: &str| -> Option<Placement> {
            let (_, scheme) = declared.iter().find(|(n, _)| n.as_str() == name)?;
            self.fit(scheme, binding)
        };
        // The alternatives: the card's requirements, or each declared scheme alone.
        let requirements: Vec<Vec<String>> = if card.security_requirements.is_empty() {
            declared.iter().map(|(name, _)| vec![(*name).clone()]).collect()
        } else {
            card.security_requirements
                .iter()
                .map(|r| {
                    let mut names: Vec<String> = r.schemes.keys().cloned().collect();
                    names.sort();
                    names
                })
                .collect()
        };
        let satisfied = |names: &Vec<String>| names.iter().all(|n| fits(n).is_some());
        let mut presentation = Presentation::default();
        let chosen = requirements.iter().find(|names| !names.is_empty() && satisfied(names));
        match chosen {
            Some(names) => {
                for name in names {
                    presentation.add(name, fits(name).expect("satisfied"));
                }
            }
            None => {
                for (name, _) in &declared {
                    if let Some(placement) = fits(name) {
                        presentation.add(name, placement);
                    }
                }
            }
        }
        let anonymous_ok = requirements.iter().any(Vec::is_empty);
        if !card.security_requirements.is_empty() && chosen.is_none() && !anonymous_ok {
            presentation.unmet = requirements
                .iter()
                .map(|names| MissingRequirement {
                    schemes: names.clone(),
                    missing: names.iter().filter(|n| fits(n).is_none()).cloned().collect(),
                })
                .collect();
        }
        presentation.unaccepted = self
            .kinds()
            .into_iter()
            .filter(|kind| *kind != CredentialKind::ClientCertificate)
            .filter(|kind| {
                !declared.iter().any(|(_, s)| self.fit(s, binding).is_some_and(|p| p.kind() == *kind))
            })
            .collect();
        presentation.certificate = self.certificate.is_some();
        presentation
    }

    /// Where a credential goes for `scheme`, if one of these credentials fits it.
    fn fit(&self, scheme: &Scheme, binding: Binding) -> Option<Placement> {
        match scheme {
            Scheme::ApiKeySecurityScheme(api_key) => {
                let key = self.api_key.as_ref()?;
                if api_key.name.trim().is_empty() {
                    return None;
                }
                let name = api_key.name.clone();
                let location = api_key.location.to_ascii_lowercase();
                match location.as_str() {
                    "header" => Some(Placement::Header(name, key.clone())),
                    "cookie" => Some(Placement::Cookie(name, key.clone())),
                    "query" if binding != Binding::Grpc => Some(Placement::Query(name, key.clone())),
                    _ => None,
                }
            }
            Scheme::HttpAuthSecurityScheme(http) if http.scheme.eq_ignore_ascii_case("bearer") => {
                self.bearer.as_ref().map(|b| Placement::Bearer(b.clone()))
            }
            Scheme::HttpAuthSecurityScheme(http) if http.scheme.eq_ignore_ascii_case("basic") => {
                let (user, password) = self.basic.as_ref()?;
                Some(Placement::Basic(basic_value(user, password)))
            }
            Scheme::HttpAuthSecurityScheme(_) => None,
            Scheme::Oauth2SecurityScheme(_) | Scheme::OpenIdConnectSecurityScheme(_) => {
                self.bearer.as_ref().map(|b| Placement::Bearer(b.clone()))
            }
            Scheme::MtlsSecurityScheme(_) => self.certificate.as_ref().map(|_| Placement::Certificate),
        }
    }
}

/// `Basic base64(user:password)` (RFC 7617).
fn basic_value(user: &str, password: &str) -> String {
    format!("Basic {}", base64(format!("{user}:{password}").as_bytes()))
}

/// Standard base64 with padding (RFC 4648 4): a dozen lines rather than a dependency.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Where one credential goes.
#[derive(Clone)]
enum Placement {
    Header(String, String),
    Query(String, String),
    Cookie(String, String),
    Bearer(Bearer),
    Basic(String),
    Certificate,
}

impl Placement {
    fn kind(&self) -> CredentialKind {
        match self {
            Placement::Header(..) | Placement::Query(..) | Placement::Cookie(..) => CredentialKind::ApiKey,
            Placement::Bearer(_) => CredentialKind::Bearer,
            Placement::Basic(_) => CredentialKind::Basic,
            Placement::Certificate => CredentialKind::ClientCertificate,
        }
    }
}

/// A requirement of the card the credentials do not satisfy: its schemes (by name) and those of
/// them no credential given fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingRequirement {
    /// The schemes the requirement names (all needed).
    pub schemes: Vec<String>,
    /// Those no credential given fits (a name the card does not declare is missing too).
    pub missing: Vec<String>,
}

impl fmt::Display for MissingRequirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (missing: {})", self.schemes.join(" + "), self.missing.join(", "))
    }
}

/// How [`Credentials`] are presented to one agent over one binding
/// ([`Credentials::presentation`], [`Client::presentation`](crate::Client::presentation)).
#[derive(Clone, Default)]
pub struct Presentation {
    /// The card's scheme names used, in the order applied.
    schemes: Vec<String>,
    headers: Vec<(String, String)>,
    query: Vec<(String, String)>,
    cookies: Vec<(String, String)>,
    authorization: Option<Authorization>,
    certificate: bool,
    unmet: Vec<MissingRequirement>,
    unaccepted: Vec<CredentialKind>,
}

#[derive(Clone)]
enum Authorization {
    Bearer(Bearer),
    Basic(String),
}

impl fmt::Debug for Presentation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Presentation")
            .field("schemes", &self.schemes)
            .field("certificate", &self.certificate)
            .field("unmet", &self.unmet)
            .field("unaccepted", &self.unaccepted)
            .finish_non_exhaustive()
    }
}

impl Presentation {
    fn add(&mut self, name: &str, placement: Placement) {
        match placement {
            Placement::Header(header, value) => self.headers.push((header, value)),
            Placement::Query(param, value) => self.query.push((param, value)),
            Placement::Cookie(cookie, value) => self.cookies.push((cookie, value)),
            // One Authorization header: the first scheme that sets it.
            Placement::Bearer(bearer) if self.authorization.is_none() => {
                self.authorization = Some(Authorization::Bearer(bearer));
            }
            Placement::Basic(value) if self.authorization.is_none() => {
                self.authorization = Some(Authorization::Basic(value));
            }
            Placement::Bearer(_) | Placement::Basic(_) => return,
            Placement::Certificate => {}
        }
        self.schemes.push(name.to_owned());
    }

    /// The names of the card's schemes the credentials are presented as.
    pub fn schemes(&self) -> &[String] {
        &self.schemes
    }

    /// The card's requirements the credentials do not satisfy, each with what it lacks; empty
    /// when one is satisfied or the card requires nothing. The calls are made anyway: the agent
    /// answers (spec 7.4: it authenticates every request).
    pub fn unmet(&self) -> &[MissingRequirement] {
        &self.unmet
    }

    /// The credentials given that no scheme of the card accepts (over this binding): never sent.
    /// A client certificate is never listed (TLS presents it only when asked).
    pub fn unaccepted(&self) -> &[CredentialKind] {
        &self.unaccepted
    }

    /// Whether a bearer token from a [`TokenSource`] is sent (a refused call is then retried
    /// once with a refreshed token).
    pub(crate) fn refreshable(&self) -> bool {
        matches!(self.authorization, Some(Authorization::Bearer(Bearer::Source(_))))
    }

    /// The query parameters to add to the interface URL (HTTP bindings).
    pub(crate) fn query(&self) -> &[(String, String)] {
        &self.query
    }

    /// Whether anything goes in the headers (or metadata) of a call.
    pub(crate) fn has_params(&self) -> bool {
        !self.headers.is_empty() || !self.cookies.is_empty() || self.authorization.is_some()
    }

    /// Adds the credentials' headers (or metadata) to `params`, under those already there (a
    /// call's own `authorization` or API key header wins). `refresh`: ask the token source for
    /// a new token.
    pub(crate) async fn apply(&self, params: &mut ServiceParams, refresh: bool) -> Result<()> {
        for (name, value) in &self.headers {
            if params.get(name).is_none() {
                params.insert(name, value.clone());
            }
        }
        if !self.cookies.is_empty() {
            let ours: Vec<String> = self.cookies.iter().map(|(n, v)| format!("{n}={v}")).collect();
            let cookie = match params.get("cookie") {
                Some(theirs) if !theirs.trim().is_empty() => format!("{theirs}; {}", ours.join("; ")),
                _ => ours.join("; "),
            };
            params.insert("cookie", cookie);
        }
        if params.get("authorization").is_none() {
            match &self.authorization {
                Some(Authorization::Bearer(Bearer::Static(token))) => {
                    params.insert("authorization", format!("Bearer {token}"));
                }
                Some(Authorization::Bearer(Bearer::Source(source))) => {
                    let token = source.token(refresh).await?;
                    params.insert("authorization", format!("Bearer {token}"));
                }
                Some(Authorization::Basic(value)) => params.insert("authorization", value.clone()),
                None => {}
            }
        }
        Ok(())
    }
}

/// One challenge of a `WWW-Authenticate` header (RFC 9110 11.6.1): its scheme and parameters
/// (`Bearer realm="a2a", error="invalid_token"`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    /// The authentication scheme (`Bearer`, `Basic`, `ApiKey`, ...), as sent.
    pub scheme: String,
    /// The `name=value` parameters, names lower-cased, values unquoted; a token68 (`Negotiate
    /// abc==`) is a parameter with an empty name.
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of parameter `name` (case-insensitive).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The challenges of one `WWW-Authenticate` header value (several may share a value,
    /// separated by commas). Malformed parts are skipped, never an error.
    pub fn parse(header: &str) -> Vec<Challenge> {
        let mut challenges: Vec<Challenge> = Vec::new();
        let mut rest = header.trim();
        while !rest.is_empty() {
            rest = rest.trim_start_matches([',', ' ', '\t']);
            if rest.is_empty() {
                break;
            }
            // A token: a scheme if followed by a space or the end, else a parameter name.
            let end = rest.find([' ', '=', ',']).unwrap_or(rest.len());
            let token = &rest[..end];
            let after = rest[end..].trim_start_matches([' ', '\t']);
            if let Some(value_part) = after.strip_prefix('=') {
                if value_part.starts_with('=') || value_part.is_empty() || value_part.starts_with(',') {
                    // token68 ending in '=' (e.g. `abc==`): the whole run is the token.
                    let run_end = rest.find([',', ' ']).unwrap_or(rest.len());
                    if let Some(last) = challenges.last_mut() {
                        last.params.push((String::new(), rest[..run_end].to_owned()));
                    }
                    rest = &rest[run_end..];
                    continue;
                }
                let (value, remaining) = read_value(value_part.trim_start());
                match challenges.last_mut() {
                    Some(last) => last.params.push((token.to_ascii_lowercase(), value)),
                    None => return challenges,
                }
                rest = remaining;
            } else if token.is_empty() {
                rest = &rest[1..];
            } else {
                // A new scheme; a token68 may follow it directly.
                challenges.push(Challenge { scheme: token.to_owned(), params: Vec::new() });
                rest = after;
                let next_end = rest.find([',', ' ', '=']).unwrap_or(rest.len());
                let next_is_param = rest[next_end..].trim_start().starts_with('=')
                    && !rest[next_end..].trim_start().starts_with("==");
                if !rest.is_empty() && !rest.starts_with(',') && !next_is_param {
                    let run_end = rest.find([',', ' ']).unwrap_or(rest.len());
                    if let Some(last) = challenges.last_mut() {
                        last.params.push((String::new(), rest[..run_end].to_owned()));
                    }
                    rest = &rest[run_end..];
                }
            }
        }
        challenges
    }
}

/// A parameter value: a quoted string (with `\` escapes) or a token; and what follows it.
fn read_value(text: &str) -> (String, &str) {
    if let Some(quoted) = text.strip_prefix('"') {
        let mut value = String::new();
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => return (value, &quoted[i + 1..]),
                other => value.push(other),
            }
        }
        (value, "")
    } else {
        let end = text.find([',', ' ']).unwrap_or(text.len());
        (text[..end].to_owned(), &text[end..])
    }
}

/// The `WWW-Authenticate` values a binding client kept in an `Unauthenticated` reason
/// (`a2a_core::Error::with_challenges`), parsed.
pub(crate) fn challenges_in(reason: &str) -> Vec<Challenge> {
    a2a_core::error::challenges_in(reason).into_iter().flat_map(Challenge::parse).collect()
}

/// An agent's refusal of a call as unauthenticated (HTTP 401, gRPC `UNAUTHENTICATED`, JSON-RPC
/// -32010), read by [`Client::refusal`](crate::Client::refusal): what it said and what its card
/// declares.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The error's reason, as the binding reported it.
    pub reason: String,
    /// The challenges of the answer's `WWW-Authenticate` headers (HTTP+JSON, and JSON-RPC behind
    /// a proxy answering 401; gRPC and JSON-RPC errors carry none).
    pub challenges: Vec<Challenge>,
    /// The card's declared scheme names, sorted, with what each is (`HTTP Bearer`, `API key in
    /// header "X-API-Key"`, ...).
    pub schemes: Vec<(String, String)>,
    /// The card's requirements the credentials did not satisfy (empty when one was).
    pub unmet: Vec<MissingRequirement>,
}

/// A scheme's kind, for people.
pub fn describe_scheme(scheme: &Scheme) -> String {
    match scheme {
        Scheme::ApiKeySecurityScheme(k) => format!("API key in {} {:?}", k.location, k.name),
        Scheme::HttpAuthSecurityScheme(h) => format!("HTTP {}", h.scheme),
        Scheme::Oauth2SecurityScheme(_) => "OAuth 2".into(),
        Scheme::OpenIdConnectSecurityScheme(o) => format!("OpenID Connect {}", o.open_id_connect_url),
        Scheme::MtlsSecurityScheme(_) => "mutual TLS".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{
        ApiKeySecurityScheme, HttpAuthSecurityScheme, SecurityRequirement, SecurityScheme, StringList,
    };

    fn card(schemes: &[(&str, Scheme)], requirements: &[&[&str]]) -> AgentCard {
        AgentCard {
            security_schemes: schemes
                .iter()
                .map(|(n, s)| ((*n).to_owned(), SecurityScheme { scheme: Some(s.clone()) }))
                .collect(),
            security_requirements: requirements
                .iter()
                .map(|names| SecurityRequirement {
                    schemes: names.iter().map(|n| ((*n).to_owned(), StringList::default())).collect(),
                })
                .collect(),
            ..Default::default()
        }
    }

    fn api_key(location: &str, name: &str) -> Scheme {
        Scheme::ApiKeySecurityScheme(ApiKeySecurityScheme {
            location: location.into(),
            name: name.into(),
            ..Default::default()
        })
    }

    fn http(scheme: &str) -> Scheme {
        Scheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme { scheme: scheme.into(), ..Default::default() })
    }

    async fn params(p: &Presentation) -> ServiceParams {
        let mut params = ServiceParams::new();
        p.apply(&mut params, false).await.unwrap();
        params
    }

    #[tokio::test]
    async fn an_api_key_goes_where_the_scheme_says_and_nowhere_undeclared() {
        let creds = Credentials::new().api_key("k").bearer("t");
        let header =
            creds.presentation(&card(&[("key", api_key("header", "X-Key"))], &[&["key"]]), Binding::Rest);
        let sent = params(&header).await;
        assert_eq!(sent.get("x-key"), Some("k"));
        assert_eq!(sent.get("authorization"), None, "no bearer scheme declared");
        assert_eq!(header.unaccepted(), [CredentialKind::Bearer]);
        let cookie = creds.presentation(&card(&[("key", api_key("cookie", "sid"))], &[]), Binding::JsonRpc);
        assert_eq!(params(&cookie).await.get("cookie"), Some("sid=k"));
        let query =
            creds.presentation(&card(&[("key", api_key("query", "key"))], &[&["key"]]), Binding::Rest);
        assert_eq!(query.query(), [("key".to_owned(), "k".to_owned())]);
        assert!(!query.has_params());
        let grpc = creds.presentation(&card(&[("key", api_key("query", "key"))], &[&["key"]]), Binding::Grpc);
        assert!(grpc.query().is_empty(), "a gRPC call has no query");
        assert_eq!(grpc.unmet()[0].missing, ["key"]);
        let none = creds.presentation(&AgentCard::default(), Binding::Rest);
        assert!(!none.has_params() && none.unmet().is_empty());
        assert_eq!(none.unaccepted(), [CredentialKind::ApiKey, CredentialKind::Bearer]);
    }

    #[tokio::test]
    async fn requirements_are_or_ed_and_their_schemes_and_ed() {
        let schemes =
            [("basic", http("Basic")), ("bearer", http("bearer")), ("key", api_key("header", "X-Key"))];
        let both: &[&[&str]] = &[&["bearer", "key"], &["basic"]];
        // The first requirement needs a bearer token and a key; only a key: the second (Basic) is
        // not satisfied either, so every fitting scheme is used and both are unmet.
        let only_key = Credentials::new().api_key("k").presentation(&card(&schemes, both), Binding::Rest);
        assert_eq!(only_key.schemes(), ["key"]);
        assert_eq!(only_key.unmet().len(), 2);
        assert_eq!(only_key.unmet()[0].missing, ["bearer"]);
        let full = Credentials::new().api_key("k").bearer("t").basic("u", "p");
        let chosen = full.presentation(&card(&schemes, both), Binding::Rest);
        assert_eq!(chosen.schemes(), ["bearer", "key"]);
        assert!(chosen.unmet().is_empty());
        let sent = params(&chosen).await;
        assert_eq!(sent.get("authorization"), Some("Bearer t"));
        let basic = Credentials::new()
            .basic("Aladdin", "open sesame")
            .presentation(&card(&schemes, both), Binding::Grpc);
        assert_eq!(basic.schemes(), ["basic"]);
        assert_eq!(params(&basic).await.get("authorization"), Some("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="));
        // An empty requirement: anonymous access is allowed, nothing is unmet.
        let open = Credentials::new().presentation(&card(&schemes, &[&["bearer"], &[]]), Binding::Rest);
        assert!(open.unmet().is_empty());
    }

    #[tokio::test]
    async fn a_call_s_own_authorization_wins() {
        let p =
            Credentials::new().bearer("t").presentation(&card(&[("b", http("Bearer"))], &[]), Binding::Rest);
        let mut own = ServiceParams::new().with("Authorization", "Bearer mine");
        p.apply(&mut own, false).await.unwrap();
        assert_eq!(own.get("authorization"), Some("Bearer mine"));
    }

    #[test]
    fn base64_is_rfc_4648() {
        for (plain, encoded) in
            [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg==")]
        {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn challenges_are_parsed() {
        let parsed = Challenge::parse(
            r#"Bearer realm="a2a", error="invalid_token", Basic realm="x, y", charset=UTF-8"#,
        );
        assert_eq!(parsed.len(), 2, "{parsed:?}");
        assert_eq!(parsed[0].scheme, "Bearer");
        assert_eq!(parsed[0].param("realm"), Some("a2a"));
        assert_eq!(parsed[0].param("ERROR"), Some("invalid_token"));
        assert_eq!(parsed[1].scheme, "Basic");
        assert_eq!(parsed[1].param("realm"), Some("x, y"));
        assert_eq!(parsed[1].param("charset"), Some("UTF-8"));
        let token68 = Challenge::parse("Negotiate abc==, Bearer");
        assert_eq!(token68[0].params, [(String::new(), "abc==".to_owned())]);
        assert_eq!(token68[1].scheme, "Bearer");
        assert!(Challenge::parse("").is_empty());
        // Whatever a server sends, parsing ends without a panic.
        for odd in [
            "=",
            "==",
            "a=b",
            "Bearer ,,, x=\"",
            "Basic\trealm=x",
            "ü ü=ü, é",
            "B \"\\",
            "x y= ,=z",
            "A b==c",
        ] {
            let _ = Challenge::parse(odd);
        }
        assert!(Challenge::parse("=== ,,, \"").len() <= 1, "garbage is no panic");
        let reason = r#"401 Unauthorized [WWW-Authenticate: ApiKey realm="a2a", scheme="apiKey"] [WWW-Authenticate: Bearer realm="a2a"]"#;
        let kept = challenges_in(reason);
        assert_eq!(kept.iter().map(|c| c.scheme.as_str()).collect::<Vec<_>>(), ["ApiKey", "Bearer"]);
        assert_eq!(kept[0].param("scheme"), Some("apiKey"));
    }
}
