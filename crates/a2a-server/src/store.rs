//! Where the reference server keeps its tasks and push configs: `--store` and `--data-dir`.

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use a2a_core::cluster::Cluster;
use a2a_core::store::memory::InMemoryPushConfigStore;
use a2a_core::store::memory::InMemoryTaskStore;
use a2a_core::store::{PushConfigStore, TaskStore};
use a2a_store_sql::{ClusterOptions, Durability, OpenError, PostgresStore, SqliteStore};

/// The SQLite file's name inside the data directory.
pub const SQLITE_FILE: &str = "a2a.sqlite3";

/// A store as an operator names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreChoice {
    /// `memory`: in this process only; everything is lost when it exits.
    Memory,
    /// `sqlite` (the file [`SQLITE_FILE`] in the data directory) or `sqlite:PATH`.
    Sqlite(Option<PathBuf>),
    /// `postgres://...` or `postgresql://...`: a database that must exist, shared by any number
    /// of replicas (each one joins its cluster).
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
    /// On PostgreSQL: this server's membership of the replicas sharing the database
    /// (`ServerBuilder::cluster`).
    pub cluster: Option<Arc<dyn Cluster>>,
}

impl std::fmt::Debug for Stores {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stores").field("description", &self.description).finish_non_exhaustive()
    }
}

impl StoreChoice {
    /// Opens the store; a SQLite store without a path lives in `data_dir` (created if missing)
    /// and commits with `durability`. On PostgreSQL the server joins the database's replicas
    /// with `cluster` (call this inside a Tokio runtime).
    pub async fn open(
        &self,
        data_dir: &Path,
        durability: Durability,
        cluster: ClusterOptions,
    ) -> Result<Stores, OpenError> {
        Ok(match self {
            StoreChoice::Memory => Stores {
                tasks: Arc::new(InMemoryTaskStore::new()),
                push_configs: Arc::new(InMemoryPushConfigStore::new()),
                description: "memory (lost when the server exits)".into(),
                cluster: None,
            },
            StoreChoice::Sqlite(path) => {
                let path = path.clone().unwrap_or_else(|| data_dir.join(SQLITE_FILE));
                let store = Arc::new(SqliteStore::open_with(&path, durability)?);
                Stores {
                    tasks: store.clone(),
                    push_configs: store,
                    description: format!("SQLite file {} (durable against: {durability:?})", path.display()),
                    // One process per file (the store's lock file): no replicas.
                    cluster: None,
                }
            }
            StoreChoice::Postgres(url) => {
                let store = Arc::new(PostgresStore::connect(url).await?);
                let replica: Arc<dyn Cluster> = Arc::new(store.cluster(cluster).await?);
                Stores {
                    description: format!("{} (replica {})", store.database(), replica.replica_id()),
                    tasks: store.clone(),
                    push_configs: store,
                    cluster: Some(replica),
                }
            }
        })
    }
}

/// Parses a duration in seconds (`10`, `2.5`): `--replica-ttl`.
pub fn parse_seconds(value: &str) -> Result<std::time::Duration, String> {
    value
        .parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0)
        .map(std::time::Duration::from_secs_f64)
        .ok_or_else(|| format!("{value:?}: a number of seconds, more than 0 and at most 86400"))
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
