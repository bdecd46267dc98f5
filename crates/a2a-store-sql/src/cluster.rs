//! Several replicas on one PostgreSQL database: [`PostgresCluster`], the
//! [`Cluster`](a2a_core::cluster::Cluster) of the replicas that share a [`PostgresStore`].
//!
//! Why PostgreSQL itself and not a broker (NATS JetStream was the other candidate): the replicas
//! already depend on this database for every task, so the bus adds no service to run, secure,
//! back up or monitor, and its failure modes are the store's; LISTEN/NOTIFY delivers a
//! notification only on commit, so a note never announces an event that is not readable. What it
//! costs: one more statement per event (the log insert and the notification, in one round trip)
//! and one listening connection per replica. A deployment that outgrows that implements the
//! trait on another engine (`docs/deployment.md`).
//!
//! - **Event log** (`a2a_events`): each event a replica stored is inserted with its `seq`,
//!   after the store's commit, in the statement that notifies the channel `a2a` with
//!   `e <seq> <task id>`. A replica with subscribers to that task reads the events after the last
//!   one it handed out. Events older than [`ClusterOptions::event_retention`] are pruned; a
//!   subscriber that needed one resynchronises from a snapshot (`a2a_core::cluster`).
//! - **Cancel**: `c <task id>` on the same channel.
//! - **Liveness**: each replica's heartbeat is a row of `a2a_replicas`, written with the
//!   database's clock (replicas' clocks never matter). `a2a_runners` names the replica that last
//!   published a running state of each running task. A heartbeat, under an advisory lock so one
//!   replica sweeps at a time, claims the running tasks whose runner's heartbeat is older than
//!   [`ClusterOptions::ttl`] (or that have no runner and have not changed for that long: a
//!   replica died between the store's commit and its first log write), making itself their
//!   runner, so each orphan is resolved by exactly one replica.
//! - **Faults**: the listening connection reconnects by itself (every second) and then tells the
//!   handler that notes may have been lost ([`Note::Lost`]): subscribers are fed from the log
//!   again. Every statement is bounded by the store's timeouts.

use std::time::Duration;

use a2a_core::cluster::{Cluster, Note, NumberedEvents, Orphan};
use a2a_core::error::error_chain;
use a2a_core::{Error, Result};
use a2a_proto::v1::{StreamResponse, TaskState};
use async_trait::async_trait;
use prost::Message as _;
use tokio::sync::{broadcast, oneshot};
use tokio::task::JoinHandle;
use tokio_postgres::AsyncMessage;

use crate::logic::scope_of_keys;
use crate::postgres::PostgresStore;
use crate::OpenError;

/// The notification channel.
const CHANNEL: &str = "a2a";
/// The advisory lock a replica sweeps for orphans under ("A2AH").
const SWEEP_LOCK: i64 = 0x4132_4148;

/// How a replica takes part in the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClusterOptions {
    /// How long a replica may go without a heartbeat before its running tasks are resolved by
    /// another one (default 10 s). Heartbeats are sent every third of it.
    pub ttl: Duration,
    /// How long logged events are kept for other replicas' subscribers (default 5 min).
    pub event_retention: Duration,
}

impl Default for ClusterOptions {
    fn default() -> Self {
        ClusterOptions { ttl: Duration::from_secs(10), event_retention: Duration::from_secs(300) }
    }
}

/// One replica's membership of the cluster on a PostgreSQL database (see the module docs).
/// Dropping it stops its listening connection.
pub struct PostgresCluster {
    id: String,
    store: PostgresStore,
    options: ClusterOptions,
    notes: broadcast::Sender<Note>,
    _stop: oneshot::Sender<()>,
}

impl std::fmt::Debug for PostgresCluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresCluster").field("id", &self.id).field("options", &self.options).finish()
    }
}

fn db_error(what: &str, error: &dyn std::error::Error) -> Error {
    Error::internal(format!("cluster: {what}: {}", error_chain(error)))
}

/// Reads a notification's payload (`e <seq> <task id>` or `c <task id>`).
fn parse_note(payload: &str) -> Option<Note> {
    let (kind, rest) = payload.split_once(' ')?;
    match kind {
        "e" => {
            let (seq, task_id) = rest.split_once(' ')?;
            Some(Note::Event { task_id: task_id.to_owned(), seq: seq.parse().ok()? })
        }
        "c" => Some(Note::Cancel { task_id: rest.to_owned() }),
        _ => None,
    }
}

/// Opens a listening connection: LISTEN is in effect when this returns. Its notifications go
/// to `notes` until the connection ends (the returned task then finishes).
async fn listen(
    config: &tokio_postgres::Config,
    notes: &broadcast::Sender<Note>,
) -> std::result::Result<(tokio_postgres::Client, JoinHandle<()>), tokio_postgres::Error> {
    let (client, mut connection) = config.connect(tokio_postgres::NoTls).await?;
    let notes = notes.clone();
    let driver = tokio::spawn(async move {
        loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(notification))) => {
                    if let Some(note) = parse_note(notification.payload()) {
                        let _ = notes.send(note);
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => {
                    tracing::warn!(error = %error_chain(&error), "cluster: the listening connection failed");
                    return;
                }
                None => return,
            }
        }
    });
    client.batch_execute(&format!("LISTEN {CHANNEL}")).await?;
    Ok((client, driver))
}

/// Keeps a listening connection open until `stop` (the cluster is dropped), reconnecting every
/// second after a failure and then announcing [`Note::Lost`].
async fn keep_listening(
    config: tokio_postgres::Config,
    notes: broadcast::Sender<Note>,
    mut client: tokio_postgres::Client,
    mut driver: JoinHandle<()>,
    mut stop: oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = &mut stop => {
                driver.abort();
                return;
            }
            _ = &mut driver => {}
        }
        drop(client);
        loop {
            tokio::select! {
                _ = &mut stop => return,
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
            match listen(&config, &notes).await {
                Ok((new_client, new_driver)) => {
                    (client, driver) = (new_client, new_driver);
                    let _ = notes.send(Note::Lost);
                    break;
                }
                Err(error) => {
                    tracing::warn!(error = %error_chain(&error), "cluster: cannot reconnect the listening connection")
                }
            }
        }
    }
}

impl PostgresStore {
    /// Joins the cluster of the replicas that share this database, as a new replica (a fresh
    /// id): opens its listening connection (notes flow from when this returns). Call it inside a
    /// Tokio runtime; give the result to the handler (`HandlerBuilder::cluster`).
    pub async fn cluster(&self, options: ClusterOptions) -> std::result::Result<PostgresCluster, OpenError> {
        let mut config = self.config.clone();
        // A dead database connection is noticed within a minute, not the OS default of hours.
        config.keepalives(true).keepalives_idle(Duration::from_secs(30));
        let (notes, _) = broadcast::channel(4096);
        let (client, driver) = listen(&config, &notes).await.map_err(|e| {
            OpenError::new(format!(
                "{}: cannot listen for the other replicas: {}",
                self.database,
                error_chain(&e)
            ))
        })?;
        let id = a2a_proto::new_id();
        // Joining is the first heartbeat: a replica is alive from the moment it can run a task.
        let join = |e: String| OpenError::new(format!("{}: cannot join the replicas: {e}", self.database));
        self.client()
            .await
            .map_err(|e| join(e.into_error().to_string()))?
            .execute("INSERT INTO a2a_replicas (id, heartbeat) VALUES ($1, now())", &[&id])
            .await
            .map_err(|e| join(error_chain(&e)))?;
        let (stop, stopped) = oneshot::channel();
        tokio::spawn(keep_listening(config, notes.clone(), client, driver, stopped));
        Ok(PostgresCluster { id, store: self.clone(), options, notes, _stop: stop })
    }
}

#[async_trait]
impl Cluster for PostgresCluster {
    fn replica_id(&self) -> &str {
        &self.id
    }

    async fn publish(&self, task_id: &str, seq: u64, event: &StreamResponse, state: TaskState) -> Result<()> {
        let client = self.store.client().await.map_err(|e| e.into_error())?;
        let seq = i64::try_from(seq).map_err(|_| Error::internal("seq out of range"))?;
        let event = event.encode_to_vec();
        let note = format!("e {seq} {task_id}");
        let logged =
            "INSERT INTO a2a_events (task_id, seq, event) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
        // One round trip: the log insert, the runner, and the notification (sent on commit).
        let (sql, params): (String, Vec<&(dyn tokio_postgres::types::ToSql + Sync)>) = if state.is_running() {
            (
                format!(
                    "WITH logged AS ({logged}), runner AS (INSERT INTO a2a_runners (task_id, replica) \
                     VALUES ($1, $5) ON CONFLICT (task_id) DO UPDATE SET replica = excluded.replica) \
                     SELECT pg_notify('{CHANNEL}', $4)"
                ),
                vec![&task_id, &seq, &event, &note, &self.id],
            )
        } else {
            (
                format!(
                    "WITH logged AS ({logged}), runner AS (DELETE FROM a2a_runners WHERE task_id = $1) \
                     SELECT pg_notify('{CHANNEL}', $4)"
                ),
                vec![&task_id, &seq, &event, &note],
            )
        };
        let statement = client.prepare_cached(&sql).await.map_err(|e| db_error("publish", &e))?;
        client.query(&statement, &params).await.map_err(|e| db_error("publish", &e))?;
        Ok(())
    }

    async fn events_after(&self, task_id: &str, after: u64, limit: usize) -> Result<NumberedEvents> {
        let client = self.store.client().await.map_err(|e| e.into_error())?;
        let statement = client
            .prepare_cached(
                "SELECT seq, event FROM a2a_events WHERE task_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            )
            .await
            .map_err(|e| db_error("read events", &e))?;
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = client
            .query(&statement, &[&task_id, &after, &limit])
            .await
            .map_err(|e| db_error("read events", &e))?;
        rows.iter()
            .map(|row| {
                let seq: i64 = row.get(0);
                let event: &[u8] = row.get(1);
                let event = StreamResponse::decode(event)
                    .map_err(|e| Error::internal(format!("cluster: a logged event does not decode: {e}")))?;
                Ok((seq as u64, event))
            })
            .collect()
    }

    async fn request_cancel(&self, task_id: &str) -> Result<()> {
        let client = self.store.client().await.map_err(|e| e.into_error())?;
        client
            .execute(&format!("SELECT pg_notify('{CHANNEL}', $1)"), &[&format!("c {task_id}")])
            .await
            .map_err(|e| db_error("cancel", &e))?;
        Ok(())
    }

    fn notes(&self) -> broadcast::Receiver<Note> {
        self.notes.subscribe()
    }

    async fn heartbeat(&self) -> Result<Vec<Orphan>> {
        let fail = |e: tokio_postgres::Error| db_error("heartbeat", &e);
        let mut client = self.store.client().await.map_err(|e| e.into_error())?;
        let transaction = client.transaction().await.map_err(fail)?;
        let ttl = self.options.ttl.as_secs_f64();
        transaction
            .execute(
                "INSERT INTO a2a_replicas (id, heartbeat) VALUES ($1, now()) \
                 ON CONFLICT (id) DO UPDATE SET heartbeat = excluded.heartbeat",
                &[&self.id],
            )
            .await
            .map_err(fail)?;
        let sweeping: bool = transaction
            .query_one("SELECT pg_try_advisory_xact_lock($1)", &[&SWEEP_LOCK])
            .await
            .map_err(fail)?
            .get(0);
        if !sweeping {
            // Another replica is sweeping right now; this heartbeat is recorded all the same.
            transaction.commit().await.map_err(fail)?;
            return Ok(Vec::new());
        }
        let rows = transaction
            .query(
                "SELECT t.id, t.tenant, t.owner FROM a2a_tasks t LEFT JOIN a2a_runners r ON r.task_id = t.id \
                 WHERE t.state IN (1, 2) AND CASE \
                   WHEN r.replica IS NULL THEN \
                     t.updated_ms < (extract(epoch FROM now()) * 1000)::bigint - ($1::float8 * 1000)::bigint \
                   ELSE NOT EXISTS (SELECT 1 FROM a2a_replicas p WHERE p.id = r.replica \
                     AND p.heartbeat > now() - make_interval(secs => $1::float8)) END",
                &[&ttl],
            )
            .await
            .map_err(fail)?;
        let mut orphans = Vec::with_capacity(rows.len());
        for row in rows {
            let task_id: String = row.get(0);
            transaction
                .execute(
                    "INSERT INTO a2a_runners (task_id, replica) VALUES ($1, $2) \
                     ON CONFLICT (task_id) DO UPDATE SET replica = excluded.replica",
                    &[&task_id, &self.id],
                )
                .await
                .map_err(fail)?;
            let (tenant, owner): (String, String) = (row.get(1), row.get(2));
            orphans.push(Orphan { scope: scope_of_keys(&tenant, &owner), task_id });
        }
        // Replicas gone for ten lifetimes are forgotten; old events are pruned.
        transaction
            .execute(
                "DELETE FROM a2a_replicas WHERE heartbeat < now() - make_interval(secs => $1::float8)",
                &[&(ttl * 10.0)],
            )
            .await
            .map_err(fail)?;
        transaction
            .execute(
                "DELETE FROM a2a_events WHERE created < now() - make_interval(secs => $1::float8)",
                &[&self.options.event_retention.as_secs_f64()],
            )
            .await
            .map_err(fail)?;
        transaction.commit().await.map_err(fail)?;
        Ok(orphans)
    }

    fn heartbeat_interval(&self) -> Duration {
        self.options.ttl / 3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_parse_as_they_are_written() {
        assert_eq!(parse_note("e 12 a b"), Some(Note::Event { task_id: "a b".into(), seq: 12 }));
        assert_eq!(parse_note("c t-1"), Some(Note::Cancel { task_id: "t-1".into() }));
        for bad in ["", "e", "e x t", "e 1", "x 1 t", "c"] {
            assert_eq!(parse_note(bad), None, "{bad:?}");
        }
    }
}
