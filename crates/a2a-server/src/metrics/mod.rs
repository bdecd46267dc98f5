//! The reference server's metrics: every definition in one place, read in-process through
//! [`Metrics`] and scraped as OpenMetrics / Prometheus text ([`Metrics::render`], served at
//! [`METRICS_PATH`] on the `--metrics-listen` port). `docs/operations.md` lists each metric with
//! its labels and meaning.
//!
//! Where each figure is taken (the cleanest seam for each):
//! - requests, durations and open streams: an [`A2aService`](a2a_core::A2aService) wrapper per
//!   binding (`service.rs`), where the operation, the outcome and the caller's protocol version
//!   are known, and the binding is fixed by which router the wrapper was given to;
//! - store latency and failures: [`TaskStore`](a2a_core::store::TaskStore) and
//!   [`PushConfigStore`](a2a_core::store::PushConfigStore) wrappers (`store.rs`);
//! - executions in progress, push deliveries and subscriber resyncs: counters core keeps anyway
//!   (`DefaultRequestHandler::active_executions`, `DefaultRequestHandler::push_stats`,
//!   [`a2a_core::stats`]), read at scrape time.
//!
//! Hot-path cost: every series is a plain atomic in fixed arrays indexed by the closed enums
//! ([`Operation`], [`Binding`], [`ProtocolVersion`], the outcome), so recording a request is a few
//! relaxed `fetch_add`s and two clock reads: no lock, no map, no allocation. Label values come
//! from those enums only, never from a request. The text is built only when scraped, by
//! `prometheus-client`'s encoder through its [`Collector`] interface.

mod histogram;
#[cfg(feature = "otel")]
mod otel;
mod service;
mod store;

use std::fmt;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use a2a_core::{Binding, DefaultRequestHandler, Error, Operation, ProtocolVersion};
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};

use histogram::Histogram;
pub(crate) use service::Metered;
pub(crate) use store::{TimedPushConfigStore, TimedTaskStore};

/// Where the metrics listener serves the scrape.
pub const METRICS_PATH: &str = "/metrics";

/// The scrape's media type: OpenMetrics 1.0 text, which Prometheus reads natively.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The `outcome` label: `ok`, `cancelled` (the caller went away before the answer), or the
/// error's name ([`Error::name`]: the ErrorInfo reason of spec 3.3.2 for A2A errors, the one the
/// bindings send for the standard ones), at `ERRORS + Error::name_index`.
const OUTCOMES: [&str; ERRORS + Error::NAMES.len()] = {
    let mut outcomes = ["ok"; ERRORS + Error::NAMES.len()];
    outcomes[CANCELLED] = "cancelled";
    let mut i = 0;
    while i < Error::NAMES.len() {
        outcomes[ERRORS + i] = Error::NAMES[i];
        i += 1;
    }
    outcomes
};
const OK: usize = 0;
const CANCELLED: usize = 1;
/// Where the errors' outcomes start.
const ERRORS: usize = 2;

/// The index in [`OUTCOMES`] of an error.
fn outcome_index(error: &Error) -> usize {
    ERRORS + error.name_index()
}

/// The `outcome` label value of an answer: `ok` or the error's name (see `docs/operations.md`).
pub fn outcome(result: Result<(), &Error>) -> &'static str {
    match result {
        Ok(()) => OUTCOMES[OK],
        Err(error) => OUTCOMES[outcome_index(error)],
    }
}

/// The protocol versions a caller may speak, as the `version` label: index and value.
const VERSIONS: [ProtocolVersion; 2] = [ProtocolVersion::V1_0, ProtocolVersion::V0_3];

fn version_index(version: ProtocolVersion) -> usize {
    match version {
        ProtocolVersion::V1_0 => 0,
        ProtocolVersion::V0_3 => 1,
    }
}

/// The two streaming operations, the `operation` label of the open streams gauge.
const STREAMING: [Operation; 2] = [Operation::SendStreamingMessage, Operation::SubscribeToTask];

/// The `kind` label of the executions gauge.
pub use a2a_core::stats::ExecutionKind;

/// A store method: the `operation` label of the store metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreOperation {
    /// `TaskStore::create`.
    Create,
    /// `TaskStore::create_and_apply`: a new task with its first event.
    CreateAndApply,
    /// `TaskStore::apply`: one change of a task (a client message joining its history).
    Apply,
    /// `TaskStore::create_with_burst`: a new task with the burst of events its execution
    /// published before the first write (the label keeps the name of the method's deprecated
    /// form, `create_and_apply_all`, so dashboards keep working).
    CreateAndApplyAll,
    /// `TaskStore::apply_burst`: a burst of events of a stored task (label `apply_all`, the
    /// deprecated form's name).
    ApplyAll,
    /// `TaskStore::get`.
    Get,
    /// `TaskStore::list`.
    List,
    /// `TaskStore::running` (startup).
    Running,
    /// `TaskStore::ping` (readiness probes).
    Ping,
    /// `PushConfigStore::put`.
    PushConfigPut,
    /// `PushConfigStore::get`.
    PushConfigGet,
    /// `PushConfigStore::list` (also once per write of an execution's events).
    PushConfigList,
    /// `PushConfigStore::delete`.
    PushConfigDelete,
}

impl StoreOperation {
    /// Every store operation.
    pub const ALL: [StoreOperation; 13] = [
        StoreOperation::Create,
        StoreOperation::CreateAndApply,
        StoreOperation::Apply,
        StoreOperation::CreateAndApplyAll,
        StoreOperation::ApplyAll,
        StoreOperation::Get,
        StoreOperation::List,
        StoreOperation::Running,
        StoreOperation::Ping,
        StoreOperation::PushConfigPut,
        StoreOperation::PushConfigGet,
        StoreOperation::PushConfigList,
        StoreOperation::PushConfigDelete,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            StoreOperation::Create => "create",
            StoreOperation::CreateAndApply => "create_and_apply",
            StoreOperation::Apply => "apply",
            StoreOperation::CreateAndApplyAll => "create_and_apply_all",
            StoreOperation::ApplyAll => "apply_all",
            StoreOperation::Get => "get",
            StoreOperation::List => "list",
            StoreOperation::Running => "running",
            StoreOperation::Ping => "ping",
            StoreOperation::PushConfigPut => "push_config_put",
            StoreOperation::PushConfigGet => "push_config_get",
            StoreOperation::PushConfigList => "push_config_list",
            StoreOperation::PushConfigDelete => "push_config_delete",
        }
    }
}

/// A limit of [`Limits`](crate::Limits) or the rate limit: the `limit` label of the refusals
/// counter, named as the limit is in the refusal's message and the docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// The rate limit (`--rate-limit`).
    RateLimit,
    /// `max_uri_bytes` (414).
    MaxUriBytes,
    /// `max_header_bytes` (431).
    MaxHeaderBytes,
    /// `body_read_timeout` (408).
    BodyReadTimeout,
    /// `max_streams`.
    MaxStreams,
    /// `max_streams_per_connection`.
    MaxStreamsPerConnection,
    /// `max_subscribers_per_task`.
    MaxSubscribersPerTask,
}

impl Limit {
    /// Every limit counted.
    pub const ALL: [Limit; 7] = [
        Limit::RateLimit,
        Limit::MaxUriBytes,
        Limit::MaxHeaderBytes,
        Limit::BodyReadTimeout,
        Limit::MaxStreams,
        Limit::MaxStreamsPerConnection,
        Limit::MaxSubscribersPerTask,
    ];

    /// The label value.
    pub fn as_str(self) -> &'static str {
        match self {
            Limit::RateLimit => "rate_limit",
            Limit::MaxUriBytes => "max_uri_bytes",
            Limit::MaxHeaderBytes => "max_header_bytes",
            Limit::BodyReadTimeout => "body_read_timeout",
            Limit::MaxStreams => "max_streams",
            Limit::MaxStreamsPerConnection => "max_streams_per_connection",
            Limit::MaxSubscribersPerTask => "max_subscribers_per_task",
        }
    }
}

const BINDINGS: usize = Binding::ALL.len();
const OPERATIONS: usize = Operation::ALL.len();

/// The index of a request counter.
fn request_slot(binding: Binding, operation: Operation, version: usize, outcome: usize) -> usize {
    (((binding as usize * OPERATIONS) + operation as usize) * VERSIONS.len() + version) * OUTCOMES.len()
        + outcome
}

/// The index of a per-binding, per-operation series.
fn operation_slot(binding: Binding, operation: Operation) -> usize {
    binding as usize * OPERATIONS + operation as usize
}

/// The index of an open-streams gauge (`operation` is one of [`STREAMING`]).
fn stream_slot(binding: Binding, operation: Operation) -> usize {
    let streaming = usize::from(operation == Operation::SubscribeToTask);
    binding as usize * STREAMING.len() + streaming
}

/// Every series, as atomics.
pub(crate) struct Counters {
    requests: Box<[AtomicU64]>,
    durations: Box<[Histogram]>,
    open_streams: [AtomicI64; BINDINGS * STREAMING.len()],
    store: [Histogram; StoreOperation::ALL.len()],
    store_errors: [AtomicU64; StoreOperation::ALL.len()],
    refusals: [AtomicU64; Limit::ALL.len()],
    /// The default handler, for its push statistics (absent with a service of the user's own).
    handler: RwLock<Option<DefaultRequestHandler>>,
    /// The OpenTelemetry histograms, once [`Metrics::export_to`] registered them.
    #[cfg(feature = "otel")]
    otel: std::sync::OnceLock<otel::OtelHistograms>,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            requests: (0..BINDINGS * OPERATIONS * VERSIONS.len() * OUTCOMES.len())
                .map(|_| AtomicU64::new(0))
                .collect(),
            durations: (0..BINDINGS * OPERATIONS).map(|_| Histogram::default()).collect(),
            open_streams: Default::default(),
            store: Default::default(),
            store_errors: Default::default(),
            refusals: Default::default(),
            handler: RwLock::new(None),
            #[cfg(feature = "otel")]
            otel: std::sync::OnceLock::new(),
        }
    }
}

impl Counters {
    /// One answered (or abandoned) call.
    fn record(
        &self,
        binding: Binding,
        operation: Operation,
        version: ProtocolVersion,
        outcome: usize,
        elapsed: Duration,
    ) {
        self.requests[request_slot(binding, operation, version_index(version), outcome)]
            .fetch_add(1, Ordering::Relaxed);
        let slot = operation_slot(binding, operation);
        self.durations[slot].observe(elapsed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.otel.get() {
            otel.request(slot, elapsed.as_secs_f64());
        }
    }

    fn stream_opened(&self, binding: Binding, operation: Operation) {
        self.open_streams[stream_slot(binding, operation)].fetch_add(1, Ordering::Relaxed);
    }

    fn stream_closed(&self, binding: Binding, operation: Operation) {
        self.open_streams[stream_slot(binding, operation)].fetch_sub(1, Ordering::Relaxed);
    }

    fn store_done(&self, operation: StoreOperation, elapsed: Duration, failed: bool) {
        self.store[operation as usize].observe(elapsed);
        #[cfg(feature = "otel")]
        if let Some(otel) = self.otel.get() {
            otel.store(operation, elapsed.as_secs_f64());
        }
        if failed {
            self.store_errors[operation as usize].fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// The reference server's metrics. Cheap to clone (one `Arc`); give the same value to
/// [`ServerBuilder::metrics`](crate::ServerBuilder::metrics) and keep a clone to read them, or
/// get the server's from [`RunningServer::metrics`](crate::RunningServer::metrics) and
/// [`App::metrics`](crate::App::metrics). One `Metrics` belongs to one server.
///
/// It is also a `prometheus-client` [`Collector`]: an embedder with a registry of its own can
/// register it there instead of serving [`render`](Self::render).
#[derive(Clone, Default)]
pub struct Metrics {
    counters: Arc<Counters>,
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Metrics with every series at zero.
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn counters(&self) -> &Arc<Counters> {
        &self.counters
    }

    /// One request or stream refused by `limit`.
    pub(crate) fn refused(&self, limit: Limit) {
        self.counters.refusals[limit as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Requests and streams refused by `limit` so far.
    pub fn limit_refusals(&self, limit: Limit) -> u64 {
        self.counters.refusals[limit as usize].load(Ordering::Relaxed)
    }

    /// Reads push statistics from this handler at each scrape.
    pub(crate) fn attach_handler(&self, handler: DefaultRequestHandler) {
        *self.counters.handler.write().unwrap_or_else(|e| e.into_inner()) = Some(handler);
    }

    /// Calls of `operation` on `binding` answered with `outcome` (`"ok"`, `"cancelled"` or an
    /// error's name, see [`outcome`]), in every protocol version.
    pub fn requests(&self, binding: Binding, operation: Operation, outcome: &str) -> u64 {
        VERSIONS.into_iter().map(|version| self.requests_in(binding, operation, version, outcome)).sum()
    }

    /// Calls of `operation` on `binding` by callers speaking `version`, answered with `outcome`.
    pub fn requests_in(
        &self,
        binding: Binding,
        operation: Operation,
        version: ProtocolVersion,
        outcome: &str,
    ) -> u64 {
        OUTCOMES.iter().position(|o| *o == outcome).map_or(0, |o| {
            self.counters.requests[request_slot(binding, operation, version_index(version), o)]
                .load(Ordering::Relaxed)
        })
    }

    /// Calls of `operation` on `binding` timed in the duration histogram (every outcome).
    pub fn timed_requests(&self, binding: Binding, operation: Operation) -> u64 {
        self.counters.durations[operation_slot(binding, operation)].count()
    }

    /// Streams of `operation` (SendStreamingMessage or SubscribeToTask) open on `binding` now.
    pub fn open_streams(&self, binding: Binding, operation: Operation) -> i64 {
        if !operation.is_streaming() {
            return 0;
        }
        self.counters.open_streams[stream_slot(binding, operation)].load(Ordering::Relaxed)
    }

    /// Agent executor calls of `kind` in progress now in the default handler (0 with a service
    /// of the user's own, which the server cannot see into).
    pub fn active_executions(&self, kind: ExecutionKind) -> i64 {
        self.counters
            .handler
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map_or(0, |h| h.active_executions(kind))
    }

    /// Task runtimes alive now in the default handler (an execution running or a stream
    /// subscribed; see `DefaultRequestHandler::live_tasks`); `None` with a service of the user's own.
    pub fn live_tasks(&self) -> Option<usize> {
        self.counters.handler.read().unwrap_or_else(|e| e.into_inner()).as_ref().map(|h| h.live_tasks())
    }

    /// Store calls of `operation` so far (timed in the store latency histogram).
    pub fn store_operations(&self, operation: StoreOperation) -> u64 {
        self.counters.store[operation as usize].count()
    }

    /// Store calls of `operation` that failed with an internal error (the backend failed).
    pub fn store_errors(&self, operation: StoreOperation) -> u64 {
        self.counters.store_errors[operation as usize].load(Ordering::Relaxed)
    }

    /// The OpenMetrics text of every metric ([`CONTENT_TYPE`]), as scraped.
    pub fn render(&self) -> String {
        let mut registry = Registry::default();
        registry.register_collector(Box::new(self.clone()));
        let mut text = String::with_capacity(8 * 1024);
        if let Err(error) = prometheus_client::encoding::text::encode(&mut text, &registry) {
            // Writing into a String does not fail; an encoder bug would show as a short scrape.
            tracing::warn!(%error, "encoding the metrics failed");
        }
        text
    }
}

/// What a family counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Counter,
    Gauge,
    Histogram,
}

/// One sample's value.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    Counter(u64),
    Gauge(i64),
    Histogram(histogram::Snapshot),
}

/// The labels of a sample: names and values are all from the closed enums (module docs).
pub(crate) type Labels = Vec<(&'static str, &'static str)>;

/// A metric family as read at one moment: what every exporter (the Prometheus scrape,
/// OpenTelemetry) writes out, so the list of metrics lives in one place, [`Metrics::families`].
#[derive(Debug, Clone)]
pub(crate) struct Family {
    pub(crate) name: &'static str,
    pub(crate) help: &'static str,
    /// In seconds (the durations), or a plain count.
    pub(crate) seconds: bool,
    pub(crate) kind: Kind,
    pub(crate) samples: Vec<(Labels, Value)>,
}

impl Family {
    fn new(name: &'static str, help: &'static str, kind: Kind) -> Self {
        Family { name, help, seconds: false, kind, samples: Vec::new() }
    }

    fn push(&mut self, labels: Labels, value: Value) {
        self.samples.push((labels, value));
    }
}

impl Metrics {
    /// Every metric family, read now (see `docs/operations.md` for each). The push and live-task
    /// families are there only when a default handler is attached.
    pub(crate) fn families(&self) -> Vec<Family> {
        self.families_with(false)
    }

    /// [`families`](Self::families), with every conditional family too (empty) when `all`: the
    /// list of every family there can be, for exporters that register them up front.
    pub(crate) fn families_with(&self, all: bool) -> Vec<Family> {
        let c = &*self.counters;
        let mut families = Vec::with_capacity(16);
        let mut requests = Family::new(
            "a2a_requests",
            "A2A operations answered, by operation, binding, caller's protocol version and outcome \
             (ok, cancelled, or the error's name).",
            Kind::Counter,
        );
        for binding in Binding::ALL {
            for operation in Operation::ALL {
                for (v, version) in VERSIONS.into_iter().enumerate() {
                    for (o, outcome) in OUTCOMES.iter().enumerate() {
                        let value =
                            c.requests[request_slot(binding, operation, v, o)].load(Ordering::Relaxed);
                        // Series appear when first used, except 1.0 successes, present from the
                        // start so that rates over them have a starting point.
                        if value == 0 && !(o == OK && v == 0) {
                            continue;
                        }
                        let labels = vec![
                            ("operation", operation.method()),
                            ("binding", binding.protocol_binding()),
                            ("version", version.as_str()),
                            ("outcome", *outcome),
                        ];
                        requests.push(labels, Value::Counter(value));
                    }
                }
            }
        }
        families.push(requests);
        let mut durations = Family::new(
            "a2a_request_duration",
            "Time from a call reaching the handler to its answer (for streaming operations, to the \
             stream's start), by operation and binding.",
            Kind::Histogram,
        );
        durations.seconds = true;
        for binding in Binding::ALL {
            for operation in Operation::ALL {
                let snapshot = c.durations[operation_slot(binding, operation)].snapshot();
                if snapshot.count == 0 {
                    continue;
                }
                let labels = vec![("operation", operation.method()), ("binding", binding.protocol_binding())];
                durations.push(labels, Value::Histogram(snapshot));
            }
        }
        families.push(durations);
        let mut streams = Family::new(
            "a2a_open_streams",
            "SendStreamingMessage and SubscribeToTask streams open now, by operation and binding.",
            Kind::Gauge,
        );
        for binding in Binding::ALL {
            for operation in STREAMING {
                let value = c.open_streams[stream_slot(binding, operation)].load(Ordering::Relaxed);
                let labels = vec![("operation", operation.method()), ("binding", binding.protocol_binding())];
                streams.push(labels, Value::Gauge(value));
            }
        }
        families.push(streams);
        let mut executions = Family::new(
            "a2a_active_executions",
            "Agent executor calls in progress now: tasks being worked on (execute), canceled \
             (cancel) or resolved after a restart (recover).",
            Kind::Gauge,
        );
        for kind in ExecutionKind::ALL {
            let value = self.active_executions(kind);
            executions.push(vec![("kind", kind.as_str())], Value::Gauge(value));
        }
        families.push(executions);
        let live = self.live_tasks();
        if all || live.is_some() {
            let mut family = Family::new(
                "a2a_live_tasks",
                "Task runtimes alive now: tasks with an execution running or a stream subscribed \
                 (0 once every execution has ended and every stream is closed: a steady climb is a leak).",
                Kind::Gauge,
            );
            if let Some(live) = live {
                family.push(Vec::new(), Value::Gauge(i64::try_from(live).unwrap_or(i64::MAX)));
            }
            families.push(family);
        }
        let subscribers = a2a_core::stats::subscriber_stats();
        let mut resyncs = Family::new(
            "a2a_subscriber_resyncs",
            "Stream subscribers that fell behind (or saw a write abandoned) and were resynchronised \
             from a task snapshot, in this process.",
            Kind::Counter,
        );
        resyncs.push(Vec::new(), Value::Counter(subscribers.resyncs));
        families.push(resyncs);
        let mut lagged = Family::new(
            "a2a_subscriber_lagged_events",
            "Events slow subscribers missed, each made up for by a resync snapshot, in this process.",
            Kind::Counter,
        );
        lagged.push(Vec::new(), Value::Counter(subscribers.lagged_events));
        families.push(lagged);
        let push = c.handler.read().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|h| h.push_stats());
        if all || push.is_some() {
            let push = push.unwrap_or_default();
            let mut settled = Family::new(
                "a2a_push_notifications",
                "Push notifications settled, by result: delivered (a 2xx answer), given_up (a final \
                 failure or the retry budget spent), dropped (the in-memory outbox was full).",
                Kind::Counter,
            );
            for (result, value) in
                [("delivered", push.delivered), ("given_up", push.given_up), ("dropped", push.dropped)]
            {
                settled.push(vec![("result", result)], Value::Counter(value));
            }
            families.push(settled);
            let mut queued = Family::new(
                "a2a_push_notifications_queued",
                "Push notifications stored in the outbox by this process, with the events that \
                 caused them (queued minus settled: what this process has pending).",
                Kind::Counter,
            );
            queued.push(Vec::new(), Value::Counter(push.queued));
            families.push(queued);
            let mut retried = Family::new(
                "a2a_push_retries",
                "Push notification attempts that failed and were retried.",
                Kind::Counter,
            );
            retried.push(Vec::new(), Value::Counter(push.retried));
            families.push(retried);
        }
        let mut store = Family::new(
            "a2a_store_operation_duration",
            "Time of each task and push config store call, by store operation.",
            Kind::Histogram,
        );
        store.seconds = true;
        for operation in StoreOperation::ALL {
            let snapshot = c.store[operation as usize].snapshot();
            if snapshot.count > 0 {
                store.push(vec![("operation", operation.as_str())], Value::Histogram(snapshot));
            }
        }
        families.push(store);
        let mut refusals = Family::new(
            "a2a_limit_refusals",
            "Requests and streams refused by a limit of the server (docs/operations.md, Limits), by \
             limit.",
            Kind::Counter,
        );
        for limit in Limit::ALL {
            let value = c.refusals[limit as usize].load(Ordering::Relaxed);
            refusals.push(vec![("limit", limit.as_str())], Value::Counter(value));
        }
        families.push(refusals);
        let mut errors = Family::new(
            "a2a_store_errors",
            "Store calls that failed with an internal error (the backend failed), by store operation.",
            Kind::Counter,
        );
        for operation in StoreOperation::ALL {
            let value = c.store_errors[operation as usize].load(Ordering::Relaxed);
            if value > 0 {
                errors.push(vec![("operation", operation.as_str())], Value::Counter(value));
            }
        }
        families.push(errors);
        families
    }
}

fn write_sample(sample: &mut prometheus_client::encoding::MetricEncoder<'_>, value: &Value) -> fmt::Result {
    match value {
        Value::Counter(value) => sample.encode_counter::<NoLabelSet, _, u64>(value, None),
        Value::Gauge(value) => sample.encode_gauge(value),
        Value::Histogram(snapshot) => {
            sample.encode_histogram::<NoLabelSet>(snapshot.sum, snapshot.count, &snapshot.buckets, None)
        }
    }
}

impl Collector for Metrics {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), fmt::Error> {
        for family in self.families() {
            let metric_type = match family.kind {
                Kind::Counter => MetricType::Counter,
                Kind::Gauge => MetricType::Gauge,
                Kind::Histogram => MetricType::Histogram,
            };
            let unit = family.seconds.then_some(&Unit::Seconds);
            let mut encoder = encoder.encode_descriptor(family.name, family.help, unit, metric_type)?;
            for (labels, value) in &family.samples {
                // A series without labels is written as `name value`, not `name{} value`.
                if labels.is_empty() {
                    write_sample(&mut encoder, value)?;
                } else {
                    write_sample(&mut encoder.encode_family(labels)?, value)?;
                }
            }
        }
        Ok(())
    }
}

/// `GET /metrics`: the scrape, for the metrics listener (or an embedder's router).
pub fn router(metrics: Metrics) -> Router {
    Router::new().route(
        METRICS_PATH,
        get(move || {
            let text = metrics.render();
            std::future::ready(([(http::header::CONTENT_TYPE, CONTENT_TYPE)], text).into_response())
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_core::error::testing::one_of_each;

    #[test]
    fn every_error_has_its_own_outcome_named_as_core_names_it() {
        let names: Vec<_> = one_of_each().iter().map(|e| outcome(Err(e))).collect();
        let mut distinct = names.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
        assert_eq!(outcome(Ok(())), "ok");
        for error in one_of_each() {
            // spec 3.3.2: A2A errors by their ErrorInfo reason; the standard ones as the
            // bindings' ErrorInfo names them (parse errors and transport failures have their own).
            let expected = match (&error, error.reason()) {
                (_, Some(reason)) => reason.to_owned(),
                (Error::ParseError { .. }, None) => "PARSE_ERROR".to_owned(),
                (Error::Transport { .. }, None) => "TRANSPORT_ERROR".to_owned(),
                (_, None) => error.error_info().unwrap().reason,
            };
            assert_eq!(outcome(Err(&error)), expected);
        }
    }

    #[test]
    fn a_recorded_call_is_read_back_and_scraped_with_its_labels() {
        let metrics = Metrics::new();
        let c = metrics.counters();
        c.record(Binding::Grpc, Operation::GetTask, ProtocolVersion::V0_3, 2, Duration::from_millis(3));
        c.record(Binding::Rest, Operation::SendMessage, ProtocolVersion::V1_0, OK, Duration::from_millis(1));
        c.stream_opened(Binding::JsonRpc, Operation::SubscribeToTask);
        assert_eq!(metrics.requests(Binding::Grpc, Operation::GetTask, "TASK_NOT_FOUND"), 1);
        assert_eq!(
            metrics.requests_in(Binding::Grpc, Operation::GetTask, ProtocolVersion::V1_0, "TASK_NOT_FOUND"),
            0
        );
        assert_eq!(metrics.requests(Binding::Rest, Operation::SendMessage, "ok"), 1);
        assert_eq!(metrics.requests(Binding::Rest, Operation::SendMessage, "no such outcome"), 0);
        assert_eq!(metrics.timed_requests(Binding::Grpc, Operation::GetTask), 1);
        assert_eq!(metrics.open_streams(Binding::JsonRpc, Operation::SubscribeToTask), 1);

        let text = metrics.render();
        assert!(
            text.contains(
                r#"a2a_requests_total{operation="GetTask",binding="GRPC",version="0.3",outcome="TASK_NOT_FOUND"} 1"#
            ),
            "{text}"
        );
        assert!(text.contains(
            r#"a2a_requests_total{operation="ListTasks",binding="JSONRPC",version="1.0",outcome="ok"} 0"#
        ));
        assert!(text.contains(r#"a2a_request_duration_seconds_count{operation="GetTask",binding="GRPC"} 1"#));
        let bucket = |le: &str| {
            format!(r#"a2a_request_duration_seconds_bucket{{le="{le}",operation="GetTask",binding="GRPC"}}"#)
        };
        assert!(text.contains(&format!("{} 0\n", bucket("0.0025"))), "{text}");
        assert!(text.contains(&format!("{} 1\n", bucket("0.005"))), "cumulative: {text}");
        assert!(text.contains(&format!("{} 1\n", bucket("+Inf"))), "{text}");
        assert!(text.contains(r#"a2a_open_streams{operation="SubscribeToTask",binding="JSONRPC"} 1"#));
        assert!(text.contains(r#"a2a_active_executions{kind="execute"} 0"#));
        assert!(text.contains("a2a_subscriber_resyncs_total "));
        assert!(!text.contains("a2a_push_notifications"), "no handler, no push series");
        assert!(text.ends_with("# EOF\n"));
    }
}
