//! Slots: the place a ciphertext belongs to.
//!
//! Every sealed surface of the API has a slot kind. The slot's fields are
//! bound into the AAD of the ciphertext (see [`crate::aad`]), so a server
//! that moves a ciphertext to another stream, message, author, revision,
//! invocation, step, decision or option makes opening fail.
//!
//! | surface (spec) | slot |
//! |---|---|
//! | `POST streams/{id}/messages` `sealed`, list items, history items | [`Slot::Message`] |
//! | `sealedContext.prompt` (the trigger message, as its author sealed it) | [`Slot::invocation_prompt`] (a [`Slot::Message`]) |
//! | `sealed-complete` `reply`, `sealed-messages`, `complete` `sealedReply` | [`Slot::BotReply`] |
//! | `sealed-steps/started`, `sealed-steps`, socket step frames | [`Slot::TraceStep`] |
//! | `POST streams/{id}/decisions` `sealed` | [`Slot::DecisionCard`] |
//! | `decision:resolved` `noteCiphertext` / `noteEnvelope` | [`Slot::DecisionNote`] |
//!
//! ```
//! use streamseal_crypto::slot::{Slot, SlotKind};
//!
//! let slot = Slot::Message {
//!     stream_id: "stream_01J0000000000000000000000A".into(),
//!     message_id: "msg_01J0000000000000000000000B".into(),
//!     author_id: "usr_01J0000000000000000000000C".into(),
//!     author_type: "user".into(),
//!     revision: 1,
//! };
//! assert_eq!(slot.kind(), SlotKind::Message);
//! assert!(slot.validate().is_ok());
//! ```

use serde::{Deserialize, Serialize};

use crate::codec::check_str;
use crate::error::{Error, Result};

/// Most options a sealed decision card may carry.
pub const MAX_DECISION_OPTIONS: usize = 64;

/// The kind of a slot, with its one-byte code in the AAD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum SlotKind {
    /// A stream message (code 1).
    Message,
    /// A bot's reply or follow-up message within an invocation (code 2).
    BotReply,
    /// A trace step of an invocation (code 3).
    TraceStep,
    /// A decision card (code 4).
    DecisionCard,
    /// The note a decider attached to a decision (code 5).
    DecisionNote,
}

impl SlotKind {
    /// The byte that names this kind in the AAD.
    pub const fn code(self) -> u8 {
        match self {
            SlotKind::Message => 1,
            SlotKind::BotReply => 2,
            SlotKind::TraceStep => 3,
            SlotKind::DecisionCard => 4,
            SlotKind::DecisionNote => 5,
        }
    }

    /// The kind named by an AAD byte.
    pub const fn from_code(code: u8) -> Option<SlotKind> {
        match code {
            1 => Some(SlotKind::Message),
            2 => Some(SlotKind::BotReply),
            3 => Some(SlotKind::TraceStep),
            4 => Some(SlotKind::DecisionCard),
            5 => Some(SlotKind::DecisionNote),
            _ => None,
        }
    }
}

/// Whether a sealed trace step is the in-flight start or the final record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum StepPhase {
    /// `POST .../sealed-steps/started` (code 1).
    Started,
    /// `POST .../sealed-steps`, the finalised step (code 2).
    Completed,
}

impl StepPhase {
    /// The byte that names this phase in the AAD.
    pub const fn code(self) -> u8 {
        match self {
            StepPhase::Started => 1,
            StepPhase::Completed => 2,
        }
    }

    /// The phase named by an AAD byte.
    pub const fn from_code(code: u8) -> Option<StepPhase> {
        match code {
            1 => Some(StepPhase::Started),
            2 => Some(StepPhase::Completed),
            _ => None,
        }
    }
}

/// One option of a decision card: its id and tone travel in the clear and
/// are bound in the AAD; its label is inside the ciphertext.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct DecisionOption {
    /// The option id (clear).
    pub id: String,
    /// The tone (clear), e.g. `primary` or `neutral`.
    pub tone: String,
}

/// Where a ciphertext belongs. See the module docs for which API surface
/// uses which slot. Ids are the API's prefixed ids, compared byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum Slot {
    /// A message in a stream (root or thread), at one revision.
    Message {
        /// The stream the message is posted in (a thread's own id for thread messages).
        stream_id: String,
        /// The client-minted message id.
        message_id: String,
        /// The author's id (`usr_...` or the bot id); the envelope's signer.
        author_id: String,
        /// The author's `authorType` (`user`, `persona`, `system`, `bot`).
        author_type: String,
        /// 1 for the original body, +1 per edit.
        revision: u32,
    },
    /// A bot's message posted through an invocation (`sealed-complete`
    /// reply, `sealed-messages`, `complete`'s `sealedReply`).
    BotReply {
        /// The invocation's response stream.
        stream_id: String,
        /// The client-minted message id.
        message_id: String,
        /// The sending bot (`reply.senderId` of the sealed context).
        author_id: String,
        /// The invocation the reply belongs to.
        invocation_id: String,
    },
    /// A trace step of an invocation.
    TraceStep {
        /// The invocation.
        invocation_id: String,
        /// The client-minted step id.
        step_id: String,
        /// The step type (`thinking`, `tool_call`, ...).
        step_type: String,
        /// Started or completed.
        phase: StepPhase,
        /// The message the step refers to, when the body names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String>,
    },
    /// A decision card: title, body and option labels are the plaintext;
    /// option ids, tones and `allowNote` are clear and bound here.
    DecisionCard {
        /// The stream the card is posted to.
        stream_id: String,
        /// The `dreq_` id.
        decision_id: String,
        /// The invocation that asks.
        invocation_id: String,
        /// The runtime session that asks.
        runtime_session_id: String,
        /// The options, in order.
        options: Vec<DecisionOption>,
        /// Whether a note may be attached.
        allow_note: bool,
    },
    /// The optional note of a decision, sealed by the decider.
    DecisionNote {
        /// The `dreq_` id.
        decision_id: String,
        /// The chosen option id.
        option_id: String,
        /// Who decided.
        decided_by: String,
    },
}

impl Slot {
    /// The slot of an invocation's sealed prompt.
    ///
    /// No key holder seals a prompt apart from the message that triggered the
    /// invocation: `sealedContext.prompt` is that message's own ciphertext. So
    /// the prompt opens as the trigger's [`Slot::Message`], with the
    /// invocation's `activeStreamId`, `sourceMessageId` (= `trigger.messageId`),
    /// `authorUserId`, `trigger.authorType` and `sourceRevision`.
    pub fn invocation_prompt(
        active_stream_id: impl Into<String>,
        source_message_id: impl Into<String>,
        author_user_id: impl Into<String>,
        author_type: impl Into<String>,
        source_revision: u32,
    ) -> Slot {
        Slot::Message {
            stream_id: active_stream_id.into(),
            message_id: source_message_id.into(),
            author_id: author_user_id.into(),
            author_type: author_type.into(),
            revision: source_revision,
        }
    }

    /// The kind of this slot.
    pub fn kind(&self) -> SlotKind {
        match self {
            Slot::Message { .. } => SlotKind::Message,
            Slot::BotReply { .. } => SlotKind::BotReply,
            Slot::TraceStep { .. } => SlotKind::TraceStep,
            Slot::DecisionCard { .. } => SlotKind::DecisionCard,
            Slot::DecisionNote { .. } => SlotKind::DecisionNote,
        }
    }

    /// The message id for message-like slots (`Message`, `BotReply`).
    pub fn message_id(&self) -> Option<&str> {
        match self {
            Slot::Message { message_id, .. } | Slot::BotReply { message_id, .. } => {
                Some(message_id)
            }
            _ => None,
        }
    }

    /// The author the slot names, which must be the envelope's signer:
    /// `authorId` of a message or bot reply, `decidedBy` of a decision note.
    /// Trace steps and decision cards name none (their signer is the bot).
    pub fn author_id(&self) -> Option<&str> {
        match self {
            Slot::Message { author_id, .. } | Slot::BotReply { author_id, .. } => Some(author_id),
            Slot::DecisionNote { decided_by, .. } => Some(decided_by),
            _ => None,
        }
    }

    /// The stream id for slots that name one.
    pub fn stream_id(&self) -> Option<&str> {
        match self {
            Slot::Message { stream_id, .. }
            | Slot::BotReply { stream_id, .. }
            | Slot::DecisionCard { stream_id, .. } => Some(stream_id),
            _ => None,
        }
    }

    /// Checks the rules the AAD encoding needs: every string 1 to 1024 bytes,
    /// 1 to 64 decision options with distinct ids.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when a string is empty or over 1024 bytes, or a decision
    /// card has no options or more than 64; `INVALID_FIELD` when option ids
    /// repeat.
    pub fn validate(&self) -> Result<()> {
        // In the order `aad::encode` writes the fields, so that the first
        // broken rule is the one encoding reports.
        match self {
            Slot::Message {
                stream_id,
                message_id,
                author_id,
                author_type,
                revision: _,
            } => {
                check_str("streamId", stream_id)?;
                check_str("messageId", message_id)?;
                check_str("authorId", author_id)?;
                check_str("authorType", author_type)
            }
            Slot::BotReply {
                stream_id,
                message_id,
                author_id,
                invocation_id,
            } => {
                check_str("streamId", stream_id)?;
                check_str("messageId", message_id)?;
                check_str("authorId", author_id)?;
                check_str("invocationId", invocation_id)
            }
            Slot::TraceStep {
                invocation_id,
                step_id,
                step_type,
                phase: _,
                message_id,
            } => {
                check_str("invocationId", invocation_id)?;
                check_str("stepId", step_id)?;
                check_str("stepType", step_type)?;
                match message_id {
                    Some(id) => check_str("messageId", id),
                    None => Ok(()),
                }
            }
            Slot::DecisionCard {
                stream_id,
                decision_id,
                invocation_id,
                runtime_session_id,
                options,
                allow_note: _,
            } => {
                Self::check_options(options)?;
                check_str("streamId", stream_id)?;
                check_str("decisionId", decision_id)?;
                check_str("invocationId", invocation_id)?;
                check_str("runtimeSessionId", runtime_session_id)?;
                options.iter().try_for_each(|option| {
                    check_str("options.id", &option.id)?;
                    check_str("options.tone", &option.tone)
                })
            }
            Slot::DecisionNote {
                decision_id,
                option_id,
                decided_by,
            } => {
                check_str("decisionId", decision_id)?;
                check_str("optionId", option_id)?;
                check_str("decidedBy", decided_by)
            }
        }
    }

    pub(crate) fn check_options(options: &[DecisionOption]) -> Result<()> {
        if options.is_empty() || options.len() > MAX_DECISION_OPTIONS {
            return Err(Error::length("options", "1..=64", options.len()));
        }
        let mut ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
        ids.sort_unstable();
        if ids.windows(2).any(|w| w.first() == w.get(1)) {
            return Err(Error::invalid("options", "option ids must be distinct"));
        }
        Ok(())
    }
}
