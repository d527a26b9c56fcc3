//! `cargo xtask bench`: every benchmark of issue 8 in one run, and
//! `BENCHMARKS.md` at the repository root with the medians, the ratios and
//! each performance budget's verdict.
//!
//! 1. Native criterion benches (`cargo bench -p streamseal --bench crypto`
//!    and `--bench flows`); medians are read from criterion's
//!    `target/criterion/**/new/estimates.json`.
//! 2. Native Argon2id against the reference C implementation (argon2-cffi,
//!    installed into `target/bench-venv`), interleaved call by call
//!    (`--bench argon2_vs_c`).
//! 3. The npm package (`cargo xtask wasm` builds it) against WebCrypto,
//!    `@hpke/core`, hash-wasm and openpgpjs argon2id in Node and in headless
//!    Chromium (`js/bench`, `npm ci` there), with the sender's XEdDSA sign
//!    and verify alone beside the 1 KiB seal and open.
//!
//! Installs what is missing first (the venv with argon2-cffi, `npm ci`,
//! chromium through apt-get). Not part of `cargo xtask test`: benchmarks
//! measure, they do not pass or fail the build. `--quick` shortens the JS
//! runs (for trying the harness, not for figures).

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::cmd::{Result, path_str, root, run, run_in, works};

const CHROMIUM: &str = "/usr/bin/chromium";

fn venv() -> PathBuf {
    root().join("target/bench-venv")
}

fn venv_python() -> PathBuf {
    venv().join("bin/python")
}

fn bench_js() -> PathBuf {
    root().join("js/bench")
}

/// Runs a command in `dir`, echoing and timing it, and returns its stdout
/// (printed too; stderr passes through); fails on a non-zero exit.
fn capture(dir: &Path, program: &str, args: &[&str], envs: &[(&str, &str)]) -> Result<String> {
    eprintln!(
        "+ (in {}) {program} {}",
        dir.strip_prefix(root()).unwrap_or(dir).display(),
        args.join(" ")
    );
    let started = Instant::now();
    let stdout = crate::cmd::output_env_in(dir, program, args, envs);
    eprintln!("  ({program} took {:.1}s)", started.elapsed().as_secs_f64());
    if let Ok(text) = &stdout {
        print!("{text}");
    }
    stdout
}

fn first_line(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .output()
        .ok()
        .map(|o| {
            let text = if o.stdout.is_empty() {
                o.stderr
            } else {
                o.stdout
            };
            String::from_utf8_lossy(&text)
                .lines()
                .next()
                .unwrap_or("")
                .trim()
                .to_owned()
        })
        .unwrap_or_default()
}

/// The venv with argon2-cffi, `npm ci` in js/bench, and chromium.
fn setup() -> Result {
    let python = venv_python();
    if !works(path_str(&python)?, &["-c", "import argon2.low_level"]) {
        run("python3", &["-m", "venv", path_str(&venv())?])?;
        run(
            path_str(&python)?,
            &["-m", "pip", "install", "--quiet", "argon2-cffi"],
        )?;
    }
    let js = bench_js();
    let stamp = js.join("node_modules/.package-lock.json");
    let stale = match (modified(&stamp), modified(&js.join("package-lock.json"))) {
        (Some(installed), Some(lock)) => installed < lock,
        _ => true,
    };
    if stale {
        run_in(&js, "npm", &["ci", "--no-audit", "--no-fund"], &[])?;
    }
    if !Path::new(CHROMIUM).exists() {
        crate::cmd::apt_install(&["chromium"], true)?;
    }
    Ok(())
}

fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The median (ns) criterion estimated for `group/id`.
fn criterion_median(group: &str, id: &str) -> Result<f64> {
    let mut dir = criterion_root().join(criterion_dir(group));
    for part in id.split('/') {
        dir = dir.join(criterion_dir(part));
    }
    let dir = dir.join("new/estimates.json");
    let text = fs::read_to_string(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    // `{"mean":{...},"median":{"confidence_interval":{...},"point_estimate":N,...`
    let median = text
        .split("\"median\"")
        .nth(1)
        .and_then(|rest| rest.split("\"point_estimate\":").nth(1))
        .and_then(|rest| {
            rest.split([',', '}'])
                .next()
                .and_then(|n| n.trim().parse::<f64>().ok())
        })
        .ok_or_else(|| format!("{}: no median", dir.display()))?;
    Ok(median)
}

/// criterion's directory name for a group or id (it replaces the
/// characters that are not safe in file names with `_`).
fn criterion_dir(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '?' | '"' | '/' | '\\' | '*' | '<' | '>' | ':' | '|' | '^' => '_',
            c => c,
        })
        .collect()
}

/// Where criterion writes: `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.
fn criterion_root() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root().join(t) })
        .unwrap_or_else(|| root().join("target"))
        .join("criterion")
}

fn fmt_ns(ns: f64) -> String {
    if ns >= 1e8 {
        format!("{:.0} ms", ns / 1e6)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.0} ns")
    }
}

fn fmt_bytes_per_s(bytes: f64, ns: f64) -> String {
    let per_s = bytes / (ns / 1e9);
    if per_s >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.2} GiB/s", per_s / (1024.0 * 1024.0 * 1024.0))
    } else {
        format!("{:.0} MiB/s", per_s / (1024.0 * 1024.0))
    }
}

/// One budget's line of the report.
struct Budget {
    name: String,
    limit: String,
    measured: Option<f64>,
    /// For the JS opens: the same ratio for WebCrypto's AES-GCM decrypt
    /// followed by its Ed25519 verify, measured in the same run: what no
    /// signed open through the platform's primitives can beat.
    floor: Option<f64>,
    pass: bool,
}

/// What bounds the 64 KiB open: its parts, each measured alone in this run.
fn parts_report(out: &mut String) -> Result {
    let whole = criterion_median("open", "envelope/64 KiB")?;
    let aes = criterion_median("open", "aes-gcm/64 KiB")?;
    let b64 = criterion_median("open_parts", "base64 decode (streamseal::encoding)")?;
    let b64_before = criterion_median("open_parts", "base64 decode (base64 crate)")?;
    let copy = criterion_median("open_parts", "copy 64 KiB")?;
    let zeroize = (criterion_median("open_parts", "copy + zeroize 64 KiB")? - copy).max(0.0);
    let wipe = (criterion_median("open_parts", "copy + Plaintext drop 64 KiB")? - copy).max(0.0);
    let _ = writeln!(
        out,
        "\n### What a 64 KiB envelope open spends\n\n\
         Each part measured alone in this run (`open_parts` in `benches/crypto.rs`). \
         The wire carries the ciphertext as base64 text, so decoding it is part of \
         every open; `envelope::open` returns a `Plaintext`: the content where it was \
         decrypted (no move), wiped on drop 8 bytes per write (`Zeroizing<Vec<u8>>`, \
         before, wiped byte by byte).\n\n\
         | part | median | share of the envelope open |\n|---|---:|---:|"
    );
    let share = |ns: f64| format!("{:.0}%", 100.0 * ns / whole);
    for (what, ns) in [
        ("the whole envelope open", whole),
        ("AES-256-GCM decrypt (the raw `aes-gcm` row)", aes),
        ("strict base64 decode, `base64-simd` (in use)", b64),
        (
            "strict base64 decode, `base64` crate (before; not in the open)",
            b64_before,
        ),
        (
            "wiping the 64 KiB plaintext on drop, `Plaintext` (in use)",
            wipe,
        ),
        (
            "zeroizing it as `Zeroizing<Vec<u8>>` (before; not in the open)",
            zeroize,
        ),
    ] {
        let _ = writeln!(out, "| {what} | {} | {} |", fmt_ns(ns), share(ns));
    }
    Ok(())
}

/// The sender's signature alone (`signature` in `benches/crypto.rs`), beside
/// the 1 KiB envelope seal that makes it and the open that verifies it.
fn signature_report(out: &mut String) -> Result {
    let sign = criterion_median("signature", "sign 1 KiB")?;
    let sign_first = criterion_median("signature", "sign 1 KiB, first of a key object")?;
    let verify = criterion_median("signature", "verify 1 KiB")?;
    let verify_cold = criterion_median("signature", "verify 1 KiB, a key not kept")?;
    let seal = criterion_median("seal", "envelope/1 KiB")?;
    let open = criterion_median("open", "envelope/1 KiB")?;
    let _ = writeln!(
        out,
        "\n### The sender's signature in each seal and open\n\n\
         Envelope version 2: every seal signs the AAD and the content with the \
         sender's identity key (XEdDSA) and every open verifies it. Each measured \
         alone over a 1 KiB message in this run, beside the 1 KiB envelope \
         operation it is part of. An `IdentityKey` keeps the Ed25519 key pair it \
         signs with from its first signature, and a verify keeps each signer's \
         Ed25519 key (at most 256): the first signature of a key object and a \
         verify under a key not kept (before 2026-11-29, every one) are the \
         rows beside them.\n\n\
         | per message | median | 1 KiB envelope operation | its median | share |\n\
         |---|---:|---|---:|---:|"
    );
    for (what, ns, op, whole) in [
        ("sign (XEdDSA)", sign, "seal", seal),
        (
            "sign (XEdDSA), the first of a key object",
            sign_first,
            "seal",
            seal,
        ),
        ("verify (XEdDSA)", verify, "open", open),
        (
            "verify (XEdDSA), under a key not kept",
            verify_cold,
            "open",
            open,
        ),
    ] {
        let _ = writeln!(
            out,
            "| {what} | {} | {op} | {} | {:.0}% |",
            fmt_ns(ns),
            fmt_ns(whole),
            100.0 * ns / whole
        );
    }
    Ok(())
}

/// The native part of the report, and the native budgets.
fn native_report(out: &mut String, budgets: &mut Vec<Budget>, argon2: &str) -> Result {
    let sizes = [
        ("64 B", 64.0),
        ("1 KiB", 1024.0),
        ("64 KiB", 65536.0),
        ("1 MiB", 1048576.0),
    ];
    let _ = writeln!(
        out,
        "### Envelope seal/open against the raw `aes-gcm` crate\n\n\
         The envelope decodes base64 wire text, parses and re-encodes the AAD, \
         checks the key commitment, decrypts, verifies the sender's signature \
         (a seal signs) and zeroizes the plaintext on drop; `aes-gcm` decrypts \
         bytes (key set up per call in both).\n\n\
         | operation | size | streamseal median | aes-gcm median | streamseal throughput | aes-gcm throughput | throughput ratio (streamseal / aes-gcm) |\n\
         |---|---|---:|---:|---:|---:|---:|"
    );
    let mut open_64k = None;
    for op in ["seal", "open"] {
        for (label, bytes) in sizes {
            let ours = criterion_median(op, &format!("envelope/{label}"))?;
            let raw = criterion_median(op, &format!("aes-gcm/{label}"))?;
            let ratio = raw / ours;
            if op == "open" && label == "64 KiB" {
                open_64k = Some(ratio);
            }
            let _ = writeln!(
                out,
                "| {op} | {label} | {} | {} | {} | {} | {ratio:.3}x |",
                fmt_ns(ours),
                fmt_ns(raw),
                fmt_bytes_per_s(bytes, ours),
                fmt_bytes_per_s(bytes, raw)
            );
        }
    }
    signature_report(out)?;
    parts_report(out)?;
    let _ = writeln!(
        out,
        "\n### Key wraps, bundle unlock and flows\n\n| benchmark | median |\n|---|---:|"
    );
    let rows = [
        ("hpke", "wrap", "HPKE wrap of a stream key"),
        ("hpke", "unwrap", "HPKE unwrap of a stream key"),
        (
            "bundle_unlock",
            "m=19MiB t=2 p=1 (demo)",
            "bundle unlock, Argon2id m=19 MiB t=2 p=1 (the demo's)",
        ),
        (
            "bundle_unlock",
            "m=64MiB t=3 p=1 (default)",
            "bundle unlock, Argon2id m=64 MiB t=3 p=1 (the library default)",
        ),
        (
            "history",
            "open 1000 x 512 B",
            "open a 1000-message history (512 B each, `open_messages`)",
        ),
        (
            "parse",
            "list response, 100 messages",
            "parse a 100-message list response (`parse_response`)",
        ),
        (
            "claim",
            "parse, 200-item sealed history",
            "parse a claim response with a 200-item sealed history",
        ),
        (
            "claim",
            "parse + open, 200-item sealed history",
            "parse it and open the `sealedContext` (wrap, prompt, 200 items)",
        ),
    ];
    for (group, id, what) in rows {
        let ns = criterion_median(group, id)?;
        let _ = writeln!(out, "| {what} | {} |", fmt_ns(ns));
    }
    open_64k.ok_or("no 64 KiB open row")?;
    // Issue 20, item 4: the open against the parts it cannot avoid, each
    // alone in this run: the strict base64 decode of the wire text
    // (base64-simd), AES-256-GCM and, since envelope version 2, the sender's
    // XEdDSA verify over the whole content. The format's own work (AAD,
    // commitment, copies, zeroizing) is held to 5% of their sum.
    let whole = criterion_median("open", "envelope/64 KiB")?;
    let primitives = criterion_median("open_parts", "base64 decode (streamseal::encoding)")?
        + criterion_median("open", "aes-gcm/64 KiB")?
        + criterion_median("signature", "verify 64 KiB")?;
    let ratio = primitives / whole;
    let _ = writeln!(
        out,
        "\nThe 64 KiB open against the three parts it cannot avoid, each alone in this run: \
         strict base64 decode (base64-simd) plus AES-256-GCM decrypt plus XEdDSA verify over \
         64 KiB = {}, the envelope open = {} ({ratio:.3}x).",
        fmt_ns(primitives),
        fmt_ns(whole)
    );
    budgets.push(Budget {
        name: "native envelope open at 64 KiB vs base64-simd decode + raw aes-gcm decrypt + XEdDSA verify of the same bytes".into(),
        limit: ">= 0.95x".into(),
        measured: Some(ratio),
        floor: None,
        pass: ratio >= 0.95,
    });

    let _ = writeln!(
        out,
        "\n### Argon2id: streamseal (RustCrypto `argon2`) against the reference C libargon2\n\n\
         Interleaved call by call in one run (`argon2-cffi`'s `hash_secret_raw`); both \
         derive the same 32 bytes.\n\n\
         | parameters | streamseal median | libargon2 median | ratio (streamseal / C) | rounds |\n\
         |---|---:|---:|---:|---:|"
    );
    let mut default_ratio = None;
    for line in argon2.lines() {
        let Some(fields) = line.strip_prefix("ARGON2 ") else {
            continue;
        };
        let f: Vec<&str> = fields.split('|').collect();
        let [label, rust, c, ratio, rounds] = f.as_slice() else {
            continue;
        };
        let _ = writeln!(
            out,
            "| {label} | {rust} ms | {c} ms | {} | {rounds} |",
            if *ratio == "-" {
                "-".to_owned()
            } else {
                format!("{ratio}x")
            }
        );
        if label.starts_with("m=64MiB t=3") {
            default_ratio = ratio.parse::<f64>().ok();
        }
    }
    budgets.push(Budget {
        name: "native Argon2id m=64MiB t=3 p=1 vs libargon2".into(),
        limit: "<= 1.1x".into(),
        measured: default_ratio,
        floor: None,
        pass: default_ratio.is_some_and(|r| r <= 1.1),
    });
    Ok(())
}

/// Reads the `RESULT_JSON` line of a JS run: its table is already Markdown;
/// the budgets are picked out of the JSON without a JSON parser (std only).
fn js_report(out: &mut String, budgets: &mut Vec<Budget>, stdout: &str, env_hint: &str) {
    let table: Vec<&str> = stdout.lines().filter(|l| l.starts_with('|')).collect();
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT_JSON "))
        .unwrap_or("");
    let env = json_str(json, "env").unwrap_or_else(|| env_hint.to_owned());
    let _ = writeln!(out, "\n### {env}\n");
    for line in &table {
        if line.starts_with("| ") && line.contains(": budget |") {
            let _ = writeln!(out);
        }
        let _ = writeln!(out, "{line}");
    }
    // `"budgets":[{"name":"...","limit":"...","ratio":0.12,"max":0.5,"pass":true},...]`
    if let Some(list) = json.split("\"budgets\":[").nth(1) {
        for item in list.split("},{") {
            let name = json_str(item, "name").unwrap_or_default();
            let limit = json_str(item, "limit").unwrap_or_default();
            let ratio = json_num(item, "ratio");
            let floor = json_num(item, "floor");
            let pass = item.contains("\"pass\":true");
            budgets.push(Budget {
                name: format!("{env}: {name}"),
                limit,
                measured: ratio,
                floor,
                pass,
            });
        }
    }
}

/// `js/bench/load.js`: `streamseal serve` under 200 concurrent bot loops.
fn load_report(out: &mut String, budgets: &mut Vec<Budget>, stdout: &str) {
    let json = stdout
        .lines()
        .find_map(|l| l.strip_prefix("RESULT_JSON "))
        .unwrap_or("{}");
    let n = |k: &str| json_num(json, k).unwrap_or(f64::NAN);
    let clean = n("lost") == 0.0 && n("duplicated") == 0.0 && n("unanswered") == 0.0;
    budgets.push(Budget {
        name: format!(
            "streamseal serve: {} concurrent bot loops for {} s, nothing lost, duplicated or unanswered",
            n("loops"),
            n("seconds")
        ),
        limit: "0 lost, 0 duplicated".to_owned(),
        measured: None,
        floor: None,
        pass: clean && n("rounds") > 0.0,
    });
    let _ = writeln!(
        out,
        "## Load: `streamseal serve` (`js/bench/load.js`)\n\n\
         Command: `cargo build --release -p streamseal-cli`, then in `js/bench`: `node load.js \
         --loops 200 --seconds 60 --bin ../../target/release/streamseal`. One bot per loop, \
         no rate limit, over loopback; each round the owner sends a message (a minted \
         `clientMessageId`), the bot claims the invocation, records a step and completes \
         with a reply, all through `createClient`. The client (Node) and the stand-in share \
         the machine's cores. Afterwards every session is read back and checked.\n\n\
         | loops | seconds | rounds | rounds/s | requests/s | round median | round p99 | \
         messages read back | lost | duplicated | unanswered | serve peak RSS |\n\
         |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n\
         | {} | {} | {} | {} | {} | {} ms | {} ms | {} | {} | {} | {} | {:.1} MiB |\n",
        n("loops"),
        n("seconds"),
        n("rounds"),
        n("roundsPerSecond"),
        n("requestsPerSecond"),
        n("medianRoundMs"),
        n("p99RoundMs"),
        n("messages"),
        n("lost"),
        n("duplicated"),
        n("unanswered"),
        n("servePeakRssBytes") / 1_048_576.0,
    );
}

fn json_str(json: &str, key: &str) -> Option<String> {
    let rest = json.split(&format!("\"{key}\":\"")).nth(1)?;
    Some(rest.split('"').next()?.to_owned())
}

fn json_num(json: &str, key: &str) -> Option<f64> {
    let rest = json.split(&format!("\"{key}\":")).nth(1)?;
    rest.split([',', '}'])
        .next()
        .and_then(|n| n.trim().parse().ok())
}

/// Runs everything and writes BENCHMARKS.md.
pub fn bench(args: &[String]) -> Result {
    let started = Instant::now();
    let quick = args.iter().any(|a| a == "--quick");
    setup()?;
    // The package, built (and its tools installed) by its own command. A
    // build that only fails a check after writing the package (its size
    // budget) still leaves a package to measure; the report says so.
    let mut notes = Vec::new();
    if let Err(e) = run("cargo", &["xtask", "wasm"]) {
        // Every module: the Node entry loads the bot runtime's, the browser
        // bench the first, the endpoint rows the second.
        let dist = root().join("js/dist");
        if ["streamseal_wasm", "streamseal_bot", "streamseal_api"]
            .iter()
            .all(|m| dist.join(format!("{m}_bg.wasm")).exists())
        {
            eprintln!("xtask: note: {e}; measuring the package it wrote");
            notes.push(format!(
                "`cargo xtask wasm` reported: {e}; the package it wrote was measured."
            ));
        } else {
            return Err(e);
        }
    }

    let root = root();
    let python = venv_python();
    let python_str = path_str(&python)?.to_owned();
    let env = [("STREAMSEAL_BENCH_PYTHON", python_str.as_str())];
    capture(
        &root,
        "cargo",
        &["bench", "--locked", "-p", "streamseal", "--bench", "crypto"],
        &[],
    )?;
    capture(
        &root,
        "cargo",
        &["bench", "--locked", "-p", "streamseal", "--bench", "flows"],
        &[],
    )?;
    let argon2 = capture(
        &root,
        "cargo",
        &[
            "bench",
            "--locked",
            "-p",
            "streamseal",
            "--bench",
            "argon2_vs_c",
        ],
        &env,
    )?;
    let js_args: Vec<&str> = if quick { vec!["--quick"] } else { vec![] };
    let mut node_args = vec!["node.js"];
    node_args.extend(&js_args);
    let node = capture(&bench_js(), "node", &node_args, &[])?;
    let mut chromium_args = vec!["chromium.js"];
    chromium_args.extend(&js_args);
    let chromium = capture(&bench_js(), "node", &chromium_args, &[])?;
    // Load: streamseal serve (release) under concurrent bot loops.
    capture(
        &root,
        "cargo",
        &["build", "--release", "--locked", "-p", "streamseal-cli"],
        &[],
    )?;
    let serve_bin = root.join("target/release/streamseal");
    let load_seconds = if quick { "10" } else { "60" };
    let load = capture(
        &bench_js(),
        "node",
        &[
            "load.js",
            "--loops",
            "200",
            "--seconds",
            load_seconds,
            "--bin",
            path_str(&serve_bin)?,
        ],
        &[],
    )?;

    let mut budgets = Vec::new();
    let mut native = String::new();
    native_report(&mut native, &mut budgets, &argon2)?;
    let mut js = String::new();
    js_report(&mut js, &mut budgets, &node, "Node");
    js_report(&mut js, &mut budgets, &chromium, "Chromium");
    let mut load_doc = String::new();
    load_report(&mut load_doc, &mut budgets, &load);

    let mut doc = String::new();
    let _ = writeln!(
        doc,
        "# Benchmarks\n\n\
         Written by `cargo xtask bench`{} on {} (UTC); it took {:.0} s. Every figure is a \
         **median**; every ratio compares contenders measured side by side in this one run \
         (the machine is shared, so absolute figures move between runs and ratios are what \
         to compare).\n",
        if quick { " --quick" } else { "" },
        first_line("date", &["-u", "+%Y-%m-%d %H:%M"]),
        started.elapsed().as_secs_f64()
    );
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_default();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(
        doc,
        "## Machine\n\n\
         - CPU: {cpu}, {cores} cores available (shared with other jobs)\n\
         - OS: {}\n\
         - {}\n\
         - Node {}; {}\n\
         - Python {} with {}\n",
        first_line("uname", &["-sr"]),
        first_line("rustc", &["--version"]),
        first_line("node", &["--version"]).trim_start_matches('v'),
        first_line(CHROMIUM, &["--version"]),
        first_line(path_str(&python)?, &["--version"]).trim_start_matches("Python "),
        argon2
            .lines()
            .find_map(|l| l.strip_prefix("argon2_vs_c: reference C libargon2 via "))
            .unwrap_or("no argon2-cffi"),
    );
    for note in &notes {
        let _ = writeln!(doc, "Note: {note}\n");
    }
    let _ = writeln!(
        doc,
        "## Budgets\n\n| budget | limit | measured ratio | floor | verdict |\n|---|---|---:|---:|---|"
    );
    for b in &budgets {
        let _ = writeln!(
            doc,
            "| {} | {} | {} | {} | {} |",
            b.name,
            b.limit,
            b.measured.map_or("n/a".to_owned(), |r| format!("{r:.3}x")),
            b.floor.map_or(String::new(), |r| format!("{r:.3}x")),
            if b.pass { "pass" } else { "**miss**" }
        );
    }
    let _ = writeln!(
        doc,
        "\nFloor: for the JS opens, the same ratio for WebCrypto's AES-GCM decrypt followed by \
         its Ed25519 verify of what was decrypted (every envelope is signed since issue 16; the \
         async opens verify with the platform's Ed25519: WebCrypto's in browsers, node:crypto's \
         in Node), measured beside ours in the same run. Where the floor is above the limit, no \
         signed open through WebCrypto's primitives can meet the budget; our ratio minus the \
         floor is what the WASM side (base64, AAD, commitment, the crossing) adds, or saves \
         where our platform's calls beat WebCrypto's (node:crypto in Node: no promise and \
         thread-pool hop per call). For the HPKE unwrap, the ratio of the X25519 it cannot \
         avoid alone (WebCrypto's importKey of the wrap's new enc, then deriveBits): the \
         budget's case is a wrap from a sender whose wrap the IdentityKey object opened \
         before (a member receiving the next generation from the stream's owner), where \
         `DH(skR, pkS)` is kept with the key (`hazmat::SenderDh`) and the async unwrap runs \
         `DH(skR, enc)` on the platform (in Node, node:crypto's) and the key schedule, the \
         AES-GCM of the wrapped key and every check in WASM. The first wrap from a sender \
         also computes `DH(skR, pkS)`, in WASM (never the platform's): its row is in the \
         tables below, beside 2 x WebCrypto X25519 for reference."
    );
    let _ = writeln!(
        doc,
        "\nWhere the time goes: the native open's parts are measured in this run \
         (\"What a 64 KiB envelope open spends\" below); `node --cpu-prof` profiles of \
         the WASM open, history and HPKE unwrap, Chromium profiles (`node \
         bench/profile.mjs`), and each speed change tried with its before/after figures, are \
         in `bindings/wasm/README.md` (\"Speed work\")."
    );
    let _ = writeln!(
        doc,
        "\n## Native (`cargo bench -p streamseal`)\n\n\
         Commands: `cargo bench -p streamseal --bench crypto`, `--bench flows`, and \
         `STREAMSEAL_BENCH_PYTHON=target/bench-venv/bin/python cargo bench -p streamseal \
         --bench argon2_vs_c`.\n\n{native}"
    );
    let _ = writeln!(
        doc,
        "## JS: the npm package (`js/`) in Node and headless Chromium\n\n\
         Commands: `cargo xtask wasm` (the package), then in `js/bench`: `npm ci`, \
         `node node.js`, `node chromium.js`. Ratios are to the first row of each group \
         (the baseline). The XEdDSA rows are the sender's signature alone over 1 KiB \
         (`hazmatXeddsaSign` / `hazmatXeddsaVerify`), measured interleaved with the \
         1 KiB seal and open beside them: every seal makes one, every open verifies \
         one, and the row gives its share of that seal's or open's median.\n{js}"
    );
    let _ = writeln!(doc, "{load_doc}");
    let path = root.join("BENCHMARKS.md");
    fs::write(&path, doc).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!(
        "xtask: wrote {} ({:.0}s)",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
