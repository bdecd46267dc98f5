//! [`Report`]: the verdict of every scenario over every binding, printable as a plain-text or
//! Markdown table followed by the reason for each failure and skip.

use std::fmt::{self, Write as _};

use serde_json::Value;

use crate::binding::Binding;

/// The verdict of one scenario over one binding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every check held and the record matched the other bindings'.
    Pass,
    /// At least one check failed, the scenario could not go on, or the record differed from
    /// the other bindings'; one line (or paragraph) per reason.
    Fail(Vec<String>),
    /// The scenario does not apply (the agent does not claim what it needs).
    Skip(String),
}

impl Verdict {
    /// `pass`, `FAIL` or `skip`.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Fail(_) => "FAIL",
            Verdict::Skip(_) => "skip",
        }
    }
}

/// One scenario over one binding.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The binding.
    pub binding: Binding,
    /// The verdict.
    pub verdict: Verdict,
    /// Advisory notes (SHOULDs not met, observations).
    pub notes: Vec<String>,
    /// The normalized record, when the scenario ran to its end.
    pub record: Option<Value>,
}

/// One scenario over every binding.
#[derive(Debug, Clone)]
pub struct Row {
    /// The scenario's id.
    pub scenario: &'static str,
    /// Its title.
    pub title: &'static str,
    /// The spec sections it checks.
    pub spec: &'static str,
    /// One cell per binding, in [`Binding::ALL`] order.
    pub cells: Vec<Cell>,
}

impl Row {
    /// The cell of `binding`.
    pub fn cell(&self, binding: Binding) -> Option<&Cell> {
        self.cells.iter().find(|c| c.binding == binding)
    }
}

/// The outcome of a suite run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The agent under test (its card URL).
    pub agent: String,
    /// One row per scenario, in suite order.
    pub rows: Vec<Row>,
}

impl Report {
    /// Whether no cell failed.
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// Every failing `(scenario, binding, reasons)`.
    pub fn failures(&self) -> impl Iterator<Item = (&'static str, Binding, &[String])> {
        self.rows.iter().flat_map(|row| {
            row.cells.iter().filter_map(move |cell| match &cell.verdict {
                Verdict::Fail(reasons) => Some((row.scenario, cell.binding, reasons.as_slice())),
                _ => None,
            })
        })
    }

    /// Every skipped `(scenario, binding, reason)`.
    pub fn skips(&self) -> impl Iterator<Item = (&'static str, Binding, &str)> {
        self.rows.iter().flat_map(|row| {
            row.cells.iter().filter_map(move |cell| match &cell.verdict {
                Verdict::Skip(reason) => Some((row.scenario, cell.binding, reason.as_str())),
                _ => None,
            })
        })
    }

    /// The row of `scenario`.
    pub fn row(&self, scenario: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.scenario == scenario)
    }

    /// `(passed, failed, skipped)` cell counts.
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut counts = (0, 0, 0);
        for cell in self.rows.iter().flat_map(|r| &r.cells) {
            match cell.verdict {
                Verdict::Pass => counts.0 += 1,
                Verdict::Fail(_) => counts.1 += 1,
                Verdict::Skip(_) => counts.2 += 1,
            }
        }
        counts
    }

    /// The report as JSON: every cell with its verdict, reasons, notes and normalized record.
    pub fn to_json(&self) -> Value {
        let rows: Vec<Value> = self
            .rows
            .iter()
            .map(|row| {
                let cells: serde_json::Map<String, Value> = row
                    .cells
                    .iter()
                    .map(|cell| {
                        let (reasons, skip) = match &cell.verdict {
                            Verdict::Pass => (Vec::new(), None),
                            Verdict::Fail(reasons) => (reasons.clone(), None),
                            Verdict::Skip(reason) => (Vec::new(), Some(reason.clone())),
                        };
                        let value = serde_json::json!({
                            "verdict": cell.verdict.label().to_ascii_lowercase(),
                            "failures": reasons,
                            "skipReason": skip,
                            "notes": cell.notes,
                            "record": cell.record,
                        });
                        (cell.binding.name().to_owned(), value)
                    })
                    .collect();
                serde_json::json!({"scenario": row.scenario, "title": row.title, "spec": row.spec, "bindings": cells})
            })
            .collect();
        serde_json::json!({"agent": self.agent, "passed": self.passed(), "scenarios": rows})
    }

    /// The report as Markdown: a table, then failures, skips and notes as lists.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Agent: `{}`\n", self.agent);
        let _ = write!(out, "| scenario | spec |");
        for binding in Binding::ALL {
            let _ = write!(out, " {binding} |");
        }
        let _ = write!(out, "\n|---|---|");
        for _ in Binding::ALL {
            let _ = write!(out, "---|");
        }
        out.push('\n');
        for row in &self.rows {
            let _ = write!(out, "| `{}` | {} |", row.scenario, row.spec);
            for binding in Binding::ALL {
                let label = row.cell(binding).map_or("-", |c| c.verdict.label());
                let _ = write!(out, " {label} |");
            }
            out.push('\n');
        }
        let (pass, fail, skip) = self.counts();
        let _ = writeln!(out, "\n{pass} passed, {fail} failed, {skip} skipped.");
        self.write_details(&mut out, true);
        out
    }

    fn write_details(&self, out: &mut String, markdown: bool) {
        let bullet = if markdown { "- " } else { "  " };
        let failures: Vec<_> = self.failures().collect();
        if !failures.is_empty() {
            let _ = writeln!(out, "\n{}", if markdown { "**Failures**\n" } else { "Failures:" });
            for (scenario, binding, reasons) in failures {
                let _ = writeln!(out, "{bullet}{scenario} x {binding}:");
                for reason in reasons {
                    for (i, line) in reason.lines().enumerate() {
                        let indent = if i == 0 { "    - " } else { "      " };
                        let _ = writeln!(out, "{indent}{line}");
                    }
                }
            }
        }
        let skips = group(self.skips().map(|(s, b, r)| (s, b, r.to_owned())));
        if !skips.is_empty() {
            let _ = writeln!(out, "\n{}", if markdown { "**Skips**\n" } else { "Skips:" });
            for (scenario, bindings, reason) in skips {
                let _ =
                    writeln!(out, "{bullet}{scenario} x {bindings}: {}", reason.replace('\n', "\n      "));
            }
        }
        let notes = group(self.rows.iter().flat_map(|row| {
            row.cells
                .iter()
                .flat_map(move |cell| cell.notes.iter().map(move |n| (row.scenario, cell.binding, n.clone())))
        }));
        if !notes.is_empty() {
            let _ = writeln!(
                out,
                "\n{}",
                if markdown { "**Notes** (not failures)\n" } else { "Notes (not failures):" }
            );
            for (scenario, bindings, note) in notes {
                let _ = writeln!(out, "{bullet}{scenario} x {bindings}: {}", note.replace('\n', "\n      "));
            }
        }
    }
}

/// Groups identical `(scenario, text)` pairs, listing their bindings (`all bindings` for three).
fn group(
    items: impl Iterator<Item = (&'static str, Binding, String)>,
) -> Vec<(&'static str, String, String)> {
    let mut grouped: Vec<(&'static str, Vec<Binding>, String)> = Vec::new();
    for (scenario, binding, text) in items {
        match grouped.iter_mut().find(|(s, _, t)| *s == scenario && *t == text) {
            Some((_, bindings, _)) => bindings.push(binding),
            None => grouped.push((scenario, vec![binding], text)),
        }
    }
    grouped
        .into_iter()
        .map(|(scenario, bindings, text)| {
            let names = if bindings.len() == Binding::ALL.len() {
                "all bindings".to_owned()
            } else {
                bindings.iter().map(|b| b.name()).collect::<Vec<_>>().join(", ")
            };
            (scenario, names, text)
        })
        .collect()
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.rows.iter().map(|r| r.scenario.len()).max().unwrap_or(8).max(8);
        let mut out = String::new();
        let _ = writeln!(out, "A2A conformance: {}\n", self.agent);
        let _ = write!(out, "{:width$}", "scenario");
        for binding in Binding::ALL {
            let _ = write!(out, "  {:<9}", binding.name());
        }
        out.push('\n');
        for row in &self.rows {
            let _ = write!(out, "{:width$}", row.scenario);
            for binding in Binding::ALL {
                let label = row.cell(binding).map_or("-", |c| c.verdict.label());
                let _ = write!(out, "  {label:<9}");
            }
            let _ = writeln!(out, "  spec {}", row.spec);
        }
        let (pass, fail, skip) = self.counts();
        let _ = writeln!(out, "\n{pass} passed, {fail} failed, {skip} skipped");
        self.write_details(&mut out, false);
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let cell = |binding, verdict| Cell { binding, verdict, notes: vec![], record: None };
        Report {
            agent: "http://127.0.0.1:1".into(),
            rows: vec![
                Row {
                    scenario: "cancel",
                    title: "t",
                    spec: "3.1.5",
                    cells: vec![
                        cell(Binding::JsonRpc, Verdict::Pass),
                        cell(Binding::HttpJson, Verdict::Pass),
                        cell(Binding::Grpc, Verdict::Fail(vec!["spec 3.1.5: expected TaskNotFound".into()])),
                    ],
                },
                Row {
                    scenario: "unknown-fields",
                    title: "t",
                    spec: "5.7",
                    cells: vec![
                        cell(Binding::JsonRpc, Verdict::Pass),
                        cell(Binding::HttpJson, Verdict::Pass),
                        cell(Binding::Grpc, Verdict::Skip("raw JSON".into())),
                    ],
                },
            ],
        }
    }

    #[test]
    fn the_table_has_a_column_per_binding_and_the_reasons_follow() {
        let text = report().to_string();
        assert!(text.contains("scenario        JSONRPC    HTTP+JSON  GRPC"), "{text}");
        assert!(text.contains("cancel          pass       pass       FAIL"), "{text}");
        assert!(text.contains("cancel x GRPC:\n    - spec 3.1.5: expected TaskNotFound"), "{text}");
        assert!(text.contains("unknown-fields x GRPC: raw JSON"), "{text}");
        assert!(text.contains("4 passed, 1 failed, 1 skipped"), "{text}");
    }

    #[test]
    fn failures_name_scenario_and_binding() {
        let report = report();
        let failures: Vec<_> = report.failures().map(|(s, b, _)| (s, b)).collect();
        assert_eq!(failures, [("cancel", Binding::Grpc)]);
        assert!(!report.passed());
        assert!(report.to_markdown().contains("| `cancel` | 3.1.5 | pass | pass | FAIL |"));
    }
}
