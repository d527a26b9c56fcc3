//! Strict base64 for every binary field of the wire.
//!
//! The service carries binary values (ivs, AAD, ciphertexts, public keys,
//! salts, bundles, key wraps) as **standard-alphabet, padded** base64
//! (RFC 4648 section 4). Decoding here is strict: no whitespace, no URL-safe
//! alphabet, padding required and canonical, and no non-zero trailing bits, so
//! every byte string has exactly one accepted spelling.
//!
//! The codec is `base64-simd` (SSSE3/AVX2 chosen at run time, NEON, and
//! WASM simd128 when the module is built with it). Every sealed message is
//! decoded here before it is decrypted, so its speed is the envelope's
//! (BENCHMARKS.md has it beside the `base64` crate's general-purpose engine).
//! `tests/it/base64_oracle.rs` checks
//! that it accepts and rejects exactly what `base64`'s strict engine does.
//!
//! ```
//! use streamseal_crypto::encoding::{decode_base64, encode_base64};
//!
//! assert_eq!(encode_base64(b"hi"), "aGk=");
//! assert_eq!(decode_base64("iv", "aGk=")?, b"hi");
//! // "aGl=" decodes to the same bytes in lax decoders, but is not canonical.
//! assert!(decode_base64("iv", "aGl=").is_err());
//! assert!(decode_base64("iv", "aGk").is_err());
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use base64_simd::STANDARD;

use crate::error::{CryptoError, CryptoResult};

/// Encodes bytes as standard padded base64.
pub fn encode_base64(bytes: &[u8]) -> String {
    STANDARD.encode_to_string(bytes)
}

/// Decodes standard padded base64 strictly; `field` names the input in errors.
///
/// # Errors
///
/// `MALFORMED_BASE64` when `text` is not canonical padded standard base64.
pub fn decode_base64(field: &'static str, text: &str) -> CryptoResult<Vec<u8>> {
    STANDARD
        .decode_to_vec(text)
        .map_err(|_| CryptoError::MalformedBase64 { field })
}

/// Decodes base64 after checking the text is at most `max_bytes` decoded bytes long,
/// so hostile input is refused before any allocation proportional to it.
///
/// Text that is too long is `INPUT_TOO_LARGE` when it is well-formed base64
/// (with its true decoded length) and `MALFORMED_BASE64` otherwise.
///
/// # Errors
///
/// `INPUT_TOO_LARGE` when well-formed `text` decodes to more than
/// `max_bytes`; `MALFORMED_BASE64` when it is not canonical padded base64.
pub fn decode_base64_bounded(
    field: &'static str,
    text: &str,
    max_bytes: usize,
) -> CryptoResult<Vec<u8>> {
    let max_chars = max_bytes.div_ceil(3).saturating_mul(4);
    if text.len() > max_chars {
        return Err(match well_formed_len(text) {
            Some(actual) => CryptoError::InputTooLarge {
                field,
                limit: max_bytes,
                actual,
            },
            None => CryptoError::MalformedBase64 { field },
        });
    }
    let bytes = decode_base64(field, text)?;
    if bytes.len() > max_bytes {
        return Err(CryptoError::InputTooLarge {
            field,
            limit: max_bytes,
            actual: bytes.len(),
        });
    }
    Ok(bytes)
}

/// [`decode_base64_bounded`] into a buffer that starts with `room` zero
/// bytes, the decoded bytes after them: a caller that will write in front of
/// the decoded bytes (the envelope's signature input) needs no second copy.
///
/// # Errors
///
/// As [`decode_base64_bounded`].
pub fn decode_base64_bounded_after(
    field: &'static str,
    text: &str,
    max_bytes: usize,
    room: usize,
) -> CryptoResult<Vec<u8>> {
    let max_chars = max_bytes.div_ceil(3).saturating_mul(4);
    if text.len() > max_chars {
        return decode_base64_bounded(field, text, max_bytes);
    }
    let len = STANDARD
        .decoded_length(text.as_bytes())
        .map_err(|_| CryptoError::MalformedBase64 { field })?;
    if len > max_bytes {
        return Err(CryptoError::InputTooLarge {
            field,
            limit: max_bytes,
            actual: len,
        });
    }
    let mut buffer = vec![0u8; room.saturating_add(len)];
    let out = buffer
        .get_mut(room..)
        .ok_or(CryptoError::MalformedBase64 { field })?;
    let written = STANDARD
        .decode(text.as_bytes(), base64_simd::Out::from_slice(out))
        .map_err(|_| CryptoError::MalformedBase64 { field })?
        .len();
    if written != len {
        return Err(CryptoError::MalformedBase64 { field });
    }
    Ok(buffer)
}

/// The decoded length of `text` if it has the shape of padded base64
/// (alphabet, length a multiple of 4, at most two `=` at the end), without
/// decoding it.
fn well_formed_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(4) {
        return None;
    }
    let padding = bytes.iter().rev().take_while(|&&b| b == b'=').count();
    let body = bytes.get(..bytes.len() - padding)?;
    if padding > 2
        || !body
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
    {
        return None;
    }
    Some(bytes.len() / 4 * 3 - padding)
}

/// Decodes base64 that must hold exactly `N` bytes: malformed text is
/// `MALFORMED_BASE64`, well-formed text of another length `INVALID_LENGTH`
/// with the decoded length.
///
/// # Errors
///
/// `MALFORMED_BASE64` when `text` is not canonical padded base64;
/// `INVALID_LENGTH` when it decodes to other than `N` bytes.
pub fn decode_base64_array<const N: usize>(
    field: &'static str,
    text: &str,
) -> CryptoResult<[u8; N]> {
    // Allow some slack so a slightly-off length is reported exactly.
    let bytes =
        decode_base64_bounded(field, text, N.saturating_mul(4).max(64)).map_err(|e| match e {
            CryptoError::InputTooLarge { actual, .. } => CryptoError::length(field, N, actual),
            other => other,
        })?;
    <[u8; N]>::try_from(bytes.as_slice()).map_err(|_| CryptoError::length(field, N, bytes.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn rejects_non_canonical_spellings() {
        for bad in [
            "aGk", "aGl=", "aG k=", "aGk==", "aGk=\n", "-_8=", "====", "a",
        ] {
            assert_eq!(
                decode_base64("x", bad).unwrap_err().code(),
                ErrorCode::MalformedBase64,
                "{bad:?}"
            );
        }
        assert_eq!(decode_base64("x", "").unwrap(), b"");
    }

    #[test]
    fn arrays_check_length() {
        let twelve = encode_base64(&[7u8; 12]);
        assert_eq!(decode_base64_array::<12>("iv", &twelve).unwrap(), [7u8; 12]);
        let e = decode_base64_array::<12>("iv", &encode_base64(&[7u8; 11])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidLength);
        let e = decode_base64_array::<12>("iv", &encode_base64(&[7u8; 300])).unwrap_err();
        assert_eq!(e, CryptoError::length("iv", 12, 300));
        let e = decode_base64_array::<12>("iv", &encode_base64(&[7u8; 13])).unwrap_err();
        assert_eq!(e, CryptoError::length("iv", 12, 13));
        let spaced = format!("{}\n", encode_base64(&[7u8; 12]));
        let e = decode_base64_array::<12>("iv", &spaced).unwrap_err();
        assert_eq!(e.code(), ErrorCode::MalformedBase64);
    }

    #[test]
    fn bounded_refuses_before_decoding() {
        let big = "A".repeat(4000);
        let e = decode_base64_bounded("aad", &big, 100).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InputTooLarge);
    }
}
