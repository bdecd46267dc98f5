//! `cargo xtask conformance [--url URL] [a2a-conformance options]`: the cross-binding conformance
//! suite (see `docs/conformance.md`).
//!
//! - With `--url`, runs the `a2a-conformance` binary against that agent.
//! - Without, builds and starts the reference server binary (`a2a-server --listen 127.0.0.1:0
//!   --push-allow 127.0.0.0/8`), reads its URL from the line it prints, runs the suite against it
//!   with `--reference-setups` (the configured reference servers stand in for the scenarios that
//!   need another server configuration), and stops the server.
//!
//! Other options (`--only`, `--markdown`, `--json`, `--webhook-url`, ...) are passed through.
//! The server binary is started directly rather than through `cargo run`, so that stopping the
//! child stops the server itself and not only cargo.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::Context as _;

use crate::{cargo, run_cargo, workspace_root};

/// How long the server may take to print its URL once built.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// What the server prints before its URL.
const LISTENING: &str = "a2a-server listening on ";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if args.iter().any(|a| a == "--url" || a.starts_with("--url=")) {
        return run_cargo(&[&["run", "--quiet", "-p", "a2a-conformance", "--"][..], &as_strs(args)].concat());
    }
    run_cargo(&["build", "--quiet", "-p", "a2a-server", "-p", "a2a-conformance"])?;
    let bin = target_dir()?.join("debug");
    let mut server = Server::start(&bin.join(exe("a2a-server")))?;
    let url = server.url.clone();
    eprintln!("xtask: reference server at {url}");
    let status = Command::new(bin.join(exe("a2a-conformance")))
        .args(["--url", &url, "--reference-setups"])
        .args(args)
        .status()
        .context("running a2a-conformance");
    server.stop();
    let status = status?;
    anyhow::ensure!(status.success(), "the conformance suite failed against the reference server ({status})");
    Ok(())
}

fn as_strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// Cargo's target directory (honours `CARGO_TARGET_DIR` and config), from `cargo metadata`.
fn target_dir() -> anyhow::Result<PathBuf> {
    let output = Command::new(cargo())
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(workspace_root())
        .stderr(Stdio::inherit())
        .output()
        .context("running cargo metadata")?;
    anyhow::ensure!(output.status.success(), "cargo metadata failed");
    let text = String::from_utf8(output.stdout).context("cargo metadata output is not UTF-8")?;
    json_string_field(&text, "target_directory")
        .map(PathBuf::from)
        .context("cargo metadata did not name the target directory")
}

/// The value of the first `"name": "..."` string in `json` (xtask has no JSON parser; cargo's
/// metadata is one line of compact JSON whose paths only escape `\` and `"`).
fn json_string_field(json: &str, name: &str) -> Option<String> {
    let start = json.find(&format!("\"{name}\":\""))? + name.len() + 4;
    let mut value = String::new();
    let mut chars = json[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => value.push(chars.next()?),
            c => value.push(c),
        }
    }
    None
}

/// The reference server as a child process.
struct Server {
    child: Child,
    url: String,
    data_dir: std::path::PathBuf,
}

impl Server {
    fn start(binary: &std::path::Path) -> anyhow::Result<Server> {
        // The default store (SQLite) in a data directory of this run's, so the suite exercises it.
        let data_dir = std::env::temp_dir().join(format!("a2a-conformance-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&data_dir);
        let mut child = Command::new(binary)
            .args(["--listen", "127.0.0.1:0", "--push-allow", "127.0.0.0/8", "--log", "warn", "--data-dir"])
            .arg(&data_dir)
            .env_remove("A2A_STORE")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .with_context(|| format!("starting {}", binary.display()))?;
        let stdout = child.stdout.take().context("the server's stdout")?;
        let (found, url) = mpsc::channel();
        // Reads the URL, then keeps draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut found = Some(found);
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(url) = line.strip_prefix(LISTENING) {
                    if let Some(found) = found.take() {
                        let _ = found.send(url.trim().to_owned());
                    }
                }
            }
        });
        let mut server = Server { child, url: String::new(), data_dir };
        match url.recv_timeout(STARTUP_TIMEOUT) {
            Ok(url) => {
                server.url = url;
                Ok(server)
            }
            Err(_) => {
                server.stop();
                anyhow::bail!(
                    "the reference server did not print its URL within {} s",
                    STARTUP_TIMEOUT.as_secs()
                )
            }
        }
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_directory_is_read_from_cargo_metadata() {
        let json = r#"{"packages":[],"target_directory":"/tmp/a \"b\"\\c","version":1}"#;
        assert_eq!(json_string_field(json, "target_directory").as_deref(), Some(r#"/tmp/a "b"\c"#));
        assert_eq!(json_string_field(json, "workspace_root"), None);
    }
}
