//! The push outbox: every notification waits here until it is delivered or given up.
//!
//! A notification is a row of its own (one per event and config), written by the task store in
//! the same atomic step as the task change that caused it when the store keeps an outbox
//! ([`TaskStore::outbox`](crate::store::TaskStore::outbox): the SQL stores), so a crash between the
//! two cannot lose it, and a restarted server delivers what its previous run had not. A store
//! without one (memory, a user's) gets [`MemoryOutbox`]: the notifications live in the
//! process, like that store's tasks.
//!
//! Delivery ([`PushDispatcher`](super::PushDispatcher)'s pump) *claims* notifications: it takes
//! a lease on them for its replica, so with several replicas on one database each notification
//! is sent by one of them. Only the oldest pending notification of each (task, config) can be
//! claimed, and only when it is due and not leased: notification n+1 of a config is never sent
//! before n is delivered or given up, whichever replica sends them. A failed attempt that will be
//! retried releases its lease with the time of the next attempt (so a retry survives a restart);
//! a delivered or given-up one is removed. A replica that dies holding leases delays those
//! configs until the leases expire; a single server releases its own at startup
//! ([`PushOutbox::release`]).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::PushPayload;
use crate::error::Result;
use crate::store::StoredPushConfig;
use crate::trace::TraceContext;

/// One notification to store: the config as it was when the event happened (a config replaced
/// later keeps its pending notifications as they were) and the body.
#[derive(Debug, Clone)]
pub struct Notification {
    /// The task.
    pub task_id: String,
    /// The config, with the version it was registered with.
    pub config: StoredPushConfig,
    /// The body. `None` only when the notification is stored with a task change (0.3, whose
    /// body is the whole task): the task as the change leaves it, which the store reads in the
    /// same atomic step (see [`TaskStore::apply_all`](crate::store::TaskStore::apply_all)).
    pub payload: Option<PushPayload>,
    /// The trace the event belongs to ([`crate::trace`]): sent with the notification, so the
    /// webhook's request continues the trace of the call that caused the event.
    pub trace: Option<TraceContext>,
}

/// A notification claimed for delivery.
#[derive(Debug, Clone)]
pub struct Claimed {
    /// The outbox's id of the notification: its order among the notifications of its config.
    pub id: u64,
    /// The task.
    pub task_id: String,
    /// The config as it was when the event happened.
    pub config: StoredPushConfig,
    /// The body.
    pub payload: PushPayload,
    /// Attempts made so far (0 for a notification never tried).
    pub attempts: u32,
    /// When the first attempt started (milliseconds since the epoch; `None` before it).
    pub first_attempt_ms: Option<i64>,
    /// The trace the event belongs to.
    pub trace: Option<TraceContext>,
}

/// Where notifications wait (see the [module docs](self)). Times are milliseconds since the
/// epoch, as the caller's clock reads them; every replica's clock should agree within a lease.
#[async_trait]
pub trait PushOutbox: Send + Sync + 'static {
    /// Stores notifications, each due at once. Their payloads are all `Some`.
    async fn enqueue(&self, notifications: Vec<Notification>) -> Result<()>;

    /// Leases to `owner` until `now_ms + lease` at most `limit` notifications, each the oldest
    /// pending one of its (task, config), due (`next attempt <= now_ms`) and not leased (or its
    /// lease expired). Oldest due first.
    async fn claim(&self, owner: &str, now_ms: i64, lease: Duration, limit: usize) -> Result<Vec<Claimed>>;

    /// Removes a notification: delivered, or given up.
    async fn remove(&self, id: u64) -> Result<()>;

    /// Records a failed attempt: `attempts` so far, the first one's time, and when the next may
    /// start. Releases the lease.
    async fn retry_at(&self, id: u64, attempts: u32, first_attempt_ms: i64, next_ms: i64) -> Result<()>;

    /// Removes every pending notification of a config (it was deleted, spec 3.1.10); returns how
    /// many.
    async fn discard(&self, task_id: &str, config_id: &str) -> Result<u64>;

    /// Releases the leases of `owner`, or (`None`) every lease: what a single server does at
    /// startup, since the previous run that held them is gone.
    async fn release(&self, owner: Option<&str>) -> Result<()>;

    /// How many notifications are pending.
    async fn pending(&self) -> Result<u64>;
}

/// How many notifications [`MemoryOutbox`] holds before it refuses new ones (logged and counted
/// as dropped): a bound on the memory webhooks that never answer can take.
pub const MEMORY_OUTBOX_CAPACITY: usize = 100_000;

#[derive(Debug)]
struct Entry {
    id: u64,
    config: StoredPushConfig,
    payload: PushPayload,
    attempts: u32,
    first_attempt_ms: Option<i64>,
    next_ms: i64,
    lease: Option<(String, i64)>,
    trace: Option<TraceContext>,
}

/// An outbox in the process's memory, for stores that keep none: lost with the process, like
/// the tasks of an in-memory store. Holds at most [`MEMORY_OUTBOX_CAPACITY`] notifications.
/// A queue per (task, config): a claim looks at the head of each, never at what waits behind it,
/// so a webhook that stalls with a long backlog costs nothing to the others.
#[derive(Debug, Default)]
pub struct MemoryOutbox {
    inner: Mutex<MemoryInner>,
}

type Key = (String, String);

#[derive(Debug, Default)]
struct MemoryInner {
    next_id: u64,
    len: usize,
    queues: HashMap<Key, VecDeque<Entry>>,
    /// Which queue each pending id is in.
    index: HashMap<u64, Key>,
}

impl MemoryInner {
    fn entry(&mut self, id: u64) -> Option<&mut Entry> {
        let key = self.index.get(&id)?;
        self.queues.get_mut(key)?.iter_mut().find(|e| e.id == id)
    }
}

impl MemoryOutbox {
    /// An empty outbox.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, MemoryInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[async_trait]
impl PushOutbox for MemoryOutbox {
    async fn enqueue(&self, notifications: Vec<Notification>) -> Result<()> {
        let mut inner = self.lock();
        if inner.len + notifications.len() > MEMORY_OUTBOX_CAPACITY {
            return Err(crate::Error::internal(format!(
                "the in-memory push outbox is full ({MEMORY_OUTBOX_CAPACITY} notifications pending)"
            )));
        }
        if notifications.iter().any(|n| n.payload.is_none()) {
            return Err(crate::Error::internal("a notification without a body reached the outbox"));
        }
        for notification in notifications {
            let Some(payload) = notification.payload else { continue };
            inner.next_id += 1;
            inner.len += 1;
            let id = inner.next_id;
            let key = (notification.task_id, notification.config.config.id.clone());
            inner.index.insert(id, key.clone());
            inner.queues.entry(key).or_default().push_back(Entry {
                id,
                config: notification.config,
                payload,
                attempts: 0,
                first_attempt_ms: None,
                next_ms: i64::MIN,
                lease: None,
                trace: notification.trace,
            });
        }
        Ok(())
    }

    async fn claim(&self, owner: &str, now_ms: i64, lease: Duration, limit: usize) -> Result<Vec<Claimed>> {
        let mut inner = self.lock();
        let mut due: Vec<(i64, u64, &Key)> = Vec::new();
        for (key, queue) in &inner.queues {
            let Some(head) = queue.front() else { continue };
            let leased = head.lease.as_ref().is_some_and(|(_, until)| *until > now_ms);
            if head.next_ms <= now_ms && !leased {
                due.push((head.next_ms, head.id, key));
            }
        }
        due.sort_unstable_by_key(|&(next, id, _)| (next, id));
        due.truncate(limit);
        let due: Vec<(u64, Key)> = due.into_iter().map(|(_, id, key)| (id, key.clone())).collect();
        let until = now_ms.saturating_add(lease.as_millis().try_into().unwrap_or(i64::MAX));
        let mut claimed = Vec::with_capacity(due.len());
        for (id, key) in due {
            let head = inner.queues.get_mut(&key).and_then(VecDeque::front_mut).expect("a due head exists");
            head.lease = Some((owner.to_owned(), until));
            claimed.push(Claimed {
                id,
                task_id: key.0,
                config: head.config.clone(),
                payload: head.payload.clone(),
                attempts: head.attempts,
                first_attempt_ms: head.first_attempt_ms,
                trace: head.trace.clone(),
            });
        }
        Ok(claimed)
    }

    async fn remove(&self, id: u64) -> Result<()> {
        let mut inner = self.lock();
        let Some(key) = inner.index.remove(&id) else { return Ok(()) };
        if let Some(queue) = inner.queues.get_mut(&key) {
            // The head, nearly always: removed without looking at the backlog.
            if queue.front().is_some_and(|head| head.id == id) {
                queue.pop_front();
            } else {
                queue.retain(|e| e.id != id);
            }
            if queue.is_empty() {
                inner.queues.remove(&key);
            }
        }
        inner.len -= 1;
        Ok(())
    }

    async fn retry_at(&self, id: u64, attempts: u32, first_attempt_ms: i64, next_ms: i64) -> Result<()> {
        if let Some(entry) = self.lock().entry(id) {
            entry.attempts = attempts;
            entry.first_attempt_ms = Some(first_attempt_ms);
            entry.next_ms = next_ms;
            entry.lease = None;
        }
        Ok(())
    }

    async fn discard(&self, task_id: &str, config_id: &str) -> Result<u64> {
        let mut inner = self.lock();
        let Some(queue) = inner.queues.remove(&(task_id.to_owned(), config_id.to_owned())) else {
            return Ok(0);
        };
        for entry in &queue {
            inner.index.remove(&entry.id);
        }
        inner.len -= queue.len();
        Ok(queue.len() as u64)
    }

    async fn release(&self, owner: Option<&str>) -> Result<()> {
        for queue in self.lock().queues.values_mut() {
            let Some(head) = queue.front_mut() else { continue };
            if owner.is_none() || head.lease.as_ref().is_some_and(|(o, _)| Some(o.as_str()) == owner) {
                head.lease = None;
            }
        }
        Ok(())
    }

    async fn pending(&self) -> Result<u64> {
        Ok(self.lock().len as u64)
    }
}
