//! Server processes under test and what the kernel says about them: starting a server (optionally
//! pinned to a core with `taskset`), reading the URL it prints, its resident memory (`VmRSS` of
//! `/proc/PID/status`) and CPU time (`utime + stime` of `/proc/PID/stat`); pinning the harness's
//! own threads.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::{bail, Context as _};

/// Where a process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Placement {
    /// Wherever the scheduler puts it.
    Anywhere,
    /// Only on this core (`taskset -c N`).
    Core(usize),
}

impl Placement {
    /// `taskset`'s CPU list, if pinned.
    fn cpu_list(self) -> Option<String> {
        match self {
            Placement::Anywhere => None,
            Placement::Core(core) => Some(core.to_string()),
        }
    }
}

/// A server started by the harness, killed when dropped.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    name: String,
    child: Child,
    url: String,
}

impl ServerProcess {
    /// Starts `program args...` and waits for the line `... listening on http://ADDR` on its
    /// stdout. Its stderr goes to `log`.
    pub(crate) fn start(
        name: &str,
        program: &Path,
        args: &[&str],
        placement: Placement,
        log: &Path,
    ) -> anyhow::Result<Self> {
        let mut command = match placement.cpu_list() {
            Some(cpus) => {
                let mut command = Command::new("taskset");
                command.arg("-c").arg(cpus).arg(program);
                command
            }
            None => Command::new(program),
        };
        if let Some(dir) = log.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let log_file = std::fs::File::create(log).with_context(|| format!("creating {}", log.display()))?;
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .spawn()
            .with_context(|| format!("starting {}", program.display()))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(at) = line.find("listening on ") {
                        break line[at + "listening on ".len()..].trim().to_owned();
                    }
                }
                Some(Err(error)) => bail!("reading the output of {name}: {error}"),
                None => {
                    let _ = child.kill();
                    let _ = child.wait();
                    bail!("{name} exited before printing its address (see {})", log.display())
                }
            }
        };
        // Keep draining stdout so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Ok(ServerProcess { name: name.to_owned(), child, url })
    }

    /// The base URL it printed, e.g. `http://127.0.0.1:40123`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Its process id (with `taskset`, the same process: taskset execs the server).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        match self.child.try_wait() {
            // It should still be serving: a server that died during the run makes its figures suspect.
            Ok(Some(status)) => {
                eprintln!("a2a-bench: {} had exited before the harness stopped it ({status})", self.name)
            }
            _ => {
                let _ = self.child.kill();
            }
        }
        let _ = self.child.wait();
    }
}

/// `VmRSS` of process `pid`, in bytes.
pub(crate) fn rss_bytes(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).context("no VmRSS line")?;
    let kib: u64 = line.split_whitespace().nth(1).context("malformed VmRSS")?.parse()?;
    Ok(kib * 1024)
}

/// CPU time (user + system, all threads) process `pid` has used so far.
pub(crate) fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name may contain spaces: the fields we need follow its closing parenthesis.
    let rest = &stat[stat.rfind(')').context("malformed stat")? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of proc(5); `rest` starts at field 3.
    let ticks: u64 = fields.get(11).context("no utime")?.parse::<u64>()?
        + fields.get(12).context("no stime")?.parse::<u64>()?;
    Ok(Duration::from_secs_f64(ticks as f64 / clock_ticks() as f64))
}

/// `sysconf(_SC_CLK_TCK)`, read once through `getconf` (100 on Linux unless told otherwise).
fn clock_ticks() -> u64 {
    static TICKS: OnceLock<u64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100)
    })
}

/// Whether `taskset` can pin processes here.
pub(crate) fn can_pin() -> bool {
    Command::new("taskset").args(["-c", "0", "true"]).output().is_ok_and(|o| o.status.success())
}

/// Restricts the calling thread (and the threads it starts from now on) to `cpus`, a taskset CPU
/// list such as `1` or `0-1`.
pub(crate) fn pin_current_thread(cpus: &str) -> anyhow::Result<()> {
    // "/proc/thread-self" links to "PID/task/TID": the thread id without unsafe code.
    let link = std::fs::read_link("/proc/thread-self")?;
    let tid = link.file_name().context("no thread id")?.to_string_lossy().into_owned();
    let output = Command::new("taskset").args(["-cp", cpus, &tid]).output().context("running taskset")?;
    if !output.status.success() {
        bail!("taskset -cp {cpus} {tid}: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    Ok(())
}

/// How many CPUs the calling thread may run on.
pub(crate) fn available_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The path of this executable (to start the ceilings as separate processes).
pub(crate) fn this_exe() -> anyhow::Result<PathBuf> {
    std::env::current_exe().context("locating the a2a-bench executable")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_rss_and_cpu_time_are_readable_from_proc() {
        let pid = std::process::id();
        assert!(rss_bytes(pid).unwrap() > 0);
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(30) {
            std::hint::black_box(0u64);
        }
        assert!(cpu_time(pid).unwrap() > Duration::ZERO);
    }
}
