//! `cargo xtask`: the project's automation.
//!
//! - `cargo xtask test`: installs whatever the suites need and is missing
//!   (idempotent; each step checks first), then runs the format check, clippy
//!   with `-D warnings`, and every test suite. This is the README's test
//!   command and what `.ci/run` calls.
//! - `cargo xtask setup`: only the install steps.
//!
//! Uses nothing but the standard library so that it builds in seconds on a
//! fresh machine.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("test") => setup().and_then(|()| test()),
        Some("setup") => setup(),
        _ => {
            eprintln!("usage: cargo xtask <test|setup>");
            eprintln!(
                "  test   install what is missing, then fmt check, clippy and every test suite"
            );
            eprintln!("  setup  only install what is missing");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root (the parent of `crates/xtask`).
fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or(manifest)
}

/// Runs a command in the workspace root, echoing it, failing on a non-zero exit.
fn run(program: &str, args: &[&str]) -> Result {
    eprintln!("+ {program} {}", args.join(" "));
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    eprintln!("  ({program} took {:.1}s)", started.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// Whether a command runs and exits 0 (output discarded).
fn works(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Install steps. Each checks before it installs, so a second run does nothing.
fn setup() -> Result {
    if !works("cargo", &["fmt", "--version"]) || !works("cargo", &["clippy", "--version"]) {
        run("rustup", &["component", "add", "rustfmt", "clippy"])?;
    }
    Ok(())
}

fn test() -> Result {
    let started = Instant::now();
    run("cargo", &["fmt", "--all", "--", "--check"])?;
    run(
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--all-features",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    // The official vectors print their case counts.
    run(
        "cargo",
        &[
            "test",
            "--locked",
            "-p",
            "streamseal",
            "--test",
            "official_vectors",
            "--",
            "--nocapture",
        ],
    )?;
    run(
        "cargo",
        &["test", "--workspace", "--all-features", "--locked"],
    )?;
    eprintln!(
        "xtask: every suite passed in {:.0}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
