//! The operation table: [`Operation`] (the 11 operations of spec 3.1 with their method names,
//! spec 5.3), and one typed request/response pair for all of them, [`Request`] and [`Response`].
//!
//! Everything that treats the operations alike works on the pair: [`A2aService::call`] takes a
//! `Request` and answers a `Response`, so a cross-cutting layer (metrics, stream limits, a
//! tenant filled in, logging, test scripting) is one method, not eleven. A binding's wire
//! mapping decodes and encodes the messages through [`Decode`] and [`Encode`], whose one generic
//! method sees each operation's message type: the per-operation `match`es are written here once.
//!
//! Adding an operation touches this table, the handler and each binding's wire mapping (routes,
//! method names); the layers and clients follow.
//!
//! [`A2aService::call`]: crate::A2aService::call

use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use a2a_proto::WireMessage;

use crate::error::{Error, Result};
use crate::service::EventStream;

/// One of the abstract operations of spec 3.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// 3.1.1 Send Message.
    SendMessage,
    /// 3.1.2 Send Streaming Message.
    SendStreamingMessage,
    /// 3.1.3 Get Task.
    GetTask,
    /// 3.1.4 List Tasks.
    ListTasks,
    /// 3.1.5 Cancel Task.
    CancelTask,
    /// 3.1.6 Subscribe to Task.
    SubscribeToTask,
    /// 3.1.7 Create Push Notification Config.
    CreateTaskPushNotificationConfig,
    /// 3.1.8 Get Push Notification Config.
    GetTaskPushNotificationConfig,
    /// 3.1.9 List Push Notification Configs.
    ListTaskPushNotificationConfigs,
    /// 3.1.10 Delete Push Notification Config.
    DeleteTaskPushNotificationConfig,
    /// 3.1.11 Get Extended Agent Card.
    GetExtendedAgentCard,
}

impl Operation {
    /// Every operation, in the order of spec 3.1.
    pub const ALL: [Operation; 11] = [
        Operation::SendMessage,
        Operation::SendStreamingMessage,
        Operation::GetTask,
        Operation::ListTasks,
        Operation::CancelTask,
        Operation::SubscribeToTask,
        Operation::CreateTaskPushNotificationConfig,
        Operation::GetTaskPushNotificationConfig,
        Operation::ListTaskPushNotificationConfigs,
        Operation::DeleteTaskPushNotificationConfig,
        Operation::GetExtendedAgentCard,
    ];

    /// The JSON-RPC method name, which is also the gRPC method name (spec 5.3, 9.4).
    pub fn method(self) -> &'static str {
        match self {
            Operation::SendMessage => "SendMessage",
            Operation::SendStreamingMessage => "SendStreamingMessage",
            Operation::GetTask => "GetTask",
            Operation::ListTasks => "ListTasks",
            Operation::CancelTask => "CancelTask",
            Operation::SubscribeToTask => "SubscribeToTask",
            Operation::CreateTaskPushNotificationConfig => "CreateTaskPushNotificationConfig",
            Operation::GetTaskPushNotificationConfig => "GetTaskPushNotificationConfig",
            Operation::ListTaskPushNotificationConfigs => "ListTaskPushNotificationConfigs",
            Operation::DeleteTaskPushNotificationConfig => "DeleteTaskPushNotificationConfig",
            Operation::GetExtendedAgentCard => "GetExtendedAgentCard",
        }
    }

    /// The operation with this method name (case-sensitive, as JSON-RPC is).
    pub fn from_method(method: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|op| op.method() == method)
    }

    /// Whether the operation answers with a stream of `StreamResponse` (SSE / server streaming).
    pub fn is_streaming(self) -> bool {
        matches!(self, Operation::SendStreamingMessage | Operation::SubscribeToTask)
    }

    /// Whether the operation only reads: it changes nothing on the agent, so repeating it is
    /// harmless (what a client may retry after a lost connection).
    pub fn is_read_only(self) -> bool {
        matches!(
            self,
            Operation::GetTask
                | Operation::ListTasks
                | Operation::GetTaskPushNotificationConfig
                | Operation::ListTaskPushNotificationConfigs
                | Operation::GetExtendedAgentCard
        )
    }
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.method())
    }
}

/// The request of one operation: its message (spec 3.1), tagged with the operation.
#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// 3.1.1
    SendMessage(SendMessageRequest),
    /// 3.1.2
    SendStreamingMessage(SendMessageRequest),
    /// 3.1.3
    GetTask(GetTaskRequest),
    /// 3.1.4
    ListTasks(ListTasksRequest),
    /// 3.1.5
    CancelTask(CancelTaskRequest),
    /// 3.1.6
    SubscribeToTask(SubscribeToTaskRequest),
    /// 3.1.7
    CreateTaskPushNotificationConfig(TaskPushNotificationConfig),
    /// 3.1.8
    GetTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest),
    /// 3.1.9
    ListTaskPushNotificationConfigs(ListTaskPushNotificationConfigsRequest),
    /// 3.1.10
    DeleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest),
    /// 3.1.11
    GetExtendedAgentCard(GetExtendedAgentCardRequest),
}

/// Reads the message of an operation from a binding's wire (ProtoJSON text, protobuf bytes,
/// a JSON object built from a path and a query): [`Request::decode`], [`Response::decode`].
pub trait Decode {
    /// The message, as type `M`. An input that is not one is [`Error::InvalidParams`] on the
    /// server side (naming the field) and [`Error::InvalidAgentResponse`] on the client side.
    fn decode<M: WireMessage>(self) -> Result<M>;
}

/// Writes the message of an operation for a binding's wire: [`Request::encode`],
/// [`Response::encode`].
pub trait Encode {
    /// What the binding makes of a message (bytes, a JSON value, a path and a body, ...).
    type Output;

    /// `message`, written.
    fn encode<M: WireMessage>(self, message: &M) -> Self::Output;
}

/// Applies `$what` to the message of every variant of a [`Request`] (one arm per operation).
macro_rules! each_request {
    ($request:expr, $message:ident => $what:expr) => {
        match $request {
            Request::SendMessage($message) => $what,
            Request::SendStreamingMessage($message) => $what,
            Request::GetTask($message) => $what,
            Request::ListTasks($message) => $what,
            Request::CancelTask($message) => $what,
            Request::SubscribeToTask($message) => $what,
            Request::CreateTaskPushNotificationConfig($message) => $what,
            Request::GetTaskPushNotificationConfig($message) => $what,
            Request::ListTaskPushNotificationConfigs($message) => $what,
            Request::DeleteTaskPushNotificationConfig($message) => $what,
            Request::GetExtendedAgentCard($message) => $what,
        }
    };
}

impl Request {
    /// The operation this is a request of.
    pub fn operation(&self) -> Operation {
        match self {
            Request::SendMessage(_) => Operation::SendMessage,
            Request::SendStreamingMessage(_) => Operation::SendStreamingMessage,
            Request::GetTask(_) => Operation::GetTask,
            Request::ListTasks(_) => Operation::ListTasks,
            Request::CancelTask(_) => Operation::CancelTask,
            Request::SubscribeToTask(_) => Operation::SubscribeToTask,
            Request::CreateTaskPushNotificationConfig(_) => Operation::CreateTaskPushNotificationConfig,
            Request::GetTaskPushNotificationConfig(_) => Operation::GetTaskPushNotificationConfig,
            Request::ListTaskPushNotificationConfigs(_) => Operation::ListTaskPushNotificationConfigs,
            Request::DeleteTaskPushNotificationConfig(_) => Operation::DeleteTaskPushNotificationConfig,
            Request::GetExtendedAgentCard(_) => Operation::GetExtendedAgentCard,
        }
    }

    /// The request of `operation`, its message read by `decoder`.
    pub fn decode(operation: Operation, decoder: impl Decode) -> Result<Request> {
        Ok(match operation {
            Operation::SendMessage => Request::SendMessage(decoder.decode()?),
            Operation::SendStreamingMessage => Request::SendStreamingMessage(decoder.decode()?),
            Operation::GetTask => Request::GetTask(decoder.decode()?),
            Operation::ListTasks => Request::ListTasks(decoder.decode()?),
            Operation::CancelTask => Request::CancelTask(decoder.decode()?),
            Operation::SubscribeToTask => Request::SubscribeToTask(decoder.decode()?),
            Operation::CreateTaskPushNotificationConfig => {
                Request::CreateTaskPushNotificationConfig(decoder.decode()?)
            }
            Operation::GetTaskPushNotificationConfig => {
                Request::GetTaskPushNotificationConfig(decoder.decode()?)
            }
            Operation::ListTaskPushNotificationConfigs => {
                Request::ListTaskPushNotificationConfigs(decoder.decode()?)
            }
            Operation::DeleteTaskPushNotificationConfig => {
                Request::DeleteTaskPushNotificationConfig(decoder.decode()?)
            }
            Operation::GetExtendedAgentCard => Request::GetExtendedAgentCard(decoder.decode()?),
        })
    }

    /// The message, written by `encoder`.
    pub fn encode<E: Encode>(&self, encoder: E) -> E::Output {
        each_request!(self, message => encoder.encode(message))
    }

    /// The request's `tenant` (spec 4.4.1 `AgentInterface.tenant`; every request message has one).
    pub fn tenant(&self) -> &str {
        each_request!(self, message => &message.tenant)
    }

    /// The request's `tenant`, to fill in or change.
    pub fn tenant_mut(&mut self) -> &mut String {
        each_request!(self, message => &mut message.tenant)
    }

    /// The string field of JSON name `name` among those that address the request, if it has it:
    /// `tenant` (every request), `id` (the task of GetTask, CancelTask and SubscribeToTask; the
    /// push config of the push config operations) and `taskId` (the push config operations).
    /// These are the fields a URL path sets (google.api.http path variables, spec 11.3).
    pub fn address_mut(&mut self, name: &str) -> Option<&mut String> {
        match (self, name) {
            (request, "tenant") => Some(request.tenant_mut()),
            (Request::GetTask(r), "id") => Some(&mut r.id),
            (Request::CancelTask(r), "id") => Some(&mut r.id),
            (Request::SubscribeToTask(r), "id") => Some(&mut r.id),
            (Request::CreateTaskPushNotificationConfig(r), "id") => Some(&mut r.id),
            (Request::CreateTaskPushNotificationConfig(r), "taskId") => Some(&mut r.task_id),
            (Request::GetTaskPushNotificationConfig(r), "id") => Some(&mut r.id),
            (Request::GetTaskPushNotificationConfig(r), "taskId") => Some(&mut r.task_id),
            (Request::ListTaskPushNotificationConfigs(r), "taskId") => Some(&mut r.task_id),
            (Request::DeleteTaskPushNotificationConfig(r), "id") => Some(&mut r.id),
            (Request::DeleteTaskPushNotificationConfig(r), "taskId") => Some(&mut r.task_id),
            _ => None,
        }
    }

    /// The task the request is about, when it names one: the message's `taskId` of a send, the
    /// `id` of GetTask, CancelTask and SubscribeToTask, the `taskId` of the push config
    /// operations.
    pub fn task_id(&self) -> Option<&str> {
        match self {
            Request::SendMessage(request) | Request::SendStreamingMessage(request) => {
                request.message.as_ref().map(|m| m.task_id.as_str())
            }
            Request::GetTask(request) => Some(request.id.as_str()),
            Request::CancelTask(request) => Some(request.id.as_str()),
            Request::SubscribeToTask(request) => Some(request.id.as_str()),
            Request::CreateTaskPushNotificationConfig(request) => Some(request.task_id.as_str()),
            Request::GetTaskPushNotificationConfig(request) => Some(request.task_id.as_str()),
            Request::ListTaskPushNotificationConfigs(request) => Some(request.task_id.as_str()),
            Request::DeleteTaskPushNotificationConfig(request) => Some(request.task_id.as_str()),
            Request::ListTasks(_) | Request::GetExtendedAgentCard(_) => None,
        }
        .filter(|id| !id.is_empty())
    }

    /// The context the request is about, when it names one: the message's `contextId` of a
    /// send, ListTasks' `contextId` filter.
    pub fn context_id(&self) -> Option<&str> {
        match self {
            Request::SendMessage(request) | Request::SendStreamingMessage(request) => {
                request.message.as_ref().map(|m| m.context_id.as_str())
            }
            Request::ListTasks(request) => Some(request.context_id.as_str()),
            _ => None,
        }
        .filter(|id| !id.is_empty())
    }
}

/// The ProtoJSON of the request's message (what a JSON-RPC client sends as `params`, what a
/// recording test asserts on).
impl serde::Serialize for Request {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        each_request!(self, message => message.serialize(serializer))
    }
}

/// What an operation answers (spec 3.1), one variant per result type.
pub enum Response {
    /// SendMessage: a task or a direct message.
    SendMessage(SendMessageResponse),
    /// SendStreamingMessage, SubscribeToTask: the events, in order (spec 3.5.2).
    Stream(EventStream),
    /// GetTask, CancelTask.
    Task(Task),
    /// ListTasks.
    ListTasks(ListTasksResponse),
    /// CreateTaskPushNotificationConfig, GetTaskPushNotificationConfig.
    PushConfig(TaskPushNotificationConfig),
    /// ListTaskPushNotificationConfigs.
    PushConfigs(ListTaskPushNotificationConfigsResponse),
    /// DeleteTaskPushNotificationConfig: nothing (`google.protobuf.Empty`).
    Deleted,
    /// GetExtendedAgentCard.
    AgentCard(AgentCard),
}

impl std::fmt::Debug for Response {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Response::SendMessage(reply) => f.debug_tuple("SendMessage").field(reply).finish(),
            Response::Stream(_) => f.debug_tuple("Stream").finish_non_exhaustive(),
            Response::Task(task) => f.debug_tuple("Task").field(task).finish(),
            Response::ListTasks(page) => f.debug_tuple("ListTasks").field(page).finish(),
            Response::PushConfig(config) => f.debug_tuple("PushConfig").field(config).finish(),
            Response::PushConfigs(page) => f.debug_tuple("PushConfigs").field(page).finish(),
            Response::Deleted => f.write_str("Deleted"),
            Response::AgentCard(card) => f.debug_tuple("AgentCard").field(card).finish(),
        }
    }
}

/// A [`Response`] as a binding writes it: a message (written by the binding's [`Encode`]), the
/// empty result of a delete, or a stream of events.
pub enum Encoded<T> {
    /// The encoded message of a unary result.
    Message(T),
    /// The empty result of DeleteTaskPushNotificationConfig: each binding writes its own form of
    /// `google.protobuf.Empty`.
    Empty,
    /// The events of a streaming operation.
    Stream(EventStream),
}

impl<T: std::fmt::Debug> std::fmt::Debug for Encoded<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Encoded::Message(message) => f.debug_tuple("Message").field(message).finish(),
            Encoded::Empty => f.write_str("Empty"),
            Encoded::Stream(_) => f.debug_tuple("Stream").finish_non_exhaustive(),
        }
    }
}

impl Response {
    /// The response of the unary `operation`, its message read by `decoder` (nothing is read for
    /// DeleteTaskPushNotificationConfig). Streams are not decoded: a streaming operation is an
    /// internal error here; its client builds [`Response::Stream`] from the events it reads.
    pub fn decode(operation: Operation, decoder: impl Decode) -> Result<Response> {
        Ok(match operation {
            Operation::SendMessage => Response::SendMessage(decoder.decode()?),
            Operation::GetTask | Operation::CancelTask => Response::Task(decoder.decode()?),
            Operation::ListTasks => Response::ListTasks(decoder.decode()?),
            Operation::CreateTaskPushNotificationConfig | Operation::GetTaskPushNotificationConfig => {
                Response::PushConfig(decoder.decode()?)
            }
            Operation::ListTaskPushNotificationConfigs => Response::PushConfigs(decoder.decode()?),
            Operation::DeleteTaskPushNotificationConfig => Response::Deleted,
            Operation::GetExtendedAgentCard => Response::AgentCard(decoder.decode()?),
            Operation::SendStreamingMessage | Operation::SubscribeToTask => {
                return Err(Error::internal(format!("{operation} answers with a stream, not a message")));
            }
        })
    }

    /// The response as a binding writes it, its message written by `encoder`.
    pub fn encode<E: Encode>(self, encoder: E) -> Encoded<E::Output> {
        match self {
            Response::SendMessage(reply) => Encoded::Message(encoder.encode(&reply)),
            Response::Stream(events) => Encoded::Stream(events),
            Response::Task(task) => Encoded::Message(encoder.encode(&task)),
            Response::ListTasks(page) => Encoded::Message(encoder.encode(&page)),
            Response::PushConfig(config) => Encoded::Message(encoder.encode(&config)),
            Response::PushConfigs(page) => Encoded::Message(encoder.encode(&page)),
            Response::Deleted => Encoded::Empty,
            Response::AgentCard(card) => Encoded::Message(encoder.encode(&card)),
        }
    }

    /// The message of a unary result, written by `encoder` (what a log shows); `None` for a
    /// stream and for a delete's empty result.
    pub fn encode_message<E: Encode>(&self, encoder: E) -> Option<E::Output> {
        Some(match self {
            Response::SendMessage(reply) => encoder.encode(reply),
            Response::Task(task) => encoder.encode(task),
            Response::ListTasks(page) => encoder.encode(page),
            Response::PushConfig(config) => encoder.encode(config),
            Response::PushConfigs(page) => encoder.encode(page),
            Response::AgentCard(card) => encoder.encode(card),
            Response::Stream(_) | Response::Deleted => return None,
        })
    }

    /// Whether this is what `operation` answers with (the result type of spec 3.1).
    pub fn answers(&self, operation: Operation) -> bool {
        match self {
            Response::SendMessage(_) => operation == Operation::SendMessage,
            Response::Stream(_) => operation.is_streaming(),
            Response::Task(_) => matches!(operation, Operation::GetTask | Operation::CancelTask),
            Response::ListTasks(_) => operation == Operation::ListTasks,
            Response::PushConfig(_) => matches!(
                operation,
                Operation::CreateTaskPushNotificationConfig | Operation::GetTaskPushNotificationConfig
            ),
            Response::PushConfigs(_) => operation == Operation::ListTaskPushNotificationConfigs,
            Response::Deleted => operation == Operation::DeleteTaskPushNotificationConfig,
            Response::AgentCard(_) => operation == Operation::GetExtendedAgentCard,
        }
    }

    /// The error of a service that answered with this where `expected` was due, the wrong result
    /// type: a bug of that service, reported rather than panicking.
    fn mismatch(&self, expected: &str) -> Error {
        Error::internal(format!("the service answered {self:?} where {expected} was due"))
    }
}

/// The result of each operation taken out of its [`Response`]; another variant is an internal
/// error (a service that answered the wrong result type).
macro_rules! results {
    ($($variant:ident($result:ty)),* $(,)?) => {$(
        impl TryFrom<Response> for $result {
            type Error = Error;

            fn try_from(response: Response) -> Result<$result> {
                match response {
                    Response::$variant(result) => Ok(result),
                    other => Err(other.mismatch(stringify!($result))),
                }
            }
        }
    )*};
}

results! {
    SendMessage(SendMessageResponse),
    Stream(EventStream),
    Task(Task),
    ListTasks(ListTasksResponse),
    PushConfig(TaskPushNotificationConfig),
    PushConfigs(ListTaskPushNotificationConfigsResponse),
    AgentCard(AgentCard),
}

/// DeleteTaskPushNotificationConfig's result: nothing.
impl TryFrom<Response> for () {
    type Error = Error;

    fn try_from(response: Response) -> Result<()> {
        match response {
            Response::Deleted => Ok(()),
            other => Err(other.mismatch("nothing (a delete)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method_names_round_trip_and_two_operations_stream() {
        for op in Operation::ALL {
            assert_eq!(Operation::from_method(op.method()), Some(op));
        }
        let streaming: Vec<_> = Operation::ALL.into_iter().filter(|op| op.is_streaming()).collect();
        assert_eq!(streaming, [Operation::SendStreamingMessage, Operation::SubscribeToTask]);
        assert_eq!(Operation::from_method("message/send"), None);
    }

    /// A decoder of ProtoJSON text, as a binding writes one.
    struct Json(&'static str);

    impl Decode for Json {
        fn decode<M: WireMessage>(self) -> Result<M> {
            a2a_proto::json::from_slice(self.0.as_bytes())
                .map_err(|e| Error::invalid_param("params", e.message()))
        }
    }

    struct ToJson;

    impl Encode for ToJson {
        type Output = String;

        fn encode<M: WireMessage>(self, message: &M) -> String {
            format!("{}:{}", M::NAME, serde_json::to_string(message).unwrap())
        }
    }

    #[test]
    fn every_operation_decodes_its_own_message_and_encodes_it_back() {
        for op in Operation::ALL {
            let request = Request::decode(op, Json(r#"{"tenant": "t", "id": "x", "taskId": "x"}"#)).unwrap();
            assert_eq!(request.operation(), op);
            assert_eq!(request.tenant(), "t");
            let encoded = request.encode(ToJson);
            assert!(encoded.contains(r#""tenant":"t""#), "{op}: {encoded}");
        }
        let get = Request::decode(Operation::GetTask, Json(r#"{"id": "task-1"}"#)).unwrap();
        assert_eq!(get.encode(ToJson), r#"GetTaskRequest:{"id":"task-1"}"#);
        assert_eq!(get.task_id(), Some("task-1"));
        assert_eq!(get.context_id(), None);
        let error = Request::decode(Operation::GetTask, Json(r#"{"id": 5}"#)).unwrap_err();
        assert!(matches!(error, Error::InvalidParams { .. }), "{error:?}");
    }

    #[test]
    fn the_addressing_fields_are_those_of_each_message() {
        let addressed = |op: Operation| {
            let mut request = Request::decode(op, Json("{}")).unwrap();
            ["tenant", "id", "taskId", "contextId"]
                .into_iter()
                .filter(|name| {
                    let found = request.address_mut(name).map(|field| "x".clone_into(field)).is_some();
                    found && serde_json::to_value(&request).unwrap()[*name] == "x"
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(addressed(Operation::SendMessage), ["tenant"]);
        assert_eq!(addressed(Operation::GetTask), ["tenant", "id"]);
        assert_eq!(addressed(Operation::ListTaskPushNotificationConfigs), ["tenant", "taskId"]);
        assert_eq!(addressed(Operation::DeleteTaskPushNotificationConfig), ["tenant", "id", "taskId"]);
    }

    #[test]
    fn the_tenant_of_every_request_can_be_filled_in() {
        for op in Operation::ALL {
            let mut request = Request::decode(op, Json("{}")).unwrap();
            assert_eq!(request.tenant(), "");
            "acme".clone_into(request.tenant_mut());
            assert_eq!(request.tenant(), "acme", "{op}");
            assert_eq!(serde_json::to_value(&request).unwrap()["tenant"], "acme", "{op}");
        }
    }

    #[test]
    fn responses_decode_by_operation_and_know_what_they_answer() {
        for op in Operation::ALL {
            match Response::decode(op, Json(r#"{"id": "x", "name": "A"}"#)) {
                Ok(response) => {
                    assert!(!op.is_streaming());
                    assert!(response.answers(op), "{op}: {response:?}");
                    let other = Operation::ALL.into_iter().filter(|o| !response.answers(*o)).count();
                    assert!(other >= 8, "{op}: a response answers one result type");
                }
                Err(error) => {
                    assert!(op.is_streaming(), "{op}: {error}");
                    assert!(matches!(error, Error::Internal { .. }), "{error:?}");
                }
            }
        }
        let task = Response::decode(Operation::CancelTask, Json(r#"{"id": "t"}"#)).unwrap();
        assert!(matches!(task.encode(ToJson), Encoded::Message(text) if text == r#"Task:{"id":"t"}"#));
        assert!(matches!(Response::Deleted.encode(ToJson), Encoded::Empty));
        let mismatch = Task::try_from(Response::Deleted).unwrap_err();
        assert!(mismatch.to_string().contains("Task"), "{mismatch}");
        assert!(<()>::try_from(Response::Deleted).is_ok());
    }

    #[test]
    fn only_reads_are_read_only() {
        let reads: Vec<_> = Operation::ALL.into_iter().filter(|op| op.is_read_only()).collect();
        assert_eq!(
            reads,
            [
                Operation::GetTask,
                Operation::ListTasks,
                Operation::GetTaskPushNotificationConfig,
                Operation::ListTaskPushNotificationConfigs,
                Operation::GetExtendedAgentCard
            ]
        );
    }
}
