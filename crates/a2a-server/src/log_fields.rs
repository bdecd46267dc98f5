//! How the text log writes span and event fields: tracing-subscriber's default, with a short
//! path for the field every request opens a span with.
//!
//! The fmt layer writes a span's fields when the span opens, so every request paid for
//! `request_id=<id>` whether or not a line was ever logged in it: 1.4k instructions per request
//! (1.7% of an echo SendMessage), most of it the default formatter's styling of the name and the
//! `=` (done even with ANSI off) inside a `write!` of three arguments. The id is visible ASCII
//! ([`a2a_server::request_id`]), so it is written here as is, the bytes the default writes;
//! every other set of fields, and every field with ANSI on, goes to the default formatter.

use std::fmt;

use tracing::field::{Field, Visit};
use tracing_subscriber::field::RecordFields;
use tracing_subscriber::fmt::format::{DefaultFields, Writer};
use tracing_subscriber::fmt::FormatFields;

/// The request span's one field (`request_id.rs`).
const REQUEST_ID: &str = "request_id";

/// The text log's [`FormatFields`]: [`DefaultFields`], but a lone `request_id` is written
/// without the formatting machinery.
#[derive(Debug, Default)]
pub(crate) struct TextFields {
    default: DefaultFields,
}

impl<'writer> FormatFields<'writer> for TextFields {
    fn format_fields<R: RecordFields>(&self, mut writer: Writer<'writer>, fields: R) -> fmt::Result {
        if !writer.has_ansi_escapes() {
            let mut shape = Shape::default();
            fields.record(&mut shape);
            if shape.fields == 1 && shape.request_id {
                let mut id = RequestId { writer: &mut writer, result: Ok(()) };
                fields.record(&mut id);
                return id.result;
            }
        }
        self.default.format_fields(writer, fields)
    }
}

/// How many fields there are, and whether `request_id` is one of them (nothing is formatted).
#[derive(Default)]
struct Shape {
    fields: usize,
    request_id: bool,
}

impl Visit for Shape {
    fn record_debug(&mut self, field: &Field, _: &dyn fmt::Debug) {
        self.fields += 1;
        self.request_id |= field.name() == REQUEST_ID;
    }
}

/// Writes `request_id=<value>`, as the default visitor does without ANSI.
struct RequestId<'a, 'writer> {
    writer: &'a mut Writer<'writer>,
    result: fmt::Result,
}

impl Visit for RequestId<'_, '_> {
    // The span records the id with `%`: a `Debug` that is its `Display`.
    fn record_debug(&mut self, _: &Field, value: &dyn fmt::Debug) {
        self.result = self.writer.write_str("request_id=").and_then(|()| write!(self.writer, "{value:?}"));
    }

    // A `&str` (`request_id = id`) is quoted, as the default does.
    fn record_str(&mut self, field: &Field, value: &str) {
        self.record_debug(field, &value);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use tracing_subscriber::fmt::MakeWriter;
    use tracing_subscriber::layer::SubscriberExt as _;

    use super::*;

    #[derive(Clone, Default)]
    struct Buffer(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Buffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl<'a> MakeWriter<'a> for Buffer {
        type Writer = Buffer;

        fn make_writer(&'a self) -> Self::Writer {
            self.clone()
        }
    }

    /// The lines a text log writes for a few spans and events, with `fields` or the default.
    fn log(ours: bool, ansi: bool) -> String {
        let buffer = Buffer::default();
        let layer =
            tracing_subscriber::fmt::layer().with_writer(buffer.clone()).with_ansi(ansi).without_time();
        let subscriber = tracing_subscriber::registry();
        let emit = || {
            let id = "0196f1c2-7d3e-7000-8000-00000000abcd";
            let request = tracing::error_span!("request", request_id = %id);
            let _request = request.enter();
            tracing::warn!("inside the request span");
            let quoted = tracing::error_span!("quoted", request_id = id);
            let _quoted = quoted.enter();
            let other = tracing::error_span!("call", method = "SendMessage", r#type = 3, request_id = %id);
            let _other = other.enter();
            let error = std::io::Error::other("disk full");
            tracing::warn!(error = &error as &dyn std::error::Error, tries = 2, "with fields");
            let late = tracing::error_span!("late", request_id = tracing::field::Empty);
            late.record("request_id", "filled in");
            let _late = late.enter();
            tracing::error!(message = "a str message");
        };
        if ours {
            tracing::subscriber::with_default(subscriber.with(layer.fmt_fields(TextFields::default())), emit);
        } else {
            tracing::subscriber::with_default(subscriber.with(layer), emit);
        }
        let bytes = buffer.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn writes_the_bytes_the_default_fields_write() {
        for ansi in [false, true] {
            let (ours, default) = (log(true, ansi), log(false, ansi));
            assert_eq!(ours, default, "ansi {ansi}");
            assert_eq!(ours.lines().count(), 3, "{ours}");
        }
        let plain = log(true, false);
        assert!(plain.contains("request{request_id=0196f1c2-7d3e-7000-8000-00000000abcd}:"), "{plain}");
        assert!(plain.contains(r#"quoted{request_id="0196f1c2"#), "{plain}");
    }
}
