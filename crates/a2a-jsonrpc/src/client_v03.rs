//! The 0.3 carriage of [`JsonRpcClient`](crate::JsonRpcClient)
//! (`with_protocol_version(ProtocolVersion::V0_3)`): the same
//! [`A2aService`](a2a_core::A2aService) calls, sent as the 0.3 JSON-RPC methods.
//!
//! The mapping is in the crate docs (*A2A 0.3*); the translation is `a2a-v03`'s, this module only
//! chooses the method and reads the envelope.

use a2a_core::carriage::Carriage;
use a2a_core::{CallContext, Error, EventStream, Operation, ProtocolVersion};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use a2a_v03::{Request as V03Request, V03 as FromV03};
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
/// errors by [`read_error`].
pub(crate) struct V03;

impl V03 {
    /// Calls the 0.3 method of `request`; returns its `result`.
    async fn call(wire: &Wire, ctx: &CallContext, request: &V03Request) -> Result<Value, Error> {
        let params = request.to_jsonrpc_params();
        let headers = a2a_v03::client_params(&ctx.params);
        let result = wire.call(&headers, request.method().name(), params.as_ref(), read_error).await?;
        to_value(&result)
    }

    /// Calls the unary 0.3 method of `request` and reads its result as `R`.
    async fn unary<R: FromV03>(wire: &Wire, ctx: &CallContext, request: V03Request) -> Result<R, Error> {
        let result = Self::call(wire, ctx, &request).await?;
        a2a_v03::client::read_reply(&result)
    }

    /// Calls the streaming 0.3 method of `request` (`message/stream`, `tasks/resubscribe`).
    async fn streaming(wire: &Wire, ctx: &CallContext, request: V03Request) -> Result<EventStream, Error> {
        let params = request.to_jsonrpc_params();
        let headers = a2a_v03::client_params(&ctx.params);
        let (response, id) =
            wire.open_stream(&headers, request.method().name(), params.as_ref(), read_error).await?;
        Ok(events(response, id))
    }
}

#[async_trait]
impl Carriage<Wire> for V03 {
    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V0_3
    }

    async fn send_message(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse, Error> {
        Self::unary(wire, ctx, V03Request::SendMessage(request)).await
    }

    async fn send_streaming_message(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream, Error> {
        Self::streaming(wire, ctx, V03Request::SendStreamingMessage(request)).await
    }

    async fn get_task(&self, wire: &Wire, ctx: &CallContext, request: GetTaskRequest) -> Result<Task, Error> {
        Self::unary(wire, ctx, V03Request::GetTask(request)).await
    }

    async fn list_tasks(
        &self,
        _: &Wire,
        _: &CallContext,
        _: ListTasksRequest,
    ) -> Result<ListTasksResponse, Error> {
        Err(a2a_v03::client::unsupported(Operation::ListTasks))
    }

    async fn cancel_task(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: CancelTaskRequest,
    ) -> Result<Task, Error> {
        Self::unary(wire, ctx, V03Request::CancelTask(request)).await
    }

    async fn subscribe_to_task(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream, Error> {
        Self::streaming(wire, ctx, V03Request::SubscribeToTask(request)).await
    }

    async fn create_task_push_notification_config(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, Error> {
        Self::unary(wire, ctx, V03Request::CreateTaskPushNotificationConfig(request)).await
    }

    async fn get_task_push_notification_config(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, Error> {
        Self::unary(wire, ctx, V03Request::GetTaskPushNotificationConfig(request)).await
    }

    async fn list_task_push_notification_configs(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, Error> {
        Self::unary(wire, ctx, V03Request::ListTaskPushNotificationConfigs(request)).await
    }

    async fn delete_task_push_notification_config(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), Error> {
        // Any result means success, as for 1.0.
        Self::call(wire, ctx, &V03Request::DeleteTaskPushNotificationConfig(request)).await.map(drop)
    }

    async fn get_extended_agent_card(
        &self,
        wire: &Wire,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, Error> {
        Self::unary(wire, ctx, V03Request::GetExtendedAgentCard(request)).await
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
