//! Output (SPEC.md §11): `text` (one `Label: value` per line, blocks closed by a blank line, no
//! control sequences on stdout) and `json` (the protocol's own ProtoJSON; one line per event when
//! streaming). Diagnostics, warnings and the spinner go to stderr; colour and the spinner only when
//! stderr is a terminal, colour only without `NO_COLOR`.

use std::fmt;
use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::v1::{part, AgentCard, Artifact, Message, Part, Task, TaskState};
use serde_json::Value;

use crate::cli::Format;
use crate::error::CliError;

/// Where and how to write.
#[derive(Debug)]
pub(crate) struct Out {
    /// The output format.
    pub(crate) format: Format,
    verbose: bool,
    debug: bool,
    /// Colour on stderr.
    color: bool,
    /// Spinner on stderr.
    spinner: bool,
    /// Whether the spinner line is drawn (shared with the spinner task).
    drawn: Arc<Mutex<bool>>,
}

impl Out {
    /// From the options and the environment.
    pub(crate) fn new(format: Format, verbose: bool, debug: bool) -> Self {
        let tty = std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb");
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Out { format, verbose, debug, color: tty && !no_color, spinner: tty, drawn: Arc::default() }
    }

    /// Whether the format is JSON.
    pub(crate) fn json(&self) -> bool {
        self.format == Format::Json
    }

    /// Whether `--verbose`.
    pub(crate) fn verbose(&self) -> bool {
        self.verbose
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    fn stderr_line(&self, line: &str) {
        self.clear_spinner();
        let _ = writeln!(std::io::stderr(), "{line}");
    }

    /// A `--debug` line on stderr.
    pub(crate) fn debug(&self, args: fmt::Arguments<'_>) {
        if self.debug {
            self.stderr_line(&format!("{} {args}", self.paint("2", "debug:")));
        }
    }

    /// A warning on stderr.
    pub(crate) fn warn(&self, text: &str) {
        self.stderr_line(&format!("{} {text}", self.paint("33;1", "warning:")));
    }

    /// A note on stderr.
    pub(crate) fn note(&self, text: &str) {
        self.stderr_line(&format!("{} {text}", self.paint("36", "note:")));
    }

    /// Writes `text` to stdout as it is, flushed (clearing the spinner first).
    pub(crate) fn print(&self, text: &str) {
        self.clear_spinner();
        let mut stdout = std::io::stdout().lock();
        let _ = stdout.write_all(text.as_bytes());
        let _ = stdout.flush();
    }

    /// One JSON document (pretty) on stdout.
    pub(crate) fn document(&self, value: &Value) {
        self.print(&format!("{}\n", serde_json::to_string_pretty(value).unwrap_or_default()));
    }

    /// One JSON Lines record on stdout, flushed.
    pub(crate) fn line(&self, value: &Value) {
        self.print(&format!("{}\n", serde_json::to_string(value).unwrap_or_default()));
    }

    /// Reports a failure: the envelope on stdout in JSON (as a line when streaming), otherwise
    /// `error: <code>: <message>` and the hint on stderr.
    pub(crate) fn error(&self, error: &CliError, streaming: bool) {
        if self.json() {
            if streaming {
                self.line(&error.to_json());
            } else {
                self.document(&error.to_json());
            }
        } else {
            self.stderr_line(&format!("{} {}: {}", self.paint("31;1", "error:"), error.code, error.message));
            if let Some(hint) = &error.hint {
                self.stderr_line(&format!("{} {hint}", self.paint("2", "hint:")));
            }
        }
    }

    /// Starts a spinner on stderr labelled `label` (nothing when stderr is not a terminal or the
    /// format is JSON). It stops when the guard drops.
    pub(crate) fn spinner(&self, label: String) -> Spinner {
        if !self.spinner || self.json() {
            return Spinner { task: None, drawn: self.drawn.clone() };
        }
        let drawn = self.drawn.clone();
        let task = tokio::spawn(async move {
            const FRAMES: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
            let mut i = 0;
            loop {
                {
                    let mut drawn = drawn.lock().unwrap_or_else(|e| e.into_inner());
                    let _ = write!(std::io::stderr(), "\r\x1b[2K{} {label}", FRAMES[i % FRAMES.len()]);
                    let _ = std::io::stderr().flush();
                    *drawn = true;
                }
                i += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        });
        Spinner { task: Some(task), drawn: self.drawn.clone() }
    }

    fn clear_spinner(&self) {
        clear(&self.drawn);
    }
}

fn clear(drawn: &Mutex<bool>) {
    let mut drawn = drawn.lock().unwrap_or_else(|e| e.into_inner());
    if *drawn {
        let _ = write!(std::io::stderr(), "\r\x1b[2K");
        let _ = std::io::stderr().flush();
        *drawn = false;
    }
}

/// A running spinner; dropping it stops and erases it.
#[derive(Debug)]
pub(crate) struct Spinner {
    task: Option<tokio::task::JoinHandle<()>>,
    drawn: Arc<Mutex<bool>>,
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(task) = self.task.take() {
            task.abort();
            clear(&self.drawn);
        }
    }
}

/// `COMPLETED` for `TASK_STATE_COMPLETED`.
pub(crate) fn state_name(state: TaskState) -> &'static str {
    let name = state.as_str_name();
    name.strip_prefix("TASK_STATE_").unwrap_or(name)
}

/// `Label: value\n`, with the value on one line (line breaks become spaces).
pub(crate) fn field(label: &str, value: impl fmt::Display) -> String {
    let value = value.to_string().replace(['\r', '\n'], " ");
    format!("{label}: {value}\n")
}

/// A block: `Label:`, the content, a blank line.
pub(crate) fn block(label: &str, content: &str) -> String {
    let content = content.trim_end_matches('\n');
    format!("{label}:\n{content}\n\n")
}

/// The text of parts: text as it is, data as formatted JSON, a file by name, media type and size
/// (never dropped silently).
pub(crate) fn parts_text(parts: &[Part]) -> String {
    parts.iter().map(part_text).collect::<Vec<_>>().join("\n")
}

fn part_text(part: &Part) -> String {
    let named = |what: &str| {
        let mut text = format!("[file{what}");
        if !part.filename.is_empty() {
            text.push_str(&format!(" name={}", part.filename));
        }
        if !part.media_type.is_empty() {
            text.push_str(&format!(" mediaType={}", part.media_type));
        }
        text.push(']');
        text
    };
    match &part.content {
        Some(part::Content::Text(text)) => text.clone(),
        Some(part::Content::Data(value)) => {
            let json = a2a_proto::json::from_pb_value(value);
            serde_json::to_string_pretty(&json).unwrap_or_default()
        }
        Some(part::Content::Raw(bytes)) => named(&format!(" size={} bytes", bytes.len())),
        Some(part::Content::Url(url)) => named(&format!(" url={url}")),
        None => "[empty part]".into(),
    }
}

/// An artifact as a block.
pub(crate) fn artifact(artifact: &Artifact) -> String {
    block(&format!("Artifact {}", artifact_label(artifact)), &parts_text(&artifact.parts))
}

/// `name (id)` or `id`.
pub(crate) fn artifact_label(artifact: &Artifact) -> String {
    if artifact.name.is_empty() {
        artifact.artifact_id.clone()
    } else {
        format!("{} ({})", artifact.name, artifact.artifact_id)
    }
}

/// A task: identifiers and state, its status message, artifacts; the history when `verbose`
/// (SPEC.md §8.2, §10.3).
pub(crate) fn task(task: &Task, verbose: bool) -> String {
    let mut text = field("Task ID", &task.id);
    text.push_str(&field("Context ID", &task.context_id));
    text.push_str(&field("State", state_name(task.state())));
    if let Some(timestamp) = task.status.as_ref().and_then(|s| s.timestamp.as_ref()) {
        if verbose {
            text.push_str(&field("Updated", timestamp));
        }
    }
    if let Some(message) = task.status.as_ref().and_then(|s| s.message.as_ref()) {
        text.push_str(&block("Status Message", &parts_text(&message.parts)));
    }
    for a in &task.artifacts {
        text.push_str(&artifact(a));
    }
    for message in task.history.iter().filter(|_| verbose) {
        text.push_str(&block(&format!("History {}", role(message)), &parts_text(&message.parts)));
    }
    text
}

fn role(message: &Message) -> &'static str {
    match message.role() {
        a2a_proto::v1::Role::User => "user",
        a2a_proto::v1::Role::Agent => "agent",
        _ => "unspecified",
    }
}

/// A direct message reply.
pub(crate) fn message(message: &Message) -> String {
    let mut text = field("Message ID", &message.message_id);
    text.push_str(&field("Context ID", &message.context_id));
    if !message.task_id.is_empty() {
        text.push_str(&field("Task ID", &message.task_id));
    }
    text.push_str(&field("Role", role(message)));
    text.push_str(&block("Message", &parts_text(&message.parts)));
    text
}

/// An agent card: identity, capabilities, interfaces, security schemes, skills (SPEC.md §10.1).
pub(crate) fn card(card: &AgentCard, selected: Option<&str>, verbose: bool, verified: bool) -> String {
    let yes = |b: Option<bool>| if b == Some(true) { "yes" } else { "no" };
    let mut text = field("Name", &card.name);
    text.push_str(&field("Description", &card.description));
    text.push_str(&field("Version", &card.version));
    if let Some(provider) = &card.provider {
        text.push_str(&field("Provider", format!("{} {}", provider.organization, provider.url)));
    }
    let caps = card.capabilities.clone().unwrap_or_default();
    text.push_str(&field("Streaming", yes(caps.streaming)));
    text.push_str(&field("Push Notifications", yes(caps.push_notifications)));
    text.push_str(&field("Extended Card", yes(caps.extended_agent_card)));
    for extension in &caps.extensions {
        let required = if extension.required { " (required)" } else { "" };
        text.push_str(&field("Extension", format!("{}{required}", extension.uri)));
    }
    for interface in &card.supported_interfaces {
        let mut line =
            format!("{} {} {}", interface.protocol_binding, interface.protocol_version, interface.url);
        if !interface.tenant.is_empty() {
            line.push_str(&format!(" tenant={}", interface.tenant));
        }
        text.push_str(&field("Interface", line));
    }
    if let Some(selected) = selected {
        text.push_str(&field("Selected Interface", selected));
    }
    let mut schemes: Vec<_> = card.security_schemes.iter().collect();
    schemes.sort_by(|a, b| a.0.cmp(b.0));
    for (name, scheme) in schemes {
        let kind = scheme.scheme.as_ref().map_or_else(|| "unspecified".to_owned(), crate::agent::scheme_kind);
        text.push_str(&field("Security Scheme", format!("{name}: {kind}")));
    }
    // "verified" only when `card get --verify-keys` checked them (SPEC.md §10.1): a card that
    // does not verify never gets this far.
    let signatures = match card.signatures.len() {
        0 => "absent".to_owned(),
        n if verified => format!("{n}, verified with a key of --verify-keys"),
        n => format!("{n}, unverified (pass --verify-keys FILE to check them)"),
    };
    text.push_str(&field("Signatures", signatures));
    for skill in &card.skills {
        text.push_str(&field("Skill", format!("{}: {}", skill.id, skill.name)));
        if verbose {
            text.push_str(&block(&format!("Skill {} Description", skill.id), &skill.description));
        }
    }
    text
}

/// A message's JSON, or an internal error when it cannot be written.
pub(crate) fn to_json<T: serde::Serialize + prost::Name>(message: &T) -> Result<Value, CliError> {
    a2a_proto::json::to_value(message)
        .map_err(|e| CliError::internal(format!("cannot write {} as JSON: {e}", T::NAME)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a_proto::v1::TaskStatus;

    #[test]
    fn text_is_labelled_lines_and_closed_blocks() {
        let mut t = Task { id: "t1".into(), context_id: "c1".into(), ..Default::default() };
        t.status = Some(TaskStatus { state: TaskState::Completed as i32, ..Default::default() });
        t.artifacts.push(
            Artifact::new(vec![Part::text("hi\nthere"), Part::raw(vec![1, 2, 3], "image/png")])
                .with_name("echo"),
        );
        t.artifacts.push(Artifact::new(vec![Part::json(&serde_json::json!({"k": "v"}))]).with_name("data"));
        let text = task(&t, false);
        assert!(text.starts_with("Task ID: t1\nContext ID: c1\nState: COMPLETED\nArtifact echo ("), "{text}");
        assert!(text.contains("hi\nthere\n[file size=3 bytes mediaType=image/png]\n\n"), "{text}");
        assert!(text.ends_with("):\n{\n  \"k\": \"v\"\n}\n\n"), "a data part as formatted JSON: {text}");
        assert!(!text.contains('\x1b'));
        assert_eq!(field("Label", "a\nb"), "Label: a b\n");
    }
}
