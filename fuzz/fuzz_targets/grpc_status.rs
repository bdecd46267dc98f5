//! The gRPC client's reading of a peer's status: `grpc-status`, `grpc-message`,
//! `grpc-status-details-bin` (a `google.rpc.Status` with ErrorInfo / BadRequest details) and 0.3's
//! `a2a-error`, as response headers or trailers, through the client's guard, tonic's
//! `Status::from_header_map` and `a2a_grpc::error::from_status` (or the 0.3 client's reading;
//! entry point of `a2a-grpc`'s `fuzzing` feature). Also `from_status` on a status built straight
//! from the details bytes, as tonic keeps them.
//!
//! Input: first byte picks 1.0 or 0.3 and whether the details go base64-encoded (as a peer sends
//! them) or raw into the header; then one line each: `grpc-status`, `grpc-message`, `a2a-error`;
//! the rest is the details.
//!
//! Checks: no panic (tonic itself panicked on a details header that is not base64, which the
//! guard is there for), no hang.

#![no_main]

use a2a_fuzz::Input;
use base64::Engine as _;
use http::{HeaderMap, HeaderValue};
use libfuzzer_sys::fuzz_target;
use tonic::{Code, Status};

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let flags = input.byte();
    let v03 = flags & 1 == 1;
    let raw_details = flags & 2 == 2;
    let code = input.line();
    let message = input.line();
    let a2a_error = input.line();
    let details = input.rest();

    let mut headers = HeaderMap::new();
    for (name, value) in [("grpc-status", code), ("grpc-message", message), ("a2a-error", a2a_error)] {
        if let Ok(value) = HeaderValue::from_bytes(value) {
            headers.insert(name, value);
        }
    }
    let encoded = if raw_details {
        HeaderValue::from_bytes(details).ok()
    } else {
        HeaderValue::from_str(&base64::engine::general_purpose::STANDARD_NO_PAD.encode(details)).ok()
    };
    if let Some(encoded) = encoded {
        headers.insert("grpc-status-details-bin", encoded);
    }
    let _ = a2a_grpc::fuzzing::status_error(headers, v03);

    let code = std::str::from_utf8(code).ok().and_then(|c| c.trim().parse::<i32>().ok()).unwrap_or(2);
    let status = Status::with_details(
        Code::from_i32(code),
        String::from_utf8_lossy(message),
        bytes::Bytes::copy_from_slice(details),
    );
    let _ = a2a_grpc::error::from_status(&status);
});
