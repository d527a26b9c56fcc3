//! The Python wheel (`bindings/uniffi/pyproject.toml`: maturin's UniFFI
//! support, `pip install` gives `import streamseal`, typed with `py.typed`)
//! and its consumer: a fresh venv under `target/package-consumers/python`
//! holding nothing but the wheel, running the bot-style script
//! `bindings/uniffi/python/consumer/bot.py` (copied there, run with `-I`, so
//! no repository file is on `sys.path`) and `mypy --strict` on it.
//!
//! maturin and mypy are pinned and installed, each into its own venv under
//! [`tools_root`], only when missing or of another version, so that later
//! runs on the same machine reuse them.

use std::fs;
use std::path::{Path, PathBuf};

use crate::cmd::{Result, fresh_dir, path_str, root, run, run_in, tools_root, works};

/// The maturin that builds the wheel; `requires` of the `[build-system]` of
/// bindings/uniffi/pyproject.toml names the same (checked by [`wheel`]).
const MATURIN: &str = "1.16.0";

/// The mypy that type-checks the consumer script.
const MYPY: &str = "2.4.1";

/// The wheel's file name starts with this: the distribution `streamseal` at
/// the workspace's version (xtask's own, `version.workspace = true`).
const WHEEL_PREFIX: &str = concat!("streamseal-", env!("CARGO_PKG_VERSION"), "-");

fn crate_dir() -> PathBuf {
    root().join("bindings/uniffi")
}

/// The venv of a pinned Python tool, under [`tools_root`].
pub fn tool_venv(name: &str) -> PathBuf {
    tools_root().join(name)
}

/// The interpreter of a venv.
pub fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin/python")
}

/// Whether the venv's interpreter runs and has `package` at `version`.
fn has_version(venv: &Path, package: &str, version: &str) -> bool {
    let check = format!(
        "import importlib.metadata as m, sys; sys.exit(m.version({package:?}) != {version:?})"
    );
    venv_python(venv)
        .to_str()
        .is_some_and(|python| works(python, &["-c", &check]))
}

/// A fresh venv at `dir` (`--clear`: whatever was there is gone).
fn new_venv(dir: &Path) -> Result {
    run("python3", &["-m", "venv", "--clear", path_str(dir)?]).map_err(|e| {
        format!(
            "{e}; Python 3 with its venv module is needed (Debian: apt-get install python3-venv)"
        )
    })
}

/// `package==version` in its venv under [`tools_root`], unless already there.
pub fn install_tool(package: &str, version: &str) -> Result {
    let venv = tool_venv(package);
    if has_version(&venv, package, version) {
        return Ok(());
    }
    if !venv_python(&venv)
        .to_str()
        .is_some_and(|python| works(python, &["-c", ""]))
    {
        new_venv(&venv)?;
    }
    let spec = format!("{package}=={version}");
    run(
        path_str(&venv_python(&venv))?,
        &[
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--quiet",
            &spec,
        ],
    )?;
    if has_version(&venv, package, version) {
        Ok(())
    } else {
        Err(format!(
            "{spec} is not in {} after installing it",
            venv.display()
        ))
    }
}

/// maturin and mypy, each pinned in its own venv under [`tools_root`], when missing.
///
/// # Errors
/// When `python3 -m venv` or `pip install` fails.
pub fn setup() -> Result {
    install_tool("maturin", MATURIN)?;
    install_tool("mypy", MYPY)
}

/// `streamseal-<version>-*.whl` files in `out`.
fn wheels_in(out: &Path) -> Result<Vec<PathBuf>> {
    Ok(fs::read_dir(out)
        .map_err(|e| format!("{}: {e}", out.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("streamseal-") && n.ends_with(".whl"))
        })
        .collect())
}

/// The one wheel of this version in `out`.
fn wheel_in(out: &Path) -> Result<PathBuf> {
    let wheels = wheels_in(out)?;
    match wheels.as_slice() {
        [one]
            if one
                .file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(WHEEL_PREFIX)) =>
        {
            Ok(one.clone())
        }
        _ => Err(format!(
            "expected one {WHEEL_PREFIX}*.whl in {}, found {wheels:?}",
            out.display()
        )),
    }
}

/// Builds the wheel into `out` (release profile) with the pinned maturin,
/// replacing any earlier `streamseal-*.whl` there.
///
/// # Errors
/// When maturin or mypy is missing and cannot be installed ([`setup`]), pyproject.toml pins
/// another maturin, or the build fails.
pub fn wheel(out: &Path) -> Result {
    setup()?;
    let pyproject = crate_dir().join("pyproject.toml");
    let text =
        fs::read_to_string(&pyproject).map_err(|e| format!("{}: {e}", pyproject.display()))?;
    if !text.contains(&format!("\"maturin=={MATURIN}\"")) {
        return Err(format!(
            "{} must require maturin=={MATURIN}, the version xtask builds with",
            pyproject.display()
        ));
    }
    for old in wheels_in(out)? {
        fs::remove_file(&old).map_err(|e| format!("{}: {e}", old.display()))?;
    }
    // maturin generates the Python modules with `cargo run --bin
    // uniffi-bindgen` in the workspace root, which finds the bin because
    // the workspace's `default-members` list `bindings/uniffi-bindgen`.
    let maturin = tool_venv("maturin").join("bin/maturin");
    run_in(
        &crate_dir(),
        path_str(&maturin)?,
        &["build", "--release", "--locked", "--out", path_str(out)?],
        &[],
    )?;
    let whl = wheel_in(out)?;
    let size = fs::metadata(&whl)
        .map_err(|e| format!("{}: {e}", whl.display()))?
        .len();
    eprintln!("xtask: Python wheel {} ({size} bytes)", whl.display());
    Ok(())
}

/// Installs the wheel from `out`, and only it, into a fresh venv under
/// `target/package-consumers/python`, runs the bot script there with the
/// interpreter isolated (`-I`: no script directory, `PYTHONPATH` or user
/// site on `sys.path`), then `mypy --strict` on it against that venv.
///
/// # Errors
/// When the venv, the install, the script or mypy fails.
pub fn consumer(out: &Path) -> Result {
    let whl = wheel_in(out)?;
    let dir = root().join("target/package-consumers/python");
    fresh_dir(&dir)?;
    let venv = dir.join("venv");
    new_venv(&venv)?;
    let python = venv_python(&venv);
    let python = path_str(&python)?;
    // --no-index: the wheel has no dependencies, and nothing else comes in.
    run_in(
        &dir,
        python,
        &[
            "-I",
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "--no-index",
            path_str(&whl)?,
        ],
        &[],
    )?;
    let script = root().join("bindings/uniffi/python/consumer/bot.py");
    fs::copy(&script, dir.join("bot.py"))
        .map_err(|e| format!("cannot copy {}: {e}", script.display()))?;
    run_in(
        &dir,
        python,
        &["-I", "bot.py", env!("CARGO_PKG_VERSION")],
        &[],
    )?;

    // The public names are typed: mypy from its tools venv, reading the
    // consumer venv's site-packages (the wheel's py.typed), no config file.
    install_tool("mypy", MYPY)?;
    let mypy = tool_venv("mypy").join("bin/mypy");
    run_in(
        &dir,
        path_str(&mypy)?,
        &[
            "--strict",
            "--config-file",
            "",
            "--python-executable",
            python,
            "bot.py",
        ],
        &[],
    )
}
