//! `cargo xtask interop [--bless]`: the official A2A SDKs against our reference server, and our
//! three clients against agents written with those SDKs (see `docs/interop.md`).
//!
//! In order, stopping at the first step that cannot be done (an install that fails is an error,
//! never a skip):
//!
//! 1. Installs the SDKs: the Python SDK into `tests/interop/.venv` from `requirements.txt`
//!    (`--require-hashes`), the JS SDK into `tests/interop/js/node_modules` with `npm ci` from the
//!    committed `package-lock.json`. A stamp beside each records what was installed, so an
//!    unchanged lock file costs nothing on the next run.
//! 2. Builds `a2a-server` and `a2a-interop-driver`.
//! 3. Starts our reference server on `127.0.0.1:0` (the port is read from what it prints).
//! 4. For each peer SDK: starts its webhook receiver, runs its client program once per binding
//!    against our server (the last check registers that receiver for a task's push
//!    notifications), checks what the receiver parsed (push-delivery), stops the receiver; then
//!    starts its agent and runs our driver (`tests/interop/driver`) against it.
//! 5. Stops everything it started (also on failure: every child is killed when dropped), builds
//!    the matrix from the programs' `INTEROP` lines and compares it with the one in
//!    `docs/interop.md`; `--bless` writes it there instead.
//!
//! Every cell must pass, except the cells listed in [`KNOWN_FAILURES`], which must fail (the
//! programs assert what the spec says; a known failure that starts passing is reported so the
//! list and the docs get updated). Logs of every program are in `$CARGO_TARGET_DIR/interop/`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};

/// The bindings, as spelled in `AgentInterface.protocolBinding` and in the programs' output,
/// with the label used on the command line and in webhook paths, and the matrix heading.
const BINDINGS: [(&str, &str, &str); 3] =
    [("JSONRPC", "jsonrpc", "JSON-RPC"), ("HTTP+JSON", "rest", "HTTP+JSON"), ("GRPC", "grpc", "gRPC")];

/// Every operation of the matrix, in the order of the programs (and of `OPERATIONS` in
/// `tests/interop/driver/src/checks.rs`).
const OPERATIONS: [(&str, &str); 22] = [
    ("card", "agent card resolution (well-known URI, skills, capabilities, interface)"),
    ("extended-card", "GetExtendedAgentCard"),
    ("send-task", "SendMessage → Task COMPLETED with the echo artifact, history"),
    ("send-message", "SendMessage → direct Message reply"),
    ("send-return-immediately", "SendMessage with returnImmediately → non-terminal Task"),
    ("multi-turn", "INPUT_REQUIRED, then a follow-up on the task completes it"),
    ("send-fail", "SendMessage → Task FAILED"),
    ("send-reject", "SendMessage → Task REJECTED"),
    ("stream", "SendStreamingMessage: Task first, chunks (append/lastChunk), COMPLETED last"),
    ("stream-message", "SendStreamingMessage → exactly one Message, then the end"),
    ("get-history", "GetTask with historyLength unset / 1 / 0"),
    (
        "list",
        "ListTasks: contextId and status filters, pageSize/pageToken, totalSize, order, includeArtifacts",
    ),
    ("cancel", "CancelTask → CANCELED, GetTask agrees"),
    ("subscribe", "SubscribeToTask: Task first, CANCELED update, end"),
    ("push-config", "Create/Get/List/Delete TaskPushNotificationConfig"),
    ("error-task-not-found", "GetTask of an unknown id → TaskNotFoundError"),
    ("error-not-cancelable", "CancelTask of a COMPLETED task → TaskNotCancelableError"),
    ("error-terminal-send", "SendMessage to a COMPLETED task → UnsupportedOperationError"),
    ("error-subscribe-terminal", "SubscribeToTask of a COMPLETED task → UnsupportedOperationError"),
    (
        "error-invalid-params",
        "ListTasks with pageSize 150 → invalid params (JSON-RPC -32602, HTTP 400, INVALID_ARGUMENT)",
    ),
    ("push-send", "SendMessage with an inline push config (Bearer auth + token)"),
    ("push-delivery", "the webhook, parsing with the other stack's types, got the task's notifications"),
];

/// Who sent the requests and who served them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Direction {
    /// The peer SDK's client against our reference server (pushes go to the peer's receiver).
    TheirClient,
    /// Our clients (the driver) against the peer SDK's agent (pushes go to our receiver).
    OurClient,
}

impl Direction {
    const ALL: [Direction; 2] = [Direction::TheirClient, Direction::OurClient];

    fn heading(self) -> &'static str {
        match self {
            Direction::TheirClient => "their client → our server",
            Direction::OurClient => "our client → their server",
        }
    }
}

/// An official SDK and its programs under `tests/interop/`.
#[derive(Debug, Clone, Copy)]
struct Peer {
    /// Short name, used in log file names and in [`KNOWN_FAILURES`].
    name: &'static str,
    /// The package, as the docs name it.
    package: &'static str,
    /// How the peer's push sender treats the config's token when the config also has
    /// authentication (passed to the driver as `--push-token-with-auth`): `sent` or `omitted`.
    push_token_with_auth: &'static str,
}

const PEERS: [Peer; 2] = [
    Peer { name: "python", package: "a2a-sdk", push_token_with_auth: "sent" },
    // @a2a-js/sdk's DefaultPushNotificationSender sends the token header only when the config has
    // no authentication (docs/interop.md, "Findings").
    Peer { name: "js", package: "@a2a-js/sdk", push_token_with_auth: "omitted" },
];

/// Whose side a known failure is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(dead_code, reason = "no known failure at the pinned versions; kept for the next one")]
enum Side {
    /// The peer deviates from the spec in a way our side cannot reasonably tolerate.
    Peer,
    /// A bug of ours, reported to the lead; the cell turns green when it is fixed (and the
    /// runner then asks for the entry to be removed).
    Ours,
}

/// A cell that is known to fail. The programs still assert the spec's behaviour there, so the
/// cell must fail; the note under the matrix explains.
#[derive(Debug)]
#[allow(dead_code, reason = "no known failure at the pinned versions; kept for the next one")]
struct KnownFailure {
    side: Side,
    peer: &'static str,
    direction: Direction,
    binding: &'static str,
    op: &'static str,
    /// Why, with the spec section and the peer version (shown under the matrix).
    note: &'static str,
}

/// The cells known to fail at the pinned versions, peer deviations first. Empty: the one bug of
/// ours the matrix found (docs/interop.md, finding 1) is fixed.
const KNOWN_FAILURES: &[KnownFailure] = &[];

/// What our server pushes for the `stream 3` task of `push-send`: every event of the task, in
/// stream order, starting with the Task snapshot (`kind`, `summary` as the receivers print them).
const OUR_PUSH_SEQUENCE: [(&str, &str); 6] = [
    ("task", "TASK_STATE_SUBMITTED"),
    ("statusUpdate", "TASK_STATE_WORKING"),
    ("artifactUpdate", "chunk 0\\n||"),
    ("artifactUpdate", "chunk 1\\n|append|"),
    ("artifactUpdate", "chunk 2\\n|append|lastChunk"),
    ("statusUpdate", "TASK_STATE_COMPLETED"),
];
const PUSH_AUTHORIZATION: &str = "Bearer interop-secret";
const PUSH_TOKEN: &str = "interop-token";

const START_TIMEOUT: Duration = Duration::from_secs(60);
const PROGRAM_TIMEOUT: Duration = Duration::from_secs(300);
const PUSH_TIMEOUT: Duration = Duration::from_secs(20);

const MATRIX_BEGIN: &str = "<!-- interop-matrix:begin (generated by `cargo xtask interop --bless`) -->";
const MATRIX_END: &str = "<!-- interop-matrix:end -->";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let mut bless = false;
    for arg in args {
        match arg.as_str() {
            "--bless" => bless = true,
            other => bail!("unknown argument {other:?}; usage: cargo xtask interop [--bless]"),
        }
    }
    let started = Instant::now();
    let root = crate::workspace_root();
    let dir = root.join("tests/interop");
    let logs = target_dir(&root).join("interop");
    if logs.exists() {
        fs::remove_dir_all(&logs).with_context(|| format!("clearing {}", logs.display()))?;
    }
    fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;

    let python = install_python(&dir)?;
    install_js(&dir)?;
    let versions = Versions::read(&dir)?;
    crate::run_cargo(&["build", "-p", "a2a-server", "--bin", "a2a-server", "-p", "a2a-interop-driver"])?;
    let bin = target_dir(&root).join("debug");

    let mut results = Results::default();
    {
        let mut server = Service::start(
            "our-server",
            Command::new(bin.join("a2a-server")).args([
                "--listen",
                "127.0.0.1:0",
                "--push-allow",
                "127.0.0.0/8",
            ]),
            "a2a-server listening on ",
            &logs,
        )?;
        let our_url = server.url.clone();
        for peer in PEERS {
            their_clients(peer, &python, &dir, &our_url, &logs, &mut results)?;
            our_clients(peer, &python, &dir, &bin, &logs, &mut results)?;
        }
        server.stop();
    }

    let matrix = render(&results, &versions);
    fs::write(logs.join("matrix.md"), &matrix)?;
    let summary = results.evaluate();
    println!("{}", summary.report);
    println!("interop: {} passed, {} failed", summary.passed, summary.failed);
    eprintln!("xtask: interop took {:.0?}; logs in {}", started.elapsed(), logs.display());
    ensure!(summary.failed == 0, "{} interop cell(s) failed (logs in {})", summary.failed, logs.display());
    sync_docs(&root.join("docs/interop.md"), &matrix, bless)
}

/// The peer's client programs against our server, one per binding, and the push-delivery cells
/// from what the peer's webhook receiver parsed.
fn their_clients(
    peer: Peer,
    python: &Path,
    dir: &Path,
    our_url: &str,
    logs: &Path,
    results: &mut Results,
) -> anyhow::Result<()> {
    let mut webhook = Service::start(
        &format!("{}-webhook", peer.name),
        &mut peer_command(peer, python, dir, "webhook", &[]),
        "webhook listening on ",
        logs,
    )?;
    let mut push_tasks = BTreeMap::new();
    for (binding, label, _) in BINDINGS {
        let name = format!("{}-client-{label}", peer.name);
        let args = ["--url", our_url, "--binding", label, "--webhook", &webhook.url];
        let output = run_program(&name, &mut peer_command(peer, python, dir, "sdk_client", &args), logs)?;
        for line in &output.lines {
            if let Some(rest) = line.strip_prefix("PUSH-TASK\t") {
                let fields: Vec<_> = rest.split('\t').collect();
                if let [reported, _, task_id] = fields[..] {
                    push_tasks.insert(reported.to_owned(), task_id.to_owned());
                }
            }
        }
        results.absorb(peer.name, Direction::TheirClient, Some(binding), &name, &output);
    }
    let records = webhook.push_records(PUSH_TIMEOUT);
    for (binding, label, _) in BINDINGS {
        let outcome = match push_tasks.get(binding) {
            None => Err("push-send did not create a task".to_owned()),
            Some(task_id) => check_our_pushes(&records, label, task_id),
        };
        results.set(peer.name, Direction::TheirClient, binding, "push-delivery", outcome);
    }
    webhook.stop();
    Ok(())
}

/// Our driver (all three of our clients) against the peer's agent.
fn our_clients(
    peer: Peer,
    python: &Path,
    dir: &Path,
    bin: &Path,
    logs: &Path,
    results: &mut Results,
) -> anyhow::Result<()> {
    let mut agent = Service::start(
        &format!("{}-agent", peer.name),
        &mut peer_command(peer, python, dir, "agent", &[]),
        "interop-agent listening on ",
        logs,
    )?;
    let name = format!("driver-{}", peer.name);
    let mut driver = Command::new(bin.join("a2a-interop-driver"));
    driver.args(["--url", &agent.url, "--push-token-with-auth", peer.push_token_with_auth]);
    let output = run_program(&name, &mut driver, logs)?;
    results.absorb(peer.name, Direction::OurClient, None, &name, &output);
    agent.stop();
    Ok(())
}

/// The command running one of a peer's programs (`sdk_client`, `agent`, `webhook`).
fn peer_command(peer: Peer, python: &Path, dir: &Path, program: &str, args: &[&str]) -> Command {
    let mut command = match peer.name {
        "python" => {
            let mut c = Command::new(python);
            c.arg(format!("{program}.py")).current_dir(dir.join("python"));
            c
        }
        _ => {
            let mut c = Command::new("node");
            c.arg(format!("{program}.mjs")).current_dir(dir.join("js"));
            c
        }
    };
    command.args(args);
    command
}

// --- installs --------------------------------------------------------------------------------

/// Creates `tests/interop/.venv` afresh and installs `requirements.txt` into it (hash-checked),
/// unless the stamp says this exact file is installed with this interpreter; returns the venv's
/// python.
fn install_python(dir: &Path) -> anyhow::Result<PathBuf> {
    let venv = dir.join(".venv");
    let python = venv.join("bin/python");
    let requirements =
        fs::read_to_string(dir.join("requirements.txt")).context("reading requirements.txt")?;
    let system_python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let version = output_of(Command::new(&system_python).args([
        "-c",
        "import sys; assert sys.version_info >= (3, 10), 'a2a-sdk needs Python 3.10 or later'; print(sys.version)",
    ]))
    .with_context(|| format!("running {system_python} (Python 3.10 or later is needed; PYTHON chooses one)"))?;
    let wanted = format!("{requirements}\n# {system_python}: {}", version.trim());
    let stamp = venv.join(".interop-installed");
    if fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) && python.exists() {
        return Ok(python);
    }
    eprintln!("xtask: installing the Python SDK into {}", venv.display());
    if venv.exists() {
        fs::remove_dir_all(&venv).with_context(|| format!("removing the old {}", venv.display()))?;
    }
    check(Command::new(&system_python).args(["-m", "venv"]).arg(&venv), "creating the virtualenv")?;
    check(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--require-hashes"])
            .args(["--no-deps", "-r"])
            .arg(dir.join("requirements.txt")),
        "pip install -r tests/interop/requirements.txt",
    )?;
    check(Command::new(&python).args(["-m", "pip", "check"]), "pip check (the pinned set is inconsistent)")?;
    fs::write(&stamp, wanted)?;
    Ok(python)
}

/// `npm ci` in `tests/interop/js` unless the stamp says this exact lock file is installed.
fn install_js(dir: &Path) -> anyhow::Result<()> {
    let js = dir.join("js");
    let lock = fs::read_to_string(js.join("package-lock.json")).context("reading js/package-lock.json")?;
    let stamp = js.join("node_modules/.interop-installed");
    if fs::read_to_string(&stamp).is_ok_and(|s| s == lock) {
        return Ok(());
    }
    eprintln!("xtask: installing the JS SDK into {}", js.join("node_modules").display());
    let version =
        output_of(Command::new("node").args(["-p", "Number(process.versions.node.split('.')[0]) >= 20"]))
            .context("running node (Node.js 20 or later is needed)")?;
    ensure!(version.trim() == "true", "node is older than 20, which @a2a-js/sdk needs");
    check(
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&js),
        "npm ci in tests/interop/js",
    )?;
    fs::write(&stamp, lock)?;
    Ok(())
}

/// Runs `command` to completion, failing loudly with what it was doing.
fn check(command: &mut Command, what: &str) -> anyhow::Result<()> {
    let status = command.status().with_context(|| format!("{what}: could not start {command:?}"))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

fn output_of(command: &mut Command) -> anyhow::Result<String> {
    let output = command.output()?;
    ensure!(output.status.success(), "{command:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The pinned SDK versions, for the matrix headings.
struct Versions {
    python: String,
    js: String,
}

impl Versions {
    fn read(dir: &Path) -> anyhow::Result<Self> {
        let requirements = fs::read_to_string(dir.join("requirements.txt"))?;
        let python = requirements
            .lines()
            .find_map(|l| l.strip_prefix("a2a-sdk[grpc,http-server]=="))
            .map(|v| v.trim_end_matches(['\\', ' ']).to_owned())
            .context("requirements.txt pins no a2a-sdk version")?;
        let package = fs::read_to_string(dir.join("js/package.json"))?;
        let js = package
            .lines()
            .find_map(|l| l.trim().strip_prefix("\"@a2a-js/sdk\": \""))
            .and_then(|v| v.split('"').next())
            .map(str::to_owned)
            .context("js/package.json pins no @a2a-js/sdk version")?;
        Ok(Versions { python, js })
    }

    fn of(&self, peer: &str) -> &str {
        if peer == "python" {
            &self.python
        } else {
            &self.js
        }
    }
}

// --- processes -------------------------------------------------------------------------------

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

/// A server the runner started; `url` is what it printed after `marker`.
struct Service {
    name: String,
    url: String,
    running: Running,
}

impl Service {
    fn start(name: &str, command: &mut Command, marker: &str, logs: &Path) -> anyhow::Result<Self> {
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

    /// Reads the receiver's `PUSH` lines until every label has seen a terminal state, or
    /// `timeout` passes; returns what arrived.
    fn push_records(&self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut records = Vec::new();
        let terminal =
            ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];
        let all_done = |records: &[String]| {
            BINDINGS.iter().all(|(_, label, _)| {
                records.iter().any(|r| {
                    let f: Vec<_> = r.split('\t').collect();
                    f.len() >= 5 && f[1] == *label && terminal.contains(&f[4])
                })
            })
        };
        while !all_done(&records) {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.running.lines.recv_timeout(left) {
                Ok(line) if line.starts_with("PUSH") => records.push(line),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        records
    }

    fn stop(&mut self) {
        eprintln!("xtask: stopping {}", self.name);
        self.running.kill();
    }
}

/// What a client program printed and how it ended.
struct ProgramOutput {
    lines: Vec<String>,
    status: Option<ExitStatus>,
}

/// Runs a program to its end (killed after [`PROGRAM_TIMEOUT`]), collecting its stdout lines.
fn run_program(name: &str, command: &mut Command, logs: &Path) -> anyhow::Result<ProgramOutput> {
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

// --- results ---------------------------------------------------------------------------------

type Key = (&'static str, Direction, &'static str, &'static str);

#[derive(Default)]
struct Results {
    cells: BTreeMap<Key, Result<(), String>>,
    /// Programs that exited unsuccessfully without a failed cell to show for it.
    problems: Vec<String>,
}

fn binding_key(binding: &str) -> Option<&'static str> {
    BINDINGS.iter().map(|(b, _, _)| *b).find(|b| *b == binding)
}

fn op_key(op: &str) -> Option<&'static str> {
    OPERATIONS.iter().map(|(o, _)| *o).find(|o| *o == op)
}

impl Results {
    fn set(
        &mut self,
        peer: &'static str,
        direction: Direction,
        binding: &'static str,
        op: &'static str,
        outcome: Result<(), String>,
    ) {
        self.cells.insert((peer, direction, binding, op), outcome);
    }

    /// Records the program's `INTEROP` lines (`binding` restricts them to one binding).
    fn absorb(
        &mut self,
        peer: &'static str,
        direction: Direction,
        binding: Option<&'static str>,
        name: &str,
        output: &ProgramOutput,
    ) {
        let mut failed_cells = false;
        for line in &output.lines {
            let Some(rest) = line.strip_prefix("INTEROP\t") else { continue };
            let fields: Vec<_> = rest.splitn(4, '\t').collect();
            let (Some(reported), Some(op), Some(result)) = (fields.first(), fields.get(1), fields.get(2))
            else {
                self.problems.push(format!("{name}: malformed line {line:?}"));
                continue;
            };
            let detail = fields.get(3).copied().unwrap_or("");
            let (Some(b), Some(o)) = (binding_key(reported), op_key(op)) else {
                self.problems.push(format!("{name}: unknown binding or operation in {line:?}"));
                continue;
            };
            if binding.is_some_and(|expected| expected != b) {
                self.problems.push(format!("{name}: reported {b} but runs {}", binding.unwrap_or_default()));
                continue;
            }
            let outcome = match *result {
                "pass" => Ok(()),
                _ => {
                    failed_cells = true;
                    Err(detail.to_owned())
                }
            };
            self.set(peer, direction, b, o, outcome);
        }
        let success = output.status.is_some_and(|s| s.success());
        if !success && !failed_cells {
            let how = output.status.map_or("was killed (timeout)".to_owned(), |s| format!("exited {s}"));
            self.problems.push(format!("{name} {how} without a failed cell; see its logs"));
        }
    }

    /// Every expected cell against what happened and [`KNOWN_FAILURES`].
    fn evaluate(&self) -> Summary {
        let mut report = String::new();
        let (mut passed, mut failed) = (0, 0);
        for (peer, direction, binding, op) in expected_cells() {
            let known = known_failure(peer.name, direction, binding, op);
            match (self.cells.get(&(peer.name, direction, binding, op)), known) {
                (Some(Ok(())), None) => passed += 1,
                (Some(Err(_)), Some(_)) => passed += 1,
                (Some(Ok(())), Some(_)) => {
                    failed += 1;
                    let _ = writeln!(
                        report,
                        "UNEXPECTED PASS {} {} {binding} {op}: a known failure passes; update KNOWN_FAILURES and docs/interop.md",
                        peer.name,
                        direction.heading()
                    );
                }
                (Some(Err(detail)), None) => {
                    failed += 1;
                    let _ = writeln!(
                        report,
                        "FAIL {} {} {binding} {op}: {detail}",
                        peer.name,
                        direction.heading()
                    );
                }
                (None, _) => {
                    failed += 1;
                    let _ = writeln!(
                        report,
                        "MISSING {} {} {binding} {op}: not reported",
                        peer.name,
                        direction.heading()
                    );
                }
            }
        }
        for problem in &self.problems {
            failed += 1;
            let _ = writeln!(report, "PROBLEM {problem}");
        }
        Summary { report, passed, failed }
    }
}

struct Summary {
    report: String,
    passed: usize,
    failed: usize,
}

fn expected_cells() -> impl Iterator<Item = (Peer, Direction, &'static str, &'static str)> {
    PEERS.into_iter().flat_map(|peer| {
        Direction::ALL.into_iter().flat_map(move |direction| {
            BINDINGS.into_iter().flat_map(move |(binding, _, _)| {
                OPERATIONS.into_iter().map(move |(op, _)| (peer, direction, binding, op))
            })
        })
    })
}

fn known_failure(
    peer: &str,
    direction: Direction,
    binding: &str,
    op: &str,
) -> Option<(usize, &'static KnownFailure)> {
    KNOWN_FAILURES
        .iter()
        .enumerate()
        .find(|(_, d)| d.peer == peer && d.direction == direction && d.binding == binding && d.op == op)
}

/// What the peer's receiver parsed for our server's `push-send` task: exactly
/// [`OUR_PUSH_SEQUENCE`], each with the configured `Authorization` and token headers.
fn check_our_pushes(records: &[String], label: &str, task_id: &str) -> Result<(), String> {
    let mine: Vec<Vec<&str>> = records
        .iter()
        .map(|r| r.split('\t').collect::<Vec<_>>())
        .filter(|f| f.get(1) == Some(&label))
        .collect();
    if let Some(error) = mine.iter().find(|f| f[0] == "PUSH-ERROR") {
        return Err(format!("the receiver could not parse a notification: {}", error.get(2).unwrap_or(&"")));
    }
    let got: Vec<(&str, &str)> = mine.iter().filter(|f| f.len() == 7).map(|f| (f[3], f[4])).collect();
    if got != OUR_PUSH_SEQUENCE {
        return Err(format!("notifications {got:?}, want {OUR_PUSH_SEQUENCE:?}"));
    }
    for fields in &mine {
        if fields[2] != task_id {
            return Err(format!("a notification for task {:?}, want {task_id:?}", fields[2]));
        }
        if fields[5] != PUSH_AUTHORIZATION {
            return Err(format!("Authorization {:?}, want {PUSH_AUTHORIZATION:?} (spec 4.3.3)", fields[5]));
        }
        if fields[6] != PUSH_TOKEN {
            return Err(format!("X-A2A-Notification-Token {:?}, want {PUSH_TOKEN:?}", fields[6]));
        }
    }
    Ok(())
}

// --- the matrix ------------------------------------------------------------------------------

/// The matrix as it stands in `docs/interop.md` (deterministic: no timings, no details).
fn render(results: &Results, versions: &Versions) -> String {
    let mut out = String::new();
    for peer in PEERS {
        let _ = writeln!(out, "### `{}` {}\n", peer.package, versions.of(peer.name));
        let mut header = String::from("| operation |");
        let mut rule = String::from("|---|");
        for direction in Direction::ALL {
            for (_, _, heading) in BINDINGS {
                let _ = write!(header, " {}: {heading} |", direction.heading());
                rule.push_str(":---:|");
            }
        }
        let _ = writeln!(out, "{header}\n{rule}");
        for (op, what) in OPERATIONS {
            let _ = write!(out, "| `{op}`: {what} |");
            for direction in Direction::ALL {
                for (binding, _, _) in BINDINGS {
                    let known = known_failure(peer.name, direction, binding, op);
                    let cell = match (results.cells.get(&(peer.name, direction, binding, op)), known) {
                        (Some(Err(_)), Some((n, known))) => match known.side {
                            Side::Peer => format!("peer deviation ({})", n + 1),
                            Side::Ours => format!("our bug ({})", n + 1),
                        },
                        (Some(Ok(())), None) => "pass".to_owned(),
                        (Some(Ok(())), Some(_)) => "pass (listed as known failure!)".to_owned(),
                        (Some(Err(_)), None) => "**FAIL**".to_owned(),
                        (None, _) => "**not run**".to_owned(),
                    };
                    let _ = write!(out, " {cell} |");
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    if KNOWN_FAILURES.is_empty() {
        out.push_str("Known failures: none at these versions.\n");
    } else {
        out.push_str("Known failures (the cell's check fails as expected):\n\n");
        for (n, known) in KNOWN_FAILURES.iter().enumerate() {
            let side = match known.side {
                Side::Peer => "peer deviation",
                Side::Ours => "our bug, reported",
            };
            let _ = writeln!(
                out,
                "{}. {side}: {} {}, {} `{}`: {}",
                n + 1,
                known.peer,
                known.direction.heading(),
                known.binding,
                known.op,
                known.note
            );
        }
    }
    out
}

/// Compares the generated matrix with the one in `docs/interop.md`, or writes it there.
fn sync_docs(path: &Path, matrix: &str, bless: bool) -> anyhow::Result<()> {
    let doc = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let begin = doc
        .find(MATRIX_BEGIN)
        .with_context(|| format!("{} lacks the line {MATRIX_BEGIN}", path.display()))?;
    let start = begin + MATRIX_BEGIN.len();
    let end = doc[start..]
        .find(MATRIX_END)
        .map(|i| start + i)
        .with_context(|| format!("{} lacks {MATRIX_END}", path.display()))?;
    let current = doc[start..end].trim();
    if current == matrix.trim() {
        eprintln!("xtask: the matrix in {} matches this run", path.display());
        return Ok(());
    }
    if bless {
        let updated = format!("{}\n{}\n{}", &doc[..start], matrix.trim(), &doc[end..]);
        fs::write(path, updated)?;
        eprintln!("xtask: wrote the matrix into {}", path.display());
        return Ok(());
    }
    bail!(
        "the matrix in {} differs from this run (the run itself passed); look at the generated one in \
         $CARGO_TARGET_DIR/interop/matrix.md and run `cargo xtask interop --bless` to update the docs",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exit(code: i32) -> Option<ExitStatus> {
        use std::os::unix::process::ExitStatusExt as _;
        Some(ExitStatus::from_raw(code << 8))
    }

    fn our_push_lines(task_id: &str, token: &str) -> Vec<String> {
        OUR_PUSH_SEQUENCE
            .iter()
            .map(|(kind, summary)| {
                format!("PUSH\trest\t{task_id}\t{kind}\t{summary}\t{PUSH_AUTHORIZATION}\t{token}")
            })
            .collect()
    }

    #[test]
    fn our_pushes_pass_only_as_the_exact_sequence_with_both_headers() {
        assert_eq!(check_our_pushes(&our_push_lines("t1", PUSH_TOKEN), "rest", "t1"), Ok(()));
        let missing_token = check_our_pushes(&our_push_lines("t1", ""), "rest", "t1");
        assert!(missing_token.unwrap_err().contains("X-A2A-Notification-Token"));
        let other_task = check_our_pushes(&our_push_lines("t2", PUSH_TOKEN), "rest", "t1");
        assert!(other_task.unwrap_err().contains("for task"));
        let mut short = our_push_lines("t1", PUSH_TOKEN);
        short.remove(2);
        assert!(check_our_pushes(&short, "rest", "t1").unwrap_err().starts_with("notifications"));
        let mut broken = our_push_lines("t1", PUSH_TOKEN);
        broken.push("PUSH-ERROR\trest\tParseError: unknown field".into());
        assert!(check_our_pushes(&broken, "rest", "t1").unwrap_err().contains("could not parse"));
        assert!(check_our_pushes(&our_push_lines("t1", PUSH_TOKEN), "grpc", "t1").is_err(), "another label");
    }

    #[test]
    fn absorbed_lines_become_cells_and_a_silent_crash_is_a_problem() {
        let mut results = Results::default();
        let output = ProgramOutput {
            lines: vec![
                "some log line".into(),
                "INTEROP\tGRPC\tcard\tpass\t".into(),
                "INTEROP\tGRPC\tcancel\tfail\tstate WORKING".into(),
            ],
            status: exit(1),
        };
        results.absorb("python", Direction::TheirClient, Some("GRPC"), "p", &output);
        assert_eq!(results.cells[&("python", Direction::TheirClient, "GRPC", "card")], Ok(()));
        assert_eq!(
            results.cells[&("python", Direction::TheirClient, "GRPC", "cancel")],
            Err("state WORKING".to_owned())
        );
        assert!(results.problems.is_empty(), "the failure is explained by a failed cell");

        let crashed = ProgramOutput { lines: vec!["INTEROP\tGRPC\tcard\tpass\t".into()], status: exit(2) };
        results.absorb("js", Direction::TheirClient, Some("GRPC"), "j", &crashed);
        let other_binding =
            ProgramOutput { lines: vec!["INTEROP\tJSONRPC\tcard\tpass\t".into()], status: exit(0) };
        results.absorb("js", Direction::TheirClient, Some("GRPC"), "j", &other_binding);
        let unknown = ProgramOutput { lines: vec!["INTEROP\tGRPC\tdance\tpass\t".into()], status: exit(0) };
        results.absorb("js", Direction::TheirClient, Some("GRPC"), "j", &unknown);
        assert_eq!(results.problems.len(), 3, "{:?}", results.problems);
    }

    fn all_passing() -> Results {
        let mut results = Results::default();
        for (peer, direction, binding, op) in expected_cells() {
            let outcome = match known_failure(peer.name, direction, binding, op) {
                Some(_) => Err("as known".to_owned()),
                None => Ok(()),
            };
            results.set(peer.name, direction, binding, op, outcome);
        }
        results
    }

    #[test]
    fn every_cell_is_counted_and_known_failures_must_fail() {
        let results = all_passing();
        let summary = results.evaluate();
        assert_eq!((summary.passed, summary.failed), (expected_cells().count(), 0), "{}", summary.report);

        let mut missing = all_passing();
        missing.cells.remove(&("js", Direction::OurClient, "GRPC", "stream"));
        let summary = missing.evaluate();
        assert_eq!(summary.failed, 1);
        assert!(summary.report.contains("MISSING js our client → their server GRPC stream"));

        if let Some(known) = KNOWN_FAILURES.first() {
            let mut fixed = all_passing();
            fixed.set(known.peer, known.direction, known.binding, known.op, Ok(()));
            let summary = fixed.evaluate();
            assert_eq!(summary.failed, 1);
            assert!(summary.report.contains("UNEXPECTED PASS"));
        }
    }

    #[test]
    fn the_matrix_names_every_operation_and_marks_failures() {
        let versions = Versions { python: "9.9.9".into(), js: "8.8.8".into() };
        let matrix = render(&all_passing(), &versions);
        assert!(matrix.contains("### `a2a-sdk` 9.9.9") && matrix.contains("### `@a2a-js/sdk` 8.8.8"));
        for (op, _) in OPERATIONS {
            assert_eq!(matrix.matches(&format!("| `{op}`:")).count(), PEERS.len(), "{op}");
        }
        assert!(!matrix.contains("**FAIL**") && !matrix.contains("**not run**"));
        let mut failing = all_passing();
        failing.set("python", Direction::TheirClient, "JSONRPC", "list", Err("boom".into()));
        assert!(render(&failing, &versions).contains("**FAIL**"));
    }

    #[test]
    fn the_matrix_in_the_docs_is_replaced_between_the_markers_only() {
        let dir = std::env::temp_dir().join(format!("xtask-interop-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("interop.md");
        fs::write(&path, format!("intro\n{MATRIX_BEGIN}\nold\n{MATRIX_END}\noutro\n")).unwrap();
        assert!(sync_docs(&path, "new", false).is_err(), "a stale matrix fails without --bless");
        sync_docs(&path, "new", true).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("intro\n{MATRIX_BEGIN}\nnew\n{MATRIX_END}\noutro\n")
        );
        sync_docs(&path, "new", false).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_operations_are_those_of_the_driver() {
        let driver = include_str!("../../tests/interop/driver/src/checks.rs");
        let start = driver.find("pub(crate) const OPERATIONS").unwrap();
        let list = &driver[start..start + driver[start..].find("];").unwrap()];
        let names: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
        assert_eq!(names, OPERATIONS.map(|(op, _)| op));
    }
}
