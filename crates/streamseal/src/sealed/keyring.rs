//! Keyrings from `GET streams/{id}/e2e/key-wraps`.
//!
//! Ask for the root stream (threads use their root's key). The wraps
//! addressed to one of the caller's keys are opened into the keyring of the
//! root; wraps addressed to others are passed over; a wrap addressed to the
//! caller that does not open is reported in [`OpenedKeyring::skipped`] (a
//! hostile server could add such wraps; they must not lock the user out).
//!
//! The generation new ciphertexts are sealed under is the larger of
//! `currentKeyGeneration` and the newest generation held: a server cannot
//! roll a client back to a generation a removed member can read, and when
//! the announced generation's wrap is missing, sealing fails
//! (`UNKNOWN_KEY_GENERATION`) instead of falling back to an older key.
//!
//! ```
//! use streamseal::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
//! use streamseal::sealed::{keyring::open_key_wraps, session};
//! use streamseal::wire::keys::KeyWraps;
//! use streamseal::wrap::KeyWrap;
//!
//! let me = IdentityKey::generate(RecipientKind::User, KeyId::new("k1")?)?;
//! let (_, new) = session::generation_zero("stream_r", &[Recipient::of(&me)])?;
//! let listed = KeyWraps {
//!     current_key_generation: 0,
//!     owner_user_id: "usr_1".into(),
//!     wraps: new.wraps.clone(),
//! };
//! let opened = open_key_wraps("stream_r", &listed, &[me])?;
//! assert_eq!(opened.keyring.generations(), vec![0]);
//! assert!(opened.skipped.is_empty());
//! # Ok::<(), streamseal::Error>(())
//! ```

use crate::error::{Error, ErrorCode, Result};
use crate::identity::IdentityKey;
use crate::stream_key::Keyring;
use crate::wire::keys::KeyWraps;
use crate::wrap::{KeyWrap, unwrap_stream_key};

/// A wrap addressed to the caller that did not open.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct SkippedWrap {
    /// Its generation.
    pub key_generation: u32,
    /// Why it did not open.
    pub code: ErrorCode,
}

/// The keyring of a root stream opened from its wraps.
#[derive(Debug)]
pub struct OpenedKeyring {
    /// The keyring, its current generation set (see the module docs).
    pub keyring: Keyring,
    /// Wraps addressed to the caller that did not open.
    pub skipped: Vec<SkippedWrap>,
}

fn addressed_to(wrap: &KeyWrap, mine: &[IdentityKey]) -> bool {
    match &wrap.recipient_key_id {
        None => true,
        Some(id) => mine.iter().any(|k| k.key_id().as_str() == id),
    }
}

/// Opens into `keyring` every wrap of `wraps` addressed to one of `mine`.
/// Two different keys for one generation are `KEY_GENERATION_CONFLICT`.
pub fn add_wraps(
    keyring: &mut Keyring,
    wraps: &[KeyWrap],
    mine: &[IdentityKey],
) -> Result<Vec<SkippedWrap>> {
    let mut skipped = Vec::new();
    for wrap in wraps.iter().filter(|w| addressed_to(w, mine)) {
        match unwrap_stream_key(keyring.root_stream_id(), wrap, mine) {
            Ok(key) => keyring.insert(wrap.key_generation, key)?,
            Err(e @ Error::TooManyKeys { .. }) => return Err(e),
            Err(e) => skipped.push(SkippedWrap {
                key_generation: wrap.key_generation,
                code: e.code(),
            }),
        }
    }
    Ok(skipped)
}

/// Sets the generation to seal under: the larger of `announced` and the
/// newest held.
pub fn announce(keyring: &mut Keyring, announced: u32) {
    let current = keyring
        .newest_generation()
        .map_or(announced, |held| held.max(announced));
    keyring.set_announced_generation(current);
}

/// Opens the key-wraps list of `root_stream_id` with the caller's keys.
pub fn open_key_wraps(
    root_stream_id: &str,
    wraps: &KeyWraps,
    mine: &[IdentityKey],
) -> Result<OpenedKeyring> {
    let mut keyring = Keyring::new(root_stream_id)?;
    let skipped = add_wraps(&mut keyring, &wraps.wraps, mine)?;
    announce(&mut keyring, wraps.current_key_generation);
    Ok(OpenedKeyring { keyring, skipped })
}
