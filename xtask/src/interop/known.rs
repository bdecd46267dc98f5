//! The cells known to fail and the cells not run, as data: `docs/interop-known-failures.json`,
//! next to the page that shows them. Loading validates every entry against the cells the run
//! has (an entry that names no cell, a cell listed twice, a known failure of a cell that is not
//! run, are errors), so the file cannot drift from the matrix.
//!
//! A known failure is a cell that fails because the peer deviates from the spec in a way our side
//! cannot reasonably tolerate; the programs still assert the spec's behaviour there, so the cell
//! must fail, and a known failure that starts passing fails the run. A bug of ours is fixed, not
//! listed. A not-applicable cell is one no program runs (the peer's SDK has no API for it).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use anyhow::{bail, ensure, Context as _};
use serde::Deserialize;

use super::card_signing;
use super::peers::{self, binding_key, Direction, Line};

/// The file, relative to the workspace root.
pub(super) const PATH: &str = "docs/interop-known-failures.json";

/// One operation of one peer and direction known to fail on some bindings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct KnownFailure {
    /// The peer's name (`python`, `js`, `python-v03`, `js-v03`).
    pub(super) peer: String,
    pub(super) direction: Direction,
    /// The bindings on which it fails, as in the records (`JSONRPC`, `HTTP+JSON`, `GRPC`).
    pub(super) bindings: Vec<String>,
    /// The operation, one of the peer's line.
    pub(super) op: String,
    /// Why, with the spec section and the peer version (shown under the matrix).
    pub(super) reason: String,
}

/// A cell no program runs, on every binding.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NotApplicable {
    pub(super) peer: String,
    pub(super) direction: Direction,
    pub(super) op: String,
    /// Why (shown under the matrix).
    pub(super) reason: String,
}

/// A signed-card cell known to fail for some 1.x peers.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SigningFailure {
    pub(super) peers: Vec<String>,
    /// The cell (`card_signing::CELLS`).
    pub(super) cell: String,
    /// Why (shown under the table).
    pub(super) reason: String,
}

/// The whole file. The order of each list is the numbering under the matrix.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Known {
    pub(super) known_failures: Vec<KnownFailure>,
    pub(super) not_applicable: Vec<NotApplicable>,
    pub(super) card_signing: Vec<SigningFailure>,
}

impl Known {
    /// Reads and validates [`PATH`] under `root`.
    pub(super) fn load(root: &Path) -> anyhow::Result<Self> {
        let path = root.join(PATH);
        let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
        Known::parse(&text).with_context(|| format!("in {PATH}"))
    }

    /// Parses and validates the file's text.
    pub(super) fn parse(text: &str) -> anyhow::Result<Self> {
        let known: Known = serde_json::from_str(text)?;
        known.validate()?;
        Ok(known)
    }

    fn validate(&self) -> anyhow::Result<()> {
        let mut not_run = BTreeSet::new();
        for (n, entry) in self.not_applicable.iter().enumerate() {
            let what = format!("not_applicable[{n}] ({} {:?} `{}`)", entry.peer, entry.direction, entry.op);
            operation_of(&entry.peer, &entry.op).with_context(|| what.clone())?;
            ensure!(!entry.reason.trim().is_empty(), "{what}: no reason");
            ensure!(
                not_run.insert((entry.peer.as_str(), entry.direction, entry.op.as_str())),
                "{what}: listed twice"
            );
        }
        let mut failing = BTreeSet::new();
        for (n, entry) in self.known_failures.iter().enumerate() {
            let what = format!("known_failures[{n}] ({} {:?} `{}`)", entry.peer, entry.direction, entry.op);
            operation_of(&entry.peer, &entry.op).with_context(|| what.clone())?;
            ensure!(!entry.reason.trim().is_empty(), "{what}: no reason");
            ensure!(!entry.bindings.is_empty(), "{what}: no bindings");
            ensure!(
                !not_run.contains(&(entry.peer.as_str(), entry.direction, entry.op.as_str())),
                "{what}: the cell is listed as not applicable, so it is not run"
            );
            for binding in &entry.bindings {
                ensure!(binding_key(binding).is_some(), "{what}: no binding {binding:?}");
                let cell = (entry.peer.as_str(), entry.direction, binding.as_str(), entry.op.as_str());
                ensure!(failing.insert(cell), "{what}: {binding} is listed twice");
            }
        }
        let mut signing = BTreeSet::new();
        for (n, entry) in self.card_signing.iter().enumerate() {
            let what = format!("card_signing[{n}] (`{}`)", entry.cell);
            ensure!(!entry.reason.trim().is_empty(), "{what}: no reason");
            ensure!(!entry.peers.is_empty(), "{what}: no peers");
            ensure!(card_signing::CELLS.iter().any(|(c, _)| *c == entry.cell), "{what}: no such cell");
            for peer in &entry.peers {
                let line = peers::peer(peer).map(|p| p.line);
                ensure!(line == Some(Line::V1_0), "{what}: {peer:?} is not a 1.x peer (only they sign)");
                ensure!(
                    signing.insert((peer.as_str(), entry.cell.as_str())),
                    "{what}: {peer} is listed twice"
                );
            }
        }
        Ok(())
    }

    /// The known failure (with its index) covering this cell.
    pub(super) fn failure(
        &self,
        peer: &str,
        direction: Direction,
        binding: &str,
        op: &str,
    ) -> Option<(usize, &KnownFailure)> {
        self.known_failures.iter().enumerate().find(|(_, k)| {
            k.peer == peer
                && k.direction == direction
                && k.op == op
                && k.bindings.iter().any(|b| b == binding)
        })
    }

    /// The not-applicable entry (with its index) covering this operation.
    pub(super) fn not_applicable(
        &self,
        peer: &str,
        direction: Direction,
        op: &str,
    ) -> Option<(usize, &NotApplicable)> {
        self.not_applicable
            .iter()
            .enumerate()
            .find(|(_, n)| n.peer == peer && n.direction == direction && n.op == op)
    }

    /// Why this signed-card cell is known to fail, if it is.
    pub(super) fn signing_failure(&self, peer: &str, cell: &str) -> Option<&str> {
        self.card_signing
            .iter()
            .find(|k| k.cell == cell && k.peers.iter().any(|p| p == peer))
            .map(|k| k.reason.as_str())
    }
}

/// Fails unless `peer` is a peer whose line has the operation `op`.
fn operation_of(peer: &str, op: &str) -> anyhow::Result<()> {
    let Some(peer) = peers::peer(peer) else { bail!("no peer {peer:?}") };
    if peer.line.op_key(op).is_none() {
        bail!("no such cell: `{op}` is not an operation of the {} line", peer.line.name());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_file_is_valid() {
        let known = Known::load(&crate::workspace_root()).unwrap();
        assert!(!known.known_failures.is_empty() && !known.not_applicable.is_empty());
        assert!(known.failure("python-v03", Direction::OurClient, "GRPC", "resubscribe").is_some());
        assert!(known.failure("python-v03", Direction::TheirClient, "GRPC", "resubscribe").is_none());
        assert!(known.signing_failure("python", "our-signature-union").is_some());
        assert!(known.signing_failure("python", "their-signature-empty-description").is_none());
    }

    fn file(known_failures: &str, not_applicable: &str, card_signing: &str) -> String {
        format!(
            r#"{{"known_failures": [{known_failures}], "not_applicable": [{not_applicable}], "card_signing": [{card_signing}]}}"#
        )
    }

    const FAILURE: &str = r#"{"peer": "js-v03", "direction": "their-client", "bindings": ["GRPC"], "op": "stream", "reason": "r"}"#;
    const SKIPPED: &str = r#"{"peer": "python-v03", "direction": "their-client", "op": "push-config-list-delete", "reason": "r"}"#;
    const SIGNING: &str = r#"{"peers": ["js"], "cell": "our-signature-union", "reason": "r"}"#;

    #[test]
    fn an_entry_that_names_no_cell_is_an_error() {
        Known::parse(&file(FAILURE, SKIPPED, SIGNING)).unwrap();
        let error = |text: String| format!("{:#}", Known::parse(&text).unwrap_err());
        let failure = |from: &str, to: &str| file(&FAILURE.replace(from, to), SKIPPED, SIGNING);
        assert!(error(failure("js-v03", "ruby")).contains("no peer \"ruby\""));
        // `list` is a 1.0 operation; js-v03 speaks 0.3.
        assert!(error(failure("\"stream\"", "\"list\"")).contains("not an operation of the 0.3 line"));
        assert!(error(failure("GRPC", "SOAP")).contains("no binding \"SOAP\""));
        assert!(error(failure("[\"GRPC\"]", "[]")).contains("no bindings"));
        assert!(error(failure("[\"GRPC\"]", "[\"GRPC\", \"GRPC\"]")).contains("listed twice"));
        assert!(error(failure("their-client", "both")).contains("unknown variant"));
        assert!(error(failure("\"reason\"", "\"note\"")).contains("unknown field"));
        assert!(error(file(&format!("{FAILURE}, {FAILURE}"), SKIPPED, SIGNING)).contains("listed twice"));
        assert!(error(file(FAILURE, &SKIPPED.replace("push-config-list-delete", "list"), SIGNING))
            .contains("not_applicable[0]"));
        assert!(error(file(FAILURE, SKIPPED, &SIGNING.replace("js", "js-v03"))).contains("not a 1.x peer"));
        assert!(error(file(FAILURE, SKIPPED, &SIGNING.replace("our-signature-union", "x")))
            .contains("no such cell"));
        let as_known_failure = r#"{"peer": "python-v03", "direction": "their-client", "bindings": ["GRPC"], "op": "push-config-list-delete", "reason": "r"}"#;
        assert!(error(file(as_known_failure, SKIPPED, SIGNING)).contains("not applicable"));
    }
}
