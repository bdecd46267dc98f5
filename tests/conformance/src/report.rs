//! [`Report`]: the verdict of every scenario over every column (binding and protocol version),
//! printable as a plain-text or Markdown table followed by the reason for each failure and skip.

use std::fmt::{self, Write as _};

use serde_json::Value;

use crate::column::Column;

/// The verdict of one scenario over one column.
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

/// One scenario over one column.
#[derive(Debug, Clone)]
pub struct Cell {
    /// The binding and protocol version.
    pub column: Column,
    /// The verdict.
    pub verdict: Verdict,
    /// Advisory notes (SHOULDs not met, observations).
    pub notes: Vec<String>,
    /// The normalized record, when the scenario ran to its end.
    pub record: Option<Value>,
}

/// One scenario over every column.
#[derive(Debug, Clone)]
pub struct Row {
    /// The scenario's id.
    pub scenario: &'static str,
    /// Its title.
    pub title: &'static str,
    /// The spec sections it checks.
    pub spec: &'static str,
    /// One cell per column of the report, in its order.
    pub cells: Vec<Cell>,
}

impl Row {
    /// The cell of `column` (a [`Binding`](crate::Binding) alone is its 1.0 column).
    pub fn cell(&self, column: impl Into<Column>) -> Option<&Cell> {
        let column = column.into();
        self.cells.iter().find(|c| c.column == column)
    }
}

/// The outcome of a suite run.
#[derive(Debug, Clone)]
pub struct Report {
    /// The agent under test (its card URL).
    pub agent: String,
    /// The columns, in report order: the three 1.0 bindings, and the three 0.3 ones when the
    /// agent's card declares 0.3.
    pub columns: Vec<Column>,
    /// One row per scenario, in suite order.
    pub rows: Vec<Row>,
}

impl Report {
    /// Whether no cell failed.
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// Every failing `(scenario, column, reasons)`.
    pub fn failures(&self) -> impl Iterator<Item = (&'static str, Column, &[String])> {
        self.rows.iter().flat_map(|row| {
            row.cells.iter().filter_map(move |cell| match &cell.verdict {
                Verdict::Fail(reasons) => Some((row.scenario, cell.column, reasons.as_slice())),
                _ => None,
            })
        })
    }

    /// Every skipped `(scenario, column, reason)`.
    pub fn skips(&self) -> impl Iterator<Item = (&'static str, Column, &str)> {
        self.rows.iter().flat_map(|row| {
            row.cells.iter().filter_map(move |cell| match &cell.verdict {
                Verdict::Skip(reason) => Some((row.scenario, cell.column, reason.as_str())),
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

    /// The report as JSON: every cell with its binding, protocol version, verdict, reasons, notes
    /// and normalized record, keyed by column name (`JSONRPC 1.0`).
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
                            "binding": cell.column.binding.protocol_binding(),
                            "protocolVersion": cell.column.version.as_str(),
                            "verdict": cell.verdict.label().to_ascii_lowercase(),
                            "failures": reasons,
                            "skipReason": skip,
                            "notes": cell.notes,
                            "record": cell.record,
                        });
                        (cell.column.name(), value)
                    })
                    .collect();
                serde_json::json!({"scenario": row.scenario, "title": row.title, "spec": row.spec, "columns": cells})
            })
            .collect();
        serde_json::json!({"agent": self.agent, "passed": self.passed(), "scenarios": rows})
    }

    /// The report as Markdown: a table, then failures, skips and notes as lists.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "Agent: `{}`\n", self.agent);
        let _ = write!(out, "| scenario | spec |");
        for column in &self.columns {
            let _ = write!(out, " {column} |");
        }
        let _ = write!(out, "\n|---|---|");
        for _ in &self.columns {
            let _ = write!(out, "---|");
        }
        out.push('\n');
        for row in &self.rows {
            let _ = write!(out, "| `{}` | {} |", row.scenario, row.spec);
            for column in &self.columns {
                let label = row.cell(*column).map_or("-", |c| c.verdict.label());
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
            for (scenario, column, reasons) in failures {
                let _ = writeln!(out, "{bullet}{scenario} x {column}:");
                for reason in reasons {
                    for (i, line) in reason.lines().enumerate() {
                        let indent = if i == 0 { "    - " } else { "      " };
                        let _ = writeln!(out, "{indent}{line}");
                    }
                }
            }
        }
        let skips = group(&self.columns, self.skips().map(|(s, c, r)| (s, c, r.to_owned())));
        if !skips.is_empty() {
            let _ = writeln!(out, "\n{}", if markdown { "**Skips**\n" } else { "Skips:" });
            for (scenario, bindings, reason) in skips {
                let _ =
                    writeln!(out, "{bullet}{scenario} x {bindings}: {}", reason.replace('\n', "\n      "));
            }
        }
        let notes = group(
            &self.columns,
            self.rows.iter().flat_map(|row| {
                row.cells.iter().flat_map(move |cell| {
                    cell.notes.iter().map(move |n| (row.scenario, cell.column, n.clone()))
                })
            }),
        );
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

/// Groups identical `(scenario, text)` pairs, listing their columns: `all columns` for every
/// column of the report, `all 1.0 columns` / `all 0.3 columns` for every column of a version.
fn group(
    all: &[Column],
    items: impl Iterator<Item = (&'static str, Column, String)>,
) -> Vec<(&'static str, String, String)> {
    let mut grouped: Vec<(&'static str, Vec<Column>, String)> = Vec::new();
    for (scenario, column, text) in items {
        match grouped.iter_mut().find(|(s, _, t)| *s == scenario && *t == text) {
            Some((_, columns, _)) => columns.push(column),
            None => grouped.push((scenario, vec![column], text)),
        }
    }
    grouped
        .into_iter()
        .map(|(scenario, columns, text)| {
            let of_version =
                |version| all.iter().filter(|c| c.version == version).copied().collect::<Vec<_>>();
            let mut names = Vec::new();
            let mut rest = columns.clone();
            if columns.len() == all.len() {
                names.push("all columns".to_owned());
                rest.clear();
            } else {
                for version in Column::VERSIONS {
                    let wanted = of_version(version);
                    if !wanted.is_empty() && wanted.iter().all(|c| columns.contains(c)) {
                        names.push(format!("all {version} columns"));
                        rest.retain(|c| c.version != version);
                    }
                }
            }
            names.extend(rest.iter().map(|c| c.name()));
            (scenario, names.join(", "), text)
        })
        .collect()
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.rows.iter().map(|r| r.scenario.len()).max().unwrap_or(8).max(8);
        let mut out = String::new();
        let _ = writeln!(out, "A2A conformance: {}\n", self.agent);
        let _ = write!(out, "{:width$}", "scenario");
        for column in &self.columns {
            let _ = write!(out, "  {:<13}", column.name());
        }
        out.push('\n');
        for row in &self.rows {
            let _ = write!(out, "{:width$}", row.scenario);
            for column in &self.columns {
                let label = row.cell(*column).map_or("-", |c| c.verdict.label());
                let _ = write!(out, "  {label:<13}");
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

    use crate::binding::Binding;

    fn report() -> Report {
        let cell =
            |binding: Binding, verdict| Cell { column: binding.into(), verdict, notes: vec![], record: None };
        Report {
            agent: "http://127.0.0.1:1".into(),
            columns: Column::ALL[..3].to_vec(),
            rows: vec![
                Row {
                    scenario: "cancel",
                    title: "t",
                    spec: "3.1.5",
                    cells: vec![
                        cell(Binding::JsonRpc, Verdict::Pass),
                        cell(Binding::Rest, Verdict::Pass),
                        cell(Binding::Grpc, Verdict::Fail(vec!["spec 3.1.5: expected TaskNotFound".into()])),
                    ],
                },
                Row {
                    scenario: "unknown-fields",
                    title: "t",
                    spec: "5.7",
                    cells: vec![
                        cell(Binding::JsonRpc, Verdict::Pass),
                        cell(Binding::Rest, Verdict::Pass),
                        cell(Binding::Grpc, Verdict::Skip("raw JSON".into())),
                    ],
                },
            ],
        }
    }

    #[test]
    fn the_table_has_a_column_per_binding_and_version_and_the_reasons_follow() {
        let text = report().to_string();
        assert!(text.contains("scenario        JSONRPC 1.0    HTTP+JSON 1.0  GRPC 1.0"), "{text}");
        assert!(text.contains("cancel          pass           pass           FAIL"), "{text}");
        assert!(text.contains("cancel x GRPC 1.0:\n    - spec 3.1.5: expected TaskNotFound"), "{text}");
        assert!(text.contains("unknown-fields x GRPC 1.0: raw JSON"), "{text}");
        assert!(text.contains("4 passed, 1 failed, 1 skipped"), "{text}");
    }

    #[test]
    fn failures_name_scenario_and_column() {
        let report = report();
        let failures: Vec<_> = report.failures().map(|(s, c, _)| (s, c)).collect();
        assert_eq!(failures, [("cancel", Column::v1(Binding::Grpc))]);
        assert!(!report.passed());
        assert!(report
            .to_markdown()
            .contains("| scenario | spec | JSONRPC 1.0 | HTTP+JSON 1.0 | GRPC 1.0 |"));
        assert!(report.to_markdown().contains("| `cancel` | 3.1.5 | pass | pass | FAIL |"));
    }

    #[test]
    fn skips_and_notes_name_whole_versions() {
        let skip = |column, reason: &str| Cell {
            column,
            verdict: Verdict::Skip(reason.into()),
            notes: vec![],
            record: None,
        };
        let mut cells: Vec<Cell> =
            Column::ALL[3..].iter().map(|c| skip(*c, "A2A 1.0 only: ListTasks")).collect();
        cells.extend(Column::ALL[..2].iter().map(|c| skip(*c, "other")));
        cells.push(skip(Column::ALL[2], "A2A 1.0 only: ListTasks"));
        let report = Report {
            agent: "a".into(),
            columns: Column::ALL.to_vec(),
            rows: vec![Row { scenario: "list", title: "t", spec: "3.1.4", cells }],
        };
        let text = report.to_string();
        assert!(text.contains("list x all 0.3 columns, GRPC 1.0: A2A 1.0 only: ListTasks"), "{text}");
        assert!(text.contains("list x JSONRPC 1.0, HTTP+JSON 1.0: other"), "{text}");
        assert!(text.contains("JSONRPC 0.3    HTTP+JSON 0.3  GRPC 0.3"), "{text}");
    }
}
