//! `--debug`'s raw wire log (SPEC.md §7.2, Tier 2), on stderr: the bytes the HTTP bindings and the
//! card fetch write and read, as reqwest's verbose connections log them, and for gRPC each
//! protocol message sent and received ([`GrpcLog`]: its method, its metadata, the message in
//! ProtoJSON; gRPC's own framing is binary protobuf over HTTP/2, so the message is shown as the
//! protocol's JSON form of the same message). Every credential the invocation knows (bearer
//! token, API key, a kept `auth login` token, a client secret) is replaced by `<redacted>` in
//! every line, whatever the flags (SPEC.md §12.1); cookie and authorization header values are
//! cut as well.

use std::sync::{Arc, Mutex};

use a2a_core::{A2aService, CallContext, EventStream, Operation, ProtocolVersion, Result};
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use async_trait::async_trait;
use futures::StreamExt;

/// The credentials to redact, added as they become known.
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Registers a credential: it never appears in the wire log.
pub(crate) fn secret(value: &str) {
    if !value.is_empty() {
        SECRETS.lock().unwrap_or_else(|e| e.into_inner()).push(value.to_owned());
    }
}

/// `text` without any registered credential.
fn redact_secrets(text: &str) -> String {
    let mut text = text.to_owned();
    for secret in SECRETS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        text = text.replace(secret.as_str(), "<redacted>");
    }
    text
}

/// `line` without any registered credential nor the value of a credential header.
pub(crate) fn redact(line: &str) -> String {
    let mut line = redact_secrets(line);
    // Header values up to the (escaped) end of the line.
    for header in ["authorization: ", "cookie: ", "x-api-key: ", "proxy-authorization: "] {
        let mut from = 0;
        while let Some(at) = line.to_ascii_lowercase()[from..].find(header).map(|i| i + from) {
            let start = at + header.len();
            let end = line[start..].find("\\r\\n").map_or(line.len(), |i| start + i);
            line.replace_range(start..end, "<redacted>");
            from = start + "<redacted>".len();
        }
    }
    line
}

struct WireLog;

impl log::Log for WireLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target().starts_with("reqwest::connect::verbose")
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("wire: {}", redact(&record.args().to_string()));
        }
    }

    fn flush(&self) {}
}

/// Turns the wire log on (once, for `--debug`).
pub(crate) fn enable() {
    if log::set_logger(&WireLog).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
}

/// A gRPC binding client that logs every message it sends and receives (`--debug`): installed
/// with `a2a_client::ClientBuilder::wrap_binding`, so it sees each call the binding makes
/// (retries and resubscriptions included) with its final metadata.
pub(crate) struct GrpcLog {
    inner: Arc<dyn A2aService>,
    /// The gRPC service the methods belong to (`lf.a2a.v1.A2AService` in 1.0).
    service: &'static str,
}

impl GrpcLog {
    /// The wrapper `ClientBuilder::wrap_binding` takes: gRPC bindings are logged, others (whose
    /// HTTP exchange the reqwest log shows) are left as they are.
    pub(crate) fn wrap(inner: Arc<dyn A2aService>, selected: &a2a_client::Selected) -> Arc<dyn A2aService> {
        if selected.binding() != a2a_client::Binding::Grpc {
            return inner;
        }
        let service = if selected.protocol_version() == ProtocolVersion::V0_3 {
            "a2a.v1.A2AService (A2A 0.3; the binding translates the 1.0 messages shown)"
        } else {
            "lf.a2a.v1.A2AService"
        };
        Arc::new(GrpcLog { inner, service })
    }

    fn request<T: serde::Serialize + prost::Name>(
        &self,
        operation: Operation,
        ctx: &CallContext,
        message: &T,
    ) {
        let metadata: Vec<String> = ctx
            .params
            .outgoing()
            .map(|(name, value)| format!("{name}: {}", redact_secrets(&crate::agent::redact(name, value))))
            .collect();
        eprintln!(
            "wire: grpc > {}/{} metadata {{{}}} {}",
            self.service,
            operation.method(),
            metadata.join(", "),
            json(message)
        );
    }

    fn reply<T: serde::Serialize + prost::Name>(&self, operation: Operation, result: &Result<T>) {
        match result {
            Ok(message) => eprintln!("wire: grpc < {} {}", operation.method(), json(message)),
            Err(error) => {
                eprintln!("wire: grpc < {} error {}", operation.method(), redact(&error.to_string()))
            }
        }
    }

    /// A stream's messages, each logged as it arrives, and its end.
    fn stream(&self, operation: Operation, result: Result<EventStream>) -> Result<EventStream> {
        let events = match result {
            Ok(events) => events,
            Err(error) => {
                eprintln!("wire: grpc < {} error {}", operation.method(), redact(&error.to_string()));
                return Err(error);
            }
        };
        let method = operation.method();
        let logged = events.inspect(move |event| match event {
            Ok(event) => eprintln!("wire: grpc < {method} stream message {}", json(event)),
            Err(error) => eprintln!("wire: grpc < {method} stream error {}", redact(&error.to_string())),
        });
        let end = futures::stream::once(async move {
            eprintln!("wire: grpc < {method} stream end");
            None
        });
        Ok(logged.map(Some).chain(end).filter_map(futures::future::ready).boxed())
    }
}

/// A message in ProtoJSON on one line, credentials redacted: the registered ones, and the
/// values of push configs' `token` and `credentials` fields.
fn json<T: serde::Serialize + prost::Name>(message: &T) -> String {
    fn scrub(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(object) => {
                for (key, value) in object.iter_mut() {
                    if (key == "token" || key == "credentials") && value.is_string() {
                        *value = serde_json::Value::String("<redacted>".into());
                    } else {
                        scrub(value);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(scrub),
            _ => {}
        }
    }
    match a2a_proto::json::to_value(message) {
        Ok(mut value) => {
            scrub(&mut value);
            redact_secrets(&value.to_string())
        }
        Err(error) => format!("<not ProtoJSON: {error}>"),
    }
}

#[async_trait]
impl A2aService for GrpcLog {
    async fn send_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<SendMessageResponse> {
        self.request(Operation::SendMessage, ctx, &request);
        let result = self.inner.send_message(ctx, request).await;
        self.reply(Operation::SendMessage, &result);
        result
    }

    async fn send_streaming_message(
        &self,
        ctx: &CallContext,
        request: SendMessageRequest,
    ) -> Result<EventStream> {
        self.request(Operation::SendStreamingMessage, ctx, &request);
        let result = self.inner.send_streaming_message(ctx, request).await;
        self.stream(Operation::SendStreamingMessage, result)
    }

    async fn get_task(&self, ctx: &CallContext, request: GetTaskRequest) -> Result<Task> {
        self.request(Operation::GetTask, ctx, &request);
        let result = self.inner.get_task(ctx, request).await;
        self.reply(Operation::GetTask, &result);
        result
    }

    async fn list_tasks(&self, ctx: &CallContext, request: ListTasksRequest) -> Result<ListTasksResponse> {
        self.request(Operation::ListTasks, ctx, &request);
        let result = self.inner.list_tasks(ctx, request).await;
        self.reply(Operation::ListTasks, &result);
        result
    }

    async fn cancel_task(&self, ctx: &CallContext, request: CancelTaskRequest) -> Result<Task> {
        self.request(Operation::CancelTask, ctx, &request);
        let result = self.inner.cancel_task(ctx, request).await;
        self.reply(Operation::CancelTask, &result);
        result
    }

    async fn subscribe_to_task(
        &self,
        ctx: &CallContext,
        request: SubscribeToTaskRequest,
    ) -> Result<EventStream> {
        self.request(Operation::SubscribeToTask, ctx, &request);
        let result = self.inner.subscribe_to_task(ctx, request).await;
        self.stream(Operation::SubscribeToTask, result)
    }

    async fn create_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig> {
        self.request(Operation::CreateTaskPushNotificationConfig, ctx, &request);
        let result = self.inner.create_task_push_notification_config(ctx, request).await;
        self.reply(Operation::CreateTaskPushNotificationConfig, &result);
        result
    }

    async fn get_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig> {
        self.request(Operation::GetTaskPushNotificationConfig, ctx, &request);
        let result = self.inner.get_task_push_notification_config(ctx, request).await;
        self.reply(Operation::GetTaskPushNotificationConfig, &result);
        result
    }

    async fn list_task_push_notification_configs(
        &self,
        ctx: &CallContext,
        request: ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse> {
        self.request(Operation::ListTaskPushNotificationConfigs, ctx, &request);
        let result = self.inner.list_task_push_notification_configs(ctx, request).await;
        self.reply(Operation::ListTaskPushNotificationConfigs, &result);
        result
    }

    async fn delete_task_push_notification_config(
        &self,
        ctx: &CallContext,
        request: DeleteTaskPushNotificationConfigRequest,
    ) -> Result<()> {
        self.request(Operation::DeleteTaskPushNotificationConfig, ctx, &request);
        let result = self.inner.delete_task_push_notification_config(ctx, request).await;
        match &result {
            Ok(()) => eprintln!("wire: grpc < DeleteTaskPushNotificationConfig {{}}"),
            Err(error) => eprintln!(
                "wire: grpc < DeleteTaskPushNotificationConfig error {}",
                redact(&error.to_string())
            ),
        }
        result
    }

    async fn get_extended_agent_card(
        &self,
        ctx: &CallContext,
        request: GetExtendedAgentCardRequest,
    ) -> Result<AgentCard> {
        self.request(Operation::GetExtendedAgentCard, ctx, &request);
        let result = self.inner.get_extended_agent_card(ctx, request).await;
        self.reply(Operation::GetExtendedAgentCard, &result);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_reach_the_wire_log() {
        secret("t0k3n");
        let line = r#"00000001 write: b"POST / HTTP/1.1\r\nAuthorization: Bearer other\r\nx-api-key: k\r\ncookie: s=1\r\n\r\n{\"t\":\"t0k3n\"}""#;
        let redacted = redact(line);
        assert!(
            !redacted.contains("t0k3n") && !redacted.contains("other") && !redacted.contains("s=1"),
            "{redacted}"
        );
        assert!(redacted.contains("Authorization: <redacted>\\r\\n"), "{redacted}");
    }
}
