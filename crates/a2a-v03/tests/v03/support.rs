//! Test support: fixtures, the 0.3 JSON Schema (`a2a.json`) and the 0.3 proto descriptors as
//! validators of what the crate writes, and a readable diff.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

pub(crate) use a2a_test_support::assert_json_eq;
use prost_reflect::{DescriptorPool, DynamicMessage};
use serde_json::{json, Value};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// A JSON fixture by file name under `tests/fixtures`.
pub(crate) fn fixture(name: &str) -> Value {
    let path = fixtures_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every JSON example of the 0.3 specification, `(file name, value)`, in spec order.
pub(crate) fn spec_examples() -> Vec<(String, Value)> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir().join("spec"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.ends_with(".json"))
        .collect();
    names.sort();
    names.into_iter().map(|name| (name.clone(), fixture(&format!("spec/{name}")))).collect()
}

fn validator(definition: &str) -> Arc<jsonschema::Validator> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<jsonschema::Validator>>>> = OnceLock::new();
    static DOC: OnceLock<Value> = OnceLock::new();
    let doc = DOC.get_or_init(|| fixture("a2a.json"));
    let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
    cache
        .entry(definition.to_owned())
        .or_insert_with(|| {
            assert!(doc["definitions"].get(definition).is_some(), "a2a.json has no definition {definition}");
            let schema = json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "$ref": format!("#/definitions/{definition}"),
                "definitions": doc["definitions"],
            });
            Arc::new(jsonschema::draft7::new(&schema).expect("a2a.json compiles"))
        })
        .clone()
}

/// Panics, listing every violation, unless `instance` is valid against `a2a.json`'s `definition`.
#[track_caller]
pub(crate) fn assert_schema_valid(definition: &str, instance: &Value) {
    let validator = validator(definition);
    let errors: Vec<String> =
        validator.iter_errors(instance).map(|e| format!("  at {}: {e}", e.instance_path())).collect();
    assert!(
        errors.is_empty(),
        "not a valid 0.3 {definition}:\n{}\n{}",
        errors.join("\n"),
        serde_json::to_string_pretty(instance).unwrap()
    );
}

/// Whether `instance` is valid against `a2a.json`'s `definition`.
pub(crate) fn schema_valid(definition: &str, instance: &Value) -> bool {
    validator(definition).is_valid(instance)
}

fn pool() -> &'static DescriptorPool {
    static POOL: OnceLock<DescriptorPool> = OnceLock::new();
    POOL.get_or_init(|| {
        DescriptorPool::decode(a2a_proto::FILE_DESCRIPTOR_SET_V0_3).expect("0.3 descriptors decode")
    })
}

/// Why `instance` is not ProtoJSON of the 0.3 proto message `a2a.v1.{message}`, with unknown
/// fields denied (stricter than pbjson, which ignores them); `None` if it is.
pub(crate) fn proto_error(message: &str, instance: &Value) -> Option<String> {
    let name = format!("a2a.v1.{message}");
    let descriptor = pool().get_message_by_name(&name).unwrap_or_else(|| panic!("no message {name}"));
    DynamicMessage::deserialize(descriptor, instance.clone()).err().map(|e| e.to_string())
}

/// Panics unless `instance` is ProtoJSON of the 0.3 proto message `a2a.v1.{message}`.
#[track_caller]
pub(crate) fn assert_proto_valid(message: &str, instance: &Value) {
    if let Some(error) = proto_error(message, instance) {
        panic!(
            "not ProtoJSON of 0.3 a2a.v1.{message}: {error}\n{}",
            serde_json::to_string_pretty(instance).unwrap()
        );
    }
}

/// A JSON-RPC success response around `result`.
pub(crate) fn success(result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": result})
}

/// A JSON-RPC request of `method` with `params` (omitted when `None`).
pub(crate) fn request(method: &str, params: Option<Value>) -> Value {
    let mut request = json!({"jsonrpc": "2.0", "id": 1, "method": method});
    if let Some(params) = params {
        request["params"] = params;
    }
    request
}
