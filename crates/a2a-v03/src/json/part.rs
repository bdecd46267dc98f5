//! `Part`: 0.3's `kind`-discriminated `TextPart` / `FilePart` / `DataPart` vs 1.0's flat part.
//!
//! | 0.3 JSON | 0.3 ProtoJSON | 1.0 |
//! | --- | --- | --- |
//! | `{"kind":"text","text"}` | `{"text"}` | `text` |
//! | `{"kind":"file","file":{"bytes"}}` (base64) | `{"file":{"fileWithBytes"}}` | `raw` |
//! | `{"kind":"file","file":{"uri"}}` | `{"file":{"fileWithUri"}}` | `url` |
//! | `file.mimeType` | `file.mimeType` | `mediaType` |
//! | `file.name` | (none) | `filename` |
//! | `{"kind":"data","data":{..}}` | `{"data":{"data":{..}}}` | `data` |
//! | `metadata` | (none) | `metadata` |
//!
//! Decisions (also in the crate's table of lossy corners):
//! - A 0.3 file with both `bytes` and `uri` (the schema's `anyOf` allows it) keeps the bytes: the
//!   inline content needs no fetch; the URI is dropped.
//! - 1.0 data parts may hold any JSON value; 0.3 data must be an object. A non-object is written
//!   as `{"value": <data>}` with `metadata.data_part_compat: true` (a2a-python's convention), and
//!   that form is unwrapped again on input. The ProtoJSON form has no part metadata, so there the
//!   wrapping cannot be marked and stays.
//! - 1.0 `mediaType`/`filename` on text and data parts have no 0.3 place and are dropped.
//! - `fileWithBytes` (ProtoJSON/gRPC) holding the UTF-8 of base64 text rather than the bytes (what
//!   a2a-sdk's 0.3 layer sends) is detected and decoded once more, by the rule of
//!   [`ProtoFileBytes::read`](crate::ProtoFileBytes::read) ([`crate::file_bytes`] says why that
//!   rule); we write the bytes themselves, as the proto says (a client may choose otherwise,
//!   [`ProtoFileBytes::encode`](crate::ProtoFileBytes::encode)). The JSON form's `bytes` is
//!   base64 of the bytes in every SDK and is decoded exactly once.
//! - A 1.0 part without content (never valid, never produced by core) is written as an empty
//!   text part.

use a2a_core::{Error, Result};
use a2a_proto::v1::{part::Content, Part};
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use serde_json::{json, Map, Value};

use crate::convert::{Form, V03};
use crate::file_bytes::ProtoFileBytes;
use crate::read::{self, invalid, Obj};

/// The metadata key a2a-python sets when it wraps non-object data in `{"value": ..}`.
pub const DATA_PART_COMPAT: &str = "data_part_compat";

impl V03 for Part {
    fn from_v03(value: &Value) -> Result<Self> {
        read(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write(self, form)
    }
}

pub(crate) fn read(value: &Value, path: &str) -> Result<Part> {
    let o = Obj::new(value, path)?;
    let mut part = Part { metadata: o.structure("metadata")?, ..Default::default() };
    let kind = o.str("kind")?;
    match kind {
        Some("text") => part.content = Some(Content::Text(required_text(&o)?)),
        Some("file") => read_file(&o, &mut part)?,
        Some("data") => read_data(&o, &mut part, Form::Json)?,
        Some(other) => {
            return Err(invalid(
                &o.at("kind"),
                format!("must be \"text\", \"file\" or \"data\", got {other:?}"),
            ))
        }
        // No `kind`: the ProtoJSON form, where the member name is the discriminator.
        None if o.has("text") => part.content = Some(Content::Text(required_text(&o)?)),
        None if o.has("file") => read_file(&o, &mut part)?,
        None if o.has("data") => read_data(&o, &mut part, Form::ProtoJson)?,
        None => return Err(invalid(o.path(), "a part needs \"kind\": \"text\", \"file\" or \"data\"")),
    }
    Ok(part)
}

fn required_text(o: &Obj<'_>) -> Result<String> {
    o.str("text")?.map(str::to_owned).ok_or_else(|| invalid(&o.at("text"), "is required"))
}

fn read_file(o: &Obj<'_>, part: &mut Part) -> Result<()> {
    let file = o.obj("file")?.ok_or_else(|| invalid(&o.at("file"), "is required"))?;
    part.media_type = file.string_of(&["mimeType", "mime_type", "mediaType"])?;
    part.filename = file.string_of(&["name", "filename"])?;
    // Bytes win over a URI when both are present (see the module docs).
    part.content = Some(if let Some(text) = file.str("bytes")? {
        Content::Raw(decode_base64(text).ok_or_else(|| invalid(&file.at("bytes"), "must be base64"))?)
    } else if let Some(text) = file.str("fileWithBytes")? {
        let bytes =
            decode_base64(text).ok_or_else(|| invalid(&file.at("fileWithBytes"), "must be base64"))?;
        Content::Raw(ProtoFileBytes::read(bytes))
    } else if let Some((key, _)) = file.first(&["uri", "fileWithUri", "url"]) {
        Content::Url(file.string(key)?)
    } else {
        return Err(invalid(file.path(), "a file needs \"bytes\" or \"uri\""));
    });
    Ok(())
}

fn read_data(o: &Obj<'_>, part: &mut Part, form: Form) -> Result<()> {
    let data = o.get("data").ok_or_else(|| invalid(&o.at("data"), "is required"))?;
    let data = match form {
        // ProtoJSON: `{"data": {"data": {..}}}` (a DataPart message holding a Struct).
        Form::ProtoJson => {
            let inner = Obj::new(data, o.at("data"))?;
            match inner.get("data") {
                Some(value @ Value::Object(_)) => value.clone(),
                Some(_) => return Err(invalid(&inner.at("data"), "must be an object")),
                None => Value::Object(Map::new()),
            }
        }
        Form::Json => data.clone(),
    };
    let compat = part
        .metadata
        .as_ref()
        .and_then(|m| m.fields.get(DATA_PART_COMPAT))
        .is_some_and(|v| matches!(v.kind, Some(pbjson_types::value::Kind::BoolValue(true))));
    let value = match (compat, data) {
        (true, Value::Object(mut wrapped)) if wrapped.contains_key("value") => {
            if let Some(metadata) = part.metadata.as_mut() {
                metadata.fields.remove(DATA_PART_COMPAT);
                if metadata.fields.is_empty() {
                    part.metadata = None;
                }
            }
            wrapped.remove("value").unwrap_or_default()
        }
        (_, data) => data,
    };
    part.content = Some(Content::Data(read::to_pb_value(&value)));
    Ok(())
}

/// Base64 in any of the four common alphabets/padding variants (peers differ).
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD]
        .iter()
        .find_map(|engine| engine.decode(text).ok())
}

pub(crate) fn write(part: &Part, form: Form) -> Value {
    let mut object = Map::new();
    let mut metadata = part.metadata.as_ref().map(read::from_struct);
    match form {
        Form::Json => match &part.content {
            Some(Content::Text(text)) => {
                object.insert("kind".into(), "text".into());
                object.insert("text".into(), text.clone().into());
            }
            Some(Content::Raw(bytes)) => {
                object.insert("kind".into(), "file".into());
                object.insert("file".into(), file_json(part, "bytes", STANDARD.encode(bytes)));
            }
            Some(Content::Url(url)) => {
                object.insert("kind".into(), "file".into());
                object.insert("file".into(), file_json(part, "uri", url.clone()));
            }
            Some(Content::Data(data)) => {
                object.insert("kind".into(), "data".into());
                let data = read::from_pb_value(data);
                let data = if data.is_object() {
                    data
                } else {
                    metadata.get_or_insert_with(Map::new).insert(DATA_PART_COMPAT.into(), true.into());
                    json!({ "value": data })
                };
                object.insert("data".into(), data);
            }
            None => {
                object.insert("kind".into(), "text".into());
                object.insert("text".into(), "".into());
            }
        },
        Form::ProtoJson => {
            // The 0.3 proto's Part has no metadata and its FilePart no name.
            metadata = None;
            match &part.content {
                Some(Content::Text(text)) => {
                    object.insert("text".into(), text.clone().into());
                }
                Some(Content::Raw(bytes)) => {
                    object.insert("file".into(), file_proto(part, "fileWithBytes", STANDARD.encode(bytes)));
                }
                Some(Content::Url(url)) => {
                    object.insert("file".into(), file_proto(part, "fileWithUri", url.clone()));
                }
                Some(Content::Data(data)) => {
                    let data = read::from_pb_value(data);
                    let data = if data.is_object() { data } else { json!({ "value": data }) };
                    object.insert("data".into(), json!({ "data": data }));
                }
                None => {
                    object.insert("text".into(), "".into());
                }
            }
        }
    }
    if let Some(metadata) = metadata {
        object.insert("metadata".into(), Value::Object(metadata));
    }
    Value::Object(object)
}

fn file_json(part: &Part, key: &str, content: String) -> Value {
    let mut file = Map::new();
    file.insert(key.into(), content.into());
    if !part.media_type.is_empty() {
        file.insert("mimeType".into(), part.media_type.clone().into());
    }
    if !part.filename.is_empty() {
        file.insert("name".into(), part.filename.clone().into());
    }
    Value::Object(file)
}

fn file_proto(part: &Part, key: &str, content: String) -> Value {
    let mut file = Map::new();
    file.insert(key.into(), content.into());
    if !part.media_type.is_empty() {
        file.insert("mimeType".into(), part.media_type.clone().into());
    }
    Value::Object(file)
}

/// An error reading a part names its position; a helper for the readers of part lists.
pub(crate) fn read_all(items: Vec<(String, &Value)>) -> Result<Vec<Part>, Error> {
    items.into_iter().map(|(path, item)| read(item, &path)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(value: Value) -> Option<pbjson_types::Struct> {
        let Value::Object(map) = value else { unreachable!() };
        Some(read::to_struct(&map))
    }

    #[test]
    fn each_kind_maps_to_its_flat_1_0_field_and_back() {
        let cases = [
            (json!({"kind": "text", "text": "hi"}), Part::text("hi"), json!({"text": "hi"})),
            (
                json!({"kind": "file", "file": {"bytes": "aGk=", "mimeType": "text/plain", "name": "a.txt"}}),
                Part::raw(b"hi".to_vec(), "text/plain").with_filename("a.txt"),
                json!({"file": {"fileWithBytes": "aGk=", "mimeType": "text/plain"}}),
            ),
            (
                json!({"kind": "file", "file": {"uri": "https://x/y.png", "mimeType": "image/png"}}),
                Part::url("https://x/y.png", "image/png"),
                json!({"file": {"fileWithUri": "https://x/y.png", "mimeType": "image/png"}}),
            ),
            (
                json!({"kind": "data", "data": {"a": 1}}),
                Part::data(read::to_pb_value(&json!({"a": 1}))),
                json!({"data": {"data": {"a": 1}}}),
            ),
        ];
        for (v03, v1, proto) in cases {
            assert_eq!(Part::from_v03(&v03).unwrap(), v1, "{v03}");
            assert_eq!(v1.to_v03(Form::Json), v03);
            assert_eq!(v1.to_v03(Form::ProtoJson), proto);
            let mut back = Part::from_v03(&proto).unwrap();
            back.filename = v1.filename.clone(); // ProtoJSON has no file name
            assert_eq!(back, v1, "{proto}");
        }
    }

    #[test]
    fn part_metadata_survives_the_json_form_only() {
        let v03 = json!({"kind": "text", "text": "t", "metadata": {"k": [1, null]}});
        let part = Part::from_v03(&v03).unwrap();
        assert_eq!(part.metadata, meta(json!({"k": [1, null]})));
        assert_eq!(part.to_v03(Form::Json), v03);
        assert_eq!(part.to_v03(Form::ProtoJson), json!({"text": "t"}));
    }

    #[test]
    fn non_object_data_is_wrapped_with_the_compat_marker_and_unwrapped_on_input() {
        let part = Part::data(read::to_pb_value(&json!([1, "two"])));
        let v03 = part.to_v03(Form::Json);
        assert_eq!(
            v03,
            json!({"kind": "data", "data": {"value": [1, "two"]}, "metadata": {"data_part_compat": true}})
        );
        assert_eq!(Part::from_v03(&v03).unwrap(), part);
        assert_eq!(part.to_v03(Form::ProtoJson), json!({"data": {"data": {"value": [1, "two"]}}}));
    }

    #[test]
    fn a_file_with_bytes_and_uri_keeps_the_bytes() {
        let part = Part::from_v03(&json!({"kind": "file", "file": {"bytes": "aGk=", "uri": "https://x/y"}}))
            .unwrap();
        assert_eq!(part.content, Some(Content::Raw(b"hi".to_vec())));
    }

    #[test]
    fn base64_text_inside_proto_bytes_is_decoded_once_more() {
        // a2a-python 0.3 over REST/gRPC: fileWithBytes = base64(utf8("aGk=")).
        let python = json!({"file": {"fileWithBytes": STANDARD.encode("aGk=")}});
        assert_eq!(Part::from_v03(&python).unwrap().content, Some(Content::Raw(b"hi".to_vec())));
        // a2a-js and we: fileWithBytes = base64(bytes).
        let js = json!({"file": {"fileWithBytes": STANDARD.encode([0x89, b'P', b'N', b'G'])}});
        assert_eq!(Part::from_v03(&js).unwrap().content, Some(Content::Raw(vec![0x89, b'P', b'N', b'G'])));
        // The JSON form's `bytes` is base64 of the content, always decoded exactly once.
        let json_form = json!({"kind": "file", "file": {"bytes": STANDARD.encode("aGk=")}});
        assert_eq!(Part::from_v03(&json_form).unwrap().content, Some(Content::Raw(b"aGk=".to_vec())));
    }

    #[test]
    fn invalid_parts_name_the_field() {
        let cases = [
            (json!({"kind": "image"}), "kind"),
            (json!({"kind": "text"}), "text"),
            (json!({"kind": "text", "text": 5}), "text"),
            (json!({"kind": "file"}), "file"),
            (json!({"kind": "file", "file": {"mimeType": "a/b"}}), "file"),
            (json!({"kind": "file", "file": {"bytes": "not base64!"}}), "file.bytes"),
            (json!({"kind": "data"}), "data"),
            (json!({"raw": "aGk="}), "parts[0]"),
            (json!({"kind": "text", "text": "t", "metadata": []}), "metadata"),
        ];
        for (value, field) in cases {
            let err = read(&value, "parts[0]").unwrap_err();
            let expected = if field == "parts[0]" { field.to_owned() } else { format!("parts[0].{field}") };
            assert_eq!(err.field_violations()[0].field, expected, "{value}");
        }
    }
}
