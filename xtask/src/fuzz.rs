//! `cargo xtask fuzz`: builds the `cargo fuzz` targets in `fuzz/` and runs each for a fixed
//! time, failing on any crash, hang or memory blow-up (see `docs/fuzzing.md`).
//!
//! - `--seconds N`: how long each target runs (default 20).
//! - `--target NAME`: run only this target (repeatable); default every `fuzz/fuzz_targets/*.rs`.
//! - `--target-dir DIR`: the fuzz build's own target dir (default `fuzz/target`), also home of
//!   the working corpora, crash artifacts and logs; CI keeps it under `$HOME/.cache`.
//!
//! Needs the nightly toolchain (`cargo +nightly`) and cargo-fuzz, which is installed if missing;
//! without nightly it fails (never skips), so a CI that loses its toolchain says so.
//!
//! Each target starts from its checked-in corpus `fuzz/corpus/<target>/`, read-only: what the run
//! discovers goes to `<target-dir>/corpus/<target>/`, a crash to `<target-dir>/artifacts/<target>/`.
//! libFuzzer runs with `-timeout=10` (an input taking longer is a hang) and `-rss_limit_mb=2048`
//! (also the largest single allocation allowed).

use std::fs;
use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, ensure, Context as _};

use crate::workspace_root;

/// Seconds per target when `--seconds` is not given.
const DEFAULT_SECONDS: u64 = 20;

/// The build flags, the same for `build` and for what `run` executes: no sanitizer (the workspace
/// forbids `unsafe`; panics, hangs and memory limits are what is checked), release with debug
/// assertions and overflow checks (cargo-fuzz's default), 16 codegen units (builds on 2 cores
/// take minutes instead of a quarter hour; runs are barely slower).
const BUILD_FLAGS: &[&str] = &["--sanitizer", "none", "--codegen-units", "16"];

/// libFuzzer's flags for every run, besides the time.
const LIBFUZZER_FLAGS: &[&str] = &["-timeout=10", "-rss_limit_mb=2048", "-print_final_stats=1"];

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(args)?;
    let root = workspace_root();
    let all = targets(&root.join("fuzz"))?;
    let chosen = if options.targets.is_empty() { all.clone() } else { options.targets.clone() };
    for target in &chosen {
        ensure!(all.contains(target), "no fuzz target {target:?}; the targets are {}", all.join(", "));
    }

    ensure_toolchain()?;
    let target_dir = options.target_dir.unwrap_or_else(|| root.join("fuzz").join("target"));
    let mut build = nightly_cargo();
    build.args(["fuzz", "build"]).args(BUILD_FLAGS).arg("--target-dir").arg(&target_dir).current_dir(&root);
    run_command(&mut build)?;

    let binaries = target_dir.join(host_triple()?).join("release");
    let mut summary = Vec::new();
    let mut failed = Vec::new();
    for target in &chosen {
        let outcome = run_target(&root, &target_dir, &binaries, target, options.seconds)?;
        eprintln!("xtask: fuzz {target}: {}", outcome.line);
        if !outcome.passed {
            failed.push(target.clone());
        }
        summary.push((target.clone(), outcome.line));
    }
    eprintln!("\nfuzz summary ({} s per target):", options.seconds);
    for (target, line) in &summary {
        eprintln!("  {target:<12} {line}");
    }
    if !failed.is_empty() {
        bail!(
            "fuzz targets failed: {} (crash inputs under {}; reproduce by running {}/<target> <input>, then add the \
             input as a test, see docs/fuzzing.md)",
            failed.join(", "),
            target_dir.join("artifacts").display(),
            binaries.display()
        );
    }
    Ok(())
}

#[derive(Debug)]
struct Options {
    seconds: u64,
    targets: Vec<String>,
    target_dir: Option<PathBuf>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut options = Options { seconds: DEFAULT_SECONDS, targets: Vec::new(), target_dir: None };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
            match arg.as_str() {
                "--seconds" => {
                    let seconds = value("--seconds")?;
                    options.seconds =
                        seconds.parse().with_context(|| format!("--seconds {seconds:?} is not a number"))?;
                    ensure!(options.seconds > 0, "--seconds must be at least 1");
                }
                "--target" => options.targets.push(value("--target")?.clone()),
                "--target-dir" => options.target_dir = Some(absolute(Path::new(value("--target-dir")?))),
                other => bail!("unknown argument {other:?}; usage: cargo xtask fuzz [--seconds N] [--target NAME]... [--target-dir DIR]"),
            }
        }
        Ok(options)
    }
}

/// The fuzz targets: one per `fuzz/fuzz_targets/*.rs`, sorted.
fn targets(fuzz_dir: &Path) -> anyhow::Result<Vec<String>> {
    let dir = fuzz_dir.join("fuzz_targets");
    let mut names = Vec::new();
    for entry in fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "rs") {
            if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                names.push(stem.to_owned());
            }
        }
    }
    names.sort();
    ensure!(!names.is_empty(), "no fuzz targets in {}", dir.display());
    Ok(names)
}

/// `cargo +nightly`, through rustup's proxy on `PATH` (not `$CARGO`, the stable toolchain's own
/// binary, which ignores `+nightly`), without the toolchain variables `cargo xtask` set.
fn nightly_cargo() -> Command {
    let mut command = Command::new("cargo");
    command.arg("+nightly");
    for var in ["RUSTUP_TOOLCHAIN", "CARGO", "RUSTC", "RUSTDOC", "CARGO_MANIFEST_DIR", "CARGO_PKG_NAME"] {
        command.env_remove(var);
    }
    command
}

/// Fails unless nightly is there; installs cargo-fuzz if it is missing.
fn ensure_toolchain() -> anyhow::Result<()> {
    let nightly = nightly_cargo().arg("--version").output();
    match nightly {
        Ok(output) if output.status.success() => {}
        _ => bail!(
            "the nightly toolchain is missing (`cargo +nightly --version` failed): cargo fuzz needs it; \
             install it with `rustup toolchain install nightly --profile minimal`"
        ),
    }
    let has_fuzz = nightly_cargo().args(["fuzz", "--version"]).output().is_ok_and(|o| o.status.success());
    if !has_fuzz {
        eprintln!("xtask: cargo-fuzz not found, installing it");
        let mut install = Command::new("cargo");
        install.args(["install", "cargo-fuzz", "--locked"]).env_remove("RUSTUP_TOOLCHAIN");
        run_command(&mut install).context("installing cargo-fuzz")?;
    }
    Ok(())
}

/// The host's target triple, which cargo-fuzz builds for (`rustc -vV`'s `host:` line).
fn host_triple() -> anyhow::Result<String> {
    let mut rustc = Command::new("rustc");
    rustc.arg("+nightly").arg("-vV").env_remove("RUSTUP_TOOLCHAIN").env_remove("RUSTC");
    let output = rustc.output().context("running rustc +nightly -vV")?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|line| line.strip_prefix("host: "))
        .map(str::to_owned)
        .context("rustc -vV printed no host triple")
}

struct Outcome {
    passed: bool,
    /// Executions, coverage and corpus size, or why it failed.
    line: String,
}

/// Runs one target's binary for `seconds`: working corpus first (new inputs go there), the
/// checked-in one second (read only). libFuzzer's output goes to `<target-dir>/logs/<target>.log`.
fn run_target(
    root: &Path,
    target_dir: &Path,
    binaries: &Path,
    target: &str,
    seconds: u64,
) -> anyhow::Result<Outcome> {
    let working = target_dir.join("corpus").join(target);
    let artifacts = target_dir.join("artifacts").join(target);
    let logs = target_dir.join("logs");
    for dir in [&working, &artifacts, &logs] {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let seeds = root.join("fuzz").join("corpus").join(target);
    let log_path = logs.join(format!("{target}.log"));
    let mut command = Command::new(binaries.join(target));
    command
        .arg(format!("-max_total_time={seconds}"))
        .args(LIBFUZZER_FLAGS)
        .arg(format!("-artifact_prefix={}/", artifacts.display()))
        .arg(&working)
        .arg(&seeds)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    eprintln!("$ {command:?}");
    let mut child = command.spawn().with_context(|| format!("starting fuzz target {target}"))?;
    let stderr = child.stderr.take().context("libFuzzer's stderr")?;
    let mut log = Vec::new();
    let (mut last_status, mut executions) = (String::new(), String::new());
    for line in BufReader::new(stderr).lines() {
        let line = line.context("reading libFuzzer's output")?;
        // `#1234 DONE cov: .. ft: .. corp: ..` / `#1234 pulse ...`: the latest progress line.
        if line.starts_with('#') && line.contains("cov:") {
            last_status = line.clone();
        }
        if let Some(count) = line.strip_prefix("stat::number_of_executed_units:") {
            executions = count.trim().to_owned();
        }
        log.push(line);
    }
    let status = child.wait().context("waiting for the fuzz target")?;
    fs::write(&log_path, log.join("\n") + "\n").with_context(|| format!("writing {}", log_path.display()))?;
    if status.success() {
        let progress = last_status.split_once(' ').map_or("", |(_, rest)| rest).trim();
        return Ok(Outcome { passed: true, line: format!("{executions} executions; {progress}") });
    }
    // The crash report: the last lines of the log, e.g. the panic and the artifact's path.
    for line in log.iter().rev().take(40).collect::<Vec<_>>().into_iter().rev() {
        eprintln!("  | {line}");
    }
    Ok(Outcome { passed: false, line: format!("FAILED ({status}); log {}", log_path.display()) })
}

fn run_command(command: &mut Command) -> anyhow::Result<()> {
    eprintln!("$ {command:?}");
    let status = command.status().with_context(|| format!("running {command:?}"))?;
    ensure!(status.success(), "{command:?} failed ({status})");
    Ok(())
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|dir| dir.join(path)).unwrap_or_else(|_| path.to_path_buf())
    }
}
