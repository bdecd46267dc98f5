//! `--debug`'s raw wire log (SPEC.md §7.2, Tier 2), on stderr: the bytes the HTTP bindings and the
//! card fetch write and read, as reqwest's verbose connections log them, and for gRPC each
//! protocol message sent and received ([`GrpcLog`]: its method, its metadata, the message in
//! ProtoJSON; gRPC's own framing is binary protobuf over HTTP/2, so the message is shown as the
//! protocol's JSON form of the same message). Every credential the invocation knows (bearer
//! token, API key, a kept `auth login` token, a client secret) is replaced by `<redacted>` in
//! every line, whatever the flags (SPEC.md §12.1); cookie and authorization header values are
//! cut as well.

use std::sync::{Arc, Mutex};

use a2a_core::{
    A2aService, CallContext, Encode, EventStream, Operation, ProtocolVersion, Request, Response, Result,
};
use a2a_proto::WireMessage;
use async_trait::async_trait;
use futures::StreamExt;

/// The credentials to redact, added as they become known.
static SECRETS: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Registers a credential: it never appears in the wire log.
pub(crate) fn secret(value: &str) {
    if !value.is_empty() {
        SECRETS.lock().unwrap_or_else(|e| e.into_inner()).push(value.to_owned());
    }
}

/// `text` without any registered credential.
fn redact_secrets(text: &str) -> String {
    let mut text = text.to_owned();
    for secret in SECRETS.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        text = text.replace(secret.as_str(), "<redacted>");
    }
    text
}

/// `line` without any registered credential nor the value of a credential header.
pub(crate) fn redact(line: &str) -> String {
    let mut line = redact_secrets(line);
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

/// A gRPC binding client that logs every message it sends and receives (`--debug`): installed
/// with `a2a_client::ClientBuilder::wrap_binding`, so it sees each call the binding makes
/// (retries and resubscriptions included) with its final metadata.
pub(crate) struct GrpcLog {
    inner: Arc<dyn A2aService>,
    /// The gRPC service the methods belong to (`lf.a2a.v1.A2AService` in 1.0).
    service: &'static str,
}

impl GrpcLog {
    /// The wrapper `ClientBuilder::wrap_binding` takes: gRPC bindings are logged, others (whose
    /// HTTP exchange the reqwest log shows) are left as they are.
    pub(crate) fn wrap(inner: Arc<dyn A2aService>, selected: &a2a_client::Selected) -> Arc<dyn A2aService> {
        if selected.binding() != a2a_client::Binding::Grpc {
            return inner;
        }
        let service = if selected.protocol_version() == ProtocolVersion::V0_3 {
            "a2a.v1.A2AService (A2A 0.3; the binding translates the 1.0 messages shown)"
        } else {
            "lf.a2a.v1.A2AService"
        };
        Arc::new(GrpcLog { inner, service })
    }

    fn request(&self, ctx: &CallContext, request: &Request) {
        let metadata: Vec<String> = ctx
            .params
            .outgoing()
            .map(|(name, value)| format!("{name}: {}", redact_secrets(&crate::agent::redact(name, value))))
            .collect();
        eprintln!(
            "wire: grpc > {}/{} metadata {{{}}} {}",
            self.service,
            request.operation().method(),
            metadata.join(", "),
            request.encode(Json)
        );
    }

    fn reply(&self, operation: Operation, result: &Result<Response>) {
        match result {
            Ok(response) => {
                if let Some(message) = response.encode_message(Json) {
                    eprintln!("wire: grpc < {} {message}", operation.method());
                }
            }
            Err(error) => {
                eprintln!("wire: grpc < {} error {}", operation.method(), redact(&error.to_string()))
            }
        }
    }

    /// A stream's messages, each logged as it arrives, and its end.
    fn stream(&self, operation: Operation, events: EventStream) -> EventStream {
        let method = operation.method();
        let logged = events.inspect(move |event| match event {
            Ok(event) => eprintln!("wire: grpc < {method} stream message {}", Json.encode(event)),
            Err(error) => eprintln!("wire: grpc < {method} stream error {}", redact(&error.to_string())),
        });
        let end = futures::stream::once(async move {
            eprintln!("wire: grpc < {method} stream end");
            None
        });
        logged.map(Some).chain(end).filter_map(futures::future::ready).boxed()
    }
}

/// A message in ProtoJSON on one line, credentials redacted: the registered ones, and the
/// values of push configs' `token` and `credentials` fields.
struct Json;

impl Encode for Json {
    type Output = String;

    fn encode<M: WireMessage>(self, message: &M) -> String {
        fn scrub(value: &mut serde_json::Value) {
            match value {
                serde_json::Value::Object(object) => {
                    for (key, value) in object.iter_mut() {
                        if (key == "token" || key == "credentials") && value.is_string() {
                            *value = serde_json::Value::String("<redacted>".into());
                        } else {
                            scrub(value);
                        }
                    }
                }
                serde_json::Value::Array(items) => items.iter_mut().for_each(scrub),
                _ => {}
            }
        }
        match a2a_proto::json::to_value(message) {
            Ok(mut value) => {
                scrub(&mut value);
                redact_secrets(&value.to_string())
            }
            Err(error) => format!("<not ProtoJSON: {error}>"),
        }
    }
}

#[async_trait]
impl A2aService for GrpcLog {
    async fn call(&self, ctx: &CallContext, request: Request) -> Result<Response> {
        let operation = request.operation();
        self.request(ctx, &request);
        let result = self.inner.call(ctx, request).await;
        self.reply(operation, &result);
        match result? {
            Response::Stream(events) => Ok(Response::Stream(self.stream(operation, events))),
            response => Ok(response),
        }
    }
}
