//! `encoding` (base64-simd) against the `base64` crate's strict standard
//! engine: for any text both accept or both reject, and accepted text decodes
//! to the same bytes; any bytes encode to the same text. The wire's
//! one-spelling-per-value rule therefore does not depend on which SIMD path
//! (AVX2, SSSE3, NEON, simd128, scalar) the machine takes.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use proptest::prelude::*;
use streamseal::encoding::{decode_base64, decode_base64_bounded_after, encode_base64};

/// Characters near the alphabet's edges: padding, whitespace, the URL-safe
/// pair, a NUL and a non-ASCII letter.
fn near_alphabet() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => prop::sample::select(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
                .chars()
                .collect::<Vec<_>>()
        ),
        1 => prop::sample::select(vec!['=', ' ', '\n', '-', '_', '\0', 'é', '.']),
    ]
}

fn agree(text: &str) {
    let ours = decode_base64("x", text).ok();
    let oracle = STANDARD.decode(text).ok();
    assert_eq!(ours, oracle, "{text:?}");
    // The envelope's decoder (room in front for the signature input) is as strict.
    for room in [0, 3, 61] {
        let after = decode_base64_bounded_after("x", text, 1 << 20, room)
            .ok()
            .map(|b| {
                assert!(b[..room].iter().all(|&z| z == 0), "{text:?}");
                b[room..].to_vec()
            });
        assert_eq!(after, oracle, "{text:?} after {room} bytes");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn bytes_encode_like_the_oracle(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let text = encode_base64(&bytes);
        prop_assert_eq!(&text, &STANDARD.encode(&bytes));
        prop_assert_eq!(decode_base64("x", &text).ok(), Some(bytes));
    }

    #[test]
    fn any_text_decodes_like_the_oracle(chars in prop::collection::vec(near_alphabet(), 0..400)) {
        agree(&chars.into_iter().collect::<String>());
    }

    /// Valid encodings with one character replaced: exercises non-canonical
    /// trailing bits, misplaced padding and stray bytes at every position,
    /// including inside the blocks a SIMD decoder handles in bulk.
    #[test]
    fn edited_encodings_decode_like_the_oracle(
        bytes in prop::collection::vec(any::<u8>(), 1..600),
        at in any::<prop::sample::Index>(),
        with in near_alphabet(),
    ) {
        let mut chars: Vec<char> = encode_base64(&bytes).chars().collect();
        let i = at.index(chars.len());
        chars[i] = with;
        agree(&chars.into_iter().collect::<String>());
    }
}

#[test]
fn known_spellings_agree() {
    for text in [
        "", "aGk=", "aGk", "aGl=", "aGk==", "aG k=", "aGk=\n", "-_8=", "====", "a", "aGk=aGk=",
        "AA==", "AB==", "AAA=", "AAB=", "////", "++++", "Zm9vYmFy", "Zm9vYmE=", "Zm9vYg==",
    ] {
        agree(text);
    }
}
