//! `a2a-conformance`: the cross-binding conformance suite against any A2A agent.
//!
//! Run with `cargo run -p a2a-conformance -- --url http://HOST:PORT` (the base URL under which the
//! agent serves `/.well-known/agent-card.json`). Prints a table of scenario x column verdicts (a
//! column per binding and protocol version the card declares: 1.0, and 0.3 when it declares any
//! 0.3 interface) with the reason for every failure and skip; exits 1 if anything failed, 2 if the
//! suite could not run.

use std::net::SocketAddr;
use std::process::ExitCode;

use clap::Parser;

/// The A2A cross-binding conformance suite (spec 5.1), in A2A 1.0 and 0.3.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// Base URL of the agent: its card is read from URL/.well-known/agent-card.json.
    #[arg(long, required_unless_present = "list")]
    url: Option<String>,

    /// Also start in-process reference servers for the scenarios that need a particular server
    /// configuration (use this when the agent under test is the reference server).
    #[arg(long)]
    reference_setups: bool,

    /// Webhook URL to register in push configs (default: a receiver the suite starts).
    #[arg(long, value_name = "URL")]
    webhook_url: Option<String>,

    /// Where the suite's own webhook receiver listens.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:0")]
    webhook_listen: SocketAddr,

    /// Run only this scenario (repeatable); `--list` shows them.
    #[arg(long = "only", value_name = "SCENARIO")]
    only: Vec<String>,

    /// Print the report as Markdown.
    #[arg(long, conflicts_with = "json")]
    markdown: bool,

    /// Print the report as JSON, with every cell's normalized record.
    #[arg(long)]
    json: bool,

    /// List the scenarios with their spec sections (and `1.0 only` for those 0.3 lacks), and exit.
    #[arg(long)]
    list: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    if args.list {
        for scenario in a2a_conformance::scenarios::all() {
            let versions = if scenario.needs.only_v1.is_some() { "1.0 only" } else { "1.0, 0.3" };
            println!("{:28} {versions:8}  spec {:32} {}", scenario.id, scenario.spec, scenario.title);
        }
        return ExitCode::SUCCESS;
    }
    let options = a2a_conformance::Options {
        reference_setups: args.reference_setups,
        webhook_url: args.webhook_url,
        webhook_listen: args.webhook_listen,
        only: args.only,
    };
    let url = args.url.unwrap_or_default();
    match a2a_conformance::check(&url, &options).await {
        Ok(report) => {
            if args.json {
                println!("{:#}", report.to_json());
            } else if args.markdown {
                println!("{}", report.to_markdown());
            } else {
                println!("{report}");
            }
            if report.passed() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            }
        }
        Err(error) => {
            eprintln!("a2a-conformance: {error:#}");
            ExitCode::from(2)
        }
    }
}
