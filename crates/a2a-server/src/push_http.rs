//! The HTTP side of push delivery: POSTs notifications with reqwest, and refuses every address the
//! [`DestinationPolicy`] does not permit at the moment of connecting (spec 13.2).
//!
//! Bodies arrive written: the core dispatcher writes them before the transport, a 1.0 one as the
//! ProtoJSON `StreamResponse`, a 0.3 one as the 0.3 JSON `Task` (0.3 spec 9.5) with
//! [`task_body_v03`], which the server gives the handler (`HandlerBuilder::push_v03_body`) since
//! core cannot depend on `a2a-v03`.
//!
//! The check sits in the DNS resolver, so it applies to the addresses the connection will really
//! use (no window for DNS rebinding between a check and the connect). Literal IP hosts never reach
//! a resolver; the core dispatcher checks them with [`DestinationPolicy::check_url`] before every
//! send. Redirects are not followed (a redirect could point anywhere) and no proxy is used.

use std::net::SocketAddr;
use std::sync::Arc;

use a2a_core::push::{DestinationPolicy, FailureKind, PushFailure, PushRequest, PushTransport};
use a2a_proto::v1::Task;
use a2a_v03::{Form, V03};
use async_trait::async_trait;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The body of a notification to a config registered over A2A 0.3: `task` as the 0.3 JSON `Task`
/// (0.3 spec 9.5: `kind: "task"`, lower-kebab states), by `a2a-v03`. The core dispatcher's
/// [`WriteTaskV0_3`](a2a_core::push::WriteTaskV0_3).
pub fn task_body_v03(task: &Task) -> Result<Vec<u8>, String> {
    serde_json::to_vec(&task.to_v03(Form::Json)).map_err(|e| e.to_string())
}

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
            .expect("a reqwest client with the default TLS roots and no proxy builds");
        HttpPushTransport { client }
    }
}

#[async_trait]
impl PushTransport for HttpPushTransport {
    async fn send(&self, request: PushRequest) -> Result<(), PushFailure> {
        let mut builder = self.client.post(&request.url).timeout(request.timeout).body(request.body);
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    /// An HTTP server on loopback that answers every request with `answer` and counts them.
    async fn counting(answer: axum::http::Response<axum::body::Body>) -> (String, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let (count, answer) = (hits.clone(), Arc::new(std::sync::Mutex::new(Some(answer))));
        let app = axum::Router::new().fallback(move || {
            let (count, answer) = (count.clone(), answer.clone());
            async move {
                count.fetch_add(1, Ordering::SeqCst);
                answer.lock().unwrap().take().unwrap_or_default()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("127.0.0.1:{port}"), hits)
    }

    fn request(url: String) -> PushRequest {
        PushRequest {
            url,
            headers: vec![("Content-Type".into(), "application/a2a+json".into())],
            body: bytes::Bytes::from_static(b"{}"),
            timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn a_0_3_body_is_the_task_in_0_3_json() {
        let task = a2a_proto::v1::Task {
            id: "t1".into(),
            context_id: "c1".into(),
            status: Some(a2a_proto::v1::TaskStatus {
                state: a2a_proto::v1::TaskState::InputRequired as i32,
                ..Default::default()
            }),
            ..Default::default()
        };
        let body: serde_json::Value = serde_json::from_slice(&task_body_v03(&task).unwrap()).unwrap();
        assert_eq!(body["kind"], "task");
        assert_eq!(body["id"], "t1");
        assert_eq!(body["status"]["state"], "input-required", "0.3 lower-kebab states");
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_a_refused_address_is_refused_when_connecting() {
        let (address, hits) = counting(axum::http::Response::default()).await;
        let port = address.rsplit_once(':').unwrap().1;
        // What DNS rebinding does: a URL that passed the creation-time check names a host that
        // now resolves to loopback. The resolver inside the client refuses it; nothing is sent.
        let transport = HttpPushTransport::new(DestinationPolicy::public_only());
        let failure = transport.send(request(format!("http://localhost:{port}/hook"))).await.unwrap_err();
        assert_eq!(failure.kind, FailureKind::Refused, "{failure:?}");
        assert!(failure.reason.contains("destination policy refuses (127.0.0.1"), "{failure}");
        assert!(!failure.retryable());
        assert_eq!(hits.load(Ordering::SeqCst), 0, "no request reached the listener");
        // The same listener, allowed: delivered.
        let allowed = HttpPushTransport::new(
            DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]),
        );
        allowed.send(request(format!("http://localhost:{port}/hook"))).await.unwrap();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn redirects_are_never_followed() {
        let (target, target_hits) = counting(axum::http::Response::default()).await;
        let redirect = axum::http::Response::builder()
            .status(302)
            .header("location", format!("http://{target}/metadata"))
            .body(axum::body::Body::empty())
            .unwrap();
        let (first, first_hits) = counting(redirect).await;
        let transport = HttpPushTransport::new(
            DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]),
        );
        let failure = transport.send(request(format!("http://{first}/hook"))).await.unwrap_err();
        assert_eq!(failure.kind, FailureKind::Status(302));
        assert!(!failure.retryable(), "a redirect is a final answer");
        assert_eq!(first_hits.load(Ordering::SeqCst), 1);
        assert_eq!(target_hits.load(Ordering::SeqCst), 0, "the redirect target was never contacted");
    }

    #[tokio::test]
    async fn a_throttled_answer_carries_its_retry_after() {
        let throttled = axum::http::Response::builder()
            .status(429)
            .header("retry-after", "7")
            .body(axum::body::Body::empty())
            .unwrap();
        let (address, _) = counting(throttled).await;
        let transport = HttpPushTransport::new(DestinationPolicy::allow_all());
        let failure = transport.send(request(format!("http://{address}/hook"))).await.unwrap_err();
        assert_eq!(
            (failure.kind, failure.retry_after),
            (FailureKind::Status(429), Some(Duration::from_secs(7)))
        );
        assert!(failure.retryable());
        assert_eq!(
            retry_after("Wed, 21 Oct 2015 07:28:00 GMT"),
            Some(Duration::ZERO),
            "a date in the past: now"
        );
        assert_eq!(retry_after("soon"), None);
    }
}
