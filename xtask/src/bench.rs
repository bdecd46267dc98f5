//! `cargo xtask bench`: builds the harness (`a2a-bench`) and the reference server, then runs
//! `a2a-bench run` (the harness in `crates/a2a-bench`).
//!
//! - `cargo xtask bench`: the full run, release builds, about 25 minutes on 2 cores. Writes
//!   `target/bench/results.json` and prints the tables.
//! - `cargo xtask bench --quick`: the smoke run CI calls (a few seconds): every workload at tiny
//!   sizes, on the debug builds the test run already compiled, so the harness cannot rot. Its
//!   figures mean nothing; it fails if any workload fails.
//! - `--url URL`: benchmark another A2A server instead of starting the reference one
//!   (`--server-cmd CMD` to have the harness start, pin and measure it).
//! - `--a2a-rs DIR`: the official Rust SDK's helloworld server (a2a-rs) as a peer in the same
//!   run: builds `helloworld-server` in its checkout DIR (release, `DIR/target`), then runs the
//!   SendMessage workload with it measured in the same rounds as ours (`--peer-url
//!   http://127.0.0.1:3000 --peer-cmd ...`, its fixed ports), each server against ceilings
//!   replaying its own replies; writes `target/bench/results-a2a-rs.json`.
//! - `--instructions`: instead of the load, the instructions per SendMessage under callgrind,
//!   ours beside the ceiling's (`a2a-bench instructions`: release builds, about a minute for the
//!   three bindings after the build; `--baseline-bin PATH` counts another build too,
//!   `--baseline-store memory` the same build on another store, `--a2a-rs DIR` a2a-rs's
//!   helloworld-server beside them). Installs valgrind with apt-get when it is missing. With
//!   `--quick` (CI): the debug builds, JSON-RPC, a few requests.
//! - Any other argument is passed to `a2a-bench run` (`--out`, `--duration`, `--workloads`,
//!   `--baseline-bin`, `--generator`, ...; `a2a-bench run --help` lists them), or with
//!   `--instructions` to `a2a-bench instructions`.
//!
//! SendMessage is driven by `wrk` and `h2load` (the Debian packages `wrk` and `nghttp2-client`);
//! when they are missing this installs them with apt-get, as `.ci/run` does for tmux. If that
//! fails, the harness falls back to its built-in generator and says so loudly in the report.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};

use crate::{cargo, run_cargo, workspace_root};

/// The tools of the external load generators and the Debian packages that ship them.
const LOAD_TOOLS: [&str; 3] = ["wrk", "h2load", "nghttp"];
const LOAD_PACKAGES: &str = "wrk nghttp2-client";

/// a2a-rs's helloworld server listens on these fixed ports (HTTP 3000, gRPC 50051).
const A2A_RS_URL: &str = "http://127.0.0.1:3000";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if args.iter().any(|a| a == "--instructions") {
        let rest: Vec<String> = args.iter().filter(|a| *a != "--instructions").cloned().collect();
        return instructions(&rest);
    }
    let (peer, args) = take_value(args, "--a2a-rs");
    let mut args = args;
    if let Some(dir) = &peer {
        let server = build_a2a_rs(Path::new(dir))?;
        args.extend(["--peer-url".to_owned(), A2A_RS_URL.to_owned(), "--peer-cmd".to_owned()]);
        args.push(server.to_string_lossy().into_owned());
        if !given(&args, "--workloads") {
            args.extend(["--workloads".to_owned(), "send".to_owned()]);
        }
        if !given(&args, "--out") {
            let out = workspace_root().join("target").join("bench").join("results-a2a-rs.json");
            args.extend(["--out".to_owned(), out.to_string_lossy().into_owned()]);
        }
    }
    let args = args.as_slice();
    if !matches!(take_value(args, "--generator").0.as_deref(), Some("built-in")) {
        ensure_load_tools();
    }
    let quick = args.iter().any(|a| a == "--quick");
    let external = given(args, "--url");
    let mut command = a2a_bench("run", quick, !external)?;
    if !given(args, "--out") {
        let name = if quick { "results-quick.json" } else { "results.json" };
        command.arg("--out").arg(workspace_root().join("target").join("bench").join(name));
    }
    command.args(args);
    if peer.is_some() && std::env::var_os("RUST_LOG").is_none() {
        // Its example logs through tracing at `info` unless told otherwise.
        command.env("RUST_LOG", "warn");
    }
    run_a2a_bench(command)
}

/// `a2a-bench instructions` on the reference server (see the module docs).
fn instructions(args: &[String]) -> anyhow::Result<()> {
    ensure_valgrind()?;
    let (peer, args) = take_value(args, "--a2a-rs");
    let args = args.as_slice();
    let quick = args.iter().any(|a| a == "--quick");
    let mut command = a2a_bench("instructions", quick, true)?;
    if let Some(dir) = &peer {
        // a2a-rs's helloworld-server counted beside ours (`docs/benchmarks.md`, "The peer").
        let server = build_a2a_rs(Path::new(dir))?;
        command.args(["--peer-url", A2A_RS_URL, "--peer-cmd"]).arg(server);
        if std::env::var_os("RUST_LOG").is_none() {
            command.env("RUST_LOG", "warn");
        }
    }
    if !given(args, "--out") {
        let name = if quick { "instructions-quick.json" } else { "instructions.json" };
        command.arg("--out").arg(workspace_root().join("target").join("bench").join(name));
    }
    if quick {
        // A smoke run: the counts of a debug build under a few requests mean nothing.
        for (name, value) in [("--bindings", "jsonrpc"), ("--requests", "20"), ("--warmup", "5")] {
            if !given(args, name) {
                command.args([name, value]);
            }
        }
    }
    command.args(args.iter().filter(|a| *a != "--quick"));
    run_a2a_bench(command)
}

/// Builds `a2a-bench` (and `a2a-server` when `server`; debug builds when `quick`, else release)
/// and returns the command for its `subcommand`, with `--server-bin` when `server`.
fn a2a_bench(subcommand: &str, quick: bool, server: bool) -> anyhow::Result<Command> {
    let mut build = vec!["build", "-p", "a2a-bench"];
    if server {
        build.extend(["-p", "a2a-server"]);
    }
    if !quick {
        build.push("--release");
    }
    run_cargo(&build)?;
    let binaries = target_dir()?.join(if quick { "debug" } else { "release" });
    let exe = |name: &str| binaries.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut command = Command::new(exe("a2a-bench"));
    command.arg(subcommand).current_dir(workspace_root());
    if server {
        command.arg("--server-bin").arg(exe("a2a-server"));
    }
    Ok(command)
}

/// Runs an `a2a-bench` command, failing if it fails.
fn run_a2a_bench(mut command: Command) -> anyhow::Result<()> {
    eprintln!("$ {command:?}");
    let status = command.status().context("running a2a-bench")?;
    if !status.success() {
        bail!("a2a-bench failed ({status})");
    }
    Ok(())
}

/// Whether `args` give a value for `--name` ([`take_value`]).
fn given(args: &[String], name: &str) -> bool {
    take_value(args, name).0.is_some()
}

/// Installs valgrind (apt-get) when it is missing; an error when that fails.
fn ensure_valgrind() -> anyhow::Result<()> {
    if !installed(&["valgrind", "callgrind_control"], "valgrind") {
        bail!("valgrind is not installed and apt-get could not install it: the counts need it");
    }
    Ok(())
}

/// The value of `--name VALUE` or `--name=VALUE` in `args`, and the arguments without it.
fn take_value(args: &[String], name: &str) -> (Option<String>, Vec<String>) {
    let mut value = None;
    let mut rest = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == name {
            value = iter.next().cloned();
        } else if let Some(v) = arg.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
            value = Some(v.to_owned());
        } else {
            rest.push(arg.clone());
        }
    }
    (value, rest)
}

/// Installs wrk and h2load (apt-get) when they are missing; warns, and lets the harness fall back
/// to its built-in generator, when that fails.
fn ensure_load_tools() {
    if !installed(&LOAD_TOOLS, LOAD_PACKAGES) {
        eprintln!(
            "\n!!! xtask: could not install {LOAD_PACKAGES}: SendMessage falls back to the built-in load \
             generator, whose figures may be load-generator-bound (see docs/benchmarks.md)\n"
        );
    }
}

/// Whether every one of `tools` is on `PATH`, after installing the Debian `packages` (apt-get)
/// when one is missing.
fn installed(tools: &[&str], packages: &str) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|tool| !on_path(tool)).collect();
    if missing.is_empty() {
        return true;
    }
    eprintln!("xtask: {} missing: installing the Debian packages {packages}", missing.join(", "));
    let script = format!("apt-get update -qq && apt-get install -y -qq {packages}");
    let ran = Command::new("sh").args(["-c", &script]).status().is_ok_and(|s| s.success());
    ran && tools.iter().all(|tool| on_path(tool))
}

/// Whether an executable called `name` is on `PATH`.
fn on_path(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(name).is_file()))
}

/// Builds a2a-rs's `helloworld-server` (release) in its checkout `dir`; returns the binary.
fn build_a2a_rs(dir: &Path) -> anyhow::Result<PathBuf> {
    let manifest = dir.join("Cargo.toml");
    if !manifest.is_file() {
        bail!("--a2a-rs {}: no Cargo.toml there (a checkout of a2aproject/a2a-rs)", dir.display());
    }
    let target = dir.join("target");
    let status = Command::new(cargo())
        .args(["build", "--release", "-p", "examples", "--bin", "helloworld-server", "--manifest-path"])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&target)
        .status()
        .context("building a2a-rs's helloworld-server")?;
    if !status.success() {
        bail!("building a2a-rs's helloworld-server failed ({status})");
    }
    Ok(absolute(&target.join("release").join("helloworld-server")))
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set, else what `cargo metadata` reports (which
/// also honours `build.target-dir` in a config file).
pub(crate) fn target_dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return Ok(absolute(Path::new(&dir)));
    }
    let output = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(workspace_root())
        .output()
        .context("running cargo metadata")?;
    if !output.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let json = String::from_utf8(output.stdout).context("cargo metadata printed non-UTF-8")?;
    json_string_field(&json, "target_directory")
        .map(PathBuf::from)
        .context("cargo metadata reported no target_directory")
}

fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        workspace_root().join(path)
    }
}

/// The string value of the first `"field":"..."` in `json` (xtask has no JSON parser; cargo's
/// output is compact, and the value may contain escaped quotes and backslashes).
fn json_string_field(json: &str, field: &str) -> Option<String> {
    let start = json.find(&format!("\"{field}\":\""))? + field.len() + 4;
    let mut value = String::new();
    let mut chars = json[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => match chars.next()? {
                'n' => value.push('\n'),
                't' => value.push('\t'),
                other => value.push(other),
            },
            c => value.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{json_string_field, take_value};

    #[test]
    fn a_flag_and_its_value_are_taken_out_in_both_spellings() {
        let args: Vec<String> = ["--quick", "--a2a-rs", "/src", "--out=x"].map(str::to_owned).to_vec();
        let (value, rest) = take_value(&args, "--a2a-rs");
        assert_eq!(value.as_deref(), Some("/src"));
        assert_eq!(rest, ["--quick", "--out=x"]);
        let (value, rest) = take_value(&rest, "--out");
        assert_eq!((value.as_deref(), rest.len()), (Some("x"), 1));
        assert_eq!(take_value(&rest, "--generator").0, None);
    }

    #[test]
    fn reads_an_escaped_string_field_from_cargo_metadata() {
        let json = r#"{"packages":[],"target_directory":"C:\\work\\my \"target\"","version":1}"#;
        assert_eq!(json_string_field(json, "target_directory").as_deref(), Some(r#"C:\work\my "target""#));
        assert_eq!(json_string_field(json, "workspace_root"), None);
    }
}
