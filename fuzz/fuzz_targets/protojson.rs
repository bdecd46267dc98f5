//! ProtoJSON decoding (`a2a_proto::json::from_slice`, what every JSON binding reads bodies and
//! `params` with) of every 1.0 request message and of the replies clients read. The first byte
//! picks the message, the rest is the JSON.
//!
//! Checks: no panic, no hang; whatever decodes writes back (`a2a_proto::json::to_vec`) and
//! decodes to the same message (ProtoJSON round trip), and survives the protobuf encoding too.

#![no_main]

use a2a_fuzz::Input;
use a2a_proto::v1::{
    AgentCard, CancelTaskRequest, DeleteTaskPushNotificationConfigRequest, GetExtendedAgentCardRequest,
    GetTaskPushNotificationConfigRequest, GetTaskRequest, ListTaskPushNotificationConfigsRequest,
    ListTaskPushNotificationConfigsResponse, ListTasksRequest, ListTasksResponse, SendMessageRequest,
    SendMessageResponse, StreamResponse, SubscribeToTaskRequest, Task, TaskPushNotificationConfig,
};
use libfuzzer_sys::fuzz_target;
use prost::Message;
use serde::de::DeserializeOwned;
use serde::Serialize;

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let pick = input.byte();
    let json = input.rest();
    match pick % 16 {
        0 => round_trip::<SendMessageRequest>(json),
        1 => round_trip::<GetTaskRequest>(json),
        2 => round_trip::<ListTasksRequest>(json),
        3 => round_trip::<CancelTaskRequest>(json),
        4 => round_trip::<SubscribeToTaskRequest>(json),
        5 => round_trip::<TaskPushNotificationConfig>(json),
        6 => round_trip::<GetTaskPushNotificationConfigRequest>(json),
        7 => round_trip::<ListTaskPushNotificationConfigsRequest>(json),
        8 => round_trip::<DeleteTaskPushNotificationConfigRequest>(json),
        9 => round_trip::<GetExtendedAgentCardRequest>(json),
        10 => round_trip::<SendMessageResponse>(json),
        11 => round_trip::<StreamResponse>(json),
        12 => round_trip::<Task>(json),
        13 => round_trip::<ListTasksResponse>(json),
        14 => round_trip::<ListTaskPushNotificationConfigsResponse>(json),
        _ => round_trip::<AgentCard>(json),
    }
});

fn round_trip<T>(json: &[u8])
where
    T: DeserializeOwned + Serialize + prost::Name + Message + Default + PartialEq + std::fmt::Debug,
{
    let Ok(message) = a2a_proto::json::from_slice::<T>(json) else { return };
    let written = a2a_proto::json::to_vec(&message)
        .unwrap_or_else(|e| panic!("{} decoded but cannot be written: {e}: {message:?}", T::NAME));
    let again = a2a_proto::json::from_slice::<T>(&written).unwrap_or_else(|e| {
        panic!("{} written as {} does not decode: {e}", T::NAME, String::from_utf8_lossy(&written))
    });
    assert_eq!(again, message, "{} changed in a ProtoJSON round trip", T::NAME);
    let decoded = T::decode(message.encode_to_vec().as_slice())
        .unwrap_or_else(|e| panic!("{} does not decode from its own protobuf encoding: {e}", T::NAME));
    assert_eq!(decoded, message, "{} changed in a protobuf round trip", T::NAME);
}
