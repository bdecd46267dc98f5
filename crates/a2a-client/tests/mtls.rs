//! Mutual TLS through `Credentials::client_certificate`: the reference server with a client CA
//! (`TlsConfig::client_certificates`, the `ClientCertificates` authenticator, what
//! `--tls-cert --tls-key --tls-client-ca` configure) accepts the card-driven client with a
//! certificate on every binding, the principal being the certificate's CN (tasks isolated per
//! certificate), and refuses it without one.

use a2a_client::{Binding, Client, ClientCertificate, Credentials};
use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{send_message_response, GetTaskRequest, Message, SendMessageRequest};
use a2a_server::auth::ClientCertificates;
use a2a_server::tls::TlsConfig;
use a2a_server::{RunningServer, Server};
use a2a_test_support::pki::Ca;

/// A client certificate with subject CN `name` signed by `ca`.
fn client_certificate(ca: &Ca, name: &str) -> ClientCertificate {
    let pem = ca.client(name);
    ClientCertificate::from_pem(pem.cert, pem.key)
}

/// The demo agent over TLS (a certificate for 127.0.0.1 by `servers`), client certificates of
/// `clients` optional, their CN the principal.
async fn mtls_server(servers: &Ca, clients: &Ca, dir: &std::path::Path) -> RunningServer {
    let (cert_path, key_path) = servers.server().write(dir, "server");
    let ca_path = dir.join("clients.pem");
    std::fs::write(&ca_path, clients.pem()).unwrap();
    let config = TlsConfig::from_pem_files(&cert_path, &key_path)
        .unwrap()
        .client_certificates(&ca_path, false)
        .unwrap();
    let certificates = ClientCertificates::new();
    let mut card = a2a_demo::demo_card();
    certificates.declare_in(&mut card);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(card)
        .executor(a2a_demo::DemoAgent)
        .tls(config)
        .layer(certificates.layer())
        .spawn(listener)
        .await
        .unwrap()
}

fn send() -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_certificate_authenticates_on_every_binding_and_its_cn_owns_the_tasks() {
    let dir = tempfile::tempdir().unwrap();
    let (servers, clients) = (Ca::new("server CA"), Ca::new("client CA"));
    let server = mtls_server(&servers, &clients, dir.path()).await;
    let url = server.url();
    assert!(url.starts_with("https://"), "{url}");
    let (alice, bob) = (client_certificate(&clients, "alice"), client_certificate(&clients, "bob"));
    let as_whom = |binding: Binding, certificate: Option<&ClientCertificate>| {
        let mut credentials = Credentials::new();
        if let Some(certificate) = certificate {
            credentials = credentials.client_certificate(certificate.clone());
        }
        let builder =
            Client::builder().bindings([binding]).root_certificate(servers.pem()).credentials(credentials);
        let url = url.clone();
        async move { builder.connect(url).await }
    };
    for binding in [Binding::JsonRpc, Binding::Rest, Binding::Grpc] {
        let alices = as_whom(binding, Some(&alice)).await.unwrap();
        assert_eq!(alices.selected().binding(), binding);
        assert!(alices.unmet_security().is_empty(), "{binding}: the mtls scheme is satisfied");
        let Some(send_message_response::Payload::Task(task)) = alices
            .send_message(&CallContext::v1(), send())
            .await
            .unwrap_or_else(|e| panic!("{binding}: {e:?}"))
            .payload
        else {
            panic!("{binding}: a task")
        };
        let get = || GetTaskRequest { id: task.id.clone(), ..Default::default() };
        alices.get_task(&CallContext::v1(), get()).await.unwrap();
        let bobs = as_whom(binding, Some(&bob)).await.unwrap();
        match bobs.get_task(&CallContext::v1(), get()).await {
            Err(Error::TaskNotFound { .. }) => {}
            other => panic!("{binding}: bob must get TaskNotFound, got {other:?}"),
        }
        // No certificate: the (optional) handshake succeeds, the call is refused, and the client
        // said beforehand what is missing.
        let anonymous = as_whom(binding, None).await.unwrap();
        assert_eq!(anonymous.unmet_security()[0].missing, ["mtls"], "{binding}");
        let error = anonymous.send_message(&CallContext::v1(), send()).await.unwrap_err();
        let refusal = anonymous.refusal(&error).unwrap_or_else(|| panic!("{binding}: {error:?}"));
        assert_eq!(refusal.schemes, [("mtls".to_owned(), "mutual TLS".to_owned())]);
    }
    // A certificate of a CA the server does not trust: no connection (the card fetch presents
    // it too when the handshake asks, so that fails already).
    let stranger = client_certificate(&Ca::new("another CA"), "alice");
    let error = as_whom(Binding::Rest, Some(&stranger)).await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    server.shutdown().await.unwrap();
}
