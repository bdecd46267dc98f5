//! Latency statistics from raw per-request timings: every request's duration is kept, so the
//! maximum is the real slowest request and percentiles are exact (nearest rank), not read off a
//! histogram's buckets.

use std::time::Duration;

use serde::Serialize;

/// A latency above this is a stall (the harness's target: none at c=64).
pub(crate) const STALL: Duration = Duration::from_millis(50);

/// Raw latencies of one measurement, in nanoseconds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Samples {
    nanos: Vec<u64>,
    sorted: bool,
}

impl Samples {
    /// Room for `n` samples.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Samples { nanos: Vec::with_capacity(n), sorted: true }
    }

    /// Records one request's latency.
    pub(crate) fn push(&mut self, latency: Duration) {
        self.nanos.push(u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX));
        self.sorted = false;
    }

    /// Adds every sample of `other`.
    pub(crate) fn extend(&mut self, other: &Samples) {
        self.nanos.extend_from_slice(&other.nanos);
        self.sorted = false;
    }

    /// How many samples.
    pub(crate) fn len(&self) -> usize {
        self.nanos.len()
    }

    fn sort(&mut self) {
        if !self.sorted {
            self.nanos.sort_unstable();
            self.sorted = true;
        }
    }

    /// The nearest-rank percentile `p` (0 < p <= 100), `None` without samples.
    pub(crate) fn percentile(&mut self, p: f64) -> Option<Duration> {
        self.sort();
        if self.nanos.is_empty() {
            return None;
        }
        let rank = ((p / 100.0) * self.nanos.len() as f64).ceil() as usize;
        let index = rank.clamp(1, self.nanos.len()) - 1;
        Some(Duration::from_nanos(self.nanos[index]))
    }

    /// The slowest request.
    pub(crate) fn max(&mut self) -> Option<Duration> {
        self.sort();
        self.nanos.last().map(|n| Duration::from_nanos(*n))
    }

    /// How many requests took longer than `limit`.
    pub(crate) fn count_over(&self, limit: Duration) -> usize {
        let limit = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
        self.nanos.iter().filter(|n| **n > limit).count()
    }

    /// The summary written to the report.
    pub(crate) fn summary(&mut self) -> LatencySummary {
        let us = |d: Option<Duration>| d.map_or(0.0, |d| d.as_secs_f64() * 1e6);
        LatencySummary {
            samples: self.len(),
            p50_us: us(self.percentile(50.0)),
            p99_us: us(self.percentile(99.0)),
            max_us: us(self.max()),
            over_50ms: self.count_over(STALL),
        }
    }
}

/// Percentiles of one measurement, in microseconds.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq)]
pub(crate) struct LatencySummary {
    /// How many requests were timed.
    pub(crate) samples: usize,
    /// Median.
    pub(crate) p50_us: f64,
    /// 99th percentile.
    pub(crate) p99_us: f64,
    /// The slowest request.
    pub(crate) max_us: f64,
    /// Requests slower than 50 ms (stalls).
    pub(crate) over_50ms: usize,
}

/// The median of `values` (the mean of the middle two for an even count); 0 when empty.
pub(crate) fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 0 {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn percentiles_use_nearest_rank_and_max_is_the_slowest_request() {
        let mut samples = Samples::with_capacity(100);
        for i in (1..=100).rev() {
            samples.push(ms(i));
        }
        assert_eq!(samples.percentile(50.0), Some(ms(50)));
        assert_eq!(samples.percentile(99.0), Some(ms(99)));
        assert_eq!(samples.percentile(100.0), Some(ms(100)));
        assert_eq!(samples.max(), Some(ms(100)));
        assert_eq!(samples.count_over(STALL), 50);
    }

    #[test]
    fn a_single_outlier_shows_in_max_but_not_in_p99() {
        let mut samples = Samples::default();
        for _ in 0..999 {
            samples.push(ms(1));
        }
        samples.push(ms(400));
        let summary = samples.summary();
        assert_eq!(summary.p99_us, 1000.0);
        assert_eq!(summary.max_us, 400_000.0);
        assert_eq!(summary.over_50ms, 1);
    }

    #[test]
    fn empty_samples_summarise_to_zero() {
        let summary = Samples::default().summary();
        assert_eq!(summary, LatencySummary::default());
    }

    #[test]
    fn merged_samples_keep_every_timing() {
        let mut a = Samples::default();
        a.push(ms(3));
        let mut b = Samples::default();
        b.push(ms(1));
        b.push(ms(2));
        a.extend(&b);
        assert_eq!((a.len(), a.percentile(50.0), a.max()), (3, Some(ms(2)), Some(ms(3))));
    }

    #[test]
    fn median_of_even_and_odd_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }
}
