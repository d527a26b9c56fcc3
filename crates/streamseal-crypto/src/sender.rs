//! Who sealed an envelope: the signer of what a member seals, and the keys
//! an opener checks signatures against.
//!
//! A stream key is a group key: every holder of a generation can seal into
//! any slot of the stream. So envelope version 2 (FORMAT.md section 2)
//! carries, inside the ciphertext, an XEdDSA signature ([`crate::signature`])
//! by the sender's identity key over the AAD and the content, and the AAD
//! names the sender (subject, kind, key id). Opening checks the signature
//! against the key the caller's [`TrustStore`] pins for that sender, and
//! reports how sure that is ([`SealedBy::status`]):
//!
//! | what the caller holds for the sender | signature checks | result |
//! |---|---|---|
//! | one of its own keys ([`SenderKeys::with_own`]) | yes | `verified` |
//! | a pinned key the user verified | yes | `verified` |
//! | a pinned key, not verified (TOFU) | yes | `unverified` |
//! | no pin for the subject at all, a key the server presented ([`SenderKeys::with_presented`]) | yes | `unverified` |
//! | any of the above | no | refused: `SENDER_MISMATCH` |
//! | a pinned key with a pending change | - | refused: `KEY_CHANGED` |
//! | an unverified key under `verified-only` | - | refused: `KEY_NOT_VERIFIED` |
//! | nothing, or a presented key for a subject the store already knows under other key ids | - | refused: `UNKNOWN_KEY` |
//!
//! A presented key stands in for a first sight only: once the trust store
//! pins any key of a subject, a further key id of that subject counts only
//! after the app observes it (the store reports it as `added`), so a server
//! cannot slip a key of its own under a known member by presenting it. And
//! the runtime's prompt, the one input a runtime acts on, is checked against
//! the trust store and its own keys only, never against presented keys.
//!
//! ```
//! use streamseal_crypto::envelope::{open, seal};
//! use streamseal_crypto::identity::{IdentityKey, KeyId, Recipient, RecipientKind};
//! use streamseal_crypto::sender::{SenderKeys, Signer};
//! use streamseal_crypto::slot::Slot;
//! use streamseal_crypto::stream_key::{Keyring, StreamKey};
//! use streamseal_crypto::trust::{TrustLevel, TrustPolicy, TrustStore};
//!
//! let alice = IdentityKey::generate(RecipientKind::User, KeyId::new("alice-phone")?)?;
//! let mallory = IdentityKey::generate(RecipientKind::User, KeyId::new("alice-phone")?)?;
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! let slot = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_1".into(),
//!     author_id: "usr_alice".into(),
//!     author_type: "user".into(),
//!     revision: 1,
//! };
//! let sealed = seal(&ring, &Signer::new("usr_alice", &alice)?, &slot, b"hi")?;
//!
//! // Bob pinned Alice's key on first use: the message opens, unverified.
//! let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! trust.observe("usr_alice", &Recipient::of(&alice))?;
//! let opened = open(&ring, &SenderKeys::new(&trust), &slot, &sealed)?;
//! assert_eq!(opened.sealed_by.status, TrustLevel::Unverified);
//!
//! // Mallory holds the stream key too, and seals as Alice: refused.
//! let forged = seal(&ring, &Signer::new("usr_alice", &mallory)?, &slot, b"wire it all")?;
//! let err = open(&ring, &SenderKeys::new(&trust), &slot, &forged).unwrap_err();
//! assert_eq!(err.code().as_str(), "SENDER_MISMATCH");
//! # Ok::<(), streamseal_crypto::Error>(())
//! ```

use std::fmt;

use crate::aad::AadSender;
use crate::error::{CryptoError, CryptoResult};
use crate::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind};
use crate::trust::{TrustLevel, TrustStore};

/// Longest subject (user or bot id) a sender may have, in bytes (the AAD's
/// string bound).
const MAX_SUBJECT_LEN: usize = 1024;

/// The member who seals: its user or bot id and the identity key it signs
/// with. The AAD names the subject, the key's kind and its key id.
#[derive(Clone, Copy)]
pub struct Signer<'a> {
    subject: &'a str,
    key: &'a IdentityKey,
}

impl<'a> Signer<'a> {
    /// `key`, registered as `subject`'s (1 to 1024 bytes).
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `subject` is empty or over 1024 bytes.
    pub fn new(subject: &'a str, key: &'a IdentityKey) -> CryptoResult<Self> {
        if subject.is_empty() || subject.len() > MAX_SUBJECT_LEN {
            return Err(CryptoError::length("subject", "1..=1024", subject.len()));
        }
        Ok(Signer { subject, key })
    }

    /// The user or bot id.
    pub fn subject(&self) -> &'a str {
        self.subject
    }

    /// The identity key that signs.
    pub fn key(&self) -> &'a IdentityKey {
        self.key
    }

    /// The sender the AAD names.
    pub fn aad_sender(&self) -> AadSender {
        AadSender {
            subject: self.subject.to_owned(),
            kind: self.key.kind().clone(),
            key_id: self.key.key_id().as_str().to_owned(),
        }
    }
}

impl fmt::Debug for Signer<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Signer")
            .field("subject", &self.subject)
            .field("key", self.key)
            .finish()
    }
}

/// Who sealed an opened envelope, and how sure the opener is of it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct SealedBy {
    /// The user or bot id the AAD names, whose key signed.
    pub subject: String,
    /// The kind its key is registered as.
    pub kind: RecipientKind,
    /// The key that signed.
    pub key_id: String,
    /// `Verified`: the signature checks against one of the caller's own
    /// keys or a key the user verified. `Unverified`: against a key pinned
    /// on first use, or presented by the server and not pinned.
    pub status: TrustLevel,
}

/// The keys an opener checks senders' signatures against: its trust store,
/// its own keys, and keys the server presented that it has not pinned.
#[derive(Clone, Debug)]
pub struct SenderKeys<'a> {
    trust: &'a TrustStore,
    own: Vec<(String, Recipient)>,
    presented: Vec<(String, Recipient)>,
}

impl<'a> SenderKeys<'a> {
    /// The keys `trust` pins, under its policy.
    pub fn new(trust: &'a TrustStore) -> Self {
        SenderKeys {
            trust,
            own: Vec::new(),
            presented: Vec::new(),
        }
    }

    /// Adds one of the caller's own keys, registered as `subject`'s: what it
    /// signed opens as `verified` (the caller holds the secret half).
    #[must_use]
    pub fn with_own(mut self, subject: &str, key: &IdentityKey) -> Self {
        self.own.push((subject.to_owned(), Recipient::of(key)));
        self
    }

    /// Adds a key the server presented for `subject` (a member list, a
    /// presence entry) that the trust store does not pin: a signature by it
    /// opens as `unverified`, but only while the store pins no key of
    /// `subject` at all. A pin wins over it, and a subject the store already
    /// knows gets no further key this way (observe it in the store instead,
    /// which reports it as `added`): a server cannot present its way around
    /// a pinned member.
    #[must_use]
    pub fn with_presented(mut self, subject: &str, key: &Recipient) -> Self {
        self.presented.push((subject.to_owned(), key.clone()));
        self
    }

    /// The trust store behind these keys.
    pub fn trust(&self) -> &TrustStore {
        self.trust
    }

    /// The same keys without the server-presented ones: what new work (a
    /// runtime's prompt) is checked against.
    pub fn pinned_only(&self) -> SenderKeys<'a> {
        SenderKeys {
            trust: self.trust,
            own: self.own.clone(),
            presented: Vec::new(),
        }
    }

    /// The public key to check `sender`'s signature against, and its status.
    pub(crate) fn resolve(&self, sender: &AadSender) -> CryptoResult<(PublicKey, TrustLevel)> {
        let key_id = KeyId::new(sender.key_id.as_str())?;
        let find = |list: &[(String, Recipient)]| {
            list.iter()
                .find(|(s, r)| *s == sender.subject && r.key_id == key_id)
                .map(|(_, r)| r.clone())
        };
        // Own keys first, then the store's pin, then (a first sight only) a
        // key the server presented.
        let (key, status) = if let Some(own) = find(&self.own) {
            (own, TrustLevel::Verified)
        } else if self.trust.pinned(&sender.subject, &key_id).is_some() {
            let trusted = self.trust.trusted_by_id(&sender.subject, &key_id)?;
            (trusted.recipient().clone(), trusted.level())
        } else if let Some(presented) =
            find(&self.presented).filter(|_| self.trust.keys_of(&sender.subject).is_empty())
        {
            if self.trust.policy() == crate::trust::TrustPolicy::VerifiedOnly {
                return Err(CryptoError::KeyNotVerified {
                    subject: sender.subject.clone(),
                    key_id: sender.key_id.clone(),
                });
            }
            (presented, TrustLevel::Unverified)
        } else {
            return Err(CryptoError::UnknownKey {
                subject: sender.subject.clone(),
                key_id: sender.key_id.clone(),
            });
        };
        if key.kind.as_str() != sender.kind.as_str() {
            return Err(CryptoError::SenderMismatch {
                subject: sender.subject.clone(),
                key_id: sender.key_id.clone(),
                reason: "the key is registered as another kind",
            });
        }
        Ok((key.public_key, status))
    }
}
