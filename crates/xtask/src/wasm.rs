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

use crate::cmd::{Result, output_in, path_str, root, run, run_in, tools_root};

const TARGET: &str = "wasm32-unknown-unknown";

/// The budget of the first module (`streamseal_wasm_bg.wasm`: keys,
/// envelopes, wraps, bundles, trust, the sealed flows), gzip -9, in bytes:
/// what a front end downloads before it can open one message.
///
/// Issue 20 asks for 150 KB. Measured at the split (`cargo xtask wasm`):
/// 491,212 bytes, from 831,894 for the one module before it. Where the rest
/// goes, from the breakdown `cargo xtask wasm` prints (code before
/// wasm-opt): serde 26% (the wire types the sealed flows read and write,
/// crossing as plain JS objects), the standard library 12% (formatting
/// above all), the binding 12%, `streamseal-crypto` 11%, the primitives 11%
/// (with a second copy of curve25519-dalek's basepoint table under the
/// XEdDSA crate, 28.5 KB gzip), and 247 KB of data (tables). Then the
/// Unicode NFC tables left (passphrases are normalised in JS, js/src/nfc.js):
/// 409,449 bytes, and 135 KB of data. Then one curve (xeddsa patched onto
/// curve25519-dalek 5, vendor/xeddsa) and no precomputed basepoint tables
/// in WebAssembly: 413,366 -> 406,618 -> 370,553 bytes, 66 KB of data.
/// Then built for size with the primitives at opt-level 3 (the
/// `wasm-release` profile, root Cargo.toml): 323,140 bytes. 3% headroom,
/// so that a regression fails the build (the async forms of every sealed
/// open and the async seals then took 331,582 of it, and the budget was
/// kept; the bot runtime's async seals then made it 334,568, and reading
/// an edited message and a claimed invocation as the fields they use
/// brought it to 325,354, with the budget 3% over that). Then, from
/// twiggy's dominator tree (what only one export keeps): `checkSendRules`
/// and `withMachineKey` moved to the second module, whose request decoder
/// they read with (297,223, then 288,227), and `Slot` read through one
/// flat struct instead of serde's buffering of an internally tagged enum:
/// 279,751. Then a bot runtime's calls left it for a module of their own
/// (the same crate with the `runtime` feature, `BOT_BUDGET`): 242,965,
/// with the budget 3% over that (243,717 once a slot is read from an
/// object only). Then a decision card's plaintext was read by the core's
/// own canonical codec (`streamseal-sealed/src/card_json.rs`) instead of
/// serde_json, whose parser this module carried for that one type:
/// 222,010, with the budget 3% over that. Then serde-wasm-bindgen's
/// error messages were written without core's float formatting, which
/// only `Unexpected`'s `Display` reached (vendor/serde-wasm-bindgen,
/// PATCHED.md): 212,457, with the budget 3% over that (212,702 after a
/// change to `streamseal-wire`'s request decoder, which this module does
/// not call). Then a key wrap opened from DH results (RFC 9180's
/// `ExtractAndExpand` in `streamseal-crypto/src/dhkem.rs`, hpke's own
/// `AuthDecap` gone from the module): 211,142; then the async key-wrap
/// opens, whose X25519 runs on the platform (four `hazmat*Dh*` exports and
/// a map of the results): 216,356, under the same budget; then the results
/// with senders kept with each `IdentityKey` (`hazmat::SenderDh`, a list
/// and an `Rc` per key): 217,592; 217,850 once `DH(skR, pkS)` was never
/// taken from the platform; 217,967 with the async key-wrap opens reading
/// their arguments once (`PendingUnwrap`), 217,816 once it kept its
/// requests unpacked (no packed list read back); 216,023 with
/// serde-wasm-bindgen reading sequences and maps from arrays only (one
/// `visit_seq` and `visit_map` per type: `vendor/serde-wasm-bindgen/PATCHED.md`);
/// 216,442 with its depth limit (an iterable's items bounded as they are
/// read), 216,736 with its reads of JS in a `catch`; 207,905 once built as
/// a `cdylib` alone, without LTO, with the budget 3% over that (187,283
/// with LTO, not taken: the unlock lost its SIMD loops); 188,475 linked
/// from `streamseal-wasm-link` with LTO at `opt-level = 3`
/// (`Module::link_opt_level`: the unlock as fast as before), with the
/// budget 3% over that. Then the keyring and the trust store on sorted
/// vectors (`litemap`) instead of B-trees: 181,758; serde-wasm-bindgen
/// naming a string in the wrong place by its kind, without quoting it (it
/// was the module's only `Debug` of a string, which kept `escape_debug`
/// and its Unicode tables; PATCHED.md, section 5): 175,243; Talc as the
/// allocator instead of dlmalloc (`streamseal-wasm-link`): 173,191; the
/// trust store back on B-trees (a sorted vector is quadratic in the order
/// a server picks: `streamseal-crypto/src/trust.rs`): 177,922; the two
/// `prepareOpen*Decoded` exports merged into `prepareOpen` and
/// `prepareOpenMessage`: 177,432; the trust store on one B-tree over
/// (subject, key id) instead of one per subject: 175,326, with the budget
/// 3% over that. Then built with its own profile, `wasm-browser` (root
/// `Cargo.toml`), with the curve and AES-GCM at `"s"`: in a browser the
/// async opens run AES-GCM and Ed25519 on the platform, so what those
/// primitives' `opt-level = 3` bought there was the synchronous calls'
/// speed and each seal's signature (1.25x-1.33x as long in WebAssembly
/// now; Node and bot runtimes load the bot module, still at 3): 161,853,
/// with the budget 3% over that (162,469 with B-trees instead of the hash
/// maps a server's input could flood: `hazmat::PlatformDh`). Then built
/// with the standard library from source and panics that trap at once
/// (`STD_FROM_SOURCE`): 154,239. Then without the tools' exports (the
/// `tools` feature of `streamseal-wasm`: the golden vectors' fixed
/// randomness, raw XEdDSA, the AAD codec, the passphrase bundle without its
/// record; the Node entry and `streamseal/bot` have them): 149,467, and the
/// budget is the issue's own 150 KB, which the build now holds. The history
/// of the one-module budget (150 KB asked, 700, 800, 830, 834 KB) and of
/// this one (506, 422, 382, 335, 288, 250, 219, 194.5, 180.5, 166.7 KB) is
/// in git.
const FIRST_BUDGET: u64 = 150_000;

/// The budget of the second module (`streamseal_api_bg.wasm`:
/// `streamseal/api`, the 58 endpoints' requests and responses, paging, the
/// realtime events), fetched on first use: 441,315 bytes at the split;
/// 420,066 built for size (449,687 in the build before); 420,360 with
/// `checkSendRules` and `withMachineKey`, moved here from the first
/// module (they read a request body as `buildRequest` does); 379,917 once
/// the request decoder tracked wire paths itself instead of through
/// `serde_path_to_error`, whose wrappers of every request type's
/// deserializer were 22% of this module's code; 344,208 once it read
/// scalars and enums itself (serde_json's `Value::deserialize_any` and
/// `deserialize_enum` brought serde_json's map and sequence readers along
/// again for every request type); 341,091 with a failure recorded by one
/// function instead of in each type's decoder; 334,424 once
/// `nextMessageQuery` read only a message list's paging fields
/// (`paging::MessagePage`: no serde-wasm-bindgen reader of a whole
/// `MessageList`, its messages, attachments and envelopes); 329,278 once
/// `parseResponse` and `noResponseRetryFacts` read only the request's
/// facts (`RequestFacts`: no reader of a request body); 313,652 once the
/// request decoder read structs, maps and lists by their own arm instead of
/// through `deserialize_any` (whose other arms brought each visitor's other
/// `visit_*` methods, a struct's array form among them), with the budget 3%
/// over that (it was 355,000 until `MessagePage`); 311,714 with
/// serde-wasm-bindgen reading sequences and maps from arrays only; 308,830
/// with the `{"data"}` envelope's loop over its other keys compiled once,
/// not per response type; 313,256 with the request decoder giving a map or
/// a sequence's scalar to the visitor again (`serde_json::Map` reads `null`
/// as empty) and serde-wasm-bindgen's depth limit; 256,209 once link-time
/// optimised for the first time (`build`: the crate is also an `rlib`, and
/// cargo had applied no `lto` to it), with the budget 3% over that;
/// 256,282 once linked from `streamseal-wasm-link` at `"z"`; 251,669 with
/// every result read from one value (`streamseal_wire::parse_value`, which
/// refuses a key sent twice) instead of some from the text and some from a
/// value, with the budget 3% over that; 204,087 once `parseResponse`
/// checked each success body by its result type's shape table
/// (`streamseal_wire::shape`, `parse_response_json`) instead of reading it
/// into the type and writing that back: no derived reader of the 40 result
/// types here (45.6 KB gzip). 201,121 with Talc as the allocator, with the
/// budget 3% over that.
const API_BUDGET: u64 = 207_000;

/// The budget of the first module with a bot runtime's calls
/// (`streamseal_bot_bg.wasm`, the `runtime` feature: the Node entry and
/// `streamseal/bot`), which a bot loads instead of the first: its size
/// matters less (a server process, not a page), and the budget is there so
/// that a regression is seen. 3% over its size when it was split off
/// (279,762: what the first module was before); then 3% over 255,149,
/// once a card's plaintext was written and read without serde_json; then
/// about 3% over 246,758, without core's float formatting and with the
/// request decoder's own path tracking; 248,504 with serde-wasm-bindgen
/// reading sequences and maps from arrays only, 249,690 with its depth
/// limit; 238,974 built as a `cdylib` alone, without LTO, with the budget
/// 3% over that (217,502 with LTO linked at `"z"`, not taken); 218,403
/// linked from `streamseal-wasm-link` with LTO at `opt-level = 3`, with the
/// budget 3% over that; 206,128 with the first module's changes of
/// 2026-11-30 (`FIRST_BUDGET`), with the budget 3% over that.
const BOT_BUDGET: u64 = 212_500;

/// What a browser front end downloads, the first module and the second
/// (issue 20 asks for 400 KB for both): 932,527 bytes at the
/// split, 100 KB more than the one module was, as each module carries its
/// own copy of what both use (serde, the standard library, the error
/// glue, the core's error table). 851,421 bytes once the NFC tables left
/// the first module; 820,240 with one curve and no tables in the first;
/// 743,206 built for size; 700,111 once the first module lost the two
/// request checks and serde's buffering of `Slot`; 663,325 without a bot
/// runtime's calls; 643,285 once a card's plaintext was read without
/// serde_json; 633,911 without core's float formatting in the first;
/// 592,619 without `serde_path_to_error` in the second; 556,910 with the
/// request decoder reading scalars and enums itself (553,793 with one
/// failure recorder); 552,240 with the second module's `nextMessageQuery`
/// reading only the paging fields; 547,094 with `parseResponse` reading
/// only the request's facts; 531,468 with the request decoder's own arms
/// for structs, maps and lists (the budget was 574,000 until
/// `MessagePage`); 527,737 with serde-wasm-bindgen reading sequences and
/// maps from arrays only; 524,853 with the envelope's loop compiled once;
/// 529,698 with the decoder's scalar arms and serde-wasm-bindgen's depth
/// limit; 464,113 once each was built as a `cdylib` alone and the second
/// link-time optimised; 444,757 once the first was too, linked at
/// `opt-level = 3`; 440,143 with the second reading every result from one
/// value; 392,470 once the second checked success bodies by shape tables
/// (`API_BUDGET`). The budget is now the issue's: 400,000. 376,447 after
/// the first module's changes of 2026-11-30 (`FIRST_BUDGET`) and Talc;
/// 350,664 (a fresh clone) once the first was built with std from source
/// and without the tools' exports.
const TOTAL_BUDGET: u64 = 400_000;

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
    // The standard library's source, which the first module is built with
    // (`STD_FROM_SOURCE`).
    let components = output_of("rustup", &["component", "list", "--installed"]).unwrap_or_default();
    if !components.lines().any(|l| l.trim() == "rust-src") {
        run("rustup", &["component", "add", "rust-src"])?;
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

/// One WASM module of the package.
struct Module {
    /// The features of `streamseal-wasm-link` that make it this module.
    features: &'static str,
    /// The name wasm-bindgen writes it under (`js/dist/{name}.js`, `{name}_bg.wasm`).
    name: &'static str,
    /// Whether it is the first module's crate (its glue gets the checks of
    /// class and byte arguments, `patch_assert_class`, `patch_input_checks`).
    sealed: bool,
    /// Its budget, bytes gzip -9.
    budget: u64,
    /// The cargo profile it is built with (root `Cargo.toml`): `wasm-release`,
    /// or for the browser's first module `wasm-browser`, which builds the
    /// curve and AES-GCM for size (the browser's async opens run Ed25519,
    /// X25519 and AES-GCM on the platform; figures at `FIRST_BUDGET`).
    profile: &'static str,
    /// The `opt-level` of the link crate, which is the level fat LTO
    /// optimises the linked program at (bindings/wasm-link), as a TOML
    /// value (`3`, `"z"`). With the primitives, 3: at `"z"` their loops
    /// lost the vectorising and unrolling their own `opt-level = 3` gave
    /// them, while the serde code, instantiated in the binding crates at
    /// `"z"`, stays small at 3 under its own `minsize`. Measured on
    /// 2026-11-29 (Node, one process, the two builds side by side, 21
    /// alternating rounds, medians): linked at `"z"`, the first module was
    /// 187,283 B gzip but a 64 MiB Argon2id unlock took 1.14x-1.20x as long
    /// as without LTO and an XEdDSA sign 1.05x; linked at 3, 188,475 B, and
    /// against the build without LTO (207,905 B) the unlock 0.88x-1.10x in
    /// seven runs, median 1.00x (this shared machine's noise), seal 1 KiB
    /// 0.98x-1.00x, open 1 KiB 0.96x-1.00x, open 64 KiB 1.00x; linked at 2,
    /// 190,464 B. The endpoint module has no primitives: `"z"` (256,282 B;
    /// at 3, 256,871; at `"s"`, the same bytes as at `"z"`).
    link_opt_level: &'static str,
    /// Whether its standard library is compiled from source with it
    /// (`STD_FROM_SOURCE`): the browser's first module, whose budget is the
    /// one that binds.
    std_from_source: bool,
}

/// What the browser's first module is built with beyond its profile: the
/// standard library compiled from source with the program
/// (`-Zbuild-std`, from the toolchain's `rust-src` component, with std's
/// `optimize_for_size` feature), and panics that trap at once
/// (`-Cpanic=immediate-abort`) instead of running the panic hook first.
///
/// Why. In `wasm32-unknown-unknown` a panic already ends in a trap that
/// JS sees as a `RuntimeError` ("unreachable"): the hook formats the
/// message and its location and writes them to a standard error that
/// goes nowhere. Built this way the trap is the same and the formatting
/// machinery, the messages and the source paths leave the module, and
/// std's code is optimised with ours under one link-time optimisation.
/// Measured on 2026-11-30 (builds beside each other, as `cargo xtask
/// wasm` builds, gzip -9 after wasm-opt): 162,469 -> 159,720 with std from
/// source and `optimize_for_size`, -> 154,194 with immediate abort as
/// well. Speed, in Node, beside the build without it (one process, 15
/// alternating rounds, medians, two runs with the order swapped): open
/// 1 KiB 1.013x and 1.002x, open 64 KiB 0.981x and 0.990x, seal 1 KiB
/// 0.982x and 0.993x, a 1000 x 512 B history 1.026x and 1.010x, a 64 MiB
/// unlock 1.004x and 0.989x: the same.
///
/// How. These are unstable flags of the same stable compiler every other
/// artifact is built with (1.95.0 when this was measured), enabled for this
/// one `cargo build` by `RUSTC_BOOTSTRAP=1` (as the Linux kernel and
/// Firefox build with stable compilers), not a nightly compiler: a nightly
/// build of the same program was 1.4 KB smaller, but it would ship code
/// from a compiler that changes every day. If a later toolchain renames a
/// flag, this build fails with a message that says so; it does not fall
/// back to a larger module.
///
/// What else `RUSTC_BOOTSTRAP=1` turns on: build scripts that probe the
/// compiler for unstable features find them. In this build thiserror's
/// emits `error_generic_member_access` (the `provide` of a `#[backtrace]`
/// field, which no error here has, and which nothing calls) and
/// proc-macro2's `proc_macro_span` (the spans macros see while compiling);
/// the bot and endpoint modules are built without either. A cargo
/// configuration of the builder's own with an `[unstable]` table would
/// apply to this build too.
///
/// std built here names its sources by this machine's sysroot
/// (`~/.rustup/toolchains/.../lib/rustlib/src/rust/...`), where the
/// prebuilt std says `/rustc/<commit>/`: a std built from source without
/// immediate abort had one such path in its data. Those paths are remapped
/// to `/rust-src` (`std_source_remap`), and `build` fails a module that
/// names the source directory still.
const STD_FROM_SOURCE: [&str; 2] = [
    "-Zbuild-std=std,panic_abort",
    "-Zbuild-std-features=optimize_for_size",
];

/// The flags added to the rustflags of a module built with
/// `STD_FROM_SOURCE`.
const IMMEDIATE_ABORT: [&str; 2] = ["-Zunstable-options", "-Cpanic=immediate-abort"];

/// The crate every module is linked as (bindings/wasm-link).
const LINK_CRATE: &str = "streamseal-wasm-link";

/// The package's modules. The first is what a front end downloads before
/// it can open a message (the browser entries); the second is the same
/// crate with a bot runtime's calls (the `runtime` feature: the Node entry
/// and `streamseal/bot`); the third (`streamseal/api`) is fetched on first
/// use. A browser front end downloads the first and the third.
const MODULES: [Module; 3] = [
    Module {
        features: "first",
        name: "streamseal_wasm",
        sealed: true,
        budget: FIRST_BUDGET,
        profile: "wasm-browser",
        link_opt_level: "3",
        std_from_source: true,
    },
    Module {
        features: "runtime",
        name: "streamseal_bot",
        sealed: true,
        budget: BOT_BUDGET,
        profile: "wasm-release",
        link_opt_level: "3",
        std_from_source: false,
    },
    Module {
        features: "api",
        name: "streamseal_api",
        sealed: false,
        budget: API_BUDGET,
        profile: "wasm-release",
        link_opt_level: "\"z\"",
        std_from_source: false,
    },
];

/// Builds the shipped package into `js/dist` (each module's profile,
/// wasm-opt): every module, each checked against its size budget, and what
/// a browser front end downloads (the first and the endpoint module)
/// against the package's. One `cargo build` of the link crate per module, in
/// turn: cargo writes each to one path.
pub fn build() -> Result {
    let started = Instant::now();
    let out = js_dir().join("dist");
    let target_dir = wasm_target_dir();
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }
    let mut front_end = 0;
    let home = cargo_home()?;
    for module in MODULES {
        // One link crate, built with the module's feature, at the module's
        // link level (`Module::link_opt_level`). Until 2026-11-29 (issue 20)
        // the modules were linked from the binding crates, `cdylib` and
        // `rlib`, and cargo applied no `lto` to them.
        let profile = module.profile;
        let link_opt_level = format!(
            "profile.{profile}.package.{LINK_CRATE}.opt-level={}",
            module.link_opt_level
        );
        let std_source = if module.std_from_source {
            Some(std_source_dir()?)
        } else {
            None
        };
        let std_remap = match &std_source {
            Some(dir) => std_source_remap(dir)?,
            None => String::new(),
        };
        let mut extra_flags: Vec<&str> = Vec::new();
        if std_source.is_some() {
            extra_flags.extend(IMMEDIATE_ABORT);
            extra_flags.push(&std_remap);
        }
        let rustflags = rustflags_config(&home, &extra_flags)?;
        let mut args = vec![
            "--config",
            link_opt_level.as_str(),
            "--config",
            rustflags.as_str(),
            "build",
            "--locked",
            "--target-dir",
            path_str(&target_dir)?,
            "--target",
            TARGET,
            "--profile",
            profile,
            "-p",
            LINK_CRATE,
            "--lib",
            "--features",
            module.features,
        ];
        if module.std_from_source {
            args.extend(STD_FROM_SOURCE);
            run_in(&root(), "cargo", &args, &[("RUSTC_BOOTSTRAP", "1")]).map_err(|e| {
                format!(
                    "{e}\n(the first module is built with std from source and immediate-abort \
                     panics, unstable flags of the stable compiler: `STD_FROM_SOURCE` in \
                     crates/xtask/src/wasm.rs; check that this toolchain, {}, still accepts \
                     them)",
                    output_of("rustc", &["--version"])
                        .unwrap_or_default()
                        .trim()
                )
            })?;
        } else {
            run("cargo", &args)?;
        }
        let wasm = target_dir.join(format!(
            "{TARGET}/{profile}/{}.wasm",
            LINK_CRATE.replace('-', "_")
        ));
        eprintln!(
            "xtask: {LINK_CRATE} --features {} ({}):",
            module.features, module.name
        );
        let function_names = crate::wasm_size::breakdown(&wasm)?;
        crate::wasm_size::check_no_seeded_hashing(module.name, &function_names)?;
        run(
            path_str(&wasm_bindgen_bin())?,
            &[
                "--target",
                "web",
                "--out-dir",
                path_str(&out)?,
                "--out-name",
                module.name,
                path_str(&wasm)?,
            ],
        )?;
        let glue = out.join(format!("{}.js", module.name));
        if module.sealed {
            patch_assert_class(&glue)?;
        }
        patch_input_checks(&glue, module.sealed)?;
        let optimised = out.join(format!("{}_bg.wasm", module.name));
        optimise(&optimised)?;
        check_no_build_paths(&optimised, &home, "CARGO_HOME")?;
        if let Some(dir) = &std_source {
            // std's own source paths, from this machine's toolchain (the
            // prebuilt std names `/rustc/<commit>/` instead).
            check_no_build_paths(&optimised, dir, "std source (rust-src)")?;
        }
        let (raw, gzip) = sizes(&optimised)?;
        if module.name != "streamseal_bot" {
            front_end += gzip;
        }
        let name = module.name;
        let budget = module.budget;
        eprintln!("xtask: {name}_bg.wasm: {raw} bytes raw, {gzip} bytes gzip -9 (budget {budget})");
        if gzip > budget {
            return Err(format!(
                "{name}_bg.wasm is {gzip} bytes gzip -9, over its budget of {budget}"
            ));
        }
    }
    for module in MODULES {
        check_snippet_imports(&out, module.name)?;
    }
    eprintln!(
        "xtask: a browser front end's two modules (streamseal_wasm, streamseal_api): {front_end} bytes gzip -9 (budget {TOTAL_BUDGET})"
    );
    if front_end > TOTAL_BUDGET {
        return Err(format!(
            "a front end's two modules are {front_end} bytes gzip -9, over the package's budget of {TOTAL_BUDGET}"
        ));
    }
    eprintln!(
        "xtask: package built in {} ({:.0}s)",
        out.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Where cargo keeps the registry's sources on this machine: `CARGO_HOME`,
/// else `~/.cargo`.
fn cargo_home() -> Result<PathBuf> {
    if let Some(home) = std::env::var_os("CARGO_HOME").filter(|h| !h.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".cargo"))
        .ok_or_else(|| "neither CARGO_HOME nor HOME is set".to_owned())
}

/// The `--config` that writes the dependencies' source paths as
/// `/cargo/...` instead of this machine's `CARGO_HOME` (`/root/.cargo/...`,
/// or a user's home directory). Those paths are in the shipped modules'
/// data, as the locations of the panics the dependencies can raise: with
/// them, the bytes of a module depended on where it was built, and named
/// the builder's home. Only the package's builds (`wasm-release`,
/// `wasm-browser`) take it, so the clippy and test builds of `target/wasm`
/// (another profile) keep their cache. cargo joins this array to
/// `.cargo/config.toml`'s `rustflags`. `extra` are further flags of the
/// module (`IMMEDIATE_ABORT`).
fn rustflags_config(home: &Path, extra: &[&str]) -> Result<String> {
    let home = path_str(home)?;
    if home.contains(['"', '\\']) {
        return Err(format!(
            "CARGO_HOME {home} cannot be written in a --config string"
        ));
    }
    let mut flags = format!("\"--remap-path-prefix={home}=/cargo\"");
    for flag in extra {
        flags.push_str(&format!(",\"{flag}\""));
    }
    Ok(format!("target.{TARGET}.rustflags=[{flags}]"))
}

/// The source of the standard library that `-Zbuild-std` compiles: the
/// `rust-src` component of the toolchain cargo runs (`$RUSTC`, else the
/// `rustc` rustup resolves in the repository).
fn std_source_dir() -> Result<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let sysroot = output_in(&root(), &rustc, &["--print", "sysroot"])
        .map_err(|e| format!("cannot ask {rustc} for its sysroot: {e}"))?;
    Ok(Path::new(sysroot.trim()).join("lib/rustlib/src/rust"))
}

/// The rustflag that writes std's source paths (`std_source_dir`) as
/// `/rust-src/...`, as `rustflags_config`'s remap does for the registry's.
fn std_source_remap(dir: &Path) -> Result<String> {
    let dir = path_str(dir)?;
    if dir.contains(['"', '\\']) {
        return Err(format!(
            "the std source path {dir} cannot be written in a --config string"
        ));
    }
    Ok(format!("--remap-path-prefix={dir}=/rust-src"))
}

/// Fails if `module` names `home` (a source path the remap missed).
fn check_no_build_paths(module: &Path, home: &Path, what: &str) -> Result {
    let bytes = fs::read(module).map_err(|e| format!("cannot read {}: {e}", module.display()))?;
    let home = path_str(home)?.as_bytes();
    if bytes.windows(home.len()).any(|w| w == home) {
        return Err(format!(
            "{} names this machine's {what} ({}): a source path was not remapped",
            module.display(),
            String::from_utf8_lossy(home)
        ));
    }
    Ok(())
}

/// Fails unless every name a module's glue imports from `snippets/` is
/// exported by the file it names. The modules share one `snippets/`
/// directory, and wasm-bindgen numbers a crate's snippets in link order,
/// which differs between builds (with and without LTO, it did): a later
/// module's `inline0.js` could replace the one an earlier module's glue
/// imports, which only a page that loads it would see.
fn check_snippet_imports(out: &Path, name: &str) -> Result {
    let glue_path = out.join(format!("{name}.js"));
    let glue = fs::read_to_string(&glue_path).map_err(|e| format!("cannot read the glue: {e}"))?;
    for line in glue.lines().filter(|l| l.starts_with("import {")) {
        let (Some(names), Some(path)) = (
            line.split_once('{')
                .and_then(|(_, r)| r.split_once('}'))
                .map(|(n, _)| n),
            line.split_once("from '")
                .and_then(|(_, r)| r.split_once('\''))
                .map(|(p, _)| p),
        ) else {
            return Err(format!("{name}.js: an import line read no further: {line}"));
        };
        let snippet = fs::read_to_string(out.join(path))
            .map_err(|e| format!("{name}.js imports {path}, which cannot be read: {e}"))?;
        for import in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !snippet.contains(&format!("export function {import}(")) {
                return Err(format!(
                    "{name}.js imports `{import}` from {path}, which does not export it"
                ));
            }
        }
    }
    Ok(())
}

/// wasm-opt -Oz in place, with the features the modules use.
fn optimise(module: &Path) -> Result {
    let wasm_opt = js_dir().join("node_modules/.bin/wasm-opt");
    let module_str = path_str(module)?;
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
            // The modules use simd128 (.cargo/config.toml).
            "--enable-simd",
            "--strip-debug",
            "--strip-producers",
            module_str,
            "-o",
            module_str,
        ],
    )
}

/// The glue's argument check of exported classes throws a bare `Error`,
/// and lets a freed object through (wasm-bindgen then throws "null pointer
/// passed to rust"). Both become a `StreamsealError` (`INVALID_FIELD`).
/// Fails the build if the glue no longer has the expected function.
fn patch_assert_class(glue_path: &Path) -> Result {
    let glue = fs::read_to_string(glue_path).map_err(|e| format!("cannot read the glue: {e}"))?;
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
    if glue.matches(original).count() != 1
        || !glue.contains("import { makeStreamsealError, nestedDeeperThan }")
    {
        return Err("the wasm-bindgen glue changed: update patch_assert_class".to_owned());
    }
    fs::write(glue_path, glue.replace(original, patched))
        .map_err(|e| format!("cannot write the glue: {e}"))
}

/// The glue copies a `string` or a byte argument into WASM memory without
/// looking at its type: a number where a string is expected traps
/// WebAssembly ("memory access out of bounds"), and a string or a number
/// where bytes are expected seals zeros or nothing, silently. Each copy
/// now takes only what its declared type says (a string; a `Uint8Array`,
/// as the typed arrays' own tag getter tells, which no object can fake, or
/// an array of integers 0 to 255, which the generated types allow) and
/// refuses anything else with a `StreamsealError` (`INVALID_FIELD`). Fails
/// the build if the glue no longer has the expected functions: both in the
/// first module (`bytes_expected`), the string copy alone in the second.
fn patch_input_checks(glue_path: &Path, bytes_expected: bool) -> Result {
    let glue = fs::read_to_string(glue_path).map_err(|e| format!("cannot read the glue: {e}"))?;
    let string = "function passStringToWasm0(arg, malloc, realloc) {\n";
    let string_checked = "function passStringToWasm0(arg, malloc, realloc) {
    if (typeof arg !== \"string\") {
        throw makeStreamsealError(\"INVALID_FIELD\", `field is invalid: expected a string, not ${arg === null ? \"null\" : typeof arg}`, undefined);
    }\n";
    let bytes = "function passArray8ToWasm0(arg, malloc) {\n";
    let bytes_checked = "const TYPED_ARRAY_TAG = Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Uint8Array.prototype), Symbol.toStringTag).get;

function passArray8ToWasm0(arg, malloc) {
    if (TYPED_ARRAY_TAG.call(arg) !== \"Uint8Array\") {
        if (!Array.isArray(arg) || !arg.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
            throw makeStreamsealError(\"INVALID_FIELD\", `field is invalid: expected a Uint8Array, not ${arg === null ? \"null\" : Array.isArray(arg) ? \"an array of other than bytes\" : typeof arg}`, undefined);
        }
        arg = Uint8Array.from(arg);
    }\n";
    let byte_copies = glue.matches(bytes).count();
    if glue.matches(string).count() != 1
        || byte_copies != usize::from(bytes_expected)
        || !glue.contains("import { makeStreamsealError, nestedDeeperThan }")
    {
        return Err(format!(
            "the wasm-bindgen glue changed: update patch_input_checks ({})",
            glue_path.display()
        ));
    }
    let patched = glue
        .replace(string, string_checked)
        .replace(bytes, bytes_checked);
    fs::write(glue_path, patched).map_err(|e| format!("cannot write the glue: {e}"))
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

    // The bench scripts parse (`cargo xtask bench` runs them, CI does not:
    // a name declared twice in js/bench/bench.js once reached the bench).
    let bench = js.join("bench");
    let mut scripts: Vec<String> = fs::read_dir(&bench)
        .map_err(|e| format!("cannot list js/bench: {e}"))?
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| name.ends_with(".js") || name.ends_with(".mjs"))
        .collect();
    scripts.sort();
    for script in &scripts {
        run_in(&bench, "node", &["--check", script], &[])?;
    }

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
    // `streamseal serve`, which test/serve.test.mjs talks to over HTTP.
    run("cargo", &["build", "--locked", "-p", "streamseal-cli"])?;
    let serve_bin = root().join("target/debug/streamseal");
    // Every suite once per backend of the opens (js/test/load.mjs): the
    // synchronous calls, then the async opens with AES-GCM and Ed25519 in
    // WebAssembly, then in the platform's WebCrypto.
    for backend in ["sync", "wasm", "webcrypto"] {
        eprintln!("xtask: node:test with the opens on the {backend} backend");
        run_in(
            &js,
            "node",
            &node_args,
            &[
                ("STREAMSEAL_BIN", path_str(&serve_bin)?),
                ("STREAMSEAL_JS_BACKEND", backend),
            ],
        )?;
    }

    // wasm-bindgen-test under Node, then headless Chromium.
    let runner = test_runner_bin();
    let runner = path_str(&runner)?;
    let target_dir = wasm_target_dir();
    // Clippy over what compiles only for wasm32 (the binding's engine
    // tests), as the first module and as the bot module (a bot runtime's
    // calls and the tools' exports); the workspace clippy checks everything
    // else natively.
    for features in ["", "streamseal-wasm/runtime,streamseal-wasm/tools"] {
        let mut args = vec![
            "clippy",
            "--locked",
            "--target-dir",
            path_str(&target_dir)?,
            "-p",
            "streamseal-wasm",
            "-p",
            "streamseal-wasm-api",
            "-p",
            "streamseal-wasm-glue",
            "-p",
            "streamseal-wasm-link",
            "--target",
            TARGET,
            "--all-targets",
        ];
        if !features.is_empty() {
            args.extend(["--features", features]);
        }
        args.extend(["--", "-D", "warnings"]);
        run("cargo", &args)?;
    }
    // The engine tests, a bot runtime's among them.
    let test_args = [
        "test",
        "--locked",
        "--target-dir",
        path_str(&target_dir)?,
        "-p",
        "streamseal-wasm",
        "--features",
        "runtime",
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

#[cfg(test)]
mod tests {
    use super::{IMMEDIATE_ABORT, check_no_build_paths, check_snippet_imports, rustflags_config};
    use std::fs;
    use std::path::Path;

    #[test]
    fn a_module_naming_the_build_machines_cargo_home_fails_the_build() {
        let home = Path::new("/home/alice/.cargo");
        assert_eq!(
            rustflags_config(home, &[]).expect("a plain path"),
            r#"target.wasm32-unknown-unknown.rustflags=["--remap-path-prefix=/home/alice/.cargo=/cargo"]"#
        );
        assert_eq!(
            rustflags_config(home, &IMMEDIATE_ABORT).expect("a plain path"),
            r#"target.wasm32-unknown-unknown.rustflags=["--remap-path-prefix=/home/alice/.cargo=/cargo","-Zunstable-options","-Cpanic=immediate-abort"]"#
        );
        assert!(rustflags_config(Path::new("/home/a\"b"), &[]).is_err());
        let module = std::env::temp_dir().join(format!("xtask-paths-{}.wasm", std::process::id()));
        fs::write(&module, b"\0asm/home/alice/.cargo/registry/src/x/lib.rs").expect("a module");
        let named = check_no_build_paths(&module, home, "CARGO_HOME");
        fs::write(&module, b"\0asm/cargo/registry/src/x/lib.rs").expect("a module");
        let remapped = check_no_build_paths(&module, home, "CARGO_HOME");
        fs::remove_file(&module).expect("cleaned up");
        assert!(named.is_err_and(|e| e.contains("/home/alice/.cargo")));
        assert!(remapped.is_ok());
    }

    #[test]
    fn a_glue_importing_what_its_snippet_lacks_fails_the_build() {
        let out = std::env::temp_dir().join(format!("xtask-snippets-{}", std::process::id()));
        let dir = out.join("snippets/glue-0");
        fs::create_dir_all(&dir).expect("a temporary directory");
        fs::write(
            out.join("m.js"),
            "import { makeError, nestedDeeperThan } from './snippets/glue-0/inline0.js';\nexport function f() {}\n",
        )
        .expect("the glue");
        let snippet = dir.join("inline0.js");
        fs::write(&snippet, "export function nestedDeeperThan(v) {}\n").expect("the snippet");
        let refused = check_snippet_imports(&out, "m");
        fs::write(
            &snippet,
            "export function nestedDeeperThan(v) {}\nexport function makeError(c) {}\n",
        )
        .expect("the snippet");
        let accepted = check_snippet_imports(&out, "m");
        fs::remove_file(&snippet).expect("the snippet removed");
        let missing = check_snippet_imports(&out, "m");
        fs::remove_dir_all(&out).expect("cleaned up");
        assert!(refused.is_err_and(|e| e.contains("`makeError`")));
        assert!(accepted.is_ok());
        assert!(missing.is_err_and(|e| e.contains("cannot be read")));
    }
}
