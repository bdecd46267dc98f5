//! Request ids: every HTTP request and gRPC call gets one, taken from its `x-request-id` header
//! (gRPC: metadata) when that is sane, generated otherwise. It is echoed in the response's
//! `x-request-id` header, set on the request for what runs behind, and recorded in a tracing span
//! around the request, so every log line written while serving it carries `request_id`.
//!
//! Sane: 1 to [`MAX_LEN`] bytes of visible ASCII (`!` to `~`): enough for a UUID, a W3C trace id
//! or a proxy's own format, never a line break or an escape sequence in a log. A generated id is a
//! UUIDv7 (time-ordered, so ids sort roughly by arrival).

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use http::{HeaderName, HeaderValue, Request, Response};
use tracing::instrument::Instrumented;
use tracing::Instrument;

/// The header, in requests and responses.
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The longest incoming id taken as is.
pub const MAX_LEN: usize = 128;

/// The id to use for a request with these headers: its own if sane, else a new one.
pub fn request_id(headers: &http::HeaderMap) -> HeaderValue {
    headers.get(&REQUEST_ID).filter(|id| is_sane(id.as_bytes())).cloned().unwrap_or_else(|| {
        // The id's string becomes the value's bytes as is (no copy).
        HeaderValue::try_from(a2a_proto::new_id()).expect("a UUID is a valid header value")
    })
}

fn is_sane(id: &[u8]) -> bool {
    (1..=MAX_LEN).contains(&id.len()) && id.iter().all(|b| (b'!'..=b'~').contains(b))
}

/// Gives every request an id (see the module docs). Applied to every router of the server.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestIdLayer;

impl<S> tower::Layer<S> for RequestIdLayer {
    type Service = RequestIdService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RequestIdService { inner }
    }
}

/// The service of [`RequestIdLayer`].
#[derive(Debug, Clone)]
pub struct RequestIdService<S> {
    inner: S,
}

impl<S, B, ResBody> tower::Service<Request<B>> for RequestIdService<S>
where
    S: tower::Service<Request<B>, Response = Response<ResBody>>,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = ResponseFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        let id = request_id(request.headers());
        request.headers_mut().insert(REQUEST_ID.clone(), id.clone());
        // At ERROR level so that the span exists whatever the level filter lets through: with
        // `--log warn`, the warnings of a request still carry its id. Its target lets a filter
        // name it (`a2a_server::request=off` drops it).
        // Recorded with `Display` (`%`): the fmt layer formats a span's fields when it opens, and
        // a `&str` goes through `str`'s `Debug` (quotes, and an escape check of every char: 2.2k
        // instructions for a UUID, 2.3% of an echo SendMessage). An id is visible ASCII already
        // (`request_id`), so the text log writes it bare; a JSON log writes the same string.
        #[cfg(not(feature = "otel"))]
        let span = tracing::error_span!(
            target: "a2a_server::request",
            "request",
            request_id = %id.to_str().unwrap_or_default()
        );
        // With OpenTelemetry, the same span is the SERVER span of the trace (`crate::otel`).
        #[cfg(feature = "otel")]
        let span = crate::otel::request_span(&request, id.to_str().unwrap_or_default());
        let future = span.in_scope(|| self.inner.call(request));
        ResponseFuture { inner: future.instrument(span), id: Some(id) }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`RequestIdService`]: the inner one, in the request's span, then the id
    /// set on the response.
    #[derive(Debug)]
    pub struct ResponseFuture<F> {
        #[pin]
        inner: Instrumented<F>,
        id: Option<HeaderValue>,
    }
}

impl<F, ResBody, E> Future for ResponseFuture<F>
where
    F: Future<Output = Result<Response<ResBody>, E>>,
{
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        let mut response = std::task::ready!(this.inner.as_mut().poll(cx))?;
        #[cfg(feature = "otel")]
        crate::otel::record_status(this.inner.span(), response.status());
        if let Some(mut id) = this.id.take() {
            // Over HTTP/2 (gRPC), HPACK would add every new id to the connection's header
            // table, where it is never used again: each response paid a table search (comparing
            // with the ids already there), an insert and an eviction, and the client the same to
            // decode. A sensitive value is sent as a "never indexed" literal (RFC 7541 6.2.3);
            // HTTP/1.1 ignores the flag.
            id.set_sensitive(true);
            response.headers_mut().insert(REQUEST_ID.clone(), id);
        }
        Poll::Ready(Ok(response))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(id: &[u8]) -> http::HeaderMap {
        let mut headers = http::HeaderMap::new();
        headers.insert(REQUEST_ID.clone(), HeaderValue::from_bytes(id).unwrap());
        headers
    }

    #[test]
    fn a_sane_incoming_id_is_kept_and_anything_else_replaced() {
        assert_eq!(request_id(&headers(b"abc-123_x.y:z")), "abc-123_x.y:z");
        let longest = "a".repeat(MAX_LEN);
        assert_eq!(request_id(&headers(longest.as_bytes())), longest.as_str());
        for bad in [&b"has space"[..], &[b'a'; MAX_LEN + 1], b"tab\there", "é".as_bytes(), b""] {
            let id = request_id(&headers(bad));
            assert_ne!(id.as_bytes(), bad);
            assert_eq!(id.len(), 36, "a UUID: {id:?}");
        }
        let generated = request_id(&http::HeaderMap::new());
        assert!(uuid_like(generated.to_str().unwrap()), "{generated:?}");
        assert_ne!(generated, request_id(&http::HeaderMap::new()), "each generated id is new");
    }

    #[tokio::test]
    async fn the_echoed_id_is_never_indexed_by_hpack() {
        use tower::{Layer as _, ServiceExt as _};
        let inner = tower::service_fn(|request: Request<()>| async move {
            // What runs behind sees the id too.
            assert!(request.headers().contains_key(&REQUEST_ID));
            Ok::<_, std::convert::Infallible>(Response::new(()))
        });
        let request = Request::builder().header(&REQUEST_ID, "abc").body(()).unwrap();
        let response = RequestIdLayer.layer(inner).oneshot(request).await.unwrap();
        let id = &response.headers()[&REQUEST_ID];
        assert_eq!(id, "abc");
        assert!(id.is_sensitive(), "sent as an HPACK never-indexed literal");
    }

    fn uuid_like(id: &str) -> bool {
        id.len() == 36 && id.chars().all(|c| c.is_ascii_hexdigit() || c == '-')
    }
}
