//! What the reference server's tests share: the demo server on a loopback port (`demo`,
//! `reference`, `spawn`), a client of every binding in 1.0 and 0.3 (`clients`), a task from a message
//! (`task_of`), and the binary as a child process (`ServerProcess`), started on a loopback port of
//! its own and killed when dropped, for the tests that need a real process (kill -9, several
//! replicas). What is not server-specific (the scripted service, fixtures) lives in
//! `a2a-test-support`.

#![allow(dead_code, unreachable_pub)] // Each test file uses its own part of this module.

pub mod webhook;

use std::sync::Arc;

use a2a_core::push::DestinationPolicy;
use a2a_core::ProtocolVersion::V0_3;
use a2a_core::{A2aService, CallContext};
use a2a_grpc::GrpcClient;
use a2a_jsonrpc::JsonRpcClient;
use a2a_proto::v1::{send_message_response, AgentCard, Task};
use a2a_rest::RestClient;
use a2a_server::{RunningServer, Server, ServerBuilder};
pub use a2a_test_support::fixtures::send;

/// A builder of the demo server: `card` and the demo agent (`a2a_demo`).
pub fn demo(card: AgentCard) -> ServerBuilder {
    Server::builder().agent_card(card).executor(a2a_demo::DemoAgent)
}

/// The demo server with everything the demo offers: the demo card and its extended card, and push
/// notifications allowed to loopback webhooks (as `a2a-server --push-allow 127.0.0.0/8`).
pub fn reference() -> ServerBuilder {
    demo(a2a_demo::demo_card())
        .extended_agent_card(a2a_demo::demo_extended_card())
        .push_destination_policy(DestinationPolicy::public_only().allowing(["127.0.0.0/8".parse().unwrap()]))
}

/// Spawns `builder` on `127.0.0.1`, port chosen by the OS; it accepts connections on return.
pub async fn spawn(builder: ServerBuilder) -> RunningServer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    builder.spawn(listener).await.unwrap()
}

/// A client of `server` on every binding in 1.0, each with its name.
pub async fn clients_v1(server: &RunningServer) -> Vec<(&'static str, Arc<dyn A2aService>)> {
    let url = server.url();
    vec![
        ("JSONRPC", Arc::new(JsonRpcClient::new(format!("{url}/")))),
        ("HTTP+JSON", Arc::new(RestClient::new(&url).unwrap())),
        ("GRPC", Arc::new(GrpcClient::connect(url.clone()).await.unwrap())),
    ]
}

/// A client of `server` on every binding, in 1.0 and in 0.3, each with its name.
pub async fn clients(server: &RunningServer) -> Vec<(&'static str, Arc<dyn A2aService>)> {
    let url = server.url();
    let v03: Vec<(&'static str, Arc<dyn A2aService>)> = vec![
        ("JSONRPC 0.3", Arc::new(JsonRpcClient::new(format!("{url}/")).with_protocol_version(V0_3))),
        ("HTTP+JSON 0.3", Arc::new(RestClient::new(&url).unwrap().with_protocol_version(V0_3))),
        ("GRPC 0.3", Arc::new(GrpcClient::connect(url.clone()).await.unwrap().with_protocol_version(V0_3))),
    ];
    let mut clients = clients_v1(server).await;
    clients.extend(v03);
    clients
}

/// Sends `text` with `ctx` and returns the task it made; panics on an error or a message reply.
pub async fn task_of(client: &dyn A2aService, ctx: &CallContext, text: &str) -> Task {
    match client.send_message(ctx, send(text)).await.unwrap().payload {
        Some(send_message_response::Payload::Task(task)) => task,
        other => panic!("a task, got {other:?}"),
    }
}

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStderr, Command};

/// What the binary prints once it accepts connections.
const LISTENING: &str = "a2a-server listening on ";

/// A running `a2a-server` process.
pub struct ServerProcess {
    pub child: Child,
    /// `http://127.0.0.1:PORT` (no trailing slash).
    pub url: String,
    /// What it printed on stdout before it listened (ports of its own, the metrics address).
    pub banner: Vec<String>,
}

impl ServerProcess {
    /// Starts the binary with `--listen 127.0.0.1:0 --log warn` and `args`, and waits (30 s at
    /// most) until it listens. `A2A_STORE` from the environment is ignored: the test chooses.
    pub async fn start<I, S>(args: I) -> ServerProcess
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-server"));
        command.args(["--log", "warn"]).args(args);
        Self::launch(command).await
    }

    /// [`start`](Self::start) with these environment variables set for the server.
    pub async fn start_with_env<I, S>(args: I, env: &[(&str, &str)]) -> ServerProcess
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-server"));
        command.args(["--log", "warn"]).args(args).envs(env.iter().copied());
        Self::launch(command).await
    }

    /// Starts the binary like [`start`](Self::start), but with no `--log` of its own (`args`
    /// choose) and its stderr, the log, handed to the caller line by line (read it: a full pipe
    /// blocks the server).
    pub async fn start_logging<I, S>(args: I) -> (ServerProcess, Lines<BufReader<ChildStderr>>)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-server"));
        command.args(args).stderr(Stdio::piped());
        let mut server = Self::launch(command).await;
        let log = BufReader::new(server.child.stderr.take().unwrap()).lines();
        (server, log)
    }

    async fn launch(mut command: Command) -> ServerProcess {
        let mut child = command
            .args(["--listen", "127.0.0.1:0"])
            .env_remove("A2A_STORE")
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("the a2a-server binary starts");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut banner = Vec::new();
        let url = tokio::time::timeout(Duration::from_secs(30), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                if let Some(url) = line.strip_prefix(LISTENING) {
                    return url.trim().to_owned();
                }
                banner.push(line);
            }
            panic!("the server exited before it listened")
        })
        .await
        .expect("the server listens within 30 s");
        // Keep draining stdout so the server never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        ServerProcess { child, url, banner }
    }

    /// The JSON-RPC endpoint (`POST /`).
    pub fn jsonrpc_url(&self) -> String {
        format!("{}/", self.url)
    }

    /// SIGKILL: no shutdown code runs.
    pub async fn kill_9(&mut self) {
        self.child.kill().await.unwrap();
    }
}
