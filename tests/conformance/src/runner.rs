//! [`Suite`]: runs every scenario over every binding, then compares each scenario's records across
//! bindings (spec 5.1: the same requests give semantically equivalent results and errors on every
//! binding) and turns both into a [`Report`].
//!
//! A scenario runs over the bindings of its target concurrently (each in its own task, so one that
//! panics or hangs only fails its own cell), and scenarios run one after the other.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::binding::Binding;
use crate::context::{Ctx, State, Stop};
use crate::diff::diff;
use crate::record::Record;
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

    /// Runs every scenario over every binding and compares the records.
    pub async fn run(&self) -> Report {
        let mut rows = Vec::new();
        for scenario in &self.scenarios {
            rows.push(self.run_scenario(*scenario).await);
        }
        Report { agent: format!("{}{}", self.agent.base_url, crate::target::AGENT_CARD_PATH), rows }
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

    /// Why `scenario` does not apply to `target` over `binding`, if it does not.
    fn skip_reason(scenario: &Scenario, target: &Target, binding: Binding) -> Option<String> {
        if let Some(reason) = target.untestable(binding) {
            return Some(reason.to_owned());
        }
        let needs = &scenario.needs;
        if needs.json_only && !binding.is_json() {
            return Some(format!(
                "sends raw ProtoJSON, which {binding} does not carry (a protobuf message cannot hold unknown \
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
        for binding in Binding::ALL {
            let target = match &target {
                Ok(target) => Arc::clone(target),
                Err(reason) => {
                    tasks.push((binding, None, Some(reason.clone())));
                    continue;
                }
            };
            // A binding the agent under test does not offer is skipped for reference setups too:
            // they stand in for the agent, per binding.
            let reason = self
                .agent
                .untestable(binding)
                .map(str::to_owned)
                .or_else(|| Self::skip_reason(&scenario, &target, binding));
            if let Some(reason) = reason {
                tasks.push((binding, None, Some(reason)));
                continue;
            }
            let endpoint = target.endpoint(binding).expect("testable bindings have an endpoint").clone();
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
            tasks.push((binding, Some(handle), None));
        }
        let mut runs = Vec::new();
        for (binding, handle, skip) in tasks {
            let run = match (handle, skip) {
                (Some(handle), _) => match handle.await {
                    Ok((state, Ok(()))) => Run::Completed(state),
                    Ok((_, Err(Stop::Skip(reason)))) => Run::Skipped(reason),
                    Ok((state, Err(Stop::Fail(reason)))) => Run::Stopped(state, reason),
                    Err(panic) => Run::Stopped(State::default(), format!("the scenario panicked: {panic}")),
                },
                (None, reason) => Run::Skipped(reason.unwrap_or_default()),
            };
            runs.push((binding, run));
        }
        Row { scenario: scenario.id, title: scenario.title, spec: scenario.spec, cells: compare(runs) }
    }
}

/// Turns runs into cells: a run that completed fails if its record differs from the baseline
/// (the largest group of bindings whose records agree; ties go to the group with fewer check
/// failures, then to the earlier binding).
fn compare(runs: Vec<(Binding, Run)>) -> Vec<Cell> {
    let completed: Vec<(Binding, &Record, usize)> = runs
        .iter()
        .filter_map(|(binding, run)| match run {
            Run::Completed(state) => Some((*binding, &state.record, state.failures.len())),
            _ => None,
        })
        .collect();
    let mut groups: Vec<Vec<(Binding, &Record, usize)>> = Vec::new();
    for entry in &completed {
        match groups.iter_mut().find(|g| g[0].1.same_observations(entry.1)) {
            Some(group) => group.push(*entry),
            None => groups.push(vec![*entry]),
        }
    }
    let baseline = groups
        .iter()
        .max_by(|a, b| {
            let failures = |g: &Vec<(Binding, &Record, usize)>| g.iter().map(|e| e.2).sum::<usize>();
            a.len().cmp(&b.len()).then(failures(b).cmp(&failures(a))).then(b[0].0.cmp(&a[0].0))
        })
        .map(|g| (g[0].0, g[0].1, g[0].1.to_json(), g.iter().map(|e| e.0).collect::<Vec<_>>()));
    let mut mismatch: HashMap<Binding, String> = HashMap::new();
    let mut advice: HashMap<Binding, String> = HashMap::new();
    if let Some((reference, reference_record, reference_json, members)) = &baseline {
        for (binding, record, _) in &completed {
            if binding != reference && !record.same_advice(reference_record) {
                let lines = diff(
                    reference.name(),
                    &reference_record.advisory_json(),
                    binding.name(),
                    &record.advisory_json(),
                );
                advice.insert(
                    *binding,
                    format!(
                        "spec 5.1, 3.3.2 (advisory): {binding} names other invalid fields than {reference}:\n{}",
                        lines.join("\n")
                    ),
                );
            }
            if members.contains(binding) {
                continue;
            }
            let lines = diff(reference.name(), reference_json, binding.name(), &record.to_json());
            mismatch.insert(
                *binding,
                format!(
                    "spec 5.1: {binding} observed something different from {reference} for the same requests:\n{}",
                    lines.join("\n")
                ),
            );
        }
    }
    runs.into_iter()
        .map(|(binding, run)| match run {
            Run::Skipped(reason) => {
                Cell { binding, verdict: Verdict::Skip(reason), notes: vec![], record: None }
            }
            Run::Stopped(state, reason) => {
                let mut failures = state.failures;
                failures.push(format!("stopped: {reason}"));
                Cell { binding, verdict: Verdict::Fail(failures), notes: state.notes, record: None }
            }
            Run::Completed(state) => {
                let mut failures = state.failures;
                failures.extend(mismatch.remove(&binding));
                let mut notes = state.notes;
                notes.extend(advice.remove(&binding));
                let verdict = if failures.is_empty() { Verdict::Pass } else { Verdict::Fail(failures) };
                Cell { binding, verdict, notes, record: Some(state.record.to_json()) }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
            (Binding::JsonRpc, completed(&[("cancel", json!({"error": "TaskNotFound"}))], 0)),
            (Binding::HttpJson, completed(&[("cancel", json!({"error": "TaskNotFound"}))], 0)),
            (Binding::Grpc, completed(&[("cancel", json!({"error": "Internal"}))], 0)),
        ]);
        assert_eq!(cells[0].verdict, Verdict::Pass);
        assert_eq!(cells[1].verdict, Verdict::Pass);
        let Verdict::Fail(reasons) = &cells[2].verdict else { panic!("{:?}", cells[2].verdict) };
        assert!(reasons[0].contains("GRPC observed something different from JSONRPC"), "{reasons:?}");
        assert!(
            reasons[0].contains(r#"$.cancel.error: JSONRPC "TaskNotFound" | GRPC "Internal""#),
            "{reasons:?}"
        );
    }

    #[test]
    fn a_tie_goes_to_the_group_that_passed_its_checks() {
        let cells = compare(vec![
            (Binding::JsonRpc, completed(&[("x", json!(1))], 1)),
            (Binding::Grpc, completed(&[("x", json!(2))], 0)),
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
            (Binding::JsonRpc, invalid("pageSize")),
            (Binding::HttpJson, invalid("pageSize")),
            (Binding::Grpc, invalid("")),
        ]);
        assert!(cells.iter().all(|c| c.verdict == Verdict::Pass), "{cells:?}");
        assert!(cells[0].notes.is_empty() && cells[1].notes.is_empty());
        assert!(
            cells[2].notes[0].contains("GRPC names other invalid fields than JSONRPC"),
            "{:?}",
            cells[2].notes
        );
        assert!(
            cells[2].notes[0].contains(r#"$.pageSize 0.fields[0]: JSONRPC "pageSize" | GRPC """#),
            "{:?}",
            cells[2].notes
        );
    }

    #[test]
    fn skipped_and_stopped_runs_are_not_compared() {
        let cells = compare(vec![
            (Binding::JsonRpc, completed(&[("x", json!(1))], 0)),
            (Binding::HttpJson, Run::Stopped(State::default(), "no reply".into())),
            (Binding::Grpc, Run::Skipped("no gRPC interface".into())),
        ]);
        assert_eq!(cells[0].verdict, Verdict::Pass);
        assert_eq!(cells[1].verdict, Verdict::Fail(vec!["stopped: no reply".into()]));
        assert_eq!(cells[2].verdict, Verdict::Skip("no gRPC interface".into()));
    }
}
