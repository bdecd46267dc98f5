//! The reference server's signed agent card (spec 8.4): `--card-signing-key` and
//! `--card-signing-kid` sign the card it serves, in either `--card-form`; a key it cannot use
//! stops it at startup with a message naming the flag.

mod common;

use common::ServerProcess;

const KEYS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../a2a-card-sign/tests/data/keys/");

async fn served_card(url: &str) -> serde_json::Value {
    let response = reqwest::get(format!("{url}/.well-known/agent-card.json")).await.unwrap();
    assert!(response.status().is_success(), "{}", response.status());
    response.json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_card_signing_flags_sign_the_served_card_in_either_form() {
    let public = std::fs::read(format!("{KEYS}eddsa.pub.pem")).unwrap();
    let trusted = a2a_card_sign::TrustedKeys::new().with_pem(Some("2026-11"), &public).unwrap();
    for form in ["union", "v1"] {
        let server = ServerProcess::start([
            "--store",
            "memory",
            "--card-form",
            form,
            "--card-signing-key",
            &format!("{KEYS}eddsa.key.pem"),
            "--card-signing-kid",
            "2026-11",
            "--card-signing-jku",
            "https://agent.example/jwks.json",
        ])
        .await;
        let card = served_card(&server.url).await;
        let verified = a2a_card_sign::verify(&card, &trusted).unwrap();
        assert_eq!(
            (verified.kid.as_deref(), verified.algorithm),
            (Some("2026-11"), a2a_card_sign::Algorithm::EdDSA)
        );
        assert_eq!(card.get("protocolVersion").is_some(), form == "union", "{form}");
    }
}

/// A tenant's card (`--tenant`) is signed too, and so is every extended card
/// (GetExtendedAgentCard), the main agent's and the tenant's, signed as it is returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tenant_cards_and_extended_cards_are_signed() {
    use a2a_core::{A2aService, CallContext};
    let public = std::fs::read(format!("{KEYS}eddsa.pub.pem")).unwrap();
    let trusted = a2a_card_sign::TrustedKeys::new().with_pem(Some("2026-11"), &public).unwrap();
    let server = ServerProcess::start([
        "--store",
        "memory",
        "--tenant",
        "acme",
        "--card-signing-key",
        &format!("{KEYS}eddsa.key.pem"),
        "--card-signing-kid",
        "2026-11",
    ])
    .await;
    let tenant_card = served_card(&format!("{}/acme", server.url)).await;
    a2a_card_sign::verify(&tenant_card, &trusted).unwrap();
    let client = a2a_jsonrpc::JsonRpcClient::new(format!("{}/", server.url));
    for tenant in ["", "acme"] {
        let request = a2a_proto::v1::GetExtendedAgentCardRequest { tenant: tenant.into() };
        let extended = client.get_extended_agent_card(&CallContext::v1(), request).await.unwrap();
        assert!(extended.description.contains("extended"), "{tenant:?}: {}", extended.description);
        let verified = a2a_card_sign::verify(&a2a_card_sign::card_json(&extended), &trusted).unwrap();
        assert_eq!(verified.kid.as_deref(), Some("2026-11"), "{tenant:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_key_or_a_missing_kid_is_refused_at_startup() {
    let run = |args: Vec<String>| async move {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-server"))
            .args(["--listen", "127.0.0.1:0", "--store", "memory"])
            .args(args)
            .output()
            .await
            .unwrap()
    };
    let public = format!("{KEYS}es256.pub.pem");
    let output =
        run(vec!["--card-signing-key".into(), public, "--card-signing-kid".into(), "k".into()]).await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--card-signing-key") && stderr.contains("private key"), "{stderr}");
    let output = run(vec!["--card-signing-key".into(), format!("{KEYS}es256.key.pem")]).await;
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--card-signing-kid"), "{stderr}");
}
