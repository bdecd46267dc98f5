//! The closed-loop load generator: `concurrency` workers each send a request, wait for its reply
//! and send the next, for a warm-up and then a fixed measurement window. Every request started in
//! the window is timed individually.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::stats::Samples;

/// How long and how hard to load.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoadSpec {
    /// Requests in flight at any time.
    pub(crate) concurrency: usize,
    /// Run, untimed, for this long first (connections, caches, allocator).
    pub(crate) warmup: Duration,
    /// Then time every request started during this long.
    pub(crate) duration: Duration,
}

/// What one load run measured.
#[derive(Debug, Clone)]
pub(crate) struct LoadOutcome {
    /// The latency of every successful request started in the window.
    pub(crate) samples: Samples,
    /// Requests that failed in the window.
    pub(crate) errors: usize,
    /// The first failure, to show what went wrong.
    pub(crate) first_error: Option<String>,
    /// Successful requests per second over the window.
    pub(crate) throughput: f64,
}

struct WorkerOutcome {
    samples: Samples,
    errors: usize,
    first_error: Option<String>,
    last_done: Instant,
}

/// A load run in progress.
pub(crate) struct Running {
    measure_start: Instant,
    end: Instant,
    workers: Vec<JoinHandle<WorkerOutcome>>,
}

/// Starts `spec.concurrency` workers calling `call(worker, iteration)` in a loop.
pub(crate) fn start<F, Fut>(spec: LoadSpec, call: F) -> Running
where
    F: Fn(usize, u64) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), String>> + Send + 'static,
{
    let call = Arc::new(call);
    let measure_start = Instant::now() + spec.warmup;
    let end = measure_start + spec.duration;
    let workers = (0..spec.concurrency.max(1))
        .map(|worker| {
            let call = Arc::clone(&call);
            tokio::spawn(async move {
                let mut outcome = WorkerOutcome {
                    samples: Samples::with_capacity(4096),
                    errors: 0,
                    first_error: None,
                    last_done: measure_start,
                };
                let mut iteration = 0u64;
                loop {
                    let started = Instant::now();
                    if started >= end {
                        break;
                    }
                    let result = call(worker, iteration).await;
                    let done = Instant::now();
                    iteration += 1;
                    if started < measure_start {
                        continue;
                    }
                    outcome.last_done = outcome.last_done.max(done);
                    match result {
                        Ok(()) => outcome.samples.push(done - started),
                        Err(error) => {
                            outcome.errors += 1;
                            outcome.first_error.get_or_insert(error);
                        }
                    }
                }
                outcome
            })
        })
        .collect();
    Running { measure_start, end, workers }
}

impl Running {
    /// Waits until the warm-up is over.
    pub(crate) async fn measuring(&self) {
        tokio::time::sleep_until(self.measure_start).await;
    }

    /// Waits until no new request will be started.
    pub(crate) async fn ended(&self) {
        tokio::time::sleep_until(self.end).await;
    }

    /// Waits for the last requests and merges what the workers measured.
    pub(crate) async fn finish(self) -> LoadOutcome {
        let mut samples = Samples::default();
        let mut errors = 0;
        let mut first_error = None;
        let mut last_done = self.measure_start;
        for worker in self.workers {
            match worker.await {
                Ok(outcome) => {
                    samples.extend(&outcome.samples);
                    errors += outcome.errors;
                    if first_error.is_none() {
                        first_error = outcome.first_error;
                    }
                    last_done = last_done.max(outcome.last_done);
                }
                Err(panic) => {
                    errors += 1;
                    first_error.get_or_insert(format!("a load worker panicked: {panic}"));
                }
            }
        }
        let window = (last_done - self.measure_start).max(self.end - self.measure_start);
        let throughput = samples.len() as f64 / window.as_secs_f64();
        LoadOutcome { samples, errors, first_error, throughput }
    }
}

/// A cheap deterministic pseudo-random number for request `iteration` of `worker` (SplitMix64).
pub(crate) fn pick(worker: usize, iteration: u64, bound: usize) -> usize {
    let mut z =
        (worker as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ iteration.wrapping_add(0x2545_F491_4F6C_DD1D);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % bound.max(1) as u64) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn requests_of_the_warm_up_are_not_timed_and_failures_are_counted() {
        let spec = LoadSpec {
            concurrency: 2,
            warmup: Duration::from_millis(100),
            duration: Duration::from_millis(1000),
        };
        let run = start(spec, |_, iteration| async move {
            tokio::time::sleep(Duration::from_millis(10)).await;
            if iteration % 10 == 9 {
                Err(format!("failure {iteration}"))
            } else {
                Ok(())
            }
        });
        run.ended().await;
        let outcome = run.finish().await;
        // 1000 ms / 10 ms per request = 100 requests per worker in the window, 10% failing.
        assert_eq!(outcome.samples.len() + outcome.errors, 200);
        assert_eq!(outcome.errors, 20);
        assert!(outcome.first_error.unwrap().starts_with("failure"));
        assert!((outcome.throughput - 180.0).abs() < 1.0, "{}", outcome.throughput);
    }

    #[test]
    fn picks_stay_in_bounds_and_spread() {
        let picks: std::collections::HashSet<usize> = (0..1000).map(|i| pick(3, i, 100)).collect();
        assert!(picks.iter().all(|p| *p < 100));
        assert!(picks.len() > 90, "{}", picks.len());
    }
}
