//! Service parameters (spec 3.2.6) as gRPC metadata (spec 10.2), both directions.
//!
//! Every ASCII metadata entry is a service parameter, so that extension-defined parameters reach
//! the handler as well as `a2a-version` and `a2a-extensions`. The entries gRPC and HTTP/2 use for
//! themselves ([`is_reserved`]) are left out in both directions: a server does not report them as
//! parameters, and a client does not send them (a parameter copied from an incoming HTTP request,
//! such as `content-type` or `connection`, would otherwise break the outgoing HTTP/2 request).

use a2a_core::{Error, Result, ServiceParams};
use tonic::metadata::{Ascii, MetadataKey, MetadataMap, MetadataValue};

/// The service parameters of an incoming call: every ASCII metadata entry that is not
/// [reserved](is_reserved). Keys are lowercase (gRPC lowercases them); repeated keys are joined
/// with commas, as repeated HTTP headers combine (spec 10.2: several values of one parameter are
/// comma-separated). Binary (`-bin`) entries and values that are not visible ASCII are skipped.
pub fn params_from_metadata(metadata: &MetadataMap) -> ServiceParams {
    // Straight over the headers, the name checked before the value: the transport's entries
    // (most of a call's metadata) are passed over without reading their values.
    let entries = metadata.as_ref().iter().filter_map(|(name, value)| {
        let name = name.as_str();
        if name.ends_with("-bin") || is_reserved(name) {
            return None;
        }
        value.to_str().ok().map(|value| (name, value.as_bytes()))
    });
    ServiceParams::from_transport(entries)
}

/// Writes `params` into the metadata of an outgoing call, skipping [reserved](is_reserved) names.
///
/// # Errors
/// [`Error::InvalidParams`] naming the parameter, if its name is not a valid metadata key (e.g. it
/// ends in `-bin` or holds a space) or its value is not visible ASCII, so the call cannot be sent
/// as asked.
pub fn params_to_metadata(params: &ServiceParams, metadata: &mut MetadataMap) -> Result<()> {
    for (name, value) in params.outgoing() {
        let key = MetadataKey::<Ascii>::from_bytes(name.as_bytes()).map_err(|_| {
            Error::invalid_param(
                format!("serviceParams.{name}"),
                "the name is not a valid gRPC metadata key (ASCII, no `-bin` suffix)",
            )
        })?;
        // tonic would also accept octets 128-255, but gRPC metadata values are ASCII and a server
        // reading them as text (as `params_from_metadata` does) drops such a value.
        let value = Some(value)
            .filter(|v| v.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)))
            .and_then(|v| MetadataValue::<Ascii>::try_from(v).ok())
            .ok_or_else(|| {
                Error::invalid_param(
                    format!("serviceParams.{name}"),
                    "the value is not visible ASCII and cannot be sent as gRPC metadata",
                )
            })?;
        metadata.insert(key, value);
    }
    Ok(())
}

/// Whether a metadata name belongs to the transport (gRPC's `grpc-*`, HTTP/2 connection headers,
/// `content-type`, `te`, `user-agent`) rather than carrying a service parameter: the
/// workspace-wide rule, [`a2a_core::context::is_transport_header`]. (Incoming credentials are not
/// service parameters either: `ServiceParams::from_transport` leaves them out.)
pub fn is_reserved(name: &str) -> bool {
    a2a_core::context::is_transport_header(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_entries_join_with_commas_and_reserved_ones_are_skipped() {
        let mut metadata = MetadataMap::new();
        metadata.append("a2a-extensions", MetadataValue::from_static("urn:a"));
        metadata.append("a2a-extensions", MetadataValue::from_static("urn:b"));
        metadata.insert("a2a-version", MetadataValue::from_static("1.0"));
        metadata.insert("x-tenant-hint", MetadataValue::from_static("blue"));
        metadata.insert("grpc-timeout", MetadataValue::from_static("5S"));
        metadata.insert("te", MetadataValue::from_static("trailers"));
        metadata.insert("content-type", MetadataValue::from_static("application/grpc"));
        metadata.insert_bin("trace-bin", tonic::metadata::MetadataValue::from_bytes(b"\x00\x01"));

        let params = params_from_metadata(&metadata);
        assert_eq!(params.extensions(), ["urn:a", "urn:b"]);
        assert_eq!(params.version(), Some("1.0"));
        assert_eq!(params.get("X-Tenant-Hint"), Some("blue"));
        let names: Vec<_> = params.iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["a2a-extensions", "a2a-version", "x-tenant-hint"]);
    }

    /// What `params_from_metadata` made of a call's metadata when it read it through tonic's
    /// metadata iterator, every value before its name.
    fn through_tonic(metadata: &MetadataMap) -> ServiceParams {
        let entries = metadata.iter().filter_map(|entry| match entry {
            tonic::metadata::KeyAndValueRef::Ascii(key, value) => {
                value.to_str().ok().map(|v| (key.as_str(), v.as_bytes()))
            }
            tonic::metadata::KeyAndValueRef::Binary(..) => None,
        });
        ServiceParams::from_transport(entries)
    }

    #[test]
    fn reading_the_headers_directly_finds_the_same_parameters() {
        let cases: &[&[(&str, &[u8])]] = &[
            &[("a2a-version", b"1.0"), ("te", b"trailers"), ("content-type", b"application/grpc")],
            &[("a2a-version", b"1.0"), ("a2a-version", b"0.3"), ("x-request-id", b"abc")],
            &[("x-extra", b""), ("user-agent", b"tonic"), ("grpc-timeout", b"5S")],
            &[("authorization", b"Bearer t"), ("cookie", b"c=1"), ("x-extra", b"1")],
            &[("x-extra", "caf\u{e9}".as_bytes()), ("x-other", b"tab\there"), ("x-high", b"a\xffb")],
            &[("trace-bin", b"AAEC"), ("x-bin-not", b"1"), ("grpc-status-details-bin", b"AA")],
            &[(":authority", b"x"), ("host", b"h"), ("x-tenant-hint", b"blue"), ("x-tenant-hint", b"red")],
            &[],
        ];
        for entries in cases {
            let mut metadata = MetadataMap::new();
            for (name, value) in *entries {
                let Ok(name) = http::HeaderName::from_bytes(name.as_bytes()) else { continue };
                metadata.as_mut().append(name, http::HeaderValue::from_bytes(value).unwrap());
            }
            assert_eq!(params_from_metadata(&metadata), through_tonic(&metadata), "{entries:?}");
        }
    }

    #[test]
    fn params_become_lowercase_metadata_without_transport_headers() {
        let params = ServiceParams::new()
            .with("A2A-Version", "1.0")
            .with("X-Custom", "v")
            .with("Connection", "keep-alive")
            .with("Content-Type", "application/json");
        let mut metadata = MetadataMap::new();
        params_to_metadata(&params, &mut metadata).unwrap();
        assert_eq!(metadata.get("a2a-version").unwrap(), "1.0");
        assert_eq!(metadata.get("x-custom").unwrap(), "v");
        assert_eq!(metadata.len(), 2);
    }

    #[test]
    fn a_value_that_is_not_ascii_is_an_invalid_param_naming_it() {
        let params = ServiceParams::new().with("x-name", "Zoë");
        let error = params_to_metadata(&params, &mut MetadataMap::new()).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "serviceParams.x-name");
    }

    #[test]
    fn a_binary_key_is_an_invalid_param() {
        let params = ServiceParams::new().with("x-trace-bin", "AAEC");
        let error = params_to_metadata(&params, &mut MetadataMap::new()).unwrap_err();
        assert_eq!(error.field_violations()[0].field, "serviceParams.x-trace-bin");
    }
}
