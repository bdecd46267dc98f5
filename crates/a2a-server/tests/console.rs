//! The web console (`--console`, `docs/console.md`) and the AI catalog
//! (`/.well-known/ai-catalog.json`): who gets what over HTTP, and the console itself in a real
//! headless Chromium (`console_in_a_browser`: the script `console/test/console.mjs`, run by Node
//! with playwright-core against the binary). That test fails, never skips, when Node, the
//! script's `node_modules` (`npm ci` in `crates/a2a-server/console`, which `cargo xtask test`
//! runs) or Chromium (`/usr/bin/chromium`, or `CHROMIUM`) is missing.

use std::path::PathBuf;

use a2a_server::auth::{ApiKeys, KeyLocation};
use a2a_server::{RunningServer, TenantAgent};
use axum::http::HeaderName;
use reqwest::StatusCode;
use serde_json::Value;

use common::{demo, spawn, ServerProcess};

mod common;

const KEY: &str = "k-alice";

fn keys() -> ApiKeys {
    ApiKeys::new("apiKey", KeyLocation::Header(HeaderName::from_static("x-api-key"))).key(KEY, "alice")
}

/// The demo agent behind an API key, with a tenant `acme`; the console on or off.
async fn server(console: bool) -> RunningServer {
    let keys = keys();
    let mut card = a2a_demo::demo_card();
    keys.declare_in(&mut card);
    let acme = TenantAgent::new(a2a_demo::demo_card(), a2a_demo::DemoAgent);
    spawn(demo(card).tenant("acme", acme).console(console).layer(keys.layer())).await
}

async fn get(url: &str, key: Option<&str>) -> reqwest::Response {
    let client = reqwest::Client::builder().redirect(reqwest::redirect::Policy::none()).build().unwrap();
    let mut request = client.get(url);
    if let Some(key) = key {
        request = request.header("x-api-key", key);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn the_console_api_answers_only_the_callers_the_agent_admits() {
    let server = server(true).await;
    let url = server.url();
    for path in ["session", "agents", "status", "nothing-here"] {
        let endpoint = format!("{url}/console/api/{path}");
        for key in [None, Some("k-wrong")] {
            let response = get(&endpoint, key).await;
            assert_eq!(response.status(), StatusCode::UNAUTHORIZED, "{path} with {key:?}");
            let body: Value = response.json().await.unwrap();
            assert!(body["error"].as_str().unwrap().contains("authentication"), "{body}");
        }
    }
    let session: Value = get(&format!("{url}/console/api/session"), Some(KEY)).await.json().await.unwrap();
    assert_eq!(session["principal"], "alice");
    let unknown = get(&format!("{url}/console/api/nothing-here"), Some(KEY)).await;
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let status: Value = get(&format!("{url}/console/api/status"), Some(KEY)).await.json().await.unwrap();
    assert_eq!((status["live"].as_bool(), status["ready"].as_bool()), (Some(true), Some(true)), "{status}");
    assert!(status["requests"].is_array() && status["uptimeSeconds"].is_u64(), "{status}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_page_is_the_login_view_and_holds_no_data() {
    let server = server(true).await;
    let url = server.url();
    let redirect = get(&format!("{url}/console"), None).await;
    assert_eq!(redirect.status(), StatusCode::PERMANENT_REDIRECT);
    assert_eq!(redirect.headers()["location"], "/console/");
    let page = get(&format!("{url}/console/"), None).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    assert!(page.headers()["content-security-policy"].to_str().unwrap().contains("frame-ancestors 'none'"));
    let html = page.text().await.unwrap();
    assert!(html.contains("id=\"login\"") && html.contains("/console/console.js"), "{html}");
    assert!(!html.contains("alice") && !html.contains(KEY));
    for (asset, kind) in [("console.js", "text/javascript"), ("console.css", "text/css")] {
        let response = get(&format!("{url}/console/{asset}"), None).await;
        assert_eq!(response.status(), StatusCode::OK, "{asset}");
        assert!(response.headers()["content-type"].to_str().unwrap().starts_with(kind), "{asset}");
        assert!(!response.text().await.unwrap().is_empty());
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_console_lists_every_agent_with_the_validation_a2a_cli_makes() {
    let server = server(true).await;
    let agents: Value =
        get(&format!("{}/console/api/agents", server.url()), Some(KEY)).await.json().await.unwrap();
    let agents = agents["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 2, "{agents:?}");
    let (main, acme) = (&agents[0], &agents[1]);
    assert_eq!(
        (main["tenant"].clone(), main["cardPath"].as_str()),
        (Value::Null, Some("/.well-known/agent-card.json"))
    );
    assert_eq!(
        (acme["tenant"].as_str(), acme["cardPath"].as_str()),
        (Some("acme"), Some("/acme/.well-known/agent-card.json"))
    );
    // The main card is the union card with an API key scheme: its 0.3 members are notes, the card
    // is valid A2A 1.0 (the same report as a2a_proto::validate of the served document).
    let served: Value =
        get(&format!("{}/.well-known/agent-card.json", server.url()), None).await.json().await.unwrap();
    assert_eq!(main["card"], served);
    let report = a2a_proto::validate::card(&served);
    assert!(report.is_valid(), "{:?}", report.problems);
    assert_eq!(main["validation"]["valid"], true, "{}", main["validation"]);
    assert_eq!(main["validation"]["notes"], serde_json::json!(report.notes));
    assert!(
        report.notes.iter().any(|n| n.starts_with("`securitySchemes.apiKey`")),
        "the 0.3 shape of the scheme is a note: {:?}",
        report.notes
    );
    assert_eq!(acme["validation"]["valid"], true, "{}", acme["validation"]);
    assert_eq!(acme["card"]["supportedInterfaces"][0]["tenant"], "acme");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn without_security_the_console_is_open_and_off_it_is_not_served() {
    let open = spawn(demo(a2a_demo::demo_card()).console(true)).await;
    let session = get(&format!("{}/console/api/session", open.url()), None).await;
    assert_eq!(session.status(), StatusCode::OK);
    assert_eq!(session.json::<Value>().await.unwrap()["principal"], Value::Null);
    open.shutdown().await.unwrap();

    let off = server(false).await;
    for path in ["/console", "/console/", "/console/console.js", "/console/api/agents"] {
        let response = get(&format!("{}{path}", off.url()), Some(KEY)).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
    }
    off.shutdown().await.unwrap();
}

#[tokio::test]
async fn the_ai_catalog_lists_every_agents_card_publicly() {
    // The catalog is discovery, public like the cards; served with or without the console.
    for console in [false, true] {
        let server = server(console).await;
        let response = get(&format!("{}/.well-known/ai-catalog.json", server.url()), None).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.headers()["content-type"], "application/json");
        let catalog: Value = response.json().await.unwrap();
        let entries = catalog["entries"].as_array().unwrap();
        assert_eq!(entries.len(), 2, "{catalog}");
        let host = server.addr().ip().to_string();
        assert_eq!(entries[0]["identifier"], format!("urn:ai:{host}:a2a"));
        assert_eq!(entries[1]["identifier"], format!("urn:ai:{host}:a2a:acme"));
        for entry in entries {
            assert_eq!(entry["mediaType"], "application/a2a-agent-card+json");
            // Each URL serves the card the entry names, without a credential.
            let card: Value = get(entry["url"].as_str().unwrap(), None).await.json().await.unwrap();
            assert_eq!(card["name"], entry["displayName"], "{entry}");
        }
        server.shutdown().await.unwrap();
    }
}

/// The console's directory (sources, `node_modules`, the browser script).
fn console_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("console")
}

#[tokio::test]
async fn console_in_a_browser() {
    let dir = console_dir();
    let node = std::env::var("NODE").unwrap_or_else(|_| "node".to_owned());
    let version = std::process::Command::new(&node).arg("--version").output();
    assert!(
        version.as_ref().is_ok_and(|o| o.status.success()),
        "Node is required for the console's browser test ({node}: {version:?}); install Node 20+"
    );
    assert!(
        dir.join("node_modules/playwright-core").is_dir(),
        "the console's test dependencies are missing: run `npm ci` in {} (cargo xtask test does)",
        dir.display()
    );
    let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned());
    assert!(
        std::path::Path::new(&chromium).exists(),
        "Chromium is required for the console's browser test: {chromium} is missing \
         (apt-get install chromium; .ci/run installs it)"
    );
    // The binary as shipped: the default (union) card, an API key, a tenant, the console on.
    let key = format!("{KEY}=alice");
    let server =
        ServerProcess::start(["--store", "memory", "--api-key", &key, "--tenant", "acme", "--console"]).await;
    let mut command = tokio::process::Command::new(&node);
    // `A2A_CONSOLE_SCREENSHOT=docs/console.png` (relative to the workspace root) takes the
    // screenshot of docs/console.md.
    if let Some(path) = std::env::var_os("A2A_CONSOLE_SCREENSHOT") {
        command.env("A2A_CONSOLE_SCREENSHOT", dir.join("../../..").join(path));
    }
    let output = command
        .arg(dir.join("test/console.mjs"))
        .current_dir(&dir)
        .env("A2A_CONSOLE_URL", &server.url)
        .env("A2A_CONSOLE_KEY", KEY)
        .env("CHROMIUM", &chromium)
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(std::time::Duration::from_secs(180), output)
        .await
        .expect("the browser test ends within 180 s")
        .expect("node runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the browser test failed:\n{stdout}\n{stderr}");
    assert!(stdout.contains("console test: ok"), "{stdout}\n{stderr}");
}
