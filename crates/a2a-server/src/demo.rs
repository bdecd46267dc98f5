//! The built-in demo agent: one skill per protocol feature, chosen by the first word of the
//! message's text (the card's skills list the words and examples).
//!
//! | message            | behaviour                                                                 |
//! |--------------------|---------------------------------------------------------------------------|
//! | anything else      | echo: `WORKING`, one artifact with the text, `COMPLETED`                  |
//! | `stream [n] [ms]`  | `WORKING`, one artifact in `n` chunks (`append`, `lastChunk`) `ms` apart, `COMPLETED`|
//! | `ask`              | `INPUT_REQUIRED`; the next message on the task completes it               |
//! | `wait [seconds]`   | `WORKING` until canceled (or `seconds`, default 300, pass), then `COMPLETED` |
//! | `reply [text]`     | a direct `Message` reply, no task                                          |
//! | `fail`             | `FAILED` with an explanation                                              |
//! | `reject`           | `REJECTED` with an explanation                                            |
//! | `file` + file parts | `COMPLETED`, one artifact: a line `N bytes, sha256 HEX, TYPE` per file part with bytes (what the agent read; `FAILED` without one) |

use std::time::Duration;

use a2a_core::{AgentExecutor, RequestContext, Result, TaskUpdater};
use a2a_proto::v1::{part::Content, AgentCapabilities, AgentCard, AgentProvider, AgentSkill, Artifact, Part};
use async_trait::async_trait;
use sha2::{Digest as _, Sha256};

/// The demo agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct DemoAgent;

/// Most chunks a `stream` request may ask for.
const MAX_CHUNKS: usize = 100_000;
/// The longest pause a `stream` request may ask for between chunks (milliseconds).
const MAX_PAUSE_MS: u64 = 10_000;

#[async_trait]
impl AgentExecutor for DemoAgent {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        let text = ctx.message.text();
        let mut words = text.split_whitespace();
        let command = words.next().unwrap_or("").to_ascii_lowercase();
        let rest = words.collect::<Vec<_>>().join(" ");
        // A message continuing an input-required task answers the question.
        if let Some(task) = &ctx.task {
            if task.state().is_interrupted() {
                updater.start_work(None).await?;
                let greeting = format!("Hello, {}!", if text.is_empty() { "stranger" } else { &text });
                updater
                    .add_artifact(Artifact::new(vec![Part::text(greeting.clone())]).with_name("greeting"))
                    .await?;
                return updater.complete(Some(updater.agent_text(greeting))).await;
            }
        }
        match command.as_str() {
            "stream" => {
                let mut numbers = rest.split_whitespace().map(str::parse::<u64>);
                let n = numbers.next().and_then(Result::ok).unwrap_or(5).clamp(1, MAX_CHUNKS as u64) as usize;
                let pause =
                    Duration::from_millis(numbers.next().and_then(Result::ok).unwrap_or(0).min(MAX_PAUSE_MS));
                updater.start_work(Some(updater.agent_text(format!("Streaming {n} chunks")))).await?;
                let artifact_id = a2a_proto::new_id();
                for i in 0..n {
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                    let chunk = Artifact {
                        artifact_id: artifact_id.clone(),
                        name: "stream".into(),
                        parts: vec![Part::text(format!("chunk {i}\n"))],
                        ..Default::default()
                    };
                    updater.artifact_update(chunk, i > 0, i + 1 == n).await?;
                }
                updater.complete(None).await
            }
            "ask" => updater.require_input(Some(updater.agent_text("What is your name?"))).await,
            "wait" => {
                let seconds = rest.parse::<u64>().unwrap_or(300).min(3600);
                updater
                    .start_work(Some(updater.agent_text(format!("Working for up to {seconds} s"))))
                    .await?;
                tokio::select! {
                    () = updater.cancelled() => Ok(()),
                    () = tokio::time::sleep(Duration::from_secs(seconds)) => {
                        updater.complete(Some(updater.agent_text("Done waiting"))).await
                    }
                }
            }
            "reply" => {
                let answer = if rest.is_empty() { "Hello from the reference agent".to_owned() } else { rest };
                updater
                    .reply(a2a_proto::v1::Message::agent_text(answer).with_context_id(updater.context_id()))
                    .await
            }
            "fail" => {
                updater
                    .fail(Some(updater.agent_text("This task failed on purpose (demo skill `fail`)")))
                    .await
            }
            "reject" => {
                updater.reject(Some(updater.agent_text("I will not do that (demo skill `reject`)"))).await
            }
            "file" => {
                let digests = file_digests(&ctx.message.parts);
                if digests.is_empty() {
                    let why = "The file skill reads file parts with bytes; this message has none";
                    return updater.fail(Some(updater.agent_text(why))).await;
                }
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(digests)]).with_name("file")).await?;
                updater.complete(None).await
            }
            _ => {
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(text.clone())]).with_name("echo")).await?;
                updater.complete(None).await
            }
        }
    }
}

/// What the `file` skill answers: `N bytes, sha256 HEX, TYPE` for each part with bytes, one per
/// line, so a client can check that the agent read the very bytes it sent (the interop matrix
/// does, over every binding and both 0.3 encodings of file bytes: `docs/interop.md`).
fn file_digests(parts: &[Part]) -> String {
    let lines: Vec<String> = parts
        .iter()
        .filter_map(|part| match &part.content {
            Some(Content::Raw(bytes)) => {
                let hex: String = Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect();
                Some(format!("{} bytes, sha256 {hex}, {}", bytes.len(), part.media_type))
            }
            _ => None,
        })
        .collect();
    lines.join("\n")
}

fn skill(id: &str, name: &str, description: &str, examples: &[&str]) -> AgentSkill {
    AgentSkill {
        id: id.into(),
        name: name.into(),
        description: description.into(),
        tags: vec!["demo".into(), id.into()],
        examples: examples.iter().map(|e| (*e).to_owned()).collect(),
        ..Default::default()
    }
}

/// The demo agent's card, without interfaces (the server fills them in from its address).
pub fn demo_card() -> AgentCard {
    AgentCard {
        name: "A2A Rust reference agent".into(),
        description: "Demonstrates every A2A feature; the first word of a message picks the skill.".into(),
        provider: Some(AgentProvider {
            url: "https://github.com/a2a-rs-project/a2a".into(),
            organization: "a2a-rs project".into(),
        }),
        version: env!("CARGO_PKG_VERSION").into(),
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            extensions: vec![],
            extended_agent_card: Some(true),
        }),
        default_input_modes: vec!["text/plain".into(), "application/json".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![
            skill("echo", "Echo", "Completes a task whose artifact is the message text.", &["hello there"]),
            skill(
                "stream",
                "Stream",
                "Streams one artifact in N chunks (append / lastChunk), optionally MS milliseconds apart, then completes.",
                &["stream 5", "stream 20 100"],
            ),
            skill(
                "ask",
                "Multi-turn",
                "Asks for your name (input-required); the next message completes the task.",
                &["ask"],
            ),
            skill(
                "wait",
                "Long-running",
                "Works until canceled or N seconds pass (default 300).",
                &["wait 60"],
            ),
            skill("reply", "Direct reply", "Answers with a Message instead of a Task.", &["reply hi"]),
            skill("fail", "Failure", "Ends the task FAILED.", &["fail"]),
            skill("reject", "Rejection", "Ends the task REJECTED.", &["reject"]),
            AgentSkill {
                // Binary and text files (spec 4.4.5: a skill's input modes override the card's
                // defaults; the server accepts what any skill accepts). Other media types stay
                // refused with ContentTypeNotSupported, which the demo shows too.
                input_modes: vec!["application/octet-stream".into(), "text/plain".into()],
                ..skill(
                    "file",
                    "File digest",
                    "Reads the message's file parts with bytes (application/octet-stream or text/plain) \
                     and answers one line \
                     `N bytes, sha256 HEX, TYPE` per file: what the agent received.",
                    &["file (with a file part)"],
                )
            },
        ],
        ..Default::default()
    }
}

/// The demo's extended card: the public card plus a note that the caller saw the extended one.
pub fn demo_extended_card() -> AgentCard {
    let mut card = demo_card();
    card.description.push_str(" (extended card)");
    card
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_digests_name_length_hash_and_type_of_each_file_with_bytes() {
        let parts = [
            Part::text("file"),
            Part::raw(b"abc".to_vec(), "text/plain"),
            Part::url("https://example.com/x", "image/png"),
            Part::raw(Vec::new(), "application/octet-stream"),
        ];
        assert_eq!(
            file_digests(&parts),
            "3 bytes, sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad, text/plain\n\
             0 bytes, sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855, \
             application/octet-stream"
        );
        assert_eq!(file_digests(&[Part::text("file")]), "", "no file: the skill fails the task");
    }
}
