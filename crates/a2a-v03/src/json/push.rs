//! Push notification configs: 0.3 nests the webhook under `pushNotificationConfig`, 1.0 is flat.
//!
//! | 0.3 JSON | 0.3 ProtoJSON | 1.0 `TaskPushNotificationConfig` |
//! | --- | --- | --- |
//! | `taskId` | `name: "tasks/{taskId}/pushNotificationConfigs/{id}"` | `taskId` |
//! | `pushNotificationConfig.id` | same (and in `name`) | `id` |
//! | `pushNotificationConfig.url` | same | `url` |
//! | `pushNotificationConfig.token` | same | `token` |
//! | `pushNotificationConfig.authentication.schemes` (list) | same | `authentication.scheme` (one) |
//! | `pushNotificationConfig.authentication.credentials` | same | `authentication.credentials` |
//! | (none) | (none) | `tenant` |
//!
//! `schemes` → `scheme`: the first scheme is taken (a2a-python does the same); further schemes
//! are dropped. An `authentication` with neither schemes nor credentials is dropped. On output
//! `scheme` becomes a one-element `schemes` list.
//!
//! Create requests also arrive as the 0.3 proto's `CreateTaskPushNotificationConfigRequest`
//! (`{"parent": "tasks/{id}", "configId", "config": {..}}`, what a2a-python's REST client sends)
//! and as a bare `PushNotificationConfig` (what some REST clients post to
//! `/v1/tasks/{id}/pushNotificationConfigs`); all are read. The list result is a JSON array in
//! 0.3 JSON and `{"configs": [..]}` in ProtoJSON.

use a2a_core::Result;
use a2a_proto::v1::{
    AuthenticationInfo, ListTaskPushNotificationConfigsResponse, TaskPushNotificationConfig,
};
use serde_json::{Map, Value};

use crate::convert::{Form, V03};
use crate::json::message::insert_str;
use crate::read::{invalid, Obj};

impl V03 for TaskPushNotificationConfig {
    /// Reads a 0.3 `TaskPushNotificationConfig` (either form), a
    /// `CreateTaskPushNotificationConfigRequest`, or a bare `PushNotificationConfig` (whose task id
    /// then stays empty for the caller to fill in from the URL).
    fn from_v03(value: &Value) -> Result<Self> {
        read_task_config(value, "")
    }

    fn to_v03(&self, form: Form) -> Value {
        write_task_config(self, form)
    }
}

impl V03 for ListTaskPushNotificationConfigsResponse {
    fn from_v03(value: &Value) -> Result<Self> {
        let (items, next_page_token) = match value {
            Value::Array(_) => (value, String::new()),
            other => {
                let o = Obj::new(other, "")?;
                (o.get("configs").unwrap_or(&Value::Null), o.string("nextPageToken")?)
            }
        };
        let configs = match items {
            Value::Null => Vec::new(),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, item)| read_task_config(item, &format!("configs[{i}]")))
                .collect::<Result<_>>()?,
            _ => return Err(invalid("configs", "must be an array")),
        };
        Ok(ListTaskPushNotificationConfigsResponse { configs, next_page_token })
    }

    /// The JSON form is a bare array: 0.3's JSON-RPC list has no paging, so a `nextPageToken` is
    /// lost there (core returns every config when no page size is asked for, which 0.3 never does).
    fn to_v03(&self, form: Form) -> Value {
        let configs: Vec<Value> = self.configs.iter().map(|c| write_task_config(c, form)).collect();
        match form {
            Form::Json => Value::Array(configs),
            Form::ProtoJson => {
                let mut object = Map::new();
                if !configs.is_empty() {
                    object.insert("configs".into(), Value::Array(configs));
                }
                insert_str(&mut object, "nextPageToken", &self.next_page_token);
                Value::Object(object)
            }
        }
    }
}

pub(crate) fn read_task_config(value: &Value, path: &str) -> Result<TaskPushNotificationConfig> {
    let o = Obj::new(value, path)?;
    // CreateTaskPushNotificationConfigRequest: {"parent", "configId", "config": {..}}.
    if let Some(config) = o.get("config") {
        let mut result = read_task_config(config, &o.at("config"))?;
        if let Some(parent) = o.str("parent")? {
            result.task_id = task_from_name(parent, &o.at("parent"))?;
        }
        if result.id.is_empty() {
            result.id = o.string("configId")?;
        }
        return Ok(result);
    }
    let mut result = match o.get("pushNotificationConfig") {
        Some(inner) => read_config(inner, &o.at("pushNotificationConfig"))?,
        // A bare PushNotificationConfig.
        None if o.has("url") => read_config(value, path)?,
        None => return Err(invalid(&o.at("pushNotificationConfig"), "is required")),
    };
    result.task_id = o.string("taskId")?;
    if let Some(name) = o.str("name")? {
        let (task, id) = config_from_name(name, &o.at("name"))?;
        if result.task_id.is_empty() {
            result.task_id = task;
        }
        if result.id.is_empty() {
            result.id = id;
        }
    }
    Ok(result)
}

/// A 0.3 `PushNotificationConfig` (the webhook itself) as a 1.0 config without task id.
pub(crate) fn read_config(value: &Value, path: &str) -> Result<TaskPushNotificationConfig> {
    let o = Obj::new(value, path)?;
    let authentication = match o.obj("authentication")? {
        None => None,
        Some(auth) => {
            let schemes = auth.strings("schemes")?;
            // Also accept the 1.0 spelling, `scheme`.
            let scheme = schemes.into_iter().next().map_or_else(|| auth.string("scheme"), Ok)?;
            let credentials = auth.string("credentials")?;
            (!scheme.is_empty() || !credentials.is_empty())
                .then_some(AuthenticationInfo { scheme, credentials })
        }
    };
    Ok(TaskPushNotificationConfig {
        tenant: String::new(),
        id: o.string("id")?,
        task_id: String::new(),
        url: o.string("url")?,
        token: o.string("token")?,
        authentication,
    })
}

pub(crate) fn write_task_config(config: &TaskPushNotificationConfig, form: Form) -> Value {
    let mut object = Map::new();
    match form {
        Form::Json => {
            object.insert("taskId".into(), config.task_id.clone().into());
        }
        // Only a name that reads back (`config_from_name`): without a task id, or with a `/` in
        // an id, `tasks/{task}/pushNotificationConfigs/{id}` names no resource, and the ids travel
        // in `pushNotificationConfig` alone. (A config without a task id was found by fuzzing.)
        Form::ProtoJson
            if !config.task_id.is_empty() && !format!("{}{}", config.task_id, config.id).contains('/') =>
        {
            object.insert("name".into(), config_name(&config.task_id, &config.id).into());
        }
        Form::ProtoJson => {}
    }
    object.insert("pushNotificationConfig".into(), write_config(config, form));
    Value::Object(object)
}

/// The 0.3 `PushNotificationConfig` (webhook) of a 1.0 config.
pub(crate) fn write_config(config: &TaskPushNotificationConfig, form: Form) -> Value {
    let mut object = Map::new();
    insert_str(&mut object, "id", &config.id);
    match form {
        // Required by the 0.3 schema.
        Form::Json => {
            object.insert("url".into(), config.url.clone().into());
        }
        Form::ProtoJson => insert_str(&mut object, "url", &config.url),
    }
    insert_str(&mut object, "token", &config.token);
    if let Some(auth) = &config.authentication {
        let mut authentication = Map::new();
        let schemes: Vec<Value> =
            if auth.scheme.is_empty() { Vec::new() } else { vec![auth.scheme.clone().into()] };
        if form == Form::Json || !schemes.is_empty() {
            authentication.insert("schemes".into(), Value::Array(schemes));
        }
        insert_str(&mut authentication, "credentials", &auth.credentials);
        object.insert("authentication".into(), Value::Object(authentication));
    }
    Value::Object(object)
}

/// `tasks/{task}/pushNotificationConfigs/{id}` (the 0.3 proto's resource name).
pub(crate) fn config_name(task: &str, id: &str) -> String {
    format!("tasks/{task}/pushNotificationConfigs/{id}")
}

/// The task id in `tasks/{task}`.
pub(crate) fn task_from_name(name: &str, path: &str) -> Result<String> {
    match name.strip_prefix("tasks/") {
        Some(task) if !task.is_empty() && !task.contains('/') => Ok(task.to_owned()),
        _ => Err(invalid(path, format!("must be \"tasks/{{id}}\", got {name:?}"))),
    }
}

/// The task and config ids in `tasks/{task}/pushNotificationConfigs/{id}`.
pub(crate) fn config_from_name(name: &str, path: &str) -> Result<(String, String)> {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        ["tasks", task, "pushNotificationConfigs", id] if !task.is_empty() => {
            Ok(((*task).to_owned(), (*id).to_owned()))
        }
        _ => Err(invalid(
            path,
            format!("must be \"tasks/{{id}}/pushNotificationConfigs/{{configId}}\", got {name:?}"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> TaskPushNotificationConfig {
        TaskPushNotificationConfig {
            tenant: String::new(),
            id: "cfg".into(),
            task_id: "t1".into(),
            url: "https://client.example.com/hook".into(),
            token: "tok".into(),
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer".into(),
                credentials: "secret".into(),
            }),
        }
    }

    fn v03() -> Value {
        json!({
            "taskId": "t1",
            "pushNotificationConfig": {
                "id": "cfg", "url": "https://client.example.com/hook", "token": "tok",
                "authentication": {"schemes": ["Bearer"], "credentials": "secret"}
            }
        })
    }

    #[test]
    fn the_nested_0_3_config_maps_to_the_flat_1_0_one_and_back() {
        assert_eq!(TaskPushNotificationConfig::from_v03(&v03()).unwrap(), config());
        assert_eq!(config().to_v03(Form::Json), v03());
    }

    #[test]
    fn the_proto_form_names_the_resource() {
        let proto = config().to_v03(Form::ProtoJson);
        assert_eq!(proto["name"], "tasks/t1/pushNotificationConfigs/cfg");
        assert!(proto.get("taskId").is_none());
        assert_eq!(TaskPushNotificationConfig::from_v03(&proto).unwrap(), config());
    }

    #[test]
    fn only_the_first_scheme_survives_and_empty_authentication_is_dropped() {
        let mut value = v03();
        value["pushNotificationConfig"]["authentication"]["schemes"] = json!(["Basic", "Bearer"]);
        let read = TaskPushNotificationConfig::from_v03(&value).unwrap();
        assert_eq!(read.authentication.unwrap().scheme, "Basic");
        value["pushNotificationConfig"]["authentication"] = json!({"schemes": []});
        assert_eq!(TaskPushNotificationConfig::from_v03(&value).unwrap().authentication, None);
    }

    #[test]
    fn create_requests_and_bare_configs_are_read_too() {
        let create = json!({
            "parent": "tasks/t1", "configId": "cfg",
            "config": {"pushNotificationConfig": {"url": "https://client.example.com/hook", "token": "tok",
                        "authentication": {"schemes": ["Bearer"], "credentials": "secret"}}}
        });
        assert_eq!(TaskPushNotificationConfig::from_v03(&create).unwrap(), config());
        let bare = json!({"url": "https://h/x", "id": "c"});
        let read = TaskPushNotificationConfig::from_v03(&bare).unwrap();
        assert_eq!((read.url.as_str(), read.id.as_str(), read.task_id.as_str()), ("https://h/x", "c", ""));
    }

    #[test]
    fn lists_are_arrays_in_json_and_wrapped_in_proto_json() {
        let list = ListTaskPushNotificationConfigsResponse {
            configs: vec![config()],
            next_page_token: String::new(),
        };
        assert_eq!(list.to_v03(Form::Json), json!([v03()]));
        let proto = list.to_v03(Form::ProtoJson);
        assert_eq!(proto["configs"][0]["name"], "tasks/t1/pushNotificationConfigs/cfg");
        for form in [Form::Json, Form::ProtoJson] {
            assert_eq!(ListTaskPushNotificationConfigsResponse::from_v03(&list.to_v03(form)).unwrap(), list);
        }
        assert_eq!(
            ListTaskPushNotificationConfigsResponse::from_v03(&json!({})).unwrap(),
            ListTaskPushNotificationConfigsResponse::default()
        );
    }

    #[test]
    fn configs_whose_ids_make_no_resource_name_are_written_without_one_and_read_back() {
        // Found by the `v03` fuzz target: `{"name": "tasks//pushNotificationConfigs/"}` was written
        // for a config without task id, and our own reader refused it.
        for (task_id, id) in [("", ""), ("", "c1"), ("t/1", "c1"), ("t1", "c/1")] {
            let config = TaskPushNotificationConfig { task_id: task_id.into(), id: id.into(), ..config() };
            let proto = config.to_v03(Form::ProtoJson);
            assert!(proto.get("name").is_none(), "{proto}");
            let read = TaskPushNotificationConfig::from_v03(&proto).unwrap();
            assert_eq!(read, TaskPushNotificationConfig { task_id: String::new(), ..config });
        }
    }

    #[test]
    fn bad_names_and_missing_configs_name_the_field() {
        let err = TaskPushNotificationConfig::from_v03(&json!({"taskId": "t"})).unwrap_err();
        assert_eq!(err.field_violations()[0].field, "pushNotificationConfig");
        let err =
            TaskPushNotificationConfig::from_v03(&json!({"name": "tasks/t", "pushNotificationConfig": {}}))
                .unwrap_err();
        assert_eq!(err.field_violations()[0].field, "name");
        let err = TaskPushNotificationConfig::from_v03(&json!({"parent": "t1", "config": {"url": "u"}}))
            .unwrap_err();
        assert_eq!(err.field_violations()[0].field, "parent");
    }
}
