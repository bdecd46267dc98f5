//! Signed agent cards (A2A spec 8.4): the canonical form a signature covers, signing, and
//! verification against keys the caller trusts.
//!
//! Where it sits: beside `a2a-core`, not in it (signing needs crypto and a JCS canonicalizer, and
//! core's dependency list stays short). `a2a-server` signs the card it serves
//! (`ServerBuilder::sign_card`); `a2a-client` and `a2a-cli` verify cards they fetch.
//!
//! - [`canonical`]: the card's ProtoJSON with the field-presence rules of spec 8.4.1
//!   ([`card_json`]) and the signed payload: the document without `signatures`, in RFC 8785 (JCS)
//!   canonical form ([`payload`]).
//! - [`CardSigner`]: a JWS (RFC 7515) signature with a detached payload (RFC 7515 appendix F):
//!   protected header `{"alg","typ":"JOSE","kid"[,"jku"]}`, ES256, ES384, RS256/384/512,
//!   PS256/384/512 or EdDSA.
//! - [`TrustedKeys`] and [`verify`]: a card is accepted when at least one of its signatures
//!   verifies with a trusted key (a JWKS document or static PEM public keys). A `jku` in a
//!   signature's header is never followed: keys come from the caller only.
//!
//! ```
//! use a2a_card_sign::{verify, CardSigner, TrustedKeys};
//! # let private_pem = include_bytes!("../tests/data/keys/es256.key.pem");
//! # let public_pem = include_bytes!("../tests/data/keys/es256.pub.pem");
//! let signer = CardSigner::from_pem(private_pem, "key-1")?;
//! let mut card = serde_json::json!({"name": "Echo", "description": "", "version": "1.0.0"});
//! signer.sign_document(&mut card)?;
//! assert_eq!(card["signatures"].as_array().map(Vec::len), Some(1));
//!
//! let keys = TrustedKeys::new().with_pem(Some("key-1"), public_pem)?;
//! let verified = verify(&card, &keys)?;
//! assert_eq!(verified.kid.as_deref(), Some("key-1"));
//!
//! card["name"] = "Evil".into();
//! assert!(verify(&card, &keys).is_err(), "a changed card no longer verifies");
//! # Ok::<(), a2a_card_sign::Error>(())
//! ```
//!
//! No feature flags.

pub mod canonical;
mod error;
mod sign;
mod verify;

pub use canonical::{card_json, payload};
pub use error::{Error, Rejection};
pub use jsonwebtoken::Algorithm;
pub use sign::CardSigner;
pub use verify::{jku_urls, verify, TrustedKeys, Verified};

/// The algorithms a card signature may use: asymmetric only. HMAC would let anyone holding the
/// verification "key" forge signatures (and a public key used as an HMAC secret is the classic
/// algorithm-confusion attack); `none` is no signature.
pub const ALGORITHMS: &[Algorithm] = &[
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::EdDSA,
];
