//! Test support (feature `testing`): a PostgreSQL database of its own for each test.
//!
//! The server is the machine's PostgreSQL, reached through `A2A_TEST_POSTGRES` (default
//! `postgres://postgres@127.0.0.1:5432/test`, trust auth). A test that cannot reach it fails with
//! a message that says so: it never skips.

use std::time::Duration;

use a2a_core::error::error_chain;

/// The administrative connection tests create their databases through.
pub fn admin_url() -> String {
    std::env::var("A2A_TEST_POSTGRES").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

/// A fresh, empty database, dropped (with its connections) when this value is dropped.
#[derive(Debug)]
pub struct TestDatabase {
    name: String,
    url: String,
}

async fn admin() -> tokio_postgres::Client {
    let url = admin_url();
    let mut config: tokio_postgres::Config = url.parse().expect("A2A_TEST_POSTGRES is a PostgreSQL URL");
    config.connect_timeout(Duration::from_secs(5));
    let (client, connection) = config.connect(tokio_postgres::NoTls).await.unwrap_or_else(|e| {
        panic!(
            "PostgreSQL is required by this test and is not reachable at {url} ({}); start it \
             (`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`) or set A2A_TEST_POSTGRES",
            error_chain(&e)
        )
    });
    tokio::spawn(connection);
    client
}

impl TestDatabase {
    /// Creates a database named after `label` and a random suffix.
    pub async fn create(label: &str) -> TestDatabase {
        let name =
            format!("a2a_{label}_{}", a2a_proto::new_id().replace('-', "")[..12].to_owned()).to_lowercase();
        admin()
            .await
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap_or_else(|e| panic!("cannot create the test database {name}: {}", error_chain(&e)));
        // The admin URL names a database (`.../test`): the test's URL names this one instead.
        let base = admin_url();
        let (path, query) = base.split_once('?').map_or((base.as_str(), ""), |(p, q)| (p, q));
        let server = path.rsplit_once('/').map_or(path, |(server, _)| server);
        let url =
            if query.is_empty() { format!("{server}/{name}") } else { format!("{server}/{name}?{query}") };
        TestDatabase { name, url }
    }

    /// The database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let name = self.name.clone();
        // Drop may run inside a runtime: drop the database from a thread with a runtime of its own.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().ok()?;
            runtime.block_on(async {
                admin()
                    .await
                    .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .await
                    .ok()
            })
        })
        .join();
        if !matches!(dropped, Ok(Some(()))) {
            eprintln!("warning: the test database {} was not dropped", self.name);
        }
    }
}
