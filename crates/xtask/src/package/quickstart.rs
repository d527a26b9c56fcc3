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

/// The Swift quick start's calls, checked against the committed Swift
/// package (it cannot run here): each `name(` is a function, an initialiser
/// of a class or struct, a method, or an enum case the package declares (or
/// Swift's own), and the argument labels of each call are the declared
/// parameters' labels, in order.
fn swift_names() -> Result {
    let code = block("bindings/uniffi/README.md", "swift")?;
    let dir = root().join("bindings/uniffi/swift/Sources/Streamseal");
    let mut swift = String::new();
    for entry in fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| e.to_string())?.path();
        swift.push_str(&fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let swift = without_comments(&swift);
    let code = without_comments(&code);
    const SWIFT_OWN: [&str; 5] = ["String", "Data", "print", "UInt64", "Date"];
    let mut problems = Vec::new();
    for (at, _) in code.match_indices('(') {
        let start = code[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let name = &code[start..at];
        let member = code[..start].ends_with('.');
        if name.is_empty() || SWIFT_OWN.contains(&name) || code[..start].ends_with("func ") {
            continue;
        }
        let labels = call_labels(&code[at..]);
        let upper = name.starts_with(|c: char| c.is_ascii_uppercase());
        // What a call may name: a function or method, an enum case
        // (after a dot), or a type's initialiser.
        let declarations: Vec<Vec<String>> = if upper && !member {
            let is_type = ["class", "struct"]
                .iter()
                .any(|kw| declares(&swift, kw, name));
            if is_type {
                initialisers(&swift, name)
            } else {
                Vec::new()
            }
        } else {
            let mut found = signatures(&swift, "func", name);
            found.extend(signatures(&code, "func", name));
            if member && declares(&swift, "case", name) {
                found.push(labels.clone()); // a pattern: its bindings are not labels
            }
            found
        };
        if declarations.is_empty() {
            problems.push(format!("`{name}(` is declared nowhere"));
        } else if !declarations.contains(&labels) {
            problems.push(format!(
                "`{name}({})` matches no declaration ({declarations:?})",
                labels.join(":, ")
            ));
        }
    }
    if problems.is_empty() {
        eprintln!(
            "xtask: the Swift quick start calls only what the committed Swift declares, with its labels (not run: no Swift toolchain here)"
        );
        Ok(())
    } else {
        Err(format!(
            "the Swift quick start does not match the committed Swift: {}",
            problems.join("; ")
        ))
    }
}

/// `text` without its `//` and `/* */` comments (string literals kept).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                out.push(' ');
            }
            _ => out.push(c),
        }
    }
    out
}

/// Whether `text` has `<keyword> <name>` followed by a character that ends
/// the name.
fn declares(text: &str, keyword: &str, name: &str) -> bool {
    let needle = format!("{keyword} {name}");
    text.match_indices(&needle).any(|(at, _)| {
        !text[at + needle.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
    })
}

/// The text inside the parentheses that open `from` (which starts at `(`),
/// split at its top-level commas.
fn arguments(from: &str) -> Vec<&str> {
    let mut depth = 0usize;
    let mut parts = Vec::new();
    let mut part_start = 1;
    let mut in_string = false;
    for (i, c) in from.char_indices() {
        match c {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    parts.push(&from[part_start..i]);
                    break;
                }
            }
            ',' if depth == 1 => {
                parts.push(&from[part_start..i]);
                part_start = i + 1;
            }
            _ => {}
        }
    }
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// The label of each argument of the call at `from` (`""` for none).
fn call_labels(from: &str) -> Vec<String> {
    arguments(from)
        .iter()
        .map(|arg| {
            let arg = arg.trim();
            let ident: String = arg
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let rest = arg[ident.len()..].trim_start();
            if !ident.is_empty() && rest.starts_with(':') && !rest.starts_with("::") {
                ident
            } else {
                String::new()
            }
        })
        .collect()
}

/// The external labels of every `<keyword> <name>(...)` in `text`
/// (`"_ x: T"` is unlabelled); parameters with a default value may be left
/// out of a call, so each prefix that keeps every parameter without one
/// counts.
fn signatures(text: &str, keyword: &str, name: &str) -> Vec<Vec<String>> {
    let needle = format!("{keyword} {name}(");
    let mut out = Vec::new();
    for (at, _) in text.match_indices(&needle) {
        if at > 0 && text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let params = arguments(&text[at + needle.len() - 1..]);
        let mut labels = Vec::new();
        let mut required = 0;
        for (i, param) in params.iter().enumerate() {
            let label = param
                .split_whitespace()
                .next()
                .unwrap_or("")
                .trim_end_matches(':');
            labels.push(if label == "_" {
                String::new()
            } else {
                label.to_owned()
            });
            if !param.contains('=') {
                required = i + 1;
            }
        }
        for len in required..=labels.len() {
            out.push(labels.get(..len).unwrap_or_default().to_vec());
        }
    }
    out
}

/// The labels of each `init(` declared in the body of class or struct `name`.
fn initialisers(swift: &str, name: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for keyword in ["open class", "public class", "public struct"] {
        let needle = format!("{keyword} {name}");
        for (at, _) in swift.match_indices(&needle) {
            if swift[at + needle.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            // Up to the type's FFI converter, where its body has ended.
            let body = &swift[at..];
            let end = body
                .find(&format!("FfiConverterType{name}"))
                .unwrap_or(body.len());
            let body = &body[..end];
            for marker in ["public convenience init(", "public init("] {
                for (i, _) in body.match_indices(marker) {
                    let params = arguments(&body[i + marker.len() - 1..]);
                    let labels: Vec<String> = params
                        .iter()
                        .map(|p| {
                            p.split_whitespace()
                                .next()
                                .unwrap_or("")
                                .trim_end_matches(':')
                                .to_owned()
                        })
                        .collect();
                    if labels
                        .first()
                        .is_some_and(|l| l == "unsafeFromHandle" || l == "noHandle")
                    {
                        continue;
                    }
                    out.push(labels);
                }
            }
        }
    }
    out
}
