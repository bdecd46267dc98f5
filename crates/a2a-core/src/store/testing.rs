//! The store contract as a test suite (feature `testing`): every backend runs it, and so should any
//! store you write.
//!
//! ```ignore
//! #[tokio::test]
//! async fn my_store_keeps_the_contract() {
//!     let store = MyStore::connect(..).await;
//!     a2a_core::store::testing::task_store_suite(&store).await;
//!     a2a_core::store::testing::push_config_store_suite(&store).await;
//! }
//! ```
//!
//! Each check works in a tenant of its own with fresh task ids, so the suite can run against a
//! store that already holds data (a shared test database) and its checks cannot see each other.
//! A failed check panics with its name and what differed.

use a2a_proto::v1::{part, Artifact, Message, Part, Task, TaskPushNotificationConfig, TaskState, TaskStatus};
use a2a_proto::Timestamp;
use futures::future::join_all;

use super::{
    Burst, Cursor, PushConfigStore, Scope, StoredTask, TaskMutation, TaskPage, TaskQuery, TaskStore, TaskView,
};
use crate::context::ProtocolVersion;
use crate::error::Error;

/// Runs every task store check, in order.
pub async fn task_store_suite(store: &dyn TaskStore) {
    store.ping().await.expect("a healthy store answers its readiness ping");
    create_and_get_keep_every_field(store).await;
    seq_counts_stream_events_only(store).await;
    apply_checks_the_stored_state(store).await;
    create_and_apply_is_both_or_neither(store).await;
    a_burst_stores_what_one_change_at_a_time_stores(store).await;
    a_burst_of_chunks_stores_what_one_chunk_at_a_time_stores(store).await;
    a_refused_burst_writes_nothing(store).await;
    notifications_are_stored_with_their_burst(store).await;
    artifacts_append_and_replace_by_id(store).await;
    status_messages_move_into_history(store).await;
    views_limit_history_and_omit_artifacts(store).await;
    pages_are_newest_first_and_stable_under_inserts(store).await;
    equal_timestamps_are_ordered_by_id(store).await;
    filters_combine_and_count_every_match(store).await;
    a_status_update_moves_the_task_to_the_front(store).await;
    a_context_s_list_follows_its_tasks_status_updates(store).await;
    deep_pages_by_context_and_state_seek_past_the_cursor(store).await;
    scopes_isolate_tenants_and_owners(store).await;
    running_lists_submitted_and_working_tasks(store).await;
    concurrent_writers_never_lose_a_change(store).await;
    concurrent_terminal_updates_have_one_winner(store).await;
}

/// Runs every push config store check, in order.
pub async fn push_config_store_suite(store: &dyn PushConfigStore) {
    push_configs_keep_every_field(store).await;
    push_configs_are_replaced_in_place_and_deleted_idempotently(store).await;
    push_configs_of_tasks_are_separate(store).await;
}

/// A tenant and id prefix of its own for one check.
struct Check {
    scope: Scope,
    prefix: String,
}

impl Check {
    fn new(name: &str) -> Self {
        let run = a2a_proto::new_id();
        Check { scope: Scope { tenant: format!("{name}-{run}"), owner: None }, prefix: format!("{run}-") }
    }

    fn id(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    fn ids<'a>(&self, page: &'a TaskPage) -> Vec<&'a str> {
        page.tasks.iter().map(|t| t.id.strip_prefix(&self.prefix).unwrap_or(&t.id)).collect()
    }

    fn task(&self, name: &str, context: &str, state: TaskState, ms: i64) -> Task {
        task(&self.id(name), &self.id(context), state, ms)
    }
}

/// A task with a status at `ms` milliseconds since the epoch.
pub fn task(id: &str, context: &str, state: TaskState, ms: i64) -> Task {
    Task {
        id: id.into(),
        context_id: context.into(),
        status: Some(TaskStatus { state: state.into(), message: None, timestamp: Some(at(ms)) }),
        ..Default::default()
    }
}

fn at(ms: i64) -> Timestamp {
    Timestamp { seconds: ms.div_euclid(1000), nanos: (ms.rem_euclid(1000) * 1_000_000) as i32 }
}

fn status(state: TaskState, ms: i64, message: Option<Message>) -> TaskStatus {
    TaskStatus { state: state.into(), message, timestamp: Some(at(ms)) }
}

fn query(page_size: usize) -> TaskQuery {
    TaskQuery {
        context_id: None,
        state: None,
        updated_at_or_after_ms: None,
        page_size,
        after: None,
        view: TaskView::FULL,
    }
}

fn text_artifact(id: &str, text: &str) -> Artifact {
    Artifact { artifact_id: id.into(), parts: vec![Part::text(text)], ..Default::default() }
}

/// A task using every field a store must keep: all part kinds, metadata of every JSON kind (NaN
/// and -0 aside), unicode, extensions, references, an empty artifact and message.
pub fn rich_task(id: &str) -> Task {
    use pbjson_types::{value::Kind, ListValue, Struct, Value};
    let value = |kind| Value { kind: Some(kind) };
    let metadata = Struct {
        fields: [
            ("null".to_owned(), value(Kind::NullValue(0))),
            ("number".to_owned(), value(Kind::NumberValue(-1.5e300))),
            ("text".to_owned(), value(Kind::StringValue("zürich \u{1F600} \"quoted\" \\ \0".into()))),
            ("yes".to_owned(), value(Kind::BoolValue(true))),
            ("no".to_owned(), value(Kind::BoolValue(false))),
            ("empty".to_owned(), Value { kind: None }),
            (
                "nested".to_owned(),
                value(Kind::StructValue(Struct {
                    fields: [(
                        "list".to_owned(),
                        value(Kind::ListValue(ListValue { values: vec![value(Kind::NumberValue(1.0))] })),
                    )]
                    .into(),
                })),
            ),
        ]
        .into(),
    };
    let context = "ctx with spaces and 'quotes'".to_owned();
    let mut message = Message::user(vec![
        Part::text("plain"),
        Part::raw(vec![0, 1, 2, 255], "application/octet-stream").with_filename("f.bin"),
        Part::url("https://example.com/x", "text/plain"),
        Part { content: Some(part::Content::Data(value(Kind::BoolValue(true)))), ..Default::default() },
        Part::default(),
    ])
    .with_task_id(id)
    .with_context_id(&context);
    message.metadata = Some(metadata.clone());
    message.extensions = vec!["https://ext.example/a".into()];
    message.reference_task_ids = vec!["other".into(), id.to_uppercase()];
    let mut status_message = Message::agent_text("working on it");
    status_message.task_id = id.into();
    Task {
        id: id.into(),
        context_id: context,
        status: Some(TaskStatus {
            state: TaskState::Working.into(),
            message: Some(status_message),
            timestamp: Some(Timestamp { seconds: 1_700_000_000, nanos: 123_000_000 }),
        }),
        artifacts: vec![
            Artifact {
                artifact_id: "a1".into(),
                name: "n".into(),
                description: "d".into(),
                parts: vec![Part::text("x")],
                metadata: Some(metadata.clone()),
                extensions: vec!["e".into()],
            },
            Artifact::default(),
        ],
        history: vec![message, Message::agent_text("second"), Message::default()],
        metadata: Some(metadata),
    }
}

async fn get(store: &dyn TaskStore, scope: &Scope, id: &str) -> StoredTask {
    store.get(scope, id, TaskView::FULL).await.expect("get").unwrap_or_else(|| panic!("task {id} not found"))
}

/// `create` stores the task exactly (seq 1); creating the same id again is an error.
pub async fn create_and_get_keep_every_field(store: &dyn TaskStore) {
    let check = Check::new("create");
    let rich = rich_task(&check.id("rich"));
    store.create(&check.scope, &rich).await.expect("create");
    let stored = get(store, &check.scope, &rich.id).await;
    assert_eq!(stored.task, rich, "create/get: the task comes back exactly as created");
    assert_eq!(stored.seq, 1, "create/get: a new task is at event 1");
    assert!(
        store.create(&check.scope, &rich).await.is_err(),
        "create: a second task with the same id is refused"
    );
    assert!(store.get(&check.scope, &check.id("missing"), TaskView::FULL).await.unwrap().is_none());
}

/// Status and artifact updates advance `seq`; a client message does not.
pub async fn seq_counts_stream_events_only(store: &dyn TaskStore) {
    let check = Check::new("seq");
    let id = check.id("t");
    store.create(&check.scope, &check.task("t", "c", TaskState::Submitted, 1000)).await.unwrap();
    let working = status(TaskState::Working, 1001, None);
    assert_eq!(
        store.apply(&id, TaskMutation::Status(&working)).await.unwrap(),
        2,
        "seq: a status update is event 2"
    );
    let chunk = text_artifact("a", "x");
    let seq = store.apply(&id, TaskMutation::Artifact { artifact: &chunk, append: false }).await.unwrap();
    assert_eq!(seq, 3, "seq: an artifact update is an event");
    let message = Message::user_text("more");
    assert_eq!(
        store.apply(&id, TaskMutation::History(&message)).await.unwrap(),
        3,
        "seq: history is not an event"
    );
    assert_eq!(get(store, &check.scope, &id).await.seq, 3, "seq: get returns the seq of the last event");
}

/// `apply` refuses what [`super::check_mutation`] refuses, and writes nothing then.
pub async fn apply_checks_the_stored_state(store: &dyn TaskStore) {
    let check = Check::new("rules");
    let id = check.id("t");
    store.create(&check.scope, &check.task("t", "c", TaskState::Working, 1000)).await.unwrap();
    let done = status(TaskState::Completed, 1001, Some(Message::agent_text("done")));
    store.apply(&id, TaskMutation::Status(&done)).await.unwrap();
    let before = get(store, &check.scope, &id).await;
    let working = status(TaskState::Working, 1002, None);
    let err = store.apply(&id, TaskMutation::Status(&working)).await.unwrap_err();
    assert!(
        matches!(err, Error::InvalidAgentResponse { .. }),
        "rules: a terminal task stays terminal: {err}"
    );
    let chunk = text_artifact("a", "late");
    let err = store.apply(&id, TaskMutation::Artifact { artifact: &chunk, append: false }).await.unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "rules: no artifact after the end: {err}");
    let message = Message::user_text("too late");
    let err = store.apply(&id, TaskMutation::History(&message)).await.unwrap_err();
    assert!(matches!(err, Error::UnsupportedOperation { .. }), "rules: no message after the end: {err}");
    assert_eq!(get(store, &check.scope, &id).await, before, "rules: a refused change writes nothing");
    let err = store.apply(&check.id("missing"), TaskMutation::Status(&working)).await.unwrap_err();
    assert!(matches!(err, Error::TaskNotFound { .. }), "rules: an unknown task is TaskNotFound: {err}");
}

/// `create_and_apply` stores the task and its first change as events 1 and 2, or, when the
/// change is refused, nothing at all.
pub async fn create_and_apply_is_both_or_neither(store: &dyn TaskStore) {
    let check = Check::new("create-apply");
    let id = check.id("t");
    let task = check.task("t", "c", TaskState::Submitted, 1000);
    let working = status(TaskState::Working, 1001, Some(Message::agent_text("on it")));
    assert_eq!(store.create_and_apply(&check.scope, &task, TaskMutation::Status(&working)).await.unwrap(), 2);
    let stored = get(store, &check.scope, &id).await;
    assert_eq!((stored.seq, stored.task.state()), (2, TaskState::Working), "create-apply: both written");
    assert_eq!(stored.task.history, task.history, "create-apply: the task's own history is kept");
    let listed = store.list(&check.scope, &query(10)).await.unwrap();
    assert_eq!(listed.total_size, 1, "create-apply: counted once, in its new state");

    let refused = check.task("refused", "c", TaskState::Submitted, 1000);
    let back = status(TaskState::Unspecified, 1001, None);
    let err = store.create_and_apply(&check.scope, &refused, TaskMutation::Status(&back)).await.unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "create-apply: refused: {err}");
    let missing = store.get(&check.scope, &check.id("refused"), TaskView::FULL).await.unwrap();
    assert_eq!(missing, None, "create-apply: a refused change writes nothing, not even the task");
}

/// A burst of changes: the task a new one's first events make, and the later events of
/// another, each applied one at a time.
fn burst<'a>(
    artifacts: &'a [Artifact],
    statuses: &'a [TaskStatus],
    message: &'a Message,
) -> Vec<TaskMutation<'a>> {
    vec![
        TaskMutation::Status(&statuses[0]),
        TaskMutation::Artifact { artifact: &artifacts[0], append: false },
        TaskMutation::Artifact { artifact: &artifacts[1], append: true },
        TaskMutation::Status(&statuses[1]),
        TaskMutation::History(message),
        TaskMutation::Artifact { artifact: &artifacts[2], append: false },
        TaskMutation::Status(&statuses[2]),
    ]
}

/// Runs of appends to one artifact in a burst (a streamed artifact's chunks, which a store may
/// write as one) store what one append at a time stores: the parts in order, the head's name,
/// description, metadata and extensions merged chunk by chunk, the `seq` counting every chunk;
/// including a run that starts by creating its artifact, runs broken by another artifact or by
/// a replacement, and a run on an artifact stored before the burst.
pub async fn a_burst_of_chunks_stores_what_one_chunk_at_a_time_stores(store: &dyn TaskStore) {
    let check = Check::new("chunks");
    let chunk = |id: &str, text: &str, name: &str, extension: Option<&str>| {
        let mut artifact = text_artifact(id, text);
        artifact.name = name.into();
        artifact.extensions = extension.map(|uri| vec![uri.to_owned()]).unwrap_or_default();
        artifact
    };
    let mut described = chunk("s", "3", "", Some("urn:b"));
    described.description = "three".into();
    described.metadata = Some(pbjson_types::Struct {
        fields: [("k".to_owned(), pbjson_types::Value::from("v".to_owned()))].into(),
    });
    described.parts.push(Part::text("3b"));
    let chunks = [
        chunk("s", "1", "stream", Some("urn:a")),
        chunk("s", "2", "", Some("urn:a")),
        described,
        chunk("s", "4", "renamed", None),
        chunk("t", "x", "other", None),
        chunk("t", "y", "", None),
        chunk("s", "5", "", Some("urn:c")),
        chunk("t", "replaced", "", None),
        chunk("t", "z", "", None),
    ];
    let before = [chunk("u", "0", "earlier", None)];
    let working = status(TaskState::Working, 1001, None);
    let done = status(TaskState::Completed, 1002, None);
    let mut changes = vec![TaskMutation::Status(&working)];
    for (i, artifact) in chunks.iter().enumerate() {
        // The eighth replaces `t`; every other one appends (the first creates `s`, the fifth `t`).
        changes.push(TaskMutation::Artifact { artifact, append: i != 7 });
    }
    let later = chunk("u", "1", "", None);
    changes.push(TaskMutation::Artifact { artifact: &later, append: true });
    changes.push(TaskMutation::Artifact { artifact: &later, append: true });
    changes.push(TaskMutation::Status(&done));

    let new = |name: &str| check.task(name, "c", TaskState::Submitted, 1000);
    let one_by_one = new("one-by-one");
    store.create(&check.scope, &one_by_one).await.unwrap();
    let mut seq = store
        .apply(&one_by_one.id, TaskMutation::Artifact { artifact: &before[0], append: false })
        .await
        .unwrap();
    for change in &changes {
        seq = store.apply(&one_by_one.id, *change).await.unwrap();
    }
    let expected = get(store, &check.scope, &one_by_one.id).await;
    assert_eq!(expected.seq, seq);
    let parts: Vec<usize> = expected.task.artifacts.iter().map(|a| a.parts.len()).collect();
    assert_eq!(parts, [3, 6, 2], "chunks: u, s and t, each with every part appended");

    let burst = new("burst");
    store.create(&check.scope, &burst).await.unwrap();
    store.apply(&burst.id, TaskMutation::Artifact { artifact: &before[0], append: false }).await.unwrap();
    let seq = store.apply_burst(&check.scope, &burst.id, Burst::new(&changes)).await.unwrap();
    assert_eq!(seq, expected.seq, "chunks: apply_burst counts every chunk");
    assert_stored_as(store, &check.scope, &burst.id, &expected, "chunks: apply_burst").await;

    // The same chunks in bursts of two: every run is cut somewhere else.
    let pairs = new("pairs");
    store.create(&check.scope, &pairs).await.unwrap();
    store.apply(&pairs.id, TaskMutation::Artifact { artifact: &before[0], append: false }).await.unwrap();
    let mut seq = 0;
    for pair in changes.chunks(2) {
        seq = store.apply_burst(&check.scope, &pairs.id, Burst::new(pair)).await.unwrap();
    }
    assert_eq!(seq, expected.seq, "chunks: bursts of two count every chunk");
    assert_stored_as(store, &check.scope, &pairs.id, &expected, "chunks: bursts of two").await;

    let created = new("created");
    let all: Vec<TaskMutation<'_>> =
        std::iter::once(TaskMutation::Artifact { artifact: &before[0], append: false })
            .chain(changes)
            .collect();
    let seq = store.create_with_burst(&check.scope, &created, Burst::new(&all)).await.unwrap();
    assert_eq!(seq, expected.seq, "chunks: create_with_burst counts every chunk");
    assert_stored_as(store, &check.scope, &created.id, &expected, "chunks: create_with_burst").await;
}

/// Asserts that the task stored as `id` is `expected`, but for its id, at the same `seq`.
async fn assert_stored_as(store: &dyn TaskStore, scope: &Scope, id: &str, expected: &StoredTask, what: &str) {
    let stored = get(store, scope, id).await;
    assert_eq!(stored.seq, expected.seq, "{what}: the same seq");
    let mut task = stored.task;
    task.id.clone_from(&expected.task.id);
    assert_eq!(task, expected.task, "{what}: the same task");
}

/// `create_with_burst` and `apply_burst` store exactly what `create` and one `apply` per change
/// store, with the same `seq`, counts and list order.
pub async fn a_burst_stores_what_one_change_at_a_time_stores(store: &dyn TaskStore) {
    let check = Check::new("burst");
    let artifacts = [text_artifact("a", "1"), text_artifact("a", "2"), text_artifact("b", "x")];
    let statuses = [
        status(TaskState::Working, 1001, Some(Message::agent_text("on it"))),
        status(TaskState::InputRequired, 1002, Some(Message::agent_text("which?"))),
        status(TaskState::Completed, 1003, Some(Message::agent_text("done"))),
    ];
    let message = Message::user_text("this one");
    let changes = burst(&artifacts, &statuses, &message);
    let mut new = check.task("one-by-one", "c", TaskState::Submitted, 1000);
    new.history.push(Message::user_text("hello"));

    store.create(&check.scope, &new).await.unwrap();
    let mut seq = 1;
    for change in &changes {
        seq = store.apply(&new.id, *change).await.unwrap();
    }
    let expected = get(store, &check.scope, &new.id).await;
    assert_eq!(expected.seq, seq);

    let mut burst_new = new.clone();
    burst_new.id = check.id("new-burst");
    let seq = store.create_with_burst(&check.scope, &burst_new, Burst::new(&changes)).await.unwrap();
    assert_eq!(seq, expected.seq, "burst: create_with_burst returns the seq after the last change");
    assert_stored_as(store, &check.scope, &burst_new.id, &expected, "burst: a new task's burst").await;

    let mut later = new.clone();
    later.id = check.id("later-burst");
    store.create(&check.scope, &later).await.unwrap();
    let seq = store.apply_burst(&check.scope, &later.id, Burst::new(&changes)).await.unwrap();
    assert_eq!(seq, expected.seq, "burst: apply_burst counts the events");
    assert_stored_as(store, &check.scope, &later.id, &expected, "burst: apply_burst").await;

    let done = TaskQuery { state: Some(TaskState::Completed), ..query(10) };
    let page = store.list(&check.scope, &done).await.unwrap();
    assert_eq!(page.total_size, 3, "burst: each task counted once, in its final state");
    let submitted = TaskQuery { state: Some(TaskState::Submitted), ..query(10) };
    assert_eq!(store.list(&check.scope, &submitted).await.unwrap().total_size, 0);
    assert_eq!(
        store
            .create_with_burst(
                &check.scope,
                &check.task("alone", "c", TaskState::Submitted, 1000),
                Burst::default()
            )
            .await
            .unwrap(),
        1,
        "burst: no change is a plain create"
    );
}

/// A burst with one refused change writes nothing: not the changes before it, not the new task.
pub async fn a_refused_burst_writes_nothing(store: &dyn TaskStore) {
    let check = Check::new("burst-refused");
    let working = status(TaskState::Working, 1001, None);
    let done = status(TaskState::Completed, 1002, None);
    let chunk = text_artifact("a", "late");
    let changes = [
        TaskMutation::Status(&working),
        TaskMutation::Status(&done),
        TaskMutation::Artifact { artifact: &chunk, append: false },
    ];
    let new = check.task("new", "c", TaskState::Submitted, 1000);
    let err = store.create_with_burst(&check.scope, &new, Burst::new(&changes)).await.unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "burst-refused: {err}");
    assert_eq!(
        store.get(&check.scope, &new.id, TaskView::FULL).await.unwrap(),
        None,
        "burst-refused: no task"
    );

    let old = check.task("old", "c", TaskState::Submitted, 1000);
    store.create(&check.scope, &old).await.unwrap();
    let before = get(store, &check.scope, &old.id).await;
    let err = store.apply_burst(&check.scope, &old.id, Burst::new(&changes)).await.unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "burst-refused: {err}");
    assert_eq!(get(store, &check.scope, &old.id).await, before, "burst-refused: nothing applied");
    let err =
        store.apply_burst(&check.scope, &check.id("missing"), Burst::new(&changes[..1])).await.unwrap_err();
    assert!(matches!(err, Error::TaskNotFound { .. }), "burst-refused: an unknown task: {err}");
}

/// A store with an outbox stores a burst's notifications with it, all or nothing: a 0.3 one
/// (no payload) gets the task as the burst leaves it; a refused burst stores none.
pub async fn notifications_are_stored_with_their_burst(store: &dyn TaskStore) {
    use crate::push::{PushOutbox, PushPayload};
    let Some(outbox) = store.outbox() else { return };
    let check = Check::new("outbox");
    let working = status(TaskState::Working, 1001, None);
    let done = status(TaskState::Completed, 1002, Some(Message::agent_text("done")));
    let notify = |task_id: &str| {
        let mut v1 = crate::push::testing::notification(task_id, "v1", "event");
        v1.config.config.id = check.id("v1");
        let mut v03 = crate::push::testing::notification(task_id, "v03", "");
        v03.config.config.id = check.id("v03");
        v03.config.version = crate::ProtocolVersion::V0_3;
        v03.payload = None;
        vec![v1, v03]
    };
    // The pending ones of this check's tasks, with their bodies; claiming leases them.
    async fn ours(outbox: &dyn PushOutbox, task_id: &str) -> Vec<crate::push::Claimed> {
        let claimed =
            outbox.claim("suite", i64::MAX / 2, std::time::Duration::from_secs(1), 1000).await.unwrap();
        outbox.release(Some("suite")).await.unwrap();
        claimed.into_iter().filter(|c| c.task_id == task_id).collect()
    }

    let new = check.task("new", "c", TaskState::Submitted, 1000);
    let changes = [TaskMutation::Status(&working)];
    store
        .create_with_burst(&check.scope, &new, Burst::new(&changes).notifying(&notify(&new.id)))
        .await
        .unwrap();
    let stored = ours(&*outbox, &new.id).await;
    assert_eq!(stored.len(), 2, "outbox: both notifications of the new task's burst: {stored:?}");
    for claimed in &stored {
        match &claimed.payload {
            PushPayload::StreamResponse(body) => assert_eq!(&body[..], b"event", "outbox: the body as given"),
            PushPayload::TaskV0_3(task) => {
                assert_eq!(task.state(), TaskState::Working, "outbox: the task after the burst");
                assert_eq!(task.id, new.id);
            }
        }
    }
    for kind in ["v1", "v03"] {
        outbox.discard(&new.id, &check.id(kind)).await.unwrap();
    }

    let changes = [TaskMutation::Status(&done)];
    store.apply_burst(&check.scope, &new.id, Burst::new(&changes).notifying(&notify(&new.id))).await.unwrap();
    let stored = ours(&*outbox, &new.id).await;
    assert_eq!(stored.len(), 2, "outbox: both notifications of a later burst");
    let task = stored.iter().find_map(|c| match &c.payload {
        PushPayload::TaskV0_3(task) => Some(task.clone()),
        PushPayload::StreamResponse(_) => None,
    });
    let task = task.expect("the 0.3 notification");
    assert_eq!(task.state(), TaskState::Completed, "outbox: the task after the later burst");
    assert_eq!(*task, get(store, &check.scope, &new.id).await.task, "outbox: the whole task, as stored");
    for kind in ["v1", "v03"] {
        outbox.discard(&new.id, &check.id(kind)).await.unwrap();
    }

    let refused = [TaskMutation::Status(&working)];
    let err = store
        .apply_burst(&check.scope, &new.id, Burst::new(&refused).notifying(&notify(&new.id)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "outbox: {err}");
    assert!(ours(&*outbox, &new.id).await.is_empty(), "outbox: a refused burst stores no notification");
    let other = check.task("refused-new", "c", TaskState::Completed, 1000);
    let err = store
        .create_with_burst(&check.scope, &other, Burst::new(&refused).notifying(&notify(&other.id)))
        .await
        .unwrap_err();
    assert!(matches!(err, Error::InvalidAgentResponse { .. }), "outbox: {err}");
    assert!(ours(&*outbox, &other.id).await.is_empty(), "outbox: a refused new task stores no notification");
}

/// Artifact chunks: `append` extends the artifact of the same id in order, without it the
/// artifact is replaced; name, description, metadata and extensions follow the last chunk.
pub async fn artifacts_append_and_replace_by_id(store: &dyn TaskStore) {
    let check = Check::new("artifacts");
    let id = check.id("t");
    store.create(&check.scope, &check.task("t", "c", TaskState::Working, 1000)).await.unwrap();
    let apply = |artifact: Artifact, append: bool| {
        let id = id.clone();
        async move { store.apply(&id, TaskMutation::Artifact { artifact: &artifact, append }).await.unwrap() }
    };
    apply(text_artifact("a", "1"), false).await;
    apply(text_artifact("b", "other"), false).await;
    for n in 2..=20 {
        apply(text_artifact("a", &n.to_string()), true).await;
    }
    let mut named = text_artifact("a", "21");
    named.name = "renamed".into();
    named.extensions = vec!["https://ext.example/x".into()];
    apply(named, true).await;
    let task = get(store, &check.scope, &id).await.task;
    let ids: Vec<_> = task.artifacts.iter().map(|a| a.artifact_id.as_str()).collect();
    assert_eq!(ids, ["a", "b"], "artifacts: in order of first appearance");
    let texts: Vec<String> =
        task.artifacts[0].parts.iter().filter_map(Part::as_text).map(str::to_owned).collect();
    let expected: Vec<String> = (1..=21).map(|n| n.to_string()).collect();
    assert_eq!(texts, expected, "artifacts: appended chunks in order");
    assert_eq!(task.artifacts[0].name, "renamed", "artifacts: a chunk's name updates the artifact");
    assert_eq!(task.artifacts[0].extensions, ["https://ext.example/x"]);
    apply(text_artifact("a", "new"), false).await;
    apply(text_artifact("c", "appended to nothing"), true).await;
    let task = get(store, &check.scope, &id).await.task;
    assert_eq!(task.artifacts[0].parts, vec![Part::text("new")], "artifacts: without append, replaced");
    assert_eq!(task.artifacts.len(), 3, "artifacts: an append to an unknown id adds the artifact");
}

/// A new status moves the previous status message into the history; a client message follows it.
pub async fn status_messages_move_into_history(store: &dyn TaskStore) {
    let check = Check::new("history");
    let id = check.id("t");
    let mut created = check.task("t", "c", TaskState::Submitted, 1000);
    created.history.push(Message::user_text("hello"));
    store.create(&check.scope, &created).await.unwrap();
    let question = status(TaskState::InputRequired, 1001, Some(Message::agent_text("which?")));
    store.apply(&id, TaskMutation::Status(&question)).await.unwrap();
    store.apply(&id, TaskMutation::History(&Message::user_text("this one"))).await.unwrap();
    let done = status(TaskState::Completed, 1002, Some(Message::agent_text("done")));
    store.apply(&id, TaskMutation::Status(&done)).await.unwrap();
    let task = get(store, &check.scope, &id).await.task;
    let texts: Vec<_> = task.history.iter().map(Message::text).collect();
    assert_eq!(texts, ["hello", "which?", "this one"], "history: chronological, status messages archived");
    assert_eq!(task.status.unwrap().message.unwrap().text(), "done");
}

/// Views cut history to the most recent messages and leave artifacts out, on get and list.
pub async fn views_limit_history_and_omit_artifacts(store: &dyn TaskStore) {
    let check = Check::new("views");
    let mut task = check.task("t", "c", TaskState::Working, 1000);
    task.history = vec![Message::user_text("1"), Message::user_text("2"), Message::user_text("3")];
    task.artifacts = vec![text_artifact("a", "x")];
    store.create(&check.scope, &task).await.unwrap();
    let view = |history_length, include_artifacts| TaskView { history_length, include_artifacts };
    for (v, history, artifacts) in [
        (view(None, true), vec!["1", "2", "3"], 1),
        (view(Some(2), false), vec!["2", "3"], 0),
        (view(Some(0), true), vec![], 1),
        (view(Some(10), true), vec!["1", "2", "3"], 1),
    ] {
        let got = store.get(&check.scope, &task.id, v).await.unwrap().unwrap().task;
        let texts: Vec<String> = got.history.iter().map(Message::text).collect();
        let history: Vec<String> = history.into_iter().map(str::to_owned).collect();
        assert_eq!((texts, got.artifacts.len()), (history.clone(), artifacts), "views: get with {v:?}");
        let page = store.list(&check.scope, &TaskQuery { view: v, ..query(10) }).await.unwrap();
        let texts: Vec<String> = page.tasks[0].history.iter().map(Message::text).collect();
        assert_eq!((texts, page.tasks[0].artifacts.len()), (history, artifacts), "views: list with {v:?}");
    }
}

/// Newest first; a cursor page does not shift when newer tasks arrive; the last page has no cursor.
pub async fn pages_are_newest_first_and_stable_under_inserts(store: &dyn TaskStore) {
    let check = Check::new("pages");
    for i in 0..5 {
        store
            .create(&check.scope, &check.task(&format!("t{i}"), "c", TaskState::Working, 1000 + i))
            .await
            .unwrap();
    }
    let first = store.list(&check.scope, &query(2)).await.unwrap();
    assert_eq!(check.ids(&first), ["t4", "t3"], "pages: newest first");
    assert_eq!(first.total_size, 5, "pages: total counts every page");
    store.create(&check.scope, &check.task("new", "c", TaskState::Working, 5000)).await.unwrap();
    let second =
        store.list(&check.scope, &TaskQuery { after: first.next.clone(), ..query(2) }).await.unwrap();
    assert_eq!(check.ids(&second), ["t2", "t1"], "pages: a newer task does not shift later pages");
    let third =
        store.list(&check.scope, &TaskQuery { after: second.next.clone(), ..query(2) }).await.unwrap();
    assert_eq!(check.ids(&third), ["t0"]);
    assert!(third.next.is_none(), "pages: the last page has no cursor");
    let exact = store.list(&check.scope, &query(6)).await.unwrap();
    assert_eq!(exact.tasks.len(), 6);
    assert!(exact.next.is_none(), "pages: a page that ends exactly at the last task has no cursor");
}

/// Tasks updated in the same millisecond are ordered by id, descending, and paged without loss.
pub async fn equal_timestamps_are_ordered_by_id(store: &dyn TaskStore) {
    let check = Check::new("ties");
    for name in ["b", "d", "a", "c", "e"] {
        store.create(&check.scope, &check.task(name, "c", TaskState::Working, 7)).await.unwrap();
    }
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = store.list(&check.scope, &TaskQuery { after, ..query(2) }).await.unwrap();
        seen.extend(check.ids(&page).into_iter().map(str::to_owned));
        after = page.next;
        if after.is_none() {
            break;
        }
    }
    assert_eq!(seen, ["e", "d", "c", "b", "a"], "ties: by id descending, across pages");
}

/// Context, state and time filters combine; `total_size` counts the matches of all pages.
pub async fn filters_combine_and_count_every_match(store: &dyn TaskStore) {
    let check = Check::new("filters");
    store.create(&check.scope, &check.task("a", "c1", TaskState::Working, 1)).await.unwrap();
    store.create(&check.scope, &check.task("b", "c1", TaskState::Completed, 2)).await.unwrap();
    store.create(&check.scope, &check.task("c", "c2", TaskState::Working, 3)).await.unwrap();
    let c1 = Some(check.id("c1"));
    let by_context =
        store.list(&check.scope, &TaskQuery { context_id: c1.clone(), ..query(10) }).await.unwrap();
    assert_eq!((check.ids(&by_context), by_context.total_size), (vec!["b", "a"], 2), "filters: context");
    let working = Some(TaskState::Working);
    let by_state = store.list(&check.scope, &TaskQuery { state: working, ..query(10) }).await.unwrap();
    assert_eq!((check.ids(&by_state), by_state.total_size), (vec!["c", "a"], 2), "filters: state");
    let both =
        store.list(&check.scope, &TaskQuery { context_id: c1, state: working, ..query(10) }).await.unwrap();
    assert_eq!((check.ids(&both), both.total_size), (vec!["a"], 1), "filters: context and state");
    let recent =
        store.list(&check.scope, &TaskQuery { updated_at_or_after_ms: Some(2), ..query(10) }).await.unwrap();
    assert_eq!((check.ids(&recent), recent.total_size), (vec!["c", "b"], 2), "filters: at or after a time");
    let one = store.list(&check.scope, &TaskQuery { state: working, ..query(1) }).await.unwrap();
    assert_eq!((check.ids(&one), one.total_size), (vec!["c"], 2), "filters: total counts beyond the page");
    let none = store
        .list(&check.scope, &TaskQuery { context_id: Some(check.id("nope")), ..query(10) })
        .await
        .unwrap();
    assert_eq!((none.tasks.len(), none.total_size, none.next), (0, 0, None));
}

/// A status update re-sorts the task (its timestamp is the sort key) and re-indexes its state.
pub async fn a_status_update_moves_the_task_to_the_front(store: &dyn TaskStore) {
    let check = Check::new("resort");
    store.create(&check.scope, &check.task("a", "c", TaskState::Working, 1)).await.unwrap();
    store.create(&check.scope, &check.task("b", "c", TaskState::Working, 2)).await.unwrap();
    store.apply(&check.id("a"), TaskMutation::Status(&status(TaskState::Completed, 3, None))).await.unwrap();
    assert_eq!(
        check.ids(&store.list(&check.scope, &query(10)).await.unwrap()),
        ["a", "b"],
        "resort: newest first"
    );
    let working =
        store.list(&check.scope, &TaskQuery { state: Some(TaskState::Working), ..query(10) }).await.unwrap();
    assert_eq!(check.ids(&working), ["b"], "resort: the state filter sees the new state");
    let done = store
        .list(&check.scope, &TaskQuery { state: Some(TaskState::Completed), ..query(10) })
        .await
        .unwrap();
    assert_eq!((check.ids(&done), done.total_size), (vec!["a"], 1));
}

/// Listing by context follows status updates, whether the context holds one task or several:
/// newest first, every task once, a cursor past the last one ends the list.
pub async fn a_context_s_list_follows_its_tasks_status_updates(store: &dyn TaskStore) {
    let check = Check::new("context-resort");
    let (scope, context) = (&check.scope, check.id("c"));
    let by_context = |after: Option<Cursor>| {
        let q = TaskQuery { context_id: Some(context.clone()), after, ..query(10) };
        async move { store.list(scope, &q).await.unwrap() }
    };
    let names = |page: &TaskPage| check.ids(page).into_iter().map(str::to_owned).collect::<Vec<_>>();
    store.create(&check.scope, &check.task("a", "c", TaskState::Working, 1)).await.unwrap();
    store.create(&check.scope, &check.task("other", "c-other", TaskState::Working, 2)).await.unwrap();
    let page = by_context(None).await;
    assert_eq!((names(&page), page.total_size), (vec!["a".to_owned()], 1), "context-resort: one task");
    store.apply(&check.id("a"), TaskMutation::Status(&status(TaskState::Working, 3, None))).await.unwrap();
    assert_eq!(names(&by_context(None).await), ["a"], "context-resort: one task, updated");
    let past = Some(Cursor { updated_ms: 3, task_id: check.id("a") });
    assert!(by_context(past).await.tasks.is_empty(), "context-resort: a cursor past the only task");
    let before = Some(Cursor { updated_ms: 4, task_id: check.id("a") });
    assert_eq!(names(&by_context(before).await), ["a"], "context-resort: a cursor before it");

    store.create(&check.scope, &check.task("b", "c", TaskState::Working, 4)).await.unwrap();
    assert_eq!(names(&by_context(None).await), ["b", "a"], "context-resort: two tasks");
    store.apply(&check.id("a"), TaskMutation::Status(&status(TaskState::Completed, 5, None))).await.unwrap();
    assert_eq!(names(&by_context(None).await), ["a", "b"], "context-resort: the update moves a first");
    store.apply(&check.id("b"), TaskMutation::Status(&status(TaskState::Working, 6, None))).await.unwrap();
    let page = by_context(None).await;
    assert_eq!((names(&page), page.total_size), (vec!["b".to_owned(), "a".to_owned()], 2));
    let after_b = Some(Cursor { updated_ms: 6, task_id: check.id("b") });
    assert_eq!(names(&by_context(after_b).await), ["a"], "context-resort: the page after b");
    let done = TaskQuery { context_id: Some(check.id("c")), state: Some(TaskState::Completed), ..query(10) };
    assert_eq!(check.ids(&store.list(&check.scope, &done).await.unwrap()), ["a"]);
}

/// Deep pages by context or state start right after the cursor; a context that is a prefix of
/// another matches only itself.
pub async fn deep_pages_by_context_and_state_seek_past_the_cursor(store: &dyn TaskStore) {
    let check = Check::new("deep");
    for i in 0..30 {
        let context = if i % 3 == 0 { "c" } else { "other" };
        let state = if i % 2 == 0 { TaskState::Working } else { TaskState::Completed };
        store.create(&check.scope, &check.task(&format!("t{i:02}"), context, state, i)).await.unwrap();
    }
    store.create(&check.scope, &check.task("x", "c2", TaskState::Working, 99)).await.unwrap();
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let q = TaskQuery { context_id: Some(check.id("c")), after: after.clone(), ..query(4) };
        let page = store.list(&check.scope, &q).await.unwrap();
        assert_eq!(page.total_size, 10, "deep: the context's total, on every page");
        seen.extend(check.ids(&page).into_iter().map(str::to_owned));
        after = page.next;
        if after.is_none() {
            break;
        }
    }
    let expected: Vec<String> = (0..30).rev().filter(|i| i % 3 == 0).map(|i| format!("t{i:02}")).collect();
    assert_eq!(seen, expected, "deep: every task of the context once, in order");
    let working = TaskQuery {
        state: Some(TaskState::Working),
        after: Some(Cursor { updated_ms: 10, task_id: check.id("t10") }),
        ..query(3)
    };
    assert_eq!(check.ids(&store.list(&check.scope, &working).await.unwrap()), ["t08", "t06", "t04"]);
}

/// Tenants never see each other's tasks; an owner sees its own and the tenant's unowned tasks,
/// never another owner's; lists and totals obey the same rule.
pub async fn scopes_isolate_tenants_and_owners(store: &dyn TaskStore) {
    let check = Check::new("scopes");
    let tenant = check.scope.tenant.clone();
    let alice = Scope { tenant: tenant.clone(), owner: Some("alice".into()) };
    let bob = Scope { tenant: tenant.clone(), owner: Some("bob".into()) };
    let anonymous = Scope { tenant: tenant.clone(), owner: None };
    let other_tenant = Scope { tenant: format!("{tenant}-other"), owner: Some("alice".into()) };
    store.create(&alice, &check.task("a", "c", TaskState::Working, 1)).await.unwrap();
    store.create(&anonymous, &check.task("shared", "c", TaskState::Working, 2)).await.unwrap();
    store.create(&other_tenant, &check.task("elsewhere", "c", TaskState::Working, 3)).await.unwrap();
    let sees = |scope: &Scope, name: &str| {
        let (scope, id) = (scope.clone(), check.id(name));
        async move { store.get(&scope, &id, TaskView::FULL).await.unwrap().is_some() }
    };
    assert!(sees(&alice, "a").await, "scopes: the owner sees its task");
    assert!(!sees(&bob, "a").await, "scopes: another owner does not");
    assert!(!sees(&anonymous, "a").await, "scopes: an anonymous caller does not see an owned task");
    assert!(!sees(&other_tenant, "a").await, "scopes: another tenant does not");
    assert!(
        sees(&bob, "shared").await && sees(&alice, "shared").await,
        "scopes: unowned tasks are the tenant's"
    );
    assert!(!sees(&alice, "elsewhere").await || alice == other_tenant);
    let list = |scope: &Scope| {
        let scope = scope.clone();
        async move { store.list(&scope, &query(10)).await.unwrap() }
    };
    let page = list(&alice).await;
    assert_eq!((check.ids(&page), page.total_size), (vec!["shared", "a"], 2), "scopes: alice's list");
    let page = list(&bob).await;
    assert_eq!((check.ids(&page), page.total_size), (vec!["shared"], 1), "scopes: bob's list");
    let page = list(&other_tenant).await;
    assert_eq!(
        (check.ids(&page), page.total_size),
        (vec!["elsewhere"], 1),
        "scopes: the other tenant's list"
    );
}

/// `running` lists SUBMITTED and WORKING tasks of every scope, with their scope.
pub async fn running_lists_submitted_and_working_tasks(store: &dyn TaskStore) {
    let check = Check::new("running");
    let owned = Scope { tenant: check.scope.tenant.clone(), owner: Some("alice".into()) };
    store.create(&check.scope, &check.task("submitted", "c", TaskState::Submitted, 1)).await.unwrap();
    store.create(&owned, &check.task("working", "c", TaskState::Working, 2)).await.unwrap();
    for (name, state) in [
        ("input", TaskState::InputRequired),
        ("auth", TaskState::AuthRequired),
        ("done", TaskState::Completed),
    ] {
        store.create(&check.scope, &check.task(name, "c", state, 3)).await.unwrap();
    }
    store.create(&check.scope, &check.task("finished", "c", TaskState::Working, 4)).await.unwrap();
    store
        .apply(&check.id("finished"), TaskMutation::Status(&status(TaskState::Failed, 5, None)))
        .await
        .unwrap();
    let mut running: Vec<(Scope, String)> =
        store.running().await.unwrap().into_iter().filter(|(_, id)| id.starts_with(&check.prefix)).collect();
    running.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        running,
        [(check.scope.clone(), check.id("submitted")), (owned, check.id("working"))],
        "running: only SUBMITTED and WORKING, each with its scope"
    );
}

/// Many concurrent writers to one task and to many tasks: every change lands, `seq` counts them all.
pub async fn concurrent_writers_never_lose_a_change(store: &dyn TaskStore) {
    let check = Check::new("concurrent");
    let id = check.id("t");
    store.create(&check.scope, &check.task("t", "c", TaskState::Working, 1)).await.unwrap();
    let chunks: Vec<Artifact> = (0..50).map(|n| text_artifact("a", &n.to_string())).collect();
    let seqs = join_all(
        chunks.iter().map(|chunk| store.apply(&id, TaskMutation::Artifact { artifact: chunk, append: true })),
    )
    .await;
    let mut seqs: Vec<u64> = seqs.into_iter().map(|r| r.expect("concurrent apply")).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (2..=51).collect::<Vec<u64>>(), "concurrent: each change gets its own seq");
    let task = get(store, &check.scope, &id).await;
    assert_eq!((task.seq, task.task.artifacts[0].parts.len()), (51, 50), "concurrent: no chunk lost");
    let tasks: Vec<Task> =
        (0..40).map(|i| check.task(&format!("m{i}"), "c", TaskState::Working, 10 + i)).collect();
    for result in join_all(tasks.iter().map(|t| store.create(&check.scope, t))).await {
        result.expect("concurrent create");
    }
    let done: Vec<TaskStatus> = (0..40).map(|i| status(TaskState::Completed, 100 + i, None)).collect();
    let ids: Vec<String> = (0..40).map(|i| check.id(&format!("m{i}"))).collect();
    for result in
        join_all(ids.iter().zip(&done).map(|(id, s)| store.apply(id, TaskMutation::Status(s)))).await
    {
        result.expect("concurrent apply to many tasks");
    }
    let page = store
        .list(&check.scope, &TaskQuery { state: Some(TaskState::Completed), ..query(100) })
        .await
        .unwrap();
    assert_eq!(page.total_size, 40, "concurrent: every task completed");
}

/// Racing terminal updates (an agent completing while a client cancels): exactly one wins, and
/// the stored task shows the winner.
pub async fn concurrent_terminal_updates_have_one_winner(store: &dyn TaskStore) {
    let check = Check::new("race");
    let id = check.id("t");
    store.create(&check.scope, &check.task("t", "c", TaskState::Working, 1)).await.unwrap();
    let endings: Vec<TaskStatus> = (0..10)
        .map(|i| status(if i % 2 == 0 { TaskState::Completed } else { TaskState::Canceled }, 2 + i, None))
        .collect();
    let results = join_all(endings.iter().map(|s| store.apply(&id, TaskMutation::Status(s)))).await;
    let winners: Vec<usize> = results.iter().enumerate().filter(|(_, r)| r.is_ok()).map(|(i, _)| i).collect();
    assert_eq!(winners.len(), 1, "race: exactly one terminal update wins: {results:?}");
    let stored = get(store, &check.scope, &id).await;
    assert_eq!(
        stored.task.status,
        Some(endings[winners[0]].clone()),
        "race: the stored status is the winner's"
    );
    assert_eq!(stored.seq, 2);
}

fn config(task_id: &str, id: &str, url: &str) -> TaskPushNotificationConfig {
    TaskPushNotificationConfig {
        id: id.into(),
        task_id: task_id.into(),
        url: url.into(),
        ..Default::default()
    }
}

/// A config comes back with every field and its registration version.
pub async fn push_configs_keep_every_field(store: &dyn PushConfigStore) {
    let task = a2a_proto::new_id();
    let full = TaskPushNotificationConfig {
        tenant: "tenant 'x'".into(),
        id: "cfg".into(),
        task_id: task.clone(),
        url: "https://hooks.example.com/a2a?x=1&y=\u{e9}".into(),
        token: "tok".into(),
        authentication: Some(a2a_proto::v1::AuthenticationInfo {
            scheme: "Bearer".into(),
            credentials: "secret".into(),
        }),
    };
    assert_eq!(
        store.put(full.clone(), ProtocolVersion::V0_3).await.unwrap(),
        full,
        "push: put returns the config"
    );
    let stored = store.get(&task, "cfg").await.unwrap().expect("push: stored");
    assert_eq!(
        (stored.config, stored.version),
        (full, ProtocolVersion::V0_3),
        "push: every field and the version"
    );
    assert!(store.get(&task, "other").await.unwrap().is_none());
}

/// Replacing keeps the config's place and takes the new version; delete is idempotent.
pub async fn push_configs_are_replaced_in_place_and_deleted_idempotently(store: &dyn PushConfigStore) {
    use ProtocolVersion::{V0_3, V1_0};
    let task = a2a_proto::new_id();
    store.put(config(&task, "1", "http://a"), V1_0).await.unwrap();
    store.put(config(&task, "2", "http://b"), V1_0).await.unwrap();
    store.put(config(&task, "3", "http://c"), V1_0).await.unwrap();
    store.put(config(&task, "1", "http://d"), V0_3).await.unwrap();
    let all = store.list(&task).await.unwrap();
    let urls: Vec<_> = all.iter().map(|c| (c.config.url.as_str(), c.version)).collect();
    assert_eq!(urls, [("http://d", V0_3), ("http://b", V1_0), ("http://c", V1_0)], "push: replaced in place");
    assert!(store.delete(&task, "1").await.unwrap(), "push: delete reports an existing config");
    assert!(!store.delete(&task, "1").await.unwrap(), "push: a second delete finds nothing");
    assert!(store.get(&task, "1").await.unwrap().is_none());
    let ids: Vec<_> = store.list(&task).await.unwrap().into_iter().map(|c| c.config.id).collect();
    assert_eq!(ids, ["2", "3"]);
}

/// Configs of different tasks with the same id are different configs.
pub async fn push_configs_of_tasks_are_separate(store: &dyn PushConfigStore) {
    let (a, b) = (a2a_proto::new_id(), a2a_proto::new_id());
    store.put(config(&a, "same", "http://a"), ProtocolVersion::V1_0).await.unwrap();
    store.put(config(&b, "same", "http://b"), ProtocolVersion::V1_0).await.unwrap();
    assert_eq!(store.get(&a, "same").await.unwrap().unwrap().config.url, "http://a");
    assert!(store.delete(&b, "same").await.unwrap());
    assert_eq!(store.list(&a).await.unwrap().len(), 1, "push: deleting b's config leaves a's");
    assert!(store.list(&a2a_proto::new_id()).await.unwrap().is_empty());
}
