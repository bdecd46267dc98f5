//! The ProtoJSON boundary: parse A2A JSON into the generated types.
//!
//! pbjson implements ProtoJSON except one input rule: ProtoJSON reads `null` for any field as
//! "absent" (the field's default), and several SDKs send `"history": null` or
//! `"metadata": null`; pbjson rejects `null` for repeated, map and scalar fields. Rather than
//! patch generated code, [`from_slice`] and [`from_value`] first try the strict parse and, only if
//! it fails, remove `null`-valued fields guided by the message descriptors ([`normalize_nulls`],
//! with [`descriptor`]), then parse again. `google.protobuf.Value` fields keep
//! their `null` (it is data: `NullValue`), and nothing inside `Struct`/`Value`/`ListValue` is
//! touched, so metadata round-trips exactly.
//!
//! One ProtoJSON corner pbjson cannot express: `{"data": null}` in a `Part` (a `Value` inside a
//! oneof) parses as a part with no content rather than a `null` data part. Validation then reports
//! the part as empty, which names the field.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

use crate::descriptor::{self, Descriptors, Field, Shape, Type, WellKnown};

mod write;

/// Why a JSON document could not be read as an A2A message.
#[derive(Debug)]
pub struct JsonError {
    kind: JsonErrorKind,
    message: String,
    path: Option<String>,
}

/// The two classes of [`JsonError`]: bindings answer them differently (JSON-RPC `-32700` for
/// [`Syntax`](JsonErrorKind::Syntax), invalid params for [`Data`](JsonErrorKind::Data)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonErrorKind {
    /// Not JSON at all.
    Syntax,
    /// Valid JSON that does not match the message (wrong type, unknown enum value, ...).
    Data,
}

impl JsonError {
    /// Syntax or data.
    pub fn kind(&self) -> JsonErrorKind {
        self.kind
    }

    /// The parser's description, naming the offending field or position where it can.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// For a [`Data`](JsonErrorKind::Data) error, the path of the field that failed in the
    /// message's JSON names, e.g. `message.parts[0].text` (`None` when it is the whole document).
    pub fn path(&self) -> Option<&str> {
        self.path.as_deref()
    }

    fn at<T: DeserializeOwned>(mut self, value: &Value) -> Self {
        if self.kind == JsonErrorKind::Data {
            self.path = serde_path_to_error::deserialize::<_, T>(value)
                .err()
                .map(|e| e.path().to_string())
                .filter(|p| p != ".");
        }
        self
    }
}

impl fmt::Display for JsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for JsonError {}

impl From<serde_json::Error> for JsonError {
    fn from(err: serde_json::Error) -> Self {
        let kind = match err.classify() {
            serde_json::error::Category::Syntax | serde_json::error::Category::Eof => JsonErrorKind::Syntax,
            serde_json::error::Category::Data | serde_json::error::Category::Io => JsonErrorKind::Data,
        };
        JsonError { kind, message: err.to_string(), path: None }
    }
}

/// Parses ProtoJSON bytes into `T`, accepting `null` for absent fields. A data error names the
/// failing field ([`JsonError::path`]); a document nested deeper than [`MAX_DEPTH`] is a data error.
pub fn from_slice<T: DeserializeOwned + prost::Name>(bytes: &[u8]) -> Result<T, JsonError> {
    // Checked as UTF-8 once (eight bytes at a time) and read as text: from bytes, serde_json
    // checks every string it reads on its own (1.5k instructions for an echo SendMessage). For
    // valid UTF-8 both readers give the same message and the same errors.
    let strict = match std::str::from_utf8(bytes) {
        Ok(text) => serde_json::from_str::<T>(text),
        Err(_) => serde_json::from_slice::<T>(bytes),
    };
    let message = match strict {
        Ok(message) => message,
        Err(strict) if strict.is_data() => {
            let mut value: Value = serde_json::from_slice(bytes)?;
            check_depth(&value)?;
            normalize_nulls(&T::full_name(), &mut value);
            return T::deserialize(&value).map_err(|e| JsonError::from(e).at::<T>(&value));
        }
        Err(other) => return Err(other.into()),
    };
    // Fewer brackets than the limit cannot nest past it: one vectorized count settles nearly
    // every request without the byte-by-byte walk below.
    if nesting_bound(bytes) <= MAX_DEPTH {
        return Ok(message);
    }
    // Valid JSON here, so brackets inside strings are the only ones to skip.
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for &byte in bytes {
        match byte {
            _ if escaped => escaped = false,
            b'\\' if in_string => escaped = true,
            b'"' => in_string = !in_string,
            b'{' | b'[' if !in_string => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(too_deep());
                }
            }
            b'}' | b']' if !in_string => depth -= 1,
            _ => {}
        }
    }
    Ok(message)
}

/// An upper bound of how deep JSON `bytes` nest objects and arrays: how many `{` and `[` they
/// hold, in strings too. A document whose bound is at most [`MAX_DEPTH`] needs no other depth check.
pub fn nesting_bound(bytes: &[u8]) -> usize {
    // `{` is 0x7B and `[` 0x5B: the only bytes that are `{` with bit 0x20 set.
    const ONES: u64 = 0x0101_0101_0101_0101;
    const LOW: u64 = 0x7F * ONES;
    let mut count = 0;
    // Eight bytes at a time: the bytes that are brackets become 0x01 in `lanes` (a zero byte of
    // `t` is exactly one whose high bit survives below), which a lane can add up 255 times.
    for group in bytes.chunks(8 * 255) {
        let mut lanes = 0u64;
        let mut words = group.chunks_exact(8);
        for word in &mut words {
            let word = u64::from_le_bytes(word.try_into().unwrap_or_default());
            let t = (word | (0x20 * ONES)) ^ (u64::from(b'{') * ONES);
            lanes += !(((t & LOW) + LOW) | t | LOW) >> 7;
        }
        // The sum of the eight lanes: pairs of lanes added into four 16-bit ones (at most 510
        // each), which one multiplication adds up in its top 16 bits (at most 2040).
        let pairs = (lanes & 0x00FF_00FF_00FF_00FF) + ((lanes >> 8) & 0x00FF_00FF_00FF_00FF);
        count += usize::try_from(pairs.wrapping_mul(0x0001_0001_0001_0001) >> 48).unwrap_or(usize::MAX);
        count += words.remainder().iter().filter(|&&byte| byte | 0x20 == b'{').count();
    }
    count
}

/// Parses a ProtoJSON value into `T`, accepting `null` for absent fields. A data error names the
/// failing field ([`JsonError::path`]); a value nested deeper than [`MAX_DEPTH`] is a data error.
pub fn from_value<T: DeserializeOwned + prost::Name>(mut value: Value) -> Result<T, JsonError> {
    check_depth(&value)?;
    normalize_nulls(&T::full_name(), &mut value);
    T::deserialize(&value).map_err(|e| JsonError::from(e).at::<T>(&value))
}

/// The deepest nesting of JSON objects and arrays that [`from_slice`] and [`from_value`] accept
/// (the outermost object is level 1).
///
/// Inside `google.protobuf.Struct` / `Value` (metadata, data parts) each JSON level costs up to
/// three nested protobuf messages (`Value`, `Struct`, its map entry), and protobuf decoders, prost
/// included, refuse more than 100 nested messages. At most 32 levels keep everything the JSON
/// bindings accept decodable as protobuf, even one level further down (a request's message in a
/// stored `Task`, a `Task` in a `StreamResponse`): what JSON-RPC and REST take in, the gRPC binding
/// and the task stores can carry. Fuzzing found metadata nested 60 deep that was accepted over
/// JSON-RPC, after which the in-memory store could not decode the finished task.
pub const MAX_DEPTH: usize = 32;

/// `Err` (a data error) if `value` nests objects and arrays deeper than [`MAX_DEPTH`]; for
/// readers that build messages from JSON without [`from_value`] (the 0.3 translation).
pub fn check_depth(value: &Value) -> Result<(), JsonError> {
    fn within(value: &Value, levels: usize) -> bool {
        match value {
            Value::Array(items) => levels > 0 && items.iter().all(|item| within(item, levels - 1)),
            Value::Object(members) => levels > 0 && members.values().all(|member| within(member, levels - 1)),
            _ => true,
        }
    }
    if within(value, MAX_DEPTH) {
        Ok(())
    } else {
        Err(too_deep())
    }
}

fn too_deep() -> JsonError {
    JsonError {
        kind: JsonErrorKind::Data,
        message: format!(
            "the JSON is nested deeper than {MAX_DEPTH} levels, more than protobuf can carry (see \
             a2a_proto::json::MAX_DEPTH)"
        ),
        path: None,
    }
}

/// Fields the spec requires on the wire even at their proto3 default, which ProtoJSON would omit:
/// spec 3.1.4 says `nextPageToken` MUST always be present (`""` on the last page), and the other
/// fields of ListTasksResponse are REQUIRED too. By message name, the fields and their defaults.
const ALWAYS_PRESENT: &[(&str, &[DefaultField])] = &[(
    "ListTasksResponse",
    &[
        ("tasks", || Value::Array(Vec::new())),
        ("nextPageToken", || Value::String(String::new())),
        ("pageSize", || Value::from(0)),
        ("totalSize", || Value::from(0)),
    ],
)];

/// A field name and how to make its default value.
type DefaultField = (&'static str, fn() -> Value);

fn always_present<T: prost::Name>() -> Option<&'static [DefaultField]> {
    if T::PACKAGE != crate::PACKAGE {
        return None;
    }
    ALWAYS_PRESENT.iter().find(|(name, _)| *name == T::NAME).map(|(_, fields)| *fields)
}

/// A human name for a JSON value's type, for error descriptions: `null`, `a boolean`, `a
/// number`, `a string`, `an array`, `an object`.
pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Serializes an A2A message as ProtoJSON, keeping the fields the spec requires on the wire
/// even at their default value (see `ALWAYS_PRESENT`; e.g. ListTasksResponse's `nextPageToken`).
/// Bindings write every message through this function or [`to_vec`].
pub fn to_value<T: serde::Serialize + prost::Name>(message: &T) -> Result<Value, serde_json::Error> {
    let mut value = serde_json::to_value(message)?;
    if let (Some(fields), Value::Object(object)) = (always_present::<T>(), &mut value) {
        for (field, default) in fields {
            object.entry(*field).or_insert_with(default);
        }
    }
    Ok(value)
}

/// [`to_value`], as bytes (without an intermediate value for messages that need no fields added).
///
/// The bytes are exactly those `serde_json::to_vec` writes, written by a writer of this crate
/// that is faster on strings (see [`write_json`]).
pub fn to_vec<T: serde::Serialize + prost::Name>(message: &T) -> Result<Vec<u8>, serde_json::Error> {
    let mut out = Vec::with_capacity(INITIAL_CAPACITY);
    extend_vec(&mut out, message)?;
    Ok(out)
}

/// [`to_vec`], appended to `out` (e.g. after the start of an envelope written there). On error
/// `out` is left as it was.
pub fn extend_vec<T: serde::Serialize + prost::Name>(
    out: &mut Vec<u8>,
    message: &T,
) -> Result<(), serde_json::Error> {
    let len = out.len();
    let written = write_message(out, message);
    if written.is_err() {
        out.truncate(len);
    }
    written
}

/// [`to_vec`], as a `String` (for APIs that take text, e.g. an SSE event's data).
pub fn to_string<T: serde::Serialize + prost::Name>(message: &T) -> Result<String, serde_json::Error> {
    let mut out = String::with_capacity(INITIAL_CAPACITY);
    write_message(&mut out, message)?;
    Ok(out)
}

/// Writes an A2A message to `out`, with the fields [`to_value`] adds where the message needs them.
fn write_message<S: write::Sink + Default, T: serde::Serialize + prost::Name>(
    out: &mut S,
    message: &T,
) -> Result<(), serde_json::Error> {
    match always_present::<T>() {
        None => write::write(out, message),
        Some(_) => write::write(out, &to_value(message)?),
    }
}

/// Appends any `value` (not only an A2A message: no fields are added, see [`to_value`]) as JSON to
/// `out`: the bytes `serde_json::to_vec` writes, compact, for every input, and the same
/// `serde_json::Error` where serde_json fails (e.g. a map key that is not a string, a number, a
/// boolean or a char). On error `out` is left as it was.
///
/// Why not serde_json itself: it escapes strings one byte at a time, struct keys included, which
/// was ~5.5k of the ~9.3k instructions the reply's JSON cost per echo SendMessage (of ~95k in
/// all; 5.6k with this writer, docs/benchmarks.md, fifth pass). This writer checks strings eight
/// bytes at a time and appends a short clean string with its punctuation in one copy of constant
/// size; numbers are formatted by the crates serde_json uses (`itoa`, `zmij`). It is our own
/// rather than sonic-rs or simd-json, which would bring large dependency trees for one function.
/// `tests/json_writer.rs` holds it to serde_json's bytes.
pub fn write_json<T: serde::Serialize + ?Sized>(
    out: &mut Vec<u8>,
    value: &T,
) -> Result<(), serde_json::Error> {
    let len = out.len();
    let written = write::write(out, value);
    if written.is_err() {
        out.truncate(len);
    }
    written
}

/// What the one-shot writers reserve first: an echo task's reply (471 bytes) fits, where
/// serde_json's 128 grew twice.
const INITIAL_CAPACITY: usize = 512;

/// Removes the fields of `value` (a JSON object for the message named `message`, e.g.
/// `"lf.a2a.v1.Task"`) whose value is `null`, recursively through nested messages, except
/// `google.protobuf.Value` fields and anything inside the JSON well-known types. Returns how many
/// fields it removed. Unknown message names and non-object values are left alone.
pub fn normalize_nulls(message: &str, value: &mut Value) -> usize {
    normalize(descriptor::v1(), message.strip_prefix('.').unwrap_or(message), value)
}

fn normalize(descriptors: &Descriptors, message: &str, value: &mut Value) -> usize {
    let (Some(message), Value::Object(object)) = (descriptors.message(message), value) else {
        return 0;
    };
    let mut removed = 0;
    object.retain(|key, field_value| {
        // `google.protobuf.Value`: `null` is data.
        let keep = !field_value.is_null()
            || message.field(key).is_some_and(|f| matches!(f.r#type, Type::WellKnown(WellKnown::Value)));
        if !keep {
            removed += 1;
        }
        keep
    });
    for (key, field_value) in object.iter_mut() {
        // Scalars, enums and the well-known types are left as they are.
        let Some(Field { r#type: Type::Message(type_name), shape, .. }) = message.field(key) else {
            continue;
        };
        match (*shape, field_value) {
            (Shape::Repeated, Value::Array(items)) => {
                for item in items {
                    removed += normalize(descriptors, type_name, item);
                }
            }
            (Shape::Map, Value::Object(entries)) => {
                for entry in entries.values_mut() {
                    removed += normalize(descriptors, type_name, entry);
                }
            }
            (_, item @ Value::Object(_)) => {
                removed += normalize(descriptors, type_name, item);
            }
            _ => {}
        }
    }
    removed
}

/// A JSON object as a protobuf `Struct` (`null` members are kept: in metadata they are data).
/// Converted exactly as pbjson parses ProtoJSON, so that values read here compare equal to values
/// the 1.0 bindings parse.
pub fn to_struct(map: &Map<String, Value>) -> pbjson_types::Struct {
    pbjson_types::Struct { fields: map.iter().map(|(k, v)| (k.clone(), to_pb_value(v))).collect() }
}

/// A JSON value as a protobuf `Value` (as pbjson parses it).
pub fn to_pb_value(value: &Value) -> pbjson_types::Value {
    // Infallible for any JSON value; the fallback keeps the function total.
    serde_json::from_value(value.clone()).unwrap_or_default()
}

/// A protobuf `Struct` as a JSON object.
pub fn from_struct(structure: &pbjson_types::Struct) -> Map<String, Value> {
    structure.fields.iter().map(|(k, v)| (k.clone(), from_pb_value(v))).collect()
}

/// A protobuf `Value` as JSON. Integral numbers within the exactly representable range are written
/// as integers (`1`, not `1.0`), so integers a 0.3 peer sent come back as it wrote them.
pub fn from_pb_value(value: &pbjson_types::Value) -> Value {
    use pbjson_types::value::Kind;
    match &value.kind {
        None | Some(Kind::NullValue(_)) => Value::Null,
        Some(Kind::BoolValue(b)) => Value::Bool(*b),
        Some(Kind::NumberValue(n)) => number(*n),
        Some(Kind::StringValue(s)) => Value::String(s.clone()),
        Some(Kind::ListValue(list)) => Value::Array(list.values.iter().map(from_pb_value).collect()),
        Some(Kind::StructValue(s)) => Value::Object(from_struct(s)),
    }
}

fn number(n: f64) -> Value {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if n.is_finite() && n.fract() == 0.0 && n.abs() <= EXACT {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::v1::{AgentCard, SendMessageRequest, StreamResponse, Task};
    use prost::Message as _;
    use serde_json::json;

    /// A SendMessageRequest whose message metadata nests `levels` objects, the whole document
    /// `levels + 3` deep (request, message, metadata).
    fn nested_request(levels: usize) -> String {
        let metadata = format!("{}1{}", r#"{"a":"#.repeat(levels), "}".repeat(levels));
        format!(
            r#"{{"message":{{"messageId":"m","role":"ROLE_USER","parts":[{{"text":"hi"}}],"metadata":{{"k":{metadata}}}}}}}"#
        )
    }

    #[test]
    fn json_nested_up_to_max_depth_stays_decodable_as_protobuf_even_wrapped() {
        // Found by the `protojson` fuzz target: metadata nested 60 deep decoded from JSON, but its
        // protobuf encoding did not decode (prost's limit of 100 nested messages), so a stored
        // task holding it could not be read back.
        let request: SendMessageRequest = from_slice(nested_request(MAX_DEPTH - 3).as_bytes()).unwrap();
        let task = Task { id: "t".into(), history: vec![request.message.unwrap()], ..Default::default() };
        let event = StreamResponse::from(task);
        assert_eq!(StreamResponse::decode(event.encode_to_vec().as_slice()).unwrap(), event);
    }

    /// Found by the `protojson` fuzz target: a number with more digits than a double holds was
    /// read one ulp off (-122.4777777777778), written, and read back as another double
    /// (-122.47777777777779). Numbers are read exactly (`float_roundtrip`).
    #[test]
    fn numbers_read_exactly_survive_a_round_trip() {
        let json = br#"{"metadata":{"location":{"longitude":-122.477777777777777777777777777777777777777777777777777749,"latitude":37.77}}}"#;
        let request: crate::v1::SendMessageRequest = from_slice(json).unwrap();
        let written = to_vec(&request).unwrap();
        let again: crate::v1::SendMessageRequest = from_slice(&written).unwrap();
        assert_eq!(again, request, "{}", String::from_utf8_lossy(&written));
    }

    #[test]
    fn json_nested_deeper_than_max_depth_is_a_data_error() {
        let deep = nested_request(MAX_DEPTH - 2);
        let error = from_slice::<SendMessageRequest>(deep.as_bytes()).unwrap_err();
        assert_eq!(error.kind(), JsonErrorKind::Data);
        assert!(error.message().contains("nested deeper than 32"), "{error}");
        let value: Value = serde_json::from_str(&deep).unwrap();
        assert_eq!(from_value::<SendMessageRequest>(value).unwrap_err().kind(), JsonErrorKind::Data);
        // Brackets inside strings are text, not nesting.
        let text = format!(r#"{{"message":{{"messageId":"{}","role":"ROLE_USER"}}}}"#, "{[".repeat(100));
        assert!(from_slice::<SendMessageRequest>(text.as_bytes()).is_ok());
        let escaped = r#"{"message":{"messageId":"\"[[[[","role":"ROLE_USER"}}"#;
        assert!(from_slice::<SendMessageRequest>(escaped.as_bytes()).is_ok());
    }

    #[test]
    fn the_nesting_bound_counts_every_opening_bracket() {
        assert_eq!(nesting_bound(b""), 0);
        assert_eq!(nesting_bound(br#"{"a":[1,{"b":"[{"}]}"#), 5);
        let long = "{[x".repeat(100);
        assert_eq!(nesting_bound(long.as_bytes()), 200, "across blocks of 16 bytes and the rest");
        let huge = "[".repeat(8 * 255 * 2 + 7);
        assert_eq!(nesting_bound(huge.as_bytes()), 8 * 255 * 2 + 7, "no lane overflows");
        let mixed: Vec<u8> =
            (0..5000u32).map(|i| [b'{', b'[', b'x', 0x7B ^ 0x80, 0xFB, b'"'][(i % 6) as usize]).collect();
        let expected = mixed.iter().filter(|&&b| b == b'{' || b == b'[').count();
        assert_eq!(nesting_bound(&mixed), expected);
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(nesting_bound(&all), 2, "`{{` and `[` only");
    }

    #[test]
    fn null_repeated_map_scalar_and_message_fields_read_as_absent() {
        let task: Task = from_value(json!({
            "id": "t1", "contextId": null, "history": null, "artifacts": null,
            "status": {"state": "TASK_STATE_WORKING", "message": null, "timestamp": null},
            "metadata": null
        }))
        .unwrap();
        assert_eq!(task.id, "t1");
        assert!(task.history.is_empty() && task.artifacts.is_empty() && task.metadata.is_none());
        assert_eq!(task.context_id, "");

        let card: AgentCard = from_value(json!({
            "name": "a", "securitySchemes": null, "skills": [{"id": "s", "tags": null}],
            "capabilities": {"streaming": null, "extensions": null}
        }))
        .unwrap();
        assert!(card.security_schemes.is_empty());
        assert_eq!(card.capabilities.unwrap().streaming, None);
    }

    #[test]
    fn null_inside_struct_and_value_is_data_and_survives() {
        let input = json!({
            "message": {
                "messageId": "m", "role": "ROLE_USER",
                "parts": [{"data": {"a": null, "b": [null, 1.5, "s"]}}],
                "metadata": {"k": null, "nested": {"x": null}}
            }
        });
        let request: SendMessageRequest = from_value(input.clone()).unwrap();
        let back = serde_json::to_value(&request).unwrap();
        assert_eq!(back["message"]["metadata"], input["message"]["metadata"]);
        assert_eq!(back["message"]["parts"][0]["data"], input["message"]["parts"][0]["data"]);
    }

    #[test]
    fn from_slice_falls_back_only_when_nulls_are_the_problem() {
        let ok: StreamResponse =
            from_slice(br#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"metadata":null}}"#)
                .unwrap();
        assert_eq!(ok.task_id(), Some("t"));

        let bad = from_slice::<Task>(br#"{"id": 5}"#).unwrap_err();
        assert_eq!(bad.kind(), JsonErrorKind::Data);
        let syntax = from_slice::<Task>(b"{not json").unwrap_err();
        assert_eq!(syntax.kind(), JsonErrorKind::Syntax);
    }

    #[test]
    fn unknown_enum_values_are_errors_not_defaults() {
        let err =
            from_value::<Task>(json!({"id": "t", "status": {"state": "TASK_STATE_RUNNING"}})).unwrap_err();
        assert_eq!(err.kind(), JsonErrorKind::Data);
        assert!(err.message().contains("TASK_STATE_RUNNING"), "{}", err.message());
    }

    #[test]
    fn data_errors_name_the_failing_field() {
        let err = from_slice::<SendMessageRequest>(
            br#"{"message": {"messageId": "m", "role": "ROLE_NOBODY", "parts": [{"text": "x"}]}}"#,
        )
        .unwrap_err();
        assert_eq!(err.path(), Some("message.role"));
        let err = from_value::<SendMessageRequest>(json!({"message": {"parts": [{"text": 1}]}})).unwrap_err();
        assert_eq!(err.path(), Some("message.parts[0].text"));
        assert_eq!(from_slice::<Task>(b"[]").unwrap_err().path(), None, "the whole document");
        assert_eq!(from_slice::<Task>(b"{oops").unwrap_err().path(), None, "syntax errors have no field");
    }

    #[test]
    fn unknown_fields_are_ignored() {
        let task: Task = from_value(json!({"id": "t", "someFutureField": {"x": 1}})).unwrap();
        assert_eq!(task.id, "t");
    }

    #[test]
    fn list_tasks_response_keeps_its_required_fields_at_default_values() {
        let empty = crate::v1::ListTasksResponse::default();
        assert_eq!(
            to_value(&empty).unwrap(),
            json!({"tasks": [], "nextPageToken": "", "pageSize": 0, "totalSize": 0}),
            "spec 3.1.4: nextPageToken MUST always be present"
        );
        let bytes = to_vec(&empty).unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap()["nextPageToken"], "");
        // Other messages serialize exactly as pbjson writes them.
        assert_eq!(to_value(&Task::default()).unwrap(), json!({}));
    }

    #[test]
    fn snake_case_field_names_are_accepted_too() {
        let task: Task = from_value(json!({"id": "t", "context_id": "c", "history": null})).unwrap();
        assert_eq!(task.context_id, "c");
    }
}
