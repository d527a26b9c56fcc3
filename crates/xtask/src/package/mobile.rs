//! The mobile targets, compiled here so that a change that breaks one fails
//! CI: the binding's static library for iOS (`aarch64-apple-ios`,
//! `aarch64-apple-ios-sim`) and for the Android ABIs
//! (`aarch64-linux-android`, `armv7-linux-androideabi`,
//! `x86_64-linux-android`), written to `target/package/mobile/<target>/`.
//!
//! A static library is the compiled crate and its dependencies in one
//! archive: no linker runs, so neither Xcode nor the Android NDK is needed
//! for it. They are built with the dev profile (the point here is that every
//! target compiles; a release build for a target is the same command with
//! `--release`). Where rustup cannot install a target's standard library
//! (here the Rust distribution server answers 404 for
//! `rust-std-1.95.0-aarch64-apple-ios-sim`), the target is built with the
//! nightly toolchain compiling `std` from source (`-Zbuild-std`, with the
//! `rust-src` component); the output says which. What needs Apple's or Android's tools to finish is not run
//! here and is written in `bindings/uniffi/README.md` ("Mobile artifacts"):
//! the XCFramework (`xcodebuild -create-xcframework`, on a Mac) and the
//! Android shared libraries linked by the NDK with 16 KB pages
//! (`cargo ndk ... -- -C link-arg=-Wl,-z,max-page-size=16384`).

use std::fs;
use std::path::Path;
use std::time::Instant;

use crate::cmd::{Result, root, run, works};

/// Every mobile target the binding is compiled for.
pub const TARGETS: [&str; 5] = [
    "aarch64-apple-ios",
    "aarch64-apple-ios-sim",
    "aarch64-linux-android",
    "armv7-linux-androideabi",
    "x86_64-linux-android",
];

/// The targets whose standard library the default toolchain has.
fn installed_targets() -> Result<Vec<String>> {
    let out = std::process::Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .map_err(|e| format!("cannot run rustup: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().to_owned())
        .collect())
}

/// The targets' standard libraries (`rustup target add`, only those
/// missing); for a target rustup cannot install, the nightly toolchain's
/// `rust-src` to build `std` from source.
pub fn setup() -> Result {
    let installed = installed_targets()?;
    let mut unavailable = Vec::new();
    for target in TARGETS {
        if installed.iter().any(|t| t == target) {
            continue;
        }
        if run("rustup", &["target", "add", target]).is_err() {
            eprintln!("xtask: rustup cannot install {target}; it is built with -Zbuild-std");
            unavailable.push(target);
        }
    }
    if !unavailable.is_empty() {
        // The nightly toolchain the fuzz targets use, with `rust-src`:
        // only the component when nightly is there (`toolchain install`
        // would update it to the newest nightly).
        if works("rustup", &["run", "nightly", "rustc", "--version"]) {
            run(
                "rustup",
                &["component", "add", "rust-src", "--toolchain", "nightly"],
            )?;
        } else {
            run(
                "rustup",
                &[
                    "toolchain",
                    "install",
                    "nightly",
                    "--profile",
                    "minimal",
                    "--component",
                    "rust-src",
                ],
            )?;
        }
    }
    Ok(())
}

/// Compiles `libstreamseal_ffi.a` for every target into `out/mobile/<target>/`.
/// (They are hard links to the build output: 5 × ~80 MB is not copied.)
pub fn libraries(out: &Path) -> Result {
    setup()?;
    let target_dir = root().join("target");
    let installed = installed_targets()?;
    for target in TARGETS {
        let started = Instant::now();
        let from_source = !installed.iter().any(|t| t == target);
        let mut args = Vec::new();
        if from_source {
            args.extend(["+nightly", "rustc", "-Zbuild-std=std,panic_abort"]);
        } else {
            args.push("rustc");
        }
        args.extend([
            "--locked",
            "-p",
            "streamseal-ffi",
            "--lib",
            "--target",
            target,
            "--crate-type",
            "staticlib",
        ]);
        run("cargo", &args)?;
        let built = target_dir.join(target).join("debug/libstreamseal_ffi.a");
        let dir = out.join("mobile").join(target);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let to = dir.join("libstreamseal_ffi.a");
        if to.exists() {
            fs::remove_file(&to).map_err(|e| format!("{}: {e}", to.display()))?;
        }
        fs::hard_link(&built, &to)
            .or_else(|_| fs::copy(&built, &to).map(|_| ()))
            .map_err(|e| format!("cannot link {}: {e}", built.display()))?;
        let size = fs::metadata(&to).map_err(|e| e.to_string())?.len();
        eprintln!(
            "xtask: {target}: libstreamseal_ffi.a, {size} bytes{}, in {:.0}s",
            if from_source {
                " (std built from source, nightly)"
            } else {
                ""
            },
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// `cargo xtask swift-release <zip> <url>`: points the root `Package.swift`
/// at a published XCFramework: `releaseURL` becomes `url` and
/// `releaseChecksum` the SHA-256 of `zip` (what `swift package
/// compute-checksum` prints). Run when a release is cut, after the
/// XCFramework zip built on a Mac is uploaded to `url`.
pub fn swift_release(args: &[String]) -> Result {
    let [zip, url] = args else {
        return Err(
            "usage: cargo xtask swift-release <xcframework zip> <its release URL>".to_owned(),
        );
    };
    let digest = std::process::Command::new("sha256sum")
        .arg(zip)
        .output()
        .map_err(|e| format!("cannot run sha256sum: {e}"))?;
    if !digest.status.success() {
        return Err(format!("sha256sum {zip} failed"));
    }
    let checksum = String::from_utf8_lossy(&digest.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned();
    let path = root().join("Package.swift");
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    fs::write(&path, with_release(&text, url, &checksum)?)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("xtask: Package.swift now points at {url} (sha256 {checksum})");
    Ok(())
}

/// `Package.swift` with its `releaseURL` and `releaseChecksum` lines set.
fn with_release(text: &str, url: &str, checksum: &str) -> Result<String> {
    if checksum.len() != 64 || !checksum.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("`{checksum}` is not a SHA-256"));
    }
    if !url.starts_with("https://") || url.contains('"') || url.contains('\\') {
        return Err(format!("`{url}` is not an https URL SwiftPM can fetch"));
    }
    let mut seen = (false, false);
    let lines: Vec<String> = text
        .lines()
        .map(|line| {
            if line.starts_with("let releaseURL = ") {
                seen.0 = true;
                format!("let releaseURL = \"{url}\"")
            } else if line.starts_with("let releaseChecksum = ") {
                seen.1 = true;
                format!("let releaseChecksum = \"{checksum}\"")
            } else {
                line.to_owned()
            }
        })
        .collect();
    if seen != (true, true) {
        return Err(
            "Package.swift has no `let releaseURL` / `let releaseChecksum` line".to_owned(),
        );
    }
    Ok(lines.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_release_lines_of_the_root_package_are_rewritten() {
        let text = fs::read_to_string(root().join("Package.swift")).unwrap();
        let sum = "ab".repeat(32);
        let url = "https://example.org/r/0.1.0/StreamsealRust.xcframework.zip";
        let out = with_release(&text, url, &sum).unwrap();
        assert!(out.contains(&format!("let releaseURL = \"{url}\"\n")));
        assert!(out.contains(&format!("let releaseChecksum = \"{sum}\"\n")));
        assert_eq!(out.lines().count(), text.lines().count());
        assert!(with_release(&text, url, "abc").is_err());
        assert!(with_release(&text, "http://x/y.zip", &sum).is_err());
        assert!(with_release("let other = 1\n", url, &sum).is_err());
    }
}
