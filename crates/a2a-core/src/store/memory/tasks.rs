//! [`InMemoryTaskStore`]: the in-memory [`TaskStore`] (the handler's default, the reference
//! server's `--store memory`), built for many stored tasks. It keeps the contract of
//! [`crate::store`] (the [`testing`](crate::store::testing) suite checks it, with and without frozen
//! tasks), as the SQL stores do.
//!
//! Tasks are indexed per scope by `(status timestamp, id)`, and within a scope by state (each
//! state's keys in that order) and by context (a hash lookup, then that context's keys in that
//! order), so GetTask is a hash lookup and a ListTasks page costs O(log n + page) whatever the
//! number of stored tasks (one filter), independent of other scopes' tasks.
//!
//! Memory and latency at scale (measured by `cargo xtask bench`, see `docs/benchmarks.md`):
//! - Ids are shared, reference-counted strings: the map key and every index entry of a task point
//!   at one allocation.
//! - A terminal task no longer changes, so once it has left the window of the most recently
//!   finished ones ([`HOT_TERMINAL`], which keeps the reads that follow a completion cheap: a
//!   client's GetTask, or a blocking SendMessage's when its runtime no longer holds the task it
//!   wrote) it is frozen into a compact binary form (see `frozen` below):
//!   a small echo task shrinks from about 2.5 KiB of prost structs to its protobuf encoding without
//!   the ids the store holds anyway (154 bytes), stored in large shared slabs. Reads decode it
//!   outside the lock; it never changes again (the store contract refuses any change to a finished
//!   task).
//! - Freeing the prost structs of every finished task makes glibc's malloc slower for the whole
//!   process (its slow path went from 4% to 13% of the server's time at 10k requests/s); a
//!   binary serving many tasks should use a modern allocator such as mimalloc, with which the
//!   server is faster than without compaction (`docs/benchmarks.md`).
//! - The id map is split into [`SHARDS`] tables, so a table that grows rehashes only a
//!   sixteenth of the tasks while it holds the store's write lock.

use std::collections::hash_map::Entry as Slot;
use std::collections::{BTreeSet, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::{Arc, RwLock};

use a2a_proto::v1::{Task, TaskState};
use async_trait::async_trait;

use crate::error::{Error, Result};
use crate::lifecycle::{apply_mutation, check_mutation, is_event};
use crate::store::{check_all, fold_new_task};
use crate::store::{
    refuse_notifications, updated_ms, Burst, Cursor, Scope, StoredTask, TaskMutation, TaskPage, TaskQuery,
    TaskStore, TaskView,
};

/// How many of the most recently finished tasks stay unfrozen.
pub const HOT_TERMINAL: usize = 64;
/// How many tables the id map is split into.
pub const SHARDS: usize = 16;

/// The store's hash maps: foldhash (seeded per process) instead of SipHash, which was 2% of a
/// SendMessage's instructions here (ten lookups per request).
type Map<K, V> = HashMap<K, V, foldhash::quality::RandomState>;

/// A shared id (task or context).
type Id = Arc<str>;

/// The sort key of a task: its status timestamp in milliseconds, then its id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    updated_ms: i64,
    id: Id,
}

impl Key {
    fn of(task: &Task, id: Id) -> Self {
        Key { updated_ms: updated_ms(task), id }
    }

    fn after(cursor: &Cursor) -> Self {
        Key { updated_ms: cursor.updated_ms, id: Arc::from(cursor.task_id.as_str()) }
    }

    fn cursor(&self) -> Cursor {
        Cursor { updated_ms: self.updated_ms, task_id: self.id.to_string() }
    }
}

fn state_of(task: &Task) -> i32 {
    task.status.as_ref().map_or(0, |s| s.state)
}

fn is_terminal(state: i32) -> bool {
    TaskState::try_from(state).is_ok_and(TaskState::is_terminal)
}

/// A [`TaskStore`] in process memory, compact for many stored tasks (module docs).
#[derive(Debug)]
pub struct InMemoryTaskStore {
    inner: RwLock<Tasks>,
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        InMemoryTaskStore {
            inner: RwLock::new(Tasks {
                shards: (0..SHARDS).map(|_| Map::default()).collect(),
                scopes: Vec::new(),
                scope_ids: Map::default(),
                hot: VecDeque::new(),
                slabs: Slabs::default(),
                scratch: Vec::new(),
            }),
        }
    }
}

#[derive(Debug)]
struct Tasks {
    /// Tasks by id, split by [`shard_of`].
    shards: Vec<Map<Id, Entry>>,
    /// Each scope and its indexes; entries refer to a scope by its position here.
    scopes: Vec<(Scope, ScopeIndex)>,
    scope_ids: Map<Scope, u32>,
    /// Terminal tasks not frozen yet, oldest first (an id may appear twice; stale ids are skipped).
    hot: VecDeque<Id>,
    /// The bytes of frozen tasks.
    slabs: Slabs,
    /// Where a task is encoded before its bytes are copied into a slab.
    scratch: Vec<u8>,
}

#[derive(Debug)]
struct Entry {
    updated_ms: i64,
    /// The task's `seq` (see [`crate::store`]).
    seq: u64,
    state: i32,
    scope: u32,
    body: Body,
}

#[derive(Debug)]
enum Body {
    Live(Box<Live>),
    /// [`frozen::encode_into`]d into [`Tasks::slabs`].
    Frozen(Frozen),
}

/// Where a frozen task's bytes are in [`Slabs`].
#[derive(Debug, Clone, Copy)]
struct Frozen {
    slab: u32,
    offset: u32,
    len: u32,
}

/// Frozen tasks' bytes, appended to large slabs: one allocation per slab rather than one per task.
/// Hundreds of thousands of small long-lived blocks interleaved with the short-lived ones of
/// requests make glibc's malloc markedly slower for everything else (measured: `_int_malloc` went
/// from 4% to 13% of the server's time); slabs also save each blob's allocation header.
#[derive(Debug, Default)]
struct Slabs {
    slabs: Vec<Vec<u8>>,
}

/// The size of a slab (mapped directly by the allocator, apart from the heap).
const SLAB: usize = 256 * 1024;

impl Slabs {
    fn push(&mut self, bytes: &[u8]) -> Frozen {
        let fits = self.slabs.last().is_some_and(|slab| slab.capacity() - slab.len() >= bytes.len());
        if !fits {
            self.slabs.push(Vec::with_capacity(SLAB.max(bytes.len())));
        }
        let index = self.slabs.len() - 1;
        let slab = &mut self.slabs[index];
        let offset = slab.len();
        slab.extend_from_slice(bytes);
        let narrow = |n: usize| u32::try_from(n).expect("a frozen task is smaller than 4 GiB");
        Frozen { slab: narrow(index), offset: narrow(offset), len: narrow(bytes.len()) }
    }

    fn get(&self, frozen: Frozen) -> &[u8] {
        &self.slabs[frozen.slab as usize][frozen.offset as usize..][..frozen.len as usize]
    }
}

#[derive(Debug)]
struct Live {
    task: Task,
    id: Id,
    context: Id,
}

#[derive(Debug, Default)]
struct ScopeIndex {
    all: BTreeSet<Key>,
    by_state: Map<i32, BTreeSet<Key>>,
    /// Each context's tasks, in order. A hash lookup, then that context's own few keys: one
    /// ordered set of every task keyed by context put each new context at a random place in a
    /// tree of all the scope's tasks (a cache miss per level: 4% of a SendMessage's CPU at a few
    /// hundred thousand stored tasks, measured under wrk in `docs/benchmarks.md`, seventh pass).
    /// Split by [`shard_of`] the context id, as the id map is: a table that grows rehashes a
    /// sixteenth of the scope's contexts while it holds the store's write lock (one table held
    /// requests for 80-150 ms at about a million contexts). Empty until the scope's first task.
    by_context: Vec<Map<Id, Group>>,
}

/// The keys of one context's tasks. Most contexts hold one task (a one-shot request's), kept
/// inline; a conversation's grows into an ordered set.
#[derive(Debug)]
enum Group {
    One(Key),
    Many(BTreeSet<Key>),
}

impl ScopeIndex {
    fn insert(&mut self, key: &Key, state: i32, context: &Id) {
        self.all.insert(key.clone());
        self.by_state.entry(state).or_default().insert(key.clone());
        if self.by_context.is_empty() {
            self.by_context = (0..SHARDS).map(|_| Map::default()).collect();
        }
        match self.by_context[shard_of(context)].entry(Arc::clone(context)) {
            Slot::Vacant(vacant) => {
                vacant.insert(Group::One(key.clone()));
            }
            Slot::Occupied(mut occupied) => {
                let group = occupied.get_mut();
                match group {
                    Group::One(one) => *group = Group::Many(BTreeSet::from([one.clone(), key.clone()])),
                    Group::Many(set) => {
                        set.insert(key.clone());
                    }
                }
            }
        }
    }

    fn remove(&mut self, key: &Key, state: i32, context: &Id) {
        self.all.remove(key);
        if let Some(set) = self.by_state.get_mut(&state) {
            set.remove(key);
            if set.is_empty() {
                self.by_state.remove(&state);
            }
        }
        let Some(shard) = self.by_context.get_mut(shard_of(context)) else { return };
        let emptied = match shard.get_mut(&**context) {
            None => false,
            Some(group) => match group {
                Group::One(one) => one == key,
                Group::Many(set) => {
                    set.remove(key);
                    match set.len() {
                        0 => true,
                        1 => {
                            let last = set.pop_first().expect("one key");
                            *group = Group::One(last);
                            false
                        }
                        _ => false,
                    }
                }
            },
        };
        if emptied {
            shard.remove(&**context);
        }
    }

    /// The keys matching `query`'s context or state (the most selective index), before `after`
    /// (all of them without), in order: a page costs O(log n + page) however deep it is.
    fn candidates<'a>(
        &'a self,
        query: &TaskQuery,
        after: Option<&'a Key>,
    ) -> Box<dyn DoubleEndedIterator<Item = &'a Key> + 'a> {
        let before = after.map_or(Bound::Unbounded, Bound::Excluded);
        match (&query.context_id, query.state) {
            (Some(context), _) => {
                match self.by_context.get(shard_of(context)).and_then(|shard| shard.get(context.as_str())) {
                    Some(Group::One(key)) => Box::new(
                        std::iter::once(key).filter(move |key| after.is_none_or(|after| *key < after)),
                    ),
                    Some(Group::Many(set)) => Box::new(set.range::<Key, _>((Bound::Unbounded, before))),
                    None => Box::new(std::iter::empty()),
                }
            }
            (None, Some(state)) => match self.by_state.get(&(state as i32)) {
                Some(set) => Box::new(set.range::<Key, _>((Bound::Unbounded, before))),
                None => Box::new(std::iter::empty()),
            },
            (None, None) => Box::new(self.all.range::<Key, _>((Bound::Unbounded, before))),
        }
    }
}

/// Which table of [`Tasks::shards`] holds `id`, or of a scope's context index a context id (the
/// tables themselves hash with foldhash).
fn shard_of(id: &str) -> usize {
    // The last bytes of an id vary the most (UUIDs, counters).
    let tail = &id.as_bytes()[id.len().saturating_sub(8)..];
    let mut hash: u32 = 0x811c_9dc5;
    for byte in tail {
        hash = (hash ^ u32::from(*byte)).wrapping_mul(0x0100_0193);
    }
    hash as usize % SHARDS
}

impl Tasks {
    fn entry(&self, id: &str) -> Option<&Entry> {
        self.shards[shard_of(id)].get(id)
    }

    fn scope_id(&mut self, scope: &Scope) -> u32 {
        if let Some(id) = self.scope_ids.get(scope) {
            return *id;
        }
        let id = u32::try_from(self.scopes.len()).expect("fewer than 2^32 scopes");
        self.scopes.push((scope.clone(), ScopeIndex::default()));
        self.scope_ids.insert(scope.clone(), id);
        id
    }

    /// Freezes the oldest finished tasks beyond the hot window.
    fn freeze_cold(&mut self) {
        while self.hot.len() > HOT_TERMINAL {
            let Some(id) = self.hot.pop_front() else { break };
            let Some(entry) = self.shards[shard_of(&id)].get_mut(&*id) else { continue };
            if matches!(entry.body, Body::Live(_)) && is_terminal(entry.state) {
                let placeholder = Body::Frozen(Frozen { slab: 0, offset: 0, len: 0 });
                let Body::Live(live) = std::mem::replace(&mut entry.body, placeholder) else {
                    unreachable!("matched above")
                };
                self.scratch.clear();
                frozen::encode_into(live.task, &mut self.scratch);
                entry.body = Body::Frozen(self.slabs.push(&self.scratch));
            }
        }
    }
}

/// What a read copied out of the store: a live task's projection, or a frozen task's bytes, to
/// decode once the lock is released.
// Short-lived (a page at most): boxing the task would cost an allocation per read.
#[allow(clippy::large_enum_variant)]
enum Copied {
    Task(Task),
    Frozen(Vec<u8>),
}

impl Copied {
    fn of(entry: &Entry, slabs: &Slabs, view: TaskView) -> Self {
        match &entry.body {
            Body::Live(live) => Copied::Task(view.project(&live.task)),
            Body::Frozen(frozen) => Copied::Frozen(slabs.get(*frozen).to_vec()),
        }
    }

    /// The task, whose id is `id` (a frozen task's bytes leave it out).
    fn into_task(self, view: TaskView, id: &str) -> Result<Task> {
        match self {
            Copied::Task(task) => Ok(task),
            Copied::Frozen(bytes) => {
                let mut task = frozen::decode(&bytes, id)
                    .ok_or_else(|| Error::internal("a stored task could not be decoded"))?;
                view.trim(&mut task);
                Ok(task)
            }
        }
    }
}

impl InMemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many tasks are stored.
    pub fn len(&self) -> usize {
        self.inner.read().expect("task store lock").shards.iter().map(Map::len).sum()
    }

    /// Whether no task is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many stored tasks are frozen (terminal and out of the hot window).
    pub fn frozen_len(&self) -> usize {
        let inner = self.inner.read().expect("task store lock");
        inner.shards.iter().flat_map(Map::values).filter(|e| matches!(e.body, Body::Frozen(_))).count()
    }
}

impl InMemoryTaskStore {
    /// Stores a new task at `seq` (`TaskStore::create` is `seq` 1).
    fn insert(&self, scope: &Scope, task: Task, seq: u64) -> Result<()> {
        let mut inner = self.inner.write().expect("task store lock");
        let shard = shard_of(&task.id);
        let id = Id::from(task.id.as_str());
        let context = Id::from(task.context_id.as_str());
        let key = Key::of(&task, Arc::clone(&id));
        let state = state_of(&task);
        let scope = inner.scope_id(scope);
        let live = Live { task, id: Arc::clone(&id), context: Arc::clone(&context) };
        let entry = Entry { updated_ms: key.updated_ms, seq, state, scope, body: Body::Live(Box::new(live)) };
        // One probe of the table (a cache miss once it holds many tasks), not a lookup then an insert.
        match inner.shards[shard].entry(Arc::clone(&id)) {
            Slot::Occupied(_) => {
                return Err(Error::internal(format!("task {id} already exists")));
            }
            Slot::Vacant(vacant) => {
                vacant.insert(entry);
            }
        }
        inner.scopes[scope as usize].1.insert(&key, state, &context);
        if is_terminal(state) {
            inner.hot.push_back(id);
            inner.freeze_cold();
        }
        Ok(())
    }

    /// `TaskStore::apply`, synchronous.
    fn apply_one(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
        let mut inner = self.inner.write().expect("task store lock");
        let (finished, seq) = {
            let Tasks { shards, scopes, .. } = &mut *inner;
            let shard = &mut shards[shard_of(task_id)];
            let Some((id, _)) = shard.get_key_value(task_id) else {
                return Err(Error::TaskNotFound { task_id: task_id.into() });
            };
            let id = Arc::clone(id);
            let entry = shard.get_mut(task_id).expect("found above");
            let current = TaskState::try_from(entry.state).unwrap_or(TaskState::Unspecified);
            check_mutation(task_id, current, &mutation)?;
            if is_event(&mutation) {
                entry.seq += 1;
            }
            let seq = entry.seq;
            // Only finished tasks are frozen, and check_mutation refused any change to them above.
            let Body::Live(live) = &mut entry.body else {
                return Err(Error::internal(format!("task {task_id} is frozen but not finished")));
            };
            if let TaskMutation::Status(_) = mutation {
                // The sort key and the state index change: reindex around the mutation.
                let index = &mut scopes[entry.scope as usize].1;
                let old = Key { updated_ms: entry.updated_ms, id: Arc::clone(&live.id) };
                index.remove(&old, entry.state, &live.context);
                apply_mutation(&mut live.task, mutation);
                let key = Key::of(&live.task, Arc::clone(&live.id));
                entry.updated_ms = key.updated_ms;
                entry.state = state_of(&live.task);
                index.insert(&key, entry.state, &live.context);
                (is_terminal(entry.state).then_some(id), seq)
            } else {
                apply_mutation(&mut live.task, mutation);
                (None, seq)
            }
        };
        if let Some(id) = finished {
            inner.hot.push_back(id);
            inner.freeze_cold();
        }
        Ok(seq)
    }
}

#[async_trait]
impl TaskStore for InMemoryTaskStore {
    async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
        self.insert(scope, task.clone(), 1)
    }

    async fn create_with_burst(&self, scope: &Scope, task: &Task, burst: Burst<'_>) -> Result<u64> {
        refuse_notifications(burst.notify)?;
        let (folded, seq) = fold_new_task(task, burst.changes)?;
        self.insert(scope, folded, seq)?;
        Ok(seq)
    }

    async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
        self.apply_one(task_id, mutation)
    }

    async fn apply_burst(&self, _scope: &Scope, task_id: &str, burst: Burst<'_>) -> Result<u64> {
        let changes = burst.changes;
        refuse_notifications(burst.notify)?;
        {
            let inner = self.inner.read().expect("task store lock");
            let entry =
                inner.entry(task_id).ok_or_else(|| Error::TaskNotFound { task_id: task_id.into() })?;
            let current = TaskState::try_from(entry.state).unwrap_or(TaskState::Unspecified);
            check_all(task_id, current, changes)?;
        }
        // The handler writes a task from one runtime at a time: the chain checked above still holds.
        let mut seq = 0;
        for change in changes {
            seq = self.apply_one(task_id, *change)?;
        }
        Ok(seq)
    }

    async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>> {
        let (copied, seq) = {
            let inner = self.inner.read().expect("task store lock");
            let Some(entry) = inner.entry(task_id) else { return Ok(None) };
            if !scope.sees(&inner.scopes[entry.scope as usize].0) {
                return Ok(None);
            }
            (Copied::of(entry, &inner.slabs, view), entry.seq)
        };
        Ok(Some(StoredTask { task: copied.into_task(view, task_id)?, seq }))
    }

    async fn running(&self) -> Result<Vec<(Scope, String)>> {
        let inner = self.inner.read().expect("task store lock");
        Ok(inner
            .shards
            .iter()
            .flat_map(|shard| shard.iter())
            .filter(|(_, entry)| TaskState::try_from(entry.state).is_ok_and(TaskState::is_running))
            .map(|(id, entry)| (inner.scopes[entry.scope as usize].0.clone(), id.to_string()))
            .collect())
    }

    async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
        let (copied, next, total_size) = {
            let inner = self.inner.read().expect("task store lock");
            // Tasks of the caller's scope plus, for an authenticated caller, the tenant's unowned ones.
            let mut sources: Vec<&ScopeIndex> = Vec::new();
            if let Some(id) = inner.scope_ids.get(scope) {
                sources.push(&inner.scopes[*id as usize].1);
            }
            if scope.owner.is_some() {
                let shared = Scope { tenant: scope.tenant.clone(), owner: None };
                if let Some(id) = inner.scope_ids.get(&shared) {
                    sources.push(&inner.scopes[*id as usize].1);
                }
            }
            let matches = |key: &Key| -> bool {
                let Some(entry) = inner.entry(&key.id) else { return false };
                query.state.is_none_or(|s| entry.state == s as i32)
                    && query.updated_at_or_after_ms.is_none_or(|t| key.updated_ms >= t)
            };
            // A single source with at most one filter that an index answers exactly has a known size.
            let total_size =
                match (sources.as_slice(), &query.context_id, query.state, query.updated_at_or_after_ms) {
                    ([index], None, None, None) => index.all.len(),
                    ([index], None, Some(state), None) => {
                        index.by_state.get(&(state as i32)).map_or(0, BTreeSet::len)
                    }
                    _ => sources
                        .iter()
                        .map(|index| index.candidates(query, None).filter(|k| matches(k)).count())
                        .sum(),
                };

            // Merge the (usually one) descending iterators.
            let after = query.after.as_ref().map(Key::after);
            let mut iterators: Vec<_> = sources
                .iter()
                .map(|index| index.candidates(query, after.as_ref()).rev().filter(|k| matches(k)).peekable())
                .collect();
            let mut keys: Vec<&Key> = Vec::with_capacity(query.page_size + 1);
            while keys.len() <= query.page_size {
                let next = iterators
                    .iter_mut()
                    .enumerate()
                    .filter_map(|(i, it)| it.peek().map(|k| (i, *k)))
                    .max_by(|a, b| a.1.cmp(b.1));
                let Some((i, _)) = next else { break };
                keys.push(iterators[i].next().expect("peeked"));
            }
            let more = keys.len() > query.page_size;
            keys.truncate(query.page_size);
            let next = if more { keys.last().map(|k| k.cursor()) } else { None };
            let copied: Vec<(Id, Copied)> = keys
                .iter()
                .filter_map(|k| Some((Arc::clone(&k.id), inner.entry(&k.id)?)))
                .map(|(id, entry)| (id, Copied::of(entry, &inner.slabs, query.view)))
                .collect();
            (copied, next, total_size)
        };
        let tasks = copied.into_iter().map(|(id, c)| c.into_task(query.view, &id)).collect::<Result<_>>()?;
        Ok(TaskPage { tasks, next, total_size })
    }
}

/// The frozen form of a finished task: its protobuf encoding (prost), about a tenth of the memory
/// of the decoded structs for a small task, without the ids the store holds anyway. Decoding it
/// back is exact: every field of the generated types round-trips through protobuf, and the ids
/// left out are put back.
///
/// Left out: the task's id (the store's key, which every read has), and in each message (the
/// history's and the status's) the task and context ids where they are the task's own, as the
/// handler stores them: 114 of an echo task's 268 bytes. An empty id there is written as `"\0"`,
/// and one that starts with `'\0'` gets another in front, so that a left-out id (written as
/// nothing) is told from every other value.
mod frozen {
    use a2a_proto::v1::{Message, Task};
    use prost::Message as _;

    /// Encodes a task.
    #[cfg(test)]
    pub(super) fn encode(task: &Task) -> Vec<u8> {
        let mut out = Vec::new();
        encode_into(task.clone(), &mut out);
        out
    }

    /// Encodes a task at the end of `out`.
    pub(super) fn encode_into(mut task: Task, out: &mut Vec<u8>) {
        let id = std::mem::take(&mut task.id);
        let Task { context_id, history, status, .. } = &mut task;
        for message in messages(history, status) {
            leave_out(&mut message.task_id, &id);
            leave_out(&mut message.context_id, context_id);
        }
        // `encode_raw`, not `encode`: `encode` first walks the whole task for its encoded length,
        // only to compare it with the room left in the buffer, and a `Vec` grows as needed (the
        // nested messages' lengths are still computed where their prefixes need them). The bytes
        // are the same: `encode` is this call after that check.
        task.encode_raw(out);
    }

    /// Decodes what [`encode_into`] wrote for the task `id`; `None` if the bytes are not a task's
    /// encoding.
    pub(super) fn decode(bytes: &[u8], id: &str) -> Option<Task> {
        let mut task = Task::decode(bytes).ok()?;
        id.clone_into(&mut task.id);
        let Task { id, context_id, history, status, .. } = &mut task;
        for message in messages(history, status) {
            put_back(&mut message.task_id, id);
            put_back(&mut message.context_id, context_id);
        }
        Some(task)
    }

    fn messages<'a>(
        history: &'a mut [Message],
        status: &'a mut Option<a2a_proto::v1::TaskStatus>,
    ) -> impl Iterator<Item = &'a mut Message> {
        history.iter_mut().chain(status.as_mut().and_then(|status| status.message.as_mut()))
    }

    fn leave_out(value: &mut String, task_s: &str) {
        if value == task_s {
            value.clear();
        } else if value.is_empty() || value.starts_with('\0') {
            value.insert(0, '\0');
        }
    }

    fn put_back(value: &mut String, task_s: &str) {
        if value.is_empty() {
            value.push_str(task_s);
        } else if value.starts_with('\0') {
            value.remove(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{Message, TaskState, TaskStatus};
    use a2a_proto::Timestamp;

    fn task(id: &str, context: &str, state: TaskState, ms: i64) -> Task {
        Task {
            id: id.into(),
            context_id: context.into(),
            status: Some(TaskStatus {
                state: state.into(),
                message: None,
                timestamp: Some(Timestamp { seconds: ms / 1000, nanos: ((ms % 1000) * 1_000_000) as i32 }),
            }),
            ..Default::default()
        }
    }

    fn query(page_size: usize) -> TaskQuery {
        TaskQuery {
            context_id: None,
            state: None,
            updated_at_or_after_ms: None,
            page_size,
            after: None,
            view: TaskView::FULL,
        }
    }

    #[tokio::test]
    async fn it_keeps_the_store_contract() {
        crate::store::testing::task_store_suite(&InMemoryTaskStore::new()).await;
    }

    #[tokio::test]
    async fn it_keeps_the_contract_with_frozen_tasks() {
        // Fill the hot window so that the suite's finished tasks are frozen.
        let store = InMemoryTaskStore::new();
        for i in 0..HOT_TERMINAL as i64 {
            store.create(&Scope::default(), &echo_task(&format!("filler{i}"), i)).await.unwrap();
        }
        crate::store::testing::task_store_suite(&store).await;
        assert!(store.frozen_len() > 0);
    }

    fn ids(page: &TaskPage) -> Vec<&str> {
        page.tasks.iter().map(|t| t.id.as_str()).collect()
    }

    fn echo_task(id: &str, ms: i64) -> Task {
        let mut t = task(id, &a2a_proto::new_id(), TaskState::Completed, ms);
        t.artifacts
            .push(a2a_proto::v1::Artifact::new(vec![a2a_proto::v1::Part::text("hello")]).with_name("echo"));
        t.history
            .push(a2a_proto::v1::Message::user_text("hello").with_task_id(id).with_context_id(&t.context_id));
        t
    }

    /// A task using every field the frozen form must keep: the contract suite's, finished (only
    /// finished tasks freeze), with a timestamp before the epoch.
    fn rich_task() -> Task {
        let mut rich = crate::store::testing::rich_task("0b7d9b1e-3c7a-4f3e-9d0a-1f2e3d4c5b6a");
        let status = rich.status.as_mut().expect("the suite's task has a status");
        status.state = TaskState::Completed.into();
        status.timestamp = Some(Timestamp { seconds: -62_135_596_800, nanos: 999_999_999 });
        rich
    }

    /// A frozen task read back as the store reads it.
    fn thawed(task: &Task) -> Task {
        frozen::decode(&frozen::encode(task), &task.id).expect("decodes")
    }

    #[test]
    fn the_frozen_form_keeps_every_field() {
        let rich = rich_task();
        assert_eq!(thawed(&rich), rich);
        let mut nan = Task { id: "nan".into(), ..Task::default() };
        let value = pbjson_types::Value { kind: Some(pbjson_types::value::Kind::NumberValue(f64::NAN)) };
        nan.metadata = Some(pbjson_types::Struct { fields: [("nan".to_owned(), value)].into() });
        let back = thawed(&nan);
        let number = &back.metadata.unwrap().fields["nan"];
        assert!(matches!(number.kind, Some(pbjson_types::value::Kind::NumberValue(n)) if n.is_nan()));
        let empty = Task::default();
        assert_eq!(thawed(&empty), empty);
        let echo = echo_task(&a2a_proto::new_id(), 1);
        assert_eq!(thawed(&echo), echo);
    }

    #[test]
    fn the_ids_left_out_come_back_exactly() {
        // Each message's ids against the task's: the same (left out), other ids, empty ones, and
        // ones that start with the escape character, in the history and in the status.
        let values = ["", "\0", "\0\0", "\0t", "t", "c", "other", "t\0"];
        for (task_id, context_id) in [("t", "c"), ("t", ""), ("\0t", "\0")] {
            for message_task in values {
                for message_context in values {
                    let message =
                        Message::user_text("hi").with_task_id(message_task).with_context_id(message_context);
                    let mut task = echo_task(task_id, 1);
                    task.context_id = context_id.into();
                    task.history = vec![message.clone(), message.clone().with_task_id(task_id)];
                    task.status.as_mut().unwrap().message = Some(message);
                    assert_eq!(
                        thawed(&task),
                        task,
                        "{task_id:?} {context_id:?} {message_task:?} {message_context:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn encode_into_appends_to_what_the_buffer_holds() {
        for task in [rich_task(), Task::default(), echo_task(&a2a_proto::new_id(), 1)] {
            let mut out = b"before".to_vec();
            frozen::encode_into(task.clone(), &mut out);
            assert_eq!(&out[..6], b"before");
            assert_eq!(out[6..], frozen::encode(&task)[..]);
            assert_eq!(frozen::decode(&out[6..], &task.id).unwrap(), task);
        }
    }

    #[test]
    fn a_small_echo_task_freezes_into_under_160_bytes() {
        // Its protobuf encoding is 268 bytes, 114 of them the ids the store holds anyway.
        let echo = echo_task(&a2a_proto::new_id(), 1);
        let bytes = frozen::encode(&echo);
        assert!(bytes.len() < 160, "{} bytes", bytes.len());
        assert!(prost::Message::encoded_len(&echo) > 260);
    }

    #[test]
    fn bytes_that_are_not_a_task_are_refused() {
        assert!(frozen::decode(&[0xff, 0xff, 0xff], "t").is_none());
        let bytes = frozen::encode(&rich_task());
        assert!(frozen::decode(&bytes[..bytes.len() - 1], "t").is_none(), "truncated inside a field");
    }

    #[tokio::test]
    async fn finished_tasks_beyond_the_hot_window_are_frozen_and_read_back_unchanged() {
        let store = InMemoryTaskStore::new();
        let scope = Scope::default();
        let mut rich = rich_task();
        rich.status.as_mut().unwrap().timestamp = Some(Timestamp { seconds: 0, nanos: 0 });
        store.create(&scope, &rich).await.unwrap();
        for i in 0..HOT_TERMINAL as i64 {
            store.create(&scope, &echo_task(&format!("t{i}"), 1000 + i)).await.unwrap();
        }
        assert_eq!(store.frozen_len(), 1, "only the oldest finished task left the hot window");
        let got = store.get(&scope, &rich.id, TaskView::FULL).await.unwrap().unwrap().task;
        assert_eq!(got, rich);
        let view = TaskView { history_length: Some(1), include_artifacts: false };
        let got = store.get(&scope, &rich.id, view).await.unwrap().unwrap().task;
        assert_eq!((got.history.len(), got.artifacts.len()), (1, 0));
        assert_eq!(got.history[0], Message::default());
        // Every task, frozen or not, is listed in order.
        let page = store
            .list(
                &scope,
                &TaskQuery { after: Some(Cursor { updated_ms: 1000, task_id: "t0".into() }), ..query(10) },
            )
            .await
            .unwrap();
        assert_eq!(ids(&page), [rich.id.as_str()]);
    }

    #[tokio::test]
    async fn a_frozen_task_refuses_changes_like_any_finished_task() {
        let store = InMemoryTaskStore::new();
        let scope = Scope::default();
        let old = echo_task("old", 1);
        store.create(&scope, &old).await.unwrap();
        for i in 0..HOT_TERMINAL as i64 {
            store.create(&scope, &echo_task(&format!("t{i}"), 1000 + i)).await.unwrap();
        }
        assert_eq!(store.frozen_len(), 1);
        let note = Message::user_text("after the fact");
        let error = store.apply("old", TaskMutation::History(&note)).await.unwrap_err();
        assert!(matches!(error, Error::UnsupportedOperation { .. }), "{error}");
        let got = store.get(&scope, "old", TaskView::FULL).await.unwrap().unwrap().task;
        assert_eq!(got, old);
        assert_eq!(store.frozen_len(), 1);
    }

    /// A store written before `Burst`: it overrides the deprecated two-part methods only, and
    /// counts the calls that reach them.
    struct Legacy {
        inner: InMemoryTaskStore,
        calls: std::sync::atomic::AtomicUsize,
    }

    #[async_trait]
    #[allow(deprecated)]
    impl TaskStore for Legacy {
        async fn create(&self, scope: &Scope, task: &Task) -> Result<()> {
            self.inner.create(scope, task).await
        }

        async fn create_and_apply_all(
            &self,
            scope: &Scope,
            task: &Task,
            changes: &[TaskMutation<'_>],
            notify: &[crate::push::Notification],
        ) -> Result<u64> {
            self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.create_with_burst(scope, task, Burst::new(changes).notifying(notify)).await
        }

        async fn apply_all(
            &self,
            scope: &Scope,
            task_id: &str,
            changes: &[TaskMutation<'_>],
            notify: &[crate::push::Notification],
        ) -> Result<u64> {
            self.calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.inner.apply_burst(scope, task_id, Burst::new(changes).notifying(notify)).await
        }

        async fn apply(&self, task_id: &str, mutation: TaskMutation<'_>) -> Result<u64> {
            self.inner.apply(task_id, mutation).await
        }

        async fn get(&self, scope: &Scope, task_id: &str, view: TaskView) -> Result<Option<StoredTask>> {
            self.inner.get(scope, task_id, view).await
        }

        async fn list(&self, scope: &Scope, query: &TaskQuery) -> Result<TaskPage> {
            self.inner.list(scope, query).await
        }

        async fn running(&self) -> Result<Vec<(Scope, String)>> {
            self.inner.running().await
        }
    }

    /// The deprecation path of `create_and_apply_all` and `apply_all` (CHANGELOG): a store that
    /// still overrides them gets every burst the handler writes through the new methods.
    #[tokio::test]
    async fn a_store_written_before_bursts_still_writes_each_burst_itself() {
        let store = Legacy { inner: InMemoryTaskStore::new(), calls: 0.into() };
        let scope = Scope::default();
        let working = TaskStatus { state: TaskState::Working.into(), ..Default::default() };
        let done = TaskStatus { state: TaskState::Completed.into(), ..Default::default() };
        let first = [TaskMutation::Status(&working)];
        let new = task("t", "c", TaskState::Submitted, 1);
        assert_eq!(store.create_with_burst(&scope, &new, Burst::new(&first)).await.unwrap(), 2);
        let then = [TaskMutation::Status(&done)];
        assert_eq!(store.apply_burst(&scope, "t", Burst::new(&then)).await.unwrap(), 3);
        assert_eq!(store.calls.load(std::sync::atomic::Ordering::Relaxed), 2, "both bursts reached it");
        let stored = store.get(&scope, "t", TaskView::FULL).await.unwrap().unwrap();
        assert_eq!(stored.task.state(), TaskState::Completed);
    }
}
