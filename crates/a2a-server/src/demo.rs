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

use std::time::Duration;

use a2a_core::{AgentExecutor, RequestContext, Result, TaskUpdater};
use a2a_proto::v1::{AgentCapabilities, AgentCard, AgentProvider, AgentSkill, Artifact, Part};
use async_trait::async_trait;

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
            _ => {
                updater.start_work(None).await?;
                updater.add_artifact(Artifact::new(vec![Part::text(text.clone())]).with_name("echo")).await?;
                updater.complete(None).await
            }
        }
    }
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
