//! Workspace automation, run as `cargo xtask <command>` (see `.cargo/config.toml`).
//!
//! - `codegen [--check]`: regenerate `crates/a2a-proto/src/generated/` from `proto/`; with `--check`,
//!   fail if the checked-in files differ from what the protos produce (CI's drift check).
//! - `console [--check]`: build the reference server's web console (`crates/a2a-server/console`)
//!   into its checked-in `dist/`; with `--check`, fail if `dist/` differs from what the sources
//!   build (CI's drift check).
//! - `test`: the whole test suite (after `npm ci` of the console's browser test): nextest over the workspace (unit, integration and the
//!   conformance suite), the doc tests, then the interop matrix with the official SDKs and the
//!   gRPC clients generated from `proto/` (`stubs`).
//! - `conformance [--url URL]`: the cross-binding conformance suite, against the reference server
//!   or any A2A agent (see `docs/conformance.md`).
//! - `interop [--bless] [--line 1.0|0.3] [--card-signing]`: the official SDKs (their 1.x and 0.3
//!   lines) against our server and our client against theirs (see `docs/interop.md`).
//! - `stubs`: gRPC clients generated from `proto/` in other languages against the
//!   reference server (see `docs/grpc-stubs.md`).
//! - `bench [--quick] [--url URL] [--instructions]`: the benchmark harness (`crates/a2a-bench`).
//! - `soak [--minutes N] [--rate R] [--debug]`: a long mixed load judging leaks and errors
//!   (`crates/a2a-bench/src/soak.rs`, results in `docs/operations.md`).
//! - `fuzz [--seconds N] [--target NAME]`: builds the `cargo fuzz` targets and runs each for N s
//!   (see `docs/fuzzing.md`).
//! - `ci`: the same checks `.ci/run` performs, for running locally.

mod bench;
mod codegen;
mod conformance;
mod console;
mod fuzz;
mod interop;
mod soak;
mod stubs;

use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(&workspace_root(), args.iter().any(|a| a == "--check")),
        Some("console") => console::run(&workspace_root(), &args[1..]),
        Some("test") => test(),
        Some("conformance") => conformance::run(&args[1..]),
        Some("interop") => interop::run(&args[1..]),
        Some("bench") => bench::run(&args[1..]),
        Some("fuzz") => fuzz::run(&args[1..]),
        Some("soak") => soak::run(&args[1..]),
        Some("stubs") => stubs::run(&args[1..]),
        Some("ci") => ci(),
        _ => {
            eprintln!(
                "usage: cargo xtask <codegen [--check] | console [--check] | test | conformance | interop | stubs | bench | soak | fuzz | ci>"
            );
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("xtask: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: xtask lives one level below it.
pub(crate) fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask has a parent directory").to_path_buf()
}

/// The whole test suite: the console's npm dependencies (its browser test), every crate's unit and
/// integration tests under nextest (plain `cargo test` where nextest is not installed), the doc
/// tests, which nextest does not run, and the interop matrix (`cargo xtask interop`) and the generated gRPC clients (`cargo xtask stubs`).
fn test() -> anyhow::Result<()> {
    // The console's browser test (crates/a2a-server/tests/console.rs) runs playwright-core.
    console::install(&workspace_root())?;
    let nextest =
        Command::new(cargo()).args(["nextest", "--version"]).output().is_ok_and(|o| o.status.success());
    if nextest {
        run_cargo(&["nextest", "run", "--workspace", "--all-features", "--no-fail-fast"])?;
    } else {
        eprintln!("xtask: cargo-nextest not found, using cargo test");
        run_cargo(&["test", "--workspace", "--all-features", "--lib", "--bins", "--tests", "--examples"])?;
    }
    run_cargo(&["test", "--workspace", "--all-features", "--doc"])?;
    // The official SDKs (1.x and 0.3 lines) against our server and our clients against theirs
    // (needs python3, node).
    interop::run(&[])?;
    // Clients generated from proto/ in Python and TypeScript against our server (needs python3,
    // node).
    stubs::run(&[])
}

/// Runs the steps of CI (`.ci/run`), in its order, stopping at the first failure. What `.ci/run`
/// does besides is the machine's setup: installing cargo-nextest and tmux, starting PostgreSQL.
fn ci() -> anyhow::Result<()> {
    codegen::run(&workspace_root(), true)?;
    console::run(&workspace_root(), &["--check".to_owned()])?;
    let steps: &[&[&str]] = &[
        &["fmt", "--all", "--", "--check"],
        &["clippy", "--workspace", "--all-targets", "--all-features", "--", "-D", "warnings"],
        &["check", "-p", "a2a-server", "--no-default-features", "--lib"],
        &["doc", "--workspace", "--no-deps", "--all-features"],
    ];
    for step in steps {
        run_cargo(step)?;
    }
    test()?;
    bench::run(&["--quick".to_owned()])?;
    bench::run(&["--instructions".to_owned(), "--quick".to_owned()])?;
    let fuzz_target = std::env::var_os("HOME").map_or_else(
        || workspace_root().join("fuzz").join("target"),
        |home| std::path::PathBuf::from(home).join(".cache").join("a2a-fuzz-target"),
    );
    fuzz::run(&[
        "--seconds".to_owned(),
        "20".to_owned(),
        "--target-dir".to_owned(),
        fuzz_target.display().to_string(),
    ])
}

pub(crate) fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

pub(crate) fn run_cargo(args: &[&str]) -> anyhow::Result<()> {
    eprintln!("$ cargo {}", args.join(" "));
    let status = Command::new(cargo())
        .args(args)
        .current_dir(workspace_root())
        .env("RUSTDOCFLAGS", "-D warnings")
        .status()?;
    anyhow::ensure!(status.success(), "cargo {} failed", args.join(" "));
    Ok(())
}
