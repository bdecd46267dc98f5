//! [`ContentLimits`]: how much a request may carry and a reply may return, checked by the
//! handler so that every binding (JSON-RPC, HTTP+JSON, gRPC, and their 0.3 surface) enforces
//! them once, with the same answer: invalid parameters (`-32602`, HTTP 400, `INVALID_ARGUMENT`)
//! naming the field and the limit. Transport limits (body size, headers, streams, rates) are the
//! server's (`a2a_server::Limits`).

use a2a_proto::v1::{Message, SendMessageRequest};

use super::validate::Violations;

/// Limits on what a request carries and what a read returns (see the module docs). The
/// defaults are generous for people and agents, and stop a single request from costing the
/// server much more than its size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentLimits {
    /// Parts in one message (`message.parts`). Default 256.
    pub max_parts_per_message: usize,
    /// Size of each metadata object as JSON, in bytes: the request's `metadata`, the message's
    /// and each part's. Default 64 KiB.
    pub max_metadata_bytes: usize,
    /// Push notification configs one task may have (CreateTaskPushNotificationConfig, or a
    /// send's `configuration.taskPushNotificationConfig`); replacing an existing one is always
    /// allowed. Default 16.
    pub max_push_configs_per_task: usize,
    /// Messages of history one read returns (GetTask, ListTasks, a send's reply): a larger
    /// `historyLength` is refused; without one, the most recent this many are returned.
    /// Default 1000.
    pub max_history_length: usize,
}

impl Default for ContentLimits {
    fn default() -> Self {
        ContentLimits {
            max_parts_per_message: 256,
            max_metadata_bytes: 64 * 1024,
            max_push_configs_per_task: 16,
            max_history_length: 1000,
        }
    }
}

impl ContentLimits {
    /// The send's message and metadata against the limits.
    pub(crate) fn check_send(&self, request: &SendMessageRequest, violations: &mut Violations) {
        self.metadata(request.metadata.as_ref(), "metadata", violations);
        if let Some(message) = &request.message {
            self.message(message, "message", violations);
        }
        if let Some(config) = &request.configuration {
            self.history_length(config.history_length, "configuration.historyLength", violations);
        }
    }

    fn message(&self, message: &Message, field: &str, violations: &mut Violations) {
        if message.parts.len() > self.max_parts_per_message {
            violations.add(
                format!("{field}.parts"),
                format!(
                    "has {} parts; this server accepts at most {} per message (max_parts_per_message)",
                    message.parts.len(),
                    self.max_parts_per_message
                ),
            );
        }
        self.metadata(message.metadata.as_ref(), &format!("{field}.metadata"), violations);
        for (i, part) in message.parts.iter().enumerate().take(self.max_parts_per_message) {
            self.metadata(part.metadata.as_ref(), &format!("{field}.parts[{i}].metadata"), violations);
        }
    }

    fn metadata(&self, metadata: Option<&pbjson_types::Struct>, field: &str, violations: &mut Violations) {
        let Some(metadata) = metadata.filter(|m| !m.fields.is_empty()) else { return };
        // The ProtoJSON text is what a client sent (or would send) and what is stored.
        let size = serde_json::to_vec(metadata).map_or(usize::MAX, |json| json.len());
        if size > self.max_metadata_bytes {
            violations.add(
                field,
                format!(
                    "is {size} bytes as JSON; this server accepts at most {} (max_metadata_bytes)",
                    self.max_metadata_bytes
                ),
            );
        }
    }

    /// A `historyLength` a client asked for (already checked to be non-negative).
    pub(crate) fn history_length(&self, asked: Option<i32>, field: &str, violations: &mut Violations) {
        if let Some(asked) = asked.filter(|n| *n >= 0 && *n as usize > self.max_history_length) {
            violations.add(
                field,
                format!(
                    "asks for {asked} messages; this server returns at most {} (max_history_length)",
                    self.max_history_length
                ),
            );
        }
    }

    /// The history a read returns for `asked` (validated): what was asked, else the limit.
    pub(crate) fn history_to_return(&self, asked: Option<i32>) -> usize {
        asked.map_or(self.max_history_length, |n| (n.max(0) as usize).min(self.max_history_length))
    }

    /// Whether a task that has `existing` configs may get a new one.
    pub(crate) fn check_push_configs(&self, existing: usize, field: &str, violations: &mut Violations) {
        if existing >= self.max_push_configs_per_task {
            violations.add(
                field,
                format!(
                    "the task already has {existing} push notification configs; this server allows \
                     at most {} per task (max_push_configs_per_task): delete one first",
                    self.max_push_configs_per_task
                ),
            );
        }
    }
}
