//! Envelope JSON and opening (`envelope::open`, `open_matching`) with the
//! keyring and the senders of `envelopes.json` (envelope version 2: signed
//! by the sender; the ciphertext starts with the key commitment).
//!
//! Mode 0: a `{ciphertext, envelope}` JSON text (the seeds are the vectors'
//! payloads). Decoders get the round-trip oracle; whatever opens was signed
//! by one of the vectors' two senders as the AAD names it, opens again under
//! exactly the slot its AAD names, and under no other.
//! Mode 1: a payload sealed (fixed iv and signature nonce) into a fuzzed slot
//! under generation 2 or 7 (by a keyring whose newest generation it is:
//! sealing always uses the newest), signed by the owner's key, the bot's, or
//! a forger's key under the owner's key id, then edited field by field and
//! opened, with the keyring holding both, under a fuzzed expected slot, by
//! an opener that holds the real key of the named sender (presented, pinned
//! or verified). It may open only when nothing that matters was changed, the
//! slots agree and the real key signed, and then to the same plaintext and
//! sender, with the status the opener's trust gives; unedited, it must open
//! (or, signed by the forger, be `SENDER_MISMATCH`).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::ErrorCode;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::{Envelope, SealedPayload, open, open_matching};
use streamseal::hazmat::{self, FixedRandomness};
use streamseal::identity::Recipient;
use streamseal::sender::{SenderKeys, Signer};
use streamseal::slot::Slot;
use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore};
use streamseal::wire::JsonRecord as _;
use streamseal_fuzz::{
    ByteEdit, FuzzSlot, FuzzText, edit, envelope_keyring, envelope_keyring_up_to,
    envelope_sender_keys, envelope_senders, json_round_trip, mode, seal_randomness, server_key,
};

#[derive(Arbitrary, Debug)]
struct Structured {
    plaintext: Vec<u8>,
    iv: [u8; 12],
    /// 2 or 7 (held), anything else (not held: nothing is sealed).
    generation: u8,
    sealed_slot: FuzzSlot,
    /// The signer's subject where the slot names no author.
    subject: FuzzText,
    /// 0: the owner's key, 1: the bot's, 2: a forger's key under the owner's key id.
    signer: u8,
    /// How the opener knows the real key: 0 presented, 1 pinned, 2 verified.
    trust: u8,
    /// `None`: open under the slot it was sealed into.
    expected: Option<FuzzSlot>,
    v: Option<u32>,
    key_generation: Option<u32>,
    aad_edits: Vec<ByteEdit>,
    ct_edits: Vec<ByteEdit>,
    iv_edits: Vec<ByteEdit>,
}

fn json_mode(text: &str) {
    let ring = envelope_keyring();
    if let Ok(envelope) = Envelope::from_json(text) {
        json_round_trip("Envelope", &envelope);
        assert_eq!(
            Envelope::from_json(&envelope.to_json()).ok(),
            Some(envelope)
        );
    }
    let Ok(sealed) = SealedPayload::from_json(text) else {
        return;
    };
    json_round_trip("SealedPayload", &sealed);
    assert_eq!(
        SealedPayload::from_json(&sealed.to_json()).ok().as_ref(),
        Some(&sealed)
    );
    let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let keys = envelope_sender_keys(&trust);
    if let Ok(opened) = open_matching(&ring, &keys, &sealed, |_| true) {
        let by = &opened.sealed_by;
        assert!(
            envelope_senders()
                .iter()
                .any(|(s, k)| *s == by.subject && *k.key_id().as_str() == by.key_id),
            "opened as signed by a sender the opener does not know: {by:?}"
        );
        assert_eq!(
            by.status,
            TrustLevel::Unverified,
            "a presented key verified"
        );
        if let Some(author) = opened.slot.author_id() {
            assert_eq!(
                author, by.subject,
                "signed by another than the slot's author"
            );
        }
        let again = open(&ring, &keys, &opened.slot, &sealed)
            .unwrap_or_else(|e| panic!("opened by open_matching, not by open: {e}"));
        assert_eq!(*again.plaintext, *opened.plaintext);
        assert_eq!(again.sealed_by, opened.sealed_by);
        let moved = match &opened.slot {
            Slot::Message {
                revision,
                stream_id,
                message_id,
                author_id,
                author_type,
            } => Slot::Message {
                stream_id: stream_id.clone(),
                message_id: message_id.clone(),
                author_id: author_id.clone(),
                author_type: author_type.clone(),
                revision: revision.wrapping_add(1),
            },
            _ => Slot::DecisionNote {
                decision_id: "dreq_x".into(),
                option_id: "x".into(),
                decided_by: "usr_x".into(),
            },
        };
        assert!(
            open(&ring, &keys, &moved, &sealed).is_err(),
            "opened under another slot"
        );
        // Without the sender's key, nothing opens.
        assert!(
            open(&ring, &SenderKeys::new(&trust), &opened.slot, &sealed).is_err(),
            "opened without the sender's key"
        );
    }
}

fn structured_mode(input: Structured) {
    let ring = envelope_keyring();
    let generation = match input.generation % 4 {
        0 | 1 => 2,
        2 => 7,
        _ => u32::from(input.generation),
    };
    let slot = input.sealed_slot.slot();
    let subject = slot
        .author_id()
        .map_or_else(|| input.subject.get(), str::to_owned);
    let senders = envelope_senders();
    let forger = server_key();
    let (signer_key, real_key) = match input.signer % 3 {
        0 => (&senders[0].1, &senders[0].1),
        1 => (&senders[1].1, &senders[1].1),
        _ => (&forger, &senders[0].1),
    };
    let forged = input.signer % 3 == 2;
    let Ok(signer) = Signer::new(&subject, signer_key) else {
        return;
    };
    // A keyring holding `generation` as its newest; for one not held, a
    // keyring of the root with no key (sealing fails).
    let sealer = if matches!(generation, 2 | 7) {
        envelope_keyring_up_to(generation)
    } else {
        envelope_keyring_up_to(0)
    };
    let sealed = hazmat::seal_envelope_with(
        &mut FixedRandomness::new(&seal_randomness(&input.iv)),
        &sealer,
        &signer,
        &slot,
        &input.plaintext,
    );
    let Ok(original) = sealed else { return };
    assert!(
        sealer.contains(generation),
        "sealed without holding the generation"
    );
    assert_eq!(
        original.envelope.key_generation, generation,
        "not sealed under the newest generation held"
    );
    let decode = |what, text| decode_base64(what, text).unwrap_or_default();
    let mut aad = decode("aad", &original.envelope.aad);
    let mut ct = decode("ciphertext", &original.ciphertext);
    let mut iv = decode("iv", &original.envelope.iv);
    let (aad0, ct0, iv0) = (aad.clone(), ct.clone(), iv.clone());
    edit(&mut aad, &input.aad_edits);
    edit(&mut ct, &input.ct_edits);
    edit(&mut iv, &input.iv_edits);
    let moved = SealedPayload {
        ciphertext: encode_base64(&ct),
        envelope: Envelope {
            v: input.v.unwrap_or(original.envelope.v),
            key_generation: input.key_generation.unwrap_or(generation),
            iv: encode_base64(&iv),
            aad: encode_base64(&aad),
            extra: Default::default(),
        },
        extra: Default::default(),
    };
    let expected = input
        .expected
        .as_ref()
        .map_or_else(|| slot.clone(), FuzzSlot::slot);
    let unchanged = aad == aad0
        && ct == ct0
        && iv == iv0
        && moved.envelope.v == original.envelope.v
        && moved.envelope.key_generation == generation;
    // The opener holds the real key of the sender the AAD names.
    let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
    let real = Recipient::of(real_key);
    let status = match input.trust % 3 {
        0 => TrustLevel::Unverified,
        1 => {
            let _ = trust.observe(&subject, &real);
            TrustLevel::Unverified
        }
        _ => {
            let _ = trust.observe(&subject, &real);
            let _ = trust.verify(&subject, &real);
            TrustLevel::Verified
        }
    };
    let keys = SenderKeys::new(&trust).with_presented(&subject, &real);
    match open(&ring, &keys, &expected, &moved) {
        Ok(opened) => {
            assert!(unchanged, "an edited payload opened");
            assert!(!forged, "a payload signed by a forger opened");
            assert_eq!(expected, slot, "opened under another slot");
            assert_eq!(opened.slot, slot);
            assert_eq!(*opened.plaintext, input.plaintext);
            assert_eq!(opened.sealed_by.subject, subject);
            assert_eq!(opened.sealed_by.key_id, real.key_id.as_str());
            assert_eq!(opened.sealed_by.kind, real.kind);
            assert_eq!(opened.sealed_by.status, status);
        }
        Err(e) => {
            let whole = unchanged && expected == slot;
            assert!(!whole || forged, "an untouched payload did not open: {e}");
            if whole {
                assert_eq!(
                    e.code(),
                    ErrorCode::SenderMismatch,
                    "a forged signature refused with another code: {e}"
                );
            }
        }
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
