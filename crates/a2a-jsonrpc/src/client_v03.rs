//! [`JsonRpcClient`] speaking A2A 0.3 (`with_protocol_version(ProtocolVersion::V0_3)`): the same
//! [`A2aService`](a2a_core::A2aService) calls, sent as the 0.3 JSON-RPC methods.
//!
//! The mapping is in the crate docs (*A2A 0.3*); the translation is `a2a-v03`'s, this module only
//! chooses the method and reads the envelope.

use a2a_core::{CallContext, Error, EventStream};
use a2a_v03::{Request as V03Request, V03};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::client::JsonRpcClient;
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

impl JsonRpcClient {
    pub(crate) fn is_v03(&self) -> bool {
        self.protocol_version() == a2a_core::ProtocolVersion::V0_3
    }

    /// Calls the 0.3 method of `request`; returns its `result`.
    pub(crate) async fn call_v03(&self, ctx: &CallContext, request: &V03Request) -> Result<Value, Error> {
        let params = request.to_jsonrpc_params();
        let result = self.call(ctx, request.method().name(), params.as_ref()).await?;
        to_value(&result)
    }

    /// Calls the unary 0.3 method of `request` and reads its result as `R`.
    pub(crate) async fn unary_v03<R: V03>(&self, ctx: &CallContext, request: V03Request) -> Result<R, Error> {
        let result = self.call_v03(ctx, &request).await?;
        a2a_v03::client::read_reply(&result)
    }

    /// Calls the streaming 0.3 method of `request` (`message/stream`, `tasks/resubscribe`).
    pub(crate) async fn streaming_v03(
        &self,
        ctx: &CallContext,
        request: V03Request,
    ) -> Result<EventStream, Error> {
        let params = request.to_jsonrpc_params();
        let (response, id) = self.open_stream(ctx, request.method().name(), params.as_ref()).await?;
        Ok(events(response, id))
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
