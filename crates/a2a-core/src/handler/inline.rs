//! The inline execution of a blocking SendMessage (spec 3.2.2 without `returnImmediately`):
//! tuned code, apart from the handler's spec logic.
//!
//! The caller waits for the task's outcome anyway, so the execution is polled once in the
//! caller's task ([`Execution::poll_inline`]): an agent that answers without waiting (an echo, a
//! lookup) runs to its end there, and the send answers from the runtime's records (the last
//! `seq`, the state, a direct reply, a failure, the task as it was written) with no task spawned,
//! no subscription and no event channel. An agent that returned at that poll but whose events
//! are still being stored (a store that writes on a thread of its own, such as SQLite) has
//! decided the outcome already: the send drives the rest of the execution (the write) to its end
//! and answers from the same records, still with no subscription. An agent that does wait is
//! driven by the send beside a subscription taken then ([`Execution::drive_while`]), until the
//! send can answer; what it has left to do after that goes on in a task of its own.
//!
//! What it buys, against the plain form (spawn the execution, subscribe, wait): 9.6% of the
//! instructions of an echo SendMessage on JSON-RPC, 10.1% on REST, 9.6% on gRPC (callgrind,
//! memory store, `docs/benchmarks.md`, eleventh pass). The one scheduler turn the inline answer
//! waits (in [`run`]) keeps replies in bursts under load (40% less server CPU per request at 64
//! connections than answering at once, seventh pass). Not subscribing while the returned agent's
//! events are stored (over SQLite, every echo send did: an event ring made and freed per task):
//! 5.8-6.7% of the instructions of an echo SendMessage over SQLite on the HTTP bindings, 1.4% on
//! gRPC; under load about 13% less server CPU per request on REST in alternating runs
//! (sixteenth pass).

use std::sync::{Arc, Weak};

use a2a_proto::v1::SendMessageResponse;

use super::{Inner, Waited};
use crate::error::Result;
use crate::execution::{ProducerGuard, StreamMode, TaskRuntime};
use crate::store::TaskView;

/// What the blocking send of `runtime`'s execution came to: its answer, or the `seq` to answer
/// at (read the task then).
pub(super) enum Blocking {
    /// The answer, as the runtime's records give it.
    Answered(SendMessageResponse),
    /// What the send waited for.
    Waited(Waited),
}

/// Runs `execution` (built, not started) for a blocking send on `runtime`, whose task stood at
/// `start_seq` before it, until the send can answer (module docs); `view` is the history asked
/// for.
pub(super) async fn run(
    runtime: &Arc<TaskRuntime>,
    start_seq: u64,
    mut execution: Execution,
    view: TaskView,
) -> Result<Blocking> {
    if execution.poll_inline() {
        // The answer waits one turn of the scheduler, as it did when the execution was a task of
        // its own: the requests that arrived meanwhile are answered in the same burst. Answered
        // at once, each reply woke its client alone (measured under wrk at 64 connections: one
        // client wake-up per request instead of one per seven, and 40% more server CPU per
        // request, docs/benchmarks.md).
        tokio::task::yield_now().await;
        return answer_from_records(runtime, view).await;
    }
    if execution.agent_returned() {
        // Only the write of what the agent published is left: nothing else this send waits for
        // can come first (spec 3.2.2: the outcome is the state the agent left the task in). The
        // writes of one commit group end together, so these replies leave in bursts as well.
        execution.drive_to_end().await;
        return answer_from_records(runtime, view).await;
    }
    let mut subscription = runtime.subscribe(StreamMode::Execution, false);
    let wait = async {
        // What the first poll published was handed out before the subscription: the runtime's
        // standing tells it (its events are skipped below).
        let standing = runtime.standing().await?;
        if let Some(reply) = standing.reply {
            return Ok(Waited::Reply(Arc::unwrap_or_clone(reply)));
        }
        subscription.skip_through(standing.seq);
        if standing.seq > start_seq && subscription.ends(standing.state) {
            return Ok(Waited::At(standing.seq));
        }
        Inner::wait(&mut subscription, false).await
    };
    execution.drive_while(wait).await.map(Blocking::Waited)
}

/// What a blocking send whose execution ended (or whose agent returned) answers, from the
/// runtime's records: the direct reply, the failure, the task as this runtime stored it, or the
/// `seq` to read it at.
async fn answer_from_records(runtime: &Arc<TaskRuntime>, view: TaskView) -> Result<Blocking> {
    let (standing, written) = runtime.standing_and_written(view).await?;
    Ok(match (standing.reply, runtime.failure(), written) {
        (Some(reply), _, _) => Blocking::Answered(Arc::unwrap_or_clone(reply).into()),
        (None, Some(error), _) => return Err(error),
        // The task this runtime just stored whole is the task the store would return.
        (None, None, Some(task)) => Blocking::Answered(task.into()),
        (None, None, None) => Blocking::Waited(Waited::At(standing.seq)),
    })
}

/// An execution built but not started: [`spawn`](Self::spawn) it, after at most one
/// [`poll_inline`](Self::poll_inline).
#[must_use = "an execution does nothing until it is spawned or polled to its end"]
pub(super) struct Execution {
    future: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
    /// The execution's producer registration, which tells whether its agent has returned (weak:
    /// the execution's own future holds it, and its end is announced when that drops it).
    producer: Weak<ProducerGuard>,
}

impl Execution {
    /// `future` runs the execution registered as `producer` (which it holds, and marks when
    /// the agent returns: [`ProducerGuard::set_agent_returned`]).
    pub(super) fn new(
        future: std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>,
        producer: Weak<ProducerGuard>,
    ) -> Self {
        Execution { future, producer }
    }

    /// Whether the agent has returned (the execution may still be storing its events).
    fn agent_returned(&self) -> bool {
        self.producer.upgrade().is_none_or(|producer| producer.agent_returned())
    }

    /// Polls the execution once, in the caller's task: an agent that answers without waiting
    /// for anything (an echo, a lookup) runs to its end here, with no task spawned for it;
    /// returns whether it did. Otherwise the caller spawns it, and that first poll in its own
    /// task registers the task's waker wherever the agent waits (this poll's waker wakes
    /// nothing).
    fn poll_inline(&mut self) -> bool {
        let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
        self.future.as_mut().poll(&mut cx).is_ready()
    }

    pub(super) fn spawn(self) {
        tokio::spawn(self.future);
    }

    /// Runs the execution to its end in the caller's task (in a task of its own if the caller
    /// is dropped half-way).
    async fn drive_to_end(self) {
        let mut driven = Driven(Some(self));
        std::future::poll_fn(|cx| {
            if let Some(execution) = driven.0.as_mut() {
                std::task::ready!(execution.future.as_mut().poll(cx));
                driven.0 = None;
            }
            std::task::Poll::Ready(())
        })
        .await;
    }

    /// Runs `wait` and, in the same task, the execution, until `wait` ends: what the execution
    /// has left to do then (or when the caller is dropped half-way, e.g. its client went away)
    /// goes on in a task of its own. A blocking send thus costs no task while the agent waits
    /// for a store write or a tool call before the answer.
    async fn drive_while<T>(self, wait: impl std::future::Future<Output = T>) -> T {
        let mut driven = Driven(Some(self));
        let mut wait = std::pin::pin!(wait);
        std::future::poll_fn(|cx| {
            if let Some(execution) = driven.0.as_mut() {
                if execution.future.as_mut().poll(cx).is_ready() {
                    driven.0 = None;
                }
            }
            wait.as_mut().poll(cx)
        })
        .await
    }
}

/// An execution driven by its caller ([`Execution::drive_while`]), spawned if the caller stops
/// before it ends.
struct Driven(Option<Execution>);

impl Drop for Driven {
    fn drop(&mut self) {
        if let Some(execution) = self.0.take() {
            // Outside a runtime (it is shutting down) the execution ends with it.
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(execution.future);
            }
        }
    }
}
