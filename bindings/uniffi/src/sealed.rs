//! The sealed-stream flows (`streamseal::sealed`). Wire documents the
//! server sends (`OwnKey`, `KeyWraps`, `Message`, `Invocation`,
//! `DecisionResolved`, a card's `CreateDecisionRequest`) come in as JSON
//! text and request bodies go out as JSON text; see the crate docs for why.

use std::sync::Arc;

use streamseal::identity::KeyId;
use streamseal::kdf::KdfParams;
use streamseal::sealed::decisions::{self, CardPlacement, DecisionAnswer, DecisionCardContent};
use streamseal::sealed::messages::{self, OpenedMessage};
use streamseal::sealed::runtime::{self, HistoryItem};
use streamseal::sealed::{keyring as sealed_keyring, session, user_key};
use streamseal::slot::{DecisionOption, StepPhase};
use streamseal::wire::events::DecisionResolved;
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::{KeyWraps, OwnKey, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::requests::messages::SendMessageRequest;

use crate::error::{Result, from_json, to_json};
use crate::keys::{IdentityKey, KdfLimits, Keyring, identity_keys};
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
        key: Arc::new(IdentityKey(key)),
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
    Ok(Arc::new(IdentityKey(user_key::unlock(
        &record,
        &passphrase,
        &limits.into(),
    )?)))
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
    let report = sealed_keyring::open_key_wraps(&mut state, &trust, &wraps, &mine)?;
    Ok(WrapsReport::from(&report))
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

/// Seals a new message (revision 1); returns the `POST streams/{id}/messages` body (JSON).
#[uniffi::export]
pub fn seal_message(
    keyring: Arc<Keyring>,
    stream_id: String,
    message_id: String,
    author_id: String,
    text: String,
    client_message_id: Option<String>,
) -> Result<String> {
    let body = messages::seal_message(
        &keyring.lock(),
        &stream_id,
        &MessageId::parse(&message_id)?,
        &author_id,
        &text,
        client_message_id,
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
    let body: SendMessageRequest = from_json(&body_json)?;
    Ok(messages::check_send_rules(
        known_sealed,
        e2e_enabled,
        &body,
    )?)
}

/// Seals an edit of `message_json` (the next revision); returns `{ciphertext, envelope}`.
#[uniffi::export]
pub fn seal_edit(
    keyring: Arc<Keyring>,
    message_json: String,
    author_id: String,
    text: String,
) -> Result<streamseal::envelope::SealedPayload> {
    let message: Message = from_json(&message_json)?;
    Ok(messages::seal_edit(
        &keyring.lock(),
        &message,
        &author_id,
        &text,
    )?)
}

/// Opens one `Message` (JSON) of a list, send or find response.
#[uniffi::export]
pub fn open_message(keyring: Arc<Keyring>, message_json: String) -> Result<OpenedMessage> {
    let message: Message = from_json(&message_json)?;
    Ok(messages::open_message(&keyring.lock(), &message)?)
}

/// A claimed sealed invocation, opened by a bot runtime. Holds the
/// invocation's keyring and callback token; zeroized on drop.
#[derive(uniffi::Object)]
pub struct OpenedInvocation(runtime::OpenedInvocation);

#[uniffi::export]
impl OpenedInvocation {
    /// Opens the `sealedContext` of a claimed invocation (JSON) for the
    /// runtime of bot `bot_id` with its `identities`, through its `state` of
    /// the root stream (owner set, the owner's key accepted as sender) and
    /// its `trust` store. Refuses a reply under another sender
    /// (`REPLY_SENDER_MISMATCH`), a prompt by anyone but the owner
    /// (`UNEXPECTED_AUTHOR`), a prompt already acted on
    /// (`PROMPT_REPLAYED`), a plaintext invocation on a sealed root
    /// (`SEALED_STREAM_DOWNGRADE`), and a prompt sealed under a generation
    /// no accepted sender gave (`UNKNOWN_KEY_GENERATION` / `UNTRUSTED_WRAP`).
    /// History items open one by one. Persist the state afterwards.
    #[uniffi::constructor]
    pub fn open(
        invocation_json: String,
        state: Arc<StreamState>,
        trust: Arc<TrustStore>,
        bot_id: String,
        identities: Vec<Arc<IdentityKey>>,
    ) -> Result<Arc<Self>> {
        let invocation: Invocation = from_json(&invocation_json)?;
        let mine = identity_keys(&identities);
        let mut state = state.lock();
        let trust = trust.lock();
        Ok(Arc::new(OpenedInvocation(runtime::OpenedInvocation::open(
            &invocation,
            &mut state,
            &trust,
            &bot_id,
            &mine,
        )?)))
    }

    /// The prompt's plaintext.
    pub fn prompt(&self) -> String {
        self.0.prompt.clone()
    }

    /// The history, in order: each item opened or failed with its code.
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

    /// The `sealed-complete` body with a sealed reply (JSON).
    pub fn seal_reply(&self, message_id: String, text: String) -> Result<String> {
        to_json(&self.0.seal_reply(&MessageId::parse(&message_id)?, &text)?)
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
}

/// Opens a sealed trace step (a step frame's or list item's payload).
#[uniffi::export]
#[allow(clippy::too_many_arguments)]
pub fn open_step(
    keyring: Arc<Keyring>,
    invocation_id: String,
    step_id: String,
    step_type: String,
    phase: StepPhase,
    message_id: Option<String>,
    sealed: streamseal::envelope::SealedPayload,
) -> Result<String> {
    Ok(runtime::open_step(
        &keyring.lock(),
        &invocation_id,
        &step_id,
        &StepType::parse(&step_type),
        phase,
        message_id.as_deref(),
        &sealed,
    )?)
}

/// Seals a decision card; `content_json` is `{title, body, labels: {optionId: label}}`.
/// Returns the `POST streams/{id}/decisions` body (JSON).
#[uniffi::export]
#[allow(clippy::too_many_arguments)]
pub fn seal_decision_card(
    keyring: Arc<Keyring>,
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
    let placement = CardPlacement {
        stream_id: &stream_id,
        decision_id: &decision_id,
        runtime_session_id: &runtime_session_id,
        invocation_id: &invocation_id,
    };
    to_json(&decisions::seal_decision_card(
        &keyring.lock(),
        placement,
        options,
        allow_note,
        &content,
    )?)
}

/// Opens a sealed card (`CreateDecisionRequest` JSON); returns its content as JSON.
#[uniffi::export]
pub fn open_decision_card(
    keyring: Arc<Keyring>,
    stream_id: String,
    card_json: String,
) -> Result<String> {
    let card: CreateDecisionRequest = from_json(&card_json)?;
    to_json(&decisions::open_decision_card(
        &keyring.lock(),
        &stream_id,
        &card,
    )?)
}

/// Seals the decider's note: the proof of the answer, bound to the
/// decision, the option and the decider. Always seal one on a sealed card
/// (an empty `note` is fine).
#[uniffi::export]
pub fn seal_decision_note(
    keyring: Arc<Keyring>,
    decision_id: String,
    option_id: String,
    decided_by: String,
    note: String,
) -> Result<streamseal::envelope::SealedPayload> {
    Ok(decisions::seal_decision_note(
        &keyring.lock(),
        &decision_id,
        &option_id,
        &decided_by,
        &note,
    )?)
}

/// Opens the answer of a `decision:resolved` event (JSON) to `card` (the
/// sealed card as posted, `CreateDecisionRequest` JSON): the option counts
/// only with the sealed note that proves it and the decider
/// (`UNPROVEN_DECISION_ANSWER` otherwise).
#[uniffi::export]
pub fn open_decision_answer(
    keyring: Arc<Keyring>,
    card_json: String,
    event_json: String,
) -> Result<DecisionAnswer> {
    let card: CreateDecisionRequest = from_json(&card_json)?;
    let event: DecisionResolved = from_json(&event_json)?;
    Ok(decisions::open_decision_answer(
        &keyring.lock(),
        &card,
        &event,
    )?)
}

/// A new message id (`msg_` + ULID) for `now_ms`.
#[uniffi::export]
pub fn mint_message_id(now_ms: u64) -> Result<String> {
    Ok(MessageId::mint(now_ms)?.as_str().to_owned())
}
