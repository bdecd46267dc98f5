//! The built `a2a-cli` binary, run as a subprocess against the reference server started in this
//! process on 127.0.0.1:0 (the demo agent): every command, both output formats, the exit codes.

mod common;

use std::process::Output;
use std::time::Duration;

use common::*;

use a2a_core::push::DestinationPolicy;
use a2a_server::{RunningServer, Server};
use serde_json::Value;

async fn start() -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        // The demo's approval URLs (its `authorize` skill, used by the chat test).
        .layer(a2a_demo::AuthorizeLayer::new())
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .spawn(listener)
        .await
        .unwrap()
}

async fn cli_with_stdin(args: &[&str], stdin: Option<&str>) -> Output {
    cli_in(args, stdin, &[], None).await
}

/// A port nothing listens on (bound, then released).
fn dead_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test(flavor = "multi_thread")]
async fn card_get_from_an_origin_a_full_url_and_a_file() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["card", "get", "-a", &url]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "Name"), "A2A Rust reference agent");
    assert_eq!(text_field(&text, "Streaming"), "yes");
    assert_eq!(text_field(&text, "Selected Interface"), format!("JSONRPC 1.0 at {url}"));
    assert!(text.contains("Skill: stream: Stream"), "{text}");
    assert_eq!(text_field(&text, "Signatures"), "absent", "an unsigned card is not a failure");
    assert!(!text.contains('\x1b'), "no control sequences");

    let full = format!("{url}/.well-known/agent-card.json");
    let output = cli(&["card", "get", "-a", &full, "-o", "json"]).await;
    code(&output, 0);
    let card = json(&output);
    assert_eq!(card["name"], "A2A Rust reference agent");
    assert!(card["supportedInterfaces"].as_array().unwrap().len() >= 3);

    // A bare host:port (http for loopback) and a local file.
    let output = cli(&["card", "get", "-a", &url["http://".len()..]]).await;
    code(&output, 0);
    let dir = tempdir("dir");
    let path = dir.join("card.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["card", "get", "-a", path.to_str().unwrap()]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Name"), "A2A Rust reference agent");
    // A signed card is reported as such, never as verified without --verify-keys.
    let mut signed = card.clone();
    signed["signatures"] = serde_json::json!([{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln"}]);
    let signed_path = dir.join("signed.json");
    std::fs::write(&signed_path, serde_json::to_vec(&signed).unwrap()).unwrap();
    let output = cli(&["card", "get", "-a", signed_path.to_str().unwrap()]).await;
    code(&output, 0);
    assert!(text_field(&stdout(&output), "Signatures").starts_with("1, unverified"), "{}", stdout(&output));
    let file_url = format!("file://{}", path.display());
    let output = cli(&["send", "-a", &file_url, "from a file card"]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn send_waits_and_renders_text_and_json() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "hello", "world"]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "State"), "COMPLETED");
    assert!(!text_field(&text, "Task ID").is_empty());
    assert!(!text_field(&text, "Context ID").is_empty());
    assert!(text.contains("\nhello world\n\n"), "the artifact's text as a block:\n{text}");
    let diagnostics = stderr(&output);
    assert!(!diagnostics.contains("error") && !diagnostics.contains("warning"), "{diagnostics}");

    let output = cli(&["send", "-a", &url, "-o", "json", "--text", "first", "--text", "second"]).await;
    code(&output, 0);
    let response = json(&output);
    let task = &response["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(task["id"].is_string() && task["contextId"].is_string());
    let sent: Vec<&str> =
        task["history"][0]["parts"].as_array().unwrap().iter().map(|p| p["text"].as_str().unwrap()).collect();
    assert_eq!(sent, ["first", "second"], "both parts, in order");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "firstsecond", "the echo of the message's text");

    // A data part from stdin.
    let output = cli_with_stdin(
        &["send", "-a", &url, "-o", "json", "--text", "x", "--data", "-"],
        Some(r#"{"k":[1,2]}"#),
    )
    .await;
    code(&output, 0);
    let history = &json(&output)["task"]["history"][0]["parts"];
    assert_eq!(history[1]["data"], serde_json::json!({"k": [1.0, 2.0]}), "{history}");

    // A direct message reply: no task, exits cleanly.
    let output = cli(&["send", "-a", &url, "reply", "hi", "there"]).await;
    code(&output, 0);
    assert!(stdout(&output).contains("Message:\nhi there\n\n"), "{}", stdout(&output));
    let output = cli(&["send", "-a", &url, "-o", "json", "reply", "hi"]).await;
    code(&output, 0);
    assert_eq!(json(&output)["message"]["parts"][0]["text"], "hi");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn send_stream_renders_live_text_and_json_lines() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "--stream", "stream 3"]).await;
    code(&output, 0);
    let text = stdout(&output);
    let chunks =
        text.find("chunk 0\nchunk 1\nchunk 2\n").unwrap_or_else(|| panic!("chunks in order:\n{text}"));
    assert!(text[..chunks].contains("State: WORKING"), "{text}");
    let tail: Vec<&str> = text.trim_end().lines().rev().take(3).collect();
    assert_eq!(tail[0], "State: COMPLETED", "the tail restates the state:\n{text}");
    assert!(tail[1].starts_with("Context ID: ") && tail[2].starts_with("Task ID: "), "{text}");

    let output = cli(&["send", "-a", &url, "-o", "json", "--stream", "stream 3"]).await;
    code(&output, 0);
    let events = lines(&output);
    assert!(events[0]["task"].is_object(), "the first event is the task");
    let artifacts = events.iter().filter(|e| e["artifactUpdate"].is_object()).count();
    assert_eq!(artifacts, 3);
    let last = events.last().unwrap();
    assert_eq!(last["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(last["statusUpdate"]["taskId"].is_string() && last["statusUpdate"]["contextId"].is_string());
    for event in &events {
        assert_eq!(event.as_object().unwrap().len(), 1, "a StreamResponse, no field of our own: {event}");
    }

    // A direct reply on a stream is that one message.
    let output = cli(&["send", "-a", &url, "-o", "json", "--stream", "reply", "yo"]).await;
    code(&output, 0);
    let events = lines(&output);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["message"]["parts"][0]["text"], "yo");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_without_streaming_falls_back_to_one_json_line() {
    let server = start().await;
    let url = server.url();
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    card["capabilities"]["streaming"] = Value::Bool(false);
    let dir = tempdir("dir");
    let path = dir.join("no-streaming.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["send", "-a", path.to_str().unwrap(), "-o", "json", "--stream", "stream 2"]).await;
    code(&output, 0);
    let events = lines(&output);
    assert_eq!(events.len(), 1, "one line: {events:?}");
    assert_eq!(events[0]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(stderr(&output).contains("does not advertise streaming"), "{}", stderr(&output));

    // task subscribe polls instead; push configs are refused before any request.
    let output = cli(&["send", "-a", &url, "-o", "json", "--async", "wait 1"]).await;
    let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
    let output = cli(&[
        "task",
        "subscribe",
        "-a",
        path.to_str().unwrap(),
        "-o",
        "json",
        "--stream",
        "--poll-interval",
        "200ms",
        &id,
    ])
    .await;
    code(&output, 0);
    let events = lines(&output);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    card["capabilities"]["pushNotifications"] = Value::Bool(false);
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["task", "push-config", "list", "-a", path.to_str().unwrap(), "-o", "json", &id]).await;
    code(&output, 1);
    assert_eq!(json(&output)["error"]["code"], "PushNotificationNotSupportedError");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn input_required_stops_with_a_resume_hint_and_the_task_id_continues_it() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "ask"]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "State"), "INPUT_REQUIRED");
    let id = text_field(&text, "Task ID");
    let context = text_field(&text, "Context ID");
    assert!(text.contains("What is your name?"), "{text}");
    assert_eq!(text_field(&text, "Resume"), format!("a2a-cli send -a {url} --task-id {id} '<reply>'"));
    assert!(stderr(&output).contains("INPUT_REQUIRED"), "named on stderr: {}", stderr(&output));

    let output =
        cli(&["send", "-a", &url, "-o", "json", "--task-id", &id, "--context-id", &context, "Ada"]).await;
    code(&output, 0);
    let task = &json(&output)["task"];
    assert_eq!(task["id"], id.as_str());
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["artifacts"][0]["parts"][0]["text"], "Hello, Ada!");

    // A new task in the same context.
    let output = cli(&["send", "-a", &url, "-o", "json", "--context-id", &context, "again"]).await;
    code(&output, 0);
    let task = &json(&output)["task"];
    assert_eq!(task["contextId"], context.as_str());
    assert_ne!(task["id"], id.as_str());

    // A task id the agent does not know fails, and starts no task.
    let before =
        json(&cli(&["task", "list", "-a", &url, "-o", "json"]).await)["tasks"].as_array().unwrap().len();
    let output = cli(&["send", "-a", &url, "-o", "json", "--task-id", "no-such-task", "hi"]).await;
    code(&output, 1);
    let error = &json(&output)["error"];
    assert_eq!(error["code"], "TaskNotFoundError");
    assert!(error["hint"].as_str().unwrap().contains("--debug"), "{error}");
    let after =
        json(&cli(&["task", "list", "-a", &url, "-o", "json"]).await)["tasks"].as_array().unwrap().len();
    assert_eq!(before, after, "no new task");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_and_rejected_tasks_exit_zero_with_a_warning() {
    let server = start().await;
    let url = server.url();
    for (skill, state) in [("fail", "FAILED"), ("reject", "REJECTED")] {
        let output = cli(&["send", "-a", &url, skill]).await;
        code(&output, 0);
        assert_eq!(text_field(&stdout(&output), "State"), state);
        assert!(stderr(&output).contains("warning: task "), "{}", stderr(&output));
        assert!(stderr(&output).contains(state));
    }
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn async_send_then_poll_cancel_and_list() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "-o", "json", "--async", "wait 60"]).await;
    code(&output, 0);
    let task = json(&output)["task"].clone();
    let id = task["id"].as_str().unwrap().to_owned();
    assert!(task["contextId"].is_string());

    // Polling with a timeout: exit 5, the timeout code, a hint naming the task.
    let started = std::time::Instant::now();
    let output = cli(&[
        "task",
        "get",
        "-a",
        &url,
        "-o",
        "json",
        "--wait",
        "--timeout",
        "700ms",
        "--poll-interval",
        "100ms",
        &id,
    ])
    .await;
    code(&output, 5);
    assert!(started.elapsed() < Duration::from_secs(20));
    let error = &json(&output)["error"];
    assert_eq!(error["code"], "A2ACLI_ERR_TIMEOUT");
    assert!(error["hint"].as_str().unwrap().contains(&id), "{error}");

    let output = cli(&["task", "get", "-a", &url, &id]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "WORKING");

    let output = cli(&["task", "list", "-a", &url, "-o", "json", "--status", "working"]).await;
    code(&output, 0);
    let listed = json(&output);
    assert!(listed["tasks"].as_array().unwrap().iter().any(|t| t["id"] == id.as_str()), "{listed}");

    let output = cli(&["task", "cancel", "-a", &url, "-o", "json", &id]).await;
    code(&output, 0);
    assert_eq!(json(&output)["status"]["state"], "TASK_STATE_CANCELED");
    // Idempotent: canceling again reports the same state.
    let output = cli(&["task", "cancel", "-a", &url, "-o", "json", &id]).await;
    code(&output, 0);
    assert_eq!(json(&output)["status"]["state"], "TASK_STATE_CANCELED");

    // A poll now returns at once.
    let output = cli(&["task", "get", "-a", &url, "--wait", &id]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "CANCELED");

    let output = cli(&["task", "list", "-a", &url, "--status", "canceled"]).await;
    code(&output, 0);
    assert!(stdout(&output).contains(&format!("Task ID: {id}\n")), "{}", stdout(&output));

    // A wait that ends by itself: send blocks until the task completes.
    let output = cli(&["send", "-a", &url, "--poll-interval", "200ms", "wait 1"]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    assert!(
        stderr(&output).contains("waiting"),
        "the identifiers are on stderr before the wait: {}",
        stderr(&output)
    );
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn subscribe_follows_a_running_task() {
    let server = start().await;
    let url = server.url();
    let start = |seconds: &'static str| {
        let url = url.clone();
        async move {
            let output = cli(&["send", "-a", &url, "-o", "json", "--async", seconds]).await;
            json(&output)["task"]["id"].as_str().unwrap().to_owned()
        }
    };
    let id = start("wait 1").await;
    let output = cli(&["task", "subscribe", "-a", &url, "-o", "json", "--stream", &id]).await;
    code(&output, 0);
    let events = lines(&output);
    assert_eq!(events[0]["task"]["id"], id.as_str(), "the first event is the task");
    assert_eq!(events.last().unwrap()["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");

    let id = start("wait 1").await;
    let output = cli(&["task", "subscribe", "-a", &url, "-o", "json", &id]).await;
    code(&output, 0);
    let task = json(&output);
    assert_eq!(task["id"], id.as_str());
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED", "the terminal task");

    let id = start("wait 1").await;
    let output = cli(&["task", "subscribe", "-a", &url, "--stream", &id]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text.trim_end().lines().last(), Some("State: COMPLETED"), "{text}");

    // A finished task cannot be subscribed to: the protocol's error.
    let output = cli(&["task", "subscribe", "-a", &url, "-o", "json", "--stream", &id]).await;
    code(&output, 1);
    let events = lines(&output);
    assert_eq!(events.len(), 1);
    assert!(events[0]["error"]["code"].as_str().unwrap().ends_with("Error"), "{events:?}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn push_config_create_get_list_delete() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "-o", "json", "--async", "wait 60"]).await;
    let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
    let hook = format!("http://127.0.0.1:{}/hook", dead_port());

    let output = cli(&[
        "task",
        "push-config",
        "create",
        "-a",
        &url,
        "-o",
        "json",
        &id,
        "--url",
        &hook,
        "--id",
        "c1",
        "--token",
        "secret",
    ])
    .await;
    code(&output, 0);
    let created = json(&output);
    assert_eq!(created["id"], "c1");
    assert_eq!(created["url"], hook.as_str());

    let output = cli(&["task", "push-config", "get", "-a", &url, &id, "c1"]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "Config ID"), "c1");
    assert_eq!(text_field(&text, "URL"), hook);
    assert!(!text.contains("secret"), "the token is not printed: {text}");

    let output = cli(&["task", "push-config", "list", "-a", &url, "-o", "json", &id]).await;
    code(&output, 0);
    assert_eq!(json(&output)["configs"].as_array().unwrap().len(), 1);

    let output = cli(&["task", "push-config", "delete", "-a", &url, &id, "c1"]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Deleted"), "yes");

    let output = cli(&["task", "push-config", "list", "-a", &url, "-o", "json", &id]).await;
    code(&output, 0);
    assert!(json(&output)["configs"].as_array().is_none_or(Vec::is_empty));
    let output = cli(&["task", "push-config", "get", "-a", &url, "-o", "json", &id, "c1"]).await;
    code(&output, 1);
    assert!(json(&output)["error"]["code"].as_str().unwrap().ends_with("Error"));
    let _ = cli(&["task", "cancel", "-a", &url, &id]).await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn errors_carry_their_name_and_exit_status() {
    let server = start().await;
    let url = server.url();
    // A protocol error: its A2A name, exit 1.
    let output = cli(&["task", "get", "-a", &url, "no-such-task"]).await;
    code(&output, 1);
    assert!(
        stderr(&output).contains("error: TaskNotFoundError: task no-such-task not found"),
        "{}",
        stderr(&output)
    );
    assert!(stdout(&output).is_empty());
    let output = cli(&["task", "get", "-a", &url, "-o", "json", "no-such-task"]).await;
    code(&output, 1);
    let error = json(&output);
    assert_eq!(error["error"]["code"], "TaskNotFoundError");
    assert_eq!(error["error"]["a2aCode"], "TASK_NOT_FOUND");

    // Unreachable agent: exit 3.
    let dead = format!("http://127.0.0.1:{}", dead_port());
    let output = cli(&["card", "get", "-a", &dead, "-o", "json"]).await;
    code(&output, 3);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_UNREACHABLE");
    // No card at that URL: exit 3.
    let output = cli(&["card", "get", "-a", &format!("{url}/no/card.json"), "-o", "json"]).await;
    code(&output, 3);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_CARD_NOT_FOUND");
    // A card file that is not a card: exit 1.
    let dir = tempdir("dir");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, "[1, 2]").unwrap();
    let output = cli(&["card", "get", "-a", bad.to_str().unwrap(), "-o", "json"]).await;
    code(&output, 1);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_CARD_INVALID");
    // --validate: the reference card is valid; one missing required fields is not, and says which.
    let output = cli(&["card", "get", "-a", &url, "--validate"]).await;
    code(&output, 0);
    assert!(stderr(&output).contains("every field A2A 1.0 requires"), "{}", stderr(&output));
    let mut lacking = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    lacking["description"] = Value::String(String::new());
    lacking["skills"][0]["tags"] = serde_json::json!([]);
    let lacking_path = dir.join("lacking.json");
    std::fs::write(&lacking_path, serde_json::to_vec(&lacking).unwrap()).unwrap();
    let output =
        cli(&["card", "get", "-a", lacking_path.to_str().unwrap(), "--validate", "-o", "json"]).await;
    code(&output, 1);
    let error = &json(&output)["error"];
    assert_eq!(error["code"], "A2ACLI_ERR_CARD_INVALID");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("`description`") && message.contains("`skills[0].tags`"), "{message}");
    // The card's interfaces point at a dead agent: unreachable on the call.
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    for interface in card["supportedInterfaces"].as_array_mut().unwrap() {
        interface["url"] = Value::String(dead.clone());
    }
    let moved = dir.join("moved.json");
    std::fs::write(&moved, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["task", "get", "-a", moved.to_str().unwrap(), "-o", "json", "x"]).await;
    code(&output, 3);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_UNREACHABLE");

    // Usage errors: exit 2, the envelope in JSON.
    let output = cli(&["send", "hello"]).await;
    code(&output, 2);
    assert!(stderr(&output).contains("A2ACLI_ERR_USAGE"), "{}", stderr(&output));
    let output = cli(&["task", "get", "-o", "json", "--no-such-flag"]).await;
    code(&output, 2);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_USAGE");
    let output = cli(&["send", "-a", &url, "--media-type", "text/plain", "--text", "x"]).await;
    code(&output, 2);
    let output = cli(&["send", "-a", &url, "--a2a-version", "0.1", "x"]).await;
    code(&output, 2);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn transport_version_and_credentials_are_chosen_by_flags() {
    let server = start().await;
    let url = server.url();
    for (transport, selected) in
        [("http+json", "HTTP+JSON 1.0"), ("grpc", "GRPC 1.0"), ("jsonrpc", "JSONRPC 1.0")]
    {
        let output =
            cli(&["send", "-a", &url, "--transport", transport, "--debug", "over one binding"]).await;
        code(&output, 0);
        assert!(stderr(&output).contains(&format!("selected interface: {selected}")), "{}", stderr(&output));
        assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    }
    // A preferred binding the card lacks is skipped (here: none lacking, so the order decides).
    let output = cli(&["card", "get", "-a", &url, "--transport", "grpc", "--transport", "jsonrpc"]).await;
    assert!(text_field(&stdout(&output), "Selected Interface").starts_with("GRPC 1.0"));

    // A preferred interface that is down is passed over for the next one that answers.
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    card["supportedInterfaces"][0]["url"] = Value::String(format!("http://127.0.0.1:{}", dead_port()));
    let dir = tempdir("dir");
    let path = dir.join("first-down.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["send", "-a", path.to_str().unwrap(), "--debug", "fallback"]).await;
    code(&output, 0);
    assert!(stderr(&output).contains("selected interface: HTTP+JSON 1.0"), "{}", stderr(&output));

    let output = cli(&["send", "-a", &url, "--a2a-version", "0.3", "--debug", "legacy"]).await;
    code(&output, 0);
    assert!(stderr(&output).contains("selected interface: JSONRPC 0.3"), "{}", stderr(&output));

    let output = cli(&[
        "task",
        "list",
        "-a",
        &url,
        "--bearer",
        "t0p-s3cret",
        "--api-key",
        "k3y-s3cret",
        "--svc-param",
        "x-trace:abc",
        "--debug",
    ])
    .await;
    code(&output, 0);
    let diagnostics = stderr(&output);
    assert!(!diagnostics.contains("t0p-s3cret") && !diagnostics.contains("k3y-s3cret"), "{diagnostics}");
    assert!(diagnostics.contains("service parameter authorization: <redacted"), "{diagnostics}");
    assert!(diagnostics.contains("service parameter x-trace: abc"), "{diagnostics}");

    // The wire log: the raw exchange of the HTTP bindings, credentials redacted.
    let output =
        cli(&["send", "-a", &url, "--debug", "--bearer", "t0p-s3cret", "--transport", "jsonrpc", "wired"])
            .await;
    code(&output, 0);
    let diagnostics = stderr(&output);
    assert!(diagnostics.contains("wire: ") && diagnostics.contains("SendMessage"), "{diagnostics}");
    assert!(diagnostics.contains("GET /.well-known/agent-card.json"), "the card fetch too: {diagnostics}");
    assert!(!diagnostics.contains("t0p-s3cret"), "{diagnostics}");

    // --insecure is never silent, and louder with a credential.
    let output = cli(&["task", "list", "-a", &url, "--insecure", "--bearer", "t"]).await;
    code(&output, 0);
    let warnings = stderr(&output);
    assert!(warnings.contains("TLS certificate verification is OFF"), "{warnings}");
    assert!(warnings.contains("credentials are being sent"), "{warnings}");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn help_version_and_completions() {
    let output = cli(&["--help"]).await;
    code(&output, 0);
    let help = stdout(&output);
    assert!(
        help.contains("Examples:") && help.contains("Exit codes:") && help.contains("Defaults"),
        "{help}"
    );
    let output = cli(&["send", "--help"]).await;
    code(&output, 0);
    assert!(stdout(&output).contains("--async"));
    let output = cli(&["help", "task"]).await;
    code(&output, 0);
    let output = cli(&["-v"]).await;
    code(&output, 0);
    assert_eq!(stdout(&output).trim(), format!("a2a-cli {}", env!("CARGO_PKG_VERSION")));
    for shell in ["bash", "zsh", "fish"] {
        let output = cli(&["completion", shell]).await;
        code(&output, 0);
        assert!(stdout(&output).contains("push-config"), "{shell}");
    }
}

/// SPEC.md §10.1 (A2ACLI_CARD_GET_004), spec 8.4.3: `card get --verify-keys` verifies the card's
/// JWS signatures with trusted keys, from an agent or a file, and refuses a card that does not
/// verify (exit 1, A2ACLI_ERR_CARD_INVALID); an unreadable key file is a usage error.
#[tokio::test]
async fn card_get_verify_keys_verifies_the_signature_and_refuses_a_card_that_does_not_verify() {
    let keys = concat!(env!("CARGO_MANIFEST_DIR"), "/../a2a-card-sign/tests/data/keys/");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let private = std::fs::read(format!("{keys}es256.key.pem")).unwrap();
    let signed = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .extended_agent_card(a2a_demo::demo_extended_card())
        .executor(a2a_demo::DemoAgent)
        .sign_card(a2a_card_sign::CardSigner::from_pem(&private, "agent-1").unwrap())
        .spawn(listener)
        .await
        .unwrap();
    let url = signed.url();
    let trusted = format!("{keys}es256.pub.pem");
    let other = format!("{keys}other.pub.pem");

    let output = cli(&["card", "get", "-a", &url, "--verify-keys", &trusted]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Signatures"), "1, verified with a key of --verify-keys");
    let output = cli(&["card", "get", "-a", &url, "--extended", "--verify-keys", &trusted]).await;
    code(&output, 0);
    assert!(text_field(&stdout(&output), "Signatures").starts_with("1, verified"), "{}", stdout(&output));

    let output = cli(&["card", "get", "-a", &url, "--verify-keys", &other, "-o", "json"]).await;
    code(&output, 1);
    let error = &json(&output)["error"];
    assert_eq!(error["code"], "A2ACLI_ERR_CARD_INVALID");
    assert!(error["message"].as_str().unwrap().contains("does not match the card"), "{error}");
    let unsigned = start().await;
    let output = cli(&["card", "get", "-a", &unsigned.url(), "--verify-keys", &trusted, "-o", "json"]).await;
    code(&output, 1);
    assert!(json(&output)["error"]["message"].as_str().unwrap().contains("not signed"));

    // A card file: verified as written; one changed after signing is refused.
    let dir = tempdir("dir");
    let document =
        reqwest::get(format!("{url}/.well-known/agent-card.json")).await.unwrap().text().await.unwrap();
    let path = dir.join("signed.json");
    std::fs::write(&path, &document).unwrap();
    let output = cli(&["card", "get", "-a", path.to_str().unwrap(), "--verify-keys", &trusted]).await;
    code(&output, 0);
    let mut tampered: Value = serde_json::from_str(&document).unwrap();
    tampered["description"] = "Now with more features".into();
    let tampered_path = dir.join("tampered.json");
    std::fs::write(&tampered_path, serde_json::to_vec(&tampered).unwrap()).unwrap();
    let output =
        cli(&["card", "get", "-a", tampered_path.to_str().unwrap(), "--verify-keys", &trusted]).await;
    code(&output, 1);

    let output =
        cli(&["card", "get", "-a", &url, "--verify-keys", path.to_str().unwrap(), "-o", "json"]).await;
    code(&output, 2);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_USAGE");
}

/// Whether `tmux` runs here. Under CI (`CI` set, as `.ci/run` runs, which installs tmux) a
/// missing tmux fails the test: a check that cannot run must not pass. Elsewhere the test says so
/// on stderr and checks nothing.
fn tmux_available(what: &str) -> bool {
    if std::process::Command::new("tmux").arg("-V").output().is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "tmux is required in CI to check {what} (apt-get install tmux)"
    );
    eprintln!("tmux is not installed: {what} is not checked");
    false
}

/// In a real terminal (tmux): the stream renders live, the spinner runs on stderr while the task
/// works and is erased afterwards, diagnostics are coloured, and `NO_COLOR` turns colour off.
/// Needs `tmux` ([`tmux_available`]).
#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_gets_live_rendering_a_spinner_and_colour() {
    if !tmux_available("the terminal rendering") {
        return;
    }
    let server = start().await;
    let url = server.url();
    let socket = format!("a2a-cli-test-{}", std::process::id());
    let tmux = |args: &[&str]| {
        let output = std::process::Command::new("tmux").arg("-L").arg(&socket).args(args).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let bin = env!("CARGO_BIN_EXE_a2a-cli");
    tmux(&[
        "new-session",
        "-d",
        "-s",
        "t",
        "-x",
        "200",
        "-y",
        "50",
        "env -u NO_COLOR TERM=xterm bash --norc --noprofile",
    ]);
    let script = format!(
        "{bin} send -a {url} --stream 'stream 3'; {bin} send -a {url} --poll-interval 300ms 'wait 2'; \
         {bin} task get -a {url} nope; NO_COLOR=1 {bin} task get -a {url} nope2; echo DONE-MARK"
    );
    tmux(&["send-keys", "-t", "t", &script, "Enter"]);
    let mut saw_spinner = false;
    let mut screen = String::new();
    for _ in 0..150 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        screen = tmux(&["capture-pane", "-t", "t", "-p", "-e", "-J"]);
        saw_spinner |= screen.lines().any(|l| {
            l.contains(" WORKING") && l.starts_with(['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'])
        });
        if screen.lines().any(|l| l.trim() == "DONE-MARK") {
            break;
        }
    }
    tmux(&["kill-server"]);
    server.shutdown().await.unwrap();
    assert!(screen.contains("chunk 0\nchunk 1\nchunk 2\n"), "{screen}");
    assert!(saw_spinner, "a spinner while the task was WORKING:\n{screen}");
    assert!(!screen.contains('⠋') && !screen.contains('⠏'), "the spinner is erased:\n{screen}");
    assert!(screen.contains("Done waiting"), "{screen}");
    assert!(
        screen.contains("\x1b[1m\x1b[31merror:")
            || screen.contains("\x1b[31;1merror:")
            || screen.contains("\x1b[31m"),
        "coloured on a terminal:\n{screen:?}"
    );
    let plain = screen.lines().find(|l| l.contains("nope2 not found")).unwrap_or_default();
    assert!(plain.starts_with("error: TaskNotFoundError"), "NO_COLOR: {plain:?}");
}

/// A TCP proxy to `target` that passes every connection through, except that the first one
/// carrying a request is cut after `cut_after` (a connection opened only to check the agent is
/// reachable does not count); returns its address.
async fn cutting_proxy(target: std::net::SocketAddr, cut_after: Duration) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let cut = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let cut = cut.clone();
            tokio::spawn(async move {
                let mut byte = [0u8; 1];
                if !matches!(inbound.peek(&mut byte).await, Ok(n) if n > 0) {
                    return;
                }
                let first = !cut.swap(true, std::sync::atomic::Ordering::SeqCst);
                let forward = async {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await else { return };
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                };
                if first {
                    let _ = tokio::time::timeout(cut_after, forward).await;
                } else {
                    forward.await;
                }
            });
        }
    });
    addr
}

/// A card file whose only interface is JSON-RPC 1.0 at `addr`.
fn card_file(dir: &std::path::Path, addr: std::net::SocketAddr) -> String {
    let card = serde_json::json!({
        "name": "behind a proxy",
        "description": "the demo agent",
        "version": "1",
        "capabilities": {"streaming": true, "pushNotifications": true},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
        "supportedInterfaces": [{"url": format!("http://{addr}"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    });
    let path = dir.join(format!("proxy-{}.json", addr.port()));
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    path.to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn subscribe_resumes_after_a_dropped_stream() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "-o", "json", "--async", "wait 2"]).await;
    let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
    let dir = tempdir("dir");
    let card = card_file(&dir, cutting_proxy(server.addr(), Duration::from_millis(500)).await);
    let output = cli(&["task", "subscribe", "-a", &card, "-o", "json", "--stream", &id]).await;
    code(&output, 0);
    let events = lines(&output);
    let snapshots = events.iter().filter(|e| e["task"].is_object()).count();
    assert_eq!(snapshots, 2, "the task again on resubscription, nothing else repeated: {events:?}");
    assert_eq!(events.last().unwrap()["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stream_that_drops_falls_back_to_polling() {
    let server = start().await;
    let dir = tempdir("dir");
    let card = card_file(&dir, cutting_proxy(server.addr(), Duration::from_millis(500)).await);
    let output =
        cli(&["send", "-a", &card, "-o", "json", "--stream", "--poll-interval", "200ms", "wait 2"]).await;
    code(&output, 0);
    let events = lines(&output);
    assert!(events[0]["task"].is_object(), "{events:?}");
    let last = events.last().unwrap();
    assert_eq!(
        last["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "the polled task closes the stream: {events:?}"
    );
    assert!(stderr(&output).contains("polling it instead"), "{}", stderr(&output));
    server.shutdown().await.unwrap();
}

/// Calls the guarded server received, and those without `A2A-Version: 1.0`.
static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static WITHOUT_VERSION: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Card fetches that carried a credential.
static CARD_WITH_CREDENTIALS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The reference server behind a layer that wants `Authorization: Bearer good`, the header
/// `X-Agent-Key: k1` or the cookie `session=c1` on every call (the card is public). Returns the
/// base URL and the served card.
async fn start_guarded() -> (String, Value) {
    async fn guard(
        request: axum::extract::Request,
        next: axum::middleware::Next,
    ) -> axum::response::Response {
        let allowed = {
            let headers = request.headers();
            let credentials =
                ["authorization", "x-agent-key", "cookie"].iter().any(|h| headers.contains_key(*h));
            if request.uri().path().starts_with("/.well-known/") && credentials {
                CARD_WITH_CREDENTIALS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            if !request.uri().path().starts_with("/.well-known/") {
                CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if headers.get("a2a-version").is_none_or(|v| v != "1.0") {
                    WITHOUT_VERSION.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                }
            }
            let header =
                |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
            request.uri().path().starts_with("/.well-known/")
                || header("authorization") == "Bearer good"
                || header("x-agent-key") == "k1"
                || header("cookie").split(';').any(|c| c.trim() == "session=c1")
        };
        if allowed {
            next.run(request).await
        } else {
            axum::http::StatusCode::UNAUTHORIZED.into_response()
        }
    }
    use axum::response::IntoResponse;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let app =
        Server::builder().agent_card(a2a_demo::demo_card()).executor(a2a_demo::DemoAgent).app(addr).unwrap();
    let card = a2a_proto::json::to_value(&app.card).unwrap();
    let router = app.router.layer(axum::middleware::from_fn(guard));
    tokio::spawn(async move { axum::serve(listener, router).await });
    (format!("http://{addr}"), card)
}

#[tokio::test(flavor = "multi_thread")]
async fn credentials_reach_the_agent_per_its_declared_scheme_and_refusals_exit_4() {
    let (_url, served) = start_guarded().await;
    let dir = tempdir("dir");
    let write = |name: &str, schemes: Value| {
        let mut card = served.clone();
        card["securitySchemes"] = schemes;
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let header_card = write(
        "header.json",
        serde_json::json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}},
                           "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Agent-Key"}}}),
    );
    let cookie_card = write(
        "cookie.json",
        serde_json::json!({"key": {"apiKeySecurityScheme": {"location": "cookie", "name": "session"}}}),
    );

    // None given: missing, with a hint naming the card's schemes.
    let output = cli(&["task", "list", "-a", &header_card, "-o", "json"]).await;
    code(&output, 4);
    let error = &json(&output)["error"];
    assert_eq!(error["code"], "A2ACLI_ERR_CREDENTIALS_MISSING");
    assert!(error["hint"].as_str().unwrap().contains("--bearer"), "{error}");
    // Rejected.
    let output = cli(&["task", "list", "-a", &header_card, "-o", "json", "--bearer", "bad"]).await;
    code(&output, 4);
    assert_eq!(json(&output)["error"]["code"], "A2ACLI_ERR_AUTH_FAILED");
    // Accepted, over both HTTP bindings, as a flag and from the environment (the flag wins).
    for transport in ["jsonrpc", "http+json"] {
        let output =
            cli(&["send", "-a", &header_card, "--transport", transport, "--bearer", "good", "hi"]).await;
        code(&output, 0);
        assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    }
    let output =
        cli_in(&["task", "list", "-a", &header_card], None, &[("A2ACLI_BEARER", "good")], None).await;
    code(&output, 0);
    let output = cli_in(
        &["task", "list", "-a", &header_card, "--bearer", "good"],
        None,
        &[("A2ACLI_BEARER", "bad")],
        None,
    )
    .await;
    code(&output, 0);
    // An API key where the card says: a header, or a cookie; also from the environment.
    let output = cli(&["task", "list", "-a", &header_card, "--api-key", "k1"]).await;
    code(&output, 0);
    let output = cli_in(&["task", "list", "-a", &cookie_card], None, &[("A2ACLI_API_KEY", "c1")], None).await;
    code(&output, 0);
    let output = cli(&["task", "list", "-a", &cookie_card, "--api-key", "wrong"]).await;
    code(&output, 4);
    // Every call said which protocol version it speaks.
    assert!(CALLS.load(std::sync::atomic::Ordering::SeqCst) >= 5);
    assert_eq!(
        WITHOUT_VERSION.load(std::sync::atomic::Ordering::SeqCst),
        0,
        "A2A-Version: 1.0 on every request"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_interface_s_tenant_goes_with_every_request() {
    let server = start().await;
    let url = server.url();
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    for interface in card["supportedInterfaces"].as_array_mut().unwrap() {
        interface["tenant"] = Value::String("acme".into());
    }
    let dir = tempdir("dir");
    let path = dir.join("tenant.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let tenant_card = path.to_str().unwrap();
    let output = cli(&["send", "-a", tenant_card, "-o", "json", "tenant work"]).await;
    code(&output, 0);
    let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
    // Tasks are scoped by tenant: found through the tenant's interface only.
    code(&cli(&["task", "get", "-a", tenant_card, &id]).await, 0);
    let output = cli(&["task", "get", "-a", &url, "-o", "json", &id]).await;
    code(&output, 1);
    assert_eq!(json(&output)["error"]["code"], "TaskNotFoundError");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn version_1_0_by_default_and_0_3_only_when_asked() {
    let server = start().await;
    let url = server.url();
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    card["supportedInterfaces"].as_array_mut().unwrap().retain(|i| i["protocolVersion"] == "0.3");
    let dir = tempdir("dir");
    let path = dir.join("legacy.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let legacy = path.to_str().unwrap();
    let output = cli(&["send", "-a", legacy, "-o", "json", "hi"]).await;
    code(&output, 1);
    let error = &json(&output)["error"];
    assert!(error["hint"].as_str().unwrap().contains("--a2a-version"), "never a silent downgrade: {error}");
    let output = cli(&["send", "-a", legacy, "--a2a-version", "0.3", "hi"]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn list_pages_filters_and_history() {
    let server = start().await;
    let url = server.url();
    let first = json(&cli(&["send", "-a", &url, "-o", "json", "one"]).await)["task"].clone();
    let context = first["contextId"].as_str().unwrap();
    cli(&["send", "-a", &url, "-o", "json", "--context-id", context, "two"]).await;
    cli(&["send", "-a", &url, "-o", "json", "three"]).await;
    let output = cli(&["task", "list", "-a", &url, "--context-id", context, "-o", "json"]).await;
    code(&output, 0);
    assert_eq!(json(&output)["tasks"].as_array().unwrap().len(), 2, "filtered by context");

    let output = cli(&["task", "list", "-a", &url, "--page-size", "2"]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "Tasks"), "2");
    let token = text_field(&text, "Next Page Token");
    let output = cli(&["task", "list", "-a", &url, "--page-size", "2", "--page-token", &token]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Tasks"), "1", "the last page");

    let id = first["id"].as_str().unwrap();
    let output = cli(&["task", "get", "-a", &url, id]).await;
    assert!(!stdout(&output).contains("History user:"), "concise by default");
    let output = cli(&["task", "get", "-a", &url, "--history", "5", id]).await;
    assert!(stdout(&output).contains("History user:\none\n\n"), "{}", stdout(&output));
    let output = cli(&["task", "get", "-a", &url, "--verbose", id]).await;
    assert!(stdout(&output).contains("History user:"), "{}", stdout(&output));
    // Cancel is idempotent for the caller: a second cancel of a finished task is reported, not a crash.
    let output = cli(&["task", "cancel", "-a", &url, "-o", "json", id]).await;
    assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr(&output));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_same_error_on_every_transport_and_no_state_is_written() {
    let server = start().await;
    let url = server.url();
    for transport in ["jsonrpc", "http+json", "grpc"] {
        let output = cli(&["task", "get", "-a", &url, "-o", "json", "--transport", transport, "nope"]).await;
        code(&output, 1);
        let error = &json(&output)["error"];
        assert_eq!(error["code"], "TaskNotFoundError", "{transport}");
        assert_eq!(error["a2aCode"], "TASK_NOT_FOUND", "{transport}");
    }
    // Stateless: a run writes nothing, in the working directory or the home directory.
    let dir = tempdir("dir");
    let home = dir.to_str().unwrap();
    let output =
        cli_in(&["send", "-a", &url, "ask"], None, &[("HOME", home), ("XDG_CONFIG_HOME", home)], Some(&dir))
            .await;
    code(&output, 0);
    let id = text_field(&stdout(&output), "Task ID");
    let output =
        cli_in(&["send", "-a", &url, "--task-id", &id, "Bo"], None, &[("HOME", home)], Some(&dir)).await;
    code(&output, 0);
    assert_eq!(std::fs::read_dir(&*dir).unwrap().count(), 0, "nothing persisted");
    // Without --task-id the next send is a new task: nothing was remembered.
    let output = cli_in(&["send", "-a", &url, "Cy"], None, &[("HOME", home)], Some(&dir)).await;
    assert_ne!(text_field(&stdout(&output), "Task ID"), id);
    server.shutdown().await.unwrap();
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_wait_has_already_printed_the_task_id() {
    let server = start().await;
    let url = server.url();
    let child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-cli"))
        .args(["send", "-a", &url, "--poll-interval", "100ms", "wait 60"])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let pid = child.id().unwrap().to_string();
    let killed = std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(killed.success());
    let output = tokio::time::timeout(Duration::from_secs(10), child.wait_with_output())
        .await
        .expect("Ctrl-C ends the wait at once")
        .unwrap();
    assert!(!output.status.success());
    let diagnostics = stderr(&output);
    let hint = diagnostics
        .lines()
        .find(|l| l.contains("resume the wait with: a2a-cli task get"))
        .unwrap_or_else(|| panic!("the identifiers were on stderr before the interrupt: {diagnostics}"));
    let id = hint.split_whitespace().nth(2).unwrap();
    // The task is still there to resume.
    let output = cli(&["task", "get", "-a", &url, id]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "WORKING");
    let _ = cli(&["task", "cancel", "-a", &url, id]).await;
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn task_download_saves_the_artifacts() {
    let server = start().await;
    let url = server.url();
    let output = cli(&["send", "-a", &url, "-o", "json", "stream 3"]).await;
    let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
    let dir = tempdir("dir");
    let target = dir.join("out");
    let output = cli(&["task", "download", "-a", &url, "--dir", target.to_str().unwrap(), &id]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "Files"), "1");
    assert_eq!(text_field(&text, "State"), "COMPLETED");
    let files: Vec<_> = std::fs::read_dir(&target).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(files.len(), 1);
    assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), "chunk 0\nchunk 1\nchunk 2\n");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_come_from_flags_then_the_environment_then_env_files() {
    let server = start().await;
    let url = server.url();
    let dir = tempdir("dir");
    let project = dir.join("project");
    let nested = project.join("sub");
    let config_home = dir.join("config");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::create_dir_all(config_home.join("a2a-cli")).unwrap();
    let home = config_home.to_str().unwrap();
    // Global: the agent and JSON output; local (in a parent of the working directory): the agent only.
    std::fs::write(
        config_home.join("a2a-cli/.env"),
        format!("A2ACLI_AGENT_CARD=http://127.0.0.1:{}\nA2ACLI_OUTPUT=json\n", dead_port()),
    )
    .unwrap();
    std::fs::write(project.join(".env"), format!("# the test agent\nA2ACLI_AGENT_CARD={url}\n")).unwrap();
    let env = [("XDG_CONFIG_HOME", home)];

    // Local beats global for the agent; the global file still supplies the output format.
    let output = cli_in(&["send", "hi"], None, &env, Some(&nested)).await;
    code(&output, 0);
    assert_eq!(json(&output)["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    // The environment beats the files; a flag beats the environment.
    let output = cli_in(&["send", "hi"], None, &[env[0], ("A2ACLI_OUTPUT", "text")], Some(&nested)).await;
    assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    let output =
        cli_in(&["send", "-o", "json", "hi"], None, &[env[0], ("A2ACLI_OUTPUT", "text")], Some(&nested))
            .await;
    assert_eq!(json(&output)["task"]["status"]["state"], "TASK_STATE_COMPLETED");

    // config show: each value and its source.
    let output =
        cli_in(&["config", "show", "-o", "text", "--timeout", "5s"], None, &env, Some(&nested)).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "Agent Card"), format!("{url} (file {})", project.join(".env").display()));
    assert!(text_field(&text, "Output").starts_with("text (flag)"), "{text}");
    assert_eq!(text_field(&text, "Timeout"), "5s (flag)");
    assert_eq!(text_field(&text, "Poll Interval"), "2s (default)");

    // --config replaces the local file; a credential in a file others can read is warned about.
    let explicit = dir.join("agent.env");
    std::fs::write(
        &explicit,
        format!(
            "A2ACLI_AGENT_CARD={url}\nA2ACLI_BEARER=s3cret\nA2ACLI_BASIC=u:p4ss\nA2ACLI_CA=/etc/ca.pem\n"
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&explicit, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let explicit = explicit.to_str().unwrap();
    let output = cli_in(&["config", "show", "--config", explicit], None, &env, Some(&dir)).await;
    code(&output, 0);
    let shown = json(&output);
    let bearer =
        shown["settings"].as_array().unwrap().iter().find(|s| s["name"] == "A2ACLI_BEARER").unwrap().clone();
    assert!(bearer["value"].as_str().unwrap().starts_with("<redacted"), "{bearer}");
    assert_eq!(bearer["source"], format!("file {explicit}"));
    let setting = |name: &str| {
        shown["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name}"))
            .clone()
    };
    assert!(setting("A2ACLI_BASIC")["value"].as_str().unwrap().starts_with("<redacted"), "{shown}");
    assert_eq!(setting("A2ACLI_CA")["value"], "/etc/ca.pem");
    assert!(setting("A2ACLI_CERT")["value"].is_null() && setting("A2ACLI_KEY")["source"] == "unset");
    #[cfg(unix)]
    assert!(stderr(&output).contains("chmod 600"), "{}", stderr(&output));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn webhook_listen_receives_the_push_notifications_of_a_task() {
    use tokio::io::AsyncBufReadExt;
    let server = start().await;
    let url = server.url();
    let mut receiver = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-cli"))
        .args(["webhook", "listen", "-o", "json", "--token", "tok", "--until-terminal", "--path", "/hook"])
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut diagnostics = tokio::io::BufReader::new(receiver.stderr.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(20), diagnostics.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    let hook = line.split("listening on ").nth(1).unwrap_or_else(|| panic!("{line}")).trim().to_owned();
    assert!(hook.starts_with("http://127.0.0.1:") && hook.ends_with("/hook"), "{hook}");

    // A notification without the token is refused.
    let refused = reqwest::Client::new().post(&hook).body("{}").send().await.unwrap();
    assert_eq!(refused.status(), 401);

    let output = cli(&["send", "-a", &url, "-o", "json", "--async", "wait 2"]).await;
    let id = json(&output)["task"]["id"].as_str().unwrap().to_owned();
    let output =
        cli(&["task", "push-config", "create", "-a", &url, &id, "--url", &hook, "--token", "tok"]).await;
    code(&output, 0);
    let output = tokio::time::timeout(Duration::from_secs(30), receiver.wait_with_output())
        .await
        .expect("the receiver stops after the terminal notification")
        .unwrap();
    assert!(output.status.success());
    let events = lines(&output);
    assert!(!events.is_empty());
    for event in &events {
        let task_id = event["statusUpdate"]["taskId"].as_str().or(event["task"]["id"].as_str());
        assert_eq!(task_id, Some(id.as_str()), "{event}");
    }
    assert_eq!(events.last().unwrap()["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_needs_a_terminal_and_carries_the_conversation_on_one() {
    let server = start().await;
    let url = server.url();
    // Not a terminal: a usage error, no prompt, no wait for input.
    let output = cli_with_stdin(&["chat", "-a", &url], Some("hello\n")).await;
    code(&output, 2);
    assert!(stderr(&output).contains("needs a terminal"), "{}", stderr(&output));

    if !tmux_available("the interactive chat") {
        return;
    }
    let socket = format!("a2a-cli-chat-{}", std::process::id());
    let tmux = |args: &[&str]| {
        let output = std::process::Command::new("tmux").arg("-L").arg(&socket).args(args).output().unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let command = format!("NO_COLOR=1 {} chat -a {url}; echo CHAT-EXIT-$?", env!("CARGO_BIN_EXE_a2a-cli"));
    tmux(&["new-session", "-d", "-s", "c", "-x", "200", "-y", "50", "bash --norc --noprofile"]);
    tmux(&["send-keys", "-t", "c", &command, "Enter"]);
    let screen_after = |needle: &'static str| {
        let tmux = &tmux;
        async move {
            let mut screen = String::new();
            for _ in 0..100 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                screen = tmux(&["capture-pane", "-t", "c", "-p", "-J"]);
                if screen.contains(needle) {
                    return screen;
                }
            }
            panic!("{needle:?} never appeared:\n{screen}")
        }
    };
    screen_after("you> ").await;
    tmux(&["send-keys", "-t", "c", "hello there", "Enter"]);
    screen_after("agent> hello there").await;
    tmux(&["send-keys", "-t", "c", "ask", "Enter"]);
    screen_after("your next line answers it").await;
    tmux(&["send-keys", "-t", "c", "Ada", "Enter"]);
    screen_after("agent> Hello, Ada!").await;
    // AUTH_REQUIRED (A2ACLI_AUTH_011): the agent's message with its approval URL, and the next
    // line answers in band: `deny` rejects the task.
    tmux(&["send-keys", "-t", "c", "authorize", "Enter"]);
    let screen = screen_after("is AUTH_REQUIRED: your next line answers it").await;
    assert!(
        screen.contains(&format!("agent> Authorization required: open {url}/demo/authorize/")),
        "{screen}"
    );
    tmux(&["send-keys", "-t", "c", "deny", "Enter"]);
    screen_after("is REJECTED]").await;
    tmux(&["send-keys", "-t", "c", "", "Enter"]);
    let screen = screen_after("CHAT-EXIT-").await;
    tmux(&["kill-server"]);
    server.shutdown().await.unwrap();
    assert!(screen.contains("CHAT-EXIT-0"), "{screen}");
    assert!(screen.contains("Context ID: "), "the context is reported at the end:\n{screen}");
}

/// Starts `a2a-cli <args>` (a server) and returns it with the URL it printed on its first line.
async fn start_serving(args: &[&str]) -> (tokio::process::Child, String) {
    use tokio::io::AsyncBufReadExt;
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-cli"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let line =
        tokio::time::timeout(Duration::from_secs(30), stdout.next_line()).await.unwrap().unwrap().unwrap();
    let url = line.strip_prefix("Listening: ").unwrap_or_else(|| panic!("{line}")).to_owned();
    // Keep reading stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = stdout.next_line().await {} });
    (child, url)
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn serve_exec_makes_a_command_an_agent() {
    let (mut server, url) = start_serving(&[
        "serve",
        "--exec",
        "tr a-z A-Z; printf 'second line\\n'",
        "--listen",
        "127.0.0.1:0",
        "--name",
        "upper",
    ])
    .await;
    let output = cli(&["card", "get", "-a", &url]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Name"), "upper");

    let output = cli(&["send", "-a", &url, "-o", "json", "hello"]).await;
    code(&output, 0);
    let task = &json(&output)["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    let text: String = task["artifacts"][0]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "HELLO\nsecond line\n", "stdin in, stdout out, line by line");

    let output = cli(&["send", "-a", &url, "-o", "json", "--stream", "abc"]).await;
    code(&output, 0);
    let events = lines(&output);
    let chunks = events.iter().filter(|e| e["artifactUpdate"].is_object()).count();
    assert_eq!(chunks, 2, "one chunk per line: {events:?}");
    assert_eq!(events.last().unwrap()["statusUpdate"]["status"]["state"], "TASK_STATE_COMPLETED");
    server.kill().await.unwrap();

    // A failing command: FAILED, with its exit status and stderr.
    let (mut server, url) =
        start_serving(&["serve", "--exec", "echo oops >&2; exit 3", "--listen", "127.0.0.1:0"]).await;
    let output = cli(&["send", "-a", &url, "x"]).await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "State"), "FAILED");
    assert!(text.contains("exit status: 3: oops"), "{text}");
    server.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn demo_server_serves_the_demo_agent() {
    let (mut server, url) = start_serving(&["demo-server", "--listen", "127.0.0.1:0"]).await;
    let output = cli(&["send", "-a", &url, "--stream", "stream 2"]).await;
    code(&output, 0);
    assert!(stdout(&output).contains("chunk 0\nchunk 1\n"), "{}", stdout(&output));
    server.kill().await.unwrap();
}

#[cfg(feature = "conformance")]
#[tokio::test(flavor = "multi_thread")]
async fn conformance_runs_the_suite_against_an_agent() {
    // The reference server as its binary runs it: with the extended card its card declares.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .extended_agent_card(a2a_demo::demo_extended_card())
        .executor(a2a_demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    let output = cli(&["conformance", "-a", &url, "-o", "json"]).await;
    let report = json(&output);
    assert_eq!(report["passed"], true, "{}", stderr(&output));
    code(&output, 0);
    // An agent whose card declares an extended card it does not have fails scenarios: exit 1,
    // and in JSON the report stays the one document.
    let lacking = start().await;
    let output = cli(&["conformance", "-a", &lacking.url(), "-o", "json"]).await;
    code(&output, 1);
    assert_eq!(json(&output)["passed"], false);
    let output = cli(&["conformance", "-a", &lacking.url()]).await;
    code(&output, 1);
    assert!(stderr(&output).contains("A2ARS_CONFORMANCE_FAILED"), "{}", stderr(&output));
    lacking.shutdown().await.unwrap();
    let dead = format!("http://127.0.0.1:{}", dead_port());
    let output = cli(&["conformance", "-a", &dead]).await;
    code(&output, 3);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn card_get_extended_fetches_the_extended_card_through_declared_schemes_only() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = Server::builder()
        .agent_card(a2a_demo::demo_card())
        .extended_agent_card(a2a_demo::demo_extended_card())
        .executor(a2a_demo::DemoAgent)
        .spawn(listener)
        .await
        .unwrap();
    let url = server.url();
    let output = cli(&["card", "get", "-a", &url, "--extended"]).await;
    code(&output, 0);
    assert!(text_field(&stdout(&output), "Description").ends_with("(extended card)"), "{}", stdout(&output));
    // The demo card declares no security scheme: a credential is not sent for it.
    let output = cli(&["card", "get", "-a", &url, "--extended", "--bearer", "t", "-o", "json"]).await;
    code(&output, 2);
    assert!(json(&output)["error"]["message"].as_str().unwrap().contains("declares no security scheme"));
    // A card that declares a bearer scheme: the token goes with the request.
    let mut card = json(&cli(&["card", "get", "-a", &url, "-o", "json"]).await);
    card["securitySchemes"] = serde_json::json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}});
    let dir = tempdir("dir");
    let path = dir.join("bearer.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output =
        cli(&["card", "get", "-a", path.to_str().unwrap(), "--extended", "--bearer", "t", "-o", "json"])
            .await;
    code(&output, 0);
    assert!(json(&output)["description"].as_str().unwrap().ends_with("(extended card)"));
    // Not declared on the card: refused without a request; declared but not configured: the agent's error.
    card["capabilities"]["extendedAgentCard"] = Value::Bool(false);
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let output = cli(&["card", "get", "-a", path.to_str().unwrap(), "--extended", "-o", "json"]).await;
    code(&output, 1);
    assert_eq!(json(&output)["error"]["code"], "UnsupportedOperationError");
    let plain = start().await;
    let output = cli(&["card", "get", "-a", &plain.url(), "--extended", "-o", "json"]).await;
    code(&output, 1);
    assert_eq!(json(&output)["error"]["code"], "ExtendedAgentCardNotConfiguredError");
    plain.shutdown().await.unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn required_extensions_are_declared_with_extension() {
    let mut card = a2a_demo::demo_card();
    card.capabilities.get_or_insert_with(Default::default).extensions.push(a2a_proto::v1::AgentExtension {
        uri: "urn:a2a-cli:test".into(),
        required: true,
        ..Default::default()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server =
        Server::builder().agent_card(card).executor(a2a_demo::DemoAgent).spawn(listener).await.unwrap();
    let url = server.url();
    let output = cli(&["card", "get", "-a", &url]).await;
    assert_eq!(text_field(&stdout(&output), "Extension"), "urn:a2a-cli:test (required)");
    let output = cli(&["send", "-a", &url, "-o", "json", "hi"]).await;
    code(&output, 1);
    let error = &json(&output)["error"];
    assert_eq!(error["code"], "ExtensionSupportRequiredError");
    assert!(error["hint"].as_str().unwrap().contains("--extension urn:a2a-cli:test"), "{error}");
    let output = cli(&["send", "-a", &url, "--extension", "urn:a2a-cli:test", "hi"]).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "State"), "COMPLETED");
    let output =
        cli_in(&["task", "list", "-a", &url], None, &[("A2ACLI_EXTENSION", "urn:a2a-cli:test")], None).await;
    code(&output, 0);
    server.shutdown().await.unwrap();
}

/// Device-code token polls answered so far.
static DEVICE_POLLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// An OAuth 2 server: `/token` gives the token `good` to client `cli` with secret `s3cret`
/// (client credentials) or, for the device code `dc1`, after one `authorization_pending`;
/// `/device` starts the device grant. Returns its base URL.
async fn token_endpoint() -> String {
    use axum::response::IntoResponse;
    fn form(body: &str) -> std::collections::HashMap<String, String> {
        url::form_urlencoded::parse(body.as_bytes()).into_owned().collect()
    }
    fn json() -> [(axum::http::HeaderName, &'static str); 1] {
        [(axum::http::header::CONTENT_TYPE, "application/json")]
    }
    let token = move |body: String| async move {
        let form = form(&body);
        let field = |name: &str| form.get(name).map(String::as_str);
        let granted = (json(), r#"{"access_token": "good", "token_type": "Bearer", "expires_in": 3600}"#);
        match field("grant_type") {
            Some("client_credentials")
                if field("client_id") == Some("cli") && field("client_secret") == Some("s3cret") =>
            {
                granted.into_response()
            }
            Some("urn:ietf:params:oauth:grant-type:device_code") if field("device_code") == Some("dc1") => {
                if DEVICE_POLLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                    (axum::http::StatusCode::BAD_REQUEST, json(), r#"{"error": "authorization_pending"}"#)
                        .into_response()
                } else {
                    granted.into_response()
                }
            }
            _ => (axum::http::StatusCode::UNAUTHORIZED, json(), r#"{"error": "invalid_client"}"#)
                .into_response(),
        }
    };
    let device = move |body: String| async move {
        if form(&body).get("client_id").map(String::as_str) != Some("cli") {
            return (
                axum::http::StatusCode::UNAUTHORIZED,
                json(),
                r#"{"error": "invalid_client"}"#.to_owned(),
            )
                .into_response();
        }
        let grant = r#"{"device_code": "dc1", "user_code": "ABCD-1234", "verification_uri": "https://example.com/verify", "interval": 1, "expires_in": 60}"#;
        (json(), grant.to_owned()).into_response()
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let base = url.clone();
    let discovery = move || async move {
        let document = serde_json::json!({
            "issuer": base,
            "token_endpoint": format!("{base}/token"),
            "device_authorization_endpoint": format!("{base}/device"),
        });
        (json(), document.to_string()).into_response()
    };
    let app = axum::Router::new()
        .route("/token", axum::routing::post(token))
        .route("/device", axum::routing::post(device))
        .route("/.well-known/openid-configuration", axum::routing::get(discovery));
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_login_keeps_a_client_credentials_token_and_later_calls_use_it() {
    let (_url, served) = start_guarded().await;
    let token_url = format!("{}/token", token_endpoint().await);
    let dir = tempdir("dir");
    let mut card = served.clone();
    card["securitySchemes"] = serde_json::json!({
        "oauth": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {"tokenUrl": token_url, "scopes": {}}}}}
    });
    let path = dir.join("oauth.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let card_ref = path.to_str().unwrap();
    let config_home = dir.join("config");
    let env = [("XDG_CONFIG_HOME", config_home.to_str().unwrap())];

    // Before login: refused, missing credentials.
    let output = cli_in(&["task", "list", "-a", card_ref], None, &env, None).await;
    code(&output, 4);
    // A wrong secret: refused by the token endpoint, nothing kept.
    let output = cli_in(
        &["auth", "login", "-a", card_ref, "--client-id", "cli", "--client-secret", "nope"],
        None,
        &env,
        None,
    )
    .await;
    code(&output, 4);
    assert!(stderr(&output).contains("A2ACLI_ERR_AUTH_FAILED"), "{}", stderr(&output));
    // Login (the secret from the environment), then calls carry the token.
    let output = cli_in(
        &["auth", "login", "-a", card_ref, "--client-id", "cli"],
        None,
        &[env[0], ("A2ACLI_CLIENT_SECRET", "s3cret")],
        None,
    )
    .await;
    code(&output, 0);
    let text = stdout(&output);
    assert_eq!(text_field(&text, "Scheme"), "oauth");
    let file = std::path::PathBuf::from(text_field(&text, "Token File"));
    assert!(file.starts_with(&config_home), "{}", file.display());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600, "owner-only");
    }
    let output = cli_in(&["task", "list", "-a", card_ref], None, &env, None).await;
    code(&output, 0);
    let output = cli_in(&["send", "-a", card_ref, "hi"], None, &env, None).await;
    code(&output, 0);
    // An explicit --bearer wins over the kept token.
    let output = cli_in(&["task", "list", "-a", card_ref, "--bearer", "bad"], None, &env, None).await;
    code(&output, 4);
    // Logout forgets it.
    let output = cli_in(&["auth", "logout", "-a", card_ref], None, &env, None).await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Logged Out"), "yes");
    let output = cli_in(&["task", "list", "-a", card_ref], None, &env, None).await;
    code(&output, 4);
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_login_without_a_secret_is_the_device_code_flow() {
    let (_url, served) = start_guarded().await;
    let oauth = token_endpoint().await;
    let dir = tempdir("dir");
    let mut card = served.clone();
    card["securitySchemes"] = serde_json::json!({
        "oauth": {"oauth2SecurityScheme": {"flows": {"deviceCode": {
            "deviceAuthorizationUrl": format!("{oauth}/device"), "tokenUrl": format!("{oauth}/token"), "scopes": {}
        }}}}
    });
    let path = dir.join("device.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let card_ref = path.to_str().unwrap();
    let config_home = dir.join("config");
    let env = [("XDG_CONFIG_HOME", config_home.to_str().unwrap())];
    let output = cli_in(&["auth", "login", "-a", card_ref, "--client-id", "cli"], None, &env, None).await;
    code(&output, 0);
    let diagnostics = stderr(&output);
    assert!(
        diagnostics.contains("open https://example.com/verify and enter the code ABCD-1234"),
        "{diagnostics}"
    );
    assert!(DEVICE_POLLS.load(std::sync::atomic::Ordering::SeqCst) >= 2, "polled until authorized");
    let output = cli_in(&["task", "list", "-a", card_ref], None, &env, None).await;
    code(&output, 0);
    // The client-credentials flow is not declared on this card: asking for it is a usage error.
    let output = cli_in(
        &["auth", "login", "-a", card_ref, "--client-id", "cli", "--client-secret", "x"],
        None,
        &env,
        None,
    )
    .await;
    code(&output, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn auth_login_with_openid_connect_uses_its_discovered_token_endpoint() {
    let (_url, served) = start_guarded().await;
    let issuer = token_endpoint().await;
    let dir = tempdir("dir");
    let mut card = served.clone();
    card["securitySchemes"] = serde_json::json!({
        "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": format!("{issuer}/.well-known/openid-configuration")}}
    });
    let path = dir.join("oidc.json");
    std::fs::write(&path, serde_json::to_vec(&card).unwrap()).unwrap();
    let card_ref = path.to_str().unwrap();
    let config_home = dir.join("config");
    let env = [("XDG_CONFIG_HOME", config_home.to_str().unwrap())];
    let output = cli_in(
        &["auth", "login", "-a", card_ref, "--client-id", "cli", "--client-secret", "s3cret"],
        None,
        &env,
        None,
    )
    .await;
    code(&output, 0);
    assert_eq!(text_field(&stdout(&output), "Scheme"), "oidc");
    let output = cli_in(&["send", "-a", card_ref, "hi"], None, &env, None).await;
    code(&output, 0);
    // --extended accepts the token for an OIDC scheme too.
    let output =
        cli_in(&["card", "get", "-a", card_ref, "--extended", "--bearer", "good"], None, &env, None).await;
    assert_ne!(output.status.code(), Some(2), "a bearer token goes to an OIDC scheme: {}", stderr(&output));
}
