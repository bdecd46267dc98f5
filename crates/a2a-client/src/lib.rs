//! The card-driven A2A client: reads an agent's card, picks the best (binding, protocol version)
//! both sides support, and calls the agent through the same [`A2aService`] trait the server side
//! implements.
//!
//! Where it sits: on top of the binding clients (`a2a-jsonrpc`, `a2a-rest`, `a2a-grpc`, each
//! behind a feature) and `a2a-v03` (reading any card, speaking 0.3). It adds no protocol logic of
//! its own, only the choice: which interface of the card to use, in which version, with which
//! tenant.
//!
//! - [`Client::connect`] fetches `{base}/.well-known/agent-card.json` (spec 8.2), reads it whatever
//!   its version (1.0, 0.3, or the union card of a server speaking both), negotiates and returns a
//!   [`Client`]. [`ClientBuilder::from_card`] does the same from a card at hand.
//! - [`Client`] implements [`A2aService`]; [`Client::selected`] says what was chosen
//!   ([`Selected`]: binding, protocol version, URL, tenant).
//! - [`ClientBuilder`]: [`bindings`](ClientBuilder::bindings) (which, in what order),
//!   [`protocol_version`](ClientBuilder::protocol_version) (pin one),
//!   [`http_client`](ClientBuilder::http_client) (timeouts, proxies, TLS),
//!   [`credentials`](ClientBuilder::credentials) (see below),
//!   [`root_certificate`](ClientBuilder::root_certificate) (a private CA),
//!   [`service_params`](ClientBuilder::service_params) (extensions, any parameter: sent with
//!   every call on every binding), [`retry`](ClientBuilder::retry) (see [`resilience`]),
//!   [`card_cache`](ClientBuilder::card_cache) (cards kept per HTTP caching headers,
//!   [`CardCache`]), [`v03_file_bytes`](ClientBuilder::v03_file_bytes) (how file bytes are sent
//!   to a 0.3 agent over gRPC and HTTP+JSON: [`ProtoFileBytes`]; a2a-sdk 0.3 agents need
//!   [`ProtoFileBytes::Base64Text`]).
//! - [`resilience`]: idempotent reads are retried after a transport failure, with backoff
//!   ([`RetryPolicy`]); [`Client::follow_task`] resubscribes to a task after a dropped stream.
//! - [`credentials`]: what the caller holds ([`Credentials`]: an API key, a bearer token fixed or
//!   from a [`TokenSource`], HTTP Basic, a client certificate for mutual TLS), presented as the
//!   card's `securitySchemes` and `securityRequirements` declare and never as a scheme it does not
//!   declare; [`Client::unmet_security`] says what the credentials lack, [`Client::refusal`]
//!   reads an `Unauthenticated` error (the `WWW-Authenticate` challenges, the card's schemes); a
//!   token source is refreshed once after a refusal and the call repeated once.
//! - [`ClientBuilder::binding_client`]: the raw binding client for exactly one interface and
//!   version, without negotiation, retries or default parameters (the caller's [`CallContext`]
//!   is sent as it is), the interface's tenant on every request ([`WithTenant`]): for probing an
//!   agent as it is (the conformance suite, the interop driver, the benchmarks).
//! - [`negotiate`]: the rules. In short: among the card's interfaces whose binding is compiled in
//!   and allowed and whose version is 1.0 or 0.3, prefer 1.0, then the caller's binding order,
//!   then the card's order; a pinned version never falls back (spec 3.6.3).
//!
//! # Example
//!
//! ```
//! use a2a_client::{Binding, Client};
//! use a2a_core::{A2aService, CallContext, ProtocolVersion};
//! use a2a_proto::v1::{send_message_response::Payload, Message, SendMessageRequest};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! # let server = a2a_server::Server::builder()
//! #     .agent_card(a2a_demo::demo_card())
//! #     .executor(a2a_demo::DemoAgent)
//! #     .spawn(listener)
//! #     .await?;
//! # let base_url = server.url();
//! // The card of this agent offers JSON-RPC, HTTP+JSON and gRPC, each in 1.0 and 0.3.
//! let agent = Client::connect(&base_url).await?;
//! assert_eq!(agent.selected().binding(), Binding::JsonRpc, "the card's first interface");
//! assert_eq!(agent.selected().protocol_version(), ProtocolVersion::V1_0, "1.0 is preferred");
//!
//! let request = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
//! let Some(Payload::Task(task)) = agent.send_message(&CallContext::v1(), request).await?.payload else {
//!     panic!("the demo agent answers with a task")
//! };
//! println!("{:?}", task.state());
//!
//! // The same calls over gRPC in A2A 0.3, because the caller asks for it.
//! let old = Client::builder()
//!     .bindings([Binding::Grpc])
//!     .protocol_version(ProtocolVersion::V0_3)
//!     .connect(&base_url)
//!     .await?;
//! assert_eq!(old.selected().to_string(), format!("GRPC 0.3 at {}", server.addr()));
//! # server.shutdown().await?;
//! # Ok(())
//! # }
//! ```
//!
//! # Errors
//!
//! Everything is an [`a2a_core::Error`]: a card that cannot be fetched is
//! [`Transport`](a2a_core::Error::Transport) (401/403: `Unauthenticated`/`PermissionDenied`), one
//! that cannot be read is [`InvalidAgentResponse`](a2a_core::Error::InvalidAgentResponse) naming
//! the field, a card without a usable interface is
//! [`UnsupportedOperation`](a2a_core::Error::UnsupportedOperation) listing what it offers; calls
//! fail as the binding clients' do. Over a 0.3 interface `ListTasks` (which 0.3 lacks) is
//! `UnsupportedOperation`, without a request.
//!
//! # Features
//!
//! - `jsonrpc`, `rest`, `grpc` (all default): the bindings compiled in; interfaces of the others
//!   are ignored by negotiation.
//! - `v03` (default): A2A 0.3, the bindings' `v03` feature. Without it [`SUPPORTED_VERSIONS`] is
//!   1.0 alone: negotiation ignores 0.3 interfaces, and [`ClientBuilder::binding_client`] refuses
//!   0.3 with `UnsupportedOperation`. Cards are read whatever their version either way.
//! - `tls`: HTTPS (rustls) for the card and every binding. Off by default, like the binding
//!   crates' `tls`; without it an `https` interface is a clear error when the client is built.

mod binding;
mod card_cache;
mod client;
pub mod credentials;
pub mod negotiate;
pub mod resilience;
mod tenant;

/// How file bytes are sent to 0.3 agents over gRPC and HTTP+JSON
/// ([`ClientBuilder::v03_file_bytes`]); from `a2a-v03`.
pub use a2a_v03::ProtoFileBytes;
pub use binding::Binding;
pub use card_cache::CardCache;
pub use client::{Client, ClientBuilder, AGENT_CARD_PATH};
pub use credentials::{
    Challenge, ClientCertificate, CredentialKind, Credentials, MissingRequirement, Presentation, Refusal,
    TokenSource,
};
pub use negotiate::{Selected, SUPPORTED_VERSIONS};
pub use resilience::RetryPolicy;
pub use tenant::WithTenant;

// Lets the docs above link `[`A2aService`]` without spelling the path each time.
#[cfg(doc)]
use a2a_core::{A2aService, CallContext};
