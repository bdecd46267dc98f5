//! The codec of the generated gRPC stubs ([`v1::grpc`](crate::v1::grpc), and `v0_3::grpc`), named
//! by `cargo xtask codegen` (`codec_path`) in place of tonic-prost's `ProstCodec`: the same bytes
//! (prost's own `encode_raw` writes them), fewer instructions to write them.
//!
//! Why: `ProstCodec` calls `Message::encode` on tonic's `EncodeBuf`, a `BytesMut`. prost puts
//! every tag, length prefix and varint one byte (`put_u8`) or one field (`put_slice`) at a time,
//! and `BytesMut::put_slice` is not inlined across crates: a call, a capacity check and a `memcpy`
//! call for each byte of a tag. `Message::encode` also walks the whole message once more
//! (`encoded_len`) only to check a room a `BytesMut` always has. Here the message is written by
//! `encode_raw` into a `Vec<u8>`, whose `BufMut` methods inline to a store behind a capacity
//! check, and the bytes go to the `EncodeBuf` in one `put_slice`. The `Vec` is kept per thread
//! ([`SCRATCH`]), so that a message costs no allocation and no length pass (the compact task
//! store of a2a-core encodes the same way, into a scratch `Vec` of its own).
//!
//! In the callgrind profile of an echo SendMessage over gRPC (docs/benchmarks.md; a reply of a
//! `Task` with its status, history and one artifact) the encoder cost 5.9k instructions per
//! request with `ProstCodec`, 3.3k with this one. Measured on a reply of that shape (309 bytes)
//! outside the server, through tonic's `EncodeBody` (instructions per message beyond an empty
//! one's): `ProstCodec` 4.9k; `reserve(encoded_len)` then `encode_raw` on the `EncodeBuf` 5.2k
//! (the same `put_slice` calls); `encode_to_vec` then one `put_slice` 3.2k; `encode_raw` straight
//! into the `EncodeBuf`'s spare capacity 2.8k (and `unsafe`: `advance_mut`); the per-thread `Vec`
//! 2.6k. What is left is prost's own: `encode_raw` computes each nested message's length again
//! for its prefix, and writes a varint a byte at a time.
//!
//! Decoding is `ProstCodec`'s (`Message::decode` on the `DecodeBuf`, a decode error as
//! `INTERNAL`), and so are the buffer settings (tonic's defaults).

use std::cell::Cell;
use std::marker::PhantomData;

use prost::bytes::BufMut as _;
use prost::Message;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::Status;

/// The largest scratch buffer a thread keeps between messages. A larger message (a long task list,
/// a file part) grows one of its own, freed once its bytes are in tonic's buffer (where, for that
/// moment, they are a second time): writing those bytes costs more than the allocation.
const SCRATCH_KEPT: usize = 64 * 1024;

thread_local! {
    /// The buffer a message is written into before it is appended to tonic's, empty between
    /// messages. A `Cell`, taken and put back: no borrow flag and no panic, whatever calls in.
    static SCRATCH: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// A tonic [`Codec`] for prost messages: `T` out, `U` in (what the generated stubs call
/// `ProtoCodec::default()` for).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProtoCodec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for ProtoCodec<T, U> {
    fn default() -> Self {
        ProtoCodec(PhantomData)
    }
}

impl<T, U> Codec for ProtoCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProtoEncoder<T>;
    type Decoder = ProtoDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProtoEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProtoDecoder(PhantomData)
    }
}

/// Writes a `T` (see the module's documentation for how).
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProtoEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for ProtoEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        // Outside a live thread-local (a thread's destructors), a new `Vec` does the same.
        let mut scratch = SCRATCH.try_with(Cell::take).unwrap_or_default();
        item.encode_raw(&mut scratch);
        buf.put_slice(&scratch);
        if scratch.capacity() <= SCRATCH_KEPT {
            scratch.clear();
            let _ = SCRATCH.try_with(|kept| kept.set(scratch));
        }
        Ok(())
    }
}

/// Reads a `U`, as prost does.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ProtoDecoder<U>(PhantomData<U>);

impl<U: Message + Default> Decoder for ProtoDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        // An unreadable message is INTERNAL (https://github.com/grpc/grpc/blob/master/doc/statuscodes.md),
        // as tonic-prost maps it.
        U::decode(buf).map(Some).map_err(|error| Status::internal(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    //! The codec against prost: through tonic's own framing (`EncodeBody`, `Streaming`), the same
    //! bytes as `Message::encode` (what `ProstCodec` writes) and `encode_to_vec`, and every
    //! message read back as it was.

    use std::future::Future as _;
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};

    use serde_json::json;
    use tonic::codec::{EncodeBody, Streaming};
    use tonic::codegen::{tokio_stream, Body as _};
    use tonic::Code;

    use super::*;
    use crate::v1::{
        part, AgentCard, Artifact, ListTasksResponse, Message as A2aMessage, Part, SendMessageResponse,
        StreamResponse, Task, TaskState, TaskStatus,
    };
    use crate::Timestamp;

    /// What `ProstCodec`'s encoder does.
    struct Prost<T>(PhantomData<T>);

    impl<T: Message> Encoder for Prost<T> {
        type Item = T;
        type Error = Status;

        fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
            item.encode(buf).map_err(|e| Status::internal(e.to_string()))
        }
    }

    /// Writes the given bytes as they are.
    struct Raw;

    impl Encoder for Raw {
        type Item = Vec<u8>;
        type Error = Status;

        fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
            buf.put_slice(&item);
            Ok(())
        }
    }

    fn body<E>(
        encoder: E,
        items: Vec<E::Item>,
    ) -> EncodeBody<E, impl tokio_stream::Stream<Item = Result<E::Item, Status>>>
    where
        E: Encoder<Error = Status>,
    {
        let source = tokio_stream::iter(items.into_iter().map(Ok));
        EncodeBody::new_client(encoder, source, None, None)
    }

    /// The bytes tonic sends for `items` written by `encoder`: each message framed (a compression
    /// flag and a 4-byte length), one stream.
    fn framed<E: Encoder<Error = Status>>(encoder: E, items: Vec<E::Item>) -> Vec<u8> {
        let mut body = pin!(body(encoder, items));
        let mut cx = Context::from_waker(Waker::noop());
        let mut out = Vec::new();
        loop {
            match body.as_mut().poll_frame(&mut cx) {
                Poll::Ready(Some(frame)) => {
                    if let Ok(data) = frame.expect("encodes").into_data() {
                        out.extend_from_slice(&data);
                    }
                }
                Poll::Ready(None) => return out,
                Poll::Pending => panic!("an iterator's messages are always ready"),
            }
        }
    }

    /// `bytes` with tonic's frame header (uncompressed).
    fn frame(bytes: &[u8]) -> Vec<u8> {
        let mut out = vec![0];
        out.extend_from_slice(&u32::try_from(bytes.len()).unwrap().to_be_bytes());
        out.extend_from_slice(bytes);
        out
    }

    /// What [`ProtoDecoder`] reads from the frames `encoder` writes for `items`.
    fn decoded<E, U>(encoder: E, items: Vec<E::Item>) -> Vec<Result<U, Status>>
    where
        E: Encoder<Error = Status> + Send + 'static,
        E::Item: Send + 'static,
        U: Message + Default + Send + 'static,
    {
        let mut stream =
            Streaming::new_request(ProtoDecoder::<U>(PhantomData), body(encoder, items), None, None);
        let mut cx = Context::from_waker(Waker::noop());
        let mut out = Vec::new();
        loop {
            match pin!(stream.message()).poll(&mut cx) {
                Poll::Ready(Ok(Some(message))) => out.push(Ok(message)),
                Poll::Ready(Ok(None)) => return out,
                Poll::Ready(Err(status)) => {
                    out.push(Err(status));
                    return out;
                }
                Poll::Pending => panic!("an iterator's messages are always ready"),
            }
        }
    }

    /// The codec writes `messages` (one stream: the scratch buffer is reused between them) as
    /// prost does, and reads back what it and prost write.
    #[track_caller]
    fn same<T>(messages: Vec<T>)
    where
        T: Message + Default + PartialEq + Clone + Send + 'static,
    {
        let ours = framed(ProtoCodec::<T, T>::default().encoder(), messages.clone());
        let prost = framed(Prost(PhantomData), messages.clone());
        let expected: Vec<u8> = messages.iter().flat_map(|m| frame(&m.encode_to_vec())).collect();
        assert_eq!(prost, expected, "tonic frames prost's bytes");
        assert_eq!(ours, expected, "the codec writes prost's bytes");

        for read in [
            decoded::<_, T>(ProtoEncoder(PhantomData), messages.clone()),
            decoded(Prost(PhantomData), messages.clone()),
        ] {
            let read: Vec<T> = read.into_iter().map(|m| m.expect("decodes")).collect();
            assert!(read == messages, "the messages read back differ");
        }
    }

    fn fixture<T: serde::de::DeserializeOwned + prost::Name>(file: &str) -> T {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(file);
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        crate::json::from_slice(&bytes).unwrap_or_else(|e| panic!("{file}: {e}"))
    }

    /// A task with every kind of field: ids, a status with a message and a timestamp, history,
    /// artifacts with every kind of part, nested metadata.
    fn full_task() -> Task {
        let metadata = crate::json::to_struct(
            json!({
                "string": "värde",
                "number": -1.5e300,
                "integer": 300,
                "flag": true,
                "nothing": null,
                "list": [1, "two", [3], {"four": 4}],
                "nested": {"deeper": {"deepest": ""}},
            })
            .as_object()
            .unwrap(),
        );
        let mut user = A2aMessage::user(vec![
            Part::text("hello"),
            Part {
                content: Some(part::Content::Raw(vec![0, 1, 2, 0xff])),
                filename: "a.bin".into(),
                ..Default::default()
            },
        ]);
        user.message_id = "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5d".into();
        user.metadata = Some(metadata.clone());
        user.extensions = vec!["https://example.com/ext".into()];
        user.reference_task_ids = vec!["t0".into(), String::new()];
        let agent = A2aMessage::agent_text("done");
        let mut artifact = Artifact::new(vec![
            Part::text("x".repeat(200)),
            Part { content: Some(part::Content::Url("https://example.com/f".into())), ..Default::default() },
            Part {
                content: Some(part::Content::Data(crate::json::to_pb_value(&json!({"a": [1, 2]})))),
                media_type: "application/json".into(),
                metadata: Some(metadata.clone()),
                ..Default::default()
            },
        ])
        .with_name("echo");
        artifact.artifact_id = "a1".into();
        artifact.description = "ünïcode".into();
        Task {
            id: "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b".into(),
            context_id: "019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5c".into(),
            status: Some(TaskStatus {
                state: TaskState::Completed as i32,
                message: Some(agent.clone()),
                timestamp: Some(Timestamp { seconds: 1_760_000_000, nanos: 123_456_789 }),
            }),
            artifacts: vec![artifact.clone(), Artifact::default()],
            history: vec![user, agent],
            metadata: Some(metadata),
        }
    }

    #[test]
    fn a_full_task_is_written_as_prost_writes_it() {
        same(vec![SendMessageResponse::from(full_task())]);
        same(vec![full_task()]);
    }

    #[test]
    fn the_specs_examples_are_written_as_prost_writes_them() {
        same::<StreamResponse>(
            [
                "6.2-stream-response-1-task.json",
                "6.2-stream-response-2-artifact-update.json",
                "6.2-stream-response-3-status-update.json",
                "6.6-webhook-stream-response.json",
            ]
            .into_iter()
            .map(fixture)
            .collect(),
        );
        for file in [
            "6.1-send-message-response.json",
            "6.7-send-message-response-file-reference.json",
            "6.8-send-message-response-structured.json",
        ] {
            same::<SendMessageResponse>(vec![fixture(file)]);
        }
        same::<ListTasksResponse>(vec![fixture("6.5-list-tasks-response-pagination.json")]);
        same::<AgentCard>(vec![fixture("8.5-agent-card.json")]);
    }

    #[test]
    fn an_empty_message_is_an_empty_frame() {
        assert_eq!(framed(ProtoEncoder(PhantomData), vec![StreamResponse::default()]), [0, 0, 0, 0, 0]);
        same(vec![SendMessageResponse::default()]);
        same(vec![StreamResponse::default(), StreamResponse::from(full_task()), StreamResponse::default()]);
    }

    #[test]
    fn a_message_larger_than_the_kept_scratch_buffer_is_written_whole_and_the_next_one_alone() {
        let mut big = full_task();
        big.artifacts[0].parts.push(Part {
            content: Some(part::Content::Raw((0..SCRATCH_KEPT * 2).map(|i| i as u8).collect())),
            ..Default::default()
        });
        let small = Task { id: "t".into(), ..Default::default() };
        same(vec![big.clone(), small.clone(), big, small]);
    }

    #[test]
    fn a_message_that_does_not_decode_is_internal() {
        // A field 1 of length 5 with two bytes after it.
        let read = decoded::<_, Task>(Raw, vec![vec![0x0a, 0x05, b'a', b'b']]);
        let status = read.into_iter().next().unwrap().expect_err("truncated");
        assert_eq!(status.code(), Code::Internal);
    }
}
