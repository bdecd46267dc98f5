//! Signing a card: a JWS with a detached payload (RFC 7515 appendix F) over [`crate::payload`].

use a2a_proto::v1::{AgentCard, AgentCardSignature};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{json, Value};

use crate::{canonical, Error};

/// A private key with its key id (and optional `jku`) that signs agent cards.
pub struct CardSigner {
    key: EncodingKey,
    algorithm: Algorithm,
    kid: String,
    jku: Option<String>,
}

impl std::fmt::Debug for CardSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the key.
        f.debug_struct("CardSigner")
            .field("algorithm", &self.algorithm)
            .field("kid", &self.kid)
            .field("jku", &self.jku)
            .finish_non_exhaustive()
    }
}

impl CardSigner {
    /// A signer with the PEM private key `pem` (PKCS#8, or SEC1/PKCS#1), whose algorithm follows
    /// from the key: ES256 for a P-256 key, ES384 for P-384, EdDSA for Ed25519, RS256 for RSA.
    pub fn from_pem(pem: &[u8], kid: impl Into<String>) -> Result<Self, Error> {
        type Read = fn(&[u8]) -> jsonwebtoken::errors::Result<EncodingKey>;
        let candidates: [(Read, &[Algorithm]); 3] = [
            (EncodingKey::from_ec_pem, &[Algorithm::ES256, Algorithm::ES384]),
            (EncodingKey::from_ed_pem, &[Algorithm::EdDSA]),
            (EncodingKey::from_rsa_pem, &[Algorithm::RS256]),
        ];
        for (read, algorithms) in candidates {
            let Ok(key) = read(pem) else { continue };
            // The curve of an EC key is not exposed: the algorithm whose signer accepts the key
            // is the one.
            for algorithm in algorithms {
                if jsonwebtoken::crypto::sign(b"probe", &key, *algorithm).is_ok() {
                    return Self::with_algorithm(key, *algorithm, kid);
                }
            }
        }
        Err(Error::Key {
            reason: "not a PEM private key of a supported type (P-256, P-384, Ed25519 or RSA)".into(),
        })
    }

    /// A signer with `key` for `algorithm` (for RSA-PSS, say, which [`Self::from_pem`] never
    /// picks). The algorithm must be one of [`crate::ALGORITHMS`].
    pub fn with_algorithm(
        key: EncodingKey,
        algorithm: Algorithm,
        kid: impl Into<String>,
    ) -> Result<Self, Error> {
        if !crate::ALGORITHMS.contains(&algorithm) {
            return Err(Error::Key {
                reason: format!("{algorithm:?} is not an asymmetric signature algorithm"),
            });
        }
        jsonwebtoken::crypto::sign(b"probe", &key, algorithm)
            .map_err(|e| Error::Key { reason: format!("the key cannot sign {algorithm:?}: {e}") })?;
        Ok(Self { key, algorithm, kid: kid.into(), jku: None })
    }

    /// Adds `jku` (the URL of a JWKS with the public key) to the protected header. Verifiers do
    /// not have to follow it; ours never do unless told to.
    pub fn jku(self, url: impl Into<String>) -> Self {
        Self { jku: Some(url.into()), ..self }
    }

    /// The signing algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The key id written into every signature.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The signature of the card document `document` (any form: 1.0, union or 0.3 JSON), over
    /// its canonical payload.
    pub fn signature(&self, document: &Value) -> Result<AgentCardSignature, Error> {
        let payload = canonical::payload(document)?;
        let mut header = json!({ "alg": self.algorithm, "typ": "JOSE", "kid": self.kid });
        if let Some(jku) = &self.jku {
            header["jku"] = Value::String(jku.clone());
        }
        let protected = URL_SAFE_NO_PAD.encode(header.to_string());
        // spec 8.4.2 step 3: ASCII(BASE64URL(header) || '.' || BASE64URL(payload)).
        let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(&payload));
        let signature = jsonwebtoken::crypto::sign(input.as_bytes(), &self.key, self.algorithm)
            .map_err(|e| Error::Key { reason: format!("signing failed: {e}") })?;
        Ok(AgentCardSignature { protected, signature, header: None })
    }

    /// Signs the card document `document` and appends the signature to its `signatures`.
    pub fn sign_document(&self, document: &mut Value) -> Result<(), Error> {
        let signature = self.signature(document)?;
        let signature = a2a_proto::json::to_value(&signature).expect("a signature always serializes");
        let Value::Object(object) = document else { return Err(Error::NotAnObject) };
        match object.entry("signatures").or_insert_with(|| Value::Array(Vec::new())) {
            Value::Array(signatures) => signatures.push(signature),
            other => *other = Value::Array(vec![signature]),
        }
        Ok(())
    }

    /// `card` as the 1.0 document a server serves ([`crate::card_json`]), signed.
    pub fn sign_card(&self, card: &AgentCard) -> Result<Value, Error> {
        let mut document = canonical::card_json(card);
        self.sign_document(&mut document)?;
        Ok(document)
    }
}
