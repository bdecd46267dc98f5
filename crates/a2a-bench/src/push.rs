//! Workload: push notifications. The server under test sends webhooks to receivers in this
//! process, on loopback (it is started with `--push-allow 127.0.0.0/8`).
//!
//! Measured:
//! - **Throughput**: `tasks` tasks run `stream N` at once, each with a push config to a fast
//!   receiver (answers 200 at once); notifications per second from the first send to the last
//!   notification received (`tasks x (N + 3)`: the task, WORKING, N artifact chunks, COMPLETED).
//!   One task alone gives the rate of one config, whose notifications go one at a time.
//! - **A stalled webhook does not slow the agent**: how long a blocking SendMessage of `stream N`
//!   takes (the agent publishes every event and the server stores each, with its notifications,
//!   before it answers) with a config to a fast receiver, and with one to a receiver that accepts
//!   connections and never answers. The same without any config is reported too (what having a
//!   webhook costs). Medians of 3 interleaved rounds.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{SendMessageConfiguration, SendMessageRequest, TaskPushNotificationConfig, TaskState};
use anyhow::{bail, Context as _};
use serde::Serialize;
use tokio::time::Instant;

use crate::client::{reply_task, send_request, Binding, Endpoints};

/// Longest wait for the notifications of one measurement.
const PHASE_TIMEOUT: Duration = Duration::from_secs(120);

/// The outcome of the push workload.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct PushResult {
    /// The binding the tasks were sent over (notifications are HTTP POSTs whatever it is).
    #[serde(serialize_with = "crate::client::serialize_name")]
    pub(crate) binding: Binding,
    /// Artifact events per task.
    pub(crate) artifact_events: usize,
    /// Tasks run at once for the throughput figure.
    pub(crate) tasks: usize,
    /// Notifications per second, `tasks` tasks with a config each.
    pub(crate) notifications_per_s: f64,
    /// Notifications per second, one task (one config: its notifications go one at a time).
    pub(crate) one_config_notifications_per_s: f64,
    /// A blocking SendMessage of `stream N` without a push config.
    pub(crate) send_no_push_ms: f64,
    /// ... with a config to a fast receiver.
    pub(crate) send_fast_ms: f64,
    /// ... with a config to a receiver that never answers.
    pub(crate) send_stalled_ms: f64,
}

/// A receiver answering 200 to every POST, counting them.
pub(crate) struct Fast {
    /// `http://127.0.0.1:PORT/hook`.
    pub(crate) url: String,
    /// POSTs received so far.
    pub(crate) received: Arc<AtomicU64>,
}

/// Starts a [`Fast`] receiver on loopback, in the current runtime.
pub(crate) async fn fast_receiver() -> anyhow::Result<Fast> {
    let received = Arc::new(AtomicU64::new(0));
    let counter = Arc::clone(&received);
    let app = axum::Router::new().route(
        "/hook",
        axum::routing::post(move |_body: axum::body::Bytes| {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::Relaxed);
                axum::http::StatusCode::OK
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(Fast { url, received })
}

/// A receiver that accepts connections and never answers (it holds them open).
async fn stalled_receiver() -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/hook", listener.local_addr()?);
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    Ok(url)
}

/// A SendMessage of `text` with a push config to `url`, if any.
pub(crate) fn with_webhook(text: &str, url: Option<&str>) -> SendMessageRequest {
    let mut request = send_request(text);
    if let Some(url) = url {
        request.configuration = Some(SendMessageConfiguration {
            task_push_notification_config: Some(TaskPushNotificationConfig {
                url: url.to_owned(),
                token: "bench".into(),
                ..Default::default()
            }),
            ..Default::default()
        });
    }
    request
}

/// A blocking SendMessage of `stream n` with a webhook at `url`, in ms.
async fn send_ms(client: &dyn A2aService, n: usize, url: Option<&str>) -> anyhow::Result<f64> {
    let started = Instant::now();
    let reply = client.send_message(&CallContext::v1(), with_webhook(&format!("stream {n}"), url)).await?;
    let took = started.elapsed();
    let task = reply_task(reply).map_err(anyhow::Error::msg)?;
    if task.state() != TaskState::Completed {
        bail!("`stream {n}` left the task {:?}", task.state());
    }
    Ok(took.as_secs_f64() * 1e3)
}

/// Runs `tasks` tasks of `stream n` at once, each with a config to `fast`; notifications/s.
async fn throughput(
    client: &Arc<dyn A2aService>,
    fast: &Fast,
    tasks: usize,
    n: usize,
) -> anyhow::Result<f64> {
    let before = fast.received.load(Ordering::Relaxed);
    let expected = (tasks * (n + 3)) as u64;
    let started = Instant::now();
    let mut sends = Vec::with_capacity(tasks);
    for _ in 0..tasks {
        let (client, url) = (Arc::clone(client), fast.url.clone());
        sends.push(tokio::spawn(async move {
            client.send_message(&CallContext::v1(), with_webhook(&format!("stream {n}"), Some(&url))).await
        }));
    }
    for send in sends {
        let task = reply_task(send.await??).map_err(anyhow::Error::msg)?;
        if task.state() != TaskState::Completed {
            bail!("a `stream {n}` task ended {:?}", task.state());
        }
    }
    tokio::time::timeout(PHASE_TIMEOUT, async {
        while fast.received.load(Ordering::Relaxed) - before < expected {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    })
    .await
    .with_context(|| {
        format!(
            "{} of {expected} notifications within {PHASE_TIMEOUT:?}",
            fast.received.load(Ordering::Relaxed) - before
        )
    })?;
    Ok(expected as f64 / started.elapsed().as_secs_f64().max(1e-9))
}

/// Runs the workload over `binding`.
pub(crate) async fn run(
    endpoints: &Endpoints,
    binding: Binding,
    n: usize,
    tasks: usize,
) -> anyhow::Result<PushResult> {
    let client = endpoints.client(binding)?;
    let fast = fast_receiver().await?;
    let stalled = stalled_receiver().await?;
    // Warm-up (connections, the outbox's statements).
    throughput(&client, &fast, 1, n.min(10)).await?;
    let one_config = throughput(&client, &fast, 1, n).await?;
    let notifications_per_s = throughput(&client, &fast, tasks, n).await?;
    // Interleaved rounds, the median of each.
    let (mut none, mut fast_ms, mut stalled_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        none.push(send_ms(&*client, n, None).await?);
        fast_ms.push(send_ms(&*client, n, Some(&fast.url)).await?);
        stalled_ms.push(send_ms(&*client, n, Some(&stalled)).await?);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Ok(PushResult {
        binding,
        artifact_events: n,
        tasks,
        notifications_per_s,
        one_config_notifications_per_s: one_config,
        send_no_push_ms: median(none),
        send_fast_ms: median(fast_ms),
        send_stalled_ms: median(stalled_ms),
    })
}
