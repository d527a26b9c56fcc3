//! `sealedContext` open (`sealed::runtime::OpenedInvocation::open`) with the
//! runtime key of `invocations.json`.
//!
//! Mode 0: an `Invocation` JSON text (seeds: the vector's invocation and the
//! claim fixtures). Mode 1: the vector's invocation with fuzzed edits
//! (ids, revision, generations, wraps dropped or repeated, history dropped
//! or moved into the prompt, bytes of ciphertexts and AADs changed).
//!
//! Oracle: decode -> encode -> decode; whatever opens was sealed by the
//! vector (no plaintext appears that the vector did not seal), the prompt
//! opened is the one bound to the invocation's own stream, message, author
//! and revision, each history item carries the slot it was sealed into, and
//! the reply sealed from the opened invocation opens under its bot-reply
//! slot. The vector unedited opens.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::open;
use streamseal::identity::IdentityKey;
use streamseal::sealed::runtime::OpenedInvocation;
use streamseal::slot::Slot;
use streamseal::testing::with_fixed_randomness;
use streamseal::wire::ids::MessageId;
use streamseal::wire::invocation::Invocation;
use streamseal_fuzz::{
    ByteEdit, FuzzText, edit, invocation_runtime, json_round_trip, mode, vectors,
};

struct Fixture {
    invocation: Invocation,
    mine: Vec<IdentityKey>,
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
        let opened = OpenedInvocation::open(&invocation, &mine).ok()?;
        let mut known = vec![(
            opened.prompt.clone(),
            Slot::invocation_prompt(
                invocation.active_stream_id.clone(),
                invocation.source_message_id.clone(),
                invocation.author_user_id.clone(),
                invocation.source_revision,
            ),
        )];
        known.extend(
            opened
                .history
                .iter()
                .map(|h| (h.text.clone(), h.slot.clone())),
        );
        Some(Fixture {
            invocation,
            mine,
            known,
        })
    })
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
        _ => {}
    }
}

fn check(f: &Fixture, inv: &Invocation) -> bool {
    let Ok(opened) = OpenedInvocation::open(inv, &f.mine) else {
        return false;
    };
    let prompt_slot = Slot::invocation_prompt(
        inv.active_stream_id.clone(),
        inv.source_message_id.clone(),
        inv.author_user_id.clone(),
        inv.source_revision,
    );
    assert!(
        f.known
            .iter()
            .any(|(t, s)| *t == opened.prompt && *s == prompt_slot),
        "the prompt opened is not one sealed into this invocation's message: {:?}",
        opened.prompt
    );
    for h in &opened.history {
        assert!(
            f.known.iter().any(|(t, s)| *t == h.text && *s == h.slot),
            "a history item opened into a slot it was not sealed into: {h:?}"
        );
    }
    let reply_id = "msg_01JD3QM8D0F2H4K6N8Q0T2W4Y6";
    let Ok(message_id) = MessageId::parse(reply_id) else {
        return true;
    };
    let Some(ctx) = inv.sealed_context.as_ref() else {
        panic!("opened without a sealedContext")
    };
    let body = with_fixed_randomness(&[0xb0; 12], || opened.seal_reply(&message_id, "the reply"));
    if let Ok(body) = body {
        let Some(reply) = body.reply else {
            panic!("a reply body without its reply")
        };
        let slot = Slot::BotReply {
            stream_id: inv.response_stream_id.clone(),
            message_id: reply_id.to_owned(),
            author_id: ctx.reply.sender_id.clone(),
            invocation_id: inv.id.clone(),
        };
        let text = open(opened.keyring(), &slot, &reply.sealed)
            .unwrap_or_else(|e| panic!("the sealed reply does not open under its slot: {e}"));
        assert_eq!(*text, *b"the reply");
        assert!(
            reply.sealed.envelope.key_generation
                >= ctx
                    .reply
                    .key_generation
                    .min(opened.keyring().newest_generation().unwrap_or(0))
        );
    }
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
