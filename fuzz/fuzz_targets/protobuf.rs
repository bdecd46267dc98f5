//! Protobuf decoding (prost, as tonic's codec decodes requests) of every 1.0 request message,
//! then the gRPC binding's server (`a2a_grpc::GrpcService`) handing it to the echo agent. The
//! first byte picks the operation, the rest is the encoded message.
//!
//! Checks: no panic, no hang; whatever decodes encodes back to the same message; the call answers
//! a reply or a status that is no server fault (never INTERNAL, UNKNOWN or DATA_LOSS), streams
//! included.

#![no_main]

use std::fmt::Debug;

use a2a_fuzz::{block_on, service, Input};
use a2a_grpc::GrpcService;
use a2a_proto::v1::grpc::a2a_service_server::A2aService as _;
use futures::StreamExt as _;
use libfuzzer_sys::fuzz_target;
use prost::Message;
use tonic::{Code, Request, Status};

fuzz_target!(|data: &[u8]| {
    let mut input = Input(data);
    let pick = input.byte();
    let bytes = input.rest();
    let grpc = GrpcService::new(service());
    block_on(async move {
        match pick % 11 {
            0 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.send_message(request(r)).await);
            }
            1 => {
                let Some(r) = decode(bytes) else { return };
                stream(grpc.send_streaming_message(request(r)).await).await;
            }
            2 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.get_task(request(r)).await);
            }
            3 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.list_tasks(request(r)).await);
            }
            4 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.cancel_task(request(r)).await);
            }
            5 => {
                let Some(r) = decode(bytes) else { return };
                stream(grpc.subscribe_to_task(request(r)).await).await;
            }
            6 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.create_task_push_notification_config(request(r)).await);
            }
            7 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.get_task_push_notification_config(request(r)).await);
            }
            8 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.list_task_push_notification_configs(request(r)).await);
            }
            9 => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.delete_task_push_notification_config(request(r)).await);
            }
            _ => {
                let Some(r) = decode(bytes) else { return };
                check(grpc.get_extended_agent_card(request(r)).await);
            }
        }
    });
});

/// The message, if the bytes are one; it must survive its own encoding.
fn decode<T: Message + Default + PartialEq + Debug>(bytes: &[u8]) -> Option<T> {
    let message = T::decode(bytes).ok()?;
    let again = T::decode(message.encode_to_vec().as_slice()).expect("a decoded message re-decodes");
    assert_eq!(again, message, "a protobuf round trip changed the message");
    Some(message)
}

/// A call with the metadata a 1.0 client sends.
fn request<T>(message: T) -> Request<T> {
    let mut request = Request::new(message);
    request.metadata_mut().insert("a2a-version", "1.0".parse().expect("ASCII"));
    request
}

fn check<T: Debug>(result: Result<tonic::Response<T>, Status>) {
    if let Err(status) = result {
        check_status(&status);
    }
}

async fn stream<S>(result: Result<tonic::Response<S>, Status>)
where
    S: futures::Stream<Item = Result<a2a_proto::v1::StreamResponse, Status>> + Unpin,
{
    match result {
        Ok(response) => {
            let mut events = response.into_inner();
            while let Some(event) = events.next().await {
                if let Err(status) = event {
                    check_status(&status);
                }
            }
        }
        Err(status) => check_status(&status),
    }
}

fn check_status(status: &Status) {
    assert!(
        !matches!(status.code(), Code::Internal | Code::Unknown | Code::DataLoss),
        "a server fault: {status:?}"
    );
}
