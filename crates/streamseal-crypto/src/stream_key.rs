//! Stream keys and the keyring of a root stream.
//!
//! Each sealed root stream owns one AES-256 key per generation. Threads use
//! their root's keyring. The keyring also knows which generation new
//! messages are sealed under (`currentKeyGeneration` of the key-wraps list).
//!
//! ```
//! use streamseal_crypto::stream_key::{Keyring, StreamKey};
//!
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! ring.insert(1, StreamKey::generate()?)?;
//! // Sealing follows the newest generation; nothing lowers it.
//! assert_eq!(ring.current_generation(), Some(1));
//! assert_eq!(ring.generations(), vec![0, 1]);
//! assert!(format!("{ring:?}").contains("generations: [0, 1]"));
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use litemap::LiteMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use subtle::ConstantTimeEq as _;
use zeroize::{Zeroize, Zeroizing};

use crate::codec::check_str;
use crate::error::{CryptoError, CryptoResult};
use crate::random;

/// Length of a stream key in bytes.
pub const STREAM_KEY_LEN: usize = 32;

/// One generation's AES-256-GCM key. Zeroized on drop, boxed so moves leave
/// no copies, no `Debug` that prints it, not serializable.
pub struct StreamKey(Box<[u8; STREAM_KEY_LEN]>);

impl StreamKey {
    /// A fresh random key.
    ///
    /// # Errors
    ///
    /// `RANDOMNESS_UNAVAILABLE` when the system's randomness fails.
    pub fn generate() -> CryptoResult<Self> {
        Self::generate_from(&mut random::OsRng)
    }

    /// [`StreamKey::generate`] from `rng` (public under [`crate::hazmat`]).
    pub(crate) fn generate_from(rng: &mut dyn random::Source) -> CryptoResult<Self> {
        let mut key = StreamKey(Box::new([0u8; STREAM_KEY_LEN]));
        random::fill_from(rng, key.0.as_mut())?;
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

/// How many envelopes one generation may seal, by default: 2^30.
///
/// Envelopes use random 96-bit ivs, so NIST SP 800-38D (section 8.3) allows
/// at most 2^32 encryptions under one key; 2^30 keeps the chance that two
/// ivs collide below 2^-37. The count is per keyring (one device); devices
/// that share a stream each count their own, which the margin covers for up
/// to four. Past it, sealing is `SEAL_BUDGET_EXHAUSTED`: roll the generation.
pub const DEFAULT_SEAL_BUDGET: u64 = 1 << 30;

/// A held key and its seal counter. The counter is shared by clones of the
/// keyring (a runtime's opened invocation seals through a clone of the
/// stream state's keyring, and its seals count in the state).
#[derive(Clone)]
struct Held {
    key: StreamKey,
    seals: Arc<AtomicU64>,
}

/// The keys of one root stream, by generation, and the generation new
/// ciphertexts are sealed under.
///
/// The sealing generation only ever rises: it is the newest generation whose
/// key was added, or a newer one the stream announced whose key has not
/// arrived yet (sealing then fails with `UNKNOWN_KEY_GENERATION` rather than
/// fall back to a key a removed member holds). No public call lowers it.
/// Each generation counts its seals against a budget
/// ([`DEFAULT_SEAL_BUDGET`]).
#[derive(Clone)]
pub struct Keyring {
    root_stream_id: String,
    /// By generation, ascending: a sorted vector (`litemap`), smaller code
    /// than a B-tree in the browser module. An insert below the newest
    /// shifts the entries above it (a few bytes each: the keys are boxed),
    /// and a server can choose the order of a list of wraps but not its
    /// length: each key enters from an authenticated sender's wrap, after an
    /// HPKE open that costs more than the shift, or from the caller. (The
    /// trust store, whose entries a server chooses freely, keeps B-trees.)
    keys: LiteMap<u32, Held>,
    announced: Option<u32>,
    /// Ascending, each once.
    conflicted: Vec<u32>,
    seal_budget: u64,
    /// Set by [`Keyring::clear`]; shared by clones, so a copy a runtime's
    /// opened invocation holds stops opening and sealing when the stream's
    /// keys are dropped.
    dropped: Arc<AtomicBool>,
}

impl Keyring {
    /// An empty keyring for the root stream `root_stream_id`.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `root_stream_id` is empty or over 1024 bytes.
    pub fn new(root_stream_id: impl Into<String>) -> CryptoResult<Self> {
        let root_stream_id = root_stream_id.into();
        check_str("rootStreamId", &root_stream_id)?;
        Ok(Keyring {
            root_stream_id,
            keys: LiteMap::new(),
            announced: None,
            conflicted: Vec::new(),
            seal_budget: DEFAULT_SEAL_BUDGET,
            dropped: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The root stream whose keys these are.
    pub fn root_stream_id(&self) -> &str {
        &self.root_stream_id
    }

    /// Adds the key of `generation` (a key the caller made, or one admitted
    /// from an accepted sender). Adding the same key again is a no-op; a
    /// different key for a held generation is `KEY_GENERATION_CONFLICT`, and
    /// the key held is kept. The sealing generation rises to `generation`
    /// when it is newer.
    ///
    /// # Errors
    ///
    /// `KEY_GENERATION_CONFLICT` when a different key is held for `generation`.
    pub fn insert(&mut self, generation: u32, key: StreamKey) -> CryptoResult<()> {
        if let Some(held) = self.keys.get(&generation) {
            return if held.key == key {
                Ok(())
            } else {
                Err(CryptoError::KeyGenerationConflict { generation })
            };
        }
        self.keys.insert(
            generation,
            Held {
                key,
                seals: Arc::new(AtomicU64::new(0)),
            },
        );
        Ok(())
    }

    /// Records that the stream announces `generation` as current
    /// (`currentKeyGeneration`, `reply.keyGeneration`). An announcement only
    /// raises the sealing generation, and while its key is missing sealing
    /// fails instead of falling back to an older key. It is the server's word,
    /// so it is never persisted and never counts as a generation held.
    pub fn announce(&mut self, generation: u32) {
        self.announced = Some(self.announced.map_or(generation, |a| a.max(generation)));
    }

    /// Forgets announcements (after this member made the newest generation itself).
    pub fn clear_announced(&mut self) {
        self.announced = None;
    }

    /// Marks `generation` as conflicted: two senders gave two different keys
    /// for it, so nothing is sealed under it.
    pub fn mark_conflicted(&mut self, generation: u32) {
        if let Err(at) = self.conflicted.binary_search(&generation) {
            self.conflicted.insert(at, generation);
        }
    }

    /// Generations for which conflicting keys were offered; never sealed under.
    pub fn conflicted_generations(&self) -> Vec<u32> {
        self.conflicted.clone()
    }

    /// The highest generation whose key is held.
    pub fn newest_generation(&self) -> Option<u32> {
        self.keys.last().map(|(generation, _)| *generation)
    }

    /// The generation new ciphertexts are sealed under (the newest held, or a
    /// newer one announced whose key has not arrived).
    pub fn current_generation(&self) -> Option<u32> {
        match (self.newest_generation(), self.announced) {
            (Some(held), Some(announced)) => Some(held.max(announced)),
            (held, announced) => held.or(announced),
        }
    }

    /// The key of `generation`.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` when no key of `generation` is held, or the
    /// keyring was cleared.
    pub fn key(&self, generation: u32) -> CryptoResult<&StreamKey> {
        if self.dropped.load(Ordering::Relaxed) {
            return Err(CryptoError::UnknownKeyGeneration { generation });
        }
        self.keys
            .get(&generation)
            .map(|h| &h.key)
            .ok_or(CryptoError::UnknownKeyGeneration { generation })
    }

    /// A non-secret identifier of the key held for `generation`, for caches
    /// outside the library that hold the key in another form (the npm
    /// package's WebCrypto `CryptoKey`s): `HKDF-SHA256(salt =
    /// "streamseal/key-tag", ikm = key, info = u32 generation)`, 16 bytes.
    /// One-way: it reveals nothing of the key, and two keys of a generation
    /// (a keyring cleared and given another) have two tags.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION`, as [`Keyring::key`].
    pub fn key_tag(&self, generation: u32) -> CryptoResult<[u8; 16]> {
        let key = self.key(generation)?;
        let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(b"streamseal/key-tag"), key.as_array());
        let mut tag = [0u8; 16];
        // 16 bytes is far below HKDF-SHA256's limit.
        let _ = hk.expand(&generation.to_be_bytes(), &mut tag);
        Ok(tag)
    }

    /// The key to seal under now, counted against the generation's budget:
    /// `UNKNOWN_KEY_GENERATION` when the current generation's key is not
    /// held, `KEY_GENERATION_CONFLICT` when it is conflicted,
    /// `SEAL_BUDGET_EXHAUSTED` past the budget.
    pub(crate) fn key_for_sealing(&self) -> CryptoResult<(u32, &StreamKey)> {
        let generation = self
            .current_generation()
            .ok_or(CryptoError::UnknownKeyGeneration { generation: 0 })?;
        if self.conflicted.binary_search(&generation).is_ok() {
            return Err(CryptoError::KeyGenerationConflict { generation });
        }
        if self.dropped.load(Ordering::Relaxed) {
            return Err(CryptoError::UnknownKeyGeneration { generation });
        }
        let held = self
            .keys
            .get(&generation)
            .ok_or(CryptoError::UnknownKeyGeneration { generation })?;
        let budget = self.seal_budget;
        held.seals
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                (n < budget).then_some(n.saturating_add(1))
            })
            .map_err(|_| CryptoError::SealBudgetExhausted { generation, budget })?;
        Ok((generation, &held.key))
    }

    /// How many envelopes this keyring has sealed under `generation`.
    pub fn seal_count(&self, generation: u32) -> u64 {
        self.keys
            .get(&generation)
            .map_or(0, |h| h.seals.load(Ordering::Relaxed))
    }

    /// Restores the count of seals under `generation` that a persisted state
    /// recorded (the sealed layer's `StreamState::from_bytes`). Setting it
    /// lower than the truth lets the keyring seal past its budget: restore
    /// only what was persisted.
    pub fn set_seal_count(&mut self, generation: u32, count: u64) {
        if let Some(h) = self.keys.get_mut(&generation) {
            h.seals = Arc::new(AtomicU64::new(count));
        }
    }

    /// The seal budget per generation ([`DEFAULT_SEAL_BUDGET`] unless lowered).
    pub fn seal_budget(&self) -> u64 {
        self.seal_budget
    }

    /// Lowers the seal budget per generation (a cautious app, or a test of
    /// the limit). It can never be raised above [`DEFAULT_SEAL_BUDGET`].
    pub fn lower_seal_budget(&mut self, budget: u64) {
        self.seal_budget = self.seal_budget.min(budget);
    }

    /// Whether the key of `generation` is held.
    pub fn contains(&self, generation: u32) -> bool {
        self.keys.contains_key(&generation)
    }

    /// The held generations, ascending.
    pub fn generations(&self) -> Vec<u32> {
        self.keys.keys().copied().collect()
    }

    /// Drops every key (after `bot:e2e_revoke`); the keys are zeroized, and
    /// every clone made before (an opened invocation's copy) stops opening
    /// and sealing too. Keys added afterwards are this keyring's alone.
    pub fn clear(&mut self) {
        self.dropped.store(true, Ordering::Relaxed);
        self.dropped = Arc::new(AtomicBool::new(false));
        self.keys.clear();
        self.announced = None;
        self.conflicted.clear();
    }
}

impl fmt::Debug for Keyring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Keyring")
            .field("root_stream_id", &self.root_stream_id)
            .field("generations", &self.generations())
            .field("current", &self.current_generation())
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
    fn generations_stay_ascending_and_distinct_in_any_insertion_order() {
        // The keys and the conflicted generations are sorted vectors: each
        // insert must land in order, not at the end.
        let mut ring = Keyring::new("r").unwrap();
        for generation in [7u32, 2, 9, 0, 5, 2, 9] {
            let byte = u8::try_from(generation).unwrap();
            ring.insert(generation, StreamKey::from_bytes(&[byte; 32]))
                .unwrap();
        }
        assert_eq!(ring.generations(), vec![0, 2, 5, 7, 9]);
        assert_eq!(ring.newest_generation(), Some(9));
        for generation in [0u32, 2, 5, 7, 9] {
            let byte = u8::try_from(generation).unwrap();
            assert!(ring.key(generation).unwrap() == &StreamKey::from_bytes(&[byte; 32]));
        }
        assert!(!ring.contains(3));
        for generation in [6u32, 1, 6, 4, 1] {
            ring.mark_conflicted(generation);
        }
        assert_eq!(ring.conflicted_generations(), vec![1, 4, 6]);
        ring.clear();
        assert!(ring.generations().is_empty());
        assert!(ring.conflicted_generations().is_empty());
    }

    #[test]
    fn seal_budget_is_enforced_and_only_lowered() {
        let mut ring = Keyring::new("r").unwrap();
        ring.insert(0, StreamKey::from_bytes(&[1; 32])).unwrap();
        ring.lower_seal_budget(2);
        ring.lower_seal_budget(u64::MAX);
        assert_eq!(ring.seal_budget(), 2);
        assert!(ring.key_for_sealing().is_ok());
        assert!(ring.key_for_sealing().is_ok());
        let e = ring.key_for_sealing().unwrap_err();
        assert_eq!(e.code(), ErrorCode::SealBudgetExhausted);
        assert_eq!(ring.seal_count(0), 2);
        ring.mark_conflicted(0);
        assert_eq!(
            ring.key_for_sealing().unwrap_err().code(),
            ErrorCode::KeyGenerationConflict
        );
    }

    #[test]
    fn conflicts_and_unknown_generations() {
        let mut ring = Keyring::new("r").unwrap();
        ring.insert(0, StreamKey::from_bytes(&[1; 32])).unwrap();
        ring.insert(0, StreamKey::from_bytes(&[1; 32])).unwrap();
        let e = ring.insert(0, StreamKey::from_bytes(&[2; 32])).unwrap_err();
        assert_eq!(e.code(), ErrorCode::KeyGenerationConflict);
        ring.announce(5);
        let e = ring.key_for_sealing().unwrap_err();
        assert_eq!(e.code(), ErrorCode::UnknownKeyGeneration);
        ring.announce(1);
        assert_eq!(ring.current_generation(), Some(5));
        ring.clear_announced();
        assert_eq!(ring.current_generation(), Some(0));
        let copy = ring.clone();
        assert!(copy.key(0).is_ok());
        ring.clear();
        // The copy made before is dropped with it.
        assert_eq!(
            copy.key(0).unwrap_err().code(),
            ErrorCode::UnknownKeyGeneration
        );
        assert_eq!(
            copy.key_for_sealing().unwrap_err().code(),
            ErrorCode::UnknownKeyGeneration
        );
        ring.insert(3, StreamKey::from_bytes(&[3; 32])).unwrap();
        assert!(ring.key(3).is_ok());
        assert!(copy.key(0).is_err());
        ring.clear();
        assert_eq!(ring.current_generation(), None);
        assert!(ring.key_for_sealing().is_err());
        assert!(ring.key(0).is_err());
    }
}
