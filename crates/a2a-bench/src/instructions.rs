//! `a2a-bench instructions`: the instructions a server executes per SendMessage, counted by
//! callgrind, beside the bare ceiling's count for the same bytes (issue 14).
//!
//! Wall-clock figures on a shared two-core machine move by ±5% between rounds; an instruction
//! count does not: the same binary answering the same requests executes the same instructions
//! whatever else the machine is doing (`docs/benchmarks.md`, "Method"). So this is the figure a
//! change is judged by before the load runs, and the one to quote beside them.
//!
//! For each binding, each subject (the server under test, an optional baseline (another build of
//! it, or the same one on another store), an optional peer (another A2A server, e.g. a2a-rs's
//! `helloworld-server`, started from its command), and the ceiling: `ceiling-http` for JSON-RPC
//! and REST, `ceiling-grpc` for gRPC, answering with replies captured from the server) is started under `valgrind --tool=callgrind`, sent
//! `--warmup` echo requests (connections, caches and the allocator warm), its counters zeroed
//! (`callgrind_control -z`), sent `--requests` more, one at a time over one connection, and its
//! counters dumped (`callgrind_control -d`): the dump's total over `--requests` is the figure.
//! Everything the process executes counts: the runtime's threads, the store's writer, the
//! allocator, the kernel's vDSO. The driver runs in this process, outside valgrind.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use serde::Serialize;

use crate::client::{Binding, Endpoints, ReportName as _};
use crate::drive::{Driver, What};
use crate::process::{self, Placement, ServerProcess};
use crate::run::{capture_replies, on_thread};

/// What to count.
#[derive(Debug)]
pub(crate) struct Options {
    /// The server under test (the reference server's binary).
    pub(crate) server_bin: PathBuf,
    /// Another build of it, counted the same way (before / after a change).
    pub(crate) baseline_bin: Option<PathBuf>,
    /// The servers' `--store`.
    pub(crate) store: String,
    /// The baseline's `--store`, when it differs (the same binary unless `baseline_bin`).
    pub(crate) baseline_store: Option<String>,
    /// A peer server: the URL of its agent card and the command that serves it.
    pub(crate) peer: Option<(String, Vec<String>)>,
    pub(crate) bindings: Vec<Binding>,
    /// Requests counted per subject.
    pub(crate) requests: usize,
    /// Requests sent before the count.
    pub(crate) warmup: usize,
    /// The JSON report; the logs, replies and callgrind files go to `instructions/` beside it.
    pub(crate) out: PathBuf,
}

/// The counts, per binding.
#[derive(Debug, Serialize)]
pub(crate) struct Report {
    pub(crate) requests: usize,
    pub(crate) warmup: usize,
    pub(crate) store: String,
    pub(crate) server_bin: String,
    pub(crate) baseline_bin: Option<String>,
    pub(crate) baseline_store: Option<String>,
    /// The peer's command.
    pub(crate) peer: Option<String>,
    pub(crate) rows: Vec<Row>,
}

/// Instructions per request of one binding.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    pub(crate) binding: &'static str,
    pub(crate) server: f64,
    pub(crate) baseline: Option<f64>,
    pub(crate) peer: Option<f64>,
    pub(crate) ceiling: f64,
}

impl Row {
    /// The ceiling's count over the server's: the share of the ceiling's speed the server would
    /// reach if instructions were all that cost (the harness's `cpu-r` measures the same under load).
    pub(crate) fn ratio(&self) -> f64 {
        self.ceiling / self.server
    }
}

/// How long a dump may take to appear after `callgrind_control -d`.
const DUMP_TIMEOUT: Duration = Duration::from_secs(60);

pub(crate) fn run(opts: &Options) -> anyhow::Result<Report> {
    check_tools()?;
    let dir = opts.out.parent().unwrap_or(Path::new(".")).join("instructions");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let replies = dir.join("replies");
    capture(opts, &replies, &dir)?;
    let exe = process::this_exe()?;
    let replies = replies.to_string_lossy().into_owned();
    let mut rows = Vec::new();
    let has_baseline = opts.baseline_bin.is_some() || opts.baseline_store.is_some();
    for &binding in &opts.bindings {
        let args = server_args(&opts.store, &dir, "a2a-server")?;
        let server = count(opts, &dir, "a2a-server", &opts.server_bin, &args, Serves::Printed, binding)?;
        let baseline = if has_baseline {
            let bin = opts.baseline_bin.as_ref().unwrap_or(&opts.server_bin);
            let args = server_args(opts.baseline_store.as_ref().unwrap_or(&opts.store), &dir, "baseline")?;
            Some(count(opts, &dir, "baseline", bin, &args, Serves::Printed, binding)?)
        } else {
            None
        };
        let peer = match &opts.peer {
            Some((url, argv)) => {
                let (program, args) = argv.split_first().context("an empty --peer-cmd")?;
                let serves = Serves::At(url);
                Some(count(opts, &dir, "peer", Path::new(program), args, serves, binding)?)
            }
            None => None,
        };
        let kind = if binding == Binding::Grpc { "ceiling-grpc" } else { "ceiling-http" };
        let args = [kind, "--listen", "127.0.0.1:0", "--replies", &replies].map(str::to_owned);
        let ceiling = count(opts, &dir, kind, &exe, &args, Serves::Ceiling, binding)?;
        rows.push(Row { binding: binding.name(), server, baseline, peer, ceiling });
    }
    Ok(Report {
        requests: opts.requests,
        warmup: opts.warmup,
        store: opts.store.clone(),
        server_bin: opts.server_bin.display().to_string(),
        baseline_bin: opts.baseline_bin.as_ref().map(|b| b.display().to_string()),
        baseline_store: opts.baseline_store.clone(),
        peer: opts.peer.as_ref().map(|(_, argv)| argv.join(" ")),
        rows,
    })
}

/// valgrind and callgrind_control, or an error that says how to get them.
fn check_tools() -> anyhow::Result<()> {
    for tool in ["valgrind", "callgrind_control"] {
        let found = Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success());
        if !found {
            bail!("`{tool}` is not installed: the counts need valgrind (Debian: apt-get install valgrind)");
        }
    }
    Ok(())
}

/// The reference server's arguments: `store` (a data directory of its own under `dir` for a
/// file store), any free port, warnings only in its log.
fn server_args(store: &str, dir: &Path, name: &str) -> anyhow::Result<Vec<String>> {
    let data = dir.join(format!("{name}-data"));
    let _ = std::fs::remove_dir_all(&data);
    let data = data.to_str().context("a data directory path that is not UTF-8")?.to_owned();
    Ok(["--store", store, "--data-dir", &data, "--listen", "127.0.0.1:0", "--log", "warn"]
        .map(str::to_owned)
        .to_vec())
}

/// Captures the ceilings' replies from the server under test, run without valgrind.
fn capture(opts: &Options, replies: &Path, dir: &Path) -> anyhow::Result<()> {
    let args = server_args(&opts.store, dir, "capture")?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let log = dir.join("capture.log");
    let server = ServerProcess::start("a2a-server", &opts.server_bin, &args, Placement::Anywhere, &log)?;
    let url = server.url().to_owned();
    let endpoints =
        on_thread(Placement::Anywhere, move || async move { Ok(Endpoints::discover(&url).await?.0) })?;
    let first = opts.bindings.iter().copied().find(|b| endpoints.get(*b).is_some());
    capture_replies(
        &endpoints,
        first.context("the server offers none of the bindings asked for")?,
        None,
        replies,
    )
}

/// Where a subject serves, and how its endpoints are found.
#[derive(Debug, Clone, Copy)]
enum Serves<'a> {
    /// It prints its URL (the reference server); its agent card names the bindings.
    Printed,
    /// At this URL, fixed by its command (a peer); its agent card names the bindings.
    At(&'a str),
    /// A ceiling: it prints its URL and serves every binding there.
    Ceiling,
}

/// Instructions per echo request of `program args` over `binding`, under callgrind (module docs).
fn count(
    opts: &Options,
    dir: &Path,
    name: &str,
    program: &Path,
    args: &[String],
    serves: Serves<'_>,
    binding: Binding,
) -> anyhow::Result<f64> {
    let file = dir.join(format!("{name}-{}.callgrind", binding.name()));
    // callgrind writes the first dump as `<file>.1` (and `<file>` at exit, which a kill skips).
    let dump = PathBuf::from(format!("{}.1", file.display()));
    let _ = std::fs::remove_file(&dump);
    let mut valgrind = vec![
        "--tool=callgrind".to_owned(),
        format!("--callgrind-out-file={}", file.display()),
        program.to_str().context("a program path that is not UTF-8")?.to_owned(),
    ];
    valgrind.extend_from_slice(args);
    let valgrind: Vec<&str> = valgrind.iter().map(String::as_str).collect();
    let log = dir.join(format!("{name}-{}.log", binding.name()));
    eprintln!("a2a-bench instructions: {name} over {} under callgrind", binding.name());
    let server = match serves {
        Serves::At(url) => {
            let mut argv = vec!["valgrind".to_owned()];
            argv.extend(valgrind.iter().map(|a| (*a).to_owned()));
            ServerProcess::start_serving(name, &argv, url, Placement::Anywhere, &log)?
        }
        Serves::Printed | Serves::Ceiling => {
            ServerProcess::start(name, Path::new("valgrind"), &valgrind, Placement::Anywhere, &log)?
        }
    };
    let (url, pid) = (server.url().to_owned(), server.pid());
    let (warmup, requests) = (opts.warmup, opts.requests);
    let ceiling = matches!(serves, Serves::Ceiling);
    on_thread(Placement::Anywhere, move || async move {
        let endpoints =
            if ceiling { Endpoints::ceiling(&url, &url) } else { Endpoints::discover(&url).await?.0 };
        let driver = Driver::new(&endpoints, binding).await?;
        driver.run(What::Echo, warmup, 1).await?;
        callgrind_control("-z", pid)?;
        driver.run(What::Echo, requests, 1).await?;
        callgrind_control("-d", pid)
    })?;
    let total = dumped_total(&dump)?;
    drop(server);
    Ok(total as f64 / requests.max(1) as f64)
}

/// `callgrind_control FLAG PID`: `-z` zeroes the counters, `-d` dumps them.
fn callgrind_control(flag: &str, pid: u32) -> anyhow::Result<()> {
    let output = Command::new("callgrind_control").args([flag, &pid.to_string()]).output()?;
    if !output.status.success() {
        bail!("callgrind_control {flag} {pid} failed: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

/// The total of a callgrind dump (its `totals:` line, the last it writes), once it is written.
fn dumped_total(dump: &Path) -> anyhow::Result<u64> {
    let deadline = Instant::now() + DUMP_TIMEOUT;
    loop {
        if let Ok(text) = std::fs::read_to_string(dump) {
            if let Some(total) = totals(&text) {
                return Ok(total);
            }
        }
        if Instant::now() >= deadline {
            bail!("no complete callgrind dump at {} within {DUMP_TIMEOUT:?}", dump.display());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The `totals:` line of a callgrind file (the first event's count).
fn totals(text: &str) -> Option<u64> {
    text.lines().rev().find_map(|line| line.strip_prefix("totals:")?.split_whitespace().next()?.parse().ok())
}

/// The report as a table.
pub(crate) fn table(report: &Report) -> String {
    let baseline_store =
        report.baseline_store.as_deref().map_or(String::new(), |s| format!(", baseline store {s}"));
    let mut out = format!(
        "\nInstructions per SendMessage (echo), callgrind, {} requests after {} (store {}{baseline_store}):\n\n",
        report.requests, report.warmup, report.store
    );
    let baseline = report.baseline_bin.is_some() || report.baseline_store.is_some();
    let peer = report.peer.is_some();
    out.push_str("| binding | a2a-server |");
    if baseline {
        out.push_str(" baseline | change |");
    }
    if peer {
        out.push_str(" peer | a2a-server / peer |");
    }
    out.push_str(" ceiling | ceiling / a2a-server |\n| --- | --- |");
    if baseline {
        out.push_str(" --- | --- |");
    }
    if peer {
        out.push_str(" --- | --- |");
    }
    out.push_str(" --- | --- |\n");
    for row in &report.rows {
        out.push_str(&format!("| {} | {:.0} |", row.binding, row.server));
        if let Some(before) = row.baseline {
            out.push_str(&format!(" {before:.0} | {:+.1}% |", (row.server / before - 1.0) * 100.0));
        } else if baseline {
            out.push_str(" - | - |");
        }
        if let Some(other) = row.peer {
            out.push_str(&format!(" {other:.0} | {:.2} |", row.server / other));
        } else if peer {
            out.push_str(" - | - |");
        }
        out.push_str(&format!(" {:.0} | {:.2} |\n", row.ceiling, row.ratio()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_the_last_totals_line() {
        let dump = "version: 1\nevents: Ir\nsummary: 80208517\nfn=(1) main\n3 5\ntotals: 80212043\n";
        assert_eq!(totals(dump), Some(80_212_043));
        // A dump still being written has no totals line yet.
        assert_eq!(totals("version: 1\nevents: Ir\nsummary: 1\nfn=(1) main\n"), None);
    }

    #[test]
    fn the_table_gives_the_ratio_and_the_change() {
        let report = Report {
            requests: 1000,
            warmup: 200,
            store: "memory".into(),
            server_bin: "new".into(),
            baseline_bin: Some("old".into()),
            baseline_store: None,
            peer: Some("helloworld-server".into()),
            rows: vec![Row {
                binding: "jsonrpc",
                server: 80_000.0,
                baseline: Some(100_000.0),
                peer: Some(160_000.0),
                ceiling: 28_000.0,
            }],
        };
        let table = table(&report);
        assert!(
            table.contains("| jsonrpc | 80000 | 100000 | -20.0% | 160000 | 0.50 | 28000 | 0.35 |"),
            "{table}"
        );
    }
}
