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

/// Decrypts `ciphertext || tag` in its own buffer, which becomes the
/// plaintext: no second allocation or copy of a large message (`open` copies
/// the ciphertext first). Any authentication failure is `DECRYPTION_FAILED`;
/// the buffer is only decrypted once the tag has been verified.
pub(crate) fn open_in_place(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    mut buffer: Vec<u8>,
    aad: &[u8],
) -> CryptoResult<Vec<u8>> {
    if buffer.len() < TAG_LEN {
        return Err(CryptoError::DecryptionFailed);
    }
    let nonce = Nonce::from(*iv);
    cipher(key)
        .decrypt_in_place(&nonce, aad, &mut buffer)
        .map_err(|_| CryptoError::DecryptionFailed)?;
    Ok(buffer)
}
