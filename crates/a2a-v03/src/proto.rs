//! The 0.3 protobuf messages (`a2a_proto::v0_3`, package `a2a.v1`) as 1.0 types and back: what a
//! gRPC 0.3 service or client needs around the 1.0 [`A2aService`](a2a_core::A2aService).
//!
//! The bridge goes through ProtoJSON on purpose: a 0.3 message is serialized by its pbjson impl and
//! read by the same liberal [`V03`] reader the HTTP+JSON edge uses; a 1.0 value is written by the
//! [`Form::ProtoJson`] writer and deserialized into the 0.3 message. So gRPC, REST and JSON-RPC
//! share one mapping (and its tests), including the a2a-python quirk of base64 text in
//! `file_with_bytes` (see [`crate::json::part`]). The price is one JSON value per message on the
//! 0.3 gRPC path.
//!
//! | 1.0 | `a2a_proto::v0_3` |
//! | --- | --- |
//! | `Part`, `Message`, `Artifact`, `Task`, `TaskStatus` | same names |
//! | `TaskStatusUpdateEvent`, `TaskArtifactUpdateEvent` | same names |
//! | `StreamResponse`, `SendMessageResponse`, `SendMessageRequest` | same names |
//! | `GetTaskRequest`, `CancelTaskRequest` | same names (`name: "tasks/{id}"`) |
//! | `SubscribeToTaskRequest` | `TaskSubscriptionRequest` |
//! | `TaskPushNotificationConfig` | `TaskPushNotificationConfig`; as a request [`create_request_from_proto`] |
//! | `Get`/`DeleteTaskPushNotificationConfigRequest` | same names (`name: "tasks/{id}/pushNotificationConfigs/{id}"`) |
//! | `ListTaskPushNotificationConfigsRequest` / `Response` | `ListTaskPushNotificationConfigRequest` / `Response` |
//! | `AgentCard` | `AgentCard` |
//! | `GetExtendedAgentCardRequest` | `GetAgentCardRequest` |

use a2a_core::{Error, Operation, Request, Response, Result};
use a2a_proto::{v0_3, v1};
use prost::Message as _;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::convert::{Form, V03};
use crate::json::push::write_task_config;

/// A 1.0 type with a message of the 0.3 protobuf package as its counterpart.
pub trait ProtoV03: V03 {
    /// The 0.3 protobuf message.
    type Proto: prost::Message + prost::Name + Serialize + DeserializeOwned + Default;

    /// Reads the 0.3 message (invalid content is [`Error::InvalidParams`] naming the field).
    ///
    /// A message whose ProtoJSON cannot even be written (an enum number the 0.3 proto does not
    /// define, such as `role: 7`) is invalid params of the request as a whole: the caller sent it.
    fn from_v03_proto(message: &Self::Proto) -> Result<Self> {
        Self::from_v03(&proto_json(message)?)
    }

    /// Writes the 0.3 message.
    fn to_v03_proto(&self) -> Result<Self::Proto> {
        to_proto(self.to_v03(Form::ProtoJson))
    }
}

/// The ProtoJSON of a received 0.3 message; one that cannot be written is invalid params.
fn proto_json<P: prost::Name + Serialize>(message: &P) -> Result<serde_json::Value> {
    serde_json::to_value(message).map_err(|e| {
        Error::invalid_params_unattributed(format!("not a valid 0.3 {}: {e}", <P as prost::Name>::NAME))
    })
}

fn to_proto<P: DeserializeOwned>(value: serde_json::Value) -> Result<P> {
    serde_json::from_value(value)
        .map_err(|e| Error::internal(format!("0.3 ProtoJSON does not fit the 0.3 proto: {e}")))
}

macro_rules! bridge {
    ($($v1:ident => $v03:ident),* $(,)?) => {
        $(impl ProtoV03 for v1::$v1 {
            type Proto = v0_3::$v03;
        })*
    };
}

bridge! {
    Part => Part,
    Message => Message,
    Artifact => Artifact,
    Task => Task,
    TaskStatus => TaskStatus,
    TaskStatusUpdateEvent => TaskStatusUpdateEvent,
    TaskArtifactUpdateEvent => TaskArtifactUpdateEvent,
    StreamResponse => StreamResponse,
    SendMessageResponse => SendMessageResponse,
    GetTaskRequest => GetTaskRequest,
    CancelTaskRequest => CancelTaskRequest,
    SubscribeToTaskRequest => TaskSubscriptionRequest,
    TaskPushNotificationConfig => TaskPushNotificationConfig,
    GetTaskPushNotificationConfigRequest => GetTaskPushNotificationConfigRequest,
    DeleteTaskPushNotificationConfigRequest => DeleteTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsRequest => ListTaskPushNotificationConfigRequest,
    ListTaskPushNotificationConfigsResponse => ListTaskPushNotificationConfigResponse,
    AgentCard => AgentCard,
    GetExtendedAgentCardRequest => GetAgentCardRequest,
}

impl ProtoV03 for v1::SendMessageRequest {
    type Proto = v0_3::SendMessageRequest;

    /// A `configuration` without `blocking` is non-blocking: proto3 never sends `blocking: false`
    /// ([`crate::json::request`]).
    fn from_v03_proto(message: &Self::Proto) -> Result<Self> {
        crate::json::request::send_message_from_proto(&proto_json(message)?)
    }
}

/// A 0.3 `CreateTaskPushNotificationConfig` request as the 1.0 config to create.
pub fn create_request_from_proto(
    request: &v0_3::CreateTaskPushNotificationConfigRequest,
) -> Result<v1::TaskPushNotificationConfig> {
    let value = serde_json::to_value(request).map_err(Error::internal)?;
    v1::TaskPushNotificationConfig::from_v03(&value)
}

/// The 0.3 `CreateTaskPushNotificationConfig` request for a 1.0 config (client side):
/// `parent: "tasks/{taskId}"`, `configId`, and the config.
pub fn create_request_to_proto(
    config: &v1::TaskPushNotificationConfig,
) -> Result<v0_3::CreateTaskPushNotificationConfigRequest> {
    let value = serde_json::json!({
        "parent": format!("tasks/{}", config.task_id),
        "configId": config.id,
        "config": write_task_config(config, Form::ProtoJson),
    });
    to_proto(value)
}

/// A 0.3 request message of one RPC as the 1.0 request it is (server side). The send requests,
/// one message for two RPCs, are read with [`ProtoV03::from_v03_proto`] instead.
pub trait ProtoRequest {
    /// The 1.0 request (invalid content is [`Error::InvalidParams`] naming the field).
    fn to_request(&self) -> Result<Request>;
}

macro_rules! proto_requests {
    ($($v03:ident => $variant:ident),* $(,)?) => {$(
        impl ProtoRequest for v0_3::$v03 {
            fn to_request(&self) -> Result<Request> {
                ProtoV03::from_v03_proto(self).map(Request::$variant)
            }
        }
    )*};
}

proto_requests! {
    GetTaskRequest => GetTask,
    CancelTaskRequest => CancelTask,
    TaskSubscriptionRequest => SubscribeToTask,
    GetTaskPushNotificationConfigRequest => GetTaskPushNotificationConfig,
    ListTaskPushNotificationConfigRequest => ListTaskPushNotificationConfigs,
    DeleteTaskPushNotificationConfigRequest => DeleteTaskPushNotificationConfig,
    GetAgentCardRequest => GetExtendedAgentCard,
}

impl ProtoRequest for v0_3::CreateTaskPushNotificationConfigRequest {
    fn to_request(&self) -> Result<Request> {
        create_request_from_proto(self).map(Request::CreateTaskPushNotificationConfig)
    }
}

/// The 0.3 message of a 1.0 request, encoded (client side): the request message of its RPC
/// ([`Method::rpc`](crate::Method::rpc)). `ListTasks`, which 0.3 lacks, is
/// [`unsupported`](crate::client::unsupported).
pub fn encode_request(request: &Request) -> Result<Vec<u8>> {
    Ok(match request {
        Request::SendMessage(r) | Request::SendStreamingMessage(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::GetTask(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::CancelTask(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::SubscribeToTask(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::CreateTaskPushNotificationConfig(config) => create_request_to_proto(config)?.encode_to_vec(),
        Request::GetTaskPushNotificationConfig(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::ListTaskPushNotificationConfigs(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::DeleteTaskPushNotificationConfig(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::GetExtendedAgentCard(r) => r.to_v03_proto()?.encode_to_vec(),
        Request::ListTasks(_) => return Err(crate::client::unsupported(request.operation())),
    })
}

/// The 1.0 response of the encoded 0.3 reply of the unary `operation` (client side); a reply
/// that does not decode or translate is [`Error::InvalidAgentResponse`].
pub fn decode_reply(operation: Operation, bytes: &[u8]) -> Result<Response> {
    fn read<T: ProtoV03>(bytes: &[u8]) -> Result<T> {
        let proto = T::Proto::decode(bytes).map_err(|e| Error::InvalidAgentResponse {
            reason: format!("the reply is not a valid 0.3 {}: {e}", <T::Proto as prost::Name>::NAME),
        })?;
        T::from_v03_proto(&proto).map_err(crate::error::invalid_agent_response)
    }
    Ok(match operation {
        Operation::SendMessage => Response::SendMessage(read::<v1::SendMessageResponse>(bytes)?),
        Operation::GetTask | Operation::CancelTask => Response::Task(read::<v1::Task>(bytes)?),
        Operation::CreateTaskPushNotificationConfig | Operation::GetTaskPushNotificationConfig => {
            Response::PushConfig(read::<v1::TaskPushNotificationConfig>(bytes)?)
        }
        Operation::ListTaskPushNotificationConfigs => {
            Response::PushConfigs(read::<v1::ListTaskPushNotificationConfigsResponse>(bytes)?)
        }
        Operation::DeleteTaskPushNotificationConfig => Response::Deleted,
        Operation::GetExtendedAgentCard => Response::AgentCard(read::<v1::AgentCard>(bytes)?),
        Operation::ListTasks => return Err(crate::client::unsupported(operation)),
        Operation::SendStreamingMessage | Operation::SubscribeToTask => {
            return Err(Error::internal(format!("{operation} answers with a stream, not a reply")))
        }
    })
}

/// One encoded 0.3 `StreamResponse` of a server stream as its ProtoJSON, what
/// [`read_events`](crate::client::read_events) reads (client side).
pub fn event_value(bytes: &[u8]) -> Result<serde_json::Value> {
    let event = v0_3::StreamResponse::decode(bytes).map_err(|e| Error::InvalidAgentResponse {
        reason: format!("a 0.3 StreamResponse does not decode: {e}"),
    })?;
    serde_json::to_value(&event).map_err(|e| Error::InvalidAgentResponse {
        reason: format!("a 0.3 StreamResponse cannot be read: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::push::config_name;
    use a2a_proto::v1::{Message, Part, TaskState, TaskStatus};

    #[test]
    fn typed_messages_round_trip_through_the_0_3_proto() {
        let task = v1::Task {
            id: "t".into(),
            context_id: "c".into(),
            status: Some(TaskStatus {
                state: TaskState::Canceled as i32,
                message: Some(Message::agent_text("bye").with_task_id("t")),
                timestamp: Some(a2a_proto::Timestamp { seconds: 1_700_000_000, nanos: 0 }),
            }),
            artifacts: vec![v1::Artifact::new(vec![Part::raw(vec![0, 255], "application/octet-stream")])],
            history: vec![Message::user_text("hi")],
            metadata: None,
        };
        let proto = task.to_v03_proto().unwrap();
        assert_eq!(proto.status.as_ref().unwrap().state, v0_3::TaskState::Cancelled as i32);
        assert_eq!(v1::Task::from_v03_proto(&proto).unwrap(), task);
    }

    #[test]
    fn python_base64_text_in_proto_bytes_is_read_as_the_file() {
        let python = v0_3::Part {
            part: Some(v0_3::part::Part::File(v0_3::FilePart {
                file: Some(v0_3::file_part::File::FileWithBytes(b"aGk=".to_vec())),
                mime_type: "text/plain".into(),
            })),
        };
        let part = v1::Part::from_v03_proto(&python).unwrap();
        assert_eq!(part, Part::raw(b"hi".to_vec(), "text/plain"));
        let ours = part.to_v03_proto().unwrap();
        let Some(v0_3::part::Part::File(file)) = ours.part else { panic!() };
        assert_eq!(
            file.file,
            Some(v0_3::file_part::File::FileWithBytes(b"hi".to_vec())),
            "we send the bytes"
        );
    }

    #[test]
    fn an_undefined_enum_number_is_invalid_params_not_internal() {
        let message = v0_3::Message { message_id: "m".into(), role: 7, ..Default::default() };
        let error = v1::Message::from_v03_proto(&message).unwrap_err();
        assert!(matches!(error, Error::InvalidParams { .. }), "{error:?}");
        assert!(error.field_violations()[0].description.contains("Message"), "{error:?}");
    }

    #[test]
    fn a_proto_configuration_with_blocking_false_does_not_block() {
        for return_immediately in [false, true] {
            let request = v1::SendMessageRequest {
                message: Some(Message::user_text("hi")),
                configuration: Some(v1::SendMessageConfiguration {
                    return_immediately,
                    ..Default::default()
                }),
                ..Default::default()
            };
            let proto = request.to_v03_proto().unwrap();
            assert_eq!(proto.configuration.as_ref().unwrap().blocking, !return_immediately);
            assert_eq!(v1::SendMessageRequest::from_v03_proto(&proto).unwrap(), request);
        }
        let bare = v0_3::SendMessageRequest { configuration: Some(Default::default()), ..Default::default() };
        let read = v1::SendMessageRequest::from_v03_proto(&bare).unwrap();
        assert!(read.configuration.unwrap().return_immediately, "proto3: an unset bool is false");
        let none = v1::SendMessageRequest::from_v03_proto(&v0_3::SendMessageRequest::default()).unwrap();
        assert_eq!(none.configuration, None, "no configuration: core's default, blocking");
    }

    #[test]
    fn create_requests_carry_parent_config_id_and_config() {
        let config = v1::TaskPushNotificationConfig {
            id: "c".into(),
            task_id: "t".into(),
            url: "https://h/x".into(),
            ..Default::default()
        };
        let proto = create_request_to_proto(&config).unwrap();
        assert_eq!((proto.parent.as_str(), proto.config_id.as_str()), ("tasks/t", "c"));
        assert_eq!(proto.config.as_ref().unwrap().name, config_name("t", "c"));
        assert_eq!(create_request_from_proto(&proto).unwrap(), config);
    }
}
