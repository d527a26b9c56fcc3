//! A key sent twice in one object is refused by every reader of the
//! service's JSON text, not only by `parse_response` (`api_errors.rs`).
//!
//! `serde_json` keeps the last of two keys it does not know, and a field
//! type that is a map or a JSON value (`extra`, `details`) does the same.
//! A hostile server (or anything between it and the app) could then have
//! this library read one value while another reader of the same bytes (a
//! parser that keeps the first, a log, a proxy) reads the other. The
//! readers here are the ones an app hands server text to directly: the wire
//! crate's `parse`, `parse_data` and `parse_data_kept`, the sealed records'
//! `from_json` (an envelope, a sealed payload, a key wrap), and the error
//! body's `ApiError::parse`, which never fails and keeps such a body as
//! text, with no code or details read from it.

use streamseal::envelope::{Envelope, SealedPayload};
use streamseal::wire::error_body::{ApiError, ApiErrorBody};
use streamseal::wire::keys::KeyWraps;
use streamseal::wire::me::Me;
use streamseal::wire::{JsonRecord as _, parse, parse_data, parse_data_kept};
use streamseal::{Error, ErrorCode};

use crate::support::wire_fixture;

/// `honest` with `second` inserted before the first `before`, after
/// checking that the honest text has it (else the case would test the
/// honest body, which reads).
fn doubled(what: &str, honest: &str, before: &str, second: &str) -> String {
    assert!(
        honest.contains(before),
        "{what}: the honest text has no {before}"
    );
    honest.replacen(before, &format!("{second}{before}"), 1)
}

/// The refusal every reader gives: `MALFORMED_JSON`, saying why.
fn assert_refused<T: std::fmt::Debug>(what: &str, read: Result<T, Error>) {
    match read {
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::MalformedJson, "{what}: {e}");
            assert!(e.to_string().contains("duplicate key"), "{what}: {e}");
        }
        Ok(v) => panic!("{what}: read as {v:?}"),
    }
}

#[test]
fn a_key_sent_twice_is_refused_by_every_reader_of_server_text() {
    let me = wire_fixture("me_user.json");
    let wraps = wire_fixture("key_wraps.json");
    // Values are checked when a payload is opened, not when it is read.
    let envelope = r#"{"v": 2, "keyGeneration": 1, "iv": "AAAAAAAAAAAAAAAA", "aad": "AAAA"}"#;
    let sealed = format!(r#"{{"ciphertext": "AAAA", "envelope": {envelope}}}"#);
    // Each honest text reads, so a refusal below is the doubled key's.
    parse_data::<Me>(&me).unwrap();
    parse_data::<KeyWraps>(&wraps).unwrap();
    SealedPayload::from_json(&sealed).unwrap();
    Envelope::from_json(envelope).unwrap();

    let unknown = "\"zz\": 1, \"zz\": 2, ";
    assert_refused(
        "parse_data: an unknown field of the result",
        parse_data::<Me>(&doubled("me", &me, "\"kind\":", unknown)),
    );
    assert_refused(
        "parse_data_kept: an unknown key beside data (kept)",
        parse_data_kept::<Me>(&doubled("me", &me, "\"data\":", unknown)),
    );
    assert_refused(
        "parse: an unknown field of a wrap, nested in an array",
        parse::<serde_json::Value>(&doubled("wraps", &wraps, "\"wrapEnc\":", unknown)),
    );
    assert_refused(
        "parse_data: a known field of a wrap",
        parse_data::<KeyWraps>(&doubled(
            "wraps",
            &wraps,
            "\"wrapEnc\":",
            "\"wrapEnc\": \"AAAA\", ",
        )),
    );
    assert_refused(
        "an envelope's unknown field (kept in its extra)",
        Envelope::from_json(&doubled("envelope", envelope, "\"iv\":", unknown)),
    );
    assert_refused(
        "a sealed payload's envelope's unknown field",
        SealedPayload::from_json(&doubled("sealed", &sealed, "\"iv\":", unknown)),
    );
    assert_refused(
        "a value nested in an envelope's unknown field",
        Envelope::from_json(&doubled(
            "envelope",
            envelope,
            "\"iv\":",
            "\"zz\": {\"a\": 1, \"a\": 2}, ",
        )),
    );
}

#[test]
fn an_error_body_with_a_key_sent_twice_is_kept_as_text() {
    let honest = wire_fixture("error_validation.json");
    let read = ApiError::parse(400, &honest);
    assert!(read.details().is_some(), "the honest body has details");
    let cases = [
        (
            "a key of the details map",
            doubled(
                "error",
                &honest,
                "\"instanceId\":",
                "\"instanceId\": [\"forged\"], ",
            ),
        ),
        (
            "an unknown key of the body",
            doubled("error", &honest, "\"details\":", "\"zz\": 1, \"zz\": 2, "),
        ),
    ];
    for (what, body) in cases {
        let read = ApiError::parse(400, &body);
        assert_eq!(read.body, ApiErrorBody::Raw(body.clone()), "{what}");
        assert_eq!(read.details(), None, "{what}");
        assert_eq!(read.code(), None, "{what}");
    }
    // A 429 body is read as its own shape first, then as a standard one.
    let limited = wire_fixture("error_rate_limited.json");
    assert!(matches!(
        ApiError::parse(429, &limited).body,
        ApiErrorBody::RateLimited(_)
    ));
    let body = doubled("429", &limited, "\"error\":", "\"zz\": 1, \"zz\": 2, ");
    assert_eq!(ApiError::parse(429, &body).body, ApiErrorBody::Raw(body));
}

#[test]
fn the_unknown_fields_a_record_keeps_refuse_a_key_twice_under_any_reader() {
    use streamseal::wire::Extra;
    let envelope = r#"{"v": 2, "keyGeneration": 1, "iv": "AAAAAAAAAAAAAAAA", "aad": "AAAA"}"#;
    let kept = envelope.replacen('{', r#"{"zz": {"a": [1]}, "yy": 2, "#, 1);
    // serde_json straight from text, not through parse_value: the honest
    // unknown fields are kept.
    let read: Envelope = serde_json::from_str(&kept).unwrap();
    assert_eq!(read.extra.len(), 2);
    for (what, second) in [
        ("an unknown field of the record", r#""yy": 1, "#),
        ("a key inside a kept value", r#""zz": {"a": [1], "a": 2}, "#),
    ] {
        let doubled = kept.replacen('{', &format!("{{{second}"), 1);
        let read = serde_json::from_str::<Envelope>(&doubled);
        assert!(
            read.as_ref()
                .is_err_and(|e| e.to_string().contains("duplicate key")),
            "{what}: {read:?}"
        );
    }
    // The kept fields alone, as UniFFI lifts them from an app's text.
    assert!(serde_json::from_str::<Extra>(r#"{"a": 1, "b": 2}"#).is_ok());
    for text in [r#"{"a": 1, "a": 2}"#, r#"{"a": [{"b": 1, "b": 1}]}"#] {
        let read = serde_json::from_str::<Extra>(text);
        assert!(
            read.as_ref()
                .is_err_and(|e| e.to_string().contains("duplicate key")),
            "{text}: {read:?}"
        );
    }
}
