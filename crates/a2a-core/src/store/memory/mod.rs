//! The in-memory stores: tasks ([`InMemoryTaskStore`], indexed for many stored tasks, finished
//! ones kept compact) and push notification configs ([`InMemoryPushConfigStore`]).
//! For tasks that survive a restart, a SQL store (`a2a-store-sql`); every store passes the same
//! [`testing`](super::testing) suite.

mod tasks;

pub use tasks::{InMemoryTaskStore, HOT_TERMINAL, SHARDS};

use std::collections::HashMap;
use std::sync::Mutex;

use a2a_proto::v1::TaskPushNotificationConfig;
use async_trait::async_trait;

use super::{PushConfigStore, StoredPushConfig};
use crate::context::ProtocolVersion;
use crate::error::Result;

/// A [`PushConfigStore`] in process memory.
#[derive(Debug, Default)]
pub struct InMemoryPushConfigStore {
    configs: Mutex<HashMap<String, Vec<StoredPushConfig>>>,
}

impl InMemoryPushConfigStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

#[async_trait]
impl PushConfigStore for InMemoryPushConfigStore {
    async fn put(
        &self,
        config: TaskPushNotificationConfig,
        version: ProtocolVersion,
    ) -> Result<TaskPushNotificationConfig> {
        let mut all = self.configs.lock().expect("push store lock");
        let configs = all.entry(config.task_id.clone()).or_default();
        let stored = StoredPushConfig { config: config.clone(), version };
        match configs.iter_mut().find(|c| c.config.id == config.id) {
            Some(existing) => *existing = stored,
            None => configs.push(stored),
        }
        Ok(config)
    }

    async fn get(&self, task_id: &str, config_id: &str) -> Result<Option<StoredPushConfig>> {
        let all = self.configs.lock().expect("push store lock");
        Ok(all.get(task_id).and_then(|c| c.iter().find(|c| c.config.id == config_id)).cloned())
    }

    async fn list(&self, task_id: &str) -> Result<Vec<StoredPushConfig>> {
        Ok(self.configs.lock().expect("push store lock").get(task_id).cloned().unwrap_or_default())
    }

    async fn delete(&self, task_id: &str, config_id: &str) -> Result<bool> {
        let mut all = self.configs.lock().expect("push store lock");
        let Some(configs) = all.get_mut(task_id) else { return Ok(false) };
        let before = configs.len();
        configs.retain(|c| c.config.id != config_id);
        let removed = configs.len() != before;
        if configs.is_empty() {
            all.remove(task_id);
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(deprecated)]
    fn the_earlier_name_still_builds_the_store() {
        let store: crate::store::compact::CompactTaskStore = crate::store::compact::CompactTaskStore::new();
        assert!(store.is_empty());
    }

    #[tokio::test]
    async fn the_push_config_store_keeps_the_contract() {
        crate::store::testing::push_config_store_suite(&InMemoryPushConfigStore::new()).await;
    }
}
