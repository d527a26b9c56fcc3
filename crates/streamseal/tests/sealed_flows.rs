#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
//! Acceptance of the sealed flows, through the public API only: the shared
//! scratchpad scenario, a hostile server's tampering, and random membership
//! histories. A small fake server turns request bodies into the responses
//! the API would return.

use proptest::prelude::*;
use serde_json::{Value, json};
use streamseal::ErrorCode;
use streamseal::envelope::SealedPayload;
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::decisions::{
    CardPlacement, DecisionCardContent, open_decision_card, open_decision_note, seal_decision_note,
};
use streamseal::sealed::keyring::open_key_wraps;
use streamseal::sealed::messages::{check_send_rules, open_message, seal_edit, seal_message};
use streamseal::sealed::presence::{KeyPolicy, on_revoke};
use streamseal::sealed::runtime::{OpenedInvocation, open_step};
use streamseal::sealed::{session, user_key};
use streamseal::slot::{DecisionOption, StepPhase};
use streamseal::stream_key::Keyring;
use streamseal::wire::events::{DecisionResolved, E2eRevoke};
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::{KeyWraps, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::wrap::KeyWrap;

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const OTHER_ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7N";
const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const USER2: &str = "usr_01JD3QS2E3C4N5D6000000000A";
const BOT: &str = "bot_01JD3QB0T0000000000000000B";
const INV: &str = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7";

fn code<T: std::fmt::Debug>(r: Result<T, streamseal::Error>) -> ErrorCode {
    r.unwrap_err().code()
}

fn mid(n: u64) -> MessageId {
    MessageId::mint(1_700_000_000_000 + n).unwrap()
}

/// A message as list responses carry it.
fn message(
    id: &str,
    author: &str,
    author_type: &str,
    revision: u32,
    sealed: &SealedPayload,
) -> Message {
    serde_json::from_value(json!({
        "id": id, "streamId": ROOT, "sequence": "1", "authorId": author, "authorType": author_type,
        "content": "[sealed]", "replyCount": 0, "metadata": {}, "revision": revision,
        "createdAt": "2026-11-21T10:00:00Z", "sealed": sealed,
    }))
    .unwrap()
}

fn posted(body: &SendMessageRequest, id: &MessageId, author: &str) -> Message {
    message(
        id.as_str(),
        author,
        "user",
        1,
        body.sealed.as_ref().unwrap(),
    )
}

fn listed(current: u32, wraps: &[KeyWrap]) -> KeyWraps {
    KeyWraps {
        current_key_generation: current,
        owner_user_id: OWNER.into(),
        wraps: wraps.to_vec(),
    }
}

fn ring(wraps: &KeyWraps, key: &IdentityKey) -> Keyring {
    open_key_wraps(ROOT, wraps, std::slice::from_ref(key))
        .unwrap()
        .keyring
}

/// The claim payload a server builds for `trigger`, with the bot's wraps
/// stripped of their recipient fields.
fn invocation(
    wraps: &[KeyWrap],
    history: &[&Message],
    trigger: &Message,
    author: &str,
) -> Invocation {
    let wraps: Vec<Value> = wraps
        .iter()
        .filter(|w| w.recipient_kind == Some(RecipientKind::Bot))
        .map(|w| json!({"keyGeneration": w.key_generation, "wrapEnc": w.wrap_enc, "wrapCt": w.wrap_ct}))
        .collect();
    let history: Vec<Value> = history
        .iter()
        .map(|m| {
            let s = m.sealed.as_ref().unwrap();
            json!({"ciphertext": s.ciphertext, "envelope": s.envelope, "role": "user", "sequence": m.sequence})
        })
        .collect();
    serde_json::from_value(json!({
        "id": INV, "workspaceId": "ws_01JD3Q00000000000000000000", "rootStreamId": ROOT,
        "activeStreamId": ROOT, "sourceMessageId": trigger.id, "responseStreamId": ROOT,
        "actor": {"type": "bot", "id": BOT, "slug": "helper"}, "trigger": "mention",
        "requiredCapability": "mentionable", "sourceRevision": trigger.revision,
        "authorUserId": author, "mentionedActorSlugs": ["helper"], "claimToken": "clm_x",
        "claimExpiresAt": "2026-11-21T10:01:00Z", "runtimeSessionId": "s1", "metadata": {},
        "sealedContext": {
            "callbackToken": "cbt_x", "wraps": wraps, "history": history,
            "prompt": trigger.sealed, "reply": {"keyGeneration": 0, "senderId": BOT},
            "trigger": {"messageId": trigger.id, "authorName": "U", "authorType": "user", "createdAt": "2026-11-21T10:00:00Z"},
        },
    }))
    .unwrap()
}

struct World {
    owner: IdentityKey,
    owner_key: OwnerKey,
    user2: IdentityKey,
    machines: [IdentityKey; 2],
    gen0: Vec<KeyWrap>,
}

fn world() -> World {
    let params = KdfParams::argon2id(64, 1, 1);
    let (created, record) =
        user_key::set_up(KeyId::new("owner-laptop").unwrap(), "pass phrase", &params).unwrap();
    let stored = record.into_own_key("2026-11-21T00:00:00Z");
    assert_eq!(
        code(user_key::unlock(&stored, "wrong", &KdfLimits::default())),
        ErrorCode::WrongPassphrase
    );
    let owner = user_key::unlock(&stored, "pass phrase", &KdfLimits::default()).unwrap();
    assert_eq!(owner.public_key(), created.public_key());
    let owner_key = OwnerKey {
        key_id: stored.key_id.clone(),
        public_key: stored.public_key,
    };
    let user2 =
        IdentityKey::generate(RecipientKind::User, KeyId::new("u2-phone").unwrap()).unwrap();
    let machines = [
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a").unwrap()).unwrap(),
        IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-b").unwrap()).unwrap(),
    ];
    let recipients = vec![
        session::owner_recipient(&owner_key).unwrap(),
        Recipient::of(&user2),
        Recipient::of(&machines[0]),
        Recipient::of(&machines[1]),
    ];
    let (_, gen0) = session::generation_zero(ROOT, &recipients).unwrap();
    assert_eq!(gen0.request.wraps.len(), 4);
    World {
        owner,
        owner_key,
        user2,
        machines,
        gen0: gen0.wraps,
    }
}

#[test]
fn shared_scratchpad_scenario() {
    let w = world();
    let list0 = listed(0, &w.gen0);
    let mut owner_ring = ring(&list0, &w.owner);
    let u2_ring = ring(&list0, &w.user2);
    let machine_rings: Vec<Keyring> = w.machines.iter().map(|m| ring(&list0, m)).collect();

    // Messages from both users open for every member.
    let (id1, id2) = (mid(1), mid(2));
    let b1 = seal_message(
        &owner_ring,
        ROOT,
        &id1,
        OWNER,
        "freeze on Wednesday",
        Some("c1".into()),
    )
    .unwrap();
    let b2 = seal_message(&u2_ring, ROOT, &id2, USER2, "@helper what is left?", None).unwrap();
    check_send_rules(true, &b1).unwrap();
    let m1 = posted(&b1, &id1, OWNER);
    let m2 = posted(&b2, &id2, USER2);
    for r in [&owner_ring, &u2_ring, &machine_rings[0], &machine_rings[1]] {
        assert_eq!(open_message(r, &m1).unwrap().text, "freeze on Wednesday");
        assert_eq!(open_message(r, &m2).unwrap().text, "@helper what is left?");
    }

    // An edit binds revision 2; everyone reads it.
    let edited_sealed = seal_edit(&owner_ring, &m1, OWNER, "freeze on Tuesday").unwrap();
    let m1_edited = message(id1.as_str(), OWNER, "user", 2, &edited_sealed);
    for r in [&owner_ring, &u2_ring, &machine_rings[1]] {
        let opened = open_message(r, &m1_edited).unwrap();
        assert_eq!(
            (opened.text.as_str(), opened.revision),
            ("freeze on Tuesday", 2)
        );
    }

    // The runtime's second machine opens the invocation.
    let inv = invocation(&w.gen0, &[&m1_edited], &m2, USER2);
    let opened = OpenedInvocation::open(&inv, &w.machines[1..]).unwrap();
    assert_eq!(opened.prompt, "@helper what is left?");
    assert_eq!(opened.history.len(), 1);
    assert_eq!(opened.history[0].text, "freeze on Tuesday");
    assert_eq!(opened.history[0].slot.message_id(), Some(id1.as_str()));

    // Steps, reply and a follow-up open for the members.
    let started = opened
        .seal_step_started("step-1", &StepType::Thinking, None, Some("reading"))
        .unwrap();
    let finished = opened
        .seal_step(
            "step-1",
            &StepType::Thinking,
            None,
            "two items left",
            Some(20),
        )
        .unwrap();
    let started_payload = SealedPayload {
        ciphertext: started.ciphertext.clone().unwrap(),
        envelope: started.envelope.clone().unwrap(),
    };
    for r in [&owner_ring, &u2_ring] {
        let s = open_step(
            r,
            INV,
            "step-1",
            &StepType::Thinking,
            StepPhase::Started,
            None,
            &started_payload,
        );
        assert_eq!(s.unwrap(), "reading");
        let f = open_step(
            r,
            INV,
            "step-1",
            &StepType::Thinking,
            StepPhase::Completed,
            None,
            &finished.sealed,
        );
        assert_eq!(f.unwrap(), "two items left");
    }
    let frames = opened.step_frames(std::slice::from_ref(&finished));
    assert_eq!(frames.steps.len(), 1);

    let reply_id = mid(3);
    let complete = opened.seal_reply(&reply_id, "changelog and tag").unwrap();
    let reply = complete.reply.unwrap();
    let reply_msg = message(reply_id.as_str(), BOT, "bot", 1, &reply.sealed);
    let follow_id = mid(4);
    let follow = opened.seal_message(&follow_id, "tag pushed").unwrap();
    let follow_msg = message(follow_id.as_str(), BOT, "bot", 1, &follow.sealed);
    for r in [&owner_ring, &u2_ring] {
        let got = open_message(r, &reply_msg).unwrap();
        assert_eq!(got.text, "changelog and tag");
        assert_eq!(got.invocation_id.as_deref(), Some(INV));
        assert_eq!(open_message(r, &follow_msg).unwrap().text, "tag pushed");
    }

    // A decision card and its note.
    let decision = DecisionId::mint(1_700_000_000_005).unwrap();
    let options = vec![
        DecisionOption {
            id: "ship".into(),
            tone: "primary".into(),
        },
        DecisionOption {
            id: "wait".into(),
            tone: "neutral".into(),
        },
    ];
    let content = DecisionCardContent {
        title: "Ship?".into(),
        body: "All green".into(),
        labels: [("ship".to_owned(), "Ship it".to_owned())].into(),
    };
    let card = opened
        .seal_decision_card(ROOT, &decision, options, true, &content, "s1")
        .unwrap();
    for r in [&owner_ring, &u2_ring] {
        assert_eq!(open_decision_card(r, ROOT, &card).unwrap(), content);
    }
    let note = seal_decision_note(
        &u2_ring,
        decision.as_str(),
        "ship",
        USER2,
        "go, I am on call",
    )
    .unwrap();
    let resolved: DecisionResolved = serde_json::from_value(json!({
        "decisionId": decision.as_str(), "optionId": "ship", "decidedBy": USER2,
        "noteCiphertext": note.ciphertext, "noteEnvelope": note.envelope,
    }))
    .unwrap();
    for r in [&owner_ring, &u2_ring, opened.keyring()] {
        assert_eq!(
            open_decision_note(r, &resolved).unwrap().as_deref(),
            Some("go, I am on call")
        );
    }

    // The bot is removed: the generation rolls to the remaining members.
    let mut runtime_rings =
        std::collections::BTreeMap::from([(ROOT.to_owned(), opened.keyring().clone())]);
    let revoke = E2eRevoke {
        workspace_id: "ws_01JD3Q00000000000000000000".into(),
        bot_id: BOT.into(),
        stream_id: ROOT.into(),
    };
    assert!(on_revoke(&mut runtime_rings, &revoke, KeyPolicy::PerMachine).dropped);
    assert!(runtime_rings.is_empty());
    let remaining = [
        session::owner_recipient(&w.owner_key).unwrap(),
        Recipient::of(&w.user2),
    ];
    let gen1 = session::roll_generation(&mut owner_ring, &remaining).unwrap();
    assert_eq!(gen1.key_generation, 1);
    let mut server_wraps: Vec<KeyWrap> = w
        .gen0
        .iter()
        .filter(|x| x.recipient_kind != Some(RecipientKind::Bot))
        .cloned()
        .collect();
    server_wraps.extend(gen1.wraps.iter().cloned());
    let list1 = listed(1, &server_wraps);
    let u2_ring = ring(&list1, &w.user2);
    assert_eq!(u2_ring.current_generation(), Some(1));

    let id5 = mid(5);
    let b5 = seal_message(
        &owner_ring,
        ROOT,
        &id5,
        OWNER,
        "launch moved to Friday",
        None,
    )
    .unwrap();
    let m5 = posted(&b5, &id5, OWNER);
    assert_eq!(m5.sealed.as_ref().unwrap().envelope.key_generation, 1);
    for r in [&owner_ring, &u2_ring] {
        assert_eq!(open_message(r, &m5).unwrap().text, "launch moved to Friday");
        assert_eq!(
            open_message(r, &m1_edited).unwrap().text,
            "freeze on Tuesday"
        );
        assert_eq!(
            open_message(r, &reply_msg).unwrap().text,
            "changelog and tag"
        );
    }
    for m in &w.machines {
        let bot_ring = open_key_wraps(ROOT, &list1, std::slice::from_ref(m))
            .unwrap()
            .keyring;
        assert!(bot_ring.generations().is_empty());
        assert_eq!(
            code(open_message(&bot_ring, &m5)),
            ErrorCode::UnknownKeyGeneration
        );
    }
    // Even the keys the bot held before removal do not open what follows.
    assert_eq!(
        code(open_message(opened.keyring(), &m5)),
        ErrorCode::UnknownKeyGeneration
    );
}

#[test]
fn tampering_by_a_hostile_server() {
    let w = world();
    let list0 = listed(0, &w.gen0);
    let owner_ring = ring(&list0, &w.owner);
    let id = mid(1);
    let body = seal_message(&owner_ring, ROOT, &id, OWNER, "secret", None).unwrap();
    let sealed = body.sealed.clone().unwrap();
    let good = posted(&body, &id, OWNER);
    assert!(open_message(&owner_ring, &good).is_ok());

    // Moved to another stream, message, author; replayed under another revision.
    let mut moved = good.clone();
    moved.stream_id = "stream_01JD3QJ5THREAD00000000000A".into();
    assert_eq!(
        code(open_message(&owner_ring, &moved)),
        ErrorCode::AadMismatch
    );
    let other = message(mid(2).as_str(), OWNER, "user", 1, &sealed);
    assert_eq!(
        code(open_message(&owner_ring, &other)),
        ErrorCode::AadMismatch
    );
    let forged_author = message(id.as_str(), USER2, "user", 1, &sealed);
    assert_eq!(
        code(open_message(&owner_ring, &forged_author)),
        ErrorCode::AadMismatch
    );
    let replayed = message(id.as_str(), OWNER, "user", 2, &sealed);
    assert_eq!(
        code(open_message(&owner_ring, &replayed)),
        ErrorCode::AadMismatch
    );

    // Moved to another generation.
    let mut regen = sealed.clone();
    regen.envelope.key_generation = 1;
    let regen_msg = message(id.as_str(), OWNER, "user", 1, &regen);
    assert_eq!(
        code(open_message(&owner_ring, &regen_msg)),
        ErrorCode::AadMismatch
    );

    // Steps, cards, notes and replies moved.
    let id3 = mid(3);
    let trigger = posted(
        &seal_message(&owner_ring, ROOT, &id3, OWNER, "@helper go", None).unwrap(),
        &id3,
        OWNER,
    );
    let inv = invocation(&w.gen0, &[], &trigger, OWNER);
    let opened = OpenedInvocation::open(&inv, &w.machines[..1]).unwrap();
    let step = opened
        .seal_step("s1", &StepType::ToolCall, None, "x", None)
        .unwrap();
    for (step_id, ty, phase) in [
        ("s2", StepType::ToolCall, StepPhase::Completed),
        ("s1", StepType::Thinking, StepPhase::Completed),
        ("s1", StepType::ToolCall, StepPhase::Started),
    ] {
        let r = open_step(&owner_ring, INV, step_id, &ty, phase, None, &step.sealed);
        assert_eq!(code(r), ErrorCode::AadMismatch);
    }
    let r = open_step(
        &owner_ring,
        "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z8",
        "s1",
        &StepType::ToolCall,
        StepPhase::Completed,
        None,
        &step.sealed,
    );
    assert_eq!(code(r), ErrorCode::AadMismatch);

    let decision = DecisionId::mint(1_700_000_000_009).unwrap();
    let content = DecisionCardContent {
        title: "t".into(),
        body: "b".into(),
        labels: Default::default(),
    };
    let options = vec![
        DecisionOption {
            id: "a".into(),
            tone: "primary".into(),
        },
        DecisionOption {
            id: "b".into(),
            tone: "neutral".into(),
        },
    ];
    let card = streamseal::sealed::decisions::seal_decision_card(
        &owner_ring,
        CardPlacement {
            stream_id: ROOT,
            decision_id: &decision,
            runtime_session_id: "s",
            invocation_id: INV,
        },
        options,
        false,
        &content,
    )
    .unwrap();
    let mut swapped = card.clone();
    swapped.options.reverse();
    assert_eq!(
        code(open_decision_card(&owner_ring, ROOT, &swapped)),
        ErrorCode::AadMismatch
    );
    let mut restyled = card.clone();
    restyled.options[1].tone = "primary".into();
    assert_eq!(
        code(open_decision_card(&owner_ring, ROOT, &restyled)),
        ErrorCode::AadMismatch
    );
    let mut other_decision = card.clone();
    other_decision.decision_id = DecisionId::mint(1_700_000_000_010).unwrap().as_str().into();
    assert_eq!(
        code(open_decision_card(&owner_ring, ROOT, &other_decision)),
        ErrorCode::AadMismatch
    );
    let mut note_allowed = card.clone();
    note_allowed.allow_note = true;
    assert_eq!(
        code(open_decision_card(&owner_ring, ROOT, &note_allowed)),
        ErrorCode::AadMismatch
    );

    let note = seal_decision_note(&owner_ring, decision.as_str(), "a", OWNER, "n").unwrap();
    for (option, by) in [("b", OWNER), ("a", USER2)] {
        let event: DecisionResolved = serde_json::from_value(json!({
            "decisionId": decision.as_str(), "optionId": option, "decidedBy": by,
            "noteCiphertext": note.ciphertext, "noteEnvelope": note.envelope,
        }))
        .unwrap();
        assert_eq!(
            code(open_decision_note(&owner_ring, &event)),
            ErrorCode::AadMismatch
        );
    }

    // A reply opens only as a bot message of its own invocation and id.
    let reply_id = mid(7);
    let reply = opened.seal_reply(&reply_id, "r").unwrap().reply.unwrap();
    let as_other = message(mid(8).as_str(), BOT, "bot", 1, &reply.sealed);
    assert_eq!(
        code(open_message(&owner_ring, &as_other)),
        ErrorCode::AadMismatch
    );
    let as_user = message(reply_id.as_str(), OWNER, "user", 1, &reply.sealed);
    assert_eq!(
        code(open_message(&owner_ring, &as_user)),
        ErrorCode::AadMismatch
    );
    let as_reply = message(reply_id.as_str(), BOT, "bot", 1, &reply.sealed);
    assert_eq!(
        open_message(&owner_ring, &as_reply)
            .unwrap()
            .invocation_id
            .as_deref(),
        Some(INV)
    );

    // Wraps swapped between root streams do not open.
    let skipped = open_key_wraps(OTHER_ROOT, &list0, std::slice::from_ref(&w.owner)).unwrap();
    assert!(skipped.keyring.generations().is_empty());
    assert_eq!(skipped.skipped[0].code, ErrorCode::WrapOpenFailed);

    // The newest wrap dropped: sealing fails instead of falling back.
    let mut ring1 = owner_ring.clone();
    let gen1 = session::roll_generation(&mut ring1, &[Recipient::of(&w.user2)]).unwrap();
    let dropped = listed(1, &w.gen0);
    let u2_ring = ring(&dropped, &w.user2);
    assert_eq!(u2_ring.current_generation(), Some(1));
    let r = seal_message(&u2_ring, ROOT, &mid(9), USER2, "x", None);
    assert_eq!(code(r), ErrorCode::UnknownKeyGeneration);
    // A rollback (announcing generation 0 while 1 is held) still seals under 1.
    let mut both = w.gen0.clone();
    both.extend(gen1.wraps.iter().cloned());
    let rolled_back = ring(&listed(0, &both), &w.user2);
    let b = seal_message(&rolled_back, ROOT, &mid(10), USER2, "x", None).unwrap();
    assert_eq!(b.sealed.unwrap().envelope.key_generation, 1);
    // A conflicting wrap for a held generation (a server-chosen key).
    let (_, rogue) = session::generation_zero(ROOT, &[Recipient::of(&w.user2)]).unwrap();
    let mut conflicting = w.gen0.clone();
    conflicting.extend(rogue.wraps);
    let r = open_key_wraps(
        ROOT,
        &listed(0, &conflicting),
        std::slice::from_ref(&w.user2),
    );
    assert_eq!(code(r), ErrorCode::KeyGenerationConflict);

    // The service's send rules, before sending.
    let plain = SendMessageRequest {
        content: Some("hi".into()),
        ..SendMessageRequest::default()
    };
    assert_eq!(
        code(check_send_rules(true, &plain)),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    assert_eq!(
        code(check_send_rules(false, &body)),
        ErrorCode::E2ePayloadRequiresE2eStream
    );
    check_send_rules(false, &plain).unwrap();

    // An invocation whose trigger names another message, or whose prompt
    // was sealed for another revision.
    let mut bad = invocation(&w.gen0, &[], &trigger, OWNER);
    bad.sealed_context.as_mut().unwrap().trigger.message_id = mid(99).as_str().into();
    assert_eq!(
        code(OpenedInvocation::open(&bad, &w.machines[..1])),
        ErrorCode::InvalidField
    );
    let mut revised = invocation(&w.gen0, &[], &trigger, OWNER);
    revised.source_revision = 2;
    assert_eq!(
        code(OpenedInvocation::open(&revised, &w.machines[..1])),
        ErrorCode::AadMismatch
    );
    // Another author claimed for the prompt.
    let wrong_author = invocation(&w.gen0, &[], &trigger, USER2);
    assert_eq!(
        code(OpenedInvocation::open(&wrong_author, &w.machines[..1])),
        ErrorCode::AadMismatch
    );
    // Keys of someone the wraps were not made for.
    assert_eq!(
        code(OpenedInvocation::open(&inv, std::slice::from_ref(&w.user2))),
        ErrorCode::WrapOpenFailed
    );
}

#[derive(Clone, Debug)]
enum Op {
    Join(usize),
    Leave(usize),
    Send(usize),
    Edit(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..5usize).prop_map(Op::Join),
        (0..5usize).prop_map(Op::Leave),
        (0..5usize).prop_map(Op::Send),
        (0..5usize).prop_map(Op::Edit),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Every member, current or former, reads exactly the messages of the
    /// generations it was given.
    #[test]
    fn members_read_exactly_their_generations(ops in proptest::collection::vec(op(), 1..12)) {
        let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner").unwrap()).unwrap();
        let users: Vec<IdentityKey> = (0..5)
            .map(|i| IdentityKey::generate(RecipientKind::User, KeyId::new(format!("u{i}")).unwrap()).unwrap())
            .collect();
        let mut members = [false; 5];
        let (mut owner_ring, gen0) = session::generation_zero(ROOT, &[Recipient::of(&owner)]).unwrap();
        let mut wraps = gen0.wraps;
        // generation -> members it was wrapped to
        let mut given: Vec<[bool; 5]> = vec![[false; 5]];
        let mut sent: Vec<(Message, u32, String)> = Vec::new();
        let mut counter = 0u64;
        for op in ops {
            counter += 1;
            match op {
                Op::Join(i) | Op::Leave(i) => {
                    let joining = matches!(op, Op::Join(_));
                    if members[i] == joining { continue; }
                    members[i] = joining;
                    let mut recipients = vec![Recipient::of(&owner)];
                    recipients.extend((0..5).filter(|j| members[*j]).map(|j| Recipient::of(&users[j])));
                    let next = session::roll_generation(&mut owner_ring, &recipients).unwrap();
                    wraps.extend(next.wraps);
                    given.push(members);
                }
                Op::Send(i) | Op::Edit(i) => {
                    if !members[i] { continue; }
                    let generation = u32::try_from(given.len() - 1).unwrap();
                    let list = listed(generation, &wraps);
                    let ring = ring(&list, &users[i]);
                    let author = format!("usr_{i}");
                    let own: Option<Message> = sent.iter().rev().find(|(m, _, _)| m.author_id == author).map(|(m, _, _)| m.clone());
                    let text = format!("text {counter}");
                    let msg = match (&op, own) {
                        (Op::Edit(_), Some(prev)) => {
                            let s = seal_edit(&ring, &prev, &author, &text).unwrap();
                            message(prev.id.as_str(), &author, "user", prev.revision + 1, &s)
                        }
                        _ => {
                            let id = mid(counter);
                            let body = seal_message(&ring, ROOT, &id, &author, &text, None).unwrap();
                            posted(&body, &id, &author)
                        }
                    };
                    prop_assert_eq!(msg.sealed.as_ref().unwrap().envelope.key_generation, generation);
                    sent.push((msg, generation, text));
                }
            }
        }
        let current = u32::try_from(given.len() - 1).unwrap();
        let list = listed(current, &wraps);
        for (i, user) in users.iter().enumerate() {
            let ring = ring(&list, user);
            for (msg, generation, text) in &sent {
                let was_given = given[usize::try_from(*generation).unwrap()][i];
                match open_message(&ring, msg) {
                    Ok(opened) => {
                        prop_assert!(was_given, "user {} read generation {}", i, generation);
                        prop_assert_eq!(&opened.text, text);
                    }
                    Err(e) => {
                        prop_assert!(!was_given, "user {} lost generation {}: {}", i, generation, e);
                        prop_assert_eq!(e.code(), ErrorCode::UnknownKeyGeneration);
                    }
                }
            }
        }
        // The owner reads everything.
        for (msg, _, text) in &sent {
            prop_assert_eq!(&open_message(&owner_ring, msg).unwrap().text, text);
        }
    }
}

#[test]
fn presence_keys_policy_and_grants() {
    use streamseal::sealed::presence::{check_key_set, grants_to_fetch, with_machine_key};
    use streamseal::wire::events::HelloAck;
    use streamseal::wire::presence::{PresenceStatus, RuntimeKind};
    use streamseal::wire::requests::bot_runtime::PresenceRequest;

    let keys: Vec<IdentityKey> = (0..33)
        .map(|i| {
            IdentityKey::generate(RecipientKind::Bot, KeyId::new(format!("m{i}")).unwrap()).unwrap()
        })
        .collect();
    check_key_set(&keys[..32]).unwrap();
    assert_eq!(code(check_key_set(&keys)), ErrorCode::TooManyKeys);
    let dup = [keys[0].clone(), keys[0].clone()];
    assert_eq!(code(check_key_set(&dup)), ErrorCode::InvalidField);

    let base = PresenceRequest::new(
        RuntimeKind::Custom,
        "machine-a",
        PresenceStatus::Available,
        true,
    );
    let presence = with_machine_key(base.clone(), &keys[0]).unwrap();
    assert_eq!(presence.public_key.as_deref().map(str::len), Some(44));
    assert_eq!(presence.public_key_id.as_deref(), Some("m0"));
    let mut bad = base;
    bad.instance_id = String::new();
    assert_eq!(
        code(with_machine_key(bad, &keys[0])),
        ErrorCode::ValidationFailed
    );

    // A shared key must be replaced after a revoke; per-machine keys need not.
    let revoke = E2eRevoke {
        workspace_id: "ws".into(),
        bot_id: BOT.into(),
        stream_id: ROOT.into(),
    };
    let mut rings = std::collections::BTreeMap::new();
    let shared = on_revoke(&mut rings, &revoke, KeyPolicy::Shared);
    assert!(!shared.dropped && shared.rewrite_presence);

    let hello: HelloAck =
        serde_json::from_value(json!({"botId": BOT, "e2eGrantedStreamIds": [ROOT, OTHER_ROOT]}))
            .unwrap();
    rings.insert(ROOT.to_owned(), Keyring::new(ROOT).unwrap());
    assert_eq!(grants_to_fetch(&hello, &rings), vec![OTHER_ROOT.to_owned()]);
}
