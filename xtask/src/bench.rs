//! `cargo xtask bench`: builds the harness (`a2a-bench`) and the reference server, then runs
//! `a2a-bench run` (the harness in `crates/a2a-bench`).
//!
//! - `cargo xtask bench`: the full run, release builds, about 25 minutes on 2 cores. Writes
//!   `target/bench/results.json` and prints the tables.
//! - `cargo xtask bench --quick`: the smoke run CI calls (a few seconds): every workload at tiny
//!   sizes, on the debug builds the test run already compiled, so the harness cannot rot. Its
//!   figures mean nothing; it fails if any workload fails.
//! - `--url URL`: benchmark another A2A server instead of starting the reference one.
//! - Any other argument is passed to `a2a-bench run` (`--out`, `--duration`, `--workloads`,
//!   `--baseline-bin`, ...; `a2a-bench run --help` lists them).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};

use crate::{cargo, run_cargo, workspace_root};

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let quick = args.iter().any(|a| a == "--quick");
    let external = args.iter().any(|a| a == "--url" || a.starts_with("--url="));
    let mut build = vec!["build", "-p", "a2a-bench"];
    if !external {
        build.extend(["-p", "a2a-server"]);
    }
    if !quick {
        build.push("--release");
    }
    run_cargo(&build)?;

    let binaries = target_dir()?.join(if quick { "debug" } else { "release" });
    let exe = |name: &str| binaries.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let mut command = Command::new(exe("a2a-bench"));
    command.arg("run").current_dir(workspace_root());
    if !external {
        command.arg("--server-bin").arg(exe("a2a-server"));
    }
    if !args.iter().any(|a| a == "--out" || a.starts_with("--out=")) {
        let name = if quick { "results-quick.json" } else { "results.json" };
        command.arg("--out").arg(workspace_root().join("target").join("bench").join(name));
    }
    command.args(args);
    eprintln!("$ {command:?}");
    let status = command.status().context("running a2a-bench")?;
    if !status.success() {
        bail!("a2a-bench failed ({status})");
    }
    Ok(())
}

/// Cargo's target directory: `CARGO_TARGET_DIR` if set, else what `cargo metadata` reports (which
/// also honours `build.target-dir` in a config file).
fn target_dir() -> anyhow::Result<PathBuf> {
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
    use super::json_string_field;

    #[test]
    fn reads_an_escaped_string_field_from_cargo_metadata() {
        let json = r#"{"packages":[],"target_directory":"C:\\work\\my \"target\"","version":1}"#;
        assert_eq!(json_string_field(json, "target_directory").as_deref(), Some(r#"C:\work\my "target""#));
        assert_eq!(json_string_field(json, "workspace_root"), None);
    }
}
