//! The JSON-RPC binding's server (1.0 and 0.3 methods on one endpoint): the input is a request
//! body, POSTed through the real router (`a2a_jsonrpc::router`) to the echo agent.
//!
//! Checks: no panic, no hang; every answer is HTTP 200 with one well-formed JSON-RPC response
//! object (or an SSE stream of them), or 204 for a notification. Garbage gets -32700, -32600,
//! -32601, -32602 or an A2A error code, never -32603 (internal error): that would be the server
//! failing on its input.

#![no_main]

use a2a_fuzz::{block_on, check_stored_tasks, read_body, service};
use axum::body::Body;
use http::{header, Request, StatusCode};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tower::ServiceExt as _;

fuzz_target!(|data: &[u8]| {
    let request = Request::post("/")
        .header(header::CONTENT_TYPE, "application/json")
        .header("a2a-version", "1.0")
        .body(Body::from(data.to_vec()))
        .expect("a valid request");
    let service = service();
    let router = a2a_jsonrpc::router(service.clone());
    block_on(async move {
        // The exchange; an early `return` ends only it.
        async {
            let response = router.oneshot(request).await.expect("the router is infallible");
            let status = response.status();
            let content_type = response
                .headers()
                .get(header::CONTENT_TYPE)
                .map(|v| v.to_str().expect("an ASCII content type").to_owned());
            let body = read_body(response.into_body()).await;
            match status {
                StatusCode::NO_CONTENT => assert!(body.is_empty(), "a 204 with a body"),
                StatusCode::OK => match content_type.as_deref() {
                    Some("application/json") => check_response(&body),
                    Some(sse) if sse.starts_with("text/event-stream") => {
                        let text = std::str::from_utf8(&body).expect("an SSE body is UTF-8");
                        for line in text.lines() {
                            if let Some(data) = line.strip_prefix("data:") {
                                check_response(data.trim_start().as_bytes());
                            }
                        }
                    }
                    other => panic!("200 with content type {other:?}"),
                },
                other => panic!("HTTP {other} for {:?}", String::from_utf8_lossy(data)),
            }
        }
        .await;
        check_stored_tasks(&*service).await;
    });
});

/// One JSON-RPC 2.0 response object: `jsonrpc`, `id`, and exactly one of `result` and `error`,
/// whose code is not -32603.
fn check_response(bytes: &[u8]) {
    let value: Value = serde_json::from_slice(bytes).expect("a JSON-RPC response is JSON");
    let object = value.as_object().expect("a response object");
    assert_eq!(object.get("jsonrpc"), Some(&Value::from("2.0")), "{value}");
    assert!(object.contains_key("id"), "no id: {value}");
    match (object.get("result"), object.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            let code = error["code"].as_i64().unwrap_or_else(|| panic!("an error code: {value}"));
            assert!(error["message"].is_string(), "an error message: {value}");
            assert!(
                matches!(code, -32700 | -32600 | -32601 | -32602) || (-32099..=-32000).contains(&code),
                "error code {code}: {value}"
            );
        }
        _ => panic!("not exactly one of result and error: {value}"),
    }
}
