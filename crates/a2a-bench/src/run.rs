//! One run of the harness: starts the servers, runs every workload (interleaving the A2A server
//! and its ceiling round by round), and assembles the report.
//!
//! Each load segment runs on a fresh thread with its own tokio runtime and fresh clients, pinned
//! to core 1 when the servers are pinned to core 0, so the load generator and the server never
//! share a core in the pinned placement. Runtimes size themselves to the cores the thread may use
//! (one when pinned).

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, Context as _};

use crate::ceiling::Replies;
use crate::client::ReportName as _;
use crate::client::{self, Binding, Endpoints};
use crate::fanout;
use crate::generator::{Generator, GeneratorChoice, Tools};
use crate::load::LoadSpec;
use crate::process::{self, Placement, ServerProcess};
use crate::push;
use crate::report::{self, Harness, Machine, Report};
use crate::send::{self, placement_name, ToolTarget, ECHO_TEXT};
use crate::store::{self, StorePoint, StoreResult};
use crate::stream::{self, StreamResult};

/// Which placements to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum PinMode {
    /// Both, when `taskset` works and the server is local.
    Auto,
    /// Only server on core 0 and load generator on core 1.
    On,
    /// Only unpinned.
    Off,
}

/// The workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Workload {
    /// SendMessage (echo) against the ceilings.
    Send,
    /// One SendStreamingMessage against the ceilings, and per-event cost over a long stream.
    Stream,
    /// SubscribeToTask fan-out.
    Fanout,
    /// Push notifications: throughput to a fast webhook, the agent beside a stalled one.
    Push,
    /// GetTask / ListTasks by store size, memory per task.
    Store,
}

/// What to run.
#[derive(Debug, Clone)]
pub(crate) struct RunOptions {
    pub(crate) url: Option<String>,
    /// With `url`: the command that serves it, started (and pinned) by the harness.
    pub(crate) server_cmd: Option<Vec<String>>,
    /// Which load generator drives SendMessage.
    pub(crate) generator: GeneratorChoice,
    /// A peer server measured in the same SendMessage rounds, against ceilings of its own.
    pub(crate) peer_url: Option<String>,
    /// The command that serves `peer_url`, started (and pinned) by the harness.
    pub(crate) peer_cmd: Option<Vec<String>>,
    pub(crate) server_bin: PathBuf,
    pub(crate) baseline_bin: Option<PathBuf>,
    /// The started server's `--store` (`sqlite` keeps it in a fresh data directory per start).
    pub(crate) store: String,
    /// The baseline's `--store`, when it differs (e.g. `memory` against `sqlite`).
    pub(crate) baseline_store: Option<String>,
    pub(crate) out: PathBuf,
    pub(crate) quick: bool,
    pub(crate) warmup: Duration,
    pub(crate) duration: Duration,
    pub(crate) rounds: usize,
    pub(crate) concurrency: Vec<usize>,
    pub(crate) bindings: Vec<Binding>,
    pub(crate) workloads: Vec<Workload>,
    pub(crate) pin: PinMode,
    pub(crate) stream_events: usize,
    /// Tasks at once in the push workload's throughput figure.
    pub(crate) push_tasks: usize,
    pub(crate) stream_reps: usize,
    pub(crate) scaling_events: usize,
    pub(crate) subscribers: usize,
    pub(crate) store_sizes: Vec<usize>,
    pub(crate) store_binding: Binding,
}

/// Runs `make()` to completion on a new thread with its own runtime, pinned to `placement`.
pub(crate) fn on_thread<T, F, Fut>(placement: Placement, make: F) -> anyhow::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> Fut + Send + 'static,
    Fut: Future<Output = anyhow::Result<T>>,
{
    std::thread::spawn(move || {
        if let Placement::Core(core) = placement {
            process::pin_current_thread(&core.to_string())?;
        }
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(process::available_cpus())
            .enable_all()
            .build()?;
        runtime.block_on(make())
    })
    .join()
    .map_err(|_| anyhow!("a load thread panicked"))?
}

/// One server of a comparison: where it is and its process id (if local).
type Side<'a> = (&'a Endpoints, Option<u32>);

/// The servers of one SendMessage comparison.
struct Sides<'a> {
    a2a: Side<'a>,
    baseline: Option<Side<'a>>,
    ceiling: Side<'a>,
    /// The peer and the ceilings replaying its replies.
    peer: Option<(Side<'a>, Side<'a>)>,
}

/// The peer of one placement (`--peer-url`): its server and its own ceilings, which replay the
/// replies captured from it.
struct Peer {
    server: UnderTest,
    endpoints: Endpoints,
    http_ceiling: ServerProcess,
    grpc_ceiling: ServerProcess,
    ceiling: Endpoints,
}

impl Peer {
    fn ceiling_pid(&self, binding: Binding) -> Option<u32> {
        Some(if binding == Binding::Grpc { self.grpc_ceiling.pid() } else { self.http_ceiling.pid() })
    }
}

/// One SendMessage comparison (one binding, one concurrency, one placement).
struct SendRun<'a> {
    opts: &'a RunOptions,
    tools: &'a Tools,
    /// Drive with wrk / h2load (else the built-in generator).
    external: bool,
    binding: Binding,
    spec: LoadSpec,
    load_at: Placement,
    workdir: &'a Path,
}

impl SendRun<'_> {
    /// The interleaved rounds (A, baseline, ceiling; A, baseline, ceiling; ...), then, with the
    /// built-in generator, one run of the external tool on the ceiling as the reference.
    fn rounds(&self, sides: &Sides<'_>) -> anyhow::Result<send::SendResult> {
        let mut a = Vec::new();
        let mut base = Vec::new();
        let mut b = Vec::new();
        let mut peer_a = Vec::new();
        let mut peer_b = Vec::new();
        // With the external tools, each server's request is prepared (and for gRPC checked) once.
        let targets = if self.external {
            let prepare = |(endpoints, _): Side<'_>| self.prepare(endpoints).map(Some);
            let peer = match sides.peer {
                Some((server, ceiling)) => Some((prepare(server)?, prepare(ceiling)?)),
                None => None,
            };
            let baseline = sides.baseline.map(prepare).transpose()?.flatten();
            (prepare(sides.a2a)?, baseline, prepare(sides.ceiling)?, peer)
        } else {
            (None, None, None, None)
        };
        let (ta, tbase, tb, tpeer) = &targets;
        for _ in 0..self.opts.rounds.max(1) {
            a.push(self.segment(ta.as_ref(), sides.a2a)?);
            if let Some(side) = sides.baseline {
                base.push(self.segment(tbase.as_ref(), side)?);
            }
            b.push(self.segment(tb.as_ref(), sides.ceiling)?);
            if let Some((server, ceiling)) = sides.peer {
                let (tserver, tceiling) =
                    tpeer.as_ref().map_or((None, None), |(s, c)| (s.as_ref(), c.as_ref()));
                peer_a.push(self.segment(tserver, server)?);
                peer_b.push(self.segment(tceiling, ceiling)?);
            }
        }
        let base = sides.baseline.map(|_| base.as_slice());
        let (c, at) = (self.spec.concurrency, self.load_at);
        let mut result = send::compare(self.binding, c, at, &a, base, &b, self.reference(sides.ceiling)?);
        if let Some((_, ceiling)) = sides.peer {
            let peer = send::compare(self.binding, c, at, &peer_a, None, &peer_b, self.reference(ceiling)?);
            result.peer = Some(Box::new(peer));
        }
        Ok(result)
    }

    /// With the built-in generator, when the external tool is installed: the tool's throughput
    /// on `ceiling`, to check the built-in generator against.
    fn reference(&self, ceiling: Side<'_>) -> anyhow::Result<Option<f64>> {
        if self.external || !self.tools.have(Generator::external_for(self.binding)) {
            return Ok(None);
        }
        let segment = self.external_segment(&self.prepare(ceiling.0)?, ceiling.1)?;
        anyhow::ensure!(
            segment.errors == 0,
            "the reference run on the ceiling failed: {:?}",
            segment.first_error
        );
        Ok(Some(segment.throughput))
    }

    fn prepare(&self, endpoints: &Endpoints) -> anyhow::Result<ToolTarget> {
        ToolTarget::prepare(self.tools, endpoints, self.binding, self.workdir)
    }

    /// One timed segment against `side`, with the external tool (`target`) or the built-in one.
    fn segment(&self, target: Option<&ToolTarget>, side: Side<'_>) -> anyhow::Result<send::Segment> {
        match target {
            Some(target) => self.external_segment(target, side.1),
            None => self.builtin_segment(side.0, side.1),
        }
    }

    fn external_segment(&self, target: &ToolTarget, pid: Option<u32>) -> anyhow::Result<send::Segment> {
        send::segment_external(self.tools, target, self.spec, self.load_at, pid, self.workdir)
    }

    fn builtin_segment(&self, endpoints: &Endpoints, pid: Option<u32>) -> anyhow::Result<send::Segment> {
        let (e, binding, spec) = (endpoints.clone(), self.binding, self.spec);
        on_thread(self.load_at, move || async move { send::segment(&e, binding, spec, pid).await })
    }
}

/// The server under test for one phase: a local `a2a-server` process, or the `--url` server.
struct UnderTest {
    process: Option<ServerProcess>,
    url: String,
    /// The data directory this start made (removed with the server).
    data_dir: Option<PathBuf>,
}

impl Drop for UnderTest {
    fn drop(&mut self) {
        self.process.take();
        if let Some(dir) = self.data_dir.take() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

impl UnderTest {
    fn start(opts: &RunOptions, placement: Placement, log: &Path) -> anyhow::Result<Self> {
        match (&opts.url, &opts.server_cmd) {
            (Some(url), Some(argv)) => {
                let process = ServerProcess::start_serving("server-cmd", argv, url, placement, log)?;
                Ok(UnderTest { process: Some(process), url: url.clone(), data_dir: None })
            }
            (Some(url), None) => Ok(UnderTest { process: None, url: url.clone(), data_dir: None }),
            (None, _) => Self::start_binary(&opts.server_bin, &opts.store, opts.subscribers, placement, log),
        }
    }

    /// Starts the reference server (or a baseline build of it) for the workloads: its stream
    /// limits raised to the fan-out's `subscribers` (its defaults, 64 subscribers per task and 100
    /// streams per connection, would refuse the fan-out's 1000).
    fn start_binary(
        binary: &Path,
        store: &str,
        subscribers: usize,
        placement: Placement,
        log: &Path,
    ) -> anyhow::Result<Self> {
        static STARTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let data_dir = std::env::temp_dir().join(format!("a2a-bench-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data_dir);
        let dir = data_dir.to_string_lossy().into_owned();
        let streams = subscribers.max(100).to_string();
        // Loopback webhooks: the push workload's receivers run in this process.
        let args = [
            "--max-subscribers-per-task",
            &streams,
            "--max-streams-per-connection",
            &streams,
            "--listen",
            "127.0.0.1:0",
            "--log",
            "warn",
            "--store",
            store,
            "--data-dir",
            &dir,
            "--push-allow",
            "127.0.0.0/8",
        ];
        let process = ServerProcess::start("a2a-server", binary, &args, placement, log)?;
        let url = process.url().to_owned();
        Ok(UnderTest { process: Some(process), url, data_dir: Some(data_dir) })
    }

    fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(ServerProcess::pid)
    }

    fn endpoints(&self) -> anyhow::Result<Endpoints> {
        let url = self.url.clone();
        on_thread(Placement::Anywhere, move || async move { Ok(Endpoints::discover(&url).await?.0) })
    }
}

/// Runs everything `opts` asks for.
pub(crate) fn run(opts: &RunOptions) -> anyhow::Result<(Report, bool)> {
    let started = std::time::Instant::now();
    let machine = Machine::describe();
    let out_dir = opts.out.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let logs = out_dir.join("logs");
    let local = opts.url.is_none() || opts.server_cmd.is_some();
    let tools = Tools::find();
    let missing = tools.missing();
    let external = match opts.generator {
        GeneratorChoice::BuiltIn => false,
        GeneratorChoice::Auto => missing.is_empty(),
        GeneratorChoice::External if missing.is_empty() => true,
        GeneratorChoice::External => {
            anyhow::bail!(
                "--generator external: {} not installed (Debian: wrk, nghttp2-client)",
                missing.join(", ")
            )
        }
    };
    let mut warnings = Vec::new();
    if !external && opts.workloads.contains(&Workload::Send) {
        let why = if opts.generator == GeneratorChoice::BuiltIn {
            "--generator built-in".to_owned()
        } else {
            format!("{} not installed (Debian packages wrk and nghttp2-client)", missing.join(", "))
        };
        warnings.push(format!(
            "SendMessage is driven by the built-in generator ({why}): generator: built-in (may be \
             load-generator-bound); its ceilings may be the generator's own ceiling"
        ));
        for warning in &warnings {
            eprintln!("\n!!! a2a-bench WARNING: {warning}\n");
        }
    }
    let pinnable = local && machine.can_pin && machine.nproc >= 2;
    let pinned = (Placement::Core(0), Placement::Core(1));
    let unpinned = (Placement::Anywhere, Placement::Anywhere);
    let placements = match (opts.pin, pinnable) {
        (PinMode::Off, _) | (_, false) => vec![unpinned],
        (PinMode::On, true) => vec![pinned],
        (PinMode::Auto, true) => vec![pinned, unpinned],
    };
    let mut report = Report {
        harness: Harness {
            version: env!("CARGO_PKG_VERSION"),
            quick: opts.quick,
            server: opts
                .url
                .clone()
                .unwrap_or_else(|| format!("{} (started here)", opts.server_bin.display())),
            store: opts.store.clone(),
            baseline: match (&opts.baseline_bin, &opts.baseline_store) {
                (None, None) => None,
                (binary, store) => Some(format!(
                    "{} --store {}",
                    binary.as_ref().unwrap_or(&opts.server_bin).display(),
                    store.as_ref().unwrap_or(&opts.store)
                )),
            },
            warmup_s: opts.warmup.as_secs_f64(),
            duration_s: opts.duration.as_secs_f64(),
            rounds: opts.rounds,
            placements: placements.iter().map(|(server, _)| placement_name(*server)).collect(),
            peer: opts.peer_url.as_ref().map(|url| match &opts.peer_cmd {
                Some(argv) => format!("{url} ({}, started here)", argv.join(" ")),
                None => url.clone(),
            }),
            generator: if external {
                "wrk (JSON-RPC, REST) and h2load (gRPC)".to_owned()
            } else {
                "built-in (may be load-generator-bound)".to_owned()
            },
            warnings,
            started_unix_s: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            elapsed_s: 0.0,
        },
        machine,
        send: Vec::new(),
        stream: Vec::new(),
        stream_scaling: Vec::new(),
        fanout: Vec::new(),
        push: Vec::new(),
        store: None,
        targets: Vec::new(),
        skipped: Vec::new(),
    };
    if (opts.pin == PinMode::On || opts.pin == PinMode::Auto) && !pinnable {
        report.skipped.push(if local {
            "pinned placement: taskset is not available or there are fewer than 2 cores".to_owned()
        } else {
            "pinned placement: the server is not a local process (--url)".to_owned()
        });
    }
    let mut failed = false;
    let wants = |w: Workload| opts.workloads.contains(&w);

    if wants(Workload::Send) || wants(Workload::Stream) {
        let replies_dir = out_dir.join("replies");
        let mut captured = false;
        for (index, &(server_at, load_at)) in placements.iter().enumerate() {
            let name = placement_name(server_at);
            eprintln!("a2a-bench: {name}: starting the servers");
            let a2a = UnderTest::start(opts, server_at, &logs.join(format!("a2a-server-{name}.log")))?;
            let endpoints = a2a.endpoints()?;
            let baseline = match (&opts.baseline_bin, &opts.baseline_store) {
                (None, None) => None,
                (binary, store) => {
                    let binary = binary.as_ref().unwrap_or(&opts.server_bin);
                    let store = store.as_ref().unwrap_or(&opts.store);
                    let log = logs.join(format!("a2a-server-baseline-{name}.log"));
                    let server = UnderTest::start_binary(binary, store, opts.subscribers, server_at, &log)?;
                    let endpoints = server.endpoints()?;
                    Some((server, endpoints))
                }
            };
            let bindings: Vec<Binding> =
                opts.bindings.iter().copied().filter(|b| endpoints.get(*b).is_some()).collect();
            for missing in opts.bindings.iter().filter(|b| endpoints.get(**b).is_none()) {
                report
                    .skipped
                    .push(format!("{}: the server's card declares no such interface", missing.name()));
            }
            let Some(&first) = bindings.first() else {
                anyhow::bail!("the server offers none of the requested bindings");
            };
            if !captured {
                let stream_events = wants(Workload::Stream).then_some(opts.stream_events);
                capture_replies(&endpoints, first, stream_events, &replies_dir)?;
                captured = true;
            }
            let replies = replies_dir.to_string_lossy().into_owned();
            let exe = process::this_exe()?;
            let start_ceiling = |kind: &str, replies: &str| {
                let command = format!("ceiling-{kind}");
                let args = [command.as_str(), "--listen", "127.0.0.1:0", "--replies", replies];
                let suffix = if replies.ends_with("-peer") { "-peer" } else { "" };
                let log = logs.join(format!("{command}{suffix}-{name}.log"));
                ServerProcess::start(&command, &exe, &args, server_at, &log)
            };
            let http_ceiling = start_ceiling("http", &replies)?;
            let grpc_ceiling = start_ceiling("grpc", &replies)?;
            let ceiling = Endpoints::ceiling(http_ceiling.url(), grpc_ceiling.url());
            let ceiling_pid = |binding: Binding| {
                Some(if binding == Binding::Grpc { grpc_ceiling.pid() } else { http_ceiling.pid() })
            };
            let peer = match &opts.peer_url {
                Some(url) if wants(Workload::Send) => {
                    let log = logs.join(format!("peer-{name}.log"));
                    let server = match &opts.peer_cmd {
                        Some(argv) => {
                            let process = ServerProcess::start_serving("peer", argv, url, server_at, &log)?;
                            UnderTest { process: Some(process), url: url.clone(), data_dir: None }
                        }
                        None => UnderTest { process: None, url: url.clone(), data_dir: None },
                    };
                    let endpoints = server.endpoints().context("the peer's agent card")?;
                    let offered = |b: &Binding| endpoints.get(*b).is_some();
                    let first = bindings
                        .iter()
                        .copied()
                        .find(offered)
                        .context("the peer offers none of the bindings")?;
                    let peer_replies = out_dir.join("replies-peer");
                    capture_replies(&endpoints, first, None, &peer_replies)?;
                    let peer_replies = peer_replies.to_string_lossy().into_owned();
                    let http_ceiling = start_ceiling("http", &peer_replies)?;
                    let grpc_ceiling = start_ceiling("grpc", &peer_replies)?;
                    let ceiling = Endpoints::ceiling(http_ceiling.url(), grpc_ceiling.url());
                    Some(Peer { server, endpoints, http_ceiling, grpc_ceiling, ceiling })
                }
                _ => None,
            };

            if wants(Workload::Send) {
                let workdir = out_dir.join("load");
                for &binding in &bindings {
                    let base = baseline.as_ref().map(|(server, endpoints)| (endpoints, server.pid()));
                    let sides = Sides {
                        a2a: (&endpoints, a2a.pid()),
                        baseline: base,
                        ceiling: (&ceiling, ceiling_pid(binding)),
                        peer: peer
                            .as_ref()
                            .filter(|p| p.endpoints.get(binding).is_some())
                            .map(|p| ((&p.endpoints, p.server.pid()), (&p.ceiling, p.ceiling_pid(binding)))),
                    };
                    if peer.as_ref().is_some_and(|p| p.endpoints.get(binding).is_none()) {
                        report
                            .skipped
                            .push(format!("peer {}: its card declares no such interface", binding.name()));
                    }
                    for &concurrency in &opts.concurrency {
                        eprintln!("a2a-bench: {name}: SendMessage {} c={concurrency}", binding.name());
                        let spec = LoadSpec { concurrency, warmup: opts.warmup, duration: opts.duration };
                        let run = SendRun {
                            opts,
                            tools: &tools,
                            external,
                            binding,
                            spec,
                            load_at,
                            workdir: &workdir,
                        };
                        match run.rounds(&sides) {
                            Ok(result) => {
                                failed |= result.a2a.errors > 0
                                    || result.ceiling.errors > 0
                                    || result.baseline.as_ref().is_some_and(|b| b.errors > 0)
                                    || result
                                        .peer
                                        .as_ref()
                                        .is_some_and(|p| p.a2a.errors + p.ceiling.errors > 0);
                                report.send.push(result);
                            }
                            Err(error) => {
                                failed = true;
                                report.skipped.push(format!(
                                    "send {} c={concurrency} ({name}): {error:#}",
                                    binding.name()
                                ));
                            }
                        }
                    }
                }
            }

            if wants(Workload::Stream) {
                for &binding in &bindings {
                    eprintln!(
                        "a2a-bench: {name}: SendStreamingMessage {} ({} events)",
                        binding.name(),
                        opts.stream_events
                    );
                    let base = baseline.as_ref().map(|(_, endpoints)| endpoints);
                    match stream_rounds(opts, &endpoints, base, &ceiling, binding, load_at) {
                        Ok((a, base, b)) => {
                            let round_ratios: Vec<f64> =
                                a.iter().zip(&b).map(|(a, b)| if *b > 0.0 { a / b } else { 0.0 }).collect();
                            let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
                            let (a, b) = (mean(&a), mean(&b));
                            let base = (!base.is_empty()).then(|| mean(&base));
                            report.stream.push(StreamResult {
                                binding,
                                placement: name,
                                artifact_events: opts.stream_events,
                                a2a_events_per_s: a,
                                ceiling_events_per_s: b,
                                ratio: if b > 0.0 { a / b } else { 0.0 },
                                baseline_events_per_s: base,
                                baseline_ratio: base.filter(|_| b > 0.0).map(|base| base / b),
                                round_ratios,
                            });
                        }
                        Err(error) => {
                            failed = true;
                            report.skipped.push(format!("stream {} ({name}): {error:#}", binding.name()));
                        }
                    }
                    // Per-event cost over a long stream: once, in the last placement.
                    if index + 1 == placements.len() {
                        let (e, n, reps) = (endpoints.clone(), opts.scaling_events, opts.stream_reps);
                        match on_thread(load_at, move || async move {
                            stream::scaling(&e, binding, n, reps).await
                        }) {
                            Ok(scaling) => report.stream_scaling.push(scaling),
                            Err(error) => {
                                failed = true;
                                report.skipped.push(format!("stream scaling {}: {error:#}", binding.name()));
                            }
                        }
                    }
                }
            }
            drop((http_ceiling, grpc_ceiling, a2a, baseline, peer));
        }
    }

    if wants(Workload::Fanout) {
        for &binding in &opts.bindings {
            eprintln!("a2a-bench: fan-out to {} subscribers over {}", opts.subscribers, binding.name());
            let outcome = (|| {
                let a2a = UnderTest::start(
                    opts,
                    Placement::Anywhere,
                    &logs.join(format!("a2a-server-fanout-{}.log", binding.name())),
                )?;
                let endpoints = a2a.endpoints()?;
                if endpoints.get(binding).is_none() {
                    return Ok(None);
                }
                let (pid, subscribers, n) = (a2a.pid(), opts.subscribers, opts.stream_events);
                let result = on_thread(Placement::Anywhere, move || async move {
                    fanout::run(&endpoints, binding, subscribers, n, pid).await
                })?;
                Ok::<_, anyhow::Error>(Some(result))
            })();
            match outcome {
                Ok(Some(result)) => {
                    failed |= result.completed_subscribers != result.subscribers;
                    report.fanout.push(result);
                }
                Ok(None) => {
                    report.skipped.push(format!("fan-out {}: not offered by the server", binding.name()))
                }
                Err(error) => {
                    failed = true;
                    report.skipped.push(format!("fan-out {}: {error:#}", binding.name()));
                }
            }
        }
    }

    if wants(Workload::Push) {
        // One binding: notifications are HTTP POSTs whatever binding the tasks came over.
        let binding = opts.bindings[0];
        eprintln!(
            "a2a-bench: push notifications ({} events per task, over {})",
            opts.stream_events,
            binding.name()
        );
        let outcome = (|| {
            if opts.url.is_some() {
                anyhow::bail!(
                    "needs the started reference server (its webhooks go to loopback receivers here)"
                );
            }
            let a2a = UnderTest::start(opts, Placement::Anywhere, &logs.join("a2a-server-push.log"))?;
            let endpoints = a2a.endpoints()?;
            let (n, tasks) = (opts.stream_events, opts.push_tasks);
            on_thread(
                Placement::Anywhere,
                move || async move { push::run(&endpoints, binding, n, tasks).await },
            )
        })();
        match outcome {
            Ok(result) => report.push.push(result),
            Err(error) => {
                failed = true;
                report.skipped.push(format!("push: {error:#}"));
            }
        }
    }

    if wants(Workload::Store) {
        eprintln!("a2a-bench: stored tasks {:?} over {}", opts.store_sizes, opts.store_binding.name());
        match store_workload(opts, &logs) {
            Ok(result) => {
                failed |= result.points.iter().any(|p| p.get_task.errors + p.list_tasks.errors > 0);
                report.store = Some(result);
            }
            Err(error) => {
                failed = true;
                report.skipped.push(format!("store: {error:#}"));
            }
        }
    }

    report.targets = report::check_targets(&report);
    report.harness.elapsed_s = started.elapsed().as_secs_f64();
    Ok((report, failed))
}

/// Captures the replies the ceilings serve: one echo task and (for the streaming workload) one
/// `stream N`, as the server under test sends them.
pub(crate) fn capture_replies(
    endpoints: &Endpoints,
    binding: Binding,
    stream_events: Option<usize>,
    dir: &Path,
) -> anyhow::Result<()> {
    let endpoints = endpoints.clone();
    let replies = on_thread(Placement::Anywhere, move || async move {
        let client = endpoints.client(binding)?;
        let request = client::send_request(ECHO_TEXT);
        let send = client.send_message(&a2a_core::CallContext::v1(), request).await?;
        let stream = match stream_events {
            Some(n) => client::collect_stream(&*client, &format!("stream {n}")).await?,
            None => Vec::new(),
        };
        Replies::from_messages(&send, &stream)
    })?;
    replies.capture_dir(dir).context("writing the captured replies")
}

/// `rounds` A-B rounds of streams (A, baseline, B with a baseline server); each side's events/s
/// per round.
fn stream_rounds(
    opts: &RunOptions,
    a2a: &Endpoints,
    baseline: Option<&Endpoints>,
    ceiling: &Endpoints,
    binding: Binding,
    load_at: Placement,
) -> anyhow::Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    let mut a = Vec::new();
    let mut base = Vec::new();
    let mut b = Vec::new();
    let (n, reps) = (opts.stream_events, opts.stream_reps);
    for _ in 0..opts.rounds.max(1) {
        let e = a2a.clone();
        a.push(on_thread(load_at, move || async move { stream::segment(&e, binding, n, reps).await })?);
        if let Some(e) = baseline.cloned() {
            base.push(on_thread(
                load_at,
                move || async move { stream::segment(&e, binding, n, reps).await },
            )?);
        }
        let e = ceiling.clone();
        b.push(on_thread(load_at, move || async move { stream::segment(&e, binding, n, reps).await })?);
    }
    Ok((a, base, b))
}

fn store_workload(opts: &RunOptions, logs: &Path) -> anyhow::Result<StoreResult> {
    let a2a = UnderTest::start(opts, Placement::Anywhere, &logs.join("a2a-server-store.log"))?;
    let endpoints = a2a.endpoints()?;
    let binding = opts.store_binding;
    // Seed over gRPC when offered (the cheapest binding for the client), read over `binding`.
    let seeding = if endpoints.get(Binding::Grpc).is_some() { Binding::Grpc } else { binding };
    let pid = a2a.pid();
    let rss = move || pid.map(process::rss_bytes).transpose();
    let rss_before = rss()?;
    let mut ids: Vec<String> = Vec::new();
    let mut points = Vec::new();
    for &size in &opts.store_sizes {
        let need = size.saturating_sub(ids.len());
        let e = endpoints.clone();
        let mut batch = Vec::with_capacity(need);
        let (took, batch) = on_thread(Placement::Anywhere, move || async move {
            let client = e.client(seeding)?;
            let took = store::seed(&client, need, &mut batch).await?;
            Ok((took, batch))
        })?;
        ids.extend(batch);
        eprintln!("a2a-bench: seeded {} tasks ({need} in {:.1} s)", ids.len(), took.as_secs_f64());
        let rss_bytes = rss()?;
        let shared = Arc::new(std::mem::take(&mut ids));
        let (e, ids_for_reads, warmup, duration) =
            (endpoints.clone(), Arc::clone(&shared), opts.warmup, opts.duration);
        let (get_task, list_tasks) = on_thread(Placement::Anywhere, move || async move {
            let client = e.client(binding)?;
            Ok(store::measure_reads(&client, &ids_for_reads, warmup, duration).await)
        })?;
        ids = Arc::try_unwrap(shared).unwrap_or_else(|shared| (*shared).clone());
        points.push(StorePoint {
            tasks: ids.len(),
            seed_seconds: took.as_secs_f64(),
            seed_tasks_per_s: need as f64 / took.as_secs_f64().max(1e-9),
            rss_bytes,
            get_task,
            list_tasks,
        });
    }
    let per_task = store::rss_per_task(&points, store::rss_slope_sizes(&opts.store));
    Ok(StoreResult {
        binding,
        rss_before_bytes: rss_before,
        get_p99_growth: store::p99_growth(&points, |p| p.get_task.latency.p99_us),
        list_p99_growth: store::p99_growth(&points, |p| p.list_tasks.latency.p99_us),
        rss_per_task_bytes: per_task.map(|(bytes, _)| bytes),
        rss_per_task_between: per_task.map(|(_, between)| between),
        points,
    })
}
