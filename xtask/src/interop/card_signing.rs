//! The signed-agent-card cells (spec 8.4): cards signed by a2a-sdk's signing utilities
//! (`create_agent_card_signer`) verified by ours (`a2a-cli card get --verify-keys`), and our
//! server's signed card (`--card-signing-key`) verified by a2a-sdk's `create_signature_verifier`.
//! Signatures do not depend on the binding, so these cells have none. `cargo xtask interop
//! --card-signing` runs them alone; a full run (or `--line 1.0`) runs them after the matrix.
//!
//! @a2a-js/sdk is not in these cells: see docs/interop.md, "Signed agent cards".

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

use anyhow::Context as _;

use super::{run_program, Service};

/// The test keys (P-256, ES256) of `crates/a2a-card-sign/tests/data/keys`.
const KEYS: &str = "crates/a2a-card-sign/tests/data/keys";

/// What a cell should do at the pinned versions.
#[derive(Debug, Clone, Copy)]
enum Expect {
    Pass,
    /// Must fail, for the reason given (shown under the table).
    Fail(&'static str),
}

/// The cells: name, what it checks, expected outcome.
const CELLS: [(&str, &str, Expect); 5] = [
    (
        "their-signature",
        "a card a2a-sdk signed (ES256) verifies with ours (`a2a-cli card get --verify-keys`)",
        Expect::Pass,
    ),
    (
        "their-signature-non-ascii",
        "the same with non-ASCII text (`Zürich → Genève`): JCS writes it as UTF-8 on both sides",
        Expect::Pass,
    ),
    (
        "their-signature-empty-description",
        "the same with `description: \"\"` (REQUIRED; a2a-sdk signs without it and serves without it)",
        Expect::Pass,
    ),
    (
        "our-signature",
        "our server's 1.0 card (`--card-form v1 --card-signing-key`) verifies with a2a-sdk's \
         `create_signature_verifier`",
        Expect::Pass,
    ),
    (
        "our-signature-union",
        "our union card (`--card-form union`, the default) with a2a-sdk's verifier",
        Expect::Fail(
            "by construction: our union card's signature covers the document served, 0.3 members \
             (`url`, `preferredTransport`, ...) included; a2a-sdk reads the card into its 1.0 \
             `AgentCard`, which drops them, and canonicalizes what is left. A 1.0 verifier of \
             the union card needs the document as received; serve `--card-form v1` to SDK \
             clients that verify (docs/security.md).",
        ),
    ),
];

/// The outcome of each cell, in [`CELLS`] order.
pub(super) type Outcomes = Vec<(&'static str, Result<(), String>)>;

/// Runs every cell: `python` is the 1.x venv's interpreter, `bin` holds `a2a-server` and
/// `a2a-cli`.
pub(super) fn run(root: &Path, python: &Path, bin: &Path, logs: &Path) -> anyhow::Result<Outcomes> {
    let keys = root.join(KEYS);
    let program_dir = root.join("tests/interop/python");
    let mut outcomes = Vec::new();
    // Their signatures, our verifier.
    for (cell, description) in [
        ("their-signature", "Signed by a2a-sdk"),
        ("their-signature-non-ascii", "Zürich → Genève, naïvely"),
        ("their-signature-empty-description", ""),
    ] {
        let mut sign = Command::new(python);
        sign.current_dir(&program_dir)
            .args(["card_signing.py", "sign", "--kid", "their-key", "--description", description, "--key"])
            .arg(keys.join("es256.key.pem"));
        let output = run_program(&format!("python-sign-{cell}"), &mut sign, logs)?;
        let outcome = match (output.status, output.lines.last()) {
            (Some(status), Some(card)) if status.success() => {
                let file = logs.join(format!("{cell}.json"));
                fs::write(&file, card)?;
                let mut verify = Command::new(bin.join("a2a-cli"));
                verify
                    .args(["card", "get", "-o", "json", "-a"])
                    .arg(&file)
                    .arg("--verify-keys")
                    .arg(keys.join("es256.pub.pem"));
                let verified = run_program(&format!("our-verify-{cell}"), &mut verify, logs)?;
                match verified.status {
                    Some(status) if status.success() => Ok(()),
                    other => Err(format!(
                        "a2a-cli refused the card ({other:?}); see {}",
                        logs.join(format!("our-verify-{cell}.log")).display()
                    )),
                }
            }
            _ => Err(format!("a2a-sdk did not sign ({:?}); see its log", output.status)),
        };
        outcomes.push((cell, outcome));
    }
    // Our signatures, their verifier.
    for (cell, form) in [("our-signature", "v1"), ("our-signature-union", "union")] {
        let mut server = Service::start(
            &format!("our-server-signed-{form}"),
            Command::new(bin.join("a2a-server"))
                .args(["--listen", "127.0.0.1:0", "--store", "memory", "--card-form", form])
                .args(["--card-signing-kid", "our-key", "--card-signing-key"])
                .arg(keys.join("es256.key.pem"))
                .env_remove("A2A_STORE"),
            "a2a-server listening on ",
            logs,
        )?;
        let url = format!("{}/.well-known/agent-card.json", server.url);
        let mut verify = Command::new(python);
        verify
            .current_dir(&program_dir)
            .args(["card_signing.py", "verify", "--kid", "our-key", "--op", cell, "--url", &url, "--key"])
            .arg(keys.join("es256.pub.pem"));
        let output = run_program(&format!("python-verify-{cell}"), &mut verify, logs)?;
        server.stop();
        let reported = output.lines.iter().find_map(|line| {
            let fields: Vec<_> = line.split('\t').collect();
            match fields[..] {
                ["INTEROP", "-", op, result, ref detail @ ..] if op == cell => {
                    Some(if result == "pass" { Ok(()) } else { Err(detail.join(" ")) })
                }
                _ => None,
            }
        });
        outcomes.push((cell, reported.unwrap_or_else(|| Err("a2a-sdk's verifier reported nothing".into()))));
    }
    Ok(outcomes)
}

/// Compares the outcomes with [`CELLS`]' expectations: (passed, failed, report lines).
pub(super) fn evaluate(outcomes: &Outcomes) -> (usize, usize, String) {
    let (mut passed, mut failed, mut report) = (0, 0, String::new());
    for (cell, _, expect) in CELLS {
        let outcome = outcomes.iter().find(|(c, _)| *c == cell).map(|(_, o)| o);
        let ok = match (expect, outcome) {
            (Expect::Pass, Some(Ok(()))) | (Expect::Fail(_), Some(Err(_))) => true,
            (Expect::Pass, Some(Err(why))) => {
                let _ = writeln!(report, "card-signing {cell}: FAILED: {why}");
                false
            }
            (Expect::Fail(_), Some(Ok(()))) => {
                let _ = writeln!(
                    report,
                    "card-signing {cell}: known failure now passes: update CELLS and the docs"
                );
                false
            }
            (_, None) => {
                let _ = writeln!(report, "card-signing {cell}: not run");
                false
            }
        };
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
    }
    (passed, failed, report)
}

/// The table for docs/interop.md.
pub(super) fn render(outcomes: &Outcomes, version: &str) -> String {
    let mut out = format!("| cell (a2a-sdk {version}) | checks | result |\n| --- | --- | --- |\n");
    let mut notes = Vec::new();
    for (cell, what, expect) in CELLS {
        let outcome = outcomes.iter().find(|(c, _)| *c == cell).map(|(_, o)| o);
        let result = match (expect, outcome) {
            (Expect::Pass, Some(Ok(()))) => "pass".to_owned(),
            (Expect::Fail(note), Some(Err(_))) => {
                notes.push(note);
                format!("known failure [{}]", notes.len())
            }
            (_, Some(Ok(()))) => "**pass (known failure expected)**".to_owned(),
            (_, Some(Err(_))) => "**FAIL**".to_owned(),
            (_, None) => "**not run**".to_owned(),
        };
        let _ = writeln!(out, "| `{cell}` | {what} | {result} |");
    }
    for (index, note) in notes.iter().enumerate() {
        let _ = write!(out, "\n[{}] {note}\n", index + 1);
    }
    out
}

/// The pinned a2a-sdk version of `requirements.txt`, for the table heading.
pub(super) fn version(dir: &Path) -> anyhow::Result<String> {
    let requirements = fs::read_to_string(dir.join("requirements.txt"))?;
    super::pinned_a2a_sdk(&requirements).context("requirements.txt pins no a2a-sdk version")
}
