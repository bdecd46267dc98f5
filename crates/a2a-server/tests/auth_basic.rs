//! HTTP Basic in front of every binding (`a2a_server::auth::BasicUsers`), and several
//! authenticators together: good credentials reach the handler as their user, principals stay
//! apart (spec 13.1), every bad credential is Unauthenticated on JSON-RPC, HTTP+JSON and gRPC,
//! 1.0 and 0.3, with a 401 challenge per declared scheme; a refused credential is never papered
//! over by another; and the reference server takes `--basic-user` / `--basic-users-file`.

use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{GetTaskRequest, TaskState};
use a2a_rest::RestClient;
use a2a_server::auth::{ApiKeys, BasicUsers, BasicUsersError, KeyLocation};
use a2a_server::RunningServer;
use argon2::password_hash::{PasswordHasher as _, SaltString};
use axum::http::HeaderName;
use base64::Engine as _;

mod common;

use common::{clients, demo, send, spawn, task_of};

/// An Argon2id PHC hash of `password`, with parameters small enough for tests.
fn hash(password: &str) -> String {
    let params = argon2::Params::new(1024, 1, 1, None).unwrap();
    let argon2 = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let salt = SaltString::encode_b64(format!("salt-of-{password}").as_bytes()).unwrap();
    argon2.hash_password(password.as_bytes(), &salt).unwrap().to_string()
}

fn users() -> BasicUsers {
    BasicUsers::new()
        .user("alice", &hash("alice's password"))
        .unwrap()
        .user("bob", &hash("bob's password"))
        .unwrap()
}

async fn server_with(layers: impl FnOnce(&mut a2a_proto::v1::AgentCard) -> Vec<Layer>) -> RunningServer {
    let mut card = a2a_demo::demo_card();
    let layers = layers(&mut card);
    let mut builder = demo(card);
    for layer in layers {
        builder = match layer {
            Layer::Basic(users) => builder.layer(users.layer()),
            Layer::Keys(keys) => builder.layer(keys.layer()),
        };
    }
    spawn(builder).await
}

enum Layer {
    Basic(BasicUsers),
    Keys(ApiKeys),
}

async fn basic_server() -> RunningServer {
    server_with(|card| {
        let users = users();
        users.declare_in(card);
        vec![Layer::Basic(users)]
    })
    .await
}

fn basic(credentials: &str) -> String {
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(credentials))
}

fn with_authorization(value: &str) -> CallContext {
    let mut ctx = CallContext::v1();
    ctx.params.insert("authorization", value);
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn basic_users_are_their_principals_and_bad_credentials_are_unauthenticated_everywhere() {
    let server = basic_server().await;
    let alice = with_authorization(&basic("alice:alice's password"));
    let bob = with_authorization(&basic("bob:bob's password"));
    let bad = [
        ("wrong password", basic("alice:bob's password")),
        ("unknown user", basic("mallory:alice's password")),
        ("no colon", basic("alice")),
        ("not base64", "Basic !!!".to_owned()),
        (
            "not UTF-8",
            format!("Basic {}", base64::engine::general_purpose::STANDARD.encode([0xff, b':', 0xfe])),
        ),
        ("nothing", "Basic".to_owned()),
    ];
    for (binding, client) in clients(&server).await {
        let client = client.as_ref();
        for (what, value) in &bad {
            match client.send_message(&with_authorization(value), send("hello")).await {
                Err(Error::Unauthenticated { .. }) => {}
                other => panic!("{binding}, {what}: Unauthenticated expected, got {other:?}"),
            }
        }
        let task = task_of(client, &alice, "ask").await;
        let get = || GetTaskRequest { id: task.id.clone(), ..Default::default() };
        assert!(matches!(client.get_task(&bob, get()).await, Err(Error::TaskNotFound { .. })), "{binding}");
        assert_eq!(
            client.get_task(&alice, get()).await.unwrap().state(),
            TaskState::InputRequired,
            "{binding}"
        );
    }

    let http = reqwest::Client::new();
    let card: serde_json::Value = http
        .get(format!("{}/.well-known/agent-card.json", server.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(card["securitySchemes"]["basic"]["httpAuthSecurityScheme"]["scheme"], "Basic", "{card}");
    let response = http
        .get(format!("{}/tasks", server.url()))
        .header("A2A-Version", "1.0")
        .header("authorization", basic("alice:guess"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    assert_eq!(response.headers()["www-authenticate"], "Basic realm=\"a2a\", charset=\"UTF-8\"");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_declared_scheme_will_do_but_a_refused_credential_is_never_papered_over() {
    let server = server_with(|card| {
        let keys = ApiKeys::new("apiKey", KeyLocation::Header(HeaderName::from_static("x-api-key")))
            .key("k-carol", "carol");
        let users = users();
        keys.declare_in(card);
        users.declare_in(card);
        vec![Layer::Keys(keys), Layer::Basic(users)]
    })
    .await;
    let key = |ctx: &mut CallContext, key: &str| ctx.params.insert("x-api-key", key);
    for (binding, client) in clients(&server).await {
        let client = client.as_ref();
        task_of(client, &with_authorization(&basic("alice:alice's password")), "hello").await;
        let mut carol = CallContext::v1();
        key(&mut carol, "k-carol");
        task_of(client, &carol, "hello").await;
        // A good key beside a wrong password, and a good password beside a wrong key.
        let mut mixed = with_authorization(&basic("alice:guess"));
        key(&mut mixed, "k-carol");
        let error = client.send_message(&mixed, send("hello")).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{binding}: {error:?}");
        let mut mixed = with_authorization(&basic("alice:alice's password"));
        key(&mut mixed, "k-mallory");
        let error = client.send_message(&mixed, send("hello")).await.unwrap_err();
        assert!(matches!(error, Error::Unauthenticated { .. }), "{binding}: {error:?}");
    }
    // One challenge per declared scheme.
    let response = reqwest::Client::new()
        .get(format!("{}/tasks", server.url()))
        .header("A2A-Version", "1.0")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let challenges: Vec<&str> =
        response.headers().get_all("www-authenticate").iter().map(|v| v.to_str().unwrap()).collect();
    assert_eq!(challenges.len(), 2, "{challenges:?}");
    assert!(
        challenges.iter().any(|c| c.starts_with("Basic "))
            && challenges.iter().any(|c| c.starts_with("ApiKey "))
    );
    server.shutdown().await.unwrap();
}

#[test]
fn a_users_file_is_read_line_by_line_and_bad_entries_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users");
    std::fs::write(&path, format!("# the team\n\nalice:{}\nbob:{}\n", hash("a"), hash("b"))).unwrap();
    assert_eq!(BasicUsers::new().file(&path).unwrap().len(), 2);
    std::fs::write(&path, format!("alice:{}\nbob:plaintext\n", hash("a"))).unwrap();
    match BasicUsers::new().file(&path) {
        Err(BasicUsersError::Entry { entry, reason }) => {
            assert!(entry.ends_with("line 2"), "{entry}");
            assert!(!reason.contains("plaintext"), "the hash is not echoed: {reason}");
        }
        other => panic!("a bad entry, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_takes_the_basic_flags() {
    use tokio::io::AsyncBufReadExt as _;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("users");
    std::fs::write(&file, format!("bob:{}\n", hash("bob's password"))).unwrap();
    let alice = format!("alice:{}", hash("alice's password"));
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--basic-user", &alice, "--basic-users-file"])
        .arg(&file)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = lines.next_line().await.unwrap().expect("the server prints its address");
        if let Some(url) = line.strip_prefix("a2a-server listening on ") {
            break url.to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    let client = RestClient::new(&url).unwrap();
    task_of(&client, &with_authorization(&basic("alice:alice's password")), "hello").await;
    task_of(&client, &with_authorization(&basic("bob:bob's password")), "hello").await;
    let error =
        client.send_message(&with_authorization(&basic("bob:guess")), send("hello")).await.unwrap_err();
    assert!(matches!(error, Error::Unauthenticated { .. }), "{error:?}");
    drop(child);

    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--basic-user", "alice:plaintext"])
        .output()
        .await
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("PHC"), "{stderr}");
}
