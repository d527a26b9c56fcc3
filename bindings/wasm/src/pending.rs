//! Opens whose AES-GCM runs elsewhere: the async `openAsync`,
//! `openMessageAsync`, `openMessagesAsync`, `openStepAsync`,
//! `openDecisionCardAsync` and `openDecisionAnswerAsync` of the package
//! (js/src/webcrypto.js) hand AES-256-GCM to the platform's WebCrypto
//! (hardware AES) and keep every check here.
//!
//! `prepareOpen`, `prepareOpenMessage`, `prepareOpenMessages`,
//! `prepareOpenStep`, `prepareOpenDecisionCard`,
//! `prepareOpenDecisionAnswer` and `prepareOpenInvocation` (the async
//! `openInvocationAsync`, `OpenedInvocation.open`'s) run every check of the synchronous call
//! before AES-GCM (the core's `prepare_open`: version, base64 and sizes, the
//! AAD and its slot, the key held, the sender's key, the key commitment; and
//! the flow's own, e.g. a stale or unproven answer) and return a
//! [`PendingOpens`]; the flow's checks after decryption (the step's bot,
//! UTF-8, the card's JSON) run on completion.
//!
//! And seals whose AES-GCM runs elsewhere (`sealAsync`, `sealMessageAsync`,
//! `sealEditAsync`, `sealDecisionNoteAsync`, `sealDecisionCardAsync`, and a
//! runtime's `sealReplyAsync`, `sealCompleteReplyAsync`, `sealFollowUpAsync`,
//! `sealStepStartedAsync`, `sealStepAsync`, `sealRuntimeDecisionCardAsync`
//! through `OpenedInvocation.prepareSeal*`): `prepareSeal*` runs every step
//! of the synchronous seal but AES-GCM (the signature, the seal counted, the
//! iv and key commitment) and returns a [`PendingSeals`], whose
//! `hazmatFinishSeal` takes the platform's ciphertext and gives the
//! synchronous call's result. Its `jobs` are the AES-GCM inputs; `hazmatFinish` /
//! `hazmatFinishOne` take, per job, what the platform decrypted it to (or
//! `undefined`: decrypt it here, the "wasm" backend), verify the sender's
//! signatures (here, or, where the caller says the platform's Ed25519
//! verified one under the key and over the input the job names, not again)
//! and give the results of the synchronous call. It holds no plaintext;
//! for an invocation, it holds the invocation's keyring (a copy of the
//! state's) and the runtime's signing key, as the `OpenedInvocation` it
//! becomes does.

use js_sys::{Array, Uint8Array};
use streamseal::envelope::{self, PendingOpen, PendingSeal, SealedPayload};
use streamseal::sealed::messages::{self, MessageToEdit, MessageToOpen, PendingMessage};
use streamseal::slot::Slot;
use streamseal::stream_key;
use streamseal::wire::message::Message;
use streamseal::{CryptoError, Error, ErrorCode};
use tsify::Ts;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use serde::Serialize;
use streamseal::hazmat::finish_open_verified_elsewhere;
use streamseal::sealed::decisions::{self, OpenedDecisionCard};
use streamseal::sealed::hazmat::finish_verified_elsewhere;
use streamseal::sealed::pending::{Pending, PendingSealed};
use streamseal::sealed::runtime::{self, OpenedStep};
use streamseal::wire::ids::MessageId;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use tsify::Tsify;

use crate::crypto::OpenedEnvelope;
use crate::error::{JsResult, error_with, from_js, input, js, output, to_js};
use crate::flows::{OpenResult, StepPlacement, open_result};
use crate::keys::IdentityKey;
use crate::keys::Keyring;
use crate::sender::{OwnKeysArg, PresentedKeys, sender_keys, signer};
use crate::trust::TrustStore;

// A bot runtime's calls (the `runtime` feature).
#[cfg(feature = "runtime")]
use {
    crate::flows::OpenedInvocation,
    crate::state::StreamState,
    streamseal::sealed::decisions::{CardPlacement, DecisionAnswer, DecisionCardContent},
    streamseal::sealed::runtime::{PendingInvocation, PromptOpened},
    streamseal::slot::DecisionOption,
    streamseal::wire::events::DecisionResolved,
    streamseal::wire::ids::DecisionId,
    streamseal::wire::invocation::Invocation,
    streamseal::wire::requests::invocation::StepType,
};

/// What was prepared: a page of messages, one message, one envelope, or
/// one envelope of a flow.
enum Prepared {
    Messages(Vec<Result<PendingMessage, Error>>),
    Message(PendingMessage),
    Envelope(PendingOpen),
    Step(Pending<OpenedStep>),
    Card(Pending<OpenedDecisionCard>),
    #[cfg(feature = "runtime")]
    Answer(Pending<DecisionAnswer>),
    /// An invocation before its prompt opened: one job, the prompt.
    #[cfg(feature = "runtime")]
    Invocation(Box<PendingInvocation>),
    /// An invocation whose prompt opened and was recorded: the history's jobs.
    #[cfg(feature = "runtime")]
    InvocationHistory(Box<PromptOpened>),
    #[cfg(feature = "runtime")]
    /// Used up by a failed `hazmatFinishPrompt`.
    Spent,
}

/// Opens checked up to their AES-GCM part (see the module docs). The
/// package's async opens drive it; apps rarely call it themselves. Every
/// completing call frees it.
#[wasm_bindgen]
pub struct PendingOpens {
    prepared: Prepared,
    /// The ciphertext was decoded in JS and given as `decoded`: the
    /// caller holds those bytes, so `jobs` does not copy them back out.
    decoded_here: bool,
}

/// `open`'s checks before AES-GCM; a refusal throws here, with the code
/// `open` gives.
///
/// `decoded`, when given, is the decoding of `sealed.ciphertext`'s text,
/// which is then not read (pass `""`): the package's async opens decode a
/// large ciphertext with the platform's native base64 and pass the bytes
/// only when re-encoding them gives the text back (the canonical base64
/// that is accepted otherwise, to the same bytes; see the core's
/// `envelope::prepare_open_decoded`). The checks and codes are the same.
#[wasm_bindgen(js_name = prepareOpen)]
pub fn prepare_open(
    keyring: &Keyring,
    trust: &TrustStore,
    slot: Ts<Slot>,
    sealed: Ts<SealedPayload>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
    decoded: Option<Box<[u8]>>,
) -> JsResult<PendingOpens> {
    let slot = input("slot", &slot)?;
    let sealed = input("sealed", &sealed)?;
    let senders = sender_keys(trust, own, presented)?;
    let accept = |s: &Slot| *s == slot;
    let pending = js(match &decoded {
        None => envelope::prepare_open(keyring.core(), &senders, &sealed, accept),
        Some(bytes) => envelope::prepare_open_decoded(
            keyring.core(),
            &senders,
            &sealed.envelope,
            bytes,
            accept,
        ),
    })?;
    Ok(PendingOpens {
        prepared: Prepared::Envelope(pending),
        decoded_here: decoded.is_some(),
    })
}

/// `openMessage`'s checks before AES-GCM; a refusal throws here, with the
/// code `openMessage` gives. `decoded`, when given, is the decoding of
/// `message.sealed.ciphertext`'s text, which is then not read (as
/// `prepareOpen`'s).
#[wasm_bindgen(js_name = prepareOpenMessage)]
pub fn prepare_open_message(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    message: Ts<Message>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
    decoded: Option<Box<[u8]>>,
) -> JsResult<PendingOpens> {
    let message: MessageToOpen = from_js("message", message.into())?;
    let senders = sender_keys(trust, own, presented)?;
    let pending = js(messages::prepare_message(
        keyring.core(),
        &senders,
        stream_id,
        &message,
        decoded.as_deref(),
    ))?;
    Ok(PendingOpens {
        prepared: Prepared::Message(pending),
        decoded_here: decoded.is_some(),
    })
}

/// `openMessages`' checks before AES-GCM, entry by entry; an entry refused
/// here is reported, with its code, by `hazmatFinish`.
#[wasm_bindgen(js_name = prepareOpenMessages)]
pub fn prepare_open_messages(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    #[wasm_bindgen(unchecked_param_type = "Message[]")] messages: JsValue,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    let messages: Vec<MessageToOpen> = from_js("messages", messages)?;
    let senders = sender_keys(trust, own, presented)?;
    Ok(PendingOpens {
        prepared: Prepared::Messages(messages::prepare_messages(
            keyring.core(),
            &senders,
            stream_id,
            &messages,
        )),
        decoded_here: false,
    })
}

/// `openStep`'s checks before AES-GCM; a refusal throws here, with the code
/// `openStep` gives (the step's bot is checked on completion).
#[wasm_bindgen(js_name = prepareOpenStep)]
pub fn prepare_open_step(
    keyring: &Keyring,
    trust: &TrustStore,
    placement: Ts<StepPlacement>,
    sealed: Ts<SealedPayload>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    let placement = input("placement", &placement)?;
    let sealed = input("sealed", &sealed)?;
    let senders = sender_keys(trust, own, presented)?;
    let pending = js(runtime::prepare_step(
        keyring.core(),
        &senders,
        placement.core(),
        &sealed,
    ))?;
    Ok(PendingOpens {
        prepared: Prepared::Step(pending),
        decoded_here: false,
    })
}

/// `openDecisionCard`'s checks before AES-GCM; a refusal throws here, with
/// the code `openDecisionCard` gives.
#[wasm_bindgen(js_name = prepareOpenDecisionCard)]
pub fn prepare_open_decision_card(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    card: Ts<CreateDecisionRequest>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    let card = input("card", &card)?;
    let senders = sender_keys(trust, own, presented)?;
    let pending = js(decisions::prepare_decision_card(
        keyring.core(),
        &senders,
        stream_id,
        &card,
    ))?;
    Ok(PendingOpens {
        prepared: Prepared::Card(pending),
        decoded_here: false,
    })
}

/// `openDecisionAnswer`'s checks before AES-GCM; a refusal throws here,
/// with the code `openDecisionAnswer` gives.
#[cfg(feature = "runtime")]
#[wasm_bindgen(js_name = prepareOpenDecisionAnswer)]
pub fn prepare_open_decision_answer(
    keyring: &Keyring,
    trust: &TrustStore,
    card: Ts<CreateDecisionRequest>,
    event: Ts<DecisionResolved>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    let card = input("card", &card)?;
    let event = input("event", &event)?;
    let senders = sender_keys(trust, own, presented)?;
    let pending = js(decisions::prepare_decision_answer(
        keyring.core(),
        &senders,
        &card,
        &event,
    ))?;
    Ok(PendingOpens {
        prepared: Prepared::Answer(pending),
        decoded_here: false,
    })
}

/// `OpenedInvocation.open`'s checks before AES-GCM: a refusal throws here,
/// with the code `OpenedInvocation.open` gives, and `state` records what the
/// synchronous call records before the prompt opens (the sealed flag, the
/// generations the wraps gave). `hazmatFinishPrompt`, then
/// `hazmatFinishInvocation`, complete it.
#[cfg(feature = "runtime")]
#[wasm_bindgen(js_name = prepareOpenInvocation)]
pub fn prepare_open_invocation(
    invocation: Ts<Invocation>,
    state: &mut StreamState,
    trust: &TrustStore,
    bot_id: &str,
    #[wasm_bindgen(unchecked_param_type = "IdentityKey | IdentityKey[]")] identities: JsValue,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    // Only what opening reads crosses (`InvocationToOpen`).
    let invocation: runtime::InvocationToOpen = from_js("invocation", invocation.into())?;
    let mine = IdentityKey::mine("identities", &identities)?;
    let senders = sender_keys(trust, None, presented)?;
    let mut dh = streamseal::hazmat::PlatformDh::new();
    mine.seed(&mut dh);
    let pending = runtime::OpenedInvocation::prepare_to_open_with_platform_dh(
        &invocation,
        state.core_mut(),
        &senders,
        bot_id,
        &mine.keys,
        &mut dh,
    );
    mine.keep(&mut dh);
    let pending = js(pending)?;
    Ok(PendingOpens {
        prepared: Prepared::Invocation(Box::new(pending)),
        decoded_here: false,
    })
}

/// The signer's Ed25519 key for the platform's verify, or `null` for a key
/// the signature check refuses (the core converts each key once and keeps
/// it: `signature::ed25519_public_key`).
fn signer_ed25519(pending: &PendingOpen) -> JsValue {
    match pending.signer_ed25519() {
        Some(key) => Uint8Array::from(&key[..]).into(),
        None => JsValue::NULL,
    }
}

/// The key tags of one `jobs` call, one HKDF per generation (a history is
/// mostly one generation).
struct KeyTags<'k> {
    keyring: &'k Keyring,
    known: Vec<(u32, Option<[u8; 16]>)>,
}

impl KeyTags<'_> {
    fn of(&mut self, generation: u32) -> Option<[u8; 16]> {
        if let Some((_, tag)) = self.known.iter().find(|(g, _)| *g == generation) {
            return *tag;
        }
        let tag = self.keyring.core().key_tag(generation).ok();
        self.known.push((generation, tag));
        tag
    }
}

/// Job `pending` for the platform, or `undefined` (left to this library)
/// when its ciphertext is shorter than `platform_from` bytes or `keyring`
/// no longer holds its key.
fn job(
    pending: &PendingOpen,
    platform_from: f64,
    tags: &mut KeyTags<'_>,
    decoded_here: bool,
) -> JsValue {
    // A length of at most 4 MiB: exact as an f64.
    if (pending.ciphertext().len() as f64) < platform_from {
        return JsValue::UNDEFINED;
    }
    let Some(tag) = tags.of(pending.key_generation()) else {
        return JsValue::UNDEFINED;
    };
    let prefix = match pending.signature_prefix() {
        Ok(prefix) => Uint8Array::from(&prefix[..]).into(),
        Err(_) => JsValue::NULL,
    };
    // Decoded in JS: the caller holds the bytes (the ciphertext is their
    // last `n`), so they are not copied back out.
    let ciphertext = if decoded_here {
        JsValue::from(pending.ciphertext().len())
    } else {
        Uint8Array::from(pending.ciphertext()).into()
    };
    let job = Array::of4(
        &JsValue::from(pending.key_generation()),
        &Uint8Array::from(&pending.iv()[..]),
        &Uint8Array::from(pending.aad()),
        &ciphertext,
    );
    job.push(&signer_ed25519(pending));
    job.push(&prefix);
    job.push(&Uint8Array::from(&tag[..]));
    job.into()
}

/// What the caller did with job `index`: decrypted it (a `Uint8Array`,
/// copied into WASM memory and zeroized there after use), left it to this
/// library (`undefined`), or saw the platform refuse its tag (`null`:
/// `DECRYPTION_FAILED`).
enum Done {
    Decrypted(Zeroizing<Vec<u8>>),
    /// Decrypted, and its signature verified by the platform's Ed25519.
    Verified(Zeroizing<Vec<u8>>),
    Left,
    Refused,
}

/// Job `index`'s outcome; `verified[index] === true` says the platform's
/// Ed25519 verified its signature (see the module docs).
fn done_at(decrypted: &Array, verified: Option<&Array>, index: u32) -> Done {
    let value = decrypted.get(index);
    if value.is_instance_of::<Uint8Array>() {
        // Copied once, into WASM memory (`new Uint8Array(value)` first would
        // leave a second copy of the plaintext in the JS heap, unwiped, and
        // was a sixth of a 64 KiB open in Chromium).
        let plain = Zeroizing::new(value.unchecked_ref::<Uint8Array>().to_vec());
        if verified.is_some_and(|v| v.get(index) == JsValue::TRUE) {
            Done::Verified(plain)
        } else {
            Done::Decrypted(plain)
        }
    } else if value.is_undefined() {
        Done::Left
    } else {
        Done::Refused
    }
}

fn finish_envelope(
    pending: PendingOpen,
    done: Done,
    keyring: &Keyring,
) -> Result<envelope::Opened, Error> {
    Ok(match done {
        Done::Decrypted(plain) => pending.finish(keyring.core(), plain)?,
        Done::Verified(plain) => finish_open_verified_elsewhere(pending, keyring.core(), plain)?,
        Done::Left => pending.open(keyring.core())?,
        Done::Refused => return Err(CryptoError::DecryptionFailed.into()),
    })
}

fn finish_flow<T>(pending: Pending<T>, done: Done, keyring: &Keyring) -> Result<T, Error> {
    finish_flow_in(pending, done, keyring.core())
}

fn finish_flow_in<T>(
    pending: Pending<T>,
    done: Done,
    keyring: &stream_key::Keyring,
) -> Result<T, Error> {
    match done {
        Done::Decrypted(plain) => pending.finish(keyring, plain),
        Done::Verified(plain) => finish_verified_elsewhere(pending, keyring, plain),
        Done::Left => pending.open(keyring),
        Done::Refused => Err(CryptoError::DecryptionFailed.into()),
    }
}

fn opened_envelope(opened: envelope::Opened) -> OpenedEnvelope {
    OpenedEnvelope {
        slot: opened.slot,
        key_generation: opened.key_generation,
        sealed_by: opened.sealed_by,
        plaintext: opened.plaintext,
    }
}

fn results(results: Vec<Result<messages::OpenedMessage, Error>>) -> JsResult<JsValue> {
    to_js(
        &results
            .into_iter()
            .map(open_result)
            .collect::<Vec<OpenResult>>(),
    )
}

#[wasm_bindgen]
impl PendingOpens {
    /// The work left, one entry per envelope: `[keyGeneration, iv, aad,
    /// ciphertext, signerEd25519, signaturePrefix, keyTag]` for the platform
    /// (`keyTag`: `keyring`'s non-secret tag of the generation's key, which
    /// names the `CryptoKey` to decrypt with);
    /// `undefined` for a job left to this library (its ciphertext shorter
    /// than `platformFrom` bytes: `Infinity` leaves every job here, 0 none);
    /// `null` for an entry of a page already refused. AES-256-GCM decrypts
    /// `ciphertext` (which ends with its 16-byte tag) to `signature (64
    /// bytes) || content`; after `prepareOpen` and `prepareOpenMessage` were
    /// given the `decoded` bytes, `ciphertext` is a number `n` instead:
    /// the last `n` of the bytes the caller decoded and gave them (not
    /// copied back out); the signature is the sender's over
    /// `signaturePrefix || content`, and an Ed25519 verify under
    /// `signerEd25519` checks it (`null`: a key the check refuses; leave it
    /// to `hazmatFinish`).
    #[wasm_bindgen(
        unchecked_return_type = "([number, Uint8Array, Uint8Array, Uint8Array | number, Uint8Array | null, Uint8Array, Uint8Array] | null | undefined)[]"
    )]
    pub fn jobs(
        &self,
        #[wasm_bindgen(js_name = platformFrom)] platform_from: f64,
        keyring: &Keyring,
    ) -> Array {
        let tags = &mut KeyTags {
            keyring,
            known: Vec::new(),
        };
        match &self.prepared {
            Prepared::Messages(items) => items
                .iter()
                .map(|item| match item {
                    Ok(pending) => job(pending.envelope(), platform_from, tags, false),
                    Err(_) => JsValue::NULL,
                })
                .collect(),
            Prepared::Message(pending) => Array::of1(&job(
                pending.envelope(),
                platform_from,
                tags,
                self.decoded_here,
            )),
            Prepared::Envelope(pending) => {
                Array::of1(&job(pending, platform_from, tags, self.decoded_here))
            }
            Prepared::Step(pending) => {
                Array::of1(&job(pending.envelope(), platform_from, tags, false))
            }
            Prepared::Card(pending) => {
                Array::of1(&job(pending.envelope(), platform_from, tags, false))
            }
            #[cfg(feature = "runtime")]
            Prepared::Answer(pending) => {
                Array::of1(&job(pending.envelope(), platform_from, tags, false))
            }
            #[cfg(feature = "runtime")]
            Prepared::Invocation(pending) => {
                Array::of1(&job(pending.prompt(), platform_from, tags, false))
            }
            #[cfg(feature = "runtime")]
            Prepared::InvocationHistory(opened) => opened
                .history()
                .map(|envelope| match envelope {
                    Some(envelope) => job(envelope, platform_from, tags, false),
                    None => JsValue::NULL,
                })
                .collect(),
            #[cfg(feature = "runtime")]
            Prepared::Spent => Array::new(),
        }
    }

    /// Completes a page (`prepareOpenMessages`): `decrypted` holds, per
    /// job, what the platform's AES-256-GCM decrypted it to (a
    /// `Uint8Array`), `null` where the platform refused its tag, or
    /// `undefined` to decrypt it here with `keyring`. The signatures are
    /// verified here, except where `verified[i]` is `true`: the platform's
    /// Ed25519 verified job `i`'s signature as `jobs` describes. **Hazmat**:
    /// a `true` there hands out whatever bytes were given under the sender's
    /// name; the package's async opens pass it only after that verify
    /// passed, and nothing else should. The key commitment is checked again
    /// against `keyring` (a key cleared or replaced since `prepare*` refuses
    /// the entry). The results are those `openMessages` gives.
    #[wasm_bindgen(js_name = hazmatFinish, unchecked_return_type = "OpenResult[]")]
    pub fn hazmat_finish(
        self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | null | undefined)[]")]
        decrypted: Array,
        keyring: &Keyring,
        #[wasm_bindgen(unchecked_param_type = "boolean[]")] verified: Option<Array>,
    ) -> JsResult<JsValue> {
        let items = match self.prepared {
            Prepared::Messages(items) => items,
            #[cfg(feature = "runtime")]
            Prepared::Invocation(_) => return Err(not_a("page", "hazmatFinishPrompt")),
            #[cfg(feature = "runtime")]
            Prepared::InvocationHistory(_) => {
                return Err(not_a("page", "hazmatFinishInvocation"));
            }
            _ => return Err(not_a("page", "hazmatFinishOne")),
        };
        one_per_job(&decrypted, items.len())?;
        let opened = items.into_iter().zip(0..).map(|(item, index)| {
            finish_flow(
                item?,
                done_at(&decrypted, verified.as_ref(), index),
                keyring,
            )
        });
        results(messages::finish_messages(opened))
    }

    /// Completes one message, envelope, step, card or answer
    /// (`prepareOpenMessage`, `prepareOpen`, `prepareOpenStep`,
    /// `prepareOpenDecisionCard`, `prepareOpenDecisionAnswer`) as
    /// `hazmatFinish` does its one job (read its hazard): the result of the
    /// synchronous call, or the error it throws.
    #[wasm_bindgen(
        js_name = hazmatFinishOne,
        unchecked_return_type = "OpenedMessage | OpenedEnvelope | OpenedStep | OpenedDecisionCard | DecisionAnswer"
    )]
    pub fn hazmat_finish_one(
        self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | null | undefined)[]")]
        decrypted: Array,
        keyring: &Keyring,
        #[wasm_bindgen(unchecked_param_type = "boolean[]")] verified: Option<Array>,
    ) -> JsResult<JsValue> {
        one_per_job(&decrypted, 1)?;
        let done = done_at(&decrypted, verified.as_ref(), 0);
        match self.prepared {
            Prepared::Message(pending) => {
                Ok(output(&js(finish_flow(pending, done, keyring))?)?.into())
            }
            Prepared::Envelope(pending) => {
                let opened = js(finish_envelope(pending, done, keyring))?;
                Ok(output(&opened_envelope(opened))?.into())
            }
            Prepared::Step(pending) => {
                Ok(output(&js(finish_flow(pending, done, keyring))?)?.into())
            }
            Prepared::Card(pending) => {
                Ok(output(&js(finish_flow(pending, done, keyring))?)?.into())
            }
            #[cfg(feature = "runtime")]
            Prepared::Answer(pending) => {
                Ok(output(&js(finish_flow(pending, done, keyring))?)?.into())
            }
            Prepared::Messages(_) => Err(not_a("single open", "hazmatFinish")),
            #[cfg(feature = "runtime")]
            Prepared::Invocation(_) => Err(not_a("single open", "hazmatFinishPrompt")),
            #[cfg(feature = "runtime")]
            Prepared::InvocationHistory(_) => Err(not_a("single open", "hazmatFinishInvocation")),
            #[cfg(feature = "runtime")]
            Prepared::Spent => Err(not_a("pending open", "prepareOpenInvocation")),
        }
    }
}

/// The invocation steps of [`PendingOpens`] (a bot runtime's; the `runtime`
/// feature).
#[cfg(feature = "runtime")]
#[wasm_bindgen]
impl PendingOpens {
    /// The keyring an invocation's envelopes open under
    /// (`prepareOpenInvocation`; a copy, which the caller frees): hand it
    /// to `jobs`, whose key tags name its keys.
    #[wasm_bindgen(js_name = invocationKeyring)]
    pub fn invocation_keyring(&self) -> JsResult<Keyring> {
        match &self.prepared {
            Prepared::Invocation(pending) => Ok(Keyring::from_core(pending.keyring().clone())),
            Prepared::InvocationHistory(opened) => Ok(Keyring::from_core(opened.keyring().clone())),
            _ => Err(not_a("invocation", "prepareOpenInvocation")),
        }
    }

    /// Completes an invocation's prompt (`prepareOpenInvocation`; its one
    /// job) as `hazmatFinishOne` does its job (read its hazard): the prompt
    /// opens and must be UTF-8, then `state` (the very object
    /// `prepareOpenInvocation` was given; another, even of the same root:
    /// `INVALID_FIELD`) records it as acted on
    /// (`PROMPT_REPLAYED`). Any failure is thrown and uses this object up.
    /// After it, `jobs` gives the history's jobs, and
    /// `hazmatFinishInvocation` completes them: nothing of the history is
    /// decrypted or verified before the prompt has opened.
    #[wasm_bindgen(js_name = hazmatFinishPrompt)]
    pub fn hazmat_finish_prompt(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | null | undefined)[]")]
        decrypted: Array,
        state: &mut StreamState,
        #[wasm_bindgen(unchecked_param_type = "boolean[]")] verified: Option<Array>,
    ) -> JsResult<()> {
        if !matches!(self.prepared, Prepared::Invocation(_)) {
            return Err(not_a(
                "invocation before its prompt",
                "prepareOpenInvocation",
            ));
        }
        one_per_job(&decrypted, 1)?;
        let Prepared::Invocation(pending) = std::mem::replace(&mut self.prepared, Prepared::Spent)
        else {
            return Err(not_a(
                "invocation before its prompt",
                "prepareOpenInvocation",
            ));
        };
        let opened = js(pending.open_prompt(state.core_mut(), |pending, keyring| {
            finish_flow_in(pending, done_at(&decrypted, verified.as_ref(), 0), keyring)
        }))?;
        self.prepared = Prepared::InvocationHistory(Box::new(opened));
        Ok(())
    }

    /// Completes an invocation's history (after `hazmatFinishPrompt`) as
    /// `hazmatFinish` does a page (read its hazard), item by item: the
    /// `OpenedInvocation` of the synchronous `OpenedInvocation.open`.
    #[wasm_bindgen(js_name = hazmatFinishInvocation)]
    pub fn hazmat_finish_invocation(
        self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | null | undefined)[]")]
        decrypted: Array,
        #[wasm_bindgen(unchecked_param_type = "boolean[]")] verified: Option<Array>,
    ) -> JsResult<OpenedInvocation> {
        let Prepared::InvocationHistory(opened) = self.prepared else {
            return Err(not_a(
                "invocation whose prompt opened",
                "hazmatFinishPrompt",
            ));
        };
        one_per_job(&decrypted, opened.history().count())?;
        let opened = opened.finish(|index, pending, keyring| {
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            finish_flow_in(
                pending,
                done_at(&decrypted, verified.as_ref(), index),
                keyring,
            )
        });
        Ok(OpenedInvocation::from_core(opened))
    }
}

/// `decrypted` has one entry per job (`INVALID_FIELD` otherwise).
fn one_per_job(decrypted: &Array, jobs: usize) -> JsResult<()> {
    if usize::try_from(decrypted.length()).ok() == Some(jobs) {
        Ok(())
    } else {
        Err(error_with(
            ErrorCode::InvalidField,
            "field `decrypted` is invalid: one entry per job",
        ))
    }
}

fn not_a(what: &str, instead: &str) -> JsValue {
    error_with(
        ErrorCode::InvalidField,
        &format!("field `this` is invalid: not a {what}; call `{instead}`"),
    )
}

// ---- seals whose AES-GCM runs elsewhere ----------------------------------------

/// What was prepared to seal: an envelope, or a flow's seal whose
/// completion gives its JS result (a message body, an edit's or a note's
/// payload, a card, a runtime's reply or step).
enum PreparedSeal {
    Envelope(PendingSeal),
    Flow(PendingSealed<JsResult<JsValue>>),
}

impl PendingSeals {
    /// Encrypts here (this library's AES-GCM) and completes: the
    /// synchronous seals are their `prepare*` and this, so each parses its
    /// arguments once for both forms.
    pub(crate) fn seal_here<T: Tsify>(self, keyring: &stream_key::Keyring) -> JsResult<Ts<T>> {
        let value = match self.prepared {
            PreparedSeal::Envelope(seal) => output(&js(seal.seal(keyring))?)?.into(),
            PreparedSeal::Flow(pending) => js(pending.encrypt(keyring))??,
        };
        Ok(Ts::new_unchecked(value))
    }

    /// A flow's seal, its result crossing as a plain JS object.
    fn flow<T: Tsify + Serialize + 'static>(pending: PendingSealed<T>) -> Self {
        PendingSeals {
            prepared: PreparedSeal::Flow(pending.map(|result| output(&result).map(Into::into))),
        }
    }
}

/// A seal with every step but AES-GCM done: the flow's checks, the AAD, the
/// seal counted against the generation's budget, the iv, the key
/// commitment, the signature. The package's async seals (`sealAsync`,
/// `sealMessageAsync`, `sealEditAsync`, `sealDecisionNoteAsync`,
/// `sealDecisionCardAsync` and a runtime's `sealReplyAsync`, ...) drive it;
/// `hazmatFinishSeal` frees it. It holds the content in WASM memory (wiped
/// when it is finished or freed).
#[wasm_bindgen]
pub struct PendingSeals {
    prepared: PreparedSeal,
}

impl PendingSeals {
    fn seal(&self) -> &PendingSeal {
        match &self.prepared {
            PreparedSeal::Envelope(seal) => seal,
            PreparedSeal::Flow(pending) => pending.seal(),
        }
    }
}

/// `seal`'s every step but AES-GCM; a refusal throws here, with the code
/// `seal` gives.
#[wasm_bindgen(js_name = prepareSeal)]
pub fn prepare_seal(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    slot: Ts<Slot>,
    plaintext: &[u8],
) -> JsResult<PendingSeals> {
    let slot = input("slot", &slot)?;
    let signer = signer(identity, subject)?;
    let seal = js(envelope::prepare_seal(
        keyring.core(),
        &signer,
        &slot,
        plaintext,
    ))?;
    Ok(PendingSeals {
        prepared: PreparedSeal::Envelope(seal),
    })
}

/// **Hazmat** (`streamseal::hazmat`): `prepareSeal` drawing the 12 iv
/// bytes, then the signature's 64 bytes `Z`, from `randomness`, to the last
/// byte: the golden vectors through the async seals. The same bytes twice
/// reuse the AES-GCM and XEdDSA nonces.
#[cfg(feature = "tools")]
#[wasm_bindgen(js_name = hazmatPrepareSealWithRandomness)]
pub fn hazmat_prepare_seal_with_randomness(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    slot: Ts<Slot>,
    plaintext: &[u8],
    randomness: &[u8],
) -> JsResult<PendingSeals> {
    let slot = input("slot", &slot)?;
    let signer = signer(identity, subject)?;
    let seal = js(streamseal::hazmat::drawing_exactly(randomness, |rng| {
        streamseal::hazmat::prepare_seal_with(rng, keyring.core(), &signer, &slot, plaintext)
    }))?;
    Ok(PendingSeals {
        prepared: PreparedSeal::Envelope(seal),
    })
}

/// `sealMessage`'s every step but AES-GCM; a refusal throws here, with the
/// code `sealMessage` gives.
#[wasm_bindgen(js_name = prepareSealMessage)]
pub fn prepare_seal_message(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    stream_id: &str,
    message_id: &str,
    text: &str,
) -> JsResult<PendingSeals> {
    let message_id = js(MessageId::parse(message_id))?;
    let signer = signer(identity, subject)?;
    let pending = js(messages::prepare_seal_message(
        keyring.core(),
        &signer,
        stream_id,
        &message_id,
        text,
    ))?;
    Ok(PendingSeals::flow(pending))
}

/// `sealEdit`'s every step but AES-GCM; a refusal throws here, with the
/// code `sealEdit` gives.
#[wasm_bindgen(js_name = prepareSealEdit)]
pub fn prepare_seal_edit(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    message: Ts<Message>,
    text: &str,
) -> JsResult<PendingSeals> {
    // Only what the edit's AAD binds crosses (`MessageToEdit`).
    let message: MessageToEdit = from_js("message", message.into())?;
    let signer = signer(identity, subject)?;
    let pending = js(messages::prepare_seal_edit_of(
        keyring.core(),
        &signer,
        &message,
        text,
    ))?;
    Ok(PendingSeals::flow(pending))
}

/// `sealDecisionNote`'s every step but AES-GCM; a refusal throws here,
/// with the code `sealDecisionNote` gives.
#[wasm_bindgen(js_name = prepareSealDecisionNote)]
pub fn prepare_seal_decision_note(
    keyring: &Keyring,
    identity: &IdentityKey,
    subject: &str,
    decision_id: &str,
    option_id: &str,
    note: &str,
) -> JsResult<PendingSeals> {
    let signer = signer(identity, subject)?;
    let pending = js(decisions::prepare_seal_decision_note(
        keyring.core(),
        &signer,
        decision_id,
        option_id,
        note,
    ))?;
    Ok(PendingSeals::flow(pending))
}

/// `sealDecisionCard`'s every step but AES-GCM; a refusal throws here,
/// with the code `sealDecisionCard` gives.
#[cfg(feature = "runtime")]
#[wasm_bindgen(js_name = prepareSealDecisionCard)]
#[allow(clippy::too_many_arguments)]
pub fn prepare_seal_decision_card(
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
) -> JsResult<PendingSeals> {
    let decision_id = js(DecisionId::parse(decision_id))?;
    let options: Vec<DecisionOption> = from_js("options", options)?;
    let content = input("content", &content)?;
    let signer = signer(identity, subject)?;
    let placement = CardPlacement {
        stream_id,
        decision_id: &decision_id,
        runtime_session_id,
        invocation_id,
    };
    let pending = js(decisions::prepare_seal_decision_card(
        keyring.core(),
        &signer,
        placement,
        options,
        allow_note,
        &content,
    ))?;
    Ok(PendingSeals::flow(pending))
}

/// A runtime's seals whose AES-GCM runs elsewhere (`sealReplyAsync`,
/// `sealStepAsync`, ...): each `prepareSeal*` runs every step of the
/// synchronous method of the same name but AES-GCM, and throws its code.
/// Complete them under `sealingKeyring()`.
#[cfg(feature = "runtime")]
#[wasm_bindgen]
impl OpenedInvocation {
    /// The keyring this invocation seals and opens under: a copy, which
    /// shares its keys' seal counts and their clear (a `dropKeys` of the
    /// state stops it too). Hand it to `job` and `hazmatFinishSeal`, then
    /// free it; never `clear()` it: that clears the state's keys too (as a
    /// revoke does), and the state then seals nothing more.
    #[wasm_bindgen(js_name = sealingKeyring)]
    pub fn sealing_keyring(&self) -> Keyring {
        Keyring::from_core(self.core().keyring().clone())
    }

    /// `sealReply` up to its AES-GCM.
    #[wasm_bindgen(js_name = prepareSealReply)]
    pub fn prepare_seal_reply(&self, message_id: &str, text: &str) -> JsResult<PendingSeals> {
        let message_id = js(MessageId::parse(message_id))?;
        let pending = js(self.core().prepare_seal_reply(&message_id, text))?;
        Ok(PendingSeals::flow(pending))
    }

    /// `sealCompleteReply` up to its AES-GCM.
    #[wasm_bindgen(js_name = prepareSealCompleteReply)]
    pub fn prepare_seal_complete_reply(
        &self,
        message_id: &str,
        text: &str,
    ) -> JsResult<PendingSeals> {
        let message_id = js(MessageId::parse(message_id))?;
        let pending = js(self.core().prepare_seal_complete_reply(&message_id, text))?;
        Ok(PendingSeals::flow(pending))
    }

    /// `sealMessage` (the invocation's follow-up message) up to its AES-GCM.
    #[wasm_bindgen(js_name = prepareSealMessage)]
    pub fn prepare_seal_message(&self, message_id: &str, text: &str) -> JsResult<PendingSeals> {
        let message_id = js(MessageId::parse(message_id))?;
        let pending = js(self.core().prepare_seal_message(&message_id, text))?;
        Ok(PendingSeals::flow(pending))
    }

    /// `sealStepStarted` with its `text` up to its AES-GCM (without a text
    /// it seals nothing: call `sealStepStarted`).
    #[wasm_bindgen(js_name = prepareSealStepStarted)]
    pub fn prepare_seal_step_started(
        &self,
        step_id: &str,
        step_type: &str,
        message_id: Option<String>,
        text: &str,
    ) -> JsResult<PendingSeals> {
        let pending = js(self.core().prepare_seal_step_started(
            step_id,
            &StepType::parse(step_type),
            message_id.as_deref(),
            text,
        ))?;
        Ok(PendingSeals::flow(pending))
    }

    /// `sealStep` up to its AES-GCM.
    #[wasm_bindgen(js_name = prepareSealStep)]
    pub fn prepare_seal_step(
        &self,
        step_id: &str,
        step_type: &str,
        message_id: Option<String>,
        text: &str,
        duration_ms: Option<u32>,
    ) -> JsResult<PendingSeals> {
        let pending = js(self.core().prepare_seal_step(
            step_id,
            &StepType::parse(step_type),
            message_id.as_deref(),
            text,
            duration_ms.map(u64::from),
        ))?;
        Ok(PendingSeals::flow(pending))
    }

    /// `sealDecisionCard` (posted by this invocation) up to its AES-GCM.
    #[wasm_bindgen(js_name = prepareSealDecisionCard)]
    pub fn prepare_seal_decision_card(
        &self,
        stream_id: &str,
        decision_id: &str,
        #[wasm_bindgen(unchecked_param_type = "DecisionOption[]")] options: JsValue,
        allow_note: bool,
        content: Ts<DecisionCardContent>,
        runtime_session_id: &str,
    ) -> JsResult<PendingSeals> {
        let decision_id = js(DecisionId::parse(decision_id))?;
        let options: Vec<DecisionOption> = from_js("options", options)?;
        let content = input("content", &content)?;
        let pending = js(self.core().prepare_seal_decision_card(
            stream_id,
            &decision_id,
            options,
            allow_note,
            &content,
            runtime_session_id,
        ))?;
        Ok(PendingSeals::flow(pending))
    }
}

#[wasm_bindgen]
impl PendingSeals {
    /// The work left: `[keyGeneration, iv, aad, input, keyTag]` for the
    /// platform, where AES-256-GCM encrypts `input` (`signature (64 bytes)
    /// || content`: **a copy of the content**, for the caller to wipe once
    /// encrypted) under the key `keyTag` names; `undefined` to leave it to
    /// this library (`input` shorter than `platformFrom` bytes, or
    /// `keyring` does not hold the key the seal committed to).
    #[wasm_bindgen(
        unchecked_return_type = "[number, Uint8Array, Uint8Array, Uint8Array, Uint8Array] | undefined"
    )]
    pub fn job(
        &self,
        #[wasm_bindgen(js_name = platformFrom)] platform_from: f64,
        keyring: &Keyring,
    ) -> JsValue {
        let seal = self.seal();
        // An input of at most 4 MiB: exact as an f64.
        if (seal.aead_input().len() as f64) < platform_from {
            return JsValue::UNDEFINED;
        }
        // The key the seal committed to, and no other (another keyring's,
        // or a key cleared or replaced since): WASM then refuses the seal.
        if !seal.is_committed_to(keyring.core()) {
            return JsValue::UNDEFINED;
        }
        let Ok(tag) = keyring.core().key_tag(seal.key_generation()) else {
            return JsValue::UNDEFINED;
        };
        let job = Array::of5(
            &JsValue::from(seal.key_generation()),
            &Uint8Array::from(&seal.iv()[..]),
            &Uint8Array::from(seal.aad()),
            &Uint8Array::from(seal.aead_input()),
            &Uint8Array::from(&tag[..]),
        );
        job.into()
    }

    /// Completes the seal: `sealed` is what the platform's AES-256-GCM
    /// encrypted the job's `input` to (`ciphertext || tag`), or `undefined`
    /// to encrypt here; either way `keyring` must still hold the key the
    /// seal committed to (`UNKNOWN_KEY_GENERATION`: a keyring cleared
    /// meanwhile seals nothing more). The result is the
    /// synchronous call's. **Hazmat**: bytes other than that encryption make
    /// an envelope no member opens; what is checked is their length
    /// (`INVALID_LENGTH`) and that they are not the input itself
    /// (`INVALID_FIELD`).
    #[wasm_bindgen(
        js_name = hazmatFinishSeal,
        unchecked_return_type = "SealedPayload | SendMessageRequest | CreateDecisionRequest | SealedCompleteRequest | CompleteSealedReply | SealedMessageRequest | SealedStepStartedRequest | SealedStepRequest"
    )]
    pub fn hazmat_finish_seal(
        self,
        #[wasm_bindgen(unchecked_param_type = "Uint8Array | undefined")] sealed: JsValue,
        keyring: &Keyring,
    ) -> JsResult<JsValue> {
        let platform = if sealed.is_undefined() {
            None
        } else if sealed.is_instance_of::<Uint8Array>() {
            Some(sealed.unchecked_ref::<Uint8Array>().to_vec())
        } else {
            return Err(error_with(
                ErrorCode::InvalidField,
                "field `sealed` is invalid: a Uint8Array or undefined",
            ));
        };
        let core = keyring.core();
        match self.prepared {
            PreparedSeal::Envelope(seal) => {
                let payload = match platform {
                    Some(bytes) => js(seal.finish(core, &bytes))?,
                    None => js(seal.seal(core))?,
                };
                Ok(output(&payload)?.into())
            }
            PreparedSeal::Flow(pending) => match platform {
                Some(bytes) => js(pending.finish(core, &bytes))?,
                None => js(pending.encrypt(core))?,
            },
        }
    }
}
