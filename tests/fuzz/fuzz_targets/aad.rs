//! AAD parsing (`aad::parse`), the bytes every envelope carries in `aad`.
//!
//! Mode 0: raw bytes. The parser is strict (one spelling per AAD), so
//! whatever parses must re-encode to exactly the same bytes.
//! Mode 1: a structured slot: encode -> parse gives it back.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use streamseal::aad;
use streamseal_fuzz::{FuzzSlot, FuzzText, json_round_trip, mode};

#[derive(Arbitrary, Debug)]
struct Structured {
    version: u8,
    root: FuzzText,
    generation: u32,
    slot: FuzzSlot,
}

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    if m % 2 == 0 {
        if let Ok(contents) = aad::parse(rest) {
            let again = aad::encode(
                contents.version,
                &contents.root_stream_id,
                contents.key_generation,
                &contents.slot,
            )
            .unwrap_or_else(|e| panic!("a parsed AAD does not re-encode: {e}"));
            assert_eq!(again, rest, "AAD not canonical: {contents:?}");
            json_round_trip("Slot", &contents.slot);
        }
    } else {
        let Ok(input) = Structured::arbitrary(&mut Unstructured::new(rest)) else {
            return;
        };
        let slot = input.slot.slot();
        let root = input.root.get();
        if let Ok(bytes) = aad::encode(input.version, &root, input.generation, &slot) {
            let parsed =
                aad::parse(&bytes).unwrap_or_else(|e| panic!("an encoded AAD does not parse: {e}"));
            assert_eq!(parsed.version, input.version);
            assert_eq!(parsed.root_stream_id, root);
            assert_eq!(parsed.key_generation, input.generation);
            assert_eq!(parsed.slot, slot);
        }
    }
});
