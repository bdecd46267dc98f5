//! The reference server binary on its default store (SQLite in `--data-dir`), killed with
//! SIGKILL and started again: every state a client was told about is still there, and the task
//! that was running is resolved by the restart policy (FAILED, with a status message saying so).

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use a2a_core::executor::RESTARTED;
use a2a_core::{A2aService, CallContext};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, stream_response, GetTaskRequest, ListTasksRequest, Message, SendMessageRequest,
    Task, TaskState,
};
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

const LISTENING: &str = "a2a-server listening on ";

/// The server binary as a child process on a loopback port of its own.
struct Process {
    child: Child,
    client: JsonRpcClient,
}

async fn start(data_dir: &Path) -> Process {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-server"))
        .args(["--listen", "127.0.0.1:0", "--log", "warn", "--data-dir"])
        .arg(data_dir)
        .env_remove("A2A_STORE")
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the a2a-server binary starts");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let url = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(url) = line.strip_prefix(LISTENING) {
                return url.trim().to_owned();
            }
        }
        panic!("the server exited before it listened")
    })
    .await
    .expect("the server listens within 30 s");
    // Keep draining stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    Process { child, client: JsonRpcClient::new(format!("{url}/")) }
}

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

async fn get(client: &JsonRpcClient, id: &str) -> Task {
    client.get_task(&ctx(), GetTaskRequest { id: id.into(), ..Default::default() }).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn acknowledged_state_survives_kill_9_and_the_running_task_fails_with_the_restart_policy() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start(dir.path()).await;

    let done = match server.client.send_message(&ctx(), send("hello")).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    };
    assert_eq!(done.state(), TaskState::Completed);

    // A long task: the client is told it is WORKING (with a status message), then the server dies.
    let mut stream = server.client.send_streaming_message(&ctx(), send("wait 120")).await.unwrap();
    let mut running = None;
    while let Some(event) = tokio::time::timeout(Duration::from_secs(20), stream.next()).await.unwrap() {
        if let Some(stream_response::Payload::StatusUpdate(update)) = event.unwrap().payload {
            if update.status.as_ref().is_some_and(|s| s.state() == TaskState::Working) {
                running = Some(update.task_id);
                break;
            }
        }
    }
    let running = running.expect("the client heard WORKING");
    server.child.kill().await.unwrap(); // SIGKILL: no shutdown code runs.
    drop(stream);

    let server = start(dir.path()).await;
    let after = get(&server.client, &done.id).await;
    assert_eq!(after, done, "the completed task is exactly what the client was told");

    let resolved = get(&server.client, &running).await;
    assert_eq!(resolved.state(), TaskState::Failed, "the interrupted task is resolved, not left WORKING");
    let said = resolved.status.as_ref().and_then(|s| s.message.as_ref()).map(Message::text);
    assert_eq!(said.as_deref(), Some(RESTARTED));
    assert!(
        resolved.history.iter().any(|m| m.text().starts_with("Working for up to 120")),
        "the WORKING status the client heard was committed before it heard it: {:?}",
        resolved.history
    );

    let listed = server.client.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
    assert_eq!(listed.total_size, 2);
}
