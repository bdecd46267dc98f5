//! What the tests of the bindings (and of the reference server) share, in one place (issue 17):
//!
//! - [`Scripted`]: an [`A2aService`](a2a_core::A2aService) that answers every operation with
//!   canned values ([`Answers`], overridable per test suite), records every call with its
//!   [`CallContext`](a2a_core::CallContext) and its request as ProtoJSON ([`Call`]), and fails on
//!   demand: a chosen error before any answer, a stream that fails after N events, a stream that
//!   hangs after its first event.
//! - [`fixtures`]: the canned tasks, events, messages, push configs and agent cards.
//! - [`TestServer`]: an axum router served on `127.0.0.1` port 0, stopped on demand or on drop.
//! - [`pki`]: a CA, server and client certificates made in the test (mutual TLS tests).
//! - [`assert_same_error`], [`assert_json_eq`]: comparisons for types without `PartialEq` and
//!   readable JSON diffs.
//!
//! Tests only: a dev-dependency of the crates whose tests use it, never a dependency of a
//! production crate (`publish = false`). What is specific to one binding's wire (raw HTTP or gRPC
//! helpers, error tables) stays in that binding's `tests/`.

pub mod fixtures;
pub mod pki;
mod scripted;
mod server;

pub use scripted::{events, hang_after, Answers, Call, DefaultAnswers, Scripted};
pub use server::TestServer;

use a2a_core::Error;
use serde_json::Value;

/// Errors compare by their `Debug` form (core's `Error` is neither `PartialEq` nor `Clone`).
#[track_caller]
pub fn assert_same_error(got: &Error, expected: &Error) {
    assert_eq!(format!("{got:?}"), format!("{expected:?}"));
}

/// `assert_eq!` for JSON, with both sides pretty-printed on failure.
#[track_caller]
pub fn assert_json_eq(got: &Value, expected: &Value) {
    if got != expected {
        panic!(
            "JSON differs\n--- expected\n{}\n--- got\n{}",
            serde_json::to_string_pretty(expected).unwrap(),
            serde_json::to_string_pretty(got).unwrap()
        );
    }
}
