//! [`Record`]: what one scenario observed over one binding, normalized so that two runs of the
//! same scenario over two bindings of the same agent compare equal exactly when the agent behaved
//! the same way.
//!
//! Values are ProtoJSON (the same serializer for every binding, so a difference is a difference in
//! content, never in encoding). Errors are their [`ErrorKind`] plus, for invalid parameters, the
//! fields named. Run-specific values are replaced as the record is written:
//! - identifiers (`id`, `taskId`, `contextId`, `messageId`, `artifactId`, `referenceTaskIds`)
//!   become `<id-N>`, numbered in order of first appearance, so the *same* id keeps the same name
//!   across the record (a task id in a reply and in a later event) and a different id does not;
//! - timestamps (`timestamp`, `statusTimestampAfter`) become `<timestamp>`;
//! - non-empty page tokens (`nextPageToken`, `pageToken`) become `<page-token>`.
//!
//! Records are compared in a [`View`]: among the 1.0 columns as they are; among the 0.3 columns,
//! and between 0.3 and 1.0, without what the 0.3 translation cannot carry ([`V03_LOSSY`]); and
//! between versions only the entries whose meaning is the same in both (entries recorded with
//! [`Record::push_per_version`] are compared within their version only).

use std::collections::HashMap;

use a2a_core::Error;
use serde_json::{json, Map, Value};

use crate::kind::ErrorKind;

const ID_KEYS: [&str; 6] = ["id", "taskId", "contextId", "messageId", "artifactId", "referenceTaskIds"];
const TIMESTAMP_KEYS: [&str; 2] = ["timestamp", "statusTimestampAfter"];
const TOKEN_KEYS: [&str; 2] = ["nextPageToken", "pageToken"];

/// Something a scenario can put in its record.
pub trait Observe {
    /// Its JSON form before normalization.
    fn observe(&self) -> Value;

    /// What is compared across bindings only as advice (a difference is a note, not a failure):
    /// for errors, the field names of invalid parameters, which spec 3.3.2 only recommends.
    fn advisory(&self) -> Option<Value> {
        None
    }
}

impl Observe for Value {
    fn observe(&self) -> Value {
        self.clone()
    }
}

impl Observe for str {
    fn observe(&self) -> Value {
        Value::String(self.to_owned())
    }
}

impl Observe for String {
    fn observe(&self) -> Value {
        Value::String(self.clone())
    }
}

impl Observe for bool {
    fn observe(&self) -> Value {
        Value::Bool(*self)
    }
}

impl Observe for usize {
    fn observe(&self) -> Value {
        json!(self)
    }
}

impl Observe for i32 {
    fn observe(&self) -> Value {
        json!(self)
    }
}

impl Observe for () {
    fn observe(&self) -> Value {
        json!("ok")
    }
}

impl<T: Observe + ?Sized> Observe for &T {
    fn observe(&self) -> Value {
        (**self).observe()
    }

    fn advisory(&self) -> Option<Value> {
        (**self).advisory()
    }
}

impl<T: Observe> Observe for [T] {
    fn observe(&self) -> Value {
        Value::Array(self.iter().map(Observe::observe).collect())
    }
}

impl<T: Observe> Observe for Vec<T> {
    fn observe(&self) -> Value {
        self.as_slice().observe()
    }
}

impl<T: Observe> Observe for Option<T> {
    fn observe(&self) -> Value {
        self.as_ref().map_or(Value::Null, Observe::observe)
    }

    fn advisory(&self) -> Option<Value> {
        self.as_ref().and_then(Observe::advisory)
    }
}

/// An error is its kind; the sorted field paths of invalid parameters are advisory (spec 3.3.2:
/// servers SHOULD name the fields that failed validation).
impl Observe for Error {
    fn observe(&self) -> Value {
        json!({ "error": ErrorKind::of(self).name() })
    }

    fn advisory(&self) -> Option<Value> {
        let mut fields: Vec<&str> = self.field_violations().iter().map(|v| v.field.as_str()).collect();
        fields.sort_unstable();
        (!fields.is_empty()).then(|| json!({ "fields": fields }))
    }
}

impl<T: Observe> Observe for Result<T, Error> {
    fn observe(&self) -> Value {
        match self {
            Ok(value) => value.observe(),
            Err(error) => error.observe(),
        }
    }

    fn advisory(&self) -> Option<Value> {
        self.as_ref().err().and_then(Observe::advisory)
    }
}

macro_rules! observe_proto {
    ($($ty:ty),* $(,)?) => {$(
        impl Observe for $ty {
            fn observe(&self) -> Value {
                a2a_proto::json::to_value(self)
                    .unwrap_or_else(|e| json!({ "unserializable": e.to_string() }))
            }
        }
    )*};
}

observe_proto!(
    a2a_proto::v1::Task,
    a2a_proto::v1::Message,
    a2a_proto::v1::SendMessageResponse,
    a2a_proto::v1::StreamResponse,
    a2a_proto::v1::ListTasksResponse,
    a2a_proto::v1::TaskPushNotificationConfig,
    a2a_proto::v1::ListTaskPushNotificationConfigsResponse,
    a2a_proto::v1::AgentCard,
);

/// Members a 1.0 value may hold that the 0.3 translation loses on some 0.3 binding, so that no
/// 0.3 record can be expected to hold them (the "lossy corners" of `a2a-v03`): the 0.3 proto,
/// which HTTP+JSON and gRPC speak in 0.3, has no `Message.referenceTaskIds` (0.3's JSON has), so
/// a message sent over them arrives without. They are left out of every comparison that involves
/// a 0.3 column. (The other lossy corners do not reach what the scenarios record: part metadata,
/// file names and media types of text parts are not sent.)
pub const V03_LOSSY: [&str; 1] = ["referenceTaskIds"];

/// How two records are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Two 1.0 columns: every entry as recorded.
    V1,
    /// Two 0.3 columns: every entry, without the [`V03_LOSSY`] members.
    V03,
    /// A 0.3 column and a 1.0 column: the entries not recorded per version, without the
    /// [`V03_LOSSY`] members.
    CrossVersion,
}

/// The normalized observations of one scenario over one binding, in the order they were made.
#[derive(Debug, Clone, Default)]
pub struct Record {
    entries: Vec<(String, Value)>,
    per_version: Vec<bool>,
    advisory: Vec<(String, Value)>,
    ids: HashMap<String, String>,
}

impl Record {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `value` under `label`, normalized (and its advisory part, if any).
    pub fn push(&mut self, label: impl Into<String>, value: &(impl Observe + ?Sized)) {
        let label = label.into();
        if let Some(advice) = value.advisory() {
            self.push_advisory(label.clone(), advice);
        }
        let mut value = value.observe();
        self.normalize(&mut value, None);
        self.entries.push((label, value));
        self.per_version.push(false);
    }

    /// Adds `value` under `label` as an observation whose meaning differs between protocol
    /// versions by design: it is compared among the columns of one version only.
    pub fn push_per_version(&mut self, label: impl Into<String>, value: &(impl Observe + ?Sized)) {
        self.push(label, value);
        if let Some(last) = self.per_version.last_mut() {
            *last = true;
        }
    }

    /// Adds `value` under `label` to the advisory part, normalized.
    pub fn push_advisory(&mut self, label: impl Into<String>, mut value: Value) {
        self.normalize(&mut value, None);
        self.advisory.push((label.into(), value));
    }

    /// The advisory part as one JSON object (see [`Record::to_json`]).
    pub fn advisory_json(&self) -> Value {
        to_object(&self.advisory)
    }

    /// Whether the advisory parts of two records agree.
    pub fn same_advice(&self, other: &Record) -> bool {
        self.advisory == other.advisory
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[(String, Value)] {
        &self.entries
    }

    /// The record as one JSON object (a repeated label gets a `#2` suffix).
    pub fn to_json(&self) -> Value {
        to_object(&self.entries)
    }

    /// Whether two records hold the same observations (the id numbering is part of the values).
    pub fn same_observations(&self, other: &Record) -> bool {
        self.entries == other.entries
    }

    /// The entries compared in `view`. Where members or entries are left out, the id
    /// placeholders are numbered again in order of first appearance, so that an id only a
    /// left-out member held does not shift the numbers of the others.
    pub fn view(&self, view: View) -> Vec<(String, Value)> {
        let mut entries: Vec<(String, Value)> = self
            .entries
            .iter()
            .zip(&self.per_version)
            .filter(|(_, per_version)| view != View::CrossVersion || !**per_version)
            .map(|((label, value), _)| {
                let mut value = value.clone();
                if view != View::V1 {
                    drop_lossy(&mut value);
                }
                (label.clone(), value)
            })
            .collect();
        if view != View::V1 {
            let mut numbers = HashMap::new();
            for (_, value) in &mut entries {
                renumber(value, &mut numbers);
            }
        }
        entries
    }

    /// [`view`](Self::view) as one JSON object (see [`Record::to_json`]).
    pub fn view_json(&self, view: View) -> Value {
        to_object(&self.view(view))
    }

    fn placeholder(&mut self, raw: &str) -> String {
        let next = self.ids.len() + 1;
        self.ids.entry(raw.to_owned()).or_insert_with(|| format!("<id-{next}>")).clone()
    }

    fn normalize(&mut self, value: &mut Value, key: Option<&str>) {
        match value {
            Value::String(s) if !s.is_empty() => match key {
                Some(k) if ID_KEYS.contains(&k) => *s = self.placeholder(s),
                Some(k) if TIMESTAMP_KEYS.contains(&k) => *s = "<timestamp>".into(),
                Some(k) if TOKEN_KEYS.contains(&k) => *s = "<page-token>".into(),
                _ => {}
            },
            Value::Array(items) => {
                // The elements of `referenceTaskIds` are ids; elements of other arrays are values
                // in their own right.
                let inner = key.filter(|k| *k == "referenceTaskIds");
                for item in items {
                    self.normalize(item, inner);
                }
            }
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    self.normalize(v, Some(k.as_str()));
                }
            }
            _ => {}
        }
    }
}

/// Numbers the `<id-N>` placeholders of `value` again, in order of first appearance (the order
/// [`Record::push`] numbered them in).
fn renumber(value: &mut Value, numbers: &mut HashMap<String, String>) {
    match value {
        Value::String(s) if s.starts_with("<id-") => {
            let next = numbers.len() + 1;
            *s = numbers.entry(s.clone()).or_insert_with(|| format!("<id-{next}>")).clone();
        }
        Value::Object(map) => map.values_mut().for_each(|v| renumber(v, numbers)),
        Value::Array(items) => items.iter_mut().for_each(|v| renumber(v, numbers)),
        _ => {}
    }
}

/// Removes the [`V03_LOSSY`] members, at any depth.
fn drop_lossy(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|key, _| !V03_LOSSY.contains(&key.as_str()));
            map.values_mut().for_each(drop_lossy);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_lossy),
        _ => {}
    }
}

fn to_object(entries: &[(String, Value)]) -> Value {
    let mut object = Map::new();
    for (label, value) in entries {
        let mut key = label.clone();
        let mut n = 1;
        while object.contains_key(&key) {
            n += 1;
            key = format!("{label}#{n}");
        }
        object.insert(key, value.clone());
    }
    Value::Object(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_numbered_by_first_appearance_and_keep_their_name() {
        let mut record = Record::new();
        record.push("sent", &json!({"task": {"id": "t-9f", "contextId": "c-17", "status": {"timestamp": "2025-01-01T00:00:00Z"}}}));
        record.push("event", &json!({"statusUpdate": {"taskId": "t-9f", "contextId": "c-other"}}));
        record.push("refs", &json!({"referenceTaskIds": ["c-17", "x"]}));
        assert_eq!(
            record.to_json(),
            // Within an object, keys are visited in their (sorted) JSON order: contextId first.
            json!({
                "sent": {"task": {"id": "<id-2>", "contextId": "<id-1>", "status": {"timestamp": "<timestamp>"}}},
                "event": {"statusUpdate": {"taskId": "<id-2>", "contextId": "<id-3>"}},
                "refs": {"referenceTaskIds": ["<id-1>", "<id-4>"]}
            })
        );
    }

    #[test]
    fn two_runs_with_different_ids_but_the_same_shape_are_the_same() {
        let run = |task: &str, context: &str| {
            let mut record = Record::new();
            record.push(
                "a",
                &json!({"id": task, "contextId": context, "nextPageToken": format!("tok-{task}")}),
            );
            record.push("b", &json!({"taskId": task, "nextPageToken": ""}));
            record
        };
        assert!(run("t1", "c1").same_observations(&run("t2", "c2")));
        let mut other = Record::new();
        other.push("a", &json!({"id": "t1", "contextId": "t1", "nextPageToken": "x"}));
        other.push("b", &json!({"taskId": "t1", "nextPageToken": ""}));
        assert!(!run("t1", "c1").same_observations(&other), "an id reused where another was new differs");
    }

    #[test]
    fn views_leave_out_per_version_entries_across_versions_and_0_3_s_lossy_members() {
        let mut record = Record::new();
        record.push("task", &json!({"referenceTaskIds": ["t"], "parts": [{"text": "x"}]}));
        record.push_per_version("historyLength 0", &json!(0));
        assert_eq!(record.view(View::V1), record.entries());
        assert_eq!(
            record.view_json(View::V03),
            json!({"task": {"parts": [{"text": "x"}]}, "historyLength 0": 0})
        );
        assert_eq!(record.view_json(View::CrossVersion), json!({"task": {"parts": [{"text": "x"}]}}));
    }

    #[test]
    fn ids_only_a_lossy_member_held_do_not_shift_the_others() {
        let run = |references: bool| {
            let mut record = Record::new();
            record.push("first", &json!({"id": "t1"}));
            let mut reply = json!({"id": "t2", "history": [{"taskId": "t2"}]});
            if references {
                reply["history"][0]["referenceTaskIds"] = json!(["t0"]);
            }
            record.push("reply", &reply);
            record
        };
        assert_ne!(run(true).view(View::V1), run(false).view(View::V1));
        assert_eq!(run(true).view(View::V03), run(false).view(View::V03));
    }

    #[test]
    fn errors_are_their_kind_and_their_fields_are_advisory() {
        let mut record = Record::new();
        record.push("missing", &Error::TaskNotFound { task_id: "abc".into() });
        let invalid = Error::InvalidParams {
            violations: vec![
                a2a_core::error::FieldViolation { field: "pageSize".into(), description: "x".into() },
                a2a_core::error::FieldViolation { field: "historyLength".into(), description: "y".into() },
            ],
        };
        record.push("invalid", &invalid);
        record.push("invalid", &Result::<(), Error>::Ok(()));
        assert_eq!(
            record.to_json(),
            json!({
                "missing": {"error": "TaskNotFound"},
                "invalid": {"error": "InvalidParams"},
                "invalid#2": "ok"
            })
        );
        assert_eq!(record.advisory_json(), json!({"invalid": {"fields": ["historyLength", "pageSize"]}}));
    }
}
