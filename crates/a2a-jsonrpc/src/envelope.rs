//! JSON-RPC 2.0 request, response and error objects (spec 9.3, 9.5; jsonrpc.org/specification):
//! reading and writing them, and the request `id` rules.
//!
//! Members are kept as raw JSON ([`RawValue`]) until they are needed, so the `id` is echoed
//! byte for byte (a number like `12345678901234567890123` or `1.50` comes back unchanged, which a
//! round trip through `f64` would not guarantee) and `params` is decoded once, straight into the
//! operation's request message: in the same pass as the envelope when `method` comes before
//! `params` (as every SDK writes them), else from the raw member afterwards.

use std::fmt;

use a2a_core::{Error, Operation};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use crate::dispatch::ParamsSeed;
use crate::{error, v03};

/// The only `jsonrpc` value JSON-RPC 2.0 allows.
const VERSION: &str = "2.0";

/// A request id as sent by the client: a JSON string, number or `null`, kept verbatim.
#[derive(Debug, Clone)]
pub(crate) struct Id(Box<RawValue>);

impl Id {
    /// `null`: the id of answers to requests whose id could not be read (JSON-RPC 2.0 section 5).
    pub(crate) fn null() -> Self {
        Id(RawValue::NULL.to_owned())
    }

    /// The id if `raw` is a string, a number or `null`; JSON-RPC 2.0 allows nothing else. A
    /// number must be within the range of a double (RFC 8259 section 6 lets a parser limit it,
    /// and most do): echoed verbatim, `1e400` would make the answer unreadable to the client's
    /// own JSON parser (serde_json, JavaScript's and Python's read it as an error or infinity).
    fn from_raw(raw: &RawValue) -> Option<Self> {
        let text = raw.get();
        let number = text.starts_with('-') || text.starts_with(|c: char| c.is_ascii_digit());
        let valid = text.starts_with('"')
            || text == "null"
            || (number && text.parse::<f64>().is_ok_and(f64::is_finite));
        valid.then(|| Id(raw.to_owned()))
    }
}

impl Serialize for Id {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A request object that passed the envelope checks. Its `params` are not decoded yet.
#[derive(Debug)]
pub(crate) struct Request<'a> {
    /// `None` for a notification (no `id` member at all; `"id": null` is a request).
    pub(crate) id: Option<Id>,
    /// The method name, not yet looked up.
    pub(crate) method: String,
    /// The `params` member.
    pub(crate) params: Params<'a>,
}

/// The `params` of a request.
#[derive(Debug)]
pub(crate) enum Params<'a> {
    /// The raw member, `None` if absent: not decoded yet.
    Raw(Option<&'a RawValue>),
    /// Decoded in the envelope's pass as the request message of the 1.0 operation that `method`
    /// names (never for a 0.3 method).
    Decoded(Box<a2a_core::Request>),
}

impl<'a> Params<'a> {
    /// The raw member for a method whose params are never decoded in the envelope's pass (0.3
    /// methods, unknown ones): `None` if it is absent.
    pub(crate) fn raw(&self) -> Option<&'a RawValue> {
        match self {
            Params::Raw(raw) => *raw,
            // Not for such methods (see `OnePass`).
            Params::Decoded(_) => None,
        }
    }
}

/// Why a body is not a usable request object, with the id to answer with.
#[derive(Debug)]
pub(crate) struct Rejection {
    /// The request's id if it could be read, else `null`.
    pub(crate) id: Id,
    /// `ParseError` or `InvalidRequest`.
    pub(crate) error: Error,
}

/// The members of a request object; each is `Some` iff present, even when it is `null`.
#[derive(Deserialize)]
struct Members<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
}

/// Keeps a present member (also a present `null`, which `Option`'s own impl would turn into
/// `None`); absent members get the field default, `None`.
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(deserializer).map(Some)
}

/// [`Members`] with `params` decoded when the method is known by then.
struct Parsed<'a> {
    jsonrpc: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<Params<'a>>,
    id: Option<&'a RawValue>,
}

impl<'a> From<Members<'a>> for Parsed<'a> {
    fn from(members: Members<'a>) -> Self {
        let Members { jsonrpc, method, params, id } = members;
        Parsed { jsonrpc, method, params: params.map(|raw| Params::Raw(Some(raw))), id }
    }
}

/// Reads a request object in one pass: its members as [`Members`] does, and `params` straight into
/// the request message when `method` came first and names a 1.0 operation (`decode`, if the
/// document is shallow enough to need no depth check). Any failure, a duplicate member included,
/// only means the caller reads the body as before, which gives the answer (every error as it was).
struct OnePass {
    decode: bool,
}

/// A member name of a request object.
#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Key {
    Jsonrpc,
    Method,
    Params,
    Id,
    #[serde(other)]
    Other,
}

/// Sets a member seen for the first time; a second one fails the pass.
fn once<T, E: serde::de::Error>(slot: &mut Option<T>, value: T) -> Result<(), E> {
    match slot.replace(value) {
        None => Ok(()),
        Some(_) => Err(E::custom("duplicate member")),
    }
}

/// The 1.0 operation whose params the pass decodes for the method `raw` (a JSON string without
/// escapes; anything else is left to the raw path).
fn decodable(raw: &RawValue) -> Option<Operation> {
    let name = raw.get().strip_prefix('"')?.strip_suffix('"')?;
    if name.contains(['\\', '"']) || v03::Method::from_name(name).is_some() {
        return None;
    }
    Operation::from_method(name)
}

impl<'de> Visitor<'de> for OnePass {
    type Value = Parsed<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Parsed<'de>, A::Error> {
        let mut parsed = Parsed { jsonrpc: None, method: None, params: None, id: None };
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Jsonrpc => once(&mut parsed.jsonrpc, map.next_value()?)?,
                Key::Method => once(&mut parsed.method, map.next_value()?)?,
                Key::Id => once(&mut parsed.id, map.next_value()?)?,
                Key::Params => {
                    let operation = parsed.method.filter(|_| self.decode).and_then(decodable);
                    let params = match operation {
                        Some(operation) => {
                            Params::Decoded(Box::new(map.next_value_seed(ParamsSeed(operation))?))
                        }
                        None => Params::Raw(Some(map.next_value()?)),
                    };
                    once(&mut parsed.params, params)?;
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(parsed)
    }
}

/// [`OnePass`] over a body that starts as an object.
fn one_pass(body: &[u8]) -> Result<Parsed<'_>, ()> {
    // A document with no more brackets than the envelope's own plus `MAX_DEPTH` cannot nest params
    // deeper than `a2a_proto::json::from_slice` allows; deeper ones are decoded by it, which checks.
    let decode = a2a_proto::json::nesting_bound(body) <= a2a_proto::json::MAX_DEPTH + 1;
    // The body checked as UTF-8 once, eight bytes at a time, then read as text: from bytes,
    // serde_json checks every string it reads on its own (1.5k instructions for an echo
    // SendMessage). A body that is not UTF-8 takes the slow path, with its errors.
    let text = std::str::from_utf8(body).map_err(drop)?;
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let parsed = deserializer.deserialize_map(OnePass { decode }).map_err(drop)?;
    deserializer.end().map_err(drop)?;
    Ok(parsed)
}

/// Reads a request body: -32700 if it is not JSON, -32600 if it is not one request object
/// (batches included, see the crate docs), with the request's id when it could be read.
pub(crate) fn parse_request(body: &[u8]) -> Result<Request<'_>, Rejection> {
    read_request(body, true)
}

/// [`parse_request`], with the params decoded in the envelope's pass if `one_pass` (the tests
/// compare both ways).
fn read_request(body: &[u8], one_pass: bool) -> Result<Request<'_>, Rejection> {
    let reject = |id: Id, reason: String| Rejection { id, error: Error::InvalidRequest { reason } };
    // One pass over a well-formed request object (the common case); anything else takes the
    // slow path, which tells a parse error from an invalid request. Only a body that starts as
    // an object may take the fast path: serde would also read a struct from a JSON array.
    let is_object = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    let members = match is_object.then(|| if one_pass { self::one_pass(body) } else { Err(()) }) {
        Some(Ok(members)) => members,
        // What the pass did not settle is read as before: the params raw, decoded later.
        Some(Err(_)) => match serde_json::from_slice::<Members<'_>>(body) {
            Ok(members) => members.into(),
            Err(_) => members_slowly(body)?.into(),
        },
        None => members_slowly(body)?.into(),
    };
    let id = match members.id {
        None => None,
        Some(raw) => Some(Id::from_raw(raw).ok_or_else(|| {
            reject(
                Id::null(),
                format!("`id` must be a string, a number within a double's range or null, not {}", raw.get()),
            )
        })?),
    };
    // From here on the id is known; errors echo it (or null for a notification).
    let answer_id = || id.clone().unwrap_or_else(Id::null);
    // `"2.0"` as every client writes it is compared as it is; any other spelling (an escape) is
    // read as a string first.
    let version_ok = members.jsonrpc.is_some_and(|raw| {
        raw.get() == r#""2.0""#
            || serde_json::from_str::<String>(raw.get()).is_ok_and(|version| version == VERSION)
    });
    if !version_ok {
        return Err(reject(answer_id(), format!("`jsonrpc` must be the string \"{VERSION}\"")));
    }
    let method = match members.method.map(|raw| serde_json::from_str::<String>(raw.get())) {
        Some(Ok(method)) => method,
        _ => return Err(reject(answer_id(), "`method` must be a string".into())),
    };
    Ok(Request { id, method, params: members.params.unwrap_or(Params::Raw(None)) })
}

/// [`parse_request`]'s members of a body that did not parse in one pass, or why it is not a
/// request object.
fn members_slowly(body: &[u8]) -> Result<Members<'_>, Rejection> {
    let reject = |reason: String| Rejection { id: Id::null(), error: Error::InvalidRequest { reason } };
    let raw: &RawValue = serde_json::from_slice(body)
        .map_err(|e| Rejection { id: Id::null(), error: Error::ParseError { reason: e.to_string() } })?;
    let text = raw.get();
    if text.starts_with('[') {
        return Err(reject(
            "batch requests are not supported; send one request object per HTTP request".into(),
        ));
    }
    if !text.starts_with('{') {
        return Err(reject("the request must be a JSON object".into()));
    }
    // Only duplicate members can fail here: unknown members are ignored.
    serde_json::from_str(text).map_err(|e| reject(format!("malformed request object: {e}")))
}

/// A response object carrying a result.
#[derive(Serialize)]
struct Success<'a, R: ?Sized> {
    jsonrpc: &'static str,
    id: &'a Id,
    result: &'a R,
}

/// A response object carrying an error.
#[derive(Serialize)]
struct Failure<'a> {
    jsonrpc: &'static str,
    id: &'a Id,
    error: ErrorObject,
}

/// The JSON-RPC error object (spec 9.5): `data` is the array of `@type` details, omitted when
/// there are none.
#[derive(Serialize)]
struct ErrorObject {
    code: i64,
    message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    data: Vec<Value>,
}

/// Written when a response cannot be serialized, which only a broken `Serialize` impl can cause.
const UNSERIALIZABLE: &str = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error: the response could not be serialized"}}"#;

/// `{"jsonrpc":"2.0","id":…,"result":…}`, or the serialization failure as an error response.
pub(crate) fn success<R: Serialize + ?Sized>(id: &Id, result: &R) -> String {
    serde_json::to_string(&Success { jsonrpc: VERSION, id, result }).unwrap_or_else(|e| {
        tracing::warn!(error = %e, "cannot serialize a JSON-RPC result");
        failure(id, &Error::internal(format_args!("the result could not be serialized: {e}")))
    })
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` around `result`, JSON text our serializer wrote: copied
/// as it is (no second pass to validate or re-serialize it); the id is the request's, as parsed.
pub(crate) fn success_json(id: &Id, result: &[u8]) -> Vec<u8> {
    let written: Result<_, std::convert::Infallible> = success_with(id, result.len(), |out| {
        out.extend_from_slice(result);
        Ok(())
    });
    let Ok(out) = written;
    out
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` with `message` as the result, ProtoJSON written by
/// a2a-proto's writer (`a2a_proto::json::extend_vec`) straight into the response's buffer: the
/// bytes [`success`] writes, without a buffer of its own for the result to be copied from. The
/// writer's error if the message cannot be written.
pub(crate) fn success_message<T: Serialize + prost::Name>(
    id: &Id,
    message: &T,
) -> Result<Vec<u8>, serde_json::Error> {
    // Room for a small task; a larger result grows the buffer as it is written.
    success_with(id, 1024, |out| a2a_proto::json::extend_vec(out, message))
}

/// `{"jsonrpc":"2.0","id":…,"result":…}` with the result written by `write` straight into the
/// response's buffer (room for `size` bytes of it), so a result is neither copied nor its buffer
/// grown step by step; `write`'s error if it fails.
fn success_with<E>(
    id: &Id,
    size: usize,
    write: impl FnOnce(&mut Vec<u8>) -> Result<(), E>,
) -> Result<Vec<u8>, E> {
    let id = id.0.get();
    let mut out = Vec::with_capacity(size + id.len() + 32);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(br#","result":"#);
    write(&mut out)?;
    out.push(b'}');
    Ok(out)
}

/// `{"jsonrpc":"2.0","id":…,"error":{"code","message","data"}}` for `error` (spec 9.5).
pub(crate) fn failure(id: &Id, error: &Error) -> String {
    let object =
        ErrorObject { code: error::code(error), message: error.to_string(), data: error.to_json_details() };
    serde_json::to_string(&Failure { jsonrpc: VERSION, id, error: object })
        .unwrap_or_else(|_| UNSERIALIZABLE.to_owned())
}

/// A request object as the client sends it; the id is a number from the client's counter.
#[derive(Serialize)]
struct ClientRequest<'a, P> {
    jsonrpc: &'static str,
    id: u64,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    params: Option<&'a P>,
}

/// Serializes a request; `params` `None` omits the member. Fails only if `params` cannot be
/// represented in JSON.
pub(crate) fn request<P: Serialize>(id: u64, method: &str, params: Option<&P>) -> Result<Vec<u8>, Error> {
    serde_json::to_vec(&ClientRequest { jsonrpc: VERSION, id, method, params })
        .map_err(|e| Error::invalid_param("params", format!("cannot be written as JSON: {e}")))
}

/// How a client reads the error objects of a response: `(code, message, data)` to [`Error`].
/// [`error::from_wire`] for 1.0 agents; the 0.3 client reads them with `a2a_v03::error`.
pub(crate) type ReadError = fn(i64, &str, Option<&Value>) -> Error;

/// The members of a response object the client looks at.
#[derive(Deserialize)]
struct ResponseMembers<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<WireError>,
}

/// An error object as received; `data` may be anything a peer sends.
#[derive(Deserialize)]
struct WireError {
    code: i64,
    #[serde(default)]
    message: String,
    #[serde(default)]
    data: Option<Value>,
}

/// Reads a response object (client side): its raw `result`, or the error it carries mapped to
/// [`Error`] by `read_error` (e.g. [`error::from_wire`]). A body that is not a response object for
/// request `expected_id` is [`Error::Transport`]. An error may carry id `null` (the server could
/// not read the request's id); a result must carry the request's id.
pub(crate) fn parse_response(
    body: &[u8],
    expected_id: u64,
    read_error: ReadError,
) -> Result<&RawValue, Error> {
    let not_a_response = |why: String| Error::Transport { reason: format!("not a JSON-RPC response: {why}") };
    let members: ResponseMembers<'_> =
        serde_json::from_slice(body).map_err(|e| not_a_response(e.to_string()))?;
    let id = members.id.map_or("null", RawValue::get);
    let is_ours = serde_json::from_str::<u64>(id).ok() == Some(expected_id);
    match members.error {
        // A server that could not read the request's id answers with id null (JSON-RPC 2.0 §5).
        Some(error) if is_ours || id == "null" => {
            Err(read_error(error.code, &error.message, error.data.as_ref()))
        }
        Some(_) => Err(not_a_response(format!("error for id {id}, expected {expected_id}"))),
        None if !is_ours => Err(not_a_response(format!("id {id} does not match request id {expected_id}"))),
        None => members.result.ok_or_else(|| not_a_response("neither `result` nor `error`".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(body: &str) -> Rejection {
        parse_request(body.as_bytes()).unwrap_err()
    }

    #[test]
    fn ids_are_kept_verbatim_and_a_missing_id_makes_a_notification() {
        for id in [r#""abc""#, "7", "-1.50", "12345678901234567890123", "1e300", "null"] {
            let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"GetTask"}}"#);
            let request = parse_request(body.as_bytes()).unwrap();
            assert_eq!(request.id.unwrap().0.get(), id);
        }
        let request = parse_request(br#"{"jsonrpc":"2.0","method":"GetTask"}"#).unwrap();
        assert!(request.id.is_none());
    }

    #[test]
    fn ids_of_other_types_are_invalid_requests_answered_with_null() {
        // Numbers past a double's range too: echoed, they would make the answer unreadable
        // (found by the `jsonrpc` fuzz target, docs/fuzzing.md).
        for id in ["{}", "[1]", "true", "1e400", "-1e400", "11E11111111111111111111111111177"] {
            let rejection = rejected(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"GetTask"}}"#));
            assert!(matches!(rejection.error, Error::InvalidRequest { .. }), "{id}");
            assert_eq!(rejection.id.0.get(), "null");
        }
    }

    #[test]
    fn the_version_is_the_string_2_0_however_it_is_spelled() {
        for version in [r#""2.0""#, r#""2\u002e0""#, r#""\u0032.0""#] {
            let body = format!(r#"{{"jsonrpc":{version},"id":1,"method":"GetTask"}}"#);
            assert!(parse_request(body.as_bytes()).is_ok(), "{version}");
        }
        for version in ["2.0", "2", r#""2.00""#, r#""2.0 ""#, "null", r#"["2.0"]"#] {
            let rejection = rejected(&format!(r#"{{"jsonrpc":{version},"id":1,"method":"GetTask"}}"#));
            assert!(matches!(rejection.error, Error::InvalidRequest { .. }), "{version}");
        }
        assert!(matches!(rejected(r#"{"id":1,"method":"GetTask"}"#).error, Error::InvalidRequest { .. }));
    }

    #[test]
    fn envelope_errors_after_a_valid_id_echo_it() {
        let rejection = rejected(r#"{"jsonrpc":"1.0","id":"x","method":"GetTask"}"#);
        assert_eq!(rejection.id.0.get(), r#""x""#);
        let rejection = rejected(r#"{"jsonrpc":"2.0","id":3,"method":7}"#);
        assert_eq!(rejection.id.0.get(), "3");
        assert!(matches!(rejection.error, Error::InvalidRequest { .. }));
    }

    #[test]
    fn non_json_is_a_parse_error_and_batches_are_invalid_requests() {
        assert!(matches!(rejected("{").error, Error::ParseError { .. }));
        assert!(matches!(rejected("").error, Error::ParseError { .. }));
        assert!(matches!(rejected("[]").error, Error::InvalidRequest { .. }));
        assert!(matches!(rejected("42").error, Error::InvalidRequest { .. }));
        assert!(matches!(
            rejected(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"GetTask"}"#).error,
            Error::InvalidRequest { .. }
        ));
    }

    /// A request as the server goes on with it: id, method and, for a 1.0 method, the decoded
    /// params or the error of decoding them.
    fn outcome(body: &str, one_pass: bool) -> String {
        outcome_of_bytes(body.as_bytes(), one_pass)
    }

    fn outcome_of_bytes(body: &[u8], one_pass: bool) -> String {
        let request = match read_request(body, one_pass) {
            Ok(request) => request,
            Err(rejection) => return format!("{rejection:?}"),
        };
        let params = match (request.params, Operation::from_method(&request.method)) {
            (Params::Decoded(decoded), _) => Some(Ok(*decoded)),
            (Params::Raw(raw), Some(operation)) => Some(
                crate::dispatch::params_object(raw)
                    .and_then(|text| a2a_core::Request::decode(operation, crate::dispatch::ParamsText(text))),
            ),
            (Params::Raw(_), None) => None,
        };
        format!("{:?} {} {params:?}", request.id, request.method)
    }

    #[test]
    fn params_decoded_in_the_envelopes_pass_are_what_decoding_them_afterwards_gives() {
        let message = r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}"#;
        let deep = format!(r#"{{"metadata":{{"k":{}1{}}}}}"#, r#"{"a":"#.repeat(30), "}".repeat(30));
        let deeper = format!(r#"{{"metadata":{{"k":{}1{}}}}}"#, r#"{"a":"#.repeat(40), "}".repeat(40));
        let params = [
            message,
            r#"{"message":{"messageId":"m","role":"ROLE_USER","parts":null,"extensions":null},"configuration":null}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_NOBODY"}}"#,
            r#"{"message":{"parts":[{"text":1}]}}"#,
            r#"{"message":5}"#,
            r#"{"tenant":"t","tenant":"u"}"#,
            r#"{"id":"t1","future":{"x":[1,null,"\ud800",1e400]}}"#,
            r#"{"id":"t1","id":"t1"}"#,
            r#"{"metadata":{"a":null}}"#,
            "{}",
            "null",
            "[]",
            "[1]",
            "7",
            r#""text""#,
            &deep,
            &deeper,
        ];
        let methods = [
            r#""SendMessage""#,
            r#""SendStreamingMessage""#,
            r#""GetTask""#,
            r#""CancelTask""#,
            r#""CreateTaskPushNotificationConfig""#,
            r#""GetExtendedAgentCard""#,
            r#""Send\u004dessage""#,
            r#""message/send""#,
            r#""Unknown""#,
            "7",
            "null",
        ];
        for method in methods {
            for params in params {
                for body in [
                    format!(r#"{{"jsonrpc":"2.0","id":1,"method":{method},"params":{params}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","method":{method},"params":{params},"id":"x"}}"#),
                    format!(r#"{{"params":{params},"jsonrpc":"2.0","id":1,"method":{method}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","method":{method},"params":{params}}}"#),
                    format!(r#"{{"jsonrpc":"1.0","id":2,"method":{method},"params":{params}}}"#),
                    format!(r#"{{"jsonrpc":"2.0","id":true,"method":{method},"params":{params}}}"#),
                    format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":{method},"params":{params},"params":{{}}}}"#
                    ),
                    format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":{method},"params":{params},"method":"GetTask"}}"#
                    ),
                    format!(r#"{{"jsonrpc":"2.0","id":1,"method":{method},"params":{params}}} x"#),
                    format!(r#"{{"jsonrpc":"2.0","id":1,"method":{method},"params":{params}"#),
                    format!(
                        r#"{{"jsonrpc":"2.0","id":1,"method":{method},"extra":[{params}],"params":{params}}}"#
                    ),
                ] {
                    assert_eq!(outcome(&body, true), outcome(&body, false), "{body}");
                }
            }
        }
    }

    #[test]
    fn a_body_that_is_not_utf8_is_refused_as_the_slow_path_refuses_it() {
        // The one pass reads the body as text once it is known to be UTF-8; anything else is the
        // slow path's, byte for byte the same outcome.
        let valid = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hé"}]}}}"#;
        assert_eq!(outcome(valid, true), outcome(valid, false));
        assert!(outcome(valid, true).contains("SendMessage"), "{}", outcome(valid, true));
        for (at, bad) in [("hé", &b"h\xff"[..]), ("\"m\"", b"\"\xc3\""), ("SendMessage", b"Send\xe9")] {
            let bytes = valid.replacen(at, "\u{0}", 1).into_bytes();
            let zero = bytes.iter().position(|&b| b == 0).unwrap();
            let body = [&bytes[..zero], bad, &bytes[zero + 1..]].concat();
            assert!(std::str::from_utf8(&body).is_err());
            let refused = outcome_of_bytes(&body, true);
            assert_eq!(refused, outcome_of_bytes(&body, false), "{}", String::from_utf8_lossy(&body));
            assert!(refused.contains("ParseError"), "{refused}");
        }
    }

    #[test]
    fn params_after_the_method_are_decoded_in_the_envelopes_pass() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t"}}"#;
        let Params::Decoded(decoded) = parse_request(body.as_bytes()).unwrap().params else { panic!("raw") };
        assert!(matches!(*decoded, a2a_core::Request::GetTask(_)));
        // Before the method, with nulls to normalize, or for a 0.3 method: raw.
        for body in [
            r#"{"jsonrpc":"2.0","id":1,"params":{"id":"t"},"method":"GetTask"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"t","tenant":null}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"t"}}"#,
        ] {
            let request = parse_request(body.as_bytes()).unwrap();
            assert!(request.params.raw().is_some(), "{body}");
        }
    }

    #[test]
    fn responses_write_the_id_raw_and_omit_empty_error_data() {
        let id = Id::from_raw(&RawValue::from_string("12345678901234567890123".into()).unwrap()).unwrap();
        assert_eq!(success(&id, &()), r#"{"jsonrpc":"2.0","id":12345678901234567890123,"result":null}"#);
        assert_eq!(
            failure(&Id::null(), &Error::Transport { reason: "boom".into() }),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"transport error: boom"}}"#,
            "an error without details has no data member"
        );
    }

    #[test]
    fn a_result_with_another_id_is_not_accepted() {
        let error =
            parse_response(br#"{"jsonrpc":"2.0","id":2,"result":{}}"#, 1, error::from_wire).unwrap_err();
        assert!(matches!(error, Error::Transport { .. }), "{error:?}");
        assert_eq!(
            parse_response(br#"{"jsonrpc":"2.0","id":1,"result":null}"#, 1, error::from_wire).unwrap().get(),
            "null"
        );
    }
}
