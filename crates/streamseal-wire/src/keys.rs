//! Encryption key records (API §2.12): the owner's public key, the
//! caller's own key record with its passphrase-protected bundle, and a
//! stream's key wraps. Reuses [`streamseal_crypto::identity::PublicKey`],
//! [`streamseal_crypto::kdf::KdfParams`] and [`streamseal_crypto::wrap::KeyWrap`].
//!
//! `publicKey` is parsed strictly (exactly 44 characters of base64 of 32
//! bytes): a key record is only useful when its key is.

use serde::{Deserialize, Serialize};

use crate::extra::Extra;
use streamseal_crypto::identity::PublicKey;
use streamseal_crypto::kdf::KdfParams;
use streamseal_crypto::wrap::KeyWrap;

/// `GET bot-runtime/owner-e2e-key`: `{keyId, publicKey}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct OwnerKey {
    /// The key id.
    pub key_id: String,
    /// The owner's X25519 public key.
    pub public_key: PublicKey,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `GET me/e2e-key`: the caller's own key record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct OwnKey {
    /// The key id.
    pub key_id: String,
    /// The public key.
    pub public_key: PublicKey,
    /// Base64 of version byte, 12-byte iv and AES-GCM ciphertext (see [`streamseal_crypto::bundle`]).
    pub encrypted_private_bundle: String,
    /// Base64 Argon2id salt.
    pub kdf_salt: String,
    /// Argon2id parameters.
    pub kdf_params: KdfParams,
    /// Created.
    pub created_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `GET streams/{streamId}/e2e/key-wraps`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct KeyWraps {
    /// The generation new messages are sealed under.
    pub current_key_generation: u32,
    /// The stream's owner.
    pub owner_user_id: String,
    /// The wraps.
    pub wraps: Vec<KeyWrap>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST streams/{streamId}/e2e/key-wraps`: `{stored}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct KeyWrapsStored {
    /// How many wraps were stored.
    pub stored: u32,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
