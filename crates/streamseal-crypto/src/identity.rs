//! Identity keys: X25519 key pairs of users and bot runtimes, their public
//! keys as 44-character base64, and the key ids that name them.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, PublicKey, RecipientKind};
//!
//! let me = IdentityKey::generate(RecipientKind::User, KeyId::new("key_laptop")?)?;
//! let text = me.public_key().to_base64();
//! assert_eq!(text.len(), 44);
//! assert_eq!(PublicKey::from_base64(&text)?, me.public_key());
//! // Debug never prints secret bytes.
//! assert!(format!("{me:?}").contains("secret: \"[redacted]\""));
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use std::fmt;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use x25519_dalek::StaticSecret;
use xeddsa::xed25519;
use zeroize::Zeroizing;

use crate::encoding::{decode_base64_array, encode_base64};
use crate::error::{CryptoError, CryptoResult};
use crate::random;

/// Length of an X25519 key in bytes.
pub const KEY_LEN: usize = 32;
/// Length of a public key in its base64 form: always exactly 44 characters.
pub const PUBLIC_KEY_BASE64_LEN: usize = 44;
/// Longest key id the API accepts (`recipientKeyId`, `publicKeyId`: 1 to 128).
pub const MAX_KEY_ID_LEN: usize = 128;
/// Most keys a runtime may hold (presence keys, unwrap candidates).
pub const MAX_KEYS: usize = 32;

/// An X25519 public key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PublicKey([u8; KEY_LEN]);

impl PublicKey {
    /// Wraps raw key bytes.
    pub const fn from_bytes(bytes: [u8; KEY_LEN]) -> Self {
        PublicKey(bytes)
    }

    /// The raw key bytes.
    pub const fn as_bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }

    /// Parses the wire form: exactly 44 characters of canonical padded base64.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `text` is not 44 characters or does not decode to
    /// 32 bytes; `MALFORMED_BASE64` when it is not canonical padded base64.
    pub fn from_base64(text: &str) -> CryptoResult<Self> {
        let chars = text.chars().count();
        if chars != PUBLIC_KEY_BASE64_LEN {
            return Err(CryptoError::length(
                "publicKey",
                PUBLIC_KEY_BASE64_LEN,
                chars,
            ));
        }
        decode_base64_array::<KEY_LEN>("publicKey", text).map(PublicKey)
    }

    /// The wire form: 44 characters of padded base64.
    pub fn to_base64(&self) -> String {
        encode_base64(&self.0)
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PublicKey({})", self.to_base64())
    }
}

ts_decl!("export type PublicKey = string;");

impl Serialize for PublicKey {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_base64())
    }
}

impl<'de> Deserialize<'de> for PublicKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        PublicKey::from_base64(&text).map_err(serde::de::Error::custom)
    }
}

/// An X25519 secret key. Zeroized on drop, boxed so moves leave no copies,
/// never printed by `Debug`, and not serializable.
#[derive(Clone)]
pub struct SecretKey(Box<StaticSecret>);

impl SecretKey {
    /// Generates a fresh secret key from the system's randomness.
    ///
    /// # Errors
    ///
    /// `RANDOMNESS_UNAVAILABLE` when the system's randomness fails.
    pub fn generate() -> CryptoResult<Self> {
        Self::generate_from(&mut random::OsRng)
    }

    /// [`SecretKey::generate`] from `rng` (public under [`crate::hazmat`]).
    pub(crate) fn generate_from(rng: &mut dyn random::Source) -> CryptoResult<Self> {
        let bytes = Zeroizing::new(random::array_from::<KEY_LEN>(rng)?);
        Ok(Self::from_bytes(&bytes))
    }

    /// Builds a secret key from its 32 raw bytes (X25519 clamps on use).
    pub fn from_bytes(bytes: &[u8; KEY_LEN]) -> Self {
        SecretKey(Box::new(StaticSecret::from(*bytes)))
    }

    /// The public key of this secret key.
    pub fn public_key(&self) -> PublicKey {
        PublicKey(x25519_dalek::PublicKey::from(self.0.as_ref()).to_bytes())
    }

    /// `X25519(self, public)`, in a buffer that zeroizes itself (all zero
    /// for a low-order `public`: the caller refuses that).
    pub(crate) fn diffie_hellman(&self, public: &[u8; KEY_LEN]) -> Zeroizing<[u8; KEY_LEN]> {
        let shared = self
            .0
            .diffie_hellman(&x25519_dalek::PublicKey::from(*public));
        Zeroizing::new(shared.to_bytes())
    }

    /// The raw secret bytes, in a buffer that zeroizes itself.
    ///
    /// Only the private-key bundle and explicit export paths call this.
    pub fn to_bytes(&self) -> Zeroizing<[u8; KEY_LEN]> {
        Zeroizing::new(self.0.to_bytes())
    }
}

impl fmt::Debug for SecretKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SecretKey([redacted])")
    }
}

/// The id under which a public key is registered (1 to 128 characters).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(transparent)]
pub struct KeyId(String);

impl KeyId {
    /// Validates a key id: 1 to 128 characters.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when the id is not 1 to 128 characters.
    pub fn new(id: impl Into<String>) -> CryptoResult<Self> {
        let id = id.into();
        let len = id.chars().count();
        if !(1..=MAX_KEY_ID_LEN).contains(&len) {
            return Err(CryptoError::length("keyId", "1..=128", len));
        }
        Ok(KeyId(id))
    }

    /// Sorts before every valid id (it is empty, which no valid id is): the
    /// lower bound of a range over the ids of one subject.
    pub(crate) fn before_all() -> Self {
        KeyId(String::new())
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for KeyId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for KeyId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        KeyId::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Who a key belongs to (`recipientKind` on the wire). The set is open: a
/// value this library does not know is kept as it came.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RecipientKind {
    /// A user's key (`"user"`).
    User,
    /// A bot runtime's key (`"bot"`).
    Bot,
    /// A kind added by the service after this library was written.
    Other(String),
}

impl RecipientKind {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            RecipientKind::User => "user",
            RecipientKind::Bot => "bot",
            RecipientKind::Other(s) => s,
        }
    }

    /// Parses the wire spelling; unknown values are kept as [`RecipientKind::Other`].
    pub fn parse(s: &str) -> Self {
        match s {
            "user" => RecipientKind::User,
            "bot" => RecipientKind::Bot,
            other => RecipientKind::Other(other.to_owned()),
        }
    }
}

// Crosses UniFFI as its wire spelling: an open enum with `Other(String)` has
// no closed UniFFI shape, and apps compare the spelling anyway.
#[cfg(feature = "uniffi")]
uniffi::custom_type!(RecipientKind, String, {
    lower: |kind| kind.as_str().to_owned(),
    try_lift: |text| Ok(RecipientKind::parse(&text)),
});

ts_decl!("export type RecipientKind = \"user\" | \"bot\" | (string & {});");

impl Serialize for RecipientKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for RecipientKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(RecipientKind::parse(&String::deserialize(d)?))
    }
}

/// One of the caller's own keys: a secret key with the kind and id it is
/// registered under. Key wraps are addressed to (kind, id).
#[derive(Clone)]
pub struct IdentityKey {
    kind: RecipientKind,
    key_id: KeyId,
    secret: SecretKey,
    public: PublicKey,
    /// The secret's EdDSA key pair (XEdDSA's `calculate_key_pair`), derived
    /// on the first signature by this object or any of its clones (they
    /// share it, as they share the secret) and kept: each later signature
    /// costs one fixed-base multiplication instead of two or three. On the
    /// heap so moves leave no copies; zeroized when the last clone drops;
    /// never printed.
    signing: Arc<OnceLock<xed25519::SigningKeyPair>>,
}

impl IdentityKey {
    /// Generates a fresh key pair registered as `kind` / `key_id`.
    ///
    /// # Errors
    ///
    /// `RANDOMNESS_UNAVAILABLE` when the system's randomness fails.
    pub fn generate(kind: RecipientKind, key_id: KeyId) -> CryptoResult<Self> {
        Ok(Self::from_secret(kind, key_id, SecretKey::generate()?))
    }

    /// Wraps an existing secret key (for example one opened from a bundle).
    pub fn from_secret(kind: RecipientKind, key_id: KeyId, secret: SecretKey) -> Self {
        let public = secret.public_key();
        IdentityKey {
            kind,
            key_id,
            secret,
            public,
            signing: Arc::default(),
        }
    }

    /// The kind this key is registered as.
    pub fn kind(&self) -> &RecipientKind {
        &self.kind
    }

    /// The id this key is registered under.
    pub fn key_id(&self) -> &KeyId {
        &self.key_id
    }

    /// The public half.
    pub fn public_key(&self) -> PublicKey {
        self.public
    }

    /// The secret half.
    pub fn secret_key(&self) -> &SecretKey {
        &self.secret
    }

    /// The secret's EdDSA key pair for XEdDSA signatures, derived once for
    /// this object and its clones.
    pub(crate) fn signing_key_pair(&self) -> &xed25519::SigningKeyPair {
        self.signing.get_or_init(|| {
            let secret = self.secret.to_bytes();
            // Zeroized on drop by the crate.
            xed25519::PrivateKey(*secret).signing_key_pair()
        })
    }
}

impl fmt::Debug for IdentityKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IdentityKey")
            .field("kind", &self.kind.as_str())
            .field("key_id", &self.key_id.as_str())
            .field("public", &self.public)
            .field("secret", &"[redacted]")
            .finish()
    }
}

/// Someone a stream key is wrapped to: a public key with the kind and id it
/// is registered under (the owner key, a member's key, a runtime's presence key).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct Recipient {
    /// The recipient's kind.
    pub kind: RecipientKind,
    /// The id the key is registered under.
    pub key_id: KeyId,
    /// The X25519 public key.
    pub public_key: PublicKey,
}

impl Recipient {
    /// The recipient description of one of the caller's own keys.
    pub fn of(key: &IdentityKey) -> Recipient {
        Recipient {
            kind: key.kind().clone(),
            key_id: key.key_id().clone(),
            public_key: key.public_key(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn clones_share_the_signing_key_pair_whichever_signs_first() {
        let key =
            IdentityKey::generate(RecipientKind::Bot, KeyId::new("key_bot").unwrap()).unwrap();
        let copy = key.clone();
        assert!(key.signing.get().is_none());
        crate::signature::sign(&copy, b"m").unwrap();
        assert!(
            key.signing.get().is_some(),
            "the original has the pair its copy derived"
        );
        assert!(std::ptr::eq(
            key.signing_key_pair(),
            copy.signing_key_pair()
        ));
        // Another object from the same secret derives its own.
        let other = IdentityKey::from_secret(
            RecipientKind::Bot,
            KeyId::new("key_bot").unwrap(),
            key.secret_key().clone(),
        );
        assert!(other.signing.get().is_none());
    }

    #[test]
    fn public_key_length_rules() {
        let pk = SecretKey::from_bytes(&[9u8; 32]).public_key();
        let text = pk.to_base64();
        assert_eq!(PublicKey::from_base64(&text).unwrap(), pk);
        let long = format!("{text}=");
        assert_eq!(
            PublicKey::from_base64(&long).unwrap_err().code(),
            ErrorCode::InvalidLength
        );
        assert_eq!(
            PublicKey::from_base64(&text[..43]).unwrap_err().code(),
            ErrorCode::InvalidLength
        );
    }

    #[test]
    fn debug_output_is_pinned() {
        let secret = SecretKey::from_bytes(&[1u8; 32]);
        assert_eq!(format!("{secret:?}"), "SecretKey([redacted])");
        let key = IdentityKey::from_secret(
            RecipientKind::Bot,
            KeyId::new("k1").unwrap(),
            secret.clone(),
        );
        assert_eq!(
            format!("{key:?}"),
            format!(
                "IdentityKey {{ kind: \"bot\", key_id: \"k1\", public: {:?}, secret: \"[redacted]\" }}",
                secret.public_key()
            )
        );
    }

    #[test]
    fn key_id_bounds() {
        assert!(KeyId::new("").is_err());
        assert!(KeyId::new("a".repeat(128)).is_ok());
        assert_eq!(
            KeyId::new("a".repeat(129)).unwrap_err().code(),
            ErrorCode::InvalidLength
        );
    }

    #[test]
    fn recipient_kind_is_open() {
        for s in ["user", "bot", "device"] {
            assert_eq!(RecipientKind::parse(s).as_str(), s);
        }
    }
}
