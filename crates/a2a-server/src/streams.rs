//! Streams (SendStreamingMessage, SubscribeToTask) around any [`A2aService`], in one wrapper:
//!
//! - **Limits**: how many are open at once on the server, per client connection and per task, and
//!   how long one may stay idle or open ([`Limits`](crate::Limits)). A stream over a count is
//!   refused with [`Error::ResourceExhausted`] (JSON-RPC -32012, HTTP 429, gRPC
//!   `RESOURCE_EXHAUSTED`) before the operation runs; a stream past a timeout ends cleanly.
//! - **Graceful shutdown**: every stream ends cleanly (a normal end of stream, not an error) when
//!   shutdown begins. Without it an open SSE stream or gRPC server stream would keep the server
//!   from ever finishing its graceful shutdown.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::{A2aService, CallContext, Error, EventStream, Request, Response, Result};
use async_trait::async_trait;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::metrics::{Limit, Metrics};
use crate::Limits;

tokio::task_local! {
    /// The client connection (its peer address) of the request being served: set by the HTTP
    /// layer (`crate::limits`) around each request when the server knows it, read here to count
    /// streams per connection (an HTTP/2 connection can carry many).
    pub(crate) static CONNECTION: SocketAddr;
}

/// An [`A2aService`] whose streams are counted and timed (module docs).
pub(crate) struct StreamLimits {
    inner: Arc<dyn A2aService>,
    max_streams: usize,
    max_streams_per_connection: usize,
    max_subscribers_per_task: usize,
    idle: Option<Duration>,
    total: Option<Duration>,
    open: Arc<Mutex<Open>>,
    metrics: Metrics,
    /// Cancelled when shutdown begins: every stream ends.
    shutdown: CancellationToken,
}

/// The streams open now: all of them, those of each connection, and the subscribers of each
/// task (by tenant and id).
#[derive(Default)]
struct Open {
    streams: usize,
    connections: HashMap<SocketAddr, usize>,
    subscribers: HashMap<(String, String), usize>,
}

/// A counted stream: released when the stream is dropped (ended, or its client went away).
struct Slot {
    open: Arc<Mutex<Open>>,
    connection: Option<SocketAddr>,
    task: Option<(String, String)>,
}

/// One less in `counts[key]`, forgetting keys that reach 0.
fn release<K: std::hash::Hash + Eq>(counts: &mut HashMap<K, usize>, key: &K) {
    if let Some(count) = counts.get_mut(key) {
        *count -= 1;
        if *count == 0 {
            counts.remove(key);
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        open.streams -= 1;
        if let Some(connection) = &self.connection {
            release(&mut open.connections, connection);
        }
        if let Some(task) = &self.task {
            release(&mut open.subscribers, task);
        }
    }
}

impl StreamLimits {
    pub(crate) fn new(
        inner: Arc<dyn A2aService>,
        limits: &Limits,
        metrics: Metrics,
        shutdown: CancellationToken,
    ) -> Self {
        StreamLimits {
            inner,
            max_streams: limits.max_streams,
            max_streams_per_connection: limits.max_streams_per_connection,
            max_subscribers_per_task: limits.max_subscribers_per_task,
            idle: limits.stream_idle_timeout,
            total: limits.stream_max_duration,
            open: Arc::default(),
            metrics,
            shutdown,
        }
    }

    /// A slot for one more stream (a subscriber of `task`, if given), or the limit it is over.
    fn acquire(&self, task: Option<(String, String)>) -> Result<Slot> {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.streams >= self.max_streams {
            self.metrics.refused(Limit::MaxStreams);
            return Err(Error::ResourceExhausted {
                reason: format!(
                    "{} streams are open, the most this server allows (max_streams); retry later",
                    open.streams
                ),
                retry_after_secs: None,
            });
        }
        let connection = CONNECTION.try_with(|connection| *connection).ok();
        if let Some(connection) = &connection {
            let streams = open.connections.get(connection).copied().unwrap_or(0);
            if streams >= self.max_streams_per_connection {
                self.metrics.refused(Limit::MaxStreamsPerConnection);
                return Err(Error::ResourceExhausted {
                    reason: format!(
                        "this connection has {streams} streams open, the most this server allows per \
                         connection (max_streams_per_connection); open another connection or wait"
                    ),
                    retry_after_secs: None,
                });
            }
        }
        if let Some(key) = &task {
            let subscribers = open.subscribers.get(key).copied().unwrap_or(0);
            if subscribers >= self.max_subscribers_per_task {
                self.metrics.refused(Limit::MaxSubscribersPerTask);
                return Err(Error::ResourceExhausted {
                    reason: format!(
                        "task {} has {subscribers} subscribers, the most this server allows per task \
                         (max_subscribers_per_task)",
                        key.1
                    ),
                    retry_after_secs: None,
                });
            }
            *open.subscribers.entry(key.clone()).or_insert(0) += 1;
        }
        if let Some(connection) = connection {
            *open.connections.entry(connection).or_insert(0) += 1;
        }
        open.streams += 1;
        Ok(Slot { open: Arc::clone(&self.open), connection, task })
    }

    /// `stream`, holding `slot` while it lasts and ending at the idle or total timeout or when
    /// shutdown begins.
    fn bound(&self, stream: EventStream, slot: Slot) -> EventStream {
        let (idle, deadline) = (self.idle, self.total.map(|total| tokio::time::Instant::now() + total));
        let shutdown = self.shutdown.clone().cancelled_owned();
        futures::stream::unfold((stream, slot), move |(mut stream, slot)| async move {
            let next = async {
                match idle {
                    Some(idle) => tokio::time::timeout(idle, stream.next()).await.ok().flatten(),
                    None => stream.next().await,
                }
            };
            let item = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, next).await.ok().flatten(),
                None => next.await,
            };
            item.map(|item| (item, (stream, slot)))
        })
        .take_until(shutdown)
        .boxed()
    }
}

/// Only the two streaming operations are counted and bounded; every other call passes through.
#[async_trait]
impl A2aService for StreamLimits {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        let slot = match &request {
            Request::SendStreamingMessage(_) => self.acquire(None)?,
            Request::SubscribeToTask(subscribe) => {
                self.acquire(Some((subscribe.tenant.clone(), subscribe.id.clone())))?
            }
            _ => return self.inner.call(ctx, request).await,
        };
        match self.inner.call(ctx, request).await? {
            Response::Stream(events) => Ok(Response::Stream(self.bound(events, slot))),
            other => Ok(other),
        }
    }
}
