//! Flow benchmarks (issue 8): what an app or a bot runtime does with whole
//! responses. Opening a 1000-message history (512-byte messages), parsing a
//! 100-message list response through the sans-IO response parser, and a bot
//! runtime's claim: parsing the claim response with a 200-item sealed
//! history, and parsing it and opening the `sealedContext` through the
//! runtime's stream state (the auth-mode wrap admitted from the owner's
//! key, prompt and every history item checked against its slot and its
//! sender's signature). Every message is an envelope of version 2: signed
//! by its author, so each open verifies a signature.
//!
//! Run with `cargo bench -p streamseal --bench flows`.

// A benchmark's setup failing is a broken benchmark, not an input to handle:
// unwrap/expect/panic/indexing are the clearest way to say so (clippy.toml
// allows them in tests, which benches are not). criterion's macros generate undocumented
// public items.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use streamseal::api::{
    Context, EndpointRequest, HttpRequest, HttpResponse, ResponseData, build_request,
    parse_response, parse_response_json,
};
use streamseal::envelope::seal;
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::sealed::messages::open_messages;
use streamseal::sealed::runtime::{HistoryItem, OpenedInvocation};
use streamseal::sealed::state::StreamState;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::stream_key::Keyring;
use streamseal::trust::{TrustPolicy, TrustStore, TrustedKey};
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::message::Message;
use streamseal::wire::parse_data;
use streamseal::wire::secret::ApiKey;
use streamseal::wrap::KeyWrap;

const WS: &str = "ws_01J80000000000000000000001";
const ROOT: &str = "stream_01J80000000000000000000010";
const OWNER: &str = "usr_01J80000000000000000000002";
const BOT: &str = "bot_01J80000000000000000000070";
const SOURCE: &str = "msg_01J800000000000000000SRC0";

fn ctx() -> Context {
    Context::new(
        "https://chat.example.test/",
        WorkspaceId::parse(WS).unwrap(),
        Some(ApiKey::parse("svc_bk_bench").unwrap()),
    )
}

fn message_id(i: usize) -> String {
    format!("msg_01J8{i:022}")
}

/// A message resource as `GET streams/{id}/messages` returns it, sealed to
/// its slot by the owner with `text_len` bytes of text.
fn sealed_message(ring: &Keyring, owner: &IdentityKey, i: usize, text_len: usize) -> Value {
    let id = message_id(i);
    let slot = Slot::Message {
        stream_id: ROOT.into(),
        message_id: id.clone(),
        author_id: OWNER.into(),
        author_type: "user".into(),
        revision: 1,
    };
    let text = "x".repeat(text_len);
    let signer = Signer::new(OWNER, owner).unwrap();
    let sealed = seal(ring, &signer, &slot, text.as_bytes()).unwrap();
    json!({
        "id": id,
        "streamId": ROOT,
        "sequence": (i + 1).to_string(),
        "authorId": OWNER,
        "authorType": "user",
        "authorDisplayName": "Ada",
        "content": "[sealed]",
        "replyCount": 0,
        "metadata": {},
        "revision": 1,
        "createdAt": "2026-08-01T10:00:00Z",
        "sealed": serde_json::to_value(&sealed).unwrap(),
    })
}

fn owner_key() -> IdentityKey {
    IdentityKey::generate(RecipientKind::User, KeyId::new("owner-key").unwrap()).unwrap()
}

/// Generation 0 made by the owner and wrapped to `recipients`: the owner's
/// keyring and the wraps.
fn generation_zero(owner: &IdentityKey, recipients: &[TrustedKey]) -> (Keyring, Vec<KeyWrap>) {
    let mut state = StreamState::new(ROOT).unwrap();
    let roll = state.prepare_roll(owner, recipients).unwrap();
    let wraps = roll.wraps().to_vec();
    state.commit_roll(roll).unwrap();
    (state.keyring().clone(), wraps)
}

/// The owner's key and its keyring of generation 0.
fn owner_ring() -> (IdentityKey, Keyring) {
    let owner = owner_key();
    let ring = generation_zero(&owner, &[TrustedKey::own(OWNER, &owner)]).0;
    (owner, ring)
}

fn open_history(c: &mut Criterion) {
    let (owner, ring) = owner_ring();
    let messages: Vec<Message> = (0..1000)
        .map(|i| serde_json::from_value(sealed_message(&ring, &owner, i, 512)).unwrap())
        .collect();
    // A member that pinned the owner's key reads the owner's history.
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    trust.admit(OWNER, &Recipient::of(&owner)).unwrap();
    let keys = SenderKeys::new(&trust);
    let mut g = c.benchmark_group("history");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    g.sample_size(20);
    g.throughput(Throughput::Elements(1000));
    g.bench_function("open 1000 x 512 B", |b| {
        b.iter(|| {
            let opened = open_messages(&ring, &keys, ROOT, black_box(&messages));
            assert!(opened.iter().all(Result::is_ok));
            opened
        });
    });
    g.finish();
}

fn list_request() -> HttpRequest {
    let request = EndpointRequest::ListMessages {
        stream_id: ROOT.into(),
        query: serde_json::from_value(json!({"limit": 100})).unwrap(),
    };
    build_request(&ctx(), &request).unwrap()
}

fn claim_request() -> HttpRequest {
    let body = json!({"runtimeKind": "custom", "instanceId": "machine-a",
        "supportedCapabilities": ["mentionable"], "claimTtlSeconds": 60});
    let request = EndpointRequest::ClaimInvocation {
        body: serde_json::from_value(body).unwrap(),
    };
    build_request(&ctx(), &request).unwrap()
}

fn response(body: String) -> HttpResponse {
    HttpResponse {
        status: 200,
        headers: vec![
            ("Service-Version".into(), "2026-08-21".into()),
            ("RateLimit-Limit".into(), "600".into()),
            ("RateLimit-Remaining".into(), "599".into()),
            ("RateLimit-Reset".into(), "60".into()),
        ],
        body,
    }
}

fn parse_list(c: &mut Criterion) {
    let (owner, ring) = owner_ring();
    let data: Vec<Value> = (0..100)
        .map(|i| sealed_message(&ring, &owner, i, 512))
        .collect();
    let body = json!({"data": data, "hasMore": true, "slots": {}}).to_string();
    let request = list_request();
    let response = response(body);
    // The benchmark measures a successful parse.
    match parse_response(&request, &response).unwrap().data {
        ResponseData::Messages(list) => assert_eq!(list.data.len(), 100),
        other => panic!("unexpected {other:?}"),
    }
    let mut g = c.benchmark_group("parse");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    g.sample_size(30);
    g.bench_function("list response, 100 messages", |b| {
        b.iter(|| parse_response(&request, black_box(&response)).unwrap());
    });
    // The same body through the wire crate's reader of text, as UniFFI's
    // readers of documents (`open_messages`, ...) and `parse_data` read it.
    let typed: Vec<Message> = parse_data(&response.body).unwrap();
    assert_eq!(typed.len(), 100);
    g.bench_function("wire::parse_data, 100 messages", |b| {
        b.iter(|| parse_data::<Vec<Message>>(black_box(&response.body)).unwrap());
    });
    // What the npm package's endpoint module needs: the result as the JSON
    // text the typed result writes. Typed: read into `MessageList`, then
    // written; shape table: checked and written in one pass
    // (`parse_response_json`, issue 20).
    let typed_text =
        |response: &HttpResponse| match parse_response(&request, response).unwrap().data {
            ResponseData::Messages(list) => serde_json::to_string(&list).unwrap(),
            other => panic!("unexpected {other:?}"),
        };
    let table_text = |response: &HttpResponse| {
        parse_response_json(&request.facts(), response)
            .unwrap()
            .data
            .json
    };
    assert_eq!(Some(typed_text(&response)), table_text(&response));
    g.bench_function("list response as JSON text, typed read then written", |b| {
        b.iter(|| typed_text(black_box(&response)));
    });
    g.bench_function("list response as JSON text, shape table", |b| {
        b.iter(|| table_text(black_box(&response)));
    });
    g.finish();
}

/// A claim response whose `sealedContext` wraps generation 0 from the owner
/// to the bot and carries the sealed prompt and `items` sealed history messages.
fn claim_body(owner: &IdentityKey, bot: &IdentityKey, items: usize) -> String {
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let to_bot = trust.admit(BOT, &Recipient::of(bot)).unwrap();
    let (ring, wraps) = generation_zero(owner, &[to_bot]);
    let mut wrap = serde_json::to_value(&wraps[0]).unwrap();
    // A claim's wraps name no recipient.
    if let Value::Object(w) = &mut wrap {
        w.remove("recipientKeyId");
        w.remove("recipientKind");
    }
    let prompt_slot = Slot::invocation_prompt(ROOT, SOURCE, OWNER, "user", 1);
    let signer = Signer::new(OWNER, owner).unwrap();
    let prompt = seal(
        &ring,
        &signer,
        &prompt_slot,
        b"summarise the thread, please",
    )
    .unwrap();
    let history: Vec<Value> = (0..items)
        .map(|i| {
            let mut m = sealed_message(&ring, owner, i, 256);
            let sealed = m["sealed"].take();
            json!({
                "ciphertext": sealed["ciphertext"],
                "envelope": sealed["envelope"],
                "role": "user",
                "sequence": (i + 1).to_string(),
            })
        })
        .collect();
    json!({"data": {
        "id": "inv_01J80000000000000000000040",
        "workspaceId": WS,
        "rootStreamId": ROOT,
        "activeStreamId": ROOT,
        "sourceMessageId": SOURCE,
        "responseStreamId": ROOT,
        "actor": {"type": "bot", "id": BOT, "slug": "helper"},
        "trigger": "scratchpad",
        "requiredCapability": "active-scratchpad",
        "sourceRevision": 1,
        "authorUserId": OWNER,
        "mentionedActorSlugs": [],
        "claimToken": "clm_s3cr3t_sealed",
        "claimExpiresAt": "2026-08-01T10:01:00Z",
        "runtimeSessionId": "sess-1",
        "metadata": {"origin": "mention"},
        "sealedContext": {
            "callbackToken": "cbt_s3cr3t",
            "wraps": [wrap],
            "history": history,
            "prompt": serde_json::to_value(&prompt).unwrap(),
            "reply": {"keyGeneration": 0, "senderId": BOT},
            "trigger": {"messageId": SOURCE, "authorName": "Ada", "authorType": "user",
                "createdAt": "2026-08-01T11:00:00Z"}
        }
    }})
    .to_string()
}

fn claim(c: &mut Criterion) {
    let owner = owner_key();
    let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a").unwrap()).unwrap();
    let request = claim_request();
    let response = response(claim_body(&owner, &bot, 200));
    let mine = [bot];
    // The runtime's state of the root: it pinned the owner's key and accepts
    // it as the key sender. Each open starts from a copy of it, as a runtime
    // restoring its persisted state would.
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let owner_trusted = trust.admit(OWNER, &Recipient::of(&owner)).unwrap();
    let mut runtime_state = StreamState::new(ROOT).unwrap();
    runtime_state.set_owner(OWNER).unwrap();
    runtime_state.accept_sender(&owner_trusted).unwrap();
    let parse_and_open = || {
        let parsed = parse_response(&request, black_box(&response)).unwrap();
        let ResponseData::Claim(claim) = parsed.data else {
            panic!("not a claim");
        };
        let invocation = claim.data.unwrap();
        let mut state = runtime_state.clone();
        let senders = SenderKeys::new(&trust);
        OpenedInvocation::open(&invocation, &mut state, &senders, BOT, &mine).unwrap()
    };
    // The benchmark measures a successful open of every item.
    let opened = parse_and_open();
    assert_eq!(opened.history.len(), 200);
    assert!(
        opened
            .history
            .iter()
            .all(|h| matches!(h, HistoryItem::Opened { .. }))
    );
    let mut g = c.benchmark_group("claim");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(3));
    g.sample_size(30);
    g.bench_function("parse, 200-item sealed history", |b| {
        b.iter(|| parse_response(&request, black_box(&response)).unwrap());
    });
    g.bench_function("parse + open, 200-item sealed history", |b| {
        b.iter(parse_and_open);
    });
    g.finish();
}

criterion_group!(benches, open_history, parse_list, claim);
criterion_main!(benches);
