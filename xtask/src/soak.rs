//! `cargo xtask soak [--minutes N] [--rate R] [--debug]`: builds the harness (`a2a-bench`) and the
//! reference server, then runs `a2a-bench soak` (`crates/a2a-bench/src/soak.rs`): a mixed load
//! over the three bindings for N minutes (default 10; fractions allowed, `--minutes 0.25` is a
//! 15-second smoke run) that judges leaks, errors and push delivery, not speed. Release builds,
//! unless `--debug` (the debug builds a test run already compiled: for a CI smoke run). Writes
//! `target/soak/report.json` (and the server's log beside it) unless `--out` says otherwise; any
//! other argument goes to `a2a-bench soak` (`--sample-secs`, ...). Fails when a judgement fails.
//! The results of a 10-minute run are in `docs/operations.md` ("Soak").

use std::process::Command;

use anyhow::{bail, Context as _};

use crate::bench::target_dir;
use crate::{run_cargo, workspace_root};

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let debug = args.iter().any(|a| a == "--debug");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--debug").collect();
    let mut build = vec!["build", "-p", "a2a-bench", "-p", "a2a-server"];
    if !debug {
        build.push("--release");
    }
    run_cargo(&build)?;

    let binaries = target_dir()?.join(if debug { "debug" } else { "release" });
    let exe = |name: &str| binaries.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut command = Command::new(exe("a2a-bench"));
    command.arg("soak").arg("--server-bin").arg(exe("a2a-server")).current_dir(workspace_root());
    if !args.iter().any(|a| *a == "--out" || a.starts_with("--out=")) {
        command.arg("--out").arg(workspace_root().join("target").join("soak").join("report.json"));
    }
    command.args(args);
    eprintln!("$ {command:?}");
    let status = command.status().context("running a2a-bench soak")?;
    if !status.success() {
        bail!("the soak run failed ({status})");
    }
    Ok(())
}
