//! Validation of an agent card document against the A2A 1.0 `AgentCard` message itself, walked
//! field by field from the proto's descriptors ([`crate::descriptor`]): every key must be a
//! field of its message (ProtoJSON name or proto name), every value of the field's JSON type
//! (ProtoJSON mapping: strings, booleans, integers, 64-bit integers also as strings, enums by
//! value name or number, bytes as base64, timestamps as RFC 3339, `Struct` as any object...), at
//! most one member of a `oneof`, and every field the proto annotates `REQUIRED` present and not
//! empty. Every problem is listed with its JSON path (`skills[0].tags`). [`requirements`] adds
//! what the schema cannot tell: every security requirement names a declared scheme (spec 4.5).
//!
//! One home for the check: `a2a-cli card get --validate` and the reference server's console
//! (`a2a-server --console`) both call [`card`] and [`requirements`]. Behind the feature `v0_3`
//! (it reads the 0.3 descriptors too).
//!
//! The `REQUIRED` annotations are read from `proto/a2a.proto` (the embedded descriptor set was
//! re-encoded by prost, which drops extension options; [`crate::required_fields`]), as the
//! workspace's golden tests read them.
//!
//! **Union cards.** The reference server's default card is the "union" card (`a2a-v03`), which
//! carries 0.3 members for 0.3 clients beside the 1.0 card. Top-level keys that are fields of the
//! 0.3 `AgentCard` (`url`, `protocolVersion`, ...) are reported as notes, not problems. When a
//! document has such members (it is a union card), two more kinds of 0.3 member are notes: a key
//! of a message (`skills[0].security`) that the 0.3 message of the same name has, and the 0.3
//! JSON members of a security scheme (`type`, `in`, `name`, `scheme`, ...: the union card writes
//! each scheme in both shapes at once; the 1.0 member beside them is checked). A 1.0-only card
//! gets no such allowance: there they are unknown fields.

use std::collections::HashMap;

use serde_json::Value;

use crate::descriptor::{self, Descriptors, Scalar, Shape, Type, WellKnown};
use crate::json::type_name;

const CARD: &str = "lf.a2a.v1.AgentCard";
const SECURITY_SCHEME: &str = "lf.a2a.v1.SecurityScheme";
/// The members of an A2A 0.3 JSON security scheme object (0.3 specification, 5.5.2.x), which a
/// union card writes beside each scheme's 1.0 member.
const V03_SCHEME_MEMBERS: [&str; 9] = [
    "type",
    "description",
    "in",
    "name",
    "scheme",
    "bearerFormat",
    "flows",
    "oauth2MetadataUrl",
    "openIdConnectUrl",
];

/// What a validation found: problems (the card is invalid) and notes (tolerated extras).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Why the document is not a valid A2A 1.0 card, each with its JSON path; empty when valid.
    pub problems: Vec<String>,
    /// What was tolerated and not checked (0.3 members of a union card).
    pub notes: Vec<String>,
}

impl Report {
    /// No problems.
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Validates a raw card document (as served, before it is read into a card) against the 1.0
/// `AgentCard` (see the module docs).
pub fn card(document: &Value) -> Report {
    let descriptors = descriptor::v1();
    // The top-level fields of the 0.3 `AgentCard` (JSON names), for union cards.
    let v03 = descriptor::v0_3();
    let v03_card = v03.message("a2a.v1.AgentCard");
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
    let union = known.len() < object.len();
    let mut walk = Walk { descriptors, v03: union.then_some(v03), problems: Vec::new(), notes: Vec::new() };
    walk.message(CARD, &known, "");
    report.problems.extend(walk.problems);
    report.notes.extend(walk.notes);
    report
}

/// What the schema cannot tell ([`card`] checks the rest): every security requirement of the
/// card and of its skills names a scheme the card declares (spec 4.5). Empty when valid.
pub fn requirements(card: &crate::v1::AgentCard) -> Vec<String> {
    let requirements =
        card.security_requirements.iter().chain(card.skills.iter().flat_map(|s| &s.security_requirements));
    requirements
        .flat_map(|r| r.schemes.keys())
        .filter(|name| !card.security_schemes.contains_key(*name))
        .map(|name| format!("security requirement names undeclared scheme `{name}`"))
        .collect()
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// One walk of a document: the 1.0 descriptors, the 0.3 ones when the document is a union card
/// (its 0.3 members are notes), and what was found.
struct Walk<'d> {
    descriptors: &'d Descriptors,
    v03: Option<&'d Descriptors>,
    problems: Vec<String>,
    notes: Vec<String>,
}

impl Walk<'_> {
    /// Whether `key`, unknown to the 1.0 message `name`, is a 0.3 member a union card carries.
    fn is_v03_member(&self, name: &str, key: &str) -> bool {
        let Some(v03) = self.v03 else { return false };
        if name == SECURITY_SCHEME && V03_SCHEME_MEMBERS.contains(&key) {
            return true;
        }
        let short = name.rsplit('.').next().unwrap_or(name);
        v03.message(&format!("a2a.v1.{short}")).is_some_and(|m| m.fields.iter().any(|f| f.json_name == key))
    }

    fn message(&mut self, name: &str, object: &serde_json::Map<String, Value>, path: &str) {
        let descriptors = self.descriptors;
        let Some(described) = descriptors.message(name) else { return };
        let short = name.rsplit('.').next().unwrap_or(name);
        let mut oneofs: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut v03_members = Vec::new();
        for (key, value) in object {
            let Some(field) = described.field(key) else {
                if self.is_v03_member(name, key) {
                    v03_members.push(format!("`{key}`"));
                } else {
                    self.problems
                        .push(format!("`{}`: unknown field (not in the A2A 1.0 {short})", join(path, key)));
                }
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
                            self.single(&field.r#type, v, &format!("{at}.{k}"));
                        }
                    }
                    None => self
                        .problems
                        .push(format!("`{at}`: expected an object (a map), got {}", type_name(value))),
                },
                Shape::Repeated => match value.as_array() {
                    Some(items) => {
                        for (i, item) in items.iter().enumerate() {
                            self.single(&field.r#type, item, &format!("{at}[{i}]"));
                        }
                    }
                    None => {
                        self.problems.push(format!("`{at}`: expected an array, got {}", type_name(value)))
                    }
                },
                Shape::Single => self.single(&field.r#type, value, &at),
            }
        }
        if !v03_members.is_empty() {
            v03_members.sort();
            let at = if path.is_empty() { "the card" } else { path };
            self.notes.push(format!(
                "`{at}`: {} of A2A 0.3 (the union card's 0.3 shape), not checked",
                v03_members.join(", ")
            ));
        }
        for (oneof, keys) in oneofs {
            if keys.len() > 1 {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{}`", join(path, k))).collect();
                self.problems
                    .push(format!("{}: at most one member of oneof `{oneof}` may be set", keys.join(", ")));
            }
        }
        for field in described.fields.iter().filter(|f| f.required) {
            let value =
                object.get(&field.json_name).or_else(|| object.get(&field.name)).filter(|v| !v.is_null());
            let at = join(path, &field.json_name);
            match value {
                None => self.problems.push(format!("`{at}`: required field is missing")),
                Some(Value::String(s)) if s.trim().is_empty() => {
                    self.problems.push(format!("`{at}`: required field is empty"))
                }
                Some(Value::Array(a)) if a.is_empty() => {
                    self.problems.push(format!("`{at}`: required field is empty"))
                }
                // An empty map stays a value (OAuth 2 `scopes` may be empty).
                Some(_) => {}
            }
        }
    }

    fn single(&mut self, r#type: &Type, value: &Value, at: &str) {
        let descriptors = self.descriptors;
        let problems = &mut self.problems;
        let wrong = |problems: &mut Vec<String>, expected: &str| {
            problems.push(format!("`{at}`: expected {expected}, got {}", type_name(value)))
        };
        match r#type {
            Type::Message(name) => match value.as_object() {
                Some(object) => self.message(name, object, at),
                None => wrong(problems, "an object"),
            },
            Type::Enum(name) => match value {
                Value::String(s) => {
                    if descriptors.enumeration(name).is_none_or(|e| e.number(s).is_none()) {
                        let short = name.rsplit('.').next().unwrap_or(name);
                        problems.push(format!("`{at}`: {s:?} is not a value of enum {short}"));
                    }
                }
                Value::Number(n) if n.is_i64() => {}
                _ => wrong(problems, "an enum value name"),
            },
            Type::WellKnown(WellKnown::Struct) if !value.is_object() => wrong(problems, "an object"),
            Type::WellKnown(WellKnown::ListValue) if !value.is_array() => wrong(problems, "an array"),
            Type::WellKnown(WellKnown::Timestamp) => match value.as_str() {
                Some(s) if is_rfc3339(s) => {}
                Some(s) => problems.push(format!("`{at}`: {s:?} is not an RFC 3339 timestamp")),
                None => wrong(problems, "an RFC 3339 timestamp string"),
            },
            // `Value` (and any other well-known type): any JSON.
            Type::WellKnown(_) => {}
            Type::Scalar(scalar) => match scalar {
                Scalar::String if !value.is_string() => wrong(problems, "a string"),
                Scalar::Bool if !value.is_boolean() => wrong(problems, "a boolean"),
                Scalar::Bytes => match value.as_str() {
                    Some(s) if is_base64(s) => {}
                    Some(_) => problems.push(format!("`{at}`: not base64")),
                    None => wrong(problems, "a base64 string"),
                },
                Scalar::Double | Scalar::Float => {
                    let special = matches!(value.as_str(), Some("NaN" | "Infinity" | "-Infinity"));
                    if !value.is_number() && !special {
                        wrong(problems, "a number");
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
                    wrong(problems, "an integer")
                }
                Scalar::Uint32 | Scalar::Fixed32 | Scalar::Uint64 | Scalar::Fixed64
                    if !is_integer(value, false) =>
                {
                    wrong(problems, "a non-negative integer")
                }
                _ => {}
            },
        }
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
    fn a_union_cards_0_3_members_are_notes_and_a_1_0_cards_are_problems() {
        let mut union = valid();
        union["protocolVersion"] = json!("0.3.0");
        union["securitySchemes"] = json!({"key": {
            "type": "apiKey", "in": "header", "name": "X-API-Key",
            "apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"},
        }});
        union["skills"][0]["security"] = json!([{"key": []}]);
        let report = card(&union);
        assert!(report.is_valid(), "{:?}", report.problems);
        for expected in
            ["`securitySchemes.key`: `in`, `name`, `type` of A2A 0.3", "`skills[0]`: `security` of A2A 0.3"]
        {
            assert!(
                report.notes.iter().any(|n| n.contains(expected)),
                "{expected} not in {:#?}",
                report.notes
            );
        }
        // The 1.0 member beside them is still checked.
        union["securitySchemes"]["key"]["apiKeySecurityScheme"]["location"] = json!(1);
        assert_eq!(
            card(&union).problems,
            ["`securitySchemes.key.apiKeySecurityScheme.location`: expected a string, got a number"]
        );
        // Without a 0.3 top-level member the card is 1.0 only: the same keys are unknown.
        let mut v1 = union.clone();
        v1.as_object_mut().unwrap().remove("protocolVersion");
        v1["securitySchemes"]["key"]["apiKeySecurityScheme"]["location"] = json!("header");
        let problems = card(&v1).problems;
        assert!(problems.iter().any(|p| p == "`securitySchemes.key.type`: unknown field (not in the A2A 1.0 SecurityScheme)"), "{problems:#?}");
        assert!(
            problems.iter().any(|p| p.starts_with("`skills[0].security`: unknown field")),
            "{problems:#?}"
        );
    }

    #[test]
    fn requirements_name_declared_schemes() {
        use crate::v1::{AgentCard, AgentSkill, SecurityRequirement, SecurityScheme, StringList};
        let requirement = |name: &str| SecurityRequirement {
            schemes: [(name.to_owned(), StringList::default())].into_iter().collect(),
        };
        let mut card = AgentCard {
            security_schemes: [("key".to_owned(), SecurityScheme::default())].into_iter().collect(),
            security_requirements: vec![requirement("key")],
            ..AgentCard::default()
        };
        assert!(requirements(&card).is_empty());
        card.skills
            .push(AgentSkill { security_requirements: vec![requirement("oauth")], ..AgentSkill::default() });
        assert_eq!(requirements(&card), ["security requirement names undeclared scheme `oauth`"]);
    }

    #[test]
    fn enums_and_timestamps_follow_protojson() {
        assert!(is_rfc3339("2026-11-25T16:00:00Z") && is_rfc3339("2026-11-25T16:00:00.123+01:00"));
        assert!(!is_rfc3339("2026-11-25 16:00") && !is_rfc3339("yesterday"));
        let mut walk =
            Walk { descriptors: descriptor::v1(), v03: None, problems: Vec::new(), notes: Vec::new() };
        let state = Type::Enum("lf.a2a.v1.TaskState".into());
        walk.single(&state, &json!("TASK_STATE_WORKING"), "s");
        walk.single(&state, &json!(3), "s");
        assert!(walk.problems.is_empty(), "{:?}", walk.problems);
        walk.single(&state, &json!("WORKING"), "s");
        assert_eq!(walk.problems, ["`s`: \"WORKING\" is not a value of enum TaskState"]);
    }
}
