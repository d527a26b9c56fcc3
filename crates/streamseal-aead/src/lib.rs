//! AES-256-GCM (NIST SP 800-38D) with a 96-bit nonce and a 128-bit tag, as
//! every streamseal envelope and the private-key bundle use it: the one
//! place that calls the `aes-gcm` crate, so the official vectors test
//! exactly this code.
//!
//! It is a crate of its own for one reason: `aes-gcm`'s mode of operation
//! (CTR, GHASH's driver) is generic code, compiled in the crate that names
//! the concrete cipher. Here, that crate is this one, which the
//! `wasm-release` profile builds at `opt-level = 3` while the rest of the
//! bot module (Node, bot runtimes) is built for size (`opt-level = "z"`;
//! the root `Cargo.toml` has the figures). The browser's first module
//! (`wasm-browser`) builds it, the cipher and the curve at `"s"`: a
//! browser's async opens run AES-GCM on the platform. Callers use it through
//! `streamseal-crypto`, which maps [`Refused`] to its error codes.
//!
//! ```
//! let key = [7u8; 32];
//! let iv = [1u8; 12];
//! let sealed = streamseal_aead::seal(&key, &iv, b"hello", b"aad").unwrap();
//! assert_eq!(sealed.len(), 5 + streamseal_aead::TAG_LEN);
//! assert_eq!(streamseal_aead::open(&key, &iv, &sealed, b"aad").unwrap(), b"hello");
//! assert!(streamseal_aead::open(&key, &iv, &sealed, b"other aad").is_err());
//! ```

use aes_gcm::aead::{Aead as _, AeadInOut as _, KeyInit as _, Payload};
use aes_gcm::{Aes256Gcm, Nonce};

/// Key length in bytes.
pub const KEY_LEN: usize = 32;
/// Nonce (iv) length in bytes.
pub const IV_LEN: usize = 12;
/// Tag length in bytes.
pub const TAG_LEN: usize = 16;

/// What every refusal is: authentication failed (or, when sealing, the
/// plaintext is beyond GCM's 64 GiB limit). It says nothing more, on purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refused;

fn cipher(key: &[u8; KEY_LEN]) -> Aes256Gcm {
    Aes256Gcm::new(&(*key).into())
}

/// Encrypts `plaintext`, returning `ciphertext || tag`.
///
/// # Errors
///
/// [`Refused`] only for a plaintext beyond GCM's 64 GiB limit.
pub fn seal(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, Refused> {
    let nonce = Nonce::from(*iv);
    cipher(key)
        .encrypt(
            &nonce,
            Payload {
                msg: plaintext,
                aad,
            },
        )
        .map_err(|_| Refused)
}

/// Decrypts `ciphertext || tag`.
///
/// # Errors
///
/// [`Refused`] for any authentication failure, or input shorter than a tag.
pub fn open(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    ciphertext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>, Refused> {
    if ciphertext.len() < TAG_LEN {
        return Err(Refused);
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
        .map_err(|_| Refused)
}

/// Decrypts `ciphertext || tag` where it lies: on success `buffer`'s first
/// `len - 16` bytes are the plaintext (the tag is left in place).
///
/// # Errors
///
/// [`Refused`] for any authentication failure, or a buffer shorter than a
/// tag; then nothing was decrypted.
pub fn open_in_place_detached(
    key: &[u8; KEY_LEN],
    iv: &[u8; IV_LEN],
    buffer: &mut [u8],
    aad: &[u8],
) -> Result<(), Refused> {
    let split = buffer.len().checked_sub(TAG_LEN).ok_or(Refused)?;
    let (ciphertext, tag) = buffer.split_at_mut(split);
    let tag = aes_gcm::Tag::try_from(&*tag).map_err(|_| Refused)?;
    let nonce = Nonce::from(*iv);
    cipher(key)
        .decrypt_inout_detached(&nonce, aad, ciphertext.into(), &tag)
        .map_err(|_| Refused)
}
