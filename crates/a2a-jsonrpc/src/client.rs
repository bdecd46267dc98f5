//! The client: [`JsonRpcClient`] implements [`A2aService`](a2a_core::A2aService) by POSTing
//! JSON-RPC requests (spec 9).
//!
//! Failures map as follows:
//! - a JSON-RPC error object: the error its details or code name ([`crate::error::from_wire`]),
//!   whatever the HTTP status;
//! - HTTP 401 / 403 without a JSON-RPC body (e.g. from an authenticating proxy):
//!   [`Error::Unauthenticated`] / [`Error::PermissionDenied`];
//! - no connection, any other HTTP error, a body that is not a JSON-RPC response for this request:
//!   [`Error::Transport`];
//! - a well-formed response whose `result` does not decode as the method's result type:
//!   [`Error::InvalidAgentResponse`] (spec 3.3.2: the agent's reply does not conform).
//!
//! With [`JsonRpcClient::with_protocol_version`]`(ProtocolVersion::V0_3)` the same calls speak
//! A2A 0.3 (crate docs, *A2A 0.3*).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use a2a_core::carriage::Carriage;
use a2a_core::{CallContext, Decode, Error, Operation, ProtocolVersion, Request, Response, ServiceParams};
use a2a_proto::WireMessage;
use async_trait::async_trait;
use http::{header, HeaderName, HeaderValue, StatusCode};
use serde::Serialize;
use serde_json::value::RawValue;

use crate::envelope::ReadError;
use crate::{envelope, error, sse};

/// An A2A agent reached over JSON-RPC, usable wherever an [`A2aService`](a2a_core::A2aService) is.
///
/// Each call sends the context's service parameters as HTTP headers, plus `A2A-Version: 1.0` when
/// the context names no version (spec 3.6.1). Request ids are numbers, unique per client (clones
/// share the counter). Cloning is cheap.
///
/// [`with_protocol_version`](Self::with_protocol_version)`(ProtocolVersion::V0_3)` makes it a
/// client of an A2A 0.3 agent with the same API: 0.3 method names and shapes on the wire,
/// `A2A-Version: 0.3`, 0.3 errors read back (crate docs, *A2A 0.3*).
///
/// ```no_run
/// # async fn demo() -> Result<(), a2a_core::Error> {
/// use a2a_core::{A2aService, CallContext};
/// use a2a_jsonrpc::JsonRpcClient;
/// use a2a_proto::v1::GetTaskRequest;
///
/// let client = JsonRpcClient::new("http://localhost:8080/");
/// let request = GetTaskRequest { id: "task-1".into(), ..Default::default() };
/// let task = client.get_task(&CallContext::v1(), request).await?;
/// println!("{:?}", task.state());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct JsonRpcClient {
    wire: Wire,
    /// The protocol version's carriage, chosen when the client is built.
    carriage: Arc<dyn Carriage<Wire>>,
}

impl JsonRpcClient {
    /// A client for the JSON-RPC endpoint at `url` (the `url` of the agent card's interface). An
    /// invalid URL is reported by each call as [`Error::Transport`].
    pub fn new(url: impl Into<String>) -> Self {
        JsonRpcClient {
            wire: Wire {
                url: url.into(),
                http: reqwest::Client::new(),
                next_id: Arc::new(AtomicU64::new(1)),
            },
            carriage: Arc::new(V1),
        }
    }

    /// Speaks `version` to the agent: [`ProtocolVersion::V1_0`] (the default) or
    /// [`ProtocolVersion::V0_3`], for an agent (or an interface of its card) that speaks A2A 0.3.
    /// The [`A2aService`](a2a_core::A2aService) API is the same; the crate docs (*A2A 0.3*) say
    /// what 0.3 changes.
    /// Without this crate's `v03` feature, a 0.3 client fails every call with
    /// [`Error::UnsupportedOperation`] and sends nothing.
    #[must_use]
    pub fn with_protocol_version(self, version: ProtocolVersion) -> Self {
        Self { carriage: a2a_core::carriage_of!(version, V1, crate::client_v03::V03, "a2a-jsonrpc"), ..self }
    }

    /// Uses `http` for the requests (timeouts, TLS roots, proxies, default headers).
    pub fn with_http_client(mut self, http: reqwest::Client) -> Self {
        self.wire.http = http;
        self
    }

    /// The endpoint URL.
    pub fn url(&self) -> &str {
        &self.wire.url
    }
}

/// The connection both versions are carried over: the endpoint, the HTTP client and the request
/// id counter. Every call is a POST of a JSON-RPC request object.
#[derive(Clone)]
#[doc(hidden)]
pub struct Wire {
    url: String,
    http: reqwest::Client,
    next_id: Arc<AtomicU64>,
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wire").finish_non_exhaustive()
    }
}

impl Wire {
    /// Calls a unary method with the service parameters `params`; returns its raw `result`.
    /// Error objects are read by `read_error`.
    pub(crate) async fn call<P: Serialize>(
        &self,
        params: &ServiceParams,
        method: &str,
        body: Option<&P>,
        read_error: ReadError,
    ) -> Result<Box<RawValue>, Error> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let response = self.post(params, method, id, body, "application/json").await?;
        let status = response.status();
        let challenges = challenges(&response);
        let body =
            response.bytes().await.map_err(|e| self.transport("reading the response of", method, &e))?;
        if !status.is_success() {
            return Err(http_error(status, &body, id, read_error).with_challenges(&challenges));
        }
        envelope::parse_response(&body, id, read_error).map(ToOwned::to_owned)
    }

    /// Calls a streaming method; returns the `text/event-stream` response and the request id.
    /// Errors the server reports before the stream starts come back as an ordinary JSON response
    /// and are returned here, read by `read_error`.
    pub(crate) async fn open_stream<P: Serialize>(
        &self,
        params: &ServiceParams,
        method: &str,
        body: Option<&P>,
        read_error: ReadError,
    ) -> Result<(reqwest::Response, u64), Error> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let response = self.post(params, method, id, body, "text/event-stream").await?;
        let status = response.status();
        let is_event_stream = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim_start().to_ascii_lowercase().starts_with("text/event-stream"));
        if status.is_success() && is_event_stream {
            return Ok((response, id));
        }
        let challenges = challenges(&response);
        let body =
            response.bytes().await.map_err(|e| self.transport("reading the response of", method, &e))?;
        if !status.is_success() {
            return Err(http_error(status, &body, id, read_error).with_challenges(&challenges));
        }
        envelope::parse_response(&body, id, read_error)?;
        Err(Error::Transport {
            reason: format!("{method} was answered with a single result instead of text/event-stream"),
        })
    }

    async fn post<P: Serialize>(
        &self,
        params: &ServiceParams,
        method: &str,
        id: u64,
        body: Option<&P>,
        accept: &'static str,
    ) -> Result<reqwest::Response, Error> {
        let body = envelope::request(id, method, body)?;
        let mut request = self
            .http
            .post(&self.url)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, accept);
        // Framing and credentials of a context copied from an incoming request are not forwarded.
        for (name, value) in params.to_send().outgoing() {
            let header_name = HeaderName::from_bytes(name.as_bytes());
            let header_value = HeaderValue::from_str(value);
            let (Ok(header_name), Ok(header_value)) = (header_name, header_value) else {
                return Err(Error::Transport {
                    reason: format!("service parameter {name:?} cannot be sent as an HTTP header"),
                });
            };
            request = request.header(header_name, header_value);
        }
        request.body(body).send().await.map_err(|e| self.transport("sending", method, &e))
    }

    fn transport(&self, doing: &str, method: &str, error: &reqwest::Error) -> Error {
        Error::Transport {
            reason: format!("{doing} {method} to {}: {}", self.url, a2a_core::error::error_chain(error)),
        }
    }
}

/// A2A 1.0: the methods of spec 9.4 ([`Operation::method`]), the request message in ProtoJSON
/// as `params`, the context's parameters as headers, errors by [`error::from_wire`].
struct V1;

#[async_trait]
impl Carriage<Wire> for V1 {
    async fn call(&self, wire: &Wire, ctx: &CallContext, request: Request) -> Result<Response, Error> {
        let operation = request.operation();
        let (method, params) = (operation.method(), Some(&request));
        if operation.is_streaming() {
            let (response, id) = wire.open_stream(&ctx.params, method, params, error::from_wire).await?;
            return Ok(Response::Stream(sse::events(response, id)));
        }
        let result = wire.call(&ctx.params, method, params, error::from_wire).await?;
        // DeleteTaskPushNotificationConfig reads nothing: servers answer `null` (Python, JS, this
        // crate) or `{}` (google.protobuf.Empty in ProtoJSON); any result means success.
        Response::decode(operation, ResultOf { operation, result: &result })
    }

    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V1_0
    }
}

/// The `result` of a unary 1.0 method, read as the operation's result message.
struct ResultOf<'a> {
    operation: Operation,
    result: &'a RawValue,
}

impl Decode for ResultOf<'_> {
    fn decode<M: WireMessage>(self) -> Result<M, Error> {
        a2a_proto::json::from_slice::<M>(self.result.get().as_bytes()).map_err(|e| {
            Error::InvalidAgentResponse {
                reason: format!("the {} result is not a {}: {e}", self.operation, M::NAME),
            }
        })
    }
}

impl fmt::Debug for JsonRpcClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonRpcClient")
            .field("url", &self.wire.url)
            .field("version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

/// The `WWW-Authenticate` values of an answer (RFC 9110 11.6.1), for [`Error::with_challenges`].
fn challenges(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all(header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect()
}

/// The error of a non-2xx answer: its JSON-RPC error object if it has one, else by status.
fn http_error(status: StatusCode, body: &[u8], id: u64, read_error: ReadError) -> Error {
    match envelope::parse_response(body, id, read_error) {
        Err(error) if !matches!(error, Error::Transport { .. }) => error,
        _ => by_status(status, body),
    }
}

/// The error of a non-2xx answer without a JSON-RPC error object.
fn by_status(status: StatusCode, body: &[u8]) -> Error {
    const SHOWN: usize = 200;
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    let detail = match text.char_indices().nth(SHOWN) {
        _ if text.is_empty() => status.to_string(),
        Some((cut, _)) => format!("{status}: {}…", &text[..cut]),
        None => format!("{status}: {text}"),
    };
    match status {
        StatusCode::UNAUTHORIZED => Error::Unauthenticated { reason: detail },
        StatusCode::FORBIDDEN => Error::PermissionDenied { reason: detail },
        _ => Error::Transport { reason: format!("HTTP {detail}") },
    }
}

// Each call is carried by the protocol version's carriage, chosen when the client was built (the
// one `A2aService` implementation of every binding client: `a2a_core::carriage::CarriedClient`).
a2a_core::carried_client!(JsonRpcClient, Wire);
