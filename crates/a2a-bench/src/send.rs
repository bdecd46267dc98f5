//! Workload: SendMessage to the echo skill (a completed task with one small artifact) at fixed
//! concurrencies, against the A2A server and against the ceiling, interleaved.

use std::sync::Arc;
use std::time::Duration;

use a2a_core::A2aService;
use serde::Serialize;

use crate::client::{self, Binding, Endpoints};
use crate::load::{self, LoadSpec};
use crate::process::{self, Placement};
use crate::stats::{LatencySummary, Samples};

/// The text of every echo request.
pub(crate) const ECHO_TEXT: &str = "hello from a2a-bench";

/// One side (A2A server or ceiling) of a comparison: what its timed rounds measured together.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Figures {
    /// Successful requests per second (mean over rounds).
    pub(crate) throughput_rps: f64,
    /// Latencies of all rounds' requests together.
    pub(crate) latency: LatencySummary,
    /// Failed requests.
    pub(crate) errors: usize,
    /// The first failure.
    pub(crate) first_error: Option<String>,
    /// Server CPU time per request (user + system), when the server is a local process.
    pub(crate) server_cpu_us_per_request: Option<f64>,
    /// Cores the server kept busy during the window (1.0 = one core saturated).
    pub(crate) server_cores_busy: Option<f64>,
}

/// SendMessage over one binding at one concurrency.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct SendResult {
    /// The binding.
    #[serde(serialize_with = "crate::client::serialize_name")]
    pub(crate) binding: Binding,
    /// Requests in flight.
    pub(crate) concurrency: usize,
    /// `pinned` (server on core 0, load generator on core 1) or `unpinned`.
    pub(crate) placement: &'static str,
    /// The A2A server.
    pub(crate) a2a: Figures,
    /// The bare axum / tonic ceiling.
    pub(crate) ceiling: Figures,
    /// With `--baseline-bin`: another build of the server, measured in the same rounds (A,
    /// baseline, ceiling), for before/after comparisons on a noisy machine.
    pub(crate) baseline: Option<Figures>,
    /// Baseline throughput / ceiling throughput.
    pub(crate) baseline_ratio: Option<f64>,
    /// A2A throughput / ceiling throughput, over all rounds.
    pub(crate) ratio: f64,
    /// Ceiling server CPU per request / A2A server CPU per request: the server's efficiency
    /// relative to the ceiling, whichever side (client or server) limits the throughput.
    pub(crate) cpu_ratio: Option<f64>,
    /// The ratio of each A-B round (their spread shows the noise).
    pub(crate) round_ratios: Vec<f64>,
}

/// One timed run against one server.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    pub(crate) throughput: f64,
    pub(crate) samples: Samples,
    pub(crate) errors: usize,
    pub(crate) first_error: Option<String>,
    pub(crate) cpu_per_request: Option<Duration>,
    pub(crate) cores_busy: Option<f64>,
}

/// Runs SendMessage load against `endpoints` (server process `pid`, if local) on the current
/// runtime.
pub(crate) async fn segment(
    endpoints: &Endpoints,
    binding: Binding,
    spec: LoadSpec,
    pid: Option<u32>,
) -> anyhow::Result<Segment> {
    let client: Arc<dyn A2aService> = endpoints.client(binding)?;
    let run = load::start(spec, move |_, _| {
        let client = Arc::clone(&client);
        async move { client::echo(&*client, ECHO_TEXT).await.map(drop) }
    });
    run.measuring().await;
    let cpu_before = pid.and_then(|pid| process::cpu_time(pid).ok());
    run.ended().await;
    let cpu_after = pid.and_then(|pid| process::cpu_time(pid).ok());
    let outcome = run.finish().await;
    let window_requests = outcome.throughput * spec.duration.as_secs_f64();
    let cpu = match (cpu_before, cpu_after) {
        (Some(before), Some(after)) => Some(after.saturating_sub(before)),
        _ => None,
    };
    let cpu_per_request = cpu.filter(|_| window_requests >= 1.0).map(|cpu| cpu.div_f64(window_requests));
    let cores_busy = cpu.map(|cpu| cpu.as_secs_f64() / spec.duration.as_secs_f64());
    Ok(Segment {
        throughput: outcome.throughput,
        samples: outcome.samples,
        errors: outcome.errors,
        first_error: outcome.first_error,
        cpu_per_request,
        cores_busy,
    })
}

/// Merges the rounds of one side.
pub(crate) fn figures(segments: &[Segment]) -> Figures {
    let mut samples = Samples::default();
    for segment in segments {
        samples.extend(&segment.samples);
    }
    let cpu: Vec<f64> =
        segments.iter().filter_map(|s| s.cpu_per_request.map(|d| d.as_secs_f64() * 1e6)).collect();
    let busy: Vec<f64> = segments.iter().filter_map(|s| s.cores_busy).collect();
    Figures {
        throughput_rps: segments.iter().map(|s| s.throughput).sum::<f64>() / segments.len().max(1) as f64,
        latency: samples.summary(),
        errors: segments.iter().map(|s| s.errors).sum(),
        first_error: segments.iter().find_map(|s| s.first_error.clone()),
        server_cpu_us_per_request: (!cpu.is_empty()).then(|| cpu.iter().sum::<f64>() / cpu.len() as f64),
        server_cores_busy: (!busy.is_empty()).then(|| busy.iter().sum::<f64>() / busy.len() as f64),
    }
}

/// Builds the comparison from interleaved rounds (`a[i]` ran just before `b[i]`).
pub(crate) fn compare(
    binding: Binding,
    concurrency: usize,
    placement: Placement,
    a: &[Segment],
    baseline: Option<&[Segment]>,
    b: &[Segment],
) -> SendResult {
    let a2a = figures(a);
    let ceiling = figures(b);
    let baseline = baseline.map(figures);
    let baseline_ratio = baseline
        .as_ref()
        .filter(|_| ceiling.throughput_rps > 0.0)
        .map(|base| base.throughput_rps / ceiling.throughput_rps);
    let round_ratios = a
        .iter()
        .zip(b)
        .map(|(a, b)| if b.throughput > 0.0 { a.throughput / b.throughput } else { 0.0 })
        .collect();
    let ratio = if ceiling.throughput_rps > 0.0 { a2a.throughput_rps / ceiling.throughput_rps } else { 0.0 };
    let cpu_ratio = match (a2a.server_cpu_us_per_request, ceiling.server_cpu_us_per_request) {
        (Some(a), Some(b)) if a > 0.0 => Some(b / a),
        _ => None,
    };
    SendResult {
        binding,
        concurrency,
        placement: placement_name(placement),
        a2a,
        ceiling,
        baseline,
        baseline_ratio,
        ratio,
        cpu_ratio,
        round_ratios,
    }
}

/// The report's name of a server placement.
pub(crate) fn placement_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Anywhere => "unpinned",
        Placement::Core(_) => "pinned",
    }
}
