//! AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, as
//! every envelope and the private-key bundle use it: `streamseal-aead` (the
//! one caller of the `aes-gcm` crate, a crate of its own so that the
//! browser's module builds it for speed), with this crate's error codes.

use crate::error::{CryptoError, CryptoResult};

/// Key length in bytes.
pub(crate) const KEY_LEN: usize = streamseal_aead::KEY_LEN;
/// Nonce (iv) length in bytes.
pub(crate) const IV_LEN: usize = streamseal_aead::IV_LEN;
/// Tag length in bytes.
pub(crate) const TAG_LEN: usize = streamseal_aead::TAG_LEN;

/// Encrypts `plaintext`, returning `ciphertext || tag`.
pub(crate) fn seal(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    plaintext: &[u8],
    aad: &[u8],
) -> CryptoResult<Vec<u8>> {
    streamseal_aead::seal(key, iv, plaintext, aad)
        // Only reachable for plaintexts beyond GCM's 64 GiB limit, which the
        // callers' size bounds exclude.
        .map_err(|_| CryptoError::InputTooLarge {
            field: "plaintext",
            limit: usize::MAX,
            actual: plaintext.len(),
        })
}

/// Decrypts `ciphertext || tag`; any authentication failure is `DECRYPTION_FAILED`.
pub(crate) fn open(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    ciphertext: &[u8],
    aad: &[u8],
) -> CryptoResult<Vec<u8>> {
    streamseal_aead::open(key, iv, ciphertext, aad).map_err(|_| CryptoError::DecryptionFailed)
}

/// Decrypts `ciphertext || tag` where it lies: on success `buffer`'s first
/// `len - 16` bytes are the plaintext (the tag is left in place). Any
/// authentication failure is `DECRYPTION_FAILED`, and then nothing was
/// decrypted.
pub(crate) fn open_in_place_detached(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    buffer: &mut [u8],
    aad: &[u8],
) -> CryptoResult<()> {
    streamseal_aead::open_in_place_detached(key, iv, buffer, aad)
        .map_err(|_| CryptoError::DecryptionFailed)
}
