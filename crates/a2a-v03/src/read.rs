//! Reading 0.3 JSON liberally, with every error naming the offending field in 0.3 terms.
//!
//! [`Obj`] wraps a JSON object together with its path (`message.parts[1].file`), so that a wrong
//! type or a missing required member becomes [`Error::InvalidParams`] naming exactly that field.
//! `null` members read as absent everywhere (ProtoJSON's rule, and several SDKs send `null` for
//! empty optional fields); inside metadata objects `null` stays data.

use a2a_core::Error;
use a2a_proto::json::type_name;
use serde_json::{Map, Value};

/// `base` followed by `.key` (or just `key` at the root).
pub(crate) fn field(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_owned()
    } else {
        format!("{base}.{key}")
    }
}

/// `base[index]`.
pub(crate) fn index(base: &str, index: usize) -> String {
    format!("{base}[{index}]")
}

/// An invalid-params error for `path`; the root is called `params`.
pub(crate) fn invalid(path: &str, description: impl Into<String>) -> Error {
    Error::invalid_param(if path.is_empty() { "params" } else { path }, description)
}

/// Invalid params if `params` (a request's 0.3 params or body) nests deeper than the 1.0 bindings
/// accept ([`a2a_proto::json::MAX_DEPTH`]): what 0.3 takes in must fit the same protobuf messages.
pub(crate) fn check_depth(params: &Value) -> a2a_core::Result<()> {
    a2a_proto::json::check_depth(params).map_err(|e| invalid("", e.message()))
}

/// A JSON object being read, with its path.
#[derive(Debug, Clone)]
pub(crate) struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    /// `value` as an object; anything else is invalid.
    pub(crate) fn new(value: &'a Value, path: impl Into<String>) -> Result<Self, Error> {
        let path = path.into();
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            other => Err(invalid(&path, format!("must be an object, got {}", type_name(other)))),
        }
    }

    /// The path of this object.
    pub(crate) fn path(&self) -> &str {
        &self.path
    }

    /// The path of member `key`.
    pub(crate) fn at(&self, key: &str) -> String {
        field(&self.path, key)
    }

    /// Member `key`, `None` if absent or `null`.
    pub(crate) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    /// Whether member `key` is present and not `null`.
    pub(crate) fn has(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The first of `keys` that is present, with its key.
    pub(crate) fn first(&self, keys: &[&'static str]) -> Option<(&'static str, &'a Value)> {
        keys.iter().find_map(|key| self.get(key).map(|v| (*key, v)))
    }

    /// A string member.
    pub(crate) fn str(&self, key: &str) -> Result<Option<&'a str>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(invalid(&self.at(key), format!("must be a string, got {}", type_name(other)))),
        }
    }

    /// A string member, `""` when absent (proto3's default).
    pub(crate) fn string(&self, key: &str) -> Result<String, Error> {
        Ok(self.str(key)?.unwrap_or_default().to_owned())
    }

    /// The first present string member of `keys` (a 0.3 JSON name and its ProtoJSON spelling).
    pub(crate) fn string_of(&self, keys: &[&'static str]) -> Result<String, Error> {
        match self.first(keys) {
            Some((key, _)) => self.string(key),
            None => Ok(String::new()),
        }
    }

    /// A boolean member.
    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => {
                Err(invalid(&self.at(key), format!("must be a boolean, got {}", type_name(other))))
            }
        }
    }

    /// An integer member that fits an `i32`. ProtoJSON also allows integers as strings (`"5"`).
    pub(crate) fn int(&self, key: &str) -> Result<Option<i32>, Error> {
        let value = match self.get(key) {
            None => return Ok(None),
            Some(value) => value,
        };
        let parsed = match value {
            Value::Number(n) => {
                n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            }
            Value::String(s) => s.trim().parse::<i64>().ok(),
            _ => None,
        };
        parsed
            .and_then(|n| i32::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| invalid(&self.at(key), format!("must be an integer, got {value}")))
    }

    /// An object member.
    pub(crate) fn obj(&self, key: &str) -> Result<Option<Obj<'a>>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(value) => Obj::new(value, self.at(key)).map(Some),
        }
    }

    /// An array member as `(path, item)` pairs; absent is empty.
    pub(crate) fn array(&self, key: &str) -> Result<Vec<(String, &'a Value)>, Error> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => {
                let base = self.at(key);
                Ok(items.iter().enumerate().map(|(i, item)| (index(&base, i), item)).collect())
            }
            Some(other) => Err(invalid(&self.at(key), format!("must be an array, got {}", type_name(other)))),
        }
    }

    /// An array of strings; absent is empty.
    pub(crate) fn strings(&self, key: &str) -> Result<Vec<String>, Error> {
        self.array(key)?
            .into_iter()
            .map(|(path, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(invalid(&path, format!("must be a string, got {}", type_name(other)))),
            })
            .collect()
    }

    /// A free-form object member (`metadata`, `params`, `header`) as a protobuf `Struct`.
    pub(crate) fn structure(&self, key: &str) -> Result<Option<pbjson_types::Struct>, Error> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Object(map)) => Ok(Some(to_struct(map))),
            Some(other) => {
                Err(invalid(&self.at(key), format!("must be an object, got {}", type_name(other))))
            }
        }
    }

    /// The members, in order.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&'a String, &'a Value)> {
        self.map.iter().filter(|(_, v)| !v.is_null())
    }
}

pub(crate) use a2a_proto::json::{from_pb_value, from_struct, to_pb_value, to_struct};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_name_the_field_and_the_type() {
        let value = json!({"a": {"b": [1, "x"]}, "n": "7", "f": 2.5, "z": null});
        let root = Obj::new(&value, "params").unwrap();
        let a = root.obj("a").unwrap().unwrap();
        let err = a.strings("b").unwrap_err();
        assert_eq!(err.field_violations()[0].field, "params.a.b[0]");
        assert!(err.field_violations()[0].description.contains("a number"));
        assert_eq!(root.int("n").unwrap(), Some(7), "ProtoJSON integers may be strings");
        assert_eq!(root.int("f").unwrap_err().field_violations()[0].field, "params.f");
        assert_eq!(root.str("z").unwrap(), None, "null reads as absent");
        let err = Obj::new(&json!([1]), "").unwrap_err();
        assert_eq!(err.field_violations()[0].field, "params");
    }

    #[test]
    fn structs_keep_nulls_and_integers() {
        let value = json!({"i": 3, "f": 1.5, "n": null, "l": [true, {"x": -2}], "big": 1e300});
        let Value::Object(map) = &value else { unreachable!() };
        assert_eq!(Value::Object(from_struct(&to_struct(map))), value);
    }
}
