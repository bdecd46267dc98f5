//! The [`PushOutbox`] contract as a reusable suite (feature `testing`): every outbox runs it,
//! the in-memory one here and the SQL ones in `a2a-store-sql`.

use std::sync::Arc;
use std::time::Duration;

use a2a_proto::v1::TaskPushNotificationConfig;
use bytes::Bytes;

use super::{Notification, PushOutbox, PushPayload};
use crate::context::ProtocolVersion;
use crate::store::StoredPushConfig;

const LEASE: Duration = Duration::from_secs(30);

/// A 1.0 notification of `task_id` to config `config_id`, whose body is `body`.
pub fn notification(task_id: &str, config_id: &str, body: &str) -> Notification {
    Notification {
        task_id: task_id.into(),
        config: StoredPushConfig {
            config: TaskPushNotificationConfig {
                task_id: task_id.into(),
                id: config_id.into(),
                url: format!("https://hooks.example.com/{config_id}"),
                token: "tok".into(),
                ..Default::default()
            },
            version: ProtocolVersion::V1_0,
        },
        payload: Some(PushPayload::StreamResponse(Bytes::from(body.to_owned()))),
        trace: Some(crate::trace::TraceContext {
            traceparent: format!("00-{:032x}-{:016x}-01", body.len() + 1, 7),
            tracestate: Some("a2a=test".into()),
        }),
    }
}

fn body(claimed: &super::Claimed) -> String {
    match &claimed.payload {
        PushPayload::StreamResponse(bytes) => String::from_utf8(bytes.to_vec()).unwrap(),
        PushPayload::TaskV0_3(task) => format!("task:{}", task.id),
    }
}

/// Runs every check of the contract against outboxes made by `make`; each call must return an
/// empty outbox (a fresh database, say). `shared`, when the backend can share one outbox between
/// replicas, returns two handles on one fresh outbox, for the claim's exclusivity.
pub async fn outbox_suite<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Arc<dyn PushOutbox>>,
{
    only_the_oldest_of_each_config_is_claimed_and_it_keeps_its_body(make().await).await;
    a_lease_hides_a_notification_until_it_expires_or_is_released(make().await).await;
    a_retry_waits_for_its_time_and_keeps_its_attempts(make().await).await;
    discard_drops_one_configs_notifications(make().await).await;
}

async fn only_the_oldest_of_each_config_is_claimed_and_it_keeps_its_body(outbox: Arc<dyn PushOutbox>) {
    outbox
        .enqueue(vec![
            notification("t1", "a", "1"),
            notification("t1", "a", "2"),
            notification("t1", "b", "3"),
            notification("t2", "a", "4"),
        ])
        .await
        .unwrap();
    assert_eq!(outbox.pending().await.unwrap(), 4);
    let claimed = outbox.claim("me", 1_000, LEASE, 10).await.unwrap();
    let mut bodies: Vec<String> = claimed.iter().map(body).collect();
    bodies.sort();
    assert_eq!(bodies, ["1", "3", "4"], "one per (task, config), the oldest");
    let first = claimed.iter().find(|c| body(c) == "1").unwrap();
    assert_eq!((first.task_id.as_str(), first.config.config.id.as_str()), ("t1", "a"));
    assert_eq!(first.config.config.token, "tok");
    assert_eq!(first.config.version, ProtocolVersion::V1_0);
    assert_eq!((first.attempts, first.first_attempt_ms), (0, None));
    assert_eq!(first.trace, notification("t1", "a", "1").trace, "the trace context is kept");
    assert!(outbox.claim("me", 1_000, LEASE, 10).await.unwrap().is_empty(), "all heads are leased");
    outbox.remove(first.id).await.unwrap();
    let next = outbox.claim("me", 1_000, LEASE, 10).await.unwrap();
    assert_eq!(next.iter().map(body).collect::<Vec<_>>(), ["2"], "the next one of config a follows");
    assert!(next[0].id > first.id, "ids grow in insertion order");
    assert_eq!(outbox.pending().await.unwrap(), 3);
    let limited = {
        outbox.enqueue(vec![notification("t3", "a", "5"), notification("t4", "a", "6")]).await.unwrap();
        outbox.claim("me", 1_000, LEASE, 1).await.unwrap()
    };
    assert_eq!(limited.len(), 1, "at most `limit`");
}

async fn a_lease_hides_a_notification_until_it_expires_or_is_released(outbox: Arc<dyn PushOutbox>) {
    outbox.enqueue(vec![notification("t", "a", "1")]).await.unwrap();
    let claimed = outbox.claim("replica-1", 1_000, LEASE, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(outbox.claim("replica-2", 1_000 + 29_000, LEASE, 10).await.unwrap().is_empty(), "leased");
    let taken = outbox.claim("replica-2", 1_000 + 31_000, LEASE, 10).await.unwrap();
    assert_eq!(taken.len(), 1, "an expired lease is taken over (its holder died)");
    outbox.release(Some("replica-1")).await.unwrap();
    assert!(outbox.claim("replica-3", 40_000, LEASE, 10).await.unwrap().is_empty(), "not replica-1's now");
    outbox.release(Some("replica-2")).await.unwrap();
    assert_eq!(outbox.claim("replica-3", 40_000, LEASE, 10).await.unwrap().len(), 1);
    outbox.release(None).await.unwrap();
    assert_eq!(outbox.claim("replica-4", 40_000, LEASE, 10).await.unwrap().len(), 1, "release(None): all");
}

async fn a_retry_waits_for_its_time_and_keeps_its_attempts(outbox: Arc<dyn PushOutbox>) {
    outbox.enqueue(vec![notification("t", "a", "1"), notification("t", "a", "2")]).await.unwrap();
    let claimed = outbox.claim("me", 1_000, LEASE, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    outbox.retry_at(claimed[0].id, 3, 900, 5_000).await.unwrap();
    assert!(
        outbox.claim("me", 4_999, LEASE, 10).await.unwrap().is_empty(),
        "not due, and the next waits behind it"
    );
    let again = outbox.claim("me", 5_000, LEASE, 10).await.unwrap();
    assert_eq!(again.iter().map(body).collect::<Vec<_>>(), ["1"]);
    assert_eq!((again[0].attempts, again[0].first_attempt_ms), (3, Some(900)));
}

async fn discard_drops_one_configs_notifications(outbox: Arc<dyn PushOutbox>) {
    outbox
        .enqueue(vec![notification("t", "a", "1"), notification("t", "a", "2"), notification("t", "b", "3")])
        .await
        .unwrap();
    assert_eq!(outbox.discard("t", "a").await.unwrap(), 2);
    assert_eq!(outbox.discard("t", "a").await.unwrap(), 0);
    let left = outbox.claim("me", 1_000, LEASE, 10).await.unwrap();
    assert_eq!(left.iter().map(body).collect::<Vec<_>>(), ["3"]);
}

/// Two handles on one outbox (two replicas on one database) claiming at once never get the same
/// notification, and between them get every one.
pub async fn claims_are_exclusive(a: Arc<dyn PushOutbox>, b: Arc<dyn PushOutbox>) {
    let notifications: Vec<Notification> =
        (0..40).map(|i| notification(&format!("t{i}"), "a", &i.to_string())).collect();
    a.enqueue(notifications).await.unwrap();
    let (from_a, from_b) = tokio::join!(
        async {
            let mut got = Vec::new();
            for _ in 0..10 {
                got.extend(a.claim("a", 1_000, LEASE, 3).await.unwrap());
            }
            got
        },
        async {
            let mut got = Vec::new();
            for _ in 0..10 {
                got.extend(b.claim("b", 1_000, LEASE, 3).await.unwrap());
            }
            got
        }
    );
    let mut ids: Vec<u64> = from_a.iter().chain(&from_b).map(|c| c.id).collect();
    let claimed = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), claimed, "no notification claimed twice");
    assert_eq!(claimed, 40, "every one claimed by one of them");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::push::MemoryOutbox;

    #[tokio::test]
    async fn the_memory_outbox_keeps_the_contract() {
        outbox_suite(|| async { Arc::new(MemoryOutbox::new()) as Arc<dyn PushOutbox> }).await;
        let shared = Arc::new(MemoryOutbox::new());
        claims_are_exclusive(shared.clone(), shared).await;
    }
}
