//! HTTP Bearer JSON Web Tokens (RFC 6750, RFC 7519): `Authorization: Bearer <JWT>`, checked for
//! its signature (a static key, or the keys of a JWKS URL or of an OpenID Connect provider), its
//! algorithm (an allow-list: never `none`, never an HMAC algorithm with a public key or a public
//! key algorithm with a secret), issuer, audience, expiry and not-before (with a small leeway).
//! The principal is the token's `sub`.
//!
//! Nothing of a token is ever logged: a refusal is logged at debug level with a fixed reason
//! (`expired`, `bad signature`, ...).

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use a2a_core::Principal;
use a2a_proto::v1::o_auth_flows::Flow;
use a2a_proto::v1::{
    security_scheme, AuthorizationCodeOAuthFlow, ClientCredentialsOAuthFlow, HttpAuthSecurityScheme,
    OAuth2SecurityScheme, OAuthFlows, OpenIdConnectSecurityScheme, SecurityRequirement, SecurityScheme,
    StringList,
};
use axum::http::{request::Parts, HeaderValue};
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey, Validation};

use super::jwks::Jwks;
use super::{authorization, AuthLayer, Authenticator, Verdict};

/// Tokens longer than this are refused unread (a JWT is a few hundred bytes to a few KiB; HTTP/2
/// servers refuse header lists over 16 KiB before this runs).
const MAX_TOKEN_LEN: usize = 8 * 1024;

/// The default leeway on `exp` and `nbf`, for clocks a little apart.
const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// The shortest HMAC secret accepted: RFC 7518 3.2 wants a key at least as long as the hash.
const MIN_SECRET_LEN: usize = 32;

/// Why a [`Jwt`] authenticator could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum JwtError {
    /// The key file could not be read.
    #[error("reading the key {path}: {source}")]
    KeyFile {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The key is neither a usable PEM public key nor an HMAC secret.
    #[error("the key: {0}")]
    Key(String),
    /// The algorithm allow-list does not fit the key.
    #[error("the algorithms: {0}")]
    Algorithms(String),
    /// A URL (JWKS, issuer) is not an http(s) URL.
    #[error("{what}: {url:?} is not an http or https URL")]
    Url {
        /// Which URL.
        what: &'static str,
        /// The URL.
        url: String,
    },
    /// The JWKS could not be fetched or holds no usable key ([`Jwt::prefetch`]).
    #[error("the JWKS at {url}: {reason}")]
    Jwks {
        /// The JWKS URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
    /// The OpenID Connect discovery (or OAuth 2.0 metadata) failed.
    #[error("OpenID Connect discovery at {url}: {reason}")]
    Discovery {
        /// The discovery document's URL.
        url: String,
        /// What went wrong.
        reason: String,
    },
}

/// Where a token's verification key comes from.
enum Keys {
    /// One key, given by the operator.
    Static(DecodingKey),
    /// The keys a JWKS URL publishes (cached, refreshed on an unknown `kid`).
    Jwks(Jwks),
}

impl std::fmt::Debug for Keys {
    // Never the key: a `DecodingKey`'s own Debug prints an HMAC secret.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Keys::Static(key) => f.debug_tuple("Static").field(&key.family()).finish(),
            Keys::Jwks(jwks) => f.debug_tuple("Jwks").field(jwks).finish(),
        }
    }
}

/// How the card declares the scheme.
#[derive(Debug, Clone)]
enum Declared {
    /// An `httpAuthSecurityScheme` with scheme `Bearer`, bearer format `JWT`.
    Bearer,
    /// An `openIdConnectSecurityScheme` with the discovery document's URL.
    OpenIdConnect(String),
    /// An `oauth2SecurityScheme` with the metadata URL and a flow.
    OAuth2 {
        /// RFC 8414 metadata.
        metadata_url: String,
        /// The flow clients use to get a token.
        flow: Flow,
    },
}

/// Bearer JWT authentication (see the module docs); its [`layer`](Self::layer) goes to
/// [`ServerBuilder::layer`](crate::ServerBuilder::layer).
#[derive(Debug)]
pub struct Jwt {
    scheme: String,
    declared: Declared,
    keys: Keys,
    algorithms: Vec<Algorithm>,
    issuer: Option<String>,
    audience: Vec<String>,
    leeway: Duration,
    scopes: Vec<String>,
}

impl Jwt {
    fn with_keys(keys: Keys, algorithms: Vec<Algorithm>) -> Self {
        Jwt {
            scheme: "bearer".into(),
            declared: Declared::Bearer,
            keys,
            algorithms,
            issuer: None,
            audience: Vec::new(),
            leeway: DEFAULT_LEEWAY,
            scopes: Vec::new(),
        }
    }

    /// Tokens signed with an HMAC `secret` (HS256, HS384, HS512), at least 32 bytes long.
    ///
    /// # Errors
    /// [`JwtError::Key`] if the secret is shorter.
    pub fn hmac_secret(secret: &[u8]) -> Result<Self, JwtError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(JwtError::Key(format!(
                "an HMAC secret needs at least {MIN_SECRET_LEN} bytes (RFC 7518 3.2)"
            )));
        }
        Ok(Self::with_keys(
            Keys::Static(DecodingKey::from_secret(secret)),
            AlgorithmFamily::Hmac.algorithms().to_vec(),
        ))
    }

    /// Tokens signed with the private key of this PEM public key: RSA (RS*, PS*), EC (ES256,
    /// ES384) or Ed25519 (EdDSA).
    ///
    /// # Errors
    /// [`JwtError::Key`] if `pem` is none of these.
    pub fn public_key_pem(pem: &[u8]) -> Result<Self, JwtError> {
        let key = DecodingKey::from_rsa_pem(pem)
            .or_else(|_| DecodingKey::from_ec_pem(pem))
            .or_else(|_| DecodingKey::from_ed_pem(pem))
            .map_err(|_| JwtError::Key("not a PEM RSA, EC or Ed25519 public key".into()))?;
        let algorithms = key.family().algorithms().to_vec();
        Ok(Self::with_keys(Keys::Static(key), algorithms))
    }

    /// The key in the file at `path` (`--jwt-key`): a PEM public key if it is PEM
    /// (`-----BEGIN`), otherwise an HMAC secret, the file's bytes less a trailing newline.
    ///
    /// # Errors
    /// As [`public_key_pem`](Self::public_key_pem) and [`hmac_secret`](Self::hmac_secret), or
    /// [`JwtError::KeyFile`] if the file cannot be read.
    pub fn key_file(path: &Path) -> Result<Self, JwtError> {
        let bytes = std::fs::read(path)
            .map_err(|source| JwtError::KeyFile { path: path.display().to_string(), source })?;
        if bytes.trim_ascii_start().starts_with(b"-----BEGIN") {
            Self::public_key_pem(&bytes)
        } else {
            let secret = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
            Self::hmac_secret(secret.strip_suffix(b"\r").unwrap_or(secret))
        }
    }

    /// Tokens signed with one of the keys the JWKS (RFC 7517) at `url` publishes: fetched at the
    /// first token, kept for an hour at most, fetched again for a `kid` it does not have (at most
    /// once per [`jwks_min_refresh`](Self::jwks_min_refresh)). Only public keys (RSA, EC, OKP)
    /// are taken from it; the default algorithms are every asymmetric one.
    ///
    /// # Errors
    /// [`JwtError::Url`] if `url` is not an http(s) URL.
    pub fn jwks_url(url: &str) -> Result<Self, JwtError> {
        let url = http_url("the JWKS URL", url)?;
        let algorithms = [AlgorithmFamily::Rsa, AlgorithmFamily::Ec, AlgorithmFamily::Ed]
            .iter()
            .flat_map(|family| family.algorithms().iter().copied())
            .collect();
        Ok(Self::with_keys(Keys::Jwks(Jwks::new(url)), algorithms))
    }

    /// The OpenID Connect provider `issuer` (`--oidc-issuer`): reads its discovery document
    /// (`{issuer}/.well-known/openid-configuration`, OpenID Connect Discovery 1.0 section 4),
    /// whose `issuer` must be `issuer`, and validates tokens against its `jwks_uri` as
    /// [`jwks_url`](Self::jwks_url) does, requiring `iss` to be the issuer. The card declares an
    /// `openIdConnectSecurityScheme` named `oidc`.
    ///
    /// # Errors
    /// [`JwtError::Discovery`] if the document cannot be fetched, is not a discovery document
    /// or names another issuer.
    pub async fn openid_connect(issuer: &str) -> Result<Self, JwtError> {
        let base = http_url("the issuer", issuer)?;
        let url = format!("{}/.well-known/openid-configuration", base.trim_end_matches('/'));
        let (mut jwt, _) = Self::from_metadata(&base, &url).await?;
        jwt.scheme = "oidc".into();
        jwt.declared = Declared::OpenIdConnect(url);
        Ok(jwt)
    }

    /// The OAuth 2.0 authorization server `issuer` (`--oauth2-issuer`): reads its metadata
    /// (RFC 8414: `/.well-known/oauth-authorization-server` inserted before the issuer's path),
    /// whose `issuer` must be `issuer`, and validates access tokens (JWTs, RFC 9068) against its
    /// `jwks_uri` as [`jwks_url`](Self::jwks_url) does, requiring `iss` to be the issuer. The card
    /// declares an `oauth2SecurityScheme` named `oauth2` with the metadata URL and one flow:
    /// client credentials if the server supports that grant (agents calling agents), otherwise
    /// authorization code (PKCE required if it supports S256), with its `scopes_supported`.
    ///
    /// # Errors
    /// [`JwtError::Discovery`] if the metadata cannot be fetched, names another issuer, has no
    /// `jwks_uri` or no endpoint for either flow.
    pub async fn oauth2(issuer: &str) -> Result<Self, JwtError> {
        let base = http_url("the issuer", issuer)?;
        let parsed =
            url::Url::parse(&base).map_err(|_| JwtError::Url { what: "the issuer", url: base.clone() })?;
        let url = format!(
            "{}/.well-known/oauth-authorization-server{}",
            parsed.origin().ascii_serialization(),
            parsed.path().trim_end_matches('/')
        );
        let (mut jwt, metadata) = Self::from_metadata(&base, &url).await?;
        let scopes: HashMap<String, String> =
            metadata.scopes_supported.iter().map(|scope| (scope.clone(), String::new())).collect();
        let flow = match (&metadata.token_endpoint, &metadata.authorization_endpoint) {
            (Some(token_url), _)
                if metadata.grant_types_supported.iter().any(|g| g == "client_credentials") =>
            {
                Flow::ClientCredentials(ClientCredentialsOAuthFlow {
                    token_url: token_url.clone(),
                    refresh_url: String::new(),
                    scopes,
                })
            }
            (Some(token_url), Some(authorization_url)) => {
                Flow::AuthorizationCode(AuthorizationCodeOAuthFlow {
                    authorization_url: authorization_url.clone(),
                    token_url: token_url.clone(),
                    refresh_url: String::new(),
                    scopes,
                    pkce_required: metadata.code_challenge_methods_supported.iter().any(|m| m == "S256"),
                })
            }
            _ => {
                return Err(JwtError::Discovery {
                    url,
                    reason: "no token_endpoint with client_credentials, nor an authorization_endpoint".into(),
                })
            }
        };
        jwt.scheme = "oauth2".into();
        jwt.declared = Declared::OAuth2 { metadata_url: url, flow };
        Ok(jwt)
    }

    /// The authenticator of the metadata document at `url` (OpenID Connect discovery or OAuth
    /// 2.0 authorization server metadata), whose issuer must be `issuer`; and the document.
    async fn from_metadata(issuer: &str, url: &str) -> Result<(Self, super::jwks::Metadata), JwtError> {
        let failed = |reason: String| JwtError::Discovery { url: url.to_owned(), reason };
        let metadata = super::jwks::discover(url).await.map_err(failed)?;
        if metadata.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(failed(format!("it names the issuer {:?}, not {issuer:?}", metadata.issuer)));
        }
        let jwks_uri = metadata.jwks_uri.as_deref().ok_or_else(|| failed("it has no jwks_uri".into()))?;
        let mut jwt = Self::jwks_url(jwks_uri).map_err(|e| failed(e.to_string()))?;
        // The `iss` of its tokens is the document's issuer, exactly (OpenID Connect Discovery
        // 4.3, RFC 8414 3.3).
        jwt.issuer = Some(metadata.issuer.clone());
        Ok((jwt, metadata))
    }

    /// Requires `iss` to be `issuer`.
    pub fn issuer(self, issuer: impl Into<String>) -> Self {
        Self { issuer: Some(issuer.into()), ..self }
    }

    /// Requires `aud` to name `audience` (or, called again, any of the audiences given).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience.push(audience.into());
        self
    }

    /// The accepted algorithms (the allow-list; the default is every algorithm of the key's
    /// kind).
    ///
    /// # Errors
    /// [`JwtError::Algorithms`] if the list is empty or names an algorithm the key cannot
    /// verify: an HMAC algorithm with a public key or a JWKS, a public key algorithm with a
    /// secret, another kind of public key than the one given.
    pub fn algorithms(mut self, algorithms: &[Algorithm]) -> Result<Self, JwtError> {
        if algorithms.is_empty() {
            return Err(JwtError::Algorithms("the list is empty".into()));
        }
        for algorithm in algorithms {
            let fits = match &self.keys {
                Keys::Static(key) => algorithm.family() == key.family(),
                Keys::Jwks(_) => algorithm.family() != AlgorithmFamily::Hmac,
            };
            if !fits {
                return Err(JwtError::Algorithms(format!("{algorithm:?} does not fit the key")));
            }
        }
        self.algorithms = algorithms.to_vec();
        Ok(self)
    }

    /// Scopes a token must grant (its `scope` or `scp` claim), declared in the card's security
    /// requirement for this scheme ([`declare_in`](Self::declare_in)) and enforced from there
    /// (`a2a_core::security`): a valid token without them is refused with `PermissionDenied`
    /// (HTTP 403, gRPC `PERMISSION_DENIED`).
    pub fn required_scopes(self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self { scopes: scopes.into_iter().map(Into::into).collect(), ..self }
    }

    /// How far `exp` and `nbf` may be off (default 30 s).
    pub fn leeway(self, leeway: Duration) -> Self {
        Self { leeway, ..self }
    }

    /// With a JWKS: the least time between two fetches for an unknown `kid` (default 30 s), so
    /// tokens with made-up key ids cannot make the server hammer the JWKS URL.
    pub fn jwks_min_refresh(mut self, interval: Duration) -> Self {
        if let Keys::Jwks(jwks) = &mut self.keys {
            jwks.min_refresh = interval;
        }
        self
    }

    /// With a JWKS: fetches it now rather than at the first token, so that a wrong URL shows at
    /// startup (the reference server logs a warning and serves on: the provider may be back by
    /// the first token). Without a JWKS there is nothing to fetch.
    ///
    /// # Errors
    /// [`JwtError::Jwks`] if the JWKS cannot be fetched or holds no usable key.
    pub async fn prefetch(&self) -> Result<(), JwtError> {
        let Keys::Jwks(jwks) = &self.keys else { return Ok(()) };
        match jwks.prefetch().await {
            Ok(0) => {
                Err(JwtError::Jwks { url: jwks.url().to_owned(), reason: "no usable signature key".into() })
            }
            Ok(_) => Ok(()),
            Err(reason) => Err(JwtError::Jwks { url: jwks.url().to_owned(), reason }),
        }
    }

    /// The scheme's name in the card (default `bearer`, `oidc` for OpenID Connect).
    pub fn scheme_name(&self) -> &str {
        &self.scheme
    }

    /// Renames the scheme in the card.
    pub fn with_scheme_name(self, name: impl Into<String>) -> Self {
        Self { scheme: name.into(), ..self }
    }

    /// The card's `securitySchemes` entry.
    pub fn security_scheme(&self) -> SecurityScheme {
        let scheme = match &self.declared {
            Declared::Bearer => security_scheme::Scheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
                description: "A JSON Web Token as a Bearer token (RFC 6750).".into(),
                scheme: "Bearer".into(),
                bearer_format: "JWT".into(),
            }),
            Declared::OAuth2 { metadata_url, flow } => {
                security_scheme::Scheme::Oauth2SecurityScheme(OAuth2SecurityScheme {
                    description:
                        "An access token (a JWT) of this OAuth 2.0 authorization server, as a Bearer token."
                            .into(),
                    flows: Some(OAuthFlows { flow: Some(flow.clone()) }),
                    oauth2_metadata_url: metadata_url.clone(),
                })
            }
            Declared::OpenIdConnect(url) => {
                security_scheme::Scheme::OpenIdConnectSecurityScheme(OpenIdConnectSecurityScheme {
                    description:
                        "An access token (a JWT) of this OpenID Connect provider, as a Bearer token.".into(),
                    open_id_connect_url: url.clone(),
                })
            }
        };
        SecurityScheme { scheme: Some(scheme) }
    }

    /// Declares the scheme in `card` and requires it on every operation (an alternative to the
    /// requirements already there).
    pub fn declare_in(&self, card: &mut a2a_proto::v1::AgentCard) {
        card.security_schemes.insert(self.scheme.clone(), self.security_scheme());
        let mut schemes = HashMap::new();
        schemes.insert(self.scheme.clone(), StringList { list: self.scopes.clone() });
        card.security_requirements.push(SecurityRequirement { schemes });
    }

    /// The layer for [`ServerBuilder::layer`](crate::ServerBuilder::layer).
    pub fn layer(self) -> AuthLayer<Jwt> {
        AuthLayer::new(self)
    }

    /// The principal `token` stands for, or why it is refused (a fixed text, safe to log).
    pub async fn verify(&self, token: &str) -> Result<Principal, &'static str> {
        if token.len() > MAX_TOKEN_LEN {
            return Err("too long");
        }
        let header = jsonwebtoken::decode_header(token).map_err(|e| reason(e.kind()))?;
        if !self.algorithms.contains(&header.alg) {
            return Err("algorithm not allowed");
        }
        let key = match &self.keys {
            Keys::Static(key) if key.family() == header.alg.family() => key.clone(),
            Keys::Static(_) => return Err("algorithm not allowed"),
            Keys::Jwks(jwks) => jwks.key_for(header.kid.as_deref(), header.alg).await.ok_or("unknown key")?,
        };
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        let mut required = vec!["exp", "sub"];
        if let Some(issuer) = &self.issuer {
            validation.set_issuer(&[issuer]);
            required.push("iss");
        }
        validation.validate_aud = !self.audience.is_empty();
        if !self.audience.is_empty() {
            validation.set_audience(&self.audience);
            required.push("aud");
        }
        validation.set_required_spec_claims(&required);
        let data = jsonwebtoken::decode::<Claims>(token, &key, &validation).map_err(|e| reason(e.kind()))?;
        // The principal goes into stores and logs: no control characters (line breaks) in it.
        if data.claims.sub.trim().is_empty() || data.claims.sub.chars().any(char::is_control) {
            return Err("bad subject");
        }
        // The scopes granted (RFC 9068 2.2.3 / RFC 8693 4.2: `scope`, space-separated; some
        // providers say `scp`, a list), against which the card's requirements are checked.
        let scopes = data.claims.scope.into_iter().chain(data.claims.scp).flat_map(Scopes::into_list);
        Ok(Principal::new(data.claims.sub).with_scheme(self.scheme.clone(), scopes))
    }
}

/// A scope claim: a space-separated string, or a list of scopes.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Scopes {
    Text(String),
    List(Vec<String>),
}

impl Scopes {
    fn into_list(self) -> Vec<String> {
        match self {
            Scopes::Text(text) => text.split_ascii_whitespace().map(str::to_owned).collect(),
            Scopes::List(list) => list,
        }
    }
}

/// The claims read beyond those `Validation` checks.
#[derive(serde::Deserialize)]
struct Claims {
    sub: String,
    #[serde(default)]
    scope: Option<Scopes>,
    #[serde(default)]
    scp: Option<Scopes>,
}

/// A fixed description of a validation failure: never the token's text, nor a parser message
/// (which may quote a claim).
fn reason(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::ExpiredSignature => "expired",
        ErrorKind::ImmatureSignature => "not yet valid",
        ErrorKind::InvalidIssuer => "wrong issuer",
        ErrorKind::InvalidAudience => "wrong audience",
        ErrorKind::InvalidSignature => "bad signature",
        ErrorKind::InvalidAlgorithm | ErrorKind::InvalidAlgorithmName | ErrorKind::MissingAlgorithm => {
            "algorithm not allowed"
        }
        ErrorKind::MissingRequiredClaim(_) => "missing claim",
        ErrorKind::InvalidClaimFormat(_) | ErrorKind::InvalidSubject => "bad claim",
        _ => "malformed",
    }
}

/// `url` if it parses as an http or https URL.
fn http_url(what: &'static str, url: &str) -> Result<String, JwtError> {
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some() => {
            Ok(url.to_owned())
        }
        _ => Err(JwtError::Url { what, url: url.to_owned() }),
    }
}

#[async_trait::async_trait]
impl Authenticator for Jwt {
    async fn authenticate(&self, request: &Parts) -> Verdict {
        let token = match authorization(request, "Bearer") {
            None => return Verdict::Absent,
            Some(Err(())) => {
                tracing::debug!(scheme = %self.scheme, reason = "malformed header", "bearer token refused");
                return Verdict::Invalid;
            }
            Some(Ok(token)) => token,
        };
        match self.verify(token).await {
            Ok(principal) => Verdict::Valid(principal),
            Err(reason) => {
                tracing::debug!(scheme = %self.scheme, reason, "bearer token refused");
                Verdict::Invalid
            }
        }
    }

    fn scheme(&self) -> Option<&str> {
        Some(&self.scheme)
    }

    fn challenge(&self, verdict: &Verdict) -> Option<HeaderValue> {
        // RFC 6750 3: no error code when no token was presented; `invalid_token` for one that
        // was refused, without saying why (3.1 leaves the description optional).
        Some(if *verdict == Verdict::Invalid {
            HeaderValue::from_static("Bearer realm=\"a2a\", error=\"invalid_token\"")
        } else {
            HeaderValue::from_static("Bearer realm=\"a2a\"")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_secrets_and_unfit_algorithms_are_refused() {
        assert!(matches!(Jwt::hmac_secret(b"short"), Err(JwtError::Key(_))));
        let hmac = Jwt::hmac_secret(&[7; 32]).unwrap();
        assert!(matches!(hmac.algorithms(&[Algorithm::RS256]), Err(JwtError::Algorithms(_))));
        let jwks = Jwt::jwks_url("https://idp.example.com/jwks.json").unwrap();
        assert!(matches!(jwks.algorithms(&[Algorithm::HS256]), Err(JwtError::Algorithms(_))));
        let jwks = Jwt::jwks_url("https://idp.example.com/jwks.json").unwrap();
        assert!(matches!(jwks.algorithms(&[]), Err(JwtError::Algorithms(_))));
        assert!(matches!(Jwt::jwks_url("file:///etc/passwd"), Err(JwtError::Url { .. })));
        assert!(matches!(Jwt::public_key_pem(b"-----BEGIN NOTHING-----"), Err(JwtError::Key(_))));
    }

    #[test]
    fn debug_output_never_shows_a_secret() {
        let secret = b"0123456789abcdef0123456789abcdef";
        let debug = format!("{:?}", Jwt::hmac_secret(secret).unwrap());
        assert!(!debug.contains("0123456789") && !debug.contains("48, 49, 50"), "{debug}");
    }

    #[test]
    fn the_card_declares_a_bearer_jwt_scheme() {
        let mut card = a2a_proto::v1::AgentCard::default();
        Jwt::hmac_secret(&[7; 32]).unwrap().declare_in(&mut card);
        let Some(security_scheme::Scheme::HttpAuthSecurityScheme(scheme)) =
            &card.security_schemes["bearer"].scheme
        else {
            panic!("an HTTP auth scheme")
        };
        assert_eq!((scheme.scheme.as_str(), scheme.bearer_format.as_str()), ("Bearer", "JWT"));
        assert!(card.security_requirements[0].schemes.contains_key("bearer"));
    }
}
