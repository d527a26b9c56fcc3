//! AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, as
//! every envelope and the private-key bundle use it. One place calls the
//! `aes-gcm` crate, so the official vectors test exactly this code.

use aes_gcm::aead::{Aead as _, AeadInOut as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};

use crate::error::{CryptoError, CryptoResult};

/// Key length in bytes.
pub(crate) const KEY_LEN: usize = 32;
/// Nonce (iv) length in bytes.
pub(crate) const IV_LEN: usize = 12;
/// Tag length in bytes.
pub(crate) const TAG_LEN: usize = 16;

fn cipher(key: &[u8; KEY_LEN]) -> Aes256Gcm {
    Aes256Gcm::new(&(*key).into())
}

/// Encrypts `plaintext`, returning `ciphertext || tag`.
pub(crate) fn seal(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    plaintext: &[u8],
    aad: &[u8],
) -> CryptoResult<Vec<u8>> {
    let nonce = Nonce::from(*iv);
    cipher(key)
        .encrypt(
            &nonce,
            Payload {
                msg: plaintext,
                aad,
            },
        )
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
    if ciphertext.len() < TAG_LEN {
        return Err(CryptoError::DecryptionFailed);
    }
    let nonce = Nonce::from(*iv);
    cipher(key)
        .decrypt(
            &nonce,
            Payload {
                msg: ciphertext,
                aad,
            },
        )
        .map_err(|_| CryptoError::DecryptionFailed)
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
    let split = buffer
        .len()
        .checked_sub(TAG_LEN)
        .ok_or(CryptoError::DecryptionFailed)?;
    let (ciphertext, tag) = buffer.split_at_mut(split);
    let tag = aes_gcm::Tag::try_from(&*tag).map_err(|_| CryptoError::DecryptionFailed)?;
    let nonce = Nonce::from(*iv);
    cipher(key)
        .decrypt_inout_detached(&nonce, aad, ciphertext.into(), &tag)
        .map_err(|_| CryptoError::DecryptionFailed)
}
