//! Envelope JSON and opening (`envelope::open`, `open_matching`) with the
//! keyring of `envelopes.json`.
//!
//! Mode 0: a `{ciphertext, envelope}` JSON text (the seeds are the vectors'
//! payloads). Decoders get the round-trip oracle; whatever opens must open
//! again under exactly the slot its AAD names, and under no other.
//! Mode 1: a payload sealed (fixed iv) into a fuzzed slot under generation
//! 2 or 7 (by a keyring whose newest generation it is: sealing always uses
//! the newest), then edited field by field and opened, with the keyring
//! holding both, under a fuzzed expected slot. It may open only
//! when nothing that matters was changed and the slots agree, and then to
//! the same plaintext; unedited, it must open.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::encoding::{decode_base64, encode_base64};
use streamseal::envelope::{Envelope, SealedPayload, open, open_matching, seal};
use streamseal::slot::Slot;
use streamseal::testing::with_fixed_randomness;
use streamseal_fuzz::{
    ByteEdit, FuzzSlot, edit, envelope_keyring, envelope_keyring_up_to, json_round_trip, mode,
};

#[derive(Arbitrary, Debug)]
struct Structured {
    plaintext: Vec<u8>,
    iv: [u8; 12],
    /// 2 or 7 (held), anything else (not held: nothing is sealed).
    generation: u8,
    sealed_slot: FuzzSlot,
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
    if let Ok((slot, plaintext)) = open_matching(&ring, &sealed, |_| true) {
        let again = open(&ring, &slot, &sealed)
            .unwrap_or_else(|e| panic!("opened by open_matching, not by open: {e}"));
        assert_eq!(*again, *plaintext);
        let moved = match &slot {
            Slot::Message {
                revision,
                stream_id,
                message_id,
                author_id,
            } => Slot::Message {
                stream_id: stream_id.clone(),
                message_id: message_id.clone(),
                author_id: author_id.clone(),
                revision: revision.wrapping_add(1),
            },
            _ => Slot::DecisionNote {
                decision_id: "dreq_x".into(),
                option_id: "x".into(),
                decided_by: "usr_x".into(),
            },
        };
        assert!(
            open(&ring, &moved, &sealed).is_err(),
            "opened under another slot"
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
    // A keyring holding `generation` as its newest; for one not held, a
    // keyring of the root with no key (sealing fails).
    let sealer = if matches!(generation, 2 | 7) {
        envelope_keyring_up_to(generation)
    } else {
        envelope_keyring_up_to(0)
    };
    let sealed = with_fixed_randomness(&input.iv, || seal(&sealer, &slot, &input.plaintext));
    let Ok(original) = sealed else { return };
    assert!(
        sealer.contains(generation),
        "sealed without holding the generation"
    );
    assert_eq!(
        original.envelope.key_generation, generation,
        "not sealed under the newest generation held"
    );
    let mut aad = decode_base64("aad", &original.envelope.aad).unwrap_or_default();
    let mut ct = decode_base64("ciphertext", &original.ciphertext).unwrap_or_default();
    let mut iv = decode_base64("iv", &original.envelope.iv).unwrap_or_default();
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
        },
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
    match open(&ring, &expected, &moved) {
        Ok(plaintext) => {
            assert!(unchanged, "an edited payload opened");
            assert_eq!(expected, slot, "opened under another slot");
            assert_eq!(*plaintext, input.plaintext);
        }
        Err(e) => assert!(
            !(unchanged && expected == slot),
            "an untouched payload did not open: {e}"
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
