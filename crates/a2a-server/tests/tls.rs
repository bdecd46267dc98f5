//! TLS on the one-port server (`a2a_server::tls`), with a CA and certificates made in the test:
//! HTTP/1.1, HTTP/2 (ALPN) and gRPC on the same TLS port, each binding's client over it,
//! `Strict-Transport-Security` on responses, a certificate replaced without a restart (in code
//! and by SIGHUP on the reference server), files that do not fit refused with a reason, and
//! client certificates (mutual TLS) as credentials on every binding.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use a2a_core::Error;
use a2a_core::{A2aService, CallContext};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::send_message_response;
use a2a_proto::v1::{GetTaskRequest, SubscribeToTaskRequest};
use a2a_rest::RestClient;
use a2a_server::auth::ClientCertificates;
use a2a_server::tls::TlsConfig;
use a2a_server::{RunningServer, Server};
use a2a_test_support::pki::{Ca, Pem};
use common::{demo, send, spawn, task_of};

mod common;

/// A certificate for `localhost` and 127.0.0.1 signed by `ca`, written in `dir` (the same two
/// files each time: a second call replaces them).
fn leaf(ca: &Ca, dir: &Path) -> (PathBuf, PathBuf) {
    ca.server().write(dir, "server")
}

/// An HTTPS client trusting `ca` only; a new one opens new connections.
fn https(ca: &Ca, http1_only: bool) -> reqwest::Client {
    let root = reqwest::Certificate::from_pem(ca.pem().as_bytes()).unwrap();
    let builder = reqwest::Client::builder().tls_certs_only([root]).https_only(true);
    let builder = if http1_only { builder.http1_only() } else { builder };
    builder.build().unwrap()
}

async fn grpc(ca: &Ca, url: &str) -> GrpcClient {
    grpc_with(ca, url, None).await
}

/// A gRPC client over TLS trusting `ca` only, presenting `identity` (certificate, key) if any.
async fn grpc_with(ca: &Ca, url: &str, identity: Option<&Pem>) -> GrpcClient {
    let mut tls = tonic::transport::ClientTlsConfig::new()
        .ca_certificate(tonic::transport::Certificate::from_pem(ca.pem()))
        .domain_name("localhost");
    if let Some(Pem { cert, key }) = identity {
        tls = tls.identity(tonic::transport::Identity::from_pem(cert, key));
    }
    let channel = tonic::transport::Endpoint::from_shared(url.to_owned())
        .unwrap()
        .tls_config(tls)
        .unwrap()
        .connect()
        .await
        .unwrap();
    GrpcClient::new(channel)
}

async fn tls_server(config: TlsConfig) -> RunningServer {
    spawn(demo(a2a_demo::demo_card()).tls(config)).await
}

/// A message sent by `client` makes a task.
async fn sends(client: &dyn A2aService) {
    task_of(client, &CallContext::v1(), "hello").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_tls_port_serves_http1_http2_and_grpc_with_hsts() {
    let dir = tempfile::tempdir().unwrap();
    let authority = Ca::new("test CA");
    let (cert, key) = leaf(&authority, dir.path());
    let server = tls_server(TlsConfig::from_pem_files(&cert, &key).unwrap()).await;
    let url = server.url();
    assert!(url.starts_with("https://"), "{url}");

    for (http1_only, version) in [(false, reqwest::Version::HTTP_2), (true, reqwest::Version::HTTP_11)] {
        let response = https(&authority, http1_only)
            .get(format!("{url}/.well-known/agent-card.json"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.version(), version, "ALPN picks it");
        assert_eq!(response.headers()["strict-transport-security"], "max-age=31536000");
        let card: serde_json::Value = response.json().await.unwrap();
        // The card advertises the https URL it is served at.
        assert_eq!(
            card["supportedInterfaces"][0]["url"].as_str().unwrap().trim_end_matches('/'),
            url,
            "{card}"
        );
    }

    let probe = https(&authority, false).get(format!("{url}/healthz")).send().await.unwrap();
    assert_eq!(probe.headers()["strict-transport-security"], "max-age=31536000", "the probes too");

    let clients: Vec<(&str, Arc<dyn A2aService>)> = vec![
        (
            "JSONRPC",
            Arc::new(JsonRpcClient::new(format!("{url}/")).with_http_client(https(&authority, false))),
        ),
        ("HTTP+JSON", Arc::new(RestClient::new(&url).unwrap().with_http_client(https(&authority, true)))),
        ("GRPC", Arc::new(grpc(&authority, &url).await)),
    ];
    for (_, client) in &clients {
        sends(client.as_ref()).await;
    }

    // Plain HTTP on the TLS port gets no HTTP answer, and a client that does not trust the
    // certificate does not connect.
    assert!(reqwest::get(url.replace("https://", "http://")).await.is_err());
    assert!(https(&Ca::new("another CA"), false).get(&url).send().await.is_err());
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reloaded_certificate_serves_new_connections() {
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (Ca::new("old CA"), Ca::new("new CA"));
    let (cert, key) = leaf(&old, dir.path());
    let config = TlsConfig::from_pem_files(&cert, &key).unwrap();
    let server = tls_server(config.clone()).await;
    let card = format!("{}/.well-known/agent-card.json", server.url());
    assert!(https(&old, false).get(&card).send().await.is_ok());
    assert!(https(&new, false).get(&card).send().await.is_err());

    leaf(&new, dir.path());
    config.reload().unwrap();
    assert!(https(&new, false).get(&card).send().await.is_ok(), "the new certificate");
    assert!(https(&old, false).get(&card).send().await.is_err(), "not the old one");

    // A key that is not the certificate's is refused, and the certificate in use stays.
    let other = tempfile::tempdir().unwrap();
    let (_, other_key) = leaf(&new, other.path());
    std::fs::copy(&other_key, &key).unwrap();
    let error = config.reload().unwrap_err();
    assert!(error.to_string().contains("belong"), "{error}");
    assert!(https(&new, false).get(&card).send().await.is_ok());
    server.shutdown().await.unwrap();
}

#[test]
fn files_that_are_not_a_certificate_and_key_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (cert, key) = leaf(&Ca::new("CA"), dir.path());
    let missing = dir.path().join("missing.pem");
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "not PEM").unwrap();
    for (cert, key) in
        [(&missing, &key), (&cert, &missing), (&garbage, &key), (&cert, &garbage), (&key, &cert)]
    {
        let error = TlsConfig::from_pem_files(cert, key).unwrap_err();
        assert!(!error.to_string().is_empty(), "{cert:?} {key:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_takes_tls_flags_and_reloads_on_sighup() {
    use tokio::io::AsyncBufReadExt as _;
    let dir = tempfile::tempdir().unwrap();
    let (old, new) = (Ca::new("old CA"), Ca::new("new CA"));
    let (cert, key) = leaf(&old, dir.path());
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--tls-cert"])
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = stdout.next_line().await.unwrap().expect("the server prints its address");
        if let Some(url) = line.strip_prefix("a2a-server listening on ") {
            break url.to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
    assert!(url.starts_with("https://"), "{url}");
    let client = RestClient::new(&url).unwrap().with_http_client(https(&old, false));
    sends(&client).await;

    leaf(&new, dir.path());
    let pid = child.id().unwrap().to_string();
    assert!(std::process::Command::new("kill").args(["-HUP", &pid]).status().unwrap().success());
    let mut stderr = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let reloaded = async {
        while let Some(line) = stderr.next_line().await.unwrap() {
            if line.contains("TLS certificate reloaded") {
                return;
            }
        }
        panic!("the server exited without reloading");
    };
    // A guard against a hang, not a speed check.
    tokio::time::timeout(std::time::Duration::from_secs(60), reloaded).await.expect("the reload is logged");
    let client = RestClient::new(&url).unwrap().with_http_client(https(&new, false));
    sends(&client).await;

    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--tls-cert"])
        .arg(&cert)
        .output()
        .await
        .unwrap();
    assert!(!output.status.success(), "--tls-cert needs --tls-key");
}

/// An HTTPS client trusting `ca` and presenting `identity`.
fn https_as(ca: &Ca, identity: &Pem) -> reqwest::Client {
    let root = reqwest::Certificate::from_pem(ca.pem().as_bytes()).unwrap();
    let pem = format!("{}{}", identity.cert, identity.key);
    reqwest::Client::builder()
        .tls_certs_only([root])
        .identity(reqwest::Identity::from_pem(pem.as_bytes()).unwrap())
        .build()
        .unwrap()
}

async fn mtls_server(config: TlsConfig) -> RunningServer {
    let certificates = ClientCertificates::new();
    let mut card = a2a_demo::demo_card();
    certificates.declare_in(&mut card);
    spawn(demo(card).tls(config).layer(certificates.layer())).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_is_its_subjects_principal_on_every_binding() {
    let dir = tempfile::tempdir().unwrap();
    let (servers, clients_ca) = (Ca::new("server CA"), Ca::new("client CA"));
    let (cert, key) = leaf(&servers, dir.path());
    let ca_file = dir.path().join("clients.pem");
    std::fs::write(&ca_file, clients_ca.pem()).unwrap();
    let config =
        TlsConfig::from_pem_files(&cert, &key).unwrap().client_certificates(&ca_file, false).unwrap();
    let server = mtls_server(config).await;
    let url = server.url();
    let card: serde_json::Value = https(&servers, false)
        .get(format!("{url}/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(card["securitySchemes"]["mtls"]["mtlsSecurityScheme"].is_object(), "{card}");

    let (alice, bob) = (clients_ca.client("alice"), clients_ca.client("bob"));
    let as_whom = |identity: &Pem| {
        let identity = identity.clone();
        let (servers, url) = (&servers, url.clone());
        async move {
            let clients: Vec<(&str, Arc<dyn A2aService>)> = vec![
                (
                    "JSONRPC",
                    Arc::new(
                        JsonRpcClient::new(format!("{url}/")).with_http_client(https_as(servers, &identity)),
                    ),
                ),
                (
                    "HTTP+JSON",
                    Arc::new(RestClient::new(&url).unwrap().with_http_client(https_as(servers, &identity))),
                ),
                ("GRPC", Arc::new(grpc_with(servers, &url, Some(&identity)).await)),
            ];
            clients
        }
    };
    let (alices, bobs) = (as_whom(&alice).await, as_whom(&bob).await);
    for ((binding, alice), (_, bob)) in alices.iter().zip(&bobs) {
        let task = task_of(alice.as_ref(), &CallContext::v1(), "ask").await;
        let get = || GetTaskRequest { id: task.id.clone(), ..Default::default() };
        assert!(alice.get_task(&CallContext::v1(), get()).await.is_ok(), "{binding}");
        match bob.get_task(&CallContext::v1(), get()).await {
            Err(Error::TaskNotFound { .. }) => {}
            other => panic!("{binding}: bob must get TaskNotFound, got {other:?}"),
        }
    }

    // Without a certificate the handshake succeeds (it is optional here) but the caller is
    // unauthenticated; a certificate of another CA fails the handshake.
    let anonymous = RestClient::new(&url).unwrap().with_http_client(https(&servers, false));
    let error = anonymous.send_message(&CallContext::v1(), send("hello")).await.unwrap_err();
    assert!(matches!(error, Error::Unauthenticated { .. }), "{error:?}");
    let stranger = Ca::new("another CA").client("alice");
    assert!(https_as(&servers, &stranger).get(&url).send().await.is_err());
    server.shutdown().await.unwrap();

    // Required: no certificate, no connection.
    let config = TlsConfig::from_pem_files(&cert, &key).unwrap().client_certificates(&ca_file, true).unwrap();
    let server = mtls_server(config).await;
    assert!(https(&servers, false).get(server.url()).send().await.is_err());
    sends(&RestClient::new(server.url()).unwrap().with_http_client(https_as(&servers, &alice))).await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_server_takes_the_client_ca_flags() {
    use tokio::io::AsyncBufReadExt as _;
    let dir = tempfile::tempdir().unwrap();
    let (servers, clients_ca) = (Ca::new("server CA"), Ca::new("client CA"));
    let (cert, key) = leaf(&servers, dir.path());
    let ca_file = dir.path().join("clients.pem");
    std::fs::write(&ca_file, clients_ca.pem()).unwrap();
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--tls-client-cert-required", "--tls-cert"])
        .arg(&cert)
        .arg("--tls-key")
        .arg(&key)
        .arg("--tls-client-ca")
        .arg(&ca_file)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let url = loop {
        let line = stdout.next_line().await.unwrap().expect("the server prints its address");
        if let Some(url) = line.strip_prefix("a2a-server listening on ") {
            break url.to_owned();
        }
    };
    tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
    let alice = clients_ca.client("alice");
    let card: serde_json::Value = https_as(&servers, &alice)
        .get(format!("{url}/.well-known/agent-card.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(card["securityRequirements"][0]["schemes"]["mtls"].is_object(), "{card}");
    sends(&RestClient::new(&url).unwrap().with_http_client(https_as(&servers, &alice))).await;
    assert!(https(&servers, false).get(&url).send().await.is_err(), "required");

    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--store", "memory", "--tls-client-ca"])
        .arg(&ca_file)
        .output()
        .await
        .unwrap();
    assert!(!output.status.success(), "--tls-client-ca needs --tls-cert");
}

/// A TLS port knows each connection's peer address as a plain port does: the per-connection
/// stream limit (and the rate limit's per-address key) work over TLS too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tls_port_counts_streams_per_connection() {
    let dir = tempfile::tempdir().unwrap();
    let authority = Ca::new("per-connection CA");
    let (cert, key) = leaf(&authority, dir.path());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .tls(TlsConfig::from_pem_files(&cert, &key).unwrap())
        .limits(a2a_server::Limits { max_streams_per_connection: 1, ..Default::default() })
        .spawn(listener)
        .await
        .unwrap();
    let client = grpc(&authority, &server.url()).await;
    let mut request = send("wait 30");
    request.configuration =
        Some(a2a_proto::v1::SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let reply = client.send_message(&CallContext::v1(), request).await.unwrap();
    let Some(send_message_response::Payload::Task(task)) = reply.payload else { panic!("a task") };
    let subscribe = || SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() };
    let _open = client.subscribe_to_task(&CallContext::v1(), subscribe()).await.unwrap();
    let refused = client.subscribe_to_task(&CallContext::v1(), subscribe()).await.err();
    assert!(
        matches!(refused, Some(a2a_core::Error::ResourceExhausted { .. })),
        "the second stream on the connection is refused: {refused:?}"
    );
    server.shutdown().await.unwrap();
}
