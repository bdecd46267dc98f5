//! Reading and managing tasks: GetTask with `historyLength` (spec 3.1.3, 3.2.4), ListTasks with
//! every filter and with pagination (spec 3.1.4), CancelTask (spec 3.1.5).

use std::collections::BTreeSet;

use a2a_proto::v1::{CancelTaskRequest, ListTasksRequest, ListTasksResponse, Message, Task, TaskState};
use serde_json::json;

use super::{next_millisecond, require_state, status_time, NO_SUCH_TASK};
use crate::context::{describe, Ctx, Step, Stop};
use crate::kind::ErrorKind;
use crate::scenario::{Needs, Scenario};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "get-task-history-length",
            title: "GetTask with historyLength unset, 0 and N returns at most the N most recent messages",
            spec: "3.1.3, 3.2.4",
            needs: Needs::agent().skills(&["ask"]),
            run: |ctx| Box::pin(get_task_history_length(ctx)),
        },
        Scenario {
            id: "list-tasks-filters",
            title: "ListTasks by contextId, status, statusTimestampAfter, includeArtifacts and historyLength",
            spec: "3.1.4, 3.2.4",
            needs: Needs::agent().skills(&["echo", "ask"]).only_v1(super::NO_LIST_TASKS_IN_V03),
            run: |ctx| Box::pin(list_tasks_filters(ctx)),
        },
        Scenario {
            id: "list-tasks-pagination",
            title: "ListTasks pages through a context newest first, every task once, the last token empty",
            spec: "3.1.4",
            needs: Needs::agent().skills(&["echo"]).only_v1(super::NO_LIST_TASKS_IN_V03),
            run: |ctx| Box::pin(list_tasks_pagination(ctx)),
        },
        Scenario {
            id: "cancel",
            title: "CancelTask of a working task cancels it; of a terminal task is TaskNotCancelable; unknown is TaskNotFound",
            spec: "3.1.5, 3.3.1",
            needs: Needs::agent().skills(&["wait", "echo"]),
            run: |ctx| Box::pin(cancel(ctx)),
        },
    ]
}

fn ids(tasks: &[Task]) -> Vec<String> {
    tasks.iter().map(|t| t.id.clone()).collect()
}

fn message_ids(messages: &[Message]) -> Vec<&str> {
    messages.iter().map(|m| m.message_id.as_str()).collect()
}

async fn get_task_history_length(ctx: &Ctx) -> Step<()> {
    let asked = ctx.send_text_task("ask").await?;
    require_state(&asked, TaskState::InputRequired, "`ask`")?;
    let answer = Message::user_text("Grace").with_task_id(&asked.id);
    let done = ctx.send_task(ctx.request(answer), "SendMessage answering the question").await?;
    let id = done.id;

    // spec 3.2.4: unset means the server's default (implementation-defined).
    let full = ctx.require(ctx.get_task(&id, None).await, "GetTask without historyLength")?;
    ctx.record("unset", &full);
    if full.history.len() < 2 {
        ctx.note(format!("the agent keeps {} history message(s) for a two-turn task, so historyLength is checked on little", full.history.len()));
    }
    // i32::MAX is above any server's maximum: still no error (spec 3.2.4, "at most this many").
    for n in [0_i32, 1, 2, 100, i32::MAX] {
        let got = ctx.require(ctx.get_task(&id, Some(n)).await, &format!("GetTask historyLength {n}"))?;
        if n == 0 && ctx.is_v03() {
            // 0.3 a2a.proto (SendMessageConfiguration.history_length): "if 0, the history will be
            // unlimited", and the 0.3 SDKs read tasks/get alike; 1.0's "no history" cannot be
            // said in 0.3. So 0 returns the whole history here, by design.
            ctx.check(
                message_ids(&got.history) == message_ids(&full.history),
                "0.3 a2a.proto history_length",
                format!(
                    "historyLength 0 means no limit in 0.3: expected the {} messages of the history, got {}",
                    full.history.len(),
                    got.history.len()
                ),
            );
            ctx.record_per_version("historyLength 0", &got);
            continue;
        }
        // spec 3.2.4 and GetTaskRequest.history_length: the server MUST NOT return more than n
        // messages, and returns the most recent ones.
        let limit = usize::try_from(n).unwrap_or_default();
        ctx.check(
            got.history.len() <= limit,
            "3.2.4",
            format!("historyLength {n} returned {} messages", got.history.len()),
        );
        let tail = &full.history[full.history.len().saturating_sub(got.history.len())..];
        ctx.check(
            message_ids(&got.history) == message_ids(tail),
            "3.2.4",
            format!("historyLength {n} must return the most recent messages of the history"),
        );
        let label = format!("historyLength {n}");
        if n == 0 {
            // 0 means "no history" in 1.0 and "no limit" in 0.3 (above): compared per version.
            ctx.record_per_version(&label, &got);
        } else {
            ctx.record(&label, &got);
        }
    }
    Ok(())
}

/// Checks that `tasks` are sorted by status timestamp, newest first (spec 3.1.4).
fn check_newest_first(ctx: &Ctx, tasks: &[Task], what: &str) {
    let times: Vec<Option<(i64, i32)>> = tasks.iter().map(status_time).collect();
    if times.iter().any(Option::is_none) {
        ctx.note(format!("{what}: tasks without a status timestamp, so the order cannot be checked"));
        return;
    }
    ctx.check(
        times.windows(2).all(|w| w[0] >= w[1]),
        "3.1.4",
        format!("{what}: tasks must be sorted by status timestamp, newest first"),
    );
}

async fn list_tasks_filters(ctx: &Ctx) -> Step<()> {
    let first = ctx.send_text_task("the first task of the listing").await?;
    let context = first.context_id.clone();
    if context.is_empty() {
        return Err(Stop::Skip(
            "the agent assigns no contextId, so the suite's tasks cannot be listed apart from others".into(),
        ));
    }
    let in_context = |text: &str| ctx.request(Message::user_text(text).with_context_id(&context));
    next_millisecond().await;
    let waiting = ctx.send_task(in_context("ask"), "SendMessage ask in the listing's context").await?;
    require_state(&waiting, TaskState::InputRequired, "`ask`")?;
    next_millisecond().await;
    let last = ctx
        .send_task(in_context("the last task of the listing"), "SendMessage in the listing's context")
        .await?;
    for task in [&waiting, &last] {
        // spec 3.4.3: contextId without taskId starts a new task in that context.
        if task.context_id != context {
            return Err(Stop::Fail(format!(
                "spec 3.4.3: a task started in context {context:?} is in {:?}",
                task.context_id
            )));
        }
    }
    // The tasks as the agent stores them now (their states and status timestamps).
    let mut stored = Vec::new();
    for task in [&first, &waiting, &last] {
        stored.push(ctx.require(ctx.get_task(&task.id, None).await, "GetTask of a listed task")?);
    }
    let expect = |keep: &dyn Fn(&Task) -> bool| -> BTreeSet<String> {
        stored.iter().filter(|t| keep(t)).map(|t| t.id.clone()).collect()
    };
    let context_id = context.as_str();
    let list = move |request: ListTasksRequest| async move {
        let request = ListTasksRequest { context_id: context_id.to_owned(), ..request };
        ctx.timed(ctx.client().list_tasks(&ctx.call(), request)).await
    };

    // spec 3.1.4: the contextId filter, newest first, totalSize, the empty final token, and no
    // artifacts unless asked for.
    let all = ctx.require(list(ListTasksRequest::default()).await, "ListTasks by contextId")?;
    ctx.check(
        ids(&all.tasks).into_iter().collect::<BTreeSet<_>>() == expect(&|_| true),
        "3.1.4",
        "contextId must select exactly the context's three tasks",
    );
    check_newest_first(ctx, &all.tasks, "by contextId");
    ctx.check(
        all.total_size == 3,
        "3.1.4",
        format!("totalSize must count the 3 matching tasks, got {}", all.total_size),
    );
    ctx.check(all.next_page_token.is_empty(), "3.1.4", "nextPageToken must be empty on the last page");
    ctx.check(
        all.tasks.iter().all(|t| t.artifacts.is_empty()),
        "3.1.4",
        "artifacts must be omitted when includeArtifacts is not true",
    );
    ctx.record("contextId", &all);

    // spec 3.1.4: filter by the current state.
    for state in [TaskState::Completed, TaskState::InputRequired] {
        let got = ctx.require(
            list(ListTasksRequest { status: state.into(), ..Default::default() }).await,
            "ListTasks by status",
        )?;
        ctx.check(
            ids(&got.tasks).into_iter().collect::<BTreeSet<_>>() == expect(&|t| t.state() == state),
            "3.1.4",
            format!("status {} must select exactly the tasks in that state", state.as_str_name()),
        );
        ctx.record(&format!("status {}", state.as_str_name()), &got);
    }

    // ListTasksRequest.status_timestamp_after: status timestamps greater than or equal to it.
    if let Some(after) = stored[1].status.as_ref().and_then(|s| s.timestamp) {
        let bound = (after.seconds, after.nanos);
        let got = ctx.require(
            list(ListTasksRequest { status_timestamp_after: Some(after), ..Default::default() }).await,
            "ListTasks by statusTimestampAfter",
        )?;
        ctx.check(
            ids(&got.tasks).into_iter().collect::<BTreeSet<_>>()
                == expect(&|t| status_time(t).is_some_and(|t| t >= bound)),
            "3.1.4",
            "statusTimestampAfter must select the tasks whose status timestamp is at or after it",
        );
        ctx.record("statusTimestampAfter", &got);
    } else {
        ctx.note("the tasks have no status timestamps, so statusTimestampAfter was not checked");
    }

    // spec 3.1.4: includeArtifacts true includes them (the echo tasks have one each).
    let got = ctx.require(
        list(ListTasksRequest { include_artifacts: Some(true), ..Default::default() }).await,
        "ListTasks includeArtifacts",
    )?;
    let with_artifacts: BTreeSet<String> =
        got.tasks.iter().filter(|t| !t.artifacts.is_empty()).map(|t| t.id.clone()).collect();
    ctx.check(
        with_artifacts == expect(&|t| !t.artifacts.is_empty()),
        "3.1.4",
        "with includeArtifacts every task that has artifacts must include them",
    );
    ctx.record("includeArtifacts", &got);

    // spec 3.2.4 / ListTasksRequest.history_length: at most that many messages per task.
    for n in [0_i32, 1] {
        let got = ctx.require(
            list(ListTasksRequest { history_length: Some(n), ..Default::default() }).await,
            "ListTasks historyLength",
        )?;
        let limit = usize::try_from(n).unwrap_or_default();
        ctx.check(
            got.tasks.iter().all(|t| t.history.len() <= limit),
            "3.2.4",
            format!("historyLength {n} returned more messages"),
        );
        ctx.record(&format!("historyLength {n}"), &got);
    }

    let answer = Message::user_text("Lin").with_task_id(&waiting.id);
    ctx.require(ctx.send(ctx.request(answer)).await, "answering the waiting task")?;
    Ok(())
}

async fn list_tasks_pagination(ctx: &Ctx) -> Step<()> {
    let first = ctx.send_text_task("page task 1").await?;
    let context = first.context_id.clone();
    if context.is_empty() {
        return Err(Stop::Skip(
            "the agent assigns no contextId, so the suite's tasks cannot be listed apart from others".into(),
        ));
    }
    let mut created = vec![first.id];
    for i in 2..=5 {
        next_millisecond().await;
        let request = ctx.request(Message::user_text(format!("page task {i}")).with_context_id(&context));
        created.push(ctx.send_task(request, "SendMessage in the paged context").await?.id);
    }
    let mut pages: Vec<ListTasksResponse> = Vec::new();
    let mut token = String::new();
    loop {
        let request = ListTasksRequest {
            context_id: context.clone(),
            page_size: Some(2),
            page_token: token,
            ..Default::default()
        };
        let page =
            ctx.require(ctx.timed(ctx.client().list_tasks(&ctx.call(), request)).await, "ListTasks page")?;
        // ListTasksRequest.page_size: at most that many; ListTasksResponse.total_size: all matches.
        ctx.check(page.tasks.len() <= 2, "3.1.4", format!("pageSize 2 returned {} tasks", page.tasks.len()));
        ctx.check(
            page.total_size == 5,
            "3.1.4",
            format!("totalSize must be 5 on every page, got {}", page.total_size),
        );
        token = page.next_page_token.clone();
        let empty = page.tasks.is_empty();
        pages.push(page);
        if token.is_empty() || empty || pages.len() > 5 {
            break;
        }
    }
    let seen: Vec<String> = pages.iter().flat_map(|p| ids(&p.tasks)).collect();
    let unique: BTreeSet<&String> = seen.iter().collect();
    ctx.check(unique.len() == seen.len(), "3.1.4", "a task appeared on two pages");
    ctx.check(
        unique == created.iter().collect(),
        "3.1.4",
        format!("the pages must hold the 5 tasks exactly, they held {}", seen.len()),
    );
    ctx.check(pages.len() >= 3, "3.1.4", format!("5 tasks at 2 per page need 3 pages, got {}", pages.len()));
    ctx.check(token.is_empty(), "3.1.4", "the last page's nextPageToken must be empty");
    let all: Vec<Task> = pages.iter().flat_map(|p| p.tasks.clone()).collect();
    check_newest_first(ctx, &all, "across the pages");
    ctx.record("pages", &pages);
    Ok(())
}

async fn cancel(ctx: &Ctx) -> Step<()> {
    let call = ctx.call();
    let cancel = |id: &str| {
        let request = CancelTaskRequest { id: id.to_owned(), ..Default::default() };
        ctx.timed(ctx.client().cancel_task(&call, request))
    };
    let running = ctx
        .send_task(ctx.request_immediately("wait 30"), "SendMessage wait 30 with returnImmediately")
        .await?;
    if running.state().is_terminal() {
        return Err(Stop::Fail(format!(
            "demo convention: `wait 30` is still working, it is {}",
            running.state().as_str_name()
        )));
    }
    // spec 3.1.5: the updated task, canceled.
    let canceled = ctx.require(cancel(&running.id).await, "CancelTask of a working task")?;
    ctx.check(canceled.id == running.id, "3.1.5", "CancelTask returned another task");
    ctx.check(
        canceled.state() == TaskState::Canceled,
        "3.1.5",
        format!("the canceled task is {}", canceled.state().as_str_name()),
    );
    ctx.record("cancel working", &canceled);
    let got = ctx.require(ctx.get_task(&running.id, None).await, "GetTask of the canceled task")?;
    ctx.check(
        got.state() == TaskState::Canceled,
        "3.1.5",
        format!("GetTask says the canceled task is {}", got.state().as_str_name()),
    );

    // spec 3.3.1: cancellation is idempotent (the same effect), while 3.1.5 lists "already
    // canceled" under TaskNotCancelable; either answer keeps the task canceled.
    let again = cancel(&running.id).await;
    match &again {
        Ok(task) => {
            ctx.check(
                task.state() == TaskState::Canceled,
                "3.3.1",
                format!("a repeated cancel returned the task {}", task.state().as_str_name()),
            );
        }
        Err(error) => {
            ctx.check(
                matches!(ErrorKind::of(error), ErrorKind::TaskNotCancelable | ErrorKind::TaskNotFound),
                "3.1.5, 3.3.1",
                format!(
                    "a repeated cancel may only be TaskNotCancelable or TaskNotFound, got {}",
                    describe(error)
                ),
            );
        }
    }
    ctx.record("cancel again", &again.map(|t| json!({"state": t.state().as_str_name()})));

    // spec 3.1.5: a task in a terminal state is not cancelable.
    let done = ctx.send_text_task("finished before the cancel").await?;
    require_state(&done, TaskState::Completed, "echo")?;
    let result = cancel(&done.id).await;
    ctx.expect_error("cancel completed", &result, ErrorKind::TaskNotCancelable, "3.1.5");
    // spec 3.1.5: an unknown task is not found.
    let result = cancel(NO_SUCH_TASK).await;
    ctx.expect_error("cancel unknown", &result, ErrorKind::TaskNotFound, "3.1.5");
    Ok(())
}
