//! Slot keys of hydrated responses (`shared:<id>[@v[:from-to]]`) and the
//! `slots` map: `SlotKey::parse`, `SharedRef::parse`, `Slots` JSON.
//!
//! Mode 0: a key as text. `SlotKey` keeps every text as it came; a
//! `SharedRef` that parses prints back to text that parses to the same
//! value. Mode 1: a `slots` JSON object: decode -> encode -> decode.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamseal::wire::slots::{SharedRef, SlotKey, Slots};
use streamseal_fuzz::{json_round_trip, mode};

fuzz_target!(|data: &[u8]| {
    let Some((m, rest)) = mode(data) else { return };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    if m % 2 == 0 {
        let key = SlotKey::parse(text);
        assert_eq!(
            key.to_string(),
            text,
            "a slot key does not print as it came"
        );
        assert_eq!(SlotKey::parse(&key.to_string()), key);
        json_round_trip("SlotKey", &key);
        if let Ok(r) = SharedRef::parse(text) {
            let printed = r.to_string();
            let again = SharedRef::parse(&printed)
                .unwrap_or_else(|e| panic!("a printed shared ref does not parse: {e}"));
            assert_eq!(again, r);
            assert_eq!(SlotKey::parse(text), SlotKey::Shared(r.clone()));
            let unpinned = r.unpinned();
            assert_eq!(SharedRef::parse(&unpinned.to_string()).ok(), Some(unpinned));
        }
    } else if let Ok(slots) = serde_json::from_str::<Slots>(text) {
        json_round_trip("Slots", &slots);
    }
});
