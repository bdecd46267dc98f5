//! Hand-written conveniences on the generated types: constructors, state predicates and
//! conversions. Behaviour only; no new types.

use crate::v1::{
    part, send_message_response, stream_response, Artifact, Message, Part, Role, SendMessageResponse,
    StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatusUpdateEvent,
};

/// A fresh identifier, as used for message, task, context, artifact and push config ids: a
/// UUID v7 (RFC 9562), whose first 48 bits are the creation time in milliseconds, the next 12 a
/// counter within that millisecond (RFC 9562 6.2, method 1) and the last 62 random.
///
/// Time-ordered on purpose: stores index tasks, their history and artifacts by task id, and ids
/// that grow with time keep each commit's inserts on a few B-tree pages at the end of each index
/// instead of scattering them over the whole file (on the SQLite store, 2.4 times the
/// SendMessage throughput of random v4 ids, `docs/benchmarks.md`). Ids made in one process
/// strictly increase, on any thread (the clock and counter are one atomic; a clock that steps
/// back, or more than 4096 ids in one millisecond, move the time forward from the last id
/// instead). An id says when it was made, which the task's status timestamp says anyway; it is
/// not a secret and never an access check (tasks are scoped to their caller, spec 13.1).
pub fn new_id() -> String {
    // Not `Uuid::now_v7`: its shared context (a mutex, 128-bit nanosecond arithmetic, a second
    // random draw per millisecond) cost about three times this, and ids are made several times
    // per request. The random bits are still drawn from rand's ThreadRng (a CSPRNG seeded from the
    // OS), the same source as uuid's `fast-rng`.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs() * 1000 + u64::from(since.subsec_millis()));
    let stamp = v7_stamp(now);
    let random: u64 = rand::random();
    let mut bytes = [0; 10];
    bytes[..2].copy_from_slice(&((stamp & 0xFFF) as u16).to_be_bytes());
    bytes[2..].copy_from_slice(&random.to_be_bytes());
    let uuid = uuid::Builder::from_unix_timestamp_millis(stamp >> 12, &bytes).into_uuid();
    // Encoded into a buffer and copied once, not through `Display` (`to_string`).
    let mut buffer = uuid::Uuid::encode_buffer();
    uuid.hyphenated().encode_lower(&mut buffer).to_owned()
}

/// The last id's time and counter, `millis << 12 | counter`.
static LAST_V7: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The time and counter (`millis << 12 | counter`) of an id made at `now_millis`: above every
/// one handed out before.
fn v7_stamp(now_millis: u64) -> u64 {
    use std::sync::atomic::Ordering::Relaxed;
    let mut last = LAST_V7.load(Relaxed);
    loop {
        let next = next_v7_stamp(last, now_millis);
        match LAST_V7.compare_exchange_weak(last, next, Relaxed, Relaxed) {
            Ok(_) => return next,
            Err(actual) => last = actual,
        }
    }
}

/// The stamp after `last` at `now_millis`: a new millisecond starts its counter at 0; within
/// the same one (or if the clock went back) the counter goes up, carrying into the time when
/// it passes 4095.
fn next_v7_stamp(last: u64, now_millis: u64) -> u64 {
    // 48 bits of milliseconds (the year 10889); the shift cannot overflow before then.
    std::cmp::max(last + 1, (now_millis & 0xFFFF_FFFF_FFFF) << 12)
}

impl Part {
    /// A text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part { content: Some(part::Content::Text(text.into())), ..Default::default() }
    }

    /// A structured data part holding any JSON value (spec 4.1.6), as a protobuf `Value`. From a
    /// `serde_json::Value`, use [`Part::json`].
    pub fn data(value: impl Into<pbjson_types::Value>) -> Self {
        Part { content: Some(part::Content::Data(value.into())), ..Default::default() }
    }

    /// A structured data part from a `serde_json::Value` (any JSON: object, array, scalar).
    pub fn json(value: &serde_json::Value) -> Self {
        Part::data(crate::json::to_pb_value(value))
    }

    /// A file given by reference.
    pub fn url(url: impl Into<String>, media_type: impl Into<String>) -> Self {
        Part {
            content: Some(part::Content::Url(url.into())),
            media_type: media_type.into(),
            ..Default::default()
        }
    }

    /// A file given inline (base64 in JSON).
    pub fn raw(bytes: impl Into<Vec<u8>>, media_type: impl Into<String>) -> Self {
        Part {
            content: Some(part::Content::Raw(bytes.into())),
            media_type: media_type.into(),
            ..Default::default()
        }
    }

    /// Sets the file name.
    pub fn with_filename(self, filename: impl Into<String>) -> Self {
        Self { filename: filename.into(), ..self }
    }

    /// Sets the media type.
    pub fn with_media_type(self, media_type: impl Into<String>) -> Self {
        Self { media_type: media_type.into(), ..self }
    }

    /// The text of a text part, if this is one.
    pub fn as_text(&self) -> Option<&str> {
        match &self.content {
            Some(part::Content::Text(text)) => Some(text),
            _ => None,
        }
    }
}

impl Message {
    /// A message from the client (`ROLE_USER`) with a fresh message id.
    pub fn user(parts: Vec<Part>) -> Self {
        Self::with_role(Role::User, parts)
    }

    /// A message from the agent (`ROLE_AGENT`) with a fresh message id.
    pub fn agent(parts: Vec<Part>) -> Self {
        Self::with_role(Role::Agent, parts)
    }

    /// A one-part text message from the client.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::user(vec![Part::text(text)])
    }

    /// A one-part text message from the agent.
    pub fn agent_text(text: impl Into<String>) -> Self {
        Self::agent(vec![Part::text(text)])
    }

    fn with_role(role: Role, parts: Vec<Part>) -> Self {
        Message { message_id: new_id(), role: role.into(), parts, ..Default::default() }
    }

    /// Associates the message with a context.
    pub fn with_context_id(self, context_id: impl Into<String>) -> Self {
        Self { context_id: context_id.into(), ..self }
    }

    /// Associates the message with a task.
    pub fn with_task_id(self, task_id: impl Into<String>) -> Self {
        Self { task_id: task_id.into(), ..self }
    }

    /// The concatenated text of all text parts.
    pub fn text(&self) -> String {
        self.parts.iter().filter_map(Part::as_text).collect()
    }
}

impl Artifact {
    /// An artifact with a fresh id and the given parts.
    pub fn new(parts: Vec<Part>) -> Self {
        Artifact { artifact_id: new_id(), parts, ..Default::default() }
    }

    /// Sets the human readable name.
    pub fn with_name(self, name: impl Into<String>) -> Self {
        Self { name: name.into(), ..self }
    }
}

impl TaskState {
    /// `COMPLETED`, `FAILED`, `CANCELED` or `REJECTED`: the task accepts no further messages
    /// and its streams end (spec 3.1.2, 4.1.3).
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Canceled | Self::Rejected)
    }

    /// `INPUT_REQUIRED` or `AUTH_REQUIRED`: the task waits for the client (spec 3.2.2).
    pub fn is_interrupted(self) -> bool {
        matches!(self, Self::InputRequired | Self::AuthRequired)
    }

    /// `SUBMITTED` or `WORKING`: an execution is producing the task's events (what a server
    /// resolves when it restarts, or when the replica running the task dies).
    pub fn is_running(self) -> bool {
        matches!(self, Self::Submitted | Self::Working)
    }
}

impl Task {
    /// The state of the task's current status (`UNSPECIFIED` if it has none).
    pub fn state(&self) -> TaskState {
        self.status.as_ref().map(|s| s.state()).unwrap_or_default()
    }
}

impl From<Task> for StreamResponse {
    fn from(task: Task) -> Self {
        StreamResponse { payload: Some(stream_response::Payload::Task(task)) }
    }
}

impl From<Message> for StreamResponse {
    fn from(message: Message) -> Self {
        StreamResponse { payload: Some(stream_response::Payload::Message(message)) }
    }
}

impl From<TaskStatusUpdateEvent> for StreamResponse {
    fn from(event: TaskStatusUpdateEvent) -> Self {
        StreamResponse { payload: Some(stream_response::Payload::StatusUpdate(event)) }
    }
}

impl From<TaskArtifactUpdateEvent> for StreamResponse {
    fn from(event: TaskArtifactUpdateEvent) -> Self {
        StreamResponse { payload: Some(stream_response::Payload::ArtifactUpdate(event)) }
    }
}

impl From<Task> for SendMessageResponse {
    fn from(task: Task) -> Self {
        SendMessageResponse { payload: Some(send_message_response::Payload::Task(task)) }
    }
}

impl From<Message> for SendMessageResponse {
    fn from(message: Message) -> Self {
        SendMessageResponse { payload: Some(send_message_response::Payload::Message(message)) }
    }
}

impl StreamResponse {
    /// The id of the task this event concerns, if any (a bare `Message` may have none).
    pub fn task_id(&self) -> Option<&str> {
        let id = match self.payload.as_ref()? {
            stream_response::Payload::Task(t) => &t.id,
            stream_response::Payload::Message(m) => &m.task_id,
            stream_response::Payload::StatusUpdate(e) => &e.task_id,
            stream_response::Payload::ArtifactUpdate(e) => &e.task_id,
        };
        (!id.is_empty()).then_some(id.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_unique_uuids_that_sort_by_creation() {
        let ids: Vec<String> = (0..1000).map(|_| new_id()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, ids, "made in order, sorted in order (a counter within a millisecond)");
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "unique");
        for id in &ids {
            assert_eq!(uuid::Uuid::parse_str(id).unwrap().get_version_num(), 7, "{id}");
        }
    }

    #[test]
    fn ids_made_on_many_threads_are_unique_and_each_thread_sees_them_increase() {
        let threads: Vec<_> =
            (0..4).map(|_| std::thread::spawn(|| (0..5000).map(|_| new_id()).collect::<Vec<_>>())).collect();
        let mut all = Vec::new();
        for thread in threads {
            let ids = thread.join().unwrap();
            assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "increasing on each thread");
            all.extend(ids);
        }
        let count = all.len();
        all.sort();
        all.dedup();
        assert_eq!(all.len(), count, "unique across threads");
    }

    #[test]
    fn an_id_carries_its_creation_millisecond_and_the_v7_version_and_variant() {
        let millis =
            || std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as u64;
        let before = millis();
        let id = uuid::Uuid::parse_str(&new_id()).unwrap();
        let after = millis();
        assert_eq!(id.get_version(), Some(uuid::Version::SortRand));
        assert_eq!(id.get_variant(), uuid::Variant::RFC4122);
        let (seconds, nanos) = id.get_timestamp().unwrap().to_unix();
        let made = seconds * 1000 + u64::from(nanos) / 1_000_000;
        // Later than `after` only if more than 4096 ids were made in one millisecond (not here).
        assert!((before..=after).contains(&made), "{before} <= {made} <= {after}");
    }

    #[test]
    fn the_stamp_counts_within_a_millisecond_and_never_goes_back() {
        let ms = |millis: u64| millis << 12;
        // A new millisecond starts at counter 0; the same one counts up.
        assert_eq!(next_v7_stamp(ms(5) + 7, 6), ms(6));
        assert_eq!(next_v7_stamp(ms(6), 6), ms(6) + 1);
        // The clock went back: still after the last.
        assert_eq!(next_v7_stamp(ms(6) + 1, 3), ms(6) + 2);
        // The counter is full: the time moves on one millisecond.
        assert_eq!(next_v7_stamp(ms(6) + 0xFFF, 6), ms(7));
        // ... and the next real millisecond 7 continues from there.
        assert_eq!(next_v7_stamp(ms(7), 7), ms(7) + 1);
    }

    #[test]
    fn a_json_part_holds_the_value_as_protojson_reads_it() {
        let value = serde_json::json!({"city": "Paris", "days": [1, 2.5], "ok": true, "none": null});
        let part = Part::json(&value);
        let Some(part::Content::Data(data)) = &part.content else { panic!("a data part: {part:?}") };
        assert_eq!(crate::json::from_pb_value(data), value);
        // On the wire the part's data is the JSON given (protobuf numbers are doubles: 1 is 1.0).
        let wire = crate::json::to_value(&part).unwrap();
        assert_eq!(
            (&wire["data"]["city"], &wire["data"]["ok"], &wire["data"]["none"]),
            (&value["city"], &value["ok"], &value["none"])
        );
        assert_eq!(
            wire["data"]["days"].as_array().unwrap().iter().map(|n| n.as_f64().unwrap()).collect::<Vec<_>>(),
            [1.0, 2.5]
        );
    }

    #[test]
    fn terminal_and_interrupted_states_partition_as_the_spec_lists_them() {
        use TaskState::*;
        for s in [Completed, Failed, Canceled, Rejected] {
            assert!(s.is_terminal() && !s.is_interrupted(), "{s:?}");
        }
        for s in [InputRequired, AuthRequired] {
            assert!(s.is_interrupted() && !s.is_terminal(), "{s:?}");
        }
        for s in [Unspecified, Submitted, Working] {
            assert!(!s.is_interrupted() && !s.is_terminal(), "{s:?}");
        }
    }

    #[test]
    fn message_constructors_set_role_and_fresh_ids() {
        let a = Message::user_text("hi");
        let b = Message::agent(vec![Part::text("a"), Part::text("b")]);
        assert_eq!(a.role(), Role::User);
        assert_eq!(b.role(), Role::Agent);
        assert_ne!(a.message_id, b.message_id);
        assert_eq!(b.text(), "ab");
    }

    #[test]
    fn parts_serialize_as_flattened_oneofs() {
        let json = serde_json::to_value(vec![
            Part::text("t"),
            Part::raw(b"hi".to_vec(), "application/octet-stream").with_filename("f.bin"),
            Part::url("https://x/y.png", "image/png"),
            Part::data(pbjson_types::Value::from(1.5)),
        ])
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!([
                {"text": "t"},
                {"raw": "aGk=", "filename": "f.bin", "mediaType": "application/octet-stream"},
                {"url": "https://x/y.png", "mediaType": "image/png"},
                {"data": 1.5}
            ])
        );
    }
}
