//! The A2A HTTP+JSON/REST binding (spec 11): an axum router serving any
//! [`A2aService`](a2a_core::A2aService), and [`RestClient`], which implements the same trait by
//! calling a remote agent.
//!
//! Where it sits: one of the three bindings above `a2a-core`. It translates HTTP requests into
//! calls of `A2aService` and the results back (ProtoJSON bodies, SSE streams, spec 11.6 errors),
//! and validates only what is wire-level: routes, methods, content types, body size, JSON syntax
//! and query values. Versions, capabilities, required fields and ranges are the handler's to
//! check. Every request header reaches the handler as a service parameter in the
//! [`CallContext`](a2a_core::CallContext), and so does the `A2A-Version` query parameter when no
//! header carries it (spec 3.6.1). An [`a2a_core::Principal`] put into the request extensions by
//! an authentication layer is passed on too.
//!
//! # Example
//! ```no_run
//! use std::sync::Arc;
//!
//! use a2a_core::{A2aService, CallContext};
//! use a2a_proto::v1::{Message, SendMessageRequest};
//!
//! // Server: any A2aService (usually a2a-core's handler) behind the REST routes.
//! async fn serve(service: Arc<dyn A2aService>) -> std::io::Result<()> {
//!     let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//!     axum::serve(listener, a2a_rest::router(service)).await
//! }
//!
//! // Client: the same trait, over the network.
//! async fn ask() -> Result<(), Box<dyn std::error::Error>> {
//!     let agent = a2a_rest::RestClient::new("http://127.0.0.1:8080")?;
//!     let request = SendMessageRequest { message: Some(Message::user_text("Hello")), ..Default::default() };
//!     let reply = agent.send_message(&CallContext::v1(), request).await?;
//!     println!("{reply:?}");
//!     Ok(())
//! }
//! ```
//!
//! # Routes
//! The `google.api.http` annotations of a2a.proto, each also under `/{tenant}/...`, which sets
//! the request's `tenant` field:
//!
//! the route of each operation is in `docs/bindings.md` (the binding tables) and in the code, the
//! one table `routes.rs` matches against: POST routes take the request message as their body
//! (`body: "*"`, an empty body is `{}`), GET and DELETE routes its scalar fields as the query,
//! and SubscribeToTask is served on `POST` (spec 11.3.2) and `GET` (the proto's annotation).
//!
//! - Path variables are percent-decoded; a value for the same field in the body or query must
//!   agree with the path (or be empty), otherwise the call is InvalidParams naming the field.
//! - When a path matches both a plain and a tenant template (`GET /tasks/tasks`), the plain one
//!   wins if it accepts the method. A known path with the wrong method is 405 with `Allow`; an
//!   unknown path is 404 (MethodNotFound), both with the JSON error body.
//! - Bodies: `application/a2a+json` or `application/json` (or no `Content-Type`); a non-empty
//!   body of another type is 415. Bodies over the limit (16 MiB by default,
//!   [`RestServer::max_body_bytes`]) are 413.
//! - Query parameters (spec 11.5): camelCase names (snake_case accepted), enums by name or number,
//!   booleans `true`/`false`, timestamps in ISO 8601; unknown parameters are ignored. An
//!   unparsable value is InvalidParams naming the parameter; range checks are the handler's.
//! - Responses are `application/a2a+json`. DeleteTaskPushNotificationConfig answers 200 with `{}`
//!   (google.protobuf.Empty, as the Python SDK does); the client also accepts 204.
//! - SSE (spec 11.7): one `data:` line per `StreamResponse`, a keep-alive comment every 15 s, and
//!   an error after the stream started is sent as a last event named `error` whose data is the
//!   error body below. Errors found before the stream starts are ordinary error responses.
//!
//! # A2A 0.3
//! The same router serves A2A 0.3 clients: every path under `/v1/` is a 0.3 route (`POST
//! /v1/message:send`, `GET /v1/tasks/{id}`, `GET /v1/card`, ...; 0.3 spec 3.5.6), translated by
//! `a2a-v03` to the same [`A2aService`](a2a_core::A2aService) call and answered in 0.3 shape
//! (ProtoJSON of the 0.3 proto, `application/json`) with the 0.3 error body `{"code",
//! "message", "data"}`. The path decides, not `A2A-Version`. Consequence: `/v1/...` is never a
//! 1.0 route of a tenant named `v1`; that tenant must put `tenant` in the body or query of the
//! unprefixed routes. See `docs/versions.md`.
//!
//! The client speaks 0.3 to a 0.3 agent with
//! [`RestClient::with_protocol_version`]`(ProtocolVersion::V0_3)`, with the same
//! [`A2aService`](a2a_core::A2aService) API: the routes above (appended to the base URL), bodies
//! in ProtoJSON of the 0.3 proto (`a2a-v03` translates; 1.0-only fields such as `tenant` are
//! dropped, so the client's tenant is not used), `A2A-Version: 0.3` and the extensions also in
//! `X-A2A-Extensions`. `tasks/{id}:subscribe` is POSTed, and asked again with GET after a 405.
//! Errors are read from the 0.3 error object (its 1.0 details first), else a 1.0 error body,
//! else the HTTP status (also a2a-python's 0.3 statuses: 422 invalid params, 404 with a
//! `{"message"}` body task not found). Streams end after the `final: true` status update.
//! ListTasks has no 0.3 route (`GET /v1/tasks` is in the 0.3 spec's table but not in its proto,
//! and no SDK serves it): it fails with UnsupportedOperation without sending anything. File
//! bytes go into `fileWithBytes` as the bytes, or as a2a-sdk (Python) 0.3 expects them (the
//! UTF-8 of their base64 text) with [`RestClient::with_v03_file_bytes`]; both are read, in
//! requests and replies (`a2a_v03::file_bytes`).
//!
//! # Errors
//! Spec 11.6: `{"error":{"code":<HTTP status>,"status":"<google.rpc.Code>","message":"..",
//! "details":[..]}}` where `details` holds a `google.rpc.ErrorInfo` (domain `a2a-protocol.org`)
//! for A2A errors and a `google.rpc.BadRequest` for invalid parameters. HTTP statuses follow
//! spec 5.4 (1.0.1):
//!
//! | Error | HTTP | `status` |
//! | :-- | :-- | :-- |
//! | TaskNotFound | 404 | `NOT_FOUND` |
//! | TaskNotCancelable, PushNotificationNotSupported, UnsupportedOperation, ExtendedAgentCardNotConfigured, ExtensionSupportRequired, VersionNotSupported | 400 | `FAILED_PRECONDITION` |
//! | ContentTypeNotSupported, ParseError, InvalidRequest, InvalidParams | 400 | `INVALID_ARGUMENT` |
//! | InvalidAgentResponse, Internal | 500 | `INTERNAL` |
//! | MethodNotFound | 404 (405 for a known path) | `UNIMPLEMENTED` |
//! | Unauthenticated | 401 | `UNAUTHENTICATED` |
//! | PermissionDenied | 403 | `PERMISSION_DENIED` |
//! | Transport (client-side; never expected on a server) | 503 | `UNAVAILABLE` |
//!
//! Wire-level rejections keep their error's body and `status` but send the precise HTTP status:
//! 405 with `Allow` (MethodNotFound), 413 and 415 (InvalidRequest). [`error_response`] renders
//! any error this way, e.g. for an authentication layer in front of the router.
//!
//! The client rebuilds the error from the ErrorInfo `reason` (or BadRequest); without one it
//! falls back on the HTTP status, reading the 1.0.0 statuses some peers still send (409
//! TaskNotCancelable, 415 ContentTypeNotSupported, 501 UnsupportedOperation, 502
//! InvalidAgentResponse). ParseError and InvalidRequest look alike on the wire (400,
//! `INVALID_ARGUMENT`, no details) and both come back as InvalidRequest. Connection failures and
//! replies that are not A2A replies are [`Error::Transport`](a2a_core::Error::Transport).
//!
//! # Features
//! - `v03` (on by default): A2A 0.3 beside 1.0, as above, through `a2a-v03`. Without it the
//!   router serves and the client calls 1.0 only: every path under `/v1/` is answered with
//!   VersionNotSupported (400, `FAILED_PRECONDITION`, version `0.3`, supported `1.0`) in the 1.0
//!   error body, before anything reaches the service, and a client built
//!   [`with_protocol_version`](RestClient::with_protocol_version)`(ProtocolVersion::V0_3)` fails
//!   every call with UnsupportedOperation, sending nothing.
//! - `tls`: HTTPS for the client (rustls).
//! - `fuzzing`: a hidden module of entry points into private decoders for the `cargo fuzz`
//!   targets in `fuzz/` (see `docs/fuzzing.md`); not an API. Turns `v03` on.

mod client;
#[cfg(feature = "v03")]
mod client_v03;
mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
mod query;
mod routes;
mod server;
mod sse;
// Without the feature, `v03` is the stand-in that refuses 0.3 (same items, no translation).
#[cfg_attr(not(feature = "v03"), path = "without_v03.rs")]
mod v03;

pub use client::RestClient;
pub use error::error_response;
pub use server::{router, RestServer, DEFAULT_KEEP_ALIVE, DEFAULT_MAX_BODY_BYTES};

/// The media type of A2A JSON bodies (spec 14.1.1).
pub const A2A_JSON: &str = "application/a2a+json";
