//! The Rust workspace: format check, clippy, and every Rust test suite.

use std::process::Command;

use crate::cmd::{Result, root, run, works};

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
    layers()?;
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

/// The crates depend on each other only down the layers (ARCHITECTURE.md):
/// the crypto crate, with every kind of dependency (normal, build and dev),
/// reaches no JSON library and no crate of the layers above it. Cargo
/// refuses an import the manifest does not declare, so this check on the
/// manifest is the whole rule.
pub fn layers() -> Result {
    let out = Command::new("cargo")
        .args([
            "tree",
            "--locked",
            "-p",
            "streamseal-crypto",
            "-e",
            "normal,build,dev",
            "--prefix",
            "none",
            "--format",
            "{p}",
        ])
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree -p streamseal-crypto failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let tree = String::from_utf8_lossy(&out.stdout);
    let forbidden: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| {
            *name == "serde_json"
                || (name.starts_with("streamseal") && *name != "streamseal-crypto")
        })
        .collect();
    if forbidden.is_empty() {
        eprintln!("xtask: streamseal-crypto depends on no JSON library and no upper layer");
        Ok(())
    } else {
        Err(format!(
            "streamseal-crypto must not depend on {} (ARCHITECTURE.md, layers)",
            forbidden.join(", ")
        ))
    }
}
