//! AAD parsing (`aad::parse`), the bytes every envelope carries in `aad`.
//!
//! Mode 0: raw bytes. The parser is strict (one spelling per AAD), so
//! whatever parses must re-encode to exactly the same bytes, and its sender
//! is the slot's author where the slot names one.
//! Mode 1: a structured slot and sender: encode -> parse gives them back; a
//! sender that is not the slot's author has no encoding.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::aad::{self, AadSender};
use streamseal::identity::RecipientKind;
use streamseal_fuzz::{FuzzSlot, FuzzText, json_round_trip, mode};

#[derive(Arbitrary, Debug)]
struct Structured {
    version: u8,
    root: FuzzText,
    generation: u32,
    slot: FuzzSlot,
    /// Where the slot names an author: sign as it (else as `subject`).
    as_author: bool,
    subject: FuzzText,
    kind: FuzzText,
    key_id: FuzzText,
}

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    if m % 2 == 0 {
        if let Ok(contents) = aad::parse(rest) {
            let again = aad::encode(
                contents.version,
                &contents.root_stream_id,
                contents.key_generation,
                &contents.sender,
                &contents.slot,
            )
            .unwrap_or_else(|e| panic!("a parsed AAD does not re-encode: {e}"));
            assert_eq!(again, rest, "AAD not canonical: {contents:?}");
            if let Some(author) = contents.slot.author_id() {
                assert_eq!(
                    author, contents.sender.subject,
                    "parsed a sender that is not the slot's author"
                );
            }
            json_round_trip("Slot", &contents.slot);
        }
    } else {
        let Ok(input) = Structured::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let slot = input.slot.slot();
        let root = input.root.get();
        let subject = match slot.author_id() {
            Some(author) if input.as_author => author.to_owned(),
            _ => input.subject.get(),
        };
        let sender = AadSender {
            subject,
            kind: RecipientKind::parse(&input.kind.get()),
            key_id: input.key_id.get(),
        };
        let encoded = aad::encode(input.version, &root, input.generation, &sender, &slot);
        if let Some(author) = slot.author_id() {
            assert!(
                author == sender.subject || encoded.is_err(),
                "encoded a sender that is not the slot's author"
            );
        }
        if let Ok(bytes) = encoded {
            let parsed =
                aad::parse(&bytes).unwrap_or_else(|e| panic!("an encoded AAD does not parse: {e}"));
            assert_eq!(parsed.version, input.version);
            assert_eq!(parsed.root_stream_id, root);
            assert_eq!(parsed.key_generation, input.generation);
            assert_eq!(parsed.sender, sender);
            assert_eq!(parsed.slot, slot);
        }
    }
});
