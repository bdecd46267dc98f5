//! `a2a-bench soak`: a long run of mixed load that judges leaks, not speed.
//!
//! Starts the reference server (SQLite store in a fresh data directory, `--push-allow
//! 127.0.0.0/8`, `--metrics-listen`), creates `--prefill` echo tasks (so the store's bounded page
//! caches are full before anything is judged), then for `--minutes` starts `--rate` operations per second,
//! cycling through the kinds of [`Op`] and the three bindings (every kind meets every binding).
//! Every few seconds it samples the server's resident memory and open file descriptors (`/proc`)
//! and, from its metrics, the active executions, open streams and live task runtimes. After the
//! load it waits for the push notifications and for the server to settle, then judges
//! ([`judge`]):
//!
//! - **flat after warm-up**: the samples after the warm-up (the first fifth of the run, at most a
//!   minute) are cut in thirds; the last third's maximum must stay within 10 % of the first
//!   third's (RSS), within +5 (file descriptors), within twice the first third's maximum + 5
//!   (executions, streams, task runtimes: they move with the load at each instant);
//! - **settles**: once the load is over, no execution, stream or task runtime is left;
//! - **zero unexpected errors**: every operation's every check passed (none is expected to fail);
//! - **every push notification delivered**: as many received as the pushed tasks' events, the
//!   server counts them delivered, and none given up;
//! - **the server lives** to the end.
//!
//! Prints a table and writes a JSON report; the run fails when a judgement does.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::stream_response::Payload;
use a2a_proto::v1::{CancelTaskRequest, GetTaskRequest, StreamResponse, SubscribeToTaskRequest, TaskState};
use anyhow::{bail, Context as _};
use futures::StreamExt;
use serde::Serialize;
use tokio::time::Instant;

use crate::client::{self, Binding, Endpoints, ReportName as _};
use crate::process::{self, Placement, ServerProcess};
use crate::push;

/// The longest one operation may take before it counts as hung.
const OP_TIMEOUT: Duration = Duration::from_secs(60);
/// Operations in flight at most: past it, the rate drops instead of the server drowning.
const MAX_IN_FLIGHT: usize = 64;
/// How long the server may take to deliver the last notifications and settle after the load.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(60);
/// Artifact chunks of the streamed tasks.
const STREAM_CHUNKS: usize = 10;
/// Artifact chunks of the tasks with a webhook: each sends `PUSH_CHUNKS + 3` notifications (the
/// task, `WORKING`, the chunks, `COMPLETED`).
const PUSH_CHUNKS: usize = 5;

/// What `a2a-bench soak` was asked for.
#[derive(Debug)]
pub(crate) struct SoakOptions {
    /// The reference server binary.
    pub(crate) server_bin: PathBuf,
    /// The load's length (fractions allowed: 0.25 is a 15-second smoke run).
    pub(crate) minutes: f64,
    /// Operations started per second.
    pub(crate) rate: f64,
    /// Time between samples (default: 5 s, fewer for short runs, so a run has at least 15).
    pub(crate) sample_every: Option<Duration>,
    /// The JSON report.
    pub(crate) out: PathBuf,
    /// Echo tasks created before the load (not sampled): they fill the store's page caches, which
    /// would otherwise grow through the run (`docs/operations.md`, "Soak").
    pub(crate) prefill: usize,
}

/// The kinds of operation of the mix, in the order the load cycles through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
enum Op {
    /// A blocking SendMessage of the echo skill: a completed task.
    Send,
    /// A SendStreamingMessage of `stream N 5`, read to its end: N chunks, then `COMPLETED`.
    Stream,
    /// A blocking SendMessage of `stream N` with a push config to the local receiver.
    Push,
    /// A `wait` task sent with `returnImmediately`, a SubscribeToTask stream on it, a
    /// CancelTask: the stream ends with `CANCELED`.
    Subscribe,
    /// An echo task read back with GetTask.
    Get,
    /// A `wait` task canceled: `CANCELED`.
    Cancel,
    /// A SendStreamingMessage whose client goes away after two events (the task completes).
    DropStream,
    /// An echo task of the pre-fill, before the load.
    Prefill,
}

const MIX: [Op; 8] =
    [Op::Send, Op::Stream, Op::Push, Op::Subscribe, Op::Send, Op::Get, Op::Cancel, Op::DropStream];

impl Op {
    fn name(self) -> &'static str {
        match self {
            Op::Send => "send",
            Op::Stream => "stream",
            Op::Push => "push",
            Op::Subscribe => "subscribe+cancel",
            Op::Get => "send+get",
            Op::Cancel => "cancel",
            Op::DropStream => "dropped stream",
            Op::Prefill => "prefill (echo)",
        }
    }
}

/// One sample of the server.
#[derive(Debug, Clone, Serialize)]
struct Sample {
    /// Seconds since the load started.
    at_s: f64,
    rss_bytes: u64,
    open_fds: usize,
    /// `a2a_active_executions` (every kind).
    active_executions: f64,
    /// `a2a_open_streams` (every binding and operation).
    open_streams: f64,
    /// `a2a_live_tasks`.
    live_tasks: f64,
    /// Operations finished so far.
    operations: u64,
}

/// Outcomes of one kind of operation on one binding.
#[derive(Debug, Clone, Default, Serialize)]
struct Outcomes {
    ok: u64,
    errors: u64,
}

/// One judgement.
#[derive(Debug, Clone, Serialize)]
struct Verdict {
    what: String,
    rule: String,
    observed: String,
    pass: bool,
}

/// Push notifications: what the tasks' events call for, and what arrived.
#[derive(Debug, Clone, Default, Serialize)]
struct PushCount {
    expected: u64,
    received: u64,
    /// `a2a_push_notifications_total{result="delivered"}`.
    delivered: f64,
    /// `a2a_push_notifications_total{result="given_up"}`.
    given_up: f64,
}

#[derive(Debug, Serialize)]
struct Report {
    minutes: f64,
    rate: f64,
    sample_every_s: f64,
    warmup_s: f64,
    prefill: usize,
    server_bin: String,
    operations: BTreeMap<String, Outcomes>,
    /// The first errors, as `op over binding: message`.
    errors: Vec<String>,
    push: PushCount,
    samples: Vec<Sample>,
    /// The sample once the load was over and the server settled (or gave up settling).
    settled: Option<Sample>,
    verdicts: Vec<Verdict>,
    passed: bool,
}

/// What the load's tasks share.
struct Shared {
    outcomes: Mutex<BTreeMap<String, Outcomes>>,
    errors: Mutex<Vec<String>>,
    finished: AtomicU64,
    push_expected: AtomicU64,
    webhook: String,
}

impl Shared {
    fn record(&self, op: Op, binding: Binding, outcome: anyhow::Result<()>) {
        let key = format!("{} over {}", op.name(), binding.name());
        let mut outcomes = self.outcomes.lock().expect("outcomes lock");
        let entry = outcomes.entry(key.clone()).or_default();
        match outcome {
            Ok(()) => entry.ok += 1,
            Err(error) => {
                entry.errors += 1;
                let mut errors = self.errors.lock().expect("errors lock");
                if errors.len() < 50 {
                    errors.push(format!("{key}: {error:#}"));
                }
            }
        }
        self.finished.fetch_add(1, Ordering::Relaxed);
    }
}

/// Runs the soak; the report's verdicts decide the exit code (`Ok(false)`: a judgement failed).
pub(crate) fn run(options: &SoakOptions) -> anyhow::Result<bool> {
    if !options.server_bin.exists() {
        bail!("no server binary at {} (build a2a-server or pass --server-bin)", options.server_bin.display());
    }
    let duration = Duration::from_secs_f64(options.minutes * 60.0);
    if duration.is_zero() || !options.rate.is_finite() || options.rate <= 0.0 {
        bail!("--minutes and --rate must be positive");
    }
    let sample_every = options
        .sample_every
        .unwrap_or_else(|| Duration::from_secs(5).min(duration / 15))
        .max(Duration::from_millis(200));
    let warmup = (duration / 5).min(Duration::from_secs(60));
    let out_dir = options.out.parent().map(PathBuf::from).unwrap_or_default();
    std::fs::create_dir_all(&out_dir)?;

    let data_dir = std::env::temp_dir().join(format!("a2a-soak-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data_dir);
    let dir = data_dir.to_string_lossy().into_owned();
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--log",
        "warn",
        "--store",
        "sqlite",
        "--data-dir",
        &dir,
        "--push-allow",
        "127.0.0.0/8",
        "--metrics-listen",
        "127.0.0.1:0",
    ];
    let log = out_dir.join("soak-server.log");
    let mut server =
        ServerProcess::start("a2a-server", &options.server_bin, &args, Placement::Anywhere, &log)?;
    let metrics_url = server
        .banner()
        .iter()
        .find_map(|line| line.strip_prefix("metrics on "))
        .map(|url| url.trim().to_owned())
        .context("the server did not print its metrics address")?;
    let pid = server.pid();
    eprintln!(
        "a2a-bench soak: {} min at {}/s against {} (pid {pid}, log {})",
        options.minutes,
        options.rate,
        server.url(),
        log.display()
    );

    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let url = server.url().to_owned();
    let mut report = runtime.block_on(async {
        let (endpoints, _) = Endpoints::discover(&url).await?;
        let receiver = push::fast_receiver().await?;
        let shared = Arc::new(Shared {
            outcomes: Mutex::default(),
            errors: Mutex::default(),
            finished: AtomicU64::new(0),
            push_expected: AtomicU64::new(0),
            webhook: receiver.url.clone(),
        });
        let clients: Vec<(Binding, Arc<dyn A2aService>)> = Binding::ALL
            .into_iter()
            .map(|binding| Ok((binding, endpoints.client(binding)?)))
            .collect::<anyhow::Result<_>>()?;

        if options.prefill > 0 {
            eprintln!("a2a-bench soak: pre-filling the store with {} echo tasks", options.prefill);
            prefill(&clients, &shared, options.prefill).await;
            shared.finished.store(0, Ordering::Relaxed);
        }

        let started = Instant::now();
        let samples = Arc::new(Mutex::new(Vec::new()));
        let sampler = {
            let (samples, shared, metrics_url) =
                (Arc::clone(&samples), Arc::clone(&shared), metrics_url.clone());
            tokio::spawn(async move {
                let mut ticks = tokio::time::interval(sample_every);
                ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
                loop {
                    ticks.tick().await;
                    match sample(pid, &metrics_url, started, &shared).await {
                        Ok(s) => samples.lock().expect("samples lock").push(s),
                        Err(error) => eprintln!("a2a-bench soak: a sample failed: {error:#}"),
                    }
                }
            })
        };

        // The load: one operation per tick, round-robin over the mix and the bindings.
        let permits = Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT));
        let mut load = tokio::task::JoinSet::new();
        let mut ticks = tokio::time::interval(Duration::from_secs_f64(1.0 / options.rate));
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut n = 0usize;
        while started.elapsed() < duration {
            ticks.tick().await;
            let permit = Arc::clone(&permits).acquire_owned().await?;
            let op = MIX[n % MIX.len()];
            let (binding, client) = clients[n % clients.len()].clone();
            let shared = Arc::clone(&shared);
            load.spawn(async move {
                let outcome = match tokio::time::timeout(OP_TIMEOUT, one(op, &*client, &shared)).await {
                    Ok(outcome) => outcome,
                    Err(_) => Err(anyhow::anyhow!("no answer within {OP_TIMEOUT:?}")),
                };
                shared.record(op, binding, outcome);
                drop(permit);
            });
            n += 1;
            while load.try_join_next().is_some() {}
        }
        while load.join_next().await.is_some() {}
        sampler.abort();
        let load_s = started.elapsed().as_secs_f64();
        eprintln!("a2a-bench soak: {n} operations in {load_s:.0} s; waiting for the server to settle");

        // Every notification, then nothing left running.
        let expected = shared.push_expected.load(Ordering::Relaxed);
        let settle_deadline = Instant::now() + SETTLE_TIMEOUT;
        while receiver.received.load(Ordering::Relaxed) < expected && Instant::now() < settle_deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let mut settled = None;
        while Instant::now() < settle_deadline {
            let now = sample(pid, &metrics_url, started, &shared).await?;
            let done = now.active_executions == 0.0 && now.open_streams == 0.0 && now.live_tasks == 0.0;
            settled = Some(now);
            if done {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        let scrape = scrape(&metrics_url).await?;
        let push = PushCount {
            expected,
            received: receiver.received.load(Ordering::Relaxed),
            delivered: metric(&scrape, "a2a_push_notifications_total", Some(("result", "delivered"))),
            given_up: metric(&scrape, "a2a_push_notifications_total", Some(("result", "given_up"))),
        };
        let samples = std::mem::take(&mut *samples.lock().expect("samples lock"));
        let report = Report {
            minutes: options.minutes,
            rate: options.rate,
            sample_every_s: sample_every.as_secs_f64(),
            warmup_s: warmup.as_secs_f64(),
            prefill: options.prefill,
            server_bin: options.server_bin.display().to_string(),
            operations: shared.outcomes.lock().expect("outcomes lock").clone(),
            errors: shared.errors.lock().expect("errors lock").clone(),
            push,
            samples,
            settled,
            verdicts: Vec::new(),
            passed: false,
        };
        anyhow::Ok(report)
    })?;
    let alive = server.is_running();
    drop(server);
    let _ = std::fs::remove_dir_all(&data_dir);

    report.verdicts = judge(&report, alive);
    report.passed = report.verdicts.iter().all(|v| v.pass);
    std::fs::write(&options.out, serde_json::to_vec_pretty(&report)?)
        .with_context(|| format!("writing {}", options.out.display()))?;
    print!("{}", tables(&report));
    println!("\nreport: {}", options.out.display());
    Ok(report.passed)
}

/// Creates `tasks` echo tasks, 16 at a time, over every binding in turn.
async fn prefill(clients: &[(Binding, Arc<dyn A2aService>)], shared: &Arc<Shared>, tasks: usize) {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for worker in 0..16 {
        let (binding, client) = clients[worker % clients.len()].clone();
        let (shared, next) = (Arc::clone(shared), Arc::clone(&next));
        workers.spawn(async move {
            while next.fetch_add(1, Ordering::Relaxed) < tasks {
                let outcome = tokio::time::timeout(OP_TIMEOUT, one(Op::Prefill, &*client, &shared))
                    .await
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("no answer within {OP_TIMEOUT:?}")));
                shared.record(Op::Prefill, binding, outcome);
            }
        });
    }
    while workers.join_next().await.is_some() {}
}

/// One operation of kind `op`, with its checks.
async fn one(op: Op, client: &dyn A2aService, shared: &Shared) -> anyhow::Result<()> {
    let ctx = CallContext::v1();
    let state_is = |what: &str, state: TaskState, want: TaskState| {
        anyhow::ensure!(state == want, "{what}: {state:?}, expected {want:?}");
        Ok(())
    };
    match op {
        Op::Send | Op::Prefill => client::echo(client, "soak").await.map(drop).map_err(anyhow::Error::msg),
        Op::Get => {
            let task = client::echo(client, "soak").await.map_err(anyhow::Error::msg)?;
            let read =
                client.get_task(&ctx, GetTaskRequest { id: task.id.clone(), ..Default::default() }).await?;
            anyhow::ensure!(read.id == task.id, "GetTask answered another task");
            state_is("GetTask", read.state(), TaskState::Completed)
        }
        Op::Stream => {
            let events = client::collect_stream(client, &format!("stream {STREAM_CHUNKS} 5")).await?;
            let chunks =
                events.iter().filter(|e| matches!(e.payload, Some(Payload::ArtifactUpdate(_)))).count();
            anyhow::ensure!(chunks == STREAM_CHUNKS, "{chunks} chunks, expected {STREAM_CHUNKS}");
            state_is("the stream's end", last_state(&events), TaskState::Completed)
        }
        Op::Push => {
            let request = push::with_webhook(&format!("stream {PUSH_CHUNKS}"), Some(&shared.webhook));
            let task =
                client::reply_task(client.send_message(&ctx, request).await?).map_err(anyhow::Error::msg)?;
            shared.push_expected.fetch_add(PUSH_CHUNKS as u64 + 3, Ordering::Relaxed);
            state_is("a pushed task", task.state(), TaskState::Completed)
        }
        Op::Subscribe => {
            let task = client::reply_task(
                client.send_message(&ctx, client::send_returning_immediately("wait 60")).await?,
            )
            .map_err(anyhow::Error::msg)?;
            let subscribe = SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() };
            let mut stream = client.subscribe_to_task(&ctx, subscribe).await?;
            let first = stream.next().await.context("the subscription ended at once")??;
            anyhow::ensure!(
                matches!(first.payload, Some(Payload::Task(_))),
                "a subscription starts with the task"
            );
            let canceled =
                client.cancel_task(&ctx, CancelTaskRequest { id: task.id, ..Default::default() }).await?;
            state_is("CancelTask", canceled.state(), TaskState::Canceled)?;
            let mut rest = vec![first];
            while let Some(event) = stream.next().await {
                rest.push(event?);
            }
            state_is("the subscription's end", last_state(&rest), TaskState::Canceled)
        }
        Op::Cancel => {
            let task = client::reply_task(
                client.send_message(&ctx, client::send_returning_immediately("wait 60")).await?,
            )
            .map_err(anyhow::Error::msg)?;
            let canceled =
                client.cancel_task(&ctx, CancelTaskRequest { id: task.id, ..Default::default() }).await?;
            state_is("CancelTask", canceled.state(), TaskState::Canceled)
        }
        Op::DropStream => {
            let mut stream = client.send_streaming_message(&ctx, client::send_request("stream 50 2")).await?;
            for _ in 0..2 {
                stream.next().await.context("the stream ended early")??;
            }
            Ok(())
        }
    }
}

/// The state the last event of a stream says (a `Task` or a status update), else unspecified.
fn last_state(events: &[StreamResponse]) -> TaskState {
    match events.last().and_then(|e| e.payload.as_ref()) {
        Some(Payload::Task(task)) => task.state(),
        Some(Payload::StatusUpdate(update)) => {
            update.status.as_ref().map_or(TaskState::Unspecified, |s| s.state())
        }
        _ => TaskState::Unspecified,
    }
}

/// Reads the server's memory and descriptors from `/proc` and its gauges from its metrics.
async fn sample(pid: u32, metrics_url: &str, started: Instant, shared: &Shared) -> anyhow::Result<Sample> {
    let at_s = started.elapsed().as_secs_f64();
    let rss_bytes = process::rss_bytes(pid)?;
    let open_fds = process::open_fds(pid)?;
    let text = scrape(metrics_url).await?;
    Ok(Sample {
        at_s,
        rss_bytes,
        open_fds,
        active_executions: metric(&text, "a2a_active_executions", None),
        open_streams: metric(&text, "a2a_open_streams", None),
        live_tasks: metric(&text, "a2a_live_tasks", None),
        operations: shared.finished.load(Ordering::Relaxed),
    })
}

async fn scrape(url: &str) -> anyhow::Result<String> {
    let response = reqwest::get(url).await?.error_for_status()?;
    Ok(response.text().await?)
}

/// The sum of the samples of metric `name` (with label `key="value"`, if given) in an
/// OpenMetrics text.
fn metric(text: &str, name: &str, label: Option<(&str, &str)>) -> f64 {
    let wanted = label.map(|(key, value)| format!("{key}=\"{value}\""));
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, labels) = series.split_once('{').unwrap_or((series, ""));
            (metric == name && wanted.as_ref().is_none_or(|w| labels.contains(w.as_str()))).then_some(value)
        })
        .filter_map(|value| value.parse::<f64>().ok())
        .sum()
}

/// The judgements of a finished run (module docs).
fn judge(report: &Report, alive: bool) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    let steady: Vec<&Sample> = report.samples.iter().filter(|s| s.at_s >= report.warmup_s).collect();
    let third = steady.len() / 3;
    if third == 0 {
        verdicts.push(Verdict {
            what: "samples".into(),
            rule: "at least 3 after the warm-up".into(),
            observed: steady.len().to_string(),
            pass: false,
        });
    } else {
        let (first, last) = (&steady[..third], &steady[steady.len() - third..]);
        let max = |samples: &[&Sample], f: &dyn Fn(&Sample) -> f64| {
            samples.iter().map(|s| f(s)).fold(0.0, f64::max)
        };
        let mut flat =
            |what: &str, rule: &str, f: &dyn Fn(&Sample) -> f64, bound: &dyn Fn(f64) -> f64, unit: f64| {
                let (early, late) = (max(first, f), max(last, f));
                verdicts.push(Verdict {
                    what: format!("{what} flat after warm-up"),
                    rule: format!("last third's max <= {rule}"),
                    observed: format!("{:.1} -> {:.1}", early / unit, late / unit),
                    pass: late <= bound(early),
                });
            };
        let mib = 1024.0 * 1024.0;
        flat("RSS (MiB)", "1.10 x first third's max", &|s| s.rss_bytes as f64, &|x| x * 1.10, mib);
        flat("open file descriptors", "first third's max + 5", &|s| s.open_fds as f64, &|x| x + 5.0, 1.0);
        flat(
            "active executions",
            "2 x first third's max + 5",
            &|s| s.active_executions,
            &|x| 2.0 * x + 5.0,
            1.0,
        );
        flat("open streams", "2 x first third's max + 5", &|s| s.open_streams, &|x| 2.0 * x + 5.0, 1.0);
        flat("live task runtimes", "2 x first third's max + 5", &|s| s.live_tasks, &|x| 2.0 * x + 5.0, 1.0);
    }
    let settled = report.settled.as_ref();
    verdicts.push(Verdict {
        what: "settles after the load".into(),
        rule: "0 executions, streams and task runtimes".into(),
        observed: settled.map_or("no sample".into(), |s| {
            format!("{} / {} / {}", s.active_executions, s.open_streams, s.live_tasks)
        }),
        pass: settled
            .is_some_and(|s| s.active_executions == 0.0 && s.open_streams == 0.0 && s.live_tasks == 0.0),
    });
    let (ok, errors) =
        report.operations.values().fold((0, 0), |(ok, errors), o| (ok + o.ok, errors + o.errors));
    verdicts.push(Verdict {
        what: "unexpected errors".into(),
        rule: "0".into(),
        observed: format!("{errors} of {}", ok + errors),
        pass: errors == 0 && ok > 0,
    });
    let push = &report.push;
    verdicts.push(Verdict {
        what: "push notifications delivered".into(),
        rule: "received = expected = delivered, 0 given up".into(),
        observed: format!(
            "{} received, {} expected, {} delivered, {} given up",
            push.received, push.expected, push.delivered, push.given_up
        ),
        pass: push.expected > 0
            && push.received == push.expected
            && push.delivered == push.expected as f64
            && push.given_up == 0.0,
    });
    verdicts.push(Verdict {
        what: "the server lives".into(),
        rule: "still running at the end".into(),
        observed: if alive { "running".into() } else { "exited".into() },
        pass: alive,
    });
    verdicts
}

/// The samples (at most about 20 rows), the operations and the verdicts, as text tables.
fn tables(report: &Report) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\nsoak: {} min at {}/s after {} pre-filled tasks, a sample every {:.1} s, warm-up {:.0} s",
        report.minutes, report.rate, report.prefill, report.sample_every_s, report.warmup_s
    );
    let _ =
        writeln!(out, "\n| t (s) | RSS (MiB) | fds | executions | streams | task runtimes | operations |");
    let _ = writeln!(out, "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let step = report.samples.len().div_ceil(20).max(1);
    let shown =
        report.samples.iter().step_by(step).chain(report.samples.last()).chain(report.settled.as_ref());
    let mut last_at = f64::NAN;
    for s in shown {
        if s.at_s == last_at {
            continue;
        }
        last_at = s.at_s;
        let _ = writeln!(
            out,
            "| {:.0} | {:.1} | {} | {} | {} | {} | {} |",
            s.at_s,
            s.rss_bytes as f64 / (1024.0 * 1024.0),
            s.open_fds,
            s.active_executions,
            s.open_streams,
            s.live_tasks,
            s.operations
        );
    }
    let _ = writeln!(out, "\n| operation | ok | errors |\n| --- | ---: | ---: |");
    for (name, o) in &report.operations {
        let _ = writeln!(out, "| {name} | {} | {} |", o.ok, o.errors);
    }
    let _ = writeln!(out, "\n| judgement | rule | observed | verdict |\n| --- | --- | --- | --- |");
    for v in &report.verdicts {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            v.what,
            v.rule,
            v.observed,
            if v.pass { "pass" } else { "FAIL" }
        );
    }
    for error in report.errors.iter().take(10) {
        let _ = writeln!(out, "error: {error}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_sums_the_series_of_a_name_with_a_label() {
        let text = "# TYPE a2a_open_streams gauge\n\
                    a2a_open_streams{operation=\"SubscribeToTask\",binding=\"GRPC\"} 2\n\
                    a2a_open_streams{operation=\"SendStreamingMessage\",binding=\"JSONRPC\"} 3\n\
                    a2a_open_streams_other 7\n\
                    a2a_push_notifications_total{result=\"delivered\"} 40\n\
                    a2a_push_notifications_total{result=\"given_up\"} 1\n\
                    a2a_live_tasks 4\n# EOF\n";
        assert_eq!(metric(text, "a2a_open_streams", None), 5.0);
        assert_eq!(metric(text, "a2a_push_notifications_total", Some(("result", "delivered"))), 40.0);
        assert_eq!(metric(text, "a2a_live_tasks", None), 4.0);
        assert_eq!(metric(text, "a2a_missing", None), 0.0);
    }

    fn at(at_s: f64, rss_mib: u64, open_fds: usize, live_tasks: f64) -> Sample {
        Sample {
            at_s,
            rss_bytes: rss_mib << 20,
            open_fds,
            active_executions: 1.0,
            open_streams: 1.0,
            live_tasks,
            operations: 0,
        }
    }

    fn report(samples: Vec<Sample>) -> Report {
        Report {
            minutes: 1.0,
            rate: 1.0,
            sample_every_s: 1.0,
            warmup_s: 10.0,
            prefill: 0,
            server_bin: String::new(),
            operations: BTreeMap::from([("send over jsonrpc".into(), Outcomes { ok: 5, errors: 0 })]),
            errors: Vec::new(),
            push: PushCount { expected: 8, received: 8, delivered: 8.0, given_up: 0.0 },
            samples,
            settled: Some(at(99.0, 30, 20, 0.0).with_idle()),
            verdicts: Vec::new(),
            passed: false,
        }
    }

    impl Sample {
        fn with_idle(mut self) -> Self {
            self.active_executions = 0.0;
            self.open_streams = 0.0;
            self
        }
    }

    fn failed(verdicts: &[Verdict]) -> Vec<&str> {
        verdicts.iter().filter(|v| !v.pass).map(|v| v.what.as_str()).collect()
    }

    #[test]
    fn a_flat_run_passes_and_the_warm_up_is_not_judged() {
        // Memory grows during the warm-up (t < 10), then stays flat.
        let mut samples = vec![at(0.0, 10, 10, 0.0), at(5.0, 20, 15, 3.0)];
        samples.extend((0..9).map(|i| at(10.0 + f64::from(i), 30, 20 + (i % 2) as usize, 4.0)));
        let verdicts = judge(&report(samples), true);
        assert!(failed(&verdicts).is_empty(), "{verdicts:?}");
    }

    #[test]
    fn growth_in_the_last_third_errors_and_missing_notifications_fail() {
        let mut samples: Vec<Sample> = (0..9).map(|i| at(10.0 + f64::from(i), 30, 20, 4.0)).collect();
        samples[8] = at(18.0, 34, 26, 14.0);
        let mut report = report(samples);
        report.operations.insert("push over grpc".into(), Outcomes { ok: 1, errors: 1 });
        report.push.received = 7;
        let verdicts = judge(&report, false);
        assert_eq!(
            failed(&verdicts),
            [
                "RSS (MiB) flat after warm-up",
                "open file descriptors flat after warm-up",
                "live task runtimes flat after warm-up",
                "unexpected errors",
                "push notifications delivered",
                "the server lives",
            ]
        );
    }

    #[test]
    fn too_few_samples_and_a_server_that_does_not_settle_fail() {
        let mut report = report(vec![at(12.0, 30, 20, 1.0)]);
        report.settled = Some(at(99.0, 30, 20, 2.0));
        assert_eq!(failed(&judge(&report, true)), ["samples", "settles after the load"]);
    }
}
