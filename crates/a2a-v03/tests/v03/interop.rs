//! What peers actually send (docs/interop-notes.md and the SDKs' 0.3 layers), accepted on input.

use a2a_proto::v1::{
    part::Content, Message, Part, Role, SendMessageRequest, StreamResponse, Task, TaskPushNotificationConfig,
    TaskState,
};
use a2a_v03::{rest, Form, ProtoV03, Request, V03Request, V03};
use base64::Engine as _;
use serde_json::json;

#[test]
fn cancelled_with_two_ls_is_canceled_in_every_spelling() {
    // a2aproject/a2a-go#370: some peers send "cancelled".
    for state in ["canceled", "cancelled", "TASK_STATE_CANCELLED", "TASK_STATE_CANCELED"] {
        let task =
            Task::from_v03(&json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": state}}))
                .unwrap();
        assert_eq!(task.state(), TaskState::Canceled, "{state}");
        assert_eq!(task.to_v03(Form::Json)["status"]["state"], "canceled", "we send the 0.3 JSON spelling");
    }
}

#[test]
fn nulls_for_absent_members_are_accepted() {
    let message = Message::from_v03(&json!({
        "kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "x", "metadata": null}],
        "contextId": null, "taskId": null, "metadata": null, "extensions": null, "referenceTaskIds": null
    }))
    .unwrap();
    assert_eq!(message.text(), "x");
    let request =
        SendMessageRequest::from_v03(&json!({"message": message.to_v03(Form::Json), "configuration": null}))
            .unwrap();
    assert!(request.configuration.is_none());
    // Inside metadata, null is data.
    let part = Part::from_v03(&json!({"kind": "text", "text": "x", "metadata": {"k": null}})).unwrap();
    assert_eq!(part.to_v03(Form::Json)["metadata"], json!({"k": null}));
}

#[test]
fn proto_spellings_in_the_json_form_and_json_spellings_in_proto_are_read() {
    let message = Message::from_v03(&json!({
        "messageId": "m", "role": "ROLE_AGENT",
        "content": [{"text": "a"}, {"file": {"fileWithUri": "https://x/f", "mimeType": "text/csv"}}, {"data": {"data": {"k": 1}}}]
    }))
    .unwrap();
    assert_eq!(message.role(), Role::Agent);
    assert_eq!(message.parts[1], Part::url("https://x/f", "text/csv"));
    assert_eq!(message.parts[2].to_v03(Form::Json)["data"], json!({"k": 1}));
    // The legacy example of spec 1.0 A.2.1: `kind` with the proto's `fileWithBytes`.
    let legacy = Part::from_v03(&json!({"kind": "file", "file": {"name": "d.png", "mimeType": "image/png", "fileWithBytes": "iVBORw0KGgo="}}))
        .unwrap();
    assert_eq!(legacy.filename, "d.png");
    assert!(matches!(legacy.content, Some(Content::Raw(ref b)) if b.starts_with(&[0x89, b'P', b'N', b'G'])));
    // a2a-js's REST types accept snake_case `mime_type`.
    let js =
        Part::from_v03(&json!({"kind": "file", "file": {"uri": "https://x/y", "mime_type": "image/gif"}}))
            .unwrap();
    assert_eq!(js.media_type, "image/gif");
}

#[test]
fn python_base64_text_in_proto_bytes_reads_as_the_file_over_rest_and_grpc() {
    let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a];
    let base64_text = base64::engine::general_purpose::STANDARD.encode(png);
    // a2a-python 0.3: the proto bytes field holds the UTF-8 of the base64 text, so ProtoJSON shows
    // base64 of base64.
    let python_rest = json!({"file": {"fileWithBytes": base64::engine::general_purpose::STANDARD.encode(&base64_text), "mimeType": "image/png"}});
    assert_eq!(Part::from_v03(&python_rest).unwrap(), Part::raw(png.to_vec(), "image/png"));
    // a2a-js: the bytes themselves.
    let js_rest = json!({"file": {"fileWithBytes": base64_text, "mimeType": "image/png"}});
    assert_eq!(Part::from_v03(&js_rest).unwrap(), Part::raw(png.to_vec(), "image/png"));
    // gRPC: the same through the typed bridge.
    let python_grpc: a2a_proto::v0_3::Part = serde_json::from_value(python_rest).unwrap();
    assert_eq!(Part::from_v03_proto(&python_grpc).unwrap(), Part::raw(png.to_vec(), "image/png"));
}

/// Files of the 0.3 interop tests: binary (not UTF-8, so a2a-sdk cannot take it for its base64
/// text), text with a line break, and two bytes.
fn files() -> [Vec<u8>; 3] {
    let mut binary = b"\x89PNG\r\n\x1a\n".to_vec();
    binary.extend(0..=255u8);
    [binary, b"hello world\n".to_vec(), b"hi".to_vec()]
}

fn message_with(file: Vec<u8>) -> Message {
    Message::user(vec![Part::text("file"), Part::raw(file, "application/octet-stream")])
}

fn file_of(message: &Message) -> Vec<u8> {
    match &message.parts[1].content {
        Some(Content::Raw(bytes)) => bytes.clone(),
        other => panic!("not a file: {other:?}"),
    }
}

#[test]
fn both_encodings_of_proto_file_bytes_are_read_over_grpc_rest_and_json_rpc() {
    use a2a_proto::v0_3;
    let std = base64::engine::general_purpose::STANDARD;
    for file in files() {
        // What each SDK puts into `file_with_bytes`: @a2a-js/sdk the bytes, a2a-sdk the UTF-8 of
        // their base64 text.
        for (sdk, wire) in [("js", file.clone()), ("python", std.encode(&file).into_bytes())] {
            let proto_message = v0_3::Message {
                message_id: "m".into(),
                role: v0_3::Role::User as i32,
                content: vec![
                    v0_3::Part { part: Some(v0_3::part::Part::Text("file".into())) },
                    v0_3::Part {
                        part: Some(v0_3::part::Part::File(v0_3::FilePart {
                            file: Some(v0_3::file_part::File::FileWithBytes(wire.clone())),
                            mime_type: "application/octet-stream".into(),
                        })),
                    },
                ],
                ..Default::default()
            };
            // Server side, gRPC: the request message.
            let request =
                v0_3::SendMessageRequest { request: Some(proto_message.clone()), ..Default::default() };
            let read = SendMessageRequest::from_v03_proto(&request).unwrap();
            assert_eq!(file_of(read.message.as_ref().unwrap()), file, "{sdk} over gRPC");
            // Server side, HTTP+JSON: the same message as the ProtoJSON body.
            let body = serde_json::to_value(&request).unwrap();
            let Request::SendMessage(read) =
                rest::route("POST", "/v1/message:send", None, Some(&body)).unwrap()
            else {
                panic!("not a send")
            };
            assert_eq!(file_of(read.message.as_ref().unwrap()), file, "{sdk} over HTTP+JSON");
            // Client side: a reply (a Message) over gRPC and HTTP+JSON.
            assert_eq!(file_of(&Message::from_v03_proto(&proto_message).unwrap()), file, "{sdk} reply, gRPC");
            let reply = serde_json::to_value(&proto_message).unwrap();
            let read: Message = a2a_v03::client::read_reply(&reply).unwrap();
            assert_eq!(file_of(&read), file, "{sdk} reply, HTTP+JSON");
        }
        // JSON-RPC: the 0.3 JSON's `bytes` is base64 of the bytes in both SDKs, decoded once.
        let params = json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": [
            {"kind": "text", "text": "file"},
            {"kind": "file", "file": {"bytes": std.encode(&file), "mimeType": "application/octet-stream"}}
        ]}});
        let method = a2a_v03::Method::from_name("message/send").unwrap();
        let Request::SendMessage(read) = Request::from_jsonrpc(method, Some(&params)).unwrap() else {
            panic!()
        };
        assert_eq!(file_of(read.message.as_ref().unwrap()), file, "JSON-RPC");
    }
}

#[test]
fn a_client_sends_either_encoding_over_grpc_and_rest_and_json_rpc_is_unaffected() {
    use a2a_v03::ProtoFileBytes;
    let std = base64::engine::general_purpose::STANDARD;
    // How each SDK's 0.3 server reads `file_with_bytes` (see `a2a_v03::file_bytes`).
    let js_reads = |wire: &[u8]| Some(wire.to_vec());
    let python_reads = |wire: &[u8]| std::str::from_utf8(wire).ok().and_then(|text| std.decode(text).ok());
    for file in files() {
        for encoding in [ProtoFileBytes::Bytes, ProtoFileBytes::Base64Text] {
            let mut request =
                SendMessageRequest { message: Some(message_with(file.clone())), ..Default::default() };
            encoding.encode(&mut request);
            // gRPC: the 0.3 proto message.
            let proto = request.to_v03_proto().unwrap();
            let Some(a2a_proto::v0_3::part::Part::File(sent)) =
                &proto.request.as_ref().unwrap().content[1].part
            else {
                panic!("no file part")
            };
            let Some(a2a_proto::v0_3::file_part::File::FileWithBytes(wire)) = &sent.file else { panic!() };
            let expected = match encoding {
                ProtoFileBytes::Bytes => file.clone(),
                ProtoFileBytes::Base64Text => std.encode(&file).into_bytes(),
            };
            assert_eq!(wire, &expected, "{encoding:?}");
            // HTTP+JSON: the same bytes, base64 in ProtoJSON.
            let call = rest::http_call(&Request::SendMessage(request.clone())).unwrap();
            let body = call.body.unwrap();
            assert_eq!(body["message"]["content"][1]["file"]["fileWithBytes"], std.encode(&expected));
            // Who reads it right: our server always (both encodings are read); @a2a-js/sdk the
            // bytes; a2a-sdk the base64 text, and a non-UTF-8 file sent as bytes not at all.
            let ours = SendMessageRequest::from_v03_proto(&proto).unwrap();
            assert_eq!(file_of(ours.message.as_ref().unwrap()), file, "{encoding:?}, our server");
            match encoding {
                ProtoFileBytes::Bytes => assert_eq!(js_reads(wire), Some(file.clone())),
                ProtoFileBytes::Base64Text => assert_eq!(python_reads(wire), Some(file.clone())),
            }
        }
        // A binary file sent as bytes cannot be read by a2a-sdk (its `decode('utf-8')` fails).
        assert_eq!(python_reads(&files()[0]), None);
    }
}

#[test]
fn url_safe_and_unpadded_base64_is_accepted_in_json_bytes() {
    let bytes = vec![0xfb, 0xff, 0xfe];
    for encoded in ["+//+", "-__-"] {
        let part = Part::from_v03(&json!({"kind": "file", "file": {"bytes": encoded}})).unwrap();
        assert_eq!(part.content, Some(Content::Raw(bytes.clone())), "{encoded}");
    }
    let part = Part::from_v03(&json!({"kind": "file", "file": {"bytes": "aGk"}})).unwrap();
    assert_eq!(part.content, Some(Content::Raw(b"hi".to_vec())));
}

#[test]
fn rest_bodies_in_the_sdks_three_shapes_are_read() {
    // ProtoJSON (a2a-python, a2a-js and a2a-go clients).
    let proto = json!({"message": {"messageId": "m", "role": "ROLE_USER", "content": [{"text": "hi"}]},
                       "configuration": {"blocking": true}});
    // The 0.3 spec's REST sketch: the JSON-RPC objects inside `message`.
    let sketch = json!({"message": {"kind": "message", "messageId": "m", "role": "user", "parts": [{"kind": "text", "text": "hi"}]},
                        "configuration": {"blocking": true}});
    for body in [proto, sketch] {
        let Request::SendMessage(request) =
            rest::route("POST", "/v1/message:send", None, Some(&body)).unwrap()
        else {
            panic!()
        };
        assert_eq!(request.message.unwrap().text(), "hi");
    }
    // Push config: a2a-python posts CreateTaskPushNotificationConfigRequest, a2a-js the
    // TaskPushNotificationConfig, others the bare PushNotificationConfig.
    let bodies = [
        json!({"parent": "tasks/t1", "configId": "c", "config": {"pushNotificationConfig": {"url": "https://h/x"}}}),
        json!({"name": "tasks/t1/pushNotificationConfigs/c", "pushNotificationConfig": {"url": "https://h/x", "id": "c"}}),
        json!({"url": "https://h/x", "id": "c"}),
    ];
    for body in bodies {
        let Request::CreateTaskPushNotificationConfig(config) =
            rest::route("POST", "/v1/tasks/t1/pushNotificationConfigs", None, Some(&body)).unwrap()
        else {
            panic!()
        };
        let expected = TaskPushNotificationConfig {
            id: "c".into(),
            task_id: "t1".into(),
            url: "https://h/x".into(),
            ..Default::default()
        };
        assert_eq!(config, expected, "{body}");
    }
}

#[test]
fn stream_events_are_read_from_json_rpc_results_and_proto_wrappers() {
    let status = json!({"taskId": "t", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}});
    for value in [
        json!({"statusUpdate": status}),
        json!({"kind": "status-update", "taskId": "t", "contextId": "c", "status": {"state": "working"}, "final": false}),
    ] {
        let event = StreamResponse::from_v03(&value).unwrap();
        assert!(
            matches!(event.payload, Some(a2a_proto::v1::stream_response::Payload::StatusUpdate(_))),
            "{value}"
        );
    }
    // The proto's field name `msg` (json_name `message`) is read too.
    let message =
        StreamResponse::from_v03(&json!({"msg": {"messageId": "m", "role": "ROLE_AGENT", "content": []}}))
            .unwrap();
    assert!(matches!(message.payload, Some(a2a_proto::v1::stream_response::Payload::Message(_))));
}

#[test]
fn client_params_and_core_context_carry_both_extension_headers_and_the_wire_version() {
    let params = a2a_core::ServiceParams::v1().with("A2A-Extensions", "urn:a");
    let sent = a2a_v03::client_params(&params);
    assert_eq!(sent.version(), Some("0.3"));
    assert_eq!(sent.get("X-A2A-Extensions"), Some("urn:a"));
    let incoming =
        a2a_core::CallContext::new(a2a_core::ServiceParams::new().with("X-A2A-Extensions", "urn:b"));
    let core = a2a_v03::context_for_core(&incoming);
    assert_eq!(core.params.version(), Some("1.0"));
    assert_eq!(core.params.extensions(), ["urn:b"]);
    assert_eq!(core.wire_version, a2a_core::ProtocolVersion::V0_3, "core knows the caller spoke 0.3");
    assert_eq!(incoming.wire_version, a2a_core::ProtocolVersion::V1_0);
}
