//! Every `a2a_core::Error` on the wire (spec 5.4 status, spec 11.6 body, ErrorInfo) and back
//! through the client; errors before and during streams.

use std::mem::discriminant;

use a2a_core::error::FieldViolation;
use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{GetTaskRequest, Message, SendMessageRequest, SubscribeToTaskRequest, TaskState};
use serde_json::Value;

use crate::support::{client, collect, events, serve};

/// Every variant, with the HTTP status and google.rpc.Code of spec 5.4 (1.0.1) and the brief's
/// table for the standard errors.
fn every_error() -> Vec<(Error, u16, &'static str)> {
    vec![
        (Error::TaskNotFound { task_id: "task-123".into() }, 404, "NOT_FOUND"),
        (
            Error::TaskNotCancelable { task_id: "t".into(), state: TaskState::Completed },
            400,
            "FAILED_PRECONDITION",
        ),
        (Error::PushNotificationNotSupported, 400, "FAILED_PRECONDITION"),
        (Error::unsupported("streaming is not supported"), 400, "FAILED_PRECONDITION"),
        (Error::ContentTypeNotSupported { media_type: "image/tiff".into() }, 400, "INVALID_ARGUMENT"),
        (Error::InvalidAgentResponse { reason: "no task".into() }, 500, "INTERNAL"),
        (Error::ExtendedAgentCardNotConfigured, 400, "FAILED_PRECONDITION"),
        (
            Error::ExtensionSupportRequired { uris: vec!["urn:a".into(), "urn:b".into()] },
            400,
            "FAILED_PRECONDITION",
        ),
        (
            Error::VersionNotSupported { version: "0.5".into(), supported: vec!["1.0".into()] },
            400,
            "FAILED_PRECONDITION",
        ),
        (Error::ParseError { reason: "eof".into() }, 400, "INVALID_ARGUMENT"),
        (Error::InvalidRequest { reason: "bad".into() }, 400, "INVALID_ARGUMENT"),
        (Error::MethodNotFound { method: "Frobnicate".into() }, 404, "UNIMPLEMENTED"),
        (
            Error::InvalidParams {
                violations: vec![
                    FieldViolation { field: "pageSize".into(), description: "must be 1..=100".into() },
                    FieldViolation { field: "historyLength".into(), description: "must be >= 0".into() },
                ],
            },
            400,
            "INVALID_ARGUMENT",
        ),
        (Error::Unauthenticated { reason: "missing token".into() }, 401, "UNAUTHENTICATED"),
        (Error::PermissionDenied { reason: "not yours".into() }, 403, "PERMISSION_DENIED"),
        (Error::Internal { reason: "db down".into() }, 500, "INTERNAL"),
        (Error::Transport { reason: "upstream gone".into() }, 503, "UNAVAILABLE"),
    ]
}

#[tokio::test]
async fn every_error_has_its_spec_status_and_google_rpc_status_body() {
    let (service, server) = serve().await;
    for (error, status, rpc_status) in every_error() {
        let description = format!("{error:?}");
        let message = error.to_string();
        let reason = error.reason();
        let is_invalid_params = matches!(error, Error::InvalidParams { .. });
        let has_error_info = error.error_info().is_some();
        service.fail_next(error);

        let response = reqwest::get(server.url("/tasks/t")).await.unwrap();

        assert_eq!(response.status().as_u16(), status, "{description}");
        assert_eq!(response.headers()["content-type"], "application/a2a+json", "{description}");
        let body: Value = response.json().await.unwrap();
        let error = &body["error"];
        assert_eq!(error["code"], status, "{description}");
        assert_eq!(error["status"], rpc_status, "{description}");
        assert_eq!(error["message"], message, "{description}");
        let details = error["details"].as_array().unwrap();
        match reason {
            // spec 11.6: A2A errors MUST carry an ErrorInfo with the reason and domain.
            Some(reason) => {
                assert_eq!(details[0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo", "{description}");
                assert_eq!(details[0]["reason"], reason, "{description}");
                assert_eq!(details[0]["domain"], "a2a-protocol.org", "{description}");
            }
            None if is_invalid_params => {
                assert_eq!(details[0]["@type"], "type.googleapis.com/google.rpc.BadRequest");
                assert_eq!(details[0]["fieldViolations"][1]["field"], "historyLength");
                assert_eq!(details[1]["reason"], "INVALID_PARAMS", "the ErrorInfo the SDKs' clients read");
            }
            // A Transport error (client side only) has no details.
            None if !has_error_info => assert!(details.is_empty(), "{description}"),
            // Standard errors carry the ErrorInfo reason the official SDKs use.
            None => {
                assert_eq!(details.len(), 1, "{description}: {details:?}");
                assert_eq!(details[0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo", "{description}");
                assert_eq!(details[0]["domain"], "a2a-protocol.org", "{description}");
            }
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn spec_11_6_task_not_found_example_metadata_names_the_task() {
    let (service, server) = serve().await;
    service.fail_next(Error::TaskNotFound { task_id: "task-123".into() });
    let body: Value = reqwest::get(server.url("/tasks/task-123")).await.unwrap().json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["metadata"]["taskId"], "task-123");
    server.stop().await;
}

#[tokio::test]
async fn every_error_round_trips_through_the_client() {
    let (service, server) = serve().await;
    let client = client(&server);
    for (error, _, _) in every_error() {
        let sent = format!("{error:?}");
        let exact = error.reason().is_some() || matches!(error, Error::InvalidParams { .. });
        // ParseError and InvalidRequest look like a validation error on the wire (400,
        // INVALID_ARGUMENT, no details): they come back as InvalidParams, as on the other bindings.
        let expected_kind = match &error {
            Error::ParseError { .. } | Error::InvalidRequest { .. } => {
                discriminant(&Error::InvalidParams { violations: Vec::new() })
            }
            other => discriminant(other),
        };
        let reason_text = match &error {
            Error::ParseError { reason }
            | Error::InvalidRequest { reason }
            | Error::Unauthenticated { reason }
            | Error::PermissionDenied { reason }
            | Error::Internal { reason }
            | Error::Transport { reason } => reason.clone(),
            Error::MethodNotFound { method } => method.clone(),
            _ => String::new(),
        };
        service.fail_next(error);

        let received = client
            .get_task(&CallContext::v1(), GetTaskRequest { id: "t".into(), ..Default::default() })
            .await
            .unwrap_err();

        if exact {
            assert_eq!(format!("{received:?}"), sent, "A2A errors and field violations come back whole");
        } else {
            assert_eq!(discriminant(&received), expected_kind, "{sent} came back as {received:?}");
            assert!(received.to_string().contains(&reason_text), "{sent} came back as {received:?}");
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn an_error_before_the_stream_starts_is_an_ordinary_error_response() {
    let (service, server) = serve().await;
    service.fail_next(Error::unsupported("streaming is not supported"));
    let response = reqwest::Client::new()
        .post(server.url("/message:stream"))
        .body(r#"{"message": {"role": "ROLE_USER", "parts": [{"text": "hi"}], "messageId": "m"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(response.headers()["content-type"], "application/a2a+json");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["details"][0]["reason"], "UNSUPPORTED_OPERATION");

    service.fail_next(Error::TaskNotFound { task_id: "gone".into() });
    let err = client(&server)
        .subscribe_to_task(
            &CallContext::v1(),
            SubscribeToTaskRequest { id: "gone".into(), ..Default::default() },
        )
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::TaskNotFound { ref task_id } if task_id == "gone"), "{err:?}");
    server.stop().await;
}

#[tokio::test]
async fn an_error_during_a_stream_is_a_final_error_event() {
    let (service, server) = serve().await;
    service.fail_next_stream_after(1, Error::Internal { reason: "executor crashed".into() });
    let response = reqwest::Client::new().get(server.url("/tasks/t1:subscribe")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let text = response.text().await.unwrap();

    let blocks: Vec<&str> = text.split("\n\n").filter(|b| !b.trim().is_empty()).collect();
    assert_eq!(blocks.len(), 2, "{text}");
    assert!(blocks[0].starts_with("data: {\"task\""), "{text}");
    let mut lines = blocks[1].lines();
    assert_eq!(lines.next(), Some("event: error"));
    let data: Value = serde_json::from_str(lines.next().unwrap().strip_prefix("data: ").unwrap()).unwrap();
    assert_eq!(data["error"]["code"], 500);
    assert_eq!(data["error"]["status"], "INTERNAL");
    assert_eq!(data["error"]["message"], "internal error: executor crashed");
    server.stop().await;
}

#[tokio::test]
async fn the_client_yields_a_stream_error_and_ends_the_stream() {
    let (service, server) = serve().await;
    service.fail_next_stream_after(1, Error::TaskNotFound { task_id: "task-uuid".into() });
    let request = SendMessageRequest { message: Some(Message::user_text("hi")), ..Default::default() };

    let stream = client(&server).send_streaming_message(&CallContext::v1(), request).await.unwrap();
    let received = collect(stream).await;

    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(received[0].as_ref().unwrap(), &events("task-uuid")[0]);
    assert!(matches!(&received[1], Err(Error::TaskNotFound { task_id }) if task_id == "task-uuid"));
    server.stop().await;
}

#[tokio::test]
async fn connection_refused_is_a_transport_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let client = a2a_rest::RestClient::new(&base).unwrap();

    let err = client
        .get_task(&CallContext::v1(), GetTaskRequest { id: "t".into(), ..Default::default() })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    let err = client
        .subscribe_to_task(
            &CallContext::v1(),
            SubscribeToTaskRequest { id: "t".into(), ..Default::default() },
        )
        .await
        .err()
        .unwrap();
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
}
