//! `--debug`'s raw wire log (SPEC.md §7.2, Tier 2): the bytes the HTTP bindings and the card fetch
//! write and read, as reqwest's verbose connections log them, on stderr. Every credential the
//! invocation knows (bearer token, API key, a kept `auth login` token, a client secret) is
//! replaced by `<redacted>` in every line, whatever the flags (SPEC.md §12.1); cookie and
//! authorization header values are cut as well. gRPC connections are not logged.

use std::sync::Mutex;

/// The credentials to redact, added as they become known.
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Registers a credential: it never appears in the wire log.
pub(crate) fn secret(value: &str) {
    if !value.is_empty() {
        SECRETS.lock().unwrap_or_else(|e| e.into_inner()).push(value.to_owned());
    }
}

/// `line` without any registered credential nor the value of a credential header.
pub(crate) fn redact(line: &str) -> String {
    let mut line = line.to_owned();
    for secret in SECRETS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        line = line.replace(secret.as_str(), "<redacted>");
    }
    // Header values up to the (escaped) end of the line.
    for header in ["authorization: ", "cookie: ", "x-api-key: ", "proxy-authorization: "] {
        let mut from = 0;
        while let Some(at) = line.to_ascii_lowercase()[from..].find(header).map(|i| i + from) {
            let start = at + header.len();
            let end = line[start..].find("\\r\\n").map_or(line.len(), |i| start + i);
            line.replace_range(start..end, "<redacted>");
            from = start + "<redacted>".len();
        }
    }
    line
}

struct WireLog;

impl log::Log for WireLog {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        metadata.target().starts_with("reqwest::connect::verbose")
    }

    fn log(&self, record: &log::Record<'_>) {
        if self.enabled(record.metadata()) {
            eprintln!("wire: {}", redact(&record.args().to_string()));
        }
    }

    fn flush(&self) {}
}

/// Turns the wire log on (once, for `--debug`).
pub(crate) fn enable() {
    if log::set_logger(&WireLog).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_reach_the_wire_log() {
        secret("t0k3n");
        let line = r#"00000001 write: b"POST / HTTP/1.1\r\nAuthorization: Bearer other\r\nx-api-key: k\r\ncookie: s=1\r\n\r\n{\"t\":\"t0k3n\"}""#;
        let redacted = redact(line);
        assert!(
            !redacted.contains("t0k3n") && !redacted.contains("other") && !redacted.contains("s=1"),
            "{redacted}"
        );
        assert!(redacted.contains("Authorization: <redacted>\\r\\n"), "{redacted}");
    }
}
