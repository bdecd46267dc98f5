//! `cargo xtask interop [--bless] [--line 1.0|0.3] [--card-signing]`: the official A2A SDKs against
//! our reference server, and our three clients against agents written with those SDKs (see
//! `docs/interop.md`). Two lines of each SDK take part: the 1.x line (A2A 1.0) and the 0.3 line
//! (A2A 0.3, which our server serves on the same endpoints and our clients speak with
//! `with_protocol_version(ProtocolVersion::V0_3)`); `--line` runs one of them only (the docs are
//! then compared, or blessed, for that line's sections only).
//!
//! In order, stopping at the first step that cannot be done (an install that fails is an error,
//! never a skip):
//!
//! 1. Installs the SDKs ([`install`]): the Python SDK into `tests/interop/.venv` from
//!    `requirements.txt` and its 0.3 line into `tests/interop/.venv-v03` from
//!    `requirements-v03.txt` (`--require-hashes`), the JS SDK into `tests/interop/js/node_modules`
//!    and its 0.3 line into `tests/interop/js-v03/node_modules` with `npm ci` from the committed
//!    `package-lock.json`. A stamp beside each records what was installed, so an unchanged lock
//!    file costs nothing on the next run.
//! 2. Builds `a2a-server` and `a2a-interop-driver`.
//! 3. Starts our reference server on `127.0.0.1:0` (the port is read from what it prints).
//! 4. For each peer SDK ([`peers`]), the 1.x lines first: starts its webhook receiver, runs its
//!    client program once per binding against our server (the last check registers that receiver
//!    for a task's push notifications), checks what the receiver parsed ([`push`]), stops the
//!    receiver; then starts its agent and runs our driver (`tests/interop/driver`, with
//!    `--protocol 0.3` for a 0.3 peer) against it. Each program serves all its cells in one run
//!    ([`process`]) and prints one JSON record per line ([`records`]).
//! 5. Stops everything it started (also on failure: every child is killed when dropped), judges
//!    the cells ([`results`]), builds the matrix and compares it with the one in
//!    `docs/interop.md` ([`matrix`]); `--bless` writes it there instead.
//!
//! Every cell must pass, except the known failures, which must fail (the programs assert what the
//! spec says; a known failure that starts passing is reported so the list and the docs get
//! updated), and the not-applicable cells, which no program runs and which must not be reported.
//! Both lists are data, `docs/interop-known-failures.json` ([`known`]). The operations are the
//! driver's (`a2a_interop_records`). Logs of every program are in `$CARGO_TARGET_DIR/interop/`.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{bail, ensure, Context as _};

mod card_signing;
mod install;
mod known;
mod matrix;
mod peers;
mod process;
mod push;
mod records;
mod results;

pub(crate) use install::{check, install_js, install_python};
pub(crate) use process::Service;

use known::Known;
use peers::{peer_command, Direction, Line, Peer, BINDINGS, PEERS};
use process::run_program;
use results::Results;

const USAGE: &str = "usage: cargo xtask interop [--bless] [--line 1.0|0.3] [--card-signing]";

/// The command line.
#[derive(Debug, PartialEq, Eq)]
struct Options {
    /// Write the generated matrices into the docs instead of comparing.
    bless: bool,
    /// Run the signed-card cells only.
    card_signing_only: bool,
    /// The lines to run.
    lines: Vec<Line>,
}

impl Options {
    fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut options = Options { bless: false, card_signing_only: false, lines: Line::ALL.to_vec() };
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--bless" => options.bless = true,
                "--card-signing" => options.card_signing_only = true,
                "--line" => {
                    let wanted = args.next().with_context(|| format!("--line needs a value; {USAGE}"))?;
                    let line = Line::ALL.into_iter().find(|l| l.name() == wanted);
                    options.lines = vec![line.with_context(|| format!("unknown line {wanted:?}; {USAGE}"))?];
                }
                other => bail!("unknown argument {other:?}; {USAGE}"),
            }
        }
        Ok(options)
    }
}

/// What every part of a run shares.
struct Run {
    /// The workspace root.
    root: PathBuf,
    /// `tests/interop`.
    dir: PathBuf,
    /// Where every program's output goes (`$CARGO_TARGET_DIR/interop`).
    logs: PathBuf,
    /// The built binaries.
    bin: PathBuf,
    known: Known,
    bless: bool,
    started: Instant,
}

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    let options = Options::parse(args)?;
    let started = Instant::now();
    let root = crate::workspace_root();
    // Before anything is installed or built: a known-failures file that names no cell is an error.
    let known = Known::load(&root)?;
    let logs = target_dir(&root).join("interop");
    if logs.exists() {
        fs::remove_dir_all(&logs).with_context(|| format!("clearing {}", logs.display()))?;
    }
    fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let run = Run {
        dir: root.join("tests/interop"),
        bin: target_dir(&root).join("debug"),
        root,
        logs,
        known,
        bless: options.bless,
        started,
    };
    if options.card_signing_only {
        run.card_signing_only()
    } else {
        run.matrix(&options.lines)
    }
}

impl Run {
    /// The matrix of `lines`, then (with the 1.x line) the signed-card cells.
    fn matrix(&self, lines: &[Line]) -> anyhow::Result<()> {
        let peers: Vec<Peer> = PEERS.into_iter().filter(|p| lines.contains(&p.line)).collect();
        let pythons = install::install_peers(&self.dir, &peers)?;
        let versions = install::Versions::read(&self.dir)?;
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

        let mut results = Results::default();
        // The server's default store (SQLite) in a data directory of this run's.
        let data_dir = std::env::temp_dir().join(format!("a2a-interop-data-{}", std::process::id()));
        let _ = fs::remove_dir_all(&data_dir);
        {
            let mut server = Service::start(
                "our-server",
                Command::new(self.bin.join("a2a-server"))
                    .args(["--listen", "127.0.0.1:0", "--push-allow", "127.0.0.0/8", "--data-dir"])
                    .arg(&data_dir)
                    .env_remove("A2A_STORE"),
                "a2a-server listening on ",
                &self.logs,
            )?;
            let our_url = server.url.clone();
            for peer in &peers {
                let python = pythons.get(peer.name).map(PathBuf::as_path);
                self.their_clients(*peer, python, &our_url, &mut results)?;
                self.our_clients(*peer, python, &mut results)?;
            }
            server.stop();
        }
        let _ = fs::remove_dir_all(&data_dir);

        // The signed-card cells, with the 1.x SDKs (module card_signing).
        let signing_peers: Vec<(Peer, Option<&Path>)> = peers
            .iter()
            .filter(|p| p.line == Line::V1_0)
            .map(|p| (*p, pythons.get(p.name).map(PathBuf::as_path)))
            .collect();
        let signing = if signing_peers.is_empty() {
            None
        } else {
            Some(card_signing::run(&self.root, &signing_peers, &self.bin, &self.logs)?)
        };
        let mut summary = results.evaluate(&peers, &self.known);
        if let Some(outcomes) = &signing {
            let (passed, failed, report) = card_signing::evaluate(&signing_peers, &self.known, outcomes);
            summary.passed += passed;
            summary.failed += failed;
            summary.report.push_str(&report);
        }
        println!("{}", summary.report);
        println!("interop: {} passed, {} failed", summary.passed, summary.failed);
        eprintln!("xtask: interop took {:.0?}; logs in {}", self.started.elapsed(), self.logs.display());
        ensure!(
            summary.failed == 0,
            "{} interop cell(s) failed (logs in {})",
            summary.failed,
            self.logs.display()
        );
        let doc = self.root.join("docs/interop.md");
        for line in lines {
            let table = matrix::render(&results, &versions, &self.known, *line);
            fs::write(self.logs.join(format!("matrix-{}.md", line.name())), &table)?;
            matrix::sync_docs(&doc, matrix::markers(*line), &table, self.bless)?;
        }
        if let Some(outcomes) = &signing {
            let table = card_signing::render(&signing_peers, &versions, &self.known, outcomes);
            matrix::sync_docs(&doc, matrix::CARD_SIGNING, &table, self.bless)?;
        }
        Ok(())
    }

    /// `--card-signing`: the signed-card cells alone (module card_signing), with the 1.x SDKs.
    fn card_signing_only(&self) -> anyhow::Result<()> {
        let peers: Vec<Peer> = PEERS.into_iter().filter(|p| p.line == Line::V1_0).collect();
        let pythons = install::install_peers(&self.dir, &peers)?;
        let versions = install::Versions::read(&self.dir)?;
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
        let peers: Vec<(Peer, Option<&Path>)> =
            peers.iter().map(|p| (*p, pythons.get(p.name).map(PathBuf::as_path))).collect();
        let outcomes = card_signing::run(&self.root, &peers, &self.bin, &self.logs)?;
        let (passed, failed, report) = card_signing::evaluate(&peers, &self.known, &outcomes);
        println!("{report}");
        println!("interop: {passed} passed, {failed} failed");
        eprintln!(
            "xtask: interop --card-signing took {:.0?}; logs in {}",
            self.started.elapsed(),
            self.logs.display()
        );
        ensure!(failed == 0, "{failed} card-signing cell(s) failed (logs in {})", self.logs.display());
        let table = card_signing::render(&peers, &versions, &self.known, &outcomes);
        fs::write(self.logs.join("matrix-card-signing.md"), &table)?;
        matrix::sync_docs(&self.root.join("docs/interop.md"), matrix::CARD_SIGNING, &table, self.bless)
    }

    /// The peer's client programs against our server, one per binding, and the push-delivery
    /// cells from what the peer's webhook receiver parsed.
    fn their_clients(
        &self,
        peer: Peer,
        python: Option<&Path>,
        our_url: &str,
        results: &mut Results,
    ) -> anyhow::Result<()> {
        let name = format!("{}-webhook", peer.name);
        let mut webhook = Service::start(
            &name,
            &mut peer_command(peer, python, &self.dir, "webhook", &[]),
            "webhook listening on ",
            &self.logs,
        )?;
        let mut push_tasks = BTreeMap::new();
        for (binding, label, _) in BINDINGS {
            let client = format!("{}-client-{label}", peer.name);
            let args = ["--url", our_url, "--binding", label, "--webhook", &webhook.url];
            let mut command = peer_command(peer, python, &self.dir, "sdk_client", &args);
            let output = run_program(&client, &mut command, &self.logs)?;
            let tasks =
                results.absorb(peer, Direction::TheirClient, Some(binding), &client, &self.known, &output);
            push_tasks.extend(tasks);
        }
        let received = push::receive(&webhook, push::PUSH_TIMEOUT);
        results.problems.extend(received.unexpected.iter().map(|line| format!("{name}: {line}")));
        for (binding, label, _) in BINDINGS {
            let outcome = match push_tasks.get(binding) {
                None => Err("push-send did not create a task".to_owned()),
                Some(task_id) => match peer.line {
                    Line::V1_0 => push::check_our_pushes(&received.records, label, task_id),
                    Line::V0_3 => push::check_our_pushes_v03(&received.records, label, task_id),
                },
            };
            results.set(peer.name, Direction::TheirClient, binding, "push-delivery", outcome);
        }
        webhook.stop();
        Ok(())
    }

    /// Our driver (all three of our clients) against the peer's agent.
    fn our_clients(&self, peer: Peer, python: Option<&Path>, results: &mut Results) -> anyhow::Result<()> {
        let mut agent = Service::start(
            &format!("{}-agent", peer.name),
            &mut peer_command(peer, python, &self.dir, "agent", &[]),
            "interop-agent listening on ",
            &self.logs,
        )?;
        let name = format!("driver-{}", peer.name);
        let mut driver = Command::new(self.bin.join("a2a-interop-driver"));
        driver.args(["--url", &agent.url]).args(peer.driver_args);
        let output = run_program(&name, &mut driver, &self.logs)?;
        let push_tasks = results.absorb(peer, Direction::OurClient, None, &name, &self.known, &output);
        if !push_tasks.is_empty() {
            results.problems.push(format!("{name}: printed push tasks, which only an SDK client does"));
        }
        agent.stop();
        Ok(())
    }
}

pub(crate) fn target_dir(root: &Path) -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => root.join(dir),
        None => root.join("target"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(args: &[&str]) -> Vec<String> {
        args.iter().map(|a| (*a).to_owned()).collect()
    }

    #[test]
    fn options_parse_and_refuse_what_they_do_not_know() {
        let all = Options::parse(&[]).unwrap();
        assert_eq!(all, Options { bless: false, card_signing_only: false, lines: Line::ALL.to_vec() });
        let one = Options::parse(&args(&["--line", "0.3", "--bless"])).unwrap();
        assert_eq!(one, Options { bless: true, card_signing_only: false, lines: vec![Line::V0_3] });
        assert!(Options::parse(&args(&["--card-signing"])).unwrap().card_signing_only);
        assert!(
            format!("{:#}", Options::parse(&args(&["--line", "2.0"])).unwrap_err()).contains("unknown line")
        );
        assert!(format!("{:#}", Options::parse(&args(&["--line"])).unwrap_err()).contains("needs a value"));
        assert!(format!("{:#}", Options::parse(&args(&["--fast"])).unwrap_err()).contains("unknown argument"));
    }
}
