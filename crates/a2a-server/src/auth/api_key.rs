//! API keys (`--api-key KEY=PRINCIPAL` on the reference server): a key in a header, a query
//! parameter or a cookie, as the card's `apiKeySecurityScheme` declares.

use std::collections::HashMap;

use a2a_core::Principal;
use a2a_proto::v1::{security_scheme, ApiKeySecurityScheme, SecurityRequirement, SecurityScheme, StringList};
use axum::http::{header, request::Parts, HeaderName, HeaderValue, Request};

use super::{AuthLayer, Authenticator, Verdict};

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
        self.presented(request.headers(), request.uri()).and_then(|key| self.keys.get(key.trim()).cloned())
    }

    /// The key the request presents where the card says, if any.
    fn presented(&self, headers: &axum::http::HeaderMap, uri: &axum::http::Uri) -> Option<String> {
        match &self.location {
            KeyLocation::Header(name) => headers.get(name).map(|v| v.to_str().unwrap_or_default().to_owned()),
            KeyLocation::Query(name) => uri.query().and_then(|query| {
                url::form_urlencoded::parse(query.as_bytes())
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.into_owned())
            }),
            KeyLocation::Cookie(name) => headers
                .get_all(header::COOKIE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(';'))
                .filter_map(|pair| pair.trim().split_once('='))
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_owned()),
        }
    }

    /// The layer for [`ServerBuilder::layer`](crate::ServerBuilder::layer).
    pub fn layer(self) -> ApiKeyLayer {
        AuthLayer::new(self)
    }
}

/// The tower layer of [`ApiKeys`].
pub type ApiKeyLayer = AuthLayer<ApiKeys>;

#[async_trait::async_trait]
impl Authenticator for ApiKeys {
    async fn authenticate(&self, request: &Parts) -> Verdict {
        match self.presented(&request.headers, &request.uri) {
            None => Verdict::Absent,
            Some(key) => self.keys.get(key.trim()).cloned().map_or(Verdict::Invalid, Verdict::Valid),
        }
    }

    fn scheme(&self) -> Option<&str> {
        Some(&self.scheme)
    }

    fn challenge(&self, _: &Verdict) -> Option<HeaderValue> {
        Some(
            HeaderValue::from_str(&format!("ApiKey realm=\"a2a\", scheme=\"{}\"", self.scheme))
                .unwrap_or_else(|_| HeaderValue::from_static("ApiKey realm=\"a2a\"")),
        )
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
