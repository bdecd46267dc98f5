//! The two 0.3 enums, `TaskState` and `Role`, in both [`Form`]s.
//!
//! | 1.0 | 0.3 JSON | 0.3 ProtoJSON |
//! | --- | --- | --- |
//! | `TASK_STATE_SUBMITTED` | `submitted` | `TASK_STATE_SUBMITTED` |
//! | `TASK_STATE_WORKING` | `working` | `TASK_STATE_WORKING` |
//! | `TASK_STATE_INPUT_REQUIRED` | `input-required` | `TASK_STATE_INPUT_REQUIRED` |
//! | `TASK_STATE_AUTH_REQUIRED` | `auth-required` | `TASK_STATE_AUTH_REQUIRED` |
//! | `TASK_STATE_COMPLETED` | `completed` | `TASK_STATE_COMPLETED` |
//! | `TASK_STATE_CANCELED` | `canceled` (`cancelled` accepted) | `TASK_STATE_CANCELLED` (`..._CANCELED` accepted) |
//! | `TASK_STATE_FAILED` | `failed` | `TASK_STATE_FAILED` |
//! | `TASK_STATE_REJECTED` | `rejected` | `TASK_STATE_REJECTED` |
//! | `TASK_STATE_UNSPECIFIED` | `unknown` | `TASK_STATE_UNSPECIFIED` |
//! | `ROLE_USER` | `user` | `ROLE_USER` |
//! | `ROLE_AGENT` | `agent` | `ROLE_AGENT` |
//!
//! Input also accepts the other form's spelling and `_` for `-` (`input_required`), because peers
//! mix them (a2aproject/a2a-go#370 for `cancelled`).

use a2a_proto::v1::{Role, TaskState};

use crate::convert::Form;

/// The 1.0 state named by a 0.3 state string (either form, see the module table).
pub fn task_state_from_v03(state: &str) -> Option<TaskState> {
    let normalized = state.trim().to_ascii_lowercase().replace('_', "-");
    let name = normalized.strip_prefix("task-state-").unwrap_or(&normalized);
    Some(match name {
        "submitted" => TaskState::Submitted,
        "working" => TaskState::Working,
        "input-required" => TaskState::InputRequired,
        "auth-required" => TaskState::AuthRequired,
        "completed" => TaskState::Completed,
        // 0.3 JSON spells it `canceled`, 0.3 proto `TASK_STATE_CANCELLED`; peers send both.
        "canceled" | "cancelled" => TaskState::Canceled,
        "failed" => TaskState::Failed,
        "rejected" => TaskState::Rejected,
        "unknown" | "unspecified" => TaskState::Unspecified,
        _ => return None,
    })
}

/// The 0.3 spelling of a 1.0 state (an unknown number reads as unspecified).
pub fn task_state_to_v03(state: i32, form: Form) -> &'static str {
    let state = TaskState::try_from(state).unwrap_or(TaskState::Unspecified);
    match form {
        Form::Json => match state {
            TaskState::Unspecified => "unknown",
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::InputRequired => "input-required",
            TaskState::Rejected => "rejected",
            TaskState::AuthRequired => "auth-required",
        },
        Form::ProtoJson => match state {
            // The 0.3 proto spells the canceled state with two Ls.
            TaskState::Canceled => "TASK_STATE_CANCELLED",
            other => other.as_str_name(),
        },
    }
}

/// The 1.0 role named by a 0.3 role string (`user`, `agent`, `ROLE_USER`, `ROLE_AGENT`).
pub fn role_from_v03(role: &str) -> Option<Role> {
    let lower = role.trim().to_ascii_lowercase();
    match lower.strip_prefix("role_").unwrap_or(&lower) {
        "user" => Some(Role::User),
        "agent" => Some(Role::Agent),
        _ => None,
    }
}

/// The 0.3 spelling of a 1.0 role. 0.3 JSON has only `user` and `agent`: anything that is not the
/// user is written as `agent` (as a2a-python's compat layer does).
pub fn role_to_v03(role: i32, form: Form) -> &'static str {
    let user = Role::try_from(role) == Ok(Role::User);
    match (form, user) {
        (Form::Json, true) => "user",
        (Form::Json, false) => "agent",
        (Form::ProtoJson, true) => "ROLE_USER",
        (Form::ProtoJson, false) => "ROLE_AGENT",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATES: [(TaskState, &str, &str); 9] = [
        (TaskState::Unspecified, "unknown", "TASK_STATE_UNSPECIFIED"),
        (TaskState::Submitted, "submitted", "TASK_STATE_SUBMITTED"),
        (TaskState::Working, "working", "TASK_STATE_WORKING"),
        (TaskState::Completed, "completed", "TASK_STATE_COMPLETED"),
        (TaskState::Failed, "failed", "TASK_STATE_FAILED"),
        (TaskState::Canceled, "canceled", "TASK_STATE_CANCELLED"),
        (TaskState::InputRequired, "input-required", "TASK_STATE_INPUT_REQUIRED"),
        (TaskState::Rejected, "rejected", "TASK_STATE_REJECTED"),
        (TaskState::AuthRequired, "auth-required", "TASK_STATE_AUTH_REQUIRED"),
    ];

    #[test]
    fn every_state_round_trips_in_both_forms() {
        for (state, json, proto) in STATES {
            assert_eq!(task_state_to_v03(state as i32, Form::Json), json);
            assert_eq!(task_state_to_v03(state as i32, Form::ProtoJson), proto);
            assert_eq!(task_state_from_v03(json), Some(state), "{json}");
            assert_eq!(task_state_from_v03(proto), Some(state), "{proto}");
        }
    }

    #[test]
    fn peer_spellings_of_states_are_accepted() {
        assert_eq!(task_state_from_v03("cancelled"), Some(TaskState::Canceled));
        assert_eq!(task_state_from_v03("TASK_STATE_CANCELED"), Some(TaskState::Canceled));
        assert_eq!(task_state_from_v03("input_required"), Some(TaskState::InputRequired));
        assert_eq!(task_state_from_v03("running"), None);
        assert_eq!(task_state_to_v03(99, Form::Json), "unknown");
    }

    #[test]
    fn roles_map_both_ways_and_unspecified_is_written_as_agent() {
        assert_eq!(role_from_v03("user"), Some(Role::User));
        assert_eq!(role_from_v03("ROLE_AGENT"), Some(Role::Agent));
        assert_eq!(role_from_v03("system"), None);
        assert_eq!(role_to_v03(Role::User as i32, Form::Json), "user");
        assert_eq!(role_to_v03(Role::Agent as i32, Form::ProtoJson), "ROLE_AGENT");
        assert_eq!(role_to_v03(Role::Unspecified as i32, Form::Json), "agent");
    }
}
