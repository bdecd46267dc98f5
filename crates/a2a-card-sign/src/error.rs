//! Why a card could not be signed or was not accepted.

use std::fmt;

/// A signing or verification failure.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The agent card is not a JSON object.
    #[error("the agent card is not a JSON object")]
    NotAnObject,
    /// The card has no RFC 8785 canonical form (a number JCS cannot represent).
    #[error("the agent card has no RFC 8785 canonical form: {0}")]
    Canonical(#[source] serde_json::Error),
    /// A key could not be read or used.
    #[error("key: {reason}")]
    Key {
        /// What is wrong with it.
        reason: String,
    },
    /// The card carries no signature, and one is required.
    #[error("the agent card is not signed")]
    Unsigned,
    /// None of the card's signatures verifies; why each was rejected, in the card's order.
    #[error("no signature of the agent card verifies: {}", Rejections(.rejections))]
    NotVerified {
        /// One entry per signature.
        rejections: Vec<Rejection>,
    },
}

/// Why one signature of a card was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// The signature object or its protected header is not well formed JWS.
    Malformed {
        /// What is wrong.
        reason: String,
    },
    /// The header's `alg` is not an asymmetric algorithm of [`crate::ALGORITHMS`] (e.g. `none`,
    /// `HS256`).
    Algorithm {
        /// The `alg` as written.
        alg: String,
    },
    /// No trusted key has the header's `kid` (or none fits the algorithm).
    UnknownKey {
        /// The header's `kid`.
        kid: Option<String>,
    },
    /// A trusted key was found, but the signature does not match the card: the card was changed
    /// after signing, or signed by another key.
    BadSignature {
        /// The header's `kid`.
        kid: Option<String>,
    },
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kid = |kid: &Option<String>| kid.clone().unwrap_or_else(|| "(none)".to_owned());
        match self {
            Rejection::Malformed { reason } => write!(f, "malformed signature: {reason}"),
            Rejection::Algorithm { alg } => write!(f, "algorithm {alg:?} is not accepted"),
            Rejection::UnknownKey { kid: k } => write!(f, "no trusted key for kid {}", kid(k)),
            Rejection::BadSignature { kid: k } => {
                write!(f, "signature by kid {} does not match the card", kid(k))
            }
        }
    }
}

struct Rejections<'a>(&'a [Rejection]);

impl fmt::Display for Rejections<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, rejection) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "[{index}] {rejection}")?;
        }
        Ok(())
    }
}
