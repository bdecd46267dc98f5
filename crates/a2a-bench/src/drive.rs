//! An exact number of requests against a server, from this process: `a2a-bench drive` (a driver
//! for profiling a server) and the counts of [`crate::instructions`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::client::{self, Binding, Endpoints};
use crate::{send, store, stream};

/// What each request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum What {
    /// SendMessage of the echo text (a completed task with one artifact).
    Echo,
    /// SendStreamingMessage of `stream N`, read to its end.
    Stream { events: usize },
    /// GetTask of one echo task (made before the count).
    Get,
    /// ListTasks, the first page of [`store::PAGE_SIZE`].
    List,
}

impl What {
    /// `echo`, `stream`, `get` or `list` (`events`: N for `stream`).
    pub(crate) fn parse(name: &str, events: usize) -> anyhow::Result<Self> {
        Ok(match name {
            "echo" => What::Echo,
            "stream" => What::Stream { events },
            "get" => What::Get,
            "list" => What::List,
            other => anyhow::bail!("unknown request kind `{other}` (echo, stream, get, list)"),
        })
    }
}

/// A client of `binding` at `endpoints`, checked with one echo request (whose task a `get`
/// reads). Made inside the runtime that drives it.
pub(crate) struct Driver {
    client: Arc<dyn a2a_core::A2aService>,
    probe_task: String,
}

impl Driver {
    pub(crate) async fn new(endpoints: &Endpoints, binding: Binding) -> anyhow::Result<Self> {
        let client = endpoints.client(binding)?;
        let probe = client::echo(&*client, send::ECHO_TEXT).await.map_err(anyhow::Error::msg)?;
        Ok(Driver { client, probe_task: probe.id })
    }

    /// Sends `requests` requests of kind `what`, `concurrency` at a time; the time they took.
    /// The first failure ends the run with its error.
    pub(crate) async fn run(
        &self,
        what: What,
        requests: usize,
        concurrency: usize,
    ) -> anyhow::Result<Duration> {
        let next = Arc::new(AtomicUsize::new(0));
        let started = Instant::now();
        let workers: Vec<_> = (0..concurrency.max(1))
            .map(|_| {
                let (client, next, id) = (self.client.clone(), next.clone(), self.probe_task.clone());
                tokio::spawn(async move {
                    while next.fetch_add(1, Ordering::Relaxed) < requests {
                        one(&*client, what, &id).await?;
                    }
                    anyhow::Ok(())
                })
            })
            .collect();
        for worker in workers {
            worker.await??;
        }
        Ok(started.elapsed())
    }
}

/// One request of kind `what` (`task`: the task a `get` reads).
async fn one(client: &dyn a2a_core::A2aService, what: What, task: &str) -> anyhow::Result<()> {
    let ctx = a2a_core::CallContext::v1();
    match what {
        What::Echo => {
            client::echo(client, send::ECHO_TEXT).await.map_err(anyhow::Error::msg)?;
        }
        What::Stream { events } => {
            stream::one_stream(client, events).await?;
        }
        What::Get => {
            let request = a2a_proto::v1::GetTaskRequest { id: task.to_owned(), ..Default::default() };
            client.get_task(&ctx, request).await?;
        }
        What::List => {
            let request =
                a2a_proto::v1::ListTasksRequest { page_size: Some(store::PAGE_SIZE), ..Default::default() };
            client.list_tasks(&ctx, request).await?;
        }
    }
    Ok(())
}
