//! The keys of a JWKS URL (RFC 7517), cached: fetched at the first token, again when the cache is
//! older than [`MAX_AGE`], and again for a `kid` it does not have (a rotated key), at most once
//! per `min_refresh` so that made-up key ids cannot make the server hammer the URL. A failed
//! fetch keeps the keys it had. Also the metadata documents that name the URL (OpenID Connect
//! discovery, OAuth 2.0 authorization server metadata).

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};

/// Keys older than this are fetched again at the next token.
const MAX_AGE: Duration = Duration::from_secs(3600);

/// The default least time between two fetches.
const DEFAULT_MIN_REFRESH: Duration = Duration::from_secs(30);

/// The largest JWKS or discovery document read.
const MAX_DOCUMENT: usize = 1024 * 1024;

/// How long a fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// One usable key of the set (public keys: its Debug output is harmless).
#[derive(Debug)]
struct Key {
    kid: Option<String>,
    /// The JWK's `alg`, if it names one: the key then verifies that algorithm only.
    alg: Option<String>,
    family: AlgorithmFamily,
    curve: Option<EllipticCurve>,
    key: DecodingKey,
}

impl Key {
    fn verifies(&self, alg: Algorithm) -> bool {
        let curve_fits = match (alg, &self.curve) {
            (Algorithm::ES256, Some(curve)) => *curve == EllipticCurve::P256,
            (Algorithm::ES384, Some(curve)) => *curve == EllipticCurve::P384,
            (Algorithm::EdDSA, Some(curve)) => *curve == EllipticCurve::Ed25519,
            _ => true,
        };
        self.family == alg.family()
            && curve_fits
            && self.alg.as_ref().is_none_or(|a| *a == format!("{alg:?}"))
    }
}

/// The cached set and when it was fetched.
#[derive(Debug, Default)]
struct Cached {
    keys: Vec<Key>,
    fetched: Option<Instant>,
}

/// A JWKS URL and its cached keys (module docs).
#[derive(Debug)]
pub(super) struct Jwks {
    url: String,
    client: reqwest::Client,
    pub(super) min_refresh: Duration,
    cached: RwLock<Arc<Cached>>,
    /// Held while fetching, so that concurrent requests wait for one fetch; holds when the
    /// last fetch was tried.
    fetching: tokio::sync::Mutex<Option<Instant>>,
}

impl Jwks {
    pub(super) fn new(url: String) -> Self {
        Jwks {
            url,
            client: client(),
            min_refresh: DEFAULT_MIN_REFRESH,
            cached: RwLock::default(),
            fetching: tokio::sync::Mutex::new(None),
        }
    }

    pub(super) fn url(&self) -> &str {
        &self.url
    }

    fn current(&self) -> Arc<Cached> {
        Arc::clone(&self.cached.read().unwrap_or_else(|e| e.into_inner()))
    }

    /// The key for a token with this `kid` and algorithm: the one with that `kid`, or without a
    /// `kid` the only key of the set that verifies `alg`.
    pub(super) async fn key_for(&self, kid: Option<&str>, alg: Algorithm) -> Option<DecodingKey> {
        let find = |cached: &Cached| -> Option<DecodingKey> {
            let mut fitting = cached.keys.iter().filter(|k| k.verifies(alg));
            match kid {
                Some(kid) => fitting.find(|k| k.kid.as_deref() == Some(kid)).map(|k| k.key.clone()),
                None => match (fitting.next(), fitting.next()) {
                    (Some(only), None) => Some(only.key.clone()),
                    _ => None,
                },
            }
        };
        let fresh = |cached: &Cached| cached.fetched.is_some_and(|at| at.elapsed() < MAX_AGE);
        let cached = self.current();
        if fresh(&cached) {
            if let Some(key) = find(&cached) {
                return Some(key);
            }
        }
        let mut last_try = self.fetching.lock().await;
        // Another request may have fetched while this one waited.
        let cached = self.current();
        if fresh(&cached) {
            if let Some(key) = find(&cached) {
                return Some(key);
            }
        }
        if last_try.is_none_or(|at| at.elapsed() >= self.min_refresh) {
            *last_try = Some(Instant::now());
            match self.fetch().await {
                Ok(keys) => {
                    tracing::debug!(url = %self.url, keys = keys.len(), "JWKS fetched");
                    let cached = Arc::new(Cached { keys, fetched: Some(Instant::now()) });
                    *self.cached.write().unwrap_or_else(|e| e.into_inner()) = cached;
                }
                Err(reason) => {
                    tracing::warn!(url = %self.url, %reason, "JWKS fetch failed; keeping the keys cached")
                }
            }
        }
        find(&self.current())
    }

    /// Fetches the keys now (at startup: a wrong URL shows at once), whatever the cache holds.
    pub(super) async fn prefetch(&self) -> Result<usize, String> {
        let mut last_try = self.fetching.lock().await;
        *last_try = Some(Instant::now());
        let keys = self.fetch().await?;
        let count = keys.len();
        *self.cached.write().unwrap_or_else(|e| e.into_inner()) =
            Arc::new(Cached { keys, fetched: Some(Instant::now()) });
        Ok(count)
    }

    /// The usable keys the URL publishes now: public signature keys (RSA, EC, OKP); secret
    /// (`oct`) keys and keys for encryption are left out, as is any entry that does not parse.
    async fn fetch(&self) -> Result<Vec<Key>, String> {
        let document: serde_json::Value = get_json(&self.client, &self.url).await?;
        let entries = document.get("keys").and_then(|k| k.as_array()).ok_or("no \"keys\" array")?;
        Ok(entries
            .iter()
            .filter_map(|entry| serde_json::from_value::<Jwk>(entry.clone()).ok())
            .filter(|jwk| jwk.common.public_key_use.as_ref().is_none_or(|u| *u == PublicKeyUse::Signature))
            .filter_map(|jwk| {
                let (family, curve) = match &jwk.algorithm {
                    AlgorithmParameters::RSA(_) => (AlgorithmFamily::Rsa, None),
                    AlgorithmParameters::EllipticCurve(ec) => (AlgorithmFamily::Ec, Some(ec.curve.clone())),
                    AlgorithmParameters::OctetKeyPair(okp) => (AlgorithmFamily::Ed, Some(okp.curve.clone())),
                    AlgorithmParameters::OctetKey(_) => return None,
                };
                let key = DecodingKey::from_jwk(&jwk).ok()?;
                Some(Key {
                    kid: jwk.common.key_id.clone(),
                    alg: jwk.common.key_algorithm.map(|a| a.to_string()),
                    family,
                    curve,
                    key,
                })
            })
            .collect())
    }
}

/// The part of an OpenID Connect discovery document or OAuth 2.0 authorization server metadata
/// (RFC 8414 2) read here.
#[derive(Debug, serde::Deserialize)]
pub(super) struct Metadata {
    pub(super) issuer: String,
    pub(super) jwks_uri: Option<String>,
    pub(super) authorization_endpoint: Option<String>,
    pub(super) token_endpoint: Option<String>,
    #[serde(default)]
    pub(super) grant_types_supported: Vec<String>,
    #[serde(default)]
    pub(super) scopes_supported: Vec<String>,
    #[serde(default)]
    pub(super) code_challenge_methods_supported: Vec<String>,
}

/// Reads the metadata document at `url`.
pub(super) async fn discover(url: &str) -> Result<Metadata, String> {
    get_json(&client(), url).await
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().timeout(FETCH_TIMEOUT).build().unwrap_or_else(|_| reqwest::Client::new())
}

/// GETs `url` and parses its JSON body, of at most [`MAX_DOCUMENT`] bytes.
async fn get_json<T: serde::de::DeserializeOwned>(client: &reqwest::Client, url: &str) -> Result<T, String> {
    let mut response = client
        .get(url)
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(|e| format!("GET failed: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("GET answered {}", response.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading the body: {e}"))? {
        if body.len() + chunk.len() > MAX_DOCUMENT {
            return Err(format!("the document is larger than {MAX_DOCUMENT} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    serde_json::from_slice(&body).map_err(|e| format!("not the expected JSON: {e}"))
}
