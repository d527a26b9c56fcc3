//! Wrap open: a `KeyWrap` record from the server -> `unwrap_stream_key`
//! with the three recipient keys of `wraps.json`.
//!
//! Mode 0: a KeyWrap JSON text (seeds: the vectors' wraps). Round-trip
//! oracle; what opens must be a key the vectors wrapped, for that generation.
//! Mode 1: one of the vectors' wraps, edited (bytes of `wrapEnc`/`wrapCt`,
//! generation, recipient, root stream, which keys are tried). It opens only
//! when nothing that the HPKE info binds was changed, to the wrapped key;
//! unedited, it opens.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::identity::{IdentityKey, RecipientKind};
use streamseal::stream_key::StreamKey;
use streamseal::wrap::{KeyWrap, unwrap_stream_key};
use streamseal_fuzz::{
    ByteEdit, FuzzText, ROOT, edit, json_round_trip, mode, vectors, wrap_recipients, wrapped_keys,
};

fn vector_wraps() -> &'static Vec<KeyWrap> {
    static WRAPS: OnceLock<Vec<KeyWrap>> = OnceLock::new();
    WRAPS.get_or_init(|| {
        vectors::list(vectors::WRAPS)
            .iter()
            .filter_map(|v| v.get("wrap").cloned())
            .filter_map(|w| serde_json::from_value(w).ok())
            .collect()
    })
}

/// The recipients' keys and the stream keys wrapped to them.
type Keys = (Vec<IdentityKey>, Vec<(u32, StreamKey)>);

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| (wrap_recipients(), wrapped_keys()))
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
}

fn json_mode(text: &str) {
    let Ok(wrap) = serde_json::from_str::<KeyWrap>(text) else {
        return;
    };
    json_round_trip("KeyWrap", &wrap);
    let (mine, wrapped) = keys();
    if let Ok(key) = unwrap_stream_key(ROOT, &wrap, mine) {
        assert!(
            wrapped
                .iter()
                .any(|(g, k)| *g == wrap.key_generation && *k == key),
            "opened to a key no vector wrapped"
        );
    }
}

fn structured_mode(input: Structured) {
    let wraps = vector_wraps();
    let (all, wrapped) = keys();
    let n = usize::from(input.which) % wraps.len().max(1);
    let (Some(original), Some((_, wrapped_key))) = (wraps.get(n), wrapped.get(n)) else {
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
    let addressee_tried = mine.iter().any(|k| {
        Some(k.key_id().as_str()) == original.recipient_key_id.as_deref()
            && Some(k.kind()) == original.recipient_kind.as_ref()
    });
    let bound_unchanged =
        enc == enc0 && ct == ct0 && wrap.key_generation == original.key_generation && root == ROOT;
    match unwrap_stream_key(&root, &wrap, &mine) {
        Ok(key) => {
            assert!(bound_unchanged, "an edited wrap opened");
            assert!(addressee_tried, "opened without the addressee's key");
            assert_eq!(&key, wrapped_key, "opened to another key");
        }
        Err(e) => assert!(
            !(bound_unchanged && addressee_tried && wrap == *original),
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
