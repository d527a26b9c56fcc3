//! Envelopes: sealing a plaintext into its slot, and opening it again.
//!
//! A sealed payload travels as `{ciphertext, envelope: {v, keyGeneration, iv, aad}}`,
//! every binary value in padded base64. The ciphertext is AES-256-GCM under
//! the keyring's key of `keyGeneration`, with a fresh random 96-bit `iv`, and
//! the [`crate::aad`] encoding of the slot as additional data.
//!
//! Opening never trusts `aad` alone: the opener states the slot it expects
//! (or, knowing only part of it, a check over the parsed slot), the root
//! stream comes from its keyring, and the generation from the envelope must
//! equal the one inside the AAD.
//!
//! ```
//! use streamseal::envelope::{open, seal};
//! use streamseal::slot::Slot;
//! use streamseal::stream_key::{Keyring, StreamKey};
//!
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! let slot = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_1".into(),
//!     author_id: "usr_1".into(),
//!     revision: 1,
//! };
//! let sealed = seal(&ring, &slot, b"hello")?;
//! assert_eq!(&*open(&ring, &slot, &sealed)?, b"hello");
//!
//! // The server moves it to another message: rejected.
//! let moved = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_2".into(),
//!     author_id: "usr_1".into(),
//!     revision: 1,
//! };
//! assert_eq!(open(&ring, &moved, &sealed).unwrap_err().code().as_str(), "AAD_MISMATCH");
//! # Ok::<(), streamseal::Error>(())
//! ```

use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

use crate::aad::{self, AadContents, MAX_AAD_LEN};
use crate::aead::{self, IV_LEN, TAG_LEN};
use crate::encoding::{decode_base64_array, decode_base64_bounded, encode_base64};
use crate::error::{Error, Result};
use crate::random;
use crate::slot::Slot;
use crate::stream_key::Keyring;

/// The only envelope version this library writes and reads.
pub const ENVELOPE_VERSION: u32 = 1;

/// Largest plaintext sealed or opened (4 MiB): a message is at most 50 000
/// characters; this bound keeps hostile ciphertexts from costing memory.
pub const MAX_PLAINTEXT_LEN: usize = 4 * 1024 * 1024;

/// Largest ciphertext accepted: the plaintext bound plus the tag.
pub const MAX_CIPHERTEXT_LEN: usize = MAX_PLAINTEXT_LEN + TAG_LEN;

/// The envelope of a sealed payload, as the wire carries it. Values are kept
/// as text so that a list containing one odd envelope still parses; they are
/// checked strictly when the payload is opened.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct Envelope {
    /// Envelope version (1).
    pub v: u32,
    /// The key generation the ciphertext is sealed under.
    pub key_generation: u32,
    /// The 12-byte AES-GCM nonce, base64.
    pub iv: String,
    /// The AAD bytes, base64.
    pub aad: String,
}

/// `{ciphertext, envelope}`: what every sealed surface of the API carries.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SealedPayload {
    /// `ciphertext || tag`, base64.
    pub ciphertext: String,
    /// The envelope.
    pub envelope: Envelope,
}

impl Envelope {
    /// Parses an envelope from a JSON object (unknown fields are ignored).
    pub fn from_json(json: &str) -> Result<Self> {
        from_json_object(json)
    }

    /// Serialises the envelope as compact JSON.
    pub fn to_json(&self) -> String {
        // Serialising a struct of strings and integers cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl SealedPayload {
    /// Parses `{ciphertext, envelope}` from a JSON object (unknown fields are ignored).
    pub fn from_json(json: &str) -> Result<Self> {
        from_json_object(json)
    }

    /// Serialises as compact JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

/// Parses a JSON document that must be an object. serde's derived
/// `Deserialize` would also take a struct as a positional array, a second
/// spelling of the wire shape; the entry points refuse it. (Nested values keep
/// serde's behaviour; the spelling of JSON never affects what the AAD binds.)
fn from_json_object<T: serde::de::DeserializeOwned>(json: &str) -> Result<T> {
    if !json.trim_start().starts_with('{') {
        return Err(Error::MalformedJson {
            reason: "expected a JSON object".to_owned(),
        });
    }
    serde_json::from_str(json).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

/// Seals `plaintext` into `slot` under the keyring's current generation
/// (the newest it holds; see [`Keyring`]), counted against that generation's
/// seal budget.
pub fn seal(keyring: &Keyring, slot: &Slot, plaintext: &[u8]) -> Result<SealedPayload> {
    if plaintext.len() > MAX_PLAINTEXT_LEN {
        return Err(Error::InputTooLarge {
            field: "plaintext",
            limit: MAX_PLAINTEXT_LEN,
            actual: plaintext.len(),
        });
    }
    let version = envelope_version_byte();
    let generation = keyring
        .current_generation()
        .ok_or(Error::UnknownKeyGeneration { generation: 0 })?;
    let aad_bytes = aad::encode(version, keyring.root_stream_id(), generation, slot)?;
    let (generation, key) = keyring.key_for_sealing()?;
    let iv = random::array::<IV_LEN>()?;
    let ciphertext = aead::seal(key.as_array(), &iv, plaintext, &aad_bytes)?;
    Ok(SealedPayload {
        ciphertext: encode_base64(&ciphertext),
        envelope: Envelope {
            v: ENVELOPE_VERSION,
            key_generation: generation,
            iv: encode_base64(&iv),
            aad: encode_base64(&aad_bytes),
        },
    })
}

fn envelope_version_byte() -> u8 {
    // ENVELOPE_VERSION is 1; the AAD carries it as one byte.
    u8::try_from(ENVELOPE_VERSION).unwrap_or(u8::MAX)
}

/// Opens a payload whose slot the caller knows completely.
///
/// The AAD is recomputed from `expected`, the keyring's root stream and the
/// envelope's generation, and must equal the envelope's `aad` byte for byte.
pub fn open(
    keyring: &Keyring,
    expected: &Slot,
    sealed: &SealedPayload,
) -> Result<Zeroizing<Vec<u8>>> {
    let (_, plaintext) = open_matching(keyring, sealed, |slot| slot == expected)?;
    Ok(plaintext)
}

/// Opens a payload whose slot the caller knows only in part (a history item
/// carries a sequence but no message id): the AAD is parsed strictly, its
/// version, root stream and generation are checked against the envelope and
/// keyring, `accept` decides on the slot, and the slot is returned with the
/// plaintext so the caller learns the fields the AAD carried.
pub fn open_matching(
    keyring: &Keyring,
    sealed: &SealedPayload,
    accept: impl FnOnce(&Slot) -> bool,
) -> Result<(Slot, Zeroizing<Vec<u8>>)> {
    let envelope = &sealed.envelope;
    if envelope.v != ENVELOPE_VERSION {
        return Err(Error::UnsupportedEnvelopeVersion {
            version: u64::from(envelope.v),
        });
    }
    let iv = decode_base64_array::<IV_LEN>("iv", &envelope.iv)?;
    let aad_bytes = decode_base64_bounded("aad", &envelope.aad, MAX_AAD_LEN)?;
    let ciphertext = decode_base64_bounded("ciphertext", &sealed.ciphertext, MAX_CIPHERTEXT_LEN)?;
    let contents = aad::parse(&aad_bytes)?;
    check_binding(&contents, keyring, envelope)?;
    if !accept(&contents.slot) {
        return Err(Error::AadMismatch { what: "slot" });
    }
    // Re-encode what was checked and authenticate exactly those bytes.
    let expected = aad::encode(
        contents.version,
        &contents.root_stream_id,
        contents.key_generation,
        &contents.slot,
    )?;
    if expected != aad_bytes {
        return Err(Error::MalformedAad {
            reason: "not in canonical form",
        });
    }
    let key = keyring.key(envelope.key_generation)?;
    // Decrypted where it was decoded: one buffer, no copy of the message.
    let plaintext = aead::open_in_place(key.as_array(), &iv, ciphertext, &expected)?;
    Ok((contents.slot, Zeroizing::new(plaintext)))
}

fn check_binding(contents: &AadContents, keyring: &Keyring, envelope: &Envelope) -> Result<()> {
    if u32::from(contents.version) != envelope.v {
        return Err(Error::AadMismatch {
            what: "envelope version",
        });
    }
    if contents.root_stream_id != keyring.root_stream_id() {
        return Err(Error::AadMismatch {
            what: "root stream",
        });
    }
    if contents.key_generation != envelope.key_generation {
        return Err(Error::AadMismatch {
            what: "key generation",
        });
    }
    Ok(())
}
