//! Acceptance of issue 15: sealed streams hold against an active server.
//!
//! The server (and the network) may read, drop, replay, reorder, move and
//! **forge** any bytes, and knows every public key; it can also make key
//! pairs of its own. Each test below is one attack, made through the public
//! API only, with the exact stable code the member's library answers, and the
//! honest flow of the same setup still working next to it.
//!
//! The setup: an owner (`OWNER`, key `owner-laptop`) and a bot runtime
//! (`BOT`, machine key `machine-a`) share a sealed scratchpad. The runtime
//! made generation 0 (wrapped, HPKE auth mode from its machine key, to the
//! owner and to itself); the owner's device accepts the runtime's key as the
//! stream's key sender, the runtime accepts the owner's. The server stores
//! the wraps and serves them back, and it builds the claims.
//!
//! Everything a member seals is signed by its own identity key (envelope
//! version 2): where the server forges a message, prompt or note it signs
//! with a key pair of its own posing as the member's (issue 16's attacks by
//! key holders are in `sender_auth.rs`).

use serde_json::{Value, json};
use streamseal::encoding::encode_base64;
use streamseal::envelope::Opened;
use streamseal::envelope::{self, SealedPayload};
use streamseal::fingerprint::fingerprint;
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::sealed::decisions::{
    DecisionCardContent, open_decision_answer, seal_decision_note,
};
use streamseal::sealed::key_wraps::{SkippedWrap, WrapsReport, open_key_wraps};
use streamseal::sealed::messages::{check_send_rules, open_message, seal_edit, seal_message};
use streamseal::sealed::pending::Pending;
use streamseal::sealed::runtime::{HistoryItem, OpenedInvocation};
use streamseal::sealed::session;
use streamseal::sealed::state::StreamState;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::{DecisionOption, Slot};
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore, TrustedKey};
use streamseal::wire::events::DecisionResolved;
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::keys::{KeyWraps, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::wire::stream::Stream;
#[allow(unused_imports)]
use streamseal::wire::{ExtraJson as _, JsonRecord as _};
use streamseal::wrap::{KeyWrap, wrap_stream_key};
use streamseal::{Error, ErrorCode};

use crate::attacker;
use crate::support::{code, key, mint, parse_claim, sealed_of};

const ROOT: &str = "stream_01JD3QG1YB5V6Z8R9T0W2X4K7M";
const OWNER: &str = "usr_01JD3QF0Z9Y8X7W6V5T4S3R2Q1";
const USER2: &str = "usr_01JD3QS2E3C4N5D6000000000A";
const BOT: &str = "bot_01JD3QB0T0000000000000000B";
const OTHER_BOT: &str = "bot_01JD3QB0T0000000000000000C";
const INV: &str = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z7";
const INV2: &str = "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z8";

fn owner_record(k: &IdentityKey) -> OwnerKey {
    OwnerKey {
        key_id: k.key_id().as_str().to_owned(),
        public_key: k.public_key(),
        extra: Default::default(),
    }
}

/// `GET streams/{id}/e2e/key-wraps` as the server chooses to answer it.
fn list(current: u32, wraps: &[KeyWrap]) -> KeyWraps {
    KeyWraps {
        current_key_generation: current,
        owner_user_id: OWNER.to_owned(),
        wraps: wraps.to_vec(),
        extra: Default::default(),
    }
}

/// A keyring holding `key` as `generation` only: what a holder of that one
/// key can open.
fn ring_with(generation: u32, key: &StreamKey) -> Keyring {
    let mut ring = Keyring::new(ROOT).unwrap();
    ring.insert(generation, key.clone()).unwrap();
    ring
}

/// A list item of `GET streams/{id}/messages`.
fn item(id: &str, author: &str, author_type: &str, sealed: &SealedPayload) -> Message {
    serde_json::from_value(json!({
        "id": id, "streamId": ROOT, "sequence": "7", "authorId": author,
        "authorType": author_type, "content": "[sealed]", "replyCount": 0, "metadata": {},
        "revision": 1, "createdAt": "2026-11-21T10:00:00Z", "sealed": sealed,
    }))
    .unwrap()
}

/// The stream resource as the server presents it.
fn stream(e2e_enabled: Option<bool>) -> Stream {
    let mut v = json!({
        "id": ROOT, "type": "scratchpad", "displayName": "Scratchpad", "visibility": "private",
        "memoryMode": "auto", "createdAt": "2026-11-21T10:00:00Z",
    });
    if let Some(e) = e2e_enabled {
        v["e2eEnabled"] = json!(e);
    }
    serde_json::from_value(v).unwrap()
}

/// The JSON of a claim the server builds (editable before parsing). The
/// context's wraps carry no recipient fields.
fn claim_json(
    id: &str,
    wraps: &[KeyWrap],
    history: &[&Message],
    trigger_id: &str,
    prompt: &SealedPayload,
    reply_generation: u32,
) -> Value {
    let wraps: Vec<Value> = wraps
        .iter()
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
        "id": id, "workspaceId": "ws_01JD3Q00000000000000000000", "rootStreamId": ROOT,
        "activeStreamId": ROOT, "sourceMessageId": trigger_id,
        "responseStreamId": ROOT,
        "actor": {"type": "bot", "id": BOT, "slug": "helper"}, "trigger": "mention",
        "requiredCapability": "mentionable", "sourceRevision": 1,
        "authorUserId": OWNER, "mentionedActorSlugs": ["helper"],
        "claimToken": "clm_x", "claimExpiresAt": "2026-11-21T10:01:00Z",
        "runtimeSessionId": "sess-1", "metadata": {},
        "sealedContext": {
            "callbackToken": "cbt_x", "wraps": wraps, "history": history,
            "prompt": prompt,
            "reply": {"keyGeneration": reply_generation, "senderId": BOT},
            "trigger": {"messageId": trigger_id, "authorName": "Owner", "authorType": "user",
                        "createdAt": "2026-11-21T10:00:00Z"},
        },
    })
}

// ---------------------------------------------------------------------------
// What the server can make on its own
// ---------------------------------------------------------------------------

/// The server's own key pair, posing under `kind` / `key_id` (it may copy a
/// member's key id: only the public key differs, and it cannot have that
/// member's secret key).
fn server_key(kind: RecipientKind, key_id: &str) -> IdentityKey {
    key(kind, key_id)
}

/// A wrap of `key` as generation `generation` to `to`, authenticated as made
/// by the server's own key pair `server`.
fn minted(generation: u32, key: &StreamKey, server: &IdentityKey, to: &Recipient) -> KeyWrap {
    wrap_stream_key(ROOT, generation, key, server, to).unwrap()
}

/// A base-mode wrap naming `posing_as` as its sender (see [`attacker::base_mode_wrap`]).
fn base_mode_wrap(
    generation: u32,
    key: &StreamKey,
    posing_as: &Recipient,
    to: &Recipient,
) -> KeyWrap {
    attacker::base_mode_wrap(ROOT, generation, key, posing_as, to, [0x42; 32])
}

// ---------------------------------------------------------------------------
// The honest setup
// ---------------------------------------------------------------------------

struct World {
    owner: IdentityKey,
    machine_a: IdentityKey,
    /// The runtime's trust store and state of the root.
    rt_trust: TrustStore,
    rt: StreamState,
    /// The owner device's trust store and state of the root.
    ow_trust: TrustStore,
    ow: StreamState,
    /// Every wrap the server stores.
    store: Vec<KeyWrap>,
}

fn world() -> World {
    let owner = key(RecipientKind::User, "owner-laptop");
    let machine_a = key(RecipientKind::Bot, "machine-a");

    // The runtime: the owner's key from `owner-e2e-key`, through its trust
    // store; generation 0 made and wrapped to the owner and itself.
    let mut rt_trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let owner_tk = session::owner_key(&mut rt_trust, OWNER, &owner_record(&owner)).unwrap();
    let mut rt = StreamState::new(ROOT).unwrap();
    rt.set_owner(OWNER).unwrap();
    rt.accept_sender(&owner_tk).unwrap();
    let roll = rt
        .prepare_roll(&machine_a, &[owner_tk, TrustedKey::own(BOT, &machine_a)])
        .unwrap();
    assert_eq!(roll.key_generation(), 0);
    let store = roll.wraps().to_vec();
    rt.commit_roll(roll).unwrap();

    // The owner's device admits the runtime's key and opens the wraps.
    let mut ow_trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let bot_tk = ow_trust.admit(BOT, &Recipient::of(&machine_a)).unwrap();
    let mut ow = StreamState::new(ROOT).unwrap();
    ow.accept_sender(&bot_tk).unwrap();
    let report = open_key_wraps(
        &mut ow,
        &ow_trust,
        &list(0, &store),
        std::slice::from_ref(&owner),
    )
    .unwrap();
    assert_eq!(report.admitted.len(), 1);
    assert_eq!(report.admitted[0].sender, BOT);
    assert!(report.skipped.is_empty() && report.conflicts.is_empty());
    assert_eq!(ow.high_water(), Some(0));
    World {
        owner,
        machine_a,
        rt_trust,
        rt,
        ow_trust,
        ow,
        store,
    }
}

impl World {
    /// The owner's device signs as the owner.
    fn owner_signer(&self) -> Signer<'_> {
        Signer::new(OWNER, &self.owner).unwrap()
    }

    /// The keys the owner's device checks signatures against: its pins and its own key.
    fn ow_senders(&self) -> SenderKeys<'_> {
        SenderKeys::new(&self.ow_trust).with_own(OWNER, &self.owner)
    }

    /// The keys the runtime checks signatures against: its pins and its own key.
    fn rt_senders(&self) -> SenderKeys<'_> {
        SenderKeys::new(&self.rt_trust).with_own(BOT, &self.machine_a)
    }

    /// The runtime rolls to the owner and itself; the wraps go to the store.
    fn runtime_rolls(&mut self) -> u32 {
        let owner_tk = self
            .rt_trust
            .trusted(OWNER, &Recipient::of(&self.owner))
            .unwrap();
        let roll = self
            .rt
            .prepare_roll(
                &self.machine_a,
                &[owner_tk, TrustedKey::own(BOT, &self.machine_a)],
            )
            .unwrap();
        self.store.extend(roll.wraps().iter().cloned());
        self.rt.commit_roll(roll).unwrap()
    }

    /// The owner's device opens what the server serves.
    fn owner_opens(&mut self, listed: &KeyWraps) -> WrapsReport {
        open_key_wraps(
            &mut self.ow,
            &self.ow_trust,
            listed,
            std::slice::from_ref(&self.owner),
        )
        .unwrap()
    }

    /// The owner's message `id`, sealed with the owner device's state, as the list serves it.
    fn owner_message(&self, id: &MessageId, text: &str) -> Message {
        let body = seal_message(self.ow.keyring(), &self.owner_signer(), ROOT, id, text).unwrap();
        item(id.as_str(), OWNER, "user", &sealed_of(&body))
    }

    /// The wraps of the store the server puts in a claim (those to the bot).
    fn bot_wraps(&self) -> Vec<KeyWrap> {
        self.store
            .iter()
            .filter(|w| w.recipient_kind == Some(RecipientKind::Bot))
            .cloned()
            .collect()
    }

    /// Opens the claim in one call, and on a copy of the state in two
    /// (prepare, a platform's AES-GCM, finish: the npm package's async
    /// open): both give the same result, or the same code, and leave the
    /// same record of the prompt.
    fn open_claim(&mut self, v: Value) -> Result<OpenedInvocation, Error> {
        let invocation = parse_claim(v);
        let mine = std::slice::from_ref(&self.machine_a);
        let mut copy = self.rt.clone();
        let senders = SenderKeys::new(&self.rt_trust);
        let split = OpenedInvocation::prepare(&invocation, &mut copy, &senders, BOT, mine)
            .and_then(|pending| pending.finish_with(&mut copy, platform_open));
        let whole = OpenedInvocation::open(&invocation, &mut self.rt, &senders, BOT, mine);
        same_invocation(&split, &whole);
        let prompt = &invocation.source_message_id;
        assert_eq!(
            copy.was_acted_on(prompt, invocation.source_revision),
            self.rt.was_acted_on(prompt, invocation.source_revision)
        );
        assert_eq!(copy.high_water(), self.rt.high_water());
        whole
    }

    /// The honest claim of `id` for the owner's message `trigger`.
    fn honest_claim(&self, id: &str, trigger: &Message) -> Value {
        let generation = self.rt.high_water().unwrap();
        claim_json(
            id,
            &self.bot_wraps(),
            &[],
            &trigger.id,
            trigger.sealed.as_ref().unwrap(),
            generation,
        )
    }
}

/// An envelope of an invocation completed after a platform's AES-256-GCM
/// (the `aes-gcm` crate, called directly), as the npm package's WebCrypto
/// backend completes it; a tag the platform refuses is `DECRYPTION_FAILED`.
fn platform_open(_: usize, pending: Pending<Opened>, keyring: &Keyring) -> Result<Opened, Error> {
    let decrypted = platform_decrypt(&pending, keyring)?;
    pending.finish(keyring, decrypted)
}

/// What a platform's AES-256-GCM decrypts `pending`'s envelope to.
fn platform_decrypt(
    pending: &Pending<Opened>,
    keyring: &Keyring,
) -> Result<zeroize::Zeroizing<Vec<u8>>, Error> {
    use aes_gcm::aead::{Aead as _, KeyInit as _, Payload};
    let envelope = pending.envelope();
    let key = keyring.key(envelope.key_generation())?.to_bytes();
    aes_gcm::Aes256Gcm::new(&(*key).into())
        .decrypt(
            &aes_gcm::Nonce::from(*envelope.iv()),
            Payload {
                msg: envelope.ciphertext(),
                aad: envelope.aad(),
            },
        )
        .map(zeroize::Zeroizing::new)
        .map_err(|_| Error::from(streamseal::CryptoError::DecryptionFailed))
}

/// The split open and the one-call open agree: the same code, or the same
/// prompt, signer, history, wraps and generations.
fn same_invocation(
    split: &Result<OpenedInvocation, Error>,
    whole: &Result<OpenedInvocation, Error>,
) {
    match (split, whole) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.prompt, b.prompt);
            assert_eq!(a.prompt_sealed_by, b.prompt_sealed_by);
            assert_eq!(a.history, b.history);
            assert_eq!(a.wraps(), b.wraps());
            assert_eq!(a.keyring().generations(), b.keyring().generations());
            assert_eq!(a.invocation_id(), b.invocation_id());
        }
        (Err(a), Err(b)) => assert_eq!(a.code(), b.code()),
        _ => panic!(
            "split {:?} vs one call {:?}",
            split.as_ref().map(|_| "opened").map_err(Error::code),
            whole.as_ref().map(|_| "opened").map_err(Error::code)
        ),
    }
}

/// Whatever the owner's device can seal now, each refused with `expected`.
fn owner_cannot_seal(w: &World, expected: ErrorCode) {
    let ring = w.ow.keyring();
    assert_eq!(
        code(seal_message(ring, &w.owner_signer(), ROOT, &mint(900), "x")),
        expected
    );
    let old_id = mint(901);
    let listed = item(old_id.as_str(), OWNER, "user", &{
        // An older message of the owner's to edit: sealed under generation
        // 0 (the runtime's key of it).
        let body = seal_message(
            &ring_with(0, w.rt.keyring().key(0).unwrap()),
            &w.owner_signer(),
            ROOT,
            &old_id,
            "old",
        )
        .unwrap();
        sealed_of(&body)
    });
    assert_eq!(
        code(seal_edit(ring, &w.owner_signer(), &listed, "y")),
        expected
    );
    assert_eq!(
        code(seal_decision_note(
            ring,
            &w.owner_signer(),
            "dreq_x",
            "go",
            ""
        )),
        expected
    );
    let slot = Slot::Message {
        stream_id: ROOT.into(),
        message_id: mint(902).as_str().into(),
        author_id: OWNER.into(),
        author_type: "user".into(),
        revision: 1,
    };
    assert_eq!(
        code(envelope::seal(ring, &w.owner_signer(), &slot, b"z")),
        expected
    );
}

// ---------------------------------------------------------------------------
// Forged generations
// ---------------------------------------------------------------------------

/// The server mints generation 1 with its own key pair (HPKE auth mode from
/// a server key posing under the runtime's kind and key id, and under the
/// owner's own), and a base-mode wrap whose `info` names the runtime as the
/// sender; it serves them with `currentKeyGeneration: 1`. Nothing is
/// admitted, the high-water stays 0, and sealing fails (announced but not
/// held) instead of using the server's key.
#[test]
fn forged_generation_via_key_wraps_is_skipped_and_never_sealed_under() {
    let mut w = world();
    let to_owner = Recipient::of(&w.owner);
    let server_stream_key = StreamKey::generate().unwrap();
    let posing_as_bot = server_key(RecipientKind::Bot, "machine-a");
    let posing_as_owner = server_key(RecipientKind::User, "owner-laptop");
    let forged = vec![
        minted(1, &server_stream_key, &posing_as_bot, &to_owner),
        minted(1, &server_stream_key, &posing_as_owner, &to_owner),
        base_mode_wrap(
            1,
            &server_stream_key,
            &Recipient::of(&w.machine_a),
            &to_owner,
        ),
        // Base mode posing as the owner's own key (own keys are always accepted).
        base_mode_wrap(1, &server_stream_key, &to_owner, &to_owner),
    ];
    let mut served = w.store.clone();
    served.extend(forged.iter().cloned());

    let report = w.owner_opens(&list(1, &served));
    assert_eq!(
        report.skipped,
        vec![
            SkippedWrap {
                key_generation: 1,
                code: ErrorCode::UntrustedWrap
            };
            4
        ]
    );
    assert!(report.conflicts.is_empty());
    // Generation 0 (the runtime's) is confirmed; 1 is not admitted.
    assert_eq!(
        report
            .admitted
            .iter()
            .map(|a| a.key_generation)
            .collect::<Vec<_>>(),
        vec![0]
    );
    assert_eq!(w.ow.high_water(), Some(0));
    assert!(!w.ow.keyring().contains(1));
    assert_eq!(w.ow.keyring().current_generation(), Some(1));
    owner_cannot_seal(&w, ErrorCode::UnknownKeyGeneration);

    // Served alone (no genuine wrap at all): still nothing admitted.
    let mut fresh = StreamState::new(ROOT).unwrap();
    fresh
        .accept_sender(
            &w.ow_trust
                .trusted(BOT, &Recipient::of(&w.machine_a))
                .unwrap(),
        )
        .unwrap();
    let report = open_key_wraps(
        &mut fresh,
        &w.ow_trust,
        &list(1, &forged),
        std::slice::from_ref(&w.owner),
    )
    .unwrap();
    assert!(report.admitted.is_empty());
    assert_eq!(report.skipped.len(), 4);
    assert_eq!(fresh.high_water(), None);
    assert_eq!(
        code(seal_message(
            fresh.keyring(),
            &w.owner_signer(),
            ROOT,
            &mint(1),
            "x",
        )),
        ErrorCode::UnknownKeyGeneration
    );

    // The honest path: the runtime rolls generation 1 for real; the owner
    // admits it and seals under it, and the server's key opens nothing.
    assert_eq!(w.runtime_rolls(), 1);
    let mut served = w.store.clone();
    served.extend(forged.iter().cloned());
    let report = w.owner_opens(&list(1, &served));
    assert!(
        report
            .admitted
            .iter()
            .any(|a| a.key_generation == 1 && a.sender == BOT)
    );
    assert_eq!(w.ow.high_water(), Some(1));
    assert_ne!(w.ow.keyring().key(1).unwrap(), &server_stream_key);
    let id = mint(2);
    let body = seal_message(w.ow.keyring(), &w.owner_signer(), ROOT, &id, "the real one").unwrap();
    let sealed = sealed_of(&body);
    assert_eq!(sealed.envelope.key_generation, 1);
    let m = item(id.as_str(), OWNER, "user", &sealed);
    assert_eq!(
        open_message(w.rt.keyring(), &w.rt_senders(), ROOT, &m)
            .unwrap()
            .text,
        "the real one"
    );
    assert_eq!(
        code(open_message(
            &ring_with(1, &server_stream_key),
            &w.rt_senders(),
            ROOT,
            &m
        )),
        ErrorCode::DecryptionFailed
    );
}

/// The same attack on the runtime: a claim whose `sealedContext` carries
/// generation 1 minted by the server (auth mode from a server key posing as
/// the owner's, and base mode naming the owner), announced as the reply's
/// generation. The prompt (the owner's, under 0) opens, the minted wraps are
/// reported skipped, and nothing is sealed under the server's key.
#[test]
fn forged_generation_via_sealed_context_is_skipped_and_never_sealed_under() {
    let mut w = world();
    let to_bot = Recipient::of(&w.machine_a);
    let server_stream_key = StreamKey::generate().unwrap();
    let posing = server_key(RecipientKind::User, "owner-laptop");
    let forged = [
        minted(1, &server_stream_key, &posing, &to_bot),
        base_mode_wrap(1, &server_stream_key, &Recipient::of(&w.owner), &to_bot),
        base_mode_wrap(1, &server_stream_key, &to_bot, &to_bot),
    ];
    let trigger = w.owner_message(&mint(1), "@helper summarise");
    let mut wraps = w.bot_wraps();
    wraps.extend(forged.iter().cloned());
    let v = claim_json(
        INV,
        &wraps,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        1,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(opened.prompt, "@helper summarise");
    assert_eq!(
        opened.wraps().skipped,
        vec![
            SkippedWrap {
                key_generation: 1,
                code: ErrorCode::UntrustedWrap
            };
            3
        ]
    );
    assert_eq!(w.rt.high_water(), Some(0));
    assert!(!opened.keyring().contains(1));
    assert_eq!(
        code(opened.seal_reply(&mint(2), "done")),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(
        code(opened.seal_step(
            "s1",
            &streamseal::wire::requests::invocation::StepType::Thinking,
            None,
            "x",
            None
        )),
        ErrorCode::UnknownKeyGeneration
    );

    // Announced without a wrap at all: the same refusal.
    let trigger = w.owner_message(&mint(3), "again");
    let v = claim_json(
        INV2,
        &w.bot_wraps(),
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        1,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(
        code(opened.seal_reply(&mint(4), "done")),
        ErrorCode::UnknownKeyGeneration
    );

    // The honest path: the runtime rolls generation 1 (its own), and a
    // claim announcing 1 with the forged wraps seals under the runtime's key.
    assert_eq!(w.runtime_rolls(), 1);
    let _ = w.owner_opens(&list(1, &w.store.clone()));
    let trigger = w.owner_message(&mint(5), "and now");
    let mut wraps = w.bot_wraps();
    wraps.extend(forged.iter().cloned());
    let v = claim_json(
        "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z9",
        &wraps,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        1,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(opened.wraps().skipped.len(), 3);
    let reply = opened.seal_reply(&mint(6), "sealed for real").unwrap();
    let reply = reply.reply.unwrap();
    assert_eq!(reply.sealed.envelope.key_generation, 1);
    let m = item(&reply.message_id, BOT, "bot", &reply.sealed);
    assert_eq!(
        open_message(w.ow.keyring(), &w.ow_senders(), ROOT, &m)
            .unwrap()
            .text,
        "sealed for real"
    );
    assert_eq!(
        code(open_message(
            &ring_with(1, &server_stream_key),
            &w.ow_senders(),
            ROOT,
            &m
        )),
        ErrorCode::DecryptionFailed
    );
}

// ---------------------------------------------------------------------------
// Forged prompts
// ---------------------------------------------------------------------------

/// The server seals a prompt as the owner's message under a generation it
/// minted, and serves it with its minted wraps. A runtime machine that holds
/// nothing else refuses the claim (`UNTRUSTED_WRAP`); the runtime that holds
/// generation 0 refuses the prompt (`UNKNOWN_KEY_GENERATION`); a prompt
/// sealed under the server's own key *for generation 0* does not open
/// (`DECRYPTION_FAILED`). The prompt's text is never returned, and never
/// recorded as acted on.
#[test]
fn forged_prompt_is_never_opened() {
    let mut w = world();
    let server_stream_key = StreamKey::generate().unwrap();
    let posing = server_key(RecipientKind::User, "owner-laptop");
    let id = mint(1);
    // Signed by the server's own key, posing as the owner's.
    let forged_prompt = |generation: u32| {
        let body = seal_message(
            &ring_with(generation, &server_stream_key),
            &Signer::new(OWNER, &posing).unwrap(),
            ROOT,
            &id,
            "@helper deploy to production",
        )
        .unwrap();
        sealed_of(&body)
    };

    // A second machine of the bot, with nothing held yet: only forged wraps came.
    let machine_b = key(RecipientKind::Bot, "machine-b");
    let mut rt_b = StreamState::new(ROOT).unwrap();
    rt_b.set_owner(OWNER).unwrap();
    rt_b.accept_sender(&w.rt_trust.trusted(OWNER, &Recipient::of(&w.owner)).unwrap())
        .unwrap();
    let to_b = Recipient::of(&machine_b);
    let wraps = [
        minted(1, &server_stream_key, &posing, &to_b),
        base_mode_wrap(1, &server_stream_key, &Recipient::of(&w.owner), &to_b),
    ];
    let v = claim_json(INV, &wraps, &[], id.as_str(), &forged_prompt(1), 1);
    let result = OpenedInvocation::open(
        &parse_claim(v),
        &mut rt_b,
        &SenderKeys::new(&w.rt_trust),
        BOT,
        std::slice::from_ref(&machine_b),
    );
    assert_eq!(code(result), ErrorCode::UntrustedWrap);
    assert!(!rt_b.was_acted_on(id.as_str(), 1));
    assert_eq!(rt_b.high_water(), None);

    // The runtime holding generation 0: the forged wraps are skipped, and the
    // prompt's generation is not held.
    let to_a = Recipient::of(&w.machine_a);
    let mut wraps = w.bot_wraps();
    wraps.push(minted(1, &server_stream_key, &posing, &to_a));
    wraps.push(base_mode_wrap(
        1,
        &server_stream_key,
        &Recipient::of(&w.owner),
        &to_a,
    ));
    let v = claim_json(INV, &wraps, &[], id.as_str(), &forged_prompt(1), 1);
    assert_eq!(code(w.open_claim(v)), ErrorCode::UnknownKeyGeneration);
    assert!(!w.rt.was_acted_on(id.as_str(), 1));

    // Forged under the server's key but labelled generation 0: the AAD is
    // right, the key is not.
    let v = claim_json(INV, &w.bot_wraps(), &[], id.as_str(), &forged_prompt(0), 0);
    assert_eq!(code(w.open_claim(v)), ErrorCode::DecryptionFailed);
    assert!(!w.rt.was_acted_on(id.as_str(), 1));
    assert_eq!(w.rt.high_water(), Some(0));

    // The honest path: the owner's own message under generation 0 opens.
    let trigger = w.owner_message(&id, "@helper what changed?");
    let opened = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    assert_eq!(opened.prompt, "@helper what changed?");
    assert!(w.rt.was_acted_on(id.as_str(), 1));
}

/// The prompt split at its AES-GCM part (the npm package's async open, the
/// platform decrypting): bytes other than the owner's sealed prompt handed to
/// the completion are `SENDER_MISMATCH` and the prompt is not recorded as
/// acted on; a completion with the state of another root is
/// `INVALID_FIELD`; the honest completion then opens it.
#[test]
fn a_forged_decryption_of_the_prompt_is_refused_on_completion() {
    let mut w = world();
    let id = mint(1);
    let trigger = w.owner_message(&id, "@helper what changed?");
    let invocation = parse_claim(w.honest_claim(INV, &trigger));
    let senders = SenderKeys::new(&w.rt_trust);
    let mine = std::slice::from_ref(&w.machine_a);

    let pending = OpenedInvocation::prepare(&invocation, &mut w.rt, &senders, BOT, mine).unwrap();
    assert_eq!(pending.prompt().key_generation(), 0);
    let forged = pending.finish_with(&mut w.rt, |index, pending, keyring| {
        let mut bytes = platform_decrypt(&pending, keyring)?;
        if index == 0 {
            // The signature kept, the text swapped.
            bytes.truncate(64);
            bytes.extend_from_slice(b"@helper push the deploy keys");
        }
        pending.finish(keyring, bytes)
    });
    assert_eq!(code(forged), ErrorCode::SenderMismatch);
    assert!(!w.rt.was_acted_on(id.as_str(), 1));

    let pending = OpenedInvocation::prepare(&invocation, &mut w.rt, &senders, BOT, mine).unwrap();
    let mut elsewhere = StreamState::new("stream_01JD3QG1YB5V6Z8R9T0W2X4K7N").unwrap();
    assert_eq!(
        code(pending.finish_with(&mut elsewhere, platform_open)),
        ErrorCode::InvalidField
    );

    let opened = OpenedInvocation::prepare(&invocation, &mut w.rt, &senders, BOT, mine)
        .unwrap()
        .finish_with(&mut w.rt, platform_open)
        .unwrap();
    assert_eq!(opened.prompt, "@helper what changed?");
    assert!(w.rt.was_acted_on(id.as_str(), 1));
}

/// A history item's repeat (one message and revision sealed twice by its
/// author) is found on the slot, before its text is read: whichever comes
/// second is `DUPLICATE_MESSAGE`, not a text that opens because the first
/// copy was not UTF-8. And each completion index names its own item: the
/// prompt first (0), then the history in order, an item refused before
/// AES-GCM never handed to the completion.
#[test]
fn history_repeats_are_found_on_the_slot_and_each_index_names_its_item() {
    let mut w = world();
    let id = mint(2);
    let slot = Slot::Message {
        stream_id: ROOT.into(),
        message_id: id.as_str().into(),
        author_id: OWNER.into(),
        author_type: "user".into(),
        revision: 1,
    };
    let not_utf8 = envelope::seal(w.ow.keyring(), &w.owner_signer(), &slot, &[0xff, 0xfe]).unwrap();
    let not_utf8 = item(id.as_str(), OWNER, "user", &not_utf8);
    let fine = w.owner_message(&id, "fine");
    let mut bent = w.owner_message(&mint(3), "bent");
    {
        let s = bent.sealed.as_mut().unwrap();
        let mut bytes = streamseal::encoding::decode_base64("ciphertext", &s.ciphertext).unwrap();
        bytes[0] ^= 1;
        s.ciphertext = encode_base64(&bytes);
    }
    let other = w.owner_message(&mint(4), "other");
    let summary = |opened: &OpenedInvocation| -> Vec<Result<String, ErrorCode>> {
        opened
            .history
            .iter()
            .map(|h| match h {
                HistoryItem::Opened { entry } => Ok(entry.text.clone()),
                HistoryItem::Failed { code, .. } => Err(*code),
            })
            .collect()
    };
    for (n, (history, expected)) in [
        (
            vec![&not_utf8, &fine],
            vec![
                Err(ErrorCode::InvalidField),
                Err(ErrorCode::DuplicateMessage),
            ],
        ),
        (
            vec![&fine, &not_utf8],
            vec![Ok("fine".to_owned()), Err(ErrorCode::DuplicateMessage)],
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let trigger = w.owner_message(&mint(10 + n as u64), "@helper go");
        let inv = format!("inv_01JD3QN9E1G3J5M7Q9S1V3X5Y{n}");
        let v = claim_json(
            &inv,
            &w.bot_wraps(),
            &history,
            &trigger.id,
            trigger.sealed.as_ref().unwrap(),
            0,
        );
        assert_eq!(summary(&w.open_claim(v).unwrap()), expected);
    }

    // The indices: 0 the prompt, then 1.. the history, the bent item (refused
    // before AES-GCM) never completed.
    let trigger = w.owner_message(&mint(20), "@helper indices");
    let v = claim_json(
        INV2,
        &w.bot_wraps(),
        &[&fine, &bent, &other],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        0,
    );
    let invocation = parse_claim(v);
    let senders = SenderKeys::new(&w.rt_trust);
    let mine = std::slice::from_ref(&w.machine_a);
    let mut seen = Vec::new();
    let opened = OpenedInvocation::prepare(&invocation, &mut w.rt, &senders, BOT, mine)
        .unwrap()
        .finish_with(&mut w.rt, |index, pending, keyring| {
            seen.push((
                index,
                pending.envelope().slot().message_id().map(str::to_owned),
            ));
            platform_open(index, pending, keyring)
        })
        .unwrap();
    assert_eq!(
        seen,
        vec![
            (0, Some(trigger.id.clone())),
            (1, Some(fine.id.clone())),
            (3, Some(other.id.clone())),
        ]
    );
    assert_eq!(
        summary(&opened),
        vec![
            Ok("fine".to_owned()),
            Err(ErrorCode::DecryptionFailed),
            Ok("other".to_owned())
        ]
    );
}

// ---------------------------------------------------------------------------
// Rollback and downgrade
// ---------------------------------------------------------------------------

/// Both members restart from their persisted states; the server then serves
/// only older generations (and announces 0). The sealing generation stays at
/// the high-water. A state restored under another identity key, or with any
/// byte altered, is refused.
#[test]
fn rollback_across_a_restart_is_refused() {
    let mut w = world();
    w.runtime_rolls();
    w.runtime_rolls();
    let _ = w.owner_opens(&list(2, &w.store.clone()));
    assert_eq!(w.ow.high_water(), Some(2));

    let ow_saved = w.ow.to_bytes(&w.owner).unwrap();
    let rt_saved = w.rt.to_bytes(&w.machine_a).unwrap();
    w.ow = StreamState::from_bytes(&ow_saved, &w.owner).unwrap();
    w.rt = StreamState::from_bytes(&rt_saved, &w.machine_a).unwrap();
    assert_eq!((w.ow.high_water(), w.rt.high_water()), (Some(2), Some(2)));
    assert!(w.ow.is_sealed() && w.rt.is_sealed());

    // The owner: served generation 0 only, announced 0; then nothing at all.
    let gen0: Vec<KeyWrap> = w
        .store
        .iter()
        .filter(|x| x.key_generation == 0)
        .cloned()
        .collect();
    for served in [list(0, &gen0), list(0, &[])] {
        let _ = w.owner_opens(&served);
        assert_eq!(w.ow.high_water(), Some(2));
        assert_eq!(w.ow.keyring().current_generation(), Some(2));
        let body = seal_message(w.ow.keyring(), &w.owner_signer(), ROOT, &mint(1), "x").unwrap();
        assert_eq!(sealed_of(&body).envelope.key_generation, 2);
    }

    // The runtime: a claim carrying generation 0's wraps only, replying at 0.
    let trigger = w.owner_message(&mint(2), "@helper status");
    let gen0_bot: Vec<KeyWrap> = w
        .bot_wraps()
        .into_iter()
        .filter(|x| x.key_generation == 0)
        .collect();
    let v = claim_json(
        INV,
        &gen0_bot,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        0,
    );
    let opened = w.open_claim(v).unwrap();
    let reply = opened.seal_reply(&mint(3), "status: fine").unwrap();
    assert_eq!(reply.reply.unwrap().sealed.envelope.key_generation, 2);
    assert_eq!(w.rt.high_water(), Some(2));

    // Another identity key cannot open the saved state; neither can the
    // right one once any byte after the header is flipped. A header byte
    // flipped is not this kind of state at all.
    let other = key(RecipientKind::User, "owner-laptop");
    assert_eq!(
        code(StreamState::from_bytes(&ow_saved, &other)),
        ErrorCode::StateAuthFailed
    );
    assert_eq!(
        code(StreamState::from_bytes(&ow_saved, &w.machine_a)),
        ErrorCode::StateAuthFailed
    );
    let header = b"streamseal/state".len() + 1;
    for i in 0..ow_saved.len() {
        let mut flipped = ow_saved.clone();
        flipped[i] ^= 0x01;
        let expected = if i < header {
            ErrorCode::MalformedState
        } else {
            ErrorCode::StateAuthFailed
        };
        assert_eq!(
            code(StreamState::from_bytes(&flipped, &w.owner)),
            expected,
            "byte {i}"
        );
    }
    // Truncated or extended: refused too.
    assert_eq!(
        code(StreamState::from_bytes(
            &ow_saved[..ow_saved.len() - 1],
            &w.owner
        )),
        ErrorCode::StateAuthFailed
    );
    let mut longer = ow_saved.clone();
    longer.push(0);
    assert_eq!(
        code(StreamState::from_bytes(&longer, &w.owner)),
        ErrorCode::StateAuthFailed
    );
    // The honest restore still works.
    assert_eq!(
        StreamState::from_bytes(&ow_saved, &w.owner)
            .unwrap()
            .high_water(),
        Some(2)
    );
}

/// A sealed stream presented without `e2eEnabled: true` (absent, or false):
/// `SEALED_STREAM_DOWNGRADE` from the state and from the send rules, also
/// after a restart. A sealed body still goes.
#[test]
fn downgrade_by_missing_e2e_enabled_is_refused() {
    let w = world();
    let mut ow = StreamState::from_bytes(&w.ow.to_bytes(&w.owner).unwrap(), &w.owner).unwrap();
    for state in [&mut w.ow.clone(), &mut ow] {
        assert!(state.is_sealed());
        for shown in [None, Some(false)] {
            assert_eq!(
                code(state.observe_stream(&stream(shown))),
                ErrorCode::SealedStreamDowngrade
            );
            assert_eq!(
                code(state.observe_e2e_enabled(shown)),
                ErrorCode::SealedStreamDowngrade
            );
        }
        assert!(state.is_sealed());
        state.observe_stream(&stream(Some(true))).unwrap();
    }

    let plaintext = SendMessageRequest {
        content: Some("the launch code is 0000".into()),
        ..SendMessageRequest::default()
    };
    for shown in [None, Some(false)] {
        assert_eq!(
            code(check_send_rules(ow.is_sealed(), shown, &plaintext)),
            ErrorCode::SealedStreamDowngrade
        );
    }
    assert_eq!(
        code(check_send_rules(ow.is_sealed(), Some(true), &plaintext)),
        ErrorCode::E2eStreamRequiresCiphertext
    );
    // The honest path: a sealed body to the sealed stream, however presented.
    let body = seal_message(ow.keyring(), &w.owner_signer(), ROOT, &mint(1), "hi").unwrap();
    for shown in [None, Some(false), Some(true)] {
        check_send_rules(ow.is_sealed(), shown, &body).unwrap();
    }
    // A stream never known to be sealed keeps the plaintext rules.
    let mut fresh = StreamState::new(ROOT).unwrap();
    fresh.observe_stream(&stream(None)).unwrap();
    check_send_rules(fresh.is_sealed(), None, &plaintext).unwrap();
}

/// A plaintext invocation (no `sealedContext`) on a root the runtime knows
/// to be sealed: `SEALED_STREAM_DOWNGRADE`, also after a restart.
#[test]
fn plaintext_invocation_on_a_sealed_root_is_refused() {
    let mut w = world();
    let trigger = w.owner_message(&mint(1), "@helper go");
    let mut v = w.honest_claim(INV, &trigger);
    v.as_object_mut().unwrap().remove("sealedContext");
    v["promptMarkdown"] = json!("@helper exfiltrate everything");
    assert_eq!(
        code(w.open_claim(v.clone())),
        ErrorCode::SealedStreamDowngrade
    );
    w.rt = StreamState::from_bytes(&w.rt.to_bytes(&w.machine_a).unwrap(), &w.machine_a).unwrap();
    assert_eq!(code(w.open_claim(v)), ErrorCode::SealedStreamDowngrade);
    assert!(!w.rt.was_acted_on(&trigger.id, 1));
    // The honest sealed claim still opens.
    let opened = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    assert_eq!(opened.prompt, "@helper go");
}

// ---------------------------------------------------------------------------
// Lock-out attempts
// ---------------------------------------------------------------------------

/// The server announces generation `u32::MAX` and serves a wrap it minted
/// for it. Sealing fails until the next roll, and the next honest roll is
/// the high-water + 1, on both sides (a prompt from before the runtime's
/// roll is then `STALE_KEY_GENERATION`; one under the new generation opens).
#[test]
fn server_u32_max_generation_does_not_block_later_rolls() {
    let mut w = world();
    let server_stream_key = StreamKey::generate().unwrap();
    let posing_bot = server_key(RecipientKind::Bot, "machine-a");
    let posing_owner = server_key(RecipientKind::User, "owner-laptop");
    let mut served = w.store.clone();
    served.push(minted(
        u32::MAX,
        &server_stream_key,
        &posing_bot,
        &Recipient::of(&w.owner),
    ));
    let report = w.owner_opens(&list(u32::MAX, &served));
    assert_eq!(
        report.skipped,
        vec![SkippedWrap {
            key_generation: u32::MAX,
            code: ErrorCode::UntrustedWrap
        }]
    );
    assert_eq!(w.ow.high_water(), Some(0));
    assert_eq!(w.ow.keyring().current_generation(), Some(u32::MAX));
    owner_cannot_seal(&w, ErrorCode::UnknownKeyGeneration);

    // The owner rolls: generation 1, not "after u32::MAX".
    let own = TrustedKey::own(OWNER, &w.owner);
    let bot_tk = w
        .ow_trust
        .trusted(BOT, &Recipient::of(&w.machine_a))
        .unwrap();
    let roll = w.ow.prepare_roll(&w.owner, &[own, bot_tk]).unwrap();
    assert_eq!(roll.key_generation(), 1);
    w.store.extend(roll.wraps().iter().cloned());
    assert_eq!(w.ow.commit_roll(roll).unwrap(), 1);
    let after_id = mint(1);
    let body = seal_message(w.ow.keyring(), &w.owner_signer(), ROOT, &after_id, "after").unwrap();
    assert_eq!(sealed_of(&body).envelope.key_generation, 1);

    // The runtime: a claim with the forged u32::MAX wrap, replying at u32::MAX.
    let trigger = item(after_id.as_str(), OWNER, "user", &sealed_of(&body));
    let mut wraps = w.bot_wraps();
    wraps.push(minted(
        u32::MAX,
        &server_stream_key,
        &posing_owner,
        &Recipient::of(&w.machine_a),
    ));
    let v = claim_json(
        INV,
        &wraps,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        u32::MAX,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(opened.prompt, "after");
    assert!(
        opened
            .wraps()
            .admitted
            .iter()
            .any(|a| a.key_generation == 1 && a.sender == OWNER)
    );
    assert_eq!(
        opened.wraps().skipped,
        vec![SkippedWrap {
            key_generation: u32::MAX,
            code: ErrorCode::UntrustedWrap
        }]
    );
    assert_eq!(
        code(opened.seal_reply(&mint(2), "x")),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(w.rt.high_water(), Some(1));
    assert_eq!(w.runtime_rolls(), 2);
    // The prompt under generation 1 is stale now that the runtime holds 2
    // (new work is never taken from an older generation) ...
    let v = claim_json(
        INV2,
        &w.bot_wraps(),
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        2,
    );
    assert_eq!(code(w.open_claim(v)), ErrorCode::StaleKeyGeneration);
    // ... the owner's device admits generation 2 and asks under it.
    let _ = w.owner_opens(&list(2, &w.store.clone()));
    let trigger = w.owner_message(&mint(4), "after the roll");
    assert_eq!(trigger.sealed.as_ref().unwrap().envelope.key_generation, 2);
    let v = claim_json(
        INV2,
        &w.bot_wraps(),
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        2,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(opened.prompt, "after the roll");
    let reply = opened.seal_reply(&mint(3), "ok").unwrap();
    assert_eq!(reply.reply.unwrap().sealed.envelope.key_generation, 2);
}

/// An accepted sender (here a second member the owner accepts, `USER2`)
/// gives a second, different key for a generation the owner holds. The
/// conflict is reported, the held key kept, nothing sealed under that
/// generation (also after a restart), and the rest of the response admitted;
/// a roll gets the owner sealing again.
#[test]
fn conflicting_wrap_keeps_the_held_key_and_blocks_that_generation() {
    let mut w = world();
    let user2 = key(RecipientKind::User, "u2-phone");
    let u2_tk = w.ow_trust.admit(USER2, &Recipient::of(&user2)).unwrap();
    w.ow.accept_sender(&u2_tk).unwrap();
    assert_eq!(w.runtime_rolls(), 1);
    let _ = w.owner_opens(&list(1, &w.store.clone()));
    assert_eq!(w.ow.high_water(), Some(1));
    // A message the runtime sealed under its generation 1.
    let bot_msg = {
        let id = mint(1);
        let body = seal_message(
            w.rt.keyring(),
            &Signer::new(BOT, &w.machine_a).unwrap(),
            ROOT,
            &id,
            "from the bot",
        )
        .unwrap();
        item(id.as_str(), BOT, "bot", &sealed_of(&body))
    };

    // USER2 wraps another key as generation 1 to the owner; the runtime
    // rolls generation 2 meanwhile. The response carries both.
    let other_key = StreamKey::generate().unwrap();
    let conflicting =
        wrap_stream_key(ROOT, 1, &other_key, &user2, &Recipient::of(&w.owner)).unwrap();
    let mut served = w.store.clone();
    let at = served.iter().position(|x| x.key_generation == 1).unwrap();
    served.insert(at + 1, conflicting.clone());
    assert_eq!(w.runtime_rolls(), 2);
    served.extend(w.store.iter().filter(|x| x.key_generation == 2).cloned());
    let report = w.owner_opens(&list(2, &served));
    assert_eq!(report.conflicts, vec![1]);
    assert!(report.skipped.is_empty());
    let mut admitted: Vec<u32> = report.admitted.iter().map(|a| a.key_generation).collect();
    admitted.sort_unstable();
    assert_eq!(admitted, vec![0, 1, 2]);
    assert_eq!(w.ow.keyring().conflicted_generations(), vec![1]);
    assert_eq!(w.ow.high_water(), Some(2));
    // The held key is kept: the runtime's message opens, the other key is not held.
    assert_eq!(
        open_message(w.ow.keyring(), &w.ow_senders(), ROOT, &bot_msg)
            .unwrap()
            .text,
        "from the bot"
    );
    assert_ne!(w.ow.keyring().key(1).unwrap(), &other_key);
    // Sealing goes on under 2.
    let body = seal_message(w.ow.keyring(), &w.owner_signer(), ROOT, &mint(2), "x").unwrap();
    assert_eq!(sealed_of(&body).envelope.key_generation, 2);

    // A conflict on the newest generation: nothing is sealed under it.
    let conflicting2 = wrap_stream_key(
        ROOT,
        2,
        &StreamKey::generate().unwrap(),
        &user2,
        &Recipient::of(&w.owner),
    )
    .unwrap();
    let mut served = w.store.clone();
    served.push(conflicting2);
    let report = w.owner_opens(&list(2, &served));
    assert_eq!(report.conflicts, vec![2]);
    assert_eq!(
        report.admitted.iter().map(|a| a.key_generation).max(),
        Some(2)
    );
    owner_cannot_seal(&w, ErrorCode::KeyGenerationConflict);
    // ... also after a restart.
    w.ow = StreamState::from_bytes(&w.ow.to_bytes(&w.owner).unwrap(), &w.owner).unwrap();
    assert_eq!(w.ow.keyring().conflicted_generations(), vec![1, 2]);
    owner_cannot_seal(&w, ErrorCode::KeyGenerationConflict);

    // The way out: a roll.
    let bot_tk = w
        .ow_trust
        .trusted(BOT, &Recipient::of(&w.machine_a))
        .unwrap();
    let roll =
        w.ow.prepare_roll(&w.owner, &[TrustedKey::own(OWNER, &w.owner), bot_tk, u2_tk])
            .unwrap();
    assert_eq!(roll.key_generation(), 3);
    w.ow.commit_roll(roll).unwrap();
    let body = seal_message(w.ow.keyring(), &w.owner_signer(), ROOT, &mint(3), "y").unwrap();
    assert_eq!(sealed_of(&body).envelope.key_generation, 3);
}

// ---------------------------------------------------------------------------
// Replays and misattribution
// ---------------------------------------------------------------------------

/// The same trigger message delivered again under a new invocation id:
/// `PROMPT_REPLAYED`, also after a restart; the same invocation claimed
/// again (a re-claim after a crash) opens. After a roll the old prompt is
/// refused earlier, as `STALE_KEY_GENERATION` (envelope version 2).
#[test]
fn replayed_prompt_is_refused() {
    let mut w = world();
    let trigger = w.owner_message(&mint(1), "@helper pay the invoice");
    let first = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    assert_eq!(first.prompt, "@helper pay the invoice");
    assert!(w.rt.was_acted_on(&trigger.id, 1));
    // Re-claimed: fine.
    w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    // Replayed as a new invocation: refused.
    assert_eq!(
        code(w.open_claim(w.honest_claim(INV2, &trigger))),
        ErrorCode::PromptReplayed
    );
    // After a restart from the persisted state: the same.
    w.rt = StreamState::from_bytes(&w.rt.to_bytes(&w.machine_a).unwrap(), &w.machine_a).unwrap();
    assert_eq!(
        code(w.open_claim(w.honest_claim(INV2, &trigger))),
        ErrorCode::PromptReplayed
    );
    w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    // Replayed after a roll, with a different reply generation: still
    // refused, now before the replay check: a prompt sealed under a
    // generation older than the newest the runtime holds is stale.
    w.runtime_rolls();
    assert_eq!(
        code(w.open_claim(w.honest_claim(INV2, &trigger))),
        ErrorCode::StaleKeyGeneration
    );
    // The honest path: a new message (under the new generation, once the
    // owner's device admitted it) is a new prompt.
    let _ = w.owner_opens(&list(1, &w.store.clone()));
    let next = w.owner_message(&mint(2), "@helper and the next one");
    let opened = w.open_claim(w.honest_claim(INV2, &next)).unwrap();
    assert_eq!(opened.prompt, "@helper and the next one");
}

/// Unknown fields are kept beside the crypto records (FORMAT.md §2) and are
/// never read; so a server that decorates a replayed prompt with them, in the
/// sealed payload and in its envelope, at any depth, gets the same
/// `PROMPT_REPLAYED`, and the honest re-claim with the same decorations still
/// opens to the same text.
#[test]
fn replayed_prompt_with_unknown_fields_is_still_refused() {
    fn decorate(mut v: Value) -> Value {
        let prompt = &mut v["sealedContext"]["prompt"];
        prompt["replayNonce"] = json!("fresh-0001");
        prompt["messageId"] = json!("msg_01JD3Q0000000000000000NEW0");
        prompt["revision"] = json!(2);
        prompt["envelope"]["revision"] = json!(7);
        prompt["envelope"]["x-resend"] = json!({"nested": [1, 2, {"deep": true}]});
        v["sealedContext"]["replay"] = json!(false);
        v
    }
    let mut w = world();
    let trigger = w.owner_message(&mint(1), "@helper pay the invoice");
    let first = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    assert_eq!(first.prompt, "@helper pay the invoice");
    // The decorated payload did parse with the fields kept, so the check
    // below is about replay, not about a parse failure.
    let decorated = decorate(w.honest_claim(INV2, &trigger));
    let kept: SealedPayload =
        serde_json::from_value(decorated["sealedContext"]["prompt"].clone()).unwrap();
    assert_eq!(
        kept.extra.get_json("replayNonce"),
        Some(json!("fresh-0001"))
    );
    assert!(kept.envelope.extra.get_json("x-resend").is_some());
    assert_eq!(code(w.open_claim(decorated)), ErrorCode::PromptReplayed);
    // After a restart: the same.
    w.rt = StreamState::from_bytes(&w.rt.to_bytes(&w.machine_a).unwrap(), &w.machine_a).unwrap();
    assert_eq!(
        code(w.open_claim(decorate(w.honest_claim(INV2, &trigger)))),
        ErrorCode::PromptReplayed
    );
    // The honest re-claim of the first invocation, decorated alike, opens.
    let again = w
        .open_claim(decorate(w.honest_claim(INV, &trigger)))
        .unwrap();
    assert_eq!(again.prompt, "@helper pay the invoice");
    assert!(w.rt.was_acted_on(&trigger.id, 1));
}

/// The claim names another author for the runtime's reply (the owner,
/// another bot): `REPLY_SENDER_MISMATCH`, before anything is recorded.
#[test]
fn reply_under_another_sender_id_is_refused() {
    let mut w = world();
    let trigger = w.owner_message(&mint(1), "@helper go");
    for other in [OWNER, OTHER_BOT, ""] {
        let mut v = w.honest_claim(INV, &trigger);
        v["sealedContext"]["reply"]["senderId"] = json!(other);
        assert_eq!(
            code(w.open_claim(v)),
            ErrorCode::ReplySenderMismatch,
            "{other:?}"
        );
    }
    assert!(!w.rt.was_acted_on(&trigger.id, 1));
    // The honest path: the reply is sealed as the runtime's own bot.
    let opened = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    let reply = opened.seal_reply(&mint(2), "done").unwrap().reply.unwrap();
    let m = item(&reply.message_id, BOT, "bot", &reply.sealed);
    let read = open_message(w.ow.keyring(), &w.ow_senders(), ROOT, &m).unwrap();
    assert_eq!((read.author_id.as_str(), read.text.as_str()), (BOT, "done"));
    assert_eq!(read.invocation_id.as_deref(), Some(INV));
    assert_eq!(read.sealed_by.subject, BOT);
    assert_eq!(read.sealed_by.key_id, "machine-a");
    // Served as the owner's message: it does not open.
    let as_owner = item(&reply.message_id, OWNER, "user", &reply.sealed);
    assert_eq!(
        code(open_message(
            w.ow.keyring(),
            &w.ow_senders(),
            ROOT,
            &as_owner
        )),
        ErrorCode::AadMismatch
    );
}

// ---------------------------------------------------------------------------
// Decision answers
// ---------------------------------------------------------------------------

/// The runtime asks approve/reject; the server answers. Without the
/// owner's sealed note, with the note of another option, of another decider,
/// or of another decision, with an option not on the card, or a note the
/// server sealed itself: refused. An honest answer, even with an empty note,
/// opens.
#[test]
fn forged_decision_answers_are_refused() {
    let mut w = world();
    let trigger = w.owner_message(&mint(1), "@helper deploy?");
    let opened = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    let decision = DecisionId::mint(1_763_700_000_100).unwrap();
    let other_decision = DecisionId::mint(1_763_700_000_200).unwrap();
    let options = vec![
        DecisionOption {
            id: "approve".into(),
            tone: "primary".into(),
        },
        DecisionOption {
            id: "reject".into(),
            tone: "danger".into(),
        },
    ];
    let content = DecisionCardContent {
        title: "Deploy to production?".into(),
        body: "All checks are green.".into(),
        labels: [("approve", "Deploy"), ("reject", "Hold")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect(),
    };
    let card: CreateDecisionRequest = opened
        .seal_decision_card(ROOT, &decision, options, true, &content, "sess-1")
        .unwrap();
    let answer = |option: &str, by: &str, note: Option<&SealedPayload>| DecisionResolved {
        decision_id: card.decision_id.clone(),
        option_id: option.to_owned(),
        decided_by: by.to_owned(),
        note_ciphertext: note.map(|n| n.ciphertext.clone()),
        note_envelope: note.map(|n| n.envelope.clone()),
        extra: Default::default(),
    };
    let ring = opened.keyring();
    let senders = w.rt_senders();
    let owner_note = |d: &str, option: &str, text: &str| {
        seal_decision_note(w.ow.keyring(), &w.owner_signer(), d, option, text).unwrap()
    };

    // "approve" in the clear, no note.
    assert_eq!(
        code(open_decision_answer(
            ring,
            &senders,
            &card,
            &answer("approve", OWNER, None)
        )),
        ErrorCode::UnprovenDecisionAnswer
    );
    // Half a note (ciphertext without envelope).
    let reject_note = owner_note(decision.as_str(), "reject", "not today");
    let mut half = answer("approve", OWNER, Some(&reject_note));
    half.note_envelope = None;
    assert_eq!(
        code(open_decision_answer(ring, &senders, &card, &half)),
        ErrorCode::UnprovenDecisionAnswer
    );
    // The owner's note for "reject", with "approve" in the clear.
    assert_eq!(
        code(open_decision_answer(
            ring,
            &senders,
            &card,
            &answer("approve", OWNER, Some(&reject_note))
        )),
        ErrorCode::AadMismatch
    );
    // The owner's note, credited to another decider.
    let approve_note = owner_note(decision.as_str(), "approve", "");
    assert_eq!(
        code(open_decision_answer(
            ring,
            &senders,
            &card,
            &answer("approve", USER2, Some(&approve_note))
        )),
        ErrorCode::AadMismatch
    );
    // An "approve" note from another decision, replayed onto this card.
    let elsewhere = owner_note(other_decision.as_str(), "approve", "");
    assert_eq!(
        code(open_decision_answer(
            ring,
            &senders,
            &card,
            &answer("approve", OWNER, Some(&elsewhere))
        )),
        ErrorCode::AadMismatch
    );
    // The event names another decision.
    let mut moved = answer("approve", OWNER, Some(&approve_note));
    moved.decision_id = other_decision.as_str().to_owned();
    assert_eq!(
        code(open_decision_answer(ring, &senders, &card, &moved)),
        ErrorCode::UnprovenDecisionAnswer
    );
    // An option that is not on the card, even with a note sealed for it.
    let launch_note = owner_note(decision.as_str(), "launch", "");
    assert_eq!(
        code(open_decision_answer(
            ring,
            &senders,
            &card,
            &answer("launch", OWNER, Some(&launch_note))
        )),
        ErrorCode::UnprovenDecisionAnswer
    );
    // A note the server sealed itself: under a generation it minted, and
    // under its own key labelled as generation 0.
    let server_stream_key = StreamKey::generate().unwrap();
    for (generation, expected) in [
        (1, ErrorCode::UnknownKeyGeneration),
        (0, ErrorCode::DecryptionFailed),
    ] {
        let forged = seal_decision_note(
            &ring_with(generation, &server_stream_key),
            &Signer::new(OWNER, &server_key(RecipientKind::User, "owner-laptop")).unwrap(),
            decision.as_str(),
            "approve",
            "",
        )
        .unwrap();
        assert_eq!(
            code(open_decision_answer(
                ring,
                &senders,
                &card,
                &answer("approve", OWNER, Some(&forged))
            )),
            expected
        );
    }

    // The honest answers: an empty note, and a note with text.
    let ok = open_decision_answer(
        ring,
        &senders,
        &card,
        &answer("approve", OWNER, Some(&approve_note)),
    )
    .unwrap();
    assert_eq!(
        (
            ok.option_id.as_str(),
            ok.decided_by.as_str(),
            ok.note.as_str()
        ),
        ("approve", OWNER, "")
    );
    let ok = open_decision_answer(
        ring,
        &senders,
        &card,
        &answer("reject", OWNER, Some(&reject_note)),
    )
    .unwrap();
    assert_eq!(
        (ok.option_id.as_str(), ok.note.as_str()),
        ("reject", "not today")
    );
}

// ---------------------------------------------------------------------------
// Keys on the server's word
// ---------------------------------------------------------------------------

/// The runtime invites USER2 and rolls. The key it wraps to comes only from
/// its trust store: a key the server swapped for one already pinned is
/// `KEY_CHANGED`, a key id never seen is `UNKNOWN_KEY`, an unverified key
/// under `VerifiedOnly` is `KEY_NOT_VERIFIED`. Nothing is wrapped to any of
/// them; the honest invite's roster names the pinned key.
#[test]
fn roll_to_changed_unknown_or_unverified_key_is_refused() {
    let mut w = world();
    let user2 = key(RecipientKind::User, "u2-phone");
    let genuine = Recipient::of(&user2);
    let swapped = Recipient::of(&server_key(RecipientKind::User, "u2-phone"));
    let before = w.store.len();

    /// What an app's "invite" does: admit the served key, then roll to it.
    fn invite(w: &mut World, served: &Recipient) -> Result<u32, Error> {
        let u2 = w.rt_trust.admit(USER2, served)?;
        let owner = w.rt_trust.trusted(OWNER, &Recipient::of(&w.owner))?;
        let roll = w.rt.prepare_roll(
            &w.machine_a,
            &[owner, TrustedKey::own(BOT, &w.machine_a), u2],
        )?;
        w.store.extend(roll.wraps().iter().cloned());
        w.rt.commit_roll(roll)
    }

    // First sight of USER2 (the genuine key): pinned, and the invite works.
    assert_eq!(invite(&mut w, &genuine).unwrap(), 1);
    let roster = {
        let owner = w.rt_trust.trusted(OWNER, &Recipient::of(&w.owner)).unwrap();
        let u2 = w.rt_trust.trusted(USER2, &genuine).unwrap();
        w.rt.prepare_roll(&w.machine_a, &[owner, u2])
            .unwrap()
            .roster()
            .to_vec()
    };
    assert_eq!(roster[1].subject, USER2);
    assert_eq!(roster[1].key_id.as_str(), "u2-phone");
    assert_eq!(
        roster[1].fingerprint,
        fingerprint(USER2, &user2.public_key()).unwrap().display()
    );
    assert!(!roster[1].verified);
    let before_swap = w.store.len();
    assert_eq!(before_swap, before + 3);

    // The server swaps USER2's key: refused, and the pinned key too until
    // the change is handled.
    assert_eq!(code(invite(&mut w, &swapped)), ErrorCode::KeyChanged);
    assert_eq!(
        code(
            w.rt_trust
                .trusted_by_id(USER2, &KeyId::new("u2-phone").unwrap())
        ),
        ErrorCode::KeyChanged
    );
    assert_eq!(
        code(w.rt_trust.trusted(USER2, &genuine)),
        ErrorCode::KeyChanged
    );
    // A roster entry naming a key id nobody presented: unknown.
    assert_eq!(
        code(
            w.rt_trust
                .trusted_by_id(USER2, &KeyId::new("u2-tablet").unwrap())
        ),
        ErrorCode::UnknownKey
    );
    assert_eq!(w.store.len(), before_swap, "nothing was wrapped");
    assert_eq!(w.rt.high_water(), Some(1));
    // Verifying the genuine key (safety numbers compared) discards the swap.
    w.rt_trust.verify(USER2, &genuine).unwrap();
    assert_eq!(invite(&mut w, &genuine).unwrap(), 2);

    // Under VerifiedOnly, an unverified key is refused until verified.
    let mut strict = TrustStore::new(TrustPolicy::VerifiedOnly);
    assert_eq!(
        code(session::owner_key(
            &mut strict,
            OWNER,
            &owner_record(&w.owner)
        )),
        ErrorCode::KeyNotVerified
    );
    let user3 = Recipient::of(&key(RecipientKind::User, "u3-laptop"));
    assert_eq!(code(strict.admit(USER2, &user3)), ErrorCode::KeyNotVerified);
    assert_eq!(
        code(strict.trusted_by_id(USER2, &KeyId::new("u3-laptop").unwrap())),
        ErrorCode::KeyNotVerified
    );
    strict
        .verify(
            OWNER,
            &session::owner_recipient(&owner_record(&w.owner)).unwrap(),
        )
        .unwrap();
    strict.verify(USER2, &user3).unwrap();
    let owner = session::owner_key(&mut strict, OWNER, &owner_record(&w.owner)).unwrap();
    let u3 = strict.admit(USER2, &user3).unwrap();
    assert_eq!(
        (owner.level(), u3.level()),
        (TrustLevel::Verified, TrustLevel::Verified)
    );
    let roll = w.rt.prepare_roll(&w.machine_a, &[owner, u3]).unwrap();
    assert!(roll.roster().iter().all(|r| r.verified));
}

/// `owner-e2e-key` serves another key for the same owner: `KEY_CHANGED`
/// (and the pinned key is held back too, so the owner's wraps stop being
/// admitted); after `acknowledge_change` the new key is usable, unverified.
/// Under `RefuseAfterVerifiedChange`, after a verify, acknowledging is
/// refused and only verifying the new key makes it usable.
#[test]
fn changed_owner_key_is_refused_until_handled() {
    let mut w = world();
    let first = owner_record(&w.owner);
    let new_owner_key = key(RecipientKind::User, "owner-laptop");
    let second = owner_record(&new_owner_key);
    let key_id = KeyId::new("owner-laptop").unwrap();

    assert_eq!(
        code(session::owner_key(&mut w.rt_trust, OWNER, &second)),
        ErrorCode::KeyChanged
    );
    assert_eq!(
        code(session::owner_key(&mut w.rt_trust, OWNER, &first)),
        ErrorCode::KeyChanged
    );
    // While the change is pending, the owner's wraps are not admitted.
    let owner_roll = {
        let bot = w
            .ow_trust
            .trusted(BOT, &Recipient::of(&w.machine_a))
            .unwrap();
        let roll =
            w.ow.prepare_roll(&w.owner, &[TrustedKey::own(OWNER, &w.owner), bot])
                .unwrap();
        let wraps = roll.wraps().to_vec();
        w.ow.commit_roll(roll).unwrap();
        wraps
    };
    let trigger = w.owner_message(&mint(1), "@helper go");
    let mut wraps = w.bot_wraps();
    wraps.extend(
        owner_roll
            .iter()
            .filter(|x| x.recipient_kind == Some(RecipientKind::Bot))
            .cloned(),
    );
    let v = claim_json(
        INV,
        &wraps,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        1,
    );
    // The prompt is sealed under generation 1, which the runtime cannot admit now.
    assert_eq!(
        code(w.open_claim(v.clone())),
        ErrorCode::UnknownKeyGeneration
    );
    assert_eq!(w.rt.high_water(), Some(0));

    // Acknowledged: the new key is usable, unverified; the old one is not.
    w.rt_trust.acknowledge_change(OWNER, &key_id).unwrap();
    let tk = session::owner_key(&mut w.rt_trust, OWNER, &second).unwrap();
    assert_eq!(tk.level(), TrustLevel::Unverified);
    assert_eq!(
        code(session::owner_key(&mut w.rt_trust, OWNER, &first)),
        ErrorCode::KeyChanged
    );

    // RefuseAfterVerifiedChange: verified, then changed.
    let mut strict = TrustStore::new(TrustPolicy::RefuseAfterVerifiedChange);
    session::owner_key(&mut strict, OWNER, &first).unwrap();
    strict
        .verify(OWNER, &session::owner_recipient(&first).unwrap())
        .unwrap();
    assert_eq!(
        code(session::owner_key(&mut strict, OWNER, &second)),
        ErrorCode::KeyChanged
    );
    assert_eq!(
        code(strict.acknowledge_change(OWNER, &key_id)),
        ErrorCode::KeyNotVerified
    );
    assert_eq!(
        code(session::owner_key(&mut strict, OWNER, &second)),
        ErrorCode::KeyChanged
    );
    strict
        .verify(OWNER, &session::owner_recipient(&second).unwrap())
        .unwrap();
    let tk = session::owner_key(&mut strict, OWNER, &second).unwrap();
    assert_eq!(tk.level(), TrustLevel::Verified);

    // The honest path: with the owner's genuine key pinned and unchanged,
    // the runtime admits the owner's generation 1 and opens the prompt.
    let mut w2 = world();
    let owner_roll = {
        let roll = w2
            .ow
            .prepare_roll(
                &w2.owner,
                &[
                    TrustedKey::own(OWNER, &w2.owner),
                    w2.ow_trust
                        .trusted(BOT, &Recipient::of(&w2.machine_a))
                        .unwrap(),
                ],
            )
            .unwrap();
        let wraps = roll.wraps().to_vec();
        w2.ow.commit_roll(roll).unwrap();
        wraps
    };
    let trigger = w2.owner_message(&mint(1), "@helper go");
    let mut wraps = w2.bot_wraps();
    wraps.extend(
        owner_roll
            .iter()
            .filter(|x| x.recipient_kind == Some(RecipientKind::Bot))
            .cloned(),
    );
    let v = claim_json(
        INV,
        &wraps,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        1,
    );
    let opened = w2.open_claim(v).unwrap();
    assert_eq!(opened.prompt, "@helper go");
    assert_eq!(w2.rt.high_water(), Some(1));
}

// ---------------------------------------------------------------------------
// Budgets and caps
// ---------------------------------------------------------------------------

/// A keyring with a lowered seal budget of 3 refuses the 4th seal; the
/// count lives in the state (clones share it) and survives a restart.
#[test]
fn seal_budget_is_enforced_and_survives_a_restart() {
    let mut w = world();
    let mut ring = w.ow.keyring().clone();
    ring.lower_seal_budget(3);
    for i in 0..3 {
        seal_message(&ring, &w.owner_signer(), ROOT, &mint(i), "x").unwrap();
    }
    assert_eq!(
        code(seal_message(&ring, &w.owner_signer(), ROOT, &mint(3), "x")),
        ErrorCode::SealBudgetExhausted
    );
    assert_eq!(w.ow.keyring().seal_count(0), 3);

    w.ow = StreamState::from_bytes(&w.ow.to_bytes(&w.owner).unwrap(), &w.owner).unwrap();
    assert_eq!(w.ow.keyring().seal_count(0), 3);
    let mut ring = w.ow.keyring().clone();
    ring.lower_seal_budget(3);
    assert_eq!(
        code(seal_message(&ring, &w.owner_signer(), ROOT, &mint(4), "x")),
        ErrorCode::SealBudgetExhausted
    );
    assert_eq!(ring.seal_count(0), 3);

    // The runtime's seals through an opened invocation count in its state.
    let trigger = w.owner_message(&mint(5), "@helper go");
    let opened = w.open_claim(w.honest_claim(INV, &trigger)).unwrap();
    opened.seal_reply(&mint(6), "a").unwrap();
    opened.seal_message(&mint(7), "b").unwrap();
    assert_eq!(w.rt.keyring().seal_count(0), 2);
    let rt = StreamState::from_bytes(&w.rt.to_bytes(&w.machine_a).unwrap(), &w.machine_a).unwrap();
    assert_eq!(rt.keyring().seal_count(0), 2);

    // The way on: a roll starts a fresh count.
    let bot_tk = w
        .ow_trust
        .trusted(BOT, &Recipient::of(&w.machine_a))
        .unwrap();
    let roll =
        w.ow.prepare_roll(&w.owner, &[TrustedKey::own(OWNER, &w.owner), bot_tk])
            .unwrap();
    w.ow.commit_roll(roll).unwrap();
    let mut ring = w.ow.keyring().clone();
    ring.lower_seal_budget(3);
    let body = seal_message(&ring, &w.owner_signer(), ROOT, &mint(8), "x").unwrap();
    assert_eq!(sealed_of(&body).envelope.key_generation, 1);
    assert_eq!(w.ow.keyring().seal_count(1), 1);
}

/// 33 wraps in a `sealedContext` is `INPUT_TOO_LARGE` (before any HPKE
/// work); 32 are fine. One bad history item fails alone, with its code.
#[test]
fn context_wrap_cap_and_history_item_by_item() {
    let mut w = world();
    let trigger = w.owner_message(&mint(1), "@helper go");
    let genuine = w.bot_wraps();
    let many: Vec<KeyWrap> = genuine.iter().cycle().take(33).cloned().collect();
    let v = claim_json(
        INV,
        &many,
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        0,
    );
    assert_eq!(code(w.open_claim(v)), ErrorCode::InputTooLarge);
    assert!(!w.rt.was_acted_on(&trigger.id, 1));
    let v = claim_json(
        INV,
        &many[..32],
        &[],
        &trigger.id,
        trigger.sealed.as_ref().unwrap(),
        0,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(opened.wraps().admitted.len(), 32);

    // History: two good items around a tampered one, one moved to another
    // author, and one the server sealed under a generation it minted.
    let good1 = w.owner_message(&mint(2), "first");
    let good2 = w.owner_message(&mint(3), "second");
    let mut tampered = w.owner_message(&mint(4), "third");
    {
        let s = tampered.sealed.as_mut().unwrap();
        let mut bytes = streamseal::encoding::decode_base64("ciphertext", &s.ciphertext).unwrap();
        bytes[0] ^= 1;
        s.ciphertext = encode_base64(&bytes);
    }
    let forged = {
        let server_stream_key = StreamKey::generate().unwrap();
        let id = mint(5);
        let posing = server_key(RecipientKind::User, "owner-laptop");
        let body = seal_message(
            &ring_with(1, &server_stream_key),
            &Signer::new(OWNER, &posing).unwrap(),
            ROOT,
            &id,
            "forged",
        )
        .unwrap();
        item(id.as_str(), OWNER, "user", &sealed_of(&body))
    };
    let trigger2 = w.owner_message(&mint(6), "@helper again");
    let v = claim_json(
        INV2,
        &genuine,
        &[&good1, &tampered, &forged, &good2],
        &trigger2.id,
        trigger2.sealed.as_ref().unwrap(),
        0,
    );
    let opened = w.open_claim(v).unwrap();
    assert_eq!(opened.prompt, "@helper again");
    let summary: Vec<Result<&str, ErrorCode>> = opened
        .history
        .iter()
        .map(|h| match h {
            HistoryItem::Opened { entry } => Ok(entry.text.as_str()),
            HistoryItem::Failed { code, .. } => Err(*code),
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            Ok("first"),
            Err(ErrorCode::DecryptionFailed),
            Err(ErrorCode::UnknownKeyGeneration),
            Ok("second"),
        ]
    );
    // The prompt, though, is still fatal: the tampered message as the prompt.
    let v = claim_json(
        "inv_01JD3QN9E1G3J5M7Q9S1V3X5Z9",
        &genuine,
        &[],
        &tampered.id,
        tampered.sealed.as_ref().unwrap(),
        0,
    );
    assert_eq!(code(w.open_claim(v)), ErrorCode::DecryptionFailed);
}

/// The owner's key is always an accepted sender for its own device, but a
/// public key can only be made to open a wrap by its secret half: a wrap
/// whose `info` names the owner's own key as sender, made by the server in
/// auth mode with a key pair of its own, is skipped.
#[test]
fn wrap_posing_as_the_members_own_key_is_skipped() {
    let mut w = world();
    let posing = server_key(RecipientKind::User, "owner-laptop");
    assert_ne!(posing.public_key(), w.owner.public_key());
    let forged = minted(
        1,
        &StreamKey::generate().unwrap(),
        &posing,
        &Recipient::of(&w.owner),
    );
    let report = w.owner_opens(&list(0, &[forged]));
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].code, ErrorCode::UntrustedWrap);
    assert_eq!(w.ow.high_water(), Some(0));
    // A genuine wrap from the owner's own key to itself is admitted as "self".
    let own = wrap_stream_key(
        ROOT,
        1,
        &StreamKey::generate().unwrap(),
        &w.owner,
        &Recipient::of(&w.owner),
    )
    .unwrap();
    let report = w.owner_opens(&list(1, &[own]));
    assert_eq!(report.admitted.len(), 1);
    assert_eq!(report.admitted[0].sender, "self");
    assert_eq!(w.ow.high_water(), Some(1));
}
