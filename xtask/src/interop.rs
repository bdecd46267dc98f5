//! `cargo xtask interop [--bless] [--line 1.0|0.3]`: the official A2A SDKs against our reference
//! server, and our three clients against agents written with those SDKs (see `docs/interop.md`).
//! Two lines of each SDK take part: the 1.x line (A2A 1.0) and the 0.3 line (A2A 0.3, which our
//! server serves on the same endpoints and our clients speak with
//! `with_protocol_version(ProtocolVersion::V0_3)`); `--line` runs one of them only (the docs are
//! then compared, or blessed, for that line's sections only).
//!
//! In order, stopping at the first step that cannot be done (an install that fails is an error,
//! never a skip):
//!
//! 1. Installs the SDKs: the Python SDK into `tests/interop/.venv` from `requirements.txt` and its
//!    0.3 line into `tests/interop/.venv-v03` from `requirements-v03.txt` (`--require-hashes`), the
//!    JS SDK into `tests/interop/js/node_modules` and its 0.3 line into
//!    `tests/interop/js-v03/node_modules` with `npm ci` from the committed `package-lock.json`. A
//!    stamp beside each records what was installed, so an unchanged lock file costs nothing on
//!    the next run.
//! 2. Builds `a2a-server` and `a2a-interop-driver`.
//! 3. Starts our reference server on `127.0.0.1:0` (the port is read from what it prints).
//! 4. For each peer SDK, the 1.x lines first: starts its webhook receiver, runs its client
//!    program once per binding against our server (the last check registers that receiver for a
//!    task's push notifications), checks what the receiver parsed (push-delivery), stops the
//!    receiver; then starts its agent and runs our driver (`tests/interop/driver`, with
//!    `--protocol 0.3` for a 0.3 peer) against it. Each program serves all its cells in one run.
//! 5. Stops everything it started (also on failure: every child is killed when dropped), builds
//!    the matrix from the programs' `INTEROP` lines and compares it with the one in
//!    `docs/interop.md`; `--bless` writes it there instead.
//!
//! Every cell must pass, except the cells listed in [`KNOWN_FAILURES`], which must fail (the
//! programs assert what the spec says; a known failure that starts passing is reported so the
//! list and the docs get updated), and the cells in [`NOT_APPLICABLE`], which no program runs
//! (the peer's SDK has no API for the operation) and which must not be reported. Logs of every
//! program are in `$CARGO_TARGET_DIR/interop/`.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context as _};

mod card_signing;

/// The bindings, as spelled in `AgentInterface.protocolBinding` and in the programs' output,
/// with the label used on the command line and in webhook paths, and the matrix heading.
const BINDINGS: [(&str, &str, &str); 3] =
    [("JSONRPC", "jsonrpc", "JSON-RPC"), ("HTTP+JSON", "rest", "HTTP+JSON"), ("GRPC", "grpc", "gRPC")];

/// Every operation of the 1.0 matrix, in the order of the programs (and of `OPERATIONS` in
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

/// Every operation of the 0.3 matrix, in the order of the programs (and of `OPERATIONS_V03` in
/// `tests/interop/driver/src/checks.rs`). 1.0 operations without a 0.3 counterpart (ListTasks;
/// the terminal-task errors and the invalid-params example, which 0.3 does not define) are not
/// in it.
const OPERATIONS_V03: [(&str, &str); 20] = [
    ("card", "card resolution: the 0.3 reader reads the well-known card, the factory picks the binding's interface"),
    ("extended-card", "agent/getAuthenticatedExtendedCard (REST `GET /v1/card`, gRPC `GetAgentCard`)"),
    ("send-task", "message/send (blocking) → Task `completed` with the echo artifact, history"),
    ("send-message", "message/send → direct Message reply"),
    ("send-non-blocking", "message/send with `blocking: false` → Task `submitted`/`working`"),
    ("multi-turn", "`input-required`, then a follow-up on the task completes it"),
    ("send-fail", "message/send → Task `failed`"),
    ("send-reject", "message/send → Task `rejected`"),
    ("stream", "message/stream `stream 3`: Task first, chunks (append/lastChunk), `completed` with `final` last"),
    ("stream-message", "message/stream → exactly one Message, then the end"),
    ("get-history", "tasks/get with historyLength unset / 1"),
    ("cancel", "tasks/cancel → `canceled`, tasks/get agrees"),
    ("resubscribe", "tasks/resubscribe of a `wait` task: `canceled` (final) update after tasks/cancel, end"),
    ("push-config", "tasks/pushNotificationConfig/set (client-chosen id) and get"),
    ("push-config-list-delete", "tasks/pushNotificationConfig/set, list, delete, list"),
    ("error-task-not-found", "tasks/get of an unknown id → TaskNotFoundError (-32001)"),
    ("error-not-cancelable", "tasks/cancel of a `completed` task → TaskNotCancelableError (-32002)"),
    (
        "file",
        "message/send `file` with a file part: the agent read the same bytes (length, SHA-256); the SDK agents' echo reads back",
    ),
    ("push-send", "message/send with an inline `pushNotificationConfig` (token + Bearer authentication)"),
    ("push-delivery", "the webhook got 0.3 push bodies (the Task, `kind: \"task\"`, lower-kebab states)"),
];

/// A line of the official SDKs: the protocol version its peers speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Line {
    /// The 1.x SDKs, A2A 1.0.
    V1_0,
    /// The 0.3 SDKs, A2A 0.3.
    V0_3,
}

impl Line {
    const ALL: [Line; 2] = [Line::V1_0, Line::V0_3];

    fn name(self) -> &'static str {
        match self {
            Line::V1_0 => "1.0",
            Line::V0_3 => "0.3",
        }
    }

    fn operations(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Line::V1_0 => &OPERATIONS,
            Line::V0_3 => &OPERATIONS_V03,
        }
    }
}

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

/// The language of a peer's programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lang {
    /// Python programs in `tests/interop/python`, run with the peer's venv.
    Python,
    /// Node.js programs in the peer's directory under `tests/interop`.
    Js,
}

/// An official SDK (one line of it) and its programs under `tests/interop/`.
#[derive(Debug, Clone, Copy)]
struct Peer {
    /// Short name, used in log file names and in [`KNOWN_FAILURES`].
    name: &'static str,
    /// The package, as the docs name it.
    package: &'static str,
    /// The protocol line it speaks.
    line: Line,
    lang: Lang,
    /// Python: the venv under `tests/interop` and its requirements file; JS: the package
    /// directory under `tests/interop` (the requirements field is unused).
    install: (&'static str, &'static str),
    /// Python: the suffix of the program names (`sdk_client{suffix}.py`); JS: none.
    suffix: &'static str,
    /// Extra arguments for our driver against the peer's agent: how its push sender treats the
    /// config's token next to authentication, (0.3) whether it sends `Authorization` at all, and
    /// (0.3) the encoding of file bytes it reads over gRPC and HTTP+JSON.
    driver_args: &'static [&'static str],
}

const PEERS: [Peer; 4] = [
    Peer {
        name: "python",
        package: "a2a-sdk",
        line: Line::V1_0,
        lang: Lang::Python,
        install: (".venv", "requirements.txt"),
        suffix: "",
        driver_args: &["--push-token-with-auth", "sent"],
    },
    // @a2a-js/sdk's DefaultPushNotificationSender sends the token header only when the config has
    // no authentication (docs/interop.md, "Findings").
    Peer {
        name: "js",
        package: "@a2a-js/sdk",
        line: Line::V1_0,
        lang: Lang::Js,
        install: ("js", ""),
        suffix: "",
        driver_args: &["--push-token-with-auth", "omitted"],
    },
    // Both 0.3 SDKs' push senders send the token header only, never `Authorization`
    // (docs/interop.md, "The 0.3 line"). a2a-sdk 0.3 reads the proto's file bytes as the UTF-8 of
    // base64 text (docs/interop.md, "File parts"), so our clients send them so.
    Peer {
        name: "python-v03",
        package: "a2a-sdk",
        line: Line::V0_3,
        lang: Lang::Python,
        install: (".venv-v03", "requirements-v03.txt"),
        suffix: "_v03",
        driver_args: &[
            "--protocol",
            "0.3",
            "--push-authorization",
            "omitted",
            "--v03-file-bytes",
            "base64-text",
        ],
    },
    Peer {
        name: "js-v03",
        package: "@a2a-js/sdk",
        line: Line::V0_3,
        lang: Lang::Js,
        install: ("js-v03", ""),
        suffix: "",
        driver_args: &["--protocol", "0.3", "--push-authorization", "omitted"],
    },
];

/// Cells that are known to fail because the peer deviates from the spec in a way our side cannot
/// reasonably tolerate (one operation of one peer and direction, on some bindings). The programs
/// still assert the spec's behaviour there, so each cell must fail; the note under the matrix
/// explains. A bug of ours is fixed, not listed here.
#[derive(Debug)]
struct KnownFailure {
    peer: &'static str,
    direction: Direction,
    bindings: &'static [&'static str],
    op: &'static str,
    /// Why, with the spec section and the peer version (shown under the matrix).
    note: &'static str,
}

const ALL_BINDINGS: &[&str] = &["JSONRPC", "HTTP+JSON", "GRPC"];

/// The cells known to fail at the pinned versions. None on the 1.0 line
/// (the bug of ours it found, docs/interop.md finding 1, is fixed); the 0.3 line's are described
/// in docs/interop.md, "The 0.3 line".
const KNOWN_FAILURES: &[KnownFailure] = &[
    KnownFailure {
        peer: "js-v03",
        direction: Direction::TheirClient,
        bindings: &["HTTP+JSON", "GRPC"],
        op: "stream",
        note: "@a2a-js/sdk 0.3.14's REST and gRPC clients drop `append` from every artifact update \
               (`FromProto.taskArtifactUpdateEvent` copies `lastChunk` only), so the chunks after the \
               first read as replacements; our server sends `append: true` (0.3 spec 7.2.3). Its \
               JSON-RPC client keeps it.",
    },
    KnownFailure {
        peer: "python-v03",
        direction: Direction::OurClient,
        bindings: ALL_BINDINGS,
        op: "resubscribe",
        note: "a2a-sdk 0.3.26's server never delivers the `canceled` update to a tasks/resubscribe \
               stream: `on_cancel_task` enqueues it on the cancel call's own tap of the task's \
               queue, then closes the queue, so JSON-RPC and REST streams end empty and the gRPC \
               stream stays open (the check times out). Its own client sees the same.",
    },
    KnownFailure {
        peer: "python-v03",
        direction: Direction::OurClient,
        bindings: &["JSONRPC"],
        op: "push-config-list-delete",
        note: "a2a-sdk 0.3.26 answers tasks/pushNotificationConfig/delete with \
               `{\"id\": 3, \"jsonrpc\": \"2.0\"}`, without the `result` (null) that JSON-RPC 2.0 \
               requires of a success; our client refuses the reply.",
    },
    KnownFailure {
        peer: "python-v03",
        direction: Direction::OurClient,
        bindings: &["HTTP+JSON"],
        op: "push-config-list-delete",
        note: "a2a-sdk 0.3.26's REST server answers `GET /v1/tasks/{id}/pushNotificationConfigs` with \
               500 `{\"message\": \"unknown exception\"}` and has no DELETE route (405).",
    },
    KnownFailure {
        peer: "python-v03",
        direction: Direction::OurClient,
        bindings: &["GRPC"],
        op: "push-config-list-delete",
        note: "a2a-sdk 0.3.26's `GrpcHandler` does not implement ListTaskPushNotificationConfig and \
               DeleteTaskPushNotificationConfig (UNIMPLEMENTED \"Method not implemented!\").",
    },
    KnownFailure {
        peer: "python-v03",
        direction: Direction::OurClient,
        bindings: &["GRPC"],
        op: "error-not-cancelable",
        note: "a2a-sdk 0.3.26's gRPC server sends TaskNotCancelableError as UNIMPLEMENTED, which is \
               UnsupportedOperation to our client; @a2a-js/sdk 0.3 and 1.0 (spec 5.4) use \
               FAILED_PRECONDITION.",
    },
    KnownFailure {
        peer: "js-v03",
        direction: Direction::OurClient,
        bindings: &["JSONRPC", "HTTP+JSON"],
        op: "get-history",
        note: "@a2a-js/sdk 0.3.14's tasks/get returns an empty history when historyLength is absent \
               (`DefaultRequestHandler.getTask` sets `history = []` unless it is given); 0.3 makes \
               historyLength an optional limit. Over gRPC an absent length arrives as 0, which it \
               reads as no limit.",
    },
];

/// A cell no program runs: the peer SDK has no API for the operation.
#[derive(Debug)]
struct NotApplicable {
    peer: &'static str,
    direction: Direction,
    op: &'static str,
    /// Why (shown under the matrix).
    note: &'static str,
}

/// The cells not run at the pinned versions.
const NOT_APPLICABLE: &[NotApplicable] = &[NotApplicable {
    peer: "python-v03",
    direction: Direction::TheirClient,
    op: "push-config-list-delete",
    note: "a2a-sdk 0.3.26's `Client` (and its transports) has set and get for push configs, no \
           list or delete.",
}];

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
const MATRIX_V03_BEGIN: &str =
    "<!-- interop-matrix-0.3:begin (generated by `cargo xtask interop --bless`) -->";
const MATRIX_V03_END: &str = "<!-- interop-matrix-0.3:end -->";
const CARD_SIGNING_BEGIN: &str =
    "<!-- interop-card-signing:begin (generated by `cargo xtask interop --bless`) -->";
const CARD_SIGNING_END: &str = "<!-- interop-card-signing:end -->";

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    const USAGE: &str = "usage: cargo xtask interop [--bless] [--line 1.0|0.3] [--card-signing]";
    let mut bless = false;
    let mut card_signing_only = false;
    let mut lines = Line::ALL.to_vec();
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bless" => bless = true,
            "--card-signing" => card_signing_only = true,
            "--line" => {
                let wanted = args.next().with_context(|| format!("--line needs a value; {USAGE}"))?;
                let line = Line::ALL.into_iter().find(|l| l.name() == wanted);
                lines = vec![line.with_context(|| format!("unknown line {wanted:?}; {USAGE}"))?];
            }
            other => bail!("unknown argument {other:?}; {USAGE}"),
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

    if card_signing_only {
        return run_card_signing(&root, &dir, &logs, bless, started);
    }
    let peers: Vec<Peer> = PEERS.into_iter().filter(|p| lines.contains(&p.line)).collect();
    let mut pythons = BTreeMap::new();
    for peer in &peers {
        match peer.lang {
            Lang::Python => {
                let python = install_python(&dir, peer.install.0, peer.install.1)?;
                pythons.insert(peer.name, python);
            }
            Lang::Js => install_js(&dir, peer.install.0)?,
        }
    }
    let versions = Versions::read(&dir)?;
    crate::run_cargo(&[
        "build",
        "-p",
        "a2a-server",
        "--bin",
        "a2a-server",
        "-p",
        "a2a-interop-driver",
        "--bin",
        "a2a-interop-driver",
        "-p",
        "a2a-cli",
        "--bin",
        "a2a-cli",
    ])?;
    let bin = target_dir(&root).join("debug");

    let mut results = Results::default();
    // The server's default store (SQLite) in a data directory of this run's.
    let data_dir = std::env::temp_dir().join(format!("a2a-interop-data-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&data_dir);
    {
        let mut server = Service::start(
            "our-server",
            Command::new(bin.join("a2a-server"))
                .args(["--listen", "127.0.0.1:0", "--push-allow", "127.0.0.0/8", "--data-dir"])
                .arg(&data_dir)
                .env_remove("A2A_STORE"),
            "a2a-server listening on ",
            &logs,
        )?;
        let our_url = server.url.clone();
        for peer in &peers {
            let python = pythons.get(peer.name).map(PathBuf::as_path);
            their_clients(*peer, python, &dir, &our_url, &logs, &mut results)?;
            our_clients(*peer, python, &dir, &bin, &logs, &mut results)?;
        }
        server.stop();
    }
    let _ = std::fs::remove_dir_all(&data_dir);

    // The signed-card cells, with the 1.x SDKs (module card_signing).
    let signing_peers: Vec<(Peer, Option<&Path>)> = peers
        .iter()
        .filter(|p| p.line == Line::V1_0)
        .map(|p| (*p, pythons.get(p.name).map(PathBuf::as_path)))
        .collect();
    let signing = if signing_peers.is_empty() {
        None
    } else {
        Some(card_signing::run(&root, &signing_peers, &bin, &logs)?)
    };
    let mut summary = results.evaluate(&peers);
    if let Some(outcomes) = &signing {
        let (passed, failed, report) = card_signing::evaluate(&signing_peers, outcomes);
        summary.passed += passed;
        summary.failed += failed;
        summary.report.push_str(&report);
    }
    println!("{}", summary.report);
    println!("interop: {} passed, {} failed", summary.passed, summary.failed);
    eprintln!("xtask: interop took {:.0?}; logs in {}", started.elapsed(), logs.display());
    ensure!(summary.failed == 0, "{} interop cell(s) failed (logs in {})", summary.failed, logs.display());
    for line in lines {
        let matrix = render(&results, &versions, line);
        fs::write(logs.join(format!("matrix-{}.md", line.name())), &matrix)?;
        let (begin, end) = match line {
            Line::V1_0 => (MATRIX_BEGIN, MATRIX_END),
            Line::V0_3 => (MATRIX_V03_BEGIN, MATRIX_V03_END),
        };
        sync_docs(&root.join("docs/interop.md"), (begin, end), &matrix, bless)?;
    }
    if let Some(outcomes) = &signing {
        let table = card_signing::render(&signing_peers, &versions, outcomes);
        sync_docs(&root.join("docs/interop.md"), (CARD_SIGNING_BEGIN, CARD_SIGNING_END), &table, bless)?;
    }
    Ok(())
}

/// `--card-signing`: the signed-card cells alone (module card_signing), with the 1.x SDKs.
fn run_card_signing(
    root: &Path,
    dir: &Path,
    logs: &Path,
    bless: bool,
    started: Instant,
) -> anyhow::Result<()> {
    let mut pythons = BTreeMap::new();
    let peers: Vec<Peer> = PEERS.into_iter().filter(|p| p.line == Line::V1_0).collect();
    for peer in &peers {
        match peer.lang {
            Lang::Python => {
                pythons.insert(peer.name, install_python(dir, peer.install.0, peer.install.1)?);
            }
            Lang::Js => install_js(dir, peer.install.0)?,
        }
    }
    let versions = Versions::read(dir)?;
    crate::run_cargo(&[
        "build",
        "-p",
        "a2a-server",
        "--bin",
        "a2a-server",
        "-p",
        "a2a-cli",
        "--bin",
        "a2a-cli",
    ])?;
    let bin = target_dir(root).join("debug");
    let peers: Vec<(Peer, Option<&Path>)> =
        peers.iter().map(|p| (*p, pythons.get(p.name).map(PathBuf::as_path))).collect();
    let outcomes = card_signing::run(root, &peers, &bin, logs)?;
    let (passed, failed, report) = card_signing::evaluate(&peers, &outcomes);
    println!("{report}");
    println!("interop: {passed} passed, {failed} failed");
    eprintln!("xtask: interop --card-signing took {:.0?}; logs in {}", started.elapsed(), logs.display());
    ensure!(failed == 0, "{failed} card-signing cell(s) failed (logs in {})", logs.display());
    let table = card_signing::render(&peers, &versions, &outcomes);
    fs::write(logs.join("matrix-card-signing.md"), &table)?;
    sync_docs(&root.join("docs/interop.md"), (CARD_SIGNING_BEGIN, CARD_SIGNING_END), &table, bless)
}

/// The peer's client programs against our server, one per binding, and the push-delivery cells
/// from what the peer's webhook receiver parsed.
fn their_clients(
    peer: Peer,
    python: Option<&Path>,
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
        results.absorb(peer, Direction::TheirClient, Some(binding), &name, &output);
    }
    let records = webhook.push_records(PUSH_TIMEOUT);
    for (binding, label, _) in BINDINGS {
        let outcome = match push_tasks.get(binding) {
            None => Err("push-send did not create a task".to_owned()),
            Some(task_id) => match peer.line {
                Line::V1_0 => check_our_pushes(&records, label, task_id),
                Line::V0_3 => check_our_pushes_v03(&records, label, task_id),
            },
        };
        results.set(peer.name, Direction::TheirClient, binding, "push-delivery", outcome);
    }
    webhook.stop();
    Ok(())
}

/// Our driver (all three of our clients) against the peer's agent.
fn our_clients(
    peer: Peer,
    python: Option<&Path>,
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
    driver.args(["--url", &agent.url]).args(peer.driver_args);
    let output = run_program(&name, &mut driver, logs)?;
    results.absorb(peer, Direction::OurClient, None, &name, &output);
    agent.stop();
    Ok(())
}

/// The command running one of a peer's programs (`sdk_client`, `agent`, `webhook`).
fn peer_command(peer: Peer, python: Option<&Path>, dir: &Path, program: &str, args: &[&str]) -> Command {
    let mut command = match (peer.lang, python) {
        (Lang::Python, Some(python)) => {
            let mut c = Command::new(python);
            c.arg(format!("{program}{}.py", peer.suffix)).current_dir(dir.join("python"));
            c
        }
        _ => {
            let mut c = Command::new("node");
            c.arg(format!("{program}.mjs")).current_dir(dir.join(peer.install.0));
            c
        }
    };
    command.args(args);
    command
}

// --- installs --------------------------------------------------------------------------------

/// Creates `{dir}/{venv}` (e.g. `tests/interop/.venv`) afresh and installs `{requirements}` into it (hash-checked),
/// unless the stamp says this exact file is installed with this interpreter; returns the venv's
/// python.
pub(crate) fn install_python(dir: &Path, venv: &str, requirements_file: &str) -> anyhow::Result<PathBuf> {
    let venv = dir.join(venv);
    let python = venv.join("bin/python");
    let requirements = fs::read_to_string(dir.join(requirements_file))
        .with_context(|| format!("reading {requirements_file}"))?;
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
    eprintln!("xtask: installing {requirements_file} into {}", venv.display());
    if venv.exists() {
        fs::remove_dir_all(&venv).with_context(|| format!("removing the old {}", venv.display()))?;
    }
    check(Command::new(&system_python).args(["-m", "venv"]).arg(&venv), "creating the virtualenv")?;
    check(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--require-hashes"])
            .args(["--no-deps", "-r"])
            .arg(dir.join(requirements_file)),
        &format!("pip install -r {}", dir.join(requirements_file).display()),
    )?;
    check(Command::new(&python).args(["-m", "pip", "check"]), "pip check (the pinned set is inconsistent)")?;
    fs::write(&stamp, wanted)?;
    Ok(python)
}

/// `npm ci` in `tests/interop/{package}` unless the stamp says this exact lock file is installed.
pub(crate) fn install_js(dir: &Path, package: &str) -> anyhow::Result<()> {
    let js = dir.join(package);
    let lock = fs::read_to_string(js.join("package-lock.json"))
        .with_context(|| format!("reading {package}/package-lock.json"))?;
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
        &format!("npm ci in tests/interop/{package}"),
    )?;
    fs::write(&stamp, lock)?;
    Ok(())
}

/// Runs `command` to completion, failing loudly with what it was doing.
pub(crate) fn check(command: &mut Command, what: &str) -> anyhow::Result<()> {
    let status = command.status().with_context(|| format!("{what}: could not start {command:?}"))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

fn output_of(command: &mut Command) -> anyhow::Result<String> {
    let output = command.output()?;
    ensure!(output.status.success(), "{command:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

pub(crate) fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

/// The a2a-sdk version a requirements file pins (`a2a-sdk[extras]==X \`).
fn pinned_a2a_sdk(requirements: &str) -> Option<String> {
    requirements
        .lines()
        .find_map(|l| l.strip_prefix("a2a-sdk[").and_then(|rest| rest.split_once("]==")).map(|(_, v)| v))
        .map(|v| v.trim_end_matches(['\\', ' ']).to_owned())
}

/// The pinned SDK versions, for the matrix headings, by peer name.
struct Versions(BTreeMap<&'static str, String>);

impl Versions {
    fn read(dir: &Path) -> anyhow::Result<Self> {
        let mut versions = BTreeMap::new();
        for peer in PEERS {
            let version = match peer.lang {
                Lang::Python => {
                    let requirements = fs::read_to_string(dir.join(peer.install.1))?;
                    pinned_a2a_sdk(&requirements)
                        .with_context(|| format!("{} pins no a2a-sdk version", peer.install.1))?
                }
                Lang::Js => {
                    let package = fs::read_to_string(dir.join(peer.install.0).join("package.json"))?;
                    package
                        .lines()
                        .find_map(|l| l.trim().strip_prefix("\"@a2a-js/sdk\": \""))
                        .and_then(|v| v.split('"').next())
                        .map(str::to_owned)
                        .with_context(|| {
                            format!("{}/package.json pins no @a2a-js/sdk version", peer.install.0)
                        })?
                }
            };
            versions.insert(peer.name, version);
        }
        Ok(Versions(versions))
    }

    fn of(&self, peer: &str) -> &str {
        self.0.get(peer).map_or("?", String::as_str)
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
pub(crate) struct Service {
    name: String,
    pub(crate) url: String,
    running: Running,
}

impl Service {
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

    /// Reads the receiver's `PUSH` lines until every label has seen a terminal state (either
    /// version's spelling) or a payload the receiver refused (which decides the cell), or
    /// `timeout` passes; returns what arrived.
    fn push_records(&self, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut records = Vec::new();
        let terminal = [
            "TASK_STATE_COMPLETED",
            "TASK_STATE_FAILED",
            "TASK_STATE_CANCELED",
            "TASK_STATE_REJECTED",
            "completed",
            "failed",
            "canceled",
            "rejected",
        ];
        let all_done = |records: &[String]| {
            BINDINGS.iter().all(|(_, label, _)| {
                records.iter().any(|r| {
                    let f: Vec<_> = r.split('\t').collect();
                    f.len() >= 2
                        && f[1] == *label
                        && (f[0] == "PUSH-ERROR" || (f.len() >= 5 && terminal.contains(&f[4])))
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

    pub(crate) fn stop(&mut self) {
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

fn op_key(line: Line, op: &str) -> Option<&'static str> {
    line.operations().iter().map(|(o, _)| *o).find(|o| *o == op)
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
        peer: Peer,
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
            let (Some(b), Some(o)) = (binding_key(reported), op_key(peer.line, op)) else {
                self.problems.push(format!("{name}: unknown binding or operation in {line:?}"));
                continue;
            };
            if not_applicable(peer.name, direction, o).is_some() {
                self.problems.push(format!("{name}: reported {o}, which is listed in NOT_APPLICABLE"));
                continue;
            }
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
            self.set(peer.name, direction, b, o, outcome);
        }
        let success = output.status.is_some_and(|s| s.success());
        if !success && !failed_cells {
            let how = output.status.map_or("was killed (timeout)".to_owned(), |s| format!("exited {s}"));
            self.problems.push(format!("{name} {how} without a failed cell; see its logs"));
        }
    }

    /// Every expected cell of `peers` against what happened and [`KNOWN_FAILURES`].
    fn evaluate(&self, peers: &[Peer]) -> Summary {
        let mut report = String::new();
        let (mut passed, mut failed) = (0, 0);
        for (peer, direction, binding, op) in expected_cells(peers) {
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

/// The cells of `peers` that must be reported: every operation of the peer's line, both
/// directions, every binding, less [`NOT_APPLICABLE`].
fn expected_cells(
    peers: &[Peer],
) -> impl Iterator<Item = (Peer, Direction, &'static str, &'static str)> + '_ {
    peers.iter().copied().flat_map(|peer| {
        Direction::ALL.into_iter().flat_map(move |direction| {
            BINDINGS.into_iter().flat_map(move |(binding, _, _)| {
                peer.line
                    .operations()
                    .iter()
                    .filter(move |(op, _)| not_applicable(peer.name, direction, op).is_none())
                    .map(move |(op, _)| (peer, direction, binding, *op))
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
    KNOWN_FAILURES.iter().enumerate().find(|(_, d)| {
        d.peer == peer && d.direction == direction && d.bindings.contains(&binding) && d.op == op
    })
}

fn not_applicable(peer: &str, direction: Direction, op: &str) -> Option<(usize, &'static NotApplicable)> {
    NOT_APPLICABLE.iter().enumerate().find(|(_, n)| n.peer == peer && n.direction == direction && n.op == op)
}

/// What a 0.3 receiver (`webhook_v03.py`, `js-v03/webhook.mjs`) parsed for our server's
/// `push-send` task: at least one notification, every one the 0.3 Task of that task (the
/// receiver refuses anything else), with the configured `Authorization` and token headers, the
/// last one `completed` with the three chunks' text.
fn check_our_pushes_v03(records: &[String], label: &str, task_id: &str) -> Result<(), String> {
    let mine: Vec<Vec<&str>> = records
        .iter()
        .map(|r| r.split('\t').collect::<Vec<_>>())
        .filter(|f| f.get(1) == Some(&label))
        .collect();
    if let Some(error) = mine.iter().find(|f| f[0] == "PUSH-ERROR") {
        return Err(format!("the receiver refused a notification: {}", error.get(2).unwrap_or(&"")));
    }
    let tasks: Vec<&Vec<&str>> = mine.iter().filter(|f| f.len() == 8).collect();
    let Some(last) = tasks.last() else { return Err("no notification arrived".to_owned()) };
    for fields in &tasks {
        if fields[2] != task_id {
            return Err(format!("a notification for task {:?}, want {task_id:?}", fields[2]));
        }
        if fields[6] != PUSH_AUTHORIZATION {
            return Err(format!("Authorization {:?}, want {PUSH_AUTHORIZATION:?}", fields[6]));
        }
        if fields[7] != PUSH_TOKEN {
            return Err(format!(
                "X-A2A-Notification-Token {:?}, want {PUSH_TOKEN:?} (0.3 spec 9.5)",
                fields[7]
            ));
        }
    }
    if (last[4], last[5]) != ("completed", "chunk 0\\nchunk 1\\nchunk 2\\n") {
        return Err(format!("the last notification is {} with artifact text {:?}", last[4], last[5]));
    }
    Ok(())
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

/// The matrix of `line` as it stands in `docs/interop.md` (deterministic: no timings, no details).
fn render(results: &Results, versions: &Versions, line: Line) -> String {
    let mut out = String::new();
    let peers: Vec<Peer> = PEERS.into_iter().filter(|p| p.line == line).collect();
    for peer in &peers {
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
        for (op, what) in line.operations() {
            let _ = write!(out, "| `{op}`: {what} |");
            for direction in Direction::ALL {
                for (binding, _, _) in BINDINGS {
                    let _ = write!(out, " {} |", cell(results, peer.name, direction, binding, op));
                }
            }
            out.push('\n');
        }
        out.push('\n');
    }
    let known: Vec<_> =
        KNOWN_FAILURES.iter().enumerate().filter(|(_, k)| peers.iter().any(|p| p.name == k.peer)).collect();
    if known.is_empty() {
        out.push_str("Known failures: none at these versions.\n");
    } else {
        out.push_str("Known failures (the cell's check fails as expected):\n\n");
        for (n, known) in known {
            let _ = writeln!(
                out,
                "{}. peer deviation: {} {}, {} `{}`: {}",
                n + 1,
                known.peer,
                known.direction.heading(),
                known.bindings.join(", "),
                known.op,
                known.note
            );
        }
    }
    let skipped: Vec<_> =
        NOT_APPLICABLE.iter().enumerate().filter(|(_, k)| peers.iter().any(|p| p.name == k.peer)).collect();
    if !skipped.is_empty() {
        out.push_str("\nNot applicable (not run):\n\n");
        for (n, skipped) in skipped {
            let _ = writeln!(
                out,
                "{}. {} {}, `{}`: {}",
                n + 1,
                skipped.peer,
                skipped.direction.heading(),
                skipped.op,
                skipped.note
            );
        }
    }
    out
}

/// One cell of the rendered matrix.
fn cell(results: &Results, peer: &str, direction: Direction, binding: &str, op: &str) -> String {
    if let Some((n, _)) = not_applicable(peer, direction, op) {
        return format!("n/a ({})", n + 1);
    }
    let known = known_failure(peer, direction, binding, op);
    let got = results
        .cells
        .iter()
        .find(|((p, d, b, o), _)| *p == peer && *d == direction && *b == binding && *o == op);
    match (got.map(|(_, outcome)| outcome), known) {
        (Some(Err(_)), Some((n, _))) => format!("peer deviation ({})", n + 1),
        (Some(Ok(())), None) => "pass".to_owned(),
        (Some(Ok(())), Some(_)) => "pass (listed as known failure!)".to_owned(),
        (Some(Err(_)), None) => "**FAIL**".to_owned(),
        (None, _) => "**not run**".to_owned(),
    }
}

/// Compares the generated matrix with the one between `markers` in `docs/interop.md`, or writes
/// it there.
fn sync_docs(path: &Path, markers: (&str, &str), matrix: &str, bless: bool) -> anyhow::Result<()> {
    let (begin_marker, end_marker) = markers;
    let doc = fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let begin = doc
        .find(begin_marker)
        .with_context(|| format!("{} lacks the line {begin_marker}", path.display()))?;
    let start = begin + begin_marker.len();
    let end = doc[start..]
        .find(end_marker)
        .map(|i| start + i)
        .with_context(|| format!("{} lacks {end_marker}", path.display()))?;
    let current = doc[start..end].trim();
    if current == matrix.trim() {
        eprintln!("xtask: the matrix after {begin_marker} in {} matches this run", path.display());
        return Ok(());
    }
    if bless {
        let updated = format!("{}\n{}\n{}", &doc[..start], matrix.trim(), &doc[end..]);
        fs::write(path, updated)?;
        eprintln!("xtask: wrote the matrix after {begin_marker} into {}", path.display());
        return Ok(());
    }
    bail!(
        "the matrix after {begin_marker} in {} differs from this run (the run itself passed); look at \
         the generated ones in $CARGO_TARGET_DIR/interop/matrix-*.md and run `cargo xtask interop --bless` \
         to update the docs",
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

    fn peer(name: &str) -> Peer {
        PEERS.into_iter().find(|p| p.name == name).unwrap()
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
        results.absorb(peer("python"), Direction::TheirClient, Some("GRPC"), "p", &output);
        assert_eq!(results.cells[&("python", Direction::TheirClient, "GRPC", "card")], Ok(()));
        assert_eq!(
            results.cells[&("python", Direction::TheirClient, "GRPC", "cancel")],
            Err("state WORKING".to_owned())
        );
        assert!(results.problems.is_empty(), "the failure is explained by a failed cell");

        let crashed = ProgramOutput { lines: vec!["INTEROP\tGRPC\tcard\tpass\t".into()], status: exit(2) };
        results.absorb(peer("js"), Direction::TheirClient, Some("GRPC"), "j", &crashed);
        let other_binding =
            ProgramOutput { lines: vec!["INTEROP\tJSONRPC\tcard\tpass\t".into()], status: exit(0) };
        results.absorb(peer("js"), Direction::TheirClient, Some("GRPC"), "j", &other_binding);
        let unknown = ProgramOutput { lines: vec!["INTEROP\tGRPC\tdance\tpass\t".into()], status: exit(0) };
        results.absorb(peer("js"), Direction::TheirClient, Some("GRPC"), "j", &unknown);
        // A 1.0-only operation from a 0.3 peer, and a cell listed as not applicable.
        let v1_only = ProgramOutput { lines: vec!["INTEROP\tGRPC\tlist\tpass\t".into()], status: exit(0) };
        results.absorb(peer("js-v03"), Direction::TheirClient, Some("GRPC"), "j3", &v1_only);
        let skipped = ProgramOutput {
            lines: vec!["INTEROP\tGRPC\tpush-config-list-delete\tpass\t".into()],
            status: exit(0),
        };
        results.absorb(peer("python-v03"), Direction::TheirClient, Some("GRPC"), "p3", &skipped);
        assert_eq!(results.problems.len(), 5, "{:?}", results.problems);
    }

    fn all_passing() -> Results {
        let mut results = Results::default();
        for (peer, direction, binding, op) in expected_cells(&PEERS) {
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
        let summary = results.evaluate(&PEERS);
        assert_eq!(
            (summary.passed, summary.failed),
            (expected_cells(&PEERS).count(), 0),
            "{}",
            summary.report
        );
        let per_line = |line: Line| {
            PEERS.iter().filter(|p| p.line == line).map(|p| 2 * 3 * p.line.operations().len()).sum::<usize>()
        };
        assert_eq!(
            expected_cells(&PEERS).count(),
            per_line(Line::V1_0) + per_line(Line::V0_3) - 3 * NOT_APPLICABLE.len(),
            "every operation of each peer's line, both directions, three bindings, less the n/a cells"
        );

        let mut missing = all_passing();
        missing.cells.remove(&("js", Direction::OurClient, "GRPC", "stream"));
        let summary = missing.evaluate(&PEERS);
        assert_eq!(summary.failed, 1);
        assert!(summary.report.contains("MISSING js our client → their server GRPC stream"));

        if let Some(known) = KNOWN_FAILURES.first() {
            let mut fixed = all_passing();
            fixed.set(known.peer, known.direction, known.bindings[0], known.op, Ok(()));
            let summary = fixed.evaluate(&PEERS);
            assert_eq!(summary.failed, 1);
            assert!(summary.report.contains("UNEXPECTED PASS"));
        }
    }

    #[test]
    fn the_matrix_names_every_operation_and_marks_failures() {
        let versions = Versions(BTreeMap::from([
            ("python", "9.9.9".to_owned()),
            ("js", "8.8.8".to_owned()),
            ("python-v03", "0.3.99".to_owned()),
            ("js-v03", "0.3.98".to_owned()),
        ]));
        let matrix = render(&all_passing(), &versions, Line::V1_0);
        assert!(matrix.contains("### `a2a-sdk` 9.9.9") && matrix.contains("### `@a2a-js/sdk` 8.8.8"));
        assert!(!matrix.contains("0.3.99"), "the 1.0 matrix has the 1.0 peers only");
        for (op, _) in OPERATIONS {
            assert_eq!(matrix.matches(&format!("| `{op}`:")).count(), 2, "{op}");
        }
        assert!(!matrix.contains("**FAIL**") && !matrix.contains("**not run**"));
        let mut failing = all_passing();
        failing.set("python", Direction::TheirClient, "JSONRPC", "list", Err("boom".into()));
        assert!(render(&failing, &versions, Line::V1_0).contains("**FAIL**"));
        let v03 = render(&all_passing(), &versions, Line::V0_3);
        assert!(v03.contains("### `a2a-sdk` 0.3.99") && v03.contains("### `@a2a-js/sdk` 0.3.98"));
        assert!(!v03.contains("| `list`:"), "ListTasks has no 0.3 counterpart");
        assert!(v03.contains("n/a (1)") && v03.contains("Not applicable"));
        assert!(v03.contains("peer deviation ("));
        assert!(!v03.contains("**FAIL**") && !v03.contains("**not run**"));
    }

    #[test]
    fn the_matrix_in_the_docs_is_replaced_between_the_markers_only() {
        let dir = std::env::temp_dir().join(format!("xtask-interop-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("interop.md");
        fs::write(&path, format!("intro\n{MATRIX_BEGIN}\nold\n{MATRIX_END}\noutro\n")).unwrap();
        let markers = (MATRIX_BEGIN, MATRIX_END);
        assert!(sync_docs(&path, markers, "new", false).is_err(), "a stale matrix fails without --bless");
        sync_docs(&path, markers, "new", true).unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!("intro\n{MATRIX_BEGIN}\nnew\n{MATRIX_END}\noutro\n")
        );
        sync_docs(&path, markers, "new", false).unwrap();
        assert!(sync_docs(&path, (MATRIX_V03_BEGIN, MATRIX_V03_END), "new", true).is_err(), "no 0.3 markers");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_operations_are_those_of_the_driver() {
        let driver = include_str!("../../tests/interop/driver/src/checks.rs");
        let names = |constant: &str| {
            let start = driver.find(&format!("pub(crate) const {constant}:")).unwrap();
            let list = &driver[start..start + driver[start..].find("];").unwrap()];
            list.split('"').skip(1).step_by(2).map(str::to_owned).collect::<Vec<_>>()
        };
        assert_eq!(names("OPERATIONS"), OPERATIONS.map(|(op, _)| op));
        assert_eq!(names("OPERATIONS_V03"), OPERATIONS_V03.map(|(op, _)| op));
    }

    #[test]
    fn our_0_3_pushes_pass_only_as_0_3_tasks_of_the_task_with_both_headers() {
        let line = |state: &str, text: &str, token: &str| {
            format!("PUSH\trest\tt1\ttask\t{state}\t{text}\t{PUSH_AUTHORIZATION}\t{token}")
        };
        let done = line("completed", "chunk 0\\nchunk 1\\nchunk 2\\n", PUSH_TOKEN);
        assert_eq!(
            check_our_pushes_v03(&[line("submitted", "", PUSH_TOKEN), done.clone()], "rest", "t1"),
            Ok(())
        );
        assert!(check_our_pushes_v03(&[], "rest", "t1").unwrap_err().contains("no notification"));
        assert!(check_our_pushes_v03(&[line("working", "chunk 0\\n", PUSH_TOKEN)], "rest", "t1").is_err());
        let no_token = line("completed", "chunk 0\\nchunk 1\\nchunk 2\\n", "");
        assert!(check_our_pushes_v03(&[no_token], "rest", "t1").unwrap_err().contains("Token"));
        let refused = "PUSH-ERROR\trest\tValueError: not a 0.3 Task".to_owned();
        assert!(check_our_pushes_v03(&[refused, done.clone()], "rest", "t1")
            .unwrap_err()
            .contains("refused"));
        assert!(check_our_pushes_v03(&[done], "rest", "t2").unwrap_err().contains("for task"));
    }
}
