//! Configuration files (SPEC.md §8.3): `.env` files of `A2ACLI_<OPTION>=value` lines, read before
//! the command line is parsed, under the fixed precedence flag > environment > local file >
//! global file > built-in default. A file only supplies a variable the environment lacks, and
//! clap reads flags before variables, so the order holds by construction. `config show` reports
//! each setting's effective value and where it came from. Nothing is ever written: configuration
//! is edited in the files themselves, and no session state (task or context ids) is kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::parser::ValueSource;
use clap::ArgMatches;

use crate::agent::redact;
use crate::output::{field, Out};

/// Where the values read from files came from: variable name → file.
#[derive(Debug, Default)]
pub(crate) struct Loaded {
    /// Variables set from a file, and which.
    pub(crate) from_file: BTreeMap<String, PathBuf>,
    /// The files read, local first.
    pub(crate) files: Vec<PathBuf>,
    /// Problems to report once output is set up (unreadable files, loose permissions).
    pub(crate) warnings: Vec<String>,
}

/// The global file: `$XDG_CONFIG_HOME/a2a-cli/.env`, else `~/.config/a2a-cli/.env`.
fn global_file() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("a2a-cli").join(".env"))
}

/// The local file: `.env` in the working directory or the nearest parent that has one.
fn local_file() -> Option<PathBuf> {
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors().map(|dir| dir.join(".env")).find(|path| path.is_file())
}

/// `--config <path>` / `--config=<path>` among the raw arguments.
fn explicit_file(args: &[std::ffi::OsString]) -> Option<PathBuf> {
    let mut iter = args.iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(arg) = iter.next() {
        if arg == "--config" {
            return iter.next().map(PathBuf::from);
        }
        if let Some(path) = arg.strip_prefix("--config=") {
            return Some(PathBuf::from(path));
        }
    }
    None
}

/// Reads the `.env` files into the environment (never over a variable already set): the local
/// file (or `--config`'s) first, then the global one.
pub(crate) fn load(args: &[std::ffi::OsString]) -> Loaded {
    let mut loaded = Loaded::default();
    let local = match explicit_file(args) {
        Some(path) => {
            if !path.is_file() {
                loaded.warnings.push(format!("--config {}: no such file", path.display()));
            }
            Some(path)
        }
        None => local_file(),
    };
    for path in local.into_iter().chain(global_file()) {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        check_permissions(&path, &text, &mut loaded.warnings);
        for (name, value) in parse(&text) {
            if std::env::var_os(&name).is_none() && name != "A2ACLI_STREAM" {
                std::env::set_var(&name, value);
                loaded.from_file.insert(name, path.clone());
            }
        }
        loaded.files.push(path);
    }
    loaded
}

/// The `A2ACLI_*` assignments of a dotenv text: `KEY=value`, optional `export `, `#` comments,
/// values optionally in single or double quotes.
pub(crate) fn parse(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let line = line.strip_prefix("export ").unwrap_or(line);
            if line.starts_with('#') {
                return None;
            }
            let (name, value) = line.split_once('=')?;
            let name = name.trim();
            if !name.starts_with("A2ACLI_")
                || !name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            {
                return None;
            }
            let value = value.trim();
            let value = match (value.chars().next(), value.chars().last()) {
                (Some(q @ ('"' | '\'')), Some(e)) if q == e && value.len() >= 2 => &value[1..value.len() - 1],
                _ => value.split(" #").next().unwrap_or(value).trim_end(),
            };
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}

/// A file holding a credential must not be readable by others (SPEC.md §8.3).
#[cfg(unix)]
fn check_permissions(path: &Path, text: &str, warnings: &mut Vec<String>) {
    use std::os::unix::fs::PermissionsExt;
    let secret = parse(text)
        .iter()
        .any(|(name, _)| matches!(name.as_str(), "A2ACLI_BEARER" | "A2ACLI_API_KEY" | "A2ACLI_BASIC"));
    if let Ok(meta) = std::fs::metadata(path) {
        if secret && meta.permissions().mode() & 0o077 != 0 {
            warnings.push(format!(
                "{} holds a credential but others can read it: chmod 600 {}",
                path.display(),
                path.display()
            ));
        }
    }
}

#[cfg(not(unix))]
fn check_permissions(_: &Path, _: &str, _: &mut Vec<String>) {}

/// The settings `config show` reports: (clap id, environment variable, label).
const SETTINGS: [(&str, &str, &str); 14] = [
    ("agent_card", "A2ACLI_AGENT_CARD", "Agent Card"),
    ("catalog", "A2ACLI_CATALOG", "Catalog"),
    ("output", "A2ACLI_OUTPUT", "Output"),
    ("transport", "A2ACLI_TRANSPORT", "Transport"),
    ("a2a_version", "A2ACLI_A2A_VERSION", "A2A Version"),
    ("bearer", "A2ACLI_BEARER", "Bearer"),
    ("api_key", "A2ACLI_API_KEY", "API Key"),
    ("basic", "A2ACLI_BASIC", "Basic"),
    ("cert", "A2ACLI_CERT", "Client Certificate"),
    ("key", "A2ACLI_KEY", "Client Key"),
    ("ca", "A2ACLI_CA", "CA"),
    ("timeout", "A2ACLI_TIMEOUT", "Timeout"),
    ("poll_interval", "A2ACLI_POLL_INTERVAL", "Poll Interval"),
    ("insecure", "A2ACLI_INSECURE", "Insecure"),
];

/// `config show`: each setting's effective value and its source.
pub(crate) fn show(matches: &ArgMatches, loaded: &Loaded, out: &Out) {
    let sub = matches.subcommand().map_or(matches, |(_, m)| m);
    let sub = sub.subcommand().map_or(sub, |(_, m)| m);
    let mut rows = Vec::new();
    for (id, variable, label) in SETTINGS {
        let raw = |m: &ArgMatches| -> Option<(String, ValueSource)> {
            let source = m.value_source(id)?;
            let values: Vec<String> = m.get_raw(id)?.map(|v| v.to_string_lossy().into_owned()).collect();
            Some((values.join(","), source))
        };
        let (value, source) = match raw(sub).or_else(|| raw(matches)) {
            None => (None, "unset".to_owned()),
            Some((value, ValueSource::CommandLine)) => (Some(value), "flag".to_owned()),
            Some((value, ValueSource::EnvVariable)) => {
                let source = match loaded.from_file.get(variable) {
                    Some(file) => format!("file {}", file.display()),
                    None => format!("environment {variable}"),
                };
                (Some(value), source)
            }
            Some((value, _)) => (Some(value), "default".to_owned()),
        };
        let value = value.map(|v| {
            if matches!(id, "bearer" | "api_key" | "basic") {
                redact("authorization", &v)
            } else {
                v
            }
        });
        rows.push((label, variable, value, source));
    }
    if out.json() {
        let settings: Vec<serde_json::Value> = rows
            .iter()
            .map(|(_, variable, value, source)| serde_json::json!({"name": variable, "value": value, "source": source}))
            .collect();
        let files: Vec<String> = loaded.files.iter().map(|f| f.display().to_string()).collect();
        out.document(&serde_json::json!({"settings": settings, "files": files}));
    } else {
        let mut text = String::new();
        for (label, _, value, source) in &rows {
            text.push_str(&field(label, format!("{} ({source})", value.as_deref().unwrap_or("-"))));
        }
        for file in &loaded.files {
            text.push_str(&field("File", file.display()));
        }
        out.print(&text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotenv_lines_are_read_like_a_shell_would() {
        let text = "# a comment\nA2ACLI_AGENT_CARD=localhost:8080\nexport A2ACLI_OUTPUT=\"json\"\nA2ACLI_BEARER='a b'\n\
                    OTHER=x\nA2ACLI_TIMEOUT=30s # trailing comment\nnot a line\n";
        assert_eq!(
            parse(text),
            [
                ("A2ACLI_AGENT_CARD".to_owned(), "localhost:8080".to_owned()),
                ("A2ACLI_OUTPUT".to_owned(), "json".to_owned()),
                ("A2ACLI_BEARER".to_owned(), "a b".to_owned()),
                ("A2ACLI_TIMEOUT".to_owned(), "30s".to_owned()),
            ]
        );
        let args = |a: &[&str]| a.iter().map(Into::into).collect::<Vec<std::ffi::OsString>>();
        assert_eq!(explicit_file(&args(&["a2a-cli", "--config", "x.env"])), Some(PathBuf::from("x.env")));
        assert_eq!(explicit_file(&args(&["a2a-cli", "--config=y.env"])), Some(PathBuf::from("y.env")));
    }
}
