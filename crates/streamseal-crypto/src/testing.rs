//! Test seams (feature `test-seams` only; never in a shipped build).
//!
//! Lets tests, the golden-vector generator and binding test suites make the
//! library deterministic by queueing the bytes its randomness calls return,
//! in call order:
//! - `envelope::seal`: 12 iv bytes, then the signature's 64 bytes `Z`;
//! - `wrap::wrap_stream_key`: 32 bytes of HPKE ephemeral key material (`ikmE`);
//! - `bundle::create_bundle` and [`bundle_below_floor`](crate::testing::bundle_below_floor): 16 salt bytes, then 12 iv bytes;
//! - `StreamKey::generate`, `SecretKey::generate`: 32 bytes.

use crate::bundle::SealedBundle;
use crate::error::Result;
use crate::identity::SecretKey;
use crate::kdf::KdfParams;

/// Runs `f` with `bytes` as this thread's only randomness. Running out of
/// bytes inside `f` is `RANDOMNESS_UNAVAILABLE`; the queue is removed after.
pub fn with_fixed_randomness<T>(bytes: &[u8], f: impl FnOnce() -> T) -> T {
    crate::random::seam::set(Some(bytes.to_vec()));
    let out = f();
    crate::random::seam::set(None);
    out
}

/// Installs a fixed randomness queue for this thread until [`clear_fixed_randomness`].
/// For bindings, whose callers cannot pass a closure across the boundary.
pub fn set_fixed_randomness(bytes: &[u8]) {
    crate::random::seam::set(Some(bytes.to_vec()));
}

/// Removes the fixed randomness queue of this thread.
pub fn clear_fixed_randomness() {
    crate::random::seam::set(None);
}

/// How many queued bytes are left (`None` without a queue).
pub fn remaining_fixed_randomness() -> Option<usize> {
    crate::random::seam::remaining()
}

/// A bundle sealed exactly as `bundle::create_bundle` seals it, with
/// `params` checked only against the caps on *opening*
/// (`KdfLimits::default`), not the creation floor (m = 19 MiB, t = 2, p = 1).
///
/// It stands for a record made before the floor existed, which opening
/// must keep accepting: tests of opening that open a bundle many times, and
/// the fuzz targets, use it so as not to wait in Argon2 at every open.
/// Nothing shipped can reach it (feature `test-seams`); every record an app
/// stores goes through `create_bundle` and its floor.
pub fn bundle_below_floor(
    secret: &SecretKey,
    passphrase: &str,
    params: &KdfParams,
) -> Result<SealedBundle> {
    crate::bundle::seal_bundle(secret, passphrase, params)
}

/// AES-256-GCM exactly as envelopes and bundles call it, for the official vectors.
pub fn aes256gcm_seal(
    key: &[u8; 32],
    iv: &[u8; 12],
    plaintext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    crate::aead::seal(key, iv, plaintext, aad)
}

/// AES-256-GCM opening exactly as envelopes and bundles call it.
pub fn aes256gcm_open(
    key: &[u8; 32],
    iv: &[u8; 12],
    ciphertext: &[u8],
    aad: &[u8],
) -> Result<Vec<u8>> {
    crate::aead::open(key, iv, ciphertext, aad)
}
