//! Opens whose AES-GCM runs elsewhere: the async `openAsync`,
//! `openMessageAsync` and `openMessagesAsync` of the package (js/src/webcrypto.js)
//! hand AES-256-GCM to the platform's WebCrypto (hardware AES) and keep
//! every check here.
//!
//! `prepareOpen`, `prepareOpenMessage` and `prepareOpenMessages` run every
//! check of `open`, `openMessage` and `openMessages` before AES-GCM (the
//! core's `prepare_open`: version, base64 and sizes, the AAD and its slot,
//! the key held, the sender's key, the key commitment) and return a
//! [`PendingOpens`]. Its `jobs` are the AES-GCM inputs; `finish` /
//! `finishOne` take, per job, what the platform decrypted it to (or
//! `undefined`: decrypt it here, the "wasm" backend), verify the sender's
//! signatures (in WASM) and give the results of the synchronous call. It
//! holds no key and no plaintext.

use js_sys::{Array, Uint8Array};
use streamseal::envelope::{self, PendingOpen, SealedPayload};
use streamseal::sealed::messages::{self, MessageToOpen, PendingMessage};
use streamseal::slot::Slot;
use streamseal::wire::message::Message;
use streamseal::{CryptoError, Error, ErrorCode};
use tsify::Ts;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use crate::crypto::OpenedEnvelope;
use crate::error::{JsResult, error_with, from_js, input, js, output, to_js, to_js_error};
use crate::flows::{OpenResult, open_result};
use crate::keys::Keyring;
use crate::sender::{OwnKeysArg, PresentedKeys, sender_keys};
use crate::trust::TrustStore;

/// What was prepared: a page of messages, one message, or one envelope.
enum Prepared {
    Messages(Vec<Result<PendingMessage, Error>>),
    Message(PendingMessage),
    Envelope(PendingOpen),
}

/// Opens checked up to their AES-GCM part (see the module docs). The
/// package's async opens drive it; apps rarely call it themselves. Every
/// completing call frees it.
#[wasm_bindgen]
pub struct PendingOpens {
    prepared: Prepared,
}

/// `open`'s checks before AES-GCM; a refusal throws here, with the code
/// `open` gives.
#[wasm_bindgen(js_name = prepareOpen)]
pub fn prepare_open(
    keyring: &Keyring,
    trust: &TrustStore,
    slot: Ts<Slot>,
    sealed: Ts<SealedPayload>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    let slot = input("slot", &slot)?;
    let sealed = input("sealed", &sealed)?;
    let senders = sender_keys(trust, own, presented)?;
    let pending = js(envelope::prepare_open(
        keyring.core(),
        &senders,
        &sealed,
        |s| *s == slot,
    ))?;
    Ok(PendingOpens {
        prepared: Prepared::Envelope(pending),
    })
}

/// `openMessage`'s checks before AES-GCM; a refusal throws here, with the
/// code `openMessage` gives.
#[wasm_bindgen(js_name = prepareOpenMessage)]
pub fn prepare_open_message(
    keyring: &Keyring,
    trust: &TrustStore,
    stream_id: &str,
    message: Ts<Message>,
    own: Option<OwnKeysArg>,
    presented: Option<PresentedKeys>,
) -> JsResult<PendingOpens> {
    let message: MessageToOpen = from_js("message", message.into())?;
    let senders = sender_keys(trust, own, presented)?;
    let mut items = messages::prepare_messages(
        keyring.core(),
        &senders,
        stream_id,
        std::slice::from_ref(&message),
    );
    let pending = match items.pop() {
        Some(item) => js(item)?,
        None => return Err(to_js_error(&CryptoError::DecryptionFailed.into())),
    };
    Ok(PendingOpens {
        prepared: Prepared::Message(pending),
    })
}

/// `openMessages`' checks before AES-GCM, entry by entry; an entry refused
/// here is reported, with its code, by `finish` or `open`.
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
    })
}

fn job(pending: &PendingOpen) -> JsValue {
    Array::of4(
        &JsValue::from(pending.key_generation()),
        &Uint8Array::from(&pending.iv()[..]),
        &Uint8Array::from(pending.aad()),
        &Uint8Array::from(pending.ciphertext()),
    )
    .into()
}

/// What the caller did with job `index`: decrypted it (a `Uint8Array`,
/// copied into WASM memory and zeroized there after use), left it to this
/// library (`undefined`), or saw the platform refuse its tag (`null`:
/// `DECRYPTION_FAILED`).
enum Done {
    Decrypted(Zeroizing<Vec<u8>>),
    Left,
    Refused,
}

fn done_at(decrypted: &Array, index: u32) -> Done {
    let value = decrypted.get(index);
    if value.is_instance_of::<Uint8Array>() {
        Done::Decrypted(Zeroizing::new(Uint8Array::new(&value).to_vec()))
    } else if value.is_undefined() {
        Done::Left
    } else {
        Done::Refused
    }
}

fn finish_message(
    pending: PendingMessage,
    done: Done,
    keyring: &Keyring,
) -> Result<messages::OpenedMessage, Error> {
    match done {
        Done::Decrypted(plain) => pending.finish(plain),
        Done::Left => pending.open(keyring.core()),
        Done::Refused => Err(CryptoError::DecryptionFailed.into()),
    }
}

fn finish_envelope(
    pending: PendingOpen,
    done: Done,
    keyring: &Keyring,
) -> Result<envelope::Opened, Error> {
    Ok(match done {
        Done::Decrypted(plain) => pending.finish(plain)?,
        Done::Left => pending.open(keyring.core())?,
        Done::Refused => return Err(CryptoError::DecryptionFailed.into()),
    })
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
    /// The AES-256-GCM work, one entry per envelope: `[keyGeneration, iv,
    /// aad, ciphertext]` (the ciphertext ends with its 16-byte tag), or
    /// `null` for an entry of a page already refused.
    #[wasm_bindgen(
        unchecked_return_type = "([number, Uint8Array, Uint8Array, Uint8Array] | null)[]"
    )]
    pub fn jobs(&self) -> Array {
        match &self.prepared {
            Prepared::Messages(items) => items
                .iter()
                .map(|item| match item {
                    Ok(pending) => job(pending.envelope()),
                    Err(_) => JsValue::NULL,
                })
                .collect(),
            Prepared::Message(pending) => Array::of1(&job(pending.envelope())),
            Prepared::Envelope(pending) => Array::of1(&job(pending)),
        }
    }

    /// Completes a page (`prepareOpenMessages`): `decrypted` holds, per
    /// job, what the platform's AES-256-GCM decrypted it to (a
    /// `Uint8Array`), `null` where the platform refused its tag, or
    /// `undefined` to decrypt it here with `keyring`. The signatures are
    /// verified here; the results are those `openMessages` gives.
    #[wasm_bindgen(unchecked_return_type = "OpenResult[]")]
    pub fn finish(
        self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | null | undefined)[]")]
        decrypted: Array,
        keyring: &Keyring,
    ) -> JsResult<JsValue> {
        let Prepared::Messages(items) = self.prepared else {
            return Err(not_a("page", "finishOne"));
        };
        if usize::try_from(decrypted.length()).ok() != Some(items.len()) {
            return Err(error_with(
                ErrorCode::InvalidField,
                "field `decrypted` is invalid: one entry per job",
            ));
        }
        let opened = items
            .into_iter()
            .zip(0..)
            .map(|(item, index)| finish_message(item?, done_at(&decrypted, index), keyring));
        results(messages::finish_messages(opened))
    }

    /// Completes one message or envelope (`prepareOpenMessage`,
    /// `prepareOpen`) as `finish` does its one job: the result of
    /// `openMessage` / `open`, or the error it throws.
    #[wasm_bindgen(js_name = finishOne, unchecked_return_type = "OpenedMessage | OpenedEnvelope")]
    pub fn finish_one(
        self,
        #[wasm_bindgen(unchecked_param_type = "(Uint8Array | null | undefined)[]")]
        decrypted: Array,
        keyring: &Keyring,
    ) -> JsResult<JsValue> {
        let done = if decrypted.length() == 1 {
            done_at(&decrypted, 0)
        } else {
            return Err(error_with(
                ErrorCode::InvalidField,
                "field `decrypted` is invalid: one entry per job",
            ));
        };
        match self.prepared {
            Prepared::Message(pending) => {
                Ok(output(&js(finish_message(pending, done, keyring))?)?.into())
            }
            Prepared::Envelope(pending) => {
                let opened = js(finish_envelope(pending, done, keyring))?;
                Ok(output(&opened_envelope(opened))?.into())
            }
            Prepared::Messages(_) => Err(not_a("single open", "finish")),
        }
    }
}

fn not_a(what: &str, instead: &str) -> JsValue {
    error_with(
        ErrorCode::InvalidField,
        &format!("field `this` is invalid: not a {what}; call `{instead}`"),
    )
}
