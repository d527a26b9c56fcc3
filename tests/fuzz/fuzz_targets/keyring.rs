//! Key-wraps record -> keyring (`sealed::keyring::open_key_wraps`), with the
//! recipient keys of `wraps.json`.
//!
//! Mode 0: a `KeyWraps` JSON text (seeds: the key_wraps fixture and the
//! vectors' wraps). Mode 1: a list built from the vectors' wraps, some
//! edited, repeated or moved to another generation, under a fuzzed
//! `currentKeyGeneration` and subset of keys.
//!
//! Oracle: decode -> encode -> decode; every key in an opened keyring is a
//! key the vectors wrapped for that generation; the generation sealed under
//! is never below the announced one nor the newest held; every wrap named
//! to the caller either opened or is reported skipped.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::ErrorCode;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::identity::IdentityKey;
use streamseal::sealed::keyring::open_key_wraps;
use streamseal::stream_key::StreamKey;
use streamseal::wire::keys::KeyWraps;
use streamseal::wrap::KeyWrap;
use streamseal_fuzz::{
    ByteEdit, ROOT, edit, json_round_trip, mode, vectors, wrap_recipients, wrapped_keys,
};

/// The vectors' wraps, the recipients' keys and the stream keys wrapped.
type Fixtures = (Vec<KeyWrap>, Vec<IdentityKey>, Vec<(u32, StreamKey)>);

fn fixtures() -> &'static Fixtures {
    static F: OnceLock<Fixtures> = OnceLock::new();
    F.get_or_init(|| {
        let wraps = vectors::list(vectors::WRAPS)
            .iter()
            .filter_map(|v| v.get("wrap").cloned())
            .filter_map(|w| serde_json::from_value(w).ok())
            .collect();
        (wraps, wrap_recipients(), wrapped_keys())
    })
}

#[derive(Arbitrary, Debug)]
struct Item {
    which: u8,
    key_generation: Option<u32>,
    ct_edits: Vec<ByteEdit>,
    unnamed: bool,
}

#[derive(Arbitrary, Debug)]
struct Structured {
    current_key_generation: u32,
    items: Vec<Item>,
    mine: u8,
}

fn check(listed: &KeyWraps, mine: &[IdentityKey]) {
    let (_, _, wrapped) = fixtures();
    match open_key_wraps(ROOT, listed, mine) {
        Ok(opened) => {
            let ring = &opened.keyring;
            for g in ring.generations() {
                let key = ring
                    .key(g)
                    .unwrap_or_else(|e| panic!("listed generation {g} missing: {e}"));
                assert!(
                    wrapped.iter().any(|(wg, k)| *wg == g && k == key),
                    "generation {g} holds a key no vector wrapped"
                );
            }
            let current = ring.current_generation();
            assert!(
                current >= Some(listed.current_key_generation),
                "sealing below the announced generation"
            );
            assert!(
                current >= ring.newest_generation(),
                "sealing below the newest generation held"
            );
            let addressed = listed
                .wraps
                .iter()
                .filter(|w| match &w.recipient_key_id {
                    None => true,
                    Some(id) => mine.iter().any(|k| k.key_id().as_str() == id),
                })
                .count();
            // Each addressed wrap either went into the keyring (several may
            // give the same generation) or was skipped.
            assert!(opened.skipped.len() <= addressed);
            if addressed > 0 {
                assert!(
                    !ring.generations().is_empty() || opened.skipped.len() == addressed,
                    "an addressed wrap neither opened nor was skipped"
                );
            }
        }
        Err(e) => assert!(
            matches!(
                e.code(),
                ErrorCode::KeyGenerationConflict | ErrorCode::TooManyKeys
            ),
            "unexpected failure of the whole list: {e}"
        ),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    let (wraps, all, _) = fixtures();
    if m % 2 == 0 {
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        let Ok(listed) = serde_json::from_str::<KeyWraps>(text) else {
            return;
        };
        json_round_trip("KeyWraps", &listed);
        let mine: Vec<IdentityKey> = all.iter().skip(usize::from(m / 2) % 3).cloned().collect();
        check(&listed, &mine);
    } else {
        let Ok(input) = Structured::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let mut list = Vec::new();
        for item in input.items.iter().take(4) {
            let Some(original) = wraps.get(usize::from(item.which) % wraps.len().max(1)) else {
                return;
            };
            let mut ct = decode_base64("wrapCt", &original.wrap_ct).unwrap_or_default();
            edit(&mut ct, &item.ct_edits);
            list.push(KeyWrap {
                key_generation: item.key_generation.unwrap_or(original.key_generation),
                recipient_key_id: if item.unnamed {
                    None
                } else {
                    original.recipient_key_id.clone()
                },
                recipient_kind: if item.unnamed {
                    None
                } else {
                    original.recipient_kind.clone()
                },
                wrap_enc: original.wrap_enc.clone(),
                wrap_ct: encode_base64(&ct),
            });
        }
        let listed = KeyWraps {
            current_key_generation: input.current_key_generation,
            owner_user_id: "usr_owner".into(),
            wraps: list,
        };
        let mine: Vec<IdentityKey> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| input.mine & (1 << i) != 0)
            .map(|(_, k)| k.clone())
            .collect();
        check(&listed, &mine);
    }
});
