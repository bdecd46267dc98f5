//! The commands: each one resolves the agent, makes its calls through `a2a-client` and renders the
//! result (SPEC.md §10, Appendix B for the JSON shapes).

use std::time::{Duration, Instant};

use a2a_core::{A2aService, CallContext, EventStream, Operation};
use a2a_proto::v1::{
    send_message_response, stream_response, AuthenticationInfo, CancelTaskRequest,
    DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, ListTasksRequest, Message, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task,
    TaskPushNotificationConfig, TaskState,
};
use futures::StreamExt;
use serde_json::json;

use crate::agent::{self, Agent};
use crate::cli::{AuthCommand, CardCommand, Global, PushCommand, SendArgs, TaskCommand};
use crate::error::{exit, CliError};
use crate::output::{self, field, state_name, to_json, Out};

/// One invocation's settings.
#[derive(Debug)]
pub(crate) struct Run<'a> {
    pub(crate) global: &'a Global,
    pub(crate) out: &'a Out,
}

impl Run<'_> {
    pub(crate) async fn agent(&self) -> Result<Agent, CliError> {
        let (reference, card) = agent::resolve_card(self.global, self.out).await?;
        agent::connect(self.global, reference, &card, self.out).await
    }

    fn ctx() -> CallContext {
        CallContext::v1()
    }

    /// A call bounded by `--timeout` (the whole wait shares one deadline).
    async fn call<T>(
        &self,
        agent: &Agent,
        deadline: Option<Instant>,
        operation: Operation,
        call: impl std::future::Future<Output = a2a_core::Result<T>>,
    ) -> Result<T, CliError> {
        let what = operation.method();
        let started = Instant::now();
        let result = match deadline {
            None => call.await,
            Some(deadline) => match tokio::time::timeout_at(deadline.into(), call).await {
                Ok(result) => result,
                Err(_) => return Err(timeout_error(what)),
            },
        };
        self.out.debug(format_args!(
            "{what} over {} took {:?}: {}",
            agent.client.selected(),
            started.elapsed(),
            if result.is_ok() { "ok" } else { "error" }
        ));
        result.map_err(|e| agent.error(&e))
    }

    fn deadline(&self) -> Option<Instant> {
        self.global.timeout.map(|t| Instant::now() + t)
    }

    /// `card get`.
    pub(crate) async fn card(&self, command: &CardCommand) -> Result<(), CliError> {
        let CardCommand::Get { validate, extended, verify_keys } = command;
        let keys = verify_keys.as_deref().map(agent::read_trusted_keys).transpose()?;
        // --validate checks the document as served, before it is read into a card (a wrong type
        // or an unknown enum value would stop the reading at the first problem).
        let mut report = None;
        if *validate && !*extended {
            let document = crate::validate::fetch_document(self.global).await?;
            let checked = a2a_v03::validate_card(&document);
            if !checked.problems.is_empty() {
                for note in &checked.notes {
                    self.out.note(note);
                }
                return Err(invalid_card(&checked.problems));
            }
            report = Some(checked);
        }
        let (reference, card) = agent::resolve_card_verified(self.global, self.out, keys.as_ref()).await?;
        let card = if *extended {
            let extended = self.extended_card(reference.clone(), &card).await?;
            if let Some(keys) = &keys {
                // As received over the binding: ProtoJSON, checked in its reconstructed form.
                let document =
                    a2a_proto::json::to_value(&extended).map_err(|e| CliError::internal(e.to_string()))?;
                a2a_card_sign::verify(&document, keys).map_err(|e| {
                    CliError::local(
                        "A2ACLI_ERR_CARD_INVALID",
                        exit::FAILURE,
                        format!("the extended agent card is refused: {e} (spec 8.4.3)"),
                    )
                })?;
            }
            extended
        } else {
            card
        };
        if keys.is_some() {
            self.out.note("the agent card's signature verifies with a key of --verify-keys");
        }
        if *validate {
            let report = match report {
                Some(report) => report,
                // The extended card came over the binding: its ProtoJSON is checked.
                None => a2a_v03::validate_card(
                    &a2a_proto::json::to_value(&card).map_err(|e| CliError::internal(e.to_string()))?,
                ),
            };
            for note in &report.notes {
                self.out.note(note);
            }
            if !report.problems.is_empty() {
                return Err(invalid_card(&report.problems));
            }
            self.out.note(
                "the agent card is a valid A2A 1.0 AgentCard: every field known, of its type, and every field A2A 1.0 requires",
            );
        }
        // The card is also what selects the transport (SPEC.md §10.1): say which one.
        let selected = match agent::connect(self.global, reference, &card, self.out).await {
            Ok(agent) => Some(agent.client.selected().to_string()),
            Err(error) => {
                self.out.warn(&format!("no usable interface: {}", error.message));
                None
            }
        };
        if self.out.json() {
            self.out.document(&to_json(&card)?);
        } else {
            self.out.print(&output::card(&card, selected.as_deref(), self.out.verbose(), keys.is_some()));
        }
        Ok(())
    }

    /// `auth login` / `auth logout`.
    pub(crate) async fn auth(&self, command: &AuthCommand) -> Result<(), CliError> {
        match command {
            AuthCommand::Login { client_id, client_secret, scope } => {
                let (reference, card) = agent::resolve_card(self.global, self.out).await?;
                let timeout = self.global.timeout.unwrap_or(Duration::from_secs(900));
                let (scheme, path, expires_in) = crate::auth::login(
                    &reference,
                    &card,
                    client_id,
                    client_secret.as_deref(),
                    scope,
                    timeout,
                    |text| self.out.note(text),
                )
                .await?;
                if self.out.json() {
                    self.out.document(&json!({"scheme": scheme, "tokenFile": path, "expiresIn": expires_in}));
                } else {
                    let mut text = field("Logged In", "yes");
                    text.push_str(&field("Scheme", &scheme));
                    text.push_str(&field("Token File", path.display()));
                    if let Some(seconds) = expires_in {
                        text.push_str(&field("Expires In", format!("{seconds}s")));
                    }
                    self.out.print(&text);
                }
            }
            AuthCommand::Logout => {
                let Some(reference) = &self.global.agent_card else {
                    return Err(CliError::usage("no agent: pass -a/--agent-card <ref>"));
                };
                let removed = crate::auth::logout(reference)?;
                if self.out.json() {
                    self.out.document(&json!({"removed": removed}));
                } else {
                    self.out.print(&field("Logged Out", if removed { "yes" } else { "no token was kept" }));
                }
            }
        }
        Ok(())
    }

    /// The authenticated extended card (SPEC.md §10.1, §12.4): only when the public card declares
    /// one, and with a credential only when the public card declares a scheme that accepts it.
    async fn extended_card(
        &self,
        reference: String,
        card: &a2a_proto::v1::AgentCard,
    ) -> Result<a2a_proto::v1::AgentCard, CliError> {
        agent::check_credentials_declared(self.global, card)?;
        let agent = agent::connect(self.global, reference, card, self.out).await?;
        if !capability(&agent, |c| c.extended_agent_card) {
            return Err(CliError::from_a2a(
                &a2a_core::Error::UnsupportedOperation {
                    reason: "the agent card does not declare capabilities.extendedAgentCard".into(),
                },
                agent.credentials,
            ));
        }
        let request = a2a_proto::v1::GetExtendedAgentCardRequest::default();
        self.call(
            &agent,
            self.deadline(),
            Operation::GetExtendedAgentCard,
            agent.client.get_extended_agent_card(&Self::ctx(), request),
        )
        .await
    }

    /// `send`.
    pub(crate) async fn send(
        &self,
        args: &SendArgs,
        parts: Vec<a2a_proto::v1::Part>,
    ) -> Result<(), CliError> {
        if parts.is_empty() {
            return Err(CliError::usage("nothing to send: give the message text, --text, --file or --data"));
        }
        let metadata = match &args.metadata {
            None => None,
            Some(raw) => match serde_json::from_str::<serde_json::Value>(raw) {
                Ok(serde_json::Value::Object(map)) => Some(a2a_proto::json::to_struct(&map)),
                _ => return Err(CliError::usage(format!("--metadata {raw:?} is not a JSON object"))),
            },
        };
        let agent = self.agent().await?;
        let mut message = Message::user(parts);
        message.metadata = metadata;
        if let Some(id) = &args.context_id {
            message.context_id = id.clone();
        }
        if let Some(id) = &args.task_id {
            message.task_id = id.clone();
        }
        let deadline = self.deadline();
        let request = |return_immediately| SendMessageRequest {
            message: Some(message.clone()),
            configuration: Some(SendMessageConfiguration { return_immediately, ..Default::default() }),
            ..Default::default()
        };
        if args.stream {
            let streaming = agent.client.card().capabilities.as_ref().and_then(|c| c.streaming) == Some(true);
            if streaming {
                let events = self
                    .call(
                        &agent,
                        deadline,
                        Operation::SendStreamingMessage,
                        agent.client.send_streaming_message(&Self::ctx(), request(false)),
                    )
                    .await
                    .map_err(|e| resend_hint(e, args))?;
                return self.follow(&agent, events, deadline, true).await;
            }
            // SPEC.md §10.2: fall back, never hang; JSON stays JSON Lines (§11.3).
            self.out.warn("the agent does not advertise streaming: waiting for the result instead");
        }
        let response = self
            .call(
                &agent,
                deadline,
                Operation::SendMessage,
                agent.client.send_message(&Self::ctx(), request(true)),
            )
            .await
            .map_err(|e| resend_hint(e, args))?;
        let task = match response.payload {
            Some(send_message_response::Payload::Message(message)) => {
                if args.stream && self.out.json() {
                    self.out.line(&to_json(&StreamResponse::from(message))?);
                } else if self.out.json() {
                    self.out.document(&to_json(&SendMessageResponse::from(message))?);
                } else {
                    self.out.print(&output::message(&message));
                }
                return Ok(());
            }
            Some(send_message_response::Payload::Task(task)) => task,
            None => {
                return Err(CliError::from_a2a(
                    &a2a_core::Error::InvalidAgentResponse {
                        reason: "SendMessage answered with neither a task nor a message".into(),
                    },
                    false,
                ))
            }
        };
        let task = if args.no_wait { task } else { self.wait(&agent, task, deadline).await? };
        if args.stream && self.out.json() {
            self.out.line(&to_json(&StreamResponse::from(task.clone()))?);
        } else if self.out.json() {
            self.out.document(&to_json(&SendMessageResponse::from(task.clone()))?);
        } else {
            self.out.print(&output::task(&task, self.out.verbose()));
            self.resume_hint_line(&agent, &task);
        }
        self.outcome(&agent, &task, args.no_wait);
        Ok(())
    }

    /// Polls `task` until it is terminal or interrupted (SPEC.md §9.3): first after 200 ms, then
    /// backing off to `--poll-interval`; `--timeout` ends the wait with `A2ACLI_ERR_TIMEOUT`.
    pub(crate) async fn wait(
        &self,
        agent: &Agent,
        mut task: Task,
        deadline: Option<Instant>,
    ) -> Result<Task, CliError> {
        let interval = self.global.poll_interval.max(Duration::from_millis(10));
        let mut delay = interval.min(Duration::from_millis(200));
        if self.stops(task.state()) {
            return Ok(task);
        }
        let mut spinner = Some(self.out.spinner(format!("{} {}", task.id, state_name(task.state()))));
        let mut first = true;
        let mut announced = false;
        loop {
            if task.state() == TaskState::AuthRequired && !std::mem::replace(&mut announced, true) {
                drop(spinner.take());
                self.announce_auth(&task);
                // SPEC.md §12.3, spec 7.6.2: follow the task by its stream when there is one (the
                // agent may continue by itself once authorized), else keep polling.
                if capability(agent, |c| c.streaming) {
                    if let Some(done) = self.follow_quietly(agent, &task.id, deadline).await? {
                        return Ok(done);
                    }
                }
            }
            let sleep =
                match deadline {
                    Some(deadline) => {
                        let left = deadline.saturating_duration_since(Instant::now());
                        if left.is_zero() {
                            return Err(timeout_error(&format!("waiting for task {}", task.id)).hint(
                                format!("a2a-cli task get -a {} --wait {}", quote(&agent.reference), task.id),
                            ));
                        }
                        delay.min(left)
                    }
                    None => delay,
                };
            tokio::time::sleep(sleep).await;
            let request = GetTaskRequest { id: task.id.clone(), ..Default::default() };
            task = self
                .call(agent, deadline, Operation::GetTask, agent.client.get_task(&Self::ctx(), request))
                .await
                .map_err(|e| {
                    if e.code == "A2ACLI_ERR_TIMEOUT" {
                        timeout_error(&format!("waiting for task {}", task.id)).hint(format!(
                            "a2a-cli task get -a {} --wait {}",
                            quote(&agent.reference),
                            task.id
                        ))
                    } else {
                        e
                    }
                })?;
            if self.stops(task.state()) {
                return Ok(task);
            }
            if task.state() != TaskState::AuthRequired {
                announced = false;
            }
            if std::mem::take(&mut first) {
                // Still running after the first poll: the identifiers now, on stderr, so that an
                // interrupted wait loses nothing (SPEC.md §9.3).
                self.out.note(&format!(
                    "task {} (context {}) is {}; waiting (resume the wait with: a2a-cli task get -a {} --wait {})",
                    task.id,
                    task.context_id,
                    state_name(task.state()),
                    quote(&agent.reference),
                    task.id
                ));
            }
            delay = (delay * 2).min(interval);
        }
    }

    /// Renders a stream live until it ends; when it ends before a terminal or interrupted state,
    /// falls back to polling the task (SPEC.md §9.3). `stream`: `--stream` (live output) or not
    /// (only the terminal task is shown, as for `task subscribe` without `--stream`).
    async fn follow(
        &self,
        agent: &Agent,
        mut events: EventStream,
        deadline: Option<Instant>,
        stream: bool,
    ) -> Result<(), CliError> {
        let mut render = Render::default();
        let mut task: Option<Task> = None;
        let mut last_message: Option<Message> = None;
        let mut spinner = None;
        let mut resubscribed = false;
        let mut announced = false;
        loop {
            let next = match deadline {
                None => events.next().await,
                Some(deadline) => match tokio::time::timeout_at(deadline.into(), events.next()).await {
                    Ok(next) => next,
                    Err(_) => {
                        drop(spinner.take());
                        let mut error = timeout_error("following the stream");
                        if let Some(task) = &task {
                            error = error.hint(format!(
                                "a2a-cli task get -a {} --wait {}",
                                quote(&agent.reference),
                                task.id
                            ));
                        }
                        if stream {
                            self.out.error(&error, true);
                            return Err(reported(error));
                        }
                        return Err(error);
                    }
                },
            };
            let Some(event) = next else {
                // `send --stream` and `follow_task` end at an interrupted state (spec 3.1.2); with
                // --wait-auth the task is followed on by a plain subscription, which goes through
                // AUTH_REQUIRED to a terminal state (when it ends earlier, polling takes over).
                let waiting = task.as_ref().filter(|t| t.state() == TaskState::AuthRequired);
                if let (Some(waiting), false) = (waiting, resubscribed) {
                    if self.global.wait_auth && capability(agent, |c| c.streaming) {
                        resubscribed = true;
                        let request = SubscribeToTaskRequest { id: waiting.id.clone(), ..Default::default() };
                        let ctx = Self::ctx();
                        let call = agent.client.subscribe_to_task(&ctx, request);
                        if let Ok(more) = self.call(agent, deadline, Operation::SubscribeToTask, call).await {
                            events = more;
                            continue;
                        }
                    }
                }
                break;
            };
            let event = match event {
                Ok(event) => event,
                Err(error) => {
                    drop(spinner.take());
                    let error = agent.error(&error);
                    self.out.warn(&format!("the stream failed ({}: {})", error.code, error.message));
                    if task.is_none() {
                        if stream {
                            self.out.error(&error, true);
                            return Err(reported(error));
                        }
                        return Err(error);
                    }
                    break;
                }
            };
            if stream && self.out.json() {
                self.out.line(&to_json(&event)?);
            }
            let state = apply(&mut task, &mut last_message, &event);
            if state == Some(TaskState::AuthRequired) && self.global.wait_auth && !announced {
                if let Some(task) = &task {
                    drop(spinner.take());
                    self.announce_auth(task);
                    announced = true;
                }
            } else if state != Some(TaskState::AuthRequired) {
                announced = false;
            }
            if stream && !self.out.json() {
                drop(spinner.take());
                self.out.print(&render.event(&event, self.out.verbose()));
                if state == Some(TaskState::Working) || state == Some(TaskState::Submitted) {
                    spinner = Some(self.out.spinner(format!(
                        "{} {}",
                        task.as_ref().map_or("", |t| t.id.as_str()),
                        state_name(state.unwrap_or_default())
                    )));
                }
            }
            if state.is_some_and(|s| self.stops(s)) {
                break;
            }
        }
        drop(spinner);
        if stream && !self.out.json() {
            self.out.print(&render.close());
        }
        let Some(mut task) = task else {
            // A direct message reply: the stream is that one object (SPEC.md §10.2).
            return match last_message {
                Some(message) => {
                    if !stream {
                        if self.out.json() {
                            self.out.document(&to_json(&message)?);
                        } else {
                            self.out.print(&output::message(&message));
                        }
                    }
                    Ok(())
                }
                None => Err(CliError::from_a2a(
                    &a2a_core::Error::InvalidAgentResponse {
                        reason: "the stream ended without an event".into(),
                    },
                    false,
                )),
            };
        };
        if !self.stops(task.state()) {
            self.out.warn(&format!(
                "the stream ended while task {} was {}: polling it instead",
                task.id,
                state_name(task.state())
            ));
            task = self.wait(agent, task, deadline).await?;
            if stream && self.out.json() {
                self.out.line(&to_json(&StreamResponse::from(task.clone()))?);
            }
        }
        if stream && !self.out.json() {
            // The tail restates the identifiers and the state (SPEC.md §11.2).
            let mut tail = field("Task ID", &task.id);
            tail.push_str(&field("Context ID", &task.context_id));
            tail.push_str(&field("State", state_name(task.state())));
            self.out.print(&tail);
            self.resume_hint_line(agent, &task);
        } else if !stream {
            if self.out.json() {
                self.out.document(&to_json(&task)?);
            } else {
                self.out.print(&output::task(&task, self.out.verbose()));
                self.resume_hint_line(agent, &task);
            }
        }
        self.outcome(agent, &task, false);
        Ok(())
    }

    /// `Resume: <command>` for an interrupted task (SPEC.md §8.2), in text output. For
    /// AUTH_REQUIRED (SPEC.md §12.3, spec 7.6.2), first each URL of the agent's status message
    /// (`Authorize:`, what to visit out of band), then the command that follows the task once
    /// authorized (`Resume:`) and the one that answers in band (`Reply:`).
    fn resume_hint_line(&self, agent: &Agent, task: &Task) {
        if task.state() == TaskState::AuthRequired && !self.out.json() {
            let mut text = String::new();
            for url in status_urls(task) {
                text.push_str(&field("Authorize", url));
            }
            text.push_str(&field(
                "Resume",
                format!("a2a-cli task get -a {} --wait --wait-auth {}", quote(&agent.reference), task.id),
            ));
            text.push_str(&field(
                "Reply",
                format!("a2a-cli send -a {} --task-id {} '<reply>'", quote(&agent.reference), task.id),
            ));
            self.out.print(&text);
        } else if task.state().is_interrupted() && !self.out.json() {
            self.out.print(&field(
                "Resume",
                format!("a2a-cli send -a {} --task-id {} '<reply>'", quote(&agent.reference), task.id),
            ));
        }
    }

    /// Names a non-success or paused outcome on stderr (SPEC.md §11.6: the exit status stays 0).
    fn outcome(&self, agent: &Agent, task: &Task, not_waited: bool) {
        let state = task.state();
        match state {
            TaskState::Failed | TaskState::Rejected | TaskState::Canceled => {
                self.out.warn(&format!("task {} ended {}", task.id, state_name(state)));
            }
            TaskState::AuthRequired => self.out.note(&format!(
                "task {} is AUTH_REQUIRED: {}; once authorized, follow it with a2a-cli task get -a {} --wait --wait-auth {} \
                 (or answer with a2a-cli send -a {} --task-id {} '<reply>')",
                task.id,
                status_text(task).unwrap_or_else(|| "the agent gave no details".into()),
                quote(&agent.reference),
                task.id,
                quote(&agent.reference),
                task.id
            )),
            TaskState::InputRequired => self.out.note(&format!(
                "task {} is {}: answer with a2a-cli send -a {} --task-id {} '<reply>'",
                task.id,
                state_name(state),
                quote(&agent.reference),
                task.id
            )),
            _ if not_waited && !state.is_terminal() => self.out.note(&format!(
                "task {} is {}: follow it with a2a-cli task get -a {} --wait {}",
                task.id,
                state_name(state),
                quote(&agent.reference),
                task.id
            )),
            _ => {}
        }
    }

    /// Where a wait stops: a terminal or interrupted state, except AUTH_REQUIRED with
    /// `--wait-auth` (SPEC.md §8: without it, a wait never blocks on an authorization).
    fn stops(&self, state: TaskState) -> bool {
        settled(state) && !(self.global.wait_auth && state == TaskState::AuthRequired)
    }

    /// Tells (stderr) what the agent asks for while AUTH_REQUIRED, and that the wait goes on.
    fn announce_auth(&self, task: &Task) {
        self.out.note(&format!(
            "task {} is AUTH_REQUIRED: {}; waiting until it is authorized (--wait-auth)",
            task.id,
            status_text(task).unwrap_or_else(|| "the agent gave no details".into())
        ));
    }

    /// Follows a task by `SubscribeToTask` until it reaches a state where the wait stops; `None`
    /// when the stream ends first (the caller polls on). The plain subscription, not
    /// `Client::follow_task`: that one ends at an interrupted state, this wait goes through
    /// AUTH_REQUIRED (the agent's subscription stream ends only at a terminal state).
    async fn follow_quietly(
        &self,
        agent: &Agent,
        id: &str,
        deadline: Option<Instant>,
    ) -> Result<Option<Task>, CliError> {
        let request = SubscribeToTaskRequest { id: id.to_owned(), ..Default::default() };
        let ctx = Self::ctx();
        let call = agent.client.subscribe_to_task(&ctx, request);
        let mut events = match self.call(agent, deadline, Operation::SubscribeToTask, call).await {
            Ok(events) => events,
            // E.g. the task ended between the poll and the subscription: polling tells.
            Err(error) if error.code != "A2ACLI_ERR_TIMEOUT" => {
                self.out.debug(format_args!("subscribing failed ({}): polling instead", error.code));
                return Ok(None);
            }
            Err(error) => return Err(error),
        };
        let _spinner = self.out.spinner(format!("{id} {}", state_name(TaskState::AuthRequired)));
        let mut task = None;
        let mut last_message = None;
        loop {
            let next = match deadline {
                None => events.next().await,
                Some(deadline) => {
                    tokio::time::timeout_at(deadline.into(), events.next()).await.map_err(|_| {
                        timeout_error(&format!("waiting for task {id}")).hint(format!(
                            "a2a-cli task get -a {} --wait --wait-auth {id}",
                            quote(&agent.reference)
                        ))
                    })?
                }
            };
            let Some(Ok(event)) = next else { return Ok(None) };
            if apply(&mut task, &mut last_message, &event).is_some_and(|s| self.stops(s)) {
                return Ok(task);
            }
        }
    }

    /// `task ...`.
    pub(crate) async fn task(&self, command: &TaskCommand) -> Result<(), CliError> {
        let agent = self.agent().await?;
        let deadline = self.deadline();
        let ctx = Self::ctx();
        match command {
            TaskCommand::Get { id, history, wait } => {
                let request =
                    GetTaskRequest { id: id.clone(), history_length: *history, ..Default::default() };
                let mut task = self
                    .call(&agent, deadline, Operation::GetTask, agent.client.get_task(&ctx, request))
                    .await?;
                if *wait {
                    task = self.wait(&agent, task, deadline).await?;
                    if history.is_some() {
                        let request =
                            GetTaskRequest { id: id.clone(), history_length: *history, ..Default::default() };
                        task = self
                            .call(&agent, deadline, Operation::GetTask, agent.client.get_task(&ctx, request))
                            .await?;
                    }
                }
                self.show_task(&agent, &task, history.is_some())?;
            }
            TaskCommand::Cancel { id } => {
                let request = CancelTaskRequest { id: id.clone(), ..Default::default() };
                let task = self
                    .call(&agent, deadline, Operation::CancelTask, agent.client.cancel_task(&ctx, request))
                    .await?;
                self.show_task(&agent, &task, false)?;
            }
            TaskCommand::List { context_id, status, page_size, page_token, history } => {
                let request = ListTasksRequest {
                    context_id: context_id.clone().unwrap_or_default(),
                    status: status.map_or(0, |s| s as i32),
                    page_size: *page_size,
                    page_token: page_token.clone().unwrap_or_default(),
                    history_length: *history,
                    ..Default::default()
                };
                let response = self
                    .call(&agent, deadline, Operation::ListTasks, agent.client.list_tasks(&ctx, request))
                    .await?;
                if self.out.json() {
                    self.out.document(&to_json(&response)?);
                } else {
                    let mut text = String::new();
                    for task in &response.tasks {
                        text.push_str(&field("Task ID", &task.id));
                        text.push_str(&field("Context ID", &task.context_id));
                        text.push_str(&field("State", state_name(task.state())));
                        text.push('\n');
                    }
                    text.push_str(&field("Tasks", response.tasks.len()));
                    text.push_str(&field("Total Size", response.total_size));
                    if !response.next_page_token.is_empty() {
                        text.push_str(&field("Next Page Token", &response.next_page_token));
                    }
                    self.out.print(&text);
                }
            }
            TaskCommand::Subscribe { id, stream } if !capability(&agent, |c| c.streaming) => {
                // SPEC.md §13.3: checked on the card first. Without streaming, the task is
                // followed by polling instead (never a hang, JSON Lines still honoured).
                self.out.warn("the agent does not advertise streaming: polling the task instead");
                let request = GetTaskRequest { id: id.clone(), ..Default::default() };
                let task = self
                    .call(&agent, deadline, Operation::GetTask, agent.client.get_task(&ctx, request))
                    .await?;
                let task = self.wait(&agent, task, deadline).await?;
                if *stream && self.out.json() {
                    self.out.line(&to_json(&StreamResponse::from(task))?);
                } else {
                    self.show_task(&agent, &task, false)?;
                }
            }
            TaskCommand::Subscribe { id, stream } => {
                let request = SubscribeToTaskRequest { id: id.clone(), ..Default::default() };
                // Resubscribes by itself when the stream drops (a2a-client's follow_task).
                let events = match self
                    .call(
                        &agent,
                        deadline,
                        Operation::SubscribeToTask,
                        agent.client.follow_task(&ctx, request),
                    )
                    .await
                {
                    Ok(events) => events,
                    Err(error) if *stream => {
                        self.out.error(&error, true);
                        return Err(reported(error));
                    }
                    Err(error) => return Err(error),
                };
                self.follow(&agent, events, deadline, *stream).await?;
            }
            TaskCommand::Download { id, dir } => {
                let request = GetTaskRequest { id: id.clone(), ..Default::default() };
                let task = self
                    .call(&agent, deadline, Operation::GetTask, agent.client.get_task(&ctx, request))
                    .await?;
                let saved = download(&task, dir)?;
                if self.out.json() {
                    self.out.document(&to_json(&task)?);
                } else {
                    let mut text = field("Task ID", &task.id);
                    text.push_str(&field("Context ID", &task.context_id));
                    text.push_str(&field("State", state_name(task.state())));
                    for (what, path, size) in &saved {
                        match size {
                            Some(size) => {
                                text.push_str(&field("Saved", format!("{} ({size} bytes)", path.display())))
                            }
                            None => {
                                text.push_str(&field("Not Fetched", format!("{what} {}", path.display())))
                            }
                        }
                    }
                    text.push_str(&field("Files", saved.iter().filter(|s| s.2.is_some()).count()));
                    self.out.print(&text);
                }
                for (what, path, size) in &saved {
                    if size.is_some() {
                        self.out.debug(format_args!("{what} saved as {}", path.display()));
                    }
                }
            }
            TaskCommand::PushConfig { command } => self.push(&agent, command, deadline).await?,
        }
        Ok(())
    }

    /// A task as `task get` and `task cancel` show it (`history`: `--history` was given).
    fn show_task(&self, agent: &Agent, task: &Task, history: bool) -> Result<(), CliError> {
        if self.out.json() {
            self.out.document(&to_json(task)?);
        } else {
            self.out.print(&output::task(task, self.out.verbose() || history));
            self.resume_hint_line(agent, task);
        }
        Ok(())
    }

    async fn push(
        &self,
        agent: &Agent,
        command: &PushCommand,
        deadline: Option<Instant>,
    ) -> Result<(), CliError> {
        let ctx = Self::ctx();
        // SPEC.md §13.3: the card says whether push notifications exist; without them, the
        // protocol's own error, and no request.
        if !capability(agent, |c| c.push_notifications) {
            return Err(CliError::from_a2a(
                &a2a_core::Error::PushNotificationNotSupported,
                agent.credentials,
            )
            .hint("the agent card does not declare capabilities.pushNotifications"));
        }
        let config = match command {
            PushCommand::Create { task_id, url, token, id, auth_scheme, auth_credentials } => {
                let request = TaskPushNotificationConfig {
                    task_id: task_id.clone(),
                    id: id.clone().unwrap_or_default(),
                    url: url.clone(),
                    token: token.clone().unwrap_or_default(),
                    authentication: auth_scheme.as_ref().map(|scheme| AuthenticationInfo {
                        scheme: scheme.clone(),
                        credentials: auth_credentials.clone().unwrap_or_default(),
                    }),
                    ..Default::default()
                };
                self.call(
                    agent,
                    deadline,
                    Operation::CreateTaskPushNotificationConfig,
                    agent.client.create_task_push_notification_config(&ctx, request),
                )
                .await?
            }
            PushCommand::Get { task_id, config_id } => {
                let request = GetTaskPushNotificationConfigRequest {
                    task_id: task_id.clone(),
                    id: config_id.clone(),
                    ..Default::default()
                };
                self.call(
                    agent,
                    deadline,
                    Operation::GetTaskPushNotificationConfig,
                    agent.client.get_task_push_notification_config(&ctx, request),
                )
                .await?
            }
            PushCommand::List { task_id, page_size, page_token } => {
                let request = ListTaskPushNotificationConfigsRequest {
                    task_id: task_id.clone(),
                    page_size: page_size.unwrap_or_default(),
                    page_token: page_token.clone().unwrap_or_default(),
                    ..Default::default()
                };
                let response = self
                    .call(
                        agent,
                        deadline,
                        Operation::ListTaskPushNotificationConfigs,
                        agent.client.list_task_push_notification_configs(&ctx, request),
                    )
                    .await?;
                if self.out.json() {
                    self.out.document(&to_json(&response)?);
                } else {
                    let mut text = String::new();
                    for config in &response.configs {
                        text.push_str(&push_text(config));
                        text.push('\n');
                    }
                    text.push_str(&field("Configs", response.configs.len()));
                    if !response.next_page_token.is_empty() {
                        text.push_str(&field("Next Page Token", &response.next_page_token));
                    }
                    self.out.print(&text);
                }
                return Ok(());
            }
            PushCommand::Delete { task_id, config_id } => {
                let request = DeleteTaskPushNotificationConfigRequest {
                    task_id: task_id.clone(),
                    id: config_id.clone(),
                    ..Default::default()
                };
                self.call(
                    agent,
                    deadline,
                    Operation::DeleteTaskPushNotificationConfig,
                    agent.client.delete_task_push_notification_config(&ctx, request),
                )
                .await?;
                if self.out.json() {
                    // The protocol answers with an empty message.
                    self.out.document(&json!({}));
                } else {
                    self.out.print(&format!(
                        "{}{}{}",
                        field("Task ID", task_id),
                        field("Config ID", config_id),
                        field("Deleted", "yes")
                    ));
                }
                return Ok(());
            }
        };
        if self.out.json() {
            self.out.document(&to_json(&config)?);
        } else {
            self.out.print(&push_text(&config));
        }
        Ok(())
    }
}

/// What `task download` did with each part: (`artifact label`, path or URL, bytes written; `None`
/// for a URL part, which is not fetched).
type Saved = Vec<(String, std::path::PathBuf, Option<usize>)>;

/// Writes `task`'s artifacts under `dir` (SPEC.md §7.1 `task download`).
fn download(task: &Task, dir: &std::path::Path) -> Result<Saved, CliError> {
    use a2a_proto::v1::part::Content;
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::internal(format!("cannot create {}: {e}", dir.display())))?;
    let mut saved = Saved::new();
    let write = |saved: &mut Saved, label: &str, name: String, bytes: &[u8]| -> Result<(), CliError> {
        let path = dir.join(safe_name(&name));
        std::fs::write(&path, bytes)
            .map_err(|e| CliError::internal(format!("cannot write {}: {e}", path.display())))?;
        saved.push((label.to_owned(), path, Some(bytes.len())));
        Ok(())
    };
    for (n, artifact) in task.artifacts.iter().enumerate() {
        let base = if artifact.name.is_empty() { format!("artifact-{n}") } else { artifact.name.clone() };
        let base = format!("{base}-{}", &artifact.artifact_id.chars().take(8).collect::<String>());
        let label = output::artifact_label(artifact);
        let texts: Option<Vec<&str>> = artifact.parts.iter().map(|p| p.as_text()).collect();
        if let Some(texts) = texts.filter(|t| !t.is_empty()) {
            write(&mut saved, &label, format!("{base}.txt"), texts.concat().as_bytes())?;
            continue;
        }
        for (i, part) in artifact.parts.iter().enumerate() {
            match &part.content {
                Some(Content::Text(text)) => {
                    write(&mut saved, &label, format!("{base}-{i}.txt"), text.as_bytes())?
                }
                Some(Content::Data(value)) => {
                    let json =
                        serde_json::to_vec_pretty(&a2a_proto::json::from_pb_value(value)).unwrap_or_default();
                    write(&mut saved, &label, format!("{base}-{i}.json"), &json)?;
                }
                Some(Content::Raw(bytes)) => {
                    let name = if part.filename.is_empty() {
                        format!("{base}-{i}.bin")
                    } else {
                        part.filename.clone()
                    };
                    write(&mut saved, &label, name, bytes)?;
                }
                Some(Content::Url(url)) => saved.push((label.clone(), std::path::PathBuf::from(url), None)),
                None => {}
            }
        }
    }
    Ok(saved)
}

/// A file name an agent chose, made safe: no directories, no hidden or parent names.
fn safe_name(name: &str) -> String {
    let name: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || "._-+".contains(c) { c } else { '_' }).collect();
    let name = name.trim_start_matches('.');
    if name.is_empty() {
        "artifact".into()
    } else {
        name.to_owned()
    }
}

fn push_text(config: &TaskPushNotificationConfig) -> String {
    let mut text = field("Task ID", &config.task_id);
    text.push_str(&field("Config ID", &config.id));
    text.push_str(&field("URL", &config.url));
    if !config.token.is_empty() {
        text.push_str(&field("Token", format!("<set, {} bytes>", config.token.len())));
    }
    if let Some(auth) = &config.authentication {
        text.push_str(&field("Authentication", &auth.scheme));
    }
    text
}

/// Whether the agent's card declares a capability (absent means no).
fn capability(agent: &Agent, which: impl Fn(&a2a_proto::v1::AgentCapabilities) -> Option<bool>) -> bool {
    agent.client.card().capabilities.as_ref().and_then(which) == Some(true)
}

/// The text of a task's status message.
fn status_text(task: &Task) -> Option<String> {
    let message = task.status.as_ref()?.message.as_ref()?;
    Some(output::parts_text(&message.parts).trim().to_owned()).filter(|t| !t.is_empty())
}

/// The `http(s)://` URLs in a task's status message, in order, without trailing punctuation.
fn status_urls(task: &Task) -> Vec<String> {
    let text = status_text(task).unwrap_or_default();
    text.split(|c: char| c.is_whitespace() || "<>\"'`()[]".contains(c))
        .filter(|word| word.starts_with("http://") || word.starts_with("https://"))
        .map(|word| word.trim_end_matches(['.', ',', ';', ':', '!', '?']).to_owned())
        .collect()
}

/// Terminal or interrupted: where a wait stops (SPEC.md §9.1; UNSPECIFIED is neither).
fn settled(state: TaskState) -> bool {
    state.is_terminal() || state.is_interrupted()
}

fn timeout_error(what: &str) -> CliError {
    CliError::local("A2ACLI_ERR_TIMEOUT", exit::TIMEOUT, format!("--timeout expired while {what}"))
}

/// `A2ACLI_ERR_CARD_INVALID` listing every problem `--validate` found.
fn invalid_card(problems: &[String]) -> CliError {
    CliError::local(
        "A2ACLI_ERR_CARD_INVALID",
        exit::FAILURE,
        format!(
            "the agent card is not a valid A2A 1.0 AgentCard ({} problem{}): {}",
            problems.len(),
            if problems.len() == 1 { "" } else { "s" },
            problems.join("; ")
        ),
    )
}

/// A rejected `--task-id` or `--context-id` is an error to surface, never a new task (SPEC.md
/// §8.1): say so and point at `--debug`.
fn resend_hint(error: CliError, args: &SendArgs) -> CliError {
    if (args.task_id.is_some() || args.context_id.is_some())
        && error.hint.is_none()
        && error.exit == exit::FAILURE
    {
        error.hint("the agent rejected the --task-id/--context-id given; no new task was started (--debug shows the exchange)")
    } else {
        error
    }
}

/// An error already written (as the last JSON line of a stream): `main` only exits with it.
fn reported(mut error: CliError) -> CliError {
    error.code = REPORTED.into();
    error
}

/// The code of an error already written.
pub(crate) const REPORTED: &str = "\0reported";

/// Shell-quotes `s` when needed, for copy-pasteable commands.
fn quote(s: &str) -> String {
    if s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c)) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Folds one stream event into the task it describes; returns the task's state after it.
fn apply(
    task: &mut Option<Task>,
    last_message: &mut Option<Message>,
    event: &StreamResponse,
) -> Option<TaskState> {
    match event.payload.as_ref()? {
        stream_response::Payload::Task(t) => *task = Some(t.clone()),
        stream_response::Payload::Message(m) => {
            *last_message = Some(m.clone());
            return task.as_ref().map(Task::state);
        }
        stream_response::Payload::StatusUpdate(update) => {
            let t = task.get_or_insert_with(|| Task {
                id: update.task_id.clone(),
                context_id: update.context_id.clone(),
                ..Default::default()
            });
            t.status = update.status.clone();
        }
        stream_response::Payload::ArtifactUpdate(update) => {
            let t = task.get_or_insert_with(|| Task {
                id: update.task_id.clone(),
                context_id: update.context_id.clone(),
                ..Default::default()
            });
            if let Some(artifact) = &update.artifact {
                match t.artifacts.iter_mut().find(|a| a.artifact_id == artifact.artifact_id) {
                    Some(existing) if update.append => existing.parts.extend(artifact.parts.iter().cloned()),
                    Some(existing) => *existing = artifact.clone(),
                    None => t.artifacts.push(artifact.clone()),
                }
            }
        }
    }
    task.as_ref().map(Task::state)
}

/// Live text rendering of a stream: each event in the field-and-block form, an artifact's text
/// as it arrives (its block stays open across its chunks and closes on the last one, or before
/// anything else is printed).
#[derive(Debug, Default)]
pub(crate) struct Render {
    /// The artifact whose block is open.
    open: Option<String>,
    /// Whether the open block's text ends with a line break.
    at_line_start: bool,
    /// The last state printed, to print each change once.
    state: Option<TaskState>,
}

impl Render {
    pub(crate) fn close(&mut self) -> String {
        if self.open.take().is_some() {
            if self.at_line_start { "\n" } else { "\n\n" }.into()
        } else {
            String::new()
        }
    }

    pub(crate) fn event(&mut self, event: &StreamResponse, verbose: bool) -> String {
        let Some(payload) = &event.payload else { return String::new() };
        match payload {
            stream_response::Payload::ArtifactUpdate(update) => {
                let Some(artifact) = &update.artifact else { return String::new() };
                let text = output::parts_text(&artifact.parts);
                let mut out = String::new();
                if self.open.as_deref() != Some(artifact.artifact_id.as_str()) || !update.append {
                    out.push_str(&self.close());
                    out.push_str(&format!("Artifact {}:\n", output::artifact_label(artifact)));
                    self.open = Some(artifact.artifact_id.clone());
                    self.at_line_start = true;
                }
                out.push_str(&text);
                if !text.is_empty() {
                    self.at_line_start = text.ends_with('\n');
                }
                if update.last_chunk {
                    out.push_str(&self.close());
                }
                out
            }
            stream_response::Payload::Task(task) => {
                let mut out = self.close();
                self.state = Some(task.state());
                out.push_str(&output::task(task, verbose));
                out
            }
            stream_response::Payload::StatusUpdate(update) => {
                let mut out = self.close();
                let state = update.status.as_ref().map(|s| s.state()).unwrap_or_default();
                if self.state != Some(state) {
                    out.push_str(&field("State", state_name(state)));
                    self.state = Some(state);
                }
                if let Some(message) = update.status.as_ref().and_then(|s| s.message.as_ref()) {
                    out.push_str(&output::block("Status Message", &output::parts_text(&message.parts)));
                }
                out
            }
            stream_response::Payload::Message(message) => {
                let mut out = self.close();
                out.push_str(&output::message(message));
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{Artifact, Part, TaskArtifactUpdateEvent, TaskStatus, TaskStatusUpdateEvent};

    fn chunk(text: &str, append: bool, last_chunk: bool) -> StreamResponse {
        TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Some(Artifact {
                artifact_id: "a".into(),
                name: "s".into(),
                parts: vec![Part::text(text)],
                ..Default::default()
            }),
            append,
            last_chunk,
            ..Default::default()
        }
        .into()
    }

    #[test]
    fn chunks_accumulate_and_render_as_one_block() {
        let mut task = None;
        let mut message = None;
        let mut render = Render::default();
        let mut text = String::new();
        for event in [chunk("a\n", false, false), chunk("b\n", true, true)] {
            apply(&mut task, &mut message, &event);
            text.push_str(&render.event(&event, false));
        }
        let status = TaskStatusUpdateEvent {
            task_id: "t".into(),
            status: Some(TaskStatus { state: TaskState::Completed as i32, ..Default::default() }),
            ..Default::default()
        };
        let state = apply(&mut task, &mut message, &status.clone().into());
        text.push_str(&render.event(&status.into(), false));
        assert_eq!(state, Some(TaskState::Completed));
        assert_eq!(task.unwrap().artifacts[0].parts.len(), 2);
        assert_eq!(text, "Artifact s (a):\na\nb\n\nState: COMPLETED\n");
    }

    #[test]
    fn waits_stop_on_terminal_and_interrupted_states_only() {
        for state in [TaskState::Completed, TaskState::Failed, TaskState::Canceled, TaskState::Rejected] {
            assert!(settled(state), "{state:?}");
        }
        assert!(settled(TaskState::InputRequired) && settled(TaskState::AuthRequired));
        for state in [TaskState::Unspecified, TaskState::Submitted, TaskState::Working] {
            assert!(!settled(state), "{state:?} keeps the wait going");
        }
    }

    #[test]
    fn downloads_stay_in_their_directory() {
        assert_eq!(safe_name("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(safe_name(".hidden"), "hidden");
        assert_eq!(safe_name("report v2.pdf"), "report_v2.pdf");
        assert_eq!(safe_name("..."), "artifact");
        let dir = std::env::temp_dir().join(format!("a2a-cli-download-{}", std::process::id()));
        let task = Task {
            artifacts: vec![
                Artifact {
                    artifact_id: "a1".into(),
                    name: "s".into(),
                    parts: vec![Part::text("x"), Part::text("y")],
                    ..Default::default()
                },
                Artifact {
                    artifact_id: "a2".into(),
                    parts: vec![
                        Part::raw(vec![1, 2], "image/png").with_filename("../p.png"),
                        Part::json(&serde_json::json!([1])),
                        Part::url("https://h/f", "text/plain"),
                    ],
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let saved = download(&task, &dir).unwrap();
        let names: Vec<String> =
            saved.iter().map(|s| s.1.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["s-a1.txt", "_p.png", "artifact-1-a2-1.json", "f"]);
        assert_eq!(std::fs::read_to_string(dir.join("s-a1.txt")).unwrap(), "xy");
        assert_eq!(saved[3].2, None, "a URL is not fetched");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn quoting_is_copy_pasteable() {
        assert_eq!(quote("http://127.0.0.1:80"), "http://127.0.0.1:80");
        assert_eq!(quote("it's here"), r"'it'\''s here'");
    }
}
