//! From method to service call: decodes `params` into the operation's request message (spec 9.4)
//! and serializes what the service returns.

use std::fmt;

use a2a_core::error::FieldViolation;
use a2a_core::{A2aService, CallContext, Decode, Encode, Encoded, Error, EventStream, Operation, Request};
use a2a_proto::WireMessage;
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeSeed, MapAccess, Visitor};
use serde::Deserializer;
use serde_json::value::RawValue;

use crate::envelope::{self, Id, Params};

/// What a call produced.
pub(crate) enum Outcome {
    /// The response object of a unary method, `{"jsonrpc":"2.0","id":…,"result":…}`, the
    /// result written by our serializer straight into it (valid JSON, no other pass over it).
    Unary(Vec<u8>),
    /// The events of a streaming method.
    Stream(EventStream),
}

/// Runs `operation` on `service` with the `params` of the request: decoded already in the
/// envelope's pass (for `operation`, see [`ParamsSeed`]), or raw.
///
/// Absent or `null` params count as `{}` (JSON-RPC 2.0 lets clients omit them, spec 9.4.8 does
/// for GetExtendedAgentCard); other methods then fail the handler's required-field checks.
pub(crate) async fn call(
    service: &dyn A2aService,
    ctx: &CallContext,
    operation: Operation,
    params: Params<'_>,
    id: &Id,
) -> Result<Outcome, Error> {
    let request = match params {
        Params::Decoded(request) => *request,
        Params::Raw(raw) => Request::decode(operation, ParamsText(params_object(raw)?))?,
    };
    match service.call(ctx, request).await?.encode(ResultOf(id)) {
        Encoded::Message(response) => response.map(Outcome::Unary),
        // The proto returns google.protobuf.Empty; the Python and JS SDKs answer `"result": null`,
        // and so does this server (the client accepts any result).
        Encoded::Empty => Ok(Outcome::Unary(envelope::success_json(id, b"null"))),
        Encoded::Stream(events) => Ok(Outcome::Stream(events)),
    }
}

/// Writes a unary result as the response object of request `id`: ProtoJSON, with the fields the
/// spec requires on the wire even at default values (e.g. ListTasksResponse's `nextPageToken`,
/// spec 3.1.4: `a2a_proto::json::to_vec`).
struct ResultOf<'a>(&'a Id);

impl Encode for ResultOf<'_> {
    type Output = Result<Vec<u8>, Error>;

    fn encode<M: WireMessage>(self, message: &M) -> Self::Output {
        envelope::success_message(self.0, message)
            .map_err(|e| Error::internal(format_args!("the result could not be serialized: {e}")))
    }
}

/// The JSON text of a params object, decoded with the workspace's ProtoJSON reader ([`decode`]).
pub(crate) struct ParamsText<'a>(pub(crate) &'a str);

impl Decode for ParamsText<'_> {
    fn decode<M: WireMessage>(self) -> Result<M, Error> {
        decode(self.0)
    }
}

/// Decodes a `params` member in the envelope's own pass, as the request message of the operation:
/// a JSON object only, read strictly as pbjson reads it (what [`a2a_proto::json::from_slice`]
/// tries first). Whatever fails here (`null`s it would normalize, wrong types, non-objects) makes
/// the envelope take its raw path, where [`call`] decodes the params with the usual errors.
pub(crate) struct ParamsSeed(pub(crate) Operation);

impl<'de> DeserializeSeed<'de> for ParamsSeed {
    type Value = Request;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Request, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ParamsSeed {
    type Value = Request;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a params object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Request, A::Error> {
        let mut failed = None;
        Request::decode(self.0, Strict { map, failed: &mut failed })
            .map_err(|_| failed.unwrap_or_else(|| serde::de::Error::custom("not the operation's message")))
    }
}

/// The message read from the map the envelope's pass is at, with pbjson's own rules; its error
/// kept for the envelope (a [`Decode`] answers a2a-core's errors).
struct Strict<'a, A, E> {
    map: A,
    failed: &'a mut Option<E>,
}

impl<'de, A: MapAccess<'de>> Decode for Strict<'_, A, A::Error> {
    fn decode<M: WireMessage>(self) -> Result<M, Error> {
        M::deserialize(MapAccessDeserializer::new(self.map)).map_err(|error| {
            *self.failed = Some(error);
            Error::invalid_param("params", "not the operation's message")
        })
    }
}

/// The JSON text of the params object; `{}` when absent or `null`.
pub(crate) fn params_object(params: Option<&RawValue>) -> Result<&str, Error> {
    match params.map(RawValue::get) {
        None | Some("null") => Ok("{}"),
        Some(text) if text.starts_with('{') => Ok(text),
        Some(_) => Err(Error::invalid_param(
            "params",
            "must be a JSON object of named parameters; A2A methods take no positional parameters",
        )),
    }
}

/// Decodes params into `T` with the workspace's ProtoJSON reader (nulls for absent fields are
/// accepted, unknown fields ignored, spec 5.7). On failure the BadRequest violation names the field
/// path, e.g. `message.parts[0].text`.
pub(crate) fn decode<T: WireMessage>(params: &str) -> Result<T, Error> {
    a2a_proto::json::from_slice::<T>(params.as_bytes()).map_err(|error| Error::InvalidParams {
        violations: vec![FieldViolation {
            field: error.path().unwrap_or("params").to_owned(),
            description: format!("not a valid {}: {}", T::NAME, error.message()),
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{GetTaskRequest, ListTasksRequest, SendMessageRequest};

    fn violation<T: WireMessage>(params: &str) -> FieldViolation {
        let error = decode::<T>(params).unwrap_err();
        error.field_violations()[0].clone()
    }

    #[test]
    fn decode_errors_name_the_field_path() {
        assert_eq!(violation::<GetTaskRequest>(r#"{"id": 5}"#).field, "id");
        assert_eq!(violation::<ListTasksRequest>(r#"{"status": "TASK_STATE_RUNNING"}"#).field, "status");
        let nested = violation::<SendMessageRequest>(
            r#"{"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": 1}]}}"#,
        );
        assert_eq!(nested.field, "message.parts[0].text");
        assert!(nested.description.starts_with("not a valid SendMessageRequest"), "{}", nested.description);
    }

    #[test]
    fn params_decode_by_operation() {
        let decoded = Request::decode(Operation::GetTask, ParamsText(r#"{"id": "t"}"#)).unwrap();
        assert_eq!(decoded, Request::GetTask(GetTaskRequest { id: "t".into(), ..Default::default() }));
        let seeded = ParamsSeed(Operation::GetTask)
            .deserialize(&mut serde_json::Deserializer::from_str(r#"{"id": "t"}"#));
        assert_eq!(seeded.unwrap(), decoded);
        let array =
            ParamsSeed(Operation::GetTask).deserialize(&mut serde_json::Deserializer::from_str(r#"[]"#));
        assert!(array.is_err(), "params are an object, never positional");
    }

    #[test]
    fn positional_params_are_invalid_params() {
        let error = params_object(Some(&RawValue::from_string("[1]".into()).unwrap())).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "params");
        assert_eq!(params_object(Some(RawValue::NULL)).unwrap(), "{}");
        assert_eq!(params_object(None).unwrap(), "{}");
    }
}
