//! The JSON writer behind [`to_vec`](super::to_vec), [`extend_vec`](super::extend_vec),
//! [`to_string`](super::to_string) and [`write_json`](super::write_json): a serialization-only
//! `serde::Serializer` whose output is, byte for byte, what `serde_json::to_vec` writes (compact
//! form), written with fewer instructions.
//!
//! Why: serde_json 1.0.154 escapes every string one byte at a time (a table lookup and a branch
//! per byte in `format_escaped_str_contents`, then a `write_all` per run), struct keys included.
//! In the callgrind profile of an echo SendMessage over JSON-RPC (docs/benchmarks.md, fourth pass)
//! the reply's JSON cost ~9.3k of ~95k instructions per request, `format_escaped_str` alone
//! ~5.5k. Here a string is checked eight bytes at a time (SWAR on a `u64`: is any byte `"`, `\`
//! or below 0x20? see [`escapes`]). A string of at most 40 bytes that needs no escape (nearly every
//! key, id, enum name and timestamp of an A2A message) is put together with its punctuation in a
//! buffer on the stack and appended with copies of constant size ([`Staged`]): no `memcpy` call,
//! no `push` per quote, comma or colon, which for such short strings cost more than their bytes.
//! Other strings are copied a clean run at a time. A writer of our own rather than sonic-rs or
//! simd-json: those bring large dependency trees (and number formatting of their own, so other
//! bytes) for one function. Numbers are written by the crates serde_json itself uses (`itoa`, and
//! `zmij` for floats), so they come out the same.
//!
//! Every `Serializer` method does what serde_json's compact `Serializer` does, including what it
//! writes when a `Serialize` impl announces a length of 0 and then adds elements, what map keys it
//! accepts (strings, integers, booleans, chars and finite floats, quoted) and its errors for the
//! others (the same `serde_json::Error`, made by serde_json itself), and `RawValue` (the crate
//! turns serde_json's `raw_value` feature on, so that serde_json and this writer agree on it in
//! every build). The one difference: a `Display` value given to `collect_str` that fails on its
//! own makes serde_json panic ("there should be an error"); here it is an error.
//! `tests/json_writer.rs` compares the two over the spec's fixtures and generated values.

use std::fmt::{self, Display, Write as _};

use serde::ser::{self, Error as _, Impossible, Serialize, SerializeMap as _};
use serde_json::Error;

/// What the writer appends to. Only whole `&str`s and ASCII bytes are appended, so a `String` is
/// a sink as well as a `Vec<u8>`, without a UTF-8 check of the result.
pub(crate) trait Sink {
    /// Appends `text`.
    fn put(&mut self, text: &str);
    /// Appends `byte`, which is ASCII.
    fn put_ascii(&mut self, byte: u8);
    /// Appends `value` as the contents of a JSON string (escaped, without the quotes).
    fn put_escaped(&mut self, value: &str);
    /// Appends `value` as a JSON string.
    #[inline]
    fn put_quoted(&mut self, value: &str) {
        self.put_ascii(b'"');
        self.put_escaped(value);
        self.put_ascii(b'"');
    }
    /// Appends a struct field's key, `"key":`, after a comma if `comma`.
    #[inline]
    fn put_key(&mut self, comma: bool, key: &str) {
        if comma {
            self.put_ascii(b',');
        }
        self.put_quoted(key);
        self.put_ascii(b':');
    }
}

impl Sink for Vec<u8> {
    #[inline]
    fn put(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }

    #[inline]
    fn put_ascii(&mut self, byte: u8) {
        self.push(byte);
    }

    fn put_escaped(&mut self, value: &str) {
        escape_runs(self, value);
    }

    fn put_quoted(&mut self, value: &str) {
        let mut staged = Staged::new();
        if staged.stage(value) {
            staged.bytes[2 + value.len()] = b'"';
            staged.append(false, 3 + value.len(), self);
        } else {
            escape_slowly(self, false, value, b'"');
        }
    }

    fn put_key(&mut self, comma: bool, key: &str) {
        let mut staged = Staged::new();
        if staged.stage(key) {
            staged.bytes[2 + key.len()] = b'"';
            staged.bytes[3 + key.len()] = b':';
            staged.append(comma, 4 + key.len(), self);
        } else {
            escape_slowly(self, comma, key, b':');
        }
    }
}

/// [`Sink::put_quoted`] and [`Sink::put_key`] of a `Vec<u8>` for a string that [`Staged`] does not
/// take: `,` if `comma`, then the string quoted, then `last` unless it is the closing quote.
#[inline(never)]
fn escape_slowly(out: &mut Vec<u8>, comma: bool, value: &str, last: u8) {
    if comma {
        out.push(b',');
    }
    out.push(b'"');
    escape_runs(out, value);
    out.push(b'"');
    if last != b'"' {
        out.push(last);
    }
}

/// The longest string [`Staged`] takes (an id is 36 bytes).
const STAGED: usize = 40;

/// A short string that needs no escape, with the punctuation around it (`,"` before, `"` or `":`
/// after), put together in a buffer on the stack and appended with copies of a constant size.
/// Cheaper than the general path for the short strings of A2A messages (keys, ids, enum names,
/// timestamps) because it makes no call: a `memcpy` call and a `Vec::push` per punctuation byte
/// cost more instructions than such a string's bytes.
struct Staged {
    /// `,"` then the string, from index 2; the bytes after it are the caller's to set.
    bytes: [u8; STAGED + 8],
}

impl Staged {
    #[inline(always)]
    fn new() -> Self {
        let mut bytes = [0; STAGED + 8];
        bytes[0] = b',';
        bytes[1] = b'"';
        Staged { bytes }
    }

    /// Whether `value` is at most [`STAGED`] bytes long and needs no escape; if so, it is in
    /// `bytes[2..2 + value.len()]`.
    #[inline(always)]
    fn stage(&mut self, value: &str) -> bool {
        let bytes = value.as_bytes();
        if bytes.len() > STAGED {
            return false;
        }
        let mut marks = 0;
        let mut words = bytes.chunks_exact(8);
        // Five slots of eight bytes from index 2: as many as a string of STAGED bytes fills.
        let mut slots = self.bytes[2..].chunks_exact_mut(8);
        for (word, slot) in (&mut words).zip(&mut slots) {
            marks |= escapes(u64::from_le_bytes(word.try_into().unwrap_or_default()));
            slot.copy_from_slice(word);
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let word = partial_word(rest);
            marks |= escapes(word);
            // A partial word follows at most four whole ones: its slot is there.
            if let Some(slot) = slots.next() {
                slot.copy_from_slice(&word.to_le_bytes());
            }
        }
        marks == 0
    }

    /// Appends `bytes[..end]` to `out`, without the comma unless `comma`: all the bytes (a copy
    /// of constant size: no `memcpy` call), then the length set back to `end`.
    #[inline(always)]
    fn append(&self, comma: bool, end: usize, out: &mut Vec<u8>) {
        let len = out.len();
        if comma {
            out.extend_from_slice(&self.bytes);
            out.truncate(len + end);
        } else {
            out.extend_from_slice(&self.bytes[1..]);
            out.truncate(len + end - 1);
        }
    }
}

impl Sink for String {
    #[inline]
    fn put(&mut self, text: &str) {
        self.push_str(text);
    }

    #[inline]
    fn put_ascii(&mut self, byte: u8) {
        debug_assert!(byte.is_ascii());
        self.push(char::from(byte));
    }

    fn put_escaped(&mut self, value: &str) {
        escape_runs(self, value);
    }
}

/// Appends `value` as JSON to `out`. On error, `out` holds what was written before the error.
pub(crate) fn write<S: Sink + Default, T: Serialize + ?Sized>(out: &mut S, value: &T) -> Result<(), Error> {
    // The sink is moved into the writer (and back): one monomorphization per sink type, not one
    // per sink type and borrow.
    let mut writer = Writer { out: std::mem::take(out) };
    let result = value.serialize(&mut writer);
    *out = writer.out;
    result
}

/// The serializer: `&mut Writer` implements `serde::Serializer`.
struct Writer<S> {
    out: S,
}

/// Where a sequence or map is: serde_json's `State`. `Empty`: announced with length 0, so already
/// closed (`[]`, `{}`); `First`: nothing written yet; `Rest`: a comma before the next element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Empty,
    First,
    Rest,
}

/// A sequence, tuple, map or struct being written; `Raw` is a `serde_json::value::RawValue`.
enum Compound<'a, S> {
    Map { writer: &'a mut Writer<S>, state: State },
    Raw { writer: &'a mut Writer<S> },
}

/// The struct name and field name `serde_json::value::RawValue` serializes itself with.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<S: Sink> Writer<S> {
    #[inline]
    fn integer<I: itoa::Integer>(&mut self, value: I) {
        self.out.put(itoa::Buffer::new().format(value));
    }

    #[inline]
    fn float<F: zmij::Float>(&mut self, value: F) {
        self.out.put(zmij::Buffer::new().format_finite(value));
    }

    /// `[` and, announced empty, `]` at once (serde_json's `serialize_seq`).
    #[inline]
    fn begin_seq(&mut self, len: Option<usize>) -> Compound<'_, S> {
        self.out.put_ascii(b'[');
        let state = if len == Some(0) {
            self.out.put_ascii(b']');
            State::Empty
        } else {
            State::First
        };
        Compound::Map { writer: self, state }
    }

    /// `{` and, announced empty, `}` at once (serde_json's `serialize_map`).
    #[inline]
    fn begin_map(&mut self, len: Option<usize>) -> Compound<'_, S> {
        self.out.put_ascii(b'{');
        let state = if len == Some(0) {
            self.out.put_ascii(b'}');
            State::Empty
        } else {
            State::First
        };
        Compound::Map { writer: self, state }
    }

    /// `{"variant":` of an enum variant with content.
    #[inline]
    fn begin_variant(&mut self, variant: &str) {
        self.out.put_ascii(b'{');
        write_str(&mut self.out, variant);
        self.out.put_ascii(b':');
    }

    /// A string written by `Display`, escaped as it comes.
    fn display<T: Display + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        struct Escaper<'a, S>(&'a mut S);
        impl<S: Sink> fmt::Write for Escaper<'_, S> {
            fn write_str(&mut self, text: &str) -> fmt::Result {
                self.0.put_escaped(text);
                Ok(())
            }
        }
        self.out.put_ascii(b'"');
        write!(Escaper(&mut self.out), "{value}")
            .map_err(|_| Error::custom("a Display implementation returned an error unexpectedly"))?;
        self.out.put_ascii(b'"');
        Ok(())
    }
}

/// The ten `serialize_{i,u}{8,16,32,64,128}` methods of a `Serializer`, each running `$body` with
/// the serializer as `$this` and the integer as `$value`.
macro_rules! integers {
    (|$this:ident, $value:ident| $body:expr) => {
        integers!(@each $this $value $body; serialize_i8 i8, serialize_i16 i16, serialize_i32 i32,
            serialize_i64 i64, serialize_i128 i128, serialize_u8 u8, serialize_u16 u16,
            serialize_u32 u32, serialize_u64 u64, serialize_u128 u128);
    };
    (@each $this:ident $value:ident $body:expr; $($method:ident $ty:ty),*) => {
        $(
            #[inline]
            fn $method(self, $value: $ty) -> Result<(), Error> {
                let $this = self;
                $body
            }
        )*
    };
}

impl<'a, S: Sink> ser::Serializer for &'a mut Writer<S> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Compound<'a, S>;
    type SerializeTuple = Compound<'a, S>;
    type SerializeTupleStruct = Compound<'a, S>;
    type SerializeTupleVariant = Compound<'a, S>;
    type SerializeMap = Compound<'a, S>;
    type SerializeStruct = Compound<'a, S>;
    type SerializeStructVariant = Compound<'a, S>;

    #[inline]
    fn serialize_bool(self, value: bool) -> Result<(), Error> {
        self.out.put(if value { "true" } else { "false" });
        Ok(())
    }

    integers!(|writer, value| {
        writer.integer(value);
        Ok(())
    });

    /// NaN and the infinities are `null`, as serde_json writes them.
    #[inline]
    fn serialize_f32(self, value: f32) -> Result<(), Error> {
        if value.is_finite() {
            self.float(value);
        } else {
            self.out.put("null");
        }
        Ok(())
    }

    /// NaN and the infinities are `null`, as serde_json writes them.
    #[inline]
    fn serialize_f64(self, value: f64) -> Result<(), Error> {
        if value.is_finite() {
            self.float(value);
        } else {
            self.out.put("null");
        }
        Ok(())
    }

    #[inline]
    fn serialize_char(self, value: char) -> Result<(), Error> {
        write_str(&mut self.out, value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    #[inline]
    fn serialize_str(self, value: &str) -> Result<(), Error> {
        write_str(&mut self.out, value);
        Ok(())
    }

    /// An array of numbers, as serde_json writes bytes.
    fn serialize_bytes(self, value: &[u8]) -> Result<(), Error> {
        self.out.put_ascii(b'[');
        for (i, byte) in value.iter().enumerate() {
            if i > 0 {
                self.out.put_ascii(b',');
            }
            self.integer(*byte);
        }
        self.out.put_ascii(b']');
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<(), Error> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<(), Error> {
        self.out.put("null");
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        self.serialize_unit()
    }

    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.begin_variant(variant);
        value.serialize(&mut *self)?;
        self.out.put_ascii(b'}');
        Ok(())
    }

    #[inline]
    fn serialize_seq(self, len: Option<usize>) -> Result<Compound<'a, S>, Error> {
        Ok(self.begin_seq(len))
    }

    #[inline]
    fn serialize_tuple(self, len: usize) -> Result<Compound<'a, S>, Error> {
        Ok(self.begin_seq(Some(len)))
    }

    #[inline]
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Compound<'a, S>, Error> {
        Ok(self.begin_seq(Some(len)))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, S>, Error> {
        self.begin_variant(variant);
        Ok(self.begin_seq(Some(len)))
    }

    #[inline]
    fn serialize_map(self, len: Option<usize>) -> Result<Compound<'a, S>, Error> {
        Ok(self.begin_map(len))
    }

    #[inline]
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Compound<'a, S>, Error> {
        if name == RAW_VALUE_TOKEN {
            return Ok(Compound::Raw { writer: self });
        }
        Ok(self.begin_map(Some(len)))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Compound<'a, S>, Error> {
        self.begin_variant(variant);
        Ok(self.begin_map(Some(len)))
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.display(value)
    }
}

/// Only `serialize_struct` makes a `Raw` compound, and serde_json's `RawValue` only uses it as a
/// struct; serde_json would panic (`unreachable!`) if another `Serialize` impl did otherwise.
fn not_a_struct() -> Error {
    Error::custom("a RawValue used as something other than a struct")
}

impl<S: Sink> Compound<'_, S> {
    /// The comma before every element but the first (serde_json's `begin_array_value` and
    /// `begin_object_key`: after an empty announced length too).
    #[inline]
    fn next(writer: &mut Writer<S>, state: &mut State) {
        if *state != State::First {
            writer.out.put_ascii(b',');
        }
        *state = State::Rest;
    }

    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        match self {
            Compound::Map { writer, state } => {
                Self::next(writer, state);
                value.serialize(&mut **writer)
            }
            Compound::Raw { .. } => Err(not_a_struct()),
        }
    }

    /// Closes with `close` unless announced empty (then already closed).
    #[inline]
    fn close(self, close: u8) -> Result<(), Error> {
        match self {
            Compound::Map { writer, state } => {
                if state != State::Empty {
                    writer.out.put_ascii(close);
                }
                Ok(())
            }
            Compound::Raw { .. } => Err(not_a_struct()),
        }
    }

    /// A struct field: `,"key":value`, the key a `&'static str` (no map key rules to apply).
    #[inline]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        match self {
            Compound::Map { writer, state } => {
                writer.out.put_key(*state != State::First, key);
                *state = State::Rest;
                value.serialize(&mut **writer)
            }
            Compound::Raw { writer } => {
                if key == RAW_VALUE_TOKEN {
                    value.serialize(RawValueText { writer: &mut **writer })
                } else {
                    Err(raw_value_field_error())
                }
            }
        }
    }

    /// The `}` after a variant's content.
    fn close_variant(self, close: u8) -> Result<(), Error> {
        match self {
            Compound::Map { writer, state } => {
                if state != State::Empty {
                    writer.out.put_ascii(close);
                }
                writer.out.put_ascii(b'}');
                Ok(())
            }
            Compound::Raw { .. } => Err(not_a_struct()),
        }
    }
}

/// The array-like compounds (a sequence, a tuple, a tuple struct): each element after a comma,
/// then `]`. Only the trait and its method's name differ.
macro_rules! arrays {
    ($($trait:ident::$method:ident),*) => {$(
        impl<S: Sink> ser::$trait for Compound<'_, S> {
            type Ok = ();
            type Error = Error;

            #[inline]
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.element(value)
            }

            #[inline]
            fn end(self) -> Result<(), Error> {
                self.close(b']')
            }
        }
    )*};
}

arrays!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl<S: Sink> ser::SerializeTupleVariant for Compound<'_, S> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.element(value)
    }

    fn end(self) -> Result<(), Error> {
        self.close_variant(b']')
    }
}

impl<S: Sink> ser::SerializeMap for Compound<'_, S> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        match self {
            Compound::Map { writer, state } => {
                Self::next(writer, state);
                key.serialize(MapKey { writer: &mut **writer })
            }
            Compound::Raw { .. } => Err(not_a_struct()),
        }
    }

    #[inline]
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        match self {
            Compound::Map { writer, .. } => {
                writer.out.put_ascii(b':');
                value.serialize(&mut **writer)
            }
            Compound::Raw { .. } => Err(not_a_struct()),
        }
    }

    #[inline]
    fn end(self) -> Result<(), Error> {
        self.close(b'}')
    }
}

impl<S: Sink> ser::SerializeStruct for Compound<'_, S> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        self.field(key, value)
    }

    #[inline]
    fn end(self) -> Result<(), Error> {
        match self {
            Compound::Raw { .. } => Ok(()),
            map => map.close(b'}'),
        }
    }
}

impl<S: Sink> ser::SerializeStructVariant for Compound<'_, S> {
    type Ok = ();
    type Error = Error;

    #[inline]
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), Error> {
        match self {
            Compound::Map { .. } => self.field(key, value),
            Compound::Raw { .. } => Err(not_a_struct()),
        }
    }

    fn end(self) -> Result<(), Error> {
        self.close_variant(b'}')
    }
}

/// What serde_json says of `probe`, which it refuses: its errors for a map key it does not take
/// and for a `RawValue` field that is not the token are syntax errors, which `Error::custom`
/// cannot make, so serde_json makes them, and both writers fail alike.
fn serde_json_error<T: Serialize>(probe: &T) -> Error {
    serde_json::to_writer(std::io::sink(), probe)
        .err()
        .unwrap_or_else(|| Error::custom("serde_json accepted what it refuses"))
}

/// serde_json's error for a field of a `RawValue` struct that is not the token.
fn raw_value_field_error() -> Error {
    struct WrongField;
    impl Serialize for WrongField {
        fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            let mut raw = serializer.serialize_struct(RAW_VALUE_TOKEN, 1)?;
            ser::SerializeStruct::serialize_field(&mut raw, "", "null")?;
            ser::SerializeStruct::end(raw)
        }
    }
    serde_json_error(&WrongField)
}

/// A one-entry map whose key is `K`: what serde_json says of that key.
struct KeyOf<K>(K);

impl<K: Serialize> Serialize for KeyOf<K> {
    fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&self.0, &())?;
        map.end()
    }
}

fn key_error<K: Serialize>(key: K) -> Error {
    serde_json_error(&KeyOf(key))
}

/// "key must be a string".
fn key_must_be_a_string() -> Error {
    key_error(())
}

/// "float key must be finite (got NaN or +/-inf)".
fn float_key_must_be_finite() -> Error {
    key_error(f64::NAN)
}

/// serde_json's `MapKeySerializer`: strings as they are; integers, booleans and finite floats
/// quoted; chars and unit variants as strings; the rest refused.
struct MapKey<'a, S> {
    writer: &'a mut Writer<S>,
}

impl<S: Sink> MapKey<'_, S> {
    fn quoted(self, write: impl FnOnce(&mut Writer<S>)) -> Result<(), Error> {
        self.writer.out.put_ascii(b'"');
        write(&mut *self.writer);
        self.writer.out.put_ascii(b'"');
        Ok(())
    }
}

impl<S: Sink> ser::Serializer for MapKey<'_, S> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    #[inline]
    fn serialize_str(self, value: &str) -> Result<(), Error> {
        write_str(&mut self.writer.out, value);
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_bool(self, value: bool) -> Result<(), Error> {
        self.quoted(|w| w.out.put(if value { "true" } else { "false" }))
    }

    integers!(|key, value| key.quoted(|w| w.integer(value)));

    fn serialize_f32(self, value: f32) -> Result<(), Error> {
        if !value.is_finite() {
            return Err(float_key_must_be_finite());
        }
        self.quoted(|w| w.float(value))
    }

    fn serialize_f64(self, value: f64) -> Result<(), Error> {
        if !value.is_finite() {
            return Err(float_key_must_be_finite());
        }
        self.quoted(|w| w.float(value))
    }

    fn serialize_char(self, value: char) -> Result<(), Error> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_bytes(self, _value: &[u8]) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.writer.display(value)
    }
}

/// The text of a `RawValue`, copied as it is; anything else is serde_json's "expected RawValue".
struct RawValueText<'a, S> {
    writer: &'a mut Writer<S>,
}

fn expected_raw_value() -> Error {
    Error::custom("expected RawValue")
}

impl<S: Sink> ser::Serializer for RawValueText<'_, S> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_str(self, value: &str) -> Result<(), Error> {
        self.writer.out.put(value);
        Ok(())
    }

    fn collect_str<T: Display + ?Sized>(self, value: &T) -> Result<(), Error> {
        self.serialize_str(&value.to_string())
    }

    fn serialize_bool(self, _value: bool) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_i8(self, _value: i8) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_i16(self, _value: i16) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_i32(self, _value: i32) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_i64(self, _value: i64) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_i128(self, _value: i128) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_u8(self, _value: u8) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_u16(self, _value: u16) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_u32(self, _value: u32) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_u64(self, _value: u64) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_u128(self, _value: u128) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_f32(self, _value: f32) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_f64(self, _value: f64) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_char(self, _value: char) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_bytes(self, _value: &[u8]) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_none(self) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_unit(self) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
    ) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(expected_raw_value())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(expected_raw_value())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(expected_raw_value())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(expected_raw_value())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(expected_raw_value())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(expected_raw_value())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, Error> {
        Err(expected_raw_value())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _variant_index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(expected_raw_value())
    }
}

/// `"value"`, escaped.
#[inline]
fn write_str<S: Sink>(out: &mut S, value: &str) {
    out.put_quoted(value);
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The bytes of `word` (eight string bytes, the first in the low byte) that JSON escapes (`"`,
/// `\`, below 0x20) have their high bit set in the result, and no others up to the first of them
/// (higher bytes may be marked by a borrow, so only the lowest mark is read). Each test is the
/// classic "has a byte below n" (`(x - n) & !x & 0x80`): `x < 0x20`, `x ^ '"' == 0`,
/// `x ^ '\' == 0`. Bytes 0x80 and above (UTF-8 beyond ASCII) are never marked.
#[inline]
fn escapes(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20);
    let quote = (word ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslash = (word ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    (control | quote | backslash) & !word & HIGH
}

/// How serde_json writes each escaped byte: `\"`, `\\`, the short forms `\b \t \n \f \r`, and
/// `\u00xx` (lowercase hex) for the other control characters.
fn escape(byte: u8) -> &'static str {
    const CONTROL: [&str; 32] = [
        "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007", "\\b", "\\t",
        "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f", "\\u0010", "\\u0011", "\\u0012", "\\u0013",
        "\\u0014", "\\u0015", "\\u0016", "\\u0017", "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c",
        "\\u001d", "\\u001e", "\\u001f",
    ];
    match byte {
        b'"' => "\\\"",
        b'\\' => "\\\\",
        _ => CONTROL[usize::from(byte & 0x1F)],
    }
}

/// The escaped contents of a JSON string (without the quotes): eight bytes at a time while eight
/// are left (see [`escapes`]), then byte by byte (fewer instructions than a padded word for the
/// few bytes left); each run without escapes is appended with one `put`. For the `String` sink,
/// and for strings [`Staged`] does not take.
#[inline]
fn escape_runs<S: Sink>(out: &mut S, value: &str) {
    let bytes = value.as_bytes();
    // `bytes[start..at]` is clean and not yet written.
    let mut start = 0;
    let mut at = 0;
    while let Some(word) = bytes.get(at..).and_then(<[u8]>::first_chunk::<8>) {
        let marks = escapes(u64::from_le_bytes(*word));
        if marks == 0 {
            at += 8;
            continue;
        }
        at += (marks.trailing_zeros() / 8) as usize;
        out.put(&value[start..at]);
        out.put(escape(bytes[at]));
        at += 1;
        start = at;
    }
    while let Some(&byte) = bytes.get(at) {
        if ESCAPED[usize::from(byte)] {
            out.put(&value[start..at]);
            out.put(escape(byte));
            start = at + 1;
        }
        at += 1;
    }
    out.put(&value[start..]);
}

/// Whether serde_json escapes the byte (its `ESCAPE` table, as booleans).
static ESCAPED: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 0x20 {
        table[byte] = true;
        byte += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// The one to seven bytes of `rest` as a little-endian word, filled up with `A` (which needs no
/// escape): loads of four, two or one byte, overlapping, rather than a byte loop.
#[inline(always)]
fn partial_word(rest: &[u8]) -> u64 {
    const FILL: u64 = ONES * b'A' as u64;
    let len = rest.len();
    let word = if let (Some(low), Some(high)) = (rest.first_chunk::<4>(), rest.last_chunk::<4>()) {
        u64::from(u32::from_le_bytes(*low)) | u64::from(u32::from_le_bytes(*high)) << (8 * (len - 4))
    } else if let (Some(low), Some(high)) = (rest.first_chunk::<2>(), rest.last_chunk::<2>()) {
        u64::from(u16::from_le_bytes(*low)) | u64::from(u16::from_le_bytes(*high)) << (8 * (len - 2))
    } else {
        rest.first().map_or(0, |&byte| u64::from(byte))
    };
    // The fill starts above the bytes (none for 8 or more, which callers do not pass).
    word | FILL.checked_shl(8 * len as u32).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_word_holds_the_bytes_then_the_fill() {
        let bytes = b"0123456";
        for len in 0..=bytes.len() {
            let mut expected = [b'A'; 8];
            expected[..len].copy_from_slice(&bytes[..len]);
            assert_eq!(partial_word(&bytes[..len]).to_le_bytes(), expected, "{len} bytes");
        }
    }

    #[test]
    fn the_word_test_marks_exactly_the_first_escaped_byte() {
        // Every byte value at every lane, in front of bytes that a borrow could mark falsely
        // (0x20 after a control byte, 0x23 after '"', 0x5D after '\').
        for lane in 0..8 {
            for byte in 0..=255u8 {
                for filler in [b'a', 0x20, 0x23, 0x5D, 0x00, 0xFF] {
                    let mut word = [filler; 8];
                    for slot in word.iter_mut().take(lane) {
                        *slot = b'a';
                    }
                    word[lane] = byte;
                    let first = word.iter().position(|&b| ESCAPED[usize::from(b)]);
                    let marks = escapes(u64::from_le_bytes(word));
                    let found = (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize);
                    assert_eq!(found, first, "{word:?}");
                }
            }
        }
    }
}
