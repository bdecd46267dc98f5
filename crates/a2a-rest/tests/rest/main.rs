//! Integration tests of the REST binding: real servers on 127.0.0.1 port 0.
//!
//! - `support`: the scripted `A2aService` and the test server.
//! - `client_server`: our client against our server, for all 11 operations.
//! - `raw_http`: hand-written requests from the spec's examples (sections 3.6, 6, 11) against our
//!   server, so that a mistake shared by client and server cannot hide.
//! - `errors`: every `a2a_core::Error` on the wire (status, body, ErrorInfo) and back through
//!   the client, including streams.
//! - `bad_inputs`: wire-level rejections and inputs that must never reach the service.
//! - `v03`: the A2A 0.3 routes under `/v1/...` beside the 1.0 ones (the `v03` feature).
//! - `without_v03`: without the `v03` feature, those routes refused with VersionNotSupported.

mod bad_inputs;
mod client_server;
mod errors;
mod raw_http;
mod support;
#[cfg(feature = "v03")]
mod v03;
#[cfg(not(feature = "v03"))]
mod without_v03;
