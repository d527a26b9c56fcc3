//! Who sealed it (`streamseal::sender`, envelope version 2): the signer of
//! what the caller seals, and the keys it checks senders' signatures
//! against. The same rules as the JS binding:
//!
//! - **Sealing** functions take the caller's [`IdentityKey`] and the
//!   `subject` it is registered as (its user or bot id): the AAD names that
//!   sender (subject, kind, key id; the subject must be the slot's author
//!   where the slot names one, else `INVALID_FIELD`) and the ciphertext
//!   carries its XEdDSA signature.
//! - **Opening** functions take the caller's [`TrustStore`] and, optionally,
//!   its own keys ([`OwnKeys`]: what they signed opens as `"verified"`) and
//!   keys the server presented that the store does not pin
//!   ([`PresentedKey`]s: a signature by one opens as `"unverified"`, or
//!   `KEY_NOT_VERIFIED` under `"verified-only"`; a pin for the same subject
//!   and key id wins over it). A core `SenderKeys` is built from them for the
//!   call. Every opened result carries the core's `SealedBy`
//!   (`{subject, kind, keyId, status}`, `status` `"verified"` or
//!   `"unverified"`); a signature that does not verify is
//!   `SENDER_MISMATCH`, a sender the caller holds no key for `UNKNOWN_KEY`.
//!
//! [`TrustStore`]: crate::trust::TrustStore

use std::sync::Arc;

use streamseal::sender::{SenderKeys, Signer};
use streamseal::trust;

use crate::error::Result;
use crate::keys::{IdentityKey, Recipient};

/// The caller's own keys, registered as `subject`'s (its user or bot id):
/// what they signed opens as `"verified"` (the caller holds the secret half).
#[derive(uniffi::Record)]
pub struct OwnKeys {
    /// The user or bot id the keys are registered as.
    pub subject: String,
    /// The keys.
    pub keys: Vec<Arc<IdentityKey>>,
}

/// A key the server presented for `subject` (a member list, a presence
/// entry) that the trust store does not pin: a signature by it opens as
/// `"unverified"` (under `"verified-only"`: `KEY_NOT_VERIFIED`). Plain
/// strings, so a malformed key id or public key raises `StreamsealError`
/// with its code.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct PresentedKey {
    /// The user or bot id the server presents the key for.
    pub subject: String,
    /// The kind the key is registered as (`user`, `bot`, ...).
    pub kind: String,
    /// The id the key is registered under.
    pub key_id: String,
    /// The X25519 public key, 44 characters of base64.
    pub public_key: String,
}

/// The signer of what the caller seals: `identity`, registered as
/// `subject`'s (1 to 1024 bytes, else `INVALID_LENGTH`).
pub(crate) fn signer<'a>(identity: &'a IdentityKey, subject: &'a str) -> Result<Signer<'a>> {
    Ok(Signer::new(subject, &identity.0)?)
}

/// The core `SenderKeys` of one call: the pins of `trust` under its policy,
/// the caller's `own` keys and the keys the server `presented`.
pub(crate) fn sender_keys<'a>(
    trust: &'a trust::TrustStore,
    own: Option<&OwnKeys>,
    presented: &[PresentedKey],
) -> Result<SenderKeys<'a>> {
    let mut keys = SenderKeys::new(trust);
    if let Some(own) = own {
        for key in &own.keys {
            keys = keys.with_own(&own.subject, &key.0);
        }
    }
    for key in presented {
        let recipient = Recipient {
            kind: key.kind.clone(),
            key_id: key.key_id.clone(),
            public_key: key.public_key.clone(),
        }
        .to_core()?;
        keys = keys.with_presented(&key.subject, &recipient);
    }
    Ok(keys)
}
