//! [`V03`]: how a 1.0 type is read from, and written as, its A2A 0.3 counterpart; and [`Form`],
//! the two JSON shapes 0.3 uses on the wire.

use a2a_core::Result;
use serde_json::Value;

/// The two JSON shapes of A2A 0.3.
///
/// They differ in discriminators (`kind` vs member names), enum spellings (`input-required` vs
/// `TASK_STATE_INPUT_REQUIRED`), a few member names (`parts` vs `content`, `bytes` vs
/// `fileWithBytes`) and which fields exist at all (the 0.3 proto has no part metadata, file names,
/// `referenceTaskIds` or `iconUrl`). Reading accepts both; writing produces exactly one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Form {
    /// The JSON of the 0.3 JSON Schema (`a2a.json`): JSON-RPC params and results, SSE events, push
    /// notification bodies, the agent card at `/.well-known/agent-card.json`.
    Json,
    /// ProtoJSON of the 0.3 protobuf package `a2a.v1` (`a2a.proto`): the HTTP+JSON (REST) bodies
    /// under `/v1/...`, as the reference SDKs (a2a-python, a2a-js, a2a-go) send and parse them;
    /// also the JSON form of the gRPC messages ([`crate::proto`]).
    ProtoJson,
}

/// A 1.0 type (`a2a_proto::v1::*`) that has an A2A 0.3 counterpart.
///
/// Implemented for the objects (`Message`, `Part`, `Task`, events, push configs, the agent card),
/// the requests of every 0.3 method and their results. Reading is liberal: it accepts both
/// [`Form`]s, the spellings the SDKs use (`cancelled`, `ROLE_USER`, `null` for absent members),
/// and reports anything it cannot translate as [`a2a_core::Error::InvalidParams`] naming the field
/// in 0.3 terms (`message.parts[1].file.bytes`). Writing is strict: the [`Form::Json`] output
/// validates against the 0.3 JSON Schema and the [`Form::ProtoJson`] output parses as the 0.3
/// protobuf message, unknown fields denied.
///
/// ```
/// use a2a_proto::v1::{Role, TaskState};
/// use a2a_v03::{Form, V03};
/// use serde_json::json;
///
/// let task = a2a_proto::v1::Task::from_v03(&json!({
///     "kind": "task", "id": "t1", "contextId": "c1",
///     "status": {"state": "cancelled"}
/// }))
/// .unwrap();
/// assert_eq!(task.state(), TaskState::Canceled);
/// assert_eq!(task.to_v03(Form::Json)["status"]["state"], "canceled");
/// assert_eq!(task.to_v03(Form::ProtoJson)["status"]["state"], "TASK_STATE_CANCELLED");
/// # let _ = Role::User;
/// ```
pub trait V03: Sized {
    /// Reads the 0.3 form of this object (either [`Form`]).
    fn from_v03(value: &Value) -> Result<Self>;

    /// Writes this object in the 0.3 `form`.
    fn to_v03(&self, form: Form) -> Value;
}
