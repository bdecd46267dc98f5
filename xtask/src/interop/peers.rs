//! Who takes part: the bindings, the protocol lines, the directions and the official SDKs (one
//! line of one SDK is a peer) with the commands that start their programs.

use std::path::Path;
use std::process::Command;

use a2a_interop_records::{Operation, OPERATIONS, OPERATIONS_V03};
use serde::Deserialize;

/// The bindings, as spelled in `AgentInterface.protocolBinding` and in the records, with the
/// label used on the command line and in webhook paths, and the matrix heading.
pub(super) const BINDINGS: [(&str, &str, &str); 3] =
    [("JSONRPC", "jsonrpc", "JSON-RPC"), ("HTTP+JSON", "rest", "HTTP+JSON"), ("GRPC", "grpc", "gRPC")];

/// The binding named `binding`, with the lifetime of [`BINDINGS`].
pub(super) fn binding_key(binding: &str) -> Option<&'static str> {
    BINDINGS.iter().map(|(b, _, _)| *b).find(|b| *b == binding)
}

/// A line of the official SDKs: the protocol version its peers speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Line {
    /// The 1.x SDKs, A2A 1.0.
    V1_0,
    /// The 0.3 SDKs, A2A 0.3.
    V0_3,
}

impl Line {
    pub(super) const ALL: [Line; 2] = [Line::V1_0, Line::V0_3];

    pub(super) fn name(self) -> &'static str {
        match self {
            Line::V1_0 => "1.0",
            Line::V0_3 => "0.3",
        }
    }

    /// The operations of this line's matrix: the driver's (`a2a_interop_records`).
    pub(super) fn operations(self) -> &'static [Operation] {
        match self {
            Line::V1_0 => &OPERATIONS,
            Line::V0_3 => &OPERATIONS_V03,
        }
    }

    /// The operation of this line named `op`, with the lifetime of the list.
    pub(super) fn op_key(self, op: &str) -> Option<&'static str> {
        a2a_interop_records::find(self.operations(), op).map(|o| o.name)
    }
}

/// Who sent the requests and who served them (`their-client`, `our-client` in
/// `docs/interop-known-failures.json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Direction {
    /// The peer SDK's client against our reference server (pushes go to the peer's receiver).
    TheirClient,
    /// Our clients (the driver) against the peer SDK's agent (pushes go to our receiver).
    OurClient,
}

impl Direction {
    pub(super) const ALL: [Direction; 2] = [Direction::TheirClient, Direction::OurClient];

    pub(super) fn heading(self) -> &'static str {
        match self {
            Direction::TheirClient => "their client → our server",
            Direction::OurClient => "our client → their server",
        }
    }
}

/// The language of a peer's programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    /// Python programs in `tests/interop/python`, run with the peer's venv.
    Python,
    /// Node.js programs in the peer's directory under `tests/interop`.
    Js,
}

/// An official SDK (one line of it) and its programs under `tests/interop/`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Peer {
    /// Short name, used in log file names and in `docs/interop-known-failures.json`.
    pub(super) name: &'static str,
    /// The package, as the docs name it.
    pub(super) package: &'static str,
    /// The protocol line it speaks.
    pub(super) line: Line,
    pub(super) lang: Lang,
    /// Python: the venv under `tests/interop` and its requirements file; JS: the package
    /// directory under `tests/interop` (the requirements field is unused).
    pub(super) install: (&'static str, &'static str),
    /// Python: the suffix of the program names (`sdk_client{suffix}.py`); JS: none.
    pub(super) suffix: &'static str,
    /// Extra arguments for our driver against the peer's agent: how its push sender treats the
    /// config's token next to authentication, (0.3) whether it sends `Authorization` at all, and
    /// (0.3) the encoding of file bytes it reads over gRPC and HTTP+JSON.
    pub(super) driver_args: &'static [&'static str],
}

pub(super) const PEERS: [Peer; 4] = [
    Peer {
        name: "python",
        package: "a2a-sdk",
        line: Line::V1_0,
        lang: Lang::Python,
        install: (".venv", "requirements.txt"),
        suffix: "",
        driver_args: &["--push-token-with-auth", "sent"],
    },
    // @a2a-js/sdk's DefaultPushNotificationSender sends the token header only when the config has
    // no authentication (docs/interop.md, "Findings").
    Peer {
        name: "js",
        package: "@a2a-js/sdk",
        line: Line::V1_0,
        lang: Lang::Js,
        install: ("js", ""),
        suffix: "",
        driver_args: &["--push-token-with-auth", "omitted"],
    },
    // Both 0.3 SDKs' push senders send the token header only, never `Authorization`
    // (docs/interop.md, "The 0.3 line"). a2a-sdk 0.3 reads the proto's file bytes as the UTF-8 of
    // base64 text (docs/interop.md, "File parts"), so our clients send them so.
    Peer {
        name: "python-v03",
        package: "a2a-sdk",
        line: Line::V0_3,
        lang: Lang::Python,
        install: (".venv-v03", "requirements-v03.txt"),
        suffix: "_v03",
        driver_args: &[
            "--protocol",
            "0.3",
            "--push-authorization",
            "omitted",
            "--v03-file-bytes",
            "base64-text",
        ],
    },
    Peer {
        name: "js-v03",
        package: "@a2a-js/sdk",
        line: Line::V0_3,
        lang: Lang::Js,
        install: ("js-v03", ""),
        suffix: "",
        driver_args: &["--protocol", "0.3", "--push-authorization", "omitted"],
    },
];

/// The peer named `name`.
pub(super) fn peer(name: &str) -> Option<Peer> {
    PEERS.into_iter().find(|p| p.name == name)
}

/// The command running one of a peer's programs (`sdk_client`, `agent`, `webhook`,
/// `card_signing`) in `dir` (`tests/interop`), with `python` the venv's interpreter.
pub(super) fn peer_command(
    peer: Peer,
    python: Option<&Path>,
    dir: &Path,
    program: &str,
    args: &[&str],
) -> Command {
    let mut command = match (peer.lang, python) {
        (Lang::Python, Some(python)) => {
            let mut c = Command::new(python);
            c.arg(format!("{program}{}.py", peer.suffix)).current_dir(dir.join("python"));
            c
        }
        _ => {
            let mut c = Command::new("node");
            c.arg(format!("{program}.mjs")).current_dir(dir.join(peer.install.0));
            c
        }
    };
    command.args(args);
    command
}
