//! The reference server binary on its default store (SQLite in `--data-dir`), killed with
//! SIGKILL and started again: every state a client was told about is still there, and the task
//! that was running is resolved by the restart policy (FAILED, with a status message saying so).

use std::path::Path;
use std::time::Duration;

use a2a_core::executor::RESTARTED;
use a2a_core::{A2aService, CallContext};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{
    send_message_response, stream_response, GetTaskRequest, ListTasksRequest, Message, SendMessageRequest,
    Task, TaskState,
};
use futures::StreamExt;

mod common;

/// The server binary on its data directory, and a JSON-RPC client of it.
struct Process {
    server: common::ServerProcess,
    client: JsonRpcClient,
}

async fn start(data_dir: &Path) -> Process {
    let server =
        common::ServerProcess::start([std::ffi::OsStr::new("--data-dir"), data_dir.as_os_str()]).await;
    let client = JsonRpcClient::new(server.jsonrpc_url());
    Process { server, client }
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
    server.server.kill_9().await;
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
