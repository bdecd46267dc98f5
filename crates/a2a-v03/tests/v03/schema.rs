//! Everything the crate writes is valid 0.3: the JSON form against the 0.3 JSON Schema
//! (`a2a.json`), the ProtoJSON form against the 0.3 proto (unknown fields denied). Each 1.0 value
//! of the corpus is written both ways and checked, alone and inside the JSON-RPC envelope a 0.3
//! client would receive or a 0.3 server would be sent.

use a2a_v03::{Form, ProtoV03, V03Request, V03};
use serde_json::json;

use crate::corpus;
use crate::support::{assert_proto_valid, assert_schema_valid, request, success};

#[test]
fn the_validators_reject_what_0_3_forbids() {
    // Guards the checks below against passing vacuously.
    assert!(!crate::support::schema_valid("Task", &json!({"kind": "task", "id": "t"})), "contextId, status");
    assert!(!crate::support::schema_valid("Part", &json!({"kind": "file", "file": {"name": "x"}})));
    assert!(!crate::support::schema_valid("TaskStatus", &json!({"state": "cancelled"})));
    assert!(!crate::support::schema_valid(
        "Message",
        &json!({"kind": "message", "messageId": "m", "parts": []})
    ));
    for (message, value) in [
        ("Task", json!({"kind": "task"})),
        ("Task", json!({"status": {"state": "completed"}})),
        ("Part", json!({"text": "t", "metadata": {}})),
        ("Message", json!({"parts": []})),
    ] {
        assert!(crate::support::proto_error(message, &value).is_some(), "{message} {value} must be rejected");
    }
}

#[test]
fn parts_messages_artifacts_and_statuses_are_valid_in_both_forms() {
    for part in corpus::parts() {
        assert_schema_valid("Part", &part.to_v03(Form::Json));
        assert_proto_valid("Part", &part.to_v03(Form::ProtoJson));
    }
    for message in corpus::messages() {
        assert_schema_valid("Message", &message.to_v03(Form::Json));
        assert_proto_valid("Message", &message.to_v03(Form::ProtoJson));
    }
    for artifact in corpus::artifacts() {
        assert_schema_valid("Artifact", &artifact.to_v03(Form::Json));
        assert_proto_valid("Artifact", &artifact.to_v03(Form::ProtoJson));
    }
    for status in corpus::statuses() {
        assert_schema_valid("TaskStatus", &status.to_v03(Form::Json));
        assert_proto_valid("TaskStatus", &status.to_v03(Form::ProtoJson));
    }
}

#[test]
fn tasks_in_every_state_are_valid_results_of_get_and_cancel() {
    for task in corpus::tasks() {
        let json = task.to_v03(Form::Json);
        assert_schema_valid("Task", &json);
        assert_schema_valid("GetTaskSuccessResponse", &success(json.clone()));
        assert_schema_valid("CancelTaskSuccessResponse", &success(json));
        assert_proto_valid("Task", &task.to_v03(Form::ProtoJson));
    }
    // A task without a status still gets the status 0.3 requires.
    let bare = a2a_proto::v1::Task { id: "t".into(), ..Default::default() };
    assert_schema_valid("Task", &bare.to_v03(Form::Json));
}

#[test]
fn stream_events_are_valid_streaming_results() {
    for event in corpus::stream_responses() {
        let json = event.to_v03(Form::Json);
        assert_schema_valid("SendStreamingMessageSuccessResponse", &success(json));
        assert_proto_valid("StreamResponse", &event.to_v03(Form::ProtoJson));
    }
    for event in corpus::status_updates() {
        assert_schema_valid("TaskStatusUpdateEvent", &event.to_v03(Form::Json));
        assert_proto_valid("TaskStatusUpdateEvent", &event.to_v03(Form::ProtoJson));
    }
    for event in corpus::artifact_updates() {
        assert_schema_valid("TaskArtifactUpdateEvent", &event.to_v03(Form::Json));
        assert_proto_valid("TaskArtifactUpdateEvent", &event.to_v03(Form::ProtoJson));
    }
}

#[test]
fn send_results_are_valid_message_send_results() {
    for reply in corpus::send_responses() {
        assert_schema_valid("SendMessageSuccessResponse", &success(reply.to_v03(Form::Json)));
        assert_proto_valid("SendMessageResponse", &reply.to_v03(Form::ProtoJson));
    }
}

#[test]
fn push_configs_and_lists_are_valid_results() {
    for config in corpus::push_configs() {
        let json = config.to_v03(Form::Json);
        assert_schema_valid("TaskPushNotificationConfig", &json);
        assert_schema_valid("SetTaskPushNotificationConfigSuccessResponse", &success(json.clone()));
        assert_schema_valid("GetTaskPushNotificationConfigSuccessResponse", &success(json));
        assert_proto_valid("TaskPushNotificationConfig", &config.to_v03(Form::ProtoJson));
        let create = a2a_v03::proto::create_request_to_proto(&config).unwrap();
        assert_proto_valid("CreateTaskPushNotificationConfigRequest", &serde_json::to_value(create).unwrap());
    }
    for list in corpus::push_lists() {
        assert_schema_valid(
            "ListTaskPushNotificationConfigSuccessResponse",
            &success(list.to_v03(Form::Json)),
        );
        assert_proto_valid("ListTaskPushNotificationConfigResponse", &list.to_v03(Form::ProtoJson));
    }
    assert_schema_valid("DeleteTaskPushNotificationConfigSuccessResponse", &success(serde_json::Value::Null));
}

#[test]
fn client_requests_are_valid_0_3_requests() {
    for r in corpus::send_requests() {
        assert_schema_valid("SendMessageRequest", &request("message/send", Some(r.to_v03(Form::Json))));
        assert_schema_valid(
            "SendStreamingMessageRequest",
            &request("message/stream", Some(r.to_v03(Form::Json))),
        );
        assert_proto_valid("SendMessageRequest", &r.to_v03(Form::ProtoJson));
    }
    for r in corpus::get_task_requests() {
        assert_schema_valid("GetTaskRequest", &request("tasks/get", Some(r.to_v03(Form::Json))));
        assert_proto_valid("GetTaskRequest", &r.to_v03(Form::ProtoJson));
    }
    for r in corpus::cancel_requests() {
        assert_schema_valid("CancelTaskRequest", &request("tasks/cancel", Some(r.to_v03(Form::Json))));
        assert_proto_valid("CancelTaskRequest", &r.to_v03(Form::ProtoJson));
    }
    for r in corpus::subscribe_requests() {
        assert_schema_valid(
            "TaskResubscriptionRequest",
            &request("tasks/resubscribe", Some(r.to_v03(Form::Json))),
        );
        assert_proto_valid("TaskSubscriptionRequest", &r.to_v03(Form::ProtoJson));
    }
    for r in corpus::push_configs() {
        let params = r.to_v03(Form::Json);
        assert_schema_valid(
            "SetTaskPushNotificationConfigRequest",
            &request("tasks/pushNotificationConfig/set", Some(params)),
        );
    }
    for r in corpus::get_push_requests() {
        let params = r.to_v03(Form::Json);
        assert_schema_valid(
            "GetTaskPushNotificationConfigRequest",
            &request("tasks/pushNotificationConfig/get", Some(params)),
        );
        assert_proto_valid("GetTaskPushNotificationConfigRequest", &r.to_v03(Form::ProtoJson));
    }
    for r in corpus::delete_push_requests() {
        let params = r.to_v03(Form::Json);
        assert_schema_valid(
            "DeleteTaskPushNotificationConfigRequest",
            &request("tasks/pushNotificationConfig/delete", Some(params)),
        );
        assert_proto_valid("DeleteTaskPushNotificationConfigRequest", &r.to_v03(Form::ProtoJson));
    }
    for r in corpus::list_push_requests() {
        let params = r.to_v03(Form::Json);
        assert_schema_valid(
            "ListTaskPushNotificationConfigRequest",
            &request("tasks/pushNotificationConfig/list", Some(params)),
        );
        assert_proto_valid("ListTaskPushNotificationConfigRequest", &r.to_v03(Form::ProtoJson));
    }
    let card_request = a2a_v03::Request::GetExtendedAgentCard(Default::default());
    assert_eq!(card_request.to_jsonrpc_params(), None);
    assert_schema_valid(
        "GetAuthenticatedExtendedCardRequest",
        &request("agent/getAuthenticatedExtendedCard", None),
    );
    assert_proto_valid(
        "GetAgentCardRequest",
        &a2a_proto::v1::GetExtendedAgentCardRequest::default().to_v03(Form::ProtoJson),
    );
}

#[test]
fn union_and_proto_cards_are_valid_0_3_cards() {
    for card in corpus::cards() {
        let union = card.to_v03(Form::Json);
        assert_schema_valid("AgentCard", &union);
        assert_schema_valid("GetAuthenticatedExtendedCardSuccessResponse", &success(union));
        assert_proto_valid("AgentCard", &card.to_v03(Form::ProtoJson));
    }
}

#[test]
fn every_security_scheme_of_the_union_card_validates_as_its_0_3_kind() {
    let union = corpus::full_card().to_v03(Form::Json);
    let kinds = [
        ("key", "APIKeySecurityScheme"),
        ("bearer", "HTTPAuthSecurityScheme"),
        ("oidc", "OpenIdConnectSecurityScheme"),
        ("mtls", "MutualTLSSecurityScheme"),
        ("code", "OAuth2SecurityScheme"),
        ("client", "OAuth2SecurityScheme"),
        ("implicit", "OAuth2SecurityScheme"),
        ("password", "OAuth2SecurityScheme"),
        ("device", "OAuth2SecurityScheme"),
    ];
    for (name, definition) in kinds {
        assert_schema_valid(definition, &union["securitySchemes"][name]);
    }
    assert_eq!(union["securitySchemes"]["device"]["flows"], json!({}), "no device code flow in 0.3");
    assert!(union["securitySchemes"]["code"]["flows"]["authorizationCode"].get("pkceRequired").is_none());
    assert_eq!(union["security"], json!([{"oidc": ["openid", "profile"]}, {"key": []}]));
    assert_eq!(union["skills"][0]["security"], json!([{"bearer": ["echo"]}]));
    assert_eq!(union["skills"][1]["tags"], json!([]), "0.3 requires tags");
}

#[test]
fn every_error_is_a_valid_0_3_error_response() {
    let errors = a2a_core::error::testing::one_of_each();
    for error in errors {
        let response = json!({"jsonrpc": "2.0", "id": 1, "error": a2a_v03::error::to_v03(&error)});
        assert_schema_valid("JSONRPCErrorResponse", &response);
    }
}

#[test]
fn typed_0_3_messages_are_built_from_every_corpus_value() {
    // The gRPC bridge deserializes our ProtoJSON into the generated 0.3 types: it must never fail.
    for task in corpus::tasks() {
        task.to_v03_proto().unwrap();
    }
    for event in corpus::stream_responses() {
        event.to_v03_proto().unwrap();
    }
    for card in corpus::cards() {
        card.to_v03_proto().unwrap();
    }
    for request in corpus::send_requests() {
        request.to_v03_proto().unwrap();
    }
    for list in corpus::push_lists() {
        list.to_v03_proto().unwrap();
    }
}
