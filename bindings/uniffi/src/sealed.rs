//! The sealed-stream flows (`streamseal::sealed`). Wire documents the
//! server sends (`OwnKey`, `KeyWraps`, `Message`, `Invocation`,
//! `DecisionResolved`, a card's `CreateDecisionRequest`) come in as JSON
//! text and request bodies go out as JSON text; see the crate docs for why.
//! Sealing is signed by the caller's identity key as its subject; opening
//! checks the signature and reports `sealed_by` (see [`crate::sender`]).

use std::sync::Arc;

use streamseal::ErrorCode;
use streamseal::identity::KeyId;
use streamseal::kdf::KdfParams;
use streamseal::sealed::decisions::{self, CardPlacement, DecisionAnswer, DecisionCardContent};
use streamseal::sealed::messages::{self, MessageToOpen, OpenedMessage};
use streamseal::sealed::runtime::{self, HistoryItem, OpenedStep};
use streamseal::sealed::{key_wraps as sealed_key_wraps, session, user_key};
use streamseal::sender::SealedBy;
use streamseal::slot::{DecisionOption, StepPhase};
use streamseal::wire::events::DecisionResolved;
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::{KeyWraps, OwnKey, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::bot_runtime::PresenceRequest;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::{SealedStepRequest, StepType};
use streamseal::wire::requests::messages::SendMessageRequest;

use crate::error::{Result, from_json, request_shape_from_json, to_json};
use crate::keys::{IdentityKey, KdfLimits, Keyring, Recipient, identity_keys, keep_dh, kept_dh};
use crate::sender::{OwnKeys, PresentedKey, sender_keys, signer};
use crate::state::{StreamState, WrapsReport};
use crate::trust::{TrustStore, TrustedKey};

/// A new user key and the record to store with `PUT me/e2e-key`.
#[derive(uniffi::Record)]
pub struct NewUserKey {
    /// The unlocked key (kind `user`).
    pub key: Arc<IdentityKey>,
    /// `{keyId, publicKey, encryptedPrivateBundle, kdfSalt, kdfParams}` as JSON.
    pub record_json: String,
}

/// Generates the user's key and protects it with `passphrase` (its UTF-8
/// bytes; the library zeroizes its decoded copy after use, wipe your own) and `params`, at
/// least `kdf_params_creation_floor()` (`KDF_PARAMS_OUT_OF_BOUNDS`). Blocks
/// for the KDF: call it off the main thread.
#[uniffi::export]
pub fn set_up_user_key(
    key_id: String,
    passphrase: Vec<u8>,
    params: KdfParams,
) -> Result<NewUserKey> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    let (key, record) = user_key::set_up(KeyId::new(key_id)?, &passphrase, &params)?;
    Ok(NewUserKey {
        key: IdentityKey::wrap(key),
        record_json: to_json(&record)?,
    })
}

/// Unlocks the user's key from the `GET me/e2e-key` record (JSON) with
/// `passphrase` (its UTF-8 bytes; the decoded copy is zeroized). Checks `limits`
/// first, then blocks for the KDF: call it off the main thread.
#[uniffi::export]
pub fn unlock(
    record_json: String,
    passphrase: Vec<u8>,
    limits: KdfLimits,
) -> Result<Arc<IdentityKey>> {
    let passphrase = crate::keys::passphrase(passphrase)?;
    let record: OwnKey = from_json(&record_json)?;
    Ok(IdentityKey::wrap(user_key::unlock(
        &record,
        &passphrase,
        &limits.into(),
    )?))
}

/// Re-protects the user's key with a new passphrase (both as UTF-8 bytes,
/// the decoded copies zeroized after use) and `params`, at least
/// `kdf_params_creation_floor()` whatever the old record used; returns the
/// record to store (JSON).
#[uniffi::export]
pub fn change_passphrase(
    record_json: String,
    old_passphrase: Vec<u8>,
    new_passphrase: Vec<u8>,
    params: KdfParams,
    limits: KdfLimits,
) -> Result<String> {
    // Both decoded before either error returns, so both are zeroized.
    let old_passphrase = crate::keys::passphrase(old_passphrase);
    let new_passphrase = crate::keys::passphrase(new_passphrase);
    let (old_passphrase, new_passphrase) = (old_passphrase?, new_passphrase?);
    let record: OwnKey = from_json(&record_json)?;
    let new = user_key::change_passphrase(
        &record,
        &old_passphrase,
        &new_passphrase,
        &params,
        &limits.into(),
    )?;
    to_json(&new)
}

/// Opens `GET streams/{rootStreamId}/e2e/key-wraps` (JSON) into `state`
/// with the caller's `identities`: admits only generations wrapped by a
/// sender the state accepts and the trust store still trusts (a wrap the
/// server minted is skipped with `UNTRUSTED_WRAP` and never raises the
/// high-water), reports conflicts instead of failing, pins `ownerUserId`
/// (`UNEXPECTED_AUTHOR` if it differs from the pinned owner) and takes
/// `currentKeyGeneration` as an announcement (sealing fails with
/// `UNKNOWN_KEY_GENERATION` while its key is missing). Persist the state
/// afterwards.
#[uniffi::export]
pub fn open_key_wraps(
    state: Arc<StreamState>,
    trust: Arc<TrustStore>,
    key_wraps_json: String,
    identities: Vec<Arc<IdentityKey>>,
) -> Result<WrapsReport> {
    let wraps: KeyWraps = from_json(&key_wraps_json)?;
    let mine = identity_keys(&identities);
    let mut state = state.lock();
    let trust = trust.lock();
    let mut dh = kept_dh(&identities);
    let report = sealed_key_wraps::open_key_wraps_with_platform_dh(
        &mut state, &trust, &wraps, &mine, &mut dh,
    );
    keep_dh(&identities, &mut dh);
    Ok(WrapsReport::from(&report?))
}

/// The owner's key (`GET bot-runtime/owner-e2e-key`, JSON `{keyId,
/// publicKey}`) admitted through `trust` as `owner_user_id`'s: pinned on
/// first sight, `KEY_CHANGED` when it differs from the pin,
/// `KEY_NOT_VERIFIED` under a strict policy until verified.
#[uniffi::export]
pub fn owner_key(
    trust: Arc<TrustStore>,
    owner_user_id: String,
    owner_key_record: String,
) -> Result<Arc<TrustedKey>> {
    let record: OwnerKey = from_json(&owner_key_record)?;
    Ok(TrustedKey::wrap(session::owner_key(
        &mut trust.lock(),
        &owner_user_id,
        &record,
    )?))
}

/// The owner's recipient from the `owner-key` response (JSON `{keyId,
/// publicKey}`), as the server gave it: nothing is pinned (`owner_key`
/// admits it through the trust store). `INVALID_LENGTH` for a key id that is
/// not 1 to 128 characters.
#[uniffi::export]
pub fn owner_recipient(owner_key_record: String) -> Result<Recipient> {
    let record: OwnerKey = from_json(&owner_key_record)?;
    Ok(Recipient::from(&session::owner_recipient(&record)?))
}

/// Seals a new message (revision 1), signed by `identity` as `subject`'s
/// (the author; its `authorType` is the key's kind); returns the
/// `POST streams/{id}/messages` body (JSON). `clientMessageId` is
/// `message_id`, the minted id the AAD binds: a server that assigns an `id`
/// of its own still lets it open.
#[uniffi::export]
pub fn seal_message(
    keyring: Arc<Keyring>,
    identity: Arc<IdentityKey>,
    subject: String,
    stream_id: String,
    message_id: String,
    text: String,
) -> Result<String> {
    let signer = signer(&identity, &subject)?;
    let body = messages::seal_message(
        &keyring.lock(),
        &signer,
        &stream_id,
        &MessageId::parse(&message_id)?,
        &text,
    )?;
    to_json(&body)
}

/// Checks a send body (JSON) before sending: `known_sealed` is the
/// caller's `StreamState.is_sealed()` for the stream's root, `e2e_enabled`
/// the stream resource's `e2eEnabled` as the server gave it
/// (`SEALED_STREAM_DOWNGRADE`, `E2E_STREAM_REQUIRES_CIPHERTEXT`,
/// `E2E_PAYLOAD_REQUIRES_E2E_STREAM`, then the wire bounds).
#[uniffi::export]
pub fn check_send_rules(
    known_sealed: bool,
    e2e_enabled: Option<bool>,
    body_json: String,
) -> Result<()> {
    let body: SendMessageRequest = request_shape_from_json(&body_json)?;
    Ok(messages::check_send_rules(
        known_sealed,
        e2e_enabled,
        &body,
    )?)
}

/// Seals an edit of `message_json` (its next revision), signed by
/// `identity` as `subject`'s, who must be its author (`UNEXPECTED_AUTHOR`);
/// returns `{ciphertext, envelope}`. The AAD binds the message's bound id
/// (its `clientMessageId` when the service assigned an `id` of its own).
#[uniffi::export]
pub fn seal_edit(
    keyring: Arc<Keyring>,
    identity: Arc<IdentityKey>,
    subject: String,
    message_json: String,
    text: String,
) -> Result<streamseal::envelope::SealedPayload> {
    let message: Message = from_json(&message_json)?;
    let signer = signer(&identity, &subject)?;
    Ok(messages::seal_edit(
        &keyring.lock(),
        &signer,
        &message,
        &text,
    )?)
}

/// Opens one `Message` (JSON) of `stream_id`, the stream the caller asked
/// for (a ciphertext bound to another stream, its root's or a thread's, is
/// `AAD_MISMATCH`): bound to the message's id (or its `clientMessageId`,
/// whose id the result then carries), author, `authorType` and revision, and
/// signed by its author (see [`crate::crypto::open`] for `trust`, `own` and
/// `presented`). Only the fields the AAD binds and `sealed` are read.
#[uniffi::export(default(own = None, presented = []))]
pub fn open_message(
    keyring: Arc<Keyring>,
    trust: Arc<TrustStore>,
    stream_id: String,
    message_json: String,
    own: Option<OwnKeys>,
    presented: Vec<PresentedKey>,
) -> Result<OpenedMessage> {
    let message: MessageToOpen = from_json(&message_json)?;
    let trust = trust.lock();
    let senders = sender_keys(&trust, own.as_ref(), &presented)?;
    Ok(messages::open_message_to_open(
        &keyring.lock(),
        &senders,
        &stream_id,
        &message,
    )?)
}

/// One entry of [`open_messages`]: the opened message, or why it did not open.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
// Boxing the message would cost UniFFI its plain record shape; a page is a
// few dozen messages.
#[allow(clippy::large_enum_variant)]
pub enum OpenResult {
    /// Opened.
    Opened {
        /// The message.
        message: OpenedMessage,
    },
    /// Not opened.
    Failed {
        /// The stable code (`DUPLICATE_MESSAGE` for a repeat).
        code: ErrorCode,
        /// The message of the error (never plaintext).
        error_message: String,
    },
}

/// Opens a whole page of `stream_id` in one call (`messages_json`: a JSON
/// array of `Message`s): one entry per message, in order, each opened or
/// failed on its own (one tampered message does not hide the others); a
/// repeat of a bound id and revision already opened in the page is
/// `DUPLICATE_MESSAGE`. The checks of [`open_message`] apply to each.
#[uniffi::export(default(own = None, presented = []))]
pub fn open_messages(
    keyring: Arc<Keyring>,
    trust: Arc<TrustStore>,
    stream_id: String,
    messages_json: String,
    own: Option<OwnKeys>,
    presented: Vec<PresentedKey>,
) -> Result<Vec<OpenResult>> {
    let list: Vec<MessageToOpen> = from_json(&messages_json)?;
    let trust = trust.lock();
    let senders = sender_keys(&trust, own.as_ref(), &presented)?;
    Ok(
        messages::open_messages_to_open(&keyring.lock(), &senders, &stream_id, &list)
            .into_iter()
            .map(|r| match r {
                Ok(message) => OpenResult::Opened { message },
                Err(e) => OpenResult::Failed {
                    code: e.code(),
                    error_message: e.to_string(),
                },
            })
            .collect(),
    )
}

/// A claimed sealed invocation, opened by a bot runtime. Holds the
/// invocation's keyring, its signing key and callback token; zeroized on drop.
#[derive(uniffi::Object)]
pub struct OpenedInvocation(runtime::OpenedInvocation);

#[uniffi::export]
impl OpenedInvocation {
    /// Opens the `sealedContext` of a claimed invocation (JSON) for the
    /// runtime of bot `bot_id` with its `identities` (the first signs what
    /// the runtime seals), through its `state` of the root stream (owner
    /// set, the owner's key accepted as sender) and its `trust` store;
    /// `presented` adds keys the server presented for members the store does
    /// not pin (their history items open `"unverified"`). Refuses a reply
    /// under another sender (`REPLY_SENDER_MISMATCH`), a prompt by anyone
    /// but the owner (`UNEXPECTED_AUTHOR`) or signed by another key holder
    /// (`SENDER_MISMATCH`), one sealed under a generation older than the
    /// newest held (`STALE_KEY_GENERATION`), one already acted on
    /// (`PROMPT_REPLAYED`), a plaintext invocation on a sealed root
    /// (`SEALED_STREAM_DOWNGRADE`), and a prompt sealed under a generation
    /// no accepted sender gave (`UNKNOWN_KEY_GENERATION` / `UNTRUSTED_WRAP`).
    /// History items open one by one (a repeat is `DUPLICATE_MESSAGE`).
    /// Persist the state afterwards.
    #[uniffi::constructor(default(presented = []))]
    pub fn open(
        invocation_json: String,
        state: Arc<StreamState>,
        trust: Arc<TrustStore>,
        bot_id: String,
        identities: Vec<Arc<IdentityKey>>,
        presented: Vec<PresentedKey>,
    ) -> Result<Arc<Self>> {
        let invocation: Invocation = from_json(&invocation_json)?;
        let mine = identity_keys(&identities);
        let mut state = state.lock();
        let trust = trust.lock();
        let senders = sender_keys(&trust, None, &presented)?;
        let mut dh = kept_dh(&identities);
        let opened = runtime::OpenedInvocation::open_with_platform_dh(
            &invocation,
            &mut state,
            &senders,
            &bot_id,
            &mine,
            &mut dh,
        );
        keep_dh(&identities, &mut dh);
        Ok(Arc::new(OpenedInvocation(opened?)))
    }

    /// The prompt's plaintext.
    pub fn prompt(&self) -> String {
        self.0.prompt.clone()
    }

    /// Who sealed the prompt (the owner), and whether its key is verified.
    pub fn prompt_sealed_by(&self) -> SealedBy {
        self.0.prompt_sealed_by.clone()
    }

    /// The history, in order: each item opened (its slot, generation,
    /// `sealed_by` and text) or failed with its code.
    pub fn history(&self) -> Vec<HistoryItem> {
        self.0.history.clone()
    }

    /// What the `sealedContext` wraps did (a minted generation shows as
    /// skipped with `UNTRUSTED_WRAP`).
    pub fn wraps(&self) -> WrapsReport {
        WrapsReport::from(self.0.wraps())
    }

    /// The invocation id.
    pub fn invocation_id(&self) -> String {
        self.0.invocation_id().to_owned()
    }

    /// The generations held when it was opened.
    pub fn generations(&self) -> Vec<u32> {
        self.0.keyring().generations()
    }

    /// The `sealed-complete` body with a sealed reply (JSON), signed by the
    /// runtime's first key as its bot.
    pub fn seal_reply(&self, message_id: String, text: String) -> Result<String> {
        to_json(&self.0.seal_reply(&MessageId::parse(&message_id)?, &text)?)
    }

    /// Hazmat (see the core's `streamseal::hazmat`): `seal_reply` drawing the
    /// envelope's iv and `Z` from `randomness`, to the last byte. Never
    /// outside tests.
    pub fn hazmat_seal_reply_with_randomness(
        &self,
        message_id: String,
        text: String,
        randomness: Vec<u8>,
    ) -> Result<String> {
        let message_id = MessageId::parse(&message_id)?;
        to_json(&streamseal::hazmat::drawing_exactly(&randomness, |rng| {
            streamseal::sealed::hazmat::seal_reply_with(rng, &self.0, &message_id, &text)
        })?)
    }

    /// The `sealedReply` of a plain `complete` body (JSON).
    pub fn seal_complete_reply(&self, message_id: String, text: String) -> Result<String> {
        to_json(
            &self
                .0
                .seal_complete_reply(&MessageId::parse(&message_id)?, &text)?,
        )
    }

    /// The `bot:invocation:sealed-steps` event payload (JSON) carrying the
    /// sealed steps `steps_json` (a JSON array of `seal_step` bodies), for
    /// high-volume steps sent over the socket instead of HTTP (API §6).
    pub fn step_frames(&self, steps_json: String) -> Result<String> {
        let steps: Vec<SealedStepRequest> = request_shape_from_json(&steps_json)?;
        to_json(&self.0.step_frames(&steps))
    }

    /// The `sealed-messages` body of a follow-up message (JSON).
    pub fn seal_message(&self, message_id: String, text: String) -> Result<String> {
        to_json(
            &self
                .0
                .seal_message(&MessageId::parse(&message_id)?, &text)?,
        )
    }

    /// The `sealed-steps/started` body (JSON).
    pub fn seal_step_started(
        &self,
        step_id: String,
        step_type: String,
        message_id: Option<String>,
        text: Option<String>,
    ) -> Result<String> {
        to_json(&self.0.seal_step_started(
            &step_id,
            &StepType::parse(&step_type),
            message_id.as_deref(),
            text.as_deref(),
        )?)
    }

    /// The `sealed-steps` body of a finished step (JSON).
    pub fn seal_step(
        &self,
        step_id: String,
        step_type: String,
        message_id: Option<String>,
        text: String,
        duration_ms: Option<u64>,
    ) -> Result<String> {
        to_json(&self.0.seal_step(
            &step_id,
            &StepType::parse(&step_type),
            message_id.as_deref(),
            &text,
            duration_ms,
        )?)
    }

    /// A sealed decision card posted from this invocation (bound to it and
    /// `runtime_session_id`), signed by the runtime's bot; `content_json` is
    /// `{title, body, labels: {optionId: label}}`. Returns the
    /// `POST streams/{id}/decisions` body (JSON).
    pub fn seal_decision_card(
        &self,
        stream_id: String,
        decision_id: String,
        options: Vec<DecisionOption>,
        allow_note: bool,
        content_json: String,
        runtime_session_id: String,
    ) -> Result<String> {
        let content: DecisionCardContent = from_json(&content_json)?;
        to_json(&self.0.seal_decision_card(
            &stream_id,
            &DecisionId::parse(&decision_id)?,
            options,
            allow_note,
            &content,
            &runtime_session_id,
        )?)
    }
}

/// Where a trace step belongs, as a viewer knows it (`runtime::StepPlacement`).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct StepPlacement {
    /// The invocation.
    pub invocation_id: String,
    /// The bot the invocation is for: the step's signer must be it.
    pub bot_id: String,
    /// The step id.
    pub step_id: String,
    /// The step type (`thinking`, `tool_call`, ...).
    pub step_type: String,
    /// Started or completed.
    pub phase: StepPhase,
    /// The message the step names, if any.
    pub message_id: Option<String>,
}

/// Opens a sealed trace step (a step frame's or list item's payload): bound
/// to `placement`'s invocation, step, type and phase, and sealed by its bot
/// (`UNEXPECTED_AUTHOR` for any other signer; see [`crate::crypto::open`]
/// for `trust`, `own` and `presented`).
#[uniffi::export(default(own = None, presented = []))]
pub fn open_step(
    keyring: Arc<Keyring>,
    trust: Arc<TrustStore>,
    placement: StepPlacement,
    sealed: streamseal::envelope::SealedPayload,
    own: Option<OwnKeys>,
    presented: Vec<PresentedKey>,
) -> Result<OpenedStep> {
    let trust = trust.lock();
    let senders = sender_keys(&trust, own.as_ref(), &presented)?;
    let step_type = StepType::parse(&placement.step_type);
    Ok(runtime::open_step(
        &keyring.lock(),
        &senders,
        runtime::StepPlacement {
            invocation_id: &placement.invocation_id,
            bot_id: &placement.bot_id,
            step_id: &placement.step_id,
            step_type: &step_type,
            phase: placement.phase,
            message_id: placement.message_id.as_deref(),
        },
        &sealed,
    )?)
}

/// Seals a decision card, signed by `identity` as `subject`'s (the
/// runtime's bot); the stream, decision, invocation, runtime session,
/// options and `allow_note` are bound. `content_json` is
/// `{title, body, labels: {optionId: label}}`. Returns the
/// `POST streams/{id}/decisions` body (JSON).
#[uniffi::export]
#[allow(clippy::too_many_arguments)]
pub fn seal_decision_card(
    keyring: Arc<Keyring>,
    identity: Arc<IdentityKey>,
    subject: String,
    stream_id: String,
    decision_id: String,
    runtime_session_id: String,
    invocation_id: String,
    options: Vec<DecisionOption>,
    allow_note: bool,
    content_json: String,
) -> Result<String> {
    let content: DecisionCardContent = from_json(&content_json)?;
    let decision_id = DecisionId::parse(&decision_id)?;
    let signer = signer(&identity, &subject)?;
    let placement = CardPlacement {
        stream_id: &stream_id,
        decision_id: &decision_id,
        runtime_session_id: &runtime_session_id,
        invocation_id: &invocation_id,
    };
    to_json(&decisions::seal_decision_card(
        &keyring.lock(),
        &signer,
        placement,
        options,
        allow_note,
        &content,
    )?)
}

/// A sealed card, opened: its content and who sealed it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct OpenedDecisionCard {
    /// `{title, body, labels: {optionId: label}}` as JSON.
    pub content_json: String,
    /// The bot that sealed the card, and whether its key is verified.
    pub sealed_by: SealedBy,
}

/// Opens a sealed card (`CreateDecisionRequest` JSON) posted in
/// `stream_id`: its clear options, `allowNote`, `invocationId` and
/// `runtimeSessionId` must be the ones sealed (`AAD_MISMATCH`); see
/// [`crate::crypto::open`] for `trust`, `own` and `presented`.
#[uniffi::export(default(own = None, presented = []))]
pub fn open_decision_card(
    keyring: Arc<Keyring>,
    trust: Arc<TrustStore>,
    stream_id: String,
    card_json: String,
    own: Option<OwnKeys>,
    presented: Vec<PresentedKey>,
) -> Result<OpenedDecisionCard> {
    let card: CreateDecisionRequest = from_json(&card_json)?;
    let trust = trust.lock();
    let senders = sender_keys(&trust, own.as_ref(), &presented)?;
    let opened = decisions::open_decision_card(&keyring.lock(), &senders, &stream_id, &card)?;
    Ok(OpenedDecisionCard {
        content_json: to_json(&opened.content)?,
        sealed_by: opened.sealed_by,
    })
}

/// Seals the decider's note, signed by `identity` as `subject`'s (the
/// decider, whom the note names): the proof of the answer, bound to the
/// decision, the option and the decider. Always seal one on a sealed card
/// (an empty `note` is fine).
#[uniffi::export]
pub fn seal_decision_note(
    keyring: Arc<Keyring>,
    identity: Arc<IdentityKey>,
    subject: String,
    decision_id: String,
    option_id: String,
    note: String,
) -> Result<streamseal::envelope::SealedPayload> {
    let signer = signer(&identity, &subject)?;
    Ok(decisions::seal_decision_note(
        &keyring.lock(),
        &signer,
        &decision_id,
        &option_id,
        &note,
    )?)
}

/// Opens the answer of a `decision:resolved` event (JSON) to `card` (the
/// sealed card as posted, `CreateDecisionRequest` JSON): the option counts
/// only with the decider's sealed note bound to this decision, option and
/// decider, signed by the decider (`UNPROVEN_DECISION_ANSWER` without it,
/// for an option not on the card or another decision; `SENDER_MISMATCH` for
/// another key holder's signature; `STALE_KEY_GENERATION` under a
/// generation older than the newest held). See [`crate::crypto::open`] for
/// `trust`, `own` and `presented`.
#[uniffi::export(default(own = None, presented = []))]
pub fn open_decision_answer(
    keyring: Arc<Keyring>,
    trust: Arc<TrustStore>,
    card_json: String,
    event_json: String,
    own: Option<OwnKeys>,
    presented: Vec<PresentedKey>,
) -> Result<DecisionAnswer> {
    let card: CreateDecisionRequest = from_json(&card_json)?;
    let event: DecisionResolved = from_json(&event_json)?;
    let trust = trust.lock();
    let senders = sender_keys(&trust, own.as_ref(), &presented)?;
    Ok(decisions::open_decision_answer(
        &keyring.lock(),
        &senders,
        &card,
        &event,
    )?)
}

/// A new message id (`msg_` + ULID) minted at `now_ms`: the id a new
/// sealed message's AAD binds (`seal_message`'s `message_id`), sent as its
/// `clientMessageId`. Mint it once per message and reuse it on every retry.
#[uniffi::export]
pub fn mint_message_id(now_ms: u64) -> Result<String> {
    Ok(MessageId::mint(now_ms)?.as_str().to_owned())
}

/// Adds `key`'s public key and key id to a presence request (JSON, the
/// `POST bots/presence` body), so the runtime's machine can be sent key wraps;
/// the result is validated against the API's bounds.
#[uniffi::export]
pub fn with_machine_key(presence_json: String, key: Arc<IdentityKey>) -> Result<String> {
    let presence: PresenceRequest = request_shape_from_json(&presence_json)?;
    to_json(&streamseal::sealed::presence::with_machine_key(
        presence, &key.0,
    )?)
}
