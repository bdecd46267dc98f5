//! The command line (clap derive): the spec's command surface, `a2a-cli <command> -a <ref> ...`
//! (SPEC.md §7).

use std::time::Duration;

use clap::{ArgAction, Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  a2a-cli card get -a localhost:8080
  a2a-cli send -a localhost:8080 'hello'
  a2a-cli send -a localhost:8080 --stream 'stream 5'
  a2a-cli send -a localhost:8080 -o json --stream 'stream 5'     (JSON Lines)
  a2a-cli send -a localhost:8080 --async 'wait 30'
  a2a-cli task get -a localhost:8080 --wait <task-id>
  a2a-cli send -a localhost:8080 --task-id <task-id> 'Ada'        (answer INPUT_REQUIRED)
  a2a-cli task cancel -a localhost:8080 <task-id>
  a2a-cli task list -a localhost:8080 --status working
  a2a-cli task subscribe -a localhost:8080 --stream <task-id>
  a2a-cli task push-config create -a localhost:8080 <task-id> --url https://example.com/hook

Defaults (each overridable): transport = first interface of the card's supportedInterfaces
(--transport); protocol version = 1.0, never below without --a2a-version 0.3; send waits for a
terminal or interrupted state (--async); output = text (-o json); TLS verification on.
Every option also reads A2ACLI_<OPTION> from the environment, then from a `.env` file (the nearest
above the working directory, or --config's), then from ~/.config/a2a-cli/.env: a flag wins over
all, --stream is never read. `a2a-cli config show` prints what applies and why.

Exit codes: 0 the command did its job (whatever the task's outcome: COMPLETED, FAILED,
INPUT_REQUIRED...), 1 failure, 2 usage error, 3 agent or card unreachable, 4 authentication,
5 --timeout expired.";

/// a2a-cli: talk to any A2A agent from a terminal or a script.
#[derive(Debug, Parser)]
#[command(name = "a2a-cli", version, disable_version_flag = true, after_long_help = EXAMPLES)]
#[command(after_help = "Run `a2a-cli --help` for examples, defaults and exit codes.")]
pub(crate) struct Cli {
    /// Print the tool version and exit.
    #[arg(short = 'v', long = "version", action = ArgAction::Version)]
    version: Option<bool>,
    #[command(flatten)]
    pub(crate) global: Global,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command accepts.
#[derive(Debug, Clone, Args)]
pub(crate) struct Global {
    /// The agent: a host or origin (the well-known card path is appended), a full card URL, or a
    /// local card file (`file://...` or a path).
    /// Also a catalog entry: `catalog:NAME`, or a bare NAME found in the catalog.
    #[arg(short = 'a', long, global = true, env = "A2ACLI_AGENT_CARD", value_name = "REF")]
    pub(crate) agent_card: Option<String>,
    /// The agent catalog (a JSON file or http(s) URL mapping names to card references) that
    /// `-a NAME` / `-a catalog:NAME` reads. Default: ~/.config/a2a-cli/catalog.json if it exists.
    #[arg(long, global = true, env = "A2ACLI_CATALOG", value_name = "PATH|URL")]
    pub(crate) catalog: Option<String>,
    /// Output format: `text` (labelled lines) or `json` (the protocol's own types).
    #[arg(short = 'o', long, global = true, env = "A2ACLI_OUTPUT", default_value = "text")]
    pub(crate) output: Format,
    /// Preferred binding, repeatable, most preferred first; bindings the card does not offer
    /// are skipped. Default: the card's order.
    #[arg(long, global = true, env = "A2ACLI_TRANSPORT", value_delimiter = ',', value_name = "BINDING")]
    pub(crate) transport: Vec<Transport>,
    /// A2A protocol version to speak (1.0 or 0.3). Default: 1.0; 0.3 only when asked for.
    #[arg(long, global = true, env = "A2ACLI_A2A_VERSION", value_name = "VERSION")]
    pub(crate) a2a_version: Option<String>,
    /// Bearer token for every request (prefer A2ACLI_BEARER: a flag is visible in the process
    /// table and the shell history).
    #[arg(long, global = true, env = "A2ACLI_BEARER", hide_env_values = true, value_name = "TOKEN")]
    pub(crate) bearer: Option<String>,
    /// API key for every request, sent where the card's API key scheme says (header, query
    /// parameter or cookie; not sent when the card declares none). Prefer A2ACLI_API_KEY.
    #[arg(long, global = true, env = "A2ACLI_API_KEY", hide_env_values = true, value_name = "KEY")]
    pub(crate) api_key: Option<String>,
    /// HTTP Basic credentials `USER:PASSWORD`, sent only to an agent whose card declares an HTTP
    /// Basic scheme. Prefer A2ACLI_BASIC.
    #[arg(long, global = true, env = "A2ACLI_BASIC", hide_env_values = true, value_name = "USER:PASSWORD")]
    pub(crate) basic: Option<String>,
    /// Client certificate (PEM) for mutual TLS on every binding, with --key: presented when the
    /// agent's TLS handshake asks for one.
    #[arg(long, global = true, env = "A2ACLI_CERT", value_name = "FILE", requires = "key")]
    pub(crate) cert: Option<std::path::PathBuf>,
    /// The private key (PEM) of --cert.
    #[arg(long, global = true, env = "A2ACLI_KEY", value_name = "FILE", requires = "cert")]
    pub(crate) key: Option<std::path::PathBuf>,
    /// Also trust this CA certificate (PEM) for the agent's TLS certificate (a private CA), on
    /// every binding and the card fetch.
    #[arg(long, global = true, env = "A2ACLI_CA", value_name = "FILE")]
    pub(crate) ca: Option<std::path::PathBuf>,
    /// Declare an A2A extension URI on every request (`A2A-Extensions`), repeatable: for
    /// extensions the agent requires and you know the request satisfies.
    #[arg(long, global = true, env = "A2ACLI_EXTENSION", value_delimiter = ',', value_name = "URI")]
    pub(crate) extension: Vec<String>,
    /// An A2A service parameter `name:value` (an HTTP header or gRPC metadata), repeatable.
    #[arg(long, global = true, value_name = "NAME:VALUE")]
    pub(crate) svc_param: Vec<String>,
    /// Give up waiting after this long (e.g. 30s, 2m, 500ms; a bare number is seconds).
    #[arg(long, global = true, env = "A2ACLI_TIMEOUT", value_parser = parse_duration, value_name = "DURATION")]
    pub(crate) timeout: Option<Duration>,
    /// How often to re-check a task while waiting (starts faster, backs off up to this).
    #[arg(
        long,
        global = true,
        env = "A2ACLI_POLL_INTERVAL",
        value_parser = parse_duration,
        default_value = "2s",
        value_name = "DURATION"
    )]
    pub(crate) poll_interval: Duration,
    /// Do not verify TLS certificates (development only; always warned about). Applies to the
    /// card fetch and the JSON-RPC and HTTP+JSON bindings, not to gRPC.
    #[arg(long, global = true)]
    pub(crate) insecure: bool,
    /// Read settings from this `.env` file instead of the nearest `.env` above the working
    /// directory (the global ~/.config/a2a-cli/.env is still read; the environment wins over both).
    #[arg(long, global = true, value_name = "PATH")]
    pub(crate) config: Option<std::path::PathBuf>,
    /// Show every part of messages and task history, not only the essentials.
    #[arg(long, global = true)]
    pub(crate) verbose: bool,
    /// Diagnostics on stderr: card resolution, the negotiated interface, timings (credentials
    /// are always redacted).
    #[arg(long, global = true)]
    pub(crate) debug: bool,
    /// When a wait reaches AUTH_REQUIRED, show what the agent asks (its status message, e.g. an
    /// approval URL) and keep following the task until it leaves AUTH_REQUIRED (authorize out of
    /// band meanwhile): by subscribing when the card declares streaming, else by polling. Without
    /// it, a wait stops at AUTH_REQUIRED with the commands to go on.
    #[arg(long, global = true)]
    pub(crate) wait_auth: bool,
}

/// `-o/--output`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Labelled `Label: value` lines, one per line; blocks for content.
    Text,
    /// The A2A protocol's own JSON (ProtoJSON); JSON Lines with `--stream`.
    Json,
}

/// `--transport`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Transport {
    /// JSON-RPC 2.0 (`JSONRPC`).
    #[value(alias = "JSONRPC", alias = "json-rpc")]
    Jsonrpc,
    /// HTTP+JSON / REST (`HTTP+JSON`).
    #[value(name = "http+json", alias = "HTTP+JSON", alias = "rest")]
    HttpJson,
    /// gRPC (`GRPC`).
    #[value(alias = "GRPC")]
    Grpc,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Agent card commands.
    Card {
        #[command(subcommand)]
        command: CardCommand,
    },
    /// Send a message to start or continue an interaction (waits for a terminal or interrupted
    /// state unless --async).
    Send(SendArgs),
    /// Task commands.
    Task {
        #[command(subcommand)]
        command: TaskCommand,
    },
    /// Credentials kept for an agent (OAuth 2 client credentials).
    Auth {
        #[command(subcommand)]
        command: AuthCommand,
    },
    /// An interactive conversation on a terminal: each line is a message; the context, and the
    /// task while it waits for input, carry over to the next line. Empty line or Ctrl-D ends it.
    Chat,
    /// A local receiver for push notifications.
    Webhook {
        #[command(subcommand)]
        command: WebhookCommand,
    },
    /// Run the demo agent locally, to practise the commands on (all three bindings, in memory).
    DemoServer {
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
        listen: String,
    },
    /// Serve any command as an A2A agent: each message's text on its stdin, its stdout streamed
    /// back as an artifact, exit status 0 COMPLETED, anything else FAILED.
    Serve {
        /// The command, run with `sh -c` for each message.
        #[arg(long, value_name = "CMD")]
        exec: String,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080", value_name = "HOST:PORT")]
        listen: String,
        /// The agent's name on its card.
        #[arg(long)]
        name: Option<String>,
    },
    /// Check a live agent against this workspace's cross-binding conformance suite (every
    /// scenario over every binding and version its card declares). Exits 1 when a scenario fails.
    #[cfg(feature = "conformance")]
    Conformance {
        /// Only these scenarios (repeatable; all when absent).
        #[arg(long, value_name = "SCENARIO")]
        only: Vec<String>,
    },
    /// The agent catalog `-a NAME` reads (`--catalog`, or ~/.config/a2a-cli/catalog.json).
    Catalog {
        #[command(subcommand)]
        command: CatalogCommand,
    },
    /// Configuration (read-only).
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completion {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// `auth ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum AuthCommand {
    /// Get a token with the OAuth 2 flow the agent's card declares (client credentials, or the
    /// device code without a secret), and keep it (mode 0600) for later calls to the same -a
    /// reference.
    Login {
        /// The OAuth client id.
        #[arg(long, env = "A2ACLI_CLIENT_ID")]
        client_id: String,
        /// The OAuth client secret (prefer A2ACLI_CLIENT_SECRET): the client-credentials flow.
        /// Without it, the device-code flow (RFC 8628): the URL to open and the code to enter
        /// are printed on stderr, and the login waits until it is completed (--timeout bounds it).
        #[arg(long, env = "A2ACLI_CLIENT_SECRET", hide_env_values = true)]
        client_secret: Option<String>,
        /// A scope to ask for, repeatable.
        #[arg(long)]
        scope: Vec<String>,
    },
    /// Forget the token kept for the -a reference.
    Logout,
}

/// `webhook ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum WebhookCommand {
    /// Receive push notifications (A2A 1.0: a StreamResponse per POST) and render each as it
    /// arrives, until Ctrl-C (or --until-terminal). Register the printed URL with
    /// `task push-config create`.
    Listen {
        /// The address to listen on (port 0 picks a free port; the URL is printed).
        #[arg(long, default_value = "127.0.0.1:0", value_name = "HOST:PORT")]
        listen: String,
        /// The path notifications are POSTed to.
        #[arg(long, default_value = "/", value_name = "PATH")]
        path: String,
        /// Accept only notifications carrying this token (X-A2A-Notification-Token).
        #[arg(long, value_name = "TOKEN")]
        token: Option<String>,
        /// Stop after a notification with a terminal or interrupted state.
        #[arg(long)]
        until_terminal: bool,
    },
}

/// `catalog ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum CatalogCommand {
    /// List the catalog's agents: name, card reference, description.
    List,
}

/// `config ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Show each setting's effective value and where it came from: a flag, the environment, a
    /// `.env` file, or the default (credentials redacted).
    Show,
}

/// `card ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum CardCommand {
    /// Fetch the agent card and show identity, capabilities, interfaces, security and skills.
    Get {
        /// Check the fields the A2A 1.0 card requires (fails with A2ACLI_ERR_CARD_INVALID,
        /// listing every problem).
        #[arg(long)]
        validate: bool,
        /// Fetch the authenticated extended card (GetExtendedAgentCard) instead of the public
        /// one; a credential is only sent when the public card declares a scheme accepting it.
        #[arg(long)]
        extended: bool,
        /// Verify the card's JWS signatures (spec 8.4) with these trusted keys: a JWKS document
        /// or PEM public keys. A card none of whose signatures verifies (or an unsigned one) is
        /// refused with A2ACLI_ERR_CARD_INVALID; with --extended, both cards must verify. A
        /// signature's `jku` is never followed.
        #[arg(long, value_name = "FILE")]
        verify_keys: Option<std::path::PathBuf>,
    },
}

/// `send`.
#[derive(Debug, Args)]
pub(crate) struct SendArgs {
    /// The message text (words are joined with spaces into one text part).
    #[arg(value_name = "TEXT")]
    pub(crate) message: Vec<String>,
    /// A text part; repeatable, parts keep their order.
    #[arg(long, value_name = "TEXT")]
    pub(crate) text: Vec<String>,
    /// A file part: a local path (sent inline) or an http(s) URL (sent as a reference).
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) file: Vec<String>,
    /// A data part from a JSON file, or `-` for stdin.
    #[arg(long, value_name = "PATH|-")]
    pub(crate) data: Vec<String>,
    /// The media type of the part flag just before it (--file x --media-type application/pdf).
    #[arg(long, value_name = "TYPE")]
    pub(crate) media_type: Vec<String>,
    /// Start a new task in this existing context.
    #[arg(long, env = "A2ACLI_CONTEXT_ID", value_name = "ID")]
    pub(crate) context_id: Option<String>,
    /// Continue this existing task (e.g. one waiting in INPUT_REQUIRED).
    #[arg(long, env = "A2ACLI_TASK_ID", value_name = "ID")]
    pub(crate) task_id: Option<String>,
    /// Return the task's identifiers at once instead of waiting.
    #[arg(long = "async", alias = "return-immediately", alias = "no-wait", conflicts_with_all = ["wait", "stream"])]
    pub(crate) no_wait: bool,
    /// Wait for a terminal or interrupted state (the default).
    #[arg(long)]
    pub(crate) wait: bool,
    /// Follow the agent's live event stream (JSON Lines with -o json).
    #[arg(long)]
    pub(crate) stream: bool,
    /// Metadata for the message, as a JSON object string.
    #[arg(long, value_name = "JSON")]
    pub(crate) metadata: Option<String>,
}

/// `task ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum TaskCommand {
    /// Show a task: identifiers, state, artifacts (and history with --history).
    Get {
        /// The task id.
        id: String,
        /// How many history messages to include.
        #[arg(long, value_name = "N")]
        history: Option<i32>,
        /// Poll until a terminal or interrupted state.
        #[arg(long, alias = "watch")]
        wait: bool,
    },
    /// Cancel a task and show its resulting state.
    Cancel {
        /// The task id.
        id: String,
    },
    /// List tasks (one page; --page-token for the next).
    List {
        /// Only tasks of this context.
        #[arg(long, value_name = "ID")]
        context_id: Option<String>,
        /// Only tasks in this state (e.g. working, completed, input-required).
        #[arg(long, value_parser = parse_state, value_name = "STATE")]
        status: Option<a2a_proto::v1::TaskState>,
        /// Tasks per page.
        #[arg(long, value_name = "N")]
        page_size: Option<i32>,
        /// The page to fetch (from the previous page's Next Page Token).
        #[arg(long, value_name = "TOKEN")]
        page_token: Option<String>,
        /// How many history messages to include per task.
        #[arg(long, value_name = "N")]
        history: Option<i32>,
    },
    /// (Re)subscribe to a task's events until it is terminal or interrupted.
    Subscribe {
        /// The task id.
        id: String,
        /// Render each event as it arrives (JSON Lines with -o json).
        #[arg(long)]
        stream: bool,
    },
    /// Save a task's artifacts to files: an all-text artifact as one `.txt`, otherwise one file
    /// per part (data as `.json`, inline files under their name); parts that are URLs are listed,
    /// not fetched.
    Download {
        /// The task id.
        id: String,
        /// The directory to write to (created if missing).
        #[arg(long, default_value = ".", value_name = "DIR")]
        dir: std::path::PathBuf,
    },
    /// Manage a task's push notification configs.
    PushConfig {
        #[command(subcommand)]
        command: PushCommand,
    },
}

/// `task push-config ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum PushCommand {
    /// Register a webhook for a task's updates.
    Create {
        /// The task id.
        task_id: String,
        /// The webhook URL the agent will POST to.
        #[arg(long)]
        url: String,
        /// A token the agent sends back with each notification.
        #[arg(long)]
        token: Option<String>,
        /// The config id (the agent picks one if absent).
        #[arg(long)]
        id: Option<String>,
        /// The authentication scheme the agent uses toward the webhook (e.g. Bearer).
        #[arg(long, requires = "auth_credentials")]
        auth_scheme: Option<String>,
        /// The credentials for --auth-scheme.
        #[arg(long, requires = "auth_scheme")]
        auth_credentials: Option<String>,
    },
    /// Show one push notification config.
    Get {
        /// The task id.
        task_id: String,
        /// The config id.
        config_id: String,
    },
    /// List a task's push notification configs.
    List {
        /// The task id.
        task_id: String,
        /// Configs per page.
        #[arg(long)]
        page_size: Option<i32>,
        /// The page to fetch.
        #[arg(long)]
        page_token: Option<String>,
    },
    /// Delete a push notification config.
    Delete {
        /// The task id.
        task_id: String,
        /// The config id.
        config_id: String,
    },
}

/// `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds (fractions allowed).
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: f64 =
        number.parse().map_err(|_| format!("{text:?} is not a duration (e.g. 30s, 2m, 500ms)"))?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "ms" => number / 1000.0,
        "m" => number * 60.0,
        "h" => number * 3600.0,
        other => return Err(format!("unknown duration unit {other:?} (use ms, s, m or h)")),
    };
    Duration::try_from_secs_f64(seconds).map_err(|e| format!("{text:?}: {e}"))
}

/// A task state: `working`, `WORKING`, `TASK_STATE_WORKING`, `input-required`...
pub(crate) fn parse_state(text: &str) -> Result<a2a_proto::v1::TaskState, String> {
    let upper = text.trim().to_ascii_uppercase().replace('-', "_");
    let name = if upper.starts_with("TASK_STATE_") { upper } else { format!("TASK_STATE_{upper}") };
    a2a_proto::v1::TaskState::from_str_name(&name)
        .ok_or_else(|| format!("{text:?} is not a task state (submitted, working, completed, failed, canceled, input-required, rejected, auth-required)"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn durations_and_states_parse() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("3d").is_err());
        assert!(parse_duration("-1").is_err());
        assert_eq!(parse_state("input-required"), Ok(a2a_proto::v1::TaskState::InputRequired));
        assert_eq!(parse_state("TASK_STATE_WORKING"), Ok(a2a_proto::v1::TaskState::Working));
        assert!(parse_state("done").is_err());
    }
}
