//! Issue 17, one validation path for requests: a request read from JSON
//! that does not decode (a wrong type, a fraction for an integer, a
//! negative generation, `null` for a required string, an unknown value of
//! a closed enum, a missing field) is `VALIDATION_FAILED` with `details`
//! keyed by the full wire path, the shape of the service's 400 body (API
//! §7), never `MALFORMED_JSON`; only text that is not JSON (or has a key
//! twice in one object) is. Date-time
//! fields are RFC 3339 date-times (API §1, §4.3, §4.5, §4.11).
//!
//! The cases of the issue are tests of their own; `tests/fixtures/wire/
//! requests/invalid.json` holds more, written from the spec with the
//! section cited; a property test corrupts random leaves of valid requests.

use std::collections::BTreeSet;
use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::{Value, json};

use streamseal::api::{ENDPOINTS, Endpoint, EndpointRequest};
use streamseal::wire::requests::decode;
use streamseal::wire::requests::invocation::ClaimRequest;
use streamseal::wire::requests::messages::{SearchMessagesRequest, SendMessageRequest};
use streamseal::{Error, ErrorCode};

const STREAM: &str = "stream_01J80000000000000000000010";
const INVOCATION: &str = "inv_01J80000000000000000000030";

/// The details of a `VALIDATION_FAILED`, or a panic naming what came instead.
fn details(
    result: Result<impl std::fmt::Debug, Error>,
) -> std::collections::BTreeMap<String, Vec<String>> {
    match result {
        Err(Error::ValidationFailed { details }) => details,
        other => panic!("expected VALIDATION_FAILED, got {other:?}"),
    }
}

fn keys(result: Result<impl std::fmt::Debug, Error>) -> Vec<String> {
    details(result).into_keys().collect()
}

fn request(value: Value) -> Result<EndpointRequest, Error> {
    EndpointRequest::from_json(&value.to_string())
}

fn claim(ttl: Value) -> Value {
    json!({"endpoint": "claimInvocation", "body": {
        "runtimeKind": "custom", "instanceId": "machine-a",
        "supportedCapabilities": ["mentionable"], "claimTtlSeconds": ttl}})
}

#[test]
fn a_fraction_for_an_integer_is_validation_failed_on_its_path() {
    let d = details(request(claim(json!(60.5))));
    assert_eq!(d.keys().collect::<Vec<_>>(), ["claimTtlSeconds"]);
    assert_eq!(
        d["claimTtlSeconds"],
        ["must be an integer between 0 and 4294967295"]
    );
    // The body alone, through the body decoder, says the same.
    let body = claim(json!(60.5))["body"].to_string();
    assert_eq!(
        keys(decode::from_json::<ClaimRequest>(&body)),
        ["claimTtlSeconds"]
    );
    // And the whole integer passes.
    assert!(request(claim(json!(60))).is_ok());
}

#[test]
fn a_decoded_body_is_validated_the_same_way() {
    // 301 decodes, then fails the 15..=300 bound under the same key.
    let d = details(request(claim(json!(301))));
    assert_eq!(d["claimTtlSeconds"], ["must be between 15 and 300"]);
}

#[test]
fn a_string_for_a_boolean() {
    let r = json!({"endpoint": "searchMessages", "body": {"query": "roadmap", "semantic": "true"}});
    let d = details(request(r));
    assert_eq!(d.keys().collect::<Vec<_>>(), ["semantic"]);
    assert_eq!(d["semantic"], ["must be a boolean"]);
}

#[test]
fn minus_one_for_a_generation() {
    let r = json!({"endpoint": "postKeyWraps", "streamId": STREAM,
        "body": {"keyGeneration": -1, "wraps": []}});
    let d = details(request(r));
    assert_eq!(d.keys().collect::<Vec<_>>(), ["keyGeneration"]);
    assert_eq!(
        d["keyGeneration"],
        ["must be an integer between 0 and 4294967295"]
    );
}

#[test]
fn null_for_a_required_string() {
    let r = json!({"endpoint": "updateMessage", "messageId": "msg_1", "body": {"content": null}});
    let d = details(request(r));
    assert_eq!(d["content"], ["must be a string, not null"]);
    // A required path parameter given as null is named the same way.
    let r = json!({"endpoint": "getStream", "streamId": null});
    assert_eq!(
        details(request(r))["streamId"],
        ["must be a string, not null"]
    );
}

#[test]
fn an_unknown_value_of_a_closed_request_enum() {
    // `conversation.intent` is closed: `new` or `existing`.
    let r = json!({"endpoint": "sendMessage", "streamId": STREAM,
        "body": {"content": "hi", "conversation": {"intent": "maybe"}}});
    let d = details(request(r));
    assert_eq!(d.keys().collect::<Vec<_>>(), ["conversation.intent"]);
    assert_eq!(d["conversation.intent"], ["must be one of: new, existing"]);
}

#[test]
fn a_closed_request_enum_is_a_string_and_nothing_else() {
    // serde_json's own reading would take `{"new": null}` for `"new"`: a
    // second spelling, which the service refuses.
    for intent in [
        json!({"new": null}),
        json!({"existing": {}}),
        json!(1),
        json!(["new"]),
    ] {
        let r = json!({"endpoint": "sendMessage", "streamId": STREAM,
            "body": {"content": "hi", "conversation": {"intent": intent}}});
        let d = details(request(r));
        assert_eq!(
            d.keys().collect::<Vec<_>>(),
            ["conversation.intent"],
            "{intent}"
        );
        assert_eq!(d["conversation.intent"], ["has the wrong type"], "{intent}");
    }
    let r = json!({"endpoint": "sendMessage", "streamId": STREAM,
        "body": {"content": "hi", "conversation": {"intent": "new"}}});
    assert!(request(r).is_ok());
}

#[test]
fn an_unknown_value_of_an_open_request_enum_is_refused_by_validate_in_the_same_shape() {
    // Open enums keep any string when read, and validate() names the allowed ones.
    let r = json!({"endpoint": "claimInvocation", "body": {
        "runtimeKind": "gamma-2", "instanceId": "machine-a",
        "supportedCapabilities": [], "claimTtlSeconds": 60}});
    let d = details(request(r));
    assert_eq!(
        d["runtimeKind"],
        ["must be one of: alpha-local, beta, gamma, delta-channel, custom"]
    );
    let r = json!({"endpoint": "listMyBots", "traits": "sleepy"});
    assert_eq!(
        details(request(r))["traits"],
        ["must be one of: mentionable, active-scratchpad"]
    );
}

#[test]
fn a_missing_nested_field_is_named_by_its_full_path() {
    let r = json!({"endpoint": "postKeyWraps", "streamId": STREAM, "body": {"keyGeneration": 0,
        "wraps": [{"recipientKind": "user", "recipientKeyId": "laptop", "wrapEnc": "AAAA", "wrapCt": "AAAA"},
                  {"recipientKind": "bot", "recipientKeyId": "runner", "wrapEnc": "AAAA"}]}});
    let d = details(request(r));
    assert_eq!(d.keys().collect::<Vec<_>>(), ["wraps[1].wrapCt"]);
    assert_eq!(d["wraps[1].wrapCt"], ["is required"]);
    // The recipient fields (optional in the type so that a KeyWrap
    // converts) are required by validate() under the same path.
    let r = json!({"endpoint": "postKeyWraps", "streamId": STREAM, "body": {"keyGeneration": 0,
        "wraps": [{"recipientKind": "user", "wrapEnc": "AAAA", "wrapCt": "AAAA"}]}});
    assert_eq!(keys(request(r)), ["wraps[0].recipientKeyId"]);
    // Deeper: inside a sealed send's envelope.
    let r = json!({"endpoint": "sendMessage", "streamId": STREAM,
        "body": {"sealed": {"ciphertext": "AAAA", "envelope": {"v": 2, "iv": "AAAA", "aad": "AAAA"}}}});
    assert_eq!(keys(request(r)), ["sealed.envelope.keyGeneration"]);
    // A missing top-level body field is named from the body, as the service does.
    let r = json!({"endpoint": "failInvocation", "invocationId": INVOCATION,
        "body": {"instanceId": "machine-a", "claimToken": "clm_1"}});
    assert_eq!(keys(request(r)), ["errorMessage"]);
}

#[test]
fn fields_at_the_top_level_of_sealed_bodies_keep_their_path() {
    // `{ciphertext, envelope}` sit at the top of sealed-step bodies (the
    // Rust type flattens a SealedPayload there); their mistakes are still
    // named in full.
    let r = json!({"endpoint": "sealedStep", "invocationId": INVOCATION, "callbackToken": "cbt_1",
        "body": {"stepId": "step-1", "stepType": "thinking", "ciphertext": "AAAA",
                 "envelope": {"v": 2, "keyGeneration": -1, "iv": "AAAA", "aad": "AAAA"}}});
    assert_eq!(keys(request(r)), ["envelope.keyGeneration"]);
    let r = json!({"endpoint": "sealedComplete", "invocationId": INVOCATION, "callbackToken": "cbt_1",
        "body": {"reply": {"messageId": "msg_1", "ciphertext": 7,
                 "envelope": {"v": 2, "keyGeneration": 0, "iv": "AAAA", "aad": "AAAA"}}}});
    assert_eq!(keys(request(r)), ["reply.ciphertext"]);
    // And the presence's known fields beside its flattened `extra`.
    let r = json!({"endpoint": "postPresence", "body": {"runtimeKind": "custom", "instanceId": "m",
        "status": "available", "acceptingInvocations": "yes", "capabilities": {}, "publicKeys": []}});
    assert_eq!(keys(request(r)), ["acceptingInvocations"]);
}

#[test]
fn a_path_parameter_of_the_wrong_type() {
    let r = json!({"endpoint": "getStream", "streamId": 5});
    let d = details(request(r));
    assert_eq!(d.keys().collect::<Vec<_>>(), ["streamId"]);
    assert_eq!(d["streamId"], ["must be a string"]);
    // It fails together with the body.
    let r = json!({"endpoint": "postKeyWraps", "streamId": 5, "body": {"keyGeneration": 1.5, "wraps": []}});
    assert_eq!(keys(request(r)), ["keyGeneration", "streamId"]);
    // A missing one.
    let r = json!({"endpoint": "sendMessage", "body": {"content": "hi"}});
    assert_eq!(details(request(r))["streamId"], ["is required"]);
}

#[test]
fn an_unknown_or_missing_endpoint() {
    let d = details(request(
        json!({"endpoint": "sendMessages", "streamId": STREAM}),
    ));
    assert_eq!(d["endpoint"], ["is not an endpoint of the API"]);
    assert_eq!(
        details(request(json!({"streamId": STREAM})))["endpoint"],
        ["is required"]
    );
    assert_eq!(
        details(request(json!({"endpoint": 3})))["endpoint"],
        ["must be a string"]
    );
    // A document that is not an object at all is named by the empty path.
    assert_eq!(
        details(request(json!(["getMe"])))[""],
        ["must be an object"]
    );
}

#[test]
fn a_body_that_is_not_an_object() {
    // serde's derive would read the fields of a struct from an array in
    // order; the service takes objects only.
    let r = json!({"endpoint": "sendMessage", "streamId": STREAM, "body": ["hi"]});
    assert_eq!(details(request(r))["body"], ["must be an object"]);
    let r = json!({"endpoint": "sealedComplete", "invocationId": INVOCATION, "callbackToken": "c", "body": []});
    assert_eq!(details(request(r))["body"], ["must be an object"]);
    let r = json!({"endpoint": "sendMessage", "streamId": STREAM,
        "body": {"content": "hi", "conversation": ["new"]}});
    assert_eq!(details(request(r))["conversation"], ["must be an object"]);
    // The body missing altogether.
    let r = json!({"endpoint": "sendMessage", "streamId": STREAM});
    assert_eq!(details(request(r))["body"], ["is required"]);
}

#[test]
fn a_map_field_given_null_is_empty_and_given_an_array_is_refused() {
    // `capabilities` is a map of data (`serde_json::Map`), whose reader
    // takes `null` as an empty map: the request builds with `{}`, as it
    // did when the decoder read maps through `deserialize_any`.
    let body = |capabilities: Value| {
        json!({"endpoint": "postPresence", "body": {"runtimeKind": "custom", "instanceId": "m",
            "status": "available", "acceptingInvocations": true, "capabilities": capabilities}})
    };
    let EndpointRequest::PostPresence { body: null } = request(body(Value::Null)).unwrap() else {
        panic!("not a presence request")
    };
    let EndpointRequest::PostPresence { body: empty } = request(body(json!({}))).unwrap() else {
        panic!("not a presence request")
    };
    assert_eq!(null, empty);
    for bad in [
        json!([]),
        json!([["a", 1]]),
        json!("x"),
        json!(1),
        json!(true),
    ] {
        let d = details(request(body(bad.clone())));
        assert_eq!(d["capabilities"], ["must be an object"], "{bad}");
    }
}

#[test]
fn a_list_that_is_not_an_array() {
    // Each kind of value where the list of wraps belongs: the same reason,
    // keyed by the list's path; a list of the wrong items is keyed by item.
    for wraps in [
        json!({}),
        json!({"0": {}}),
        json!("w"),
        json!(1),
        json!(true),
        json!(null),
    ] {
        let r = json!({"endpoint": "postKeyWraps", "streamId": STREAM,
            "body": {"keyGeneration": 1, "wraps": wraps}});
        let d = details(request(r));
        assert_eq!(d.keys().collect::<Vec<_>>(), ["wraps"], "{wraps}");
        let expected = if wraps.is_null() {
            "must be an array, not null"
        } else {
            "must be an array"
        };
        assert_eq!(d["wraps"], [expected], "{wraps}");
    }
    let r = json!({"endpoint": "postKeyWraps", "streamId": STREAM,
        "body": {"keyGeneration": 1, "wraps": [[]]}});
    assert_eq!(details(request(r))["wraps[0]"], ["must be an object"]);
}

#[test]
fn dates_must_be_rfc_3339_date_times() {
    for (endpoint, at) in [("searchMessages", "body"), ("searchMemos", "body")] {
        for bad in [
            "last tuesday",
            "2026-13-01",
            "2026-02-30T00:00:00Z",
            "2026-07-12 09:30:00Z",
        ] {
            for field in ["before", "after"] {
                let mut body = json!({"query": "roadmap"});
                body[field] = json!(bad);
                let r = json!({"endpoint": endpoint, at: body});
                let d = details(request(r));
                assert_eq!(
                    d.keys().collect::<Vec<_>>(),
                    [field],
                    "{endpoint} {field} {bad}"
                );
                assert!(d[field][0].contains("RFC 3339 date-time"), "{d:?}");
            }
        }
        for good in [
            "2026-07-12T09:30:00Z",
            "2026-07-12T09:30:00.250+02:00",
            "2024-02-29t00:00:00z",
        ] {
            let r =
                json!({"endpoint": endpoint, at: {"query": "q", "before": good, "after": good}});
            request(r).unwrap();
        }
    }
    let r = json!({"endpoint": "listDelegations", "query": {"since": "yesterday"}});
    assert_eq!(keys(request(r)), ["since"]);
    let r = json!({"endpoint": "listDelegations", "query": {"since": "2026-07-12T09:30:00Z"}});
    request(r).unwrap();
    // A request built in Rust is checked by validate() as well.
    let body = SearchMessagesRequest {
        query: "q".into(),
        before: Some("2026-13-01".into()),
        ..Default::default()
    };
    assert_eq!(
        keys(streamseal::wire::requests::Validate::validate(&body)),
        ["before"]
    );
}

#[test]
fn text_that_is_not_json_stays_malformed_json() {
    for text in [
        "",
        "{",
        "{\"endpoint\": \"getMe\",}",
        "nope",
        "{\"endpoint\": \"getMe\"} x",
        // A key twice: which one the app meant is not for the library to guess.
        "{\"endpoint\": \"listStreams\", \"endpoint\": \"getMe\"}",
        "{\"endpoint\": \"getMe\", \"body\": {\"content\": \"a\", \"content\": \"b\"}}",
    ] {
        let err = EndpointRequest::from_json(text).unwrap_err();
        assert_eq!(err.code(), ErrorCode::MalformedJson, "{text}");
        let err = decode::from_json::<SendMessageRequest>(text).unwrap_err();
        assert_eq!(err.code(), ErrorCode::MalformedJson, "{text}");
    }
}

#[test]
fn reasons_never_repeat_the_value_given() {
    let secret = "svc_uk_TOPSECRET";
    for r in [
        json!({"endpoint": "claimInvocation", "body": {"runtimeKind": "custom", "instanceId": "m",
            "supportedCapabilities": [], "claimTtlSeconds": secret}}),
        json!({"endpoint": "sendMessage", "streamId": STREAM,
            "body": {"content": "hi", "conversation": {"intent": secret}}}),
        json!({"endpoint": "searchMessages", "body": {"query": "q", "semantic": secret}}),
        json!({"endpoint": secret}),
        json!({"endpoint": "searchMessages", "body": {"query": "q", "before": secret}}),
    ] {
        let err = request(r).unwrap_err();
        let shown = format!("{err} {err:?}");
        assert!(!shown.contains("TOPSECRET"), "{shown}");
    }
}

#[test]
fn valid_requests_still_decode_and_match_the_serde_shape() {
    for r in valid_requests() {
        let decoded = request(r.clone()).unwrap_or_else(|e| panic!("{r}: {e}"));
        assert_eq!(decoded.endpoint().id(), r["endpoint"].as_str().unwrap());
        // The serde entry point reads the same shape.
        let via_serde: EndpointRequest = serde_json::from_value(r.clone()).unwrap();
        assert_eq!(via_serde, decoded);
        // And from a value.
        assert_eq!(EndpointRequest::from_value(r).unwrap(), decoded);
    }
    // Every endpoint of the catalogue is read (a missing field is named,
    // never "unknown endpoint").
    for endpoint in ENDPOINTS {
        let r = json!({"endpoint": endpoint.id()});
        match request(r) {
            Ok(_) => {}
            Err(Error::ValidationFailed { details }) => {
                assert!(
                    !details.contains_key("endpoint"),
                    "{}: {details:?}",
                    endpoint.id()
                );
            }
            Err(other) => panic!("{}: {other}", endpoint.id()),
        }
    }
    assert!(Endpoint::from_id("getMe").is_some());
}

#[derive(serde::Deserialize)]
struct Case {
    cite: String,
    request: Value,
    details: Vec<String>,
    #[serde(default)]
    reasons: std::collections::BTreeMap<String, String>,
}

#[derive(serde::Deserialize)]
struct Cases {
    cases: Vec<Case>,
}

#[test]
fn fixtures_written_from_the_spec() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/wire/requests/invalid.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let cases: Cases = serde_json::from_str(&text).unwrap();
    assert!(cases.cases.len() >= 40, "{}", cases.cases.len());
    for case in cases.cases {
        assert!(case.cite.starts_with("API §"), "{}", case.cite);
        let d = match request(case.request.clone()) {
            Err(Error::ValidationFailed { details }) => details,
            other => panic!("{}: {} -> {other:?}", case.cite, case.request),
        };
        let got: Vec<&String> = d.keys().collect();
        let want: Vec<&String> = case
            .details
            .iter()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(got, want, "{}", case.cite);
        for (key, word) in &case.reasons {
            assert!(
                d[key].iter().any(|r| r.contains(word.as_str())),
                "{}: {key}: {:?} lacks {word:?}",
                case.cite,
                d[key]
            );
        }
    }
}

/// Valid requests with nested objects and arrays, the bases of the
/// corruption property.
fn valid_requests() -> Vec<Value> {
    let envelope = json!({"v": 2, "keyGeneration": 0, "iv": "AAAAAAAAAAAAAAAA", "aad": "AAAA"});
    vec![
        json!({"endpoint": "postKeyWraps", "streamId": STREAM, "body": {"keyGeneration": 1, "wraps": [
            {"recipientKind": "user", "recipientKeyId": "laptop", "wrapEnc": "AAAA", "wrapCt": "AAAA"},
            {"recipientKind": "bot", "recipientKeyId": "runner", "wrapEnc": "AAAA", "wrapCt": "AAAA"}]}}),
        json!({"endpoint": "sendMessage", "streamId": STREAM, "body": {"content": "hi",
            "clientMessageId": "cmid_1", "metadata": {"ticket": "T-1"},
            "conversation": {"intent": "existing", "conversationId": "conversation_1"}}}),
        json!({"endpoint": "sendMessage", "streamId": STREAM, "body": {
            "sealed": {"ciphertext": "AAAA", "envelope": envelope}}}),
        json!({"endpoint": "searchMessages", "body": {"query": "roadmap", "semantic": true, "exact": false,
            "streams": [STREAM], "from": "usr_1", "type": ["channel", "dm"],
            "before": "2026-07-12T09:30:00Z", "after": "2026-07-01T00:00:00+02:00", "limit": 20}}),
        json!({"endpoint": "searchMemos", "body": {"query": "", "exact": true, "memoType": ["message"],
            "knowledgeType": ["decision"], "tags": ["a"], "before": "2026-07-12T09:30:00Z", "limit": 100}}),
        json!({"endpoint": "claimInvocation", "body": {"runtimeKind": "custom", "instanceId": "machine-a",
            "supportedCapabilities": ["mentionable"], "claimTtlSeconds": 60, "runtimeSessionId": "s-1",
            "responseStreamId": STREAM, "excludeResponseStreamIds": [STREAM], "invocationId": INVOCATION}}),
        json!({"endpoint": "renewInvocation", "invocationId": INVOCATION, "body": {"instanceId": "m",
            "claimToken": "clm_1", "claimTtlSeconds": 60, "knownSourceRevision": 2, "restartRequiredRevision": 3}}),
        json!({"endpoint": "invocationStep", "invocationId": INVOCATION, "body": {"instanceId": "m",
            "claimToken": "clm_1", "stepType": "thinking", "content": "reading", "statusText": "ok",
            "clientStepId": "c1", "phase": "p", "durationMs": 12}}),
        json!({"endpoint": "sealedStep", "invocationId": INVOCATION, "callbackToken": "cbt_1", "body": {
            "stepId": "step-1", "stepType": "thinking", "ciphertext": "AAAA", "envelope": envelope,
            "messageId": "msg_1", "durationMs": 5}}),
        json!({"endpoint": "sealedComplete", "invocationId": INVOCATION, "callbackToken": "cbt_1", "body": {
            "sourceRevision": 1, "noResponse": false, "reply": {"messageId": "msg_1", "ciphertext": "AAAA",
            "envelope": envelope, "attachmentIds": ["att_1"]}}}),
        json!({"endpoint": "completeInvocation", "invocationId": INVOCATION, "body": {"instanceId": "m",
            "claimToken": "clm_1", "sourceRevision": 1, "finalMessageMarkdown": "done", "noResponse": false,
            "summary": "s", "sources": [{"type": "web", "title": "t", "url": "https://x.test", "snippet": "s"}],
            "sealedReply": {"messageId": "msg_1", "ciphertext": "AAAA", "envelope": envelope}}}),
        json!({"endpoint": "createSession", "body": {"runtimeKind": "alpha-local", "instanceId": "m",
            "runtimeSessionId": "s-1", "displayName": "Fix", "localCwd": "/src", "memoryMode": "auto",
            "labelName": "l", "description": "d", "e2e": {"ownerKeyId": "laptop"},
            "ifArchived": "wait", "ifMissing": "create"}}),
        json!({"endpoint": "postPresence", "body": {"runtimeKind": "custom", "instanceId": "m",
            "runtimeSessionId": "s-1", "displayName": "d", "status": "available",
            "acceptingInvocations": true, "statusText": "idle"}}),
        json!({"endpoint": "createDecision", "streamId": STREAM, "body": {
            "decisionId": "dreq_01J80000000000000000000040",
            "options": [{"id": "yes", "tone": "primary"}, {"id": "no", "tone": "neutral"}],
            "allowNote": true, "runtimeSessionId": "s-1", "invocationId": INVOCATION,
            "sealed": {"ciphertext": "AAAA", "envelope": envelope}}}),
        json!({"endpoint": "updateLabel", "labelId": "lbl_1", "body": {"name": "n", "color": "red",
            "emoji": "x", "description": "d"}}),
        json!({"endpoint": "listStreams", "query": {"type": "channel", "query": "q", "after": "c",
            "limit": 10, "includeArchived": true}}),
        json!({"endpoint": "listMessages", "streamId": STREAM, "query": {"before": 10, "after": 2, "limit": 5}}),
        json!({"endpoint": "listDelegations", "query": {"status": "open", "since": "2026-07-12T09:30:00Z"}}),
        json!({"endpoint": "removeLabel", "query": {"name": "n", "resourceType": "stream", "resourceId": STREAM}}),
        json!({"endpoint": "uploadAttachment", "upload": {"filename": "a.png", "contentType": "image/png"}}),
        json!({"endpoint": "listMyBots", "traits": "mentionable"}),
        json!({"endpoint": "delegationStatus", "delegationId": "dlg_1", "claimToken": "clm_1",
            "body": {"statusNote": "working"}}),
        json!({"endpoint": "postWebhook", "hookId": "hook_1", "secret": "s", "body": {"content": "hi"}}),
        json!({"endpoint": "findMessagesByMetadata", "body": {"metadata": {"k": "v"}, "streamId": STREAM, "limit": 3}}),
    ]
}

/// Every leaf (scalar, empty array or empty object) with its path, as
/// `(path of segments)`.
fn leaves(value: &Value, at: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match value {
        Value::Object(map) if !map.is_empty() => {
            for (k, v) in map {
                at.push(Seg::Key(k.clone()));
                leaves(v, at, out);
                at.pop();
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for (i, v) in items.iter().enumerate() {
                at.push(Seg::Index(i));
                leaves(v, at, out);
                at.pop();
            }
        }
        _ => out.push(at.clone()),
    }
}

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Index(usize),
}

fn leaf_mut<'a>(value: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(value, |v, seg| match seg {
        Seg::Key(k) => &mut v[k.as_str()],
        Seg::Index(i) => &mut v[*i],
    })
}

/// The wire path of a leaf: body and query fields from inside the body or
/// query, everything else in full.
fn wire_path(path: &[Seg]) -> String {
    let skip =
        matches!(path.first(), Some(Seg::Key(k)) if k == "body" || k == "query") && path.len() > 1;
    let mut out = String::new();
    for seg in &path[usize::from(skip)..] {
        match seg {
            Seg::Key(k) if out.is_empty() => out.push_str(k),
            Seg::Key(k) => {
                out.push('.');
                out.push_str(k);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// The JSON type of a value; integers and fractions apart.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "fraction",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn replacements() -> Vec<Value> {
    vec![
        json!(null),
        json!(true),
        json!(7),
        json!(-1),
        json!(2.5),
        json!("x-secret-value"),
        json!([]),
        json!(["a"]),
        json!({}),
        json!({"a": 1}),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2_000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// A leaf of a valid request replaced by a value of another JSON type:
    /// `VALIDATION_FAILED` keyed by the leaf's wire path (or a prefix of
    /// it), never `MALFORMED_JSON`, never a panic, never the value in a
    /// reason. Only `null` may pass (an optional field left out).
    #[test]
    fn corrupted_leaves_are_named_by_their_path(
        which in any::<prop::sample::Index>(),
        leaf in any::<prop::sample::Index>(),
        with in any::<prop::sample::Index>(),
    ) {
        let bases = valid_requests();
        let base = which.get(&bases);
        let mut all = Vec::new();
        leaves(base, &mut Vec::new(), &mut all);
        let path = leaf.get(&all);
        let mut corrupted = base.clone();
        let target = leaf_mut(&mut corrupted, path);
        let options: Vec<Value> = replacements()
            .into_iter()
            .filter(|r| kind(r) != kind(target))
            .collect();
        let replacement = with.get(&options).clone();
        let is_null = replacement.is_null();
        *target = replacement;
        let wire = wire_path(path);
        match EndpointRequest::from_value(corrupted.clone()) {
            Ok(_) => prop_assert!(is_null, "{} accepted at {}", corrupted, wire),
            Err(Error::ValidationFailed { details }) => {
                let named = details.keys().any(|k| {
                    k == &wire
                        || wire.starts_with(&format!("{k}."))
                        || wire.starts_with(&format!("{k}["))
                        || (k == "body" || k == "query") && path.len() == 1
                });
                prop_assert!(named, "{} at {}: {:?}", corrupted, wire, details);
                let shown = format!("{details:?}");
                prop_assert!(!shown.contains("x-secret"), "{}", shown);
            }
            Err(other) => prop_assert!(false, "{} at {}: {:?}", corrupted, wire, other),
        }
    }
}
