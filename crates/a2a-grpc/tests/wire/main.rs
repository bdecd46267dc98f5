//! Integration tests of the gRPC binding over real connections on 127.0.0.1: our client and
//! server together, and each of them against the generated tonic code alone.
//!
//! One test binary (modules below) so the workspace links it once.

mod support;

/// How `GrpcClient` reaches an agent: endpoints, path prefixes, connection failures.
mod connect;
/// Every `a2a_core::Error` on the wire and back (spec 5.4, 10.6).
mod errors;
/// A server whose status details tonic cannot decode (the client's guard).
mod hostile;
/// Service parameters and the principal in the `CallContext` (spec 10.2).
mod metadata;
/// The 11 operations through client and server, and message size limits.
mod operations;
/// The server seen by the generated tonic client and by malformed input.
mod raw;
/// Server streaming: order, mid-stream errors, disconnects (spec 10.7).
mod streaming;
/// A2A 0.3's `a2a.v1.A2AService` (`server_v03`) beside 1.0's on one server.
#[cfg(feature = "v03")]
mod v03;
/// Without the `v03` feature: `server_v03` refuses every call with VersionNotSupported.
#[cfg(not(feature = "v03"))]
mod without_v03;
