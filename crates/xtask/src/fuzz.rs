//! The cargo-fuzz targets of `tests/fuzz` (their own workspace, nightly).
//!
//! - `setup`: the nightly toolchain (rustup, minimal profile) and
//!   cargo-fuzz (installed into `~/.cache/streamseal/tools`, see `cmd::tools_root`), each only when missing.
//! - `test`: builds every target once (`cargo fuzz build -O -a -s none`),
//!   then runs each for a bounded time from its committed seeds
//!   (`tests/fuzz/seeds/<target>`), failing on any crash, leak, timeout or
//!   out-of-memory and printing the input that caused it.
//! - `cargo xtask fuzz [--secs N] [--runs N] [target ...]`: the same, by hand.
//!
//! Working corpora grow in `tests/fuzz/target/corpus/<target>` (never
//! committed); findings land in `tests/fuzz/target/artifacts/<target>`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::cmd::{Result, root, run, run_in, tools_root, works};

/// Seconds each target runs in `cargo xtask test`.
const TEST_SECS: u64 = 20;

fn fuzz_dir() -> PathBuf {
    root().join("tests").join("fuzz")
}

fn cargo_fuzz() -> PathBuf {
    tools_root().join("bin").join("cargo-fuzz")
}

/// The nightly toolchain and cargo-fuzz, when missing.
pub fn setup() -> Result {
    if !works("rustup", &["run", "nightly", "rustc", "--version"]) {
        run(
            "rustup",
            &["toolchain", "install", "nightly", "--profile", "minimal"],
        )?;
    }
    if !cargo_fuzz().is_file() {
        let tools = tools_root();
        let tools = tools.to_string_lossy();
        run(
            "cargo",
            &["install", "cargo-fuzz", "--locked", "--root", &tools],
        )?;
    }
    Ok(())
}

/// Every target for [`TEST_SECS`] seconds.
pub fn test() -> Result {
    fuzz(&[format!("--secs={TEST_SECS}")])
}

/// `cargo xtask fuzz [--secs N] [--runs N] [target ...]`.
pub fn fuzz(args: &[String]) -> Result {
    let mut secs = TEST_SECS;
    let mut runs: Option<u64> = None;
    let mut wanted = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) => (f, Some(v.to_owned())),
            None => (arg.as_str(), None),
        };
        match flag {
            "--secs" | "--runs" => {
                let value = inline
                    .or_else(|| it.next().cloned())
                    .ok_or_else(|| format!("{flag} needs a number"))?;
                let n: u64 = value
                    .parse()
                    .map_err(|_| format!("{flag} needs a number, not `{value}`"))?;
                if flag == "--secs" {
                    secs = n;
                } else {
                    runs = Some(n);
                }
            }
            name if !name.starts_with('-') => wanted.push(name.to_owned()),
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    setup()?;
    let all = targets()?;
    for name in &wanted {
        if !all.contains(name) {
            return Err(format!(
                "no fuzz target `{name}` (there are: {})",
                all.join(", ")
            ));
        }
    }
    let chosen = if wanted.is_empty() { all } else { wanted };
    build()?;
    let started = Instant::now();
    let mut failed = Vec::new();
    for target in &chosen {
        if let Err(e) = run_target(target, secs, runs) {
            eprintln!("xtask: {e}");
            failed.push(target.clone());
        }
    }
    eprintln!(
        "xtask: {} fuzz target(s) ran in {:.0}s",
        chosen.len(),
        started.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        Ok(())
    } else {
        Err(format!("fuzz target(s) failed: {}", failed.join(", ")))
    }
}

/// The `[[bin]]` names of `tests/fuzz/Cargo.toml`.
fn targets() -> Result<Vec<String>> {
    let manifest = fuzz_dir().join("Cargo.toml");
    let text = fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    let mut names = Vec::new();
    let mut in_bin = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_bin = line == "[[bin]]";
        } else if in_bin && let Some(value) = line.strip_prefix("name") {
            let name = value.trim_start().trim_start_matches('=').trim();
            names.push(name.trim_matches('"').to_owned());
        }
    }
    if names.is_empty() {
        return Err(format!("no [[bin]] in {}", manifest.display()));
    }
    Ok(names)
}

/// Nightly, with the repo-local cargo-fuzz found as a cargo subcommand.
fn nightly_env() -> Vec<(String, String)> {
    let tools = tools_root().join("bin");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut paths = vec![tools];
    paths.extend(std::env::split_paths(&path));
    let joined = std::env::join_paths(paths)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    vec![
        ("RUSTUP_TOOLCHAIN".to_owned(), "nightly".to_owned()),
        ("PATH".to_owned(), joined),
    ]
}

/// One optimised build of every target, with debug assertions (overflow
/// checks) on. No sanitizer: the core forbids `unsafe`, and without ASan
/// the targets run several times faster.
fn build() -> Result {
    let envs = nightly_env();
    let envs: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    run_in(
        &fuzz_dir(),
        "cargo",
        &[
            "fuzz",
            "build",
            "--fuzz-dir",
            ".",
            "-O",
            "--debug-assertions",
            "--sanitizer",
            "none",
        ],
        &envs,
    )
}

fn host_triple() -> Result<String> {
    let out = Command::new("rustc")
        .args(["-vV"])
        .env("RUSTUP_TOOLCHAIN", "nightly")
        .output()
        .map_err(|e| format!("cannot start rustc: {e}"))?;
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .map(str::to_owned)
        .ok_or_else(|| "rustc -vV names no host".to_owned())
}

/// Runs one built target from its seeds, printing libFuzzer's final figures.
fn run_target(target: &str, secs: u64, runs: Option<u64>) -> Result {
    let dir = fuzz_dir();
    let binary = dir
        .join("target")
        .join(host_triple()?)
        .join("release")
        .join(target);
    let corpus = dir.join("target").join("corpus").join(target);
    let artifacts = dir.join("target").join("artifacts").join(target);
    let logs = dir.join("target").join("logs");
    for d in [&corpus, &artifacts, &logs] {
        fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    let seeds = dir.join("seeds").join(target);
    let log = logs.join(format!("{target}.log"));
    let log_file =
        fs::File::create(&log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let mut args = vec![
        corpus.to_string_lossy().into_owned(),
        format!("-artifact_prefix={}/", artifacts.display()),
        format!("-max_total_time={secs}"),
        "-timeout=10".to_owned(),
        "-rss_limit_mb=2048".to_owned(),
        "-print_final_stats=1".to_owned(),
    ];
    if let Some(n) = runs {
        args.push(format!("-runs={n}"));
    }
    if seeds.is_dir() {
        args.insert(1, seeds.to_string_lossy().into_owned());
    }
    eprintln!("+ fuzz {target} ({secs}s max; log {})", shown(&log));
    let before = findings(&artifacts);
    let started = Instant::now();
    let status = Command::new(&binary)
        .args(&args)
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(log_file)
        .status()
        .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
    let text = fs::read_to_string(&log).unwrap_or_default();
    let summary: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.contains("DONE")
                || l.starts_with("stat::number_of_executed_units")
                || l.starts_with("stat::average_exec_per_sec")
        })
        .collect();
    eprintln!(
        "  ({target} took {:.0}s) {}",
        started.elapsed().as_secs_f64(),
        summary.join(" | ")
    );
    let new: Vec<PathBuf> = findings(&artifacts)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    if status.success() && new.is_empty() {
        return Ok(());
    }
    let tail: Vec<&str> = text.lines().rev().take(40).collect();
    for line in tail.iter().rev() {
        eprintln!("  | {line}");
    }
    for input in &new {
        let bytes = fs::read(input).unwrap_or_default();
        eprintln!("  input {}", shown(input));
        eprintln!("    hex    {}", hex(&bytes));
        eprintln!("    base64 {}", base64(&bytes));
        eprintln!("    replay: {} {}", shown(&binary), shown(input));
    }
    Err(format!("fuzz target `{target}` failed ({status})"))
}

fn findings(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default()
}

fn shown(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Padded standard base64 (for pasting the input into a regression test).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let index = ((n >> (18 - 6 * i)) & 63) as usize;
                out.push(char::from(ALPHABET.get(index).copied().unwrap_or(b'=')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_rfc4648_examples() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn every_target_of_the_fuzz_manifest_is_listed() {
        let names = targets().unwrap();
        for expected in [
            "envelope",
            "aad",
            "wrap",
            "bundle",
            "sealed_context",
            "wire",
        ] {
            assert!(names.iter().any(|n| n == expected), "{expected}: {names:?}");
        }
    }
}
