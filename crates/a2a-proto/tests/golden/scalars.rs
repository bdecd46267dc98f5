//! The ProtoJSON spelling of the scalar kinds the spec examples show: `bytes` as base64 (standard
//! alphabet, padded), enums as their `TASK_STATE_*` / `ROLE_*` names, timestamps as RFC 3339 in
//! UTC with `Z` (spec 5.6.1: "MUST NOT include timezone offsets other than 'Z'"). Expected values
//! are spelled out here, not computed by the code under test.

use a2a_proto::v1::{Message, Part, Role, SendMessageRequest, Task, TaskState, TaskStatus};
use a2a_proto::Timestamp;
use serde_json::{json, Value};

/// Serialize, then parse back through the crate's JSON boundary.
fn through_json<T>(value: &T) -> (Value, T)
where
    T: serde::Serialize + serde::de::DeserializeOwned + prost::Name,
{
    let json = serde_json::to_value(value).unwrap();
    let back = a2a_proto::json::from_slice(json.to_string().as_bytes()).unwrap();
    (json, back)
}

#[test]
fn raw_bytes_are_standard_padded_base64_and_survive() {
    // Known answers: `+` and `/` (standard, not URL-safe, alphabet) and `=` padding.
    for (bytes, base64) in [
        (&b"hello"[..], "aGVsbG8="),
        (&[0xfb, 0xff][..], "+/8="),
        (&[0xfb, 0xff, 0xbf][..], "+/+/"),
        (&[0x00][..], "AA=="),
        (&[][..], ""),
    ] {
        let part = Part::raw(bytes.to_vec(), "application/octet-stream");
        let (json, back) = through_json(&part);
        assert_eq!(json["raw"], json!(base64), "{bytes:?}");
        assert_eq!(back, part);
    }

    // Every byte value, inside a whole request.
    let all: Vec<u8> = (0..=255).collect();
    let request = SendMessageRequest {
        message: Some(Message::user(vec![Part::raw(all.clone(), "image/png").with_filename("all.bin")])),
        ..Default::default()
    };
    let (json, back) = through_json(&request);
    let raw = json["message"]["parts"][0]["raw"].as_str().unwrap();
    assert!(raw.len() % 4 == 0 && raw.ends_with("/w==") && !raw.contains(['-', '_']), "{raw}");
    assert_eq!(back, request);
}

#[test]
fn raw_bytes_parse_from_url_safe_or_unpadded_base64_too() {
    // ProtoJSON parsers accept either alphabet, with or without padding.
    for spelling in ["+/8=", "+/8", "-_8=", "-_8"] {
        let part: Part = a2a_proto::json::from_value(json!({"raw": spelling})).unwrap();
        assert_eq!(part, Part::raw(vec![0xfb, 0xff], ""), "{spelling}");
    }
}

#[test]
fn task_states_serialize_as_their_task_state_names() {
    // spec 4.1.3; the zero value is the default and is not written.
    let names = [
        (TaskState::Submitted, "TASK_STATE_SUBMITTED"),
        (TaskState::Working, "TASK_STATE_WORKING"),
        (TaskState::Completed, "TASK_STATE_COMPLETED"),
        (TaskState::Failed, "TASK_STATE_FAILED"),
        (TaskState::Canceled, "TASK_STATE_CANCELED"),
        (TaskState::InputRequired, "TASK_STATE_INPUT_REQUIRED"),
        (TaskState::Rejected, "TASK_STATE_REJECTED"),
        (TaskState::AuthRequired, "TASK_STATE_AUTH_REQUIRED"),
    ];
    for (state, name) in names {
        let status = TaskStatus { state: state.into(), ..Default::default() };
        let (json, back) = through_json(&status);
        assert_eq!(json, json!({"state": name}));
        assert_eq!(back.state(), state);
    }
    let unspecified = TaskStatus { state: TaskState::Unspecified.into(), ..Default::default() };
    assert_eq!(serde_json::to_value(unspecified).unwrap(), json!({}));
    // The enum's number is accepted on input too.
    let status: TaskStatus = a2a_proto::json::from_value(json!({"state": 3})).unwrap();
    assert_eq!(status.state(), TaskState::Completed);
}

#[test]
fn roles_serialize_as_their_role_names() {
    // spec 4.1.5
    for (role, name) in [(Role::User, "ROLE_USER"), (Role::Agent, "ROLE_AGENT")] {
        let message = Message { message_id: "m".into(), role: role.into(), ..Default::default() };
        let (json, back) = through_json(&message);
        assert_eq!(json, json!({"messageId": "m", "role": name}));
        assert_eq!(back.role(), role);
    }
}

fn status_at(seconds: i64, nanos: i32) -> TaskStatus {
    TaskStatus {
        state: TaskState::Working.into(),
        timestamp: Some(Timestamp { seconds, nanos }),
        ..Default::default()
    }
}

#[test]
fn timestamps_serialize_as_rfc3339_utc_with_z() {
    // 1710497700 s = 2024-03-15T10:15:00Z (the spec 6.5 example). ProtoJSON writes 0, 3, 6 or 9
    // fractional digits and always `Z`.
    for (nanos, text) in [
        (0, "2024-03-15T10:15:00Z"),
        (680_000_000, "2024-03-15T10:15:00.680Z"),
        (680_794_000, "2024-03-15T10:15:00.680794Z"),
        (1, "2024-03-15T10:15:00.000000001Z"),
    ] {
        let status = status_at(1_710_497_700, nanos);
        let (json, back) = through_json(&status);
        assert_eq!(json["timestamp"], json!(text), "nanos {nanos}");
        assert_eq!(back, status);
    }
}

#[test]
fn timestamps_with_an_offset_parse_to_the_same_instant() {
    // ProtoJSON accepts offsets on input; the instant is what counts.
    for text in ["2024-03-15T10:15:00Z", "2024-03-15T10:15:00.000Z", "2024-03-15T11:15:00+01:00"] {
        let task: Task = a2a_proto::json::from_value(
            json!({"id": "t", "status": {"state": "TASK_STATE_WORKING", "timestamp": text}}),
        )
        .unwrap();
        assert_eq!(
            task.status.unwrap().timestamp,
            Some(Timestamp { seconds: 1_710_497_700, nanos: 0 }),
            "{text}"
        );
    }
}
