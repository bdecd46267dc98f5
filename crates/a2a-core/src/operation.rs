//! [`Operation`]: the 11 operations of spec 3.1, with their method names (spec 5.3).
//!
//! Bindings loop over [`Operation::ALL`] instead of spelling method strings again.

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
}

impl std::fmt::Display for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.method())
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
}
