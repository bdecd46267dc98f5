//! Push notification delivery (spec 4.3.3, 13.2): every event of a task is POSTed, as a
//! `StreamResponse`, to each of the task's push configs, in order per config.
//!
//! Core owns what is sent and in which order; the HTTP request itself goes through a
//! [`PushTransport`] (the reference server provides one over HTTP that checks every resolved
//! address against the [`DestinationPolicy`]). Each config has one worker draining an ordered
//! queue, so a slow webhook delays only its own notifications, never the agent or other
//! webhooks. Each attempt has a timeout. A failed delivery is logged and not retried: retries with
//! backoff and durable queues plug in at [`PushTransport`] (or by replacing the worker loop in
//! [`PushDispatcher`]) without touching the handler.

pub mod destination;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::v1::{StreamResponse, TaskPushNotificationConfig};
use async_trait::async_trait;
use bytes::Bytes;
use tokio::sync::mpsc;

pub use destination::{DestinationPolicy, IpNet};

use crate::store::PushConfigStore;

/// The header carrying a config's `token` (spec 6.6's example spelling; INTEROP-NOTES: some peers
/// spell it `A2A-Notification-Token`, receivers should accept both).
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// How many notifications may wait per config before new ones are dropped (and logged).
pub const QUEUE_CAPACITY: usize = 1024;

/// One HTTP POST of a notification.
#[derive(Debug, Clone)]
pub struct PushRequest {
    /// The webhook URL (already checked with [`DestinationPolicy::check_url`]).
    pub url: String,
    /// Headers: `Content-Type`, `Authorization` from the config's AuthenticationInfo, the token.
    pub headers: Vec<(String, String)>,
    /// The ProtoJSON `StreamResponse`.
    pub body: Bytes,
    /// Give up after this long.
    pub timeout: Duration,
}

/// Sends one notification. Implementations must check every address they connect to with the
/// dispatcher's [`DestinationPolicy`] (the URL check alone cannot see DNS answers).
#[async_trait]
pub trait PushTransport: Send + Sync + 'static {
    /// POSTs `request`; `Err` with a reason when it failed or the receiver answered non-2xx.
    async fn send(&self, request: PushRequest) -> Result<(), String>;
}

/// Fans a task's events out to its webhooks. Shared by all tasks of a handler.
pub struct PushDispatcher {
    transport: Arc<dyn PushTransport>,
    store: Arc<dyn PushConfigStore>,
    policy: DestinationPolicy,
    timeout: Duration,
    workers: Mutex<HashMap<(String, String), mpsc::Sender<Bytes>>>,
}

impl std::fmt::Debug for PushDispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushDispatcher")
            .field("policy", &self.policy)
            .field("timeout", &self.timeout)
            .finish()
    }
}

impl PushDispatcher {
    /// A dispatcher sending through `transport` to the configs in `store`.
    pub fn new(
        transport: Arc<dyn PushTransport>,
        store: Arc<dyn PushConfigStore>,
        policy: DestinationPolicy,
        timeout: Duration,
    ) -> Self {
        PushDispatcher { transport, store, policy, timeout, workers: Mutex::new(HashMap::new()) }
    }

    /// The destination policy in force.
    pub fn policy(&self) -> &DestinationPolicy {
        &self.policy
    }

    /// Queues `event` for every config of `task_id`. Never waits for a webhook.
    pub async fn dispatch(&self, task_id: &str, event: &StreamResponse) {
        let configs = match self.store.list(task_id).await {
            Ok(configs) => configs,
            Err(error) => {
                tracing::warn!(task_id, %error, "push: cannot read push configs");
                return;
            }
        };
        if configs.is_empty() {
            return;
        }
        let body = match serde_json::to_vec(event) {
            Ok(body) => Bytes::from(body),
            Err(error) => {
                tracing::error!(task_id, %error, "push: cannot serialize event");
                return;
            }
        };
        let mut workers = self.workers.lock().expect("push workers lock");
        for config in configs {
            let key = (task_id.to_owned(), config.id.clone());
            let sender = workers.entry(key).or_insert_with(|| self.spawn_worker(config.clone()));
            if let Err(mpsc::error::TrySendError::Full(_)) = sender.try_send(body.clone()) {
                tracing::warn!(task_id, config_id = %config.id, "push: queue full, notification dropped");
            }
        }
    }

    /// The task reached a terminal state: its workers finish what is queued, then stop.
    pub fn finish_task(&self, task_id: &str) {
        self.workers.lock().expect("push workers lock").retain(|(task, _), _| task != task_id);
    }

    /// A config was deleted: stop its worker after what is already queued (spec 3.1.10).
    pub fn forget_config(&self, task_id: &str, config_id: &str) {
        self.workers.lock().expect("push workers lock").remove(&(task_id.to_owned(), config_id.to_owned()));
    }

    fn spawn_worker(&self, config: TaskPushNotificationConfig) -> mpsc::Sender<Bytes> {
        let (tx, mut rx) = mpsc::channel::<Bytes>(QUEUE_CAPACITY);
        let transport = Arc::clone(&self.transport);
        let policy = self.policy.clone();
        let timeout = self.timeout;
        let headers = headers_for(&config);
        tokio::spawn(async move {
            while let Some(body) = rx.recv().await {
                if let Err(reason) = policy.check_url(&config.url) {
                    tracing::warn!(config_id = %config.id, url = %config.url, %reason, "push: destination refused");
                    continue;
                }
                let request =
                    PushRequest { url: config.url.clone(), headers: headers.clone(), body, timeout };
                let outcome = tokio::time::timeout(timeout, transport.send(request)).await;
                match outcome {
                    Ok(Ok(())) => {}
                    Ok(Err(reason)) => {
                        tracing::warn!(config_id = %config.id, url = %config.url, %reason, "push: delivery failed")
                    }
                    Err(_) => {
                        tracing::warn!(config_id = %config.id, url = %config.url, "push: delivery timed out")
                    }
                }
            }
        });
        tx
    }
}

/// The headers of every notification to `config` (spec 4.3.3, 13.2).
pub fn headers_for(config: &TaskPushNotificationConfig) -> Vec<(String, String)> {
    let mut headers = vec![("Content-Type".to_owned(), "application/a2a+json".to_owned())];
    if let Some(auth) = &config.authentication {
        if !auth.scheme.is_empty() {
            let value = if auth.credentials.is_empty() {
                auth.scheme.clone()
            } else {
                format!("{} {}", auth.scheme, auth.credentials)
            };
            headers.push(("Authorization".to_owned(), value));
        }
    }
    if !config.token.is_empty() {
        headers.push((TOKEN_HEADER.to_owned(), config.token.clone()));
    }
    headers
}
