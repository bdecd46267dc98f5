//! Push notification delivery (spec 4.3.3, 13.2): every event of a task is POSTed to each of the
//! task's push configs, in order per config, in the format of the protocol version the config was
//! registered with ([`StoredPushConfig::version`]):
//!
//! | registered over | body ([`PushPayload`]) | headers ([`headers_for`]) |
//! | --- | --- | --- |
//! | 1.0 | the event, a ProtoJSON `StreamResponse` (spec 4.3.3) | `Content-Type: application/a2a+json`, `Authorization: {scheme} {credentials}`, [`TOKEN_HEADER`] |
//! | 0.3 | the `Task` after the event, 0.3 JSON (0.3 spec 9.5) | `Content-Type: application/json`, `Authorization` when there are credentials, [`TOKEN_HEADER`] |
//!
//! Core owns what is sent and in which order; the HTTP request itself goes through a
//! [`PushTransport`] (the reference server provides one over HTTP that checks every resolved
//! address against the [`DestinationPolicy`] and writes the 0.3 body, which core cannot: the 0.3
//! JSON lives in `a2a-v03`, above core). Each config has one worker draining an ordered queue, so
//! a slow webhook delays only its own notifications, never the agent or other webhooks. Each
//! attempt has a timeout. A failed delivery is logged and not retried: retries with backoff and
//! durable queues plug in at [`PushTransport`] (or by replacing the worker loop in
//! [`PushDispatcher`]) without touching the handler.

pub mod destination;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::v1::{stream_response::Payload, StreamResponse, Task, TaskPushNotificationConfig};
use async_trait::async_trait;
use bytes::Bytes;
use tokio::sync::mpsc;

pub use destination::{DestinationPolicy, IpNet};

use crate::context::ProtocolVersion;
use crate::error::Result;
use crate::store::{PushConfigStore, StoredPushConfig};

/// The header carrying a config's `token`, in both versions. 0.3 defines it (0.3 spec 9.5); 1.0
/// names no header for the token (spec 4.3.3 only requires the `Authorization` of
/// AuthenticationInfo), and the 1.x SDKs (Python, JS) keep sending this one (INTEROP-NOTES: a2a-rs
/// spells it `A2A-Notification-Token`; receivers should accept both).
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";
/// How many notifications may wait per config before new ones are dropped (and logged).
pub const QUEUE_CAPACITY: usize = 1024;

/// The body of one notification, in the format of the version its config was registered with.
#[derive(Debug, Clone)]
pub enum PushPayload {
    /// A2A 1.0 (spec 4.3.3): the event, as the ProtoJSON `StreamResponse`. Encoded once per event
    /// and shared by every 1.0 config of the task.
    StreamResponse(Bytes),
    /// A2A 0.3 (0.3 spec 9.5, "Task object is sent as JSON payload"): the task as it is after the
    /// event, shared by every 0.3 config of the task. The transport writes it in the 0.3 JSON form
    /// (`a2a_v03::V03::to_v03(&*task, a2a_v03::Form::Json)`, with `kind: "task"` and lower-kebab
    /// states): core cannot, since the 0.3 JSON lives in `a2a-v03`, which depends on core.
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

/// One HTTP POST of a notification.
#[derive(Debug, Clone)]
pub struct PushRequest {
    /// The webhook URL (already checked with [`DestinationPolicy::check_url`]).
    pub url: String,
    /// Headers: `Content-Type`, `Authorization` from the config's AuthenticationInfo, the token
    /// ([`headers_for`]).
    pub headers: Vec<(String, String)>,
    /// The body, which the transport encodes if it is not already bytes.
    pub payload: PushPayload,
    /// Give up after this long.
    pub timeout: Duration,
}

/// Sends one notification. Implementations must check every address they connect to with the
/// dispatcher's [`DestinationPolicy`] (the URL check alone cannot see DNS answers), and write the
/// body of every [`PushPayload`] variant.
#[async_trait]
pub trait PushTransport: Send + Sync + 'static {
    /// POSTs `request`; `Err` with a reason when it failed or the receiver answered non-2xx.
    async fn send(&self, request: PushRequest) -> std::result::Result<(), String>;
}

/// One queued notification: the config as it was when the event was dispatched (so a config
/// replaced under the same id is used from its next event on), and the body.
struct Queued {
    config: StoredPushConfig,
    payload: PushPayload,
}

/// Fans a task's events out to its webhooks. Shared by all tasks of a handler.
pub struct PushDispatcher {
    transport: Arc<dyn PushTransport>,
    store: Arc<dyn PushConfigStore>,
    policy: DestinationPolicy,
    timeout: Duration,
    workers: Mutex<HashMap<(String, String), mpsc::Sender<Queued>>>,
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

    /// Queues `event` for every config of `task_id`, each in its version's format. Never waits
    /// for a webhook.
    ///
    /// `task_after` reads the task as it is after `event` (the caller has stored the event). It is
    /// called only when a 0.3 config needs the task and the event is not the task itself, so 1.0
    /// configs cost no copy of the task.
    pub async fn dispatch<F, Fut>(&self, task_id: &str, event: &StreamResponse, task_after: F)
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Option<Task>>>,
    {
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
        let needs = |version| configs.iter().any(|c| c.version == version);
        let v1_0 = if needs(ProtocolVersion::V1_0) {
            match serde_json::to_vec(event) {
                Ok(body) => Some(PushPayload::StreamResponse(Bytes::from(body))),
                Err(error) => {
                    tracing::error!(task_id, %error, "push: cannot serialize event");
                    None
                }
            }
        } else {
            None
        };
        let v0_3 = if needs(ProtocolVersion::V0_3) {
            let task = match &event.payload {
                Some(Payload::Task(task)) => Ok(Some(task.clone())),
                _ => task_after().await,
            };
            match task {
                Ok(Some(task)) => Some(PushPayload::TaskV0_3(Arc::new(task))),
                Ok(None) => {
                    tracing::warn!(task_id, "push: the task is gone, 0.3 notification dropped");
                    None
                }
                Err(error) => {
                    tracing::warn!(task_id, %error, "push: cannot read the task, 0.3 notification dropped");
                    None
                }
            }
        } else {
            None
        };
        let mut workers = self.workers.lock().expect("push workers lock");
        for config in configs {
            let payload = match config.version {
                ProtocolVersion::V1_0 => &v1_0,
                ProtocolVersion::V0_3 => &v0_3,
            };
            let Some(payload) = payload.clone() else { continue };
            let config_id = config.config.id.clone();
            let key = (task_id.to_owned(), config_id.clone());
            let sender = workers.entry(key).or_insert_with(|| self.spawn_worker());
            if let Err(mpsc::error::TrySendError::Full(_)) = sender.try_send(Queued { config, payload }) {
                tracing::warn!(task_id, config_id, "push: queue full, notification dropped");
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

    fn spawn_worker(&self) -> mpsc::Sender<Queued> {
        let (tx, mut rx) = mpsc::channel::<Queued>(QUEUE_CAPACITY);
        let transport = Arc::clone(&self.transport);
        let policy = self.policy.clone();
        let timeout = self.timeout;
        tokio::spawn(async move {
            while let Some(Queued { config: StoredPushConfig { config, version }, payload }) = rx.recv().await
            {
                if let Err(reason) = policy.check_url(&config.url) {
                    tracing::warn!(config_id = %config.id, url = %config.url, %reason, "push: destination refused");
                    continue;
                }
                let headers = headers_for(&config, version);
                let request = PushRequest { url: config.url.clone(), headers, payload, timeout };
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
