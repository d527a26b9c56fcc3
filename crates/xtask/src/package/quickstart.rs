//! The quick starts of the READMEs, run as they are written: each fenced
//! block tagged `quickstart` (```` ```js quickstart ````, `python`, `kotlin`)
//! is copied out of its README into the scratch project where its artifact
//! is installed, and run against what a service would send (the user's key
//! record, the stream's key wraps and messages, written by
//! `js/consumer/quickstart-server.mjs`). Each must print the history's texts
//! in order and a `reply sealed:` line. The Swift block cannot run here (no
//! Swift toolchain): every function and type it calls must be in the
//! committed Swift package.

use std::fs;
use std::path::{Path, PathBuf};

use crate::cmd::{Result, copy, fresh_dir, output_env_in, path_str, root, run_in};

/// The passphrase the fixture's key is sealed under (`js/examples/history.mjs`).
const PASSPHRASE: &str = "correct horse battery staple";

/// The body of the one block of `readme` tagged `<lang> quickstart`.
fn block(readme: &str, lang: &str) -> Result<String> {
    let path = root().join(readme);
    let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let fence = format!("```{lang} quickstart\n");
    let mut found = text.match_indices(&fence);
    let (at, _) = found
        .next()
        .ok_or_else(|| format!("{readme} has no ```{lang} quickstart block"))?;
    if found.next().is_some() {
        return Err(format!("{readme} has two ```{lang} quickstart blocks"));
    }
    let body = &text[at + fence.len()..];
    let end = body
        .find("\n```")
        .ok_or_else(|| format!("{readme}: the {lang} quick start is not closed"))?;
    Ok(body[..=end].to_owned())
}

fn write(path: &Path, text: &str) -> Result {
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Checks what a quick start printed: the history's texts in order, then a
/// `reply sealed:` line, and nothing refused.
fn check(lang: &str, printed: &str, history: &str) -> Result {
    let printed = without_ansi(printed);
    let lines: Vec<&str> = printed.lines().filter(|l| !l.is_empty()).collect();
    let want: Vec<&str> = history.lines().collect();
    let opened: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| !l.starts_with("reply sealed:"))
        .collect();
    if opened != want {
        return Err(format!(
            "the {lang} quick start printed {opened:?}, not the history {want:?}"
        ));
    }
    if !lines
        .last()
        .is_some_and(|l| l.starts_with("reply sealed: msg_"))
    {
        return Err(format!("the {lang} quick start sealed no reply: {lines:?}"));
    }
    eprintln!("xtask: the {lang} quick start opened the history and sealed a reply");
    Ok(())
}

/// `text` without ANSI escape sequences (Maven's console sets and resets
/// colours around a child's output even in batch mode).
fn without_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // ESC [ parameters final-letter
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Every quick start, after the consumers installed the artifacts.
pub fn run() -> Result {
    let consumers = root().join("target/package-consumers");
    let node = consumers.join("node");
    let fixture = consumers.join("quickstart");
    fresh_dir(&fixture)?;
    for file in [
        "js/consumer/quickstart-server.mjs",
        "js/examples/history.mjs",
    ] {
        let from = root().join(file);
        let name = from.file_name().ok_or("a file without a name")?.to_owned();
        copy(&from, &node.join(name))?;
    }
    run_in(
        &node,
        "node",
        &["quickstart-server.mjs", path_str(&fixture)?],
        &[],
    )?;
    let history = fs::read_to_string(fixture.join("history.txt")).map_err(|e| e.to_string())?;
    let env = [("STREAMSEAL_PASSPHRASE", PASSPHRASE)];

    // JS: the script sits beside the installed package; it reads from the fixture.
    let script = node.join("quickstart.mjs");
    write(&script, &block("js/README.md", "js")?)?;
    let printed = output_env_in(&fixture, "node", &[path_str(&script)?], &env)?;
    check("JS", &printed, &history)?;

    // Python: the venv that holds only the wheel, isolated from the repository.
    let script = fixture.join("quickstart.py");
    write(
        &script,
        &block("bindings/uniffi/python/README.md", "python")?,
    )?;
    let python: PathBuf = consumers.join("python/venv/bin/python");
    let printed = output_env_in(&fixture, path_str(&python)?, &["-I", "quickstart.py"], &env)?;
    check("Python", &printed, &history)?;

    // Kotlin: compiled into the Maven project that uses only the jar.
    let jvm = consumers.join("jvm");
    write(
        &jvm.join("src/main/kotlin/QuickStart.kt"),
        &block("bindings/uniffi/README.md", "kotlin")?,
    )?;
    let dir = format!("-Dquickstart.dir={}", path_str(&fixture)?);
    let printed = output_env_in(
        &jvm,
        "mvn",
        &[
            "-B",
            "-q",
            "-Dstyle.color=never",
            "--no-transfer-progress",
            "compile",
            "exec:exec@quickstart",
            &dir,
        ],
        &env,
    )?;
    check("Kotlin", &printed, &history)?;

    swift_names()
}

/// The Swift quick start's calls: each `name(` is a function, method or
/// initialiser of the committed Swift package or of the block itself, or
/// one of Swift's own.
fn swift_names() -> Result {
    let code = block("bindings/uniffi/README.md", "swift")?;
    let dir = root().join("bindings/uniffi/swift/Sources/Streamseal");
    let mut swift = String::new();
    for entry in fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        swift.push_str(&fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    const SWIFT_OWN: [&str; 6] = [
        "String",
        "Data",
        "print",
        "UInt64",
        "Date",
        "timeIntervalSince1970",
    ];
    let mut missing = Vec::new();
    for (at, _) in code.match_indices('(') {
        let start = code[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &code[start..at];
        if name.is_empty() || SWIFT_OWN.contains(&name) || code[..start].ends_with('.') {
            continue;
        }
        let declared = [
            format!("func {name}("),
            format!("class {name}"),
            format!("struct {name}"),
        ]
        .iter()
        .any(|d| swift.contains(d.as_str()) || code.contains(d.as_str()));
        if !declared && !missing.contains(&name) {
            missing.push(name);
        }
    }
    if missing.is_empty() {
        eprintln!(
            "xtask: the Swift quick start calls only what the committed Swift declares (not run: no Swift toolchain here)"
        );
        Ok(())
    } else {
        Err(format!(
            "the Swift quick start calls {missing:?}, which the committed Swift does not declare"
        ))
    }
}
