//! Raw probes: one call exactly as it travels on a binding, without the binding's client, so the
//! suite sees what the agent put on the wire (the JSON-RPC code, the HTTP status and error body,
//! the gRPC status and its details) and can send what a typed client cannot (unknown fields,
//! unknown enum names).
//!
//! The request is 1.0 ProtoJSON ([`WireCall::params`]); each column carries it its own way:
//! - 1.0: a JSON-RPC envelope (spec 9.3), a REST route with a body or query parameters (spec 11.3,
//!   11.5), or the protobuf message on the gRPC method (spec 10.4, after parsing the JSON, so gRPC
//!   only takes valid requests);
//! - 0.3: the request is read as its 1.0 message and written as 0.3 puts it on the wire, with
//!   `a2a-v03` (the same translation the server's edge reads): the slash method with 0.3 JSON
//!   params, the `/v1/...` route with 0.3 ProtoJSON, or the 0.3 protobuf message on the
//!   `a2a.v1.A2AService` method. No `A2A-Version` header: 0.3 clients send none (spec 3.6.2).
//!
//! What a typed request cannot hold (unknown fields, undefined enum names) is added by an
//! [`Edit`] of the body as it goes on the wire, in its [`Shape`] (JSON bindings only).

use std::sync::atomic::{AtomicU64, Ordering};

use a2a_core::{Error, Operation, ProtocolVersion};
use a2a_proto::v0_3::grpc::a2a_service_client::A2aServiceClient as A2aServiceClientV03;
use a2a_proto::v1::grpc::a2a_service_client::A2aServiceClient;
use a2a_proto::v1::AgentInterface;
use a2a_proto::v1::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig,
};
use serde_json::{json, Value};
use tonic::metadata::{MetadataKey, MetadataValue};
use tonic_types::StatusExt;

use crate::binding::Binding;
use crate::column::Column;
use crate::kind::ErrorKind;

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// How a request body looks on the wire, for an [`Edit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// 1.0 ProtoJSON (JSON-RPC params, REST bodies and query parameters).
    ProtoJson,
    /// The 0.3 JSON of the JSON-RPC binding (`kind` members, `parts`, roles `user` / `agent`).
    V03Json,
    /// The 0.3 ProtoJSON of the HTTP+JSON binding (a message's parts in `content`, enum names).
    V03ProtoJson,
}

/// A change to a request body as it goes on the wire (its JSON-RPC `params` or REST body), for
/// what a typed request cannot hold.
pub type Edit = fn(&mut Value, Shape);

/// One operation to send raw.
#[derive(Debug, Clone)]
pub struct WireCall {
    /// The operation.
    pub operation: Operation,
    /// The request message as 1.0 ProtoJSON (path variables of REST routes are taken from it).
    pub params: Value,
    /// Headers / metadata to send (the `A2A-Version` and `A2A-Extensions` service parameters, ...).
    pub headers: Vec<(String, String)>,
    /// A change to the body on the wire (JSON bindings only).
    pub edit: Option<Edit>,
}

impl WireCall {
    /// `operation` with `params` and no headers.
    pub fn new(operation: Operation, params: Value) -> Self {
        WireCall { operation, params, headers: Vec::new(), edit: None }
    }

    /// Applies `edit` to the body as it goes on the wire.
    #[must_use]
    pub fn edit(mut self, edit: Edit) -> Self {
        self.edit = Some(edit);
        self
    }

    /// Removes the headers of this name (any case).
    #[must_use]
    pub fn without_header(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Adds a header (metadata entry on gRPC).
    #[must_use]
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Replaces a header of this name (any case), or adds it.
    #[must_use]
    pub fn set_header(mut self, name: &str, value: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.header(name, value)
    }
}

/// How the error was coded on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireCode {
    /// JSON-RPC `error.code`.
    JsonRpc(i64),
    /// The HTTP status of a REST error.
    Http(u16),
    /// The gRPC status code.
    Grpc(tonic::Code),
}

impl std::fmt::Display for WireCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WireCode::JsonRpc(code) => write!(f, "JSON-RPC code {code}"),
            WireCode::Http(status) => write!(f, "HTTP {status}"),
            WireCode::Grpc(code) => write!(f, "gRPC {code:?}"),
        }
    }
}

/// An error as the agent sent it.
#[derive(Debug, Clone)]
pub struct WireError {
    /// The binding's code.
    pub code: WireCode,
    /// The `google.rpc.ErrorInfo` reason, if one was sent.
    pub reason: Option<String>,
    /// The `google.rpc.ErrorInfo` domain, if one was sent.
    pub domain: Option<String>,
    /// The fields of a `google.rpc.BadRequest`, sorted, if one was sent.
    pub fields: Option<Vec<String>>,
    /// The `error.status` of a REST error body (the google.rpc.Code name), if sent.
    pub rpc_status: Option<String>,
    /// The 0.3 error code (0.3 spec 8), in a 0.3 column: the JSON-RPC `error.code`, the `code` of
    /// an HTTP+JSON error body, or the `a2a-error` metadata of a gRPC status (a2a-js's and our
    /// convention), when sent.
    pub v03_code: Option<i64>,
    /// Ways the error's structure breaks its binding's rules (spec 9.5, 11.6), for people to read.
    pub shape_problems: Vec<String>,
}

impl WireError {
    /// The error's kind: from its ErrorInfo reason, else a BadRequest (invalid parameters), else
    /// the code where the binding's table gives it a single meaning.
    pub fn kind(&self) -> Option<ErrorKind> {
        if let (Some(reason), Some(a2a_core::error::ERROR_DOMAIN)) = (&self.reason, self.domain.as_deref()) {
            if let Some(error) = Error::from_error_info(reason, &Default::default(), "") {
                return Some(ErrorKind::of(&error));
            }
        }
        if self.fields.is_some() {
            return Some(ErrorKind::InvalidParams);
        }
        match self.code {
            WireCode::JsonRpc(code) => KINDS.into_iter().find(|k| k.jsonrpc_code() == Some(code)),
            WireCode::Http(404) | WireCode::Grpc(tonic::Code::NotFound) => Some(ErrorKind::TaskNotFound),
            // spec 3.3.2: validation errors are 400 / INVALID_ARGUMENT (A2A errors sharing the
            // code carry an ErrorInfo, read above).
            WireCode::Http(400) if self.rpc_status.as_deref() == Some("INVALID_ARGUMENT") => {
                Some(ErrorKind::InvalidParams)
            }
            WireCode::Grpc(tonic::Code::InvalidArgument) => Some(ErrorKind::InvalidParams),
            WireCode::Http(401) | WireCode::Grpc(tonic::Code::Unauthenticated) => {
                Some(ErrorKind::Unauthenticated)
            }
            WireCode::Http(403) | WireCode::Grpc(tonic::Code::PermissionDenied) => {
                Some(ErrorKind::PermissionDenied)
            }
            _ => None,
        }
    }
}

impl WireError {
    /// The error's kind as a 0.3 client sees it: 0.3 has no ErrorInfo, so the 0.3 code decides
    /// (0.3 spec 8), else a BadRequest, else the HTTP or gRPC code where it has a single meaning.
    pub fn kind_v03(&self) -> Option<ErrorKind> {
        if let Some(code) = self.v03_code {
            return Some(ErrorKind::of(&a2a_v03::error::from_v03(&json!({ "code": code }))));
        }
        WireError { reason: None, domain: None, ..self.clone() }.kind()
    }
}

const KINDS: [ErrorKind; 14] = [
    ErrorKind::TaskNotFound,
    ErrorKind::TaskNotCancelable,
    ErrorKind::PushNotificationNotSupported,
    ErrorKind::UnsupportedOperation,
    ErrorKind::ContentTypeNotSupported,
    ErrorKind::InvalidAgentResponse,
    ErrorKind::ExtendedAgentCardNotConfigured,
    ErrorKind::ExtensionSupportRequired,
    ErrorKind::VersionNotSupported,
    ErrorKind::ParseError,
    ErrorKind::InvalidRequest,
    ErrorKind::MethodNotFound,
    ErrorKind::InvalidParams,
    ErrorKind::Internal,
];

/// What came back.
#[derive(Debug, Clone)]
pub enum WireReply {
    /// A successful reply: the result (JSON-RPC `result`, the REST body, the gRPC reply as
    /// ProtoJSON; the first event of a stream).
    Ok(Value),
    /// An error reply.
    Err(WireError),
}

/// Sends calls raw over one interface of an agent.
#[derive(Debug, Clone)]
pub struct Prober {
    column: Column,
    interface: AgentInterface,
    http: reqwest::Client,
}

impl Prober {
    /// A prober for `interface`, speaking the binding and version of `column` (a [`Binding`]
    /// alone is its 1.0 column).
    pub fn new(column: impl Into<Column>, interface: AgentInterface, http: reqwest::Client) -> Self {
        Prober { column: column.into(), interface, http }
    }

    /// Sends `call` and reads the reply.
    ///
    /// # Errors
    /// A description of the failure when no A2A reply came back (no connection, a body that is
    /// not JSON, a request that cannot be expressed on this binding or version).
    pub async fn send(&self, call: &WireCall) -> Result<WireReply, String> {
        if call.edit.is_some() && self.column.binding == Binding::Grpc {
            return Err(format!("{} cannot carry an edited JSON body", self.column));
        }
        match (self.column.binding, self.column.version) {
            (Binding::JsonRpc, ProtocolVersion::V1_0) => self.jsonrpc(call).await,
            (Binding::Rest, ProtocolVersion::V1_0) => self.rest(call).await,
            (Binding::Grpc, ProtocolVersion::V1_0) => self.grpc(call).await,
            (Binding::JsonRpc, ProtocolVersion::V0_3) => self.jsonrpc_v03(call).await,
            (Binding::Rest, ProtocolVersion::V0_3) => self.rest_v03(call).await,
            (Binding::Grpc, ProtocolVersion::V0_3) => self.grpc_v03(call).await,
        }
    }

    async fn jsonrpc(&self, call: &WireCall) -> Result<WireReply, String> {
        let mut params = call.params.clone();
        set_tenant(&mut params, &self.interface.tenant);
        if let Some(edit) = call.edit {
            edit(&mut params, Shape::ProtoJson);
        }
        self.jsonrpc_call(call, call.operation.method(), Some(params), false).await
    }

    async fn jsonrpc_v03(&self, call: &WireCall) -> Result<WireReply, String> {
        use a2a_v03::V03Request as _;
        let request = v03_request(call.operation, &call.params)?;
        let mut params = request.to_jsonrpc_params();
        if let (Some(edit), Some(params)) = (call.edit, params.as_mut()) {
            edit(params, Shape::V03Json);
        }
        let method = request.method().ok_or("ListTasks has no A2A 0.3 counterpart")?;
        self.jsonrpc_call(call, method.name(), params, true).await
    }

    /// One JSON-RPC call of `method`; `v03`: the error is read in 0.3 terms (its code is the 0.3
    /// code, `data` is free-form).
    async fn jsonrpc_call(
        &self,
        call: &WireCall,
        method: &str,
        params: Option<Value>,
        v03: bool,
    ) -> Result<WireReply, String> {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            body["params"] = params;
        }
        let mut request = self.http.post(self.interface.url.trim()).json(&body);
        for (name, value) in &call.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.send().await.map_err(|e| format!("POST {}: {e}", self.interface.url))?;
        let status = response.status();
        let sse = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        let text = read_body(response).await?;
        // A streaming method answers with SSE events that are each a JSON-RPC response (spec 9.4.2).
        let reply: Value = if sse {
            first_sse_event(&text)?
        } else {
            serde_json::from_str(&text).map_err(|e| {
                format!("the JSON-RPC reply (HTTP {status}) is not JSON ({e}): {}", cut(&text))
            })?
        };
        let mut problems = Vec::new();
        if reply.get("jsonrpc") != Some(&json!("2.0")) {
            problems.push("spec 9.3: the response has no \"jsonrpc\": \"2.0\"".to_owned());
        }
        if reply.get("id") != Some(&json!(id)) {
            problems.push(format!(
                "JSON-RPC 2.0: the response id is {:?}, the request's was {id}",
                reply.get("id")
            ));
        }
        if let Some(result) = reply.get("result") {
            return Ok(WireReply::Ok(result.clone()));
        }
        let Some(error) = reply.get("error") else {
            return Err(format!("the JSON-RPC reply has neither result nor error: {}", cut(&text)));
        };
        let Some(code) = error.get("code").and_then(Value::as_i64) else {
            return Err(format!("spec 9.5: the JSON-RPC error has no integer code: {error}"));
        };
        if !error.get("message").is_some_and(Value::is_string) {
            problems.push("spec 9.5: error.message must be a string".into());
        }
        let details = match error.get("data") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            // 0.3 spec 6.12: `data` is free-form.
            Some(_) if v03 => Vec::new(),
            Some(other) => {
                problems.push(format!(
                    "spec 9.5: error.data must be an array of @type objects, got {}",
                    cut(&other.to_string())
                ));
                Vec::new()
            }
        };
        let mut wire = from_json_details(WireCode::JsonRpc(code), &details, problems, v03);
        if v03 {
            wire.v03_code = Some(code);
        }
        Ok(WireReply::Err(wire))
    }

    async fn rest(&self, call: &WireCall) -> Result<WireReply, String> {
        let mut route = rest_route(call.operation, &call.params)?;
        if let Some(edit) = call.edit {
            match route.body.as_mut() {
                Some(body) => edit(body, Shape::ProtoJson),
                None => route.query = edit_query(&route.query, edit, Shape::ProtoJson)?,
            }
        }
        let mut url = url::Url::parse(self.interface.url.trim())
            .map_err(|e| format!("the HTTP+JSON interface URL is invalid: {e}"))?;
        {
            let mut segments = url
                .path_segments_mut()
                .map_err(|()| "the HTTP+JSON interface URL cannot be a base".to_owned())?;
            segments.pop_if_empty();
            if !self.interface.tenant.is_empty() {
                segments.push(&self.interface.tenant);
            }
            segments.extend(&route.segments);
        }
        if !route.query.is_empty() {
            let mut pairs = url.query_pairs_mut();
            for (name, value) in &route.query {
                pairs.append_pair(name, value);
            }
        }
        let mut request = self.http.request(route.method.clone(), url.clone());
        if let Some(body) = &route.body {
            request = request.header("content-type", "application/a2a+json").body(body.to_string());
        }
        for (name, value) in &call.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.send().await.map_err(|e| format!("{} {url}: {e}", route.method))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = read_body(response).await?;
        if (200..300).contains(&status) {
            if content_type.starts_with("text/event-stream") {
                return Ok(WireReply::Ok(first_sse_event(&text)?));
            }
            if text.trim().is_empty() {
                return Ok(WireReply::Ok(json!({})));
            }
            let body = serde_json::from_str(&text)
                .map_err(|e| format!("the HTTP {status} body is not JSON ({e}): {}", cut(&text)))?;
            return Ok(WireReply::Ok(body));
        }
        let mut problems = Vec::new();
        let body: Value = serde_json::from_str(&text).unwrap_or_else(|_| {
            problems.push(format!(
                "spec 11.6: the HTTP {status} body is not a JSON google.rpc.Status: {}",
                cut(&text)
            ));
            Value::Null
        });
        let error = body.get("error").cloned().unwrap_or_else(|| {
            if !body.is_null() {
                problems.push(format!("spec 11.6: the error body has no \"error\" object: {}", cut(&text)));
            }
            Value::Null
        });
        if !error.is_null() {
            if error.get("code").and_then(Value::as_u64) != Some(u64::from(status)) {
                problems.push(format!(
                    "spec 11.6: error.code is {:?}, the HTTP status is {status}",
                    error.get("code")
                ));
            }
            if !error.get("message").is_some_and(Value::is_string) {
                problems.push("spec 11.6: error.message must be a string".into());
            }
        }
        let details = match error.get("details") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.clone(),
            Some(other) => {
                problems.push(format!(
                    "spec 11.6: error.details must be an array, got {}",
                    cut(&other.to_string())
                ));
                Vec::new()
            }
        };
        let mut wire = from_json_details(WireCode::Http(status), &details, problems, false);
        wire.rpc_status = error.get("status").and_then(Value::as_str).map(str::to_owned);
        Ok(WireReply::Err(wire))
    }

    async fn rest_v03(&self, call: &WireCall) -> Result<WireReply, String> {
        let request = v03_request(call.operation, &call.params)?;
        let route = a2a_v03::rest::http_call(&request)
            .map_err(|e| format!("{} has no 0.3 HTTP+JSON route for these params: {e}", call.operation))?;
        // The 0.3 routes are appended to the interface URL's path (0.3 spec 3.5.6).
        let mut url = format!("{}{}", self.interface.url.trim().trim_end_matches('/'), route.path);
        let mut query = route.query.clone().unwrap_or_default();
        if let (Some(edit), None) = (call.edit, &route.body) {
            let pairs: Vec<(String, String)> =
                url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
            let pairs = edit_query(&pairs, edit, Shape::V03ProtoJson)?;
            query = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
        }
        if !query.is_empty() {
            url = format!("{url}?{query}");
        }
        let method = reqwest::Method::from_bytes(route.method.as_bytes()).map_err(|e| e.to_string())?;
        let mut request = self.http.request(method.clone(), &url);
        if let Some(mut body) = route.body {
            if let Some(edit) = call.edit {
                edit(&mut body, Shape::V03ProtoJson);
            }
            request = request.header("content-type", "application/json").body(body.to_string());
        }
        for (name, value) in &call.headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let response = request.send().await.map_err(|e| format!("{method} {url}: {e}"))?;
        let status = response.status().as_u16();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = read_body(response).await?;
        if (200..300).contains(&status) {
            if content_type.starts_with("text/event-stream") {
                return Ok(WireReply::Ok(first_sse_event(&text)?));
            }
            if text.trim().is_empty() {
                return Ok(WireReply::Ok(json!({})));
            }
            let body = serde_json::from_str(&text)
                .map_err(|e| format!("the HTTP {status} body is not JSON ({e}): {}", cut(&text)))?;
            return Ok(WireReply::Ok(body));
        }
        // 0.3 spec 3.2.3 asks for an appropriate HTTP status and pins no body; the 0.3 SDKs send
        // the 0.3 error object `{code, message, data?}` (a2a-js, a2a-go), which is read when
        // present, else a 1.0 google.rpc.Status body.
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let (details, v03_code) = match body.get("code").and_then(Value::as_i64) {
            Some(code) => {
                let details = match body.get("data") {
                    Some(Value::Array(items)) => items.clone(),
                    _ => Vec::new(),
                };
                (details, Some(code))
            }
            None => {
                let details = match body.get("error").and_then(|e| e.get("details")) {
                    Some(Value::Array(items)) => items.clone(),
                    _ => Vec::new(),
                };
                (details, None)
            }
        };
        let mut wire = from_json_details(WireCode::Http(status), &details, Vec::new(), true);
        wire.rpc_status =
            body.get("error").and_then(|e| e.get("status")).and_then(Value::as_str).map(str::to_owned);
        wire.v03_code = v03_code;
        Ok(WireReply::Err(wire))
    }

    async fn grpc(&self, call: &WireCall) -> Result<WireReply, String> {
        let (endpoint, origin) = grpc_endpoint(&self.interface.url)?;
        let mut client = A2aServiceClient::with_origin(endpoint.connect_lazy(), origin);
        let mut params = call.params.clone();
        set_tenant(&mut params, &self.interface.tenant);
        macro_rules! request {
            ($ty:ty) => {{
                let message: $ty = a2a_proto::json::from_value(params.clone()).map_err(|e| {
                    format!(
                        "{} cannot be sent over gRPC: the request is not a valid {}: {e}",
                        call.operation,
                        stringify!($ty)
                    )
                })?;
                let mut request = tonic::Request::new(message);
                for (name, value) in &call.headers {
                    let key = MetadataKey::from_bytes(name.to_ascii_lowercase().as_bytes())
                        .map_err(|e| format!("metadata name {name:?}: {e}"))?;
                    let value = MetadataValue::try_from(value.as_str())
                        .map_err(|e| format!("metadata {name}: {e}"))?;
                    request.metadata_mut().insert(key, value);
                }
                request
            }};
        }
        fn unary<T: serde::Serialize + prost::Name>(
            result: Result<tonic::Response<T>, tonic::Status>,
        ) -> Result<WireReply, String> {
            match result {
                Ok(response) => a2a_proto::json::to_value(response.get_ref())
                    .map(WireReply::Ok)
                    .map_err(|e| e.to_string()),
                Err(status) => Ok(WireReply::Err(from_status(&status))),
            }
        }
        async fn first<T: serde::Serialize + prost::Name>(
            result: Result<tonic::Response<tonic::codec::Streaming<T>>, tonic::Status>,
        ) -> Result<WireReply, String> {
            match result {
                Ok(response) => match response.into_inner().message().await {
                    Ok(Some(event)) => {
                        a2a_proto::json::to_value(&event).map(WireReply::Ok).map_err(|e| e.to_string())
                    }
                    Ok(None) => Err("the stream ended without an event".into()),
                    Err(status) => Ok(WireReply::Err(from_status(&status))),
                },
                Err(status) => Ok(WireReply::Err(from_status(&status))),
            }
        }
        match call.operation {
            Operation::SendMessage => unary(client.send_message(request!(SendMessageRequest)).await),
            Operation::SendStreamingMessage => {
                first(client.send_streaming_message(request!(SendMessageRequest)).await).await
            }
            Operation::GetTask => unary(client.get_task(request!(GetTaskRequest)).await),
            Operation::ListTasks => unary(client.list_tasks(request!(ListTasksRequest)).await),
            Operation::CancelTask => unary(client.cancel_task(request!(CancelTaskRequest)).await),
            Operation::SubscribeToTask => {
                first(client.subscribe_to_task(request!(SubscribeToTaskRequest)).await).await
            }
            Operation::CreateTaskPushNotificationConfig => {
                unary(client.create_task_push_notification_config(request!(TaskPushNotificationConfig)).await)
            }
            Operation::GetTaskPushNotificationConfig => unary(
                client
                    .get_task_push_notification_config(request!(GetTaskPushNotificationConfigRequest))
                    .await,
            ),
            Operation::ListTaskPushNotificationConfigs => unary(
                client
                    .list_task_push_notification_configs(request!(ListTaskPushNotificationConfigsRequest))
                    .await,
            ),
            Operation::DeleteTaskPushNotificationConfig => {
                match client
                    .delete_task_push_notification_config(request!(DeleteTaskPushNotificationConfigRequest))
                    .await
                {
                    Ok(_) => Ok(WireReply::Ok(json!({}))),
                    Err(status) => Ok(WireReply::Err(from_status(&status))),
                }
            }
            Operation::GetExtendedAgentCard => {
                unary(client.get_extended_agent_card(request!(GetExtendedAgentCardRequest)).await)
            }
        }
    }
}

impl Prober {
    async fn grpc_v03(&self, call: &WireCall) -> Result<WireReply, String> {
        use a2a_v03::{ProtoV03, Request};
        let (endpoint, origin) = grpc_endpoint(&self.interface.url)?;
        let mut client = A2aServiceClientV03::with_origin(endpoint.connect_lazy(), origin);
        let cannot = |e: Error| format!("{} cannot be written as its 0.3 message: {e}", call.operation);
        let metadata = |request: &mut tonic::metadata::MetadataMap| -> Result<(), String> {
            for (name, value) in &call.headers {
                let key = MetadataKey::from_bytes(name.to_ascii_lowercase().as_bytes())
                    .map_err(|e| format!("metadata name {name:?}: {e}"))?;
                let value =
                    MetadataValue::try_from(value.as_str()).map_err(|e| format!("metadata {name}: {e}"))?;
                request.insert(key, value);
            }
            Ok(())
        };
        macro_rules! request {
            ($message:expr) => {{
                let mut request = tonic::Request::new($message.map_err(cannot)?);
                metadata(request.metadata_mut())?;
                request
            }};
        }
        fn unary<T: serde::Serialize>(
            result: Result<tonic::Response<T>, tonic::Status>,
        ) -> Result<WireReply, String> {
            match result {
                Ok(response) => {
                    serde_json::to_value(response.get_ref()).map(WireReply::Ok).map_err(|e| e.to_string())
                }
                Err(status) => Ok(WireReply::Err(from_status_v03(&status))),
            }
        }
        async fn first<T: serde::Serialize>(
            result: Result<tonic::Response<tonic::codec::Streaming<T>>, tonic::Status>,
        ) -> Result<WireReply, String> {
            match result {
                Ok(response) => match response.into_inner().message().await {
                    Ok(Some(event)) => {
                        serde_json::to_value(&event).map(WireReply::Ok).map_err(|e| e.to_string())
                    }
                    Ok(None) => Err("the stream ended without an event".into()),
                    Err(status) => Ok(WireReply::Err(from_status_v03(&status))),
                },
                Err(status) => Ok(WireReply::Err(from_status_v03(&status))),
            }
        }
        match v03_request(call.operation, &call.params)? {
            Request::SendMessage(r) => unary(client.send_message(request!(r.to_v03_proto())).await),
            Request::SendStreamingMessage(r) => {
                first(client.send_streaming_message(request!(r.to_v03_proto())).await).await
            }
            Request::GetTask(r) => unary(client.get_task(request!(r.to_v03_proto())).await),
            Request::CancelTask(r) => unary(client.cancel_task(request!(r.to_v03_proto())).await),
            Request::SubscribeToTask(r) => {
                first(client.task_subscription(request!(r.to_v03_proto())).await).await
            }
            Request::CreateTaskPushNotificationConfig(r) => unary(
                client
                    .create_task_push_notification_config(request!(a2a_v03::proto::create_request_to_proto(
                        &r
                    )))
                    .await,
            ),
            Request::GetTaskPushNotificationConfig(r) => {
                unary(client.get_task_push_notification_config(request!(r.to_v03_proto())).await)
            }
            Request::ListTaskPushNotificationConfigs(r) => {
                unary(client.list_task_push_notification_config(request!(r.to_v03_proto())).await)
            }
            Request::DeleteTaskPushNotificationConfig(r) => {
                match client.delete_task_push_notification_config(request!(r.to_v03_proto())).await {
                    Ok(_) => Ok(WireReply::Ok(json!({}))),
                    Err(status) => Ok(WireReply::Err(from_status_v03(&status))),
                }
            }
            Request::GetExtendedAgentCard(r) => {
                unary(client.get_agent_card(request!(r.to_v03_proto())).await)
            }
            Request::ListTasks(_) => Err("ListTasks has no A2A 0.3 counterpart".into()),
        }
    }
}

/// The 1.0 request of `operation` read from its ProtoJSON `params`, as the 0.3 request it
/// becomes on the wire.
fn v03_request(operation: Operation, params: &Value) -> Result<a2a_v03::Request, String> {
    if operation == Operation::ListTasks {
        return Err("ListTasks has no A2A 0.3 counterpart".into());
    }
    /// ProtoJSON params, read as the operation's request message.
    struct Params<'a>(&'a Value);
    impl a2a_core::Decode for Params<'_> {
        fn decode<M: a2a_proto::WireMessage>(self) -> a2a_core::Result<M> {
            a2a_proto::json::from_value::<M>(self.0.clone())
                .map_err(|e| Error::invalid_param("params", format!("not a valid {}: {e}", M::NAME)))
        }
    }
    a2a_v03::Request::decode(operation, Params(params)).map_err(|e| format!("{operation}: {e}"))
}

/// The request's `tenant` field, from the interface (spec 8.3.2), unless the call set one.
fn set_tenant(params: &mut Value, tenant: &str) {
    if tenant.is_empty() {
        return;
    }
    if let Some(object) = params.as_object_mut() {
        object.entry("tenant").or_insert_with(|| json!(tenant));
    }
}

/// A REST route: method, path segments after the base (and tenant), query, body.
struct Route {
    method: reqwest::Method,
    segments: Vec<String>,
    query: Vec<(String, String)>,
    body: Option<Value>,
}

/// The route of spec 11.3 for `operation`, taking path variables from `params`; GET and DELETE
/// carry the remaining scalar fields as camelCase query parameters (spec 11.5).
fn rest_route(operation: Operation, params: &Value) -> Result<Route, String> {
    use reqwest::Method;
    let mut rest = params.as_object().cloned().unwrap_or_default();
    rest.remove("tenant");
    let mut take = |name: &str| -> Result<String, String> {
        match rest.remove(name) {
            Some(Value::String(s)) if !s.is_empty() => Ok(s),
            _ => Err(format!("{operation} over HTTP+JSON needs \"{name}\" for the route")),
        }
    };
    let (method, segments) = match operation {
        Operation::SendMessage => (Method::POST, vec!["message:send".to_owned()]),
        Operation::SendStreamingMessage => (Method::POST, vec!["message:stream".to_owned()]),
        Operation::GetTask => (Method::GET, vec!["tasks".to_owned(), take("id")?]),
        Operation::ListTasks => (Method::GET, vec!["tasks".to_owned()]),
        Operation::CancelTask => (Method::POST, vec!["tasks".to_owned(), format!("{}:cancel", take("id")?)]),
        Operation::SubscribeToTask => {
            (Method::POST, vec!["tasks".to_owned(), format!("{}:subscribe", take("id")?)])
        }
        Operation::CreateTaskPushNotificationConfig => {
            (Method::POST, vec!["tasks".to_owned(), take("taskId")?, "pushNotificationConfigs".to_owned()])
        }
        Operation::GetTaskPushNotificationConfig => {
            let task = take("taskId")?;
            (Method::GET, vec!["tasks".to_owned(), task, "pushNotificationConfigs".to_owned(), take("id")?])
        }
        Operation::ListTaskPushNotificationConfigs => {
            (Method::GET, vec!["tasks".to_owned(), take("taskId")?, "pushNotificationConfigs".to_owned()])
        }
        Operation::DeleteTaskPushNotificationConfig => {
            let task = take("taskId")?;
            (
                Method::DELETE,
                vec!["tasks".to_owned(), task, "pushNotificationConfigs".to_owned(), take("id")?],
            )
        }
        Operation::GetExtendedAgentCard => (Method::GET, vec!["extendedAgentCard".to_owned()]),
    };
    if method == Method::POST {
        return Ok(Route { method, segments, query: Vec::new(), body: Some(Value::Object(rest)) });
    }
    let mut query = Vec::new();
    for (name, value) in rest {
        let text = match value {
            Value::String(s) => s,
            Value::Bool(b) => b.to_string(),
            Value::Number(n) => n.to_string(),
            Value::Null => continue,
            other => return Err(format!("spec 11.5: {name} = {other} cannot be a query parameter")),
        };
        query.push((name, text));
    }
    Ok(Route { method, segments, query, body: None })
}

/// Query parameters after `edit` changed them as a JSON object of their values (spec 11.5:
/// scalar fields travel as query parameters).
fn edit_query(pairs: &[(String, String)], edit: Edit, shape: Shape) -> Result<Vec<(String, String)>, String> {
    let mut object: serde_json::Map<String, Value> =
        pairs.iter().map(|(name, value)| (name.clone(), Value::String(value.clone()))).collect();
    let mut value = Value::Object(std::mem::take(&mut object));
    edit(&mut value, shape);
    let Value::Object(object) = value else {
        return Err("an edit turned the query into a non-object".into());
    };
    object
        .into_iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(name, value)| match value {
            Value::String(s) => Ok((name, s)),
            Value::Bool(_) | Value::Number(_) => Ok((name, value.to_string())),
            other => Err(format!("spec 11.5: {name} = {other} cannot be a query parameter")),
        })
        .collect()
}

/// The data of the first event of an SSE body (spec 9.4.2, 11.7), as JSON.
fn first_sse_event(body: &str) -> Result<Value, String> {
    let body = body.replace("\r\n", "\n");
    let first = body
        .split("\n\n")
        .find_map(|event| {
            let lines: Vec<&str> = event
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|l| l.strip_prefix(' ').unwrap_or(l))
                .collect();
            (!lines.is_empty()).then(|| lines.join("\n"))
        })
        .ok_or_else(|| "the event stream has no data event".to_owned())?;
    serde_json::from_str(&first)
        .map_err(|e| format!("the first SSE event is not JSON ({e}): {}", cut(&first)))
}

/// A JSON error's details (spec 9.5 `error.data`, 11.6 `error.details`): each must be an object
/// with `@type` (1.0; in 0.3, where details are free-form, others are passed over); ErrorInfo and
/// BadRequest are read.
fn from_json_details(code: WireCode, details: &[Value], mut problems: Vec<String>, v03: bool) -> WireError {
    let mut reason = None;
    let mut domain = None;
    let mut fields = None;
    for detail in details {
        let Some(kind) = detail.get("@type").and_then(Value::as_str) else {
            if v03 {
                continue;
            }
            problems.push(format!(
                "spec 3.3.2: every error detail must carry @type: {}",
                cut(&detail.to_string())
            ));
            continue;
        };
        if kind == a2a_core::error::ERROR_INFO_TYPE && reason.is_none() {
            reason = detail.get("reason").and_then(Value::as_str).map(str::to_owned);
            domain = detail.get("domain").and_then(Value::as_str).map(str::to_owned);
        } else if kind == a2a_core::error::BAD_REQUEST_TYPE && fields.is_none() {
            let mut names: Vec<String> = detail
                .get("fieldViolations")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|v| v.get("field").and_then(Value::as_str).map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            names.sort();
            fields = Some(names);
        }
    }
    WireError { code, reason, domain, fields, rpc_status: None, v03_code: None, shape_problems: problems }
}

/// A gRPC status, with the ErrorInfo and BadRequest of its details (spec 10.6).
fn from_status(status: &tonic::Status) -> WireError {
    let mut problems = Vec::new();
    let details = status.check_error_details_vec().unwrap_or_else(|e| {
        problems.push(format!("spec 10.6: the status details do not decode as google.rpc.Status: {e}"));
        Vec::new()
    });
    let mut reason = None;
    let mut domain = None;
    let mut fields = None;
    for detail in details {
        match detail {
            tonic_types::ErrorDetail::ErrorInfo(info) if reason.is_none() => {
                reason = Some(info.reason);
                domain = Some(info.domain);
            }
            tonic_types::ErrorDetail::BadRequest(bad) if fields.is_none() => {
                let mut names: Vec<String> = bad.field_violations.into_iter().map(|v| v.field).collect();
                names.sort();
                fields = Some(names);
            }
            _ => {}
        }
    }
    WireError {
        code: WireCode::Grpc(status.code()),
        reason,
        domain,
        fields,
        rpc_status: None,
        v03_code: None,
        shape_problems: problems,
    }
}

/// A gRPC status from a 0.3 service: as [`from_status`], with the 0.3 code of its `a2a-error`
/// metadata (a2a-js's convention; the 0.3 spec pins no gRPC error details).
fn from_status_v03(status: &tonic::Status) -> WireError {
    let mut wire = from_status(status);
    wire.v03_code = status
        .metadata()
        .get("a2a-error")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<i64>().ok());
    wire
}

/// The tonic endpoint for a card's gRPC `url`: a URL, or `host:port` (https on port 443).
fn grpc_endpoint(raw: &str) -> Result<(tonic::transport::Endpoint, http::Uri), String> {
    let raw = raw.trim();
    let url = if raw.contains("://") {
        raw.to_owned()
    } else if raw.rsplit_once(':').is_some_and(|(_, port)| port == "443") {
        format!("https://{raw}")
    } else {
        format!("http://{raw}")
    };
    let origin: http::Uri =
        url.trim_end_matches('/').parse().map_err(|e| format!("invalid gRPC endpoint {raw:?}: {e}"))?;
    let endpoint = tonic::transport::Endpoint::from(origin.clone());
    #[cfg(feature = "tls")]
    let endpoint = if origin.scheme_str() == Some("https") {
        endpoint
            .tls_config(tonic::transport::ClientTlsConfig::new().with_enabled_roots())
            .map_err(|e| format!("TLS for {raw:?}: {e}"))?
    } else {
        endpoint
    };
    Ok((endpoint, origin))
}

/// The body of `response`; of an event stream (which may stay open), only up to its first event.
async fn read_body(mut response: reqwest::Response) -> Result<String, String> {
    let stream = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    let mut body = Vec::new();
    let read = async {
        while let Some(chunk) = response.chunk().await.map_err(|e| format!("reading the body: {e}"))? {
            body.extend_from_slice(&chunk);
            if stream && first_sse_event(&String::from_utf8_lossy(&body)).is_ok() {
                break;
            }
        }
        Ok::<_, String>(())
    };
    tokio::time::timeout(std::time::Duration::from_secs(20), read)
        .await
        .map_err(|_| "the reply did not complete within 20 s".to_owned())??;
    Ok(String::from_utf8_lossy(&body).into_owned())
}

fn cut(text: &str) -> String {
    if text.chars().count() > 300 {
        format!("{}...", text.chars().take(300).collect::<String>())
    } else {
        text.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_routes_take_path_variables_and_query_scalars() {
        let route = rest_route(Operation::GetTask, &json!({"id": "t1", "historyLength": 2})).unwrap();
        assert_eq!((route.method, route.segments), (reqwest::Method::GET, vec!["tasks".into(), "t1".into()]));
        assert_eq!(route.query, [("historyLength".to_owned(), "2".to_owned())]);
        let route = rest_route(Operation::CancelTask, &json!({"id": "t1", "tenant": "x"})).unwrap();
        assert_eq!(route.segments, ["tasks", "t1:cancel"]);
        assert_eq!(route.body, Some(json!({})));
        let route = rest_route(
            Operation::ListTasks,
            &json!({"status": "TASK_STATE_RUNNING", "includeArtifacts": true}),
        )
        .unwrap();
        assert_eq!(route.query.len(), 2);
        assert!(rest_route(Operation::GetTaskPushNotificationConfig, &json!({"taskId": "t"})).is_err());
    }

    #[test]
    fn kinds_come_from_error_info_then_bad_request_then_the_code() {
        let error = |code, reason: Option<&str>, fields: Option<Vec<String>>| WireError {
            code,
            reason: reason.map(str::to_owned),
            domain: reason.map(|_| a2a_core::error::ERROR_DOMAIN.to_owned()),
            fields,
            rpc_status: None,
            v03_code: None,
            shape_problems: vec![],
        };
        assert_eq!(
            error(WireCode::Http(400), Some("TASK_NOT_CANCELABLE"), None).kind(),
            Some(ErrorKind::TaskNotCancelable)
        );
        assert_eq!(
            error(WireCode::Grpc(tonic::Code::InvalidArgument), None, Some(vec![])).kind(),
            Some(ErrorKind::InvalidParams)
        );
        assert_eq!(
            error(WireCode::JsonRpc(-32004), None, None).kind(),
            Some(ErrorKind::UnsupportedOperation)
        );
        assert_eq!(error(WireCode::Http(400), None, None).kind(), None, "400 alone is ambiguous");
    }

    #[test]
    fn a_0_3_kind_comes_from_the_0_3_code_not_from_error_info() {
        let error = |code, reason: Option<&str>, v03_code| WireError {
            code,
            reason: reason.map(str::to_owned),
            domain: reason.map(|_| a2a_core::error::ERROR_DOMAIN.to_owned()),
            fields: None,
            rpc_status: None,
            v03_code,
            shape_problems: vec![],
        };
        // a2a-js answers TaskNotCancelable with UNIMPLEMENTED and the code beside it.
        assert_eq!(
            error(WireCode::Grpc(tonic::Code::Unimplemented), None, Some(-32002)).kind_v03(),
            Some(ErrorKind::TaskNotCancelable)
        );
        assert_eq!(
            error(WireCode::Http(409), Some("TASK_NOT_FOUND"), Some(-32002)).kind_v03(),
            Some(ErrorKind::TaskNotCancelable),
            "0.3 clients have no ErrorInfo: the code decides"
        );
        assert_eq!(
            error(WireCode::Http(404), Some("TASK_NOT_CANCELABLE"), None).kind_v03(),
            Some(ErrorKind::TaskNotFound),
            "without a code, the status does"
        );
        assert_eq!(
            error(WireCode::JsonRpc(-32000), None, Some(-32000)).kind_v03(),
            Some(ErrorKind::Internal)
        );
    }

    #[test]
    fn a_0_3_probe_writes_the_1_0_request_as_its_0_3_request() {
        let request = v03_request(Operation::GetTask, &json!({"id": "t1", "historyLength": 2})).unwrap();
        use a2a_v03::V03Request as _;
        assert_eq!(request.method().map(a2a_v03::Method::name), Some("tasks/get"));
        assert_eq!(request.to_jsonrpc_params(), Some(json!({"id": "t1", "historyLength": 2})));
        let error = v03_request(Operation::ListTasks, &json!({})).unwrap_err();
        assert!(error.contains("no A2A 0.3 counterpart"), "{error}");
    }

    #[test]
    fn edits_reach_query_parameters() {
        fn add(value: &mut Value, shape: Shape) {
            assert_eq!(shape, Shape::ProtoJson);
            value["future"] = json!(true);
        }
        let pairs = edit_query(&[("historyLength".into(), "2".into())], add, Shape::ProtoJson).unwrap();
        assert_eq!(
            pairs,
            [("future".to_owned(), "true".to_owned()), ("historyLength".to_owned(), "2".to_owned())]
        );
    }

    #[test]
    fn json_details_without_type_are_shape_problems() {
        let error = from_json_details(
            WireCode::JsonRpc(-32001),
            &[
                json!({"reason": "TASK_NOT_FOUND"}),
                json!({"@type": a2a_core::error::ERROR_INFO_TYPE, "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}),
            ],
            vec![],
            false,
        );
        assert_eq!(error.reason.as_deref(), Some("TASK_NOT_FOUND"));
        assert_eq!(error.shape_problems.len(), 1);
    }

    #[test]
    fn the_first_sse_event_is_read() {
        let body = "data: {\"task\": {\"id\": \"t\"}}\n\ndata: {\"statusUpdate\": {}}\n\n";
        assert_eq!(first_sse_event(body).unwrap(), json!({"task": {"id": "t"}}));
    }
}
