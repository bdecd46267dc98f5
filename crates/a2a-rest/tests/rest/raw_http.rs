//! Hand-written HTTP against our server, with URLs and bodies from the spec's examples, so that
//! a mistake shared by our client and server cannot hide. Expected values come from the spec.

use a2a_core::Operation;
use a2a_proto::v1::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetTaskPushNotificationConfigRequest,
    GetTaskRequest, ListTaskPushNotificationConfigsRequest, ListTasksRequest, Role, SendMessageRequest,
    SubscribeToTaskRequest, TaskPushNotificationConfig, TaskState,
};
use serde_json::{json, Value};

use crate::support::serve;

const A2A_JSON: &str = "application/a2a+json";

fn http() -> reqwest::Client {
    reqwest::Client::new()
}

fn content_type(response: &reqwest::Response) -> String {
    response.headers()["content-type"].to_str().unwrap().to_owned()
}

async fn json_of(response: reqwest::Response) -> Value {
    serde_json::from_slice(&response.bytes().await.unwrap()).unwrap()
}

/// `(event name, data)` of each event of a finished SSE body; comments are skipped.
fn sse_events(body: &str) -> Vec<(String, String)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut name = String::from("message");
            let mut data = Vec::new();
            for line in block.lines() {
                if let Some(value) = line.strip_prefix("data:") {
                    data.push(value.strip_prefix(' ').unwrap_or(value));
                } else if let Some(value) = line.strip_prefix("event:") {
                    name = value.trim().to_owned();
                }
            }
            (!data.is_empty()).then(|| (name, data.join("\n")))
        })
        .collect()
}

#[tokio::test]
async fn spec_6_1_send_message_answers_the_task_as_a2a_json() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/message:send"))
        .header("content-type", A2A_JSON)
        .header("authorization", "Bearer token")
        .body(
            r#"{
              "message": {
                "role": "ROLE_USER",
                "parts": [{"text": "What is the weather today?"}],
                "messageId": "msg-uuid"
              }
            }"#,
        )
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), A2A_JSON);
    let body = json_of(response).await;
    assert_eq!(body["task"]["id"], "task-uuid");
    assert_eq!(body["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    let call = service.only_call();
    let message = call.request::<SendMessageRequest>().message.unwrap();
    assert_eq!(
        (message.role(), message.text(), message.message_id.as_str()),
        (Role::User, "What is the weather today?".into(), "msg-uuid")
    );
    assert_eq!(call.param("authorization"), None, "credentials are the auth layer's, not service parameters");
    server.stop().await;
}

#[tokio::test]
async fn spec_11_2_service_parameters_arrive_from_headers() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/message:send"))
        .header("Content-Type", A2A_JSON)
        .header("A2A-Version", "0.3")
        .header(
            "A2A-Extensions",
            "https://example.com/extensions/geolocation/v1,https://standards.org/extensions/citations/v1",
        )
        .body(r#"{"message": {"role": "ROLE_USER", "parts": [{"text": "Find restaurants near me"}]}}"#)
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    let call = service.only_call();
    assert_eq!(call.param("a2a-version"), Some("0.3"));
    assert_eq!(
        call.ctx.params.extensions(),
        ["https://example.com/extensions/geolocation/v1", "https://standards.org/extensions/citations/v1"]
    );
    server.stop().await;
}

#[tokio::test]
async fn spec_11_4_send_message_with_configuration_and_plain_json_content_type() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/message:send"))
        .header("content-type", "application/json; charset=utf-8")
        .body(
            r#"{"message": {"messageId": "uuid", "role": "ROLE_USER", "parts": [{"text": "Hello"}]},
                "configuration": {"acceptedOutputModes": ["text/plain"]}}"#,
        )
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    let request = service.only_call().request::<SendMessageRequest>();
    assert_eq!(request.configuration.unwrap().accepted_output_modes, ["text/plain"]);
    server.stop().await;
}

#[tokio::test]
async fn spec_6_2_stream_sends_bare_stream_responses_as_data_lines() {
    let (_service, server) = serve().await;
    let response = http()
        .post(server.url("/message:stream"))
        .header("content-type", A2A_JSON)
        .body(r#"{"message": {"role": "ROLE_USER", "parts": [{"text": "Write a detailed report on climate change"}], "messageId": "msg-uuid"}}"#)
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), "text/event-stream");
    let events = sse_events(&response.text().await.unwrap());
    let data: Vec<Value> = events.iter().map(|(_, data)| serde_json::from_str(data).unwrap()).collect();
    assert_eq!(
        data,
        [
            json!({"task": {"id": "task-uuid", "contextId": "ctx-1", "status": {"state": "TASK_STATE_WORKING"}}}),
            json!({"artifactUpdate": {"taskId": "task-uuid", "contextId": "ctx-1",
                   "artifact": {"artifactId": "a-1", "parts": [{"text": "# Report\n\n"}]}}}),
            json!({"statusUpdate": {"taskId": "task-uuid", "contextId": "ctx-1", "status": {"state": "TASK_STATE_COMPLETED"}}}),
        ]
    );
    assert!(events.iter().all(|(name, _)| name == "message"), "data events are unnamed: {events:?}");
    server.stop().await;
}

#[tokio::test]
async fn spec_6_5_list_tasks_of_a_context() {
    let (service, server) = serve().await;
    let response = http()
        .get(server.url("/tasks?contextId=c295ea44-7543-4f78-b524-7a38915ad6e4&pageSize=10&historyLength=3"))
        .header("authorization", "Bearer token")
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), A2A_JSON);
    let body = json_of(response).await;
    assert_eq!(body["tasks"][0]["id"], "3f36680c-7f37-4a5f-945e-d78981fafd36");
    assert_eq!(body["nextPageToken"], "", "spec 3.1.4: always present, empty on the last page");
    assert_eq!((body["pageSize"].clone(), body["totalSize"].clone()), (json!(10), json!(1)));
    let request = service.only_call().request::<ListTasksRequest>();
    assert_eq!(
        request,
        ListTasksRequest {
            context_id: "c295ea44-7543-4f78-b524-7a38915ad6e4".into(),
            page_size: Some(10),
            history_length: Some(3),
            ..Default::default()
        }
    );
    server.stop().await;
}

#[tokio::test]
async fn spec_6_5_list_working_tasks_across_contexts() {
    let (service, server) = serve().await;
    let response =
        http().get(server.url("/tasks?status=TASK_STATE_WORKING&pageSize=20")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let request = service.only_call().request::<ListTasksRequest>();
    assert_eq!((request.status(), request.page_size), (TaskState::Working, Some(20)));
    server.stop().await;
}

#[tokio::test]
async fn spec_6_5_pagination_passes_the_page_token() {
    let (service, server) = serve().await;
    let response = http()
        .get(server.url(
            "/tasks?contextId=c295ea44-7543-4f78-b524-7a38915ad6e4&pageSize=10&pageToken=base64-encoded-cursor-token",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(service.only_call().request::<ListTasksRequest>().page_token, "base64-encoded-cursor-token");
    server.stop().await;
}

#[tokio::test]
async fn spec_6_5_validation_example_fails_on_the_unknown_status_naming_it() {
    let (service, server) = serve().await;
    let response = http()
        .get(server.url("/tasks?pageSize=150&historyLength=-5&status=TASK_STATE_RUNNING"))
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    let body = json_of(response).await;
    assert_eq!(body["error"]["status"], "INVALID_ARGUMENT");
    let violations = body["error"]["details"][0]["fieldViolations"].as_array().unwrap();
    assert_eq!(body["error"]["details"][0]["@type"], "type.googleapis.com/google.rpc.BadRequest");
    assert_eq!(violations.len(), 1, "only the unparsable value is the binding's: {violations:?}");
    assert_eq!(violations[0]["field"], "status");
    assert!(violations[0]["description"].as_str().unwrap().contains("TASK_STATE_RUNNING"));
    assert!(service.calls().is_empty());
    server.stop().await;
}

#[tokio::test]
async fn spec_6_5_out_of_range_values_reach_the_handler_for_validation() {
    let (service, server) = serve().await;
    let response = http().get(server.url("/tasks?pageSize=150&historyLength=-5")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let request = service.only_call().request::<ListTasksRequest>();
    assert_eq!((request.page_size, request.history_length), (Some(150), Some(-5)));
    server.stop().await;
}

#[tokio::test]
async fn spec_11_5_list_example_and_get_with_history_length() {
    let (service, server) = serve().await;
    let list = http()
        .get(server.url("/tasks?contextId=uuid&status=TASK_STATE_WORKING&pageSize=50&pageToken=cursor"))
        .send()
        .await
        .unwrap();
    let get = http().get(server.url("/tasks/task-123?historyLength=10")).send().await.unwrap();

    assert_eq!((list.status().as_u16(), get.status().as_u16()), (200, 200));
    assert_eq!(json_of(get).await["id"], "task-123");
    let calls = service.calls();
    let request = calls[0].request::<ListTasksRequest>();
    assert_eq!(
        (request.context_id.as_str(), request.status(), request.page_size, request.page_token.as_str()),
        ("uuid", TaskState::Working, Some(50), "cursor")
    );
    assert_eq!(
        calls[1].request::<GetTaskRequest>(),
        GetTaskRequest { id: "task-123".into(), history_length: Some(10), ..Default::default() }
    );
    server.stop().await;
}

#[tokio::test]
async fn list_tasks_reads_timestamps_booleans_and_enum_numbers() {
    let (service, server) = serve().await;
    let response = http()
        .get(server.url(
            "/tasks?statusTimestampAfter=2025-11-09T10%3A30%3A00Z&includeArtifacts=true&status=3&unknown=1",
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let request = service.only_call().request::<ListTasksRequest>();
    assert_eq!(request.status_timestamp_after.unwrap().seconds, 1_762_684_200);
    assert_eq!(request.include_artifacts, Some(true));
    assert_eq!(request.status(), TaskState::Completed);
    server.stop().await;
}

#[tokio::test]
async fn spec_3_6_1_version_query_parameter_is_a_service_parameter() {
    let (service, server) = serve().await;
    let response = http().get(server.url("/tasks/task-123?A2A-Version=1.0")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let call = service.only_call();
    assert_eq!(call.param("a2a-version"), Some("1.0"));
    assert_eq!(
        call.request::<GetTaskRequest>(),
        GetTaskRequest { id: "task-123".into(), ..Default::default() }
    );
    server.stop().await;
}

#[tokio::test]
async fn version_header_wins_over_the_query_parameter() {
    let (service, server) = serve().await;
    http().get(server.url("/tasks/t?A2A-Version=0.3")).header("A2A-Version", "1.0").send().await.unwrap();
    assert_eq!(service.only_call().param("a2a-version"), Some("1.0"));
    server.stop().await;
}

#[tokio::test]
async fn cancel_accepts_an_empty_body_without_content_type() {
    let (service, server) = serve().await;
    let response = http().post(server.url("/tasks/task-1:cancel")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(service.only_call().request::<CancelTaskRequest>().id, "task-1");
    server.stop().await;
}

#[tokio::test]
async fn cancel_body_metadata_is_kept() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/tasks/task-1:cancel"))
        .header("content-type", A2A_JSON)
        .body(r#"{"metadata": {"reason": "user request"}}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(service.only_call().request["metadata"], json!({"reason": "user request"}));
    server.stop().await;
}

#[tokio::test]
async fn subscribe_to_task_by_post_and_by_get() {
    let (service, server) = serve().await;
    let by_post = http().post(server.url("/tasks/task-7:subscribe")).send().await.unwrap();
    let by_get = http().get(server.url("/tasks/task-7:subscribe")).send().await.unwrap();

    for response in [by_post, by_get] {
        assert_eq!(response.status(), 200);
        assert_eq!(content_type(&response), "text/event-stream");
        let events = sse_events(&response.text().await.unwrap());
        assert_eq!(events.len(), 3);
        let first: Value = serde_json::from_str(&events[0].1).unwrap();
        assert_eq!(first["task"]["id"], "task-7", "spec 3.1.6: the Task comes first");
    }
    let ids: Vec<String> = service.calls().iter().map(|c| c.request::<SubscribeToTaskRequest>().id).collect();
    assert_eq!(ids, ["task-7", "task-7"]);
    server.stop().await;
}

#[tokio::test]
async fn tenant_prefixed_routes_set_the_tenant_field() {
    let (service, server) = serve().await;
    let client = http();
    let send = r#"{"message": {"role": "ROLE_USER", "parts": [{"text": "hi"}], "messageId": "m"}}"#;
    let requests = [
        client.post(server.url("/acme/message:send")).body(send),
        client.post(server.url("/acme/message:stream")).body(send),
        client.get(server.url("/acme/tasks/t1")),
        client.get(server.url("/acme/tasks")),
        client.post(server.url("/acme/tasks/t1:cancel")),
        client.post(server.url("/acme/tasks/t1:subscribe")),
        client.get(server.url("/acme/tasks/t1:subscribe")),
        client
            .post(server.url("/acme/tasks/t1/pushNotificationConfigs"))
            .body(r#"{"url": "https://x/hook"}"#),
        client.get(server.url("/acme/tasks/t1/pushNotificationConfigs/c1")),
        client.get(server.url("/acme/tasks/t1/pushNotificationConfigs")),
        client.delete(server.url("/acme/tasks/t1/pushNotificationConfigs/c1")),
        client.get(server.url("/acme/extendedAgentCard")),
    ];
    for request in requests {
        let response = request.send().await.unwrap();
        assert_eq!(response.status(), 200, "{}", response.url());
        response.bytes().await.unwrap();
    }

    let calls = service.calls();
    let operations: Vec<Operation> = calls.iter().map(|c| c.operation).collect();
    assert_eq!(
        operations,
        [
            Operation::SendMessage,
            Operation::SendStreamingMessage,
            Operation::GetTask,
            Operation::ListTasks,
            Operation::CancelTask,
            Operation::SubscribeToTask,
            Operation::SubscribeToTask,
            Operation::CreateTaskPushNotificationConfig,
            Operation::GetTaskPushNotificationConfig,
            Operation::ListTaskPushNotificationConfigs,
            Operation::DeleteTaskPushNotificationConfig,
            Operation::GetExtendedAgentCard,
        ]
    );
    for call in &calls {
        assert_eq!(call.request["tenant"], "acme", "{:?}", call.operation);
    }
    let config = calls[7].request::<TaskPushNotificationConfig>();
    assert_eq!((config.task_id.as_str(), config.url.as_str()), ("t1", "https://x/hook"));
    let get = calls[8].request::<GetTaskPushNotificationConfigRequest>();
    assert_eq!((get.task_id.as_str(), get.id.as_str()), ("t1", "c1"));
    server.stop().await;
}

#[tokio::test]
async fn percent_encoded_ids_are_decoded() {
    let (service, server) = serve().await;
    let response = http().get(server.url("/tasks/a%2Fb%3Ac%20d")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(json_of(response).await["id"], "a/b:c d");
    let response = http().post(server.url("/tasks/x%3Acancel:cancel")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let response =
        http().delete(server.url("/t%2F1/tasks/t%2F2/pushNotificationConfigs/c%2F3")).send().await.unwrap();
    assert_eq!(response.status(), 200);

    let calls = service.calls();
    assert_eq!(calls[1].request::<CancelTaskRequest>().id, "x:cancel");
    assert_eq!(
        calls[2].request::<DeleteTaskPushNotificationConfigRequest>(),
        DeleteTaskPushNotificationConfigRequest {
            tenant: "t/1".into(),
            task_id: "t/2".into(),
            id: "c/3".into()
        }
    );
    server.stop().await;
}

#[tokio::test]
async fn non_tenant_route_wins_an_ambiguous_path() {
    let (service, server) = serve().await;
    let response = http().get(server.url("/tasks/tasks")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let call = service.only_call();
    assert_eq!(call.operation, Operation::GetTask);
    assert_eq!(call.request::<GetTaskRequest>(), GetTaskRequest { id: "tasks".into(), ..Default::default() });
    server.stop().await;
}

#[tokio::test]
async fn spec_6_6_push_config_create_takes_the_task_id_from_the_path() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/tasks/43667960-d455-4453-b0cf-1bae4955270d/pushNotificationConfigs"))
        .header("content-type", A2A_JSON)
        .body(
            r#"{"url": "https://client.example.com/webhook/a2a-notifications",
                "authentication": {"scheme": "Bearer", "credentials": "secure-client-token-for-task-aaa"}}"#,
        )
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 200);
    let body = json_of(response).await;
    assert_eq!(body["taskId"], "43667960-d455-4453-b0cf-1bae4955270d");
    assert_eq!(body["id"], "cfg-1");
    let config = service.only_call().request::<TaskPushNotificationConfig>();
    assert_eq!(config.task_id, "43667960-d455-4453-b0cf-1bae4955270d");
    assert_eq!(config.authentication.unwrap().credentials, "secure-client-token-for-task-aaa");
    server.stop().await;
}

#[tokio::test]
async fn push_config_body_naming_another_task_is_rejected() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/tasks/t1/pushNotificationConfigs"))
        .header("content-type", A2A_JSON)
        .body(r#"{"taskId": "t2", "url": "https://x/hook"}"#)
        .send()
        .await
        .unwrap();

    assert_eq!(response.status(), 400);
    let body = json_of(response).await;
    assert_eq!(body["error"]["details"][0]["fieldViolations"][0]["field"], "taskId");
    assert!(service.calls().is_empty());
    server.stop().await;
}

#[tokio::test]
async fn push_config_get_list_and_delete() {
    let (service, server) = serve().await;
    let get = http().get(server.url("/tasks/t1/pushNotificationConfigs/c1")).send().await.unwrap();
    let list = http()
        .get(server.url("/tasks/t1/pushNotificationConfigs?pageSize=2&pageToken=next"))
        .send()
        .await
        .unwrap();
    let delete = http().delete(server.url("/tasks/t1/pushNotificationConfigs/c1")).send().await.unwrap();

    assert_eq!(json_of(get).await["url"], "https://client.example.com/webhook/a2a-notifications");
    assert_eq!(json_of(list).await["configs"].as_array().unwrap().len(), 2);
    assert_eq!(delete.status(), 200);
    assert_eq!(content_type(&delete), A2A_JSON);
    assert_eq!(json_of(delete).await, json!({}), "google.protobuf.Empty");
    let calls = service.calls();
    let list = calls[1].request::<ListTaskPushNotificationConfigsRequest>();
    assert_eq!((list.task_id.as_str(), list.page_size, list.page_token.as_str()), ("t1", 2, "next"));
    server.stop().await;
}

#[tokio::test]
async fn spec_6_9_extended_agent_card() {
    let (service, server) = serve().await;
    let response = http()
        .get(server.url("/extendedAgentCard"))
        .header("authorization", "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(content_type(&response), A2A_JSON);
    assert_eq!(json_of(response).await["name"], "Extended Agent with Additional Skills");
    assert_eq!(service.only_call().operation, Operation::GetExtendedAgentCard);
    server.stop().await;
}

#[tokio::test]
async fn null_fields_sent_by_other_sdks_are_accepted() {
    let (service, server) = serve().await;
    let response = http()
        .post(server.url("/message:send"))
        .header("content-type", A2A_JSON)
        .body(r#"{"message": {"role": "ROLE_USER", "parts": [{"text": "hi"}], "messageId": "m", "extensions": null, "referenceTaskIds": null},
                  "configuration": null, "metadata": null, "futureField": 1}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(service.only_call().request::<SendMessageRequest>().message.unwrap().message_id, "m");
    server.stop().await;
}
