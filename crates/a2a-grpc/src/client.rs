//! The client side: [`GrpcClient`] calls a remote agent over gRPC and is itself an
//! [`a2a_core::A2aService`], so application code is written once for every binding.
//!
//! Each call sends the [`CallContext`]'s service parameters as metadata (spec 10.2), adding
//! `a2a-version: 1.0` when the context names no version (spec 3.6.1: a client sends the version
//! it speaks). Failures come back as [`a2a_core::Error`] through [`crate::error::from_status`].
//!
//! With [`GrpcClient::with_protocol_version`]`(ProtocolVersion::V0_3)` the same calls go to 0.3's
//! `a2a.v1.A2AService` (crate docs, *A2A 0.3*).

use a2a_core::context::VERSION_PARAM;
use a2a_core::{CallContext, Error, EventStream, Operation, ProtocolVersion, Result};
use a2a_proto::v0_3::grpc::a2a_service_client::A2aServiceClient as A2aServiceClientV03;
use a2a_proto::v1::grpc::a2a_service_client::A2aServiceClient;
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use a2a_v03::ProtoFileBytes;
use async_trait::async_trait;
use http::Uri;
use tonic::codec::Streaming;
use tonic::transport::{Channel, Endpoint};

use crate::guard::{Guarded, Transport};
use tonic::{Request, Response, Status};

use crate::error::from_status;
use crate::metadata::params_to_metadata;
use crate::stream::end_after_error;
use crate::DEFAULT_MAX_MESSAGE_SIZE;

/// An A2A client over gRPC (spec 10), implementing [`a2a_core::A2aService`].
///
/// Cloning is cheap and clones share the connection (a tonic [`Channel`] multiplexes calls over
/// one HTTP/2 connection).
///
/// [`with_protocol_version`](Self::with_protocol_version)`(ProtocolVersion::V0_3)` makes it a
/// client of an A2A 0.3 agent with the same API: 0.3's service `a2a.v1.A2AService` on the same
/// channel, `a2a-version: 0.3`, 0.3 errors read back (crate docs, *A2A 0.3*).
#[derive(Debug, Clone)]
pub struct GrpcClient {
    inner: A2aServiceClient<Transport>,
    inner_v03: A2aServiceClientV03<Transport>,
    version: ProtocolVersion,
    file_bytes: ProtoFileBytes,
}

impl GrpcClient {
    /// Connects to the agent at `endpoint` and waits for the connection.
    ///
    /// `endpoint` is either a URL (`http://host:port`, `https://host:port`) or, as agent cards
    /// advertise gRPC interfaces (`AgentInterface.url`: `"grpc.example.com:443"`), a bare
    /// `host:port`; see [`GrpcClient::connect_lazy`] for how those are read.
    ///
    /// # Errors
    /// [`Error::Transport`] if the endpoint is not a valid address, needs TLS while the `tls`
    /// feature is off, or cannot be connected to.
    pub async fn connect(endpoint: impl Into<String>) -> Result<Self> {
        let (endpoint, origin) = parse_endpoint(&endpoint.into())?;
        let channel = endpoint.connect().await.map_err(|e| transport(&e))?;
        Ok(Self::with_origin(channel, origin))
    }

    /// Like [`connect`](Self::connect), but connects on the first call (and reconnects as
    /// needed); a connection failure is then that call's [`Error::Transport`].
    ///
    /// How `endpoint` is read:
    /// - `http://` and `https://` URLs are used as given. A path (`https://host/a2a/grpc`, as in
    ///   spec 8.5's sample card) is put in front of every method path, for agents served behind
    ///   a path-routing proxy.
    /// - A bare `host:port` is `https://` when the port is 443 (spec 7.1: production gRPC runs
    ///   over TLS, and 443 is where it is served) and `http://` otherwise.
    ///
    /// # Errors
    /// [`Error::Transport`] if the endpoint is not a valid address or needs TLS while the `tls`
    /// feature is off.
    pub fn connect_lazy(endpoint: impl Into<String>) -> Result<Self> {
        let (endpoint, origin) = parse_endpoint(&endpoint.into())?;
        Ok(Self::with_origin(endpoint.connect_lazy(), origin))
    }

    /// Like [`connect_lazy`](Self::connect_lazy), over TLS that also trusts the CA certificates
    /// `roots` (PEM, on top of the system's) and presents `identity` (certificate and key PEM)
    /// when the server asks for a client certificate (mutual TLS). Only for `https` endpoints:
    /// with a plain `http` one these are not used.
    ///
    /// # Errors
    /// As [`connect_lazy`](Self::connect_lazy).
    #[cfg(feature = "tls")]
    pub fn connect_lazy_tls(
        endpoint: impl Into<String>,
        roots: &[Vec<u8>],
        identity: Option<(&[u8], &[u8])>,
    ) -> Result<Self> {
        let raw = endpoint.into();
        let (endpoint, origin) = parse_endpoint(&raw)?;
        if origin.scheme_str() != Some("https") {
            return Ok(Self::with_origin(endpoint.connect_lazy(), origin));
        }
        let mut config = tonic::transport::ClientTlsConfig::new().with_enabled_roots();
        for root in roots {
            config = config.ca_certificate(tonic::transport::Certificate::from_pem(root));
        }
        if let Some((cert, key)) = identity {
            config = config.identity(tonic::transport::Identity::from_pem(cert, key));
        }
        let endpoint = endpoint.tls_config(config).map_err(|e| Error::Transport {
            reason: format!("invalid gRPC endpoint {raw:?}: {}", a2a_core::error::error_chain(&e)),
        })?;
        Ok(Self::with_origin(endpoint.connect_lazy(), origin))
    }

    /// A client on a channel built by the caller (custom TLS, timeouts, load balancing, ...).
    pub fn new(channel: Channel) -> Self {
        let transport = Guarded(channel);
        Self::from_clients(A2aServiceClient::new(transport.clone()), A2aServiceClientV03::new(transport))
    }

    /// A client on a channel built by the caller, for an agent served under a path prefix:
    /// `origin`'s path (e.g. `/a2a/grpc`) is put in front of every method path.
    pub fn with_origin(channel: Channel, origin: Uri) -> Self {
        let transport = Guarded(channel);
        Self::from_clients(
            A2aServiceClient::with_origin(transport.clone(), origin.clone()),
            A2aServiceClientV03::with_origin(transport, origin),
        )
    }

    fn from_clients(client: A2aServiceClient<Transport>, client_v03: A2aServiceClientV03<Transport>) -> Self {
        GrpcClient {
            inner: client,
            inner_v03: client_v03,
            version: ProtocolVersion::V1_0,
            file_bytes: ProtoFileBytes::default(),
        }
        .max_message_size(DEFAULT_MAX_MESSAGE_SIZE)
    }

    /// Limits the size of each request and reply message (default [`DEFAULT_MAX_MESSAGE_SIZE`]).
    #[must_use]
    pub fn max_message_size(mut self, limit: usize) -> Self {
        self.inner = self.inner.max_decoding_message_size(limit).max_encoding_message_size(limit);
        self.inner_v03 = self.inner_v03.max_decoding_message_size(limit).max_encoding_message_size(limit);
        self
    }

    /// Speaks `version` to the agent: [`ProtocolVersion::V1_0`] (the default, service
    /// `lf.a2a.v1.A2AService`) or [`ProtocolVersion::V0_3`] (service `a2a.v1.A2AService`), for an
    /// agent (or an interface of its card) that speaks A2A 0.3. The [`A2aService`] API is the
    /// same; the crate docs (*A2A 0.3*) say what 0.3 changes.
    ///
    /// [`A2aService`]: a2a_core::A2aService
    #[must_use]
    pub fn with_protocol_version(mut self, version: ProtocolVersion) -> Self {
        self.version = version;
        self
    }

    /// The protocol version this client speaks.
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// In 0.3 ([`with_protocol_version`](Self::with_protocol_version)`(ProtocolVersion::V0_3)`),
    /// what file parts carry in the 0.3 proto's `FilePart.file_with_bytes`:
    /// [`ProtoFileBytes::Bytes`] (the default: the bytes, as the proto says and @a2a-js/sdk reads
    /// them) or [`ProtoFileBytes::Base64Text`] (the UTF-8 of their base64 text, what an agent
    /// built with a2a-sdk (Python) 0.3 expects: it fails on any other file that is not UTF-8).
    /// Replies are read in either encoding whatever this says (`a2a_v03::file_bytes`). No effect
    /// in 1.0, whose `raw` bytes every SDK reads alike.
    #[must_use]
    pub fn with_v03_file_bytes(mut self, encoding: ProtoFileBytes) -> Self {
        self.file_bytes = encoding;
        self
    }

    /// What 0.3 file parts carry ([`with_v03_file_bytes`](Self::with_v03_file_bytes)).
    pub fn v03_file_bytes(&self) -> ProtoFileBytes {
        self.file_bytes
    }

    fn is_v03(&self) -> bool {
        self.version == ProtocolVersion::V0_3
    }

    /// A fresh handle on 0.3's service for one call.
    pub(crate) fn stub_v03(&self) -> A2aServiceClientV03<Transport> {
        self.inner_v03.clone()
    }

    /// A tonic request carrying `message` and the context's service parameters.
    pub(crate) fn request<T>(ctx: &CallContext, message: T) -> Result<Request<T>> {
        let mut request = Request::new(message);
        params_to_metadata(&ctx.params.with_current_trace(), request.metadata_mut())?;
        if ctx.params.version().is_none() {
            request.metadata_mut().insert(
                VERSION_PARAM,
                tonic::metadata::MetadataValue::from_static(ProtocolVersion::V1_0.as_str()),
            );
        }
        Ok(request)
    }

    /// A fresh handle for one call: the generated methods take `&mut self`, the trait's `&self`.
    fn stub(&self) -> A2aServiceClient<Transport> {
        self.inner.clone()
    }
}

/// The reply of a unary call.
fn unary<T>(result: std::result::Result<Response<T>, Status>) -> Result<T> {
    result.map(Response::into_inner).map_err(|status| from_status(&status))
}

/// The events of a server-streaming call: a status mid-stream is the final `Err` item.
fn server_stream(
    result: std::result::Result<Response<Streaming<StreamResponse>>, Status>,
) -> Result<EventStream> {
    let events = unary(result)?;
    Ok(end_after_error(events, |status: Status| from_status(&status)))
}

#[async_trait]
impl a2a_core::A2aService for GrpcClient {
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        if self.is_v03() {
            return self.send_message_v03(ctx, request).await;
        }
        unary(self.stub().send_message(Self::request(ctx, request)?).await)
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        if self.is_v03() {
            return self.send_streaming_message_v03(ctx, request).await;
        }
        server_stream(self.stub().send_streaming_message(Self::request(ctx, request)?).await)
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        if self.is_v03() {
            return self.get_task_v03(ctx, request).await;
        }
        unary(self.stub().get_task(Self::request(ctx, request)?).await)
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        if self.is_v03() {
            return Err(a2a_v03::client::unsupported(Operation::ListTasks));
        }
        unary(self.stub().list_tasks(Self::request(ctx, request)?).await)
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        if self.is_v03() {
            return self.cancel_task_v03(ctx, request).await;
        }
        unary(self.stub().cancel_task(Self::request(ctx, request)?).await)
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        if self.is_v03() {
            return self.subscribe_to_task_v03(ctx, request).await;
        }
        server_stream(self.stub().subscribe_to_task(Self::request(ctx, request)?).await)
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        if self.is_v03() {
            return self.create_task_push_notification_config_v03(ctx, request).await;
        }
        unary(self.stub().create_task_push_notification_config(Self::request(ctx, request)?).await)
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        if self.is_v03() {
            return self.get_task_push_notification_config_v03(ctx, request).await;
        }
        unary(self.stub().get_task_push_notification_config(Self::request(ctx, request)?).await)
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        if self.is_v03() {
            return self.list_task_push_notification_configs_v03(ctx, request).await;
        }
        unary(self.stub().list_task_push_notification_configs(Self::request(ctx, request)?).await)
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        if self.is_v03() {
            return self.delete_task_push_notification_config_v03(ctx, request).await;
        }
        unary(self.stub().delete_task_push_notification_config(Self::request(ctx, request)?).await)
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        if self.is_v03() {
            return self.get_extended_agent_card_v03(ctx, request).await;
        }
        unary(self.stub().get_extended_agent_card(Self::request(ctx, request)?).await)
    }
}

/// The tonic endpoint for an agent address, and the origin whose path prefixes method paths.
fn parse_endpoint(raw: &str) -> Result<(Endpoint, Uri)> {
    let raw = raw.trim();
    let url = if raw.contains("://") {
        raw.to_owned()
    } else if raw.rsplit_once(':').is_some_and(|(_, port)| port == "443") {
        format!("https://{raw}")
    } else {
        format!("http://{raw}")
    };
    // `/a2a/grpc/` and `/a2a/grpc` name the same prefix; tonic appends `/lf.a2a.v1.A2AService/..`.
    let url = url.trim_end_matches('/');
    let invalid =
        |reason: String| Error::Transport { reason: format!("invalid gRPC endpoint {raw:?}: {reason}") };
    let origin: Uri = url.parse().map_err(|e: http::uri::InvalidUri| invalid(e.to_string()))?;
    if origin.host().is_none() {
        return Err(invalid("no host".into()));
    }
    let endpoint = Endpoint::from(origin.clone());
    let endpoint = match origin.scheme_str() {
        Some("http") => endpoint,
        Some("https") => with_tls(endpoint).map_err(invalid)?,
        other => return Err(invalid(format!("unsupported scheme {:?}", other.unwrap_or_default()))),
    };
    Ok((endpoint, origin))
}

#[cfg(feature = "tls")]
fn with_tls(endpoint: Endpoint) -> std::result::Result<Endpoint, String> {
    let config = tonic::transport::ClientTlsConfig::new().with_enabled_roots();
    endpoint.tls_config(config).map_err(|e| e.to_string())
}

#[cfg(not(feature = "tls"))]
fn with_tls(_endpoint: Endpoint) -> std::result::Result<Endpoint, String> {
    Err("https needs the `tls` feature of a2a-grpc".into())
}

/// A connection failure as [`Error::Transport`], with the chain of causes.
fn transport(error: &tonic::transport::Error) -> Error {
    Error::Transport { reason: a2a_core::error::error_chain(error) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(raw: &str) -> String {
        let (endpoint, origin) = parse_endpoint(raw).unwrap();
        assert_eq!(endpoint.uri(), &origin);
        origin.to_string()
    }

    #[test]
    fn bare_host_port_is_plain_http_except_on_port_443() {
        assert_eq!(target("localhost:50051"), "http://localhost:50051/");
        assert_eq!(target(" 10.0.0.1:8080 "), "http://10.0.0.1:8080/");
        #[cfg(feature = "tls")]
        assert_eq!(target("grpc.example.com:443"), "https://grpc.example.com:443/");
    }

    #[test]
    fn urls_keep_their_path_without_a_trailing_slash() {
        assert_eq!(target("http://127.0.0.1:1234"), "http://127.0.0.1:1234/");
        assert_eq!(target("http://agent:1234/a2a/grpc/"), "http://agent:1234/a2a/grpc");
    }

    #[test]
    fn unusable_endpoints_are_transport_errors() {
        for raw in ["", "http://", "ftp://agent:21", "not a host:12", "::::"] {
            assert!(matches!(parse_endpoint(raw), Err(Error::Transport { .. })), "{raw:?}");
        }
    }

    #[cfg(not(feature = "tls"))]
    #[test]
    fn https_without_the_tls_feature_says_so() {
        match parse_endpoint("grpc.example.com:443") {
            Err(Error::Transport { reason }) => assert!(reason.contains("`tls` feature"), "{reason}"),
            other => panic!("expected a Transport error, got {other:?}"),
        }
    }
}
