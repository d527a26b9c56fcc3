//! A bot runtime's side of a sealed invocation: open the claimed
//! invocation's `sealedContext`, then seal what goes back.
//!
//! Opening ([`OpenedInvocation::open`]):
//! 1. the `wraps` (which name no recipient) are opened with the runtime's
//!    keys, at most 32, into the keyring of `rootStreamId`;
//! 2. the `prompt` is the trigger message's own ciphertext, opened as the
//!    message slot of `activeStreamId` / `sourceMessageId` / `authorUserId` /
//!    `sourceRevision` (`trigger.messageId` must name the same message);
//! 3. each `history` item carries a sequence but no message id: it is opened
//!    as any message or bot reply of the root stream, and the slot the AAD
//!    bound (stream, message id, author) is returned with it.
//!
//! Sealing: replies and follow-up messages are [`Slot::BotReply`]s under
//! `reply.keyGeneration` (or the newest generation the wraps gave, if newer), authored by `reply.senderId`, in the response
//! stream, bound to the invocation and a client-minted message id; steps are
//! [`Slot::TraceStep`]s bound to the invocation, step id, step type and phase.

use crate::envelope::{SealedPayload, open, open_matching, seal_with_generation};
use crate::error::{Error, Result};
use crate::identity::{IdentityKey, MAX_KEYS};
use crate::sealed::keyring::{add_wraps, announce};
use crate::sealed::utf8;
use crate::slot::{DecisionOption, Slot, SlotKind, StepPhase};
use crate::stream_key::Keyring;
use crate::wire::events::{SealedStepFrame, SealedSteps};
use crate::wire::ids::{DecisionId, MessageId};
use crate::wire::invocation::{Invocation, SealedContext};
use crate::wire::requests::Validate;
use crate::wire::requests::decisions::CreateDecisionRequest;
use crate::wire::requests::invocation::{
    CompleteSealedReply, SealedCompleteRequest, SealedMessageRequest, SealedReply,
    SealedStepRequest, SealedStepStartedRequest, StepType,
};
use crate::wire::secret::CallbackToken;

/// One opened history item.
#[derive(Clone, Debug, PartialEq, Eq)]
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

/// A claimed sealed invocation, opened.
#[derive(Debug)]
pub struct OpenedInvocation {
    invocation_id: String,
    response_stream_id: String,
    reply_generation: u32,
    sender_id: String,
    source_revision: u32,
    callback_token: CallbackToken,
    keyring: Keyring,
    /// The prompt: the trigger message's text.
    pub prompt: String,
    /// The history, in the order the server sent it.
    pub history: Vec<HistoryEntry>,
}

fn context(invocation: &Invocation) -> Result<&SealedContext> {
    invocation
        .sealed_context
        .as_ref()
        .ok_or_else(|| Error::invalid("sealedContext", "the invocation is not sealed"))
}

impl OpenedInvocation {
    /// Opens `invocation` with the runtime's keys (at most 32).
    pub fn open(invocation: &Invocation, mine: &[IdentityKey]) -> Result<Self> {
        if mine.len() > MAX_KEYS {
            return Err(Error::TooManyKeys {
                limit: MAX_KEYS,
                actual: mine.len(),
            });
        }
        let ctx = context(invocation)?;
        if ctx.trigger.message_id != invocation.source_message_id {
            return Err(Error::invalid(
                "sealedContext.trigger.messageId",
                "does not name the invocation's sourceMessageId",
            ));
        }
        let mut keyring = Keyring::new(invocation.root_stream_id.clone())?;
        add_wraps(&mut keyring, &ctx.wraps, mine)?;
        if keyring.generations().is_empty() {
            return Err(Error::WrapOpenFailed);
        }
        // Never below the newest generation held: a server naming an older
        // `reply.keyGeneration` must not get a reply a removed member can read.
        announce(&mut keyring, ctx.reply.key_generation);
        let reply_generation = keyring
            .current_generation()
            .unwrap_or(ctx.reply.key_generation);

        let prompt_slot = Slot::invocation_prompt(
            invocation.active_stream_id.clone(),
            invocation.source_message_id.clone(),
            invocation.author_user_id.clone(),
            invocation.source_revision,
        );
        let prompt = utf8(open(&keyring, &prompt_slot, &ctx.prompt)?)?;

        let mut history = Vec::with_capacity(ctx.history.len());
        for item in &ctx.history {
            let (slot, plain) = open_matching(&keyring, &item.payload(), |s| {
                matches!(s.kind(), SlotKind::Message | SlotKind::BotReply)
            })?;
            history.push(HistoryEntry {
                role: item.role.clone(),
                sequence: item.sequence.to_string(),
                slot,
                text: utf8(plain)?,
            });
        }
        Ok(OpenedInvocation {
            invocation_id: invocation.id.clone(),
            response_stream_id: invocation.response_stream_id.clone(),
            reply_generation,
            sender_id: ctx.reply.sender_id.clone(),
            source_revision: invocation.source_revision,
            callback_token: ctx.callback_token.clone(),
            keyring,
            prompt,
            history,
        })
    }

    /// The keyring of the root stream as the wraps gave it.
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
            author_id: self.sender_id.clone(),
            invocation_id: self.invocation_id.clone(),
        };
        seal_with_generation(&self.keyring, self.reply_generation, &slot, text.as_bytes())
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
        seal_with_generation(&self.keyring, self.reply_generation, &slot, text.as_bytes())
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
