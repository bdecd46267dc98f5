//! A latency histogram of plain atomics: `observe` is a bucket search and three relaxed
//! `fetch_add`s, with no lock (prometheus-client's own `Histogram` takes a mutex per observation).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds of the buckets, in nanoseconds: from 100 µs (an in-memory store read) to a
/// minute (a blocking SendMessage waiting on a slow agent). A `+Inf` bucket follows.
const BOUNDS_NANOS: [u64; 18] = [
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
    2_500_000_000,
    5_000_000_000,
    10_000_000_000,
    30_000_000_000,
    60_000_000_000,
];

/// The bounds in seconds, as scraped (`le="0.0001"`, ...).
pub(crate) fn bounds_seconds() -> impl Iterator<Item = f64> {
    BOUNDS_NANOS.iter().map(|&nanos| nanos as f64 / 1e9)
}

/// Counts per bucket (not cumulative; the last is `+Inf`) and the sum of what was observed.
#[derive(Debug, Default)]
pub(crate) struct Histogram {
    buckets: [AtomicU64; BOUNDS_NANOS.len() + 1],
    sum_nanos: AtomicU64,
}

/// A histogram as read at one moment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Snapshot {
    /// Sum of the observations, in seconds.
    pub(crate) sum: f64,
    /// How many observations (the sum of the buckets, so the two always agree).
    pub(crate) count: u64,
    /// `(upper bound, count)` per bucket, not cumulative, the last bound `f64::INFINITY` (`+Inf`).
    pub(crate) buckets: Vec<(f64, u64)>,
}

impl Histogram {
    /// Records one duration.
    pub(crate) fn observe(&self, elapsed: Duration) {
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        let bucket = BOUNDS_NANOS.iter().position(|&bound| nanos <= bound).unwrap_or(BOUNDS_NANOS.len());
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    /// How many durations were recorded.
    pub(crate) fn count(&self) -> u64 {
        self.buckets.iter().map(|b| b.load(Ordering::Relaxed)).sum()
    }

    /// The current counts, for a scrape.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let buckets: Vec<(f64, u64)> = bounds_seconds()
            .chain(std::iter::once(f64::INFINITY))
            .zip(self.buckets.iter().map(|b| b.load(Ordering::Relaxed)))
            .collect();
        Snapshot {
            sum: self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9,
            count: buckets.iter().map(|(_, n)| n).sum(),
            buckets,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_duration_lands_in_the_first_bucket_that_holds_it() {
        let histogram = Histogram::default();
        histogram.observe(Duration::from_micros(100)); // on the first bound: that bucket
        histogram.observe(Duration::from_micros(101));
        histogram.observe(Duration::from_millis(3));
        histogram.observe(Duration::from_secs(3600)); // past every bound: +Inf
        let snapshot = histogram.snapshot();
        assert_eq!(snapshot.count, 4);
        assert_eq!(histogram.count(), 4);
        let count_at = |bound: f64| snapshot.buckets.iter().find(|(b, _)| *b == bound).unwrap().1;
        assert_eq!(count_at(0.0001), 1);
        assert_eq!(count_at(0.00025), 1);
        assert_eq!(count_at(0.005), 1);
        assert_eq!(count_at(f64::INFINITY), 1);
        assert!((snapshot.sum - 3600.003201).abs() < 1e-9, "{}", snapshot.sum);
    }

    #[test]
    fn bounds_read_as_the_decimal_seconds_they_stand_for() {
        let bounds: Vec<f64> = bounds_seconds().collect();
        assert_eq!(bounds[..4], [0.0001, 0.00025, 0.0005, 0.001]);
        assert_eq!(bounds.last(), Some(&60.0));
        assert!(bounds.windows(2).all(|w| w[0] < w[1]));
    }
}
