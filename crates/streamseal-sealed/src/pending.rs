//! A sealed flow's open checked up to its AES-GCM part, so that the
//! AES-GCM (and the signature) can run elsewhere: the npm package's async
//! opens hand them to the platform's WebCrypto and keep every check here.
//!
//! Each flow that opens one envelope is declared once, as a `prepare_*`
//! function returning a [`Pending`], and its synchronous form is that
//! function followed by [`Pending::open`]: the slot it recomputes, the checks
//! before decryption (stale generations, unproven answers) and those after
//! it (the step's bot, UTF-8, the card's JSON) are the same code on every
//! path.
//!
//! | flow | prepared by | synchronous form |
//! |---|---|---|
//! | a trace step | [`crate::runtime::prepare_step`] | [`crate::runtime::open_step`] |
//! | a decision card | [`crate::decisions::prepare_decision_card`] | [`crate::decisions::open_decision_card`] |
//! | a decision answer | [`crate::decisions::prepare_decision_answer`] | [`crate::decisions::open_decision_answer`] |
//!
//! ```
//! use std::collections::BTreeMap;
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_crypto::sender::{SenderKeys, Signer};
//! use streamseal_crypto::slot::DecisionOption;
//! use streamseal_crypto::stream_key::{Keyring, StreamKey};
//! use streamseal_crypto::trust::{TrustPolicy, TrustStore};
//! use streamseal_sealed::decisions::*;
//! use streamseal_wire::ids::DecisionId;
//!
//! let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a")?)?;
//! let mut ring = Keyring::new("stream_r")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! let id = DecisionId::mint(1_700_000_000_000)?;
//! let content = DecisionCardContent {
//!     title: "Deploy?".into(),
//!     body: "All checks are green.".into(),
//!     labels: BTreeMap::from([("go".into(), "Deploy".into())]),
//! };
//! let placement = CardPlacement { stream_id: "stream_r", decision_id: &id, runtime_session_id: "s1", invocation_id: "inv_1" };
//! let options = vec![DecisionOption { id: "go".into(), tone: "primary".into() }];
//! let card = seal_decision_card(&ring, &Signer::new("bot_1", &bot)?, placement, options, true, &content)?;
//! let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! let keys = SenderKeys::new(&trust).with_own("bot_1", &bot);
//!
//! // Every check before AES-GCM: a card moved to another stream fails here.
//! let moved = prepare_decision_card(&ring, &keys, "stream_elsewhere", &card).unwrap_err();
//! assert_eq!(moved.code(), streamseal_sealed::ErrorCode::AadMismatch);
//! let pending = prepare_decision_card(&ring, &keys, "stream_r", &card)?;
//! // Left: AES-256-GCM of `pending.envelope().ciphertext()` under the key of
//! // `pending.envelope().key_generation()`, then the signature. Here, in
//! // this library (`finish` takes what a platform's AES-GCM decrypted):
//! assert_eq!(pending.envelope().key_generation(), 0);
//! assert_eq!(pending.open(&ring)?.content, content);
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use std::fmt;

use streamseal_crypto::envelope::{Opened, PendingOpen, PendingSeal, SealedPayload};
use streamseal_crypto::stream_key::Keyring;
use zeroize::Zeroizing;

use crate::Result;

/// What a flow does with the opened envelope (checks and the result's shape).
type Then<T> = Box<dyn FnOnce(Opened) -> Result<T> + Send>;

/// A flow's envelope with every check before AES-GCM passed, and what the
/// flow does once it is decrypted and its signature verified. It holds no
/// key and no plaintext.
pub struct Pending<T> {
    envelope: PendingOpen,
    then: Then<T>,
}

impl<T> fmt::Debug for Pending<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pending")
            .field("envelope", &self.envelope)
            .finish_non_exhaustive()
    }
}

impl<T> Pending<T> {
    /// `envelope`, to be completed by `then`.
    pub(crate) fn new(
        envelope: PendingOpen,
        then: impl FnOnce(Opened) -> Result<T> + Send + 'static,
    ) -> Self {
        Self {
            envelope,
            then: Box::new(then),
        }
    }

    /// The envelope's remaining AES-GCM inputs (generation, iv, AAD,
    /// ciphertext) and the signature's (signer, prefix).
    pub fn envelope(&self) -> &PendingOpen {
        &self.envelope
    }

    /// Decrypts with the keyring's key (this library's AES-GCM), verifies
    /// the signature and completes the flow: its synchronous form.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` or `DECRYPTION_FAILED` (the keyring no
    /// longer holds the key checked, or the tag is refused),
    /// `SENDER_MISMATCH`, and the flow's own checks after decryption.
    pub fn open(self, keyring: &Keyring) -> Result<T> {
        let opened = self.envelope.open(keyring)?;
        (self.then)(opened)
    }

    /// Completes the flow with what a platform's AES-256-GCM decrypted
    /// [`Self::envelope`]'s ciphertext to (see [`PendingOpen::finish`]): the
    /// key commitment is checked again and the signature verified here.
    ///
    /// # Errors
    ///
    /// As [`Self::open`].
    pub fn finish(self, keyring: &Keyring, decrypted: Zeroizing<Vec<u8>>) -> Result<T> {
        let opened = self.envelope.finish(keyring, decrypted)?;
        (self.then)(opened)
    }

    /// See [`crate::hazmat::finish_verified_elsewhere`].
    pub(crate) fn finish_verified_elsewhere(
        self,
        keyring: &Keyring,
        decrypted: Zeroizing<Vec<u8>>,
    ) -> Result<T> {
        let opened = streamseal_crypto::hazmat::finish_open_verified_elsewhere(
            self.envelope,
            keyring,
            decrypted,
        )?;
        (self.then)(opened)
    }
}

/// What a flow does with the sealed payload (its body, its checks).
type Wrap<T> = Box<dyn FnOnce(SealedPayload) -> Result<T> + Send>;

/// A flow's seal with every step but AES-GCM done (the flow's own checks,
/// the AAD, the generation counted, the iv, the signature), and what the
/// flow does with the payload. It holds the content (wiped on drop) and no
/// key.
///
/// | flow | prepared by | synchronous form |
/// |---|---|---|
/// | a message | [`crate::messages::prepare_seal_message`] | [`crate::messages::seal_message`] |
/// | an edit | [`crate::messages::prepare_seal_edit`] | [`crate::messages::seal_edit`] |
/// | a decision note | [`crate::decisions::prepare_seal_decision_note`] | [`crate::decisions::seal_decision_note`] |
/// | a decision card | [`crate::decisions::prepare_seal_decision_card`] | [`crate::decisions::seal_decision_card`] |
/// | a runtime's reply, follow-up, step or card | [`OpenedInvocation::prepare_seal_reply`] and its siblings (complete it under [`OpenedInvocation::keyring`]) | [`OpenedInvocation::seal_reply`] and its siblings |
///
/// [`OpenedInvocation::prepare_seal_reply`]: crate::runtime::OpenedInvocation::prepare_seal_reply
/// [`OpenedInvocation::keyring`]: crate::runtime::OpenedInvocation::keyring
/// [`OpenedInvocation::seal_reply`]: crate::runtime::OpenedInvocation::seal_reply
pub struct PendingSealed<T> {
    seal: PendingSeal,
    then: Wrap<T>,
}

impl<T> fmt::Debug for PendingSealed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingSealed")
            .field("seal", &self.seal)
            .finish_non_exhaustive()
    }
}

impl<T> PendingSealed<T> {
    /// `seal`, to be completed by `then`.
    pub(crate) fn new(
        seal: PendingSeal,
        then: impl FnOnce(SealedPayload) -> Result<T> + Send + 'static,
    ) -> Self {
        Self {
            seal,
            then: Box::new(then),
        }
    }

    /// This seal, its completion's result turned into another by `f` (a
    /// binding's own output, say).
    pub fn map<U>(self, f: impl FnOnce(T) -> U + Send + 'static) -> PendingSealed<U>
    where
        T: 'static,
    {
        let then = self.then;
        PendingSealed {
            seal: self.seal,
            then: Box::new(move |sealed| then(sealed).map(f)),
        }
    }

    /// The seal's remaining AES-GCM inputs (generation, iv, AAD, input).
    pub fn seal(&self) -> &PendingSeal {
        &self.seal
    }

    /// Encrypts with the keyring's key (this library's AES-GCM) and
    /// completes the flow: its synchronous form.
    ///
    /// # Errors
    ///
    /// `UNKNOWN_KEY_GENERATION` when the keyring no longer holds the key
    /// committed to; the flow's own checks on the payload.
    pub fn encrypt(self, keyring: &Keyring) -> Result<T> {
        let sealed = self.seal.seal(keyring)?;
        (self.then)(sealed)
    }

    /// Completes the flow with what a platform's AES-256-GCM encrypted
    /// [`PendingSeal::aead_input`] to (see [`PendingSeal::finish`]).
    ///
    /// # Errors
    ///
    /// As [`PendingSeal::finish`]; the flow's own checks on the payload.
    pub fn finish(self, keyring: &Keyring, sealed: &[u8]) -> Result<T> {
        let sealed = self.seal.finish(keyring, sealed)?;
        (self.then)(sealed)
    }
}
