//! Bearer JWTs in front of every binding (`a2a_server::auth::Jwt`), against a real JWKS and
//! OpenID Connect discovery server on loopback, with keys and tokens made in the test: a good
//! token reaches the handler as its `sub`, and principals stay apart (spec 13.1); every bad token
//! (malformed, expired, wrong issuer or audience, `alg: none`, HS/RS confusion, unknown or rotated
//! key) is Unauthenticated on JSON-RPC, HTTP+JSON and gRPC, 1.0 and 0.3, with HTTP 401 and an
//! RFC 6750 challenge; and no token text reaches the logs.

use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_core::{A2aService, CallContext, Error};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{GetTaskRequest, TaskState};
use a2a_rest::RestClient;
use a2a_server::auth::{Jwt, JwtError};
use a2a_server::RunningServer;
use aws_lc_rs::encoding::AsDer as _;
use aws_lc_rs::signature::KeyPair as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{json, Value};

mod common;

use common::{clients, demo, send, spawn, task_of};

const AUDIENCE: &str = "https://agent.example.com";

/// An RSA signing key with its key id, as the test's identity provider holds it.
struct RsaKey {
    kid: String,
    private_pem: String,
    public_pem: String,
    jwk: Value,
}

fn pem(label: &str, der: &[u8]) -> String {
    let body = STANDARD.encode(der);
    let lines: Vec<&str> = body.as_bytes().chunks(64).map(|c| std::str::from_utf8(c).unwrap()).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----\n", lines.join("\n"))
}

fn rsa_key(kid: &str) -> RsaKey {
    let pair = aws_lc_rs::rsa::KeyPair::generate(aws_lc_rs::rsa::KeySize::Rsa2048).unwrap();
    let private = pair.as_der().unwrap();
    let public = pair.public_key();
    let jwk = json!({
        "kty": "RSA",
        "kid": kid,
        "use": "sig",
        "alg": "RS256",
        "n": URL_SAFE_NO_PAD.encode(public.modulus().big_endian_without_leading_zero()),
        "e": URL_SAFE_NO_PAD.encode(public.exponent().big_endian_without_leading_zero()),
    });
    RsaKey {
        kid: kid.into(),
        private_pem: pem("PRIVATE KEY", private.as_ref()),
        public_pem: pem("PUBLIC KEY", public.as_der().unwrap().as_ref()),
        jwk,
    }
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs() as i64
}

/// Claims valid for `issuer`, the test's audience, for ten minutes.
fn claims(sub: &str, issuer: &str) -> Value {
    json!({"sub": sub, "iss": issuer, "aud": AUDIENCE, "iat": now(), "exp": now() + 600})
}

fn sign(key: &RsaKey, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_rsa_pem(key.private_pem.as_bytes()).unwrap())
        .unwrap()
}

fn sign_hs(secret: &[u8], kid: Option<&str>, claims: &Value) -> String {
    let mut header = Header::new(Algorithm::HS256);
    header.kid = kid.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, &EncodingKey::from_secret(secret)).unwrap()
}

/// A token with `alg: none` and no signature (RFC 7519 6.1), which must never be accepted.
fn unsecured(claims: &Value) -> String {
    let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","typ":"JWT"}"#);
    format!("{header}.{}.", URL_SAFE_NO_PAD.encode(claims.to_string()))
}

/// The test's identity provider: a JWKS (replaceable, to rotate keys) and a discovery document
/// naming itself as the issuer, on a loopback port; it counts the JWKS fetches.
struct Idp {
    url: String,
    jwks: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Idp {
    async fn start(keys: &[&RsaKey]) -> Idp {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let jwks =
            Arc::new(Mutex::new(json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()})));
        let fetches = Arc::new(AtomicUsize::new(0));
        let discovery = json!({
            "issuer": url,
            "jwks_uri": format!("{url}/jwks.json"),
            "authorization_endpoint": format!("{url}/authorize"),
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
        });
        // RFC 8414 metadata: a machine-to-machine server (client credentials).
        let metadata = json!({
            "issuer": url,
            "jwks_uri": format!("{url}/jwks.json"),
            "token_endpoint": format!("{url}/token"),
            "grant_types_supported": ["client_credentials"],
            "scopes_supported": ["a2a.tasks"],
        });
        let (served, counted) = (Arc::clone(&jwks), Arc::clone(&fetches));
        let app = axum::Router::new()
            .route(
                "/jwks.json",
                axum::routing::get(move || {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let body = served.lock().unwrap().clone();
                    async move { json_response(&body) }
                }),
            )
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || {
                    let body = metadata.clone();
                    async move { json_response(&body) }
                }),
            )
            .route(
                "/.well-known/openid-configuration",
                axum::routing::get(move || {
                    let body = discovery.clone();
                    async move { json_response(&body) }
                }),
            );
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Idp { url, jwks, fetches, task }
    }

    fn jwks_url(&self) -> String {
        format!("{}/jwks.json", self.url)
    }

    fn publish(&self, keys: &[&RsaKey]) {
        *self.jwks.lock().unwrap() = json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()});
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

impl Drop for Idp {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn json_response(body: &Value) -> impl axum::response::IntoResponse {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], body.to_string())
}

async fn server(jwt: Jwt) -> RunningServer {
    let mut card = a2a_demo::demo_card();
    jwt.declare_in(&mut card);
    spawn(demo(card).layer(jwt.layer())).await
}

fn bearer(token: &str) -> CallContext {
    let mut ctx = CallContext::v1();
    ctx.params.insert("authorization", format!("Bearer {token}"));
    ctx
}

/// On every binding, a token of `issuer` signed by `key` is accepted, and one of another issuer
/// refused.
async fn assert_only_the_issuer_is_accepted(server: &RunningServer, key: &RsaKey, issuer: &str) {
    for (binding, client) in clients(server).await {
        task_of(client.as_ref(), &bearer(&sign(key, &claims("alice", issuer))), "hello").await;
        let other = sign(key, &claims("alice", "https://evil.example.com"));
        assert_refused(client.as_ref(), binding, "another issuer", &other).await;
    }
}

async fn assert_refused(client: &dyn A2aService, binding: &str, what: &str, token: &str) {
    match client.send_message(&bearer(token), send("hello")).await {
        Err(Error::Unauthenticated { .. }) => {}
        other => panic!("{binding}, {what}: Unauthenticated expected, got {other:?}"),
    }
}

/// Everything logged by this test process, at every level and target.
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    Arc::clone(LOGS.get_or_init(|| {
        let logs = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&logs);
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::TRACE)
            .with_ansi(false)
            .with_writer(move || Sink(Arc::clone(&sink)))
            .finish();
        tracing::subscriber::set_global_default(subscriber).unwrap();
        logs
    }))
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_token_is_unauthenticated_on_every_binding_and_none_is_logged() {
    let logs = captured_logs();
    let (published, unpublished) = (rsa_key("k1"), rsa_key("k-unpublished"));
    let idp = Idp::start(&[&published]).await;
    let jwt = Jwt::jwks_url(&idp.jwks_url()).unwrap().issuer(&idp.url).audience(AUDIENCE);
    let server = server(jwt).await;
    let good = claims("alice", &idp.url);
    let with = |change: &dyn Fn(&mut Value)| {
        let mut claims = good.clone();
        change(&mut claims);
        claims
    };
    let mut impostor = rsa_key("k1");
    impostor.private_pem = unpublished.private_pem.clone();
    let bad: Vec<(&str, String)> = vec![
        ("not a JWT", "not-a-jwt".into()),
        ("three parts of nothing", "a.b.c".into()),
        ("expired", sign(&published, &with(&|c| c["exp"] = json!(now() - 600)))),
        ("not yet valid", sign(&published, &with(&|c| c["nbf"] = json!(now() + 600)))),
        ("no expiry", sign(&published, &with(&|c| drop(c.as_object_mut().unwrap().remove("exp"))))),
        ("no subject", sign(&published, &with(&|c| drop(c.as_object_mut().unwrap().remove("sub"))))),
        ("a subject with a line break", sign(&published, &with(&|c| c["sub"] = json!("alice\nlevel=admin")))),
        ("a subject that is not a string", sign(&published, &with(&|c| c["sub"] = json!(42)))),
        ("wrong issuer", sign(&published, &with(&|c| c["iss"] = json!("https://evil.example.com")))),
        ("wrong audience", sign(&published, &with(&|c| c["aud"] = json!("https://other.example.com")))),
        ("alg none", unsecured(&good)),
        // HS/RS confusion: an HMAC over the token with the published public key as the secret.
        ("HS256 with the public key as secret", sign_hs(published.public_pem.as_bytes(), Some("k1"), &good)),
        ("unknown kid", sign(&unpublished, &good)),
        ("a published kid, another key", sign(&impostor, &good)),
        ("oversized", format!("{}.{}.{}", "e".repeat(3000), "e".repeat(3000), "e".repeat(3000))),
    ];
    let accepted = sign(&published, &good);
    for (binding, client) in clients(&server).await {
        for (what, token) in &bad {
            assert_refused(client.as_ref(), binding, what, token).await;
        }
        // Absent, or under another scheme.
        let error = client.send_message(&CallContext::v1(), send("hello")).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{binding}: {error:?}");
        let mut basic = CallContext::v1();
        basic.params.insert("authorization", format!("Basic {accepted}"));
        let error = client.send_message(&basic, send("hello")).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{binding}: {error:?}");
        // And the good one passes.
        task_of(client.as_ref(), &bearer(&accepted), "hello").await;
    }
    server.shutdown().await.unwrap();

    let logs = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(logs.contains("bearer token refused"), "the refusals are logged (without the tokens)");
    for (what, token) in bad.iter().chain([&("the good token", accepted.clone())]) {
        // A token's signature (its last part) or, for those without one, the whole token.
        let secret = token.rsplit('.').find(|part| part.len() > 8).unwrap_or(token);
        assert!(!logs.contains(secret), "{what}: token text in the logs");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_answers_401_with_an_rfc_6750_challenge() {
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let server = server(Jwt::jwks_url(&idp.jwks_url()).unwrap().audience(AUDIENCE)).await;
    let http = reqwest::Client::new();
    let card: Value = http
        .get(format!("{}/.well-known/agent-card.json", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"], "Bearer", "{card}");
    assert_eq!(card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["bearerFormat"], "JWT");
    assert!(card["securityRequirements"][0]["schemes"]["bearer"].is_object(), "{card}");

    let body = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}});
    let rest = |authorization: Option<&str>| {
        let mut request =
            http.post(format!("{}/message:send", server.url())).header("A2A-Version", "1.0").json(&body);
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        request.send()
    };
    // RFC 6750 3.1: no error code without a token; `invalid_token` for a refused one.
    let response = rest(None).await.unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["www-authenticate"], "Bearer realm=\"a2a\"");
    let expired = sign(&key, &json!({"sub": "alice", "aud": AUDIENCE, "exp": now() - 600}));
    for token in ["Bearer not-a-jwt".to_owned(), format!("Bearer {expired}"), "Bearer".to_owned()] {
        let response = rest(Some(&token)).await.unwrap();
        assert_eq!(response.status(), 401, "{token}");
        assert_eq!(response.headers()["www-authenticate"], "Bearer realm=\"a2a\", error=\"invalid_token\"");
        let text = response.text().await.unwrap();
        assert!(!text.contains("expired") && !text.contains("signature"), "no hint of why: {text}");
    }
    // JSON-RPC: the error, -32010, in a JSON-RPC response.
    let response = http
        .post(format!("{}/", server.url()))
        .header("A2A-Version", "1.0")
        .header("authorization", format!("Bearer {expired}"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": body}))
        .send()
        .await
        .unwrap();
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["error"]["code"], -32010, "{reply}");
    // What HTTP itself refuses before any authenticator reads it: a bare CR in a header value
    // (RFC 9110 5.5) is a 400, too many header fields a 431; on HTTP/2 (gRPC) a header list over
    // 16 KiB is a 431 too, which a gRPC client reports as an error without a grpc-status.
    let raw = |request: String| {
        let addr = server.addr();
        async move {
            use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
            let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
            tcp.write_all(request.as_bytes()).await.unwrap();
            let mut answer = Vec::new();
            tcp.read_to_end(&mut answer).await.unwrap();
            String::from_utf8_lossy(&answer).lines().next().unwrap_or_default().to_owned()
        }
    };
    let head = "GET /tasks HTTP/1.1\r\nHost: a2a\r\nA2A-Version: 1.0\r\nConnection: close\r\n";
    let status = raw(format!("{head}Authorization: Bearer abc\rInjected: yes\r\n\r\n")).await;
    assert!(status.starts_with("HTTP/1.1 400"), "{status}");
    let status = raw(format!("{head}Authorization: Bearer abc\0def\r\n\r\n")).await;
    assert!(status.starts_with("HTTP/1.1 400"), "NUL: {status}");
    let many: String = (0..120).map(|i| format!("X-Filler-{i}: {i}\r\n")).collect();
    let status = raw(format!("{head}{many}\r\n")).await;
    assert!(status.starts_with("HTTP/1.1 431"), "{status}");
    let grpc = GrpcClient::connect(server.url()).await.unwrap();
    let huge = bearer(&"a".repeat(20 * 1024));
    match grpc.send_message(&huge, send("hello")).await {
        Err(Error::Internal { reason }) if reason.contains("431") => {}
        other => panic!("a 431 expected, got {other:?}"),
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_token_is_its_subject_and_subjects_stay_apart() {
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let server = server(Jwt::jwks_url(&idp.jwks_url()).unwrap().issuer(&idp.url).audience(AUDIENCE)).await;
    let alice = bearer(&sign(&key, &claims("alice", &idp.url)));
    let bob = bearer(&sign(&key, &claims("bob", &idp.url)));
    for (binding, client) in clients(&server).await {
        let task = task_of(client.as_ref(), &alice, "ask").await;
        let get = || GetTaskRequest { id: task.id.clone(), ..Default::default() };
        assert!(matches!(client.get_task(&bob, get()).await, Err(Error::TaskNotFound { .. })), "{binding}");
        assert_eq!(
            client.get_task(&alice, get()).await.unwrap().state(),
            TaskState::InputRequired,
            "{binding}"
        );
    }
    // Keys are fetched once, not per request.
    assert_eq!(idp.fetches(), 1);
    server.shutdown().await.unwrap();
}

/// `Jwt::required_scopes`: the card's requirement lists the scopes, a token granting them (in
/// `scope`, space-separated, or `scp`, a list) is admitted, and a valid token without them is
/// PermissionDenied (HTTP 403, gRPC PERMISSION_DENIED): the caller is known, not allowed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_without_a_required_scope_is_permission_denied() {
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let jwt = Jwt::jwks_url(&idp.jwks_url())
        .unwrap()
        .issuer(&idp.url)
        .audience(AUDIENCE)
        .required_scopes(["a2a:use"]);
    let server = server(jwt).await;
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["securityRequirements"][0]["schemes"]["bearer"]["list"], json!(["a2a:use"]), "{card}");
    let with = |extra: Value| {
        let mut claims = claims("alice", &idp.url);
        claims.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        bearer(&sign(&key, &claims))
    };
    for (binding, client) in clients(&server).await {
        for granted in [json!({"scope": "openid a2a:use"}), json!({"scp": ["a2a:use"]})] {
            task_of(client.as_ref(), &with(granted.clone()), "hello").await;
        }
        for lacking in [json!({}), json!({"scope": "openid a2a:read"}), json!({"scp": "a2a:used"})] {
            match client.send_message(&with(lacking.clone()), send("hello")).await {
                Err(Error::PermissionDenied { .. }) => {}
                other => panic!("{binding}, {lacking}: PermissionDenied expected, got {other:?}"),
            }
        }
    }
    let response = reqwest::Client::new()
        .get(format!("{}/tasks", server.url()))
        .header("a2a-version", "1.0")
        .header("authorization", format!("Bearer {}", sign(&key, &claims("alice", &idp.url))))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 403);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_key_is_fetched_and_the_retired_one_refused() {
    let (old, new) = (rsa_key("2025"), rsa_key("2026"));
    let idp = Idp::start(&[&old]).await;
    let jwt = Jwt::jwks_url(&idp.jwks_url()).unwrap().jwks_min_refresh(Duration::ZERO);
    let server = server(jwt).await;
    let client = RestClient::new(server.url()).unwrap();
    let token = |key: &RsaKey| bearer(&sign(key, &json!({"sub": "alice", "exp": now() + 600})));
    task_of(&client, &token(&old), "hello").await;
    assert_eq!(idp.fetches(), 1);
    idp.publish(&[&new]);
    task_of(&client, &token(&new), "hello").await;
    assert_eq!(idp.fetches(), 2, "an unknown kid fetches the set again");
    let error = client.send_message(&token(&old), send("hello")).await.unwrap_err();
    assert!(matches!(error, Error::Unauthenticated { .. }), "the retired key: {error:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_tokens_fetch_the_jwks_once() {
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let server = server(Jwt::jwks_url(&idp.jwks_url()).unwrap()).await;
    let client = Arc::new(RestClient::new(server.url()).unwrap());
    let token = sign(&key, &json!({"sub": "alice", "exp": now() + 600}));
    let calls: Vec<_> = (0..16)
        .map(|_| {
            let (client, ctx) = (Arc::clone(&client), bearer(&token));
            tokio::spawn(async move { client.list_tasks(&ctx, Default::default()).await })
        })
        .collect();
    for call in calls {
        call.await.unwrap().unwrap();
    }
    assert_eq!(idp.fetches(), 1, "one fetch serves every request waiting for it");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_key_ids_do_not_hammer_the_jwks() {
    let (key, stranger) = (rsa_key("k1"), rsa_key("k-made-up"));
    let idp = Idp::start(&[&key]).await;
    // The default: at most one fetch per 30 s for unknown key ids.
    let server = server(Jwt::jwks_url(&idp.jwks_url()).unwrap()).await;
    let client = RestClient::new(server.url()).unwrap();
    let claims = json!({"sub": "alice", "exp": now() + 600});
    task_of(&client, &bearer(&sign(&key, &claims)), "hello").await;
    for _ in 0..5 {
        let error = client.send_message(&bearer(&sign(&stranger, &claims)), send("hello")).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{error:?}");
    }
    assert_eq!(idp.fetches(), 1, "no fetch within the minimum interval");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openid_connect_takes_the_keys_and_issuer_of_the_discovery_document() {
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let jwt = Jwt::openid_connect(&idp.url).await.unwrap().audience(AUDIENCE);
    assert_eq!(jwt.scheme_name(), "oidc");
    let server = server(jwt).await;
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        card["securitySchemes"]["oidc"]["openIdConnectSecurityScheme"]["openIdConnectUrl"],
        format!("{}/.well-known/openid-configuration", idp.url),
        "{card}"
    );
    assert_only_the_issuer_is_accepted(&server, &key, &idp.url).await;
    server.shutdown().await.unwrap();

    // A provider whose document names another issuer, or none at all, is refused at startup.
    let error =
        Jwt::openid_connect(&format!("{}/", idp.url.replace("127.0.0.1", "localhost"))).await.unwrap_err();
    assert!(matches!(error, JwtError::Discovery { .. }), "{error}");
    let nothing = Idp::start(&[]).await;
    let error = Jwt::openid_connect(&format!("{}/tenant", nothing.url)).await.unwrap_err();
    assert!(matches!(error, JwtError::Discovery { .. }), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth2_takes_the_keys_issuer_and_flow_of_the_authorization_server_metadata() {
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let jwt = Jwt::oauth2(&idp.url).await.unwrap().audience(AUDIENCE);
    assert_eq!(jwt.scheme_name(), "oauth2");
    let server = server(jwt).await;
    let card: Value = reqwest::get(format!("{}/.well-known/agent-card.json", server.url()))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let scheme = &card["securitySchemes"]["oauth2"]["oauth2SecurityScheme"];
    assert_eq!(
        scheme["oauth2MetadataUrl"],
        format!("{}/.well-known/oauth-authorization-server", idp.url),
        "{card}"
    );
    assert_eq!(scheme["flows"]["clientCredentials"]["tokenUrl"], format!("{}/token", idp.url), "{card}");
    assert!(scheme["flows"]["clientCredentials"]["scopes"]["a2a.tasks"].is_string(), "{card}");
    assert_only_the_issuer_is_accepted(&server, &key, &idp.url).await;
    server.shutdown().await.unwrap();
    // RFC 8414 3.1: an issuer with a path has its metadata at /.well-known/...{path}: here none.
    let error = Jwt::oauth2(&format!("{}/tenant", idp.url)).await.unwrap_err();
    assert!(matches!(error, JwtError::Discovery { .. }), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oauth2_server_without_client_credentials_is_declared_with_the_authorization_code_flow() {
    // RFC 8414 3.1: the issuer https://host/tenant has its metadata at
    // https://host/.well-known/oauth-authorization-server/tenant.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let issuer = format!("{base}/tenant");
    let metadata = json!({
        "issuer": issuer,
        "jwks_uri": format!("{base}/jwks.json"),
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "code_challenge_methods_supported": ["S256"],
    });
    let app = axum::Router::new().route(
        "/.well-known/oauth-authorization-server/tenant",
        axum::routing::get(move || {
            let body = metadata.clone();
            async move { json_response(&body) }
        }),
    );
    let task = tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let jwt = Jwt::oauth2(&issuer).await.unwrap();
    let mut card = a2a_demo::demo_card();
    jwt.declare_in(&mut card);
    let card = serde_json::to_value(&card).unwrap();
    let flow = &card["securitySchemes"]["oauth2"]["oauth2SecurityScheme"]["flows"]["authorizationCode"];
    assert_eq!(flow["authorizationUrl"], format!("{base}/authorize"), "{card}");
    assert_eq!(flow["tokenUrl"], format!("{base}/token"), "{card}");
    assert_eq!(flow["pkceRequired"], true, "{card}");
    task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_static_key_accepts_only_its_own_kind_of_algorithm() {
    let secret = b"a secret of at least thirty-two bytes, for HS256".to_vec();
    let rsa = rsa_key("k1");
    let claims = json!({"sub": "alice", "exp": now() + 600});

    // An HMAC secret: RS256 tokens are refused, whatever key signed them.
    let dir = tempfile::tempdir().unwrap();
    let secret_file = dir.path().join("secret");
    std::fs::File::create(&secret_file).unwrap().write_all(&[secret.as_slice(), b"\n"].concat()).unwrap();
    let server_hs = server(Jwt::key_file(&secret_file).unwrap()).await;
    // A PEM public key: HS256 tokens are refused, even with the PEM itself as the secret.
    let pem_file = dir.path().join("key.pem");
    std::fs::write(&pem_file, &rsa.public_pem).unwrap();
    let server_rs = server(Jwt::key_file(&pem_file).unwrap()).await;
    for (server, good, bad) in [
        (&server_hs, sign_hs(&secret, None, &claims), sign(&rsa, &claims)),
        (&server_rs, sign(&rsa, &claims), sign_hs(rsa.public_pem.as_bytes(), None, &claims)),
    ] {
        let url = server.url();
        let clients: Vec<(&str, Arc<dyn A2aService>)> = vec![
            ("JSONRPC", Arc::new(JsonRpcClient::new(format!("{url}/")))),
            ("HTTP+JSON", Arc::new(RestClient::new(&url).unwrap())),
            ("GRPC", Arc::new(GrpcClient::connect(url.clone()).await.unwrap())),
        ];
        for (binding, client) in clients {
            task_of(client.as_ref(), &bearer(&good), "hello").await;
            assert_refused(client.as_ref(), binding, "the other kind of algorithm", &bad).await;
            assert_refused(client.as_ref(), binding, "alg none", &unsecured(&claims)).await;
        }
    }
    server_hs.shutdown().await.unwrap();
    server_rs.shutdown().await.unwrap();

    // Setting up, the allow-list must fit the key, and a secret must be long enough.
    let error = Jwt::key_file(&secret_file).unwrap().algorithms(&[Algorithm::RS256]).unwrap_err();
    assert!(matches!(error, JwtError::Algorithms(_)), "{error}");
    std::fs::write(&secret_file, "short").unwrap();
    assert!(matches!(Jwt::key_file(&secret_file), Err(JwtError::Key(_))));
}

/// The reference server started as a process, its stdout read up to the line with its address.
#[derive(Debug)]
struct Process {
    /// Killed on drop.
    _child: tokio::process::Child,
    url: String,
}

impl Process {
    async fn start(args: &[&str]) -> Process {
        use tokio::io::AsyncBufReadExt as _;
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
            .args(["--listen", "127.0.0.1:0", "--store", "memory"])
            .args(args)
            .stdout(std::process::Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix("a2a-server listening on ") {
                let url = url.to_owned();
                // Keep draining stdout so the server never blocks on a full pipe.
                tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
                return Process { _child: child, url };
            }
        }
        panic!("the server exited: {:?}", child.wait().await);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_takes_the_jwt_flags() {
    use tokio::io::AsyncBufReadExt as _;
    let key = rsa_key("k1");
    let idp = Idp::start(&[&key]).await;
    let server = Process::start(&[
        "--jwt-jwks-url",
        &idp.jwks_url(),
        "--jwt-issuer",
        &idp.url,
        "--jwt-audience",
        AUDIENCE,
        "--jwt-algorithms",
        "RS256,ES256",
    ])
    .await;
    let client = RestClient::new(&server.url).unwrap();
    task_of(&client, &bearer(&sign(&key, &claims("alice", &idp.url))), "hello").await;
    let wrong = sign(
        &key,
        &json!({"sub": "alice", "iss": idp.url, "aud": "https://other.example.com", "exp": now() + 600}),
    );
    assert_refused(&client, "HTTP+JSON", "wrong audience", &wrong).await;
    drop(server);

    let oidc = Process::start(&["--oidc-issuer", &idp.url, "--jwt-audience", AUDIENCE]).await;
    let client = JsonRpcClient::new(format!("{}/", oidc.url));
    task_of(&client, &bearer(&sign(&key, &claims("alice", &idp.url))), "hello").await;
    assert_refused(
        &client,
        "JSONRPC",
        "no audience",
        &sign(&key, &json!({"sub": "a", "iss": idp.url, "exp": now() + 60})),
    )
    .await;
    drop(oidc);

    let oauth2 = Process::start(&["--oauth2-issuer", &idp.url]).await;
    let client = RestClient::new(&oauth2.url).unwrap();
    task_of(&client, &bearer(&sign(&key, &claims("alice", &idp.url))), "hello").await;
    drop(oauth2);

    // A JWKS that cannot be fetched at startup is a warning: the server serves, refusing
    // tokens until it can fetch the keys.
    let unreachable = format!("{}/no-such-jwks.json", idp.url);
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--jwt-jwks-url", &unreachable])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let warned = async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if line.contains("JWT keys not available yet") && line.contains("no-such-jwks.json") {
                return;
            }
        }
        panic!("the server exited without the warning");
    };
    // A guard against a hang, not a speed check.
    tokio::time::timeout(Duration::from_secs(60), warned).await.expect("the warning");
    drop(child);

    // Settings that cannot work stop the server at startup, with a reason.
    for args in [
        &["--jwt-issuer", "https://idp.example.com"][..],
        &["--oauth2-issuer", &idp.url, "--jwt-issuer", "https://idp.example.com"][..],
        &["--jwt-jwks-url", "https://idp.example.com/jwks", "--jwt-algorithms", "HS256"][..],
        &["--jwt-jwks-url", "https://idp.example.com/jwks", "--jwt-algorithms", "none"][..],
    ] {
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
            .args(["--listen", "127.0.0.1:0", "--store", "memory"])
            .args(args)
            .output()
            .await
            .unwrap();
        assert!(!output.status.success(), "{args:?}");
        assert!(!output.stderr.is_empty(), "{args:?}: a reason on stderr");
    }
}
