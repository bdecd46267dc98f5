//! The HTTP+JSON (REST) binding of A2A 0.3: its routes under `/v1` as [`Request`]s.
//!
//! The routes are the `google.api.http` annotations of the 0.3 proto (0.3 spec 3.5.6); bodies are
//! ProtoJSON of the proto's request messages, which is what the reference SDKs send (the 0.3 spec's
//! REST section sketches the same members with the JSON-RPC object shapes inside; both are read).
//! Replies are written with [`Form::ProtoJson`](crate::Form::ProtoJson) by
//! [`Request::call`].
//!
//! | HTTP | 0.3 path | request |
//! | --- | --- | --- |
//! | `POST` | `/v1/message:send` | `SendMessage` (body: `SendMessageRequest`) |
//! | `POST` | `/v1/message:stream` | `SendStreamingMessage` (SSE reply) |
//! | `GET` | `/v1/tasks/{id}?historyLength=N` | `GetTask` |
//! | `POST` | `/v1/tasks/{id}:cancel` | `CancelTask` (body ignored) |
//! | `GET`, `POST` | `/v1/tasks/{id}:subscribe` | `SubscribeToTask` (SSE reply; the proto says GET, the spec text POST) |
//! | `POST` | `/v1/tasks/{id}/pushNotificationConfigs` | `CreateTaskPushNotificationConfig` (body: the config, any form) |
//! | `GET` | `/v1/tasks/{id}/pushNotificationConfigs` | `ListTaskPushNotificationConfigs` |
//! | `GET` | `/v1/tasks/{id}/pushNotificationConfigs/{configId}` | `GetTaskPushNotificationConfig` |
//! | `DELETE` | `/v1/tasks/{id}/pushNotificationConfigs/{configId}` | `DeleteTaskPushNotificationConfig` |
//! | `GET` | `/v1/card` | `GetExtendedAgentCard` |
//!
//! `GET /v1/tasks` appears in the 0.3 spec's table but not in the 0.3 proto, and no SDK serves it:
//! it is [`Error::UnsupportedOperation`]. Ids in the path win over ids in a body.

use a2a_core::{Error, Result};
use a2a_proto::v1::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    SubscribeToTaskRequest, TaskPushNotificationConfig,
};
use serde_json::Value;

use crate::convert::V03;
use crate::json::request::send_message_from_proto;
use crate::read::invalid;
use crate::service::Request;

/// The path prefix of every 0.3 HTTP+JSON route (1.0 routes have none).
pub const PREFIX: &str = "/v1/";

/// Whether `path` is a 0.3 HTTP+JSON path (the way SDKs tell 0.3 from 1.0 REST, INTEROP-NOTES).
pub fn is_v03_path(path: &str) -> bool {
    path.starts_with(PREFIX)
}

/// The request of a 0.3 HTTP+JSON call: `http_method` (`GET`, `POST`, `DELETE`, any case), the
/// path (without query), the query string if any, and the parsed JSON body if any.
///
/// Unknown routes are [`Error::MethodNotFound`] naming method and path; invalid bodies or query
/// values are [`Error::InvalidParams`] naming the 0.3 field.
pub fn route(http_method: &str, path: &str, query: Option<&str>, body: Option<&Value>) -> Result<Request> {
    let not_found =
        || Error::MethodNotFound { method: format!("{} {path}", http_method.to_ascii_uppercase()) };
    let rest = path.strip_prefix(PREFIX).ok_or_else(not_found)?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let segments: Vec<&str> = rest.split('/').collect();
    let body = body.unwrap_or(&Value::Null);
    let verb = http_method.to_ascii_uppercase();
    let request = match (verb.as_str(), segments.as_slice()) {
        ("POST", ["message:send"]) => Request::SendMessage(send_message_from_proto(body)?),
        ("POST", ["message:stream"]) => Request::SendStreamingMessage(send_message_from_proto(body)?),
        ("GET", ["card"]) => Request::GetExtendedAgentCard(GetExtendedAgentCardRequest::default()),
        ("GET", ["tasks"]) => {
            return Err(Error::unsupported(
                "listing tasks (GET /v1/tasks) is not part of the A2A 0.3 protocol definition",
            ))
        }
        (verb, ["tasks", task]) => match (verb, task.rsplit_once(':')) {
            ("POST", Some((id, "cancel"))) => {
                Request::CancelTask(CancelTaskRequest { id: decode(id)?, ..Default::default() })
            }
            ("GET" | "POST", Some((id, "subscribe"))) => {
                Request::SubscribeToTask(SubscribeToTaskRequest { id: decode(id)?, ..Default::default() })
            }
            ("GET", _) => Request::GetTask(GetTaskRequest {
                id: decode(task)?,
                history_length: history_length(query)?,
                ..Default::default()
            }),
            _ => return Err(not_found()),
        },
        ("POST", ["tasks", task, "pushNotificationConfigs"]) => {
            let mut config = TaskPushNotificationConfig::from_v03(body)?;
            config.task_id = decode(task)?;
            Request::CreateTaskPushNotificationConfig(config)
        }
        ("GET", ["tasks", task, "pushNotificationConfigs"]) => {
            Request::ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest {
                task_id: decode(task)?,
                ..Default::default()
            })
        }
        ("GET", ["tasks", task, "pushNotificationConfigs", id]) => {
            Request::GetTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest {
                task_id: decode(task)?,
                id: decode(id)?,
                ..Default::default()
            })
        }
        ("DELETE", ["tasks", task, "pushNotificationConfigs", id]) => {
            Request::DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest {
                task_id: decode(task)?,
                id: decode(id)?,
                ..Default::default()
            })
        }
        _ => return Err(not_found()),
    };
    Ok(request)
}

/// A percent-decoded path segment.
fn decode(segment: &str) -> Result<String> {
    percent_encoding::percent_decode_str(segment)
        .decode_utf8()
        .map(|s| s.into_owned())
        .map_err(|_| Error::InvalidRequest { reason: format!("path segment {segment:?} is not UTF-8") })
}

/// `historyLength` from the query (0 is "no limit" in 0.3, as in a body).
fn history_length(query: Option<&str>) -> Result<Option<i32>> {
    let Some(query) = query else { return Ok(None) };
    let Some((_, value)) = url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "historyLength" || name == "history_length")
    else {
        return Ok(None);
    };
    match value.trim().parse::<i32>() {
        Ok(n) if n < 0 => Err(invalid("historyLength", format!("must be a non-negative integer, got {n}"))),
        Ok(0) => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(_) => Err(invalid("historyLength", format!("must be an integer, got {value:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// HTTP method, path, query, body, and the 0.3 method the route is.
    type Case = (&'static str, &'static str, Option<&'static str>, Option<Value>, crate::Method);

    #[test]
    fn every_route_maps_to_its_request() {
        let send = json!({"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]}});
        let cases: Vec<Case> = vec![
            ("POST", "/v1/message:send", None, Some(send.clone()), crate::Method::MessageSend),
            ("POST", "/v1/message:stream", None, Some(send), crate::Method::MessageStream),
            ("GET", "/v1/tasks/t1", Some("historyLength=2"), None, crate::Method::TasksGet),
            (
                "POST",
                "/v1/tasks/t1:cancel",
                None,
                Some(json!({"name": "tasks/t1"})),
                crate::Method::TasksCancel,
            ),
            ("GET", "/v1/tasks/t1:subscribe", None, None, crate::Method::TasksResubscribe),
            ("POST", "/v1/tasks/t1:subscribe", None, None, crate::Method::TasksResubscribe),
            (
                "POST",
                "/v1/tasks/t1/pushNotificationConfigs",
                None,
                Some(json!({"pushNotificationConfig": {"url": "https://h/x"}})),
                crate::Method::PushNotificationConfigSet,
            ),
            (
                "GET",
                "/v1/tasks/t1/pushNotificationConfigs",
                None,
                None,
                crate::Method::PushNotificationConfigList,
            ),
            (
                "GET",
                "/v1/tasks/t1/pushNotificationConfigs/c1",
                None,
                None,
                crate::Method::PushNotificationConfigGet,
            ),
            (
                "delete",
                "/v1/tasks/t1/pushNotificationConfigs/c1",
                None,
                None,
                crate::Method::PushNotificationConfigDelete,
            ),
            ("GET", "/v1/card", None, None, crate::Method::GetAuthenticatedExtendedCard),
        ];
        for (verb, path, query, body, method) in cases {
            let request = route(verb, path, query, body.as_ref()).unwrap();
            assert_eq!(request.method(), method, "{verb} {path}");
        }
    }

    #[test]
    fn path_ids_are_decoded_and_win_over_the_body() {
        let Request::GetTask(get) = route("GET", "/v1/tasks/a%20b", Some("historyLength=3"), None).unwrap()
        else {
            panic!()
        };
        assert_eq!((get.id.as_str(), get.history_length), ("a b", Some(3)));
        let body = json!({"taskId": "other", "pushNotificationConfig": {"url": "https://h/x"}});
        let Request::CreateTaskPushNotificationConfig(config) =
            route("POST", "/v1/tasks/t1/pushNotificationConfigs", None, Some(&body)).unwrap()
        else {
            panic!()
        };
        assert_eq!(config.task_id, "t1");
        let Request::DeleteTaskPushNotificationConfig(delete) =
            route("DELETE", "/v1/tasks/t1/pushNotificationConfigs/c%2F1", None, None).unwrap()
        else {
            panic!()
        };
        assert_eq!(delete.id, "c/1");
    }

    #[test]
    fn unknown_routes_list_tasks_and_bad_queries_are_errors() {
        assert!(matches!(route("GET", "/v1/nope", None, None), Err(Error::MethodNotFound { .. })));
        assert!(matches!(route("PUT", "/v1/message:send", None, None), Err(Error::MethodNotFound { .. })));
        assert!(matches!(route("GET", "/message:send", None, None), Err(Error::MethodNotFound { .. })));
        assert!(matches!(route("GET", "/v1/tasks", None, None), Err(Error::UnsupportedOperation { .. })));
        let err = route("GET", "/v1/tasks/t", Some("historyLength=x"), None).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "historyLength");
        let Request::GetTask(get) = route("GET", "/v1/tasks/t", Some("historyLength=0"), None).unwrap()
        else {
            panic!()
        };
        assert_eq!(get.history_length, None, "0 is no limit in 0.3");
        assert!(is_v03_path("/v1/card") && !is_v03_path("/tasks/t1"));
    }
}
