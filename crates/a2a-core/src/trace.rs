//! W3C trace context (traceparent, tracestate) across what core does out of the request's own
//! task: the execution, and the push notifications it causes.
//!
//! Core carries no tracing backend: it reads the current context through a reader the server
//! installs once ([`set_reader`]; `a2a-server` does with its `otel` feature, from the current
//! `tracing` span's OpenTelemetry context). Without one, [`current`] is `None` and nothing is
//! carried. The execution of a request runs in the request's `tracing` span
//! (`DefaultRequestHandler` instruments the tasks it spawns), so what the agent logs and the
//! notifications its events cause belong to the caller's trace.

use std::sync::OnceLock;

/// A W3C trace context (<https://www.w3.org/TR/trace-context/>), as sent in the `traceparent` and
/// `tracestate` headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// `traceparent`: `00-{trace id}-{parent id}-{flags}`.
    pub traceparent: String,
    /// `tracestate`, when there is one.
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// The headers that carry it.
    pub fn headers(&self) -> impl Iterator<Item = (&'static str, &str)> {
        std::iter::once(("traceparent", self.traceparent.as_str()))
            .chain(self.tracestate.as_deref().map(|state| ("tracestate", state)))
    }

    /// One line, for storage: `traceparent` and, after a space, `tracestate` (neither contains
    /// a space).
    pub fn to_line(&self) -> String {
        match &self.tracestate {
            Some(state) => format!("{} {state}", self.traceparent),
            None => self.traceparent.clone(),
        }
    }

    /// Reads [`to_line`](Self::to_line)'s form; `None` for an empty line.
    pub fn from_line(line: &str) -> Option<Self> {
        let mut parts = line.splitn(2, ' ');
        let traceparent = parts.next().filter(|p| !p.is_empty())?.to_owned();
        Some(TraceContext { traceparent, tracestate: parts.next().map(str::to_owned) })
    }
}

static READER: OnceLock<fn() -> Option<TraceContext>> = OnceLock::new();

/// Installs the function that reads the current trace context (once per process; later calls
/// are ignored and return `false`).
pub fn set_reader(reader: fn() -> Option<TraceContext>) -> bool {
    READER.set(reader).is_ok()
}

/// The current trace context, if a reader is installed and there is one.
pub fn current() -> Option<TraceContext> {
    READER.get().and_then(|read| read())
}

/// The span a task core spawns for the current request runs in: the current one when traces are
/// carried (a reader is installed), else none, which costs nothing to enter on every poll.
pub(crate) fn span_for_spawn() -> tracing::Span {
    if READER.get().is_some() {
        tracing::Span::current()
    } else {
        tracing::Span::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_context_survives_its_storage_line() {
        let both = TraceContext {
            traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into(),
            tracestate: Some("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7".into()),
        };
        assert_eq!(TraceContext::from_line(&both.to_line()), Some(both.clone()));
        let parent_only = TraceContext { tracestate: None, ..both };
        assert_eq!(TraceContext::from_line(&parent_only.to_line()), Some(parent_only));
        assert_eq!(TraceContext::from_line(""), None);
    }
}
