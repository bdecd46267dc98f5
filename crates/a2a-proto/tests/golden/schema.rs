//! What the comparator needs to know about each message: for every JSON key, the proto field
//! behind it (kind, repeated/map, explicit presence, `REQUIRED`), read from
//! [`a2a_proto::FILE_DESCRIPTOR_SET`], plus the `google.api.field_behavior` annotations read from
//! `proto/a2a.proto` itself: the embedded descriptor set was decoded and re-encoded by prost,
//! which drops extension options, so the annotations are not in it.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type};
use prost_types::{DescriptorProto, FieldDescriptorProto};

/// How one field's value is written in ProtoJSON.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A message of `lf.a2a.v1`, by full name without the leading dot.
    Message(String),
    /// An enum, by full name: JSON holds the value's name (or its number).
    Enum(String),
    /// `google.protobuf.Struct`, `Value`, `ListValue`: plain JSON, all of it data.
    Data,
    /// `google.protobuf.Timestamp`: an RFC 3339 string.
    Timestamp,
    /// `bytes`: base64.
    Bytes,
    String,
    Bool,
    /// Any integer type (64-bit ones may be quoted).
    Integer,
    /// `float`, `double`.
    Float,
}

/// Whether a field holds one value, a list, or a map (whose values have the field's kind).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Shape {
    Single,
    Repeated,
    Map,
}

/// One field of a message.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    /// The proto name, `context_id`.
    pub(crate) name: String,
    /// The ProtoJSON name, `contextId`.
    pub(crate) json_name: String,
    pub(crate) kind: Kind,
    pub(crate) shape: Shape,
    /// Explicit presence: a message, a oneof member or a proto3 `optional` field. Its default
    /// value is still a value (`"streaming": false` is not the same as no `streaming`).
    pub(crate) presence: bool,
    /// Annotated `[(google.api.field_behavior) = REQUIRED]`.
    pub(crate) required: bool,
}

/// The fields of every message of `lf.a2a.v1`, and the values of every enum.
#[derive(Debug)]
pub(crate) struct Schema {
    messages: HashMap<String, Vec<Field>>,
    enums: HashMap<String, HashMap<String, i32>>,
}

impl Schema {
    /// The schema of the embedded descriptor set, built once.
    pub(crate) fn get() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(Schema::build)
    }

    /// The fields of a message (full name, e.g. `lf.a2a.v1.Task`), in declaration order.
    pub(crate) fn fields(&self, message: &str) -> &[Field] {
        self.messages.get(message).unwrap_or_else(|| panic!("no message {message} in the schema"))
    }

    /// The field a JSON key names: ProtoJSON parsers accept the JSON name and the proto name.
    pub(crate) fn field(&self, message: &str, key: &str) -> Option<&Field> {
        self.fields(message).iter().find(|f| f.json_name == key || f.name == key)
    }

    /// The number of an enum value given by name.
    pub(crate) fn enum_number(&self, enum_name: &str, value_name: &str) -> Option<i32> {
        self.enums.get(enum_name)?.get(value_name).copied()
    }

    fn build() -> Schema {
        let set = prost_types::FileDescriptorSet::decode(a2a_proto::FILE_DESCRIPTOR_SET)
            .expect("the embedded descriptor set decodes");
        let required = required_fields();
        let mut descriptors = HashMap::new();
        let mut enums = HashMap::new();
        for file in &set.file {
            let prefix = file.package().to_owned();
            for message in &file.message_type {
                collect(&prefix, message, &mut descriptors);
            }
            for e in &file.enum_type {
                let values = e.value.iter().map(|v| (v.name().to_owned(), v.number())).collect();
                enums.insert(format!("{prefix}.{}", e.name()), values);
            }
        }
        let mut messages = HashMap::new();
        for (name, message) in &descriptors {
            if !name.starts_with(&format!("{}.", a2a_proto::PACKAGE)) || is_map_entry(message) {
                continue;
            }
            let fields = message
                .field
                .iter()
                .map(|field| {
                    let mut shape =
                        if field.label() == Label::Repeated { Shape::Repeated } else { Shape::Single };
                    let mut kind = kind_of(field);
                    if let Kind::Message(entry) = &kind {
                        if let Some(entry) = descriptors.get(entry).filter(|m| is_map_entry(m)) {
                            shape = Shape::Map;
                            kind = entry.field.iter().find(|f| f.number() == 2).map(kind_of).unwrap();
                        }
                    }
                    let presence = shape == Shape::Single
                        && (field.oneof_index.is_some()
                            || field.proto3_optional()
                            || field.r#type() == Type::Message);
                    let short_name = name.rsplit('.').next().unwrap();
                    Field {
                        name: field.name().to_owned(),
                        json_name: field.json_name().to_owned(),
                        kind,
                        shape,
                        presence,
                        required: required.contains(&(short_name.to_owned(), field.name().to_owned())),
                    }
                })
                .collect();
            messages.insert(name.clone(), fields);
        }
        let schema = Schema { messages, enums };
        for (message, field) in &required {
            let full = format!("{}.{message}", a2a_proto::PACKAGE);
            assert!(
                schema.field(&full, field).is_some_and(|f| f.required),
                "REQUIRED {message}.{field} of a2a.proto is not in the descriptor set"
            );
        }
        schema
    }
}

fn collect(prefix: &str, message: &DescriptorProto, out: &mut HashMap<String, DescriptorProto>) {
    let name = format!("{prefix}.{}", message.name());
    for nested in &message.nested_type {
        collect(&name, nested, out);
    }
    out.insert(name, message.clone());
}

fn is_map_entry(message: &DescriptorProto) -> bool {
    message.options.as_ref().is_some_and(|o| o.map_entry())
}

fn kind_of(field: &FieldDescriptorProto) -> Kind {
    let type_name = field.type_name().trim_start_matches('.');
    match field.r#type() {
        Type::Message => match type_name {
            "google.protobuf.Struct" | "google.protobuf.Value" | "google.protobuf.ListValue" => Kind::Data,
            "google.protobuf.Timestamp" => Kind::Timestamp,
            name if name.starts_with("google.protobuf.") => {
                panic!("{name} has no ProtoJSON rule in this comparator yet")
            }
            name => Kind::Message(name.to_owned()),
        },
        Type::Enum => Kind::Enum(type_name.to_owned()),
        Type::Bytes => Kind::Bytes,
        Type::String => Kind::String,
        Type::Bool => Kind::Bool,
        Type::Double | Type::Float => Kind::Float,
        Type::Group => panic!("proto2 groups are not used by a2a.proto"),
        _ => Kind::Integer,
    }
}

/// `(message, field)` pairs annotated `REQUIRED` in `proto/a2a.proto`, as the crate reads them.
fn required_fields() -> HashSet<(String, String)> {
    let out: HashSet<(String, String)> =
        a2a_proto::required_fields().into_iter().map(|(m, f)| (m.to_owned(), f.to_owned())).collect();
    assert!(out.len() > 50, "a2a.proto annotates about 60 fields REQUIRED, found {}", out.len());
    out
}
