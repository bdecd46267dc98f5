//! [`CardCache`]: agent cards kept per HTTP caching headers (spec 8.6: "clients SHOULD honor
//! standard HTTP caching semantics"), shared by the builders that hold it.
//!
//! A card is fresh for `Cache-Control: max-age` (less its `Age`), during which fetching it sends
//! nothing. Once stale it is revalidated with `If-None-Match` (its `ETag`) and
//! `If-Modified-Since` (its `Last-Modified`): a `304 Not Modified` keeps the cached card, fresh
//! again per the new headers. `no-store` keeps nothing; `no-cache` (or no `max-age`) stores the
//! card only to revalidate it each time, and only when it has a validator.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_proto::v1::AgentCard;
use reqwest::header::{HeaderMap, AGE, CACHE_CONTROL, ETAG, LAST_MODIFIED};

/// A cache of agent cards by URL. Cloning shares it; give it to
/// [`ClientBuilder::card_cache`](crate::ClientBuilder::card_cache).
#[derive(Debug, Clone, Default)]
pub struct CardCache {
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

#[derive(Debug, Clone)]
pub(crate) struct Entry {
    pub(crate) card: AgentCard,
    pub(crate) etag: Option<String>,
    pub(crate) last_modified: Option<String>,
    fresh_until: Instant,
}

impl Entry {
    pub(crate) fn is_fresh(&self) -> bool {
        Instant::now() < self.fresh_until
    }
}

/// What a response's headers allow.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Policy {
    /// `no-store`: keep nothing.
    NoStore,
    /// Keep; fresh for this long (zero: revalidate every time).
    Keep(Duration),
}

impl Policy {
    pub(crate) fn of(headers: &HeaderMap) -> Policy {
        let mut max_age = None;
        let mut no_cache = false;
        for directive in
            headers.get_all(CACHE_CONTROL).iter().filter_map(|v| v.to_str().ok()).flat_map(|v| v.split(','))
        {
            let directive = directive.trim().to_ascii_lowercase();
            match directive.as_str() {
                "no-store" => return Policy::NoStore,
                "no-cache" => no_cache = true,
                _ => {
                    if let Some(seconds) = directive.strip_prefix("max-age=") {
                        max_age = seconds.trim_matches('"').parse::<u64>().ok();
                    }
                }
            }
        }
        let age = headers
            .get(AGE)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok())
            .unwrap_or(0);
        let fresh = if no_cache { 0 } else { max_age.unwrap_or(0).saturating_sub(age) };
        Policy::Keep(Duration::from_secs(fresh))
    }
}

impl CardCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many cards it holds.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether it holds no card.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets every card.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn get(&self, url: &str) -> Option<Entry> {
        self.lock().get(url).cloned()
    }

    /// Stores (or drops) the card `url` answered with, per the response's `headers`.
    pub(crate) fn store(&self, url: &str, card: &AgentCard, headers: &HeaderMap) {
        let header = |name| {
            headers.get(name).and_then(|v: &reqwest::header::HeaderValue| v.to_str().ok()).map(str::to_owned)
        };
        let (etag, last_modified) = (header(ETAG), header(LAST_MODIFIED));
        match Policy::of(headers) {
            Policy::Keep(fresh) if !fresh.is_zero() || etag.is_some() || last_modified.is_some() => {
                let entry =
                    Entry { card: card.clone(), etag, last_modified, fresh_until: Instant::now() + fresh };
                self.lock().insert(url.to_owned(), entry);
            }
            _ => {
                self.lock().remove(url);
            }
        }
    }

    /// A `304 Not Modified` for `url`: the cached card stays, fresh per the new `headers`.
    pub(crate) fn refresh(&self, url: &str, headers: &HeaderMap) -> Option<AgentCard> {
        let mut entries = self.lock();
        let entry = entries.get_mut(url)?;
        match Policy::of(headers) {
            Policy::NoStore => entries.remove(url).map(|e| e.card),
            Policy::Keep(fresh) => {
                entry.fresh_until = Instant::now() + fresh;
                if let Some(etag) = headers.get(ETAG).and_then(|v| v.to_str().ok()) {
                    entry.etag = Some(etag.to_owned());
                }
                Some(entry.card.clone())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(reqwest::header::HeaderName, &str)]) -> HeaderMap {
        pairs.iter().map(|(n, v)| (n.clone(), HeaderValue::from_str(v).unwrap())).collect()
    }

    #[test]
    fn cache_control_is_read_as_http_says() {
        assert_eq!(
            Policy::of(&headers(&[(CACHE_CONTROL, "public, max-age=300")])),
            Policy::Keep(Duration::from_secs(300))
        );
        assert_eq!(
            Policy::of(&headers(&[(CACHE_CONTROL, "max-age=300"), (AGE, "100")])),
            Policy::Keep(Duration::from_secs(200))
        );
        assert_eq!(
            Policy::of(&headers(&[(CACHE_CONTROL, "no-cache, max-age=300")])),
            Policy::Keep(Duration::ZERO)
        );
        assert_eq!(Policy::of(&headers(&[(CACHE_CONTROL, "max-age=60, No-Store")])), Policy::NoStore);
        assert_eq!(Policy::of(&HeaderMap::new()), Policy::Keep(Duration::ZERO));
    }

    #[test]
    fn only_cards_that_can_be_reused_or_revalidated_are_kept() {
        let cache = CardCache::new();
        let card = AgentCard { name: "A".into(), ..Default::default() };
        cache.store("u", &card, &HeaderMap::new());
        assert!(cache.is_empty(), "no freshness and no validator: nothing to gain");
        cache.store("u", &card, &headers(&[(ETAG, "\"1\"")]));
        assert!(!cache.get("u").unwrap().is_fresh(), "kept to revalidate");
        cache.store("u", &card, &headers(&[(CACHE_CONTROL, "max-age=60")]));
        assert!(cache.get("u").unwrap().is_fresh());
        cache.store("u", &card, &headers(&[(CACHE_CONTROL, "no-store"), (ETAG, "\"1\"")]));
        assert!(cache.is_empty());
    }
}
