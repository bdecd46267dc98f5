//! Hand-written requests, mostly the examples of spec 9.4 verbatim, against the server.

use a2a_core::Operation;
use serde_json::json;

use crate::support::{post_raw, rpc, serve_scripted};

#[tokio::test]
async fn spec_9_4_1_send_message_with_the_spec_6_1_message_returns_a_task() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{
          "jsonrpc": "2.0",
          "id": 1,
          "method": "SendMessage",
          "params": {
            "message": {
              "role": "ROLE_USER",
              "parts": [{"text": "What is the weather today?"}],
              "messageId": "msg-uuid"
            }
          }
        }"#,
    )
    .await;

    assert_eq!(answer["jsonrpc"], "2.0");
    assert_eq!(answer["id"], 1);
    assert_eq!(answer["result"]["task"]["id"], "task-1");
    assert_eq!(answer["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(answer.get("error").is_none());
    assert_eq!(service.last_call().request["message"]["role"], "ROLE_USER");
}

#[tokio::test]
async fn spec_9_4_3_get_task_example() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{
          "jsonrpc": "2.0",
          "id": 2,
          "method": "GetTask",
          "params": {
            "id": "task-uuid",
            "historyLength": 10
          }
        }"#,
    )
    .await;

    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 2, "result": {
            "id": "task-uuid", "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}})
    );
    assert_eq!(service.last_call().request, json!({"id": "task-uuid", "historyLength": 10}));
}

#[tokio::test]
async fn spec_9_4_4_list_tasks_example() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{
          "jsonrpc": "2.0",
          "id": 3,
          "method": "ListTasks",
          "params": {
            "contextId": "context-uuid",
            "status": "TASK_STATE_WORKING",
            "pageSize": 50,
            "pageToken": "cursor-token"
          }
        }"#,
    )
    .await;

    assert_eq!(answer["id"], 3);
    assert_eq!(answer["result"]["tasks"][0]["id"], "task-1");
    assert_eq!(answer["result"]["pageSize"], 50);
    assert_eq!(
        service.last_call().request,
        json!({"contextId": "context-uuid", "status": "TASK_STATE_WORKING", "pageSize": 50,
               "pageToken": "cursor-token"})
    );
}

#[tokio::test]
async fn spec_9_4_5_cancel_task_example() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{
          "jsonrpc": "2.0",
          "id": 4,
          "method": "CancelTask",
          "params": {
            "id": "task-uuid"
          }
        }"#,
    )
    .await;

    assert_eq!(answer["id"], 4);
    assert_eq!(answer["result"]["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(service.last_call().operation, Operation::CancelTask);
}

#[tokio::test]
async fn spec_9_4_6_subscribe_to_task_example_answers_an_event_stream() {
    let (server, _service) = serve_scripted().await;
    let raw = post_raw(
        &server.url,
        r#"{
          "jsonrpc": "2.0",
          "id": 5,
          "method": "SubscribeToTask",
          "params": {
            "id": "task-uuid"
          }
        }"#,
        &[("A2A-Version", "1.0")],
    )
    .await;

    assert_eq!(raw.status, 200);
    assert_eq!(raw.content_type, "text/event-stream");
    let events = raw.events();
    assert_eq!(events.len(), 4, "{}", raw.body);
    assert!(events.iter().all(|e| e["jsonrpc"] == "2.0" && e["id"] == 5), "{}", raw.body);
    assert_eq!(events[0]["result"]["task"]["id"], "task-uuid");
}

#[tokio::test]
async fn spec_9_4_8_get_extended_agent_card_example_without_params() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{
          "jsonrpc": "2.0",
          "id": 6,
          "method": "GetExtendedAgentCard"
        }"#,
    )
    .await;

    assert_eq!(answer["id"], 6);
    assert_eq!(answer["result"]["name"], "Scripted Agent");
    assert_eq!(answer["result"]["capabilities"]["streaming"], true);
    assert_eq!(service.last_call().operation, Operation::GetExtendedAgentCard);
}

#[tokio::test]
async fn push_config_methods_take_the_proto_messages_as_params() {
    let (server, service) = serve_scripted().await;
    let created = rpc(
        &server.url,
        r#"{"jsonrpc": "2.0", "id": 7, "method": "CreateTaskPushNotificationConfig", "params": {
            "taskId": "task-1", "url": "https://client.example.com/webhook",
            "authentication": {"scheme": "Bearer", "credentials": "tok"}}}"#,
    )
    .await;
    assert_eq!(created["result"]["id"], "cfg-1");
    assert_eq!(created["result"]["authentication"]["scheme"], "Bearer");

    let got = rpc(
        &server.url,
        r#"{"jsonrpc": "2.0", "id": 8, "method": "GetTaskPushNotificationConfig",
            "params": {"taskId": "task-1", "id": "cfg-1"}}"#,
    )
    .await;
    assert_eq!(got["result"]["id"], "cfg-1");

    let list = rpc(
        &server.url,
        r#"{"jsonrpc": "2.0", "id": 9, "method": "ListTaskPushNotificationConfigs", "params": {"taskId": "task-1"}}"#,
    )
    .await;
    assert_eq!(list["result"]["configs"].as_array().unwrap().len(), 2);

    let operations: Vec<_> = service.calls().iter().map(|c| c.operation).collect();
    assert_eq!(
        operations,
        [
            Operation::CreateTaskPushNotificationConfig,
            Operation::GetTaskPushNotificationConfig,
            Operation::ListTaskPushNotificationConfigs
        ]
    );
}

#[tokio::test]
async fn delete_push_config_answers_a_null_result() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{"jsonrpc": "2.0", "id": 10, "method": "DeleteTaskPushNotificationConfig",
            "params": {"taskId": "task-1", "id": "cfg-1"}}"#,
    )
    .await;
    assert_eq!(answer, json!({"jsonrpc": "2.0", "id": 10, "result": null}));
    assert_eq!(service.last_call().request, json!({"taskId": "task-1", "id": "cfg-1"}));
}

#[tokio::test]
async fn the_id_is_echoed_verbatim_whatever_its_form() {
    let (server, _service) = serve_scripted().await;
    for id in [r#""req-é-1""#, "0", "-7", "1.50", "12345678901234567890123", "1e3", "null"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"GetTask","params":{{"id":"t"}}}}"#);
        let raw = post_raw(&server.url, body, &[]).await;
        let expected = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":"#);
        assert!(raw.body.starts_with(&expected), "id {id}: {}", raw.body);
    }
}

#[tokio::test]
async fn unknown_fields_in_params_and_envelope_are_ignored() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{"jsonrpc":"2.0","id":1,"method":"GetTask","futureMember":true,
            "params":{"id":"task-1","futureField":{"nested":[1,2]}}}"#,
    )
    .await;
    assert_eq!(answer["result"]["id"], "task-1");
    assert_eq!(service.last_call().request, json!({"id": "task-1"}));
}

#[tokio::test]
async fn null_for_absent_fields_is_accepted_as_protojson_allows() {
    let (server, service) = serve_scripted().await;
    let answer = rpc(
        &server.url,
        r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{
            "message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hi"}],
                       "extensions":null,"referenceTaskIds":null,"metadata":null,"contextId":null},
            "configuration":{"acceptedOutputModes":null,"historyLength":null},
            "metadata":null}}"#,
    )
    .await;
    assert_eq!(answer["result"]["task"]["id"], "task-1", "{answer}");
    assert_eq!(service.last_call().request["message"]["messageId"], "m1");
}

#[tokio::test]
async fn null_params_count_as_absent() {
    let (server, service) = serve_scripted().await;
    let answer =
        rpc(&server.url, r#"{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":null}"#).await;
    assert_eq!(answer["result"]["name"], "Scripted Agent");
    assert_eq!(service.last_call().operation, Operation::GetExtendedAgentCard);
}
