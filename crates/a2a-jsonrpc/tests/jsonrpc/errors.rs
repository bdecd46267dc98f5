//! Every `a2a_core::Error` variant: its code and details on the wire (spec 5.4, 9.5), and the
//! error the client rebuilds from them.

use a2a_core::error::{FieldViolation, BAD_REQUEST_TYPE, ERROR_DOMAIN, ERROR_INFO_TYPE};
use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{GetTaskRequest, TaskState};
use serde_json::json;

use crate::support::{rpc, serve_scripted};

/// Each variant with the code spec 5.4 (and this binding, for the auth errors) assigns it.
fn every_error() -> Vec<(fn() -> Error, i64)> {
    vec![
        (|| Error::TaskNotFound { task_id: "task-x".into() }, -32001),
        (|| Error::TaskNotCancelable { task_id: "task-x".into(), state: TaskState::Completed }, -32002),
        (|| Error::PushNotificationNotSupported, -32003),
        (|| Error::unsupported("streaming is not supported"), -32004),
        (|| Error::ContentTypeNotSupported { media_type: "image/tiff".into() }, -32005),
        (|| Error::InvalidAgentResponse { reason: "no status".into() }, -32006),
        (|| Error::ExtendedAgentCardNotConfigured, -32007),
        (|| Error::ExtensionSupportRequired { uris: vec!["urn:a".into(), "urn:b".into()] }, -32008),
        (|| Error::VersionNotSupported { version: "0.5".into(), supported: vec!["1.0".into()] }, -32009),
        (|| Error::ParseError { reason: "bad byte".into() }, -32700),
        (|| Error::InvalidRequest { reason: "no method".into() }, -32600),
        (|| Error::MethodNotFound { method: "Frobnicate".into() }, -32601),
        (|| Error::invalid_param("message.parts", "At least one part is required"), -32602),
        (|| Error::Unauthenticated { reason: "missing bearer token".into() }, -32010),
        (|| Error::PermissionDenied { reason: "scope a2a.read missing".into() }, -32011),
        (|| Error::internal("database unavailable"), -32603),
        (|| Error::Transport { reason: "upstream agent unreachable".into() }, -32603),
    ]
}

const GET_TASK: &str = r#"{"jsonrpc":"2.0","id":"e1","method":"GetTask","params":{"id":"task-x"}}"#;

#[tokio::test]
async fn every_error_is_sent_with_its_spec_code_message_and_details() {
    for (make, code) in every_error() {
        let (server, service) = serve_scripted().await;
        service.fail_with(make);
        let expected = make();

        let answer = rpc(&server.url, GET_TASK).await;
        assert_eq!(answer["id"], "e1");
        assert!(answer.get("result").is_none(), "{answer}");
        assert_eq!(answer["error"]["code"], code, "{expected:?}");
        assert_eq!(answer["error"]["message"], expected.to_string());
        match expected.reason() {
            Some(reason) => {
                let info = &answer["error"]["data"][0];
                assert_eq!(info["@type"], ERROR_INFO_TYPE);
                assert_eq!(info["reason"], reason);
                assert_eq!(info["domain"], ERROR_DOMAIN);
            }
            // Standard errors: the BadRequest first for invalid params, then the ErrorInfo with the
            // reason the official SDKs use (their clients classify by ErrorInfo alone).
            None => match expected.error_info() {
                Some(expected_info) => {
                    let data = answer["error"]["data"].as_array().unwrap();
                    if code == -32602 {
                        assert_eq!(data[0]["@type"], BAD_REQUEST_TYPE);
                    }
                    let info = data.iter().find(|d| d["@type"] == ERROR_INFO_TYPE).unwrap();
                    assert_eq!(info["reason"], expected_info.reason, "{answer}");
                }
                // A Transport error (client side only) has no details: no data member.
                None => assert!(answer["error"].get("data").is_none(), "{answer}"),
            },
        }
    }
}

#[tokio::test]
async fn every_error_round_trips_through_server_and_client() {
    for (make, _) in every_error() {
        let (server, service) = serve_scripted().await;
        service.fail_with(make);
        let request = GetTaskRequest { id: "task-x".into(), ..Default::default() };
        let got = server.client().get_task(&CallContext::v1(), request).await.unwrap_err();

        let expected = match make() {
            // A server never sends Transport: it failed internally, which is what the client sees.
            Error::Transport { reason } => Error::internal(format_args!("transport error: {reason}")),
            other => other,
        };
        assert_eq!(format!("{got:?}"), format!("{expected:?}"));
    }
}

#[tokio::test]
async fn task_not_found_has_the_shape_of_the_spec_9_5_example() {
    let (server, service) = serve_scripted().await;
    service.fail_with(|| Error::TaskNotFound { task_id: "nonexistent-task-id".into() });
    let answer = rpc(
        &server.url,
        r#"{"jsonrpc":"2.0","id":2,"method":"GetTask","params":{"id":"nonexistent-task-id"}}"#,
    )
    .await;
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "error": {
            "code": -32001,
            "message": "task nonexistent-task-id not found",
            "data": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND",
                "domain": "a2a-protocol.org",
                "metadata": {"taskId": "nonexistent-task-id"}
            }]
        }})
    );
}

#[tokio::test]
async fn invalid_params_has_the_shape_of_the_spec_9_5_example() {
    let (server, service) = serve_scripted().await;
    service.fail_with(|| Error::invalid_param("message.parts", "At least one part is required"));
    let answer = rpc(&server.url, r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}"#).await;
    assert_eq!(answer["error"]["code"], -32602);
    // The spec's example object first, then the ErrorInfo the official SDKs' clients look for.
    assert_eq!(
        answer["error"]["data"],
        json!([{
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": "message.parts", "description": "At least one part is required"}]
        }, {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "INVALID_PARAMS",
            "domain": "a2a-protocol.org",
            "metadata": {}
        }])
    );
}

#[tokio::test]
async fn field_violations_survive_the_round_trip() {
    let (server, service) = serve_scripted().await;
    service.fail_with(|| Error::InvalidParams {
        violations: vec![
            FieldViolation { field: "pageSize".into(), description: "must be 1..=100".into() },
            FieldViolation { field: "status".into(), description: "unknown state".into() },
        ],
    });
    let got = server.client().list_tasks(&CallContext::v1(), Default::default()).await.unwrap_err();
    let fields: Vec<_> = got.field_violations().iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["pageSize", "status"]);
}
