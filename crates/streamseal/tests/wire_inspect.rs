#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
//! `wire::inspect` over the spec fixtures: each reads as its kind, version
//! shapes are named from the fields that differ by version, and bound
//! violations are all reported.

use streamseal::ErrorCode;
use streamseal::wire::inspect::{WireKind, detect, inspect};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/../../tests/fixtures/wire/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn fixtures_read_as_their_kind_with_their_version_shape() {
    for (file, kind, shape) in [
        ("stream_2026-07-12.json", "stream", "2026-07-12"),
        ("stream_2026-07-22.json", "stream", "2026-07-22 or later"),
        (
            "message_list_2026-07-12.json",
            "message-list",
            "before 2026-07-24 (no slots)",
        ),
        (
            "message_list_2026-07-24.json",
            "message-list",
            "2026-07-24 or later",
        ),
        ("message_list_2026-08-21.json", "message-list", "2026-08-21"),
        (
            "claim_sealed.json",
            "claim-response",
            "any version (no field that differs by version)",
        ),
        (
            "key_wraps.json",
            "key-wraps",
            "any version (no field that differs by version)",
        ),
        (
            "own_key.json",
            "own-key",
            "any version (no field that differs by version)",
        ),
        (
            "event_decision_resolved.json",
            "decision-resolved",
            "any version (no field that differs by version)",
        ),
        (
            "error_validation.json",
            "error-body",
            "any version (no field that differs by version)",
        ),
        (
            "me_user.json",
            "me",
            "any version (no field that differs by version)",
        ),
    ] {
        let report = inspect(WireKind::parse(kind).unwrap(), &fixture(file))
            .unwrap_or_else(|e| panic!("{file} as {kind}: {e}"));
        assert_eq!(report.version_shape, shape, "{file}");
        assert!(report.violations.is_empty(), "{file}");
        assert!(!report.pretty.is_empty());
    }
}

#[test]
fn every_violation_is_reported_and_garbage_is_malformed() {
    let body = r#"{"runtimeKind":"alpha-local","instanceId":"","status":"available",
        "acceptingInvocations":true,"capabilities":{},"publicKey":"short","statusText":"ok"}"#;
    let report = inspect(WireKind::parse("presence-request").unwrap(), body).unwrap();
    assert_eq!(
        report
            .violations
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        vec!["instanceId", "publicKey"]
    );
    for garbage in ["", "{", "[1,2]", "{\"runtimeKind\": 5}"] {
        let e = inspect(WireKind::parse("presence-request").unwrap(), garbage).unwrap_err();
        assert_eq!(e.code(), ErrorCode::MalformedJson, "{garbage:?}");
    }
}

#[test]
fn kinds_have_unique_names_and_detect_finds_the_right_one() {
    let mut names: Vec<&str> = WireKind::ALL.iter().map(|k| k.name()).collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count);
    for k in WireKind::ALL {
        assert_eq!(WireKind::parse(k.name()), Some(*k));
    }
    let best = detect(&fixture("key_wraps.json"));
    assert_eq!(best.first().map(|i| i.kind.name()), Some("key-wraps"));
    let best = detect(&fixture("event_e2e_revoke.json"));
    assert_eq!(best.first().map(|i| i.kind.name()), Some("e2e-revoke"));
    assert!(detect("not json").is_empty());
}
