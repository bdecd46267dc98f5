//! The HTTP+JSON (REST) binding of A2A 0.3: its routes under `/v1` as the 1.0 [`Request`]s they
//! are.
//!
//! The routes are the `google.api.http` annotations of the 0.3 proto (0.3 spec 3.5.6); bodies are
//! ProtoJSON of the proto's request messages, which is what the reference SDKs send (the 0.3 spec's
//! REST section sketches the same members with the JSON-RPC object shapes inside; both are read).
//! Replies are written with [`Form::ProtoJson`](crate::Form::ProtoJson) by
//! [`V03Request::call`](crate::V03Request::call).
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
use a2a_core::Request;

/// The path prefix of every 0.3 HTTP+JSON route (1.0 routes have none).
pub const PREFIX: &str = "/v1/";

/// Whether `path` is a 0.3 HTTP+JSON path (the way SDKs tell 0.3 from 1.0 REST, docs/interop-notes.md).
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
    crate::read::check_depth(body)?;
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

/// A 0.3 HTTP+JSON call as a client sends it: the inverse of [`route`] ([`http_call`]).
#[derive(Debug, Clone, PartialEq)]
pub struct HttpCall {
    /// `GET`, `POST` or `DELETE`.
    pub method: &'static str,
    /// The path, starting with [`PREFIX`], ids percent-encoded; append it to the interface URL's
    /// path.
    pub path: String,
    /// The query string (`historyLength=2`), if any.
    pub query: Option<String>,
    /// The ProtoJSON body of a `POST`.
    pub body: Option<Value>,
}

/// The 0.3 HTTP+JSON call of `request` (client side), following the route table above:
/// ProtoJSON bodies of the 0.3 proto's request messages, ids in the path, `historyLength` and the
/// list's paging in the query.
///
/// - `SubscribeToTask` is a `POST` (the 0.3 spec's method table and 7.9); a client may repeat it
///   as a `GET` without body (the proto annotation) when a server answers 405.
/// - `CreateTaskPushNotificationConfig` posts the proto's `CreateTaskPushNotificationConfigRequest`
///   (`{"parent", "configId", "config"}`, the 0.3 spec's `{config}` payload with the proto's
///   other members), which is what a2a-python's 0.3 server parses.
/// - An id that a path cannot carry (empty, `.` or `..`) is [`Error::InvalidParams`] naming the
///   1.0 field (`id`, `taskId`): `tasks/pushNotificationConfig/get` by task id alone (0.3's
///   `TaskIdParams` form) exists only in JSON-RPC.
pub fn http_call(request: &Request) -> Result<HttpCall> {
    use crate::convert::Form::ProtoJson;
    let task = |field: &str, id: &str| segment(field, id).map(|id| format!("{PREFIX}tasks/{id}"));
    let call = |method, path: String| HttpCall { method, path, query: None, body: None };
    Ok(match request {
        Request::SendMessage(r) => {
            HttpCall { body: Some(r.to_v03(ProtoJson)), ..call("POST", format!("{PREFIX}message:send")) }
        }
        Request::SendStreamingMessage(r) => {
            HttpCall { body: Some(r.to_v03(ProtoJson)), ..call("POST", format!("{PREFIX}message:stream")) }
        }
        Request::GetTask(r) => HttpCall {
            query: query(&r.to_v03(ProtoJson), &["historyLength"]),
            ..call("GET", task("id", &r.id)?)
        },
        Request::CancelTask(r) => HttpCall {
            body: Some(r.to_v03(ProtoJson)),
            ..call("POST", format!("{}:cancel", task("id", &r.id)?))
        },
        Request::SubscribeToTask(r) => HttpCall {
            body: Some(r.to_v03(ProtoJson)),
            ..call("POST", format!("{}:subscribe", task("id", &r.id)?))
        },
        Request::CreateTaskPushNotificationConfig(config) => {
            let body = crate::proto::create_request_to_proto(config)
                .and_then(|proto| serde_json::to_value(proto).map_err(Error::internal))?;
            HttpCall {
                body: Some(body),
                ..call("POST", format!("{}/pushNotificationConfigs", task("taskId", &config.task_id)?))
            }
        }
        Request::ListTaskPushNotificationConfigs(r) => HttpCall {
            query: query(&r.to_v03(ProtoJson), &["pageSize", "pageToken"]),
            ..call("GET", format!("{}/pushNotificationConfigs", task("taskId", &r.task_id)?))
        },
        Request::GetTaskPushNotificationConfig(r) => {
            let path =
                format!("{}/pushNotificationConfigs/{}", task("taskId", &r.task_id)?, segment("id", &r.id)?);
            call("GET", path)
        }
        Request::DeleteTaskPushNotificationConfig(r) => {
            let path =
                format!("{}/pushNotificationConfigs/{}", task("taskId", &r.task_id)?, segment("id", &r.id)?);
            call("DELETE", path)
        }
        Request::GetExtendedAgentCard(_) => call("GET", format!("{PREFIX}card")),
        Request::ListTasks(_) => return Err(crate::client::unsupported(a2a_core::Operation::ListTasks)),
    })
}

/// Everything but RFC 3986 unreserved characters is percent-encoded in path segments (a raw `:`
/// could be read as a custom verb, a raw `/` as another segment).
const SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A path segment carrying the 1.0 field `field`.
fn segment(field: &str, value: &str) -> Result<String> {
    match value {
        "" => Err(invalid(field, "required: a 0.3 HTTP+JSON path cannot carry an empty value")),
        "." | ".." => Err(invalid(field, format!("`{value}` cannot be sent in a URL path"))),
        _ => Ok(percent_encoding::utf8_percent_encode(value, SEGMENT).to_string()),
    }
}

/// The query string of the members `keys` of a ProtoJSON request, if any is set.
fn query(request: &Value, keys: &[&str]) -> Option<String> {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    let mut any = false;
    for key in keys {
        let value = match request.get(*key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
        query.append_pair(key, &value);
        any = true;
    }
    any.then(|| query.finish())
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
    use crate::V03Request as _;
    use a2a_proto::v1::SendMessageRequest;
    use serde_json::json;

    /// HTTP method, path, query, body, and the 0.3 method the route is.
    type Case = (&'static str, &'static str, Option<&'static str>, Option<Value>, crate::Method);

    #[test]
    fn params_nested_deeper_than_the_1_0_bindings_accept_are_invalid_params() {
        // What fuzzing found for the 1.0 JSON bindings (`a2a_proto::json::MAX_DEPTH`) holds for
        // 0.3 requests too: metadata nested 60 deep would make a task no store can decode.
        let mut metadata = json!(1);
        for _ in 0..60 {
            metadata = json!({ "a": metadata });
        }
        let body = json!({"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}],
                                      "metadata": metadata}});
        let error = route("POST", "/v1/message:send", None, Some(&body)).unwrap_err();
        assert!(matches!(error, Error::InvalidParams { .. }), "{error:?}");
        let params = json!({"message": {"kind": "message", "messageId": "m", "role": "user",
                                        "parts": [{"kind": "text", "text": "hi"}], "metadata": metadata}});
        let error = crate::Request::from_jsonrpc(crate::Method::MessageSend, Some(&params)).unwrap_err();
        assert!(matches!(error, Error::InvalidParams { .. }), "{error:?}");
    }

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
            assert_eq!(request.method(), Some(method), "{verb} {path}");
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
    fn client_calls_are_routed_back_to_the_same_request() {
        use a2a_proto::v1::{AuthenticationInfo, Message};
        let send = SendMessageRequest {
            message: Some(Message::user_text("hi")),
            // ProtoJSON always carries a configuration (`blocking`).
            configuration: Some(Default::default()),
            ..Default::default()
        };
        let config = TaskPushNotificationConfig {
            task_id: "t 1".into(),
            id: "c1".into(),
            url: "https://h/hook".into(),
            token: "tok".into(),
            authentication: Some(AuthenticationInfo { scheme: "Bearer".into(), credentials: "x".into() }),
            ..Default::default()
        };
        let requests = [
            Request::SendMessage(send.clone()),
            Request::SendStreamingMessage(send),
            Request::GetTask(GetTaskRequest {
                id: "t/1:x".into(),
                history_length: Some(3),
                ..Default::default()
            }),
            Request::GetTask(GetTaskRequest { id: "t1".into(), ..Default::default() }),
            Request::CancelTask(CancelTaskRequest { id: "t1".into(), ..Default::default() }),
            Request::SubscribeToTask(SubscribeToTaskRequest { id: "t1".into(), ..Default::default() }),
            Request::CreateTaskPushNotificationConfig(config),
            Request::ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest {
                task_id: "t1".into(),
                ..Default::default()
            }),
            Request::GetTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest {
                task_id: "t1".into(),
                id: "c 1".into(),
                ..Default::default()
            }),
            Request::DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest {
                task_id: "t1".into(),
                id: "c1".into(),
                ..Default::default()
            }),
            Request::GetExtendedAgentCard(GetExtendedAgentCardRequest::default()),
        ];
        for request in requests {
            let call = http_call(&request).unwrap();
            assert!(is_v03_path(&call.path), "{call:?}");
            let back = route(call.method, &call.path, call.query.as_deref(), call.body.as_ref()).unwrap();
            assert_eq!(back, request, "{call:?}");
        }
    }

    #[test]
    fn client_calls_encode_ids_and_carry_queries_and_proto_json_bodies() {
        let get = GetTaskRequest { id: "a/b c:d".into(), history_length: Some(2), ..Default::default() };
        let call = http_call(&Request::GetTask(get)).unwrap();
        assert_eq!((call.method, call.path.as_str()), ("GET", "/v1/tasks/a%2Fb%20c%3Ad"));
        assert_eq!(call.query.as_deref(), Some("historyLength=2"));
        let list = ListTaskPushNotificationConfigsRequest {
            task_id: "t".into(),
            page_size: 5,
            page_token: "p".into(),
            ..Default::default()
        };
        let call = http_call(&Request::ListTaskPushNotificationConfigs(list)).unwrap();
        assert_eq!(call.query.as_deref(), Some("pageSize=5&pageToken=p"));
        let send = SendMessageRequest::default();
        let call = http_call(&Request::SendMessage(send)).unwrap();
        assert_eq!(call.body.unwrap()["configuration"]["blocking"], true, "ProtoJSON of the 0.3 proto");
        let config =
            TaskPushNotificationConfig { task_id: "t".into(), url: "https://h".into(), ..Default::default() };
        let body = http_call(&Request::CreateTaskPushNotificationConfig(config)).unwrap().body.unwrap();
        assert_eq!(body["parent"], "tasks/t");
        assert_eq!(body["config"]["pushNotificationConfig"]["url"], "https://h");
    }

    #[test]
    fn ids_a_path_cannot_carry_are_invalid_params_naming_the_field() {
        let by_task_only = GetTaskPushNotificationConfigRequest { task_id: "t".into(), ..Default::default() };
        let error = http_call(&Request::GetTaskPushNotificationConfig(by_task_only)).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "id");
        let dot = CancelTaskRequest { id: "..".into(), ..Default::default() };
        let error = http_call(&Request::CancelTask(dot)).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "id");
        let empty = TaskPushNotificationConfig::default();
        let error = http_call(&Request::CreateTaskPushNotificationConfig(empty)).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "taskId");
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
