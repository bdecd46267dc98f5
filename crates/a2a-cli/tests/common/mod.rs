//! The built `a2a-cli` run as a subprocess, for every test file of this crate: a clean
//! environment (no `A2ACLI_*` variable, no colour, an empty home and configuration directory as
//! the working directory unless the test gives its own), a minute at most, and readers of what it
//! printed.

#![allow(dead_code, unreachable_pub)] // Each test file uses its own part of this module.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

/// A fresh empty directory under the system temp dir, removed when dropped.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A new [`TempDir`], its name starting with `tag`.
pub fn tempdir(tag: &str) -> TempDir {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("a2a-cli-test-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&path);
    std::fs::create_dir_all(&path).unwrap();
    TempDir(path)
}

/// `a2a-cli args...` with `home` as `HOME`, `XDG_CONFIG_HOME` and working directory, no stdin,
/// stdout and stderr piped.
pub fn command(args: &[&str], home: &Path) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_a2a-cli"));
    command.args(args).env("NO_COLOR", "1").kill_on_drop(true);
    for (name, _) in std::env::vars() {
        if name.starts_with("A2ACLI_") {
            command.env_remove(name);
        }
    }
    command.env("XDG_CONFIG_HOME", home).env("HOME", home).current_dir(home);
    command.stdin(std::process::Stdio::null());
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    command
}

/// What `child` printed once it ended; fails the test if that takes over a minute.
pub async fn finish(child: tokio::process::Child, args: &[&str]) -> Output {
    tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("a2a-cli {args:?} hung"))
        .unwrap()
}

/// `a2a-cli args...` run in `home` ([`command`]).
pub async fn cli_home(args: &[&str], home: &Path) -> Output {
    finish(command(args, home).spawn().expect("the a2a-cli binary runs"), args).await
}

/// `a2a-cli args...` in a fresh empty directory.
pub async fn cli(args: &[&str]) -> Output {
    cli_home(args, &tempdir("run")).await
}

/// `a2a-cli args...` with `stdin` written to it, `env` set, in `dir` (a fresh empty directory
/// when `None`; the home is always an empty one).
pub async fn cli_in(args: &[&str], stdin: Option<&str>, env: &[(&str, &str)], dir: Option<&Path>) -> Output {
    let empty = tempdir("quiet");
    let mut command = command(args, &empty);
    command.envs(env.iter().copied()).current_dir(dir.unwrap_or(&empty));
    if stdin.is_some() {
        command.stdin(std::process::Stdio::piped());
    }
    let mut child = command.spawn().expect("the a2a-cli binary runs");
    if let Some(input) = stdin {
        use tokio::io::AsyncWriteExt;
        let mut pipe = child.stdin.take().unwrap();
        // A command that exits without reading its input closes the pipe: not the test's concern.
        let _ = pipe.write_all(input.as_bytes()).await;
    }
    finish(child, args).await
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Asserts the exit status, showing what was printed otherwise.
#[track_caller]
pub fn code(output: &Output, expected: i32) {
    assert_eq!(
        output.status.code(),
        Some(expected),
        "exit status\nstdout:\n{}\nstderr:\n{}",
        stdout(output),
        stderr(output)
    );
}

/// The single JSON document on stdout.
#[track_caller]
pub fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!("stdout is not one JSON document ({e}):\n{}\nstderr:\n{}", stdout(output), stderr(output))
    })
}

/// The JSON Lines on stdout: each line one complete object.
#[track_caller]
pub fn lines(output: &Output) -> Vec<Value> {
    stdout(output)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}")))
        .collect()
}

/// A `Label: value` field of text output (the first one).
#[track_caller]
pub fn text_field(text: &str, label: &str) -> String {
    let prefix = format!("{label}: ");
    text.lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no {label:?} field in:\n{text}"))
        .to_owned()
}
