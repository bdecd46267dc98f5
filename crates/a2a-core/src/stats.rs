//! Process-wide counters of what task runtimes do that no single call sees, for an operator's
//! metrics: how often a subscriber fell behind and was resynchronised from a snapshot (the
//! fan-out policy of the execution module: a subscriber more than the ring behind, or one whose
//! runtime abandoned a write, reads a fresh `Task` instead of the events it missed).
//!
//! Plain relaxed atomics, bumped only on the resync path (never per event). They count for every
//! handler of the process together, like a global allocator's statistics: per-handler plumbing
//! through every runtime would cost more than the figure is worth.

use std::sync::atomic::{AtomicU64, Ordering};

static RESYNCS: AtomicU64 = AtomicU64::new(0);
static LAGGED_EVENTS: AtomicU64 = AtomicU64::new(0);

/// What subscribers of task runtimes have needed so far, in this process.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubscriberStats {
    /// Resynchronisations: a subscriber received a `Task` snapshot in place of events it could
    /// not be given (it lagged more than the ring, or a write was abandoned half-way).
    pub resyncs: u64,
    /// Events subscribers missed by lagging, all of them made up for by those snapshots.
    pub lagged_events: u64,
}

/// The counters so far.
pub fn subscriber_stats() -> SubscriberStats {
    SubscriberStats {
        resyncs: RESYNCS.load(Ordering::Relaxed),
        lagged_events: LAGGED_EVENTS.load(Ordering::Relaxed),
    }
}

/// Counts one resync, after `lagged` events were missed (0: an abandoned write).
pub(crate) fn record_resync(lagged: u64) {
    RESYNCS.fetch_add(1, Ordering::Relaxed);
    if lagged > 0 {
        LAGGED_EVENTS.fetch_add(lagged, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resync_counts_once_with_the_events_it_made_up_for() {
        // Other tests of this process may resync meanwhile: compare lower bounds only.
        let before = subscriber_stats();
        record_resync(5);
        record_resync(0);
        let after = subscriber_stats();
        assert!(after.resyncs >= before.resyncs + 2);
        assert!(after.lagged_events >= before.lagged_events + 5);
    }
}
