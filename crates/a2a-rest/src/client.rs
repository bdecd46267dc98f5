//! [`RestClient`]: an [`A2aService`](a2a_core::A2aService) that calls a remote agent over
//! HTTP+JSON/REST (spec 11).
//!
//! Requests follow the server's route table: POST operations send the request message as the
//! body, GET and DELETE send its scalar fields as camelCase query parameters (spec 11.5). Path
//! variables are percent-encoded so that every character but `A-Z a-z 0-9 - . _ ~` survives, `:`
//! included (a raw `:` could be read as a custom verb). Service parameters of the
//! [`CallContext`] become headers; `A2A-Version: 1.0` is added when they carry no version
//! (spec 3.6.1).
//!
//! With [`RestClient::with_protocol_version`]`(ProtocolVersion::V0_3)` the same calls go to the
//! 0.3 routes under `/v1/` (crate docs, *A2A 0.3*).

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use a2a_core::carriage::Carriage;
use a2a_core::{
    CallContext, Decode, Error, EventStream, Operation, ProtocolVersion, Request, Response, Result,
    ServiceParams,
};
use a2a_proto::WireMessage;
#[cfg(feature = "v03")]
use a2a_v03::ProtoFileBytes;
use async_trait::async_trait;
use http::header::{ACCEPT, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use reqwest::RequestBuilder;
use serde_json::Value;
use url::Url;

use crate::{error, query, routes, sse, A2A_JSON};

/// Everything but RFC 3986 unreserved characters is percent-encoded in path segments.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

pub(crate) const EVENT_STREAM: &str = "text/event-stream";
const ACCEPT_JSON: &str = "application/a2a+json, application/json";

/// An A2A client over HTTP+JSON/REST, implementing [`A2aService`](a2a_core::A2aService) like the
/// server-side handler, so application code is written once for every binding.
///
/// [`with_protocol_version`](Self::with_protocol_version)`(ProtocolVersion::V0_3)` makes it a
/// client of an A2A 0.3 agent with the same API: the `/v1/...` routes, 0.3 ProtoJSON bodies,
/// `A2A-Version: 0.3`, 0.3 errors read back (crate docs, *A2A 0.3*).
///
/// ```no_run
/// use a2a_core::{A2aService, CallContext};
/// use a2a_proto::v1::{GetTaskRequest, Message, SendMessageRequest};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let client = a2a_rest::RestClient::new("https://agent.example.com")?.with_tenant("acme");
/// let request = SendMessageRequest { message: Some(Message::user_text("Hello")), ..Default::default() };
/// let reply = client.send_message(&CallContext::v1(), request).await?;
/// println!("{reply:?}");
/// let task = client
///     .get_task(&CallContext::v1(), GetTaskRequest { id: "task-123".into(), ..Default::default() })
///     .await?;
/// println!("{:?}", task.status);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RestClient {
    wire: Wire,
    /// The protocol version's carriage, chosen when the client is built.
    carriage: Arc<dyn Carriage<Wire>>,
}

impl RestClient {
    /// A client for the agent whose REST interface is at `base_url` (the `url` of its
    /// `AgentInterface`); routes are appended to its path, so `https://host/a2a` calls
    /// `https://host/a2a/message:send`.
    pub fn new(base_url: impl AsRef<str>) -> std::result::Result<Self, url::ParseError> {
        let mut base = Url::parse(base_url.as_ref())?;
        if base.cannot_be_a_base() {
            return Err(url::ParseError::RelativeUrlWithCannotBeABaseBase);
        }
        base.set_fragment(None);
        Ok(RestClient {
            wire: Wire {
                http: reqwest::Client::new(),
                base,
                tenant: None,
                subscribe_with_get: Arc::new(AtomicBool::new(false)),
                #[cfg(feature = "v03")]
                file_bytes: ProtoFileBytes::default(),
            },
            carriage: Arc::new(V1),
        })
    }

    /// Speaks `version` to the agent: [`ProtocolVersion::V1_0`] (the default) or
    /// [`ProtocolVersion::V0_3`], for an agent (or an interface of its card) that speaks A2A 0.3:
    /// the 0.3 routes are appended to the same base URL (`https://host/a2a` calls
    /// `https://host/a2a/v1/message:send`). The [`A2aService`](a2a_core::A2aService) API is the
    /// same; the crate docs
    /// (*A2A 0.3*) say what 0.3 changes. Without this crate's `v03` feature, a 0.3 client fails
    /// every call with [`Error::UnsupportedOperation`] and sends nothing.
    #[must_use]
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        if version != self.protocol_version() {
            // What a server answered for the other version's subscribe route says nothing here.
            self.wire.subscribe_with_get = Arc::new(AtomicBool::new(false));
        }
        self.carriage = a2a_core::carriage_of!(version, V1, crate::client_v03::V03, "a2a-rest");
        self
    }

    /// For A2A 0.3 ([`with_protocol_version`](Self::with_protocol_version)): the encoding of a
    /// sent file in the body's `fileWithBytes`, base64 of the 0.3 proto's bytes field
    /// ([`ProtoFileBytes`] tells which SDK reads which; replies are read in either). Default:
    /// [`ProtoFileBytes::Bytes`]. Needs the `v03` feature.
    #[cfg(feature = "v03")]
    #[must_use]
    pub fn with_v03_file_bytes(mut self, encoding: ProtoFileBytes) -> Self {
        self.wire.file_bytes = encoding;
        self
    }

    /// Uses `http` for the calls (timeouts, proxies, TLS roots, default headers such as
    /// `Authorization`).
    pub fn with_http_client(mut self, http: reqwest::Client) -> Self {
        self.wire.http = http;
        self
    }

    /// Calls the `/{tenant}/...` routes. A request whose own `tenant` field is set uses that
    /// tenant instead.
    pub fn with_tenant(mut self, tenant: impl Into<String>) -> Self {
        self.wire.tenant = Some(tenant.into()).filter(|t| !t.is_empty());
        self
    }

    /// The base URL the routes are appended to.
    pub fn base_url(&self) -> &Url {
        &self.wire.base
    }
}

impl fmt::Debug for RestClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RestClient")
            .field("base", &self.wire.base)
            .field("tenant", &self.wire.tenant)
            .field("version", &self.protocol_version())
            .finish_non_exhaustive()
    }
}

/// The connection both versions are carried over: the base URL, the HTTP client, the client's
/// tenant and what subscriptions learned about the server.
#[derive(Clone)]
#[doc(hidden)]
pub struct Wire {
    http: reqwest::Client,
    base: Url,
    tenant: Option<String>,
    /// Set once a server answered 405 to `POST /tasks/{id}:subscribe`; later subscriptions (of
    /// this client and its clones) go straight to GET.
    subscribe_with_get: Arc<AtomicBool>,
    /// What 0.3 file parts carry ([`RestClient::with_v03_file_bytes`]).
    #[cfg(feature = "v03")]
    pub(crate) file_bytes: ProtoFileBytes,
}

impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Wire").finish_non_exhaustive()
    }
}

impl Wire {
    /// The tenant of a call: the request's own, else the client's, else none (`""`).
    fn tenant(&self, requested: &str) -> String {
        if requested.is_empty() {
            self.tenant.clone().unwrap_or_default()
        } else {
            requested.to_owned()
        }
    }

    /// The URL of `path` (already encoded, starting with `/`) under `tenant`.
    pub(crate) fn url(&self, tenant: &str, path: &str) -> Url {
        let mut url = self.base.clone();
        let base_path = url.path().trim_end_matches('/').to_owned();
        let tenant = if tenant.is_empty() {
            String::new()
        } else {
            format!("/{}", utf8_percent_encode(tenant, SEGMENT))
        };
        url.set_path(&format!("{base_path}{tenant}{path}"));
        url
    }

    /// The headers of a call with the service parameters `params`
    /// ([`ServiceParams::to_send`]) accepting `accept`.
    pub(crate) fn headers(&self, params: &ServiceParams, accept: &'static str) -> Result<HeaderMap> {
        let mut headers = HeaderMap::new();
        // Framing and credentials of a context copied from an incoming request are not forwarded.
        for (name, value) in params.to_send().outgoing() {
            let unsendable = || Error::InvalidRequest {
                reason: format!("service parameter `{name}` cannot be sent as an HTTP header"),
            };
            let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| unsendable())?;
            let value = HeaderValue::from_str(value).map_err(|_| unsendable())?;
            headers.append(name, value);
        }
        headers.insert(ACCEPT, HeaderValue::from_static(accept));
        Ok(headers)
    }

    /// The HTTP request of `request` on `route` under `tenant`: the path variables from the
    /// request's fields, then a POST with the request message as its body, or a GET or DELETE
    /// carrying the message's other fields as the query (spec 11.5).
    fn request(
        &self,
        ctx: &CallContext,
        tenant: &str,
        route: &routes::Template,
        request: &Request,
        accept: &'static str,
    ) -> Result<RequestBuilder> {
        let unserializable = |err: serde_json::Error| Error::InvalidRequest {
            reason: format!("the request cannot be serialized: {err}"),
        };
        let headers = self.headers(&ctx.params, accept)?;
        let mut fields = match route.variables().next().is_some() || !route.has_body() {
            true => match serde_json::to_value(request).map_err(unserializable)? {
                Value::Object(object) => object,
                _ => return Err(Error::InvalidRequest { reason: "the request is not a JSON object".into() }),
            },
            false => serde_json::Map::new(),
        };
        let path = route.path(|field| {
            let value = fields.get(field).and_then(Value::as_str).unwrap_or_default();
            segment(field, value)
        })?;
        let mut url = self.url(tenant, &path);
        if route.has_body() {
            let body = serde_json::to_vec(request).map_err(unserializable)?;
            return Ok(self.http.post(url).headers(headers).header(CONTENT_TYPE, A2A_JSON).body(body));
        }
        for field in route.variables().chain(["tenant"]) {
            fields.remove(field);
        }
        let pairs = query::to_pairs(&fields);
        if !pairs.is_empty() {
            url.query_pairs_mut().extend_pairs(pairs);
        }
        Ok(self.http.request(route.method(), url).headers(headers))
    }

    #[cfg(feature = "v03")]
    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Whether subscriptions go straight to GET (see the field).
    #[cfg(feature = "v03")]
    pub(crate) fn subscribe_with_get(&self) -> &AtomicBool {
        &self.subscribe_with_get
    }

    pub(crate) async fn send(&self, request: RequestBuilder) -> Result<reqwest::Response> {
        request.send().await.map_err(|err| transport_error("the request failed", &err))
    }

    /// The body of a successful response, or the error of a failed one.
    async fn checked_body(&self, request: RequestBuilder) -> Result<bytes::Bytes> {
        let response = self.send(request).await?;
        let status = response.status();
        let challenges = challenges(&response);
        let bytes =
            response.bytes().await.map_err(|err| transport_error("reading the response failed", &err))?;
        if status.is_success() {
            Ok(bytes)
        } else {
            Err(error::from_status_body(status, &bytes).with_challenges(&challenges))
        }
    }
}

/// The events of a streaming response, or the error it answered with.
async fn open_stream(response: reqwest::Response) -> Result<EventStream> {
    let status = response.status();
    if !status.is_success() {
        let challenges = challenges(&response);
        let bytes =
            response.bytes().await.map_err(|err| transport_error("reading the response failed", &err))?;
        return Err(error::from_status_body(status, &bytes).with_challenges(&challenges));
    }
    check_event_stream(&response)?;
    Ok(sse::decode(response))
}

/// The `WWW-Authenticate` values of an answer (RFC 9110 11.6.1), for [`Error::with_challenges`].
fn challenges(response: &reqwest::Response) -> Vec<String> {
    response
        .headers()
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect()
}

/// An error unless `response` is `text/event-stream`.
pub(crate) fn check_event_stream(response: &reqwest::Response) -> Result<()> {
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or_default();
    if !content_type.trim_start().to_ascii_lowercase().starts_with(EVENT_STREAM) {
        return Err(Error::Transport {
            reason: format!("expected a `{EVENT_STREAM}` response, got content type `{content_type}`"),
        });
    }
    Ok(())
}

/// A path variable, percent-encoded. REST cannot express an empty id (`/tasks/` is another
/// route) nor `.`/`..` (URL normalization removes them), so those fail here, naming the field.
fn segment(field: &str, value: &str) -> Result<String> {
    match value {
        "" => Err(Error::invalid_param(field, "required: a REST path cannot carry an empty value")),
        "." | ".." => Err(Error::invalid_param(field, format!("`{value}` cannot be sent in a URL path"))),
        _ => Ok(utf8_percent_encode(value, SEGMENT).to_string()),
    }
}

/// [`Error::Transport`] from a failure and its chain of causes.
pub(crate) fn transport_error(context: &str, err: &(dyn std::error::Error + 'static)) -> Error {
    Error::Transport { reason: format!("{context}: {}", a2a_core::error::error_chain(err)) }
}

// Each call is carried by the protocol version's carriage, chosen when the client was built (the
// one `A2aService` implementation of every binding client: `a2a_core::carriage::CarriedClient`).
a2a_core::carried_client!(RestClient, Wire);

/// A2A 1.0: the routes of the crate docs' table ([`routes::client_route`]), ProtoJSON bodies,
/// the context's parameters as headers, errors by [`error::from_status_body`].
struct V1;

#[async_trait]
impl Carriage<Wire> for V1 {
    /// SubscribeToTask: POST (spec 11.3.2) first; a server answering 405 is asked again with GET
    /// (the proto annotation, A2A#1574), and so is every later subscription of this client.
    async fn call(&self, wire: &Wire, ctx: &CallContext, mut request: Request) -> Result<Response> {
        let operation = request.operation();
        let tenant = wire.tenant(request.tenant());
        tenant.clone_into(request.tenant_mut());
        let accept = if operation.is_streaming() { EVENT_STREAM } else { ACCEPT_JSON };
        let get = Method::GET;
        let subscribe_with_get =
            operation == Operation::SubscribeToTask && wire.subscribe_with_get.load(Ordering::Relaxed);
        let route = routes::client_route(operation, subscribe_with_get.then_some(&get));
        let mut http = wire.request(ctx, &tenant, route, &request, accept)?;
        if operation.is_streaming() {
            let mut response = wire.send(http).await?;
            if operation == Operation::SubscribeToTask
                && route.has_body()
                && response.status() == StatusCode::METHOD_NOT_ALLOWED
            {
                wire.subscribe_with_get.store(true, Ordering::Relaxed);
                http = wire.request(
                    ctx,
                    &tenant,
                    routes::client_route(operation, Some(&get)),
                    &request,
                    accept,
                )?;
                response = wire.send(http).await?;
            }
            return open_stream(response).await.map(Response::Stream);
        }
        // A delete's 200 with `{}` (google.protobuf.Empty) or 204: the body is not read.
        let body = wire.checked_body(http).await?;
        Response::decode(operation, JsonBody(&body))
    }

    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V1_0
    }
}

/// A response body, read as the operation's result message.
struct JsonBody<'a>(&'a [u8]);

impl Decode for JsonBody<'_> {
    fn decode<M: WireMessage>(self) -> Result<M> {
        a2a_proto::json::from_slice(self.0)
            .map_err(|err| transport_error(&format!("the response is not a valid {}", M::NAME), &err))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_are_appended_to_the_base_path_with_encoded_variables() {
        let client = RestClient::new("http://h:1/a2a/").unwrap();
        assert_eq!(client.wire.url("", "/message:send").as_str(), "http://h:1/a2a/message:send");
        let id = segment("id", "a/b c:d%é").unwrap();
        assert_eq!(id, "a%2Fb%20c%3Ad%25%C3%A9");
        assert_eq!(
            client.wire.url("ten ant", &format!("/tasks/{id}:cancel")).as_str(),
            "http://h:1/a2a/ten%20ant/tasks/a%2Fb%20c%3Ad%25%C3%A9:cancel"
        );
    }

    #[test]
    fn request_tenant_wins_over_the_client_tenant() {
        let client = RestClient::new("http://h").unwrap().with_tenant("acme");
        assert_eq!(client.wire.tenant(""), "acme");
        assert_eq!(client.wire.tenant("other"), "other");
        assert_eq!(RestClient::new("http://h").unwrap().with_tenant("").wire.tenant(""), "");
    }

    #[test]
    fn unexpressible_path_values_are_invalid_params() {
        for value in ["", ".", ".."] {
            let err = segment("taskId", value).unwrap_err();
            assert_eq!(err.field_violations()[0].field, "taskId", "{value:?}");
        }
    }

    #[test]
    fn base_urls_that_cannot_carry_paths_are_rejected() {
        assert!(RestClient::new("mailto:agent@example.com").is_err());
        assert!(RestClient::new("not a url").is_err());
    }

    #[test]
    fn headers_carry_params_and_default_the_version() {
        let client = RestClient::new("http://h").unwrap();
        let mut ctx = CallContext::default();
        ctx.params.insert("A2A-Extensions", "urn:a,urn:b");
        ctx.params.insert("Host", "elsewhere");
        let headers = client.wire.headers(&ctx.params, ACCEPT_JSON).unwrap();
        assert_eq!(headers["a2a-extensions"], "urn:a,urn:b");
        assert_eq!(headers["a2a-version"], "1.0");
        assert!(headers.get("host").is_none());
        ctx.params.insert("A2A-Version", "0.3");
        assert_eq!(client.wire.headers(&ctx.params, ACCEPT_JSON).unwrap()["a2a-version"], "0.3");
        ctx.params.insert("x-bad", "line\nbreak");
        assert!(matches!(client.wire.headers(&ctx.params, ACCEPT_JSON), Err(Error::InvalidRequest { .. })));
    }
}
