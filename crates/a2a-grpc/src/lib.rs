//! The A2A grpc binding (work in progress).
