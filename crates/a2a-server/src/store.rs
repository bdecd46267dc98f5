//! Where the reference server keeps its tasks and push configs: `--store` and `--data-dir`.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use a2a_core::store::compact::CompactTaskStore;
use a2a_core::store::memory::InMemoryPushConfigStore;
use a2a_core::store::{PushConfigStore, TaskStore};
use a2a_store_sql::{Durability, OpenError, PostgresStore, SqliteStore};

/// The SQLite file's name inside the data directory.
pub const SQLITE_FILE: &str = "a2a.sqlite3";

/// A store as an operator names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// `memory`: in this process only; everything is lost when it exits.
    Memory,
    /// `sqlite` (the file [`SQLITE_FILE`] in the data directory) or `sqlite:PATH`.
    Sqlite(Option<PathBuf>),
    /// `postgres://...` or `postgresql://...`: a database that must exist.
    Postgres(String),
}

impl FromStr for StoreChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "memory" => Ok(StoreChoice::Memory),
            "sqlite" => Ok(StoreChoice::Sqlite(None)),
            _ if s.starts_with("postgres://") || s.starts_with("postgresql://") => {
                Ok(StoreChoice::Postgres(s.into()))
            }
            _ => match s.strip_prefix("sqlite:") {
                Some(path) if !path.is_empty() => Ok(StoreChoice::Sqlite(Some(path.into()))),
                _ => Err(format!(
                    "{s:?} is not a store: use memory, sqlite, sqlite:PATH or postgres://USER@HOST/DB"
                )),
            },
        }
    }
}

/// The opened stores and what to tell the operator about them.
#[derive(Clone)]
pub struct Stores {
    /// Tasks.
    pub tasks: Arc<dyn TaskStore>,
    /// Push notification configs.
    pub push_configs: Arc<dyn PushConfigStore>,
    /// Where the data is, for the startup log (never a password).
    pub description: String,
    /// On PostgreSQL: the lock that says this server is the database's only one; keep it for the
    /// server's life.
    pub lock: Option<Arc<a2a_store_sql::ServerLock>>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores").field("description", &self.description).finish_non_exhaustive()
    }
}

impl StoreChoice {
    /// Opens the store; a SQLite store without a path lives in `data_dir` (created if missing)
    /// and commits with `durability`.
    pub async fn open(&self, data_dir: &Path, durability: Durability) -> Result<Stores, OpenError> {
        Ok(match self {
            StoreChoice::Memory => Stores {
                tasks: Arc::new(CompactTaskStore::new()),
                push_configs: Arc::new(InMemoryPushConfigStore::new()),
                description: "memory (lost when the server exits)".into(),
                lock: None,
            },
            StoreChoice::Sqlite(path) => {
                let path = path.clone().unwrap_or_else(|| data_dir.join(SQLITE_FILE));
                let store = Arc::new(SqliteStore::open_with(&path, durability)?);
                Stores {
                    tasks: store.clone(),
                    push_configs: store,
                    description: format!("SQLite file {} (durable against: {durability:?})", path.display()),
                    // The store's lock file does this job for SQLite.
                    lock: None,
                }
            }
            StoreChoice::Postgres(url) => {
                let store = Arc::new(PostgresStore::connect(url).await?);
                let lock = Some(Arc::new(store.lock_single_server().await?));
                Stores {
                    description: store.database().to_owned(),
                    tasks: store.clone(),
                    push_configs: store,
                    lock,
                }
            }
        })
    }
}

/// Parses `--sqlite-durability`: `process` or `power-loss`.
pub fn parse_durability(value: &str) -> Result<Durability, String> {
    match value {
        "process" => Ok(Durability::Process),
        "power-loss" => Ok(Durability::PowerLoss),
        _ => Err(format!("{value:?}: use process or power-loss")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_second_server_on_one_postgres_database_is_refused_until_the_first_is_gone() {
        let db = a2a_store_sql::testing::TestDatabase::create("one_server").await;
        let choice = StoreChoice::Postgres(db.url().to_owned());
        let dir = std::path::Path::new(".");
        let first = choice.open(dir, Durability::Process).await.unwrap();
        let error = choice.open(dir, Durability::Process).await.unwrap_err().to_string();
        assert!(error.contains("another server is serving this database"), "{error}");
        drop(first);
        // The lock's connection closes asynchronously: the next start succeeds shortly after.
        let mut again = choice.open(dir, Durability::Process).await;
        for _ in 0..50 {
            if again.is_ok() {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            again = choice.open(dir, Durability::Process).await;
        }
        again.unwrap();
    }

    #[test]
    fn choices_parse_as_the_docs_say() {
        assert_eq!("memory".parse(), Ok(StoreChoice::Memory));
        assert_eq!("sqlite".parse(), Ok(StoreChoice::Sqlite(None)));
        assert_eq!("sqlite:/var/a2a/t.db".parse(), Ok(StoreChoice::Sqlite(Some("/var/a2a/t.db".into()))));
        assert_eq!(
            "postgres://u@h/db".parse::<StoreChoice>(),
            Ok(StoreChoice::Postgres("postgres://u@h/db".into()))
        );
        for bad in ["", "sqlite:", "mysql://x", "Memory"] {
            let error = bad.parse::<StoreChoice>().unwrap_err();
            assert!(error.contains("is not a store"), "{bad}: {error}");
        }
    }
}
