//! Stream events and send results: 0.3's `kind`-discriminated objects vs 1.0's wrappers.
//!
//! | 1.0 (`StreamResponse` / `SendMessageResponse`) | 0.3 JSON (`result`) | 0.3 ProtoJSON |
//! | --- | --- | --- |
//! | `{"task": {..}}` | `{"kind": "task", ..}` | `{"task": {..}}` |
//! | `{"message": {..}}` | `{"kind": "message", ..}` | `{"message": {..}}` |
//! | `{"statusUpdate": {..}}` | `{"kind": "status-update", "final", ..}` | `{"statusUpdate": {.., "final"}}` |
//! | `{"artifactUpdate": {..}}` | `{"kind": "artifact-update", ..}` | `{"artifactUpdate": {..}}` |
//!
//! **`final`.** 0.3 marks the last status update of a stream with `final: true` ("the final event
//! in the stream for this interaction"); 1.0 has no such field and simply ends the stream. We write
//! `final: true` exactly on status updates whose state is terminal or interrupted
//! (`input-required`, `auth-required`): that is where a 1.0 SendStreamingMessage stream ends, and
//! where the 0.3 SDKs end both `message/stream` and `tasks/resubscribe`. [`ends_v03_stream`] tells
//! a binding when to close a 0.3 stream so that `final` is really the last event. On input `final`
//! is checked to be a boolean and then dropped (the stream's end carries that information in 1.0).
//!
//! On input the shape decides when `kind` is absent: a wrapper member (`task`, `message`/`msg`,
//! `statusUpdate`, `artifactUpdate`) or, failing that, the object's own members.

use a2a_core::Result;
use a2a_proto::v1::{
    send_message_response, stream_response, SendMessageResponse, StreamResponse, TaskArtifactUpdateEvent,
    TaskState, TaskStatusUpdateEvent,
};
use serde_json::{Map, Value};

use crate::convert::{Form, V03};
use crate::json::message::{expect_kind, insert_str, insert_struct};
use crate::json::{message, task};
use crate::read::{invalid, Obj};

impl V03 for TaskStatusUpdateEvent {
    fn from_v03(value: &Value) -> Result<Self> {
        read_status_update(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write_status_update(self, form)
    }
}

impl V03 for TaskArtifactUpdateEvent {
    fn from_v03(value: &Value) -> Result<Self> {
        read_artifact_update(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write_artifact_update(self, form)
    }
}

impl V03 for StreamResponse {
    fn from_v03(value: &Value) -> Result<Self> {
        Ok(StreamResponse { payload: Some(read_event(value, "")?) })
    }

    /// Writes the event. A `StreamResponse` without payload (never produced by core) is written as
    /// an empty object.
    fn to_v03(&self, form: Form) -> Value {
        use stream_response::Payload;
        let Some(payload) = &self.payload else { return Value::Object(Map::new()) };
        let (wrapper, value) = match payload {
            Payload::Task(t) => ("task", task::write(t, form)),
            Payload::Message(m) => ("message", message::write(m, form)),
            Payload::StatusUpdate(e) => ("statusUpdate", write_status_update(e, form)),
            Payload::ArtifactUpdate(e) => ("artifactUpdate", write_artifact_update(e, form)),
        };
        wrap(wrapper, value, form)
    }
}

impl V03 for SendMessageResponse {
    fn from_v03(value: &Value) -> Result<Self> {
        use stream_response::Payload;
        let payload = match read_event(value, "")? {
            Payload::Task(t) => send_message_response::Payload::Task(t),
            Payload::Message(m) => send_message_response::Payload::Message(m),
            Payload::StatusUpdate(_) | Payload::ArtifactUpdate(_) => {
                return Err(invalid("result", "a message/send result must be a task or a message"))
            }
        };
        Ok(SendMessageResponse { payload: Some(payload) })
    }

    /// Writes the result (`Task` or `Message`). Without payload (never produced by core): an empty
    /// object.
    fn to_v03(&self, form: Form) -> Value {
        use send_message_response::Payload;
        match &self.payload {
            Some(Payload::Task(t)) => wrap("task", task::write(t, form), form),
            Some(Payload::Message(m)) => wrap("message", message::write(m, form), form),
            None => Value::Object(Map::new()),
        }
    }
}

fn wrap(wrapper: &str, value: Value, form: Form) -> Value {
    match form {
        Form::Json => value,
        Form::ProtoJson => Value::Object(Map::from_iter([(wrapper.to_owned(), value)])),
    }
}

/// Whether `event` ends a 0.3 stream: a status update written with `final: true` (terminal or
/// interrupted state), a direct `Message` reply, or a `Task` snapshot in a terminal state. A 0.3
/// binding closes the stream after writing such an event; 0.3 clients expect nothing after it.
pub fn ends_v03_stream(event: &StreamResponse) -> bool {
    use stream_response::Payload;
    match &event.payload {
        Some(Payload::StatusUpdate(e)) => is_final(e),
        Some(Payload::Message(_)) => true,
        Some(Payload::Task(t)) => t.state().is_terminal(),
        Some(Payload::ArtifactUpdate(_)) | None => false,
    }
}

/// The 0.3 `final` flag of a status update (see the module docs).
pub fn is_final(event: &TaskStatusUpdateEvent) -> bool {
    let state = event.status.as_ref().map(|s| s.state()).unwrap_or(TaskState::Unspecified);
    state.is_terminal() || state.is_interrupted()
}

fn read_event(value: &Value, path: &str) -> Result<stream_response::Payload> {
    use stream_response::Payload;
    let o = Obj::new(value, path)?;
    let kind = match o.str("kind")? {
        Some(kind) => kind.to_owned(),
        None => {
            // ProtoJSON wrapper: exactly the member that names the payload.
            let wrapper = ["task", "message", "msg", "statusUpdate", "artifactUpdate"]
                .into_iter()
                .find(|key| o.get(key).is_some_and(Value::is_object) && !o.has("kind") && !o.has("role"));
            if let Some(key) = wrapper {
                let inner = o.get(key).unwrap_or(&Value::Null);
                let at = o.at(key);
                return Ok(match key {
                    "task" => Payload::Task(task::read(inner, &at)?),
                    "statusUpdate" => Payload::StatusUpdate(read_status_update(inner, &at)?),
                    "artifactUpdate" => Payload::ArtifactUpdate(read_artifact_update(inner, &at)?),
                    _ => Payload::Message(message::read(inner, &at)?),
                });
            }
            shape_kind(&o)
                .ok_or_else(|| {
                    invalid(o.path(), "is neither a task, a message, a status update nor an artifact update")
                })?
                .to_owned()
        }
    };
    Ok(match kind.as_str() {
        "task" => Payload::Task(task::read(value, path)?),
        "message" => Payload::Message(message::read(value, path)?),
        "status-update" => Payload::StatusUpdate(read_status_update(value, path)?),
        "artifact-update" => Payload::ArtifactUpdate(read_artifact_update(value, path)?),
        other => {
            return Err(invalid(
                &o.at("kind"),
                format!(
                    "must be \"task\", \"message\", \"status-update\" or \"artifact-update\", got {other:?}"
                ),
            ))
        }
    })
}

/// The kind of a `kind`-less 0.3 object, judged by its members.
fn shape_kind(o: &Obj<'_>) -> Option<&'static str> {
    if o.has("taskId") && o.has("artifact") {
        Some("artifact-update")
    } else if o.has("taskId") && o.has("status") {
        Some("status-update")
    } else if o.has("role") || o.has("messageId") {
        Some("message")
    } else if o.has("id") {
        Some("task")
    } else {
        None
    }
}

pub(crate) fn read_status_update(value: &Value, path: &str) -> Result<TaskStatusUpdateEvent> {
    let o = Obj::new(value, path)?;
    expect_kind(&o, "status-update")?;
    // Validated, then dropped: 1.0 ends the stream instead (module docs).
    o.bool("final")?;
    Ok(TaskStatusUpdateEvent {
        task_id: o.string("taskId")?,
        context_id: o.string("contextId")?,
        status: o.get("status").map(|s| task::read_status(s, &o.at("status"))).transpose()?,
        metadata: o.structure("metadata")?,
    })
}

pub(crate) fn write_status_update(event: &TaskStatusUpdateEvent, form: Form) -> Value {
    let mut object = Map::new();
    let status = event.status.clone().unwrap_or_default();
    match form {
        Form::Json => {
            object.insert("kind".into(), "status-update".into());
            object.insert("taskId".into(), event.task_id.clone().into());
            object.insert("contextId".into(), event.context_id.clone().into());
            object.insert("status".into(), task::write_status(&status, form));
            object.insert("final".into(), is_final(event).into());
        }
        Form::ProtoJson => {
            insert_str(&mut object, "taskId", &event.task_id);
            insert_str(&mut object, "contextId", &event.context_id);
            if let Some(status) = &event.status {
                object.insert("status".into(), task::write_status(status, form));
            }
            if is_final(event) {
                object.insert("final".into(), true.into());
            }
        }
    }
    insert_struct(&mut object, "metadata", event.metadata.as_ref());
    Value::Object(object)
}

pub(crate) fn read_artifact_update(value: &Value, path: &str) -> Result<TaskArtifactUpdateEvent> {
    let o = Obj::new(value, path)?;
    expect_kind(&o, "artifact-update")?;
    Ok(TaskArtifactUpdateEvent {
        task_id: o.string("taskId")?,
        context_id: o.string("contextId")?,
        artifact: o.get("artifact").map(|a| task::read_artifact(a, &o.at("artifact"))).transpose()?,
        append: o.bool("append")?.unwrap_or(false),
        last_chunk: o.bool("lastChunk")?.unwrap_or(false),
        metadata: o.structure("metadata")?,
    })
}

pub(crate) fn write_artifact_update(event: &TaskArtifactUpdateEvent, form: Form) -> Value {
    let mut object = Map::new();
    match form {
        Form::Json => {
            object.insert("kind".into(), "artifact-update".into());
            object.insert("taskId".into(), event.task_id.clone().into());
            object.insert("contextId".into(), event.context_id.clone().into());
            let artifact = event.artifact.clone().unwrap_or_default();
            object.insert("artifact".into(), task::write_artifact(&artifact, form));
            // Always written, as in the 0.3 spec's examples (section 9.3).
            object.insert("append".into(), event.append.into());
            object.insert("lastChunk".into(), event.last_chunk.into());
        }
        Form::ProtoJson => {
            insert_str(&mut object, "taskId", &event.task_id);
            insert_str(&mut object, "contextId", &event.context_id);
            if let Some(artifact) = &event.artifact {
                object.insert("artifact".into(), task::write_artifact(artifact, form));
            }
            if event.append {
                object.insert("append".into(), true.into());
            }
            if event.last_chunk {
                object.insert("lastChunk".into(), true.into());
            }
        }
    }
    insert_struct(&mut object, "metadata", event.metadata.as_ref());
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{Artifact, Message, Part, Task, TaskStatus};
    use serde_json::json;

    fn status(task: &str, state: TaskState) -> TaskStatusUpdateEvent {
        TaskStatusUpdateEvent {
            task_id: task.into(),
            context_id: "c".into(),
            status: Some(TaskStatus { state: state as i32, ..Default::default() }),
            metadata: None,
        }
    }

    #[test]
    fn final_is_true_exactly_for_terminal_and_interrupted_states() {
        use TaskState::*;
        for state in [Submitted, Working] {
            assert!(!is_final(&status("t", state)), "{state:?}");
        }
        for state in [Completed, Failed, Canceled, Rejected, InputRequired, AuthRequired] {
            let event = status("t", state);
            assert!(is_final(&event), "{state:?}");
            assert_eq!(event.to_v03(Form::Json)["final"], true);
            assert_eq!(event.to_v03(Form::ProtoJson)["final"], true);
        }
        assert_eq!(status("t", Working).to_v03(Form::Json)["final"], false);
        assert!(status("t", Working).to_v03(Form::ProtoJson).get("final").is_none());
    }

    #[test]
    fn each_event_kind_round_trips_in_both_forms() {
        let artifact = TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Some(Artifact::new(vec![Part::text("chunk")])),
            append: true,
            last_chunk: false,
            metadata: None,
        };
        let events: Vec<StreamResponse> = vec![
            Task { id: "t".into(), context_id: "c".into(), ..Default::default() }.into(),
            Message::agent_text("hi").into(),
            status("t", TaskState::Completed).into(),
            artifact.into(),
        ];
        let kinds = ["task", "message", "status-update", "artifact-update"];
        let wrappers = ["task", "message", "statusUpdate", "artifactUpdate"];
        for ((event, kind), wrapper) in events.iter().zip(kinds).zip(wrappers) {
            let json = event.to_v03(Form::Json);
            assert_eq!(json["kind"], kind);
            let mut back = StreamResponse::from_v03(&json).unwrap();
            if let Some(stream_response::Payload::Task(t)) = &mut back.payload {
                t.status = None; // written as {"state": "unknown"} because 0.3 requires a status
            }
            assert_eq!(&back, event, "{json}");
            let proto = event.to_v03(Form::ProtoJson);
            assert!(proto.get(wrapper).is_some(), "{proto}");
            assert_eq!(&StreamResponse::from_v03(&proto).unwrap(), event, "{proto}");
        }
    }

    #[test]
    fn kindless_objects_are_recognised_by_their_members() {
        let cases = [
            (json!({"taskId": "t", "contextId": "c", "status": {"state": "working"}}), "status"),
            (
                json!({"taskId": "t", "contextId": "c", "artifact": {"artifactId": "a", "parts": []}}),
                "artifact",
            ),
            (json!({"messageId": "m", "role": "agent", "parts": []}), "message"),
            (json!({"id": "t", "contextId": "c", "status": {"state": "completed"}}), "task"),
        ];
        for (value, expected) in cases {
            let payload = StreamResponse::from_v03(&value).unwrap().payload.unwrap();
            let got = match payload {
                stream_response::Payload::StatusUpdate(_) => "status",
                stream_response::Payload::ArtifactUpdate(_) => "artifact",
                stream_response::Payload::Message(_) => "message",
                stream_response::Payload::Task(_) => "task",
            };
            assert_eq!(got, expected, "{value}");
        }
        let err = StreamResponse::from_v03(&json!({"foo": 1})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "params");
        let err = StreamResponse::from_v03(&json!({"kind": "ping"})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "kind");
        let err = StreamResponse::from_v03(&json!({"kind": "status-update", "final": "yes"})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "final");
    }

    #[test]
    fn send_results_are_a_task_or_a_message() {
        let reply: SendMessageResponse = Message::agent_text("hello").into();
        let json = reply.to_v03(Form::Json);
        assert_eq!(json["kind"], "message");
        assert_eq!(SendMessageResponse::from_v03(&json).unwrap(), reply);
        assert!(reply.to_v03(Form::ProtoJson)["message"].is_object());
        let err =
            SendMessageResponse::from_v03(&status("t", TaskState::Working).to_v03(Form::Json)).unwrap_err();
        assert!(matches!(err, a2a_core::Error::InvalidParams { .. }));
    }

    #[test]
    fn streams_end_after_final_updates_messages_and_terminal_snapshots() {
        assert!(ends_v03_stream(&status("t", TaskState::InputRequired).into()));
        assert!(!ends_v03_stream(&status("t", TaskState::Working).into()));
        assert!(ends_v03_stream(&Message::agent_text("m").into()));
        let working = Task {
            status: Some(TaskStatus { state: TaskState::Working as i32, ..Default::default() }),
            ..Default::default()
        };
        assert!(!ends_v03_stream(&working.into()));
    }
}
