//! The sealed flows (`streamseal::sealed`): unlock a user's key, open key
//! wraps, send/edit/open messages (one message or a whole history in one
//! call), a runtime's opened invocation, generations, decision cards and
//! notes, presence. Each export forwards to the core function of the same
//! name; `mine` is the caller's identity key.

use serde::Serialize;
use streamseal::envelope::SealedPayload;
use streamseal::identity::{KeyId, Recipient};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::decisions::{self, CardPlacement, DecisionCardContent};
use streamseal::sealed::keyring::{self, SkippedWrap};
use streamseal::sealed::messages::{self, MessageToOpen, OpenedMessage};
use streamseal::sealed::presence;
use streamseal::sealed::runtime::{self, HistoryEntry};
use streamseal::sealed::session::{self, NewGeneration};
use streamseal::sealed::user_key::{self, NewOwnKey};
use streamseal::slot::{DecisionOption, StepPhase};
use streamseal::wire::events::{DecisionResolved, SealedSteps};
use streamseal::wire::ids::{DecisionId, MessageId};
use streamseal::wire::invocation::Invocation;
use streamseal::wire::keys::{KeyWraps, OwnKey, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::bot_runtime::PresenceRequest;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::{
    CompleteSealedReply, SealedCompleteRequest, SealedMessageRequest, SealedStepRequest,
    SealedStepStartedRequest, StepType,
};
use streamseal::wire::requests::messages::SendMessageRequest;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::crypto::{kdf_limits, kdf_params};
use crate::error::{JsResult, input, js, output, to_js};
use crate::keys::{IdentityKey, Keyring};

// ---- user key -------------------------------------------------------------

/// Unlocks the user's key from its `me/e2e-key` record with the passphrase
/// (`WRONG_PASSPHRASE`, `KDF_PARAMS_OUT_OF_BOUNDS`, ...).
#[wasm_bindgen]
pub fn unlock(
    record: Ts<OwnKey>,
    passphrase: &str,
    limits: Option<Ts<KdfLimits>>,
) -> JsResult<IdentityKey> {
    let record = input("record", &record)?;
    let limits = kdf_limits(limits)?;
    js(user_key::unlock(&record, passphrase, &limits)).map(IdentityKey::from_core)
}

/// A new user key: the key (in WASM memory) and the record to upload.
#[wasm_bindgen]
pub struct SetUpKey {
    identity: Option<IdentityKey>,
    record: NewOwnKey,
}

#[wasm_bindgen]
impl SetUpKey {
    /// The new identity key. Can be taken once; the caller then owns it
    /// (and its `free()`).
    #[wasm_bindgen(js_name = takeIdentity)]
    pub fn take_identity(&mut self) -> JsResult<IdentityKey> {
        crate::error::take_once(&mut self.identity, "the identity key")
    }

    /// The `POST me/e2e-key` body (public key and sealed bundle; no secret).
    #[wasm_bindgen(getter)]
    pub fn record(&self) -> JsResult<Ts<NewOwnKey>> {
        output(&self.record)
    }
}

/// Sets up a user key protected by `passphrase` (`params`: Argon2id, the
/// library's defaults when omitted).
#[wasm_bindgen(js_name = setUp)]
pub fn set_up(key_id: &str, passphrase: &str, params: Option<Ts<KdfParams>>) -> JsResult<SetUpKey> {
    let params = kdf_params(params)?;
    let key_id = js(KeyId::new(key_id))?;
    let (identity, record) = js(user_key::set_up(key_id, passphrase, &params))?;
    Ok(SetUpKey {
        identity: Some(IdentityKey::from_core(identity)),
        record,
    })
}

/// Re-seals the user's key under a new passphrase.
#[wasm_bindgen(js_name = changePassphrase)]
pub fn change_passphrase(
    record: Ts<OwnKey>,
    old_passphrase: &str,
    new_passphrase: &str,
    params: Option<Ts<KdfParams>>,
    limits: Option<Ts<KdfLimits>>,
) -> JsResult<Ts<NewOwnKey>> {
    let record = input("record", &record)?;
    let params = kdf_params(params)?;
    let limits = kdf_limits(limits)?;
    output(&js(user_key::change_passphrase(
        &record,
        old_passphrase,
        new_passphrase,
        &params,
        &limits,
    ))?)
}

// ---- keyrings ---------------------------------------------------------------

/// The result of `openKeyWraps`: the keyring and the wraps that did not open.
#[wasm_bindgen]
pub struct OpenedKeyring {
    keyring: Option<Keyring>,
    skipped: Vec<SkippedWrap>,
}

#[wasm_bindgen]
impl OpenedKeyring {
    /// The keyring. Can be taken once; the caller then owns it (and its `free()`).
    #[wasm_bindgen(js_name = takeKeyring)]
    pub fn take_keyring(&mut self) -> JsResult<Keyring> {
        crate::error::take_once(&mut self.keyring, "the keyring")
    }

    /// The wraps that did not open, with their codes.
    #[wasm_bindgen(getter, unchecked_return_type = "SkippedWrap[]")]
    pub fn skipped(&self) -> JsResult<JsValue> {
        to_js(&self.skipped)
    }
}

/// Opens a `key-wraps` response into a keyring of `rootStreamId`.
#[wasm_bindgen(js_name = openKeyWraps)]
pub fn open_key_wraps(
    root_stream_id: &str,
    wraps: Ts<KeyWraps>,
    mine: &IdentityKey,
) -> JsResult<OpenedKeyring> {
    let wraps = input("wraps", &wraps)?;
    let opened = js(keyring::open_key_wraps(root_stream_id, &wraps, mine.mine()))?;
    Ok(OpenedKeyring {
        keyring: Some(Keyring::from_core(opened.keyring)),
        skipped: opened.skipped,
    })
}

/// Adds the wraps addressed to `mine` to `keyring`; returns the skipped ones.
#[wasm_bindgen(js_name = addWraps, unchecked_return_type = "SkippedWrap[]")]
pub fn add_wraps(
    keyring: &mut Keyring,
    #[wasm_bindgen(unchecked_param_type = "KeyWrap[]")] wraps: JsValue,
    mine: &IdentityKey,
) -> JsResult<JsValue> {
    let wraps: Vec<streamseal::wrap::KeyWrap> = crate::error::from_js("wraps", wraps)?;
    to_js(&js(keyring::add_wraps(
        keyring.core_mut(),
        &wraps,
        mine.mine(),
    ))?)
}

/// Records the generation the server announces as current.
#[wasm_bindgen]
pub fn announce(keyring: &mut Keyring, announced: u32) {
    keyring::announce(keyring.core_mut(), announced);
}

// ---- messages ---------------------------------------------------------------

/// The `POST streams/{streamId}/messages` body of a sealed message.
#[wasm_bindgen(js_name = sealMessage)]
pub fn seal_message(
    keyring: &Keyring,
    stream_id: &str,
    message_id: &str,
    author_id: &str,
    text: &str,
    client_message_id: Option<String>,
) -> JsResult<Ts<SendMessageRequest>> {
    let message_id = js(MessageId::parse(message_id))?;
    output(&js(messages::seal_message(
        keyring.core(),
        stream_id,
        &message_id,
        author_id,
        text,
        client_message_id,
    ))?)
}

/// Checks a send body against the stream's `e2eEnabled` (the service's own codes).
#[wasm_bindgen(js_name = checkSendRules)]
pub fn check_send_rules(e2e_enabled: bool, body: Ts<SendMessageRequest>) -> JsResult<()> {
    let body = input("body", &body)?;
    js(messages::check_send_rules(e2e_enabled, &body))
}

/// The sealed payload of an edit of `message` by `authorId`.
#[wasm_bindgen(js_name = sealEdit)]
pub fn seal_edit(
    keyring: &Keyring,
    message: Ts<Message>,
    author_id: &str,
    text: &str,
) -> JsResult<Ts<SealedPayload>> {
    let message = input("message", &message)?;
    output(&js(messages::seal_edit(
        keyring.core(),
        &message,
        author_id,
        text,
    ))?)
}

/// Opens one sealed message.
#[wasm_bindgen(js_name = openMessage)]
pub fn open_message(keyring: &Keyring, message: Ts<Message>) -> JsResult<Ts<OpenedMessage>> {
    // Only what the AAD binds and the sealed body cross (`MessageToOpen`).
    let message: MessageToOpen = crate::error::from_js("message", message.into())?;
    output(&js(messages::open_message_to_open(
        keyring.core(),
        &message,
    ))?)
}

/// One entry of `openMessages`: the opened message, or why it did not open.
#[derive(Serialize, Tsify)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum OpenResult {
    /// Opened.
    Opened {
        /// The message.
        message: OpenedMessage,
    },
    /// Not opened.
    Failed {
        /// The stable code.
        code: streamseal::ErrorCode,
        /// The message of the error.
        message: String,
    },
}

/// Opens a whole history in one call: one entry per message, in order, each
/// opened or failed on its own (`sealed::messages::open_messages`).
#[wasm_bindgen(js_name = openMessages, unchecked_return_type = "OpenResult[]")]
pub fn open_messages(
    keyring: &Keyring,
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
) -> JsResult<JsValue> {
    // Only what the AAD binds and the sealed body cross, five fields of
    // each message's fifteen (`MessageToOpen`): converting the others cost
    // more than decrypting (BENCHMARKS.md).
    let messages: Vec<MessageToOpen> = crate::error::from_js("messages", messages)?;
    let results: Vec<OpenResult> = messages::open_messages_to_open(keyring.core(), &messages)
        .into_iter()
        .map(|r| match r {
            Ok(message) => OpenResult::Opened { message },
            Err(e) => OpenResult::Failed {
                code: e.code(),
                message: e.to_string(),
            },
        })
        .collect();
    to_js(&results)
}

// ---- a runtime's invocation -------------------------------------------------

/// A claimed sealed invocation, opened: its prompt and history in plain
/// text, and the keys to seal steps and the reply (in WASM memory; call
/// `free()` when done).
#[wasm_bindgen]
pub struct OpenedInvocation {
    inner: runtime::OpenedInvocation,
}

#[wasm_bindgen]
impl OpenedInvocation {
    /// Opens the invocation's `sealedContext` with `mine`.
    pub fn open(invocation: Ts<Invocation>, mine: &IdentityKey) -> JsResult<OpenedInvocation> {
        let invocation = input("invocation", &invocation)?;
        js(runtime::OpenedInvocation::open(&invocation, mine.mine()))
            .map(|inner| OpenedInvocation { inner })
    }

    /// The invocation id.
    #[wasm_bindgen(getter, js_name = invocationId)]
    pub fn invocation_id(&self) -> String {
        self.inner.invocation_id().to_owned()
    }

    /// The prompt.
    #[wasm_bindgen(getter)]
    pub fn prompt(&self) -> String {
        self.inner.prompt.clone()
    }

    /// The history, opened.
    #[wasm_bindgen(getter, unchecked_return_type = "HistoryEntry[]")]
    pub fn history(&self) -> JsResult<JsValue> {
        to_js::<Vec<HistoryEntry>>(&self.inner.history)
    }

    /// The generations of the keyring the wraps gave.
    #[wasm_bindgen(unchecked_return_type = "number[]")]
    pub fn generations(&self) -> JsResult<JsValue> {
        to_js(&self.inner.keyring().generations())
    }

    /// The `sealed-complete` body with the reply.
    #[wasm_bindgen(js_name = sealReply)]
    pub fn seal_reply(&self, message_id: &str, text: &str) -> JsResult<Ts<SealedCompleteRequest>> {
        let message_id = js(MessageId::parse(message_id))?;
        output(&js(self.inner.seal_reply(&message_id, text))?)
    }

    /// The sealed reply of the plain `complete` call.
    #[wasm_bindgen(js_name = sealCompleteReply)]
    pub fn seal_complete_reply(
        &self,
        message_id: &str,
        text: &str,
    ) -> JsResult<Ts<CompleteSealedReply>> {
        let message_id = js(MessageId::parse(message_id))?;
        output(&js(self.inner.seal_complete_reply(&message_id, text))?)
    }

    /// The `sealed-message` body of an intermediate bot message.
    #[wasm_bindgen(js_name = sealMessage)]
    pub fn seal_message(&self, message_id: &str, text: &str) -> JsResult<Ts<SealedMessageRequest>> {
        let message_id = js(MessageId::parse(message_id))?;
        output(&js(self.inner.seal_message(&message_id, text))?)
    }

    /// The `sealed-step-started` body.
    #[wasm_bindgen(js_name = sealStepStarted)]
    pub fn seal_step_started(
        &self,
        step_id: &str,
        step_type: &str,
        message_id: Option<String>,
        text: Option<String>,
    ) -> JsResult<Ts<SealedStepStartedRequest>> {
        output(&js(self.inner.seal_step_started(
            step_id,
            &StepType::parse(step_type),
            message_id.as_deref(),
            text.as_deref(),
        ))?)
    }

    /// The `sealed-step` body of a completed step (`durationMs` optional).
    #[wasm_bindgen(js_name = sealStep)]
    pub fn seal_step(
        &self,
        step_id: &str,
        step_type: &str,
        message_id: Option<String>,
        text: &str,
        duration_ms: Option<u32>,
    ) -> JsResult<Ts<SealedStepRequest>> {
        output(&js(self.inner.seal_step(
            step_id,
            &StepType::parse(step_type),
            message_id.as_deref(),
            text,
            duration_ms.map(u64::from),
        ))?)
    }

    /// The `bot:invocation:sealed-steps` frames of sealed steps.
    #[wasm_bindgen(js_name = stepFrames)]
    pub fn step_frames(
        &self,
        #[wasm_bindgen(unchecked_param_type = "SealedStepRequest[]")] steps: JsValue,
    ) -> JsResult<Ts<SealedSteps>> {
        let steps: Vec<SealedStepRequest> = crate::error::from_js("steps", steps)?;
        output(&self.inner.step_frames(&steps))
    }

    /// A sealed decision card posted by the runtime.
    #[wasm_bindgen(js_name = sealDecisionCard)]
    pub fn seal_decision_card(
        &self,
        stream_id: &str,
        decision_id: &str,
        #[wasm_bindgen(unchecked_param_type = "DecisionOption[]")] options: JsValue,
        allow_note: bool,
        content: Ts<DecisionCardContent>,
        runtime_session_id: &str,
    ) -> JsResult<Ts<CreateDecisionRequest>> {
        let decision_id = js(DecisionId::parse(decision_id))?;
        let options: Vec<DecisionOption> = crate::error::from_js("options", options)?;
        let content = input("content", &content)?;
        output(&js(self.inner.seal_decision_card(
            stream_id,
            &decision_id,
            options,
            allow_note,
            &content,
            runtime_session_id,
        ))?)
    }
}

/// Opens a sealed step (the owner's view of a trace).
#[wasm_bindgen(js_name = openStep)]
#[allow(clippy::too_many_arguments)]
pub fn open_step(
    keyring: &Keyring,
    invocation_id: &str,
    step_id: &str,
    step_type: &str,
    phase: Ts<StepPhase>,
    message_id: Option<String>,
    sealed: Ts<SealedPayload>,
) -> JsResult<String> {
    let phase = input("phase", &phase)?;
    let sealed = input("sealed", &sealed)?;
    js(runtime::open_step(
        keyring.core(),
        invocation_id,
        step_id,
        &StepType::parse(step_type),
        phase,
        message_id.as_deref(),
        &sealed,
    ))
}

// ---- generations ------------------------------------------------------------

/// Generation 0 of a new sealed stream: the keyring and the wraps to post.
#[wasm_bindgen]
pub struct GenerationZero {
    keyring: Option<Keyring>,
    generation: NewGeneration,
}

#[wasm_bindgen]
impl GenerationZero {
    /// The keyring. Can be taken once; the caller then owns it (and its `free()`).
    #[wasm_bindgen(js_name = takeKeyring)]
    pub fn take_keyring(&mut self) -> JsResult<Keyring> {
        crate::error::take_once(&mut self.keyring, "the keyring")
    }

    /// The new generation: its number, wraps and `key-wraps` request body.
    #[wasm_bindgen(getter)]
    pub fn generation(&self) -> JsResult<Ts<NewGeneration>> {
        output(&self.generation)
    }
}

/// Creates generation 0 of `rootStreamId`, wrapped to every recipient.
#[wasm_bindgen(js_name = generationZero)]
pub fn generation_zero(
    root_stream_id: &str,
    #[wasm_bindgen(unchecked_param_type = "Recipient[]")] recipients: JsValue,
) -> JsResult<GenerationZero> {
    let recipients: Vec<Recipient> = crate::error::from_js("recipients", recipients)?;
    let (ring, generation) = js(session::generation_zero(root_stream_id, &recipients))?;
    Ok(GenerationZero {
        keyring: Some(Keyring::from_core(ring)),
        generation,
    })
}

/// Rolls the keyring to a new generation wrapped to `recipients`.
#[wasm_bindgen(js_name = rollGeneration)]
pub fn roll_generation(
    keyring: &mut Keyring,
    #[wasm_bindgen(unchecked_param_type = "Recipient[]")] recipients: JsValue,
) -> JsResult<Ts<NewGeneration>> {
    let recipients: Vec<Recipient> = crate::error::from_js("recipients", recipients)?;
    output(&js(session::roll_generation(
        keyring.core_mut(),
        &recipients,
    ))?)
}

/// The owner's recipient from the `owner-key` response.
#[wasm_bindgen(js_name = ownerRecipient)]
pub fn owner_recipient(owner: Ts<OwnerKey>) -> JsResult<Ts<Recipient>> {
    let owner = input("owner", &owner)?;
    output(&js(session::owner_recipient(&owner))?)
}

// ---- decisions --------------------------------------------------------------

/// Seals a decision card (`placement`: where it is posted).
#[wasm_bindgen(js_name = sealDecisionCard)]
#[allow(clippy::too_many_arguments)]
pub fn seal_decision_card(
    keyring: &Keyring,
    stream_id: &str,
    decision_id: &str,
    runtime_session_id: &str,
    invocation_id: &str,
    #[wasm_bindgen(unchecked_param_type = "DecisionOption[]")] options: JsValue,
    allow_note: bool,
    content: Ts<DecisionCardContent>,
) -> JsResult<Ts<CreateDecisionRequest>> {
    let decision_id = js(DecisionId::parse(decision_id))?;
    let options: Vec<DecisionOption> = crate::error::from_js("options", options)?;
    let content = input("content", &content)?;
    let placement = CardPlacement {
        stream_id,
        decision_id: &decision_id,
        runtime_session_id,
        invocation_id,
    };
    output(&js(decisions::seal_decision_card(
        keyring.core(),
        placement,
        options,
        allow_note,
        &content,
    ))?)
}

/// Opens a decision card posted in `streamId`.
#[wasm_bindgen(js_name = openDecisionCard)]
pub fn open_decision_card(
    keyring: &Keyring,
    stream_id: &str,
    card: Ts<CreateDecisionRequest>,
) -> JsResult<Ts<DecisionCardContent>> {
    let card = input("card", &card)?;
    output(&js(decisions::open_decision_card(
        keyring.core(),
        stream_id,
        &card,
    ))?)
}

/// Seals the note of a decision.
#[wasm_bindgen(js_name = sealDecisionNote)]
pub fn seal_decision_note(
    keyring: &Keyring,
    decision_id: &str,
    option_id: &str,
    decided_by: &str,
    note: &str,
) -> JsResult<Ts<SealedPayload>> {
    output(&js(decisions::seal_decision_note(
        keyring.core(),
        decision_id,
        option_id,
        decided_by,
        note,
    ))?)
}

/// Opens the note of a `decision:resolved` event (`undefined` without one).
#[wasm_bindgen(js_name = openDecisionNote)]
pub fn open_decision_note(
    keyring: &Keyring,
    event: Ts<DecisionResolved>,
) -> JsResult<Option<String>> {
    let event = input("event", &event)?;
    js(decisions::open_decision_note(keyring.core(), &event))
}

// ---- presence ---------------------------------------------------------------

/// Adds `key`'s public key to a presence request.
#[wasm_bindgen(js_name = withMachineKey)]
pub fn with_machine_key(
    presence: Ts<PresenceRequest>,
    key: &IdentityKey,
) -> JsResult<Ts<PresenceRequest>> {
    let presence = input("presence", &presence)?;
    output(&js(presence::with_machine_key(presence, key.core()))?)
}
