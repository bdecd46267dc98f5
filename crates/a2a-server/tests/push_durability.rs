//! Push notifications survive the death of the server: the reference server binary on its
//! default store (SQLite in `--data-dir`) is killed with SIGKILL while its webhook is down and
//! notifications are pending; started again, it delivers every one of them, in order, once the
//! webhook is back.

use std::path::Path;

use a2a_core::{A2aService, CallContext};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{Message, SendMessageRequest, TaskPushNotificationConfig, TaskState};

mod common;

use common::webhook::{kind, Answer, Receiver, STREAM_2};

async fn start(data_dir: &Path) -> common::ServerProcess {
    common::ServerProcess::start([
        "--data-dir".as_ref(),
        data_dir.as_os_str(),
        "--push-allow".as_ref(),
        "127.0.0.0/8".as_ref(),
        "--push-max-attempts".as_ref(),
        "100".as_ref(),
    ])
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_pending_at_kill_9_are_delivered_after_the_restart_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let hook = Receiver::start(Vec::new()).await;
    hook.answer_from_now_on(Answer::Status(503));
    let mut server = start(dir.path()).await;
    let client = JsonRpcClient::new(server.jsonrpc_url());
    let request = SendMessageRequest {
        message: Some(Message::user_text("stream 2")),
        configuration: Some(a2a_proto::v1::SendMessageConfiguration {
            task_push_notification_config: Some(TaskPushNotificationConfig {
                url: hook.url.clone(),
                token: "secret-token".into(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let reply = client.send_message(&CallContext::v1(), request).await.unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = reply.payload else { panic!() };
    assert_eq!(task.state(), TaskState::Completed, "every event is stored: its notifications are too");
    // The webhook is down: the first notification is being retried, the others wait behind it.
    hook.wait_until(|seen| seen.len() >= 2).await.expect("the server keeps trying the first notification");
    assert!(hook.seen().iter().all(|s| kind(&s.body) == "task"), "nothing overtakes the first one");
    server.kill_9().await;
    let before = hook.seen().len();

    hook.answer_from_now_on(Answer::Ok);
    let _server = start(dir.path()).await;
    let log = hook.wait_delivered(STREAM_2.len()).await;
    let delivered: Vec<String> =
        log.iter().filter(|s| s.answer == Answer::Ok).map(|s| kind(&s.body)).collect();
    assert_eq!(delivered, STREAM_2, "every notification once, in order, after the restart");
    assert!(
        log[before..].iter().all(|s| s.answer == Answer::Ok),
        "after the restart, each sent once: {log:?}"
    );
    for seen in &log {
        assert_eq!(
            seen.body.as_object().unwrap().values().next().unwrap()["taskId"]
                .as_str()
                .or_else(|| seen.body["task"]["id"].as_str()),
            Some(task.id.as_str())
        );
        let token = seen.headers.iter().find(|(name, _)| name == "x-a2a-notification-token");
        assert_eq!(token.map(|(_, v)| v.as_str()), Some("secret-token"), "the config's token survives too");
    }
}
