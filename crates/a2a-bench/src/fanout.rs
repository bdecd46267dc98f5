//! Workload: SubscribeToTask fan-out. One long-running task (the demo's `wait`), S subscribers,
//! then a second message on the same task (`stream N`, which the demo agent runs as another
//! execution of that task: N artifact events, then COMPLETED) produces the events every subscriber
//! receives.
//!
//! Measured: events delivered per second summed over subscribers; the slowest subscriber's lag
//! behind the producer; whether the subscribers stall the producer (how long the agent takes to
//! publish, read from the timestamps of its WORKING and COMPLETED events, against the same
//! production watched by one subscriber); how often a subscriber fell behind the ring and was
//! resynchronised with a task snapshot; the server's RSS per open idle stream.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::stream_response::Payload;
use a2a_proto::v1::{SubscribeToTaskRequest, TaskState};
use anyhow::{bail, Context as _};
use futures::StreamExt;
use serde::Serialize;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::client::{reply_task, send_returning_immediately, send_to_task, Binding, Endpoints};

/// How many gRPC streams share one HTTP/2 connection (hyper's server allows 200 by default).
const GRPC_STREAMS_PER_CONNECTION: usize = 100;
/// Longest wait for every subscriber to be open or to finish.
const PHASE_TIMEOUT: Duration = Duration::from_secs(120);

/// The outcome of one fan-out.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FanoutResult {
    /// The binding of the subscribers.
    #[serde(serialize_with = "crate::client::serialize_name")]
    pub(crate) binding: Binding,
    /// Subscribers.
    pub(crate) subscribers: usize,
    /// Artifact events the producer emits (plus a WORKING and a COMPLETED status).
    pub(crate) artifact_events: usize,
    /// Time to open every subscription (each has received its first event, the task snapshot).
    pub(crate) open_ms: f64,
    /// Server RSS growth per open idle subscription, when the server is a local process.
    pub(crate) rss_per_stream_bytes: Option<f64>,
    /// Events delivered to all subscribers (snapshots included, the initial one excluded).
    pub(crate) delivered_events: usize,
    /// Snapshots sent to subscribers that fell behind the ring.
    pub(crate) resyncs: usize,
    /// Subscribers that saw the task COMPLETED.
    pub(crate) completed_subscribers: usize,
    /// Delivered events per second, summed over subscribers (from the producing request to the
    /// last subscriber's COMPLETED).
    pub(crate) delivered_events_per_s: f64,
    /// Events reflected per second: every subscriber that reached COMPLETED has seen the effect
    /// of all N+2 events, delivered or folded into a snapshot.
    pub(crate) reflected_events_per_s: f64,
    /// How long the agent took to publish its events with the subscribers: from sending the
    /// producing message to the timestamp of the COMPLETED status (the server's clock, the same
    /// machine's; millisecond resolution).
    pub(crate) production_ms: f64,
    /// The same with a single subscriber.
    pub(crate) production_alone_ms: f64,
    /// production_ms / production_alone_ms: how much the subscribers slow the agent down.
    pub(crate) producer_slowdown: f64,
    /// The producing client's blocking SendMessage, which returns once its own subscription (one
    /// more among the others) has seen COMPLETED.
    pub(crate) blocking_send_ms: f64,
    /// The slowest subscriber: from the COMPLETED status's timestamp to its arrival.
    pub(crate) slowest_lag_ms: f64,
}

#[derive(Debug, Default)]
struct SubscriberOutcome {
    delivered: usize,
    resyncs: usize,
    /// When COMPLETED arrived (wall clock, ms since the epoch, fractional) and as an instant.
    received_ms: Option<f64>,
    received_at: Option<Instant>,
}

/// What one production observed.
struct Observed {
    outcomes: Vec<SubscriberOutcome>,
    open: Duration,
    rss_delta: Option<u64>,
    started: Instant,
    blocking_send: Duration,
    /// When the producing message was sent (wall clock, ms).
    sent_ms: f64,
    /// The timestamp of the COMPLETED status (ms), from the producer's reply.
    completed_ms: Option<i64>,
}

impl Observed {
    /// From sending the producing message to the agent's COMPLETED, in ms.
    fn production_ms(&self) -> Option<f64> {
        self.completed_ms.map(|completed| completed as f64 - self.sent_ms)
    }
}

fn now_ms() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64() * 1e3)
}

/// A long-running task to fan out from.
async fn long_task(control: &dyn A2aService) -> anyhow::Result<String> {
    let reply = control.send_message(&CallContext::v1(), send_returning_immediately("wait 600")).await?;
    let task = reply_task(reply).map_err(anyhow::Error::msg)?;
    if task.state().is_terminal() {
        bail!("the `wait` task is already {:?}", task.state());
    }
    Ok(task.id)
}

/// Subscribes `subscribers` times to a new long task, then produces `stream n` on it.
async fn produce_to(
    clients: &[Arc<dyn A2aService>],
    control: &dyn A2aService,
    subscribers: usize,
    n: usize,
    rss: Option<&dyn Fn() -> anyhow::Result<u64>>,
) -> anyhow::Result<Observed> {
    let task_id = long_task(control).await?;
    let rss_before = rss.map(|read| read()).transpose()?;
    let opening = Instant::now();
    let (ready_tx, mut ready_rx) = mpsc::channel::<Result<(), String>>(subscribers.max(1));
    let mut handles = Vec::with_capacity(subscribers);
    for i in 0..subscribers {
        let client = Arc::clone(&clients[i % clients.len()]);
        let ready = ready_tx.clone();
        let request = SubscribeToTaskRequest { id: task_id.clone(), ..Default::default() };
        handles.push(tokio::spawn(async move {
            let mut stream = match client.subscribe_to_task(&CallContext::v1(), request).await {
                Ok(stream) => stream,
                Err(error) => {
                    let _ = ready.send(Err(error.to_string())).await;
                    return None;
                }
            };
            match stream.next().await {
                Some(Ok(_snapshot)) => {
                    let _ = ready.send(Ok(())).await;
                }
                other => {
                    let _ = ready.send(Err(format!("no initial snapshot: {other:?}"))).await;
                    return None;
                }
            }
            drop(ready);
            let mut outcome = SubscriberOutcome::default();
            while let Some(event) = stream.next().await {
                let Ok(event) = event else { break };
                outcome.delivered += 1;
                let state = match &event.payload {
                    Some(Payload::Task(task)) => {
                        outcome.resyncs += 1;
                        task.state()
                    }
                    Some(Payload::StatusUpdate(update)) => {
                        update.status.as_ref().map_or(TaskState::Unspecified, |s| s.state())
                    }
                    _ => TaskState::Unspecified,
                };
                if state == TaskState::Completed {
                    outcome.received_ms = Some(now_ms());
                    outcome.received_at = Some(Instant::now());
                }
            }
            Some(outcome)
        }));
    }
    drop(ready_tx);
    for _ in 0..subscribers {
        match tokio::time::timeout(PHASE_TIMEOUT, ready_rx.recv()).await {
            Ok(Some(Ok(()))) => {}
            Ok(Some(Err(error))) => bail!("a subscription failed: {error}"),
            Ok(None) => bail!("subscriptions ended before all were open"),
            Err(_) => bail!("timed out opening {subscribers} subscriptions"),
        }
    }
    let open = opening.elapsed();
    let rss_after = rss.map(|read| read()).transpose()?;

    let started = Instant::now();
    let sent_ms = now_ms();
    let reply =
        control.send_message(&CallContext::v1(), send_to_task(&format!("stream {n}"), &task_id)).await?;
    let blocking_send = started.elapsed();
    let task = reply_task(reply).map_err(anyhow::Error::msg)?;
    if task.state() != TaskState::Completed {
        bail!("the producing message left the task {:?}", task.state());
    }
    let completed_ms =
        task.status.as_ref().and_then(|s| s.timestamp.as_ref()).map(a2a_proto::Timestamp::as_millis);
    let mut outcomes = Vec::with_capacity(subscribers);
    for handle in handles {
        let outcome = tokio::time::timeout(PHASE_TIMEOUT, handle)
            .await
            .context("a subscriber did not finish")?
            .context("a subscriber panicked")?;
        outcomes.extend(outcome);
    }
    Ok(Observed {
        outcomes,
        open,
        rss_delta: rss_before.zip(rss_after).map(|(before, after)| after.saturating_sub(before)),
        started,
        blocking_send,
        sent_ms,
        completed_ms,
    })
}

/// Runs one fan-out; with the server's process id, its RSS per open stream is measured too.
pub(crate) async fn run(
    endpoints: &Endpoints,
    binding: Binding,
    subscribers: usize,
    n: usize,
    server_pid: Option<u32>,
) -> anyhow::Result<FanoutResult> {
    let control = endpoints.client(binding)?;
    let connections = match binding {
        Binding::Grpc => subscribers.div_ceil(GRPC_STREAMS_PER_CONNECTION),
        _ => 1,
    };
    let clients: Vec<Arc<dyn A2aService>> =
        (0..connections.max(1)).map(|_| endpoints.client(binding)).collect::<anyhow::Result<_>>()?;
    // The same production with one subscriber, for comparison (and to warm the server up).
    let alone = produce_to(&clients, &*control, 1, n, None).await?;
    let rss = server_pid.map(|pid| move || crate::process::rss_bytes(pid));
    let observed = produce_to(&clients, &*control, subscribers, n, rss.as_ref().map(|r| r as _)).await?;

    let outcomes = &observed.outcomes;
    let delivered: usize = outcomes.iter().map(|o| o.delivered).sum();
    let resyncs = outcomes.iter().map(|o| o.resyncs).sum();
    let completed = outcomes.iter().filter(|o| o.received_at.is_some()).count();
    let last = outcomes.iter().filter_map(|o| o.received_at).max().unwrap_or_else(Instant::now);
    let span = (last - observed.started).as_secs_f64().max(1e-9);
    let completed_ms = observed.completed_ms;
    let slowest = outcomes.iter().filter_map(|o| o.received_ms).fold(f64::NAN, f64::max);
    let production = observed.production_ms().unwrap_or(f64::NAN);
    let production_alone = alone.production_ms().unwrap_or(f64::NAN);
    Ok(FanoutResult {
        binding,
        subscribers,
        artifact_events: n,
        open_ms: observed.open.as_secs_f64() * 1e3,
        rss_per_stream_bytes: observed
            .rss_delta
            .filter(|_| subscribers > 0)
            .map(|d| d as f64 / subscribers as f64),
        delivered_events: delivered,
        resyncs,
        completed_subscribers: completed,
        delivered_events_per_s: delivered as f64 / span,
        reflected_events_per_s: (completed * (n + 2)) as f64 / span,
        production_ms: production,
        production_alone_ms: production_alone,
        // A production within the timestamps' millisecond resolution counts as 1 ms.
        producer_slowdown: production.max(1.0) / production_alone.max(1.0),
        blocking_send_ms: observed.blocking_send.as_secs_f64() * 1e3,
        slowest_lag_ms: completed_ms.map_or(f64::NAN, |c| slowest - c as f64),
    })
}
