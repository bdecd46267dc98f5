//! The card cache against a card endpoint that counts what it serves: a fresh card is not fetched
//! again, a stale one is revalidated (`304`), `no-store` is always fetched.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use a2a_client::{CardCache, Client};
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::IntoResponse;

#[derive(Default)]
struct Counts {
    full: AtomicUsize,
    not_modified: AtomicUsize,
}

struct Endpoint {
    cache_control: &'static str,
    counts: Counts,
}

async fn card(State(endpoint): State<Arc<Endpoint>>, headers: HeaderMap) -> impl IntoResponse {
    const ETAG: &str = "\"v1\"";
    let caching = [(header::ETAG, ETAG), (header::CACHE_CONTROL, endpoint.cache_control)];
    if headers.get(header::IF_NONE_MATCH).is_some_and(|v| v == ETAG) {
        endpoint.counts.not_modified.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::NOT_MODIFIED, caching, Vec::new());
    }
    endpoint.counts.full.fetch_add(1, Ordering::SeqCst);
    let mut served = a2a_demo::demo_card();
    served.supported_interfaces = vec![a2a_proto::v1::AgentInterface {
        url: "http://127.0.0.1:1".into(),
        protocol_binding: "JSONRPC".into(),
        protocol_version: "1.0".into(),
        ..Default::default()
    }];
    let body = a2a_proto::json::to_vec(&served).unwrap();
    (StatusCode::OK, caching, body)
}

/// Serves the demo card with `cache_control` and an `ETag`; returns the base URL and the counts.
async fn serve(cache_control: &'static str) -> (String, Arc<Endpoint>) {
    let endpoint = Arc::new(Endpoint { cache_control, counts: Counts::default() });
    let app = axum::Router::new()
        .route(a2a_client::AGENT_CARD_PATH, axum::routing::get(card))
        .with_state(endpoint.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, endpoint)
}

fn counts(endpoint: &Endpoint) -> (usize, usize) {
    (endpoint.counts.full.load(Ordering::SeqCst), endpoint.counts.not_modified.load(Ordering::SeqCst))
}

#[tokio::test]
async fn a_fresh_card_is_not_fetched_again() {
    let (url, endpoint) = serve("public, max-age=300").await;
    let cache = CardCache::new();
    let builder = Client::builder().card_cache(cache.clone());
    let first = builder.fetch_card(&url).await.unwrap();
    let second = builder.fetch_card(&url).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(counts(&endpoint), (1, 0), "the second came from the cache");
    // Another builder sharing the cache, through connect.
    Client::builder().card_cache(cache.clone()).connect(&url).await.unwrap();
    assert_eq!(counts(&endpoint), (1, 0));
    cache.clear();
    builder.fetch_card(&url).await.unwrap();
    assert_eq!(counts(&endpoint), (2, 0));
    // No cache: every fetch is a request.
    Client::builder().fetch_card(&url).await.unwrap();
    assert_eq!(counts(&endpoint), (3, 0));
}

#[tokio::test]
async fn a_stale_card_is_revalidated_with_its_etag() {
    let (url, endpoint) = serve("no-cache").await;
    let builder = Client::builder().card_cache(CardCache::new());
    let first = builder.fetch_card(&url).await.unwrap();
    let second = builder.fetch_card(&url).await.unwrap();
    let third = builder.fetch_card(&url).await.unwrap();
    assert_eq!(first, second);
    assert_eq!(second, third);
    assert_eq!(counts(&endpoint), (1, 2), "one full fetch, then 304s");
}

#[tokio::test]
async fn no_store_is_always_fetched() {
    let (url, endpoint) = serve("no-store").await;
    let cache = CardCache::new();
    let builder = Client::builder().card_cache(cache.clone());
    builder.fetch_card(&url).await.unwrap();
    builder.fetch_card(&url).await.unwrap();
    assert_eq!(counts(&endpoint), (2, 0));
    assert!(cache.is_empty());
}
