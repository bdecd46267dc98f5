//! The `push-delivery` cells of their clients against our server: what the peer's webhook receiver
//! parsed (its [`Record::Push`] and [`Record::PushError`] lines) for the task each client's
//! `push-send` created (its [`Record::PushTask`]).

use std::time::{Duration, Instant};

use super::peers::BINDINGS;
use super::process::Service;
use super::records::{self, Notification, Record};

/// How long the receiver may take, after the clients ended, to report every label's last
/// notification.
pub(super) const PUSH_TIMEOUT: Duration = Duration::from_secs(20);

/// The credentials every `push-send` config carries (spec 4.3.3: `Authorization`; the token
/// header of the 0.3 spec's example).
const PUSH_AUTHORIZATION: &str = "Bearer interop-secret";
const PUSH_TOKEN: &str = "interop-token";

/// A 1.0 notification as compared: kind, state, text, append, lastChunk.
type Seen<'a> = (&'a str, Option<&'a str>, Option<&'a str>, bool, bool);
/// One expected 1.0 notification.
type Expected = Seen<'static>;

/// What our server pushes for the `stream 3` task of `push-send`: every event of the task, in
/// stream order, starting with the Task snapshot.
const OUR_PUSH_SEQUENCE: [Expected; 6] = [
    ("task", Some("TASK_STATE_SUBMITTED"), None, false, false),
    ("statusUpdate", Some("TASK_STATE_WORKING"), None, false, false),
    ("artifactUpdate", None, Some("chunk 0\n"), false, false),
    ("artifactUpdate", None, Some("chunk 1\n"), true, false),
    ("artifactUpdate", None, Some("chunk 2\n"), true, true),
    ("statusUpdate", Some("TASK_STATE_COMPLETED"), None, false, false),
];

/// Terminal states in either version's spelling.
const TERMINAL: [&str; 8] = [
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
    "completed",
    "failed",
    "canceled",
    "rejected",
];

/// What a receiver reported.
#[derive(Debug, Default)]
pub(super) struct Received {
    /// Its push records, in order.
    pub(super) records: Vec<Record>,
    /// Lines that are not push records (garbled, or another kind of record), with why.
    pub(super) unexpected: Vec<String>,
}

/// Reads the receiver's records until every binding's label has seen a terminal state or a payload
/// the receiver refused (which decides the cell), or `timeout` passes.
pub(super) fn receive(webhook: &Service, timeout: Duration) -> Received {
    let deadline = Instant::now() + timeout;
    let mut received = Received::default();
    while !BINDINGS.iter().all(|(_, label, _)| decided(&received.records, label)) {
        let Some(line) = webhook.next_line(deadline) else { break };
        match Record::parse(&line) {
            Ok(record @ (Record::Push(_) | Record::PushError { .. })) => received.records.push(record),
            Ok(other) => received.unexpected.push(format!("a receiver printed {other:?}")),
            Err(err) => received.unexpected.push(records::garbled(&line, &err)),
        }
    }
    received
}

/// Whether `label` has a terminal notification or a refused one.
fn decided(records: &[Record], label: &str) -> bool {
    records.iter().any(|record| match record {
        Record::Push(n) => n.label == label && n.state.as_deref().is_some_and(|s| TERMINAL.contains(&s)),
        Record::PushError { label: Some(l), .. } => l == label,
        _ => false,
    })
}

/// The notifications for `label`, or the first refusal.
fn of_label<'a>(records: &'a [Record], label: &str) -> Result<Vec<&'a Notification>, &'a str> {
    let mut mine = Vec::new();
    for record in records {
        match record {
            Record::PushError { label: Some(l), error } if l == label => return Err(error),
            Record::Push(n) if n.label == label => mine.push(n),
            _ => {}
        }
    }
    Ok(mine)
}

/// Fails unless every notification is about `task_id` with both credentials.
fn check_headers(mine: &[&Notification], task_id: &str, token_section: &str) -> Result<(), String> {
    for n in mine {
        if n.task_id != task_id {
            return Err(format!("a notification for task {:?}, want {task_id:?}", n.task_id));
        }
        if n.authorization.as_deref() != Some(PUSH_AUTHORIZATION) {
            return Err(format!(
                "Authorization {:?}, want {PUSH_AUTHORIZATION:?} (spec 4.3.3)",
                n.authorization
            ));
        }
        if n.token.as_deref() != Some(PUSH_TOKEN) {
            return Err(format!(
                "X-A2A-Notification-Token {:?}, want {PUSH_TOKEN:?}{token_section}",
                n.token
            ));
        }
    }
    Ok(())
}

/// What the peer's receiver parsed for our server's `push-send` task: exactly
/// [`OUR_PUSH_SEQUENCE`], each with the configured `Authorization` and token headers.
pub(super) fn check_our_pushes(records: &[Record], label: &str, task_id: &str) -> Result<(), String> {
    let mine = of_label(records, label)
        .map_err(|error| format!("the receiver could not parse a notification: {error}"))?;
    let got: Vec<Seen<'_>> = mine
        .iter()
        .map(|n| (n.kind.as_str(), n.state.as_deref(), n.text.as_deref(), n.append, n.last_chunk))
        .collect();
    if got != OUR_PUSH_SEQUENCE {
        return Err(format!("notifications {got:?}, want {OUR_PUSH_SEQUENCE:?}"));
    }
    check_headers(&mine, task_id, "")
}

/// What a 0.3 receiver (`webhook_v03.py`, `js-v03/webhook.mjs`) parsed for our server's
/// `push-send` task: at least one notification, every one the 0.3 Task of that task (the
/// receiver refuses anything else), with the configured `Authorization` and token headers, the
/// last one `completed` with the three chunks' text.
pub(super) fn check_our_pushes_v03(records: &[Record], label: &str, task_id: &str) -> Result<(), String> {
    let mine =
        of_label(records, label).map_err(|error| format!("the receiver refused a notification: {error}"))?;
    let Some(last) = mine.last() else { return Err("no notification arrived".to_owned()) };
    check_headers(&mine, task_id, " (0.3 spec 9.5)")?;
    if (last.state.as_deref(), last.text.as_deref())
        != (Some("completed"), Some("chunk 0\nchunk 1\nchunk 2\n"))
    {
        return Err(format!("the last notification is {:?} with artifact text {:?}", last.state, last.text));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(label: &str, task_id: &str, expected: Expected, token: Option<&str>) -> Record {
        let (kind, state, text, append, last_chunk) = expected;
        Record::Push(Notification {
            label: label.into(),
            task_id: task_id.into(),
            kind: kind.into(),
            state: state.map(str::to_owned),
            text: text.map(str::to_owned),
            append,
            last_chunk,
            authorization: Some(PUSH_AUTHORIZATION.into()),
            token: token.map(str::to_owned),
        })
    }

    fn our_pushes(task_id: &str, token: Option<&str>) -> Vec<Record> {
        OUR_PUSH_SEQUENCE.iter().map(|e| push("rest", task_id, *e, token)).collect()
    }

    #[test]
    fn our_pushes_pass_only_as_the_exact_sequence_with_both_headers() {
        assert_eq!(check_our_pushes(&our_pushes("t1", Some(PUSH_TOKEN)), "rest", "t1"), Ok(()));
        let missing_token = check_our_pushes(&our_pushes("t1", None), "rest", "t1");
        assert!(missing_token.unwrap_err().contains("X-A2A-Notification-Token"));
        let other_task = check_our_pushes(&our_pushes("t2", Some(PUSH_TOKEN)), "rest", "t1");
        assert!(other_task.unwrap_err().contains("for task"));
        let mut short = our_pushes("t1", Some(PUSH_TOKEN));
        short.remove(2);
        assert!(check_our_pushes(&short, "rest", "t1").unwrap_err().starts_with("notifications"));
        let mut no_append = our_pushes("t1", Some(PUSH_TOKEN));
        no_append[3] = push("rest", "t1", ("artifactUpdate", None, Some("chunk 1\n"), false, false), None);
        assert!(check_our_pushes(&no_append, "rest", "t1").unwrap_err().starts_with("notifications"));
        let mut broken = our_pushes("t1", Some(PUSH_TOKEN));
        broken.push(Record::PushError {
            label: Some("rest".into()),
            error: "ParseError: unknown field".into(),
        });
        assert!(check_our_pushes(&broken, "rest", "t1").unwrap_err().contains("could not parse"));
        assert!(
            check_our_pushes(&our_pushes("t1", Some(PUSH_TOKEN)), "grpc", "t1").is_err(),
            "another label"
        );
    }

    #[test]
    fn our_0_3_pushes_pass_only_as_0_3_tasks_of_the_task_with_both_headers() {
        let task = |state: &str, text: &str, token: Option<&str>| {
            push("rest", "t1", ("task", None, None, false, false), token).with(state, text)
        };
        let done = task("completed", "chunk 0\nchunk 1\nchunk 2\n", Some(PUSH_TOKEN));
        assert_eq!(
            check_our_pushes_v03(&[task("submitted", "", Some(PUSH_TOKEN)), done.clone()], "rest", "t1"),
            Ok(())
        );
        assert!(check_our_pushes_v03(&[], "rest", "t1").unwrap_err().contains("no notification"));
        assert!(
            check_our_pushes_v03(&[task("working", "chunk 0\n", Some(PUSH_TOKEN))], "rest", "t1").is_err()
        );
        let no_token = task("completed", "chunk 0\nchunk 1\nchunk 2\n", None);
        assert!(check_our_pushes_v03(&[no_token], "rest", "t1").unwrap_err().contains("Token"));
        let refused =
            Record::PushError { label: Some("rest".into()), error: "ValueError: not a 0.3 Task".into() };
        assert!(check_our_pushes_v03(&[refused, done.clone()], "rest", "t1")
            .unwrap_err()
            .contains("refused"));
        assert!(check_our_pushes_v03(&[done], "rest", "t2").unwrap_err().contains("for task"));
    }

    #[test]
    fn a_label_is_decided_by_a_terminal_state_or_a_refusal_of_its_own() {
        let working =
            push("grpc", "t", ("statusUpdate", Some("TASK_STATE_WORKING"), None, false, false), None);
        assert!(!decided(&[working], "grpc"));
        let done = push("grpc", "t", ("task", Some("completed"), None, false, false), None);
        assert!(decided(std::slice::from_ref(&done), "grpc") && !decided(&[done], "rest"));
        let refused =
            |label: Option<&str>| Record::PushError { label: label.map(str::to_owned), error: "e".into() };
        assert!(decided(&[refused(Some("grpc"))], "grpc"));
        assert!(!decided(&[refused(None)], "grpc"), "a refusal on another path decides no label");
    }

    trait With {
        fn with(self, state: &str, text: &str) -> Self;
    }

    impl With for Record {
        fn with(self, state: &str, text: &str) -> Self {
            let Record::Push(mut n) = self else { return self };
            n.state = Some(state.into());
            n.text = Some(text.into());
            Record::Push(n)
        }
    }
}
