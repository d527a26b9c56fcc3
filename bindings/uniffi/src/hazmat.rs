//! Risky exports (the core's `streamseal::hazmat`; read its module docs
//! first): the operations whose outputs the golden vectors fix, drawing from
//! the caller's bytes instead of the operating system, and raw primitives for
//! the official vectors. Each `*_with_randomness` must draw `randomness` to
//! the last byte (`INVALID_LENGTH` otherwise; `RANDOMNESS_UNAVAILABLE` when
//! it is too short). Never call them outside tests: the same bytes twice
//! reuse an AES-GCM nonce and an XEdDSA nonce.

use std::sync::Arc;

use streamseal::bundle::SealedBundle;
use streamseal::envelope::SealedPayload;
use streamseal::hazmat;
use streamseal::kdf::KdfParams;
use streamseal::slot::Slot;
use streamseal::wrap::KeyWrap;

use crate::error::Result;
use crate::keys::Recipient;
use crate::keys::{IdentityKey, Keyring, SecretKey, StreamKey};
use crate::sender::signer;

/// `seal` drawing the 12 iv bytes, then the signature's 64 bytes `Z`, from
/// `randomness`.
#[uniffi::export]
pub fn hazmat_seal_with_randomness(
    keyring: Arc<Keyring>,
    identity: Arc<IdentityKey>,
    subject: String,
    slot: Slot,
    plaintext: Vec<u8>,
    randomness: Vec<u8>,
) -> Result<SealedPayload> {
    let signer = signer(&identity, &subject)?;
    let ring = keyring.lock();
    Ok(hazmat::drawing_exactly(&randomness, |rng| {
        hazmat::seal_envelope_with(rng, &ring, &signer, &slot, &plaintext)
    })?)
}

/// `wrap_stream_key` drawing its 32 bytes of `ikmE` from `randomness`.
#[uniffi::export]
pub fn hazmat_wrap_stream_key_with_randomness(
    root_stream_id: String,
    generation: u32,
    key: Arc<StreamKey>,
    sender: Arc<IdentityKey>,
    recipient: Recipient,
    randomness: Vec<u8>,
) -> Result<KeyWrap> {
    let recipient = recipient.to_core()?;
    Ok(hazmat::drawing_exactly(&randomness, |rng| {
        hazmat::wrap_stream_key_with(
            rng,
            &root_stream_id,
            generation,
            &key.0,
            &sender.0,
            &recipient,
        )
    })?)
}

/// `create_bundle` (with its creation floor) drawing the 16 salt bytes, then
/// the 12 iv bytes, from `randomness`.
#[uniffi::export]
pub fn hazmat_create_bundle_with_randomness(
    secret: Arc<SecretKey>,
    passphrase: Vec<u8>,
    params: KdfParams,
    randomness: Vec<u8>,
) -> Result<SealedBundle> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    Ok(hazmat::drawing_exactly(&randomness, |rng| {
        hazmat::create_bundle_with(rng, &secret.0, &passphrase, &params)
    })?)
}

/// Argon2id exactly as bundles derive their key (to craft hostile bundles in tests).
#[uniffi::export]
pub fn hazmat_derive_key(passphrase: Vec<u8>, salt: Vec<u8>, params: KdfParams) -> Result<Vec<u8>> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    let key = streamseal::kdf::derive_key(
        &passphrase,
        &salt,
        &params,
        &streamseal::kdf::KdfLimits::default(),
    )?;
    Ok(key.to_vec())
}

/// AES-256-GCM with the caller's iv, exactly as envelopes and bundles call
/// it (to craft hostile inputs in tests).
#[uniffi::export]
pub fn hazmat_aes256gcm_seal(
    key: Vec<u8>,
    iv: Vec<u8>,
    plaintext: Vec<u8>,
    aad: Vec<u8>,
) -> Result<Vec<u8>> {
    let key = crate::keys::array::<32>("key", &key)?;
    let iv = crate::keys::array::<12>("iv", &iv)?;
    Ok(hazmat::aes256gcm_seal(&key, &iv, &plaintext, &aad)?)
}

/// The XEdDSA signature (64 bytes, `R || s`) of `message` exactly as given,
/// made with `identity`'s X25519 secret key (`streamseal::signature::sign`;
/// 64 fresh random bytes per signature). Envelopes sign a domain-separated
/// input of their own (FORMAT.md section 2); never sign bytes a peer chose
/// with this, and domain-separate what the app signs itself.
/// `RANDOMNESS_UNAVAILABLE` without randomness.
#[uniffi::export]
pub fn hazmat_xeddsa_sign(identity: Arc<IdentityKey>, message: Vec<u8>) -> Result<Vec<u8>> {
    Ok(streamseal::signature::sign(&identity.0, &message)?
        .as_bytes()
        .to_vec())
}

/// `hazmat_xeddsa_sign` drawing the 64 bytes `Z` from `randomness`, to the
/// last byte: for reproducing the golden signatures only (one `Z` twice
/// reveals the secret key).
#[uniffi::export]
pub fn hazmat_xeddsa_sign_with_randomness(
    identity: Arc<IdentityKey>,
    message: Vec<u8>,
    randomness: Vec<u8>,
) -> Result<Vec<u8>> {
    let signed = hazmat::drawing_exactly(&randomness, |rng| {
        hazmat::sign_with(rng, &identity.0, &message)
    })?;
    Ok(signed.as_bytes().to_vec())
}

/// Checks that `signature` (64 bytes) is the XEdDSA signature of `message`
/// exactly as given under `public_key` (44-character base64;
/// `streamseal::signature::verify`): `INVALID_FIELD` for a signature that
/// does not verify, `INVALID_PUBLIC_KEY` for a key that is not canonical or
/// of small order, `INVALID_LENGTH` / `MALFORMED_BASE64` for a key or a
/// signature of the wrong shape.
#[uniffi::export]
pub fn hazmat_xeddsa_verify(
    public_key: String,
    message: Vec<u8>,
    signature: Vec<u8>,
) -> Result<()> {
    use streamseal::signature::{SIGNATURE_LEN, Signature};
    let public = streamseal::identity::PublicKey::from_base64(&public_key)?;
    let signed = crate::keys::array::<SIGNATURE_LEN>("signature", &signature)?;
    Ok(streamseal::signature::verify(
        &public,
        &message,
        &Signature::from_bytes(signed),
    )?)
}
