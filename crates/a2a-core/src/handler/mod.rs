//! [`DefaultRequestHandler`]: the spec's semantics (section 3) on top of an [`AgentExecutor`],
//! serving every binding through [`A2aService`].
//!
//! Every operation starts with the same admission checks, in this order: authentication when the
//! card declares security requirements (13.1), the protocol version (spec 3.6.2), required
//! extensions (3.3.4), then the capability the operation needs (3.3.4).
//! Then it validates its request (5.7), scopes every task access to the caller (13.1), and runs.

mod agents;
mod inline;
mod limits;
mod validate;

pub use agents::{validate_tenant_name, CardFinisher, ExtendedCardFn, TenantAgent};
pub use limits::ContentLimits;

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig, TaskState,
    TaskStatus,
};
use async_trait::async_trait;
use futures::{FutureExt, StreamExt};

use crate::cluster::{Cluster, Note, Orphan};
use crate::context::{CallContext, Principal, ProtocolVersion};
use crate::error::{Error, Result};
use crate::execution::{Backends, Registry, Step, StreamMode, Subscription, TaskRuntime};
use crate::executor::{AgentExecutor, RequestContext, TaskUpdater};
use crate::operation::{Operation, Request, Response};
use crate::push::{DestinationPolicy, PushDispatcher, PushStats, PushTransport, RetryPolicy, WriteTaskV0_3};
use crate::service::{A2aService, EventStream};
use crate::stats::{ExecutionKind, Executions};
use crate::store::memory::{InMemoryPushConfigStore, InMemoryTaskStore};
use crate::store::{PushConfigStore, Scope, StoredTask, TaskQuery, TaskStore, TaskView};
use agents::{Agents, ExtendedCard};
use inline::Execution;
use validate::Violations;

/// The server-side implementation of every operation. Cheap to clone.
#[derive(Clone)]
pub struct DefaultRequestHandler {
    inner: Arc<Inner>,
}

struct Inner {
    agents: Agents,
    finish_extended: Option<Arc<CardFinisher>>,
    tasks: Arc<dyn TaskStore>,
    push_configs: Arc<dyn PushConfigStore>,
    push: Option<Arc<PushDispatcher>>,
    cluster: Option<Arc<dyn Cluster>>,
    policy: DestinationPolicy,
    registry: Registry,
    executions: Arc<Executions>,
    versions: Vec<ProtocolVersion>,
    /// `None`: required extensions apply to every operation.
    extensions_required_for: Option<Vec<Operation>>,
    limits: ContentLimits,
}

impl std::fmt::Debug for DefaultRequestHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DefaultRequestHandler")
            .field("agent", &self.inner.agents.default.card.name)
            .field("tenants", &self.inner.agents.tenants.len())
            .finish_non_exhaustive()
    }
}

/// Builds a [`DefaultRequestHandler`]; see [`DefaultRequestHandler::builder`].
pub struct HandlerBuilder {
    agent: TenantAgent,
    tenants: std::collections::HashMap<String, TenantAgent>,
    finish_extended: Option<Arc<CardFinisher>>,
    tasks: Option<Arc<dyn TaskStore>>,
    push_configs: Option<Arc<dyn PushConfigStore>>,
    push_transport: Option<Arc<dyn PushTransport>>,
    push_v03_body: Option<WriteTaskV0_3>,
    cluster: Option<Arc<dyn Cluster>>,
    policy: DestinationPolicy,
    push_timeout: Duration,
    push_retry: RetryPolicy,
    extensions_required_for: Option<Vec<Operation>>,
    limits: ContentLimits,
}

impl std::fmt::Debug for HandlerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HandlerBuilder").field("agent", &self.agent.card.name).finish_non_exhaustive()
    }
}

impl HandlerBuilder {
    /// The extended agent card served to authenticated callers (spec 3.1.11).
    pub fn extended_agent_card(mut self, card: AgentCard) -> Self {
        self.agent.extended = Some(ExtendedCard::Static(Box::new(card)));
        self
    }

    /// The extended agent card computed per caller (spec 3.1.11: what an authenticated caller
    /// sees may differ by caller, e.g. skills only some principals may use); `None` answers
    /// `ExtendedAgentCardNotConfigured`. Callers are authenticated first when the agent declares
    /// security (spec 13.3).
    pub fn extended_agent_card_for(
        mut self,
        compute: impl Fn(Option<&Principal>) -> Option<AgentCard> + Send + Sync + 'static,
    ) -> Self {
        self.agent.extended = Some(ExtendedCard::PerCaller(Arc::new(compute)));
        self
    }

    /// Applies `finish` to every extended card before it is returned, of every agent (e.g. to
    /// sign it, spec 8.4). An error is an internal error of the call.
    pub fn finish_extended_cards(self, finish: Arc<CardFinisher>) -> Self {
        Self { finish_extended: Some(finish), ..self }
    }

    /// Serves another agent at `tenant` (spec 4.4.1 `AgentInterface.tenant`): requests whose
    /// `tenant` field names it are that agent's, admitted against its card (security,
    /// capabilities, modes), executed by its executor, and see only its tasks. Requests with no
    /// tenant are the default agent's. Once any tenant agent is configured, a request naming
    /// another tenant is refused (`InvalidParams`); without one, every tenant is a partition of
    /// the default agent's tasks. Every agent shares this handler's stores, push delivery and
    /// cluster. [`build`](Self::build) fails on a name that is not one URL path segment
    /// ([`validate_tenant_name`]).
    pub fn tenant(mut self, tenant: impl Into<String>, agent: TenantAgent) -> Self {
        self.tenants.insert(tenant.into(), agent);
        self
    }

    /// Where tasks are stored (default: in memory).
    pub fn task_store(self, store: Arc<dyn TaskStore>) -> Self {
        Self { tasks: Some(store), ..self }
    }

    /// Where push configs are stored (default: in memory).
    pub fn push_config_store(self, store: Arc<dyn PushConfigStore>) -> Self {
        Self { push_configs: Some(store), ..self }
    }

    /// How notifications are sent. Required when the card declares `pushNotifications`.
    pub fn push_transport(self, transport: Arc<dyn PushTransport>) -> Self {
        Self { push_transport: Some(transport), ..self }
    }

    /// How the bodies of notifications to configs registered over A2A 0.3 are written (the task
    /// as 0.3 JSON, which core cannot write: [`crate::push`]). Without it such notifications are
    /// given up.
    pub fn push_v03_body(self, write: WriteTaskV0_3) -> Self {
        Self { push_v03_body: Some(write), ..self }
    }

    /// Makes this handler one replica of several sharing the task store ([`crate::cluster`]):
    /// subscribers here get the events other replicas publish, CancelTask reaches the replica
    /// executing the task, and the running tasks of a replica that dies are resolved by
    /// [`AgentExecutor::recover`] on another one. [`DefaultRequestHandler::recover`] starts the
    /// heartbeat that does this; [`build`](Self::build) must then run inside a Tokio runtime.
    pub fn cluster(self, cluster: Arc<dyn Cluster>) -> Self {
        Self { cluster: Some(cluster), ..self }
    }

    /// Which webhook destinations are allowed (default: public addresses only, spec 13.2).
    pub fn push_destination_policy(self, policy: DestinationPolicy) -> Self {
        Self { policy, ..self }
    }

    /// How failed webhook deliveries are retried (default [`RetryPolicy::default`]: 8 attempts
    /// within 10 minutes, backoff from 1 s to 60 s).
    pub fn push_retry_policy(self, retry: RetryPolicy) -> Self {
        Self { push_retry: retry, ..self }
    }

    /// The timeout of each webhook request (default 10 s, spec 4.3.3 recommends 10-30 s).
    pub fn push_timeout(self, timeout: Duration) -> Self {
        Self { push_timeout: timeout, ..self }
    }

    /// Enforces the card's required extensions only for these operations (default: every one).
    ///
    /// A required extension is checked before anything else the operation does, the task lookup
    /// included: a client that omits it gets `ExtensionSupportRequired` from every operation. An
    /// agent whose extension concerns only what it is sent (say, SendMessage and
    /// SendStreamingMessage) lists those here, so plain clients can still read, list and cancel.
    pub fn extensions_required_for(self, operations: impl IntoIterator<Item = Operation>) -> Self {
        Self { extensions_required_for: Some(operations.into_iter().collect()), ..self }
    }

    /// What a request may carry and a read return (default [`ContentLimits::default`]); a
    /// request over a limit is refused with `InvalidParams` naming the field and the limit.
    pub fn content_limits(self, limits: ContentLimits) -> Self {
        Self { limits, ..self }
    }

    /// The handler. Fails if the card advertises push notifications without a push transport, or
    /// an extended card without declaring `extendedAgentCard` (both would be false advertising).
    pub fn build(self) -> Result<DefaultRequestHandler> {
        for name in self.tenants.keys() {
            validate_tenant_name(name)?;
        }
        let agents = Agents { default: self.agent, tenants: self.tenants };
        for agent in agents.all() {
            validate::card_modes(&agent.card)?;
            let capabilities = agent.card.capabilities.clone().unwrap_or_default();
            if capabilities.push_notifications == Some(true) && self.push_transport.is_none() {
                return Err(Error::internal(format!(
                    "the agent card of {:?} declares pushNotifications but the handler has no push transport",
                    agent.card.name
                )));
            }
        }
        let push_configs = self.push_configs.unwrap_or_else(|| Arc::new(InMemoryPushConfigStore::new()));
        let tasks: Arc<dyn TaskStore> = self.tasks.unwrap_or_else(|| Arc::new(InMemoryTaskStore::new()));
        let push = self.push_transport.map(|transport| {
            let dispatcher = PushDispatcher::new(
                transport,
                Arc::clone(&push_configs),
                self.policy.clone(),
                self.push_timeout,
            )
            .with_retry_policy(self.push_retry);
            let dispatcher = match self.push_v03_body {
                Some(write) => dispatcher.with_v03_body(write),
                None => dispatcher,
            };
            Arc::new(match tasks.outbox() {
                Some(outbox) => dispatcher.with_store_outbox(outbox),
                None => dispatcher,
            })
        });
        let runtime = match &self.cluster {
            Some(_) => Some(tokio::runtime::Handle::try_current().map_err(|_| {
                Error::internal("a handler with a cluster must be built inside a Tokio runtime")
            })?),
            None => None,
        };
        let inner = Arc::new(Inner {
            agents,
            finish_extended: self.finish_extended,
            tasks,
            push_configs,
            push,
            cluster: self.cluster,
            policy: self.policy,
            registry: Registry::default(),
            executions: Arc::default(),
            versions: vec![ProtocolVersion::V1_0],
            extensions_required_for: self.extensions_required_for,
            limits: self.limits,
        });
        if let (Some(cluster), Some(runtime)) = (&inner.cluster, runtime) {
            runtime.spawn(listen(Arc::downgrade(&inner), cluster.notes()));
        }
        Ok(DefaultRequestHandler { inner })
    }
}

impl DefaultRequestHandler {
    /// A builder for an agent described by `card` whose logic is `executor`.
    pub fn builder(card: AgentCard, executor: impl AgentExecutor) -> HandlerBuilder {
        Self::builder_for(TenantAgent::new(card, executor))
    }

    /// A builder for `agent` (a card and an executor, which may be shared:
    /// [`TenantAgent::with_executor`] takes an `Arc<dyn AgentExecutor>` as it is, where
    /// [`builder`](Self::builder) would wrap it in one more `Arc`, one more boxed future per call).
    pub fn builder_for(agent: TenantAgent) -> HandlerBuilder {
        HandlerBuilder {
            agent,
            tenants: std::collections::HashMap::new(),
            finish_extended: None,
            tasks: None,
            push_configs: None,
            push_transport: None,
            push_v03_body: None,
            cluster: None,
            push_retry: RetryPolicy::default(),
            policy: DestinationPolicy::public_only(),
            push_timeout: Duration::from_secs(10),
            extensions_required_for: None,
            limits: ContentLimits::default(),
        }
    }

    /// What push delivery has done so far (`None` without a push transport).
    pub fn push_stats(&self) -> Option<PushStats> {
        self.inner.push.as_ref().map(|push| push.stats())
    }

    /// Task runtimes alive now: tasks with an execution running or a subscriber listening
    /// (a runtime lives exactly as long as one of them holds it). A figure for leak checks:
    /// once every execution has ended and every stream is closed it returns to 0.
    pub fn live_tasks(&self) -> usize {
        self.inner.registry.live().len()
    }

    /// Agent executor calls of `kind` this handler (every tenant's agent) has in progress now:
    /// another figure for leak checks, 0 once every execution has ended.
    pub fn active_executions(&self, kind: ExecutionKind) -> i64 {
        self.inner.executions.active(kind)
    }

    /// The public agent card of the default agent, which this handler validates capabilities
    /// against.
    pub fn agent_card(&self) -> &AgentCard {
        &self.inner.agents.default.card
    }

    /// The public card of the agent served at `tenant` ([`HandlerBuilder::tenant`]), if any.
    pub fn tenant_card(&self, tenant: &str) -> Option<&AgentCard> {
        self.inner.agents.tenants.get(tenant).map(TenantAgent::card)
    }

    /// Resolves the tasks a previous run of the server left running (`SUBMITTED` or `WORKING` in
    /// the store, see [`TaskStore::running`]): each is handed to [`AgentExecutor::recover`], whose
    /// default marks it `FAILED` with a status message saying the server restarted; an executor
    /// can resume it instead. Subscribers and clients polling GetTask see the outcome like any
    /// other event. Call it once, at startup, before serving. Returns how many tasks were handed
    /// over. It also starts delivering the push notifications a previous run left in the outbox
    /// ([`crate::push::outbox`]).
    ///
    /// With a [cluster](HandlerBuilder::cluster), the tasks to resolve are those whose runner
    /// died, whichever replica ran them ([`Cluster::heartbeat`]), and not the ones live replicas
    /// run: this call does the first heartbeat and starts the periodic one, which keeps doing it
    /// while the handler lives. A replica that restarts gets a new id, so the tasks its previous
    /// run left are resolved once that run's heartbeat expires.
    pub async fn recover(&self) -> Result<usize> {
        let inner = &self.inner;
        if let Some(push) = &inner.push {
            // Notifications a previous run left in the outbox go out now; a single server holds
            // the only leases, so those of its previous run are released (replicas wait for the
            // leases of a dead one to expire).
            push.start(inner.cluster.is_none()).await?;
        }
        if let Some(cluster) = &inner.cluster {
            let count = inner.resolve_orphans(cluster).await?;
            tokio::spawn(heartbeat(Arc::downgrade(inner), cluster.heartbeat_interval()));
            return Ok(count);
        }
        let running = inner.tasks.running().await?;
        let count = running.len();
        for (scope, task_id) in running {
            inner.resolve(&scope, &task_id).await?;
        }
        if count > 0 {
            tracing::info!(count, "resolved tasks left running by a previous run");
        }
        Ok(count)
    }

    /// The versions this handler serves (spec 3.6.2). 0.3 requests reach it only after an edge
    /// adapter has translated them to 1.0: that adapter is the one seam for older versions.
    pub fn supported_versions(&self) -> &[ProtocolVersion] {
        &self.inner.versions
    }
}

/// How long an execution may go on after its task was canceled (the agent's
/// `updater.cancelled()` fired) before the handler drops it: an agent that ignores cancellation
/// must not hold its task's runtime forever.
pub const CANCEL_GRACE: Duration = Duration::from_secs(10);

/// How long a replica whose execution was canceled from another one waits for the CANCELED
/// state before its execution's streams may end without it.
const REMOTE_CANCEL_GRACE: Duration = Duration::from_secs(10);

/// A replica's side of the cluster's notes: feeds the subscribers of tasks other replicas
/// publish events of, and fires the cancellation of the executions it runs. Ends with the handler.
async fn listen(inner: std::sync::Weak<Inner>, mut notes: tokio::sync::broadcast::Receiver<Note>) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        let note = notes.recv().await;
        let Some(inner) = inner.upgrade() else { return };
        match note {
            Ok(Note::Event { task_id, seq }) => {
                if let Some(runtime) = inner.registry.get(&task_id) {
                    tokio::spawn(async move { runtime.feed(Some(seq)).await });
                }
            }
            Ok(Note::Cancel { task_id }) => {
                if let Some(runtime) = inner.registry.get(&task_id).filter(|r| r.has_producers()) {
                    // The replica that took the CancelTask writes CANCELED; until that reaches
                    // this one, the execution's streams here must not end (they end when the
                    // last producer goes), so the cancel holds a producer here too, as it does
                    // on one server.
                    let guard = runtime.producer();
                    runtime.cancellation.cancel();
                    tokio::spawn(async move {
                        let _ = tokio::time::timeout(REMOTE_CANCEL_GRACE, runtime.until_terminal()).await;
                        drop(guard);
                    });
                }
            }
            Ok(Note::Lost) | Err(RecvError::Lagged(_)) => {
                for runtime in inner.registry.live() {
                    tokio::spawn(async move { runtime.feed(None).await });
                }
            }
            Err(RecvError::Closed) => return,
        }
    }
}

/// The periodic [`Cluster::heartbeat`], resolving the orphans it claims. Ends with the handler.
async fn heartbeat(inner: std::sync::Weak<Inner>, interval: Duration) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let Some(inner) = inner.upgrade() else { return };
        let Some(cluster) = &inner.cluster else { return };
        if let Err(error) = inner.resolve_orphans(cluster).await {
            tracing::warn!(%error, "cluster heartbeat failed; retrying at the next one");
        }
    }
}

fn scope(ctx: &CallContext, tenant: &str) -> Scope {
    Scope { tenant: tenant.to_owned(), owner: ctx.principal.as_ref().map(|p| p.id.clone()) }
}

/// The least of a task a read can return: enough for its state and to know it is visible.
const STATE_ONLY: TaskView = TaskView { history_length: Some(0), include_artifacts: false };

/// A full read returning the history asked for, within the limit.
fn history_view(limits: &ContentLimits, history_length: Option<i32>) -> TaskView {
    TaskView { history_length: Some(limits.history_to_return(history_length)), include_artifacts: true }
}

impl Inner {
    /// Version, required extensions and capability checks (module docs). Reads the card in place:
    /// this runs on every request.
    fn admit(&self, ctx: &CallContext, tenant: &str, operation: Operation) -> Result<&TenantAgent> {
        // The agent the request is for: the default one, or its tenant's (`agents`).
        let agent = self.agents.for_request(tenant)?;
        // spec 13.1: an agent that declares security requirements serves authenticated callers
        // only, exactly as its card declares them (`crate::security`), checked first so that an
        // unauthenticated caller learns nothing else. Who the caller is comes from an
        // authentication layer in front of the bindings (the principal in `ctx`); the agent
        // card itself stays public.
        crate::security::check(&agent.card, ctx.principal.as_ref())?;
        ProtocolVersion::resolve(ctx.params.version(), &self.versions)?;
        let capabilities = agent.card.capabilities.as_ref();
        let extensions = capabilities.map_or(&[][..], |c| &c.extensions[..]);
        let scoped = self.extensions_required_for.as_ref().is_none_or(|ops| ops.contains(&operation));
        if scoped && extensions.iter().any(|e| e.required) {
            let declared = ctx.params.extensions();
            let missing: Vec<String> = extensions
                .iter()
                .filter(|e| e.required && !declared.contains(&e.uri.as_str()))
                .map(|e| e.uri.clone())
                .collect();
            if !missing.is_empty() {
                return Err(Error::ExtensionSupportRequired { uris: missing });
            }
        }
        let declares = |flag: fn(&a2a_proto::v1::AgentCapabilities) -> Option<bool>| {
            capabilities.and_then(flag) == Some(true)
        };
        match operation {
            Operation::SendStreamingMessage | Operation::SubscribeToTask if !declares(|c| c.streaming) => {
                Err(Error::unsupported("streaming is not supported by this agent"))
            }
            Operation::CreateTaskPushNotificationConfig
            | Operation::GetTaskPushNotificationConfig
            | Operation::ListTaskPushNotificationConfigs
            | Operation::DeleteTaskPushNotificationConfig
                if !self.push_enabled(agent) =>
            {
                Err(Error::PushNotificationNotSupported)
            }
            Operation::GetExtendedAgentCard if !declares(|c| c.extended_agent_card) => {
                Err(Error::unsupported("this agent has no extended agent card"))
            }
            _ => Ok(agent),
        }
    }

    fn push_enabled(&self, agent: &TenantAgent) -> bool {
        self.push.is_some()
            && agent.card.capabilities.as_ref().and_then(|c| c.push_notifications) == Some(true)
    }

    /// The task, if `scope` may see it; otherwise TaskNotFound (spec 13.1: never reveal it exists).
    async fn visible_task(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Task> {
        Ok(self.visible(scope, task_id, view).await?.task)
    }

    /// [`visible_task`](Self::visible_task) with the task's `seq`.
    async fn visible(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<StoredTask> {
        self.tasks
            .get(scope, task_id, view)
            .await?
            .ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })
    }

    fn backends(&self) -> Backends {
        Backends { store: Arc::clone(&self.tasks), push: self.push.clone(), cluster: self.cluster.clone() }
    }

    /// The live runtime of a stored task, or a new one made from `stored`.
    fn runtime_for(&self, stored: &StoredTask, scope: &Scope) -> Arc<TaskRuntime> {
        self.registry.get_or_insert_with(&stored.task.id, || {
            TaskRuntime::for_existing_task(&stored.task, stored.seq, scope.clone(), &self.backends())
        })
    }

    /// Hands a task whose execution is gone to [`AgentExecutor::recover`] (the restart policy).
    async fn resolve(&self, scope: &Scope, task_id: &str) -> Result<()> {
        let Some(stored) = self.tasks.get(scope, task_id, TaskView::FULL).await? else { return Ok(()) };
        let runtime = self.runtime_for(&stored, scope);
        let guard = runtime.producer();
        let updater = TaskUpdater::new(Arc::clone(&runtime), guard);
        let executor = &*self.agents.for_task(&scope.tenant).executor;
        let running = self.executions.running(ExecutionKind::Recover);
        let recovered = executor.recover(stored.task, updater.clone()).await;
        drop(running);
        if let Err(error) = recovered.and(updater.flush().await) {
            tracing::warn!(%task_id, %error, "could not resolve a task whose execution is gone");
        }
        Ok(())
    }

    /// One heartbeat: resolves the running tasks of dead replicas this replica claimed.
    async fn resolve_orphans(&self, cluster: &Arc<dyn Cluster>) -> Result<usize> {
        let orphans = cluster.heartbeat().await?;
        let count = orphans.len();
        for Orphan { scope, task_id } in orphans {
            tracing::info!(%task_id, "resolving a task whose replica stopped");
            self.resolve(&scope, &task_id).await?;
        }
        Ok(count)
    }

    /// Refuses a new push config for a task that has as many as the limit allows; replacing one
    /// of its configs (`id` already stored) is always allowed.
    async fn check_push_config_count(&self, task_id: &str, id: &str, field: &str) -> Result<()> {
        let existing = self.push_configs.list(task_id).await?;
        if !id.is_empty() && existing.iter().any(|stored| stored.config.id == id) {
            return Ok(());
        }
        let mut violations = Violations::default();
        self.limits.check_push_configs(existing.len(), field, &mut violations);
        violations.finish()
    }

    /// The execution of `ctx` on `runtime`, built but not started ([`Execution`]).
    fn execution(
        &self,
        runtime: &Arc<TaskRuntime>,
        ctx: RequestContext,
        executor: Arc<dyn AgentExecutor>,
    ) -> Execution {
        let guard = runtime.producer();
        let updater = TaskUpdater::new(Arc::clone(runtime), Arc::clone(&guard));
        let runtime = Arc::clone(runtime);
        let executions = Arc::clone(&self.executions);
        // Boxed: the execution's state machine (the request context, the runtime's flushes) is
        // large, and spawning moves an unboxed future several times (into the task's cell, into
        // its stage); a box moves as one pointer.
        // In the request's span when traces are carried: the agent's logs and the notifications
        // its events cause belong to the caller's trace (`crate::trace`).
        let span = crate::trace::span_for_spawn();
        let producer = Arc::downgrade(&guard);
        let future = Box::pin(tracing::Instrument::instrument(
            async move {
                let running = executions.running(ExecutionKind::Execute);
                let execution =
                    runtime.run_execution(AssertUnwindSafe((*executor).execute(ctx, updater)).catch_unwind());
                // An agent that ignores its cancellation would hold the task's runtime (and
                // whatever the agent holds) forever: past the grace period, its execution is
                // dropped.
                let abandoned = async {
                    runtime.cancellation.cancelled().await;
                    tokio::time::sleep(CANCEL_GRACE).await;
                };
                // Biased: the execution is polled first, so one that ends at its first poll (a
                // blocking send's inline run) never sets up the wait for its cancellation.
                let outcome = tokio::select! {
                    biased;
                    outcome = execution => outcome,
                    () = abandoned => {
                        tracing::warn!(
                            task_id = %runtime.task_id,
                            grace = ?CANCEL_GRACE,
                            "the agent did not stop within the grace period after its task was canceled: \
                             its execution is dropped"
                        );
                        Ok(Err(Error::internal("the agent did not stop after its task was canceled")))
                    }
                };
                let outcome = outcome.unwrap_or_else(|panic| {
                    let reason = panic
                        .downcast_ref::<&str>()
                        .map(|s| (*s).to_owned())
                        .or_else(|| panic.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".into());
                    Err(Error::internal(format!("the agent panicked: {reason}")))
                });
                drop(running);
                guard.set_agent_returned();
                runtime.finish_execution(outcome).await;
                drop(guard);
            },
            span,
        ));
        Execution::new(future, producer)
    }

    /// Validates a send, resolves or creates its task, and builds the execution, for the caller to
    /// start. With `subscribe` (a stream mode, and whether the stream is the primary one), the
    /// subscription is taken before the execution can publish, so no event is missed, and a
    /// continued task's snapshot is read for a stream to start with.
    ///
    /// A send that reads and writes nothing before its execution (a new task, no references, no
    /// push config: most sends) awaits nothing here. The rest is
    /// [`start_send_stored`](Self::start_send_stored), boxed: its state across the store's
    /// awaits (3.5 KiB) would otherwise be part of every send's future, copied whole each time
    /// one is made and boxed (measured in `docs/benchmarks.md`, eighth pass).
    async fn start_send(
        &self,
        ctx: &CallContext,
        agent: &TenantAgent,
        request: SendMessageRequest,
        subscribe: Option<(StreamMode, bool)>,
    ) -> Result<Started> {
        let send = self.check_send(ctx, agent, request)?;
        if send.message.task_id.is_empty()
            && send.message.reference_task_ids.is_empty()
            && send.push_config().is_none()
        {
            let context_id = send.new_context_id();
            let ids = (a2a_proto::new_id(), context_id);
            return Ok(self.start_new_task(ctx, agent, send, ids, Vec::new(), subscribe));
        }
        Box::pin(self.start_send_stored(ctx, agent, send, subscribe)).await
    }

    /// The checks of a send that need no store (spec 3.2.1), and its parts.
    fn check_send(
        &self,
        ctx: &CallContext,
        agent: &TenantAgent,
        request: SendMessageRequest,
    ) -> Result<CheckedSend> {
        let mut violations = Violations::default();
        validate::message(request.message.as_ref(), "message", &mut violations);
        self.limits.check_send(&request, &mut violations);
        let configuration = request.configuration;
        if let Some(config) = &configuration {
            violations.non_negative(config.history_length, "configuration.historyLength");
        }
        let push_config = configuration.as_ref().and_then(|c| c.task_push_notification_config.as_ref());
        if let Some(push) = push_config {
            if !self.push_enabled(agent) {
                return Err(Error::PushNotificationNotSupported);
            }
            validate::push_config(
                push,
                "configuration.taskPushNotificationConfig",
                &self.policy,
                &mut violations,
            );
        }
        violations.finish()?;
        let message = request.message.expect("validated");
        if let Some(media_type) = validate::unsupported_media_type(&agent.card, &message) {
            return Err(Error::ContentTypeNotSupported { media_type: media_type.to_owned() });
        }
        Ok(CheckedSend {
            scope: scope(ctx, &request.tenant),
            message,
            configuration,
            registers_push: false,
            metadata: request.metadata,
            tenant: request.tenant,
        })
    }

    /// [`start_send`](Self::start_send) for a send that continues a stored task, names
    /// references, or registers a push config.
    async fn start_send_stored(
        &self,
        ctx: &CallContext,
        agent: &TenantAgent,
        mut send: CheckedSend,
        subscribe: Option<(StreamMode, bool)>,
    ) -> Result<Started> {
        let mut existing_seq = 0;
        let existing = if send.message.task_id.is_empty() {
            None
        } else {
            let stored = self.visible(&send.scope, &send.message.task_id, TaskView::FULL).await?;
            existing_seq = stored.seq;
            let task = stored.task;
            let message = &send.message;
            if !message.context_id.is_empty() && message.context_id != task.context_id {
                // spec 3.4.3: mismatching contextId and taskId MUST be rejected.
                return Err(Error::invalid_param(
                    "message.contextId",
                    format!(
                        "task {} belongs to context {}, not {}",
                        task.id, task.context_id, message.context_id
                    ),
                ));
            }
            let state = task.state();
            if state.is_terminal() {
                return Err(Error::unsupported(format!(
                    "task {} is {}: a terminal task accepts no further messages",
                    task.id,
                    state.as_str_name()
                )));
            }
            Some(task)
        };
        let (task_id, context_id) = match &existing {
            Some(task) => (task.id.clone(), task.context_id.clone()),
            None => {
                let context_id = send.new_context_id();
                (a2a_proto::new_id(), context_id)
            }
        };

        let mut reference_tasks = Vec::new();
        for id in &send.message.reference_task_ids {
            // Unknown or invisible references are skipped: they are hints (spec 3.4.3 SHOULD).
            if let Some(stored) = self.tasks.get(&send.scope, id, TaskView::FULL).await? {
                reference_tasks.push(stored.task);
            }
        }

        if let Some(mut push) = send.push_config().cloned() {
            if existing.is_some() {
                Box::pin(self.check_push_config_count(
                    &task_id,
                    &push.id,
                    "configuration.taskPushNotificationConfig",
                ))
                .await?;
            }
            push.task_id.clone_from(&task_id);
            if push.id.is_empty() {
                push.id = a2a_proto::new_id();
            }
            push.tenant.clone_from(&send.tenant);
            self.push_configs.put(push, ctx.wire_version).await?;
            send.registers_push = true;
        }

        let Some(task) = existing else {
            return Ok(self.start_new_task(
                ctx,
                agent,
                send,
                (task_id, context_id),
                reference_tasks,
                subscribe,
            ));
        };
        send.message.task_id.clone_from(&task_id);
        send.message.context_id.clone_from(&context_id);
        let stored = StoredTask { task: task.clone(), seq: existing_seq };
        let runtime = self.runtime_for(&stored, &send.scope);
        // Boxed, as the snapshot and the push config count: rare paths whose state would
        // otherwise be most of the size of this future.
        Box::pin(runtime.append_history(&send.message)).await?;
        let history_length = send.configuration.as_ref().and_then(|c| c.history_length);
        // Built (its producer registered) before the subscription: the end of an execution before
        // it, announced late, then never reaches this one's stream (`TaskRuntime::announce_end`).
        let ids = (task_id, context_id);
        let execution = self.execution_of(ctx, agent, &runtime, send, ids, Some(task), reference_tasks);
        let (mut subscription, mut first) = (None, None);
        if let Some((mode, primary)) = subscribe {
            let mut subscribed = runtime.subscribe(mode, primary);
            let (seq, task) = Box::pin(runtime.snapshot(history_view(&self.limits, history_length))).await?;
            subscribed.skip_through(seq);
            first = task.map(Box::new);
            subscription = Some(subscribed);
        }
        Ok(Started { runtime, subscription, first, start_seq: existing_seq, execution })
    }

    /// The rest of a send that makes a new task: the task (`SUBMITTED`, with the message as its
    /// history), its runtime, the subscription, and the execution. Nothing waits.
    fn start_new_task(
        &self,
        ctx: &CallContext,
        agent: &TenantAgent,
        mut send: CheckedSend,
        (task_id, context_id): (String, String),
        reference_tasks: Vec<Task>,
        subscribe: Option<(StreamMode, bool)>,
    ) -> Started {
        send.message.task_id.clone_from(&task_id);
        send.message.context_id.clone_from(&context_id);
        let pending = Task {
            id: task_id.clone(),
            context_id: context_id.clone(),
            status: Some(TaskStatus {
                state: TaskState::Submitted.into(),
                message: None,
                timestamp: Some(crate::execution::now()),
            }),
            artifacts: Vec::new(),
            history: vec![send.message.clone()],
            metadata: None,
        };
        let runtime =
            TaskRuntime::for_new_task(pending, send.registers_push, send.scope.clone(), &self.backends());
        let runtime = self.registry.get_or_insert_with(&task_id, || runtime);
        let execution =
            self.execution_of(ctx, agent, &runtime, send, (task_id, context_id), None, reference_tasks);
        let subscription = subscribe.map(|(mode, primary)| runtime.subscribe(mode, primary));
        Started { runtime, subscription, first: None, start_seq: 0, execution }
    }

    /// The execution of a checked send on `runtime` ([`execution`](Self::execution)).
    #[allow(clippy::too_many_arguments)]
    fn execution_of(
        &self,
        ctx: &CallContext,
        agent: &TenantAgent,
        runtime: &Arc<TaskRuntime>,
        send: CheckedSend,
        (task_id, context_id): (String, String),
        task: Option<Task>,
        reference_tasks: Vec<Task>,
    ) -> Execution {
        let request_context = RequestContext {
            task_id,
            context_id,
            message: send.message,
            task,
            reference_tasks,
            configuration: send.configuration,
            metadata: send.metadata,
            tenant: send.tenant,
            call: ctx.clone(),
            cancellation: runtime.cancellation.clone(),
        };
        self.execution(runtime, request_context, Arc::clone(&agent.executor))
    }

    /// Waits on a blocking SendMessage's subscription (spec 3.2.2) for a terminal or interrupted
    /// state, or with `first_event` for the first event (which tells a Task from a direct Message
    /// reply). Returns the reply, or the `seq` the send's answer reflects.
    async fn wait(subscription: &mut Subscription, first_event: bool) -> Result<Waited> {
        while let Some(step) = subscription.next().await {
            match step? {
                Step::Reply(message) => return Ok(Waited::Reply(message)),
                Step::Event(_, state) => {
                    if first_event || subscription.ends(state) {
                        break;
                    }
                }
                Step::Ended(Some(error)) => return Err((*error).clone()),
                Step::Ended(None) => break,
            }
        }
        Ok(Waited::At(subscription.position()))
    }
}

/// A send whose execution is built (see [`Inner::start_send`]).
struct Started {
    runtime: Arc<TaskRuntime>,
    subscription: Option<Subscription>,
    /// A continued task as a stream starts with it.
    /// Boxed: rare, and most of the size of a `Started` otherwise.
    first: Option<Box<Task>>,
    /// The `seq` of a continued task before the execution (0 for a new task).
    start_seq: u64,
    execution: Execution,
}

/// A send that passed the checks that need no store ([`Inner::check_send`]).
struct CheckedSend {
    scope: Scope,
    message: a2a_proto::v1::Message,
    configuration: Option<a2a_proto::v1::SendMessageConfiguration>,
    /// Whether the send registered a push config for its task.
    registers_push: bool,
    metadata: Option<pbjson_types::Struct>,
    tenant: String,
}

impl CheckedSend {
    /// The push config the send registers for its task.
    fn push_config(&self) -> Option<&a2a_proto::v1::TaskPushNotificationConfig> {
        self.configuration.as_ref().and_then(|c| c.task_push_notification_config.as_ref())
    }

    /// The context of a new task: the message's, or a new one.
    fn new_context_id(&self) -> String {
        if self.message.context_id.is_empty() {
            a2a_proto::new_id()
        } else {
            self.message.context_id.clone()
        }
    }
}

/// What a blocking SendMessage waited for.
enum Waited {
    Reply(a2a_proto::v1::Message),
    At(u64),
}

fn into_stream(first: Option<Task>, subscription: Subscription) -> EventStream {
    let rest = futures::stream::unfold(subscription, |mut subscription| async move {
        match subscription.next().await? {
            Ok(Step::Event(event, _)) => Some((Ok(Arc::unwrap_or_clone(event)), subscription)),
            Ok(Step::Reply(message)) => Some((Ok(StreamResponse::from(message)), subscription)),
            Ok(Step::Ended(Some(error))) => Some((Err((*error).clone()), subscription)),
            Ok(Step::Ended(None)) => None,
            Err(error) => Some((Err(error), subscription)),
        }
    });
    match first {
        Some(task) => {
            futures::stream::once(async move { Ok(StreamResponse::from(task)) }).chain(rest).boxed()
        }
        None => rest.boxed(),
    }
}

#[async_trait]
impl A2aService for DefaultRequestHandler {
    /// Every operation but SendMessage runs in a future of its own (boxed): the futures of
    /// CancelTask or a push config's checks would otherwise set the size of this one, which every
    /// SendMessage allocates and moves (measured: `docs/benchmarks.md`, eleventh pass).
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        let inner = &*self.inner;
        Ok(match request {
            Request::SendMessage(request) => Response::SendMessage(inner.send_message(ctx, request).await?),
            Request::SendStreamingMessage(request) => {
                Response::Stream(Box::pin(inner.send_streaming_message(ctx, request)).await?)
            }
            Request::GetTask(request) => Response::Task(Box::pin(inner.get_task(ctx, request)).await?),
            Request::ListTasks(request) => {
                Response::ListTasks(Box::pin(inner.list_tasks(ctx, request)).await?)
            }
            Request::CancelTask(request) => Response::Task(Box::pin(inner.cancel_task(ctx, request)).await?),
            Request::SubscribeToTask(request) => {
                Response::Stream(Box::pin(inner.subscribe_to_task(ctx, request)).await?)
            }
            Request::CreateTaskPushNotificationConfig(request) => Response::PushConfig(
                Box::pin(inner.create_task_push_notification_config(ctx, request)).await?,
            ),
            Request::GetTaskPushNotificationConfig(request) => {
                Response::PushConfig(Box::pin(inner.get_task_push_notification_config(ctx, request)).await?)
            }
            Request::ListTaskPushNotificationConfigs(request) => Response::PushConfigs(
                Box::pin(inner.list_task_push_notification_configs(ctx, request)).await?,
            ),
            Request::DeleteTaskPushNotificationConfig(request) => {
                Box::pin(inner.delete_task_push_notification_config(ctx, request)).await?;
                Response::Deleted
            }
            Request::GetExtendedAgentCard(request) => {
                Response::AgentCard(Box::pin(inner.get_extended_agent_card(ctx, request)).await?)
            }
        })
    }
}

/// The operations, each from its own request message (spec 3.1).
impl Inner {
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        let inner = self;
        let agent = inner.admit(ctx, &request.tenant, Operation::SendMessage)?;
        let (return_immediately, history_length) = request
            .configuration
            .as_ref()
            .map_or((false, None), |c| (c.return_immediately, c.history_length));
        let scope = scope(ctx, &request.tenant);
        // spec 3.2.2: wait for a terminal or interrupted state, unless returnImmediately (then
        // the first event, which tells a Task from a direct Message reply).
        let (runtime, waited) = if return_immediately {
            let Started { runtime, subscription, execution, .. } =
                inner.start_send(ctx, agent, request, Some((StreamMode::Execution, false))).await?;
            let mut subscription = subscription.expect("subscribed");
            execution.spawn();
            (runtime, Inner::wait(&mut subscription, true).await?)
        } else {
            let Started { runtime, start_seq, execution, .. } =
                inner.start_send(ctx, agent, request, None).await?;
            let view = history_view(&inner.limits, history_length);
            match inline::run(&runtime, start_seq, execution, view).await? {
                inline::Blocking::Answered(response) => return Ok(response),
                inline::Blocking::Waited(waited) => (runtime, waited),
            }
        };
        let position = match waited {
            Waited::Reply(message) => return Ok(message.into()),
            Waited::At(seq) => seq,
        };
        if !runtime.is_created() {
            return Err(Error::InvalidAgentResponse {
                reason: "the agent finished without publishing a task update or a message".into(),
            });
        }
        let view = history_view(&inner.limits, history_length);
        // The task this runtime just stored whole is the task the store would return.
        if let Some(task) = runtime.written_at(position, view).await {
            return Ok(task.into());
        }
        let task = inner.visible_task(&scope, &runtime.task_id, view).await?;
        Ok(task.into())
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        let agent = self.admit(ctx, &request.tenant, Operation::SendStreamingMessage)?;
        let started = self.start_send(ctx, agent, request, Some((StreamMode::Execution, true))).await?;
        started.execution.spawn();
        Ok(into_stream(started.first.map(|task| *task), started.subscription.expect("subscribed")))
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        self.admit(ctx, &request.tenant, Operation::GetTask)?;
        let mut violations = Violations::default();
        violations.require(&request.id, "id");
        violations.non_negative(request.history_length, "historyLength");
        violations.finish()?;
        let scope = scope(ctx, &request.tenant);
        let view = history_view(&self.limits, request.history_length);
        self.visible_task(&scope, &request.id, view).await
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        self.admit(ctx, &request.tenant, Operation::ListTasks)?;
        let mut violations = Violations::default();
        let page_size = validate::list_tasks(&request, &mut violations);
        let after = validate::decode_page_token(&request.page_token, &mut violations);
        violations.finish()?;
        let state = TaskState::try_from(request.status).unwrap_or_default();
        let query = TaskQuery {
            context_id: (!request.context_id.is_empty()).then(|| request.context_id.clone()),
            state: (state != TaskState::Unspecified).then_some(state),
            updated_at_or_after_ms: request
                .status_timestamp_after
                .as_ref()
                .map(a2a_proto::Timestamp::as_millis),
            page_size,
            after,
            view: TaskView {
                history_length: Some(self.limits.history_to_return(request.history_length)),
                // spec 3.1.4: artifacts are omitted unless includeArtifacts is true.
                include_artifacts: request.include_artifacts == Some(true),
            },
        };
        let page = self.tasks.list(&scope(ctx, &request.tenant), &query).await?;
        Ok(ListTasksResponse {
            tasks: page.tasks,
            next_page_token: page.next.as_ref().map(validate::encode_page_token).unwrap_or_default(),
            page_size: page_size as i32,
            total_size: i32::try_from(page.total_size).unwrap_or(i32::MAX),
        })
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        let inner = self;
        inner.admit(ctx, &request.tenant, Operation::CancelTask)?;
        let mut violations = Violations::default();
        violations.require(&request.id, "id");
        violations.finish()?;
        let scope = scope(ctx, &request.tenant);
        let stored = inner.visible(&scope, &request.id, TaskView::FULL).await?;
        let task = stored.task.clone();
        match task.state() {
            // spec 3.3.1: cancellation is idempotent; a canceled task stays canceled.
            TaskState::Canceled => return Ok(task),
            state if state.is_terminal() => {
                return Err(Error::TaskNotCancelable { task_id: task.id.clone(), state });
            }
            _ => {}
        }
        let runtime = inner.runtime_for(&stored, &scope);
        runtime.cancellation.cancel();
        if let Some(cluster) = &inner.cluster {
            // The execution may run on another replica: its token fires there.
            if let Err(error) = cluster.request_cancel(&task.id).await {
                tracing::warn!(task_id = %task.id, %error, "could not ask the other replicas to cancel");
            }
        }
        let guard = runtime.producer();
        let updater = TaskUpdater::new(Arc::clone(&runtime), Arc::clone(&guard));
        let executor = &*inner.agents.for_task(&scope.tenant).executor;
        let running = inner.executions.running(ExecutionKind::Cancel);
        let canceled = executor.cancel(task.clone(), updater.clone()).await;
        drop(running);
        if let Err(error) = canceled {
            tracing::warn!(task_id = %task.id, %error, "the agent's cancel failed; canceling anyway");
        }
        // What the agent published is read back from the store below.
        if let Err(error) = updater.flush().await {
            tracing::debug!(task_id = %task.id, %error, "the agent's cancel update was not stored");
        }
        let state = inner.visible_task(&scope, &task.id, STATE_ONLY).await?.state();
        if !state.is_terminal() {
            // The executor did not end the task: the handler does (spec 3.1.5).
            if let Err(error) = updater.cancel(None).await.and(updater.flush().await) {
                tracing::debug!(task_id = %task.id, %error, "cancel raced with another update");
            }
        }
        drop(updater);
        drop(guard);
        let task = inner.visible_task(&scope, &task.id, TaskView::FULL).await?;
        match task.state() {
            TaskState::Canceled => Ok(task),
            state => Err(Error::TaskNotCancelable { task_id: task.id.clone(), state }),
        }
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        let inner = self;
        inner.admit(ctx, &request.tenant, Operation::SubscribeToTask)?;
        let mut violations = Violations::default();
        violations.require(&request.id, "id");
        violations.finish()?;
        let scope = scope(ctx, &request.tenant);
        let stored = inner.visible(&scope, &request.id, TaskView::FULL).await?;
        let runtime = inner.runtime_for(&stored, &scope);
        let mut subscription = runtime.subscribe(StreamMode::Task, false);
        // spec 3.1.6: the first event is the task as it is now; nothing between it and the
        // following events is lost (the subscription started before the snapshot).
        // The history of a long task is cut to the most recent, as in every read.
        let (seq, snapshot) = runtime.snapshot(history_view(&inner.limits, None)).await?;
        let snapshot = snapshot.ok_or_else(|| Error::TaskNotFound { task_id: request.id.clone() })?;
        let state = snapshot.state();
        if state.is_terminal() {
            return Err(Error::unsupported(format!(
                "task {} is {}: a terminal task cannot be subscribed to",
                snapshot.id,
                state.as_str_name()
            )));
        }
        subscription.skip_through(seq);
        Ok(into_stream(Some(snapshot), subscription))
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        mut request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        let inner = self;
        inner.admit(ctx, &request.tenant, Operation::CreateTaskPushNotificationConfig)?;
        let mut violations = Violations::default();
        violations.require(&request.task_id, "taskId");
        validate::push_config(&request, "", &inner.policy, &mut violations);
        violations.finish()?;
        inner.visible_task(&scope(ctx, &request.tenant), &request.task_id, STATE_ONLY).await?;
        inner.check_push_config_count(&request.task_id, &request.id, "taskId").await?;
        if request.id.is_empty() {
            request.id = a2a_proto::new_id();
        }
        inner.push_configs.put(request, ctx.wire_version).await
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        let inner = self;
        inner.admit(ctx, &request.tenant, Operation::GetTaskPushNotificationConfig)?;
        let mut violations = Violations::default();
        violations.require(&request.task_id, "taskId");
        violations.require(&request.id, "id");
        violations.finish()?;
        inner.visible_task(&scope(ctx, &request.tenant), &request.task_id, STATE_ONLY).await?;
        // spec 3.1.8: a missing config is TaskNotFoundError.
        inner
            .push_configs
            .get(&request.task_id, &request.id)
            .await?
            .map(|stored| stored.config)
            .ok_or(Error::TaskNotFound { task_id: request.task_id })
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        let inner = self;
        inner.admit(ctx, &request.tenant, Operation::ListTaskPushNotificationConfigs)?;
        let mut violations = Violations::default();
        violations.require(&request.task_id, "taskId");
        violations.non_negative(Some(request.page_size), "pageSize");
        let offset = match request.page_token.as_str() {
            "" => 0,
            token => token.parse::<usize>().unwrap_or_else(|_| {
                violations.add("pageToken", "is not a token returned by ListTaskPushNotificationConfigs");
                0
            }),
        };
        violations.finish()?;
        inner.visible_task(&scope(ctx, &request.tenant), &request.task_id, STATE_ONLY).await?;
        let all = inner.push_configs.list(&request.task_id).await?;
        // pageSize 0 (unset) returns every config (spec 3.1.9: pagination is optional).
        let size = if request.page_size == 0 { all.len() } else { request.page_size as usize };
        let total = all.len();
        let configs: Vec<_> = all.into_iter().skip(offset).take(size).map(|stored| stored.config).collect();
        let end = offset + configs.len();
        let next_page_token = if end < total { end.to_string() } else { String::new() };
        Ok(ListTaskPushNotificationConfigsResponse { configs, next_page_token })
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        let inner = self;
        inner.admit(ctx, &request.tenant, Operation::DeleteTaskPushNotificationConfig)?;
        let mut violations = Violations::default();
        violations.require(&request.task_id, "taskId");
        violations.require(&request.id, "id");
        violations.finish()?;
        inner.visible_task(&scope(ctx, &request.tenant), &request.task_id, STATE_ONLY).await?;
        // spec 3.1.10: idempotent, deleting a missing config succeeds.
        inner.push_configs.delete(&request.task_id, &request.id).await?;
        if let Some(push) = &inner.push {
            push.discard(&request.task_id, &request.id).await?;
        }
        Ok(())
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        let inner = self;
        let agent = inner.admit(ctx, &request.tenant, Operation::GetExtendedAgentCard)?;
        let extended = agent.extended.as_ref().ok_or(Error::ExtendedAgentCardNotConfigured)?;
        // spec 13.3: the extended card requires authentication, when the agent declares any.
        if crate::security::is_secured(&agent.card) && ctx.principal.is_none() {
            return Err(Error::Unauthenticated {
                reason: "the extended agent card requires authentication".into(),
            });
        }
        let mut card =
            extended.for_caller(ctx.principal.as_ref()).ok_or(Error::ExtendedAgentCardNotConfigured)?;
        // spec 3.1.11: the extended card is a complete card; 4.4.1 requires its interfaces.
        if card.supported_interfaces.is_empty() {
            card.supported_interfaces.clone_from(&agent.card.supported_interfaces);
        }
        match &inner.finish_extended {
            Some(finish) => finish(card),
            None => Ok(card),
        }
    }
}

#[cfg(test)]
mod tests;
