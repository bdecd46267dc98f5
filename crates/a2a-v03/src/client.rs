//! The client side of 0.3: what a binding's client needs to call a 0.3 agent with the 1.0
//! [`A2aService`](a2a_core::A2aService) API, beside [`V03Request`](crate::V03Request) (the request and
//! its method), [`rest::http_call`](crate::rest::http_call) (the HTTP+JSON route) and
//! [`client_params`](crate::client_params) (the headers).
//!
//! - [`read_reply`]: a 0.3 result (either [`Form`](crate::Form)) as the 1.0 reply; a reply that
//!   does not translate is [`Error::InvalidAgentResponse`] naming the field: the agent, not the
//!   caller, sent something invalid. [`read_response`]: the same, as the operation's
//!   [`Response`](a2a_core::Response).
//! - [`read_events`]: a 0.3 event stream as a 1.0 [`EventStream`], ending after the event that
//!   ends a 0.3 stream.
//! - [`unsupported`]: the error of a 1.0 operation 0.3 does not have (`ListTasks`), returned
//!   without calling the agent.

use a2a_core::{Error, EventStream, Operation, Result};
use a2a_proto::v1::StreamResponse;
use futures::stream::{BoxStream, StreamExt};
use serde_json::Value;

use crate::convert::V03;
use crate::error::invalid_agent_response;
use crate::json::event::ends_v03_stream;
use crate::method::Method;

/// Reads a 0.3 reply (a JSON-RPC `result`, an HTTP+JSON body, or the ProtoJSON of a gRPC reply)
/// as the 1.0 type `T`. Anything that does not translate is [`Error::InvalidAgentResponse`].
pub fn read_reply<T: V03>(value: &Value) -> Result<T> {
    T::from_v03(value).map_err(invalid_agent_response)
}

pub use crate::service::read_response;

/// The 1.0 events of a 0.3 event stream: each item is one 0.3 event (a JSON-RPC `result` of an
/// SSE event, an HTTP+JSON SSE `data` payload, or the ProtoJSON of a gRPC `StreamResponse`).
///
/// The stream ends
/// - after the event that ends a 0.3 stream: a status update marked `final: true` by the agent,
///   or one the agent should have marked ([`ends_v03_stream`]: terminal or interrupted state, a
///   direct `Message`, a terminal `Task`), so a 0.3 agent that keeps its stream open does not
///   hang the caller (0.3 spec 7.2: the final event "closes the stream");
/// - after the first `Err` item of `source`, which is passed on;
/// - after an event that does not translate, yielded as [`Error::InvalidAgentResponse`].
pub fn read_events(source: BoxStream<'static, Result<Value>>) -> EventStream {
    futures::stream::unfold(Some(source), |source| async move {
        let mut source = source?;
        let item = source.next().await?;
        let (item, more) = match item {
            Err(error) => (Err(error), false),
            Ok(value) => match read_reply::<StreamResponse>(&value) {
                Ok(event) => {
                    let ends = marked_final(&value) || ends_v03_stream(&event);
                    (Ok(event), !ends)
                }
                Err(error) => (Err(error), false),
            },
        };
        Some((item, more.then_some(source)))
    })
    .boxed()
}

/// Whether a 0.3 event says `final: true`: a JSON status update (`{"kind": "status-update",
/// "final": true}`) or a ProtoJSON one (`{"statusUpdate": {"final": true}}`).
fn marked_final(value: &Value) -> bool {
    let is_true = |v: Option<&Value>| v.and_then(Value::as_bool) == Some(true);
    is_true(value.get("final")) || is_true(value.get("statusUpdate").and_then(|s| s.get("final")))
}

/// The error of a 1.0 operation that has no 0.3 counterpart (only `ListTasks`: no `tasks/list`
/// JSON-RPC method, no RPC in the 0.3 proto, and `GET /v1/tasks` is in the 0.3 spec's table but
/// not in its proto, and no SDK serves it). Clients return it without calling the agent.
pub fn unsupported(operation: Operation) -> Error {
    Error::unsupported(format!(
        "{operation} does not exist in A2A 0.3, which this client speaks to the agent; \
         the request was not sent (a 1.0 interface of the agent offers it)"
    ))
}

/// The 0.3 method of `operation`, or [`unsupported`] for `ListTasks`.
pub fn method(operation: Operation) -> Result<Method> {
    Method::from_operation(operation).ok_or_else(|| unsupported(operation))
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{stream_response::Payload, SendMessageResponse, TaskState};
    use futures::stream;
    use serde_json::json;

    fn status(state: &str, marked: bool) -> Value {
        json!({"kind": "status-update", "taskId": "t", "contextId": "c",
               "status": {"state": state}, "final": marked})
    }

    async fn collect(items: Vec<Result<Value>>) -> Vec<Result<StreamResponse>> {
        // A source that would hang after its items: the reader must not ask for more.
        let source = stream::iter(items).chain(stream::pending()).boxed();
        read_events(source).collect().await
    }

    #[tokio::test]
    async fn the_stream_ends_after_the_final_status_update() {
        let events = collect(vec![
            Ok(json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "submitted"}})),
            Ok(status("working", false)),
            Ok(json!({"kind": "artifact-update", "taskId": "t", "contextId": "c",
                      "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "x"}]}})),
            Ok(status("completed", true)),
            Ok(status("working", false)),
        ])
        .await;
        assert_eq!(events.len(), 4);
        let Some(Payload::StatusUpdate(last)) = &events[3].as_ref().unwrap().payload else { panic!() };
        assert_eq!(last.status.as_ref().unwrap().state(), TaskState::Completed);
    }

    #[tokio::test]
    async fn final_ends_the_stream_in_proto_json_too_and_even_on_a_working_state() {
        let marked = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
                            "status": {"state": "TASK_STATE_WORKING"}, "final": true}});
        let events = collect(vec![Ok(marked), Ok(status("completed", true))]).await;
        assert_eq!(events.len(), 1, "the agent said final");
    }

    #[tokio::test]
    async fn an_unmarked_terminal_update_or_a_message_still_ends_the_stream() {
        let events = collect(vec![Ok(status("input-required", false)), Ok(status("working", false))]).await;
        assert_eq!(events.len(), 1);
        let reply = json!({"kind": "message", "messageId": "m", "role": "agent",
                           "parts": [{"kind": "text", "text": "hi"}]});
        let events = collect(vec![Ok(reply), Ok(status("working", false))]).await;
        assert_eq!(events.len(), 1);
    }

    #[tokio::test]
    async fn errors_and_unreadable_events_end_the_stream() {
        let events = collect(vec![Ok(status("working", false)), Err(Error::internal("boom"))]).await;
        assert_eq!(events.len(), 2);
        assert!(matches!(events[1], Err(Error::Internal { .. })));
        let events =
            collect(vec![Ok(json!({"kind": "status-update", "status": {"state": "running"}}))]).await;
        match &events[..] {
            [Err(Error::InvalidAgentResponse { reason })] => {
                assert!(reason.contains("status.state"), "{reason}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn replies_that_do_not_translate_are_invalid_agent_responses() {
        let error = read_reply::<SendMessageResponse>(&json!({"kind": "status-update"})).unwrap_err();
        assert!(matches!(error, Error::InvalidAgentResponse { .. }), "{error:?}");
        let reply = read_reply::<SendMessageResponse>(&json!({"task": {"id": "t", "contextId": "c"}}));
        assert!(reply.is_ok(), "ProtoJSON is read too");
    }

    #[test]
    fn list_tasks_is_the_one_operation_without_a_0_3_method() {
        for operation in Operation::ALL {
            match method(operation) {
                Ok(method) => assert_eq!(method.operation(), operation),
                Err(Error::UnsupportedOperation { reason }) => {
                    assert_eq!(operation, Operation::ListTasks);
                    assert!(reason.contains("ListTasks") && reason.contains("0.3"), "{reason}");
                }
                Err(other) => panic!("{other:?}"),
            }
        }
    }
}
