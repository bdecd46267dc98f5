//! Push delivery against webhook receivers that misbehave, over real HTTP on loopback: a 500, a
//! connection closed mid-request, a 429 with `Retry-After`, a stall past the timeout, then
//! recovery. Every notification arrives, in order; the first one exactly as often as it was
//! attempted. A 404 is final: that notification is given up and the next ones still arrive.
//! A stalled webhook does not slow the agent, nor another webhook of the same task.

use std::time::Duration;

use a2a_core::push::{DestinationPolicy, RetryPolicy};
use a2a_core::{A2aService, CallContext};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{Message, SendMessageRequest, TaskPushNotificationConfig, TaskState};
use a2a_server::Server;

mod common;

use common::webhook::{kind, Answer, Receiver, Seen, STREAM_2};

/// A server whose push attempts time out after 300 ms and are retried quickly.
async fn server() -> a2a_server::RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .push_timeout(Duration::from_millis(300))
        .push_retry_policy(RetryPolicy {
            max_attempts: 8,
            max_age: Duration::from_secs(30),
            first_backoff: Duration::from_millis(50),
            max_backoff: Duration::from_secs(2),
        })
        .spawn(listener)
        .await
        .unwrap()
}

fn config(url: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig { url: url.into(), token: "t".into(), ..Default::default() }
}

/// Sends "stream 2" with a push config to `hook` (blocking: it returns once the task completed).
async fn send_stream_2(server: &a2a_server::RunningServer, hook: &Receiver) {
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    let request = SendMessageRequest {
        message: Some(Message::user_text("stream 2")),
        configuration: Some(a2a_proto::v1::SendMessageConfiguration {
            task_push_notification_config: Some(config(&hook.url)),
            ..Default::default()
        }),
        ..Default::default()
    };
    let reply = client.send_message(&CallContext::v1(), request).await.unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = reply.payload else { panic!() };
    assert_eq!(task.state(), TaskState::Completed);
}

/// Runs "stream 2" with a push config to `hook`, and waits until it answered `delivered`
/// requests with 200.
async fn run(hook: &Receiver, delivered: usize) -> Vec<Seen> {
    let server = server().await;
    send_stream_2(&server, hook).await;
    let log = hook.wait_delivered(delivered).await;
    server.shutdown().await.unwrap();
    log
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_notification_arrives_in_order_through_failures_stalls_and_throttling() {
    use Answer::*;
    let hook = Receiver::start(vec![Status(500), Close, Throttle, Stall]).await;
    let log = run(&hook, 5).await;
    let delivered: Vec<String> = log.iter().filter(|s| s.answer == Ok).map(|s| kind(&s.body)).collect();
    assert_eq!(delivered, STREAM_2, "every notification once, in order");
    let first: Vec<Answer> = log.iter().take_while(|s| kind(&s.body) == "task").map(|s| s.answer).collect();
    assert_eq!(first.len(), 5, "the first notification: 500, closed, 429, stalled, then delivered: {log:?}");
    assert_eq!(log.len(), 9, "nothing else was sent twice: {log:?}");
    // Retry-After: 1 was honoured (the backoff alone would have waited at most 200 ms).
    let throttled = log.iter().position(|s| s.answer == Throttle).unwrap();
    let waited = log[throttled + 1].at - log[throttled].at;
    assert!(waited >= Duration::from_millis(950), "waited {waited:?} after a 429 with Retry-After: 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_error_is_final_and_the_next_notifications_still_arrive() {
    let hook = Receiver::start(vec![Answer::Status(404)]).await;
    let log = run(&hook, 4).await;
    let kinds: Vec<String> = log.iter().map(|s| kind(&s.body)).collect();
    assert_eq!(kinds, STREAM_2, "the 404'd task notification is not retried: {log:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_webhook_slows_neither_the_agent_nor_another_webhook_of_the_task() {
    let stalled = Receiver::start(Vec::new()).await;
    stalled.answer_from_now_on(Answer::Stall);
    let healthy = Receiver::start(Vec::new()).await;
    let server = server().await;
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    // The task, with the stalled webhook; the healthy one is added while it runs.
    let request = SendMessageRequest {
        message: Some(Message::user_text("stream 2 300")),
        configuration: Some(a2a_proto::v1::SendMessageConfiguration {
            task_push_notification_config: Some(config(&stalled.url)),
            return_immediately: true,
            ..Default::default()
        }),
        ..Default::default()
    };
    let reply = client.send_message(&CallContext::v1(), request).await.unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = reply.payload else { panic!() };
    let mut second = config(&healthy.url);
    second.task_id.clone_from(&task.id);
    second.id = "healthy".into();
    client.create_task_push_notification_config(&CallContext::v1(), second).await.unwrap();
    // The agent finishes on its own schedule (3 x 300 ms), whatever the stalled webhook does.
    let done = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let get = a2a_proto::v1::GetTaskRequest { id: task.id.clone(), ..Default::default() };
            if client.get_task(&CallContext::v1(), get).await.unwrap().state() == TaskState::Completed {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(done.is_ok(), "the agent completed while its first webhook stalled");
    let log = healthy.wait_until(|seen| seen.iter().any(|s| kind(&s.body) == STREAM_2[4])).await;
    assert!(log.is_some(), "the healthy webhook got the task's last event: {:?}", healthy.seen());
    assert!(
        stalled.seen().iter().all(|s| kind(&s.body) == "task"),
        "the stalled webhook is still on its first notification: {:?}",
        stalled.seen()
    );
    server.shutdown().await.unwrap();
}
