//! Stream keys and the keyring of a root stream.
//!
//! Each sealed root stream owns one AES-256 key per generation. Threads use
//! their root's keyring. The keyring also knows which generation new
//! messages are sealed under (`currentKeyGeneration` of the key-wraps list).
//!
//! ```
//! use streamseal::stream_key::{Keyring, StreamKey};
//!
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! ring.insert(1, StreamKey::generate()?)?;
//! ring.set_current_generation(1)?;
//! assert_eq!(ring.current_generation(), Some(1));
//! assert_eq!(ring.generations(), vec![0, 1]);
//! assert!(format!("{ring:?}").contains("generations: [0, 1]"));
//! # Ok::<(), streamseal::Error>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;

use subtle::ConstantTimeEq as _;
use zeroize::{Zeroize, Zeroizing};

use crate::codec::check_str;
use crate::error::{Error, Result};
use crate::random;

/// Length of a stream key in bytes.
pub const STREAM_KEY_LEN: usize = 32;

/// One generation's AES-256-GCM key. Zeroized on drop, boxed so moves leave
/// no copies, no `Debug` that prints it, not serializable.
pub struct StreamKey(Box<[u8; STREAM_KEY_LEN]>);

impl StreamKey {
    /// A fresh random key.
    pub fn generate() -> Result<Self> {
        let mut key = StreamKey(Box::new([0u8; STREAM_KEY_LEN]));
        random::fill(key.0.as_mut())?;
        Ok(key)
    }

    /// A key from its raw bytes (for example after unwrapping).
    pub fn from_bytes(bytes: &[u8; STREAM_KEY_LEN]) -> Self {
        StreamKey(Box::new(*bytes))
    }

    /// The raw bytes, in a buffer that zeroizes itself. Only key wrapping and
    /// explicit export paths need them.
    pub fn to_bytes(&self) -> Zeroizing<[u8; STREAM_KEY_LEN]> {
        Zeroizing::new(*self.0)
    }

    pub(crate) fn as_array(&self) -> &[u8; STREAM_KEY_LEN] {
        &self.0
    }
}

impl Clone for StreamKey {
    fn clone(&self) -> Self {
        StreamKey::from_bytes(&self.0)
    }
}

impl PartialEq for StreamKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.as_slice().ct_eq(other.0.as_slice()).into()
    }
}

impl Eq for StreamKey {}

impl Drop for StreamKey {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl fmt::Debug for StreamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("StreamKey([redacted])")
    }
}

/// The keys of one root stream, by generation.
#[derive(Clone)]
pub struct Keyring {
    root_stream_id: String,
    keys: BTreeMap<u32, StreamKey>,
    current: Option<u32>,
}

impl Keyring {
    /// An empty keyring for the root stream `root_stream_id`.
    pub fn new(root_stream_id: impl Into<String>) -> Result<Self> {
        let root_stream_id = root_stream_id.into();
        check_str("rootStreamId", &root_stream_id)?;
        Ok(Keyring {
            root_stream_id,
            keys: BTreeMap::new(),
            current: None,
        })
    }

    /// The root stream whose keys these are.
    pub fn root_stream_id(&self) -> &str {
        &self.root_stream_id
    }

    /// Adds the key of `generation`. Adding the same key again is a no-op; a
    /// different key for a held generation is `KEY_GENERATION_CONFLICT`
    /// (slots are immutable on the server, so this means tampering).
    ///
    /// The first key added becomes the current generation; later ones move it
    /// forward only through [`Keyring::set_current_generation`].
    pub fn insert(&mut self, generation: u32, key: StreamKey) -> Result<()> {
        if let Some(held) = self.keys.get(&generation) {
            return if *held == key {
                Ok(())
            } else {
                Err(Error::KeyGenerationConflict { generation })
            };
        }
        self.keys.insert(generation, key);
        if self.current.is_none() {
            self.current = Some(generation);
        }
        Ok(())
    }

    /// Makes `generation` the one new ciphertexts are sealed under.
    pub fn set_current_generation(&mut self, generation: u32) -> Result<()> {
        if !self.keys.contains_key(&generation) {
            return Err(Error::UnknownKeyGeneration { generation });
        }
        self.current = Some(generation);
        Ok(())
    }

    /// Records the generation the stream announces as current
    /// (`currentKeyGeneration`), whether or not its key is held. Sealing then
    /// fails with `UNKNOWN_KEY_GENERATION` until that key arrives, instead of
    /// falling back to an older generation that a removed member can read.
    pub fn set_announced_generation(&mut self, generation: u32) {
        self.current = Some(generation);
    }

    /// The highest generation whose key is held.
    pub fn newest_generation(&self) -> Option<u32> {
        self.keys.keys().next_back().copied()
    }

    /// The generation new ciphertexts are sealed under, if any key is held.
    pub fn current_generation(&self) -> Option<u32> {
        self.current
    }

    /// The key of `generation`.
    pub fn key(&self, generation: u32) -> Result<&StreamKey> {
        self.keys
            .get(&generation)
            .ok_or(Error::UnknownKeyGeneration { generation })
    }

    /// Whether the key of `generation` is held.
    pub fn contains(&self, generation: u32) -> bool {
        self.keys.contains_key(&generation)
    }

    /// The held generations, ascending.
    pub fn generations(&self) -> Vec<u32> {
        self.keys.keys().copied().collect()
    }

    /// Drops every key (after `bot:e2e_revoke`); the keys are zeroized.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.current = None;
    }
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyring")
            .field("root_stream_id", &self.root_stream_id)
            .field("generations", &self.generations())
            .field("current", &self.current)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn debug_is_pinned() {
        let mut ring = Keyring::new("stream_r").unwrap();
        ring.insert(4, StreamKey::from_bytes(&[1; 32])).unwrap();
        assert_eq!(
            format!("{ring:?}"),
            "Keyring { root_stream_id: \"stream_r\", generations: [4], current: Some(4), .. }"
        );
        assert_eq!(
            format!("{:?}", StreamKey::from_bytes(&[1; 32])),
            "StreamKey([redacted])"
        );
    }

    #[test]
    fn conflicts_and_unknown_generations() {
        let mut ring = Keyring::new("r").unwrap();
        ring.insert(0, StreamKey::from_bytes(&[1; 32])).unwrap();
        ring.insert(0, StreamKey::from_bytes(&[1; 32])).unwrap();
        let e = ring.insert(0, StreamKey::from_bytes(&[2; 32])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::KeyGenerationConflict);
        let e = ring.set_current_generation(5).unwrap_err();
        assert_eq!(e.code(), ErrorCode::UnknownKeyGeneration);
        ring.clear();
        assert_eq!(ring.current_generation(), None);
        assert!(ring.key(0).is_err());
    }
}
