//! Serving a 0.3 request with a 1.0 [`A2aService`]: a 0.3 request is the 1.0 [`Request`] of its
//! operation, translated ([`V03Request`]); [`V03Request::call`] runs it and translates the reply
//! ([`Reply`]).
//!
//! A binding's 0.3 edge does: resolve the version (an empty `A2A-Version` is 0.3, spec 3.6.2),
//! build a [`Request`] (JSON-RPC: [`V03Request::from_jsonrpc`]; HTTP+JSON: [`crate::rest::route`]),
//! [`call`](V03Request::call) the same service the 1.0 edge calls, and write the [`Reply`] or the
//! error ([`crate::error::to_v03`]) in its envelope. `call` takes care of what 0.3 needs around
//! the service:
//! - the context the service sees asks for 1.0 ([`context_for_core`]), since core serves 1.0;
//! - invalid-params errors name 0.3 fields ([`crate::error::in_v03_terms`]);
//! - results are written in the binding's [`Form`];
//! - streams carry 0.3 events and end after the `final` one ([`crate::json::event`]);
//! - `tasks/pushNotificationConfig/get` without a config id answers the task's first config.

use a2a_core::{A2aService, CallContext, Error, Operation, Request, Response, Result, ServiceParams};
use a2a_proto::v1::ListTaskPushNotificationConfigsRequest;
use futures::stream::{BoxStream, StreamExt};
use serde_json::Value;

use crate::convert::{Form, V03};
use crate::error::in_v03_terms;
use crate::json::event::ends_v03_stream;
use crate::method::Method;

/// The header 0.3 clients send their extensions in (1.0 renamed it `A2A-Extensions`).
pub const LEGACY_EXTENSIONS_PARAM: &str = "x-a2a-extensions";

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

/// A 1.0 [`Request`] as 0.3 reads and writes it: every 0.3 request is the 1.0 request of its
/// operation (1.0's `ListTasks` has no 0.3 counterpart).
pub trait V03Request: Sized {
    /// The request of a 0.3 JSON-RPC call (`params` may be absent). Errors are
    /// [`Error::InvalidParams`] naming the 0.3 field.
    fn from_jsonrpc(method: Method, params: Option<&Value>) -> Result<Self>;

    /// The 0.3 method of this request; `None` for `ListTasks`, which 0.3 lacks.
    fn method(&self) -> Option<Method>;

    /// The 0.3 JSON-RPC `params` of this request (client side): `None` for
    /// `agent/getAuthenticatedExtendedCard`, which takes none, and for `ListTasks`.
    fn to_jsonrpc_params(&self) -> Option<Value>;

    /// Runs the request on `service` as a 1.0 call and writes the reply in `form`
    /// ([`Form::Json`] for JSON-RPC, [`Form::ProtoJson`] for HTTP+JSON). See the module docs for
    /// what it adds around the service.
    fn call<S: A2aService + ?Sized>(
        self,
        service: &S,
        ctx: &CallContext,
        form: Form,
    ) -> impl std::future::Future<Output = Result<Reply>> + Send;
}

impl V03Request for Request {
    fn from_jsonrpc(method: Method, params: Option<&Value>) -> Result<Self> {
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

    fn method(&self) -> Option<Method> {
        Method::from_operation(self.operation())
    }

    fn to_jsonrpc_params(&self) -> Option<Value> {
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
            Request::GetExtendedAgentCard(_) | Request::ListTasks(_) => return None,
        })
    }

    async fn call<S: A2aService + ?Sized>(self, service: &S, ctx: &CallContext, form: Form) -> Result<Reply> {
        let method = crate::client::method(self.operation())?;
        let ctx = context_for_core(ctx);
        dispatch(self, service, &ctx, form).await.map_err(|e| in_v03_terms(e, method))
    }
}

/// Runs a 0.3 request's 1.0 request on `service`, the reply written in `form`.
async fn dispatch<S: A2aService + ?Sized>(
    request: Request,
    service: &S,
    ctx: &CallContext,
    form: Form,
) -> Result<Reply> {
    let request = match request {
        Request::GetTaskPushNotificationConfig(r) if r.id.is_empty() => {
            // 0.3's TaskIdParams form: the task's (first) config, as the 0.3 SDKs answered.
            let task_id = r.task_id.clone();
            let list =
                ListTaskPushNotificationConfigsRequest { tenant: r.tenant, task_id, ..Default::default() };
            let configs = service.list_task_push_notification_configs(ctx, list).await?;
            let config =
                configs.configs.into_iter().next().ok_or(Error::TaskNotFound { task_id: r.task_id })?;
            return Ok(Reply::Value(config.to_v03(form)));
        }
        request => request,
    };
    Ok(match service.call(ctx, request).await? {
        Response::SendMessage(reply) => Reply::Value(reply.to_v03(form)),
        Response::Stream(events) => stream(events, form),
        Response::Task(task) => Reply::Value(task.to_v03(form)),
        Response::PushConfig(config) => Reply::Value(config.to_v03(form)),
        Response::PushConfigs(configs) => Reply::Value(configs.to_v03(form)),
        Response::Deleted => Reply::Value(Value::Null),
        Response::AgentCard(card) => Reply::Value(card.to_v03(form)),
        // 0.3 has no ListTasks: `call` refused it before.
        Response::ListTasks(_) => return Err(crate::client::unsupported(Operation::ListTasks)),
    })
}

/// Reads the 0.3 reply of the unary `operation` as its 1.0 [`Response`] ([`read_reply`](crate::client::read_reply) of the
/// operation's result type; nothing is read for a delete, whose result 0.3 leaves open).
pub fn read_response(operation: Operation, value: &Value) -> Result<Response> {
    Ok(match operation {
        Operation::SendMessage => Response::SendMessage(crate::client::read_reply(value)?),
        Operation::GetTask | Operation::CancelTask => Response::Task(crate::client::read_reply(value)?),
        Operation::CreateTaskPushNotificationConfig | Operation::GetTaskPushNotificationConfig => {
            Response::PushConfig(crate::client::read_reply(value)?)
        }
        Operation::ListTaskPushNotificationConfigs => {
            Response::PushConfigs(crate::client::read_reply(value)?)
        }
        Operation::DeleteTaskPushNotificationConfig => Response::Deleted,
        Operation::GetExtendedAgentCard => Response::AgentCard(crate::client::read_reply(value)?),
        Operation::ListTasks => return Err(crate::client::unsupported(operation)),
        Operation::SendStreamingMessage | Operation::SubscribeToTask => {
            return Err(Error::internal(format!("{operation} answers with a stream, not a reply")))
        }
    })
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
