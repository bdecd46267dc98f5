//! Push notification configs: create, get, list, delete (spec 3.1.7 to 3.1.10) and the errors
//! without the capability (spec 3.3.4).

use a2a_core::{Error, Operation};
use a2a_proto::v1::{
    DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest, Message, TaskPushNotificationConfig, TaskState,
};
use serde_json::json;

use super::{require_state, NO_SUCH_TASK};
use crate::context::{describe, Ctx, Step, Stop};
use crate::kind::ErrorKind;
use crate::scenario::{Capability, Needs, Scenario, Setup};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "push-config-crud",
            title: "Push configs: create assigns an id, get and list return it, delete is idempotent",
            spec: "3.1.7, 3.1.8, 3.1.9, 3.1.10",
            needs: Needs::agent().capabilities(&[Capability::PushNotifications]).skills(&["ask"]),
            run: |ctx| Box::pin(push_config_crud(ctx)),
        },
        Scenario {
            id: "push-not-supported",
            title: "Without the pushNotifications capability every push-config operation is PushNotificationNotSupported",
            spec: "3.3.4, 3.1.7, 3.1.8, 3.1.9, 3.1.10, 5.4",
            needs: Needs::setup(Setup::Lacking(Capability::PushNotifications)).skills(&["echo"]),
            run: |ctx| Box::pin(push_not_supported(ctx)),
        },
    ]
}

fn config(task_id: &str, url: &str, token: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        task_id: task_id.into(),
        url: url.into(),
        token: token.into(),
        ..Default::default()
    }
}

async fn push_config_crud(ctx: &Ctx) -> Step<()> {
    let Some(webhook) = ctx.webhook_url().map(str::to_owned) else {
        return Err(Stop::Skip("no webhook URL to register (pass --webhook-url)".into()));
    };
    let client = ctx.client();
    let call = ctx.call();
    // A task that stays open while its configs are managed (spec 3.1.7: configs persist until
    // the task completes or they are deleted).
    let task = ctx.send_text_task("ask").await?;
    require_state(&task, TaskState::InputRequired, "`ask`")?;
    let create = |token: &str| {
        ctx.timed(client.create_task_push_notification_config(&call, config(&task.id, &webhook, token)))
    };
    let get = |id: &str| {
        let request = GetTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: id.to_owned(),
            ..Default::default()
        };
        ctx.timed(client.get_task_push_notification_config(&call, request))
    };
    let list = || {
        let request =
            ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() };
        ctx.timed(client.list_task_push_notification_configs(&call, request))
    };
    let delete = |id: &str| {
        let request = DeleteTaskPushNotificationConfigRequest {
            task_id: task.id.clone(),
            id: id.to_owned(),
            ..Default::default()
        };
        ctx.timed(client.delete_task_push_notification_config(&call, request))
    };

    // spec 3.1.7: the created configuration, with an assigned id.
    let first = match create("token-1").await {
        // spec 13.2: an agent may refuse webhook destinations (loopback, private networks).
        Err(error) if error.field_violations().iter().any(|v| v.field.ends_with("url")) => {
            return Err(Stop::Skip(format!(
                "the agent refused the webhook URL {webhook} ({error}); spec 13.2 lets it refuse such \
                 destinations: pass --webhook-url with one it accepts"
            )));
        }
        result => ctx.require(result, "CreateTaskPushNotificationConfig")?,
    };
    ctx.check(!first.id.is_empty(), "3.1.7", "the created config must have an assigned id");
    ctx.check(first.url == webhook, "3.1.7", format!("the created config's url is {:?}", first.url));
    ctx.record("created", &first);
    // spec 3.1.8: the configuration details, webhook URL and settings included.
    let got = ctx.require(get(&first.id).await, "GetTaskPushNotificationConfig")?;
    ctx.check(
        got.id == first.id && got.task_id == task.id && got.url == webhook && got.token == "token-1",
        "3.1.8",
        format!(
            "GetTaskPushNotificationConfig must return the config as created, got id {:?} taskId {:?} url {:?} token {:?}",
            got.id, got.task_id, got.url, got.token
        ),
    );
    ctx.record("got", &got);
    let second = ctx.require(create("token-2").await, "a second CreateTaskPushNotificationConfig")?;
    ctx.check(second.id != first.id, "3.1.7", "two configs of a task must have distinct ids");
    // spec 3.1.9: every active configuration of the task.
    let listed = ctx.require(list().await, "ListTaskPushNotificationConfigs")?;
    let mut tokens: Vec<&str> = listed.configs.iter().map(|c| c.token.as_str()).collect();
    tokens.sort_unstable();
    ctx.check(
        tokens == ["token-1", "token-2"],
        "3.1.9",
        format!("the list must hold both configs, it holds tokens {tokens:?}"),
    );
    let mut configs = listed.configs.clone();
    configs.sort_by(|a, b| a.token.cmp(&b.token));
    ctx.record("listed", &configs);

    // spec 3.1.10: deletion removes the config permanently and is idempotent.
    ctx.require(delete(&first.id).await, "DeleteTaskPushNotificationConfig")?;
    let again = delete(&first.id).await;
    match &again {
        // 0.3 7.8 says nothing of a repeated delete: its outcome is compared per version.
        _ if ctx.is_v03() => {}
        Err(error) => {
            ctx.check(
                ErrorKind::of(error) == ErrorKind::TaskNotFound,
                "3.1.10",
                format!("deleting a deleted config again must have the same effect, got {}", describe(error)),
            );
        }
        Ok(()) => {}
    }
    ctx.record_per_version("deleted again", &again);
    let gone = get(&first.id).await;
    ctx.expect_error_unnamed_in_v03(
        "get the deleted config",
        &gone,
        ErrorKind::TaskNotFound,
        "3.1.8, 3.1.10",
        "0.3 7.6 (no error named for a config that does not exist)",
    );
    let remaining = ctx.require(list().await, "ListTaskPushNotificationConfigs after the delete")?;
    let ids: Vec<&str> = remaining.configs.iter().map(|c| c.id.as_str()).collect();
    ctx.check(
        ids == [second.id.as_str()],
        "3.1.10",
        format!("after the delete only the second config remains, the list holds {} configs", ids.len()),
    );
    ctx.record("remaining", &remaining);

    // spec 3.1.7: a config for an unknown task.
    let unknown = ctx
        .timed(client.create_task_push_notification_config(&call, config(NO_SUCH_TASK, &webhook, "t")))
        .await;
    ctx.expect_error("create for an unknown task", &unknown, ErrorKind::TaskNotFound, "3.1.7");

    let answer = Message::user_text("Ada").with_task_id(&task.id);
    ctx.require(ctx.send(ctx.request(answer)).await, "answering the task")?;
    Ok(())
}

async fn push_not_supported(ctx: &Ctx) -> Step<()> {
    let task = ctx.send_text_task("a task to configure").await?;
    let client = ctx.client();
    let call = ctx.call();
    let url = ctx.webhook_url().unwrap_or("https://example.com/a2a-conformance/webhook").to_owned();
    // spec 3.3.4: pushNotifications false or absent -> PushNotificationNotSupportedError for
    // Create, Get, List and Delete.
    let created =
        ctx.timed(client.create_task_push_notification_config(&call, config(&task.id, &url, "t"))).await;
    ctx.expect_error("create", &created, ErrorKind::PushNotificationNotSupported, "3.3.4");
    let request = GetTaskPushNotificationConfigRequest {
        task_id: task.id.clone(),
        id: "a2a-conformance-config".into(),
        ..Default::default()
    };
    let got = ctx.timed(client.get_task_push_notification_config(&call, request)).await;
    ctx.expect_error("get", &got, ErrorKind::PushNotificationNotSupported, "3.3.4");
    let request = ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() };
    let listed = ctx.timed(client.list_task_push_notification_configs(&call, request)).await;
    ctx.expect_error("list", &listed, ErrorKind::PushNotificationNotSupported, "3.3.4");
    let request = DeleteTaskPushNotificationConfigRequest {
        task_id: task.id.clone(),
        id: "a2a-conformance-config".into(),
        ..Default::default()
    };
    let deleted: Result<(), Error> =
        ctx.timed(client.delete_task_push_notification_config(&call, request)).await;
    ctx.expect_error("delete", &deleted, ErrorKind::PushNotificationNotSupported, "3.3.4");
    let params = json!({"taskId": task.id, "url": url});
    let reply = ctx.wire(&ctx.wire_call(Operation::CreateTaskPushNotificationConfig, params)).await?;
    ctx.expect_wire_error("create on the wire", &reply, ErrorKind::PushNotificationNotSupported, "3.3.4");
    Ok(())
}
