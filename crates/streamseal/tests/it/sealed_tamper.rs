//! Acceptance of the sealed flows (issue 4), part 2: a hostile server.
//!
//! The server stores and serves every byte, so it can move a ciphertext to
//! another slot, replay, drop or roll back wraps, and edit the JSON of a
//! claim. Each case below does one such thing to what the flows produced,
//! through the public API only, and asserts the exact error code. Nothing
//! here may panic.
//!
//! Generation 0 is made by the owner (HPKE auth mode from its key); every
//! member and runtime accepts the owner's key as the root's key sender, so a
//! wrap the server made itself never opens (`UNTRUSTED_WRAP`). Every
//! envelope is version 2: signed by its sender, key-committing, and bound
//! to the stream the opener asked for and to the clear fields issue 16 added
//! (`authorType`, a card's `invocationId` and `runtimeSessionId`).

use serde_json::{Value, json};
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::{COMMITMENT_LEN, MIN_CIPHERTEXT_LEN, SealedPayload};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::sealed::decisions::{
    CardPlacement, DecisionCardContent, open_decision_answer, open_decision_card,
    seal_decision_card, seal_decision_note,
};
use streamseal::sealed::key_wraps::{WrapsReport, open_key_wraps};
use streamseal::sealed::messages::{
    MessageToOpen, OpenedMessage, check_send_rules, open_message, open_message_to_open,
    open_messages_to_open, seal_edit, seal_message,
};
use streamseal::sealed::runtime::{
    HistoryItem, OpenedInvocation, OpenedStep, StepPlacement, open_step,
};
use streamseal::sealed::state::StreamState;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::{DecisionOption, StepPhase};
use streamseal::stream_key::Keyring;
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore, TrustedKey};
use streamseal::wire::events::DecisionResolved;
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::KeyWraps;
use streamseal::wire::message::Message;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::wrap::KeyWrap;
use streamseal::{Error, ErrorCode};

use crate::support::{code, key, mint, parse_claim, resolved, sealed_of};

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const OTHER_ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7N";
const THREAD: &str = "stream_01JD3QJ5TH0000000000000T";
const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const USER2: &str = "usr_01JD3QS2E3C4N5D6000000000A";
const BOT: &str = "bot_01JD3QB0T0000000000000000B";
const INV: &str = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7";
const INV2: &str = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z8";

/// `GET streams/{id}/e2e/key-wraps` as the server would answer it.
fn list(current: u32, wraps: &[KeyWrap]) -> KeyWraps {
    serde_json::from_value(json!({
        "currentKeyGeneration": current, "ownerUserId": OWNER, "wraps": wraps,
    }))
    .unwrap()
}

/// A list item of `GET streams/{id}/messages`.
fn item(
    stream: &str,
    id: &str,
    author: &str,
    author_type: &str,
    revision: u32,
    sealed: &SealedPayload,
) -> Message {
    serde_json::from_value(json!({
        "id": id, "streamId": stream, "sequence": "7", "authorId": author,
        "authorType": author_type, "content": "[sealed]", "replyCount": 0, "metadata": {},
        "revision": revision, "createdAt": "2026-11-21T10:00:00Z", "sealed": sealed,
    }))
    .unwrap()
}

/// The shared scratchpad at generation 0 (owner, second user, two machines).
struct Fx {
    owner: IdentityKey,
    user2: IdentityKey,
    machine_a: IdentityKey,
    machine_b: IdentityKey,
    /// The owner's trust store: the second user's and the machines' keys pinned.
    trust: TrustStore,
    /// The second user's trust store: the owner's and the machines' keys pinned.
    u2_trust: TrustStore,
    /// The owner's state: it made generation 0.
    owner_state: StreamState,
    gen0: Vec<KeyWrap>,
    owner_ring: Keyring,
    u2_ring: Keyring,
}

/// Who receives a generation the owner makes: the owner, the second user
/// and both machines, through `trust`.
fn everyone(fx_keys: [&IdentityKey; 4], trust: &mut TrustStore) -> Vec<TrustedKey> {
    let [owner, user2, machine_a, machine_b] = fx_keys;
    vec![
        TrustedKey::own(OWNER, owner),
        trust.admit(USER2, &Recipient::of(user2)).unwrap(),
        trust.admit(BOT, &Recipient::of(machine_a)).unwrap(),
        trust.admit(BOT, &Recipient::of(machine_b)).unwrap(),
    ]
}

fn fx() -> Fx {
    let owner = key(RecipientKind::User, "owner-laptop");
    let user2 = key(RecipientKind::User, "u2-phone");
    let machine_a = key(RecipientKind::Bot, "machine-a");
    let machine_b = key(RecipientKind::Bot, "machine-b");
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let recipients = everyone([&owner, &user2, &machine_a, &machine_b], &mut trust);
    let mut owner_state = StreamState::new(ROOT).unwrap();
    let roll = owner_state.prepare_roll(&owner, &recipients).unwrap();
    let gen0 = roll.wraps().to_vec();
    owner_state.commit_roll(roll).unwrap();
    let (u2_state, report) = open_as(&owner, ROOT, &list(0, &gen0), &user2);
    assert_eq!(report.admitted.len(), 1);
    let mut u2_trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    u2_trust.admit(OWNER, &Recipient::of(&owner)).unwrap();
    u2_trust.admit(BOT, &Recipient::of(&machine_a)).unwrap();
    u2_trust.admit(BOT, &Recipient::of(&machine_b)).unwrap();
    Fx {
        owner_ring: owner_state.keyring().clone(),
        u2_ring: u2_state.keyring().clone(),
        owner,
        user2,
        machine_a,
        machine_b,
        trust,
        u2_trust,
        owner_state,
        gen0,
    }
}

impl Fx {
    /// The owner signing with its laptop key.
    fn owner_signer(&self) -> Signer<'_> {
        Signer::new(OWNER, &self.owner).unwrap()
    }

    /// The second user signing with its phone key.
    fn u2_signer(&self) -> Signer<'_> {
        Signer::new(USER2, &self.user2).unwrap()
    }

    /// The bot signing with machine B's key (the runtime of `opened_invocation`).
    fn bot_signer(&self) -> Signer<'_> {
        Signer::new(BOT, &self.machine_b).unwrap()
    }

    /// The keys the owner checks senders against: its own, and the pins.
    fn owner_keys(&self) -> SenderKeys<'_> {
        SenderKeys::new(&self.trust).with_own(OWNER, &self.owner)
    }

    /// The keys the second user checks senders against.
    fn u2_keys(&self) -> SenderKeys<'_> {
        SenderKeys::new(&self.u2_trust).with_own(USER2, &self.user2)
    }
}

/// Opens `m` as a member that listed the stream `m` says it is in: the
/// stream asked for is the one the server put in the resource.
fn open_listed(ring: &Keyring, keys: &SenderKeys<'_>, m: &Message) -> Result<OpenedMessage, Error> {
    open_message(ring, keys, &m.stream_id, m)
}

/// A member's fresh state of `root` that pinned the owner's key and accepts
/// it as the key sender, after opening `listed` with `me`.
fn open_as(
    owner: &IdentityKey,
    root: &str,
    listed: &KeyWraps,
    me: &IdentityKey,
) -> (StreamState, WrapsReport) {
    let (mut state, trust) = member_of(owner, root);
    let report = open_key_wraps(&mut state, &trust, listed, std::slice::from_ref(me)).unwrap();
    (state, report)
}

/// A fresh state of `root` accepting the owner's key, and the trust store
/// that pinned it.
fn member_of(owner: &IdentityKey, root: &str) -> (StreamState, TrustStore) {
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let owner_key = trust.admit(OWNER, &Recipient::of(owner)).unwrap();
    let mut state = StreamState::new(root).unwrap();
    state.accept_sender(&owner_key).unwrap();
    (state, trust)
}

/// A runtime opening `inv` with `keys` from a fresh state of the
/// invocation's root that pinned the owner (as the stream's owner and its
/// key sender).
/// The runtime's trust store also pinned the second user's key and both
/// machines' (the history's other senders).
fn open_claim(fx: &Fx, inv: &Invocation, keys: &[IdentityKey]) -> Result<OpenedInvocation, Error> {
    let (mut state, mut trust) = member_of(&fx.owner, &inv.root_stream_id);
    state.set_owner(OWNER).unwrap();
    trust.admit(USER2, &Recipient::of(&fx.user2)).unwrap();
    trust.admit(BOT, &Recipient::of(&fx.machine_a)).unwrap();
    trust.admit(BOT, &Recipient::of(&fx.machine_b)).unwrap();
    OpenedInvocation::open(inv, &mut state, &SenderKeys::new(&trust), BOT, keys)
}

/// A keyring of `root` at generation 0, made and held by the owner alone.
fn ring_of(fx: &Fx, root: &str) -> Keyring {
    let mut state = StreamState::new(root).unwrap();
    let roll = state
        .prepare_roll(&fx.owner, &[TrustedKey::own(OWNER, &fx.owner)])
        .unwrap();
    state.commit_roll(roll).unwrap();
    state.keyring().clone()
}

/// Each history item's failure code (`None` when it opened).
fn history_codes(opened: &OpenedInvocation) -> Vec<Option<ErrorCode>> {
    opened
        .history
        .iter()
        .map(|h| match h {
            HistoryItem::Opened { .. } => None,
            HistoryItem::Failed { code, .. } => Some(*code),
        })
        .collect()
}

/// The owner's message `id` with `text`, as the list serves it.
fn owner_message(fx: &Fx, id: &MessageId, text: &str) -> Message {
    let body = seal_message(&fx.owner_ring, &fx.owner_signer(), ROOT, id, text).unwrap();
    assert_eq!(body.client_message_id.as_deref(), Some(id.as_str()));
    item(ROOT, id.as_str(), OWNER, "user", 1, &sealed_of(&body))
}

/// The JSON of a claim the server builds for `trigger` (editable before parsing).
fn claim_json(
    wraps: &[KeyWrap],
    history: &[&Message],
    trigger: &Message,
    reply_generation: u32,
) -> Value {
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
    json!({
        "id": INV, "workspaceId": "ws_01JD3Q00000000000000000000", "rootStreamId": ROOT,
        "activeStreamId": trigger.stream_id, "sourceMessageId": trigger.id,
        "responseStreamId": ROOT,
        "actor": {"type": "bot", "id": BOT, "slug": "helper"}, "trigger": "mention",
        "requiredCapability": "mentionable", "sourceRevision": trigger.revision,
        "authorUserId": trigger.author_id, "mentionedActorSlugs": ["helper"],
        "claimToken": "clm_x", "claimExpiresAt": "2026-11-21T10:01:00Z",
        "runtimeSessionId": "sess-1", "metadata": {},
        "sealedContext": {
            "callbackToken": "cbt_x", "wraps": wraps, "history": history,
            "prompt": trigger.sealed,
            "reply": {"keyGeneration": reply_generation, "senderId": BOT},
            "trigger": {"messageId": trigger.id, "authorName": "Owner", "authorType": "user",
                        "createdAt": "2026-11-21T10:00:00Z"},
        },
    })
}

/// The claim of `INV` for an owner message `@helper go`, opened by machine B.
fn opened_invocation(fx: &Fx) -> (Message, OpenedInvocation) {
    let trigger = owner_message(fx, &mint(50), "@helper go");
    let inv = parse_claim(claim_json(&fx.gen0, &[], &trigger, 0));
    let opened = open_claim(fx, &inv, std::slice::from_ref(&fx.machine_b)).unwrap();
    (trigger, opened)
}

fn payload_of_started(
    body: &streamseal::wire::requests::invocation::SealedStepStartedRequest,
) -> SealedPayload {
    SealedPayload {
        ciphertext: body.ciphertext.clone().unwrap(),
        envelope: body.envelope.clone().unwrap(),
        extra: Default::default(),
    }
}

// ---------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------

#[test]
fn message_moved_to_another_stream_message_or_author() {
    let fx = fx();
    let id = mint(1);
    let good = owner_message(&fx, &id, "the launch code is 0000");
    let opened = open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, &good).unwrap();
    assert_eq!(opened.text, "the launch code is 0000");
    assert_eq!(opened.stream_id, ROOT);
    assert_eq!(opened.sealed_by.subject, OWNER);
    assert_eq!(opened.sealed_by.status, TrustLevel::Unverified);
    let sealed = good.sealed.clone().unwrap();
    let moved = [
        item(THREAD, id.as_str(), OWNER, "user", 1, &sealed),
        item(OTHER_ROOT, id.as_str(), OWNER, "user", 1, &sealed),
        item(ROOT, mint(2).as_str(), OWNER, "user", 1, &sealed),
        item(ROOT, id.as_str(), USER2, "user", 1, &sealed),
        item(ROOT, id.as_str(), BOT, "bot", 1, &sealed),
        item(ROOT, id.as_str(), OWNER, "persona", 1, &sealed),
    ];
    for m in &moved {
        assert_eq!(
            code(open_listed(&fx.u2_ring, &fx.u2_keys(), m)),
            ErrorCode::AadMismatch,
            "{m:?}"
        );
    }
    // Served in the thread's list as it is (its `streamId` still the
    // root's): the stream checked is the one the caller asked for.
    assert_eq!(
        code(open_message(&fx.u2_ring, &fx.u2_keys(), THREAD, &good)),
        ErrorCode::AadMismatch
    );
    // Moved to another message's AAD: the slot then matches, but the
    // ciphertext does not authenticate under that AAD.
    let other_id = mint(3);
    let other = owner_message(&fx, &other_id, "another");
    let mut spliced = other.clone();
    spliced.sealed.as_mut().unwrap().ciphertext = sealed.ciphertext.clone();
    assert_eq!(
        code(open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, &spliced)),
        ErrorCode::DecryptionFailed
    );
    // A ciphertext of another root stream's key, served here.
    let other_ring = ring_of(&fx, OTHER_ROOT);
    let foreign = seal_message(&other_ring, &fx.owner_signer(), ROOT, &id, "x").unwrap();
    let foreign = item(ROOT, id.as_str(), OWNER, "user", 1, &sealed_of(&foreign));
    assert_eq!(
        code(open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, &foreign)),
        ErrorCode::AadMismatch
    );
    // A list item without a sealed body in a sealed stream.
    let mut stripped = good.clone();
    stripped.sealed = None;
    assert_eq!(
        code(open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, &stripped)),
        ErrorCode::InvalidField
    );
}

#[test]
fn an_old_revision_replayed_as_the_current_one() {
    let fx = fx();
    let id = mint(1);
    let rev1 = owner_message(&fx, &id, "deploy at 10:00");
    let rev2_sealed =
        seal_edit(&fx.owner_ring, &fx.owner_signer(), &rev1, "deploy at 14:00").unwrap();
    let rev2 = item(ROOT, id.as_str(), OWNER, "user", 2, &rev2_sealed);
    let u2_open = |m: &Message| open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, m);
    assert_eq!(u2_open(&rev2).unwrap().text, "deploy at 14:00");
    assert_eq!(u2_open(&rev2).unwrap().revision, 2);

    // revision = 2, sealed payload of revision 1.
    let replayed = item(
        ROOT,
        id.as_str(),
        OWNER,
        "user",
        2,
        rev1.sealed.as_ref().unwrap(),
    );
    assert_eq!(code(u2_open(&replayed)), ErrorCode::AadMismatch);
    // And the reverse: revision 1 announced, revision 2's payload.
    let ahead = item(ROOT, id.as_str(), OWNER, "user", 1, &rev2_sealed);
    assert_eq!(code(u2_open(&ahead)), ErrorCode::AadMismatch);
    // Someone else cannot seal an edit of the owner's message...
    assert_eq!(
        code(seal_edit(
            &fx.u2_ring,
            &fx.u2_signer(),
            &rev1,
            "deploy never"
        )),
        ErrorCode::UnexpectedAuthor
    );
    // ...an edit they seal is bound to them as its author, not the author shown...
    let as_theirs = item(
        ROOT,
        id.as_str(),
        USER2,
        "user",
        1,
        &sealed_of_message(&rev1),
    );
    let by_u2 = seal_edit(&fx.u2_ring, &fx.u2_signer(), &as_theirs, "deploy never").unwrap();
    let shown_as_owner = item(ROOT, id.as_str(), OWNER, "user", 2, &by_u2);
    assert_eq!(
        code(open_message(
            &fx.owner_ring,
            &fx.owner_keys(),
            ROOT,
            &shown_as_owner
        )),
        ErrorCode::AadMismatch
    );
    // ...and one sealed in the owner's name with a key of their own, under
    // the owner's key id, does not verify as the owner's.
    let posing = IdentityKey::from_secret(
        RecipientKind::User,
        KeyId::new("owner-laptop").unwrap(),
        fx.user2.secret_key().clone(),
    );
    let forged = seal_edit(
        &fx.u2_ring,
        &Signer::new(OWNER, &posing).unwrap(),
        &rev1,
        "deploy never",
    )
    .unwrap();
    let forged = item(ROOT, id.as_str(), OWNER, "user", 2, &forged);
    assert_eq!(code(u2_open(&forged)), ErrorCode::SenderMismatch);
}

fn sealed_of_message(m: &Message) -> SealedPayload {
    m.sealed.clone().unwrap()
}

#[test]
fn ciphertext_moved_to_another_generation() {
    let fx = fx();
    let mut state = fx.owner_state.clone();
    let id0 = mint(1);
    let at0 = owner_message(&fx, &id0, "sealed under generation 0");
    let gen1 = state
        .prepare_roll(&fx.owner, &[TrustedKey::own(OWNER, &fx.owner)])
        .unwrap();
    assert_eq!(state.commit_roll(gen1).unwrap(), 1);
    let ring = state.keyring().clone();
    let id1 = mint(2);
    let b1 = seal_message(
        &ring,
        &fx.owner_signer(),
        ROOT,
        &id1,
        "sealed under generation 1",
    )
    .unwrap();
    let at1 = item(ROOT, id1.as_str(), OWNER, "user", 1, &sealed_of(&b1));
    assert_eq!(at1.sealed.as_ref().unwrap().envelope.key_generation, 1);
    let keys = fx.owner_keys();
    let open = |m: &Message| open_message(&ring, &keys, ROOT, m);
    assert!(open(&at0).is_ok() && open(&at1).is_ok());

    for (m, to) in [(&at0, 1u32), (&at0, 7), (&at1, 0), (&at1, u32::MAX)] {
        let mut moved = m.clone();
        moved.sealed.as_mut().unwrap().envelope.key_generation = to;
        assert_eq!(code(open(&moved)), ErrorCode::AadMismatch, "to {to}");
    }
}

#[test]
fn garbled_envelopes_are_refused_with_their_code() {
    let fx = fx();
    let id = mint(1);
    let good = owner_message(&fx, &id, "hello");
    let with = |f: &dyn Fn(&mut SealedPayload)| {
        let mut m = good.clone();
        f(m.sealed.as_mut().unwrap());
        open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, &m)
    };
    assert!(with(&|_| ()).is_ok());
    // Version 1 (no signature, no commitment) is not read.
    assert_eq!(
        code(with(&|s| s.envelope.v = 1)),
        ErrorCode::UnsupportedEnvelopeVersion
    );
    assert_eq!(
        code(with(&|s| s.envelope.v = 3)),
        ErrorCode::UnsupportedEnvelopeVersion
    );
    assert_eq!(
        code(with(&|s| s.envelope.v = 0)),
        ErrorCode::UnsupportedEnvelopeVersion
    );
    assert_eq!(
        code(with(&|s| s.envelope.iv = "AAECAwQFBgcICQoL".into())),
        ErrorCode::DecryptionFailed
    );
    assert_eq!(
        code(with(&|s| s.envelope.iv = "AAECAwQFBgcICQ==".into())),
        ErrorCode::InvalidLength
    );
    assert_eq!(
        code(with(&|s| s.envelope.iv = "not base64!".into())),
        ErrorCode::MalformedBase64
    );
    assert_eq!(
        code(with(&|s| s.envelope.aad = "%%%".into())),
        ErrorCode::MalformedBase64
    );
    assert_eq!(
        code(with(&|s| s.envelope.aad = "c3RyZWFtc2VhbC9hYWQ=".into())),
        ErrorCode::MalformedAad
    );
    assert_eq!(
        code(with(&|s| s.ciphertext = "not base64!".into())),
        ErrorCode::MalformedBase64
    );
    // One bit of the ciphertext flipped.
    let flipped = {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut bytes = b64
            .decode(&good.sealed.as_ref().unwrap().ciphertext)
            .unwrap();
        bytes[0] ^= 1;
        b64.encode(bytes)
    };
    assert_eq!(
        code(with(&|s| s.ciphertext = flipped.clone())),
        ErrorCode::DecryptionFailed
    );
    // Shorter than a signature and a tag: refused on its length.
    assert_eq!(
        code(with(&|s| s.ciphertext = "AAAA".into())),
        ErrorCode::InvalidLength
    );
    assert_eq!(
        code(with(&|s| s.ciphertext = String::new())),
        ErrorCode::InvalidLength
    );
}

// ---------------------------------------------------------------------------
// Steps, decision cards, notes, replies
// ---------------------------------------------------------------------------

#[test]
fn a_step_moved_to_another_step_type_phase_or_invocation() {
    let fx = fx();
    let (trigger, opened) = opened_invocation(&fx);
    let msg = trigger.id.as_str();
    let done = opened
        .seal_step(
            "s1",
            &StepType::ToolCall,
            Some(msg),
            "ran the tests",
            Some(5),
        )
        .unwrap();
    let started = opened
        .seal_step_started(
            "s1",
            &StepType::ToolCall,
            Some(msg),
            Some("running the tests"),
        )
        .unwrap();
    let started = payload_of_started(&started);
    let keys = fx.owner_keys();
    let read = |inv: &str, step: &str, ty: &StepType, phase, m: Option<&str>, p: &SealedPayload| {
        read_step(&fx.owner_ring, &keys, BOT, (inv, step, ty, phase, m), p)
    };
    let opened_done = read(
        INV,
        "s1",
        &StepType::ToolCall,
        StepPhase::Completed,
        Some(msg),
        &done.sealed,
    )
    .unwrap();
    assert_eq!(opened_done.text, "ran the tests");
    assert_eq!(opened_done.sealed_by.subject, BOT);
    assert_eq!(opened_done.sealed_by.key_id, "machine-b");
    assert_eq!(
        read(
            INV,
            "s1",
            &StepType::ToolCall,
            StepPhase::Started,
            Some(msg),
            &started
        )
        .unwrap()
        .text,
        "running the tests"
    );
    // A viewer expecting another bot's steps: the signer is not that bot.
    assert_eq!(
        code(read_step(
            &fx.owner_ring,
            &keys,
            "bot_01JD3QB0T0000000000000000C",
            (
                INV,
                "s1",
                &StepType::ToolCall,
                StepPhase::Completed,
                Some(msg)
            ),
            &done.sealed
        )),
        ErrorCode::UnexpectedAuthor
    );
    let other_msg = mint(51);
    let cases: [(&str, &str, StepType, StepPhase, Option<&str>); 7] = [
        (
            INV,
            "s2",
            StepType::ToolCall,
            StepPhase::Completed,
            Some(msg),
        ),
        (
            INV,
            "s1",
            StepType::Thinking,
            StepPhase::Completed,
            Some(msg),
        ),
        (
            INV,
            "s1",
            StepType::ToolError,
            StepPhase::Completed,
            Some(msg),
        ),
        (INV, "s1", StepType::ToolCall, StepPhase::Started, Some(msg)),
        (
            INV2,
            "s1",
            StepType::ToolCall,
            StepPhase::Completed,
            Some(msg),
        ),
        (INV, "s1", StepType::ToolCall, StepPhase::Completed, None),
        (
            INV,
            "s1",
            StepType::ToolCall,
            StepPhase::Completed,
            Some(other_msg.as_str()),
        ),
    ];
    for (inv, step, ty, phase, m) in &cases {
        assert_eq!(
            code(read(inv, step, ty, *phase, *m, &done.sealed)),
            ErrorCode::AadMismatch,
            "{inv} {step} {ty:?} {phase:?} {m:?}"
        );
    }
    // The in-flight record served as the final one.
    assert_eq!(
        code(read(
            INV,
            "s1",
            &StepType::ToolCall,
            StepPhase::Completed,
            Some(msg),
            &started
        )),
        ErrorCode::AadMismatch
    );
    // A socket frame carries the same payload, bound the same way.
    let frames = opened.step_frames(std::slice::from_ref(&done));
    let frame = &frames.steps[0];
    let framed = SealedPayload {
        ciphertext: frame.ciphertext.clone().unwrap(),
        envelope: frame.envelope.clone().unwrap(),
        extra: Default::default(),
    };
    assert_eq!(
        code(read(
            INV,
            "s1",
            &StepType::Thinking,
            StepPhase::Completed,
            Some(msg),
            &framed
        )),
        ErrorCode::AadMismatch
    );
    // Served as a message, a step does not open, nor a message as a step.
    let as_message = item(ROOT, msg, BOT, "bot", 1, &done.sealed);
    assert_eq!(
        code(open_message(&fx.owner_ring, &keys, ROOT, &as_message)),
        ErrorCode::AadMismatch
    );
    assert_eq!(
        code(read(
            INV,
            "s1",
            &StepType::ToolCall,
            StepPhase::Completed,
            None,
            trigger.sealed.as_ref().unwrap()
        )),
        ErrorCode::AadMismatch
    );
}

/// Where a viewer expects a step: invocation, step id, type, phase, message.
type StepAt<'a> = (&'a str, &'a str, &'a StepType, StepPhase, Option<&'a str>);

/// Opens a step as a viewer who expects it from `bot` at `at`.
fn read_step(
    ring: &Keyring,
    keys: &SenderKeys<'_>,
    bot: &str,
    at: StepAt<'_>,
    payload: &SealedPayload,
) -> Result<OpenedStep, Error> {
    let (invocation_id, step_id, step_type, phase, message_id) = at;
    open_step(
        ring,
        keys,
        StepPlacement {
            invocation_id,
            bot_id: bot,
            step_id,
            step_type,
            phase,
            message_id,
        },
        payload,
    )
}

fn two_options() -> Vec<DecisionOption> {
    vec![
        DecisionOption {
            id: "approve".into(),
            tone: "primary".into(),
        },
        DecisionOption {
            id: "reject".into(),
            tone: "neutral".into(),
        },
    ]
}

fn card(fx: &Fx, decision: &DecisionId) -> (CreateDecisionRequest, DecisionCardContent) {
    let content = DecisionCardContent {
        title: "Merge the migration?".into(),
        body: "It drops a column.".into(),
        labels: [
            ("approve".to_owned(), "Merge".to_owned()),
            ("reject".to_owned(), "Hold".to_owned()),
        ]
        .into(),
    };
    let placement = CardPlacement {
        stream_id: ROOT,
        decision_id: decision,
        runtime_session_id: "sess-1",
        invocation_id: INV,
    };
    let card = seal_decision_card(
        &fx.owner_ring,
        &fx.bot_signer(),
        placement,
        two_options(),
        true,
        &content,
    )
    .unwrap();
    (card, content)
}

#[test]
fn a_decision_card_moved_reordered_or_restyled() {
    let fx = fx();
    let decision = DecisionId::mint(1_763_700_000_100).unwrap();
    let (card, content) = card(&fx, &decision);
    let keys = fx.u2_keys();
    let opened = open_decision_card(&fx.u2_ring, &keys, ROOT, &card).unwrap();
    assert_eq!(opened.content, content);
    assert_eq!(opened.sealed_by.subject, BOT);

    let tampered: Vec<(&str, CreateDecisionRequest)> = vec![
        ("another decision", {
            let mut c = card.clone();
            c.decision_id = DecisionId::mint(1_763_700_000_101).unwrap().as_str().into();
            c
        }),
        ("options swapped", {
            let mut c = card.clone();
            c.options.reverse();
            c
        }),
        ("labels swapped between ids", {
            let mut c = card.clone();
            c.options[0].id = "reject".into();
            c.options[1].id = "approve".into();
            c
        }),
        ("restyled", {
            let mut c = card.clone();
            c.options[1].tone = "primary".into();
            c
        }),
        ("option dropped", {
            let mut c = card.clone();
            c.options.pop();
            c
        }),
        ("option added", {
            let mut c = card.clone();
            c.options.push(DecisionOption {
                id: "defer".into(),
                tone: "neutral".into(),
            });
            c
        }),
        ("note disallowed", {
            let mut c = card.clone();
            c.allow_note = false;
            c
        }),
        ("another invocation", {
            let mut c = card.clone();
            c.invocation_id = INV2.into();
            c
        }),
        ("another runtime session", {
            let mut c = card.clone();
            c.runtime_session_id = "sess-2".into();
            c
        }),
    ];
    for (what, c) in &tampered {
        assert_eq!(
            code(open_decision_card(&fx.u2_ring, &keys, ROOT, c)),
            ErrorCode::AadMismatch,
            "{what}"
        );
    }
    // Posted to another stream of the same root (a thread).
    assert_eq!(
        code(open_decision_card(&fx.u2_ring, &keys, THREAD, &card)),
        ErrorCode::AadMismatch
    );
    // Unsealed, or with a label for an option that does not exist.
    let mut bare = card.clone();
    bare.sealed = None;
    assert_eq!(
        code(open_decision_card(&fx.u2_ring, &keys, ROOT, &bare)),
        ErrorCode::InvalidField
    );
    let stray = DecisionCardContent {
        title: "t".into(),
        body: "b".into(),
        labels: [("nope".to_owned(), "x".to_owned())].into(),
    };
    let placement = CardPlacement {
        stream_id: ROOT,
        decision_id: &decision,
        runtime_session_id: "sess-1",
        invocation_id: INV,
    };
    assert_eq!(
        code(seal_decision_card(
            &fx.owner_ring,
            &fx.bot_signer(),
            placement,
            two_options(),
            true,
            &stray
        )),
        ErrorCode::InvalidField
    );
}

#[test]
fn a_note_moved_to_another_option_decider_or_decision() {
    let fx = fx();
    let decision = DecisionId::mint(1_763_700_000_100).unwrap();
    let d = decision.as_str();
    let (card, _) = card(&fx, &decision);
    let keys = fx.owner_keys();
    let answer_to = |card: &CreateDecisionRequest, event: &DecisionResolved| {
        open_decision_answer(&fx.owner_ring, &keys, card, event)
    };
    let note = seal_decision_note(
        &fx.u2_ring,
        &fx.u2_signer(),
        d,
        "approve",
        "after the backup",
    )
    .unwrap();
    let answer = answer_to(&card, &resolved(d, "approve", USER2, Some(&note))).unwrap();
    assert_eq!(answer.sealed_by.subject, USER2);
    assert_eq!(
        (
            answer.option_id.as_str(),
            answer.decided_by.as_str(),
            answer.note.as_str()
        ),
        ("approve", USER2, "after the backup")
    );
    for event in [
        resolved(d, "reject", USER2, Some(&note)),
        resolved(d, "approve", OWNER, Some(&note)),
    ] {
        assert_eq!(
            code(answer_to(&card, &event)),
            ErrorCode::AadMismatch,
            "{event:?}"
        );
    }
    // Moved to another decision: refused against this card, and against
    // the other decision's own card the note does not open.
    let other = DecisionId::mint(1_763_700_000_101).unwrap();
    let moved = resolved(other.as_str(), "approve", USER2, Some(&note));
    assert_eq!(
        code(answer_to(&card, &moved)),
        ErrorCode::UnprovenDecisionAnswer
    );
    let (other_card, _) = self::card(&fx, &other);
    assert_eq!(code(answer_to(&other_card, &moved)), ErrorCode::AadMismatch);
    // A card's ciphertext served as a note.
    let as_note = resolved(d, "approve", USER2, card.sealed.as_ref());
    assert_eq!(code(answer_to(&card, &as_note)), ErrorCode::AadMismatch);
    // Half a note, or none: the server could have written the option.
    let mut half = resolved(d, "approve", USER2, Some(&note));
    half.note_envelope = None;
    assert_eq!(
        code(answer_to(&card, &half)),
        ErrorCode::UnprovenDecisionAnswer
    );
    let mut half = resolved(d, "approve", USER2, Some(&note));
    half.note_ciphertext = None;
    assert_eq!(
        code(answer_to(&card, &half)),
        ErrorCode::UnprovenDecisionAnswer
    );
    assert_eq!(
        code(answer_to(&card, &resolved(d, "approve", USER2, None))),
        ErrorCode::UnprovenDecisionAnswer
    );
    // An option the card does not have, even with a note sealed for it.
    let stray = seal_decision_note(&fx.u2_ring, &fx.u2_signer(), d, "defer", "").unwrap();
    assert_eq!(
        code(answer_to(&card, &resolved(d, "defer", USER2, Some(&stray)))),
        ErrorCode::UnprovenDecisionAnswer
    );
}

/// How a viewer (or a history consumer) takes the reply of `expected`:
/// the reply opens only with the invocation it is bound to, which the
/// consumer compares.
fn reply_of(
    ring: &Keyring,
    keys: &SenderKeys<'_>,
    m: &Message,
    expected: &str,
) -> Result<String, String> {
    let opened = open_listed(ring, keys, m).map_err(|e| e.code().as_str().to_owned())?;
    match opened.invocation_id.as_deref() {
        Some(inv) if inv == expected => Ok(opened.text),
        other => Err(format!("bound to {other:?}")),
    }
}

#[test]
fn a_reply_moved_to_another_invocation_message_author_or_stream() {
    let fx = fx();
    let (_, opened) = opened_invocation(&fx);
    let reply_id = mint(60);
    let complete = opened.seal_reply(&reply_id, "all tests pass").unwrap();
    let reply = complete.reply.unwrap();
    assert_eq!(reply.message_id, reply_id.as_str());
    let listed = item(ROOT, reply_id.as_str(), BOT, "bot", 1, &reply.sealed);
    let keys = fx.owner_keys();
    let got = open_message(&fx.owner_ring, &keys, ROOT, &listed).unwrap();
    assert_eq!(got.invocation_id.as_deref(), Some(INV));
    assert_eq!(got.text, "all tests pass");
    assert_eq!((got.author_type.as_str(), got.revision), ("bot", 1));
    assert_eq!(got.sealed_by.key_id, "machine-b");
    assert_eq!(
        reply_of(&fx.owner_ring, &keys, &listed, INV).as_deref(),
        Ok("all tests pass")
    );
    // Served as the reply of another invocation: the list item is identical,
    // the opened invocation id tells the consumer.
    assert_eq!(
        reply_of(&fx.owner_ring, &keys, &listed, INV2),
        Err(format!("bound to {:?}", Some(INV)))
    );
    // A runtime reading it in the history of INV2 learns the same binding.
    let trigger2 = owner_message(&fx, &mint(61), "@helper again");
    let mut claim2 = claim_json(&fx.gen0, &[&listed], &trigger2, 0);
    claim2["id"] = json!(INV2);
    let opened2 = open_claim(
        &fx,
        &parse_claim(claim2),
        std::slice::from_ref(&fx.machine_a),
    )
    .unwrap();
    let HistoryItem::Opened { entry } = &opened2.history[0] else {
        panic!("the reply did not open: {:?}", opened2.history[0]);
    };
    match &entry.slot {
        streamseal::slot::Slot::BotReply {
            invocation_id,
            message_id,
            ..
        } => {
            assert_eq!(invocation_id, INV);
            assert_eq!(message_id, reply_id.as_str());
        }
        other => panic!("unexpected slot {other:?}"),
    }
    // Moved to another message, author, author type, stream, or shown as an edit.
    for m in [
        item(ROOT, mint(62).as_str(), BOT, "bot", 1, &reply.sealed),
        item(ROOT, reply_id.as_str(), OWNER, "user", 1, &reply.sealed),
        item(ROOT, reply_id.as_str(), BOT, "user", 1, &reply.sealed),
        item(THREAD, reply_id.as_str(), BOT, "bot", 1, &reply.sealed),
        item(ROOT, reply_id.as_str(), BOT, "bot", 2, &reply.sealed),
    ] {
        assert_eq!(
            code(open_listed(&fx.owner_ring, &keys, &m)),
            ErrorCode::AadMismatch,
            "{m:?}"
        );
    }
    // A follow-up message of the invocation is bound the same way.
    let follow = opened.seal_message(&mint(63), "one more thing").unwrap();
    let moved = item(ROOT, mint(64).as_str(), BOT, "bot", 1, &follow.sealed);
    assert_eq!(
        code(open_listed(&fx.owner_ring, &keys, &moved)),
        ErrorCode::AadMismatch
    );
    let placed = item(ROOT, &follow.message_id, BOT, "bot", 1, &follow.sealed);
    assert_eq!(
        reply_of(&fx.owner_ring, &keys, &placed, INV).as_deref(),
        Ok("one more thing")
    );
}

// ---------------------------------------------------------------------------
// Wraps
// ---------------------------------------------------------------------------

#[test]
fn wraps_swapped_between_root_streams() {
    let fx = fx();
    // Root stream A's wraps listed for root stream B.
    let (swapped, report) = open_as(&fx.owner, OTHER_ROOT, &list(0, &fx.gen0), &fx.owner);
    assert!(swapped.keyring().generations().is_empty());
    assert!(report.admitted.is_empty());
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].code, ErrorCode::UntrustedWrap);
    assert_eq!(report.skipped[0].key_generation, 0);
    assert_eq!(
        code(seal_message(
            swapped.keyring(),
            &fx.owner_signer(),
            OTHER_ROOT,
            &mint(1),
            "x",
        )),
        ErrorCode::UnknownKeyGeneration
    );

    // One foreign wrap slipped into an honest list is skipped, the rest open.
    let foreign = {
        let state = StreamState::new(OTHER_ROOT).unwrap();
        let roll = state
            .prepare_roll(&fx.owner, &[TrustedKey::own(OWNER, &fx.owner)])
            .unwrap();
        roll.wraps().to_vec()
    };
    let mut mixed = fx.gen0.clone();
    let mut slipped = foreign[0].clone();
    slipped.key_generation = 1;
    mixed.push(slipped);
    let (opened, report) = open_as(&fx.owner, ROOT, &list(0, &mixed), &fx.owner);
    assert_eq!(opened.keyring().generations(), vec![0]);
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(
        (report.skipped[0].key_generation, report.skipped[0].code),
        (1, ErrorCode::UntrustedWrap)
    );
    let m = owner_message(&fx, &mint(2), "still readable");
    assert_eq!(
        open_message(opened.keyring(), &fx.owner_keys(), ROOT, &m)
            .unwrap()
            .text,
        "still readable"
    );

    // A wrap relabelled to another generation, or to another recipient.
    let mut relabelled = fx.gen0.clone();
    for w in relabelled.iter_mut() {
        if w.recipient_key_id.as_deref() == Some("u2-phone") {
            w.key_generation = 3;
        }
        if w.recipient_key_id.as_deref() == Some("owner-laptop") {
            w.recipient_key_id = Some("u2-phone".into());
        }
    }
    let (u2, report) = open_as(&fx.owner, ROOT, &list(0, &relabelled), &fx.user2);
    assert!(u2.keyring().generations().is_empty());
    let mut codes: Vec<(u32, ErrorCode)> = report
        .skipped
        .iter()
        .map(|s| (s.key_generation, s.code))
        .collect();
    codes.sort();
    assert_eq!(
        codes,
        vec![(0, ErrorCode::UntrustedWrap), (3, ErrorCode::UntrustedWrap)]
    );
    // A bot wrap relabelled as a user's wrap with the bot's key id.
    let mut rekinded = fx.gen0.clone();
    for w in rekinded.iter_mut() {
        if w.recipient_key_id.as_deref() == Some("machine-a") {
            w.recipient_kind = Some(RecipientKind::User);
        }
    }
    let (a, report) = open_as(&fx.owner, ROOT, &list(0, &rekinded), &fx.machine_a);
    assert!(a.keyring().generations().is_empty());
    assert_eq!(report.skipped[0].code, ErrorCode::NoMatchingKey);
    // Garbled wrap bytes are skipped with their code, never a panic.
    let mut garbled = fx.gen0.clone();
    for w in garbled.iter_mut() {
        match w.recipient_key_id.as_deref() {
            Some("owner-laptop") => w.wrap_enc = "not base64!".into(),
            Some("u2-phone") => w.wrap_ct = "AAAA".into(),
            _ => {}
        }
    }
    let (_, o) = open_as(&fx.owner, ROOT, &list(0, &garbled), &fx.owner);
    assert_eq!(o.skipped[0].code, ErrorCode::MalformedBase64);
    let (_, u) = open_as(&fx.owner, ROOT, &list(0, &garbled), &fx.user2);
    assert_eq!(u.skipped[0].code, ErrorCode::InvalidLength);

    // Wraps presented as made by another sender: the second user (a member,
    // but not a key sender the others accept) made a generation 1 for
    // everyone. It opens for no one but the second user itself.
    let by_user2 = {
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let recipients = everyone(
            [&fx.owner, &fx.user2, &fx.machine_a, &fx.machine_b],
            &mut trust,
        );
        let mut state = StreamState::new(ROOT).unwrap();
        let own = state
            .prepare_roll(&fx.user2, &[TrustedKey::own(USER2, &fx.user2)])
            .unwrap();
        state.commit_roll(own).unwrap();
        state
            .prepare_roll(&fx.user2, &recipients)
            .unwrap()
            .wraps()
            .to_vec()
    };
    let (_, report) = open_as(&fx.owner, ROOT, &list(1, &by_user2), &fx.machine_a);
    assert!(report.admitted.is_empty());
    assert_eq!(
        report
            .skipped
            .iter()
            .map(|s| (s.key_generation, s.code))
            .collect::<Vec<_>>(),
        vec![(1, ErrorCode::UntrustedWrap)]
    );

    // In a claim: the invocation's root renamed, or another root's wraps.
    let trigger = owner_message(&fx, &mint(3), "@helper");
    let mut renamed = claim_json(&fx.gen0, &[], &trigger, 0);
    renamed["rootStreamId"] = json!(OTHER_ROOT);
    let renamed = parse_claim(renamed);
    assert_eq!(
        code(open_claim(
            &fx,
            &renamed,
            std::slice::from_ref(&fx.machine_a)
        )),
        ErrorCode::UntrustedWrap
    );
    // Presented to the runtime's state of the real root: refused before any wrap.
    let (mut root_state, trust) = member_of(&fx.owner, ROOT);
    root_state.set_owner(OWNER).unwrap();
    assert_eq!(
        code(OpenedInvocation::open(
            &renamed,
            &mut root_state,
            &SenderKeys::new(&trust),
            BOT,
            std::slice::from_ref(&fx.machine_a)
        )),
        ErrorCode::InvalidField
    );
    let other_gen0 = {
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let to_a = trust.admit(BOT, &Recipient::of(&fx.machine_a)).unwrap();
        let state = StreamState::new(OTHER_ROOT).unwrap();
        state
            .prepare_roll(&fx.owner, &[to_a])
            .unwrap()
            .wraps()
            .to_vec()
    };
    let foreign_claim = claim_json(&other_gen0, &[], &trigger, 0);
    assert_eq!(
        code(open_claim(
            &fx,
            &parse_claim(foreign_claim),
            std::slice::from_ref(&fx.machine_a)
        )),
        ErrorCode::UntrustedWrap
    );
}

/// The owner rolls to generation 1 for owner and second user; returns the
/// owner's keyring and the wraps of both generations.
fn rolled(fx: &Fx) -> (Keyring, Vec<KeyWrap>, Vec<KeyWrap>) {
    let mut state = fx.owner_state.clone();
    let mut trust = fx.trust.clone();
    let recipients = [
        TrustedKey::own(OWNER, &fx.owner),
        trust.admit(USER2, &Recipient::of(&fx.user2)).unwrap(),
    ];
    let gen1 = state.prepare_roll(&fx.owner, &recipients).unwrap();
    let wraps = gen1.wraps().to_vec();
    state.commit_roll(gen1).unwrap();
    (state.keyring().clone(), fx.gen0.clone(), wraps)
}

#[test]
fn the_newest_wrap_dropped_makes_sealing_fail() {
    let fx = fx();
    let (_, gen0, _) = rolled(&fx);
    // currentKeyGeneration = 1, only generation 0's wraps.
    let (dropped, _) = open_as(&fx.owner, ROOT, &list(1, &gen0), &fx.user2);
    let ring = dropped.keyring().clone();
    assert_eq!(ring.generations(), vec![0]);
    assert_eq!(ring.current_generation(), Some(1));
    let old = owner_message(&fx, &mint(1), "from generation 0");
    assert_eq!(
        open_message(&ring, &fx.u2_keys(), ROOT, &old).unwrap().text,
        "from generation 0"
    );
    let me = fx.u2_signer();
    assert_eq!(
        code(seal_message(&ring, &me, ROOT, &mint(2), "x")),
        ErrorCode::UnknownKeyGeneration
    );
    // An edit of the second user's own message of generation 0.
    let mine_id = mint(5);
    let mine = seal_message(&fx.u2_ring, &me, ROOT, &mine_id, "mine").unwrap();
    let mine = item(ROOT, mine_id.as_str(), USER2, "user", 1, &sealed_of(&mine));
    assert_eq!(
        open_message(&fx.u2_ring, &fx.u2_keys(), ROOT, &mine)
            .unwrap()
            .text,
        "mine"
    );
    assert_eq!(
        code(seal_edit(&ring, &me, &mine, "x")),
        ErrorCode::UnknownKeyGeneration
    );
    let decision = DecisionId::mint(1_763_700_000_100).unwrap();
    assert_eq!(
        code(seal_decision_note(
            &ring,
            &me,
            decision.as_str(),
            "approve",
            "x"
        )),
        ErrorCode::UnknownKeyGeneration
    );
    let placement = CardPlacement {
        stream_id: ROOT,
        decision_id: &decision,
        runtime_session_id: "s",
        invocation_id: INV,
    };
    let content = DecisionCardContent {
        title: "t".into(),
        body: "b".into(),
        labels: Default::default(),
    };
    assert_eq!(
        code(seal_decision_card(
            &ring,
            &me,
            placement,
            two_options(),
            false,
            &content
        )),
        ErrorCode::UnknownKeyGeneration
    );

    // The runtime told to reply under generation 1 with only generation 0's
    // wraps: it reads the prompt but seals nothing under generation 0.
    let inv = parse_claim(claim_json(&gen0, &[], &old, 1));
    let opened = open_claim(&fx, &inv, std::slice::from_ref(&fx.machine_a)).unwrap();
    assert_eq!(opened.prompt, "from generation 0");
    assert_eq!(
        code(opened.seal_reply(&mint(3), "x")),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(
        code(opened.seal_message(&mint(4), "x")),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(
        code(opened.seal_step("s", &StepType::Thinking, None, "x", None)),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(
        code(opened.seal_step_started("s", &StepType::Thinking, None, Some("x"))),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(
        code(opened.seal_decision_card(ROOT, &decision, two_options(), false, &content, "s")),
        ErrorCode::UnknownKeyGeneration
    );
}

#[test]
fn a_rollback_still_seals_under_the_newest_generation() {
    let fx = fx();
    let (_, gen0, gen1) = rolled(&fx);
    let mut both = gen0.clone();
    both.extend(gen1.iter().cloned());
    // currentKeyGeneration = 0 announced while generation 1 is listed.
    let (mut state, _) = open_as(&fx.owner, ROOT, &list(0, &both), &fx.user2);
    let ring = state.keyring().clone();
    assert_eq!(ring.generations(), vec![0, 1]);
    assert_eq!(ring.current_generation(), Some(1));
    assert_eq!(state.high_water(), Some(1));
    let signer = fx.u2_signer();
    let body = seal_message(&ring, &signer, ROOT, &mint(1), "x").unwrap();
    assert_eq!(body.sealed.unwrap().envelope.key_generation, 1);

    // A client that keeps its state: a later list that omits generation 1
    // and announces 0 does not move it back, nor does a restart from the
    // persisted state followed by that list.
    let (_, trust) = member_of(&fx.owner, ROOT);
    let me = std::slice::from_ref(&fx.user2);
    let report = open_key_wraps(&mut state, &trust, &list(0, &gen0), me).unwrap();
    assert!(report.skipped.is_empty());
    assert_eq!(state.keyring().current_generation(), Some(1));
    let body = seal_message(state.keyring(), &signer, ROOT, &mint(2), "x").unwrap();
    assert_eq!(body.sealed.unwrap().envelope.key_generation, 1);
    let saved = state.to_bytes(&fx.user2).unwrap();
    let mut restarted = StreamState::from_bytes(&saved, &fx.user2).unwrap();
    assert_eq!(restarted.high_water(), Some(1));
    open_key_wraps(&mut restarted, &trust, &list(0, &gen0), me).unwrap();
    let body = seal_message(restarted.keyring(), &signer, ROOT, &mint(3), "x").unwrap();
    assert_eq!(body.sealed.unwrap().envelope.key_generation, 1);
}

#[test]
fn a_runtime_told_to_reply_under_an_older_generation_than_it_holds() {
    // The claim's wraps give the runtime generations 0 and 1, and
    // `reply.keyGeneration` names 0: the reply must not be sealed under a
    // generation a removed member can read (the keyring's rule: never below
    // the newest generation held). The prompt is new work: it is sealed
    // under the newest generation, 1 (one under 0 is refused).
    let fx = fx();
    let mut state = fx.owner_state.clone();
    let mut trust = fx.trust.clone();
    let recipients = [
        TrustedKey::own(OWNER, &fx.owner),
        trust.admit(BOT, &Recipient::of(&fx.machine_a)).unwrap(),
    ];
    let gen1 = state.prepare_roll(&fx.owner, &recipients).unwrap();
    let mut wraps = fx.gen0.clone();
    wraps.extend(gen1.wraps().iter().cloned());
    state.commit_roll(gen1).unwrap();
    let stale = owner_message(&fx, &mint(9), "@helper");
    let inv = parse_claim(claim_json(&wraps, &[], &stale, 0));
    assert_eq!(
        code(open_claim(&fx, &inv, std::slice::from_ref(&fx.machine_a))),
        ErrorCode::StaleKeyGeneration
    );
    let id = mint(1);
    let body = seal_message(state.keyring(), &fx.owner_signer(), ROOT, &id, "@helper").unwrap();
    let trigger = item(ROOT, id.as_str(), OWNER, "user", 1, &sealed_of(&body));
    let inv = parse_claim(claim_json(&wraps, &[], &trigger, 0));
    let opened = open_claim(&fx, &inv, std::slice::from_ref(&fx.machine_a)).unwrap();
    assert_eq!(opened.keyring().generations(), vec![0, 1]);
    let generation_of = |r: Result<SealedPayload, Error>| match r {
        Ok(p) => Ok(p.envelope.key_generation),
        Err(e) => Err(e.code()),
    };
    let reply = opened
        .seal_reply(&mint(2), "x")
        .map(|b| b.reply.unwrap().sealed);
    let follow = opened.seal_message(&mint(3), "x").map(|b| b.sealed);
    let step = opened
        .seal_step("s", &StepType::Thinking, None, "x", None)
        .map(|b| b.sealed);
    for (what, r) in [("reply", reply), ("follow-up", follow), ("step", step)] {
        assert_eq!(
            generation_of(r),
            Ok(1),
            "{what} sealed under a rolled-back generation"
        );
    }
    assert_eq!(opened.keyring().current_generation(), Some(1));
}

#[test]
fn a_conflicting_wrap_for_a_held_generation() {
    let fx = fx();
    // The server wraps a key of its own choosing as generation 0, from a key
    // pair of its own under the owner's key id: no accepted sender made it,
    // so it is skipped and never conflicts with the real key.
    let server = key(RecipientKind::User, "owner-laptop");
    let minted = {
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let recipients = everyone(
            [&server, &fx.user2, &fx.machine_a, &fx.machine_b],
            &mut trust,
        );
        let state = StreamState::new(ROOT).unwrap();
        state
            .prepare_roll(&server, &recipients)
            .unwrap()
            .wraps()
            .to_vec()
    };
    for wraps in [
        [fx.gen0.clone(), minted.clone()].concat(),
        [minted.clone(), fx.gen0.clone()].concat(),
    ] {
        let (state, report) = open_as(&fx.owner, ROOT, &list(0, &wraps), &fx.user2);
        assert!(report.conflicts.is_empty());
        assert_eq!(
            report
                .skipped
                .iter()
                .map(|s| (s.key_generation, s.code))
                .collect::<Vec<_>>(),
            vec![(0, ErrorCode::UntrustedWrap)]
        );
        assert!(state.keyring().key(0).unwrap() == fx.u2_ring.key(0).unwrap());
    }

    // Two keys for generation 0 from an accepted sender (the owner's second
    // device made generation 0 too, racing the first): reported as a
    // conflict, not a failure of the whole list; nothing is sealed under it.
    let rogue = {
        let mut trust = fx.trust.clone();
        let recipients = everyone(
            [&fx.owner, &fx.user2, &fx.machine_a, &fx.machine_b],
            &mut trust,
        );
        let state = StreamState::new(ROOT).unwrap();
        state
            .prepare_roll(&fx.owner, &recipients)
            .unwrap()
            .wraps()
            .to_vec()
    };
    for wraps in [
        [fx.gen0.clone(), rogue.clone()].concat(),
        [rogue.clone(), fx.gen0.clone()].concat(),
    ] {
        let (state, report) = open_as(&fx.owner, ROOT, &list(0, &wraps), &fx.user2);
        assert_eq!(report.conflicts, vec![0]);
        assert_eq!(report.admitted.len(), 1);
        assert_eq!(state.keyring().conflicted_generations(), vec![0]);
        assert_eq!(
            code(seal_message(
                state.keyring(),
                &fx.u2_signer(),
                ROOT,
                &mint(9),
                "x",
            )),
            ErrorCode::KeyGenerationConflict
        );
    }
    // Into a state the client keeps: reported, and the held key stays.
    let (mut kept, trust) = member_of(&fx.owner, ROOT);
    let me = std::slice::from_ref(&fx.user2);
    open_key_wraps(&mut kept, &trust, &list(0, &fx.gen0), me).unwrap();
    let report = open_key_wraps(&mut kept, &trust, &list(0, &rogue), me).unwrap();
    assert_eq!(report.conflicts, vec![0]);
    let m = owner_message(&fx, &mint(1), "still the real key");
    assert_eq!(
        open_message(kept.keyring(), &fx.u2_keys(), ROOT, &m)
            .unwrap()
            .text,
        "still the real key"
    );
    assert_eq!(
        code(seal_message(
            kept.keyring(),
            &fx.u2_signer(),
            ROOT,
            &mint(8),
            "x",
        )),
        ErrorCode::KeyGenerationConflict
    );
    // The conflict survives a restart.
    let restarted = StreamState::from_bytes(&kept.to_bytes(&fx.user2).unwrap(), &fx.user2).unwrap();
    assert_eq!(restarted.keyring().conflicted_generations(), vec![0]);
    // In a claim's wraps (no recipient fields): the prompt opens with the
    // key held first, the conflict is reported, and nothing is sealed.
    let wraps = [fx.gen0.clone(), rogue.clone()].concat();
    let inv = parse_claim(claim_json(&wraps, &[], &m, 0));
    let opened = open_claim(&fx, &inv, std::slice::from_ref(&fx.machine_a)).unwrap();
    assert_eq!(opened.prompt, "still the real key");
    assert_eq!(opened.wraps().conflicts, vec![0]);
    assert_eq!(
        code(opened.seal_reply(&mint(7), "x")),
        ErrorCode::KeyGenerationConflict
    );
}

// ---------------------------------------------------------------------------
// Send rules, claims
// ---------------------------------------------------------------------------

#[test]
fn the_services_send_rules_before_sending() {
    let fx = fx();
    let sealed = seal_message(&fx.owner_ring, &fx.owner_signer(), ROOT, &mint(1), "x").unwrap();
    let plain = SendMessageRequest {
        content: Some("in the clear".into()),
        ..SendMessageRequest::default()
    };
    let both = SendMessageRequest {
        content: Some("in the clear".into()),
        sealed: sealed.sealed.clone(),
        ..SendMessageRequest::default()
    };
    // (what the member's state knows, what the server's `e2eEnabled` says)
    let sealed_stream = (true, Some(true));
    let plain_stream = (false, Some(false));
    fn check(
        (known, served): (bool, Option<bool>),
        body: &SendMessageRequest,
    ) -> Result<(), Error> {
        check_send_rules(known, served, body)
    }
    assert_eq!(
        code(check(sealed_stream, &plain)),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    assert_eq!(
        code(check(sealed_stream, &both)),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    assert_eq!(
        code(check(sealed_stream, &SendMessageRequest::default())),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    assert_eq!(
        code(check(plain_stream, &sealed)),
        ErrorCode::E2ePayloadRequiresE2eStream
    );
    assert_eq!(
        code(check(plain_stream, &both)),
        ErrorCode::E2ePayloadRequiresE2eStream
    );
    check(sealed_stream, &sealed).unwrap();
    check(plain_stream, &plain).unwrap();
    check((false, None), &plain).unwrap();
    // A stream the member knows to be sealed, presented by the server
    // without `e2eEnabled: true`: never plaintext.
    for served in [None, Some(false)] {
        assert_eq!(
            code(check((true, served), &plain)),
            ErrorCode::SealedStreamDowngrade
        );
        assert_eq!(
            code(check((true, served), &SendMessageRequest::default())),
            ErrorCode::SealedStreamDowngrade
        );
        check((true, served), &sealed).unwrap();
    }
    // The server says sealed before the member's state knows: sealed only.
    check((false, Some(true)), &sealed).unwrap();
    assert_eq!(
        code(check((false, Some(true)), &plain)),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    assert_eq!(
        ErrorCode::E2eStreamRequiresCiphertext.as_str(),
        "E2E_STREAM_REQUIRES_CIPHERTEXT"
    );
    assert_eq!(
        ErrorCode::E2ePayloadRequiresE2eStream.as_str(),
        "E2E_PAYLOAD_REQUIRES_E2E_STREAM"
    );
}

#[test]
fn a_claim_whose_trigger_or_prompt_was_tampered_with() {
    let fx = fx();
    let id = mint(1);
    let rev1 = owner_message(&fx, &id, "@helper summarise");
    let rev2_sealed = seal_edit(
        &fx.owner_ring,
        &fx.owner_signer(),
        &rev1,
        "@helper summarise briefly",
    )
    .unwrap();
    let rev2 = item(ROOT, id.as_str(), OWNER, "user", 2, &rev2_sealed);
    let other = owner_message(&fx, &mint(2), "unrelated");
    let machine = std::slice::from_ref(&fx.machine_b);
    let open = |v: Value| open_claim(&fx, &parse_claim(v), machine);

    let first = open(claim_json(&fx.gen0, &[], &rev1, 0)).unwrap();
    assert_eq!(first.prompt, "@helper summarise");
    assert_eq!(first.prompt_sealed_by.subject, OWNER);
    assert_eq!(first.prompt_sealed_by.status, TrustLevel::Unverified);
    assert_eq!(
        open(claim_json(&fx.gen0, &[], &rev2, 0)).unwrap().prompt,
        "@helper summarise briefly"
    );

    // trigger.messageId differs from sourceMessageId.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["sealedContext"]["trigger"]["messageId"] = json!(other.id);
    assert_eq!(code(open(v)), ErrorCode::InvalidField);
    // Both renamed to another message: the prompt is bound to its own.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["sourceMessageId"] = json!(other.id);
    v["sealedContext"]["trigger"]["messageId"] = json!(other.id);
    assert_eq!(code(open(v)), ErrorCode::AadMismatch);
    // Another message's ciphertext as the prompt.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["sealedContext"]["prompt"] = serde_json::to_value(other.sealed.as_ref().unwrap()).unwrap();
    assert_eq!(code(open(v)), ErrorCode::AadMismatch);
    // The prompt sealed for another revision, both ways.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["sourceRevision"] = json!(2);
    assert_eq!(code(open(v)), ErrorCode::AadMismatch);
    let mut v = claim_json(&fx.gen0, &[], &rev2, 0);
    v["sourceRevision"] = json!(1);
    assert_eq!(code(open(v)), ErrorCode::AadMismatch);
    // Another author or another active stream claimed for the prompt. The
    // runtime acts on its owner's prompts only, so another author is refused
    // before the prompt is opened; a runtime whose stream's owner is that
    // author still finds the prompt bound to its real author.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["authorUserId"] = json!(USER2);
    assert_eq!(code(open(v.clone())), ErrorCode::UnexpectedAuthor);
    let (mut owned_by_u2, trust) = member_of(&fx.owner, ROOT);
    owned_by_u2.set_owner(USER2).unwrap();
    assert_eq!(
        code(OpenedInvocation::open(
            &parse_claim(v),
            &mut owned_by_u2,
            &SenderKeys::new(&trust),
            BOT,
            machine
        )),
        ErrorCode::AadMismatch
    );
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["activeStreamId"] = json!(THREAD);
    assert_eq!(code(open(v)), ErrorCode::AadMismatch);
    // The trigger's author type changed (the prompt binds it).
    for author_type in ["persona", "bot", "system"] {
        let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
        v["sealedContext"]["trigger"]["authorType"] = json!(author_type);
        assert_eq!(code(open(v)), ErrorCode::AadMismatch, "{author_type}");
    }
    // The prompt's generation relabelled.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v["sealedContext"]["prompt"]["envelope"]["keyGeneration"] = json!(1);
    assert_eq!(code(open(v)), ErrorCode::AadMismatch);

    // History items: another root's ciphertext, a step, a relabelled
    // generation. Each fails on its own with its code; the prompt and the
    // other items still open.
    let other_ring = ring_of(&fx, OTHER_ROOT);
    let foreign = seal_message(&other_ring, &fx.owner_signer(), ROOT, &mint(3), "x").unwrap();
    let foreign = item(
        ROOT,
        mint(3).as_str(),
        OWNER,
        "user",
        1,
        &sealed_of(&foreign),
    );
    let with_foreign = open(claim_json(&fx.gen0, &[&foreign, &other], &rev1, 0)).unwrap();
    assert_eq!(with_foreign.prompt, "@helper summarise");
    assert_eq!(
        history_codes(&with_foreign),
        vec![Some(ErrorCode::AadMismatch), None]
    );
    let (_, opened) = opened_invocation(&fx);
    let step = opened
        .seal_step("s", &StepType::Thinking, None, "x", None)
        .unwrap();
    let step_item = item(ROOT, mint(4).as_str(), BOT, "bot", 1, &step.sealed);
    assert_eq!(
        history_codes(&open(claim_json(&fx.gen0, &[&step_item], &rev1, 0)).unwrap()),
        vec![Some(ErrorCode::AadMismatch)]
    );
    let mut v = claim_json(&fx.gen0, &[&other], &rev1, 0);
    v["sealedContext"]["history"][0]["envelope"]["keyGeneration"] = json!(1);
    assert_eq!(
        history_codes(&open(v).unwrap()),
        vec![Some(ErrorCode::AadMismatch)]
    );
    let HistoryItem::Failed { role, sequence, .. } = &with_foreign.history[0] else {
        panic!("expected a failed item");
    };
    assert_eq!((role.as_str(), sequence.as_str()), ("user", "7"));

    // No sealed context at all: not a sealed invocation for a runtime that
    // has not seen the root sealed, a downgrade for one that has.
    let mut v = claim_json(&fx.gen0, &[], &rev1, 0);
    v.as_object_mut().unwrap().remove("sealedContext");
    assert_eq!(code(open(v.clone())), ErrorCode::InvalidField);
    let (mut seen, trust) = member_of(&fx.owner, ROOT);
    seen.set_owner(OWNER).unwrap();
    OpenedInvocation::open(
        &parse_claim(claim_json(&fx.gen0, &[], &rev1, 0)),
        &mut seen,
        &SenderKeys::new(&trust),
        BOT,
        machine,
    )
    .unwrap();
    assert_eq!(
        code(OpenedInvocation::open(
            &parse_claim(v),
            &mut seen,
            &SenderKeys::new(&trust),
            BOT,
            machine
        )),
        ErrorCode::SealedStreamDowngrade
    );
    // More keys than a runtime may hold.
    let many: Vec<IdentityKey> = (0..33)
        .map(|i| key(RecipientKind::Bot, &format!("m{i}")))
        .collect();
    assert_eq!(
        code(open_claim(
            &fx,
            &parse_claim(claim_json(&fx.gen0, &[], &rev1, 0)),
            &many
        )),
        ErrorCode::TooManyKeys
    );
}

/// The bindings read a history as `MessageToOpen` (the fields the AAD binds
/// and the sealed body, from the message's JSON with every other field
/// ignored): each hostile variant must open, or fail with the same code,
/// exactly as the whole `Message` does; a page opens each the same way, and
/// a repeat of a bound id and revision already opened in it is
/// `DUPLICATE_MESSAGE`.
#[test]
fn the_parts_a_binding_reads_open_exactly_like_the_message() {
    let fx = fx();
    let keys = fx.owner_keys();
    let id = mint(90);
    let good = owner_message(&fx, &id, "parts");
    let sealed = good.sealed.clone().unwrap();
    let other = mint(91);
    // The service assigned an id of its own and kept the minted one as
    // `clientMessageId`: it opens under the bound id (a repeat of `good`).
    let reassigned = Message {
        id: "msg_assigned_by_the_service".into(),
        client_message_id: Some(id.as_str().to_owned()),
        ..good.clone()
    };
    let variants = [
        good.clone(),
        item(ROOT, other.as_str(), OWNER, "user", 1, &sealed),
        item(ROOT, id.as_str(), USER2, "user", 1, &sealed),
        item(ROOT, id.as_str(), OWNER, "user", 2, &sealed),
        item(ROOT, id.as_str(), OWNER, "persona", 1, &sealed),
        Message {
            sealed: None,
            ..good.clone()
        },
        reassigned,
        good.clone(),
    ];
    let parts: Vec<MessageToOpen> = variants
        .iter()
        .map(|m| serde_json::from_value(serde_json::to_value(m).unwrap()).unwrap())
        .collect();
    assert_eq!(parts[0], MessageToOpen::from(&good));
    let batch = open_messages_to_open(&fx.owner_ring, &keys, ROOT, &parts);
    let mut seen = std::collections::HashSet::new();
    for ((message, part), from_batch) in variants.iter().zip(&parts).zip(batch) {
        let whole = open_message(&fx.owner_ring, &keys, ROOT, message);
        let from_parts = open_message_to_open(&fx.owner_ring, &keys, ROOT, part);
        assert_eq!(whole, from_parts, "{message:?}");
        match &whole {
            Ok(m) if !seen.insert((m.message_id.clone(), m.revision)) => {
                assert_eq!(code(from_batch), ErrorCode::DuplicateMessage, "{message:?}");
            }
            _ => assert_eq!(whole, from_batch, "{message:?}"),
        }
    }
    let opened = open_message(&fx.owner_ring, &keys, ROOT, &variants[0]).unwrap();
    assert_eq!(opened.text, "parts");
    let by_client_id = open_message(&fx.owner_ring, &keys, ROOT, &variants[6]).unwrap();
    assert_eq!(by_client_id.message_id, id.as_str());
    assert_eq!(by_client_id.text, "parts");
    for (i, want) in [
        (1, ErrorCode::AadMismatch),
        (2, ErrorCode::AadMismatch),
        (3, ErrorCode::AadMismatch),
        (4, ErrorCode::AadMismatch),
        (5, ErrorCode::InvalidField),
    ] {
        assert_eq!(
            code(open_message(&fx.owner_ring, &keys, ROOT, &variants[i])),
            want,
            "variant {i}"
        );
    }
    // The stream is the caller's: asked for the thread, the parts of a root
    // message fail exactly as the whole message does.
    assert_eq!(
        code(open_message_to_open(
            &fx.owner_ring,
            &keys,
            THREAD,
            &parts[0]
        )),
        ErrorCode::AadMismatch
    );
    assert_eq!(
        code(open_message(&fx.owner_ring, &keys, THREAD, &good)),
        ErrorCode::AadMismatch
    );
}

// ---------------------------------------------------------------------------
// What envelope version 2 binds and carries
// ---------------------------------------------------------------------------

/// The clear fields issue 16 bound, the key commitment, the version and the
/// signature's room in the ciphertext, each tampered with on a message.
#[test]
fn the_fields_envelope_version_2_binds() {
    let fx = fx();
    let keys = fx.u2_keys();
    let id = mint(70);
    let good = owner_message(&fx, &id, "bound");
    let open = |m: &Message| open_message(&fx.u2_ring, &keys, ROOT, m);
    let with = |f: &dyn Fn(&mut SealedPayload)| {
        let mut m = good.clone();
        f(m.sealed.as_mut().unwrap());
        open(&m)
    };
    assert_eq!(open(&good).unwrap().author_type, "user");

    // authorType: served as another type than the one sealed.
    for author_type in ["bot", "persona", "system", "a-future-type"] {
        let mut retyped = good.clone();
        retyped.author_type = serde_json::from_value(json!(author_type)).unwrap();
        assert_eq!(
            code(open(&retyped)),
            ErrorCode::AadMismatch,
            "{author_type}"
        );
    }
    // A bot's message sealed by the bot is `bot`, and opens only as `bot`.
    let bot_id = mint(71);
    let bot_body = seal_message(&fx.owner_ring, &fx.bot_signer(), ROOT, &bot_id, "beep").unwrap();
    let bot_item = item(ROOT, bot_id.as_str(), BOT, "bot", 1, &sealed_of(&bot_body));
    assert_eq!(open(&bot_item).unwrap().author_type, "bot");
    let as_user = item(ROOT, bot_id.as_str(), BOT, "user", 1, &sealed_of(&bot_body));
    assert_eq!(code(open(&as_user)), ErrorCode::AadMismatch);

    // The envelope is the spec's four fields; the key commitment is the
    // ciphertext's first 32 bytes.
    let wire = serde_json::to_value(&good).unwrap();
    let mut fields: Vec<&str> = wire["sealed"]["envelope"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    fields.sort_unstable();
    assert_eq!(fields, ["aad", "iv", "keyGeneration", "v"]);
    let full = decode_base64("ciphertext", &good.sealed.as_ref().unwrap().ciphertext).unwrap();
    let with_ct = |ct: &[u8]| {
        let text = encode_base64(ct);
        with(&|s| s.ciphertext.clone_from(&text))
    };
    let committed = |commitment: &[u8]| with_ct(&[commitment, &full[COMMITMENT_LEN..]].concat());

    // The key commitment removed, shortened, altered, or another envelope's.
    assert_eq!(
        code(with_ct(&full[COMMITMENT_LEN..])),
        ErrorCode::InvalidLength
    );
    assert_eq!(code(committed(&full[..3])), ErrorCode::InvalidLength);
    assert_eq!(
        code(committed(&full[1..COMMITMENT_LEN])),
        ErrorCode::DecryptionFailed
    );
    // Moved out into an envelope field (an earlier draft's shape): the field
    // is kept unread (API §9.6), and what is left of the ciphertext is too
    // short.
    let mut moved = wire.clone();
    moved["sealed"]["ciphertext"] = json!(encode_base64(&full[COMMITMENT_LEN..]));
    moved["sealed"]["envelope"]["commitment"] = json!(encode_base64(&full[..COMMITMENT_LEN]));
    let moved: Message = serde_json::from_value(moved).unwrap();
    let mut known = moved.sealed.as_ref().unwrap().envelope.clone();
    assert!(known.extra.remove("commitment").is_some());
    assert_eq!(known, good.sealed.as_ref().unwrap().envelope);
    assert_eq!(code(open(&moved)), ErrorCode::InvalidLength);
    let garbled = format!(
        "not base64!{}",
        &good.sealed.as_ref().unwrap().ciphertext[11..]
    );
    assert_eq!(
        code(with(&|s| s.ciphertext.clone_from(&garbled))),
        ErrorCode::MalformedBase64
    );
    let mut flipped = full[..COMMITMENT_LEN].to_vec();
    flipped[7] ^= 0x10;
    assert_eq!(code(committed(&flipped)), ErrorCode::DecryptionFailed);
    let other = owner_message(&fx, &mint(72), "another");
    let theirs = decode_base64("ciphertext", &other.sealed.as_ref().unwrap().ciphertext).unwrap();
    assert_ne!(theirs[..COMMITMENT_LEN], full[..COMMITMENT_LEN]);
    assert_eq!(
        code(committed(&theirs[..COMMITMENT_LEN])),
        ErrorCode::DecryptionFailed
    );

    // Envelope version 1 (no signature, no commitment): not read.
    assert_eq!(
        code(with(&|s| s.envelope.v = 1)),
        ErrorCode::UnsupportedEnvelopeVersion
    );
    // Nor a version-1 envelope with its AAD's version byte to match.
    let v1_aad = {
        use base64::Engine as _;
        let b64 = base64::engine::general_purpose::STANDARD;
        let mut aad = b64
            .decode(&good.sealed.as_ref().unwrap().envelope.aad)
            .unwrap();
        assert_eq!(aad[14], 2);
        aad[14] = 1;
        b64.encode(aad)
    };
    assert_eq!(
        code(with(&|s| {
            s.envelope.v = 1;
            s.envelope.aad.clone_from(&v1_aad);
        })),
        ErrorCode::UnsupportedEnvelopeVersion
    );
    // A version-1 AAD under a version-2 envelope.
    assert_eq!(
        code(with(&|s| s.envelope.aad.clone_from(&v1_aad))),
        ErrorCode::AadMismatch
    );

    // Ciphertexts shorter than the commitment, the signature and the tag
    // (112 bytes): refused on their length, without a panic, whatever their
    // size below it.
    assert_eq!(MIN_CIPHERTEXT_LEN, 112);
    for n in [
        0usize, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 79, 80, 81, 95, 96, 97, 111,
    ] {
        assert_eq!(
            code(with_ct(&full[..n])),
            ErrorCode::InvalidLength,
            "{n} bytes"
        );
    }
    // 112 bytes and more reach the commitment and AES-GCM.
    assert_eq!(
        code(with_ct(&full[..MIN_CIPHERTEXT_LEN])),
        ErrorCode::DecryptionFailed
    );
}
