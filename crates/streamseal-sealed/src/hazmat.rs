//! Risky APIs of the sealed flows, kept apart like the crypto layer's
//! [`streamseal_crypto::hazmat`] (read its module docs first): the flows
//! whose outputs the golden vectors fix, drawing from the generator they are
//! given. Never pass anything but the operating system's generator
//! ([`streamseal_crypto::random::OsRng`]) outside tests: sealing twice with
//! the same bytes reuses an AES-GCM nonce and an XEdDSA nonce.
//!
//! And [`finish_verified_elsewhere`], the flows' form of
//! [`streamseal_crypto::hazmat::finish_open_verified_elsewhere`]: a message,
//! step, card or answer ([`Pending`]) whose sender's signature a platform's
//! Ed25519 verified.

use streamseal_crypto::error::Result;
use streamseal_crypto::random::Source;
use streamseal_crypto::stream_key::Keyring;
use streamseal_wire::ids::MessageId;
use streamseal_wire::requests::invocation::SealedCompleteRequest;

use crate::pending::Pending;
use crate::runtime::OpenedInvocation;

/// [`OpenedInvocation::seal_reply`] drawing the envelope's iv and `Z` from
/// `rng`.
///
/// # Errors
///
/// As [`OpenedInvocation::seal_reply`]; `RANDOMNESS_UNAVAILABLE` when `rng`
/// runs out.
pub fn seal_reply_with(
    rng: &mut dyn Source,
    opened: &OpenedInvocation,
    message_id: &MessageId,
    text: &str,
) -> Result<SealedCompleteRequest> {
    opened
        .prepare_seal_reply_from(rng, message_id, text)?
        .encrypt(opened.keyring())
}

/// [`Pending::finish`] **without verifying the signature here**: the caller
/// states that a platform's Ed25519 verified it, as
/// [`streamseal_crypto::hazmat::finish_open_verified_elsewhere`] says (read
/// it first). The slot, sender and the flow's checks after decryption hold.
///
/// # Errors
///
/// As [`Pending::finish`], but for a signature that does not verify.
pub fn finish_verified_elsewhere<T>(
    pending: Pending<T>,
    keyring: &Keyring,
    decrypted: zeroize::Zeroizing<Vec<u8>>,
) -> Result<T> {
    pending.finish_verified_elsewhere(keyring, decrypted)
}
