//! What peers actually send (INTEROP-NOTES and the SDKs' 0.3 layers), accepted on input.

use a2a_proto::v1::{
    part::Content, Message, Part, Role, SendMessageRequest, StreamResponse, Task, TaskPushNotificationConfig,
    TaskState,
};
use a2a_v03::{rest, Form, ProtoV03, Request, V03};
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
