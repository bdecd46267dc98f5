//! The scripted service does what its failure switches say, and records what it received.

use a2a_core::{A2aService, CallContext, Error, Operation};
use a2a_proto::v1::{GetTaskRequest, SubscribeToTaskRequest, TaskState};
use a2a_test_support::fixtures::{send, stream_events, task};
use a2a_test_support::{assert_same_error, Scripted};
use futures::{FutureExt as _, StreamExt as _};

/// The scripted service with the shared canned answers.
type Service = Scripted;

fn get(id: &str) -> GetTaskRequest {
    GetTaskRequest { id: id.into(), ..Default::default() }
}

fn subscribe(id: &str) -> SubscribeToTaskRequest {
    SubscribeToTaskRequest { id: id.into(), ..Default::default() }
}

#[tokio::test]
async fn calls_are_recorded_with_context_and_request_as_protojson() {
    let service = Service::new();
    let mut ctx = CallContext::v1();
    ctx.params.insert("x-trace", "t-1");
    assert_eq!(service.get_task(&ctx, get("task-7")).await.unwrap(), task("task-7", TaskState::Working));
    service.send_message(&CallContext::v1(), send("hi")).await.unwrap();
    assert_eq!(service.operations(), [Operation::GetTask, Operation::SendMessage]);
    let first = &service.calls()[0];
    assert_eq!(first.param("x-trace"), Some("t-1"));
    assert_eq!(first.request["id"], "task-7");
    assert_eq!(first.request::<GetTaskRequest>(), get("task-7"));
    assert_eq!(service.last_call().request["message"]["parts"][0]["text"], "hi");
}

#[tokio::test]
async fn fail_next_fails_one_call_and_fail_with_every_call() {
    let service = Service::new();
    service.fail_next(Error::TaskNotFound { task_id: "x".into() });
    let error = service.get_task(&CallContext::v1(), get("x")).await.unwrap_err();
    assert_same_error(&error, &Error::TaskNotFound { task_id: "x".into() });
    service.get_task(&CallContext::v1(), get("x")).await.unwrap();

    service.fail_with(|| Error::internal("down"));
    for _ in 0..2 {
        let error = service.get_task(&CallContext::v1(), get("x")).await.unwrap_err();
        assert_same_error(&error, &Error::internal("down"));
    }
    // Failed calls are recorded too.
    assert_eq!(service.calls().len(), 4);
}

#[tokio::test]
async fn streams_fail_after_n_events() {
    let service = Service::new();
    service.fail_next_stream_after(2, Error::internal("broke"));
    let items: Vec<_> =
        service.subscribe_to_task(&CallContext::v1(), subscribe("t")).await.unwrap().collect().await;
    assert_eq!(items.len(), 3);
    assert_eq!(items[0].as_ref().unwrap(), &stream_events("t")[0]);
    assert_eq!(items[1].as_ref().unwrap(), &stream_events("t")[1]);
    assert_same_error(items[2].as_ref().unwrap_err(), &Error::internal("broke"));
    // Only the next stream: the one after is whole.
    let items: Vec<_> =
        service.subscribe_to_task(&CallContext::v1(), subscribe("t")).await.unwrap().collect().await;
    assert_eq!(items.into_iter().map(Result::unwrap).collect::<Vec<_>>(), stream_events("t"));

    service.fail_stream_after(0, || Error::internal("at once"));
    for _ in 0..2 {
        let items: Vec<_> =
            service.send_streaming_message(&CallContext::v1(), send("s")).await.unwrap().collect().await;
        assert_eq!(items.len(), 1);
        assert_same_error(items[0].as_ref().unwrap_err(), &Error::internal("at once"));
    }
}

#[tokio::test]
async fn a_hanging_stream_yields_its_first_event_stays_open_and_signals_its_drop() {
    let service = Service::new();
    let dropped = service.hung_stream_dropped();
    service.hang_next_stream();
    let mut stream = service.subscribe_to_task(&CallContext::v1(), subscribe("t")).await.unwrap();
    assert_eq!(stream.next().await.unwrap().unwrap(), stream_events("t")[0]);
    assert!(stream.next().now_or_never().is_none(), "no second event, no end");
    let notified = dropped.notified();
    drop(stream);
    notified.await;
    // Only the next stream hangs.
    let items: Vec<_> =
        service.subscribe_to_task(&CallContext::v1(), subscribe("t")).await.unwrap().collect().await;
    assert_eq!(items.len(), stream_events("t").len());
}
