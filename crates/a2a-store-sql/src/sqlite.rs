//! The SQLite store: one file, one writer thread that commits in groups, a few reader connections.
//!
//! - **Durability.** WAL journal; a write returns only after its transaction is committed. With
//!   [`Durability::Process`] (the default, `synchronous = NORMAL`) a committed write is in the WAL
//!   file, so the death of the process at any moment (`kill -9`, a panic, an OOM kill) loses
//!   nothing a client was told; a power cut or kernel crash may lose the last commits before the
//!   next checkpoint (the database stays consistent). [`Durability::PowerLoss`]
//!   (`synchronous = FULL`) syncs the WAL at every commit: nothing is lost even then, at the cost
//!   of one fsync per group of writes.
//! - **Group commit.** Every write goes to one thread that owns the writing connection. It takes
//!   every write waiting in its queue, runs them in one transaction (a write that fails in the
//!   database is dropped and the others run again), commits once, then answers them all: under load, one fsync covers
//!   many tasks' changes. The task counters' changes of a group are summed and written once per
//!   counter, just before its commit. An idle store commits each write at once (no timer, no added latency);
//!   woken by a write, the writer yields the CPU once before it takes the queue, so that on a
//!   shared core the requests ready to run queue theirs into the same group.
//! - **Reads** run on reader connections of their own, inline on the calling thread (WAL readers
//!   never wait for the writer), each in a read transaction, so a task is read at one snapshot
//!   with its `seq`.
//! - **Checkpoints** (copying the WAL back into the database file, with its fsync) run on a thread
//!   and connection of their own every 100 ms, so the writer never waits for that I/O.
//! - **One process per file.** A lock file (`PATH.lock`) is held while the store is open: a second
//!   server on the same file fails at startup instead of resolving the first one's running tasks
//!   as abandoned. Several replicas share PostgreSQL, not SQLite.
//! - **Never a silent reset.** A file that is not a SQLite database, a SQLite database of another
//!   application, or one written by a newer schema is refused at open with a clear error; it is
//!   never rewritten.

use std::collections::HashSet;
use std::fs::{File, OpenOptions, TryLockError};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::thread::JoinHandle;
use std::time::Duration;

use a2a_core::push::{Claimed, Notification, PushOutbox};
use a2a_core::store::{
    Burst, PushConfigStore, Scope, StoredPushConfig, StoredTask, TaskMutation, TaskPage, TaskQuery,
    TaskStore, TaskView,
};
use a2a_core::{Error, ProtocolVersion, Result};
use a2a_proto::v1::{Artifact, Message, Task, TaskPushNotificationConfig, TaskStatus};
use async_trait::async_trait;
use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, OpenFlags, Statement, TransactionBehavior};
use tokio::sync::{mpsc, oneshot};

use crate::db::{Cell, Db, Fail, Param, Row};
use crate::logic::Counter;
use crate::{logic, outbox, OpenError};

/// `PRAGMA application_id` of our databases ("A2As"): tells our file from another program's.
const APPLICATION_ID: i64 = 0x4132_4173;

/// The schema, one script per version (`PRAGMA user_version` is how many have run).
const MIGRATIONS: &[&str] = &[
    include_str!("sqlite_v1.sql"),
    include_str!("sqlite_v2.sql"),
    include_str!("sqlite_v3.sql"),
    include_str!("sqlite_v4.sql"),
];

/// At most this many writes share one transaction.
const MAX_GROUP: usize = 512;

/// How long a connection waits on a lock held by another connection of ours (a checkpoint, say)
/// before it fails.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// What a committed write survives (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Durability {
    /// The death of the process (`synchronous = NORMAL`): the default.
    #[default]
    Process,
    /// A power cut or kernel crash too (`synchronous = FULL`: an fsync per commit group).
    PowerLoss,
}

/// A [`TaskStore`] and [`PushConfigStore`] in one SQLite file (see the module docs).
#[derive(Debug, Clone)]
pub struct SqliteStore {
    shared: Arc<Shared>,
}

/// One write for the writer thread. It may run more than once: if a later write of its group
/// fails in the database, the group's transaction is rolled back and the others run again.
type Job = Box<dyn WriteJob>;

/// What one run of a write did to the group's transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ran {
    /// It wrote what it had to.
    Wrote,
    /// The A2A rules refused it (task not found, an illegal transition, ...) before it wrote
    /// anything: the transaction goes on.
    Refused,
    /// The database failed mid-write: the transaction must be rolled back.
    Failed,
}

trait WriteJob: Send {
    fn run(&mut self, statements: &mut Statements<'_>) -> Ran;
    /// Answers the caller once the group's fate is known (`commit_error`: why it did not commit).
    fn answer(self: Box<Self>, commit_error: Option<&str>);
}

struct Pending<T, F> {
    op: F,
    result: Option<Result<T, Fail>>,
    reply: oneshot::Sender<Result<T, Fail>>,
}

impl<T: Send, F: FnMut(&mut Conn<'_, '_>) -> Result<T, Fail> + Send> WriteJob for Pending<T, F> {
    fn run(&mut self, statements: &mut Statements<'_>) -> Ran {
        let result = (self.op)(&mut Conn::writer(statements));
        let ran = match &result {
            Ok(_) => Ran::Wrote,
            Err(Fail::A2a(_)) => Ran::Refused,
            Err(Fail::Db(_)) => Ran::Failed,
        };
        self.result = Some(result);
        ran
    }

    fn answer(self: Box<Self>, commit_error: Option<&str>) {
        let result = match (commit_error, self.result) {
            (_, Some(Err(error))) => Err(error),
            (Some(error), _) => Err(Fail::Db(format!("SQLite: the commit failed: {error}"))),
            (None, Some(Ok(value))) => Ok(value),
            (None, None) => Err(Fail::Db("SQLite: the write never ran".into())),
        };
        let _ = self.reply.send(result);
    }
}

struct Shared {
    path: PathBuf,
    writer: Option<mpsc::UnboundedSender<Job>>,
    thread: Option<JoinHandle<()>>,
    readers: Mutex<Vec<Connection>>,
    /// The tasks that may have push configs (every task that ever had one). Push delivery lists a
    /// task's configs at every event; most tasks have none, and this answers that without a
    /// read. Exact enough because this process is the file's only writer (the lock file).
    push_tasks: Mutex<HashSet<String>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore").field("path", &self.path).finish_non_exhaustive()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        // Close the queue, let the writer finish what is queued and close the file, so that the
        // lock is free when the store is gone.
        self.writer.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn db_error(error: rusqlite::Error) -> Fail {
    Fail::Db(format!("SQLite: {error}"))
}

impl From<rusqlite::Error> for Fail {
    fn from(error: rusqlite::Error) -> Self {
        db_error(error)
    }
}

impl rusqlite::ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Param::Int(v) => ToSqlOutput::Owned(Value::Integer(v)),
            Param::Text(s) => ToSqlOutput::Borrowed(ValueRef::Text(s.as_bytes())),
            Param::Blob(b) => ToSqlOutput::Borrowed(ValueRef::Blob(b)),
            Param::NullBlob => ToSqlOutput::Owned(Value::Null),
        })
    }
}

/// A connection as [`Db`]: `$n` parameters become SQLite's `?n`; every future is ready at once.
/// The writer's statements come from its [`Statements`]; a reader's from rusqlite's cache (a
/// reader connection moves in and out of the pool, so it cannot carry statements that borrow it).
struct Conn<'s, 'c> {
    connection: &'c Connection,
    statements: Option<&'s mut Statements<'c>>,
}

impl<'s, 'c> Conn<'s, 'c> {
    fn writer(statements: &'s mut Statements<'c>) -> Self {
        Conn { connection: statements.connection, statements: Some(statements) }
    }

    fn reader(connection: &'c Connection) -> Self {
        Conn { connection, statements: None }
    }
}

impl Db for Conn<'_, '_> {
    const LOCKS_ROWS: bool = false;
    const COUNT_SHARDS: u64 = 1;

    async fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Fail> {
        Ok(match &mut self.statements {
            Some(statements) => read_rows(statements.get(sql)?, params)?,
            None => read_rows(&mut *self.connection.prepare_cached(&sqlite_text(sql))?, params)?,
        })
    }

    async fn exec(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail> {
        let params = rusqlite::params_from_iter(params);
        Ok(match &mut self.statements {
            Some(statements) => statements.get(sql)?.execute(params)?,
            None => self.connection.prepare_cached(&sqlite_text(sql))?.execute(params)?,
        } as u64)
    }

    /// The writer sums its group's deltas, written once per counter before the group's commit
    /// ([`Statements::write_counts`]).
    async fn add_count(&mut self, counter: &Counter<'_>, delta: i64) -> Result<(), Fail> {
        match &mut self.statements {
            Some(statements) => {
                statements.add_count(counter, delta);
                Ok(())
            }
            None => counter.add_now(self, delta).await,
        }
    }
}

/// [`logic`]'s SQL as SQLite takes it: its `$n` parameters become `?n`.
///
/// A bound `LIMIT` would make SQLite prepare the statement again at every execution (its planner
/// reads the value): [`logic`] writes limits into the text, and debug builds (every test) check it.
fn sqlite_text(sql: &str) -> String {
    debug_assert!(!sql.contains("LIMIT $"), "a bound LIMIT re-prepares the statement at every use: {sql}");
    sql.replace('$', "?")
}

/// Runs a query and copies out its rows.
fn read_rows(statement: &mut Statement<'_>, params: &[Param<'_>]) -> rusqlite::Result<Vec<Row>> {
    let columns = statement.column_count();
    let mut rows = statement.query(rusqlite::params_from_iter(params))?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        let mut cells = Vec::with_capacity(columns);
        for i in 0..columns {
            cells.push(match row.get_ref(i)? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(v) => Cell::Int(v),
                ValueRef::Real(v) => Cell::Int(v as i64),
                ValueRef::Text(t) => Cell::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Cell::Blob(b.to_vec()),
            });
        }
        out.push(Row(cells));
    }
    Ok(out)
}

/// The writer's prepared statements, kept for the writer thread's life and found by their SQL as
/// [`logic`] writes it (`$n`). A statement used again costs a scan of a few dozen lengths and one
/// comparison of its text. rusqlite's `prepare_cached` copied the SQL into a new `Arc<str>` and
/// hashed it twice at every use (after the `$`-to-`?` rewrite, one more copy), and
/// `execute_batch` parsed `BEGIN IMMEDIATE` and `COMMIT` anew for every group: together about 5%
/// of an echo SendMessage's instructions on this store (docs/benchmarks.md, tenth pass). A hash
/// map keyed by the text would hash every statement's text at every use; the writer uses about
/// twenty distinct statements.
struct Statements<'c> {
    connection: &'c Connection,
    prepared: Vec<(Box<str>, Statement<'c>)>,
    /// The task counters' deltas of the open transaction, not written yet (see
    /// [`add_count`](Self::add_count)).
    counts: Vec<PendingCount>,
}

/// A counter's delta summed over a group's writes.
#[derive(Debug)]
struct PendingCount {
    tenant: String,
    owner: String,
    state: i64,
    shard: i64,
    delta: i64,
}

impl PendingCount {
    fn counter(&self) -> Counter<'_> {
        Counter { tenant: &self.tenant, owner: &self.owner, state: self.state, shard: self.shard }
    }
}

impl<'c> Statements<'c> {
    /// More distinct statements than this are SQL built per call (lists of ids): the list starts
    /// again rather than grow, and the statements in use every time come back at their next use.
    const CAPACITY: usize = 64;

    fn new(connection: &'c Connection) -> Self {
        Statements { connection, prepared: Vec::new(), counts: Vec::new() }
    }

    /// Adds `delta` to `counter` at the group's commit ([`write_counts`](Self::write_counts)).
    /// The tasks of a group mostly share a few (tenant, owner, state) counters: one upsert per
    /// counter and group instead of one per task's change, a hot row rewritten once per commit
    /// (docs/benchmarks.md, fifteenth pass). Nothing reads the counters inside a write
    /// transaction, and the deltas go with the transaction: a rollback drops them.
    fn add_count(&mut self, counter: &Counter<'_>, delta: i64) {
        match self.counts.iter_mut().find(|p| p.counter() == *counter) {
            Some(pending) => pending.delta += delta,
            None => self.counts.push(PendingCount {
                tenant: counter.tenant.to_owned(),
                owner: counter.owner.to_owned(),
                state: counter.state,
                shard: counter.shard,
                delta,
            }),
        }
    }

    /// Writes the summed counters, just before the commit. If this fails, the whole group fails
    /// with it, as if its commit had.
    fn write_counts(&mut self) -> rusqlite::Result<()> {
        for pending in std::mem::take(&mut self.counts) {
            if pending.delta != 0 {
                let params = pending.counter().params(pending.delta);
                self.get(Counter::ADD)?.execute(rusqlite::params_from_iter(params))?;
            }
        }
        Ok(())
    }

    /// Rolls the open transaction back, with the counters' deltas not written yet.
    fn roll_back(&mut self) -> rusqlite::Result<()> {
        self.counts.clear();
        self.run("ROLLBACK")
    }

    /// The statement of `sql`, prepared at its first use. A statement is reset after every use
    /// (rusqlite resets it when `execute` returns and when its rows are dropped), so a kept one
    /// never holds the transaction open.
    fn get(&mut self, sql: &str) -> rusqlite::Result<&mut Statement<'c>> {
        // Texts of another length are told apart without reading them.
        let index = match self.prepared.iter().position(|(kept, _)| **kept == *sql) {
            Some(index) => index,
            None => {
                if self.prepared.len() >= Self::CAPACITY {
                    self.prepared.clear();
                }
                let statement = self.connection.prepare(&sqlite_text(sql))?;
                self.prepared.push((sql.into(), statement));
                self.prepared.len() - 1
            }
        };
        Ok(&mut self.prepared[index].1)
    }

    /// Runs a statement that takes no parameters and returns no rows (`BEGIN`, `COMMIT`, ...).
    fn run(&mut self, sql: &str) -> rusqlite::Result<()> {
        self.get(sql)?.execute([]).map(drop)
    }
}

/// Runs one of [`logic`]'s operations on a [`Conn`], whose futures never wait.
fn run<T>(future: impl std::future::Future<Output = T>) -> T {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(value) => value,
        Poll::Pending => {
            unreachable!("a SQLite statement never waits: its futures are ready when first polled")
        }
    }
}

/// A mutation the writer thread owns (the caller's borrows end when it is queued).
enum OwnedMutation {
    Status(TaskStatus),
    Artifact(Artifact, bool),
    History(Message),
}

impl OwnedMutation {
    fn new(mutation: TaskMutation<'_>) -> Self {
        match mutation {
            TaskMutation::Status(status) => OwnedMutation::Status(status.clone()),
            TaskMutation::Artifact { artifact, append } => OwnedMutation::Artifact(artifact.clone(), append),
            TaskMutation::History(message) => OwnedMutation::History(message.clone()),
        }
    }

    fn get(&self) -> TaskMutation<'_> {
        match self {
            OwnedMutation::Status(status) => TaskMutation::Status(status),
            OwnedMutation::Artifact(artifact, append) => TaskMutation::Artifact { artifact, append: *append },
            OwnedMutation::History(message) => TaskMutation::History(message),
        }
    }
}

impl SqliteStore {
    /// Opens (creating it and its directory if missing) the store in the SQLite file at `path`,
    /// and brings its schema up to date.
    ///
    /// Fails, touching nothing, if another process holds the file's lock, if the file is not a
    /// SQLite database, belongs to another application, or was written by a newer version.
    pub fn open(path: impl AsRef<Path>) -> std::result::Result<Self, OpenError> {
        Self::open_with(path, Durability::default())
    }

    /// [`open`](Self::open), with the durability of commits chosen.
    pub fn open_with(path: impl AsRef<Path>, durability: Durability) -> std::result::Result<Self, OpenError> {
        let path = path.as_ref().to_path_buf();
        let fail = |what: &str, error: &dyn std::fmt::Display| {
            OpenError::new(format!("{}: {what}: {error}", path.display()))
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail("cannot create its directory", &e))?;
        }
        let mut lock_path = path.clone().into_os_string();
        lock_path.push(".lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| fail("cannot open its lock file", &e))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(OpenError::new(format!(
                    "{} is in use by another process (it holds {}): one server per SQLite file; \
                     replicas that share tasks use PostgreSQL",
                    path.display(),
                    Path::new(&lock_path).display()
                )))
            }
            Err(TryLockError::Error(e)) => return Err(fail("cannot lock its lock file", &e)),
        }
        check_header(&path)?;
        let mut writer = Connection::open(&path).map_err(|e| fail("cannot open", &e))?;
        configure(&writer, Some(durability))
            .map_err(|e| fail("cannot use it as a SQLite database (refusing to touch it)", &e))?;
        migrate(&mut writer).map_err(|e| OpenError::new(format!("{}: {e}", path.display())))?;

        let push_tasks = writer
            .prepare("SELECT DISTINCT task_id FROM a2a_push_configs")
            .and_then(|mut s| {
                s.query_map([], |row| row.get::<_, String>(0))?.collect::<rusqlite::Result<HashSet<_>>>()
            })
            .map_err(|e| fail("cannot read its push configs", &e))?;
        let checkpoints = Connection::open(&path)
            .and_then(|c| configure(&c, None).map(|()| c))
            .map_err(|e| fail("cannot open its checkpoint connection", &e))?;
        let (stop_checkpoints, stopped) = std::sync::mpsc::channel::<()>();
        let checkpointer = std::thread::Builder::new()
            .name("a2a-sqlite-checkpoint".into())
            .spawn(move || checkpoint_loop(&checkpoints, &stopped))
            .map_err(|e| fail("cannot start its checkpoint thread", &e))?;
        let (queue, jobs) = mpsc::unbounded_channel();
        let thread = std::thread::Builder::new()
            .name("a2a-sqlite-writer".into())
            .spawn(move || {
                write_loop(&writer, jobs);
                drop(stop_checkpoints);
                let _ = checkpointer.join();
                drop(writer);
                drop(lock);
            })
            .map_err(|e| fail("cannot start its writer thread", &e))?;
        Ok(SqliteStore {
            shared: Arc::new(Shared {
                path,
                writer: Some(queue),
                thread: Some(thread),
                readers: Mutex::new(Vec::new()),
                push_tasks: Mutex::new(push_tasks),
            }),
        })
    }

    fn may_have_push_configs(&self, task_id: &str) -> bool {
        self.shared.push_tasks.lock().unwrap_or_else(|e| e.into_inner()).contains(task_id)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// Queues a write for the writer thread and waits for its group's commit.
    async fn write<T: Send + 'static>(
        &self,
        op: impl FnMut(&mut Conn<'_, '_>) -> Result<T, Fail> + Send + 'static,
    ) -> Result<T> {
        let (reply, answered) = oneshot::channel();
        let job: Job = Box::new(Pending { op, result: None, reply });
        let stopped = || Error::internal("the SQLite store's writer has stopped");
        self.shared.writer.as_ref().ok_or_else(stopped)?.send(job).map_err(|_| stopped())?;
        answered.await.map_err(|_| stopped())?.map_err(Fail::into_error)
    }

    /// Runs a read on a reader connection, in one read transaction, on the calling thread.
    ///
    /// Inline, not on a blocking pool: a WAL reader never waits for the writer, and a read is a
    /// few B-tree lookups in the page cache (microseconds), less than the two thread hops a
    /// blocking pool would add. There are at most as many reader connections as threads reading
    /// at once (the runtime's workers), each kept open.
    async fn read<T>(&self, op: impl FnOnce(&mut Conn<'_, '_>) -> Result<T, Fail>) -> Result<T> {
        let connection = self.shared.reader().map_err(Fail::into_error)?;
        let result = read_transaction(&connection, op);
        // A connection left inside its transaction (its COMMIT failed) is not reused.
        if connection.is_autocommit() {
            self.shared.give_back(connection);
        }
        result.map_err(Fail::into_error)
    }
}

/// Runs `op` in one read transaction on `connection`. Its `BEGIN` and `COMMIT` come from the
/// connection's statement cache: rusqlite's `Transaction` parses them anew every time.
fn read_transaction<T>(
    connection: &Connection,
    op: impl FnOnce(&mut Conn<'_, '_>) -> Result<T, Fail>,
) -> Result<T, Fail> {
    let run =
        |sql: &str| connection.prepare_cached(sql).and_then(|mut statement| statement.execute([]).map(drop));
    run("BEGIN DEFERRED")?;
    let value = op(&mut Conn::reader(connection));
    // A read changes nothing: a failed one ends its transaction as a successful one does.
    let ended = run(if value.is_ok() { "COMMIT" } else { "ROLLBACK" });
    let value = value?;
    ended?;
    Ok(value)
}

impl Shared {
    fn reader(&self) -> Result<Connection, Fail> {
        if let Some(connection) = self.readers.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            return Ok(connection);
        }
        let connection = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI,
        )?;
        configure(&connection, None)?;
        Ok(connection)
    }

    /// Returns a reader connection for the next read.
    fn give_back(&self, connection: Connection) {
        self.readers.lock().unwrap_or_else(|e| e.into_inner()).push(connection);
    }
}

/// Refuses a file that exists, is not empty and does not start with SQLite's header.
fn check_header(path: &Path) -> std::result::Result<(), OpenError> {
    let Ok(mut file) = File::open(path) else { return Ok(()) };
    let mut header = [0u8; 16];
    let read = file.read(&mut header).unwrap_or(0);
    if read == 0 || header == *b"SQLite format 3\0" {
        return Ok(());
    }
    Err(OpenError::new(format!(
        "{} is not a SQLite database (it does not start with SQLite's header); refusing to touch it: \
         move it away, or give another path",
        path.display()
    )))
}

/// Sets up a connection: the writer (with its durability) or a reader (`None`).
fn configure(connection: &Connection, writer: Option<Durability>) -> rusqlite::Result<()> {
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.set_prepared_statement_cache_capacity(64);
    // A bounded page cache per connection (32 MiB for the writer, 8 MiB per reader): the
    // server's memory does not grow with the number of stored tasks.
    connection.execute_batch(if writer.is_some() {
        "PRAGMA cache_size = -32768"
    } else {
        "PRAGMA cache_size = -8192"
    })?;
    if let Some(durability) = writer {
        let mode: String = connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_ERROR),
                Some(format!("the journal mode stayed {mode}, not WAL")),
            ));
        }
        connection.execute_batch(match durability {
            Durability::Process => "PRAGMA synchronous = NORMAL",
            Durability::PowerLoss => "PRAGMA synchronous = FULL",
        })?;
        // Checkpoints are the checkpoint thread's; the writer checkpoints only if the WAL
        // reaches 10 000 pages (40 MiB) anyway, and the WAL file is truncated back to 64 MiB.
        connection
            .execute_batch("PRAGMA wal_autocheckpoint = 10000; PRAGMA journal_size_limit = 67108864")?;
    }
    Ok(())
}

/// Checks that the file is ours (or empty) and runs the migrations it has not seen.
fn migrate(connection: &mut Connection) -> std::result::Result<(), String> {
    let read =
        |e: rusqlite::Error| format!("cannot read it as a SQLite database ({e}); refusing to touch it");
    let application_id: i64 =
        connection.query_row("PRAGMA application_id", [], |r| r.get(0)).map_err(read)?;
    let version: i64 = connection.query_row("PRAGMA user_version", [], |r| r.get(0)).map_err(read)?;
    let tables: i64 = connection
        .query_row("SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table'", [], |r| r.get(0))
        .map_err(read)?;
    if application_id != APPLICATION_ID && (tables > 0 || version != 0) {
        return Err(format!(
            "a SQLite database of another application (application_id {application_id:#x}, {tables} tables); \
             refusing to touch it: give another path"
        ));
    }
    let known = MIGRATIONS.len() as i64;
    if version > known {
        return Err(format!(
            "written by a newer version of this server (schema {version}; this build knows up to {known}); \
             refusing to touch it: run the newer version"
        ));
    }
    for (index, script) in MIGRATIONS.iter().enumerate().skip(version as usize) {
        let failed = |e: rusqlite::Error| format!("migration to schema {} failed: {e}", index + 1);
        let transaction =
            connection.transaction_with_behavior(TransactionBehavior::Immediate).map_err(failed)?;
        transaction.execute_batch(script).map_err(failed)?;
        transaction
            .execute_batch(&format!(
                "PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = {}",
                index + 1
            ))
            .map_err(failed)?;
        transaction.commit().map_err(failed)?;
    }
    Ok(())
}

/// The writer thread: take every queued write, run them in one transaction, commit, answer.
///
/// No savepoint per write (each would copy every page it touches into a statement journal): a
/// write the A2A rules refuse has written nothing, and a write the database fails is rare enough
/// to roll the whole group back, drop that write, and run the others again.
fn write_loop(connection: &Connection, mut jobs: mpsc::UnboundedReceiver<Job>) {
    let mut statements = Statements::new(connection);
    let mut group: Vec<Job> = Vec::with_capacity(MAX_GROUP);
    while let Some(first) = jobs.blocking_recv() {
        group.push(first);
        // Give the CPU away once before taking the rest of the queue: when the writer shares a
        // core with the runtime that sends it writes (a pinned or busy server), the wake-up of
        // the first write would otherwise make it commit that write nearly alone, while the
        // requests that send the next ones wait to run. Yielded, it takes what they queued
        // meanwhile: fewer, larger commits (each commit rewrites the right edge of every index
        // it touches into the WAL). Measured, pinned, wrk c=64 SendMessage: server CPU per request
        // 54.6-55.8 -> 45.8-48.4 us, p99 12.6-13.5 -> 8.1-9.7 ms (docs/benchmarks.md, seventh
        // pass). On an idle core it returns at once: no wait is added.
        std::thread::yield_now();
        while group.len() < MAX_GROUP {
            match jobs.try_recv() {
                Ok(job) => group.push(job),
                Err(_) => break,
            }
        }
        let mut failed = Vec::new();
        let outcome = run_group(&mut statements, &mut group, &mut failed);
        if let Err(error) = &outcome {
            tracing::error!(%error, writes = group.len(), "SQLite store: a group of writes did not commit");
        }
        let error = outcome.err().map(|e| e.to_string());
        for job in group.drain(..) {
            job.answer(error.as_deref());
        }
        for job in failed {
            job.answer(None);
        }
    }
}

/// Runs `group` in one transaction and commits it. A write the database fails is moved to
/// `failed` (it keeps its own error) after the transaction is rolled back and begun again.
fn run_group(
    statements: &mut Statements<'_>,
    group: &mut Vec<Job>,
    failed: &mut Vec<Job>,
) -> rusqlite::Result<()> {
    statements.run("BEGIN IMMEDIATE")?;
    let mut i = 0;
    while i < group.len() {
        if group[i].run(statements) == Ran::Failed {
            statements.roll_back()?;
            statements.run("BEGIN IMMEDIATE")?;
            failed.push(group.remove(i));
            i = 0;
        } else {
            i += 1;
        }
    }
    statements.write_counts().and_then(|()| statements.run("COMMIT")).inspect_err(|_| {
        let _ = statements.roll_back();
    })
}

/// How often the checkpoint thread copies the WAL back into the database.
const CHECKPOINT_EVERY: std::time::Duration = std::time::Duration::from_millis(100);

/// The checkpoint thread: copies committed WAL frames into the database file (and syncs it) on a
/// connection of its own, so the writer never waits for that I/O. A `PASSIVE` checkpoint does
/// not block writers or readers; what it cannot copy yet (a reader still uses it) is copied at
/// the next one. The writer's automatic checkpoint stays on, at a high mark, as a safety valve.
fn checkpoint_loop(connection: &Connection, stop: &std::sync::mpsc::Receiver<()>) {
    while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(CHECKPOINT_EVERY) {
        if let Err(error) = connection.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
            tracing::warn!(%error, "SQLite store: a checkpoint failed (the next one retries)");
        }
    }
}

#[async_trait]
impl TaskStore for SqliteStore {
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
        let (scope, task) = (scope.clone(), task.clone());
        self.write(move |db| run(logic::create(db, &scope, &task))).await
    }

    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
        let (task_id, mutation) = (task_id.to_owned(), OwnedMutation::new(mutation));
        self.write(move |db| run(logic::apply(db, &task_id, mutation.get()))).await
    }

    async fn create_and_apply(&self, scope: &Scope, task: &Task, first: TaskMutation<'_>) -> Result<u64> {
        let (scope, task, first) = (scope.clone(), task.clone(), OwnedMutation::new(first));
        self.write(move |db| run(logic::create_and_apply(db, &scope, &task, first.get()))).await
    }

    async fn create_with_burst(&self, scope: &Scope, task: &Task, burst: Burst<'_>) -> Result<u64> {
        // Folded here, on the caller's thread: the writer thread only inserts.
        let (folded, seq, notify) = burst.fold_new(task)?;
        let scope = scope.clone();
        self.write(move |db| {
            run(logic::insert_task(db, &scope, &folded, seq))?;
            run(outbox::enqueue(db, &notify))
        })
        .await?;
        Ok(seq)
    }

    async fn apply_burst(&self, scope: &Scope, task_id: &str, burst: Burst<'_>) -> Result<u64> {
        let (scope, task_id, notify) = (scope.clone(), task_id.to_owned(), burst.notify.to_vec());
        let changes: Vec<OwnedMutation> = burst.changes.iter().map(|c| OwnedMutation::new(*c)).collect();
        self.write(move |db| {
            let changes: Vec<TaskMutation<'_>> = changes.iter().map(OwnedMutation::get).collect();
            let seq = run(logic::apply_all(db, &task_id, &changes))?;
            run(outbox::enqueue_with_task(db, &scope, &task_id, &notify))?;
            Ok(seq)
        })
        .await
    }

    fn outbox(&self) -> Option<Arc<dyn PushOutbox>> {
        Some(Arc::new(self.clone()))
    }

    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>> {
        self.read(|db| run(logic::get(db, scope, task_id, view))).await
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
        self.read(|db| run(logic::list(db, scope, query))).await
    }

    async fn running(&self) -> Result<Vec<(Scope, String)>> {
        self.read(|db| run(logic::running(db))).await
    }

    /// The writer thread is alive (every write goes through it) and a reader connection reads.
    async fn ping(&self) -> Result<()> {
        if self.shared.writer.as_ref().is_none_or(mpsc::UnboundedSender::is_closed) {
            return Err(Error::internal("the SQLite store's writer has stopped"));
        }
        self.read(|db| run(logic::ping(db))).await
    }
}

#[async_trait]
impl PushConfigStore for SqliteStore {
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig> {
        self.shared.push_tasks.lock().unwrap_or_else(|e| e.into_inner()).insert(config.task_id.clone());
        self.write(move |db| run(logic::put_push(db, &config, version)).map(|()| config.clone())).await
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<StoredPushConfig>> {
        if !self.may_have_push_configs(task_id) {
            return Ok(None);
        }
        self.read(|db| run(logic::get_push(db, task_id, config_id))).await
    }

    async fn list(&self, task_id: &str) -> Result<Vec<StoredPushConfig>> {
        if !self.may_have_push_configs(task_id) {
            return Ok(Vec::new());
        }
        self.read(|db| run(logic::list_push(db, task_id))).await
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        let (task_id, config_id) = (task_id.to_owned(), config_id.to_owned());
        self.write(move |db| run(logic::delete_push(db, &task_id, &config_id))).await
    }
}

/// The push outbox, in the same file as the tasks (see `outbox.rs`): claims and their
/// bookkeeping are writes, through the writer thread like any other.
#[async_trait]
impl PushOutbox for SqliteStore {
    async fn enqueue(&self, notifications: Vec<Notification>) -> Result<()> {
        self.write(move |db| run(outbox::enqueue(db, &notifications))).await
    }

    async fn claim(&self, owner: &str, now_ms: i64, lease: Duration, limit: usize) -> Result<Vec<Claimed>> {
        let owner = owner.to_owned();
        self.write(move |db| run(outbox::claim(db, &owner, now_ms, lease, limit))).await
    }

    async fn remove(&self, id: u64) -> Result<()> {
        self.write(move |db| run(outbox::remove(db, id))).await
    }

    async fn retry_at(&self, id: u64, attempts: u32, first_attempt_ms: i64, next_ms: i64) -> Result<()> {
        self.write(move |db| run(outbox::retry_at(db, id, attempts, first_attempt_ms, next_ms))).await
    }

    async fn discard(&self, task_id: &str, config_id: &str) -> Result<u64> {
        let (task_id, config_id) = (task_id.to_owned(), config_id.to_owned());
        self.write(move |db| run(outbox::discard(db, &task_id, &config_id))).await
    }

    async fn release(&self, owner: Option<&str>) -> Result<()> {
        let owner = owner.map(str::to_owned);
        self.write(move |db| run(outbox::release(db, owner.as_deref()))).await
    }

    async fn pending(&self) -> Result<u64> {
        self.read(|db| run(outbox::pending(db))).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::Part;

    fn job(sql: &'static str) -> (Job, oneshot::Receiver<Result<usize, Fail>>) {
        let (reply, answered) = oneshot::channel();
        let op = move |db: &mut Conn<'_, '_>| db.connection.execute(sql, []).map_err(Fail::from);
        (Box::new(Pending { op, result: None, reply }), answered)
    }

    #[test]
    fn the_writers_statements_are_prepared_once_and_their_number_is_bounded() {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch("CREATE TABLE t (v INTEGER)").unwrap();
        let mut statements = Statements::new(&connection);
        let insert = "INSERT INTO t VALUES ($1)";
        for v in 0..3 {
            // The same text from another buffer finds the same statement.
            let sql = insert.to_owned();
            assert_eq!(statements.get(&sql).unwrap().execute([v]).unwrap(), 1);
        }
        assert_eq!(statements.prepared.len(), 1);
        // SQL built per call (here, one text per value) does not grow the list without bound.
        for v in 0..(Statements::CAPACITY as i64 * 2) {
            statements.get(&format!("SELECT v FROM t WHERE v = {v} OR v = $1")).unwrap().execute([-1]).ok();
            assert!(statements.prepared.len() <= Statements::CAPACITY);
        }
        statements.run("BEGIN IMMEDIATE").unwrap();
        statements.get(insert).unwrap().execute([3]).unwrap();
        statements.run("COMMIT").unwrap();
        let count: i64 = connection.query_row("SELECT COUNT(*) FROM t", [], |r| r.get(0)).unwrap();
        assert_eq!(count, 4);
        assert!(connection.is_autocommit(), "no statement kept holds a transaction open");
    }

    #[test]
    fn a_read_ends_its_transaction_whether_it_succeeds_or_fails() {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (7)").unwrap();
        let read =
            read_transaction(
                &connection,
                |db| run(db.rows("SELECT v FROM t WHERE v = $1", &[Param::Int(7)])),
            );
        assert_eq!(read.unwrap().len(), 1);
        assert!(connection.is_autocommit());
        let failed: Result<(), Fail> = read_transaction(&connection, |db| {
            run(db.rows("SELECT v FROM t", &[]))?;
            Err(Fail::Db("the read failed".into()))
        });
        assert!(matches!(failed, Err(Fail::Db(e)) if e == "the read failed"));
        assert!(connection.is_autocommit(), "the connection can serve the next read");
        let bad = read_transaction(&connection, |db| run(db.rows("SELECT nothing FROM nowhere", &[])));
        assert!(bad.is_err());
        assert!(connection.is_autocommit());
    }

    /// Records the SQL of what runs through it.
    struct Recording<'a, 's, 'c> {
        conn: &'a mut Conn<'s, 'c>,
        texts: Vec<String>,
    }

    impl Db for Recording<'_, '_, '_> {
        const LOCKS_ROWS: bool = false;
        const COUNT_SHARDS: u64 = 1;

        async fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Fail> {
            self.texts.push(sql.to_owned());
            self.conn.rows(sql, params).await
        }

        async fn exec(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail> {
            self.texts.push(sql.to_owned());
            self.conn.exec(sql, params).await
        }
    }

    /// A database file in a directory of its own, migrated to the current schema.
    fn migrated_file() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let mut connection = Connection::open(dir.path().join("a2a.sqlite3")).unwrap();
        migrate(&mut connection).unwrap();
        (dir, connection)
    }

    #[test]
    fn the_statements_of_a_list_page_are_not_prepared_again_at_every_use() {
        // SQLite prepares a statement again at every execution when its planner read a bound
        // parameter's value (a bound LIMIT, for one): the parse and plan cost more than the page.
        let (_dir, connection) = migrated_file();
        let scope = Scope { tenant: String::new(), owner: None };
        for id in ["a", "b"] {
            let task = Task {
                id: id.into(),
                context_id: "c".into(),
                status: Some(TaskStatus {
                    state: a2a_proto::v1::TaskState::Completed.into(),
                    ..Default::default()
                }),
                history: vec![Message::user_text("hello")],
                ..Default::default()
            };
            run(logic::insert_task(&mut Conn::reader(&connection), &scope, &task, 1)).unwrap();
        }
        let query = TaskQuery {
            context_id: None,
            state: None,
            updated_at_or_after_ms: None,
            page_size: 50,
            after: None,
            view: TaskView { history_length: Some(1), include_artifacts: true },
        };
        let mut texts = Vec::new();
        for _ in 0..3 {
            let mut conn = Conn::reader(&connection);
            let mut recording = Recording { conn: &mut conn, texts: Vec::new() };
            let page = run(logic::list(&mut recording, &scope, &query)).unwrap();
            assert_eq!(page.tasks.len(), 2);
            texts = recording.texts;
        }
        assert!(texts.len() >= 3, "the page, the history and the total: {texts:?}");
        for text in texts {
            let statement = connection.prepare_cached(&sqlite_text(&text)).unwrap();
            assert_eq!(statement.get_status(rusqlite::StatementStatus::RePrepare), 0, "{text}");
        }
    }

    /// A write that adds `delta` to the counter of state `state`, then runs `sql`.
    fn counting_job(
        state: i64,
        delta: i64,
        sql: &'static str,
    ) -> (Job, oneshot::Receiver<Result<u64, Fail>>) {
        let (reply, answered) = oneshot::channel();
        let op = move |db: &mut Conn<'_, '_>| {
            run(db.add_count(&Counter { tenant: "/", owner: "-", state, shard: 0 }, delta))?;
            run(db.exec(sql, &[]))
        };
        (Box::new(Pending { op, result: None, reply }), answered)
    }

    fn counters(connection: &Connection) -> Vec<(i64, i64)> {
        connection
            .prepare("SELECT state, n FROM a2a_task_counts WHERE tenant = '/' AND owner = '-' ORDER BY state")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn a_groups_counters_are_summed_and_written_once_with_its_commit() {
        let mut connection = Connection::open_in_memory().unwrap();
        migrate(&mut connection).unwrap();
        connection.execute_batch("CREATE TABLE t (v INTEGER UNIQUE)").unwrap();
        let mut statements = Statements::new(&connection);
        // A task created completed, another created working then completed, and a write that
        // counts, then fails in the database: its delta must not be written.
        let (a, a_answer) = counting_job(3, 1, "INSERT INTO t VALUES (1)");
        let (b, _) = counting_job(2, 1, "INSERT INTO t VALUES (2)");
        let (c, _) = counting_job(2, -1, "INSERT INTO t VALUES (3)");
        let (d, _) = counting_job(3, 1, "INSERT INTO t VALUES (4)");
        let (e, e_answer) = counting_job(3, 1, "INSERT INTO t VALUES (1)"); // violates UNIQUE after `a`
        let (mut group, mut failed) = (vec![a, b, c, d, e], Vec::new());
        run_group(&mut statements, &mut group, &mut failed).unwrap();
        assert_eq!((group.len(), failed.len()), (4, 1));
        for job in group.into_iter().chain(failed) {
            job.answer(None);
        }
        assert!(matches!(a_answer.blocking_recv().unwrap(), Ok(1)));
        assert!(matches!(e_answer.blocking_recv().unwrap(), Err(Fail::Db(_))));
        // State 2 summed to 0 is not written; state 3 holds the two committed writes.
        assert_eq!(counters(&connection), [(3, 2)]);
        assert!(statements.counts.is_empty());

        // The next group adds to the stored rows.
        let (f, _) = counting_job(3, -1, "INSERT INTO t VALUES (5)");
        let (g, _) = counting_job(4, 1, "INSERT INTO t VALUES (6)");
        let (mut group, mut failed) = (vec![f, g], Vec::new());
        run_group(&mut statements, &mut group, &mut failed).unwrap();
        assert_eq!(counters(&connection), [(3, 1), (4, 1)]);

        // A group whose commit fails writes none of its counters, and leaves none behind.
        let (h, _) = counting_job(4, 5, "INSERT INTO t VALUES (7)");
        connection.execute_batch("DROP TABLE a2a_task_counts").unwrap();
        let (mut group, mut failed) = (vec![h], Vec::new());
        assert!(run_group(&mut statements, &mut group, &mut failed).is_err());
        assert!(statements.counts.is_empty());
        assert!(connection.is_autocommit(), "the failed group was rolled back");
        let rows: i64 = connection.query_row("SELECT COUNT(*) FROM t WHERE v = 7", [], |r| r.get(0)).unwrap();
        assert_eq!(rows, 0, "nothing of the failed group is committed");
    }

    #[test]
    fn a_tasks_many_entries_and_an_appended_chunks_come_back_in_order() {
        // A task of many history messages and parts, and a chunk of many parts appended to it,
        // come back whole and in order.
        let (_dir, connection) = migrated_file();
        let scope = Scope { tenant: String::new(), owner: None };
        let parts =
            |prefix: &str, n: usize| (0..n).map(|i| Part::text(format!("{prefix}{i}"))).collect::<Vec<_>>();
        let task = Task {
            id: "t".into(),
            context_id: "c".into(),
            status: Some(TaskStatus {
                state: a2a_proto::v1::TaskState::Working.into(),
                ..Default::default()
            }),
            history: (0..11).map(|i| Message::user_text(format!("m{i}"))).collect(),
            artifacts: vec![
                Artifact { artifact_id: "a".into(), parts: parts("a", 9), ..Default::default() },
                Artifact { artifact_id: "b".into(), parts: parts("b", 1), ..Default::default() },
            ],
            ..Default::default()
        };
        let mut db = Conn::reader(&connection);
        run(logic::insert_task(&mut db, &scope, &task, 1)).unwrap();
        let chunk = Artifact { artifact_id: "a".into(), parts: parts("c", 10), ..Default::default() };
        run(logic::apply(&mut db, "t", TaskMutation::Artifact { artifact: &chunk, append: true })).unwrap();
        let view = TaskView { history_length: None, include_artifacts: true };
        let stored = run(logic::get(&mut db, &scope, "t", view)).unwrap().unwrap().task;
        let texts =
            |parts: &[Part]| parts.iter().map(|p| p.as_text().unwrap().to_owned()).collect::<Vec<_>>();
        let history: Vec<String> = stored.history.iter().map(Message::text).collect();
        assert_eq!(history, (0..11).map(|i| format!("m{i}")).collect::<Vec<_>>());
        let mut expected = texts(&parts("a", 9));
        expected.extend(texts(&parts("c", 10)));
        assert_eq!(texts(&stored.artifacts[0].parts), expected);
        assert_eq!(texts(&stored.artifacts[1].parts), ["b0"]);
    }

    #[test]
    fn a_write_the_database_fails_is_dropped_and_the_rest_of_its_group_commits() {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch("CREATE TABLE t (v INTEGER UNIQUE)").unwrap();
        let (a, a_answer) = job("INSERT INTO t VALUES (1)");
        let (b, b_answer) = job("INSERT INTO t VALUES (1)"); // violates UNIQUE after `a`
        let (c, c_answer) = job("INSERT INTO t VALUES (3)");
        let (mut group, mut failed) = (vec![a, b, c], Vec::new());
        run_group(&mut Statements::new(&connection), &mut group, &mut failed).unwrap();
        assert_eq!((group.len(), failed.len()), (2, 1));
        for job in group {
            job.answer(None);
        }
        for job in failed {
            job.answer(None);
        }
        let rows: Vec<i64> = connection
            .prepare("SELECT v FROM t ORDER BY v")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(rows, [1, 3], "the others' writes are committed once each");
        assert!(matches!(a_answer.blocking_recv().unwrap(), Ok(1)));
        assert!(matches!(b_answer.blocking_recv().unwrap(), Err(Fail::Db(e)) if e.contains("UNIQUE")));
        assert!(matches!(c_answer.blocking_recv().unwrap(), Ok(1)));
    }
}
