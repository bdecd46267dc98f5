//! `cargo xtask console [--check]`: builds the reference server's web console
//! (`crates/a2a-server/console`, `docs/console.md`) from its TypeScript: `npm ci` from the
//! committed lock file, then `npm run build` (type check with `tsc`, bundle with esbuild) into
//! `dist/`, which is checked in and embedded in the binary (so building the server needs no
//! Node). With `--check` it builds into a scratch directory instead and fails when the
//! checked-in `dist/` differs (CI's drift check, like `cargo xtask codegen --check`).
//!
//! [`install`] is also what `cargo xtask test` runs first: the browser test
//! (`crates/a2a-server/tests/console.rs`) needs the console's `node_modules` (playwright-core).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context as _};

use crate::interop::{check, install_js};

/// The console's directory.
fn dir(root: &Path) -> PathBuf {
    root.join("crates/a2a-server/console")
}

/// `npm ci` in the console's directory, unless its lock file is installed already.
pub(crate) fn install(root: &Path) -> anyhow::Result<()> {
    install_js(&root.join("crates/a2a-server"), "console")
}

pub(crate) fn run(root: &Path, args: &[String]) -> anyhow::Result<()> {
    let check_only = match args {
        [] => false,
        [flag] if flag == "--check" => true,
        _ => bail!("usage: cargo xtask console [--check]"),
    };
    install(root)?;
    let console = dir(root);
    let dist = console.join("dist");
    if !check_only {
        check(Command::new("npm").args(["run", "--silent", "build"]).current_dir(&console), "npm run build")?;
        eprintln!("console: wrote {}", dist.display());
        return Ok(());
    }
    let scratch = std::env::temp_dir().join(format!("a2a-console-{}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    let built = check(
        Command::new("npm")
            .args(["run", "--silent", "build"])
            .env("A2A_CONSOLE_OUT", &scratch)
            .current_dir(&console),
        "npm run build",
    )
    .and_then(|()| compare(&read_dir(&scratch)?, &read_dir(&dist)?));
    let _ = fs::remove_dir_all(&scratch);
    built.context("crates/a2a-server/console/dist is out of date: run `cargo xtask console` and commit dist/")
}

/// The files of `dir` (not recursive: dist/ is flat), by name.
fn read_dir(dir: &Path) -> anyhow::Result<BTreeMap<String, Vec<u8>>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            files.insert(entry.file_name().to_string_lossy().into_owned(), fs::read(entry.path())?);
        }
    }
    Ok(files)
}

/// Fails naming every file that is missing, extra or different.
fn compare(built: &BTreeMap<String, Vec<u8>>, checked_in: &BTreeMap<String, Vec<u8>>) -> anyhow::Result<()> {
    let mut drift = Vec::new();
    for (name, bytes) in built {
        match checked_in.get(name) {
            None => drift.push(format!("{name}: not checked in")),
            Some(old) if old != bytes => drift.push(format!("{name}: differs")),
            Some(_) => {}
        }
    }
    drift.extend(
        checked_in.keys().filter(|name| !built.contains_key(*name)).map(|n| format!("{n}: not built")),
    );
    if drift.is_empty() {
        eprintln!("console: dist/ is up to date");
        return Ok(());
    }
    bail!("{}", drift.join("; "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_names_each_file() {
        let files = |pairs: &[(&str, &str)]| -> BTreeMap<String, Vec<u8>> {
            pairs.iter().map(|(n, b)| ((*n).to_owned(), b.as_bytes().to_vec())).collect()
        };
        let built = files(&[("a.js", "1"), ("b.css", "2"), ("c.html", "3")]);
        assert!(compare(&built, &built).is_ok());
        let checked_in = files(&[("a.js", "1"), ("b.css", "old"), ("d.txt", "4")]);
        let error = compare(&built, &checked_in).unwrap_err().to_string();
        assert_eq!(error, "b.css: differs; c.html: not checked in; d.txt: not built");
    }
}
