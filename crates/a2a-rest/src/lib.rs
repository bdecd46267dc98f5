//! The A2A rest binding (work in progress).
