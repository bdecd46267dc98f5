//! Durable A2A stores: [`TaskStore`](a2a_core::store::TaskStore) and
//! [`PushConfigStore`](a2a_core::store::PushConfigStore) on SQLite ([`SqliteStore`], feature
//! `sqlite`: one embedded file, the reference server's default) and PostgreSQL
//! ([`PostgresStore`], feature `postgres`: a shared database for several replicas).
//!
//! Both keep the contract of [`a2a_core::store`] and run its conformance suite. The store logic
//! is written once ([`logic`](self)), over a small connection abstraction each engine implements:
//! a task is a row, its history messages, artifacts and artifact parts are rows of their own, so a
//! streamed artifact chunk is an insert, never a rewrite of the task; ListTasks is a keyset seek on
//! an index, and its `totalSize` a sum of counters.
//!
//! ```no_run
//! # async fn example() -> Result<(), a2a_store_sql::OpenError> {
//! use std::sync::Arc;
//! let store = Arc::new(a2a_store_sql::SqliteStore::open("a2a-data/tasks.sqlite3")?);
//! let shared = Arc::new(a2a_store_sql::PostgresStore::connect("postgres://postgres@127.0.0.1/a2a").await?);
//! # let _ = (store, shared);
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "postgres")]
mod cluster;
mod db;
mod logic;
mod outbox;
#[cfg(feature = "postgres")]
pub mod postgres;
#[cfg(feature = "sqlite")]
pub mod sqlite;
#[cfg(feature = "testing")]
pub mod testing;

#[cfg(feature = "postgres")]
pub use cluster::{ClusterOptions, PostgresCluster};
#[cfg(feature = "postgres")]
pub use postgres::PostgresStore;
#[cfg(feature = "sqlite")]
pub use sqlite::{Durability, SqliteStore};

/// A store could not be opened: the message says which database and why (in use, not ours,
/// newer schema, unreachable, ...). Opening never resets or rewrites a database it refuses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenError(String);

impl OpenError {
    pub(crate) fn new(message: String) -> Self {
        OpenError(message)
    }
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpenError {}
