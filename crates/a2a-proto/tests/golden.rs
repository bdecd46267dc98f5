//! ProtoJSON golden tests: the JSON examples of the A2A 1.0 specification (sections 4, 6, 8.5, 9,
//! 10, 11), copied into `tests/fixtures/`, parsed with [`a2a_proto::json::from_slice`] into the
//! message each one shows, written back with `serde_json`, and compared with the original under
//! ProtoJSON equivalence (see `golden/compare.rs`, whose own tests show it can fail).
//!
//! `tests/fixtures/README.md` is the index: every example of those sections, the fixture it became
//! (and any correction made to it) or why it was left out. The [`FIXTURES`] table below must agree
//! with it; a test checks that.
//!
//! `golden/scalars.rs` pins the ProtoJSON spelling of bytes, enums and timestamps.

#[path = "golden/compare.rs"]
mod compare;
#[path = "golden/scalars.rs"]
mod scalars;
#[path = "golden/schema.rs"]
mod schema;

use std::collections::BTreeSet;
use std::path::PathBuf;

use a2a_proto::v1::{
    AgentCard, Artifact, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, Message,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest,
};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use schema::{Schema, Shape};

/// One spec example: its fixture file, its section, and the message it parses as.
struct Fixture {
    file: &'static str,
    section: &'static str,
    /// The message's short name, as in the index (`SendMessageRequest`).
    message: &'static str,
    /// The message's full name (`lf.a2a.v1.SendMessageRequest`).
    full_name: fn() -> String,
    /// Parse with the crate's JSON boundary, serialize back, and check that the output re-parses
    /// to the same message.
    round_trip: fn(&[u8]) -> Result<Value, String>,
}

/// Parse, serialize, and check that what was written parses back to the same message.
fn round_trip<T>(bytes: &[u8]) -> Result<Value, String>
where
    T: DeserializeOwned + Serialize + prost::Name + PartialEq + std::fmt::Debug,
{
    let parsed: T = a2a_proto::json::from_slice(bytes).map_err(|e| format!("parse: {e}"))?;
    let written = serde_json::to_value(&parsed).map_err(|e| format!("serialize: {e}"))?;
    let again: T = a2a_proto::json::from_value(written.clone())
        .map_err(|e| format!("the written JSON does not parse: {e}\n  written: {written}"))?;
    if again != parsed {
        return Err(format!("the written JSON parses to another message:\n  {parsed:?}\n  {again:?}"));
    }
    Ok(written)
}

macro_rules! fixture {
    ($file:literal, $section:literal, $message:ident) => {
        Fixture {
            file: $file,
            section: $section,
            message: stringify!($message),
            full_name: <$message as prost::Name>::full_name,
            round_trip: round_trip::<$message>,
        }
    };
}

/// Every fixture, in spec order. `tests/fixtures/README.md` has the same rows, with the example's
/// origin and any correction.
const FIXTURES: &[Fixture] = &[
    fixture!("4.6.1-agent-card-with-extensions.json", "4.6.1", AgentCard),
    fixture!("4.6.1-send-message-request-with-extensions.json", "4.6.1", SendMessageRequest),
    fixture!("4.6.2-message-with-extension-metadata.json", "4.6.2", Message),
    fixture!("4.6.2-artifact-with-extension-metadata.json", "4.6.2", Artifact),
    fixture!("6.1-send-message-request.json", "6.1", SendMessageRequest),
    fixture!("6.1-send-message-response.json", "6.1", SendMessageResponse),
    fixture!("6.2-send-streaming-message-request.json", "6.2", SendMessageRequest),
    fixture!("6.2-stream-response-1-task.json", "6.2", StreamResponse),
    fixture!("6.2-stream-response-2-artifact-update.json", "6.2", StreamResponse),
    fixture!("6.2-stream-response-3-status-update.json", "6.2", StreamResponse),
    fixture!("6.3-send-message-request-initial.json", "6.3", SendMessageRequest),
    fixture!("6.3-send-message-response-input-required.json", "6.3", SendMessageResponse),
    fixture!("6.3-send-message-request-follow-up.json", "6.3", SendMessageRequest),
    fixture!("6.4-send-message-request.json", "6.4", SendMessageRequest),
    fixture!("6.5-list-tasks-response-by-context.json", "6.5", ListTasksResponse),
    fixture!("6.5-list-tasks-response-working.json", "6.5", ListTasksResponse),
    fixture!("6.5-list-tasks-response-pagination.json", "6.5", ListTasksResponse),
    fixture!("6.6-send-message-request-push-config.json", "6.6", SendMessageRequest),
    fixture!("6.6-send-message-response-submitted.json", "6.6", SendMessageResponse),
    fixture!("6.6-webhook-stream-response.json", "6.6", StreamResponse),
    fixture!("6.7-send-message-request-file-upload.json", "6.7", SendMessageRequest),
    fixture!("6.7-send-message-response-file-reference.json", "6.7", SendMessageResponse),
    fixture!("6.8-send-message-request-structured.json", "6.8", SendMessageRequest),
    fixture!("6.8-send-message-response-structured.json", "6.8", SendMessageResponse),
    fixture!("8.5-agent-card.json", "8.5", AgentCard),
    fixture!("9.4.3-get-task-request.json", "9.4.3", GetTaskRequest),
    fixture!("9.4.4-list-tasks-request.json", "9.4.4", ListTasksRequest),
    fixture!("9.4.5-cancel-task-request.json", "9.4.5", CancelTaskRequest),
    fixture!("9.4.6-subscribe-to-task-request.json", "9.4.6", SubscribeToTaskRequest),
    fixture!("11.2-send-message-request.json", "11.2", SendMessageRequest),
    fixture!("11.4-send-message-request.json", "11.4", SendMessageRequest),
    fixture!("11.4-send-message-response.json", "11.4", SendMessageResponse),
];

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests").join("fixtures")
}

fn read(file: &str) -> Vec<u8> {
    let path = fixtures_dir().join(file);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn spec_examples_round_trip_under_protojson_equivalence() {
    let mut failures = Vec::new();
    for fixture in FIXTURES {
        let bytes = read(fixture.file);
        let heading = format!("{} (spec {}, {})", fixture.file, fixture.section, fixture.message);
        let expected: Value = match serde_json::from_slice(&bytes) {
            Ok(value) => value,
            Err(e) => {
                failures.push(format!("{heading}: the fixture is not JSON: {e}"));
                continue;
            }
        };
        let got = match (fixture.round_trip)(&bytes) {
            Ok(value) => value,
            Err(e) => {
                failures.push(format!("{heading}: {e}"));
                continue;
            }
        };
        let mismatches = compare::diff(&(fixture.full_name)(), &expected, &got);
        if !mismatches.is_empty() {
            failures.push(format!(
                "{heading}: {} mismatch(es)\n{}  written: {got}",
                mismatches.len(),
                compare::render(&mismatches)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixtures do not round-trip:\n\n{}",
        failures.len(),
        FIXTURES.len(),
        failures.join("\n\n")
    );
}

/// A golden test is only as good as its fixtures: each must be a valid 1.0 object, so examples
/// that elide a `REQUIRED` field (spec 5.7) were completed (see the index). Presence means the key
/// is there and not `null`; 5.7's "at least one element" for required arrays is not checked.
#[test]
fn every_fixture_carries_the_fields_a2a_proto_marks_required() {
    let mut missing = Vec::new();
    for fixture in FIXTURES {
        let value: Value = serde_json::from_slice(&read(fixture.file)).unwrap();
        let mut found = Vec::new();
        missing_required(Schema::get(), &(fixture.full_name)(), &value, "$", &mut found);
        missing.extend(found.into_iter().map(|path| format!("{}: {path}", fixture.file)));
    }
    assert!(missing.is_empty(), "REQUIRED fields missing:\n{}", missing.join("\n"));
}

fn missing_required(schema: &Schema, message: &str, value: &Value, path: &str, out: &mut Vec<String>) {
    let Value::Object(object) = value else { return };
    for field in schema.fields(message) {
        let item = compare::lookup(object, field).filter(|v| !v.is_null());
        let field_path = format!("{path}.{}", field.json_name);
        let Some(item) = item else {
            if field.required {
                out.push(field_path);
            }
            continue;
        };
        let schema::Kind::Message(inner) = schema::Kind::of(field) else { continue };
        match (field.shape, item) {
            (Shape::Single, _) => missing_required(schema, inner, item, &field_path, out),
            (Shape::Repeated, Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    missing_required(schema, inner, item, &format!("{field_path}[{i}]"), out);
                }
            }
            (Shape::Map, Value::Object(entries)) => {
                for (key, entry) in entries {
                    missing_required(schema, inner, entry, &format!("{field_path}[{key:?}]"), out);
                }
            }
            _ => {}
        }
    }
}

/// No fixture is left out of the table, and the table and `fixtures/README.md` agree on every
/// file, section and message.
#[test]
fn fixture_table_directory_and_index_agree() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    let in_table: BTreeSet<String> = FIXTURES.iter().map(|f| f.file.to_owned()).collect();
    assert_eq!(on_disk, in_table, "fixture files vs the FIXTURES table");
    assert_eq!(in_table.len(), FIXTURES.len(), "a fixture is listed twice");

    let readme = String::from_utf8(read("README.md")).unwrap();
    let indexed: BTreeSet<(String, String, String)> = readme
        .lines()
        .filter(|line| line.starts_with("| `") && line.contains(".json`"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let unquote = |cell: &str| cell.trim_matches('`').to_owned();
            (unquote(cells[1]), cells[2].to_owned(), unquote(cells[3]))
        })
        .collect();
    let table: BTreeSet<(String, String, String)> =
        FIXTURES.iter().map(|f| (f.file.to_owned(), f.section.to_owned(), f.message.to_owned())).collect();
    assert_eq!(indexed, table, "fixtures/README.md rows (file, section, message) vs the FIXTURES table");
    for fixture in FIXTURES {
        assert!(
            fixture.file.starts_with(&format!("{}-", fixture.section)),
            "{} is named after its section",
            fixture.file
        );
        assert_eq!((fixture.full_name)(), format!("{}.{}", a2a_proto::PACKAGE, fixture.message));
    }
}
