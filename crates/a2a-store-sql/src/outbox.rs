//! The push outbox in SQL ([`a2a_core::push::outbox`]), one copy for both engines: a row per
//! notification in `a2a_push_outbox`, inserted in the transaction of the task change that
//! caused it ([`enqueue_with_task`]), claimed with a lease, removed once delivered or given up.
//!
//! The body is stored as the bytes sent (kind 1: a 1.0 event, ProtoJSON) or as the task a 0.3
//! webhook receives (kind 2: the task, protobuf; the transport writes the 0.3 JSON).
//!
//! Claims: only the oldest row of each (task, config) that is due and not leased can be
//! claimed; on PostgreSQL the candidates are locked with `FOR UPDATE SKIP LOCKED`, so replicas
//! claiming at once never take the same row, and a row's successor is not a candidate while the
//! row exists. Ids order the rows of one task: they come from a sequence (`AUTOINCREMENT` on
//! SQLite, never reused), and the task's writers are serialized (SQLite's single writer; the
//! task row's lock on PostgreSQL).
//!
//! A claim reads only heads: a row inserted behind another of its (task, config) waits at
//! `next_ms = WAITING` (never due), and removing a head makes the next row due. So a webhook that
//! stalls with a backlog of thousands costs each claim one row, not thousands. On PostgreSQL,
//! removing a head and inserting behind it are serialized by the task row's lock (the writers of
//! a task hold it), so a row never waits behind a head that is already gone.

use std::sync::Arc;
use std::time::Duration;

use a2a_core::push::{Claimed, Notification, PushPayload};
use a2a_core::store::{fill_task_payloads, Scope, StoredPushConfig, TaskView};
use a2a_core::trace::TraceContext;
use a2a_core::Error;
use a2a_proto::v1::Task;
use bytes::Bytes;
use prost::Message as _;

use crate::db::{Db, Fail, Param, Row};
use crate::logic;

/// `kind` of a 1.0 event body.
const EVENT: i64 = 1;
/// `kind` of a 0.3 task body.
const TASK: i64 = 2;
/// `next_ms` of a row waiting behind the head of its (task, config).
const WAITING: i64 = i64::MAX;

/// Inserts `notifications`, giving those without a payload the task `task_id` as the
/// transaction has it now (the task after the change being written).
pub(crate) async fn enqueue_with_task<D: Db>(
    db: &mut D,
    scope: &Scope,
    task_id: &str,
    notifications: &[Notification],
) -> Result<(), Fail> {
    if notifications.is_empty() {
        return Ok(());
    }
    if notifications.iter().any(|n| n.payload.is_none()) {
        let task = logic::get(db, scope, task_id, TaskView::FULL)
            .await?
            .ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?
            .task;
        let mut filled = notifications.to_vec();
        fill_task_payloads(&mut filled, &task);
        return enqueue(db, &filled).await;
    }
    enqueue(db, notifications).await
}

/// Inserts notifications that all have a payload, each due at once.
pub(crate) async fn enqueue<D: Db>(db: &mut D, notifications: &[Notification]) -> Result<(), Fail> {
    for notification in notifications {
        let (kind, body) = match &notification.payload {
            Some(PushPayload::StreamResponse(bytes)) => (EVENT, bytes.to_vec()),
            Some(PushPayload::TaskV0_3(task)) => (TASK, task.encode_to_vec()),
            None => {
                return Err(Fail::A2a(Error::internal("a notification without a body reached the outbox")))
            }
        };
        let config = &notification.config;
        let trace = notification.trace.as_ref().map(TraceContext::to_line).unwrap_or_default();
        db.exec(
            "INSERT INTO a2a_push_outbox (task_id, config_id, version, config, kind, body, trace, next_ms) \
             VALUES ($1, $2, $3, $4, $5, $6, $8, CASE WHEN EXISTS (SELECT 1 FROM a2a_push_outbox \
             WHERE task_id = $1 AND config_id = $2) THEN CAST($7 AS BIGINT) ELSE 0 END)",
            &[
                Param::Text(&notification.task_id),
                Param::Text(&config.config.id),
                Param::Text(config.version.as_str()),
                Param::Blob(&config.config.encode_to_vec()),
                Param::Int(kind),
                Param::Blob(&body),
                Param::Int(WAITING),
                Param::Text(&trace),
            ],
        )
        .await?;
    }
    Ok(())
}

fn claimed(id: u64, mut row: Row) -> Result<Claimed, Fail> {
    let task_id = row.text(0)?;
    let version = logic::version_of(&row.text(1)?)?;
    let config = logic::decode(row.blob(2)?)?;
    let body = row.blob(4)?.unwrap_or_default();
    let payload = match row.int(3)? {
        EVENT => PushPayload::StreamResponse(Bytes::from(body)),
        TASK => PushPayload::TaskV0_3(Arc::new(Task::decode(&body[..])?)),
        other => return Err(Fail::Db(format!("a stored notification has an unknown kind {other}"))),
    };
    let first = row.int(6)?;
    Ok(Claimed {
        id,
        task_id,
        config: StoredPushConfig { config, version },
        payload,
        attempts: u32::try_from(row.int(5)?).unwrap_or(u32::MAX),
        first_attempt_ms: (first != 0).then_some(first),
        trace: TraceContext::from_line(&row.text(7)?),
    })
}

/// `PushOutbox::claim`.
pub(crate) async fn claim<D: Db>(
    db: &mut D,
    owner: &str,
    now_ms: i64,
    lease: Duration,
    limit: usize,
) -> Result<Vec<Claimed>, Fail> {
    let lock = if D::LOCKS_ROWS { " FOR UPDATE SKIP LOCKED" } else { "" };
    // The limit in the text, not bound: SQLite prepares a statement with a bound LIMIT again at
    // every execution (`logic::list`).
    let sql = format!(
        "SELECT id FROM a2a_push_outbox o WHERE next_ms <= $1 AND lease_ms <= $1 AND NOT EXISTS \
         (SELECT 1 FROM a2a_push_outbox p WHERE p.task_id = o.task_id AND p.config_id = o.config_id \
         AND p.id < o.id) ORDER BY next_ms, id LIMIT {}{lock}",
        i64::try_from(limit).unwrap_or(i64::MAX)
    );
    let ids = db.rows(&sql, &[Param::Int(now_ms)]).await?;
    let until = now_ms.saturating_add(lease.as_millis().try_into().unwrap_or(i64::MAX));
    let mut out = Vec::with_capacity(ids.len());
    for row in ids {
        let id = row.int(0)?;
        let mut rows = db
            .rows(
                "UPDATE a2a_push_outbox SET lease_owner = $2, lease_ms = $3 WHERE id = $1 RETURNING \
                 task_id, version, config, kind, body, attempts, first_attempt_ms, trace",
                &[Param::Int(id), Param::Text(owner), Param::Int(until)],
            )
            .await?;
        if let Some(row) = rows.pop() {
            out.push(claimed(id as u64, row)?);
        }
    }
    Ok(out)
}

/// Locks the task row of the notifications being changed (PostgreSQL), serializing with the
/// task's writers, which insert behind the head.
async fn lock_task<D: Db>(db: &mut D, task_id: &str) -> Result<(), Fail> {
    if D::LOCKS_ROWS {
        db.rows("SELECT 1 FROM a2a_tasks WHERE id = $1 FOR UPDATE", &[Param::Text(task_id)]).await?;
    }
    Ok(())
}

/// `PushOutbox::remove`: the row goes, and the next one of its (task, config) becomes due.
pub(crate) async fn remove<D: Db>(db: &mut D, id: u64) -> Result<(), Fail> {
    let id = id as i64;
    let Some(mut row) = db
        .rows("SELECT task_id, config_id FROM a2a_push_outbox WHERE id = $1", &[Param::Int(id)])
        .await?
        .pop()
    else {
        return Ok(());
    };
    let (task_id, config_id) = (row.text(0)?, row.text(1)?);
    lock_task(db, &task_id).await?;
    db.exec("DELETE FROM a2a_push_outbox WHERE id = $1", &[Param::Int(id)]).await?;
    db.exec(
        "UPDATE a2a_push_outbox SET next_ms = 0 WHERE next_ms = $3 AND id = (SELECT MIN(id) FROM \
         a2a_push_outbox WHERE task_id = $1 AND config_id = $2)",
        &[Param::Text(&task_id), Param::Text(&config_id), Param::Int(WAITING)],
    )
    .await?;
    Ok(())
}

/// `PushOutbox::retry_at`.
pub(crate) async fn retry_at<D: Db>(
    db: &mut D,
    id: u64,
    attempts: u32,
    first_attempt_ms: i64,
    next_ms: i64,
) -> Result<(), Fail> {
    db.exec(
        "UPDATE a2a_push_outbox SET attempts = $2, first_attempt_ms = $3, next_ms = $4, lease_owner = '', \
         lease_ms = 0 WHERE id = $1",
        &[
            Param::Int(id as i64),
            Param::Int(attempts.into()),
            Param::Int(first_attempt_ms),
            Param::Int(next_ms),
        ],
    )
    .await
    .map(drop)
}

/// `PushOutbox::discard`.
pub(crate) async fn discard<D: Db>(db: &mut D, task_id: &str, config_id: &str) -> Result<u64, Fail> {
    lock_task(db, task_id).await?;
    db.exec(
        "DELETE FROM a2a_push_outbox WHERE task_id = $1 AND config_id = $2",
        &[Param::Text(task_id), Param::Text(config_id)],
    )
    .await
}

/// `PushOutbox::release`.
pub(crate) async fn release<D: Db>(db: &mut D, owner: Option<&str>) -> Result<(), Fail> {
    match owner {
        Some(owner) => {
            db.exec(
                "UPDATE a2a_push_outbox SET lease_owner = '', lease_ms = 0 WHERE lease_owner = $1",
                &[Param::Text(owner)],
            )
            .await?
        }
        None => {
            db.exec("UPDATE a2a_push_outbox SET lease_owner = '', lease_ms = 0 WHERE lease_ms <> 0", &[])
                .await?
        }
    };
    Ok(())
}

/// `PushOutbox::pending`.
pub(crate) async fn pending<D: Db>(db: &mut D) -> Result<u64, Fail> {
    let row = db.rows("SELECT COUNT(*) FROM a2a_push_outbox", &[]).await?.pop();
    Ok(row.map_or(Ok(0), |row| row.int(0))? as u64)
}
