//! The A2A jsonrpc binding (work in progress).
