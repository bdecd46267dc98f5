//! The A2A 0.3 translation (`a2a-v03`), both directions. The first byte picks the direction:
//!
//! - 0: a 0.3 JSON-RPC call (next byte: the method; rest: `params` JSON) read by
//!   `V03Request::from_jsonrpc`, as the JSON-RPC server reads it;
//! - 1: a 0.3 object in JSON (next byte: which; rest: JSON) read by `V03::from_v03`, as the
//!   clients read replies and events;
//! - 2: a 0.3 protobuf message (next byte: which; rest: bytes) read by
//!   `ProtoV03::from_v03_proto`, as the 0.3 gRPC service and client read them;
//! - 3: a 0.3 HTTP+JSON call (`METHOD /v1/path?query` line, rest: body JSON) read by
//!   `rest::route`, as the REST server reads it.
//!
//! Checks: no panic, no hang; reading what was written gives the same value (a request's 0.3
//! JSON-RPC params, its HTTP+JSON call, an object's 0.3 JSON and ProtoJSON forms), and a read
//! value can be written back as its 0.3 protobuf message.

#![no_main]

use std::fmt::Debug;

use a2a_fuzz::Input;
use a2a_proto::v1;
use a2a_v03::{Form, Method, ProtoV03, Request, V03Request};
use libfuzzer_sys::fuzz_target;
use prost::Message as _;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    match input.byte() % 4 {
        0 => jsonrpc(input),
        1 => object(input),
        2 => proto(input),
        _ => rest(input),
    }
});

fn jsonrpc(mut input: Input<'_>) {
    let method = Method::ALL[usize::from(input.byte()) % Method::ALL.len()];
    let params = match input.rest() {
        [] => None,
        json => match serde_json::from_slice::<Value>(json) {
            Ok(value) => Some(value),
            Err(_) => return,
        },
    };
    let Ok(first) = Request::from_jsonrpc(method, params.as_ref()) else { return };
    // The first writing may normalize what 0.3 cannot say (a missing role is written `agent`, the
    // crate's table of lossy corners); from then on nothing may change.
    let reread = |request: &Request| {
        let written = request.to_jsonrpc_params();
        Request::from_jsonrpc(method, written.as_ref())
            .unwrap_or_else(|e| panic!("{method:?}: our own params {written:?} do not read: {e}"))
    };
    let second = reread(&first);
    assert_eq!(
        reread(&second),
        second,
        "{method:?}: a round trip through the 0.3 params changed the request"
    );
}

fn object(mut input: Input<'_>) {
    let pick = input.byte();
    let Ok(value) = serde_json::from_slice::<Value>(input.rest()) else { return };
    match pick % 10 {
        0 => read_write::<v1::Message>(&value),
        1 => read_write::<v1::Part>(&value),
        2 => read_write::<v1::Task>(&value),
        3 => read_write::<v1::StreamResponse>(&value),
        4 => read_write::<v1::SendMessageResponse>(&value),
        5 => read_write::<v1::TaskPushNotificationConfig>(&value),
        6 => read_write::<v1::ListTaskPushNotificationConfigsResponse>(&value),
        7 => read_write::<v1::AgentCard>(&value),
        8 => read_write::<v1::SendMessageRequest>(&value),
        _ => read_write::<v1::TaskArtifactUpdateEvent>(&value),
    }
}

/// Reads `value`; what reads must write as both forms, read back from each the same (after the
/// first reading the value is in 1.0 terms, so nothing more may be lost), and become its 0.3
/// protobuf message.
fn read_write<T: ProtoV03 + PartialEq + Debug>(value: &Value) {
    let Ok(first) = T::from_v03(value) else { return };
    for form in [Form::Json, Form::ProtoJson] {
        let written = first.to_v03(form);
        let read =
            T::from_v03(&written).unwrap_or_else(|e| panic!("our own {form:?} {written} does not read: {e}"));
        let again = T::from_v03(&read.to_v03(form)).expect("a second round trip reads");
        assert_eq!(again, read, "{form:?} round trips disagree: {written}");
    }
    first.to_v03_proto().unwrap_or_else(|e| panic!("{first:?} is no 0.3 protobuf message: {e}"));
}

fn proto(mut input: Input<'_>) {
    let pick = input.byte();
    let bytes = input.rest();
    match pick % 8 {
        0 => from_proto::<v1::SendMessageRequest>(bytes),
        1 => from_proto::<v1::GetTaskRequest>(bytes),
        2 => from_proto::<v1::CancelTaskRequest>(bytes),
        3 => from_proto::<v1::SubscribeToTaskRequest>(bytes),
        4 => from_proto::<v1::TaskPushNotificationConfig>(bytes),
        5 => from_proto::<v1::StreamResponse>(bytes),
        6 => from_proto::<v1::Task>(bytes),
        _ => {
            let Ok(request) = a2a_proto::v0_3::CreateTaskPushNotificationConfigRequest::decode(bytes) else {
                return;
            };
            let _ = a2a_v03::proto::create_request_from_proto(&request);
        }
    }
}

/// Decodes the 0.3 message and reads it; what reads writes back as a 0.3 message.
fn from_proto<T: ProtoV03 + Debug>(bytes: &[u8]) {
    let Ok(message) = T::Proto::decode(bytes) else { return };
    let Ok(value) = T::from_v03_proto(&message) else { return };
    value.to_v03_proto().unwrap_or_else(|e| panic!("{value:?} is no 0.3 protobuf message: {e}"));
}

fn rest(mut input: Input<'_>) {
    let line = input.line();
    let Ok(line) = std::str::from_utf8(line) else { return };
    let (method, target) = line.split_once(' ').unwrap_or(("GET", line));
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    let body = match input.rest() {
        [] => None,
        json => match serde_json::from_slice::<Value>(json) {
            Ok(value) => Some(value),
            Err(_) => return,
        },
    };
    let Ok(first) = a2a_v03::rest::route(method, path, query, body.as_ref()) else { return };
    // An id no path can carry (empty, `.`, `..`) has no call: fine, the client refuses it.
    // The first writing may normalize (no `configuration` is written as `{"blocking": true}`,
    // which reads as the default configuration); from then on nothing may change.
    let reroute = |request: &Request| {
        let call = a2a_v03::rest::http_call(request).ok()?;
        let again = a2a_v03::rest::route(call.method, &call.path, call.query.as_deref(), call.body.as_ref())
            .unwrap_or_else(|e| panic!("our own call {call:?} does not route: {e}"));
        Some(again)
    };
    let Some(second) = reroute(&first) else { return };
    let third = reroute(&second).expect("a request that made a call makes it again");
    assert_eq!(third, second, "a round trip through the HTTP+JSON call changed the request");
}
