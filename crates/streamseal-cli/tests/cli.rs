#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
//! Every command of the `streamseal` binary, including bad inputs and exit
//! statuses: success is 0, a failed command 1 with one `error[CODE]: ...`
//! line on stderr, a usage error 2.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const SLOT: &str = r#"{"kind":"message","streamId":"stream_01JD3QG1YB5V6Z8R9T0W2X4K7M","messageId":"msg_01JD3QH2A7C4E6G8J0K2M4P6R8","authorId":"usr_1","revision":1}"#;

fn cli() -> Command {
    Command::cargo_bin("streamseal").unwrap()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs and expects failure with `code`: exit 1, one stderr line, no panic.
fn fails(cmd: &mut Command, code: &str) {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.starts_with("deriving the key"))
        .collect();
    assert_eq!(lines.len(), 1, "one error line expected: {stderr}");
    assert!(
        lines[0].starts_with(&format!("error[{code}]: ")),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"));
}

fn ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn keygen(dir: &Path, kind: &str, id: &str) -> PathBuf {
    let path = dir.join(format!("{id}.json"));
    ok(cli()
        .args(["keygen", "--kind", kind, "--key-id", id, "--out"])
        .arg(&path));
    path
}

#[test]
fn help_for_every_command() {
    let top = ok(cli().arg("--help"));
    for command in [
        "demo", "keygen", "bundle", "keyring", "wrap", "unwrap", "seal", "open", "inspect",
        "vectors",
    ] {
        assert!(top.contains(command), "{command}");
        let help = ok(cli().args([command, "--help"]));
        assert!(help.contains("Usage: streamseal"), "{command}");
    }
    for sub in [["bundle", "create"], ["bundle", "open"], ["keyring", "new"]] {
        assert!(ok(cli().args(sub).arg("--help")).contains("Usage"));
    }
    assert_eq!(cli().arg("nope").output().unwrap().status.code(), Some(2));
}

#[test]
fn demo_tells_the_story_without_leaking_plaintext() {
    let text = ok(cli().arg("demo"));
    for expected in [
        "1. The owner sets up",
        "2. A bot runtime on two machines",
        "3. A sealed scratchpad",
        "5. The bot claims",
        "machine-b reads the prompt",
        "owner reads the bot's reply",
        "error[UNKNOWN_KEY_GENERATION]",
        "no plaintext",
    ] {
        assert!(text.contains(expected), "{expected}");
    }
    let json: Value = serde_json::from_str(&ok(cli().args(["demo", "--json"]))).unwrap();
    assert_eq!(json["plaintextLeaks"], 0);
    assert!(json["wireBodies"].as_u64().unwrap() > 10);
    let entries = json["transcript"].as_array().unwrap();
    let reads: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["read"]["text"].as_str())
        .collect();
    assert!(reads.len() >= 5);
    let bodies: Vec<String> = entries
        .iter()
        .filter(|e| e.get("wire").is_some())
        .map(|e| e["wire"]["body"].to_string())
        .collect();
    for read in &reads {
        assert!(bodies.iter().all(|b| !b.contains(read)), "{read} leaked");
    }
    assert!(
        entries
            .iter()
            .any(|e| e["refused"]["code"] == "UNKNOWN_KEY_GENERATION")
    );
}

#[test]
fn keygen_and_its_bad_inputs() {
    let dir = TempDir::new().unwrap();
    let user = keygen(dir.path(), "user", "laptop");
    let key: Value = serde_json::from_str(&std::fs::read_to_string(user).unwrap()).unwrap();
    assert_eq!(key["publicKey"].as_str().unwrap().len(), 44);
    assert_eq!(key["kind"], "user");
    let bot: Value =
        serde_json::from_str(&ok(cli().args(["keygen", "--kind", "bot", "--key-id", "m"])))
            .unwrap();
    assert_eq!(bot["kind"], "bot");
    fails(cli().args(["keygen", "--key-id", ""]), "INVALID_LENGTH");
    fails(
        cli().args(["keygen", "--key-id", &"k".repeat(129)]),
        "INVALID_LENGTH",
    );
}

#[test]
fn bundles_round_trip_and_refuse_bad_input() {
    let dir = TempDir::new().unwrap();
    let key = keygen(dir.path(), "user", "laptop");
    let record = dir.path().join("record.json");
    let out = ok(cli()
        .args([
            "bundle",
            "create",
            "--m",
            "64",
            "--t",
            "1",
            "--p",
            "1",
            "--passphrase-env",
            "SS_PASS",
            "--key",
        ])
        .arg(&key)
        .env("SS_PASS", "hunter2 horse"));
    assert!(!out.contains("hunter2"));
    std::fs::write(&record, &out).unwrap();

    let opened: Value = serde_json::from_str(&ok(cli()
        .args(["bundle", "open", "--passphrase-stdin", "--record"])
        .arg(&record)
        .write_stdin("hunter2 horse\n")))
    .unwrap();
    let original: Value = serde_json::from_str(&std::fs::read_to_string(&key).unwrap()).unwrap();
    assert_eq!(opened["secretKey"], original["secretKey"]);

    fails(
        cli()
            .args(["bundle", "open", "--passphrase-stdin", "--record"])
            .arg(&record)
            .write_stdin("wrong\n"),
        "WRONG_PASSPHRASE",
    );
    fails(
        cli()
            .args([
                "bundle",
                "create",
                "--m",
                "200000",
                "--passphrase-env",
                "SS_PASS",
                "--key",
            ])
            .arg(&key)
            .env("SS_PASS", "x"),
        "KDF_PARAMS_OUT_OF_BOUNDS",
    );
    // No passphrase source and no terminal.
    fails(
        cli()
            .args(["bundle", "open", "--record"])
            .arg(&record)
            .write_stdin(""),
        "USAGE",
    );
    // Hostile parameters are refused before any prompt or work.
    let mut hostile: Value = serde_json::from_str(&out).unwrap();
    hostile["kdfParams"]["m"] = Value::from(4_194_304u32);
    let hostile_path = dir.path().join("hostile.json");
    std::fs::write(&hostile_path, hostile.to_string()).unwrap();
    fails(
        cli()
            .args(["bundle", "open", "--record"])
            .arg(&hostile_path),
        "KDF_PARAMS_OUT_OF_BOUNDS",
    );
    // Passphrases are never taken from argv.
    let status = cli()
        .args(["bundle", "open", "--passphrase", "x", "--record"])
        .arg(&record)
        .output()
        .unwrap();
    assert_eq!(status.status.code(), Some(2));
}

#[test]
fn wrap_unwrap_seal_open() {
    let dir = TempDir::new().unwrap();
    let ring = dir.path().join("ring.json");
    ok(cli()
        .args(["keyring", "new", "--root", ROOT, "--out"])
        .arg(&ring));
    let bob = keygen(dir.path(), "user", "bob");
    let bob_key: Value = serde_json::from_str(&std::fs::read_to_string(&bob).unwrap()).unwrap();
    let wrap = ok(cli()
        .args([
            "wrap",
            "--to-kind",
            "user",
            "--to-key-id",
            "bob",
            "--keyring",
        ])
        .arg(&ring)
        .args(["--to-public-key", bob_key["publicKey"].as_str().unwrap()]));
    let wrap_path = dir.path().join("wrap.json");
    std::fs::write(&wrap_path, &wrap).unwrap();
    let bob_ring = dir.path().join("bob-ring.json");
    ok(cli()
        .args(["unwrap", "--root", ROOT, "--key"])
        .arg(&bob)
        .arg("--wrap")
        .arg(&wrap_path)
        .arg("--keyring")
        .arg(&bob_ring));

    let sealed = ok(cli()
        .args(["seal", "--slot", SLOT, "--text", "ship it", "--keyring"])
        .arg(&ring));
    assert!(!sealed.contains("ship it"));
    let sealed_path = dir.path().join("sealed.json");
    std::fs::write(&sealed_path, &sealed).unwrap();
    let plain = ok(cli()
        .args(["open", "--slot", SLOT, "--keyring"])
        .arg(&bob_ring)
        .arg("--sealed")
        .arg(&sealed_path));
    assert_eq!(plain.trim_end(), "ship it");

    let moved = SLOT.replace("\"revision\":1", "\"revision\":2");
    fails(
        cli()
            .args(["open", "--slot", &moved, "--keyring"])
            .arg(&bob_ring)
            .arg("--sealed")
            .arg(&sealed_path),
        "AAD_MISMATCH",
    );
    fails(
        cli()
            .args(["unwrap", "--root", "stream_other", "--key"])
            .arg(&bob)
            .arg("--wrap")
            .arg(&wrap_path),
        "WRAP_OPEN_FAILED",
    );
    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, "{not json").unwrap();
    fails(
        cli()
            .args(["unwrap", "--root", ROOT, "--key"])
            .arg(&bob)
            .arg("--wrap")
            .arg(&garbage),
        "MALFORMED_JSON",
    );
    fails(
        cli().args([
            "seal",
            "--slot",
            SLOT,
            "--text",
            "x",
            "--keyring",
            "/nonexistent/ring.json",
        ]),
        "IO",
    );
    fails(
        cli()
            .args(["wrap", "--to-kind", "user", "--to-key-id", "b", "--keyring"])
            .arg(&ring)
            .args(["--to-public-key", &"A".repeat(45)]),
        "INVALID_LENGTH",
    );
}

#[test]
fn inspect_names_shape_version_and_bounds() {
    let fixtures = repo().join("tests/fixtures/wire");
    let out = ok(cli()
        .arg("inspect")
        .arg(fixtures.join("stream_2026-07-12.json")));
    assert!(out.contains("kind: stream") && out.contains("version shape: 2026-07-12"));
    let out = ok(cli()
        .args(["inspect", "--as", "message-list"])
        .arg(fixtures.join("message_list_2026-08-21.json")));
    assert!(out.contains("version shape: 2026-08-21"));
    let dir = TempDir::new().unwrap();
    let bad = dir.path().join("claim.json");
    std::fs::write(&bad, r#"{"runtimeKind":"custom","instanceId":"","supportedCapabilities":[],"claimTtlSeconds":301}"#).unwrap();
    let out = cli()
        .args(["inspect", "--as", "claim-request"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("claimTtlSeconds") && stdout.contains("instanceId"));
    fails(
        cli()
            .args(["inspect", "--as", "claim-request", "-"])
            .write_stdin("{"),
        "MALFORMED_JSON",
    );
    fails(cli().args(["inspect", "--as", "nope"]).arg(&bad), "USAGE");
    assert!(ok(cli().args(["inspect", "--as", "list"])).contains("presence-request"));
}

#[test]
fn vectors_check_and_regenerate() {
    let committed = repo().join("tests/vectors/streamseal");
    assert!(
        ok(cli().args(["vectors", "--check", "--dir"]).arg(&committed))
            .contains("match the generator")
    );
    let dir = TempDir::new().unwrap();
    ok(cli().args(["vectors", "--dir"]).arg(dir.path()));
    for name in [
        "envelopes.json",
        "wraps.json",
        "bundles.json",
        "invocations.json",
    ] {
        assert_eq!(
            std::fs::read_to_string(dir.path().join(name)).unwrap(),
            std::fs::read_to_string(committed.join(name)).unwrap(),
            "{name}"
        );
    }
    std::fs::write(dir.path().join("wraps.json"), "{}\n").unwrap();
    fails(
        cli().args(["vectors", "--check", "--dir"]).arg(dir.path()),
        "VECTORS_DRIFTED",
    );
}
