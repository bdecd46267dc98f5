//! A webhook receiver written by hand (HTTP/1.1, keep-alive), so it can also misbehave in ways a
//! framework would not let it: it answers from a script, then with its default answer (200
//! unless changed), and logs every request.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};

/// What the receiver does with one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Ok,
    Status(u16),
    /// 429 with `Retry-After: 1`.
    Throttle,
    /// Closes the connection without answering.
    Close,
    /// Answers nothing for 2 s.
    Stall,
}

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Seen {
    pub at: Instant,
    pub headers: Vec<(String, String)>,
    pub body: Value,
    pub answer: Answer,
}

/// A running receiver; it stops with the test's runtime.
#[derive(Clone)]
pub struct Receiver {
    /// `http://127.0.0.1:PORT/hook`.
    pub url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    script: Arc<Mutex<VecDeque<Answer>>>,
    default: Arc<Mutex<Answer>>,
}

impl Receiver {
    /// Starts a receiver answering `script`, then 200.
    pub async fn start(script: Vec<Answer>) -> Receiver {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let receiver = Receiver {
            url: format!("http://{}/hook", listener.local_addr().unwrap()),
            seen: Arc::default(),
            script: Arc::new(Mutex::new(script.into())),
            default: Arc::new(Mutex::new(Answer::Ok)),
        };
        let shared = receiver.clone();
        tokio::spawn(async move {
            loop {
                let (socket, _) = listener.accept().await.unwrap();
                tokio::spawn(shared.clone().serve(socket));
            }
        });
        receiver
    }

    /// What it answers once the script is spent.
    pub fn answer_from_now_on(&self, answer: Answer) {
        *self.default.lock().unwrap() = answer;
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    /// Waits (20 s at most) until `n` requests were answered 200; returns every request.
    pub async fn wait_delivered(&self, n: usize) -> Vec<Seen> {
        self.wait_until(|seen| seen.iter().filter(|s| s.answer == Answer::Ok).count() >= n)
            .await
            .unwrap_or_else(|| panic!("{n} deliveries within 20 s: {:?}", self.seen()))
    }

    /// Waits (20 s at most) until `done` holds of the requests so far.
    pub async fn wait_until(&self, done: impl Fn(&[Seen]) -> bool) -> Option<Vec<Seen>> {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let seen = self.seen();
                if done(&seen) {
                    return seen;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .ok()
    }

    async fn serve(self, socket: tokio::net::TcpStream) {
        let (read, mut write) = socket.into_split();
        let mut read = BufReader::new(read);
        loop {
            let mut length = 0;
            let mut headers = Vec::new();
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
                    headers.push((name.to_ascii_lowercase(), value.trim().to_owned()));
                }
            }
            let mut body = vec![0; length];
            if read.read_exact(&mut body).await.is_err() {
                return;
            }
            let answer = self.script.lock().unwrap().pop_front().unwrap_or(*self.default.lock().unwrap());
            let body: Value = serde_json::from_slice(&body).unwrap();
            self.seen.lock().unwrap().push(Seen { at: Instant::now(), headers, body, answer });
            let response = match answer {
                Answer::Ok => "HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n".to_owned(),
                Answer::Status(code) => format!("HTTP/1.1 {code} Oops\r\ncontent-length: 0\r\n\r\n"),
                Answer::Throttle => {
                    "HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: 0\r\n\r\n".to_owned()
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
    }
}

/// The event kind of a 1.0 notification and, for a status, its state: `task`,
/// `statusUpdate:TASK_STATE_WORKING`, ...
pub fn kind(body: &Value) -> String {
    let (key, value) = body.as_object().unwrap().iter().next().unwrap();
    match value["status"]["state"].as_str() {
        Some(state) if key == "statusUpdate" => format!("{key}:{state}"),
        _ => key.clone(),
    }
}

/// The notifications the demo agent's `stream 2` causes, in order.
pub const STREAM_2: [&str; 5] = [
    "task",
    "statusUpdate:TASK_STATE_WORKING",
    "artifactUpdate",
    "artifactUpdate",
    "statusUpdate:TASK_STATE_COMPLETED",
];
