//! Streams: SendStreamingMessage (spec 3.1.2), SubscribeToTask (spec 3.1.6), their ordering and
//! fan-out (spec 3.5.2), and the streaming capability (spec 3.3.4).

use a2a_core::Operation;
use a2a_proto::v1::{stream_response::Payload, CancelTaskRequest, SubscribeToTaskRequest, TaskState};
use serde_json::json;

use super::{check_message, check_task, event_kind, event_state, require_state, NO_SUCH_TASK};
use crate::context::{describe, Ctx, Step, Stop, StreamRun};
use crate::kind::ErrorKind;
use crate::scenario::{Capability, Needs, Scenario, Setup};

pub(super) fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            id: "streaming",
            title: "SendStreamingMessage: the Task first, updates in order, chunks appended, closed at the terminal state",
            spec: "3.1.2, 3.5.2, 4.2.1, 4.2.2",
            needs: Needs::agent().capabilities(&[Capability::Streaming]).skills(&["stream"]),
            run: |ctx| Box::pin(streaming(ctx)),
        },
        Scenario {
            id: "streaming-message-reply",
            title: "SendStreamingMessage answered with a Message: exactly one event, then the stream closes",
            spec: "3.1.2",
            needs: Needs::agent().capabilities(&[Capability::Streaming]).skills(&["reply"]),
            run: |ctx| Box::pin(streaming_message_reply(ctx)),
        },
        Scenario {
            id: "subscribe",
            title: "SubscribeToTask: snapshot first, two subscribers see the same events, terminal tasks rejected",
            spec: "3.1.6, 3.5.2, 4.2.1, 4.2.2",
            needs: Needs::agent().capabilities(&[Capability::Streaming]).skills(&["wait", "echo"]),
            run: |ctx| Box::pin(subscribe(ctx)),
        },
        Scenario {
            id: "streaming-not-supported",
            title: "Without the streaming capability both streaming operations are UnsupportedOperation",
            spec: "3.3.4, 3.1.2, 3.1.6, 5.4",
            needs: Needs::setup(Setup::Lacking(Capability::Streaming)).skills(&["ask"]),
            run: |ctx| Box::pin(streaming_not_supported(ctx)),
        },
    ]
}

/// Checks that `run` ended cleanly and that its last event (the optional final Task snapshot of
/// spec 11.7 aside) is the first terminal one: spec 3.1.2 / 3.1.6, the stream closes when the
/// task reaches a terminal state.
fn check_closed_at_terminal_state(ctx: &Ctx, run: &StreamRun, spec: &str) -> Option<TaskState> {
    ctx.check(
        run.ended,
        spec,
        "the stream must close when the task reaches a terminal state; it was still open after 20 s",
    );
    if let Some(error) = &run.error {
        ctx.check(false, spec, format!("the stream ended with an error: {}", describe(error)));
    }
    let terminal = run.events.iter().position(|e| event_state(e).is_some_and(TaskState::is_terminal));
    let Some(at) = terminal else {
        ctx.check(false, spec, "the stream closed without a terminal state");
        return None;
    };
    let after = &run.events[at + 1..];
    let only_a_final_snapshot = after.is_empty()
        || (after.len() == 1
            && matches!(after[0].payload, Some(Payload::Task(_)))
            && at + 1 == run.events.len() - 1);
    ctx.check(
        only_a_final_snapshot,
        spec,
        format!(
            "{} events followed the terminal state ({:?})",
            after.len(),
            after.iter().map(event_kind).collect::<Vec<_>>()
        ),
    );
    event_state(&run.events[at])
}

async fn streaming(ctx: &Ctx) -> Step<()> {
    let run = ctx.stream(ctx.request(ctx.message("stream 4")), "SendStreamingMessage stream 4").await?;
    let events = &run.events;
    let Some(Payload::Task(task)) = events.first().and_then(|e| e.payload.as_ref()) else {
        // spec 3.1.2: a task lifecycle stream MUST begin with the Task object.
        return Err(Stop::Fail(format!(
            "spec 3.1.2: the stream must begin with the Task, it began with {:?}",
            events.first().map(event_kind)
        )));
    };
    check_task(ctx, task, "the stream's first event");
    for (i, event) in events.iter().enumerate().skip(1) {
        let kind = event_kind(event);
        // spec 3.1.2: the Task is followed by status and artifact updates (11.7: a final Task
        // snapshot may close the stream).
        ctx.check(
            matches!(kind, "statusUpdate" | "artifactUpdate") || (kind == "task" && i + 1 == events.len()),
            "3.1.2",
            format!("event {i} is a {kind}; after the Task only status and artifact updates may follow"),
        );
        // spec 4.2.1 / 4.2.2: every update names its task and context.
        ctx.check(
            event.task_id() == Some(task.id.as_str()),
            "4.2.1, 4.2.2",
            format!("event {i} names task {:?}, not the stream's", event.task_id()),
        );
        let context = match &event.payload {
            Some(Payload::StatusUpdate(u)) => Some(&u.context_id),
            Some(Payload::ArtifactUpdate(u)) => Some(&u.context_id),
            _ => None,
        };
        if let Some(context) = context {
            ctx.check(
                *context == task.context_id,
                "4.2.1, 4.2.2",
                format!("event {i} names context {context:?}, not the task's"),
            );
        }
    }
    let last = check_closed_at_terminal_state(ctx, &run, "3.1.2");
    ctx.check(
        last == Some(TaskState::Completed),
        "demo convention",
        format!("`stream` completes the task, it ended {last:?}"),
    );

    // spec 3.5.2 (in order) and 4.2.2 (append / lastChunk), with the demo convention's chunks.
    let chunks: Vec<(String, String, bool, bool)> = events
        .iter()
        .filter_map(|e| match &e.payload {
            Some(Payload::ArtifactUpdate(u)) => {
                let artifact = u.artifact.as_ref()?;
                let text = artifact.parts.iter().filter_map(|p| p.as_text()).collect::<String>();
                Some((artifact.artifact_id.clone(), text, u.append, u.last_chunk))
            }
            _ => None,
        })
        .collect();
    let expected: Vec<(String, bool, bool)> =
        (0..4).map(|i| (format!("chunk {i}\n"), i > 0, i == 3)).collect();
    let got: Vec<(String, bool, bool)> = chunks.iter().map(|(_, t, a, l)| (t.clone(), *a, *l)).collect();
    ctx.check(
        got == expected,
        "3.5.2, 4.2.2",
        format!("`stream 4` sends chunk 0..3 in order, append from the second, lastChunk on the last; got {got:?}"),
    );
    ctx.check(
        chunks.windows(2).all(|w| w[0].0 == w[1].0),
        "4.2.2",
        "appended chunks must name the artifact they extend (one artifactId)",
    );
    ctx.record("events", &run.events);

    let stored = ctx.require(ctx.get_task(&task.id, None).await, "GetTask after the stream")?;
    ctx.check(
        stored.state() == TaskState::Completed,
        "3.1.3",
        format!("the streamed task is {} afterwards", stored.state().as_str_name()),
    );
    // spec 4.2.2: appended chunks extend the artifact.
    ctx.should(
        super::artifact_text(&stored).contains("chunk 0\nchunk 1\nchunk 2\nchunk 3\n"),
        "4.2.2",
        format!(
            "the stored artifact should hold every appended chunk, holds {:?}",
            super::artifact_text(&stored)
        ),
    );
    ctx.record("stored", &stored);
    Ok(())
}

async fn streaming_message_reply(ctx: &Ctx) -> Step<()> {
    let run =
        ctx.stream(ctx.request(ctx.message("reply streamed pong")), "SendStreamingMessage reply").await?;
    // spec 3.1.2 pattern 1: exactly one Message, then the stream closes.
    ctx.check(
        run.ended && run.error.is_none(),
        "3.1.2",
        format!(
            "the stream must close cleanly after the Message (ended: {}, error: {:?})",
            run.ended,
            run.error.as_ref().map(describe)
        ),
    );
    let kinds: Vec<&str> = run.events.iter().map(event_kind).collect();
    ctx.check(
        kinds == ["message"],
        "3.1.2",
        format!("a message-only stream holds exactly one Message, got {kinds:?}"),
    );
    if let Some(Payload::Message(message)) = run.events.first().and_then(|e| e.payload.as_ref()) {
        check_message(ctx, message, "the streamed reply");
        ctx.check(
            message.text() == "streamed pong",
            "demo convention",
            format!("`reply X` answers X, got {:?}", message.text()),
        );
    }
    ctx.record("events", &run.events);
    Ok(())
}

async fn subscribe(ctx: &Ctx) -> Step<()> {
    let task = ctx
        .send_task(ctx.request_immediately("wait 30"), "SendMessage wait 30 with returnImmediately")
        .await?;
    if task.state().is_terminal() {
        return Err(Stop::Fail(format!(
            "demo convention: `wait 30` is still working, it is {}",
            task.state().as_str_name()
        )));
    }
    let request = SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() };
    let mut streams = Vec::new();
    let mut snapshots = Vec::new();
    for subscriber in ["first", "second"] {
        let opened = ctx.timed(ctx.client().subscribe_to_task(&ctx.call(), request.clone())).await;
        let mut stream = ctx.require(opened, &format!("SubscribeToTask ({subscriber} subscriber)"))?;
        if ctx.is_v03() {
            // 0.3 7.9: what a resubscription sends first (a backfill, or only what follows) is
            // "implementation-dependent": no snapshot is awaited, the stream is read after the
            // cancel.
            streams.push(stream);
            continue;
        }
        let first =
            ctx.next_event(&mut stream).await.map(|r| ctx.require(r, "the first event")).transpose()?;
        // spec 3.1.6: the first event is the Task as it is now.
        match first.as_ref().and_then(|e| e.payload.as_ref()) {
            Some(Payload::Task(snapshot)) => {
                ctx.check(
                    snapshot.id == task.id,
                    "3.1.6",
                    format!("the {subscriber} subscriber's snapshot is another task"),
                );
                ctx.check(
                    !snapshot.state().is_terminal(),
                    "3.1.6",
                    "the snapshot of a working task is not terminal",
                );
            }
            _ => {
                return Err(Stop::Fail(format!(
                    "spec 3.1.6: the first event must be the Task, the {subscriber} subscriber got {:?}",
                    first.as_ref().map(event_kind)
                )));
            }
        }
        snapshots.push(first.expect("matched above"));
        streams.push(stream);
    }
    let canceled = ctx
        .timed(
            ctx.client()
                .cancel_task(&ctx.call(), CancelTaskRequest { id: task.id.clone(), ..Default::default() }),
        )
        .await;
    ctx.require(canceled, "CancelTask of the subscribed task")?;
    let mut runs = Vec::new();
    for stream in streams {
        let run = ctx.collect(stream).await;
        // 0.3: the stream ends with the canceled status update, marked `final` (0.3 7.2.2).
        let last =
            check_closed_at_terminal_state(ctx, &run, if ctx.is_v03() { "0.3 7.9, 7.2.2" } else { "3.1.6" });
        // spec 4.2.1 / 4.2.2 (0.3 7.2.2, 7.2.3): every event of the subscription names its task.
        let others: Vec<Option<&str>> =
            run.events.iter().map(|e| e.task_id()).filter(|id| *id != Some(task.id.as_str())).collect();
        ctx.check(
            others.is_empty(),
            if ctx.is_v03() { "0.3 7.2.2, 7.2.3" } else { "4.2.1, 4.2.2" },
            format!("every event of the subscription names the subscribed task, some name {others:?}"),
        );
        ctx.check(
            last == Some(TaskState::Canceled),
            if ctx.is_v03() { "0.3 7.9" } else { "3.1.6, 3.5.2" },
            format!("subscribers see the cancellation, the stream ended at {last:?}"),
        );
        runs.push(run);
    }
    if ctx.is_v03() {
        // 0.3 pins neither the first event nor that two subscribers see the same events: the
        // events are compared among the 0.3 columns only.
        let seen: Vec<_> = runs.iter().map(|r| r.events.clone()).collect();
        ctx.record_per_version("subscriber", &seen[0]);
    } else {
        // spec 3.5.2: each stream receives the same events in the same order.
        ctx.check(
            snapshots[0] == snapshots[1] && runs[0].events == runs[1].events,
            "3.5.2",
            format!(
                "the two subscribers saw different events: {:?} vs {:?}",
                runs[0].events.iter().map(event_kind).collect::<Vec<_>>(),
                runs[1].events.iter().map(event_kind).collect::<Vec<_>>()
            ),
        );
        let mut seen = vec![snapshots[0].clone()];
        seen.extend(runs[0].events.iter().cloned());
        ctx.record_per_version("subscriber", &seen);
    }

    // spec 3.1.6: a terminal task cannot be subscribed to; an unknown one is not found.
    let terminal =
        ctx.first_event(ctx.timed(ctx.client().subscribe_to_task(&ctx.call(), request)).await).await;
    ctx.expect_error_unnamed_in_v03(
        "subscribe to the canceled task",
        &terminal,
        ErrorKind::UnsupportedOperation,
        "3.1.6",
        "0.3 7.9 (resubscribing is for an ongoing task; no error named for a finished one)",
    );
    // The same for a task that completed (by the demo convention) rather than was canceled.
    let done = ctx.send_text_task("finished before the subscription").await?;
    require_state(&done, TaskState::Completed, "echo")?;
    let completed = SubscribeToTaskRequest { id: done.id.clone(), ..Default::default() };
    let completed =
        ctx.first_event(ctx.timed(ctx.client().subscribe_to_task(&ctx.call(), completed)).await).await;
    ctx.expect_error_unnamed_in_v03(
        "subscribe to a completed task",
        &completed,
        ErrorKind::UnsupportedOperation,
        "3.1.6",
        "0.3 7.9 (resubscribing is for an ongoing task; no error named for a finished one)",
    );
    let unknown = SubscribeToTaskRequest { id: NO_SUCH_TASK.into(), ..Default::default() };
    let unknown =
        ctx.first_event(ctx.timed(ctx.client().subscribe_to_task(&ctx.call(), unknown)).await).await;
    ctx.expect_error("subscribe to an unknown task", &unknown, ErrorKind::TaskNotFound, "3.1.6");
    Ok(())
}

async fn streaming_not_supported(ctx: &Ctx) -> Step<()> {
    // spec 3.3.4: streaming false or absent -> UnsupportedOperationError for both operations.
    let request = ctx.request(ctx.message("hello"));
    let sent =
        ctx.first_event(ctx.timed(ctx.client().send_streaming_message(&ctx.call(), request)).await).await;
    ctx.expect_error("SendStreamingMessage", &sent, ErrorKind::UnsupportedOperation, "3.3.4");
    let task = ctx.send_text_task("ask").await?;
    require_state(&task, TaskState::InputRequired, "`ask`")?;
    let request = SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() };
    let subscribed =
        ctx.first_event(ctx.timed(ctx.client().subscribe_to_task(&ctx.call(), request)).await).await;
    ctx.expect_error(
        "SubscribeToTask of a task awaiting input",
        &subscribed,
        ErrorKind::UnsupportedOperation,
        "3.3.4",
    );
    let params = json!({"message": {"messageId": a2a_proto::new_id(), "role": "ROLE_USER", "parts": [{"text": "hello"}]}});
    let reply = ctx.wire(&ctx.wire_call(Operation::SendStreamingMessage, params)).await?;
    ctx.expect_wire_error(
        "SendStreamingMessage on the wire",
        &reply,
        ErrorKind::UnsupportedOperation,
        "3.3.4",
    );
    Ok(())
}
