//! The user's own key: unlock the `me/e2e-key` record with a passphrase,
//! set one up for the first time, change the passphrase.
//!
//! The public API shows only `GET me/e2e-key`; storing a new or re-sealed
//! record happens through the app's key setup, so [`set_up`] and
//! [`change_passphrase`] return the record ([`NewOwnKey`]) for the app to store.
//!
//! Both seal with `bundle::create_bundle`, so their parameters must be at
//! least the creation floor (m = 19 MiB, t = 2, p = 1; `KDF_PARAMS_OUT_OF_BOUNDS`
//! otherwise, see [`streamseal_crypto::kdf`]). [`unlock`] checks only the caps on opening:
//! a record made with less still unlocks, and changing its passphrase lifts
//! it to the parameters given.
//!
//! ```
//! use streamseal_crypto::identity::KeyId;
//! use streamseal_crypto::kdf::{KdfLimits, KdfParams};
//! use streamseal_sealed::user_key::{set_up, unlock};
//!
//! let params = KdfParams::creation_floor(); // apps use `KdfParams::default()` where they can
//! let (me, record) = set_up(KeyId::new("key_laptop")?, "hunter2 horse", &params)?;
//! let again = unlock(&record.into_own_key("2026-11-21T00:00:00Z"), "hunter2 horse", &KdfLimits::default())?;
//! assert_eq!(again.public_key(), me.public_key());
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use serde::{Deserialize, Serialize};

use streamseal_crypto::bundle::{SealedBundle, create_bundle, open_bundle};
use streamseal_crypto::error::Result;
use streamseal_crypto::identity::{IdentityKey, KeyId, PublicKey, RecipientKind, SecretKey};
use streamseal_crypto::kdf::{KdfLimits, KdfParams};
use streamseal_wire::Extra;
use streamseal_wire::keys::OwnKey;

/// A key record to store: `{keyId, publicKey, encryptedPrivateBundle, kdfSalt, kdfParams}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct NewOwnKey {
    /// The key id.
    pub key_id: String,
    /// The public key.
    pub public_key: PublicKey,
    /// The passphrase bundle.
    #[serde(flatten)]
    pub bundle: SealedBundle,
}

impl NewOwnKey {
    /// The record as `GET me/e2e-key` returns it once stored at `created_at`.
    pub fn into_own_key(self, created_at: impl Into<String>) -> OwnKey {
        OwnKey {
            key_id: self.key_id,
            public_key: self.public_key,
            encrypted_private_bundle: self.bundle.encrypted_private_bundle,
            kdf_salt: self.bundle.kdf_salt,
            kdf_params: self.bundle.kdf_params,
            created_at: created_at.into(),
            extra: Extra::default(),
        }
    }
}

fn bundle_of(record: &OwnKey) -> SealedBundle {
    SealedBundle {
        encrypted_private_bundle: record.encrypted_private_bundle.clone(),
        kdf_salt: record.kdf_salt.clone(),
        kdf_params: record.kdf_params.clone(),
    }
}

/// Unlocks the record into the user's identity key (kind `user`, the record's key id).
/// The record's Argon2 parameters are checked against `limits` before any work.
///
/// # Errors
///
/// `INVALID_LENGTH` when the record's key id is not 1 to 128 characters; as
/// [`streamseal_crypto::bundle::open_bundle`]: `WRONG_PASSPHRASE` when the bundle does not
/// open, `BUNDLE_KEY_MISMATCH` when the key inside is not the record's,
/// `UNSUPPORTED_KDF` or `KDF_PARAMS_OUT_OF_BOUNDS` when the parameters or salt
/// fail `limits`, `MALFORMED_BASE64`, `INPUT_TOO_LARGE`, `MALFORMED_BUNDLE` or
/// `UNSUPPORTED_BUNDLE_VERSION` for the bundle's text.
pub fn unlock(record: &OwnKey, passphrase: &str, limits: &KdfLimits) -> Result<IdentityKey> {
    let key_id = KeyId::new(record.key_id.clone())?;
    let secret = open_bundle(&record.public_key, &bundle_of(record), passphrase, limits)?;
    Ok(IdentityKey::from_secret(
        RecipientKind::User,
        key_id,
        secret,
    ))
}

/// First-time setup: a fresh key pair sealed under `passphrase` with `params`
/// (at least the creation floor, `KDF_PARAMS_OUT_OF_BOUNDS` otherwise, checked
/// before the key is generated).
///
/// # Errors
///
/// `UNSUPPORTED_KDF` or `KDF_PARAMS_OUT_OF_BOUNDS` when `params` are not
/// Argon2id 19 within the creation floor and the caps; `RANDOMNESS_UNAVAILABLE`
/// when the key, salt or iv cannot be drawn.
pub fn set_up(
    key_id: KeyId,
    passphrase: &str,
    params: &KdfParams,
) -> Result<(IdentityKey, NewOwnKey)> {
    params.check_for_new_bundle()?;
    let secret = SecretKey::generate()?;
    let record = seal(&key_id, &secret, passphrase, params)?;
    Ok((
        IdentityKey::from_secret(RecipientKind::User, key_id, secret),
        record,
    ))
}

/// Re-seals the same key under a new passphrase (fresh salt and iv) with
/// `params`, which must be at least the creation floor whatever the old
/// record used (`KDF_PARAMS_OUT_OF_BOUNDS`, checked before the old record is
/// unlocked). The old record is checked against `limits` only.
///
/// # Errors
///
/// `UNSUPPORTED_KDF` or `KDF_PARAMS_OUT_OF_BOUNDS` for `params` (checked
/// first); then as [`unlock`] for the old record (`WRONG_PASSPHRASE`, ...);
/// `RANDOMNESS_UNAVAILABLE` when the salt or iv cannot be drawn.
pub fn change_passphrase(
    record: &OwnKey,
    old_passphrase: &str,
    new_passphrase: &str,
    params: &KdfParams,
    limits: &KdfLimits,
) -> Result<NewOwnKey> {
    params.check_for_new_bundle()?;
    let me = unlock(record, old_passphrase, limits)?;
    seal(me.key_id(), me.secret_key(), new_passphrase, params)
}

fn seal(
    key_id: &KeyId,
    secret: &SecretKey,
    passphrase: &str,
    params: &KdfParams,
) -> Result<NewOwnKey> {
    Ok(NewOwnKey {
        key_id: key_id.as_str().to_owned(),
        public_key: secret.public_key(),
        bundle: create_bundle(secret, passphrase, params)?,
    })
}
