//! [`Scenario`]: one behaviour of the spec, written once against a [`Ctx`] (which hands it an
//! `&dyn A2aService` for the binding under test), with what it needs from the agent.

use futures::future::BoxFuture;

use crate::context::{Ctx, Step};

/// The body of a scenario.
pub type RunFn = for<'a> fn(&'a Ctx) -> BoxFuture<'a, Step<()>>;

/// One scenario of the suite.
#[derive(Clone, Copy)]
pub struct Scenario {
    /// A short stable name (`cancel`, `list-tasks-filters`), used in the report and `--only`.
    pub id: &'static str,
    /// What it proves, in one line.
    pub title: &'static str,
    /// The spec sections it checks.
    pub spec: &'static str,
    /// What it needs from the agent; unmet needs make it a skip, with the reason.
    pub needs: Needs,
    /// The body.
    pub run: RunFn,
}

impl std::fmt::Debug for Scenario {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scenario").field("id", &self.id).field("spec", &self.spec).finish_non_exhaustive()
    }
}

/// An optional capability of `AgentCard.capabilities` (spec 4.4.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Capability {
    /// `streaming`.
    Streaming,
    /// `pushNotifications`.
    PushNotifications,
    /// `extendedAgentCard`.
    ExtendedAgentCard,
}

impl Capability {
    /// The card's field name.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Streaming => "streaming",
            Capability::PushNotifications => "pushNotifications",
            Capability::ExtendedAgentCard => "extendedAgentCard",
        }
    }

    /// Whether `card` declares it `true` (absent means not supported, spec 3.3.4).
    pub fn declared_by(self, card: &a2a_proto::v1::AgentCard) -> bool {
        let capabilities = card.capabilities.as_ref();
        let flag = match self {
            Capability::Streaming => capabilities.and_then(|c| c.streaming),
            Capability::PushNotifications => capabilities.and_then(|c| c.push_notifications),
            Capability::ExtendedAgentCard => capabilities.and_then(|c| c.extended_agent_card),
        };
        flag == Some(true)
    }
}

/// The server configuration a scenario runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Setup {
    /// The agent under test, as it is.
    Agent,
    /// An agent whose card does not declare `capability`: the agent under test if its card does
    /// not, else a reference server configured so.
    Lacking(Capability),
    /// An agent whose card declares `extendedAgentCard` but has no extended card configured:
    /// only a reference server (a card cannot say this).
    ExtendedCardNotConfigured,
    /// An agent whose card marks an extension `required`: the agent under test if its card does,
    /// else a reference server configured so.
    RequiredExtension,
    /// An agent that answers SendMessage with neither a Task nor a Message: only a reference
    /// server (no working agent does this on purpose).
    InvalidAgentResponse,
}

/// What a scenario needs.
#[derive(Debug, Clone, Copy)]
pub struct Needs {
    /// The server configuration.
    pub setup: Setup,
    /// Skill ids the card must declare (the demo-skill convention: `echo`, `stream`, `ask`,
    /// `wait`, `reply`, `fail`, `reject`).
    pub skills: &'static [&'static str],
    /// Capabilities the card must declare.
    pub capabilities: &'static [Capability],
    /// Whether the scenario sends raw JSON (1.0 ProtoJSON, or 0.3's JSON shapes), which only the
    /// JSON bindings carry.
    pub json_only: bool,
    /// Why the scenario has no A2A 0.3 counterpart, when it has none: it then runs in the 1.0
    /// columns only (the 0.3 columns are skips with this reason).
    pub only_v1: Option<&'static str>,
}

impl Needs {
    /// The agent under test as it is, nothing else.
    pub const fn agent() -> Needs {
        Needs::setup(Setup::Agent)
    }

    /// A server configured as `setup`.
    pub const fn setup(setup: Setup) -> Needs {
        Needs { setup, skills: &[], capabilities: &[], json_only: false, only_v1: None }
    }

    /// Also these skills.
    pub const fn skills(mut self, skills: &'static [&'static str]) -> Needs {
        self.skills = skills;
        self
    }

    /// Also these capabilities.
    pub const fn capabilities(mut self, capabilities: &'static [Capability]) -> Needs {
        self.capabilities = capabilities;
        self
    }

    /// Raw JSON: the JSON bindings only.
    pub const fn json_only(mut self) -> Needs {
        self.json_only = true;
        self
    }

    /// A2A 1.0 only, for `reason` (what 0.3 lacks).
    pub const fn only_v1(mut self, reason: &'static str) -> Needs {
        self.only_v1 = Some(reason);
        self
    }
}
