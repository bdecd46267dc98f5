//! `--cert/--key/--ca` (SPEC.md §12.3, compliance item A2ACLI_AUTH_009): the built `a2a-cli`
//! against the reference server over TLS with a client CA that requires a certificate (what
//! `a2a-server --tls-cert --tls-key --tls-client-ca --tls-client-cert-required` configures), on
//! every binding: a certificate of that CA is its CN's principal (tasks isolated per
//! certificate), no certificate is no connection.

mod common;

use common::*;
use std::path::Path;

use a2a_server::auth::ClientCertificates;
use a2a_server::tls::TlsConfig;
use a2a_server::Server;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};

type Ca = CertifiedIssuer<'static, KeyPair>;

fn ca(name: &str) -> Ca {
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.distinguished_name.push(DnType::CommonName, name);
    CertifiedIssuer::self_signed(params, KeyPair::generate().unwrap()).unwrap()
}

/// Writes `prefix.crt` and `prefix.key` in `dir`: a certificate signed by `ca`, for the server
/// (`localhost`, 127.0.0.1) or for a client named `client`.
fn certificate(ca: &Ca, dir: &Path, prefix: &str, client: Option<&str>) -> (String, String) {
    let mut params = match client {
        Some(_) => CertificateParams::new(Vec::<String>::new()).unwrap(),
        None => CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap(),
    };
    if let Some(name) = client {
        params.distinguished_name.push(DnType::CommonName, name);
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    }
    let key = KeyPair::generate().unwrap();
    let cert = params.signed_by(&key, ca).unwrap();
    let (cert_path, key_path) = (dir.join(format!("{prefix}.crt")), dir.join(format!("{prefix}.key")));
    std::fs::write(&cert_path, cert.pem()).unwrap();
    std::fs::write(&key_path, key.serialize_pem()).unwrap();
    (cert_path.to_str().unwrap().to_owned(), key_path.to_str().unwrap().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cert_and_key_authenticate_over_mutual_tls_on_every_binding() {
    let dir = tempfile::tempdir().unwrap();
    let (servers, clients) = (ca("server CA"), ca("client CA"));
    let (server_cert, server_key) = certificate(&servers, dir.path(), "server", None);
    let clients_pem = dir.path().join("clients.pem");
    std::fs::write(&clients_pem, clients.pem()).unwrap();
    let servers_pem = dir.path().join("servers.pem");
    std::fs::write(&servers_pem, servers.pem()).unwrap();
    let config = TlsConfig::from_pem_files(&server_cert, &server_key)
        .unwrap()
        .client_certificates(&clients_pem, true)
        .unwrap();
    let certificates = ClientCertificates::new();
    let mut card = a2a_server::demo::demo_card();
    certificates.declare_in(&mut card);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(card)
        .executor(a2a_server::demo::DemoAgent)
        .tls(config)
        .layer(certificates.layer())
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    let ca_file = servers_pem.to_str().unwrap();
    let (alice_cert, alice_key) = certificate(&clients, dir.path(), "alice", Some("alice"));
    let (bob_cert, bob_key) = certificate(&clients, dir.path(), "bob", Some("bob"));
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
