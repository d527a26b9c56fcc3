//! The persistent state of one sealed root stream
//! (`streamseal::sealed::state`): the sealed flag, the high-water
//! generation, the keys held, the accepted key senders, the owner and the
//! prompts already acted on. Persist it with [`StreamState::to_bytes`]
//! after every call that changes it, and restore it with
//! [`StreamState::from_bytes`] on start.
//!
//! No export lowers a generation: the sealing generation only rises, from a
//! generation admitted from an accepted sender or a roll this member made.

use std::sync::{Arc, Mutex, MutexGuard};
use streamseal::CryptoError;

use streamseal::identity::KeyId;
use streamseal::sealed::key_wraps as core_key_wraps;
use streamseal::sealed::state as core_state;
use streamseal::trust;
use streamseal::wrap::KeyWrap;

use crate::error::{Result, to_json};
use crate::keys::{IdentityKey, Keyring, Recipient};
use crate::lock;
use crate::trust::TrustedKey;

/// An identity key whose wraps a member admits for a root stream.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct KeySender {
    /// The user or bot id the key belongs to.
    pub subject: String,
    /// The key (kind, id, public key).
    pub recipient: Recipient,
}

/// One recipient of a generation, as an app shows "who can read from here on".
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct RosterEntry {
    /// The user or bot id.
    pub subject: String,
    /// The key's kind.
    pub kind: String,
    /// The key id.
    pub key_id: String,
    /// The key's fingerprint, 30 digits in groups of five.
    pub fingerprint: String,
    /// Whether the user verified this key or only pinned it.
    pub verified: bool,
}

impl From<&core_state::RosterEntry> for RosterEntry {
    fn from(r: &core_state::RosterEntry) -> Self {
        RosterEntry {
            subject: r.subject.clone(),
            kind: r.kind.as_str().to_owned(),
            key_id: r.key_id.as_str().to_owned(),
            fingerprint: r.fingerprint.clone(),
            verified: r.verified,
        }
    }
}

/// A generation admitted from a wrap.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct AdmittedGeneration {
    /// The generation.
    pub key_generation: u32,
    /// Who made the wrap (user or bot id, or `"self"` for the caller's own key).
    pub sender: String,
    /// The key id that made it.
    pub sender_key_id: String,
    /// `"verified"` or `"unverified"`.
    pub level: String,
}

/// A wrap addressed to the caller that was not admitted.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct SkippedWrap {
    /// Its generation.
    pub key_generation: u32,
    /// Why (a stable code: `UNTRUSTED_WRAP` for a wrap no accepted sender made).
    pub code: String,
}

/// What opening a list of wraps did to the state.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct WrapsReport {
    /// Generations whose key was admitted (or confirmed) from an accepted sender.
    pub admitted: Vec<AdmittedGeneration>,
    /// Wraps addressed to the caller that were not admitted.
    pub skipped: Vec<SkippedWrap>,
    /// Generations for which an accepted sender gave a key other than the
    /// one held: the held key is kept, and nothing is sealed under them.
    pub conflicts: Vec<u32>,
}

impl From<&core_key_wraps::WrapsReport> for WrapsReport {
    fn from(r: &core_key_wraps::WrapsReport) -> Self {
        WrapsReport {
            admitted: r
                .admitted
                .iter()
                .map(|a| AdmittedGeneration {
                    key_generation: a.key_generation,
                    sender: a.sender.clone(),
                    sender_key_id: a.sender_key_id.as_str().to_owned(),
                    level: a.level.as_str().to_owned(),
                })
                .collect(),
            skipped: r
                .skipped
                .iter()
                .map(|s| SkippedWrap {
                    key_generation: s.key_generation,
                    code: s.code.as_str().to_owned(),
                })
                .collect(),
            conflicts: r.conflicts.clone(),
        }
    }
}

/// A new generation made and wrapped, not yet in force: send
/// [`PreparedRoll::request_json`], then [`StreamState::commit_roll`] it once
/// the POST succeeded. On a 409 drop it: its key is never sealed under.
/// Holds the new stream key (zeroized on drop) until committed.
#[derive(uniffi::Object)]
pub struct PreparedRoll {
    key_generation: u32,
    wraps: Vec<KeyWrap>,
    request_json: String,
    roster: Vec<RosterEntry>,
    roll: Mutex<Option<core_state::PreparedRoll>>,
}

#[uniffi::export]
impl PreparedRoll {
    /// The generation this roll makes.
    pub fn key_generation(&self) -> u32 {
        self.key_generation
    }

    /// One wrap per recipient.
    pub fn wraps(&self) -> Vec<KeyWrap> {
        self.wraps.clone()
    }

    /// The `POST streams/{rootStreamId}/e2e/key-wraps` body (JSON).
    pub fn request_json(&self) -> String {
        self.request_json.clone()
    }

    /// Who can read what is sealed under this generation.
    pub fn roster(&self) -> Vec<RosterEntry> {
        self.roster.clone()
    }
}

/// What one member remembers of one sealed root stream. Thread-safe (one lock).
#[derive(uniffi::Object)]
pub struct StreamState(Mutex<core_state::StreamState>);

impl StreamState {
    pub(crate) fn lock(&self) -> MutexGuard<'_, core_state::StreamState> {
        lock(&self.0)
    }
}

#[uniffi::export]
impl StreamState {
    /// A fresh state for `root_stream_id`: no keys, not known to be sealed.
    #[uniffi::constructor]
    pub fn new(root_stream_id: String) -> Result<Arc<Self>> {
        Ok(Arc::new(StreamState(Mutex::new(
            core_state::StreamState::new(root_stream_id)?,
        ))))
    }

    /// Restores a state written by [`StreamState::to_bytes`] with the same
    /// identity key: `STATE_AUTH_FAILED` for another key or altered bytes,
    /// `MALFORMED_STATE` for anything that does not parse.
    #[uniffi::constructor]
    pub fn from_bytes(bytes: Vec<u8>, identity: Arc<IdentityKey>) -> Result<Arc<Self>> {
        Ok(Arc::new(StreamState(Mutex::new(
            core_state::StreamState::from_bytes(&bytes, &identity.0)?,
        ))))
    }

    /// The persisted form, sealed under `identity` (a copy on disk reveals
    /// no stream key and cannot be edited unnoticed).
    pub fn to_bytes(&self, identity: Arc<IdentityKey>) -> Result<Vec<u8>> {
        Ok(self.lock().to_bytes(&identity.0)?)
    }

    /// The root stream.
    pub fn root_stream_id(&self) -> String {
        self.lock().root_stream_id().to_owned()
    }

    /// Whether the stream is known to be sealed (never unset once set).
    pub fn is_sealed(&self) -> bool {
        self.lock().is_sealed()
    }

    /// Records that the stream is sealed; nothing unsets it.
    pub fn mark_sealed(&self) {
        self.lock().mark_sealed();
    }

    /// Reads a stream resource's `e2eEnabled`: `true` marks the state
    /// sealed; a sealed state seeing anything else is `SEALED_STREAM_DOWNGRADE`.
    pub fn observe_e2e_enabled(&self, e2e_enabled: Option<bool>) -> Result<()> {
        Ok(self.lock().observe_e2e_enabled(e2e_enabled)?)
    }

    /// The newest generation admitted from an accepted sender or made by
    /// this member: the generation sealing uses.
    pub fn high_water(&self) -> Option<u32> {
        self.lock().high_water()
    }

    /// The user whose prompts this member acts on, once set.
    pub fn owner_user_id(&self) -> Option<String> {
        self.lock().owner_user_id().map(str::to_owned)
    }

    /// Pins the stream's owner; a different owner later is `UNEXPECTED_AUTHOR`.
    pub fn set_owner(&self, user_id: String) -> Result<()> {
        Ok(self.lock().set_owner(&user_id)?)
    }

    /// Accepts `trusted_key` as a distributor of this stream's keys (at most 16).
    pub fn accept_sender(&self, trusted_key: Arc<TrustedKey>) -> Result<()> {
        Ok(self.lock().accept_sender(&trusted_key.0)?)
    }

    /// Stops accepting the key `key_id` of `subject`; returns whether it was accepted.
    pub fn remove_sender(&self, subject: String, key_id: String) -> Result<bool> {
        let key_id = KeyId::new(key_id)?;
        Ok(self.lock().remove_sender(&subject, &key_id))
    }

    /// The accepted key senders.
    pub fn senders(&self) -> Vec<KeySender> {
        self.lock()
            .senders()
            .iter()
            .map(|s| KeySender {
                subject: s.subject.clone(),
                recipient: Recipient::from(&s.recipient),
            })
            .collect()
    }

    /// Makes the next generation (one above the high-water, or 0) and wraps
    /// it from `identity` to `trusted_keys` (keys the trust store admitted,
    /// and [`TrustedKey::own`]). Nothing changes until [`StreamState::commit_roll`].
    pub fn prepare_roll(
        &self,
        identity: Arc<IdentityKey>,
        trusted_keys: Vec<Arc<TrustedKey>>,
    ) -> Result<Arc<PreparedRoll>> {
        let keys: Vec<trust::TrustedKey> = trusted_keys.iter().map(|k| k.0.clone()).collect();
        let roll = self.lock().prepare_roll(&identity.0, &keys)?;
        Ok(Arc::new(PreparedRoll {
            key_generation: roll.key_generation(),
            wraps: roll.wraps().to_vec(),
            request_json: to_json(roll.request())?,
            roster: roll.roster().iter().map(RosterEntry::from).collect(),
            roll: Mutex::new(Some(roll)),
        }))
    }

    /// Puts a prepared roll in force after its POST succeeded; returns its
    /// generation. A roll that no longer follows the high-water is
    /// `STALE_ROLL`; a roll already committed (or refused) is `INVALID_FIELD`.
    pub fn commit_roll(&self, roll: Arc<PreparedRoll>) -> Result<u32> {
        let taken = lock(&roll.roll).take().ok_or(CryptoError::InvalidField {
            field: "roll",
            reason: "the prepared roll was already committed or refused".to_owned(),
        })?;
        Ok(self.lock().commit_roll(taken)?)
    }

    /// Whether the prompt of `message_id` at `revision` was acted on.
    pub fn was_acted_on(&self, message_id: String, revision: u32) -> bool {
        self.lock().was_acted_on(&message_id, revision)
    }

    /// Drops every key (after `bot:e2e_revoke`); the sealed flag, the owner
    /// and the acted-on prompts are kept.
    pub fn drop_keys(&self) {
        self.lock().drop_keys();
    }

    /// The keys held, as the handle `seal`, `open`, `seal_message`, ...
    /// take: a copy taken now (later admissions do not show in it) whose
    /// seal counters are shared with the state, so its seals count against
    /// the state's budget and persist with it.
    pub fn keyring(&self) -> Arc<Keyring> {
        Keyring::wrap(self.lock().keyring().clone())
    }
}
