//! `chat`: an interactive conversation (SPEC.md §8.1, Tier 3). Only on a terminal (stdin and
//! stdout), never the default, and never prompting when either is not one: it then fails as a
//! usage error pointing at `send`. The `contextId` of the conversation, and the `taskId` while a
//! task waits for input, carry over from one line to the next, in this process only (nothing is
//! stored).

use std::io::{IsTerminal, Write};

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{
    send_message_response, Message, SendMessageConfiguration, SendMessageRequest, TaskState,
};

use crate::commands::Run;
use crate::error::CliError;
use crate::output::{parts_text, state_name};

/// Runs `chat`.
pub(crate) async fn run(run: &Run<'_>) -> Result<(), CliError> {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        return Err(CliError::usage("chat needs a terminal (stdin and stdout); from a script, use `a2a-cli send` with --context-id / --task-id"));
    }
    let agent = run.agent().await?;
    println!(
        "Chatting with {} over {}. An empty line or Ctrl-D ends the chat.",
        agent.client.card().name,
        agent.client.selected()
    );
    let mut context: Option<String> = None;
    let mut waiting_task: Option<String> = None;
    loop {
        print!("you> ");
        let _ = std::io::stdout().flush();
        let line = tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            std::io::stdin().read_line(&mut line).map(|n| (n > 0).then_some(line))
        })
        .await
        .map_err(|e| CliError::internal(e.to_string()))?
        .map_err(|e| CliError::internal(format!("cannot read the terminal: {e}")))?;
        let Some(line) = line.map(|l| l.trim().to_owned()).filter(|l| !l.is_empty()) else { break };
        let mut message = Message::user_text(line);
        if let Some(id) = &context {
            message.context_id = id.clone();
        }
        if let Some(id) = waiting_task.take() {
            message.task_id = id;
        }
        let request = SendMessageRequest {
            message: Some(message),
            configuration: Some(SendMessageConfiguration { return_immediately: true, ..Default::default() }),
            ..Default::default()
        };
        let response = match agent.client.send_message(&CallContext::v1(), request).await {
            Ok(response) => response,
            Err(error) => {
                let error = agent.error(&error);
                println!("error: {}: {}", error.code, error.message);
                continue;
            }
        };
        match response.payload {
            Some(send_message_response::Payload::Message(reply)) => {
                context = Some(reply.context_id.clone()).filter(|c| !c.is_empty()).or(context);
                println!("agent> {}", parts_text(&reply.parts));
            }
            Some(send_message_response::Payload::Task(task)) => {
                let task = match run.wait(&agent, task, None).await {
                    Ok(task) => task,
                    Err(error) => {
                        println!("error: {}: {}", error.code, error.message);
                        continue;
                    }
                };
                context = Some(task.context_id.clone());
                let mut said = Vec::new();
                if let Some(status) = task.status.as_ref().and_then(|s| s.message.as_ref()) {
                    said.push(parts_text(&status.parts));
                }
                said.extend(task.artifacts.iter().map(|a| parts_text(&a.parts)));
                let state = task.state();
                if !said.is_empty() {
                    println!("agent> {}", said.join("\n").trim_end());
                }
                if state.is_interrupted() {
                    waiting_task = Some(task.id.clone());
                    println!("[task {} is {}: your next line answers it]", task.id, state_name(state));
                } else if state != TaskState::Completed {
                    println!("[task {} is {}]", task.id, state_name(state));
                }
            }
            None => println!("error: the agent answered with neither a task nor a message"),
        }
    }
    if let Some(context) = context {
        println!("Context ID: {context}");
    }
    Ok(())
}
