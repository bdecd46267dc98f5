//! The matrix operations, written once against [`A2aService`] and run with each of our clients.
//!
//! They mirror the official SDKs' clients (`tests/interop/python/sdk_client.py`,
//! `tests/interop/js/sdk_client.mjs`; for 0.3 `tests/interop/python/sdk_client_v03.py`,
//! `tests/interop/js-v03/sdk_client.mjs`) check for check, so a cell means the same in both
//! directions; the agent must follow the demo-skill convention of `docs/interop.md`.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{A2aService, CallContext, Error};
use a2a_interop_records::{Operation, OPERATIONS, OPERATIONS_V03};
use a2a_proto::v1::{
    part::Content, send_message_response, stream_response::Payload, AgentCard, AuthenticationInfo,
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, Message, Part, Role, SendMessageConfiguration, SendMessageRequest, StreamResponse,
    SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
};
use anyhow::{bail, ensure, Context as _};
use futures::{StreamExt as _, TryStreamExt as _};

use crate::webhook::{Notification, Webhook};
use crate::{Protocol, Sending, TokenWithAuth};

/// The operations run when speaking `protocol`: the matrix's (`a2a_interop_records`, which xtask
/// renders the matrix from), in the order they run.
pub(crate) fn operations(protocol: Protocol) -> &'static [Operation] {
    match protocol {
        Protocol::V1_0 => &OPERATIONS,
        Protocol::V0_3 => &OPERATIONS_V03,
    }
}

/// How long a 0.3 resubscription gets to reach the agent before the task is canceled, when the
/// agent sends nothing at once (0.3 does not say what a resubscription starts with; the SDK
/// servers send nothing until the next event).
const RESUBSCRIBE_GRACE: Duration = Duration::from_secs(1);

/// The skill ids of the demo-skill convention.
const DEMO_SKILLS: [&str; 7] = ["echo", "stream", "ask", "wait", "reply", "fail", "reject"];

/// How long the webhook may take to see a task's terminal notification after the task ended.
const PUSH_TIMEOUT: Duration = Duration::from_secs(20);

/// The media type of the `file` check's file.
const FILE_TYPE: &str = "application/octet-stream";

/// The file of the `file` check: binary (not UTF-8, which a2a-sdk 0.3 cannot take for its base64
/// text), a PNG signature and every byte value; the SDK clients send the same.
fn interop_file() -> Vec<u8> {
    let mut file = b"\x89PNG\r\n\x1a\n".to_vec();
    file.extend(0..=255u8);
    file
}

/// What a demo-skill agent's `file` skill answers for one file: `N bytes, sha256 HEX, TYPE`.
fn file_digest(file: &[u8], media_type: &str) -> String {
    use sha2::{Digest as _, Sha256};
    let hex: String = Sha256::digest(file).iter().map(|b| format!("{b:02x}")).collect();
    format!("{} bytes, sha256 {hex}, {media_type}", file.len())
}

const PUSH_TOKEN: &str = "interop-token";
const PUSH_AUTHORIZATION: &str = "Bearer interop-secret";

/// One binding's client and what the checks share.
pub(crate) struct Checks {
    client: Arc<dyn A2aService>,
    card: AgentCard,
    binding: &'static str,
    webhook: Arc<Webhook>,
    protocol: Protocol,
    /// How the agent's push sender treats the token next to authentication, and whether it sends
    /// `Authorization`.
    push_headers: (TokenWithAuth, Sending),
    /// The task of `push-send`, which `push-delivery` inspects.
    push_task: tokio::sync::Mutex<Option<String>>,
}

fn send(text: &str) -> SendMessageRequest {
    SendMessageRequest { message: Some(Message::user_text(text)), ..Default::default() }
}

fn follow_up(text: &str, task: &Task) -> SendMessageRequest {
    send_with(Message::user_text(text).with_task_id(&task.id).with_context_id(&task.context_id))
}

fn send_with(message: Message) -> SendMessageRequest {
    SendMessageRequest { message: Some(message), ..Default::default() }
}

fn text_of(parts: &[a2a_proto::v1::Part]) -> String {
    parts.iter().filter_map(|p| p.as_text()).collect()
}

fn state_of(event: &StreamResponse) -> Option<TaskState> {
    match event.payload.as_ref()? {
        Payload::Task(task) => Some(task.state()),
        Payload::StatusUpdate(update) => update.status.as_ref().map(|s| s.state()),
        _ => None,
    }
}

impl Checks {
    pub(crate) fn new(
        client: Arc<dyn A2aService>,
        card: AgentCard,
        binding: &'static str,
        webhook: Arc<Webhook>,
        protocol: Protocol,
        push_headers: (TokenWithAuth, Sending),
    ) -> Self {
        Checks {
            client,
            card,
            binding,
            webhook,
            protocol,
            push_headers,
            push_task: tokio::sync::Mutex::new(None),
        }
    }

    /// The call context: 1.0 clients send `A2A-Version: 1.0`; a 0.3 client sends no version.
    fn ctx(&self) -> CallContext {
        match self.protocol {
            Protocol::V1_0 => CallContext::v1(),
            Protocol::V0_3 => CallContext::new(a2a_core::ServiceParams::new()),
        }
    }

    /// The number of chunks of the `stream` check (the SDK clients of each line use the same).
    fn stream_chunks(&self) -> usize {
        match self.protocol {
            Protocol::V1_0 => 5,
            Protocol::V0_3 => 3,
        }
    }

    /// Runs the check named `op` (one of [`OPERATIONS`] or [`OPERATIONS_V03`]).
    pub(crate) async fn run(&self, op: &str) -> anyhow::Result<()> {
        match op {
            "card" => self.card_resolution(),
            "extended-card" => self.extended_card().await,
            "send-task" => self.send_task_check().await,
            "send-message" => self.send_message_check().await,
            "send-return-immediately" | "send-non-blocking" => self.return_immediately().await,
            "multi-turn" => self.multi_turn().await,
            "send-fail" => self.ends_in("fail", TaskState::Failed).await,
            "send-reject" => self.ends_in("reject", TaskState::Rejected).await,
            "stream" => self.stream().await,
            "stream-message" => self.stream_message().await,
            "get-history" => self.get_history().await,
            "list" => self.list().await,
            "cancel" => self.cancel_check().await,
            "subscribe" => self.subscribe().await,
            "resubscribe" => self.resubscribe().await,
            "push-config" => self.push_config().await,
            "push-config-list-delete" => self.push_config_list_delete().await,
            "error-task-not-found" => self.error_task_not_found().await,
            "error-not-cancelable" => self.error_not_cancelable().await,
            "error-terminal-send" => self.error_terminal_send().await,
            "error-subscribe-terminal" => self.error_subscribe_terminal().await,
            "error-invalid-params" => self.error_invalid_params().await,
            "file" => self.file_check().await,
            "push-send" => self.push_send().await,
            "push-delivery" => self.push_delivery().await,
            other => bail!("unknown operation {other}"),
        }
    }

    async fn send_task(&self, request: SendMessageRequest) -> anyhow::Result<Task> {
        match self.client.send_message(&self.ctx(), request).await?.payload {
            Some(send_message_response::Payload::Task(task)) => Ok(task),
            other => bail!("expected a Task, got {other:?}"),
        }
    }

    async fn start_wait(&self) -> anyhow::Result<Task> {
        let mut request = send("wait 30");
        request.configuration =
            Some(SendMessageConfiguration { return_immediately: true, ..Default::default() });
        let task = self.send_task(request).await?;
        ensure!(!task.state().is_terminal(), "wait task already {:?}", task.state());
        Ok(task)
    }

    async fn cancel(&self, id: &str) -> Result<Task, Error> {
        self.client.cancel_task(&self.ctx(), CancelTaskRequest { id: id.into(), ..Default::default() }).await
    }

    async fn get(&self, id: &str, history_length: Option<i32>) -> anyhow::Result<Task> {
        Ok(self
            .client
            .get_task(&self.ctx(), GetTaskRequest { id: id.into(), history_length, ..Default::default() })
            .await?)
    }

    fn card_resolution(&self) -> anyhow::Result<()> {
        let card = &self.card;
        ensure!(!card.name.is_empty(), "card has no name");
        let skills: BTreeSet<&str> = card.skills.iter().map(|s| s.id.as_str()).collect();
        let missing: Vec<_> = DEMO_SKILLS.iter().filter(|s| !skills.contains(*s)).collect();
        ensure!(missing.is_empty(), "card skills {skills:?} lack {missing:?}");
        let capabilities = card.capabilities.clone().unwrap_or_default();
        ensure!(capabilities.streaming == Some(true), "card does not declare streaming");
        ensure!(capabilities.push_notifications == Some(true), "card does not declare pushNotifications");
        let prefix = match self.protocol {
            Protocol::V1_0 => "1.",
            Protocol::V0_3 => "0.3",
        };
        ensure!(
            card.supported_interfaces
                .iter()
                .any(|i| i.protocol_binding == self.binding && i.protocol_version.starts_with(prefix)),
            "no {prefix}x {} interface",
            self.binding
        );
        Ok(())
    }

    async fn extended_card(&self) -> anyhow::Result<()> {
        let declared = self.card.capabilities.as_ref().and_then(|c| c.extended_agent_card);
        ensure!(declared == Some(true), "card does not declare extendedAgentCard");
        let extended =
            self.client.get_extended_agent_card(&self.ctx(), GetExtendedAgentCardRequest::default()).await?;
        ensure!(extended.name == self.card.name, "extended card name {:?}", extended.name);
        ensure!(
            extended.description.ends_with("(extended card)"),
            "extended card description {:?}",
            extended.description
        );
        Ok(())
    }

    async fn send_task_check(&self) -> anyhow::Result<()> {
        let text = format!("hello over {}", self.binding);
        let task = self.send_task(send(&text)).await?;
        ensure!(!task.id.is_empty() && !task.context_id.is_empty(), "task without id or contextId");
        ensure!(task.state() == TaskState::Completed, "state {:?}, want COMPLETED", task.state());
        ensure!(task.artifacts.len() == 1, "{} artifacts, want 1", task.artifacts.len());
        ensure!(
            text_of(&task.artifacts[0].parts) == text,
            "artifact text {:?}",
            text_of(&task.artifacts[0].parts)
        );
        ensure!(
            task.history.iter().any(|m| m.role() == Role::User && m.text() == text),
            "the user message is not in the history"
        );
        Ok(())
    }

    async fn send_message_check(&self) -> anyhow::Result<()> {
        match self.client.send_message(&self.ctx(), send("reply pong")).await?.payload {
            Some(send_message_response::Payload::Message(message)) => {
                ensure!(message.role() == Role::Agent, "role {:?}", message.role());
                ensure!(message.text() == "pong", "text {:?}", message.text());
                Ok(())
            }
            other => bail!("expected a Message, got {other:?}"),
        }
    }

    async fn return_immediately(&self) -> anyhow::Result<()> {
        let task = self.start_wait().await?;
        ensure!(
            matches!(task.state(), TaskState::Submitted | TaskState::Working),
            "state {:?}, want SUBMITTED or WORKING",
            task.state()
        );
        self.cancel(&task.id).await?;
        Ok(())
    }

    async fn multi_turn(&self) -> anyhow::Result<()> {
        let task = self.send_task(send("ask")).await?;
        ensure!(task.state() == TaskState::InputRequired, "state {:?}, want INPUT_REQUIRED", task.state());
        let question = task.status.as_ref().and_then(|s| s.message.as_ref()).map(Message::text);
        ensure!(question.as_deref() == Some("What is your name?"), "question {question:?}");
        let done = self.send_task(follow_up("Ada", &task)).await?;
        ensure!(done.id == task.id, "the answer started another task");
        ensure!(done.state() == TaskState::Completed, "state {:?}, want COMPLETED", done.state());
        let texts: Vec<_> = done.artifacts.iter().map(|a| text_of(&a.parts)).collect();
        ensure!(texts.iter().any(|t| t == "Hello, Ada!"), "artifacts {texts:?}");
        Ok(())
    }

    async fn ends_in(&self, text: &str, state: TaskState) -> anyhow::Result<()> {
        let task = self.send_task(send(text)).await?;
        ensure!(task.state() == state, "state {:?}, want {state:?}", task.state());
        Ok(())
    }

    async fn stream(&self) -> anyhow::Result<()> {
        let n = self.stream_chunks();
        let events: Vec<StreamResponse> = self
            .client
            .send_streaming_message(&self.ctx(), send(&format!("stream {n}")))
            .await?
            .try_collect()
            .await?;
        ensure!(!events.is_empty(), "empty stream");
        ensure!(
            matches!(events[0].payload, Some(Payload::Task(_))),
            "first event is not the Task (spec 3.1.2): {:?}",
            events[0]
        );
        let chunks: Vec<_> = events
            .iter()
            .filter_map(|e| match &e.payload {
                Some(Payload::ArtifactUpdate(update)) => Some(update),
                _ => None,
            })
            .collect();
        let texts: Vec<_> = chunks
            .iter()
            .map(|c| text_of(&c.artifact.as_ref().map(|a| a.parts.clone()).unwrap_or_default()))
            .collect();
        let want: Vec<_> = (0..n).map(|i| format!("chunk {i}\n")).collect();
        ensure!(texts == want, "chunks {texts:?}");
        ensure!(chunks.iter().map(|c| c.append).eq((0..n).map(|i| i > 0)), "append flags");
        ensure!(chunks.iter().map(|c| c.last_chunk).eq((0..n).map(|i| i + 1 == n)), "lastChunk flags");
        let ids: BTreeSet<_> =
            chunks.iter().filter_map(|c| c.artifact.as_ref().map(|a| &a.artifact_id)).collect();
        ensure!(ids.len() == 1, "chunks of different artifacts");
        let last = events.last().and_then(|e| match &e.payload {
            Some(Payload::StatusUpdate(u)) => u.status.as_ref().map(|s| s.state()),
            _ => None,
        });
        ensure!(
            last == Some(TaskState::Completed),
            "last event is not the COMPLETED status: {:?}",
            events.last()
        );
        Ok(())
    }

    async fn get_history(&self) -> anyhow::Result<()> {
        let task = self.send_task(send("ask")).await?;
        self.send_task(follow_up("Grace", &task)).await?;
        let full = self.get(&task.id, None).await?;
        let users: Vec<_> =
            full.history.iter().filter(|m| m.role() == Role::User).map(Message::text).collect();
        ensure!(users == ["ask", "Grace"], "user messages in history {users:?}");
        let one = self.get(&task.id, Some(1)).await?;
        ensure!(one.history.len() == 1, "historyLength=1 gave {} messages", one.history.len());
        ensure!(one.history.last() == full.history.last(), "historyLength=1 is not the most recent message");
        if self.protocol == Protocol::V0_3 {
            // 0.3 reads historyLength 0 as "no limit": "no history" cannot be asked for.
            return Ok(());
        }
        let none = self.get(&task.id, Some(0)).await?;
        ensure!(none.history.is_empty(), "historyLength=0 gave {} messages", none.history.len());
        Ok(())
    }

    async fn list(&self) -> anyhow::Result<()> {
        let context = a2a_proto::new_id();
        let mut ids = Vec::new();
        for text in ["one", "two", "three", "fail"] {
            let task = self.send_task(send_with(Message::user_text(text).with_context_id(&context))).await?;
            ensure!(task.context_id == context, "the task did not keep the given contextId");
            ids.push(task.id);
        }
        let sorted = |mut v: Vec<String>| {
            v.sort();
            v
        };
        let query = |page_size: Option<i32>, page_token: &str| ListTasksRequest {
            context_id: context.clone(),
            page_size,
            page_token: page_token.into(),
            ..Default::default()
        };
        let all = self.client.list_tasks(&self.ctx(), query(None, "")).await?;
        ensure!(all.total_size == 4, "totalSize {}, want 4", all.total_size);
        ensure!(
            sorted(all.tasks.iter().map(|t| t.id.clone()).collect()) == sorted(ids.clone()),
            "listed ids differ from the created ones"
        );
        ensure!(all.next_page_token.is_empty(), "one page but a nextPageToken");
        ensure!(all.tasks[0].id == ids[3], "not sorted by last update, newest first (spec 3.1.4)");
        ensure!(all.tasks.iter().all(|t| t.artifacts.is_empty()), "artifacts without includeArtifacts");
        let mut failed_query = query(None, "");
        failed_query.status = TaskState::Failed.into();
        let failed = self.client.list_tasks(&self.ctx(), failed_query).await?;
        let failed_ids: Vec<_> = failed.tasks.iter().map(|t| t.id.as_str()).collect();
        ensure!(failed_ids == [ids[3].as_str()], "status filter gave {failed_ids:?}");
        let mut first_query = query(Some(3), "");
        first_query.include_artifacts = Some(true);
        let first = self.client.list_tasks(&self.ctx(), first_query).await?;
        ensure!(first.tasks.len() == 3, "page 1 has {} tasks, want 3", first.tasks.len());
        ensure!(!first.next_page_token.is_empty(), "page 1 has no nextPageToken");
        ensure!(first.tasks.iter().any(|t| t.artifacts.len() == 1), "includeArtifacts gave no artifacts");
        let second = self.client.list_tasks(&self.ctx(), query(Some(3), &first.next_page_token)).await?;
        ensure!(second.tasks.len() == 1, "page 2 has {} tasks, want 1", second.tasks.len());
        ensure!(second.next_page_token.is_empty(), "the last page has a nextPageToken");
        let paged = first.tasks.iter().chain(&second.tasks).map(|t| t.id.clone()).collect();
        ensure!(sorted(paged) == sorted(ids), "paging lost or repeated tasks");
        Ok(())
    }

    async fn cancel_check(&self) -> anyhow::Result<()> {
        let task = self.start_wait().await?;
        let canceled = self.cancel(&task.id).await?;
        ensure!(canceled.state() == TaskState::Canceled, "CancelTask returned {:?}", canceled.state());
        let again = self.get(&task.id, None).await?;
        ensure!(again.state() == TaskState::Canceled, "GetTask after cancel is {:?}", again.state());
        Ok(())
    }

    async fn subscribe(&self) -> anyhow::Result<()> {
        let task = self.start_wait().await?;
        let mut stream = self
            .client
            .subscribe_to_task(
                &self.ctx(),
                SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() },
            )
            .await?;
        let first = stream.next().await.context("the stream ended at once")??;
        ensure!(
            matches!(&first.payload, Some(Payload::Task(t)) if t.id == task.id),
            "first event is not the Task (spec 3.1.6): {first:?}"
        );
        self.cancel(&task.id).await?;
        let rest: Vec<StreamResponse> = stream.try_collect().await?;
        let states: Vec<_> = rest
            .iter()
            .filter(|e| matches!(e.payload, Some(Payload::StatusUpdate(_))))
            .filter_map(state_of)
            .collect();
        ensure!(states.last() == Some(&TaskState::Canceled), "status updates after cancel: {states:?}");
        Ok(())
    }

    /// SubscribeToTask in 0.3 (`tasks/resubscribe`) of a `wait 30` task: after CancelTask the last
    /// status update is `CANCELED` and the stream ends. 0.3 does not say what the stream starts
    /// with, so the cancel is sent after the first event or [`RESUBSCRIBE_GRACE`].
    async fn resubscribe(&self) -> anyhow::Result<()> {
        let task = self.start_wait().await?;
        let stream = self
            .client
            .subscribe_to_task(
                &self.ctx(),
                SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() },
            )
            .await?;
        let (first_tx, first_rx) = tokio::sync::oneshot::channel();
        let consumer = tokio::spawn(async move {
            let mut first = Some(first_tx);
            let mut events = Vec::new();
            let mut stream = stream;
            while let Some(event) = stream.next().await {
                events.push(event?);
                if let Some(first) = first.take() {
                    let _ = first.send(());
                }
            }
            Ok::<_, Error>(events)
        });
        let _ = tokio::time::timeout(RESUBSCRIBE_GRACE, first_rx).await;
        self.cancel(&task.id).await?;
        let events = consumer.await.context("the stream consumer panicked")??;
        ensure!(!events.is_empty(), "no event after the cancel");
        let states: Vec<_> = events
            .iter()
            .filter(|e| matches!(e.payload, Some(Payload::StatusUpdate(_))))
            .filter_map(state_of)
            .collect();
        ensure!(states.last() == Some(&TaskState::Canceled), "status updates after cancel: {states:?}");
        Ok(())
    }

    async fn push_config(&self) -> anyhow::Result<()> {
        let task = self.start_wait().await?;
        let outcome = self.push_config_round_trip(&task, true).await;
        self.cancel(&task.id).await?;
        outcome
    }

    /// The 0.3 line splits the round trip in two: a2a-sdk 0.3's client has no list or delete.
    async fn push_config_list_delete(&self) -> anyhow::Result<()> {
        let task = self.start_wait().await?;
        let outcome = self.push_config_round_trip(&task, false).await;
        self.cancel(&task.id).await?;
        outcome
    }

    /// 1.0: create (the server assigns the id), get, list, delete, list. 0.3 (`get_only` for
    /// `push-config`, otherwise `push-config-list-delete`): the client sets the id ("set by the
    /// client to support multiple notification callbacks", 0.3 spec 6.8), then get, or list,
    /// delete and list.
    async fn push_config_round_trip(&self, task: &Task, get_only: bool) -> anyhow::Result<()> {
        let url = "http://127.0.0.1:9/interop-webhook";
        let v03 = self.protocol == Protocol::V0_3;
        let id = if v03 { format!("interop-{}", a2a_proto::new_id()) } else { String::new() };
        let created = self
            .client
            .create_task_push_notification_config(
                &self.ctx(),
                TaskPushNotificationConfig {
                    id: id.clone(),
                    task_id: task.id.clone(),
                    url: url.into(),
                    token: PUSH_TOKEN.into(),
                    authentication: Some(AuthenticationInfo {
                        scheme: "Bearer".into(),
                        credentials: "interop-secret".into(),
                    }),
                    ..Default::default()
                },
            )
            .await?;
        ensure!(!created.id.is_empty(), "the created config has no id");
        ensure!(!v03 || created.id == id, "created id {:?}, want the client's {id:?}", created.id);
        ensure!(created.task_id == task.id, "created taskId {:?}", created.task_id);
        ensure!(created.url == url, "created url {:?}", created.url);
        ensure!(created.token == PUSH_TOKEN, "created token {:?}", created.token);
        if v03 && !get_only {
            return self.list_and_delete(task, &created.id).await;
        }
        let got = self
            .client
            .get_task_push_notification_config(
                &self.ctx(),
                GetTaskPushNotificationConfigRequest {
                    task_id: task.id.clone(),
                    id: created.id.clone(),
                    ..Default::default()
                },
            )
            .await?;
        ensure!(got.id == created.id && got.url == url, "get returned {got:?}");
        ensure!(
            got.authentication.as_ref().map(|a| a.scheme.as_str()) == Some("Bearer"),
            "get lost the authentication: {got:?}"
        );
        if v03 {
            return Ok(());
        }
        self.list_and_delete(task, &created.id).await
    }

    /// List (exactly the config `id`), delete, list (empty).
    async fn list_and_delete(&self, task: &Task, id: &str) -> anyhow::Result<()> {
        let list = |task_id: String| ListTaskPushNotificationConfigsRequest { task_id, ..Default::default() };
        let listed =
            self.client.list_task_push_notification_configs(&self.ctx(), list(task.id.clone())).await?;
        let listed_ids: Vec<_> = listed.configs.iter().map(|c| c.id.as_str()).collect();
        ensure!(listed_ids == [id], "list returned {listed:?}");
        self.client
            .delete_task_push_notification_config(
                &self.ctx(),
                DeleteTaskPushNotificationConfigRequest {
                    task_id: task.id.clone(),
                    id: id.to_owned(),
                    ..Default::default()
                },
            )
            .await?;
        let after =
            self.client.list_task_push_notification_configs(&self.ctx(), list(task.id.clone())).await?;
        ensure!(after.configs.is_empty(), "list after delete returned {after:?}");
        Ok(())
    }

    async fn error_task_not_found(&self) -> anyhow::Result<()> {
        match self.get(&format!("no-such-task-{}", a2a_proto::new_id()), None).await {
            Ok(_) => bail!("GetTask of an unknown id succeeded"),
            Err(err) => match err.downcast::<Error>() {
                Ok(Error::TaskNotFound { .. }) => Ok(()),
                Ok(other) => bail!("got {other:?} ({:?}), want TaskNotFound", other.reason()),
                Err(other) => Err(other),
            },
        }
    }

    async fn error_not_cancelable(&self) -> anyhow::Result<()> {
        let task = self.send_task(send("hello")).await?;
        match self.cancel(&task.id).await {
            Ok(task) => bail!("CancelTask of a COMPLETED task succeeded: {:?}", task.state()),
            Err(Error::TaskNotCancelable { .. }) => Ok(()),
            Err(other) => bail!("got {other:?} ({:?}), want TaskNotCancelable", other.reason()),
        }
    }

    async fn stream_message(&self) -> anyhow::Result<()> {
        let events: Vec<StreamResponse> = self
            .client
            .send_streaming_message(&self.ctx(), send("reply streamed"))
            .await?
            .try_collect()
            .await?;
        ensure!(events.len() == 1, "{} events, want exactly one Message (spec 3.1.2)", events.len());
        match &events[0].payload {
            Some(Payload::Message(message)) => {
                ensure!(message.text() == "streamed", "text {:?}", message.text());
                Ok(())
            }
            other => bail!("the event is not a Message: {other:?}"),
        }
    }

    async fn error_terminal_send(&self) -> anyhow::Result<()> {
        let task = self.send_task(send("hello")).await?;
        match self.client.send_message(&self.ctx(), follow_up("again", &task)).await {
            Ok(reply) => bail!("SendMessage to a COMPLETED task succeeded (spec 3.1.1): {reply:?}"),
            Err(Error::UnsupportedOperation { .. }) => Ok(()),
            Err(other) => bail!("got {other:?} ({:?}), want UnsupportedOperation", other.reason()),
        }
    }

    async fn error_subscribe_terminal(&self) -> anyhow::Result<()> {
        let task = self.send_task(send("hello")).await?;
        let request = SubscribeToTaskRequest { id: task.id.clone(), ..Default::default() };
        // The error may come as the call's result or as the stream's first item.
        let outcome = match self.client.subscribe_to_task(&self.ctx(), request).await {
            Ok(stream) => stream.try_collect::<Vec<_>>().await.map(|events| events.len()),
            Err(err) => Err(err),
        };
        match outcome {
            Ok(events) => bail!("SubscribeToTask of a COMPLETED task gave {events} events (spec 3.1.6)"),
            Err(Error::UnsupportedOperation { .. }) => Ok(()),
            Err(other) => bail!("got {other:?} ({:?}), want UnsupportedOperation", other.reason()),
        }
    }

    /// ListTasks with pageSize 150, the spec's own validation example (6.5).
    async fn error_invalid_params(&self) -> anyhow::Result<()> {
        let request = ListTasksRequest { page_size: Some(150), ..Default::default() };
        match self.client.list_tasks(&self.ctx(), request).await {
            Ok(_) => bail!("ListTasks with pageSize 150 succeeded (spec 6.5: must be 1..100)"),
            Err(Error::InvalidParams { .. }) => Ok(()),
            Err(other) => bail!("got {other:?} ({:?}), want InvalidParams", other.reason()),
        }
    }

    /// The label of this binding's notifications at the webhook.
    fn label(&self) -> &'static str {
        match self.binding {
            "JSONRPC" => "jsonrpc",
            "HTTP+JSON" => "rest",
            _ => "grpc",
        }
    }

    /// SendMessage with an inline push config (spec 3.2.2) pointing at our webhook receiver.
    /// `file` with a binary file part: the agent answers the length, SHA-256 and media type of what
    /// it read, and (the SDK agents) echoes the file, which our client must read back exactly in
    /// whichever encoding the SDK writes 0.3 proto bytes (`a2a_v03::file_bytes`). What our client
    /// sends over gRPC and HTTP+JSON is `--v03-file-bytes`.
    async fn file_check(&self) -> anyhow::Result<()> {
        let file = interop_file();
        let message = Message::user(vec![Part::text("file"), Part::raw(file.clone(), FILE_TYPE)]);
        let task = self.send_task(send_with(message)).await?;
        ensure!(task.state() == TaskState::Completed, "state {:?}, want COMPLETED", task.state());
        let want = file_digest(&file, FILE_TYPE);
        let texts: Vec<_> = task.artifacts.iter().map(|a| text_of(&a.parts)).collect();
        ensure!(texts.contains(&want), "artifact texts {texts:?}, want {want:?}: the agent read other bytes");
        let echoed: Vec<&[u8]> = task
            .artifacts
            .iter()
            .flat_map(|a| &a.parts)
            .filter_map(|p| match &p.content {
                Some(Content::Raw(bytes)) => Some(bytes.as_slice()),
                _ => None,
            })
            .collect();
        ensure!(
            echoed == [file.as_slice()],
            "echoed files {:?}, want the file sent",
            echoed.iter().map(|f| file_digest(f, "")).collect::<Vec<_>>()
        );
        Ok(())
    }

    async fn push_send(&self) -> anyhow::Result<()> {
        let mut request = send("stream 3");
        request.configuration = Some(SendMessageConfiguration {
            task_push_notification_config: Some(TaskPushNotificationConfig {
                url: self.webhook.url(self.label()),
                token: PUSH_TOKEN.into(),
                authentication: Some(AuthenticationInfo {
                    scheme: "Bearer".into(),
                    credentials: "interop-secret".into(),
                }),
                ..Default::default()
            }),
            ..Default::default()
        });
        let task = self.send_task(request).await?;
        ensure!(task.state() == TaskState::Completed, "state {:?}, want COMPLETED", task.state());
        *self.push_task.lock().await = Some(task.id);
        Ok(())
    }

    /// What the webhook got for the `push-send` task: payloads that are StreamResponses of that
    /// task (4.3.3), the chunks in order, the terminal state last, and on every request the
    /// `Authorization` header built from the config's AuthenticationInfo, and the token header
    /// as the peer is known to send it (`--push-token-with-auth`).
    async fn push_delivery(&self) -> anyhow::Result<()> {
        let task_id = self.push_task.lock().await.clone().context("push-send did not create a task")?;
        let is_terminal =
            |records: &[&Notification]| records.iter().any(|r| r.state().is_some_and(TaskState::is_terminal));
        let checked = self
            .webhook
            .wait_for(self.label(), PUSH_TIMEOUT, is_terminal, |records| match self.protocol {
                Protocol::V1_0 => check_notifications(records, &task_id, self.push_headers.0),
                Protocol::V0_3 => check_notifications_v03(records, &task_id, self.push_headers.1),
            })
            .await?;
        checked
    }
}

fn check_notifications(
    records: &[&Notification],
    task_id: &str,
    token_with_auth: TokenWithAuth,
) -> anyhow::Result<()> {
    let kinds: Vec<_> = records.iter().map(|r| r.kind()).collect();
    eprintln!("push notifications received: {kinds:?}");
    let mut chunks = Vec::new();
    for record in records {
        let payload = record.payload.as_ref().map_err(|e| anyhow::anyhow!("a payload did not parse: {e}"))?;
        ensure!(payload.task_id() == Some(task_id), "a notification for task {:?}", payload.task_id());
        ensure!(
            record.authorization.as_deref() == Some(PUSH_AUTHORIZATION),
            "Authorization {:?}, want {PUSH_AUTHORIZATION:?} (spec 4.3.3)",
            record.authorization
        );
        let token = record.token.as_ref().map(|(_, value)| value.as_str());
        match token_with_auth {
            TokenWithAuth::Sent => {
                ensure!(
                    token == Some(PUSH_TOKEN),
                    "notification token {:?}, want {PUSH_TOKEN:?}",
                    record.token
                )
            }
            TokenWithAuth::Omitted => {
                ensure!(token.is_none(), "a token header {:?}, known to be omitted", record.token)
            }
        }
        if let Some(Payload::ArtifactUpdate(update)) = &payload.payload {
            chunks.push(text_of(&update.artifact.as_ref().map(|a| a.parts.clone()).unwrap_or_default()));
        }
    }
    let want: Vec<_> = (0..3).map(|i| format!("chunk {i}\n")).collect();
    ensure!(chunks == want, "artifact chunks {chunks:?} (kinds {kinds:?})");
    let last = records.last().and_then(|r| r.state());
    ensure!(last == Some(TaskState::Completed), "last notification state {last:?} (kinds {kinds:?})");
    Ok(())
}

/// What a 0.3 agent pushed for the `push-send` task: every payload the Task itself in 0.3 JSON
/// (the webhook refuses anything else), of that task, with the config's token in
/// `X-A2A-Notification-Token` (0.3 spec 9.5) and `Authorization` as the peer is known to send it;
/// the last one `COMPLETED` with the whole streamed artifact.
fn check_notifications_v03(
    records: &[&Notification],
    task_id: &str,
    authorization: Sending,
) -> anyhow::Result<()> {
    let kinds: Vec<_> = records.iter().map(|r| r.kind()).collect();
    eprintln!("0.3 push notifications received: {kinds:?}");
    let mut last = None;
    for record in records {
        let payload =
            record.payload.as_ref().map_err(|e| anyhow::anyhow!("a payload is not a 0.3 Task: {e}"))?;
        let Some(Payload::Task(task)) = &payload.payload else {
            bail!("a payload is not a Task: {payload:?}")
        };
        ensure!(task.id == task_id, "a notification for task {:?}", task.id);
        let token = record.token.as_ref().map(|(name, value)| (name.as_str(), value.as_str()));
        ensure!(
            token == Some(("x-a2a-notification-token", PUSH_TOKEN)),
            "token header {:?}, want X-A2A-Notification-Token {PUSH_TOKEN:?} (0.3 spec 9.5)",
            record.token
        );
        match authorization {
            Sending::Sent => ensure!(
                record.authorization.as_deref() == Some(PUSH_AUTHORIZATION),
                "Authorization {:?}, want {PUSH_AUTHORIZATION:?}",
                record.authorization
            ),
            Sending::Omitted => ensure!(
                record.authorization.is_none(),
                "Authorization {:?}, known to be omitted",
                record.authorization
            ),
        }
        last = Some(task);
    }
    let last = last.context("no notification")?;
    ensure!(
        last.state() == TaskState::Completed,
        "last notification state {:?} (kinds {kinds:?})",
        last.state()
    );
    let text: String = last.artifacts.iter().map(|a| text_of(&a.parts)).collect();
    ensure!(text == "chunk 0\nchunk 1\nchunk 2\n", "the completed task's artifact text {text:?}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use a2a_proto::v1::{Artifact, Part, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent};

    use super::*;

    fn record(payload: StreamResponse, token: Option<&str>) -> Notification {
        Notification {
            label: "rest".into(),
            authorization: Some(PUSH_AUTHORIZATION.into()),
            token: token.map(|t| ("x-a2a-notification-token".into(), t.into())),
            payload: Ok(payload),
        }
    }

    fn status(state: TaskState) -> StreamResponse {
        TaskStatusUpdateEvent {
            task_id: "t1".into(),
            status: Some(TaskStatus { state: state.into(), ..Default::default() }),
            ..Default::default()
        }
        .into()
    }

    fn chunk(i: usize) -> StreamResponse {
        TaskArtifactUpdateEvent {
            task_id: "t1".into(),
            artifact: Some(Artifact::new(vec![Part::text(format!("chunk {i}\n"))])),
            append: i > 0,
            last_chunk: i == 2,
            ..Default::default()
        }
        .into()
    }

    fn delivery(token: Option<&str>) -> Vec<Notification> {
        let mut events = vec![status(TaskState::Working)];
        events.extend((0..3).map(chunk));
        events.push(status(TaskState::Completed));
        events.into_iter().map(|e| record(e, token)).collect()
    }

    fn check(records: &[Notification], token_with_auth: TokenWithAuth) -> anyhow::Result<()> {
        check_notifications(&records.iter().collect::<Vec<_>>(), "t1", token_with_auth)
    }

    #[test]
    fn a_complete_delivery_passes_with_the_token_header_the_peer_is_known_to_send() {
        check(&delivery(Some(PUSH_TOKEN)), TokenWithAuth::Sent).unwrap();
        check(&delivery(None), TokenWithAuth::Omitted).unwrap();
        assert!(check(&delivery(None), TokenWithAuth::Sent).is_err());
        assert!(check(&delivery(Some(PUSH_TOKEN)), TokenWithAuth::Omitted).is_err());
    }

    #[test]
    fn a_delivery_fails_on_a_wrong_header_task_order_or_payload() {
        let mut records = delivery(Some(PUSH_TOKEN));
        records[0].authorization = Some("Bearer other".into());
        assert!(format!("{:#}", check(&records, TokenWithAuth::Sent).unwrap_err()).contains("Authorization"));

        let mut records = delivery(Some(PUSH_TOKEN));
        records.swap(1, 2);
        assert!(format!("{:#}", check(&records, TokenWithAuth::Sent).unwrap_err()).contains("chunks"));

        let mut records = delivery(Some(PUSH_TOKEN));
        records.pop();
        assert!(
            format!("{:#}", check(&records, TokenWithAuth::Sent).unwrap_err()).contains("last notification")
        );

        let mut records = delivery(Some(PUSH_TOKEN));
        records[1].payload = Err("unknown field".into());
        assert!(format!("{:#}", check(&records, TokenWithAuth::Sent).unwrap_err()).contains("did not parse"));

        let mut records = delivery(Some(PUSH_TOKEN));
        records.push(record(
            TaskStatusUpdateEvent { task_id: "t2".into(), ..Default::default() }.into(),
            Some(PUSH_TOKEN),
        ));
        assert!(format!("{:#}", check(&records, TokenWithAuth::Sent).unwrap_err()).contains("for task"));
    }
}
