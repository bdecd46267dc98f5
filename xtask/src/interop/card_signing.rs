//! The signed-agent-card cells (spec 8.4), with each 1.x SDK's signing utilities: cards they sign
//! (a2a-sdk's `create_agent_card_signer`, @a2a-js/sdk's `generateAgentCardSignature`) verified by
//! ours (`a2a-cli card get --verify-keys`), and our server's signed card (`--card-signing-key`)
//! verified by theirs (`create_signature_verifier`, `verifyAgentCardSignature`). The programs are
//! `python/card_signing.py` and `js/card_signing.mjs`. Signatures do not depend on the binding, so
//! these cells have none. `cargo xtask interop --card-signing` runs them alone; a full run (or
//! `--line 1.0`) runs them after the matrix.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::Context as _;

use super::install::Versions;
use super::known::Known;
use super::peers::{peer_command, Peer};
use super::process::{run_program, Service};
use super::records::{self, Outcome, Record};

/// The test keys (P-256, ES256) of `crates/a2a-card-sign/tests/data/keys`.
const KEYS: &str = "crates/a2a-card-sign/tests/data/keys";

/// The cells: name and what it checks. Every cell must pass for every peer, except the known
/// failures (`card_signing` in `docs/interop-known-failures.json`).
pub(super) const CELLS: [(&str, &str); 5] = [
    (
        "their-signature",
        "a card the SDK signed (ES256) verifies with ours (`a2a-cli card get --verify-keys`)",
    ),
    (
        "their-signature-non-ascii",
        "the same with non-ASCII text (`Zürich → Genève`): JCS writes it as UTF-8 on both sides",
    ),
    (
        "their-signature-empty-description",
        "the same with `description: \"\"` (a REQUIRED field at its default: spec 8.4.1 keeps it)",
    ),
    (
        "our-signature",
        "our server's 1.0 card (`--card-form v1 --card-signing-key`) verifies with the SDK's verifier",
    ),
    ("our-signature-union", "our union card (`--card-form union`, the default) with the SDK's verifier"),
];

/// The outcome of each (peer, cell).
pub(super) type Outcomes = Vec<(&'static str, &'static str, Result<(), String>)>;

/// Runs every cell for each of `peers` (1.x ones, with the venv's interpreter for Python); `bin`
/// holds `a2a-server` and `a2a-cli`.
pub(super) fn run(
    root: &Path,
    peers: &[(Peer, Option<&Path>)],
    bin: &Path,
    logs: &Path,
) -> anyhow::Result<Outcomes> {
    let dir = root.join("tests/interop");
    let keys = root.join(KEYS);
    let (private, public) = (keys.join("es256.key.pem"), keys.join("es256.pub.pem"));
    let (private, public) = (private.to_str().context("key path")?, public.to_str().context("key path")?);
    let mut outcomes = Vec::new();
    // Their signatures, our verifier.
    for (peer, python) in peers {
        for (cell, description) in [
            ("their-signature", "Signed by an SDK"),
            ("their-signature-non-ascii", "Zürich → Genève, naïvely"),
            ("their-signature-empty-description", ""),
        ] {
            let name = format!("{}-sign-{cell}", peer.name);
            let args = ["sign", "--kid", "their-key", "--description", description, "--key", private];
            let output =
                run_program(&name, &mut peer_command(*peer, *python, &dir, "card_signing", &args), logs)?;
            let outcome = match (output.status, output.lines.last()) {
                (Some(status), Some(card)) if status.success() => {
                    let file = logs.join(format!("{name}.json"));
                    fs::write(&file, card)?;
                    let mut verify = Command::new(bin.join("a2a-cli"));
                    verify.args(["card", "get", "-o", "json", "--verify-keys", public, "-a"]).arg(&file);
                    let verifier = format!("our-verify-{}-{cell}", peer.name);
                    match run_program(&verifier, &mut verify, logs)?.status {
                        Some(status) if status.success() => Ok(()),
                        other => Err(format!(
                            "a2a-cli refused the card ({other:?}); see {}",
                            logs.join(format!("{verifier}.log")).display()
                        )),
                    }
                }
                _ => Err(format!("the SDK did not sign ({:?}); see {name}.stderr.log", output.status)),
            };
            outcomes.push((peer.name, cell, outcome));
        }
    }
    // Our signatures, their verifiers.
    for (cell, form) in [("our-signature", "v1"), ("our-signature-union", "union")] {
        let mut server = Service::start(
            &format!("our-server-signed-{form}"),
            Command::new(bin.join("a2a-server"))
                .args(["--listen", "127.0.0.1:0", "--store", "memory", "--card-form", form])
                .args(["--card-signing-kid", "our-key", "--card-signing-key", private])
                .env_remove("A2A_STORE"),
            "a2a-server listening on ",
            logs,
        )?;
        let url = format!("{}/.well-known/agent-card.json", server.url);
        for (peer, python) in peers {
            let args = ["verify", "--kid", "our-key", "--op", cell, "--url", &url, "--key", public];
            let name = format!("{}-verify-{cell}", peer.name);
            let output =
                run_program(&name, &mut peer_command(*peer, *python, &dir, "card_signing", &args), logs)?;
            let outcome = verified(cell, &output.lines);
            outcomes.push((peer.name, cell, outcome));
        }
        server.stop();
    }
    Ok(outcomes)
}

/// The outcome a verifier program reported for `cell`: its one [`Record::Interop`] of no binding
/// (spec 8.4.3 checks are the SDK's). Another record, or a line that is not one, fails the cell.
fn verified(cell: &str, lines: &[String]) -> Result<(), String> {
    let read = records::read(lines);
    if let Some(garbled) = read.garbled.first() {
        return Err(format!("the SDK's verifier printed {garbled}"));
    }
    match &read.records[..] {
        [Record::Interop { binding: None, op, outcome, detail }] if op == cell => match outcome {
            Outcome::Pass => Ok(()),
            Outcome::Fail => Err(detail.clone()),
        },
        [] => Err("the SDK's verifier reported nothing".into()),
        other => Err(format!("the SDK's verifier reported {other:?}, want one record of {cell}")),
    }
}

/// Compares the outcomes with the expectations: (passed, failed, report lines).
pub(super) fn evaluate(
    peers: &[(Peer, Option<&Path>)],
    known: &Known,
    outcomes: &Outcomes,
) -> (usize, usize, String) {
    let (mut passed, mut failed, mut report) = (0, 0, String::new());
    for (peer, _) in peers {
        for (cell, _) in CELLS {
            let outcome = outcomes.iter().find(|(p, c, _)| *p == peer.name && *c == cell).map(|(_, _, o)| o);
            let problem = match (known.signing_failure(peer.name, cell), outcome) {
                (None, Some(Ok(()))) | (Some(_), Some(Err(_))) => None,
                (None, Some(Err(why))) => Some(format!("FAILED: {why}")),
                (Some(_), Some(Ok(()))) => {
                    Some(format!("known failure now passes: update {} and the docs", super::known::PATH))
                }
                (_, None) => Some("not run".into()),
            };
            match problem {
                None => passed += 1,
                Some(problem) => {
                    failed += 1;
                    let _ = writeln!(report, "card-signing {} {cell}: {problem}", peer.name);
                }
            }
        }
    }
    (passed, failed, report)
}

/// The table for docs/interop.md: a row per cell, a column per peer.
pub(super) fn render(
    peers: &[(Peer, Option<&Path>)],
    versions: &Versions,
    known: &Known,
    outcomes: &Outcomes,
) -> String {
    let mut out = String::from("| cell | checks |");
    for (peer, _) in peers {
        let _ = write!(out, " {} {} |", peer.package, versions.of(peer.name));
    }
    out.push_str("\n| --- | --- |");
    out.push_str(&" --- |".repeat(peers.len()));
    out.push('\n');
    let mut notes: Vec<&str> = Vec::new();
    for (cell, what) in CELLS {
        let _ = write!(out, "| `{cell}` | {what} |");
        for (peer, _) in peers {
            let outcome = outcomes.iter().find(|(p, c, _)| *p == peer.name && *c == cell).map(|(_, _, o)| o);
            let result = match (known.signing_failure(peer.name, cell), outcome) {
                (None, Some(Ok(()))) => "pass".to_owned(),
                (Some(note), Some(Err(_))) => {
                    let index = notes.iter().position(|n| *n == note).unwrap_or_else(|| {
                        notes.push(note);
                        notes.len() - 1
                    });
                    format!("known failure [{}]", index + 1)
                }
                (Some(_), Some(Ok(()))) => "**pass (known failure expected)**".to_owned(),
                (None, Some(Err(_))) => "**FAIL**".to_owned(),
                (_, None) => "**not run**".to_owned(),
            };
            let _ = write!(out, " {result} |");
        }
        out.push('\n');
    }
    for (index, note) in notes.iter().enumerate() {
        let _ = write!(out, "\n[{}] {note}\n", index + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::results::tests::known;
    use super::*;

    fn peers() -> Vec<(Peer, Option<&'static Path>)> {
        super::super::peers::PEERS.into_iter().filter(|p| p.name == "js").map(|p| (p, None)).collect()
    }

    fn outcomes(union: Result<(), String>) -> Outcomes {
        CELLS
            .iter()
            .map(|(cell, _)| {
                let outcome = match *cell {
                    "our-signature-union" => union.clone(),
                    "their-signature-empty-description" => Err("refused".into()),
                    _ => Ok(()),
                };
                ("js", *cell, outcome)
            })
            .collect()
    }

    #[test]
    fn known_failures_must_fail_and_the_rest_pass() {
        let known = known();
        let (passed, failed, report) = evaluate(&peers(), &known, &outcomes(Err("refused".into())));
        assert_eq!((passed, failed), (5, 0), "{report}");
        let (passed, failed, report) = evaluate(&peers(), &known, &outcomes(Ok(())));
        assert_eq!((passed, failed), (4, 1));
        assert!(report.contains("js our-signature-union: known failure now passes"), "{report}");
        let (_, failed, report) = evaluate(&peers(), &known, &Vec::new());
        assert_eq!(failed, CELLS.len());
        assert!(report.contains("not run"), "{report}");
    }

    #[test]
    fn a_verifier_reports_exactly_one_record_of_its_cell() {
        let line = |op: &str, outcome, detail: &str| Record::interop(None, op, outcome, detail).to_line();
        assert_eq!(verified("our-signature", &[line("our-signature", Outcome::Pass, "")]), Ok(()));
        assert_eq!(
            verified("our-signature", &[line("our-signature", Outcome::Fail, "JWS: bad signature")]),
            Err("JWS: bad signature".to_owned())
        );
        assert!(verified("our-signature", &[]).unwrap_err().contains("reported nothing"));
        assert!(verified("our-signature", &[line("our-signature-union", Outcome::Pass, "")]).is_err());
        let twice = [line("our-signature", Outcome::Pass, ""), line("our-signature", Outcome::Pass, "")];
        assert!(verified("our-signature", &twice).is_err());
        let bound = Record::interop(Some("GRPC"), "our-signature", Outcome::Pass, "").to_line();
        assert!(verified("our-signature", &[bound]).is_err(), "signatures have no binding");
        let old = "INTEROP\t-\tour-signature\tpass\t".to_owned();
        assert!(verified("our-signature", &[old]).unwrap_err().contains("not a record"));
    }
}
