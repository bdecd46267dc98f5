//! A complete agent in about 20 lines: it echoes every message back as an artifact.
//!
//! Run with `cargo run -p a2a-server --example helloworld`, then call it from another terminal,
//! e.g. `cargo run -p a2a-server --example client -- rest http://127.0.0.1:8080 "hi"`.

use a2a_core::{AgentExecutor, RequestContext, Result, TaskUpdater};
use a2a_proto::v1::{AgentCapabilities, AgentCard, Artifact, Part};

struct Echo;

#[async_trait::async_trait]
impl AgentExecutor for Echo {
    async fn execute(&self, ctx: RequestContext, updater: TaskUpdater) -> Result<()> {
        updater.start_work(None).await?;
        updater.add_artifact(Artifact::new(vec![Part::text(ctx.message.text())])).await?;
        updater.complete(None).await
    }
}

fn card() -> AgentCard {
    AgentCard {
        name: "Hello World agent".into(),
        description: "Echoes what you send.".into(),
        version: "1.0.0".into(),
        capabilities: Some(AgentCapabilities { streaming: Some(true), ..Default::default() }),
        default_input_modes: vec!["text/plain".into()],
        default_output_modes: vec!["text/plain".into()],
        ..Default::default()
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    println!("hello world agent on http://{}", listener.local_addr()?);
    a2a_server::Server::builder().agent_card(card()).executor(Echo).serve(listener).await
}
