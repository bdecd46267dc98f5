//! `cargo xtask stubs`: gRPC clients generated from `proto/` in other languages, driving the
//! reference server through every gRPC operation (see `docs/grpc-stubs.md`).
//!
//! In order, stopping at the first step that cannot be done (an install that fails is an error,
//! never a skip):
//!
//! 1. Installs the pinned Python toolchain (`tests/grpc-stubs/python/requirements.txt`: grpcio,
//!    grpcio-tools, protobuf, googleapis-common-protos, hash-checked) into
//!    `tests/grpc-stubs/python/.venv` with the interop installer (a stamp skips an unchanged
//!    install).
//! 2. Generates the Python stubs from `proto/a2a.proto` with `grpc_tools.protoc`
//!    (`tests/grpc-stubs/python/generate.py`) into `$CARGO_TARGET_DIR/grpc-stubs/python`: generated
//!    code is never committed, so it cannot drift from `proto/`.
//! 3. Installs the pinned TypeScript toolchain (`tests/grpc-stubs/node/package-lock.json`: buf,
//!    protoc-gen-es, @bufbuild/protobuf, @connectrpc/connect-node, typescript) with `npm ci`
//!    (again skipped when the lock file is unchanged), generates the TypeScript stubs from
//!    `proto/a2a.proto` with buf and protoc-gen-es into `tests/grpc-stubs/node/generated`
//!    (gitignored: node resolves their imports from the package's `node_modules` only there) and
//!    compiles them with the client (`tsc`, strict) into `tests/grpc-stubs/node/build`.
//! 4. Builds `a2a-server` and starts it on `127.0.0.1:0` with `--store memory --push-allow
//!    127.0.0.0/8`, reading its URL from what it prints.
//! 5. Runs each generated client (`tests/grpc-stubs/python/client.py`,
//!    `tests/grpc-stubs/node/client.ts`) against it. Each must exit successfully and close with
//!    `N passed, 0 failed`; both run even when the first fails.
//! 6. Stops the server (also on failure: the child is killed when dropped).
//!
//! Logs (the server's, each client's output) are in `$CARGO_TARGET_DIR/grpc-stubs/`.

use std::fs;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, ensure, Context as _};

use crate::interop::{check, install_js, install_python, target_dir, Service};

pub(crate) fn run(args: &[String]) -> anyhow::Result<()> {
    if let Some(arg) = args.first() {
        bail!("unknown argument {arg:?}; usage: cargo xtask stubs");
    }
    let started = Instant::now();
    let root = crate::workspace_root();
    let dir = root.join("tests/grpc-stubs");
    let out = target_dir(&root).join("grpc-stubs");
    if out.exists() {
        fs::remove_dir_all(&out).with_context(|| format!("clearing {}", out.display()))?;
    }
    fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;

    let python = install_python(&dir.join("python"), ".venv", "requirements.txt")?;
    let python_stubs = out.join("python");
    check(
        Command::new(&python).arg(dir.join("python/generate.py")).arg("--out").arg(&python_stubs),
        "generating the Python stubs from proto/ (tests/grpc-stubs/python/generate.py)",
    )?;

    install_js(&dir, "node")?;
    let node = dir.join("node");
    check(
        Command::new("node").arg("generate.mjs").current_dir(&node),
        "generating the TypeScript stubs from proto/ (tests/grpc-stubs/node/generate.mjs)",
    )?;
    let build = node.join("build");
    if build.exists() {
        fs::remove_dir_all(&build).with_context(|| format!("clearing {}", build.display()))?;
    }
    check(
        Command::new("node").args(["node_modules/typescript/bin/tsc", "-p", "."]).current_dir(&node),
        "compiling the TypeScript client with its stubs (tsc -p tests/grpc-stubs/node)",
    )?;

    crate::run_cargo(&["build", "-p", "a2a-server", "--bin", "a2a-server"])?;
    let server_binary =
        target_dir(&root).join("debug").join(format!("a2a-server{}", std::env::consts::EXE_SUFFIX));
    let mut server = Service::start(
        "a2a-server",
        Command::new(server_binary).args([
            "--listen",
            "127.0.0.1:0",
            "--store",
            "memory",
            "--push-allow",
            "127.0.0.0/8",
            "--log",
            "warn",
        ]),
        "a2a-server listening on ",
        &out,
    )?;
    let url = server.url.clone();
    let python_result = run_client(
        "python-client",
        Command::new(&python)
            .arg(dir.join("python/client.py"))
            .arg("--url")
            .arg(&url)
            .arg("--stubs")
            .arg(&python_stubs),
        &out,
    );
    let node_result = run_client(
        "typescript-client",
        Command::new("node").arg(build.join("client.js")).arg("--url").arg(&url).current_dir(&node),
        &out,
    );
    server.stop();
    python_result?;
    node_result?;
    eprintln!("xtask: stubs took {:.0?}; logs in {}", started.elapsed(), out.display());
    Ok(())
}

/// Runs a generated client to its end, echoing its output (and keeping it in `{name}.log`); it
/// must exit successfully and close with `N passed, 0 failed` where N is not 0.
fn run_client(name: &str, command: &mut Command, logs: &Path) -> anyhow::Result<()> {
    eprintln!("xtask: running {name}");
    let log_path = logs.join(format!("{name}.log"));
    let mut log = fs::File::create(&log_path)?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {name}: {command:?}"))?;
    let stdout = child.stdout.take().context("no stdout pipe")?;
    let mut last = String::new();
    for line in BufReader::new(stdout).lines().map_while(Result::ok) {
        println!("{name}: {line}");
        writeln!(log, "{line}")?;
        if !line.trim().is_empty() {
            last = line;
        }
    }
    let status = child.wait()?;
    let summary = parse_summary(&last);
    ensure!(
        status.success() && matches!(summary, Some((passed, 0)) if passed > 0),
        "{name} failed ({status}; its last line: {last:?}); output in {}",
        log_path.display()
    );
    Ok(())
}

/// `(passed, failed)` from a client's closing `N passed, N failed` line.
fn parse_summary(line: &str) -> Option<(usize, usize)> {
    let (passed, failed) = line.trim().split_once(" passed, ")?;
    Some((passed.parse().ok()?, failed.strip_suffix(" failed")?.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closing_line_is_read_strictly() {
        assert_eq!(parse_summary("22 passed, 0 failed"), Some((22, 0)));
        assert_eq!(parse_summary("  3 passed, 2 failed\n"), Some((3, 2)));
        assert_eq!(parse_summary("PASS something"), None);
        assert_eq!(parse_summary("3 passed, 2 failed, 1 skipped"), None);
        assert_eq!(parse_summary("x passed, 0 failed"), None);
    }
}
