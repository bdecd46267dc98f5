//! Serving a 0.3 request with a 1.0 [`A2aService`]: [`Request`] (a 0.3 request, translated),
//! [`Request::call`] (run it, translate the reply) and [`Reply`].
//!
//! A binding's 0.3 edge does: resolve the version (an empty `A2A-Version` is 0.3, spec 3.6.2),
//! build a [`Request`] (JSON-RPC: [`Request::from_jsonrpc`]; HTTP+JSON: [`crate::rest::route`]),
//! [`call`](Request::call) the same service the 1.0 edge calls, and write the [`Reply`] or the
//! error ([`crate::error::to_v03`]) in its envelope. `call` takes care of what 0.3 needs around
//! the service:
//! - the context the service sees asks for 1.0 ([`context_for_core`]), since core serves 1.0;
//! - invalid-params errors name 0.3 fields ([`crate::error::in_v03_terms`]);
//! - results are written in the binding's [`Form`];
//! - streams carry 0.3 events and end after the `final` one ([`crate::json::event`]);
//! - `tasks/pushNotificationConfig/get` without a config id answers the task's first config.

use a2a_core::{A2aService, CallContext, Error, Result, ServiceParams};
use a2a_proto::v1::{
    CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    SendMessageRequest, SubscribeToTaskRequest, TaskPushNotificationConfig,
};
use futures::stream::{BoxStream, StreamExt};
use serde_json::Value;

use crate::convert::{Form, V03};
use crate::error::in_v03_terms;
use crate::json::event::ends_v03_stream;
use crate::method::Method;

/// The header 0.3 clients send their extensions in (1.0 renamed it `A2A-Extensions`).
pub const LEGACY_EXTENSIONS_PARAM: &str = "x-a2a-extensions";

/// A 0.3 request, translated into the 1.0 request of its operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// `message/send`.
    SendMessage(SendMessageRequest),
    /// `message/stream`.
    SendStreamingMessage(SendMessageRequest),
    /// `tasks/get`.
    GetTask(GetTaskRequest),
    /// `tasks/cancel`.
    CancelTask(CancelTaskRequest),
    /// `tasks/resubscribe`.
    SubscribeToTask(SubscribeToTaskRequest),
    /// `tasks/pushNotificationConfig/set`.
    CreateTaskPushNotificationConfig(TaskPushNotificationConfig),
    /// `tasks/pushNotificationConfig/get` (an empty `id` asks for the task's first config).
    GetTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest),
    /// `tasks/pushNotificationConfig/list`.
    ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest),
    /// `tasks/pushNotificationConfig/delete`.
    DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest),
    /// `agent/getAuthenticatedExtendedCard`.
    GetExtendedAgentCard(GetExtendedAgentCardRequest),
}

/// What a 0.3 request returns, already in 0.3 form.
pub enum Reply {
    /// The result: a JSON-RPC `result`, or an HTTP+JSON response body. `null` for
    /// `tasks/pushNotificationConfig/delete` (HTTP+JSON answers it with an empty body).
    Value(Value),
    /// The events of `message/stream` / `tasks/resubscribe`, each a JSON-RPC `result` or an SSE
    /// `data` payload of HTTP+JSON. The stream ends after the event that ends a 0.3 stream; an
    /// `Err` item ends it abnormally (write it with [`crate::error::to_v03`]).
    Stream(BoxStream<'static, Result<Value>>),
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reply::Value(value) => f.debug_tuple("Value").field(value).finish(),
            Reply::Stream(_) => f.debug_tuple("Stream").finish_non_exhaustive(),
        }
    }
}

impl Request {
    /// The 0.3 method of this request.
    pub fn method(&self) -> Method {
        match self {
            Request::SendMessage(_) => Method::MessageSend,
            Request::SendStreamingMessage(_) => Method::MessageStream,
            Request::GetTask(_) => Method::TasksGet,
            Request::CancelTask(_) => Method::TasksCancel,
            Request::SubscribeToTask(_) => Method::TasksResubscribe,
            Request::CreateTaskPushNotificationConfig(_) => Method::PushNotificationConfigSet,
            Request::GetTaskPushNotificationConfig(_) => Method::PushNotificationConfigGet,
            Request::ListTaskPushNotificationConfigs(_) => Method::PushNotificationConfigList,
            Request::DeleteTaskPushNotificationConfig(_) => Method::PushNotificationConfigDelete,
            Request::GetExtendedAgentCard(_) => Method::GetAuthenticatedExtendedCard,
        }
    }

    /// The request of a 0.3 JSON-RPC call (`params` may be absent). Errors are
    /// [`Error::InvalidParams`] naming the 0.3 field.
    pub fn from_jsonrpc(method: Method, params: Option<&Value>) -> Result<Self> {
        let params = params.unwrap_or(&Value::Null);
        crate::read::check_depth(params)?;
        Ok(match method {
            Method::MessageSend => Request::SendMessage(V03::from_v03(params)?),
            Method::MessageStream => Request::SendStreamingMessage(V03::from_v03(params)?),
            Method::TasksGet => Request::GetTask(V03::from_v03(params)?),
            Method::TasksCancel => Request::CancelTask(V03::from_v03(params)?),
            Method::TasksResubscribe => Request::SubscribeToTask(V03::from_v03(params)?),
            Method::PushNotificationConfigSet => {
                Request::CreateTaskPushNotificationConfig(V03::from_v03(params)?)
            }
            Method::PushNotificationConfigGet => {
                Request::GetTaskPushNotificationConfig(V03::from_v03(params)?)
            }
            Method::PushNotificationConfigList => {
                Request::ListTaskPushNotificationConfigs(V03::from_v03(params)?)
            }
            Method::PushNotificationConfigDelete => {
                Request::DeleteTaskPushNotificationConfig(V03::from_v03(params)?)
            }
            Method::GetAuthenticatedExtendedCard => Request::GetExtendedAgentCard(V03::from_v03(params)?),
        })
    }

    /// The 0.3 JSON-RPC `params` of this request (client side): `None` for
    /// `agent/getAuthenticatedExtendedCard`, which takes none.
    pub fn to_jsonrpc_params(&self) -> Option<Value> {
        let form = Form::Json;
        Some(match self {
            Request::SendMessage(r) | Request::SendStreamingMessage(r) => r.to_v03(form),
            Request::GetTask(r) => r.to_v03(form),
            Request::CancelTask(r) => r.to_v03(form),
            Request::SubscribeToTask(r) => r.to_v03(form),
            Request::CreateTaskPushNotificationConfig(r) => r.to_v03(form),
            Request::GetTaskPushNotificationConfig(r) => r.to_v03(form),
            Request::ListTaskPushNotificationConfigs(r) => r.to_v03(form),
            Request::DeleteTaskPushNotificationConfig(r) => r.to_v03(form),
            Request::GetExtendedAgentCard(_) => return None,
        })
    }

    /// Runs the request on `service` as a 1.0 call and writes the reply in `form`
    /// ([`Form::Json`] for JSON-RPC, [`Form::ProtoJson`] for HTTP+JSON). See the module docs for
    /// what it adds around the service.
    pub async fn call<S: A2aService + ?Sized>(
        self,
        service: &S,
        ctx: &CallContext,
        form: Form,
    ) -> Result<Reply> {
        let method = self.method();
        let ctx = context_for_core(ctx);
        self.dispatch(service, &ctx, form).await.map_err(|e| in_v03_terms(e, method))
    }

    async fn dispatch<S: A2aService + ?Sized>(
        self,
        service: &S,
        ctx: &CallContext,
        form: Form,
    ) -> Result<Reply> {
        match self {
            Request::SendMessage(r) => {
                let reply = service.send_message(ctx, r).await?;
                Ok(Reply::Value(reply.to_v03(form)))
            }
            Request::SendStreamingMessage(r) => {
                Ok(stream(service.send_streaming_message(ctx, r).await?, form))
            }
            Request::SubscribeToTask(r) => Ok(stream(service.subscribe_to_task(ctx, r).await?, form)),
            Request::GetTask(r) => {
                let task = service.get_task(ctx, r).await?;
                Ok(Reply::Value(task.to_v03(form)))
            }
            Request::CancelTask(r) => {
                let task = service.cancel_task(ctx, r).await?;
                Ok(Reply::Value(task.to_v03(form)))
            }
            Request::CreateTaskPushNotificationConfig(r) => {
                let config = service.create_task_push_notification_config(ctx, r).await?;
                Ok(Reply::Value(config.to_v03(form)))
            }
            Request::GetTaskPushNotificationConfig(r) if r.id.is_empty() => {
                // 0.3's TaskIdParams form: the task's (first) config, as the 0.3 SDKs answered.
                let task_id = r.task_id.clone();
                let list = ListTaskPushNotificationConfigsRequest {
                    tenant: r.tenant,
                    task_id,
                    ..Default::default()
                };
                let configs = service.list_task_push_notification_configs(ctx, list).await?;
                let config =
                    configs.configs.into_iter().next().ok_or(Error::TaskNotFound { task_id: r.task_id })?;
                Ok(Reply::Value(config.to_v03(form)))
            }
            Request::GetTaskPushNotificationConfig(r) => {
                let config = service.get_task_push_notification_config(ctx, r).await?;
                Ok(Reply::Value(config.to_v03(form)))
            }
            Request::ListTaskPushNotificationConfigs(r) => {
                let configs = service.list_task_push_notification_configs(ctx, r).await?;
                Ok(Reply::Value(configs.to_v03(form)))
            }
            Request::DeleteTaskPushNotificationConfig(r) => {
                service.delete_task_push_notification_config(ctx, r).await?;
                Ok(Reply::Value(Value::Null))
            }
            Request::GetExtendedAgentCard(r) => {
                let card = service.get_extended_agent_card(ctx, r).await?;
                Ok(Reply::Value(card.to_v03(form)))
            }
        }
    }
}

/// The 1.0 events as 0.3 values, ending after the event that ends a 0.3 stream.
fn stream(events: a2a_core::EventStream, form: Form) -> Reply {
    let stream = events
        .scan(false, move |ended, item| {
            if *ended {
                return futures::future::ready(None);
            }
            let item = item.map(|event| {
                *ended = ends_v03_stream(&event);
                event.to_v03(form)
            });
            futures::future::ready(Some(item))
        })
        .boxed();
    Reply::Stream(stream)
}

/// The context a 1.0 service sees for a 0.3 request: `A2A-Version: 1.0` (the request has been
/// translated to 1.0, and core serves 1.0 only), the extensions of 0.3's `X-A2A-Extensions`
/// header as `A2A-Extensions` when that is absent, and
/// [`wire_version`](CallContext::wire_version) 0.3, so that what outlives the call is written for
/// a 0.3 peer (push notifications to a config it registers, 0.3 spec 9.5). The principal is kept.
pub fn context_for_core(ctx: &CallContext) -> CallContext {
    let mut params = ctx.params.clone();
    params.insert(a2a_core::context::VERSION_PARAM, a2a_core::ProtocolVersion::V1_0.as_str());
    if params.get(a2a_core::context::EXTENSIONS_PARAM).is_none() {
        if let Some(extensions) = params.get(LEGACY_EXTENSIONS_PARAM).map(str::to_owned) {
            params.insert(a2a_core::context::EXTENSIONS_PARAM, extensions);
        }
    }
    CallContext { params, principal: ctx.principal.clone(), wire_version: a2a_core::ProtocolVersion::V0_3 }
}

/// The service parameters a client sends to a 0.3 agent: `A2A-Version: 0.3` instead of 1.0
/// (a 0.3 server ignores it; a dual server reads it), and the extensions in both `A2A-Extensions`
/// and 0.3's `X-A2A-Extensions`.
pub fn client_params(params: &ServiceParams) -> ServiceParams {
    let mut params = params.clone();
    params.insert(a2a_core::context::VERSION_PARAM, a2a_core::ProtocolVersion::V0_3.as_str());
    if let Some(extensions) = params.get(a2a_core::context::EXTENSIONS_PARAM).map(str::to_owned) {
        params.insert(LEGACY_EXTENSIONS_PARAM, extensions);
    }
    params
}
