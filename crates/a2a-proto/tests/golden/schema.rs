//! What the comparator needs to know about each message: for every JSON key, the proto field
//! behind it (type, repeated/map, explicit presence, `REQUIRED`), as [`a2a_proto::descriptor`]
//! describes it, and how ProtoJSON writes that field's values ([`Kind`]). The
//! `google.api.field_behavior` annotations are read from `proto/a2a.proto` itself: the embedded
//! descriptor set was decoded and re-encoded by prost, which drops extension options, so the
//! annotations are not in it.

use std::sync::OnceLock;

use a2a_proto::descriptor::{self, Descriptors, Message, Scalar, Type, WellKnown};
pub(crate) use a2a_proto::descriptor::{Field, Shape};

/// How one field's values are written in ProtoJSON.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Kind<'d> {
    /// A message of `lf.a2a.v1`, by full name without the leading dot.
    Message(&'d str),
    /// An enum, by full name: JSON holds the value's name (or its number).
    Enum(&'d str),
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

impl<'d> Kind<'d> {
    /// The kind of a field's values (of a map's values, for a map field).
    pub(crate) fn of(field: &'d Field) -> Kind<'d> {
        match &field.r#type {
            Type::Message(name) => Kind::Message(name),
            Type::Enum(name) => Kind::Enum(name),
            Type::WellKnown(WellKnown::Struct | WellKnown::Value | WellKnown::ListValue) => Kind::Data,
            Type::WellKnown(WellKnown::Timestamp) => Kind::Timestamp,
            Type::WellKnown(WellKnown::Other(name)) => {
                panic!("{name} has no ProtoJSON rule in this comparator yet")
            }
            Type::Scalar(Scalar::Bytes) => Kind::Bytes,
            Type::Scalar(Scalar::String) => Kind::String,
            Type::Scalar(Scalar::Bool) => Kind::Bool,
            Type::Scalar(Scalar::Double | Scalar::Float) => Kind::Float,
            Type::Scalar(_) => Kind::Integer,
        }
    }
}

/// The messages and enums of `lf.a2a.v1`.
#[derive(Debug)]
pub(crate) struct Schema {
    descriptors: &'static Descriptors,
}

impl Schema {
    /// The schema of the embedded descriptor set, checked once against the proto's `REQUIRED`
    /// annotations (that there are some is a unit test of `a2a_proto::required_fields`).
    pub(crate) fn get() -> &'static Schema {
        static SCHEMA: OnceLock<Schema> = OnceLock::new();
        SCHEMA.get_or_init(|| {
            let schema = Schema { descriptors: descriptor::v1() };
            for (message, field) in &a2a_proto::required_fields() {
                let full = format!("{}.{message}", a2a_proto::PACKAGE);
                assert!(
                    schema.field(&full, field).is_some_and(|f| f.required),
                    "REQUIRED {message}.{field} of a2a.proto is not in the descriptor set"
                );
            }
            schema
        })
    }

    fn message(&self, message: &str) -> &Message {
        self.descriptors.message(message).unwrap_or_else(|| panic!("no message {message} in the schema"))
    }

    /// The fields of a message (full name, e.g. `lf.a2a.v1.Task`), in declaration order.
    pub(crate) fn fields(&self, message: &str) -> &[Field] {
        &self.message(message).fields
    }

    /// The field a JSON key names: ProtoJSON parsers accept the JSON name and the proto name.
    pub(crate) fn field(&self, message: &str, key: &str) -> Option<&Field> {
        self.message(message).field(key)
    }

    /// The number of an enum value given by name.
    pub(crate) fn enum_number(&self, enum_name: &str, value_name: &str) -> Option<i32> {
        self.descriptors.enumeration(enum_name)?.number(value_name)
    }
}
