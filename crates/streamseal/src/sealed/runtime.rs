//! A bot runtime's side of a sealed invocation: open the claimed
//! invocation's `sealedContext`, then seal what goes back.
//!
//! Opening ([`OpenedInvocation::open`]) goes through the runtime's
//! [`StreamState`] of the root stream and its [`TrustStore`]:
//! 1. an invocation without `sealedContext` on a root the state knows to be
//!    sealed is `SEALED_STREAM_DOWNGRADE`;
//! 2. `reply.senderId` must be the runtime's own bot id
//!    (`REPLY_SENDER_MISMATCH`): the server cannot make the runtime seal a
//!    reply under the owner's name;
//! 3. the `wraps` (at most [`MAX_CONTEXT_WRAPS`]; they name no recipient, so
//!    each is tried with each of the runtime's keys and each accepted
//!    sender, within [`MAX_CONTEXT_TRIALS`] opens) are admitted only as made
//!    by an accepted sender (see [`crate::sealed::keyring`]): a generation the
//!    server minted is skipped with `UNTRUSTED_WRAP`, never sealed under;
//! 4. the prompt's author must be the owner the state pinned
//!    (`UNEXPECTED_AUTHOR`); the prompt is the trigger message's own
//!    ciphertext, opened as the message slot of `activeStreamId` /
//!    `sourceMessageId` / `authorUserId` / `sourceRevision`
//!    (`trigger.messageId` must name the same message). A prompt already
//!    acted on by another invocation is `PROMPT_REPLAYED`. Any failure of
//!    the prompt fails the invocation;
//! 5. each `history` item carries a sequence but no message id: it is opened
//!    as any message or bot reply of the root stream, item by item
//!    ([`HistoryItem::Opened`] with the slot its AAD bound, or
//!    [`HistoryItem::Failed`] with the code): one bad item does not hide the rest.
//!
//! Sealing: replies and follow-up messages are [`Slot::BotReply`]s under the
//! state's sealing generation (never below its high-water, whatever
//! `reply.keyGeneration` says), authored by the runtime's bot, in the response
//! stream, bound to the invocation and a client-minted message id; steps are
//! [`Slot::TraceStep`]s bound to the invocation, step id, step type and phase.
//! Seals count against the generation's budget in the state.
use std::fmt;

use crate::envelope::{SealedPayload, open, open_matching, seal};
use crate::error::{Error, ErrorCode, Result};
use crate::identity::{IdentityKey, MAX_KEYS};
use crate::sealed::keyring::{WrapsReport, admit_wraps};
use crate::sealed::state::StreamState;
use crate::sealed::utf8;
use crate::slot::{DecisionOption, Slot, SlotKind, StepPhase};
use crate::stream_key::Keyring;
use crate::trust::TrustStore;
use crate::wire::events::{SealedStepFrame, SealedSteps};
use crate::wire::ids::{DecisionId, MessageId};
use crate::wire::invocation::Invocation;
use crate::wire::requests::Validate;
use crate::wire::requests::decisions::CreateDecisionRequest;
use crate::wire::requests::invocation::{
    CompleteSealedReply, SealedCompleteRequest, SealedMessageRequest, SealedReply,
    SealedStepRequest, SealedStepStartedRequest, StepType,
};
use crate::wire::secret::CallbackToken;

/// Most wraps a `sealedContext` may carry.
pub const MAX_CONTEXT_WRAPS: usize = 32;
/// Most HPKE opens opening one `sealedContext` may cost (wraps x the
/// runtime's keys x accepted senders); more is `INPUT_TOO_LARGE`.
pub const MAX_CONTEXT_TRIALS: usize = 4096;

/// One opened history item.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct HistoryEntry {
    /// The item's role, as the server sent it.
    pub role: String,
    /// The item's sequence, as the server sent it.
    pub sequence: String,
    /// The slot the ciphertext is bound to (its stream, message id, author).
    pub slot: Slot,
    /// The plaintext.
    pub text: String,
}

impl fmt::Debug for HistoryEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HistoryEntry")
            .field("role", &self.role)
            .field("sequence", &self.sequence)
            .field("slot", &self.slot)
            .field("text", &"[redacted]")
            .finish()
    }
}

/// One history item: opened, or failed with its code.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(tag = "status", rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum HistoryItem {
    /// The item opened.
    Opened {
        /// What it holds.
        entry: HistoryEntry,
    },
    /// The item did not open.
    Failed {
        /// The item's role, as the server sent it.
        role: String,
        /// The item's sequence, as the server sent it.
        sequence: String,
        /// Why.
        code: ErrorCode,
    },
}

/// A claimed sealed invocation, opened.
pub struct OpenedInvocation {
    invocation_id: String,
    response_stream_id: String,
    bot_id: String,
    source_revision: u32,
    callback_token: CallbackToken,
    keyring: Keyring,
    wraps: WrapsReport,
    /// The prompt: the trigger message's text.
    pub prompt: String,
    /// The history, in the order the server sent it.
    pub history: Vec<HistoryItem>,
}

impl fmt::Debug for OpenedInvocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedInvocation")
            .field("invocation_id", &self.invocation_id)
            .field("response_stream_id", &self.response_stream_id)
            .field("bot_id", &self.bot_id)
            .field("keyring", &self.keyring)
            .field("wraps", &self.wraps)
            .field("prompt", &"[redacted]")
            .field("history", &self.history)
            .finish_non_exhaustive()
    }
}

impl OpenedInvocation {
    /// Opens `invocation` for the runtime of bot `bot_id` with its keys
    /// (at most 32), through its state of the root stream and its trust
    /// store (see the module docs). The state records the sealed flag, the
    /// generations admitted and the prompt acted on: persist it afterwards.
    pub fn open(
        invocation: &Invocation,
        state: &mut StreamState,
        trust: &TrustStore,
        bot_id: &str,
        mine: &[IdentityKey],
    ) -> Result<Self> {
        if mine.len() > MAX_KEYS {
            return Err(Error::TooManyKeys {
                limit: MAX_KEYS,
                actual: mine.len(),
            });
        }
        if state.root_stream_id() != invocation.root_stream_id {
            return Err(Error::invalid(
                "rootStreamId",
                "the stream state is of another root stream",
            ));
        }
        let Some(ctx) = invocation.sealed_context.as_ref() else {
            return Err(if state.is_sealed() {
                Error::SealedStreamDowngrade {
                    reason: "a plaintext invocation on a sealed root",
                }
            } else {
                Error::invalid("sealedContext", "the invocation is not sealed")
            });
        };
        if ctx.trigger.message_id != invocation.source_message_id {
            return Err(Error::invalid(
                "sealedContext.trigger.messageId",
                "does not name the invocation's sourceMessageId",
            ));
        }
        if ctx.reply.sender_id != bot_id {
            return Err(Error::ReplySenderMismatch {
                expected: bot_id.to_owned(),
                actual: ctx.reply.sender_id.clone(),
            });
        }
        if ctx.wraps.len() > MAX_CONTEXT_WRAPS {
            return Err(Error::InputTooLarge {
                field: "sealedContext.wraps",
                limit: MAX_CONTEXT_WRAPS,
                actual: ctx.wraps.len(),
            });
        }
        let trials = ctx
            .wraps
            .len()
            .saturating_mul(mine.len())
            .saturating_mul(state.senders().len().saturating_add(mine.len()));
        if trials > MAX_CONTEXT_TRIALS {
            return Err(Error::InputTooLarge {
                field: "sealedContext.wraps",
                limit: MAX_CONTEXT_TRIALS,
                actual: trials,
            });
        }
        let owner = state
            .owner_user_id()
            .ok_or_else(|| {
                Error::invalid("ownerUserId", "the stream state names no owner to act for")
            })?
            .to_owned();
        if invocation.author_user_id != owner {
            return Err(Error::UnexpectedAuthor {
                expected: owner,
                actual: invocation.author_user_id.clone(),
            });
        }
        state.mark_sealed();
        let wraps = admit_wraps(state, trust, &ctx.wraps, mine)?;
        if state.keyring().generations().is_empty() {
            return Err(Error::UntrustedWrap);
        }
        // Sealing never goes below the high-water; a newer announced
        // generation whose key is missing makes this invocation's sealing
        // fail instead. The announcement stays with this invocation: a forged
        // `reply.keyGeneration` cannot stop the runtime sealing elsewhere.
        let mut keyring = state.keyring().clone();
        keyring.announce(ctx.reply.key_generation);

        let prompt_slot = Slot::invocation_prompt(
            invocation.active_stream_id.clone(),
            invocation.source_message_id.clone(),
            invocation.author_user_id.clone(),
            invocation.source_revision,
        );
        let prompt = utf8(open(&keyring, &prompt_slot, &ctx.prompt)?)?;
        state.record_prompt(
            &invocation.id,
            &invocation.source_message_id,
            invocation.source_revision,
        )?;

        let history = ctx
            .history
            .iter()
            .map(|item| {
                let opened = open_matching(&keyring, &item.payload(), |s| {
                    matches!(s.kind(), SlotKind::Message | SlotKind::BotReply)
                })
                .and_then(|(slot, plain)| Ok((slot, utf8(plain)?)));
                match opened {
                    Ok((slot, text)) => HistoryItem::Opened {
                        entry: HistoryEntry {
                            role: item.role.clone(),
                            sequence: item.sequence.to_string(),
                            slot,
                            text,
                        },
                    },
                    Err(e) => HistoryItem::Failed {
                        role: item.role.clone(),
                        sequence: item.sequence.to_string(),
                        code: e.code(),
                    },
                }
            })
            .collect();
        Ok(OpenedInvocation {
            invocation_id: invocation.id.clone(),
            response_stream_id: invocation.response_stream_id.clone(),
            bot_id: bot_id.to_owned(),
            source_revision: invocation.source_revision,
            callback_token: ctx.callback_token.clone(),
            keyring,
            wraps,
            prompt,
            history,
        })
    }

    /// What the `sealedContext` wraps did: generations admitted, wraps
    /// skipped (a minted generation shows here as `UNTRUSTED_WRAP`), conflicts.
    pub fn wraps(&self) -> &WrapsReport {
        &self.wraps
    }

    /// The keyring of the root stream (a clone of the state's: seals count in the state).
    pub fn keyring(&self) -> &Keyring {
        &self.keyring
    }

    /// The invocation id.
    pub fn invocation_id(&self) -> &str {
        &self.invocation_id
    }

    /// The token for `X-Service-Callback-Token` on sealed calls.
    pub fn callback_token(&self) -> &CallbackToken {
        &self.callback_token
    }

    fn seal_bot_message(&self, message_id: &MessageId, text: &str) -> Result<SealedPayload> {
        let slot = Slot::BotReply {
            stream_id: self.response_stream_id.clone(),
            message_id: message_id.as_str().to_owned(),
            author_id: self.bot_id.clone(),
            invocation_id: self.invocation_id.clone(),
        };
        seal(&self.keyring, &slot, text.as_bytes())
    }

    /// The `sealed-complete` body with the reply `text` under `message_id`.
    pub fn seal_reply(&self, message_id: &MessageId, text: &str) -> Result<SealedCompleteRequest> {
        let body = SealedCompleteRequest {
            source_revision: Some(self.source_revision),
            reply: Some(SealedReply {
                message_id: message_id.as_str().to_owned(),
                sealed: self.seal_bot_message(message_id, text)?,
                attachment_ids: None,
            }),
            no_response: None,
        };
        body.validate()?;
        Ok(body)
    }

    /// The `sealedReply` of a `complete` body.
    pub fn seal_complete_reply(
        &self,
        message_id: &MessageId,
        text: &str,
    ) -> Result<CompleteSealedReply> {
        Ok(CompleteSealedReply {
            message_id: message_id.as_str().to_owned(),
            sealed: self.seal_bot_message(message_id, text)?,
        })
    }

    /// A `sealed-messages` body: a follow-up message of the invocation.
    pub fn seal_message(&self, message_id: &MessageId, text: &str) -> Result<SealedMessageRequest> {
        let body = SealedMessageRequest {
            message_id: message_id.as_str().to_owned(),
            sealed: self.seal_bot_message(message_id, text)?,
            attachment_ids: None,
        };
        body.validate()?;
        Ok(body)
    }

    fn seal_step_payload(
        &self,
        step_id: &str,
        step_type: &StepType,
        phase: StepPhase,
        message_id: Option<&str>,
        text: &str,
    ) -> Result<SealedPayload> {
        let slot = Slot::TraceStep {
            invocation_id: self.invocation_id.clone(),
            step_id: step_id.to_owned(),
            step_type: step_type.as_str().to_owned(),
            phase,
            message_id: message_id.map(str::to_owned),
        };
        seal(&self.keyring, &slot, text.as_bytes())
    }

    /// A `sealed-steps/started` body; `text` (the in-flight content) is optional.
    pub fn seal_step_started(
        &self,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        text: Option<&str>,
    ) -> Result<SealedStepStartedRequest> {
        let sealed = text
            .map(|t| self.seal_step_payload(step_id, step_type, StepPhase::Started, message_id, t))
            .transpose()?;
        let body = SealedStepStartedRequest {
            step_id: step_id.to_owned(),
            step_type: step_type.clone(),
            message_id: message_id.map(str::to_owned),
            ciphertext: sealed.as_ref().map(|s| s.ciphertext.clone()),
            envelope: sealed.map(|s| s.envelope),
        };
        body.validate()?;
        Ok(body)
    }

    /// A `sealed-steps` body: the finalised step.
    pub fn seal_step(
        &self,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        text: &str,
        duration_ms: Option<u64>,
    ) -> Result<SealedStepRequest> {
        let body = SealedStepRequest {
            step_id: step_id.to_owned(),
            step_type: step_type.clone(),
            sealed: self.seal_step_payload(
                step_id,
                step_type,
                StepPhase::Completed,
                message_id,
                text,
            )?,
            message_id: message_id.map(str::to_owned),
            duration_ms,
        };
        body.validate()?;
        Ok(body)
    }

    /// The `bot:invocation:sealed-steps` socket payload carrying finalised steps.
    pub fn step_frames(&self, steps: &[SealedStepRequest]) -> SealedSteps {
        SealedSteps {
            invocation_id: self.invocation_id.clone(),
            callback_token: self.callback_token.clone(),
            steps: steps
                .iter()
                .map(|s| SealedStepFrame {
                    step_id: s.step_id.clone(),
                    step_type: s.step_type.clone(),
                    message_id: s.message_id.clone(),
                    ciphertext: Some(s.sealed.ciphertext.clone()),
                    envelope: Some(s.sealed.envelope.clone()),
                    duration_ms: s.duration_ms,
                })
                .collect(),
        }
    }

    /// A sealed decision card posted from this invocation.
    pub fn seal_decision_card(
        &self,
        stream_id: &str,
        decision_id: &DecisionId,
        options: Vec<DecisionOption>,
        allow_note: bool,
        content: &crate::sealed::decisions::DecisionCardContent,
        runtime_session_id: &str,
    ) -> Result<CreateDecisionRequest> {
        crate::sealed::decisions::seal_decision_card(
            &self.keyring,
            crate::sealed::decisions::CardPlacement {
                stream_id,
                decision_id,
                runtime_session_id,
                invocation_id: &self.invocation_id,
            },
            options,
            allow_note,
            content,
        )
    }
}

/// Opens a sealed trace step as a viewer: `phase` says whether it is the
/// started or the finalised record.
pub fn open_step(
    keyring: &Keyring,
    invocation_id: &str,
    step_id: &str,
    step_type: &StepType,
    phase: StepPhase,
    message_id: Option<&str>,
    sealed: &SealedPayload,
) -> Result<String> {
    let slot = Slot::TraceStep {
        invocation_id: invocation_id.to_owned(),
        step_id: step_id.to_owned(),
        step_type: step_type.as_str().to_owned(),
        phase,
        message_id: message_id.map(str::to_owned),
    };
    utf8(open(keyring, &slot, sealed)?)
}
