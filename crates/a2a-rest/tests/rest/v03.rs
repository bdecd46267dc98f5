//! A2A 0.3 beside 1.0: `/v1/...` routes reach the same service as the 1.0 operations and are
//! answered in 0.3 shape (ProtoJSON of the 0.3 proto) with 0.3 error bodies; `/v1` is never read
//! as a tenant.

use a2a_core::{Error, Operation};
use a2a_proto::v1::TaskState;
use serde_json::{json, Value};

use crate::support::serve;

#[tokio::test]
async fn v1_message_send_is_send_message_answered_in_0_3_protojson() {
    let (service, server) = serve().await;
    let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "hi"}]},
                      "configuration": {"blocking": true}});
    let response =
        reqwest::Client::new().post(server.url("/v1/message:send")).json(&body).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let reply: Value = response.json().await.unwrap();
    assert_eq!(reply["task"]["status"]["state"], "TASK_STATE_COMPLETED", "{reply}");
    assert_eq!(reply["task"]["history"][0]["role"], "ROLE_USER");
    assert_eq!(reply["task"]["history"][0]["content"][0]["text"], "hi", "0.3 proto: `content`");
    let call = service.only_call();
    assert_eq!(call.operation, Operation::SendMessage);
    assert_eq!(call.request["tenant"], Value::Null, "not tenant `v1`");
    assert_eq!(call.param("A2A-Version"), Some("1.0"), "core is called in 1.0");
    server.stop().await;
}

#[tokio::test]
async fn v1_routes_map_path_ids_and_the_query() {
    let (service, server) = serve().await;
    let http = reqwest::Client::new();
    let task: Value =
        http.get(server.url("/v1/tasks/t%201?historyLength=2")).send().await.unwrap().json().await.unwrap();
    assert_eq!(task["id"], "t 1");
    assert_eq!(task["status"]["state"], "TASK_STATE_WORKING");
    let call = service.calls().pop().unwrap();
    assert_eq!((call.operation, call.request["historyLength"].as_i64()), (Operation::GetTask, Some(2)));

    let config: Value = http
        .get(server.url("/v1/tasks/t1/pushNotificationConfigs/c1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(config["name"], "tasks/t1/pushNotificationConfigs/c1", "{config}");
    let response = http.delete(server.url("/v1/tasks/t1/pushNotificationConfigs/c1")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "{}");
    let call = service.calls().pop().unwrap();
    assert_eq!(call.operation, Operation::DeleteTaskPushNotificationConfig);
    assert_eq!((call.request["taskId"].as_str(), call.request["id"].as_str()), (Some("t1"), Some("c1")));
    server.stop().await;
}

#[tokio::test]
async fn v1_message_stream_sends_0_3_stream_responses_ending_with_final() {
    let (_service, server) = serve().await;
    let body = json!({"message": {"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "go"}]}});
    let response =
        reqwest::Client::new().post(server.url("/v1/message:stream")).json(&body).send().await.unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    let events: Vec<Value> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    let members: Vec<&str> =
        events.iter().map(|e| e.as_object().unwrap().keys().next().unwrap().as_str()).collect();
    assert_eq!(members, ["task", "artifactUpdate", "statusUpdate"]);
    assert_eq!(events[2]["statusUpdate"]["final"], true);
    server.stop().await;
}

#[tokio::test]
async fn errors_are_0_3_bodies_with_their_http_status() {
    let (service, server) = serve().await;
    let http = reqwest::Client::new();
    service.fail_next(Error::TaskNotCancelable { task_id: "t1".into(), state: TaskState::Completed });
    let response = http.post(server.url("/v1/tasks/t1:cancel")).send().await.unwrap();
    assert_eq!(response.status(), 409);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], -32002, "{body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    // A body that is not JSON, and a field that is not 0.3.
    let response = http
        .post(server.url("/v1/message:send"))
        .header("content-type", "application/json")
        .body("{")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(response.json::<Value>().await.unwrap()["code"], -32700);
    let bad = json!({"message": {"messageId": "m", "role": "ROLE_NOBODY", "content": [{"text": "x"}]}});
    let response = http.post(server.url("/v1/message:send")).json(&bad).send().await.unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], -32602);
    assert!(body.to_string().contains("message.role"), "{body}");
    // `GET /v1/tasks` is not 0.3 (absent from the 0.3 proto).
    let response = http.get(server.url("/v1/tasks")).send().await.unwrap();
    assert_eq!(response.status(), 400);
    assert_eq!(response.json::<Value>().await.unwrap()["code"], -32004);
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_v1_path_is_404_in_both_shapes_and_never_a_tenant_route() {
    let (service, server) = serve().await;
    // `/v1/extendedAgentCard` would be 1.0's GetExtendedAgentCard of tenant `v1`.
    let response = reqwest::get(server.url("/v1/extendedAgentCard")).await.unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["code"], -32601);
    assert_eq!(body["error"]["status"], "UNIMPLEMENTED");
    assert!(service.calls().is_empty());
    server.stop().await;
}
