//! `card get --validate` (SPEC.md §10.1, Tier 2): the raw card document checked against the A2A
//! 1.0 `AgentCard` message itself, walked field by field from the proto's descriptors
//! ([`a2a_proto::descriptor`]): every key must be a field of its message (ProtoJSON
//! name or proto name), every value of the field's JSON type (ProtoJSON mapping: strings,
//! booleans, integers, 64-bit integers also as strings, enums by value name or number, bytes as
//! base64, timestamps as RFC 3339, `Struct` as any object...), at most one member of a `oneof`,
//! and every field the proto annotates `REQUIRED` present and not empty. Every problem is
//! listed with its JSON path (`skills[0].tags`).
//!
//! The `REQUIRED` annotations are read from `proto/a2a.proto` (the embedded descriptor set was
//! re-encoded by prost, which drops extension options; [`a2a_proto::required_fields`]), as the
//! workspace's golden tests read them. The reference server's default union card carries 0.3
//! members for 0.3 clients (`url`, `protocolVersion`, ...): top-level keys that are fields of the
//! 0.3 `AgentCard` are reported as notes, not problems.

use std::collections::HashMap;

use a2a_proto::descriptor::{self, Descriptors, Scalar, Shape, Type, WellKnown};
use serde_json::Value;

use crate::agent::CardRef;
use crate::error::{exit, CliError};

const CARD: &str = "lf.a2a.v1.AgentCard";

/// What `--validate` found: problems (the card is invalid) and notes (tolerated extras).
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub(crate) problems: Vec<String>,
    pub(crate) notes: Vec<String>,
}

/// Validates a raw card document against the 1.0 `AgentCard`.
pub(crate) fn card(document: &Value) -> Report {
    let descriptors = descriptor::v1();
    // The top-level fields of the 0.3 `AgentCard` (JSON names), for union cards.
    let v03_card = descriptor::v0_3().message("a2a.v1.AgentCard");
    let mut report = Report::default();
    let Some(object) = document.as_object() else {
        report.problems.push(format!("the card is {}, not a JSON object", type_name(document)));
        return report;
    };
    let mut known = object.clone();
    let card = descriptors.message(CARD).expect("the 1.0 AgentCard is described");
    for key in object.keys() {
        let field = card.field(key).is_some();
        if !field && v03_card.is_some_and(|v03| v03.fields.iter().any(|f| &f.json_name == key)) {
            report
                .notes
                .push(format!("`{key}` is an A2A 0.3 member (a card for 0.3 clients too), not checked"));
            known.remove(key);
        }
    }
    message(descriptors, CARD, &known, "", &mut report.problems);
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
    descriptors: &Descriptors,
    name: &str,
    object: &serde_json::Map<String, Value>,
    path: &str,
    problems: &mut Vec<String>,
) {
    let Some(described) = descriptors.message(name) else { return };
    let short = name.rsplit('.').next().unwrap_or(name);
    let mut oneofs: HashMap<&str, Vec<&str>> = HashMap::new();
    for (key, value) in object {
        let Some(field) = described.field(key) else {
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
        match field.shape {
            Shape::Map => match value.as_object() {
                Some(entries) => {
                    for (k, v) in entries {
                        single(descriptors, &field.r#type, v, &format!("{at}.{k}"), problems);
                    }
                }
                None => {
                    problems.push(format!("`{at}`: expected an object (a map), got {}", type_name(value)))
                }
            },
            Shape::Repeated => match value.as_array() {
                Some(items) => {
                    for (i, item) in items.iter().enumerate() {
                        single(descriptors, &field.r#type, item, &format!("{at}[{i}]"), problems);
                    }
                }
                None => problems.push(format!("`{at}`: expected an array, got {}", type_name(value))),
            },
            Shape::Single => single(descriptors, &field.r#type, value, &at, problems),
        }
    }
    for (oneof, keys) in oneofs {
        if keys.len() > 1 {
            let keys: Vec<String> = keys.iter().map(|k| format!("`{}`", join(path, k))).collect();
            problems.push(format!("{}: at most one member of oneof `{oneof}` may be set", keys.join(", ")));
        }
    }
    for field in described.fields.iter().filter(|f| f.required) {
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

fn single(descriptors: &Descriptors, r#type: &Type, value: &Value, at: &str, problems: &mut Vec<String>) {
    let mut wrong =
        |expected: &str| problems.push(format!("`{at}`: expected {expected}, got {}", type_name(value)));
    match r#type {
        Type::Message(name) => match value.as_object() {
            Some(object) => message(descriptors, name, object, at, problems),
            None => wrong("an object"),
        },
        Type::Enum(name) => match value {
            Value::String(s) => {
                if descriptors.enumeration(name).is_none_or(|e| e.number(s).is_none()) {
                    let short = name.rsplit('.').next().unwrap_or(name);
                    problems.push(format!("`{at}`: {s:?} is not a value of enum {short}"));
                }
            }
            Value::Number(n) if n.is_i64() => {}
            _ => wrong("an enum value name"),
        },
        Type::WellKnown(WellKnown::Struct) if !value.is_object() => wrong("an object"),
        Type::WellKnown(WellKnown::ListValue) if !value.is_array() => wrong("an array"),
        Type::WellKnown(WellKnown::Timestamp) => match value.as_str() {
            Some(s) if is_rfc3339(s) => {}
            Some(s) => problems.push(format!("`{at}`: {s:?} is not an RFC 3339 timestamp")),
            None => wrong("an RFC 3339 timestamp string"),
        },
        // `Value` (and any other well-known type): any JSON.
        Type::WellKnown(_) => {}
        Type::Scalar(scalar) => match scalar {
            Scalar::String if !value.is_string() => wrong("a string"),
            Scalar::Bool if !value.is_boolean() => wrong("a boolean"),
            Scalar::Bytes => match value.as_str() {
                Some(s) if is_base64(s) => {}
                Some(_) => problems.push(format!("`{at}`: not base64")),
                None => wrong("a base64 string"),
            },
            Scalar::Double | Scalar::Float => {
                let special = matches!(value.as_str(), Some("NaN" | "Infinity" | "-Infinity"));
                if !value.is_number() && !special {
                    wrong("a number");
                }
            }
            Scalar::Int32
            | Scalar::Sint32
            | Scalar::Sfixed32
            | Scalar::Int64
            | Scalar::Sint64
            | Scalar::Sfixed64
                if !is_integer(value, true) =>
            {
                wrong("an integer")
            }
            Scalar::Uint32 | Scalar::Fixed32 | Scalar::Uint64 | Scalar::Fixed64
                if !is_integer(value, false) =>
            {
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
        let descriptors = descriptor::v1();
        let mut problems = Vec::new();
        let state = Type::Enum("lf.a2a.v1.TaskState".into());
        single(descriptors, &state, &json!("TASK_STATE_WORKING"), "s", &mut problems);
        single(descriptors, &state, &json!(3), "s", &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        single(descriptors, &state, &json!("WORKING"), "s", &mut problems);
        assert_eq!(problems, ["`s`: \"WORKING\" is not a value of enum TaskState"]);
    }
}
