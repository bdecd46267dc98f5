//! Verifying a card (spec 8.4.3) against keys the caller trusts.
//!
//! Keys come from the caller only: a JWKS document or static PEM public keys. A signature's `jku`
//! is never fetched here; anyone can put a URL of their own keys in a header they sign.

use std::str::FromStr as _;

use a2a_proto::v1::AgentCard;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::jwk::{AlgorithmParameters, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use crate::canonical::{self, without_defaults};
use crate::{Error, Rejection, ALGORITHMS};

/// Public keys trusted to sign agent cards.
#[derive(Clone, Default)]
pub struct TrustedKeys {
    keys: Vec<TrustedKey>,
}

#[derive(Clone)]
struct TrustedKey {
    /// `None`: a static key trusted whatever `kid` a signature names.
    kid: Option<String>,
    key: DecodingKey,
    /// The JWK's `alg`, when it pins one.
    algorithm: Option<Algorithm>,
}

impl std::fmt::Debug for TrustedKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kids: Vec<_> = self.keys.iter().map(|k| k.kid.as_deref().unwrap_or("*")).collect();
        f.debug_struct("TrustedKeys").field("kids", &kids).finish()
    }
}

impl TrustedKeys {
    /// No keys: nothing verifies.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether no key is trusted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Trusts the PEM public key `pem` (P-256, P-384, Ed25519 or RSA) for signatures naming `kid`,
    /// or for any `kid` when `None`.
    pub fn with_pem(mut self, kid: Option<&str>, pem: &[u8]) -> Result<Self, Error> {
        let key = DecodingKey::from_ec_pem(pem)
            .or_else(|_| DecodingKey::from_ed_pem(pem))
            .or_else(|_| DecodingKey::from_rsa_pem(pem))
            .map_err(|_| Error::Key {
                reason: "not a PEM public key of a supported type (EC, Ed25519 or RSA)".into(),
            })?;
        self.keys.push(TrustedKey { kid: kid.map(str::to_owned), key, algorithm: None });
        Ok(self)
    }

    /// Trusts every key of the JWKS document `jwks` (RFC 7517 `{"keys": [...]}`) under its `kid`.
    /// Symmetric (`oct`) keys are refused: they cannot make a signature only its owner can make.
    pub fn with_jwks(mut self, jwks: &[u8]) -> Result<Self, Error> {
        let set: JwkSet = serde_json::from_slice(jwks)
            .map_err(|e| Error::Key { reason: format!("not a JWKS document: {e}") })?;
        for jwk in &set.keys {
            if matches!(jwk.algorithm, AlgorithmParameters::OctetKey(_)) {
                return Err(Error::Key {
                    reason: "a symmetric (oct) key cannot verify card signatures".into(),
                });
            }
            let key = DecodingKey::from_jwk(jwk).map_err(|e| Error::Key { reason: format!("JWK: {e}") })?;
            let algorithm = match &jwk.common.key_algorithm {
                None => None,
                Some(alg) => Some(Algorithm::from_str(&alg.to_string()).map_err(|_| Error::Key {
                    reason: format!("JWK alg {alg} is not a signature algorithm"),
                })?),
            };
            self.keys.push(TrustedKey { kid: jwk.common.key_id.clone(), key, algorithm });
        }
        Ok(self)
    }

    /// Reads a key file: a JWKS document (JSON) or one or more PEM public keys (trusted for any
    /// `kid`).
    pub fn from_file_contents(contents: &[u8]) -> Result<Self, Error> {
        let text =
            std::str::from_utf8(contents).map_err(|_| Error::Key { reason: "not UTF-8 text".into() })?;
        if text.trim_start().starts_with('{') {
            return Self::new().with_jwks(contents);
        }
        let mut keys = Self::new();
        let mut rest = text;
        while let Some(start) = rest.find("-----BEGIN ") {
            let block = &rest[start..];
            let end = block
                .find("-----END ")
                .and_then(|end| block[end + 9..].find("-----").map(|close| end + 9 + close + 5))
                .ok_or_else(|| Error::Key { reason: "a PEM block has no END line".into() })?;
            keys = keys.with_pem(None, &block.as_bytes()[..end])?;
            rest = &block[end..];
        }
        if keys.is_empty() {
            return Err(Error::Key { reason: "neither a JWKS document nor PEM public keys".into() });
        }
        Ok(keys)
    }
}

/// The `jku` URLs the signatures of `document` name in their protected headers, in order, without
/// repeats: for a caller that chose to trust some of them (never by default: a signer names its
/// own keys there). Signatures that are not well formed are skipped.
pub fn jku_urls(document: &Value) -> Vec<String> {
    let mut urls: Vec<String> = Vec::new();
    let signatures =
        document.get("signatures").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for signature in signatures {
        let jku = signature
            .get("protected")
            .and_then(Value::as_str)
            .and_then(|p| URL_SAFE_NO_PAD.decode(p).ok())
            .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
            .and_then(|header| header.get("jku").and_then(Value::as_str).map(str::to_owned));
        if let Some(jku) = jku.filter(|j| !urls.contains(j)) {
            urls.push(jku);
        }
    }
    urls
}

/// Which signature verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// Its index in `signatures`.
    pub index: usize,
    /// Its `kid`.
    pub kid: Option<String>,
    /// Its algorithm.
    pub algorithm: Algorithm,
}

/// Verifies the card document `document` as received: accepted when one of its `signatures`
/// verifies with a key of `keys` (spec 8.4.3: "at least one signature").
///
/// The payload is the document's own canonical form ([`crate::payload`]), so member order and
/// whitespace do not matter. A 1.0 card that a signer serialized with other default-valued
/// members than it signed (spec 8.4.3 step 3, "remove properties with default values") is also
/// checked in its reconstructed form ([`crate::card_json`] of the parsed card), but only when that
/// reconstruction differs from the document by default values alone: members the 1.0 schema does
/// not know are never dropped to make a signature fit.
pub fn verify(document: &Value, keys: &TrustedKeys) -> Result<Verified, Error> {
    let Value::Object(object) = document else { return Err(Error::NotAnObject) };
    let signatures = match object.get("signatures") {
        None | Some(Value::Null) => return Err(Error::Unsigned),
        Some(Value::Array(signatures)) if signatures.is_empty() => return Err(Error::Unsigned),
        Some(Value::Array(signatures)) => signatures,
        Some(_) => {
            let rejection = Rejection::Malformed { reason: "`signatures` is not an array".into() };
            return Err(Error::NotVerified { rejections: vec![rejection] });
        }
    };
    let payloads = payloads(document)?;
    let mut rejections = Vec::with_capacity(signatures.len());
    for (index, signature) in signatures.iter().enumerate() {
        match check(signature, &payloads, keys) {
            Ok((kid, algorithm)) => return Ok(Verified { index, kid, algorithm }),
            Err(rejection) => rejections.push(rejection),
        }
    }
    Err(Error::NotVerified { rejections })
}

/// The payloads a signature of `document` may cover: its own canonical form and, for a 1.0 card
/// that differs from its reconstruction by default values only, the reconstruction's.
fn payloads(document: &Value) -> Result<Vec<String>, Error> {
    let own = canonical::payload(document)?;
    let mut payloads = vec![URL_SAFE_NO_PAD.encode(&own)];
    if let Ok(card) = a2a_proto::json::from_value::<AgentCard>(document.clone()) {
        let rebuilt = canonical::card_json(&card);
        let unsigned = |value: &Value| {
            let mut value = value.clone();
            value.as_object_mut().map(|o| o.remove("signatures"));
            without_defaults(&value)
        };
        if unsigned(&rebuilt) == unsigned(document) {
            let rebuilt = canonical::payload(&rebuilt)?;
            if rebuilt != own {
                payloads.push(URL_SAFE_NO_PAD.encode(&rebuilt));
            }
        }
    }
    Ok(payloads)
}

/// Checks one signature object; its `kid` and algorithm when it verifies.
fn check(
    signature: &Value,
    payloads: &[String],
    keys: &TrustedKeys,
) -> Result<(Option<String>, Algorithm), Rejection> {
    let malformed = |reason: &str| Rejection::Malformed { reason: reason.to_owned() };
    let field = |name: &str| signature.get(name).and_then(Value::as_str).filter(|s| !s.is_empty());
    let protected = field("protected").ok_or_else(|| malformed("no `protected` header"))?;
    let value = field("signature").ok_or_else(|| malformed("no `signature` value"))?;
    let header = URL_SAFE_NO_PAD
        .decode(protected)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .filter(Value::is_object)
        .ok_or_else(|| malformed("`protected` is not a base64url-encoded JSON object"))?;
    // RFC 7515 4.1.11: a `crit` extension we do not understand makes the JWS invalid; we
    // understand none.
    if header.get("crit").is_some() {
        return Err(malformed("the header has `crit` extensions, none of which is supported"));
    }
    let alg =
        header.get("alg").and_then(Value::as_str).ok_or_else(|| malformed("the header has no `alg`"))?;
    let algorithm = Algorithm::from_str(alg)
        .ok()
        .filter(|a| ALGORITHMS.contains(a))
        .ok_or_else(|| Rejection::Algorithm { alg: alg.to_owned() })?;
    let kid = header.get("kid").and_then(Value::as_str).map(str::to_owned);
    let candidates: Vec<&TrustedKey> = keys
        .keys
        .iter()
        .filter(|key| key.kid.is_none() || key.kid == kid)
        .filter(|key| key.key.family() == algorithm.family() && key.algorithm.is_none_or(|a| a == algorithm))
        .collect();
    if candidates.is_empty() {
        return Err(Rejection::UnknownKey { kid });
    }
    for key in candidates {
        for payload in payloads {
            let input = format!("{protected}.{payload}");
            if jsonwebtoken::crypto::verify(value, input.as_bytes(), &key.key, algorithm).unwrap_or(false) {
                return Ok((kid, algorithm));
            }
        }
    }
    Err(Rejection::BadSignature { kid })
}
