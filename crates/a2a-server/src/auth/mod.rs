//! Authentication in front of every binding: a tower layer that says who the caller is, by
//! putting an [`a2a_core::Principal`] in the request's extensions. Each binding (JSON-RPC,
//! HTTP+JSON, gRPC, and their 0.3 surface) copies it into the `CallContext`; the handler
//! enforces what the agent card declares (an agent with `securityRequirements` answers
//! `Unauthenticated` to a caller without a principal: HTTP 401, gRPC `UNAUTHENTICATED`,
//! JSON-RPC -32010) and scopes every task to its creator (spec 13.1: another principal gets
//! `TaskNotFound`). A layer only identifies; it never answers by itself, so the answer to a
//! missing and to a wrong credential is the same, and the agent card stays public.
//!
//! The built-in authenticators, each declaring its scheme in the card (`declare_in`) and giving
//! its layer (`layer`) for [`ServerBuilder::layer`](crate::ServerBuilder::layer):
//! - [`ApiKeys`]: API keys in a header, query parameter or cookie (`--api-key KEY=PRINCIPAL`);
//! - [`Jwt`]: HTTP Bearer JSON Web Tokens, from a static key, a JWKS URL, an OpenID Connect
//!   provider's discovery document or an OAuth 2.0 server's metadata (`--jwt-*`,
//!   `--oidc-issuer`, `--oauth2-issuer`);
//! - [`ClientCertificates`]: mutual TLS, the subject CN of a client certificate the TLS port
//!   verified (`--tls-client-ca`);
//! - [`BasicUsers`]: HTTP Basic against users and Argon2 password hashes (`--basic-user`,
//!   `--basic-users-file`).
//!
//! Any other is an [`Authenticator`] of your own behind an [`AuthLayer`], or a layer of the same
//! shape. Several layers combine as the card's alternatives (its `securityRequirements` are
//! OR-ed): a caller may present any one declared credential, but a credential presented and
//! refused leaves the request without a principal whatever the other layers find, so a bad
//! credential is never papered over by another.

mod api_key;
mod basic;
mod jwks;
mod jwt;
mod mtls;

use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_core::Principal;
use axum::http::{header, request::Parts, HeaderValue, Request, Response, StatusCode};
use futures::future::BoxFuture;

pub use api_key::{ApiKeyLayer, ApiKeys, KeyLocation};
pub use basic::{BasicUsers, BasicUsersError};
/// The JWT signature algorithms, for [`Jwt::algorithms`].
pub use jsonwebtoken::Algorithm as JwtAlgorithm;
pub use jwt::{Jwt, JwtError};
pub use mtls::{CertificateIdentity, ClientCertificates};

/// What an [`Authenticator`] made of a request's credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The request carries no credential of this authenticator's kind.
    Absent,
    /// It carries one, and it identifies this principal.
    Valid(Principal),
    /// It carries one that is not accepted (unknown, malformed, expired, wrongly signed, ...).
    Invalid,
}

/// Identifies the caller of a request from its credentials (see the module docs).
#[async_trait::async_trait]
pub trait Authenticator: Send + Sync + 'static {
    /// What `request` (its headers, URI and extensions) proves about its caller.
    async fn authenticate(&self, request: &Parts) -> Verdict;

    /// The `WWW-Authenticate` challenge added to a 401 answer to a request this authenticator
    /// judged `verdict` (RFC 9110 11.6.1: a 401 says how to authenticate), if its scheme has one.
    fn challenge(&self, verdict: &Verdict) -> Option<HeaderValue>;

    /// The name of the security scheme this authenticator checks, as the agent card declares it
    /// (`securitySchemes`). With a name, the principal records the scheme it proved (or that its
    /// credential was refused), and each agent enforces exactly the requirements its own card
    /// declares (`a2a_core::security`): several agents (tenants) with different schemes can sit
    /// behind one server's layers. Without (the default), a refused credential leaves the
    /// request without a principal for every agent.
    fn scheme(&self) -> Option<&str> {
        None
    }
}

/// What the authentication layers found so far, beyond the principal: the named schemes whose
/// credentials were refused, and whether an unnamed authenticator refused one (then no later
/// layer gives the request a principal).
#[derive(Debug, Clone, Default)]
struct Refusals {
    named: Vec<String>,
    unnamed: bool,
}

/// Records `verdict` of the authenticator checking scheme `scheme` in the request's extensions
/// (the principal and the [`Refusals`]).
fn record(extensions: &mut axum::http::Extensions, scheme: Option<&str>, verdict: &Verdict) {
    let mut refusals = extensions.remove::<Refusals>().unwrap_or_default();
    match (verdict, scheme) {
        (Verdict::Absent, _) => {}
        (Verdict::Valid(_), _) if refusals.unnamed => {}
        (Verdict::Valid(found), _) => {
            let mut principal = found.clone();
            if let Some(name) = scheme {
                if principal.proved(name).is_none() {
                    principal = principal.with_scheme(name, Vec::<String>::new());
                }
            }
            // Later layers name the principal; the schemes proved add up.
            if let Some(earlier) = extensions.remove::<Principal>() {
                for granted in earlier.schemes {
                    principal = principal.with_scheme(granted.name, granted.scopes);
                }
            }
            principal.refused.clone_from(&refusals.named);
            extensions.insert(principal);
        }
        (Verdict::Invalid, Some(name)) => {
            refusals.named.push(name.to_owned());
            if let Some(principal) = extensions.get_mut::<Principal>() {
                principal.refused.push(name.to_owned());
            }
        }
        (Verdict::Invalid, None) => {
            refusals.unnamed = true;
            extensions.remove::<Principal>();
        }
    }
    extensions.insert(refusals);
}

/// The tower layer of an [`Authenticator`], for [`ServerBuilder::layer`](crate::ServerBuilder::layer).
#[derive(Debug)]
pub struct AuthLayer<A> {
    authenticator: Arc<A>,
}

impl<A> Clone for AuthLayer<A> {
    fn clone(&self) -> Self {
        AuthLayer { authenticator: Arc::clone(&self.authenticator) }
    }
}

impl<A: Authenticator> AuthLayer<A> {
    /// The layer that runs `authenticator` on every request.
    pub fn new(authenticator: A) -> Self {
        AuthLayer { authenticator: Arc::new(authenticator) }
    }
}

impl<S, A> tower::Layer<S> for AuthLayer<A> {
    type Service = AuthService<S, A>;

    fn layer(&self, inner: S) -> Self::Service {
        AuthService { authenticator: Arc::clone(&self.authenticator), inner }
    }
}

/// The service an [`AuthLayer`] wraps around the bindings.
#[derive(Debug)]
pub struct AuthService<S, A> {
    authenticator: Arc<A>,
    inner: S,
}

impl<S: Clone, A> Clone for AuthService<S, A> {
    fn clone(&self) -> Self {
        AuthService { authenticator: Arc::clone(&self.authenticator), inner: self.inner.clone() }
    }
}

impl<S, A, B, R> tower::Service<Request<B>> for AuthService<S, A>
where
    A: Authenticator,
    S: tower::Service<Request<B>, Response = Response<R>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<R>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let authenticator = Arc::clone(&self.authenticator);
        // The service polled ready is the one to call; a clone takes its place (tower's rule
        // for services called from a future).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let verdict = authenticator.authenticate(&parts).await;
            record(&mut parts.extensions, authenticator.scheme(), &verdict);
            let mut response = inner.call(Request::from_parts(parts, body)).await?;
            if response.status() == StatusCode::UNAUTHORIZED {
                if let Some(challenge) = authenticator.challenge(&verdict) {
                    // One challenge per declared scheme (RFC 9110 11.6.1 allows several).
                    response.headers_mut().append(header::WWW_AUTHENTICATE, challenge);
                }
            }
            Ok(response)
        })
    }
}

/// The credentials of an `Authorization: <scheme> <credentials>` header, if the request has
/// exactly one such header with this scheme (case-insensitive, RFC 9110 11.1).
pub(crate) fn authorization<'a>(request: &'a Parts, scheme: &str) -> Option<Result<&'a str, ()>> {
    let mut values = request.headers.get_all(header::AUTHORIZATION).iter();
    let value = values.next()?;
    let Ok(value) = value.to_str() else { return Some(Err(())) };
    let (given, credentials) = value.split_once(' ').unwrap_or((value, ""));
    if !given.eq_ignore_ascii_case(scheme) {
        return None;
    }
    if values.next().is_some() {
        // Two Authorization headers: which one counts is ambiguous, so neither does.
        return Some(Err(()));
    }
    let credentials = credentials.trim();
    if credentials.is_empty() {
        return Some(Err(()));
    }
    Some(Ok(credentials))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(values: &[&str]) -> Parts {
        let mut request = Request::get("/");
        for value in values {
            request = request.header("authorization", *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn authorization_takes_one_header_of_the_scheme() {
        assert_eq!(authorization(&parts(&["Bearer abc"]), "Bearer"), Some(Ok("abc")));
        assert_eq!(authorization(&parts(&["bearer  abc "]), "Bearer"), Some(Ok("abc")));
        assert_eq!(authorization(&parts(&["Basic abc"]), "Bearer"), None);
        assert_eq!(authorization(&parts(&[]), "Bearer"), None);
        assert_eq!(authorization(&parts(&["Bearer"]), "Bearer"), Some(Err(())));
        assert_eq!(authorization(&parts(&["Bearer a", "Bearer b"]), "Bearer"), Some(Err(())));
    }
}
