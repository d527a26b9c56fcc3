//! The core's fixed-randomness seam, for binding test suites only (feature
//! `test-seams`; never in a build shipped to apps). The queue is per
//! thread: UniFFI calls are synchronous on the caller's thread, so a test
//! that sets it and then calls `seal`, `wrap_stream_key` or `create_bundle`
//! on the same thread gets exactly these bytes.

/// Queues `bytes` as this thread's only randomness (see `streamseal::testing`).
#[uniffi::export]
pub fn set_fixed_randomness(bytes: Vec<u8>) {
    streamseal::testing::set_fixed_randomness(&bytes);
}

/// Removes this thread's queue.
#[uniffi::export]
pub fn clear_fixed_randomness() {
    streamseal::testing::clear_fixed_randomness();
}

/// Bytes left in this thread's queue (`None` without a queue).
#[uniffi::export]
pub fn remaining_fixed_randomness() -> Option<u64> {
    streamseal::testing::remaining_fixed_randomness().map(|n| n as u64)
}

/// Argon2id exactly as bundles derive their key (to craft hostile bundles in tests).
#[uniffi::export]
pub fn derive_key(
    passphrase: Vec<u8>,
    salt: Vec<u8>,
    params: streamseal::kdf::KdfParams,
) -> crate::error::Result<Vec<u8>> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    let key = streamseal::kdf::derive_key(
        &passphrase,
        &salt,
        &params,
        &streamseal::kdf::KdfLimits::default(),
    )?;
    Ok(key.to_vec())
}

/// AES-256-GCM exactly as envelopes and bundles call it (to craft hostile inputs in tests).
#[uniffi::export]
pub fn aes256gcm_seal(
    key: Vec<u8>,
    iv: Vec<u8>,
    plaintext: Vec<u8>,
    aad: Vec<u8>,
) -> crate::error::Result<Vec<u8>> {
    let key = crate::keys::array::<32>("key", &key)?;
    let iv = crate::keys::array::<12>("iv", &iv)?;
    Ok(streamseal::testing::aes256gcm_seal(
        &key, &iv, &plaintext, &aad,
    )?)
}
