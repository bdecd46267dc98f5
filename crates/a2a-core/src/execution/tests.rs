//! The runtime's own invariants, where no request path can time them.

use std::sync::Arc;

use a2a_proto::v1::{Task, TaskState, TaskStatus};

use super::{Backends, Step, StreamMode, TaskRuntime};
use crate::executor::TaskUpdater;
use crate::store::memory::InMemoryTaskStore;
use crate::store::Scope;

fn runtime() -> Arc<TaskRuntime> {
    let pending = Task {
        id: "task-1".into(),
        context_id: "context-1".into(),
        status: Some(TaskStatus { state: TaskState::Submitted.into(), message: None, timestamp: None }),
        ..Task::default()
    };
    let backends = Backends { store: Arc::new(InMemoryTaskStore::new()), push: None, cluster: None };
    TaskRuntime::for_new_task(pending, false, Scope::default(), &backends)
}

/// The end of an execution is announced after its last events are written, in a task of its
/// own when some were still queued: an execution that continued the task meanwhile (the answer
/// to an input-required question, sent as soon as the question arrived) must hear its own
/// events, not that end (a blocking send answered `WORKING` before the fix).
#[tokio::test]
async fn a_late_end_does_not_end_the_execution_after_it() {
    let runtime = runtime();
    let first = TaskUpdater::new(Arc::clone(&runtime), runtime.producer());
    first.require_input(None).await.unwrap();
    // Its last producer gone with an event still queued: the end waits for the write.
    drop(first);

    let second = TaskUpdater::new(Arc::clone(&runtime), runtime.producer());
    let mut subscription = runtime.subscribe(StreamMode::Execution, false);
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
    // As a blocking send does: what was handed out before is skipped.
    let standing = runtime.standing().await.unwrap();
    assert_eq!(standing.state, TaskState::InputRequired);
    subscription.skip_through(standing.seq);
    second.start_work(None).await.unwrap();
    second.flush().await.unwrap();
    match subscription.next().await {
        Some(Ok(Step::Event(_, state))) => assert_eq!(state, TaskState::Working),
        Some(Ok(Step::Ended(error))) => {
            panic!("the earlier execution's end ended this one's wait ({error:?})")
        }
        other => panic!("{other:?}"),
    }

    // Its own end still comes, once its producer is gone.
    drop(second);
    for _ in 0..8 {
        tokio::task::yield_now().await;
    }
    assert!(matches!(subscription.next().await, Some(Ok(Step::Ended(None)))));
}
