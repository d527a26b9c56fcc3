//! Local persistence: state the app keeps on disk (the per-root stream state,
//! the trust store), sealed under the caller's identity key so that a copy of
//! the file reveals no stream key and cannot be edited without detection.
//!
//! ```text
//! bytes = label || u8 version || iv (12 bytes) || AES-256-GCM(k, iv, body, aad)
//! k     = HKDF-SHA256(salt = label, ikm = identity secret key,
//!                     info = "streamseal/local" || u8 version || identity public key)   32 bytes
//! aad   = label || u8 version || identity public key
//! ```
//!
//! The label names what the bytes are (`streamseal/state`,
//! `streamseal/trust`), so one kind can never be opened as another.

use hkdf::Hkdf;
use sha2::Sha256;
use zeroize::Zeroizing;

use crate::aead::{self, IV_LEN, KEY_LEN, TAG_LEN};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::IdentityKey;
use crate::random;

/// Largest persisted byte string accepted (16 MiB).
pub const MAX_PERSISTED_LEN: usize = 16 * 1024 * 1024;

const INFO_LABEL: &[u8] = b"streamseal/local";

fn key(label: &[u8], version: u8, me: &IdentityKey) -> CryptoResult<Zeroizing<[u8; KEY_LEN]>> {
    let secret = me.secret_key().to_bytes();
    let hk = Hkdf::<Sha256>::new(Some(label), secret.as_slice());
    let mut info = Vec::with_capacity(INFO_LABEL.len() + 33);
    info.extend_from_slice(INFO_LABEL);
    info.push(version);
    info.extend_from_slice(me.public_key().as_bytes());
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    hk.expand(&info, out.as_mut())
        .map_err(|_| CryptoError::MalformedState {
            reason: "key derivation",
        })?;
    Ok(out)
}

fn aad(label: &[u8], version: u8, me: &IdentityKey) -> Vec<u8> {
    let mut aad = Vec::with_capacity(label.len() + 33);
    aad.extend_from_slice(label);
    aad.push(version);
    aad.extend_from_slice(me.public_key().as_bytes());
    aad
}

/// Seals `body` as `label`/`version` under `me`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when no nonce can be drawn.
pub fn seal_local(
    label: &[u8],
    version: u8,
    me: &IdentityKey,
    body: &[u8],
) -> CryptoResult<Vec<u8>> {
    let iv = random::array::<IV_LEN>()?;
    let ct = aead::seal(
        &*key(label, version, me)?,
        &iv,
        body,
        &aad(label, version, me),
    )?;
    let mut out = Vec::with_capacity(label.len() + 1 + IV_LEN + ct.len());
    out.extend_from_slice(label);
    out.push(version);
    out.extend_from_slice(&iv);
    out.extend_from_slice(&ct);
    Ok(out)
}

/// Opens bytes written by [`seal_local`] with the same `label`, `version` and `me`.
/// A wrong label, version or length is `MALFORMED_STATE`; bytes sealed under
/// another identity key, or altered, are `STATE_AUTH_FAILED`.
///
/// # Errors
///
/// `INPUT_TOO_LARGE`, `MALFORMED_STATE` or `STATE_AUTH_FAILED`, as above.
pub fn open_local(
    label: &[u8],
    version: u8,
    me: &IdentityKey,
    bytes: &[u8],
) -> CryptoResult<Zeroizing<Vec<u8>>> {
    if bytes.len() > MAX_PERSISTED_LEN {
        return Err(CryptoError::InputTooLarge {
            field: "state",
            limit: MAX_PERSISTED_LEN,
            actual: bytes.len(),
        });
    }
    let rest = bytes
        .strip_prefix(label)
        .ok_or(CryptoError::MalformedState {
            reason: "not this kind of state",
        })?;
    let (&v, rest) = rest.split_first().ok_or(CryptoError::MalformedState {
        reason: "truncated",
    })?;
    if v != version {
        return Err(CryptoError::MalformedState {
            reason: "unsupported version",
        });
    }
    if rest.len() < IV_LEN + TAG_LEN {
        return Err(CryptoError::MalformedState {
            reason: "truncated",
        });
    }
    let (iv, ct) = rest.split_at(IV_LEN);
    let iv: [u8; IV_LEN] = iv.try_into().map_err(|_| CryptoError::MalformedState {
        reason: "truncated",
    })?;
    aead::open(
        &*key(label, version, me)?,
        &iv,
        ct,
        &aad(label, version, me),
    )
    .map(Zeroizing::new)
    .map_err(|_| CryptoError::StateAuthFailed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use crate::identity::{KeyId, RecipientKind, SecretKey};

    fn me(byte: u8) -> IdentityKey {
        IdentityKey::from_secret(
            RecipientKind::User,
            KeyId::new("k").unwrap(),
            SecretKey::from_bytes(&[byte; 32]),
        )
    }

    #[test]
    fn round_trip_and_refusals() {
        let bytes = seal_local(b"streamseal/test", 1, &me(1), b"body").unwrap();
        assert_eq!(
            &*open_local(b"streamseal/test", 1, &me(1), &bytes).unwrap(),
            b"body"
        );
        // Another identity key, another label, another version, a flipped bit.
        let code = |r: CryptoResult<Zeroizing<Vec<u8>>>| r.unwrap_err().code();
        assert_eq!(
            code(open_local(b"streamseal/test", 1, &me(2), &bytes)),
            ErrorCode::StateAuthFailed
        );
        assert_eq!(
            code(open_local(b"streamseal/tesu", 1, &me(1), &bytes)),
            ErrorCode::MalformedState
        );
        assert_eq!(
            code(open_local(b"streamseal/test", 2, &me(1), &bytes)),
            ErrorCode::MalformedState
        );
        let mut flipped = bytes.clone();
        if let Some(b) = flipped.last_mut() {
            *b ^= 1;
        }
        assert_eq!(
            code(open_local(b"streamseal/test", 1, &me(1), &flipped)),
            ErrorCode::StateAuthFailed
        );
        assert_eq!(
            code(open_local(b"streamseal/test", 1, &me(1), &bytes[..20])),
            ErrorCode::MalformedState
        );
    }
}
