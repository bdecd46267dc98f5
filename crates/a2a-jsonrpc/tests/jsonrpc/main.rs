//! Integration tests of the JSON-RPC binding: real servers on loopback ports, driven by this
//! crate's client and by hand-written HTTP requests (so a bug shared by client and server cannot
//! hide).

/// Malformed bodies, envelopes and params: each gets its JSON-RPC error, and nothing panics.
mod bad_input;
/// The client against fake peers: transport failures, foreign error shapes, non-conformant replies.
mod client_failures;
/// This crate's client against this crate's server, for each of the 11 operations.
mod client_server;
/// Every `a2a_core::Error` on the wire (code, message, data) and back through the client.
mod errors;
/// Spec 9.4 example requests verbatim, id echoing, ProtoJSON leniency.
mod raw_http;
/// Service parameters and the principal reaching the service.
mod service_params;
/// SSE: event order and ids, errors before and during a stream, keep-alive comments.
mod streaming;
mod support;
/// A2A 0.3 slash methods on the same endpoint: 0.3 shapes and codes, the same service.
#[cfg(feature = "v03")]
mod v03;
/// Without the `v03` feature: 0.3 methods refused with VersionNotSupported, 0.3 clients refused.
#[cfg(not(feature = "v03"))]
mod without_v03;
