//! From method to service call: decodes `params` into the operation's request message (spec 9.4)
//! and serializes what the service returns.

use a2a_core::error::FieldViolation;
use a2a_core::{A2aService, CallContext, Error, EventStream, Operation};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::value::RawValue;

/// What a call produced.
pub(crate) enum Outcome {
    /// The `result` of a unary method, as JSON text (written by our serializer: valid JSON, put
    /// into the response as it is, without another pass over it).
    Unary(Vec<u8>),
    /// The events of a streaming method.
    Stream(EventStream),
}

/// Runs `operation` on `service` with the raw `params` of the request.
///
/// Absent or `null` params count as `{}` (JSON-RPC 2.0 lets clients omit them, spec 9.4.8 does
/// for GetExtendedAgentCard); other methods then fail the handler's required-field checks.
pub(crate) async fn call(
    service: &dyn A2aService,
    ctx: &CallContext,
    operation: Operation,
    params: Option<&RawValue>,
) -> Result<Outcome, Error> {
    let params = params_object(params)?;
    match operation {
        Operation::SendMessage => unary(service.send_message(ctx, decode(params)?).await),
        Operation::SendStreamingMessage => {
            Ok(Outcome::Stream(service.send_streaming_message(ctx, decode(params)?).await?))
        }
        Operation::GetTask => unary(service.get_task(ctx, decode(params)?).await),
        Operation::ListTasks => unary(service.list_tasks(ctx, decode(params)?).await),
        Operation::CancelTask => unary(service.cancel_task(ctx, decode(params)?).await),
        Operation::SubscribeToTask => {
            Ok(Outcome::Stream(service.subscribe_to_task(ctx, decode(params)?).await?))
        }
        Operation::CreateTaskPushNotificationConfig => {
            unary(service.create_task_push_notification_config(ctx, decode(params)?).await)
        }
        Operation::GetTaskPushNotificationConfig => {
            unary(service.get_task_push_notification_config(ctx, decode(params)?).await)
        }
        Operation::ListTaskPushNotificationConfigs => {
            unary(service.list_task_push_notification_configs(ctx, decode(params)?).await)
        }
        // The proto returns google.protobuf.Empty; the Python and JS SDKs answer `"result": null`,
        // and so does this server (the client accepts any result).
        Operation::DeleteTaskPushNotificationConfig => {
            service.delete_task_push_notification_config(ctx, decode(params)?).await?;
            Ok(Outcome::Unary(b"null".to_vec()))
        }
        Operation::GetExtendedAgentCard => unary(service.get_extended_agent_card(ctx, decode(params)?).await),
    }
}

/// The JSON text of the params object; `{}` when absent or `null`.
fn params_object(params: Option<&RawValue>) -> Result<&str, Error> {
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
fn unary<T: Serialize + prost::Name>(result: Result<T, Error>) -> Result<Outcome, Error> {
    a2a_proto::json::to_vec(&result?)
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
    fn positional_params_are_invalid_params() {
        let error = params_object(Some(&RawValue::from_string("[1]".into()).unwrap())).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "params");
        assert_eq!(params_object(Some(RawValue::NULL)).unwrap(), "{}");
        assert_eq!(params_object(None).unwrap(), "{}");
    }
}
