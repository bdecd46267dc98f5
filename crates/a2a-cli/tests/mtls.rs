//! `--cert/--key/--ca` (SPEC.md §12.3, compliance item A2ACLI_AUTH_009): the built `a2a-cli`
//! against the reference server over TLS with a client CA that requires a certificate (what
//! `a2a-server --tls-cert --tls-key --tls-client-ca --tls-client-cert-required` configures), on
//! every binding: a certificate of that CA is its CN's principal (tasks isolated per
//! certificate), no certificate is no connection.

mod common;

use common::*;

use a2a_server::auth::ClientCertificates;
use a2a_server::tls::TlsConfig;
use a2a_server::Server;
use a2a_test_support::pki::Ca;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cert_and_key_authenticate_over_mutual_tls_on_every_binding() {
    let dir = tempfile::tempdir().unwrap();
    let (servers, clients) = (Ca::new("server CA"), Ca::new("client CA"));
    let (server_cert, server_key) = servers.server().write(dir.path(), "server");
    let clients_pem = dir.path().join("clients.pem");
    std::fs::write(&clients_pem, clients.pem()).unwrap();
    let servers_pem = dir.path().join("servers.pem");
    std::fs::write(&servers_pem, servers.pem()).unwrap();
    let config = TlsConfig::from_pem_files(&server_cert, &server_key)
        .unwrap()
        .client_certificates(&clients_pem, true)
        .unwrap();
    let certificates = ClientCertificates::new();
    let mut card = a2a_demo::demo_card();
    certificates.declare_in(&mut card);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(card)
        .executor(a2a_demo::DemoAgent)
        .tls(config)
        .layer(certificates.layer())
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    let ca_file = servers_pem.to_str().unwrap();
    // Client certificates written as files, their paths as `--cert`/`--key` take them.
    let client_files = |name: &str| {
        let (cert, key) = clients.client(name).write(dir.path(), name);
        (cert.display().to_string(), key.display().to_string())
    };
    let (alice_cert, alice_key) = client_files("alice");
    let (bob_cert, bob_key) = client_files("bob");
    for transport in ["jsonrpc", "http+json", "grpc"] {
        let base = ["-a", url.as_str(), "--ca", ca_file, "--transport", transport, "-o", "json"];
        let alice = ["--cert", alice_cert.as_str(), "--key", alice_key.as_str()];
        let output = cli(&[&["send"][..], &base, &alice, &["--debug", "hello"]].concat()).await;
        assert_eq!(output.status.code(), Some(0), "{transport}: {}", String::from_utf8_lossy(&output.stderr));
        let diagnostics = String::from_utf8_lossy(&output.stderr);
        assert!(diagnostics.contains("credentials presented as the card's schemes: mtls"), "{diagnostics}");
        let task = json(&output);
        let id = task["id"].as_str().or(task["task"]["id"].as_str()).expect("a task id").to_owned();
        let output = cli(&[&["task", "get", id.as_str()][..], &base, &alice].concat()).await;
        assert_eq!(output.status.code(), Some(0), "{transport}: {}", String::from_utf8_lossy(&output.stderr));
        // Bob's certificate is another principal: alice's task does not exist for him.
        let bob = ["--cert", bob_cert.as_str(), "--key", bob_key.as_str()];
        let output = cli(&[&["task", "get", id.as_str()][..], &base, &bob].concat()).await;
        assert_eq!(json(&output)["error"]["code"], "TaskNotFoundError", "{transport}");
        // No certificate: the server requires one, so there is no connection at all.
        let output = cli(&[&["task", "get", id.as_str()][..], &base].concat()).await;
        assert_ne!(output.status.code(), Some(0), "{transport}");
    }
    // --cert without --key is a usage error.
    let output = cli(&["task", "list", "-a", &url, "--cert", &alice_cert]).await;
    assert_eq!(output.status.code(), Some(2), "{}", String::from_utf8_lossy(&output.stderr));
    server.shutdown().await.unwrap();
}
