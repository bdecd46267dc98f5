//! Integration tests of the 0.3 ⇄ 1.0 translation (one binary, modules by topic).
//!
//! - `spec_examples`: every JSON example of the 0.3 specification parses and translates.
//! - `schema`: everything written in the JSON form validates against the 0.3 JSON Schema, and
//!   everything written in ProtoJSON parses as the 0.3 proto (unknown fields denied).
//! - `round_trip`: 0.3 → 1.0 → 0.3 and 1.0 → 0.3 → 1.0, equal modulo the documented corners.
//! - `interop`: what peers send that the spec does not say (docs/interop-notes.md).
//! - `service`: `Request::call` against a real 1.0 handler, JSON-RPC and HTTP+JSON forms.

mod corpus;
mod interop;
mod round_trip;
mod schema;
mod service;
mod spec_examples;
mod support;
