//! [`Client`] (an [`A2aService`] over the negotiated interface) and [`ClientBuilder`] (fetching
//! the card, preferences, building).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use a2a_core::context::VERSION_PARAM;
use a2a_core::{A2aService, CallContext, Error, ProtocolVersion, Request, Response, Result, ServiceParams};
use a2a_proto::v1::{AgentCard, AgentInterface};
use a2a_v03::{ProtoFileBytes, V03};
use async_trait::async_trait;

use crate::binding::Binding;
use crate::card_cache::CardCache;
use crate::credentials::{
    challenges_in, describe_scheme, Credentials, MissingRequirement, Presentation, Refusal,
};
use crate::negotiate::{self, Selected};
use crate::resilience::RetryPolicy;
use crate::tenant::WithTenant;

/// The well-known path of the agent card (spec 8.2), appended to the base URL by
/// [`ClientBuilder::connect`]: `a2a_core::AGENT_CARD_PATH`.
pub use a2a_core::AGENT_CARD_PATH;

/// An A2A agent, reached over the interface negotiated from its card: an [`A2aService`] like the
/// binding clients it delegates to, so application code does not change with the binding or the
/// protocol version.
///
/// Requests whose `tenant` is empty carry the selected interface's tenant, if it declares one
/// (spec 8.3.2); the `A2A-Version` sent is always the negotiated version, whatever the
/// [`CallContext`] says; the builder's [default parameters](ClientBuilder::service_params)
/// (credentials, extensions, any service parameter) go with every call on every binding, under
/// the call's own. Cloning is cheap (the binding client is shared).
#[derive(Clone)]
pub struct Client {
    inner: Arc<dyn A2aService>,
    selected: Selected,
    card: Arc<AgentCard>,
    defaults: Arc<ServiceParams>,
    pub(crate) retry: RetryPolicy,
    /// [`ClientBuilder::card_keys`], and the HTTP client for trusted `jku` key sets: the
    /// extended card is verified like the public one.
    card_keys: Option<(Arc<CardKeys>, reqwest::Client)>,
    /// How [`ClientBuilder::credentials`] are presented to this agent.
    presentation: Arc<Presentation>,
}

impl Client {
    /// A builder with the defaults: every compiled-in binding, in the card's order; 1.0
    /// preferred over 0.3; a fresh `reqwest::Client`.
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Fetches the card at `{base_url}/.well-known/agent-card.json` and negotiates with the
    /// builder's defaults: `Client::builder().connect(base_url)`.
    pub async fn connect(base_url: impl AsRef<str>) -> Result<Client> {
        Client::builder().connect(base_url).await
    }

    /// The interface this client talks to: binding, protocol version, URL, tenant.
    pub fn selected(&self) -> &Selected {
        &self.selected
    }

    /// The agent card the client was built from (as read: a 0.3 card in its 1.0 form).
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// `tenant`, or the selected interface's when `tenant` is empty (spec 8.3.2).
    fn tenant(&self, tenant: &mut String) {
        if tenant.is_empty() {
            if let Some(selected) = self.selected.tenant() {
                selected.clone_into(tenant);
            }
        }
    }

    /// How the builder's [credentials](ClientBuilder::credentials) are presented to this agent
    /// over the selected binding: the card's schemes used, the requirements left unmet, the
    /// credentials never sent (see [`crate::credentials`]).
    pub fn presentation(&self) -> &Presentation {
        &self.presentation
    }

    /// The card's security requirements the credentials do not satisfy, each with the schemes it
    /// lacks; empty when one is satisfied or the card requires none. Calls are made anyway (the
    /// agent decides, spec 7.4): check this before calling to fail early, or read it with a
    /// refusal ([`refusal`](Self::refusal)).
    pub fn unmet_security(&self) -> &[MissingRequirement] {
        self.presentation.unmet()
    }

    /// `error` read as the agent's refusal of a call as unauthenticated (HTTP 401, gRPC
    /// `UNAUTHENTICATED`, JSON-RPC -32010): the challenges of its `WWW-Authenticate` headers, the
    /// card's schemes and what the credentials lack. `None` for any other error.
    pub fn refusal(&self, error: &Error) -> Option<Refusal> {
        let Error::Unauthenticated { reason } = error else { return None };
        let mut schemes: Vec<(String, String)> = self
            .card
            .security_schemes
            .iter()
            .map(|(name, s)| {
                (name.clone(), s.scheme.as_ref().map_or_else(|| "unknown".to_owned(), describe_scheme))
            })
            .collect();
        schemes.sort();
        Some(Refusal {
            reason: reason.clone(),
            challenges: challenges_in(reason),
            schemes,
            unmet: self.presentation.unmet().to_vec(),
        })
    }

    /// `ctx` as sent ([`ctx`](Self::ctx)) with the credentials under its own parameters;
    /// `refresh`: a new token from the token source.
    async fn with_credentials(&self, ctx: &CallContext, refresh: bool) -> Result<CallContext> {
        let mut ctx = self.ctx(ctx).into_owned();
        if self.presentation.has_params() {
            self.presentation.apply(&mut ctx.params, refresh).await?;
        }
        Ok(ctx)
    }

    /// Runs `call` with the credentials; when the agent refuses it as unauthenticated and the
    /// bearer token comes from a [`TokenSource`](crate::TokenSource) (and the call did not bring
    /// its own `authorization`), once more with a refreshed token. A refused call was not
    /// processed, so repeating it is safe whatever the operation; a second refusal is returned.
    async fn authed<T, F, Fut>(&self, ctx: &CallContext, call: F) -> Result<T>
    where
        F: Fn(CallContext) -> Fut,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let result = call(self.with_credentials(ctx, false).await?).await;
        match result {
            Err(Error::Unauthenticated { .. })
                if self.presentation.refreshable() && ctx.params.get("authorization").is_none() =>
            {
                call(self.with_credentials(ctx, true).await?).await
            }
            other => other,
        }
    }

    /// The service parameters sent with every call (see
    /// [`ClientBuilder::service_params`]).
    pub fn service_params(&self) -> &ServiceParams {
        &self.defaults
    }

    /// `ctx` with the builder's default parameters under its own, asking for the negotiated
    /// version: a 1.0 client must not send a caller's `A2A-Version: 0.3` with 1.0 requests (the
    /// 0.3 clients set 0.3 themselves).
    fn ctx<'a>(&self, ctx: &'a CallContext) -> Cow<'a, CallContext> {
        let version = self.selected.protocol_version();
        let asked = ctx.params.version().map(|v| ProtocolVersion::resolve(Some(v), &[version]));
        let fix_version = version == ProtocolVersion::V1_0 && matches!(asked, Some(Err(_)));
        let missing_default = self.defaults.iter().any(|(name, _)| ctx.params.get(name).is_none());
        if !fix_version && !missing_default {
            return Cow::Borrowed(ctx);
        }
        let mut ctx = ctx.clone();
        for (name, value) in self.defaults.iter() {
            if ctx.params.get(name).is_none() {
                ctx.params.insert(name, value);
            }
        }
        if fix_version {
            ctx.params.insert(VERSION_PARAM, version.as_str());
        }
        Cow::Owned(ctx)
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("selected", &self.selected)
            .field("agent", &self.card.name)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Client`]: from a card ([`from_card`](Self::from_card)) or from an agent's base URL
/// ([`connect`](Self::connect)), with the caller's preferences for negotiation (see
/// [`negotiate`](crate::negotiate)). One builder can build clients for many agents.
#[derive(Debug, Clone, Default)]
pub struct ClientBuilder {
    bindings: Option<Vec<Binding>>,
    version: Option<ProtocolVersion>,
    http: Option<reqwest::Client>,
    params: ServiceParams,
    retry: RetryPolicy,
    cache: Option<CardCache>,
    file_bytes: ProtoFileBytes,
    card_keys: Option<Arc<CardKeys>>,
    credentials: Credentials,
    /// Extra trusted CA certificates (PEM), [`ClientBuilder::root_certificate`].
    roots: Vec<Vec<u8>>,
    wrap: Option<WrapBinding>,
}

/// A decorator of binding clients ([`ClientBuilder::wrap_binding`]).
type WrapFn = dyn Fn(Arc<dyn A2aService>, &Selected) -> Arc<dyn A2aService> + Send + Sync;

/// What [`ClientBuilder::wrap_binding`] configured.
#[derive(Clone)]
struct WrapBinding(Arc<WrapFn>);

impl fmt::Debug for WrapBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("WrapBinding(..)")
    }
}

/// Verifies the card document `card` with `keys` (spec 8.4.3), adding the key sets of its `jku`s
/// under a trusted prefix (fetched with `http`); why not, as text.
async fn verify_card(
    keys: &CardKeys,
    http: &reqwest::Client,
    card: &serde_json::Value,
) -> Result<(), String> {
    let mut trusted = keys.keys.clone();
    for jku in a2a_card_sign::jku_urls(card) {
        if !keys.jku_prefixes.iter().any(|prefix| jku.starts_with(prefix.as_str())) {
            continue;
        }
        let failed = |reason: String| format!("fetching its jku {jku}: {reason}");
        let response = http.get(&jku).send().await.map_err(|e| failed(a2a_core::error::error_chain(&e)))?;
        if !response.status().is_success() {
            return Err(failed(format!("HTTP {}", response.status())));
        }
        let body = response.bytes().await.map_err(|e| failed(a2a_core::error::error_chain(&e)))?;
        trusted = trusted.with_jwks(&body).map_err(|e| failed(e.to_string()))?;
    }
    a2a_card_sign::verify(card, &trusted).map(drop).map_err(|e| format!("{e} (spec 8.4.3)"))
}

/// What [`ClientBuilder::card_keys`] configured: the keys a fetched card must be signed with.
#[derive(Debug)]
struct CardKeys {
    keys: a2a_card_sign::TrustedKeys,
    /// URL prefixes of `jku` key sets the caller chose to trust ([`ClientBuilder::trust_jku`]).
    jku_prefixes: Vec<String>,
}

impl ClientBuilder {
    /// The bindings the client may use, most preferred first. Bindings not in the list are never
    /// used; among the interfaces of the preferred version, this order ranks before the card's.
    ///
    /// Default: every binding compiled in (features `jsonrpc`, `rest`, `grpc`), ranked by the
    /// card's own order. That default follows spec 8.3.2: the card lists its interfaces in the
    /// agent's preference order and clients "MUST prefer earlier entries when multiple options are
    /// supported"; a client-side ranking (say JSON-RPC first) would override the agent without a
    /// reason the agent can see. Give an order when you have one (a proxy that only passes HTTP/1,
    /// a gRPC-only network).
    #[must_use]
    pub fn bindings(self, bindings: impl IntoIterator<Item = Binding>) -> Self {
        Self { bindings: Some(bindings.into_iter().collect()), ..self }
    }

    /// Pins the protocol version: only interfaces of `version` are used, and an agent that offers
    /// none is an error naming what it offers (spec 3.6.3: clients that need a version "avoid
    /// automatic fallback to older versions"). Default: 1.0 if offered, else 0.3.
    #[must_use]
    pub fn protocol_version(self, version: ProtocolVersion) -> Self {
        Self { version: Some(version), ..self }
    }

    /// Uses `http` to fetch the card and for the JSON-RPC and REST bindings (timeouts, proxies,
    /// TLS roots, default headers such as `Authorization`). gRPC uses its own connection.
    #[must_use]
    pub fn http_client(self, http: reqwest::Client) -> Self {
        Self { http: Some(http), ..self }
    }

    /// Service parameters sent with every call of the clients this builder makes, on every
    /// binding (HTTP headers for JSON-RPC and REST, metadata for gRPC): the one place for a
    /// client's defaults, e.g. `A2A-Extensions`. Credentials belong in
    /// [`credentials`](Self::credentials), which presents them as the card declares; a raw
    /// `authorization` given here is sent to every agent as it is. A call's
    /// own [`CallContext`] parameter of the same name wins. `A2A-Version` is always the
    /// negotiated version whatever is given here. They are not sent when fetching the card.
    #[must_use]
    pub fn service_params(self, params: ServiceParams) -> Self {
        Self { params, ..self }
    }

    /// The caller's credentials, presented to each agent as its card declares (the schemes of
    /// its first `securityRequirements` entry they satisfy; never as a scheme the card does not
    /// declare; see [`crate::credentials`]) on every call of every binding, the extended card
    /// included. The public card is fetched without them. A client certificate is configured on
    /// the TLS connections of every binding (TLS presents it only when the server asks); when
    /// [`http_client`](Self::http_client) is given, add it to that client yourself
    /// ([`ClientCertificate::to_reqwest`](crate::ClientCertificate::to_reqwest)): a2a-client
    /// then configures it for gRPC only.
    #[must_use]
    pub fn credentials(self, credentials: Credentials) -> Self {
        Self { credentials, ..self }
    }

    /// Also trusts the CA certificate `pem` (a private CA) for the card and every binding, on top
    /// of the system's roots (feature `tls`). When [`http_client`](Self::http_client) is given,
    /// add it to that client yourself: a2a-client then uses it for gRPC only.
    #[must_use]
    pub fn root_certificate(mut self, pem: impl Into<Vec<u8>>) -> Self {
        self.roots.push(pem.into());
        self
    }

    /// The HTTP client for the card and the HTTP bindings: the caller's, else one with the
    /// client certificate and extra roots when there are any, else a default one.
    fn http(&self) -> Result<reqwest::Client> {
        if let Some(http) = &self.http {
            return Ok(http.clone());
        }
        if self.credentials.certificate().is_none() && self.roots.is_empty() {
            return Ok(reqwest::Client::default());
        }
        self.tls_http()
    }

    #[cfg(feature = "tls")]
    fn tls_http(&self) -> Result<reqwest::Client> {
        let mut builder = reqwest::Client::builder();
        if !self.roots.is_empty() {
            let mut roots = Vec::new();
            for pem in &self.roots {
                roots.extend(reqwest::Certificate::from_pem_bundle(pem).map_err(|e| {
                    Error::InvalidRequest {
                        reason: format!(
                            "a root certificate is not PEM: {}",
                            a2a_core::error::error_chain(&e)
                        ),
                    }
                })?);
            }
            builder = builder.tls_certs_merge(roots);
        }
        if let Some(certificate) = self.credentials.certificate() {
            builder = builder.identity(certificate.to_reqwest()?);
        }
        builder.build().map_err(|e| Error::Transport {
            reason: format!("building the HTTPS client: {}", a2a_core::error::error_chain(&e)),
        })
    }

    #[cfg(not(feature = "tls"))]
    fn tls_http(&self) -> Result<reqwest::Client> {
        Err(Error::Transport {
            reason: "a client certificate or root certificate needs a2a-client's `tls` feature".into(),
        })
    }

    /// Keeps the cards this builder fetches in `cache`, per their HTTP caching headers (spec
    /// 8.6; see [`CardCache`]): a fresh card is not fetched again, a stale one is revalidated
    /// with its `ETag` / `Last-Modified`. Default: no cache (every fetch is a request).
    #[must_use]
    pub fn card_cache(self, cache: CardCache) -> Self {
        Self { cache: Some(cache), ..self }
    }

    /// Requires every card this builder fetches ([`fetch_card`](Self::fetch_card),
    /// [`connect`](Self::connect)) to carry a signature that verifies with one of `keys` (spec
    /// 8.4.3): a JWKS document or static PEM public keys ([`a2a_card_sign::TrustedKeys`]). A card
    /// without one is refused with [`Error::InvalidAgentResponse`] naming why each signature was
    /// rejected. The signature's `jku` is not followed unless [`trust_jku`](Self::trust_jku)
    /// allows it. Cards given to [`from_card`](Self::from_card) are the caller's: not checked. The
    /// clients built verify the extended card (`get_extended_agent_card`) the same way.
    ///
    /// With keys, the [`card_cache`](Self::card_cache) is not used: a cache may be shared with a
    /// builder that does not verify, and a card is verified as fetched.
    #[must_use]
    pub fn card_keys(mut self, keys: a2a_card_sign::TrustedKeys) -> Self {
        let jku_prefixes = self.card_keys.as_ref().map(|k| k.jku_prefixes.clone()).unwrap_or_default();
        self.card_keys = Some(Arc::new(CardKeys { keys, jku_prefixes }));
        self
    }

    /// With [`card_keys`](Self::card_keys): also trusts the key set at a signature's `jku` when
    /// the URL starts with one of `prefixes` (e.g. `https://keys.example.com/`), fetched with this
    /// builder's HTTP client. Never by default: a `jku` is chosen by whoever signed the card, so
    /// trusting any `jku` would accept a card signed by anyone. Without `card_keys`, it turns
    /// verification on with the `jku` key sets alone.
    #[must_use]
    pub fn trust_jku(mut self, prefixes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let keys = self.card_keys.as_ref().map(|k| k.keys.clone()).unwrap_or_default();
        let jku_prefixes = prefixes.into_iter().map(Into::into).collect();
        self.card_keys = Some(Arc::new(CardKeys { keys, jku_prefixes }));
        self
    }

    /// Over a 0.3 gRPC or HTTP+JSON interface, what file parts carry in the 0.3 proto's
    /// `FilePart.file_with_bytes` (`fileWithBytes`), where the 0.3 SDKs disagree:
    ///
    /// - [`ProtoFileBytes::Bytes`] (default): the file's bytes, as the 0.3 proto declares the
    ///   field and @a2a-js/sdk 0.3 (and our server) read it;
    /// - [`ProtoFileBytes::Base64Text`]: the UTF-8 of their base64 text, as a2a-sdk (Python) 0.3.x
    ///   reads it. Choose it for agents built with a2a-sdk 0.3: they refuse a file sent as bytes
    ///   that is not UTF-8 (`decode('utf-8')` fails) and misread any other. A reader of the
    ///   bytes (@a2a-js/sdk) then gets the base64 text as the file; our server reads both.
    ///
    /// There is no automatic choice: nothing in a 0.3 agent card says which SDK serves it.
    /// JSON-RPC and 1.0 interfaces are not affected (every SDK reads their base64 alike), and
    /// replies are read in either encoding whatever this says (`a2a_v03::file_bytes` has the
    /// rule and its one ambiguity).
    #[must_use]
    pub fn v03_file_bytes(self, encoding: ProtoFileBytes) -> Self {
        Self { file_bytes: encoding, ..self }
    }

    /// How idempotent operations are retried after a transport failure, and how
    /// [`Client::follow_task`] reconnects (see [`RetryPolicy`]). Default:
    /// [`RetryPolicy::default`] (3 attempts); [`RetryPolicy::none`] turns retries off.
    #[must_use]
    pub fn retry(self, policy: RetryPolicy) -> Self {
        Self { retry: policy, ..self }
    }

    /// The interface this builder would use for `card`, without building anything
    /// (see [`negotiate`](crate::negotiate)).
    ///
    /// # Errors
    /// [`Error::UnsupportedOperation`] when no interface is usable, naming every interface the
    /// card offers.
    pub fn select(&self, card: &AgentCard) -> Result<Selected> {
        negotiate::select(card, self.bindings.as_deref(), self.version)
    }

    /// A client for the agent `card` describes (a 1.0 card; read a 0.3 or union card JSON with
    /// [`AgentCard::from_v03`](a2a_v03::V03::from_v03) first, as [`connect`](Self::connect)
    /// does). Nothing is sent yet: connections are made by the first call.
    ///
    /// A gRPC client is built on the current Tokio runtime, so call this inside one when gRPC
    /// may be selected.
    ///
    /// # Errors
    /// - [`Error::UnsupportedOperation`]: no usable interface ([`select`](Self::select));
    /// - [`Error::InvalidAgentResponse`]: the selected interface's URL is not usable (not an
    ///   `http(s)` URL for JSON-RPC and REST, not an address for gRPC);
    /// - [`Error::Transport`]: an `https` interface while the `tls` feature is off, or gRPC
    ///   outside a Tokio runtime.
    pub fn from_card(&self, card: &AgentCard) -> Result<Client> {
        let selected = self.select(card)?;
        self.client(card, selected)
    }

    /// The client for `card` over `selected`.
    fn client(&self, card: &AgentCard, selected: Selected) -> Result<Client> {
        let presentation = self.credentials.presentation(card, selected.binding());
        let inner = self.build(&selected, &presentation, grpc_over_tls(card, &selected))?;
        Ok(Client {
            inner,
            selected,
            card: Arc::new(card.clone()),
            defaults: Arc::new(self.params.clone()),
            retry: self.retry,
            card_keys: self.verifier(),
            presentation: Arc::new(presentation),
        })
    }

    /// Every interface this builder could use for `card`, best first: [`select`](Self::select)
    /// takes the first; [`from_card_reachable`](Self::from_card_reachable) the first that
    /// accepts a connection.
    ///
    /// # Errors
    /// As [`select`](Self::select).
    pub fn candidates(&self, card: &AgentCard) -> Result<Vec<Selected>> {
        negotiate::ranked(card, self.bindings.as_deref(), self.version)
    }

    /// A client for the first of the card's usable interfaces, in negotiation order
    /// ([`candidates`](Self::candidates)), that accepts a TCP connection within `timeout`: an
    /// agent whose preferred interface is down is reached over the next compatible one.
    ///
    /// Only a connection is opened (and closed) to check: no request is sent, so falling back
    /// never repeats a request the agent may have processed. Once built, the client stays on its
    /// interface; a later failure is the call's error.
    ///
    /// # Errors
    /// Those of [`from_card`](Self::from_card); [`Error::Transport`] naming every interface tried
    /// when none accepts a connection.
    pub async fn from_card_reachable(
        &self,
        card: &AgentCard,
        timeout: std::time::Duration,
    ) -> Result<Client> {
        let mut failures = Vec::new();
        for selected in self.candidates(card)? {
            match reachable(selected.url(), timeout).await {
                Ok(()) => return self.client(card, selected),
                Err(why) => failures.push(format!("{selected}: {why}")),
            }
        }
        Err(Error::Transport {
            reason: format!("no interface of the agent accepts a connection: {}", failures.join("; ")),
        })
    }

    /// Fetches the agent card at `{base_url}/.well-known/agent-card.json` (spec 8.2; a URL that
    /// already ends in that path is used as it is) and builds a client for it
    /// ([`from_card`](Self::from_card)). Any card is read: 1.0, 0.3, or the union of both.
    ///
    /// # Errors
    /// Those of [`fetch_card`](Self::fetch_card) and [`from_card`](Self::from_card).
    pub async fn connect(&self, base_url: impl AsRef<str>) -> Result<Client> {
        let card = self.fetch_card(base_url).await?;
        self.from_card(&card)
    }

    /// Fetches and reads the agent card at `{base_url}/.well-known/agent-card.json` (or at
    /// `base_url` if it already ends in that path), in any form (1.0, 0.3, union).
    ///
    /// # Errors
    /// - [`Error::Transport`]: not an `http(s)` URL, no connection, an HTTP status other than
    ///   success (401 and 403 are [`Error::Unauthenticated`] and [`Error::PermissionDenied`]);
    /// - [`Error::InvalidAgentResponse`]: the body is not JSON or not an agent card, naming the
    ///   field.
    pub async fn fetch_card(&self, base_url: impl AsRef<str>) -> Result<AgentCard> {
        self.fetch_card_from(card_url(base_url.as_ref())?).await
    }

    /// Fetches and reads the agent card at exactly `url` (no well-known path appended: for a card
    /// published elsewhere), in any form (1.0, 0.3, union).
    ///
    /// # Errors
    /// As [`fetch_card`](Self::fetch_card); a `url` that is not `http(s)` is
    /// [`Error::Transport`].
    pub async fn fetch_card_at(&self, url: &str) -> Result<AgentCard> {
        let parsed = reqwest::Url::parse(url.trim())
            .map_err(|e| Error::Transport { reason: format!("{url:?} is not an agent card URL: {e}") })?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(Error::Transport {
                reason: format!(
                    "{url:?} is not an agent card URL: scheme {:?}, not http or https",
                    parsed.scheme()
                ),
            });
        }
        self.fetch_card_from(parsed).await
    }

    async fn fetch_card_from(&self, url: reqwest::Url) -> Result<AgentCard> {
        // Anonymous: no credential header or query parameter (a client certificate is presented
        // only if the TLS handshake asks for one).
        let http = self.http()?;
        let transport = |what: &str, error: &dyn std::error::Error| Error::Transport {
            reason: format!("{what} the agent card at {url}: {}", a2a_core::error::error_chain(error)),
        };
        // A card verified as fetched: not read from (or kept in) a cache others may fill.
        let cache = self.cache.as_ref().filter(|_| self.card_keys.is_none());
        let cached = cache.and_then(|cache| cache.get(url.as_str()));
        let mut request = http.get(url.clone()).header(reqwest::header::ACCEPT, "application/json");
        if let Some(entry) = &cached {
            if entry.is_fresh() {
                return Ok(entry.card.clone());
            }
            if let Some(etag) = &entry.etag {
                request = request.header(reqwest::header::IF_NONE_MATCH, etag);
            }
            if let Some(modified) = &entry.last_modified {
                request = request.header(reqwest::header::IF_MODIFIED_SINCE, modified);
            }
        }
        let response = request.send().await.map_err(|e| transport("fetching", &e))?;
        let status = response.status();
        if status == reqwest::StatusCode::NOT_MODIFIED {
            if let Some(card) = cache.and_then(|c| c.refresh(url.as_str(), response.headers())) {
                return Ok(card);
            }
        }
        let headers = response.headers().clone();
        if !status.is_success() {
            let reason = format!("fetching the agent card at {url}: HTTP {status}");
            return Err(match status.as_u16() {
                401 => Error::Unauthenticated { reason },
                403 => Error::PermissionDenied { reason },
                _ => Error::Transport { reason },
            });
        }
        let body = response.bytes().await.map_err(|e| transport("reading", &e))?;
        let invalid = |reason: String| Error::InvalidAgentResponse {
            reason: format!("the agent card at {url} {reason}"),
        };
        let value: serde_json::Value =
            serde_json::from_slice(&body).map_err(|e| invalid(format!("is not JSON: {e}")))?;
        if let Some(keys) = &self.card_keys {
            verify_card(keys, &http, &value).await.map_err(|why| invalid(format!("is refused: {why}")))?;
        }
        let card = AgentCard::from_v03(&value).map_err(|error| {
            let violations = error.field_violations();
            let what = if violations.is_empty() {
                error.to_string()
            } else {
                violations
                    .iter()
                    .map(|v| format!("{}: {}", v.field, v.description))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            invalid(format!("is not a valid agent card: {what}"))
        })?;
        if let Some(cache) = cache {
            cache.store(url.as_str(), &card, &headers);
        }
        Ok(card)
    }

    /// The card keys and HTTP client a [`Client`] keeps to verify the extended card.
    fn verifier(&self) -> Option<(Arc<CardKeys>, reqwest::Client)> {
        self.card_keys.as_ref().map(|keys| (Arc::clone(keys), self.http.clone().unwrap_or_default()))
    }

    /// Wraps the binding client of every [`Client`] built from here on, under the client's own
    /// behaviour (tenant, default service parameters, retries, resubscription): `wrap` sees
    /// each call the binding makes, with the call's final [`CallContext`] (whose parameters are
    /// the request's metadata) and the request as sent, and each response or event as received.
    /// For observation (a2a-cli's `--debug` logs gRPC messages this way) or a decorator of one's
    /// own; it must keep the [`A2aService`] contract.
    pub fn wrap_binding(
        mut self,
        wrap: impl Fn(Arc<dyn A2aService>, &Selected) -> Arc<dyn A2aService> + Send + Sync + 'static,
    ) -> Self {
        self.wrap = Some(WrapBinding(Arc::new(wrap)));
        self
    }

    /// The binding client for exactly `interface` (an interface of an agent's card, or one made
    /// by hand) speaking `version`: the one way this workspace builds a client for a given
    /// interface and version without negotiation (the conformance suite, the interop driver and
    /// the benchmarks call it).
    ///
    /// It is the raw client [`from_card`](Self::from_card) builds underneath a [`Client`]: this
    /// builder's [HTTP client](Self::http_client), [root certificates](Self::root_certificate)
    /// and client certificate ([`Credentials::certificate`]), [0.3 file bytes
    /// encoding](Self::v03_file_bytes) and [`wrap_binding`](Self::wrap_binding) apply; nothing
    /// else does: no negotiation (the binding is `interface.protocolBinding`, the version
    /// `version`, whatever `interface.protocolVersion` says), no retries, no [default
    /// parameters](Self::service_params), no credentials presented, and each call's
    /// [`CallContext`] reaches the binding unchanged (its `A2A-Version`, if it has one, is the one
    /// sent: spec 3.6 errors can be provoked on purpose).
    ///
    /// Requests whose `tenant` is empty carry `interface.tenant` on every binding (spec 8.3.2,
    /// [`WithTenant`](crate::WithTenant)); the decorator sits above `wrap_binding`, which sees the
    /// request as sent. A gRPC interface given as a bare `host:port` is plaintext (there is no
    /// card here to tell it is served over TLS): give `https://host:port` for TLS.
    ///
    /// A gRPC client is built on the current Tokio runtime, so call this inside one.
    ///
    /// # Errors
    /// - [`Error::UnsupportedOperation`]: `interface.protocolBinding` is not a standard binding,
    ///   or names one this build does not compile in; `version` is 0.3 and the `v03` feature is
    ///   off, or the interface has a tenant (0.3 requests have no `tenant` field to carry it);
    /// - [`Error::InvalidAgentResponse`]: the URL is not usable by the binding;
    /// - [`Error::Transport`]: an `https` URL while the `tls` feature is off, or gRPC outside a
    ///   Tokio runtime.
    pub fn binding_client(
        &self,
        interface: &AgentInterface,
        version: ProtocolVersion,
    ) -> Result<Arc<dyn A2aService>> {
        let Some(binding) = Binding::from_protocol_binding(&interface.protocol_binding) else {
            return Err(Error::UnsupportedOperation {
                reason: format!(
                    "the interface's protocolBinding {:?} is not a standard binding (JSONRPC, HTTP+JSON, GRPC)",
                    interface.protocol_binding
                ),
            });
        };
        if !crate::binding::is_available(binding) {
            return Err(Error::UnsupportedOperation {
                reason: format!("the {binding} binding is not compiled into a2a-client (its feature is off)"),
            });
        }
        if !crate::negotiate::SUPPORTED_VERSIONS.contains(&version) {
            return Err(Error::UnsupportedOperation {
                reason: format!("A2A {version} is not compiled into a2a-client (its `v03` feature is off)"),
            });
        }
        if version == ProtocolVersion::V0_3 && !interface.tenant.is_empty() {
            return Err(Error::UnsupportedOperation {
                reason: format!(
                    "the {binding} interface at {} has tenant {:?}, which A2A 0.3 cannot carry (spec 8.3.2)",
                    interface.url, interface.tenant
                ),
            });
        }
        let selected = Selected::chosen(binding, version, interface);
        let client = self.build(&selected, &Presentation::default(), false)?;
        Ok(match selected.tenant() {
            Some(tenant) => Arc::new(WithTenant::new(client, tenant)),
            None => client,
        })
    }

    /// The binding client for `selected`, wrapped by [`wrap_binding`](Self::wrap_binding).
    fn build(
        &self,
        selected: &Selected,
        presentation: &Presentation,
        grpc_tls: bool,
    ) -> Result<Arc<dyn A2aService>> {
        let binding = self.build_binding(selected, presentation, grpc_tls)?;
        Ok(match &self.wrap {
            Some(wrap) => (wrap.0)(binding, selected),
            None => binding,
        })
    }

    /// The binding client for `selected`.
    #[cfg_attr(not(any(feature = "jsonrpc", feature = "rest", feature = "grpc")), allow(unused_variables))]
    fn build_binding(
        &self,
        selected: &Selected,
        presentation: &Presentation,
        grpc_tls: bool,
    ) -> Result<Arc<dyn A2aService>> {
        let with_query;
        let url = if selected.binding() == Binding::Grpc && grpc_tls {
            with_query = format!("https://{}", selected.url());
            with_query.as_str()
        } else if presentation.query().is_empty() || selected.binding() == Binding::Grpc {
            selected.url()
        } else {
            // An API key in a query parameter (spec 4.5.2): on every request's URL.
            let mut parsed =
                reqwest::Url::parse(selected.url()).map_err(|e| Error::InvalidAgentResponse {
                    reason: format!("the agent card's interface URL {:?} is not a URL: {e}", selected.url()),
                })?;
            parsed.query_pairs_mut().extend_pairs(presentation.query());
            with_query = parsed.to_string();
            with_query.as_str()
        };
        let version = selected.protocol_version();
        let binding = selected.binding();
        let bad_url = |why: &str| Error::InvalidAgentResponse {
            reason: format!("the agent card's {binding} interface URL {url:?} {why}"),
        };
        if binding != Binding::Grpc {
            let parsed = reqwest::Url::parse(url).map_err(|e| bad_url(&format!("is not a URL: {e}")))?;
            match parsed.scheme() {
                "http" => {}
                "https" => needs_tls(selected)?,
                other => return Err(bad_url(&format!("has scheme {other:?}, not http or https"))),
            }
        }
        match binding {
            #[cfg(feature = "jsonrpc")]
            Binding::JsonRpc => {
                let client = a2a_jsonrpc::JsonRpcClient::new(url)
                    .with_protocol_version(version)
                    .with_http_client(self.http()?);
                Ok(Arc::new(client))
            }
            #[cfg(feature = "rest")]
            Binding::Rest => {
                let client = a2a_rest::RestClient::new(url)
                    .map_err(|e| bad_url(&format!("cannot carry REST routes: {e}")))?
                    .with_protocol_version(version)
                    .with_http_client(self.http()?);
                #[cfg(feature = "v03")]
                let client = client.with_v03_file_bytes(self.file_bytes);
                Ok(Arc::new(client))
            }
            #[cfg(feature = "grpc")]
            Binding::Grpc => {
                if tokio::runtime::Handle::try_current().is_err() {
                    return Err(Error::Transport {
                        reason: "a gRPC client is built on a Tokio runtime: call from_card inside one".into(),
                    });
                }
                #[cfg(feature = "tls")]
                let client = {
                    let identity = self.credentials.certificate().map(|c| (c.cert_pem(), c.key_pem()));
                    if identity.is_some() || !self.roots.is_empty() {
                        a2a_grpc::GrpcClient::connect_lazy_tls(url, &self.roots, identity)
                    } else {
                        a2a_grpc::GrpcClient::connect_lazy(url)
                    }
                };
                #[cfg(not(feature = "tls"))]
                let client = a2a_grpc::GrpcClient::connect_lazy(url);
                let client = client.map_err(|error| match error {
                    Error::Transport { reason } => Error::Transport {
                        reason: format!(
                            "the agent's GRPC interface {url}: {reason} (see a2a-client's `tls` feature)"
                        ),
                    },
                    other => other,
                })?;
                let client = client.with_protocol_version(version);
                #[cfg(feature = "v03")]
                let client = client.with_v03_file_bytes(self.file_bytes);
                Ok(Arc::new(client))
            }
            #[allow(unreachable_patterns)]
            other => Err(Error::internal(format!("{other} is not compiled in but was selected"))),
        }
    }
}

/// Whether the selected gRPC interface, a bare `host:port` (read as `http://` off port 443), is
/// served over TLS: another interface of the card is an `https` URL with the same host and port
/// (one port serving every binding over TLS, as the reference server does).
fn grpc_over_tls(card: &AgentCard, selected: &Selected) -> bool {
    if selected.binding() != Binding::Grpc || selected.url().contains("://") {
        return false;
    }
    let Ok(bare) = reqwest::Url::parse(&format!("https://{}", selected.url())) else { return false };
    card.supported_interfaces.iter().any(|interface| {
        reqwest::Url::parse(&interface.url).is_ok_and(|url| {
            url.scheme() == "https"
                && url.host_str() == bare.host_str()
                && url.port_or_known_default() == bare.port_or_known_default()
        })
    })
}

/// Whether a TCP connection to the host and port of `url` (a URL, or gRPC's bare `host:port`)
/// opens within `timeout`.
async fn reachable(url: &str, timeout: std::time::Duration) -> std::result::Result<(), String> {
    let parsed = if url.contains("://") {
        reqwest::Url::parse(url)
    } else {
        reqwest::Url::parse(&format!("http://{url}"))
    }
    .map_err(|e| format!("not a URL: {e}"))?;
    let host = parsed.host_str().ok_or("no host")?.trim_start_matches('[').trim_end_matches(']').to_owned();
    let port = parsed.port_or_known_default().ok_or("no port")?;
    match tokio::time::timeout(timeout, tokio::net::TcpStream::connect((host.as_str(), port))).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err(format!("no connection within {timeout:?}")),
    }
}

/// An error unless this build speaks HTTPS.
fn needs_tls(selected: &Selected) -> Result<()> {
    if cfg!(feature = "tls") {
        Ok(())
    } else {
        Err(Error::Transport {
            reason: format!(
                "the selected interface ({selected}) needs HTTPS: enable a2a-client's `tls` feature"
            ),
        })
    }
}

/// The URL of the agent card under `base`.
fn card_url(base: &str) -> Result<reqwest::Url> {
    let base = base.trim();
    let url = if base.ends_with(AGENT_CARD_PATH) {
        base.to_owned()
    } else {
        format!("{}{AGENT_CARD_PATH}", base.trim_end_matches('/'))
    };
    let invalid =
        |why: String| Error::Transport { reason: format!("{base:?} is not an agent's base URL: {why}") };
    let url = reqwest::Url::parse(&url).map_err(|e| invalid(e.to_string()))?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(invalid(format!("scheme {other:?}, not http or https"))),
    }
}

/// Every call: the interface's tenant filled in (spec 8.3.2), the credentials presented (and
/// refreshed once on a refusal), retries of the operations that only read
/// ([`Operation::is_read_only`](a2a_core::Operation::is_read_only), [`RetryPolicy`]), and the extended card verified like the
/// public one.
#[async_trait]
impl A2aService for Client {
    async fn call(&self, ctx: &CallContext, mut request: Request) -> Result<Response> {
        let operation = request.operation();
        self.tenant(request.tenant_mut());
        let request = &request;
        let response = self
            .authed(ctx, |ctx| async move {
                if operation.is_read_only() {
                    self.retry.run(|| self.inner.call(&ctx, request.clone())).await
                } else {
                    self.inner.call(&ctx, request.clone()).await
                }
            })
            .await?;
        if let (Response::AgentCard(card), Some((keys, http))) = (&response, &self.card_keys) {
            // As the binding delivered it: ProtoJSON, checked in its reconstructed form.
            let document = a2a_proto::json::to_value(card).map_err(|e| Error::InvalidAgentResponse {
                reason: format!("the extended agent card: {e}"),
            })?;
            verify_card(keys, http, &document).await.map_err(|why| Error::InvalidAgentResponse {
                reason: format!("the extended agent card is refused: {why}"),
            })?;
        }
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::AgentInterface;

    fn card(binding: &str, version: &str, url: &str, tenant: &str) -> AgentCard {
        AgentCard {
            name: "A".into(),
            supported_interfaces: vec![AgentInterface {
                url: url.into(),
                protocol_binding: binding.into(),
                tenant: tenant.into(),
                protocol_version: version.into(),
            }],
            ..Default::default()
        }
    }

    #[test]
    fn card_urls_append_the_well_known_path_once() {
        assert_eq!(card_url("http://h:1").unwrap().as_str(), "http://h:1/.well-known/agent-card.json");
        assert_eq!(card_url("http://h/a2a/").unwrap().as_str(), "http://h/a2a/.well-known/agent-card.json");
        let full = "https://h/.well-known/agent-card.json";
        assert_eq!(card_url(full).unwrap().as_str(), full);
        assert!(matches!(card_url("not a url"), Err(Error::Transport { .. })));
        assert!(matches!(card_url("ftp://h"), Err(Error::Transport { .. })));
    }

    #[tokio::test]
    async fn unusable_interface_urls_are_invalid_agent_responses() {
        for (binding, url) in [("JSONRPC", "not a url"), ("HTTP+JSON", "mailto:a@b"), ("GRPC", "::::")] {
            let error = Client::builder().from_card(&card(binding, "1.0", url, "")).unwrap_err();
            assert!(
                matches!(error, Error::InvalidAgentResponse { .. } | Error::Transport { .. }),
                "{binding}: {error:?}"
            );
            assert!(error.to_string().contains(url), "{binding}: {error}");
        }
    }

    #[cfg(not(feature = "tls"))]
    #[test]
    fn https_without_the_tls_feature_says_so() {
        let error = Client::builder().from_card(&card("JSONRPC", "1.0", "https://h/a2a", "")).unwrap_err();
        assert!(error.to_string().contains("`tls` feature"), "{error}");
    }

    #[cfg(feature = "grpc")]
    #[test]
    fn grpc_outside_a_runtime_is_an_error_not_a_panic() {
        let error = Client::builder().from_card(&card("GRPC", "1.0", "127.0.0.1:50051", "")).unwrap_err();
        assert!(error.to_string().contains("Tokio runtime"), "{error}");
    }

    #[test]
    fn the_context_asks_for_the_negotiated_version() {
        let client = Client::builder().from_card(&card("JSONRPC", "1.0", "http://h/", "t1")).unwrap();
        let ctx = CallContext::new(a2a_core::ServiceParams::new().with("A2A-Version", "0.3"));
        assert_eq!(client.ctx(&ctx).params.version(), Some("1.0"));
        let ctx = CallContext::v1();
        assert!(matches!(client.ctx(&ctx), Cow::Borrowed(_)));
        let mut tenant = String::new();
        client.tenant(&mut tenant);
        assert_eq!(tenant, "t1");
        let mut own = "mine".to_owned();
        client.tenant(&mut own);
        assert_eq!(own, "mine", "the caller's tenant is kept");
    }

    #[test]
    fn default_params_go_under_the_call_s_own() {
        let defaults = ServiceParams::new().with("Authorization", "Bearer a").with("x-api-key", "k");
        let client = Client::builder()
            .service_params(defaults)
            .from_card(&card("JSONRPC", "1.0", "http://h/", ""))
            .unwrap();
        let ctx = CallContext::new(ServiceParams::v1().with("authorization", "Bearer mine"));
        let sent = client.ctx(&ctx);
        assert_eq!(sent.params.get("authorization"), Some("Bearer mine"), "the call's own wins");
        assert_eq!(sent.params.get("X-API-KEY"), Some("k"));
        assert_eq!(sent.params.version(), Some("1.0"));
        assert_eq!(client.service_params().get("authorization"), Some("Bearer a"));
        let plain = Client::builder().from_card(&card("JSONRPC", "1.0", "http://h/", "")).unwrap();
        assert!(matches!(plain.ctx(&ctx), Cow::Borrowed(_)), "nothing to add: no copy");
    }
}
