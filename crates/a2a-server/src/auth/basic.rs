//! HTTP Basic (RFC 7617): `Authorization: Basic base64(user:password)`, checked against a table
//! of users and Argon2 password hashes in the PHC string format (`$argon2id$v=19$m=...`, what the
//! `argon2` command-line tool and most libraries write). The principal is the user name.
//!
//! Argon2 is slow on purpose (tens of milliseconds): it runs on the blocking pool, and a
//! successful check is remembered (a SHA-256 of the credentials under a per-process key, never
//! the password) so that a client sending the same credentials on every call pays it once. An
//! unknown user costs the same as a wrong password, so timing does not tell which users exist.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use a2a_core::Principal;
use a2a_proto::v1::{
    security_scheme, HttpAuthSecurityScheme, SecurityRequirement, SecurityScheme, StringList,
};
use argon2::password_hash::{PasswordHash, PasswordVerifier as _};
use axum::http::{request::Parts, HeaderValue};
use base64::Engine as _;
use sha2::Digest as _;

use super::{authorization, AuthLayer, Authenticator, Verdict};

/// Successful checks remembered at most (the cache is emptied when full).
const REMEMBERED: usize = 4096;

/// The hash an unknown user's password is checked against, so that it costs what a known
/// user's does (the password of this hash is not guessable and unused).
const DECOY: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$ZGVjb3lkZWNveWRlY295$5F0f8e6mDNd7O2t7m0Oi4gsbaOdBSeDnGbDB3yVBdR0";

/// Why a [`BasicUsers`] table could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum BasicUsersError {
    /// The users file could not be read.
    #[error("reading {path}: {source}")]
    File {
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An entry is not `USER:HASH` with an Argon2 PHC hash.
    #[error("{entry}: {reason}")]
    Entry {
        /// Where: the user, or the file and line.
        entry: String,
        /// What is wrong (never the hash itself).
        reason: String,
    },
}

/// HTTP Basic users (see the module docs).
#[derive(Clone)]
pub struct BasicUsers {
    scheme: String,
    users: HashMap<String, String>,
    remembered: Arc<Mutex<HashMap<[u8; 32], Principal>>>,
    key: [u8; 16],
}

impl std::fmt::Debug for BasicUsers {
    // The user names only: not the hashes, nor the key of remembered checks.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicUsers").field("scheme", &self.scheme).field("users", &self.users.keys()).finish()
    }
}

impl Default for BasicUsers {
    fn default() -> Self {
        Self::new()
    }
}

impl BasicUsers {
    /// No users yet, declared in the card as the scheme `basic`.
    pub fn new() -> Self {
        BasicUsers {
            scheme: "basic".into(),
            users: HashMap::new(),
            remembered: Arc::default(),
            key: *uuid::Uuid::new_v4().as_bytes(),
        }
    }

    /// Accepts `user` with a password whose Argon2 PHC hash is `hash`.
    ///
    /// # Errors
    /// [`BasicUsersError::Entry`] if the user name is empty or has a `:` (RFC 7617 2), or
    /// `hash` is not an Argon2 PHC string.
    pub fn user(mut self, user: &str, hash: &str) -> Result<Self, BasicUsersError> {
        let invalid =
            |reason: &str| BasicUsersError::Entry { entry: user.to_owned(), reason: reason.to_owned() };
        if user.is_empty() || user.contains(':') || user.chars().any(char::is_control) {
            return Err(invalid("a user name is not empty and has no ':' or control characters"));
        }
        let parsed = PasswordHash::new(hash).map_err(|_| invalid("not a PHC password hash string"))?;
        if !parsed.algorithm.as_str().starts_with("argon2") {
            return Err(invalid("not an Argon2 hash ($argon2id$...)"));
        }
        self.users.insert(user.to_owned(), hash.to_owned());
        Ok(self)
    }

    /// Adds the users of a file (`--basic-users-file`): one `USER:HASH` a line; blank lines and
    /// lines starting with `#` are skipped.
    ///
    /// # Errors
    /// [`BasicUsersError::File`] if it cannot be read, [`BasicUsersError::Entry`] for a bad line.
    pub fn file(mut self, path: &Path) -> Result<Self, BasicUsersError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| BasicUsersError::File { path: path.display().to_string(), source })?;
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let entry = || format!("{} line {}", path.display(), number + 1);
            let (user, hash) = line
                .split_once(':')
                .ok_or_else(|| BasicUsersError::Entry { entry: entry(), reason: "use USER:HASH".into() })?;
            self = self
                .user(user, hash)
                .map_err(|e| BasicUsersError::Entry { entry: entry(), reason: e.to_string() })?;
        }
        Ok(self)
    }

    /// How many users there are.
    pub fn len(&self) -> usize {
        self.users.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.users.is_empty()
    }

    /// The scheme's name in the card.
    pub fn scheme_name(&self) -> &str {
        &self.scheme
    }

    /// The card's `securitySchemes` entry: HTTP `Basic`.
    pub fn security_scheme(&self) -> SecurityScheme {
        SecurityScheme {
            scheme: Some(security_scheme::Scheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
                description: "HTTP Basic with a user name and password issued by the operator of this agent."
                    .into(),
                scheme: "Basic".into(),
                bearer_format: String::new(),
            })),
        }
    }

    /// Declares the scheme in `card` and requires it on every operation (an alternative to the
    /// requirements already there).
    pub fn declare_in(&self, card: &mut a2a_proto::v1::AgentCard) {
        card.security_schemes.insert(self.scheme.clone(), self.security_scheme());
        let mut schemes = HashMap::new();
        schemes.insert(self.scheme.clone(), StringList { list: Vec::new() });
        card.security_requirements.push(SecurityRequirement { schemes });
    }

    /// The layer for [`ServerBuilder::layer`](crate::ServerBuilder::layer).
    pub fn layer(self) -> AuthLayer<BasicUsers> {
        AuthLayer::new(self)
    }

    /// The user these credentials (`user:password`) are a user's password of.
    async fn check(&self, user: &str, password: &str) -> Option<Principal> {
        let fingerprint: [u8; 32] = sha2::Sha256::new()
            .chain_update(self.key)
            .chain_update(user.as_bytes())
            .chain_update([0])
            .chain_update(password.as_bytes())
            .finalize()
            .into();
        if let Some(principal) = self.remembered.lock().unwrap_or_else(|e| e.into_inner()).get(&fingerprint) {
            return Some(principal.clone());
        }
        let (known, hash) = match self.users.get(user) {
            Some(hash) => (true, hash.clone()),
            None => (false, DECOY.to_owned()),
        };
        let password = password.to_owned();
        let verified = tokio::task::spawn_blocking(move || {
            PasswordHash::new(&hash).is_ok_and(|hash| {
                argon2::Argon2::default().verify_password(password.as_bytes(), &hash).is_ok()
            })
        })
        .await
        .unwrap_or(false);
        if !(known && verified) {
            return None;
        }
        let principal = Principal::new(user);
        let mut remembered = self.remembered.lock().unwrap_or_else(|e| e.into_inner());
        if remembered.len() >= REMEMBERED {
            remembered.clear();
        }
        remembered.insert(fingerprint, principal.clone());
        Some(principal)
    }
}

#[async_trait::async_trait]
impl Authenticator for BasicUsers {
    async fn authenticate(&self, request: &Parts) -> Verdict {
        let credentials = match authorization(request, "Basic") {
            None => return Verdict::Absent,
            Some(Err(())) => return Verdict::Invalid,
            Some(Ok(credentials)) => credentials,
        };
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(credentials)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok());
        let Some((user, password)) = decoded.as_deref().and_then(|d| d.split_once(':')) else {
            tracing::debug!(scheme = %self.scheme, reason = "malformed", "basic credentials refused");
            return Verdict::Invalid;
        };
        match self.check(user, password).await {
            Some(principal) => Verdict::Valid(principal),
            None => {
                tracing::debug!(scheme = %self.scheme, reason = "unknown user or wrong password", "basic credentials refused");
                Verdict::Invalid
            }
        }
    }

    fn scheme(&self) -> Option<&str> {
        Some(&self.scheme)
    }

    fn challenge(&self, _: &Verdict) -> Option<HeaderValue> {
        // RFC 7617 2.1: the server accepts UTF-8 user names and passwords.
        Some(HeaderValue::from_static("Basic realm=\"a2a\", charset=\"UTF-8\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_decoy_is_an_argon2_hash() {
        let hash = PasswordHash::new(DECOY).unwrap();
        assert_eq!(hash.algorithm.as_str(), "argon2id");
    }

    #[test]
    fn entries_must_be_a_user_and_an_argon2_hash() {
        assert!(BasicUsers::new().user("alice", DECOY).is_ok());
        for (user, hash) in
            [("", DECOY), ("a:b", DECOY), ("alice", "secret"), ("alice", "$pbkdf2$i=1$c2FsdA$aGFzaA")]
        {
            assert!(
                matches!(BasicUsers::new().user(user, hash), Err(BasicUsersError::Entry { .. })),
                "{user} {hash}"
            );
        }
    }
}
