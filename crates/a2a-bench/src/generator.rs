//! The load generators of the SendMessage workload: `wrk` (HTTP/1.1, JSON-RPC and REST) and
//! `h2load` (HTTP/2, gRPC), run as separate processes, or the harness's own clients (`send.rs`)
//! when the tools are missing or `--generator built-in` asks for them.
//!
//! Why external tools: the built-in generator (our clients on one tokio thread) tops out near
//! 55-60k requests/s on the machines here, below what a bare axum server answers on one core, so
//! a ceiling measured with it is the generator's ceiling (`docs/benchmarks.md`, "Load generators"). `wrk` and `h2load` are C
//! programs built for exactly this job. Every run still proves its generator was not the limit:
//! the generator's CPU time is read from `/proc` and reported (see `send::compare`).
//!
//! Every answer is checked, not only counted: `wrk` runs a Lua script whose `response` hook
//! counts the replies that are not 2xx or do not contain a completed task; `h2load` only sees HTTP
//! statuses (gRPC's status is a trailer), so each h2load run is preceded by the same request sent
//! with `nghttp`, whose trailers must say `grpc-status: 0`, and every reply of the timed run must
//! carry a DATA payload of that reply's size (an error reply has none). A run with a failed
//! request fails the workload.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use anyhow::{bail, Context as _};
use serde::Serialize;

use crate::client::{Binding, ReportName as _};
use crate::process::{self, Placement};
use crate::stats::{LatencySummary, Samples, STALL};
use crate::wire::WireRequest;

/// What `--generator` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GeneratorChoice {
    /// `wrk` and `h2load` when both are installed, else the built-in generator (with a warning).
    Auto,
    /// `wrk` and `h2load`; the run fails without them.
    External,
    /// The harness's own clients (may be load-generator-bound).
    BuiltIn,
}

/// The generator that drove one figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Generator {
    /// `wrk`, HTTP/1.1 keep-alive, one connection per request in flight.
    Wrk,
    /// `h2load`, one HTTP/2 connection with `c` streams in flight.
    H2load,
    /// This harness's clients (`JsonRpcClient`, `RestClient`, `GrpcClient`).
    BuiltIn,
}

impl Generator {
    /// Its name in the tables.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Generator::Wrk => "wrk",
            Generator::H2load => "h2load",
            Generator::BuiltIn => "built-in",
        }
    }

    /// The external tool for `binding`.
    pub(crate) fn external_for(binding: Binding) -> Generator {
        match binding {
            Binding::JsonRpc | Binding::Rest => Generator::Wrk,
            Binding::Grpc => Generator::H2load,
        }
    }
}

/// Where the external tools are (`PATH`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Tools {
    wrk: Option<PathBuf>,
    h2load: Option<PathBuf>,
    nghttp: Option<PathBuf>,
}

impl Tools {
    /// Looks the tools up on `PATH`.
    pub(crate) fn find() -> Self {
        Tools { wrk: on_path("wrk"), h2load: on_path("h2load"), nghttp: on_path("nghttp") }
    }

    /// The tools that are missing (the Debian packages `wrk` and `nghttp2-client` have them).
    pub(crate) fn missing(&self) -> Vec<&'static str> {
        [("wrk", &self.wrk), ("h2load", &self.h2load), ("nghttp", &self.nghttp)]
            .into_iter()
            .filter(|(_, path)| path.is_none())
            .map(|(name, _)| name)
            .collect()
    }

    /// Whether the tools for `binding` are all here.
    pub(crate) fn have(&self, generator: Generator) -> bool {
        match generator {
            Generator::Wrk => self.wrk.is_some(),
            Generator::H2load => self.h2load.is_some() && self.nghttp.is_some(),
            Generator::BuiltIn => true,
        }
    }
}

/// The first executable file called `name` in a directory of `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|candidate| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::metadata(candidate).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    })
}

/// How to load: requests in flight, how long, where the generator runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolLoad {
    /// Requests in flight.
    pub(crate) concurrency: usize,
    /// The timed window (wrk counts whole seconds: rounded up).
    pub(crate) duration: Duration,
    /// Where the generator runs (`taskset` when pinned).
    pub(crate) placement: Placement,
}

impl ToolLoad {
    /// Generator threads: one on a pinned core, else one per core (never more than requests in
    /// flight).
    pub(crate) fn threads(self) -> usize {
        let cores = match self.placement {
            Placement::Core(_) => 1,
            Placement::Anywhere => process::available_cpus(),
        };
        cores.clamp(1, self.concurrency.max(1))
    }
}

/// What one run of `wrk` or `h2load` measured.
#[derive(Debug, Clone)]
pub(crate) struct ToolRun {
    /// Replies that were 2xx and carried a completed task.
    pub(crate) ok: u64,
    /// Requests that failed (bad status or body, socket errors, timeouts).
    pub(crate) failed: u64,
    /// What the first failure looked like.
    pub(crate) first_failure: Option<String>,
    /// The measurement window the tool reports.
    pub(crate) window: Duration,
    /// Per-request latencies (h2load's log), or wrk's own summary of them.
    pub(crate) latency: Latency,
    /// CPU time (user + system) of the generator process, all threads.
    pub(crate) cpu: Option<Duration>,
    /// Its threads.
    pub(crate) threads: usize,
}

/// Latencies of one segment.
#[derive(Debug, Clone)]
pub(crate) enum Latency {
    /// Every request's latency.
    Samples(Samples),
    /// Only a summary (wrk exposes percentiles, not its histogram's buckets, to its scripts).
    Summary(LatencySummary),
}

/// Runs `program` with `args`, pinned to `placement`, to completion; returns its output and the
/// CPU time it used (this process's waited-for children's time before and after).
fn run_measured(
    program: &Path,
    args: &[String],
    placement: Placement,
) -> anyhow::Result<(Output, Option<Duration>)> {
    let mut command = match placement {
        Placement::Core(core) => {
            let mut command = Command::new("taskset");
            command.arg("-c").arg(core.to_string()).arg(program);
            command
        }
        Placement::Anywhere => Command::new(program),
    };
    command.args(args).stdin(Stdio::null());
    let before = process::children_cpu_time().ok();
    let output = command.output().with_context(|| format!("running {}", program.display()))?;
    let after = process::children_cpu_time().ok();
    let cpu = before.zip(after).map(|(before, after)| after.saturating_sub(before));
    Ok((output, cpu))
}

/// Whole seconds for wrk's `-d` (at least one).
fn wrk_seconds(duration: Duration) -> u64 {
    duration.as_secs_f64().ceil().max(1.0) as u64
}

/// The marker of the line the wrk script prints in `done`.
const WRK_LINE: &str = "A2A-BENCH-WRK";
/// The marker of the first failed reply the wrk script saw.
const WRK_FIRST_BAD: &str = "A2A-BENCH-WRK-FIRST-BAD";

/// The Lua script that makes `wrk` send `request` and check every reply for `expect`.
fn wrk_script(request: &WireRequest, expect: &str) -> String {
    let mut script = String::new();
    let _ = writeln!(script, "-- Written by a2a-bench (crates/a2a-bench/src/generator.rs) for one run.");
    let _ = writeln!(script, "wrk.method = \"POST\"");
    let _ = writeln!(script, "wrk.body = {}", lua_long_string(&String::from_utf8_lossy(&request.body)));
    for (name, value) in &request.headers {
        let _ = writeln!(script, "wrk.headers[ {} ] = {}", lua_long_string(name), lua_long_string(value));
    }
    let _ = writeln!(script, "local expect = {}", lua_long_string(expect));
    script.push_str(
        r#"local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) ok = 0; bad = 0 end
function response(status, headers, body)
  if status >= 200 and status < 300 and string.find(body, expect, 1, true) then
    ok = ok + 1
  else
    bad = bad + 1
    if first_bad == nil then first_bad = "HTTP " .. status .. ": " .. string.sub(body, 1, 300) end
  end
end
-- Requests slower than `limit` us, from wrk's percentiles (its buckets are not exposed).
local function over(latency, limit, total)
  if total == 0 or latency.max <= limit then return 0 end
  local lo, hi = 0.0, 100.0
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if latency:percentile(mid) <= limit then lo = mid else hi = mid end
  end
  return math.floor(total * (100 - hi) / 100 + 0.5)
end
function done(summary, latency, requests)
  local o, b, first = 0, 0, nil
  for _, t in ipairs(threads) do
    o = o + t:get("ok"); b = b + t:get("bad"); first = first or t:get("first_bad")
  end
  local e = summary.errors
  io.write(string.format("A2A-BENCH-WRK ok=%d bad=%d requests=%d duration_us=%d connect=%d read=%d write=%d timeout=%d p50=%d p99=%d max=%d over=%d\n",
    o, b, summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max, over(latency, STALL_US, summary.requests)))
  if first then io.write("A2A-BENCH-WRK-FIRST-BAD " .. string.gsub(first, "\n", " ") .. "\n") end
end
"#,
    );
    script.replace("STALL_US", &STALL.as_micros().to_string())
}

/// `text` as a Lua long string (`[==[...]==]`, with a level that does not occur in it).
fn lua_long_string(text: &str) -> String {
    let mut level = 0;
    while text.contains(&format!("]{}]", "=".repeat(level))) {
        level += 1;
    }
    let eq = "=".repeat(level);
    // A newline right after the opening bracket would be dropped by Lua: never start with one.
    format!("[{eq}[{text}]{eq}]")
}

/// Runs `wrk` with `request` against its URL; every reply must be 2xx and contain `expect`.
pub(crate) fn run_wrk(
    tools: &Tools,
    request: &WireRequest,
    expect: &str,
    load: ToolLoad,
    workdir: &Path,
) -> anyhow::Result<ToolRun> {
    let wrk = tools.wrk.as_deref().context("wrk is not installed")?;
    std::fs::create_dir_all(workdir)?;
    let script_path = workdir.join(format!("sendmessage-{}.lua", request.binding.name()));
    std::fs::write(&script_path, wrk_script(request, expect))?;
    let threads = load.threads();
    let args = vec![
        "-t".to_owned(),
        threads.to_string(),
        "-c".to_owned(),
        load.concurrency.max(threads).to_string(),
        "-d".to_owned(),
        format!("{}s", wrk_seconds(load.duration)),
        "-s".to_owned(),
        script_path.to_string_lossy().into_owned(),
        request.url.clone(),
    ];
    let (output, cpu) = run_measured(wrk, &args, load.placement)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "wrk failed ({}): {}{}",
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let mut run = parse_wrk(&stdout).with_context(|| {
        format!("reading wrk's output:\n{stdout}{}", String::from_utf8_lossy(&output.stderr))
    })?;
    run.cpu = cpu;
    run.threads = threads;
    Ok(run)
}

/// Reads what the script printed.
fn parse_wrk(stdout: &str) -> anyhow::Result<ToolRun> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(WRK_LINE) && !l.starts_with(WRK_FIRST_BAD))
        .context("the wrk script printed no summary")?;
    let field = |name: &str| -> anyhow::Result<u64> {
        let prefix = format!("{name}=");
        line.split_whitespace()
            .find_map(|word| word.strip_prefix(&prefix))
            .with_context(|| format!("no {name} in the wrk summary"))?
            .parse::<u64>()
            .with_context(|| format!("{name} in the wrk summary"))
    };
    let socket_errors = field("connect")? + field("read")? + field("write")? + field("timeout")?;
    let (ok, bad) = (field("ok")?, field("bad")?);
    let mut first_failure =
        stdout.lines().find_map(|l| l.strip_prefix(WRK_FIRST_BAD)).map(|s| s.trim().to_owned());
    if first_failure.is_none() && socket_errors > 0 {
        first_failure = Some(format!("{socket_errors} socket errors (connect, read, write, timeout)"));
    }
    let us = |name: &str| field(name).map(|v| v as f64);
    Ok(ToolRun {
        ok,
        failed: bad + socket_errors,
        first_failure,
        window: Duration::from_micros(field("duration_us")?),
        latency: Latency::Summary(LatencySummary {
            samples: usize::try_from(ok + bad).unwrap_or(usize::MAX),
            p50_us: us("p50")?,
            p99_us: us("p99")?,
            max_us: us("max")?,
            over_50ms: usize::try_from(field("over")?).unwrap_or(usize::MAX),
        }),
        cpu: None,
        threads: 1,
    })
}

/// Sends `request` once with `nghttp` and checks the answer is a gRPC success; returns the size
/// of its DATA payload (the length-prefixed reply).
pub(crate) fn verify_grpc(tools: &Tools, request: &WireRequest, workdir: &Path) -> anyhow::Result<u64> {
    let nghttp = tools.nghttp.as_deref().context("nghttp is not installed")?;
    let body = body_file(request, workdir)?;
    let mut args = vec!["-v".to_owned(), "-d".to_owned(), body.to_string_lossy().into_owned()];
    for (name, value) in &request.headers {
        args.extend(["-H".to_owned(), format!("{name}: {value}")]);
    }
    args.push(request.url.clone());
    let (output, _) = run_measured(nghttp, &args, Placement::Anywhere)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    parse_nghttp(&stdout).with_context(|| {
        format!(
            "the gRPC SendMessage h2load would send to {} was not answered OK ({}):\n{}{}",
            request.url,
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        )
    })
}

/// From `nghttp -v` output: the received DATA bytes, if the response was `:status: 200` with
/// `grpc-status: 0`.
fn parse_nghttp(stdout: &str) -> anyhow::Result<u64> {
    let received = |name: &str| {
        stdout.lines().filter(|l| l.contains("recv")).find_map(|l| {
            let at = l.find(&format!("{name}: "))?;
            Some(l[at + name.len() + 2..].trim().to_owned())
        })
    };
    match received(":status").as_deref() {
        Some("200") => {}
        other => bail!("HTTP status {other:?}"),
    }
    match received("grpc-status").as_deref() {
        Some("0") => {}
        Some(status) => {
            bail!("grpc-status {status}: {}", received("grpc-message").unwrap_or_default())
        }
        None => bail!("no grpc-status in the reply"),
    }
    let data: u64 = stdout
        .lines()
        .filter(|l| l.contains("recv DATA frame"))
        .filter_map(|l| {
            let at = l.find("length=")? + "length=".len();
            l[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse::<u64>().ok()
        })
        .sum();
    if data == 0 {
        bail!("no reply message (no DATA)");
    }
    Ok(data)
}

/// Writes the request body into `workdir` (h2load and nghttp read it from a file).
fn body_file(request: &WireRequest, workdir: &Path) -> anyhow::Result<PathBuf> {
    std::fs::create_dir_all(workdir)?;
    let path = workdir.join(format!("sendmessage-{}.bin", request.binding.name()));
    std::fs::write(&path, &request.body)?;
    Ok(path)
}

/// The share of a reply's DATA bytes a run must average per reply: replies of one server differ
/// by a few bytes (ids, timestamps); a trailers-only error reply has none.
const MIN_DATA_SHARE: f64 = 0.97;

/// Runs `h2load` with `request`; `reply_data` is the DATA size of one good reply
/// ([`verify_grpc`]).
pub(crate) fn run_h2load(
    tools: &Tools,
    request: &WireRequest,
    reply_data: u64,
    load: ToolLoad,
    workdir: &Path,
) -> anyhow::Result<ToolRun> {
    let h2load = tools.h2load.as_deref().context("h2load is not installed")?;
    let body = body_file(request, workdir)?;
    let log = workdir.join(format!("h2load-{}.tsv", request.binding.name()));
    let _ = std::fs::remove_file(&log);
    // One connection with `c` streams, like the built-in gRPC client's one channel.
    let mut args = vec![
        "-c".to_owned(),
        "1".to_owned(),
        "-t".to_owned(),
        "1".to_owned(),
        "-m".to_owned(),
        load.concurrency.max(1).to_string(),
        "-D".to_owned(),
        format!("{}ms", load.duration.as_millis().max(1)),
        "-d".to_owned(),
        body.to_string_lossy().into_owned(),
        format!("--log-file={}", log.display()),
    ];
    for (name, value) in &request.headers {
        args.extend(["-H".to_owned(), format!("{name}: {value}")]);
    }
    args.push(request.url.clone());
    let (output, cpu) = run_measured(h2load, &args, load.placement)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        bail!(
            "h2load failed ({}): {}{}",
            output.status,
            stdout.trim(),
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    let summary = parse_h2load(&stdout).with_context(|| format!("reading h2load's output:\n{stdout}"))?;
    let log_text = std::fs::read_to_string(&log).with_context(|| format!("reading {}", log.display()))?;
    let mut samples = Samples::with_capacity(log_text.len() / 24);
    for line in log_text.lines() {
        let mut columns = line.split('\t').skip(1);
        if let (Some(status), Some(Ok(micros))) = (columns.next(), columns.next().map(|m| m.trim().parse())) {
            if status.trim().starts_with('2') {
                samples.push(Duration::from_micros(micros));
            }
        }
    }
    // h2load counts 2xx and 3xx as succeeded, everything else (4xx, 5xx, resets, timeouts) as failed.
    let answered = summary.succeeded.saturating_sub(summary.redirected);
    let mut failed = summary.failed + summary.redirected;
    let mut first_failure = (failed > 0).then(|| {
        format!(
            "{} failed ({} of them without an HTTP answer), {} answered 3xx",
            summary.failed, summary.errored, summary.redirected
        )
    });
    let mut ok = answered;
    if (summary.data_bytes as f64) < answered as f64 * reply_data as f64 * MIN_DATA_SHARE {
        // Some replies carried no message: gRPC errors, whose status h2load does not read.
        let missing = answered.saturating_sub(summary.data_bytes / reply_data.max(1)).max(1);
        failed += missing;
        ok = ok.saturating_sub(missing);
        first_failure.get_or_insert_with(|| {
            format!(
                "{} DATA bytes for {answered} replies of {reply_data} bytes: about {missing} replies carried \
                 no message (a gRPC error)",
                summary.data_bytes
            )
        });
    }
    Ok(ToolRun {
        ok,
        failed,
        first_failure,
        window: summary.window,
        latency: Latency::Samples(samples),
        cpu,
        threads: 1,
    })
}

/// The lines of h2load's report the harness reads.
#[derive(Debug, Default, PartialEq)]
struct H2loadSummary {
    window: Duration,
    succeeded: u64,
    failed: u64,
    errored: u64,
    redirected: u64,
    data_bytes: u64,
}

fn parse_h2load(stdout: &str) -> anyhow::Result<H2loadSummary> {
    let line = |prefix: &str| {
        stdout
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix(prefix))
            .with_context(|| format!("no `{prefix}` line"))
    };
    // "requests: 75000 total, 75000 started, 75000 done, 75000 succeeded, 0 failed, 0 errored, 0 timeout"
    let counted = |text: &str, what: &str| -> anyhow::Result<u64> {
        text.split(',')
            .map(str::trim)
            .find_map(|part| part.strip_suffix(what).map(str::trim))
            .with_context(|| format!("no `{what}` count"))?
            .parse::<u64>()
            .with_context(|| format!("the `{what}` count"))
    };
    let requests = line("requests:")?;
    let statuses = line("status codes:")?;
    // "traffic: 8.32MB (8724000) total, 150.00KB (153600) headers (space savings 95.00%), 7.50MB (7864320) data"
    let traffic = line("traffic:")?;
    let data_bytes = traffic
        .rsplit_once(" data")
        .and_then(|(before, _)| before.rsplit_once('('))
        .and_then(|(_, n)| n.trim_end_matches(')').parse::<u64>().ok())
        .context("no data bytes in the traffic line")?;
    // "finished in 3.00s, 25000.00 req/s, 5.00MB/s"
    let finished = line("finished in")?;
    let window = finished
        .split(',')
        .next()
        .and_then(|t| {
            let t = t.trim();
            if let Some(ms) = t.strip_suffix("ms") {
                ms.parse::<f64>().ok().map(|v| v / 1e3)
            } else {
                t.strip_suffix('s').and_then(|s| s.parse::<f64>().ok())
            }
        })
        .context("no duration in the `finished in` line")?;
    Ok(H2loadSummary {
        window: Duration::from_secs_f64(window),
        succeeded: counted(requests, "succeeded")?,
        failed: counted(requests, "failed")?,
        errored: counted(requests, "errored")? + counted(requests, "timeout")?,
        redirected: counted(statuses, "3xx")?,
        data_bytes,
    })
}

/// Runs the tool for `request` once, unmeasured, to warm the server up (`wrk` has no warm-up of
/// its own; `h2load`'s would fall inside the server's measured CPU window).
pub(crate) fn warm_up(
    tools: &Tools,
    request: &WireRequest,
    reply_data: Option<u64>,
    expect: &str,
    load: ToolLoad,
    workdir: &Path,
) -> anyhow::Result<()> {
    let run = match reply_data {
        Some(reply_data) => run_h2load(tools, request, reply_data, load, workdir)?,
        None => run_wrk(tools, request, expect, load, workdir)?,
    };
    if run.failed > 0 {
        bail!(
            "{} of {} warm-up requests failed; first: {}",
            run.failed,
            run.ok + run.failed,
            run.first_failure.unwrap_or_default()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lua_long_strings_pick_a_level_absent_from_the_text() {
        assert_eq!(lua_long_string("ab"), "[[ab]]");
        assert_eq!(lua_long_string("a]]b"), "[=[a]]b]=]");
        assert_eq!(lua_long_string("]]]=]"), "[==[]]]=]]==]");
    }

    #[test]
    fn wrk_summary_counts_bad_replies_and_socket_errors_as_failures() {
        let out = "Running 1s test\nA2A-BENCH-WRK ok=90 bad=7 requests=97 duration_us=1000123 connect=0 read=2 write=0 timeout=1 p50=110 p99=900 max=52000 over=1\nA2A-BENCH-WRK-FIRST-BAD HTTP 200: {\"error\":{}}\n";
        let run = parse_wrk(out).unwrap();
        assert_eq!((run.ok, run.failed), (90, 10));
        assert_eq!(run.first_failure.as_deref(), Some("HTTP 200: {\"error\":{}}"));
        assert_eq!(run.window, Duration::from_micros(1_000_123));
        let Latency::Summary(latency) = run.latency else { panic!("wrk gives a summary") };
        assert_eq!((latency.p50_us, latency.max_us, latency.over_50ms), (110.0, 52000.0, 1));
        assert!(parse_wrk("Running 1s test\n").is_err());
    }

    #[test]
    fn h2load_report_lines_are_read() {
        let out = "finished in 3.00s, 25000.00 req/s, 5.00MB/s
requests: 75000 total, 75000 started, 75000 done, 74990 succeeded, 10 failed, 10 errored, 0 timeout
status codes: 74990 2xx, 0 3xx, 0 4xx, 10 5xx
traffic: 8.32MB (8724000) total, 150.00KB (153600) headers (space savings 95.00%), 7.50MB (7864320) data
";
        let summary = parse_h2load(out).unwrap();
        assert_eq!(
            summary,
            H2loadSummary {
                window: Duration::from_secs(3),
                succeeded: 74990,
                failed: 10,
                errored: 10,
                redirected: 0,
                data_bytes: 7_864_320
            }
        );
        assert!(parse_h2load("finished in 3.00s, 1 req/s\n").is_err());
    }

    #[test]
    fn nghttp_verification_needs_status_200_grpc_status_0_and_a_message() {
        let ok = "[  0.001] recv (stream_id=13) :status: 200
[  0.001] recv HEADERS frame <length=40, flags=0x04, stream_id=13>
[  0.002] recv DATA frame <length=270, flags=0x00, stream_id=13>
[  0.002] recv (stream_id=13) grpc-status: 0
";
        assert_eq!(parse_nghttp(ok).unwrap(), 270);
        let error = "[  0.001] recv (stream_id=13) :status: 200
[  0.001] recv (stream_id=13) grpc-status: 3
[  0.001] recv (stream_id=13) grpc-message: bad
";
        assert!(parse_nghttp(error).unwrap_err().to_string().contains("grpc-status 3: bad"));
        assert!(parse_nghttp("[  0.001] recv (stream_id=13) :status: 404\n").is_err());
    }

    #[test]
    fn pinned_generators_get_one_thread_and_never_more_threads_than_requests() {
        let load =
            |concurrency, placement| ToolLoad { concurrency, duration: Duration::from_secs(1), placement };
        assert_eq!(load(64, Placement::Core(1)).threads(), 1);
        assert_eq!(load(1, Placement::Anywhere).threads(), 1);
        assert_eq!(wrk_seconds(Duration::from_millis(200)), 1);
        assert_eq!(wrk_seconds(Duration::from_millis(3000)), 3);
    }
}
