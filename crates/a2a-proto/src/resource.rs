//! Resource names of the REST binding (`google.api.http` paths in `a2a.proto`) built from and
//! parsed into ids: `tasks/{id}`, `tasks/{task_id}/pushNotificationConfigs/{id}`.

/// The resource name of a task: `tasks/{id}`.
pub fn task_name(task_id: &str) -> String {
    format!("tasks/{task_id}")
}

/// The resource name of a push notification config:
/// `tasks/{task_id}/pushNotificationConfigs/{config_id}`.
pub fn push_config_name(task_id: &str, config_id: &str) -> String {
    format!("tasks/{task_id}/pushNotificationConfigs/{config_id}")
}

/// Parses `tasks/{id}` (a leading `/` is allowed) into the task id.
pub fn parse_task_name(name: &str) -> Option<&str> {
    let id = name.trim_start_matches('/').strip_prefix("tasks/")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// Parses `tasks/{task_id}/pushNotificationConfigs/{config_id}` into `(task_id, config_id)`.
pub fn parse_push_config_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.trim_start_matches('/').strip_prefix("tasks/")?;
    let (task_id, rest) = rest.split_once('/')?;
    let config_id = rest.strip_prefix("pushNotificationConfigs/")?;
    let valid = |s: &str| !s.is_empty() && !s.contains('/');
    (valid(task_id) && valid(config_id)).then_some((task_id, config_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(parse_task_name(&task_name("t-1")), Some("t-1"));
        assert_eq!(parse_push_config_name(&push_config_name("t-1", "c-2")), Some(("t-1", "c-2")));
        assert_eq!(parse_task_name("/tasks/abc"), Some("abc"));
    }

    #[test]
    fn malformed_names_are_rejected() {
        assert_eq!(parse_task_name("tasks/"), None);
        assert_eq!(parse_task_name("tasks/a/b"), None);
        assert_eq!(parse_task_name("task/a"), None);
        assert_eq!(parse_push_config_name("tasks/a/pushNotificationConfigs/"), None);
        assert_eq!(parse_push_config_name("tasks/a/other/b"), None);
    }
}
