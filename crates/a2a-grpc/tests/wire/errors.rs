//! Every `a2a_core::Error` variant: its status on the wire (spec 5.4's code, spec 10.6's
//! ErrorInfo or BadRequest details), read by the generated tonic client, and what `GrpcClient`
//! makes of it again.

use std::collections::HashMap;

use a2a_core::{A2aService, CallContext, Error};
use a2a_proto::v1::{GetTaskRequest, Message, SendMessageRequest, SubscribeToTaskRequest};
use tonic::Code;

use crate::support::{assert_same_error, error_cases, error_trigger, wire_details, Scripted, TestServer};

fn get_task(id: String) -> GetTaskRequest {
    GetTaskRequest { id, ..Default::default() }
}

#[tokio::test]
async fn every_error_has_its_spec_5_4_code_and_spec_10_6_details_on_the_wire() {
    let server = TestServer::start(Scripted::new()).await;
    let mut raw = server.raw_client().await;

    for (index, case) in error_cases().into_iter().enumerate() {
        let status = raw.get_task(get_task(error_trigger(index))).await.unwrap_err();
        let label = format!("{:?}", case.error);
        assert_eq!(status.code(), case.code, "{label}");
        assert_eq!(status.message(), expected_message(&case.error), "{label}");

        let details = wire_details(&status);
        match case.reason {
            Some(reason) => {
                let info = details.error_info.as_ref().unwrap_or_else(|| panic!("{label}: no ErrorInfo"));
                assert_eq!(info.reason, reason, "{label}");
                assert_eq!(info.domain, "a2a-protocol.org", "{label}");
                let expected: HashMap<_, _> = case.error.error_info().unwrap().metadata.into_iter().collect();
                assert_eq!(info.metadata, expected, "{label}");
            }
            // Standard errors carry the reason the official SDKs use (their clients classify
            // by ErrorInfo alone); only a server-side Transport error has none.
            None => match case.error.error_info() {
                Some(expected) => {
                    let info = details.error_info.as_ref().unwrap_or_else(|| panic!("{label}: no ErrorInfo"));
                    assert_eq!((&info.reason, &info.domain), (&expected.reason, &expected.domain), "{label}");
                }
                None => assert!(details.error_info.is_none(), "{label}: Transport carries no ErrorInfo"),
            },
        }
        match &case.error {
            Error::InvalidParams { violations } => {
                let bad_request =
                    details.bad_request.as_ref().unwrap_or_else(|| panic!("{label}: no BadRequest"));
                let sent: Vec<_> = bad_request
                    .field_violations
                    .iter()
                    .map(|v| (v.field.as_str(), v.description.as_str()))
                    .collect();
                let expected: Vec<_> =
                    violations.iter().map(|v| (v.field.as_str(), v.description.as_str())).collect();
                assert_eq!(sent, expected, "{label}");
                assert!(
                    details.type_urls.iter().any(|t| t == "type.googleapis.com/google.rpc.BadRequest"),
                    "{label}"
                );
            }
            _ => assert!(details.bad_request.is_none(), "{label}: only invalid params carry a BadRequest"),
        }
    }

    drop(raw);
    server.stop().await;
}

/// The message is for people; A2A errors send their Display text, the errors whose kind the code
/// already tells send their bare reason.
fn expected_message(error: &Error) -> String {
    match error {
        Error::Unauthenticated { reason }
        | Error::PermissionDenied { reason }
        | Error::Internal { reason }
        | Error::Transport { reason } => reason.clone(),
        other => other.to_string(),
    }
}

#[tokio::test]
async fn every_error_comes_back_through_the_client_as_the_wire_allows() {
    let server = TestServer::start(Scripted::new()).await;
    let client = server.client().await;

    for (index, case) in error_cases().into_iter().enumerate() {
        let error = client.get_task(&CallContext::v1(), get_task(error_trigger(index))).await.unwrap_err();
        assert_same_error(&error, &case.back);
    }

    drop(client);
    server.stop().await;
}

#[tokio::test]
async fn errors_before_a_stream_starts_are_the_calls_status() {
    let server = TestServer::start(Scripted::new()).await;
    let client = server.client().await;
    let mut raw = server.raw_client().await;
    let not_found = 0; // error_cases()[0] is TaskNotFound

    let request = SendMessageRequest {
        message: Some(Message::user_text(error_trigger(not_found))),
        ..Default::default()
    };
    let status = raw.send_streaming_message(request.clone()).await.unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    assert_eq!(wire_details(&status).error_info.unwrap().reason, "TASK_NOT_FOUND");
    // Ours reports it from the call itself, not as a stream item.
    let error = client.send_streaming_message(&CallContext::v1(), request).await.err().unwrap();
    assert_same_error(&error, &error_cases().swap_remove(not_found).back);

    let request = SubscribeToTaskRequest { id: error_trigger(not_found), ..Default::default() };
    let status = raw.subscribe_to_task(request.clone()).await.unwrap_err();
    assert_eq!(status.code(), Code::NotFound);
    let error = client.subscribe_to_task(&CallContext::v1(), request).await.err().unwrap();
    assert!(matches!(error, Error::TaskNotFound { task_id } if task_id == "task-9"));

    drop((client, raw));
    server.stop().await;
}
