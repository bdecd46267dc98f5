//! `a2a-cli`: the A2A command-line client, following the `a2aproject/a2a-cli` specification
//! (v0.2): `a2a-cli <command> -a <agent card ref> ...`. See `docs/cli.md` for usage and
//! `docs/cli-compliance.md` for what is implemented and tested.
//!
//! Everything protocol-related goes through `a2a-client`: card resolution, negotiation of the
//! binding and version, every call.

mod agent;
mod auth;
mod catalog;
mod chat;
mod cli;
mod commands;
mod config;
mod error;
mod output;
mod serve;
mod validate;
mod webhook;
mod wire;

use std::process::ExitCode;

use a2a_proto::v1::Part;
use clap::error::ErrorKind;
use clap::{ArgMatches, CommandFactory, FromArgMatches};

use crate::cli::{Cli, Command, SendArgs};
use crate::commands::{Run, REPORTED};
use crate::error::CliError;
use crate::output::Out;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Before parsing: the files only fill in variables the environment lacks (SPEC.md §8.3).
    let loaded = config::load(&args);
    let json = wants_json(&args);
    let matches = match Cli::command().try_get_matches_from(&args) {
        Ok(matches) => matches,
        Err(error) => return usage_error(error, json),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(error) => return usage_error(error, json),
    };
    let out = Out::new(cli.global.output, cli.global.verbose, cli.global.debug);
    if cli.global.debug {
        for credential in [&cli.global.bearer, &cli.global.api_key].into_iter().flatten() {
            wire::secret(credential);
        }
        if let Command::Auth { command: cli::AuthCommand::Login { client_secret: Some(secret), .. } } =
            &cli.command
        {
            wire::secret(secret);
        }
        wire::enable();
    }
    for warning in &loaded.warnings {
        out.warn(warning);
    }
    for file in &loaded.files {
        out.debug(format_args!("settings read from {}", file.display()));
    }
    let result = run(&cli, &matches, &out, &loaded);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if error.code != REPORTED {
                out.error(&error, false);
            }
            ExitCode::from(error.exit)
        }
    }
}

fn run(cli: &Cli, matches: &ArgMatches, out: &Out, loaded: &config::Loaded) -> Result<(), CliError> {
    match &cli.command {
        Command::Completion { shell } => {
            clap_complete::generate(*shell, &mut Cli::command(), "a2a-cli", &mut std::io::stdout());
            return Ok(());
        }
        Command::Config { command: cli::ConfigCommand::Show } => {
            config::show(matches, loaded, out);
            return Ok(());
        }
        _ => {}
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::internal(format!("cannot start the async runtime: {e}")))?;
    agent::warn_insecure(&cli.global, out);
    runtime.block_on(async {
        if let Command::Catalog { command: cli::CatalogCommand::List } = &cli.command {
            return catalog_list(&cli.global, out).await;
        }
        // SPEC.md §10.1: a catalog entry is resolved to its card reference before anything else.
        let mut global = cli.global.clone();
        if let Some(reference) = &cli.global.agent_card {
            // Only a catalog name needs the catalog read.
            if catalog::may_name(reference) {
                let catalog = catalog::load(cli.global.catalog.as_deref()).await?;
                if let Some(card) = catalog::resolve(reference, catalog.as_ref())? {
                    out.debug(format_args!("-a {reference}: the catalog's entry {card}"));
                    global.agent_card = Some(card);
                }
            }
        }
        let run = Run { global: &global, out };
        match &cli.command {
            Command::Card { command } => run.card(command).await,
            Command::Send(args) => {
                let send = matches
                    .subcommand_matches("send")
                    .ok_or_else(|| CliError::internal("no send arguments"))?;
                let parts = message_parts(args, send)?;
                run.send(args, parts).await
            }
            Command::Task { command } => run.task(command).await,
            Command::Webhook { command } => webhook::run(command, out).await,
            Command::Chat => chat::run(&run).await,
            Command::Auth { command } => run.auth(command).await,
            Command::DemoServer { listen } => serve::demo(listen, out).await,
            #[cfg(feature = "conformance")]
            Command::Conformance { only } => conformance(&cli.global, only, out).await,
            Command::Serve { exec, listen, name } => serve::exec(listen, exec, name.as_deref(), out).await,
            Command::Completion { .. } | Command::Config { .. } | Command::Catalog { .. } => Ok(()),
        }
    })
}

/// `catalog list`: the catalog's entries (text: one block per agent; JSON: one document).
async fn catalog_list(global: &cli::Global, out: &Out) -> Result<(), CliError> {
    let Some(catalog) = catalog::load(global.catalog.as_deref()).await? else {
        let default = catalog::default_file().map_or_else(String::new, |p| format!("{} ", p.display()));
        return Err(CliError::usage(format!("no catalog: create {default}or pass --catalog PATH|URL")));
    };
    if out.json() {
        let agents: Vec<serde_json::Value> = catalog
            .entries
            .iter()
            .map(|(name, e)| serde_json::json!({"name": name, "card": e.card, "description": e.description}))
            .collect();
        out.document(&serde_json::json!({"catalog": catalog.source, "agents": agents}));
    } else {
        let mut text = output::field("Catalog", &catalog.source);
        for (name, entry) in &catalog.entries {
            text.push('\n');
            text.push_str(&output::field("Name", name));
            text.push_str(&output::field("Card", &entry.card));
            if let Some(description) = &entry.description {
                text.push_str(&output::field("Description", description));
            }
        }
        text.push('\n');
        text.push_str(&output::field("Agents", catalog.entries.len()));
        out.print(&text);
    }
    Ok(())
}

/// `conformance`: the suite against the agent `-a` names (its origin: the suite reads the card
/// from the well-known path). Failing scenarios are `A2ARS_CONFORMANCE_FAILED` (a vendor code,
/// SPEC.md §11.4), exit 1.
#[cfg(feature = "conformance")]
async fn conformance(global: &cli::Global, only: &[String], out: &Out) -> Result<(), CliError> {
    let Some(reference) = &global.agent_card else {
        return Err(CliError::usage("no agent: pass -a/--agent-card <origin>"));
    };
    let base = match agent::CardRef::parse(reference)? {
        agent::CardRef::Base(url) => {
            url.trim_end_matches('/').trim_end_matches(a2a_client::AGENT_CARD_PATH).to_owned()
        }
        _ => {
            return Err(CliError::usage(
                "conformance needs the agent's origin (host or URL), not a card file or custom card URL",
            ))
        }
    };
    let options = a2a_conformance::Options { only: only.to_vec(), ..Default::default() };
    let _spinner = out.spinner(format!("conformance of {base}"));
    let report = a2a_conformance::check(&base, &options)
        .await
        .map_err(|e| CliError::local("A2ACLI_ERR_UNREACHABLE", error::exit::UNREACHABLE, format!("{e:#}")))?;
    drop(_spinner);
    if out.json() {
        out.document(&report.to_json());
    } else {
        out.print(&report.to_string());
    }
    if report.passed() {
        Ok(())
    } else {
        let failed = report.failures().count();
        // In JSON the report is the one document (its failures are in it): no second one.
        let code = if out.json() { REPORTED } else { "A2ARS_CONFORMANCE_FAILED" };
        Err(CliError::local(code, error::exit::FAILURE, format!("{failed} scenario runs failed")))
    }
}

/// `-o json` / `--output json` / `--output=json` / `-ojson` among the raw arguments, or
/// `A2ACLI_OUTPUT=json`: a usage error is then reported as the JSON envelope too.
fn wants_json(args: &[std::ffi::OsString]) -> bool {
    let args: Vec<String> = args.iter().map(|a| a.to_string_lossy().into_owned()).collect();
    let flag = args.windows(2).any(|w| matches!(w[0].as_str(), "-o" | "--output") && w[1] == "json")
        || args.iter().any(|a| a == "--output=json" || a == "-ojson" || a == "-o=json");
    flag || std::env::var("A2ACLI_OUTPUT").is_ok_and(|v| v == "json")
}

fn usage_error(error: clap::Error, json: bool) -> ExitCode {
    match error.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = error.print();
            ExitCode::SUCCESS
        }
        _ if json => {
            let message = error.render().to_string();
            let message = message.lines().next().unwrap_or_default().trim_start_matches("error: ").to_owned();
            let error = CliError::usage(message).hint("a2a-cli --help");
            println!("{}", serde_json::to_string_pretty(&error.to_json()).unwrap_or_default());
            ExitCode::from(error::exit::USAGE)
        }
        _ => {
            let _ = error.print();
            ExitCode::from(error::exit::USAGE)
        }
    }
}

/// The message's parts in command-line order (SPEC.md §10.2): the positional text, `--text`,
/// `--file`, `--data`, each `--media-type` bound to the part flag just before it.
fn message_parts(args: &SendArgs, matches: &ArgMatches) -> Result<Vec<Part>, CliError> {
    #[derive(Clone, Copy)]
    enum Kind {
        Words,
        Text,
        File,
        Data,
        MediaType,
    }
    let mut flags: Vec<(usize, Kind, usize)> = Vec::new();
    let mut add = |id: &str, kind: Kind| {
        if let Some(indices) = matches.indices_of(id) {
            for (n, index) in indices.enumerate() {
                flags.push((index, kind, n));
            }
        }
    };
    add("message", Kind::Words);
    add("text", Kind::Text);
    add("file", Kind::File);
    add("data", Kind::Data);
    add("media_type", Kind::MediaType);
    flags.sort_by_key(|(index, _, _)| *index);

    let mut parts: Vec<(Part, bool)> = Vec::new();
    let mut words_done = false;
    for (_, kind, n) in flags {
        match kind {
            Kind::Words if !words_done => {
                words_done = true;
                parts.push((Part::text(args.message.join(" ")), false));
            }
            Kind::Words => {}
            Kind::Text => parts.push((Part::text(args.text[n].clone()), false)),
            Kind::File => parts.push((file_part(&args.file[n])?, false)),
            Kind::Data => parts.push((data_part(&args.data[n])?, false)),
            Kind::MediaType => {
                let media_type = &args.media_type[n];
                match parts.last_mut() {
                    Some((part, bound @ false)) => {
                        part.media_type = media_type.clone();
                        *bound = true;
                    }
                    Some((_, true)) => {
                        return Err(CliError::usage(format!(
                            "--media-type {media_type}: the part before it already has a media type"
                        )))
                    }
                    None => {
                        return Err(CliError::usage(format!(
                            "--media-type {media_type} must follow a part flag (--text, --file or --data)"
                        )))
                    }
                }
            }
        }
    }
    Ok(parts.into_iter().map(|(part, _)| part).collect())
}

/// `--file`: a URL becomes a file-with-uri part, a path a file-with-bytes part (inline), its media
/// type inferred from the extension (overridden by a following `--media-type`).
fn file_part(reference: &str) -> Result<Part, CliError> {
    let name = reference.rsplit(['/', '\\']).next().unwrap_or(reference).to_owned();
    let media_type = infer_media_type(&name);
    if reference.starts_with("http://") || reference.starts_with("https://") {
        return Ok(Part::url(reference, media_type).with_filename(name));
    }
    let bytes = std::fs::read(reference).map_err(|e| CliError::usage(format!("--file {reference}: {e}")))?;
    Ok(Part::raw(bytes, media_type).with_filename(name))
}

/// `--data`: a JSON file, or `-` for stdin.
fn data_part(reference: &str) -> Result<Part, CliError> {
    let text = if reference == "-" {
        std::io::read_to_string(std::io::stdin())
            .map_err(|e| CliError::usage(format!("--data -: cannot read stdin: {e}")))?
    } else {
        std::fs::read_to_string(reference).map_err(|e| CliError::usage(format!("--data {reference}: {e}")))?
    };
    let value: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| CliError::usage(format!("--data {reference}: not JSON: {e}")))?;
    Ok(Part::json(&value))
}

/// The media type of a file name's extension; `application/octet-stream` when unknown.
fn infer_media_type(name: &str) -> &'static str {
    let extension = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).unwrap_or_default();
    match extension.as_str() {
        "txt" | "text" | "log" => "text/plain",
        "md" => "text/markdown",
        "html" | "htm" => "text/html",
        "csv" => "text/csv",
        "json" => "application/json",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "mp4" => "video/mp4",
        "zip" => "application/zip",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(argv: &[&str]) -> Result<Vec<Part>, CliError> {
        let matches = Cli::command().try_get_matches_from(argv).unwrap();
        let cli = Cli::from_arg_matches(&matches).unwrap();
        let Command::Send(args) = &cli.command else { panic!("not send") };
        message_parts(args, matches.subcommand_matches("send").unwrap())
    }

    #[test]
    fn parts_keep_their_order_and_media_types_bind_to_the_part_before() {
        let dir = std::env::temp_dir().join(format!("a2a-cli-parts-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("report.bin");
        std::fs::write(&file, b"%PDF").unwrap();
        let data = dir.join("d.json");
        std::fs::write(&data, br#"{"k": 1}"#).unwrap();
        let (file, data) = (file.to_str().unwrap(), data.to_str().unwrap());
        let got = parts(&[
            "a2a-cli",
            "send",
            "--text",
            "first",
            "--file",
            file,
            "--media-type",
            "application/pdf",
            "--data",
            data,
            "--text",
            "last",
        ])
        .unwrap();
        assert_eq!(got.len(), 4);
        assert_eq!(got[0].as_text(), Some("first"));
        assert_eq!(got[1].media_type, "application/pdf");
        assert_eq!(got[1].filename, "report.bin");
        assert!(matches!(got[2].content, Some(a2a_proto::v1::part::Content::Data(_))));
        assert_eq!(got[3].as_text(), Some("last"));
        let inferred = parts(&["a2a-cli", "send", "--file", "https://h/x.png"]).unwrap();
        assert_eq!(inferred[0].media_type, "image/png", "inferred only when none was given");
        let words = parts(&["a2a-cli", "send", "hello", "world"]).unwrap();
        assert_eq!(words[0].as_text(), Some("hello world"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_media_type_without_a_part_is_a_usage_error() {
        let error = parts(&["a2a-cli", "send", "--media-type", "text/plain", "--text", "x"]).unwrap_err();
        assert_eq!(error.exit, error::exit::USAGE);
        let error = parts(&["a2a-cli", "send", "--text", "x", "--media-type", "a/b", "--media-type", "c/d"])
            .unwrap_err();
        assert_eq!(error.exit, error::exit::USAGE);
    }

    #[test]
    fn json_is_detected_before_parsing() {
        let args = |a: &[&str]| a.iter().map(Into::into).collect::<Vec<std::ffi::OsString>>();
        assert!(wants_json(&args(&["a2a-cli", "-o", "json", "bad"])));
        assert!(wants_json(&args(&["a2a-cli", "--output=json"])));
        assert!(!wants_json(&args(&["a2a-cli", "-o", "text"])) || std::env::var("A2ACLI_OUTPUT").is_ok());
    }
}
