//! Calls any A2A agent from its base URL: reads the agent card, negotiates the binding and the
//! protocol version, sends one message as a stream and prints every event (ProtoJSON).
//!
//! ```sh
//! cargo run -p a2a-server                                    # in one terminal
//! cargo run -p a2a-client --example call -- http://127.0.0.1:8080 "stream 3"
//! cargo run -p a2a-client --example call -- --version 0.3 --binding grpc http://127.0.0.1:8080 hello
//! ```
//!
//! `--binding` (repeatable: `jsonrpc`, `rest`, `grpc`) ranks the bindings to prefer; `--version`
//! (`1.0` or `0.3`) pins the protocol version, with no fallback to the other one.

use a2a_client::{Binding, Client};
use a2a_core::{A2aService, CallContext, ProtocolVersion};
use a2a_proto::v1::{Message, SendMessageRequest};
use futures::StreamExt;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut builder = Client::builder();
    let mut bindings = Vec::new();
    let mut rest = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--binding" => bindings.push(match args.next().as_deref() {
                Some("jsonrpc") => Binding::JsonRpc,
                Some("rest") => Binding::Rest,
                Some("grpc") => Binding::Grpc,
                other => return Err(format!("--binding takes jsonrpc, rest or grpc, not {other:?}").into()),
            }),
            "--version" => {
                builder = builder.protocol_version(match args.next().as_deref() {
                    Some("1.0") => ProtocolVersion::V1_0,
                    Some("0.3") => ProtocolVersion::V0_3,
                    other => return Err(format!("--version takes 1.0 or 0.3, not {other:?}").into()),
                })
            }
            _ => rest.push(arg),
        }
    }
    if !bindings.is_empty() {
        builder = builder.bindings(bindings);
    }
    let [url, text @ ..] = rest.as_slice() else {
        return Err("usage: call [--binding B]... [--version V] <agent base URL> <message text>".into());
    };

    let agent = builder.connect(url).await?;
    eprintln!("{}: {}", agent.card().name, agent.selected());
    let request =
        SendMessageRequest { message: Some(Message::user_text(text.join(" "))), ..Default::default() };
    let mut events = agent.send_streaming_message(&CallContext::default(), request).await?;
    while let Some(event) = events.next().await {
        println!("{}", serde_json::to_string(&event?)?);
    }
    Ok(())
}
