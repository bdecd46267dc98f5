//! The HTTP+JSON/REST binding's server (1.0 routes and the 0.3 `/v1/` routes): the input is a
//! small HTTP request, sent through the real router (`a2a_rest::router`) to the echo agent:
//!
//! ```text
//! POST /tasks/t1:cancel?historyLength=2     <- method and request target (GET if no space)
//! content-type: application/json            <- headers, up to an empty line (optional)
//!
//! {"id": "t1"}                              <- body
//! ```
//!
//! A method or target hyper would refuse to parse never reaches a router and is skipped.
//!
//! Checks: no panic, no hang; never a 5xx; an error is a JSON error body (spec 11.6's
//! `{"error": {"code", "status", "message"}}`, or 0.3's `{"code", "message"}` under `/v1/`) whose
//! code agrees with the status; a 405 says `Allow`; a success is JSON or an SSE stream of JSON.

#![no_main]

use a2a_fuzz::{block_on, check_stored_tasks, read_body, service, Input};
use axum::body::Body;
use http::{header, HeaderName, HeaderValue, Method, Request, StatusCode, Uri};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower::ServiceExt as _;

fuzz_target!(|data: &[u8]| {
    let Some(request) = request(data) else { return };
    let shown = format!("{} {}", request.method(), request.uri());
    let service = service();
    let router = a2a_rest::router(service.clone());
    block_on(async move {
        // The exchange; an early `return` ends only it.
        async {
            let response = router.oneshot(request).await.expect("the router is infallible");
            let status = response.status();
            assert!(!status.is_server_error(), "{shown}: HTTP {status}");
            let allow = response.headers().contains_key(header::ALLOW);
            let content_type = response
                .headers()
                .get(header::CONTENT_TYPE)
                .map(|v| v.to_str().expect("an ASCII content type").to_owned());
            let body = read_body(response.into_body()).await;
            if status == StatusCode::METHOD_NOT_ALLOWED {
                assert!(allow, "{shown}: 405 without Allow");
            }
            if !status.is_success() {
                check_error(&shown, status.as_u16(), &body);
                return;
            }
            match content_type.as_deref() {
                Some(sse) if sse.starts_with("text/event-stream") => check_stream(&shown, &body),
                Some(_) => {
                    serde_json::from_slice::<Value>(&body).unwrap_or_else(|e| {
                        panic!("{shown}: HTTP {status} with a body that is not JSON: {e}")
                    });
                }
                None => panic!("{shown}: HTTP {status} without a content type"),
            }
        }
        .await;
        check_stored_tasks(&*service).await;
    });
});

/// The request the input describes, or `None` if no HTTP server would pass it on.
fn request(data: &[u8]) -> Option<Request<Body>> {
    let mut input = Input(data);
    let first = input.line();
    let (method, target) = match first.iter().position(|&b| b == b' ') {
        Some(space) => (Method::from_bytes(&first[..space]).ok()?, &first[space + 1..]),
        None => (Method::GET, first),
    };
    let uri = Uri::try_from(target).ok()?;
    // hyper gives a router origin-form targets only (`/path?query`).
    if uri.scheme().is_some() || !uri.path().starts_with('/') {
        return None;
    }
    let mut builder = Request::builder().method(method).uri(uri);
    let mut version_given = false;
    while !input.0.is_empty() {
        let line = input.line();
        if line.is_empty() || line == b"\r" {
            break;
        }
        let Some(colon) = line.iter().position(|&b| b == b':') else { continue };
        let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(&line[..colon]), HeaderValue::from_bytes(line[colon + 1..].trim_ascii()))
        else {
            continue;
        };
        version_given |= name == "a2a-version";
        builder = builder.header(name, value);
    }
    if !version_given {
        builder = builder.header("a2a-version", "1.0");
    }
    builder.body(Body::from(input.rest().to_vec())).ok()
}

/// An error body: 1.0's `{"error": {"code": <status>, "status", "message"}}` or 0.3's
/// `{"code": <negative>, "message"}` (a 404 under `/v1/` has both).
fn check_error(shown: &str, status: u16, body: &[u8]) {
    let value: Value = serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{shown}: HTTP {status} with a body that is not JSON: {e}"));
    if let Some(error) = value.get("error") {
        assert_eq!(error["code"].as_u64(), Some(u64::from(status)), "{shown}: {value}");
        assert!(error["status"].is_string() && error["message"].is_string(), "{shown}: {value}");
    } else {
        assert!(value["code"].as_i64().is_some_and(|code| code < 0), "{shown}: HTTP {status}: {value}");
        assert!(value["message"].is_string(), "{shown}: {value}");
    }
}

/// Every event's data is JSON; an `error` event carries an error body that is no server fault.
fn check_stream(shown: &str, body: &[u8]) {
    let text = std::str::from_utf8(body).expect("an SSE body is UTF-8");
    let mut name = "";
    for line in text.lines() {
        if line.is_empty() {
            name = "";
        } else if let Some(event) = line.strip_prefix("event:") {
            name = event.trim();
        } else if let Some(data) = line.strip_prefix("data:") {
            let value: Value = serde_json::from_str(data.trim_start())
                .unwrap_or_else(|e| panic!("{shown}: an SSE event that is not JSON: {e}"));
            if name == "error" {
                let code = value["error"]["code"].as_i64().or_else(|| value["code"].as_i64());
                assert!(
                    code.is_some_and(|code| code < 500 && code != -32603),
                    "{shown}: error event {value}"
                );
            }
        }
    }
}
