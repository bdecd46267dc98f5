//! Retries and resubscription against the reference server behind a TCP proxy that breaks
//! connections on purpose: dropped at once (nothing reached the agent), or cut after a while (a
//! stream in flight).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use a2a_client::{Client, RetryPolicy};
use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{
    send_message_response, stream_response, AgentCard, AgentInterface, GetTaskRequest, ListTasksRequest,
    Message, SendMessageConfiguration, SendMessageRequest, SubscribeToTaskRequest, TaskState,
};
use a2a_server::{RunningServer, Server};
use futures::StreamExt;

async fn start() -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(a2a_demo::demo_card())
        .executor(a2a_demo::DemoAgent)
        .spawn(listener)
        .await
        .unwrap()
}

/// What the proxy does with one connection.
#[derive(Debug, Clone, Copy)]
enum Plan {
    /// Close it at once.
    Drop,
    /// Pass it through.
    Forward,
    /// Pass it through, then cut it after this long.
    CutAfter(Duration),
}

/// A proxy to `target` that treats the connection number `n` (0-based) as `plan(n)` says;
/// returns its address and the count of connections accepted.
async fn proxy(
    target: SocketAddr,
    plan: impl Fn(usize) -> Plan + Send + 'static,
) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let accepted = count.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let n = accepted.fetch_add(1, Ordering::SeqCst);
            let plan = plan(n);
            tokio::spawn(async move {
                let forward = async {
                    let Ok(mut outbound) = tokio::net::TcpStream::connect(target).await else { return };
                    let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                };
                match plan {
                    Plan::Drop => {}
                    Plan::Forward => forward.await,
                    Plan::CutAfter(after) => {
                        let _ = tokio::time::timeout(after, forward).await;
                    }
                }
            });
        }
    });
    (addr, count)
}

/// A 1.0 JSON-RPC card for the agent at `addr`.
fn card(addr: SocketAddr) -> AgentCard {
    let mut card = a2a_demo::demo_card();
    card.supported_interfaces = vec![AgentInterface {
        url: format!("http://{addr}"),
        protocol_binding: "JSONRPC".into(),
        protocol_version: "1.0".into(),
        ..Default::default()
    }];
    card
}

fn fast(attempts: u32) -> RetryPolicy {
    RetryPolicy::attempts(attempts).with_backoff(Duration::from_millis(10), Duration::from_millis(100))
}

async fn start_task(direct: &Client, text: &str) -> String {
    let request = SendMessageRequest {
        message: Some(Message::user_text(text)),
        configuration: Some(SendMessageConfiguration { return_immediately: true, ..Default::default() }),
        ..Default::default()
    };
    match direct.send_message(&CallContext::v1(), request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task.id,
        other => panic!("expected a task, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn idempotent_reads_are_retried_after_a_dropped_connection() {
    let server = start().await;
    let (addr, connections) = proxy(server.addr(), |n| if n < 2 { Plan::Drop } else { Plan::Forward }).await;
    let client = Client::builder().retry(fast(3)).from_card(&card(addr)).unwrap();
    let error = client
        .get_task(&CallContext::v1(), GetTaskRequest { id: "no-such-task".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(matches!(error, Error::TaskNotFound { .. }), "the third try reached the agent: {error:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 3);
    let listed = client.list_tasks(&CallContext::v1(), ListTasksRequest::default()).await;
    assert!(listed.is_ok(), "{listed:?}");

    // Without retries the first dropped connection is the answer.
    let (addr, connections) = proxy(server.addr(), |n| if n < 1 { Plan::Drop } else { Plan::Forward }).await;
    let client = Client::builder().retry(RetryPolicy::none()).from_card(&card(addr)).unwrap();
    let error = client
        .get_task(&CallContext::v1(), GetTaskRequest { id: "x".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 1);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn send_message_is_never_retried() {
    let server = start().await;
    let (addr, connections) = proxy(server.addr(), |n| if n < 1 { Plan::Drop } else { Plan::Forward }).await;
    let client = Client::builder().retry(fast(5)).from_card(&card(addr)).unwrap();
    let request = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
    let error = client.send_message(&CallContext::v1(), request).await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 1, "one try: it may have been processed");
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn follow_task_resubscribes_after_a_cut_stream_and_ends_on_the_terminal_event() {
    let server = start().await;
    let direct = Client::connect(server.url()).await.unwrap();
    let id = start_task(&direct, "wait 2").await;
    // The first subscription is cut after 500 ms; the next ones pass.
    let (addr, connections) =
        proxy(
            server.addr(),
            |n| if n == 0 { Plan::CutAfter(Duration::from_millis(500)) } else { Plan::Forward },
        )
        .await;
    let client = Client::builder().retry(fast(5)).from_card(&card(addr)).unwrap();
    let events = client
        .follow_task(&CallContext::v1(), SubscribeToTaskRequest { id: id.clone(), ..Default::default() })
        .await
        .unwrap();
    let events: Vec<_> =
        tokio::time::timeout(Duration::from_secs(20), events.collect::<Vec<_>>()).await.unwrap();
    let events: Vec<_> = events.into_iter().map(|e| e.expect("no error reaches the caller")).collect();
    let snapshots =
        events.iter().filter(|e| matches!(e.payload, Some(stream_response::Payload::Task(_)))).count();
    assert_eq!(snapshots, 2, "the task once per subscription: {events:?}");
    let Some(stream_response::Payload::StatusUpdate(last)) = &events.last().unwrap().payload else {
        panic!("the last event is the status update: {events:?}")
    };
    assert_eq!(last.status.as_ref().unwrap().state(), TaskState::Completed);
    assert!(connections.load(Ordering::SeqCst) >= 2);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn follow_task_delivers_the_final_task_when_it_ended_while_disconnected() {
    let server = start().await;
    let direct = Client::connect(server.url()).await.unwrap();
    let id = start_task(&direct, "wait 1").await;
    // Cut the subscription at 300 ms, then refuse connections until the task has completed.
    let started = std::time::Instant::now();
    let (addr, _) = proxy(server.addr(), move |n| match n {
        0 => Plan::CutAfter(Duration::from_millis(300)),
        _ if started.elapsed() < Duration::from_millis(1800) => Plan::Drop,
        _ => Plan::Forward,
    })
    .await;
    let policy =
        RetryPolicy::attempts(50).with_backoff(Duration::from_millis(50), Duration::from_millis(200));
    let client = Client::builder().retry(policy).from_card(&card(addr)).unwrap();
    let events = client
        .follow_task(&CallContext::v1(), SubscribeToTaskRequest { id: id.clone(), ..Default::default() })
        .await
        .unwrap();
    let events: Vec<_> =
        tokio::time::timeout(Duration::from_secs(20), events.collect::<Vec<_>>()).await.unwrap();
    let last = events.last().unwrap().as_ref().expect("the final task, not an error");
    let Some(stream_response::Payload::Task(task)) = &last.payload else {
        panic!("the task read after the refused resubscription: {events:?}")
    };
    assert_eq!(task.id, id);
    assert_eq!(task.state(), TaskState::Completed);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_down_interface_is_passed_over_for_the_next_reachable_one() {
    let server = start().await;
    let served = Client::builder().fetch_card(server.url()).await.unwrap();
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    // The preferred interface (first, JSON-RPC 1.0) is down; the others are the server's.
    let mut card = served.clone();
    card.supported_interfaces[0].url = format!("http://{dead}");
    let builder = Client::builder();
    assert_eq!(builder.candidates(&card).unwrap()[0].url(), format!("http://{dead}"));
    let client = builder.from_card_reachable(&card, Duration::from_secs(2)).await.unwrap();
    assert_eq!(client.selected(), &builder.candidates(&card).unwrap()[1], "the next compatible one");
    let request = SendMessageRequest { message: Some(Message::user_text("hello")), ..Default::default() };
    client.send_message(&CallContext::v1(), request).await.unwrap();

    // Nothing reachable: an error naming what was tried.
    for interface in &mut card.supported_interfaces {
        interface.url =
            if interface.protocol_binding == "GRPC" { dead.to_string() } else { format!("http://{dead}") };
    }
    let error = builder.from_card_reachable(&card, Duration::from_secs(2)).await.unwrap_err();
    assert!(matches!(error, Error::Transport { .. }), "{error:?}");
    assert!(error.to_string().contains("JSONRPC 1.0") && error.to_string().contains("GRPC 1.0"), "{error}");
    server.shutdown().await.unwrap();
}
