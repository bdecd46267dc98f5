//! Workload: GetTask and ListTasks (a page of 50) as the number of stored tasks grows, and the
//! server's memory per stored task. Tasks are seeded through the API (echo SendMessage, many in
//! flight), so they are what a real client leaves behind.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{GetTaskRequest, ListTasksRequest};
use serde::Serialize;
use tokio::time::Instant;

use crate::client::{self, Binding};
use crate::load::{self, LoadSpec};
use crate::send::ECHO_TEXT;
use crate::stats::LatencySummary;

/// Requests in flight while seeding.
pub(crate) const SEED_CONCURRENCY: usize = 64;
/// The ListTasks page size measured.
pub(crate) const PAGE_SIZE: i32 = 50;

/// Throughput and latency of one read operation at one store size.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ReadFigures {
    /// Requests per second (one request in flight: the latency is not queueing).
    pub(crate) throughput_rps: f64,
    /// Latencies.
    pub(crate) latency: LatencySummary,
    /// Failed requests.
    pub(crate) errors: usize,
    /// The first failure.
    pub(crate) first_error: Option<String>,
}

/// Reads at one store size.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StorePoint {
    /// Tasks stored.
    pub(crate) tasks: usize,
    /// How long seeding up to this size took (from the previous size).
    pub(crate) seed_seconds: f64,
    /// Seeding rate (tasks created per second).
    pub(crate) seed_tasks_per_s: f64,
    /// Server RSS after seeding, when the server is a local process.
    pub(crate) rss_bytes: Option<u64>,
    /// GetTask of a random stored task.
    pub(crate) get_task: ReadFigures,
    /// ListTasks, first page of 50, no filter.
    pub(crate) list_tasks: ReadFigures,
}

/// The store workload's results.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct StoreResult {
    /// The binding used for seeding and reads.
    #[serde(serialize_with = "crate::client::serialize_name")]
    pub(crate) binding: Binding,
    /// Server RSS before seeding.
    pub(crate) rss_before_bytes: Option<u64>,
    /// One entry per size.
    pub(crate) points: Vec<StorePoint>,
    /// RSS growth per task between the two sizes closest to 10k and 100k (fixed costs cancel).
    pub(crate) rss_per_task_bytes: Option<f64>,
    /// Which sizes `rss_per_task_bytes` is measured between.
    pub(crate) rss_per_task_between: Option<(usize, usize)>,
    /// p99 at the largest size / p99 at the smallest, GetTask.
    pub(crate) get_p99_growth: f64,
    /// The same for ListTasks.
    pub(crate) list_p99_growth: f64,
}

/// Creates `count` echo tasks with [`SEED_CONCURRENCY`] requests in flight; their ids are appended
/// to `ids`.
pub(crate) async fn seed(
    client: &Arc<dyn A2aService>,
    count: usize,
    ids: &mut Vec<String>,
) -> anyhow::Result<Duration> {
    let started = Instant::now();
    let remaining = Arc::new(AtomicUsize::new(count));
    let workers: Vec<_> = (0..SEED_CONCURRENCY.min(count.max(1)))
        .map(|_| {
            let client = Arc::clone(client);
            let remaining = Arc::clone(&remaining);
            tokio::spawn(async move {
                let mut ids = Vec::new();
                while remaining
                    .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1))
                    .is_ok()
                {
                    let task = client::echo(&*client, ECHO_TEXT).await.map_err(anyhow::Error::msg)?;
                    ids.push(task.id);
                }
                anyhow::Ok(ids)
            })
        })
        .collect();
    for worker in workers {
        ids.extend(worker.await??);
    }
    Ok(started.elapsed())
}

async fn reads<F, Fut>(spec: LoadSpec, call: F) -> ReadFigures
where
    F: Fn(usize, u64) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<(), String>> + Send + 'static,
{
    let run = load::start(spec, call);
    run.ended().await;
    let mut outcome = run.finish().await;
    ReadFigures {
        throughput_rps: outcome.throughput,
        latency: outcome.samples.summary(),
        errors: outcome.errors,
        first_error: outcome.first_error,
    }
}

/// GetTask of random ids among `ids`, and ListTasks first pages, one request in flight.
pub(crate) async fn measure_reads(
    client: &Arc<dyn A2aService>,
    ids: &Arc<Vec<String>>,
    warmup: Duration,
    duration: Duration,
) -> (ReadFigures, ReadFigures) {
    let spec = LoadSpec { concurrency: 1, warmup, duration };
    let get = {
        let client = Arc::clone(client);
        let ids = Arc::clone(ids);
        reads(spec, move |worker, iteration| {
            let client = Arc::clone(&client);
            let id = ids[load::pick(worker, iteration, ids.len())].clone();
            async move {
                let task = client
                    .get_task(&CallContext::v1(), GetTaskRequest { id: id.clone(), ..Default::default() })
                    .await
                    .map_err(|e| e.to_string())?;
                if task.id == id {
                    Ok(())
                } else {
                    Err(format!("asked for task {id}, got {}", task.id))
                }
            }
        })
        .await
    };
    let list = {
        let client = Arc::clone(client);
        let expected = usize::try_from(PAGE_SIZE).unwrap_or(50).min(ids.len());
        reads(spec, move |_, _| {
            let client = Arc::clone(&client);
            async move {
                let request = ListTasksRequest { page_size: Some(PAGE_SIZE), ..Default::default() };
                let page = client.list_tasks(&CallContext::v1(), request).await.map_err(|e| e.to_string())?;
                if page.tasks.len() >= expected {
                    Ok(())
                } else {
                    Err(format!("expected a page of {expected} tasks, got {}", page.tasks.len()))
                }
            }
        })
        .await
    };
    (get, list)
}

/// Growth of the p99 from the smallest to the largest size.
pub(crate) fn p99_growth(points: &[StorePoint], pick: impl Fn(&StorePoint) -> f64) -> f64 {
    match (points.first(), points.last()) {
        (Some(first), Some(last)) if pick(first) > 0.0 => pick(last) / pick(first),
        _ => 0.0,
    }
}

/// Which sizes the RSS slope is taken between: 10k -> 100k in memory (fixed costs cancel); on a
/// SQL store 100k -> 1M, once its bounded page caches have filled (the slope is then what the
/// server keeps per task, which must be about nothing).
pub(crate) fn rss_slope_sizes(store: &str) -> (usize, usize) {
    if store == "memory" {
        (10_000, 100_000)
    } else {
        (100_000, 1_000_000)
    }
}

/// RSS growth per task between the sizes closest to `sizes` ([`rss_slope_sizes`]).
pub(crate) fn rss_per_task(points: &[StorePoint], sizes: (usize, usize)) -> Option<(f64, (usize, usize))> {
    let with_rss: Vec<(usize, u64)> =
        points.iter().filter_map(|p| p.rss_bytes.map(|r| (p.tasks, r))).collect();
    if with_rss.len() < 2 {
        return None;
    }
    let closest =
        |target: usize| *with_rss.iter().min_by_key(|(tasks, _)| tasks.abs_diff(target)).expect("not empty");
    let (mut low, mut high) = (closest(sizes.0), closest(sizes.1));
    if low.0 >= high.0 {
        (low, high) = (with_rss[0], with_rss[with_rss.len() - 1]);
    }
    let per_task = high.1.saturating_sub(low.1) as f64 / (high.0 - low.0) as f64;
    Some((per_task, (low.0, high.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(tasks: usize, rss: u64) -> StorePoint {
        let figures = ReadFigures {
            throughput_rps: 0.0,
            latency: LatencySummary::default(),
            errors: 0,
            first_error: None,
        };
        StorePoint {
            tasks,
            seed_seconds: 0.0,
            seed_tasks_per_s: 0.0,
            rss_bytes: Some(rss),
            get_task: figures.clone(),
            list_tasks: figures,
        }
    }

    #[test]
    fn memory_per_task_is_the_slope_between_10k_and_100k() {
        let points = [point(10_000, 50_000_000), point(100_000, 104_000_000), point(1_000_000, 900_000_000)];
        let (per_task, between) = rss_per_task(&points, rss_slope_sizes("memory")).unwrap();
        assert_eq!(between, (10_000, 100_000));
        assert_eq!(per_task, 600.0);
    }

    #[test]
    fn on_a_sql_store_it_is_the_slope_after_the_page_caches_fill() {
        let points = [point(10_000, 40_000_000), point(100_000, 70_000_000), point(1_000_000, 73_600_000)];
        let (per_task, between) = rss_per_task(&points, rss_slope_sizes("sqlite")).unwrap();
        assert_eq!((per_task, between), (4.0, (100_000, 1_000_000)));
    }

    #[test]
    fn small_runs_use_their_smallest_and_largest_sizes() {
        let points = [point(100, 10_000_000), point(300, 10_100_000)];
        let (per_task, between) = rss_per_task(&points, rss_slope_sizes("sqlite")).unwrap();
        assert_eq!((per_task, between), (500.0, (100, 300)));
    }
}
