//! The crate's JSON writer (`a2a_proto::json::{to_vec, extend_vec, to_string, write_json}`)
//! against serde_json: the same bytes for every input (the spec's fixtures, the other JSON files
//! of the workspace's tests, generated strings, numbers, maps and serde shapes), the same errors.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use a2a_proto::json;
use a2a_proto::v1::{
    AgentCard, Artifact, CancelTaskRequest, GetTaskRequest, ListTasksRequest, ListTasksResponse, Message,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskStatus,
};
use serde::ser::{SerializeMap as _, SerializeSeq as _, SerializeStruct as _, SerializeStructVariant as _};
use serde::ser::{SerializeTupleVariant as _, Serializer};
use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};

/// A deterministic generator (splitmix64), so that a failure reproduces.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `write_json` after a prefix writes what `serde_json::to_vec` writes, and keeps the prefix.
#[track_caller]
fn same<T: Serialize + ?Sized>(value: &T) {
    let expected = serde_json::to_vec(value).expect("serde_json writes it");
    let mut ours = b"prefix".to_vec();
    json::write_json(&mut ours, value).expect("the writer writes it");
    assert_eq!(&ours[..6], b"prefix");
    if ours[6..] != expected[..] {
        panic!(
            "the writer differs from serde_json:\n  ours:       {}\n  serde_json: {}",
            String::from_utf8_lossy(&ours[6..]),
            String::from_utf8_lossy(&expected)
        );
    }
}

/// What `json::to_vec` wrote before it had a writer of its own.
fn serde_json_to_vec<T: Serialize + prost::Name>(message: &T) -> Result<Vec<u8>, serde_json::Error> {
    if T::full_name() == "lf.a2a.v1.ListTasksResponse" {
        serde_json::to_vec(&json::to_value(message)?)
    } else {
        serde_json::to_vec(message)
    }
}

/// `to_vec`, `extend_vec` and `to_string` write what serde_json writes for an A2A message.
#[track_caller]
fn same_message<T: Serialize + prost::Name>(message: &T) {
    let expected = serde_json_to_vec(message).expect("serde_json writes it");
    let ours = json::to_vec(message).expect("the writer writes it");
    assert_eq!(String::from_utf8_lossy(&ours), String::from_utf8_lossy(&expected));
    let mut appended = b"{\"id\":1,\"result\":".to_vec();
    json::extend_vec(&mut appended, message).unwrap();
    assert_eq!(appended[17..], expected[..]);
    assert_eq!(json::to_string(message).unwrap().as_bytes(), &expected[..]);
    same(message);
}

/// Both fail, with the same error, and the writer leaves its buffer as it was.
#[track_caller]
fn same_error<T: Serialize + ?Sized>(value: &T) {
    let expected = serde_json::to_vec(value).expect_err("serde_json refuses it");
    let mut ours = b"prefix".to_vec();
    let error = json::write_json(&mut ours, value).expect_err("the writer refuses it");
    assert_eq!(ours, b"prefix", "the buffer is truncated back");
    assert_eq!(error.to_string(), expected.to_string());
    assert_eq!(error.classify(), expected.classify());
    assert_eq!((error.line(), error.column()), (expected.line(), expected.column()));
}

/// Every fixture of the spec's examples, as each message it parses as and as a plain value.
#[test]
fn spec_fixtures_are_written_as_serde_json_writes_them() {
    let mut files = json_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"));
    files.sort();
    assert!(files.len() >= 32, "the fixtures are where they were: {files:?}");
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        same(&serde_json::from_slice::<Value>(&bytes).unwrap());
        let mut parsed = 0;
        macro_rules! as_message {
            ($($message:ty),*) => {$(
                if let Ok(message) = json::from_slice::<$message>(&bytes) {
                    same_message(&message);
                    parsed += 1;
                }
            )*};
        }
        as_message!(
            AgentCard,
            Artifact,
            CancelTaskRequest,
            GetTaskRequest,
            ListTasksRequest,
            ListTasksResponse,
            Message,
            SendMessageRequest,
            SendMessageResponse,
            StreamResponse,
            SubscribeToTaskRequest,
            Task
        );
        assert!(parsed > 0, "{} parses as no message", file.display());
    }
}

/// The workspace's other JSON test data (0.3 fixtures, RFC 8785 vectors full of odd numbers and
/// Unicode), as values.
#[test]
fn other_json_test_files_are_written_as_serde_json_writes_them() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut count = 0;
    for dir in ["a2a-v03/tests/fixtures", "a2a-card-sign/tests/data"] {
        for file in json_files(&root.join(dir)) {
            let bytes = std::fs::read(&file).unwrap();
            if let Ok(value) = serde_json::from_slice::<Value>(&bytes) {
                same(&value);
                count += 1;
            }
        }
    }
    assert!(count >= 30, "the other test data is where it was ({count} files)");
}

fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(json_files(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    out
}

/// Characters that stress the escaping: all of ASCII (every control character, `"`, `\`, DEL) and
/// UTF-8 of two, three and four bytes.
fn specials() -> Vec<char> {
    let mut chars: Vec<char> = (0u8..0x80).map(char::from).collect();
    chars.extend([
        'é',
        'ß',
        '\u{7FF}',
        '\u{800}',
        '€',
        '\u{2028}',
        '\u{FEFF}',
        '\u{FFFF}',
        '😀',
        '\u{10FFFF}',
    ]);
    chars
}

/// One string in many places: as a value, a map key, a struct field's value, a `collect_str`
/// value, and a message's id, key and text (the `String` writer too).
#[track_caller]
fn same_string(text: &str) {
    same(text);
    same(&BTreeMap::from([(text, 1)]));
    same(&Pieces(vec![text.to_owned(), text.to_owned()]));
    let task = Task { id: text.to_owned(), ..Default::default() };
    same_message(&task);
}

/// A `Display` value written in pieces (`collect_str`).
struct Pieces(Vec<String>);

impl fmt::Display for Pieces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.iter().try_for_each(|piece| f.write_str(piece))
    }
}

impl Serialize for Pieces {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[test]
fn every_special_character_at_every_offset_and_length_is_escaped_as_serde_json_does() {
    for special in specials() {
        for len in 0..40 {
            for at in 0..=len {
                let text: String = "a".repeat(at) + special.encode_utf8(&mut [0; 4]) + &"b".repeat(len - at);
                same(text.as_str());
            }
        }
        same(&special);
        same(&BTreeMap::from([(special, 0)]));
    }
}

#[test]
fn pairs_of_special_characters_in_short_strings_are_escaped_as_serde_json_does() {
    // Pairs catch a mark of the word test that a borrow from the first escape could move: a
    // control byte before a space, `"` before `#`, `\` before `]`.
    let chosen = ['"', '\\', '\n', '\u{1}', '\u{1f}', ' ', '#', ']', '!', 'é', '€', '😀', '\u{7f}'];
    for &first in &chosen {
        for &second in &chosen {
            for len in 0..20 {
                for i in 0..=len {
                    for j in i..=len {
                        let mut text = "x".repeat(len);
                        text.insert(j, second);
                        text.insert(i, first);
                        same(text.as_str());
                    }
                }
            }
        }
    }
}

#[test]
fn random_strings_are_written_as_serde_json_writes_them() {
    let specials = specials();
    let mut rng = Rng(14);
    for _ in 0..20_000 {
        let len = rng.below(64);
        let text: String = (0..len)
            .map(|_| match rng.below(4) {
                0 => specials[rng.below(specials.len())],
                1 => char::from_u32(rng.next() as u32 % 0x11_0000).unwrap_or('\u{FFFD}'),
                _ => char::from(b'a' + rng.below(26) as u8),
            })
            .collect();
        same_string(&text);
    }
    for _ in 0..10_000 {
        if let Some(c) = char::from_u32(rng.next() as u32 % 0x11_0000) {
            same(&c);
        }
    }
}

fn float_cases() -> Vec<f64> {
    let mut cases = vec![
        0.0,
        -0.0,
        1e300,
        -1e300,
        5e-324,
        -5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        f64::EPSILON,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.1,
        0.2,
        0.30000000000000004,
        1.0,
        -1.0,
        1.5,
        1e15,
        1e16,
        1e17,
        1e20,
        1e21,
        1e22,
        1e-5,
        1e-6,
        1e-7,
        123_456_789.0,
        9_007_199_254_740_992.0,
        9_007_199_254_740_993.0,
        std::f64::consts::PI,
        -122.47777777777779,
    ];
    cases.extend((-1000..1000).map(f64::from));
    cases.extend((0..64).map(|shift| (1u64 << shift) as f64));
    cases
}

#[test]
fn floats_are_written_as_serde_json_writes_them() {
    let mut rng = Rng(2);
    let mut cases = float_cases();
    cases.extend((0..100_000).map(|_| f64::from_bits(rng.next())));
    for value in cases {
        same(&value);
        same(&Value::from(value));
        let narrow = value as f32;
        same(&narrow);
        same(&f32::from_bits(rng.next() as u32));
        if value.is_finite() {
            same(&KeyOf(value));
        } else {
            same_error(&KeyOf(value));
        }
        if narrow.is_finite() {
            same(&KeyOf(narrow));
        } else {
            same_error(&KeyOf(narrow));
        }
    }
}

#[test]
fn integers_are_written_as_serde_json_writes_them() {
    macro_rules! extremes {
        ($($t:ty),*) => {$(
            for value in [<$t>::MIN, <$t>::MAX, 0 as $t, 1 as $t, <$t>::MAX / 3, <$t>::MIN / 7] {
                same(&value);
                same(&BTreeMap::from([(value, value)]));
            }
        )*};
    }
    extremes!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);
    let mut rng = Rng(3);
    for _ in 0..10_000 {
        let bits = rng.next();
        same(&bits);
        same(&(bits as i64));
        same(&(bits as i32));
        same(&(u128::from(bits) << 64 | u128::from(rng.next())));
        same(&Value::from(bits as i64));
    }
}

/// A one-entry map whose key is `K`.
struct KeyOf<K>(K);

impl<K: Serialize> Serialize for KeyOf<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(&self.0, "v")?;
        map.end()
    }
}

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Plain,
    #[serde(rename = "with \"quotes\"")]
    Quoted,
}

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct KeyNewtype(String);

#[derive(Serialize)]
struct UnitStruct;

#[derive(Serialize)]
enum Shapes {
    Unit,
    Newtype(i32),
    Tuple(i32, String),
    EmptyTuple(),
    Struct { a: i32, b: Option<String> },
    EmptyStruct {},
}

#[test]
fn map_keys_are_taken_and_refused_as_serde_json_takes_and_refuses_them() {
    same(&BTreeMap::from([(true, 1), (false, 2)]));
    same(&BTreeMap::from([('a', 1), ('"', 2), ('\n', 3)]));
    same(&BTreeMap::from([(Key::Plain, 1), (Key::Quoted, 2)]));
    same(&BTreeMap::from([(KeyNewtype("k\\".into()), 1)]));
    same(&KeyOf(Some("some")));
    same(&KeyOf(Some(5u8)));
    same(&KeyOf(Pieces(vec!["dis".into(), "play\t".into()])));
    same(&BTreeMap::<String, u8>::new());
    same(&BTreeMap::from([("a", BTreeMap::<u8, ()>::new())]));

    same_error(&KeyOf(()));
    same_error(&KeyOf(UnitStruct));
    same_error(&KeyOf(None::<&str>));
    same_error(&KeyOf(vec![1u8]));
    same_error(&KeyOf((1, 2)));
    same_error(&KeyOf(BTreeMap::from([(1, 2)])));
    same_error(&KeyOf(Shapes::Newtype(1)));
    same_error(&KeyOf(Shapes::Tuple(1, "x".into())));
    same_error(&KeyOf(Shapes::Struct { a: 1, b: None }));
    same_error(&KeyOf(json!({"a": 1})));
    same_error(&KeyOf(Bytes(b"k")));
    same_error(&KeyOf(f64::NAN));
    same_error(&KeyOf(f32::NEG_INFINITY));
    same_error(&KeyOf(Some(f64::INFINITY)));
    // A refused key after others: still the same error, the buffer still truncated back.
    same_error(&vec![KeyOf(Value::from(1)), KeyOf(Value::Null)]);
}

/// Struct keys around the writer's paths: the first key (no comma) and later ones, keys that need
/// escapes, and keys on both sides of the 40 bytes the writer stages on the stack.
#[derive(Serialize)]
struct OddKeys {
    #[serde(rename = "first \"key\"\n")]
    first: u8,
    #[serde(rename = "")]
    empty: u8,
    #[serde(rename = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")]
    k39: u8,
    #[serde(rename = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")]
    k40: u8,
    #[serde(rename = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")]
    k41: u8,
    #[serde(rename = "ключ €")]
    unicode: u8,
    #[serde(rename = "tab\tin the middle of a key longer than forty bytes")]
    long_escaped: u8,
}

#[derive(Serialize)]
struct LongFirstKey {
    #[serde(rename = "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk")]
    first: OddKeys,
}

#[test]
fn struct_keys_are_written_as_serde_json_writes_them() {
    let odd = OddKeys { first: 1, empty: 2, k39: 3, k40: 4, k41: 5, unicode: 6, long_escaped: 7 };
    same(&odd);
    same(&LongFirstKey { first: odd });
}

/// Bytes, written with `serialize_bytes`.
struct Bytes<'a>(&'a [u8]);

impl Serialize for Bytes<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

#[derive(Serialize)]
struct Everything {
    none: Option<i32>,
    some: Option<String>,
    unit: (),
    unit_struct: UnitStruct,
    newtype: KeyNewtype,
    tuple: (i32, &'static str, ()),
    empty_seq: Vec<u8>,
    empty_map: BTreeMap<String, u8>,
    shapes: Vec<Shapes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skipped: Option<u8>,
    #[serde(flatten)]
    flattened: BTreeMap<String, Value>,
    tagged: Tagged,
    untagged: Vec<Untagged>,
}

#[derive(Serialize)]
#[serde(tag = "type")]
enum Tagged {
    Inner { value: f64 },
}

#[derive(Serialize)]
#[serde(untagged)]
enum Untagged {
    Number(u64),
    Text(String),
    Nothing,
}

#[test]
fn every_serde_shape_is_written_as_serde_json_writes_it() {
    same(&Everything {
        none: None,
        some: Some("s\u{0}".into()),
        unit: (),
        unit_struct: UnitStruct,
        newtype: KeyNewtype("n".into()),
        tuple: (1, "t", ()),
        empty_seq: vec![],
        empty_map: BTreeMap::new(),
        shapes: vec![
            Shapes::Unit,
            Shapes::Newtype(-1),
            Shapes::Tuple(2, "\"".into()),
            Shapes::EmptyTuple(),
            Shapes::Struct { a: 3, b: None },
            Shapes::Struct { a: 4, b: Some("b".into()) },
            Shapes::EmptyStruct {},
        ],
        skipped: None,
        flattened: BTreeMap::from([("extra".into(), json!([1, "two", null]))]),
        tagged: Tagged::Inner { value: 0.5 },
        untagged: vec![Untagged::Number(7), Untagged::Text("x".into()), Untagged::Nothing],
    });
    same(&());
    same(&UnitStruct);
    same(&None::<u8>);
    same(&Some(Some(1)));
    same(&Vec::<Vec<u8>>::new());
    same(&vec![Vec::<u8>::new(), vec![1], vec![]]);
    same(&[true, false]);
    same(&Bytes(b""));
    same(&Bytes(&(0..=255).collect::<Vec<u8>>()));
    same(&json!({}));
    same(&json!([]));
    same(&json!([{}, [], [[]], {"": {"": []}}]));
}

/// `Serialize` impls that announce a length they do not keep to (`Some(0)` then elements):
/// serde_json has already closed the container and writes the elements after it.
struct Liar(u8);

impl Serialize for Liar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            0 => {
                let mut seq = serializer.serialize_seq(Some(0))?;
                seq.serialize_element(&1)?;
                seq.serialize_element(&2)?;
                seq.end()
            }
            1 => {
                let mut map = serializer.serialize_map(Some(0))?;
                map.serialize_entry("a", &1)?;
                map.serialize_entry("b", &2)?;
                map.end()
            }
            2 => {
                let mut object = serializer.serialize_struct("Liar", 0)?;
                object.serialize_field("a", &1)?;
                object.end()
            }
            3 => {
                let mut variant = serializer.serialize_tuple_variant("Liar", 0, "V", 0)?;
                variant.serialize_field(&1)?;
                variant.end()
            }
            4 => {
                let mut variant = serializer.serialize_struct_variant("Liar", 0, "V", 0)?;
                variant.serialize_field("a", &1)?;
                variant.end()
            }
            5 => {
                let mut seq = serializer.serialize_seq(None)?;
                seq.serialize_element(&Liar(0))?;
                seq.end()
            }
            _ => {
                let mut map = serializer.serialize_map(None)?;
                map.serialize_key("k")?;
                map.serialize_value(&Liar(1))?;
                map.end()
            }
        }
    }
}

#[test]
fn lengths_announced_wrongly_are_written_as_serde_json_writes_them() {
    for case in 0..=6 {
        same(&Liar(case));
    }
    same(&Tagged::Inner { value: f64::NAN });
}

#[derive(Serialize)]
struct Reply<'a> {
    jsonrpc: &'static str,
    id: &'a RawValue,
    result: Box<RawValue>,
    more: Vec<&'a RawValue>,
}

/// A struct named like a `RawValue` whose field is not the token, or not text.
struct FakeRaw(bool);

impl Serialize for FakeRaw {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut raw = serializer.serialize_struct("$serde_json::private::RawValue", 1)?;
        if self.0 {
            raw.serialize_field("$serde_json::private::RawValue", &5)?;
        } else {
            raw.serialize_field("other", "1")?;
        }
        raw.end()
    }
}

#[test]
fn raw_values_are_copied_as_serde_json_copies_them() {
    let id = RawValue::from_string("\"a\\u0041\"".into()).unwrap();
    let result = RawValue::from_string("{ \"spaced\" : [1, 2] }".into()).unwrap();
    let one = RawValue::from_string("1e5".into()).unwrap();
    same(&Reply { jsonrpc: "2.0", id: &id, result, more: vec![&one, &id] });
    same_error(&FakeRaw(true));
    same_error(&FakeRaw(false));
}

/// A JSON value of random shape, up to `depth` levels.
fn random_value(rng: &mut Rng, depth: usize) -> Value {
    let specials = specials();
    let text = |rng: &mut Rng| -> String {
        (0..rng.below(12))
            .map(|_| if rng.below(3) == 0 { specials[rng.below(specials.len())] } else { 'k' })
            .collect()
    };
    match rng.below(if depth == 0 { 6 } else { 8 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => Value::from(rng.next() as i64),
        3 => Value::from(rng.next() >> rng.below(64)),
        4 => Value::from(f64::from_bits(rng.next())),
        5 => Value::String(text(rng)),
        6 => Value::Array((0..rng.below(4)).map(|_| random_value(rng, depth - 1)).collect()),
        _ => Value::Object((0..rng.below(4)).map(|_| (text(rng), random_value(rng, depth - 1))).collect()),
    }
}

#[test]
fn random_values_and_metadata_are_written_as_serde_json_writes_them() {
    let mut rng = Rng(7);
    for _ in 0..2_000 {
        let value = random_value(&mut rng, 5);
        same(&value);
        // As protobuf Struct / Value: metadata and a data part of a message in a task.
        let metadata = match &value {
            Value::Object(map) => map.clone(),
            other => serde_json::Map::from_iter([("value".to_owned(), other.clone())]),
        };
        let message = Message {
            message_id: "m".into(),
            parts: vec![a2a_proto::v1::Part {
                content: Some(a2a_proto::v1::part::Content::Data(json::to_pb_value(&value))),
                ..Default::default()
            }],
            metadata: Some(json::to_struct(&metadata)),
            ..Default::default()
        };
        same_message(&message);
        same_message(&StreamResponse::from(Task {
            id: "t".into(),
            history: vec![message],
            metadata: Some(json::to_struct(&metadata)),
            ..Default::default()
        }));
    }
}

/// A task as the echo agent makes it, with every kind of part, timestamps and metadata.
#[test]
fn a_full_task_and_a_list_of_tasks_are_written_as_serde_json_writes_them() {
    let task: Task = json::from_value(json!({
        "id": "0190f1e2-3c4d-7e5f-8a9b-0c1d2e3f4a5b",
        "contextId": "ctx \"quoted\" \\ and \n newline",
        "status": {
            "state": "TASK_STATE_COMPLETED",
            "timestamp": "2026-11-28T10:30:00.123456789Z",
            "message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "done ✓"}]}
        },
        "artifacts": [{
            "artifactId": "a1",
            "name": "echo",
            "parts": [
                {"text": "hello\tworld", "mediaType": "text/plain"},
                {"raw": "AAECAwQFBgc=", "filename": "f.bin"},
                {"url": "https://example.com/a?b=c&d=\"e\""},
                {"data": {"n": 1.5, "i": 12, "big": 1e300, "list": [null, true, "s"], "nested": {"x": {}}}}
            ],
            "metadata": {"k": "v", "€": [1, 2.25]},
            "extensions": ["https://ext/1"]
        }],
        "history": [
            {"messageId": "u1", "role": "ROLE_USER", "parts": [{"text": "hello"}], "referenceTaskIds": ["t0"]}
        ],
        "metadata": {"timestamp": "2026-01-01T00:00:00Z", "empty": {}, "emptyList": []}
    }))
    .unwrap();
    same_message(&task);
    same_message(&StreamResponse::from(task.clone()));
    same_message(&SendMessageResponse::from(task.clone()));
    same_message(&ListTasksResponse::default());
    same_message(&ListTasksResponse {
        tasks: vec![task.clone(), Task::default()],
        next_page_token: "next".into(),
        page_size: 2,
        total_size: 3,
    });
    for nanos in [0, 1, 120_000_000, 123_456_000, 999_999_999] {
        let status = TaskStatus {
            state: 2,
            timestamp: Some(a2a_proto::Timestamp { seconds: 1_700_000_000, nanos }),
            ..Default::default()
        };
        same_message(&Task { status: Some(status), ..Default::default() });
    }
}

#[test]
fn a_message_that_cannot_be_written_fails_alike_and_leaves_the_buffer_as_it_was() {
    let task = Task {
        id: "t".into(),
        status: Some(TaskStatus { state: 12_345, ..Default::default() }),
        ..Default::default()
    };
    let expected = serde_json::to_vec(&task).unwrap_err();
    let mut out = b"{\"result\":".to_vec();
    let error = json::extend_vec(&mut out, &task).unwrap_err();
    assert_eq!(out, b"{\"result\":");
    assert_eq!(error.to_string(), expected.to_string());
    assert_eq!(json::to_vec(&task).unwrap_err().to_string(), expected.to_string());
    assert_eq!(json::to_string(&task).unwrap_err().to_string(), expected.to_string());
    same_error(&task);
}

/// serde_json panics when a `Display` value fails on its own ("there should be an error"); the
/// writer says so instead (the one place where the two differ).
#[test]
fn a_failing_display_is_an_error_not_a_panic() {
    struct Failing;
    impl fmt::Display for Failing {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("partial")?;
            Err(fmt::Error)
        }
    }
    impl Serialize for Failing {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            serializer.collect_str(self)
        }
    }
    let mut out = b"[".to_vec();
    let error = json::write_json(&mut out, &Failing).unwrap_err();
    assert_eq!(out, b"[");
    assert!(error.to_string().contains("Display"), "{error}");
}
