//! The programs the runner starts: servers it waits for ([`Service`]) and programs it runs to
//! their end ([`run_program`]). Every child's stdout goes to `{logs}/{name}.log` and its stderr to
//! `{logs}/{name}.stderr.log`; every child is killed when its handle drops, also on failure.

use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};

/// How long a server may take to print its address.
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a program may run before it is killed (its cells then show what it reported).
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(300);

/// A child whose stdout lines arrive on a channel (and in its log); it is killed when dropped.
struct Running {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Running {
    fn spawn(name: &str, command: &mut Command, logs: &Path) -> anyhow::Result<Self> {
        let log = logs.join(format!("{name}.log"));
        let stderr = fs::File::create(logs.join(format!("{name}.stderr.log")))?;
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .with_context(|| format!("starting {name}: {command:?}"))?;
        let stdout = child.stdout.take().context("no stdout pipe")?;
        let mut file = fs::File::create(&log)?;
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = writeln!(file, "{line}");
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Running { child, lines })
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A server the runner started; `url` is what it printed after the marker.
pub(crate) struct Service {
    name: String,
    pub(crate) url: String,
    running: Running,
}

impl Service {
    /// Starts `command` as `name` and waits (at most [`START_TIMEOUT`]) for the line starting
    /// with `marker`, the rest of which is its URL.
    pub(crate) fn start(
        name: &str,
        command: &mut Command,
        marker: &str,
        logs: &Path,
    ) -> anyhow::Result<Self> {
        eprintln!("xtask: starting {name}");
        let mut running = Running::spawn(name, command, logs)?;
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match running.lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix(marker) {
                        return Ok(Service { name: name.to_owned(), url: url.trim().to_owned(), running });
                    }
                }
                Err(_) => {
                    running.kill();
                    bail!(
                        "{name} did not print {marker:?} within {START_TIMEOUT:?} ({}); see {}",
                        running
                            .child
                            .try_wait()
                            .ok()
                            .flatten()
                            .map_or("still running".into(), |s| s.to_string()),
                        logs.join(format!("{name}.stderr.log")).display()
                    );
                }
            }
        }
    }

    /// The next line the service prints after its marker, if one comes before `deadline`.
    pub(super) fn next_line(&self, deadline: Instant) -> Option<String> {
        self.running.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())).ok()
    }

    pub(crate) fn stop(&mut self) {
        eprintln!("xtask: stopping {}", self.name);
        self.running.kill();
    }
}

/// What a program printed and how it ended.
#[derive(Debug)]
pub(super) struct ProgramOutput {
    /// Its stdout, line by line.
    pub(super) lines: Vec<String>,
    /// How it exited; `None` when it was killed after [`PROGRAM_TIMEOUT`].
    pub(super) status: Option<ExitStatus>,
}

impl ProgramOutput {
    /// Whether it exited with success.
    pub(super) fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }
}

/// Runs a program to its end (killed after [`PROGRAM_TIMEOUT`]), collecting its stdout lines.
pub(super) fn run_program(name: &str, command: &mut Command, logs: &Path) -> anyhow::Result<ProgramOutput> {
    eprintln!("xtask: running {name}");
    let mut running = Running::spawn(name, command, logs)?;
    let deadline = Instant::now() + PROGRAM_TIMEOUT;
    let mut lines = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match running.lines.recv_timeout(left) {
            Ok(line) => lines.push(line),
            // stdout closed: the program is exiting.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                eprintln!("xtask: {name} still running after {PROGRAM_TIMEOUT:?}; killing it");
                running.kill();
                return Ok(ProgramOutput { lines, status: None });
            }
        }
    }
    let status = running.child.wait().ok();
    Ok(ProgramOutput { lines, status })
}
