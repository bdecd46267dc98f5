//! Rate limiting per caller: a token bucket per principal (set by an authentication layer, see
//! [`crate::auth`]), or per client IP address for callers without one. A request that finds its
//! bucket empty is refused before any binding reads it, with [`Error::ResourceExhausted`] and a
//! retry hint: HTTP 429 with `Retry-After` on JSON-RPC (a JSON-RPC error object, code -32012)
//! and REST (the `google.rpc.Status` body), gRPC `RESOURCE_EXHAUSTED` with a `RetryInfo`.
//!
//! The bucket is hand-rolled rather than taken from `governor`: it is a few lines of arithmetic
//! under one lock, needs no new dependency (nor `governor`'s clock and keyed-store machinery),
//! and the refusal needs the exact wait, which it computes directly.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_core::{Error, Principal};
use axum::extract::{ConnectInfo, Request, State};
use axum::middleware::Next;
use axum::response::Response;
use http::StatusCode;
use tokio::time::Instant;

use crate::limits::Shapes;
use crate::metrics::{Limit, Metrics};

/// How many calls a caller may make: `per_second` on average, `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Tokens added to each caller's bucket per second (may be fractional: 0.5 is one call every
    /// two seconds).
    pub per_second: f64,
    /// The bucket's size: calls a caller may make at once after a quiet period (at least 1).
    pub burst: u32,
}

impl RateLimit {
    /// `rate` is `N/s`, `N/m` or `N/h` (calls per second, minute or hour; `N` alone means per
    /// second); the burst defaults to `N`, at least 1. The reference server's `--rate-limit`.
    ///
    /// # Errors
    /// A message for the command line if `rate` is not of that form or not positive.
    pub fn parse(rate: &str) -> Result<RateLimit, String> {
        let (count, unit) = rate.split_once('/').unwrap_or((rate, "s"));
        let seconds = match unit.trim() {
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            other => return Err(format!("{rate:?}: unknown unit {other:?}; use N/s, N/m or N/h")),
        };
        let count: f64 = count.trim().parse().map_err(|_| format!("{rate:?}: use N/s, N/m or N/h"))?;
        if !(count.is_finite() && count > 0.0) {
            return Err(format!("{rate:?}: the rate must be positive"));
        }
        Ok(RateLimit { per_second: count / seconds, burst: (count.ceil() as u32).max(1) })
    }
}

/// Who a bucket belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Caller {
    Principal(String),
    Address(IpAddr),
    /// Neither is known (a router served without connection info): one shared bucket.
    Unknown,
}

/// A caller's bucket: tokens left at `at`.
#[derive(Debug, Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// With this many buckets, the full ones (callers quiet long enough to have refilled, which a
/// new bucket would equal) are dropped before another is added.
const PRUNE_ABOVE: usize = 10_000;

/// The buckets of every caller, and how many there may be before the next pruning: twice as
/// many as the last one left (at least [`PRUNE_ABOVE`]), so that many callers arriving at once
/// (say, from many addresses) cost a scan now and then, not one per new caller.
#[derive(Debug)]
struct Table {
    buckets: HashMap<Caller, Bucket>,
    prune_at: usize,
}

/// The buckets of every caller.
#[derive(Debug, Clone)]
pub(crate) struct Buckets {
    limit: RateLimit,
    table: Arc<Mutex<Table>>,
}

impl Buckets {
    pub(crate) fn new(limit: RateLimit) -> Self {
        let table = Table { buckets: HashMap::new(), prune_at: PRUNE_ABOVE };
        Buckets { limit, table: Arc::new(Mutex::new(table)) }
    }

    /// Takes a token of `caller`'s bucket at `now`, or says how long until there is one.
    fn take(&self, caller: Caller, now: Instant) -> Result<(), Duration> {
        let burst = f64::from(self.limit.burst.max(1));
        let rate = self.limit.per_second;
        let refilled = |bucket: &Bucket| {
            (bucket.tokens + now.saturating_duration_since(bucket.at).as_secs_f64() * rate).min(burst)
        };
        let mut table = self.table.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Table { buckets, prune_at } = &mut *table;
        if buckets.len() >= *prune_at && !buckets.contains_key(&caller) {
            buckets.retain(|_, bucket| refilled(bucket) < burst);
            *prune_at = (buckets.len() * 2).max(PRUNE_ABOVE);
        }
        let bucket = buckets.entry(caller).or_insert(Bucket { tokens: burst, at: now });
        let tokens = refilled(bucket);
        if tokens >= 1.0 {
            *bucket = Bucket { tokens: tokens - 1.0, at: now };
            Ok(())
        } else {
            *bucket = Bucket { tokens, at: now };
            Err(Duration::from_secs_f64((1.0 - tokens) / rate))
        }
    }
}

/// What the rate limit layer needs.
#[derive(Debug, Clone)]
pub(crate) struct RateLimitState {
    pub(crate) buckets: Buckets,
    pub(crate) shapes: Shapes,
    pub(crate) metrics: Metrics,
}

/// The layer's function (`axum::middleware::from_fn_with_state`).
pub(crate) async fn enforce(State(state): State<RateLimitState>, request: Request, next: Next) -> Response {
    let caller = match (
        request.extensions().get::<Principal>(),
        request.extensions().get::<ConnectInfo<SocketAddr>>(),
    ) {
        (Some(principal), _) => Caller::Principal(principal.id.clone()),
        (None, Some(ConnectInfo(address))) => Caller::Address(address.ip()),
        (None, None) => Caller::Unknown,
    };
    match state.buckets.take(caller, Instant::now()) {
        Ok(()) => next.run(request).await,
        Err(wait) => {
            // Whole seconds (RFC 9110 10.2.3), rounded up so that a retry at that time succeeds.
            let retry_after_secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            let error = Error::ResourceExhausted {
                reason: format!(
                    "rate limit of {} calls per second (burst {}) reached; retry in {retry_after_secs} s",
                    state.buckets.limit.per_second, state.buckets.limit.burst
                ),
                retry_after_secs: Some(retry_after_secs),
            };
            let (parts, _) = request.into_parts();
            state.metrics.refused(Limit::RateLimit);
            state.shapes.refuse(&parts, StatusCode::TOO_MANY_REQUESTS, error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_per_second_minute_or_hour() {
        assert_eq!(RateLimit::parse("10/s"), Ok(RateLimit { per_second: 10.0, burst: 10 }));
        assert_eq!(RateLimit::parse("5"), Ok(RateLimit { per_second: 5.0, burst: 5 }));
        assert_eq!(RateLimit::parse("60/m"), Ok(RateLimit { per_second: 1.0, burst: 60 }));
        assert_eq!(RateLimit::parse("0.5/s"), Ok(RateLimit { per_second: 0.5, burst: 1 }));
        for bad in ["0/s", "-1/s", "x/s", "10/d", "NaN/s"] {
            assert!(RateLimit::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_bucket_gives_its_burst_then_one_token_per_interval() {
        let buckets = Buckets::new(RateLimit { per_second: 2.0, burst: 3 });
        let start = Instant::now();
        let alice = || Caller::Principal("alice".into());
        for _ in 0..3 {
            assert_eq!(buckets.take(alice(), start), Ok(()));
        }
        assert_eq!(buckets.take(alice(), start), Err(Duration::from_millis(500)));
        // Another caller has a bucket of its own.
        assert_eq!(buckets.take(Caller::Principal("bob".into()), start), Ok(()));
        let later = start + Duration::from_millis(500);
        assert_eq!(buckets.take(alice(), later), Ok(()));
        assert!(buckets.take(alice(), later).is_err());
        // A long quiet period refills to the burst, no more.
        let much_later = later + Duration::from_secs(3600);
        for _ in 0..3 {
            assert_eq!(buckets.take(alice(), much_later), Ok(()));
        }
        assert!(buckets.take(alice(), much_later).is_err());
    }

    #[test]
    fn refilled_buckets_are_dropped_and_busy_ones_kept_when_there_are_many() {
        let buckets = Buckets::new(RateLimit { per_second: 1.0, burst: 2 });
        let start = Instant::now();
        let address = |i: u32| Caller::Address(IpAddr::from(i.to_be_bytes()));
        for i in 0..PRUNE_ABOVE as u32 {
            buckets.take(address(i), start).unwrap();
        }
        // Nobody has refilled yet: all are kept, and the next pruning waits for twice as many.
        buckets.take(Caller::Unknown, start).unwrap();
        let table = buckets.table.lock().unwrap();
        assert_eq!((table.buckets.len(), table.prune_at), (PRUNE_ABOVE + 1, 2 * PRUNE_ABOVE));
        drop(table);
        // Later those have refilled; new callers fill the table up to the next pruning, which
        // drops the refilled ones and keeps the busy ones.
        let later = start + Duration::from_secs(10);
        for i in 0..PRUNE_ABOVE as u32 - 1 {
            buckets.take(address(PRUNE_ABOVE as u32 + i), later).unwrap();
        }
        buckets.take(Caller::Principal("late".into()), later).unwrap();
        let table = buckets.table.lock().unwrap();
        assert_eq!((table.buckets.len(), table.prune_at), (PRUNE_ABOVE, 2 * (PRUNE_ABOVE - 1)));
    }
}
