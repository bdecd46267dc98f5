//! What the interop programs and `cargo xtask interop` agree on (see `docs/interop.md`):
//!
//! - the operations of the matrix, in the order the programs run them ([`OPERATIONS`] for the
//!   1.0 line, [`OPERATIONS_V03`] for the 0.3 line). Our driver (`a2a-interop-driver`) runs
//!   exactly these; the runner renders the matrix rows from them. The official SDKs' programs
//!   (`tests/interop/python`, `js`, `js-v03`) report the same names, and the runner refuses any
//!   other;
//! - the [`Record`]s every program prints on stdout, one JSON object per line, tagged by its
//!   `record` member, which the runner reads (a line that is not a record is reported, never
//!   skipped).
//!
//! This crate depends on serde alone so that xtask, which must build before the workspace's own
//! crates can (it regenerates `a2a-proto`), can use it; the driver and xtask share the type, the
//! Python and JS programs write the same JSON (their `report` helpers and webhook receivers).

use serde::{Deserialize, Serialize};

/// One operation of the matrix: a row of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    /// The name the programs report (`op` of [`Record::Interop`]).
    pub name: &'static str,
    /// What its check asserts, in short (the row heading in `docs/interop.md`).
    pub checks: &'static str,
}

const fn op(name: &'static str, checks: &'static str) -> Operation {
    Operation { name, checks }
}

/// Every operation of the 1.0 matrix, in the order the programs run them (and the matrix shows
/// them).
pub const OPERATIONS: [Operation; 22] = [
    op("card", "agent card resolution (well-known URI, skills, capabilities, interface)"),
    op("extended-card", "GetExtendedAgentCard"),
    op("send-task", "SendMessage → Task COMPLETED with the echo artifact, history"),
    op("send-message", "SendMessage → direct Message reply"),
    op("send-return-immediately", "SendMessage with returnImmediately → non-terminal Task"),
    op("multi-turn", "INPUT_REQUIRED, then a follow-up on the task completes it"),
    op("send-fail", "SendMessage → Task FAILED"),
    op("send-reject", "SendMessage → Task REJECTED"),
    op("stream", "SendStreamingMessage: Task first, chunks (append/lastChunk), COMPLETED last"),
    op("stream-message", "SendStreamingMessage → exactly one Message, then the end"),
    op("get-history", "GetTask with historyLength unset / 1 / 0"),
    op(
        "list",
        "ListTasks: contextId and status filters, pageSize/pageToken, totalSize, order, includeArtifacts",
    ),
    op("cancel", "CancelTask → CANCELED, GetTask agrees"),
    op("subscribe", "SubscribeToTask: Task first, CANCELED update, end"),
    op("push-config", "Create/Get/List/Delete TaskPushNotificationConfig"),
    op("error-task-not-found", "GetTask of an unknown id → TaskNotFoundError"),
    op("error-not-cancelable", "CancelTask of a COMPLETED task → TaskNotCancelableError"),
    op("error-terminal-send", "SendMessage to a COMPLETED task → UnsupportedOperationError"),
    op("error-subscribe-terminal", "SubscribeToTask of a COMPLETED task → UnsupportedOperationError"),
    op(
        "error-invalid-params",
        "ListTasks with pageSize 150 → invalid params (JSON-RPC -32602, HTTP 400, INVALID_ARGUMENT)",
    ),
    op("push-send", "SendMessage with an inline push config (Bearer auth + token)"),
    op("push-delivery", "the webhook, parsing with the other stack's types, got the task's notifications"),
];

/// Every operation of the 0.3 matrix, in the order the programs run them: those of the 0.3 SDK
/// clients plus `push-delivery`. 1.0 operations without a 0.3 counterpart (ListTasks; the
/// terminal-task errors and the invalid-params example, which 0.3 does not define) are not in it.
pub const OPERATIONS_V03: [Operation; 20] = [
    op("card", "card resolution: the 0.3 reader reads the well-known card, the factory picks the binding's interface"),
    op("extended-card", "agent/getAuthenticatedExtendedCard (REST `GET /v1/card`, gRPC `GetAgentCard`)"),
    op("send-task", "message/send (blocking) → Task `completed` with the echo artifact, history"),
    op("send-message", "message/send → direct Message reply"),
    op("send-non-blocking", "message/send with `blocking: false` → Task `submitted`/`working`"),
    op("multi-turn", "`input-required`, then a follow-up on the task completes it"),
    op("send-fail", "message/send → Task `failed`"),
    op("send-reject", "message/send → Task `rejected`"),
    op("stream", "message/stream `stream 3`: Task first, chunks (append/lastChunk), `completed` with `final` last"),
    op("stream-message", "message/stream → exactly one Message, then the end"),
    op("get-history", "tasks/get with historyLength unset / 1"),
    op("cancel", "tasks/cancel → `canceled`, tasks/get agrees"),
    op("resubscribe", "tasks/resubscribe of a `wait` task: `canceled` (final) update after tasks/cancel, end"),
    op("push-config", "tasks/pushNotificationConfig/set (client-chosen id) and get"),
    op("push-config-list-delete", "tasks/pushNotificationConfig/set, list, delete, list"),
    op("error-task-not-found", "tasks/get of an unknown id → TaskNotFoundError (-32001)"),
    op("error-not-cancelable", "tasks/cancel of a `completed` task → TaskNotCancelableError (-32002)"),
    op(
        "file",
        "message/send `file` with a file part: the agent read the same bytes (length, SHA-256); the SDK agents' echo reads back",
    ),
    op("push-send", "message/send with an inline `pushNotificationConfig` (token + Bearer authentication)"),
    op("push-delivery", "the webhook got 0.3 push bodies (the Task, `kind: \"task\"`, lower-kebab states)"),
];

/// One line a program prints on stdout for the runner: a JSON object whose `record` member names
/// the variant (`interop`, `push-task`, `push`, `push-error`), the other members its fields.
/// Unknown members are refused, so a typo on either side shows.
///
/// ```
/// use a2a_interop_records::{Outcome, Record};
///
/// let line = r#"{"record":"interop","binding":"GRPC","op":"card","outcome":"pass","detail":""}"#;
/// let record = Record::parse(line).unwrap();
/// assert_eq!(record, Record::interop(Some("GRPC"), "card", Outcome::Pass, ""));
/// assert_eq!(record.to_line(), line);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Record {
    /// One matrix cell: what a check of a client program (an SDK's client, our driver, a card
    /// verifier) found.
    Interop {
        /// The binding as spelled in `AgentInterface.protocolBinding` (`JSONRPC`, `HTTP+JSON`,
        /// `GRPC`); `null` for a cell of no binding (the signed-card cells).
        binding: Option<String>,
        /// The operation ([`OPERATIONS`], [`OPERATIONS_V03`]) or signed-card cell.
        op: String,
        /// Whether the check passed.
        outcome: Outcome,
        /// Why it failed, on one line; empty when it passed.
        #[serde(default)]
        detail: String,
    },
    /// An SDK client's `push-send` created this task, whose notifications its webhook receiver
    /// should then report (the runner matches the two).
    PushTask {
        /// The binding the client used.
        binding: String,
        /// The task's id.
        task_id: String,
    },
    /// A push notification a webhook receiver parsed with its SDK's types.
    Push(Notification),
    /// A push body a webhook receiver could not parse (it answered 400).
    PushError {
        /// The webhook path's label (`/webhook/{label}`); `null` for another path.
        label: Option<String>,
        /// What the parser said.
        error: String,
    },
}

/// Whether a check passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// It passed.
    Pass,
    /// It failed; the detail says why.
    Fail,
}

/// A push notification as a webhook receiver parsed it ([`Record::Push`]).
///
/// A 1.0 body is a `StreamResponse` (spec 4.3.3): `kind` names its payload (`task`,
/// `statusUpdate`, `artifactUpdate`, `message`), `state` is a task's or status update's
/// (`TASK_STATE_...`), `text` an artifact update's chunk or a message's text, with the chunk's
/// `append` and `last_chunk` flags. A 0.3 body is the Task (0.3 spec 9.5): `kind` is `task`,
/// `state` as the body spells it (`completed`), `text` the text of all its artifacts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Notification {
    /// The webhook path's label (`/webhook/{label}`): the binding label of the check that
    /// registered it (`jsonrpc`, `rest`, `grpc`).
    pub label: String,
    /// The task the notification is about.
    pub task_id: String,
    /// The payload's kind.
    pub kind: String,
    /// The task state, for a task or status update.
    #[serde(default)]
    pub state: Option<String>,
    /// The text, for an artifact update, a message or a 0.3 task.
    #[serde(default)]
    pub text: Option<String>,
    /// An artifact update's `append`.
    #[serde(default)]
    pub append: bool,
    /// An artifact update's `lastChunk`.
    #[serde(default)]
    pub last_chunk: bool,
    /// The `Authorization` header, if sent.
    #[serde(default)]
    pub authorization: Option<String>,
    /// The `X-A2A-Notification-Token` header, if sent.
    #[serde(default)]
    pub token: Option<String>,
}

impl Record {
    /// A matrix cell.
    pub fn interop(binding: Option<&str>, op: &str, outcome: Outcome, detail: &str) -> Self {
        Record::Interop {
            binding: binding.map(str::to_owned),
            op: op.to_owned(),
            outcome,
            detail: detail.to_owned(),
        }
    }

    /// Reads one line as a record.
    pub fn parse(line: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(line)
    }

    /// The record as one line of JSON (no newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a record always serializes")
    }
}

/// The operation of `list` named `name`.
pub fn find(list: &'static [Operation], name: &str) -> Option<&'static Operation> {
    list.iter().find(|o| o.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines as the Python and JS programs print them (json.dumps / JSON.stringify).
    #[test]
    fn the_programs_lines_parse_into_named_fields() {
        let cell = r#"{"record": "interop", "binding": "HTTP+JSON", "op": "stream", "outcome": "fail", "detail": "AssertionError: chunk 2"}"#;
        assert_eq!(
            Record::parse(cell).unwrap(),
            Record::interop(Some("HTTP+JSON"), "stream", Outcome::Fail, "AssertionError: chunk 2")
        );
        let signed =
            r#"{"record":"interop","binding":null,"op":"our-signature","outcome":"pass","detail":""}"#;
        assert_eq!(Record::parse(signed).unwrap(), Record::interop(None, "our-signature", Outcome::Pass, ""));
        let task = r#"{"record": "push-task", "binding": "GRPC", "task_id": "t-1"}"#;
        assert_eq!(
            Record::parse(task).unwrap(),
            Record::PushTask { binding: "GRPC".into(), task_id: "t-1".into() }
        );
        let push = r#"{"record":"push","label":"rest","task_id":"t-1","kind":"artifactUpdate","state":null,"text":"chunk 1\n","append":true,"last_chunk":false,"authorization":"Bearer x","token":null}"#;
        let Record::Push(notification) = Record::parse(push).unwrap() else { panic!("not a push") };
        assert_eq!(notification.text.as_deref(), Some("chunk 1\n"));
        assert!(notification.append && !notification.last_chunk);
        assert_eq!((notification.authorization.as_deref(), notification.token), (Some("Bearer x"), None));
        let v03 = r#"{"record":"push","label":"rest","task_id":"t-1","kind":"task","state":"completed","text":"","authorization":null,"token":"tok"}"#;
        assert!(
            matches!(Record::parse(v03).unwrap(), Record::Push(n) if n.state.as_deref() == Some("completed"))
        );
        let error = r#"{"record":"push-error","label":null,"error":"ValueError: unexpected path /x"}"#;
        assert_eq!(
            Record::parse(error).unwrap(),
            Record::PushError { label: None, error: "ValueError: unexpected path /x".into() }
        );
    }

    #[test]
    fn anything_else_is_refused() {
        for line in [
            "INTEROP\tGRPC\tcard\tpass\t",
            "",
            "{}",
            r#"{"record":"interop","binding":"GRPC","op":"card","outcome":"passed"}"#,
            r#"{"record":"interop","binding":"GRPC","op":"card","outcome":"pass","extra":1}"#,
            r#"{"record":"push-task","binding":"GRPC"}"#,
            r#"{"record":"push","label":"rest","task_id":"t","kind":"task","colour":"red"}"#,
            r#"{"record":"dance"}"#,
            r#"{"record":"interop","binding":"GRPC","op":"card","outcome":"pass"} trailing"#,
        ] {
            assert!(Record::parse(line).is_err(), "{line:?} parsed");
        }
    }

    #[test]
    fn records_round_trip_through_a_line() {
        let records = [
            Record::interop(Some("JSONRPC"), "card", Outcome::Pass, ""),
            Record::interop(None, "our-signature", Outcome::Fail, "a\ttab and\nnewline"),
            Record::PushTask { binding: "GRPC".into(), task_id: "t".into() },
            Record::Push(Notification {
                label: "grpc".into(),
                task_id: "t".into(),
                kind: "statusUpdate".into(),
                state: Some("TASK_STATE_WORKING".into()),
                text: None,
                append: false,
                last_chunk: false,
                authorization: Some("Bearer interop-secret".into()),
                token: Some("interop-token".into()),
            }),
            Record::PushError { label: Some("rest".into()), error: "nope".into() },
        ];
        for record in records {
            let line = record.to_line();
            assert!(!line.contains('\n'), "{line}");
            assert_eq!(Record::parse(&line).unwrap(), record);
        }
    }

    #[test]
    fn operation_names_are_unique_and_push_delivery_comes_last() {
        for list in [&OPERATIONS[..], &OPERATIONS_V03[..]] {
            let mut names: Vec<_> = list.iter().map(|o| o.name).collect();
            assert_eq!(names.last(), Some(&"push-delivery"), "it inspects what push-send registered");
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), list.len());
        }
        assert!(find(&OPERATIONS, "list").is_some() && find(&OPERATIONS_V03, "list").is_none());
    }
}
