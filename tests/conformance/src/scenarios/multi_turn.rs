//! Multi-turn interactions: input-required and continuing a task, context continuity, a task named
//! with the wrong context, and `referenceTaskIds` (spec 3.4, 6.3).

use a2a_proto::v1::{send_message_response::Payload, Message, TaskState};

use super::{artifact_text, check_task, require_state, NO_SUCH_TASK};
use crate::context::{describe, Ctx, Step, Stop};
use crate::kind::ErrorKind;
use crate::scenario::{Needs, Scenario};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "multi-turn",
            title: "input-required, then the same task and context continue; a new task joins the context",
            spec: "3.4.1, 3.4.2, 3.4.3, 3.2.2, 3.1.1, 6.3",
            needs: Needs::agent().skills(&["ask", "echo"]),
            run: |ctx| Box::pin(multi_turn(ctx)),
        },
        Scenario {
            id: "context-mismatch",
            title:
                "A message naming a task of another context is rejected; an unknown taskId is TaskNotFound",
            spec: "3.4.3, 3.4.2",
            needs: Needs::agent().skills(&["ask", "echo"]),
            run: |ctx| Box::pin(context_mismatch(ctx)),
        },
        Scenario {
            id: "reference-task-ids",
            title: "A message with referenceTaskIds to an earlier task is accepted",
            spec: "3.4.3, 4.1.4",
            needs: Needs::agent().skills(&["echo"]),
            run: |ctx| Box::pin(reference_task_ids(ctx)),
        },
    ]
}

async fn multi_turn(ctx: &Ctx) -> Step<()> {
    let asked = ctx.send_text_task("ask").await?;
    check_task(ctx, &asked, "the reply to `ask`");
    // spec 3.2.2: a blocking send returns at an interrupted state; the demo's `ask` asks.
    require_state(&asked, TaskState::InputRequired, "`ask`")?;
    ctx.check(
        asked.status.as_ref().and_then(|s| s.message.as_ref()).is_some_and(|m| !m.text().is_empty()),
        "demo convention",
        "`ask` puts its question in the status message (as spec 6.3 shows)",
    );
    ctx.record("asked", &asked);

    // spec 3.4.3: continue with the taskId alone; the agent infers the contextId from the task.
    let answer = Message::user_text("Ada").with_task_id(&asked.id);
    let done = ctx.send_task(ctx.request(answer), "SendMessage answering the question").await?;
    ctx.check(done.id == asked.id, "3.4.3", "the answer must continue the same task");
    ctx.check(
        done.context_id == asked.context_id,
        "3.4.3",
        format!(
            "the agent must infer the task's contextId {:?}, the reply has {:?}",
            asked.context_id, done.context_id
        ),
    );
    ctx.check(
        done.state() == TaskState::Completed,
        "demo convention",
        format!("the answer completes the task, it is {}", done.state().as_str_name()),
    );
    ctx.check(
        artifact_text(&done).contains("Hello, Ada!"),
        "demo convention",
        format!("the artifact greets Ada, it holds {:?}", artifact_text(&done)),
    );
    ctx.record("answered", &done);

    // spec 3.4.3: contextId without taskId starts a new task in that context; spec 3.4.1: an agent
    // that cannot accept it must reject the request, never answer in another context.
    if !asked.context_id.is_empty() {
        let follow =
            Message::user_text("a second task in the same conversation").with_context_id(&asked.context_id);
        let reply = ctx.send(ctx.request(follow)).await;
        match &reply {
            Ok(reply) => {
                let (id, context) = match &reply.payload {
                    Some(Payload::Task(task)) => (Some(task.id.as_str()), task.context_id.as_str()),
                    Some(Payload::Message(message)) => (None, message.context_id.as_str()),
                    None => (None, ""),
                };
                ctx.check(
                    id != Some(asked.id.as_str()),
                    "3.4.2",
                    "a message without taskId must not continue the earlier task",
                );
                ctx.check(
                    context == asked.context_id,
                    "3.4.1",
                    format!(
                        "the reply to a message in context {:?} is in context {context:?}",
                        asked.context_id
                    ),
                );
            }
            Err(error) => ctx.note(format!(
                "the agent does not accept a client-provided contextId (spec 3.4.1 allows rejecting it): {}",
                describe(error)
            )),
        }
        ctx.record("same-context", &reply);
    }

    // spec 3.1.1: a terminal task accepts no further messages.
    let late = Message::user_text("one more thing").with_task_id(&asked.id);
    let late = ctx.send(ctx.request(late)).await;
    ctx.expect_error_unnamed_in_v03(
        "message to the completed task",
        &late,
        ErrorKind::UnsupportedOperation,
        "3.1.1",
        "0.3 7.1 (a message to a terminal task \"will result in an error\", none named)",
    );
    Ok(())
}

async fn context_mismatch(ctx: &Ctx) -> Step<()> {
    let waiting = ctx.send_text_task("ask").await?;
    require_state(&waiting, TaskState::InputRequired, "`ask`")?;
    let other = ctx.send_text_task("a task of another conversation").await?;
    if waiting.context_id.is_empty() || other.context_id.is_empty() || waiting.context_id == other.context_id
    {
        return Err(Stop::Skip(format!(
            "the agent did not give two new conversations two contextIds ({:?}, {:?}), so no mismatch can be built",
            waiting.context_id, other.context_id
        )));
    }
    // spec 3.4.3: mismatching contextId and taskId MUST be rejected (the spec names no error kind;
    // the kind is compared across bindings).
    let mismatched = Message::user_text("Ada").with_task_id(&waiting.id).with_context_id(&other.context_id);
    let reply = ctx.send(ctx.request(mismatched)).await;
    ctx.check(reply.is_err(), "3.4.3", "a message whose contextId is not its task's must be rejected");
    ctx.record("mismatch", &reply.as_ref().map(|_| ()).map_err(Clone::clone));
    let after = ctx.require(ctx.get_task(&waiting.id, None).await, "GetTask after the rejected message")?;
    ctx.check(
        after.state() == TaskState::InputRequired,
        "3.4.3",
        format!(
            "the rejected message must not have continued the task, it is {}",
            after.state().as_str_name()
        ),
    );

    // spec 3.4.2: a taskId that names no task is TaskNotFound.
    let unknown = Message::user_text("hello").with_task_id(NO_SUCH_TASK);
    let unknown = ctx.send(ctx.request(unknown)).await;
    ctx.expect_error("message to an unknown task", &unknown, ErrorKind::TaskNotFound, "3.4.2");

    let answer = Message::user_text("Ada").with_task_id(&waiting.id);
    ctx.require(ctx.send(ctx.request(answer)).await, "answering the waiting task")?;
    Ok(())
}

async fn reference_task_ids(ctx: &Ctx) -> Step<()> {
    let first = ctx.send_text_task("the task referred to later").await?;
    let mut follow_up = Message::user_text("a follow-up about the earlier task");
    follow_up.reference_task_ids = vec![first.id.clone()];
    // spec 3.4.3: clients SHOULD use referenceTaskIds to reference related tasks; a message that
    // does is a valid message (4.1.4) and starts a new task here.
    let reply = ctx.require(ctx.send(ctx.request(follow_up)).await, "SendMessage with referenceTaskIds")?;
    if let Some(Payload::Task(task)) = &reply.payload {
        check_task(ctx, task, "the reply");
        ctx.check(
            task.id != first.id,
            "3.4.2",
            "a message without taskId must not continue the referenced task",
        );
        ctx.check(task.state() == TaskState::Completed, "demo convention", "echo completes the task");
    }
    ctx.record("reply", &reply);
    Ok(())
}
