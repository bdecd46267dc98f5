//! Both engines keep the store contract (`a2a_core::store::testing`), survive a reopen, and refuse
//! databases that are not theirs, in use, or newer, without touching them.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use a2a_core::push::testing::{claims_are_exclusive, outbox_suite};
use a2a_core::push::PushOutbox;

use a2a_core::lifecycle::apply_mutation;
use a2a_core::store::testing::{push_config_store_suite, task, task_store_suite};
use a2a_core::store::{Burst, Scope, TaskMutation, TaskQuery, TaskStore, TaskView};
use a2a_proto::v1::{part, Artifact, Message, Part, Role, Task, TaskState, TaskStatus};
use a2a_store_sql::testing::TestDatabase;
use a2a_store_sql::{PostgresStore, SqliteStore};
use prost::Message as _;

fn scope() -> Scope {
    Scope { tenant: "t".into(), owner: None }
}

fn completed() -> TaskStatus {
    TaskStatus { state: TaskState::Completed as i32, ..Default::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_keeps_the_contract() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("a2a.sqlite3")).unwrap();
    task_store_suite(&store).await;
    push_config_store_suite(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keeps_the_contract() {
    let db = TestDatabase::create("contract").await;
    let store = PostgresStore::connect(db.url()).await.unwrap();
    task_store_suite(&store).await;
    push_config_store_suite(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_keeps_the_outbox_contract() {
    let dir = tempfile::tempdir().unwrap();
    let n = std::sync::atomic::AtomicUsize::new(0);
    outbox_suite(|| {
        let path = dir.path().join(format!("outbox-{}.sqlite3", n.fetch_add(1, Ordering::Relaxed)));
        async move { Arc::new(SqliteStore::open(path).unwrap()) as Arc<dyn PushOutbox> }
    })
    .await;
    let shared = Arc::new(SqliteStore::open(dir.path().join("shared.sqlite3")).unwrap());
    claims_are_exclusive(shared.clone(), shared).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_keeps_the_outbox_contract_and_replicas_never_claim_the_same_notification() {
    let mut databases = Vec::new();
    for _ in 0..4 {
        databases.push(TestDatabase::create("outbox").await);
    }
    let urls: std::sync::Mutex<Vec<String>> =
        std::sync::Mutex::new(databases.iter().map(|d| d.url().to_owned()).collect());
    outbox_suite(|| {
        let url = urls.lock().unwrap().pop().expect("one database per check");
        async move { Arc::new(PostgresStore::connect(&url).await.unwrap()) as Arc<dyn PushOutbox> }
    })
    .await;
    let db = TestDatabase::create("outbox_shared").await;
    let (a, b) = tokio::join!(PostgresStore::connect(db.url()), PostgresStore::connect(db.url()));
    claims_are_exclusive(Arc::new(a.unwrap()), Arc::new(b.unwrap())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_keeps_every_write_across_a_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/dir/a2a.sqlite3");
    let store = SqliteStore::open(&path).unwrap();
    store.create(&scope(), &task("a", "c", TaskState::Working, 5)).await.unwrap();
    assert_eq!(store.apply("a", TaskMutation::Status(&completed())).await.unwrap(), 2);
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    let stored = store.get(&scope(), "a", TaskView::FULL).await.unwrap().expect("the task survived");
    assert_eq!((stored.task.state(), stored.seq), (TaskState::Completed, 2));
}

#[tokio::test]
async fn sqlite_refuses_a_file_another_store_holds() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a2a.sqlite3");
    let _first = SqliteStore::open(&path).unwrap();
    let error = SqliteStore::open(&path).unwrap_err().to_string();
    assert!(error.contains("in use by another process"), "{error}");
}

#[tokio::test]
async fn sqlite_refuses_what_is_not_its_database_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();

    let garbage = dir.path().join("garbage");
    std::fs::write(&garbage, b"this is somebody's notes, not a database").unwrap();
    let error = SqliteStore::open(&garbage).unwrap_err().to_string();
    assert!(error.contains("is not a SQLite database"), "{error}");
    assert_eq!(std::fs::read(&garbage).unwrap(), b"this is somebody's notes, not a database");

    let foreign = dir.path().join("foreign.sqlite3");
    rusqlite::Connection::open(&foreign).unwrap().execute_batch("CREATE TABLE notes (body TEXT)").unwrap();
    let error = SqliteStore::open(&foreign).unwrap_err().to_string();
    assert!(error.contains("another application"), "{error}");

    let newer = dir.path().join("newer.sqlite3");
    drop(SqliteStore::open(&newer).unwrap());
    rusqlite::Connection::open(&newer).unwrap().execute_batch("PRAGMA user_version = 99").unwrap();
    let error = SqliteStore::open(&newer).unwrap_err().to_string();
    assert!(error.contains("newer version"), "{error}");

    // A database whose pages are damaged after the header: refused at open, or every later
    // read fails cleanly; never reset.
    let damaged = dir.path().join("damaged.sqlite3");
    drop(SqliteStore::open(&damaged).unwrap());
    let mut bytes = std::fs::read(&damaged).unwrap();
    for byte in bytes.iter_mut().skip(100) {
        *byte = 0xA5;
    }
    std::fs::write(&damaged, &bytes).unwrap();
    let error = SqliteStore::open(&damaged).unwrap_err().to_string();
    assert!(error.contains("refusing to touch it"), "{error}");
    assert_eq!(std::fs::read(&damaged).unwrap(), bytes, "the damaged file is left as it was");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_replicas_on_one_database_have_one_winner() {
    let db = TestDatabase::create("replicas").await;
    let (a, b) = tokio::join!(PostgresStore::connect(db.url()), PostgresStore::connect(db.url()));
    let (a, b) = (Arc::new(a.unwrap()), Arc::new(b.unwrap()));
    for i in 0..20 {
        let id = format!("race-{i}");
        a.create(&scope(), &task(&id, "c", TaskState::Working, 1)).await.unwrap();
        let canceled = TaskStatus { state: TaskState::Canceled as i32, ..Default::default() };
        let done = completed();
        let (x, y) = tokio::join!(
            a.apply(&id, TaskMutation::Status(&done)),
            b.apply(&id, TaskMutation::Status(&canceled))
        );
        assert!(x.is_ok() != y.is_ok(), "exactly one replica's terminal update wins: {x:?} {y:?}");
        let seen_by_b = b.get(&scope(), &id, TaskView::FULL).await.unwrap().unwrap();
        let winner = if x.is_ok() { TaskState::Completed } else { TaskState::Canceled };
        assert_eq!((seen_by_b.task.state(), seen_by_b.seq), (winner, 2));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_refuses_a_database_it_did_not_create() {
    let db = TestDatabase::create("foreign").await;
    let (client, connection) = tokio_postgres::connect(db.url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.batch_execute("CREATE TABLE a2a_tasks (anything TEXT)").await.unwrap();
    let error = PostgresStore::connect(db.url()).await.unwrap_err().to_string();
    assert!(error.contains("did not create"), "{error}");
}

#[tokio::test]
async fn postgres_that_is_down_fails_within_the_connect_timeout() {
    // A loopback port nothing listens on (bound, then freed): the connect fails at once, clearly.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let started = std::time::Instant::now();
    let url = format!("postgres://postgres@127.0.0.1:{port}/none");
    let error = PostgresStore::connect(&url).await.unwrap_err().to_string();
    assert!(error.contains("no connection"), "{error}");
    assert!(started.elapsed() < a2a_store_sql::postgres::CONNECT_TIMEOUT * 3, "{:?}", started.elapsed());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_that_is_stuck_fails_a_write_at_the_statement_timeout_then_recovers() {
    let db = TestDatabase::create("stuck").await;
    // The URL's own statement_timeout (500 ms) replaces the store's default of 10 s.
    let url = format!("{}?options=-c%20statement_timeout%3D500", db.url());
    let store = PostgresStore::connect(&url).await.unwrap();
    store.create(&scope(), &task("held", "c", TaskState::Working, 1)).await.unwrap();

    // Another session holds the task's row: the database is "stuck" for this write.
    let (other, connection) = tokio_postgres::connect(db.url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    other.batch_execute("BEGIN; SELECT 1 FROM a2a_tasks WHERE id = 'held' FOR UPDATE").await.unwrap();
    let started = std::time::Instant::now();
    let error = store.apply("held", TaskMutation::Status(&completed())).await.unwrap_err();
    assert!(matches!(error, a2a_core::Error::Internal { .. }), "{error:?}");
    assert!(error.to_string().contains("statement timeout"), "{error}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());

    other.batch_execute("ROLLBACK").await.unwrap();
    assert_eq!(
        store.apply("held", TaskMutation::Status(&completed())).await.unwrap(),
        2,
        "works again at once"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_replicas_keep_the_cluster_contract() {
    use a2a_core::cluster::Cluster;
    use a2a_store_sql::ClusterOptions;
    let db = TestDatabase::create("cluster").await;
    let store = PostgresStore::connect(db.url()).await.unwrap();
    let ttl = std::time::Duration::from_millis(900);
    let options = ClusterOptions { ttl, ..ClusterOptions::default() };
    let shared: Arc<dyn TaskStore> = Arc::new(store.clone());
    a2a_core::cluster::testing::cluster_suite(shared, ttl, || {
        let store = store.clone();
        async move { Arc::new(store.cluster(options).await.unwrap()) as Arc<dyn Cluster> }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_replica_whose_listening_connection_dies_reconnects_and_says_notes_may_be_lost() {
    use a2a_core::cluster::{Cluster, Note};
    use a2a_store_sql::ClusterOptions;
    use std::time::Duration;
    let db = TestDatabase::create("relisten").await;
    let store = PostgresStore::connect(db.url()).await.unwrap();
    let (a, b) = (
        store.cluster(ClusterOptions::default()).await.unwrap(),
        store.cluster(ClusterOptions::default()).await.unwrap(),
    );
    let mut notes = b.notes();

    // The database ends both replicas' listening connections (as a restart or a failover would).
    let (admin, connection) = tokio_postgres::connect(db.url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    let ended = admin
        .query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
            &[],
        )
        .await
        .unwrap();
    assert_eq!(ended.len(), 2, "each replica listens on a connection of its own");

    tokio::time::timeout(Duration::from_secs(10), async {
        while notes.recv().await.unwrap() != Note::Lost {}
    })
    .await
    .expect("B says notes may have been lost once it has reconnected");
    // Notes flow again: a cancel request from A reaches B (sent until heard: B may still be
    // re-subscribing when the first one goes).
    let wanted = Note::Cancel { task_id: "after-reconnect".into() };
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            a.request_cancel("after-reconnect").await.unwrap();
            if let Ok(Ok(note)) = tokio::time::timeout(Duration::from_millis(200), notes.recv()).await {
                if note == wanted {
                    return;
                }
            }
        }
    })
    .await
    .expect("notes reach B again after it reconnected");
}

/// A value of a row written in an earlier schema.
enum Old {
    Int(i64),
    Text(&'static str),
    Blob(Vec<u8>),
}

/// The task [`rows_before_entries`] writes, as the store must read it back: two history
/// messages, a status message, two artifacts (one of two parts).
fn written_before_entries() -> Task {
    let text = |t: &str| Part { content: Some(part::Content::Text(t.into())), ..Default::default() };
    let message = |id: &str, t: &str| Message {
        message_id: id.into(),
        role: Role::User as i32,
        parts: vec![text(t)],
        ..Default::default()
    };
    let artifact =
        |id: &str, parts: Vec<Part>| Artifact { artifact_id: id.into(), parts, ..Default::default() };
    Task {
        history: vec![message("m1", "first"), message("m2", "second")],
        artifacts: vec![artifact("a1", vec![text("a1.0"), text("a1.1")]), artifact("a2", vec![text("a2.0")])],
        status: Some(TaskStatus {
            message: Some(message("m3", "working on it")),
            ..task("old", "c", TaskState::Working, 7).status.unwrap()
        }),
        ..task("old", "c", TaskState::Working, 7)
    }
}

/// Alice's task among the old rows: no history, no artifacts.
fn alices_task() -> Task {
    task("alices", "c", TaskState::Completed, 5)
}

fn alice() -> Scope {
    Scope { tenant: "t".into(), owner: Some("alice".into()) }
}

/// The rows of [`written_before_entries`] (and of [`alices_task`]) in the layout before `a2a_entries` (SQLite schema 2,
/// PostgreSQL schema 3): history and parts in tables of their own, artifacts keyed by position.
fn rows_before_entries() -> Vec<(&'static str, Vec<Old>)> {
    let task = written_before_entries();
    let mut rows = vec![
        (
            "INSERT INTO a2a_tasks (id, tenant, owner, context_id, state, updated_ms, seq, status, metadata, \
             history_len, artifacts_len) VALUES ($1, $2, '', $3, $4, $5, 3, $6, NULL, 2, 2)",
            vec![
                Old::Text("old"),
                Old::Text("t"),
                Old::Text("c"),
                Old::Int(TaskState::Working as i64),
                Old::Int(7),
                Old::Blob(task.status.as_ref().unwrap().encode_to_vec()),
            ],
        ),
        (
            "INSERT INTO a2a_task_counts (tenant, owner, state, shard, n) VALUES ('t', '', $1, 0, 1)",
            vec![Old::Int(TaskState::Working as i64)],
        ),
        // A task of a principal's: its owner key ('=alice') is kept as it was.
        (
            "INSERT INTO a2a_tasks (id, tenant, owner, context_id, state, updated_ms, seq, status, metadata, \
             history_len, artifacts_len) VALUES ('alices', 't', '=alice', 'c', $1, 5, 1, $2, NULL, 0, 0)",
            vec![Old::Int(TaskState::Completed as i64), Old::Blob(alices_task().status.unwrap().encode_to_vec())],
        ),
        (
            "INSERT INTO a2a_task_counts (tenant, owner, state, shard, n) VALUES ('t', '=alice', $1, 0, 1)",
            vec![Old::Int(TaskState::Completed as i64)],
        ),
    ];
    for (n, message) in task.history.iter().enumerate() {
        rows.push((
            "INSERT INTO a2a_history (task_id, n, message) VALUES ('old', $1, $2)",
            vec![Old::Int(n as i64), Old::Blob(message.encode_to_vec())],
        ));
    }
    for (n, artifact) in task.artifacts.iter().enumerate() {
        let head = Artifact { parts: Vec::new(), ..artifact.clone() };
        rows.push((
            "INSERT INTO a2a_artifacts (task_id, n, artifact_id, head, parts_len) VALUES ('old', $1, $2, $3, $4)",
            vec![
                Old::Int(n as i64),
                Old::Text(if n == 0 { "a1" } else { "a2" }),
                Old::Blob(head.encode_to_vec()),
                Old::Int(artifact.parts.len() as i64),
            ],
        ));
        for (i, part) in artifact.parts.iter().enumerate() {
            rows.push((
                "INSERT INTO a2a_parts (task_id, artifact_n, n, part) VALUES ('old', $1, $2, $3)",
                vec![Old::Int(n as i64), Old::Int(i as i64), Old::Blob(part.encode_to_vec())],
            ));
        }
    }
    rows
}

/// After the migration: the task reads as it was written, counts as it did, and takes appends,
/// replacements and new history where the store writes them now.
async fn reads_and_writes_what_was_written_before_entries(store: &dyn TaskStore) {
    let mut expected = written_before_entries();
    let stored = store.get(&scope(), "old", TaskView::FULL).await.unwrap().expect("the task was migrated");
    assert_eq!((&stored.task, stored.seq), (&expected, 3));
    let last = store
        .get(&scope(), "old", TaskView { history_length: Some(1), include_artifacts: false })
        .await
        .unwrap()
        .unwrap();
    assert_eq!((last.task.history.len(), last.task.history[0].message_id.as_str()), (1, "m2"));
    let everything = TaskQuery {
        context_id: None,
        state: None,
        updated_at_or_after_ms: None,
        page_size: 10,
        after: None,
        view: TaskView::FULL,
    };
    let page = store.list(&scope(), &everything).await.unwrap();
    assert_eq!((page.tasks.len(), page.total_size), (1, 1));
    // The scope keys were rewritten (schema 4 on SQLite, 5 on PostgreSQL): Alice sees her task and
    // the one without an owner, counted from the migrated counters; a caller without a principal
    // does not see hers.
    let page = store.list(&alice(), &everything).await.unwrap();
    let ids: Vec<&str> = page.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!((ids, page.total_size), (vec!["old", "alices"], 2));
    let only_completed = TaskQuery { state: Some(TaskState::Completed), ..everything.clone() };
    assert_eq!(store.list(&alice(), &only_completed).await.unwrap().total_size, 1);
    assert!(store.get(&scope(), "alices", TaskView::FULL).await.unwrap().is_none());
    let hers =
        store.get(&alice(), "alices", TaskView::FULL).await.unwrap().expect("Alice's task was migrated");
    assert_eq!(hers.task, alices_task());

    let chunk = Artifact {
        artifact_id: "a1".into(),
        parts: expected.artifacts[1].parts.clone(),
        ..Default::default()
    };
    let replaced = Artifact {
        artifact_id: "a2".into(),
        name: "renamed".into(),
        parts: expected.artifacts[0].parts.clone(),
        ..Default::default()
    };
    let new = Artifact {
        artifact_id: "a3".into(),
        parts: expected.artifacts[0].parts.clone(),
        ..Default::default()
    };
    let done = completed();
    let changes = [
        TaskMutation::Artifact { artifact: &chunk, append: true },
        TaskMutation::Artifact { artifact: &replaced, append: false },
        TaskMutation::Artifact { artifact: &new, append: true },
        TaskMutation::Status(&done),
    ];
    assert_eq!(store.apply_burst(&scope(), "old", Burst::new(&changes)).await.unwrap(), 7);
    for change in changes {
        apply_mutation(&mut expected, change);
    }
    let stored = store.get(&scope(), "old", TaskView::FULL).await.unwrap().unwrap();
    assert_eq!(stored.task, expected);
    assert_eq!(expected.history.len(), 3, "the status message went into the history");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_migrates_a_file_written_before_entries() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a2a.sqlite3");
    {
        let db = rusqlite::Connection::open(&path).unwrap();
        db.execute_batch(include_str!("../src/sqlite_v1.sql")).unwrap();
        db.execute_batch(include_str!("../src/sqlite_v2.sql")).unwrap();
        db.execute_batch("PRAGMA application_id = 1093812595; PRAGMA user_version = 2").unwrap();
        for (sql, values) in rows_before_entries() {
            let values: Vec<rusqlite::types::Value> = values
                .into_iter()
                .map(|v| match v {
                    Old::Int(v) => v.into(),
                    Old::Text(v) => v.to_owned().into(),
                    Old::Blob(v) => v.into(),
                })
                .collect();
            db.execute(&sql.replace('$', "?"), rusqlite::params_from_iter(values)).unwrap();
        }
    }
    let store = SqliteStore::open(&path).unwrap();
    reads_and_writes_what_was_written_before_entries(&store).await;
    drop(store);
    let version: i64 = rusqlite::Connection::open(&path)
        .unwrap()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, 4, "schema 3 (entries) and 4 (scope keys never empty) ran");
}

#[tokio::test]
async fn postgres_migrates_a_database_written_before_entries() {
    let db = TestDatabase::create("before_entries").await;
    let (client, connection) = tokio_postgres::connect(db.url(), tokio_postgres::NoTls).await.unwrap();
    tokio::spawn(connection);
    client.batch_execute(include_str!("../src/postgres_v1.sql")).await.unwrap();
    client.batch_execute(include_str!("../src/postgres_v2.sql")).await.unwrap();
    client.batch_execute(include_str!("../src/postgres_v3.sql")).await.unwrap();
    client
        .batch_execute("CREATE TABLE a2a_schema (version BIGINT NOT NULL); INSERT INTO a2a_schema VALUES (3)")
        .await
        .unwrap();
    for (sql, values) in rows_before_entries() {
        let values: Vec<Box<dyn tokio_postgres::types::ToSql + Sync>> = values
            .into_iter()
            .map(|v| -> Box<dyn tokio_postgres::types::ToSql + Sync> {
                match v {
                    Old::Int(v) => Box::new(v),
                    Old::Text(v) => Box::new(v),
                    Old::Blob(v) => Box::new(v),
                }
            })
            .collect();
        let params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = values.iter().map(|v| &**v).collect();
        client.execute(sql, &params).await.unwrap();
    }
    let store = PostgresStore::connect(db.url()).await.unwrap();
    reads_and_writes_what_was_written_before_entries(&store).await;
    let version: i64 = client.query_one("SELECT version FROM a2a_schema", &[]).await.unwrap().get(0);
    assert_eq!(version, 5, "schema 4 (entries) and 5 (scope keys never empty) ran");
}
