//! The JVM jar `dev.streamseal:streamseal` (`bindings/uniffi/kotlin/pom.xml`,
//! built with Maven): the Kotlin that uniffi-bindgen generates from the
//! release library, in the packages `dev.streamseal`, `dev.streamseal.api`,
//! `dev.streamseal.sealed` and `dev.streamseal.ffi`, and the library itself
//! as the resource `linux-x86-64/libstreamseal_ffi.so`, where JNA finds it
//! on the classpath. Its POM (in the jar under `META-INF/maven/`, and beside
//! it as `streamseal-<version>.pom`) declares JNA and the Kotlin standard
//! library, so a consumer gets them transitively.
//!
//! The consumer is a scratch Maven project under
//! `target/package-consumers/jvm` (from `bindings/uniffi/kotlin/consumer/`)
//! whose only dependency is the jar, installed into the local repository
//! from `target/package`; its `mvn verify` compiles a Kotlin main and runs
//! it in a new JVM without `-Djna.library.path`.
//!
//! The JUnit tests are not run here (`-Dmaven.test.skip`): `cargo xtask ffi`
//! runs them with the same pom.

use std::fs;
use std::path::{Path, PathBuf};

use crate::cmd::{Result, copy, copy_tree, fresh_dir, path_str, root, run, run_in, works};
use crate::ffi;

/// The artifact's file name without extension: `streamseal-<version>`, the
/// workspace's version (xtask's own), which the pom must declare too.
const ARTIFACT: &str = concat!("streamseal-", env!("CARGO_PKG_VERSION"));

/// The install plugin that puts the jar into the local repository, named in
/// full so that Maven resolves no plugin prefix (a metadata download).
const INSTALL_FILE: &str = "org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file";

/// What the jar must hold: the library where JNA looks, and the POM.
const JAR_ENTRIES: [&str; 2] = [
    "linux-x86-64/libstreamseal_ffi.so",
    "META-INF/maven/dev.streamseal/streamseal/pom.xml",
];

/// Java and Maven (as for the Kotlin tests), and `strip` for the copy of
/// the library that goes into the jar; each only when missing. [`jar`] runs
/// it first.
pub fn setup() -> Result {
    ffi::setup()?;
    if !works("strip", &["--version"]) {
        crate::cmd::apt_install(&["binutils"], false)?;
    }
    Ok(())
}

fn jar_path(out: &Path) -> PathBuf {
    out.join(format!("{ARTIFACT}.jar"))
}

fn pom_path(out: &Path) -> PathBuf {
    out.join(format!("{ARTIFACT}.pom"))
}

/// The pom's own coordinates must be those of the file names written here.
fn check_pom(pom: &str) -> Result {
    let version = env!("CARGO_PKG_VERSION");
    let coordinates = format!(
        "<groupId>dev.streamseal</groupId>\n  <artifactId>streamseal</artifactId>\n  <version>{version}</version>"
    );
    if pom.contains(&coordinates) {
        Ok(())
    } else {
        Err(format!(
            "bindings/uniffi/kotlin/pom.xml must declare dev.streamseal:streamseal:{version} (the workspace's version)"
        ))
    }
}

/// Builds the release library, generates the Kotlin from it, packages the
/// jar with Maven and writes `streamseal-<version>.jar` and
/// `streamseal-<version>.pom` to `out`.
pub fn jar(out: &Path) -> Result {
    setup()?;
    let pom = ffi::kotlin_dir().join("pom.xml");
    let pom_text =
        fs::read_to_string(&pom).map_err(|e| format!("cannot read {}: {e}", pom.display()))?;
    check_pom(&pom_text)?;

    let release = ffi::release_library()?;
    let bindgen = ffi::bindgen()?;

    // Inputs and Maven's build directory, new each time: the jar is
    // compiled from scratch (no incremental state).
    let work = root().join("target/package-build/jvm");
    fresh_dir(&work)?;
    let generated = work.join("kotlin");
    ffi::generate(&bindgen, &release, "kotlin", &generated)?;

    // The library shipped is stripped of its symbol table (the generated
    // code needs only the exported functions, which stay); uniffi-bindgen
    // read its metadata from the unstripped build above.
    let native = work.join("lib");
    fs::create_dir_all(&native).map_err(|e| format!("{}: {e}", native.display()))?;
    let shipped = native.join("libstreamseal_ffi.so");
    copy(&release, &shipped)?;
    run("strip", &[path_str(&shipped)?])?;

    let build = work.join("maven");
    ffi::maven(
        &["-Dmaven.test.skip=true", "package"],
        &generated,
        &native,
        &build,
    )?;

    let built = build.join(format!("{ARTIFACT}.jar"));
    let bytes = fs::read(&built).map_err(|e| format!("cannot read {}: {e}", built.display()))?;
    for entry in JAR_ENTRIES {
        // Zip entry names are stored as plain bytes in the central directory.
        if !bytes.windows(entry.len()).any(|w| w == entry.as_bytes()) {
            return Err(format!("{} holds no {entry}", built.display()));
        }
    }
    let jar = jar_path(out);
    copy(&built, &jar)?;
    copy(&pom, &pom_path(out))?;
    let library = fs::metadata(&shipped).map_err(|e| e.to_string())?.len();
    eprintln!(
        "xtask: jar {} ({} bytes; the library in it {library} bytes before compression) and {}",
        jar.display(),
        bytes.len(),
        pom_path(out).display()
    );
    Ok(())
}

/// Installs the jar from `out` (with its POM) into the local Maven
/// repository, then builds and runs the scratch consumer, which depends on
/// nothing else.
pub fn consumer(out: &Path) -> Result {
    let jar = jar_path(out);
    let pom = pom_path(out);
    for file in [&jar, &pom] {
        if !file.exists() {
            return Err(format!(
                "{} is missing: run `cargo xtask package jvm` first",
                file.display()
            ));
        }
    }
    let dir = root().join("target/package-consumers/jvm");
    fresh_dir(&dir)?;
    copy_tree(&ffi::kotlin_dir().join("consumer"), &dir)?;

    // The same version is installed again each time: the local repository
    // always holds the jar just built, never an older one.
    let file = format!("-Dfile={}", path_str(&jar)?);
    let pom_file = format!("-DpomFile={}", path_str(&pom)?);
    run_in(
        &dir,
        "mvn",
        &[
            "-B",
            "--no-transfer-progress",
            INSTALL_FILE,
            &file,
            &pom_file,
        ],
        &[],
    )?;
    run_in(
        &dir,
        "mvn",
        &["-B", "--no-transfer-progress", "verify"],
        &[],
    )
}
