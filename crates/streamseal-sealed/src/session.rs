//! Key generations of a sealed stream: generation 0 of a new sealed
//! session, and rolling the generation when membership changes.
//!
//! Both go through the member's [`StreamState`] in two steps:
//! [`StreamState::prepare_roll`] makes the next generation's key and wraps
//! it (from the caller's identity key, HPKE auth mode) to recipients the
//! [`TrustStore`] admitted; [`StreamState::commit_roll`] puts it in force
//! once `POST streams/{rootStreamId}/e2e/key-wraps` succeeded. A 409 there
//! means an earlier attempt or another member stored wraps for that
//! generation first (slots are immutable): drop the prepared roll (its key
//! was never sealed under) and open the stored wraps with
//! [`crate::key_wraps::open_key_wraps`]. A race therefore cannot split
//! members between two keys of one generation.
//!
//! **A new sealed session.** `POST bot-runtime/sessions` with `e2e
//! {ownerKeyId}` creates the scratchpad encrypted; the runtime makes
//! generation 0 wrapped to the owner's key (`GET bot-runtime/owner-e2e-key`,
//! admitted through the trust store by [`owner_key`]) and to each of the
//! bot's registered keys ([`TrustedKey::own`]).
//!
//! **Rolling.** Inviting or removing a member rolls the generation: the
//! recipients are the members that remain (or with the new one), each
//! admitted by the trust store, never a list taken straight from the server:
//! an unknown key is `UNKNOWN_KEY`, a changed one `KEY_CHANGED`, an
//! unverified one under a strict policy `KEY_NOT_VERIFIED`, before anything
//! is wrapped. [`crate::state::PreparedRoll::roster`] says who can
//! read from the new generation on. Older generations stay readable to those
//! who had them; a removed member cannot read what is sealed under the new one.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_sealed::{session, state::StreamState};
//! use streamseal_crypto::trust::{TrustPolicy, TrustStore, TrustedKey};
//! use streamseal_wire::keys::OwnerKey;
//!
//! let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner-key")?)?;
//! let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a")?)?;
//! let served = OwnerKey { key_id: "owner-key".into(), public_key: owner.public_key(), extra: Default::default() };
//!
//! let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! let owner_key = session::owner_key(&mut trust, "usr_owner", &served)?;
//! let mut state = StreamState::new("stream_root")?;
//! state.accept_sender(&owner_key)?;
//! let roll = state.prepare_roll(&bot, &[owner_key, TrustedKey::own("bot_1", &bot)])?;
//! assert_eq!(roll.roster().len(), 2);
//! // ... POST roll.request() ...
//! state.commit_roll(roll)?;
//! assert_eq!(state.keyring().current_generation(), Some(0));
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use streamseal_crypto::error::Result;
use streamseal_crypto::identity::{KeyId, Recipient, RecipientKind};
use streamseal_crypto::trust::{TrustStore, TrustedKey};
use streamseal_wire::keys::OwnerKey;

#[cfg(doc)]
use crate::state::StreamState;

/// The owner's key as a recipient (kind `user`), as the server gave it.
///
/// # Errors
///
/// `INVALID_LENGTH` when the key id is not 1 to 128 characters.
pub fn owner_recipient(owner: &OwnerKey) -> Result<Recipient> {
    Ok(Recipient {
        kind: RecipientKind::User,
        key_id: KeyId::new(owner.key_id.clone())?,
        public_key: owner.public_key,
    })
}

/// The owner's key (`GET bot-runtime/owner-e2e-key`) admitted through the
/// trust store as `owner_user_id`'s: pinned on first sight, refused with
/// `KEY_CHANGED` when it differs from the pin, `KEY_NOT_VERIFIED` under a
/// strict policy until verified.
///
/// # Errors
///
/// `INVALID_LENGTH` when the key id is not 1 to 128 characters or
/// `owner_user_id` is empty or over 1024 bytes; as [`TrustStore::admit`]:
/// `KEY_CHANGED`, `KEY_NOT_VERIFIED`, or `INVALID_FIELD` when a new pin would
/// exceed the store's limit.
pub fn owner_key(
    trust: &mut TrustStore,
    owner_user_id: &str,
    owner: &OwnerKey,
) -> Result<TrustedKey> {
    Ok(trust.admit(owner_user_id, &owner_recipient(owner)?)?)
}
