//! Calls an A2A agent over the binding of your choice and prints every streamed event.
//!
//! Run with `cargo run -p a2a-server --example client -- <jsonrpc|rest|grpc> <url> <message text>`,
//! e.g. `... -- grpc 127.0.0.1:8080 "stream 3"` against `cargo run -p a2a-server`.
//! The same code drives all three bindings: each client implements `a2a_core::A2aService`.

use std::sync::Arc;

use a2a_core::{A2aService, CallContext};
use a2a_proto::v1::{Message, SendMessageRequest};
use futures::StreamExt;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [binding, url, text @ ..] = args.as_slice() else {
        anyhow::bail!("usage: client <jsonrpc|rest|grpc> <url> <message text>");
    };
    let client: Arc<dyn A2aService> = match binding.as_str() {
        "jsonrpc" => Arc::new(a2a_jsonrpc::JsonRpcClient::new(url.clone())),
        "rest" => Arc::new(a2a_rest::RestClient::new(url)?),
        "grpc" => Arc::new(a2a_grpc::GrpcClient::connect_lazy(url.clone())?),
        other => anyhow::bail!("unknown binding {other:?}: use jsonrpc, rest or grpc"),
    };
    let request =
        SendMessageRequest { message: Some(Message::user_text(text.join(" "))), ..Default::default() };
    let mut events = client.send_streaming_message(&CallContext::v1(), request).await?;
    while let Some(event) = events.next().await {
        println!("{}", serde_json::to_string(&event?)?);
    }
    Ok(())
}
