//! The shape tables (`streamseal_wire::shape`) against the typed read they
//! stand in for: `parse_response_json` must accept exactly the 2xx bodies
//! `parse_response_to` accepts, and write the text the typed result's
//! `Serialize` writes, byte for byte.
//!
//! The bodies: every wire fixture (as a body, and wrapped in `{"data":
//! ...}`), read as every endpoint's response in every version; then, for
//! each one the typed read accepts, mutations of every node of it (removed,
//! replaced by a value of each JSON kind and by numbers at the integer
//! bounds, an object given as an array of its values, an unknown key
//! added). A table that disagrees with its type on any of them fails here.
#![cfg(feature = "wasm")]

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use streamseal::api::{
    ENDPOINTS, Endpoint, HttpResponse, RequestFacts, ResponseError, parse_response_json,
    parse_response_to,
};
use streamseal::wire::version::ApiVersion;

use crate::support::fixture_dir;

/// Both readers of one body: `Ok(text)` when both accept and agree,
/// `Err(())` when both refuse; a disagreement panics with what differs.
fn agree(endpoint: Endpoint, version: ApiVersion, body: &str) -> Result<&'static str, ()> {
    let request = RequestFacts {
        endpoint,
        retry_safe: true,
        service_version: Some(version),
    };
    let response = HttpResponse {
        status: 200,
        headers: Vec::new(),
        body: body.to_owned(),
    };
    let typed = parse_response_to(&request, &response);
    let table = parse_response_json(&request, &response);
    match (typed, table) {
        (Ok(typed), Ok(table)) => {
            let table_variant = table.data.variant;
            let typed = serde_json::to_string(&typed).unwrap();
            let table = table.to_json();
            assert_eq!(
                typed,
                table,
                "{} in {version:?}: the table wrote other text for {body}",
                endpoint.id()
            );
            Ok(table_variant)
        }
        (Err(ResponseError::Malformed(_)), Err(ResponseError::Malformed(_))) => Err(()),
        (typed, table) => panic!(
            "{} in {version:?}: typed {:?}, table {:?}, for {body}",
            endpoint.id(),
            typed.map(|_| ()),
            table.map(|_| ())
        ),
    }
}

/// Every value a node is replaced by.
fn replacements(original: &Value) -> Vec<Value> {
    let mut out = vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(1.5),
        json!(255),
        json!(256),
        json!(65536),
        json!(4_294_967_295_u64),
        json!(4_294_967_296_u64),
        json!(9_223_372_036_854_775_807_i64),
        json!(u64::MAX),
        json!(i64::MIN),
        json!(""),
        json!("x"),
        json!([]),
        json!({}),
        json!([original.clone()]),
        json!({ "later": original.clone() }),
    ];
    if let Value::Object(map) = original {
        // The object as an array of its values (serde's positional form).
        out.push(Value::Array(map.values().cloned().collect()));
        let mut more = map.clone();
        more.insert("laterField".to_owned(), json!({"nested": [1, "two"]}));
        out.push(Value::Object(more));
        // One field fewer, for each field.
        for key in map.keys() {
            let mut less = map.clone();
            less.remove(key);
            out.push(Value::Object(less));
        }
    }
    if let Value::String(name) = original {
        // serde_json reads a unit variant from `{"name": null}` too.
        out.push(json!({ name.clone(): null }));
        out.push(json!({ name.clone(): 1 }));
    }
    if let Value::Array(items) = original {
        if let Some(first) = items.first() {
            out.push(Value::Array(vec![first.clone(), first.clone()]));
        }
        out.push(Value::Array(items.iter().rev().cloned().collect()));
    }
    out
}

/// Calls `f` with `root` where the node at each path is replaced by each
/// of its [`replacements`].
fn mutate(root: &Value, f: &mut dyn FnMut(Value)) {
    fn walk(node: &Value, rebuild: &mut dyn FnMut(Value) -> Value, f: &mut dyn FnMut(Value)) {
        for replacement in replacements(node) {
            f(rebuild(replacement));
        }
        match node {
            Value::Object(map) => {
                for (key, child) in map {
                    let mut inner = |v: Value| {
                        let mut copy: Map<String, Value> = map.clone();
                        copy.insert(key.clone(), v);
                        rebuild(Value::Object(copy))
                    };
                    walk(child, &mut inner, f);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    let mut inner = |v: Value| {
                        let mut copy = items.clone();
                        copy[i] = v;
                        rebuild(Value::Array(copy))
                    };
                    walk(child, &mut inner, f);
                }
            }
            _ => {}
        }
    }
    walk(root, &mut |v| v, f);
}

/// Every JSON fixture under `tests/fixtures/wire` and `tests/fixtures/api`.
fn fixtures() -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for dir in ["wire", "api"] {
        let mut entries: Vec<_> = std::fs::read_dir(fixture_dir(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        entries.sort();
        for path in entries {
            let text = std::fs::read_to_string(&path).unwrap();
            let value: Value = serde_json::from_str(&text).unwrap();
            out.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                value,
            ));
        }
    }
    out
}

/// The versions a fixture is read in: its own (named in the file name)
/// and the newest; the oldest and the newest for the others.
fn versions_of(name: &str) -> Vec<ApiVersion> {
    let own = ApiVersion::ALL
        .into_iter()
        .find(|v| name.contains(v.as_str()));
    match own {
        Some(own) if own == ApiVersion::LATEST => vec![own],
        Some(own) => vec![own, ApiVersion::LATEST],
        None => vec![ApiVersion::ALL[0], ApiVersion::LATEST],
    }
}

/// A table writes a map (`BTreeMap`, the kept unknown fields) in key
/// order, as `serde_json::Value` objects are without serde_json's
/// `preserve_order`: a dependency turning that feature on would make the
/// typed read keep the body's order and the tables not.
#[test]
fn json_objects_are_kept_in_key_order() {
    let value: Value = serde_json::from_str(r#"{"b":1,"a":2}"#).unwrap();
    assert_eq!(value.to_string(), r#"{"a":2,"b":1}"#);
}

#[test]
fn the_tables_read_every_fixture_and_its_mutations_as_the_types_do() {
    let mut accepted: BTreeSet<&str> = BTreeSet::new();
    let mut bodies = 0_usize;
    let mut refusals = 0_usize;
    for (name, fixture) in fixtures() {
        for body in [
            fixture.clone(),
            json!({ "data": fixture.clone(), "besideData": 1 }),
        ] {
            let text = body.to_string();
            for &endpoint in ENDPOINTS {
                for version in versions_of(&name) {
                    let Ok(variant) = agree(endpoint, version, &text) else {
                        continue;
                    };
                    accepted.insert(variant);
                    // A body read untyped (`Raw`) has no table to test.
                    if matches!(variant, "Raw" | "NoContent" | "CompatWebhookAccepted") {
                        continue;
                    }
                    mutate(&body, &mut |mutated| {
                        bodies += 1;
                        if agree(endpoint, version, &mutated.to_string()).is_err() {
                            refusals += 1;
                        }
                    });
                }
            }
        }
    }
    eprintln!("{bodies} mutated bodies, {refusals} refused; results read: {accepted:?}");
    // Every result type of `ResponseData` was read from some fixture.
    let every: BTreeSet<&str> = "NoContent Me Bots OwnKey Streams Stream Members KeyWraps \
        KeyWrapsStored MessageSearch Messages Message MessagesFound Conversations Conversation \
        Memos Memo Attachment AttachmentSearch LabelAssigned Label Presence SessionLink OwnerKey \
        SessionEnded BriefCreated Claim Renewed InvocationStatus StepRecorded \
        InvocationMessagePosted SealedMessagePosted SealedCompleted InvocationCompleted \
        Delegations DelegationDetail DelegationClaim Delegation DelegationHeartbeat \
        DelegationCompletion WebhookAccepted CompatWebhookAccepted Raw"
        .split_whitespace()
        .collect();
    assert_eq!(accepted, every, "results no fixture reached");
    // The mutations reach both outcomes, many times over.
    assert!(bodies > 10_000, "{bodies} mutated bodies");
    assert!(
        refusals > 1_000 && refusals < bodies,
        "{refusals} of {bodies} refused"
    );
}
