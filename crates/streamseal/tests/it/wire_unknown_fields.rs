//! API §9.6: "new response fields ship without a new version; clients must
//! ignore unknown fields". Ignored, not lost: every response type keeps the
//! fields it does not know (each object's `extra`) and writes them back
//! unchanged (issue 17, item 5).
//!
//! - A property test per response type: a valid document of the type (a
//!   spec fixture or an example below written from the spec's text) gets
//!   random unknown fields (names no spec field has, random JSON values:
//!   nested objects and arrays, integers, floats, strings) in random objects
//!   at random depths; it must parse, serialise to exactly the input (as a
//!   `serde_json::Value`), and parse again to an equal value. Types whose
//!   shape differs by version are checked in every version's shape too.
//! - The fixtures `unknown_fields_*.json` (unknown fields at several depths)
//!   are read and written back unchanged, and the fields are reachable.
//!
//! The crypto records the wire carries (`sealed` `{ciphertext, envelope}`,
//! `envelope`, key wraps, `kdfParams`) are objects with fields like any
//! other. Not covered, by design: maps of data (`metadata`, `capabilities`,
//! `slots` keys, validation `details`) are not objects with fields.

use std::fmt::Debug;
#[allow(unused_imports)]
use streamseal::wire::{ExtraJson as _, JsonRecord as _};

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value, json};

use streamseal::wire::attachment::{Attachment, AttachmentSearchHit};
use streamseal::wire::bot::Bot;
use streamseal::wire::conversation::Conversation;
use streamseal::wire::delegation::{
    Delegation, DelegationClaim, DelegationCompletion, DelegationDetail, DelegationHeartbeat,
};
use streamseal::wire::error_body::{ErrorBody, RateLimitBody};
use streamseal::wire::events::{
    DecisionResolved, E2eRevoke, HelloAck, SealedStepFrame, SealedSteps,
};
use streamseal::wire::invocation::{
    ClaimResponse, Invocation, InvocationCompleted, InvocationMessagePosted,
    InvocationStatusResult, RenewResult, SealedCompleted, SealedMessagePosted, StepRecorded,
};
use streamseal::wire::keys::{KeyWraps, KeyWrapsStored, OwnKey, OwnerKey};
use streamseal::wire::label::{Label, LabelAssigned, LabelAssignment};
use streamseal::wire::list::{
    AttachmentSearchResults, BotList, ConversationPage, DelegationList, MemberPage,
    MemoSearchResults, StreamPage,
};
use streamseal::wire::me::Me;
use streamseal::wire::memo::{Memo, MemoResult, MemoSourceMessage, MemoStreamRef, MemoWithSources};
use streamseal::wire::message::{
    Message, MessageAttachment, MessageList, MessageResponse, MessageSearchHit,
    MessageSearchResults, MessagesFound,
};
use streamseal::wire::presence::{BriefCreated, Presence, SessionEnded, SessionLink};
use streamseal::wire::requests::webhooks::WebhookAccepted;
use streamseal::wire::slots::{SlotKey, SlotValue};
use streamseal::wire::stream::{Stream, StreamMember};
use streamseal::wire::version::{ApiVersion, ApiVersionInfo};
use streamseal::wire::versioned::Versioned;

use crate::support::wire_json as fixture;

/// Cases per response type (and per version shape of a versioned type).
const CASES: u32 = 64;

/// The part of a fixture at a JSON pointer (`""`: the whole document).
fn part(name: &str, pointer: &str) -> Value {
    fixture(name)
        .pointer(pointer)
        .unwrap_or_else(|| panic!("{name} has no {pointer}"))
        .clone()
}

// ---------------------------------------------------------------------------
// Where unknown fields may go, and what they are.

/// Keys whose object is not a struct with fields: maps of data (a new key
/// there is data, not an unknown field; `metadata` takes strings only,
/// `slots` slot objects only).
const NOT_FIELDS: &[&str] = &["metadata", "capabilities", "range", "details", "slots"];

/// JSON pointers (as key/index steps) of every object of `doc` that is a
/// struct with fields, at every depth.
fn field_objects(doc: &Value) -> Vec<Vec<Step>> {
    fn walk(v: &Value, parent: Option<&str>, at: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
        match v {
            Value::Object(map) => {
                if parent.is_none_or(|p| !NOT_FIELDS.contains(&p)) {
                    out.push(at.clone());
                }
                for (key, child) in map {
                    at.push(Step::Key(key.clone()));
                    walk(child, Some(key), at, out);
                    at.pop();
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    at.push(Step::Index(i));
                    // An array item is a struct when its array is a field.
                    walk(child, parent.map(|_| "[]"), at, out);
                    at.pop();
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(doc, None, &mut Vec::new(), &mut out);
    out
}

#[derive(Clone, Debug)]
enum Step {
    Key(String),
    Index(usize),
}

fn object_at<'a>(doc: &'a mut Value, at: &[Step]) -> &'a mut Map<String, Value> {
    let mut v = doc;
    for step in at {
        v = match step {
            Step::Key(k) => v.get_mut(k.as_str()).unwrap(),
            Step::Index(i) => v.get_mut(*i).unwrap(),
        };
    }
    v.as_object_mut().unwrap()
}

/// A field name no spec field has: every spec field is a camelCase word
/// (no `_`), so a name with `_` cannot name a known field.
fn unknown_name() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z]{1,8}_[a-zA-Z0-9]{0,6}",
        "later_[A-Za-z]{1,8}",
        "_[ -~]{0,10}",
        "[a-z]{1,4}_[\u{e9}\u{3b1}\u{1f680}]{1,2}",
    ]
}

/// Random JSON: scalars of every kind (large and negative integers, finite
/// floats, unicode strings), then arrays and objects of them.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter_map("finite", Number::from_f64)
            .prop_map(Value::Number),
        (-1000i32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
        "\\PC{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map("[a-zA-Z_]{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Up to six unknown fields, each in an object picked among all depths.
fn insertions() -> impl Strategy<Value = Vec<(Index, String, Value)>> {
    vec((any::<Index>(), unknown_name(), json_value()), 1..6)
}

/// `doc` with the unknown fields added; `None` when every insertion landed
/// on a name the object already has (nothing new to check).
fn with_unknown_fields(doc: &Value, adds: &[(Index, String, Value)]) -> Option<Value> {
    let objects = field_objects(doc);
    assert!(!objects.is_empty(), "no object with fields in {doc}");
    let mut out = doc.clone();
    let mut added = false;
    for (at, name, value) in adds {
        let obj = object_at(&mut out, &objects[at.index(objects.len())]);
        if !obj.contains_key(name) {
            obj.insert(name.clone(), value.clone());
            added = true;
        }
    }
    added.then_some(out)
}

// ---------------------------------------------------------------------------
// The checks.

/// Parse, serialise to exactly the input, parse the text again to an equal value.
fn survives<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    input: &Value,
) -> Result<(), String> {
    let parsed: T =
        serde_json::from_value(input.clone()).map_err(|e| format!("does not parse: {e}"))?;
    let back = serde_json::to_value(&parsed).map_err(|e| e.to_string())?;
    if &back != input {
        return Err(format!(
            "written back differently:\n  in:  {input}\n  out: {back}"
        ));
    }
    let text = serde_json::to_string(&parsed).map_err(|e| e.to_string())?;
    let again: T =
        serde_json::from_str(&text).map_err(|e| format!("its text does not parse: {e}"))?;
    if again != parsed {
        return Err(format!("parse(write(x)) != x for {text}"));
    }
    let text_back: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    if &text_back != input {
        return Err(format!("its text is not the input: {text}"));
    }
    // A key written twice collapses in a `Value`: the text would be longer
    // than the same members written once.
    if text.len() != text_back.to_string().len() {
        return Err(format!("a key is written twice: {text}"));
    }
    Ok(())
}

/// [`survives`] through the reader and writer of one version's shape.
fn survives_in<T: Versioned + PartialEq + Debug>(
    version: ApiVersion,
    input: &Value,
) -> Result<(), String> {
    let parsed = T::from_version_value(version, input.clone())
        .map_err(|e| format!("{version}: does not parse: {e}"))?;
    let back = parsed.to_version_value(version);
    if &back != input {
        return Err(format!(
            "{version}: written back differently:\n  in:  {input}\n  out: {back}"
        ));
    }
    let again = T::from_version_json(version, &parsed.to_version_json(version))
        .map_err(|e| format!("{version}: its text does not parse: {e}"))?;
    if again != parsed {
        return Err(format!("{version}: read(write(x)) != x"));
    }
    Ok(())
}

/// Runs [`CASES`] cases of unknown fields over each base document.
fn property(what: &str, bases: &[Value], check: &dyn Fn(&Value) -> Result<(), String>) {
    for (i, base) in bases.iter().enumerate() {
        // The base itself must be a fixed point, or the property says nothing.
        check(base).unwrap_or_else(|e| panic!("{what} base {i}: {e}"));
        let mut runner = TestRunner::new(Config {
            cases: CASES,
            failure_persistence: None,
            ..Config::default()
        });
        let result = runner.run(&insertions(), |adds| {
            if let Some(input) = with_unknown_fields(base, &adds) {
                prop_assert_ne!(&input, base);
                check(&input).map_err(TestCaseError::fail)?;
            }
            Ok(())
        });
        if let Err(e) = result {
            panic!("{what} base {i}: {e}");
        }
    }
}

fn plain<T: Serialize + DeserializeOwned + PartialEq + Debug>(what: &str, bases: &[Value]) {
    property(what, bases, &|v| survives::<T>(v));
}

/// A versioned type: its latest-shape serde, and each version's shape (the
/// bases are read in their own version `from` and written in each).
fn versioned<T: Versioned + PartialEq + Debug>(what: &str, bases: &[(ApiVersion, Value)]) {
    let latest: Vec<Value> = bases
        .iter()
        .map(|(from, v)| {
            T::from_version_value(*from, v.clone())
                .unwrap()
                .to_version_value(ApiVersion::LATEST)
        })
        .collect();
    plain::<T>(what, &latest);
    for version in ApiVersion::ALL {
        let shaped: Vec<Value> = bases
            .iter()
            .map(|(from, v)| {
                T::from_version_value(*from, v.clone())
                    .unwrap()
                    .to_version_value(version)
            })
            .collect();
        property(&format!("{what} at {version}"), &shaped, &|v| {
            survives_in::<T>(version, v)
        });
    }
}

// ---------------------------------------------------------------------------
// Examples of the small responses no fixture shows, from the spec's text.

/// §4.10 progress and fail: `{invocationId, status}`.
fn invocation_status() -> Value {
    json!({"invocationId": "inv_01J80000000000000000000040", "status": "failed"})
}
/// §4.10 steps, sealed-steps/started, sealed-steps: `{invocationId, sessionId, stepId}`.
fn step_recorded() -> Value {
    json!({"invocationId": "inv_01J80000000000000000000040", "sessionId": "sess_1", "stepId": "step_1"})
}
/// §4.10 messages: `{invocationId, sessionId, messageId}`.
fn invocation_message_posted() -> Value {
    json!({"invocationId": "inv_01J80000000000000000000040", "sessionId": "sess_1",
           "messageId": "msg_01J80000000000000000000025"})
}
/// §4.10 sealed-messages: `{messageId}`.
fn sealed_message_posted() -> Value {
    json!({"messageId": "msg_client_minted_1"})
}
/// §4.10 sealed-complete: `{invocationId, sessionId, messageId (string or null)}`.
fn sealed_completed() -> Vec<Value> {
    vec![
        json!({"invocationId": "inv_1", "sessionId": "sess_1", "messageId": "msg_client_minted_2"}),
        json!({"invocationId": "inv_1", "sessionId": "sess_1", "messageId": null}),
    ]
}
/// §4.2 POST key-wraps: `{stored: integer}`.
fn key_wraps_stored() -> Value {
    json!({"stored": 3})
}
/// §4.9 sessions/brief: 201 `{invocationId, streamId}`.
fn brief_created() -> Value {
    json!({"invocationId": "inv_01J80000000000000000000041", "streamId": "stream_01J80000000000000000000011"})
}

// ---------------------------------------------------------------------------
// One property per response type.

const V0712: ApiVersion = ApiVersion::V2026_07_12;
const V0724: ApiVersion = ApiVersion::V2026_07_24;
const V0821: ApiVersion = ApiVersion::V2026_08_21;

#[test]
fn messages_and_their_responses() {
    plain::<Message>(
        "Message",
        &[
            part("message_list_2026-08-21.json", "/data/0"),
            part("message_list_2026-08-21.json", "/data/1"),
        ],
    );
    plain::<MessageAttachment>(
        "MessageAttachment",
        &[part(
            "message_list_2026-08-21.json",
            "/data/0/attachments/0",
        )],
    );
    plain::<MessageSearchHit>(
        "MessageSearchHit",
        &[part("message_search_2026-08-21.json", "/data/0")],
    );
    versioned::<MessageList>(
        "MessageList",
        &[
            (V0712, fixture("message_list_2026-07-12.json")),
            (V0724, fixture("message_list_2026-07-24.json")),
            (V0821, fixture("message_list_2026-08-21.json")),
        ],
    );
    versioned::<MessageSearchResults>(
        "MessageSearchResults",
        &[
            (V0712, fixture("message_search_2026-07-12.json")),
            (V0821, fixture("message_search_2026-08-21.json")),
        ],
    );
    versioned::<MessagesFound>(
        "MessagesFound",
        &[(V0724, fixture("messages_found_2026-07-24.json"))],
    );
    versioned::<MessageResponse>(
        "MessageResponse",
        &[
            (
                ApiVersion::V2026_07_22,
                fixture("message_send_2026-07-22.json"),
            ),
            (V0821, fixture("message_send_2026-08-21.json")),
        ],
    );
}

#[test]
fn streams_members_conversations() {
    versioned::<Stream>(
        "Stream",
        &[
            (V0712, part("stream_2026-07-12.json", "/data")),
            (
                ApiVersion::V2026_07_22,
                part("stream_2026-07-22.json", "/data"),
            ),
        ],
    );
    versioned::<StreamPage>(
        "StreamPage",
        &[
            (V0712, fixture("stream_page_2026-07-12.json")),
            (V0821, fixture("stream_page_2026-08-21.json")),
        ],
    );
    plain::<StreamMember>("StreamMember", &[part("member_page.json", "/data/0")]);
    plain::<MemberPage>("MemberPage", &[fixture("member_page.json")]);
    plain::<Conversation>("Conversation", &[part("conversation_page.json", "/data/0")]);
    plain::<ConversationPage>("ConversationPage", &[fixture("conversation_page.json")]);
}

#[test]
fn memos() {
    plain::<Memo>("Memo", &[part("memo_get.json", "/data/memo")]);
    plain::<MemoStreamRef>(
        "MemoStreamRef",
        &[part("memo_get.json", "/data/sourceStream")],
    );
    plain::<MemoSourceMessage>(
        "MemoSourceMessage",
        &[part("memo_get.json", "/data/sourceMessages/0")],
    );
    plain::<MemoResult>(
        "MemoResult",
        &[
            part("memo_search.json", "/data/0"),
            part("memo_search.json", "/data/1"),
        ],
    );
    plain::<MemoSearchResults>("MemoSearchResults", &[fixture("memo_search.json")]);
    plain::<MemoWithSources>("MemoWithSources", &[part("memo_get.json", "/data")]);
}

#[test]
fn attachments_labels_bots() {
    plain::<Attachment>("Attachment", &[part("attachment_upload.json", "/data")]);
    plain::<AttachmentSearchHit>(
        "AttachmentSearchHit",
        &[part("attachment_search.json", "/data/0")],
    );
    plain::<AttachmentSearchResults>(
        "AttachmentSearchResults",
        &[fixture("attachment_search.json")],
    );
    plain::<Label>("Label", &[part("label_updated.json", "/data")]);
    plain::<LabelAssignment>(
        "LabelAssignment",
        &[part("label_assigned.json", "/data/assignment")],
    );
    plain::<LabelAssigned>("LabelAssigned", &[part("label_assigned.json", "/data")]);
    // API §4.13: the native webhook's `{"ok": true}`.
    plain::<WebhookAccepted>("WebhookAccepted", &[json!({"ok": true})]);
    versioned::<Bot>(
        "Bot",
        &[
            (V0712, part("bots_2026-07-12.json", "/data/0")),
            (V0821, part("bots_2026-08-21.json", "/data/0")),
        ],
    );
    plain::<BotList>(
        "BotList",
        &[
            fixture("bots_2026-07-12.json"),
            fixture("bots_2026-08-21.json"),
        ],
    );
}

#[test]
fn runtime_and_invocations() {
    plain::<Presence>("Presence", &[part("presence.json", "/data")]);
    plain::<SessionLink>("SessionLink", &[part("session_link.json", "/data")]);
    plain::<SessionEnded>("SessionEnded", &[part("session_end.json", "/data")]);
    plain::<BriefCreated>("BriefCreated", &[brief_created()]);
    plain::<Invocation>(
        "Invocation",
        &[
            part("claim_plain.json", "/data"),
            part("claim_sealed.json", "/data"),
        ],
    );
    plain::<ClaimResponse>(
        "ClaimResponse",
        &[
            fixture("claim_plain.json"),
            fixture("claim_sealed.json"),
            fixture("claim_empty.json"),
        ],
    );
    plain::<RenewResult>(
        "RenewResult",
        &[
            part("renew_basic.json", "/data"),
            part("renew_with_revision.json", "/data"),
        ],
    );
    plain::<InvocationStatusResult>("InvocationStatusResult", &[invocation_status()]);
    plain::<StepRecorded>("StepRecorded", &[step_recorded()]);
    plain::<InvocationMessagePosted>("InvocationMessagePosted", &[invocation_message_posted()]);
    plain::<SealedMessagePosted>("SealedMessagePosted", &[sealed_message_posted()]);
    plain::<SealedCompleted>("SealedCompleted", &sealed_completed());
    versioned::<InvocationCompleted>(
        "InvocationCompleted",
        &[
            (V0712, fixture("invocation_completed_2026-07-12.json")),
            (V0724, fixture("invocation_completed_none_2026-07-24.json")),
            (V0821, fixture("invocation_completed_2026-08-21.json")),
        ],
    );
}

#[test]
fn delegations() {
    plain::<Delegation>("Delegation", &[part("delegation_list.json", "/data/0")]);
    plain::<DelegationList>(
        "DelegationList",
        &[
            fixture("delegation_list.json"),
            fixture("delegation_list_last_page.json"),
        ],
    );
    plain::<DelegationDetail>("DelegationDetail", &[part("delegation_get.json", "/data")]);
    plain::<DelegationClaim>("DelegationClaim", &[part("delegation_claim.json", "/data")]);
    versioned::<DelegationCompletion>(
        "DelegationCompletion",
        &[
            (V0712, part("delegation_complete_2026-07-12.json", "/data")),
            (
                ApiVersion::V2026_07_22,
                part("delegation_complete_2026-07-22.json", "/data"),
            ),
        ],
    );
    plain::<DelegationHeartbeat>(
        "DelegationHeartbeat",
        &[part("delegation_heartbeat.json", "/data")],
    );
}

#[test]
fn keys_me_errors_events() {
    plain::<OwnerKey>("OwnerKey", &[part("owner_key.json", "/data")]);
    plain::<OwnKey>("OwnKey", &[part("own_key.json", "/data")]);
    plain::<KeyWraps>("KeyWraps", &[part("key_wraps.json", "/data")]);
    plain::<KeyWrapsStored>("KeyWrapsStored", &[key_wraps_stored()]);
    plain::<Me>(
        "Me",
        &[part("me_user.json", "/data"), part("me_bot.json", "/data")],
    );
    plain::<ApiVersionInfo>(
        "ApiVersionInfo",
        &[part("me_user.json", "/data/apiVersion")],
    );
    plain::<ErrorBody>(
        "ErrorBody",
        &[
            fixture("error_delegation_not_open.json"),
            fixture("error_invalid_api_version.json"),
            fixture("error_validation.json"),
        ],
    );
    plain::<RateLimitBody>("RateLimitBody", &[fixture("error_rate_limited.json")]);
    plain::<DecisionResolved>(
        "DecisionResolved",
        &[
            fixture("event_decision_resolved.json"),
            fixture("event_decision_resolved_no_note.json"),
        ],
    );
    plain::<E2eRevoke>("E2eRevoke", &[fixture("event_e2e_revoke.json")]);
    plain::<SealedSteps>("SealedSteps", &[fixture("event_sealed_steps.json")]);
    plain::<SealedStepFrame>(
        "SealedStepFrame",
        &[part("event_sealed_steps.json", "/steps/0")],
    );
    plain::<HelloAck>("HelloAck", &[fixture("event_hello_ack.json")]);
}

// ---------------------------------------------------------------------------
// The fixtures with unknown fields at several depths (§9.6).

/// Every unknown field of the fixture is written back unchanged, in every
/// version's shape too.
#[test]
fn a_message_list_keeps_unknown_fields_at_every_depth() {
    let doc = fixture("unknown_fields_message_list_2026-08-21.json");
    let list = MessageList::from_version_value(V0821, doc.clone()).unwrap();
    assert_eq!(list.to_version_value(V0821), doc);
    // Top level, message, attachment, slot value: reachable by the app.
    assert_eq!(
        list.extra.get_json("nextPageHint"),
        Some(doc["nextPageHint"].clone())
    );
    let m = &list.data[0];
    assert_eq!(m.extra.get_json("pinned"), Some(json!(true)));
    assert_eq!(m.extra.get_json("reactions").unwrap()[0]["count"], json!(3));
    let att = &m.attachments.as_ref().unwrap()[0];
    assert_eq!(
        att.extra.get_json("exif").unwrap()["exposure"],
        json!(0.125)
    );
    assert_eq!(att.extra.len(), 2);
    let SlotValue::Ok(ok) = list
        .slots
        .get(&SlotKey::parse("shared:msg_01J80000000000000000000023@2"))
        .unwrap()
    else {
        panic!("an ok slot")
    };
    assert_eq!(ok.extra.get_json("authorName"), Some(json!("Grace")));
    // Nothing known leaks into `extra`.
    assert!(m.extra.get_json("content").is_none() && ok.extra.get_json("status").is_none());
    // An older version's shape keeps them too (it drops only `slots`).
    let old = list.to_version_value(V0712);
    assert_eq!(old["nextPageHint"], doc["nextPageHint"]);
    assert_eq!(
        old["data"][0]["attachments"][0]["blurhash"],
        doc["data"][0]["attachments"][0]["blurhash"]
    );
    assert!(old.get("slots").is_none());
}

#[test]
fn a_memo_keeps_unknown_fields_inside_and_beside_the_memo() {
    let doc = fixture("unknown_fields_memo_get.json");
    let got: MemoWithSources = streamseal::wire::parse_data(&doc.to_string()).unwrap();
    let back: Value = serde_json::from_str(&streamseal::wire::to_data_json(&got)).unwrap();
    // `requestId` sits beside `data`: `parse_data` returns the resource only.
    let mut expected = doc.clone();
    expected.as_object_mut().unwrap().remove("requestId");
    assert_eq!(back, expected);
    assert_eq!(
        got.result.extra.get_json("score").unwrap()["relevance"],
        json!(0.87)
    );
    assert_eq!(
        got.result.memo.extra.get_json("confidence"),
        Some(json!(0.92))
    );
    assert_eq!(
        got.result
            .source_stream
            .as_ref()
            .unwrap()
            .extra
            .get_json("memberCount"),
        Some(json!(12))
    );
    assert_eq!(
        got.source_messages[0].extra.get_json("editedAt"),
        Some(Value::Null)
    );
}

#[test]
fn a_sealed_claim_keeps_unknown_fields_down_to_the_trigger() {
    let doc = fixture("unknown_fields_claim_sealed.json");
    let claim: ClaimResponse = serde_json::from_value(doc.clone()).unwrap();
    assert_eq!(serde_json::to_value(&claim).unwrap(), doc);
    assert_eq!(
        claim.extra.get_json("serverTime"),
        Some(doc["serverTime"].clone())
    );
    let inv = claim.data.as_ref().unwrap();
    assert_eq!(inv.extra.get_json("priority"), Some(json!(5)));
    assert_eq!(inv.actor.extra.get_json("avatarUrl"), Some(Value::Null));
    let ctx = inv.sealed_context.as_ref().unwrap();
    assert_eq!(ctx.extra.get_json("ttlSeconds"), Some(json!(60)));
    assert!(ctx.history[0].extra.get_json("authorId").is_some());
    assert_eq!(
        ctx.reply.extra.get_json("attachmentLimit").unwrap()["count"],
        json!(4)
    );
    assert_eq!(ctx.trigger.extra.get_json("locale"), Some(json!("en-GB")));
}

/// The property's own machinery: it finds objects at every depth and skips
/// the maps of data, and the inserted fields really change the
/// document (so the property above can fail).
#[test]
fn the_property_reaches_every_depth_and_only_struct_objects() {
    let doc = fixture("claim_sealed.json");
    let paths: Vec<String> = field_objects(&doc)
        .iter()
        .map(|at| {
            at.iter()
                .map(|s| match s {
                    Step::Key(k) => format!("/{k}"),
                    Step::Index(i) => format!("/{i}"),
                })
                .collect()
        })
        .collect();
    for expected in [
        "",
        "/data",
        "/data/actor",
        "/data/sealedContext",
        "/data/sealedContext/history/0",
        "/data/sealedContext/trigger",
        "/data/sealedContext/prompt",
        "/data/sealedContext/prompt/envelope",
        "/data/sealedContext/wraps/0",
        "/data/sealedContext/history/0/envelope",
    ] {
        assert!(
            paths.contains(&expected.to_owned()),
            "{expected} not in {paths:?}"
        );
    }
    // A map of data is not an object with fields.
    assert!(
        !paths.contains(&"/data/metadata".to_owned()),
        "/data/metadata in {paths:?}"
    );
    // A type that dropped unknown fields would fail the check.
    let mut input = part("delegation_heartbeat.json", "/data");
    input["later_field"] = json!({"a": [1, 2.5]});
    assert!(survives::<DelegationHeartbeat>(&input).is_ok());
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    #[serde(rename_all = "camelCase")]
    struct Dropping {
        claim_expires_at: String,
    }
    assert!(survives::<Dropping>(&input).is_err());
}

/// API §1 wraps a single object as `{"data": ...}`; a key the service adds
/// beside `data` is kept in `ApiResponse::extra` (and, where the spec shows
/// no shape, beside the raw `data`), while a body that is the result itself
/// keeps its unknown keys in the result.
#[test]
fn keys_beside_data_are_kept_by_parse_response() {
    use streamseal::api::{
        Context, EndpointRequest, HttpResponse, ResponseData, build_request, parse_response,
    };
    use streamseal::wire::ids::WorkspaceId;
    use streamseal::wire::secret::ApiKey;

    let ctx = Context::new(
        "https://chat.example.test",
        WorkspaceId::parse("ws_01J80000000000000000000001").unwrap(),
        Some(ApiKey::parse("svc_uk_test").unwrap()),
    );
    let ok = |request: &EndpointRequest, body: Value| {
        let request = build_request(&ctx, request).unwrap();
        let response = HttpResponse {
            status: 200,
            headers: vec![("Service-Version".into(), "2026-08-21".into())],
            body: body.to_string(),
        };
        parse_response(&request, &response).unwrap()
    };
    let stream_id = "stream_01J80000000000000000000010".to_owned();

    let mut body = fixture("stream_2026-07-22.json");
    body["meta"] = json!({"requestId": "req_1", "cost": [1, 2.5]});
    body["later_flag"] = json!(true);
    let got = ok(
        &EndpointRequest::GetStream {
            stream_id: stream_id.clone(),
        },
        body.clone(),
    );
    assert!(matches!(got.data, ResponseData::Stream(_)));
    assert_eq!(got.extra.get_json("meta"), Some(body["meta"].clone()));
    assert_eq!(got.extra.get_json("later_flag"), Some(json!(true)));
    assert_eq!(got.extra.len(), 2);

    // A whole-body result: the page keeps its own, the envelope has none.
    let mut page = fixture("member_page.json");
    page["later_total"] = json!(12);
    let got = ok(
        &EndpointRequest::ListStreamMembers {
            stream_id,
            query: Default::default(),
        },
        page,
    );
    assert!(got.extra.is_empty());
    let ResponseData::Members(members) = got.data else {
        panic!("not a member page")
    };
    assert_eq!(members.extra.get_json("later_total"), Some(json!(12)));
}

/// A `{"data": ...}` envelope keeps the keys on either side of `data`, in
/// any order; a second `data` or none is malformed, not a guess.
#[test]
fn data_envelope_keeps_keys_on_both_sides_and_refuses_a_second_data() {
    use streamseal::wire::{ExtraJson as _, parse_data_kept};

    for text in [
        r#"{"meta":{"x":[1]},"data":7,"next":"n"}"#,
        r#"{"data":7,"meta":{"x":[1]},"next":"n"}"#,
        r#"{"meta":{"x":[1]},"next":"n","data":7}"#,
    ] {
        let (data, extra): (u32, _) = parse_data_kept(text).unwrap();
        assert_eq!(data, 7, "{text}");
        assert_eq!(
            extra.get_json("meta"),
            Some(serde_json::json!({"x": [1]})),
            "{text}"
        );
        assert_eq!(
            extra.get_json("next"),
            Some(serde_json::json!("n")),
            "{text}"
        );
        assert_eq!(extra.len(), 2, "{text}");
    }
    let (data, extra): (u32, _) = parse_data_kept(r#"{"data":7}"#).unwrap();
    assert_eq!((data, extra.len()), (7, 0));
    for (text, words) in [
        // Refused before any type reads it: a key twice in one object.
        (r#"{"data":7,"data":8}"#, "duplicate key in an object"),
        (r#"{"data":7,"x":1,"data":8}"#, "duplicate key in an object"),
        (r#"{"x":1}"#, "missing field `data`"),
        (r#"{"data":"7"}"#, "invalid type"),
    ] {
        let err = parse_data_kept::<u32>(text).unwrap_err();
        assert_eq!(err.code().as_str(), "MALFORMED_JSON", "{text}");
        assert!(err.to_string().contains(words), "{text}: {err}");
    }
}
