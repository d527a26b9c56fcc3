//! Wrap open: a `KeyWrap` record from the server -> `unwrap_stream_key`
//! with the three recipient keys of `wraps.json`, accepting its senders
//! (wrap format 2: HPKE auth mode from the sender's key).
//!
//! Mode 0: a KeyWrap JSON text (seeds: the vectors' wraps). Round-trip
//! oracle; what opens must be a key the vectors wrapped, for that
//! generation, from the sender that wrapped it.
//! Mode 1: one of the vectors' wraps, edited (bytes of `wrapEnc`/`wrapCt`,
//! generation, recipient, root stream, which keys are tried, which senders
//! are accepted and under which key id). It opens only when nothing that the
//! HPKE info binds was changed, the addressee's key is tried and its real
//! sender is accepted as it is, to the wrapped key, reporting that sender;
//! unedited, it opens. A server key of its own, accepted in the real
//! sender's place, never opens it.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
use streamseal::stream_key::StreamKey;
use streamseal::wrap::{KeyWrap, unwrap_stream_key};
use streamseal_fuzz::{
    ByteEdit, FuzzText, ROOT, edit, json_round_trip, mode, server_key, vector_sender, vectors,
    wrap_recipients, wrap_senders, wrapped_keys,
};

/// The vectors' wraps, each with the sender that made it.
fn vector_wraps() -> &'static Vec<(KeyWrap, Recipient)> {
    static WRAPS: OnceLock<Vec<(KeyWrap, Recipient)>> = OnceLock::new();
    WRAPS.get_or_init(|| {
        vectors::list(vectors::WRAPS)
            .iter()
            .filter_map(|v| {
                let wrap = serde_json::from_value(v.get("wrap")?.clone()).ok()?;
                Some((wrap, vector_sender(v)?))
            })
            .collect()
    })
}

/// The recipients' keys, the stream keys wrapped to them, and the senders
/// a member accepts (the vectors' two, then the server's own key).
type Keys = (Vec<IdentityKey>, Vec<(u32, StreamKey)>, Vec<Recipient>);

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut senders: Vec<Recipient> = wrap_senders().into_iter().map(|(_, r)| r).collect();
        senders.push(Recipient::of(&server_key()));
        (wrap_recipients(), wrapped_keys(), senders)
    })
}

#[derive(Arbitrary, Debug)]
struct Structured {
    which: u8,
    enc_edits: Vec<ByteEdit>,
    ct_edits: Vec<ByteEdit>,
    key_generation: Option<u32>,
    recipient_key_id: Option<Option<FuzzText>>,
    recipient_kind: Option<Option<FuzzText>>,
    root: Option<FuzzText>,
    /// Bit i: recipient i is among the keys tried.
    mine: u8,
    /// Bit i: sender i (owner, machine A, the server) is accepted.
    senders: u8,
    /// Every accepted sender presented under this key id instead.
    sender_key_id: Option<FuzzText>,
}

fn json_mode(text: &str) {
    let Ok(wrap) = serde_json::from_str::<KeyWrap>(text) else {
        return;
    };
    json_round_trip("KeyWrap", &wrap);
    let (mine, wrapped, senders) = keys();
    if let Ok(opened) = unwrap_stream_key(ROOT, &wrap, mine, senders) {
        assert!(
            wrapped
                .iter()
                .any(|(g, k)| *g == wrap.key_generation && *k == opened.key),
            "opened to a key no vector wrapped"
        );
        let sender = senders.get(opened.sender);
        assert!(
            vector_wraps()
                .iter()
                .any(|(w, s)| w.key_generation == wrap.key_generation && Some(s) == sender),
            "opened as made by a sender that made no such wrap"
        );
        assert!(mine.get(opened.recipient).is_some());
    }
}

fn structured_mode(input: Structured) {
    let wraps = vector_wraps();
    let (all, wrapped, all_senders) = keys();
    let n = usize::from(input.which) % wraps.len().max(1);
    let (Some((original, real_sender)), Some((_, wrapped_key))) = (wraps.get(n), wrapped.get(n))
    else {
        return;
    };
    let mut enc = decode_base64("wrapEnc", &original.wrap_enc).unwrap_or_default();
    let mut ct = decode_base64("wrapCt", &original.wrap_ct).unwrap_or_default();
    let (enc0, ct0) = (enc.clone(), ct.clone());
    edit(&mut enc, &input.enc_edits);
    edit(&mut ct, &input.ct_edits);
    let wrap = KeyWrap {
        key_generation: input.key_generation.unwrap_or(original.key_generation),
        recipient_key_id: match &input.recipient_key_id {
            None => original.recipient_key_id.clone(),
            Some(id) => id.as_ref().map(FuzzText::get),
        },
        recipient_kind: match &input.recipient_kind {
            None => original.recipient_kind.clone(),
            Some(kind) => kind.as_ref().map(|k| RecipientKind::parse(&k.get())),
        },
        wrap_enc: encode_base64(&enc),
        wrap_ct: encode_base64(&ct),
        extra: Default::default(),
    };
    let root = input
        .root
        .as_ref()
        .map_or_else(|| ROOT.to_owned(), FuzzText::get);
    let mine: Vec<IdentityKey> = all
        .iter()
        .enumerate()
        .filter(|(i, _)| input.mine & (1 << i) != 0)
        .map(|(_, k)| k.clone())
        .collect();
    let relabel = input
        .sender_key_id
        .as_ref()
        .and_then(|t| KeyId::new(t.get()).ok());
    let senders: Vec<Recipient> = all_senders
        .iter()
        .enumerate()
        .filter(|(i, _)| input.senders & (1 << i) != 0)
        .map(|(_, s)| match &relabel {
            Some(key_id) => Recipient {
                key_id: key_id.clone(),
                ..s.clone()
            },
            None => s.clone(),
        })
        .collect();
    let addressee_tried = mine.iter().any(|k| {
        Some(k.key_id().as_str()) == original.recipient_key_id.as_deref()
            && Some(k.kind()) == original.recipient_kind.as_ref()
    });
    let sender_accepted = senders.contains(real_sender);
    let bound_unchanged =
        enc == enc0 && ct == ct0 && wrap.key_generation == original.key_generation && root == ROOT;
    match unwrap_stream_key(&root, &wrap, &mine, &senders) {
        Ok(opened) => {
            assert!(bound_unchanged, "an edited wrap opened");
            assert!(addressee_tried, "opened without the addressee's key");
            assert!(
                sender_accepted,
                "opened without its sender accepted as it is"
            );
            assert_eq!(&opened.key, wrapped_key, "opened to another key");
            assert_eq!(
                senders.get(opened.sender),
                Some(real_sender),
                "opened as made by another sender"
            );
            assert_eq!(
                mine.get(opened.recipient).map(IdentityKey::public_key),
                all.iter()
                    .find(|k| Some(k.key_id().as_str()) == original.recipient_key_id.as_deref())
                    .map(IdentityKey::public_key),
                "opened with another key than the addressee's"
            );
        }
        Err(e) => assert!(
            !(bound_unchanged && addressee_tried && sender_accepted && wrap == *original),
            "an untouched wrap did not open: {e}"
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    if m % 2 == 0 {
        if let Ok(text) = std::str::from_utf8(rest) {
            json_mode(text);
        }
    } else if let Ok(input) = Structured::arbitrary(&mut Unstructured::new(rest)) {
        structured_mode(input);
    }
});
