//! The WASM npm package (`bindings/wasm` + `js/`): its tools, its build
//! (with the size budget) and its tests.
//!
//! - `setup`: the wasm32 target, `wasm-bindgen-cli` pinned to the
//!   `wasm-bindgen` of Cargo.lock (in `~/.cache/streamseal/tools/wasm`), Debian's
//!   chromium + chromium-driver, and `npm ci` in `js/` (binaryen's
//!   `wasm-opt`, `playwright-core`).
//! - `build` (`cargo xtask wasm`): the shipped package in `js/dist/`.
//! - `test`: the package (one build: the golden vectors are reproduced
//!   through its hazmat exports, which take the randomness as a parameter),
//!   node:test, wasm-bindgen-test under Node and headless Chromium, the
//!   Playwright example page. The `npm pack` tarball and its consumers are
//!   `cargo xtask package npm` (`package::npm`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::cmd::{Result, path_str, root, run, run_in, tools_root};

const TARGET: &str = "wasm32-unknown-unknown";

/// The budget of the shipped .wasm, gzip -9, in bytes.
///
/// Raised from the 150 KB, with the reason: the whole API measures
/// about 660 KB gzip (bindings/wasm/README.md has the figures). The crypto
/// core and sealed flows alone are about 300 KB (Argon2, HPKE/X25519,
/// AES-GCM, the NFC tables of passphrase normalisation, the wire types
/// they read); the 58 endpoints' typed requests and responses add the
/// rest, as serde code for every wire type, once for serde_json (the
/// core's parser) and once for serde-wasm-bindgen (the plain JS objects).
/// 150 KB cannot hold that.
///
/// Raised again from 700 KB for envelope version 2 (issue 16), by what
/// sender signatures measure: 695,495 -> 773,686 bytes gzip (+78 KB). The
/// only XEdDSA crate that passes the libxeddsa cross-check (`xeddsa` 1.1.0)
/// is built on curve25519-dalek 4, beside the curve25519-dalek 5 of HPKE:
/// its 30 KB basepoint table is a second, byte-identical copy (28.5 KB
/// gzip), the verification table 6.8 KB, the rest signing and verifying
/// code. This budget keeps about 3% headroom so that a real regression still
/// fails the build; splitting the first download (issue 20) is where the
/// size comes down, and one curve crate once an XEdDSA on curve25519-dalek 5
/// passes the same cross-check.
///
/// Raised from 800 KB for API §9.6 (issue 17: unknown fields kept
/// everywhere), by what it measured: responses crossing to JS as JSON text
/// 799,023 -> 792,253; the keys beside `data` kept in `ApiResponse::extra`
/// -> 798,018; the crypto records (key wraps, envelopes, sealed payloads,
/// `kdfParams`) keeping theirs, a flattened `extra` each -> 804,920. The
/// same 3% headroom; issue 20 is where the size comes down.
///
/// Raised from 830 KB for the realtime events decoder (issue 18:
/// `decodeEvent`, `decodeHelloAck`, the same features as UniFFI), by what it
/// measured with `cargo xtask wasm`: 823,741 -> 838,775 as first written
/// (payloads through `serde_json::Value`), 835,888 with results as JSON
/// text, 831,800 with the payload read once by serde-wasm-bindgen's
/// deserializer through the core's `Event::decode` and handed back as the
/// caller's own object. Per-crate `opt-level = "z"` for the serde-heavy
/// crates was tried and grew it (842,187). Issue 20's second module is
/// where the decoder belongs.
const GZIP_BUDGET: u64 = 834 * 1000;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";

fn tools_dir() -> PathBuf {
    tools_root().join("wasm")
}

fn wasm_bindgen_bin() -> PathBuf {
    tools_dir().join("bin/wasm-bindgen")
}

fn test_runner_bin() -> PathBuf {
    tools_dir().join("bin/wasm-bindgen-test-runner")
}

/// The wasm builds' own target directory: they share no artifacts with
/// the native workspace builds, and do not wait on their lock.
fn wasm_target_dir() -> PathBuf {
    root().join("target/wasm")
}

fn js_dir() -> PathBuf {
    root().join("js")
}

/// The version of the `wasm-bindgen` crate in Cargo.lock.
fn locked_wasm_bindgen() -> Result<String> {
    let lock = fs::read_to_string(root().join("Cargo.lock"))
        .map_err(|e| format!("cannot read Cargo.lock: {e}"))?;
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == "name = \"wasm-bindgen\""
            && let Some(version) = lines
                .next()
                .and_then(|l| l.trim().strip_prefix("version = "))
        {
            return Ok(version.trim_matches('"').to_owned());
        }
    }
    Err("Cargo.lock has no wasm-bindgen".to_owned())
}

fn output_of(program: &str, args: &[&str]) -> Option<String> {
    Command::new(program)
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
}

/// Installs what the package's build and tests need, when missing.
pub fn setup() -> Result {
    let installed = output_of("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if !installed.lines().any(|l| l.trim() == TARGET) {
        run("rustup", &["target", "add", TARGET])?;
    }

    let version = locked_wasm_bindgen()?;
    let have = output_of(path_str(&wasm_bindgen_bin())?, &["--version"]).unwrap_or_default();
    if have.trim() != format!("wasm-bindgen {version}") || !test_runner_bin().exists() {
        let tools = tools_dir();
        run(
            "cargo",
            &[
                "install",
                "wasm-bindgen-cli",
                "--version",
                &version,
                "--root",
                path_str(&tools)?,
                "--force",
            ],
        )?;
    }

    if !Path::new(CHROMIUM).exists() || !Path::new(CHROMEDRIVER).exists() {
        crate::cmd::apt_install(&["chromium", "chromium-driver"], true)?;
    }

    // `npm ci` when node_modules is missing or older than the lock file.
    let js = js_dir();
    let stamp = js.join("node_modules/.package-lock.json");
    let stale = match (modified(&stamp), modified(&js.join("package-lock.json"))) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    };
    if stale {
        run_in(&js, "npm", &["ci", "--no-audit", "--no-fund"], &[])?;
    }
    Ok(())
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Builds the shipped package into `js/dist` (wasm-release profile,
/// wasm-opt) and checks its size budget.
pub fn build() -> Result {
    let started = Instant::now();
    let profile = "wasm-release";
    let out = js_dir().join("dist");
    let target_dir = wasm_target_dir();
    let args = vec![
        "build",
        "--locked",
        "--target-dir",
        path_str(&target_dir)?,
        "-p",
        "streamseal-wasm",
        "--target",
        TARGET,
        "--profile",
        profile,
    ];
    run("cargo", &args)?;

    let wasm = target_dir.join(format!("{TARGET}/{profile}/streamseal_wasm.wasm"));
    crate::wasm_size::breakdown(&wasm)?;
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    run(
        path_str(&wasm_bindgen_bin())?,
        &[
            "--target",
            "web",
            "--out-dir",
            path_str(&out)?,
            "--out-name",
            "streamseal_wasm",
            path_str(&wasm)?,
        ],
    )?;
    write_error_reexport(&out)?;
    patch_assert_class(&out)?;

    let module = out.join("streamseal_wasm_bg.wasm");
    let wasm_opt = js_dir().join("node_modules/.bin/wasm-opt");
    let module_str = path_str(&module)?;
    run(
        path_str(&wasm_opt)?,
        &[
            "-Oz",
            "--enable-bulk-memory",
            "--enable-nontrapping-float-to-int",
            "--enable-sign-ext",
            "--enable-mutable-globals",
            "--enable-reference-types",
            "--enable-multivalue",
            // The module uses simd128 (.cargo/config.toml).
            "--enable-simd",
            "--strip-debug",
            "--strip-producers",
            module_str,
            "-o",
            module_str,
        ],
    )?;
    let (raw, gzip) = sizes(&module)?;
    eprintln!(
        "xtask: streamseal_wasm_bg.wasm: {raw} bytes raw, {gzip} bytes gzip -9 (budget {GZIP_BUDGET})"
    );
    if gzip > GZIP_BUDGET {
        return Err(format!(
            "the .wasm is {gzip} bytes gzip -9, over the budget of {GZIP_BUDGET}"
        ));
    }
    eprintln!(
        "xtask: package built in {} ({:.0}s)",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `dist/error.js`: re-exports the `StreamsealError` class from the
/// wasm-bindgen snippet that defines it, so that the package exports the
/// very class the glue throws.
fn write_error_reexport(out: &Path) -> Result {
    let snippets = out.join("snippets");
    let mut found = None;
    for entry in
        fs::read_dir(&snippets).map_err(|e| format!("no snippets in {}: {e}", out.display()))?
    {
        let dir = entry.map_err(|e| e.to_string())?.path();
        if dir.join("inline0.js").exists() {
            found = dir.file_name().and_then(|n| n.to_str()).map(str::to_owned);
        }
    }
    let dir = found.ok_or("the StreamsealError snippet is missing")?;
    let text = format!(
        "// Generated by `cargo xtask wasm`: the class the glue throws.\nexport {{ StreamsealError }} from \"./snippets/{dir}/inline0.js\";\n"
    );
    fs::write(out.join("error.js"), text).map_err(|e| format!("cannot write error.js: {e}"))
}

/// The glue's argument check of exported classes throws a bare `Error`,
/// and lets a freed object through (wasm-bindgen then throws "null pointer
/// passed to rust"). Both become a `StreamsealError` (`INVALID_FIELD`).
/// Fails the build if the glue no longer has the expected function.
fn patch_assert_class(out: &Path) -> Result {
    let glue_path = out.join("streamseal_wasm.js");
    let glue = fs::read_to_string(&glue_path).map_err(|e| format!("cannot read the glue: {e}"))?;
    let original = "function _assertClass(instance, klass) {
    if (!(instance instanceof klass)) {
        throw new Error(`expected instance of ${klass.name}`);
    }
}";
    let patched = "function _assertClass(instance, klass) {
    if (!(instance instanceof klass)) {
        throw makeStreamsealError(\"INVALID_FIELD\", `field is invalid: expected an instance of ${klass.name}`, undefined);
    }
    if (instance.__wbg_ptr === 0) {
        throw makeStreamsealError(\"INVALID_FIELD\", `field is invalid: the ${klass.name} was freed`, undefined);
    }
}";
    if glue.matches(original).count() != 1 || !glue.contains("import { makeStreamsealError }") {
        return Err("the wasm-bindgen glue changed: update patch_assert_class".to_owned());
    }
    fs::write(&glue_path, glue.replace(original, patched))
        .map_err(|e| format!("cannot write the glue: {e}"))
}

/// Raw and gzip -9 sizes of a file.
fn sizes(path: &Path) -> Result<(u64, u64)> {
    let raw = fs::metadata(path).map_err(|e| e.to_string())?.len();
    let gz = Command::new("gzip")
        .args(["-9", "-c", path_str(path)?])
        .output()
        .map_err(|e| format!("cannot run gzip: {e}"))?;
    if !gz.status.success() {
        return Err("gzip failed".to_owned());
    }
    Ok((raw, gz.stdout.len() as u64))
}

/// Builds the package and runs every test of it.
pub fn test() -> Result {
    let started = Instant::now();
    build()?;
    let js = js_dir();

    // node:test over the built package.
    let mut suites: Vec<String> = fs::read_dir(js.join("test"))
        .map_err(|e| format!("cannot list js/test: {e}"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".test.mjs"))
        .map(|name| format!("test/{name}"))
        .collect();
    suites.sort();
    let mut node_args = vec!["--test"];
    node_args.extend(suites.iter().map(String::as_str));
    run_in(&js, "node", &node_args, &[])?;

    // wasm-bindgen-test under Node, then headless Chromium.
    let runner = test_runner_bin();
    let runner = path_str(&runner)?;
    let target_dir = wasm_target_dir();
    // Clippy over what compiles only for wasm32 (the binding's engine
    // tests); the workspace clippy checks everything else natively.
    run(
        "cargo",
        &[
            "clippy",
            "--locked",
            "--target-dir",
            path_str(&target_dir)?,
            "-p",
            "streamseal-wasm",
            "--target",
            TARGET,
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    let test_args = [
        "test",
        "--locked",
        "--target-dir",
        path_str(&target_dir)?,
        "-p",
        "streamseal-wasm",
        "--target",
        TARGET,
        "--test",
        "web",
    ];
    run_in(
        &root(),
        "cargo",
        &test_args,
        &[("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", runner)],
    )?;
    run_in(
        &root(),
        "cargo",
        &test_args,
        &[
            ("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", runner),
            ("WASM_BINDGEN_USE_BROWSER", "1"),
            ("CHROMEDRIVER", CHROMEDRIVER),
        ],
    )?;

    // The example page and the worker entry in real headless Chromium.
    run_in(
        &js,
        "node",
        &[
            "--test",
            "examples/playwright.test.mjs",
            "examples/worker.test.mjs",
        ],
        &[],
    )?;

    eprintln!(
        "xtask: WASM package tests passed in {:.0}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
