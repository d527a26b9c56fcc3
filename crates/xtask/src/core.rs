//! The Rust workspace: format check, clippy, and every Rust test suite.

use crate::cmd::{Result, run, works};

/// rustfmt and clippy, if the toolchain lacks them.
pub fn setup() -> Result {
    if !works("cargo", &["fmt", "--version"]) || !works("cargo", &["clippy", "--version"]) {
        run("rustup", &["component", "add", "rustfmt", "clippy"])?;
    }
    Ok(())
}

/// `cargo fmt --check`, clippy with `-D warnings`, the official vectors (with
/// their case counts printed), then every workspace test.
pub fn test() -> Result {
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
            "it",
            "official_vectors::",
            "--",
            "--nocapture",
        ],
    )?;
    run(
        "cargo",
        &["test", "--workspace", "--all-features", "--locked"],
    )
}
