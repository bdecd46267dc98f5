//! The PostgreSQL store: a pool of connections, one transaction per operation.
//!
//! - **Concurrent writers.** Changing a task locks its row (`SELECT ... FOR UPDATE`) for the
//!   check-and-write of [`TaskStore::apply`], so writers on any number of replicas never clobber
//!   each other; task counters are spread over several rows so that creates do not queue on one.
//! - **Reads** run in a read-only `REPEATABLE READ` transaction: a task and its `seq` come from
//!   one snapshot.
//! - **Faults.** Waiting for a connection, connecting and every statement are bounded
//!   ([`POOL_TIMEOUT`], [`CONNECT_TIMEOUT`], [`STATEMENT_TIMEOUT`]): a database that is down or
//!   stuck fails requests with an internal error within those bounds, and the pool reconnects by
//!   itself when it is back.
//! - **Schema.** Migrations run at connect under an advisory lock (replicas starting together
//!   migrate once); a database whose schema is newer than this build, or that holds an
//!   `a2a_tasks` table that is not ours, is refused.

use std::sync::Arc;
use std::time::Duration;

use a2a_core::error::error_chain;
use a2a_core::push::{Claimed, Notification, PushOutbox};
use a2a_core::store::{
    Burst, PushConfigStore, Scope, StoredPushConfig, StoredTask, TaskMutation, TaskPage, TaskQuery,
    TaskStore, TaskView,
};
use a2a_core::{ProtocolVersion, Result};
use a2a_proto::v1::{Task, TaskPushNotificationConfig};
use async_trait::async_trait;
use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime, Transaction};
use tokio_postgres::types::{IsNull, ToSql, Type};
use tokio_postgres::IsolationLevel;

use crate::db::{Cell, Db, Fail, Param, Row};
use crate::{logic, outbox, OpenError};

/// The schema, one script per version (`a2a_schema.version` is how many have run).
const MIGRATIONS: &[&str] = &[
    include_str!("postgres_v1.sql"),
    include_str!("postgres_v2.sql"),
    include_str!("postgres_v3.sql"),
    include_str!("postgres_v4.sql"),
    include_str!("postgres_v5.sql"),
];

/// The advisory lock replicas take to migrate one at a time ("A2As").
const MIGRATION_LOCK: i64 = 0x4132_4173;

/// How long an operation waits for a free connection of the pool.
pub const POOL_TIMEOUT: Duration = Duration::from_secs(5);
/// How long opening a connection may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one statement may run (PostgreSQL's `statement_timeout`, unless the URL sets it).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections per replica.
const POOL_SIZE: usize = 16;

/// A [`TaskStore`] and [`PushConfigStore`] in a PostgreSQL database (see the module docs).
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    pub(crate) database: String,
    pub(crate) config: tokio_postgres::Config,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore").field("database", &self.database).finish_non_exhaustive()
    }
}

fn pg_error(error: tokio_postgres::Error) -> Fail {
    Fail::Db(format!("PostgreSQL: {}", error_chain(&error)))
}

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match *self {
            Param::Int(v) => v.to_sql_checked(ty, out),
            Param::Text(s) => s.to_sql_checked(ty, out),
            Param::Blob(b) => b.to_sql_checked(ty, out),
            Param::NullBlob => Ok(IsNull::Yes),
        }
    }

    fn accepts(_: &Type) -> bool {
        // Each variant checks its own type in `to_sql`.
        true
    }

    tokio_postgres::types::to_sql_checked!();
}

/// A transaction as [`Db`].
struct PgConn<'a, 't>(&'a Transaction<'t>);

impl Db for PgConn<'_, '_> {
    const LOCKS_ROWS: bool = true;
    const COUNT_SHARDS: u64 = 16;

    async fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Fail> {
        let statement = self.0.prepare_cached(sql).await.map_err(pg_error)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        let rows = self.0.query(&statement, &params).await.map_err(pg_error)?;
        let mut out = Vec::with_capacity(rows.len());
        for row in rows {
            let mut cells = Vec::with_capacity(row.len());
            for (i, column) in row.columns().iter().enumerate() {
                let cell = match *column.type_() {
                    Type::INT8 => row.try_get::<_, Option<i64>>(i).map(|v| v.map(Cell::Int)),
                    Type::INT4 => row.try_get::<_, Option<i32>>(i).map(|v| v.map(|v| Cell::Int(v.into()))),
                    Type::BYTEA => row.try_get::<_, Option<Vec<u8>>>(i).map(|v| v.map(Cell::Blob)),
                    _ => row.try_get::<_, Option<String>>(i).map(|v| v.map(Cell::Text)),
                };
                cells.push(cell.map_err(pg_error)?.unwrap_or(Cell::Null));
            }
            out.push(Row(cells));
        }
        Ok(out)
    }

    async fn exec(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail> {
        let statement = self.0.prepare_cached(sql).await.map_err(pg_error)?;
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|p| p as &(dyn ToSql + Sync)).collect();
        self.0.execute(&statement, &params).await.map_err(pg_error)
    }
}

/// Runs `$body` (a future using `$db`, a [`PgConn`]) in a transaction of its own, committed if
/// the body succeeds. `$read` selects a read-only snapshot.
macro_rules! in_transaction {
    ($store:expr, $read:expr, |$db:ident| $body:expr) => {{
        async {
            let mut client = $store.client().await?;
            let transaction = begin(&mut client, $read).await?;
            let value = {
                let mut $db = PgConn(&transaction);
                $body.await?
            };
            transaction.commit().await.map_err(pg_error)?;
            Ok::<_, Fail>(value)
        }
        .await
        .map_err(Fail::into_error)
    }};
}

async fn begin(client: &mut Object, read: bool) -> Result<Transaction<'_>, Fail> {
    let builder = client.build_transaction();
    let builder =
        if read { builder.isolation_level(IsolationLevel::RepeatableRead).read_only(true) } else { builder };
    builder.start().await.map_err(pg_error)
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user@host:port/db?...`), and brings its
    /// schema up to date. The database must exist.
    pub async fn connect(url: &str) -> std::result::Result<Self, OpenError> {
        let mut config: tokio_postgres::Config =
            url.parse().map_err(|e| OpenError::new(format!("not a PostgreSQL URL: {e}")))?;
        let database = format!(
            "PostgreSQL database {:?} on {:?}",
            config.get_dbname().unwrap_or("(default)"),
            config.get_hosts()
        );
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        let options = config.get_options().unwrap_or_default().to_owned();
        if !options.contains("statement_timeout") {
            config
                .options(format!("{options} -c statement_timeout={}", STATEMENT_TIMEOUT.as_millis()).trim());
        }
        let manager = Manager::from_config(
            config.clone(),
            tokio_postgres::NoTls,
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .wait_timeout(Some(POOL_TIMEOUT))
            .create_timeout(Some(CONNECT_TIMEOUT))
            .recycle_timeout(Some(CONNECT_TIMEOUT))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|e| OpenError::new(format!("{database}: cannot build a connection pool: {e}")))?;
        let store = PostgresStore { pool, database, config };
        store.migrate().await.map_err(|e| OpenError::new(format!("{}: {e}", store.database)))?;
        Ok(store)
    }

    /// Which database this is, for logs: its name and hosts (never the password).
    pub fn database(&self) -> &str {
        &self.database
    }

    pub(crate) async fn client(&self) -> Result<Object, Fail> {
        self.pool
            .get()
            .await
            .map_err(|e| Fail::Db(format!("{}: no connection: {}", self.database, error_chain(&e))))
    }

    async fn migrate(&self) -> std::result::Result<(), String> {
        let mut client = self.client().await.map_err(|e| e.into_error().to_string())?;
        let transaction = client.transaction().await.map_err(|e| error_chain(&e))?;
        let step = |e: tokio_postgres::Error| format!("cannot migrate its schema: {}", error_chain(&e));
        transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK]).await.map_err(step)?;
        transaction
            // Quietly: PostgreSQL's NOTICE that the table exists would be logged at every start.
            .batch_execute(
                "SET LOCAL client_min_messages = warning; \
                 CREATE TABLE IF NOT EXISTS a2a_schema (version BIGINT NOT NULL)",
            )
            .await
            .map_err(step)?;
        let version =
            match transaction.query_opt("SELECT version FROM a2a_schema", &[]).await.map_err(step)? {
                Some(row) => row.get::<_, i64>(0),
                None => {
                    let foreign: bool = transaction
                        .query_one("SELECT to_regclass('a2a_tasks') IS NOT NULL", &[])
                        .await
                        .map_err(step)?
                        .get(0);
                    if foreign {
                        return Err(
                            "holds an a2a_tasks table this store did not create (no schema version); \
                                refusing to touch it: use another database"
                                .into(),
                        );
                    }
                    transaction
                        .execute("INSERT INTO a2a_schema (version) VALUES (0)", &[])
                        .await
                        .map_err(step)?;
                    0
                }
            };
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(format!(
                "written by a newer version of this server (schema {version}; this build knows up to {known}); \
                 refusing to touch it: run the newer version"
            ));
        }
        for (index, script) in MIGRATIONS.iter().enumerate().skip(usize::try_from(version).unwrap_or(0)) {
            transaction.batch_execute(script).await.map_err(step)?;
            transaction
                .execute("UPDATE a2a_schema SET version = $1", &[&(index as i64 + 1)])
                .await
                .map_err(step)?;
        }
        transaction.commit().await.map_err(step)
    }
}

#[async_trait]
impl TaskStore for PostgresStore {
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
        in_transaction!(self, false, |db| logic::create(&mut db, scope, task))
    }

    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
        in_transaction!(self, false, |db| logic::apply(&mut db, task_id, mutation))
    }

    async fn create_and_apply(&self, scope: &Scope, task: &Task, first: TaskMutation<'_>) -> Result<u64> {
        in_transaction!(self, false, |db| logic::create_and_apply(&mut db, scope, task, first))
    }

    async fn create_with_burst(&self, scope: &Scope, task: &Task, burst: Burst<'_>) -> Result<u64> {
        let (folded, seq, notify) = burst.fold_new(task)?;
        in_transaction!(self, false, |db| async {
            logic::insert_task(&mut db, scope, &folded, seq).await?;
            outbox::enqueue(&mut db, &notify).await?;
            Ok::<_, Fail>(seq)
        })
    }

    async fn apply_burst(&self, scope: &Scope, task_id: &str, burst: Burst<'_>) -> Result<u64> {
        in_transaction!(self, false, |db| async {
            let seq = logic::apply_all(&mut db, task_id, burst.changes).await?;
            outbox::enqueue_with_task(&mut db, scope, task_id, burst.notify).await?;
            Ok::<_, Fail>(seq)
        })
    }

    fn outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        Some(Arc::new(self.clone()))
    }

    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>> {
        in_transaction!(self, true, |db| logic::get(&mut db, scope, task_id, view))
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
        in_transaction!(self, true, |db| logic::list(&mut db, scope, query))
    }

    async fn running(&self) -> Result<Vec<(Scope, String)>> {
        in_transaction!(self, true, |db| logic::running(&mut db))
    }

    /// One `SELECT 1` on a pooled connection, outside any transaction: bounded by the pool's
    /// timeouts ([`POOL_TIMEOUT`], [`CONNECT_TIMEOUT`]) and the statement timeout.
    async fn ping(&self) -> Result<()> {
        let client = self.client().await.map_err(Fail::into_error)?;
        client.batch_execute("SELECT 1").await.map_err(|e| pg_error(e).into_error())
    }
}

#[async_trait]
impl PushConfigStore for PostgresStore {
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig> {
        in_transaction!(self, false, |db| logic::put_push(&mut db, &config, version))?;
        Ok(config)
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<StoredPushConfig>> {
        in_transaction!(self, true, |db| logic::get_push(&mut db, task_id, config_id))
    }

    async fn list(&self, task_id: &str) -> Result<Vec<StoredPushConfig>> {
        in_transaction!(self, true, |db| logic::list_push(&mut db, task_id))
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        in_transaction!(self, false, |db| logic::delete_push(&mut db, task_id, config_id))
    }
}

/// The push outbox, in the same database as the tasks (see `outbox.rs`).
#[async_trait]
impl PushOutbox for PostgresStore {
    async fn enqueue(&self, notifications: Vec<Notification>) -> Result<()> {
        in_transaction!(self, false, |db| outbox::enqueue(&mut db, &notifications))
    }

    async fn claim(&self, owner: &str, now_ms: i64, lease: Duration, limit: usize) -> Result<Vec<Claimed>> {
        in_transaction!(self, false, |db| outbox::claim(&mut db, owner, now_ms, lease, limit))
    }

    async fn remove(&self, id: u64) -> Result<()> {
        in_transaction!(self, false, |db| outbox::remove(&mut db, id))
    }

    async fn retry_at(&self, id: u64, attempts: u32, first_attempt_ms: i64, next_ms: i64) -> Result<()> {
        in_transaction!(self, false, |db| outbox::retry_at(&mut db, id, attempts, first_attempt_ms, next_ms))
    }

    async fn discard(&self, task_id: &str, config_id: &str) -> Result<u64> {
        in_transaction!(self, false, |db| outbox::discard(&mut db, task_id, config_id))
    }

    async fn release(&self, owner: Option<&str>) -> Result<()> {
        in_transaction!(self, false, |db| outbox::release(&mut db, owner))
    }

    async fn pending(&self) -> Result<u64> {
        in_transaction!(self, true, |db| outbox::pending(&mut db))
    }
}
