//! Client side: a `grpc-status-details-bin` that is not base64 is dropped from response headers
//! and trailers before tonic reads them. tonic 0.14's `Status::from_header_map` panics on such a
//! value (`expect("Invalid status header, expected base64 encoded value")`), so a faulty or
//! hostile server could otherwise crash the calling process. The status code and message are
//! kept; only the undecodable details go, and the error is then read from the code alone.

use std::pin::Pin;
use std::task::{Context, Poll};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use bytes::Bytes;
use futures::future::{MapOk, TryFutureExt};
use http::HeaderMap;
use http_body::{Frame, SizeHint};
use tonic::transport::Channel;

/// What the generated stubs run on: a tonic [`Channel`] behind the guard.
pub(crate) type Transport = Guarded<Channel>;

/// The header tonic decodes with `expect`.
const DETAILS: &str = "grpc-status-details-bin";

/// tonic's own reading of that header: the standard alphabet, padding optional.
const BASE64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// A service whose responses pass [`sanitize`] (headers now, trailers as the body ends).
#[derive(Debug, Clone)]
pub(crate) struct Guarded<S>(pub(crate) S);

type Guard = fn(http::Response<tonic::body::Body>) -> http::Response<GuardedBody>;

impl<S, B> tower::Service<http::Request<B>> for Guarded<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<tonic::body::Body>>,
{
    type Response = http::Response<GuardedBody>;
    type Error = S::Error;
    type Future = MapOk<S::Future, Guard>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        self.0.call(request).map_ok(guard as Guard)
    }
}

fn guard(response: http::Response<tonic::body::Body>) -> http::Response<GuardedBody> {
    let (mut parts, body) = response.into_parts();
    sanitize(&mut parts.headers);
    http::Response::from_parts(parts, GuardedBody(body))
}

/// A response body whose trailers pass [`sanitize`].
#[derive(Debug)]
pub(crate) struct GuardedBody(tonic::body::Body);

impl http_body::Body for GuardedBody {
    type Data = Bytes;
    type Error = <tonic::body::Body as http_body::Body>::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        Pin::new(&mut self.0).poll_frame(cx).map_ok(|frame| match frame.into_trailers() {
            Ok(mut trailers) => {
                sanitize(&mut trailers);
                Frame::trailers(trailers)
            }
            Err(frame) => frame,
        })
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.size_hint()
    }
}

/// Drops a `grpc-status-details-bin` tonic could not decode.
pub(crate) fn sanitize(headers: &mut HeaderMap) {
    let undecodable = headers.get_all(DETAILS).iter().any(|value| BASE64.decode(value.as_bytes()).is_err());
    if undecodable {
        tracing::debug!("dropped a {DETAILS} header that is not base64");
        headers.remove(DETAILS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_undecodable_details_are_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert("grpc-status", "5".parse().unwrap());
        headers.insert(DETAILS, "not base64!".parse().unwrap());
        sanitize(&mut headers);
        assert!(headers.get(DETAILS).is_none());
        assert_eq!(headers["grpc-status"], "5");
        for fine in ["CAUSBG5vcGU=", "CAUSBG5vcGU", ""] {
            headers.insert(DETAILS, fine.parse().unwrap());
            sanitize(&mut headers);
            assert_eq!(headers[DETAILS], fine, "{fine:?} is base64 (padding optional)");
        }
    }
}
