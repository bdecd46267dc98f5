//! The server as any gRPC peer sees it: the generated tonic client (and, for malformed input, a
//! codec that sends arbitrary bytes) against `a2a_grpc::server`, with no code of ours on the
//! client side, so a bug shared by our client and server cannot hide.

use a2a_proto::v1::{
    send_message_response, DeleteTaskPushNotificationConfigRequest, GetTaskRequest, Message,
    SendMessageRequest, TaskState,
};
use prost::bytes::{Buf, BufMut};
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::{Code, Request, Status};

use crate::support::{streamed_events, wire_details, Scripted, TestServer, FAIL_MIDWAY};

#[tokio::test]
async fn generated_client_gets_replies_and_an_empty_delete_reply() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let mut raw = server.raw_client().await;

    let request = SendMessageRequest { message: Some(Message::user_text("hi")), ..Default::default() };
    let reply = raw.send_message(request).await.unwrap().into_inner();
    match reply.payload {
        Some(send_message_response::Payload::Task(task)) => assert_eq!(task.state(), TaskState::Working),
        other => panic!("expected a Task, got {other:?}"),
    }

    let task = raw.get_task(GetTaskRequest { id: "task-3".into(), ..Default::default() }).await.unwrap();
    assert_eq!(task.into_inner().id, "task-3");

    let request =
        DeleteTaskPushNotificationConfigRequest { task_id: "t".into(), id: "c".into(), ..Default::default() };
    let () = raw.delete_task_push_notification_config(request).await.unwrap().into_inner();

    drop(raw);
    server.stop().await;
}

#[tokio::test]
async fn generated_client_reads_the_stream_in_order_and_an_ok_end() {
    let server = TestServer::start(Scripted::new()).await;
    let mut raw = server.raw_client().await;

    let request = SendMessageRequest { message: Some(Message::user_text("stream")), ..Default::default() };
    let mut stream = raw.send_streaming_message(request).await.unwrap().into_inner();
    let mut events = Vec::new();
    // `message()` is Ok(None) only when the trailers say OK.
    while let Some(event) = stream.message().await.unwrap() {
        events.push(event);
    }
    assert_eq!(events, streamed_events());

    drop((stream, raw));
    server.stop().await;
}

#[tokio::test]
async fn a_mid_stream_error_is_the_streams_final_status_with_its_error_info() {
    let server = TestServer::start(Scripted::new()).await;
    let mut raw = server.raw_client().await;

    let request = SendMessageRequest { message: Some(Message::user_text(FAIL_MIDWAY)), ..Default::default() };
    let mut stream = raw.send_streaming_message(request).await.unwrap().into_inner();
    let first = stream.message().await.unwrap().unwrap();
    assert_eq!(first, streamed_events()[0]);
    let status = stream.message().await.unwrap_err();
    assert_eq!(status.code(), Code::Internal, "spec 5.4: InvalidAgentResponse is INTERNAL");
    let info = wire_details(&status).error_info.unwrap();
    assert_eq!((info.reason.as_str(), info.domain.as_str()), ("INVALID_AGENT_RESPONSE", "a2a-protocol.org"));

    drop((stream, raw));
    server.stop().await;
}

/// Sends and receives message bytes as they are, to put malformed protobuf on the wire.
#[derive(Debug, Clone, Copy, Default)]
struct RawBytes;

impl Codec for RawBytes {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawBytes;
    type Decoder = RawBytes;

    fn encoder(&mut self) -> RawBytes {
        RawBytes
    }

    fn decoder(&mut self) -> RawBytes {
        RawBytes
    }
}

impl Encoder for RawBytes {
    type Item = Vec<u8>;
    type Error = Status;

    fn encode(&mut self, item: Vec<u8>, dst: &mut EncodeBuf<'_>) -> Result<(), Status> {
        dst.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawBytes {
    type Item = Vec<u8>;
    type Error = Status;

    fn decode(&mut self, src: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        let mut out = vec![0; src.remaining()];
        src.copy_to_slice(&mut out);
        Ok(Some(out))
    }
}

#[tokio::test]
async fn malformed_protobuf_is_an_error_status_and_the_server_keeps_serving() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let channel = server.channel().await;
    let mut grpc = tonic::client::Grpc::new(channel.clone());

    let inputs: [&[u8]; 3] = [
        &[0xff; 16],               // not protobuf at all
        &[0x12, 0x02, 0xc3, 0x28], // GetTaskRequest.id (field 2) holding invalid UTF-8
        &[0x12, 0x7f, b'a'],       // a length running past the end of the message
    ];
    for input in inputs {
        grpc.ready().await.unwrap();
        let path = http::uri::PathAndQuery::from_static("/lf.a2a.v1.A2AService/GetTask");
        let status = grpc.unary(Request::new(input.to_vec()), path, RawBytes).await.unwrap_err();
        // tonic's codec answers INTERNAL for bytes it cannot decode, as grpc-go does.
        assert_eq!(status.code(), Code::Internal, "{input:?}");
    }
    assert!(scripted.operations().is_empty(), "nothing undecodable reaches the service");

    let mut raw = a2a_proto::v1::grpc::a2a_service_client::A2aServiceClient::new(channel);
    let task = raw.get_task(GetTaskRequest { id: "after".into(), ..Default::default() }).await.unwrap();
    assert_eq!(task.into_inner().id, "after");

    drop((grpc, raw));
    server.stop().await;
}

#[tokio::test]
async fn an_unknown_method_is_unimplemented() {
    let scripted = Scripted::new();
    let server = TestServer::start(scripted.clone()).await;
    let channel = server.channel().await;
    let mut grpc = tonic::client::Grpc::new(channel);

    grpc.ready().await.unwrap();
    let path = http::uri::PathAndQuery::from_static("/lf.a2a.v1.A2AService/Frobnicate");
    let status = grpc.unary(Request::new(Vec::new()), path, RawBytes).await.unwrap_err();
    assert_eq!(status.code(), Code::Unimplemented);
    assert!(scripted.operations().is_empty());

    drop(grpc);
    server.stop().await;
}
