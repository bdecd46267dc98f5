//! The runtimes of live tasks, by task id, held weakly: a runtime lives as long as an execution or a
//! subscriber holds it, never because of the registry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use super::TaskRuntime;

/// Live task runtimes.
#[derive(Debug, Default)]
pub(crate) struct Registry {
    runtimes: Mutex<HashMap<String, Weak<TaskRuntime>, foldhash::quality::RandomState>>,
}

impl Registry {
    /// The live runtime of a task, or the one `create` makes (registered atomically, so two
    /// callers never get two runtimes for one task).
    pub(crate) fn get_or_insert_with(
        &self,
        task_id: &str,
        create: impl FnOnce() -> Arc<TaskRuntime>,
    ) -> Arc<TaskRuntime> {
        let mut runtimes = self.runtimes.lock().expect("registry lock");
        if let Some(live) = runtimes.get(task_id).and_then(Weak::upgrade) {
            return live;
        }
        // Dead entries are swept when the map has grown; amortised O(1) per insert.
        if runtimes.len() >= 64 && runtimes.len().is_power_of_two() {
            runtimes.retain(|_, weak| weak.strong_count() > 0);
        }
        let runtime = create();
        runtimes.insert(task_id.to_owned(), Arc::downgrade(&runtime));
        runtime
    }

    /// The live runtime of a task, if any.
    pub(crate) fn get(&self, task_id: &str) -> Option<Arc<TaskRuntime>> {
        self.runtimes.lock().expect("registry lock").get(task_id).and_then(Weak::upgrade)
    }

    /// Every live runtime.
    pub(crate) fn live(&self) -> Vec<Arc<TaskRuntime>> {
        self.runtimes.lock().expect("registry lock").values().filter_map(Weak::upgrade).collect()
    }
}
