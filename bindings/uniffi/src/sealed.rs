//! The sealed-stream flows (`streamseal::sealed`). Wire documents the
//! server sends (`OwnKey`, `KeyWraps`, `Message`, `Invocation`,
//! `DecisionResolved`, a card's `CreateDecisionRequest`) come in as JSON
//! text and request bodies go out as JSON text; see the crate docs for why.

use std::sync::Arc;

use streamseal::identity::KeyId;
use streamseal::kdf::KdfParams;
use streamseal::sealed::decisions::{self, CardPlacement, DecisionCardContent};
use streamseal::sealed::messages::{self, OpenedMessage};
use streamseal::sealed::runtime::{self, HistoryEntry};
use streamseal::sealed::{keyring as sealed_keyring, session, user_key};
use streamseal::slot::{DecisionOption, StepPhase};
use streamseal::wire::events::DecisionResolved;
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::{KeyWraps, OwnKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::requests::messages::SendMessageRequest;
use streamseal::wrap::KeyWrap;

use zeroize::Zeroizing;

use crate::error::{Result, from_json, to_json};
use crate::keys::{IdentityKey, KdfLimits, Keyring, Recipient, identity_keys, recipients};

/// A new user key and the record to store with `PUT me/e2e-key`.
#[derive(uniffi::Record)]
pub struct NewUserKey {
    /// The unlocked key (kind `user`).
    pub key: Arc<IdentityKey>,
    /// `{keyId, publicKey, encryptedPrivateBundle, kdfSalt, kdfParams}` as JSON.
    pub record_json: String,
}

/// Generates the user's key and protects it with `passphrase`. Blocks for
/// the KDF: call it off the main thread.
#[uniffi::export]
pub fn set_up_user_key(
    key_id: String,
    passphrase: String,
    params: KdfParams,
) -> Result<NewUserKey> {
    let passphrase = Zeroizing::new(passphrase);
    let (key, record) = user_key::set_up(KeyId::new(key_id)?, &passphrase, &params)?;
    Ok(NewUserKey {
        key: Arc::new(IdentityKey(key)),
        record_json: to_json(&record)?,
    })
}

/// Unlocks the user's key from the `GET me/e2e-key` record (JSON). Checks
/// `limits` first, then blocks for the KDF: call it off the main thread.
#[uniffi::export]
pub fn unlock(
    record_json: String,
    passphrase: String,
    limits: KdfLimits,
) -> Result<Arc<IdentityKey>> {
    let passphrase = Zeroizing::new(passphrase);
    let record: OwnKey = from_json(&record_json)?;
    Ok(Arc::new(IdentityKey(user_key::unlock(
        &record,
        &passphrase,
        &limits.into(),
    )?)))
}

/// Re-protects the user's key with a new passphrase; returns the record to store (JSON).
#[uniffi::export]
pub fn change_passphrase(
    record_json: String,
    old_passphrase: String,
    new_passphrase: String,
    params: KdfParams,
    limits: KdfLimits,
) -> Result<String> {
    let old_passphrase = Zeroizing::new(old_passphrase);
    let new_passphrase = Zeroizing::new(new_passphrase);
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

/// A new generation of a root stream's key.
#[derive(uniffi::Record)]
pub struct NewGeneration {
    /// The keyring holding it (current).
    pub keyring: Arc<Keyring>,
    /// The generation made.
    pub key_generation: u32,
    /// One wrap per recipient.
    pub wraps: Vec<KeyWrap>,
    /// The `POST streams/{rootStreamId}/e2e/key-wraps` body, JSON.
    pub request_json: String,
}

/// Generation 0 of a new sealed stream, wrapped to `recipients`.
#[uniffi::export]
pub fn generation_zero(
    root_stream_id: String,
    recipients_: Vec<Recipient>,
) -> Result<NewGeneration> {
    let (ring, new) = session::generation_zero(&root_stream_id, &recipients(&recipients_)?)?;
    Ok(NewGeneration {
        keyring: Keyring::wrap(ring),
        key_generation: new.key_generation,
        request_json: to_json(&new.request)?,
        wraps: new.wraps,
    })
}

/// Rolls `keyring` to a new generation wrapped to `recipients` (the
/// removed member left out); the same keyring is returned, now current at
/// the new generation.
#[uniffi::export]
pub fn roll_generation(
    keyring: Arc<Keyring>,
    recipients_: Vec<Recipient>,
) -> Result<NewGeneration> {
    let new = session::roll_generation(&mut keyring.lock(), &recipients(&recipients_)?)?;
    Ok(NewGeneration {
        keyring,
        key_generation: new.key_generation,
        request_json: to_json(&new.request)?,
        wraps: new.wraps,
    })
}

/// A wrap addressed to the caller that did not open.
#[derive(uniffi::Record)]
pub struct SkippedWrap {
    /// Its generation.
    pub key_generation: u32,
    /// Why it did not open (a stable error code).
    pub code: String,
}

/// A root stream's keyring opened from its key-wraps list.
#[derive(uniffi::Record)]
pub struct OpenedKeyring {
    /// The keyring, its current generation set.
    pub keyring: Arc<Keyring>,
    /// Wraps addressed to the caller that did not open.
    pub skipped: Vec<SkippedWrap>,
}

/// Opens `GET streams/{rootStreamId}/e2e/key-wraps` (JSON) with the caller's keys.
#[uniffi::export]
pub fn open_key_wraps(
    root_stream_id: String,
    key_wraps_json: String,
    mine: Vec<Arc<IdentityKey>>,
) -> Result<OpenedKeyring> {
    let wraps: KeyWraps = from_json(&key_wraps_json)?;
    let opened = sealed_keyring::open_key_wraps(&root_stream_id, &wraps, &identity_keys(&mine))?;
    Ok(OpenedKeyring {
        keyring: Keyring::wrap(opened.keyring),
        skipped: opened
            .skipped
            .into_iter()
            .map(|s| SkippedWrap {
                key_generation: s.key_generation,
                code: s.code.as_str().to_owned(),
            })
            .collect(),
    })
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

/// Checks a send body (JSON) against the stream's sealed state
/// (`E2E_STREAM_REQUIRES_CIPHERTEXT`, `E2E_PAYLOAD_REQUIRES_E2E_STREAM`) and the wire bounds.
#[uniffi::export]
pub fn check_send_rules(e2e_enabled: bool, body_json: String) -> Result<()> {
    let body: SendMessageRequest = from_json(&body_json)?;
    Ok(messages::check_send_rules(e2e_enabled, &body)?)
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
    /// Opens the `sealedContext` of a claimed invocation (JSON) with the runtime's keys.
    #[uniffi::constructor]
    pub fn open(invocation_json: String, mine: Vec<Arc<IdentityKey>>) -> Result<Arc<Self>> {
        let invocation: Invocation = from_json(&invocation_json)?;
        Ok(Arc::new(OpenedInvocation(runtime::OpenedInvocation::open(
            &invocation,
            &identity_keys(&mine),
        )?)))
    }

    /// The prompt's plaintext.
    pub fn prompt(&self) -> String {
        self.0.prompt.clone()
    }

    /// The opened history, in order.
    pub fn history(&self) -> Vec<HistoryEntry> {
        self.0.history.clone()
    }

    /// The invocation id.
    pub fn invocation_id(&self) -> String {
        self.0.invocation_id().to_owned()
    }

    /// The keys the context carried (a copy of the keyring).
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

/// Seals the decider's note.
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

/// Opens the note of a `decision:resolved` event (JSON); `None` without a note.
#[uniffi::export]
pub fn open_decision_note(keyring: Arc<Keyring>, event_json: String) -> Result<Option<String>> {
    let event: DecisionResolved = from_json(&event_json)?;
    Ok(decisions::open_decision_note(&keyring.lock(), &event)?)
}

/// A new message id (`msg_` + ULID) for `now_ms`.
#[uniffi::export]
pub fn mint_message_id(now_ms: u64) -> Result<String> {
    Ok(MessageId::mint(now_ms)?.as_str().to_owned())
}
