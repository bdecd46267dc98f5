//! Authentication in front of every binding: a tower layer that says who the caller is, by
//! putting an [`a2a_core::Principal`] in the request's extensions. Each binding (JSON-RPC,
//! HTTP+JSON, gRPC, and their 0.3 surface) copies it into the `CallContext`; the handler
//! enforces what the agent card declares (an agent with `securityRequirements` answers
//! `Unauthenticated` to a caller without a principal: HTTP 401, gRPC `UNAUTHENTICATED`,
//! JSON-RPC -32010) and scopes every task to its creator (spec 13.1: another principal gets
//! `TaskNotFound`). A layer only identifies; it never answers by itself, so the answer to a
//! missing and to a wrong credential is the same, and the agent card stays public.
//!
//! [`ApiKeys`] is the built-in authenticator for API keys (`--api-key KEY=PRINCIPAL` on the
//! reference server); any other is a layer of the same shape given to
//! [`ServerBuilder::layer`](crate::ServerBuilder::layer).

use std::collections::HashMap;
use std::sync::Arc;
use std::task::{Context, Poll};

use a2a_core::Principal;
use a2a_proto::v1::{security_scheme, ApiKeySecurityScheme, SecurityRequirement, SecurityScheme, StringList};
use axum::http::{header, HeaderName, HeaderValue, Request, Response, StatusCode};
use futures::future::BoxFuture;

/// Where a client presents its API key (the card's `location`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyLocation {
    /// A request header (for gRPC, the metadata entry of the same name).
    Header(HeaderName),
    /// A query parameter (HTTP bindings only).
    Query(String),
    /// A cookie.
    Cookie(String),
}

/// API keys, each standing for a principal (see the module docs).
#[derive(Debug, Clone)]
pub struct ApiKeys {
    scheme: String,
    location: KeyLocation,
    keys: HashMap<String, Principal>,
}

impl ApiKeys {
    /// Keys read from `location`, declared in the card as the scheme `scheme` (e.g. `"apiKey"`).
    pub fn new(scheme: impl Into<String>, location: KeyLocation) -> Self {
        ApiKeys { scheme: scheme.into(), location, keys: HashMap::new() }
    }

    /// Accepts `key` as `principal`.
    pub fn key(mut self, key: impl Into<String>, principal: impl Into<String>) -> Self {
        self.keys.insert(key.into(), Principal::new(principal));
        self
    }

    /// The scheme's name in the card.
    pub fn scheme_name(&self) -> &str {
        &self.scheme
    }

    /// The card's `securitySchemes` entry for these keys.
    pub fn security_scheme(&self) -> SecurityScheme {
        let (location, name) = match &self.location {
            KeyLocation::Header(name) => ("header", name.as_str().to_owned()),
            KeyLocation::Query(name) => ("query", name.clone()),
            KeyLocation::Cookie(name) => ("cookie", name.clone()),
        };
        SecurityScheme {
            scheme: Some(security_scheme::Scheme::ApiKeySecurityScheme(ApiKeySecurityScheme {
                description: "An API key issued by the operator of this agent.".into(),
                location: location.into(),
                name,
            })),
        }
    }

    /// Declares these keys in `card`: the scheme, and a requirement for it on every operation.
    pub fn declare_in(&self, card: &mut a2a_proto::v1::AgentCard) {
        card.security_schemes.insert(self.scheme.clone(), self.security_scheme());
        let mut schemes = HashMap::new();
        schemes.insert(self.scheme.clone(), StringList { list: Vec::new() });
        card.security_requirements.push(SecurityRequirement { schemes });
    }

    /// The principal whose key `request` presents, if any.
    pub fn principal_of<B>(&self, request: &Request<B>) -> Option<Principal> {
        let presented = match &self.location {
            KeyLocation::Header(name) => {
                request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
            }
            KeyLocation::Query(name) => request.uri().query().and_then(|query| {
                url::form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
            }),
            KeyLocation::Cookie(name) => request
                .headers()
                .get_all(header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(';'))
                .filter_map(|pair| pair.trim().split_once('='))
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_owned()),
        }?;
        self.keys.get(presented.trim()).cloned()
    }

    /// The layer for [`ServerBuilder::layer`](crate::ServerBuilder::layer).
    pub fn layer(self) -> ApiKeyLayer {
        let challenge = HeaderValue::from_str(&format!("ApiKey realm=\"a2a\", scheme=\"{}\"", self.scheme))
            .unwrap_or_else(|_| HeaderValue::from_static("ApiKey realm=\"a2a\""));
        ApiKeyLayer { keys: Arc::new(self), challenge }
    }
}

/// The tower layer of [`ApiKeys`].
#[derive(Debug, Clone)]
pub struct ApiKeyLayer {
    keys: Arc<ApiKeys>,
    challenge: HeaderValue,
}

impl<S> tower::Layer<S> for ApiKeyLayer {
    type Service = ApiKeyService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        ApiKeyService { keys: Arc::clone(&self.keys), challenge: self.challenge.clone(), inner }
    }
}

/// The service [`ApiKeyLayer`] wraps around the bindings.
#[derive(Debug, Clone)]
pub struct ApiKeyService<S> {
    keys: Arc<ApiKeys>,
    challenge: HeaderValue,
    inner: S,
}

impl<S, B, R> tower::Service<Request<B>> for ApiKeyService<S>
where
    S: tower::Service<Request<B>, Response = Response<R>> + Send,
    S::Future: Send + 'static,
{
    type Response = Response<R>;
    type Error = S::Error;
    type Future = BoxFuture<'static, Result<Response<R>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        // Only this layer says who the caller is: a principal an earlier layer left is replaced.
        match self.keys.principal_of(&request) {
            Some(principal) => {
                request.extensions_mut().insert(principal);
            }
            None => {
                request.extensions_mut().remove::<Principal>();
            }
        }
        let challenge = self.challenge.clone();
        let response = self.inner.call(request);
        Box::pin(async move {
            let mut response = response.await?;
            // RFC 9110 11.6.1: a 401 says how to authenticate.
            if response.status() == StatusCode::UNAUTHORIZED {
                response.headers_mut().entry(header::WWW_AUTHENTICATE).or_insert(challenge);
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(location: KeyLocation) -> ApiKeys {
        ApiKeys::new("apiKey", location).key("k-alice", "alice")
    }

    #[test]
    fn keys_are_read_where_the_card_says() {
        let header = keys(KeyLocation::Header(HeaderName::from_static("x-api-key")));
        let request = Request::get("/").header("x-api-key", "k-alice").body(()).unwrap();
        assert_eq!(header.principal_of(&request), Some(Principal::new("alice")));
        let wrong = Request::get("/").header("x-api-key", "k-mallory").body(()).unwrap();
        assert_eq!(header.principal_of(&wrong), None);
        let elsewhere = Request::get("/?x-api-key=k-alice").body(()).unwrap();
        assert_eq!(header.principal_of(&elsewhere), None, "only where the card says");

        let query = keys(KeyLocation::Query("key".into()));
        assert_eq!(
            query.principal_of(&Request::get("/tasks?a=1&key=k-alice").body(()).unwrap()),
            Some(Principal::new("alice"))
        );
        let cookie = keys(KeyLocation::Cookie("a2a".into()));
        let request = Request::get("/").header("cookie", "theme=dark; a2a=k-alice").body(()).unwrap();
        assert_eq!(cookie.principal_of(&request), Some(Principal::new("alice")));
    }

    #[test]
    fn the_card_declares_the_scheme_and_requires_it() {
        let mut card = a2a_proto::v1::AgentCard::default();
        keys(KeyLocation::Header(HeaderName::from_static("x-api-key"))).declare_in(&mut card);
        let Some(security_scheme::Scheme::ApiKeySecurityScheme(scheme)) =
            &card.security_schemes["apiKey"].scheme
        else {
            panic!("an API key scheme")
        };
        assert_eq!((scheme.location.as_str(), scheme.name.as_str()), ("header", "x-api-key"));
        assert!(card.security_requirements[0].schemes.contains_key("apiKey"));
    }
}
