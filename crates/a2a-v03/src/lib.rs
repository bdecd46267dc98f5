//! A2A 0.3 ⇄ 1.0 translation: 0.3 wire JSON (and the 0.3 protobuf messages) to the 1.0 types of
//! [`a2a_proto::v1`] and back.
//!
//! Most deployed agents still speak A2A 0.3, and an empty `A2A-Version` means 0.3 (spec 3.6.2).
//! This crate lets one 1.0 implementation serve and call them: a binding resolves the version per
//! request at its edge; a 0.3 request is translated into the 1.0 request, the same
//! [`A2aService`](a2a_core::A2aService) runs, and its reply is translated back. Core and the agent
//! executor see one model.
//!
//! ```text
//!   0.3 JSON-RPC (slash methods)  0.3 HTTP+JSON (/v1/...)  0.3 gRPC (package a2a.v1)
//!                │                       │                        │
//!   V03Request::from_jsonrpc        rest::route              proto::ProtoV03
//!                └──────────── a2a-v03: V03 (read liberal, write strict) ──┘
//!                                        │  V03Request::call
//!                          a2a_core::A2aService (1.0, unchanged)
//! ```
//!
//! - [`V03`]: every 1.0 object, request and result with a 0.3 counterpart reads it (liberally,
//!   either [`Form`]) and writes it (strictly, in the [`Form`] asked for). Errors on input are
//!   [`Error::InvalidParams`](a2a_core::Error::InvalidParams) naming the field in 0.3 terms.
//! - [`Method`]: the 0.3 JSON-RPC method names and their 1.0 [`Operation`](a2a_core::Operation).
//! - [`V03Request`] / [`Reply`]: a 0.3 request is the 1.0 [`Request`] of its operation, read and
//!   written by [`V03Request`]; [`V03Request::call`] runs it on any
//!   `A2aService` and returns the 0.3 result or a stream of 0.3 events.
//! - [`rest`]: the 0.3 HTTP+JSON routes as [`Request`]s. [`proto`]: the 0.3 protobuf messages
//!   (`a2a_proto::v0_3`) as 1.0 types, for a gRPC 0.3 service. [`error`]: errors in 0.3 terms.
//! - [`ProtoFileBytes`] ([`file_bytes`]): the two encodings of a file's bytes in the 0.3 proto
//!   (the bytes, or a2a-sdk's base64 text), the rule by which both are read, and the client's
//!   choice of what to send.
//! - [`json::card`]: the "union" agent card (readable by 0.3 and 1.0 clients) and reading any card.
//!
//! # Example: a 0.3 `message/send` and its reply
//!
//! ```
//! use a2a_proto::v1::{SendMessageResponse, Task, TaskState, TaskStatus};
//! use a2a_v03::{Form, Method, Request, V03Request, V03};
//! use serde_json::json;
//!
//! // A 0.3 client calls `message/send`...
//! let params = json!({
//!     "message": {"kind": "message", "messageId": "m1", "role": "user",
//!                 "parts": [{"kind": "text", "text": "tell me a joke"}]},
//!     "configuration": {"blocking": true}
//! });
//! let method = Method::from_name("message/send").unwrap();
//! let Request::SendMessage(request) = Request::from_jsonrpc(method, Some(&params))? else {
//!     unreachable!()
//! };
//! // ...which is the 1.0 SendMessageRequest core serves,
//! assert_eq!(request.message.as_ref().unwrap().text(), "tell me a joke");
//! assert!(!request.configuration.as_ref().unwrap().return_immediately);
//!
//! // and core's 1.0 reply goes back as the 0.3 result.
//! let reply = SendMessageResponse::from(Task {
//!     id: "t1".into(),
//!     context_id: "c1".into(),
//!     status: Some(TaskStatus { state: TaskState::Completed as i32, ..Default::default() }),
//!     ..Default::default()
//! });
//! assert_eq!(
//!     reply.to_v03(Form::Json),
//!     json!({"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"}})
//! );
//! # Ok::<(), a2a_core::Error>(())
//! ```
//!
//! With a service at hand, `Request::from_jsonrpc(..)?.call(&service, &ctx, Form::Json).await?`
//! does the whole round trip, streams included.
//!
//! # Where each piece is used
//!
//! - **Server, JSON-RPC**: a slash method name is 0.3 ([`Method::from_name`]);
//!   [`V03Request::from_jsonrpc`], [`V03Request::call`] with [`Form::Json`], errors with
//!   [`error::to_v03`].
//! - **Server, HTTP+JSON**: a `/v1/` path is 0.3 ([`rest::is_v03_path`]); [`rest::route`],
//!   [`V03Request::call`] with [`Form::ProtoJson`], errors with [`error::to_v03`] as the body.
//! - **Server, gRPC** (package `a2a.v1`): [`ProtoV03`] between the `a2a_proto::v0_3` messages and
//!   the 1.0 requests and replies; [`context_for_core`] for the context;
//!   [`error::in_v03_terms`] for errors.
//! - **Agent card**: the union card `card.to_v03(Form::Json)` at `/.well-known/agent-card.json`
//!   (declare the 0.3 interfaces with [`with_v03_interfaces`]).
//! - **Push notifications** to a webhook registered over 0.3: the body a 0.3 receiver expects is
//!   the `Task` after each event in the JSON form (0.3 spec 9.5), `task.to_v03(Form::Json)`. Core
//!   knows which configs are 0.3 because [`context_for_core`] sets the context's `wire_version` to
//!   0.3; it keeps their notifications as
//!   [`PushPayload::TaskV0_3`](a2a_core::push::PushPayload) and writes them this way, before the
//!   push transport, with the writer the handler is given (`HandlerBuilder::push_v03_body`; the
//!   reference server's is `a2a_server::push_http::task_body_v03`).
//! - **Client** of a 0.3 agent (the `with_protocol_version(ProtocolVersion::V0_3)` mode of each
//!   binding's client): [`AgentCard::from_v03`](a2a_proto::v1::AgentCard) reads any card;
//!   requests are the [`Request`] of the 1.0 request, with [`Method::name`] and
//!   [`V03Request::to_jsonrpc_params`] (JSON-RPC), [`rest::http_call`] (HTTP+JSON) or [`ProtoV03`]
//!   (gRPC); replies are read with [`client::read_reply`] (or [`ProtoV03::from_v03_proto`] and
//!   [`error::invalid_agent_response`]), streams with [`client::read_events`], errors with
//!   [`error::from_v03`], headers with [`client_params`]; `ListTasks` is
//!   [`client::unsupported`]. Over gRPC and HTTP+JSON, a client that talks to an a2a-sdk 0.3
//!   agent sends file bytes as base64 text with [`ProtoFileBytes::encode`] first
//!   ([`file_bytes`]).
//!
//! # The mapping
//!
//! | concept | 0.3 JSON (`a2a.json`) | 0.3 ProtoJSON (`a2a.proto`, HTTP+JSON) | 1.0 | module |
//! | --- | --- | --- | --- | --- |
//! | discriminators | `kind` member | member name | member name | [`json::event`], [`json::part`] |
//! | text part | `{"kind":"text","text"}` | `{"text"}` | `{"text"}` | [`json::part`] |
//! | file part | `{"kind":"file","file":{"bytes"\|"uri","mimeType","name"}}` | `{"file":{"fileWithBytes"\|"fileWithUri","mimeType"}}` | `{"raw"\|"url","mediaType","filename"}` | [`json::part`] |
//! | data part | `{"kind":"data","data":{..}}` | `{"data":{"data":{..}}}` | `{"data": any}` | [`json::part`] |
//! | message parts | `parts` | `content` | `parts` | [`json::message`] |
//! | roles | `user`, `agent` | `ROLE_USER`, `ROLE_AGENT` | `ROLE_USER`, `ROLE_AGENT` | [`json::enums`] |
//! | states | `input-required`, `canceled` (`cancelled` read) | `TASK_STATE_INPUT_REQUIRED`, `TASK_STATE_CANCELLED` | `TASK_STATE_INPUT_REQUIRED`, `TASK_STATE_CANCELED` | [`json::enums`] |
//! | status update | `{"kind":"status-update","final",..}` | `{"statusUpdate":{..,"final"}}` | `{"statusUpdate":{..}}` | [`json::event`] |
//! | push config | `{taskId, pushNotificationConfig:{id,url,token,authentication:{schemes[],credentials}}}` | `{name:"tasks/{t}/pushNotificationConfigs/{id}", pushNotificationConfig}` | flat `{taskId,id,url,token,authentication:{scheme,credentials}}` | [`json::push`] |
//! | send configuration | `blocking`, `pushNotificationConfig` | `blocking`, `pushNotification` | `returnImmediately` (inverted), `taskPushNotificationConfig` | [`json::request`] |
//! | request ids | `id`, `pushNotificationConfigId` | `name`, `parent` resource names | `id` / `taskId`, `id` | [`json::request`] |
//! | methods | `message/send`, `tasks/resubscribe`, ... | `/v1/message:send`, ... | `SendMessage`, `SubscribeToTask`, ... | [`Method`], [`rest`] |
//! | agent card | `url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`, `supportsAuthenticatedExtendedCard` | same (proto) | `supportedInterfaces[]`, `capabilities.extendedAgentCard` | [`json::card`] |
//! | errors | codes -32001..-32007 | same body | ErrorInfo reasons, codes to -32009 | [`error`] |
//!
//! # What has no counterpart (the lossy corners)
//!
//! Input is liberal where the 0.3 spec or the SDKs allow it; output is strict: the JSON form
//! validates against the 0.3 JSON Schema, the ProtoJSON form parses as the 0.3 proto with unknown
//! fields denied (both are tested for everything we write). Where one side has no place for a
//! value, the decision is:
//!
//! | case | direction | decision |
//! | --- | --- | --- |
//! | `final` on status updates | 0.3 → 1.0 | dropped (a 1.0 stream ends instead) |
//! | `final` | 1.0 → 0.3 | `true` on terminal and interrupted states; [`json::event::ends_v03_stream`] ends the 0.3 stream there (also `tasks/resubscribe`, as the 0.3 SDKs did) |
//! | `kind` | both | written on every 0.3 JSON object; on input optional but, if present, checked |
//! | `metadata` of `tasks/get`, `tasks/resubscribe`, push config params | 0.3 → 1.0 | dropped (the 1.0 requests have none) |
//! | `tenant` | 1.0 → 0.3 | dropped; interfaces with a tenant are not offered to 0.3 clients |
//! | per-interface `protocolVersion` | 1.0 → 0.3 | one card-level `protocolVersion: "0.3.0"`; the 0.3 view lists the 0.3 interfaces ([`json::card::with_v03_interfaces`]) |
//! | `stateTransitionHistory` capability | 0.3 → 1.0 | dropped |
//! | file with both `bytes` and `uri` | 0.3 → 1.0 | the bytes are kept, the URI dropped |
//! | `mediaType` / `filename` on text and data parts | 1.0 → 0.3 | dropped (0.3 has them on files only) |
//! | non-object `data` | 1.0 → 0.3 | `{"value": data}` + `metadata.data_part_compat: true` (a2a-python's convention), unwrapped on input |
//! | part metadata, file name, `referenceTaskIds`, `iconUrl` | 1.0 → 0.3 ProtoJSON | dropped (absent from the 0.3.0 proto) |
//! | `authentication.schemes` (list) | 0.3 → 1.0 | the first scheme; further ones dropped |
//! | `historyLength: 0` | 0.3 → 1.0 | no limit (unset), as the 0.3 proto and SDKs read it; 1.0's "no history" is not expressible in 0.3 |
//! | absent `blocking` | 0.3 → 1.0 | blocking in JSON and without a `configuration`; non-blocking in a proto `configuration`, HTTP+JSON body or gRPC message (proto3 never writes `false`: [`json::request::send_message_from_proto`]); we always write `blocking` |
//! | push list paging | 1.0 → 0.3 JSON | dropped (0.3 JSON-RPC lists everything) |
//! | several OAuth2 flows | 0.3 → 1.0 | the first of authorizationCode, clientCredentials, implicit, password |
//! | device code flow, `pkceRequired` | 1.0 → 0.3 | dropped |
//! | `tasks/pushNotificationConfig/get` without config id | 0.3 → 1.0 | the task's first config ([`V03Request::call`]) |
//! | `GET /v1/tasks` | 0.3 | unsupported (not in the 0.3 proto) |
//! | base64 text in proto `bytes` (a2a-sdk 0.3) | 0.3 → 1.0 | detected and decoded ([`file_bytes`]: canonical padded standard base64 is a2a-sdk's text; a raw file that is such text, e.g. `abcd`, is read decoded) |
//! | raw file bytes in proto `bytes` | 1.0 → 0.3 | the bytes (the proto's meaning, @a2a-js/sdk); a client may send a2a-sdk's base64 text instead ([`ProtoFileBytes`]) |
//! | errors without 0.3 code | 1.0 → 0.3 | 1.0's codes (-32008, -32009) and the JSON-RPC binding's (-32010, -32011), 1.0 details in `data` |
//!
//! # Features
//!
//! None. The crate enables `a2a-proto`'s `v0_3` feature for [`proto`].

pub mod client;
mod convert;
pub mod error;
pub mod file_bytes;
pub mod json;
mod method;
pub mod proto;
mod read;
pub mod rest;
mod service;

/// The 1.0 request a 0.3 request is translated into ([`V03Request`] reads and writes it).
pub use a2a_core::Request;
pub use convert::{Form, V03};
pub use file_bytes::ProtoFileBytes;
pub use json::card::{validate_card, with_v03_interfaces};
pub use json::event::ends_v03_stream;
pub use method::Method;
pub use proto::ProtoV03;
pub use service::{client_params, context_for_core, Reply, V03Request, LEGACY_EXTENSIONS_PARAM};
