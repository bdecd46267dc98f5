//! The messages and enums of the A2A package as the embedded descriptor set describes them
//! ([`FILE_DESCRIPTOR_SET`](crate::FILE_DESCRIPTOR_SET)), decoded once: each message by full name
//! (nested ones included, map entries left to their map fields), each field with its proto and
//! JSON names, its type, whether it is repeated or a map, its oneof and whether a2a.proto
//! annotates it `REQUIRED` ([`required_fields`](crate::required_fields)), and each enum with its
//! values. The ProtoJSON reader ([`json`](crate::json)), `a2a-cli card get --validate` and the
//! golden tests read the messages from here.
//!
//! ```
//! use a2a_proto::descriptor::{self, Shape, Type, WellKnown};
//!
//! let card = descriptor::v1().message("lf.a2a.v1.AgentCard").unwrap();
//! let schemes = card.field("securitySchemes").unwrap(); // the JSON name, or `security_schemes`
//! assert_eq!(schemes.shape, Shape::Map);
//! assert_eq!(schemes.r#type, Type::Message("lf.a2a.v1.SecurityScheme".into()));
//! assert!(card.field("name").unwrap().required);
//!
//! let part = descriptor::v1().message("lf.a2a.v1.Part").unwrap();
//! let data = part.field("data").unwrap();
//! assert_eq!(data.r#type, Type::WellKnown(WellKnown::Value));
//! assert_eq!(data.oneof.as_deref(), Some("content"));
//! ```

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use prost::Message as _;
use prost_types::field_descriptor_proto::{Label, Type as ProtoType};
use prost_types::{DescriptorProto, EnumDescriptorProto, FieldDescriptorProto, FileDescriptorSet};

/// The messages and enums of one protobuf package: [`v1`], or `v0_3` (feature `v0_3`).
#[derive(Debug)]
pub struct Descriptors {
    messages: HashMap<String, Message>,
    enums: HashMap<String, Enum>,
}

/// A message of the package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The full name, `lf.a2a.v1.Task` (no leading dot).
    pub name: String,
    /// The fields, in declaration order.
    pub fields: Vec<Field>,
}

/// One field of a [`Message`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The proto name, `context_id`.
    pub name: String,
    /// The ProtoJSON name, `contextId`.
    pub json_name: String,
    /// The field number.
    pub number: i32,
    /// The type of the field's values; for a map field, of the map's values.
    pub r#type: Type,
    /// One value, a list, or a map.
    pub shape: Shape,
    /// The oneof the field belongs to (not the synthetic one of a proto3 `optional` field).
    pub oneof: Option<String>,
    /// A proto3 `optional` field.
    pub optional: bool,
    /// Annotated `[(google.api.field_behavior) = REQUIRED]` in a2a.proto
    /// ([`required_fields`](crate::required_fields)); never in 0.3's package.
    pub required: bool,
}

/// Whether a field holds one value, a list, or a map (string keys in ProtoJSON, values of the
/// field's [`Type`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One value.
    Single,
    /// `repeated`, not a map.
    Repeated,
    /// `map<K, V>`.
    Map,
}

/// The type of a field's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Type {
    /// A message, by full name (`lf.a2a.v1.Part`), not one of `google.protobuf`.
    Message(String),
    /// An enum, by full name (`lf.a2a.v1.TaskState`).
    Enum(String),
    /// A `google.protobuf` message, which ProtoJSON writes in its own way.
    WellKnown(WellKnown),
    /// A scalar.
    Scalar(Scalar),
}

/// A `google.protobuf` message type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WellKnown {
    /// `Struct`: a JSON object, all of it data.
    Struct,
    /// `Value`: any JSON, `null` included (`NULL_VALUE`).
    Value,
    /// `ListValue`: a JSON array.
    ListValue,
    /// `Timestamp`: an RFC 3339 string.
    Timestamp,
    /// Another one, by full name (`google.protobuf.Duration`); the A2A protos use none.
    Other(String),
}

/// A protobuf scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[allow(missing_docs)] // The protobuf types of the same names.
pub enum Scalar {
    Double,
    Float,
    Int32,
    Int64,
    Uint32,
    Uint64,
    Sint32,
    Sint64,
    Fixed32,
    Fixed64,
    Sfixed32,
    Sfixed64,
    Bool,
    String,
    Bytes,
}

/// An enum of the package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Enum {
    /// The full name, `lf.a2a.v1.TaskState`.
    pub name: String,
    /// The values, in declaration order.
    pub values: Vec<EnumValue>,
}

/// One value of an [`Enum`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumValue {
    /// The name, `TASK_STATE_WORKING`: what ProtoJSON writes.
    pub name: String,
    /// The number.
    pub number: i32,
}

/// The messages and enums of A2A 1.0 (package `lf.a2a.v1`, [`crate::FILE_DESCRIPTOR_SET`]),
/// decoded on first use.
pub fn v1() -> &'static Descriptors {
    static V1: OnceLock<Descriptors> = OnceLock::new();
    V1.get_or_init(|| {
        Descriptors::decode(crate::FILE_DESCRIPTOR_SET, crate::PACKAGE, &crate::required_fields())
    })
}

/// The messages and enums of A2A 0.3 (package `a2a.v1`, [`crate::FILE_DESCRIPTOR_SET_V0_3`]),
/// decoded on first use. No field is [`required`](Field::required): the annotations read are
/// those of the 1.0 proto.
#[cfg(feature = "v0_3")]
pub fn v0_3() -> &'static Descriptors {
    static V0_3: OnceLock<Descriptors> = OnceLock::new();
    V0_3.get_or_init(|| Descriptors::decode(crate::FILE_DESCRIPTOR_SET_V0_3, "a2a.v1", &HashSet::new()))
}

impl Descriptors {
    /// A message by full name (`lf.a2a.v1.Task`, no leading dot).
    pub fn message(&self, full_name: &str) -> Option<&Message> {
        self.messages.get(full_name)
    }

    /// An enum by full name (`lf.a2a.v1.TaskState`).
    pub fn enumeration(&self, full_name: &str) -> Option<&Enum> {
        self.enums.get(full_name)
    }

    /// The messages and enums of `package` in an encoded `FileDescriptorSet`; `required` holds the
    /// `(message, field)` pairs annotated `REQUIRED`, messages named relative to the package.
    fn decode(set: &[u8], package: &str, required: &HashSet<(&str, &str)>) -> Descriptors {
        let set = FileDescriptorSet::decode(set).expect("the embedded descriptor set decodes (tested)");
        let mut found = Vec::new();
        let mut enums = HashMap::new();
        for file in set.file.iter().filter(|file| file.package() == package) {
            for message in &file.message_type {
                collect(package, message, &mut found, &mut enums);
            }
            for e in &file.enum_type {
                add_enum(package, e, &mut enums);
            }
        }
        let by_name: HashMap<&str, &DescriptorProto> =
            found.iter().map(|(name, message)| (name.as_str(), *message)).collect();
        let messages = found
            .iter()
            .filter(|(_, message)| !is_map_entry(message))
            .map(|(name, message)| {
                let relative =
                    name.strip_prefix(package).and_then(|n| n.strip_prefix('.')).unwrap_or(name.as_str());
                let fields = message
                    .field
                    .iter()
                    .map(|field| {
                        let required = required.contains(&(relative, field.name()));
                        describe(field, message, &by_name, required)
                    })
                    .collect();
                (name.clone(), Message { name: name.clone(), fields })
            })
            .collect();
        Descriptors { messages, enums }
    }
}

impl Message {
    /// The field a JSON key names: its JSON name or its proto name (ProtoJSON parsers accept both).
    pub fn field(&self, key: &str) -> Option<&Field> {
        self.fields.iter().find(|field| field.json_name == key || field.name == key)
    }
}

impl Field {
    /// Explicit presence: a single message, oneof member or proto3 `optional` field, whose default
    /// value is still a value (`"streaming": false` is not the same as no `streaming`).
    pub fn has_presence(&self) -> bool {
        self.shape == Shape::Single
            && (self.oneof.is_some()
                || self.optional
                || matches!(self.r#type, Type::Message(_) | Type::WellKnown(_)))
    }
}

impl Enum {
    /// The number of the value named `name`.
    pub fn number(&self, name: &str) -> Option<i32> {
        self.values.iter().find(|value| value.name == name).map(|value| value.number)
    }
}

/// `message` (in `prefix`, a package or a message) and the messages and enums nested in it.
fn collect<'d>(
    prefix: &str,
    message: &'d DescriptorProto,
    found: &mut Vec<(String, &'d DescriptorProto)>,
    enums: &mut HashMap<String, Enum>,
) {
    let name = format!("{prefix}.{}", message.name());
    for nested in &message.nested_type {
        collect(&name, nested, found, enums);
    }
    for e in &message.enum_type {
        add_enum(&name, e, enums);
    }
    found.push((name, message));
}

fn add_enum(prefix: &str, e: &EnumDescriptorProto, enums: &mut HashMap<String, Enum>) {
    let name = format!("{prefix}.{}", e.name());
    let values =
        e.value.iter().map(|v| EnumValue { name: v.name().to_owned(), number: v.number() }).collect();
    enums.insert(name.clone(), Enum { name, values });
}

fn is_map_entry(message: &DescriptorProto) -> bool {
    message.options.as_ref().is_some_and(|o| o.map_entry())
}

fn describe(
    field: &FieldDescriptorProto,
    message: &DescriptorProto,
    messages: &HashMap<&str, &DescriptorProto>,
    required: bool,
) -> Field {
    let repeated = field.label() == Label::Repeated;
    let entry = match type_of(field) {
        Type::Message(name) if repeated => messages.get(name.as_str()).copied().filter(|m| is_map_entry(m)),
        _ => None,
    };
    let (r#type, shape) = match entry {
        Some(entry) => {
            let value = entry.field.iter().find(|f| f.number() == 2).expect("a map entry has a value field");
            (type_of(value), Shape::Map)
        }
        None if repeated => (type_of(field), Shape::Repeated),
        None => (type_of(field), Shape::Single),
    };
    let optional = field.proto3_optional();
    let oneof = field
        .oneof_index
        .filter(|_| !optional)
        .and_then(|i| message.oneof_decl.get(i as usize))
        .map(|o| o.name().to_owned());
    Field {
        name: field.name().to_owned(),
        json_name: field.json_name().to_owned(),
        number: field.number(),
        r#type,
        shape,
        oneof,
        optional,
        required,
    }
}

fn type_of(field: &FieldDescriptorProto) -> Type {
    let name = field.type_name().trim_start_matches('.');
    match field.r#type() {
        ProtoType::Message => match name {
            "google.protobuf.Struct" => Type::WellKnown(WellKnown::Struct),
            "google.protobuf.Value" => Type::WellKnown(WellKnown::Value),
            "google.protobuf.ListValue" => Type::WellKnown(WellKnown::ListValue),
            "google.protobuf.Timestamp" => Type::WellKnown(WellKnown::Timestamp),
            _ if name.starts_with("google.protobuf.") => Type::WellKnown(WellKnown::Other(name.to_owned())),
            _ => Type::Message(name.to_owned()),
        },
        ProtoType::Enum => Type::Enum(name.to_owned()),
        ProtoType::Group => panic!("{}: proto2 groups are not used by the A2A protos", field.name()),
        ProtoType::Double => Type::Scalar(Scalar::Double),
        ProtoType::Float => Type::Scalar(Scalar::Float),
        ProtoType::Int32 => Type::Scalar(Scalar::Int32),
        ProtoType::Int64 => Type::Scalar(Scalar::Int64),
        ProtoType::Uint32 => Type::Scalar(Scalar::Uint32),
        ProtoType::Uint64 => Type::Scalar(Scalar::Uint64),
        ProtoType::Sint32 => Type::Scalar(Scalar::Sint32),
        ProtoType::Sint64 => Type::Scalar(Scalar::Sint64),
        ProtoType::Fixed32 => Type::Scalar(Scalar::Fixed32),
        ProtoType::Fixed64 => Type::Scalar(Scalar::Fixed64),
        ProtoType::Sfixed32 => Type::Scalar(Scalar::Sfixed32),
        ProtoType::Sfixed64 => Type::Scalar(Scalar::Sfixed64),
        ProtoType::Bool => Type::Scalar(Scalar::Bool),
        ProtoType::String => Type::Scalar(Scalar::String),
        ProtoType::Bytes => Type::Scalar(Scalar::Bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost_types::{EnumValueDescriptorProto, FileDescriptorProto, MessageOptions, OneofDescriptorProto};

    fn message(name: &str) -> &'static Message {
        v1().message(name).unwrap_or_else(|| panic!("no {name}"))
    }

    fn field(message_name: &str, key: &str) -> &'static Field {
        message(message_name).field(key).unwrap_or_else(|| panic!("no {message_name}.{key}"))
    }

    #[test]
    fn every_message_of_the_package_is_described_and_no_other() {
        let set = FileDescriptorSet::decode(crate::FILE_DESCRIPTOR_SET).unwrap();
        let a2a = set.file.iter().find(|f| f.package() == crate::PACKAGE).unwrap();
        for proto in &a2a.message_type {
            let described = message(&format!("lf.a2a.v1.{}", proto.name()));
            assert_eq!(described.fields.len(), proto.field.len(), "{}", proto.name());
            let numbers: Vec<i32> = described.fields.iter().map(|f| f.number).collect();
            let expected: Vec<i32> = proto.field.iter().map(|f| f.number()).collect();
            assert_eq!(numbers, expected, "{}: the fields in declaration order", proto.name());
        }
        // a2a.proto nests only map entries, and those are described by their map fields.
        assert_eq!(v1().messages.len(), a2a.message_type.len());
        assert_eq!(v1().enums.len(), a2a.enum_type.len());
        assert!(v1().message("google.protobuf.Struct").is_none(), "another package");
        assert!(v1().message(".lf.a2a.v1.Task").is_none(), "full names have no leading dot");
    }

    #[test]
    fn fields_have_their_proto_and_json_names_number_and_type() {
        let context_id = field("lf.a2a.v1.Task", "contextId");
        assert_eq!(field("lf.a2a.v1.Task", "context_id"), context_id, "by proto name too");
        assert_eq!((context_id.name.as_str(), context_id.json_name.as_str()), ("context_id", "contextId"));
        assert_eq!(context_id.number, 2);
        assert_eq!(context_id.r#type, Type::Scalar(Scalar::String));
        assert_eq!(context_id.shape, Shape::Single);
        assert!(!context_id.has_presence(), "a plain proto3 scalar");
        assert!(message("lf.a2a.v1.Task").field("contextID").is_none());

        let history = field("lf.a2a.v1.Task", "history");
        assert_eq!(
            (history.r#type.clone(), history.shape),
            (Type::Message("lf.a2a.v1.Message".into()), Shape::Repeated)
        );
        let state = field("lf.a2a.v1.TaskStatus", "state");
        assert_eq!(state.r#type, Type::Enum("lf.a2a.v1.TaskState".into()));
        let timestamp = field("lf.a2a.v1.TaskStatus", "timestamp");
        assert_eq!(timestamp.r#type, Type::WellKnown(WellKnown::Timestamp));
        assert!(timestamp.has_presence(), "a message");
        assert_eq!(field("lf.a2a.v1.Task", "metadata").r#type, Type::WellKnown(WellKnown::Struct));
        assert_eq!(field("lf.a2a.v1.Part", "raw").r#type, Type::Scalar(Scalar::Bytes));
        assert_eq!(field("lf.a2a.v1.ListTasksResponse", "pageSize").r#type, Type::Scalar(Scalar::Int32));
    }

    #[test]
    fn a_map_field_has_the_type_of_its_values() {
        let schemes = field("lf.a2a.v1.AgentCard", "securitySchemes");
        assert_eq!(schemes.shape, Shape::Map);
        assert_eq!(schemes.r#type, Type::Message("lf.a2a.v1.SecurityScheme".into()));
        assert!(!schemes.has_presence());
        let scopes = field("lf.a2a.v1.AuthorizationCodeOAuthFlow", "scopes");
        assert_eq!((scopes.shape, scopes.r#type.clone()), (Shape::Map, Type::Scalar(Scalar::String)));
        assert!(
            v1().message("lf.a2a.v1.AgentCard.SecuritySchemesEntry").is_none(),
            "entries are no messages"
        );
    }

    #[test]
    fn oneof_members_and_proto3_optional_fields() {
        let part = message("lf.a2a.v1.Part");
        let content: Vec<&str> = part
            .fields
            .iter()
            .filter(|f| f.oneof.as_deref() == Some("content"))
            .map(|f| f.name.as_str())
            .collect();
        assert_eq!(content, ["text", "raw", "url", "data"]);
        let text = field("lf.a2a.v1.Part", "text");
        assert!(text.has_presence() && !text.optional, "a oneof member");
        assert_eq!(field("lf.a2a.v1.Part", "data").r#type, Type::WellKnown(WellKnown::Value));
        assert_eq!(field("lf.a2a.v1.Part", "filename").oneof, None);

        let streaming = field("lf.a2a.v1.AgentCapabilities", "streaming");
        assert!(streaming.optional && streaming.has_presence());
        assert_eq!(streaming.oneof, None, "not the synthetic oneof of `optional`");
        assert_eq!(streaming.r#type, Type::Scalar(Scalar::Bool));
    }

    #[test]
    fn enums_have_their_values_by_name_and_number() {
        let state = v1().enumeration("lf.a2a.v1.TaskState").unwrap();
        assert_eq!(state.values[0], EnumValue { name: "TASK_STATE_UNSPECIFIED".into(), number: 0 });
        assert_eq!(state.number("TASK_STATE_WORKING"), Some(2));
        assert_eq!(state.number("WORKING"), None);
        assert_eq!(v1().enumeration("lf.a2a.v1.Role").unwrap().number("ROLE_USER"), Some(1));
        assert!(v1().enumeration("lf.a2a.v1.Task").is_none());
    }

    #[test]
    fn required_fields_are_those_a2a_proto_annotates() {
        let required = crate::required_fields();
        for (message_name, field_name) in &required {
            let full = format!("lf.a2a.v1.{message_name}");
            assert!(field(&full, field_name).required, "{message_name}.{field_name}");
        }
        let marked: usize =
            v1().messages.values().map(|m| m.fields.iter().filter(|f| f.required).count()).sum();
        assert_eq!(marked, required.len(), "and no other field");
        assert!(field("lf.a2a.v1.AgentCard", "name").required);
        assert!(field("lf.a2a.v1.AuthorizationCodeOAuthFlow", "scopes").required, "a map");
        assert!(!field("lf.a2a.v1.Message", "metadata").required);
    }

    #[cfg(feature = "v0_3")]
    #[test]
    fn the_0_3_package_is_described_without_required_fields() {
        let card = v0_3().message("a2a.v1.AgentCard").unwrap();
        assert_eq!(card.field("url").unwrap().r#type, Type::Scalar(Scalar::String));
        assert!(card.field("supportedInterfaces").is_none(), "a 1.0 field");
        assert!(v0_3().message("lf.a2a.v1.AgentCard").is_none());
        assert!(v0_3().messages.values().all(|m| m.fields.iter().all(|f| !f.required)));
        assert_eq!(v0_3().enumeration("a2a.v1.TaskState").unwrap().number("TASK_STATE_WORKING"), Some(2));
    }

    /// The A2A protos nest nothing but map entries: a set that does shows the walk's names.
    #[test]
    fn nested_messages_and_enums_are_described_by_full_name() {
        let scalar = |name: &str, number: i32, r#type: ProtoType| FieldDescriptorProto {
            name: Some(name.into()),
            json_name: Some(name.into()),
            number: Some(number),
            label: Some(Label::Optional as i32),
            r#type: Some(r#type as i32),
            ..Default::default()
        };
        let reference = |name: &str, number: i32, r#type: ProtoType, type_name: &str| FieldDescriptorProto {
            type_name: Some(type_name.into()),
            ..scalar(name, number, r#type)
        };
        let entry = DescriptorProto {
            name: Some("LabelsEntry".into()),
            field: vec![scalar("key", 1, ProtoType::String), scalar("value", 2, ProtoType::Int64)],
            options: Some(MessageOptions { map_entry: Some(true), ..Default::default() }),
            ..Default::default()
        };
        let inner = DescriptorProto {
            name: Some("Inner".into()),
            field: vec![
                reference("colour", 1, ProtoType::Enum, ".t.Outer.Inner.Colour"),
                FieldDescriptorProto {
                    label: Some(Label::Repeated as i32),
                    ..reference("labels", 2, ProtoType::Message, ".t.Outer.Inner.LabelsEntry")
                },
                FieldDescriptorProto { oneof_index: Some(0), ..scalar("a", 3, ProtoType::String) },
                FieldDescriptorProto {
                    oneof_index: Some(1),
                    proto3_optional: Some(true),
                    ..scalar("b", 4, ProtoType::Bool)
                },
            ],
            nested_type: vec![entry],
            enum_type: vec![EnumDescriptorProto {
                name: Some("Colour".into()),
                value: vec![EnumValueDescriptorProto {
                    name: Some("RED".into()),
                    number: Some(0),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            oneof_decl: vec![
                OneofDescriptorProto { name: Some("choice".into()), ..Default::default() },
                OneofDescriptorProto { name: Some("_b".into()), ..Default::default() },
            ],
            ..Default::default()
        };
        let outer = DescriptorProto {
            name: Some("Outer".into()),
            field: vec![reference("inner", 1, ProtoType::Message, ".t.Outer.Inner")],
            nested_type: vec![inner],
            ..Default::default()
        };
        let file = FileDescriptorProto {
            name: Some("t.proto".into()),
            package: Some("t".into()),
            message_type: vec![outer],
            ..Default::default()
        };
        let set = FileDescriptorSet { file: vec![file] }.encode_to_vec();
        let required = HashSet::from([("Outer.Inner", "a"), ("Inner", "b")]);
        let described = Descriptors::decode(&set, "t", &required);

        let mut names: Vec<&str> = described.messages.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["t.Outer", "t.Outer.Inner"], "the map entry is no message");
        let outer = described.message("t.Outer").unwrap();
        assert_eq!(outer.field("inner").unwrap().r#type, Type::Message("t.Outer.Inner".into()));
        let inner = described.message("t.Outer.Inner").unwrap();
        assert_eq!(inner.field("colour").unwrap().r#type, Type::Enum("t.Outer.Inner.Colour".into()));
        assert_eq!(described.enumeration("t.Outer.Inner.Colour").unwrap().number("RED"), Some(0));
        let labels = inner.field("labels").unwrap();
        assert_eq!((labels.shape, labels.r#type.clone()), (Shape::Map, Type::Scalar(Scalar::Int64)));
        let (a, b) = (inner.field("a").unwrap(), inner.field("b").unwrap());
        assert_eq!((a.oneof.as_deref(), b.oneof.as_deref()), (Some("choice"), None));
        assert!(b.optional && !a.optional);
        assert!(a.required, "named relative to the package");
        assert!(!b.required, "`Inner` alone names no message of the package");
        assert!(Descriptors::decode(&set, "other", &required).messages.is_empty());
    }
}
