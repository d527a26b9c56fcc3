//! The golden-vector tool: it writes files identical to the committed
//! ones, and `--check` catches a drifted or missing file.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::path::PathBuf;
use std::process::{Command, Output};

use assert_cmd::cargo::CommandCargoExt;
use tempfile::TempDir;

const VECTOR_FILES: [&str; 4] = [
    "envelopes.json",
    "wraps.json",
    "bundles.json",
    "invocations.json",
];

fn tool() -> Command {
    Command::cargo_bin("streamseal-vectors").unwrap()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(cmd: &mut Command) -> (Output, String, String) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, stdout, stderr)
}

fn ok(cmd: &mut Command) -> String {
    let (out, stdout, stderr) = run(cmd);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    stdout
}

/// Exit status 1, exactly one `error[CODE]: ...` line, nothing on stdout.
fn fails(cmd: &mut Command, code: &str) -> String {
    let (out, stdout, stderr) = run(cmd);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "exactly one stderr line expected: {stderr:?}"
    );
    assert!(
        lines[0].starts_with(&format!("error[{code}]: ")),
        "{stderr:?}"
    );
    assert_eq!(stdout, "", "a failed command printed to stdout");
    lines[0].to_owned()
}

#[test]
fn unknown_arguments_are_usage_errors() {
    fails(tool().arg("--nope"), "USAGE");
    fails(tool().arg("--dir"), "USAGE");
}

#[test]
fn vectors_check_the_committed_files() {
    let committed = repo().join("tests/vectors/streamseal");
    let out = ok(tool().args(["--check", "--dir"]).arg(&committed));
    assert!(out.contains("4 vector files match the generator"), "{out}");
}

#[test]
fn vectors_regenerate_identical_files() {
    let committed = repo().join("tests/vectors/streamseal");
    let dir = TempDir::new().unwrap();
    let target = dir.path().join("fresh");
    let out = ok(tool().args(["--dir"]).arg(&target));
    assert_eq!(
        out.lines().filter(|l| l.starts_with("wrote ")).count(),
        4,
        "{out}"
    );
    let mut written: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    written.sort_unstable();
    let mut expected = VECTOR_FILES.map(str::to_owned).to_vec();
    expected.sort_unstable();
    assert_eq!(written, expected);
    for name in VECTOR_FILES {
        assert_eq!(
            std::fs::read(target.join(name)).unwrap(),
            std::fs::read(committed.join(name)).unwrap(),
            "{name} differs from the committed file"
        );
    }
}

#[test]
fn vectors_check_catches_drift() {
    let committed = repo().join("tests/vectors/streamseal");
    let dir = TempDir::new().unwrap();
    for name in VECTOR_FILES {
        std::fs::copy(committed.join(name), dir.path().join(name)).unwrap();
    }
    ok(tool().args(["--check", "--dir"]).arg(dir.path()));

    // One changed character in one file.
    let path = dir.path().join("wraps.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let at = text.find("\"wrapCt\": \"").unwrap() + "\"wrapCt\": \"".len();
    let old = &text[at..=at];
    let new = if old == "A" { "B" } else { "A" };
    std::fs::write(&path, format!("{}{new}{}", &text[..at], &text[at + 1..])).unwrap();
    let line = fails(
        tool().args(["--check", "--dir"]).arg(dir.path()),
        "VECTORS_DRIFTED",
    );
    assert!(
        line.contains("wraps.json") && !line.contains("envelopes.json"),
        "{line}"
    );
    // The check wrote nothing back.
    assert!(std::fs::read_to_string(&path).unwrap() != text);

    std::fs::remove_file(dir.path().join("bundles.json")).unwrap();
    fails(tool().args(["--check", "--dir"]).arg(dir.path()), "IO");
    fails(
        tool()
            .args(["--check", "--dir"])
            .arg(dir.path().join("nowhere")),
        "IO",
    );
}
