//! `Credentials` against the reference server with real authenticators, on every binding: an API
//! key where the card says (header, query parameter, cookie), a bearer token from a token source
//! refreshed once after a refusal, HTTP Basic, and credentials the card declares no scheme for
//! that are never sent (nor with the card fetch).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use a2a_client::{Binding, Client, CredentialKind, Credentials, TokenSource};
use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{
    security_scheme::Scheme, HttpAuthSecurityScheme, Message, SecurityRequirement, SecurityScheme,
    SendMessageRequest,
};
use a2a_server::auth::{ApiKeys, AuthLayer, Authenticator, KeyLocation, Verdict};
use a2a_server::{RunningServer, Server};
use axum::http::{request::Parts, HeaderValue};

const BINDINGS: [Binding; 3] = [Binding::JsonRpc, Binding::Rest, Binding::Grpc];

fn send() -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() }
}

/// What the server saw: every request's credential-bearing headers (path, name, value).
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, String, String)>>>);

impl Seen {
    fn all(&self) -> Vec<(String, String, String)> {
        self.0.lock().unwrap().clone()
    }
}

/// Accepts `Authorization: <scheme> <accepted>` as `alice`; any other value of that scheme is
/// refused with the challenge `<scheme> realm="test"` (plus `error="invalid_token"` for Bearer).
/// Records the credential headers of every request in `seen`.
struct HttpAuth {
    scheme: &'static str,
    accepted: String,
    seen: Seen,
}

#[async_trait::async_trait]
impl Authenticator for HttpAuth {
    async fn authenticate(&self, request: &Parts) -> Verdict {
        if request.uri.path().starts_with("/.well-known/") {
            // Every card fetch, to show the layer sees them.
            self.seen.0.lock().unwrap().push((request.uri.to_string(), "(card fetch)".into(), String::new()));
        }
        for name in ["authorization", "x-agent-key", "cookie"] {
            for value in request.headers.get_all(name) {
                self.seen.0.lock().unwrap().push((
                    request.uri.to_string(),
                    name.to_owned(),
                    value.to_str().unwrap_or_default().to_owned(),
                ));
            }
        }
        if request.uri.query().is_some_and(|q| q.contains("api_key")) {
            self.seen.0.lock().unwrap().push((request.uri.to_string(), "query".into(), String::new()));
        }
        let Some(value) = request.headers.get("authorization").and_then(|v| v.to_str().ok()) else {
            return Verdict::Absent;
        };
        match value.split_once(' ') {
            Some((scheme, credential)) if scheme.eq_ignore_ascii_case(self.scheme) => {
                if credential == self.accepted {
                    Verdict::Valid(a2a_core::Principal::new("alice"))
                } else {
                    Verdict::Invalid
                }
            }
            _ => Verdict::Absent,
        }
    }

    fn challenge(&self, verdict: &Verdict) -> Option<HeaderValue> {
        let error = if *verdict == Verdict::Invalid && self.scheme == "Bearer" {
            r#", error="invalid_token""#
        } else {
            ""
        };
        HeaderValue::from_str(&format!(r#"{} realm="test"{error}"#, self.scheme)).ok()
    }
}

/// The demo agent with `scheme` declared and required, behind `auth`.
async fn server_with(name: &str, scheme: Scheme, auth: HttpAuth) -> RunningServer {
    let mut card = a2a_demo::demo_card();
    card.security_schemes.insert(name.into(), SecurityScheme { scheme: Some(scheme) });
    card.security_requirements =
        vec![SecurityRequirement { schemes: [(name.to_owned(), Default::default())].into_iter().collect() }];
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(card)
        .executor(a2a_demo::DemoAgent)
        .layer(AuthLayer::new(auth))
        .spawn(listener)
        .await
        .unwrap()
}

fn http_scheme(scheme: &str) -> Scheme {
    Scheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme { scheme: scheme.into(), ..Default::default() })
}

async fn client(url: &str, binding: Binding, credentials: Credentials) -> Client {
    Client::builder().bindings([binding]).credentials(credentials).connect(url).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_goes_in_the_header_query_parameter_or_cookie_the_card_names() {
    for location in [
        KeyLocation::Header("x-agent-key".parse().unwrap()),
        KeyLocation::Query("api_key".into()),
        KeyLocation::Cookie("sid".into()),
    ] {
        let keys = ApiKeys::new("key", location.clone()).key("k1", "alice");
        let mut card = a2a_demo::demo_card();
        keys.declare_in(&mut card);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let server = Server::builder()
            .agent_card(card)
            .executor(a2a_demo::DemoAgent)
            .layer(keys.layer())
            .spawn(listener)
            .await
            .unwrap();
        let url = server.url();
        for binding in BINDINGS {
            let agent = client(&url, binding, Credentials::new().api_key("k1")).await;
            let result = agent.send_message(&CallContext::v1(), send()).await;
            if matches!(location, KeyLocation::Query(_)) && binding == Binding::Grpc {
                // A gRPC call has no query: the key is not sent, and the client says so.
                assert!(matches!(result, Err(Error::Unauthenticated { .. })), "{result:?}");
                assert_eq!(agent.unmet_security()[0].missing, ["key"]);
                continue;
            }
            assert!(result.is_ok(), "{location:?} over {binding}: {result:?}");
            assert!(agent.unmet_security().is_empty());
            assert_eq!(agent.presentation().schemes(), ["key"]);
            let wrong = client(&url, binding, Credentials::new().api_key("k2")).await;
            let error = wrong.send_message(&CallContext::v1(), send()).await.unwrap_err();
            assert!(matches!(error, Error::Unauthenticated { .. }), "{location:?} over {binding}: {error:?}");
        }
        server.shutdown().await.unwrap();
    }
}

/// Tokens `stale`, then `good` after each refresh (or always `bad`); counts the asks.
struct Tokens {
    asked: Arc<AtomicUsize>,
    refreshed: Arc<AtomicUsize>,
    always_bad: bool,
}

#[async_trait::async_trait]
impl TokenSource for Tokens {
    async fn token(&self, refresh: bool) -> a2a_core::Result<String> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        if refresh {
            self.refreshed.fetch_add(1, Ordering::SeqCst);
        }
        Ok(match (self.always_bad, self.refreshed.load(Ordering::SeqCst)) {
            (true, _) => "bad".into(),
            (false, 0) => "stale".into(),
            (false, _) => "good".into(),
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_source_is_refreshed_once_after_a_refusal_and_a_second_refusal_is_typed() {
    let seen = Seen::default();
    let auth = HttpAuth { scheme: "Bearer", accepted: "good".into(), seen: seen.clone() };
    let server = server_with("bearer", http_scheme("Bearer"), auth).await;
    let url = server.url();
    for binding in BINDINGS {
        let (asked, refreshed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let source = Tokens { asked: asked.clone(), refreshed: refreshed.clone(), always_bad: false };
        let agent = client(&url, binding, Credentials::new().token_source(source)).await;
        agent.send_message(&CallContext::v1(), send()).await.unwrap();
        assert_eq!(refreshed.load(Ordering::SeqCst), 1, "{binding}: one refresh after the 401");
        // The next call uses the refreshed token straight away.
        agent.send_message(&CallContext::v1(), send()).await.unwrap();
        assert_eq!((asked.load(Ordering::SeqCst), refreshed.load(Ordering::SeqCst)), (3, 1), "{binding}");

        let (asked, refreshed) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let source = Tokens { asked: asked.clone(), refreshed: refreshed.clone(), always_bad: true };
        let agent = client(&url, binding, Credentials::new().token_source(source)).await;
        let before = seen.all().len();
        let error = agent.send_message(&CallContext::v1(), send()).await.unwrap_err();
        assert_eq!(refreshed.load(Ordering::SeqCst), 1, "{binding}: refreshed once, not more");
        assert_eq!(seen.all().len() - before, 2, "{binding}: the call and one retry");
        let refusal = agent.refusal(&error).expect("an unauthenticated error");
        assert_eq!(refusal.schemes, [("bearer".to_owned(), "HTTP Bearer".to_owned())], "{binding}");
        assert!(refusal.unmet.is_empty(), "a token was presented");
        if binding == Binding::Rest {
            // HTTP+JSON answers 401 with the challenge; JSON-RPC (-32010 in a 200) and gRPC
            // (UNAUTHENTICATED) carry none, so the card's schemes are what the caller has.
            let challenge = refusal.challenges.iter().find(|c| c.scheme == "Bearer").expect("a challenge");
            assert_eq!(challenge.param("error"), Some("invalid_token"), "{refusal:?}");
            assert_eq!(challenge.param("realm"), Some("test"));
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_credentials_go_to_a_basic_scheme() {
    let seen = Seen::default();
    // RFC 7617's own example: Aladdin / open sesame.
    let auth = HttpAuth { scheme: "Basic", accepted: "QWxhZGRpbjpvcGVuIHNlc2FtZQ==".into(), seen };
    let server = server_with("basic", http_scheme("Basic"), auth).await;
    for binding in BINDINGS {
        let agent = client(&server.url(), binding, Credentials::new().basic("Aladdin", "open sesame")).await;
        agent.send_message(&CallContext::v1(), send()).await.unwrap();
        let wrong = client(&server.url(), binding, Credentials::new().basic("Aladdin", "nope")).await;
        let error = wrong.send_message(&CallContext::v1(), send()).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{binding}: {error:?}");
        // Nothing at all: the requirement is unmet, the call is made and refused.
        let anonymous = client(&server.url(), binding, Credentials::new()).await;
        assert_eq!(anonymous.unmet_security()[0].missing, ["basic"]);
        let error = anonymous.send_message(&CallContext::v1(), send()).await.unwrap_err();
        assert!(anonymous.refusal(&error).is_some_and(|r| r.unmet.len() == 1), "{binding}: {error:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credentials_the_card_declares_no_scheme_for_are_never_sent_nor_with_the_card() {
    let seen = Seen::default();
    // The card declares Basic only; the caller also holds a bearer token and an API key.
    let auth =
        HttpAuth { scheme: "Basic", accepted: "QWxhZGRpbjpvcGVuIHNlc2FtZQ==".into(), seen: seen.clone() };
    let server = server_with("basic", http_scheme("Basic"), auth).await;
    let credentials = Credentials::new().bearer("t0k3n").api_key("k3y").basic("Aladdin", "open sesame");
    for binding in BINDINGS {
        let agent = client(&server.url(), binding, credentials.clone()).await;
        assert_eq!(agent.presentation().unaccepted(), [CredentialKind::ApiKey, CredentialKind::Bearer]);
        agent.send_message(&CallContext::v1(), send()).await.unwrap();
        agent.get_extended_agent_card(&CallContext::v1(), Default::default()).await.ok();
    }
    let seen = seen.all();
    let card_fetches = seen.iter().filter(|(_, name, _)| name == "(card fetch)").count();
    assert_eq!(card_fetches, 3, "the layer sees the card fetches: {seen:?}");
    for (path, name, value) in &seen {
        assert!(!value.contains("t0k3n") && !value.contains("k3y"), "{path}: {name}: {value}");
        if name != "(card fetch)" {
            assert!(!path.contains(".well-known"), "the card was fetched with a credential: {name}");
        }
    }
    server.shutdown().await.unwrap();
}

/// The reference server behind a proxy that answers 401 with two challenges to any request
/// without `Authorization: Bearer good`, except the card.
async fn behind_a_challenging_proxy() -> String {
    async fn guard(
        request: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        let authorized = request.headers().get("authorization").is_some_and(|v| v == "Bearer good");
        if authorized || request.uri().path().starts_with("/.well-known/") {
            return next.run(request).await;
        }
        let mut response = axum::response::Response::new(axum::body::Body::from("go away"));
        *response.status_mut() = axum::http::StatusCode::UNAUTHORIZED;
        let headers = response.headers_mut();
        headers.append("www-authenticate", HeaderValue::from_static(r#"Bearer realm="proxy", scope="a2a""#));
        headers.append("www-authenticate", HeaderValue::from_static("Negotiate"));
        response
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut card = a2a_demo::demo_card();
    card.security_schemes.insert("bearer".into(), SecurityScheme { scheme: Some(http_scheme("Bearer")) });
    let app = Server::builder().agent_card(card).executor(a2a_demo::DemoAgent).app(addr).unwrap();
    let router = app.router.layer(axum::middleware::from_fn(guard));
    tokio::spawn(async move { axum::serve(listener, router).await });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_s_challenges_reach_the_caller_over_json_rpc_and_rest() {
    let url = behind_a_challenging_proxy().await;
    for binding in [Binding::JsonRpc, Binding::Rest] {
        let agent = client(&url, binding, Credentials::new().bearer("bad")).await;
        let error = agent.send_message(&CallContext::v1(), send()).await.unwrap_err();
        let refusal = agent.refusal(&error).unwrap_or_else(|| panic!("{binding}: {error:?}"));
        let schemes: Vec<&str> = refusal.challenges.iter().map(|c| c.scheme.as_str()).collect();
        assert_eq!(schemes, ["Bearer", "Negotiate"], "{binding}: {refusal:?}");
        assert_eq!(refusal.challenges[0].param("realm"), Some("proxy"));
        assert_eq!(refusal.challenges[0].param("scope"), Some("a2a"));
        let streaming =
            agent.send_streaming_message(&CallContext::v1(), send()).await.err().expect("refused");
        assert_eq!(agent.refusal(&streaming).map(|r| r.challenges.len()), Some(2), "{binding}: streaming");
        let good = client(&url, binding, Credentials::new().bearer("good")).await;
        good.send_message(&CallContext::v1(), send()).await.unwrap();
        // Not a refusal: no reading.
        assert!(good.refusal(&Error::internal("x")).is_none());
    }
}
