//! The requests of the 0.3 methods (JSON-RPC `params`, and the ProtoJSON request messages of the
//! 0.3 proto) as the 1.0 request messages.
//!
//! | 0.3 method | 0.3 params (JSON) | 0.3 proto request | 1.0 request |
//! | --- | --- | --- | --- |
//! | `message/send`, `message/stream` | `MessageSendParams` | `SendMessageRequest` | `SendMessageRequest` |
//! | `tasks/get` | `TaskQueryParams {id, historyLength}` | `GetTaskRequest {name, historyLength}` | `GetTaskRequest` |
//! | `tasks/cancel` | `TaskIdParams {id, metadata}` | `CancelTaskRequest {name}` | `CancelTaskRequest` |
//! | `tasks/resubscribe` | `TaskIdParams` | `TaskSubscriptionRequest {name}` | `SubscribeToTaskRequest` |
//! | `tasks/pushNotificationConfig/set` | `TaskPushNotificationConfig` | `CreateTaskPushNotificationConfigRequest` | `TaskPushNotificationConfig` |
//! | `tasks/pushNotificationConfig/get` | `{id, pushNotificationConfigId}` | `{name}` | `GetTaskPushNotificationConfigRequest {taskId, id}` |
//! | `tasks/pushNotificationConfig/list` | `{id}` | `{parent, pageSize, pageToken}` | `ListTaskPushNotificationConfigsRequest` |
//! | `tasks/pushNotificationConfig/delete` | `{id, pushNotificationConfigId}` | `{name}` | `DeleteTaskPushNotificationConfigRequest` |
//! | `agent/getAuthenticatedExtendedCard` | (none) | `GetAgentCardRequest {}` | `GetExtendedAgentCardRequest` |
//!
//! **`MessageSendConfiguration`.** `blocking` is the inverse of 1.0's `returnImmediately`. In the
//! JSON form an absent `blocking` means blocking (the 0.3 SDKs' default and 1.0's). In the proto
//! form (HTTP+JSON bodies, gRPC) `blocking` is a plain proto3 `bool`, so `false` is never on the
//! wire: a `configuration` without `blocking` is non-blocking, as a2a-sdk 0.3's REST and gRPC
//! clients mean it and as both 0.3 SDK servers read it; a request without any `configuration`
//! stays blocking ([`send_message_from_proto`]). `pushNotificationConfig` (JSON) /
//! `pushNotification` (proto) is the 1.0 `taskPushNotificationConfig`. We always write `blocking`
//! explicitly.
//!
//! **`historyLength`.** 0.3 reads 0 as "no limit" (the proto says so, and a2a-python applies no
//! limit for 0), 1.0 reads it as "no history" and uses "unset" for no limit. So a 0.3 `0` becomes
//! unset; a negative length is invalid. Writing, a 1.0 `0` is sent as `0` in JSON (a server that
//! follows the schema text returns no history, one that follows the SDKs all of it) and omitted in
//! ProtoJSON, where `0` cannot mean anything else than "no limit".
//!
//! **Dropped.** `metadata` of `tasks/get`, `tasks/resubscribe` and the push config methods (1.0's
//! requests have none); 1.0's `tenant` (0.3 has no tenants); the proto list's paging fields on
//! JSON-RPC.
//!
//! `tasks/pushNotificationConfig/get` with only a task `id` (0.3's `TaskIdParams` form, from the
//! days of one config per task) becomes a 1.0 request with an empty config `id`;
//! [`V03Request::call`](crate::V03Request::call) answers it with the task's first config, as the 0.3
//! SDKs did.

use a2a_core::Result;
use a2a_proto::v1::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    SendMessageConfiguration, SendMessageRequest, SubscribeToTaskRequest,
};
use serde_json::{json, Map, Value};

use crate::convert::{Form, V03};
use crate::json::message;
use crate::json::message::{insert_str, insert_strings, insert_struct};
use crate::json::push::{config_from_name, config_name, read_config, task_from_name, write_config};
use crate::read::{invalid, Obj};

/// A params object; absent or `null` params read as `{}` (so that required members are reported
/// by name rather than as "params missing").
fn params(value: &Value) -> Result<Obj<'_>> {
    match value {
        Value::Null => Obj::new(empty(), ""),
        other => Obj::new(other, ""),
    }
}

fn empty() -> &'static Value {
    use std::sync::OnceLock;
    static EMPTY: OnceLock<Value> = OnceLock::new();
    EMPTY.get_or_init(|| Value::Object(Map::new()))
}

/// A task id from `id` (JSON) or `name: "tasks/{id}"` (ProtoJSON).
fn task_id(o: &Obj<'_>) -> Result<String> {
    match o.str("name")? {
        Some(name) if !o.has("id") => task_from_name(name, &o.at("name")),
        _ => o.string("id"),
    }
}

/// A 0.3 `historyLength` as a 1.0 one: 0 is "no limit" in 0.3 (module docs).
fn history_length(o: &Obj<'_>, key: &str) -> Result<Option<i32>> {
    match o.int(key)? {
        Some(n) if n < 0 => Err(invalid(&o.at(key), format!("must be a non-negative integer, got {n}"))),
        Some(0) | None => Ok(None),
        Some(n) => Ok(Some(n)),
    }
}

fn write_history_length(object: &mut Map<String, Value>, key: &str, value: Option<i32>, form: Form) {
    match (value, form) {
        (Some(0), Form::ProtoJson) | (None, _) => {}
        (Some(n), _) => {
            object.insert(key.into(), n.into());
        }
    }
}

impl V03 for SendMessageRequest {
    /// Reads `MessageSendParams` (JSON) or the proto `SendMessageRequest` (ProtoJSON).
    fn from_v03(value: &Value) -> Result<Self> {
        let o = params(value)?;
        let configuration = match o.obj("configuration")? {
            None => None,
            Some(c) => Some(SendMessageConfiguration {
                accepted_output_modes: c.strings("acceptedOutputModes")?,
                task_push_notification_config: match c.first(&["pushNotificationConfig", "pushNotification"])
                {
                    Some((key, config)) => Some(read_config(config, &c.at(key))?),
                    None => None,
                },
                history_length: history_length(&c, "historyLength")?,
                // Absent `blocking` means blocking (module docs).
                return_immediately: !c.bool("blocking")?.unwrap_or(true),
            }),
        };
        Ok(SendMessageRequest {
            tenant: String::new(),
            message: o.get("message").map(|m| message::read(m, "message")).transpose()?,
            configuration,
            metadata: o.structure("metadata")?,
        })
    }

    fn to_v03(&self, form: Form) -> Value {
        let mut object = Map::new();
        if let Some(message) = &self.message {
            object.insert("message".into(), message::write(message, form));
        }
        // ProtoJSON: always send a configuration, because a proto `blocking` defaults to false.
        let configuration = match (&self.configuration, form) {
            (Some(c), _) => Some(c.clone()),
            (None, Form::ProtoJson) => Some(SendMessageConfiguration::default()),
            (None, Form::Json) => None,
        };
        if let Some(c) = configuration {
            let mut config = Map::new();
            insert_strings(&mut config, "acceptedOutputModes", &c.accepted_output_modes);
            if let Some(push) = &c.task_push_notification_config {
                let key = if form == Form::Json { "pushNotificationConfig" } else { "pushNotification" };
                config.insert(key.into(), write_config(push, form));
            }
            write_history_length(&mut config, "historyLength", c.history_length, form);
            config.insert("blocking".into(), (!c.return_immediately).into());
            object.insert("configuration".into(), Value::Object(config));
        }
        insert_struct(&mut object, "metadata", self.metadata.as_ref());
        Value::Object(object)
    }
}

/// Reads the proto form of `message/send` / `message/stream` (the HTTP+JSON body, or the gRPC
/// message as ProtoJSON): like [`V03::from_v03`], except that a `configuration` without
/// `blocking` is non-blocking (module docs: proto3 never writes `blocking: false`).
pub fn send_message_from_proto(value: &Value) -> Result<SendMessageRequest> {
    let mut request = SendMessageRequest::from_v03(value)?;
    let blocking_unset = value
        .get("configuration")
        .and_then(Value::as_object)
        .is_some_and(|c| c.get("blocking").is_none_or(Value::is_null));
    if let (true, Some(configuration)) = (blocking_unset, request.configuration.as_mut()) {
        configuration.return_immediately = true;
    }
    Ok(request)
}

impl V03 for GetTaskRequest {
    /// Reads `TaskQueryParams` (JSON) or the proto `GetTaskRequest` (ProtoJSON).
    fn from_v03(value: &Value) -> Result<Self> {
        let o = params(value)?;
        o.structure("metadata")?;
        Ok(GetTaskRequest {
            tenant: String::new(),
            id: task_id(&o)?,
            history_length: history_length(&o, "historyLength")?,
        })
    }

    fn to_v03(&self, form: Form) -> Value {
        let mut object = id_object(&self.id, form);
        write_history_length(&mut object, "historyLength", self.history_length, form);
        Value::Object(object)
    }
}

/// `{"id": id}` (JSON) or `{"name": "tasks/{id}"}` (ProtoJSON).
fn id_object(id: &str, form: Form) -> Map<String, Value> {
    match form {
        Form::Json => Map::from_iter([("id".to_owned(), Value::from(id))]),
        Form::ProtoJson => Map::from_iter([("name".to_owned(), Value::from(format!("tasks/{id}")))]),
    }
}

impl V03 for CancelTaskRequest {
    /// Reads `TaskIdParams` (JSON, with `metadata`) or the proto `CancelTaskRequest` (ProtoJSON).
    fn from_v03(value: &Value) -> Result<Self> {
        let o = params(value)?;
        Ok(CancelTaskRequest { tenant: String::new(), id: task_id(&o)?, metadata: o.structure("metadata")? })
    }

    /// The proto `CancelTaskRequest` has no metadata: it is dropped in ProtoJSON.
    fn to_v03(&self, form: Form) -> Value {
        let mut object = id_object(&self.id, form);
        if form == Form::Json {
            insert_struct(&mut object, "metadata", self.metadata.as_ref());
        }
        Value::Object(object)
    }
}

impl V03 for SubscribeToTaskRequest {
    /// Reads `TaskIdParams` (JSON) or the proto `TaskSubscriptionRequest` (ProtoJSON).
    fn from_v03(value: &Value) -> Result<Self> {
        let o = params(value)?;
        o.structure("metadata")?;
        Ok(SubscribeToTaskRequest { tenant: String::new(), id: task_id(&o)? })
    }

    fn to_v03(&self, form: Form) -> Value {
        Value::Object(id_object(&self.id, form))
    }
}

/// `(task id, config id)` of a get/delete request in either form.
fn config_ids(value: &Value) -> Result<(String, String)> {
    let o = params(value)?;
    o.structure("metadata")?;
    match o.str("name")? {
        Some(name) if !o.has("id") => config_from_name(name, &o.at("name")),
        _ => Ok((o.string("id")?, o.string("pushNotificationConfigId")?)),
    }
}

fn write_config_ids(task_id: &str, id: &str, form: Form) -> Value {
    match form {
        Form::Json => {
            let mut object = Map::from_iter([("id".to_owned(), Value::from(task_id))]);
            insert_str(&mut object, "pushNotificationConfigId", id);
            Value::Object(object)
        }
        Form::ProtoJson => json!({ "name": config_name(task_id, id) }),
    }
}

impl V03 for GetTaskPushNotificationConfigRequest {
    /// Reads `GetTaskPushNotificationConfigParams` or `TaskIdParams` (JSON) or the proto request.
    fn from_v03(value: &Value) -> Result<Self> {
        let (task_id, id) = config_ids(value)?;
        Ok(GetTaskPushNotificationConfigRequest { tenant: String::new(), task_id, id })
    }

    fn to_v03(&self, form: Form) -> Value {
        write_config_ids(&self.task_id, &self.id, form)
    }
}

impl V03 for DeleteTaskPushNotificationConfigRequest {
    /// Reads `DeleteTaskPushNotificationConfigParams` (JSON) or the proto request (ProtoJSON).
    fn from_v03(value: &Value) -> Result<Self> {
        let (task_id, id) = config_ids(value)?;
        Ok(DeleteTaskPushNotificationConfigRequest { tenant: String::new(), task_id, id })
    }

    fn to_v03(&self, form: Form) -> Value {
        write_config_ids(&self.task_id, &self.id, form)
    }
}

impl V03 for ListTaskPushNotificationConfigsRequest {
    /// Reads `ListTaskPushNotificationConfigParams` (JSON) or the proto request (ProtoJSON, with
    /// `parent: "tasks/{id}"` and paging).
    fn from_v03(value: &Value) -> Result<Self> {
        let o = params(value)?;
        o.structure("metadata")?;
        let task_id = match o.str("parent")? {
            Some(parent) if !o.has("id") => task_from_name(parent, &o.at("parent"))?,
            _ => o.string("id")?,
        };
        Ok(ListTaskPushNotificationConfigsRequest {
            tenant: String::new(),
            task_id,
            page_size: o.int("pageSize")?.unwrap_or(0),
            page_token: o.string("pageToken")?,
        })
    }

    /// JSON-RPC 0.3 has no paging: `pageSize` and `pageToken` are only written in ProtoJSON.
    fn to_v03(&self, form: Form) -> Value {
        match form {
            Form::Json => json!({ "id": self.task_id }),
            Form::ProtoJson => {
                let mut object =
                    Map::from_iter([("parent".to_owned(), Value::from(format!("tasks/{}", self.task_id)))]);
                if self.page_size != 0 {
                    object.insert("pageSize".into(), self.page_size.into());
                }
                insert_str(&mut object, "pageToken", &self.page_token);
                Value::Object(object)
            }
        }
    }
}

impl V03 for GetExtendedAgentCardRequest {
    /// `agent/getAuthenticatedExtendedCard` has no params; anything given is ignored.
    fn from_v03(_value: &Value) -> Result<Self> {
        Ok(GetExtendedAgentCardRequest::default())
    }

    /// An empty object (a JSON-RPC client omits `params` for this method altogether).
    fn to_v03(&self, _form: Form) -> Value {
        Value::Object(Map::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{Message, Role};

    fn send_params() -> Value {
        json!({
            "message": {"kind": "message", "messageId": "m1", "role": "user",
                        "parts": [{"kind": "text", "text": "hi"}]},
            "configuration": {
                "acceptedOutputModes": ["text/plain"], "blocking": false, "historyLength": 5,
                "pushNotificationConfig": {"url": "https://h/hook", "token": "t",
                                           "authentication": {"schemes": ["Bearer"]}}
            },
            "metadata": {"trace": "x"}
        })
    }

    #[test]
    fn message_send_params_map_to_send_message_request_with_blocking_inverted() {
        let request = SendMessageRequest::from_v03(&send_params()).unwrap();
        let config = request.configuration.as_ref().unwrap();
        assert!(config.return_immediately, "blocking: false is returnImmediately: true");
        assert_eq!(config.history_length, Some(5));
        assert_eq!(config.accepted_output_modes, ["text/plain"]);
        let push = config.task_push_notification_config.as_ref().unwrap();
        assert_eq!((push.url.as_str(), push.token.as_str()), ("https://h/hook", "t"));
        assert_eq!(push.authentication.as_ref().unwrap().scheme, "Bearer");
        assert_eq!(request.message.as_ref().unwrap().role(), Role::User);
        assert_eq!(request.to_v03(Form::Json), send_params());
    }

    #[test]
    fn an_absent_blocking_reads_as_blocking_and_is_always_written() {
        for params in [json!({"configuration": {}}), json!({"configuration": {"historyLength": 0}})] {
            let request = SendMessageRequest::from_v03(&params).unwrap();
            assert!(!request.configuration.unwrap().return_immediately, "{params}");
        }
        let proto = SendMessageRequest { message: Some(Message::user_text("x")), ..Default::default() }
            .to_v03(Form::ProtoJson);
        assert_eq!(proto["configuration"], json!({"blocking": true}), "ProtoJSON always says blocking");
        assert_eq!(proto["message"]["role"], "ROLE_USER");
    }

    #[test]
    fn a_proto_configuration_without_blocking_is_non_blocking() {
        let message = json!({"messageId": "m", "role": "ROLE_USER", "content": [{"text": "x"}]});
        let read = |body: Value| send_message_from_proto(&body).unwrap().configuration;
        let config = read(json!({"message": message, "configuration": {"acceptedOutputModes": []}}));
        assert!(config.unwrap().return_immediately, "proto3 does not write blocking: false");
        let config = read(json!({"message": message, "configuration": {"blocking": true}}));
        assert!(!config.unwrap().return_immediately);
        let config = read(json!({"message": message, "configuration": {"blocking": null}}));
        assert!(config.unwrap().return_immediately);
        assert_eq!(read(json!({"message": message})), None, "no configuration: blocking (1.0's default)");
    }

    #[test]
    fn the_proto_send_request_uses_push_notification_and_content() {
        let request = SendMessageRequest::from_v03(&send_params()).unwrap();
        let proto = request.to_v03(Form::ProtoJson);
        assert!(proto["configuration"]["pushNotification"].is_object());
        assert!(proto["message"]["content"].is_array());
        assert_eq!(SendMessageRequest::from_v03(&proto).unwrap(), request);
    }

    #[test]
    fn history_length_zero_is_no_limit_and_negative_is_invalid() {
        let get = GetTaskRequest::from_v03(&json!({"id": "t", "historyLength": 0})).unwrap();
        assert_eq!(get.history_length, None);
        let get = GetTaskRequest::from_v03(&json!({"id": "t", "historyLength": 3})).unwrap();
        assert_eq!(get.history_length, Some(3));
        let err = GetTaskRequest::from_v03(&json!({"id": "t", "historyLength": -1})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "historyLength");
        let err = SendMessageRequest::from_v03(&json!({"configuration": {"historyLength": -2}})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "configuration.historyLength");
        let zero = GetTaskRequest { id: "t".into(), history_length: Some(0), ..Default::default() };
        assert_eq!(zero.to_v03(Form::Json), json!({"id": "t", "historyLength": 0}));
        assert_eq!(zero.to_v03(Form::ProtoJson), json!({"name": "tasks/t"}));
    }

    #[test]
    fn task_id_params_read_from_id_or_resource_name() {
        for params in [json!({"id": "t1", "metadata": {"a": 1}}), json!({"name": "tasks/t1"})] {
            assert_eq!(CancelTaskRequest::from_v03(&params).unwrap().id, "t1");
            assert_eq!(SubscribeToTaskRequest::from_v03(&params).unwrap().id, "t1");
            assert_eq!(GetTaskRequest::from_v03(&params).unwrap().id, "t1");
        }
        let cancel = CancelTaskRequest::from_v03(&json!({"id": "t1", "metadata": {"a": 1}})).unwrap();
        assert_eq!(cancel.to_v03(Form::Json), json!({"id": "t1", "metadata": {"a": 1}}));
        assert_eq!(cancel.to_v03(Form::ProtoJson), json!({"name": "tasks/t1"}));
        let err = CancelTaskRequest::from_v03(&json!({"name": "task/t1"})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "name");
    }

    #[test]
    fn push_config_requests_rename_id_to_task_id_and_config_id_to_id() {
        let get = GetTaskPushNotificationConfigRequest::from_v03(
            &json!({"id": "t", "pushNotificationConfigId": "c"}),
        )
        .unwrap();
        assert_eq!((get.task_id.as_str(), get.id.as_str()), ("t", "c"));
        assert_eq!(get.to_v03(Form::Json), json!({"id": "t", "pushNotificationConfigId": "c"}));
        assert_eq!(get.to_v03(Form::ProtoJson), json!({"name": "tasks/t/pushNotificationConfigs/c"}));
        let by_task_only = GetTaskPushNotificationConfigRequest::from_v03(&json!({"id": "t"})).unwrap();
        assert_eq!((by_task_only.task_id.as_str(), by_task_only.id.as_str()), ("t", ""));
        let delete = DeleteTaskPushNotificationConfigRequest::from_v03(&json!({
            "name": "tasks/t/pushNotificationConfigs/c"
        }))
        .unwrap();
        assert_eq!((delete.task_id.as_str(), delete.id.as_str()), ("t", "c"));
        let list =
            ListTaskPushNotificationConfigsRequest::from_v03(&json!({"parent": "tasks/t", "pageSize": 2}))
                .unwrap();
        assert_eq!((list.task_id.as_str(), list.page_size), ("t", 2));
        assert_eq!(list.to_v03(Form::Json), json!({"id": "t"}));
        assert_eq!(list.to_v03(Form::ProtoJson), json!({"parent": "tasks/t", "pageSize": 2}));
    }

    #[test]
    fn absent_params_read_as_empty_and_non_objects_are_invalid() {
        assert_eq!(GetTaskRequest::from_v03(&Value::Null).unwrap().id, "");
        assert!(SendMessageRequest::from_v03(&Value::Null).unwrap().message.is_none());
        let err = GetTaskRequest::from_v03(&json!(["t1"])).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "params");
        let err =
            SendMessageRequest::from_v03(&json!({"message": {"role": "user", "parts": [{}]}})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "message.parts[0]");
    }
}
