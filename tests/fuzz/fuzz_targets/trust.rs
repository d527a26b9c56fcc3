//! The persisted trust store (`trust::TrustStore`): the keys a user pinned
//! and verified, restored from bytes an attacker with access to the app's
//! storage may have replaced.
//!
//! Mode 0: an unsealed body -> `TrustStore::decode_body`. Oracle:
//! decode(encode(x)) == x, and an accepted body re-encodes to exactly
//! itself (the decoder accepts only what the encoder writes).
//! Mode 1: bytes -> `TrustStore::from_bytes` with the fixed identity key
//! (`persist_key`): never a panic; what opens obeys the mode-0 oracle.
//! Mode 2: a real store (built from fuzzed observations, verifications and
//! acknowledgements, sealed with `to_bytes`), its sealed bytes edited: it
//! restores only unedited, and then equal to the store; a key the store
//! refuses before persisting is refused after restoring.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind, SecretKey};
use streamseal::trust::{TrustPolicy, TrustStore};
use streamseal_fuzz::{ByteEdit, FuzzText, edit, mode, persist_key};

fn round_trip(store: &TrustStore) -> Vec<u8> {
    let body = store
        .encode_body()
        .unwrap_or_else(|e| panic!("a decoded store does not encode: {e}"));
    let back = TrustStore::decode_body(&body)
        .unwrap_or_else(|e| panic!("the encoder's own body does not decode: {e}"));
    assert_eq!(&back, store, "decode(encode(x)) != x");
    body
}

fn body_mode(bytes: &[u8]) {
    if let Ok(store) = TrustStore::decode_body(bytes) {
        let body = round_trip(&store);
        assert!(
            body == bytes,
            "an accepted body does not re-encode to itself"
        );
        assert_eq!(store.is_empty(), store.len() == 0);
    }
}

fn sealed_mode(bytes: &[u8]) {
    if let Ok(store) = TrustStore::from_bytes(bytes, &persist_key()) {
        round_trip(&store);
    }
}

/// One thing the user or the server does to the store.
#[derive(Arbitrary, Debug)]
enum Step {
    /// The server presents key `seed` under (subject, key id `k{id}`).
    Observe(FuzzText, u8, u8, bool),
    /// The user verified it.
    Verify(FuzzText, u8, u8, bool),
    /// The user accepted a pending change.
    Acknowledge(FuzzText, u8),
    Forget(FuzzText, u8),
    Policy(u8),
}

#[derive(Arbitrary, Debug)]
struct Built {
    steps: Vec<Step>,
    edits: Vec<ByteEdit>,
    probe: (FuzzText, u8, u8, bool),
}

fn key(id: u8, seed: u8, bot: bool) -> Option<Recipient> {
    let kind = if bot {
        RecipientKind::Bot
    } else {
        RecipientKind::User
    };
    let key_id = KeyId::new(format!("k{id}")).ok()?;
    Some(Recipient::of(&IdentityKey::from_secret(
        kind,
        key_id,
        SecretKey::from_bytes(&[seed; 32]),
    )))
}

fn policy(n: u8) -> TrustPolicy {
    match n % 3 {
        0 => TrustPolicy::TofuWithAlerts,
        1 => TrustPolicy::VerifiedOnly,
        _ => TrustPolicy::RefuseAfterVerifiedChange,
    }
}

fn built_mode(input: &Built) {
    let me = persist_key();
    let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
    for step in input.steps.iter().take(12) {
        match step {
            Step::Observe(subject, id, seed, bot) => {
                if let Some(k) = key(*id, *seed, *bot) {
                    let _ = store.observe(&subject.get(), &k);
                }
            }
            Step::Verify(subject, id, seed, bot) => {
                if let Some(k) = key(*id, *seed, *bot) {
                    let _ = store.verify(&subject.get(), &k);
                }
            }
            Step::Acknowledge(subject, id) => {
                if let Ok(key_id) = KeyId::new(format!("k{id}")) {
                    let _ = store.acknowledge_change(&subject.get(), &key_id);
                }
            }
            Step::Forget(subject, id) => {
                if let Ok(key_id) = KeyId::new(format!("k{id}")) {
                    store.forget(&subject.get(), &key_id);
                }
            }
            Step::Policy(n) => store.set_policy(policy(*n)),
        }
    }
    let Ok(sealed) = store.to_bytes(&me) else {
        panic!("a store built through its API does not persist")
    };
    round_trip(&store);
    let mut edited = sealed.clone();
    edit(&mut edited, &input.edits);
    match TrustStore::from_bytes(&edited, &me) {
        Ok(restored) => {
            assert!(edited == sealed, "an edited persisted store was restored");
            assert_eq!(restored, store, "restored to another store");
            let (subject, id, seed, bot) = &input.probe;
            if let Some(k) = key(*id, *seed, *bot) {
                let before = store.trusted(&subject.get(), &k).map(|t| t.level());
                let after = restored.trusted(&subject.get(), &k).map(|t| t.level());
                assert_eq!(
                    before.map_err(|e| e.code()),
                    after.map_err(|e| e.code()),
                    "a restored store trusts differently"
                );
            }
        }
        Err(e) => assert!(edited != sealed, "an untouched persisted store failed: {e}"),
    }
    let other = IdentityKey::from_secret(
        RecipientKind::User,
        me.key_id().clone(),
        SecretKey::from_bytes(&[0x42; 32]),
    );
    assert!(TrustStore::from_bytes(&sealed, &other).is_err());
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
