//! Property tests of the public API's round trips that the other `*_props`
//! suites do not cover (TESTING.md lists every round trip and its property):
//! key material and identifiers, base64, slots and their codes, events,
//! error bodies, the `{"data": ...}` envelope, paging cursors through a
//! built request, path/query encoding, the user key's set-up/unlock and the
//! sealed decision cards and notes.

use std::collections::BTreeMap;

use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;
use serde_json::{Value, json};
use streamseal::api::{Context, EndpointRequest, build_request, encode_component, paging};
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind, SecretKey};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::decisions::{
    CardPlacement, DecisionAnswer, DecisionCardContent, open_decision_answer, open_decision_card,
    seal_decision_card, seal_decision_note,
};
use streamseal::sealed::runtime::{OpenedInvocation, PendingInvocation, StepPlacement, open_step};
use streamseal::sealed::state::StreamState;
use streamseal::sealed::user_key::{change_passphrase, set_up, unlock};
use streamseal::sender::{SealedBy, SenderKeys, Signer};
use streamseal::slot::{DecisionOption, Slot, SlotKind, StepPhase};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore};
use streamseal::wire::common::StreamType;
use streamseal::wire::error_body::{ApiError, ErrorBody};
use streamseal::wire::events::{DecisionResolved, E2eRevoke, Event};
use streamseal::wire::ids::MessageId;
use streamseal::wire::ids::{DecisionId, WorkspaceId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::list::{ConversationPage, MemberPage, StreamPage};
use streamseal::wire::requests::conversations::ListConversationsQuery;
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::requests::streams::{ListMembersQuery, ListStreamsQuery};
use streamseal::wire::secret::ApiKey;
use streamseal::wire::version::{ApiVersion, ServiceVersion};
use streamseal::wire::{parse_data, to_data_json};
use streamseal::{ErrorCode, api::ResponseData};

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

fn text() -> impl Strategy<Value = String> {
    "\\PC{1,24}"
}

fn slot() -> impl Strategy<Value = Slot> {
    let id = || "[a-z]{1,6}_[0-9A-Z]{1,10}";
    prop_oneof![
        (id(), id(), id(), "[a-z]{1,8}", any::<u32>()).prop_map(|(s, m, a, t, r)| {
            Slot::Message {
                stream_id: s,
                message_id: m,
                author_id: a,
                author_type: t,
                revision: r,
            }
        }),
        (id(), id(), id(), id()).prop_map(|(s, m, a, i)| Slot::BotReply {
            stream_id: s,
            message_id: m,
            author_id: a,
            invocation_id: i,
        }),
        (id(), id(), text(), any::<bool>(), option::of(id())).prop_map(|(i, s, t, started, m)| {
            Slot::TraceStep {
                invocation_id: i,
                step_id: s,
                step_type: t,
                phase: if started {
                    StepPhase::Started
                } else {
                    StepPhase::Completed
                },
                message_id: m,
            }
        }),
        (
            (id(), id(), id(), id()),
            vec((id(), text()), 0..4),
            any::<bool>(),
        )
            .prop_map(|((s, d, i, r), o, n)| Slot::DecisionCard {
                stream_id: s,
                decision_id: d,
                invocation_id: i,
                runtime_session_id: r,
                options: o
                    .into_iter()
                    .map(|(id, tone)| DecisionOption { id, tone })
                    .collect(),
                allow_note: n,
            }),
        (id(), id(), id()).prop_map(|(d, o, b)| Slot::DecisionNote {
            decision_id: d,
            option_id: o,
            decided_by: b,
        }),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        text().prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map("[a-z]{1,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Percent-decodes what `encode_component` wrote (the server's side).
fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The decoded value of `name` in a built URL's query string.
fn query_value(url: &str, name: &str) -> Option<String> {
    let (_, query) = url.split_once('?')?;
    query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .find(|(k, _)| percent_decode(k).as_deref() == Some(name))
        .and_then(|(_, v)| percent_decode(v))
}

fn context() -> Context {
    Context::new(
        "https://chat.example.test",
        WorkspaceId::parse("ws_01J80000000000000000000001").unwrap(),
        Some(ApiKey::parse("svc_bk_secret").unwrap()),
    )
}

proptest! {
    #![proptest_config(config(128))]

    /// `SecretKey::from_bytes` -> `to_bytes`; `PublicKey` -> base64 -> `from_base64`, and JSON.
    #[test]
    fn key_material_round_trips(secret in any::<[u8; 32]>(), stream in any::<[u8; 32]>()) {
        let sk = SecretKey::from_bytes(&secret);
        prop_assert_eq!(*sk.to_bytes(), secret);
        let pk = sk.public_key();
        let text = pk.to_base64();
        prop_assert_eq!(text.len(), 44);
        prop_assert_eq!(PublicKey::from_base64(&text).unwrap(), pk);
        let json = serde_json::to_string(&pk).unwrap();
        prop_assert_eq!(json.clone(), format!("\"{text}\""));
        prop_assert_eq!(serde_json::from_str::<PublicKey>(&json).unwrap(), pk);
        prop_assert_eq!(*StreamKey::from_bytes(&stream).to_bytes(), stream);
    }

    /// `KeyId::new` -> `as_str` and JSON; `RecipientKind::parse` -> `as_str` and JSON.
    #[test]
    fn key_ids_and_recipient_kinds_round_trip(id in "[!-~]{1,128}", kind in "[a-z_]{1,16}") {
        let key_id = KeyId::new(id.clone()).unwrap();
        prop_assert_eq!(key_id.as_str(), id.as_str());
        let json = serde_json::to_string(&id).unwrap();
        prop_assert_eq!(serde_json::from_str::<KeyId>(&json).unwrap(), key_id);
        let parsed = RecipientKind::parse(&kind);
        prop_assert_eq!(parsed.as_str(), kind.as_str());
        let back: RecipientKind = serde_json::from_str(&serde_json::to_string(&parsed).unwrap()).unwrap();
        prop_assert_eq!(back, parsed);
        for known in [RecipientKind::User, RecipientKind::Bot] {
            prop_assert_eq!(RecipientKind::parse(known.as_str()), known);
        }
    }

    /// `encode_base64` -> `decode_base64`, and the encoding is the only spelling.
    #[test]
    fn base64_round_trips(bytes in vec(any::<u8>(), 0..200)) {
        let text = encode_base64(&bytes);
        prop_assert_eq!(decode_base64("x", &text).unwrap(), bytes);
        prop_assert_eq!(text.len() % 4, 0);
    }

    /// `Slot` JSON, and its kind and step phase codes.
    #[test]
    fn slots_round_trip_through_json_and_codes(slot in slot()) {
        let json = serde_json::to_string(&slot).unwrap();
        prop_assert_eq!(serde_json::from_str::<Slot>(&json).unwrap(), slot.clone());
        let kind = slot.kind();
        prop_assert_eq!(SlotKind::from_code(kind.code()), Some(kind));
        if let Slot::TraceStep { phase, .. } = &slot {
            prop_assert_eq!(StepPhase::from_code(phase.code()), Some(*phase));
        }
    }

    /// A slot read from JSON lacking any field its kind requires is refused,
    /// naming that field (`TraceStep.messageId` alone may be absent); a field
    /// no kind has is ignored.
    #[test]
    fn slot_json_lacking_a_required_field_is_refused(slot in slot(), extra in text()) {
        let value = serde_json::to_value(&slot).unwrap();
        let object = value.as_object().unwrap();
        for key in object.keys().filter(|k| *k != "kind") {
            let mut less = object.clone();
            less.remove(key);
            let read = serde_json::from_value::<Slot>(Value::Object(less));
            if key == "messageId" && slot.kind() == SlotKind::TraceStep {
                prop_assert!(read.is_ok());
            } else {
                let shown = read.unwrap_err().to_string();
                prop_assert!(shown.contains(&format!("missing field `{key}`")), "{}", shown);
            }
        }
        let mut more = object.clone();
        more.insert("notAField".into(), Value::String(extra));
        prop_assert_eq!(serde_json::from_value::<Slot>(Value::Object(more)).unwrap(), slot);
    }

    /// `Event::from_parts(name, payload)` -> `name()` / `payload()` -> `from_parts`.
    #[test]
    fn events_round_trip_through_their_parts(
        ids in (text(), text(), text()),
        note in option::of((text(), 0u32..5)),
        raw in json_value(),
        other_name in "[a-z:_]{1,20}",
    ) {
        let (a, b, c) = ids;
        let resolved = DecisionResolved {
            decision_id: a.clone(),
            option_id: b.clone(),
            decided_by: c.clone(),
            note_ciphertext: note.as_ref().map(|(t, _)| t.clone()),
            note_envelope: note.as_ref().map(|(t, g)| streamseal::envelope::Envelope {
                v: 2,
                key_generation: *g,
                iv: t.clone(),
                aad: t.clone(),
                extra: Default::default(),
            }),
            extra: Default::default(),
        };
        let revoke = E2eRevoke { workspace_id: a, bot_id: b, stream_id: c, extra: Default::default() };
        let events = [
            Event::DecisionResolved(resolved),
            Event::E2eRevoke(revoke),
            Event::InvocationAvailable(raw.clone()),
            Event::E2eGrant(raw.clone()),
        ];
        for event in events {
            let again = Event::from_parts(event.name(), event.payload()).unwrap();
            prop_assert_eq!(again, event);
        }
        if !["bot_invocation:available", "bot:invocation:sealed-steps", "decision:resolved",
             "bot:e2e_revoke", "bot:e2e_grant"].contains(&other_name.as_str()) {
            let event = Event::from_parts(&other_name, raw.clone()).unwrap();
            prop_assert_eq!(event.name(), other_name.as_str());
            prop_assert_eq!(event.payload(), raw);
        }
    }

    /// An `ErrorBody` written as JSON reads back through `ApiError::parse`
    /// with its code and details, at any non-429 error status.
    #[test]
    fn error_bodies_read_back_through_api_error(
        message in text(),
        details in option::of(btree_map("[a-z.]{1,12}", vec(text(), 1..3), 1..3)),
        code in option::of("[A-Z_]{3,20}"),
        status in (400u16..600).prop_filter("not 429", |s| *s != 429),
    ) {
        let code = code.map(|c| serde_json::from_value(json!(c)).unwrap());
        let body = ErrorBody { error: message, details, code, extra: Default::default() };
        let parsed = ApiError::parse(status, &serde_json::to_string(&body).unwrap());
        prop_assert_eq!(parsed.code(), body.code.clone());
        prop_assert_eq!(parsed.details(), body.details.as_ref());
        prop_assert_eq!(parsed.status, status);
    }

    /// `to_data_json` -> `parse_data` for any JSON value.
    #[test]
    fn data_envelope_round_trips(value in json_value()) {
        let back: Value = parse_data(&to_data_json(&value)).unwrap();
        prop_assert_eq!(back, value);
    }

    /// `encode_component` percent-decodes back to its input, using only
    /// unreserved characters and `%XX`.
    #[test]
    fn path_and_query_encoding_round_trips(input in "\\PC{0,40}") {
        let encoded = encode_component(&input);
        prop_assert!(encoded.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~%".contains(&b)));
        prop_assert_eq!(percent_decode(&encoded), Some(input));
    }

    /// A page's cursor -> `paging::next_page` -> `build_request`: the server
    /// reads back exactly the cursor it sent, for every cursor-paged list.
    #[test]
    fn paging_cursors_round_trip_through_built_requests(
        cursor in "\\PC{1,40}",
        limit in option::of(1u32..100),
    ) {
        let ctx = context();
        let requests = [
            (
                EndpointRequest::ListStreams {
                    query: ListStreamsQuery { stream_type: StreamType::Channel, query: None, after: None, limit, include_archived: None },
                },
                ResponseData::Streams(StreamPage { data: vec![], has_more: true, cursor: Some(cursor.clone()), extra: Default::default() }),
            ),
            (
                EndpointRequest::ListStreamMembers {
                    stream_id: "stream_01J80000000000000000000010".into(),
                    query: ListMembersQuery { after: None, limit },
                },
                ResponseData::Members(MemberPage { data: vec![], has_more: true, cursor: Some(cursor.clone()), extra: Default::default() }),
            ),
            (
                EndpointRequest::ListConversations {
                    query: ListConversationsQuery { stream_id: None, status: None, after: None, limit },
                },
                ResponseData::Conversations(ConversationPage { data: vec![], has_more: true, cursor: Some(cursor.clone()), extra: Default::default() }),
            ),
        ];
        for (first, page) in requests {
            let next = paging::next_page(&first, &page).unwrap();
            let built = build_request(&ctx, &next).unwrap();
            prop_assert_eq!(query_value(&built.url, "after"), Some(cursor.clone()));
            prop_assert!(built.query.contains(&("after".to_owned(), cursor.clone())));
            let last = match page {
                ResponseData::Streams(p) => ResponseData::Streams(StreamPage { has_more: false, ..p }),
                ResponseData::Members(p) => ResponseData::Members(MemberPage { has_more: false, ..p }),
                ResponseData::Conversations(p) => ResponseData::Conversations(ConversationPage { has_more: false, ..p }),
                other => other,
            };
            prop_assert!(paging::next_page(&first, &last).is_none());
        }
    }

    /// `ErrorCode::as_str` -> `ErrorCode::parse`, and nothing else parses.
    #[test]
    fn error_codes_round_trip(other in "[A-Z_]{1,30}") {
        for code in ErrorCode::ALL {
            prop_assert_eq!(ErrorCode::parse(code.as_str()), Some(*code));
        }
        match ErrorCode::parse(&other) {
            Some(code) => prop_assert_eq!(code.as_str(), other.as_str()),
            None => prop_assert!(ErrorCode::ALL.iter().all(|c| c.as_str() != other)),
        }
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// `user_key::set_up` -> `into_own_key` -> `unlock`, then
    /// `change_passphrase` -> `unlock` with the new passphrase (the same key).
    #[test]
    fn user_key_set_up_unlock_and_change_passphrase(
        old in "\\PC{1,16}",
        new in "\\PC{1,16}",
        key_id in "[a-z0-9_]{1,20}",
    ) {
        let params = KdfParams::creation_floor();
        let limits = KdfLimits::default();
        let (me, record) = set_up(KeyId::new(key_id.clone()).unwrap(), &old, &params).unwrap();
        let stored = record.into_own_key("2026-01-01T00:00:00Z");
        let unlocked = unlock(&stored, &old, &limits).unwrap();
        prop_assert_eq!(unlocked.public_key(), me.public_key());
        prop_assert_eq!(unlocked.key_id().as_str(), key_id.as_str());
        prop_assert_eq!(*unlocked.secret_key().to_bytes(), *me.secret_key().to_bytes());
        let changed = change_passphrase(&stored, &old, &new, &params, &limits)
            .unwrap()
            .into_own_key("2026-01-02T00:00:00Z");
        let again = unlock(&changed, &new, &limits).unwrap();
        prop_assert_eq!(*again.secret_key().to_bytes(), *me.secret_key().to_bytes());
        if streamseal::kdf::passphrase_bytes(&new) != streamseal::kdf::passphrase_bytes(&old) {
            prop_assert_eq!(unlock(&changed, &old, &limits).unwrap_err().code(), ErrorCode::WrongPassphrase);
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    /// `seal_decision_card` -> `open_decision_card` and
    /// `seal_decision_note` -> `open_decision_answer` (through the event).
    #[test]
    fn decision_cards_and_notes_round_trip(
        title in text(),
        body in text(),
        options in btree_map("[a-z]{1,8}", text(), 1..4),
        allow_note in any::<bool>(),
        note in text(),
        ts in 0u64..(1 << 40),
    ) {
        let mut ring = Keyring::new("stream_root").unwrap();
        ring.insert(0, StreamKey::generate().unwrap()).unwrap();
        let decision_id = DecisionId::mint(ts).unwrap();
        let option_list: Vec<DecisionOption> = options
            .keys()
            .map(|id| DecisionOption { id: id.clone(), tone: "neutral".into() })
            .collect();
        let labels: BTreeMap<String, String> = options.clone();
        let content = DecisionCardContent { title, body, labels };
        let placement = CardPlacement {
            stream_id: "stream_root",
            decision_id: &decision_id,
            runtime_session_id: "session-1",
            invocation_id: "inv_1",
        };
        let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a").unwrap()).unwrap();
        let user = IdentityKey::generate(RecipientKind::User, KeyId::new("laptop").unwrap()).unwrap();
        let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        // The asker holds the bot's key; the decider's key is presented, not pinned.
        let keys = SenderKeys::new(&trust)
            .with_own("bot_1", &bot)
            .with_presented("usr_1", &Recipient::of(&user));
        let bot_signer = Signer::new("bot_1", &bot).unwrap();
        let card = seal_decision_card(&ring, &bot_signer, placement, option_list, allow_note, &content).unwrap();
        let opened_card = open_decision_card(&ring, &keys, "stream_root", &card).unwrap();
        prop_assert_eq!(opened_card.content, content);
        prop_assert_eq!(opened_card.sealed_by.subject.as_str(), "bot_1");
        prop_assert_eq!(opened_card.sealed_by.status, TrustLevel::Verified);

        let option_id = options.keys().next().cloned().unwrap_or_default();
        let user_signer = Signer::new("usr_1", &user).unwrap();
        let sealed = seal_decision_note(&ring, &user_signer, decision_id.as_str(), &option_id, &note).unwrap();
        let event = DecisionResolved {
            decision_id: decision_id.as_str().to_owned(),
            option_id: option_id.clone(),
            decided_by: "usr_1".into(),
            note_ciphertext: Some(sealed.ciphertext),
            note_envelope: Some(sealed.envelope),
            extra: Default::default(),
        };
        prop_assert_eq!(
            open_decision_answer(&ring, &keys, &card, &event).unwrap(),
            DecisionAnswer {
                decision_id: decision_id.as_str().to_owned(),
                option_id,
                decided_by: "usr_1".into(),
                note,
                sealed_by: SealedBy {
                    subject: "usr_1".into(),
                    kind: RecipientKind::User,
                    key_id: "laptop".into(),
                    status: TrustLevel::Unverified,
                },
            }
        );
    }
}

/// The runtime of `tests/vectors/streamseal/invocations.json`'s first
/// claim: the vector, its invocation JSON, the runtime's key, a trust store
/// that pinned the owner's key, and a fresh state of the root that names
/// the owner and accepts that key as the stream's key sender.
struct RuntimeVector {
    vector: Value,
    runtime: IdentityKey,
    trust: TrustStore,
    owner_key: streamseal::trust::TrustedKey,
}

impl RuntimeVector {
    fn new() -> Self {
        let vectors = streamseal_vectors::golden::invocations().unwrap();
        let vector = vectors["vectors"][0].clone();
        let secret = hex::decode(vector["runtimeSecretKeyHex"].as_str().unwrap()).unwrap();
        let runtime = IdentityKey::from_secret(
            RecipientKind::Bot,
            KeyId::new(vector["runtimeKeyId"].as_str().unwrap()).unwrap(),
            SecretKey::from_bytes(&secret.try_into().unwrap()),
        );
        let owner_key = Recipient {
            kind: RecipientKind::parse(vector["ownerKeyKind"].as_str().unwrap()),
            key_id: KeyId::new(vector["ownerKeyId"].as_str().unwrap()).unwrap(),
            public_key: PublicKey::from_base64(vector["ownerPublicKey"].as_str().unwrap()).unwrap(),
        };
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let owner_key = trust
            .admit(vector["ownerUserId"].as_str().unwrap(), &owner_key)
            .unwrap();
        Self {
            vector,
            runtime,
            trust,
            owner_key,
        }
    }

    fn invocation_json(&self) -> Value {
        self.vector["invocation"].clone()
    }

    fn bot(&self) -> &str {
        self.vector["botId"].as_str().unwrap()
    }

    fn fresh_state(&self) -> StreamState {
        let root = self.vector["invocation"]["rootStreamId"].as_str().unwrap();
        let mut state = StreamState::new(root).unwrap();
        state
            .set_owner(self.vector["ownerUserId"].as_str().unwrap())
            .unwrap();
        state.accept_sender(&self.owner_key).unwrap();
        state
    }
}

/// The claimed invocation of `tests/vectors/streamseal/invocations.json`,
/// opened with its runtime key by a runtime that pinned the owner's key and
/// accepts it as the stream's key sender.
fn opened_invocation() -> (Invocation, OpenedInvocation, IdentityKey) {
    let fx = RuntimeVector::new();
    let vector = &fx.vector;
    let invocation: Invocation = serde_json::from_value(fx.invocation_json()).unwrap();
    let mut state = fx.fresh_state();
    // The history's other member presents a key the runtime has not pinned.
    let member_secret = hex::decode(vector["memberSecretKeyHex"].as_str().unwrap()).unwrap();
    let member = IdentityKey::from_secret(
        RecipientKind::parse(vector["memberKeyKind"].as_str().unwrap()),
        KeyId::new(vector["memberKeyId"].as_str().unwrap()).unwrap(),
        SecretKey::from_bytes(&member_secret.try_into().unwrap()),
    );
    let senders = SenderKeys::new(&fx.trust).with_presented(
        vector["memberUserId"].as_str().unwrap(),
        &Recipient::of(&member),
    );
    let opened = OpenedInvocation::open(
        &invocation,
        &mut state,
        &senders,
        fx.bot(),
        std::slice::from_ref(&fx.runtime),
    )
    .unwrap();
    (invocation, opened, fx.runtime)
}

/// What a binding deserializes of a claimed invocation (`InvocationToOpen`,
/// from the same JSON, its other fields ignored) opens exactly as the whole
/// invocation does: the same prompt, history, wraps and records; and an
/// invocation whose other fields are missing or of another shape opens too.
#[test]
fn an_invocation_read_in_part_opens_as_the_whole() {
    use streamseal::sealed::runtime::InvocationToOpen;
    let fx = RuntimeVector::new();
    let json = fx.invocation_json();
    let whole: Invocation = serde_json::from_value(json.clone()).unwrap();
    let mut slim = json.clone();
    for field in [
        "workspaceId",
        "actor",
        "trigger",
        "requiredCapability",
        "mentionedActorSlugs",
        "claimToken",
        "claimExpiresAt",
        "metadata",
    ] {
        slim.as_object_mut().unwrap().remove(field);
    }
    slim["context"] = json!("not an object: ignored");
    let part: InvocationToOpen = serde_json::from_value(slim).unwrap();
    assert_eq!(
        serde_json::to_value(InvocationToOpen::from(&whole).sealed_context).unwrap(),
        serde_json::to_value(&part.sealed_context).unwrap()
    );
    let senders = SenderKeys::new(&fx.trust);
    let (bot, mine) = (fx.bot(), std::slice::from_ref(&fx.runtime));
    let (mut a, mut b) = (fx.fresh_state(), fx.fresh_state());
    let by_whole = OpenedInvocation::open(&whole, &mut a, &senders, bot, mine).unwrap();
    let by_part = OpenedInvocation::prepare_to_open(&part, &mut b, &senders, bot, mine)
        .unwrap()
        .finish_with(&mut b, |_, pending, keyring| pending.open(keyring))
        .unwrap();
    assert_eq!(by_whole.prompt, by_part.prompt);
    assert_eq!(by_whole.history, by_part.history);
    assert_eq!(by_whole.invocation_id(), by_part.invocation_id());
    for state in [&a, &b] {
        assert!(state.is_sealed());
        assert!(state.was_acted_on(&whole.source_message_id, whole.source_revision));
    }
    assert_eq!(a.keyring().generations(), b.keyring().generations());
    // The same prompt under another invocation is refused through the parts
    // as through the whole.
    let other = "inv_01JD3QR1G3J5M7Q9S1V3X5Z7B9";
    let part = InvocationToOpen {
        id: other.into(),
        ..part
    };
    let whole = Invocation {
        id: other.into(),
        ..whole
    };
    let again = OpenedInvocation::prepare_to_open(&part, &mut b, &senders, bot, mine)
        .unwrap()
        .finish_with(&mut b, |_, pending, keyring| pending.open(keyring));
    assert_eq!(again.unwrap_err().code(), ErrorCode::PromptReplayed);
    assert_eq!(
        OpenedInvocation::open(&whole, &mut a, &senders, bot, mine)
            .unwrap_err()
            .code(),
        ErrorCode::PromptReplayed
    );
}

/// A prepared invocation records its prompt in the very state it was
/// prepared against: a copy of that state, or another state of the same
/// root, is refused before anything opens, and records nothing (recording
/// there would let the prepared state act on the prompt again).
#[test]
fn a_prepared_invocation_completes_only_in_its_own_state() {
    let fx = RuntimeVector::new();
    let whole: Invocation = serde_json::from_value(fx.invocation_json()).unwrap();
    let senders = SenderKeys::new(&fx.trust);
    let (bot, mine) = (fx.bot(), std::slice::from_ref(&fx.runtime));
    let mut state = fx.fresh_state();
    let prepare = |state: &mut StreamState| {
        OpenedInvocation::prepare(&whole, state, &senders, bot, mine).unwrap()
    };
    let open = |pending: PendingInvocation, state: &mut StreamState| {
        pending.finish_with(state, |_, pending, keyring| pending.open(keyring))
    };
    let mut copy = state.clone();
    let mut other = fx.fresh_state();
    for elsewhere in [&mut copy, &mut other] {
        let pending = prepare(&mut state);
        let refused = open(pending, elsewhere).unwrap_err();
        assert_eq!(refused.code(), ErrorCode::InvalidField);
        assert!(!elsewhere.was_acted_on(&whole.source_message_id, whole.source_revision));
    }
    assert!(!state.was_acted_on(&whole.source_message_id, whole.source_revision));
    let pending = prepare(&mut state);
    assert!(open(pending, &mut state).is_ok());
    assert!(state.was_acted_on(&whole.source_message_id, whole.source_revision));
}

/// Where a viewer expects a step of `bot` in `invocation_id`.
fn step_placement<'a>(
    invocation_id: &'a str,
    bot_id: &'a str,
    step_id: &'a str,
    step_type: &'a StepType,
    phase: StepPhase,
    message_id: Option<&'a str>,
) -> StepPlacement<'a> {
    StepPlacement {
        invocation_id,
        bot_id,
        step_id,
        step_type,
        phase,
        message_id,
    }
}

fn step_type() -> impl Strategy<Value = StepType> {
    prop_oneof![
        Just(StepType::Thinking),
        Just(StepType::WebSearch),
        Just(StepType::VisitPage),
        Just(StepType::ToolCall),
        Just(StepType::Response),
    ]
}

proptest! {
    #![proptest_config(config(48))]

    /// A runtime's sealed steps -> `step_frames` -> `open_step` (started and
    /// completed), and its sealed reply -> opened under the bot-reply slot.
    #[test]
    fn runtime_steps_and_replies_round_trip(
        text in "\\PC{1,64}",
        step_id in "[a-z0-9_]{1,24}",
        step_type in step_type(),
        message_id in option::of("msg_[0-9A-Z]{26}"),
        ts in 0u64..(1 << 40),
    ) {
        let (invocation, opened, runtime) = opened_invocation();
        let ring = opened.keyring();
        let bot = invocation.sealed_context.as_ref().unwrap().reply.sender_id.clone();
        let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let keys = SenderKeys::new(&trust).with_own(&bot, &runtime);
        let placement = |step_id, step_type, phase, message_id| {
            step_placement(&invocation.id, &bot, step_id, step_type, phase, message_id)
        };
        let started = opened
            .seal_step_started(&step_id, &step_type, message_id.as_deref(), Some(&text))
            .unwrap();
        let (ct, env) = (started.ciphertext.clone().unwrap(), started.envelope.clone().unwrap());
        let payload = streamseal::envelope::SealedPayload { ciphertext: ct, envelope: env, extra: Default::default() };
        let started_step = open_step(
            ring, &keys, placement(&step_id, &step_type, StepPhase::Started, message_id.as_deref()), &payload,
        ).unwrap();
        prop_assert_eq!(started_step.text, text.clone());
        prop_assert_eq!(started_step.sealed_by.subject.as_str(), bot.as_str());
        prop_assert_eq!(started_step.sealed_by.status, TrustLevel::Verified);
        let step = opened.seal_step(&step_id, &step_type, message_id.as_deref(), &text, Some(7)).unwrap();
        let frames = opened.step_frames(std::slice::from_ref(&step));
        prop_assert_eq!(frames.invocation_id.as_str(), invocation.id.as_str());
        for frame in &frames.steps {
            let payload = streamseal::envelope::SealedPayload {
                ciphertext: frame.ciphertext.clone().unwrap(),
                envelope: frame.envelope.clone().unwrap(),
                extra: Default::default(),
            };
            let opened_step = open_step(
                ring, &keys,
                placement(&frame.step_id, &frame.step_type, StepPhase::Completed, frame.message_id.as_deref()),
                &payload,
            ).unwrap();
            prop_assert_eq!(opened_step.text, text.clone());
            // The started phase is another slot.
            prop_assert!(open_step(
                ring, &keys,
                placement(&frame.step_id, &frame.step_type, StepPhase::Started, frame.message_id.as_deref()),
                &payload,
            ).is_err());
        }

        let reply_id = MessageId::mint(ts).unwrap();
        let body = opened.seal_reply(&reply_id, &text).unwrap();
        let reply = body.reply.unwrap();
        let ctx = invocation.sealed_context.as_ref().unwrap();
        let slot = Slot::BotReply {
            stream_id: invocation.response_stream_id.clone(),
            message_id: reply_id.as_str().to_owned(),
            author_id: ctx.reply.sender_id.clone(),
            invocation_id: invocation.id.clone(),
        };
        let plain = streamseal::envelope::open(ring, &keys, &slot, &reply.sealed).unwrap();
        prop_assert_eq!(&*plain.plaintext, text.as_bytes());
        prop_assert_eq!(plain.sealed_by.subject.as_str(), bot.as_str());
    }

    /// Each of a runtime's seals split at its AES-GCM (`prepare_seal_*`, the
    /// platform encrypting under the invocation's key, `finish`) gives the
    /// body of its one-call form, whose envelope opens under its slot as the
    /// bot's; a completion after the stream's keys were dropped seals
    /// nothing.
    #[test]
    fn runtime_seals_split_at_aes_gcm_are_their_one_call_bodies(
        text in "\\PC{1,64}",
        step_type in step_type(),
        message_id in option::of("msg_[0-9A-Z]{26}"),
        ts in 0u64..(1 << 40),
    ) {
        use aes_gcm::aead::{Aead, KeyInit, Payload};
        let (invocation, opened, runtime) = opened_invocation();
        let ring = opened.keyring();
        let bot = invocation.sealed_context.as_ref().unwrap().reply.sender_id.clone();
        let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let keys = SenderKeys::new(&trust).with_own(&bot, &runtime);
        let platform = |seal: &streamseal::envelope::PendingSeal| {
            let key = ring.key(seal.key_generation()).unwrap().to_bytes();
            aes_gcm::Aes256Gcm::new(&(*key).into())
                .encrypt(&aes_gcm::Nonce::from(*seal.iv()), Payload { msg: seal.aead_input(), aad: seal.aad() })
                .unwrap()
        };
        let opens_as = |slot: &Slot, sealed: &streamseal::envelope::SealedPayload| {
            let plain = streamseal::envelope::open(ring, &keys, slot, sealed).unwrap();
            (String::from_utf8(plain.plaintext.to_vec()).unwrap(), plain.sealed_by.subject)
        };
        let expected = (text.clone(), bot.clone());
        let id = MessageId::mint(ts).unwrap();
        let reply_slot = Slot::BotReply {
            stream_id: invocation.response_stream_id.clone(),
            message_id: id.as_str().to_owned(),
            author_id: bot.clone(),
            invocation_id: invocation.id.clone(),
        };

        // A body as JSON without its ciphertexts and envelopes (random).
        fn clear(body: Value) -> Value {
            match body {
                Value::Object(map) => Value::Object(
                    map.into_iter()
                        .filter(|(k, _)| k != "ciphertext" && k != "envelope")
                        .map(|(k, v)| (k, clear(v)))
                        .collect(),
                ),
                other => other,
            }
        }
        let same = |split: &dyn erased::Json, whole: &dyn erased::Json| clear(split.json()) == clear(whole.json());

        let pending = opened.prepare_seal_reply(&id, &text).unwrap();
        let encrypted = platform(pending.seal());
        let split = pending.finish(ring, &encrypted).unwrap();
        prop_assert!(same(&split, &opened.seal_reply(&id, &text).unwrap()));
        prop_assert_eq!(opens_as(&reply_slot, &split.reply.unwrap().sealed), expected.clone());

        let pending = opened.prepare_seal_complete_reply(&id, &text).unwrap();
        let encrypted = platform(pending.seal());
        let split = pending.finish(ring, &encrypted).unwrap();
        prop_assert!(same(&split, &opened.seal_complete_reply(&id, &text).unwrap()));
        prop_assert_eq!(opens_as(&reply_slot, &split.sealed), expected.clone());

        let pending = opened.prepare_seal_message(&id, &text).unwrap();
        let encrypted = platform(pending.seal());
        let split = pending.finish(ring, &encrypted).unwrap();
        prop_assert!(same(&split, &opened.seal_message(&id, &text).unwrap()));
        prop_assert_eq!(opens_as(&reply_slot, &split.sealed), expected.clone());

        for phase in [StepPhase::Started, StepPhase::Completed] {
            let placement = StepPlacement {
                invocation_id: &invocation.id,
                bot_id: &bot,
                step_id: "step_1",
                step_type: &step_type,
                phase,
                message_id: message_id.as_deref(),
            };
            let sealed = if phase == StepPhase::Started {
                let pending = opened
                    .prepare_seal_step_started("step_1", &step_type, message_id.as_deref(), &text)
                    .unwrap();
                let encrypted = platform(pending.seal());
                let body = pending.finish(ring, &encrypted).unwrap();
                let whole = opened
                    .seal_step_started("step_1", &step_type, message_id.as_deref(), Some(&text))
                    .unwrap();
                prop_assert!(same(&body, &whole));
                streamseal::envelope::SealedPayload {
                    ciphertext: body.ciphertext.unwrap(),
                    envelope: body.envelope.unwrap(),
                    extra: Default::default(),
                }
            } else {
                let pending = opened
                    .prepare_seal_step("step_1", &step_type, message_id.as_deref(), &text, Some(7))
                    .unwrap();
                let encrypted = platform(pending.seal());
                let body = pending.finish(ring, &encrypted).unwrap();
                let whole = opened
                    .seal_step("step_1", &step_type, message_id.as_deref(), &text, Some(7))
                    .unwrap();
                prop_assert!(same(&body, &whole));
                body.sealed
            };
            let step = open_step(ring, &keys, placement, &sealed).unwrap();
            prop_assert_eq!((step.text, step.sealed_by.subject), expected.clone());
        }

        // The stream's keys dropped while the platform encrypted (a revoke):
        // the invocation's keyring shares the clear, and nothing is sealed.
        let pending = opened.prepare_seal_reply(&id, &text).unwrap();
        let encrypted = platform(pending.seal());
        let mut cleared = ring.clone();
        cleared.clear();
        prop_assert_eq!(
            pending.finish(ring, &encrypted).unwrap_err().code(),
            ErrorCode::UnknownKeyGeneration
        );
        prop_assert_eq!(
            opened.prepare_seal_message(&id, &text).unwrap_err().code(),
            ErrorCode::UnknownKeyGeneration
        );
    }

    /// `ServiceVersion::parse` -> `as_str` keeps any text; known versions
    /// parse to their `ApiVersion`.
    #[test]
    fn service_versions_round_trip(text in "\\PC{0,16}") {
        let parsed = ServiceVersion::parse(&text);
        prop_assert_eq!(parsed.as_str(), text.as_str());
        prop_assert_eq!(ServiceVersion::parse(parsed.as_str()), parsed.clone());
        for v in ApiVersion::ALL {
            prop_assert_eq!(ServiceVersion::parse(v.as_str()), ServiceVersion::Known(v));
        }
    }
}

/// Any serializable body as JSON, behind one object-safe trait.
mod erased {
    pub trait Json {
        fn json(&self) -> serde_json::Value;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap()
        }
    }
}

/// What the kind decides when a slot is read: which fields are required,
/// that `null` is absent, and that a field of another kind keeps its type.
#[test]
fn slot_json_is_read_by_its_kind() {
    let read = |text: &str| serde_json::from_str::<Slot>(text).map_err(|e| e.to_string());
    let step =
        r#"{"kind":"traceStep","invocationId":"i","stepId":"s","stepType":"t","phase":"started""#;
    assert_eq!(
        read(&format!("{step}}}")).unwrap(),
        read(&format!(r#"{step},"messageId":null}}"#)).unwrap()
    );
    assert!(matches!(
        read(&format!(r#"{step},"messageId":"m"}}"#)).unwrap(),
        Slot::TraceStep { message_id: Some(m), .. } if m == "m"
    ));
    // A message's messageId is required: `null` is its absence.
    let message = r#""streamId":"s","authorId":"a","authorType":"user","revision":1"#;
    let err = read(&format!(
        r#"{{"kind":"message",{message},"messageId":null}}"#
    ))
    .unwrap_err();
    assert!(err.contains("missing field `messageId`"), "{err}");
    // The fields of a decision card mean nothing to a message, but keep their type.
    let ok = format!(r#"{{"kind":"message",{message},"messageId":"m","allowNote":true}}"#);
    assert!(read(&ok).is_ok());
    let err = read(&format!(
        r#"{{"kind":"message",{message},"messageId":"m","allowNote":"yes"}}"#
    ))
    .unwrap_err();
    assert!(err.contains("invalid type"), "{err}");
    // No kind, or one the format does not have.
    let err = read(&format!(r#"{{{message},"messageId":"m"}}"#)).unwrap_err();
    assert!(err.contains("missing field `kind`"), "{err}");
    let err = read(&format!(
        r#"{{"kind":"messages",{message},"messageId":"m"}}"#
    ))
    .unwrap_err();
    assert!(err.contains("unknown variant `messages`"), "{err}");
    // Not an object: neither a kind alone nor every field in a row.
    for text in [
        r#"["message"]"#,
        r#"["botReply","s","m","a",null,null,"i",null,null,null,null,null,null,null,null,null]"#,
        r#""message""#,
    ] {
        let err = read(text).unwrap_err();
        assert!(err.contains("expected a slot object"), "{text}: {err}");
    }
}
