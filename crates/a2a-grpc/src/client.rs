//! The client side: [`GrpcClient`] calls a remote agent over gRPC and is itself an
//! [`a2a_core::A2aService`], so application code is written once for every binding.
//!
//! Each call sends the [`CallContext`]'s service parameters as metadata (spec 10.2), adding
//! `a2a-version: 1.0` when the context names no version (spec 3.6.1: a client sends the version
//! it speaks). Failures come back as [`a2a_core::Error`] through [`crate::error::from_status`].
//!
//! With [`GrpcClient::with_protocol_version`]`(ProtocolVersion::V0_3)` the same calls go to 0.3's
//! `a2a.v1.A2AService` (crate docs, *A2A 0.3*).

use std::fmt;
use std::sync::Arc;

use a2a_core::carriage::Carriage;
use a2a_core::{CallContext, Decode, Encode, Error, ProtocolVersion, Response, Result, ServiceParams};
use a2a_proto::v1::StreamResponse;
use a2a_proto::WireMessage;
#[cfg(feature = "v03")]
use a2a_v03::ProtoFileBytes;
use async_trait::async_trait;
use bytes::Bytes;
use futures::StreamExt;
use http::Uri;
use tonic::codec::Streaming;
use tonic::transport::{Channel, Endpoint};

use crate::guard::{Guarded, Transport};
use tonic::{Request, Status};

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
#[derive(Clone)]
pub struct GrpcClient {
    wire: Wire,
    /// The protocol version's carriage, chosen when the client is built.
    carriage: Arc<dyn Carriage<Wire>>,
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
        Self::on(Guarded(channel), None)
    }

    /// A client on a channel built by the caller, for an agent served under a path prefix:
    /// `origin`'s path (e.g. `/a2a/grpc`) is put in front of every method path.
    pub fn with_origin(channel: Channel, origin: Uri) -> Self {
        Self::on(Guarded(channel), Some(origin))
    }

    fn on(transport: Transport, origin: Option<Uri>) -> Self {
        GrpcClient {
            wire: Wire {
                transport,
                origin,
                max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
                #[cfg(feature = "v03")]
                file_bytes: ProtoFileBytes::default(),
            },
            carriage: Arc::new(V1),
        }
    }

    /// Limits the size of each request and reply message (default [`DEFAULT_MAX_MESSAGE_SIZE`]).
    #[must_use]
    pub fn max_message_size(mut self, limit: usize) -> Self {
        self.wire.max_message_size = limit;
        self
    }

    /// Speaks `version` to the agent: [`ProtocolVersion::V1_0`] (the default, service
    /// `lf.a2a.v1.A2AService`) or [`ProtocolVersion::V0_3`] (service `a2a.v1.A2AService`), for an
    /// agent (or an interface of its card) that speaks A2A 0.3. The
    /// [`A2aService`](a2a_core::A2aService) API is the
    /// same; the crate docs (*A2A 0.3*) say what 0.3 changes. Without this crate's `v03`
    /// feature, a 0.3 client fails every call with [`Error::UnsupportedOperation`] and sends
    /// nothing.
    ///
    /// [`A2aService`](a2a_core::A2aService): a2a_core::A2aService
    #[must_use]
    pub fn with_protocol_version(self, version: ProtocolVersion) -> Self {
        Self { carriage: a2a_core::carriage_of!(version, V1, crate::client_v03::V03, "a2a-grpc"), ..self }
    }

    /// When this client speaks 0.3, what the 0.3 proto's `FilePart.file_with_bytes` of a sent
    /// file carries: [`ProtoFileBytes`] says which encoding each SDK expects (default
    /// [`ProtoFileBytes::Bytes`]). Only with this crate's `v03` feature.
    #[cfg(feature = "v03")]
    #[must_use]
    pub fn with_v03_file_bytes(mut self, encoding: ProtoFileBytes) -> Self {
        self.wire.file_bytes = encoding;
        self
    }

    /// What 0.3 file parts carry ([`with_v03_file_bytes`](Self::with_v03_file_bytes)).
    #[cfg(feature = "v03")]
    pub fn v03_file_bytes(&self) -> ProtoFileBytes {
        self.wire.file_bytes
    }
}

impl fmt::Debug for GrpcClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GrpcClient")
            .field("origin", &self.wire.origin)
            .field("version", &self.protocol_version())
            .field("max_message_size", &self.wire.max_message_size)
            .finish_non_exhaustive()
    }
}

/// The connection both versions are carried over: the channel (shared by clones), the origin
/// whose path prefixes method paths, the message size limit, what 0.3 file parts carry.
#[derive(Clone)]
#[doc(hidden)]
pub struct Wire {
    pub(crate) transport: Transport,
    pub(crate) origin: Option<Uri>,
    pub(crate) max_message_size: usize,
    /// What 0.3 file parts carry ([`GrpcClient::with_v03_file_bytes`]).
    #[cfg(feature = "v03")]
    pub(crate) file_bytes: ProtoFileBytes,
}

/// The origin and the size limit; not the channel, which shows nothing useful.
impl std::fmt::Debug for Wire {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut wire = f.debug_struct("Wire");
        wire.field("origin", &self.origin).field("max_message_size", &self.max_message_size);
        #[cfg(feature = "v03")]
        wire.field("file_bytes", &self.file_bytes);
        wire.finish_non_exhaustive()
    }
}

impl Wire {
    /// A handle on the channel for one call: tonic's calls take `&mut self`, the trait's `&self`.
    pub(crate) fn grpc(&self) -> tonic::client::Grpc<Transport> {
        let grpc = match &self.origin {
            Some(origin) => tonic::client::Grpc::with_origin(self.transport.clone(), origin.clone()),
            None => tonic::client::Grpc::new(self.transport.clone()),
        };
        grpc.max_decoding_message_size(self.max_message_size).max_encoding_message_size(self.max_message_size)
    }
}

/// A tonic request carrying `message` and the service parameters `params`
/// ([`ServiceParams::to_send`](a2a_core::ServiceParams::to_send)).
pub(crate) fn tonic_request<T>(params: &ServiceParams, message: T) -> Result<Request<T>> {
    let mut request = Request::new(message);
    params_to_metadata(&params.to_send(), request.metadata_mut())?;
    Ok(request)
}

/// One call of `method` of `service` with the encoded `message`: the reply's bytes, or the
/// server stream's messages as bytes.
pub(crate) async fn call_raw(
    wire: &Wire,
    service: &'static str,
    method: &'static str,
    request: Request<Vec<u8>>,
    streaming: bool,
) -> std::result::Result<Raw, Status> {
    let mut grpc = wire.grpc();
    grpc.ready().await.map_err(|e| Status::unknown(format!("Service was not ready: {e}")))?;
    let path = http::uri::PathAndQuery::try_from(format!("/{service}/{method}"))
        .map_err(|e| Status::internal(format!("no gRPC path for {service}/{method}: {e}")))?;
    let mut request = request;
    request.extensions_mut().insert(tonic::GrpcMethod::new(service, method));
    if streaming {
        Ok(Raw::Stream(grpc.server_streaming(request, path, RawCodec).await?.into_inner()))
    } else {
        Ok(Raw::Reply(grpc.unary(request, path, RawCodec).await?.into_inner()))
    }
}

/// What a call of [`call_raw`] answered.
pub(crate) enum Raw {
    /// The reply of a unary call.
    Reply(Bytes),
    /// The messages of a server stream.
    Stream(Streaming<Bytes>),
}

/// A tonic codec of encoded messages: the bytes out as they are, each message in as its bytes.
/// What lets one call path carry every operation, each message encoded and decoded as the
/// operation's own type ([`Request::encode`], [`Response::decode`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RawCodec;

impl tonic::codec::Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Bytes;
    type Encoder = RawCodec;
    type Decoder = RawCodec;

    fn encoder(&mut self) -> Self::Encoder {
        RawCodec
    }

    fn decoder(&mut self) -> Self::Decoder {
        RawCodec
    }
}

impl tonic::codec::Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(
        &mut self,
        item: Vec<u8>,
        dst: &mut tonic::codec::EncodeBuf<'_>,
    ) -> std::result::Result<(), Status> {
        bytes::BufMut::put_slice(dst, &item);
        Ok(())
    }
}

impl tonic::codec::Decoder for RawCodec {
    type Item = Bytes;
    type Error = Status;

    fn decode(
        &mut self,
        src: &mut tonic::codec::DecodeBuf<'_>,
    ) -> std::result::Result<Option<Bytes>, Status> {
        let len = bytes::Buf::remaining(src);
        Ok(Some(bytes::Buf::copy_to_bytes(src, len)))
    }
}

/// A message as protobuf bytes.
pub(crate) struct Protobuf;

impl Encode for Protobuf {
    type Output = Vec<u8>;

    fn encode<M: WireMessage>(self, message: &M) -> Vec<u8> {
        message.encode_to_vec()
    }
}

/// Protobuf bytes, read as the message (a reply that does not decode is the agent's fault).
pub(crate) struct FromProtobuf<'a>(pub(crate) &'a [u8]);

impl Decode for FromProtobuf<'_> {
    fn decode<M: WireMessage>(self) -> Result<M> {
        M::decode(self.0).map_err(|e| Error::InvalidAgentResponse {
            reason: format!("the reply is not a valid {}: {e}", M::NAME),
        })
    }
}

// Each call is carried by the protocol version's carriage, chosen when the client was built (the
// one `A2aService` implementation of every binding client: `a2a_core::carriage::CarriedClient`).
a2a_core::carried_client!(GrpcClient, Wire);

/// A2A 1.0: `lf.a2a.v1.A2AService`, the messages as they are, the context's parameters as
/// metadata, errors by [`from_status`].
struct V1;

/// The gRPC service of A2A 1.0 (spec 10.3).
const SERVICE: &str = "lf.a2a.v1.A2AService";

#[async_trait]
impl Carriage<Wire> for V1 {
    async fn call(&self, wire: &Wire, ctx: &CallContext, request: a2a_core::Request) -> Result<Response> {
        let operation = request.operation();
        let message = tonic_request(&ctx.params, request.encode(Protobuf))?;
        let raw = call_raw(wire, SERVICE, operation.method(), message, operation.is_streaming()).await;
        match raw.map_err(|status| from_status(&status))? {
            Raw::Reply(bytes) => Response::decode(operation, FromProtobuf(&bytes)),
            Raw::Stream(events) => {
                let events = end_after_error(events, |status: Status| from_status(&status));
                Ok(Response::Stream(
                    events
                        .map(|item| item.and_then(|bytes| FromProtobuf(&bytes).decode::<StreamResponse>()))
                        .boxed(),
                ))
            }
        }
    }

    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V1_0
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
