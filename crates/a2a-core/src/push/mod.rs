//! Push notification delivery (spec 4.3.3, 13.2): every event of a task is POSTed to each of the
//! task's push configs, in order per config, in the format of the protocol version the config was
//! registered with ([`StoredPushConfig::version`]):
//!
//! | registered over | body ([`PushPayload`]) | headers ([`headers_for`]) |
//! | --- | --- | --- |
//! | 1.0 | the event, a ProtoJSON `StreamResponse` (spec 4.3.3) | `Content-Type: application/a2a+json`, `Authorization: {scheme} {credentials}`, [`TOKEN_HEADER`] |
//! | 0.3 | the `Task` after the event, 0.3 JSON (0.3 spec 9.5) | `Content-Type: application/json`, `Authorization` when there are credentials, [`TOKEN_HEADER`] |
//!
//! Core owns what is sent and in which order, and writes every body before the transport sees it:
//! a [`PushTransport`] gets a URL, headers and bytes ([`PushRequest`]), whatever the version. The
//! 0.3 body, the task in 0.3 JSON, is written by the [`WriteTaskV0_3`] function the dispatcher is
//! given ([`PushDispatcher::with_v03_body`], `HandlerBuilder::push_v03_body`): core cannot write it
//! itself, since the 0.3 JSON lives in `a2a-v03`, above core. The reference server gives its
//! handler `a2a_server::push_http::task_body_v03` and a transport over HTTP that checks every
//! resolved address against the [`DestinationPolicy`].
//!
//! # Delivery
//!
//! At least once, in order per config, through the [`outbox`]: each notification is
//! stored (with the task change that caused it, when the task store keeps an outbox), then
//! claimed and attempted by the dispatcher's pump, so a slow webhook delays only its own
//! notifications, never the agent or other webhooks, and what was not delivered survives a
//! restart. Each attempt has a timeout; a connection failure, a timeout, a 5xx or a 429 is
//! retried after an exponential backoff with jitter (a `Retry-After` the receiver sends is
//! honoured), other answers are final. Notification n+1 of a config is not sent before n is
//! delivered or given up. A notification is given up when its [`RetryPolicy`] budget (attempts,
//! age) is spent: a warning names the task, the config, the URL's host and the last failure, and
//! [`PushDispatcher::stats`] counts it. A receiver may get a notification twice (a delivery whose
//! answer was lost is retried): the task id, the event's kind and its status timestamp or
//! artifact id tell duplicates apart (`docs/push.md`).

pub mod destination;
pub mod outbox;
#[cfg(any(test, feature = "testing"))]
pub mod testing;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use a2a_proto::v1::{stream_response::Payload, StreamResponse, Task, TaskPushNotificationConfig};
use async_trait::async_trait;
use bytes::Bytes;

pub use destination::{DestinationPolicy, IpNet};
pub use outbox::{Claimed, MemoryOutbox, Notification, PushOutbox};

use crate::context::ProtocolVersion;
use crate::error::Result;
use crate::store::{PushConfigStore, StoredPushConfig};

/// The header carrying a config's `token`, in both versions. 0.3 defines it (0.3 spec 9.5); 1.0
/// names no header for the token (spec 4.3.3 only requires the `Authorization` of
/// AuthenticationInfo), and the 1.x SDKs (Python, JS) keep sending this one (docs/interop-notes.md: a2a-rs
/// spells it `A2A-Notification-Token`; receivers should accept both).
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// Why one attempt to deliver a notification failed, as the transport saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PushFailure {
    /// What went wrong.
    pub kind: FailureKind,
    /// The receiver's `Retry-After`, when it sent one.
    pub retry_after: Option<Duration>,
    /// What happened, for the log.
    pub reason: String,
}

/// The kinds of [`PushFailure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// No connection (refused, reset, DNS failure): retried.
    Connect,
    /// No answer in time: retried.
    Timeout,
    /// The receiver answered this non-2xx status: retried for 5xx and 429, final otherwise.
    Status(u16),
    /// The notification cannot be sent at all (the destination policy refuses every address the
    /// name resolves to, or the body cannot be written): final.
    Refused,
}

impl PushFailure {
    /// A failure of `kind`, without `Retry-After`.
    pub fn new(kind: FailureKind, reason: impl Into<String>) -> Self {
        PushFailure { kind, retry_after: None, reason: reason.into() }
    }

    /// Whether another attempt may succeed.
    pub fn retryable(&self) -> bool {
        match self.kind {
            FailureKind::Connect | FailureKind::Timeout => true,
            FailureKind::Status(status) => status == 429 || status >= 500,
            FailureKind::Refused => false,
        }
    }
}

impl std::fmt::Display for PushFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.reason)
    }
}

/// How long a notification is retried before it is given up (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (default 8).
    pub max_attempts: u32,
    /// No attempt starts later than this after the first (default 10 minutes).
    pub max_age: Duration,
    /// The wait before the second attempt (default 1 s); each further wait doubles, up to
    /// `max_backoff`, and is drawn between half and all of that (jitter).
    pub first_backoff: Duration,
    /// The longest wait between two attempts (default 60 s), `Retry-After` included.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 8,
            max_age: Duration::from_secs(600),
            first_backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait after failed attempt number `attempt` (1 for the first), before jitter.
    fn backoff(&self, attempt: u32) -> Duration {
        let doubled = self.first_backoff.saturating_mul(1u32 << attempt.saturating_sub(1).min(20));
        doubled.min(self.max_backoff)
    }
}

/// A number in [0.5, 1): the jitter factor (RandomState's keys are random per process).
fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed));
    0.5 + (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64 / 2.0
}

/// What the dispatcher has done so far (for metrics and tests).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PushStats {
    /// Notifications stored in the outbox by this process (with the events that caused them).
    pub queued: u64,
    /// Notifications delivered (a 2xx answer).
    pub delivered: u64,
    /// Attempts that failed and were retried.
    pub retried: u64,
    /// Notifications given up: a final failure, or the retry budget spent.
    pub given_up: u64,
    /// Notifications that could not be stored in the outbox (the in-memory one was full, see
    /// [`outbox::MEMORY_OUTBOX_CAPACITY`]), logged and dropped.
    pub dropped: u64,
}

#[derive(Debug, Default)]
struct Counters {
    queued: std::sync::atomic::AtomicU64,
    delivered: std::sync::atomic::AtomicU64,
    retried: std::sync::atomic::AtomicU64,
    given_up: std::sync::atomic::AtomicU64,
    dropped: std::sync::atomic::AtomicU64,
}

impl Counters {
    fn add(counter: &std::sync::atomic::AtomicU64) {
        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// The body of one notification, in the format of the version its config was registered with.
#[derive(Debug, Clone)]
pub enum PushPayload {
    /// A2A 1.0 (spec 4.3.3): the event, as the ProtoJSON `StreamResponse`. Encoded once per event
    /// and shared by every 1.0 config of the task.
    StreamResponse(Bytes),
    /// A2A 0.3 (0.3 spec 9.5, "Task object is sent as JSON payload"): the task as it is after the
    /// event, shared by every 0.3 config of the task. The dispatcher writes it in the 0.3 JSON form
    /// with its [`WriteTaskV0_3`] just before each attempt (the outbox keeps the task, which a
    /// store may read with the change that caused it).
    TaskV0_3(Arc<Task>),
}

impl PushPayload {
    /// The protocol version whose format this is.
    pub fn version(&self) -> ProtocolVersion {
        match self {
            PushPayload::StreamResponse(_) => ProtocolVersion::V1_0,
            PushPayload::TaskV0_3(_) => ProtocolVersion::V0_3,
        }
    }
}

/// Writes the body of a 0.3 notification: `task` as the 0.3 JSON `Task` (0.3 spec 9.5, with
/// `kind: "task"` and lower-kebab states), or why it cannot. Given to the dispatcher
/// ([`PushDispatcher::with_v03_body`]); without one, 0.3 notifications are given up.
pub type WriteTaskV0_3 = fn(&Task) -> std::result::Result<Vec<u8>, String>;

/// One HTTP POST of a notification, its body written.
#[derive(Debug, Clone)]
pub struct PushRequest {
    /// The webhook URL (already checked with [`DestinationPolicy::check_url`]).
    pub url: String,
    /// Headers: `Content-Type`, `Authorization` from the config's AuthenticationInfo, the token
    /// ([`headers_for`]), the trace context.
    pub headers: Vec<(String, String)>,
    /// The body, in the format of the config's version (see the module docs).
    pub body: Bytes,
    /// Give up after this long.
    pub timeout: Duration,
}

/// Sends one notification: a POST of its bytes with its headers, nothing version-specific.
/// Implementations must check every address they connect to with the dispatcher's
/// [`DestinationPolicy`] (the URL check alone cannot see DNS answers).
#[async_trait]
pub trait PushTransport: Send + Sync + 'static {
    /// POSTs `request` once; `Err` says why it failed (or which non-2xx status the receiver
    /// answered, with its `Retry-After`), so the dispatcher can tell what to retry.
    async fn send(&self, request: PushRequest) -> std::result::Result<(), PushFailure>;
}

/// How often the pump looks for due notifications without being woken: retries scheduled by
/// other replicas, leases of dead ones that expired.
const POLL: Duration = Duration::from_secs(1);
/// Notifications being attempted at once, per dispatcher (one per config at most).
pub const MAX_IN_FLIGHT: usize = 64;

/// Milliseconds since the epoch, advancing with Tokio's clock (so tests with a paused clock see
/// retries come due), anchored at the wall clock (so times stored in a durable outbox mean the
/// same to the next run).
#[derive(Debug, Clone, Copy)]
struct Clock {
    wall_ms: i64,
    start: tokio::time::Instant,
}

impl Clock {
    fn new() -> Self {
        let wall = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        Clock { wall_ms: wall.as_millis() as i64, start: tokio::time::Instant::now() }
    }

    fn now_ms(&self) -> i64 {
        self.wall_ms + self.start.elapsed().as_millis() as i64
    }
}

fn millis(duration: Duration) -> i64 {
    duration.as_millis().try_into().unwrap_or(i64::MAX)
}

/// Fans a task's events out to its webhooks through the [`outbox`]. Shared by all tasks of
/// a handler.
pub struct PushDispatcher {
    pump: Arc<Pump>,
    configs: Arc<dyn PushConfigStore>,
    /// Whether the outbox is the task store's own (notifications are written with the task
    /// change, in its transaction) rather than a [`MemoryOutbox`] filled after it.
    in_store: bool,
    started: std::sync::atomic::AtomicBool,
    stop: tokio_util::sync::CancellationToken,
}

/// What delivers: claims due notifications from the outbox and attempts each once.
struct Pump {
    outbox: Arc<dyn PushOutbox>,
    transport: Arc<dyn PushTransport>,
    /// Writes 0.3 bodies ([`PushDispatcher::with_v03_body`]).
    v03_body: Option<WriteTaskV0_3>,
    policy: DestinationPolicy,
    timeout: Duration,
    retry: RetryPolicy,
    counters: Counters,
    /// This dispatcher's lease owner name (unique per process run).
    owner: String,
    wake: tokio::sync::Notify,
    clock: Clock,
    slots: Arc<tokio::sync::Semaphore>,
}

impl std::fmt::Debug for PushDispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushDispatcher")
            .field("policy", &self.pump.policy)
            .field("timeout", &self.pump.timeout)
            .field("in_store", &self.in_store)
            .finish()
    }
}

impl Drop for PushDispatcher {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

impl PushDispatcher {
    /// A dispatcher sending through `transport` to the configs in `configs`, with an outbox in
    /// memory ([`MemoryOutbox`]; see [`with_store_outbox`](Self::with_store_outbox)).
    pub fn new(
        transport: Arc<dyn PushTransport>,
        configs: Arc<dyn PushConfigStore>,
        policy: DestinationPolicy,
        timeout: Duration,
    ) -> Self {
        PushDispatcher {
            pump: Arc::new(Pump {
                outbox: Arc::new(MemoryOutbox::new()),
                transport,
                v03_body: None,
                policy,
                timeout,
                retry: RetryPolicy::default(),
                counters: Counters::default(),
                owner: format!("push-{}", a2a_proto::new_id()),
                wake: tokio::sync::Notify::new(),
                clock: Clock::new(),
                slots: Arc::new(tokio::sync::Semaphore::new(MAX_IN_FLIGHT)),
            }),
            configs,
            in_store: false,
            started: std::sync::atomic::AtomicBool::new(false),
            stop: tokio_util::sync::CancellationToken::new(),
        }
    }

    fn pump_mut(&mut self) -> &mut Pump {
        Arc::get_mut(&mut self.pump).expect("configured before it starts")
    }

    /// Retries failed deliveries within `retry` (default [`RetryPolicy::default`]).
    pub fn with_retry_policy(mut self, retry: RetryPolicy) -> Self {
        self.pump_mut().retry = retry;
        self
    }

    /// Writes the bodies of 0.3 notifications with `write` (without it they cannot be written and
    /// are given up, with a warning).
    pub fn with_v03_body(mut self, write: WriteTaskV0_3) -> Self {
        self.pump_mut().v03_body = Some(write);
        self
    }

    /// Uses the task store's own outbox ([`TaskStore::outbox`](crate::store::TaskStore::outbox)):
    /// notifications are then written by the store with the task change that caused them.
    pub fn with_store_outbox(mut self, outbox: Arc<dyn PushOutbox>) -> Self {
        self.pump_mut().outbox = outbox;
        self.in_store = true;
        self
    }

    /// What has been delivered, retried, given up and dropped so far.
    pub fn stats(&self) -> PushStats {
        let read = |c: &std::sync::atomic::AtomicU64| c.load(std::sync::atomic::Ordering::Relaxed);
        let c = &self.pump.counters;
        PushStats {
            queued: read(&c.queued),
            delivered: read(&c.delivered),
            retried: read(&c.retried),
            given_up: read(&c.given_up),
            dropped: read(&c.dropped),
        }
    }

    /// How many notifications wait in the outbox (for this process, or, with a shared store,
    /// for every replica).
    pub async fn pending(&self) -> Result<u64> {
        self.pump.outbox.pending().await
    }

    /// The destination policy in force.
    pub fn policy(&self) -> &DestinationPolicy {
        &self.pump.policy
    }

    /// Whether notifications go to the task store with the change that caused them (its own
    /// outbox), rather than to the in-memory outbox after it.
    pub(crate) fn in_store(&self) -> bool {
        self.in_store
    }

    /// The push configs of `task_id`, in creation order.
    pub(crate) async fn configs(&self, task_id: &str) -> Result<Vec<StoredPushConfig>> {
        self.configs.list(task_id).await
    }

    /// The notifications `events` of `task_id` cause, one per event and config, in order. A 1.0
    /// config gets the event (encoded once, shared); a 0.3 config the task after the event:
    /// the event itself when it is the task, else `None`, the task as the write of these events
    /// leaves it (which is the task after the event when the event is the last one written).
    pub(crate) fn notifications(
        &self,
        task_id: &str,
        configs: &[StoredPushConfig],
        events: &[&StreamResponse],
    ) -> Vec<Notification> {
        if configs.is_empty() {
            return Vec::new();
        }
        let needs = |version| configs.iter().any(|c| c.version == version);
        let (v1_0, v0_3) = (needs(ProtocolVersion::V1_0), needs(ProtocolVersion::V0_3));
        let trace = crate::trace::current();
        let mut out = Vec::with_capacity(events.len() * configs.len());
        for event in events {
            let body = if v1_0 {
                match a2a_proto::json::to_vec(*event) {
                    Ok(body) => Some(PushPayload::StreamResponse(Bytes::from(body))),
                    Err(error) => {
                        tracing::error!(task_id, %error, "push: cannot serialize event, notification dropped");
                        None
                    }
                }
            } else {
                None
            };
            let task = match (&event.payload, v0_3) {
                (Some(Payload::Task(task)), true) => Some(PushPayload::TaskV0_3(Arc::new(task.clone()))),
                _ => None,
            };
            for config in configs {
                let payload = match config.version {
                    ProtocolVersion::V1_0 => match &body {
                        Some(body) => Some(body.clone()),
                        None => continue,
                    },
                    ProtocolVersion::V0_3 => task.clone(),
                };
                out.push(Notification {
                    task_id: task_id.to_owned(),
                    config: config.clone(),
                    payload,
                    trace: trace.clone(),
                });
            }
        }
        out
    }

    /// Puts notifications in the in-memory outbox (a store without an outbox of its own), after
    /// the task change was written; `task_after` reads the task for those without a body.
    pub(crate) async fn enqueue<F, Fut>(&self, mut notifications: Vec<Notification>, task_after: F)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Option<Task>>>,
    {
        if notifications.iter().any(|n| n.payload.is_none()) {
            match task_after().await {
                Ok(Some(task)) => {
                    let task = PushPayload::TaskV0_3(Arc::new(task));
                    for notification in notifications.iter_mut().filter(|n| n.payload.is_none()) {
                        notification.payload = Some(task.clone());
                    }
                }
                result => {
                    let error =
                        result.err().map(|e| e.to_string()).unwrap_or_else(|| "the task is gone".into());
                    let task_id = &notifications[0].task_id;
                    tracing::warn!(%task_id, %error, "push: cannot read the task, 0.3 notifications dropped");
                    notifications.retain(|n| n.payload.is_some());
                }
            }
        }
        let count = notifications.len() as u64;
        match self.pump.outbox.enqueue(notifications).await {
            Ok(()) => self.pump.counters.queued.fetch_add(count, std::sync::atomic::Ordering::Relaxed),
            Err(error) => {
                tracing::warn!(%error, count, "push: notifications dropped");
                self.pump.counters.dropped.fetch_add(count, std::sync::atomic::Ordering::Relaxed)
            }
        };
        self.wake();
    }

    /// Tells the pump that `count` notifications were stored in the task store's outbox with
    /// their events (starting it if it is not running).
    pub(crate) fn stored(&self, count: usize) {
        self.pump.counters.queued.fetch_add(count as u64, std::sync::atomic::Ordering::Relaxed);
        self.wake();
    }

    /// Tells the pump that notifications were stored (starting it if it is not running).
    pub(crate) fn wake(&self) {
        self.ensure_started();
        self.pump.wake.notify_one();
    }

    /// Starts delivering what the outbox holds. `release`: first release every lease in it (a
    /// single server: the run that held them is gone). Called at startup by
    /// [`DefaultRequestHandler::recover`](crate::DefaultRequestHandler::recover).
    pub async fn start(&self, release: bool) -> Result<()> {
        if release {
            self.pump.outbox.release(None).await?;
        }
        self.ensure_started();
        self.pump.wake.notify_one();
        Ok(())
    }

    fn ensure_started(&self) {
        if self.started.load(std::sync::atomic::Ordering::Acquire) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        if !self.started.swap(true, std::sync::atomic::Ordering::AcqRel) {
            runtime.spawn(Arc::clone(&self.pump).run(self.stop.clone()));
        }
    }

    /// A config was deleted: its pending notifications are dropped (spec 3.1.10: it is no
    /// longer notified). One already being attempted may still arrive.
    pub async fn discard(&self, task_id: &str, config_id: &str) -> Result<()> {
        self.pump.outbox.discard(task_id, config_id).await.map(drop)
    }
}

impl Pump {
    /// How long a claim lasts: an attempt's timeout, twice, plus a margin.
    fn lease(&self) -> Duration {
        self.timeout.saturating_mul(2) + Duration::from_secs(10)
    }

    async fn run(self: Arc<Self>, stop: tokio_util::sync::CancellationToken) {
        let mut failing = false;
        loop {
            let free = self.slots.available_permits();
            if free > 0 {
                match self.outbox.claim(&self.owner, self.clock.now_ms(), self.lease(), free).await {
                    Ok(claimed) => {
                        failing = false;
                        for notification in claimed {
                            let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() else { break };
                            let pump = Arc::clone(&self);
                            tokio::spawn(async move {
                                pump.attempt(notification).await;
                                drop(permit);
                                pump.wake.notify_one();
                            });
                        }
                    }
                    Err(error) => {
                        if !failing {
                            tracing::warn!(%error, "push: cannot read the outbox (retrying every second)");
                        }
                        failing = true;
                    }
                }
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = self.wake.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// Attempts one notification once, then removes it (delivered or given up) or schedules its
    /// next attempt.
    async fn attempt(self: &Arc<Self>, claimed: Claimed) {
        let Claimed {
            id,
            task_id,
            config: StoredPushConfig { config, version },
            payload,
            attempts,
            first_attempt_ms,
            trace,
        } = claimed;
        let first = first_attempt_ms.unwrap_or_else(|| self.clock.now_ms());
        let attempt = attempts + 1;
        let host = match self.policy.check_url(&config.url) {
            Ok(url) => url.host_str().unwrap_or_default().to_owned(),
            Err(reason) => {
                Counters::add(&self.counters.given_up);
                tracing::warn!(%task_id, config_id = %config.id, %reason, "push: destination refused, notification given up");
                self.remove(id).await;
                return;
            }
        };
        let mut headers = headers_for(&config, version);
        // The webhook's request continues the trace of the call that caused the event.
        if let Some(trace) = &trace {
            headers.extend(trace.headers().map(|(name, value)| (name.to_owned(), value.to_owned())));
        }
        let failure = match self.body(&payload) {
            Err(failure) => failure,
            Ok(body) => {
                let request = PushRequest { url: config.url.clone(), headers, body, timeout: self.timeout };
                match tokio::time::timeout(self.timeout, self.transport.send(request)).await {
                    Ok(Ok(())) => {
                        Counters::add(&self.counters.delivered);
                        self.remove(id).await;
                        return;
                    }
                    Ok(Err(failure)) => failure,
                    Err(_) => {
                        PushFailure::new(FailureKind::Timeout, format!("no answer within {:?}", self.timeout))
                    }
                }
            }
        };
        let wait = failure.retry_after.unwrap_or_else(|| self.retry.backoff(attempt).mul_f64(jitter()));
        let wait = wait.min(self.retry.max_backoff);
        let now = self.clock.now_ms();
        let within_budget =
            attempt < self.retry.max_attempts && now - first + millis(wait) <= millis(self.retry.max_age);
        if failure.retryable() && within_budget {
            Counters::add(&self.counters.retried);
            tracing::debug!(%task_id, config_id = %config.id, %host, attempt, %failure, ?wait, "push: attempt failed, retrying");
            if let Err(error) = self.outbox.retry_at(id, attempt, first, now + millis(wait)).await {
                tracing::warn!(%task_id, %error, "push: cannot record a failed attempt (retried when its lease expires)");
            }
            let pump = Arc::clone(self);
            tokio::spawn(async move {
                tokio::time::sleep(wait).await;
                pump.wake.notify_one();
            });
            return;
        }
        Counters::add(&self.counters.given_up);
        let why = if failure.retryable() { "retry budget spent" } else { "final failure" };
        tracing::warn!(
            %task_id, config_id = %config.id, %host, attempts = attempt, last = %failure, why,
            "push: notification given up"
        );
        self.remove(id).await;
    }

    /// The body of `payload`: a 1.0 one is already written; a 0.3 one is written now. Failing
    /// that, a final failure.
    fn body(&self, payload: &PushPayload) -> std::result::Result<Bytes, PushFailure> {
        match payload {
            PushPayload::StreamResponse(body) => Ok(body.clone()),
            PushPayload::TaskV0_3(task) => {
                let write = self.v03_body.ok_or_else(|| {
                    PushFailure::new(
                        FailureKind::Refused,
                        "no writer of 0.3 bodies was given to the dispatcher",
                    )
                })?;
                write(task).map(Bytes::from).map_err(|reason| {
                    PushFailure::new(FailureKind::Refused, format!("cannot write the 0.3 task: {reason}"))
                })
            }
        }
    }

    async fn remove(&self, id: u64) {
        if let Err(error) = self.outbox.remove(id).await {
            tracing::warn!(%error, "push: cannot remove a finished notification (it may be sent again)");
        }
    }
}

/// The headers of every notification to `config`, registered by a client speaking `version`.
///
/// - 1.0 (spec 4.3.3, 13.2): `Content-Type: application/a2a+json`; `Authorization: {scheme}
///   {credentials}` (the scheme alone without credentials) when AuthenticationInfo is set.
/// - 0.3 (0.3 spec 9.5): `Content-Type: application/json`; `Authorization: {scheme}
///   {credentials}` only when there are credentials (0.3's `schemes` list what the webhook
///   accepts; without credentials there is nothing to present, and the 0.3 SDKs sent none).
/// - Both: [`TOKEN_HEADER`] with the config's `token`, when set.
pub fn headers_for(config: &TaskPushNotificationConfig, version: ProtocolVersion) -> Vec<(String, String)> {
    let content_type = match version {
        ProtocolVersion::V1_0 => "application/a2a+json",
        ProtocolVersion::V0_3 => "application/json",
    };
    let mut headers = vec![("Content-Type".to_owned(), content_type.to_owned())];
    if let Some(auth) = &config.authentication {
        let value = match (version, auth.scheme.is_empty(), auth.credentials.is_empty()) {
            (_, true, _) | (ProtocolVersion::V0_3, _, true) => None,
            (ProtocolVersion::V1_0, false, true) => Some(auth.scheme.clone()),
            (_, false, false) => Some(format!("{} {}", auth.scheme, auth.credentials)),
        };
        if let Some(value) = value {
            headers.push(("Authorization".to_owned(), value));
        }
    }
    if !config.token.is_empty() {
        headers.push((TOKEN_HEADER.to_owned(), config.token.clone()));
    }
    headers
}

#[cfg(test)]
mod tests {
    use a2a_proto::v1::AuthenticationInfo;

    use super::*;

    fn config(scheme: &str, credentials: &str, token: &str) -> TaskPushNotificationConfig {
        TaskPushNotificationConfig {
            url: "https://hooks.example.com/a2a".into(),
            token: token.into(),
            authentication: Some(AuthenticationInfo {
                scheme: scheme.into(),
                credentials: credentials.into(),
            }),
            ..Default::default()
        }
    }

    fn header(headers: &[(String, String)], name: &str) -> Option<String> {
        headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone())
    }

    #[test]
    fn each_version_gets_its_content_type_and_both_get_the_token_header() {
        let full = config("Bearer", "secret", "tok");
        let v1 = headers_for(&full, ProtocolVersion::V1_0);
        assert_eq!(header(&v1, "Content-Type").as_deref(), Some("application/a2a+json"), "spec 4.3.3");
        assert_eq!(header(&v1, "Authorization").as_deref(), Some("Bearer secret"), "spec 4.3.3");
        assert_eq!(header(&v1, TOKEN_HEADER).as_deref(), Some("tok"));
        let v03 = headers_for(&full, ProtocolVersion::V0_3);
        assert_eq!(header(&v03, "Content-Type").as_deref(), Some("application/json"), "0.3 spec 9.5");
        assert_eq!(header(&v03, "Authorization").as_deref(), Some("Bearer secret"));
        assert_eq!(header(&v03, "X-A2A-Notification-Token").as_deref(), Some("tok"), "0.3 spec 9.5");
    }

    /// Answers each attempt from a script (then 2xx), recording when each came and its body.
    #[derive(Default)]
    struct Scripted {
        script: std::sync::Mutex<std::collections::VecDeque<std::result::Result<(), PushFailure>>>,
        attempts: std::sync::Mutex<Vec<(tokio::time::Instant, String)>>,
    }

    #[async_trait]
    impl PushTransport for Scripted {
        async fn send(&self, request: PushRequest) -> std::result::Result<(), PushFailure> {
            let body = String::from_utf8(request.body.to_vec()).unwrap();
            self.attempts.lock().unwrap().push((tokio::time::Instant::now(), body));
            self.script.lock().unwrap().pop_front().unwrap_or(Ok(()))
        }
    }

    fn status(code: u16) -> std::result::Result<(), PushFailure> {
        Err(PushFailure::new(FailureKind::Status(code), format!("answered {code}")))
    }

    /// A dispatcher with one 1.0 config on task `t`, whose transport answers with `script`.
    async fn dispatcher(
        script: Vec<std::result::Result<(), PushFailure>>,
        retry: RetryPolicy,
    ) -> (PushDispatcher, Arc<Scripted>) {
        dispatcher_for(ProtocolVersion::V1_0, script, retry).await
    }

    /// [`dispatcher`] with the config registered over `version`.
    async fn dispatcher_for(
        version: ProtocolVersion,
        script: Vec<std::result::Result<(), PushFailure>>,
        retry: RetryPolicy,
    ) -> (PushDispatcher, Arc<Scripted>) {
        let store = Arc::new(crate::store::memory::InMemoryPushConfigStore::new());
        let config = TaskPushNotificationConfig {
            task_id: "t".into(),
            id: "c".into(),
            url: "https://hooks.example.com/a2a".into(),
            ..Default::default()
        };
        store.put(config, version).await.unwrap();
        let transport =
            Arc::new(Scripted { script: std::sync::Mutex::new(script.into()), ..Default::default() });
        let dispatcher = PushDispatcher::new(
            transport.clone(),
            store,
            DestinationPolicy::public_only(),
            Duration::from_secs(10),
        )
        .with_retry_policy(retry);
        (dispatcher, transport)
    }

    fn event(n: u32) -> StreamResponse {
        a2a_proto::v1::TaskStatusUpdateEvent {
            task_id: "t".into(),
            context_id: format!("event-{n}"),
            ..Default::default()
        }
        .into()
    }

    /// What the task runtime does with an event of task `t` (with an in-memory outbox).
    async fn dispatch(dispatcher: &PushDispatcher, n: u32) {
        let configs = dispatcher.configs("t").await.unwrap();
        let event = event(n);
        let notifications = dispatcher.notifications("t", &configs, &[&event]);
        dispatcher.enqueue(notifications, || async { Ok(None) }).await;
    }

    async fn settle(dispatcher: &PushDispatcher, delivered_or_given_up: u64) -> PushStats {
        for _ in 0..10_000 {
            let stats = dispatcher.stats();
            if stats.delivered + stats.given_up >= delivered_or_given_up {
                return stats;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("not settled: {:?}", dispatcher.stats())
    }

    fn order(transport: &Scripted) -> Vec<String> {
        let attempts = transport.attempts.lock().unwrap();
        attempts.iter().map(|(_, body)| body.split("event-").nth(1).unwrap()[..1].to_owned()).collect()
    }

    fn write_v03(task: &Task) -> std::result::Result<Vec<u8>, String> {
        Ok(format!("0.3 task {}", task.id).into_bytes())
    }

    #[tokio::test(start_paused = true)]
    async fn a_0_3_body_is_written_by_the_dispatcher_and_without_a_writer_given_up() {
        for writer in [Some(write_v03 as WriteTaskV0_3), None] {
            let (dispatcher, transport) =
                dispatcher_for(ProtocolVersion::V0_3, Vec::new(), RetryPolicy::default()).await;
            let dispatcher = match writer {
                Some(write) => dispatcher.with_v03_body(write),
                None => dispatcher,
            };
            let configs = dispatcher.configs("t").await.unwrap();
            let event = StreamResponse::from(Task { id: "t".into(), ..Default::default() });
            dispatcher
                .enqueue(dispatcher.notifications("t", &configs, &[&event]), || async { Ok(None) })
                .await;
            let stats = settle(&dispatcher, 1).await;
            let bodies: Vec<String> =
                transport.attempts.lock().unwrap().iter().map(|(_, body)| body.clone()).collect();
            if writer.is_some() {
                assert_eq!((stats.delivered, stats.given_up), (1, 0));
                assert_eq!(bodies, ["0.3 task t"], "the transport gets the written bytes");
            } else {
                assert_eq!((stats.delivered, stats.given_up), (0, 1), "final: never retried");
                assert!(bodies.is_empty(), "nothing reaches the transport");
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retryable_failures_are_retried_with_growing_backoff_and_order_is_kept() {
        let connect = Err(PushFailure::new(FailureKind::Connect, "refused"));
        let timeout = Err(PushFailure::new(FailureKind::Timeout, "slow"));
        let (dispatcher, transport) =
            dispatcher(vec![status(500), connect, timeout, status(429)], RetryPolicy::default()).await;
        for n in 1..=2 {
            dispatch(&dispatcher, n).await;
        }
        let stats = settle(&dispatcher, 2).await;
        assert_eq!(stats, PushStats { queued: 2, delivered: 2, retried: 4, given_up: 0, dropped: 0 });
        assert_eq!(
            order(&transport),
            ["1", "1", "1", "1", "1", "2"],
            "event 2 waits until event 1 is delivered"
        );
        let attempts = transport.attempts.lock().unwrap();
        let waits: Vec<Duration> = attempts.windows(2).map(|w| w[1].0 - w[0].0).collect();
        for (i, wait) in waits.iter().take(4).enumerate() {
            let full = RetryPolicy::default().backoff(i as u32 + 1);
            assert!(
                *wait >= full / 2 && *wait <= full,
                "wait {i}: {wait:?} within [{:?}, {full:?}] (jitter)",
                full / 2
            );
        }
    }

    #[tokio::test(start_paused = true)]
    async fn retry_after_is_honoured_and_a_client_error_is_final() {
        let mut throttled = PushFailure::new(FailureKind::Status(429), "slow down");
        throttled.retry_after = Some(Duration::from_secs(7));
        let (dispatcher, transport) =
            dispatcher(vec![Err(throttled), status(404)], RetryPolicy::default()).await;
        for n in 1..=3 {
            dispatch(&dispatcher, n).await;
        }
        let stats = settle(&dispatcher, 3).await;
        assert_eq!(
            stats,
            PushStats { queued: 3, delivered: 2, retried: 1, given_up: 1, dropped: 0 },
            "404 is not retried"
        );
        assert_eq!(order(&transport), ["1", "1", "2", "3"]);
        let attempts = transport.attempts.lock().unwrap();
        assert_eq!(attempts[1].0 - attempts[0].0, Duration::from_secs(7), "Retry-After, exactly");
    }

    #[tokio::test(start_paused = true)]
    async fn a_notification_is_given_up_when_its_budget_is_spent_and_the_next_one_goes() {
        let retry = RetryPolicy { max_attempts: 3, ..RetryPolicy::default() };
        let (dispatcher, transport) = dispatcher(vec![status(503); 3], retry).await;
        for n in 1..=2 {
            dispatch(&dispatcher, n).await;
        }
        let stats = settle(&dispatcher, 2).await;
        assert_eq!(stats, PushStats { queued: 2, delivered: 1, retried: 2, given_up: 1, dropped: 0 });
        assert_eq!(order(&transport), ["1", "1", "1", "2"], "three attempts, then the next notification");

        let by_age = RetryPolicy { max_age: Duration::from_secs(2), ..RetryPolicy::default() };
        let (dispatcher, transport) = dispatcher_with_failures(by_age).await;
        dispatch(&dispatcher, 1).await;
        assert_eq!(settle(&dispatcher, 1).await.given_up, 1);
        let attempts = transport.attempts.lock().unwrap();
        assert!(attempts.len() >= 2 && attempts.last().unwrap().0 - attempts[0].0 <= Duration::from_secs(2));
    }

    async fn dispatcher_with_failures(retry: RetryPolicy) -> (PushDispatcher, Arc<Scripted>) {
        dispatcher(vec![status(500); 100], retry).await
    }

    #[test]
    fn a_scheme_without_credentials_is_sent_in_1_0_only() {
        let scheme_only = config("Bearer", "", "");
        assert_eq!(
            header(&headers_for(&scheme_only, ProtocolVersion::V1_0), "Authorization").as_deref(),
            Some("Bearer")
        );
        let v03 = headers_for(&scheme_only, ProtocolVersion::V0_3);
        assert_eq!(header(&v03, "Authorization"), None);
        assert_eq!(v03.len(), 1, "only the content type: {v03:?}");
        let nothing = TaskPushNotificationConfig::default();
        assert_eq!(headers_for(&nothing, ProtocolVersion::V1_0).len(), 1);
    }
}
