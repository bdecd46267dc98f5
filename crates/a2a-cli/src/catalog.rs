//! Agent catalogs (SPEC.md §10.1, Tier 3: "A tool MAY accept an agent catalog or registry entry
//! wherever --agent-card accepts a reference, resolving it to an Agent Card before any other
//! operation"). The catalog protocol is out of the specification's scope; ours is one JSON
//! document, a local file or an `http(s)` URL:
//!
//! ```json
//! {"agents": {
//!     "weather": {"card": "https://weather.example.com", "description": "Forecasts"},
//!     "local":   "localhost:8080",
//!     "offline": {"card": "cards/offline.json"}
//! }}
//! ```
//!
//! Each entry names any `-a` reference (host, origin, card URL, card file; a relative file path
//! is relative to the catalog file). The catalog is `--catalog PATH|URL` (`A2ACLI_CATALOG`),
//! else `$XDG_CONFIG_HOME/a2a-cli/catalog.json` (`~/.config/a2a-cli/catalog.json`) when it
//! exists. `-a catalog:NAME` always means an entry; a bare `-a NAME` (letters, digits, `-`, `_`:
//! no dot, colon or slash) is an entry when a catalog is configured. An unknown name is a usage
//! error naming the known ones. The tool never writes the catalog.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::{exit, CliError};

/// `-a catalog:NAME`.
const PREFIX: &str = "catalog:";

/// One entry: the card reference it names, and what it says about the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) card: String,
    pub(crate) description: Option<String>,
}

/// A catalog, read.
#[derive(Debug)]
pub(crate) struct Catalog {
    /// Where it was read from (path or URL).
    pub(crate) source: String,
    pub(crate) entries: BTreeMap<String, Entry>,
}

/// The default catalog file: `$XDG_CONFIG_HOME/a2a-cli/catalog.json`, else
/// `~/.config/a2a-cli/catalog.json`.
pub(crate) fn default_file() -> Option<PathBuf> {
    let base =
        std::env::var_os("XDG_CONFIG_HOME").filter(|v| !v.is_empty()).map(PathBuf::from).or_else(|| {
            std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".config"))
        })?;
    Some(base.join("a2a-cli").join("catalog.json"))
}

/// Reads the catalog `--catalog` names, or the default file if it exists; `None` without one.
pub(crate) async fn load(explicit: Option<&str>) -> Result<Option<Catalog>, CliError> {
    let source = match explicit {
        Some(source) => source.to_owned(),
        None => match default_file().filter(|p| p.is_file()) {
            Some(path) => path.display().to_string(),
            None => return Ok(None),
        },
    };
    let (text, base) = if source.starts_with("http://") || source.starts_with("https://") {
        (fetch(&source).await?, None)
    } else {
        let path = Path::new(source.strip_prefix("file://").unwrap_or(&source));
        let text = std::fs::read_to_string(path)
            .map_err(|e| CliError::usage(format!("catalog {source}: cannot read it: {e}")))?;
        let base = path.parent().map(Path::to_path_buf);
        (text, base)
    };
    let entries =
        parse(&text, base.as_deref()).map_err(|e| CliError::usage(format!("catalog {source}: {e}")))?;
    Ok(Some(Catalog { source, entries }))
}

async fn fetch(url: &str) -> Result<String, CliError> {
    let unreachable = |e: String| {
        CliError::local("A2ACLI_ERR_UNREACHABLE", exit::UNREACHABLE, format!("catalog {url}: {e}"))
    };
    let client = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| CliError::internal(e.to_string()))?;
    let response = client.get(url).send().await.map_err(|e| unreachable(e.to_string()))?;
    if !response.status().is_success() {
        return Err(unreachable(format!("HTTP {}", response.status())));
    }
    response.text().await.map_err(|e| unreachable(e.to_string()))
}

/// The entries of a catalog document; relative file references are made relative to `base`.
fn parse(text: &str, base: Option<&Path>) -> Result<BTreeMap<String, Entry>, String> {
    let document: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let Some(agents) = document.get("agents").and_then(Value::as_object) else {
        return Err("no `agents` object (expected {\"agents\": {\"NAME\": {\"card\": \"REF\"}}})".into());
    };
    let mut entries = BTreeMap::new();
    for (name, value) in agents {
        if !is_name(name) {
            return Err(format!("`agents.{name}`: a name is letters, digits, `-` and `_`"));
        }
        let (card, description) = match value {
            Value::String(card) => (card.clone(), None),
            Value::Object(entry) => match entry.get("card") {
                Some(Value::String(card)) => {
                    let description = match entry.get("description") {
                        None | Some(Value::Null) => None,
                        Some(Value::String(d)) => Some(d.clone()),
                        Some(_) => return Err(format!("`agents.{name}.description` is not a string")),
                    };
                    (card.clone(), description)
                }
                _ => return Err(format!("`agents.{name}.card` is missing or not a string")),
            },
            _ => return Err(format!("`agents.{name}` is neither a reference nor an object with `card`")),
        };
        if card.trim().is_empty() {
            return Err(format!("`agents.{name}.card` is empty"));
        }
        entries.insert(name.clone(), Entry { card: relative_to(card, base), description });
    }
    Ok(entries)
}

/// A relative file reference (`x.json`, `./x`, `cards/x.json`) made relative to the catalog's
/// directory; hosts and URLs unchanged.
fn relative_to(card: String, base: Option<&Path>) -> String {
    let Some(base) = base else { return card };
    let file = card.strip_prefix("file://").unwrap_or(&card);
    let looks_like_file = card.starts_with("file://")
        || card.starts_with("./")
        || card.starts_with("../")
        || (card.ends_with(".json") && !card.contains("://"));
    if looks_like_file && Path::new(file).is_relative() {
        base.join(file).display().to_string()
    } else {
        card
    }
}

fn is_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// Whether `-a reference` may name a catalog entry (then the catalog is read): `catalog:NAME`,
/// or a bare name other than `localhost`.
pub(crate) fn may_name(reference: &str) -> bool {
    reference.starts_with(PREFIX) || (is_name(reference) && reference != "localhost")
}

/// The card reference `-a reference` stands for: a catalog entry's, `None` for `reference`
/// itself.
pub(crate) fn resolve(reference: &str, catalog: Option<&Catalog>) -> Result<Option<String>, CliError> {
    if !may_name(reference) {
        return Ok(None);
    }
    let (name, explicit) = match reference.strip_prefix(PREFIX) {
        Some(name) => (name, true),
        None => (reference, false),
    };
    let Some(catalog) = catalog else {
        if explicit {
            let default = default_file()
                .map_or_else(|| "~/.config/a2a-cli/catalog.json".into(), |p| p.display().to_string());
            return Err(CliError::usage(format!(
                "-a {reference}: no catalog (create {default} or pass --catalog PATH|URL)"
            )));
        }
        return Ok(None);
    };
    match catalog.entries.get(name) {
        Some(entry) => Ok(Some(entry.card.clone())),
        None => {
            let known: Vec<&str> = catalog.entries.keys().map(String::as_str).collect();
            let known = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
            Err(CliError::usage(format!(
                "-a {reference}: no agent named {name:?} in the catalog {} (known: {known})",
                catalog.source
            ))
            .hint("a2a-cli catalog list; a host is written with a dot or a port, or as https://NAME"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_references_or_objects_and_files_are_relative_to_the_catalog() {
        let text = r#"{"agents": {"a": "localhost:8080", "b": {"card": "cards/b.json", "description": "B"},
                       "c": {"card": "https://c.example.com/x"}}}"#;
        let entries = parse(text, Some(Path::new("/etc/cat"))).unwrap();
        assert_eq!(entries["a"].card, "localhost:8080");
        assert_eq!(
            entries["b"],
            Entry { card: "/etc/cat/cards/b.json".into(), description: Some("B".into()) }
        );
        assert_eq!(entries["c"].card, "https://c.example.com/x");
        for bad in [
            "[]",
            r#"{"agents": []}"#,
            r#"{"agents": {"a b": "x"}}"#,
            r#"{"agents": {"a": 1}}"#,
            r#"{"agents": {"a": {"card": ""}}}"#,
            r#"{"agents": {"a": {"card": "x", "description": 2}}}"#,
        ] {
            assert!(parse(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn names_resolve_and_unknown_ones_are_usage_errors_naming_the_known_ones() {
        let catalog = Catalog {
            source: "c.json".into(),
            entries: parse(r#"{"agents": {"demo": "h:1"}}"#, None).unwrap(),
        };
        assert_eq!(resolve("demo", Some(&catalog)).unwrap().as_deref(), Some("h:1"));
        assert_eq!(resolve("catalog:demo", Some(&catalog)).unwrap().as_deref(), Some("h:1"));
        assert_eq!(resolve("h.example.com", Some(&catalog)).unwrap(), None, "a host stays a host");
        assert_eq!(resolve("localhost", Some(&catalog)).unwrap(), None);
        assert_eq!(resolve("other", None).unwrap(), None, "without a catalog, a bare word is a host");
        let error = resolve("catalog:nope", Some(&catalog)).unwrap_err();
        assert_eq!(error.exit, exit::USAGE);
        assert!(error.message.contains("known: demo"), "{}", error.message);
        assert_eq!(resolve("nope", Some(&catalog)).unwrap_err().exit, exit::USAGE);
        assert_eq!(resolve("catalog:x", None).unwrap_err().exit, exit::USAGE);
    }
}
