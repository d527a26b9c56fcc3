//! The sealed flows (`streamseal::sealed`): unlock a user's key, open key
//! wraps, send/edit/open messages (one message or a whole history in one
//! call), a runtime's opened invocation, generations, decision cards and
//! notes (a presence body's key is set in `streamseal/api`). Each export forwards to the core function of the same
//! name. What the caller seals is signed by its `identity` as `subject`'s;
//! what it opens is checked against its `trust` store, its `own` keys and
//! the keys the server `presented` (`crate::sender`), and says who sealed
//! it (`sealedBy`).

use js_sys::Uint8Array;
use serde::{Deserialize, Serialize};
use streamseal::envelope::SealedPayload;
use streamseal::identity::{KeyId, Recipient};
use streamseal::kdf::{KdfLimits, KdfParams};
use streamseal::sealed::decisions::{self, OpenedDecisionCard};
use streamseal::sealed::messages::{self, MessageToOpen, OpenedMessage};
use streamseal::sealed::runtime::{self, OpenedStep};
use streamseal::sealed::session;
use streamseal::sealed::user_key::{self, NewOwnKey};
use streamseal::slot::StepPhase;
use streamseal::wire::ids::MessageId;
use streamseal::wire::keys::{OwnKey, OwnerKey};
use streamseal::wire::message::Message;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::requests::messages::SendMessageRequest;
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::crypto::{kdf_limits, kdf_params};
use crate::error::{JsResult, input, js, output, to_js};
use crate::keys::{IdentityKey, Keyring};
use crate::sender::{OwnKeysArg, PresentedKeys, sender_keys};
use crate::trust::TrustStore;

// A bot runtime's calls (the `runtime` feature).
#[cfg(feature = "runtime")]
use {
    crate::state::StreamState,
    streamseal::sealed::decisions::{DecisionAnswer, DecisionCardContent},
    streamseal::sealed::key_wraps::WrapsReport,
    streamseal::sealed::runtime::HistoryItem,
    streamseal::sender::SealedBy,
    streamseal::wire::events::{DecisionResolved, SealedSteps},
    streamseal::wire::invocation::Invocation,
    streamseal::wire::requests::invocation::{
        CompleteSealedReply, SealedCompleteRequest, SealedMessageRequest, SealedStepRequest,
        SealedStepStartedRequest,
    },
};

// ---- user key -------------------------------------------------------------

/// Unlocks the user's key from its `me/e2e-key` record with the passphrase,
/// a `Uint8Array` of its UTF-8 (zeroized in WASM memory after use; wipe your
/// own with `fill(0)`) (`WRONG_PASSPHRASE`, `KDF_PARAMS_OUT_OF_BOUNDS`, ...).
#[wasm_bindgen]
pub fn unlock(
    record: Ts<OwnKey>,
    passphrase: &Uint8Array,
    limits: Option<Ts<KdfLimits>>,
) -> JsResult<IdentityKey> {
    let passphrase = crate::crypto::passphrase("passphrase", passphrase)?;
    let record = input("record", &record)?;
    let limits = kdf_limits(limits)?;
    js(user_key::unlock(&record, &passphrase, &limits)).map(IdentityKey::from_core)
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

/// Sets up a user key protected by `passphrase` (a `Uint8Array` of its
/// UTF-8, zeroized in WASM memory after use) and `params` (Argon2id, the
/// library's defaults when omitted; at least m = 19456, t = 2, p = 1, else
/// `KDF_PARAMS_OUT_OF_BOUNDS`).
#[wasm_bindgen(js_name = setUp)]
pub fn set_up(
    key_id: &str,
    passphrase: &Uint8Array,
    params: Option<Ts<KdfParams>>,
) -> JsResult<SetUpKey> {
    let passphrase = crate::crypto::passphrase("passphrase", passphrase)?;
    let params = kdf_params(params)?;
    let key_id = js(KeyId::new(key_id))?;
    let (identity, record) = js(user_key::set_up(key_id, &passphrase, &params))?;
    Ok(SetUpKey {
        identity: Some(IdentityKey::from_core(identity)),
        record,
    })
}

/// Re-seals the user's key under a new passphrase (both `Uint8Array`s of
/// UTF-8, zeroized in WASM memory after use) with `params`, at least
/// m = 19456, t = 2, p = 1 whatever the old record used.
#[wasm_bindgen(js_name = changePassphrase)]
pub fn change_passphrase(
    record: Ts<OwnKey>,
    old_passphrase: &Uint8Array,
    new_passphrase: &Uint8Array,
    params: Option<Ts<KdfParams>>,
    limits: Option<Ts<KdfLimits>>,
) -> JsResult<Ts<NewOwnKey>> {
    let old_passphrase = crate::crypto::passphrase("oldPassphrase", old_passphrase)?;
    let new_passphrase = crate::crypto::passphrase("newPassphrase", new_passphrase)?;
    let record = input("record", &record)?;
    let params = kdf_params(params)?;
    let limits = kdf_limits(limits)?;
    output(&js(user_key::change_passphrase(
        &record,
        &old_passphrase,
        &new_passphrase,
        &params,
        &limits,
    ))?)
}

// ---- messages ---------------------------------------------------------------

/// A new message id (`msg_` + ULID) minted at `nowMs` (e.g. `Date.now()`):
/// the id a new sealed message's AAD binds (`sealMessage`'s `messageId`),
/// sent as its `clientMessageId`. Mint it once per message and reuse it on
/// every retry.
#[wasm_bindgen(js_name = mintMessageId)]
pub fn mint_message_id(now_ms: f64) -> JsResult<String> {
    let ms = crate::error::whole_ms(now_ms)?;
    Ok(js(MessageId::mint(ms))?.as_str().to_owned())
}

/// The `POST streams/{streamId}/messages` body of a sealed message, signed
/// by `identity` as `subject`'s (the author; its `authorType` is the key's
/// kind). `clientMessageId` is `messageId`, the minted id the AAD binds: a
/// server that assigns an `id` of its own still lets it open.
#[wasm_bindgen(js_name = sealMessage)]
pub fn seal_message(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    stream_id: &str,
    message_id: &str,
    text: &str,
) -> JsResult<Ts<SendMessageRequest>> {
    crate::pending::prepare_seal_message(keyring, identity, subject, stream_id, message_id, text)?
        .seal_here(keyring.core())
}

/// The sealed payload of an edit of `message` (its next revision), signed
/// by `identity` as `subject`'s, who must be its author (`UNEXPECTED_AUTHOR`).
#[wasm_bindgen(js_name = sealEdit)]
pub fn seal_edit(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    message: Ts<Message>,
    text: &str,
) -> JsResult<Ts<SealedPayload>> {
    crate::pending::prepare_seal_edit(keyring, identity, subject, message, text)?
        .seal_here(keyring.core())
}

/// Opens one sealed message of `streamId`, the stream the caller asked for
/// (a ciphertext bound to another stream, its root's or a thread's, is
/// `AAD_MISMATCH`): bound to the message's id (or its `clientMessageId`),
/// author, `authorType` and revision, and signed by its author (see `open`
/// for `trust`, `own` and `presented`).
#[wasm_bindgen(js_name = openMessage)]
pub fn open_message(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    message: Ts<Message>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<Ts<OpenedMessage>> {
    // Only what the AAD binds and the sealed body cross (`MessageToOpen`).
    let message: MessageToOpen = crate::error::from_js("message", message.into())?;
    let senders = sender_keys(trust, own, presented)?;
    output(&js(messages::open_message_to_open(
        keyring.core(),
        &senders,
        stream_id,
        &message,
    ))?)
}

/// One entry of `openMessages`: the opened message, or why it did not open.
#[derive(Serialize, Tsify)]
#[serde(tag = "status", rename_all = "camelCase")]
// Built and serialised one at a time into a JS object; never stored in bulk.
#[allow(clippy::large_enum_variant)]
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

/// The `OpenResult` of one entry.
pub(crate) fn open_result(result: Result<OpenedMessage, streamseal::Error>) -> OpenResult {
    match result {
        Ok(message) => OpenResult::Opened { message },
        Err(e) => OpenResult::Failed {
            code: e.code(),
            message: e.to_string(),
        },
    }
}

/// Opens a whole history of `streamId` in one call: one entry per message,
/// in order, each opened or failed on its own; a repeat of a bound id and
/// revision already opened is `DUPLICATE_MESSAGE`
/// (`sealed::messages::open_messages`).
#[wasm_bindgen(js_name = openMessages, unchecked_return_type = "OpenResult[]")]
pub fn open_messages(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<JsValue> {
    // Only what the AAD binds and the sealed body cross, six fields of
    // each message's fifteen (`MessageToOpen`): converting the others cost
    // more than decrypting (BENCHMARKS.md).
    let messages: Vec<MessageToOpen> = crate::error::from_js("messages", messages)?;
    let senders = sender_keys(trust, own, presented)?;
    let results: Vec<OpenResult> =
        messages::open_messages_to_open(keyring.core(), &senders, stream_id, &messages)
            .into_iter()
            .map(open_result)
            .collect();
    to_js(&results)
}

// ---- a runtime's invocation -------------------------------------------------

/// A claimed sealed invocation, opened: its prompt and history in plain
/// text, and the keys to seal steps and the reply (in WASM memory; call
/// `free()` when done).
#[cfg(feature = "runtime")]
#[wasm_bindgen]
pub struct OpenedInvocation {
    inner: runtime::OpenedInvocation,
}

#[cfg(feature = "runtime")]
impl OpenedInvocation {
    /// Wraps a core opened invocation.
    pub(crate) fn from_core(inner: runtime::OpenedInvocation) -> Self {
        OpenedInvocation { inner }
    }

    /// The core opened invocation.
    pub(crate) fn core(&self) -> &runtime::OpenedInvocation {
        &self.inner
    }
}

#[cfg(feature = "runtime")]
#[wasm_bindgen]
impl OpenedInvocation {
    /// Opens the invocation's `sealedContext` for the runtime of bot
    /// `botId` with `identities` (an `IdentityKey` or an array of them; the
    /// first signs what the runtime seals), through its `state` of the root
    /// stream (the owner set, the owner's key accepted as sender) and its
    /// trust store; `presented` adds keys the server presented for members
    /// the store pins no key of (their history items open `"unverified"`;
    /// the prompt is checked against pinned and own keys only).
    /// Refused: a plaintext invocation on a sealed root
    /// (`SEALED_STREAM_DOWNGRADE`), a reply under another sender
    /// (`REPLY_SENDER_MISMATCH`), a prompt by anyone but the owner
    /// (`UNEXPECTED_AUTHOR`) or signed by another key holder
    /// (`SENDER_MISMATCH`), one sealed under a generation older than the
    /// newest held (`STALE_KEY_GENERATION`), one already acted on
    /// (`PROMPT_REPLAYED`), or sealed under no key an accepted sender gave
    /// (`UNTRUSTED_WRAP`, `UNKNOWN_KEY_GENERATION`). Persist the state afterwards.
    pub fn open(
        invocation: Ts<Invocation>,
        state: &mut StreamState,
        trust: &TrustStore,
        bot_id: &str,
        #[wasm_bindgen(unchecked_param_type = "IdentityKey | IdentityKey[]")] identities: JsValue,
        presented: Option<PresentedKeys>,
    ) -> JsResult<OpenedInvocation> {
        // Only what opening reads crosses (`InvocationToOpen`).
        let invocation: runtime::InvocationToOpen =
            crate::error::from_js("invocation", invocation.into())?;
        let mine = IdentityKey::mine("identities", &identities)?;
        let senders = sender_keys(trust, None, presented)?;
        let state = state.core_mut();
        let mut dh = streamseal::hazmat::PlatformDh::new();
        mine.seed(&mut dh);
        let pending = runtime::OpenedInvocation::prepare_to_open_with_platform_dh(
            &invocation,
            state,
            &senders,
            bot_id,
            &mine.keys,
            &mut dh,
        );
        mine.keep(&mut dh);
        let pending = js(pending)?;
        js(pending.finish_with(state, |_, pending, keyring| pending.open(keyring)))
            .map(OpenedInvocation::from_core)
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

    /// Who sealed the prompt (the owner), and whether its key is verified.
    #[wasm_bindgen(getter, js_name = promptSealedBy)]
    pub fn prompt_sealed_by(&self) -> JsResult<Ts<SealedBy>> {
        output(&self.inner.prompt_sealed_by)
    }

    /// The history, item by item: `{status: "opened", entry}` (its slot,
    /// generation, `sealedBy` and text) or `{status: "failed", role,
    /// sequence, code}`; a repeated message is `DUPLICATE_MESSAGE`.
    #[wasm_bindgen(getter, unchecked_return_type = "HistoryItem[]")]
    pub fn history(&self) -> JsResult<JsValue> {
        to_js::<Vec<HistoryItem>>(&self.inner.history)
    }

    /// What the `sealedContext` wraps did: generations admitted, wraps
    /// skipped (a generation the server minted shows as `UNTRUSTED_WRAP`),
    /// conflicts.
    #[wasm_bindgen(getter)]
    pub fn wraps(&self) -> JsResult<Ts<WrapsReport>> {
        output(self.inner.wraps())
    }

    /// The generations of the keyring the wraps gave.
    #[wasm_bindgen(unchecked_return_type = "number[]")]
    pub fn generations(&self) -> JsResult<JsValue> {
        to_js(&self.inner.keyring().generations())
    }

    /// The `sealed-complete` body with the reply.
    #[wasm_bindgen(js_name = sealReply)]
    pub fn seal_reply(&self, message_id: &str, text: &str) -> JsResult<Ts<SealedCompleteRequest>> {
        self.prepare_seal_reply(message_id, text)?
            .seal_here(self.inner.keyring())
    }

    /// **Hazmat** (`streamseal::hazmat`): `sealReply` drawing the envelope's
    /// iv and `Z` from `randomness`, to the last byte. For reproducing the
    /// golden vectors only.
    #[wasm_bindgen(js_name = hazmatSealReplyWithRandomness)]
    pub fn hazmat_seal_reply_with_randomness(
        &self,
        message_id: &str,
        text: &str,
        randomness: &[u8],
    ) -> JsResult<Ts<SealedCompleteRequest>> {
        let message_id = js(MessageId::parse(message_id))?;
        output(&js(streamseal::hazmat::drawing_exactly(
            randomness,
            |rng| streamseal::sealed::hazmat::seal_reply_with(rng, &self.inner, &message_id, text),
        ))?)
    }

    /// The sealed reply of the plain `complete` call.
    #[wasm_bindgen(js_name = sealCompleteReply)]
    pub fn seal_complete_reply(
        &self,
        message_id: &str,
        text: &str,
    ) -> JsResult<Ts<CompleteSealedReply>> {
        self.prepare_seal_complete_reply(message_id, text)?
            .seal_here(self.inner.keyring())
    }

    /// The `sealed-message` body of an intermediate bot message.
    #[wasm_bindgen(js_name = sealMessage)]
    pub fn seal_message(&self, message_id: &str, text: &str) -> JsResult<Ts<SealedMessageRequest>> {
        self.prepare_seal_message(message_id, text)?
            .seal_here(self.inner.keyring())
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
        self.prepare_seal_step(step_id, step_type, message_id, text, duration_ms)?
            .seal_here(self.inner.keyring())
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
        self.prepare_seal_decision_card(
            stream_id,
            decision_id,
            options,
            allow_note,
            content,
            runtime_session_id,
        )?
        .seal_here(self.inner.keyring())
    }
}

/// Where a trace step belongs, as a viewer knows it (`runtime::StepPlacement`).
#[derive(Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct StepPlacement {
    /// The invocation.
    pub invocation_id: String,
    /// The bot the invocation is for: the step's signer must be it.
    pub bot_id: String,
    /// The step id.
    pub step_id: String,
    /// The step type.
    pub step_type: StepType,
    /// Started or completed.
    pub phase: StepPhase,
    /// The message the step names, if any.
    #[serde(default)]
    pub message_id: Option<String>,
}

impl StepPlacement {
    /// The core's placement, borrowing this one.
    pub(crate) fn core(&self) -> runtime::StepPlacement<'_> {
        runtime::StepPlacement {
            invocation_id: &self.invocation_id,
            bot_id: &self.bot_id,
            step_id: &self.step_id,
            step_type: &self.step_type,
            phase: self.phase,
            message_id: self.message_id.as_deref(),
        }
    }
}

/// Opens a sealed step (the owner's view of a trace): bound to `placement`'s
/// invocation, step and phase, and sealed by its bot (`UNEXPECTED_AUTHOR`
/// for any other signer; see `open` for `trust`, `own` and `presented`).
#[wasm_bindgen(js_name = openStep)]
pub fn open_step(
    keyring: &Keyring,
    trust: &TrustStore,
    placement: Ts<StepPlacement>,
    sealed: Ts<SealedPayload>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<Ts<OpenedStep>> {
    let placement = input("placement", &placement)?;
    let sealed = input("sealed", &sealed)?;
    let senders = sender_keys(trust, own, presented)?;
    output(&js(runtime::open_step(
        keyring.core(),
        &senders,
        placement.core(),
        &sealed,
    ))?)
}

// ---- the owner's key ---------------------------------------------------------

/// The owner's recipient from the `owner-key` response, as the server gave
/// it (`ownerKey` admits it through the trust store).
#[wasm_bindgen(js_name = ownerRecipient)]
pub fn owner_recipient(owner: Ts<OwnerKey>) -> JsResult<Ts<Recipient>> {
    let owner = input("owner", &owner)?;
    output(&js(session::owner_recipient(&owner))?)
}

// ---- decisions --------------------------------------------------------------

/// Seals a decision card (`placement`: where it is posted, for which
/// invocation and runtime session, all bound), signed by `identity` as
/// `subject`'s (the runtime's bot).
#[cfg(feature = "runtime")]
#[wasm_bindgen(js_name = sealDecisionCard)]
#[allow(clippy::too_many_arguments)]
pub fn seal_decision_card(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    stream_id: &str,
    decision_id: &str,
    runtime_session_id: &str,
    invocation_id: &str,
    #[wasm_bindgen(unchecked_param_type = "DecisionOption[]")] options: JsValue,
    allow_note: bool,
    content: Ts<DecisionCardContent>,
) -> JsResult<Ts<CreateDecisionRequest>> {
    crate::pending::prepare_seal_decision_card(
        keyring,
        identity,
        subject,
        stream_id,
        decision_id,
        runtime_session_id,
        invocation_id,
        options,
        allow_note,
        content,
    )?
    .seal_here(keyring.core())
}

/// Opens a decision card posted in `streamId`: its clear options,
/// `allowNote`, `invocationId` and `runtimeSessionId` must be the ones
/// sealed (`AAD_MISMATCH`); the result says who sealed it (see `open` for
/// `trust`, `own` and `presented`).
#[wasm_bindgen(js_name = openDecisionCard)]
pub fn open_decision_card(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    card: Ts<CreateDecisionRequest>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<Ts<OpenedDecisionCard>> {
    let card = input("card", &card)?;
    let senders = sender_keys(trust, own, presented)?;
    output(&js(decisions::open_decision_card(
        keyring.core(),
        &senders,
        stream_id,
        &card,
    ))?)
}

/// Seals the note of a decision by `identity` as `subject`'s (the decider,
/// whom the note names): the decider always seals one (empty text allowed),
/// as it is the proof of the chosen option.
#[wasm_bindgen(js_name = sealDecisionNote)]
pub fn seal_decision_note(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    decision_id: &str,
    option_id: &str,
    note: &str,
) -> JsResult<Ts<SealedPayload>> {
    crate::pending::prepare_seal_decision_note(
        keyring,
        identity,
        subject,
        decision_id,
        option_id,
        note,
    )?
    .seal_here(keyring.core())
}

/// Opens the answer of a `decision:resolved` event to `card` (the sealed card
/// as posted): the option counts only with the decider's sealed note bound
/// to this decision, option and decider, signed by the decider
/// (`UNPROVEN_DECISION_ANSWER` without it, for an option not on the card or
/// another decision; `SENDER_MISMATCH` for another key holder's signature;
/// `STALE_KEY_GENERATION` under a generation older than the newest held).
/// See `open` for `trust`, `own` and `presented`.
#[cfg(feature = "runtime")]
#[wasm_bindgen(js_name = openDecisionAnswer)]
pub fn open_decision_answer(
    keyring: &Keyring,
    trust: &TrustStore,
    card: Ts<CreateDecisionRequest>,
    event: Ts<DecisionResolved>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<Ts<DecisionAnswer>> {
    let card = input("card", &card)?;
    let event = input("event", &event)?;
    let senders = sender_keys(trust, own, presented)?;
    output(&js(decisions::open_decision_answer(
        keyring.core(),
        &senders,
        &card,
        &event,
    ))?)
}
