//! [`Ctx`]: what a scenario works with while it runs over one column (a binding in a protocol
//! version): the client (an `&dyn A2aService`), the card, raw probes, and the two outputs —
//! checks against the spec (failures, and advisory notes for SHOULDs) and the [`Record`] compared
//! across columns.
//!
//! In a 0.3 column the client speaks 0.3 on the wire and the raw probes send 0.3 shapes; the
//! scenario sees the same 1.0 types. Where 0.3 differs by design, the scenario asks
//! [`Ctx::is_v03`] and says why.

use std::fmt::Display;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use a2a_core::context::EXTENSIONS_PARAM;
use a2a_core::{A2aService, CallContext, Error, EventStream, Operation, ProtocolVersion, ServiceParams};
use a2a_proto::v1::{
    send_message_response, AgentCard, AgentInterface, GetTaskRequest, Message, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, Task,
};
use futures::StreamExt;
use serde_json::{json, Value};

use crate::binding::Binding;
use crate::column::Column;
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
    /// While set, [`Ctx::record`] records per version.
    pub(crate) per_version: bool,
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
        self.endpoint.column.binding
    }

    /// The column under test: the binding and the protocol version.
    pub fn column(&self) -> Column {
        self.endpoint.column
    }

    /// The protocol version under test.
    pub fn version(&self) -> ProtocolVersion {
        self.endpoint.column.version
    }

    /// Whether the column speaks A2A 0.3.
    pub fn is_v03(&self) -> bool {
        self.endpoint.column.is_v03()
    }

    /// The agent under test.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Its public card.
    pub fn card(&self) -> &AgentCard {
        &self.target.card
    }

    /// The card's interface for this column.
    pub fn interface(&self) -> &AgentInterface {
        &self.endpoint.interface
    }

    /// The client for this column (speaking its version).
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

    /// The per-call context: in 1.0, `A2A-Version: 1.0` (spec 3.6.1); in 0.3 no version (the
    /// 0.3 client puts on the wire what 0.3 needs); and, in `A2A-Extensions`, the extensions the
    /// card requires (spec 3.3.4; the 0.3 client also sends them as `X-A2A-Extensions`).
    pub fn call(&self) -> CallContext {
        let mut params = if self.is_v03() { ServiceParams::new() } else { ServiceParams::v1() };
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

    /// A raw call of `operation` with the headers of [`call`](Self::call); in 0.3, the required
    /// extensions also in 0.3's `X-A2A-Extensions`, and no `A2A-Version` at all, as 0.3 clients
    /// send (spec 3.6.2: the agent reads that as 0.3).
    pub fn wire_call(&self, operation: Operation, params: Value) -> WireCall {
        let mut call = WireCall::new(operation, params);
        let mut params = self.call().params;
        if self.is_v03() {
            params = a2a_v03::client_params(&params);
            params.remove(a2a_core::context::VERSION_PARAM);
        }
        for (name, value) in params.outgoing() {
            call = call.header(name, value);
        }
        call
    }

    /// Adds `value` to the record compared across columns (per version while
    /// [`per_version`](Self::per_version) is on).
    pub fn record(&self, label: &str, value: &(impl Observe + ?Sized)) {
        let mut state = self.state();
        if state.per_version {
            state.record.push_per_version(label, value);
        } else {
            state.record.push(label, value);
        }
    }

    /// Adds `value` to the record as an observation that differs between protocol versions by
    /// design (the caller says why): compared among the columns of one version only. An entry
    /// recorded in both versions must be recorded per version in both (else the version that
    /// shares it has an entry the other lacks).
    pub fn record_per_version(&self, label: &str, value: &(impl Observe + ?Sized)) {
        self.state().record.push_per_version(label, value);
    }

    /// Turns on (or off) recording per version for everything recorded until it is turned off:
    /// for the part of a scenario that only one version has (the ListTasks checks in a scenario
    /// about more than ListTasks).
    pub fn per_version(&self, on: bool) {
        self.state().per_version = on;
    }

    /// Records the outcome of a raw call per version, without a check: for a request whose
    /// outcome the column's version does not pin (the caller says why), compared among the
    /// columns of that version only.
    pub fn observe_wire(&self, label: &str, reply: &WireReply) {
        let outcome = match reply {
            WireReply::Ok(_) => json!({"success": true}),
            WireReply::Err(error) => {
                let kind = if self.is_v03() { error.kind_v03() } else { error.kind() };
                json!({"error": kind.map_or_else(|| format!("unknown ({})", error.code), |k| k.name().to_owned())})
            }
        };
        self.record_per_version(label, &outcome);
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

    /// [`expect_error`](Self::expect_error) for an error that A2A 0.3 does not name
    /// (`v03_why` cites where 0.3 only says "an error"): in a 0.3 column any error passes. The
    /// kind is recorded per version in every column, so it is compared among the columns of one
    /// version.
    pub fn expect_error_unnamed_in_v03<T: Observe>(
        &self,
        label: &str,
        result: &Result<T, Error>,
        expected: ErrorKind,
        spec: &str,
        v03_why: &str,
    ) -> bool {
        self.record_per_version(label, result);
        match result {
            Err(_) if self.is_v03() => true,
            Err(error) if ErrorKind::of(error) == expected => true,
            Err(error) => {
                self.check(false, spec, format!("{label}: expected {expected}, got {}", describe(error)))
            }
            Ok(value) if self.is_v03() => self.check(
                false,
                v03_why,
                format!("{label}: expected an error, got a success: {}", short(&value.observe())),
            ),
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

    /// Sends `call` raw over this column.
    pub async fn wire(&self, call: &WireCall) -> Step<WireReply> {
        let prober = Prober::new(self.column(), self.endpoint.interface.clone(), self.http.clone());
        prober
            .send(call)
            .await
            .map_err(|e| Stop::Fail(format!("raw {} over {}: {e}", call.operation, self.column())))
    }

    /// The successful reply of a raw call read as the 1.0 message `T`: ProtoJSON in 1.0, either
    /// 0.3 form in 0.3 (the reading a 0.3 client does).
    ///
    /// # Errors
    /// The reason, when the reply is an error or does not read as `T`.
    pub fn wire_value<T>(&self, reply: &WireReply) -> Result<T, String>
    where
        T: serde::de::DeserializeOwned + prost::Name + a2a_v03::V03,
    {
        match reply {
            WireReply::Ok(value) if self.is_v03() => <T as a2a_v03::V03>::from_v03(value)
                .map_err(|e| format!("not a valid 0.3 {}: {e}: {}", T::NAME, short(value))),
            WireReply::Ok(value) => a2a_proto::json::from_value::<T>(value.clone())
                .map_err(|e| format!("not a valid {}: {e}: {}", T::NAME, short(value))),
            WireReply::Err(error) => Err(format!(
                "an error: {} (reason {:?}, fields {:?})",
                error.code, error.reason, error.fields
            )),
        }
    }

    /// [`expect_wire_error`](Self::expect_wire_error) for an error A2A 0.3 does not name
    /// (`v03_why`): in a 0.3 column any error passes, and the kind is recorded per version (in
    /// every column).
    pub fn expect_wire_error_unnamed_in_v03(
        &self,
        label: &str,
        reply: &WireReply,
        expected: ErrorKind,
        spec: &str,
        v03_why: &str,
    ) -> bool {
        if !self.is_v03() {
            return self.expect_wire_error_as(label, reply, expected, spec, true);
        }
        let kind = match reply {
            WireReply::Err(error) => {
                error.kind_v03().map_or_else(|| format!("unknown ({})", error.code), |k| k.name().to_owned())
            }
            WireReply::Ok(_) => "success".to_owned(),
        };
        self.record_per_version(label, &json!({ "error": kind }));
        self.check(
            matches!(reply, WireReply::Err(_)),
            v03_why,
            format!("{label}: expected an error, got a success"),
        )
    }

    /// Records the kind of a raw reply under `label` and checks it is an error of kind `expected`
    /// coded as the spec 5.4 table says for this binding, with the details spec 9.5 / 10.6 / 11.6
    /// require.
    ///
    /// In a 0.3 column, see [`expect_wire_error_v03`](Self::expect_wire_error_v03).
    pub fn expect_wire_error(&self, label: &str, reply: &WireReply, expected: ErrorKind, spec: &str) -> bool {
        if self.is_v03() {
            return self.expect_wire_error_v03(label, reply, expected, spec);
        }
        self.expect_wire_error_as(label, reply, expected, spec, false)
    }

    fn expect_wire_error_as(
        &self,
        label: &str,
        reply: &WireReply,
        expected: ErrorKind,
        spec: &str,
        per_version: bool,
    ) -> bool {
        let record = |value: Value| {
            if per_version {
                self.record_per_version(label, &value);
            } else {
                self.record(label, &value);
            }
        };
        let error = match reply {
            WireReply::Err(error) => error,
            WireReply::Ok(value) => {
                record(json!({"success": true}));
                return self.check(
                    false,
                    spec,
                    format!("{label}: expected {expected}, got a success: {}", short(value)),
                );
            }
        };
        let kind = error.kind().map_or_else(|| format!("unknown ({})", error.code), |k| k.name().to_owned());
        record(json!({ "error": kind }));
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

impl Ctx {
    /// [`expect_wire_error`](Self::expect_wire_error) in a 0.3 column. A 0.3 error carries a
    /// 0.3 code and no ErrorInfo (0.3 has none), so the kind is the one its code gives
    /// ([`WireError::kind_v03`](crate::wire::WireError::kind_v03)), recorded as in 1.0 so that
    /// the versions compare. Checked:
    /// - JSON-RPC: `error.code` is the 0.3 code of the kind (0.3 spec 8.1, 8.2; 0.3 says servers
    ///   SHOULD use the A2A codes: the suite requires them, as a 0.3 client has nothing else to
    ///   tell the errors apart by). Kinds without a 0.3 code are checked by kind only.
    /// - HTTP+JSON: a 4xx status for the caller's errors, 5xx for the agent's (0.3 spec 3.2.3
    ///   pins no table, only "appropriate" statuses); the kind from the body's 0.3 `code`, else
    ///   from the status.
    /// - gRPC: a non-OK status (0.3 spec 3.2.2 pins no table); the kind from the `a2a-error`
    ///   metadata, else from the status code.
    /// - Details that are sent anyway (ErrorInfo, as our agent adds for our client) must not
    ///   contradict the code.
    pub fn expect_wire_error_v03(
        &self,
        label: &str,
        reply: &WireReply,
        expected: ErrorKind,
        spec: &str,
    ) -> bool {
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
        let kind = error.kind_v03();
        let name = kind.map_or_else(|| format!("unknown ({})", error.code), |k| k.name().to_owned());
        self.record(label, &json!({ "error": name }));
        if let Some(fields) = &error.fields {
            self.state().record.push_advisory(label, json!({ "fields": fields }));
        }
        let mut ok = true;
        match error.code {
            WireCode::JsonRpc(code) => {
                if let Some(wanted) = expected.v03_code() {
                    ok &= self.check(
                        code == wanted,
                        "0.3 8.1, 8.2",
                        format!("{label}: {expected} must be JSON-RPC code {wanted} in 0.3, got {code}"),
                    );
                }
            }
            WireCode::Http(status) => {
                let class = if expected.is_server_side() { 5 } else { 4 };
                ok &= self.check(
                    status / 100 == class,
                    "0.3 3.2.3",
                    format!("{label}: {expected} must be an HTTP {class}xx status in 0.3, got {status}"),
                );
            }
            WireCode::Grpc(code) => {
                ok &= self.check(
                    code != tonic::Code::Ok,
                    "0.3 3.2.2",
                    format!("{label}: {expected} must be a gRPC error status"),
                );
            }
        }
        ok &= self.check(
            kind == Some(expected),
            spec,
            format!(
                "{label}: expected {expected}, a 0.3 client reads {name} from the 0.3 code ({:?}) and {}",
                error.v03_code, error.code
            ),
        );
        if let (Some(reason), Some(a2a_core::error::ERROR_DOMAIN)) = (&error.reason, error.domain.as_deref())
        {
            let detailed = Error::from_error_info(reason, &Default::default(), "").map(|e| ErrorKind::of(&e));
            ok &= self.check(
                detailed.is_none() || detailed == kind,
                spec,
                format!("{label}: the ErrorInfo reason {reason} contradicts the 0.3 code, which says {name}"),
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
