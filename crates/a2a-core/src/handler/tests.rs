//! The handler driven in-process: a real scripted executor, in-memory stores, no sockets.
//! Expected values come from the spec sections cited in each test.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::v1::{
    stream_response::Payload, AgentCapabilities, AgentCard, AgentExtension, AgentSkill, Artifact,
    AuthenticationInfo, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest,
    GetExtendedAgentCardRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, Part, SendMessageConfiguration,
    SendMessageRequest, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
};
use async_trait::async_trait;
use futures::StreamExt;

use super::*;
use crate::context::{Principal, ServiceParams};
use crate::push::{PushRequest, PushTransport};
use crate::Operation;

/// An agent whose behaviour is chosen by the first word of the message.
struct Scripted;

#[async_trait]
impl AgentExecutor for Scripted {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        let text = ctx.message.text();
        let mut words = text.split_whitespace();
        match words.next().unwrap_or("") {
            "echo" => {
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(text.clone())]).with_name("echo")).await?;
                updater.complete(Some(updater.agent_text("done"))).await
            }
            "reply" => updater.reply(Message::agent_text("a direct answer")).await,
            // Waits before its answer: a blocking send's execution is pending after its first
            // poll (the inline fast path does not apply).
            "waitecho" => {
                updater.start_work(None).await?;
                tokio::time::sleep(Duration::from_millis(20)).await;
                updater.add_artifact(Artifact::new(vec![Part::text(text.clone())]).with_name("echo")).await?;
                updater.complete(Some(updater.agent_text("done"))).await
            }
            "replywait" => {
                updater.reply(Message::agent_text("answered before waiting")).await?;
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(())
            }
            // Interrupted, then busy for an hour before it returns.
            "asklong" => {
                updater.require_input(Some(updater.agent_text("which city?"))).await?;
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Ok(())
            }
            "ask" if ctx.task.is_none() => {
                updater.require_input(Some(updater.agent_text("which city?"))).await
            }
            "ask" | "answer" => updater.complete(Some(updater.agent_text(format!("got {text}")))).await,
            "slow" => {
                updater.start_work(None).await?;
                updater.cancelled().await;
                Ok(())
            }
            "deaf" => {
                // Never looks at its cancellation.
                updater.start_work(None).await?;
                updater.flush().await?;
                std::future::pending().await
            }
            "chunks" => {
                let n: usize = words.next().and_then(|w| w.parse().ok()).unwrap_or(10);
                updater.start_work(None).await?;
                let id = "stream".to_string();
                for i in 0..n {
                    let chunk = Artifact {
                        artifact_id: id.clone(),
                        parts: vec![Part::text(i.to_string())],
                        ..Default::default()
                    };
                    updater.artifact_update(chunk, i > 0, i + 1 == n).await?;
                }
                updater.complete(None).await
            }
            "fail" => Err(Error::internal("boom")),
            "failafter" => {
                updater.start_work(None).await?;
                Err(Error::internal("late boom"))
            }
            "nothing" => Ok(()),
            "panic" => panic!("scripted panic"),
            "reject" => updater.reject(Some(updater.agent_text("no"))).await,
            "late" => {
                updater.complete(None).await?;
                match updater.start_work(None).await {
                    Err(Error::InvalidAgentResponse { .. }) => Ok(()),
                    other => panic!("publishing after a terminal state must fail, got {other:?}"),
                }
            }
            other => Err(Error::internal(format!("unknown script {other:?}"))),
        }
    }
}

fn card(streaming: bool, push: bool) -> AgentCard {
    AgentCard {
        name: "scripted".into(),
        description: "test agent".into(),
        version: "1.0.0".into(),
        capabilities: Some(AgentCapabilities {
            streaming: Some(streaming),
            push_notifications: Some(push),
            extensions: vec![],
            extended_agent_card: None,
        }),
        default_input_modes: vec!["text/plain".into(), "image/*".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![AgentSkill {
            id: "s".into(),
            name: "s".into(),
            description: "s".into(),
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// Records every notification; the true HTTP edge is tested in the server crate.
#[derive(Default)]
struct RecordingTransport(Mutex<Vec<PushRequest>>);

#[async_trait]
impl PushTransport for RecordingTransport {
    async fn send(&self, request: PushRequest) -> std::result::Result<(), crate::push::PushFailure> {
        self.0.lock().unwrap().push(request);
        Ok(())
    }
}

impl RecordingTransport {
    /// The notifications sent, once there are `n` (deliveries are asynchronous).
    async fn wait_for(&self, n: usize) -> Vec<PushRequest> {
        tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if self.0.lock().unwrap().len() >= n {
                    return self.0.lock().unwrap().clone();
                }
                tokio::task::yield_now().await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{n} notifications, got {:?}", self.0.lock().unwrap()))
    }
}

/// The 1.0 body of a notification.
#[track_caller]
fn stream_response(request: &PushRequest) -> StreamResponse {
    a2a_proto::json::from_slice(&request.body)
        .unwrap_or_else(|e| panic!("expected a 1.0 StreamResponse ({e}): {:?}", request.body))
}

/// Core cannot write 0.3 JSON: these tests write a 0.3 notification's task as `v0.3:` and its
/// 1.0 ProtoJSON, which [`task_v0_3`] reads back.
fn write_task_v0_3(task: &Task) -> std::result::Result<Vec<u8>, String> {
    let json = a2a_proto::json::to_vec(task).map_err(|e| e.to_string())?;
    Ok([b"v0.3:".as_slice(), &json].concat())
}

/// The task of a 0.3 notification (as [`write_task_v0_3`] wrote it).
#[track_caller]
fn task_v0_3(request: &PushRequest) -> Task {
    let body = std::str::from_utf8(&request.body).unwrap();
    let json = body.strip_prefix("v0.3:").unwrap_or_else(|| panic!("expected a 0.3 task, got {body}"));
    a2a_proto::json::from_slice(json.as_bytes()).unwrap()
}

fn header_of<'a>(request: &'a PushRequest, name: &str) -> Option<&'a str> {
    request.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn handler() -> DefaultRequestHandler {
    DefaultRequestHandler::builder(card(true, false), Scripted).build().unwrap()
}

fn ctx() -> CallContext {
    CallContext::v1()
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

fn continue_task(task: &Task, text: &str) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(Message::user_text(text).with_task_id(&task.id)),
        ..Default::default()
    }
}

async fn send_task(h: &DefaultRequestHandler, request: SendMessageRequest) -> Task {
    match h.send_message(&ctx(), request).await.unwrap().payload {
        Some(a2a_proto::v1::send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn collect(stream: EventStream) -> Vec<Result<StreamResponse>> {
    tokio::time::timeout(Duration::from_secs(10), stream.collect()).await.expect("stream ends")
}

fn kind(event: &StreamResponse) -> &'static str {
    match event.payload {
        Some(Payload::Task(_)) => "task",
        Some(Payload::Message(_)) => "message",
        Some(Payload::StatusUpdate(_)) => "status",
        Some(Payload::ArtifactUpdate(_)) => "artifact",
        None => "empty",
    }
}

fn status_of(event: &StreamResponse) -> Option<TaskState> {
    match &event.payload {
        Some(Payload::StatusUpdate(u)) => u.status.as_ref().map(|s| s.state()),
        Some(Payload::Task(t)) => Some(t.state()),
        _ => None,
    }
}

// ---- SendMessage (spec 3.1.1, 3.2.2, 3.4) ----

#[tokio::test]
async fn blocking_send_returns_the_completed_task_with_its_artifact_and_history() {
    let h = handler();
    let task = send_task(&h, send("echo hello")).await;
    assert_eq!(task.state(), TaskState::Completed);
    assert!(!task.id.is_empty() && !task.context_id.is_empty(), "spec 3.4.1/3.4.2: ids generated");
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(task.artifacts[0].parts[0].as_text(), Some("echo hello"));
    assert_eq!(task.history.len(), 1, "the user message; the final status message stays in status");
    assert_eq!(task.history[0].task_id, task.id);
    assert_eq!(task.status.as_ref().unwrap().message.as_ref().unwrap().text(), "done");
    assert!(task.status.as_ref().unwrap().timestamp.is_some());
}

#[tokio::test]
async fn a_blocking_send_answers_with_the_task_as_stored_in_the_view_it_asked_for() {
    // Inline or not, the reply is built from what the runtime wrote, not read back: it must be
    // exactly what GetTask returns, in the history length asked for.
    let h = handler();
    for script in ["echo views", "waitecho views"] {
        for history_length in [None, Some(0), Some(1), Some(5)] {
            let mut request = send(script);
            request.configuration = Some(SendMessageConfiguration { history_length, ..Default::default() });
            let task = send_task(&h, request).await;
            let get = GetTaskRequest { id: task.id.clone(), history_length, ..Default::default() };
            assert_eq!(task, h.get_task(&ctx(), get).await.unwrap(), "{script} {history_length:?}");
        }
    }
}

#[tokio::test]
async fn a_direct_reply_is_a_message_and_creates_no_task() {
    let h = handler();
    let reply = h.send_message(&ctx(), send("reply")).await.unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Message(message)) = reply.payload else {
        panic!("expected a message");
    };
    assert_eq!(message.text(), "a direct answer");
    assert_eq!(message.role(), a2a_proto::v1::Role::Agent);
    assert!(message.task_id.is_empty(), "a direct reply belongs to no task");
    let listed = h.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
    assert_eq!(listed.total_size, 0);
}

#[tokio::test]
async fn a_blocking_send_whose_agent_waits_gets_the_finished_task() {
    let h = handler();
    let task = send_task(&h, send("waitecho hello")).await;
    assert_eq!(task.state(), TaskState::Completed);
    assert_eq!(task.artifacts.len(), 1);
    assert_eq!(task.artifacts[0].parts[0].as_text(), Some("waitecho hello"));
    assert_eq!(task.history.len(), 1);
    let reply = h.send_message(&ctx(), send("replywait")).await.unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Message(message)) = reply.payload else {
        panic!("expected the reply given before the agent waited");
    };
    assert_eq!(message.text(), "answered before waiting");
}

#[tokio::test]
async fn a_blocking_send_answers_at_an_interrupted_state_while_its_agent_goes_on() {
    let h = handler();
    // The execution is still running (an hour to go): the answer comes at INPUT_REQUIRED.
    let task = tokio::time::timeout(Duration::from_secs(10), send_task(&h, send("asklong")))
        .await
        .expect("answered at the interrupted state, not at the end of the execution");
    assert_eq!(task.state(), TaskState::InputRequired);
    // The execution went on in a task of its own: it still holds the task, so a cancel reaches it.
    let canceled =
        h.cancel_task(&ctx(), CancelTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
    assert_eq!(canceled.state(), TaskState::Canceled);
}

#[tokio::test]
async fn a_blocking_send_over_a_store_that_writes_later_answers_with_the_outcome_as_stored() {
    // The agent has returned when the send's first poll ends; its events are still being
    // written (inline::run answers from the runtime's records once the write is done).
    let h = DefaultRequestHandler::builder(card(true, false), Scripted)
        .task_store(TestStore::writes_later(tokio::sync::Semaphore::MAX_PERMITS))
        .build()
        .unwrap();
    for script in ["echo later", "waitecho later"] {
        for history_length in [None, Some(0), Some(1)] {
            let mut request = send(script);
            request.configuration = Some(SendMessageConfiguration { history_length, ..Default::default() });
            let task = send_task(&h, request).await;
            assert_eq!(task.state(), TaskState::Completed, "{script}");
            assert_eq!(task.artifacts[0].parts[0].as_text(), Some(script));
            let get = GetTaskRequest { id: task.id.clone(), history_length, ..Default::default() };
            assert_eq!(task, h.get_task(&ctx(), get).await.unwrap(), "{script} {history_length:?}");
        }
    }
    let failed = send_task(&h, send("failafter")).await;
    assert_eq!(failed.state(), TaskState::Failed, "spec 4.1.3: the execution's failure fails its task");
    let reply = h.send_message(&ctx(), send("reply")).await.unwrap();
    assert!(matches!(reply.payload, Some(a2a_proto::v1::send_message_response::Payload::Message(_))));
    let nothing = h.send_message(&ctx(), send("nothing")).await.unwrap_err();
    assert!(matches!(nothing, Error::InvalidAgentResponse { .. }), "{nothing:?}");
    let asked = tokio::time::timeout(Duration::from_secs(10), send_task(&h, send("asklong")))
        .await
        .expect("answered at the interrupted state, not at the end of the execution");
    assert_eq!(asked.state(), TaskState::InputRequired);
}

#[tokio::test]
async fn the_write_of_a_returned_agent_outlives_a_blocking_send_dropped_half_way() {
    let store = TestStore::writes_later(0);
    let h = DefaultRequestHandler::builder(card(true, false), Scripted)
        .task_store(Arc::clone(&store) as Arc<dyn TaskStore>)
        .build()
        .unwrap();
    // The agent returns at once; its write waits at the gate, and the caller gives up meanwhile.
    let caller = ctx();
    let dropped = tokio::time::timeout(Duration::from_millis(20), h.send_message(&caller, send("echo bye")));
    assert!(dropped.await.is_err(), "the write waits at the gate");
    store.gate.as_ref().expect("gated").add_permits(tokio::sync::Semaphore::MAX_PERMITS >> 1);
    // The rest of the execution was handed to a task of its own: the task is stored all the same.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let listed = h.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
        if listed.tasks.first().is_some_and(|task| task.state() == TaskState::Completed) {
            assert_eq!(listed.tasks.len(), 1);
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the execution was dropped with its caller");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn an_execution_outlives_a_blocking_send_dropped_half_way() {
    let h = handler();
    // The caller gives up (its client went away) while the agent waits.
    let caller = ctx();
    let dropped =
        tokio::time::timeout(Duration::from_millis(5), h.send_message(&caller, send("waitecho bye")));
    assert!(dropped.await.is_err(), "the agent waits 20 ms");
    // The execution was handed to a task of its own: the task completes all the same.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let listed = h.list_tasks(&ctx(), ListTasksRequest::default()).await.unwrap();
        assert_eq!(listed.tasks.len(), 1);
        if listed.tasks[0].state() == TaskState::Completed {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "the execution was dropped with its caller");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn return_immediately_answers_before_the_task_finishes() {
    let h = handler();
    let mut request = send("slow");
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let task = send_task(&h, request).await;
    assert!(!task.state().is_terminal(), "got {:?}", task.state());
    let canceled =
        h.cancel_task(&ctx(), CancelTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
    assert_eq!(canceled.state(), TaskState::Canceled);
}

#[tokio::test]
async fn multi_turn_continues_the_task_in_its_context() {
    let h = handler();
    let first = send_task(&h, send("ask")).await;
    assert_eq!(first.state(), TaskState::InputRequired, "blocking send returns at an interrupted state");
    let second = send_task(&h, continue_task(&first, "answer Paris")).await;
    assert_eq!(second.id, first.id);
    assert_eq!(second.context_id, first.context_id, "spec 3.4.3: contextId inferred from the task");
    assert_eq!(second.state(), TaskState::Completed);
    let texts: Vec<_> = second.history.iter().map(|m| m.text()).collect();
    assert_eq!(texts, ["ask", "which city?", "answer Paris"]);
}

#[tokio::test]
async fn a_new_task_can_join_an_existing_context() {
    let h = handler();
    let first = send_task(&h, send("echo a")).await;
    let mut request = send("echo b");
    request.message.as_mut().unwrap().context_id = first.context_id.clone();
    let second = send_task(&h, request).await;
    assert_ne!(second.id, first.id);
    assert_eq!(second.context_id, first.context_id);
}

#[tokio::test]
async fn messages_to_terminal_unknown_or_mismatched_tasks_are_refused() {
    let h = handler();
    let done = send_task(&h, send("echo x")).await;
    let err = h.send_message(&ctx(), continue_task(&done, "more")).await.unwrap_err();
    assert!(matches!(err, Error::UnsupportedOperation { .. }), "spec 3.1.1: {err:?}");

    let mut unknown = send("echo");
    unknown.message.as_mut().unwrap().task_id = "no-such-task".into();
    let err = h.send_message(&ctx(), unknown).await.unwrap_err();
    assert!(
        matches!(err, Error::TaskNotFound { ref task_id } if task_id == "no-such-task"),
        "spec 3.4.2: {err:?}"
    );

    let open = send_task(&h, send("ask")).await;
    let mut mismatch = continue_task(&open, "answer");
    mismatch.message.as_mut().unwrap().context_id = "another-context".into();
    let err = h.send_message(&ctx(), mismatch).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "message.contextId", "spec 3.4.3");
}

#[tokio::test]
async fn reference_task_ids_reach_the_executor_as_tasks() {
    struct Seen(Arc<Mutex<Vec<String>>>);
    #[async_trait]
    impl AgentExecutor for Seen {
        async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
            self.0.lock().unwrap().extend(ctx.reference_tasks.iter().map(|t| t.id.clone()));
            updater.complete(None).await
        }
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let h = DefaultRequestHandler::builder(card(true, false), Seen(seen.clone())).build().unwrap();
    let first = send_task(&h, send("x")).await;
    let mut request = send("y");
    request.message.as_mut().unwrap().reference_task_ids = vec![first.id.clone(), "unknown".into()];
    send_task(&h, request).await;
    assert_eq!(*seen.lock().unwrap(), [first.id]);
}

#[tokio::test]
async fn invalid_messages_name_every_offending_field() {
    let h = handler();
    let err = h.send_message(&ctx(), SendMessageRequest::default()).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "message");
    let mut no_parts = send("x");
    no_parts.message.as_mut().unwrap().parts.clear();
    let err = h.send_message(&ctx(), no_parts).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "message.parts");
    let mut negative = send("echo");
    negative.configuration =
        Some(SendMessageConfiguration { history_length: Some(-1), ..Default::default() });
    let err = h.send_message(&ctx(), negative).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "configuration.historyLength");
}

#[tokio::test]
async fn unsupported_media_types_are_refused() {
    let h = handler();
    let mut request = send("echo");
    request.message.as_mut().unwrap().parts.push(Part::raw(vec![1, 2], "application/pdf"));
    let err = h.send_message(&ctx(), request).await.unwrap_err();
    assert!(
        matches!(err, Error::ContentTypeNotSupported { ref media_type } if media_type == "application/pdf")
    );
    let mut image = send("echo");
    image.message.as_mut().unwrap().parts.push(Part::raw(vec![1, 2], "image/png"));
    send_task(&h, image).await;
}

#[tokio::test]
async fn executor_failures_fail_the_call_or_the_task() {
    let h = handler();
    let err = h.send_message(&ctx(), send("fail")).await.unwrap_err();
    assert!(matches!(err, Error::Internal { ref reason } if reason == "boom"), "{err:?}");
    let failed = send_task(&h, send("failafter")).await;
    assert_eq!(failed.state(), TaskState::Failed);
    let err = h.send_message(&ctx(), send("nothing")).await.unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "{err:?}");
    let err = h.send_message(&ctx(), send("panic")).await.unwrap_err();
    assert!(matches!(err, Error::Internal { ref reason } if reason.contains("scripted panic")), "{err:?}");
    // The handler survives all of that.
    assert_eq!(send_task(&h, send("echo ok")).await.state(), TaskState::Completed);
    assert_eq!(send_task(&h, send("late")).await.state(), TaskState::Completed);
}

// ---- GetTask and history (spec 3.1.3, 3.2.4) ----

#[tokio::test]
async fn history_length_limits_history_and_zero_omits_it() {
    let h = handler();
    let first = send_task(&h, send("ask")).await;
    send_task(&h, continue_task(&first, "answer x")).await;
    let get =
        |n: Option<i32>| GetTaskRequest { id: first.id.clone(), history_length: n, ..Default::default() };
    assert_eq!(h.get_task(&ctx(), get(None)).await.unwrap().history.len(), 3);
    assert_eq!(h.get_task(&ctx(), get(Some(0))).await.unwrap().history.len(), 0);
    let one = h.get_task(&ctx(), get(Some(1))).await.unwrap();
    assert_eq!(one.history.iter().map(|m| m.text()).collect::<Vec<_>>(), ["answer x"], "the most recent");
    let err = h.get_task(&ctx(), get(Some(-1))).await.unwrap_err();
    assert_eq!(err.field_violations()[0].field, "historyLength");
    let err =
        h.get_task(&ctx(), GetTaskRequest { id: "nope".into(), ..Default::default() }).await.unwrap_err();
    assert!(matches!(err, Error::TaskNotFound { .. }));
}

#[tokio::test]
async fn tasks_are_invisible_to_other_principals_and_tenants() {
    let h = handler();
    let alice = ctx().with_principal(Principal::new("alice"));
    let bob = ctx().with_principal(Principal::new("bob"));
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) =
        h.send_message(&alice, send("echo secret")).await.unwrap().payload
    else {
        panic!()
    };
    let get = GetTaskRequest { id: task.id.clone(), ..Default::default() };
    assert!(h.get_task(&alice, get.clone()).await.is_ok());
    assert!(matches!(h.get_task(&bob, get.clone()).await, Err(Error::TaskNotFound { .. })), "spec 13.1");
    let other_tenant = GetTaskRequest { tenant: "other".into(), ..get };
    assert!(matches!(h.get_task(&alice, other_tenant).await, Err(Error::TaskNotFound { .. })));
    assert_eq!(h.list_tasks(&bob, ListTasksRequest::default()).await.unwrap().total_size, 0);
}

// ---- ListTasks (spec 3.1.4) ----

#[tokio::test]
async fn list_paginates_newest_first_with_an_empty_token_on_the_last_page() {
    let h = handler();
    let mut ids = Vec::new();
    for i in 0..7 {
        ids.push(send_task(&h, send(&format!("echo {i}"))).await.id);
        tokio::time::sleep(Duration::from_millis(2)).await; // distinct millisecond timestamps
    }
    ids.reverse();
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = h
            .list_tasks(
                &ctx(),
                ListTasksRequest { page_size: Some(3), page_token: token.clone(), ..Default::default() },
            )
            .await
            .unwrap();
        assert_eq!(page.total_size, 7);
        assert_eq!(page.page_size, 3);
        assert!(page.tasks.iter().all(|t| t.artifacts.is_empty()), "artifacts omitted by default");
        seen.extend(page.tasks.iter().map(|t| t.id.clone()));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(seen, ids);
    let with = h
        .list_tasks(&ctx(), ListTasksRequest { include_artifacts: Some(true), ..Default::default() })
        .await
        .unwrap();
    assert!(with.tasks.iter().all(|t| t.artifacts.len() == 1));
    assert_eq!(with.page_size, 50, "default page size");
}

#[tokio::test]
async fn list_filters_by_context_and_state() {
    let h = handler();
    let done = send_task(&h, send("echo")).await;
    let waiting = send_task(&h, send("ask")).await;
    let by_state = h
        .list_tasks(
            &ctx(),
            ListTasksRequest { status: TaskState::InputRequired.into(), ..Default::default() },
        )
        .await
        .unwrap();
    assert_eq!(by_state.tasks.iter().map(|t| &t.id).collect::<Vec<_>>(), [&waiting.id]);
    let by_context = h
        .list_tasks(&ctx(), ListTasksRequest { context_id: done.context_id.clone(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(by_context.tasks.iter().map(|t| &t.id).collect::<Vec<_>>(), [&done.id]);
    let after = h
        .list_tasks(
            &ctx(),
            ListTasksRequest {
                status_timestamp_after: waiting.status.clone().unwrap().timestamp,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(after.tasks.iter().any(|t| t.id == waiting.id));
}

#[tokio::test]
async fn list_rejects_out_of_range_parameters() {
    let h = handler();
    for (request, field) in [
        (ListTasksRequest { page_size: Some(0), ..Default::default() }, "pageSize"),
        (ListTasksRequest { page_size: Some(101), ..Default::default() }, "pageSize"),
        (ListTasksRequest { history_length: Some(-5), ..Default::default() }, "historyLength"),
        (ListTasksRequest { status: 42, ..Default::default() }, "status"),
        (ListTasksRequest { page_token: "garbage!".into(), ..Default::default() }, "pageToken"),
    ] {
        let err = h.list_tasks(&ctx(), request).await.unwrap_err();
        assert_eq!(err.field_violations()[0].field, field);
    }
}

// ---- CancelTask (spec 3.1.5) ----

#[tokio::test]
async fn cancel_stops_a_working_task_and_is_idempotent() {
    let h = handler();
    let mut request = send("slow");
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let task = send_task(&h, request).await;
    let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
    assert_eq!(h.cancel_task(&ctx(), cancel.clone()).await.unwrap().state(), TaskState::Canceled);
    assert_eq!(h.cancel_task(&ctx(), cancel).await.unwrap().state(), TaskState::Canceled, "spec 3.3.1");
}

#[tokio::test(start_paused = true)]
async fn an_execution_that_ignores_its_cancel_is_dropped_after_the_grace() {
    let h = handler();
    let mut request = send("deaf");
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let task = send_task(&h, request).await;
    let cancel = CancelTaskRequest { id: task.id.clone(), ..Default::default() };
    assert_eq!(h.cancel_task(&ctx(), cancel).await.unwrap().state(), TaskState::Canceled, "spec 3.1.5");
    tokio::time::sleep(CANCEL_GRACE / 2).await;
    assert_eq!(h.live_tasks(), 1, "within the grace, the execution may still stop by itself");
    tokio::time::sleep(CANCEL_GRACE).await;
    assert_eq!(h.live_tasks(), 0, "past it, the execution and its task runtime are gone");
    let stored = h.get_task(&ctx(), GetTaskRequest { id: task.id, ..Default::default() }).await.unwrap();
    assert_eq!(stored.state(), TaskState::Canceled);
}

#[tokio::test]
async fn cancel_of_completed_task_is_not_cancelable_and_unknown_is_not_found() {
    let h = handler();
    let done = send_task(&h, send("echo")).await;
    let err = h
        .cancel_task(&ctx(), CancelTaskRequest { id: done.id.clone(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::TaskNotCancelable { state: TaskState::Completed, .. }), "{err:?}");
    let err =
        h.cancel_task(&ctx(), CancelTaskRequest { id: "x".into(), ..Default::default() }).await.unwrap_err();
    assert!(matches!(err, Error::TaskNotFound { .. }));
}

#[tokio::test]
async fn cancel_of_an_interrupted_task_cancels_it() {
    let h = handler();
    let waiting = send_task(&h, send("ask")).await;
    let canceled = h
        .cancel_task(&ctx(), CancelTaskRequest { id: waiting.id.clone(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(canceled.state(), TaskState::Canceled);
}

// ---- Streaming (spec 3.1.2, 3.1.6, 3.5.2) ----

#[tokio::test]
async fn a_stream_starts_with_the_task_delivers_chunks_in_order_and_ends_at_completion() {
    let h = handler();
    let stream = h.send_streaming_message(&ctx(), send("chunks 20")).await.unwrap();
    let events: Vec<_> = collect(stream).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(kind(&events[0]), "task", "spec 3.1.2: the stream begins with the Task");
    assert_eq!(status_of(&events[1]), Some(TaskState::Working));
    let chunks: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.payload {
            Some(Payload::ArtifactUpdate(u)) => Some((
                u.artifact.as_ref().unwrap().parts[0].as_text().unwrap().to_owned(),
                u.append,
                u.last_chunk,
            )),
            _ => None,
        })
        .collect();
    assert_eq!(chunks.len(), 20);
    for (i, (text, append, last)) in chunks.iter().enumerate() {
        assert_eq!((text.as_str(), *append, *last), (i.to_string().as_str(), i > 0, i == 19));
    }
    assert_eq!(status_of(events.last().unwrap()), Some(TaskState::Completed));
    let task = h
        .get_task(&ctx(), GetTaskRequest { id: events[0].task_id().unwrap().into(), ..Default::default() })
        .await
        .unwrap();
    assert_eq!(task.artifacts[0].parts.len(), 20, "chunks appended into one artifact");
}

#[tokio::test]
async fn a_streamed_direct_reply_is_a_single_message() {
    let h = handler();
    let events = collect(h.send_streaming_message(&ctx(), send("reply")).await.unwrap()).await;
    assert_eq!(events.len(), 1);
    assert_eq!(kind(events[0].as_ref().unwrap()), "message");
}

#[tokio::test]
async fn a_stream_ends_at_an_interrupted_state_and_a_continued_stream_starts_with_the_task() {
    let h = handler();
    let events = collect(h.send_streaming_message(&ctx(), send("ask")).await.unwrap()).await;
    let last = events.last().unwrap().as_ref().unwrap();
    assert_eq!(status_of(last), Some(TaskState::InputRequired));
    let task_id = last.task_id().unwrap().to_owned();
    let task = Task { id: task_id, ..Default::default() };
    let events =
        collect(h.send_streaming_message(&ctx(), continue_task(&task, "answer")).await.unwrap()).await;
    let events: Vec<_> = events.into_iter().map(Result::unwrap).collect();
    assert_eq!(kind(&events[0]), "task");
    assert_eq!(events[0].task_id(), Some(task.id.as_str()));
    assert_eq!(status_of(events.last().unwrap()), Some(TaskState::Completed));
}

#[tokio::test]
async fn a_failing_execution_ends_the_stream_with_its_error() {
    let h = handler();
    let events = collect(h.send_streaming_message(&ctx(), send("fail")).await.unwrap()).await;
    assert!(matches!(events.as_slice(), [Err(Error::Internal { .. })]), "{events:?}");
}

#[tokio::test]
async fn subscribers_see_the_snapshot_first_then_the_same_events_in_the_same_order() {
    let h = handler();
    let waiting = send_task(&h, send("ask")).await;
    let subscribe = || SubscribeToTaskRequest { id: waiting.id.clone(), ..Default::default() };
    let a = h.subscribe_to_task(&ctx(), subscribe()).await.unwrap();
    let b = h.subscribe_to_task(&ctx(), subscribe()).await.unwrap();
    send_task(&h, continue_task(&waiting, "answer")).await;
    let (a, b) = (collect(a).await, collect(b).await);
    let render = |events: Vec<Result<StreamResponse>>| -> Vec<String> {
        events
            .into_iter()
            .map(|e| {
                let e = e.unwrap();
                format!("{}:{:?}", kind(&e), status_of(&e))
            })
            .collect()
    };
    let (a, b) = (render(a), render(b));
    assert_eq!(a, b, "spec 3.5.2: same events, same order");
    assert_eq!(a.first().unwrap(), "task:Some(InputRequired)", "spec 3.1.6: the current task first");
    assert_eq!(a.last().unwrap(), "status:Some(Completed)", "the stream ends at the terminal state");
}

#[tokio::test]
async fn subscribing_to_a_terminal_or_unknown_task_is_refused() {
    let h = handler();
    let done = send_task(&h, send("echo")).await;
    let err = h
        .subscribe_to_task(&ctx(), SubscribeToTaskRequest { id: done.id, ..Default::default() })
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::UnsupportedOperation { .. }), "spec 3.1.6: {err:?}");
    let err = h
        .subscribe_to_task(&ctx(), SubscribeToTaskRequest { id: "x".into(), ..Default::default() })
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::TaskNotFound { .. }));
}

/// Rebuilds the artifact text a client sees from a stream: chunks append, a Task snapshot resets.
fn replay(events: &[StreamResponse]) -> (Vec<String>, Option<TaskState>) {
    let mut parts: Vec<String> = Vec::new();
    let mut state = None;
    for event in events {
        match &event.payload {
            Some(Payload::Task(task)) => {
                parts = task
                    .artifacts
                    .iter()
                    .flat_map(|a| a.parts.iter().filter_map(|p| p.as_text().map(str::to_owned)))
                    .collect();
                state = Some(task.state());
            }
            Some(Payload::ArtifactUpdate(u)) => {
                if !u.append {
                    parts.clear();
                }
                parts.extend(
                    u.artifact.as_ref().unwrap().parts.iter().filter_map(|p| p.as_text().map(str::to_owned)),
                );
            }
            Some(Payload::StatusUpdate(u)) => state = u.status.as_ref().map(|s| s.state()),
            _ => {}
        }
    }
    (parts, state)
}

/// Starts work, then waits for the gate before publishing `n` chunks and completing.
struct GatedChunks(Arc<tokio::sync::Notify>, usize);

#[async_trait]
impl AgentExecutor for GatedChunks {
    async fn execute(&self, _ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        updater.start_work(None).await?;
        self.0.notified().await;
        for i in 0..self.1 {
            let chunk = Artifact {
                artifact_id: "a".into(),
                parts: vec![Part::text(i.to_string())],
                ..Default::default()
            };
            updater.artifact_update(chunk, i > 0, i + 1 == self.1).await?;
        }
        updater.complete(None).await
    }
}

#[tokio::test]
async fn a_slow_subscriber_neither_stalls_the_agent_nor_loses_state() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let h =
        DefaultRequestHandler::builder(card(true, false), GatedChunks(gate.clone(), 2000)).build().unwrap();
    let mut request = send("go");
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let first = send_task(&h, request).await;
    // Subscribe, then let the agent publish far more than the ring holds while nobody reads.
    let lagging = h
        .subscribe_to_task(&ctx(), SubscribeToTaskRequest { id: first.id.clone(), ..Default::default() })
        .await
        .unwrap();
    gate.notify_one();
    let done = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let t = h
                .get_task(&ctx(), GetTaskRequest { id: first.id.clone(), ..Default::default() })
                .await
                .unwrap();
            if t.state().is_terminal() {
                return t;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("the agent is not stalled by a subscriber that does not read");
    assert_eq!(done.artifacts[0].parts.len(), 2000);
    let events: Vec<_> = collect(lagging).await.into_iter().map(Result::unwrap).collect();
    assert!(events.len() < 2000, "the subscriber lagged and was resynchronised ({} events)", events.len());
    assert!(events.iter().skip(1).any(|e| kind(e) == "task"), "a resync snapshot was delivered");
    let (parts, state) = replay(&events);
    let expected: Vec<String> = (0..2000).map(|i| i.to_string()).collect();
    assert_eq!(state, Some(TaskState::Completed));
    assert_eq!(parts, expected, "resync by snapshot loses nothing and duplicates nothing");
}

#[tokio::test]
async fn the_originating_stream_gets_backpressure_not_loss() {
    let h = handler();
    let mut stream = h.send_streaming_message(&ctx(), send("chunks 1000")).await.unwrap();
    let first = stream.next().await.unwrap().unwrap();
    let task_id = first.task_id().unwrap().to_owned();
    // Not reading: the agent must wait for this client instead of running ahead and dropping events.
    for _ in 0..50 {
        tokio::task::yield_now().await;
    }
    tokio::time::sleep(Duration::from_millis(50)).await;
    let mid = h.get_task(&ctx(), GetTaskRequest { id: task_id.clone(), ..Default::default() }).await.unwrap();
    assert_eq!(mid.state(), TaskState::Working, "the agent waits for the reader");
    let mut events = vec![first];
    while let Some(event) = stream.next().await {
        events.push(event.unwrap());
    }
    let (parts, state) = replay(&events);
    assert_eq!(state, Some(TaskState::Completed));
    assert_eq!(parts.len(), 1000);
    assert!(!events.iter().skip(1).any(|e| kind(e) == "task"), "no resync was needed: nothing was skipped");
}

#[tokio::test]
async fn an_abandoned_stream_does_not_block_the_agent() {
    let h = handler();
    let mut stream = h.send_streaming_message(&ctx(), send("chunks 500")).await.unwrap();
    let task_id = stream.next().await.unwrap().unwrap().task_id().unwrap().to_owned();
    drop(stream);
    let done = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let t = h
                .get_task(&ctx(), GetTaskRequest { id: task_id.clone(), ..Default::default() })
                .await
                .unwrap();
            if t.state().is_terminal() {
                return t;
            }
            tokio::task::yield_now().await;
        }
    })
    .await
    .expect("dropping the stream releases the agent");
    assert_eq!(done.state(), TaskState::Completed);
}

// ---- Capabilities, versions, extensions (spec 3.3.4, 3.6) ----

#[tokio::test]
async fn streaming_needs_the_streaming_capability() {
    let h = DefaultRequestHandler::builder(card(false, false), Scripted).build().unwrap();
    let err = h.send_streaming_message(&ctx(), send("echo")).await.err().unwrap();
    assert!(matches!(err, Error::UnsupportedOperation { .. }));
    let err = h
        .subscribe_to_task(&ctx(), SubscribeToTaskRequest { id: "x".into(), ..Default::default() })
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::UnsupportedOperation { .. }));
}

#[tokio::test]
async fn push_operations_need_the_push_capability() {
    let h = handler();
    let task = send_task(&h, send("echo")).await;
    let config = TaskPushNotificationConfig {
        task_id: task.id.clone(),
        url: "https://hooks.example.com/x".into(),
        ..Default::default()
    };
    let err = h.create_task_push_notification_config(&ctx(), config.clone()).await.unwrap_err();
    assert!(matches!(err, Error::PushNotificationNotSupported));
    let err = h
        .list_task_push_notification_configs(
            &ctx(),
            ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::PushNotificationNotSupported));
    let mut with_push = send("echo");
    with_push.configuration =
        Some(SendMessageConfiguration { task_push_notification_config: Some(config), ..Default::default() });
    assert!(matches!(h.send_message(&ctx(), with_push).await, Err(Error::PushNotificationNotSupported)));
}

#[tokio::test]
async fn a_card_advertising_push_without_a_transport_does_not_build() {
    assert!(DefaultRequestHandler::builder(card(true, true), Scripted).build().is_err());
}

#[tokio::test]
async fn extended_card_not_supported_not_configured_and_configured() {
    let request = GetExtendedAgentCardRequest::default();
    let err = handler().get_extended_agent_card(&ctx(), request.clone()).await.unwrap_err();
    assert!(matches!(err, Error::UnsupportedOperation { .. }));
    let mut declaring = card(true, false);
    declaring.capabilities.as_mut().unwrap().extended_agent_card = Some(true);
    let h = DefaultRequestHandler::builder(declaring.clone(), Scripted).build().unwrap();
    assert!(matches!(
        h.get_extended_agent_card(&ctx(), request.clone()).await,
        Err(Error::ExtendedAgentCardNotConfigured)
    ));
    let extended = AgentCard { name: "extended".into(), ..declaring.clone() };
    let h =
        DefaultRequestHandler::builder(declaring, Scripted).extended_agent_card(extended).build().unwrap();
    assert_eq!(h.get_extended_agent_card(&ctx(), request).await.unwrap().name, "extended");
}

#[tokio::test]
async fn only_version_1_0_is_served_and_an_absent_version_means_0_3() {
    let h = handler();
    let get = GetTaskRequest { id: "x".into(), ..Default::default() };
    let with = |v: Option<&str>| {
        let mut params = ServiceParams::new();
        if let Some(v) = v {
            params.insert("A2A-Version", v);
        }
        CallContext::new(params)
    };
    assert!(matches!(h.get_task(&with(Some("1.0")), get.clone()).await, Err(Error::TaskNotFound { .. })));
    for bad in [Some("9.9"), None, Some("0.3")] {
        match h.get_task(&with(bad), get.clone()).await {
            Err(Error::VersionNotSupported { supported, .. }) => assert_eq!(supported, ["1.0"]),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
}

#[tokio::test]
async fn required_extensions_must_be_declared() {
    let mut required = card(true, false);
    required.capabilities.as_mut().unwrap().extensions =
        vec![AgentExtension { uri: "urn:x:required".into(), required: true, ..Default::default() }];
    let h = DefaultRequestHandler::builder(required, Scripted).build().unwrap();
    match h.send_message(&ctx(), send("echo")).await {
        Err(Error::ExtensionSupportRequired { uris }) => assert_eq!(uris, ["urn:x:required"]),
        other => panic!("{other:?}"),
    }
    let declared = CallContext::new(ServiceParams::v1().with("A2A-Extensions", "urn:other, urn:x:required"));
    let task = match h.send_message(&declared, send("echo")).await.unwrap().payload {
        Some(a2a_proto::v1::send_message_response::Payload::Task(task)) => task.id,
        other => panic!("{other:?}"),
    };
    let get = GetTaskRequest { id: task.clone(), ..Default::default() };
    assert!(
        matches!(h.get_task(&ctx(), get.clone()).await, Err(Error::ExtensionSupportRequired { .. })),
        "every operation by default"
    );

    // Scoped to sending: reads need no extension, sends still do.
    let mut required = card(true, false);
    required.capabilities.as_mut().unwrap().extensions =
        vec![AgentExtension { uri: "urn:x:required".into(), required: true, ..Default::default() }];
    let h = DefaultRequestHandler::builder(required, Scripted)
        .extensions_required_for([Operation::SendMessage, Operation::SendStreamingMessage])
        .build()
        .unwrap();
    assert!(matches!(
        h.send_message(&ctx(), send("echo")).await,
        Err(Error::ExtensionSupportRequired { .. })
    ));
    let task = match h.send_message(&declared, send("echo")).await.unwrap().payload {
        Some(a2a_proto::v1::send_message_response::Payload::Task(task)) => task,
        other => panic!("{other:?}"),
    };
    let read = h.get_task(&ctx(), GetTaskRequest { id: task.id, ..Default::default() }).await.unwrap();
    assert_eq!(read.state(), TaskState::Completed);
}

// ---- Push notifications (spec 3.1.7-3.1.10, 4.3.3, 13.2) ----

fn push_handler(transport: Arc<RecordingTransport>) -> DefaultRequestHandler {
    DefaultRequestHandler::builder(card(true, true), Scripted)
        .push_transport(transport)
        .push_v03_body(write_task_v0_3)
        .push_destination_policy(crate::push::DestinationPolicy::public_only())
        .build()
        .unwrap()
}

#[tokio::test]
async fn every_event_is_pushed_in_order_with_the_configured_credentials() {
    let transport = Arc::new(RecordingTransport::default());
    let h = push_handler(transport.clone());
    let mut request = send("echo pushed");
    request.configuration = Some(SendMessageConfiguration {
        task_push_notification_config: Some(TaskPushNotificationConfig {
            url: "https://hooks.example.com/a2a".into(),
            token: "tok".into(),
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer".into(),
                credentials: "secret".into(),
            }),
            ..Default::default()
        }),
        ..Default::default()
    });
    let task = send_task(&h, request).await;
    let requests = transport.wait_for(4).await;
    let events: Vec<_> = requests.iter().map(stream_response).collect();
    let kinds: Vec<_> = events.iter().map(kind).collect();
    assert_eq!(kinds, ["task", "status", "artifact", "status"], "every event, in order, as StreamResponse");
    assert_eq!(events[3].task_id(), Some(task.id.as_str()));
    assert_eq!(header_of(&requests[0], "Authorization"), Some("Bearer secret"));
    assert_eq!(header_of(&requests[0], "X-A2A-Notification-Token"), Some("tok"));
    assert_eq!(header_of(&requests[0], "Content-Type"), Some("application/a2a+json"));
}

fn ctx_v0_3() -> CallContext {
    // What a binding's 0.3 edge passes on (`a2a_v03::context_for_core`).
    CallContext::v1().with_wire_version(ProtocolVersion::V0_3)
}

#[tokio::test]
async fn a_config_sent_by_a_0_3_client_gets_the_task_after_each_event() {
    let transport = Arc::new(RecordingTransport::default());
    let h = push_handler(transport.clone());
    let mut request = send("echo pushed");
    request.configuration = Some(SendMessageConfiguration {
        task_push_notification_config: Some(TaskPushNotificationConfig {
            url: "https://hooks.example.com/v03".into(),
            token: "tok".into(),
            ..Default::default()
        }),
        ..Default::default()
    });
    let task = match h.send_message(&ctx_v0_3(), request).await.unwrap().payload {
        Some(a2a_proto::v1::send_message_response::Payload::Task(task)) => task,
        other => panic!("{other:?}"),
    };
    let requests = transport.wait_for(4).await;
    let tasks: Vec<Task> = requests.iter().map(task_v0_3).collect();
    // 0.3 spec 9.5: the body is the Task; one per event (task, working, artifact, completed), each
    // the task as that event left it.
    let states: Vec<_> = tasks.iter().map(Task::state).collect();
    assert_eq!(states, [TaskState::Submitted, TaskState::Working, TaskState::Working, TaskState::Completed]);
    let artifacts: Vec<_> = tasks.iter().map(|t| t.artifacts.len()).collect();
    assert_eq!(artifacts, [0, 0, 1, 1]);
    assert_eq!(tasks[3], task, "the last notification is the finished task");
    for request in &requests {
        assert_eq!(header_of(request, "Content-Type"), Some("application/json"), "0.3 spec 9.5");
        assert_eq!(header_of(request, "X-A2A-Notification-Token"), Some("tok"), "0.3 spec 9.5");
    }
}

#[tokio::test]
async fn configs_of_one_task_each_get_the_format_of_their_registration() {
    let transport = Arc::new(RecordingTransport::default());
    let h = push_handler(transport.clone());
    let task = send_task(&h, send("ask")).await;
    let register = |ctx: CallContext, id: &str, url: &str| {
        let h = h.clone();
        let config = TaskPushNotificationConfig {
            task_id: task.id.clone(),
            id: id.into(),
            url: url.into(),
            ..Default::default()
        };
        async move { h.create_task_push_notification_config(&ctx, config).await.unwrap() }
    };
    register(ctx(), "a", "https://hooks.example.com/v1").await;
    let created = register(ctx_v0_3(), "b", "https://hooks.example.com/v03").await;
    // Replaced under the same id by a 1.0 client: from now on it is a 1.0 config.
    register(ctx_v0_3(), "c", "https://hooks.example.com/old").await;
    register(ctx(), "c", "https://hooks.example.com/replaced").await;
    // The version is internal: the operations return the config as registered.
    let get = GetTaskPushNotificationConfigRequest {
        task_id: task.id.clone(),
        id: "b".into(),
        ..Default::default()
    };
    assert_eq!(h.get_task_push_notification_config(&ctx(), get).await.unwrap(), created);

    send_task(&h, continue_task(&task, "answer")).await;
    let requests = transport.wait_for(3).await;
    let to = |url: &str| -> Vec<&PushRequest> { requests.iter().filter(|r| r.url.ends_with(url)).collect() };
    let (v1, v03, replaced) = (to("/v1"), to("/v03"), to("/replaced"));
    assert_eq!((v1.len(), v03.len(), replaced.len()), (1, 1, 1), "{requests:?}");
    for request in [v1[0], replaced[0]] {
        let event = stream_response(request);
        assert_eq!(status_of(&event), Some(TaskState::Completed), "spec 4.3.3: the event");
        assert_eq!(header_of(request, "Content-Type"), Some("application/a2a+json"));
    }
    let after = task_v0_3(v03[0]);
    assert_eq!(after.state(), TaskState::Completed);
    assert_eq!(after.history.last().unwrap().text(), "answer", "the task after the event, history included");
    assert_eq!(header_of(v03[0], "Content-Type"), Some("application/json"));
}

#[tokio::test]
async fn push_configs_are_created_listed_fetched_and_deleted() {
    let h = push_handler(Arc::new(RecordingTransport::default()));
    let task = send_task(&h, send("ask")).await;
    let created = h
        .create_task_push_notification_config(
            &ctx(),
            TaskPushNotificationConfig {
                task_id: task.id.clone(),
                url: "https://hooks.example.com/1".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert!(!created.id.is_empty(), "an id is assigned");
    let get = GetTaskPushNotificationConfigRequest {
        task_id: task.id.clone(),
        id: created.id.clone(),
        ..Default::default()
    };
    assert_eq!(h.get_task_push_notification_config(&ctx(), get.clone()).await.unwrap(), created);
    let list = ListTaskPushNotificationConfigsRequest { task_id: task.id.clone(), ..Default::default() };
    assert_eq!(
        h.list_task_push_notification_configs(&ctx(), list.clone()).await.unwrap().configs,
        std::slice::from_ref(&created)
    );
    let delete = DeleteTaskPushNotificationConfigRequest {
        task_id: task.id.clone(),
        id: created.id.clone(),
        ..Default::default()
    };
    h.delete_task_push_notification_config(&ctx(), delete.clone()).await.unwrap();
    h.delete_task_push_notification_config(&ctx(), delete).await.expect("spec 3.1.10: idempotent");
    assert!(matches!(
        h.get_task_push_notification_config(&ctx(), get).await,
        Err(Error::TaskNotFound { .. })
    ));
    assert!(h.list_task_push_notification_configs(&ctx(), list).await.unwrap().configs.is_empty());
}

/// A push config store that counts the lookups of a task's configs.
#[derive(Default)]
struct CountingConfigs {
    inner: crate::store::memory::InMemoryPushConfigStore,
    lists: std::sync::atomic::AtomicUsize,
}

#[async_trait]
impl PushConfigStore for CountingConfigs {
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig> {
        self.inner.put(config, version).await
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<crate::store::StoredPushConfig>> {
        self.inner.get(task_id, config_id).await
    }

    async fn list(&self, task_id: &str) -> Result<Vec<crate::store::StoredPushConfig>> {
        self.lists.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.list(task_id).await
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        self.inner.delete(task_id, config_id).await
    }
}

#[tokio::test]
async fn a_new_task_whose_send_registers_no_push_config_is_created_without_looking_configs_up() {
    let transport = Arc::new(RecordingTransport::default());
    let configs = Arc::new(CountingConfigs::default());
    let h = DefaultRequestHandler::builder(card(true, true), Scripted)
        .push_transport(transport.clone())
        .push_config_store(configs.clone())
        .push_destination_policy(crate::push::DestinationPolicy::public_only())
        .build()
        .unwrap();
    let lists = || configs.lists.load(std::sync::atomic::Ordering::Relaxed);
    // Nobody can register a config for a task before it is stored: its first write looks none up.
    let task = send_task(&h, send("echo")).await;
    assert_eq!((task.state(), lists()), (TaskState::Completed, 0));
    // Once it is stored, its writes do: a config registered then gets the next events.
    let asked = send_task(&h, send("ask")).await;
    assert_eq!(lists(), 0);
    let config = TaskPushNotificationConfig {
        task_id: asked.id.clone(),
        url: "https://hooks.example.com/later".into(),
        ..Default::default()
    };
    h.create_task_push_notification_config(&ctx(), config).await.unwrap();
    send_task(&h, continue_task(&asked, "answer")).await;
    assert!(lists() > 0);
    let requests = transport.wait_for(1).await;
    assert_eq!(status_of(&stream_response(&requests[0])), Some(TaskState::Completed));
    // A send that registers a config finds it for the task's first write (every event pushed:
    // every_event_is_pushed_in_order_with_the_configured_credentials).
}

#[tokio::test]
async fn push_configs_for_unknown_tasks_or_private_destinations_are_refused() {
    let h = push_handler(Arc::new(RecordingTransport::default()));
    let err = h
        .create_task_push_notification_config(
            &ctx(),
            TaskPushNotificationConfig {
                task_id: "nope".into(),
                url: "https://hooks.example.com".into(),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::TaskNotFound { .. }));
    let task = send_task(&h, send("echo")).await;
    for url in ["http://127.0.0.1:8080/hook", "http://169.254.169.254/", "not a url", ""] {
        let err = h
            .create_task_push_notification_config(
                &ctx(),
                TaskPushNotificationConfig {
                    task_id: task.id.clone(),
                    url: url.into(),
                    ..Default::default()
                },
            )
            .await
            .unwrap_err();
        assert_eq!(err.field_violations()[0].field, "url", "{url}");
    }
}

// ---- Durability seams: the restart policy and abandoned writes (store contract, crate::store) ----

fn stored(id: &str, state: TaskState) -> Task {
    crate::store::testing::task(id, "ctx", state, 1_000)
}

#[tokio::test]
async fn tasks_left_running_by_a_previous_run_are_failed_with_a_restart_message() {
    use crate::store::memory::InMemoryTaskStore;
    let store = Arc::new(InMemoryTaskStore::new());
    let scope = Scope::default();
    for (id, state) in [
        ("submitted", TaskState::Submitted),
        ("working", TaskState::Working),
        ("waiting", TaskState::InputRequired),
        ("done", TaskState::Completed),
    ] {
        store.create(&scope, &stored(id, state)).await.unwrap();
    }
    let h = DefaultRequestHandler::builder(card(true, false), Scripted).task_store(store).build().unwrap();
    assert_eq!(h.recover().await.unwrap(), 2, "SUBMITTED and WORKING were being executed");
    for id in ["submitted", "working"] {
        let task = h.get_task(&ctx(), GetTaskRequest { id: id.into(), ..Default::default() }).await.unwrap();
        assert_eq!(task.state(), TaskState::Failed, "{id}");
        let message = task.status.unwrap().message.expect("a status message says why");
        assert_eq!(message.text(), crate::executor::RESTARTED);
        assert_eq!((message.task_id.as_str(), message.context_id.as_str()), (id, "ctx"));
    }
    for (id, state) in [("waiting", TaskState::InputRequired), ("done", TaskState::Completed)] {
        let task = h.get_task(&ctx(), GetTaskRequest { id: id.into(), ..Default::default() }).await.unwrap();
        assert_eq!(task.state(), state, "{id}: a task no execution was producing is left alone");
    }
    assert_eq!(h.recover().await.unwrap(), 0, "nothing is left running afterwards");
}

/// Resumes recovered tasks instead of failing them.
struct Resuming;

#[async_trait]
impl AgentExecutor for Resuming {
    async fn execute(&self, _ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        updater.complete(None).await
    }

    async fn recover(&self, _task: Task, updater: TaskUpdater) -> Result<()> {
        tokio::spawn(async move {
            updater.add_artifact(Artifact::new(vec![Part::text("resumed")])).await.unwrap();
            updater.complete(None).await.unwrap();
        });
        Ok(())
    }
}

#[tokio::test]
async fn an_executor_can_resume_what_a_restart_interrupted() {
    use crate::store::memory::InMemoryTaskStore;
    let store = Arc::new(InMemoryTaskStore::new());
    store.create(&Scope::default(), &stored("t", TaskState::Working)).await.unwrap();
    let h = DefaultRequestHandler::builder(card(true, false), Resuming).task_store(store).build().unwrap();
    assert_eq!(h.recover().await.unwrap(), 1);
    let task = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let task =
                h.get_task(&ctx(), GetTaskRequest { id: "t".into(), ..Default::default() }).await.unwrap();
            if task.state().is_terminal() {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the resumed task completes");
    assert_eq!(task.state(), TaskState::Completed);
    assert_eq!(task.artifacts[0].parts[0].as_text(), Some("resumed"));
}

/// Tenant agents (`HandlerBuilder::tenant`): a task left running is recovered by the executor of
/// the tenant it belongs to, and a request reaches only its tenant's agent and tasks.
#[tokio::test]
async fn each_tenant_s_tasks_are_recovered_and_served_by_its_own_agent() {
    use crate::store::memory::InMemoryTaskStore;
    let store = Arc::new(InMemoryTaskStore::new());
    let acme = Scope { tenant: "acme".into(), owner: None };
    store.create(&acme, &stored("acme-task", TaskState::Working)).await.unwrap();
    store.create(&Scope::default(), &stored("main-task", TaskState::Working)).await.unwrap();
    let h = DefaultRequestHandler::builder(card(true, false), Scripted)
        .tenant("acme", TenantAgent::new(card(true, false), Resuming))
        .task_store(store)
        .build()
        .unwrap();
    assert_eq!(h.recover().await.unwrap(), 2);
    let in_tenant = |tenant: &str, id: &str| GetTaskRequest {
        tenant: tenant.into(),
        id: id.into(),
        ..Default::default()
    };
    let task = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let task = h.get_task(&ctx(), in_tenant("acme", "acme-task")).await.unwrap();
            if task.state().is_terminal() {
                return task;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("acme's executor resumes its task");
    assert_eq!(task.state(), TaskState::Completed, "resumed by acme's agent, not failed by the default one");
    let main = h.get_task(&ctx(), in_tenant("", "main-task")).await.unwrap();
    assert_eq!(main.state(), TaskState::Failed, "the default agent's restart policy");
    let crossing = h.get_task(&ctx(), in_tenant("", "acme-task")).await.unwrap_err();
    assert!(matches!(crossing, Error::TaskNotFound { .. }), "{crossing:?}");
    let unknown = h.get_task(&ctx(), in_tenant("globex", "acme-task")).await.unwrap_err();
    assert!(matches!(unknown, Error::InvalidParams { .. }), "no agent at globex: {unknown:?}");
    assert!(h.tenant_card("acme").is_some() && h.tenant_card("globex").is_none());
}

/// The memory store, with the write behaviours a test asks for:
/// - [`writes_later`](Self::writes_later): each write answers on a later turn of the scheduler,
///   once `gate` lets it, as a store that writes on a thread of its own (SQLite) does: an
///   execution is pending at its final write, after its agent returned;
/// - [`stalls_after_first_artifact`](Self::stalls_after_first_artifact): it stores the first
///   artifact update, then never answers: what a database write looks like to a caller that
///   gives up on it after it was committed.
///
/// A burst goes through the trait's defaults, so through `create` and `apply`.
#[derive(Default)]
struct TestStore {
    inner: crate::store::memory::InMemoryTaskStore,
    gate: Option<tokio::sync::Semaphore>,
    stall_after_first_artifact: bool,
    stalled: std::sync::atomic::AtomicBool,
}

impl TestStore {
    fn writes_later(permits: usize) -> Arc<Self> {
        Arc::new(TestStore { gate: Some(tokio::sync::Semaphore::new(permits)), ..Default::default() })
    }

    fn stalls_after_first_artifact() -> Arc<Self> {
        Arc::new(TestStore { stall_after_first_artifact: true, ..Default::default() })
    }

    async fn turn(&self) {
        if let Some(gate) = &self.gate {
            tokio::task::yield_now().await;
            gate.acquire().await.expect("gate open").forget();
        }
    }
}

#[async_trait]
impl TaskStore for TestStore {
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
        self.turn().await;
        self.inner.create(scope, task).await
    }

    async fn apply(&self, task_id: &str, mutation: crate::store::TaskMutation<'_>) -> Result<u64> {
        self.turn().await;
        let artifact = matches!(mutation, crate::store::TaskMutation::Artifact { .. });
        let seq = self.inner.apply(task_id, mutation).await?;
        if self.stall_after_first_artifact
            && artifact
            && !self.stalled.swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            std::future::pending::<()>().await;
        }
        Ok(seq)
    }

    async fn get(
        &self,
        scope: &Scope,
        task_id: &str,
        view: TaskView,
    ) -> Result<Option<crate::store::StoredTask>> {
        self.inner.get(scope, task_id, view).await
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<crate::store::TaskPage> {
        self.inner.list(scope, query).await
    }

    async fn running(&self) -> Result<Vec<(Scope, String)>> {
        self.inner.running().await
    }
}

/// Gives up on its artifact update (the store stalls after writing it), then completes.
struct GivesUpOnAPublish;

#[async_trait]
impl AgentExecutor for GivesUpOnAPublish {
    async fn execute(&self, _ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        updater.start_work(None).await?;
        updater.flush().await?;
        let artifact =
            Artifact { artifact_id: "a".into(), parts: vec![Part::text("kept")], ..Default::default() };
        updater.add_artifact(artifact).await?;
        // The artifact is queued (write-behind): this flush writes it, and gives up on the write.
        let abandoned = tokio::time::timeout(Duration::from_millis(50), updater.flush()).await;
        assert!(abandoned.is_err(), "the write was abandoned while the store held it");
        updater.complete(None).await
    }
}

#[tokio::test]
async fn a_publish_abandoned_mid_write_loses_nothing_and_duplicates_nothing() {
    let store = TestStore::stalls_after_first_artifact();
    let h = DefaultRequestHandler::builder(card(true, false), GivesUpOnAPublish)
        .task_store(store)
        .build()
        .unwrap();
    let events: Vec<StreamResponse> = collect(h.send_streaming_message(&ctx(), send("go")).await.unwrap())
        .await
        .into_iter()
        .collect::<Result<_>>()
        .unwrap();
    let kinds: Vec<_> = events.iter().map(kind).collect();
    // The artifact was stored but never broadcast: the stream resynchronises from a snapshot
    // that holds it, then goes on with the events after it (none, if the snapshot was read after
    // the completion: its seq then covers the live COMPLETED event, which is skipped).
    assert!(
        kinds == ["task", "status", "task", "status"] || kinds == ["task", "status", "task"],
        "{events:?}"
    );
    assert_eq!(
        replay(&events),
        (vec!["kept".to_owned()], Some(TaskState::Completed)),
        "nothing lost or doubled"
    );
    let task_id = match &events[0].payload {
        Some(Payload::Task(task)) => task.id.clone(),
        other => panic!("{other:?}"),
    };
    let task = h.get_task(&ctx(), GetTaskRequest { id: task_id, ..Default::default() }).await.unwrap();
    assert_eq!((task.state(), task.artifacts.len()), (TaskState::Completed, 1));
}

/// Sends a status and an artifact every few milliseconds, and goes on for a while after the task
/// is canceled, as an agent that has not looked at its token yet would; records every error.
struct Ticker(Arc<Mutex<Vec<Error>>>);

#[async_trait]
impl AgentExecutor for Ticker {
    async fn execute(&self, _ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        let mut after_cancel = 0;
        for i in 0.. {
            let chunk = Artifact {
                artifact_id: "ticks".into(),
                parts: vec![Part::text(i.to_string())],
                ..Default::default()
            };
            for result in [
                updater.start_work(Some(updater.agent_text(format!("tick {i}")))).await,
                updater.artifact_update(chunk, i > 0, false).await,
            ] {
                if let Err(error) = result {
                    self.0.lock().unwrap().push(error);
                }
            }
            if updater.is_cancelled() {
                after_cancel += 1;
                if after_cancel == 5 {
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        Ok(())
    }
}

#[tokio::test]
async fn updates_racing_a_cancel_are_dropped_without_an_error_and_the_task_stays_canceled() {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let h = DefaultRequestHandler::builder(card(true, false), Ticker(Arc::clone(&errors))).build().unwrap();
    let mut request = send("tick");
    request.configuration = Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
    let task = send_task(&h, request).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let canceled =
        h.cancel_task(&ctx(), CancelTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
    assert_eq!(canceled.state(), TaskState::Canceled);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(errors.lock().unwrap().is_empty(), "no update failed: {:?}", errors.lock().unwrap());
    let after =
        h.get_task(&ctx(), GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
    assert_eq!(after.state(), TaskState::Canceled, "the late updates changed nothing");
}

mod replicas;
