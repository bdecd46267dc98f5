//! Signed agent cards end to end (spec 8.4): the reference server signs its card
//! (`ServerBuilder::sign_card`), a client given the public key (`ClientBuilder::card_keys`)
//! accepts it and refuses a card signed by another key, an unsigned card, and a card whose
//! signature names a `jku` it was not told to trust. The extended card is signed too, on every
//! binding.

use a2a_card_sign::{CardSigner, TrustedKeys};
use a2a_client::{Binding, Client};
use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::GetExtendedAgentCardRequest;
use a2a_server::{RunningServer, Server};

const KEYS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../a2a-card-sign/tests/data/keys/");

fn key(name: &str) -> Vec<u8> {
    std::fs::read(format!("{KEYS}{name}")).unwrap()
}

async fn start(signer: Option<CardSigner>) -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut builder = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .extended_agent_card(a2a_demo::demo_extended_card())
        .executor(a2a_demo::DemoAgent);
    if let Some(signer) = signer {
        builder = builder.sign_card(signer);
    }
    builder.spawn(listener).await.unwrap()
}

fn trusting(name: &str, kid: &str) -> TrustedKeys {
    TrustedKeys::new().with_pem(Some(kid), &key(name)).unwrap()
}

fn refusal(result: Result<Client, Error>) -> String {
    match result {
        Err(Error::InvalidAgentResponse { reason }) => reason,
        other => panic!("expected InvalidAgentResponse, got {other:?}"),
    }
}

#[tokio::test]
async fn a_card_signed_by_a_trusted_key_is_accepted_and_others_are_refused() {
    let server = start(Some(CardSigner::from_pem(&key("es256.key.pem"), "agent-1").unwrap())).await;
    let client = Client::builder()
        .card_keys(trusting("es256.pub.pem", "agent-1"))
        .connect(server.url())
        .await
        .unwrap();
    assert_eq!(client.card().signatures.len(), 1);

    let wrong = Client::builder().card_keys(trusting("other.pub.pem", "agent-1")).connect(server.url()).await;
    let reason = refusal(wrong);
    assert!(reason.contains("does not match the card") && reason.contains("8.4.3"), "{reason}");
    let unknown =
        Client::builder().card_keys(trusting("es256.pub.pem", "agent-2")).connect(server.url()).await;
    assert!(refusal(unknown).contains("no trusted key for kid agent-1"));

    // Without keys, a signed card is read as before (verification is the caller's choice).
    Client::connect(server.url()).await.unwrap();

    let unsigned = start(None).await;
    let refused =
        Client::builder().card_keys(trusting("es256.pub.pem", "agent-1")).connect(unsigned.url()).await;
    assert!(refusal(refused).contains("not signed"));
}

#[tokio::test]
async fn a_jku_is_followed_only_under_a_trusted_prefix() {
    // The signer publishes its key set on a server of its own; the card names it as `jku`.
    let private = jsonwebtoken::EncodingKey::from_ec_pem(&key("es256.key.pem")).unwrap();
    let mut jwk =
        jsonwebtoken::jwk::Jwk::from_encoding_key(&private, jsonwebtoken::Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("rotating".into());
    let jwks = serde_json::json!({ "keys": [jwk] }).to_string();
    let keys_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let keys_url = format!("http://{}/jwks.json", keys_listener.local_addr().unwrap());
    let app =
        axum::Router::new().route("/jwks.json", axum::routing::get(move || std::future::ready(jwks.clone())));
    let keys_server = tokio::spawn(async move { axum::serve(keys_listener, app).await });

    let signer = CardSigner::from_pem(&key("es256.key.pem"), "rotating").unwrap().jku(keys_url.clone());
    let server = start(Some(signer)).await;
    let refused = Client::builder().card_keys(TrustedKeys::new()).connect(server.url()).await;
    assert!(
        refusal(refused).contains("no trusted key for kid rotating"),
        "the jku is not followed by default"
    );
    let elsewhere = Client::builder().card_keys(TrustedKeys::new()).trust_jku(["https://keys.example.com/"]);
    assert!(refusal(elsewhere.connect(server.url()).await).contains("no trusted key"));
    let prefix = keys_url.trim_end_matches("jwks.json").to_owned();
    let client = Client::builder()
        .card_keys(TrustedKeys::new())
        .trust_jku([prefix])
        .connect(server.url())
        .await
        .unwrap();
    assert_eq!(client.card().signatures.len(), 1);
    keys_server.abort();
}

#[tokio::test]
async fn the_extended_card_is_signed_on_every_binding() {
    let server = start(Some(CardSigner::from_pem(&key("rs256.key.pem"), "agent-1").unwrap())).await;
    let keys = trusting("rs256.pub.pem", "agent-1");
    for binding in [Binding::JsonRpc, Binding::Rest, Binding::Grpc] {
        let client = Client::builder().bindings([binding]).connect(server.url()).await.unwrap();
        let extended = client
            .get_extended_agent_card(&CallContext::v1(), GetExtendedAgentCardRequest::default())
            .await
            .unwrap();
        assert_eq!(extended.signatures.len(), 1, "{binding:?}");
        // As the client holds it: ProtoJSON, REQUIRED fields at their default left out.
        let document = a2a_proto::json::to_value(&extended).unwrap();
        assert_eq!(
            a2a_card_sign::verify(&document, &keys).unwrap().kid.as_deref(),
            Some("agent-1"),
            "{binding:?}"
        );
    }
}
