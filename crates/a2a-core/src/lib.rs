//! A2A's abstract operations, task lifecycle, errors and stores: the protocol without a wire.
//!
//! Where it sits: above [`a2a_proto`] (the one type system) and below the three bindings
//! (`a2a-jsonrpc`, `a2a-grpc`, `a2a-rest`), which translate their wire format into calls of
//! [`A2aService`] and back. Nothing here knows HTTP, JSON-RPC or gRPC.
//!
//! - [`A2aService`]: the 11 operations of spec 3.1, implemented by the server-side handler and by
//!   every binding's client alike.
//! - [`Error`]: one variant per A2A error (spec 3.3.2); bindings map it with one exhaustive match.
//! - [`CallContext`], [`ServiceParams`], [`ProtocolVersion`]: per-call principal, service
//!   parameters and version resolution (spec 3.2.6, 3.6).
//! - [`Operation`], [`Request`], [`Response`]: the operation table (method names, spec 5.3) and
//!   one typed request/response pair for every operation, which [`A2aService::call`] takes and
//!   layers wrap.
//! - [`AgentExecutor`] and [`TaskUpdater`]: the API your agent implements and publishes through.
//! - [`DefaultRequestHandler`]: the spec semantics (task lifecycle, history, listing, cancel,
//!   subscribe, push delivery, capability and version checks) over an executor and [`store`]s.

pub mod binding;
pub mod carriage;
pub mod context;
pub mod error;
pub mod operation;
pub mod service;

pub use binding::{Binding, AGENT_CARD_PATH};
pub use context::{CallContext, GrantedScheme, Principal, ProtocolVersion, ServiceParams};
pub use error::{Error, Result};
pub use operation::{Decode, Encode, Encoded, Operation, Request, Response};
pub use service::{A2aService, EventStream};
pub mod cluster;
pub mod executor;
pub mod handler;
pub mod lifecycle;
pub mod push;
pub mod security;
pub mod stats;
pub mod store;
pub mod trace;

mod execution;

pub use executor::{AgentExecutor, RequestContext, TaskUpdater};
pub use handler::DefaultRequestHandler;
