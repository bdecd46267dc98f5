//! Query parameters (spec 11.5) to and from the JSON object of a request message.
//!
//! GET and DELETE carry their request fields as camelCase query parameters. The server turns the
//! query into a JSON object and leaves every ProtoJSON rule (enum names, timestamps, int ranges)
//! to [`a2a_proto::json::from_value`], so there is one parser for bodies and queries alike. Each
//! field is also parsed on its own, so an unparsable value is reported naming its field.
//!
//! - Names: the JSON (camelCase) name; the proto (snake_case) name is accepted too, as ProtoJSON
//!   parsers accept both in bodies. Unknown parameters are ignored (spec 5.7), which is also how
//!   the `A2A-Version` parameter (spec 3.6.1, a service parameter: `ServiceParams::with_query_version`) passes.
//! - Values (spec 11.5): strings as they are; numbers in decimal; booleans `true`/`false`
//!   (any case); enums by name (`TASK_STATE_WORKING`) or number; timestamps as ISO 8601 (RFC 3339,
//!   as ProtoJSON `Timestamp`). Repeated fields by repetition or comma-separated. An empty value
//!   means "absent". A non-repeated parameter given twice is an error (which one would win?).

use a2a_core::error::FieldViolation;
use a2a_core::Error;
use a2a_proto::descriptor::{Message, Scalar, Shape, Type, WellKnown};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// How a query value becomes a JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A JSON string, as is.
    String,
    /// A JSON number (`int32`).
    Int32,
    /// `true` / `false`.
    Bool,
    /// An enum: a name stays a string, a number becomes a number (ProtoJSON accepts both).
    Enum,
    /// A `google.protobuf.Timestamp`: its RFC 3339 string.
    Timestamp,
}

/// One request field that may come as a query parameter.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QueryField {
    /// The JSON (camelCase) name, which is the query parameter name.
    pub(crate) json: &'static str,
    /// The proto (snake_case) name, accepted as well.
    pub(crate) proto: &'static str,
    pub(crate) kind: Kind,
    pub(crate) repeated: bool,
}

/// The fields of request message `T` that a query can carry: its scalar, enum and timestamp
/// fields (single or repeated), read from a2a.proto's descriptors; messages, maps and bytes
/// cannot be query parameters (spec 11.5). Path variables are among them: a query value for one
/// must agree with the path. Operations served only by POST read no query.
pub(crate) fn fields<T: prost::Name>() -> Vec<QueryField> {
    a2a_proto::descriptor::v1().message(&T::full_name()).map(query_fields).unwrap_or_default()
}

/// The query fields of `message` (see [`fields`]).
fn query_fields(message: &'static Message) -> Vec<QueryField> {
    message
        .fields
        .iter()
        .filter(|field| field.shape != Shape::Map)
        .filter_map(|field| {
            let kind = match &field.r#type {
                Type::Scalar(Scalar::String) => Kind::String,
                Type::Scalar(Scalar::Int32 | Scalar::Sint32 | Scalar::Sfixed32) => Kind::Int32,
                Type::Scalar(Scalar::Bool) => Kind::Bool,
                Type::Enum(_) => Kind::Enum,
                Type::WellKnown(WellKnown::Timestamp) => Kind::Timestamp,
                _ => return None,
            };
            Some(QueryField {
                json: &field.json_name,
                proto: &field.name,
                kind,
                repeated: field.shape == Shape::Repeated,
            })
        })
        .collect()
}

/// Turns a raw query string into the JSON object of request message `T`, keeping only `fields`
/// (of `T`: [`fields`]). Every unparsable value becomes a violation naming its field; all are
/// reported together.
pub(crate) fn to_json<T: DeserializeOwned + prost::Name>(
    query: Option<&str>,
    fields: &[QueryField],
) -> Result<Map<String, Value>, Error> {
    let mut collected: Vec<(QueryField, Vec<String>)> = Vec::new();
    for (key, value) in url::form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
        let Some(field) = fields.iter().find(|f| f.json == key || f.proto == key) else {
            continue; // spec 5.7: ignore what we do not know
        };
        match collected.iter_mut().find(|(f, _)| f.json == field.json) {
            Some((_, values)) => values.push(value.into_owned()),
            None => collected.push((*field, vec![value.into_owned()])),
        }
    }
    let mut object = Map::new();
    let mut violations = Vec::new();
    for (field, raw) in collected {
        let value = match convert(&field, &raw) {
            Ok(Some(value)) => value,
            Ok(None) => continue,
            Err(description) => {
                violations.push(FieldViolation { field: field.json.into(), description });
                continue;
            }
        };
        // Parse the field alone so that a failure names it (an unknown enum value, a bad
        // timestamp, an int out of range).
        let alone = Map::from_iter([(field.json.to_owned(), value.clone())]);
        if let Err(err) = a2a_proto::json::from_value::<T>(Value::Object(alone)) {
            violations.push(FieldViolation {
                field: field.json.into(),
                description: format!("invalid value `{}`: {err}", raw.join(",")),
            });
            continue;
        }
        object.insert(field.json.to_owned(), value);
    }
    if violations.is_empty() {
        Ok(object)
    } else {
        Err(Error::InvalidParams { violations })
    }
}

/// One field's query values as a JSON value; `None` when every value is empty (absent).
fn convert(field: &QueryField, raw: &[String]) -> Result<Option<Value>, String> {
    if field.repeated {
        let items = raw
            .iter()
            .flat_map(|value| value.split(','))
            .filter(|item| !item.is_empty())
            .map(|item| scalar(field.kind, item))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok((!items.is_empty()).then_some(Value::Array(items)));
    }
    let present: Vec<&String> = raw.iter().filter(|value| !value.is_empty()).collect();
    match present.as_slice() {
        [] => Ok(None),
        [value] => scalar(field.kind, value).map(Some),
        several => Err(format!("expected one value, got {}", several.len())),
    }
}

fn scalar(kind: Kind, raw: &str) -> Result<Value, String> {
    Ok(match kind {
        Kind::String | Kind::Timestamp => Value::String(raw.to_owned()),
        Kind::Int32 => match raw.trim().parse::<i32>() {
            Ok(number) => Value::from(number),
            Err(_) => return Err(format!("expected a 32-bit integer, got `{raw}`")),
        },
        Kind::Bool => match raw.trim() {
            t if t.eq_ignore_ascii_case("true") => Value::Bool(true),
            f if f.eq_ignore_ascii_case("false") => Value::Bool(false),
            _ => return Err(format!("expected `true` or `false`, got `{raw}`")),
        },
        Kind::Enum => match raw.trim().parse::<i64>() {
            Ok(number) => Value::from(number),
            Err(_) => Value::String(raw.to_owned()),
        },
    })
}

/// Client side: the query pairs of a request's JSON object (path-bound fields already removed).
/// Scalars become one pair, arrays one pair per item; objects cannot be expressed (spec 11.5) and
/// no GET/DELETE request message has any.
pub(crate) fn to_pairs(object: &Map<String, Value>) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for (key, value) in object {
        let items = match value {
            Value::Array(items) => items.as_slice(),
            single => std::slice::from_ref(single),
        };
        for item in items {
            let text = match item {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                Value::Null | Value::Array(_) | Value::Object(_) => continue,
            };
            pairs.push((key.clone(), text));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use a2a_proto::v1::{GetTaskRequest, ListTasksRequest, TaskState};
    use serde_json::json;

    use super::*;

    fn list(query: &str) -> Result<ListTasksRequest, Error> {
        let object = to_json::<ListTasksRequest>(Some(query), &fields::<ListTasksRequest>())?;
        Ok(a2a_proto::json::from_value(Value::Object(object)).unwrap())
    }

    fn violations(error: Error) -> Vec<(String, String)> {
        error.field_violations().iter().map(|v| (v.field.clone(), v.description.clone())).collect()
    }

    #[test]
    fn spec_11_5_list_tasks_example_parses() {
        let request = list("contextId=uuid&status=TASK_STATE_WORKING&pageSize=50&pageToken=cursor").unwrap();
        assert_eq!(request.context_id, "uuid");
        assert_eq!(request.status(), TaskState::Working);
        assert_eq!(request.page_size, Some(50));
        assert_eq!(request.page_token, "cursor");
    }

    #[test]
    fn every_list_tasks_parameter_type_is_converted() {
        let request = list(
            "historyLength=3&statusTimestampAfter=2025-11-09T10%3A30%3A00Z&includeArtifacts=true&tenant=t",
        )
        .unwrap();
        assert_eq!(request.history_length, Some(3));
        assert_eq!(request.status_timestamp_after.unwrap().seconds, 1_762_684_200);
        assert_eq!(request.include_artifacts, Some(true));
        assert_eq!(request.tenant, "t");
        assert_eq!(list("includeArtifacts=FALSE").unwrap().include_artifacts, Some(false));
    }

    #[test]
    fn enum_by_number_and_snake_case_names_are_accepted() {
        let request = list("status=2&page_size=7&context_id=c").unwrap();
        assert_eq!(request.status(), TaskState::Working);
        assert_eq!(request.page_size, Some(7));
        assert_eq!(request.context_id, "c");
    }

    #[test]
    fn unknown_parameters_and_empty_values_are_ignored() {
        let request = list("foo=bar&A2A-Version=1.0&pageSize=&status=").unwrap();
        assert_eq!(request, ListTasksRequest::default());
    }

    #[test]
    fn range_checks_are_left_to_the_handler() {
        let request = list("pageSize=150&historyLength=-5").unwrap();
        assert_eq!((request.page_size, request.history_length), (Some(150), Some(-5)));
    }

    #[test]
    fn unparsable_values_are_reported_naming_each_field() {
        let error = list(
            "pageSize=ten&includeArtifacts=yes&status=TASK_STATE_RUNNING&statusTimestampAfter=yesterday",
        )
        .unwrap_err();
        let found = violations(error);
        let fields: Vec<&str> = found.iter().map(|(f, _)| f.as_str()).collect();
        assert_eq!(fields, ["pageSize", "includeArtifacts", "status", "statusTimestampAfter"]);
        assert!(found[0].1.contains("`ten`"), "{found:?}");
        assert!(found[2].1.contains("TASK_STATE_WORKING"), "lists the valid values: {found:?}");
    }

    #[test]
    fn out_of_range_int32_is_unparsable() {
        let found = violations(list("historyLength=99999999999").unwrap_err());
        assert_eq!(found[0].0, "historyLength");
    }

    #[test]
    fn a_single_valued_parameter_given_twice_is_rejected() {
        let found = violations(list("pageSize=1&pageSize=2").unwrap_err());
        assert_eq!(found, [("pageSize".to_owned(), "expected one value, got 2".to_owned())]);
    }

    #[test]
    fn repeated_fields_accept_repetition_and_commas() {
        let tags = QueryField { json: "tags", proto: "tags", kind: Kind::String, repeated: true };
        assert_eq!(
            convert(&tags, &["a,b".into(), "c".into(), String::new()]).unwrap(),
            Some(json!(["a", "b", "c"]))
        );
        let sizes = QueryField { json: "sizes", proto: "sizes", kind: Kind::Int32, repeated: true };
        assert_eq!(convert(&sizes, &["1,2".into()]).unwrap(), Some(json!([1, 2])));
        assert!(convert(&sizes, &["1,x".into()]).is_err());
    }

    #[test]
    fn client_pairs_round_trip_through_the_server_parser() {
        let request = ListTasksRequest {
            context_id: "c 1&x".into(),
            status: TaskState::InputRequired.into(),
            page_size: Some(0),
            include_artifacts: Some(false),
            status_timestamp_after: Some(a2a_proto::Timestamp { seconds: 1_700_000_000, nanos: 5_000_000 }),
            ..Default::default()
        };
        let Value::Object(object) = serde_json::to_value(&request).unwrap() else { unreachable!() };
        let query =
            url::form_urlencoded::Serializer::new(String::new()).extend_pairs(to_pairs(&object)).finish();
        assert_eq!(list(&query).unwrap(), request);
    }

    #[test]
    fn get_task_reads_history_length_only() {
        let object =
            to_json::<GetTaskRequest>(Some("historyLength=0&contextId=x"), &fields::<GetTaskRequest>())
                .unwrap();
        assert_eq!(Value::Object(object), json!({"historyLength": 0}));
    }
}
