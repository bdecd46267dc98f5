//! A push-notification receiver that parses every payload with our types (`a2a_proto`), for the
//! "their server pushes to our webhook" cells.
//!
//! `POST /webhook/{label}` records the headers that carry credentials and the body parsed as a
//! `StreamResponse` (spec 4.3.3), answering 200, or 400 when the body does not parse. Waiters are
//! woken on every record (no polling). For a 0.3 agent ([`Protocol::V0_3`]) the body must be what
//! 0.3 pushes instead, the Task in the 0.3 JSON form (`kind: "task"`, 0.3 spec 9.5), read with
//! `a2a_v03` and recorded as a `StreamResponse` holding that task.

use std::future::IntoFuture as _;
use std::time::Duration;

use a2a_proto::v1::{stream_response::Payload, StreamResponse, TaskState};
use anyhow::Context as _;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use tokio::sync::watch;

use crate::Protocol;

/// The token header of the spec 0.3 example and most SDKs; some peers spell it without `X-`.
const TOKEN_HEADERS: [&str; 2] = ["x-a2a-notification-token", "a2a-notification-token"];

/// One notification as received.
#[derive(Debug)]
pub(crate) struct Notification {
    /// The last path segment: which check the notification belongs to.
    pub(crate) label: String,
    /// The `Authorization` header.
    pub(crate) authorization: Option<String>,
    /// The token header (name, value) if one of [`TOKEN_HEADERS`] was sent.
    pub(crate) token: Option<(String, String)>,
    /// The body parsed as a `StreamResponse`, or why it did not parse.
    pub(crate) payload: Result<StreamResponse, String>,
}

impl Notification {
    /// The task state a task snapshot or status update carries.
    pub(crate) fn state(&self) -> Option<TaskState> {
        match self.payload.as_ref().ok()?.payload.as_ref()? {
            Payload::Task(task) => Some(task.state()),
            Payload::StatusUpdate(update) => update.status.as_ref().map(|s| s.state()),
            _ => None,
        }
    }

    /// The payload's kind as spelled in ProtoJSON.
    pub(crate) fn kind(&self) -> &'static str {
        match self.payload.as_ref().map(|p| p.payload.as_ref()) {
            Ok(Some(Payload::Task(_))) => "task",
            Ok(Some(Payload::Message(_))) => "message",
            Ok(Some(Payload::StatusUpdate(_))) => "statusUpdate",
            Ok(Some(Payload::ArtifactUpdate(_))) => "artifactUpdate",
            Ok(None) => "empty",
            Err(_) => "unparsable",
        }
    }
}

/// The running receiver; it stops with the process.
#[derive(Debug)]
pub(crate) struct Webhook {
    url: String,
    records: watch::Receiver<Vec<Notification>>,
}

impl Webhook {
    /// Starts the receiver on a free loopback port, expecting the push bodies of `protocol`.
    pub(crate) async fn start(protocol: Protocol) -> anyhow::Result<Self> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.context("binding the webhook")?;
        let url = format!("http://{}", listener.local_addr()?);
        let (sender, records) = watch::channel(Vec::new());
        let app = axum::Router::new().route("/webhook/{label}", post(receive)).with_state((sender, protocol));
        tokio::spawn(axum::serve(listener, app).into_future());
        Ok(Webhook { url, records })
    }

    /// The URL notifications for `label` are to be sent to.
    pub(crate) fn url(&self, label: &str) -> String {
        format!("{}/webhook/{label}", self.url)
    }

    /// Waits until `done` holds for the records of `label` (at most `timeout`), then hands them
    /// to `inspect`.
    pub(crate) async fn wait_for<T>(
        &self,
        label: &str,
        timeout: Duration,
        done: impl Fn(&[&Notification]) -> bool,
        inspect: impl FnOnce(&[&Notification]) -> T,
    ) -> anyhow::Result<T> {
        let mut records = self.records.clone();
        let waited = tokio::time::timeout(timeout, async {
            records.wait_for(|all| done(&of_label(all, label))).await.map(drop)
        })
        .await;
        let all = records.borrow();
        let mine = of_label(&all, label);
        match waited {
            Ok(Ok(_)) => Ok(inspect(&mine)),
            Ok(Err(_)) => anyhow::bail!("the webhook receiver stopped"),
            Err(_) => {
                let kinds: Vec<_> = mine.iter().map(|r| r.kind()).collect();
                anyhow::bail!("no terminal notification within {timeout:?}; received {kinds:?}")
            }
        }
    }
}

fn of_label<'a>(all: &'a [Notification], label: &str) -> Vec<&'a Notification> {
    all.iter().filter(|r| r.label == label).collect()
}

async fn receive(
    State((records, protocol)): State<(watch::Sender<Vec<Notification>>, Protocol)>,
    Path(label): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let token = TOKEN_HEADERS.iter().find_map(|name| header(name).map(|value| ((*name).to_owned(), value)));
    let payload = match protocol {
        Protocol::V1_0 => a2a_proto::json::from_slice::<StreamResponse>(&body).map_err(|e| e.to_string()),
        Protocol::V0_3 => parse_v03(&body),
    };
    let status = if payload.is_ok() { StatusCode::OK } else { StatusCode::BAD_REQUEST };
    let record = Notification { label, authorization: header("authorization"), token, payload };
    records.send_modify(|all| all.push(record));
    status
}

/// A 0.3 push body: the Task in the 0.3 JSON form, as a `StreamResponse` holding it.
fn parse_v03(body: &[u8]) -> Result<StreamResponse, String> {
    let json: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
    if json.get("kind").and_then(serde_json::Value::as_str) != Some("task") {
        let members: Vec<_> = json.as_object().map(|o| o.keys().cloned().collect()).unwrap_or_default();
        return Err(format!("not a 0.3 Task (no kind \"task\"; members {members:?})"));
    }
    let task = <a2a_proto::v1::Task as a2a_v03::V03>::from_v03(&json).map_err(|e| e.to_string())?;
    Ok(StreamResponse { payload: Some(Payload::Task(task)) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_webhook_records_what_it_parses_and_refuses_what_it_cannot() {
        let webhook = Webhook::start(Protocol::V1_0).await.unwrap();
        let http = reqwest::Client::new();
        let post = |body: &'static str| {
            http.post(webhook.url("a"))
                .header("Authorization", "Bearer x")
                .header("A2A-Notification-Token", "tok")
                .body(body)
                .send()
        };
        let refused = post(r#"{"statusUpdate": {"taskId": "t1", "bogus": 1"#).await.unwrap();
        assert_eq!(refused.status(), StatusCode::BAD_REQUEST);
        let body = r#"{"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}}"#;
        assert_eq!(post(body).await.unwrap().status(), StatusCode::OK);
        let (kinds, token, auth) = webhook
            .wait_for(
                "a",
                Duration::from_secs(5),
                |records| records.iter().any(|r| r.state() == Some(TaskState::Completed)),
                |records| {
                    (
                        records.iter().map(|r| r.kind()).collect::<Vec<_>>(),
                        records[1].token.clone(),
                        records[1].authorization.clone(),
                    )
                },
            )
            .await
            .unwrap();
        assert_eq!(kinds, ["unparsable", "statusUpdate"]);
        assert_eq!(token, Some(("a2a-notification-token".to_owned(), "tok".to_owned())));
        assert_eq!(auth.as_deref(), Some("Bearer x"));
        let nothing = webhook.wait_for("other", Duration::from_millis(50), |r| !r.is_empty(), |_| ()).await;
        assert!(nothing.is_err(), "a label that got nothing times out");
    }

    #[tokio::test]
    async fn the_0_3_webhook_takes_0_3_tasks_only() {
        let webhook = Webhook::start(Protocol::V0_3).await.unwrap();
        let http = reqwest::Client::new();
        let post = |body: &'static str| http.post(webhook.url("a")).body(body).send();
        let v1 = r#"{"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"}}}"#;
        assert_eq!(post(v1).await.unwrap().status(), StatusCode::BAD_REQUEST);
        let v03 = r#"{"kind": "task", "id": "t1", "contextId": "c1", "status": {"state": "completed"}}"#;
        assert_eq!(post(v03).await.unwrap().status(), StatusCode::OK);
        let (kinds, state) = webhook
            .wait_for(
                "a",
                Duration::from_secs(5),
                |records| records.iter().any(|r| r.state() == Some(TaskState::Completed)),
                |records| (records.iter().map(|r| r.kind()).collect::<Vec<_>>(), records[1].state()),
            )
            .await
            .unwrap();
        assert_eq!(kinds, ["unparsable", "task"]);
        assert_eq!(state, Some(TaskState::Completed));
    }
}
