//! The task state machine and how events change a task: one place for both, shared by every
//! store (spec 4.1.3, 3.1.2).
//!
//! - Terminal states (`COMPLETED`, `FAILED`, `CANCELED`, `REJECTED`) are final: no transition
//!   leaves them.
//! - `SUBMITTED` is only a starting state: a task never goes back to it.
//! - `UNSPECIFIED` is never a valid target.
//! - Every other move between non-terminal states is allowed (`WORKING` <-> `INPUT_REQUIRED` /
//!   `AUTH_REQUIRED`, or straight to a terminal state).

use a2a_proto::v1::{Artifact, Message, Task, TaskState, TaskStatus};

use crate::error::{Error, Result};

/// Whether a task in `from` may move to `to`.
pub fn can_transition(from: TaskState, to: TaskState) -> bool {
    if from.is_terminal() || to == TaskState::Unspecified {
        return false;
    }
    to != TaskState::Submitted || from == TaskState::Submitted || from == TaskState::Unspecified
}

/// A change to a stored task, as the execution produces it. Stores apply it with
/// [`apply_mutation`] (or an equivalent of their own, e.g. a SQL insert for an artifact chunk).
#[derive(Debug, Clone, Copy)]
pub enum TaskMutation<'a> {
    /// A new status replaces the current one. The current status message, if any, moves into the
    /// history first, so the history holds every past status message and the status the latest.
    Status(&'a TaskStatus),
    /// An artifact, or a chunk of one (spec 4.2.2): with `append`, its parts extend the artifact of
    /// the same id; without, it replaces that artifact or is added as a new one.
    Artifact {
        /// The artifact or chunk.
        artifact: &'a Artifact,
        /// Whether to append to the artifact of the same id.
        append: bool,
    },
    /// A message joins the history (an incoming client message continuing the task). The current
    /// status message, if any, moves into the history first: it is what the client answers, and
    /// the history stays in chronological order.
    History(&'a Message),
}

/// Checks `mutation` against the state the task is in now and returns the state after it: the one
/// rule every store applies atomically with the write, and the runtime before it (spec 4.1.3,
/// 3.1.2, 4.2.2).
///
/// - A status update must be a legal transition ([`can_transition`]).
/// - An artifact update needs an artifact id and at least one part, and a non-terminal task.
/// - A client message may join only a non-terminal task (spec 3.1.1: a terminal task accepts no
///   further messages); this one is `UnsupportedOperation`, the others `InvalidAgentResponse`.
pub fn check_mutation(task_id: &str, current: TaskState, mutation: &TaskMutation<'_>) -> Result<TaskState> {
    let invalid = |reason: String| Err(Error::InvalidAgentResponse { reason });
    match mutation {
        TaskMutation::Status(status) => {
            let target = TaskState::try_from(status.state).unwrap_or(TaskState::Unspecified);
            if !can_transition(current, target) {
                return invalid(format!(
                    "task {task_id} cannot move from {} to {}",
                    current.as_str_name(),
                    target.as_str_name()
                ));
            }
            Ok(target)
        }
        TaskMutation::Artifact { artifact, .. } => {
            if artifact.artifact_id.is_empty() || artifact.parts.is_empty() {
                return invalid(
                    "an artifact update needs an artifact with an id and at least one part".into(),
                );
            }
            if current.is_terminal() {
                return invalid(format!(
                    "task {task_id} is {}: it takes no more artifacts",
                    current.as_str_name()
                ));
            }
            Ok(current)
        }
        TaskMutation::History(_) => {
            if current.is_terminal() {
                return Err(Error::unsupported(format!(
                    "task {task_id} is {}: a terminal task accepts no further messages",
                    current.as_str_name()
                )));
            }
            Ok(current)
        }
    }
}

/// Whether `mutation` is a stream event (advances the task's `seq`, see [`crate::store`]): status
/// and artifact updates are; a client message joining the history is not (spec 3.2.3).
pub fn is_event(mutation: &TaskMutation<'_>) -> bool {
    !matches!(mutation, TaskMutation::History(_))
}

/// Applies `mutation` to `task`. Cost is proportional to the mutation, not to the task (an
/// artifact lookup is a scan of artifact ids, without copying any).
pub fn apply_mutation(task: &mut Task, mutation: TaskMutation<'_>) {
    match mutation {
        TaskMutation::Status(status) => apply_owned_status(task, status.clone()),
        TaskMutation::Artifact { artifact, append } => {
            let existing = task.artifacts.iter_mut().find(|a| a.artifact_id == artifact.artifact_id);
            match (existing, append) {
                (Some(existing), true) => {
                    existing.parts.extend(artifact.parts.iter().cloned());
                    merge_artifact_head(existing, artifact);
                }
                (Some(existing), false) => *existing = artifact.clone(),
                (None, _) => task.artifacts.push(artifact.clone()),
            }
        }
        TaskMutation::History(message) => {
            archive_status_message(task);
            task.history.push(message.clone());
        }
    }
}

/// [`apply_mutation`] of a [`TaskMutation::Status`] whose status the caller owns: moved into the
/// task instead of copied.
pub(crate) fn apply_owned_status(task: &mut Task, status: TaskStatus) {
    archive_status_message(task);
    task.status = Some(status);
}

/// [`apply_mutation`] of a [`TaskMutation::Artifact`] whose artifact the caller owns: its parts
/// (or the whole artifact) moved into the task instead of copied.
pub(crate) fn apply_owned_artifact(task: &mut Task, mut artifact: Artifact, append: bool) {
    let existing = task.artifacts.iter_mut().find(|a| a.artifact_id == artifact.artifact_id);
    match (existing, append) {
        (Some(existing), true) => {
            existing.parts.append(&mut artifact.parts);
            merge_artifact_head(existing, &artifact);
        }
        (Some(existing), false) => *existing = artifact,
        (None, _) => task.artifacts.push(artifact),
    }
}

/// What an appended chunk changes of the artifact it extends besides the parts (spec 4.2.2): a
/// non-empty name or description and present metadata replace the old ones; extensions are
/// added. Stores that keep parts apart (a row per chunk) call this for the rest.
pub fn merge_artifact_head(existing: &mut Artifact, chunk: &Artifact) {
    if !chunk.name.is_empty() {
        existing.name.clone_from(&chunk.name);
    }
    if !chunk.description.is_empty() {
        existing.description.clone_from(&chunk.description);
    }
    if chunk.metadata.is_some() {
        existing.metadata.clone_from(&chunk.metadata);
    }
    for uri in &chunk.extensions {
        if !existing.extensions.contains(uri) {
            existing.extensions.push(uri.clone());
        }
    }
}

fn archive_status_message(task: &mut Task) {
    if let Some(previous) = task.status.as_mut().and_then(|s| s.message.take()) {
        task.history.push(previous);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::Part;
    use TaskState::*;

    const ALL: [TaskState; 9] =
        [Unspecified, Submitted, Working, Completed, Failed, Canceled, InputRequired, Rejected, AuthRequired];

    #[test]
    fn terminal_states_are_final() {
        for from in [Completed, Failed, Canceled, Rejected] {
            for to in ALL {
                assert!(!can_transition(from, to), "{from:?} -> {to:?}");
            }
        }
    }

    #[test]
    fn non_terminal_states_move_anywhere_but_back_to_submitted_or_unspecified() {
        for from in [Working, InputRequired, AuthRequired] {
            for to in ALL {
                let expected = !matches!(to, Unspecified | Submitted);
                assert_eq!(can_transition(from, to), expected, "{from:?} -> {to:?}");
            }
        }
        assert!(can_transition(Submitted, Submitted));
        assert!(can_transition(Submitted, Working));
        assert!(can_transition(Submitted, Rejected));
    }

    fn artifact(id: &str, text: &str) -> Artifact {
        Artifact { artifact_id: id.into(), parts: vec![Part::text(text)], ..Default::default() }
    }

    #[test]
    fn check_mutation_applies_the_state_machine_and_the_artifact_shape() {
        let status = |state: TaskState| TaskStatus { state: state.into(), ..Default::default() };
        let working = status(Working);
        assert_eq!(check_mutation("t", Submitted, &TaskMutation::Status(&working)).unwrap(), Working);
        let back = status(Submitted);
        let err = check_mutation("t", Working, &TaskMutation::Status(&back)).unwrap_err();
        assert!(matches!(err, Error::InvalidAgentResponse { .. }), "{err}");
        assert!(
            err.to_string().contains("cannot move from TASK_STATE_WORKING to TASK_STATE_SUBMITTED"),
            "{err}"
        );
        for terminal in [Completed, Failed, Canceled, Rejected] {
            assert!(check_mutation("t", terminal, &TaskMutation::Status(&working)).is_err());
            let chunk = artifact("a", "x");
            let err =
                check_mutation("t", terminal, &TaskMutation::Artifact { artifact: &chunk, append: true })
                    .unwrap_err();
            assert!(err.to_string().contains("takes no more artifacts"), "{err}");
            let message = Message::user_text("more");
            let err = check_mutation("t", terminal, &TaskMutation::History(&message)).unwrap_err();
            assert!(matches!(err, Error::UnsupportedOperation { .. }), "{err}");
        }
        let empty = Artifact { artifact_id: "a".into(), ..Default::default() };
        assert!(check_mutation("t", Working, &TaskMutation::Artifact { artifact: &empty, append: false })
            .is_err());
        let anonymous = Artifact { parts: vec![Part::text("x")], ..Default::default() };
        assert!(check_mutation(
            "t",
            Working,
            &TaskMutation::Artifact { artifact: &anonymous, append: false }
        )
        .is_err());
        let fine = artifact("a", "x");
        assert_eq!(
            check_mutation("t", InputRequired, &TaskMutation::Artifact { artifact: &fine, append: false })
                .unwrap(),
            InputRequired,
            "an artifact leaves the state as it is"
        );
        assert!(!is_event(&TaskMutation::History(&Message::user_text("x"))));
        assert!(is_event(&TaskMutation::Status(&working)));
    }

    #[test]
    fn artifact_chunks_append_and_replace_by_id() {
        let mut task = Task::default();
        apply_mutation(&mut task, TaskMutation::Artifact { artifact: &artifact("a", "1"), append: false });
        apply_mutation(&mut task, TaskMutation::Artifact { artifact: &artifact("a", "2"), append: true });
        apply_mutation(&mut task, TaskMutation::Artifact { artifact: &artifact("b", "x"), append: true });
        assert_eq!(task.artifacts.len(), 2);
        let texts: Vec<_> = task.artifacts[0].parts.iter().filter_map(Part::as_text).collect();
        assert_eq!(texts, ["1", "2"]);
        apply_mutation(&mut task, TaskMutation::Artifact { artifact: &artifact("a", "new"), append: false });
        assert_eq!(task.artifacts[0].parts.len(), 1, "a non-append update replaces the artifact");
    }

    #[test]
    fn owned_changes_apply_exactly_as_borrowed_ones() {
        let status = |state: TaskState, text: &str| TaskStatus {
            state: state.into(),
            message: Some(Message::agent_text(text)),
            timestamp: None,
        };
        let mut chunk = artifact("a", "2");
        chunk.name = "renamed".into();
        chunk.extensions.push("urn:x".into());
        let (mut borrowed, mut owned) = (Task::default(), Task::default());
        for (change, append) in [
            (Some(status(Working, "one")), false),
            (None, false),
            (None, true),
            (Some(status(InputRequired, "two")), false),
            (None, false),
        ] {
            match change {
                Some(status) => {
                    apply_mutation(&mut borrowed, TaskMutation::Status(&status));
                    apply_owned_status(&mut owned, status);
                }
                None => {
                    let chunk = if append { chunk.clone() } else { artifact("a", "1") };
                    apply_mutation(&mut borrowed, TaskMutation::Artifact { artifact: &chunk, append });
                    apply_owned_artifact(&mut owned, chunk, append);
                }
            }
            assert_eq!(owned, borrowed);
        }
        let other = artifact("b", "x");
        apply_mutation(&mut borrowed, TaskMutation::Artifact { artifact: &other, append: true });
        apply_owned_artifact(&mut owned, other, true);
        assert_eq!(owned, borrowed);
        assert_eq!((owned.artifacts.len(), owned.history.len()), (2, 1));
    }

    #[test]
    fn a_new_status_moves_the_previous_status_message_into_history() {
        let mut task = Task::default();
        let first =
            TaskStatus { state: Working.into(), message: Some(Message::agent_text("one")), timestamp: None };
        let second = TaskStatus {
            state: Completed.into(),
            message: Some(Message::agent_text("two")),
            timestamp: None,
        };
        apply_mutation(&mut task, TaskMutation::Status(&first));
        assert!(task.history.is_empty());
        apply_mutation(&mut task, TaskMutation::Status(&second));
        assert_eq!(task.history.len(), 1);
        assert_eq!(task.history[0].text(), "one");
        assert_eq!(task.status.unwrap().message.unwrap().text(), "two");
    }

    #[test]
    fn a_client_answer_follows_the_question_it_answers() {
        let mut task = Task::default();
        let question = TaskStatus {
            state: InputRequired.into(),
            message: Some(Message::agent_text("which?")),
            timestamp: None,
        };
        apply_mutation(&mut task, TaskMutation::Status(&question));
        apply_mutation(&mut task, TaskMutation::History(&Message::user_text("this one")));
        let texts: Vec<_> = task.history.iter().map(Message::text).collect();
        assert_eq!(texts, ["which?", "this one"]);
        assert_eq!(task.state(), InputRequired, "the state is the agent's to change");
    }
}
