//! An axum router served on `127.0.0.1` port 0.

use std::time::Duration;

use axum::Router;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server on `127.0.0.1`, port chosen by the OS, running until [`TestServer::stop`] or until
/// dropped (which aborts it).
#[derive(Debug)]
pub struct TestServer {
    base: String,
    shutdown: Option<oneshot::Sender<()>>,
    handle: Option<JoinHandle<()>>,
}

impl TestServer {
    /// Serves `router` on an already bound listener, so that it accepts connections at once (no
    /// waiting for the server to come up).
    pub async fn start(router: Router) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let (shutdown, stopped) = oneshot::channel::<()>();
        let handle = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await
                .unwrap();
        });
        TestServer { base, shutdown: Some(shutdown), handle: Some(handle) }
    }

    /// The base URL, `http://127.0.0.1:<port>`.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// The absolute URL of `path_and_query` (which starts with `/`).
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base)
    }

    /// Stops the server: gracefully, or by aborting it if a connection (an SSE stream a test left
    /// open) holds it up for more than a second.
    pub async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(handle) = self.handle.take() {
            let abort = handle.abort_handle();
            if tokio::time::timeout(Duration::from_secs(1), handle).await.is_err() {
                abort.abort();
            }
        }
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            handle.abort();
        }
    }
}
