//! Risky APIs, kept apart (vodozemac's `hazmat`): each is sound only for the
//! use its doc names, and none belongs in an app's normal flow.
//!
//! - **Fixed randomness.** [`FixedRandomness`] hands out given bytes as if
//!   they were random, and the `*_with` operations draw from the generator
//!   they are given instead of the operating system. They exist so that the
//!   golden vectors (`tests/vectors/streamseal/`) can be made and reproduced
//!   byte for byte, in Rust and through every binding. Sealing twice with the
//!   same bytes reuses an AES-GCM nonce and an XEdDSA nonce: it reveals the
//!   plaintexts' XOR and lets a forger sign. Never pass anything but the
//!   operating system's generator ([`crate::random::OsRng`]) outside tests.
//! - **Raw AES-256-GCM** with a caller's iv, for the official vectors.
//! - **A bundle below the creation floor**, which stands for a record made
//!   before the floor existed.
//! - **An open whose signature a platform verified**
//!   ([`finish_open_verified_elsewhere`]): the npm package's async opens
//!   verify the sender's signature with WebCrypto's Ed25519 (native, off the
//!   main thread) and tell the core so. Sound only when the caller ran that
//!   verify, over exactly the signed input the core names, under exactly the
//!   key it names; anything else hands out an unauthenticated plaintext
//!   under a sender's name.
//! - **X25519 a platform computed** ([`PlatformDh`]): the npm package's
//!   async key-wrap opens run `DH(skR, enc)` of HPKE's `AuthDecap` in
//!   WebCrypto (native, off the main thread) and hand the results in. Sound
//!   only when each result is X25519 of exactly the key and `enc` it is
//!   filed under; a wrong one makes the wrap fail to open. `DH(skR, pkS)` is
//!   never taken from a platform (computed here, or kept in a key's
//!   [`SenderDh`] from an earlier open): so no platform result, even a wrong
//!   one the server can predict, opens a wrap its sender did not make, which
//!   needs `DH(skR, pkS)`, known only to the two key holders.
//!
//! What each operation draws, in order:
//! - [`seal_envelope_with`] and [`prepare_seal_with`]: 12 iv bytes, then
//!   the signature's 64 bytes `Z`;
//! - [`sign_with`]: 64 bytes `Z`;
//! - [`wrap_stream_key_with`]: 32 bytes of HPKE ephemeral key material (`ikmE`);
//! - [`create_bundle_with`] and [`seal_bundle_below_floor_with`]: 16 salt
//!   bytes, then 12 iv bytes;
//! - [`generate_stream_key_with`], [`generate_secret_key_with`]: 32 bytes.
//!
//! ```
//! use streamseal_crypto::hazmat::{self, FixedRandomness};
//! use streamseal_crypto::ErrorCode;
//!
//! let mut rng = FixedRandomness::new(&[7; 32]);
//! let key = hazmat::generate_stream_key_with(&mut rng)?;
//! assert_eq!(key.to_bytes().as_slice(), &[7; 32]);
//! assert_eq!(rng.remaining(), 0);
//! // Running out is RANDOMNESS_UNAVAILABLE, as a failing system generator is.
//! let err = hazmat::generate_stream_key_with(&mut FixedRandomness::new(&[7; 31])).unwrap_err();
//! assert_eq!(err.code(), ErrorCode::RandomnessUnavailable);
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use crate::bundle::SealedBundle;
use crate::envelope::{Opened, PendingOpen, SealedPayload};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{IdentityKey, Recipient, SecretKey};
use crate::kdf::KdfParams;
use crate::random::{Source, TryCryptoRng, TryRng};
use crate::sender::Signer;
use crate::signature::Signature;
use crate::slot::Slot;
use crate::stream_key::{Keyring, StreamKey};
use crate::wrap::KeyWrap;

/// Given bytes, handed out in order as if they were random (see the module
/// docs for why this is hazardous). Drawing more than is left fails, and
/// nothing is drawn then.
pub struct FixedRandomness<'a> {
    rest: &'a [u8],
}

impl<'a> FixedRandomness<'a> {
    /// The generator that hands out `bytes`.
    pub fn new(bytes: &'a [u8]) -> Self {
        FixedRandomness { rest: bytes }
    }

    /// How many bytes are left.
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }
}

/// The bytes are not printed: they stand in for secrets (nonces, keys).
impl fmt::Debug for FixedRandomness<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FixedRandomness({} bytes left)", self.rest.len())
    }
}

/// A [`FixedRandomness`] has fewer bytes left than were asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exhausted;

impl fmt::Display for Exhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the fixed randomness is exhausted")
    }
}

impl std::error::Error for Exhausted {}

impl TryRng for FixedRandomness<'_> {
    type Error = Exhausted;

    fn try_next_u32(&mut self) -> Result<u32, Exhausted> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Exhausted> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Exhausted> {
        let (head, tail) = self.rest.split_at_checked(dst.len()).ok_or(Exhausted)?;
        dst.copy_from_slice(head);
        self.rest = tail;
        Ok(())
    }
}

/// Not secure: a marker so that the library's operations accept it (see the
/// module docs).
impl TryCryptoRng for FixedRandomness<'_> {}

/// Runs `f` with `bytes` as its only randomness, which it must draw to the
/// last byte: what the bindings' hazmat exports call, so that a vector's
/// `randomHex` is checked to be exactly what the operation draws.
///
/// # Errors
///
/// `f`'s error, of `f`'s type (`RANDOMNESS_UNAVAILABLE` when it draws more
/// than `bytes`);
/// `INVALID_LENGTH` for `randomness` when it draws less.
pub fn drawing_exactly<T, E: From<CryptoError>>(
    bytes: &[u8],
    f: impl FnOnce(&mut FixedRandomness<'_>) -> Result<T, E>,
) -> Result<T, E> {
    let mut rng = FixedRandomness::new(bytes);
    let out = f(&mut rng)?;
    match rng.remaining() {
        0 => Ok(out),
        left => {
            Err(
                CryptoError::length("randomness", bytes.len().saturating_sub(left), bytes.len())
                    .into(),
            )
        }
    }
}

/// [`crate::envelope::seal`] drawing from `rng`.
///
/// # Errors
///
/// As [`crate::envelope::seal`]; `RANDOMNESS_UNAVAILABLE` when `rng` runs out.
pub fn seal_envelope_with(
    rng: &mut dyn Source,
    keyring: &Keyring,
    signer: &Signer<'_>,
    slot: &Slot,
    plaintext: &[u8],
) -> CryptoResult<SealedPayload> {
    crate::envelope::seal_from(rng, keyring, signer, slot, plaintext)
}

/// [`crate::envelope::prepare_seal`] drawing from `rng` (the same draws as
/// [`seal_envelope_with`], in the same order).
///
/// # Errors
///
/// As [`crate::envelope::prepare_seal`]; `RANDOMNESS_UNAVAILABLE` when `rng`
/// runs out.
pub fn prepare_seal_with(
    rng: &mut dyn Source,
    keyring: &Keyring,
    signer: &Signer<'_>,
    slot: &Slot,
    plaintext: &[u8],
) -> CryptoResult<crate::envelope::PendingSeal> {
    crate::envelope::prepare_seal_from(rng, keyring, signer, slot, plaintext)
}

/// [`crate::signature::sign`] drawing `Z` from `rng`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when `rng` runs out.
pub fn sign_with(
    rng: &mut dyn Source,
    key: &IdentityKey,
    message: &[u8],
) -> CryptoResult<Signature> {
    crate::signature::sign_from(rng, key, message)
}

/// [`crate::wrap::wrap_stream_key`] drawing `ikmE` from `rng`.
///
/// # Errors
///
/// As [`crate::wrap::wrap_stream_key`]; `RANDOMNESS_UNAVAILABLE` when `rng`
/// runs out.
pub fn wrap_stream_key_with(
    rng: &mut dyn Source,
    root_stream_id: &str,
    generation: u32,
    key: &StreamKey,
    sender: &IdentityKey,
    recipient: &Recipient,
) -> CryptoResult<KeyWrap> {
    crate::wrap::wrap_stream_key_from(rng, root_stream_id, generation, key, sender, recipient)
}

/// [`crate::bundle::create_bundle`] (with its creation floor) drawing the
/// salt and iv from `rng`.
///
/// # Errors
///
/// As [`crate::bundle::create_bundle`]; `RANDOMNESS_UNAVAILABLE` when `rng`
/// runs out.
pub fn create_bundle_with(
    rng: &mut dyn Source,
    secret: &SecretKey,
    passphrase: &str,
    params: &KdfParams,
) -> CryptoResult<SealedBundle> {
    params.check_for_new_bundle()?;
    crate::bundle::seal_bundle_from(rng, secret, passphrase, params)
}

/// A bundle sealed exactly as [`crate::bundle::create_bundle`] seals it,
/// with `params` checked only against the caps on *opening*
/// (`KdfLimits::default`), not the creation floor (m = 19 MiB, t = 2, p = 1).
///
/// It stands for a record made before the floor existed, which opening must
/// keep accepting: tests of opening that open a bundle many times, and the
/// fuzz targets, use it so as not to wait in Argon2 at every open. Every
/// record an app stores goes through `create_bundle` and its floor.
///
/// # Errors
///
/// `KDF_PARAMS_OUT_OF_BOUNDS` or `UNSUPPORTED_KDF` past the opening caps;
/// `RANDOMNESS_UNAVAILABLE` when `rng` runs out.
pub fn seal_bundle_below_floor_with(
    rng: &mut dyn Source,
    secret: &SecretKey,
    passphrase: &str,
    params: &KdfParams,
) -> CryptoResult<SealedBundle> {
    crate::bundle::seal_bundle_from(rng, secret, passphrase, params)
}

/// [`StreamKey::generate`] from `rng`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when `rng` runs out.
pub fn generate_stream_key_with(rng: &mut dyn Source) -> CryptoResult<StreamKey> {
    StreamKey::generate_from(rng)
}

/// [`SecretKey::generate`] from `rng`.
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when `rng` runs out.
pub fn generate_secret_key_with(rng: &mut dyn Source) -> CryptoResult<SecretKey> {
    SecretKey::generate_from(rng)
}

/// AES-256-GCM exactly as envelopes and bundles call it, with the caller's
/// iv: for the official vectors only (an iv used twice under one key breaks
/// both confidentiality and integrity).
///
/// # Errors
///
/// `INPUT_TOO_LARGE` past AES-GCM's plaintext limit.
pub fn aes256gcm_seal(
    key: &[u8; 32],
    iv: &[u8; 12],
    plaintext: &[u8],
    aad: &[u8],
) -> CryptoResult<Vec<u8>> {
    crate::aead::seal(key, iv, plaintext, aad)
}

/// AES-256-GCM opening exactly as envelopes and bundles call it.
///
/// # Errors
///
/// `DECRYPTION_FAILED` when the ciphertext does not authenticate.
pub fn aes256gcm_open(
    key: &[u8; 32],
    iv: &[u8; 12],
    ciphertext: &[u8],
    aad: &[u8],
) -> CryptoResult<Vec<u8>> {
    crate::aead::open(key, iv, ciphertext, aad)
}

/// Completes `pending` with `decrypted` (what AES-256-GCM decrypted its
/// ciphertext to: `signature || content`) **without verifying the
/// signature here**: the caller states that a platform's Ed25519 verified
/// `signature` over [`PendingOpen::signature_prefix`] followed by `content`
/// under [`PendingOpen::signer_ed25519`] (XEdDSA and Ed25519 agree on that
/// key, see [`crate::signature::ed25519_public_key`]). Everything else of
/// [`PendingOpen::finish`] holds, the key commitment checked again against
/// `keyring` included.
///
/// # Errors
///
/// `UNKNOWN_KEY_GENERATION` or `DECRYPTION_FAILED` when `keyring` no longer
/// holds the key; `SENDER_MISMATCH` when `decrypted` is shorter than a
/// signature.
pub fn finish_open_verified_elsewhere(
    pending: PendingOpen,
    keyring: &Keyring,
    decrypted: zeroize::Zeroizing<Vec<u8>>,
) -> CryptoResult<Opened> {
    pending.finish_verified_elsewhere(keyring, decrypted)
}

/// The X25519 results of one key-wrap open: `DH(skR, enc)` of each wrap a
/// platform computed ([`Self::insert`]), and `DH(skR, pkS)` with each
/// sender, computed here once per key and sender for the whole call (the
/// accepted senders are the same for every wrap of a list) or taken from a
/// key's [`SenderDh`] ([`Self::seed`]). A sender's result never comes from
/// a platform: with a wrong value the server can predict there (its own
/// `enc`'s result filed under `pkS`, say), a wrap the server made would
/// open as the sender's. Results are zeroized on drop, never printed.
#[derive(Default)]
pub struct PlatformDh {
    // Each result in a box of its own: when a map grows, it moves the
    // boxes, not the secrets, so no copy is left in the memory it frees.
    // B-trees, not hash maps: the `enc`s are the server's to choose, and in
    // WebAssembly (wasm32-unknown-unknown) the standard library seeds its
    // hash maps from two memory addresses, which a server could predict
    // and flood; a B-tree's cost does not depend on the keys' values.
    encs: BTreeMap<(usize, [u8; 32]), BoxedResult>,
    // Computed here this call: (key, sender) -> DH(skR, pkS).
    senders: BTreeMap<(usize, [u8; 32]), BoxedResult>,
    // Each key's kept results, moved in by `seed`, out by `keep_opened`.
    kept: Vec<(usize, SenderDh)>,
    // The (key, sender) pairs a wrap opened under (a few).
    opened: Vec<(usize, [u8; 32])>,
}

/// One X25519 result, on the heap alone, zeroized on drop.
type BoxedResult = Box<zeroize::Zeroizing<[u8; 32]>>;

fn boxed(result: &[u8; 32]) -> BoxedResult {
    let mut boxed = Box::new(zeroize::Zeroizing::new([0u8; 32]));
    **boxed = *result;
    boxed
}

impl fmt::Debug for PlatformDh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlatformDh({} results)", self.len())
    }
}

impl PlatformDh {
    /// No results yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Files `result` as a platform's `X25519(mine[key]'s secret, enc)` for
    /// a wrap's `enc`. Used for that alone: never as `DH(skR, pkS)`, even
    /// when `enc` is a sender's key.
    pub fn insert(&mut self, key: usize, enc: [u8; 32], result: &[u8; 32]) {
        self.encs.insert((key, enc), boxed(result));
    }

    /// How many results are filed or computed (kept results not counted).
    pub fn len(&self) -> usize {
        self.encs.len() + self.senders.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Hands `kept`, the [`SenderDh`] of `mine[key]`, to this call: a wrap
    /// from one of its senders then costs one X25519, `DH(skR, enc)`.
    /// Moved, not copied; [`Self::keep_opened`] gives it back.
    pub fn seed(&mut self, key: usize, kept: SenderDh) {
        self.kept.push((key, kept));
    }

    /// The [`SenderDh`] of `mine[key]` (what [`Self::seed`] handed in, or a
    /// new one), with each result of `mine[key]` with a sender under which a
    /// wrap opened in this call added. Only those: a result no wrap
    /// confirmed is never kept.
    pub fn keep_opened(&mut self, key: usize) -> SenderDh {
        let mut kept = match self.kept.iter().position(|(k, _)| *k == key) {
            Some(at) => self.kept.swap_remove(at).1,
            None => SenderDh::new(),
        };
        let senders = &mut self.senders;
        self.opened.retain(|&(k, sender)| {
            if k != key {
                return true;
            }
            if let Some(result) = senders.remove(&(k, sender)) {
                kept.keep(sender, result);
            }
            false
        });
        kept
    }
}

/// X25519 results of one identity key with the identity keys of senders it
/// opened wraps from, kept across calls (NaCl's `crypto_box_beforenm` keeps
/// the same kind of value): `DH(skR, pkS)` is the same for every wrap a
/// sender makes to this key, so a key distributor's later wraps open with
/// one X25519 each. Filled only by [`PlatformDh::keep_opened`] with results
/// computed here (never a platform's), for pairs a wrap opened under.
///
/// It holds secrets as sensitive as the key's own for these pairs: keep it
/// with the key, never outside the memory the key lives in. Zeroized on
/// drop, never printed, not `Clone`; at most [`SenderDh::MAX`] results (the
/// oldest goes first).
#[derive(Default)]
pub struct SenderDh {
    // A few senders (a stream's key distributors): a list, searched.
    results: Vec<([u8; 32], BoxedResult)>,
}

impl fmt::Debug for SenderDh {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SenderDh({} results)", self.results.len())
    }
}

impl SenderDh {
    /// How many senders' results a cache holds at most.
    pub const MAX: usize = 256;

    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the result with `sender`'s identity key is held.
    pub fn contains(&self, sender: &[u8; 32]) -> bool {
        self.get(sender).is_some()
    }

    /// How many results are held.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    /// Moves every result of `other` that this cache lacks into it (two
    /// calls with the same key at once each hand back what they kept).
    pub fn absorb(&mut self, other: SenderDh) {
        if self.results.is_empty() {
            // The usual case (the cache was moved into the call): no search.
            *self = other;
            return;
        }
        for (sender, result) in other.results {
            if !self.contains(&sender) {
                self.keep(sender, result);
            }
        }
    }

    fn get(&self, sender: &[u8; 32]) -> Option<&BoxedResult> {
        self.results
            .iter()
            .find(|(held, _)| held == sender)
            .map(|(_, result)| result)
    }

    fn keep(&mut self, sender: [u8; 32], result: BoxedResult) {
        if let Some(held) = self.results.iter_mut().find(|(held, _)| *held == sender) {
            held.1 = result;
            return;
        }
        if self.results.len() >= Self::MAX {
            // The oldest goes; the list moves public keys and pointers only.
            self.results.remove(0);
        }
        self.results.push((sender, result));
    }
}

impl crate::wrap::DhSource for PlatformDh {
    fn ephemeral(
        &mut self,
        key: usize,
        mine: &IdentityKey,
        enc: &[u8; 32],
    ) -> zeroize::Zeroizing<[u8; 32]> {
        match self.encs.get(&(key, *enc)) {
            Some(result) => zeroize::Zeroizing::new(***result),
            None => mine.secret_key().diffie_hellman(enc),
        }
    }

    fn sender(
        &mut self,
        key: usize,
        mine: &IdentityKey,
        sender: &[u8; 32],
    ) -> zeroize::Zeroizing<[u8; 32]> {
        let kept = self
            .kept
            .iter()
            .filter(|(k, _)| *k == key)
            .find_map(|(_, kept)| kept.get(sender));
        if let Some(result) = kept {
            return zeroize::Zeroizing::new(***result);
        }
        let result = self
            .senders
            .entry((key, *sender))
            .or_insert_with(|| Box::new(mine.secret_key().diffie_hellman(sender)));
        zeroize::Zeroizing::new(***result)
    }

    fn opened(&mut self, key: usize, sender: &[u8; 32]) {
        self.opened.push((key, *sender));
    }
}

/// X25519 requests without repeats, in their first order (the requests of
/// several wraps name the same senders).
pub fn distinct_dh_requests(requests: Vec<(usize, [u8; 32])>) -> Vec<(usize, [u8; 32])> {
    // A B-tree, not a hash set: see `PlatformDh`.
    let mut seen = BTreeSet::new();
    requests.into_iter().filter(|r| seen.insert(*r)).collect()
}

/// The X25519 operations [`crate::wrap::unwrap_stream_key`] may do for
/// `wrap`, as (index in `mine`, public key), each once: what a platform
/// computes for [`unwrap_stream_key_with_platform_dh`]. Empty for a wrap
/// refused before any.
///
/// # Errors
///
/// `TOO_MANY_KEYS`, as [`crate::wrap::unwrap_stream_key`].
pub fn unwrap_dh_requests(
    wrap: &KeyWrap,
    mine: &[IdentityKey],
    senders: &[Recipient],
) -> CryptoResult<Vec<(usize, [u8; 32])>> {
    let mut out = Vec::new();
    crate::wrap::dh_requests(wrap, mine, senders, &mut out)?;
    Ok(distinct_dh_requests(out))
}

/// [`crate::wrap::unwrap_stream_key`] with its X25519 results from `dh`
/// (what is not filed there computed here): the same result and the same
/// errors.
///
/// # Errors
///
/// As [`crate::wrap::unwrap_stream_key`].
pub fn unwrap_stream_key_with_platform_dh(
    root_stream_id: &str,
    wrap: &KeyWrap,
    mine: &[IdentityKey],
    senders: &[Recipient],
    dh: &mut PlatformDh,
) -> CryptoResult<crate::wrap::Unwrapped> {
    crate::wrap::unwrap_stream_key_with_dh(root_stream_id, wrap, mine, senders, dh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn dh_requests_lose_their_repeats_and_keep_their_first_order() {
        // A server chooses the order and the values (each wrap's `enc`).
        let requests = vec![
            (1, [9; 32]),
            (0, [3; 32]),
            (1, [9; 32]),
            (0, [1; 32]),
            (0, [3; 32]),
        ];
        assert_eq!(
            distinct_dh_requests(requests),
            vec![(1, [9; 32]), (0, [3; 32]), (0, [1; 32])]
        );
        // The same public key for another of my keys is another request.
        assert_eq!(
            distinct_dh_requests(vec![(0, [5; 32]), (1, [5; 32])]),
            vec![(0, [5; 32]), (1, [5; 32])]
        );
    }

    #[test]
    fn fixed_randomness_hands_out_its_bytes_in_order_and_nothing_past_them() {
        let mut rng = FixedRandomness::new(&[1, 2, 3, 4, 5]);
        let mut two = [0u8; 2];
        rng.try_fill_bytes(&mut two).unwrap();
        assert_eq!((two, rng.remaining()), ([1, 2], 3));
        // A draw past the end fails and takes nothing.
        let mut four = [0u8; 4];
        assert_eq!(rng.try_fill_bytes(&mut four), Err(Exhausted));
        assert_eq!(rng.remaining(), 3);
        assert_eq!(rng.try_next_u32(), Err(Exhausted));
        rng.try_fill_bytes(&mut [0u8; 3]).unwrap();
        assert_eq!(rng.remaining(), 0);
        assert_eq!(format!("{rng:?}"), "FixedRandomness(0 bytes left)");
    }

    #[test]
    fn drawing_exactly_refuses_short_and_leftover_randomness() {
        let key = |bytes: &[u8]| drawing_exactly(bytes, |rng| generate_stream_key_with(rng));
        assert_eq!(key(&[9; 32]).unwrap().to_bytes().as_slice(), &[9; 32]);
        assert_eq!(
            key(&[9; 31]).unwrap_err().code(),
            ErrorCode::RandomnessUnavailable
        );
        let leftover = key(&[9; 33]).unwrap_err();
        assert_eq!(leftover.code(), ErrorCode::InvalidLength);
        assert_eq!(
            leftover,
            CryptoError::length("randomness", 32, 33),
            "names what was drawn and what was given"
        );
    }

    /// The cache holds at most `SenderDh::MAX` results: one more drops the
    /// oldest; a sender already held is replaced in place; `absorb` adds
    /// only what is lacking.
    #[test]
    fn the_sender_cache_is_bounded() {
        let mut kept = SenderDh::new();
        let result = |i: u32| {
            let mut bytes = [0u8; 32];
            bytes[..4].copy_from_slice(&i.to_le_bytes());
            boxed(&bytes)
        };
        let sender = |i: u32| {
            let mut pk = [0u8; 32];
            pk[..4].copy_from_slice(&i.to_le_bytes());
            pk
        };
        for i in 0..SenderDh::MAX as u32 {
            kept.keep(sender(i), result(i));
        }
        assert_eq!(kept.len(), SenderDh::MAX);
        kept.keep(sender(5), result(7));
        assert_eq!(kept.len(), SenderDh::MAX, "a held sender is replaced");
        assert_eq!(kept.get(&sender(5)).map(|r| r[0]), Some(7));
        kept.keep(sender(SenderDh::MAX as u32), result(1));
        assert_eq!(kept.len(), SenderDh::MAX);
        assert!(kept.contains(&sender(SenderDh::MAX as u32)));
        assert!(!kept.contains(&sender(0)), "the oldest went");
        assert!(kept.contains(&sender(1)));
        let mut other = SenderDh::new();
        other.keep(sender(2), result(9));
        other.keep(sender(0), result(0));
        kept.absorb(other);
        assert_eq!(
            kept.get(&sender(2)).map(|r| r[0]),
            Some(2),
            "what is held stays"
        );
        assert!(kept.contains(&sender(0)));
        assert!(!kept.contains(&sender(1)), "the oldest went for it");
        assert_eq!(kept.len(), SenderDh::MAX);
    }
}
