//! Installing the pinned SDKs from their lock files (an install that fails is an error, never a
//! skip), and reading the pinned versions for the matrix headings. `cargo xtask stubs` uses the
//! same installers.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{ensure, Context as _};

use super::peers::{Lang, Peer, PEERS};

/// Creates `{dir}/{venv}` (e.g. `tests/interop/.venv`) afresh and installs `{requirements}` into it (hash-checked),
/// unless the stamp says this exact file is installed with this interpreter; returns the venv's
/// python.
pub(crate) fn install_python(dir: &Path, venv: &str, requirements_file: &str) -> anyhow::Result<PathBuf> {
    let venv = dir.join(venv);
    let python = venv.join("bin/python");
    let requirements = fs::read_to_string(dir.join(requirements_file))
        .with_context(|| format!("reading {requirements_file}"))?;
    let system_python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let version = output_of(Command::new(&system_python).args([
        "-c",
        "import sys; assert sys.version_info >= (3, 10), 'a2a-sdk needs Python 3.10 or later'; print(sys.version)",
    ]))
    .with_context(|| format!("running {system_python} (Python 3.10 or later is needed; PYTHON chooses one)"))?;
    let wanted = format!("{requirements}\n# {system_python}: {}", version.trim());
    let stamp = venv.join(".interop-installed");
    if fs::read_to_string(&stamp).is_ok_and(|s| s == wanted) && python.exists() {
        return Ok(python);
    }
    eprintln!("xtask: installing {requirements_file} into {}", venv.display());
    if venv.exists() {
        fs::remove_dir_all(&venv).with_context(|| format!("removing the old {}", venv.display()))?;
    }
    check(Command::new(&system_python).args(["-m", "venv"]).arg(&venv), "creating the virtualenv")?;
    check(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--require-hashes"])
            .args(["--no-deps", "-r"])
            .arg(dir.join(requirements_file)),
        &format!("pip install -r {}", dir.join(requirements_file).display()),
    )?;
    check(Command::new(&python).args(["-m", "pip", "check"]), "pip check (the pinned set is inconsistent)")?;
    fs::write(&stamp, wanted)?;
    Ok(python)
}

/// `npm ci` in `{dir}/{package}` (e.g. `tests/interop/js`, `crates/a2a-server/console`) unless the
/// stamp says this exact lock file is installed.
pub(crate) fn install_js(dir: &Path, package: &str) -> anyhow::Result<()> {
    let js = dir.join(package);
    let lock = fs::read_to_string(js.join("package-lock.json"))
        .with_context(|| format!("reading {package}/package-lock.json"))?;
    let stamp = js.join("node_modules/.interop-installed");
    if fs::read_to_string(&stamp).is_ok_and(|s| s == lock) {
        return Ok(());
    }
    eprintln!("xtask: installing {}", js.join("node_modules").display());
    let version =
        output_of(Command::new("node").args(["-p", "Number(process.versions.node.split('.')[0]) >= 20"]))
            .context("running node (Node.js 20 or later is needed)")?;
    ensure!(version.trim() == "true", "node is older than 20 (@a2a-js/sdk and the console need 20)");
    check(
        Command::new("npm").args(["ci", "--no-audit", "--no-fund"]).current_dir(&js),
        &format!("npm ci in {}", js.display()),
    )?;
    fs::write(&stamp, lock)?;
    Ok(())
}

/// Installs every SDK of `peers` (in `dir`, `tests/interop`); returns the venv interpreter of each
/// Python peer, by name.
pub(super) fn install_peers(dir: &Path, peers: &[Peer]) -> anyhow::Result<BTreeMap<&'static str, PathBuf>> {
    let mut pythons = BTreeMap::new();
    for peer in peers {
        match peer.lang {
            Lang::Python => {
                pythons.insert(peer.name, install_python(dir, peer.install.0, peer.install.1)?);
            }
            Lang::Js => install_js(dir, peer.install.0)?,
        }
    }
    Ok(pythons)
}

/// Runs `command` to completion, failing loudly with what it was doing.
pub(crate) fn check(command: &mut Command, what: &str) -> anyhow::Result<()> {
    let status = command.status().with_context(|| format!("{what}: could not start {command:?}"))?;
    ensure!(status.success(), "{what} failed ({status})");
    Ok(())
}

fn output_of(command: &mut Command) -> anyhow::Result<String> {
    let output = command.output()?;
    ensure!(output.status.success(), "{command:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The a2a-sdk version a requirements file pins (`a2a-sdk[extras]==X \`).
fn pinned_a2a_sdk(requirements: &str) -> Option<String> {
    requirements
        .lines()
        .find_map(|l| l.strip_prefix("a2a-sdk[").and_then(|rest| rest.split_once("]==")).map(|(_, v)| v))
        .map(|v| v.trim_end_matches(['\\', ' ']).to_owned())
}

/// The pinned SDK versions, for the matrix headings, by peer name.
#[derive(Debug)]
pub(super) struct Versions(pub(super) BTreeMap<&'static str, String>);

impl Versions {
    /// Reads every peer's pin from its requirements file or `package.json` in `dir`.
    pub(super) fn read(dir: &Path) -> anyhow::Result<Self> {
        let mut versions = BTreeMap::new();
        for peer in PEERS {
            let version = match peer.lang {
                Lang::Python => {
                    let requirements = fs::read_to_string(dir.join(peer.install.1))?;
                    pinned_a2a_sdk(&requirements)
                        .with_context(|| format!("{} pins no a2a-sdk version", peer.install.1))?
                }
                Lang::Js => {
                    let package = fs::read_to_string(dir.join(peer.install.0).join("package.json"))?;
                    package
                        .lines()
                        .find_map(|l| l.trim().strip_prefix("\"@a2a-js/sdk\": \""))
                        .and_then(|v| v.split('"').next())
                        .map(str::to_owned)
                        .with_context(|| {
                            format!("{}/package.json pins no @a2a-js/sdk version", peer.install.0)
                        })?
                }
            };
            versions.insert(peer.name, version);
        }
        Ok(Versions(versions))
    }

    pub(super) fn of(&self, peer: &str) -> &str {
        self.0.get(peer).map_or("?", String::as_str)
    }
}
