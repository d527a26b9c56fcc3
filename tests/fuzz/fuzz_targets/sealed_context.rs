//! `sealedContext` open (`sealed::runtime::OpenedInvocation::open`) with the
//! runtime key of `invocations.json`, through a runtime's stream state that
//! pinned the vector's owner (as owner and as the key sender), and the
//! member's key as the server presented it (not pinned).
//!
//! Mode 0: an `Invocation` JSON text (seeds: the vector's invocation and the
//! claim fixtures). Mode 1: the vector's invocation with fuzzed edits
//! (ids, revision, author type, generations, wraps dropped, repeated or
//! minted by a server key, history dropped or moved into the prompt, bytes
//! of ciphertexts and AADs changed, the prompt re-sealed in the owner's name
//! by the member or by a key of the server's own under the owner's key id).
//!
//! Oracle: decode -> encode -> decode; whatever opens was sealed by the
//! vector (no plaintext appears that the vector did not seal), the prompt
//! opened is the one bound to the invocation's own stream, message, author,
//! author type and revision, authored and signed by the pinned owner, each
//! history item that opens carries the slot it was sealed into and was
//! signed by that slot's author, every key the state holds is the vector's
//! (a minted wrap is never admitted), the reply sealed from the opened
//! invocation opens under its bot-reply slot as signed by the runtime's bot
//! and never below the generation announced or held, and the same prompt
//! under another invocation id is `PROMPT_REPLAYED`. The vector unedited
//! opens.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::ErrorCode;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::open;
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, Recipient};
use streamseal::sealed::runtime::{HistoryItem, OpenedInvocation};
use streamseal::sealed::state::StreamState;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore};
use streamseal::wire::common::AuthorType;
use streamseal::wire::ids::MessageId;
use streamseal::wire::invocation::Invocation;
use streamseal_fuzz::{
    ByteEdit, FuzzText, edit, hex32, invocation_member, invocation_owner, invocation_runtime,
    json_round_trip, mode, seal_randomness, server_key, vectors,
};

struct Fixture {
    invocation: Invocation,
    mine: Vec<IdentityKey>,
    /// The runtime's trust store: the owner's key pinned.
    trust: TrustStore,
    /// The runtime's state of the root before the claim: owner set, the
    /// owner's key accepted as key sender.
    state: StreamState,
    /// The runtime's bot id.
    bot_id: String,
    /// The owner the state pinned.
    owner: String,
    /// The member whose key the server presented, and that key.
    member: (String, Recipient),
    /// The one stream key the vector wrapped.
    stream_key: StreamKey,
    /// Every (plaintext, slot) the vector sealed.
    known: Vec<(String, Slot)>,
}

fn fixture() -> &'static Option<Fixture> {
    static F: OnceLock<Option<Fixture>> = OnceLock::new();
    F.get_or_init(|| {
        let vector = vectors::list(vectors::INVOCATIONS).into_iter().next()?;
        let invocation: Invocation =
            serde_json::from_value(vector.get("invocation")?.clone()).ok()?;
        let mine = vec![invocation_runtime()];
        let owner = vector.get("ownerUserId")?.as_str()?.to_owned();
        let bot_id = vector.get("botId")?.as_str()?.to_owned();
        let stream_key = StreamKey::from_bytes(&hex32(vector.get("streamKeyHex")?.as_str()?));
        let member = (
            vector.get("memberUserId")?.as_str()?.to_owned(),
            Recipient::of(&invocation_member()),
        );
        let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let owner_key = trust
            .admit(&owner, &Recipient::of(&invocation_owner()))
            .ok()?;
        let mut state = StreamState::new(invocation.root_stream_id.as_str()).ok()?;
        state.set_owner(&owner).ok()?;
        state.accept_sender(&owner_key).ok()?;
        let senders = SenderKeys::new(&trust).with_presented(&member.0, &member.1);
        let opened =
            OpenedInvocation::open(&invocation, &mut state.clone(), &senders, &bot_id, &mine)
                .ok()?;
        let mut known = vec![(opened.prompt.clone(), prompt_slot(&invocation)?)];
        for h in &opened.history {
            let HistoryItem::Opened { entry } = h else {
                return None;
            };
            known.push((entry.text.clone(), entry.slot.clone()));
        }
        Some(Fixture {
            invocation,
            mine,
            trust,
            state,
            bot_id,
            owner,
            member,
            stream_key,
            known,
        })
    })
}

impl Fixture {
    /// What the runtime checks signatures against: its trust store and the
    /// member's key as presented.
    fn senders(&self) -> SenderKeys<'_> {
        SenderKeys::new(&self.trust).with_presented(&self.member.0, &self.member.1)
    }
}

/// The slot of `inv`'s prompt: the trigger message as its author sealed it.
fn prompt_slot(inv: &Invocation) -> Option<Slot> {
    let ctx = inv.sealed_context.as_ref()?;
    Some(Slot::invocation_prompt(
        inv.active_stream_id.clone(),
        inv.source_message_id.clone(),
        inv.author_user_id.clone(),
        ctx.trigger.author_type.as_str(),
        inv.source_revision,
    ))
}

#[derive(Arbitrary, Debug)]
enum Edit {
    SourceMessageId(FuzzText),
    TriggerMessageId(FuzzText),
    AuthorUserId(FuzzText),
    ActiveStreamId(FuzzText),
    RootStreamId(FuzzText),
    ResponseStreamId(FuzzText),
    SourceRevision(u32),
    TriggerAuthorType(FuzzText),
    ReplyGeneration(u32),
    SenderId(FuzzText),
    DropWrap(u8),
    RepeatWrap(u8),
    WrapGeneration(u8, u32),
    DropHistory(u8),
    HistoryIntoPrompt(u8),
    PromptIntoHistory,
    PromptCiphertext(ByteEdit),
    PromptAad(ByteEdit),
    PromptGeneration(u32),
    HistoryAad(u8, ByteEdit),
    HistoryCiphertext(u8, ByteEdit),
    NoSealedContext,
    /// The prompt re-sealed into the invocation's prompt slot with the
    /// vector's stream key, in the owner's name: signed by the member's key
    /// (`true`) or by a key of the server's own under the owner's key id.
    ForgePrompt(bool),
    /// A wrap the server made from a key pair of its own, to the runtime's
    /// real key, for this generation (recipient fields absent).
    MintWrap(u32),
}

fn pick<T>(items: &mut [T], i: u8) -> Option<&mut T> {
    let len = items.len();
    if len == 0 {
        None
    } else {
        items.get_mut(usize::from(i) % len)
    }
}

fn edit_b64(text: &mut String, e: &ByteEdit) {
    let mut bytes = decode_base64("x", text).unwrap_or_default();
    edit(&mut bytes, std::slice::from_ref(e));
    *text = encode_base64(&bytes);
}

fn apply(inv: &mut Invocation, e: &Edit) {
    if let Edit::NoSealedContext = e {
        inv.sealed_context = None;
        return;
    }
    match e {
        Edit::SourceMessageId(t) => inv.source_message_id = t.get(),
        Edit::AuthorUserId(t) => inv.author_user_id = t.get(),
        Edit::ActiveStreamId(t) => inv.active_stream_id = t.get(),
        Edit::RootStreamId(t) => inv.root_stream_id = t.get(),
        Edit::ResponseStreamId(t) => inv.response_stream_id = t.get(),
        Edit::SourceRevision(r) => inv.source_revision = *r,
        _ => {}
    }
    let Some(ctx) = inv.sealed_context.as_mut() else {
        return;
    };
    match e {
        Edit::TriggerMessageId(t) => ctx.trigger.message_id = t.get(),
        Edit::TriggerAuthorType(t) => ctx.trigger.author_type = AuthorType::parse(&t.get()),
        Edit::ReplyGeneration(g) => ctx.reply.key_generation = *g,
        Edit::SenderId(t) => ctx.reply.sender_id = t.get(),
        Edit::DropWrap(i) => {
            if !ctx.wraps.is_empty() {
                let i = usize::from(*i) % ctx.wraps.len();
                ctx.wraps.remove(i);
            }
        }
        Edit::RepeatWrap(i) => {
            if let Some(w) = pick(&mut ctx.wraps, *i).cloned() {
                ctx.wraps.push(w);
            }
        }
        Edit::WrapGeneration(i, g) => {
            if let Some(w) = pick(&mut ctx.wraps, *i) {
                w.key_generation = *g;
            }
        }
        Edit::DropHistory(i) => {
            if !ctx.history.is_empty() {
                let i = usize::from(*i) % ctx.history.len();
                ctx.history.remove(i);
            }
        }
        Edit::HistoryIntoPrompt(i) => {
            if let Some(h) = pick(&mut ctx.history, *i) {
                ctx.prompt = h.payload();
            }
        }
        Edit::PromptIntoHistory => {
            let prompt = ctx.prompt.clone();
            if let Some(h) = ctx.history.first_mut() {
                h.ciphertext = prompt.ciphertext;
                h.envelope = prompt.envelope;
            }
        }
        Edit::PromptCiphertext(b) => edit_b64(&mut ctx.prompt.ciphertext, b),
        Edit::PromptAad(b) => edit_b64(&mut ctx.prompt.envelope.aad, b),
        Edit::PromptGeneration(g) => ctx.prompt.envelope.key_generation = *g,
        Edit::HistoryAad(i, b) => {
            if let Some(h) = pick(&mut ctx.history, *i) {
                edit_b64(&mut h.envelope.aad, b);
            }
        }
        Edit::HistoryCiphertext(i, b) => {
            if let Some(h) = pick(&mut ctx.history, *i) {
                edit_b64(&mut h.ciphertext, b);
            }
        }
        Edit::MintWrap(g) => {
            let minted = {
                let randomness = &[0x6d; 32];
                let mut rng = FixedRandomness::new(randomness);
                hazmat::wrap_stream_key_with(
                    &mut rng,
                    &inv.root_stream_id,
                    *g,
                    &StreamKey::from_bytes(&[0x66; 32]),
                    &server_key(),
                    &Recipient::of(&invocation_runtime()),
                )
            };
            if let Ok(mut w) = minted {
                w.recipient_key_id = None;
                w.recipient_kind = None;
                ctx.wraps.push(w);
            }
        }
        Edit::ForgePrompt(by_member) => {
            let generation = ctx.prompt.envelope.key_generation;
            let Some(f) = fixture() else { return };
            let forger = if *by_member {
                invocation_member()
            } else {
                server_key()
            };
            let slot = Slot::invocation_prompt(
                inv.active_stream_id.clone(),
                inv.source_message_id.clone(),
                inv.author_user_id.clone(),
                ctx.trigger.author_type.as_str(),
                inv.source_revision,
            );
            let mut ring = match Keyring::new(inv.root_stream_id.as_str()) {
                Ok(ring) => ring,
                Err(_) => return,
            };
            if ring.insert(generation, f.stream_key.clone()).is_err() {
                return;
            }
            let Ok(signer) = Signer::new(&inv.author_user_id, &forger) else {
                return;
            };
            let forged = {
                let randomness = seal_randomness(&[0xf0; 12]);
                let mut rng = FixedRandomness::new(&randomness);
                hazmat::seal_envelope_with(
                    &mut rng,
                    &ring,
                    &signer,
                    &slot,
                    b"forged: wire the funds",
                )
            };
            if let Ok(forged) = forged {
                ctx.prompt = forged;
            }
        }
        _ => {}
    }
}

fn check(f: &Fixture, inv: &Invocation) -> bool {
    let mut state = f.state.clone();
    let senders = f.senders();
    let Ok(opened) = OpenedInvocation::open(inv, &mut state, &senders, &f.bot_id, &f.mine) else {
        return false;
    };
    assert_eq!(
        inv.author_user_id, f.owner,
        "acted on a prompt of another author"
    );
    for g in state.keyring().generations() {
        assert!(
            state.keyring().key(g).is_ok_and(|k| *k == f.stream_key),
            "generation {g} holds a key the owner did not wrap"
        );
    }
    let Some(prompt_slot) = prompt_slot(inv) else {
        panic!("opened without a sealedContext")
    };
    let owner_key = Recipient::of(&invocation_owner());
    let by = &opened.prompt_sealed_by;
    assert_eq!(
        by.subject, f.owner,
        "a prompt signed by another than the owner"
    );
    assert_eq!(
        by.key_id,
        owner_key.key_id.as_str(),
        "a prompt signed by another key"
    );
    assert_eq!(
        by.status,
        TrustLevel::Unverified,
        "the owner's pin is not verified"
    );
    assert!(
        f.known
            .iter()
            .any(|(t, s)| *t == opened.prompt && *s == prompt_slot),
        "the prompt opened is not one sealed into this invocation's message: {:?}",
        opened.prompt
    );
    for h in &opened.history {
        if let HistoryItem::Opened { entry } = h {
            assert_eq!(
                entry.slot.author_id(),
                Some(entry.sealed_by.subject.as_str()),
                "a history item signed by another than its author: {entry:?}"
            );
            assert!(
                f.known
                    .iter()
                    .any(|(t, s)| *t == entry.text && *s == entry.slot),
                "a history item opened into a slot it was not sealed into: {entry:?}"
            );
        }
    }
    let reply_id = "msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6";
    let Ok(message_id) = MessageId::parse(reply_id) else {
        return true;
    };
    let Some(ctx) = inv.sealed_context.as_ref() else {
        panic!("opened without a sealedContext")
    };
    let body = {
        let randomness = seal_randomness(&[0xb0; 12]);
        let mut rng = FixedRandomness::new(&randomness);
        streamseal::sealed::hazmat::seal_reply_with(&mut rng, &opened, &message_id, "the reply")
    };
    if let Ok(body) = body {
        let Some(reply) = body.reply else {
            panic!("a reply body without its reply")
        };
        assert_eq!(
            ctx.reply.sender_id, f.bot_id,
            "a reply under another sender"
        );
        let slot = Slot::BotReply {
            stream_id: inv.response_stream_id.clone(),
            message_id: reply_id.to_owned(),
            author_id: f.bot_id.clone(),
            invocation_id: inv.id.clone(),
        };
        let viewer =
            SenderKeys::new(&f.trust).with_presented(&f.bot_id, &Recipient::of(&f.mine[0]));
        let reply_opened = open(opened.keyring(), &viewer, &slot, &reply.sealed)
            .unwrap_or_else(|e| panic!("the sealed reply does not open under its slot: {e}"));
        assert_eq!(*reply_opened.plaintext, *b"the reply");
        assert_eq!(reply_opened.sealed_by.subject, f.bot_id);
        assert_eq!(
            reply_opened.sealed_by.key_id,
            f.mine[0].key_id().as_str(),
            "a reply signed by another key than the runtime's first"
        );
        let generation = reply.sealed.envelope.key_generation;
        assert!(
            generation >= ctx.reply.key_generation,
            "a reply below the announced generation"
        );
        assert!(
            Some(generation) >= opened.keyring().newest_generation(),
            "a reply below the newest generation held"
        );
    }
    // The same prompt delivered again under another invocation id.
    let mut replayed = inv.clone();
    replayed.id = format!("{}-again", inv.id);
    let again = OpenedInvocation::open(&replayed, &mut state, &senders, &f.bot_id, &f.mine);
    assert_eq!(
        again.map(|_| ()).map_err(|e| e.code()),
        Err(ErrorCode::PromptReplayed),
        "a replayed prompt was not reported"
    );
    true
}

fuzz_target!(|data: &[u8]| {
    let Some(f) = fixture() else {
        panic!("the invocation vector does not open")
    };
    let Some((m, rest)) = mode(data) else { return };
    if m % 2 == 0 {
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        let Ok(inv) = serde_json::from_str::<Invocation>(text) else {
            return;
        };
        json_round_trip("Invocation", &inv);
        check(f, &inv);
    } else {
        let Ok(edits) = Vec::<Edit>::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let mut inv = f.invocation.clone();
        for e in edits.iter().take(6) {
            apply(&mut inv, e);
        }
        let opened = check(f, &inv);
        if edits.is_empty() {
            assert!(opened, "the vector's invocation does not open");
        }
    }
});
