//! The demo agent of the reference server (`cargo run -p a2a-server`, `a2a-cli demo-server`):
//! one skill per protocol feature, chosen by the first word of the message's text (the card's
//! skills list the words and examples). Its own crate, so that the `a2a-server` library users
//! depend on carries no demo; the binary, the CLI and the tests use it.
//!
//! ```no_run
//! # async fn run() -> std::io::Result<()> {
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! a2a_server::Server::builder()
//!     .agent_card(a2a_demo::demo_card())
//!     .executor(a2a_demo::DemoAgent)
//!     .layer(a2a_demo::AuthorizeLayer::new())
//!     .serve(listener)
//!     .await
//! # }
//! ```
//!
//! | message            | behaviour                                                                 |
//! |--------------------|---------------------------------------------------------------------------|
//! | anything else      | echo: `WORKING`, one artifact with the text, `COMPLETED`                  |
//! | `stream [n] [ms]`  | `WORKING`, one artifact in `n` chunks (`append`, `lastChunk`) `ms` apart, `COMPLETED`|
//! | `ask`              | `INPUT_REQUIRED`; the next message on the task completes it               |
//! | `wait [seconds]`   | `WORKING` until canceled (or `seconds`, default 300, pass), then `COMPLETED` |
//! | `reply [text]`     | a direct `Message` reply, no task                                          |
//! | `fail`             | `FAILED` with an explanation                                              |
//! | `reject`           | `REJECTED` with an explanation                                            |
//! | `file` + file parts | `COMPLETED`, one artifact: a line `N bytes, sha256 HEX, TYPE` per file part with bytes (what the agent read; `FAILED` without one) |
//! | `authorize`        | `AUTH_REQUIRED` with a one-time approval URL on this server (needs [`AuthorizeLayer`]); a `GET` of it continues the task to `COMPLETED`, a message `deny` on the task ends it `REJECTED` |

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_core::{AgentExecutor, RequestContext, Result, TaskUpdater};
use a2a_proto::v1::{
    part::Content, AgentCapabilities, AgentCard, AgentProvider, AgentSkill, Artifact, Part, TaskState,
};
use async_trait::async_trait;
use axum::body::Body;
use axum::response::{IntoResponse, Response};
use futures::future::{Either, FutureExt as _, Map, Ready};
use http::{Request, StatusCode};
use sha2::{Digest as _, Sha256};
use tokio::sync::oneshot;

/// The demo agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct DemoAgent;

/// Most chunks a `stream` request may ask for.
const MAX_CHUNKS: usize = 100_000;
/// The longest pause a `stream` request may ask for between chunks (milliseconds).
const MAX_PAUSE_MS: u64 = 10_000;

#[async_trait]
impl AgentExecutor for DemoAgent {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        let text = ctx.message.text();
        let mut words = text.split_whitespace();
        let command = words.next().unwrap_or("").to_ascii_lowercase();
        // The words after the command, for the skills that read them (not the echo's).
        let rest = || words.clone().collect::<Vec<_>>().join(" ");
        // A message to a task waiting for authorization (spec 7.6.1: agents SHOULD accept
        // messages while AUTH_REQUIRED, to negotiate or refuse): `deny` refuses it.
        if let Some(task) = &ctx.task {
            if task.state() == TaskState::AuthRequired {
                return authorization_reply(&ctx, &updater, &command).await;
            }
        }
        // A message continuing an input-required task answers the question.
        if let Some(task) = &ctx.task {
            if task.state().is_interrupted() {
                updater.start_work(None).await?;
                let greeting = format!("Hello, {}!", if text.is_empty() { "stranger" } else { &text });
                updater
                    .add_artifact(Artifact::new(vec![Part::text(greeting.clone())]).with_name("greeting"))
                    .await?;
                return updater.complete(Some(updater.agent_text(greeting))).await;
            }
        }
        match command.as_str() {
            "stream" => {
                let rest = rest();
                let mut numbers = rest.split_whitespace().map(str::parse::<u64>);
                let n = numbers.next().and_then(Result::ok).unwrap_or(5).clamp(1, MAX_CHUNKS as u64) as usize;
                let pause =
                    Duration::from_millis(numbers.next().and_then(Result::ok).unwrap_or(0).min(MAX_PAUSE_MS));
                updater.start_work(Some(updater.agent_text(format!("Streaming {n} chunks")))).await?;
                let artifact_id = a2a_proto::new_id();
                for i in 0..n {
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                    let chunk = Artifact {
                        artifact_id: artifact_id.clone(),
                        name: "stream".into(),
                        parts: vec![Part::text(format!("chunk {i}\n"))],
                        ..Default::default()
                    };
                    updater.artifact_update(chunk, i > 0, i + 1 == n).await?;
                }
                updater.complete(None).await
            }
            "ask" => updater.require_input(Some(updater.agent_text("What is your name?"))).await,
            "wait" => {
                let seconds = rest().parse::<u64>().unwrap_or(300).min(3600);
                updater
                    .start_work(Some(updater.agent_text(format!("Working for up to {seconds} s"))))
                    .await?;
                tokio::select! {
                    () = updater.cancelled() => Ok(()),
                    () = tokio::time::sleep(Duration::from_secs(seconds)) => {
                        updater.complete(Some(updater.agent_text("Done waiting"))).await
                    }
                }
            }
            "reply" => {
                let rest = rest();
                let answer = if rest.is_empty() { "Hello from the reference agent".to_owned() } else { rest };
                updater
                    .reply(a2a_proto::v1::Message::agent_text(answer).with_context_id(updater.context_id()))
                    .await
            }
            "fail" => {
                updater
                    .fail(Some(updater.agent_text("This task failed on purpose (demo skill `fail`)")))
                    .await
            }
            "authorize" => authorize(&ctx, &updater).await,
            "reject" => {
                updater.reject(Some(updater.agent_text("I will not do that (demo skill `reject`)"))).await
            }
            "file" => {
                let digests = file_digests(&ctx.message.parts);
                if digests.is_empty() {
                    let why = "The file skill reads file parts with bytes; this message has none";
                    return updater.fail(Some(updater.agent_text(why))).await;
                }
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(digests)]).with_name("file")).await?;
                updater.complete(None).await
            }
            _ => {
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(text)]).with_name("echo")).await?;
                updater.complete(None).await
            }
        }
    }
}

/// The service parameter through which [`AuthorizeLayer`] tells the agent the origin the request
/// reached (the approval URL is built on it). The layer overwrites whatever a client sent.
pub const ORIGIN_PARAM: &str = "x-a2a-demo-origin";

/// [`ORIGIN_PARAM`] as a header name, made once (a `&str` name is validated again on each use).
static ORIGIN_HEADER: http::HeaderName = http::HeaderName::from_static(ORIGIN_PARAM);

/// The path under which [`AuthorizeLayer`] serves the approval URLs: `GET {origin}{path}{code}`.
pub const AUTHORIZE_PATH: &str = "/demo/authorize/";

/// How long an authorization request waits before the task fails.
const AUTHORIZE_TTL: Duration = Duration::from_secs(600);

/// What ends a wait for authorization.
#[derive(Debug)]
enum Decision {
    Approved,
    Denied,
}

/// Pending authorizations: one-time code → the waiting execution, and task id → code (for `deny`).
#[derive(Default)]
struct Pending {
    by_code: HashMap<String, (String, oneshot::Sender<Decision>)>,
    by_task: HashMap<String, String>,
}

static PENDING: Mutex<Option<Pending>> = Mutex::new(None);

fn pending<T>(f: impl FnOnce(&mut Pending) -> T) -> T {
    let mut guard = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(Pending::default))
}

/// Takes the pending authorization of `code` (one use only).
fn take_code(code: &str) -> Option<oneshot::Sender<Decision>> {
    pending(|p| {
        let (task, sender) = p.by_code.remove(code)?;
        p.by_task.remove(&task);
        Some(sender)
    })
}

/// Takes the pending authorization of a task.
fn take_task(task_id: &str) -> Option<oneshot::Sender<Decision>> {
    pending(|p| {
        let code = p.by_task.remove(task_id)?;
        p.by_code.remove(&code).map(|(_, sender)| sender)
    })
}

/// The `authorize` skill (spec 7.6.1): the task goes `AUTH_REQUIRED` with a status message that
/// says what to do and carries a one-time approval URL on this server; the execution stays
/// alive, so that the approval (a `GET` of the URL, out of band) continues the task to
/// `COMPLETED` without a follow-up message, as 7.6.1 allows. A `deny` message on the task
/// ([`authorization_reply`]) rejects it; after [`AUTHORIZE_TTL`] it fails.
async fn authorize(ctx: &RequestContext, updater: &TaskUpdater) -> Result<()> {
    let Some(origin) = ctx.call.params.get(ORIGIN_PARAM).map(str::to_owned) else {
        let why = "This server does not serve the demo's approval URLs (a2a_demo::AuthorizeLayer)";
        return updater.fail(Some(updater.agent_text(why))).await;
    };
    let code = uuid::Uuid::new_v4().simple().to_string();
    let (sender, decision) = oneshot::channel();
    pending(|p| {
        p.by_code.insert(code.clone(), (ctx.task_id.clone(), sender));
        p.by_task.insert(ctx.task_id.clone(), code.clone());
    });
    let url = format!("{}{AUTHORIZE_PATH}{code}", origin.trim_end_matches('/'));
    let text = format!(
        "Authorization required: open {url} to approve (one use), or reply `deny` to refuse. \
         The task continues by itself once approved."
    );
    if let Err(error) = updater.require_auth(Some(updater.agent_text(text))).await {
        take_code(&code);
        return Err(error);
    }
    let decision = tokio::select! {
        () = updater.cancelled() => None,
        () = tokio::time::sleep(AUTHORIZE_TTL) => None,
        decision = decision => decision.ok(),
    };
    let expired = take_code(&code).is_some();
    match decision {
        Some(Decision::Approved) => {
            updater.start_work(Some(updater.agent_text("Authorized; continuing"))).await?;
            updater
                .add_artifact(Artifact::new(vec![Part::text("Authorized and done")]).with_name("authorize"))
                .await?;
            updater.complete(Some(updater.agent_text("Authorized and done"))).await
        }
        // The `deny` message's own execution ends the task.
        Some(Decision::Denied) => Ok(()),
        None if expired && !updater.is_cancelled() => {
            updater.fail(Some(updater.agent_text("Authorization was not given in time"))).await
        }
        None => Ok(()),
    }
}

/// A message to a task waiting for authorization: `deny` rejects it (and ends the wait of the
/// execution that asked); anything else asks again, with the same URL.
async fn authorization_reply(ctx: &RequestContext, updater: &TaskUpdater, command: &str) -> Result<()> {
    if command == "deny" {
        if let Some(sender) = take_task(&ctx.task_id) {
            let _ = sender.send(Decision::Denied);
        }
        return updater.reject(Some(updater.agent_text("Authorization denied: the task is rejected"))).await;
    }
    let previous = ctx.task.as_ref().and_then(|t| t.status.as_ref()).and_then(|s| s.message.clone());
    let mut again = previous.unwrap_or_else(|| updater.agent_text("Authorization required"));
    again.message_id = a2a_proto::new_id();
    updater.require_auth(Some(again)).await
}

/// A tower layer serving the demo agent's approval URLs (`GET {AUTHORIZE_PATH}{code}`) and
/// telling the agent the origin each request reached ([`ORIGIN_PARAM`]). Add it to a server
/// running [`DemoAgent`] with `a2a_server::ServerBuilder::layer`; without it
/// the `authorize` skill fails its task. The URL is a capability: a random one-time code, no other
/// authentication (a demo). The origin is the request's `Host` (or HTTP/2 authority) with
/// `http://`, `https://` after [`https`](Self::https).
#[derive(Debug, Clone, Copy, Default)]
pub struct AuthorizeLayer {
    https: bool,
}

impl AuthorizeLayer {
    /// The layer, approval URLs over `http://`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Approval URLs over `https://` (the server serves TLS).
    pub fn https(self, https: bool) -> Self {
        Self { https }
    }
}

impl<S> tower::Layer<S> for AuthorizeLayer {
    type Service = Authorize<S>;

    fn layer(&self, inner: S) -> Authorize<S> {
        Authorize { inner, https: self.https }
    }
}

/// The service of [`AuthorizeLayer`].
#[derive(Debug, Clone)]
pub struct Authorize<S> {
    inner: S,
    https: bool,
}

impl<S> tower::Service<Request<Body>> for Authorize<S>
where
    S: tower::Service<Request<Body>, Error = Infallible> + Clone + Send + 'static,
    S::Response: IntoResponse,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    /// An approval URL's answer, or the inner service's future as it is (no box per request).
    type Future = Either<
        Ready<std::result::Result<Response, Infallible>>,
        Map<
            S::Future,
            fn(std::result::Result<S::Response, Infallible>) -> std::result::Result<Response, Infallible>,
        >,
    >;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<std::result::Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<Body>) -> Self::Future {
        if let Some(code) = request.uri().path().strip_prefix(AUTHORIZE_PATH) {
            let response = if request.method() != http::Method::GET {
                (StatusCode::METHOD_NOT_ALLOWED, "GET this URL to approve\n").into_response()
            } else if let Some(sender) = take_code(code) {
                let _ = sender.send(Decision::Approved);
                (StatusCode::OK, "Approved: the task continues.\n").into_response()
            } else {
                (StatusCode::NOT_FOUND, "No pending authorization with this code (used, denied or expired)\n")
                    .into_response()
            };
            return Either::Left(futures::future::ready(Ok(response)));
        }
        let scheme = if self.https || request.uri().scheme_str() == Some("https") { "https" } else { "http" };
        let host = request
            .uri()
            .authority()
            .map(|a| a.as_str())
            .or_else(|| request.headers().get(http::header::HOST).and_then(|h| h.to_str().ok()));
        let origin = host.and_then(|h| {
            // `{scheme}://{h}`, written without the formatting machinery (every request).
            let mut origin = String::with_capacity(scheme.len() + 3 + h.len());
            origin.push_str(scheme);
            origin.push_str("://");
            origin.push_str(h);
            http::HeaderValue::try_from(origin).ok()
        });
        let headers = request.headers_mut();
        match origin {
            // `insert` replaces every value a client sent.
            Some(value) => {
                headers.insert(&ORIGIN_HEADER, value);
            }
            None => {
                headers.remove(&ORIGIN_HEADER);
            }
        }
        // Called here, on the instance polled ready: the future does not hold the service, so
        // no clone takes its place (a clone of the boxed route behind is an allocation and a
        // copy per request).
        Either::Right(self.inner.call(request).map(into_response::<S::Response>))
    }
}

/// The inner service's answer as a response (its error is `Infallible`).
fn into_response<R: IntoResponse>(
    result: std::result::Result<R, Infallible>,
) -> std::result::Result<Response, Infallible> {
    result.map(IntoResponse::into_response)
}

/// What the `file` skill answers: `N bytes, sha256 HEX, TYPE` for each part with bytes, one per
/// line, so a client can check that the agent read the very bytes it sent (the interop matrix
/// does, over every binding and both 0.3 encodings of file bytes: `docs/interop.md`).
fn file_digests(parts: &[Part]) -> String {
    let lines: Vec<String> = parts
        .iter()
        .filter_map(|part| match &part.content {
            Some(Content::Raw(bytes)) => {
                let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
                Some(format!("{} bytes, sha256 {hex}, {}", bytes.len(), part.media_type))
            }
            _ => None,
        })
        .collect();
    lines.join("\n")
}

fn skill(id: &str, name: &str, description: &str, examples: &[&str]) -> AgentSkill {
    AgentSkill {
        id: id.into(),
        name: name.into(),
        description: description.into(),
        tags: vec!["demo".into(), id.into()],
        examples: examples.iter().map(|e| (*e).to_owned()).collect(),
        ..Default::default()
    }
}

/// The demo agent's card, without interfaces (the server fills them in from its address).
pub fn demo_card() -> AgentCard {
    AgentCard {
        name: "A2A Rust reference agent".into(),
        description: "Demonstrates every A2A feature; the first word of a message picks the skill.".into(),
        provider: Some(AgentProvider {
            url: "https://github.com/a2a-rs-project/a2a".into(),
            organization: "a2a-rs project".into(),
        }),
        version: env!("CARGO_PKG_VERSION").into(),
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: vec![],
            extended_agent_card: Some(true),
        }),
        default_input_modes: vec!["text/plain".into(), "application/json".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![
            skill("echo", "Echo", "Completes a task whose artifact is the message text.", &["hello there"]),
            skill(
                "stream",
                "Stream",
                "Streams one artifact in N chunks (append / lastChunk), optionally MS milliseconds apart, then completes.",
                &["stream 5", "stream 20 100"],
            ),
            skill(
                "ask",
                "Multi-turn",
                "Asks for your name (input-required); the next message completes the task.",
                &["ask"],
            ),
            skill(
                "wait",
                "Long-running",
                "Works until canceled or N seconds pass (default 300).",
                &["wait 60"],
            ),
            skill("reply", "Direct reply", "Answers with a Message instead of a Task.", &["reply hi"]),
            skill("fail", "Failure", "Ends the task FAILED.", &["fail"]),
            skill("reject", "Rejection", "Ends the task REJECTED.", &["reject"]),
            skill(
                "authorize",
                "In-task authorization",
                "Asks for authorization (auth-required) with a one-time approval URL on this server: \
                 visiting it completes the task; a message `deny` on the task rejects it (spec 7.6).",
                &["authorize"],
            ),
            AgentSkill {
                // Binary and text files (spec 4.4.5: a skill's input modes override the card's
                // defaults; the server accepts what any skill accepts). Other media types stay
                // refused with ContentTypeNotSupported, which the demo shows too.
                input_modes: vec!["application/octet-stream".into(), "text/plain".into()],
                ..skill(
                    "file",
                    "File digest",
                    "Reads the message's file parts with bytes (application/octet-stream or text/plain) \
                     and answers one line \
                     `N bytes, sha256 HEX, TYPE` per file: what the agent received.",
                    &["file (with a file part)"],
                )
            },
        ],
        ..Default::default()
    }
}

/// The demo's extended card: the public card plus a note that the caller saw the extended one.
pub fn demo_extended_card() -> AgentCard {
    let mut card = demo_card();
    card.description.push_str(" (extended card)");
    card
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_digests_name_length_hash_and_type_of_each_file_with_bytes() {
        let parts = [
            Part::text("file"),
            Part::raw(b"abc".to_vec(), "text/plain"),
            Part::url("https://example.com/x", "image/png"),
            Part::raw(Vec::new(), "application/octet-stream"),
        ];
        assert_eq!(
            file_digests(&parts),
            "3 bytes, sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad, text/plain\n\
             0 bytes, sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, \
             application/octet-stream"
        );
        assert_eq!(file_digests(&[Part::text("file")]), "", "no file: the skill fails the task");
    }
}
