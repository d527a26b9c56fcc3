//! Key verification (`streamseal::trust`, `streamseal::fingerprint`): the
//! trust store that pins each user's and bot's keys on first use, the keys
//! it lets the caller use, fingerprints and safety numbers.
//!
//! Trust levels, key states and policies cross as their spellings
//! (`"verified"`, `"changed"`, `"tofu"`), as they do to JS.

use std::sync::{Arc, Mutex};

use streamseal::fingerprint as fp;
use streamseal::identity::{KeyId, PublicKey};
use streamseal::trust::{self, TrustPolicy};

use crate::error::Result;
use crate::keys::{IdentityKey, Recipient};
use crate::lock;

/// What the store holds for one (subject, key id), for display.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct PinnedKey {
    /// The user or bot id.
    pub subject: String,
    /// The pinned key, with the kind and id it is registered under.
    pub recipient: Recipient,
    /// Whether the user verified the pinned key.
    pub verified: bool,
    /// A different public key (base64) the server presented since, not yet
    /// verified or acknowledged.
    pub pending_change: Option<String>,
    /// The pin replaced a verified key by an unverified acceptance and has
    /// not been verified since.
    pub previously_verified: bool,
}

impl From<trust::PinnedKey> for PinnedKey {
    fn from(p: trust::PinnedKey) -> Self {
        PinnedKey {
            subject: p.subject,
            recipient: Recipient::from(&p.recipient),
            verified: p.verified,
            pending_change: p.pending_change.map(|k| k.to_base64()),
            previously_verified: p.previously_verified,
        }
    }
}

/// A key the trust store allows to be used now (or one of the caller's own
/// keys, [`TrustedKey::own`]). Only the store makes one, so holding it
/// proves the check ran; stream states accept senders and rolls wrap to
/// recipients only as `TrustedKey`s.
#[derive(uniffi::Object)]
pub struct TrustedKey(pub(crate) trust::TrustedKey);

impl TrustedKey {
    pub(crate) fn wrap(key: trust::TrustedKey) -> Arc<Self> {
        Arc::new(TrustedKey(key))
    }
}

#[uniffi::export]
impl TrustedKey {
    /// One of the caller's own keys, registered as `subject`'s: verified by
    /// definition (the caller holds its secret half).
    #[uniffi::constructor]
    pub fn own(subject: String, identity: Arc<IdentityKey>) -> Arc<Self> {
        TrustedKey::wrap(trust::TrustedKey::own(&subject, &identity.0))
    }

    /// The user or bot id the key belongs to.
    pub fn subject(&self) -> String {
        self.0.subject().to_owned()
    }

    /// The key, with the kind and id it is registered under.
    pub fn recipient(&self) -> Recipient {
        Recipient::from(self.0.recipient())
    }

    /// `"verified"` or `"unverified"` (pinned on first use only).
    pub fn level(&self) -> String {
        self.0.level().as_str().to_owned()
    }
}

/// The pinned keys of the users and bots the caller deals with, and its
/// policy (`"tofu"`, `"verified-only"`, `"refuse-after-verified-change"`).
/// Holds public keys only; persist it with [`TrustStore::to_bytes`].
/// Thread-safe (one lock).
#[derive(uniffi::Object)]
pub struct TrustStore(Mutex<trust::TrustStore>);

impl TrustStore {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, trust::TrustStore> {
        lock(&self.0)
    }
}

#[uniffi::export]
impl TrustStore {
    /// An empty store under `policy` (`INVALID_FIELD` for another spelling).
    #[uniffi::constructor]
    pub fn new(policy: String) -> Result<Arc<Self>> {
        Ok(Arc::new(TrustStore(Mutex::new(trust::TrustStore::new(
            TrustPolicy::parse(&policy)?,
        )))))
    }

    /// Opens bytes written by [`TrustStore::to_bytes`] under the same
    /// identity key: `STATE_AUTH_FAILED` for another key or altered bytes,
    /// `MALFORMED_STATE` for a body that does not parse.
    #[uniffi::constructor]
    pub fn from_bytes(bytes: Vec<u8>, identity: Arc<IdentityKey>) -> Result<Arc<Self>> {
        Ok(Arc::new(TrustStore(Mutex::new(
            trust::TrustStore::from_bytes(&bytes, &identity.0)?,
        ))))
    }

    /// The persisted form, sealed under the caller's identity key.
    pub fn to_bytes(&self, identity: Arc<IdentityKey>) -> Result<Vec<u8>> {
        Ok(self.lock().to_bytes(&identity.0)?)
    }

    /// The policy's spelling.
    pub fn policy(&self) -> String {
        self.lock().policy().as_str().to_owned()
    }

    /// Changes the policy; pins are kept.
    pub fn set_policy(&self, policy: String) -> Result<()> {
        let policy = TrustPolicy::parse(&policy)?;
        self.lock().set_policy(policy);
        Ok(())
    }

    /// Records a key the server presented for `subject`: `"new"` (first
    /// sight of the subject, now pinned), `"added"` (a further key id of a
    /// known subject, now pinned: show it, it may be the server's), `"same"`,
    /// `"verified"`, `"changed"` or `"verified-then-changed"` (the pin is
    /// kept; the change is pending).
    pub fn observe(&self, subject: String, recipient: Recipient) -> Result<String> {
        let key = recipient.to_core()?;
        Ok(self.lock().observe(&subject, &key)?.as_str().to_owned())
    }

    /// Whether `recipient` may be used now: `UNKNOWN_KEY` (nothing pinned),
    /// `KEY_CHANGED` (another key, or a change pending), `KEY_NOT_VERIFIED`
    /// (the policy wants it verified).
    pub fn trusted(&self, subject: String, recipient: Recipient) -> Result<Arc<TrustedKey>> {
        let key = recipient.to_core()?;
        Ok(TrustedKey::wrap(self.lock().trusted(&subject, &key)?))
    }

    /// The pinned key of (subject, key_id), under the rules of [`TrustStore::trusted`].
    pub fn trusted_by_id(&self, subject: String, key_id: String) -> Result<Arc<TrustedKey>> {
        let key_id = KeyId::new(key_id)?;
        Ok(TrustedKey::wrap(
            self.lock().trusted_by_id(&subject, &key_id)?,
        ))
    }

    /// [`TrustStore::observe`], then [`TrustStore::trusted`].
    pub fn admit(&self, subject: String, recipient: Recipient) -> Result<Arc<TrustedKey>> {
        let key = recipient.to_core()?;
        Ok(TrustedKey::wrap(self.lock().admit(&subject, &key)?))
    }

    /// The user compared safety numbers for `recipient` (the pinned key or
    /// the pending one): it becomes the pin, verified.
    pub fn verify(&self, subject: String, recipient: Recipient) -> Result<()> {
        let key = recipient.to_core()?;
        Ok(self.lock().verify(&subject, &key)?)
    }

    /// The user accepted a pending change without verifying it.
    pub fn acknowledge_change(&self, subject: String, key_id: String) -> Result<()> {
        let key_id = KeyId::new(key_id)?;
        Ok(self.lock().acknowledge_change(&subject, &key_id)?)
    }

    /// What is pinned for (subject, key_id), if anything.
    pub fn pinned(&self, subject: String, key_id: String) -> Result<Option<PinnedKey>> {
        let key_id = KeyId::new(key_id)?;
        Ok(self.lock().pinned(&subject, &key_id).map(PinnedKey::from))
    }

    /// Every key pinned for `subject`, by key id.
    pub fn keys_of(&self, subject: String) -> Vec<PinnedKey> {
        self.lock()
            .keys_of(&subject)
            .into_iter()
            .map(PinnedKey::from)
            .collect()
    }

    /// Drops the pin of (subject, key_id); returns whether one was held.
    pub fn forget(&self, subject: String, key_id: String) -> Result<bool> {
        let key_id = KeyId::new(key_id)?;
        Ok(self.lock().forget(&subject, &key_id))
    }
}

/// The fingerprint of one subject's public key.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Fingerprint {
    /// 30 digits.
    pub digits: String,
    /// The digits in groups of five, separated by spaces.
    pub display: String,
}

/// The fingerprint of `public_key` (base64) as the key of `subject`.
#[uniffi::export]
pub fn fingerprint(subject: String, public_key: String) -> Result<Fingerprint> {
    let print = fp::fingerprint(&subject, &PublicKey::from_base64(&public_key)?)?;
    Ok(Fingerprint {
        digits: print.digits().to_owned(),
        display: print.display(),
    })
}

/// The safety number of a conversation between two keys, as one side sees
/// it: both sides get the same digits; the scannable form names which key is
/// whose, so compare across sides with `matches_scanned` / `matches_digits`.
#[derive(uniffi::Object)]
pub struct SafetyNumber(fp::SafetyNumber);

#[uniffi::export]
impl SafetyNumber {
    /// 60 digits, the same on both sides.
    pub fn digits(&self) -> String {
        self.0.digits().to_owned()
    }

    /// The digits in groups of five.
    pub fn display(&self) -> String {
        self.0.display()
    }

    /// The payload of the code to show for the other side to scan.
    pub fn scannable(&self) -> Vec<u8> {
        self.0.scannable()
    }

    /// Whether the payload scanned from the other side's screen is this
    /// conversation seen from there (constant time). A payload that is not
    /// a safety number at all is `INVALID_LENGTH` / `INVALID_FIELD`.
    pub fn matches_scanned(&self, scanned: Vec<u8>) -> Result<bool> {
        Ok(self.0.matches_scanned(&scanned)?)
    }

    /// Whether digits the user typed or read out (spaces ignored) match.
    pub fn matches_digits(&self, typed: String) -> bool {
        self.0.matches_digits(&typed)
    }
}

/// The safety number between the caller's key (`local_key`, base64, as
/// `local_subject`'s) and the other party's.
#[uniffi::export]
pub fn safety_number(
    local_subject: String,
    local_key: String,
    remote_subject: String,
    remote_key: String,
) -> Result<Arc<SafetyNumber>> {
    Ok(Arc::new(SafetyNumber(fp::safety_number(
        &local_subject,
        &PublicKey::from_base64(&local_key)?,
        &remote_subject,
        &PublicKey::from_base64(&remote_key)?,
    )?)))
}
