//! SendMessage: a Task reply, a Message reply, and the execution modes of `returnImmediately`
//! (spec 3.1.1, 3.2.2).

use std::time::{Duration, Instant};

use a2a_proto::v1::{send_message_response::Payload, Role, TaskState};
use serde_json::json;

use super::{artifact_text, check_message, check_task};
use crate::context::{Ctx, Step};
use crate::scenario::{Needs, Scenario};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "send-task-reply",
            title: "SendMessage answered with a Task, which GetTask then returns",
            spec: "3.1.1, 3.2.2, 3.1.3, 3.4.1, 3.4.2",
            needs: Needs::agent().skills(&["echo"]),
            run: |ctx| Box::pin(send_task_reply(ctx)),
        },
        Scenario {
            id: "send-message-reply",
            title: "SendMessage answered with a direct Message",
            spec: "3.1.1, 4.1.4",
            needs: Needs::agent().skills(&["reply"]),
            run: |ctx| Box::pin(send_message_reply(ctx)),
        },
        Scenario {
            id: "return-immediately",
            title: "returnImmediately true returns an in-progress task at once; false waits for the end",
            spec: "3.2.2",
            needs: Needs::agent().skills(&["wait"]),
            run: |ctx| Box::pin(return_immediately(ctx)),
        },
    ]
}

async fn send_task_reply(ctx: &Ctx) -> Step<()> {
    let text = "hello from the conformance suite";
    let task = ctx.send_text_task(text).await?;
    check_task(ctx, &task, "the reply");
    // spec 3.4.1: a contextId the agent generates must be in the response.
    ctx.should(!task.context_id.is_empty(), "3.4.1", "the new task has no contextId");
    // spec 3.2.2: a blocking send returns once the task is terminal or interrupted.
    let state = task.state();
    ctx.check(
        state.is_terminal() || state.is_interrupted(),
        "3.2.2",
        format!("a blocking SendMessage returned the task in {}", state.as_str_name()),
    );
    ctx.check(state == TaskState::Completed, "demo convention", "echo completes the task");
    ctx.check(
        artifact_text(&task).contains(text),
        "demo convention",
        format!("echo's artifact holds the message text, got {:?}", artifact_text(&task)),
    );
    ctx.record("reply", &task);
    // spec 3.1.3: GetTask returns the current state of the task.
    let got = ctx.require(ctx.get_task(&task.id, None).await, "GetTask of the new task")?;
    ctx.check(got.id == task.id, "3.1.3", "GetTask returned another task");
    ctx.check(
        got.state() == state,
        "3.1.3",
        format!("GetTask says {}, the reply said {}", got.state().as_str_name(), state.as_str_name()),
    );
    ctx.record("get", &got);
    Ok(())
}

async fn send_message_reply(ctx: &Ctx) -> Step<()> {
    let reply =
        ctx.require(ctx.send(ctx.request(ctx.message("reply conformance pong"))).await, "SendMessage reply")?;
    match &reply.payload {
        Some(Payload::Message(message)) => {
            check_message(ctx, message, "the reply");
            // spec 4.1.5: a message the agent sends has the agent's role.
            ctx.check(message.role == Role::Agent as i32, "4.1.5", "the reply's role is not ROLE_AGENT");
            ctx.check(
                message.text() == "conformance pong",
                "demo convention",
                format!("`reply X` answers X, got {:?}", message.text()),
            );
        }
        other => {
            ctx.check(
                false,
                "demo convention",
                format!("`reply` answers with a Message (spec 3.1.1 allows one), got {other:?}"),
            );
        }
    }
    ctx.record("reply", &reply);
    Ok(())
}

async fn return_immediately(ctx: &Ctx) -> Step<()> {
    // spec 3.2.2: with returnImmediately the call returns after creating the task, in an
    // in-progress state, although the agent works for 30 s.
    let started = Instant::now();
    let running = ctx
        .send_task(ctx.request_immediately("wait 30"), "SendMessage wait 30 with returnImmediately")
        .await?;
    let elapsed = started.elapsed();
    ctx.check(
        elapsed < Duration::from_secs(10),
        "3.2.2",
        format!("returnImmediately must not wait for the task; the reply took {} ms", elapsed.as_millis()),
    );
    ctx.check(
        !running.state().is_terminal(),
        "3.2.2",
        format!(
            "returnImmediately returned a task in {}, not an in-progress state",
            running.state().as_str_name()
        ),
    );
    check_task(ctx, &running, "the immediate reply");
    ctx.record("immediately", &json!({"inProgress": !running.state().is_terminal()}));
    let cancel = a2a_proto::v1::CancelTaskRequest { id: running.id.clone(), ..Default::default() };
    if let Err(error) = ctx.timed(ctx.client().cancel_task(&ctx.call(), cancel)).await {
        ctx.note(format!(
            "could not cancel the `wait 30` task after the check: {}",
            crate::context::describe(&error)
        ));
    }

    // spec 3.2.2: without it (the default) the call waits for a terminal or interrupted state.
    let waited = ctx.send_text_task("wait 1").await?;
    let state = waited.state();
    ctx.check(
        state.is_terminal() || state.is_interrupted(),
        "3.2.2",
        format!("a blocking SendMessage returned the task in {}", state.as_str_name()),
    );
    ctx.check(state == TaskState::Completed, "demo convention", "`wait 1` completes after one second");
    ctx.record("blocking", &json!({"state": state.as_str_name()}));

    // spec 3.2.2: returnImmediately has no effect on a direct Message reply.
    if ctx.target().has_skill("reply") {
        let reply = ctx
            .require(ctx.send(ctx.request_immediately("reply still a message")).await, "SendMessage reply")?;
        ctx.check(
            matches!(reply.payload, Some(Payload::Message(_))),
            "3.2.2",
            "with returnImmediately, a direct Message reply must still be a Message",
        );
        ctx.record("message-reply", &reply);
    }
    Ok(())
}
