//! Resolving `--agent-card` to a card (SPEC.md §10.1) and building the [`Client`] for it:
//! transport preference (§13.1), protocol version (§13.2) and credentials (§12.1), all through
//! `a2a-client`.

use std::path::Path;

use a2a_client::{Binding, Client, ClientCertificate, CredentialKind, Credentials, TokenSource};
use a2a_core::{Error, ProtocolVersion, ServiceParams};
use a2a_proto::v1::{security_scheme::Scheme, AgentCard};
use a2a_v03::V03;

use crate::cli::{Global, Transport};
use crate::error::{exit, CliError};
use crate::output::Out;

/// Where a card reference points.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum CardRef {
    /// An origin or base URL: the well-known path is appended.
    Base(String),
    /// A full card URL, used as it is.
    Url(String),
    /// A local file.
    File(String),
}

impl CardRef {
    /// Reads a reference: `file://...` or an existing path is a file; `http(s)://host[/]` a base;
    /// `http(s)://host/path` a full URL; a bare `host[:port][/path]` a base over https (http for
    /// `localhost` and loopback addresses).
    pub(crate) fn parse(reference: &str) -> Result<CardRef, CliError> {
        let reference = reference.trim();
        if reference.is_empty() {
            return Err(CliError::usage("--agent-card is empty"));
        }
        if let Some(path) = reference.strip_prefix("file://") {
            return Ok(CardRef::File(path.to_owned()));
        }
        if let Some((scheme, rest)) = reference.split_once("://") {
            if !matches!(scheme, "http" | "https") {
                return Err(CliError::usage(format!(
                    "--agent-card {reference:?}: scheme {scheme:?} is not http, https or file"
                )));
            }
            let path = rest.split_once('/').map_or("", |(_, path)| path);
            return Ok(if path.is_empty() || path.ends_with(".well-known/agent-card.json") {
                CardRef::Base(reference.to_owned())
            } else {
                CardRef::Url(reference.to_owned())
            });
        }
        if Path::new(reference).exists() || reference.ends_with(".json") || reference.starts_with(['.', '/'])
        {
            return Ok(CardRef::File(reference.to_owned()));
        }
        let host = reference.split(['/', ':']).next().unwrap_or_default();
        let local = host == "localhost" || host.starts_with("127.") || reference.starts_with("[::1]");
        let scheme = if local { "http" } else { "https" };
        Ok(CardRef::Base(format!("{scheme}://{reference}")))
    }
}

/// An agent ready to be called: its client and what the CLI needs around it.
#[derive(Debug)]
pub(crate) struct Agent {
    /// The negotiated client.
    pub(crate) client: Client,
    /// The reference as given, for resume hints.
    pub(crate) reference: String,
    /// Whether the caller supplied credentials.
    pub(crate) credentials: bool,
}

impl Agent {
    /// Maps an error of a call to this agent.
    pub(crate) fn error(&self, error: &Error) -> CliError {
        let mapped = CliError::from_a2a(error, self.credentials);
        if let Error::ExtensionSupportRequired { uris } = error {
            let flags: Vec<String> = uris.iter().map(|u| format!("--extension {u}")).collect();
            return mapped.hint(format!(
                "the agent requires these extensions to be declared; if the request satisfies them: {}",
                flags.join(" ")
            ));
        }
        if mapped.code == "A2ACLI_ERR_CREDENTIALS_MISSING" {
            if let Some(hint) = credential_hint(self.client.card()) {
                return mapped.hint(hint);
            }
        }
        mapped
    }
}

/// Fetches or reads the card `--agent-card` names.
pub(crate) async fn resolve_card(global: &Global, out: &Out) -> Result<(String, AgentCard), CliError> {
    resolve_card_verified(global, out, None).await
}

/// [`resolve_card`], refusing a card none of whose signatures verifies with `keys` when given
/// (spec 8.4.3; the document is checked as read, before it becomes a 1.0 card).
pub(crate) async fn resolve_card_verified(
    global: &Global,
    out: &Out,
    keys: Option<&a2a_card_sign::TrustedKeys>,
) -> Result<(String, AgentCard), CliError> {
    let Some(reference) = global.agent_card.clone() else {
        return Err(CliError::usage(
            "no agent: pass -a/--agent-card <host|url|file> (or set A2ACLI_AGENT_CARD)",
        ));
    };
    let card_ref = CardRef::parse(&reference)?;
    out.debug(format_args!("agent card reference {reference:?} read as {card_ref:?}"));
    let started = std::time::Instant::now();
    let card = match &card_ref {
        CardRef::File(path) => read_card_file(path, keys)?,
        CardRef::Base(url) | CardRef::Url(url) => {
            let http =
                http_client(global, Some(global.timeout.unwrap_or(std::time::Duration::from_secs(30))))?;
            let mut builder = Client::builder().http_client(http);
            if let Some(keys) = keys {
                builder = builder.card_keys(keys.clone());
            }
            let fetched = match card_ref {
                CardRef::Url(_) => match builder.fetch_card_at(url).await {
                    // A URL with a path that holds no card may be an agent's base URL (a tenant's
                    // agent is at `/{tenant}/.well-known/agent-card.json`, docs/tenants.md): the
                    // well-known path under it is tried before giving up.
                    Err(Error::Transport { reason })
                        if reason.contains(": HTTP 404") && !url.ends_with(".json") =>
                    {
                        out.debug(format_args!("no card at {url}; trying the well-known path under it"));
                        builder.fetch_card(url).await.map_err(|_| Error::Transport { reason })
                    }
                    other => other,
                },
                _ => builder.fetch_card(url).await,
            };
            fetched.map_err(|error| card_error(&error, &reference))?
        }
    };
    out.debug(format_args!("agent card {:?} read in {:?}", card.name, started.elapsed()));
    Ok((reference, card))
}

fn read_card_file(path: &str, keys: Option<&a2a_card_sign::TrustedKeys>) -> Result<AgentCard, CliError> {
    let bytes = std::fs::read(path).map_err(|e| {
        CliError::local(
            "A2ACLI_ERR_CARD_NOT_FOUND",
            exit::UNREACHABLE,
            format!("cannot read the card file {path}: {e}"),
        )
    })?;
    let invalid = |why: String| {
        CliError::local("A2ACLI_ERR_CARD_INVALID", exit::FAILURE, format!("the card file {path} {why}"))
    };
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| invalid(format!("is not JSON: {e}")))?;
    if let Some(keys) = keys {
        a2a_card_sign::verify(&value, keys).map_err(|e| invalid(format!("is refused: {e} (spec 8.4.3)")))?;
    }
    AgentCard::from_v03(&value).map_err(|e| invalid(format!("is not a valid agent card: {e}")))
}

/// The trusted keys of `--verify-keys FILE`: a JWKS document or PEM public keys.
pub(crate) fn read_trusted_keys(path: &std::path::Path) -> Result<a2a_card_sign::TrustedKeys, CliError> {
    let bytes = std::fs::read(path)
        .map_err(|e| CliError::usage(format!("cannot read --verify-keys {}: {e}", path.display())))?;
    a2a_card_sign::TrustedKeys::from_file_contents(&bytes)
        .map_err(|e| CliError::usage(format!("--verify-keys {}: {e}", path.display())))
}

/// A failure to fetch a card: not found (HTTP status), unreachable (no connection), invalid, or
/// refused (authentication).
fn card_error(error: &Error, reference: &str) -> CliError {
    match error {
        Error::Transport { reason } if reason.contains(": HTTP ") => {
            CliError::local("A2ACLI_ERR_CARD_NOT_FOUND", exit::UNREACHABLE, error.to_string()).hint(format!(
                "no agent card at {reference:?}: give the agent's origin or the card's full URL"
            ))
        }
        Error::Transport { .. } => {
            CliError::local("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE, error.to_string())
                .hint(format!("is the agent running and reachable at {reference:?}?"))
        }
        Error::InvalidAgentResponse { .. } => {
            CliError::local("A2ACLI_ERR_CARD_INVALID", exit::FAILURE, error.to_string())
        }
        other => CliError::from_a2a(other, false),
    }
}

/// The HTTP client for the card and the HTTP bindings: certificate verification off only with
/// `--insecure`; `--ca` trusted and `--cert`/`--key` presented when the TLS handshake asks.
fn http_client(global: &Global, timeout: Option<std::time::Duration>) -> Result<reqwest::Client, CliError> {
    let mut builder = reqwest::Client::builder()
        .danger_accept_invalid_certs(global.insecure)
        .connection_verbose(global.debug);
    if let Some(ca) = ca_pem(global)? {
        let roots = reqwest::Certificate::from_pem_bundle(&ca)
            .map_err(|e| CliError::usage(format!("--ca: not a PEM certificate: {e}")))?;
        builder = builder.tls_certs_merge(roots);
    }
    if let Some(certificate) = client_certificate(global)? {
        let identity = certificate.to_reqwest().map_err(|e| CliError::usage(format!("--cert/--key: {e}")))?;
        builder = builder.identity(identity);
    }
    if let Some(timeout) = timeout {
        builder = builder.timeout(timeout);
    }
    builder.build().map_err(|e| CliError::internal(format!("cannot build the HTTP client: {e}")))
}

/// The `--insecure` warning (SPEC.md §6.5, §12.1): never silent, louder with credentials.
pub(crate) fn warn_insecure(global: &Global, out: &Out) {
    if global.insecure {
        out.warn("--insecure: TLS certificate verification is OFF; anyone on the path can impersonate the agent (development only)");
        if global.bearer.is_some() || global.api_key.is_some() || global.basic.is_some() {
            out.warn("--insecure: your credentials are being sent over a connection whose certificate is NOT verified");
        }
    }
}

/// Builds the client for `card` with the caller's transport, version and credentials.
///
/// The first interface in negotiation order that accepts a connection is used (a2a-client's
/// `from_card_reachable`: only a connection is opened to check, no request is sent).
pub(crate) async fn connect(
    global: &Global,
    reference: String,
    card: &AgentCard,
    out: &Out,
) -> Result<Agent, CliError> {
    let version = match &global.a2a_version {
        None => ProtocolVersion::V1_0,
        Some(raw) => ProtocolVersion::resolve(Some(raw), &[ProtocolVersion::V1_0, ProtocolVersion::V0_3])
            .map_err(|_| {
                CliError::usage(format!(
                    "--a2a-version {raw:?} is not supported: use 1.0 (or 0.3 for legacy agents)"
                ))
            })?,
    };
    let params = service_params(global)?;
    let given = credentials(global, &reference, out)?;
    let credentials = !given.is_empty();
    let mut builder = Client::builder();
    if global.insecure || global.debug || global.ca.is_some() || global.cert.is_some() {
        builder = builder.http_client(http_client(global, None)?);
    }
    if let Some(ca) = ca_pem(global)? {
        // gRPC's own TLS connection (the HTTP client above has it already).
        builder = builder.root_certificate(ca);
    }
    if global.debug {
        // gRPC messages in the wire log (reqwest's shows the HTTP bindings').
        builder = builder.wrap_binding(crate::wire::GrpcLog::wrap);
    }
    let builder = builder
        .protocol_version(version)
        .bindings(binding_order(&global.transport, card))
        .service_params(params.clone())
        .credentials(given.clone());
    let check =
        global.timeout.unwrap_or(std::time::Duration::from_secs(10)).min(std::time::Duration::from_secs(10));
    let client = builder.from_card_reachable(card, check).await.map_err(|error| {
        let offered: Vec<String> = card
            .supported_interfaces
            .iter()
            .map(|i| format!("{} {} at {}", i.protocol_binding, i.protocol_version, i.url))
            .collect();
        CliError::from_a2a(&error, credentials).hint(format!(
            "the card offers: {}; choose with --transport and --a2a-version",
            if offered.is_empty() { "no interface".to_owned() } else { offered.join(", ") }
        ))
    })?;
    out.debug(format_args!("selected interface: {}", client.selected()));
    for (name, value) in params.iter() {
        out.debug(format_args!("service parameter {name}: {}", redact(name, value)));
    }
    let presentation = client.presentation();
    let unaccepted = presentation.unaccepted();
    for (kind, name, value) in [
        (CredentialKind::Bearer, "authorization", global.bearer.as_deref()),
        (CredentialKind::ApiKey, "api key", global.api_key.as_deref()),
        (CredentialKind::Basic, "authorization", global.basic.as_deref()),
    ] {
        let Some(value) = value else { continue };
        let sent = if unaccepted.contains(&kind) {
            format!(" not sent: the card declares no scheme that accepts a {kind} (SPEC.md §12.4)")
        } else {
            String::new()
        };
        out.debug(format_args!("service parameter {name}: {}{sent}", redact("authorization", value)));
    }
    if !presentation.schemes().is_empty() {
        out.debug(format_args!(
            "credentials presented as the card's schemes: {}",
            presentation.schemes().join(", ")
        ));
    }
    for unmet in client.unmet_security() {
        out.debug(format_args!("security requirement not satisfied: {unmet}"));
    }
    Ok(Agent { client, reference, credentials })
}

/// `auth login`'s token for a reference, read from its file at each call (a later `auth login`
/// is picked up; asked to refresh after a refusal, it reads the file again).
struct StoredToken {
    reference: String,
}

#[async_trait::async_trait]
impl TokenSource for StoredToken {
    async fn token(&self, _refresh: bool) -> a2a_core::Result<String> {
        crate::auth::stored_token(&self.reference).ok_or_else(|| Error::Unauthenticated {
            reason: format!(
                "the token `auth login` kept for {:?} has expired or was removed: run `a2a-cli auth login` again",
                self.reference
            ),
        })
    }
}

/// The caller's credentials (SPEC.md §12.1, §12.3): `--bearer` (else the token `auth login`
/// kept for this reference), `--api-key`, `--basic`, `--cert`/`--key`. Presented to the agent
/// by a2a-client as its card declares.
fn credentials(global: &Global, reference: &str, out: &Out) -> Result<Credentials, CliError> {
    let mut credentials = Credentials::new();
    if let Some(token) = &global.bearer {
        credentials = credentials.bearer(token.clone());
    } else if let Some(token) = crate::auth::stored_token(reference) {
        crate::wire::secret(&token);
        // `auth login`'s token for this reference (an explicit --bearer wins).
        out.debug(format_args!("using the token `auth login` kept for {reference:?}"));
        credentials = credentials.token_source(StoredToken { reference: reference.to_owned() });
    }
    if let Some(key) = &global.api_key {
        credentials = credentials.api_key(key.clone());
    }
    if let Some(basic) = &global.basic {
        let Some((user, password)) = basic.split_once(':') else {
            return Err(CliError::usage("--basic wants USER:PASSWORD"));
        };
        crate::wire::secret(password);
        credentials = credentials.basic(user, password);
    }
    if let Some(certificate) = client_certificate(global)? {
        credentials = credentials.client_certificate(certificate);
    }
    Ok(credentials)
}

/// `--cert` and `--key`, read.
fn client_certificate(global: &Global) -> Result<Option<ClientCertificate>, CliError> {
    let (Some(cert), Some(key)) = (&global.cert, &global.key) else { return Ok(None) };
    let read = |flag: &str, path: &std::path::Path| {
        std::fs::read(path)
            .map_err(|e| CliError::usage(format!("cannot read {flag} {}: {e}", path.display())))
    };
    Ok(Some(ClientCertificate::from_pem(read("--cert", cert)?, read("--key", key)?)))
}

/// `--ca`, read.
fn ca_pem(global: &Global) -> Result<Option<Vec<u8>>, CliError> {
    let Some(path) = &global.ca else { return Ok(None) };
    std::fs::read(path)
        .map(Some)
        .map_err(|e| CliError::usage(format!("cannot read --ca {}: {e}", path.display())))
}

/// The caller's bindings first, then the rest in the card's order (SPEC.md §13.1: a preferred
/// binding the card lacks is skipped and the card's order applies).
fn binding_order(preferred: &[Transport], card: &AgentCard) -> Vec<Binding> {
    let mut order: Vec<Binding> = preferred
        .iter()
        .map(|t| match t {
            Transport::Jsonrpc => Binding::JsonRpc,
            Transport::HttpJson => Binding::Rest,
            Transport::Grpc => Binding::Grpc,
        })
        .collect();
    let from_card =
        card.supported_interfaces.iter().filter_map(|i| Binding::from_protocol_binding(&i.protocol_binding));
    for binding in from_card.chain(Binding::ALL) {
        if !order.contains(&binding) {
            order.push(binding);
        }
    }
    order
}

/// The service parameters of every call: `--svc-param` and `--extension` (credentials are
/// a2a-client's, [`credentials`]).
fn service_params(global: &Global) -> Result<ServiceParams, CliError> {
    let mut params = ServiceParams::new();
    for raw in &global.svc_param {
        let Some((name, value)) = raw.split_once(':').filter(|(name, _)| !name.trim().is_empty()) else {
            return Err(CliError::usage(format!("--svc-param {raw:?} is not name:value")));
        };
        params.insert(name.trim(), value.trim());
    }
    if !global.extension.is_empty() {
        params.insert(a2a_core::context::EXTENSIONS_PARAM, global.extension.join(","));
    }
    Ok(params)
}

/// Refuses to send a credential the card declares no scheme for (SPEC.md §12.4: the extended
/// card is fetched only through a scheme the public card advertises), as a2a-client judges it
/// (`Presentation::unaccepted`: it would not send it anyway; this says so before the call).
pub(crate) fn check_credentials_declared(global: &Global, card: &AgentCard) -> Result<(), CliError> {
    let mut given = Credentials::new();
    if global.bearer.is_some() {
        given = given.bearer("");
    }
    if global.api_key.is_some() {
        given = given.api_key("");
    }
    if global.basic.is_some() {
        given = given.basic("", "");
    }
    let unaccepted = given.presentation(card, Binding::JsonRpc).unaccepted().to_vec();
    if let Some(kind) = unaccepted.first() {
        return Err(CliError::usage(format!(
            "not sending the {kind} to the agent: its card declares no security scheme that accepts one (SPEC.md §12.4)"
        ))
        .hint("drop the credential, or check the agent's schemes with `a2a-cli card get`"));
    }
    Ok(())
}

/// What the card says about credentials, for a hint.
fn credential_hint(card: &AgentCard) -> Option<String> {
    let schemes: Vec<String> = card
        .security_schemes
        .iter()
        .map(|(name, s)| match &s.scheme {
            Some(Scheme::HttpAuthSecurityScheme(h)) if h.scheme.eq_ignore_ascii_case("bearer") => {
                format!("{name} (bearer: --bearer or A2ACLI_BEARER)")
            }
            Some(Scheme::ApiKeySecurityScheme(k)) => {
                format!("{name} (API key in {} {:?}: --api-key or A2ACLI_API_KEY)", k.location, k.name)
            }
            Some(Scheme::HttpAuthSecurityScheme(h)) if h.scheme.eq_ignore_ascii_case("basic") => {
                format!("{name} (HTTP Basic: --basic USER:PASSWORD or A2ACLI_BASIC)")
            }
            Some(Scheme::MtlsSecurityScheme(_)) => format!("{name} (mutual TLS: --cert FILE --key FILE)"),
            Some(other) => format!("{name} ({})", scheme_kind(other)),
            None => name.clone(),
        })
        .collect();
    (!schemes.is_empty()).then(|| format!("the agent declares: {}", schemes.join("; ")))
}

/// A scheme's kind, for people (a2a-client's wording).
pub(crate) fn scheme_kind(scheme: &Scheme) -> String {
    a2a_client::credentials::describe_scheme(scheme)
}

/// A parameter's value for diagnostics: credentials never appear (SPEC.md §12.1).
pub(crate) fn redact(name: &str, value: &str) -> String {
    let name = name.to_ascii_lowercase();
    let secret = a2a_core::context::is_credential_header(&name)
        || name.contains("key")
        || name.contains("token")
        || name.contains("secret")
        || name.contains("auth");
    if secret {
        format!("<redacted, {} bytes>", value.len())
    } else {
        value.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::AgentInterface;

    #[test]
    fn card_references() {
        assert_eq!(CardRef::parse("localhost:8080").unwrap(), CardRef::Base("http://localhost:8080".into()));
        assert_eq!(
            CardRef::parse("agent.example.com").unwrap(),
            CardRef::Base("https://agent.example.com".into())
        );
        assert_eq!(CardRef::parse("http://h:1/").unwrap(), CardRef::Base("http://h:1/".into()));
        assert_eq!(
            CardRef::parse("https://h/cards/a.json").unwrap(),
            CardRef::Url("https://h/cards/a.json".into())
        );
        assert_eq!(CardRef::parse("file:///tmp/c.json").unwrap(), CardRef::File("/tmp/c.json".into()));
        assert_eq!(CardRef::parse("./card.json").unwrap(), CardRef::File("./card.json".into()));
        assert_eq!(CardRef::parse("ftp://h").unwrap_err().exit, exit::USAGE);
        assert_eq!(CardRef::parse(" ").unwrap_err().exit, exit::USAGE);
    }

    #[test]
    fn preferred_bindings_first_then_the_card_s_order() {
        let card = AgentCard {
            supported_interfaces: ["GRPC", "HTTP+JSON"]
                .map(|b| AgentInterface { protocol_binding: b.into(), ..Default::default() })
                .to_vec(),
            ..Default::default()
        };
        assert_eq!(binding_order(&[], &card), [Binding::Grpc, Binding::Rest, Binding::JsonRpc]);
        assert_eq!(
            binding_order(&[Transport::Jsonrpc], &card),
            [Binding::JsonRpc, Binding::Grpc, Binding::Rest]
        );
    }

    #[test]
    fn credentials_are_redacted() {
        assert_eq!(redact("Authorization", "Bearer abc"), "<redacted, 10 bytes>");
        assert_eq!(redact("x-api-key", "k"), "<redacted, 1 bytes>");
        assert_eq!(redact("x-trace-id", "abc"), "abc");
    }
}
