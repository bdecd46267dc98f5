//! Signing and verifying cards (spec 8.4.2, 8.4.3): round trips for each algorithm, and the
//! refusals a verifier owes: a changed card, a wrong or unknown key, `alg: none` and HMAC, an
//! unsigned card.

use a2a_card_sign::{card_json, verify, Algorithm, CardSigner, Error, Rejection, TrustedKeys};
use a2a_proto::v1::AgentCard;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{json, Value};

fn key(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/keys/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn card() -> AgentCard {
    a2a_proto::json::from_value(json!({
        "name": "Route planner",
        "description": "Plans routes. Zürich → Genève, naïvely.",
        "supportedInterfaces": [
            {"url": "https://agent.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "provider": {"organization": "Example", "url": "https://example.com"},
        "version": "1.2.3",
        "capabilities": {"streaming": true, "pushNotifications": false},
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain", "application/json"],
        "skills": [{"id": "route", "name": "Route", "description": "A route", "tags": ["maps"]}]
    }))
    .unwrap()
}

fn signer(name: &str, kid: &str) -> CardSigner {
    CardSigner::from_pem(&key(&format!("{name}.key.pem")), kid).unwrap()
}

fn trusting(name: &str, kid: &str) -> TrustedKeys {
    TrustedKeys::new().with_pem(Some(kid), &key(&format!("{name}.pub.pem"))).unwrap()
}

fn rejections(result: Result<a2a_card_sign::Verified, Error>) -> Vec<Rejection> {
    match result {
        Err(Error::NotVerified { rejections }) => rejections,
        other => panic!("expected NotVerified, got {other:?}"),
    }
}

fn header(document: &Value, index: usize) -> Value {
    let protected = document["signatures"][index]["protected"].as_str().unwrap();
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(protected).unwrap()).unwrap()
}

#[test]
fn each_algorithm_round_trips_and_the_header_is_the_specs() {
    for (name, algorithm) in [
        ("es256", Algorithm::ES256),
        ("es384", Algorithm::ES384),
        ("eddsa", Algorithm::EdDSA),
        ("rs256", Algorithm::RS256),
    ] {
        let signer = signer(name, "key-1");
        assert_eq!(signer.algorithm(), algorithm, "{name}");
        let document = signer.sign_card(&card()).unwrap();
        let verified = verify(&document, &trusting(name, "key-1")).unwrap();
        assert_eq!(
            (verified.index, verified.kid.as_deref(), verified.algorithm),
            (0, Some("key-1"), algorithm)
        );
        // spec 8.4.2: alg, typ JOSE and kid; no jku unless asked; no unprotected header.
        let alg = format!("{algorithm:?}");
        assert_eq!(header(&document, 0), json!({"alg": alg, "typ": "JOSE", "kid": "key-1"}));
        assert!(document["signatures"][0].get("header").is_none());
        // The signed document is still the card.
        let parsed: AgentCard = a2a_proto::json::from_value(document).unwrap();
        assert_eq!(parsed.signatures.len(), 1);
    }
}

#[test]
fn a_changed_added_or_removed_member_is_refused_but_reordering_is_not() {
    let document = signer("es256", "k").sign_card(&card()).unwrap();
    let keys = trusting("es256", "k");
    let mut changed = document.clone();
    changed["skills"][0]["description"] = "Another route".into();
    let mut added = document.clone();
    added["documentationUrl"] = "https://evil.example".into();
    let mut removed = document.clone();
    removed.as_object_mut().unwrap().remove("provider");
    let mut interface = document.clone();
    interface["supportedInterfaces"][0]["url"] = "https://evil.example/a2a".into();
    for (what, tampered) in [("changed", changed), ("added", added), ("removed", removed), ("url", interface)]
    {
        assert_eq!(
            rejections(verify(&tampered, &keys)),
            [Rejection::BadSignature { kid: Some("k".into()) }],
            "{what}"
        );
    }
    // The same card written with its members in reverse order and indented still verifies:
    // the payload is the canonical form, not the bytes received.
    let text = reversed(&document);
    assert!(text.starts_with("{\n  \"version\""), "{text}");
    let reordered: Value = serde_json::from_str(&text).unwrap();
    verify(&reordered, &keys).unwrap();
}

/// `value` as indented JSON text with every object's members in reverse order.
fn reversed(value: &Value) -> String {
    fn write(value: &Value, indent: usize, out: &mut String) {
        let pad = "  ".repeat(indent + 1);
        match value {
            Value::Object(object) => {
                out.push_str("{\n");
                let members: Vec<_> = object.iter().rev().collect();
                for (i, (key, value)) in members.iter().enumerate() {
                    out.push_str(&format!("{pad}{}: ", Value::String((*key).clone())));
                    write(value, indent + 1, out);
                    out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
                }
                out.push_str(&"  ".repeat(indent));
                out.push('}');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(value, 0, &mut out);
    out
}

#[test]
fn a_wrong_key_an_unknown_kid_and_an_unsigned_card_are_refused() {
    let document = signer("es256", "key-1").sign_card(&card()).unwrap();
    assert_eq!(
        rejections(verify(&document, &trusting("other", "key-1"))),
        [Rejection::BadSignature { kid: Some("key-1".into()) }]
    );
    assert_eq!(
        rejections(verify(&document, &trusting("es256", "key-2"))),
        [Rejection::UnknownKey { kid: Some("key-1".into()) }]
    );
    // A key of another family (RSA for an ES256 signature) is no candidate either.
    assert_eq!(
        rejections(verify(&document, &trusting("rs256", "key-1"))),
        [Rejection::UnknownKey { kid: Some("key-1".into()) }]
    );
    assert!(matches!(verify(&card_json(&card()), &trusting("es256", "key-1")), Err(Error::Unsigned)));
    let mut empty = card_json(&card());
    empty["signatures"] = json!([]);
    assert!(matches!(verify(&empty, &trusting("es256", "key-1")), Err(Error::Unsigned)));
}

#[test]
fn alg_none_and_hmac_are_refused_whatever_the_keys() {
    let document = signer("es256", "k").sign_card(&card()).unwrap();
    let keys = trusting("es256", "k");
    for alg in ["none", "HS256", "ES999"] {
        let mut forged = document.clone();
        let protected = URL_SAFE_NO_PAD.encode(json!({"alg": alg, "typ": "JOSE", "kid": "k"}).to_string());
        forged["signatures"][0]["protected"] = protected.into();
        assert_eq!(rejections(verify(&forged, &keys)), [Rejection::Algorithm { alg: alg.into() }]);
    }
    let mut unsigned_none = document.clone();
    unsigned_none["signatures"][0]["signature"] = "".into();
    assert!(matches!(rejections(verify(&unsigned_none, &keys))[..], [Rejection::Malformed { .. }]));
    let mut crit = document.clone();
    let protected = URL_SAFE_NO_PAD
        .encode(json!({"alg": "ES256", "kid": "k", "crit": ["b64"], "b64": false}).to_string());
    crit["signatures"][0]["protected"] = protected.into();
    assert!(matches!(rejections(verify(&crit, &keys))[..], [Rejection::Malformed { .. }]));
}

#[test]
fn a_jku_is_not_followed_and_a_jwks_verifies_by_kid() {
    let signer = signer("es256", "key-1").jku("https://attacker.example/jwks.json");
    let document = signer.sign_card(&card()).unwrap();
    assert_eq!(header(&document, 0)["jku"], "https://attacker.example/jwks.json");
    assert_eq!(a2a_card_sign::jku_urls(&document), ["https://attacker.example/jwks.json"]);
    // Without a trusted key, the signer's own key set is no reason to accept the card.
    assert_eq!(
        rejections(verify(&document, &TrustedKeys::new())),
        [Rejection::UnknownKey { kid: Some("key-1".into()) }]
    );
    let private = jsonwebtoken::EncodingKey::from_ec_pem(&key("es256.key.pem")).unwrap();
    let mut jwk = jsonwebtoken::jwk::Jwk::from_encoding_key(&private, Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("key-1".into());
    let mut other = jsonwebtoken::jwk::Jwk::from_encoding_key(
        &jsonwebtoken::EncodingKey::from_ec_pem(&key("other.key.pem")).unwrap(),
        Algorithm::ES256,
    )
    .unwrap();
    other.common.key_id = Some("key-0".into());
    let jwks = serde_json::to_vec(&json!({"keys": [other, jwk]})).unwrap();
    assert_eq!(
        verify(&document, &TrustedKeys::new().with_jwks(&jwks).unwrap()).unwrap().kid.as_deref(),
        Some("key-1")
    );
    let from_file = TrustedKeys::from_file_contents(&jwks).unwrap();
    verify(&document, &from_file).unwrap();
    // A symmetric key in a JWKS is refused when loading, not silently used.
    let oct = br#"{"keys":[{"kty":"oct","k":"c2VjcmV0","kid":"key-1"}]}"#;
    assert!(matches!(TrustedKeys::new().with_jwks(oct), Err(Error::Key { .. })));
}

#[test]
fn one_good_signature_among_several_is_enough_and_pem_files_may_hold_several_keys() {
    let mut document = card_json(&card());
    signer("other", "old").sign_document(&mut document).unwrap();
    signer("eddsa", "new").sign_document(&mut document).unwrap();
    let pem = [key("rs256.pub.pem"), key("eddsa.pub.pem")].concat();
    let keys = TrustedKeys::from_file_contents(&pem).unwrap();
    let verified = verify(&document, &keys).unwrap();
    assert_eq!((verified.index, verified.kid.as_deref()), (1, Some("new")));
    assert!(matches!(TrustedKeys::from_file_contents(b"hello"), Err(Error::Key { .. })));
}

/// spec 8.4.3 step 3: a card served with default-valued members the signer left out still
/// verifies; a member the 1.0 schema does not know is never dropped to make a signature fit.
#[test]
fn default_valued_members_are_tolerated_unknown_members_are_not() {
    let document = signer("es256", "k").sign_card(&card()).unwrap();
    let keys = trusting("es256", "k");
    let mut defaults = document.clone();
    defaults["capabilities"]["extensions"] = json!([]);
    defaults["supportedInterfaces"][0]["tenant"] = "".into();
    defaults["securityRequirements"] = json!([]);
    verify(&defaults, &keys).unwrap();
    let mut unknown = document.clone();
    unknown["url"] = "https://evil.example/a2a".into();
    assert_eq!(rejections(verify(&unknown, &keys)), [Rejection::BadSignature { kid: Some("k".into()) }]);
}

#[test]
fn a_signer_refuses_a_key_it_cannot_use() {
    assert!(matches!(CardSigner::from_pem(&key("es256.pub.pem"), "k"), Err(Error::Key { .. })));
    assert!(matches!(CardSigner::from_pem(b"not a key", "k"), Err(Error::Key { .. })));
    let hmac = jsonwebtoken::EncodingKey::from_secret(b"secret");
    assert!(matches!(CardSigner::with_algorithm(hmac, Algorithm::HS256, "k"), Err(Error::Key { .. })));
}

/// Whatever a card's `signatures` hold, verification answers with a typed refusal, never a panic.
#[test]
fn malformed_signature_members_are_refused_with_a_reason() {
    let keys = trusting("es256", "k");
    let mut document = card_json(&card());
    for (signatures, what) in [
        (json!("not an array"), "`signatures` is not an array"),
        (json!([42]), "no `protected` header"),
        (json!([{"protected": "!!!", "signature": "c2ln"}]), "not a base64url-encoded JSON object"),
        (json!([{"protected": URL_SAFE_NO_PAD.encode("[1]"), "signature": "c2ln"}]), "not a base64url"),
        (json!([{"protected": URL_SAFE_NO_PAD.encode(r#"{"kid":"k"}"#), "signature": "c2ln"}]), "no `alg`"),
    ] {
        document["signatures"] = signatures;
        match &rejections(verify(&document, &keys))[..] {
            [Rejection::Malformed { reason }] => assert!(reason.contains(what), "{reason} / {what}"),
            other => panic!("{what}: {other:?}"),
        }
    }
    // A signature value that is not base64url is just a bad signature.
    let mut signed = signer("es256", "k").sign_card(&card()).unwrap();
    signed["signatures"][0]["signature"] = "***".into();
    assert_eq!(rejections(verify(&signed, &keys)), [Rejection::BadSignature { kid: Some("k".into()) }]);
    assert!(matches!(verify(&json!("card"), &keys), Err(Error::NotAnObject)));
}
