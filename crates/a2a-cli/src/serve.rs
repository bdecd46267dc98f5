//! Serving, beyond the client: `demo-server` (SPEC.md §7.1, Tier 3: the workspace's demo agent,
//! to practise the commands on) and `serve --exec CMD` (any command as an agent: each message's
//! text on its stdin, ended by a newline, its stdout streamed back as an artifact line by line,
//! its exit status
//! mapped to COMPLETED or FAILED). Both run the reference server (`a2a-server`, in memory) on one
//! port with all three bindings, until Ctrl-C.

use std::process::Stdio;

use a2a_core::{AgentExecutor, RequestContext, Result as A2aResult, TaskUpdater};
use a2a_proto::v1::{AgentCapabilities, AgentCard, AgentSkill, Artifact, Part};
use async_trait::async_trait;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};

use crate::error::CliError;
use crate::output::{field, Out};

/// Runs the server for `card` and `executor` on `listen` until Ctrl-C / SIGTERM.
async fn serve(
    listen: &str,
    card: AgentCard,
    executor: impl AgentExecutor,
    out: &Out,
) -> Result<(), CliError> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| CliError::usage(format!("--listen {listen}: {e}")))?;
    let server = a2a_server::Server::builder()
        .agent_card(card)
        .executor(executor)
        // The demo agent's approval URLs (its `authorize` skill); nothing for other agents.
        .layer(a2a_demo::AuthorizeLayer::new())
        .spawn(listener)
        .await
        .map_err(|e| CliError::internal(format!("cannot start the server: {e}")))?;
    let url = server.url();
    out.print(&format!("{}{}", field("Listening", &url), field("Try", format!("a2a-cli card get -a {url}"))));
    a2a_server::shutdown_signal().await;
    out.note("stopping");
    server.shutdown().await.map_err(|e| CliError::internal(format!("the server failed: {e}")))
}

/// `demo-server`.
pub(crate) async fn demo(listen: &str, out: &Out) -> Result<(), CliError> {
    serve(listen, a2a_demo::demo_card(), a2a_demo::DemoAgent, out).await
}

/// `serve --exec`.
pub(crate) async fn exec(listen: &str, command: &str, name: Option<&str>, out: &Out) -> Result<(), CliError> {
    let card = AgentCard {
        name: name.unwrap_or("a2a-cli serve --exec").into(),
        description: format!(
            "Runs `{command}` for each message: the text on its stdin, its stdout as the artifact."
        ),
        version: env!("CARGO_PKG_VERSION").into(),
        capabilities: Some(AgentCapabilities {
            streaming: Some(true),
            push_notifications: Some(true),
            ..Default::default()
        }),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        skills: vec![AgentSkill {
            id: "exec".into(),
            name: "Run the command".into(),
            description: format!("`{command}` with the message's text on stdin"),
            tags: vec!["exec".into()],
            ..Default::default()
        }],
        ..Default::default()
    };
    serve(listen, card, Exec { command: command.to_owned() }, out).await
}

/// The `serve --exec` agent.
#[derive(Debug)]
struct Exec {
    command: String,
}

fn shell(command: &str) -> tokio::process::Command {
    #[cfg(unix)]
    let mut shell = {
        let mut shell = tokio::process::Command::new("sh");
        shell.arg("-c").arg(command);
        shell
    };
    #[cfg(not(unix))]
    let mut shell = {
        let mut shell = tokio::process::Command::new("cmd");
        shell.arg("/C").arg(command);
        shell
    };
    shell.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    shell
}

#[async_trait]
impl AgentExecutor for Exec {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> A2aResult<()> {
        updater.start_work(None).await?;
        let mut child = match shell(&self.command).spawn() {
            Ok(child) => child,
            Err(error) => {
                return updater
                    .fail(Some(updater.agent_text(format!("cannot run `{}`: {error}", self.command))))
                    .await
            }
        };
        // The text as a line: line-oriented commands (`read`, `wc -l`, ...) expect the newline.
        let mut input = ctx.message.text();
        if !input.ends_with('\n') {
            input.push('\n');
        }
        if let Some(mut stdin) = child.stdin.take() {
            // A command that does not read its input is not an error.
            let _ = stdin.write_all(input.as_bytes()).await;
        }
        let mut stderr = child.stderr.take();
        let stderr_tail = tokio::spawn(async move {
            let mut text = String::new();
            if let Some(stderr) = stderr.as_mut() {
                let _ = stderr.take(64 * 1024).read_to_string(&mut text).await;
            }
            text
        });
        let artifact_id = a2a_proto::new_id();
        let chunk = |text: String| Artifact {
            artifact_id: artifact_id.clone(),
            name: "stdout".into(),
            parts: vec![Part::text(text)],
            ..Default::default()
        };
        let mut lines = child.stdout.take().map(|s| tokio::io::BufReader::new(s).lines());
        let mut pending: Option<String> = None;
        let mut sent = 0usize;
        loop {
            let next = match lines.as_mut() {
                Some(lines) => tokio::select! {
                    () = updater.cancelled() => {
                        let _ = child.kill().await;
                        return Ok(());
                    }
                    line = lines.next_line() => line,
                },
                None => Ok(None),
            };
            match next {
                Ok(Some(line)) => {
                    if let Some(previous) = pending.replace(format!("{line}\n")) {
                        updater.artifact_update(chunk(previous), sent > 0, false).await?;
                        sent += 1;
                    }
                }
                Ok(None) | Err(_) => break,
            }
        }
        if let Some(last) = pending {
            updater.artifact_update(chunk(last), sent > 0, true).await?;
        }
        let status = tokio::select! {
            () = updater.cancelled() => {
                let _ = child.kill().await;
                return Ok(());
            }
            status = child.wait() => status,
        };
        let stderr = stderr_tail.await.unwrap_or_default();
        match status {
            Ok(status) if status.success() => updater.complete(None).await,
            Ok(status) => {
                let mut why = format!("`{}` exited with {status}", self.command);
                if !stderr.trim().is_empty() {
                    why.push_str(&format!(": {}", stderr.trim()));
                }
                updater.fail(Some(updater.agent_text(why))).await
            }
            Err(error) => {
                updater
                    .fail(Some(updater.agent_text(format!("waiting for `{}`: {error}", self.command))))
                    .await
            }
        }
    }
}
