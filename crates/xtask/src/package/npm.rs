//! The npm tarball (`npm pack` of `js/`, whose `prepack` refuses to pack
//! without the built `dist/`) and its consumers, each in a scratch project
//! under `target/package-consumers/` that knows the package only by its
//! name:
//!
//! - `node`: plain Node ESM (`js/consumer/node.mjs`);
//! - `web`: a small page (`js/consumer/web/`) type-checked with
//!   `tsc --strict --noEmit`, built by Vite for production, and run from
//!   that build in headless Chromium.

use std::fs;
use std::path::{Path, PathBuf};

use super::Dist;
use crate::cmd::{Result, copy_tree, fresh_dir, path_str, root, run_in};
use crate::wasm;

fn js_dir() -> PathBuf {
    root().join("js")
}

/// The tarball in `out`, its only `.tgz`.
fn tarball_in(out: &Path) -> Result<PathBuf> {
    fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "tgz"))
        .ok_or_else(|| format!("no npm tarball in {}", out.display()))
}

/// Builds `js/dist` (the size budget checked) unless this run just did,
/// and packs it into `out`.
pub fn tarball(out: &Path, dist: Dist) -> Result {
    if dist == Dist::Build {
        wasm::build()?;
    }
    if let Ok(old) = tarball_in(out) {
        fs::remove_file(&old).map_err(|e| format!("{}: {e}", old.display()))?;
    }
    run_in(
        &js_dir(),
        "npm",
        &["pack", "--pack-destination", path_str(out)?],
        &[],
    )?;
    let tgz = tarball_in(out)?;
    let size = fs::metadata(&tgz).map_err(|e| e.to_string())?.len();
    eprintln!("xtask: npm tarball {} ({size} bytes)", tgz.display());
    Ok(())
}

/// A fresh scratch directory.
fn scratch(name: &str) -> Result<PathBuf> {
    let dir = root().join("target/package-consumers").join(name);
    fresh_dir(&dir)?;
    Ok(dir)
}

/// Installs the tarball from `out` into each consumer and runs it.
pub fn consumers(out: &Path) -> Result {
    let tgz = tarball_in(out)?;
    let tgz = path_str(&tgz)?;

    // Plain Node ESM.
    let node = scratch("node")?;
    fs::write(
        node.join("package.json"),
        "{\"name\":\"consumer\",\"version\":\"1.0.0\",\"private\":true,\"type\":\"module\"}\n",
    )
    .map_err(|e| e.to_string())?;
    run_in(
        &node,
        "npm",
        &["install", "--no-audit", "--no-fund", "--offline", tgz],
        &[],
    )?;
    fs::copy(
        js_dir().join("consumer/node.mjs"),
        node.join("consumer.mjs"),
    )
    .map_err(|e| format!("cannot copy the consumer script: {e}"))?;
    run_in(&node, "node", &["consumer.mjs"], &[])?;

    // A web page: its own lock file (Vite, TypeScript, playwright-core),
    // then the tarball.
    let web = scratch("web")?;
    copy_tree(&js_dir().join("consumer/web"), &web)?;
    run_in(&web, "npm", &["ci", "--no-audit", "--no-fund"], &[])?;
    run_in(
        &web,
        "npm",
        &[
            "install",
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--offline",
            tgz,
        ],
        &[],
    )?;
    run_in(&web, "npm", &["run", "typecheck"], &[])?;
    run_in(&web, "npm", &["run", "build"], &[])?;
    run_in(&web, "node", &["run.mjs"], &[])
}
