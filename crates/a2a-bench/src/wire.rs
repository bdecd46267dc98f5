//! The SendMessage request of the echo workload as bytes on the wire, for the external load
//! generators (`wrk` for JSON-RPC and REST, `h2load` for gRPC): the same request our clients send
//! (`client::send_request`, headers included), serialized once. Every request of a run is these
//! exact bytes, so the message id repeats: agents *may* use `messageId` to detect duplicates
//! (spec §3.3.1), and neither the reference server nor a2a-rs's echo agent does.

use a2a_core::context::VERSION_PARAM;
use a2a_core::{Operation, ProtocolVersion};
use anyhow::{bail, Context as _};
use prost::Message as _;

use crate::client::{self, Binding, Endpoints, ReportName as _};

/// The gRPC method the workload calls (spec §10.3, service `lf.a2a.v1.A2AService`).
const GRPC_SEND_PATH: &str = "/lf.a2a.v1.A2AService/SendMessage";

/// One SendMessage request, ready to be replayed by a load generator.
#[derive(Debug, Clone)]
pub(crate) struct WireRequest {
    /// The binding it speaks.
    pub(crate) binding: Binding,
    /// The full URL to POST to (`http://HOST:PORT/PATH`).
    pub(crate) url: String,
    /// Header names and values (besides `Host` and `Content-Length`, which the tools add).
    pub(crate) headers: Vec<(&'static str, &'static str)>,
    /// The body: JSON for JSON-RPC and REST, one length-prefixed protobuf message for gRPC.
    pub(crate) body: Vec<u8>,
}

impl WireRequest {
    /// The echo request (`text`) for `binding` of the server at `endpoints`.
    pub(crate) fn echo(endpoints: &Endpoints, binding: Binding, text: &str) -> anyhow::Result<Self> {
        let Some(url) = endpoints.get(binding) else {
            bail!("the server offers no {} interface", binding.name())
        };
        let request = client::send_request(text);
        let version = ProtocolVersion::V1_0.as_str();
        Ok(match binding {
            Binding::JsonRpc => {
                let envelope = serde_json::json!({
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": Operation::SendMessage.method(),
                    "params": serde_json::to_value(&request)?,
                });
                WireRequest {
                    binding,
                    url: numeric_localhost(url),
                    headers: vec![
                        ("Content-Type", "application/json"),
                        ("Accept", "application/json"),
                        (VERSION_PARAM, version),
                    ],
                    body: serde_json::to_vec(&envelope)?,
                }
            }
            Binding::Rest => WireRequest {
                binding,
                url: format!("{}/message:send", numeric_localhost(url).trim_end_matches('/')),
                headers: vec![
                    ("Content-Type", a2a_rest::A2A_JSON),
                    ("Accept", "application/a2a+json, application/json"),
                    (VERSION_PARAM, version),
                ],
                body: serde_json::to_vec(&request)?,
            },
            Binding::Grpc => WireRequest {
                binding,
                url: format!("http://{}{GRPC_SEND_PATH}", grpc_authority(url)?),
                headers: vec![
                    ("content-type", "application/grpc"),
                    ("te", "trailers"),
                    (VERSION_PARAM, version),
                ],
                body: grpc_frame(&request.encode_to_vec()),
            },
        })
    }
}

/// One gRPC length-prefixed message: not compressed (0), the length as 4 bytes big-endian, the
/// message (gRPC over HTTP/2, "Length-Prefixed-Message").
pub(crate) fn grpc_frame(message: &[u8]) -> Vec<u8> {
    let mut frame = Vec::with_capacity(message.len() + 5);
    frame.push(0);
    frame.extend_from_slice(&u32::try_from(message.len()).unwrap_or(u32::MAX).to_be_bytes());
    frame.extend_from_slice(message);
    frame
}

/// `host:port` of a gRPC interface URL (`http://host:port`, `host:port`, with or without a
/// trailing path), `localhost` written as `127.0.0.1`.
fn grpc_authority(url: &str) -> anyhow::Result<String> {
    let rest = url.strip_prefix("http://").unwrap_or(url);
    if rest.starts_with("https://") {
        bail!("h2load is driven over cleartext HTTP/2 here; {url} is TLS");
    }
    let authority = rest.split('/').next().filter(|a| !a.is_empty()).context("a gRPC URL without a host")?;
    Ok(numeric_localhost(authority))
}

/// The URL with the host `localhost` replaced by `127.0.0.1`: the tools connect to the first
/// address the name resolves to, which may be `::1` where the server listens on IPv4 only.
fn numeric_localhost(url: &str) -> String {
    for (from, to) in [("//localhost:", "//127.0.0.1:"), ("//localhost/", "//127.0.0.1/")] {
        if url.contains(from) {
            return url.replacen(from, to, 1);
        }
    }
    match url.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use a2a_proto::v1::SendMessageRequest;

    use super::*;

    fn endpoints() -> Endpoints {
        Endpoints::ceiling("http://localhost:3000", "http://127.0.0.1:50051")
    }

    #[test]
    fn jsonrpc_request_is_a_sendmessage_envelope_with_the_version_header() {
        let request = WireRequest::echo(&endpoints(), Binding::JsonRpc, "hi").unwrap();
        assert_eq!(request.url, "http://127.0.0.1:3000/");
        assert!(request.headers.contains(&("a2a-version", "1.0")));
        let body: serde_json::Value = serde_json::from_slice(&request.body).unwrap();
        assert_eq!(body["method"], "SendMessage");
        assert_eq!(body["params"]["message"]["parts"][0]["text"], "hi");
        assert_eq!(body["params"]["message"]["role"], "ROLE_USER");
    }

    #[test]
    fn rest_request_posts_the_bare_request_to_message_send() {
        let request = WireRequest::echo(&endpoints(), Binding::Rest, "hi").unwrap();
        assert_eq!(request.url, "http://127.0.0.1:3000/message:send");
        let body: SendMessageRequest = a2a_proto::json::from_slice(&request.body).unwrap();
        assert_eq!(body.message.unwrap().parts.len(), 1);
    }

    #[test]
    fn grpc_body_is_one_length_prefixed_sendmessage_request() {
        let request = WireRequest::echo(&endpoints(), Binding::Grpc, "hi").unwrap();
        assert_eq!(request.url, "http://127.0.0.1:50051/lf.a2a.v1.A2AService/SendMessage");
        let (prefix, message) = request.body.split_at(5);
        assert_eq!(prefix[0], 0, "not compressed");
        assert_eq!(u32::from_be_bytes(prefix[1..5].try_into().unwrap()) as usize, message.len());
        let decoded = SendMessageRequest::decode(message).unwrap();
        assert!(decoded.message.unwrap().message_id.len() >= 32);
    }

    #[test]
    fn grpc_authority_accepts_urls_with_and_without_a_scheme() {
        assert_eq!(grpc_authority("localhost:50051").unwrap(), "127.0.0.1:50051");
        assert_eq!(grpc_authority("http://10.0.0.1:9/").unwrap(), "10.0.0.1:9");
        assert!(grpc_authority("https://example.com:443").is_err());
        assert!(grpc_authority("http://").is_err());
    }
}
