//! From method to service call: decodes `params` into the operation's request message (spec 9.4)
//! and serializes what the service returns.

use std::fmt;

use a2a_core::error::FieldViolation;
use a2a_core::{A2aService, CallContext, Error, EventStream, Operation};
use a2a_proto::v1::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig,
};
use serde::de::value::MapAccessDeserializer;
use serde::de::{DeserializeOwned, DeserializeSeed, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};
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
        Params::Raw(raw) => Decoded::from_params(operation, params_object(raw)?)?,
    };
    match request {
        Decoded::SendMessage(request) => unary(id, service.send_message(ctx, request).await),
        Decoded::SendStreamingMessage(request) => {
            Ok(Outcome::Stream(service.send_streaming_message(ctx, request).await?))
        }
        Decoded::GetTask(request) => unary(id, service.get_task(ctx, request).await),
        Decoded::ListTasks(request) => unary(id, service.list_tasks(ctx, request).await),
        Decoded::CancelTask(request) => unary(id, service.cancel_task(ctx, request).await),
        Decoded::SubscribeToTask(request) => {
            Ok(Outcome::Stream(service.subscribe_to_task(ctx, request).await?))
        }
        Decoded::CreateTaskPushNotificationConfig(request) => {
            unary(id, service.create_task_push_notification_config(ctx, request).await)
        }
        Decoded::GetTaskPushNotificationConfig(request) => {
            unary(id, service.get_task_push_notification_config(ctx, request).await)
        }
        Decoded::ListTaskPushNotificationConfigs(request) => {
            unary(id, service.list_task_push_notification_configs(ctx, request).await)
        }
        // The proto returns google.protobuf.Empty; the Python and JS SDKs answer `"result": null`,
        // and so does this server (the client accepts any result).
        Decoded::DeleteTaskPushNotificationConfig(request) => {
            service.delete_task_push_notification_config(ctx, request).await?;
            Ok(Outcome::Unary(envelope::success_json(id, b"null")))
        }
        Decoded::GetExtendedAgentCard(request) => {
            unary(id, service.get_extended_agent_card(ctx, request).await)
        }
    }
}

macro_rules! decoded {
    ($($operation:ident($message:ident)),* $(,)?) => {
        /// The request message of an operation, decoded from `params`.
        #[derive(Debug, PartialEq)]
        pub(crate) enum Decoded {
            $(
                #[doc = concat!("`", stringify!($operation), "`")]
                $operation($message),
            )*
        }

        impl Decoded {
            /// Decodes the JSON text of a params object as `operation`'s request message
            /// ([`decode`]: the errors name the field).
            pub(crate) fn from_params(operation: Operation, params: &str) -> Result<Self, Error> {
                match operation {
                    $(Operation::$operation => decode::<$message>(params).map(Decoded::$operation),)*
                }
            }
        }

        impl<'de> Visitor<'de> for ParamsSeed {
            type Value = Decoded;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a params object")
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Decoded, A::Error> {
                let message = MapAccessDeserializer::new(map);
                match self.0 {
                    $(Operation::$operation => $message::deserialize(message).map(Decoded::$operation),)*
                }
            }
        }
    };
}

decoded! {
    SendMessage(SendMessageRequest),
    SendStreamingMessage(SendMessageRequest),
    GetTask(GetTaskRequest),
    ListTasks(ListTasksRequest),
    CancelTask(CancelTaskRequest),
    SubscribeToTask(SubscribeToTaskRequest),
    CreateTaskPushNotificationConfig(TaskPushNotificationConfig),
    GetTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest),
    ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest),
    DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest),
    GetExtendedAgentCard(GetExtendedAgentCardRequest),
}

/// Decodes a `params` member in the envelope's own pass, as the request message of the operation:
/// a JSON object only, read strictly as pbjson reads it (what [`a2a_proto::json::from_slice`]
/// tries first). Whatever fails here (`null`s it would normalize, wrong types, non-objects) makes
/// the envelope take its raw path, where [`call`] decodes the params with the usual errors.
pub(crate) struct ParamsSeed(pub(crate) Operation);

impl<'de> DeserializeSeed<'de> for ParamsSeed {
    type Value = Decoded;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Decoded, D::Error> {
        deserializer.deserialize_map(self)
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

/// The result as ProtoJSON, with the fields the spec requires on the wire even at default values
/// (e.g. ListTasksResponse's `nextPageToken`, spec 3.1.4: `a2a_proto::json::to_vec`).
fn unary<T: Serialize + prost::Name>(id: &Id, result: Result<T, Error>) -> Result<Outcome, Error> {
    envelope::success_message(id, &result?)
        .map(Outcome::Unary)
        .map_err(|e| Error::internal(format_args!("the result could not be serialized: {e}")))
}

/// Decodes params into `T` with the workspace's ProtoJSON reader (nulls for absent fields are
/// accepted, unknown fields ignored, spec 5.7). On failure the BadRequest violation names the field
/// path, e.g. `message.parts[0].text`.
pub(crate) fn decode<T: DeserializeOwned + prost::Name>(params: &str) -> Result<T, Error> {
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

    fn violation<T: DeserializeOwned + prost::Name + std::fmt::Debug>(params: &str) -> FieldViolation {
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
        let decoded = Decoded::from_params(Operation::GetTask, r#"{"id": "t"}"#).unwrap();
        assert_eq!(decoded, Decoded::GetTask(GetTaskRequest { id: "t".into(), ..Default::default() }));
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
