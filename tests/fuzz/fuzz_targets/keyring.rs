//! Key-wraps record -> a member's stream state
//! (`sealed::key_wraps::open_key_wraps`), with the recipient keys of
//! `wraps.json` and a fuzzed subset of its senders accepted.
//!
//! Mode 0: a `KeyWraps` JSON text (seeds: the key_wraps fixture and the
//! vectors' wraps). Mode 1: a list built from the vectors' wraps, some
//! edited, repeated or moved to another generation, plus wraps a server key
//! of its own made, under a fuzzed `currentKeyGeneration` and subset of keys.
//!
//! Oracle: decode -> encode -> decode; the list never fails as a whole
//! (only too many keys, or an `ownerUserId` out of bounds); every key the
//! state holds is a key the vectors wrapped for that generation, admitted
//! from a sender the member accepts (or its own key), never the server's;
//! the generation sealed under is never below the announced one nor the
//! newest held; conflicts are held and never sealed under; every wrap named
//! to the caller is admitted, skipped or conflicting; the state persists and
//! decodes to itself.
#![no_main]

use std::sync::OnceLock;

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::ErrorCode;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::{IdentityKey, Recipient};
use streamseal::sealed::key_wraps::open_key_wraps;
use streamseal::sealed::state::StreamState;
use streamseal::stream_key::StreamKey;
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal::wire::keys::KeyWraps;
use streamseal::wrap::KeyWrap;
use streamseal_fuzz::{
    ByteEdit, ROOT, edit, json_round_trip, mode, server_key, vectors, wrap_recipients,
    wrap_senders, wrapped_keys,
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
    /// A wrap the server made with a key of its own, to recipient `which`.
    minted: bool,
}

#[derive(Arbitrary, Debug)]
struct Structured {
    current_key_generation: u32,
    items: Vec<Item>,
    mine: u8,
    /// Bit i: sender i of `wrap_senders` is accepted.
    senders: u8,
}

/// A member's fresh state accepting the senders whose bit is set, and its
/// trust store.
fn member(senders: u8) -> (StreamState, TrustStore, Vec<(&'static str, Recipient)>) {
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let mut state =
        StreamState::new(ROOT).unwrap_or_else(|e| panic!("a fresh state of the root: {e}"));
    let mut accepted = Vec::new();
    for (i, (subject, sender)) in wrap_senders().into_iter().enumerate() {
        if senders & (1 << i) != 0 {
            let trusted = trust
                .admit(subject, &sender)
                .unwrap_or_else(|e| panic!("pinning a vector sender: {e}"));
            state
                .accept_sender(&trusted)
                .unwrap_or_else(|e| panic!("accepting a vector sender: {e}"));
            accepted.push((subject, sender));
        }
    }
    (state, trust, accepted)
}

fn check(listed: &KeyWraps, mine: &[IdentityKey], senders: u8) {
    let (_, _, wrapped) = fixtures();
    let (mut state, trust, accepted) = member(senders);
    match open_key_wraps(&mut state, &trust, listed, mine) {
        Ok(report) => {
            let ring = state.keyring();
            for g in ring.generations() {
                let key = ring
                    .key(g)
                    .unwrap_or_else(|e| panic!("listed generation {g} missing: {e}"));
                assert!(
                    wrapped.iter().any(|(wg, k)| *wg == g && k == key),
                    "generation {g} holds a key no vector wrapped"
                );
            }
            for a in &report.admitted {
                assert!(ring.contains(a.key_generation), "admitted but not held");
                let from_accepted = if a.sender == "self" {
                    mine.iter().any(|k| *k.key_id() == a.sender_key_id)
                } else {
                    accepted
                        .iter()
                        .any(|(subject, s)| *subject == a.sender && s.key_id == a.sender_key_id)
                };
                assert!(
                    from_accepted,
                    "admitted from a sender the member does not accept: {a:?}"
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
            for g in &report.conflicts {
                assert!(ring.contains(*g), "a conflict over a generation not held");
                assert!(ring.conflicted_generations().contains(g));
            }
            if let Some(g) = current
                && ring.conflicted_generations().contains(&g)
            {
                let slot = streamseal::slot::Slot::DecisionNote {
                    decision_id: "d".into(),
                    option_id: "o".into(),
                    decided_by: "u".into(),
                };
                if let Some(me) = mine.first() {
                    let sealed = streamseal::sender::Signer::new("u", me)
                        .and_then(|signer| streamseal::envelope::seal(ring, &signer, &slot, b"x"));
                    assert!(sealed.is_err(), "sealed under a conflicted generation");
                }
            }
            let addressed = listed
                .wraps
                .iter()
                .filter(|w| match &w.recipient_key_id {
                    None => true,
                    Some(id) => mine.iter().any(|k| k.key_id().as_str() == id),
                })
                .count();
            // Each addressed wrap was admitted, skipped, or conflicted with
            // the key held.
            assert!(report.admitted.len() + report.skipped.len() <= addressed);
            if addressed > 0 {
                assert!(
                    !report.admitted.is_empty()
                        || !report.conflicts.is_empty()
                        || report.skipped.len() == addressed,
                    "an addressed wrap was neither admitted nor skipped"
                );
            }
            // What the member persists decodes to the same state.
            let body = state
                .encode_body()
                .unwrap_or_else(|e| panic!("the state does not encode: {e}"));
            let back = StreamState::decode_body(&body)
                .unwrap_or_else(|e| panic!("the state's own body does not decode: {e}"));
            let again = back
                .encode_body()
                .unwrap_or_else(|e| panic!("a decoded state does not encode: {e}"));
            assert!(
                *again == *body,
                "the persisted state changed on the way back"
            );
        }
        Err(e) => assert!(
            matches!(e.code(), ErrorCode::TooManyKeys | ErrorCode::InvalidLength),
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
        check(&listed, &mine, m / 6);
    } else {
        let Ok(input) = Structured::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let mut list = Vec::new();
        for item in input.items.iter().take(4) {
            let Some(original) = wraps.get(usize::from(item.which) % wraps.len().max(1)) else {
                return;
            };
            if item.minted {
                // The server wraps a key of its own choosing to a member's
                // real public key, from its own key pair.
                let Some(to) = all.get(usize::from(item.which) % all.len().max(1)) else {
                    return;
                };
                let minted = {
                    let randomness = &[item.which; 32];
                    let mut rng = FixedRandomness::new(randomness);
                    hazmat::wrap_stream_key_with(
                        &mut rng,
                        ROOT,
                        item.key_generation.unwrap_or(original.key_generation),
                        &StreamKey::from_bytes(&[0x66; 32]),
                        &server_key(),
                        &Recipient::of(to),
                    )
                };
                if let Ok(mut w) = minted {
                    if item.unnamed {
                        w.recipient_key_id = None;
                        w.recipient_kind = None;
                    }
                    list.push(w);
                }
                continue;
            }
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
                extra: Default::default(),
            });
        }
        let listed = KeyWraps {
            current_key_generation: input.current_key_generation,
            owner_user_id: "usr_owner".into(),
            wraps: list,
            extra: Default::default(),
        };
        let mine: Vec<IdentityKey> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| input.mine & (1 << i) != 0)
            .map(|(_, k)| k.clone())
            .collect();
        check(&listed, &mine, input.senders);
    }
});
