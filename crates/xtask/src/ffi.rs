//! The UniFFI bindings (bindings/uniffi): build the library once, as apps
//! get it, generate Kotlin, Swift and Python, fail on a drift of the committed
//! Swift sources, then run the Python tests and the Kotlin tests (JUnit 5,
//! with Maven: `bindings/uniffi/kotlin/pom.xml`, the jar's own project).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::cmd::{Result, apt_install, copy, path_str, root, run, run_in, works};

/// The Maven project of the JVM jar (`pom.xml`), its JUnit tests
/// (`src/test/kotlin`) and the consumer template (`consumer/`).
pub fn kotlin_dir() -> PathBuf {
    root().join("bindings/uniffi/kotlin")
}

/// Java (17 or newer) and Maven, from apt when missing. Maven brings the
/// rest into its local repository (`~/.m2`) on first use and reuses it
/// offline after: the Kotlin compiler (kotlin-maven-plugin), JNA, JUnit.
pub fn setup() -> Result {
    if !works("java", &["-version"]) || !works("mvn", &["-v"]) {
        apt_install(&["openjdk-17-jdk-headless", "maven"], false)?;
    }
    if !works("mvn", &["-v"]) {
        return Err("Maven (mvn) and Java 17 or newer are needed for the Kotlin tests".to_owned());
    }
    Ok(())
}

/// Runs Maven on the jar's project with the generated Kotlin, the directory
/// of the library and the build directory as properties (no progress
/// output; Surefire's summary is printed).
pub fn maven(goals: &[&str], generated: &Path, native: &Path, build: &Path) -> Result {
    let pom = kotlin_dir().join("pom.xml");
    let properties = [
        format!("-Dstreamseal.generated={}", path_str(generated)?),
        format!("-Dstreamseal.native={}", path_str(native)?),
        format!("-Dstreamseal.build={}", path_str(build)?),
    ];
    let mut args = vec!["-B", "--no-transfer-progress", "-f", path_str(&pom)?];
    args.extend(properties.iter().map(String::as_str));
    args.extend(goals);
    run_in(&root(), "mvn", &args, &[])
}

/// The UniFFI namespaces the library exports, one per crate with UniFFI
/// derives: the crypto layer's (`streamseal`), the api layer's
/// (`streamseal_api`), the sealed flows' (`streamseal_sealed`) and the
/// binding's own (`streamseal_ffi`). Each is one Python module, one Kotlin
/// package and one Swift file with its C module.
const NAMESPACES: [&str; 4] = [
    "streamseal",
    "streamseal_api",
    "streamseal_sealed",
    "streamseal_ffi",
];

/// Every step of the bindings' tests; prints how long they took.
pub fn test() -> Result {
    let started = Instant::now();
    let root = root();
    let target = root.join("target");
    let out = target.join("uniffi");

    let bindgen = bindgen()?;
    if out.exists() {
        fs::remove_dir_all(&out).map_err(|e| format!("cannot clear {}: {e}", out.display()))?;
    }

    // One library, as apps get it: the tests reproduce the golden vectors
    // through its hazmat exports, which take the randomness as a parameter.
    let library = build_library(&target, &out.join("lib"))?;
    generate(&bindgen, &library, "swift", &out.join("swift"))?;
    generate(&bindgen, &library, "kotlin", &out.join("kotlin"))?;
    generate(&bindgen, &library, "python", &out.join("python"))?;

    swift_drift(&out.join("swift"))?;
    python(&out, &library)?;
    kotlin(&out, &library)?;

    eprintln!(
        "xtask: UniFFI bindings (Kotlin, Swift drift, Python) passed in {:.0}s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The bindgen CLI (its own crate, built once: later runs find it fresh).
///
/// Built as maturin runs it (`cargo run --bin uniffi-bindgen` in the
/// workspace root, no `-p`): cargo then unifies features over the
/// default members, so `-p uniffi-bindgen` would build other copies of syn
/// and uniffi_bindgen and the wheel would compile them again (105 s in the
/// fresh-clone CI of 34c5026).
pub fn bindgen() -> Result<PathBuf> {
    run("cargo", &["build", "--locked", "--bin", "uniffi-bindgen"])?;
    Ok(root().join("target/debug/uniffi-bindgen"))
}

/// The release library (`target/release/libstreamseal_ffi.so`), built by
/// the command maturin runs for the wheel (`cargo rustc --profile release
/// --lib --crate-type cdylib`). With the cdylib as the only output, cargo
/// builds the dependencies for the library's thin LTO alone; `cargo build
/// --release` (lib, cdylib and staticlib) builds them all again (166 s in
/// the fresh-clone CI of 34c5026). The jar and the names check share it.
pub fn release_library() -> Result<PathBuf> {
    run(
        "cargo",
        &[
            "rustc",
            "--profile",
            "release",
            "--locked",
            "-p",
            "streamseal-ffi",
            "--lib",
            "--crate-type",
            "cdylib",
        ],
    )?;
    Ok(root().join("target/release/libstreamseal_ffi.so"))
}

/// Builds the cdylib and copies it to `dir`, beside the generated sources.
fn build_library(target: &Path, dir: &Path) -> Result<PathBuf> {
    run("cargo", &["build", "--locked", "-p", "streamseal-ffi"])?;
    fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let library = dir.join("libstreamseal_ffi.so");
    copy(&target.join("debug/libstreamseal_ffi.so"), &library)?;
    Ok(library)
}

/// `uniffi-bindgen generate` in library mode. Each crate's `uniffi.toml`
/// (the Kotlin package names) is found through `cargo metadata`, limited to
/// the workspace: every crate with UniFFI derives is a member.
pub fn generate(bindgen: &Path, library: &Path, language: &str, dir: &Path) -> Result {
    run(
        path_str(bindgen)?,
        &[
            "generate",
            "--library",
            path_str(library)?,
            "--language",
            language,
            "--no-format",
            "--metadata-no-deps",
            "--out-dir",
            path_str(dir)?,
        ],
    )
}

/// The generated Swift must equal the committed copy in
/// bindings/uniffi/swift: a change of the exported API shows as a diff that
/// fails here until the new sources are committed (the README says how).
fn swift_drift(generated: &Path) -> Result {
    let committed = root().join("bindings/uniffi/swift/Sources");
    let pairs: Vec<(String, String)> = NAMESPACES
        .iter()
        .flat_map(|ns| {
            [
                (format!("{ns}.swift"), format!("Streamseal/{ns}.swift")),
                (format!("{ns}FFI.h"), format!("{ns}FFI/include/{ns}FFI.h")),
                (
                    format!("{ns}FFI.modulemap"),
                    format!("{ns}FFI/include/module.modulemap"),
                ),
            ]
        })
        .collect();
    let mut drifted = Vec::new();
    for (name, dest) in &pairs {
        let new = fs::read_to_string(generated.join(name))
            .map_err(|e| format!("uniffi-bindgen wrote no {name}: {e}"))?;
        let old = fs::read_to_string(committed.join(dest)).unwrap_or_default();
        if new != old {
            drifted.push(dest.as_str());
        }
    }
    if drifted.is_empty() {
        eprintln!("  swift: generated sources equal the committed ones");
        Ok(())
    } else {
        Err(format!(
            "the generated Swift differs from bindings/uniffi/swift/Sources ({}); \
             run `STREAMSEAL_UPDATE_SWIFT=1 cargo xtask test` to refresh and commit them",
            drifted.join(", ")
        ))
        .or_else(|e| update_swift(generated, &committed, &pairs, e))
    }
}

/// With `STREAMSEAL_UPDATE_SWIFT=1`, copies the generated sources over the committed ones.
fn update_swift(
    generated: &Path,
    committed: &Path,
    pairs: &[(String, String)],
    err: String,
) -> Result {
    if std::env::var_os("STREAMSEAL_UPDATE_SWIFT").is_none() {
        return Err(err);
    }
    for (name, dest) in pairs {
        let to = committed.join(dest);
        if let Some(parent) = to.parent() {
            fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        copy(&generated.join(name), &to)?;
    }
    eprintln!("  swift: committed sources refreshed; commit them");
    Ok(())
}

/// The generated modules as a package next to the library, then unittest.
fn python(out: &Path, library: &Path) -> Result {
    let package = out.join("python/streamseal_bindings");
    fs::create_dir_all(&package).map_err(|e| format!("{}: {e}", package.display()))?;
    for ns in NAMESPACES {
        let name = format!("{ns}.py");
        fs::rename(out.join("python").join(&name), package.join(&name))
            .map_err(|e| format!("cannot move {name}: {e}"))?;
    }
    fs::write(package.join("__init__.py"), "")
        .map_err(|e| format!("cannot write __init__.py: {e}"))?;
    copy(library, &package.join("libstreamseal_ffi.so"))?;
    wheel_layout(&package, &out.join("python/streamseal"))?;
    // The HTTP adapter's tests (test_http.py) need httpx, pinned in a venv of
    // its own, and `streamseal serve`, which they talk to.
    crate::package::python::install_tool("httpx", HTTPX)?;
    run("cargo", &["build", "--locked", "-p", "streamseal-cli"])?;
    let python = crate::package::python::venv_python(&crate::package::python::tool_venv("httpx"));
    let serve_bin = root().join("target/debug/streamseal");
    run_in(
        &root(),
        path_str(&python)?,
        &[
            "-m",
            "unittest",
            "discover",
            "-s",
            "bindings/uniffi/python/tests",
            "-v",
        ],
        &[
            ("STREAMSEAL_PY_BINDINGS", path_str(&out.join("python"))?),
            ("STREAMSEAL_BIN", path_str(&serve_bin)?),
        ],
    )
}

/// The httpx the Python adapter (`streamseal.http`) is tested with.
const HTTPX: &str = "0.28.1";

/// The package as the wheel lays it out (`streamseal/` with the package's
/// own files, the generated modules in `streamseal/_uniffi/`), from the
/// generated package at `generated`: what `import streamseal` and
/// `streamseal.http` are tested as.
fn wheel_layout(generated: &Path, package: &Path) -> Result {
    let uniffi = package.join("_uniffi");
    fs::create_dir_all(&uniffi).map_err(|e| format!("{}: {e}", uniffi.display()))?;
    let mut init = String::new();
    for ns in NAMESPACES {
        copy(
            &generated.join(format!("{ns}.py")),
            &uniffi.join(format!("{ns}.py")),
        )?;
        init.push_str(&format!("from .{ns} import *  # noqa: F401,F403\n"));
    }
    copy(
        &generated.join("libstreamseal_ffi.so"),
        &uniffi.join("libstreamseal_ffi.so"),
    )?;
    fs::write(uniffi.join("__init__.py"), init)
        .map_err(|e| format!("cannot write _uniffi: {e}"))?;
    let sources = root().join("bindings/uniffi/python/streamseal");
    for entry in fs::read_dir(&sources).map_err(|e| format!("{}: {e}", sources.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "py" || e == "typed")
            && let Some(name) = path.file_name()
        {
            copy(&path, &package.join(name))?;
        }
    }
    Ok(())
}

/// The JUnit tests of `bindings/uniffi/kotlin` with Maven (`mvn verify`:
/// the generated Kotlin and the tests compiled, the tests run, the jar
/// made), the library a classpath resource that JNA loads (no
/// `-Djna.library.path`). The build directory outlives `target/uniffi`, so
/// that Kotlin's incremental compilation skips the unchanged generated
/// sources of the next run (20 to 40 s of compiling here).
fn kotlin(out: &Path, library: &Path) -> Result {
    let native = library
        .parent()
        .ok_or_else(|| "the library has no directory".to_owned())?;
    let build = root().join("target/maven/tests");
    maven(
        &["-Dkotlin.compiler.incremental=true", "verify"],
        &out.join("kotlin"),
        native,
        &build,
    )
}
