//! The persistent state of one sealed root stream, as one member holds it.
//!
//! A member that rebuilt its view of a stream from each server response
//! would believe whatever the newest response says. [`StreamState`] is what
//! the member remembers instead, across responses and restarts:
//!
//! - **the sealed flag**: once a stream is known to be sealed it is never
//!   treated as plaintext again (a response without `e2eEnabled`, or a
//!   plaintext invocation on the root, is `SEALED_STREAM_DOWNGRADE`);
//! - **the keys held and the high-water generation**: the newest generation
//!   whose key was admitted from an accepted sender (or made by this member).
//!   It only rises, and sealing always uses it; an envelope or a
//!   `currentKeyGeneration` that merely *names* a generation never raises it;
//! - **the accepted key senders**: the identity keys (from the
//!   [`TrustStore`]) whose wraps this member admits for this root. The
//!   member's own keys are always accepted;
//! - **the owner**: the user whose prompts a runtime acts on, pinned the
//!   first time it is set;
//! - **the prompts already acted on** (the newest [`MAX_ACTED_PROMPTS`]), so
//!   an old message delivered again as a new invocation is reported
//!   (`PROMPT_REPLAYED`) instead of acted on twice;
//! - **seal counts** per generation (see [`streamseal_crypto::stream_key::DEFAULT_SEAL_BUDGET`]).
//!
//! [`StreamState::to_bytes`] gives a versioned byte string the app persists
//! (IndexedDB, app storage, a file). It is sealed under the member's identity
//! key (FORMAT.md section 6), so a copy on disk reveals no stream key and
//! cannot be edited without `STATE_AUTH_FAILED`. Restoring from it resists
//! rollback across restarts: the server cannot make a restarted member forget
//! a generation or the sealed flag.
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_sealed::state::StreamState;
//! use streamseal_crypto::trust::TrustedKey;
//!
//! let me = IdentityKey::generate(RecipientKind::User, KeyId::new("laptop")?)?;
//! let mut state = StreamState::new("stream_root")?;
//! let roll = state.prepare_roll(&me, &[TrustedKey::own("usr_me", &me)])?;
//! assert_eq!(roll.key_generation(), 0);
//! state.commit_roll(roll)?; // after the POST of its request succeeded
//! assert_eq!(state.high_water(), Some(0));
//! assert!(state.is_sealed());
//!
//! let saved = state.to_bytes(&me)?;
//! let restored = StreamState::from_bytes(&saved, &me)?;
//! assert_eq!(restored.high_water(), Some(0));
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use zeroize::Zeroizing;

use streamseal_crypto::codec::{Reader, Writer};
use streamseal_crypto::error::{CryptoError, Error, Result};
use streamseal_crypto::fingerprint::fingerprint;
use streamseal_crypto::identity::{
    IdentityKey, KEY_LEN, KeyId, MAX_KEYS, PublicKey, Recipient, RecipientKind,
};
use streamseal_crypto::persist::{open_local, seal_local};
use streamseal_crypto::stream_key::{Keyring, STREAM_KEY_LEN, StreamKey};
use streamseal_crypto::trust::{TrustLevel, TrustStore, TrustedKey};
use streamseal_crypto::wrap::{KeyWrap, wrap_stream_key};
use streamseal_wire::requests::streams::PostKeyWrapsRequest;
use streamseal_wire::stream::Stream;

/// The label of a persisted stream state.
pub const STATE_LABEL: &[u8] = b"streamseal/state";
/// The persisted stream state's format version.
pub const STATE_VERSION: u8 = 1;
/// How many acted-on prompts the state remembers (oldest forgotten first).
pub const MAX_ACTED_PROMPTS: usize = 1024;
/// Most accepted key senders per root stream.
pub const MAX_SENDERS: usize = 16;
/// Most recipients one generation is wrapped to.
pub const MAX_ROLL_RECIPIENTS: usize = 1024;
/// Most generations a persisted state may hold.
pub const MAX_GENERATIONS: usize = 65_536;

const BODY_MAGIC: &[u8] = b"streamseal/state-body";

/// An identity key whose wraps a member admits for a root stream.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct KeySender {
    /// The user or bot id the key belongs to.
    pub subject: String,
    /// The key (kind, id, public key).
    pub recipient: Recipient,
}

/// A prompt a runtime acted on.
#[derive(Clone, Debug, PartialEq, Eq)]
struct ActedPrompt {
    invocation_id: String,
    message_id: String,
    revision: u32,
}

/// What one member remembers of one sealed root stream (see the module docs).
pub struct StreamState {
    keyring: Keyring,
    sealed: bool,
    owner_user_id: Option<String>,
    senders: Vec<KeySender>,
    acted: VecDeque<ActedPrompt>,
    /// This object's own number in the process (never persisted; a clone
    /// or a decoded copy gets another): what was prepared against one
    /// state is completed against that state only.
    instance: u64,
}

/// The next [`StreamState::instance`].
static NEXT_INSTANCE: AtomicU64 = AtomicU64::new(1);

fn next_instance() -> u64 {
    NEXT_INSTANCE.fetch_add(1, Ordering::Relaxed)
}

impl Clone for StreamState {
    fn clone(&self) -> Self {
        StreamState {
            keyring: self.keyring.clone(),
            sealed: self.sealed,
            owner_user_id: self.owner_user_id.clone(),
            senders: self.senders.clone(),
            acted: self.acted.clone(),
            instance: next_instance(),
        }
    }
}

impl fmt::Debug for StreamState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StreamState")
            .field("keyring", &self.keyring)
            .field("sealed", &self.sealed)
            .field("owner_user_id", &self.owner_user_id)
            .field("senders", &self.senders.len())
            .field("acted_prompts", &self.acted.len())
            .finish()
    }
}

/// One recipient of a generation, as an app shows "who can read from here on".
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct RosterEntry {
    /// The user or bot id.
    pub subject: String,
    /// The key's kind.
    pub kind: RecipientKind,
    /// The key id.
    pub key_id: KeyId,
    /// The key's fingerprint, 30 digits in groups of five.
    pub fingerprint: String,
    /// Whether the user verified this key or only pinned it.
    pub verified: bool,
}

/// A new generation made and wrapped, not yet in force: post
/// [`PreparedRoll::request`], then [`StreamState::commit_roll`] it once the
/// POST succeeded. On a 409 (an earlier attempt, or another member, stored
/// wraps for this generation first) drop it: its key is never sealed under,
/// and the stored wraps are opened instead.
pub struct PreparedRoll {
    key_generation: u32,
    key: StreamKey,
    wraps: Vec<KeyWrap>,
    request: PostKeyWrapsRequest,
    roster: Vec<RosterEntry>,
}

impl fmt::Debug for PreparedRoll {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedRoll")
            .field("key_generation", &self.key_generation)
            .field("key", &self.key)
            .field("wraps", &self.wraps.len())
            .field("roster", &self.roster)
            .finish()
    }
}

impl PreparedRoll {
    /// The generation this roll makes.
    pub fn key_generation(&self) -> u32 {
        self.key_generation
    }

    /// One wrap per recipient.
    pub fn wraps(&self) -> &[KeyWrap] {
        &self.wraps
    }

    /// The `POST streams/{rootStreamId}/e2e/key-wraps` body.
    pub fn request(&self) -> &PostKeyWrapsRequest {
        &self.request
    }

    /// Who can read what is sealed under this generation.
    pub fn roster(&self) -> &[RosterEntry] {
        &self.roster
    }
}

/// A generation admitted from a wrap.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct AdmittedGeneration {
    /// The generation.
    pub key_generation: u32,
    /// Who made the wrap (user or bot id).
    pub sender: String,
    /// The key id that made it.
    pub sender_key_id: KeyId,
    /// Whether that key is verified or only pinned.
    pub level: TrustLevel,
}

impl StreamState {
    /// A fresh state for `root_stream_id`: no keys, not known to be sealed.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `root_stream_id` is empty or over 1024 bytes.
    pub fn new(root_stream_id: impl Into<String>) -> Result<Self> {
        Ok(StreamState {
            keyring: Keyring::new(root_stream_id)?,
            sealed: false,
            owner_user_id: None,
            senders: Vec::new(),
            acted: VecDeque::new(),
            instance: next_instance(),
        })
    }

    /// This object's number in the process (see the field).
    pub(crate) fn instance(&self) -> u64 {
        self.instance
    }

    /// The root stream.
    pub fn root_stream_id(&self) -> &str {
        self.keyring.root_stream_id()
    }

    /// The keys held, for opening and sealing.
    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    pub(crate) fn keyring_mut(&mut self) -> &mut Keyring {
        &mut self.keyring
    }

    /// Whether the stream is known to be sealed (never unset once set).
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }

    /// Records that the stream is sealed (the member created it sealed, or
    /// learned it from a source it trusts). There is no way to unset it.
    pub fn mark_sealed(&mut self) {
        self.sealed = true;
    }

    /// Reads a stream resource: `e2eEnabled: true` marks the state sealed; a
    /// stream the state knows to be sealed presented without
    /// `e2eEnabled: true` is `SEALED_STREAM_DOWNGRADE`.
    ///
    /// # Errors
    ///
    /// `SEALED_STREAM_DOWNGRADE` when the state is sealed and the stream lacks
    /// `e2eEnabled: true`.
    pub fn observe_stream(&mut self, stream: &Stream) -> Result<()> {
        self.observe_e2e_enabled(stream.e2e_enabled)
    }

    /// [`StreamState::observe_stream`] from the `e2eEnabled` field alone.
    ///
    /// # Errors
    ///
    /// `SEALED_STREAM_DOWNGRADE` when the state is sealed and `e2e_enabled` is
    /// not `Some(true)`.
    pub fn observe_e2e_enabled(&mut self, e2e_enabled: Option<bool>) -> Result<()> {
        match (e2e_enabled, self.sealed) {
            (Some(true), _) => {
                self.sealed = true;
                Ok(())
            }
            (_, true) => Err(Error::SealedStreamDowngrade {
                reason: "the stream was presented without `e2eEnabled: true`",
            }),
            (_, false) => Ok(()),
        }
    }

    /// The newest generation admitted from an accepted sender or made by
    /// this member: the generation sealing uses.
    pub fn high_water(&self) -> Option<u32> {
        self.keyring.newest_generation()
    }

    /// The user whose prompts this member acts on, once set.
    pub fn owner_user_id(&self) -> Option<&str> {
        self.owner_user_id.as_deref()
    }

    /// Pins the stream's owner. Setting the same owner again is a no-op; a
    /// different one is `UNEXPECTED_AUTHOR` (the owner of a stream does not change).
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `user_id` is empty or over 1024 bytes;
    /// `UNEXPECTED_AUTHOR` when another owner is pinned.
    pub fn set_owner(&mut self, user_id: &str) -> Result<()> {
        streamseal_crypto::codec::check_str("ownerUserId", user_id)?;
        match &self.owner_user_id {
            Some(owner) if owner != user_id => Err(Error::UnexpectedAuthor {
                expected: owner.clone(),
                actual: user_id.to_owned(),
            }),
            _ => {
                self.owner_user_id = Some(user_id.to_owned());
                Ok(())
            }
        }
    }

    /// Accepts `key` as a distributor of this stream's keys: its wraps are
    /// admitted from now on (while the trust store still trusts it). At most
    /// [`MAX_SENDERS`]. The subject must be 1 to 1024 bytes (`INVALID_LENGTH`), as every
    /// persisted string is.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when the key's subject is empty or over 1024 bytes;
    /// `TOO_MANY_KEYS` when [`MAX_SENDERS`] are accepted already.
    pub fn accept_sender(&mut self, key: &TrustedKey) -> Result<()> {
        streamseal_crypto::codec::check_str("subject", key.subject())?;
        let sender = KeySender {
            subject: key.subject().to_owned(),
            recipient: key.recipient().clone(),
        };
        if self.senders.contains(&sender) {
            return Ok(());
        }
        if self.senders.len() >= MAX_SENDERS {
            return Err(Error::Crypto(CryptoError::TooManyKeys {
                limit: MAX_SENDERS,
                actual: self.senders.len().saturating_add(1),
            }));
        }
        self.senders.push(sender);
        Ok(())
    }

    /// Stops accepting the key `key_id` of `subject` (a removed member).
    pub fn remove_sender(&mut self, subject: &str, key_id: &KeyId) -> bool {
        let before = self.senders.len();
        self.senders
            .retain(|s| !(s.subject == subject && &s.recipient.key_id == key_id));
        self.senders.len() != before
    }

    /// The accepted key senders.
    pub fn senders(&self) -> &[KeySender] {
        &self.senders
    }

    /// The senders whose wraps are admitted now: the accepted senders the
    /// trust store still trusts under its policy, then the caller's own keys.
    /// Returns the public keys and, for each, who it is and how sure.
    pub(crate) fn sender_keys(
        &self,
        trust: &TrustStore,
        mine: &[IdentityKey],
    ) -> Result<Vec<(Recipient, String, TrustLevel)>> {
        let mut out: Vec<(Recipient, String, TrustLevel)> = Vec::new();
        for s in &self.senders {
            if let Ok(t) = trust.trusted(&s.subject, &s.recipient) {
                out.push((s.recipient.clone(), s.subject.clone(), t.level()));
            }
        }
        for k in mine {
            let r = Recipient::of(k);
            if !out.iter().any(|(o, _, _)| o.public_key == r.public_key) {
                out.push((r, String::new(), TrustLevel::Verified));
            }
        }
        if out.len() > MAX_KEYS {
            return Err(Error::Crypto(CryptoError::TooManyKeys {
                limit: MAX_KEYS,
                actual: out.len(),
            }));
        }
        Ok(out)
    }

    /// Makes the next generation (one above the high-water, or 0) and wraps
    /// it from `me` to `recipients`, each a key the trust store admitted (an
    /// unknown, changed, or under a strict policy unverified key never gets
    /// this far). Nothing changes until [`StreamState::commit_roll`].
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` when `recipients` is empty or the high-water is
    /// `u32::MAX`; `TOO_MANY_KEYS` when there are more than
    /// [`MAX_ROLL_RECIPIENTS`]; `INVALID_LENGTH` when a recipient's subject,
    /// kind spelling or key id is empty or over 1024 bytes;
    /// `INVALID_PUBLIC_KEY` when a recipient's key is unusable (low order);
    /// `RANDOMNESS_UNAVAILABLE`.
    pub fn prepare_roll(
        &self,
        me: &IdentityKey,
        recipients: &[TrustedKey],
    ) -> Result<PreparedRoll> {
        if recipients.is_empty() {
            return Err(Error::invalid(
                "wraps",
                "a generation needs at least one recipient",
            ));
        }
        if recipients.len() > MAX_ROLL_RECIPIENTS {
            return Err(Error::Crypto(CryptoError::TooManyKeys {
                limit: MAX_ROLL_RECIPIENTS,
                actual: recipients.len(),
            }));
        }
        let next = match self.high_water() {
            Some(g) => g
                .checked_add(1)
                .ok_or_else(|| Error::invalid("keyGeneration", "no generation after u32::MAX"))?,
            None => 0,
        };
        let key = StreamKey::generate()?;
        let mut wraps = Vec::with_capacity(recipients.len());
        let mut roster = Vec::with_capacity(recipients.len());
        for r in recipients {
            let recipient = r.recipient();
            wraps.push(wrap_stream_key(
                self.root_stream_id(),
                next,
                &key,
                me,
                recipient,
            )?);
            roster.push(RosterEntry {
                subject: r.subject().to_owned(),
                kind: recipient.kind.clone(),
                key_id: recipient.key_id.clone(),
                fingerprint: fingerprint(r.subject(), &recipient.public_key)?.display(),
                verified: r.level() == TrustLevel::Verified,
            });
        }
        Ok(PreparedRoll {
            request: PostKeyWrapsRequest::from_wraps(next, &wraps),
            key_generation: next,
            key,
            wraps,
            roster,
        })
    }

    /// Puts a prepared roll in force after its POST succeeded: its key is
    /// held, it is the new high-water and sealing uses it. A roll that no
    /// longer follows the high-water (another generation arrived meanwhile)
    /// is `STALE_ROLL`, and nothing changes.
    ///
    /// # Errors
    ///
    /// `STALE_ROLL` when the roll does not follow the high-water.
    pub fn commit_roll(&mut self, roll: PreparedRoll) -> Result<u32> {
        let expected = match self.high_water() {
            Some(g) => g.checked_add(1),
            None => Some(0),
        };
        if expected != Some(roll.key_generation) {
            return Err(Error::StaleRoll {
                generation: roll.key_generation,
            });
        }
        self.keyring.insert(roll.key_generation, roll.key)?;
        self.keyring.clear_announced();
        self.sealed = true;
        Ok(roll.key_generation)
    }

    /// Records that the prompt of `message_id` at `revision` is acted on by
    /// `invocation_id`. The same invocation again is fine (a re-claim after a
    /// crash); another invocation with the same prompt is `PROMPT_REPLAYED`.
    pub(crate) fn record_prompt(
        &mut self,
        invocation_id: &str,
        message_id: &str,
        revision: u32,
    ) -> Result<()> {
        if let Some(seen) = self
            .acted
            .iter()
            .find(|p| p.message_id == message_id && p.revision == revision)
        {
            return if seen.invocation_id == invocation_id {
                Ok(())
            } else {
                Err(Error::PromptReplayed {
                    message_id: message_id.to_owned(),
                })
            };
        }
        if self.acted.len() >= MAX_ACTED_PROMPTS {
            self.acted.pop_front();
        }
        self.acted.push_back(ActedPrompt {
            invocation_id: invocation_id.to_owned(),
            message_id: message_id.to_owned(),
            revision,
        });
        Ok(())
    }

    /// Whether the prompt of `message_id` at `revision` was acted on.
    pub fn was_acted_on(&self, message_id: &str, revision: u32) -> bool {
        self.acted
            .iter()
            .any(|p| p.message_id == message_id && p.revision == revision)
    }

    /// Drops every key (after `bot:e2e_revoke`); the sealed flag, the owner
    /// and the acted-on prompts are kept.
    pub fn drop_keys(&mut self) {
        self.keyring.clear();
    }

    /// The persisted form, sealed under `me` (see the module docs).
    ///
    /// # Errors
    ///
    /// `RANDOMNESS_UNAVAILABLE` when the iv cannot be drawn; `INVALID_LENGTH`
    /// when an accepted sender's kind spelling is empty or over 1024 bytes;
    /// `UNKNOWN_KEY_GENERATION` when this state is a clone of one whose keys
    /// were dropped.
    pub fn to_bytes(&self, me: &IdentityKey) -> Result<Vec<u8>> {
        let body = self.encode_body()?;
        Ok(seal_local(STATE_LABEL, STATE_VERSION, me, &body)?)
    }

    /// Restores a state written by [`StreamState::to_bytes`] with the same
    /// identity key: `STATE_AUTH_FAILED` for another key or altered bytes,
    /// `MALFORMED_STATE` for anything that does not parse. The root stream
    /// comes from the bytes: an app that keeps one blob per root checks
    /// [`StreamState::root_stream_id`] against the root it meant to load.
    /// Restoring an older blob of the app's own storage is not detected (the
    /// storage is the app's; the threat model's server cannot write it).
    ///
    /// # Errors
    ///
    /// `INPUT_TOO_LARGE` when `bytes` exceed 16 MiB; `STATE_AUTH_FAILED` when
    /// they do not authenticate under `me`; `MALFORMED_STATE` when they do not
    /// parse.
    pub fn from_bytes(bytes: &[u8], me: &IdentityKey) -> Result<Self> {
        let body = open_local(STATE_LABEL, STATE_VERSION, me, bytes)?;
        Self::decode_body(&body)
    }

    /// The unsealed body (it holds the stream keys: zeroized on drop).
    #[doc(hidden)]
    pub fn encode_body(&self) -> Result<Zeroizing<Vec<u8>>> {
        let mut w = Writer::with_magic(BODY_MAGIC);
        w.u8(STATE_VERSION)
            .str("rootStreamId", self.root_stream_id())?
            .bool(self.sealed)
            .opt_str("ownerUserId", self.owner_user_id.as_deref())?;
        w.u8(u8::try_from(self.senders.len()).unwrap_or(u8::MAX));
        for s in &self.senders {
            w.str("subject", &s.subject)?
                .str("kind", s.recipient.kind.as_str())?
                .str("keyId", s.recipient.key_id.as_str())?
                .raw(s.recipient.public_key.as_bytes());
        }
        let generations = self.keyring.generations();
        w.u32(u32::try_from(generations.len()).unwrap_or(u32::MAX));
        for g in generations {
            let key = self.keyring.key(g)?.to_bytes();
            w.u32(g).raw(key.as_slice()).u64(self.keyring.seal_count(g));
        }
        let conflicted = self.keyring.conflicted_generations();
        w.u32(u32::try_from(conflicted.len()).unwrap_or(u32::MAX));
        for g in conflicted {
            w.u32(g);
        }
        w.u16(u16::try_from(self.acted.len()).unwrap_or(u16::MAX));
        for p in &self.acted {
            w.str("invocationId", &p.invocation_id)?
                .str("messageId", &p.message_id)?
                .u32(p.revision);
        }
        Ok(Zeroizing::new(w.finish()))
    }

    /// Parses an unsealed body strictly (the fuzz target's entry point).
    #[doc(hidden)]
    pub fn decode_body(body: &[u8]) -> Result<Self> {
        let mut r = Reader::new(body, |reason| CryptoError::MalformedState { reason });
        r.magic(BODY_MAGIC)?;
        if r.u8()? != STATE_VERSION {
            return Err(Error::Crypto(CryptoError::MalformedState {
                reason: "unsupported version",
            }));
        }
        let mut state = StreamState::new(r.str()?)?;
        state.sealed = r.bool()?;
        state.owner_user_id = r.opt_str()?;
        let senders = usize::from(r.u8()?);
        if senders > MAX_SENDERS {
            return Err(Error::Crypto(CryptoError::MalformedState {
                reason: "too many senders",
            }));
        }
        for _ in 0..senders {
            let subject = r.str()?;
            let kind = RecipientKind::parse(&r.str()?);
            let key_id = KeyId::new(r.str()?).map_err(|_| CryptoError::MalformedState {
                reason: "key id out of range",
            })?;
            let public_key = PublicKey::from_bytes(r.array::<KEY_LEN>()?);
            let sender = KeySender {
                subject,
                recipient: Recipient {
                    kind,
                    key_id,
                    public_key,
                },
            };
            if state.senders.contains(&sender) {
                return Err(Error::Crypto(CryptoError::MalformedState {
                    reason: "duplicate sender",
                }));
            }
            state.senders.push(sender);
        }
        let generations = usize::try_from(r.u32()?).unwrap_or(usize::MAX);
        if generations > MAX_GENERATIONS {
            return Err(Error::Crypto(CryptoError::MalformedState {
                reason: "too many generations",
            }));
        }
        let mut last: Option<u32> = None;
        for _ in 0..generations {
            let g = r.u32()?;
            if last.is_some_and(|l| l >= g) {
                return Err(Error::Crypto(CryptoError::MalformedState {
                    reason: "generations not ascending",
                }));
            }
            last = Some(g);
            let bytes = Zeroizing::new(r.array::<STREAM_KEY_LEN>()?);
            let count = r.u64()?;
            state.keyring.insert(g, StreamKey::from_bytes(&bytes))?;
            state.keyring.set_seal_count(g, count);
        }
        let conflicted = usize::try_from(r.u32()?).unwrap_or(usize::MAX);
        if conflicted > MAX_GENERATIONS {
            return Err(Error::Crypto(CryptoError::MalformedState {
                reason: "too many generations",
            }));
        }
        let mut last: Option<u32> = None;
        for _ in 0..conflicted {
            let g = r.u32()?;
            if last.is_some_and(|l| l >= g) {
                return Err(Error::Crypto(CryptoError::MalformedState {
                    reason: "generations not ascending",
                }));
            }
            last = Some(g);
            state.keyring.mark_conflicted(g);
        }
        let acted = usize::from(r.u16()?);
        if acted > MAX_ACTED_PROMPTS {
            return Err(Error::Crypto(CryptoError::MalformedState {
                reason: "too many prompts",
            }));
        }
        for _ in 0..acted {
            let prompt = ActedPrompt {
                invocation_id: r.str()?,
                message_id: r.str()?,
                revision: r.u32()?,
            };
            state.acted.push_back(prompt);
        }
        r.end()?;
        Ok(state)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::ErrorCode;
    use streamseal_crypto::identity::SecretKey;

    fn key(kind: RecipientKind, id: &str, byte: u8) -> IdentityKey {
        IdentityKey::from_secret(
            kind,
            KeyId::new(id).unwrap(),
            SecretKey::from_bytes(&[byte; 32]),
        )
    }

    #[test]
    fn body_round_trips_exactly_and_strictly() {
        let me = key(RecipientKind::User, "k", 1);
        let mut state = StreamState::new("stream_r").unwrap();
        state.set_owner("usr_1").unwrap();
        let roll = state
            .prepare_roll(&me, &[TrustedKey::own("usr_1", &me)])
            .unwrap();
        state.commit_roll(roll).unwrap();
        state.keyring_mut().mark_conflicted(7);
        state.record_prompt("inv_1", "msg_1", 1).unwrap();
        let body = state.encode_body().unwrap();
        let back = StreamState::decode_body(&body).unwrap();
        assert_eq!(*back.encode_body().unwrap(), *body);
        assert!(back.was_acted_on("msg_1", 1));
        assert_eq!(back.keyring().conflicted_generations(), vec![7]);
        // Trailing bytes and every truncation are refused.
        let mut long = body.to_vec();
        long.push(0);
        assert_eq!(
            StreamState::decode_body(&long).unwrap_err().code(),
            ErrorCode::MalformedState
        );
        for n in 0..body.len() {
            assert!(StreamState::decode_body(&body[..n]).is_err(), "{n}");
        }
    }

    #[test]
    fn a_sender_that_could_not_be_persisted_is_refused() {
        let me = key(RecipientKind::User, "k", 1);
        let mut state = StreamState::new("stream_r").unwrap();
        let err = state.accept_sender(&TrustedKey::own("", &me)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidLength);
        assert!(state.senders().is_empty());
        state.to_bytes(&me).unwrap();
    }

    #[test]
    fn stale_roll_and_owner_pinning() {
        let me = key(RecipientKind::User, "k", 1);
        let mut state = StreamState::new("stream_r").unwrap();
        let a = state
            .prepare_roll(&me, &[TrustedKey::own("usr_1", &me)])
            .unwrap();
        let b = state
            .prepare_roll(&me, &[TrustedKey::own("usr_1", &me)])
            .unwrap();
        state.commit_roll(a).unwrap();
        assert_eq!(
            state.commit_roll(b).unwrap_err().code(),
            ErrorCode::StaleRoll
        );
        state.set_owner("usr_1").unwrap();
        assert_eq!(
            state.set_owner("usr_2").unwrap_err().code(),
            ErrorCode::UnexpectedAuthor
        );
    }

    #[test]
    fn sealed_flag_never_unsets() {
        let mut state = StreamState::new("stream_r").unwrap();
        state.observe_e2e_enabled(None).unwrap();
        assert!(!state.is_sealed());
        state.observe_e2e_enabled(Some(true)).unwrap();
        for downgrade in [None, Some(false)] {
            assert_eq!(
                state.observe_e2e_enabled(downgrade).unwrap_err().code(),
                ErrorCode::SealedStreamDowngrade
            );
        }
        assert!(state.is_sealed());
    }
}
