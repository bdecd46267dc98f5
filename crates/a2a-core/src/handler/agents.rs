//! The agents one handler serves: its default agent and, optionally, one agent per tenant (spec
//! 4.4.1 `AgentInterface.tenant`: several agents behind one endpoint, told apart by the `tenant`
//! field every request carries). Each agent has its own card (capabilities, security, modes),
//! executor and extended card; they share the handler's stores, push delivery, live tasks and
//! cluster. A task belongs to the tenant it was created under (its `Scope`), so no agent sees
//! another's tasks.

use std::collections::HashMap;
use std::sync::Arc;

use a2a_proto::v1::AgentCard;

use crate::context::Principal;
use crate::error::{Error, Result};
use crate::executor::AgentExecutor;

/// Computes the extended card (spec 3.1.11) for a caller: `None` when it has none for them.
pub type ExtendedCardFn = dyn Fn(Option<&Principal>) -> Option<AgentCard> + Send + Sync;

/// Applied to every extended card before it is returned (e.g. to sign it).
pub type CardFinisher = dyn Fn(AgentCard) -> Result<AgentCard> + Send + Sync;

/// Where an agent's extended card comes from.
#[derive(Clone)]
pub(crate) enum ExtendedCard {
    /// The same card for every authenticated caller.
    Static(Box<AgentCard>),
    /// A card per caller.
    PerCaller(Arc<ExtendedCardFn>),
}

impl ExtendedCard {
    pub(crate) fn for_caller(&self, principal: Option<&Principal>) -> Option<AgentCard> {
        match self {
            ExtendedCard::Static(card) => Some(card.as_ref().clone()),
            ExtendedCard::PerCaller(compute) => compute(principal),
        }
    }
}

/// An agent served at a tenant of a handler ([`HandlerBuilder::tenant`](super::HandlerBuilder::tenant)):
/// its public card, its executor and, optionally, its extended card.
#[derive(Clone)]
pub struct TenantAgent {
    pub(crate) card: AgentCard,
    pub(crate) executor: Arc<dyn AgentExecutor>,
    pub(crate) extended: Option<ExtendedCard>,
}

impl std::fmt::Debug for TenantAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TenantAgent").field("agent", &self.card.name).finish_non_exhaustive()
    }
}

impl TenantAgent {
    /// An agent described by `card` whose logic is `executor`.
    pub fn new(card: AgentCard, executor: impl AgentExecutor) -> Self {
        Self::with_executor(card, Arc::new(executor))
    }

    /// [`new`](Self::new) with a shared executor.
    pub fn with_executor(card: AgentCard, executor: Arc<dyn AgentExecutor>) -> Self {
        TenantAgent { card, executor, extended: None }
    }

    /// Its extended agent card, the same for every authenticated caller (spec 3.1.11).
    #[must_use]
    pub fn extended_agent_card(self, card: AgentCard) -> Self {
        Self { extended: Some(ExtendedCard::Static(Box::new(card))), ..self }
    }

    /// Its extended agent card computed per caller (spec 3.1.11: what an authenticated caller
    /// sees may differ by caller); `None` answers `ExtendedAgentCardNotConfigured`.
    #[must_use]
    pub fn extended_agent_card_for(
        mut self,
        compute: impl Fn(Option<&Principal>) -> Option<AgentCard> + Send + Sync + 'static,
    ) -> Self {
        self.extended = Some(ExtendedCard::PerCaller(Arc::new(compute)));
        self
    }

    /// Its public card.
    pub fn card(&self) -> &AgentCard {
        &self.card
    }

    /// Its public card, to complete (e.g. its interfaces, or the security schemes an
    /// authenticator declares).
    pub fn card_mut(&mut self) -> &mut AgentCard {
        &mut self.card
    }

    /// Wraps its executor (e.g. to log or time its calls).
    #[must_use]
    pub fn map_executor(
        mut self,
        wrap: impl FnOnce(Arc<dyn AgentExecutor>) -> Arc<dyn AgentExecutor>,
    ) -> Self {
        self.executor = wrap(self.executor);
        self
    }
}

/// A tenant's name must be one path segment of the HTTP+JSON routes (`/{tenant}/tasks`) and of
/// its card's URL (`/{tenant}/.well-known/agent-card.json`): unreserved URL characters (RFC 3986
/// 2.3) only, and neither `v1` (the A2A 0.3 REST prefix) nor `.well-known`.
pub fn validate_tenant_name(name: &str) -> Result<()> {
    let unreserved = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~');
    if name.is_empty() || !name.chars().all(unreserved) || matches!(name, "v1" | ".well-known" | "." | "..") {
        return Err(Error::internal(format!(
            "tenant name {name:?}: use letters, digits, '-', '.', '_' or '~' (one URL path segment), and \
             neither \"v1\" nor \".well-known\""
        )));
    }
    Ok(())
}

/// The default agent and the tenants' agents.
pub(crate) struct Agents {
    pub(crate) default: TenantAgent,
    pub(crate) tenants: HashMap<String, TenantAgent>,
}

impl Agents {
    /// The agent a request naming `tenant` is for: the tenant's, or the default agent for the
    /// empty tenant (and for every tenant when no tenant agent is configured: then tenants are
    /// partitions of the one agent's tasks).
    pub(crate) fn for_request(&self, tenant: &str) -> Result<&TenantAgent> {
        if tenant.is_empty() || self.tenants.is_empty() {
            return Ok(&self.default);
        }
        self.tenants
            .get(tenant)
            .ok_or_else(|| Error::invalid_param("tenant", format!("no agent is served at tenant {tenant:?}")))
    }

    /// The agent a stored task of `tenant` belongs to (the default agent for a tenant no longer
    /// configured).
    pub(crate) fn for_task(&self, tenant: &str) -> &TenantAgent {
        self.tenants.get(tenant).unwrap_or(&self.default)
    }

    pub(crate) fn all(&self) -> impl Iterator<Item = &TenantAgent> {
        std::iter::once(&self.default).chain(self.tenants.values())
    }
}
