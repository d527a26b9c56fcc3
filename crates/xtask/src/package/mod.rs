//! `cargo xtask package`: every installable artifact, under
//! `target/package/`, and the consumer tests that install each one into a
//! scratch project holding nothing else of the repository.
//!
//! - `npm`: the npm tarball (`npm pack` of `js/`), installed into a Vite
//!   production build and a `tsc --strict --noEmit` project;
//! - `python`: the wheel (maturin, UniFFI), installed into a fresh venv
//!   running a bot-style script;
//! - `jvm`: the jar (Kotlin bindings and the native library for JNA) built
//!   and tested with Maven, used by a scratch Maven project;
//! - `mobile`: the iOS static libraries and the Android ABIs compiled, so a
//!   change that breaks a mobile target fails here.
//!
//! `cargo xtask test` then runs the READMEs' quick starts in those scratch
//! projects ([`quickstart()`]).

mod jvm;
mod mobile;
mod npm;
pub mod python;
mod quickstart;

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use crate::cmd::{Result, root};

pub use mobile::swift_release;
pub use quickstart::run as quickstart;

/// Where every artifact is written.
pub fn out_dir() -> PathBuf {
    root().join("target/package")
}

/// The artifacts, by the name `cargo xtask package <name>...` selects them with.
const PARTS: [&str; 4] = ["npm", "python", "jvm", "mobile"];

/// `cargo xtask package [--consumers] [npm|python|jvm|mobile ...]`: builds
/// the selected artifacts (every one when none is named) into [`out_dir`];
/// with `--consumers`, installs each into its scratch consumer too.
pub fn command(args: &[String]) -> Result {
    let consumers = args.iter().any(|a| a == "--consumers");
    let named: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| *a != "--consumers")
        .collect();
    if let Some(unknown) = named.iter().find(|n| !PARTS.contains(n)) {
        return Err(format!("unknown package `{unknown}` (one of {PARTS:?})"));
    }
    let parts: Vec<&str> = if named.is_empty() {
        PARTS.to_vec()
    } else {
        named
    };
    build(&parts, consumers)
}

/// Every artifact and every consumer test: the step `cargo xtask test` runs,
/// after the WASM suites built `js/dist` in the same run (so it is packed as
/// it is, not built again).
pub fn test() -> Result {
    build_with(&PARTS, true, Dist::Built)?;
    quickstart::run()
}

/// Whether `js/dist` must be built before `npm pack`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dist {
    /// Build it (`cargo xtask wasm`, with the size budget).
    Build,
    /// This run built it already.
    Built,
}

fn build(parts: &[&str], consumers: bool) -> Result {
    build_with(parts, consumers, Dist::Build)
}

fn build_with(parts: &[&str], consumers: bool, dist: Dist) -> Result {
    let started = Instant::now();
    let out = out_dir();
    fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    for part in parts {
        match *part {
            "npm" => {
                npm::tarball(&out, dist)?;
                if consumers {
                    npm::consumers(&out)?;
                }
            }
            "python" => {
                python::wheel(&out)?;
                if consumers {
                    python::consumer(&out)?;
                }
            }
            "jvm" => {
                jvm::jar(&out)?;
                if consumers {
                    jvm::consumer(&out)?;
                }
            }
            _ => mobile::libraries(&out)?,
        }
    }
    eprintln!(
        "xtask: {} written to {}{} in {:.0}s",
        parts.join(", "),
        out.display(),
        if consumers {
            " and installed by their consumers"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// What the artifacts need and is missing (each step checks first). The
/// mobile targets' standard libraries are installed by the mobile step
/// itself, so that a download server out of reach fails that step, not the
/// install of every suite before it.
pub fn setup() -> Result {
    crate::wasm::setup()?;
    python::setup()?;
    jvm::setup()?;
    Ok(())
}
