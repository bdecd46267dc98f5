//! The store operations in SQL, written once for both engines (see [`crate::db::Db`]).
//!
//! # Layout
//!
//! - `a2a_tasks`: one row per task: its scope, its sort key (`updated_ms`, the status timestamp),
//!   its `seq`, the status and metadata as protobuf blobs, and how many history messages and
//!   artifacts it has (so an insert knows its position without a scan).
//! - `a2a_entries`: one row per history message and per artifact part, `(task_id, list, n)`:
//!   list [`HISTORY`] (-1) is the history, list `k >= 0` the parts of the task's artifact `k`.
//!   One table, not one per list (schema 3): each B-tree a write touches is a WAL frame or more
//!   at its commit, and a new task's message and parts share a page of this one
//!   (`docs/benchmarks.md`, twelfth pass).
//! - `a2a_artifacts`: one row per artifact without its parts (its "head"), keyed by
//!   `(task_id, artifact_id)`, its position `n` a column. A streamed chunk is a few entry
//!   inserts and a head update: never a rewrite of the task. A burst of chunks of one artifact
//!   (see [`apply_all`]) is its parts' inserts and one head update.
//! - `a2a_task_counts`: how many tasks each (tenant, owner, state) holds, so ListTasks' `totalSize`
//!   without a context or time filter is a sum of a few rows, whatever the number of tasks.
//!   A change goes through [`Db::add_count`]: written at once on PostgreSQL, summed over a
//!   commit group on SQLite's writer and written once per counter before the commit.
//! - `a2a_push_configs`: one row per (task, config id).
//!
//! A task's scope is stored as two keys, neither ever empty (schema 4 on SQLite, 5 on PostgreSQL):
//! the tenant as `'/' || tenant` (the default tenant `''` is `'/'`), the owner as `'-'` for a task
//! without an owner and `'=' || id` otherwise, so that "no owner" is an equality in an index and
//! never collides with a principal's id. Not empty, because rusqlite binds an empty text as a
//! dangling pointer that SQLite's key comparisons hand to `memcmp` with length 0: glibc's AVX-512
//! `memcmp` then loads from that unmapped address under a mask, a fault-suppressed load of about
//! 140 ns on the machine measured, two per index comparison. With the default tenant and no
//! authentication, that was a quarter of the server's CPU per SendMessage under load
//! (`docs/benchmarks.md`, fourteenth pass).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::sync::{LazyLock, OnceLock};

use a2a_core::lifecycle::{check_mutation, merge_artifact_head, TaskMutation};
use a2a_core::store::{
    check_all, updated_ms, Cursor, Scope, StoredPushConfig, StoredTask, TaskPage, TaskQuery, TaskView,
};
use a2a_core::{Error, ProtocolVersion};
use a2a_proto::v1::{Artifact, Message, Part, Task, TaskPushNotificationConfig, TaskState, TaskStatus};
use prost::Message as _;

use crate::db::{Db, Fail, Param, Row};

/// The tenant key of a scope's tenant (see the module docs).
pub(crate) fn tenant_key(tenant: &str) -> String {
    format!("/{tenant}")
}

/// The owner key of a scope's owner (see the module docs).
pub(crate) fn owner_key(owner: &Option<String>) -> String {
    owner.as_ref().map_or_else(|| NO_OWNER.to_owned(), |id| format!("={id}"))
}

/// The owner key of a task without an owner.
const NO_OWNER: &str = "-";

/// The scope stored as these keys.
pub(crate) fn scope_of_keys(tenant: &str, owner: &str) -> Scope {
    Scope {
        tenant: tenant.strip_prefix('/').unwrap_or(tenant).to_owned(),
        owner: owner.strip_prefix('=').map(str::to_owned),
    }
}

/// Which counter row of a (tenant, owner, state) a task's changes go to.
fn shard<D: Db>(task_id: &str) -> i64 {
    if D::COUNT_SHARDS <= 1 {
        return 0;
    }
    // FNV-1a: stable across processes and versions (several replicas must agree on nothing here,
    // but a stable spread keeps a task's increments and decrements on one row).
    let hash = task_id
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    (hash % D::COUNT_SHARDS) as i64
}

fn encode_opt<M: prost::Message>(message: Option<&M>) -> Option<Vec<u8>> {
    message.map(prost::Message::encode_to_vec)
}

fn blob_param(blob: &Option<Vec<u8>>) -> Param<'_> {
    blob.as_deref().map_or(Param::NullBlob, Param::Blob)
}

fn decode_opt<M: prost::Message + Default>(blob: Option<Vec<u8>>) -> Result<Option<M>, Fail> {
    blob.map(|b| M::decode(b.as_slice())).transpose().map_err(Fail::from)
}

pub(crate) fn decode<M: prost::Message + Default>(blob: Option<Vec<u8>>) -> Result<M, Fail> {
    Ok(decode_opt(blob)?.unwrap_or_default())
}

fn state_of(value: i64) -> TaskState {
    i32::try_from(value).ok().and_then(|v| TaskState::try_from(v).ok()).unwrap_or(TaskState::Unspecified)
}

/// An artifact without its parts: what `a2a_artifacts.head` holds.
fn head_of(artifact: &Artifact) -> Artifact {
    Artifact {
        artifact_id: artifact.artifact_id.clone(),
        name: artifact.name.clone(),
        description: artifact.description.clone(),
        parts: Vec::new(),
        metadata: artifact.metadata.clone(),
        extensions: artifact.extensions.clone(),
    }
}

/// Adds `delta` to the counter of a task's (tenant, owner, state), through [`Db::add_count`].
async fn count<D: Db>(
    db: &mut D,
    tenant_key: &str,
    owner_key: &str,
    state: TaskState,
    task_id: &str,
    delta: i64,
) -> Result<(), Fail> {
    let counter =
        Counter { tenant: tenant_key, owner: owner_key, state: state as i64, shard: shard::<D>(task_id) };
    db.add_count(&counter, delta).await
}

/// One row of `a2a_task_counts`: the keys of a (tenant, owner, state) and the shard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counter<'a> {
    pub(crate) tenant: &'a str,
    pub(crate) owner: &'a str,
    pub(crate) state: i64,
    pub(crate) shard: i64,
}

impl<'a> Counter<'a> {
    /// The statement that adds to a counter, its parameters [`params`](Self::params).
    pub(crate) const ADD: &'static str =
        "INSERT INTO a2a_task_counts (tenant, owner, state, shard, n) VALUES ($1, $2, $3, $4, $5) \
         ON CONFLICT (tenant, owner, state, shard) DO UPDATE SET n = a2a_task_counts.n + excluded.n";

    /// Adds `delta` to this counter now, in `db`'s transaction.
    pub(crate) async fn add_now<D: Db>(&self, db: &mut D, delta: i64) -> Result<(), Fail> {
        db.exec(Self::ADD, &self.params(delta)).await.map(drop)
    }

    /// The parameters of [`ADD`](Self::ADD) adding `delta` to this counter.
    pub(crate) fn params(&self, delta: i64) -> [Param<'a>; 5] {
        [
            Param::Text(self.tenant),
            Param::Text(self.owner),
            Param::Int(self.state),
            Param::Int(self.shard),
            Param::Int(delta),
        ]
    }
}

/// The `list` of `a2a_entries` that holds the history (the module docs). The statements that read
/// it write it as a literal (`h.list = -1`).
const HISTORY: i64 = -1;

async fn insert_history<D: Db>(db: &mut D, task_id: &str, n: i64, message: &Message) -> Result<(), Fail> {
    db.exec(
        "INSERT INTO a2a_entries (task_id, list, n, body) VALUES ($1, $2, $3, $4)",
        &[Param::Text(task_id), Param::Int(HISTORY), Param::Int(n), Param::Blob(&message.encode_to_vec())],
    )
    .await?;
    Ok(())
}

async fn insert_parts<D: Db>(
    db: &mut D,
    task_id: &str,
    artifact_n: i64,
    first: i64,
    parts: &[Part],
) -> Result<(), Fail> {
    for (i, part) in parts.iter().enumerate() {
        db.exec(
            "INSERT INTO a2a_entries (task_id, list, n, body) VALUES ($1, $2, $3, $4)",
            &[
                Param::Text(task_id),
                Param::Int(artifact_n),
                Param::Int(first + i as i64),
                Param::Blob(&part.encode_to_vec()),
            ],
        )
        .await?;
    }
    Ok(())
}

async fn insert_artifact<D: Db>(db: &mut D, task_id: &str, n: i64, artifact: &Artifact) -> Result<(), Fail> {
    db.exec(
        "INSERT INTO a2a_artifacts (task_id, n, artifact_id, head, parts_len) VALUES ($1, $2, $3, $4, $5)",
        &[
            Param::Text(task_id),
            Param::Int(n),
            Param::Text(&artifact.artifact_id),
            Param::Blob(&head_of(artifact).encode_to_vec()),
            Param::Int(artifact.parts.len() as i64),
        ],
    )
    .await?;
    insert_parts(db, task_id, n, 0, &artifact.parts).await
}

/// `TaskStore::create`.
pub(crate) async fn create<D: Db>(db: &mut D, scope: &Scope, task: &Task) -> Result<(), Fail> {
    insert_task(db, scope, task, 1).await
}

/// `TaskStore::apply_all`: checks the chain against the stored state before writing anything
/// (a refusal writes nothing), then applies the changes in order.
pub(crate) async fn apply_all<D: Db>(
    db: &mut D,
    task_id: &str,
    changes: &[TaskMutation<'_>],
) -> Result<u64, Fail> {
    let sql = if D::LOCKS_ROWS {
        "SELECT state, seq FROM a2a_tasks WHERE id = $1 FOR UPDATE"
    } else {
        "SELECT state, seq FROM a2a_tasks WHERE id = $1"
    };
    let row = db
        .rows(sql, &[Param::Text(task_id)])
        .await?
        .pop()
        .ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
    check_all(task_id, state_of(row.int(0)?), changes)?;
    let mut seq = row.int(1)? as u64;
    let mut rest = changes;
    while let Some(first) = rest.first() {
        let chunks = chunks_of_one_artifact(rest);
        if !chunks.is_empty() {
            let row = db
                .rows("SELECT seq, artifacts_len FROM a2a_tasks WHERE id = $1", &[Param::Text(task_id)])
                .await?
                .pop()
                .ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
            seq = append_chunks(db, task_id, row.int(0)?, row.int(1)?, &chunks).await?;
            rest = &rest[chunks.len()..];
        } else {
            seq = apply(db, task_id, *first).await?;
            rest = &rest[1..];
        }
    }
    Ok(seq)
}

/// The artifacts of the appends to one artifact that `changes` starts with (a streamed
/// artifact's chunks, as a burst carries them), none if it does not start with an append.
fn chunks_of_one_artifact<'a>(changes: &[TaskMutation<'a>]) -> Vec<&'a Artifact> {
    let mut chunks: Vec<&'a Artifact> = Vec::new();
    for change in changes {
        match change {
            TaskMutation::Artifact { artifact, append: true }
                if chunks.first().is_none_or(|first| first.artifact_id == artifact.artifact_id) =>
            {
                chunks.push(artifact);
            }
            _ => break,
        }
    }
    chunks
}

/// Appends to one artifact, in order, written as one, on a task at `seq` with `artifacts_len`
/// artifacts: the artifact's row read once, every chunk's parts inserted, the artifact's head and
/// the task's row written once. [`apply`] appends one chunk through it; a burst's run of chunks
/// (a streamed artifact's) thus costs one statement per part, not five per chunk
/// (`docs/benchmarks.md`, seventh pass).
async fn append_chunks<D: Db>(
    db: &mut D,
    task_id: &str,
    seq: i64,
    artifacts_len: i64,
    chunks: &[&Artifact],
) -> Result<u64, Fail> {
    let Some((first, _)) = chunks.split_first() else {
        return Err(Error::internal("no chunk to append").into());
    };
    let found = find_artifact(db, task_id, &first.artifact_id).await?;
    // An append to an artifact the task does not have yet creates it.
    let (n, mut head, mut parts_len, added, merged) = match found {
        Some(mut existing) => {
            let head: Artifact = decode(existing.blob(1)?)?;
            (existing.int(0)?, head, existing.int(2)?, 0, chunks)
        }
        None => {
            insert_artifact(db, task_id, artifacts_len, first).await?;
            (artifacts_len, head_of(first), first.parts.len() as i64, 1, &chunks[1..])
        }
    };
    for chunk in merged {
        merge_artifact_head(&mut head, chunk);
        insert_parts(db, task_id, n, parts_len, &chunk.parts).await?;
        parts_len += chunk.parts.len() as i64;
    }
    if !merged.is_empty() {
        update_head(db, task_id, &head, parts_len).await?;
    }
    let seq = seq + chunks.len() as i64;
    db.exec(
        "UPDATE a2a_tasks SET seq = $2, artifacts_len = $3 WHERE id = $1",
        &[Param::Text(task_id), Param::Int(seq), Param::Int(artifacts_len + added)],
    )
    .await?;
    Ok(seq as u64)
}

/// Inserts a new task at `seq` (its rows, and its count).
pub(crate) async fn insert_task<D: Db>(db: &mut D, scope: &Scope, task: &Task, seq: u64) -> Result<(), Fail> {
    let (tenant, owner) = (tenant_key(&scope.tenant), owner_key(&scope.owner));
    let state = task.state();
    let status = encode_opt(task.status.as_ref());
    let metadata = encode_opt(task.metadata.as_ref());
    let inserted = db
        .exec(
            "INSERT INTO a2a_tasks (id, tenant, owner, context_id, state, updated_ms, seq, status, metadata, \
             history_len, artifacts_len) VALUES ($1, $2, $3, $4, $5, $6, $11, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING",
            &[
                Param::Text(&task.id),
                Param::Text(&tenant),
                Param::Text(&owner),
                Param::Text(&task.context_id),
                Param::Int(state as i64),
                Param::Int(updated_ms(task)),
                blob_param(&status),
                blob_param(&metadata),
                Param::Int(task.history.len() as i64),
                Param::Int(task.artifacts.len() as i64),
                Param::Int(seq as i64),
            ],
        )
        .await?;
    if inserted == 0 {
        return Err(Error::internal(format!("task {} already exists", task.id)).into());
    }
    for (n, message) in task.history.iter().enumerate() {
        insert_history(db, &task.id, n as i64, message).await?;
    }
    for (n, artifact) in task.artifacts.iter().enumerate() {
        insert_artifact(db, &task.id, n as i64, artifact).await?;
    }
    count(db, &tenant, &owner, state, &task.id, 1).await
}

/// `TaskStore::create_and_apply`: the change is checked against the new task before anything is
/// written (a refusal writes nothing), then the task is created and the change applied.
pub(crate) async fn create_and_apply<D: Db>(
    db: &mut D,
    scope: &Scope,
    task: &Task,
    first: TaskMutation<'_>,
) -> Result<u64, Fail> {
    check_mutation(&task.id, task.state(), &first)?;
    create(db, scope, task).await?;
    apply(db, &task.id, first).await
}

/// `TaskStore::apply`: reads the task's row (locked where several writers exist), checks the
/// mutation against it, writes the change.
pub(crate) async fn apply<D: Db>(db: &mut D, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64, Fail> {
    let sql = if D::LOCKS_ROWS {
        "SELECT state, seq, status, history_len, artifacts_len, tenant, owner FROM a2a_tasks WHERE id = $1 FOR UPDATE"
    } else {
        "SELECT state, seq, status, history_len, artifacts_len, tenant, owner FROM a2a_tasks WHERE id = $1"
    };
    let mut row = db
        .rows(sql, &[Param::Text(task_id)])
        .await?
        .pop()
        .ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
    let current = state_of(row.int(0)?);
    let seq = row.int(1)?;
    let mut history_len = row.int(3)?;
    let next = check_mutation(task_id, current, &mutation)?;
    match mutation {
        TaskMutation::Status(status) => {
            let old: Option<TaskStatus> = decode_opt(row.blob(2)?)?;
            if let Some(message) = old.and_then(|s| s.message) {
                insert_history(db, task_id, history_len, &message).await?;
                history_len += 1;
            }
            db.exec(
                "UPDATE a2a_tasks SET state = $2, updated_ms = $3, seq = $4, status = $5, history_len = $6 WHERE id = $1",
                &[
                    Param::Text(task_id),
                    Param::Int(next as i64),
                    Param::Int(status.timestamp.as_ref().map_or(0, a2a_proto::Timestamp::as_millis)),
                    Param::Int(seq + 1),
                    Param::Blob(&status.encode_to_vec()),
                    Param::Int(history_len),
                ],
            )
            .await?;
            if next != current {
                let (tenant, owner) = (row.text(5)?, row.text(6)?);
                // Lower state first: concurrent writers lock counter rows in one order (no deadlock).
                let mut changes = [(current, -1), (next, 1)];
                changes.sort_by_key(|(state, _)| *state as i32);
                for (state, delta) in changes {
                    count(db, &tenant, &owner, state, task_id, delta).await?;
                }
            }
            Ok(seq as u64 + 1)
        }
        TaskMutation::Artifact { artifact, append: true } => {
            append_chunks(db, task_id, seq, row.int(4)?, &[artifact]).await
        }
        TaskMutation::Artifact { artifact, append: false } => {
            let artifacts_len = row.int(4)?;
            let mut added = 0;
            match find_artifact(db, task_id, &artifact.artifact_id).await? {
                Some(existing) => {
                    let n = existing.int(0)?;
                    db.exec(
                        "DELETE FROM a2a_entries WHERE task_id = $1 AND list = $2",
                        &[Param::Text(task_id), Param::Int(n)],
                    )
                    .await?;
                    insert_parts(db, task_id, n, 0, &artifact.parts).await?;
                    update_head(db, task_id, &head_of(artifact), artifact.parts.len() as i64).await?;
                }
                None => {
                    insert_artifact(db, task_id, artifacts_len, artifact).await?;
                    added = 1;
                }
            }
            db.exec(
                "UPDATE a2a_tasks SET seq = $2, artifacts_len = $3 WHERE id = $1",
                &[Param::Text(task_id), Param::Int(seq + 1), Param::Int(artifacts_len + added)],
            )
            .await?;
            Ok(seq as u64 + 1)
        }
        TaskMutation::History(message) => {
            let mut status: Option<TaskStatus> = decode_opt(row.blob(2)?)?;
            if let Some(archived) = status.as_mut().and_then(|s| s.message.take()) {
                insert_history(db, task_id, history_len, &archived).await?;
                history_len += 1;
            }
            insert_history(db, task_id, history_len, message).await?;
            let status = encode_opt(status.as_ref());
            db.exec(
                "UPDATE a2a_tasks SET status = $2, history_len = $3 WHERE id = $1",
                &[Param::Text(task_id), blob_param(&status), Param::Int(history_len + 1)],
            )
            .await?;
            Ok(seq as u64)
        }
    }
}

/// The row of a task's artifact: its position `n`, its `head` and its `parts_len`.
async fn find_artifact<D: Db>(db: &mut D, task_id: &str, artifact_id: &str) -> Result<Option<Row>, Fail> {
    let rows = db
        .rows(
            "SELECT n, head, parts_len FROM a2a_artifacts WHERE task_id = $1 AND artifact_id = $2",
            &[Param::Text(task_id), Param::Text(artifact_id)],
        )
        .await?;
    Ok(rows.into_iter().next())
}

/// Writes the head of the task's artifact `head.artifact_id`, with its number of parts.
async fn update_head<D: Db>(db: &mut D, task_id: &str, head: &Artifact, parts_len: i64) -> Result<(), Fail> {
    db.exec(
        "UPDATE a2a_artifacts SET head = $3, parts_len = $4 WHERE task_id = $1 AND artifact_id = $2",
        &[
            Param::Text(task_id),
            Param::Text(&head.artifact_id),
            Param::Blob(&head.encode_to_vec()),
            Param::Int(parts_len),
        ],
    )
    .await?;
    Ok(())
}

/// The task columns [`load`] reads, in its order.
const TASK_COLUMNS: &str = "id, context_id, status, metadata, seq, history_len, artifacts_len, updated_ms";

/// Builds tasks from rows of [`TASK_COLUMNS`], with the history and artifacts `view` asks for:
/// at most three more statements for any number of tasks (a ListTasks page costs the same round
/// trips as one GetTask).
async fn load<D: Db>(db: &mut D, rows: Vec<Row>, view: TaskView) -> Result<Vec<StoredTask>, Fail> {
    let mut tasks = Vec::with_capacity(rows.len());
    // Per task: its history_len and how many of its last messages to keep.
    let mut history_from = Vec::with_capacity(rows.len());
    let mut with_artifacts = false;
    for mut row in rows {
        let history_len = row.int(5)?;
        let keep = view.history_length.map_or(history_len, |n| history_len.min(n as i64));
        history_from.push((history_len - keep, keep > 0));
        with_artifacts |= view.include_artifacts && row.int(6)? > 0;
        tasks.push(StoredTask {
            task: Task {
                id: row.text(0)?,
                context_id: row.text(1)?,
                status: decode_opt(row.blob(2)?)?,
                metadata: decode_opt(row.blob(3)?)?,
                artifacts: Vec::new(),
                history: Vec::new(),
            },
            seq: row.int(4)? as u64,
        });
    }
    let index: std::collections::HashMap<String, usize> =
        tasks.iter().enumerate().map(|(i, t)| (t.task.id.clone(), i)).collect();
    let find = |id: &str| {
        index.get(id).copied().ok_or_else(|| Fail::Db(format!("a row of task {id}, which was not asked for")))
    };

    let wanted: Vec<&str> = tasks
        .iter()
        .zip(&history_from)
        .filter(|(_, (_, any))| *any)
        .map(|(t, _)| t.task.id.as_str())
        .collect();
    if !wanted.is_empty() {
        let ids = wanted.iter().map(|id| Param::Text(id));
        let (sql, params): (_, Vec<Param<'_>>) = match view.history_length {
            Some(keep) => (
                HISTORY_LAST.sql(wanted.len()),
                std::iter::once(Param::Int(keep as i64)).chain(ids).collect(),
            ),
            None => (WHOLE_HISTORY.sql(wanted.len()), ids.collect()),
        };
        let mut messages = Vec::new();
        for mut row in db.rows(&sql, &params).await? {
            let i = find(&row.text(0)?)?;
            if row.int(1)? >= history_from[i].0 {
                messages.push((i, row.blob(2)?));
            }
        }
        for (i, message) in messages {
            tasks[i].task.history.push(decode(message)?);
        }
    }

    if with_artifacts {
        let ids: Vec<Param<'_>> = index.keys().map(|id| Param::Text(id)).collect();
        let mut heads = Vec::new();
        for mut row in db.rows(&HEADS.sql(ids.len()), &ids).await? {
            heads.push((find(&row.text(0)?)?, row.blob(1)?));
        }
        let mut parts = Vec::new();
        for mut row in db.rows(&PARTS.sql(ids.len()), &ids).await? {
            parts.push((find(&row.text(0)?)?, row.int(1)?, row.blob(2)?));
        }
        for (i, head) in heads {
            tasks[i].task.artifacts.push(decode(head)?);
        }
        for (i, n, part) in parts {
            let task = &mut tasks[i].task;
            let artifact =
                usize::try_from(n).ok().and_then(|n| task.artifacts.get_mut(n)).ok_or_else(|| {
                    Fail::Db(format!("task {}: a part of artifact {n}, which is not stored", task.id))
                })?;
            artifact.parts.push(decode(part)?);
        }
    }
    Ok(tasks)
}

/// `TaskStore::get`. Run inside one read transaction (a consistent snapshot).
pub(crate) async fn get<D: Db>(
    db: &mut D,
    scope: &Scope,
    task_id: &str,
    view: TaskView,
) -> Result<Option<StoredTask>, Fail> {
    static SQL: LazyLock<String> =
        LazyLock::new(|| format!("SELECT {TASK_COLUMNS}, tenant, owner FROM a2a_tasks WHERE id = $1"));
    let Some(mut row) = db.rows(&SQL, &[Param::Text(task_id)]).await?.pop() else { return Ok(None) };
    if !scope.sees(&scope_of_keys(&row.text(8)?, &row.text(9)?)) {
        return Ok(None);
    }
    Ok(load(db, vec![row], view).await?.pop())
}

/// `TaskStore::list`. Run inside one read transaction.
///
/// One keyset-seek per owner key the caller can see (none, and its own), each in index order and
/// limited to one page, merged: a page reads at most two pages of rows, however many tasks exist.
pub(crate) async fn list<D: Db>(db: &mut D, scope: &Scope, query: &TaskQuery) -> Result<TaskPage, Fail> {
    let own = scope.owner.as_ref().map(|_| owner_key(&scope.owner));
    let mut owners = vec![owner_key(&None)];
    owners.extend(own);
    let tenant = tenant_key(&scope.tenant);
    let page_size = query.page_size as i64;
    let state = query.state.map(|s| s as i64);

    // Parameters shared by every branch: $1 tenant, then the filters, the cursor and the limit.
    let mut params: Vec<Param<'_>> = vec![Param::Text(&tenant)];
    let mut filters = String::new();
    if let Some(context) = &query.context_id {
        filters += &format!(" AND context_id = ${}", next_param(&params));
        params.push(Param::Text(context));
    }
    if let Some(state) = state {
        filters += &format!(" AND state = ${}", next_param(&params));
        params.push(Param::Int(state));
    }
    if let Some(since) = query.updated_at_or_after_ms {
        filters += &format!(" AND updated_ms >= ${}", next_param(&params));
        params.push(Param::Int(since));
    }
    let count_params = params.len();
    let mut seek = filters.clone();
    if let Some(after) = &query.after {
        let (ms, id) = (next_param(&params), next_param(&params) + 1);
        seek += &format!(" AND (updated_ms, id) < (${ms}, ${id})");
        params.push(Param::Int(after.updated_ms));
        params.push(Param::Text(&after.task_id));
    }
    // The limit is written into the text, not bound: SQLite's planner reads a bound LIMIT's value,
    // so the statement would be prepared again at every execution (its parse and plan were 42% of
    // a ListTasks page on the SQLite store, docs/benchmarks.md, tenth pass).
    let limit = page_size + 1;
    let mut branches = Vec::new();
    for owner in &owners {
        let p = next_param(&params);
        params.push(Param::Text(owner));
        branches.push((
            p,
            format!(
                "SELECT {TASK_COLUMNS} FROM a2a_tasks WHERE tenant = $1 AND owner = ${p}{seek} \
                 ORDER BY updated_ms DESC, id DESC LIMIT {limit}"
            ),
        ));
    }
    // One owner key (a caller without a principal): its branch is the page, already in order. With
    // two, the branches are merged, and the merge sorted again.
    let sql = match branches.as_slice() {
        [(_, only)] => only.clone(),
        _ => {
            let branches: Vec<String> =
                branches.iter().map(|(p, branch)| format!("SELECT * FROM ({branch}) AS b{p}")).collect();
            format!("{} ORDER BY updated_ms DESC, id DESC LIMIT {limit}", branches.join(" UNION ALL "))
        }
    };
    let mut rows = db.rows(&sql, &params).await?;
    let more = rows.len() as i64 > page_size;
    rows.truncate(query.page_size);

    let last = match rows.last() {
        Some(row) => Some((row.int(7)?, row_id(row)?)),
        None => None,
    };
    let tasks: Vec<Task> = load(db, rows, query.view).await?.into_iter().map(|stored| stored.task).collect();
    let last = last.map(|(updated_ms, task_id)| Cursor { updated_ms, task_id });

    // totalSize: from the counters when only the state filters, else a count over the index.
    let owner_list: Vec<Param<'_>> = owners.iter().map(|o| Param::Text(o)).collect();
    let total = if query.context_id.is_none() && query.updated_at_or_after_ms.is_none() {
        let mut p = vec![Param::Text(&tenant)];
        let mut sql =
            String::from("SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM a2a_task_counts WHERE tenant = $1");
        if let Some(state) = state {
            sql += " AND state = $2";
            p.push(Param::Int(state));
        }
        sql += &format!(" AND owner IN ({})", placeholders(p.len() + 1, owner_list.len()));
        p.extend(owner_list);
        db.rows(&sql, &p).await?
    } else {
        let mut p = params[..count_params].to_vec();
        let sql = format!(
            "SELECT COUNT(*) FROM a2a_tasks WHERE tenant = $1{filters} AND owner IN ({})",
            placeholders(p.len() + 1, owner_list.len())
        );
        p.extend(owner_list);
        db.rows(&sql, &p).await?
    };
    let total_size = total.first().map(|row| row.int(0)).transpose()?.unwrap_or(0);
    Ok(TaskPage {
        tasks,
        next: if more { last } else { None },
        total_size: usize::try_from(total_size).unwrap_or(0),
    })
}

/// The number the next parameter pushed onto `params` gets.
fn next_param(params: &[Param<'_>]) -> usize {
    params.len() + 1
}

/// The id (column 0) of a row of [`TASK_COLUMNS`], without taking it.
fn row_id(row: &Row) -> Result<String, Fail> {
    match row.0.first() {
        Some(crate::db::Cell::Text(id)) => Ok(id.clone()),
        other => Err(Fail::Db(format!("the database returned {other:?} as a task id"))),
    }
}

fn placeholders(first: usize, n: usize) -> String {
    let mut list = String::with_capacity(n * 4);
    for i in first..first + n {
        if i > first {
            list.push_str(", ");
        }
        let _ = write!(list, "${i}");
    }
    list
}

/// A statement [`load`] runs over a list of task ids: `head`, the ids' placeholders from
/// `$first`, `tail`. Its text depends on the list's length; for one id (every GetTask, every task
/// a write reads back) it is built once per process rather than formatted at every call (about
/// 3% of a GetTask on the SQLite store).
struct OverIds {
    head: &'static str,
    first: usize,
    tail: &'static str,
    one: OnceLock<String>,
}

impl OverIds {
    const fn new(head: &'static str, first: usize, tail: &'static str) -> Self {
        OverIds { head, first, tail, one: OnceLock::new() }
    }

    /// The text for `ids` ids.
    fn sql(&'static self, ids: usize) -> Cow<'static, str> {
        let build = |ids| format!("{}{}{}", self.head, placeholders(self.first, ids), self.tail);
        if ids == 1 {
            Cow::Borrowed(self.one.get_or_init(|| build(1)))
        } else {
            Cow::Owned(build(ids))
        }
    }
}

/// The start of both history statements (list -1 is [`HISTORY`]).
const HISTORY_HEAD: &str =
    "SELECT h.task_id, h.n, h.body FROM a2a_entries h JOIN a2a_tasks t ON t.id = h.task_id \
                            WHERE h.list = -1 AND h.task_id IN (";

/// The whole history of the tasks.
static WHOLE_HISTORY: OverIds = OverIds::new(HISTORY_HEAD, 1, ") ORDER BY h.task_id, h.n");

/// The last `$1` messages of each task's history: the index seeks past the messages the view
/// drops rather than reading them.
static HISTORY_LAST: OverIds =
    OverIds::new(HISTORY_HEAD, 2, ") AND h.n >= t.history_len - $1 ORDER BY h.task_id, h.n");

/// The heads of the tasks' artifacts, in each task's order (`n`, sorted: the key is the id).
static HEADS: OverIds =
    OverIds::new("SELECT task_id, head FROM a2a_artifacts WHERE task_id IN (", 1, ") ORDER BY task_id, n");

/// The parts of the tasks' artifacts (every list but the history).
static PARTS: OverIds = OverIds::new(
    "SELECT task_id, list, body FROM a2a_entries WHERE list >= 0 AND task_id IN (",
    1,
    ") ORDER BY task_id, list, n",
);

/// `TaskStore::running`.
pub(crate) async fn running<D: Db>(db: &mut D) -> Result<Vec<(Scope, String)>, Fail> {
    let mut out = Vec::new();
    // The literal states match the partial index `a2a_tasks_running` (SUBMITTED = 1, WORKING = 2).
    for mut row in db.rows("SELECT tenant, owner, id FROM a2a_tasks WHERE state IN (1, 2)", &[]).await? {
        out.push((scope_of_keys(&row.text(0)?, &row.text(1)?), row.text(2)?));
    }
    Ok(out)
}

/// A round trip to the database that reads nothing of ours: the readiness ping.
pub(crate) async fn ping<D: Db>(db: &mut D) -> Result<(), Fail> {
    db.rows("SELECT 1", &[]).await.map(drop)
}

/// The protocol version a push config was stored with (written as `ProtocolVersion::as_str`),
/// read back by the same parser as the `A2A-Version` header.
pub(crate) fn version_of(name: &str) -> Result<ProtocolVersion, Fail> {
    ProtocolVersion::resolve(Some(name), &[ProtocolVersion::V0_3, ProtocolVersion::V1_0]).map_err(|_| {
        Fail::Db(format!(
            "a stored push config has protocol version {name:?}, which this build does not know"
        ))
    })
}

/// `PushConfigStore::put`. A new config goes after the task's others; a replaced one keeps its place.
pub(crate) async fn put_push<D: Db>(
    db: &mut D,
    config: &TaskPushNotificationConfig,
    version: ProtocolVersion,
) -> Result<(), Fail> {
    db.exec(
        "INSERT INTO a2a_push_configs (task_id, config_id, position, version, config) VALUES ($1, $2, \
         (SELECT COALESCE(MAX(position), 0) + 1 FROM a2a_push_configs WHERE task_id = $1), $3, $4) \
         ON CONFLICT (task_id, config_id) DO UPDATE SET version = excluded.version, config = excluded.config",
        &[
            Param::Text(&config.task_id),
            Param::Text(&config.id),
            Param::Text(version.as_str()),
            Param::Blob(&config.encode_to_vec()),
        ],
    )
    .await?;
    Ok(())
}

fn push_config(mut row: Row) -> Result<StoredPushConfig, Fail> {
    let version = version_of(&row.text(0)?)?;
    Ok(StoredPushConfig { config: decode(row.blob(1)?)?, version })
}

/// `PushConfigStore::get`.
pub(crate) async fn get_push<D: Db>(
    db: &mut D,
    task_id: &str,
    config_id: &str,
) -> Result<Option<StoredPushConfig>, Fail> {
    db.rows(
        "SELECT version, config FROM a2a_push_configs WHERE task_id = $1 AND config_id = $2",
        &[Param::Text(task_id), Param::Text(config_id)],
    )
    .await?
    .pop()
    .map(push_config)
    .transpose()
}

/// `PushConfigStore::list`.
pub(crate) async fn list_push<D: Db>(db: &mut D, task_id: &str) -> Result<Vec<StoredPushConfig>, Fail> {
    db.rows(
        "SELECT version, config FROM a2a_push_configs WHERE task_id = $1 ORDER BY position, config_id",
        &[Param::Text(task_id)],
    )
    .await?
    .into_iter()
    .map(push_config)
    .collect()
}

/// `PushConfigStore::delete`.
pub(crate) async fn delete_push<D: Db>(db: &mut D, task_id: &str, config_id: &str) -> Result<bool, Fail> {
    let deleted = db
        .exec(
            "DELETE FROM a2a_push_configs WHERE task_id = $1 AND config_id = $2",
            &[Param::Text(task_id), Param::Text(config_id)],
        )
        .await?;
    Ok(deleted > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_states_match_the_literals_in_the_sql() {
        assert_eq!((TaskState::Submitted as i32, TaskState::Working as i32), (1, 2));
    }

    #[test]
    fn the_history_list_matches_the_literal_in_the_sql() {
        assert_eq!(HISTORY, -1);
        assert!(HISTORY_HEAD.contains("h.list = -1"));
    }

    #[test]
    fn scope_keys_are_never_empty_and_read_back_as_written() {
        let owners = [None, Some(String::new()), Some("-".into()), Some("alice".into())];
        let keys: Vec<String> = owners.iter().map(owner_key).collect();
        assert_eq!(keys, ["-", "=", "=-", "=alice"], "no owner never collides with a principal's id");
        for tenant in ["", "/", "acme"] {
            assert!(!tenant_key(tenant).is_empty());
            for owner in &owners {
                let scope = scope_of_keys(&tenant_key(tenant), &owner_key(owner));
                assert_eq!((scope.tenant.as_str(), &scope.owner), (tenant, owner));
            }
        }
    }
}
