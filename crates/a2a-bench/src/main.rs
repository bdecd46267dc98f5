//! `a2a-bench`: the benchmark harness (run it with `cargo xtask bench`).
//!
//! - `a2a-bench run`: drives an A2A server over JSON-RPC, REST and gRPC and measures every figure
//!   against a ceiling in the same run. SendMessage is driven by `wrk` (JSON-RPC, REST) and
//!   `h2load` (gRPC) when they are installed, else by this workspace's clients (with a warning:
//!   see [`generator`]); the other workloads always use the clients. Without `--url` it starts the
//!   reference server (`--server-bin`) itself, as a separate process, so its memory and CPU time
//!   can be read from `/proc`; `--url` with `--server-cmd` starts another server the same way.
//!   Writes a JSON report (`--out`) and prints tables.
//! - `a2a-bench soak --minutes N [--rate R]`: a long mixed load over the three bindings that
//!   judges leaks (memory, file descriptors, executions, streams, task runtimes), errors and push
//!   delivery, not speed (see [`soak`]).
//! - `a2a-bench ceiling-http` / `ceiling-grpc`: the bare axum and bare tonic servers answering
//!   with the bytes an A2A server sends (started by `run`; see [`ceiling`]).
//!
//! The workloads assume the demo agent's skills (`echo`, `stream N`, `wait N`) for the streaming
//! and fan-out figures; SendMessage and the store reads work against any agent that answers a
//! text message with a completed task.

mod ceiling;
mod client;
mod drive;
mod fanout;
mod generator;
mod instructions;
mod load;
mod process;
mod push;
mod report;
mod run;
mod send;
mod soak;
mod stats;
mod store;
mod stream;
mod wire;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Parser, Subcommand};

use crate::client::Binding;
use crate::client::ReportName as _;
use crate::run::{PinMode, RunOptions, Workload};

#[derive(Debug, Parser)]
#[command(version, about = "Benchmark harness for A2A servers, with bare axum/tonic ceilings")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Runs the workloads and writes the report.
    Run(Box<RunArgs>),
    /// The bare axum ceiling (JSON-RPC `POST /`, REST `POST /message:send` and `:stream`).
    CeilingHttp(CeilingArgs),
    /// The bare tonic ceiling (`lf.a2a.v1.A2AService/SendMessage` and `SendStreamingMessage`).
    CeilingGrpc(CeilingArgs),
    /// A long mixed load against the reference server, judging leaks and errors (exit 1 when a
    /// judgement fails).
    Soak(SoakArgs),
    /// Sends an exact number of requests and exits: a driver for profiling a server (e.g. under
    /// `valgrind --tool=callgrind`, where instruction counts per request are stable).
    Drive(DriveArgs),
    /// Counts the instructions a server executes per SendMessage under callgrind, beside the bare
    /// ceiling's count for the same replies (and a baseline build's): the figure the machine's
    /// noise cannot move. Needs valgrind.
    Instructions(InstructionsArgs),
}

#[derive(Debug, clap::Args)]
struct InstructionsArgs {
    /// The reference server binary (default: `a2a-server` next to this executable).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// Another build of the server, counted the same way (the change is reported).
    #[arg(long)]
    baseline_bin: Option<PathBuf>,
    /// The servers' store (`--store` of a2a-server).
    #[arg(long, default_value = "memory")]
    store: String,
    /// Count a baseline with this store (the same binary unless `--baseline-bin`): e.g.
    /// `--store sqlite --baseline-store memory` for what the default store costs.
    #[arg(long)]
    baseline_store: Option<String>,
    /// A peer A2A server (e.g. another SDK's example) counted the same way: its agent card's URL.
    #[arg(long, requires = "peer_cmd")]
    peer_url: Option<String>,
    /// The command that serves `--peer-url` (split at whitespace, no shell), started under
    /// callgrind by the harness once per binding.
    #[arg(long, requires = "peer_url")]
    peer_cmd: Option<String>,
    /// The bindings, comma-separated.
    #[arg(long, value_delimiter = ',', value_parser = parse_binding, default_value = "jsonrpc,rest,grpc")]
    bindings: Vec<Binding>,
    /// Requests counted per server and binding.
    #[arg(long, default_value_t = 1000)]
    requests: usize,
    /// Requests sent before the count.
    #[arg(long, default_value_t = 200)]
    warmup: usize,
    /// Where to write the JSON report (callgrind's files, the logs and the replies go to
    /// `instructions/` beside it).
    #[arg(long, default_value = "target/bench/instructions.json")]
    out: PathBuf,
}

#[derive(Debug, clap::Args)]
struct DriveArgs {
    /// The A2A server (its agent card names the bindings).
    #[arg(long)]
    url: String,
    /// The binding to drive.
    #[arg(long, value_parser = parse_binding, default_value = "jsonrpc")]
    binding: Binding,
    /// How many requests (streams, for `stream`).
    #[arg(long, default_value_t = 1000)]
    requests: usize,
    /// Requests in flight.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// `echo` (SendMessage), `stream` (SendStreamingMessage of `stream N`), `get` (GetTask of one
    /// echo task) or `list` (ListTasks, the first page of 50).
    #[arg(long, default_value = "echo")]
    what: String,
    /// N for `stream`.
    #[arg(long, default_value_t = 1000)]
    events: usize,
    /// The URL is a ceiling (JSON-RPC and REST at its root, or gRPC), which serves no agent card.
    #[arg(long)]
    ceiling: bool,
}

#[derive(Debug, clap::Args)]
struct SoakArgs {
    /// How long the load runs, in minutes (fractions allowed: 0.25 is a 15-second smoke run).
    #[arg(long, default_value_t = 10.0)]
    minutes: f64,
    /// Operations started per second, cycling through send, stream, push, subscribe+cancel,
    /// send+get, cancel and a dropped stream, and through the three bindings.
    #[arg(long, default_value_t = 20.0)]
    rate: f64,
    /// Seconds between samples (default 5, less for runs shorter than 75 s: at least 15 samples).
    #[arg(long)]
    sample_secs: Option<f64>,
    /// The reference server binary (default: `a2a-server` next to this executable).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// Where to write the JSON report (the server's log goes next to it, `soak-server.log`).
    #[arg(long, default_value = "target/soak/report.json")]
    out: PathBuf,
    /// Echo tasks created before the load, so that SQLite's bounded page caches are full before
    /// memory is judged (default: 30000 for runs of 5 minutes or more, else 0).
    #[arg(long)]
    prefill: Option<usize>,
}

#[derive(Debug, clap::Args)]
struct CeilingArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: String,
    /// Directory with the captured replies (`send.json`, `stream.jsonl`).
    #[arg(long)]
    replies: PathBuf,
}

#[derive(Debug, clap::Args)]
struct RunArgs {
    /// Benchmark the A2A server at this URL (its agent card names the bindings) instead of
    /// starting the reference server. Memory figures, CPU figures and pinning need a local
    /// server: see `--server-cmd`.
    #[arg(long)]
    url: Option<String>,
    /// With `--url`: the command that serves it (program and arguments, split at whitespace, no
    /// shell), e.g. a peer SDK's example server. The harness starts it for each placement (pinned
    /// to core 0 like its own server) and stops it after, and reads its CPU time and memory.
    #[arg(long, requires = "url")]
    server_cmd: Option<String>,
    /// A peer A2A server (e.g. another SDK's example) measured in the same SendMessage rounds as
    /// ours, against ceilings replaying its own replies: its agent card's URL.
    #[arg(long)]
    peer_url: Option<String>,
    /// The command that serves `--peer-url` (split at whitespace, no shell), started and pinned
    /// by the harness like its own server, so its CPU time is read too.
    #[arg(long, requires = "peer_url")]
    peer_cmd: Option<String>,
    /// The SendMessage load generator: `auto` (wrk and h2load when installed, else the built-in
    /// one with a warning), `external` (fail without them) or `built-in`.
    #[arg(long, value_enum, default_value = "auto")]
    generator: generator::GeneratorChoice,
    /// The reference server binary (default: `a2a-server` next to this executable).
    #[arg(long)]
    server_bin: Option<PathBuf>,
    /// Another build of the server (e.g. before a change), measured in the same interleaved
    /// rounds as `--server-bin` for SendMessage and streaming: before/after ratios that the
    /// machine's drift cannot skew.
    #[arg(long)]
    baseline_bin: Option<PathBuf>,
    /// The started server's store (its `--store`): `sqlite` (the default, in a fresh data
    /// directory per start), `memory`, or a `postgres://` URL (the database must exist).
    #[arg(long, default_value = "sqlite")]
    store: String,
    /// Measure a baseline server with this store in the same interleaved rounds (same binary
    /// unless `--baseline-bin`): e.g. `--baseline-store memory` for the SQLite/memory ratio.
    #[arg(long)]
    baseline_store: Option<String>,
    /// Where to write the JSON report.
    #[arg(long, default_value = "target/bench/results.json")]
    out: PathBuf,
    /// A smoke run of a few seconds: every workload at tiny sizes.
    #[arg(long)]
    quick: bool,
    /// Warm-up before each timed segment, in seconds.
    #[arg(long)]
    warmup: Option<f64>,
    /// Length of each timed segment, in seconds.
    #[arg(long)]
    duration: Option<f64>,
    /// A-B rounds per comparison (A2A server, then ceiling, repeated); figures are their medians.
    #[arg(long)]
    rounds: Option<usize>,
    /// SendMessage concurrencies.
    #[arg(long, value_delimiter = ',')]
    concurrency: Option<Vec<usize>>,
    /// Bindings to drive.
    #[arg(long, value_delimiter = ',', value_parser = parse_binding)]
    bindings: Option<Vec<Binding>>,
    /// Workloads to run.
    #[arg(long, value_delimiter = ',', value_enum)]
    workloads: Option<Vec<Workload>>,
    /// Placements: pinned (server on core 0, load on core 1), unpinned, or both.
    #[arg(long, value_enum, default_value = "auto")]
    pin: PinMode,
    /// Artifact events of the streaming and fan-out workloads.
    #[arg(long)]
    stream_events: Option<usize>,
    /// Artifact events of the long stream measuring per-event cost growth.
    #[arg(long)]
    scaling_events: Option<usize>,
    /// Subscribers of the fan-out workload.
    #[arg(long)]
    subscribers: Option<usize>,
    /// Store sizes at which GetTask / ListTasks are measured.
    #[arg(long, value_delimiter = ',')]
    store_sizes: Option<Vec<usize>>,
    /// The binding of the store reads.
    #[arg(long, value_parser = parse_binding, default_value = "jsonrpc")]
    store_binding: Binding,
}

fn parse_binding(value: &str) -> Result<Binding, String> {
    Binding::ALL
        .into_iter()
        .find(|b| b.name().eq_ignore_ascii_case(value))
        .ok_or_else(|| format!("unknown binding `{value}` (jsonrpc, rest, grpc)"))
}

impl RunArgs {
    fn options(self) -> anyhow::Result<RunOptions> {
        let quick = self.quick;
        let pick = |full: f64, smoke: f64| if quick { smoke } else { full };
        let server_bin = server_bin(self.server_bin)?;
        if self.url.is_none() && !server_bin.exists() {
            anyhow::bail!(
                "no server binary at {} (build a2a-server or pass --server-bin / --url)",
                server_bin.display()
            );
        }
        Ok(RunOptions {
            url: self.url,
            server_cmd: self.server_cmd.map(|cmd| cmd.split_whitespace().map(str::to_owned).collect()),
            generator: self.generator,
            peer_url: self.peer_url,
            peer_cmd: self.peer_cmd.map(|cmd| cmd.split_whitespace().map(str::to_owned).collect()),
            server_bin,
            baseline_bin: self.baseline_bin,
            store: self.store,
            baseline_store: self.baseline_store,
            out: self.out,
            quick,
            warmup: Duration::from_secs_f64(self.warmup.unwrap_or(pick(1.0, 0.05))),
            duration: Duration::from_secs_f64(self.duration.unwrap_or(pick(3.0, 0.2))),
            rounds: self.rounds.unwrap_or(if quick { 1 } else { 3 }),
            concurrency: self.concurrency.unwrap_or_else(|| if quick { vec![4] } else { vec![1, 16, 64] }),
            bindings: self.bindings.unwrap_or_else(|| Binding::ALL.to_vec()),
            workloads: self.workloads.unwrap_or_else(|| {
                vec![Workload::Send, Workload::Stream, Workload::Fanout, Workload::Push, Workload::Store]
            }),
            pin: self.pin,
            stream_events: self.stream_events.unwrap_or(if quick { 50 } else { 1000 }),
            push_tasks: if quick { 4 } else { 16 },
            stream_reps: if quick { 1 } else { 5 },
            scaling_events: self.scaling_events.unwrap_or(if quick { 200 } else { 10_000 }),
            subscribers: self.subscribers.unwrap_or(if quick { 20 } else { 1000 }),
            store_sizes: self.store_sizes.unwrap_or_else(|| {
                if quick {
                    vec![100, 300]
                } else {
                    vec![10_000, 100_000, 1_000_000]
                }
            }),
            store_binding: self.store_binding,
        })
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run(args) => run_harness(*args),
        Command::CeilingHttp(args) => serve_ceiling(args, "ceiling-http"),
        Command::CeilingGrpc(args) => serve_ceiling(args, "ceiling-grpc"),
        Command::Drive(args) => drive(args),
        Command::Instructions(args) => count_instructions(args),
        Command::Soak(args) => soak_run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("a2a-bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `report` as JSON to `out` (its directory made if missing) and prints `tables`.
fn write_report(out: &std::path::Path, report: &impl serde::Serialize, tables: &str) -> anyhow::Result<()> {
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let json = serde_json::to_vec_pretty(report)?;
    std::fs::write(out, json).with_context(|| format!("writing {}", out.display()))?;
    print!("{tables}");
    println!("\nreport: {}", out.display());
    Ok(())
}

fn run_harness(args: RunArgs) -> anyhow::Result<ExitCode> {
    let options = args.options()?;
    let (report, failed) = run::run(&options)?;
    write_report(&options.out, &report, &report::tables(&report))?;
    if failed {
        eprintln!("a2a-bench: some requests or workloads failed (see the report)");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

/// The reference server binary: `given`, else `a2a-server` next to this executable.
fn server_bin(given: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match given {
        Some(path) => Ok(path),
        None => {
            Ok(process::this_exe()?.with_file_name(format!("a2a-server{}", std::env::consts::EXE_SUFFIX)))
        }
    }
}

fn soak_run(args: SoakArgs) -> anyhow::Result<ExitCode> {
    let options = soak::SoakOptions {
        server_bin: server_bin(args.server_bin)?,
        minutes: args.minutes,
        rate: args.rate,
        sample_every: args.sample_secs.map(Duration::from_secs_f64),
        out: args.out,
        prefill: args.prefill.unwrap_or(if args.minutes >= 5.0 { 30_000 } else { 0 }),
    };
    if soak::run(&options)? {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("a2a-bench soak: a judgement failed (see the table and the report)");
        Ok(ExitCode::FAILURE)
    }
}

fn serve_ceiling(args: CeilingArgs, kind: &str) -> anyhow::Result<ExitCode> {
    let replies = ceiling::Replies::load(&args.replies)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(&args.listen).await?;
        println!("{kind} listening on http://{}", listener.local_addr()?);
        if kind == "ceiling-grpc" {
            ceiling::serve_grpc(listener, replies).await
        } else {
            ceiling::serve_http(listener, replies).await
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

fn count_instructions(args: InstructionsArgs) -> anyhow::Result<ExitCode> {
    let options = instructions::Options {
        server_bin: server_bin(args.server_bin)?,
        baseline_bin: args.baseline_bin,
        store: args.store,
        baseline_store: args.baseline_store,
        peer: args.peer_url.zip(args.peer_cmd.map(|cmd| cmd.split_whitespace().map(str::to_owned).collect())),
        bindings: args.bindings,
        requests: args.requests.max(1),
        warmup: args.warmup,
        out: args.out,
    };
    let report = instructions::run(&options)?;
    write_report(&options.out, &report, &instructions::table(&report))?;
    Ok(ExitCode::SUCCESS)
}

fn drive(args: DriveArgs) -> anyhow::Result<ExitCode> {
    let what = drive::What::parse(&args.what, args.events)?;
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    runtime.block_on(async move {
        let endpoints = if args.ceiling {
            client::Endpoints::ceiling(&args.url, &args.url)
        } else {
            client::Endpoints::discover(&args.url).await?.0
        };
        let driver = drive::Driver::new(&endpoints, args.binding).await?;
        let elapsed = driver.run(what, args.requests, args.concurrency).await?;
        println!(
            "{} {} requests over {} in {:.3} s ({:.0}/s)",
            args.requests,
            args.what,
            args.binding.name(),
            elapsed.as_secs_f64(),
            args.requests as f64 / elapsed.as_secs_f64()
        );
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
