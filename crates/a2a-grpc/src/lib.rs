//! The A2A gRPC binding (spec 10): a tonic server for any [`a2a_core::A2aService`], and a tonic
//! client that is one.
//!
//! Where it sits: between `a2a-core` (the operations, as the [`a2a_core::A2aService`] trait, and
//! [`a2a_core::Error`]) and the wire, beside the JSON-RPC and REST bindings, which it does not
//! know. The messages are `a2a-proto`'s generated types, sent as they are; this crate only
//! translates metadata and errors.
//!
//! - [`server`] / [`GrpcService`]: `lf.a2a.v1.A2AService` over any `A2aService`. Service
//!   parameters come from the metadata (spec 10.2), an authenticated
//!   [`Principal`](a2a_core::Principal) from the request extensions; nothing is validated here
//!   (that is the handler's job, the same for every binding).
//! - [`GrpcClient`]: calls a remote agent and implements `A2aService`, so code written against
//!   the trait runs over any binding, or in process.
//! - [`error`]: the mapping between [`a2a_core::Error`] and `tonic::Status` (spec 5.4, 10.6),
//!   with `google.rpc.ErrorInfo` and `google.rpc.BadRequest` details.
//! - [`metadata`]: service parameters as gRPC metadata.
//! - [`server_v03`] / [`GrpcServiceV03`]: A2A 0.3's `a2a.v1.A2AService` over the same
//!   `A2aService`, translated by `a2a-v03`; add it beside [`server`] to serve 0.3 and 1.0 clients
//!   on one port (the package decides the version, not the `a2a-version` metadata).
//!
//! # A2A 0.3
//!
//! [`server_v03`] serves 0.3 clients beside 1.0 ones (`docs/versions.md`). The client speaks 0.3
//! to a 0.3 agent with [`GrpcClient::with_protocol_version`]`(ProtocolVersion::V0_3)`, with the
//! same [`a2a_core::A2aService`] API, on 0.3's `a2a.v1.A2AService`:
//!
//! The 0.3 RPC of each 1.0 operation (`TaskSubscription` is SubscribeToTask, `GetAgentCard` is
//! GetExtendedAgentCard, ListTasks has none and fails with
//! [`Error::UnsupportedOperation`](a2a_core::Error::UnsupportedOperation) without sending
//! anything) is `a2a_v03::Method::rpc`; `docs/versions.md` has the table.
//!
//! Messages are translated by `a2a-v03` (`ProtoV03`; 1.0-only fields such as `tenant` are
//! dropped); the metadata carries `a2a-version: 0.3` and the extensions also in
//! `x-a2a-extensions`; replies that do not translate are `InvalidAgentResponse`. Errors: an A2A
//! `ErrorInfo` or a `BadRequest` decides as for 1.0; without them the 0.3 code in the `a2a-error`
//! metadata entry (a2a-js) decides, then the status code. Streams end after the `final: true`
//! status update. File bytes go into `file_with_bytes` as the bytes, or as a2a-sdk
//! (Python) 0.3 expects them (the UTF-8 of their base64 text) with
//! [`GrpcClient::with_v03_file_bytes`]; both are read, in requests and replies
//! (`a2a_v03::file_bytes`).
//!
//! # Example
//! ```no_run
//! use std::sync::Arc;
//!
//! use a2a_core::{A2aService, CallContext};
//! use a2a_grpc::GrpcClient;
//! use a2a_proto::v1::GetTaskRequest;
//!
//! # async fn example(agent: Arc<dyn A2aService>) -> Result<(), Box<dyn std::error::Error>> {
//! // Serve an agent (any A2aService, e.g. the core request handler) on port 50051.
//! tokio::spawn(
//!     tonic::transport::Server::builder()
//!         .add_service(a2a_grpc::server(agent))
//!         .serve("127.0.0.1:50051".parse()?),
//! );
//!
//! // Call it by the address its agent card advertises for GRPC.
//! let client = GrpcClient::connect("127.0.0.1:50051").await?;
//! let request = GetTaskRequest { id: "task-123".into(), ..Default::default() };
//! match client.get_task(&CallContext::v1(), request).await {
//!     Ok(task) => println!("{:?}", task.state()),
//!     Err(a2a_core::Error::TaskNotFound { task_id }) => println!("no task {task_id}"),
//!     Err(other) => return Err(other.into()),
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//! - `v03` (on by default): A2A 0.3 beside 1.0, as above, through `a2a-v03`. Without it the
//!   binding serves and calls 1.0 only: [`server_v03`] still serves 0.3's package but answers
//!   every call with VersionNotSupported (`FAILED_PRECONDITION` with its `ErrorInfo`, version
//!   `0.3`, supported `1.0`), before anything reaches the service, and a client built
//!   [`with_protocol_version`](GrpcClient::with_protocol_version)`(ProtocolVersion::V0_3)` fails
//!   every call with UnsupportedOperation, sending nothing.
//! - `tls`: `https://` endpoints (and bare `host:443`) for [`GrpcClient::connect`], with rustls
//!   and the system's root certificates. Without it, use plain `http://` or build your own
//!   [`tonic::transport::Channel`] for [`GrpcClient::new`].
//! - `fuzzing`: a hidden module of entry points into private decoders for the `cargo fuzz`
//!   targets in `fuzz/` (see `docs/fuzzing.md`); not an API. Turns `v03` on.

mod client;
#[cfg(feature = "v03")]
mod client_v03;
pub mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod guard;
pub mod metadata;
mod server;
mod stream;
// Without the feature, `v03` is the stand-in that refuses 0.3 (same items, no translation).
#[cfg_attr(not(feature = "v03"), path = "without_v03.rs")]
mod v03;

pub use a2a_proto::v1::grpc::a2a_service_server::A2aServiceServer;
pub use client::GrpcClient;
pub use server::{server, GrpcService};
pub use v03::{server_v03, GrpcServiceV03};

/// The default limit on the size of one request or reply message, in both directions and on
/// both sides: 16 MiB. tonic's own default (4 MiB to decode) is easily exceeded by a message
/// carrying a file inline (`Part.raw`); a limit still bounds what one call can make a peer
/// allocate.
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;
