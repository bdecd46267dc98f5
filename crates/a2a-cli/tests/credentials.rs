//! `--basic` and an API key in a query parameter, through a2a-client's `Credentials`: the built
//! `a2a-cli` against the reference server (demo agent) behind authenticators, on every binding
//! that can carry the credential.

mod common;

use common::*;

use a2a_proto::v1::{security_scheme::Scheme, HttpAuthSecurityScheme, SecurityRequirement, SecurityScheme};
use a2a_server::auth::{ApiKeys, KeyLocation};
use a2a_server::Server;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_goes_in_the_query_parameter_the_card_names() {
    let keys = ApiKeys::new("key", KeyLocation::Query("api_key".into())).key("k1", "alice");
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
    for transport in ["jsonrpc", "http+json"] {
        let output = cli(&["send", "-a", &url, "--transport", transport, "--api-key", "k1", "hi"]).await;
        assert_eq!(output.status.code(), Some(0), "{transport}: {}", stderr(&output));
        let output = cli(&["send", "-a", &url, "--transport", transport, "--api-key", "k2", "hi"]).await;
        assert_eq!(output.status.code(), Some(4), "{transport}: {}", stderr(&output));
    }
    // gRPC has no query: the key cannot travel, the agent refuses, and --debug says why.
    let output = cli(&["send", "-a", &url, "--transport", "grpc", "--api-key", "k1", "--debug", "hi"]).await;
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("security requirement not satisfied: key (missing: key)"),
        "{}",
        stderr(&output)
    );
    server.shutdown().await.unwrap();
}

/// Accepts RFC 7617's example credentials (Aladdin / open sesame) as `aladdin`.
struct Aladdin;

#[async_trait::async_trait]
impl a2a_server::auth::Authenticator for Aladdin {
    async fn authenticate(&self, request: &axum::http::request::Parts) -> a2a_server::auth::Verdict {
        use a2a_server::auth::Verdict;
        match request.headers.get("authorization").and_then(|v| v.to_str().ok()) {
            Some("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==") => Verdict::Valid(a2a_core::Principal::new("aladdin")),
            Some(other) if other.starts_with("Basic ") => Verdict::Invalid,
            _ => Verdict::Absent,
        }
    }

    fn challenge(&self, _: &a2a_server::auth::Verdict) -> Option<axum::http::HeaderValue> {
        Some(axum::http::HeaderValue::from_static("Basic realm=\"test\""))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_goes_to_a_basic_scheme_only() {
    let mut card = a2a_demo::demo_card();
    card.security_schemes.insert(
        "basic".into(),
        SecurityScheme {
            scheme: Some(Scheme::HttpAuthSecurityScheme(HttpAuthSecurityScheme {
                scheme: "Basic".into(),
                ..Default::default()
            })),
        },
    );
    card.security_requirements = vec![SecurityRequirement {
        schemes: [("basic".to_owned(), Default::default())].into_iter().collect(),
    }];
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(card)
        .executor(a2a_demo::DemoAgent)
        .layer(a2a_server::auth::AuthLayer::new(Aladdin))
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    for transport in ["jsonrpc", "http+json"] {
        let output =
            cli(&["task", "list", "-a", &url, "--transport", transport, "--basic", "Aladdin:open sesame"])
                .await;
        assert_eq!(output.status.code(), Some(0), "{transport}: {}", stderr(&output));
        let output =
            cli(&["task", "list", "-a", &url, "--transport", transport, "--basic", "Aladdin:nope"]).await;
        assert_eq!(output.status.code(), Some(4), "{transport}: {}", stderr(&output));
    }
    // A bearer token is not what this card declares: not sent (the agent refuses the call without
    // it), and --debug says so.
    let output = cli(&["task", "list", "-a", &url, "--bearer", "t", "--debug"]).await;
    assert_eq!(output.status.code(), Some(4), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("not sent: the card declares no scheme that accepts a bearer token"),
        "{}",
        stderr(&output)
    );
    // Not USER:PASSWORD: a usage error.
    let output = cli(&["task", "list", "-a", &url, "--basic", "Aladdin"]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    server.shutdown().await.unwrap();
}
