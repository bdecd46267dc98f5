//! The cross-binding A2A conformance suite: spec 5.1 says every binding an agent offers gives
//! identical functionality, consistent behaviour and the same error handling. This crate proves it
//! for an agent, against the spec.
//!
//! Where it sits: on top of the three binding clients (`a2a-jsonrpc`, `a2a-rest`, `a2a-grpc`),
//! which all implement [`a2a_core::A2aService`], in A2A 1.0 or 0.3 (`with_protocol_version`).
//! Each [`Scenario`] is written once against an `&dyn A2aService` (plus plain HTTP for the agent
//! card and raw probes for what typed clients cannot send) and runs over every [`Column`] the
//! agent's card declares: each standard binding in 1.0, and, when the card declares 0.3
//! interfaces (spec 3.6.2: an agent may serve both), each binding in 0.3. A scenario 0.3 lacks
//! says so (`Needs::only_v1`); where 0.3 differs by design the scenario says how, per version.
//!
//! - Each run checks what it observes against the spec, citing the section per check, and returns
//!   a normalized [`Record`] (results and errors as JSON; ids, timestamps and page tokens
//!   replaced by placeholders). Errors are compared by kind ([`ErrorKind`]), which every binding's
//!   client recovers from the ErrorInfo reason.
//! - After the runs, the [`Suite`] compares each scenario's records across the bindings of each
//!   version, and the 0.3 columns with the 1.0 ones on what both versions share ([`record::View`]);
//!   a column that saw something else fails with a diff naming the scenario and both columns.
//! - Scenarios that need particular agent behaviour follow the demo-skill convention (the first
//!   word of a message picks the skill: `ask`, `wait N`, `reply X`, `stream N`, else echo) and
//!   are skipped, with the reason, when the card does not declare those skill ids; scenarios that
//!   need a particular server configuration run against in-process [reference](mod@reference) servers when
//!   the suite tests the reference server, and are skipped against other agents.
//!
//! ```no_run
//! # async fn run() -> anyhow::Result<()> {
//! let report = a2a_conformance::check("http://127.0.0.1:8080", &Default::default()).await?;
//! println!("{report}");
//! assert!(report.passed());
//! # Ok(()) }
//! ```
//!
//! The `a2a-conformance` binary does the same from the command line (`--url`); `cargo xtask
//! conformance` runs it against the reference server. Feature `tls` adds `https://` agents.

pub mod binding;
mod check;
pub mod column;
pub mod context;
pub mod diff;
pub mod kind;
pub mod record;
pub mod reference;
pub mod report;
pub mod runner;
pub mod scenario;
pub mod scenarios;
pub mod target;
pub mod webhook;
pub mod wire;

pub use binding::{Binding, Connect};
pub use check::{check, Options};
pub use column::Column;
pub use context::{Ctx, Step, Stop};
pub use kind::ErrorKind;
pub use record::{Observe, Record};
pub use report::{Report, Verdict};
pub use runner::Suite;
pub use scenario::{Capability, Needs, Scenario, Setup};
pub use target::Target;
