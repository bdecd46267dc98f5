//! What a client does when the network fails: [`RetryPolicy`] (retrying idempotent operations
//! with backoff) and [`Client::follow_task`] (resubscribing to a task after a dropped stream).
//!
//! Only operations that change nothing on the agent are retried
//! ([`Operation::is_read_only`](a2a_core::Operation::is_read_only): the reads of tasks, push
//! configs and the extended card). `SendMessage`, `CancelTask` and the push config writes are never
//! retried by the client: the request may have been processed before the connection failed, and
//! whether repeating it is harmless is the caller's call. Only [`Error::Transport`] (no
//! connection, a connection lost before the reply, a timeout) is retried: every error an agent
//! answers with is final.

use std::time::Duration;

use a2a_core::{A2aService, CallContext, Error, EventStream, Result};
use a2a_proto::v1::{
    stream_response::Payload, GetTaskRequest, StreamResponse, SubscribeToTaskRequest, TaskState,
};
use futures::StreamExt;

use crate::Client;

/// How many times a client tries an idempotent operation, and how long it waits in between:
/// `initial_backoff`, doubled after each attempt, at most `max_backoff`.
///
/// The default ([`RetryPolicy::default`]): 3 attempts, 100 ms then 200 ms.
/// [`RetryPolicy::none`] turns retries off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    attempts: u32,
    initial_backoff: Duration,
    max_backoff: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 3,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(2),
        }
    }
}

impl RetryPolicy {
    /// At most `attempts` tries in all (at least 1), with the default backoff.
    pub fn attempts(attempts: u32) -> Self {
        RetryPolicy { attempts: attempts.max(1), ..Self::default() }
    }

    /// One try: no retries.
    pub fn none() -> Self {
        Self::attempts(1)
    }

    /// The wait before the first retry, and the most any wait may grow to.
    #[must_use]
    pub fn with_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_backoff = initial;
        self.max_backoff = max.max(initial);
        self
    }

    /// The tries in all.
    pub fn max_attempts(&self) -> u32 {
        self.attempts
    }

    /// The wait after the failed try number `failed` (0-based).
    pub fn backoff(&self, failed: u32) -> Duration {
        let factor = 2u32.saturating_pow(failed.min(20));
        self.initial_backoff.saturating_mul(factor).min(self.max_backoff)
    }

    /// Whether `error` may go away on a retry: [`Error::Transport`] only.
    pub fn is_retryable(error: &Error) -> bool {
        matches!(error, Error::Transport { .. })
    }

    /// Runs `call` until it succeeds, fails with an error that is not retryable, or has been tried
    /// [`max_attempts`](Self::max_attempts) times.
    pub(crate) async fn run<T, F, Fut>(&self, mut call: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let mut failed = 0;
        loop {
            match call().await {
                Err(error) if Self::is_retryable(&error) && failed + 1 < self.attempts => {
                    tokio::time::sleep(self.backoff(failed)).await;
                    failed += 1;
                }
                result => return result,
            }
        }
    }
}

/// Whether a stream event leaves the task where no more events come: terminal, interrupted, or a
/// direct message.
fn is_last(event: &StreamResponse) -> bool {
    let settled = |state: TaskState| state.is_terminal() || state.is_interrupted();
    match &event.payload {
        Some(Payload::Task(task)) => settled(task.state()),
        Some(Payload::StatusUpdate(update)) => {
            settled(update.status.as_ref().map(|s| s.state()).unwrap_or_default())
        }
        Some(Payload::Message(_)) => true,
        Some(Payload::ArtifactUpdate(_)) | None => false,
    }
}

struct Follow {
    client: Client,
    ctx: CallContext,
    request: SubscribeToTaskRequest,
    stream: Option<EventStream>,
    /// Reconnections tried since the last event.
    reconnects: u32,
    last_error: Option<Error>,
    done: bool,
}

impl Client {
    /// Subscribes to a task (spec 3.1.6) and keeps following it until it is terminal or
    /// interrupted, resubscribing when the stream drops: on a transport error, or when the stream
    /// ends before such a state. Each new subscription starts with the task as it is then (the
    /// `Task` event spec 3.1.6 requires first), so what happened while disconnected is in that
    /// snapshot: no event is lost for a consumer that applies events to the task, and none is
    /// repeated (the new subscription carries only what follows the snapshot).
    ///
    /// Reconnections follow the [retry policy](crate::ClientBuilder::retry): up to its attempts
    /// per drop (the count restarts with each event received), with its backoff. When the task
    /// ended while disconnected the agent refuses the subscription; the task is then read with
    /// `GetTask` and delivered as the last event.
    ///
    /// # Errors
    /// The first subscription's error as it is; later, the stream's last item is the error that
    /// ended it (reconnections exhausted, or an error that is not retryable).
    pub async fn follow_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        let first = self.subscribe_to_task(ctx, request.clone()).await?;
        let state = Follow {
            client: self.clone(),
            ctx: ctx.clone(),
            request,
            stream: Some(first),
            reconnects: 0,
            last_error: None,
            done: false,
        };
        Ok(futures::stream::unfold(state, |mut s| async move {
            loop {
                if s.done {
                    return None;
                }
                let Some(stream) = s.stream.as_mut() else {
                    let policy = s.client.retry;
                    if s.reconnects >= policy.max_attempts() {
                        s.done = true;
                        let error = s.last_error.take().unwrap_or_else(|| Error::Transport {
                            reason: "the task's stream dropped and could not be resumed".into(),
                        });
                        return Some((Err(error), s));
                    }
                    tokio::time::sleep(policy.backoff(s.reconnects)).await;
                    s.reconnects += 1;
                    match s.client.subscribe_to_task(&s.ctx, s.request.clone()).await {
                        Ok(stream) => s.stream = Some(stream),
                        Err(error) if RetryPolicy::is_retryable(&error) => s.last_error = Some(error),
                        Err(refused) => {
                            // Most likely the task ended while we were away: its final state.
                            s.done = true;
                            let get = GetTaskRequest {
                                tenant: s.request.tenant.clone(),
                                id: s.request.id.clone(),
                                ..Default::default()
                            };
                            return Some(match s.client.get_task(&s.ctx, get).await {
                                Ok(task) if is_last(&StreamResponse::from(task.clone())) => {
                                    (Ok(StreamResponse::from(task)), s)
                                }
                                _ => (Err(refused), s),
                            });
                        }
                    }
                    continue;
                };
                match stream.next().await {
                    Some(Ok(event)) => {
                        s.reconnects = 0;
                        s.done = is_last(&event);
                        return Some((Ok(event), s));
                    }
                    Some(Err(error)) if RetryPolicy::is_retryable(&error) => {
                        s.stream = None;
                        s.last_error = Some(error);
                    }
                    Some(Err(error)) => {
                        s.done = true;
                        return Some((Err(error), s));
                    }
                    None => {
                        s.stream = None;
                        s.last_error = Some(Error::Transport {
                            reason: "the task's stream ended before a terminal or interrupted state".into(),
                        });
                    }
                }
            }
        })
        .boxed())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let policy =
            RetryPolicy::attempts(5).with_backoff(Duration::from_millis(100), Duration::from_millis(350));
        let waits: Vec<_> = (0..4).map(|n| policy.backoff(n).as_millis()).collect();
        assert_eq!(waits, [100, 200, 350, 350]);
        assert_eq!(RetryPolicy::none().max_attempts(), 1);
        assert_eq!(RetryPolicy::attempts(0).max_attempts(), 1);
        assert!(RetryPolicy::is_retryable(&Error::Transport { reason: "x".into() }));
        assert!(!RetryPolicy::is_retryable(&Error::TaskNotFound { task_id: "t".into() }));
    }

    #[tokio::test]
    async fn only_transport_errors_are_retried_and_only_so_often() {
        let policy =
            RetryPolicy::attempts(3).with_backoff(Duration::from_millis(1), Duration::from_millis(1));
        let mut tries = 0;
        let result: Result<()> = policy
            .run(|| {
                tries += 1;
                async { Err(Error::Transport { reason: "down".into() }) }
            })
            .await;
        assert!(result.is_err());
        assert_eq!(tries, 3);
        let mut tries = 0;
        let _ = policy
            .run(|| {
                tries += 1;
                async { Err::<(), _>(Error::TaskNotFound { task_id: "t".into() }) }
            })
            .await;
        assert_eq!(tries, 1, "an agent's answer is final");
    }
}
