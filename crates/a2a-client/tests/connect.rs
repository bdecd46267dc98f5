//! The card-driven client against the reference server, which serves 1.0 and 0.3 on every binding
//! and a union card declaring both: `Client::connect` picks 1.0, a pinned 0.3 client uses the 0.3
//! endpoints on the same tasks, a 0.3-only card negotiates 0.3, and an interface's tenant travels
//! with every request.

use std::time::Duration;

use a2a_client::{Binding, Client};
use a2a_core::push::DestinationPolicy;
use a2a_core::{A2aService, CallContext, Error, ProtocolVersion};
use a2a_proto::v1::{
    send_message_response, stream_response, AgentCard, CancelTaskRequest, GetTaskRequest, ListTasksRequest,
    Message, SendMessageConfiguration, SendMessageRequest, StreamResponse, Task, TaskState,
};
use a2a_server::{RunningServer, Server};
use a2a_v03::{Form, V03};
use futures::StreamExt;

use ProtocolVersion::{V0_3, V1_0};

async fn start() -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    Server::builder()
        .agent_card(a2a_demo::demo_card())
        .extended_agent_card(a2a_demo::demo_extended_card())
        .executor(a2a_demo::DemoAgent)
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
        .spawn(listener)
        .await
        .unwrap()
}

fn send(text: &str, return_immediately: bool) -> SendMessageRequest {
    SendMessageRequest {
        message: Some(Message::user_text(text)),
        configuration: Some(SendMessageConfiguration { return_immediately, ..Default::default() }),
        ..Default::default()
    }
}

async fn send_task(client: &dyn A2aService, text: &str, return_immediately: bool) -> Task {
    match client.send_message(&CallContext::v1(), send(text, return_immediately)).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("expected a task, got {other:?}"),
    }
}

async fn get(client: &dyn A2aService, id: &str) -> Result<Task, Error> {
    client.get_task(&CallContext::v1(), GetTaskRequest { id: id.into(), ..Default::default() }).await
}

fn artifact_text(task: &Task) -> String {
    task.artifacts.iter().flat_map(|a| &a.parts).filter_map(|p| p.as_text()).collect()
}

/// Sends `stream 3` and returns every event; the stream must end by itself (the guard only turns
/// a hang into a failure).
async fn stream_three(client: &dyn A2aService) -> Vec<StreamResponse> {
    let events = client.send_streaming_message(&CallContext::v1(), send("stream 3", false)).await.unwrap();
    let events: Vec<_> = tokio::time::timeout(Duration::from_secs(30), events.collect::<Vec<_>>())
        .await
        .expect("the stream ends after its last event");
    events.into_iter().map(Result::unwrap).collect()
}

fn last_state(events: &[StreamResponse]) -> TaskState {
    match &events.last().unwrap().payload {
        Some(stream_response::Payload::StatusUpdate(update)) => update.status.as_ref().unwrap().state(),
        other => panic!("the last event is not a status update: {other:?}"),
    }
}

#[tokio::test]
async fn connect_to_the_reference_server_picks_its_first_1_0_interface() {
    let server = start().await;
    let client = Client::connect(server.url()).await.unwrap();
    let selected = client.selected();
    assert_eq!((selected.binding(), selected.protocol_version()), (Binding::JsonRpc, V1_0));
    assert_eq!(selected.url(), server.url());
    assert_eq!(selected.tenant(), None);
    assert_eq!(client.card().name, a2a_demo::demo_card().name);

    let task = send_task(&client, "hello", false).await;
    assert_eq!(artifact_text(&task), "hello");
    assert_eq!(get(&client, &task.id).await.unwrap().state(), TaskState::Completed);
    let listed = client.list_tasks(&CallContext::v1(), ListTasksRequest::default()).await.unwrap();
    assert!(listed.tasks.iter().any(|t| t.id == task.id), "ListTasks exists in 1.0");
    assert_eq!(last_state(&stream_three(&client).await), TaskState::Completed);

    // A caller's context asking for 0.3 does not confuse the 1.0 client.
    let ctx = CallContext::new(a2a_core::ServiceParams::new().with("A2A-Version", "0.3"));
    client.get_task(&ctx, GetTaskRequest { id: task.id.clone(), ..Default::default() }).await.unwrap();
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn each_binding_is_reached_in_each_version_on_the_same_tasks() {
    let server = start().await;
    let v10 = Client::connect(server.url()).await.unwrap();
    for binding in Binding::ALL {
        for version in [V1_0, V0_3] {
            let client = Client::builder()
                .bindings([binding])
                .protocol_version(version)
                .connect(server.url())
                .await
                .unwrap();
            assert_eq!(
                (client.selected().binding(), client.selected().protocol_version()),
                (binding, version)
            );
            let task = send_task(&client, &format!("made over {binding} {version}"), false).await;
            assert_eq!(artifact_text(&task), format!("made over {binding} {version}"));
            // The same task store behind both versions.
            let read = get(&v10, &task.id).await.unwrap();
            assert_eq!(artifact_text(&read), artifact_text(&task), "{binding} {version}");
            assert_eq!(last_state(&stream_three(&client).await), TaskState::Completed, "{binding} {version}");
            let running = send_task(&client, "wait 60", true).await;
            let canceled = client
                .cancel_task(&CallContext::v1(), CancelTaskRequest { id: running.id, ..Default::default() })
                .await
                .unwrap();
            assert_eq!(canceled.state(), TaskState::Canceled, "{binding} {version}");
            let listed = client.list_tasks(&CallContext::v1(), ListTasksRequest::default()).await;
            match version {
                V1_0 => assert!(listed.is_ok(), "{binding}: {listed:?}"),
                V0_3 => assert!(
                    matches!(listed, Err(Error::UnsupportedOperation { .. })),
                    "{binding}: {listed:?}"
                ),
            }
        }
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_0_3_only_card_negotiates_0_3_and_refuses_a_1_0_pin() {
    let server = start().await;
    // The server's card as a 0.3 agent would publish it: the 0.3 proto card (`url`,
    // `preferredTransport`, `additionalInterfaces`, `protocolVersion: "0.3.0"`), no
    // `supportedInterfaces`.
    let union = Client::builder().fetch_card(server.url()).await.unwrap();
    let v03_json = union.to_v03(Form::ProtoJson);
    assert!(v03_json.get("supportedInterfaces").is_none(), "{v03_json}");
    let card = AgentCard::from_v03(&v03_json).unwrap();
    assert!(card.supported_interfaces.iter().all(|i| i.protocol_version == "0.3"), "{card:?}");

    let client = Client::builder().from_card(&card).unwrap();
    let selected = client.selected();
    assert_eq!((selected.binding(), selected.protocol_version()), (Binding::JsonRpc, V0_3));
    let task = send_task(&client, "hello 0.3", false).await;
    assert_eq!(artifact_text(&task), "hello 0.3");
    assert_eq!(get(&client, &task.id).await.unwrap().state(), TaskState::Completed);
    assert_eq!(last_state(&stream_three(&client).await), TaskState::Completed);
    let listed = client.list_tasks(&CallContext::v1(), ListTasksRequest::default()).await;
    assert!(matches!(listed, Err(Error::UnsupportedOperation { .. })), "{listed:?}");

    let grpc = Client::builder().bindings([Binding::Grpc]).from_card(&card).unwrap();
    assert_eq!(grpc.selected().to_string(), format!("GRPC 0.3 at {}", server.addr()));
    assert_eq!(get(&grpc, &task.id).await.unwrap().id, task.id);

    // spec 3.6.3: pinned to 1.0, the client does not fall back; the error says what is offered.
    let error = Client::builder().protocol_version(V1_0).from_card(&card).unwrap_err();
    let text = error.to_string();
    assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error:?}");
    assert!(text.contains(&format!("JSONRPC 0.3 at {}", server.url())), "{text}");
    assert!(text.contains(&format!("GRPC 0.3 at {}", server.addr())), "{text}");
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn an_interface_s_tenant_travels_with_every_request() {
    let server = start().await;
    let plain = Client::connect(server.url()).await.unwrap();
    let served = Client::builder().fetch_card(server.url()).await.unwrap();
    for binding in Binding::ALL {
        // The served card with a tenant on each 1.0 interface.
        let mut card = served.clone();
        for interface in &mut card.supported_interfaces {
            if interface.protocol_version == "1.0" {
                interface.tenant = "acme".into();
            }
        }
        let client = Client::builder().bindings([binding]).from_card(&card).unwrap();
        assert_eq!(client.selected().tenant(), Some("acme"), "{binding}");
        let task = send_task(&client, "tenant work", false).await;
        assert_eq!(get(&client, &task.id).await.unwrap().id, task.id, "{binding}");
        // Tasks are scoped by tenant: without it the task is not found, with it, it is.
        assert!(matches!(get(&plain, &task.id).await, Err(Error::TaskNotFound { .. })), "{binding}");
        let with_tenant = GetTaskRequest { id: task.id.clone(), tenant: "acme".into(), ..Default::default() };
        plain.get_task(&CallContext::v1(), with_tenant).await.unwrap();
        // A request's own tenant wins over the interface's.
        let other = GetTaskRequest { id: task.id.clone(), tenant: "other".into(), ..Default::default() };
        let error = client.get_task(&CallContext::v1(), other).await.unwrap_err();
        assert!(matches!(error, Error::TaskNotFound { .. }), "{binding}: {error:?}");
    }
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn cards_that_cannot_be_fetched_or_read_are_clear_errors() {
    let server = start().await;
    // Nothing listens on port 9: a transport error naming the card URL.
    let error = Client::connect("http://127.0.0.1:9").await.unwrap_err();
    assert!(
        matches!(&error, Error::Transport { reason } if reason.contains("/.well-known/agent-card.json")),
        "{error:?}"
    );
    // A URL where the server has no card: 404.
    let error = Client::connect(format!("{}/elsewhere", server.url())).await.unwrap_err();
    assert!(matches!(&error, Error::Transport { reason } if reason.contains("404")), "{error:?}");
    assert!(matches!(Client::connect("not a url").await, Err(Error::Transport { .. })));
    server.shutdown().await.unwrap();

    // A body that is not a card: served by a tiny axum app.
    for (body, expected) in
        [("not json", "is not JSON"), (r#"{"supportedInterfaces": 5}"#, "not a valid agent card")]
    {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let app = axum::Router::new()
            .route(a2a_client::AGENT_CARD_PATH, axum::routing::get(move || async move { body }));
        let app = tokio::spawn(async move { axum::serve(listener, app).await });
        let error = Client::connect(&url).await.unwrap_err();
        assert!(
            matches!(&error, Error::InvalidAgentResponse { reason } if reason.contains(expected)),
            "{body}: {error:?}"
        );
        app.abort();
    }
}

/// The demo's `file` skill answer for one file (`a2a_demo`).
fn digest_line(bytes: &[u8], media_type: &str) -> String {
    use sha2::{Digest as _, Sha256};
    let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
    format!("{} bytes, sha256 {hex}, {media_type}", bytes.len())
}

async fn file_digest(client: &Client, file: &[u8]) -> String {
    let parts =
        vec![a2a_proto::v1::Part::text("file"), a2a_proto::v1::Part::raw(file.to_vec(), "text/plain")];
    let request = SendMessageRequest { message: Some(Message::user(parts)), ..Default::default() };
    match client.send_message(&CallContext::v1(), request).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => {
            assert_eq!(task.state(), TaskState::Completed, "{task:?}");
            artifact_text(&task)
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

#[tokio::test]
async fn the_0_3_file_bytes_option_reaches_grpc_and_rest_and_leaves_json_rpc_alone() {
    use a2a_client::ProtoFileBytes;
    let server = start().await;
    // `abcd` is itself base64 text, the one content our server's reading rule cannot tell apart
    // (`a2a_v03::file_bytes`): sent as bytes over a 0.3 proto binding it is read as base64 (the
    // documented ambiguity); sent as base64 text it arrives exactly. So the answer shows which
    // encoding went over the wire. A binary file arrives exactly either way.
    let ambiguous = b"abcd";
    let binary: Vec<u8> = (0..=255).collect();
    for binding in [Binding::JsonRpc, Binding::Rest, Binding::Grpc] {
        for encoding in [ProtoFileBytes::Bytes, ProtoFileBytes::Base64Text] {
            let client = Client::builder()
                .bindings([binding])
                .protocol_version(V0_3)
                .v03_file_bytes(encoding)
                .connect(server.url())
                .await
                .unwrap();
            let what = format!("{binding} {encoding:?}");
            let read_as_sent = binding == Binding::JsonRpc || encoding == ProtoFileBytes::Base64Text;
            let expected: &[u8] = if read_as_sent { ambiguous } else { &[0x69, 0xb7, 0x1d] };
            assert_eq!(file_digest(&client, ambiguous).await, digest_line(expected, "text/plain"), "{what}");
            assert_eq!(file_digest(&client, &binary).await, digest_line(&binary, "text/plain"), "{what}");
        }
    }
    server.shutdown().await.unwrap();
}
