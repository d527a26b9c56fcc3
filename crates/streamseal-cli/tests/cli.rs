#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
//! Every command of the `streamseal` binary, including bad inputs and exit
//! statuses: success is 0; a failed command is 1 with exactly one
//! `error[CODE]: ...` line on stderr, nothing on stdout and no panic; a usage
//! error caught by the argument parser is 2.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const SLOT: &str = r#"{"kind":"message","streamId":"stream_01JD3QG1YB5V6Z8R9T0W2X4K7M","messageId":"msg_01JD3QH2A7C4E6G8J0K2M4P6R8","authorId":"usr_1","authorType":"user","revision":1}"#;
/// A slot that names no author: who sealed it is said with `--from-subject`.
const STEP_SLOT: &str = r#"{"kind":"traceStep","invocationId":"inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7","stepId":"step_1","stepType":"thinking","phase":"completed"}"#;
const PASSPHRASE: &str = "correct horse battery staple";
/// The cheapest Argon2id parameters a new bundle may have (the creation floor).
const FLOOR_KDF: [&str; 6] = ["--m", "19456", "--t", "2", "--p", "1"];

/// The binary, with backtraces switched on so that a panic, or an error
/// printed with its backtrace, would show on stderr.
fn cli() -> Command {
    let mut cmd = Command::cargo_bin("streamseal").unwrap();
    cmd.env("RUST_BACKTRACE", "1").env_remove("SS_PASS");
    cmd
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run(cmd: &mut Command) -> (Output, String, String) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_no_panic(&stderr);
    (out, stdout, stderr)
}

fn assert_no_panic(stderr: &str) {
    let lower = stderr.to_lowercase();
    for marker in ["panicked", "backtrace", "stack backtrace", "rust_backtrace"] {
        assert!(!lower.contains(marker), "{marker} on stderr: {stderr}");
    }
}

/// The code of an `error[CODE]: message` line, if the line has that shape
/// (`^error\[[A-Z0-9_]+\]: `).
fn error_code(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("error[")?;
    let (code, message) = rest.split_once("]: ")?;
    let shaped = !code.is_empty()
        && code
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    (shaped && !message.is_empty()).then_some(code)
}

/// Runs and expects success; returns stdout.
fn ok(cmd: &mut Command) -> String {
    let (out, stdout, stderr) = run(cmd);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    stdout
}

/// Runs and expects a failed command with `code`: exit status exactly 1,
/// stderr exactly one `error[CODE]: ...` line, nothing on stdout. Returns
/// the error line.
fn fails(cmd: &mut Command, code: &str) -> String {
    let (out, stdout, stderr) = run(cmd);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(stderr.ends_with('\n'), "unterminated: {stderr:?}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.len(),
        1,
        "exactly one stderr line expected: {stderr:?}"
    );
    assert_eq!(error_code(lines[0]), Some(code), "{stderr:?}");
    assert_eq!(stdout, "", "a failed command printed to stdout");
    lines[0].to_owned()
}

/// Runs and expects a usage error from the argument parser: exit status 2.
/// Returns stderr.
fn usage_error(cmd: &mut Command) -> String {
    let (out, stdout, stderr) = run(cmd);
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    // clap's `error: ...`, or the help when a subcommand is missing.
    assert!(
        stderr.starts_with("error: ") || stderr.contains("Usage: streamseal"),
        "{stderr}"
    );
    assert_eq!(stdout, "");
    stderr
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
}

fn read_json(path: &Path) -> Value {
    json(&std::fs::read_to_string(path).unwrap())
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn keygen(dir: &Path, kind: &str, id: &str) -> PathBuf {
    let path = dir.join(format!("{id}.key.json"));
    let stdout = ok(cli()
        .args(["keygen", "--kind", kind, "--key-id", id, "--out"])
        .arg(&path));
    assert_eq!(stdout, "", "keygen --out must not print the key");
    path
}

/// `bundle create` with small parameters and the passphrase from `SS_PASS`.
fn bundle_create(key: &Path) -> String {
    ok(cli()
        .args(["bundle", "create"])
        .args(FLOOR_KDF)
        .args(["--passphrase-env", "SS_PASS", "--key"])
        .arg(key)
        .env("SS_PASS", PASSPHRASE))
}

/// Every string in a JSON value, object keys included.
fn strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                out.push(k.clone());
                strings(v, out);
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- help

#[test]
fn help_for_every_command_names_it() {
    let top = ok(cli().arg("--help"));
    assert!(top.contains("Usage: streamseal"));
    let commands = [
        "demo", "keygen", "bundle", "keyring", "wrap", "unwrap", "seal", "open", "inspect",
    ];
    for command in commands {
        assert!(top.contains(command), "top-level help lacks {command}");
        let help = ok(cli().args([command, "--help"]));
        assert!(
            help.contains(&format!("Usage: streamseal {command}")),
            "{command}: {help}"
        );
        // `help <command>` says the same.
        assert_eq!(ok(cli().args(["help", command])), help, "{command}");
    }
    for [group, sub] in [["bundle", "create"], ["bundle", "open"], ["keyring", "new"]] {
        let help = ok(cli().args([group, sub, "--help"]));
        assert!(
            help.contains(&format!("Usage: streamseal {group} {sub}")),
            "{group} {sub}: {help}"
        );
    }
    assert!(ok(cli().arg("--version")).starts_with("streamseal "));
}

#[test]
fn usage_errors_exit_2() {
    usage_error(&mut cli());
    usage_error(cli().arg("nope"));
    usage_error(cli().arg("bundle"));
    usage_error(cli().args(["bundle", "nope"]));
    usage_error(cli().arg("keyring"));
    usage_error(cli().arg("keygen"));
    usage_error(cli().args(["keygen", "--key-id", "k", "--kind", "robot"]));
    usage_error(cli().args(["demo", "--nope"]));
    usage_error(cli().args(["wrap", "--keyring", "r.json"]));
    usage_error(cli().args(["unwrap", "--key", "k.json"]));
    // Wrap format 2 needs the sender: wrap without --from, unwrap without
    // the accepted sender.
    usage_error(cli().args([
        "wrap",
        "--keyring",
        "r.json",
        "--to-kind",
        "user",
        "--to-key-id",
        "b",
        "--to-public-key",
        "x",
    ]));
    usage_error(cli().args([
        "unwrap", "--root", ROOT, "--key", "k.json", "--wrap", "w.json",
    ]));
    usage_error(cli().args([
        "unwrap",
        "--root",
        ROOT,
        "--key",
        "k.json",
        "--wrap",
        "w.json",
        "--from-kind",
        "user",
        "--from-key-id",
        "a",
    ]));
    usage_error(cli().args(["seal", "--slot", SLOT]));
    usage_error(cli().args(["open", "--keyring", "r.json"]));
    // Envelope version 2 is signed: seal needs the sender's key file and
    // subject, open the sender it accepts.
    usage_error(cli().args([
        "seal",
        "--slot",
        SLOT,
        "--keyring",
        "r.json",
        "--text",
        "x",
        "--as",
        "usr_1",
    ]));
    usage_error(cli().args([
        "seal",
        "--slot",
        SLOT,
        "--keyring",
        "r.json",
        "--text",
        "x",
        "--from",
        "k.json",
    ]));
    usage_error(cli().args([
        "open",
        "--slot",
        SLOT,
        "--keyring",
        "r.json",
        "--from-kind",
        "user",
        "--from-key-id",
        "a",
    ]));
    usage_error(cli().args(["bundle", "create", "--m", "-1", "--key", "k.json"]));
    usage_error(cli().args(["bundle", "create", "--m", "lots", "--key", "k.json"]));
    usage_error(cli().args([
        "wrap",
        "--keyring",
        "r.json",
        "--to-kind",
        "user",
        "--to-key-id",
        "b",
        "--to-public-key",
        "x",
        "--generation",
        "-3",
    ]));
    usage_error(cli().args([
        "bundle",
        "open",
        "--record",
        "r.json",
        "--passphrase-env",
        "SS_PASS",
        "--passphrase-stdin",
    ]));
}

// ---------------------------------------------------------------- demo

const DEMO_SECTIONS: [&str; 12] = [
    "1. The owner sets up an encryption key with a passphrase",
    "2. A bot runtime on two machines registers its keys in presence",
    "3. A sealed scratchpad session is created; the runtime makes generation 0",
    "4. The owner accepts the runtime's key, opens the stream's keys and sends sealed messages",
    "5. The bot claims the invocation, opens its sealedContext, posts steps and a reply",
    "6. The owner and the bot compare their safety number",
    "7. The bot asks a decision; the owner answers with a sealed note",
    "8. The owner removes the bot and brings in a reviewer bot: the generation rolls and the bot is locked out",
    "9. The stand-in server turns hostile: a generation of its own, a forged prompt, forged answers",
    "10. Key holders turn hostile: a current member writes as the owner, the removed bot prompts under its old generation",
    "11. The owner's app restarts from its persisted stream state; the server replays an older response",
    "Done",
];

/// The demo's transcript entries, each with the section it belongs to.
fn demo_entries(json: &Value) -> Vec<(usize, &Value)> {
    let mut section = 0;
    let mut out = Vec::new();
    for entry in json["transcript"].as_array().unwrap() {
        if let Some(title) = entry["section"].as_str() {
            section = DEMO_SECTIONS
                .iter()
                .position(|s| *s == title)
                .unwrap_or_else(|| panic!("unknown section {title:?}"))
                + 1;
        }
        out.push((section, entry));
    }
    out
}

#[test]
fn demo_tells_the_story() {
    let (out, text, stderr) = run(cli().arg("demo"));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for section in DEMO_SECTIONS {
        let heading = format!("== {section}");
        assert!(text.contains(&heading), "demo output lacks {heading:?}");
    }
    for expected in [
        "machine-b reads the prompt",
        "owner reads the bot's reply",
        "machine-b reads the owner's answer (reject), proven by its note",
        "the 60 digits match",
        "cannot open the message sealed after its removal: error[UNKNOWN_KEY_GENERATION]",
        "owner app refuses the server's wrap of generation 2: error[UNTRUSTED_WRAP]",
        "owner app refuses to seal a new message (announced generation 2, no key from an accepted sender): error[UNKNOWN_KEY_GENERATION]",
        "machine-b refuses the forged invocation (its wrap came from no accepted sender): error[UNTRUSTED_WRAP]",
        "machine-b refuses \"approve\" with no sealed note: error[UNPROVEN_DECISION_ANSWER]",
        "owner app cannot open the message the reviewer sealed in the owner's name: error[SENDER_MISMATCH]",
        "reviewer-box refuses the prompt the removed bot sealed under generation 0 (it holds generation 1): error[STALE_KEY_GENERATION]",
        "cannot open the persisted state: error[STATE_AUTH_FAILED]",
        "the new message is sealed under generation 1, the persisted high-water",
        "no plaintext",
    ] {
        assert!(text.contains(expected), "demo output lacks {expected:?}");
    }
    // Who sealed what is read, and how sure the reader is: the owner's key
    // is unverified on the runtime before the comparison, verified after.
    for (what, status) in [
        (
            "machine-b reads the prompt [sealed by usr_",
            "`owner-laptop`: unverified]",
        ),
        (
            "owner reads the bot's step [sealed by bot_",
            "`machine-b`: unverified]",
        ),
        (
            "owner reads message #1 [sealed by usr_",
            "`owner-laptop`: verified]",
        ),
        (
            "owner reads the decision card's title [sealed by bot_",
            "`machine-b`: verified]",
        ),
        (
            "machine-b reads the owner's answer (reject), proven by its note [sealed by usr_",
            "`owner-laptop`: verified]",
        ),
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("demo output lacks {what:?}"));
        assert!(line.contains(status), "{line}");
    }
    // Both sides print the same 60 digits, in twelve groups of five, for
    // each of the bot's two machine keys.
    let shown: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(" shows:"))
        .map(|(_, digits)| digits.trim())
        .collect();
    assert_eq!(shown.len(), 4, "{shown:?}");
    assert_eq!(shown[0], shown[1]);
    assert_eq!(shown[2], shown[3]);
    assert_ne!(shown[0], shown[2]);
    for number in [shown[0], shown[2]] {
        let groups: Vec<&str> = number.split(' ').collect();
        assert_eq!(groups.len(), 12, "{shown:?}");
        assert!(
            groups
                .iter()
                .all(|g| g.len() == 5 && g.bytes().all(|b| b.is_ascii_digit())),
            "{shown:?}"
        );
    }
    // In the narration too, each plaintext shows only on its `reads` line,
    // never inside a printed wire body.
    let read_texts: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_once(" reads "))
        .filter_map(|(_, rest)| rest.split_once(": \""))
        .map(|(_, quoted)| quoted.trim_end_matches('"'))
        .collect();
    assert!(read_texts.len() >= 10, "{read_texts:?}");
    for read in &read_texts {
        for line in text.lines().filter(|l| l.contains(read)) {
            assert!(line.contains(" reads "), "{read:?} leaked in {line:?}");
        }
    }
}

#[test]
fn demo_json_transcript_has_no_plaintext_on_the_wire() {
    let json = json(&ok(cli().args(["demo", "--json"])));
    assert_eq!(json["plaintextLeaks"], 0);
    let wire_bodies = json["wireBodies"].as_u64().unwrap();
    assert!(wire_bodies > 25, "{wire_bodies}");
    let entries = json["transcript"].as_array().unwrap();

    let bodies: Vec<&Value> = entries
        .iter()
        .filter_map(|e| e.get("wire"))
        .map(|w| &w["body"])
        .collect();
    assert_eq!(bodies.len() as u64, wire_bodies);
    assert!(bodies.iter().all(|b| !b.is_null()));

    let reads: Vec<&str> = entries
        .iter()
        .filter_map(|e| e.get("read"))
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert!(reads.len() >= 10, "{reads:?}");
    assert!(reads.iter().all(|r| r.len() >= 8), "{reads:?}");

    // Recomputed here rather than trusting `plaintextLeaks`: no string of
    // any wire body (keys included), nor its JSON text, holds a read text.
    for body in &bodies {
        let mut all = Vec::new();
        strings(body, &mut all);
        let serialised = body.to_string();
        for read in &reads {
            assert!(!serialised.contains(read), "{read:?} leaked in {body}");
            assert!(
                all.iter().all(|s| !s.contains(read)),
                "{read:?} leaked in {body}"
            );
        }
    }

    let sections: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["section"].as_str())
        .collect();
    assert_eq!(sections, DEMO_SECTIONS);
}

#[test]
fn demo_json_transcript_refuses_every_attack_with_its_code() {
    let json = json(&ok(cli().args(["demo", "--json"])));
    let entries = demo_entries(&json);

    // Sections 1 to 7 are the honest flows: nothing is refused there.
    let refused: Vec<(usize, &Value)> = entries
        .iter()
        .filter_map(|(s, e)| e.get("refused").map(|r| (*s, r)))
        .collect();
    assert!(
        refused.iter().all(|(s, _)| *s >= 8),
        "a refusal in an honest section: {refused:?}"
    );
    let found = |section: usize, who: &str, what: &str| -> String {
        let hits: Vec<&str> = refused
            .iter()
            .filter(|(s, r)| {
                *s == section
                    && r["who"].as_str().unwrap().starts_with(who)
                    && r["what"].as_str().unwrap().contains(what)
            })
            .map(|(_, r)| r["code"].as_str().unwrap())
            .collect();
        assert_eq!(hits.len(), 1, "{section} {who} {what}: {refused:?}");
        hits[0].to_owned()
    };
    // The removed bot.
    assert_eq!(
        found(8, "machine-b", "sealed after its removal"),
        "UNKNOWN_KEY_GENERATION"
    );
    // The server's own generation, prompt and answers.
    assert_eq!(
        found(9, "owner app", "wrap of generation 2"),
        "UNTRUSTED_WRAP"
    );
    assert_eq!(
        found(9, "owner app", "refuses to seal"),
        "UNKNOWN_KEY_GENERATION"
    );
    assert_eq!(
        found(9, "owner app", "forged in the owner's name"),
        "UNKNOWN_KEY_GENERATION"
    );
    assert_eq!(found(9, "machine-b", "forged invocation"), "UNTRUSTED_WRAP");
    assert_eq!(
        found(9, "machine-b", "with no sealed note"),
        "UNPROVEN_DECISION_ANSWER"
    );
    assert_eq!(
        found(9, "machine-b", "the owner's note for"),
        "AAD_MISMATCH"
    );
    // Key holders: a current member sealing in the owner's name, the
    // removed bot prompting under the generation it kept.
    assert_eq!(
        found(10, "owner app", "the reviewer sealed in the owner's name"),
        "SENDER_MISMATCH"
    );
    assert_eq!(
        found(
            10,
            "reviewer-box",
            "the removed bot sealed under generation 0"
        ),
        "STALE_KEY_GENERATION"
    );
    // The persisted state and the replayed response.
    assert_eq!(
        found(11, "another identity key", "persisted state"),
        "STATE_AUTH_FAILED"
    );
    assert_eq!(
        found(11, "machine-b", "cannot open it"),
        "UNKNOWN_KEY_GENERATION"
    );
    // Every refusal of the story is one of those.
    assert_eq!(
        found(
            8,
            "machine-b (through its earlier invocation)",
            "the same message"
        ),
        "UNKNOWN_KEY_GENERATION"
    );
    assert_eq!(refused.len(), 12, "{refused:?}");

    // The owner's app skipped the server's wrap and admitted no generation 2;
    // no member ever admitted it.
    let reports: Vec<(usize, &Value)> = entries
        .iter()
        .filter_map(|(s, e)| e.get("wraps").map(|w| (*s, w)))
        .collect();
    assert!(reports.iter().all(|(_, w)| {
        w["admitted"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a["keyGeneration"] != 2)
    }));
    let hostile: Vec<&Value> = reports
        .iter()
        .filter(|(s, w)| *s == 9 && w["who"] == "owner app")
        .map(|(_, w)| *w)
        .collect();
    assert_eq!(hostile.len(), 1);
    assert!(
        hostile[0]["skipped"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!({"keyGeneration": 2, "code": "UNTRUSTED_WRAP"})),
        "{}",
        hostile[0]
    );
    // The honest generation 0 came from the runtime's key `machine-a`, to
    // the owner and to machine-b.
    for who in ["owner app", "machine-b"] {
        let first = reports
            .iter()
            .find(|(s, w)| *s <= 5 && w["who"] == who)
            .unwrap()
            .1;
        assert_eq!(first["admitted"][0]["keyGeneration"], 0, "{first}");
        assert_eq!(first["admitted"][0]["senderKeyId"], "machine-a", "{first}");
    }

    // Who can read: generation 0 the owner and both machines, generation 1
    // (after the removal) the owner and the reviewer bot.
    let rosters: Vec<&Value> = entries
        .iter()
        .filter_map(|(_, e)| e.get("roster"))
        .collect();
    assert_eq!(rosters.len(), 2);
    let key_ids = |r: &Value| -> Vec<String> {
        r["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["keyId"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(rosters[0]["keyGeneration"], 0);
    assert_eq!(
        key_ids(rosters[0]),
        ["owner-laptop", "machine-a", "machine-b"]
    );
    assert_eq!(rosters[1]["keyGeneration"], 1);
    assert_eq!(key_ids(rosters[1]), ["owner-laptop", "reviewer-box"]);
    assert_eq!(rosters[1]["entries"][0]["verified"], true);
    assert_eq!(rosters[1]["entries"][1]["verified"], false);
    assert_eq!(rosters[1]["entries"][1]["kind"], "bot");

    // After the restart and the replayed response (currentKeyGeneration 0),
    // the owner's message is sealed under generation 1.
    let restart_posts: Vec<&Value> = entries
        .iter()
        .filter(|(s, _)| *s == 11)
        .filter_map(|(_, e)| e.get("wire"))
        .collect();
    let replayed = restart_posts
        .iter()
        .find(|w| w["call"].as_str().unwrap().contains("replayed"))
        .unwrap();
    assert_eq!(replayed["body"]["data"]["currentKeyGeneration"], 0);
    let sent = restart_posts
        .iter()
        .find(|w| w["call"].as_str().unwrap().ends_with("/messages"))
        .unwrap();
    assert_eq!(sent["body"]["sealed"]["envelope"]["keyGeneration"], 1);
}

#[test]
fn demo_json_transcript_has_matching_safety_numbers() {
    let json = json(&ok(cli().args(["demo", "--json"])));
    let entries = demo_entries(&json);
    let numbers: Vec<(usize, &Value)> = entries
        .iter()
        .filter_map(|(s, e)| e.get("safetyNumber").map(|n| (*s, n)))
        .collect();
    // One comparison per machine key of the bot.
    assert_eq!(numbers.len(), 2, "{numbers:?}");
    let roster = entries.iter().find_map(|(_, e)| e.get("roster")).unwrap();
    let print_of = |key_id: &str| -> String {
        roster["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["keyId"] == key_id)
            .unwrap()["fingerprint"]
            .as_str()
            .unwrap()
            .replace(' ', "")
    };
    let mut all_digits = Vec::new();
    for ((section, number), machine) in numbers.iter().zip(["machine-a", "machine-b"]) {
        assert_eq!(*section, 6);
        assert_eq!(number["digitsMatch"], true);
        assert_eq!(number["scannedMatch"], true);
        let sides = number["sides"].as_array().unwrap();
        assert_eq!(sides.len(), 2);
        assert_eq!(sides[0]["who"], "owner app");
        assert_eq!(sides[1]["who"], machine);
        let digits: Vec<&str> = sides
            .iter()
            .map(|s| s["digits"].as_str().unwrap())
            .collect();
        assert_eq!(digits[0], digits[1]);
        assert_eq!(digits[0].len(), 60);
        assert!(digits[0].bytes().all(|b| b.is_ascii_digit()));
        // "streamseal/safety-number" (24 bytes), the version, two 32-byte fingerprints.
        assert!(sides.iter().all(|s| s["scannableLen"] == 24 + 1 + 64));
        // The digits are each key's 30-digit fingerprint, the smaller
        // first: both appear in the generation-0 roster.
        let halves = [digits[0][..30].to_owned(), digits[0][30..].to_owned()];
        assert!(halves[0] <= halves[1]);
        let mut prints = vec![print_of("owner-laptop"), print_of(machine)];
        prints.sort();
        assert_eq!(prints, halves);
        all_digits.push(digits[0].to_owned());
    }
    assert_ne!(all_digits[0], all_digits[1]);
}

/// Every opened item says who sealed it and how sure the reader is.
#[test]
fn demo_json_transcript_reports_who_sealed_each_read() {
    let json = json(&ok(cli().args(["demo", "--json"])));
    let entries = demo_entries(&json);
    let reads: Vec<(usize, &Value)> = entries
        .iter()
        .filter_map(|(s, e)| e.get("read").map(|r| (*s, r)))
        .collect();
    assert!(reads.len() >= 12, "{reads:?}");
    // The owner's user id: the prompt's signer.
    let owner = reads
        .iter()
        .find(|(_, r)| r["what"] == "the prompt")
        .unwrap()
        .1["sealedBy"]["subject"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(owner.starts_with("usr_"), "{owner}");
    let mut seen = std::collections::BTreeSet::new();
    for (section, read) in &reads {
        let by = &read["sealedBy"];
        let (who, subject, key_id, status) = (
            read["who"].as_str().unwrap(),
            by["subject"].as_str().unwrap(),
            by["keyId"].as_str().unwrap(),
            by["status"].as_str().unwrap(),
        );
        // The owner signs as itself with its key; the bot with a machine key.
        match key_id {
            "owner-laptop" => {
                assert_eq!(subject, owner, "{read}");
                assert_eq!(by["kind"], "user", "{read}");
            }
            "machine-a" | "machine-b" => {
                assert!(subject.starts_with("bot_"), "{read}");
                assert_eq!(by["kind"], "bot", "{read}");
            }
            other => panic!("an item signed by an unexpected key {other}: {read}"),
        }
        let expected = if who == "owner" && subject == owner {
            // Its own key.
            "verified"
        } else if who == "reviewer-box" || *section < 6 {
            // Pinned on first use, not compared (the reviewer never compares).
            "unverified"
        } else {
            // After the safety-number comparison of section 6.
            "verified"
        };
        assert_eq!(status, expected, "section {section}: {read}");
        seen.insert((who.to_owned(), status.to_owned()));
    }
    for (who, status) in [
        ("machine-b", "unverified"),
        ("machine-b", "verified"),
        ("owner", "unverified"),
        ("owner", "verified"),
        ("reviewer-box", "unverified"),
    ] {
        assert!(
            seen.contains(&(who.to_owned(), status.to_owned())),
            "no read by {who} with status {status}: {seen:?}"
        );
    }
}

// ---------------------------------------------------------------- keygen

#[test]
fn keygen_user_and_bot() {
    let dir = TempDir::new().unwrap();
    let user = read_json(&keygen(dir.path(), "user", "laptop"));
    assert_eq!(user["kind"], "user");
    assert_eq!(user["keyId"], "laptop");
    assert_eq!(user["publicKey"].as_str().unwrap().len(), 44);
    assert_eq!(user["secretKey"].as_str().unwrap().len(), 44);

    let bot = json(&ok(cli().args(["keygen", "--kind", "bot", "--key-id", "m"])));
    assert_eq!(bot["kind"], "bot");
    assert_eq!(bot["publicKey"].as_str().unwrap().len(), 44);
    // The default kind is user, and each key is fresh.
    let again = json(&ok(cli().args(["keygen", "--key-id", "laptop"])));
    assert_eq!(again["kind"], "user");
    assert_ne!(again["publicKey"], user["publicKey"]);
    // 128 characters is the longest key id.
    ok(cli().args(["keygen", "--key-id", &"k".repeat(128)]));
}

#[test]
fn keygen_bad_inputs() {
    let line = fails(cli().args(["keygen", "--key-id", ""]), "INVALID_LENGTH");
    assert!(line.contains("keyId"), "{line}");
    fails(
        cli().args(["keygen", "--key-id", &"k".repeat(129)]),
        "INVALID_LENGTH",
    );
    let dir = TempDir::new().unwrap();
    fails(
        cli()
            .args(["keygen", "--key-id", "k", "--out"])
            .arg(dir.path().join("missing-dir/key.json")),
        "IO",
    );
}

// ---------------------------------------------------------------- bundle

#[test]
fn bundle_round_trip_env_then_stdin() {
    let dir = TempDir::new().unwrap();
    let key_path = keygen(dir.path(), "user", "laptop");
    let key = read_json(&key_path);
    let record_text = bundle_create(&key_path);
    // The record holds neither the secret key nor the passphrase.
    assert!(!record_text.contains(PASSPHRASE));
    assert!(!record_text.contains(key["secretKey"].as_str().unwrap()));
    let record = json(&record_text);
    assert!(record.get("secretKey").is_none());
    assert_eq!(record["keyId"], "laptop");
    assert_eq!(record["publicKey"], key["publicKey"]);
    assert_eq!(record["kdfParams"]["m"], 19_456);
    let record_path = write(dir.path(), "record.json", &record_text);

    let opened = json(&ok(cli()
        .args(["bundle", "open", "--passphrase-stdin", "--record"])
        .arg(&record_path)
        .write_stdin(format!("{PASSPHRASE}\n"))));
    assert_eq!(opened, key);

    // `--out`, and the record as `GET me/e2e-key` returns it: `{data: ...}`.
    let wrapped = write(
        dir.path(),
        "response.json",
        &serde_json::json!({ "data": record }).to_string(),
    );
    let out = dir.path().join("opened.json");
    let stdout = ok(cli()
        .args(["bundle", "open", "--passphrase-env", "SS_PASS", "--record"])
        .arg(&wrapped)
        .arg("--out")
        .arg(&out)
        .env("SS_PASS", PASSPHRASE));
    assert_eq!(stdout, "");
    assert_eq!(read_json(&out), key);
}

#[test]
fn bundle_round_trip_stdin_then_env() {
    let dir = TempDir::new().unwrap();
    let key_path = keygen(dir.path(), "user", "phone");
    let record = ok(cli()
        .args(["bundle", "create"])
        .args(FLOOR_KDF)
        .args(["--passphrase-stdin", "--key"])
        .arg(&key_path)
        .write_stdin(format!("{PASSPHRASE}\r\n")));
    assert!(!record.contains(PASSPHRASE));
    // The record on stdin (`-`), the passphrase from the environment; the
    // trailing CR LF of the stdin passphrase was not part of it.
    let opened = ok(cli()
        .args([
            "bundle",
            "open",
            "--passphrase-env",
            "SS_PASS",
            "--record",
            "-",
        ])
        .env("SS_PASS", PASSPHRASE)
        .write_stdin(record));
    assert_eq!(json(&opened), read_json(&key_path));
}

#[test]
fn bundle_wrong_passphrase_and_tampering() {
    let dir = TempDir::new().unwrap();
    let key_path = keygen(dir.path(), "user", "laptop");
    let record_text = bundle_create(&key_path);
    let record_path = write(dir.path(), "record.json", &record_text);

    let line = fails(
        cli()
            .args(["bundle", "open", "--passphrase-stdin", "--record"])
            .arg(&record_path)
            .write_stdin("not the passphrase\n"),
        "WRONG_PASSPHRASE",
    );
    assert!(!line.contains("not the passphrase"));
    fails(
        cli()
            .args(["bundle", "open", "--passphrase-env", "SS_PASS", "--record"])
            .arg(&record_path)
            .env("SS_PASS", ""),
        "WRONG_PASSPHRASE",
    );

    // A flipped ciphertext byte, or the record of another key.
    let mut record = json(&record_text);
    let ct = record["encryptedPrivateBundle"]
        .as_str()
        .unwrap()
        .to_owned();
    let flipped = if &ct[10..11] == "A" { "B" } else { "A" };
    record["encryptedPrivateBundle"] = Value::from(format!("{}{flipped}{}", &ct[..10], &ct[11..]));
    let tampered = write(dir.path(), "tampered.json", &record.to_string());
    fails(
        cli()
            .args(["bundle", "open", "--passphrase-env", "SS_PASS", "--record"])
            .arg(&tampered)
            .env("SS_PASS", PASSPHRASE),
        "WRONG_PASSPHRASE",
    );
    let other = read_json(&keygen(dir.path(), "user", "other"));
    let mut record = json(&record_text);
    record["publicKey"] = other["publicKey"].clone();
    let swapped = write(dir.path(), "swapped.json", &record.to_string());
    fails(
        cli()
            .args(["bundle", "open", "--passphrase-env", "SS_PASS", "--record"])
            .arg(&swapped)
            .env("SS_PASS", PASSPHRASE),
        "WRONG_PASSPHRASE",
    );
}

#[test]
fn bundle_kdf_params_are_bounded() {
    let dir = TempDir::new().unwrap();
    let key_path = keygen(dir.path(), "user", "laptop");
    for (flag, value) in [
        ("--m", "200000"),
        ("--m", "1"),
        // Below the creation floor (m = 19456 KiB, t = 2): a record that
        // would still open, but is not made.
        ("--m", "19455"),
        ("--t", "1"),
        ("--t", "0"),
        ("--t", "100"),
        ("--p", "0"),
        ("--p", "100"),
    ] {
        let mut params = FLOOR_KDF.map(str::to_owned);
        let at = params.iter().position(|p| p == flag).unwrap();
        params[at + 1] = value.to_owned();
        let line = fails(
            cli()
                .args(["bundle", "create"])
                .args(&params)
                .args(["--passphrase-env", "SS_PASS", "--key"])
                .arg(&key_path)
                .env("SS_PASS", PASSPHRASE),
            "KDF_PARAMS_OUT_OF_BOUNDS",
        );
        assert!(line.contains(value), "{flag} {value}: {line}");
    }

    // A hostile record asking for 4 GiB of memory is refused before any
    // prompt or derivation: with no passphrase source and no terminal the
    // error is still the bounds one (the check runs before the prompt), the
    // stdin passphrase is never needed, and it returns at once.
    let mut record = json(&bundle_create(&key_path));
    record["kdfParams"]["m"] = Value::from(4_u64 * 1024 * 1024);
    let hostile = write(dir.path(), "hostile.json", &record.to_string());
    let started = Instant::now();
    let line = fails(
        cli().args(["bundle", "open", "--record"]).arg(&hostile),
        "KDF_PARAMS_OUT_OF_BOUNDS",
    );
    assert!(line.contains("4194304"), "{line}");
    fails(
        cli()
            .args(["bundle", "open", "--passphrase-stdin", "--record"])
            .arg(&hostile)
            .write_stdin(format!("{PASSPHRASE}\n")),
        "KDF_PARAMS_OUT_OF_BOUNDS",
    );
    assert!(started.elapsed() < Duration::from_secs(20));

    // Other bad parameters in a record.
    let mut record = json(&bundle_create(&key_path));
    record["kdfParams"]["algorithm"] = Value::from("scrypt");
    let scrypt = write(dir.path(), "scrypt.json", &record.to_string());
    fails(
        cli().args(["bundle", "open", "--record"]).arg(&scrypt),
        "UNSUPPORTED_KDF",
    );
    record["kdfParams"]["algorithm"] = Value::from("argon2id");
    record["kdfParams"]["m"] = Value::from(1_u64 << 40);
    let huge = write(dir.path(), "huge.json", &record.to_string());
    fails(
        cli().args(["bundle", "open", "--record"]).arg(&huge),
        "MALFORMED_JSON",
    );
}

#[test]
fn bundle_passphrase_sources() {
    let dir = TempDir::new().unwrap();
    let key_path = keygen(dir.path(), "user", "laptop");
    let record_path = write(dir.path(), "record.json", &bundle_create(&key_path));

    // No source and stdin not a terminal (a pipe, or nothing at all).
    fails(
        cli()
            .args(["bundle", "open", "--record"])
            .arg(&record_path)
            .write_stdin(format!("{PASSPHRASE}\n")),
        "USAGE",
    );
    fails(
        cli().args(["bundle", "open", "--record"]).arg(&record_path),
        "USAGE",
    );
    fails(
        cli()
            .args(["bundle", "create"])
            .args(FLOOR_KDF)
            .arg("--key")
            .arg(&key_path),
        "USAGE",
    );
    // An unset variable is named, not guessed.
    let line = fails(
        cli()
            .args(["bundle", "open", "--passphrase-env", "SS_PASS", "--record"])
            .arg(&record_path),
        "USAGE",
    );
    assert!(line.contains("SS_PASS"), "{line}");

    // There is no flag for a passphrase on the command line, and clap does
    // not echo the value back.
    let secret = "argv-secret-value-9f3";
    for args in [
        vec!["bundle", "open", "--passphrase", secret, "--record"],
        vec![
            "bundle",
            "open",
            &format!("--passphrase={secret}"),
            "--record",
        ],
    ] {
        let stderr = usage_error(cli().args(&args).arg(&record_path));
        assert!(stderr.contains("--passphrase"), "{stderr}");
        assert!(!stderr.contains(secret), "{stderr}");
    }
    let stderr = usage_error(
        cli()
            .args(["bundle", "create", "--passphrase", secret, "--key"])
            .arg(&key_path),
    );
    assert!(!stderr.contains(secret), "{stderr}");
    for help in [
        ok(cli().args(["bundle", "open", "--help"])),
        ok(cli().args(["bundle", "create", "--help"])),
    ] {
        assert!(
            !predicate::str::is_match(r"--passphrase[ =<]")
                .unwrap()
                .eval(&help),
            "{help}"
        );
        assert!(help.contains("--passphrase-env") && help.contains("--passphrase-stdin"));
    }
}

#[test]
fn bundle_bad_files() {
    let dir = TempDir::new().unwrap();
    let key_path = keygen(dir.path(), "user", "laptop");
    let garbage = write(dir.path(), "garbage.json", "{not json");
    let empty = write(dir.path(), "empty.json", "{}");
    let missing = dir.path().join("missing.json");

    fails(
        cli().args(["bundle", "open", "--record"]).arg(&garbage),
        "MALFORMED_JSON",
    );
    fails(
        cli().args(["bundle", "open", "--record"]).arg(&empty),
        "MALFORMED_JSON",
    );
    fails(
        cli().args(["bundle", "open", "--record"]).arg(&missing),
        "IO",
    );
    let mut record = json(&bundle_create(&key_path));
    record["keyId"] = Value::from("");
    let no_id = write(dir.path(), "no-id.json", &record.to_string());
    fails(
        cli().args(["bundle", "open", "--record"]).arg(&no_id),
        "INVALID_LENGTH",
    );

    for (key, code) in [
        (&garbage, "MALFORMED_JSON"),
        (&empty, "INVALID_FIELD"),
        (&missing, "IO"),
    ] {
        fails(
            cli()
                .args(["bundle", "create"])
                .args(FLOOR_KDF)
                .args(["--passphrase-env", "SS_PASS", "--key"])
                .arg(key)
                .env("SS_PASS", PASSPHRASE),
            code,
        );
    }
    // A key file whose public key is not its secret key's.
    let mut key = read_json(&key_path);
    key["publicKey"] = read_json(&keygen(dir.path(), "user", "other"))["publicKey"].clone();
    let mismatched = write(dir.path(), "mismatched.json", &key.to_string());
    fails(
        cli()
            .args(["bundle", "create"])
            .args(FLOOR_KDF)
            .args(["--passphrase-env", "SS_PASS", "--key"])
            .arg(&mismatched)
            .env("SS_PASS", PASSPHRASE),
        "BUNDLE_KEY_MISMATCH",
    );
}

// ---------------------------------------------------------------- keys, wraps, seal, open

struct Setup {
    dir: TempDir,
    ring: PathBuf,
    alice: PathBuf,
    alice_public: String,
    bob: PathBuf,
    bob_public: String,
    wrap: PathBuf,
    bob_ring: PathBuf,
}

/// `unwrap` of `wrap` with `key`, accepting only the sender `from`
/// (`[kind, key id, public key]`).
fn unwrap_from(key: &Path, wrap: &Path, from: [&str; 3]) -> Command {
    let mut cmd = cli();
    cmd.args(["unwrap", "--root", ROOT, "--key"])
        .arg(key)
        .arg("--wrap")
        .arg(wrap)
        .args(["--from-kind", from[0], "--from-key-id", from[1]])
        .args(["--from-public-key", from[2]]);
    cmd
}

/// `seal` into `slot` with the keyring file `ring`, signed by the key file
/// `from` registered as `subject` (the plaintext comes with `--text` or on
/// standard input).
fn seal_as(ring: &Path, from: &Path, subject: &str, slot: &str) -> Command {
    let mut cmd = cli();
    cmd.args(["seal", "--slot", slot, "--as", subject, "--keyring"])
        .arg(ring)
        .arg("--from")
        .arg(from);
    cmd
}

/// `open` of a payload bound to `slot` with the keyring file `ring`,
/// accepting the one sender `from` (`[kind, key id, public key]`) as the
/// slot's author unless `--from-subject` is added.
fn open_from(ring: &Path, slot: &str, from: [&str; 3]) -> Command {
    let mut cmd = cli();
    cmd.args(["open", "--slot", slot, "--keyring"])
        .arg(ring)
        .args(["--from-kind", from[0], "--from-key-id", from[1]])
        .args(["--from-public-key", from[2]]);
    cmd
}

/// Alice's keyring, a wrap of it from alice's key to bob's key, and bob's
/// keyring from it (bob accepting alice as the sender).
fn setup() -> Setup {
    let dir = TempDir::new().unwrap();
    let ring = dir.path().join("ring.json");
    assert_eq!(
        ok(cli()
            .args(["keyring", "new", "--root", ROOT, "--out"])
            .arg(&ring)),
        ""
    );
    let alice = keygen(dir.path(), "user", "alice");
    let alice_public = read_json(&alice)["publicKey"].as_str().unwrap().to_owned();
    let bob = keygen(dir.path(), "user", "bob");
    let bob_public = read_json(&bob)["publicKey"].as_str().unwrap().to_owned();
    let wrap_text = ok(cli()
        .args([
            "wrap",
            "--to-kind",
            "user",
            "--to-key-id",
            "bob",
            "--keyring",
        ])
        .arg(&ring)
        .arg("--from")
        .arg(&alice)
        .args(["--to-public-key", &bob_public]));
    let wrap = write(dir.path(), "wrap.json", &wrap_text);
    let bob_ring = dir.path().join("bob-ring.json");
    assert_eq!(
        ok(unwrap_from(&bob, &wrap, ["user", "alice", &alice_public])
            .arg("--keyring")
            .arg(&bob_ring)),
        ""
    );
    Setup {
        dir,
        ring,
        alice,
        alice_public,
        bob,
        bob_public,
        wrap,
        bob_ring,
    }
}

#[test]
fn keyring_new() {
    let s = setup();
    let ring = read_json(&s.ring);
    assert_eq!(ring["rootStreamId"], ROOT);
    assert_eq!(ring["currentGeneration"], 0);
    assert_eq!(ring["keys"]["0"].as_str().unwrap().len(), 44);
    // To stdout, a fresh key each time.
    let printed = json(&ok(cli().args(["keyring", "new", "--root", ROOT])));
    assert_ne!(printed["keys"]["0"], ring["keys"]["0"]);
    fails(
        cli().args(["keyring", "new", "--root", ""]),
        "INVALID_LENGTH",
    );
    fails(
        cli()
            .args(["keyring", "new", "--root", ROOT, "--out"])
            .arg(s.dir.path().join("missing-dir/ring.json")),
        "IO",
    );
}

#[test]
fn wrap_and_unwrap() {
    let s = setup();
    let ring = read_json(&s.ring);
    let stream_key = ring["keys"]["0"].as_str().unwrap();
    let wrap_text = std::fs::read_to_string(&s.wrap).unwrap();
    let wrap = json(&wrap_text);
    assert_eq!(wrap["keyGeneration"], 0);
    assert_eq!(wrap["recipientKind"], "user");
    assert_eq!(wrap["recipientKeyId"], "bob");
    assert!(
        !wrap_text.contains(stream_key),
        "the wrap holds the key in clear"
    );
    // Bob's keyring holds the owner's key.
    assert_eq!(read_json(&s.bob_ring), ring);
    // Unwrap without --keyring prints the keyring; with the wrap on stdin.
    let printed = ok(cli()
        .args(["unwrap", "--root", ROOT, "--wrap", "-", "--key"])
        .arg(&s.bob)
        .args(["--from-kind", "user", "--from-key-id", "alice"])
        .args(["--from-public-key", &s.alice_public])
        .write_stdin(wrap_text.clone()));
    assert_eq!(json(&printed), ring);
    // An explicit generation that exists.
    ok(cli()
        .args([
            "wrap",
            "--generation",
            "0",
            "--to-kind",
            "bot",
            "--to-key-id",
            "m",
            "--keyring",
        ])
        .arg(&s.ring)
        .arg("--from")
        .arg(&s.alice)
        .args(["--to-public-key", &s.bob_public]));
    // Wrap format 2 authenticates the sender: the same stream key wrapped
    // twice gives different records (fresh ephemeral keys), both opening.
    let again = ok(cli()
        .args([
            "wrap",
            "--to-kind",
            "user",
            "--to-key-id",
            "bob",
            "--keyring",
        ])
        .arg(&s.ring)
        .arg("--from")
        .arg(&s.alice)
        .args(["--to-public-key", &s.bob_public]));
    assert_ne!(json(&again)["wrapEnc"], wrap["wrapEnc"]);
    let again = write(s.dir.path(), "again.json", &again);
    let printed = ok(&mut unwrap_from(
        &s.bob,
        &again,
        ["user", "alice", &s.alice_public],
    ));
    assert_eq!(json(&printed), ring);
}

#[test]
fn unwrap_accepts_only_the_named_sender() {
    let s = setup();
    let dir = s.dir.path();
    // Eve (the server, say) wraps a key of her own choosing to bob, even
    // under alice's key id: bob accepts alice's key only.
    let eve_dir = TempDir::new().unwrap();
    let eve = keygen(eve_dir.path(), "user", "alice");
    let eve_public = read_json(&eve)["publicKey"].as_str().unwrap().to_owned();
    let eve_ring = dir.join("eve-ring.json");
    ok(cli()
        .args(["keyring", "new", "--root", ROOT, "--out"])
        .arg(&eve_ring));
    let forged = ok(cli()
        .args([
            "wrap",
            "--to-kind",
            "user",
            "--to-key-id",
            "bob",
            "--keyring",
        ])
        .arg(&eve_ring)
        .arg("--from")
        .arg(&eve)
        .args(["--to-public-key", &s.bob_public]));
    let forged = write(dir, "forged.json", &forged);
    let before = std::fs::read_to_string(&s.bob_ring).unwrap();
    let line = fails(
        unwrap_from(&s.bob, &forged, ["user", "alice", &s.alice_public])
            .arg("--keyring")
            .arg(&s.bob_ring),
        "UNTRUSTED_WRAP",
    );
    assert!(!line.contains(&s.alice_public), "{line}");
    assert_eq!(std::fs::read_to_string(&s.bob_ring).unwrap(), before);
    // Accepting eve's key instead opens it: what decides is the key accepted.
    ok(&mut unwrap_from(
        &s.bob,
        &forged,
        ["user", "alice", &eve_public],
    ));
    // The genuine wrap, presented as from anyone else, does not open: another
    // public key, key id or kind than the one bound into the wrap.
    for from in [
        ["user", "alice", eve_public.as_str()],
        ["user", "alice-2", s.alice_public.as_str()],
        ["bot", "alice", s.alice_public.as_str()],
        ["user", "bob", s.bob_public.as_str()],
    ] {
        fails(&mut unwrap_from(&s.bob, &s.wrap, from), "UNTRUSTED_WRAP");
    }
    // A bad sender is refused before anything is opened.
    fails(
        &mut unwrap_from(&s.bob, &s.wrap, ["user", "alice", &"A".repeat(43)]),
        "INVALID_LENGTH",
    );
    fails(
        &mut unwrap_from(&s.bob, &s.wrap, ["user", "alice", &"!".repeat(44)]),
        "MALFORMED_BASE64",
    );
    fails(
        &mut unwrap_from(&s.bob, &s.wrap, ["user", "", &s.alice_public]),
        "INVALID_LENGTH",
    );
}

#[test]
fn wrap_and_unwrap_bad_inputs() {
    let s = setup();
    let dir = s.dir.path();
    let wrap_to = |public: &str| {
        let mut cmd = cli();
        cmd.args([
            "wrap",
            "--to-kind",
            "user",
            "--to-key-id",
            "bob",
            "--keyring",
        ])
        .arg(&s.ring)
        .arg("--from")
        .arg(&s.alice)
        .args(["--to-public-key", public]);
        cmd
    };
    let line = fails(&mut wrap_to(&"A".repeat(45)), "INVALID_LENGTH");
    assert!(line.contains("45"), "{line}");
    fails(&mut wrap_to(&"A".repeat(43)), "INVALID_LENGTH");
    fails(&mut wrap_to(&"!".repeat(44)), "MALFORMED_BASE64");
    fails(
        cli()
            .args(["wrap", "--to-kind", "user", "--to-key-id", "", "--keyring"])
            .arg(&s.ring)
            .arg("--from")
            .arg(&s.alice)
            .args(["--to-public-key", &s.bob_public]),
        "INVALID_LENGTH",
    );
    fails(
        cli()
            .args([
                "wrap",
                "--generation",
                "5",
                "--to-kind",
                "user",
                "--to-key-id",
                "bob",
                "--keyring",
            ])
            .arg(&s.ring)
            .arg("--from")
            .arg(&s.alice)
            .args(["--to-public-key", &s.bob_public]),
        "UNKNOWN_KEY_GENERATION",
    );

    let alice = ["user", "alice", s.alice_public.as_str()];
    // Another root stream: the wrap does not open.
    fails(
        cli()
            .args(["unwrap", "--root", "stream_other", "--key"])
            .arg(&s.bob)
            .arg("--wrap")
            .arg(&s.wrap)
            .args(["--from-kind", "user", "--from-key-id", "alice"])
            .args(["--from-public-key", &s.alice_public]),
        "UNTRUSTED_WRAP",
    );
    // Another key.
    let eve = keygen(dir, "user", "eve");
    fails(&mut unwrap_from(&eve, &s.wrap, alice), "NO_MATCHING_KEY");
    // A keyring file of another root stream is left alone.
    let other_ring = dir.join("other-ring.json");
    ok(cli()
        .args(["keyring", "new", "--root", "stream_other", "--out"])
        .arg(&other_ring));
    let before = std::fs::read_to_string(&other_ring).unwrap();
    fails(
        unwrap_from(&s.bob, &s.wrap, alice)
            .arg("--keyring")
            .arg(&other_ring),
        "USAGE",
    );
    assert_eq!(std::fs::read_to_string(&other_ring).unwrap(), before);

    let garbage = write(dir, "garbage.json", "{not json");
    let empty = write(dir, "empty.json", "{}");
    let missing = dir.join("missing.json");
    let unwrap = |key: &Path, wrap: &Path| unwrap_from(key, wrap, alice);
    fails(&mut unwrap(&s.bob, &garbage), "MALFORMED_JSON");
    fails(&mut unwrap(&s.bob, &empty), "MALFORMED_JSON");
    fails(&mut unwrap(&s.bob, &missing), "IO");
    fails(&mut unwrap(&garbage, &s.wrap), "MALFORMED_JSON");
    fails(&mut unwrap(&empty, &s.wrap), "INVALID_FIELD");
    fails(&mut unwrap(&missing, &s.wrap), "IO");
    for ring in [
        (&garbage, "MALFORMED_JSON"),
        (&empty, "INVALID_FIELD"),
        (&missing, "IO"),
    ] {
        fails(
            cli()
                .args([
                    "wrap",
                    "--to-kind",
                    "user",
                    "--to-key-id",
                    "bob",
                    "--keyring",
                ])
                .arg(ring.0)
                .arg("--from")
                .arg(&s.alice)
                .args(["--to-public-key", &s.bob_public]),
            ring.1,
        );
    }
    // The sender's key file: garbage, empty, missing, a bundle record.
    for (from, code) in [
        (&garbage, "MALFORMED_JSON"),
        (&empty, "INVALID_FIELD"),
        (&missing, "IO"),
    ] {
        fails(
            cli()
                .args([
                    "wrap",
                    "--to-kind",
                    "user",
                    "--to-key-id",
                    "bob",
                    "--keyring",
                ])
                .arg(&s.ring)
                .arg("--from")
                .arg(from)
                .args(["--to-public-key", &s.bob_public]),
            code,
        );
    }
    // A keyring file whose currentGeneration is not its newest key: an
    // older one (an edit trying to seal under a key a removed member holds)
    // or a newer one it lacks.
    let mut ring = read_json(&s.ring);
    ring["keys"]["1"] = ring["keys"]["0"].clone();
    for current in [0, 2] {
        ring["currentGeneration"] = Value::from(current);
        let edited = write(dir, "edited.json", &ring.to_string());
        let line = fails(
            seal_as(&edited, &s.alice, "usr_1", SLOT).args(["--text", "x"]),
            "INVALID_FIELD",
        );
        assert!(line.contains("currentGeneration"), "{line}");
    }
    ring["currentGeneration"] = Value::from(1);
    let edited = write(dir, "edited.json", &ring.to_string());
    let sealed = json(&ok(
        seal_as(&edited, &s.alice, "usr_1", SLOT).args(["--text", "x"])
    ));
    assert_eq!(sealed["envelope"]["keyGeneration"], 1);
}

#[test]
fn seal_and_open() {
    let s = setup();
    let alice = ["user", "alice", s.alice_public.as_str()];
    let plaintext = "ship it on Thursday";
    let sealed = ok(seal_as(&s.ring, &s.alice, "usr_1", SLOT).args(["--text", plaintext]));
    assert!(!sealed.contains(plaintext));
    let sealed_json = json(&sealed);
    // Envelope version 2, in the spec's four envelope fields.
    assert_eq!(sealed_json["envelope"]["v"], 2);
    assert_eq!(sealed_json["envelope"]["keyGeneration"], 0);
    let mut fields: Vec<&String> = sealed_json["envelope"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    fields.sort();
    assert_eq!(fields, ["aad", "iv", "keyGeneration", "v"]);
    // The ciphertext: the key commitment (32 bytes), then AES-GCM over the
    // signature (64 bytes) and the text, and the tag (16 bytes).
    let ciphertext = sealed_json["ciphertext"].as_str().unwrap();
    assert_eq!(
        ciphertext.len(),
        (32 + 64 + plaintext.len() + 16).div_ceil(3) * 4
    );
    let sealed_path = write(s.dir.path(), "sealed.json", &sealed);

    // Bob opens it, accepting alice's key as usr_1's: the plaintext on
    // stdout, who sealed it on stderr, unverified (a key from the command line).
    let (out, plain, said) = run(open_from(&s.bob_ring, SLOT, alice)
        .arg("--sealed")
        .arg(&sealed_path));
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(plain, format!("{plaintext}\n"));
    assert_eq!(
        said,
        "sealed by usr_1 (user key `alice`, generation 0): unverified\n"
    );
    // Once bob verified alice's key: verified; as JSON.
    let opened = json(&ok(open_from(&s.bob_ring, SLOT, alice)
        .args(["--verified", "--json", "--sealed"])
        .arg(&sealed_path)));
    assert_eq!(
        opened,
        serde_json::json!({
            "text": plaintext,
            "keyGeneration": 0,
            "sealedBy": {"subject": "usr_1", "kind": "user", "keyId": "alice", "status": "verified"},
        })
    );
    // The subject named explicitly, the same as the slot's author.
    ok(open_from(&s.bob_ring, SLOT, alice)
        .args(["--from-subject", "usr_1", "--sealed"])
        .arg(&sealed_path));

    // The plaintext from stdin, the slot from a file, the payload on stdin.
    let slot_file = write(s.dir.path(), "slot.json", SLOT);
    let slot_arg = format!("@{}", slot_file.display());
    let sealed =
        ok(seal_as(&s.ring, &s.alice, "usr_1", &slot_arg).write_stdin("from standard input"));
    let plain = ok(open_from(&s.ring, &slot_arg, alice).write_stdin(sealed));
    assert_eq!(plain, "from standard input\n");

    // A slot that names no author: the sender is named with --from-subject.
    let step = ok(seal_as(&s.ring, &s.bob, "bot_1", STEP_SLOT).args(["--text", "thinking"]));
    let bob = ["user", "bob", s.bob_public.as_str()];
    let step_path = write(s.dir.path(), "step.json", &step);
    fails(
        open_from(&s.ring, STEP_SLOT, bob)
            .arg("--sealed")
            .arg(&step_path),
        "USAGE",
    );
    let (out, plain, said) = run(open_from(&s.ring, STEP_SLOT, bob)
        .args(["--from-subject", "bot_1", "--sealed"])
        .arg(&step_path));
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert_eq!(plain, "thinking\n");
    assert!(
        said.starts_with("sealed by bot_1 (user key `bob`"),
        "{said}"
    );
}

/// Envelope version 2 says who sealed: a key holder can seal, only as
/// itself.
#[test]
fn open_accepts_only_the_named_sender() {
    let s = setup();
    let dir = s.dir.path();
    let alice = ["user", "alice", s.alice_public.as_str()];
    // Eve holds the stream key too (bob's keyring) and seals as usr_1, with
    // a key of her own under alice's key id.
    let eve_dir = TempDir::new().unwrap();
    let eve = keygen(eve_dir.path(), "user", "alice");
    let eve_public = read_json(&eve)["publicKey"].as_str().unwrap().to_owned();
    let forged = ok(seal_as(&s.bob_ring, &eve, "usr_1", SLOT).args(["--text", "wire it all"]));
    let forged = write(dir, "forged.json", &forged);
    let line = fails(
        open_from(&s.ring, SLOT, alice).arg("--sealed").arg(&forged),
        "SENDER_MISMATCH",
    );
    assert!(!line.contains("wire it all"), "{line}");
    // Accepting eve's key instead opens it: what decides is the key accepted.
    assert_eq!(
        ok(open_from(&s.ring, SLOT, ["user", "alice", &eve_public])
            .arg("--sealed")
            .arg(&forged)),
        "wire it all\n"
    );
    // Under her own key id, the key accepted is not the one named: unknown.
    let eve_own = keygen(eve_dir.path(), "user", "eve");
    let named = ok(seal_as(&s.bob_ring, &eve_own, "usr_1", SLOT).args(["--text", "x"]));
    let named = write(dir, "named.json", &named);
    fails(
        open_from(&s.ring, SLOT, alice).arg("--sealed").arg(&named),
        "UNKNOWN_KEY",
    );
    // Alice's own payload, accepted as anyone else's: another subject, key
    // id, kind or public key than the one that signed.
    let sealed = ok(seal_as(&s.ring, &s.alice, "usr_1", SLOT).args(["--text", "x"]));
    let sealed = write(dir, "sealed.json", &sealed);
    for (from, subject, code) in [
        (alice, "usr_2", "UNKNOWN_KEY"),
        (["user", "alice-2", &s.alice_public], "usr_1", "UNKNOWN_KEY"),
        (
            ["bot", "alice", &s.alice_public],
            "usr_1",
            "SENDER_MISMATCH",
        ),
        (["user", "alice", &eve_public], "usr_1", "SENDER_MISMATCH"),
    ] {
        fails(
            open_from(&s.ring, SLOT, from)
                .args(["--from-subject", subject, "--sealed"])
                .arg(&sealed),
            code,
        );
    }
    // Sealing in another author's name: the slot's author must be the signer.
    fails(
        seal_as(&s.ring, &s.alice, "usr_2", SLOT).args(["--text", "x"]),
        "INVALID_FIELD",
    );
    fails(
        seal_as(&s.ring, &s.alice, "", SLOT).args(["--text", "x"]),
        "INVALID_LENGTH",
    );
}

/// Every envelope of the golden vectors opens through the CLI, with the
/// vector's stream key and its sender's public key.
#[test]
fn open_reads_the_golden_vectors() {
    let dir = TempDir::new().unwrap();
    let file = read_json(&repo().join("tests/vectors/streamseal/envelopes.json"));
    let vectors = file["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 5);
    for v in vectors {
        let key = hex_to_base64(v["streamKeyHex"].as_str().unwrap());
        let generation = v["keyGeneration"].as_u64().unwrap();
        let ring = serde_json::json!({
            "rootStreamId": v["rootStreamId"],
            "currentGeneration": generation,
            "keys": { generation.to_string(): key },
        });
        let ring = write(dir.path(), "ring.json", &ring.to_string());
        let sealed = write(dir.path(), "sealed.json", &v["sealed"].to_string());
        let opened = json(&ok(cli()
            .args([
                "open",
                "--json",
                "--slot",
                &v["slot"].to_string(),
                "--keyring",
            ])
            .arg(&ring)
            .arg("--sealed")
            .arg(&sealed)
            .args(["--from-subject", v["senderSubject"].as_str().unwrap()])
            .args(["--from-kind", v["senderKind"].as_str().unwrap()])
            .args(["--from-key-id", v["senderKeyId"].as_str().unwrap()])
            .args(["--from-public-key", v["senderPublicKey"].as_str().unwrap()])));
        let name = v["name"].as_str().unwrap();
        assert_eq!(opened["text"], v["plaintext"], "{name}");
        assert_eq!(opened["keyGeneration"], v["keyGeneration"], "{name}");
        assert_eq!(opened["sealedBy"]["subject"], v["senderSubject"], "{name}");
        assert_eq!(opened["sealedBy"]["keyId"], v["senderKeyId"], "{name}");
        assert_eq!(opened["sealedBy"]["status"], "unverified", "{name}");
    }
}

/// Padded standard base64 of a hex string (test inputs only).
fn hex_to_base64(hex: &str) -> String {
    let bytes: Vec<u8> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    streamseal::encoding::encode_base64(&bytes)
}

#[test]
fn seal_and_open_bad_inputs() {
    let s = setup();
    let dir = s.dir.path();
    let alice = ["user", "alice", s.alice_public.as_str()];
    let sealed = ok(seal_as(&s.ring, &s.alice, "usr_1", SLOT).args(["--text", "ship it"]));
    let sealed_path = write(dir, "sealed.json", &sealed);
    let open = |slot: &str, ring: &Path, sealed: &Path| {
        let mut cmd = open_from(ring, slot, alice);
        cmd.args(["--from-subject", "usr_1", "--sealed"])
            .arg(sealed);
        cmd
    };

    // Any other slot: the payload is bound to its own.
    for other in [
        SLOT.replace("\"revision\":1", "\"revision\":2"),
        SLOT.replace("usr_1", "usr_2"),
        SLOT.replace("\"authorType\":\"user\"", "\"authorType\":\"bot\""),
        SLOT.replace(
            "msg_01JD3QH2A7C4E6G8J0K2M4P6R8",
            "msg_01JD3QH2A7C4E6G8J0K2M4P6R9",
        ),
        SLOT.replace(ROOT, "stream_01JD3QJ5THREAD00000000000A"),
    ] {
        let line = fails(&mut open(&other, &s.bob_ring, &sealed_path), "AAD_MISMATCH");
        assert!(!line.contains("ship it"));
    }
    // A keyring without the payload's generation.
    let stranger = dir.join("stranger.json");
    ok(cli()
        .args(["keyring", "new", "--root", ROOT, "--out"])
        .arg(&stranger));
    let mut ring = read_json(&stranger);
    ring["keys"] = serde_json::json!({ "3": ring["keys"]["0"].clone() });
    ring["currentGeneration"] = Value::from(3);
    let stranger = write(dir, "stranger3.json", &ring.to_string());
    fails(
        &mut open(SLOT, &stranger, &sealed_path),
        "UNKNOWN_KEY_GENERATION",
    );
    // A version-1 envelope (no signature, no commitment) is not read.
    let mut v1 = json(&sealed);
    v1["envelope"]["v"] = Value::from(1);
    let v1 = write(dir, "v1.json", &v1.to_string());
    fails(
        &mut open(SLOT, &s.bob_ring, &v1),
        "UNSUPPORTED_ENVELOPE_VERSION",
    );
    // A bad accepted sender is refused before anything is opened.
    let (short, not_base64) = ("A".repeat(43), "!".repeat(44));
    for (from, code) in [
        (["user", "alice", short.as_str()], "INVALID_LENGTH"),
        (["user", "alice", not_base64.as_str()], "MALFORMED_BASE64"),
        (["user", "", s.alice_public.as_str()], "INVALID_LENGTH"),
    ] {
        fails(
            open_from(&s.bob_ring, SLOT, from)
                .arg("--sealed")
                .arg(&sealed_path),
            code,
        );
    }

    let garbage = write(dir, "garbage.json", "{not json");
    let empty = write(dir, "empty.json", "{}");
    let missing = dir.join("missing.json");
    fails(&mut open(SLOT, &s.bob_ring, &garbage), "MALFORMED_JSON");
    fails(&mut open(SLOT, &s.bob_ring, &empty), "MALFORMED_JSON");
    fails(&mut open(SLOT, &s.bob_ring, &missing), "IO");
    fails(&mut open(SLOT, &garbage, &sealed_path), "MALFORMED_JSON");
    fails(&mut open(SLOT, &empty, &sealed_path), "INVALID_FIELD");
    fails(&mut open(SLOT, &missing, &sealed_path), "IO");
    fails(&mut open("{", &s.bob_ring, &sealed_path), "MALFORMED_JSON");
    fails(&mut open("{}", &s.bob_ring, &sealed_path), "MALFORMED_JSON");
    let missing_slot = format!("@{}", missing.display());
    fails(&mut open(&missing_slot, &s.bob_ring, &sealed_path), "IO");

    let seal = |slot: &str, ring: &Path, from: &Path| {
        let mut cmd = seal_as(ring, from, "usr_1", slot);
        cmd.args(["--text", "x"]);
        cmd
    };
    fails(&mut seal(SLOT, &garbage, &s.alice), "MALFORMED_JSON");
    fails(&mut seal(SLOT, &empty, &s.alice), "INVALID_FIELD");
    fails(&mut seal(SLOT, &missing, &s.alice), "IO");
    fails(
        &mut seal(SLOT, Path::new("/nonexistent/ring.json"), &s.alice),
        "IO",
    );
    fails(&mut seal("{not json", &s.ring, &s.alice), "MALFORMED_JSON");
    fails(&mut seal(&missing_slot, &s.ring, &s.alice), "IO");
    // The sender's key file: garbage, empty, missing.
    fails(&mut seal(SLOT, &s.ring, &garbage), "MALFORMED_JSON");
    fails(&mut seal(SLOT, &s.ring, &empty), "INVALID_FIELD");
    fails(&mut seal(SLOT, &s.ring, &missing), "IO");
    let mut bad_key = read_json(&s.ring);
    bad_key["keys"]["0"] = Value::from("AAAA");
    let bad_key = write(dir, "bad-key.json", &bad_key.to_string());
    fails(&mut seal(SLOT, &bad_key, &s.alice), "INVALID_LENGTH");
}

// ---------------------------------------------------------------- inspect

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
fn serve_refuses_an_unknown_attack_and_version_before_binding() {
    let line = fails(
        cli().args([
            "serve",
            "--port",
            "0",
            "--hostile",
            "mint-generation,steal-keys",
        ]),
        "USAGE",
    );
    assert!(
        line.contains("steal-keys") && line.contains("forge-prompt"),
        "{line}"
    );
    fails(
        cli().args(["serve", "--port", "0", "--pin", "2026-01-01"]),
        "INVALID_FIELD",
    );
}

/// `demo --server`: the demo over real HTTP against `streamseal serve`,
/// its attacks refused with their codes, no plaintext in any body.
#[test]
fn the_demo_runs_over_http_against_serve() {
    use std::io::BufRead;
    let mut serve = std::process::Command::new(assert_cmd::cargo::cargo_bin("streamseal"))
        .args(["serve", "--port", "0", "--rate-limit", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = json(&line)["baseUrl"].as_str().unwrap().to_owned();
    let out = cli().args(["demo", "--server", &base, "--json"]).output();
    serve.kill().unwrap();
    serve.wait().unwrap();
    let out = out.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let transcript = json(&String::from_utf8_lossy(&out.stdout));
    assert_eq!(transcript["plaintextLeaks"], 0);
    let refused: Vec<&str> = transcript["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["refused"]["code"].as_str())
        .collect();
    assert_eq!(
        refused,
        [
            "UNKNOWN_KEY_GENERATION",
            "SEALED_STREAM_DOWNGRADE",
            "UNKNOWN_KEY_GENERATION"
        ]
    );
    let reads: Vec<&str> = transcript["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["read"]["text"].as_str())
        .collect();
    assert!(
        reads.iter().any(|r| r.starts_with("Before shipping")),
        "{reads:?}"
    );
}
