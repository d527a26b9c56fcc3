//! The persisted stream state (`sealed::state::StreamState`): what a member
//! restores after a restart, from bytes an attacker with access to the
//! app's storage may have replaced.
//!
//! Mode 0: an unsealed body -> `StreamState::decode_body`. Oracle: a body
//! that decodes encodes (`encode_body`) to exactly the same bytes (the
//! decoder accepts only what the encoder writes), and that encoding decodes
//! again to the same state.
//! Mode 1: bytes -> `StreamState::from_bytes` with the fixed identity key
//! (`persist_key`): never a panic; what opens obeys the mode-0 oracle.
//! Mode 2: a real persisted state (built from fuzzed steps, sealed with
//! `to_bytes`), its sealed bytes edited: it restores only unedited, and
//! then to the same state.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::identity::{IdentityKey, KeyId, RecipientKind, SecretKey};
use streamseal::sealed::state::StreamState;
use streamseal::trust::TrustedKey;
use streamseal_fuzz::{ByteEdit, FuzzText, ROOT, edit, mode, persist_key};

/// Encodes, decodes and encodes again: the same bytes both times.
fn round_trip(state: &StreamState) -> Vec<u8> {
    let body = state
        .encode_body()
        .unwrap_or_else(|e| panic!("a decoded state does not encode: {e}"));
    let back = StreamState::decode_body(&body)
        .unwrap_or_else(|e| panic!("the encoder's own body does not decode: {e}"));
    let again = back
        .encode_body()
        .unwrap_or_else(|e| panic!("a decoded state does not encode: {e}"));
    assert!(*again == *body, "decode(encode(x)) != x");
    body.to_vec()
}

fn body_mode(bytes: &[u8]) {
    if let Ok(state) = StreamState::decode_body(bytes) {
        let body = round_trip(&state);
        assert!(
            body == bytes,
            "an accepted body does not re-encode to itself"
        );
    }
}

fn sealed_mode(bytes: &[u8]) {
    if let Ok(state) = StreamState::from_bytes(bytes, &persist_key()) {
        round_trip(&state);
    }
}

/// One step of a member's life with a stream state.
#[derive(Arbitrary, Debug)]
enum Step {
    /// Roll the next generation to the member itself.
    Roll,
    /// Pin the owner.
    Owner(FuzzText),
    /// Accept a sender (a key from a seed byte, under a subject).
    Sender(FuzzText, u8),
    /// Stop accepting it.
    RemoveSender(FuzzText, u8),
    MarkSealed,
    DropKeys,
}

#[derive(Arbitrary, Debug)]
struct Built {
    steps: Vec<Step>,
    edits: Vec<ByteEdit>,
}

fn sender_key(seed: u8) -> IdentityKey {
    let key_id = KeyId::new(format!("k{seed}")).unwrap_or_else(|e| unreachable!("{e}"));
    IdentityKey::from_secret(
        RecipientKind::Bot,
        key_id,
        SecretKey::from_bytes(&[seed; 32]),
    )
}

fn built_mode(input: &Built) {
    let me = persist_key();
    let Ok(mut state) = StreamState::new(ROOT) else {
        return;
    };
    for step in input.steps.iter().take(8) {
        match step {
            Step::Roll => {
                if let Ok(roll) = state.prepare_roll(&me, &[TrustedKey::own("usr_me", &me)]) {
                    let generation = roll.key_generation();
                    if state.commit_roll(roll).is_ok() {
                        assert_eq!(state.high_water(), Some(generation));
                    }
                }
            }
            Step::Owner(t) => {
                let _ = state.set_owner(&t.get());
            }
            Step::Sender(subject, seed) => {
                let key = sender_key(*seed);
                let _ = state.accept_sender(&TrustedKey::own(&subject.get(), &key));
            }
            Step::RemoveSender(subject, seed) => {
                let key = sender_key(*seed);
                state.remove_sender(&subject.get(), key.key_id());
            }
            Step::MarkSealed => state.mark_sealed(),
            Step::DropKeys => state.drop_keys(),
        }
    }
    // A subject out of bounds is refused when persisting; nothing else is.
    let Ok(sealed) = state.to_bytes(&me) else {
        return;
    };
    let body = round_trip(&state);
    let mut edited = sealed.clone();
    edit(&mut edited, &input.edits);
    match StreamState::from_bytes(&edited, &me) {
        Ok(restored) => {
            assert!(edited == sealed, "an edited persisted state was restored");
            assert!(
                restored.encode_body().is_ok_and(|b| *b == *body),
                "restored to another state"
            );
            assert_eq!(restored.high_water(), state.high_water());
            assert_eq!(restored.is_sealed(), state.is_sealed());
            assert_eq!(restored.senders(), state.senders());
        }
        Err(e) => assert!(edited != sealed, "an untouched persisted state failed: {e}"),
    }
    // Another identity key never restores it.
    let other = IdentityKey::from_secret(
        RecipientKind::User,
        me.key_id().clone(),
        SecretKey::from_bytes(&[0x42; 32]),
    );
    assert!(StreamState::from_bytes(&sealed, &other).is_err());
}

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    match m % 3 {
        0 => body_mode(rest),
        1 => sealed_mode(rest),
        _ => {
            if let Ok(input) = Built::arbitrary(&mut Unstructured::new(rest)) {
                built_mode(&input);
            }
        }
    }
});
