//! Server processes under test and what the kernel says about them: starting a server (optionally
//! pinned to a core with `taskset`), reading the URL it prints, its resident memory (`VmRSS` of
//! `/proc/PID/status`), CPU time (`utime + stime` of `/proc/PID/stat`) and open file descriptors
//! (`/proc/PID/fd`); pinning the harness's own threads.

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

/// A command for `program` on `placement`'s cores (through `taskset`), and `log` created for
/// its output.
fn placed(
    program: &std::ffi::OsStr,
    placement: Placement,
    log: &Path,
) -> anyhow::Result<(Command, std::fs::File)> {
    let command = match placement.cpu_list() {
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
    Ok((command, log_file))
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
    /// What it printed on stdout before its address (e.g. `metrics on http://...`).
    banner: Vec<String>,
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
        let (mut command, log_file) = placed(program.as_ref(), placement, log)?;
        let mut child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log_file))
            .spawn()
            .with_context(|| format!("starting {}", program.display()))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let mut banner = Vec::new();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(at) = line.find("listening on ") {
                        break line[at + "listening on ".len()..].trim().to_owned();
                    }
                    banner.push(line);
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
        Ok(ServerProcess { name: name.to_owned(), child, url, banner })
    }

    /// Starts `argv` (another A2A server, e.g. a peer SDK's example), which serves `url`, and
    /// waits until `url`'s port accepts connections. Its stdout and stderr go to `log`.
    pub(crate) fn start_serving(
        name: &str,
        argv: &[String],
        url: &str,
        placement: Placement,
        log: &Path,
    ) -> anyhow::Result<Self> {
        let (program, args) = argv.split_first().context("an empty server command")?;
        let (mut command, log_file) = placed(program.as_ref(), placement, log)?;
        let child = command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(log_file.try_clone()?))
            .stderr(Stdio::from(log_file))
            .spawn()
            .with_context(|| format!("starting {program}"))?;
        let mut server =
            ServerProcess { name: name.to_owned(), child, url: url.to_owned(), banner: Vec::new() };
        let address = socket_address(url)?;
        let deadline = std::time::Instant::now() + READY_TIMEOUT;
        loop {
            if std::net::TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                bail!("{name} exited ({status}) before serving {url} (see {})", log.display());
            }
            if std::time::Instant::now() >= deadline {
                bail!("{name} did not accept connections at {address} within {READY_TIMEOUT:?}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The base URL it printed, e.g. `http://127.0.0.1:40123`.
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// The lines it printed on stdout before its address (none for [`start_serving`](Self::start_serving)).
    pub(crate) fn banner(&self) -> &[String] {
        &self.banner
    }

    /// Whether it is still running.
    pub(crate) fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
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

/// How long a started server may take to accept connections.
const READY_TIMEOUT: Duration = Duration::from_secs(60);

/// The socket address of an `http://host:port/...` URL (port 80 if none).
fn socket_address(url: &str) -> anyhow::Result<std::net::SocketAddr> {
    use std::net::ToSocketAddrs as _;
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next().unwrap_or_default();
    let with_port = if authority.rsplit_once(':').is_some_and(|(_, p)| p.parse::<u16>().is_ok()) {
        authority.to_owned()
    } else {
        format!("{authority}:80")
    };
    with_port
        .to_socket_addrs()
        .with_context(|| format!("resolving {with_port}"))?
        .find(std::net::SocketAddr::is_ipv4)
        .with_context(|| format!("{with_port} has no IPv4 address"))
}

/// `VmRSS` of process `pid`, in bytes.
pub(crate) fn rss_bytes(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).context("no VmRSS line")?;
    let kib: u64 = line.split_whitespace().nth(1).context("malformed VmRSS")?.parse()?;
    Ok(kib * 1024)
}

/// How many file descriptors process `pid` has open (the entries of `/proc/PID/fd`).
pub(crate) fn open_fds(pid: u32) -> anyhow::Result<usize> {
    Ok(std::fs::read_dir(format!("/proc/{pid}/fd"))?.count())
}

/// CPU time (user + system, all threads) process `pid` has used so far.
pub(crate) fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    stat_time(&pid.to_string(), StatField::Own)
}

/// CPU time (user + system) of this process's children that have exited and been waited for:
/// read before and after running a load generator to completion, the difference is all the CPU
/// the generator used (every thread, its start and exit included).
pub(crate) fn children_cpu_time() -> anyhow::Result<Duration> {
    stat_time("self", StatField::WaitedChildren)
}

/// CPU time (user + system, all threads) this process has used so far.
pub(crate) fn own_cpu_time() -> anyhow::Result<Duration> {
    stat_time("self", StatField::Own)
}

/// Which pair of times of proc(5)'s `stat` to add up.
#[derive(Clone, Copy)]
enum StatField {
    /// `utime` and `stime` (fields 14 and 15).
    Own,
    /// `cutime` and `cstime` (fields 16 and 17).
    WaitedChildren,
}

fn stat_time(process: &str, field: StatField) -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{process}/stat"))?;
    // The command name may contain spaces: the fields we need follow its closing parenthesis.
    let rest = &stat[stat.rfind(')').context("malformed stat")? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 of proc(5).
    let first = match field {
        StatField::Own => 14 - 3,
        StatField::WaitedChildren => 16 - 3,
    };
    let ticks: u64 = fields.get(first).context("truncated stat")?.parse::<u64>()?
        + fields.get(first + 1).context("truncated stat")?.parse::<u64>()?;
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
    fn socket_addresses_come_from_the_url_authority() {
        assert_eq!(socket_address("http://127.0.0.1:3000/jsonrpc").unwrap().to_string(), "127.0.0.1:3000");
        assert_eq!(socket_address("http://127.0.0.1").unwrap().port(), 80);
        assert_eq!(socket_address("localhost:50051").unwrap().to_string(), "127.0.0.1:50051");
    }

    #[test]
    fn a_started_command_is_ready_once_its_port_accepts_and_fails_if_it_exits() {
        let log = std::env::temp_dir().join(format!("a2a-bench-serving-{}.log", std::process::id()));
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        let argv = ["sleep".to_owned(), "30".to_owned()];
        let server = ServerProcess::start_serving("sleeper", &argv, &url, Placement::Anywhere, &log).unwrap();
        assert_eq!(server.url(), url);
        drop(server);
        drop(listener);
        let argv = ["true".to_owned()];
        let error =
            ServerProcess::start_serving("quitter", &argv, &url, Placement::Anywhere, &log).unwrap_err();
        assert!(error.to_string().contains("exited"), "{error}");
        let _ = std::fs::remove_file(log);
    }

    #[test]
    fn waited_children_cpu_time_grows_by_what_a_child_used() {
        let before = children_cpu_time().unwrap();
        // A child that burns ~100 ms of CPU.
        let status = Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        assert!(children_cpu_time().unwrap() > before);
        assert!(own_cpu_time().is_ok());
    }

    #[test]
    fn own_rss_and_cpu_time_are_readable_from_proc() {
        let pid = std::process::id();
        assert!(rss_bytes(pid).unwrap() > 0);
        // Other tests of this process open and close files meanwhile: stdin, stdout and stderr
        // at least.
        assert!(open_fds(pid).unwrap() >= 3);
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(30) {
            std::hint::black_box(0u64);
        }
        assert!(cpu_time(pid).unwrap() > Duration::ZERO);
    }
}
