//! Liveness and readiness probes: `GET /healthz` and `GET /readyz`, on the main port (beside the
//! A2A routes, outside any layer given to `ServerBuilder::layer`, so a probe needs no
//! credentials) and on the metrics port.
//!
//! - `/healthz` answers 200 while the process serves HTTP at all: restart the process if not.
//! - `/readyz` answers 200 while the server can serve A2A calls, and 503 with a short JSON reason
//!   while it cannot: the task store is unreachable (a ping failed, or did not answer within
//!   [`READINESS_TIMEOUT`]), or the server is shutting down. Take it out of the load balancer
//!   meanwhile. The store's own error goes to the log (warn), not to the unauthenticated caller.
//!
//! A probe costs at most one store ping per [`FRESH_FOR`]: concurrent probes share a ping in
//! flight, and later ones reuse its answer while it is fresh, so a storm of probes cannot load
//! the database. Neither path collides with an A2A route: spec 11's REST paths start with
//! `/message`, `/tasks` or `/extendedAgentCard` (after an optional tenant), so a bare `/healthz`
//! was only ever a tenant with no operation (an unknown route).

use std::sync::Arc;
use std::time::Duration;

use a2a_core::store::TaskStore;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use http::{header, HeaderValue, StatusCode};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// The liveness path.
pub const HEALTH_PATH: &str = "/healthz";
/// The readiness path.
pub const READY_PATH: &str = "/readyz";
/// How long a store ping may take before the server counts as not ready.
pub const READINESS_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one ping's answer serves later probes.
pub const FRESH_FOR: Duration = Duration::from_secs(1);

/// Why the server is not ready: the `reason` of the 503 body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unready {
    /// The task store answered the ping with an error.
    StoreUnreachable,
    /// The task store did not answer the ping within [`READINESS_TIMEOUT`].
    StoreTimeout,
    /// Graceful shutdown has begun.
    ShuttingDown,
}

impl Unready {
    /// The reason as the body says it.
    pub fn reason(self) -> &'static str {
        match self {
            Unready::StoreUnreachable => "the task store is unreachable",
            Unready::StoreTimeout => "the task store did not answer in time",
            Unready::ShuttingDown => "the server is shutting down",
        }
    }
}

/// The readiness check of one server. Cheap to clone.
#[derive(Clone)]
pub struct Readiness {
    inner: Arc<Inner>,
}

struct Inner {
    store: Option<Arc<dyn TaskStore>>,
    shutdown: CancellationToken,
    /// The last ping's time and answer; its lock also makes concurrent probes share one ping.
    last: tokio::sync::Mutex<Option<(Instant, Result<(), Unready>)>>,
}

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Readiness").field("has_store", &self.inner.store.is_some()).finish_non_exhaustive()
    }
}

impl Readiness {
    /// Ready while `store` (if any: a server given its own `A2aService` has none to check)
    /// answers its ping and `shutdown` is not cancelled.
    pub fn new(store: Option<Arc<dyn TaskStore>>, shutdown: CancellationToken) -> Self {
        Readiness { inner: Arc::new(Inner { store, shutdown, last: tokio::sync::Mutex::new(None) }) }
    }

    /// Whether the server can serve now.
    pub async fn check(&self) -> Result<(), Unready> {
        if self.inner.shutdown.is_cancelled() {
            return Err(Unready::ShuttingDown);
        }
        let Some(store) = &self.inner.store else { return Ok(()) };
        let mut last = self.inner.last.lock().await;
        if let Some((at, answer)) = *last {
            if at.elapsed() < FRESH_FOR {
                return answer;
            }
        }
        let answer = match tokio::time::timeout(READINESS_TIMEOUT, store.ping()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => {
                tracing::warn!(%error, "readiness: the task store is unreachable");
                Err(Unready::StoreUnreachable)
            }
            Err(_) => {
                tracing::warn!(timeout = ?READINESS_TIMEOUT, "readiness: the task store did not answer the ping");
                Err(Unready::StoreTimeout)
            }
        };
        *last = Some((Instant::now(), answer));
        answer
    }
}

/// `GET /healthz` and `GET /readyz` (HEAD too).
pub fn router(readiness: Readiness) -> Router {
    Router::new()
        .route(HEALTH_PATH, get(|| async { json(StatusCode::OK, r#"{"status":"ok"}"#.to_owned()) }))
        .route(
            READY_PATH,
            get(move || {
                let readiness = readiness.clone();
                async move {
                    match readiness.check().await {
                        Ok(()) => json(StatusCode::OK, r#"{"status":"ready"}"#.to_owned()),
                        Err(unready) => json(
                            StatusCode::SERVICE_UNAVAILABLE,
                            serde_json::json!({ "status": "unavailable", "reason": unready.reason() })
                                .to_string(),
                        ),
                    }
                }
            }),
        )
}

fn json(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            // A probe's answer is about this moment: never from a cache.
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        body,
    )
        .into_response()
}

/// Whether `path` (a JSON-RPC path, normalized) would take a probe's place.
pub(crate) fn is_probe_path(path: &str) -> bool {
    let path = path.trim_end_matches('/');
    path == HEALTH_PATH || path == READY_PATH
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use a2a_core::store::{Scope, StoredTask, TaskMutation, TaskPage, TaskQuery, TaskView};
    use a2a_core::{Error, Result};
    use a2a_proto::v1::Task;

    /// A store whose ping fails, hangs or succeeds on demand, counting pings.
    #[derive(Default)]
    struct Flaky {
        down: AtomicBool,
        hang: AtomicBool,
        pings: AtomicUsize,
    }

    #[async_trait::async_trait]
    impl TaskStore for Flaky {
        async fn create(&self, _: &Scope, _: &Task) -> Result<()> {
            unreachable!()
        }
        async fn apply(&self, _: &str, _: TaskMutation<'_>) -> Result<u64> {
            unreachable!()
        }
        async fn get(&self, _: &Scope, _: &str, _: TaskView) -> Result<Option<StoredTask>> {
            unreachable!()
        }
        async fn list(&self, _: &Scope, _: &TaskQuery) -> Result<TaskPage> {
            unreachable!()
        }
        async fn running(&self) -> Result<Vec<(Scope, String)>> {
            unreachable!()
        }
        async fn ping(&self) -> Result<()> {
            self.pings.fetch_add(1, Ordering::SeqCst);
            if self.hang.load(Ordering::SeqCst) {
                std::future::pending::<()>().await;
            }
            if self.down.load(Ordering::SeqCst) {
                return Err(Error::internal("no connection"));
            }
            Ok(())
        }
    }

    #[tokio::test(start_paused = true)]
    async fn readiness_follows_the_store_at_most_one_ping_per_second() {
        let store = Arc::new(Flaky::default());
        let shutdown = CancellationToken::new();
        let readiness = Readiness::new(Some(store.clone()), shutdown.clone());
        assert_eq!(readiness.check().await, Ok(()));
        store.down.store(true, Ordering::SeqCst);
        assert_eq!(readiness.check().await, Ok(()), "a fresh answer is reused");
        assert_eq!(store.pings.load(Ordering::SeqCst), 1);
        tokio::time::advance(FRESH_FOR).await;
        assert_eq!(readiness.check().await, Err(Unready::StoreUnreachable));
        store.down.store(false, Ordering::SeqCst);
        store.hang.store(true, Ordering::SeqCst);
        tokio::time::advance(FRESH_FOR).await;
        // A hung store: the probe answers when the timeout fires, not never.
        assert_eq!(readiness.check().await, Err(Unready::StoreTimeout));
        store.hang.store(false, Ordering::SeqCst);
        tokio::time::advance(FRESH_FOR).await;
        assert_eq!(readiness.check().await, Ok(()));
        shutdown.cancel();
        assert_eq!(readiness.check().await, Err(Unready::ShuttingDown));
    }

    #[tokio::test]
    async fn without_a_store_the_server_is_ready() {
        assert_eq!(Readiness::new(None, CancellationToken::new()).check().await, Ok(()));
    }

    #[test]
    fn probe_paths_are_recognised_with_or_without_a_trailing_slash() {
        assert!(is_probe_path("/healthz") && is_probe_path("/readyz/"));
        assert!(!is_probe_path("/") && !is_probe_path("/jsonrpc") && !is_probe_path("/healthz/x"));
    }
}
