//! Running commands: echoed, timed, failing on a non-zero exit.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Every step returns this: `Err` carries a one-line reason.
pub type Result<T = ()> = std::result::Result<T, String>;

/// The workspace root (the parent of `crates/xtask`).
/// Where installed tools live: `$STREAMSEAL_TOOLS`, else
/// `$HOME/.cache/streamseal/tools`. Outside the clone, so that a later run
/// on the same machine (a fresh clone in CI) finds them instead of spending
/// minutes compiling them again; each install step still checks the version.
pub fn tools_root() -> PathBuf {
    if let Some(dir) = std::env::var_os("STREAMSEAL_TOOLS") {
        return PathBuf::from(dir);
    }
    match std::env::var_os("HOME") {
        Some(home) => PathBuf::from(home).join(".cache/streamseal/tools"),
        None => root().join("target").join("tools"),
    }
}

pub fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or(manifest)
}

/// Runs a command in the workspace root, echoing it, failing on a non-zero exit.
pub fn run(program: &str, args: &[&str]) -> Result {
    run_in(&root(), program, args, &[])
}

/// Runs a command in `dir` with extra environment variables, echoing it,
/// failing on a non-zero exit.
pub fn run_in(dir: &Path, program: &str, args: &[&str], envs: &[(&str, &str)]) -> Result {
    let shown: Vec<String> = envs.iter().map(|(k, v)| format!("{k}={v}")).collect();
    eprintln!(
        "+ (in {}) {}{program} {}",
        dir.strip_prefix(root()).unwrap_or(dir).display(),
        if shown.is_empty() {
            String::new()
        } else {
            format!("{} ", shown.join(" "))
        },
        args.join(" ")
    );
    let started = Instant::now();
    let status = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(dir)
        .status()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    eprintln!("  ({program} took {:.1}s)", started.elapsed().as_secs_f64());
    if status.success() {
        Ok(())
    } else {
        Err(format!("`{program} {}` failed ({status})", args.join(" ")))
    }
}

/// Runs a command in `dir` and returns what it printed on stdout (stderr
/// passes through), failing on a non-zero exit.
pub fn output_in(dir: &Path, program: &str, args: &[&str]) -> Result<String> {
    output_env_in(dir, program, args, &[])
}

/// [`output_in`] with extra environment variables.
pub fn output_env_in(
    dir: &Path,
    program: &str,
    args: &[&str],
    envs: &[(&str, &str)],
) -> Result<String> {
    let out = Command::new(program)
        .args(args)
        .envs(envs.iter().copied())
        .current_dir(dir)
        .stderr(Stdio::inherit())
        .output()
        .map_err(|e| format!("cannot start `{program}`: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "`{program} {}` failed ({})",
            args.join(" "),
            out.status
        ));
    }
    String::from_utf8(out.stdout).map_err(|e| format!("`{program}` printed non-UTF-8: {e}"))
}

/// Whether a command runs and exits 0 (output discarded).
pub fn works(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether xtask runs as root (then apt-get runs without sudo).
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `apt-get update`, then `apt-get install -y` of `packages` (with sudo when
/// not root; `--no-install-recommends` unless `recommends`).
pub fn apt_install(packages: &[&str], recommends: bool) -> Result {
    let (program, prefix): (&str, &[&str]) = if is_root() {
        ("apt-get", &[])
    } else {
        ("sudo", &["apt-get"])
    };
    let update: Vec<&str> = prefix.iter().copied().chain(["update"]).collect();
    run(program, &update)?;
    let mut install: Vec<&str> = prefix.iter().copied().chain(["install", "-y"]).collect();
    if !recommends {
        install.push("--no-install-recommends");
    }
    install.extend(packages.iter().copied());
    run(program, &install)
}

/// A path as the `&str` a command line takes.
pub fn path_str(path: &Path) -> Result<&str> {
    path.to_str()
        .ok_or_else(|| format!("{} is not UTF-8", path.display()))
}

/// Copies one file.
pub fn copy(from: &Path, to: &Path) -> Result {
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()))
}

/// An empty directory at `dir` (what was there is removed).
pub fn fresh_dir(dir: &Path) -> Result {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(|e| format!("cannot clear {}: {e}", dir.display()))?;
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))
}

/// Copies a template directory, without what a build or an install left in
/// it (`node_modules`, `dist`, `target`).
pub fn copy_tree(from: &Path, to: &Path) -> Result {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    for entry in std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        let name = entry.file_name();
        if name == "node_modules" || name == "dist" || name == "target" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name))?;
        } else {
            copy(&path, &to.join(&name))?;
        }
    }
    Ok(())
}
