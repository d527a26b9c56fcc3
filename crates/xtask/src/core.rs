//! The Rust workspace: format check, clippy, and every Rust test suite.

use std::process::Command;

use crate::cmd::{Result, root, run, run_in, works};

/// rustfmt and clippy, if the toolchain lacks them.
pub fn setup() -> Result {
    if !works("cargo", &["fmt", "--version"]) || !works("cargo", &["clippy", "--version"]) {
        run("rustup", &["component", "add", "rustfmt", "clippy"])?;
    }
    Ok(())
}

/// `cargo fmt --check`, the layer rules, clippy with `-D warnings`, rustdoc
/// with `-D warnings`, the official vectors (with their case counts
/// printed), then every workspace test.
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
    // Rustdoc of the library crates, every intra-doc link resolved (a moved
    // item leaves no dangling link behind).
    run_in(
        &root(),
        "cargo",
        &[
            "doc",
            "--no-deps",
            "--locked",
            "-p",
            "streamseal-aead",
            "-p",
            "streamseal-crypto",
            "-p",
            "streamseal-wire-derive",
            "-p",
            "streamseal-wire",
            "-p",
            "streamseal-api",
            "-p",
            "streamseal-sealed",
            "-p",
            "streamseal",
            "-p",
            "streamseal-vectors",
        ],
        &[("RUSTDOCFLAGS", "-D warnings")],
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

/// What one layer crate may depend on (ARCHITECTURE.md, "Layers").
struct Layer {
    /// The crate.
    name: &'static str,
    /// The streamseal crates it may reach at all.
    reachable: &'static [&'static str],
    /// The streamseal crates it may name itself; `None`: any reachable one.
    direct: Option<&'static [&'static str]>,
    /// Whether it may reach a JSON library.
    json: bool,
}

const LAYERS: [Layer; 6] = [
    Layer {
        name: "streamseal-aead",
        reachable: &[],
        direct: None,
        json: false,
    },
    Layer {
        name: "streamseal-crypto",
        reachable: &["streamseal-aead"],
        direct: None,
        json: false,
    },
    Layer {
        name: "streamseal-wire-derive",
        reachable: &[],
        direct: None,
        json: false,
    },
    Layer {
        name: "streamseal-wire",
        reachable: &[
            "streamseal-crypto",
            "streamseal-aead",
            "streamseal-wire-derive",
        ],
        direct: Some(&["streamseal-crypto", "streamseal-wire-derive"]),
        json: true,
    },
    Layer {
        name: "streamseal-api",
        reachable: &[
            "streamseal-wire",
            "streamseal-crypto",
            "streamseal-aead",
            "streamseal-wire-derive",
        ],
        direct: Some(&["streamseal-wire"]),
        json: true,
    },
    Layer {
        name: "streamseal-sealed",
        reachable: &[
            "streamseal-wire",
            "streamseal-crypto",
            "streamseal-aead",
            "streamseal-wire-derive",
        ],
        direct: Some(&["streamseal-crypto", "streamseal-wire"]),
        json: true,
    },
];

/// The crates depend on each other only down the layers (ARCHITECTURE.md):
/// for each layer crate, with every kind of dependency (normal, build and
/// dev), `cargo tree` reaches no streamseal crate of a layer above or beside
/// it (the api layer names only the wire layer itself), and the crypto
/// crate reaches no JSON library. Cargo refuses an import the manifest does
/// not declare, so this check on the manifests is the whole rule.
pub fn layers() -> Result {
    for Layer {
        name: krate,
        reachable,
        direct,
        json,
    } in LAYERS
    {
        let tree = cargo_tree(&[
            "-p",
            krate,
            "-e",
            "normal,build,dev",
            "--prefix",
            "depth",
            "--format",
            "{p}",
        ])?;
        let mut forbidden: Vec<String> = Vec::new();
        for line in tree.lines() {
            // `1streamseal-wire v0.1.0 (...)`: the depth, then the package.
            let depth_end = line.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
            let (depth, rest) = line.split_at(depth_end);
            let Some(name) = rest.split_whitespace().next() else {
                continue;
            };
            if depth == "0" {
                continue;
            }
            let refused = if name == "serde_json" {
                !json
            } else if name.starts_with("streamseal") {
                !reachable.contains(&name)
                    || (depth == "1" && direct.is_some_and(|d| !d.contains(&name)))
            } else {
                false
            };
            if refused && !forbidden.iter().any(|f| f == name) {
                forbidden.push(name.to_owned());
            }
        }
        if !forbidden.is_empty() {
            return Err(format!(
                "{krate} must not depend on {} (ARCHITECTURE.md, layers)",
                forbidden.join(", ")
            ));
        }
    }
    eprintln!(
        "xtask: the layer crates depend only down the layers (crypto: no JSON; api: wire only)"
    );
    one_curve()
}

/// The browser's modules hold one curve25519-dalek, without its
/// precomputed basepoint tables (issue 20), and native builds keep them: the
/// patched xeddsa (vendor/xeddsa) shares the curve of x25519-dalek and HPKE,
/// and only native builds turn `precomputed-tables` on (streamseal-crypto's
/// Cargo.toml). A dependency that brings a second curve, or turns the
/// tables on for WebAssembly, adds 7 to 36 KB gzip to the first download;
/// losing them natively makes every native seal slower. This says which
/// instead of leaving it to the size budget or the bench.
fn one_curve() -> Result {
    let curves = |packages: &[&str]| -> Result<Vec<String>> {
        let mut args = packages.to_vec();
        args.extend(["-e", "normal", "--prefix", "none", "--format", "{p} {f}"]);
        Ok(curve_lines(&cargo_tree(&args)?))
    };
    let wasm = curves(&[
        "-p",
        "streamseal-wasm",
        "-p",
        "streamseal-wasm-api",
        "--target",
        "wasm32-unknown-unknown",
    ])?;
    if wasm.len() != 1 {
        return Err(format!(
            "the WebAssembly modules must build one curve25519-dalek, not: {}",
            wasm.join("; ")
        ));
    }
    if wasm.iter().any(|c| c.contains("precomputed-tables")) {
        return Err(format!(
            "curve25519-dalek's precomputed-tables must stay off in WebAssembly (36 KB gzip): {}",
            wasm.join("; ")
        ));
    }
    let native = curves(&["-p", "streamseal-crypto"])?;
    if native.len() != 1 || !native.iter().all(|c| c.contains("precomputed-tables")) {
        return Err(format!(
            "native builds must build one curve25519-dalek with its precomputed-tables, not: {}",
            native.join("; ")
        ));
    }
    eprintln!("xtask: one curve25519-dalek: without its tables in WebAssembly, with them natively");
    Ok(())
}

/// The distinct lines of curve25519-dalek (or a fork of it: any package
/// named `curve25519-dalek*` but the derive macros) in a `cargo tree
/// --prefix none --format "{p} {f}"` listing.
fn curve_lines(tree: &str) -> Vec<String> {
    let mut curves: Vec<String> = Vec::new();
    for line in tree.lines() {
        let line = line.trim_end_matches(" (*)").trim_end();
        let name = line.split_whitespace().next().unwrap_or("");
        if name.starts_with("curve25519-dalek")
            && name != "curve25519-dalek-derive"
            && !curves.iter().any(|c| c == line)
        {
            curves.push(line.to_owned());
        }
    }
    curves
}

/// `cargo tree --locked ARGS` at the workspace root: what it printed.
fn cargo_tree(args: &[&str]) -> Result<String> {
    let out = Command::new("cargo")
        .args(["tree", "--locked"])
        .args(args)
        .current_dir(root())
        .output()
        .map_err(|e| format!("cannot run cargo tree: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo tree {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[cfg(test)]
mod tests {
    use super::curve_lines;

    #[test]
    fn curve_lines_tell_versions_and_features_apart() {
        let one = "streamseal-wasm v0.1.0 (/x) default\ncurve25519-dalek v5.0.0 digest,zeroize\nhpke v0.15.1 aes\ncurve25519-dalek v5.0.0 digest,zeroize (*)\n";
        assert_eq!(curve_lines(one), ["curve25519-dalek v5.0.0 digest,zeroize"]);
        let two =
            "curve25519-dalek v5.0.0 zeroize\ncurve25519-dalek v4.1.3 precomputed-tables,zeroize\n";
        assert_eq!(curve_lines(two).len(), 2);
        assert!(curve_lines("curve25519-dalek-derive v0.1.1 \n").is_empty());
        assert_eq!(curve_lines("curve25519-dalek-ng v4.1.1 std\n").len(), 1);
    }
}
