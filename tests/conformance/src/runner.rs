//! [`Suite`]: runs every scenario over every column (binding x protocol version), then compares
//! each scenario's records across columns and turns both into a [`Report`]:
//! - among the bindings of one version (spec 5.1: the same requests give semantically equivalent
//!   results and errors on every binding), the 0.3 columns without what the 0.3 translation cannot
//!   carry ([`View`]);
//! - between the versions (spec 3.6.2: an agent serving both processes each request with the
//!   semantics of its version, on the same tasks): each 0.3 column that agrees with the other 0.3
//!   columns is compared with the 1.0 baseline, on the entries whose meaning both versions share.
//!
//! A scenario runs over the columns of its target concurrently (each in its own task, so one that
//! panics or hangs only fails its own cell), and scenarios run one after the other.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::ProtocolVersion;

use crate::column::Column;
use crate::context::{Ctx, State, Stop};
use crate::diff::diff;
use crate::record::{Record, View};
use crate::report::{Cell, Report, Row, Verdict};
use crate::scenario::{Capability, Scenario, Setup};
use crate::target::Target;

/// Longest one scenario may run over one binding.
pub const SCENARIO_TIMEOUT: Duration = Duration::from_secs(60);

/// A configured run of the suite.
#[derive(Debug)]
pub struct Suite {
    agent: Arc<Target>,
    references: HashMap<Setup, Arc<Target>>,
    scenarios: Vec<Scenario>,
    http: reqwest::Client,
    webhook_url: Option<String>,
}

/// How one scenario ended over one binding, before the cross-binding comparison.
enum Run {
    Skipped(String),
    Stopped(State, String),
    Completed(State),
}

impl Suite {
    /// The whole suite ([`crate::scenarios::all`]) against `agent`.
    pub fn new(agent: Target) -> Suite {
        Suite {
            agent: Arc::new(agent),
            references: HashMap::new(),
            scenarios: crate::scenarios::all(),
            http: reqwest::Client::new(),
            webhook_url: None,
        }
    }

    /// A server configured as `setup`, for the scenarios that need one the agent under test
    /// cannot stand for (see [`Setup`]).
    #[must_use]
    pub fn with_reference(mut self, setup: Setup, target: Target) -> Suite {
        self.references.insert(setup, Arc::new(target));
        self
    }

    /// Only the scenarios whose id is in `ids`.
    #[must_use]
    pub fn only(mut self, ids: &[String]) -> Suite {
        if !ids.is_empty() {
            self.scenarios.retain(|s| ids.iter().any(|id| id == s.id));
        }
        self
    }

    /// A webhook URL for push configs (a receiver that answers 200).
    #[must_use]
    pub fn with_webhook(mut self, url: impl Into<String>) -> Suite {
        self.webhook_url = Some(url.into());
        self
    }

    /// The scenarios this suite runs.
    pub fn scenarios(&self) -> &[Scenario] {
        &self.scenarios
    }

    /// Runs every scenario over every column and compares the records.
    pub async fn run(&self) -> Report {
        let mut rows = Vec::new();
        for scenario in &self.scenarios {
            rows.push(self.run_scenario(*scenario).await);
        }
        Report {
            agent: format!("{}{}", self.agent.base_url, crate::target::AGENT_CARD_PATH),
            columns: self.agent.columns().to_vec(),
            rows,
        }
    }

    /// The server `setup` runs against, or why there is none.
    fn target_for(&self, setup: Setup) -> Result<Arc<Target>, String> {
        let agent = &self.agent;
        let own = match setup {
            Setup::Agent => true,
            Setup::Lacking(capability) => !capability.declared_by(&agent.card),
            Setup::RequiredExtension => !agent.required_extensions().is_empty(),
            Setup::ExtendedCardNotConfigured | Setup::InvalidAgentResponse => false,
        };
        if own {
            return Ok(Arc::clone(agent));
        }
        self.references.get(&setup).cloned().ok_or_else(|| {
            let what = match setup {
                Setup::Agent => unreachable!("the agent under test always stands for itself"),
                Setup::Lacking(capability) => format!(
                    "the agent declares {}: true; this needs an agent that does not",
                    capability.name()
                ),
                Setup::ExtendedCardNotConfigured => {
                    "needs an agent that declares extendedAgentCard without having one configured".to_owned()
                }
                Setup::RequiredExtension => "the agent's card marks no extension required".to_owned(),
                Setup::InvalidAgentResponse => {
                    "needs an agent that answers with an invalid response".to_owned()
                }
            };
            format!(
                "{what} (a configured reference server stands in when the suite tests the reference server)"
            )
        })
    }

    /// Why `scenario` does not apply to `target` over `column`, if it does not.
    fn skip_reason(scenario: &Scenario, target: &Target, column: Column) -> Option<String> {
        let binding = column.binding;
        let needs = &scenario.needs;
        if let (Some(reason), ProtocolVersion::V0_3) = (needs.only_v1, column.version) {
            return Some(format!("A2A 1.0 only: {reason}"));
        }
        if let Some(reason) = target.untestable(column) {
            return Some(reason.to_owned());
        }
        if needs.json_only && !binding.is_json() {
            return Some(format!(
                "sends raw JSON, which {binding} does not carry (a protobuf message cannot hold unknown \
                 JSON fields or enum names)"
            ));
        }
        let missing: Vec<&Capability> =
            needs.capabilities.iter().filter(|c| !c.declared_by(&target.card)).collect();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|c| c.name()).collect();
            return Some(format!("the agent card does not declare capabilities {}", names.join(", ")));
        }
        let skills: Vec<&str> = needs.skills.iter().copied().filter(|s| !target.has_skill(s)).collect();
        if !skills.is_empty() {
            return Some(format!(
                "needs the demo-convention skills {} (by AgentSkill.id), which the card does not declare",
                skills.join(", ")
            ));
        }
        None
    }

    async fn run_scenario(&self, scenario: Scenario) -> Row {
        let target = self.target_for(scenario.needs.setup);
        let mut tasks = Vec::new();
        for column in self.agent.columns().iter().copied() {
            if let (Some(reason), ProtocolVersion::V0_3) = (scenario.needs.only_v1, column.version) {
                tasks.push((column, None, Some(format!("A2A 1.0 only: {reason}"))));
                continue;
            }
            let target = match &target {
                Ok(target) => Arc::clone(target),
                Err(reason) => {
                    tasks.push((column, None, Some(reason.clone())));
                    continue;
                }
            };
            // A column the agent under test does not offer is skipped for reference setups too:
            // they stand in for the agent, per column.
            let reason = self
                .agent
                .untestable(column)
                .map(str::to_owned)
                .or_else(|| Self::skip_reason(&scenario, &target, column));
            if let Some(reason) = reason {
                tasks.push((column, None, Some(reason)));
                continue;
            }
            let endpoint = target.endpoint(column).expect("testable columns have an endpoint").clone();
            let ctx = Ctx::new(target, endpoint, self.http.clone(), self.webhook_url.clone());
            let handle = tokio::spawn(async move {
                let outcome = tokio::time::timeout(SCENARIO_TIMEOUT, (scenario.run)(&ctx)).await;
                let outcome = outcome.unwrap_or_else(|_| {
                    Err(Stop::Fail(format!(
                        "the scenario did not finish within {} s",
                        SCENARIO_TIMEOUT.as_secs()
                    )))
                });
                (ctx.into_state(), outcome)
            });
            tasks.push((column, Some(handle), None));
        }
        let mut runs = Vec::new();
        for (column, handle, skip) in tasks {
            let run = match (handle, skip) {
                (Some(handle), _) => match handle.await {
                    Ok((state, Ok(()))) => Run::Completed(state),
                    Ok((_, Err(Stop::Skip(reason)))) => Run::Skipped(reason),
                    Ok((state, Err(Stop::Fail(reason)))) => Run::Stopped(state, reason),
                    Err(panic) => Run::Stopped(State::default(), format!("the scenario panicked: {panic}")),
                },
                (None, reason) => Run::Skipped(reason.unwrap_or_default()),
            };
            runs.push((column, run));
        }
        Row { scenario: scenario.id, title: scenario.title, spec: scenario.spec, cells: compare(runs) }
    }
}

/// A group of columns of one version whose records agree.
type Group<'a> = Vec<(Column, &'a Record, usize)>;

/// The outcome of comparing the columns of one version.
struct Compared<'a> {
    /// The baseline column and record, and every column that agrees with it.
    baseline: Option<(Column, &'a Record, Vec<Column>)>,
    /// Columns whose record differs from the baseline, with the diff.
    mismatch: HashMap<Column, String>,
    /// Columns whose advisory part differs, with the diff.
    advice: HashMap<Column, String>,
}

/// Compares the completed runs of one version in `view`: the baseline is the largest group of
/// columns whose records agree (ties go to the group with fewer check failures, then to the
/// earlier column).
fn compare_version<'a>(completed: &[(Column, &'a Record, usize)], view: View) -> Compared<'a> {
    let mut groups: Vec<Group<'a>> = Vec::new();
    for entry in completed {
        match groups.iter_mut().find(|g| g[0].1.view(view) == entry.1.view(view)) {
            Some(group) => group.push(*entry),
            None => groups.push(vec![*entry]),
        }
    }
    let baseline = groups
        .iter()
        .max_by(|a, b| {
            let failures = |g: &Group<'a>| g.iter().map(|e| e.2).sum::<usize>();
            a.len().cmp(&b.len()).then(failures(b).cmp(&failures(a))).then(b[0].0.cmp(&a[0].0))
        })
        .map(|g| (g[0].0, g[0].1, g.iter().map(|e| e.0).collect::<Vec<_>>()));
    let mut mismatch = HashMap::new();
    let mut advice = HashMap::new();
    if let Some((reference, reference_record, members)) = &baseline {
        let reference_json = reference_record.view_json(view);
        for (column, record, _) in completed {
            if column != reference && !record.same_advice(reference_record) {
                let lines = diff(
                    &reference.name(),
                    &reference_record.advisory_json(),
                    &column.name(),
                    &record.advisory_json(),
                );
                advice.insert(
                    *column,
                    format!(
                        "spec 5.1, 3.3.2 (advisory): {column} names other invalid fields than {reference}:\n{}",
                        lines.join("\n")
                    ),
                );
            }
            if members.contains(column) {
                continue;
            }
            let lines = diff(&reference.name(), &reference_json, &column.name(), &record.view_json(view));
            mismatch.insert(
                *column,
                format!(
                    "spec 5.1: {column} observed something different from {reference} for the same requests:\n{}",
                    lines.join("\n")
                ),
            );
        }
    }
    Compared { baseline, mismatch, advice }
}

/// Turns runs into cells: a run that completed fails if its record differs from its version's
/// baseline ([`compare_version`]), or, in 0.3, if it agrees with the 0.3 baseline but the 0.3
/// baseline differs from the 1.0 baseline on what both versions share ([`View::CrossVersion`]).
fn compare(runs: Vec<(Column, Run)>) -> Vec<Cell> {
    let completed = |version: ProtocolVersion| -> Vec<(Column, &Record, usize)> {
        runs.iter()
            .filter(|(column, _)| column.version == version)
            .filter_map(|(column, run)| match run {
                Run::Completed(state) => Some((*column, &state.record, state.failures.len())),
                _ => None,
            })
            .collect()
    };
    let v1 = compare_version(&completed(ProtocolVersion::V1_0), View::V1);
    let v03 = compare_version(&completed(ProtocolVersion::V0_3), View::V03);
    let mut mismatch = v1.mismatch;
    mismatch.extend(v03.mismatch);
    let mut advice = v1.advice;
    advice.extend(v03.advice);
    if let (Some((reference, reference_record, _)), Some((_, v03_record, members))) =
        (&v1.baseline, &v03.baseline)
    {
        let reference_json = reference_record.view_json(View::CrossVersion);
        let v03_json = v03_record.view_json(View::CrossVersion);
        if reference_json != v03_json {
            for column in members {
                let lines = diff(&reference.name(), &reference_json, &column.name(), &v03_json);
                mismatch.insert(
                    *column,
                    format!(
                        "spec 3.6.2, 5.1: {column} observed something different from {reference} for the same \
                         requests in 1.0 (entries that differ by version and what 0.3 cannot carry left out):\n{}",
                        lines.join("\n")
                    ),
                );
            }
        }
    }
    runs.into_iter()
        .map(|(column, run)| match run {
            Run::Skipped(reason) => {
                Cell { column, verdict: Verdict::Skip(reason), notes: vec![], record: None }
            }
            Run::Stopped(state, reason) => {
                let mut failures = state.failures;
                failures.push(format!("stopped: {reason}"));
                Cell { column, verdict: Verdict::Fail(failures), notes: state.notes, record: None }
            }
            Run::Completed(state) => {
                let mut failures = state.failures;
                failures.extend(mismatch.remove(&column));
                let mut notes = state.notes;
                notes.extend(advice.remove(&column));
                let verdict = if failures.is_empty() { Verdict::Pass } else { Verdict::Fail(failures) };
                Cell { column, verdict, notes, record: Some(state.record.to_json()) }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::binding::Binding;

    fn completed(entries: &[(&str, serde_json::Value)], failures: usize) -> Run {
        let mut state = State::default();
        for (label, value) in entries {
            state.record.push(*label, value);
        }
        state.failures = (0..failures).map(|i| format!("failure {i}")).collect();
        Run::Completed(state)
    }

    #[test]
    fn the_odd_binding_out_fails_with_a_diff_naming_both() {
        let cells = compare(vec![
            (Binding::JsonRpc.into(), completed(&[("cancel", json!({"error": "TaskNotFound"}))], 0)),
            (Binding::Rest.into(), completed(&[("cancel", json!({"error": "TaskNotFound"}))], 0)),
            (Binding::Grpc.into(), completed(&[("cancel", json!({"error": "Internal"}))], 0)),
        ]);
        assert_eq!(cells[0].verdict, Verdict::Pass);
        assert_eq!(cells[1].verdict, Verdict::Pass);
        let Verdict::Fail(reasons) = &cells[2].verdict else { panic!("{:?}", cells[2].verdict) };
        assert!(reasons[0].contains("GRPC 1.0 observed something different from JSONRPC 1.0"), "{reasons:?}");
        assert!(
            reasons[0].contains(r#"$.cancel.error: JSONRPC 1.0 "TaskNotFound" | GRPC 1.0 "Internal""#),
            "{reasons:?}"
        );
    }

    #[test]
    fn a_tie_goes_to_the_group_that_passed_its_checks() {
        let cells = compare(vec![
            (Binding::JsonRpc.into(), completed(&[("x", json!(1))], 1)),
            (Binding::Grpc.into(), completed(&[("x", json!(2))], 0)),
        ]);
        assert!(matches!(&cells[0].verdict, Verdict::Fail(r) if r.len() == 2), "{:?}", cells[0].verdict);
        assert_eq!(cells[1].verdict, Verdict::Pass);
    }

    #[test]
    fn different_invalid_field_names_are_a_note_not_a_failure() {
        let invalid = |field: &str| {
            let mut state = State::default();
            state.record.push("pageSize 0", &a2a_core::Error::invalid_param(field, "too small"));
            Run::Completed(state)
        };
        let cells = compare(vec![
            (Binding::JsonRpc.into(), invalid("pageSize")),
            (Binding::Rest.into(), invalid("pageSize")),
            (Binding::Grpc.into(), invalid("")),
        ]);
        assert!(cells.iter().all(|c| c.verdict == Verdict::Pass), "{cells:?}");
        assert!(cells[0].notes.is_empty() && cells[1].notes.is_empty());
        assert!(
            cells[2].notes[0].contains("GRPC 1.0 names other invalid fields than JSONRPC 1.0"),
            "{:?}",
            cells[2].notes
        );
        assert!(
            cells[2].notes[0].contains(r#"$.pageSize 0.fields[0]: JSONRPC 1.0 "pageSize" | GRPC 1.0 """#),
            "{:?}",
            cells[2].notes
        );
    }

    fn with_per_version(shared: i64, own: i64) -> Run {
        let mut state = State::default();
        state.record.push("shared", &json!(shared));
        state.record.push_per_version("own", &json!(own));
        Run::Completed(state)
    }

    #[test]
    fn the_0_3_columns_are_compared_among_themselves_and_with_1_0_on_what_they_share() {
        let runs = vec![
            (Column::v1(Binding::JsonRpc), with_per_version(1, 10)),
            (Column::v1(Binding::Grpc), with_per_version(1, 10)),
            (Column::v03(Binding::JsonRpc), with_per_version(1, 30)),
            (Column::v03(Binding::Grpc), with_per_version(1, 30)),
        ];
        let cells = compare(runs);
        assert!(
            cells.iter().all(|c| c.verdict == Verdict::Pass),
            "per-version entries differ by version: {cells:?}"
        );
        let cells = compare(vec![
            (Column::v1(Binding::JsonRpc), with_per_version(1, 10)),
            (Column::v03(Binding::JsonRpc), with_per_version(2, 30)),
            (Column::v03(Binding::Rest), with_per_version(2, 30)),
            (Column::v03(Binding::Grpc), with_per_version(2, 31)),
        ]);
        assert_eq!(cells[0].verdict, Verdict::Pass);
        for cell in &cells[1..3] {
            let Verdict::Fail(reasons) = &cell.verdict else { panic!("{cell:?}") };
            assert!(reasons[0].contains("observed something different from JSONRPC 1.0"), "{reasons:?}");
            assert!(reasons[0].contains("$.shared: JSONRPC 1.0 1 |"), "{reasons:?}");
        }
        let Verdict::Fail(reasons) = &cells[3].verdict else { panic!("{:?}", cells[3]) };
        assert!(
            reasons[0].contains("GRPC 0.3 observed something different from JSONRPC 0.3")
                && reasons[0].contains("$.own: JSONRPC 0.3 30 | GRPC 0.3 31"),
            "a per-version entry is compared within its version: {reasons:?}"
        );
    }

    #[test]
    fn skipped_and_stopped_runs_are_not_compared() {
        let cells = compare(vec![
            (Binding::JsonRpc.into(), completed(&[("x", json!(1))], 0)),
            (Binding::Rest.into(), Run::Stopped(State::default(), "no reply".into())),
            (Binding::Grpc.into(), Run::Skipped("no gRPC interface".into())),
        ]);
        assert_eq!(cells[0].verdict, Verdict::Pass);
        assert_eq!(cells[1].verdict, Verdict::Fail(vec!["stopped: no reply".into()]));
        assert_eq!(cells[2].verdict, Verdict::Skip("no gRPC interface".into()));
    }
}
