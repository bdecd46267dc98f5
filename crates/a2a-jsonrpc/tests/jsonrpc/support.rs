//! What only the JSON-RPC tests need: the server at its one endpoint, and raw HTTP helpers. The
//! scripted service and the fixtures are shared with the other bindings in `a2a-test-support`.

use std::sync::Arc;

use a2a_jsonrpc::JsonRpcClient;
use serde_json::Value;

/// The scripted service with the shared canned answers.
pub(crate) type Scripted = a2a_test_support::Scripted;

/// A server on `127.0.0.1`, port chosen by the OS; stopped when dropped.
pub(crate) struct TestServer {
    /// The JSON-RPC endpoint, e.g. `http://127.0.0.1:41234/`.
    pub(crate) url: String,
    _server: a2a_test_support::TestServer,
}

impl TestServer {
    /// Serves `router` on an already bound listener: no waiting for the server to come up.
    pub(crate) async fn start(router: axum::Router) -> Self {
        let server = a2a_test_support::TestServer::start(router).await;
        TestServer { url: server.url("/"), _server: server }
    }

    pub(crate) fn client(&self) -> JsonRpcClient {
        JsonRpcClient::new(&self.url)
    }
}

/// The scripted service behind [`a2a_jsonrpc::router`].
pub(crate) async fn serve_scripted() -> (TestServer, Arc<Scripted>) {
    let service = Scripted::new();
    let server = TestServer::start(a2a_jsonrpc::router(service.clone())).await;
    (server, service)
}

/// A raw HTTP answer.
#[derive(Debug)]
pub(crate) struct Raw {
    pub(crate) status: reqwest::StatusCode,
    pub(crate) content_type: String,
    pub(crate) body: String,
}

impl Raw {
    /// The body as JSON.
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }

    /// The `data` of each SSE event, parsed as JSON.
    pub(crate) fn events(&self) -> Vec<Value> {
        self.body
            .split("\n\n")
            .filter_map(|event| event.lines().find_map(|line| line.strip_prefix("data:")))
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    }
}

/// POSTs `body` as it is, with `headers`.
pub(crate) async fn post_raw(url: &str, body: impl Into<reqwest::Body>, headers: &[(&str, &str)]) -> Raw {
    let mut request = reqwest::Client::new().post(url).header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.body(body).send().await.unwrap();
    let status = response.status();
    let content_type =
        response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned()).unwrap_or_default();
    let body = response.text().await.unwrap();
    Raw { status, content_type, body }
}

/// POSTs a JSON-RPC request written as JSON text, with `A2A-Version: 1.0`, and returns the
/// answer, asserting the transport rules every JSON answer follows (HTTP 200, JSON content).
pub(crate) async fn rpc(url: &str, body: &str) -> Value {
    let raw = post_raw(url, body.to_owned(), &[("A2A-Version", "1.0")]).await;
    assert_eq!(raw.status, 200, "{}", raw.body);
    assert_eq!(raw.content_type, "application/json", "{}", raw.body);
    raw.json()
}
