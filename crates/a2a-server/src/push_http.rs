//! The HTTP side of push delivery: POSTs notifications with reqwest, and refuses every address the
//! [`DestinationPolicy`] does not permit at the moment of connecting (spec 13.2).
//!
//! Bodies: a 1.0 notification arrives encoded (the ProtoJSON `StreamResponse`); a 0.3 one is the
//! task, written here as the 0.3 JSON `Task` (0.3 spec 9.5) by `a2a-v03`, which core cannot
//! depend on.
//!
//! The check sits in the DNS resolver, so it applies to the addresses the connection will really
//! use (no window for DNS rebinding between a check and the connect). Literal IP hosts never reach
//! a resolver; the core dispatcher checks them with [`DestinationPolicy::check_url`] before every
//! send. Redirects are not followed (a redirect could point anywhere) and no proxy is used.

use std::net::SocketAddr;
use std::sync::Arc;

use a2a_core::push::{DestinationPolicy, FailureKind, PushFailure, PushPayload, PushRequest, PushTransport};
use a2a_v03::{Form, V03};
use async_trait::async_trait;
use bytes::Bytes;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// A [`PushTransport`] over HTTP(S).
#[derive(Debug, Clone)]
pub struct HttpPushTransport {
    client: reqwest::Client,
}

#[derive(Debug)]
struct PolicyResolver {
    policy: DestinationPolicy,
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let resolved: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let permitted: Vec<SocketAddr> =
                resolved.iter().copied().filter(|a| policy.permits(a.ip())).collect();
            if permitted.is_empty() {
                let refused: Vec<String> = resolved.iter().map(|a| a.ip().to_string()).collect();
                return Err(Box::new(PolicyRefused(format!(
                    "{host} resolves only to addresses the destination policy refuses ({})",
                    refused.join(", ")
                ))) as Box<dyn std::error::Error + Send + Sync>);
            }
            let addrs: Addrs = Box::new(permitted.into_iter());
            Ok(addrs)
        })
    }
}

/// The resolver's refusal, told apart from other connection failures (it is never retried).
#[derive(Debug)]
struct PolicyRefused(String);

impl std::fmt::Display for PolicyRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PolicyRefused {}

/// What a failed `send` was, for the dispatcher's retry rules.
fn failure_of(error: &reqwest::Error) -> PushFailure {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(cause) = source {
        if let Some(refused) = cause.downcast_ref::<PolicyRefused>() {
            return PushFailure::new(FailureKind::Refused, refused.0.clone());
        }
        source = cause.source();
    }
    let kind = if error.is_timeout() { FailureKind::Timeout } else { FailureKind::Connect };
    PushFailure::new(kind, format!("{error:#}"))
}

/// A `Retry-After` value: delay-seconds or an HTTP date (RFC 9110 10.2.3).
fn retry_after(value: &str) -> Option<std::time::Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(std::time::Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(std::time::SystemTime::now()).unwrap_or_default())
}

impl HttpPushTransport {
    /// A transport that connects only to destinations `policy` permits.
    pub fn new(policy: DestinationPolicy) -> Self {
        let client = reqwest::Client::builder()
            .dns_resolver(Arc::new(PolicyResolver { policy }))
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .tcp_nodelay(true)
            .build()
            .expect("a reqwest client without TLS or proxy configuration builds");
        HttpPushTransport { client }
    }
}

#[async_trait]
impl PushTransport for HttpPushTransport {
    async fn send(&self, request: PushRequest) -> Result<(), PushFailure> {
        let body = match request.payload {
            PushPayload::StreamResponse(body) => body,
            PushPayload::TaskV0_3(task) => {
                let json = task.to_v03(Form::Json);
                Bytes::from(serde_json::to_vec(&json).map_err(|e| {
                    PushFailure::new(FailureKind::Refused, format!("cannot write the 0.3 task: {e}"))
                })?)
            }
        };
        let mut builder = self.client.post(&request.url).timeout(request.timeout).body(body);
        for (name, value) in &request.headers {
            builder = builder.header(name, value);
        }
        let response = builder.send().await.map_err(|e| failure_of(&e))?;
        let status = response.status();
        if status.is_success() {
            return Ok(());
        }
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(retry_after);
        Err(PushFailure {
            kind: FailureKind::Status(status.as_u16()),
            retry_after,
            reason: format!("the webhook answered {status}"),
        })
    }
}
