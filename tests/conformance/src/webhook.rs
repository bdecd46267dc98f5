//! [`Webhook`]: a local push-notification receiver that answers every POST with 200 and counts
//! them, so the push-config scenarios register a URL that really accepts deliveries.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::routing::post;
use axum::Router;
use tokio::task::JoinHandle;

/// A running receiver; stopped when dropped.
#[derive(Debug)]
pub struct Webhook {
    addr: SocketAddr,
    received: Arc<AtomicUsize>,
    task: JoinHandle<()>,
}

impl Webhook {
    /// Starts a receiver on `addr` (port 0 picks a free port).
    ///
    /// # Errors
    /// When the address cannot be bound.
    pub async fn start(addr: SocketAddr) -> std::io::Result<Webhook> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let received = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&received);
        let app = Router::new().route(
            "/{*path}",
            post(move || {
                count.fetch_add(1, Ordering::Relaxed);
                async { axum::http::StatusCode::OK }
            }),
        );
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(Webhook { addr, received, task })
    }

    /// The URL to register (`http://ADDR/a2a-conformance/webhook`).
    pub fn url(&self) -> String {
        format!("http://{}/a2a-conformance/webhook", self.addr)
    }

    /// How many notifications arrived so far.
    pub fn received(&self) -> usize {
        self.received.load(Ordering::Relaxed)
    }
}

impl Drop for Webhook {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_post_is_accepted_and_counted() {
        let webhook = Webhook::start("127.0.0.1:0".parse().unwrap()).await.unwrap();
        let status = reqwest::Client::new().post(webhook.url()).body("{}").send().await.unwrap().status();
        assert_eq!(status, 200);
        assert_eq!(webhook.received(), 1);
    }
}
