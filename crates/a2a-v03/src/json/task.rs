//! `Task`, `TaskStatus`, `Artifact`: the same structure in 0.3 and 1.0, with 0.3's `kind: "task"`,
//! its state spellings and its `status.message` (`update` in the 0.3 proto, JSON name `message`).
//!
//! Timestamps are RFC 3339 in UTC with `Z` on output. On input a timestamp without an offset (as
//! Python's `datetime.isoformat()` writes, e.g. the 0.3 spec's `"2025-04-02T16:59:25.331844"`) is
//! read as UTC.
//!
//! 0.3 requires `contextId` and `status` on a task: both are always written (`status` as
//! `{"state": "unknown"}` if the 1.0 task has none).

use a2a_core::Result;
use a2a_proto::v1::{Artifact, Task, TaskStatus};
use a2a_proto::Timestamp;
use serde_json::{json, Map, Value};

use crate::convert::{Form, V03};
use crate::json::message::{expect_kind, insert_str, insert_strings, insert_struct};
use crate::json::{enums, message, part};
use crate::read::{invalid, Obj};

impl V03 for Task {
    fn from_v03(value: &Value) -> Result<Self> {
        read(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write(self, form)
    }
}

impl V03 for TaskStatus {
    fn from_v03(value: &Value) -> Result<Self> {
        read_status(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write_status(self, form)
    }
}

impl V03 for Artifact {
    fn from_v03(value: &Value) -> Result<Self> {
        read_artifact(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write_artifact(self, form)
    }
}

pub(crate) fn read(value: &Value, path: &str) -> Result<Task> {
    let o = Obj::new(value, path)?;
    expect_kind(&o, "task")?;
    Ok(Task {
        id: o.string("id")?,
        context_id: o.string("contextId")?,
        status: o.get("status").map(|s| read_status(s, &o.at("status"))).transpose()?,
        artifacts: o
            .array("artifacts")?
            .into_iter()
            .map(|(p, a)| read_artifact(a, &p))
            .collect::<Result<_>>()?,
        history: o.array("history")?.into_iter().map(|(p, m)| message::read(m, &p)).collect::<Result<_>>()?,
        metadata: o.structure("metadata")?,
    })
}

pub(crate) fn write(task: &Task, form: Form) -> Value {
    let mut object = Map::new();
    match form {
        Form::Json => {
            object.insert("kind".into(), "task".into());
            object.insert("id".into(), task.id.clone().into());
            object.insert("contextId".into(), task.context_id.clone().into());
            let status = task.status.as_ref().map_or_else(
                || json!({"state": enums::task_state_to_v03(0, form)}),
                |s| write_status(s, form),
            );
            object.insert("status".into(), status);
        }
        Form::ProtoJson => {
            insert_str(&mut object, "id", &task.id);
            insert_str(&mut object, "contextId", &task.context_id);
            if let Some(status) = &task.status {
                object.insert("status".into(), write_status(status, form));
            }
        }
    }
    if !task.artifacts.is_empty() {
        object.insert("artifacts".into(), task.artifacts.iter().map(|a| write_artifact(a, form)).collect());
    }
    if !task.history.is_empty() {
        object.insert("history".into(), task.history.iter().map(|m| message::write(m, form)).collect());
    }
    insert_struct(&mut object, "metadata", task.metadata.as_ref());
    Value::Object(object)
}

pub(crate) fn read_status(value: &Value, path: &str) -> Result<TaskStatus> {
    let o = Obj::new(value, path)?;
    let state = match o.str("state")? {
        Some(state) => enums::task_state_from_v03(state)
            .ok_or_else(|| invalid(&o.at("state"), format!("is not a 0.3 task state: {state:?}")))?,
        None => Default::default(),
    };
    // `message` in 0.3 JSON and as the proto's json_name; `update` is the proto field name.
    let message_key = if o.has("message") || !o.has("update") { "message" } else { "update" };
    Ok(TaskStatus {
        state: state as i32,
        message: o.get(message_key).map(|m| message::read(m, &o.at(message_key))).transpose()?,
        timestamp: o.str("timestamp")?.map(|t| read_timestamp(t, &o.at("timestamp"))).transpose()?,
    })
}

pub(crate) fn write_status(status: &TaskStatus, form: Form) -> Value {
    let mut object = Map::new();
    if form == Form::Json || status.state != 0 {
        object.insert("state".into(), enums::task_state_to_v03(status.state, form).into());
    }
    if let Some(message) = &status.message {
        object.insert("message".into(), message::write(message, form));
    }
    if let Some(timestamp) = write_timestamp(status.timestamp.as_ref()) {
        object.insert("timestamp".into(), timestamp);
    }
    Value::Object(object)
}

/// An RFC 3339 timestamp; one without an offset is taken as UTC.
pub(crate) fn read_timestamp(text: &str, path: &str) -> Result<Timestamp> {
    text.parse::<Timestamp>()
        .or_else(|_| format!("{text}Z").parse::<Timestamp>())
        .map_err(|_| invalid(path, format!("must be an RFC 3339 timestamp, got {text:?}")))
}

/// RFC 3339 in UTC with `Z`; `None` for an absent or out-of-range timestamp.
pub(crate) fn write_timestamp(timestamp: Option<&Timestamp>) -> Option<Value> {
    let timestamp = timestamp?;
    serde_json::to_value(timestamp).ok()
}

pub(crate) fn read_artifact(value: &Value, path: &str) -> Result<Artifact> {
    let o = Obj::new(value, path)?;
    Ok(Artifact {
        artifact_id: o.string("artifactId")?,
        name: o.string("name")?,
        description: o.string("description")?,
        parts: part::read_all(o.array("parts")?)?,
        metadata: o.structure("metadata")?,
        extensions: o.strings("extensions")?,
    })
}

pub(crate) fn write_artifact(artifact: &Artifact, form: Form) -> Value {
    let mut object = Map::new();
    match form {
        Form::Json => {
            object.insert("artifactId".into(), artifact.artifact_id.clone().into());
        }
        Form::ProtoJson => insert_str(&mut object, "artifactId", &artifact.artifact_id),
    }
    insert_str(&mut object, "name", &artifact.name);
    insert_str(&mut object, "description", &artifact.description);
    if form == Form::Json || !artifact.parts.is_empty() {
        object.insert("parts".into(), artifact.parts.iter().map(|p| part::write(p, form)).collect());
    }
    insert_struct(&mut object, "metadata", artifact.metadata.as_ref());
    insert_strings(&mut object, "extensions", &artifact.extensions);
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{Message, Part, TaskState};

    fn task_json() -> Value {
        json!({
            "kind": "task", "id": "t1", "contextId": "c1",
            "status": {
                "state": "input-required",
                "message": {"kind": "message", "messageId": "m2", "role": "agent",
                            "parts": [{"kind": "text", "text": "Name?"}]},
                "timestamp": "2024-03-15T10:10:00Z"
            },
            "artifacts": [{"artifactId": "a1", "name": "n", "description": "d",
                           "parts": [{"kind": "text", "text": "x"}], "extensions": ["urn:e"],
                           "metadata": {"m": 1}}],
            "history": [{"kind": "message", "messageId": "m1", "role": "user",
                         "parts": [{"kind": "text", "text": "hi"}]}],
            "metadata": {"k": "v"}
        })
    }

    #[test]
    fn a_task_round_trips_through_1_0_in_the_json_form() {
        let task = Task::from_v03(&task_json()).unwrap();
        assert_eq!(task.state(), TaskState::InputRequired);
        assert_eq!(task.status.as_ref().unwrap().timestamp.unwrap().seconds, 1_710_497_400);
        assert_eq!(task.artifacts[0].parts, vec![Part::text("x")]);
        assert_eq!(task.history[0].text(), "hi");
        assert_eq!(task.to_v03(Form::Json), task_json());
    }

    #[test]
    fn the_proto_form_spells_states_as_enums_and_round_trips() {
        let task = Task::from_v03(&task_json()).unwrap();
        let proto = task.to_v03(Form::ProtoJson);
        assert_eq!(proto["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
        assert_eq!(proto["status"]["message"]["content"][0]["text"], "Name?");
        assert!(proto.get("kind").is_none());
        assert_eq!(Task::from_v03(&proto).unwrap(), task);
        // `update` is the proto field name of status.message; ProtoJSON parsers accept it too.
        let by_field_name = json!({"state": "TASK_STATE_WORKING",
            "update": {"messageId": "m", "role": "ROLE_AGENT", "content": [{"text": "w"}]}});
        let status = TaskStatus::from_v03(&by_field_name).unwrap();
        assert_eq!(status.message.unwrap().text(), "w");
    }

    #[test]
    fn required_0_3_members_are_written_even_when_1_0_leaves_them_empty() {
        let v03 = Task { id: "t".into(), ..Default::default() }.to_v03(Form::Json);
        assert_eq!(v03, json!({"kind": "task", "id": "t", "contextId": "", "status": {"state": "unknown"}}));
        let artifact = Artifact { artifact_id: "a".into(), ..Default::default() }.to_v03(Form::Json);
        assert_eq!(artifact, json!({"artifactId": "a", "parts": []}));
    }

    #[test]
    fn timestamps_without_offset_are_utc_and_garbage_is_rejected() {
        let status =
            TaskStatus::from_v03(&json!({"state": "submitted", "timestamp": "2025-04-02T16:59:25.331844"}))
                .unwrap();
        assert_eq!(status.to_v03(Form::Json)["timestamp"], "2025-04-02T16:59:25.331844Z");
        let offset =
            TaskStatus::from_v03(&json!({"state": "working", "timestamp": "2024-03-15T12:10:00+02:00"}));
        assert_eq!(offset.unwrap().to_v03(Form::Json)["timestamp"], "2024-03-15T10:10:00Z");
        let err = read_status(&json!({"timestamp": "yesterday"}), "status").unwrap_err();
        assert_eq!(err.field_violations()[0].field, "status.timestamp");
        let err = read_status(&json!({"state": "running"}), "status").unwrap_err();
        assert_eq!(err.field_violations()[0].field, "status.state");
    }

    #[test]
    fn kind_must_be_task_and_history_errors_name_their_index() {
        let err = Task::from_v03(&json!({"kind": "message"})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "kind");
        let err = Task::from_v03(
            &json!({"id": "t", "history": [Message::default().to_v03(Form::Json), {"role": "system"}]}),
        )
        .unwrap_err();
        assert_eq!(err.field_violations()[0].field, "history[1].role");
    }
}
