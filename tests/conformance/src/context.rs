//! [`Ctx`]: what a scenario works with while it runs over one binding: the client (an
//! `&dyn A2aService`), the card, raw probes, and the two outputs — checks against the spec
//! (failures, and advisory notes for SHOULDs) and the [`Record`] compared across bindings.

use std::fmt::Display;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use a2a_core::context::EXTENSIONS_PARAM;
use a2a_core::{A2aService, CallContext, Error, EventStream, Operation, ServiceParams};
use a2a_proto::v1::{
    send_message_response, AgentCard, AgentInterface, GetTaskRequest, Message, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, Task,
};
use futures::StreamExt;
use serde_json::{json, Value};

use crate::binding::Binding;
use crate::kind::ErrorKind;
use crate::record::{Observe, Record};
use crate::target::{Endpoint, Target};
use crate::wire::{Prober, WireCall, WireCode, WireReply};

/// Longest a single call may take.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(15);
/// Longest a stream may take to end.
pub const STREAM_TIMEOUT: Duration = Duration::from_secs(20);

/// Why a scenario stopped before its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// It cannot go on: something it needed failed (the reason says what).
    Fail(String),
    /// It does not apply to this agent or binding (the reason says why).
    Skip(String),
}

/// The result of a step of a scenario.
pub type Step<T> = Result<T, Stop>;

/// Everything a stream delivered.
#[derive(Debug, Clone, Default)]
pub struct StreamRun {
    /// The events, in order.
    pub events: Vec<StreamResponse>,
    /// The error that ended it, if one did.
    pub error: Option<Error>,
    /// Whether it ended (`false`: it was still open after [`STREAM_TIMEOUT`]).
    pub ended: bool,
}

#[derive(Debug, Default)]
pub(crate) struct State {
    pub(crate) record: Record,
    pub(crate) failures: Vec<String>,
    pub(crate) notes: Vec<String>,
}

/// The context of one scenario over one binding.
#[derive(Debug)]
pub struct Ctx {
    target: Arc<Target>,
    endpoint: Endpoint,
    http: reqwest::Client,
    webhook_url: Option<String>,
    state: Mutex<State>,
}

impl Ctx {
    pub(crate) fn new(
        target: Arc<Target>,
        endpoint: Endpoint,
        http: reqwest::Client,
        webhook_url: Option<String>,
    ) -> Self {
        Ctx { target, endpoint, http, webhook_url, state: Mutex::default() }
    }

    pub(crate) fn into_state(self) -> State {
        self.state.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The binding under test.
    pub fn binding(&self) -> Binding {
        self.endpoint.binding
    }

    /// The agent under test.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Its public card.
    pub fn card(&self) -> &AgentCard {
        &self.target.card
    }

    /// The card's interface for this binding.
    pub fn interface(&self) -> &AgentInterface {
        &self.endpoint.interface
    }

    /// The client for this binding.
    pub fn client(&self) -> &dyn A2aService {
        self.endpoint.client.as_ref()
    }

    /// A plain HTTP client (for the card and raw probes).
    pub fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// A webhook URL for push configs that accepts deliveries, if the suite has one.
    pub fn webhook_url(&self) -> Option<&str> {
        self.webhook_url.as_deref()
    }

    /// The per-call context a 1.0 client sends: `A2A-Version: 1.0` (spec 3.6.1) and, in
    /// `A2A-Extensions`, the extensions the card requires (spec 3.3.4).
    pub fn call(&self) -> CallContext {
        let mut params = ServiceParams::v1();
        let required = self.target.required_extensions();
        if !required.is_empty() {
            params.insert(EXTENSIONS_PARAM, required.join(","));
        }
        CallContext::new(params)
    }

    /// [`call`](Self::call) with `name` set to `value`.
    pub fn call_with(&self, name: &str, value: &str) -> CallContext {
        let mut ctx = self.call();
        ctx.params.insert(name, value);
        ctx
    }

    /// A raw call of `operation` with the headers of [`call`](Self::call).
    pub fn wire_call(&self, operation: Operation, params: Value) -> WireCall {
        let mut call = WireCall::new(operation, params);
        for (name, value) in self.call().params.outgoing() {
            call = call.header(name, value);
        }
        call
    }

    /// Adds `value` to the record compared across bindings.
    pub fn record(&self, label: &str, value: &(impl Observe + ?Sized)) {
        self.state().record.push(label, value);
    }

    /// A requirement (MUST) of spec section `spec`: a failure when `ok` is false.
    pub fn check(&self, ok: bool, spec: &str, what: impl Display) -> bool {
        if !ok {
            self.state().failures.push(format!("spec {spec}: {what}"));
        }
        ok
    }

    /// A recommendation (SHOULD) of spec section `spec`: a note (not a failure) when `ok` is false.
    pub fn should(&self, ok: bool, spec: &str, what: impl Display) -> bool {
        if !ok {
            self.state().notes.push(format!("spec {spec} (SHOULD): {what}"));
        }
        ok
    }

    /// A note for the report.
    pub fn note(&self, what: impl Display) {
        self.state().notes.push(what.to_string());
    }

    /// Records `result` under `label` and checks it is an error of kind `expected`.
    pub fn expect_error<T: Observe>(
        &self,
        label: &str,
        result: &Result<T, Error>,
        expected: ErrorKind,
        spec: &str,
    ) -> bool {
        self.record(label, result);
        match result {
            Err(error) if ErrorKind::of(error) == expected => true,
            Err(error) => {
                self.check(false, spec, format!("{label}: expected {expected}, got {}", describe(error)))
            }
            Ok(value) => self.check(
                false,
                spec,
                format!("{label}: expected {expected}, got a success: {}", short(&value.observe())),
            ),
        }
    }

    /// The value of `result`, or a stop naming `what` failed.
    pub fn require<T>(&self, result: Result<T, Error>, what: &str) -> Step<T> {
        result.map_err(|error| Stop::Fail(format!("{what}: {}", describe(&error))))
    }

    /// `call` with [`CALL_TIMEOUT`]; running out of time is an [`Error::Transport`].
    pub async fn timed<T>(&self, call: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
        tokio::time::timeout(CALL_TIMEOUT, call).await.unwrap_or_else(|_| {
            Err(Error::Transport { reason: format!("no reply within {} s", CALL_TIMEOUT.as_secs()) })
        })
    }

    /// A user message with `text` (spec 4.1.4: a fresh `messageId`, `ROLE_USER`, one text part).
    pub fn message(&self, text: &str) -> Message {
        Message::user_text(text)
    }

    /// A SendMessageRequest for `message`.
    pub fn request(&self, message: Message) -> SendMessageRequest {
        SendMessageRequest { message: Some(message), ..Default::default() }
    }

    /// A SendMessageRequest for `text` with `returnImmediately` (spec 3.2.2).
    pub fn request_immediately(&self, text: &str) -> SendMessageRequest {
        SendMessageRequest {
            message: Some(self.message(text)),
            configuration: Some(SendMessageConfiguration { return_immediately: true, ..Default::default() }),
            ..Default::default()
        }
    }

    /// SendMessage.
    pub async fn send(&self, request: SendMessageRequest) -> Result<SendMessageResponse, Error> {
        self.timed(self.client().send_message(&self.call(), request)).await
    }

    /// SendMessage, requiring a Task in reply.
    pub async fn send_task(&self, request: SendMessageRequest, what: &str) -> Step<Task> {
        match self.require(self.send(request).await, what)?.payload {
            Some(send_message_response::Payload::Task(task)) => Ok(task),
            Some(send_message_response::Payload::Message(message)) => Err(Stop::Fail(format!(
                "{what}: expected a Task, the agent replied with a Message: {}",
                message.text()
            ))),
            None => Err(Stop::Fail(format!("{what}: the reply holds neither a Task nor a Message"))),
        }
    }

    /// SendMessage of `text`, requiring a Task in reply.
    pub async fn send_text_task(&self, text: &str) -> Step<Task> {
        self.send_task(self.request(self.message(text)), &format!("SendMessage {text:?}")).await
    }

    /// GetTask.
    pub async fn get_task(&self, id: &str, history_length: Option<i32>) -> Result<Task, Error> {
        let request = GetTaskRequest { id: id.to_owned(), history_length, ..Default::default() };
        self.timed(self.client().get_task(&self.call(), request)).await
    }

    /// Reads `stream` to its end (or [`STREAM_TIMEOUT`]).
    pub async fn collect(&self, stream: EventStream) -> StreamRun {
        let mut run = StreamRun::default();
        let read = async {
            let mut stream = stream;
            while let Some(item) = stream.next().await {
                match item {
                    Ok(event) => run.events.push(event),
                    Err(error) => {
                        run.error = Some(error);
                        break;
                    }
                }
            }
        };
        run.ended = tokio::time::timeout(STREAM_TIMEOUT, read).await.is_ok();
        run
    }

    /// Reads the next event of `stream` (within [`CALL_TIMEOUT`]).
    pub async fn next_event(&self, stream: &mut EventStream) -> Option<Result<StreamResponse, Error>> {
        tokio::time::timeout(CALL_TIMEOUT, stream.next()).await.unwrap_or_else(|_| {
            Some(Err(Error::Transport { reason: format!("no event within {} s", CALL_TIMEOUT.as_secs()) }))
        })
    }

    /// The first event of a stream being opened: its error if opening it failed, or if the stream
    /// ended with an error before delivering anything (an error can arrive either way).
    pub async fn first_event(&self, opened: Result<EventStream, Error>) -> Result<StreamResponse, Error> {
        let mut stream = opened?;
        self.next_event(&mut stream)
            .await
            .unwrap_or_else(|| Err(Error::Transport { reason: "the stream ended without any event".into() }))
    }

    /// SendStreamingMessage, read to its end.
    pub async fn stream(&self, request: SendMessageRequest, what: &str) -> Step<StreamRun> {
        let stream = self.timed(self.client().send_streaming_message(&self.call(), request)).await;
        Ok(self.collect(self.require(stream, what)?).await)
    }

    /// Sends `call` raw over this binding.
    pub async fn wire(&self, call: &WireCall) -> Step<WireReply> {
        let prober = Prober::new(self.binding(), self.endpoint.interface.clone(), self.http.clone());
        prober
            .send(call)
            .await
            .map_err(|e| Stop::Fail(format!("raw {} over {}: {e}", call.operation, self.binding())))
    }

    /// Records the kind of a raw reply under `label` and checks it is an error of kind `expected`
    /// coded as the spec 5.4 table says for this binding, with the details spec 9.5 / 10.6 / 11.6
    /// require.
    pub fn expect_wire_error(&self, label: &str, reply: &WireReply, expected: ErrorKind, spec: &str) -> bool {
        let error = match reply {
            WireReply::Err(error) => error,
            WireReply::Ok(value) => {
                self.record(label, &json!({"success": true}));
                return self.check(
                    false,
                    spec,
                    format!("{label}: expected {expected}, got a success: {}", short(value)),
                );
            }
        };
        let kind = error.kind().map_or_else(|| format!("unknown ({})", error.code), |k| k.name().to_owned());
        self.record(label, &json!({ "error": kind }));
        if let Some(fields) = &error.fields {
            self.state().record.push_advisory(label, json!({ "fields": fields }));
        }
        let mut ok = true;
        let (expected_code, table) = match error.code {
            WireCode::JsonRpc(_) => (expected.jsonrpc_code().map(WireCode::JsonRpc), "5.4, 9.5"),
            WireCode::Http(_) => (expected.http_status().map(WireCode::Http), "5.4, 11.6"),
            WireCode::Grpc(_) => (expected.grpc_code().map(WireCode::Grpc), "5.4, 10.6"),
        };
        if let Some(code) = expected_code {
            ok &= self.check(
                error.code == code,
                table,
                format!("{label}: {expected} must be {code}, got {}", error.code),
            );
        }
        // A2A errors are told apart by their ErrorInfo (checked below); the others by the kind
        // their code or details give.
        if let (None, Some(kind)) = (expected.reason(), error.kind()) {
            ok &= self.check(
                kind == expected,
                spec,
                format!("{label}: expected {expected}, the wire says {kind}"),
            );
        }
        for problem in &error.shape_problems {
            ok &= self.check(false, spec, format!("{label}: {problem}"));
        }
        if let Some(reason) = expected.reason() {
            let (section, required) = match error.code {
                WireCode::JsonRpc(_) => ("9.5", false),
                WireCode::Http(_) => ("11.6", true),
                WireCode::Grpc(_) => ("10.6", true),
            };
            match (&error.reason, required) {
                (Some(sent), _) => {
                    ok &= self.check(
                        sent == reason && error.domain.as_deref() == Some(a2a_core::error::ERROR_DOMAIN),
                        section,
                        format!(
                            "{label}: the ErrorInfo must have reason {reason} and domain {}, got {sent} / {:?}",
                            a2a_core::error::ERROR_DOMAIN,
                            error.domain
                        ),
                    );
                }
                (None, true) => {
                    ok &= self.check(
                        false,
                        section,
                        format!(
                            "{label}: an A2A error must carry a google.rpc.ErrorInfo with reason {reason}"
                        ),
                    );
                }
                (None, false) => {
                    self.should(
                        false,
                        section,
                        format!(
                            "{label}: an A2A error should carry a google.rpc.ErrorInfo with reason {reason}"
                        ),
                    );
                }
            }
        }
        if expected == ErrorKind::InvalidParams {
            self.should(
                error.fields.is_some(),
                "3.3.2",
                format!("{label}: invalid parameters should be named in a google.rpc.BadRequest"),
            );
        }
        ok
    }
}

/// `Kind (message)` for people.
pub fn describe(error: &Error) -> String {
    format!("{} ({error})", ErrorKind::of(error))
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 200 {
        format!("{}...", text.chars().take(200).collect::<String>())
    } else {
        text
    }
}
