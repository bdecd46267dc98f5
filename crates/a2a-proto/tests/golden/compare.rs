//! ProtoJSON equivalence of two JSON documents of the same message, guided by the schema, with
//! every difference reported by JSON path.
//!
//! The rules (ProtoJSON, https://protobuf.dev/programming-guides/json/):
//! - A field without explicit presence is equivalent to absent when it holds its proto3 default
//!   (`""`, `0`, `false`, the enum's zero value, `[]`, `{}`), and `null` means absent everywhere.
//! - A field with explicit presence (a message, a oneof member, a proto3 `optional` field) keeps
//!   its value even when that value is a default: `"streaming": false`, `{"text": ""}` and
//!   `"status": {}` all differ from an absent field.
//! - Inside `google.protobuf.Struct`/`Value`/`ListValue` content (metadata, `data` parts,
//!   `params`, `header`) everything is data: `null`, `""` and `{}` are values, and keys must match.
//! - Numbers compare by value (`1` equals `1.0`: pbjson writes Struct numbers as doubles; 64-bit
//!   integers may be quoted). Enums compare by number, so a name equals its number.
//! - Timestamps compare as instants (`...10:15:00Z` equals `...10:15:00.000Z`).
//! - Keys may use the proto name (`context_id`) as well as the JSON name (`contextId`).

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use crate::schema::{Field, Kind, Schema, Shape};

/// One difference between the expected and the produced document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Mismatch {
    /// Where, as `$.task.status.state`.
    pub(crate) path: String,
    /// The expected value, `None` if absent.
    pub(crate) expected: Option<Value>,
    /// The produced value, `None` if absent.
    pub(crate) got: Option<Value>,
    pub(crate) reason: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {}\n    expected: {}\n    got:      {}",
            self.path,
            self.reason,
            show(self.expected.as_ref()),
            show(self.got.as_ref())
        )
    }
}

/// Every difference between `expected` and `got`, two JSON documents of the message `message`
/// (full name, e.g. `lf.a2a.v1.Task`); empty if they are ProtoJSON-equivalent.
pub(crate) fn diff(message: &str, expected: &Value, got: &Value) -> Vec<Mismatch> {
    let mut differ = Differ { schema: Schema::get(), out: Vec::new() };
    differ.message("$", message, expected, got);
    differ.out
}

/// The mismatches one per paragraph, for a test failure.
pub(crate) fn render(mismatches: &[Mismatch]) -> String {
    mismatches.iter().map(|m| format!("  {m}\n")).collect()
}

struct Differ<'s> {
    schema: &'s Schema,
    out: Vec<Mismatch>,
}

impl Differ<'_> {
    fn report(
        &mut self,
        path: &str,
        expected: Option<&Value>,
        got: Option<&Value>,
        reason: impl Into<String>,
    ) {
        self.out.push(Mismatch {
            path: path.to_owned(),
            expected: expected.cloned(),
            got: got.cloned(),
            reason: reason.into(),
        });
    }

    fn message(&mut self, path: &str, message: &str, expected: &Value, got: &Value) {
        let (Value::Object(expected_object), Value::Object(got_object)) = (expected, got) else {
            self.report(path, Some(expected), Some(got), format!("a {message} is a JSON object"));
            return;
        };
        // Fields in declaration order, then keys no field claims.
        for field in self.schema.fields(message) {
            let (e, g) = (lookup(expected_object, field), lookup(got_object, field));
            self.field(&member(path, &field.json_name), field, e, g);
        }
        for (key, value) in expected_object {
            if self.schema.field(message, key).is_none() {
                let reason = format!("not a field of {message}: the parser drops it");
                self.report(&member(path, key), Some(value), got_object.get(key), reason);
            }
        }
        for (key, value) in got_object {
            if self.schema.field(message, key).is_none() && !expected_object.contains_key(key) {
                let reason = format!("written, but not a field of {message}");
                self.report(&member(path, key), None, Some(value), reason);
            }
        }
    }

    fn field(&mut self, path: &str, field: &Field, expected: Option<&Value>, got: Option<&Value>) {
        // `null` reads as absent, except for a `google.protobuf.Value` field, where it is the
        // value `NULL_VALUE` (a2a.proto has no repeated or map `Value` fields).
        let kind = Kind::of(field);
        let null_is_data = kind == Kind::Data && field.shape == Shape::Single;
        let (expected, got) =
            (expected.filter(|v| null_is_data || !v.is_null()), got.filter(|v| null_is_data || !v.is_null()));
        match field.shape {
            Shape::Repeated => {
                let (Some(e), Some(g)) = (self.array(path, expected), self.array(path, got)) else {
                    return;
                };
                if e.len() != g.len() {
                    let reason = format!("{} items expected, {} written", e.len(), g.len());
                    self.report(path, expected, got, reason);
                }
                for (i, (e, g)) in e.iter().zip(g).enumerate() {
                    self.single(&format!("{path}[{i}]"), kind, e, g);
                }
            }
            Shape::Map => {
                let (Some(e), Some(g)) = (self.object(path, expected), self.object(path, got)) else {
                    return;
                };
                let keys: BTreeSet<&String> = e.keys().chain(g.keys()).collect();
                for key in keys {
                    let entry_path = member(path, key);
                    match (e.get(key), g.get(key)) {
                        (Some(ev), Some(gv)) => self.single(&entry_path, kind, ev, gv),
                        (ev, gv) => self.report(&entry_path, ev, gv, "map entry on one side only"),
                    }
                }
            }
            Shape::Single => match (expected, got) {
                (None, None) => {}
                (Some(e), Some(g)) => self.single(path, kind, e, g),
                (Some(v), None) | (None, Some(v)) => {
                    if field.has_presence() || !self.is_default(kind, v) {
                        let reason = match (expected.is_some(), field.has_presence()) {
                            (true, true) => "dropped (the field has explicit presence)",
                            (true, false) => "dropped",
                            (false, _) => "added",
                        };
                        self.report(path, expected, got, reason);
                    }
                }
            },
        }
    }

    /// The items of a repeated field; absent reads as `[]`.
    fn array<'v>(&mut self, path: &str, value: Option<&'v Value>) -> Option<&'v [Value]> {
        match value {
            None => Some(&[]),
            Some(Value::Array(items)) => Some(items),
            Some(other) => {
                self.report(path, Some(other), None, "a repeated field is a JSON array");
                None
            }
        }
    }

    /// The entries of a map field; absent reads as `{}`.
    fn object<'v>(
        &mut self,
        path: &str,
        value: Option<&'v Value>,
    ) -> Option<&'v serde_json::Map<String, Value>> {
        static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
        match value {
            None => Some(EMPTY.get_or_init(serde_json::Map::new)),
            Some(Value::Object(entries)) => Some(entries),
            Some(other) => {
                self.report(path, Some(other), None, "a map field is a JSON object");
                None
            }
        }
    }

    /// Two present values of one kind.
    fn single(&mut self, path: &str, kind: Kind<'_>, expected: &Value, got: &Value) {
        let equal = match kind {
            Kind::Message(message) => return self.message(path, message, expected, got),
            Kind::Data => return self.data(path, expected, got),
            Kind::Timestamp => match (instant(expected), instant(got)) {
                (Some(e), Some(g)) => e == g,
                _ => {
                    return self.report(path, Some(expected), Some(got), "a timestamp is an RFC 3339 string")
                }
            },
            Kind::Enum(name) => {
                let (e, g) = (self.enum_number(name, expected), self.enum_number(name, got));
                if e.is_none() || g.is_none() {
                    let reason = format!("not a value of {name}");
                    return self.report(path, Some(expected), Some(got), reason);
                }
                e == g
            }
            Kind::Integer | Kind::Float => match (number(expected), number(got)) {
                (Some(e), Some(g)) => e == g,
                _ => return self.report(path, Some(expected), Some(got), "a number"),
            },
            Kind::Bytes | Kind::String | Kind::Bool => expected == got,
        };
        if !equal {
            self.report(path, Some(expected), Some(got), "different value");
        }
    }

    /// `google.protobuf.Struct`/`Value`/`ListValue` content: everything is data.
    fn data(&mut self, path: &str, expected: &Value, got: &Value) {
        match (expected, got) {
            (Value::Object(e), Value::Object(g)) => {
                let keys: BTreeSet<&String> = e.keys().chain(g.keys()).collect();
                for key in keys {
                    match (e.get(key), g.get(key)) {
                        (Some(ev), Some(gv)) => self.data(&member(path, key), ev, gv),
                        (ev, gv) => self.report(&member(path, key), ev, gv, "data key on one side only"),
                    }
                }
            }
            (Value::Array(e), Value::Array(g)) => {
                if e.len() != g.len() {
                    let reason = format!("{} items expected, {} written", e.len(), g.len());
                    self.report(path, Some(expected), Some(got), reason);
                }
                for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                    self.data(&format!("{path}[{i}]"), ev, gv);
                }
            }
            (Value::Number(_), Value::Number(_)) => {
                if number(expected) != number(got) {
                    self.report(path, Some(expected), Some(got), "different number");
                }
            }
            _ => {
                if expected != got {
                    self.report(path, Some(expected), Some(got), "different data");
                }
            }
        }
    }

    fn enum_number(&self, name: &str, value: &Value) -> Option<i32> {
        match value {
            Value::String(s) => self.schema.enum_number(name, s),
            Value::Number(n) => n.as_i64().and_then(|n| i32::try_from(n).ok()),
            _ => None,
        }
    }

    fn is_default(&self, kind: Kind<'_>, value: &Value) -> bool {
        match kind {
            Kind::String | Kind::Bytes => value.as_str() == Some(""),
            Kind::Bool => value == &Value::Bool(false),
            Kind::Integer | Kind::Float => number(value) == Some(Number::Int(0)),
            Kind::Enum(name) => self.enum_number(name, value) == Some(0),
            Kind::Message(_) | Kind::Data | Kind::Timestamp => false,
        }
    }
}

/// A JSON number, or a quoted one (ProtoJSON quotes 64-bit integers and accepts quoted numbers).
#[derive(Debug, Clone, Copy)]
enum Number {
    Int(i128),
    Float(f64),
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (*self, *other) {
            (Number::Int(a), Number::Int(b)) => a == b,
            (a, b) => a.as_f64() == b.as_f64(),
        }
    }
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Number(n) => Some(match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => Number::Int(i.into()),
            (None, Some(u)) => Number::Int(u.into()),
            (None, None) => Number::Float(n.as_f64()?),
        }),
        Value::String(s) => s.parse().map(Number::Int).or_else(|_| s.parse().map(Number::Float)).ok(),
        _ => None,
    }
}

/// Seconds and nanoseconds since the epoch, parsed the way the crate parses timestamps.
fn instant(value: &Value) -> Option<(i64, i32)> {
    let timestamp: pbjson_types::Timestamp = serde_json::from_value(value.clone()).ok()?;
    Some((timestamp.seconds, timestamp.nanos))
}

/// A field's value in a JSON object, by JSON name or proto name.
pub(crate) fn lookup<'v>(object: &'v serde_json::Map<String, Value>, field: &Field) -> Option<&'v Value> {
    object.get(&field.json_name).or_else(|| object.get(&field.name))
}

/// `path.key`, or `path["key"]` when the key is not a plain identifier (URLs, `@type`).
fn member(path: &str, key: &str) -> String {
    let plain = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if plain {
        format!("{path}.{key}")
    } else {
        format!("{path}[{}]", Value::from(key))
    }
}

fn show(value: Option<&Value>) -> String {
    const LIMIT: usize = 160;
    let Some(value) = value else { return "(absent)".to_owned() };
    let text = value.to_string();
    if text.chars().count() > LIMIT {
        format!("{}...", text.chars().take(LIMIT).collect::<String>())
    } else {
        text
    }
}

/// The comparator must be able to fail: each kind of difference is reported, with its path.
mod tests {
    use super::*;
    use serde_json::json;

    const TASK: &str = "lf.a2a.v1.Task";
    const CARD: &str = "lf.a2a.v1.AgentCard";
    const PART: &str = "lf.a2a.v1.Part";

    fn paths(message: &str, expected: Value, got: Value) -> Vec<String> {
        diff(message, &expected, &got).into_iter().map(|m| m.path).collect()
    }

    fn task() -> Value {
        json!({
            "id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_WORKING", "timestamp": "2024-03-15T10:15:00Z"},
            "artifacts": [{"artifactId": "a1", "parts": [{"text": "hi"}]}],
            "metadata": {"n": 1, "s": "x", "nested": {"k": null, "list": [1, "two"]}}
        })
    }

    #[test]
    fn identical_documents_have_no_mismatch() {
        assert_eq!(diff(TASK, &task(), &task()), vec![]);
    }

    #[test]
    fn a_dropped_field_is_reported_with_its_path() {
        let mut got = task();
        got.as_object_mut().unwrap().remove("contextId");
        let mismatches = diff(TASK, &task(), &got);
        assert_eq!(mismatches.len(), 1, "{mismatches:?}");
        assert_eq!(mismatches[0].path, "$.contextId");
        assert_eq!(mismatches[0].expected, Some(json!("c1")));
        assert_eq!(mismatches[0].got, None);
    }

    #[test]
    fn a_changed_enum_is_reported() {
        let mut got = task();
        got["status"]["state"] = json!("TASK_STATE_COMPLETED");
        assert_eq!(paths(TASK, task(), got), ["$.status.state"]);
    }

    #[test]
    fn an_enum_by_number_equals_its_name() {
        let mut got = task();
        got["status"]["state"] = json!(2);
        assert_eq!(paths(TASK, task(), got), Vec::<String>::new());
    }

    #[test]
    fn a_changed_number_is_reported() {
        let expected = json!({"tasks": [], "pageSize": 10, "totalSize": 5, "nextPageToken": ""});
        let got = json!({"pageSize": 11, "totalSize": 5});
        assert_eq!(paths("lf.a2a.v1.ListTasksResponse", expected, got), ["$.pageSize"]);
    }

    #[test]
    fn a_changed_struct_value_is_reported_at_its_leaf() {
        let mut got = task();
        got["metadata"]["nested"]["list"][1] = json!("three");
        got["metadata"]["s"] = json!("");
        assert_eq!(paths(TASK, task(), got), ["$.metadata.nested.list[1]", "$.metadata.s"]);
    }

    #[test]
    fn inside_a_struct_null_and_defaults_are_data() {
        let mut got = task();
        got["metadata"]["nested"].as_object_mut().unwrap().remove("k");
        got["metadata"]["nested"]["extra"] = json!(false);
        assert_eq!(paths(TASK, task(), got), ["$.metadata.nested.extra", "$.metadata.nested.k"]);
        let part = |data: Value| json!({"data": data});
        assert_eq!(paths(PART, part(json!({"a": {}})), part(json!({}))), ["$.data.a"]);
        assert_eq!(paths(PART, part(json!([null])), part(json!([]))), ["$.data"]);
        assert_eq!(paths(PART, part(json!("1")), part(json!(1))), ["$.data"]);
    }

    #[test]
    fn a_null_value_field_is_data_too() {
        // `Part.data` is a `google.protobuf.Value`: `null` is NULL_VALUE, not absence.
        assert_eq!(paths(PART, json!({"data": null}), json!({})), ["$.data"]);
    }

    #[test]
    fn struct_numbers_compare_by_value() {
        let mut got = task();
        got["metadata"]["n"] = json!(1.0);
        assert_eq!(paths(TASK, task(), got.clone()), Vec::<String>::new());
        got["metadata"]["n"] = json!(1.5);
        assert_eq!(paths(TASK, task(), got), ["$.metadata.n"]);
    }

    #[test]
    fn proto3_defaults_outside_structs_equal_absent() {
        let expected = json!({
            "id": "t1", "contextId": "", "history": [], "artifacts": null,
            "status": {"state": "TASK_STATE_UNSPECIFIED", "message": null}
        });
        let got = json!({"id": "t1", "status": {}});
        assert_eq!(paths(TASK, expected, got), Vec::<String>::new());
        let extension =
            |required: Value| json!({"capabilities": {"extensions": [{"uri": "u", "required": required}]}});
        assert_eq!(
            paths(CARD, extension(json!(false)), json!({"capabilities": {"extensions": [{"uri": "u"}]}})),
            Vec::<String>::new()
        );
        assert_eq!(
            paths(CARD, extension(json!(true)), extension(json!(false))),
            ["$.capabilities.extensions[0].required"]
        );
    }

    #[test]
    fn an_optional_field_keeps_its_explicit_default() {
        let card = |capabilities: Value| json!({"name": "n", "capabilities": capabilities});
        let dropped = paths(CARD, card(json!({"streaming": false})), card(json!({})));
        assert_eq!(dropped, ["$.capabilities.streaming"]);
        let added = paths(CARD, card(json!({})), card(json!({"pushNotifications": false})));
        assert_eq!(added, ["$.capabilities.pushNotifications"]);
        assert_eq!(paths(CARD, json!({"iconUrl": ""}), json!({})), ["$.iconUrl"]);
        let request = paths("lf.a2a.v1.ListTasksRequest", json!({"pageSize": 0}), json!({}));
        assert_eq!(request, ["$.pageSize"]);
    }

    #[test]
    fn a_oneof_member_keeps_its_explicit_default() {
        assert_eq!(paths(PART, json!({"text": ""}), json!({})), ["$.text"]);
        assert_eq!(paths(PART, json!({"text": ""}), json!({"url": ""})), ["$.text", "$.url"]);
    }

    #[test]
    fn an_empty_message_differs_from_an_absent_one() {
        assert_eq!(paths(TASK, json!({"id": "t", "status": {}}), json!({"id": "t"})), ["$.status"]);
    }

    #[test]
    fn timestamps_compare_as_instants() {
        let at = |timestamp: &str| json!({"status": {"timestamp": timestamp}});
        for same in ["2024-03-15T10:15:00.000Z", "2024-03-15T10:15:00+00:00", "2024-03-15T11:15:00+01:00"] {
            assert_eq!(paths(TASK, at("2024-03-15T10:15:00Z"), at(same)), Vec::<String>::new(), "{same}");
        }
        assert_eq!(
            paths(TASK, at("2024-03-15T10:15:00Z"), at("2024-03-15T10:15:00.001Z")),
            ["$.status.timestamp"]
        );
        assert_eq!(paths(TASK, at("2024-03-15T10:15:00Z"), at("yesterday")), ["$.status.timestamp"]);
    }

    #[test]
    fn list_lengths_and_items_are_compared() {
        let mut got = task();
        got["artifacts"][0]["parts"] = json!([{"text": "hi"}, {"text": "extra"}]);
        assert_eq!(paths(TASK, task(), got), ["$.artifacts[0].parts"]);
        let mut got = task();
        got["artifacts"][0]["parts"][0]["text"] = json!("ho");
        assert_eq!(paths(TASK, task(), got), ["$.artifacts[0].parts[0].text"]);
    }

    #[test]
    fn map_entries_are_compared_by_key() {
        let scheme = json!({"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://x"}});
        let expected = json!({"securitySchemes": {"google": scheme.clone()}});
        assert_eq!(
            paths(CARD, expected.clone(), json!({"securitySchemes": {"goggle": scheme}})),
            ["$.securitySchemes.goggle", "$.securitySchemes.google"]
        );
        let changed = json!({"securitySchemes": {"google": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://y"}}}});
        assert_eq!(
            paths(CARD, expected, changed),
            ["$.securitySchemes.google.openIdConnectSecurityScheme.openIdConnectUrl"]
        );
    }

    #[test]
    fn unknown_fields_are_reported_and_proto_names_accepted() {
        let expected = json!({"id": "t", "context_id": "c", "kind": "task"});
        let got = json!({"id": "t", "contextId": "c"});
        assert_eq!(paths(TASK, expected, got.clone()), ["$.kind"]);
        assert_eq!(paths(TASK, got, json!({"id": "t", "contextId": "c", "extra": 1})), ["$.extra"]);
    }

    #[test]
    fn every_mismatch_is_reported_and_rendered_with_expected_and_got() {
        let mut got = task();
        got["id"] = json!("t2");
        got["status"]["state"] = json!("TASK_STATE_FAILED");
        got["metadata"]["n"] = json!(2);
        let mismatches = diff(TASK, &task(), &got);
        assert_eq!(mismatches.len(), 3, "{mismatches:?}");
        let text = render(&mismatches);
        for needle in ["$.id", "\"t1\"", "\"t2\"", "$.status.state", "TASK_STATE_FAILED", "$.metadata.n"] {
            assert!(text.contains(needle), "{needle} missing from:\n{text}");
        }
        let url_key = json!({"metadata": {"https://example.com/ext": 1}});
        let text = render(&diff(TASK, &url_key, &json!({})));
        assert!(text.contains("$.metadata") && text.contains("(absent)"), "{text}");
    }
}
