//! The [`CallContext`] of an incoming HTTP request: service parameters from the headers (spec 9.2),
//! `A2A-Version` from the query string as a fallback (spec 3.6.1), and the [`Principal`] an
//! authentication layer put into the request extensions.

use a2a_core::{CallContext, Principal, ServiceParams};
use http::request::Parts;

/// Builds the context of a request: `ServiceParams::from_transport` over the headers (every
/// name that can carry a service parameter, repeated headers comma-joined as spec 9.2 describes;
/// framing and credentials are not parameters), the query's `A2A-Version` as a fallback, and the
/// principal. Nothing is validated here: the handler checks the version and the extensions.
pub(crate) fn from_parts(parts: &Parts) -> CallContext {
    let headers = parts.headers.iter().map(|(name, value)| (name.as_str(), value.as_bytes()));
    let params = ServiceParams::from_transport(headers).with_query_version(parts.uri.query());
    CallContext { principal: parts.extensions.get::<Principal>().cloned(), ..CallContext::new(params) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(request: http::request::Builder) -> Parts {
        request.body(()).unwrap().into_parts().0
    }

    #[test]
    fn header_wins_over_query_and_repeated_headers_are_joined() {
        let ctx = from_parts(&parts(
            http::Request::post("/?A2A-Version=0.3")
                .header("A2A-Version", "1.0")
                .header("A2A-Extensions", "urn:a")
                .header("a2a-extensions", "urn:b"),
        ));
        assert_eq!(ctx.params.version(), Some("1.0"));
        assert_eq!(ctx.params.extensions(), ["urn:a", "urn:b"]);
    }

    #[test]
    fn query_version_is_percent_decoded_and_case_insensitive() {
        let ctx = from_parts(&parts(http::Request::post("/rpc?x=1&a2a-version=1%2E0")));
        assert_eq!(ctx.params.version(), Some("1.0"));
        assert!(ctx.principal.is_none());
    }

    #[test]
    fn principal_is_taken_from_the_extensions() {
        let ctx = from_parts(&parts(http::Request::post("/").extension(Principal::new("alice"))));
        assert_eq!(ctx.principal, Some(Principal::new("alice")));
    }
}
