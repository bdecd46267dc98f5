//! `Message`: the same fields in 0.3 and 1.0, plus 0.3's `kind: "message"` and enum spellings.
//!
//! | 0.3 JSON | 0.3 ProtoJSON | 1.0 |
//! | --- | --- | --- |
//! | `kind: "message"` | (none) | (none) |
//! | `messageId`, `contextId`, `taskId` | same | same |
//! | `role: "user"` / `"agent"` | `ROLE_USER` / `ROLE_AGENT` | `ROLE_USER` / `ROLE_AGENT` |
//! | `parts` | `content` | `parts` |
//! | `referenceTaskIds` | (none) | `referenceTaskIds` |
//! | `extensions`, `metadata` | same | same |
//!
//! `kind`, if present, must be `"message"`. A missing `role` (the 0.3 spec's own example 9.2 omits
//! it in a reply) reads as unspecified: core rejects it in a request (`message.role`), and it is
//! written back as `agent`.

use a2a_core::Result;
use a2a_proto::v1::{Message, Role};
use serde_json::{Map, Value};

use crate::convert::{Form, V03};
use crate::json::{enums, part};
use crate::read::{self, invalid, Obj};

impl V03 for Message {
    fn from_v03(value: &Value) -> Result<Self> {
        read(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write(self, form)
    }
}

pub(crate) fn read(value: &Value, path: &str) -> Result<Message> {
    let o = Obj::new(value, path)?;
    expect_kind(&o, "message")?;
    let role = match o.str("role")? {
        Some(role) => enums::role_from_v03(role)
            .ok_or_else(|| invalid(&o.at("role"), format!("must be \"user\" or \"agent\", got {role:?}")))?,
        None => Role::Unspecified,
    };
    // `parts` in 0.3 JSON, `content` in the 0.3 proto.
    let parts_key = if o.has("parts") || !o.has("content") { "parts" } else { "content" };
    Ok(Message {
        message_id: o.string("messageId")?,
        context_id: o.string("contextId")?,
        task_id: o.string("taskId")?,
        role: role as i32,
        parts: part::read_all(o.array(parts_key)?)?,
        metadata: o.structure("metadata")?,
        extensions: o.strings("extensions")?,
        reference_task_ids: o.strings("referenceTaskIds")?,
    })
}

/// A `kind` member, if present, must name the expected object.
pub(crate) fn expect_kind(o: &Obj<'_>, kind: &str) -> Result<()> {
    match o.str("kind")? {
        Some(found) if found != kind => {
            Err(invalid(&o.at("kind"), format!("must be {kind:?} here, got {found:?}")))
        }
        _ => Ok(()),
    }
}

pub(crate) fn write(message: &Message, form: Form) -> Value {
    let mut object = Map::new();
    match form {
        Form::Json => {
            object.insert("kind".into(), "message".into());
            object.insert("messageId".into(), message.message_id.clone().into());
            object.insert("role".into(), enums::role_to_v03(message.role, form).into());
            object.insert("parts".into(), message.parts.iter().map(|p| part::write(p, form)).collect());
            insert_str(&mut object, "contextId", &message.context_id);
            insert_str(&mut object, "taskId", &message.task_id);
            insert_strings(&mut object, "referenceTaskIds", &message.reference_task_ids);
        }
        Form::ProtoJson => {
            insert_str(&mut object, "messageId", &message.message_id);
            insert_str(&mut object, "contextId", &message.context_id);
            insert_str(&mut object, "taskId", &message.task_id);
            object.insert("role".into(), enums::role_to_v03(message.role, form).into());
            if !message.parts.is_empty() {
                object.insert("content".into(), message.parts.iter().map(|p| part::write(p, form)).collect());
            }
        }
    }
    insert_strings(&mut object, "extensions", &message.extensions);
    insert_struct(&mut object, "metadata", message.metadata.as_ref());
    Value::Object(object)
}

/// Inserts a string member unless it is empty (both 0.3 forms omit absent optional strings).
pub(crate) fn insert_str(object: &mut Map<String, Value>, key: &str, value: &str) {
    if !value.is_empty() {
        object.insert(key.into(), value.into());
    }
}

/// Inserts a string array unless it is empty.
pub(crate) fn insert_strings(object: &mut Map<String, Value>, key: &str, values: &[String]) {
    if !values.is_empty() {
        object.insert(key.into(), values.iter().cloned().collect());
    }
}

/// Inserts a `Struct` as a JSON object, if present.
pub(crate) fn insert_struct(
    object: &mut Map<String, Value>,
    key: &str,
    value: Option<&pbjson_types::Struct>,
) {
    if let Some(value) = value {
        object.insert(key.into(), Value::Object(read::from_struct(value)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::Part;
    use serde_json::json;

    fn full() -> Value {
        json!({
            "kind": "message", "messageId": "m1", "role": "user",
            "parts": [{"kind": "text", "text": "hi"}],
            "contextId": "c1", "taskId": "t1", "referenceTaskIds": ["t0"],
            "extensions": ["urn:x"], "metadata": {"k": "v"}
        })
    }

    #[test]
    fn every_field_maps_and_round_trips() {
        let message = Message::from_v03(&full()).unwrap();
        assert_eq!(message.message_id, "m1");
        assert_eq!(message.role(), Role::User);
        assert_eq!(message.parts, vec![Part::text("hi")]);
        assert_eq!((message.context_id.as_str(), message.task_id.as_str()), ("c1", "t1"));
        assert_eq!(message.reference_task_ids, ["t0"]);
        assert_eq!(message.extensions, ["urn:x"]);
        assert_eq!(message.to_v03(Form::Json), full());
    }

    #[test]
    fn the_proto_form_uses_content_and_role_enums_and_has_no_reference_tasks() {
        let message = Message::from_v03(&full()).unwrap();
        let proto = message.to_v03(Form::ProtoJson);
        assert_eq!(
            proto,
            json!({
                "messageId": "m1", "contextId": "c1", "taskId": "t1", "role": "ROLE_USER",
                "content": [{"text": "hi"}], "extensions": ["urn:x"], "metadata": {"k": "v"}
            })
        );
        let back = Message::from_v03(&proto).unwrap();
        assert_eq!(back, Message { reference_task_ids: vec![], ..message });
    }

    #[test]
    fn role_must_be_a_0_3_role_and_kind_must_be_message() {
        let message = Message::from_v03(&json!({"messageId": "m", "parts": []})).unwrap();
        assert_eq!(message.role(), Role::Unspecified, "left for core to reject in requests");
        let err = Message::from_v03(&json!({"kind": "task", "role": "user"})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "kind");
        let err = read(&json!({"role": "system"}), "message").unwrap_err();
        assert_eq!(err.field_violations()[0].field, "message.role");
        let err = read(&json!({"role": "user", "parts": [{"kind": "text"}]}), "message").unwrap_err();
        assert_eq!(err.field_violations()[0].field, "message.parts[0].text");
    }
}
