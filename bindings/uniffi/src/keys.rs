//! Secret holders (objects: `Arc`-shared handles whose Rust value zeroizes
//! when the last handle is dropped) and the records that describe keys.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use streamseal::CryptoError;
use streamseal::hazmat::{PlatformDh, SenderDh};

use streamseal::identity::{self, KeyId, PublicKey, RecipientKind};
use streamseal::kdf;
use streamseal::stream_key;
use zeroize::Zeroizing;

use crate::error::Result;

/// Copies a byte array of exactly `N` bytes out of `bytes` (`INVALID_LENGTH` otherwise).
pub(crate) fn array<const N: usize>(field: &'static str, bytes: &[u8]) -> Result<[u8; N]> {
    <[u8; N]>::try_from(bytes).map_err(|_| {
        CryptoError::InvalidLength {
            field,
            expected: N.to_string(),
            actual: bytes.len(),
        }
        .into()
    })
}

/// An X25519 secret key. Zeroized on drop; never printed.
#[derive(uniffi::Object)]
pub struct SecretKey(pub(crate) identity::SecretKey);

#[uniffi::export]
impl SecretKey {
    /// A fresh key from the system's random number generator.
    #[uniffi::constructor]
    pub fn generate() -> Result<Arc<Self>> {
        Ok(Arc::new(SecretKey(identity::SecretKey::generate()?)))
    }

    /// A key from its 32 bytes (`INVALID_LENGTH` otherwise).
    #[uniffi::constructor]
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Arc<Self>> {
        let bytes = Zeroizing::new(bytes);
        let mut raw = array::<32>("secretKey", &bytes)?;
        let key = identity::SecretKey::from_bytes(&raw);
        zeroize::Zeroize::zeroize(&mut raw);
        Ok(Arc::new(SecretKey(key)))
    }

    /// The public key, as 44 characters of base64.
    pub fn public_key(&self) -> String {
        self.0.public_key().to_base64()
    }

    /// The 32 secret bytes, for the platform's key store. Handle with care.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes().to_vec()
    }
}

/// One of the caller's own keys: a secret key with the kind and id it is
/// registered under. Key wraps are addressed to (kind, id).
///
/// Once a key wrap from a sender opened with it, the object also keeps
/// `X25519(secret, sender's key)` (`streamseal::hazmat::SenderDh`: at most
/// 256 senders, zeroized with the key), so that sender's next wraps open
/// with one X25519 instead of two. Another object made from the same
/// secret keeps its own.
#[derive(uniffi::Object)]
pub struct IdentityKey(pub(crate) identity::IdentityKey, Mutex<SenderDh>);

impl IdentityKey {
    /// A handle on a core key, with nothing kept yet.
    pub(crate) fn wrap(key: identity::IdentityKey) -> Arc<Self> {
        Arc::new(IdentityKey(key, Mutex::default()))
    }
}

/// The X25519 results `keys` keep with senders, handed to a key-wrap open's
/// `PlatformDh` under each key's index (moved out until [`keep_dh`]).
pub(crate) fn kept_dh(keys: &[Arc<IdentityKey>]) -> PlatformDh {
    let mut dh = PlatformDh::new();
    for (index, key) in keys.iter().enumerate() {
        let kept = std::mem::take(&mut *key.1.lock().unwrap_or_else(PoisonError::into_inner));
        dh.seed(index, kept);
    }
    dh
}

/// Gives each of `keys` its results back, with those of senders under which
/// a wrap opened in the call `dh` served (merged with what another call
/// kept meanwhile).
pub(crate) fn keep_dh(keys: &[Arc<IdentityKey>], dh: &mut PlatformDh) {
    for (index, key) in keys.iter().enumerate() {
        let back = dh.keep_opened(index);
        key.1
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .absorb(back);
    }
}

#[uniffi::export]
impl IdentityKey {
    /// A fresh key of `kind` (`user`, `bot`, ...) registered as `key_id`.
    #[uniffi::constructor]
    pub fn generate(kind: String, key_id: String) -> Result<Arc<Self>> {
        Ok(IdentityKey::wrap(identity::IdentityKey::generate(
            RecipientKind::parse(&kind),
            KeyId::new(key_id)?,
        )?))
    }

    /// A key from an existing secret.
    #[uniffi::constructor]
    pub fn from_secret(kind: String, key_id: String, secret: Arc<SecretKey>) -> Result<Arc<Self>> {
        Ok(IdentityKey::wrap(identity::IdentityKey::from_secret(
            RecipientKind::parse(&kind),
            KeyId::new(key_id)?,
            identity::SecretKey::from_bytes(&secret.0.to_bytes()),
        )))
    }

    /// The kind's wire spelling.
    pub fn kind(&self) -> String {
        self.0.kind().as_str().to_owned()
    }

    /// The key id.
    pub fn key_id(&self) -> String {
        self.0.key_id().as_str().to_owned()
    }

    /// The public key, base64.
    pub fn public_key(&self) -> String {
        self.0.public_key().to_base64()
    }

    /// The secret key.
    pub fn secret_key(&self) -> Arc<SecretKey> {
        Arc::new(SecretKey(identity::SecretKey::from_bytes(
            &self.0.secret_key().to_bytes(),
        )))
    }

    /// This key as a recipient of key wraps.
    pub fn recipient(&self) -> Recipient {
        Recipient::from(&identity::Recipient::of(&self.0))
    }
}

/// Whom a stream key is wrapped to. Plain strings (not custom types), so a
/// malformed key id or public key raises `StreamsealError` with its code
/// instead of a lift failure.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Recipient {
    /// `user`, `bot`, or a kind added later.
    pub kind: String,
    /// The id the key is registered under.
    pub key_id: String,
    /// The X25519 public key, 44 characters of base64.
    pub public_key: String,
}

impl From<&identity::Recipient> for Recipient {
    fn from(r: &identity::Recipient) -> Self {
        Recipient {
            kind: r.kind.as_str().to_owned(),
            key_id: r.key_id.as_str().to_owned(),
            public_key: r.public_key.to_base64(),
        }
    }
}

impl Recipient {
    /// The core's recipient, validated.
    pub(crate) fn to_core(&self) -> Result<identity::Recipient> {
        Ok(identity::Recipient {
            kind: RecipientKind::parse(&self.kind),
            key_id: KeyId::new(self.key_id.clone())?,
            public_key: PublicKey::from_base64(&self.public_key)?,
        })
    }
}

/// Validated recipients.
pub(crate) fn recipients(list: &[Recipient]) -> Result<Vec<identity::Recipient>> {
    list.iter().map(Recipient::to_core).collect()
}

/// The core keys behind handles (clones: each zeroizes on drop).
pub(crate) fn identity_keys(list: &[Arc<IdentityKey>]) -> Vec<identity::IdentityKey> {
    list.iter().map(|k| k.0.clone()).collect()
}

/// An AES-256 stream key of one generation. Zeroized on drop; never printed.
#[derive(uniffi::Object)]
pub struct StreamKey(pub(crate) stream_key::StreamKey);

#[uniffi::export]
impl StreamKey {
    /// A fresh key from the system's random number generator.
    #[uniffi::constructor]
    pub fn generate() -> Result<Arc<Self>> {
        Ok(Arc::new(StreamKey(stream_key::StreamKey::generate()?)))
    }

    /// A key from its 32 bytes (`INVALID_LENGTH` otherwise).
    #[uniffi::constructor]
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Arc<Self>> {
        let bytes = Zeroizing::new(bytes);
        let mut raw = array::<32>("streamKey", &bytes)?;
        let key = stream_key::StreamKey::from_bytes(&raw);
        zeroize::Zeroize::zeroize(&mut raw);
        Ok(Arc::new(StreamKey(key)))
    }

    /// The 32 key bytes, for the platform's key store. Handle with care.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.0.to_bytes().to_vec()
    }

    /// Whether both handles hold the same key (constant time in the core).
    pub fn equals(&self, other: Arc<StreamKey>) -> bool {
        self.0 == other.0
    }
}

/// The keyring of one root stream: a stream key per generation, and the
/// generation new messages are sealed under (it only rises). Thread-safe
/// (one lock). [`crate::state::StreamState::keyring`] hands out a copy of a
/// state's keyring whose seal counters are shared with the state.
#[derive(uniffi::Object)]
pub struct Keyring(Mutex<stream_key::Keyring>);

impl Keyring {
    /// Wraps a core keyring.
    pub(crate) fn wrap(ring: stream_key::Keyring) -> Arc<Self> {
        Arc::new(Keyring(Mutex::new(ring)))
    }

    /// The core keyring. A panic cannot happen while it is held (no call
    /// under the lock panics), and a poisoned lock still holds a consistent ring.
    pub(crate) fn lock(&self) -> MutexGuard<'_, stream_key::Keyring> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[uniffi::export]
impl Keyring {
    /// An empty keyring of `root_stream_id`.
    #[uniffi::constructor]
    pub fn new(root_stream_id: String) -> Result<Arc<Self>> {
        Ok(Keyring::wrap(stream_key::Keyring::new(root_stream_id)?))
    }

    /// The root stream that owns the keys.
    pub fn root_stream_id(&self) -> String {
        self.lock().root_stream_id().to_owned()
    }

    /// Adds the key of `generation` (`KEY_GENERATION_CONFLICT` if another is
    /// held). The sealing generation rises to it when it is newer; nothing
    /// lowers it.
    pub fn insert(&self, generation: u32, key: Arc<StreamKey>) -> Result<()> {
        let copy = stream_key::StreamKey::from_bytes(&key.0.to_bytes());
        Ok(self.lock().insert(generation, copy)?)
    }

    /// The newest generation held.
    pub fn newest_generation(&self) -> Option<u32> {
        self.lock().newest_generation()
    }

    /// The generation new messages are sealed under: the newest held, or a
    /// newer one the stream announced whose key has not arrived (sealing then
    /// fails with `UNKNOWN_KEY_GENERATION`).
    pub fn current_generation(&self) -> Option<u32> {
        self.lock().current_generation()
    }

    /// Generations for which two different keys were offered; never sealed under.
    pub fn conflicted_generations(&self) -> Vec<u32> {
        self.lock().conflicted_generations()
    }

    /// How many envelopes this keyring (and every handle sharing its
    /// counters) has sealed under `generation`.
    pub fn seal_count(&self, generation: u32) -> u64 {
        self.lock().seal_count(generation)
    }

    /// The seal budget per generation (2^30 unless lowered); past it,
    /// sealing is `SEAL_BUDGET_EXHAUSTED`: roll the generation.
    pub fn seal_budget(&self) -> u64 {
        self.lock().seal_budget()
    }

    /// Lowers the seal budget of this handle (never above the default).
    pub fn lower_seal_budget(&self, budget: u64) {
        self.lock().lower_seal_budget(budget);
    }

    /// Whether the key of `generation` is held.
    pub fn contains(&self, generation: u32) -> bool {
        self.lock().contains(generation)
    }

    /// Every generation held, ascending.
    pub fn generations(&self) -> Vec<u32> {
        self.lock().generations()
    }

    /// Drops (and zeroizes) every key.
    pub fn clear(&self) {
        self.lock().clear();
    }
}

/// Inclusive bounds on the KDF parameters accepted from a key record
/// (the core's `KdfLimits`, with the salt bounds as `u32`: UniFFI has no `usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, uniffi::Record)]
pub struct KdfLimits {
    /// Highest memory cost in KiB.
    pub max_m: u32,
    /// Highest iteration count.
    pub max_t: u32,
    /// Highest parallelism.
    pub max_p: u32,
    /// Shortest salt in bytes.
    pub min_salt_len: u32,
    /// Longest salt in bytes.
    pub max_salt_len: u32,
}

impl From<kdf::KdfLimits> for KdfLimits {
    fn from(l: kdf::KdfLimits) -> Self {
        KdfLimits {
            max_m: l.max_m,
            max_t: l.max_t,
            max_p: l.max_p,
            min_salt_len: u32::try_from(l.min_salt_len).unwrap_or(u32::MAX),
            max_salt_len: u32::try_from(l.max_salt_len).unwrap_or(u32::MAX),
        }
    }
}

impl From<KdfLimits> for kdf::KdfLimits {
    fn from(l: KdfLimits) -> Self {
        kdf::KdfLimits {
            max_m: l.max_m,
            max_t: l.max_t,
            max_p: l.max_p,
            min_salt_len: l.min_salt_len as usize,
            max_salt_len: l.max_salt_len as usize,
        }
    }
}

/// The default limits (m up to 128 MiB, t up to 10, p up to 8, salt 16 to 64 bytes).
#[uniffi::export]
pub fn kdf_limits_default() -> KdfLimits {
    kdf::KdfLimits::default().into()
}

/// The library's default parameters for new keys (m = 64 MiB, t = 3, p = 1).
#[uniffi::export]
pub fn kdf_params_default() -> kdf::KdfParams {
    kdf::KdfParams::default()
}

/// Argon2id with the given costs, version 19.
#[uniffi::export]
pub fn kdf_params_argon2id(m: u32, t: u32, p: u32) -> kdf::KdfParams {
    kdf::KdfParams::argon2id(m, t, p)
}

/// The cheapest parameters a new or re-sealed bundle may use: m = 19 MiB,
/// t = 2, p = 1 (the OWASP minimum; below it `create_bundle`,
/// `set_up_user_key` and `change_passphrase` fail with `KDF_PARAMS_OUT_OF_BOUNDS`).
#[uniffi::export]
pub fn kdf_params_creation_floor() -> kdf::KdfParams {
    kdf::KdfParams::creation_floor()
}

/// Checks parameters against limits before any work (`KDF_PARAMS_OUT_OF_BOUNDS`, `UNSUPPORTED_KDF`):
/// the caps on what is accepted when opening a record (no creation floor).
#[uniffi::export]
pub fn kdf_params_check(params: kdf::KdfParams, limits: KdfLimits) -> Result<()> {
    Ok(params.check(&limits.into())?)
}

/// A passphrase as it crosses the boundary: the UTF-8 bytes the caller can
/// wipe afterwards (`Arrays.fill`, `resetBytes`; Python's `bytes` cannot be),
/// decoded here into a text that zeroizes when dropped (`INVALID_FIELD` if
/// not UTF-8; the bytes are zeroized either way).
///
/// One copy escapes: UniFFI's generated lift copies the bytes out of the
/// `RustBuffer` the foreign side filled and frees that buffer without wiping
/// it, before this function runs. A string parameter (what this replaced)
/// avoided that copy but forced an immutable string on the foreign side
/// (`String` on the JVM, Swift and Python), which no one can wipe.
pub(crate) fn passphrase(bytes: Vec<u8>) -> Result<Zeroizing<String>> {
    Ok(kdf::passphrase_from_utf8(bytes)?)
}

/// Checks the shape of a public key: 44 characters of canonical padded
/// base64 of 32 bytes (`MALFORMED_BASE64`, `INVALID_LENGTH`), and returns it
/// unchanged. A low-order point passes; it is refused where it is used (a
/// wrap to it is `INVALID_PUBLIC_KEY`).
#[uniffi::export]
pub fn check_public_key(public_key: String) -> Result<String> {
    Ok(PublicKey::from_base64(&public_key)?.to_base64())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::crypto::unwrap_stream_key;
    use streamseal::wrap::{KeyWrap, wrap_stream_key};

    fn key(kind: &str, id: &str) -> Arc<IdentityKey> {
        IdentityKey::generate(kind.into(), id.into()).unwrap()
    }

    fn kept(key: &IdentityKey) -> usize {
        key.1.lock().unwrap().len()
    }

    /// A handle keeps the result with the sender whose wrap opened, and only
    /// that: not a sender tried before it, nothing from a wrap the server
    /// minted (under the owner's key id, with a key of its own), before or
    /// after. With the result kept, the owner's next wrap opens to its key.
    #[test]
    fn a_handle_keeps_the_result_with_the_sender_whose_wrap_opened() {
        let me = key("bot", "machine");
        let owner = key("user", "owner");
        let other = key("user", "other");
        let server = key("user", "owner");
        let wrap_from = |from: &IdentityKey, generation: u8| -> KeyWrap {
            wrap_stream_key(
                "stream_r",
                generation.into(),
                &stream_key::StreamKey::from_bytes(&[generation; 32]),
                &from.0,
                &identity::Recipient::of(&me.0),
            )
            .unwrap()
        };
        let senders = vec![other.recipient(), owner.recipient()];
        let open = |wrap: KeyWrap| {
            unwrap_stream_key(
                "stream_r".into(),
                wrap,
                vec![Arc::clone(&me)],
                senders.clone(),
            )
        };
        let minted = |generation| open(wrap_from(&server, generation)).err().unwrap();

        assert_eq!(minted(1).code(), "UNTRUSTED_WRAP");
        assert_eq!(kept(&me), 0);
        let first = open(wrap_from(&owner, 2)).unwrap();
        assert_eq!((first.sender, first.recipient), (1, 0));
        assert_eq!(
            kept(&me),
            1,
            "the owner's, not the other sender's tried first"
        );
        let next = open(wrap_from(&owner, 3)).unwrap();
        assert_eq!(next.key.to_bytes(), vec![3; 32]);
        assert_eq!(minted(4).code(), "UNTRUSTED_WRAP");
        assert_eq!(kept(&me), 1);
        assert_eq!(kept(&key("bot", "machine")), 0, "each handle keeps its own");
    }
}
