//! A runtime's keys in presence, its key policy, and the key events of the
//! socket (`bot:e2e_revoke`, `bot:e2e_grant`, the hello acknowledgement).
//!
//! **Key policy.** A runtime holds up to 32 public keys in presence.
//! - [`KeyPolicy::PerMachine`]: every machine has its own key pair, never
//!   copied; the owner wraps each stream key to every machine's key. Losing a
//!   machine means dropping its key from presence only.
//! - [`KeyPolicy::Shared`]: one key pair copied to every machine of the
//!   runtime. Simpler, but a removal can only be enforced by replacing the
//!   shared key, so on `bot:e2e_revoke` the runtime must write presence again.
//!
//! On `bot:e2e_revoke` the stream's keyring is always dropped (its keys are
//! zeroized): the runtime has been removed, and keeping the keys would only
//! let it read what it was removed from.

use std::collections::BTreeMap;

use streamseal_crypto::error::{CryptoError, Error, Result};
use streamseal_crypto::identity::{IdentityKey, KeyId, MAX_KEYS, PublicKey};
use streamseal_crypto::stream_key::Keyring;
use streamseal_wire::events::{E2eRevoke, HelloAck};
use streamseal_wire::requests::Validate;
use streamseal_wire::requests::bot_runtime::PresenceRequest;

/// How a runtime's machines hold their keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyPolicy {
    /// Each machine its own key pair.
    PerMachine,
    /// One key pair shared by every machine.
    Shared,
}

/// What a runtime must do after `bot:e2e_revoke`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct RevokeOutcome {
    /// Whether a keyring was held (and is now dropped).
    pub dropped: bool,
    /// Whether presence must be written again (with a replaced shared key).
    pub rewrite_presence: bool,
}

/// Sets this machine's key on a presence body (`publicKey`, `publicKeyId`)
/// and validates the body (exactly 44 characters, key id 1 to 128, ...).
///
/// # Errors
///
/// `VALIDATION_FAILED` when the body breaks the API's bounds.
pub fn with_machine_key(presence: PresenceRequest, key: &IdentityKey) -> Result<PresenceRequest> {
    with_public_key(presence, &key.public_key(), key.key_id())
}

/// [`with_machine_key`] from the key's public half: what a binding that
/// holds the key pair elsewhere (the npm package's endpoint module, whose
/// caller passes the first module's `IdentityKey`) can give. Presence only
/// announces a public key; the key pair stays where it is.
///
/// # Errors
///
/// `VALIDATION_FAILED` when the body breaks the API's bounds.
pub fn with_public_key(
    mut presence: PresenceRequest,
    public_key: &PublicKey,
    key_id: &KeyId,
) -> Result<PresenceRequest> {
    presence.public_key = Some(public_key.to_base64());
    presence.public_key_id = Some(key_id.as_str().to_owned());
    presence.validate()?;
    Ok(presence)
}

/// Checks a runtime's key set: at most 32 keys with distinct ids.
///
/// # Errors
///
/// `TOO_MANY_KEYS` when `keys` holds more than 32; `INVALID_FIELD` when two
/// share a key id.
pub fn check_key_set(keys: &[IdentityKey]) -> Result<()> {
    if keys.len() > MAX_KEYS {
        return Err(Error::Crypto(CryptoError::TooManyKeys {
            limit: MAX_KEYS,
            actual: keys.len(),
        }));
    }
    let mut ids: Vec<&str> = keys.iter().map(|k| k.key_id().as_str()).collect();
    ids.sort_unstable();
    if ids.windows(2).any(|w| w.first() == w.get(1)) {
        return Err(Error::invalid("publicKeyId", "key ids must be distinct"));
    }
    Ok(())
}

/// Handles `bot:e2e_revoke`: drops the keyring of the event's stream from
/// `keyrings` (keyed by root stream id).
pub fn on_revoke(
    keyrings: &mut BTreeMap<String, Keyring>,
    event: &E2eRevoke,
    policy: KeyPolicy,
) -> RevokeOutcome {
    let dropped = keyrings.remove(&event.stream_id).is_some();
    RevokeOutcome {
        dropped,
        rewrite_presence: policy == KeyPolicy::Shared,
    }
}

/// The sealed streams whose key wraps to fetch after the hello
/// acknowledgement: grants missed while offline that no keyring covers yet.
pub fn grants_to_fetch(hello: &HelloAck, keyrings: &BTreeMap<String, Keyring>) -> Vec<String> {
    hello
        .e2e_granted_stream_ids
        .iter()
        .filter(|id| !keyrings.contains_key(*id))
        .cloned()
        .collect()
}
