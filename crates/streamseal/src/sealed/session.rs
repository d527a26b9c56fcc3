//! Key generations of a sealed stream: generation 0 of a new sealed
//! session, and rolling the generation when membership changes.
//!
//! **A new sealed session.** `POST bot-runtime/sessions` with `e2e
//! {ownerKeyId}` creates the scratchpad encrypted; the runtime then makes
//! generation 0 with [`generation_zero`], wrapped to the owner's key
//! (`GET bot-runtime/owner-e2e-key`, see [`owner_recipient`]) and to each of
//! the bot's registered keys, and posts [`NewGeneration::request`] to
//! `POST streams/{rootStreamId}/e2e/key-wraps`.
//!
//! **A 409 there means an earlier attempt landed** (slots are immutable: a
//! generation takes wraps once). The caller must then discard the key it just
//! made, never seal with it, and open the stored wraps instead:
//! `GET streams/{id}/e2e/key-wraps` and [`crate::sealed::keyring::open_key_wraps`].
//! If none of the stored wraps is addressed to the runtime's current keys, it
//! cannot read the stream and must ask the owner to re-invite it.
//!
//! **Rolling.** Inviting or removing a recipient rolls the generation:
//! [`roll_generation`] makes the key of the next generation, wraps it to the
//! remaining recipients only, and makes it current in the keyring. Older
//! generations stay readable to those who had them; the removed member
//! cannot read anything sealed under the new one.

use crate::error::{Error, Result};
use crate::identity::{KeyId, Recipient, RecipientKind};
use crate::stream_key::{Keyring, StreamKey};
use crate::wire::keys::OwnerKey;
use crate::wire::requests::streams::PostKeyWrapsRequest;
use crate::wrap::{KeyWrap, wrap_stream_key};

/// A new generation: its wraps, and the request body that stores them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct NewGeneration {
    /// The generation made.
    pub key_generation: u32,
    /// One wrap per recipient.
    pub wraps: Vec<KeyWrap>,
    /// `POST streams/{rootStreamId}/e2e/key-wraps` body.
    pub request: PostKeyWrapsRequest,
}

/// The owner's key as a recipient (kind `user`).
pub fn owner_recipient(owner: &OwnerKey) -> Result<Recipient> {
    Ok(Recipient {
        kind: RecipientKind::User,
        key_id: KeyId::new(owner.key_id.clone())?,
        public_key: owner.public_key,
    })
}

fn wrap_all(
    root: &str,
    generation: u32,
    key: &StreamKey,
    recipients: &[Recipient],
) -> Result<Vec<KeyWrap>> {
    if recipients.is_empty() {
        return Err(Error::invalid(
            "wraps",
            "a generation needs at least one recipient",
        ));
    }
    recipients
        .iter()
        .map(|r| wrap_stream_key(root, generation, key, r))
        .collect()
}

/// Generation 0 of a new sealed stream, wrapped to `recipients`; returns the
/// keyring (generation 0 current) and the wraps to post.
pub fn generation_zero(
    root_stream_id: &str,
    recipients: &[Recipient],
) -> Result<(Keyring, NewGeneration)> {
    let key = StreamKey::generate()?;
    let wraps = wrap_all(root_stream_id, 0, &key, recipients)?;
    let mut keyring = Keyring::new(root_stream_id)?;
    keyring.insert(0, key)?;
    keyring.set_current_generation(0)?;
    let generation = NewGeneration {
        request: PostKeyWrapsRequest::from_wraps(0, &wraps),
        key_generation: 0,
        wraps,
    };
    Ok((keyring, generation))
}

/// Rolls `keyring` to the next generation (one above the newest held),
/// wrapped to `recipients` (the members that remain, or with the new one).
/// Returns the new generation's wraps and request; `keyring` keeps every
/// older key and seals under the new one from now on.
pub fn roll_generation(keyring: &mut Keyring, recipients: &[Recipient]) -> Result<NewGeneration> {
    let next = match keyring.newest_generation() {
        Some(g) => g
            .checked_add(1)
            .ok_or_else(|| Error::invalid("keyGeneration", "no generation after u32::MAX"))?,
        None => 0,
    };
    let key = StreamKey::generate()?;
    let wraps = wrap_all(keyring.root_stream_id(), next, &key, recipients)?;
    keyring.insert(next, key)?;
    keyring.set_current_generation(next)?;
    Ok(NewGeneration {
        request: PostKeyWrapsRequest::from_wraps(next, &wraps),
        key_generation: next,
        wraps,
    })
}
