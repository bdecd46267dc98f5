//! The outcome of every cell, from the programs' records, and its judgement: every expected cell
//! must pass, except the known failures, which must fail (`docs/interop-known-failures.json`).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::known::Known;
use super::peers::{binding_key, Direction, Peer, BINDINGS};
use super::process::ProgramOutput;
use super::records::{self, Outcome, Record};

/// A cell: peer, direction, binding, operation.
pub(super) type Key = (&'static str, Direction, &'static str, &'static str);

/// What the programs reported.
#[derive(Debug, Default)]
pub(super) struct Results {
    pub(super) cells: BTreeMap<Key, Result<(), String>>,
    /// What went wrong besides a cell: a line that is not a record, a record naming no cell, a
    /// program that exited unsuccessfully without a failed cell to show for it.
    pub(super) problems: Vec<String>,
}

impl Results {
    pub(super) fn set(
        &mut self,
        peer: &'static str,
        direction: Direction,
        binding: &'static str,
        op: &'static str,
        outcome: Result<(), String>,
    ) {
        self.cells.insert((peer, direction, binding, op), outcome);
    }

    /// Records the cells a client program (named `name`, of `peer`, in `direction`) reported;
    /// `binding` restricts them to one binding. Returns the tasks its `push-send` created, by
    /// binding ([`Record::PushTask`]).
    pub(super) fn absorb(
        &mut self,
        peer: Peer,
        direction: Direction,
        binding: Option<&'static str>,
        name: &str,
        known: &Known,
        output: &ProgramOutput,
    ) -> BTreeMap<&'static str, String> {
        let read = records::read(&output.lines);
        self.problems.extend(read.garbled.iter().map(|garbled| format!("{name}: {garbled}")));
        let mut push_tasks = BTreeMap::new();
        let mut failed_cells = false;
        for record in read.records {
            let (reported, op, outcome, detail) = match record {
                Record::Interop { binding, op, outcome, detail } => (binding, op, outcome, detail),
                Record::PushTask { binding: reported, task_id } => {
                    match binding_key(&reported) {
                        Some(b) if binding.is_none_or(|expected| expected == b) => {
                            push_tasks.insert(b, task_id);
                        }
                        _ => self.problems.push(format!("{name}: a push task of binding {reported:?}")),
                    }
                    continue;
                }
                other => {
                    self.problems.push(format!("{name}: a client program printed {other:?}"));
                    continue;
                }
            };
            let (Some(b), Some(o)) = (reported.as_deref().and_then(binding_key), peer.line.op_key(&op))
            else {
                self.problems.push(format!("{name}: unknown binding {reported:?} or operation {op:?}"));
                continue;
            };
            if known.not_applicable(peer.name, direction, o).is_some() {
                self.problems.push(format!("{name}: reported {o}, which is listed as not applicable"));
                continue;
            }
            if binding.is_some_and(|expected| expected != b) {
                self.problems.push(format!("{name}: reported {b} but runs {}", binding.unwrap_or_default()));
                continue;
            }
            let outcome = match outcome {
                Outcome::Pass => Ok(()),
                Outcome::Fail => {
                    failed_cells = true;
                    Err(detail)
                }
            };
            self.set(peer.name, direction, b, o, outcome);
        }
        if !output.success() && !failed_cells {
            let how = output.status.map_or("was killed (timeout)".to_owned(), |s| format!("exited {s}"));
            self.problems.push(format!("{name} {how} without a failed cell; see its logs"));
        }
        push_tasks
    }

    /// Every expected cell of `peers` against what happened and the known failures.
    pub(super) fn evaluate(&self, peers: &[Peer], known: &Known) -> Summary {
        let mut report = String::new();
        let (mut passed, mut failed) = (0, 0);
        for (peer, direction, binding, op) in expected_cells(peers, known) {
            let heading = direction.heading();
            match (
                self.cells.get(&(peer.name, direction, binding, op)),
                known.failure(peer.name, direction, binding, op),
            ) {
                (Some(Ok(())), None) | (Some(Err(_)), Some(_)) => passed += 1,
                (Some(Ok(())), Some(_)) => {
                    failed += 1;
                    let _ = writeln!(
                        report,
                        "UNEXPECTED PASS {} {heading} {binding} {op}: a known failure passes; update {} and docs/interop.md",
                        peer.name,
                        super::known::PATH,
                    );
                }
                (Some(Err(detail)), None) => {
                    failed += 1;
                    let _ = writeln!(report, "FAIL {} {heading} {binding} {op}: {detail}", peer.name);
                }
                (None, _) => {
                    failed += 1;
                    let _ = writeln!(report, "MISSING {} {heading} {binding} {op}: not reported", peer.name);
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

/// The judgement of a run.
#[derive(Debug)]
pub(super) struct Summary {
    /// A line per failed cell or problem.
    pub(super) report: String,
    /// Cells that passed, known failures that failed as expected among them.
    pub(super) passed: usize,
    pub(super) failed: usize,
}

/// The cells of `peers` that must be reported: every operation of the peer's line, both
/// directions, every binding, less the not-applicable ones.
pub(super) fn expected_cells<'a>(
    peers: &'a [Peer],
    known: &'a Known,
) -> impl Iterator<Item = (Peer, Direction, &'static str, &'static str)> + 'a {
    peers.iter().copied().flat_map(move |peer| {
        Direction::ALL.into_iter().flat_map(move |direction| {
            BINDINGS.into_iter().flat_map(move |(binding, _, _)| {
                peer.line
                    .operations()
                    .iter()
                    .filter(move |op| known.not_applicable(peer.name, direction, op.name).is_none())
                    .map(move |op| (peer, direction, binding, op.name))
            })
        })
    })
}

#[cfg(test)]
pub(super) mod tests {
    use std::process::ExitStatus;

    use super::super::peers::{peer, Line, PEERS};
    use super::*;

    fn exit(code: i32) -> Option<ExitStatus> {
        use std::os::unix::process::ExitStatusExt as _;
        Some(ExitStatus::from_raw(code << 8))
    }

    pub(in super::super) fn known() -> Known {
        Known::load(&crate::workspace_root()).unwrap()
    }

    fn cell(binding: &str, op: &str, outcome: Outcome, detail: &str) -> String {
        Record::interop(Some(binding), op, outcome, detail).to_line()
    }

    fn output(lines: Vec<String>, status: Option<ExitStatus>) -> ProgramOutput {
        ProgramOutput { lines, status }
    }

    #[test]
    fn records_become_cells_and_anything_else_is_a_problem() {
        let known = known();
        let mut results = Results::default();
        let python = peer("python").unwrap();
        let ran = output(
            vec![
                cell("GRPC", "card", Outcome::Pass, ""),
                cell("GRPC", "cancel", Outcome::Fail, "state WORKING"),
                Record::PushTask { binding: "GRPC".into(), task_id: "t-9".into() }.to_line(),
            ],
            exit(1),
        );
        let tasks = results.absorb(python, Direction::TheirClient, Some("GRPC"), "p", &known, &ran);
        assert_eq!(tasks, BTreeMap::from([("GRPC", "t-9".to_owned())]));
        assert_eq!(results.cells[&("python", Direction::TheirClient, "GRPC", "card")], Ok(()));
        assert_eq!(
            results.cells[&("python", Direction::TheirClient, "GRPC", "cancel")],
            Err("state WORKING".to_owned())
        );
        assert!(results.problems.is_empty(), "the failure is explained by a failed cell");

        let js = peer("js").unwrap();
        let mut absorb = |peer: Peer, lines: Vec<String>, status| {
            results.absorb(peer, Direction::TheirClient, Some("GRPC"), "j", &known, &output(lines, status));
        };
        // A crash after a passing cell.
        absorb(js, vec![cell("GRPC", "card", Outcome::Pass, "")], exit(2));
        // Another binding than the one the program runs.
        absorb(js, vec![cell("JSONRPC", "card", Outcome::Pass, "")], exit(0));
        absorb(js, vec![cell("GRPC", "dance", Outcome::Pass, "")], exit(0));
        // A 1.0-only operation from a 0.3 peer, and a cell listed as not applicable.
        absorb(peer("js-v03").unwrap(), vec![cell("GRPC", "list", Outcome::Pass, "")], exit(0));
        absorb(
            peer("python-v03").unwrap(),
            vec![cell("GRPC", "push-config-list-delete", Outcome::Pass, "")],
            exit(0),
        );
        // A push task of another binding than the program's.
        absorb(
            js,
            vec![Record::PushTask { binding: "JSONRPC".into(), task_id: "t".into() }.to_line()],
            exit(0),
        );
        // The old tab-separated format, a log line and a receiver's record from a client.
        absorb(js, vec!["INTEROP\tGRPC\tcard\tpass\t".into()], exit(0));
        absorb(js, vec!["some log line".into()], exit(0));
        absorb(js, vec![Record::PushError { label: None, error: "e".into() }.to_line()], exit(0));
        assert_eq!(results.problems.len(), 9, "{:#?}", results.problems);
        assert!(
            results.problems[6].contains("not a record") && results.problems[6].contains("INTEROP\\tGRPC")
        );
    }

    pub(in super::super) fn all_passing(known: &Known) -> Results {
        let mut results = Results::default();
        for (peer, direction, binding, op) in expected_cells(&PEERS, known) {
            let outcome = match known.failure(peer.name, direction, binding, op) {
                Some(_) => Err("as known".to_owned()),
                None => Ok(()),
            };
            results.set(peer.name, direction, binding, op, outcome);
        }
        results
    }

    #[test]
    fn every_cell_is_counted_and_known_failures_must_fail() {
        let known = known();
        let results = all_passing(&known);
        let summary = results.evaluate(&PEERS, &known);
        let expected = expected_cells(&PEERS, &known).count();
        assert_eq!((summary.passed, summary.failed), (expected, 0), "{}", summary.report);
        let per_line = |line: Line| {
            PEERS.iter().filter(|p| p.line == line).map(|p| 2 * 3 * p.line.operations().len()).sum::<usize>()
        };
        assert_eq!(
            expected,
            per_line(Line::V1_0) + per_line(Line::V0_3) - 3 * known.not_applicable.len(),
            "every operation of each peer's line, both directions, three bindings, less the n/a cells"
        );

        let mut missing = all_passing(&known);
        missing.cells.remove(&("js", Direction::OurClient, "GRPC", "stream"));
        let summary = missing.evaluate(&PEERS, &known);
        assert_eq!(summary.failed, 1);
        assert!(summary.report.contains("MISSING js our client → their server GRPC stream"));

        let first = &known.known_failures[0];
        let mut fixed = all_passing(&known);
        let peer = peer(&first.peer).unwrap().name;
        let binding = binding_key(&first.bindings[0]).unwrap();
        let op = peer_op(peer, &first.op);
        fixed.set(peer, first.direction, binding, op, Ok(()));
        let summary = fixed.evaluate(&PEERS, &known);
        assert_eq!(summary.failed, 1);
        assert!(summary.report.contains("UNEXPECTED PASS"), "{}", summary.report);
    }

    fn peer_op(peer: &str, op: &str) -> &'static str {
        super::super::peers::peer(peer).unwrap().line.op_key(op).unwrap()
    }
}
