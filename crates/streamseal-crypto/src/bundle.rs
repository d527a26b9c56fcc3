//! The passphrase-protected private-key bundle of `GET me/e2e-key`.
//!
//! ```text
//! encryptedPrivateBundle = base64( version (1 byte, = 1) || iv (12 bytes) || ct )
//! ct  = AES-256-GCM(K, iv, secret key (32 bytes), aad)     48 bytes with the tag
//! K   = Argon2id(NFC(passphrase), kdfSalt, m, t, p, version 19), 32 bytes
//! aad = "streamseal/bundle" (17 bytes) || version (1 byte) || public key (32 bytes)
//! ```
//!
//! The AAD binds the bundle to its version and to the public key of the
//! record it protects; after opening, the public key derived from the secret
//! must equal the record's `publicKey` as well.
//!
//! A wrong passphrase and a bundle presented with another record's public key
//! (or salt) both fail AES-GCM authentication and cannot be told apart: both
//! are `WRONG_PASSPHRASE`. Structural damage is told apart: an unknown
//! version byte is `UNSUPPORTED_BUNDLE_VERSION`, a wrong length
//! `MALFORMED_BUNDLE`, bad base64 `MALFORMED_BASE64`, and parameters outside
//! the caps `KDF_PARAMS_OUT_OF_BOUNDS` (checked before any work is done).
//!
//! Creating a bundle needs parameters at least the creation floor (m = 19 MiB,
//! t = 2, p = 1, OWASP's minimum; see [`crate::kdf`]): a bundle is stored on
//! the server, where a copy can be attacked offline forever. Opening has only
//! the caps, so a record made with less still opens.
//!
//! ```
//! use streamseal_crypto::bundle::{create_bundle, open_bundle};
//! use streamseal_crypto::identity::SecretKey;
//! use streamseal_crypto::kdf::{KdfLimits, KdfParams};
//!
//! let secret = SecretKey::generate()?;
//! // The cheapest parameters allowed; apps use `KdfParams::default()` where they can.
//! let params = KdfParams::creation_floor();
//! let bundle = create_bundle(&secret, "correct horse", &params)?;
//! let opened = open_bundle(&secret.public_key(), &bundle, "correct horse", &KdfLimits::default())?;
//! assert_eq!(opened.public_key(), secret.public_key());
//! let err = open_bundle(&secret.public_key(), &bundle, "wrong", &KdfLimits::default()).unwrap_err();
//! assert_eq!(err.code().as_str(), "WRONG_PASSPHRASE");
//! // Below the floor: refused before any work.
//! let weak = KdfParams::argon2id(64, 1, 1);
//! let err = create_bundle(&secret, "correct horse", &weak).unwrap_err();
//! assert_eq!(err.code().as_str(), "KDF_PARAMS_OUT_OF_BOUNDS");
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::aead::{self, IV_LEN, TAG_LEN};
use crate::encoding::{decode_base64_bounded, encode_base64};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{KEY_LEN, PublicKey, SecretKey};
use crate::kdf::{self, KdfLimits, KdfParams, SALT_LEN};
use crate::random;

/// The bundle version this library writes and reads.
pub const BUNDLE_VERSION: u8 = 1;
/// The domain label at the start of the bundle's AAD.
pub const BUNDLE_AAD_LABEL: &[u8] = b"streamseal/bundle";
/// Length of a version-1 bundle in bytes: version, iv, key and tag.
pub const BUNDLE_LEN: usize = 1 + IV_LEN + KEY_LEN + TAG_LEN;
/// Longest bundle text read before it is refused outright.
const MAX_BUNDLE_BYTES: usize = 1024;

/// The bundle fields of a key record: `encryptedPrivateBundle`, `kdfSalt`, `kdfParams`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SealedBundle {
    /// base64(version || iv || ciphertext).
    pub encrypted_private_bundle: String,
    /// The Argon2id salt, base64.
    pub kdf_salt: String,
    /// The Argon2id parameters.
    pub kdf_params: KdfParams,
}

/// The AAD of a bundle protecting the secret of `public_key`.
pub fn bundle_aad(version: u8, public_key: &PublicKey) -> Vec<u8> {
    let mut aad = Vec::with_capacity(BUNDLE_AAD_LABEL.len() + 1 + KEY_LEN);
    aad.extend_from_slice(BUNDLE_AAD_LABEL);
    aad.push(version);
    aad.extend_from_slice(public_key.as_bytes());
    aad
}

/// Seals `secret` under `passphrase` with a fresh salt and `params`.
///
/// `params` must be at least the creation floor (m = 19 MiB, t = 2, p = 1,
/// [`KdfParams::creation_floor`]): the bundle is stored on the server, and a
/// weak one stays an offline-guessing target for as long as a copy exists.
/// They must also lie within [`KdfLimits::default`], so that every client
/// can open what this one creates. Both are checked by
/// [`KdfParams::check_for_new_bundle`] before any work
/// (`KDF_PARAMS_OUT_OF_BOUNDS`, `UNSUPPORTED_KDF`).
///
/// # Errors
///
/// `UNSUPPORTED_KDF` or `KDF_PARAMS_OUT_OF_BOUNDS` when `params` fail
/// [`KdfParams::check_for_new_bundle`]; `RANDOMNESS_UNAVAILABLE` when the
/// salt or iv cannot be drawn.
pub fn create_bundle(
    secret: &SecretKey,
    passphrase: &str,
    params: &KdfParams,
) -> CryptoResult<SealedBundle> {
    params.check_for_new_bundle()?;
    seal_bundle_from(&mut random::OsRng, secret, passphrase, params)
}

/// Seals `secret` with parameters checked only against the caps on opening,
/// drawing the 16 salt bytes then the 12 iv bytes from `rng`. Reached from
/// [`create_bundle`] after the floor check, and from [`crate::hazmat`]
/// (fixed randomness, and records made before the floor existed).
pub(crate) fn seal_bundle_from(
    rng: &mut dyn random::Source,
    secret: &SecretKey,
    passphrase: &str,
    params: &KdfParams,
) -> CryptoResult<SealedBundle> {
    let salt = random::array_from::<SALT_LEN>(rng)?;
    let key = kdf::derive_key(passphrase, &salt, params, &KdfLimits::default())?;
    let iv = random::array_from::<IV_LEN>(rng)?;
    let aad = bundle_aad(BUNDLE_VERSION, &secret.public_key());
    let ct = aead::seal(&key, &iv, secret.to_bytes().as_slice(), &aad)?;
    let mut bytes = Vec::with_capacity(BUNDLE_LEN);
    bytes.push(BUNDLE_VERSION);
    bytes.extend_from_slice(&iv);
    bytes.extend_from_slice(&ct);
    Ok(SealedBundle {
        encrypted_private_bundle: encode_base64(&bytes),
        kdf_salt: encode_base64(&salt),
        kdf_params: params.clone(),
    })
}

/// Opens `bundle` with `passphrase`, checking the result against the record's
/// `public_key`. Parameters and salt are checked against `limits` first.
///
/// # Errors
///
/// `MALFORMED_BASE64` or `INPUT_TOO_LARGE` for the bundle text (bad base64,
/// too long), `MALFORMED_BUNDLE` (empty or not 61 bytes),
/// `UNSUPPORTED_BUNDLE_VERSION`; `UNSUPPORTED_KDF` or
/// `KDF_PARAMS_OUT_OF_BOUNDS` when the parameters or salt fail `limits`
/// (`MALFORMED_BASE64` for a salt that is not base64); `WRONG_PASSPHRASE`
/// when the bundle does not open; `BUNDLE_KEY_MISMATCH` when the key inside
/// is not `public_key`'s.
pub fn open_bundle(
    public_key: &PublicKey,
    bundle: &SealedBundle,
    passphrase: &str,
    limits: &KdfLimits,
) -> CryptoResult<SecretKey> {
    let bytes = decode_base64_bounded(
        "encryptedPrivateBundle",
        &bundle.encrypted_private_bundle,
        MAX_BUNDLE_BYTES,
    )?;
    let (&version, rest) = bytes
        .split_first()
        .ok_or(CryptoError::MalformedBundle { reason: "empty" })?;
    if version != BUNDLE_VERSION {
        return Err(CryptoError::UnsupportedBundleVersion { version });
    }
    if bytes.len() != BUNDLE_LEN {
        return Err(CryptoError::MalformedBundle {
            reason: "a version-1 bundle is 61 bytes",
        });
    }
    let (iv, ct) = rest.split_at(IV_LEN);
    let iv: [u8; IV_LEN] = iv
        .try_into()
        .map_err(|_| CryptoError::MalformedBundle { reason: "iv" })?;

    bundle.kdf_params.check(limits)?;
    let max_salt = limits.max_salt_len;
    let salt =
        decode_base64_bounded("kdfSalt", &bundle.kdf_salt, max_salt).map_err(|e| match e {
            CryptoError::InputTooLarge { actual, .. } => CryptoError::KdfParamsOutOfBounds {
                param: "salt",
                value: actual as u64,
                min: limits.min_salt_len as u64,
                max: max_salt as u64,
            },
            other => other,
        })?;
    let key = kdf::derive_key(passphrase, &salt, &bundle.kdf_params, limits)?;
    let aad = bundle_aad(version, public_key);
    let plain =
        Zeroizing::new(aead::open(&key, &iv, ct, &aad).map_err(|_| CryptoError::WrongPassphrase)?);
    let secret_bytes: Zeroizing<[u8; KEY_LEN]> = Zeroizing::new(
        plain
            .as_slice()
            .try_into()
            .map_err(|_| CryptoError::MalformedBundle {
                reason: "key length",
            })?,
    );
    let secret = SecretKey::from_bytes(&secret_bytes);
    if secret.public_key() != *public_key {
        return Err(CryptoError::BundleKeyMismatch);
    }
    Ok(secret)
}
