//! The scenarios, one module per area of the spec, and the helpers they share.
//!
//! Every scenario is an `async fn(&Ctx) -> Step<()>`: it calls the agent through
//! [`Ctx::client`] (an `&dyn A2aService`, whatever the binding), checks each observation against
//! the spec section cited next to it, and records what it saw for the cross-binding comparison.
//! Behaviour that depends on the agent's logic uses the demo-skill convention: the first word of a
//! message picks the skill (`ask`, `wait N`, `reply X`, `stream N`, anything else echoes); checks
//! of that behaviour say "demo convention" instead of a spec section.
//!
//! Every scenario runs in the 0.3 columns too, unless its `Needs` say `only_v1` with the reason.
//! Where 0.3 differs from 1.0 by design, the scenario branches on [`Ctx::is_v03`], cites the 0.3
//! spec (`0.3 7.9`, meaning section 7.9 of the 0.3 specification) and records what differs with
//! [`Ctx::record_per_version`].

mod card;
mod errors;
mod multi_turn;
mod push;
mod raw_json;
mod send;
mod streaming;
mod tasks;

use std::time::Duration;

use a2a_proto::v1::{stream_response::Payload, Message, StreamResponse, Task, TaskState};

use crate::context::{Ctx, Step, Stop};
use crate::scenario::Scenario;

/// Every scenario, in report order.
pub fn all() -> Vec<Scenario> {
    [
        card::scenarios(),
        send::scenarios(),
        streaming::scenarios(),
        multi_turn::scenarios(),
        tasks::scenarios(),
        push::scenarios(),
        errors::scenarios(),
        raw_json::scenarios(),
    ]
    .concat()
}

/// Why the ListTasks scenarios (and ListTasks checks) are A2A 1.0 only.
pub(crate) const NO_LIST_TASKS_IN_V03: &str = "ListTasks has no A2A 0.3 counterpart (no `tasks/list` \
     method, no RPC in the 0.3 proto; `GET /v1/tasks` is only in the 0.3 spec's method table)";

/// A task id no agent has issued.
pub(crate) const NO_SUCH_TASK: &str = "a2a-conformance-no-such-task";

/// The state of an event that carries one.
pub(crate) fn event_state(event: &StreamResponse) -> Option<TaskState> {
    match event.payload.as_ref()? {
        Payload::Task(task) => Some(task.state()),
        Payload::StatusUpdate(update) => update.status.as_ref().map(|s| s.state()),
        Payload::Message(_) | Payload::ArtifactUpdate(_) => None,
    }
}

/// `task`, `message`, `statusUpdate`, `artifactUpdate` (the ProtoJSON member name), or `empty`.
pub(crate) fn event_kind(event: &StreamResponse) -> &'static str {
    match &event.payload {
        Some(Payload::Task(_)) => "task",
        Some(Payload::Message(_)) => "message",
        Some(Payload::StatusUpdate(_)) => "statusUpdate",
        Some(Payload::ArtifactUpdate(_)) => "artifactUpdate",
        None => "empty",
    }
}

/// The status timestamp of `task` as `(seconds, nanos)`, if it has one.
pub(crate) fn status_time(task: &Task) -> Option<(i64, i32)> {
    task.status.as_ref()?.timestamp.as_ref().map(|t| (t.seconds, t.nanos))
}

/// The text of every artifact of `task`, in order.
pub(crate) fn artifact_text(task: &Task) -> String {
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect()
}

/// Waits long enough for the next task's status timestamp to differ from the previous one's:
/// timestamps have millisecond precision (spec 5.6.1), and listing order (spec 3.1.4) and the
/// `statusTimestampAfter` filter are only observable between distinct timestamps.
pub(crate) async fn next_millisecond() {
    tokio::time::sleep(Duration::from_millis(5)).await;
}

/// Checks the fields spec 5.7 / the proto mark REQUIRED in a message.
pub(crate) fn check_message(ctx: &Ctx, message: &Message, what: &str) {
    ctx.check(!message.message_id.is_empty(), "4.1.4, 5.7", format!("{what}: messageId is required"));
    ctx.check(message.role != 0, "4.1.4, 5.7", format!("{what}: role is required"));
    ctx.check(!message.parts.is_empty(), "4.1.4, 5.7", format!("{what}: parts must hold at least one part"));
}

/// Checks the fields spec 5.7 / the proto mark REQUIRED in a task and in what it contains.
pub(crate) fn check_task(ctx: &Ctx, task: &Task, what: &str) {
    ctx.check(!task.id.is_empty(), "4.1.1, 3.4.2", format!("{what}: the task id is required"));
    ctx.check(
        task.state() != TaskState::Unspecified,
        "4.1.1, 4.1.2",
        format!("{what}: the task must have a status with a state"),
    );
    for artifact in &task.artifacts {
        ctx.check(!artifact.artifact_id.is_empty(), "4.1.7, 5.7", format!("{what}: artifactId is required"));
        ctx.check(
            !artifact.parts.is_empty(),
            "4.1.7, 5.7",
            format!("{what}: an artifact needs at least one part"),
        );
    }
    for message in &task.history {
        check_message(ctx, message, &format!("{what}: a history message"));
    }
    if let Some(message) = task.status.as_ref().and_then(|s| s.message.as_ref()) {
        check_message(ctx, message, &format!("{what}: the status message"));
    }
}

/// Requires `task` to be in `state` by the demo-skill convention, or stops: the rest of the
/// scenario depends on it.
pub(crate) fn require_state(task: &Task, state: TaskState, what: &str) -> Step<()> {
    if task.state() == state {
        Ok(())
    } else {
        Err(Stop::Fail(format!(
            "demo convention: {what} must leave the task {}, it is {}",
            state.as_str_name(),
            task.state().as_str_name()
        )))
    }
}
