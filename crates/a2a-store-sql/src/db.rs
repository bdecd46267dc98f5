//! The little the store logic needs of a database connection, so that one copy of the logic
//! ([`crate::logic`]) runs on both engines: statements with `$1`-style parameters, bound from
//! [`Param`]s, and rows read back as [`Row`]s.

use a2a_core::Error;

use crate::logic::Counter;

/// A statement parameter. Integers are `BIGINT` on PostgreSQL: the schema uses no other integer
/// type, so one variant binds them all.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Param<'a> {
    Int(i64),
    Text(&'a str),
    Blob(&'a [u8]),
    /// A `NULL` in a blob column (an absent optional message).
    NullBlob,
}

/// One value of a result row.
#[derive(Debug)]
pub(crate) enum Cell {
    Int(i64),
    Text(String),
    Blob(Vec<u8>),
    Null,
}

/// One result row.
#[derive(Debug)]
pub(crate) struct Row(pub(crate) Vec<Cell>);

impl Row {
    pub(crate) fn int(&self, i: usize) -> Result<i64, Fail> {
        match self.0.get(i) {
            Some(Cell::Int(v)) => Ok(*v),
            Some(Cell::Null) => Ok(0),
            other => Err(Fail::shape(i, "an integer", other)),
        }
    }

    pub(crate) fn text(&mut self, i: usize) -> Result<String, Fail> {
        match self.0.get_mut(i) {
            Some(Cell::Text(v)) => Ok(std::mem::take(v)),
            other => Err(Fail::shape(i, "text", other.map(|c| &*c))),
        }
    }

    /// A blob column that may be `NULL`.
    pub(crate) fn blob(&mut self, i: usize) -> Result<Option<Vec<u8>>, Fail> {
        match self.0.get_mut(i) {
            Some(Cell::Blob(v)) => Ok(Some(std::mem::take(v))),
            Some(Cell::Null) => Ok(None),
            other => Err(Fail::shape(i, "a blob", other.map(|c| &*c))),
        }
    }
}

/// Why a store operation failed: the database (an internal error for the client), or the A2A
/// rules (returned as they are: task not found, an illegal transition, ...).
#[derive(Debug)]
pub(crate) enum Fail {
    Db(String),
    A2a(Error),
}

impl Fail {
    fn shape(column: usize, wanted: &str, got: Option<&Cell>) -> Fail {
        Fail::Db(format!("the database returned {got:?} in column {column}, where the store wrote {wanted}"))
    }

    pub(crate) fn into_error(self) -> Error {
        match self {
            Fail::Db(message) => Error::internal(message),
            Fail::A2a(error) => error,
        }
    }
}

impl From<Error> for Fail {
    fn from(error: Error) -> Self {
        Fail::A2a(error)
    }
}

impl From<prost::DecodeError> for Fail {
    fn from(error: prost::DecodeError) -> Self {
        Fail::Db(format!("a stored record does not decode: {error}"))
    }
}

/// A connection (inside a transaction) that runs the store's statements.
///
/// Not `Send`-bounded: the SQLite driver runs the logic synchronously on its writer thread, the
/// PostgreSQL driver is used with its concrete type, so its futures are `Send` where they need
/// to be.
pub(crate) trait Db {
    /// Whether reading a task for a change must lock its row (`SELECT ... FOR UPDATE`): yes with
    /// several writers (PostgreSQL), no behind SQLite's single writer.
    const LOCKS_ROWS: bool;

    /// How many counter rows each (tenant, owner, state) is spread over, so that concurrent
    /// writers do not queue on one hot row (1 behind a single writer).
    const COUNT_SHARDS: u64;

    /// Runs a query and returns its rows.
    async fn rows(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, Fail>;

    /// Runs a statement and returns how many rows it changed.
    async fn exec(&mut self, sql: &str, params: &[Param<'_>]) -> Result<u64, Fail>;

    /// Adds `delta` to `counter` in this transaction: at once, unless the driver sums a
    /// transaction's deltas and writes each counter once before its commit (SQLite's writer,
    /// whose transactions hold a group of writes).
    async fn add_count(&mut self, counter: &Counter<'_>, delta: i64) -> Result<(), Fail>
    where
        Self: Sized,
    {
        counter.add_now(self, delta).await
    }
}
