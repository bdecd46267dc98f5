//! Workload: one SendStreamingMessage whose agent emits N artifact-update events (the demo's
//! `stream N`), delivered to one client; and whether the per-event cost grows with what the task
//! already holds (the rate of the last tenth of a long stream against its second tenth).

use std::time::Duration;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::stream_response::Payload;
use futures::StreamExt;
use serde::Serialize;
use tokio::time::Instant;

use crate::client::{send_request, Binding, Endpoints};
use crate::stats::median;

/// One stream as the client saw it.
#[derive(Debug, Clone)]
pub(crate) struct StreamRun {
    /// Events received.
    pub(crate) events: usize,
    /// From sending the request to the last event.
    pub(crate) total: Duration,
    /// When each artifact event arrived, from sending the request.
    pub(crate) artifact_times: Vec<Duration>,
}

impl StreamRun {
    /// Events per second over the whole stream.
    pub(crate) fn events_per_s(&self) -> f64 {
        self.events as f64 / self.total.as_secs_f64().max(1e-9)
    }
}

/// Streams `stream n` once and times every event.
pub(crate) async fn one_stream(client: &dyn A2aService, n: usize) -> anyhow::Result<StreamRun> {
    let started = Instant::now();
    let mut stream =
        client.send_streaming_message(&CallContext::v1(), send_request(&format!("stream {n}"))).await?;
    let mut events = 0;
    let mut artifact_times = Vec::with_capacity(n);
    while let Some(event) = stream.next().await {
        let event = event?;
        events += 1;
        if matches!(event.payload, Some(Payload::ArtifactUpdate(_))) {
            artifact_times.push(started.elapsed());
        }
    }
    let total = started.elapsed();
    anyhow::ensure!(artifact_times.len() == n, "expected {n} artifact events, got {}", artifact_times.len());
    Ok(StreamRun { events, total, artifact_times })
}

/// A warm-up stream, then `reps` timed ones; the median rate.
pub(crate) async fn segment(
    endpoints: &Endpoints,
    binding: Binding,
    n: usize,
    reps: usize,
) -> anyhow::Result<f64> {
    let client = endpoints.client(binding)?;
    one_stream(&*client, n).await?;
    let mut rates = Vec::with_capacity(reps);
    for _ in 0..reps.max(1) {
        rates.push(one_stream(&*client, n).await?.events_per_s());
    }
    Ok(median(&rates))
}

/// One stream of N events over one binding, against its ceiling.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StreamResult {
    /// The binding.
    #[serde(serialize_with = "crate::client::serialize_name")]
    pub(crate) binding: Binding,
    /// `pinned` or `unpinned`.
    pub(crate) placement: &'static str,
    /// Artifact events the agent emits (the stream has 3 more: task, working, completed).
    pub(crate) artifact_events: usize,
    /// Events per second delivered to the client (median of each round's runs, mean of rounds).
    pub(crate) a2a_events_per_s: f64,
    /// The same for the ceiling replaying the captured events.
    pub(crate) ceiling_events_per_s: f64,
    /// A2A / ceiling.
    pub(crate) ratio: f64,
    /// With `--baseline-bin`: the baseline server's events per second, measured in the same rounds.
    pub(crate) baseline_events_per_s: Option<f64>,
    /// Baseline / ceiling.
    pub(crate) baseline_ratio: Option<f64>,
    /// The ratio of each A-B round.
    pub(crate) round_ratios: Vec<f64>,
}

/// Whether the per-event cost depends on how much the task already holds.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StreamScaling {
    /// The binding.
    #[serde(serialize_with = "crate::client::serialize_name")]
    pub(crate) binding: Binding,
    /// Artifact events in the long stream.
    pub(crate) artifact_events: usize,
    /// Events per second over the second tenth of the artifact events.
    pub(crate) early_events_per_s: f64,
    /// Events per second over the last tenth.
    pub(crate) late_events_per_s: f64,
    /// late / early: 1.0 means the cost of an event does not grow with the task.
    pub(crate) late_over_early: f64,
}

/// Measures [`StreamScaling`] on one long stream (the median of `reps` runs).
pub(crate) async fn scaling(
    endpoints: &Endpoints,
    binding: Binding,
    n: usize,
    reps: usize,
) -> anyhow::Result<StreamScaling> {
    let client = endpoints.client(binding)?;
    let mut early = Vec::new();
    let mut late = Vec::new();
    for _ in 0..reps.max(1) {
        let run = one_stream(&*client, n).await?;
        let times = &run.artifact_times;
        let tenth = (times.len() / 10).max(1);
        let rate =
            |from: usize, to: usize| (to - from) as f64 / (times[to] - times[from]).as_secs_f64().max(1e-9);
        // The first tenth is skipped: there the agent runs ahead of the client into the buffers
        // (the backpressure window, socket and HTTP/2 windows), which flatters the rate.
        early.push(rate(tenth, (2 * tenth).min(times.len() - 1)));
        late.push(rate(times.len() - 1 - tenth, times.len() - 1));
    }
    let (early, late) = (median(&early), median(&late));
    Ok(StreamScaling {
        binding,
        artifact_events: n,
        early_events_per_s: early,
        late_events_per_s: late,
        late_over_early: if early > 0.0 { late / early } else { 0.0 },
    })
}
