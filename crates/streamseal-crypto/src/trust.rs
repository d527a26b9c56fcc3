//! The trust store: which public key each user and bot is known by, and
//! whether the user has verified it.
//!
//! Every public key comes from the server. The store pins the first key seen
//! for each (subject, key id), where the subject is a user id (`usr_...`) or a
//! bot id (`bot_...`), and from then on compares every key the server
//! presents with the pin.
//!
//! **What trust on first use gives.** A key that later changes is noticed and
//! never used silently: [`TrustStore::observe`] reports the change, the pin is
//! not replaced, and [`TrustStore::trusted`] refuses both the new key and the
//! old one (`KEY_CHANGED`) until the user handles the change, by comparing
//! safety numbers ([`TrustStore::verify`]) or by accepting it unverified
//! ([`TrustStore::acknowledge_change`]). A server that swaps a key after the
//! first sight is therefore caught.
//!
//! **What it does not give.** The first key seen is the server's word. A
//! server that substitutes its own key *before* the first sight is pinned as
//! if it were genuine, and nothing here can tell. Only comparing safety
//! numbers over another channel ([`crate::fingerprint`], then
//! [`TrustStore::verify`]) catches that; [`TrustPolicy::VerifiedOnly`] makes
//! that comparison a precondition of every use.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
//! use streamseal_crypto::trust::{KeyState, TrustLevel, TrustPolicy, TrustStore};
//! use streamseal_crypto::ErrorCode;
//!
//! let me = IdentityKey::generate(RecipientKind::User, KeyId::new("key_laptop")?)?;
//! let bob = Recipient::of(&IdentityKey::generate(RecipientKind::User, KeyId::new("key_phone")?)?);
//!
//! let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! // First sight: pinned, usable, not verified.
//! let key = store.admit("usr_bob", &bob)?;
//! assert_eq!(key.level(), TrustLevel::Unverified);
//!
//! // The server later presents another key under the same id: noticed, refused.
//! let swapped = Recipient::of(&IdentityKey::generate(RecipientKind::User, KeyId::new("key_phone")?)?);
//! assert_eq!(store.observe("usr_bob", &swapped)?, KeyState::Changed);
//! assert_eq!(store.trusted("usr_bob", &swapped).unwrap_err().code(), ErrorCode::KeyChanged);
//! assert_eq!(store.trusted("usr_bob", &bob).unwrap_err().code(), ErrorCode::KeyChanged);
//!
//! // Bob and the user compare safety numbers: they match Bob's original key.
//! store.verify("usr_bob", &bob)?;
//! assert_eq!(store.trusted("usr_bob", &bob)?.level(), TrustLevel::Verified);
//!
//! // The store persists sealed under the caller's identity key.
//! let bytes = store.to_bytes(&me)?;
//! assert_eq!(TrustStore::from_bytes(&bytes, &me)?, store);
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```
//!
//! ## Persisted form
//!
//! [`TrustStore::to_bytes`] seals the body below with the local persistence
//! scheme (label `streamseal/trust`, version 1), under the caller's identity
//! key. The body uses the crate's strict framing (big-endian integers, strings
//! as `u16` length and 1 to 1024 bytes of UTF-8); public keys are written as
//! strings of their 44-character base64:
//!
//! ```text
//! "streamseal/trust-body" || u8 version (1) || u8 policy (0 tofu, 1 verified-only,
//!   2 refuse-after-verified-change) || u32 count (at most 65536)
//! count entries, sorted by (subject, key id) bytes, no repeats:
//!   str subject || str kind || str key id || str public key
//!   || bool verified || bool previously_verified
//!   || u8 pending (0 none, 1 then: str kind || str public key)
//! ```
//!
//! The decoder refuses anything the encoder would not write (trailing bytes,
//! repeated or unsorted entries, an unknown policy, non-canonical base64, a
//! pending key equal to the pin), so `decode(encode(x)) == x` and every
//! accepted body re-encodes to itself.

use std::collections::BTreeMap;

use crate::codec::{self, Reader, Writer};
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind};
use crate::persist;

/// Most (subject, key id) pins a store holds.
pub const MAX_PINNED_KEYS: usize = 65_536;

const STATE_LABEL: &[u8] = b"streamseal/trust";
const STATE_VERSION: u8 = 1;
const BODY_MAGIC: &[u8] = b"streamseal/trust-body";
const BODY_VERSION: u8 = 1;

/// How much a pinned key must have been checked before it may be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrustPolicy {
    /// Trust on first use (`"tofu"`): a pinned key is usable unverified; a
    /// change is refused until verified or acknowledged.
    TofuWithAlerts,
    /// Only verified keys are usable (`"verified-only"`).
    VerifiedOnly,
    /// As [`TrustPolicy::TofuWithAlerts`], except that once a verified key has
    /// changed, only verifying the new key makes it usable
    /// (`"refuse-after-verified-change"`).
    RefuseAfterVerifiedChange,
}

impl TrustPolicy {
    /// The spelling: `"tofu"`, `"verified-only"`, `"refuse-after-verified-change"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TrustPolicy::TofuWithAlerts => "tofu",
            TrustPolicy::VerifiedOnly => "verified-only",
            TrustPolicy::RefuseAfterVerifiedChange => "refuse-after-verified-change",
        }
    }

    /// Parses the spelling of [`TrustPolicy::as_str`]; anything else is `INVALID_FIELD`.
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` for any other spelling.
    pub fn parse(text: &str) -> CryptoResult<Self> {
        match text {
            "tofu" => Ok(TrustPolicy::TofuWithAlerts),
            "verified-only" => Ok(TrustPolicy::VerifiedOnly),
            "refuse-after-verified-change" => Ok(TrustPolicy::RefuseAfterVerifiedChange),
            _ => Err(CryptoError::invalid(
                "trustPolicy",
                "not one of tofu, verified-only, refuse-after-verified-change",
            )),
        }
    }

    const fn to_byte(self) -> u8 {
        match self {
            TrustPolicy::TofuWithAlerts => 0,
            TrustPolicy::VerifiedOnly => 1,
            TrustPolicy::RefuseAfterVerifiedChange => 2,
        }
    }

    const fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(TrustPolicy::TofuWithAlerts),
            1 => Some(TrustPolicy::VerifiedOnly),
            2 => Some(TrustPolicy::RefuseAfterVerifiedChange),
            _ => None,
        }
    }
}

/// How far a usable key has been checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "lowercase")
)]
pub enum TrustLevel {
    /// The user compared safety numbers for this key (`"verified"`).
    Verified,
    /// The key is pinned on first use (or an acknowledged change) only (`"unverified"`).
    Unverified,
}

impl TrustLevel {
    /// The spelling: `"verified"` or `"unverified"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            TrustLevel::Verified => "verified",
            TrustLevel::Unverified => "unverified",
        }
    }
}

// Crosses UniFFI as its spelling (`"verified"`, `"unverified"`), as it does
// to JS: `SealedBy.status` carries one.
#[cfg(feature = "uniffi")]
uniffi::custom_type!(TrustLevel, String, {
    lower: |level| level.as_str().to_owned(),
    try_lift: |text| match text.as_str() {
        "verified" => Ok(TrustLevel::Verified),
        "unverified" => Ok(TrustLevel::Unverified),
        _ => Err(uniffi::deps::anyhow::anyhow!("unknown trust level")),
    },
});

/// What [`TrustStore::observe`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyState {
    /// First sight of this (subject, key id), and of the subject: now
    /// pinned, unverified (`"new"`).
    New,
    /// First sight of this key id for a subject that already has pinned keys
    /// (`"added"`): pinned, unverified. A runtime adding a machine looks like
    /// this, and so does a server slipping in a key of its own under a known
    /// bot or user: an app should show it, and under
    /// [`TrustPolicy::VerifiedOnly`] it is not used until verified.
    Added,
    /// The pinned key, unverified (`"same"`).
    Same,
    /// A key other than the pin, or a pin with a change still pending; the pin
    /// was unverified (`"changed"`).
    Changed,
    /// The pinned key, verified (`"verified"`).
    Verified,
    /// A key other than the pin, or a pin with a change still pending; the pin
    /// was verified (`"verified-then-changed"`): the strongest alert.
    VerifiedThenChanged,
}

impl KeyState {
    /// The spelling: `"new"`, `"added"`, `"same"`, `"changed"`, `"verified"`, `"verified-then-changed"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            KeyState::New => "new",
            KeyState::Added => "added",
            KeyState::Same => "same",
            KeyState::Changed => "changed",
            KeyState::Verified => "verified",
            KeyState::VerifiedThenChanged => "verified-then-changed",
        }
    }
}

/// What the store holds for one (subject, key id), for display.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PinnedKey {
    /// The user or bot id.
    pub subject: String,
    /// The pinned key, with the kind and id it is registered under.
    pub recipient: Recipient,
    /// Whether the user verified the pinned key.
    pub verified: bool,
    /// A different key the server presented since, not yet verified or
    /// acknowledged (the latest one if several).
    pub pending_change: Option<PublicKey>,
    /// The pin replaced a verified key by an unverified acceptance
    /// ([`TrustStore::acknowledge_change`]) and has not been verified since.
    pub previously_verified: bool,
}

/// A key the store allows to be used now, with how far it was checked.
///
/// Only [`TrustStore`] makes one, so holding a `TrustedKey` proves the check ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustedKey {
    subject: String,
    recipient: Recipient,
    level: TrustLevel,
}

impl TrustedKey {
    /// One of the caller's own keys, registered as `subject`'s: trusted
    /// (verified) by definition, since the caller holds its secret half.
    pub fn own(subject: &str, key: &IdentityKey) -> TrustedKey {
        TrustedKey {
            subject: subject.to_owned(),
            recipient: Recipient::of(key),
            level: TrustLevel::Verified,
        }
    }

    /// The user or bot id the key belongs to.
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The key, with the kind and id it is registered under.
    pub fn recipient(&self) -> &Recipient {
        &self.recipient
    }

    /// Whether the key was verified.
    pub fn level(&self) -> TrustLevel {
        self.level
    }
}

/// A public key with the kind it is registered as (the kind spelled canonically).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Material {
    kind: RecipientKind,
    public_key: PublicKey,
}

impl Material {
    fn of(key: &Recipient) -> Self {
        Material {
            // `Other("user")` and `User` are the same kind on the wire.
            kind: RecipientKind::parse(key.kind.as_str()),
            public_key: key.public_key,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Pin {
    current: Material,
    verified: bool,
    previously_verified: bool,
    pending: Option<Material>,
}

impl Pin {
    fn recipient(&self, key_id: &KeyId) -> Recipient {
        Recipient {
            kind: self.current.kind.clone(),
            key_id: key_id.clone(),
            public_key: self.current.public_key,
        }
    }

    fn describe(&self, subject: &str, key_id: &KeyId) -> PinnedKey {
        PinnedKey {
            subject: subject.to_owned(),
            recipient: self.recipient(key_id),
            verified: self.verified,
            pending_change: self.pending.as_ref().map(|p| p.public_key),
            previously_verified: self.previously_verified,
        }
    }
}

/// The pinned keys of the users and bots the caller deals with, and its
/// [`TrustPolicy`]. Holds public keys only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustStore {
    policy: TrustPolicy,
    // By (subject, key id), in the order `encode_body` writes: one B-tree,
    // not one per subject (its code is in the browser module once). Not a
    // sorted vector: the pairs come from the server, in any order it likes,
    // up to MAX_PINNED_KEYS, and a sorted vector (tried for the module's
    // size) shifts its tail on each insert: 65,536 subjects observed in
    // descending order took 5.2 s natively against 89 ms with B-trees.
    pins: BTreeMap<(String, KeyId), Pin>,
}

fn unknown(subject: &str, key_id: &KeyId) -> CryptoError {
    CryptoError::UnknownKey {
        subject: subject.to_owned(),
        key_id: key_id.as_str().to_owned(),
    }
}

fn changed(subject: &str, key_id: &KeyId) -> CryptoError {
    CryptoError::KeyChanged {
        subject: subject.to_owned(),
        key_id: key_id.as_str().to_owned(),
    }
}

fn not_verified(subject: &str, key_id: &KeyId) -> CryptoError {
    CryptoError::KeyNotVerified {
        subject: subject.to_owned(),
        key_id: key_id.as_str().to_owned(),
    }
}

fn malformed(reason: &'static str) -> CryptoError {
    CryptoError::MalformedState { reason }
}

impl TrustStore {
    /// An empty store under `policy`.
    pub fn new(policy: TrustPolicy) -> Self {
        TrustStore {
            policy,
            pins: BTreeMap::new(),
        }
    }

    /// The policy [`TrustStore::trusted`] applies.
    pub fn policy(&self) -> TrustPolicy {
        self.policy
    }

    /// Changes the policy; pins are kept as they are.
    pub fn set_policy(&mut self, policy: TrustPolicy) {
        self.policy = policy;
    }

    fn pin(&self, subject: &str, key_id: &KeyId) -> Option<&Pin> {
        self.pins.get(&(subject.to_owned(), key_id.clone()))
    }

    fn pin_mut(&mut self, subject: &str, key_id: &KeyId) -> Option<&mut Pin> {
        self.pins.get_mut(&(subject.to_owned(), key_id.clone()))
    }

    /// The pins of `subject`, by key id.
    fn pins_of<'a>(&'a self, subject: &'a str) -> impl Iterator<Item = (&'a KeyId, &'a Pin)> {
        self.pins
            .range((subject.to_owned(), KeyId::before_all())..)
            .take_while(move |((s, _), _)| s == subject)
            .map(|((_, key_id), pin)| (key_id, pin))
    }

    /// Records a key the server presented for `subject`.
    ///
    /// - First sight of (subject, key id): pinned, unverified -> [`KeyState::New`].
    /// - The pinned key (same kind and public key) -> [`KeyState::Same`], or
    ///   [`KeyState::Verified`] when the pin is verified.
    /// - A different public key or kind -> the pin is **not** replaced; the new
    ///   key is kept as the pending change (replacing an earlier pending one)
    ///   -> [`KeyState::Changed`], or [`KeyState::VerifiedThenChanged`] when
    ///   the pin is verified.
    /// - While a change is pending, presenting the pinned key again keeps the
    ///   pending change and still reports `Changed` / `VerifiedThenChanged`:
    ///   the change stays visible until it is handled.
    ///
    /// The subject and the kind's spelling must be 1 to 1024 bytes
    /// (`INVALID_LENGTH`); a new pin beyond [`MAX_PINNED_KEYS`] is `INVALID_FIELD`.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when the subject or the kind's spelling is empty or over
    /// 1024 bytes; `INVALID_FIELD` when a new pin would exceed [`MAX_PINNED_KEYS`].
    pub fn observe(&mut self, subject: &str, key: &Recipient) -> CryptoResult<KeyState> {
        codec::check_str("subject", subject)?;
        codec::check_str("kind", key.kind.as_str())?;
        let presented = Material::of(key);
        if let Some(pin) = self.pin_mut(subject, &key.key_id) {
            if pin.pending.is_none() && pin.current == presented {
                return Ok(if pin.verified {
                    KeyState::Verified
                } else {
                    KeyState::Same
                });
            }
            if pin.current != presented {
                pin.pending = Some(presented);
            }
            return Ok(if pin.verified {
                KeyState::VerifiedThenChanged
            } else {
                KeyState::Changed
            });
        }
        if self.pins.len() >= MAX_PINNED_KEYS {
            return Err(CryptoError::invalid(
                "trustStore",
                format!("more than {MAX_PINNED_KEYS} pinned keys"),
            ));
        }
        let known_subject = self.pins_of(subject).next().is_some();
        self.pins.insert(
            (subject.to_owned(), key.key_id.clone()),
            Pin {
                current: presented,
                verified: false,
                previously_verified: false,
                pending: None,
            },
        );
        Ok(if known_subject {
            KeyState::Added
        } else {
            KeyState::New
        })
    }

    /// Whether `key` may be used now. It must equal the pinned key (else
    /// `KEY_CHANGED`, or `UNKNOWN_KEY` if nothing is pinned for that id), have
    /// no pending change (else `KEY_CHANGED`: a changed key is never used
    /// silently, and neither is the old one until the change is handled), and
    /// satisfy the policy (else `KEY_NOT_VERIFIED`): under
    /// [`TrustPolicy::VerifiedOnly`] be verified, under
    /// [`TrustPolicy::RefuseAfterVerifiedChange`] be verified if it replaced
    /// a verified key.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY` when nothing is pinned for the key id; `KEY_CHANGED` when
    /// `key` differs from the pin or a change is pending; `KEY_NOT_VERIFIED` when
    /// the policy needs a verified key.
    pub fn trusted(&self, subject: &str, key: &Recipient) -> CryptoResult<TrustedKey> {
        let pin = self
            .pin(subject, &key.key_id)
            .ok_or_else(|| unknown(subject, &key.key_id))?;
        if pin.current != Material::of(key) {
            return Err(changed(subject, &key.key_id));
        }
        self.usable(subject, &key.key_id, pin)
    }

    /// The pinned key of (subject, key_id), under the same rules as
    /// [`TrustStore::trusted`].
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY` when nothing is pinned; `KEY_CHANGED` when a change is
    /// pending; `KEY_NOT_VERIFIED` when the policy needs a verified key.
    pub fn trusted_by_id(&self, subject: &str, key_id: &KeyId) -> CryptoResult<TrustedKey> {
        let pin = self
            .pin(subject, key_id)
            .ok_or_else(|| unknown(subject, key_id))?;
        self.usable(subject, key_id, pin)
    }

    fn usable(&self, subject: &str, key_id: &KeyId, pin: &Pin) -> CryptoResult<TrustedKey> {
        if pin.pending.is_some() {
            return Err(changed(subject, key_id));
        }
        let allowed = match self.policy {
            TrustPolicy::TofuWithAlerts => true,
            TrustPolicy::VerifiedOnly => pin.verified,
            TrustPolicy::RefuseAfterVerifiedChange => pin.verified || !pin.previously_verified,
        };
        if !allowed {
            return Err(not_verified(subject, key_id));
        }
        Ok(TrustedKey {
            subject: subject.to_owned(),
            recipient: pin.recipient(key_id),
            level: if pin.verified {
                TrustLevel::Verified
            } else {
                TrustLevel::Unverified
            },
        })
    }

    /// [`TrustStore::observe`], then [`TrustStore::trusted`]. A first sight is
    /// pinned even when the policy then refuses it.
    ///
    /// # Errors
    ///
    /// As [`TrustStore::observe`] (`INVALID_LENGTH`, `INVALID_FIELD`), then as
    /// [`TrustStore::trusted`] (`KEY_CHANGED`, `KEY_NOT_VERIFIED`).
    pub fn admit(&mut self, subject: &str, key: &Recipient) -> CryptoResult<TrustedKey> {
        self.observe(subject, key)?;
        self.trusted(subject, key)
    }

    /// The user compared the safety number for `key`: `key` (the pinned key
    /// or the pending one) becomes the pin, verified, and the pending change
    /// is cleared. Verifying the pinned key while a change is pending thus
    /// discards the change (the other party still has the old key).
    ///
    /// A key never presented for (subject, key id) is `UNKNOWN_KEY`: observe it first.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY` when `key` is neither the pinned key nor the pending one.
    pub fn verify(&mut self, subject: &str, key: &Recipient) -> CryptoResult<()> {
        let presented = Material::of(key);
        let pin = self
            .pin_mut(subject, &key.key_id)
            .ok_or_else(|| unknown(subject, &key.key_id))?;
        if pin.current != presented && pin.pending.as_ref() != Some(&presented) {
            return Err(unknown(subject, &key.key_id));
        }
        pin.current = presented;
        pin.verified = true;
        pin.previously_verified = false;
        pin.pending = None;
        Ok(())
    }

    /// The user accepted a change without verifying it: the pending key
    /// becomes the pin, unverified (with `previously_verified` set when the
    /// key it replaces was verified, or itself replaced a verified one).
    ///
    /// Nothing pinned is `UNKNOWN_KEY`; no pending change is `INVALID_FIELD`.
    /// Under [`TrustPolicy::RefuseAfterVerifiedChange`], replacing a verified
    /// key (or one with `previously_verified`) is `KEY_NOT_VERIFIED`: only
    /// [`TrustStore::verify`] of the new key can accept it.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY` when nothing is pinned; `INVALID_FIELD` when no change is
    /// pending; `KEY_NOT_VERIFIED` when the policy refuses replacing a verified key.
    pub fn acknowledge_change(&mut self, subject: &str, key_id: &KeyId) -> CryptoResult<()> {
        let policy = self.policy;
        let pin = self
            .pin_mut(subject, key_id)
            .ok_or_else(|| unknown(subject, key_id))?;
        let Some(next) = pin.pending.clone() else {
            return Err(CryptoError::invalid(
                "keyId",
                "no pending key change to acknowledge",
            ));
        };
        let had_verified = pin.verified || pin.previously_verified;
        if policy == TrustPolicy::RefuseAfterVerifiedChange && had_verified {
            return Err(not_verified(subject, key_id));
        }
        pin.current = next;
        pin.pending = None;
        pin.verified = false;
        pin.previously_verified = had_verified;
        Ok(())
    }

    /// What is pinned for (subject, key_id), if anything.
    pub fn pinned(&self, subject: &str, key_id: &KeyId) -> Option<PinnedKey> {
        self.pin(subject, key_id)
            .map(|pin| pin.describe(subject, key_id))
    }

    /// Every key pinned for `subject`, by key id.
    pub fn keys_of(&self, subject: &str) -> Vec<PinnedKey> {
        self.pins_of(subject)
            .map(|(key_id, pin)| pin.describe(subject, key_id))
            .collect()
    }

    /// Drops the pin of (subject, key_id); the next key presented for it is a
    /// first sight again. Returns whether anything was pinned.
    pub fn forget(&mut self, subject: &str, key_id: &KeyId) -> bool {
        self.pins
            .remove(&(subject.to_owned(), key_id.clone()))
            .is_some()
    }

    /// How many (subject, key id) pins the store holds.
    pub fn len(&self) -> usize {
        self.pins.len()
    }

    /// Whether the store holds no pin.
    pub fn is_empty(&self) -> bool {
        self.pins.is_empty()
    }

    /// The persisted form: the body sealed under the caller's identity key
    /// (label `streamseal/trust`, version 1), so that a copy of the file
    /// cannot be edited without [`TrustStore::from_bytes`] noticing.
    ///
    /// A store whose sealed form would exceed the 16 MiB that
    /// [`TrustStore::from_bytes`] accepts is `INPUT_TOO_LARGE`.
    ///
    /// # Errors
    ///
    /// `INPUT_TOO_LARGE` when the sealed form would exceed 16 MiB;
    /// `RANDOMNESS_UNAVAILABLE` when the iv cannot be drawn.
    pub fn to_bytes(&self, me: &IdentityKey) -> CryptoResult<Vec<u8>> {
        let body = self.encode_body()?;
        let sealed = persist::seal_local(STATE_LABEL, STATE_VERSION, me, &body)?;
        if sealed.len() > persist::MAX_PERSISTED_LEN {
            return Err(CryptoError::InputTooLarge {
                field: "trustStore",
                limit: persist::MAX_PERSISTED_LEN,
                actual: sealed.len(),
            });
        }
        Ok(sealed)
    }

    /// Opens bytes written by [`TrustStore::to_bytes`] under the same identity
    /// key. Bytes sealed under another key, or altered, are
    /// `STATE_AUTH_FAILED`; a body that does not parse is `MALFORMED_STATE`.
    ///
    /// # Errors
    ///
    /// `INPUT_TOO_LARGE` when `bytes` exceed 16 MiB; `STATE_AUTH_FAILED` when
    /// they do not authenticate under `me`; `MALFORMED_STATE` when they do not
    /// parse.
    pub fn from_bytes(bytes: &[u8], me: &IdentityKey) -> CryptoResult<TrustStore> {
        let body = persist::open_local(STATE_LABEL, STATE_VERSION, me, bytes)?;
        Self::decode_body(&body)
    }

    /// The body encoder alone (see the module docs for the format).
    #[doc(hidden)]
    pub fn encode_body(&self) -> CryptoResult<Vec<u8>> {
        let count = u32::try_from(self.pins.len())
            .map_err(|_| CryptoError::invalid("trustStore", "too many pinned keys"))?;
        let mut w = Writer::with_magic(BODY_MAGIC);
        w.u8(BODY_VERSION).u8(self.policy.to_byte()).u32(count);
        for ((subject, key_id), pin) in &self.pins {
            w.str("subject", subject)?
                .str("kind", pin.current.kind.as_str())?
                .str("keyId", key_id.as_str())?
                .str("publicKey", &pin.current.public_key.to_base64())?
                .bool(pin.verified)
                .bool(pin.previously_verified);
            match &pin.pending {
                None => {
                    w.u8(0);
                }
                Some(pending) => {
                    w.u8(1)
                        .str("kind", pending.kind.as_str())?
                        .str("publicKey", &pending.public_key.to_base64())?;
                }
            }
        }
        Ok(w.finish())
    }

    /// The body decoder alone, for the fuzz target. Strict: every refusal is
    /// `MALFORMED_STATE`.
    #[doc(hidden)]
    pub fn decode_body(body: &[u8]) -> CryptoResult<TrustStore> {
        let mut r = Reader::new(body, malformed);
        r.magic(BODY_MAGIC)?;
        if r.u8()? != BODY_VERSION {
            return Err(malformed("unsupported trust store version"));
        }
        let policy =
            TrustPolicy::from_byte(r.u8()?).ok_or_else(|| malformed("unknown trust policy"))?;
        let count = usize::try_from(r.u32()?).map_err(|_| malformed("too many pinned keys"))?;
        if count > MAX_PINNED_KEYS {
            return Err(malformed("too many pinned keys"));
        }
        let mut store = TrustStore::new(policy);
        for _ in 0..count {
            let subject = r.str()?;
            let kind = read_kind(&mut r)?;
            let key_id = KeyId::new(r.str()?).map_err(|_| malformed("key id out of range"))?;
            let current = Material {
                kind,
                public_key: read_public_key(&mut r)?,
            };
            let verified = r.bool()?;
            let previously_verified = r.bool()?;
            let pending = match r.u8()? {
                0 => None,
                1 => Some(Material {
                    kind: read_kind(&mut r)?,
                    public_key: read_public_key(&mut r)?,
                }),
                _ => return Err(malformed("presence flag is not 0 or 1")),
            };
            if verified && previously_verified {
                return Err(malformed("a verified pin is never previously verified"));
            }
            if pending.as_ref() == Some(&current) {
                return Err(malformed("pending key equals the pinned key"));
            }
            let after_last =
                store
                    .pins
                    .last_key_value()
                    .is_none_or(|((last_subject, last_id), _)| {
                        (last_subject.as_str(), last_id) < (subject.as_str(), &key_id)
                    });
            if !after_last {
                return Err(malformed("entries are not sorted or repeat"));
            }
            store.pins.insert(
                (subject, key_id),
                Pin {
                    current,
                    verified,
                    previously_verified,
                    pending,
                },
            );
        }
        r.end()?;
        Ok(store)
    }
}

/// A kind, which the encoder always writes in its canonical spelling.
fn read_kind(r: &mut Reader<'_>) -> CryptoResult<RecipientKind> {
    Ok(RecipientKind::parse(&r.str()?))
}

/// A public key written as its 44-character base64 (canonical, strict).
fn read_public_key(r: &mut Reader<'_>) -> CryptoResult<PublicKey> {
    PublicKey::from_base64(&r.str()?)
        .map_err(|_| malformed("public key is not 44 characters of base64"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use crate::identity::SecretKey;

    fn recipient(kind: RecipientKind, id: &str, byte: u8) -> Recipient {
        Recipient {
            kind,
            key_id: KeyId::new(id).unwrap(),
            public_key: PublicKey::from_bytes([byte; 32]),
        }
    }

    fn user(id: &str, byte: u8) -> Recipient {
        recipient(RecipientKind::User, id, byte)
    }

    fn me(byte: u8) -> IdentityKey {
        IdentityKey::from_secret(
            RecipientKind::User,
            KeyId::new("key_me").unwrap(),
            SecretKey::from_bytes(&[byte; 32]),
        )
    }

    fn code<T: std::fmt::Debug>(r: CryptoResult<T>) -> ErrorCode {
        r.unwrap_err().code()
    }

    #[test]
    fn a_subjects_pins_are_its_own_beside_subjects_that_share_a_prefix() {
        // One B-tree over (subject, key id): a subject's pins are a range, and
        // a neighbour whose id starts with it is not part of it.
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        for (subject, key_id, byte) in [
            ("usr_bobby", "k1", 1),
            ("usr_bob", "k2", 2),
            ("usr_bo", "k1", 3),
            ("usr_bob", "k1", 4),
            ("usr_boc", "k0", 5),
        ] {
            store.observe(subject, &user(key_id, byte)).unwrap();
        }
        let keys = |store: &TrustStore, subject: &str| -> Vec<(String, u8)> {
            store
                .keys_of(subject)
                .into_iter()
                .map(|p| {
                    let byte = p.recipient.public_key.as_bytes()[0];
                    (p.recipient.key_id.as_str().to_owned(), byte)
                })
                .collect()
        };
        assert_eq!(
            keys(&store, "usr_bob"),
            [("k1".into(), 4), ("k2".into(), 2)]
        );
        assert_eq!(keys(&store, "usr_bo"), [("k1".into(), 3)]);
        assert!(keys(&store, "usr_b").is_empty());
        assert_eq!(store.len(), 5);
        // Forgetting a subject's every key makes its next key a first sight.
        assert!(store.forget("usr_bob", &KeyId::new("k1").unwrap()));
        assert!(store.forget("usr_bob", &KeyId::new("k2").unwrap()));
        assert!(!store.forget("usr_bob", &KeyId::new("k2").unwrap()));
        assert_eq!(
            store.observe("usr_bob", &user("k9", 9)).unwrap(),
            KeyState::New
        );
        assert_eq!(
            store.observe("usr_bob", &user("k8", 8)).unwrap(),
            KeyState::Added
        );
        assert_eq!(keys(&store, "usr_bobby"), [("k1".into(), 1)]);
        assert_eq!(store.len(), 5);
    }

    #[test]
    fn spellings_round_trip() {
        for p in [
            TrustPolicy::TofuWithAlerts,
            TrustPolicy::VerifiedOnly,
            TrustPolicy::RefuseAfterVerifiedChange,
        ] {
            assert_eq!(TrustPolicy::parse(p.as_str()).unwrap(), p);
            assert_eq!(TrustPolicy::from_byte(p.to_byte()), Some(p));
        }
        assert_eq!(code(TrustPolicy::parse("Tofu")), ErrorCode::InvalidField);
        assert_eq!(TrustLevel::Verified.as_str(), "verified");
        assert_eq!(TrustLevel::Unverified.as_str(), "unverified");
        let states = [
            KeyState::New,
            KeyState::Added,
            KeyState::Same,
            KeyState::Changed,
            KeyState::Verified,
            KeyState::VerifiedThenChanged,
        ];
        let names: Vec<_> = states.iter().map(|s| s.as_str()).collect();
        assert_eq!(
            names,
            [
                "new",
                "added",
                "same",
                "changed",
                "verified",
                "verified-then-changed"
            ]
        );
    }

    #[test]
    fn first_sight_pins_unverified() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let bob = user("k1", 1);
        assert!(store.is_empty());
        assert_eq!(code(store.trusted("usr_bob", &bob)), ErrorCode::UnknownKey);
        assert_eq!(store.observe("usr_bob", &bob).unwrap(), KeyState::New);
        assert_eq!(store.len(), 1);
        assert_eq!(store.observe("usr_bob", &bob).unwrap(), KeyState::Same);
        // A further key id under a subject already known is told apart.
        assert_eq!(
            store.observe("usr_bob", &user("k2", 2)).unwrap(),
            KeyState::Added
        );
        assert_eq!(
            store.observe("usr_bob", &user("k2", 2)).unwrap(),
            KeyState::Same
        );
        assert!(store.forget("usr_bob", &KeyId::new("k2").unwrap()));
        let trusted = store.trusted("usr_bob", &bob).unwrap();
        assert_eq!(trusted.subject(), "usr_bob");
        assert_eq!(trusted.recipient(), &bob);
        assert_eq!(trusted.level(), TrustLevel::Unverified);
        assert_eq!(
            store.trusted_by_id("usr_bob", &bob.key_id).unwrap(),
            trusted
        );
        assert_eq!(
            store.pinned("usr_bob", &bob.key_id).unwrap(),
            PinnedKey {
                subject: "usr_bob".into(),
                recipient: bob.clone(),
                verified: false,
                pending_change: None,
                previously_verified: false,
            }
        );
        // The same key id under another subject is another pin.
        assert_eq!(
            code(store.trusted("usr_carol", &bob)),
            ErrorCode::UnknownKey
        );
        assert_eq!(
            code(store.trusted_by_id("usr_bob", &KeyId::new("k2").unwrap())),
            ErrorCode::UnknownKey
        );
    }

    #[test]
    fn changed_key_is_refused_and_the_old_one_too_while_pending() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let old = user("k1", 1);
        let new = user("k1", 2);
        store.admit("usr_bob", &old).unwrap();
        assert_eq!(store.observe("usr_bob", &new).unwrap(), KeyState::Changed);
        // The pin is not replaced.
        let pinned = store.pinned("usr_bob", &old.key_id).unwrap();
        assert_eq!(pinned.recipient, old);
        assert_eq!(pinned.pending_change, Some(new.public_key));
        // Neither key is usable, by key or by id, nor through admit.
        assert_eq!(code(store.trusted("usr_bob", &new)), ErrorCode::KeyChanged);
        assert_eq!(code(store.trusted("usr_bob", &old)), ErrorCode::KeyChanged);
        assert_eq!(
            code(store.trusted_by_id("usr_bob", &old.key_id)),
            ErrorCode::KeyChanged
        );
        assert_eq!(code(store.admit("usr_bob", &old)), ErrorCode::KeyChanged);
        assert_eq!(code(store.admit("usr_bob", &new)), ErrorCode::KeyChanged);
        // The server presenting the old key again does not clear the change.
        assert_eq!(store.observe("usr_bob", &old).unwrap(), KeyState::Changed);
        assert_eq!(
            store.pinned("usr_bob", &old.key_id).unwrap().pending_change,
            Some(new.public_key)
        );
        // A third key replaces the pending one.
        let third = user("k1", 3);
        assert_eq!(store.observe("usr_bob", &third).unwrap(), KeyState::Changed);
        assert_eq!(
            store.pinned("usr_bob", &old.key_id).unwrap().pending_change,
            Some(third.public_key)
        );
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn changed_kind_counts_as_a_change() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let as_user = user("k1", 1);
        let as_bot = recipient(RecipientKind::Bot, "k1", 1);
        store.admit("usr_bob", &as_user).unwrap();
        assert_eq!(
            code(store.trusted("usr_bob", &as_bot)),
            ErrorCode::KeyChanged
        );
        assert_eq!(
            store.observe("usr_bob", &as_bot).unwrap(),
            KeyState::Changed
        );
        assert_eq!(
            code(store.trusted("usr_bob", &as_user)),
            ErrorCode::KeyChanged
        );
        store
            .acknowledge_change("usr_bob", &as_user.key_id)
            .unwrap();
        // The acknowledged pin carries the new kind.
        assert_eq!(
            store.trusted("usr_bob", &as_bot).unwrap().recipient(),
            &as_bot
        );
        assert_eq!(
            code(store.trusted("usr_bob", &as_user)),
            ErrorCode::KeyChanged
        );
        // An unknown kind spelled like a known one is the known one.
        let spelled = recipient(RecipientKind::Other("bot".into()), "k1", 1);
        assert_eq!(store.observe("usr_bob", &spelled).unwrap(), KeyState::Same);
        assert!(store.trusted("usr_bob", &spelled).is_ok());
    }

    #[test]
    fn acknowledge_makes_the_new_key_usable_unverified() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let old = user("k1", 1);
        let new = user("k1", 2);
        store.admit("usr_bob", &old).unwrap();
        assert_eq!(
            code(store.acknowledge_change("usr_bob", &old.key_id)),
            ErrorCode::InvalidField
        );
        assert_eq!(
            code(store.acknowledge_change("usr_carol", &old.key_id)),
            ErrorCode::UnknownKey
        );
        store.observe("usr_bob", &new).unwrap();
        store.acknowledge_change("usr_bob", &old.key_id).unwrap();
        let trusted = store.trusted("usr_bob", &new).unwrap();
        assert_eq!(trusted.level(), TrustLevel::Unverified);
        assert_eq!(code(store.trusted("usr_bob", &old)), ErrorCode::KeyChanged);
        assert_eq!(store.observe("usr_bob", &new).unwrap(), KeyState::Same);
        // The old key coming back is a change again.
        assert_eq!(store.observe("usr_bob", &old).unwrap(), KeyState::Changed);
    }

    #[test]
    fn verified_only_refuses_unverified_keys() {
        let mut store = TrustStore::new(TrustPolicy::VerifiedOnly);
        let bob = user("k1", 1);
        // Pinned on first sight, but not usable.
        assert_eq!(
            code(store.admit("usr_bob", &bob)),
            ErrorCode::KeyNotVerified
        );
        assert_eq!(store.len(), 1);
        assert_eq!(
            code(store.trusted("usr_bob", &bob)),
            ErrorCode::KeyNotVerified
        );
        store.verify("usr_bob", &bob).unwrap();
        assert_eq!(store.observe("usr_bob", &bob).unwrap(), KeyState::Verified);
        assert_eq!(
            store.trusted("usr_bob", &bob).unwrap().level(),
            TrustLevel::Verified
        );
        // An acknowledged change is unverified again.
        let new = user("k1", 2);
        assert_eq!(
            store.observe("usr_bob", &new).unwrap(),
            KeyState::VerifiedThenChanged
        );
        store.acknowledge_change("usr_bob", &bob.key_id).unwrap();
        assert_eq!(
            code(store.trusted("usr_bob", &new)),
            ErrorCode::KeyNotVerified
        );
        let pinned = store.pinned("usr_bob", &bob.key_id).unwrap();
        assert!(!pinned.verified && pinned.previously_verified);
        // Relaxing the policy makes it usable.
        store.set_policy(TrustPolicy::TofuWithAlerts);
        assert_eq!(store.policy(), TrustPolicy::TofuWithAlerts);
        assert!(store.trusted("usr_bob", &new).is_ok());
    }

    #[test]
    fn refuse_after_verified_change_needs_verify() {
        let mut store = TrustStore::new(TrustPolicy::RefuseAfterVerifiedChange);
        let old = user("k1", 1);
        let new = user("k1", 2);
        // Unverified keys are usable, and unverified changes acknowledgeable.
        store.admit("usr_bob", &old).unwrap();
        store.observe("usr_bob", &new).unwrap();
        store.acknowledge_change("usr_bob", &old.key_id).unwrap();
        assert!(store.trusted("usr_bob", &new).is_ok());
        // Once verified, a change cannot be acknowledged.
        store.verify("usr_bob", &new).unwrap();
        let third = user("k1", 3);
        assert_eq!(
            store.observe("usr_bob", &third).unwrap(),
            KeyState::VerifiedThenChanged
        );
        assert_eq!(
            code(store.acknowledge_change("usr_bob", &old.key_id)),
            ErrorCode::KeyNotVerified
        );
        assert_eq!(
            code(store.trusted("usr_bob", &third)),
            ErrorCode::KeyChanged
        );
        assert_eq!(code(store.trusted("usr_bob", &new)), ErrorCode::KeyChanged);
        // Verifying the new key accepts it.
        store.verify("usr_bob", &third).unwrap();
        assert_eq!(
            store.trusted("usr_bob", &third).unwrap().level(),
            TrustLevel::Verified
        );
    }

    #[test]
    fn refuse_after_verified_change_refuses_a_change_acknowledged_under_tofu() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let old = user("k1", 1);
        let new = user("k1", 2);
        store.admit("usr_bob", &old).unwrap();
        store.verify("usr_bob", &old).unwrap();
        store.observe("usr_bob", &new).unwrap();
        store.acknowledge_change("usr_bob", &old.key_id).unwrap();
        assert!(store.trusted("usr_bob", &new).is_ok());
        store.set_policy(TrustPolicy::RefuseAfterVerifiedChange);
        assert_eq!(
            code(store.trusted("usr_bob", &new)),
            ErrorCode::KeyNotVerified
        );
        // A further change cannot be acknowledged either: the chain had a verified key.
        let third = user("k1", 3);
        store.observe("usr_bob", &third).unwrap();
        assert_eq!(
            code(store.acknowledge_change("usr_bob", &old.key_id)),
            ErrorCode::KeyNotVerified
        );
        store.verify("usr_bob", &third).unwrap();
        let pinned = store.pinned("usr_bob", &old.key_id).unwrap();
        assert!(pinned.verified && !pinned.previously_verified);
        assert!(store.trusted("usr_bob", &third).is_ok());
    }

    #[test]
    fn verifying_the_pinned_key_discards_a_substituted_one() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let genuine = user("k1", 1);
        let substitute = user("k1", 66);
        store.admit("usr_bob", &genuine).unwrap();
        store.observe("usr_bob", &substitute).unwrap();
        // The safety number matches the genuine key: the change is dropped.
        store.verify("usr_bob", &genuine).unwrap();
        let pinned = store.pinned("usr_bob", &genuine.key_id).unwrap();
        assert_eq!(pinned.recipient, genuine);
        assert_eq!(pinned.pending_change, None);
        assert!(pinned.verified);
        assert_eq!(
            code(store.trusted("usr_bob", &substitute)),
            ErrorCode::KeyChanged
        );
        assert!(store.trusted("usr_bob", &genuine).is_ok());
    }

    #[test]
    fn verify_refuses_keys_never_presented() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let bob = user("k1", 1);
        assert_eq!(code(store.verify("usr_bob", &bob)), ErrorCode::UnknownKey);
        store.observe("usr_bob", &bob).unwrap();
        assert_eq!(
            code(store.verify("usr_bob", &user("k1", 2))),
            ErrorCode::UnknownKey
        );
        assert_eq!(
            code(store.verify("usr_bob", &recipient(RecipientKind::Bot, "k1", 1))),
            ErrorCode::UnknownKey
        );
        assert!(!store.pinned("usr_bob", &bob.key_id).unwrap().verified);
    }

    #[test]
    fn subjects_are_bounded() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let bob = user("k1", 1);
        assert_eq!(code(store.observe("", &bob)), ErrorCode::InvalidLength);
        assert_eq!(
            code(store.observe(&"u".repeat(1025), &bob)),
            ErrorCode::InvalidLength
        );
        let odd = recipient(RecipientKind::Other(String::new()), "k1", 1);
        assert_eq!(
            code(store.observe("usr_bob", &odd)),
            ErrorCode::InvalidLength
        );
        assert!(store.is_empty());
        assert_eq!(
            store.observe(&"u".repeat(1024), &bob).unwrap(),
            KeyState::New
        );
    }

    #[test]
    fn keys_of_and_forget() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        store.observe("usr_bob", &user("k2", 2)).unwrap();
        store.observe("usr_bob", &user("k1", 1)).unwrap();
        store.observe("usr_carol", &user("k1", 3)).unwrap();
        let ids: Vec<_> = store
            .keys_of("usr_bob")
            .into_iter()
            .map(|k| k.recipient.key_id.as_str().to_owned())
            .collect();
        assert_eq!(ids, ["k1", "k2"]);
        assert!(store.keys_of("usr_dave").is_empty());
        assert_eq!(store.len(), 3);
        let k1 = KeyId::new("k1").unwrap();
        assert!(store.forget("usr_bob", &k1));
        assert!(!store.forget("usr_bob", &k1));
        assert!(!store.forget("usr_dave", &k1));
        assert_eq!(store.len(), 2);
        assert!(store.forget("usr_bob", &KeyId::new("k2").unwrap()));
        assert!(store.keys_of("usr_bob").is_empty());
        // Forgetting makes the next key a first sight (and the store equal to a fresh one).
        let mut fresh = TrustStore::new(TrustPolicy::TofuWithAlerts);
        fresh.observe("usr_carol", &user("k1", 3)).unwrap();
        assert_eq!(store, fresh);
        assert_eq!(
            store.observe("usr_bob", &user("k1", 9)).unwrap(),
            KeyState::New
        );
    }

    #[test]
    fn pins_are_capped() {
        let mut store = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let key = user("k", 1);
        for i in 0..MAX_PINNED_KEYS {
            store.observe(&format!("usr_{i}"), &key).unwrap();
        }
        assert_eq!(store.len(), MAX_PINNED_KEYS);
        assert_eq!(
            code(store.observe("usr_one_more", &key)),
            ErrorCode::InvalidField
        );
        // Known pins are still observed.
        assert_eq!(store.observe("usr_0", &key).unwrap(), KeyState::Same);
        assert_eq!(
            store.observe("usr_0", &user("k", 2)).unwrap(),
            KeyState::Changed
        );
    }

    /// A store with every kind of entry: verified, pending, previously
    /// verified, an open kind, several subjects and key ids.
    fn sample() -> TrustStore {
        let mut store = TrustStore::new(TrustPolicy::RefuseAfterVerifiedChange);
        store.observe("usr_bob", &user("k1", 1)).unwrap();
        store.verify("usr_bob", &user("k1", 1)).unwrap();
        store.observe("usr_bob", &user("k2", 2)).unwrap();
        store.observe("usr_bob", &user("k2", 3)).unwrap();
        store
            .observe("bot_helper", &recipient(RecipientKind::Bot, "machine-a", 4))
            .unwrap();
        store
            .observe(
                "bot_helper",
                &recipient(RecipientKind::Other("device".into()), "machine-b", 5),
            )
            .unwrap();
        store
            .observe("usr_carol", &recipient(RecipientKind::Bot, "k1", 6))
            .unwrap();
        store.observe("usr_carol", &user("k1", 6)).unwrap();
        store.set_policy(TrustPolicy::TofuWithAlerts);
        store.observe("usr_dave", &user("k1", 7)).unwrap();
        store.verify("usr_dave", &user("k1", 7)).unwrap();
        store.observe("usr_dave", &user("k1", 8)).unwrap();
        store
            .acknowledge_change("usr_dave", &KeyId::new("k1").unwrap())
            .unwrap();
        store.set_policy(TrustPolicy::RefuseAfterVerifiedChange);
        store
    }

    #[test]
    fn persistence_round_trip() {
        let store = sample();
        assert!(
            store
                .pinned("usr_dave", &KeyId::new("k1").unwrap())
                .unwrap()
                .previously_verified
        );
        let body = store.encode_body().unwrap();
        assert_eq!(TrustStore::decode_body(&body).unwrap(), store);
        let bytes = store.to_bytes(&me(1)).unwrap();
        let back = TrustStore::from_bytes(&bytes, &me(1)).unwrap();
        assert_eq!(back, store);
        assert_eq!(back.encode_body().unwrap(), body);
        // Empty stores, every policy.
        for policy in [
            TrustPolicy::TofuWithAlerts,
            TrustPolicy::VerifiedOnly,
            TrustPolicy::RefuseAfterVerifiedChange,
        ] {
            let empty = TrustStore::new(policy);
            let bytes = empty.to_bytes(&me(1)).unwrap();
            assert_eq!(TrustStore::from_bytes(&bytes, &me(1)).unwrap(), empty);
        }
    }

    #[test]
    fn sealed_state_authenticates_under_the_identity_key() {
        let bytes = sample().to_bytes(&me(1)).unwrap();
        assert_eq!(
            code(TrustStore::from_bytes(&bytes, &me(2))),
            ErrorCode::StateAuthFailed
        );
        for i in [bytes.len() - 1, bytes.len() / 2, STATE_LABEL.len() + 2] {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x01;
            assert_eq!(
                code(TrustStore::from_bytes(&flipped, &me(1))),
                ErrorCode::StateAuthFailed
            );
        }
        assert_eq!(
            code(TrustStore::from_bytes(&bytes[..20], &me(1))),
            ErrorCode::MalformedState
        );
        assert_eq!(
            code(TrustStore::from_bytes(b"", &me(1))),
            ErrorCode::MalformedState
        );
        // Another kind of local state is not a trust store.
        let other = persist::seal_local(
            b"streamseal/state",
            1,
            &me(1),
            &sample().encode_body().unwrap(),
        )
        .unwrap();
        assert_eq!(
            code(TrustStore::from_bytes(&other, &me(1))),
            ErrorCode::MalformedState
        );
    }

    /// The body of `sample()` split into its header and entries, to rebuild
    /// altered bodies from.
    fn header(policy: u8, count: u32) -> Vec<u8> {
        let mut w = Writer::with_magic(BODY_MAGIC);
        w.u8(BODY_VERSION).u8(policy).u32(count);
        w.finish()
    }

    fn entry(subject: &str, key_id: &str, byte: u8, pending: Option<u8>) -> Vec<u8> {
        let mut w = Writer::default();
        w.str("subject", subject)
            .unwrap()
            .str("kind", "user")
            .unwrap()
            .str("keyId", key_id)
            .unwrap()
            .str("publicKey", &PublicKey::from_bytes([byte; 32]).to_base64())
            .unwrap()
            .bool(false)
            .bool(false);
        match pending {
            None => {
                w.u8(0);
            }
            Some(b) => {
                w.u8(1)
                    .str("kind", "user")
                    .unwrap()
                    .str("publicKey", &PublicKey::from_bytes([b; 32]).to_base64())
                    .unwrap();
            }
        }
        w.finish()
    }

    fn body(count: u32, entries: &[Vec<u8>]) -> Vec<u8> {
        let mut out = header(0, count);
        for e in entries {
            out.extend_from_slice(e);
        }
        out
    }

    #[test]
    fn hand_built_bodies_decode() {
        let a = entry("usr_a", "k1", 1, None);
        let b = entry("usr_a", "k2", 2, Some(3));
        let c = entry("usr_b", "k1", 4, None);
        let store = TrustStore::decode_body(&body(3, &[a, b, c])).unwrap();
        assert_eq!(store.len(), 3);
        assert_eq!(
            store
                .pinned("usr_a", &KeyId::new("k2").unwrap())
                .unwrap()
                .pending_change,
            Some(PublicKey::from_bytes([3; 32]))
        );
    }

    #[test]
    fn malformed_bodies_are_refused() {
        let a = entry("usr_a", "k1", 1, None);
        let b = entry("usr_a", "k2", 2, None);
        let c = entry("usr_b", "k1", 3, None);
        let bad = |bytes: &[u8]| code(TrustStore::decode_body(bytes));

        let good = body(3, &[a.clone(), b.clone(), c.clone()]);
        // Every truncation.
        for n in 0..good.len() {
            assert_eq!(
                bad(&good[..n]),
                ErrorCode::MalformedState,
                "truncated to {n}"
            );
        }
        // Trailing bytes, a count that disagrees.
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(bad(&trailing), ErrorCode::MalformedState);
        assert_eq!(
            bad(&body(2, &[a.clone(), b.clone(), c.clone()])),
            ErrorCode::MalformedState
        );
        assert_eq!(
            bad(&body(4, &[a.clone(), b.clone(), c.clone()])),
            ErrorCode::MalformedState
        );
        // Duplicated and unsorted entries (by key id, by subject).
        assert_eq!(
            bad(&body(2, &[a.clone(), a.clone()])),
            ErrorCode::MalformedState
        );
        let a_again = entry("usr_a", "k1", 9, None);
        assert_eq!(
            bad(&body(2, &[a.clone(), a_again])),
            ErrorCode::MalformedState
        );
        assert_eq!(
            bad(&body(2, &[b.clone(), a.clone()])),
            ErrorCode::MalformedState
        );
        assert_eq!(
            bad(&body(2, &[c.clone(), a.clone()])),
            ErrorCode::MalformedState
        );
        // Unknown policy and version, wrong magic, too many entries.
        let mut policy = good.clone();
        policy[BODY_MAGIC.len() + 1] = 3;
        assert_eq!(bad(&policy), ErrorCode::MalformedState);
        let mut version = good.clone();
        version[BODY_MAGIC.len()] = 2;
        assert_eq!(bad(&version), ErrorCode::MalformedState);
        let mut magic = good.clone();
        magic[0] ^= 1;
        assert_eq!(bad(&magic), ErrorCode::MalformedState);
        let over = u32::try_from(MAX_PINNED_KEYS + 1).unwrap();
        assert_eq!(bad(&header(0, over)), ErrorCode::MalformedState);
        assert_eq!(bad(&header(0, u32::MAX)), ErrorCode::MalformedState);
        // A pending key equal to the pin; inconsistent flags.
        assert_eq!(
            bad(&body(1, &[entry("usr_a", "k1", 1, Some(1))])),
            ErrorCode::MalformedState
        );
        let mut flags = body(1, std::slice::from_ref(&a));
        let at = flags.len() - 3; // verified, previously_verified, pending flag
        flags[at] = 1;
        flags[at + 1] = 1;
        assert_eq!(bad(&flags), ErrorCode::MalformedState);
        let mut not_bool = body(1, std::slice::from_ref(&a));
        not_bool[at] = 2;
        assert_eq!(bad(&not_bool), ErrorCode::MalformedState);
        let mut not_flag = body(1, std::slice::from_ref(&a));
        not_flag[at + 2] = 2;
        assert_eq!(bad(&not_flag), ErrorCode::MalformedState);
        // A public key that is not canonical base64, a key id over 128 characters.
        let mut w = Writer::default();
        w.str("subject", "usr_a")
            .unwrap()
            .str("kind", "user")
            .unwrap()
            .str("keyId", "k1")
            .unwrap();
        let mut key = PublicKey::from_bytes([1; 32]).to_base64();
        key.replace_range(42..43, "B"); // nonzero padding bits
        w.str("publicKey", &key)
            .unwrap()
            .bool(false)
            .bool(false)
            .u8(0);
        assert_eq!(bad(&body(1, &[w.finish()])), ErrorCode::MalformedState);
        assert_eq!(
            bad(&body(1, &[entry("usr_a", &"k".repeat(129), 1, None)])),
            ErrorCode::MalformedState
        );
    }

    /// xorshift64*: a fixed pseudo-random sequence, so failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
        }
    }

    #[test]
    fn arbitrary_bodies_never_panic_and_accepted_ones_are_canonical() {
        let mut rng = Rng(0x5eed_0f72_7573_7400);
        let seed = sample().encode_body().unwrap();
        let mut accepted = 0;
        for round in 0..6000 {
            let bytes: Vec<u8> = if round % 3 == 0 {
                // Random bytes, sometimes behind a valid header.
                let len = rng.below(300);
                let mut out = if round % 2 == 0 {
                    header(0, 1)
                } else {
                    Vec::new()
                };
                out.extend((0..len).map(|_| rng.next().to_le_bytes()[0]));
                out
            } else {
                // A few random byte changes, cuts or insertions in a valid body.
                let mut out = seed.clone();
                for _ in 0..=rng.below(3) {
                    let at = rng.below(out.len() + 1);
                    match rng.below(3) {
                        0 if at < out.len() => out[at] = rng.next().to_le_bytes()[0],
                        1 => out.truncate(at),
                        _ => out.insert(at, rng.next().to_le_bytes()[0]),
                    }
                }
                out
            };
            match TrustStore::decode_body(&bytes) {
                Ok(store) => {
                    accepted += 1;
                    assert_eq!(store.encode_body().unwrap(), bytes, "round {round}");
                }
                Err(e) => assert_eq!(e.code(), ErrorCode::MalformedState, "round {round}"),
            }
        }
        // Mutations that land in a string or key byte still decode sometimes.
        assert!(accepted > 0);
    }
}
