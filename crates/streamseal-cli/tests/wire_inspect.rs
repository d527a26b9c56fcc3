#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
//! `streamseal_cli::wire_inspect` over the spec fixtures: each reads as its
//! kind (by name and by detection), version shapes are named from the
//! version model, every bound violation is reported, and unparsable input
//! is `MALFORMED_JSON`.

use streamseal::ErrorCode;
use streamseal::wire::requests::Validate;
use streamseal::wire::requests::invocation::ClaimRequest;
use streamseal::wire::version::ApiVersion;
use streamseal_cli::wire_inspect::{Inspection, WireKind, detect, inspect};

fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/wire")
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(fixture_dir().join(name)).unwrap()
}

fn kind(name: &str) -> WireKind {
    WireKind::parse(name).unwrap_or_else(|| panic!("no kind {name}"))
}

/// Every fixture file and the kind it is.
const FIXTURES: &[(&str, &str)] = &[
    ("attachment_search.json", "attachment-search-results"),
    ("attachment_upload.json", "attachment"),
    ("bots_2026-07-12.json", "bot-list"),
    ("bots_2026-08-21.json", "bot-list"),
    ("brief_created.json", "brief-created"),
    ("claim_empty.json", "claim-response"),
    ("claim_plain.json", "claim-response"),
    ("claim_sealed.json", "claim-response"),
    ("conversation_page.json", "conversation-page"),
    ("delegation_claim.json", "delegation-claim"),
    (
        "delegation_complete_2026-07-12.json",
        "delegation-completion",
    ),
    (
        "delegation_complete_2026-07-22.json",
        "delegation-completion",
    ),
    ("delegation_get.json", "delegation-detail"),
    ("delegation_heartbeat.json", "delegation-heartbeat"),
    ("delegation_list.json", "delegation-list"),
    ("delegation_list_last_page.json", "delegation-list"),
    ("error_delegation_not_open.json", "error-body"),
    ("error_invalid_api_version.json", "error-body"),
    ("error_rate_limited.json", "rate-limit-body"),
    ("error_validation.json", "error-body"),
    ("event_decision_resolved.json", "decision-resolved"),
    ("event_decision_resolved_no_note.json", "decision-resolved"),
    ("event_e2e_revoke.json", "e2e-revoke"),
    ("event_hello_ack.json", "hello-ack"),
    ("event_sealed_steps.json", "sealed-steps-event"),
    (
        "invocation_completed_2026-07-12.json",
        "invocation-completed",
    ),
    (
        "invocation_completed_2026-08-21.json",
        "invocation-completed",
    ),
    (
        "invocation_completed_flat_2026-08-21.json",
        "invocation-completed",
    ),
    (
        "invocation_completed_none_2026-07-24.json",
        "invocation-completed",
    ),
    (
        "invocation_message_posted.json",
        "invocation-message-posted",
    ),
    ("key_wraps.json", "key-wraps"),
    ("key_wraps_stored.json", "key-wraps-stored"),
    ("label_assigned.json", "label-assigned"),
    ("label_updated.json", "label"),
    ("me_bot.json", "me"),
    ("me_user.json", "me"),
    ("member_page.json", "member-page"),
    ("memo_get.json", "memo"),
    ("memo_get_flat.json", "memo"),
    ("memo_search.json", "memo-search-results"),
    ("memo_search_flat.json", "memo-search-results"),
    ("message_list_2026-07-12.json", "message-list"),
    ("message_list_2026-07-24.json", "message-list"),
    ("message_list_2026-08-21.json", "message-list"),
    ("message_search_2026-07-12.json", "message-search-results"),
    ("message_search_2026-08-21.json", "message-search-results"),
    ("message_send_2026-07-22.json", "message-response"),
    ("message_send_2026-08-21.json", "message-response"),
    ("messages_found_2026-07-24.json", "messages-found"),
    ("own_key.json", "own-key"),
    ("owner_key.json", "owner-key"),
    ("presence.json", "presence"),
    ("renew_basic.json", "renew-result"),
    ("renew_with_revision.json", "renew-result"),
    ("sealed_message_posted.json", "sealed-message-posted"),
    ("session_end.json", "session-ended"),
    ("session_link.json", "session-link"),
    ("stream_2026-07-12.json", "stream"),
    ("stream_2026-07-22.json", "stream"),
    ("stream_page_2026-07-12.json", "stream-page"),
    ("stream_page_2026-08-21.json", "stream-page"),
    ("unknown_fields_claim_sealed.json", "claim-response"),
    ("unknown_fields_memo_get.json", "memo"),
    (
        "unknown_fields_message_list_2026-08-21.json",
        "message-list",
    ),
    ("webhook_accepted.json", "webhook-accepted"),
];

fn inspect_fixture(file: &str) -> Inspection {
    let (_, name) = FIXTURES.iter().find(|(f, _)| *f == file).unwrap();
    inspect(kind(name), &fixture(file)).unwrap_or_else(|e| panic!("{file} as {name}: {e}"))
}

/// The version a fixture's file name says it is, if any.
fn named_version(file: &str) -> Option<ApiVersion> {
    let stem = file.strip_suffix(".json")?;
    let date = stem.get(stem.len().checked_sub(10)?..)?;
    ApiVersion::parse(date).ok()
}

#[test]
fn every_fixture_is_mapped_to_a_kind() {
    let mut files: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|f| f.ends_with(".json"))
        .collect();
    files.sort();
    let mapped: Vec<&str> = FIXTURES.iter().map(|(f, _)| *f).collect();
    assert_eq!(files, mapped);
}

#[test]
fn every_fixture_inspects_as_its_kind() {
    for (file, name) in FIXTURES {
        let report = inspect_fixture(file);
        assert_eq!(report.kind, kind(name), "{file}");
        assert!(!report.kind.is_request(), "{file}");
        assert!(report.violations.is_empty(), "{file}: {report:?}");
        // The pretty form is JSON, and reads again as the same kind.
        let again = inspect(report.kind, &report.pretty)
            .unwrap_or_else(|e| panic!("{file} pretty form: {e}"));
        assert_eq!(again.pretty, report.pretty, "{file}");
        assert_eq!(again.versions, report.versions, "{file}");
    }
}

#[test]
fn detect_ranks_every_fixture_as_its_kind() {
    for (file, name) in FIXTURES {
        let found = detect(&fixture(file));
        let ranked: Vec<&str> = found.iter().map(|i| i.kind.name()).collect();
        assert_eq!(ranked.first(), Some(name), "{file}: {ranked:?}");
        assert_eq!(found[0], inspect_fixture(file), "{file}");
    }
}

#[test]
fn version_shapes_of_the_versioned_fixtures() {
    for (file, shape) in [
        ("stream_2026-07-12.json", "2026-07-12"),
        ("stream_2026-07-22.json", "2026-07-22 or later"),
        ("stream_page_2026-07-12.json", "2026-07-12"),
        ("stream_page_2026-08-21.json", "2026-07-22 or later"),
        ("message_list_2026-07-12.json", "2026-07-22 or earlier"),
        ("message_list_2026-07-24.json", "2026-07-24 or later"),
        ("message_list_2026-08-21.json", "2026-08-21"),
        ("message_search_2026-07-12.json", "2026-07-22 or earlier"),
        ("message_search_2026-08-21.json", "2026-08-21"),
        ("message_send_2026-07-22.json", "2026-07-22 or earlier"),
        // Empty slots: 2026-07-24 and 2026-08-21 look the same.
        ("message_send_2026-08-21.json", "2026-07-24 or later"),
        ("messages_found_2026-07-24.json", "2026-07-24 or later"),
        (
            "invocation_completed_2026-07-12.json",
            "2026-07-22 or earlier",
        ),
        ("invocation_completed_2026-08-21.json", "2026-08-21"),
        (
            "invocation_completed_none_2026-07-24.json",
            "2026-07-24 or later",
        ),
        // Same fields in every version (see `versioned`).
        ("delegation_complete_2026-07-12.json", "any"),
        ("delegation_complete_2026-07-22.json", "any"),
        ("bots_2026-07-12.json", "any"),
        ("claim_sealed.json", "any"),
        ("me_user.json", "any"),
        ("event_decision_resolved.json", "any"),
    ] {
        assert_eq!(inspect_fixture(file).version_shape, shape, "{file}");
    }
    // Whatever a file's name says, its version is among the shapes found.
    for (file, _) in FIXTURES {
        if let Some(version) = named_version(file) {
            let report = inspect_fixture(file);
            assert!(report.versions.contains(&version), "{file}: {report:?}");
        }
    }
}

#[test]
fn pretty_keeps_the_fields_of_the_documents_own_version() {
    let old = inspect_fixture("stream_2026-07-12.json").pretty;
    assert!(old.contains("\"parentMessageId\": \"msg_01J80000000000000000000020\""));
    assert!(!old.contains("anchorId"));
    assert!(old.trim_start().starts_with("{\n  \"data\": {"), "{old}");
    let pinned = inspect_fixture("message_list_2026-08-21.json").pretty;
    assert!(pinned.contains("shared:msg_01J80000000000000000000023@2:4-18"));
    assert!(pinned.contains("\"currentRevision\": 3"));
    let unslotted = inspect_fixture("message_list_2026-07-12.json").pretty;
    assert!(!unslotted.contains("slots"));
}

#[test]
fn a_document_mixing_versions_has_no_version_shape() {
    // `anchorId` (2026-07-22 on) next to `parentMessageId` (2026-07-12).
    let mixed = fixture("stream_2026-07-12.json").replace(
        "\"parentMessageId\"",
        "\"anchorId\": \"msg_01J80000000000000000000020\", \"parentMessageId\"",
    );
    let report = inspect(kind("stream"), &mixed).unwrap();
    assert!(report.versions.is_empty());
    assert!(report.version_shape.starts_with("none"), "{report:?}");
}

#[test]
fn every_violation_is_reported_as_validate_reports_it() {
    let body = r#"{"runtimeKind":"custom","instanceId":"","supportedCapabilities":[],"claimTtlSeconds":301}"#;
    let report = inspect(kind("claim-request"), body).unwrap();
    assert!(report.kind.is_request());
    assert_eq!(
        report
            .violations
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["claimTtlSeconds", "instanceId"]
    );
    let expected = serde_json::from_str::<ClaimRequest>(body)
        .unwrap()
        .validate()
        .unwrap_err();
    assert_eq!(Some(&report.violations), expected.details());
    assert!(report.pretty.contains("\"claimTtlSeconds\": 301"));
    assert_eq!(report.version_shape, "any");

    let body = r#"{"runtimeKind":"alpha-local","instanceId":"","status":"available",
        "acceptingInvocations":true,"capabilities":{},"publicKey":"short","statusText":"ok"}"#;
    let report = inspect(kind("presence-request"), body).unwrap();
    assert_eq!(
        report
            .violations
            .keys()
            .map(String::as_str)
            .collect::<Vec<_>>(),
        ["instanceId", "publicKey"]
    );
    // A body within bounds reports nothing.
    let ok = r#"{"runtimeKind":"custom","instanceId":"machine-a","supportedCapabilities":["mentionable"],"claimTtlSeconds":60}"#;
    assert!(
        inspect(kind("claim-request"), ok)
            .unwrap()
            .violations
            .is_empty()
    );
    // Any JSON is a compat webhook payload, but only an object is within bounds.
    let report = inspect(kind("compat-webhook-payload"), "[1]").unwrap();
    assert!(report.violations.contains_key("payload"));
}

#[test]
fn unparsable_documents_are_malformed_json() {
    for garbage in ["", "{", "not json", "[1,2]", "{\"runtimeKind\": 5}", "null"] {
        let e = inspect(kind("presence-request"), garbage).unwrap_err();
        assert_eq!(e.code(), ErrorCode::MalformedJson, "{garbage:?}");
        assert!(e.to_string().starts_with("malformed JSON: "), "{e}");
    }
    // JSON of another kind: the parser's complaint is named.
    let e = inspect(kind("message-list"), &fixture("stream_2026-07-12.json")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MalformedJson);
    assert!(
        e.to_string()
            .contains("invalid type: map, expected a sequence"),
        "{e}"
    );
    // A malformed version-dependent field is not silently dropped, though
    // the 2026-07-12 reading (which has no `anchorId`) would drop it.
    let bad_anchor = fixture("stream_2026-07-22.json").replace(
        "\"anchorId\": \"event_01J80000000000000000000050\"",
        "\"anchorId\": 42",
    );
    assert_ne!(bad_anchor, fixture("stream_2026-07-22.json"));
    let e = inspect(kind("stream"), &bad_anchor).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MalformedJson);
    // A key sent twice is refused as the library refuses it in a response,
    // not shown tidied with the last value (nor detected as any kind).
    let honest = fixture("stream_2026-07-12.json");
    assert!(inspect(kind("stream"), &honest).is_ok());
    let twice = honest.replacen(
        "\"displayName\":",
        "\"displayName\": \"benign\", \"displayName\":",
        1,
    );
    assert_ne!(twice, honest);
    let e = inspect(kind("stream"), &twice).unwrap_err();
    assert_eq!(e.code(), ErrorCode::MalformedJson);
    assert!(e.to_string().contains("duplicate key"), "{e}");
    assert!(detect(&twice).is_empty());
}

#[test]
fn detect_finds_the_right_kind() {
    for (json, expected) in [
        (
            r#"{"runtimeKind":"custom","instanceId":"a","supportedCapabilities":[],"claimTtlSeconds":60}"#,
            "claim-request",
        ),
        (r#"{"content":"hello"}"#, "send-message-request"),
        (
            r#"{"keyGeneration":2,"wraps":[{"recipientKind":"user","recipientKeyId":"k","wrapEnc":"ZQ==","wrapCt":"Yw=="}]}"#,
            "post-key-wraps-request",
        ),
        (r#"{"data":null}"#, "claim-response"),
        (r#"{"ok":true}"#, "webhook-accepted"),
        (
            r#"{"error":"Too many requests","limit":60,"windowMs":60000}"#,
            "rate-limit-body",
        ),
    ] {
        let found = detect(json);
        assert_eq!(
            found.first().map(|i| i.kind.name()),
            Some(expected),
            "{json}: {:?}",
            found.iter().map(|i| i.kind.name()).collect::<Vec<_>>()
        );
    }
    // A request that breaks bounds is still found, with its violations.
    let found = detect(
        r#"{"runtimeKind":"custom","instanceId":"","supportedCapabilities":[],"claimTtlSeconds":60}"#,
    );
    assert_eq!(found[0].kind.name(), "claim-request");
    assert!(found[0].violations.contains_key("instanceId"));
    // Nothing fits garbage, an empty object or unknown fields.
    for nothing in ["not json", "", "{}", "[]", "42", r#"{"unheard":1}"#] {
        assert!(detect(nothing).is_empty(), "{nothing}");
    }
}

#[test]
fn kinds_have_unique_names_and_requests_come_first() {
    let mut names: Vec<&str> = WireKind::ALL.iter().map(|k| k.name()).collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count);
    for k in WireKind::ALL {
        assert_eq!(WireKind::parse(k.name()), Some(*k));
        assert_eq!(k.to_string(), k.name());
    }
    assert_eq!(WireKind::parse("nope"), None);
    let first_response = WireKind::ALL.iter().position(|k| !k.is_request()).unwrap();
    assert!(
        WireKind::ALL[first_response..]
            .iter()
            .all(|k| !k.is_request())
    );
    for name in [
        "send-message-request",
        "presence-request",
        "claim-request",
        "post-key-wraps-request",
        "sealed-step-request",
        "message",
        "message-list",
        "stream",
        "stream-page",
        "invocation",
        "claim-response",
        "key-wraps",
        "own-key",
        "owner-key",
        "error-body",
        "decision-resolved",
    ] {
        assert!(WireKind::parse(name).is_some(), "{name}");
    }
}
