//! The A2A JSON-RPC 2.0 binding (spec 9): an axum server for any [`A2aService`] and a client that
//! is one.
//!
//! Where it sits: a binding between `a2a-core` (the operations, [`a2a_core::Error`]) and the wire.
//! It translates JSON-RPC over HTTP to calls of [`A2aService`] and back, and reports only
//! wire-level errors itself (malformed JSON, bad envelope, unknown method, undecodable params);
//! versions, capabilities and required fields are the handler's to check, so the service
//! parameters travel unvalidated in [`CallContext`](a2a_core::CallContext).
//!
//! - Server: [`router`] / [`JsonRpcServer`] serve `POST /` (or another path: [`JsonRpcServer::path`]). Methods are the operation names of
//!   spec 9.4 ([`Operation::method`](a2a_core::Operation::method)), `params` is the operation's
//!   request message in ProtoJSON, the `result` its response message. Streaming methods answer
//!   Server-Sent Events, one JSON-RPC response object per `data:` line. Service parameters come
//!   from the HTTP headers, `A2A-Version` also from the query string; a
//!   [`Principal`](a2a_core::Principal) in the request extensions (put there by an authentication
//!   layer) becomes the context's principal.
//! - Client: [`JsonRpcClient`] implements [`A2aService`], so application code is the same for
//!   every binding.
//! - [`error`]: the JSON-RPC code of every [`a2a_core::Error`] (spec 5.4) and the way back.
//!
//! # Example
//!
//! A client is an [`A2aService`], so it can be served again: a proxy in two lines. Here the
//! upstream agent is unreachable, and the caller sees the proxy's `-32603` as an internal error.
//!
//! ```
//! use std::sync::Arc;
//! use a2a_core::{A2aService, CallContext, Error};
//! use a2a_jsonrpc::{router, JsonRpcClient};
//! use a2a_proto::v1::GetTaskRequest;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! let upstream = JsonRpcClient::new("http://127.0.0.1:9/");
//! let app = router(Arc::new(upstream));
//!
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
//! let url = format!("http://{}/", listener.local_addr()?);
//! tokio::spawn(async move { axum::serve(listener, app).await });
//!
//! let client = JsonRpcClient::new(url);
//! let request = GetTaskRequest { id: "task-1".into(), ..Default::default() };
//! let error = client.get_task(&CallContext::v1(), request).await.unwrap_err();
//! assert!(matches!(error, Error::Internal { .. }), "{error:?}");
//! # Ok(())
//! # }
//! ```
//!
//! # A2A 0.3
//!
//! The same endpoint serves A2A 0.3 clients: a slash method name (`message/send`, `tasks/get`,
//! `tasks/resubscribe`, `tasks/pushNotificationConfig/set`, `agent/getAuthenticatedExtendedCard`,
//! ...) is a 0.3 request, translated by `a2a-v03` to the same [`A2aService`] call and answered in
//! 0.3 shape with 0.3 error codes (SSE for `message/stream` and `tasks/resubscribe`). The method
//! name decides, not `A2A-Version`: a slash method with `A2A-Version: 1.0` is still 0.3, and a
//! PascalCase method is 1.0 with the header deciding its version as before (absent means 0.3,
//! which the handler answers with VersionNotSupported). See `docs/versions.md`.
//!
//! The client speaks 0.3 to a 0.3 agent with
//! [`JsonRpcClient::with_protocol_version`]`(ProtocolVersion::V0_3)`, with the same
//! [`A2aService`] API:
//!
//! | 1.0 operation | 0.3 method (0.3 spec 7) |
//! | --- | --- |
//! | SendMessage, SendStreamingMessage | `message/send`, `message/stream` (SSE) |
//! | GetTask, CancelTask | `tasks/get`, `tasks/cancel` |
//! | SubscribeToTask | `tasks/resubscribe` (SSE) |
//! | Create/Get/List/DeleteTaskPushNotificationConfig | `tasks/pushNotificationConfig/set\|get\|list\|delete` |
//! | GetExtendedAgentCard | `agent/getAuthenticatedExtendedCard` (no `params`) |
//! | ListTasks | none: [`Error::UnsupportedOperation`](a2a_core::Error::UnsupportedOperation), nothing is sent |
//!
//! `params` are the 0.3 JSON of the 0.3 JSON Schema (`a2a-v03` translates; 1.0-only fields such
//! as `tenant` are dropped); the headers are `a2a_v03::client_params` (`A2A-Version: 0.3`, the
//! extensions also in `X-A2A-Extensions`); results that do not translate are
//! `InvalidAgentResponse`; error objects are read by `a2a_v03::error::from_v03` (1.0 details in
//! `data` first, then the 0.3 code); streams end after the `final: true` status update.
//!
//! # Where the spec is silent
//!
//! - **HTTP status**: every JSON-RPC response object, errors included, is sent with status 200
//!   (like the Python, JS and Go SDKs); the JSON-RPC code identifies the error.
//! - **Authentication errors**: `-32010` (unauthenticated) and `-32011` (permission denied); see
//!   [`error`].
//! - **Notifications** (no `id` member): executed, answered with `204 No Content` and no body,
//!   failures included (JSON-RPC 2.0 section 4.1). A streaming notification's stream is dropped
//!   at once, like a client that disconnects. `"id": null` is an ordinary request.
//! - **Batches**: not supported (neither are they by the Python or JS SDKs); an array is answered
//!   with one `-32600` error with id `null`.
//! - **`params`**: may be omitted or `null` (read as `{}`); anything but an object is `-32602`.
//!   Decoding failures are `-32602` with a `google.rpc.BadRequest` naming the field path.
//! - **DeleteTaskPushNotificationConfig** answers `"result": null`, like the Python and JS SDKs
//!   (the proto's `google.protobuf.Empty` would be `{}`); the client accepts any result.
//! - **Body limit**: 16 MiB by default ([`JsonRpcServer::max_body_bytes`]); a larger body is
//!   `-32600`.
//! - **Content-Type** of requests is not checked: a JSON body is enough.
//! - **Errors in a stream** are sent as a plain `data:` event holding the error response, then the
//!   stream ends.
//!
//! # Features
//!
//! - `v03` (on by default): A2A 0.3 beside 1.0, as above, through `a2a-v03`. Without it the
//!   binding serves and calls 1.0 only: a request with one of the ten 0.3 method names is
//!   answered with VersionNotSupported (`-32009`, version `0.3`, supported `1.0`) in the 1.0
//!   envelope, before anything reaches the service, and a client built
//!   [`with_protocol_version`](JsonRpcClient::with_protocol_version)`(ProtocolVersion::V0_3)`
//!   fails every call with `UnsupportedOperation`, sending nothing.
//! - `tls`: HTTPS for the client (rustls). Off by default.
//! - `fuzzing`: a hidden module of entry points into private decoders for the `cargo fuzz`
//!   targets in `fuzz/` (see `docs/fuzzing.md`); not an API. Off by default; turns `v03` on.

// Lets the docs above link `[`A2aService`]` without spelling the path each time.
#[cfg(doc)]
use a2a_core::A2aService;

pub mod client;
#[cfg(feature = "v03")]
mod client_v03;
mod context;
mod dispatch;
mod envelope;
pub mod error;
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;
pub mod server;
mod sse;
// Without the feature, `v03` is the stand-in that refuses 0.3 (same items, no translation).
#[cfg_attr(not(feature = "v03"), path = "without_v03.rs")]
mod v03;

pub use client::JsonRpcClient;
pub use server::{error_response, normalize_path, router, JsonRpcServer};
