//! Argon2id: streamseal's KDF (RustCrypto `argon2`, through
//! `streamseal::kdf::derive_key`) against the reference C implementation
//! (libargon2 through argon2-cffi's low-level `hash_secret_raw`), at the same
//! parameters, interleaved call by call in one run so that both see the same
//! machine load. Both must derive the same 32 bytes, or the bench fails.
//!
//! Run with `cargo bench -p streamseal --bench argon2_vs_c`. The Python with
//! argon2-cffi is `$STREAMSEAL_BENCH_PYTHON` (`cargo xtask bench` sets it to
//! its venv), else `python3`; without argon2-cffi the C rows are skipped.
//!
//! Prints one `ARGON2 <label>|<rust median ms>|<c median ms>|<ratio>|<rounds>`
//! line per parameter set for `cargo xtask bench` to collect.

// A benchmark's setup failing is a broken benchmark, not an input to handle:
// unwrap/expect/panic/indexing are the clearest way to say so (clippy.toml
// allows them in tests, which benches are not).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use streamseal::kdf::{KdfLimits, KdfParams, derive_key};

const PASSPHRASE: &str = "correct horse battery staple";
const SALT: [u8; 16] = *b"streamseal-bench";

/// (label, m KiB, t, p, interleaved rounds).
const CASES: [(&str, u32, u32, u32, usize); 2] = [
    ("m=19MiB t=2 p=1", 19 * 1024, 2, 1, 11),
    ("m=64MiB t=3 p=1", 64 * 1024, 3, 1, 7),
];

struct Reference {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Reference {
    /// Starts the worker; `None` (with the reason printed) if Python or
    /// argon2-cffi is missing.
    fn start() -> Option<(Self, String)> {
        let python =
            std::env::var("STREAMSEAL_BENCH_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/argon2_ref.py");
        let mut child = match Command::new(&python)
            .arg(&script)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => {
                println!("argon2_vs_c: cannot start `{python}` ({e}); C rows skipped");
                return None;
            }
        };
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut hello = String::new();
        stdout.read_line(&mut hello).unwrap();
        match hello.trim().strip_prefix("ready ") {
            Some(version) => {
                let version = version.to_owned();
                Some((
                    Reference {
                        child,
                        stdin,
                        stdout,
                    },
                    version,
                ))
            }
            None => {
                println!(
                    "argon2_vs_c: `{python}` has no argon2-cffi ({}); C rows skipped \
                     (`cargo xtask bench` installs it)",
                    hello.trim()
                );
                let _ = child.wait();
                None
            }
        }
    }

    /// One hash by the C implementation: (seconds, output).
    fn hash(&mut self, m: u32, t: u32, p: u32) -> (f64, Vec<u8>) {
        writeln!(
            self.stdin,
            "{m} {t} {p} {} {}",
            hex::encode(SALT),
            hex::encode(PASSPHRASE)
        )
        .unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        let (ns, out) = line.trim().split_once(' ').unwrap();
        let ns: f64 = ns.parse().unwrap();
        (ns / 1e9, hex::decode(out).unwrap())
    }

    fn stop(mut self) {
        let _ = writeln!(self.stdin);
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}

fn rust_hash(params: &KdfParams) -> (f64, Vec<u8>) {
    let limits = KdfLimits::default();
    let start = Instant::now();
    let key = derive_key(PASSPHRASE, &SALT, params, &limits).unwrap();
    let elapsed = start.elapsed().as_secs_f64();
    (elapsed, key.to_vec())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn main() {
    // `cargo bench` passes `--bench` and maybe a filter; a filter that names
    // none of our labels skips the run.
    let filter: Option<String> = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    if let Some(f) = &filter
        && !"argon2_vs_c".contains(f.as_str())
        && !CASES.iter().any(|c| c.0.contains(f.as_str()))
    {
        return;
    }
    let mut reference = Reference::start();
    if let Some((_, version)) = &reference {
        println!("argon2_vs_c: reference C libargon2 via {version}");
    }
    for (label, m, t, p, rounds) in CASES {
        let params = KdfParams::argon2id(m, t, p);
        let mut rust = Vec::with_capacity(rounds);
        let mut c = Vec::with_capacity(rounds);
        // One warm-up call each (page faults of the first allocation).
        let (_, expected) = rust_hash(&params);
        if let Some((r, _)) = reference.as_mut() {
            let (_, out) = r.hash(m, t, p);
            assert_eq!(out, expected, "Rust and C Argon2id disagree at {label}");
        }
        for round in 0..rounds {
            // Alternate who goes first, so neither always runs on a warmer cache.
            let c_first = round % 2 == 1;
            if c_first && let Some((r, _)) = reference.as_mut() {
                c.push(r.hash(m, t, p).0);
            }
            let (secs, out) = rust_hash(&params);
            assert_eq!(out, expected);
            rust.push(secs);
            if !c_first && let Some((r, _)) = reference.as_mut() {
                c.push(r.hash(m, t, p).0);
            }
        }
        let rust_ms = median(rust) * 1e3;
        if c.is_empty() {
            println!("argon2id {label}: streamseal {rust_ms:.1} ms (median of {rounds})");
            println!("ARGON2 {label}|{rust_ms:.2}|-|-|{rounds}");
        } else {
            let c_ms = median(c) * 1e3;
            let ratio = rust_ms / c_ms;
            println!(
                "argon2id {label}: streamseal {rust_ms:.1} ms, libargon2 {c_ms:.1} ms, \
                 ratio {ratio:.2}x (medians of {rounds} interleaved rounds)"
            );
            println!("ARGON2 {label}|{rust_ms:.2}|{c_ms:.2}|{ratio:.3}|{rounds}");
        }
    }
    if let Some((r, _)) = reference {
        r.stop();
    }
}
