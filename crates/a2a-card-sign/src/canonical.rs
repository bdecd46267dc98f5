//! The bytes a card signature covers (spec 8.4.1).
//!
//! The card's JSON is its ProtoJSON (pbjson) form, which already follows the first presence
//! rules: an `optional` field is written when set (even to its default), a plain field only when
//! not at its default, an empty repeated field never. [`card_json`] adds the last rule, that a
//! `REQUIRED` field is always present, even at its default (`"description": ""`,
//! `"skills": []`). [`payload`] removes `signatures` and writes the RFC 8785 (JCS) form: members
//! sorted by UTF-16 code units, no whitespace, ECMAScript number form, minimal string escapes.
//!
//! A server signs the JSON document it serves ([`card_json`] for a 1.0 card, or the union/0.3
//! form), so a verifier can check the document as received, whatever the order of its members.

use a2a_proto::v1::AgentCard;
use serde_json::{Map, Value};

use crate::Error;

/// The ProtoJSON of `card` with every `REQUIRED` field present (spec 8.4.1 rule 1). Its
/// `signatures`, if any, are included: [`payload`] leaves them out.
pub fn card_json(card: &AgentCard) -> Value {
    // pbjson serializes every generated message; a failure would be a bug in the generated code.
    let mut value = a2a_proto::json::to_value(card).expect("an agent card always serializes");
    CARD.fill(&mut value);
    value
}

/// The JWS payload of a card document: the document without its `signatures` member, in RFC 8785
/// canonical form (spec 8.4.1 rules 2 and 3).
pub fn payload(document: &Value) -> Result<Vec<u8>, Error> {
    let Value::Object(object) = document else {
        return Err(Error::NotAnObject);
    };
    let unsigned: Map<String, Value> =
        object.iter().filter(|(key, _)| *key != "signatures").map(|(k, v)| (k.clone(), v.clone())).collect();
    jcs(&Value::Object(unsigned))
}

/// The RFC 8785 (JCS) canonical form of any JSON value; [`payload`] applies it to a card.
pub fn jcs(value: &Value) -> Result<Vec<u8>, Error> {
    serde_json_canonicalizer::to_vec(value).map_err(Error::Canonical)
}

/// `value` without the members whose value is a JSON default (`""`, `0`, `false`, `[]`, `{}`,
/// `null`), recursively: what two renderings of one card have in common when they differ only in
/// which default-valued fields they write.
pub(crate) fn without_defaults(value: &Value) -> Value {
    match value {
        Value::Object(object) => Value::Object(
            object
                .iter()
                .map(|(key, value)| (key.clone(), without_defaults(value)))
                .filter(|(_, value)| !is_default(value))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_defaults).collect()),
        other => other.clone(),
    }
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// The `REQUIRED` fields of a message in the card's tree (proto/a2a.proto's
/// `(google.api.field_behavior) = REQUIRED`), with their default, and where its nested messages
/// are.
struct Shape {
    required: &'static [Required],
    nested: &'static [(&'static str, Nested)],
}

/// A required field's JSON name and how to make its default.
type Required = (&'static str, fn() -> Value);

/// How a nested message sits in its parent.
enum Nested {
    /// A singular message field.
    One(&'static Shape),
    /// A repeated message field.
    Each(&'static Shape),
    /// The values of a map field.
    Values(&'static Shape),
}

impl Shape {
    fn fill(&self, value: &mut Value) {
        let Value::Object(object) = value else { return };
        for (field, default) in self.required {
            object.entry(*field).or_insert_with(default);
        }
        for (field, nested) in self.nested {
            match (nested, object.get_mut(*field)) {
                (Nested::One(shape), Some(value)) => shape.fill(value),
                (Nested::Each(shape), Some(Value::Array(items))) => {
                    items.iter_mut().for_each(|v| shape.fill(v))
                }
                (Nested::Values(shape), Some(Value::Object(map))) => {
                    map.values_mut().for_each(|v| shape.fill(v))
                }
                _ => {}
            }
        }
    }
}

fn string() -> Value {
    Value::String(String::new())
}
fn array() -> Value {
    Value::Array(Vec::new())
}
fn object() -> Value {
    Value::Object(Map::new())
}

const CARD: Shape = Shape {
    required: &[
        ("name", string),
        ("description", string),
        ("supportedInterfaces", array),
        ("version", string),
        ("capabilities", object),
        ("defaultInputModes", array),
        ("defaultOutputModes", array),
        ("skills", array),
    ],
    nested: &[
        ("supportedInterfaces", Nested::Each(&INTERFACE)),
        ("provider", Nested::One(&PROVIDER)),
        ("skills", Nested::Each(&SKILL)),
        ("securitySchemes", Nested::Values(&SECURITY_SCHEME)),
    ],
};
const INTERFACE: Shape = Shape {
    required: &[("url", string), ("protocolBinding", string), ("protocolVersion", string)],
    nested: &[],
};
const PROVIDER: Shape = Shape { required: &[("url", string), ("organization", string)], nested: &[] };
const SKILL: Shape = Shape {
    required: &[("id", string), ("name", string), ("description", string), ("tags", array)],
    nested: &[],
};
const SECURITY_SCHEME: Shape = Shape {
    required: &[],
    nested: &[
        ("apiKeySecurityScheme", Nested::One(&API_KEY)),
        ("httpAuthSecurityScheme", Nested::One(&HTTP_AUTH)),
        ("oauth2SecurityScheme", Nested::One(&OAUTH2)),
        ("openIdConnectSecurityScheme", Nested::One(&OPEN_ID_CONNECT)),
    ],
};
const API_KEY: Shape = Shape { required: &[("location", string), ("name", string)], nested: &[] };
const HTTP_AUTH: Shape = Shape { required: &[("scheme", string)], nested: &[] };
const OPEN_ID_CONNECT: Shape = Shape { required: &[("openIdConnectUrl", string)], nested: &[] };
const OAUTH2: Shape = Shape { required: &[("flows", object)], nested: &[("flows", Nested::One(&FLOWS))] };
const FLOWS: Shape = Shape {
    required: &[],
    nested: &[
        ("authorizationCode", Nested::One(&AUTHORIZATION_CODE)),
        ("clientCredentials", Nested::One(&CLIENT_CREDENTIALS)),
        ("deviceCode", Nested::One(&DEVICE_CODE)),
    ],
};
const AUTHORIZATION_CODE: Shape = Shape {
    required: &[("authorizationUrl", string), ("tokenUrl", string), ("scopes", object)],
    nested: &[],
};
const CLIENT_CREDENTIALS: Shape =
    Shape { required: &[("tokenUrl", string), ("scopes", object)], nested: &[] };
const DEVICE_CODE: Shape = Shape {
    required: &[("deviceAuthorizationUrl", string), ("tokenUrl", string), ("scopes", object)],
    nested: &[],
};

#[cfg(test)]
mod tests {
    use a2a_proto::v1::AgentCapabilities;
    use serde_json::json;

    use super::*;

    /// The example of spec 8.4.1: required fields stay at their defaults, explicitly set optional
    /// fields stay, an empty repeated field goes.
    #[test]
    fn the_spec_example_canonicalizes_as_the_spec_says() {
        let card = AgentCard {
            name: "Example Agent".into(),
            capabilities: Some(AgentCapabilities {
                streaming: Some(false),
                push_notifications: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        };
        let mut document = card_json(&card);
        // The spec's fragment has no interfaces, version or modes: drop what it does not show.
        let object = document.as_object_mut().unwrap();
        for field in ["supportedInterfaces", "version", "defaultInputModes", "defaultOutputModes"] {
            assert_eq!(object.remove(field).map(|v| is_default(&v)), Some(true), "{field}");
        }
        assert_eq!(
            String::from_utf8(payload(&document).unwrap()).unwrap(),
            r#"{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}"#
        );
    }

    #[test]
    fn signatures_are_left_out_and_nested_required_fields_filled() {
        let document = json!({
            "signatures": [{"protected": "x", "signature": "y"}],
            "skills": [{"id": "s"}],
            "securitySchemes": {"k": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {}}}}},
        });
        let mut filled = document.clone();
        CARD.fill(&mut filled);
        assert_eq!(filled["skills"][0], json!({"id": "s", "name": "", "description": "", "tags": []}));
        assert_eq!(
            filled["securitySchemes"]["k"]["oauth2SecurityScheme"]["flows"]["clientCredentials"],
            json!({"tokenUrl": "", "scopes": {}})
        );
        let bytes = payload(&document).unwrap();
        assert!(!String::from_utf8(bytes).unwrap().contains("signatures"));
        assert!(matches!(payload(&json!([1])), Err(Error::NotAnObject)));
    }
}
