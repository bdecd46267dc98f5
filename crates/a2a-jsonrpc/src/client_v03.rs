//! The 0.3 carriage of [`JsonRpcClient`](crate::JsonRpcClient)
//! (`with_protocol_version(ProtocolVersion::V0_3)`): the same
//! [`A2aService`](a2a_core::A2aService) calls, sent as the 0.3 JSON-RPC methods.
//!
//! The mapping is in the crate docs (*A2A 0.3*); the translation is `a2a-v03`'s, this module only
//! chooses the method and reads the envelope.

use a2a_core::carriage::Carriage;
use a2a_core::{CallContext, Error, EventStream, ProtocolVersion, Request, Response};
use a2a_v03::V03Request;
use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::client::Wire;
use crate::sse;

/// Reads a 0.3 error object given as its members.
pub(crate) fn read_error(code: i64, message: &str, data: Option<&Value>) -> Error {
    let mut object = json!({ "code": code, "message": message });
    if let Some(data) = data {
        object["data"] = data.clone();
    }
    a2a_v03::error::from_v03(&object)
}

/// A `result` as JSON: anything but JSON is not a 0.3 reply.
fn to_value(result: &RawValue) -> Result<Value, Error> {
    serde_json::from_str(result.get())
        .map_err(|e| Error::InvalidAgentResponse { reason: format!("the result is not JSON: {e}") })
}

/// A2A 0.3: the 0.3 method of each request with its 0.3 `params`, the headers of
/// [`a2a_v03::client_params`] (`A2A-Version: 0.3`, extensions also in `X-A2A-Extensions`),
/// errors by [`read_error`]. `ListTasks`, which 0.3 lacks, is refused without a call.
pub(crate) struct V03;

#[async_trait]
impl Carriage<Wire> for V03 {
    async fn call(&self, wire: &Wire, ctx: &CallContext, request: Request) -> Result<Response, Error> {
        let operation = request.operation();
        let method = a2a_v03::client::method(operation)?.name();
        let params = request.to_jsonrpc_params();
        let headers = a2a_v03::client_params(&ctx.params);
        if operation.is_streaming() {
            let (response, id) = wire.open_stream(&headers, method, params.as_ref(), read_error).await?;
            return Ok(Response::Stream(events(response, id)));
        }
        let result = wire.call(&headers, method, params.as_ref(), read_error).await?;
        // A delete reads nothing: any result means success, as for 1.0.
        a2a_v03::client::read_response(operation, &to_value(&result)?)
    }

    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V0_3
    }
}

/// The 1.0 events of a 0.3 agent's SSE response to request `request_id`: the 0.3 results,
/// translated, ending after the 0.3 stream's final event.
pub(crate) fn events(response: reqwest::Response, request_id: u64) -> EventStream {
    a2a_v03::client::read_events(sse::results(response, request_id, read_error, to_value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_objects_are_read_in_0_3_terms() {
        assert!(matches!(read_error(-32001, "Task not found", None), Error::TaskNotFound { .. }));
        assert!(matches!(read_error(-32002, "no", None), Error::TaskNotCancelable { .. }));
        let details = a2a_core::Error::TaskNotFound { task_id: "t9".into() }.to_json_details();
        let error = read_error(-32001, "m", Some(&Value::Array(details)));
        assert!(matches!(error, Error::TaskNotFound { ref task_id } if task_id == "t9"), "{error:?}");
    }
}
