//! Sealed decision cards and their notes.
//!
//! A card's title, body and option labels are the plaintext (a
//! [`DecisionCardContent`] as canonical JSON: one content, one spelling, read
//! strictly; `card_json.rs` says which); its option ids, tones and `allowNote` travel in
//! the clear and are bound in the AAD, so the server cannot swap, reorder,
//! restyle or drop options. The answer (`decision:resolved`) carries the
//! chosen option in the clear; it counts only with the decider's sealed note
//! (always sealed, empty text allowed), bound to the decision, the chosen
//! option and the decider, and signed by the decider's key:
//! [`open_decision_answer`] refuses an answer the server forged
//! (`UNPROVEN_DECISION_ANSWER`), a note sealed by another key holder
//! (`SENDER_MISMATCH`) and one sealed under a generation older than the
//! newest held (`STALE_KEY_GENERATION`: an answer is new work). The card's
//! AAD also binds the invocation and runtime session that ask.
//!
//! ```
//! use std::collections::BTreeMap;
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_sealed::decisions::*;
//! use streamseal_crypto::sender::{SenderKeys, Signer};
//! use streamseal_crypto::stream_key::{Keyring, StreamKey};
//! use streamseal_crypto::slot::DecisionOption;
//! use streamseal_crypto::trust::{TrustPolicy, TrustStore};
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
//! assert_eq!(open_decision_card(&ring, &keys, "stream_r", &card)?.content, content);
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::pending::{Pending, PendingSealed};
use crate::{refuse_stale, utf8};
use streamseal_crypto::envelope::{SealedPayload, prepare_open, prepare_seal};
use streamseal_crypto::error::{Error, Result};
use streamseal_crypto::sender::{SealedBy, SenderKeys, Signer};
use streamseal_crypto::slot::{DecisionOption, Slot};
use streamseal_crypto::stream_key::Keyring;
use streamseal_wire::events::DecisionResolved;
use streamseal_wire::ids::DecisionId;
use streamseal_wire::requests::Validate;
use streamseal_wire::requests::decisions::CreateDecisionRequest;

/// What a sealed card hides: title, body and a label per option id.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct DecisionCardContent {
    /// The title.
    pub title: String,
    /// The body (markdown).
    pub body: String,
    /// Option id to label.
    pub labels: BTreeMap<String, String>,
}

/// Where a card is posted and on whose behalf.
#[derive(Clone, Copy, Debug)]
pub struct CardPlacement<'a> {
    /// The stream (`POST streams/{streamId}/decisions`).
    pub stream_id: &'a str,
    /// The client-minted `dreq_` id.
    pub decision_id: &'a DecisionId,
    /// The runtime session.
    pub runtime_session_id: &'a str,
    /// The invocation asking.
    pub invocation_id: &'a str,
}

/// The slot a card's content is sealed under (FORMAT.md section 2,
/// `decisionCard`): its stream, ids, options and `allowNote`, taken from
/// the card as posted. [`open_decision_card`] recomputes it so, and so can
/// a caller that opens the envelope itself.
#[must_use]
pub fn card_slot(stream_id: &str, card: &CreateDecisionRequest) -> Slot {
    Slot::DecisionCard {
        stream_id: stream_id.to_owned(),
        decision_id: card.decision_id.clone(),
        invocation_id: card.invocation_id.clone(),
        runtime_session_id: card.runtime_session_id.clone(),
        options: card.options.clone(),
        allow_note: card.allow_note,
    }
}

/// A sealed card, opened: its content and who sealed it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct OpenedDecisionCard {
    /// Title, body and labels.
    pub content: DecisionCardContent,
    /// The bot that sealed the card, and whether its key is verified.
    pub sealed_by: SealedBy,
}

/// The `POST streams/{streamId}/decisions` body of a sealed card, signed by
/// `signer` (the runtime's bot). Every label must name one of `options`.
///
/// # Errors
///
/// `INVALID_FIELD` when a label names no option of `options`; as
/// [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
/// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring has no
/// usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the slot does
/// not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext exceeds the size
/// limit; `RANDOMNESS_UNAVAILABLE`; `VALIDATION_FAILED` when the body breaks
/// the API's bounds.
pub fn seal_decision_card(
    keyring: &Keyring,
    signer: &Signer<'_>,
    placement: CardPlacement<'_>,
    options: Vec<DecisionOption>,
    allow_note: bool,
    content: &DecisionCardContent,
) -> Result<CreateDecisionRequest> {
    prepare_seal_decision_card(keyring, signer, placement, options, allow_note, content)?
        .encrypt(keyring)
}

/// [`seal_decision_card`] up to its AES-GCM (the labels checked, the seal
/// counted, the signature made); the body is validated on completion.
///
/// # Errors
///
/// As [`seal_decision_card`], but for `VALIDATION_FAILED`, which the
/// completion reports.
pub fn prepare_seal_decision_card(
    keyring: &Keyring,
    signer: &Signer<'_>,
    placement: CardPlacement<'_>,
    options: Vec<DecisionOption>,
    allow_note: bool,
    content: &DecisionCardContent,
) -> Result<PendingSealed<CreateDecisionRequest>> {
    if let Some(stray) = content
        .labels
        .keys()
        .find(|k| !options.iter().any(|o| &o.id == *k))
    {
        return Err(Error::invalid(
            "labels",
            format!("label for `{stray}`, which is not an option"),
        ));
    }
    let plaintext = crate::card_json::encode(content);
    let mut body = CreateDecisionRequest {
        decision_id: placement.decision_id.as_str().to_owned(),
        sealed: None,
        options,
        allow_note,
        runtime_session_id: placement.runtime_session_id.to_owned(),
        invocation_id: placement.invocation_id.to_owned(),
    };
    let slot = card_slot(placement.stream_id, &body);
    let seal = prepare_seal(keyring, signer, &slot, &plaintext)?;
    Ok(PendingSealed::new(seal, move |sealed| {
        body.sealed = Some(sealed);
        body.validate()?;
        Ok(body)
    }))
}

/// Opens a sealed card as posted to `stream_id`, checking its clear options,
/// `allowNote`, `invocationId` and `runtimeSessionId` are the ones sealed,
/// and who signed it.
///
/// # Errors
///
/// `INVALID_FIELD` when the card is not sealed; as [`streamseal_crypto::envelope::open`]:
/// `AAD_MISMATCH` when the card's clear fields or `stream_id` are not the ones
/// sealed, and its codes for the envelope (`UNSUPPORTED_ENVELOPE_VERSION`,
/// `MALFORMED_BASE64`, `INVALID_LENGTH`, `INPUT_TOO_LARGE`, `MALFORMED_AAD`),
/// the key (`UNKNOWN_KEY_GENERATION`, `DECRYPTION_FAILED`) and the signer
/// (`UNKNOWN_KEY`, `KEY_CHANGED`, `KEY_NOT_VERIFIED`, `SENDER_MISMATCH` for
/// another key holder's signature); `MALFORMED_JSON` when the plaintext is not
/// a [`DecisionCardContent`]'s canonical JSON (the bytes a sealer writes,
/// and no other spelling of them).
pub fn open_decision_card(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    card: &CreateDecisionRequest,
) -> Result<OpenedDecisionCard> {
    prepare_decision_card(keyring, senders, stream_id, card)?.open(keyring)
}

/// [`open_decision_card`]'s checks before AES-GCM (sealed at all, the slot
/// its clear fields and `stream_id` make, the envelope, the key, the
/// signer's key and commitment); the content is read on completion.
///
/// # Errors
///
/// As [`open_decision_card`], but for `DECRYPTION_FAILED` (the tag),
/// `SENDER_MISMATCH` and `MALFORMED_JSON`, which the completion reports.
pub fn prepare_decision_card(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    card: &CreateDecisionRequest,
) -> Result<Pending<OpenedDecisionCard>> {
    let sealed = card
        .sealed
        .as_ref()
        .ok_or_else(|| Error::invalid("sealed", "the card is not sealed"))?;
    let slot = card_slot(stream_id, card);
    let envelope = prepare_open(keyring, senders, sealed, |s| *s == slot)?;
    Ok(Pending::new(envelope, |opened| {
        Ok(OpenedDecisionCard {
            // The error names where the bytes stopped being a card, never the content.
            content: crate::card_json::decode(&opened.plaintext)?,
            sealed_by: opened.sealed_by,
        })
    }))
}

/// Seals the decider's note for the chosen option: the proof of the
/// answer, bound to the decision, the chosen option and the decider (the
/// signer's subject), and signed by the decider. The decider always seals
/// one on a sealed card (an empty `note` is fine): an answer to a sealed card
/// without it is refused by [`open_decision_answer`].
///
/// # Errors
///
/// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
/// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring has no
/// usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the slot does
/// not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext exceeds the size
/// limit; `RANDOMNESS_UNAVAILABLE`.
pub fn seal_decision_note(
    keyring: &Keyring,
    signer: &Signer<'_>,
    decision_id: &str,
    option_id: &str,
    note: &str,
) -> Result<SealedPayload> {
    prepare_seal_decision_note(keyring, signer, decision_id, option_id, note)?.encrypt(keyring)
}

/// [`seal_decision_note`] up to its AES-GCM (the seal counted, the
/// signature made).
///
/// # Errors
///
/// As [`seal_decision_note`].
pub fn prepare_seal_decision_note(
    keyring: &Keyring,
    signer: &Signer<'_>,
    decision_id: &str,
    option_id: &str,
    note: &str,
) -> Result<PendingSealed<SealedPayload>> {
    let slot = Slot::DecisionNote {
        decision_id: decision_id.to_owned(),
        option_id: option_id.to_owned(),
        decided_by: signer.subject().to_owned(),
    };
    let seal = prepare_seal(keyring, signer, &slot, note.as_bytes())?;
    Ok(PendingSealed::new(seal, Ok))
}

/// The answer to a sealed card, proven by its sealed note.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DecisionAnswer {
    /// The decision.
    pub decision_id: String,
    /// The option chosen, one of the card's.
    pub option_id: String,
    /// Who decided.
    pub decided_by: String,
    /// The decider's note (may be empty).
    pub note: String,
    /// Who sealed the note (the decider), and whether its key is verified.
    pub sealed_by: SealedBy,
}

impl std::fmt::Debug for DecisionAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecisionAnswer")
            .field("decision_id", &self.decision_id)
            .field("option_id", &self.option_id)
            .field("decided_by", &self.decided_by)
            .field("note", &"[redacted]")
            .field("sealed_by", &self.sealed_by)
            .finish()
    }
}

/// Opens the answer of a `decision:resolved` event to `card` (the sealed
/// card as it was posted, whose options the asker knows). The server carries
/// `optionId` in the clear, so the answer counts only with its proof: the
/// sealed note bound to this decision, this option and this decider, signed
/// by the decider.
/// `UNPROVEN_DECISION_ANSWER` when the event is for another decision, names
/// an option the card does not have, or carries no sealed note; a note moved
/// from another decision, option or decider does not open (`AAD_MISMATCH`);
/// a note sealed by another key holder is `SENDER_MISMATCH`; one sealed
/// under a generation older than the newest the keyring holds is
/// `STALE_KEY_GENERATION` (a removed member's old key, or a replayed answer).
///
/// # Errors
///
/// `UNPROVEN_DECISION_ANSWER` when the event is for another decision, names an
/// option the card does not have, or carries no sealed note;
/// `STALE_KEY_GENERATION` when the note is sealed under a generation older than
/// the newest held; as [`streamseal_crypto::envelope::open`]: `AAD_MISMATCH` when the note
/// is bound to another decision, option or decider, and its codes for the
/// envelope (`UNSUPPORTED_ENVELOPE_VERSION`, `MALFORMED_BASE64`,
/// `INVALID_LENGTH`, `INPUT_TOO_LARGE`, `MALFORMED_AAD`), the key
/// (`UNKNOWN_KEY_GENERATION`, `DECRYPTION_FAILED`) and the signer
/// (`UNKNOWN_KEY`, `KEY_CHANGED`, `KEY_NOT_VERIFIED`, `SENDER_MISMATCH` for
/// another key holder's signature); `INVALID_FIELD` when the note is not UTF-8.
pub fn open_decision_answer(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    card: &CreateDecisionRequest,
    event: &DecisionResolved,
) -> Result<DecisionAnswer> {
    prepare_decision_answer(keyring, senders, card, event)?.open(keyring)
}

/// [`open_decision_answer`]'s checks before AES-GCM (the decision, the
/// option, a note at all, a stale generation, the note's slot, envelope,
/// key, signer's key and commitment); the note's UTF-8 is read on
/// completion.
///
/// # Errors
///
/// As [`open_decision_answer`], but for `DECRYPTION_FAILED` (the tag),
/// `SENDER_MISMATCH` and `INVALID_FIELD`, which the completion reports.
pub fn prepare_decision_answer(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    card: &CreateDecisionRequest,
    event: &DecisionResolved,
) -> Result<Pending<DecisionAnswer>> {
    if event.decision_id != card.decision_id {
        return Err(Error::UnprovenDecisionAnswer {
            reason: "the answer is for another decision",
        });
    }
    if !card.options.iter().any(|o| o.id == event.option_id) {
        return Err(Error::UnprovenDecisionAnswer {
            reason: "the option is not one of the card's",
        });
    }
    let (ciphertext, envelope) = match (&event.note_ciphertext, &event.note_envelope) {
        (Some(c), Some(e)) => (c.clone(), e.clone()),
        _ => {
            return Err(Error::UnprovenDecisionAnswer {
                reason: "no sealed note proves the option and the decider",
            });
        }
    };
    refuse_stale(keyring, envelope.key_generation)?;
    let slot = Slot::DecisionNote {
        decision_id: event.decision_id.clone(),
        option_id: event.option_id.clone(),
        decided_by: event.decided_by.clone(),
    };
    let pending = prepare_open(
        keyring,
        senders,
        &SealedPayload {
            ciphertext,
            envelope,
            extra: Default::default(),
        },
        |s| *s == slot,
    )?;
    let (decision_id, option_id, decided_by) = (
        event.decision_id.clone(),
        event.option_id.clone(),
        event.decided_by.clone(),
    );
    Ok(Pending::new(pending, move |opened| {
        Ok(DecisionAnswer {
            decision_id,
            option_id,
            decided_by,
            note: utf8(opened.plaintext)?,
            sealed_by: opened.sealed_by,
        })
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;
    use streamseal_crypto::envelope::seal;
    use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
    use streamseal_crypto::stream_key::StreamKey;
    use streamseal_crypto::trust::{TrustPolicy, TrustStore};

    /// A card whose sealed plaintext is JSON of the wrong shape: the error
    /// says so without quoting any of the decrypted content.
    #[test]
    fn malformed_card_content_error_quotes_no_plaintext() {
        const SECRET: &str = "launch code 7216-ALPHA";
        let mut ring = Keyring::new("stream_r").unwrap();
        ring.insert(0, StreamKey::generate().unwrap()).unwrap();
        let options = vec![DecisionOption {
            id: "go".into(),
            tone: "primary".into(),
        }];
        let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("m").unwrap()).unwrap();
        let signer = Signer::new("bot_1", &bot).unwrap();
        let trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
        let keys = SenderKeys::new(&trust).with_own("bot_1", &bot);
        for plaintext in [
            // A string where a map belongs: serde_json's message would be
            // `invalid type: string "launch code 7216-ALPHA", expected a map`.
            format!(r#"{{"title":"t","body":"b","labels":"{SECRET}"}}"#),
            // A string as an unknown enum-like value and as a whole document.
            format!(r#""{SECRET}""#),
            format!(r#"{{"title":["{SECRET}"],"body":"b","labels":{{}}}}"#),
            // Not JSON at all.
            format!("{SECRET} {{"),
        ] {
            let mut card = CreateDecisionRequest {
                decision_id: "dreq_1".into(),
                sealed: None,
                options: options.clone(),
                allow_note: true,
                runtime_session_id: "s1".into(),
                invocation_id: "inv_1".into(),
            };
            let slot = card_slot("stream_r", &card);
            card.sealed = Some(seal(&ring, &signer, &slot, plaintext.as_bytes()).unwrap());
            let err = open_decision_card(&ring, &keys, "stream_r", &card).unwrap_err();
            assert_eq!(err.code(), ErrorCode::MalformedJson, "{plaintext}");
            let shown = format!("{err} {err:?}");
            for word in ["launch", "7216", "ALPHA"] {
                assert!(!shown.contains(word), "{shown}");
            }
            assert!(shown.contains("at byte"), "{shown}");
        }
    }
}
