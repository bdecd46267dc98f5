//! Push delivery against webhook receivers that misbehave, over real HTTP on loopback: a 500, a
//! connection closed mid-request, a 429 with `Retry-After`, a stall past the timeout, then
//! recovery. Every notification arrives, in order; the first one exactly as often as it was
//! attempted. A 404 is final: that notification is given up and the next ones still arrive.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_core::push::{DestinationPolicy, RetryPolicy};
use a2a_core::{A2aService, CallContext};
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{Message, SendMessageRequest, TaskPushNotificationConfig, TaskState};
use a2a_server::Server;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// What the receiver does with one request.
#[derive(Debug, Clone, Copy)]
enum Answer {
    Ok,
    Status(u16),
    /// 429 with `Retry-After: 1`.
    Throttle,
    /// Closes the connection without answering.
    Close,
    /// Answers nothing for 2 s (the server's push timeout is 300 ms).
    Stall,
}

/// A webhook receiver written by hand (HTTP/1.1, keep-alive), so it can also misbehave in ways a
/// framework would not let it: its answers follow `script`, then 200.
struct Receiver {
    url: String,
    /// Every request: when it came, its body, how it was answered.
    seen: Arc<Mutex<Vec<(Instant, Value, Answer)>>>,
}

async fn receiver(script: Vec<Answer>) -> Receiver {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<(Instant, Value, Answer)>>> = Arc::default();
    let script = Arc::new(Mutex::new(std::collections::VecDeque::from(script)));
    let log = seen.clone();
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            let (log, script) = (log.clone(), script.clone());
            tokio::spawn(async move {
                let (read, mut write) = socket.into_split();
                let mut read = BufReader::new(read);
                loop {
                    let mut length = 0;
                    loop {
                        let mut line = String::new();
                        if read.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        if line == "\r\n" {
                            break;
                        }
                        if let Some((name, value)) = line.split_once(':') {
                            if name.eq_ignore_ascii_case("content-length") {
                                length = value.trim().parse().unwrap();
                            }
                        }
                    }
                    let mut body = vec![0; length];
                    read.read_exact(&mut body).await.unwrap();
                    let answer = script.lock().unwrap().pop_front().unwrap_or(Answer::Ok);
                    let body: Value = serde_json::from_slice(&body).unwrap();
                    log.lock().unwrap().push((Instant::now(), body, answer));
                    let response = match answer {
                        Answer::Ok => "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_owned(),
                        Answer::Status(code) => format!("HTTP/1.1 {code} Oops\r\ncontent-length: 0\r\n\r\n"),
                        Answer::Throttle => {
                            "HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: 0\r\n\r\n"
                                .to_owned()
                        }
                        Answer::Close => return,
                        Answer::Stall => {
                            tokio::time::sleep(Duration::from_secs(2)).await;
                            return;
                        }
                    };
                    if write.write_all(response.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Receiver { url, seen }
}

/// A server whose push attempts time out after 300 ms and are retried quickly.
async fn server() -> a2a_server::RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(a2a_server::demo::demo_card())
        .executor(a2a_server::demo::DemoAgent)
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

/// The event kind and, for a status, its state: `task`, `statusUpdate:TASK_STATE_WORKING`, ...
fn kind(body: &Value) -> String {
    let (key, value) = body.as_object().unwrap().iter().next().unwrap();
    match value["status"]["state"].as_str() {
        Some(state) if key == "statusUpdate" => format!("{key}:{state}"),
        _ => key.clone(),
    }
}

/// Sends "stream 2" with a push config to `url`, and waits until the webhook's log holds `n`
/// answered-with-200 requests.
async fn run(
    url: &str,
    seen: &Mutex<Vec<(Instant, Value, Answer)>>,
    delivered: usize,
) -> Vec<(Instant, Value, Answer)> {
    let server = server().await;
    let client = JsonRpcClient::new(format!("{}/", server.url()));
    let request = SendMessageRequest {
        message: Some(Message::user_text("stream 2")),
        configuration: Some(a2a_proto::v1::SendMessageConfiguration {
            task_push_notification_config: Some(TaskPushNotificationConfig {
                url: url.into(),
                token: "t".into(),
                ..Default::default()
            }),
            ..Default::default()
        }),
        ..Default::default()
    };
    let reply = client.send_message(&CallContext::v1(), request).await.unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = reply.payload else { panic!() };
    assert_eq!(task.state(), TaskState::Completed);
    let log = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let log = seen.lock().unwrap().clone();
            if log.iter().filter(|(_, _, a)| matches!(a, Answer::Ok)).count() >= delivered {
                return log;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .unwrap_or_else(|_| panic!("{delivered} deliveries within 20 s: {:?}", seen.lock().unwrap()));
    server.shutdown().await.unwrap();
    log
}

const EVENTS: [&str; 5] = [
    "task",
    "statusUpdate:TASK_STATE_WORKING",
    "artifactUpdate",
    "artifactUpdate",
    "statusUpdate:TASK_STATE_COMPLETED",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_notification_arrives_in_order_through_failures_stalls_and_throttling() {
    use Answer::*;
    let hook = receiver(vec![Status(500), Close, Throttle, Stall]).await;
    let log = run(&hook.url, &hook.seen, 5).await;
    let delivered: Vec<String> =
        log.iter().filter(|(_, _, a)| matches!(a, Ok)).map(|(_, body, _)| kind(body)).collect();
    assert_eq!(delivered, EVENTS, "every notification once, in order");
    let first: Vec<&Answer> =
        log.iter().take_while(|(_, body, _)| kind(body) == "task").map(|(_, _, a)| a).collect();
    assert_eq!(first.len(), 5, "the first notification: 500, closed, 429, stalled, then delivered: {log:?}");
    assert_eq!(log.len(), 9, "nothing else was sent twice: {log:?}");
    // Retry-After: 1 was honoured (the backoff alone would have waited at most 200 ms).
    let throttled = log.iter().position(|(_, _, a)| matches!(a, Throttle)).unwrap();
    let waited = log[throttled + 1].0 - log[throttled].0;
    assert!(waited >= Duration::from_millis(950), "waited {waited:?} after a 429 with Retry-After: 1");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_error_is_final_and_the_next_notifications_still_arrive() {
    let hook = receiver(vec![Answer::Status(404)]).await;
    let log = run(&hook.url, &hook.seen, 4).await;
    let kinds: Vec<String> = log.iter().map(|(_, body, _)| kind(body)).collect();
    assert_eq!(kinds, EVENTS, "the 404'd task notification is not retried: {log:?}");
}
