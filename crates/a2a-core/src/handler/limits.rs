//! [`ContentLimits`]: how much a request may carry and a reply may return, checked by the
//! handler so that every binding (JSON-RPC, HTTP+JSON, gRPC, and their 0.3 surface) enforces
//! them once, with the same answer: invalid parameters (`-32602`, HTTP 400, `INVALID_ARGUMENT`)
//! naming the field and the limit. Transport limits (body size, headers, streams, rates) are the
//! server's (`a2a_server::Limits`).

use a2a_proto::json::MAX_DEPTH;
use a2a_proto::pbjson_types::{value::Kind, Struct, Value};
use a2a_proto::v1::{part, Message, SendMessageRequest};

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
    /// Messages of history one read returns (GetTask, ListTasks, a send's reply, the task that
    /// starts a SubscribeToTask stream): the most recent this many, whether a larger
    /// `historyLength` or none was asked for (spec 3.2.4: "at most this many recent
    /// messages"). Default 1000.
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
        self.metadata(request.metadata.as_ref(), || "metadata".into(), 1, violations);
        if let Some(message) = &request.message {
            self.message(message, "message", violations);
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
        // Levels above each, counted as in the request's JSON: request, message (, parts, part).
        self.metadata(message.metadata.as_ref(), || format!("{field}.metadata"), 2, violations);
        for (i, part) in message.parts.iter().enumerate().take(self.max_parts_per_message) {
            self.metadata(part.metadata.as_ref(), || format!("{field}.parts[{i}].metadata"), 4, violations);
            if let Some(part::Content::Data(data)) = &part.content {
                nesting(value_depth(data), 4, &format!("{field}.parts[{i}].data"), violations);
            }
        }
    }

    /// A metadata object `above` levels deep in the request: its size, and its nesting. The
    /// field's name is made only for metadata that is there (most requests carry none).
    fn metadata(
        &self,
        metadata: Option<&Struct>,
        field: impl FnOnce() -> String,
        above: usize,
        violations: &mut Violations,
    ) {
        let Some(metadata) = metadata.filter(|m| !m.fields.is_empty()) else { return };
        let field = field();
        let field = field.as_str();
        nesting(struct_depth(metadata), above, field, violations);
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

    /// The history a read returns for `asked` (validated to be non-negative): what was asked, at
    /// most the limit (spec 3.2.4: a `historyLength` is an upper bound, so one above the limit
    /// returns the most recent messages up to it).
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

/// Structured data (metadata, a data part) `depth` levels deep, `above` levels down in the
/// request, against the nesting the JSON bindings accept ([`MAX_DEPTH`], counted over the whole
/// request): gRPC requests get the same limit, so that what any binding takes in, every binding
/// and store can carry (the stored task is nested deeper still).
fn nesting(depth: usize, above: usize, field: &str, violations: &mut Violations) {
    if above + depth > MAX_DEPTH {
        violations.add(
            field,
            format!(
                "is nested {depth} levels deep; at this place a request may nest at most {} \
                 (a2a_proto::json::MAX_DEPTH, {MAX_DEPTH} levels in all)",
                MAX_DEPTH.saturating_sub(above)
            ),
        );
    }
}

/// The JSON nesting of a `Struct` (an object: 1 plus its deepest member).
fn struct_depth(object: &Struct) -> usize {
    1 + object.fields.values().map(value_depth).max().unwrap_or(0)
}

/// The JSON nesting of a `Value`: 0 for a scalar. Bounded by what the decoders accept (32 JSON
/// levels, 100 protobuf messages), so the recursion is too.
fn value_depth(value: &Value) -> usize {
    match &value.kind {
        Some(Kind::StructValue(object)) => struct_depth(object),
        Some(Kind::ListValue(list)) => 1 + list.values.iter().map(value_depth).max().unwrap_or(0),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> Struct {
        let mut value = Value { kind: Some(Kind::StringValue("leaf".into())) };
        for _ in 1..levels {
            value = Value { kind: Some(Kind::StructValue(Struct { fields: [("a".into(), value)].into() })) };
        }
        Struct { fields: [("a".into(), value)].into() }
    }

    #[test]
    fn nesting_is_counted_as_in_the_requests_json() {
        assert_eq!(struct_depth(&nested(1)), 1, "{{\"a\":\"leaf\"}}");
        assert_eq!(struct_depth(&nested(5)), 5);
        let list =
            Value { kind: Some(Kind::ListValue(a2a_proto::pbjson_types::ListValue { values: vec![] })) };
        assert_eq!(value_depth(&list), 1);
        let limits = ContentLimits::default();
        let send = |levels: usize| SendMessageRequest {
            message: Some(Message { metadata: Some(nested(levels)), ..Message::user_text("hi") }),
            ..Default::default()
        };
        // request, message, then the metadata object: 2 levels above it.
        let mut violations = Violations::default();
        limits.check_send(&send(MAX_DEPTH - 2), &mut violations);
        assert!(violations.finish().is_ok());
        let mut violations = Violations::default();
        limits.check_send(&send(MAX_DEPTH - 1), &mut violations);
        let error = violations.finish().unwrap_err();
        assert_eq!(error.field_violations()[0].field, "message.metadata", "{error}");
    }

    #[test]
    fn history_is_what_was_asked_at_most_the_limit_and_the_limit_without_a_length() {
        let limits = ContentLimits { max_history_length: 10, ..ContentLimits::default() };
        assert_eq!(limits.history_to_return(None), 10);
        assert_eq!(limits.history_to_return(Some(3)), 3);
        assert_eq!(limits.history_to_return(Some(0)), 0);
        assert_eq!(limits.history_to_return(Some(11)), 10, "more than the limit is the limit");
        assert_eq!(limits.history_to_return(Some(i32::MAX)), 10);
    }
}
