//! XEdDSA signatures (XEd25519) made with the X25519 identity keys.
//!
//! A member signs with the same X25519 key pair it already publishes and
//! wraps stream keys with, so a signature needs no second key to distribute.
//! The algorithm is Signal's XEdDSA over Curve25519 ("The XEdDSA and
//! VXEdDSA Signature Schemes", revision 1, 2016-10-20,
//! <https://signal.org/docs/specifications/xeddsa/>), with the Curve25519
//! parameters of its section 5. Section 2.3 derives the Ed25519 key pair
//! with sign bit 0 from the X25519 private key (`calculate_key_pair`) and
//! the Ed25519 public key from the Montgomery `u` (`convert_mont`); section
//! 3 signs with 64 random bytes `Z` hashed into the nonce with `hash_1`
//! (section 2.5) (`xeddsa_sign`) and verifies (`xeddsa_verify`). A
//! signature is an ordinary 64-byte Ed25519 signature `R || s` (RFC 8032,
//! sections 5.1.6 and 5.1.7) under that Ed25519 key.
//!
//! The primitive is the `xeddsa` crate (1.1.0, pinned); this module only
//! draws the randomness, checks the public key and maps errors, and keeps
//! what depends on a key alone:
//!
//! - each [`IdentityKey`] keeps the Ed25519 key pair `calculate_key_pair`
//!   derives (the crate's `SigningKeyPair`, a patch in `vendor/xeddsa`):
//!   derived on its first signature, zeroized on drop, so each later
//!   signature costs one fixed-base multiplication instead of two or three;
//! - [`verify`] is the crate's verify step for step (`convert_mont`, then
//!   ed25519-dalek's `Verifier::verify`), with each signer's converted key
//!   kept (see [`ed25519_public_key`]).
//!
//! `tests/it/xeddsa_vectors.rs` cross-checks it against libxeddsa, an
//! independent C implementation: the crate verifies libxeddsa's signatures
//! and reproduces them byte for byte from the same `Z`, and libxeddsa
//! verifies the crate's.
//!
//! Before verifying, a public key must be canonical (`u < p`, as
//! `xeddsa_verify` requires) and must not be a point of small order: under a
//! small-order key anyone can make a signature that the plain Ed25519
//! equation accepts, and libsodium (which libxeddsa verifies with) refuses
//! such keys too. Both are refused with `INVALID_PUBLIC_KEY`, as key wraps
//! refuse low-order keys.
//!
//! Nothing on the wire carries a signature yet (issue 16 adds them to the
//! envelope).
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_crypto::signature::{self, Signature};
//!
//! let alice = IdentityKey::generate(RecipientKind::User, KeyId::new("key_laptop")?)?;
//! let signed = signature::sign(&alice, b"ship it")?;
//!
//! // Anyone holding Alice's public key checks it...
//! signature::verify(&alice.public_key(), b"ship it", &signed)?;
//! // ...over exactly these bytes, and under her key only.
//! assert!(signature::verify(&alice.public_key(), b"ship it!", &signed).is_err());
//! let mallory = IdentityKey::generate(RecipientKind::User, KeyId::new("key_laptop")?)?;
//! assert!(signature::verify(&mallory.public_key(), b"ship it", &signed).is_err());
//!
//! // 88 characters of padded base64 on the wire.
//! let text = signed.to_base64();
//! assert_eq!(text.len(), 88);
//! assert_eq!(Signature::from_base64(&text)?, signed);
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use std::collections::VecDeque;
use std::convert::Infallible;
use std::fmt;
use std::sync::{Mutex, PoisonError};

use curve25519_dalek::montgomery::MontgomeryPoint;
use ed25519_dalek::{Verifier as _, VerifyingKey};
use zeroize::Zeroizing;

use crate::encoding::{decode_base64_array, encode_base64};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{IdentityKey, PublicKey};
use crate::random;

/// Length of a signature in bytes (`R || s`).
pub const SIGNATURE_LEN: usize = 64;
/// Length of a signature in its base64 form: always exactly 88 characters.
pub const SIGNATURE_BASE64_LEN: usize = 88;
/// Random bytes drawn for each signature (`Z`, XEdDSA section 3).
pub const NONCE_LEN: usize = 64;

/// An XEd25519 signature: `R || s`, 64 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Signature([u8; SIGNATURE_LEN]);

impl Signature {
    /// Wraps raw signature bytes.
    pub const fn from_bytes(bytes: [u8; SIGNATURE_LEN]) -> Self {
        Signature(bytes)
    }

    /// The raw signature bytes.
    pub const fn as_bytes(&self) -> &[u8; SIGNATURE_LEN] {
        &self.0
    }

    /// Parses the wire form: exactly 88 characters of canonical padded base64.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `text` is not 88 characters or does not decode to
    /// 64 bytes; `MALFORMED_BASE64` when it is not canonical padded base64.
    pub fn from_base64(text: &str) -> CryptoResult<Self> {
        let chars = text.chars().count();
        if chars != SIGNATURE_BASE64_LEN {
            return Err(CryptoError::length(
                "signature",
                SIGNATURE_BASE64_LEN,
                chars,
            ));
        }
        decode_base64_array::<SIGNATURE_LEN>("signature", text).map(Signature)
    }

    /// The wire form: 88 characters of padded base64.
    pub fn to_base64(&self) -> String {
        encode_base64(&self.0)
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Signature({})", self.to_base64())
    }
}

/// Signs `message` with `key`'s X25519 secret key (XEdDSA section 3,
/// `xeddsa_sign`), drawing the 64 bytes `Z` from the system's randomness.
///
/// Fails only with `RANDOMNESS_UNAVAILABLE`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when the nonce cannot be drawn.
pub fn sign(key: &IdentityKey, message: &[u8]) -> CryptoResult<Signature> {
    sign_from(&mut random::OsRng, key, message)
}

/// [`sign`] drawing `Z` from `rng` (public under [`crate::hazmat`]).
pub(crate) fn sign_from(
    rng: &mut dyn random::Source,
    key: &IdentityKey,
    message: &[u8],
) -> CryptoResult<Signature> {
    let nonce = Zeroizing::new(random::array_from::<NONCE_LEN>(rng)?);
    let mut one = OneNonce {
        nonce: &nonce,
        served: false,
        misused: false,
    };
    let signature: [u8; SIGNATURE_LEN] = key.signing_key_pair().sign(message, &mut one);
    if one.misused {
        // The pinned crate draws exactly `Z`, once (tests/it/xeddsa_vectors.rs
        // reproduces its bytes); anything else would mean a nonce that is
        // not the one drawn above, so the signature is not handed out.
        return Err(CryptoError::RandomnessUnavailable);
    }
    Ok(Signature(signature))
}

/// Checks that `signature` is `public`'s signature over `message` (XEdDSA
/// section 3, `xeddsa_verify`).
///
/// A public key that is not canonical (`u >= p`), not on the curve, or of
/// small order is `INVALID_PUBLIC_KEY`; a signature that does not verify is
/// `INVALID_FIELD` (`signature`).
///
/// This is the `xeddsa` crate's verify, step for step: `convert_mont`, then
/// ed25519-dalek's `Verifier::verify` (cofactorless, `s < L`) under the
/// key it gives; the converted key is kept per public key (see
/// [`ed25519_public_key`]).
///
/// # Errors
///
/// `INVALID_PUBLIC_KEY` when `public` is unusable; `INVALID_FIELD`
/// (`signature`) when the signature does not verify.
pub fn verify(public: &PublicKey, message: &[u8], signature: &Signature) -> CryptoResult<()> {
    let key = verifying_key(public).ok_or(CryptoError::InvalidPublicKey)?;
    key.verify(message, &ed25519_dalek::Signature::from_bytes(&signature.0))
        .map_err(|_| CryptoError::invalid("signature", "does not verify"))
}

/// The Ed25519 public key (RFC 8032 encoding) that XEdDSA verifies `public`'s
/// signatures under: the Edwards point of its Montgomery `u` with sign bit 0
/// (XEdDSA section 3, `convert_mont`). A platform's Ed25519 verify (RFC 8032,
/// cofactorless, `s < L`, as WebCrypto's) under this key accepts exactly the
/// signatures [`verify`] accepts, since [`verify`] also refuses `s >= L`;
/// js/test/backends.test.mjs checks both ways, a malleated `s + L` included.
///
/// The conversion (two field inversions and a square root: a third of a
/// verify natively, more in WebAssembly) is done once per public key and
/// kept for [`verify`] and this function alike: public values only, at most
/// [`CONVERTED_KEYS_KEPT`] of them, the oldest dropped first, a refused key
/// kept as refused. A key's entry is a function of the key alone, so what
/// is kept cannot make another key's signatures verify.
///
/// # Errors
///
/// `INVALID_PUBLIC_KEY` for a key [`verify`] refuses (not canonical, not on
/// the curve, of small order).
pub fn ed25519_public_key(public: &PublicKey) -> CryptoResult<[u8; 32]> {
    verifying_key(public)
        .map(|key| key.to_bytes())
        .ok_or(CryptoError::InvalidPublicKey)
}

/// How many public keys' Ed25519 forms are kept (a history names a few
/// senders; a workspace's members are some hundreds at most).
pub const CONVERTED_KEYS_KEPT: usize = 256;

/// X25519 key -> its Ed25519 verifying key (`None`: refused).
type Converted = VecDeque<([u8; 32], Option<VerifyingKey>)>;

static CONVERTED: Mutex<Converted> = Mutex::new(VecDeque::new());

/// `public`'s Ed25519 verifying key, or `None` for a key [`verify`]
/// refuses; converted once and kept (see [`ed25519_public_key`]).
fn verifying_key(public: &PublicKey) -> Option<VerifyingKey> {
    let u = *public.as_bytes();
    let kept = |converted: &Converted| {
        converted
            .iter()
            .find(|(key, _)| *key == u)
            .map(|(_, verifying)| *verifying)
    };
    // A poisoned lock holds only whole entries (each is pushed in one step).
    if let Some(verifying) = kept(&CONVERTED.lock().unwrap_or_else(PoisonError::into_inner)) {
        return verifying;
    }
    // Converted without the lock: another thread may convert the same key
    // meanwhile, to the same value.
    let verifying = convert_mont(&u);
    let mut converted = CONVERTED.lock().unwrap_or_else(PoisonError::into_inner);
    if kept(&converted).is_none() {
        if converted.len() >= CONVERTED_KEYS_KEPT {
            converted.pop_front();
        }
        converted.push_back((u, verifying));
    }
    verifying
}

/// XEdDSA's `convert_mont` as the `xeddsa` crate does it (the Edwards point
/// with sign bit 0, compressed, read by ed25519-dalek), after the checks
/// [`verify`] adds: `u` canonical (`xeddsa_verify`: `u >= p` fails), the
/// point not of small order.
fn convert_mont(u: &[u8; 32]) -> Option<VerifyingKey> {
    if !is_canonical_field_element(u) {
        return None;
    }
    let point = MontgomeryPoint(*u).to_edwards(0)?;
    if point.is_small_order() {
        return None;
    }
    VerifyingKey::from_bytes(&point.compress().to_bytes()).ok()
}

/// `bytes`, read little-endian, is below p = 2^255 - 19.
fn is_canonical_field_element(bytes: &[u8; 32]) -> bool {
    // p = ed ff ff ... ff 7f (little-endian). Compare from the top byte down.
    const P: [u8; 32] = {
        let mut p = [0xff; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        p
    };
    for (b, q) in bytes.iter().zip(P.iter()).rev() {
        if b != q {
            return b < q;
        }
    }
    false
}

/// The random-number source the crate's `sign` draws `Z` from: serves the
/// 64 bytes drawn in [`sign`] once, and records any other draw.
struct OneNonce<'a> {
    nonce: &'a [u8; NONCE_LEN],
    served: bool,
    misused: bool,
}

impl rand_core::TryRng for OneNonce<'_> {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.misused = true;
        Ok(0)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.misused = true;
        Ok(0)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        if self.served || dst.len() != NONCE_LEN {
            self.misused = true;
            dst.fill(0);
        } else {
            dst.copy_from_slice(self.nonce);
            self.served = true;
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for OneNonce<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_bound_is_p() {
        let mut p_minus_1 = [0xff; 32];
        p_minus_1[0] = 0xec;
        p_minus_1[31] = 0x7f;
        assert!(is_canonical_field_element(&p_minus_1));
        let mut p = p_minus_1;
        p[0] = 0xed;
        assert!(!is_canonical_field_element(&p));
        assert!(!is_canonical_field_element(&[0xff; 32]));
        assert!(is_canonical_field_element(&[0; 32]));
        let mut top_bit = [0; 32];
        top_bit[31] = 0x80;
        assert!(!is_canonical_field_element(&top_bit));
    }
}
