//! The two encodings of a 0.3 file's bytes in the 0.3 protobuf (`FilePart.file_with_bytes`, gRPC;
//! its ProtoJSON `fileWithBytes`, HTTP+JSON), how we read them ([`ProtoFileBytes::read`]) and how a
//! client chooses what it sends ([`ProtoFileBytes`]).
//!
//! The 0.3 proto declares `bytes file_with_bytes = 2`: the file's bytes. The 0.3 SDKs disagree
//! about what goes there (`docs/interop-notes.md`; checked in `cargo xtask interop`,
//! `docs/interop.md`):
//!
//! | sender | `file_with_bytes` holds | reads it as |
//! | --- | --- | --- |
//! | @a2a-js/sdk 0.3.x (and 1.x's 0.3 layer), a2a-go, us by default | the file's bytes | the file's bytes |
//! | a2a-sdk (Python) 0.3.x (and 1.x's 0.3 compat layer) | the UTF-8 of the file's base64 text (`FileWithBytes.bytes.encode('utf-8')`) | base64 text: `decode('utf-8')`, so bytes that are not UTF-8 fail the whole request |
//!
//! The JSON form (JSON-RPC, `{"kind":"file","file":{"bytes"}}`) has no such ambiguity: every SDK
//! writes the base64 of the bytes there, once.
//!
//! # The reading rule
//!
//! `file_with_bytes` is read as a2a-sdk's base64 text, and decoded, exactly when it is *canonical,
//! padded, standard-alphabet base64 text*: not empty, a length that is a multiple of 4, only
//! `A-Z a-z 0-9 + /` with at most two `=` at the end, and unused bits of the last symbol zero (the
//! text is the encoding of what it decodes to). Anything else is the file's bytes.
//!
//! Why this rule is the safe one, given what the SDKs do:
//! - a2a-sdk 0.3 always sends base64 text, and it is always this form: `FileWithBytes.bytes` is
//!   the string its own JSON-RPC transport sends as the 0.3 JSON's base64 `bytes`, and Python's
//!   `base64.b64encode` (what an application fills it with) writes canonical padded standard
//!   base64. So every file from a2a-sdk is read right.
//! - A sender of the bytes themselves (@a2a-js/sdk, the proto's own meaning) is misread only when
//!   the file's content is itself such text. Binary content practically never is (each byte has
//!   a 65 in 256 chance to be in the alphabet: 16 bytes all in it is about 3 in 10^10), nor is text
//!   with a space, a line break or punctuation other than `+ / =`. What remains: single tokens
//!   whose length is a multiple of 4 (`abcd`, `test`, `1234`) and one-line base64 documents, which
//!   are read decoded (`abcd` as the 3 bytes `69 b7 1d`). Send such content over JSON-RPC or as a
//!   URI when it must arrive exactly.
//! - Looser rules only widen that set without reading anything more from a2a-sdk: it never sends
//!   the URL-safe alphabet (which would take identifiers such as `my-file_name` for base64) or
//!   unpadded text (which would take any word of any length).
//!
//! # What a client sends
//!
//! [`ProtoFileBytes::Bytes`] (the default) sends the bytes, as the proto says and @a2a-js/sdk
//! reads them; an a2a-sdk 0.3 agent then fails on any file that is not UTF-8 text and misreads
//! the rest. [`ProtoFileBytes::Base64Text`] sends what a2a-sdk expects; a reader of the bytes
//! (@a2a-js/sdk) then gets the base64 text as the file. Nothing in a 0.3 card says which SDK
//! serves an agent, so the choice is the caller's (`a2a-client`'s
//! `ClientBuilder::v03_file_bytes`, the binding clients' `with_v03_file_bytes`). Our server reads
//! both; what it sends is the bytes.

use a2a_core::Request;
use a2a_proto::v1::{part::Content, SendMessageRequest};
use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;

/// What a 0.3 client puts into the 0.3 proto's `FilePart.file_with_bytes` (gRPC) and its
/// ProtoJSON `fileWithBytes` (HTTP+JSON) for a 1.0 `Part` with `raw` bytes. The JSON-RPC binding
/// is not affected: its 0.3 JSON carries base64 once, whatever the SDK.
///
/// See the [module docs](self) for who reads what and the rule by which we read both.
///
/// ```
/// use a2a_proto::v1::{part::Content, Message, Part, SendMessageRequest};
/// use a2a_v03::ProtoFileBytes;
///
/// let file = Part::raw(vec![0x89, b'P', b'N', b'G'], "image/png");
/// let mut request =
///     SendMessageRequest { message: Some(Message::user(vec![file])), ..Default::default() };
/// ProtoFileBytes::Base64Text.encode(&mut request);
/// let content = &request.message.as_ref().unwrap().parts[0].content;
/// assert_eq!(content, &Some(Content::Raw(b"iVBORw==".to_vec())), "the UTF-8 of the base64 text");
/// // ...which any reader following our rule (our server included) reads back as the file.
/// assert_eq!(ProtoFileBytes::read(b"iVBORw==".to_vec()), vec![0x89, b'P', b'N', b'G']);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ProtoFileBytes {
    /// The file's bytes, as the 0.3 proto declares the field and @a2a-js/sdk 0.3 sends and reads
    /// it (the default).
    #[default]
    Bytes,
    /// The UTF-8 of the file's base64 text (canonical, padded, standard alphabet), as a2a-sdk
    /// (Python) 0.3.x sends and reads it: choose this for agents built with a2a-sdk 0.3.
    Base64Text,
}

impl ProtoFileBytes {
    /// Rewrites the `raw` parts of `request`'s message so that the 0.3 translation writes them in
    /// this encoding: for [`Base64Text`](Self::Base64Text) each part's bytes become the UTF-8 of
    /// their base64 text; [`Bytes`](Self::Bytes) changes nothing. Only a client sending over 0.3
    /// gRPC or HTTP+JSON calls this; the request is not meant for anything else afterwards.
    pub fn encode(self, request: &mut SendMessageRequest) {
        if self == ProtoFileBytes::Bytes {
            return;
        }
        let Some(message) = request.message.as_mut() else { return };
        for part in &mut message.parts {
            if let Some(Content::Raw(bytes)) = &mut part.content {
                *bytes = STANDARD.encode(&bytes).into_bytes();
            }
        }
    }

    /// [`encode`](Self::encode) of the message a SendMessage or SendStreamingMessage `request`
    /// carries; any other request is left as it is.
    pub fn encode_request(self, request: &mut Request) {
        if let Request::SendMessage(send) | Request::SendStreamingMessage(send) = request {
            self.encode(send);
        }
    }

    /// The file of a received `file_with_bytes`, by the rule of the [module docs](self): the
    /// decoded bytes of canonical padded standard base64 text (a2a-sdk's encoding), else the
    /// bytes themselves.
    pub fn read(bytes: Vec<u8>) -> Vec<u8> {
        if is_base64_text(&bytes) {
            if let Ok(decoded) = STANDARD.decode(&bytes) {
                return decoded;
            }
        }
        bytes
    }
}

/// Whether `bytes` are canonical, padded, standard-alphabet base64 text (see the module docs).
/// The `STANDARD` engine requires canonical padding and rejects non-zero trailing bits, so a
/// successful decode of such text is exact.
fn is_base64_text(bytes: &[u8]) -> bool {
    !bytes.is_empty()
        && bytes.len() % 4 == 0
        && bytes.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
        && STANDARD.decode(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::{Message, Part};

    fn raw(part: &Part) -> Option<&[u8]> {
        match &part.content {
            Some(Content::Raw(bytes)) => Some(bytes),
            _ => None,
        }
    }

    #[test]
    fn base64_text_is_decoded_and_everything_else_is_the_file() {
        // a2a-sdk's encoding of the 2 bytes "hi" and of a PNG signature.
        assert_eq!(ProtoFileBytes::read(b"aGk=".to_vec()), b"hi");
        assert_eq!(ProtoFileBytes::read(b"iVBORw0KGgo=".to_vec()), b"\x89PNG\r\n\x1a\n");
        // Bytes that are not such text are the file: binary, text with spaces or line breaks,
        // unpadded or URL-safe base64, non-canonical trailing bits, empty.
        for raw in [
            &b"\x89PNG\r\n\x1a\n"[..],
            b"hello world!",
            b"aGVsbG8=\n",
            b"aGk",
            b"a-b_",
            b"aGl=",
            b"====",
            b"a===",
            b"",
        ] {
            assert_eq!(ProtoFileBytes::read(raw.to_vec()), raw, "{:?}", String::from_utf8_lossy(raw));
        }
    }

    #[test]
    fn a_file_whose_content_is_base64_text_is_read_decoded() {
        // The documented price of reading both SDKs: a raw sender's `abcd` is read as base64.
        assert_eq!(ProtoFileBytes::read(b"abcd".to_vec()), vec![0x69, 0xb7, 0x1d]);
    }

    fn request(parts: Vec<Part>) -> SendMessageRequest {
        SendMessageRequest { message: Some(Message::user(parts)), ..Default::default() }
    }

    #[test]
    fn base64_text_encoding_rewrites_raw_parts_only_and_reads_back() {
        let every_byte: Vec<u8> = (0..=255).collect();
        let original = request(vec![
            Part::text("keep me"),
            Part::raw(every_byte.clone(), "application/octet-stream").with_filename("all.bin"),
            Part::url("https://example.com/f", "image/png"),
            Part::raw(Vec::new(), "text/plain"),
        ]);
        let mut bytes = original.clone();
        ProtoFileBytes::Bytes.encode(&mut bytes);
        assert_eq!(bytes, original, "the default sends the bytes");

        let mut text = original.clone();
        ProtoFileBytes::Base64Text.encode(&mut text);
        let parts = &text.message.as_ref().unwrap().parts;
        let expected = STANDARD.encode(&every_byte);
        assert_eq!(raw(&parts[1]), Some(expected.as_bytes()));
        assert_eq!(
            (parts[1].media_type.as_str(), parts[1].filename.as_str()),
            ("application/octet-stream", "all.bin")
        );
        assert_eq!(ProtoFileBytes::read(raw(&parts[1]).unwrap().to_vec()), every_byte);
        assert_eq!(raw(&parts[3]), Some(&b""[..]), "an empty file is empty in both encodings");
        let untouched = |i: usize| &original.message.as_ref().unwrap().parts[i];
        assert_eq!((&parts[0], &parts[2]), (untouched(0), untouched(2)));
    }
}
