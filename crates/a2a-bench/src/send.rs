//! Workload: SendMessage to the echo skill (a completed task) at fixed concurrencies, against the
//! A2A server and against the ceiling, interleaved, driven by wrk / h2load (see [`generator`]) or
//! by the built-in generator; with the server's and the generator's CPU time per request.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::A2aService;
use serde::Serialize;

use crate::client::{self, Binding, Endpoints};
use crate::generator::{self, Generator, Latency, ToolLoad, Tools};
use crate::load::{self, LoadSpec};
use crate::process::{self, Placement};
use crate::stats::{median, LatencySummary, Samples};
use crate::wire::WireRequest;

/// The text of every echo request.
pub(crate) const ECHO_TEXT: &str = "hello from a2a-bench";

/// One side (A2A server, baseline or ceiling) of a comparison: the medians of its timed rounds.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Figures {
    /// Successful requests per second (median over rounds).
    pub(crate) throughput_rps: f64,
    /// Server CPU time per request (user + system), when the server is a local process (median
    /// over rounds).
    pub(crate) server_cpu_us_per_request: Option<f64>,
    /// Cores the server kept busy during the window (1.0 = one core saturated; median).
    pub(crate) server_cores_busy: Option<f64>,
    /// Load generator CPU time per request (median).
    pub(crate) generator_cpu_us_per_request: Option<f64>,
    /// How busy the generator's threads were: its CPU time / (window x its threads); 1.0 = every
    /// generator thread saturated (median; the highest round is `generator_busy_max`).
    pub(crate) generator_busy: Option<f64>,
    /// The busiest round's `generator_busy`.
    pub(crate) generator_busy_max: Option<f64>,
    /// Latencies: exact over all rounds' requests (built-in, h2load), or the medians of wrk's
    /// per-round percentiles, the largest maximum and the sum of stalls (wrk).
    pub(crate) latency: LatencySummary,
    /// Failed requests.
    pub(crate) errors: usize,
    /// The first failure.
    pub(crate) first_error: Option<String>,
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
    /// The load generator of every figure of this row.
    pub(crate) generator: Generator,
    /// **The figure of record**: ceiling server CPU per request / A2A server CPU per request,
    /// from the medians of the rounds. It does not depend on who limits the throughput.
    pub(crate) cpu_ratio: Option<f64>,
    /// A2A throughput / ceiling throughput: the median of the rounds' ratios.
    pub(crate) ratio: f64,
    /// Whether the load generator, not the server, may have limited the ceiling's throughput
    /// (then `ratio` is too kind to the A2A server); `None`: it could not be checked.
    pub(crate) load_generator_bound: Option<bool>,
    /// Why (or why not): the generator's busiest round, and the built-in generator's ceiling
    /// throughput against the external tool's.
    pub(crate) generator_check: String,
    /// With the built-in generator, when the external tool is installed: the tool's throughput
    /// on the same ceiling, measured once after the rounds.
    pub(crate) ceiling_reference_rps: Option<f64>,
    /// The A2A server.
    pub(crate) a2a: Figures,
    /// The bare axum / tonic ceiling.
    pub(crate) ceiling: Figures,
    /// With `--baseline-bin` / `--baseline-store`: another build or store of the server,
    /// measured in the same rounds (A, baseline, ceiling), for before/after comparisons on a
    /// noisy machine.
    pub(crate) baseline: Option<Figures>,
    /// Baseline throughput / ceiling throughput (median of the rounds' ratios).
    pub(crate) baseline_ratio: Option<f64>,
    /// Ceiling CPU per request / baseline CPU per request.
    pub(crate) baseline_cpu_ratio: Option<f64>,
    /// The ratio of each A-B round (their spread shows the noise).
    pub(crate) round_ratios: Vec<f64>,
    /// With `--peer-url`: the peer server's comparison with its own ceilings (which replay its
    /// replies), measured in the same rounds.
    pub(crate) peer: Option<Box<SendResult>>,
}

/// One timed run against one server.
#[derive(Debug, Clone)]
pub(crate) struct Segment {
    pub(crate) generator: Generator,
    pub(crate) throughput: f64,
    pub(crate) latency: Latency,
    pub(crate) errors: usize,
    pub(crate) first_error: Option<String>,
    pub(crate) cpu_per_request: Option<Duration>,
    pub(crate) cores_busy: Option<f64>,
    pub(crate) generator_cpu_per_request: Option<Duration>,
    pub(crate) generator_busy: Option<f64>,
}

/// Runs SendMessage load against `endpoints` (server process `pid`, if local) with the built-in
/// generator, on the current runtime (whose worker threads are the generator's threads).
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
    let own_before = process::own_cpu_time().ok();
    run.ended().await;
    let cpu_after = pid.and_then(|pid| process::cpu_time(pid).ok());
    let own_after = process::own_cpu_time().ok();
    let outcome = run.finish().await;
    let window = spec.duration.as_secs_f64();
    let requests = outcome.throughput * window;
    let generator_cpu = own_before.zip(own_after).map(|(before, after)| after.saturating_sub(before));
    let threads = tokio::runtime::Handle::current().metrics().num_workers().max(1);
    Ok(Segment {
        generator: Generator::BuiltIn,
        throughput: outcome.throughput,
        latency: Latency::Samples(outcome.samples),
        errors: outcome.errors,
        first_error: outcome.first_error,
        cpu_per_request: per_request(delta(cpu_before, cpu_after), requests),
        cores_busy: delta(cpu_before, cpu_after).map(|cpu| cpu.as_secs_f64() / window),
        generator_cpu_per_request: per_request(generator_cpu, requests),
        generator_busy: generator_cpu.map(|cpu| cpu.as_secs_f64() / window / threads as f64),
    })
}

/// What an external-tool segment needs besides the load.
#[derive(Debug, Clone)]
pub(crate) struct ToolTarget {
    /// The request, for this server.
    pub(crate) request: WireRequest,
    /// For h2load: the DATA size of one good reply (from `generator::verify_grpc`).
    pub(crate) reply_data: Option<u64>,
}

impl ToolTarget {
    /// The echo request for `binding` of the server at `endpoints`; for gRPC, checked once with
    /// nghttp first.
    pub(crate) fn prepare(
        tools: &Tools,
        endpoints: &Endpoints,
        binding: Binding,
        workdir: &Path,
    ) -> anyhow::Result<Self> {
        let request = WireRequest::echo(endpoints, binding, ECHO_TEXT)?;
        let reply_data = match binding {
            Binding::Grpc => Some(generator::verify_grpc(tools, &request, workdir)?),
            Binding::JsonRpc | Binding::Rest => None,
        };
        Ok(ToolTarget { request, reply_data })
    }
}

/// What every reply of the echo workload contains (spec §4.1.3: the task's state).
pub(crate) const COMPLETED: &str = "TASK_STATE_COMPLETED";

/// Runs SendMessage load against one server with wrk or h2load: an unmeasured warm-up run (when
/// `spec.warmup` is at least a second), then the timed run, with the server's CPU time (process `pid`) read just
/// before and after it.
pub(crate) fn segment_external(
    tools: &Tools,
    target: &ToolTarget,
    spec: LoadSpec,
    placement: Placement,
    pid: Option<u32>,
    workdir: &Path,
) -> anyhow::Result<Segment> {
    let load = ToolLoad { concurrency: spec.concurrency, duration: spec.duration, placement };
    // wrk counts whole seconds: a shorter warm-up (the quick run's) is skipped for both tools.
    if spec.warmup >= Duration::from_secs(1) {
        let warmup = ToolLoad { duration: spec.warmup, ..load };
        generator::warm_up(tools, &target.request, target.reply_data, COMPLETED, warmup, workdir)?;
    }
    let cpu_before = pid.and_then(|pid| process::cpu_time(pid).ok());
    let started = std::time::Instant::now();
    let run = match target.reply_data {
        Some(reply_data) => generator::run_h2load(tools, &target.request, reply_data, load, workdir)?,
        None => generator::run_wrk(tools, &target.request, COMPLETED, load, workdir)?,
    };
    let wall = started.elapsed().as_secs_f64();
    let cpu_after = pid.and_then(|pid| process::cpu_time(pid).ok());
    let window = run.window.as_secs_f64().max(1e-9);
    let server_cpu = delta(cpu_before, cpu_after);
    // The server's CPU is read around the whole process (its connections' setup and close
    // included), so it is divided by every request the process made.
    let requests = (run.ok + run.failed) as f64;
    Ok(Segment {
        generator: Generator::external_for(target.request.binding),
        throughput: run.ok as f64 / window,
        latency: run.latency,
        errors: usize::try_from(run.failed).unwrap_or(usize::MAX),
        first_error: run.first_failure,
        cpu_per_request: per_request(server_cpu, requests),
        cores_busy: server_cpu.map(|cpu| cpu.as_secs_f64() / wall.max(1e-9)),
        generator_cpu_per_request: per_request(run.cpu, requests),
        generator_busy: run.cpu.map(|cpu| cpu.as_secs_f64() / window / run.threads.max(1) as f64),
    })
}

fn delta(before: Option<Duration>, after: Option<Duration>) -> Option<Duration> {
    before.zip(after).map(|(before, after)| after.saturating_sub(before))
}

fn per_request(cpu: Option<Duration>, requests: f64) -> Option<Duration> {
    cpu.filter(|_| requests >= 1.0).map(|cpu| cpu.div_f64(requests))
}

/// Merges the rounds of one side: medians of the rounds.
pub(crate) fn figures(segments: &[Segment]) -> Figures {
    let us = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1e6);
    let median_of = |values: Vec<f64>| (!values.is_empty()).then(|| median(&values));
    let gen_busy: Vec<f64> = segments.iter().filter_map(|s| s.generator_busy).collect();
    Figures {
        throughput_rps: median(&segments.iter().map(|s| s.throughput).collect::<Vec<_>>()),
        server_cpu_us_per_request: median_of(segments.iter().filter_map(|s| us(s.cpu_per_request)).collect()),
        server_cores_busy: median_of(segments.iter().filter_map(|s| s.cores_busy).collect()),
        generator_cpu_us_per_request: median_of(
            segments.iter().filter_map(|s| us(s.generator_cpu_per_request)).collect(),
        ),
        generator_busy_max: gen_busy.iter().copied().reduce(f64::max),
        generator_busy: median_of(gen_busy),
        latency: merged_latency(segments),
        errors: segments.iter().map(|s| s.errors).sum(),
        first_error: segments.iter().find_map(|s| s.first_error.clone()),
    }
}

/// Exact percentiles over every request when each round kept them; else the medians of the
/// rounds' percentiles, the largest maximum and the sum of stalls.
fn merged_latency(segments: &[Segment]) -> LatencySummary {
    let mut samples = Samples::default();
    let mut summaries = Vec::new();
    for segment in segments {
        match &segment.latency {
            Latency::Samples(s) => samples.extend(s),
            Latency::Summary(summary) => summaries.push(*summary),
        }
    }
    if summaries.is_empty() {
        return samples.summary();
    }
    if samples.len() > 0 {
        summaries.push(samples.summary());
    }
    let pick = |f: fn(&LatencySummary) -> f64| median(&summaries.iter().map(f).collect::<Vec<_>>());
    LatencySummary {
        samples: summaries.iter().map(|s| s.samples).sum(),
        p50_us: pick(|s| s.p50_us),
        p99_us: pick(|s| s.p99_us),
        max_us: summaries.iter().map(|s| s.max_us).fold(0.0, f64::max),
        over_50ms: summaries.iter().map(|s| s.over_50ms).sum(),
    }
}

/// At or above this share of its threads' time, the generator is the bottleneck (`docs/benchmarks.md`).
pub(crate) const GENERATOR_BUSY_LIMIT: f64 = 0.9;
/// The built-in generator must reach this share of the external tool's throughput on the ceiling.
pub(crate) const REFERENCE_SHARE: f64 = 0.9;

/// Builds the comparison from interleaved rounds (`a[i]`, then `baseline[i]`, then `b[i]`).
/// `reference` is the external tool's throughput on the same ceiling when the rounds used the
/// built-in generator.
pub(crate) fn compare(
    binding: Binding,
    concurrency: usize,
    placement: Placement,
    a: &[Segment],
    baseline: Option<&[Segment]>,
    b: &[Segment],
    reference: Option<f64>,
) -> SendResult {
    let generator = b.first().map_or(Generator::BuiltIn, |s| s.generator);
    let a2a = figures(a);
    let ceiling = figures(b);
    let round_ratio =
        |x: &Segment, y: &Segment| if y.throughput > 0.0 { x.throughput / y.throughput } else { 0.0 };
    let round_ratios: Vec<f64> = a.iter().zip(b).map(|(a, b)| round_ratio(a, b)).collect();
    let baseline_ratio =
        baseline.map(|base| median(&base.iter().zip(b).map(|(x, y)| round_ratio(x, y)).collect::<Vec<_>>()));
    let baseline = baseline.map(figures);
    let cpu_ratio_of =
        |side: &Figures| match (side.server_cpu_us_per_request, ceiling.server_cpu_us_per_request) {
            (Some(side), Some(ceiling)) if side > 0.0 => Some(ceiling / side),
            _ => None,
        };
    let (load_generator_bound, generator_check) = generator_verdict(generator, &a2a, &ceiling, reference);
    SendResult {
        binding,
        concurrency,
        placement: placement_name(placement),
        generator,
        cpu_ratio: cpu_ratio_of(&a2a),
        ratio: median(&round_ratios),
        load_generator_bound,
        generator_check,
        ceiling_reference_rps: reference,
        baseline_cpu_ratio: baseline.as_ref().and_then(cpu_ratio_of),
        baseline_ratio,
        a2a,
        ceiling,
        baseline,
        round_ratios,
        peer: None,
    }
}

/// Whether the generator limited the figures: its threads were >= 90% busy in some round (on
/// either side), or (built-in) the ceiling reached < 0.9 of what the external tool reaches on it.
fn generator_verdict(
    generator: Generator,
    a2a: &Figures,
    ceiling: &Figures,
    reference: Option<f64>,
) -> (Option<bool>, String) {
    let busiest = [a2a.generator_busy_max, ceiling.generator_busy_max].into_iter().flatten().reduce(f64::max);
    let mut reasons = Vec::new();
    let mut bound = match busiest {
        Some(busy) if busy >= GENERATOR_BUSY_LIMIT => {
            reasons.push(format!(
                "generator {:.0}% busy (limit {:.0}%)",
                busy * 100.0,
                GENERATOR_BUSY_LIMIT * 100.0
            ));
            Some(true)
        }
        Some(busy) => {
            reasons.push(format!("generator at most {:.0}% busy", busy * 100.0));
            Some(false)
        }
        None => {
            reasons.push("generator CPU unknown".to_owned());
            None
        }
    };
    if generator == Generator::BuiltIn {
        match reference {
            Some(reference) if reference > 0.0 => {
                let share = ceiling.throughput_rps / reference;
                reasons.push(format!("ceiling at {share:.2} of the external tool's {reference:.0}/s"));
                if share < REFERENCE_SHARE {
                    bound = Some(true);
                }
            }
            _ => {
                reasons.push(
                    "built-in generator, no external tool to compare with: may be load-generator-bound"
                        .to_owned(),
                );
                if bound != Some(true) {
                    bound = None;
                }
            }
        }
    }
    (bound, reasons.join("; "))
}

/// The report's name of a server placement.
pub(crate) fn placement_name(placement: Placement) -> &'static str {
    match placement {
        Placement::Anywhere => "unpinned",
        Placement::Core(_) => "pinned",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn segment(generator: Generator, throughput: f64, busy: f64, latency: Latency) -> Segment {
        Segment {
            generator,
            throughput,
            latency,
            errors: 0,
            first_error: None,
            cpu_per_request: Some(Duration::from_micros(10)),
            cores_busy: Some(1.0),
            generator_cpu_per_request: Some(Duration::from_micros(3)),
            generator_busy: Some(busy),
        }
    }

    fn summary(p50: f64, max: f64, over: usize) -> Latency {
        Latency::Summary(LatencySummary {
            samples: 100,
            p50_us: p50,
            p99_us: p50 * 2.0,
            max_us: max,
            over_50ms: over,
        })
    }

    #[test]
    fn a_generator_at_90_percent_in_any_round_marks_the_row_bound() {
        let a = [segment(Generator::Wrk, 20_000.0, 0.3, summary(100.0, 900.0, 0))];
        let quiet = [segment(Generator::Wrk, 80_000.0, 0.6, summary(50.0, 500.0, 0))];
        let result = compare(Binding::JsonRpc, 64, Placement::Core(0), &a, None, &quiet, None);
        assert_eq!(result.load_generator_bound, Some(false));
        assert!((result.ratio - 0.25).abs() < 1e-9);
        let busy = [
            segment(Generator::Wrk, 80_000.0, 0.6, summary(50.0, 500.0, 0)),
            segment(Generator::Wrk, 80_000.0, 0.93, summary(50.0, 500.0, 0)),
        ];
        let a2 = [a[0].clone(), a[0].clone()];
        let result = compare(Binding::JsonRpc, 64, Placement::Core(0), &a2, None, &busy, None);
        assert_eq!(result.load_generator_bound, Some(true), "{}", result.generator_check);
        assert_eq!(result.ceiling.generator_busy_max, Some(0.93));
    }

    #[test]
    fn the_built_in_generator_is_checked_against_the_external_tools_ceiling_throughput() {
        let a = [segment(Generator::BuiltIn, 30_000.0, 0.5, summary(100.0, 900.0, 0))];
        let b = [segment(Generator::BuiltIn, 55_000.0, 0.8, summary(50.0, 500.0, 0))];
        let bound = compare(Binding::Rest, 64, Placement::Core(0), &a, None, &b, Some(80_000.0));
        assert_eq!(bound.load_generator_bound, Some(true), "{}", bound.generator_check);
        let fine = compare(Binding::Rest, 64, Placement::Core(0), &a, None, &b, Some(58_000.0));
        assert_eq!(fine.load_generator_bound, Some(false), "{}", fine.generator_check);
        let unknown = compare(Binding::Rest, 64, Placement::Core(0), &a, None, &b, None);
        assert_eq!(unknown.load_generator_bound, None);
        assert!(unknown.generator_check.contains("may be load-generator-bound"));
    }

    #[test]
    fn figures_are_medians_of_rounds_and_cpu_r_is_ceiling_cpu_over_ours() {
        let mut a: Vec<Segment> = [10_000.0, 30_000.0, 20_000.0]
            .map(|t| segment(Generator::Wrk, t, 0.2, summary(t / 100.0, t / 10.0, 1)))
            .to_vec();
        a[0].cpu_per_request = Some(Duration::from_micros(50));
        a[1].cpu_per_request = Some(Duration::from_micros(40));
        a[2].cpu_per_request = Some(Duration::from_micros(45));
        let b: Vec<Segment> =
            [40_000.0; 3].map(|t| segment(Generator::Wrk, t, 0.5, summary(10.0, 100.0, 0))).to_vec();
        let result = compare(Binding::Rest, 16, Placement::Core(0), &a, None, &b, None);
        assert_eq!(result.a2a.throughput_rps, 20_000.0);
        assert_eq!(result.round_ratios, [0.25, 0.75, 0.5]);
        assert_eq!(result.ratio, 0.5);
        assert_eq!(result.a2a.server_cpu_us_per_request, Some(45.0));
        assert!((result.cpu_ratio.unwrap() - 10.0 / 45.0).abs() < 1e-9);
        // wrk's per-round summaries: median percentiles, the largest max, every stall.
        assert_eq!(result.a2a.latency.p50_us, 200.0);
        assert_eq!(result.a2a.latency.max_us, 3000.0);
        assert_eq!(result.a2a.latency.over_50ms, 3);
    }
}
