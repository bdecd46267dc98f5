//! Every JSON example of the 0.3 specification (`tests/fixtures/spec`, see its README) parses and
//! translates; the three that are not valid 0.3 are rejected naming the offending field, as the
//! 0.3 JSON Schema rejects them too.

use a2a_proto::v1::{security_scheme, AgentCard, Role, SendMessageResponse, StreamResponse, Task, TaskState};
use a2a_v03::{Form, Method, Request, V03Request, V03};

use crate::support::{assert_schema_valid, fixture, schema_valid, spec_examples, success};

/// The examples that are not valid 0.3 and the field our translation names.
const INVALID: [(&str, &str); 3] = [
    // A file part with `data` instead of `bytes` or `uri` (and a placeholder for the content).
    ("9_3-1-request-message-stream.json", "message.parts[1].file"),
    ("9_3-2-response.json", "history[0].parts[1].file"),
    // `"bytes": "iVBORw0KGgoAAAANSUhEUgAAAAUA..."`: the elision is not base64.
    ("9_6-1-request-message-send.json", "message.parts[1].file.bytes"),
];

fn expected_error(name: &str) -> Option<&'static str> {
    INVALID.iter().find(|(file, _)| *file == name).map(|(_, field)| *field)
}

#[test]
fn every_example_is_read_or_rejected_naming_the_field() {
    let examples = spec_examples();
    assert_eq!(examples.len(), 23, "the 0.3 spec has 23 JSON examples (SSE streams split per event)");
    for (name, example) in examples {
        let outcome: Result<(), a2a_core::Error> = if name.contains("-request-") {
            let method = Method::from_name(example["method"].as_str().unwrap()).unwrap();
            Request::from_jsonrpc(method, example.get("params")).map(drop)
        } else if name.contains("-response") {
            StreamResponse::from_v03(&example["result"]).map(drop)
        } else if name.contains("-push-body") {
            Task::from_v03(&example).map(drop)
        } else {
            AgentCard::from_v03(&example).map(drop)
        };
        match (expected_error(&name), outcome) {
            (None, Ok(())) => {}
            (Some(field), Err(error)) => {
                assert_eq!(error.field_violations()[0].field, field, "{name}: {error}");
                let definition = if name.contains("-request-") { "A2ARequest" } else { "JSONRPCResponse" };
                assert!(!schema_valid(definition, &example), "{name} is invalid 0.3 for the schema too");
            }
            (expected, got) => panic!("{name}: expected {expected:?}, got {got:?}"),
        }
    }
}

#[test]
fn the_valid_examples_translate_back_into_schema_valid_0_3() {
    for (name, example) in spec_examples() {
        if expected_error(&name).is_some() {
            continue;
        }
        if name.contains("-response") {
            let event = StreamResponse::from_v03(&example["result"]).unwrap();
            assert_schema_valid("SendStreamingMessageSuccessResponse", &success(event.to_v03(Form::Json)));
        } else if name.contains("-request-message") {
            let method = Method::from_name(example["method"].as_str().unwrap()).unwrap();
            let request = Request::from_jsonrpc(method, example.get("params")).unwrap();
            let params = request.to_jsonrpc_params().unwrap();
            let mut rebuilt = example.clone();
            rebuilt["params"] = params;
            if name.starts_with("9_4-1") {
                // The example puts `messageId` beside `message` instead of inside it: invalid 0.3;
                // what we write back is valid, with the (empty) id where 0.3 requires it.
                assert!(!schema_valid("SendMessageRequest", &example));
                assert_eq!(rebuilt["params"]["message"]["messageId"], "");
            }
            let definition = if method == Method::MessageStream {
                "SendStreamingMessageRequest"
            } else {
                "SendMessageRequest"
            };
            assert_schema_valid(definition, &rebuilt);
        }
    }
}

#[test]
fn message_send_example_9_2_becomes_a_blocking_send_of_the_user_text() {
    let example = fixture("spec/9_2-1-request-message-send.json");
    let Request::SendMessage(request) =
        Request::from_jsonrpc(Method::MessageSend, example.get("params")).unwrap()
    else {
        panic!()
    };
    let message = request.message.unwrap();
    assert_eq!(message.message_id, "9229e770-767c-417b-a0b0-f0741243c589");
    assert_eq!(message.role(), Role::User);
    assert_eq!(message.text(), "tell me a joke");
    assert!(request.configuration.is_none(), "no configuration: 1.0's default, which blocks");
    assert_eq!(request.metadata, Some(Default::default()), "`metadata: {{}}` is kept");
}

#[test]
fn the_9_2_replies_are_a_task_and_a_message() {
    let task = SendMessageResponse::from_v03(&fixture("spec/9_2-2-response.json")["result"]).unwrap();
    let Some(a2a_proto::v1::send_message_response::Payload::Task(task)) = task.payload else { panic!() };
    assert_eq!(task.state(), TaskState::Completed);
    assert_eq!(task.artifacts[0].name, "joke");
    assert_eq!(task.history[0].task_id, task.id);
    let message = SendMessageResponse::from_v03(&fixture("spec/9_2-4-response.json")["result"]).unwrap();
    assert!(matches!(message.payload, Some(a2a_proto::v1::send_message_response::Payload::Message(_))));
}

#[test]
fn the_9_3_stream_is_artifact_chunks_then_a_final_completed_update() {
    let events: Vec<StreamResponse> = (3..=6)
        .map(|n| {
            StreamResponse::from_v03(&fixture(&format!("spec/9_3-{n}-response.json"))["result"]).unwrap()
        })
        .collect();
    use a2a_proto::v1::stream_response::Payload;
    let chunks: Vec<(bool, bool)> = events[..3]
        .iter()
        .map(|e| match &e.payload {
            Some(Payload::ArtifactUpdate(u)) => (u.append, u.last_chunk),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(chunks, [(false, false), (true, false), (true, true)]);
    let Some(Payload::StatusUpdate(last)) = &events[3].payload else { panic!() };
    assert_eq!(last.status.as_ref().unwrap().state(), TaskState::Completed);
    assert!(a2a_v03::ends_v03_stream(&events[3]));
    assert_eq!(events[3].to_v03(Form::Json)["final"], true);
    // "2025-04-02T16:59:35.331844" has no offset: read as UTC.
    assert_eq!(events[3].to_v03(Form::Json)["status"]["timestamp"], "2025-04-02T16:59:35.331844Z");
}

#[test]
fn the_9_4_conversation_continues_a_task_in_input_required() {
    let asked = Task::from_v03(&fixture("spec/9_4-2-response.json")["result"]).unwrap();
    assert_eq!(asked.state(), TaskState::InputRequired);
    assert!(asked.status.as_ref().unwrap().message.as_ref().unwrap().text().starts_with("Sure"));
    let answer = fixture("spec/9_4-3-request-message-send.json");
    let Request::SendMessage(request) =
        Request::from_jsonrpc(Method::MessageSend, answer.get("params")).unwrap()
    else {
        panic!()
    };
    assert_eq!(request.message.as_ref().unwrap().task_id, asked.id);
    assert!(!request.configuration.unwrap().return_immediately, "blocking: true");
    let done = Task::from_v03(&fixture("spec/9_4-4-response.json")["result"]).unwrap();
    assert_eq!(done.state(), TaskState::Completed);
    assert_eq!(done.history.len(), 3);
    // The example's 9.4 step 1 puts messageId outside the message: it translates with an empty
    // id, which core then reports as `message.messageId: is required`.
    let first = fixture("spec/9_4-1-request-message-send.json");
    let Request::SendMessage(first) =
        Request::from_jsonrpc(Method::MessageSend, first.get("params")).unwrap()
    else {
        panic!()
    };
    assert_eq!(first.message.unwrap().message_id, "");
}

#[test]
fn the_9_5_push_config_in_a_send_becomes_the_1_0_task_push_config() {
    let example = fixture("spec/9_5-1-request-message-send.json");
    let Request::SendMessage(request) =
        Request::from_jsonrpc(Method::MessageSend, example.get("params")).unwrap()
    else {
        panic!()
    };
    let push = request.configuration.unwrap().task_push_notification_config.unwrap();
    assert_eq!(push.url, "https://client.example.com/webhook/a2a-notifications");
    assert_eq!(push.token, "secure-client-token-for-task-aaa");
    assert_eq!(push.authentication.unwrap().scheme, "Bearer");
    // The acknowledgement has no `kind`: its members make it a task.
    let ack = SendMessageResponse::from_v03(&fixture("spec/9_5-2-response.json")["result"]).unwrap();
    assert!(matches!(ack.payload, Some(a2a_proto::v1::send_message_response::Payload::Task(_))));
    let body = Task::from_v03(&fixture("spec/9_5-3-push-body.json")).unwrap();
    assert_eq!(body.state(), TaskState::Completed);
}

#[test]
fn the_9_6_reply_file_is_a_url_part_and_9_7_data_is_a_struct() {
    let task = Task::from_v03(&fixture("spec/9_6-2-response.json")["result"]).unwrap();
    let part = &task.artifacts[0].parts[0];
    assert_eq!(part.media_type, "image/png");
    assert_eq!(part.filename, "output.png");
    assert!(
        matches!(&part.content, Some(a2a_proto::v1::part::Content::Url(u)) if u.starts_with("https://storage"))
    );
    let request = fixture("spec/9_7-1-request-message-send.json");
    let Request::SendMessage(request) =
        Request::from_jsonrpc(Method::MessageSend, request.get("params")).unwrap()
    else {
        panic!()
    };
    let metadata = request.message.unwrap().parts[0].metadata.clone().unwrap();
    assert!(metadata.fields.contains_key("schema"), "part metadata is kept");
}

#[test]
fn the_5_7_sample_card_becomes_a_1_0_card() {
    let card = AgentCard::from_v03(&fixture("spec/5_7-1-agent-card.json")).unwrap();
    let interfaces: Vec<_> = card
        .supported_interfaces
        .iter()
        .map(|i| (i.url.as_str(), i.protocol_binding.as_str(), i.protocol_version.as_str()))
        .collect();
    assert_eq!(
        interfaces,
        [
            ("https://georoute-agent.example.com/a2a/v1", "JSONRPC", "0.2"),
            ("https://georoute-agent.example.com/a2a/grpc", "GRPC", "0.2"),
            ("https://georoute-agent.example.com/a2a/json", "HTTP+JSON", "0.2"),
        ],
        "the card says protocolVersion 0.2.9; the main url is not repeated"
    );
    assert_eq!(card.capabilities.as_ref().unwrap().extended_agent_card, Some(true));
    assert!(matches!(
        card.security_schemes["google"].scheme,
        Some(security_scheme::Scheme::OpenIdConnectSecurityScheme(_))
    ));
    assert_eq!(card.security_requirements[0].schemes["google"].list, ["openid", "profile", "email"]);
    assert_eq!(card.skills.len(), 2);
    assert_eq!(card.icon_url.as_deref(), Some("https://georoute-agent.example.com/icon.png"));
    assert_eq!(card.signatures.len(), 1);
    // And back: the union card of it is a valid 0.3 card.
    let union = card.to_v03(Form::Json);
    assert_schema_valid("AgentCard", &union);
    assert_eq!(union["url"], "https://georoute-agent.example.com/a2a/v1");
    assert_eq!(union["securitySchemes"]["google"]["type"], "openIdConnect");
}
