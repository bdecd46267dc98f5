//! [`Method`]: the ten JSON-RPC methods of A2A 0.3 and the 1.0 [`Operation`] each one is.

use a2a_core::Operation;

/// A JSON-RPC method of A2A 0.3 (0.3 spec 7, method table 3.5.6).
///
/// Every 0.3 method is a 1.0 operation; 1.0's `ListTasks` has no 0.3 JSON-RPC method (and no
/// 0.3 proto RPC either), so [`Method::from_operation`] returns `None` for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// `message/send` (7.1).
    MessageSend,
    /// `message/stream` (7.2).
    MessageStream,
    /// `tasks/get` (7.3).
    TasksGet,
    /// `tasks/cancel` (7.4).
    TasksCancel,
    /// `tasks/pushNotificationConfig/set` (7.5).
    PushNotificationConfigSet,
    /// `tasks/pushNotificationConfig/get` (7.6).
    PushNotificationConfigGet,
    /// `tasks/pushNotificationConfig/list` (7.7).
    PushNotificationConfigList,
    /// `tasks/pushNotificationConfig/delete` (7.8).
    PushNotificationConfigDelete,
    /// `tasks/resubscribe` (7.9).
    TasksResubscribe,
    /// `agent/getAuthenticatedExtendedCard` (7.10).
    GetAuthenticatedExtendedCard,
}

impl Method {
    /// Every method, in the order of the 0.3 spec's section 7.
    pub const ALL: [Method; 10] = [
        Method::MessageSend,
        Method::MessageStream,
        Method::TasksGet,
        Method::TasksCancel,
        Method::PushNotificationConfigSet,
        Method::PushNotificationConfigGet,
        Method::PushNotificationConfigList,
        Method::PushNotificationConfigDelete,
        Method::TasksResubscribe,
        Method::GetAuthenticatedExtendedCard,
    ];

    /// The JSON-RPC method name (`"message/send"`).
    pub fn name(self) -> &'static str {
        match self {
            Method::MessageSend => "message/send",
            Method::MessageStream => "message/stream",
            Method::TasksGet => "tasks/get",
            Method::TasksCancel => "tasks/cancel",
            Method::PushNotificationConfigSet => "tasks/pushNotificationConfig/set",
            Method::PushNotificationConfigGet => "tasks/pushNotificationConfig/get",
            Method::PushNotificationConfigList => "tasks/pushNotificationConfig/list",
            Method::PushNotificationConfigDelete => "tasks/pushNotificationConfig/delete",
            Method::TasksResubscribe => "tasks/resubscribe",
            Method::GetAuthenticatedExtendedCard => "agent/getAuthenticatedExtendedCard",
        }
    }

    /// The RPC of 0.3's gRPC service `a2a.v1.A2AService` (the 0.3 proto) that is this method.
    pub fn rpc(self) -> &'static str {
        match self {
            Method::MessageSend => "SendMessage",
            Method::MessageStream => "SendStreamingMessage",
            Method::TasksGet => "GetTask",
            Method::TasksCancel => "CancelTask",
            Method::PushNotificationConfigSet => "CreateTaskPushNotificationConfig",
            Method::PushNotificationConfigGet => "GetTaskPushNotificationConfig",
            Method::PushNotificationConfigList => "ListTaskPushNotificationConfig",
            Method::PushNotificationConfigDelete => "DeleteTaskPushNotificationConfig",
            Method::TasksResubscribe => "TaskSubscription",
            Method::GetAuthenticatedExtendedCard => "GetAgentCard",
        }
    }

    /// The method with this name (case-sensitive, as JSON-RPC is). Slash names are 0.3, PascalCase
    /// names 1.0: a JSON-RPC binding can route by name alone (docs/interop-notes.md).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The 1.0 operation this method is.
    pub fn operation(self) -> Operation {
        match self {
            Method::MessageSend => Operation::SendMessage,
            Method::MessageStream => Operation::SendStreamingMessage,
            Method::TasksGet => Operation::GetTask,
            Method::TasksCancel => Operation::CancelTask,
            Method::PushNotificationConfigSet => Operation::CreateTaskPushNotificationConfig,
            Method::PushNotificationConfigGet => Operation::GetTaskPushNotificationConfig,
            Method::PushNotificationConfigList => Operation::ListTaskPushNotificationConfigs,
            Method::PushNotificationConfigDelete => Operation::DeleteTaskPushNotificationConfig,
            Method::TasksResubscribe => Operation::SubscribeToTask,
            Method::GetAuthenticatedExtendedCard => Operation::GetExtendedAgentCard,
        }
    }

    /// The 0.3 method of a 1.0 operation; `None` for `ListTasks`, which 0.3 lacks.
    pub fn from_operation(operation: Operation) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.operation() == operation)
    }

    /// Whether the method answers with a stream (SSE).
    pub fn is_streaming(self) -> bool {
        self.operation().is_streaming()
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_every_operation_but_list_tasks_has_a_method() {
        for method in Method::ALL {
            assert_eq!(Method::from_name(method.name()), Some(method));
            assert_eq!(Method::from_operation(method.operation()), Some(method));
        }
        let missing: Vec<_> =
            Operation::ALL.into_iter().filter(|op| Method::from_operation(*op).is_none()).collect();
        assert_eq!(missing, [Operation::ListTasks]);
        assert_eq!(Method::from_name("SendMessage"), None, "1.0 names are not 0.3 methods");
        assert_eq!(Method::from_name("Message/Send"), None);
    }

    #[test]
    fn every_method_is_an_rpc_of_the_0_3_proto() {
        let proto = include_str!("../../../proto/v0.3/a2a.proto");
        for method in Method::ALL {
            assert!(proto.contains(&format!("rpc {}(", method.rpc())), "{method}: {}", method.rpc());
        }
    }

    #[test]
    fn the_two_streaming_methods_stream() {
        let streaming: Vec<_> = Method::ALL.into_iter().filter(|m| m.is_streaming()).collect();
        assert_eq!(streaming, [Method::MessageStream, Method::TasksResubscribe]);
    }
}
