//! The CLI specification's rows of issue 15, each against a real server on 127.0.0.1:0 and the
//! built binary: in-task authorization (A2ACLI_AUTH_011), catalog resolution
//! (A2ACLI_CARD_GET_005), `--debug` on gRPC (A2ACLI_OUT_007) and `card get --validate`
//! (A2ACLI_CARD_GET_002).

mod common;

use std::time::Duration;

use a2a_server::{RunningServer, Server};
use common::*;
use serde_json::Value;

/// The demo agent with its approval URLs (`AuthorizeLayer`), all three bindings.
async fn start_with(card: a2a_proto::v1::AgentCard) -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(card)
        .executor(a2a_demo::DemoAgent)
        .layer(a2a_demo::AuthorizeLayer::new())
        .spawn(listener)
        .await
        .unwrap()
}

async fn start() -> RunningServer {
    start_with(a2a_demo::demo_card()).await
}

/// The child's stderr, line by line as it comes (read by a task of its own, so that the pipe
/// never fills).
fn stderr_lines(child: &mut tokio::process::Child) -> tokio::sync::mpsc::UnboundedReceiver<String> {
    use tokio::io::AsyncBufReadExt;
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut lines = tokio::io::BufReader::new(child.stderr.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The lines up to and including the first containing `needle` (30 s at most).
async fn until(lines: &mut tokio::sync::mpsc::UnboundedReceiver<String>, needle: &str) -> String {
    let mut seen = String::new();
    while !seen.contains(needle) {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.recv()).await.unwrap();
        let line = line.unwrap_or_else(|| panic!("stderr ended before {needle:?}:\n{seen}"));
        seen.push_str(&line);
        seen.push('\n');
    }
    seen
}

/// The rest of the lines, once the child has exited.
async fn rest(mut lines: tokio::sync::mpsc::UnboundedReceiver<String>) -> String {
    let mut rest = String::new();
    while let Some(line) = lines.recv().await {
        rest.push_str(&line);
        rest.push('\n');
    }
    rest
}

/// `GET url`: the status and the body.
async fn get(url: &str) -> (u16, String) {
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// Sends `authorize` and checks that the run stops at AUTH_REQUIRED (exit 0, SPEC.md §8: never a
/// deadlock) showing the approval URL; returns the task id and the URL.
async fn authorize(url: &str, transport: &str) -> (String, String) {
    let output = cli(&["send", "-a", url, "--transport", transport, "authorize"]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "State"), "AUTH_REQUIRED", "{text}");
    let approve = text_field(&text, "Authorize");
    assert!(approve.starts_with(&format!("{url}/demo/authorize/")), "{approve}");
    assert!(text.contains(&format!("Status Message:\nAuthorization required: open {approve}")), "{text}");
    let id = text_field(&text, "Task ID");
    assert_eq!(
        text_field(&text, "Resume"),
        format!("a2a-cli task get -a {url} --wait --wait-auth {id}"),
        "the command that follows the task once authorized"
    );
    assert!(stderr(&output).contains(&approve), "the note names the URL too: {}", stderr(&output));
    (id, approve)
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_required_stops_and_wait_auth_follows_the_task_once_authorized() {
    let server = start().await;
    let url = server.url();

    // Streaming card: `--wait-auth` subscribes; the agent continues by itself once the URL is
    // visited (spec 7.6.1), no follow-up message.
    let (id, approve) = authorize(&url, "jsonrpc").await;
    let args = ["task", "get", "-a", &url, "--wait", "--wait-auth", "--debug", "-o", "json", &id];
    let home = tempdir("wait");
    let mut child = command(&args, &home).spawn().unwrap();
    // The wait is on (it has announced the authorization on stderr) before the approval.
    let mut err = stderr_lines(&mut child);
    let seen = until(&mut err, "waiting until it is authorized").await;
    assert!(seen.contains(&approve), "{seen}");
    let (status, body) = get(&approve).await;
    assert_eq!(status, 200, "{body}");
    let output = finish(child, &args).await;
    code(&output, 0);
    let task = json(&output);
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "{task}");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Authorized and done");
    let rest = rest(err).await;
    assert!(rest.contains("debug: SubscribeToTask over JSONRPC"), "followed by its subscription:\n{rest}");
    assert_eq!(get(&approve).await.0, 404, "the code is one-time");

    // Polling (gRPC, and a card without streaming is covered by the same loop): approved first,
    // then followed to the end.
    let (id, approve) = authorize(&url, "grpc").await;
    assert_eq!(get(&approve).await.0, 200);
    let output = cli(&["task", "get", "-a", &url, "--transport", "grpc", "--wait", "--wait-auth", &id]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");

    // Without --wait-auth, a wait on the task stops at AUTH_REQUIRED at once.
    let (id, _) = authorize(&url, "http+json").await;
    let output = cli(&["task", "get", "-a", &url, "--wait", &id]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "AUTH_REQUIRED");

    // A message on the task while AUTH_REQUIRED (spec 7.6.1 SHOULD): `deny` rejects it; the URL
    // is then dead.
    let (id, approve) = authorize(&url, "jsonrpc").await;
    let output = cli(&["send", "-a", &url, "--task-id", &id, "-o", "json", "deny"]).await;
    code(&output, 0);
    let task = json(&output);
    assert_eq!(task["task"]["status"]["state"], "TASK_STATE_REJECTED", "{task}");
    assert!(stderr(&output).contains("ended REJECTED"), "{}", stderr(&output));
    assert_eq!(get(&approve).await.0, 404);
    server.shutdown().await.unwrap();
}

/// Serves `body` as `application/json` at every path on 127.0.0.1:0; returns its origin.
async fn serve_json(body: String) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], body) }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

#[tokio::test(flavor = "multi_thread")]
async fn catalog_names_resolve_to_agent_cards() {
    let server = start().await;
    let url = server.url();
    let home = tempdir("catalog");
    // The default catalog, ~/.config/a2a-cli/catalog.json ($XDG_CONFIG_HOME/a2a-cli here), with
    // an origin and a card file relative to it.
    let dir = home.join("a2a-cli");
    std::fs::create_dir_all(dir.join("cards")).unwrap();
    let card = cli(&["card", "get", "-a", &url, "-o", "json"]).await;
    code(&card, 0);
    std::fs::write(dir.join("cards/demo.json"), &card.stdout).unwrap();
    let catalog = serde_json::json!({"agents": {
        "demo": {"card": url, "description": "The reference agent"},
        "offline": {"card": "cards/demo.json"},
    }});
    std::fs::write(dir.join("catalog.json"), catalog.to_string()).unwrap();

    for reference in ["demo", "catalog:demo"] {
        let output = cli_home(&["send", "-a", reference, "hello"], &home).await;
        code(&output, 0);
        assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    }
    let output = cli_home(&["card", "get", "-a", "catalog:offline"], &home).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Name"), "A2A Rust reference agent");

    let output = cli_home(&["catalog", "list"], &home).await;
    code(&output, 0);
    let text = stdout(&output);
    assert!(text.contains(&format!("Name: demo\nCard: {url}\nDescription: The reference agent\n")), "{text}");
    assert!(
        text.contains(&format!("Name: offline\nCard: {}\n", dir.join("cards/demo.json").display())),
        "{text}"
    );
    assert_eq!(text_field(&text, "Agents"), "2");
    let output = cli_home(&["catalog", "list", "-o", "json"], &home).await;
    code(&output, 0);
    assert_eq!(json(&output)["agents"][0]["name"], "demo");

    // An unknown name: a usage error naming the known ones, before any request.
    for reference in ["catalog:nope", "nope"] {
        let output = cli_home(&["send", "-a", reference, "-o", "json", "hello"], &home).await;
        code(&output, 2);
        let error = json(&output)["error"].clone();
        assert_eq!(error["code"], "A2ACLI_ERR_USAGE");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("no agent named \"nope\"") && message.contains("known: demo, offline"),
            "{message}"
        );
    }

    // --catalog URL (a registry serving the same document), over the default file.
    let registry = serve_json(serde_json::json!({"agents": {"remote": url}}).to_string()).await;
    let output = cli_home(&["card", "get", "-a", "remote", "--catalog", &registry], &home).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Name"), "A2A Rust reference agent");

    // A broken catalog is a usage error naming the file; no catalog and `catalog:` too.
    std::fs::write(dir.join("catalog.json"), "{\"agents\": [").unwrap();
    let output = cli_home(&["card", "get", "-a", "demo"], &home).await;
    code(&output, 2);
    assert!(stderr(&output).contains("catalog.json: not JSON"), "{}", stderr(&output));
    let output = cli(&["card", "get", "-a", "catalog:demo"]).await;
    code(&output, 2);
    assert!(stderr(&output).contains("no catalog"), "{}", stderr(&output));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn card_get_validate_checks_the_document_against_the_agent_card_message() {
    let server = start().await;
    let url = server.url();
    // The reference server's union card: valid, its 0.3 members noted, not refused.
    let output = cli(&["card", "get", "-a", &url, "--validate"]).await;
    code(&output, 0);
    let err = stderr(&output);
    assert!(err.contains("a valid A2A 1.0 AgentCard"), "{err}");
    assert!(err.contains("`protocolVersion` is an A2A 0.3 member"), "{err}");

    // A card with a problem of every kind: each one listed with its JSON path, in one error, even
    // those that would stop a reader at the first (a wrong type, an unknown enum value).
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    card["capabilities"]["streaming"] = Value::String("yes".into());
    card["skills"][1]["examples"] = serde_json::json!("stream 5");
    card["skills"][2]["favouriteColour"] = Value::String("blue".into());
    card["securitySchemes"] = serde_json::json!({"key": {"apiKeySecurityScheme": {"location": "header", "name": "X"}, "mtlsSecurityScheme": {}}});
    card["securityRequirements"] = serde_json::json!([{"schemes": {"key": {"list": "not-an-array"}}}]);
    card["provider"] = serde_json::json!({"organization": "o"});
    card.as_object_mut().unwrap().remove("version");
    let dir = tempdir("validate");
    let path = dir.join("bad.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["card", "get", "-a", path.to_str().unwrap(), "--validate", "-o", "json"]).await;
    code(&output, 1);
    let error = json(&output)["error"].clone();
    assert_eq!(error["code"], "A2ACLI_ERR_CARD_INVALID");
    let message = error["message"].as_str().unwrap();
    for expected in [
        "`capabilities.streaming`: expected a boolean, got a string",
        "`skills[1].examples`: expected an array, got a string",
        "`skills[2].favouriteColour`: unknown field (not in the A2A 1.0 AgentSkill)",
        "`securityRequirements[0].schemes.key.list`: expected an array, got a string",
        "`provider.url`: required field is missing",
        "`version`: required field is missing",
        "`securitySchemes.key.apiKeySecurityScheme`, `securitySchemes.key.mtlsSecurityScheme`: at most one member of oneof `scheme`",
        "(7 problems)",
    ] {
        assert!(message.contains(expected), "{expected:?} not in {message}");
    }

    // A card that reads but names an undeclared scheme, through a card URL of another server.
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    card["securitySchemes"] = serde_json::json!({"k": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": "https://t", "scopes": {}}}}}});
    card["securityRequirements"] = serde_json::json!([{"schemes": {"nope": {"list": []}}}]);
    let served = serve_json(card.to_string()).await;
    let output = cli(&["card", "get", "-a", &format!("{served}/cards/x.json"), "--validate"]).await;
    code(&output, 1);
    let err = stderr(&output);
    assert!(err.contains("(1 problem)"), "an empty map of scopes is a value: {err}");
    assert!(err.contains("security requirement names undeclared scheme `nope`"), "{err}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn debug_logs_the_grpc_messages_with_their_metadata_and_no_credential() {
    // A card that declares a bearer scheme (not enforced here): the CLI sends the token only to
    // a card that accepts one, and the log must show its place, never its value.
    let mut card = a2a_demo::demo_card();
    card.security_schemes.insert(
        "bearer".into(),
        a2a_proto::v1::SecurityScheme {
            scheme: Some(a2a_proto::v1::security_scheme::Scheme::HttpAuthSecurityScheme(
                a2a_proto::v1::HttpAuthSecurityScheme { scheme: "Bearer".into(), ..Default::default() },
            )),
        },
    );
    let server = start_with(card).await;
    let url = server.url();
    let secret = "s3cr3t-b3arer";
    let output = cli(&[
        "send",
        "-a",
        &url,
        "--transport",
        "grpc",
        "--debug",
        "--bearer",
        secret,
        "--svc-param",
        "x-trace:t1",
        "wait 1",
    ])
    .await;
    code(&output, 0);
    let err = stderr(&output);
    assert!(!err.contains(secret), "a credential in the log:\n{err}");
    let sent = err
        .lines()
        .find(|l| l.starts_with("wire: grpc > lf.a2a.v1.A2AService/SendMessage metadata {"))
        .unwrap_or_else(|| panic!("no request line:\n{err}"));
    assert!(sent.contains("a2a-version: 1.0") && sent.contains("x-trace: t1"), "{sent}");
    assert!(sent.contains("authorization: <redacted"), "the credential's place, not its value: {sent}");
    let body: Value = serde_json::from_str(&sent[sent.find("} {").unwrap() + 2..]).unwrap();
    assert_eq!(body["message"]["parts"][0]["text"], "wait 1", "{body}");
    assert_eq!(body["configuration"]["returnImmediately"], true);
    let reply = err
        .lines()
        .find(|l| l.starts_with("wire: grpc < SendMessage {"))
        .unwrap_or_else(|| panic!("no reply line:\n{err}"));
    let reply: Value = serde_json::from_str(reply.trim_start_matches("wire: grpc < SendMessage ")).unwrap();
    let id = reply["task"]["id"].as_str().unwrap();
    // The task works for a second: the wait polls it, each poll logged.
    assert!(err.contains("wire: grpc > lf.a2a.v1.A2AService/GetTask"), "the polls too:\n{err}");
    assert!(err.lines().any(|l| l.starts_with("wire: grpc < GetTask {") && l.contains(id)), "{err}");

    // A stream: each message as it arrives, then its end.
    let output = cli(&["send", "-a", &url, "--transport", "grpc", "--debug", "--stream", "stream 3"]).await;
    code(&output, 0);
    let err = stderr(&output);
    let messages =
        err.lines().filter(|l| l.starts_with("wire: grpc < SendStreamingMessage stream message {")).count();
    assert!(messages >= 4, "task, chunks and status: {err}");
    assert!(
        err.lines()
            .any(|l| l.starts_with("wire: grpc < SendStreamingMessage stream message {\"statusUpdate\"")
                && l.contains("TASK_STATE_COMPLETED")),
        "{err}"
    );
    // And an error reply.
    let output = cli(&["task", "get", "-a", &url, "--transport", "grpc", "--debug", "no-such-task"]).await;
    code(&output, 1);
    assert!(stderr(&output).contains("wire: grpc < GetTask error"), "{}", stderr(&output));
    // Without --debug, nothing.
    let output = cli(&["send", "-a", &url, "--transport", "grpc", "hello"]).await;
    assert!(!stderr(&output).contains("wire:"), "{}", stderr(&output));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn send_stream_wait_auth_follows_through_the_authorization() {
    let server = start().await;
    let url = server.url();
    // One command: the stream stops at AUTH_REQUIRED (spec 3.1.2), --wait-auth resubscribes and
    // the approval, visited while it waits, lets the task complete live.
    let args = ["send", "-a", &url, "--stream", "--wait-auth", "-o", "json", "authorize"];
    let home = tempdir("stream-auth");
    let mut child = command(&args, &home).spawn().unwrap();
    let mut err = stderr_lines(&mut child);
    let seen = until(&mut err, "waiting until it is authorized").await;
    let approve = seen
        .split_whitespace()
        .find(|w| w.starts_with(&format!("{url}/demo/authorize/")))
        .unwrap_or_else(|| panic!("no approval URL in {seen}"))
        .to_owned();
    assert_eq!(get(&approve).await.0, 200);
    let output = finish(child, &args).await;
    code(&output, 0);
    let lines: Vec<Value> = stdout(&output).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let states: Vec<&str> = lines
        .iter()
        .filter_map(|l| {
            l["statusUpdate"]["status"]["state"].as_str().or(l["task"]["status"]["state"].as_str())
        })
        .collect();
    assert!(states.contains(&"TASK_STATE_AUTH_REQUIRED"), "{states:?}");
    assert_eq!(states.last(), Some(&"TASK_STATE_COMPLETED"), "{states:?}");
    // Live events after the approval (the artifact as it was produced), not a poll's result.
    assert!(
        lines.iter().any(|l| l["artifactUpdate"]["artifact"]["parts"][0]["text"] == "Authorized and done"),
        "{lines:?}"
    );
    let rest = rest(err).await;
    assert!(!rest.contains("polling it instead"), "{rest}");
    server.shutdown().await.unwrap();
}

/// `-a http://host/acme`, the base URL of an agent served at a tenant (its card at
/// `/acme/.well-known/agent-card.json`, docs/tenants.md): the URL itself holds no card, so the
/// well-known path under it is read, and every call carries the tenant; the task is not the main
/// agent's.
#[tokio::test(flavor = "multi_thread")]
async fn an_agent_served_at_a_tenant_is_reached_from_its_base_url() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let mut acme_card = a2a_demo::demo_card();
    acme_card.name = "Acme agent".into();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .tenant("acme", a2a_server::TenantAgent::new(acme_card, a2a_demo::DemoAgent))
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    let acme = format!("{url}/acme");
    let card = json(&cli(&["card", "get", "-a", &acme, "-o", "json"]).await);
    assert_eq!(card["name"], "Acme agent");
    for transport in ["jsonrpc", "http+json", "grpc"] {
        let output = cli(&["send", "-a", &acme, "--transport", transport, "-o", "json", "hello"]).await;
        code(&output, 0);
        let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
        code(&cli(&["task", "get", "-a", &acme, "--transport", transport, &id]).await, 0);
        let elsewhere = cli(&["task", "get", "-a", &url, "--transport", transport, &id]).await;
        assert!(stderr(&elsewhere).contains("TaskNotFound"), "{transport}: {}", stderr(&elsewhere));
    }
    let missing = cli(&["card", "get", "-a", &format!("{url}/initech")]).await;
    code(&missing, 3);
    server.shutdown().await.unwrap();
}
