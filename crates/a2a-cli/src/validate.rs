//! `card get --validate` (SPEC.md §10.1, Tier 2): the raw card document checked against the A2A
//! 1.0 `AgentCard` message itself, walked field by field from the proto's descriptors
//! ([`a2a_proto::FILE_DESCRIPTOR_SET`]): every key must be a field of its message (ProtoJSON
//! name or proto name), every value of the field's JSON type (ProtoJSON mapping: strings,
//! booleans, integers, 64-bit integers also as strings, enums by value name or number, bytes as
//! base64, timestamps as RFC 3339, `Struct` as any object...), at most one member of a `oneof`,
//! and every field the proto annotates `REQUIRED` present and not empty. Every problem is
//! listed with its JSON path (`skills[0].tags`).
//!
//! The `REQUIRED` annotations are read from `proto/a2a.proto` (the embedded descriptor set was
//! re-encoded by prost, which drops extension options), as the workspace's golden tests do.
//! The reference server's default union card carries 0.3 members for 0.3 clients (`url`,
//! `protocolVersion`, ...): top-level keys that are fields of the 0.3 `AgentCard` are reported
//! as notes, not problems.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FileDescriptorSet};
use serde_json::Value;

use crate::agent::CardRef;
use crate::error::{exit, CliError};

/// How a field's value is written in ProtoJSON.
#[derive(Debug, Clone)]
enum Kind {
    /// A message of the A2A package, by full name (`lf.a2a.v1.AgentSkill`).
    Message(String),
    /// An enum, by full name.
    Enum(String),
    /// `google.protobuf.Struct`: a JSON object.
    Struct,
    /// `google.protobuf.Value`: any JSON.
    AnyJson,
    /// `google.protobuf.ListValue`: a JSON array.
    List,
    /// `google.protobuf.Timestamp`: an RFC 3339 string.
    Timestamp,
    Scalar(Type),
}

#[derive(Debug, Clone)]
struct Field {
    name: String,
    json_name: String,
    kind: Kind,
    repeated: bool,
    /// A map field (`kind` is then its values' kind).
    map: bool,
    /// The real oneof (not a proto3 `optional`) this field belongs to.
    oneof: Option<String>,
    required: bool,
}

#[derive(Debug, Default)]
struct Schema {
    messages: HashMap<String, Vec<Field>>,
    enums: HashMap<String, HashSet<String>>,
    /// The top-level fields of the 0.3 `AgentCard` (JSON names), for union cards.
    v03_card: HashSet<String>,
}

const CARD: &str = "lf.a2a.v1.AgentCard";

fn schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let set = FileDescriptorSet::decode(a2a_proto::FILE_DESCRIPTOR_SET)
            .expect("the embedded descriptors decode");
        let required = required_fields();
        let mut raw = HashMap::new();
        let mut schema = Schema::default();
        for file in &set.file {
            for message in &file.message_type {
                collect(file.package(), message, &mut raw, &mut schema.enums);
            }
            for e in &file.enum_type {
                schema.enums.insert(
                    format!("{}.{}", file.package(), e.name()),
                    e.value.iter().map(|v| v.name().to_owned()).collect(),
                );
            }
        }
        for (name, message) in &raw {
            if !name.starts_with(&format!("{}.", a2a_proto::PACKAGE)) || is_map_entry(message) {
                continue;
            }
            let short = name.rsplit('.').next().unwrap_or_default();
            let fields = message
                .field
                .iter()
                .map(|field| {
                    let mut kind = kind_of(field);
                    let mut repeated = field.label() == Label::Repeated;
                    let mut map = false;
                    if let Kind::Message(entry) = &kind {
                        if let Some(entry) = raw.get(entry).filter(|m| is_map_entry(m)) {
                            map = true;
                            repeated = false;
                            kind =
                                entry.field.iter().find(|f| f.number() == 2).map_or(Kind::AnyJson, kind_of);
                        }
                    }
                    let oneof = field
                        .oneof_index
                        .filter(|_| !field.proto3_optional())
                        .and_then(|i| message.oneof_decl.get(i as usize))
                        .map(|o| o.name().to_owned());
                    Field {
                        name: field.name().to_owned(),
                        json_name: field.json_name().to_owned(),
                        kind,
                        repeated,
                        map,
                        oneof,
                        required: required.contains(&(short.to_owned(), field.name().to_owned())),
                    }
                })
                .collect();
            schema.messages.insert(name.clone(), fields);
        }
        if let Ok(set) = FileDescriptorSet::decode(a2a_proto::FILE_DESCRIPTOR_SET_V0_3) {
            for file in set.file.iter().filter(|f| f.package() == "a2a.v1") {
                if let Some(card) = file.message_type.iter().find(|m| m.name() == "AgentCard") {
                    schema.v03_card = card.field.iter().map(|f| f.json_name().to_owned()).collect();
                }
            }
        }
        schema
    })
}

fn collect(
    prefix: &str,
    message: &DescriptorProto,
    out: &mut HashMap<String, DescriptorProto>,
    enums: &mut HashMap<String, HashSet<String>>,
) {
    let name = format!("{prefix}.{}", message.name());
    for nested in &message.nested_type {
        collect(&name, nested, out, enums);
    }
    for e in &message.enum_type {
        enums.insert(format!("{name}.{}", e.name()), e.value.iter().map(|v| v.name().to_owned()).collect());
    }
    out.insert(name, message.clone());
}

fn is_map_entry(message: &DescriptorProto) -> bool {
    message.options.as_ref().is_some_and(|o| o.map_entry())
}

fn kind_of(field: &prost_types::FieldDescriptorProto) -> Kind {
    let name = field.type_name().trim_start_matches('.').to_owned();
    match field.r#type() {
        Type::Message => match name.as_str() {
            "google.protobuf.Struct" => Kind::Struct,
            "google.protobuf.Value" => Kind::AnyJson,
            "google.protobuf.ListValue" => Kind::List,
            "google.protobuf.Timestamp" => Kind::Timestamp,
            _ if name.starts_with("google.protobuf.") => Kind::AnyJson,
            _ => Kind::Message(name),
        },
        Type::Enum => Kind::Enum(name),
        other => Kind::Scalar(other),
    }
}

/// `(message, field)` pairs annotated `[(google.api.field_behavior) = REQUIRED]` in a2a.proto.
fn required_fields() -> HashSet<(String, String)> {
    a2a_proto::required_fields().into_iter().map(|(m, f)| (m.to_owned(), f.to_owned())).collect()
}

/// What `--validate` found: problems (the card is invalid) and notes (tolerated extras).
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) problems: Vec<String>,
    pub(crate) notes: Vec<String>,
}

/// Validates a raw card document against the 1.0 `AgentCard`.
pub(crate) fn card(document: &Value) -> Report {
    let schema = schema();
    let mut report = Report::default();
    let Some(object) = document.as_object() else {
        report.problems.push(format!("the card is {}, not a JSON object", type_name(document)));
        return report;
    };
    let mut known = object.clone();
    for key in object.keys() {
        let field = schema.messages[CARD].iter().any(|f| &f.json_name == key || &f.name == key);
        if !field && schema.v03_card.contains(key) {
            report
                .notes
                .push(format!("`{key}` is an A2A 0.3 member (a card for 0.3 clients too), not checked"));
            known.remove(key);
        }
    }
    message(schema, CARD, &known, "", &mut report.problems);
    report
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn message(
    schema: &Schema,
    name: &str,
    object: &serde_json::Map<String, Value>,
    path: &str,
    problems: &mut Vec<String>,
) {
    let Some(fields) = schema.messages.get(name) else { return };
    let short = name.rsplit('.').next().unwrap_or(name);
    let mut oneofs: HashMap<&str, Vec<&str>> = HashMap::new();
    for (key, value) in object {
        let Some(field) = fields.iter().find(|f| &f.json_name == key || &f.name == key) else {
            problems.push(format!("`{}`: unknown field (not in the A2A 1.0 {short})", join(path, key)));
            continue;
        };
        if value.is_null() {
            continue; // ProtoJSON: null is the field's default.
        }
        if let Some(oneof) = &field.oneof {
            oneofs.entry(oneof.as_str()).or_default().push(key);
        }
        let at = join(path, key);
        if field.map {
            match value.as_object() {
                Some(entries) => {
                    for (k, v) in entries {
                        single(schema, &field.kind, v, &format!("{at}.{k}"), problems);
                    }
                }
                None => {
                    problems.push(format!("`{at}`: expected an object (a map), got {}", type_name(value)))
                }
            }
        } else if field.repeated {
            match value.as_array() {
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        single(schema, &field.kind, item, &format!("{at}[{i}]"), problems);
                    }
                }
                None => problems.push(format!("`{at}`: expected an array, got {}", type_name(value))),
            }
        } else {
            single(schema, &field.kind, value, &at, problems);
        }
    }
    for (oneof, keys) in oneofs {
        if keys.len() > 1 {
            let keys: Vec<String> = keys.iter().map(|k| format!("`{}`", join(path, k))).collect();
            problems.push(format!("{}: at most one member of oneof `{oneof}` may be set", keys.join(", ")));
        }
    }
    for field in fields.iter().filter(|f| f.required) {
        let value = object.get(&field.json_name).or_else(|| object.get(&field.name)).filter(|v| !v.is_null());
        let at = join(path, &field.json_name);
        match value {
            None => problems.push(format!("`{at}`: required field is missing")),
            Some(Value::String(s)) if s.trim().is_empty() => {
                problems.push(format!("`{at}`: required field is empty"))
            }
            Some(Value::Array(a)) if a.is_empty() => {
                problems.push(format!("`{at}`: required field is empty"))
            }
            // An empty map stays a value (OAuth 2 `scopes` may be empty).
            Some(_) => {}
        }
    }
}

fn single(schema: &Schema, kind: &Kind, value: &Value, at: &str, problems: &mut Vec<String>) {
    let mut wrong =
        |expected: &str| problems.push(format!("`{at}`: expected {expected}, got {}", type_name(value)));
    match kind {
        Kind::Message(name) => match value.as_object() {
            Some(object) => message(schema, name, object, at, problems),
            None => wrong("an object"),
        },
        Kind::Enum(name) => match value {
            Value::String(s) => {
                if !schema.enums.get(name).is_some_and(|values| values.contains(s)) {
                    let short = name.rsplit('.').next().unwrap_or(name);
                    problems.push(format!("`{at}`: {s:?} is not a value of enum {short}"));
                }
            }
            Value::Number(n) if n.is_i64() => {}
            _ => wrong("an enum value name"),
        },
        Kind::Struct if !value.is_object() => wrong("an object"),
        Kind::List if !value.is_array() => wrong("an array"),
        Kind::Timestamp => match value.as_str() {
            Some(s) if is_rfc3339(s) => {}
            Some(s) => problems.push(format!("`{at}`: {s:?} is not an RFC 3339 timestamp")),
            None => wrong("an RFC 3339 timestamp string"),
        },
        Kind::Struct | Kind::List | Kind::AnyJson => {}
        Kind::Scalar(scalar) => match scalar {
            Type::String if !value.is_string() => wrong("a string"),
            Type::Bool if !value.is_boolean() => wrong("a boolean"),
            Type::Bytes => match value.as_str() {
                Some(s) if is_base64(s) => {}
                Some(_) => problems.push(format!("`{at}`: not base64")),
                None => wrong("a base64 string"),
            },
            Type::Double | Type::Float => {
                let special = matches!(value.as_str(), Some("NaN" | "Infinity" | "-Infinity"));
                if !value.is_number() && !special {
                    wrong("a number");
                }
            }
            Type::Int32 | Type::Sint32 | Type::Sfixed32 | Type::Int64 | Type::Sint64 | Type::Sfixed64
                if !is_integer(value, true) =>
            {
                wrong("an integer")
            }
            Type::Uint32 | Type::Fixed32 | Type::Uint64 | Type::Fixed64 if !is_integer(value, false) => {
                wrong("a non-negative integer")
            }
            _ => {}
        },
    }
}

/// A JSON number without a fraction, or such a number as a string (ProtoJSON accepts both).
fn is_integer(value: &Value, signed: bool) -> bool {
    let text = match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => return false,
    };
    let digits = if signed { text.strip_prefix('-').unwrap_or(&text) } else { &text };
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

fn is_base64(s: &str) -> bool {
    s.trim_end_matches('=').chars().all(|c| c.is_ascii_alphanumeric() || "+/-_".contains(c))
}

/// `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)`.
fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if b.len() < 20 || !digits(0..4) || b[4] != b'-' || !digits(5..7) || b[7] != b'-' || !digits(8..10) {
        return false;
    }
    if !matches!(b[10], b'T' | b't')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    let mut rest = &s[19..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = fraction.chars().take_while(char::is_ascii_digit).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    matches!(rest, "Z" | "z")
        || (rest.len() == 6
            && matches!(rest.as_bytes()[0], b'+' | b'-')
            && rest.as_bytes()[3] == b':'
            && rest[1..3].chars().all(|c| c.is_ascii_digit())
            && rest[4..6].chars().all(|c| c.is_ascii_digit()))
}

/// The card document `-a` names, as it is (no parsing into a card): a file's JSON, or the JSON
/// the card URL serves (a plain `GET`, no credential: SPEC.md §12.4).
pub(crate) async fn fetch_document(global: &crate::cli::Global) -> Result<Value, CliError> {
    let Some(reference) = &global.agent_card else {
        return Err(CliError::usage(
            "no agent: pass -a/--agent-card <host|url|file> (or set A2ACLI_AGENT_CARD)",
        ));
    };
    let invalid = |why: String| CliError::local("A2ACLI_ERR_CARD_INVALID", exit::FAILURE, why);
    let (bytes, source) = match CardRef::parse(reference)? {
        CardRef::File(path) => {
            let bytes = std::fs::read(&path).map_err(|e| {
                CliError::local(
                    "A2ACLI_ERR_CARD_NOT_FOUND",
                    exit::UNREACHABLE,
                    format!("cannot read the card file {path}: {e}"),
                )
            })?;
            (bytes, path)
        }
        card_ref @ (CardRef::Base(_) | CardRef::Url(_)) => {
            let url = match card_ref {
                CardRef::Base(url) if !url.ends_with(a2a_client::AGENT_CARD_PATH) => {
                    format!("{}{}", url.trim_end_matches('/'), a2a_client::AGENT_CARD_PATH)
                }
                CardRef::Base(url) | CardRef::Url(url) | CardRef::File(url) => url,
            };
            let client = reqwest::Client::builder()
                .danger_accept_invalid_certs(global.insecure)
                .timeout(global.timeout.unwrap_or(std::time::Duration::from_secs(30)))
                .build()
                .map_err(|e| CliError::internal(format!("cannot build the HTTP client: {e}")))?;
            let unreachable = |e: String| CliError::local("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE, e);
            let response = client
                .get(&url)
                .header(reqwest::header::ACCEPT, "application/json")
                .send()
                .await
                .map_err(|e| unreachable(format!("GET {url}: {e}")))?;
            if !response.status().is_success() {
                return Err(CliError::local(
                    "A2ACLI_ERR_CARD_NOT_FOUND",
                    exit::UNREACHABLE,
                    format!("GET {url}: HTTP {}", response.status()),
                ));
            }
            let bytes = response.bytes().await.map_err(|e| unreachable(format!("GET {url}: {e}")))?;
            (bytes.to_vec(), url)
        }
    };
    serde_json::from_slice(&bytes)
        .map_err(|e| invalid(format!("the agent card at {source} is not JSON: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid() -> Value {
        json!({
            "name": "a", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": "http://h", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}],
        })
    }

    #[test]
    fn a_valid_card_has_no_problems_and_0_3_members_are_notes() {
        let report = card(&valid());
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        let mut union = valid();
        union["url"] = json!("http://h");
        union["protocolVersion"] = json!("0.3.0");
        let report = card(&union);
        assert!(report.problems.is_empty(), "{:?}", report.problems);
        assert_eq!(report.notes.len(), 2, "{:?}", report.notes);
    }

    #[test]
    fn every_problem_is_listed_with_its_path() {
        let mut bad = valid();
        bad["description"] = json!("");
        bad["capabilities"]["streaming"] = json!("yes");
        bad["skills"][0]["tags"] = json!([]);
        bad["skills"][0]["colour"] = json!("red");
        bad["securitySchemes"] = json!({"k": {"apiKeySecurityScheme": {"location": "header", "name": "X"},
                                              "httpAuthSecurityScheme": {"scheme": "bearer"}}});
        bad["supportedInterfaces"][0]["protocolBinding"] = json!(7);
        bad["signatures"] = json!([{"protected": "x", "signature": "y", "header": []}]);
        bad.as_object_mut().unwrap().remove("version");
        let problems = card(&bad).problems;
        for expected in [
            "`description`: required field is empty",
            "`version`: required field is missing",
            "`capabilities.streaming`: expected a boolean, got a string",
            "`skills[0].tags`: required field is empty",
            "`skills[0].colour`: unknown field (not in the A2A 1.0 AgentSkill)",
            "`supportedInterfaces[0].protocolBinding`: expected a string, got a number",
            "`signatures[0].header`: expected an object, got an array",
            "at most one member of oneof",
        ] {
            assert!(problems.iter().any(|p| p.contains(expected)), "{expected} not in {problems:#?}");
        }
        assert_eq!(card(&json!([])).problems, ["the card is an array, not a JSON object"]);
    }

    #[test]
    fn enums_and_timestamps_follow_protojson() {
        assert!(is_rfc3339("2026-11-25T16:00:00Z") && is_rfc3339("2026-11-25T16:00:00.123+01:00"));
        assert!(!is_rfc3339("2026-11-25 16:00") && !is_rfc3339("yesterday"));
        let schema = schema();
        let mut problems = Vec::new();
        let kind = Kind::Enum("lf.a2a.v1.TaskState".into());
        single(schema, &kind, &json!("TASK_STATE_WORKING"), "s", &mut problems);
        single(schema, &kind, &json!(3), "s", &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        single(schema, &kind, &json!("WORKING"), "s", &mut problems);
        assert_eq!(problems, ["`s`: \"WORKING\" is not a value of enum TaskState"]);
    }
}
