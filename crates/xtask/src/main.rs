//! `cargo xtask`: the project's automation.
//!
//! - `cargo xtask test`: installs whatever the suites need and is missing
//!   (idempotent; each step checks first), then runs the format check, clippy
//!   with `-D warnings`, and every test suite. This is the README's test
//!   command and what `.ci/run` calls.
//! - `cargo xtask setup`: only the install steps.
//! - `cargo xtask fuzz [--secs N] [--runs N] [target ...]`: the fuzz targets.
//! - `cargo xtask exports [--write]`: every binding's names against the one
//!   list in `exports.rs` (`--write`: the README table from it).
//! - `cargo xtask bench [--quick]`: every benchmark, written to `BENCHMARKS.md`.
//!
//! One module per part of the project, each with its own `setup` and `test`
//! steps; `cmd` holds the shared helpers. Uses nothing but the standard
//! library so that it builds in seconds on a fresh machine.

mod bench;
mod cmd;
mod core;
mod exports;
mod ffi;
mod fuzz;
mod package;
mod wasm;
mod wasm_size;

use std::process::ExitCode;
use std::time::Instant;

use cmd::Result;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args.first().map(String::as_str) {
        Some("test") => setup().and_then(|()| test()),
        Some("setup") => setup(),
        Some("layers") => core::layers(),
        Some("ffi") => ffi::setup().and_then(|()| ffi::test()),
        Some("wasm") => wasm::setup().and_then(|()| wasm::build()),
        Some("wasm-test") => wasm::setup().and_then(|()| wasm::test()),
        Some("package") => {
            package::setup().and_then(|()| package::command(args.get(1..).unwrap_or_default()))
        }
        Some("quickstart") => package::quickstart(),
        Some("exports") => exports::command(args.get(1..).unwrap_or_default()),
        Some("swift-release") => package::swift_release(args.get(1..).unwrap_or_default()),
        Some("fuzz") => fuzz::fuzz(args.get(1..).unwrap_or_default()),
        Some("bench") => bench::bench(args.get(1..).unwrap_or_default()),
        _ => {
            eprintln!("usage: cargo xtask <command>");
            eprintln!(
                "  test   install what is missing, then fmt check, clippy and every test suite"
            );
            eprintln!("  setup  only install what is missing");
            eprintln!("  layers check that each layer crate depends only down the layers");
            eprintln!("  ffi    only the UniFFI bindings (Kotlin, Swift drift, Python)");
            eprintln!("  wasm   build the npm package into js/dist (size budget checked)");
            eprintln!("  wasm-test  only the npm package's build and tests");
            eprintln!(
                "  package [--consumers] [npm|python|jvm|mobile ...]  the installable artifacts, into target/package"
            );
            eprintln!(
                "  quickstart  run the READMEs' quick starts where `package --consumers` installed the artifacts"
            );
            eprintln!(
                "  exports [--write]  check every binding against the one list of exports (--write: README table)"
            );
            eprintln!(
                "  swift-release <zip> <url>  point Package.swift at a published XCFramework"
            );
            eprintln!("  fuzz [--secs N] [--runs N] [target ...]  run the cargo-fuzz targets");
            eprintln!(
                "  bench [--quick]  every benchmark, written to BENCHMARKS.md (not part of test)"
            );
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

/// Every install step. Each checks before it installs, so a second run does nothing.
fn setup() -> Result {
    core::setup()?;
    wasm::setup()?;
    ffi::setup()?;
    package::setup()?;
    fuzz::setup()?;
    Ok(())
}

/// Every test step, the Rust workspace first.
fn test() -> Result {
    let started = Instant::now();
    core::test()?;
    wasm::test()?;
    ffi::test()?;
    package::test()?;
    exports::test()?;
    fuzz::test()?;
    eprintln!(
        "xtask: every suite passed in {:.0}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
