//! A bot runtime's side of a sealed invocation: open the claimed
//! invocation's `sealedContext`, then seal what goes back.
//!
//! Opening ([`OpenedInvocation::open`]) goes through the runtime's
//! [`StreamState`] of the root stream and its [`SenderKeys`] (its
//! [`streamseal_crypto::trust::TrustStore`], plus keys the server presented):
//! 1. an invocation without `sealedContext` on a root the state knows to be
//!    sealed is `SEALED_STREAM_DOWNGRADE`;
//! 2. `reply.senderId` must be the runtime's own bot id
//!    (`REPLY_SENDER_MISMATCH`): the server cannot make the runtime seal a
//!    reply under the owner's name;
//! 3. the `wraps` (at most [`MAX_CONTEXT_WRAPS`]; they name no recipient, so
//!    each is tried with each of the runtime's keys and each accepted
//!    sender, within [`MAX_CONTEXT_TRIALS`] opens) are admitted only as made
//!    by an accepted sender (see [`crate::key_wraps`]): a generation the
//!    server minted is skipped with `UNTRUSTED_WRAP`, never sealed under;
//! 4. the prompt's author must be the owner the state pinned
//!    (`UNEXPECTED_AUTHOR`); the prompt is the trigger message's own
//!    ciphertext, opened as the message slot of `activeStreamId` /
//!    `sourceMessageId` / `authorUserId` / `trigger.authorType` /
//!    `sourceRevision` (`trigger.messageId` must name the same message). It
//!    must be sealed under the newest generation the runtime holds
//!    (`STALE_KEY_GENERATION`: a member removed at an older generation, or a
//!    replay, cannot hand it work) and signed by the owner's key as the trust
//!    store pins it under its policy (a key the server merely presented does
//!    not count for a prompt) (`SENDER_MISMATCH` for another key
//!    holder's signature; `KEY_NOT_VERIFIED` for an unverified owner key
//!    under `verified-only`). A prompt already acted on by another invocation
//!    is `PROMPT_REPLAYED`. Any failure of the prompt fails the invocation;
//! 5. each `history` item carries a sequence but no message id: it is opened
//!    as any message or bot reply of the root stream or its threads (the AAD's
//!    root must be the invocation's), item by item ([`HistoryItem::Opened`]
//!    with the slot its AAD bound and who sealed it, or [`HistoryItem::Failed`]
//!    with the code): one bad item does not hide the rest, and a repeat of a
//!    message and revision already opened is `DUPLICATE_MESSAGE`.
//!
//! Sealing: everything is signed by the runtime's first key in `mine`, as
//! its bot. Replies and follow-up messages are [`Slot::BotReply`]s under the
//! state's sealing generation (never below its high-water, whatever
//! `reply.keyGeneration` says), authored by the runtime's bot, in the response
//! stream, bound to the invocation and a client-minted message id; steps are
//! [`Slot::TraceStep`]s bound to the invocation, step id, step type and phase.
//! Seals count against the generation's budget in the state.
use std::collections::BTreeSet;
use std::fmt;

use crate::key_wraps::{WrapsReport, admit_wraps_with_platform_dh};
use crate::state::StreamState;
use crate::{refuse_stale, utf8};
use streamseal_crypto::envelope::{
    Opened, PendingOpen, PendingSeal, SealedPayload, prepare_open, prepare_seal,
};

use crate::pending::{Pending, PendingSealed};
use streamseal_crypto::error::{CryptoError, Error, ErrorCode, Result};
use streamseal_crypto::hazmat::{PlatformDh, prepare_seal_with};
use streamseal_crypto::identity::{IdentityKey, MAX_KEYS};
use streamseal_crypto::random::{OsRng, Source};
use streamseal_crypto::sender::{SealedBy, SenderKeys, Signer};
use streamseal_crypto::slot::{DecisionOption, Slot, SlotKind, StepPhase};
use streamseal_crypto::stream_key::Keyring;
use streamseal_wire::Extra;
use streamseal_wire::events::{SealedStepFrame, SealedSteps};
use streamseal_wire::ids::{DecisionId, MessageId};
use streamseal_wire::invocation::{Invocation, SealedContext};
use streamseal_wire::requests::Validate;
use streamseal_wire::requests::decisions::CreateDecisionRequest;
use streamseal_wire::requests::invocation::{
    CompleteSealedReply, SealedCompleteRequest, SealedMessageRequest, SealedReply,
    SealedStepRequest, SealedStepStartedRequest, StepType,
};
use streamseal_wire::secret::CallbackToken;

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
    /// The generation it was sealed under.
    pub key_generation: u32,
    /// Who sealed it (the slot's author), and whether its key is verified.
    pub sealed_by: SealedBy,
    /// The plaintext.
    pub text: String,
}

impl fmt::Debug for HistoryEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HistoryEntry")
            .field("role", &self.role)
            .field("sequence", &self.sequence)
            .field("slot", &self.slot)
            .field("key_generation", &self.key_generation)
            .field("sealed_by", &self.sealed_by)
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
// Boxing the entry would cost UniFFI its plain record shape; a history is
// a few dozen items.
#[allow(clippy::large_enum_variant)]
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
    signer: IdentityKey,
    /// The prompt: the trigger message's text.
    pub prompt: String,
    /// Who sealed the prompt (the owner), and whether its key is verified.
    pub prompt_sealed_by: SealedBy,
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
            .field("prompt_sealed_by", &self.prompt_sealed_by)
            .field("history", &self.history)
            .finish_non_exhaustive()
    }
}

/// What an [`OpenedInvocation`] holds besides its prompt and history.
struct Skeleton {
    invocation_id: String,
    response_stream_id: String,
    bot_id: String,
    source_revision: u32,
    callback_token: CallbackToken,
    keyring: Keyring,
    wraps: WrapsReport,
    signer: IdentityKey,
}

/// A history item checked up to its AES-GCM part, or refused before it.
struct PendingHistoryItem {
    role: String,
    sequence: String,
    pending: Result<Pending<Opened>>,
}

/// A claimed invocation checked up to the AES-GCM of its prompt and
/// history ([`OpenedInvocation::prepare`]). It holds the invocation's
/// keyring (a copy of the state's, with the reply's announcement) and the
/// runtime's signing key, no plaintext. Completed in two stages, the prompt
/// first ([`Self::open_prompt`]: nothing of the history is decrypted or
/// verified before the prompt has opened and been recorded), then the
/// history ([`PromptOpened::finish`]); [`Self::finish_with`] runs both.
pub struct PendingInvocation {
    /// The [`StreamState`] prepared against: the only one that may record
    /// the prompt.
    state_instance: u64,
    root_stream_id: String,
    source_message_id: String,
    skeleton: Skeleton,
    prompt: Pending<Opened>,
    history: Vec<PendingHistoryItem>,
}

impl fmt::Debug for PendingInvocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingInvocation")
            .field("invocation_id", &self.skeleton.invocation_id)
            .field("prompt", &self.prompt)
            .field("history", &self.history.len())
            .finish_non_exhaustive()
    }
}

impl PendingInvocation {
    /// The prompt's envelope, left to decrypt.
    pub fn prompt(&self) -> &PendingOpen {
        self.prompt.envelope()
    }

    /// The keyring the envelopes open under (the state's generations, with
    /// the reply's announcement).
    pub fn keyring(&self) -> &Keyring {
        &self.skeleton.keyring
    }

    /// Completes the prompt: `complete(pending, keyring)` opens it (here
    /// with [`Pending::open`], or with [`Pending::finish`] after a
    /// platform's AES-GCM); it must be UTF-8; then `state`, the very object
    /// [`OpenedInvocation::prepare`] was given, records it as acted on.
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` when `state` is of another root stream, or is another
    /// object than the one prepared against (a copy, or another state of the
    /// same root: recording the prompt there would let the prepared state
    /// act on it again), or the prompt is not UTF-8; the prompt's refusal
    /// (`DECRYPTION_FAILED`, `SENDER_MISMATCH`, ...); `PROMPT_REPLAYED` when
    /// another invocation acted on it.
    pub fn open_prompt(
        self,
        state: &mut StreamState,
        complete: impl FnOnce(Pending<Opened>, &Keyring) -> Result<Opened>,
    ) -> Result<PromptOpened> {
        if state.root_stream_id() != self.root_stream_id {
            return Err(Error::invalid(
                "rootStreamId",
                "the stream state is of another root stream",
            ));
        }
        if state.instance() != self.state_instance {
            return Err(Error::invalid(
                "state",
                "not the stream state this invocation was prepared with",
            ));
        }
        let opened = complete(self.prompt, &self.skeleton.keyring)?;
        let prompt_sealed_by = opened.sealed_by;
        let prompt = utf8(opened.plaintext)?;
        state.record_prompt(
            &self.skeleton.invocation_id,
            &self.source_message_id,
            self.skeleton.source_revision,
        )?;
        Ok(PromptOpened {
            skeleton: self.skeleton,
            prompt,
            prompt_sealed_by,
            history: self.history,
        })
    }

    /// Both stages: the prompt with `complete(0, ...)`, then history item
    /// `i` with `complete(i + 1, ...)` (see [`Self::open_prompt`] and
    /// [`PromptOpened::finish`]).
    ///
    /// # Errors
    ///
    /// As [`Self::open_prompt`].
    pub fn finish_with(
        self,
        state: &mut StreamState,
        mut complete: impl FnMut(usize, Pending<Opened>, &Keyring) -> Result<Opened>,
    ) -> Result<OpenedInvocation> {
        let opened = self.open_prompt(state, |pending, keyring| complete(0, pending, keyring))?;
        Ok(opened
            .finish(|index, pending, keyring| complete(index.saturating_add(1), pending, keyring)))
    }
}

/// An invocation whose prompt has opened and been recorded as acted on
/// ([`PendingInvocation::open_prompt`]); its history is left to open.
pub struct PromptOpened {
    skeleton: Skeleton,
    prompt: String,
    prompt_sealed_by: SealedBy,
    history: Vec<PendingHistoryItem>,
}

impl fmt::Debug for PromptOpened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PromptOpened")
            .field("invocation_id", &self.skeleton.invocation_id)
            .field("prompt", &"[redacted]")
            .field("history", &self.history.len())
            .finish_non_exhaustive()
    }
}

impl PromptOpened {
    /// The history's envelopes left to decrypt, in order (`None` for an
    /// item refused before AES-GCM, reported with its code by
    /// [`Self::finish`]).
    pub fn history(&self) -> impl Iterator<Item = Option<&PendingOpen>> {
        self.history
            .iter()
            .map(|item| item.pending.as_ref().ok().map(Pending::envelope))
    }

    /// The keyring the history opens under.
    pub fn keyring(&self) -> &Keyring {
        &self.skeleton.keyring
    }

    /// Completes the history, item by item: `complete(index, pending,
    /// keyring)` opens item `index` of [`Self::history`]; a repeat of a
    /// message and revision already opened is `DUPLICATE_MESSAGE` (checked
    /// on the slot, before its text is read), a text that is not UTF-8
    /// `INVALID_FIELD`.
    pub fn finish(
        self,
        mut complete: impl FnMut(usize, Pending<Opened>, &Keyring) -> Result<Opened>,
    ) -> OpenedInvocation {
        let skeleton = self.skeleton;
        // A B-tree, not a hash set: in WebAssembly the standard library seeds
        // its hash sets from memory addresses (`hazmat::PlatformDh`).
        let mut seen = BTreeSet::new();
        let history = self
            .history
            .into_iter()
            .enumerate()
            .map(|(index, item)| {
                let opened = item
                    .pending
                    .and_then(|pending| complete(index, pending, &skeleton.keyring))
                    .and_then(|o| {
                        let (id, revision) = match &o.slot {
                            Slot::Message {
                                message_id,
                                revision,
                                ..
                            } => (message_id.clone(), *revision),
                            other => (other.message_id().unwrap_or_default().to_owned(), 1),
                        };
                        if !seen.insert((id.clone(), revision)) {
                            return Err(Error::DuplicateMessage {
                                message_id: id,
                                revision,
                            });
                        }
                        Ok((o.slot, o.key_generation, o.sealed_by, utf8(o.plaintext)?))
                    });
                match opened {
                    Ok((slot, key_generation, sealed_by, text)) => HistoryItem::Opened {
                        entry: HistoryEntry {
                            role: item.role,
                            sequence: item.sequence,
                            slot,
                            key_generation,
                            sealed_by,
                            text,
                        },
                    },
                    Err(e) => HistoryItem::Failed {
                        role: item.role,
                        sequence: item.sequence,
                        code: e.code(),
                    },
                }
            })
            .collect();
        OpenedInvocation {
            invocation_id: skeleton.invocation_id,
            response_stream_id: skeleton.response_stream_id,
            bot_id: skeleton.bot_id,
            source_revision: skeleton.source_revision,
            callback_token: skeleton.callback_token,
            keyring: skeleton.keyring,
            wraps: skeleton.wraps,
            signer: skeleton.signer,
            prompt: self.prompt,
            prompt_sealed_by: self.prompt_sealed_by,
            history,
        }
    }
}

impl OpenedInvocation {
    /// Opens `invocation` for the runtime of bot `bot_id` with its keys
    /// (1 to 32; the first signs what the runtime seals), through its state
    /// of the root stream and the sender keys of its trust store (see the
    /// module docs; its own keys are added as `bot_id`'s). The state records
    /// the sealed flag, the generations admitted and the prompt acted on:
    /// persist it afterwards.
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` when `mine` is empty, `state` is of another root, the
    /// invocation is not sealed (on a root not known to be sealed),
    /// `trigger.messageId` is not `sourceMessageId`, the state names no owner,
    /// or the prompt is not UTF-8; `INVALID_LENGTH` when `bot_id` is empty or
    /// over 1024 bytes; `TOO_MANY_KEYS` when `mine` (or the senders with it)
    /// holds more than 32 keys; `SEALED_STREAM_DOWNGRADE`;
    /// `REPLY_SENDER_MISMATCH`; `INPUT_TOO_LARGE` when the wraps exceed
    /// [`MAX_CONTEXT_WRAPS`] or [`MAX_CONTEXT_TRIALS`]; `UNEXPECTED_AUTHOR`
    /// when the prompt's author is not the owner; `UNTRUSTED_WRAP` when no
    /// generation is held after the wraps; `STALE_KEY_GENERATION`; for the
    /// prompt as [`streamseal_crypto::envelope::open`] (`AAD_MISMATCH`, `SENDER_MISMATCH`,
    /// `KEY_NOT_VERIFIED`, ...); `PROMPT_REPLAYED`.
    pub fn open(
        invocation: &Invocation,
        state: &mut StreamState,
        senders: &SenderKeys<'_>,
        bot_id: &str,
        mine: &[IdentityKey],
    ) -> Result<Self> {
        Self::open_with_platform_dh(
            invocation,
            state,
            senders,
            bot_id,
            mine,
            &mut PlatformDh::new(),
        )
    }

    /// [`Self::open`] with the X25519 results of the context's key wraps
    /// from `dh` (see [`Self::prepare_to_open_with_platform_dh`]).
    ///
    /// # Errors
    ///
    /// As [`Self::open`].
    pub fn open_with_platform_dh(
        invocation: &Invocation,
        state: &mut StreamState,
        senders: &SenderKeys<'_>,
        bot_id: &str,
        mine: &[IdentityKey],
        dh: &mut PlatformDh,
    ) -> Result<Self> {
        Self::prepare_parts(
            InvocationParts::of(invocation),
            state,
            senders,
            bot_id,
            mine,
            dh,
        )?
        .finish_with(state, |_, pending, keyring| pending.open(keyring))
    }

    /// [`Self::open`] up to the AES-GCM of the prompt and the history: every
    /// check before decryption runs here, in the same order and with the
    /// same codes, and the state records what it records before the prompt
    /// opens (the sealed flag, the generations the wraps gave). A history
    /// item refused here is reported, with its code, on completion
    /// ([`PendingInvocation::finish_with`]), which opens the prompt, records
    /// it as acted on and opens the history.
    ///
    /// # Errors
    ///
    /// As [`Self::open`], but for those the prompt's AES-GCM, signature and
    /// text and `PROMPT_REPLAYED`, which the completion reports.
    pub fn prepare(
        invocation: &Invocation,
        state: &mut StreamState,
        senders: &SenderKeys<'_>,
        bot_id: &str,
        mine: &[IdentityKey],
    ) -> Result<PendingInvocation> {
        Self::prepare_parts(
            InvocationParts::of(invocation),
            state,
            senders,
            bot_id,
            mine,
            &mut PlatformDh::new(),
        )
    }

    /// [`Self::prepare`] of the parts of the invocation that opening reads
    /// ([`InvocationToOpen`]): the same checks, codes and records.
    ///
    /// # Errors
    ///
    /// As [`Self::prepare`].
    pub fn prepare_to_open(
        invocation: &InvocationToOpen,
        state: &mut StreamState,
        senders: &SenderKeys<'_>,
        bot_id: &str,
        mine: &[IdentityKey],
    ) -> Result<PendingInvocation> {
        Self::prepare_to_open_with_platform_dh(
            invocation,
            state,
            senders,
            bot_id,
            mine,
            &mut PlatformDh::new(),
        )
    }

    /// [`Self::prepare_to_open`] with the X25519 results of the context's
    /// key wraps from `dh` (what is not filed there computed here; e.g.
    /// results kept in a [`streamseal_crypto::hazmat::SenderDh`], so the
    /// owner's wraps open with one X25519 each): the same checks, codes and
    /// records.
    ///
    /// # Errors
    ///
    /// As [`Self::prepare`].
    pub fn prepare_to_open_with_platform_dh(
        invocation: &InvocationToOpen,
        state: &mut StreamState,
        senders: &SenderKeys<'_>,
        bot_id: &str,
        mine: &[IdentityKey],
        dh: &mut PlatformDh,
    ) -> Result<PendingInvocation> {
        Self::prepare_parts(
            InvocationParts::to_open(invocation),
            state,
            senders,
            bot_id,
            mine,
            dh,
        )
    }

    fn prepare_parts(
        invocation: InvocationParts<'_>,
        state: &mut StreamState,
        senders: &SenderKeys<'_>,
        bot_id: &str,
        mine: &[IdentityKey],
        dh: &mut PlatformDh,
    ) -> Result<PendingInvocation> {
        let Some(signer) = mine.first() else {
            return Err(Error::invalid("keys", "the runtime needs a key"));
        };
        Signer::new(bot_id, signer)?;
        if mine.len() > MAX_KEYS {
            return Err(Error::Crypto(CryptoError::TooManyKeys {
                limit: MAX_KEYS,
                actual: mine.len(),
            }));
        }
        if state.root_stream_id() != invocation.root_stream_id {
            return Err(Error::invalid(
                "rootStreamId",
                "the stream state is of another root stream",
            ));
        }
        let Some(ctx) = invocation.sealed_context else {
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
            return Err(Error::Crypto(CryptoError::InputTooLarge {
                field: "sealedContext.wraps",
                limit: MAX_CONTEXT_WRAPS,
                actual: ctx.wraps.len(),
            }));
        }
        let trials = ctx
            .wraps
            .len()
            .saturating_mul(mine.len())
            .saturating_mul(state.senders().len().saturating_add(mine.len()));
        if trials > MAX_CONTEXT_TRIALS {
            return Err(Error::Crypto(CryptoError::InputTooLarge {
                field: "sealedContext.wraps",
                limit: MAX_CONTEXT_TRIALS,
                actual: trials,
            }));
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
                actual: invocation.author_user_id.to_owned(),
            });
        }
        state.mark_sealed();
        let wraps = admit_wraps_with_platform_dh(state, senders.trust(), &ctx.wraps, mine, dh)?;
        if state.keyring().generations().is_empty() {
            return Err(Error::Crypto(CryptoError::UntrustedWrap));
        }
        // Sealing never goes below the high-water; a newer announced
        // generation whose key is missing makes this invocation's sealing
        // fail instead. The announcement stays with this invocation: a forged
        // `reply.keyGeneration` cannot stop the runtime sealing elsewhere.
        let mut keyring = state.keyring().clone();
        keyring.announce(ctx.reply.key_generation);

        let senders = mine
            .iter()
            .fold(senders.clone(), |keys, key| keys.with_own(bot_id, key));
        let prompt_slot = Slot::invocation_prompt(
            invocation.active_stream_id.to_owned(),
            invocation.source_message_id.to_owned(),
            invocation.author_user_id.to_owned(),
            ctx.trigger.author_type.as_str(),
            invocation.source_revision,
        );
        // New work: never from a generation older than the newest held.
        refuse_stale(state.keyring(), ctx.prompt.envelope.key_generation)?;
        // The one input the runtime acts on: checked against the keys its
        // trust store pins (and its own), never against presented keys.
        let prompt = prepare_open(&keyring, &senders.pinned_only(), &ctx.prompt, |s| {
            *s == prompt_slot
        })?;
        let history = ctx
            .history
            .iter()
            .map(|item| PendingHistoryItem {
                role: item.role.clone(),
                sequence: item.sequence.to_string(),
                pending: prepare_open(&keyring, &senders, &item.payload(), |s| {
                    matches!(s.kind(), SlotKind::Message | SlotKind::BotReply)
                })
                .map(|envelope| Pending::new(envelope, Ok))
                .map_err(Error::from),
            })
            .collect();
        Ok(PendingInvocation {
            state_instance: state.instance(),
            root_stream_id: invocation.root_stream_id.to_owned(),
            source_message_id: invocation.source_message_id.to_owned(),
            skeleton: Skeleton {
                invocation_id: invocation.id.to_owned(),
                response_stream_id: invocation.response_stream_id.to_owned(),
                bot_id: bot_id.to_owned(),
                source_revision: invocation.source_revision,
                callback_token: ctx.callback_token.clone(),
                keyring,
                wraps,
                signer: signer.clone(),
            },
            prompt: Pending::new(prompt, Ok),
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

    /// The runtime's bot, signing with its first key.
    fn signer(&self) -> Result<Signer<'_>> {
        Ok(Signer::new(&self.bot_id, &self.signer)?)
    }

    /// A bot message's seal (a reply or a follow-up) up to its AES-GCM,
    /// drawing from `rng`.
    fn prepare_bot_message_from(
        &self,
        rng: &mut dyn Source,
        message_id: &MessageId,
        text: &str,
    ) -> Result<PendingSeal> {
        let slot = Slot::BotReply {
            stream_id: self.response_stream_id.clone(),
            message_id: message_id.as_str().to_owned(),
            author_id: self.bot_id.clone(),
            invocation_id: self.invocation_id.clone(),
        };
        Ok(prepare_seal_with(
            rng,
            &self.keyring,
            &self.signer()?,
            &slot,
            text.as_bytes(),
        )?)
    }

    /// The `sealed-complete` body with the reply `text` under `message_id`.
    ///
    /// # Errors
    ///
    /// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
    /// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring
    /// has no usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the
    /// slot does not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext
    /// exceeds the size limit; `RANDOMNESS_UNAVAILABLE`; `VALIDATION_FAILED`
    /// when the body breaks the API's bounds.
    pub fn seal_reply(&self, message_id: &MessageId, text: &str) -> Result<SealedCompleteRequest> {
        self.prepare_seal_reply(message_id, text)?
            .encrypt(&self.keyring)
    }

    /// [`OpenedInvocation::seal_reply`] up to its AES-GCM (the seal
    /// counted, the signature made); the body is validated on completion,
    /// under [`OpenedInvocation::keyring`].
    ///
    /// # Errors
    ///
    /// As [`OpenedInvocation::seal_reply`], but for `VALIDATION_FAILED`,
    /// which the completion reports.
    pub fn prepare_seal_reply(
        &self,
        message_id: &MessageId,
        text: &str,
    ) -> Result<PendingSealed<SealedCompleteRequest>> {
        self.prepare_seal_reply_from(&mut OsRng, message_id, text)
    }

    /// [`OpenedInvocation::prepare_seal_reply`] drawing from `rng` (public
    /// under [`crate::hazmat`]).
    pub(crate) fn prepare_seal_reply_from(
        &self,
        rng: &mut dyn Source,
        message_id: &MessageId,
        text: &str,
    ) -> Result<PendingSealed<SealedCompleteRequest>> {
        let seal = self.prepare_bot_message_from(rng, message_id, text)?;
        let source_revision = self.source_revision;
        let message_id = message_id.as_str().to_owned();
        Ok(PendingSealed::new(seal, move |sealed| {
            let body = SealedCompleteRequest {
                source_revision: Some(source_revision),
                reply: Some(SealedReply {
                    message_id,
                    sealed,
                    attachment_ids: None,
                }),
                no_response: None,
            };
            body.validate()?;
            Ok(body)
        }))
    }

    /// The `sealedReply` of a `complete` body.
    ///
    /// # Errors
    ///
    /// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
    /// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring
    /// has no usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the
    /// slot does not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext
    /// exceeds the size limit; `RANDOMNESS_UNAVAILABLE`.
    pub fn seal_complete_reply(
        &self,
        message_id: &MessageId,
        text: &str,
    ) -> Result<CompleteSealedReply> {
        self.prepare_seal_complete_reply(message_id, text)?
            .encrypt(&self.keyring)
    }

    /// [`OpenedInvocation::seal_complete_reply`] up to its AES-GCM.
    ///
    /// # Errors
    ///
    /// As [`OpenedInvocation::seal_complete_reply`].
    pub fn prepare_seal_complete_reply(
        &self,
        message_id: &MessageId,
        text: &str,
    ) -> Result<PendingSealed<CompleteSealedReply>> {
        let seal = self.prepare_bot_message_from(&mut OsRng, message_id, text)?;
        let message_id = message_id.as_str().to_owned();
        Ok(PendingSealed::new(seal, move |sealed| {
            Ok(CompleteSealedReply { message_id, sealed })
        }))
    }

    /// A `sealed-messages` body: a follow-up message of the invocation.
    ///
    /// # Errors
    ///
    /// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
    /// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring
    /// has no usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the
    /// slot does not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext
    /// exceeds the size limit; `RANDOMNESS_UNAVAILABLE`; `VALIDATION_FAILED`
    /// when the body breaks the API's bounds.
    pub fn seal_message(&self, message_id: &MessageId, text: &str) -> Result<SealedMessageRequest> {
        self.prepare_seal_message(message_id, text)?
            .encrypt(&self.keyring)
    }

    /// [`OpenedInvocation::seal_message`] up to its AES-GCM; the body is
    /// validated on completion.
    ///
    /// # Errors
    ///
    /// As [`OpenedInvocation::seal_message`], but for `VALIDATION_FAILED`,
    /// which the completion reports.
    pub fn prepare_seal_message(
        &self,
        message_id: &MessageId,
        text: &str,
    ) -> Result<PendingSealed<SealedMessageRequest>> {
        let seal = self.prepare_bot_message_from(&mut OsRng, message_id, text)?;
        let message_id = message_id.as_str().to_owned();
        Ok(PendingSealed::new(seal, move |sealed| {
            let body = SealedMessageRequest {
                message_id,
                sealed,
                attachment_ids: None,
            };
            body.validate()?;
            Ok(body)
        }))
    }

    /// A step's seal up to its AES-GCM.
    fn prepare_step_payload(
        &self,
        step_id: &str,
        step_type: &StepType,
        phase: StepPhase,
        message_id: Option<&str>,
        text: &str,
    ) -> Result<PendingSeal> {
        let slot = Slot::TraceStep {
            invocation_id: self.invocation_id.clone(),
            step_id: step_id.to_owned(),
            step_type: step_type.as_str().to_owned(),
            phase,
            message_id: message_id.map(str::to_owned),
        };
        Ok(prepare_seal(
            &self.keyring,
            &self.signer()?,
            &slot,
            text.as_bytes(),
        )?)
    }

    /// A `sealed-steps/started` body; `text` (the in-flight content) is optional.
    ///
    /// # Errors
    ///
    /// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
    /// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring
    /// has no usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the
    /// slot does not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext
    /// exceeds the size limit; `RANDOMNESS_UNAVAILABLE` (only when `text` is
    /// given); `VALIDATION_FAILED` when the body breaks the API's bounds.
    pub fn seal_step_started(
        &self,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        text: Option<&str>,
    ) -> Result<SealedStepStartedRequest> {
        match text {
            Some(text) => self
                .prepare_seal_step_started(step_id, step_type, message_id, text)?
                .encrypt(&self.keyring),
            None => started_body(step_id, step_type, message_id, None),
        }
    }

    /// [`OpenedInvocation::seal_step_started`] with its `text`, up to its
    /// AES-GCM; the body is validated on completion.
    ///
    /// # Errors
    ///
    /// As [`OpenedInvocation::seal_step_started`], but for
    /// `VALIDATION_FAILED`, which the completion reports.
    pub fn prepare_seal_step_started(
        &self,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        text: &str,
    ) -> Result<PendingSealed<SealedStepStartedRequest>> {
        let seal =
            self.prepare_step_payload(step_id, step_type, StepPhase::Started, message_id, text)?;
        let step_id = step_id.to_owned();
        let step_type = step_type.clone();
        let message_id = message_id.map(str::to_owned);
        Ok(PendingSealed::new(seal, move |sealed| {
            started_body(&step_id, &step_type, message_id.as_deref(), Some(sealed))
        }))
    }

    /// A `sealed-steps` body: the finalised step.
    ///
    /// # Errors
    ///
    /// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
    /// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring
    /// has no usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the
    /// slot does not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext
    /// exceeds the size limit; `RANDOMNESS_UNAVAILABLE`; `VALIDATION_FAILED`
    /// when the body breaks the API's bounds.
    pub fn seal_step(
        &self,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        text: &str,
        duration_ms: Option<u64>,
    ) -> Result<SealedStepRequest> {
        self.prepare_seal_step(step_id, step_type, message_id, text, duration_ms)?
            .encrypt(&self.keyring)
    }

    /// [`OpenedInvocation::seal_step`] up to its AES-GCM; the body is
    /// validated on completion.
    ///
    /// # Errors
    ///
    /// As [`OpenedInvocation::seal_step`], but for `VALIDATION_FAILED`,
    /// which the completion reports.
    pub fn prepare_seal_step(
        &self,
        step_id: &str,
        step_type: &StepType,
        message_id: Option<&str>,
        text: &str,
        duration_ms: Option<u64>,
    ) -> Result<PendingSealed<SealedStepRequest>> {
        let seal =
            self.prepare_step_payload(step_id, step_type, StepPhase::Completed, message_id, text)?;
        let step_id = step_id.to_owned();
        let step_type = step_type.clone();
        let message_id = message_id.map(str::to_owned);
        Ok(PendingSealed::new(seal, move |sealed| {
            let body = SealedStepRequest {
                step_id,
                step_type,
                sealed,
                message_id,
                duration_ms,
            };
            body.validate()?;
            Ok(body)
        }))
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
                    extra: Extra::default(),
                })
                .collect(),
            extra: Extra::default(),
        }
    }

    /// A sealed decision card posted from this invocation.
    ///
    /// # Errors
    ///
    /// As [`crate::decisions::seal_decision_card`].
    pub fn seal_decision_card(
        &self,
        stream_id: &str,
        decision_id: &DecisionId,
        options: Vec<DecisionOption>,
        allow_note: bool,
        content: &crate::decisions::DecisionCardContent,
        runtime_session_id: &str,
    ) -> Result<CreateDecisionRequest> {
        self.prepare_seal_decision_card(
            stream_id,
            decision_id,
            options,
            allow_note,
            content,
            runtime_session_id,
        )?
        .encrypt(&self.keyring)
    }

    /// [`OpenedInvocation::seal_decision_card`] up to its AES-GCM.
    ///
    /// # Errors
    ///
    /// As [`crate::decisions::prepare_seal_decision_card`].
    pub fn prepare_seal_decision_card(
        &self,
        stream_id: &str,
        decision_id: &DecisionId,
        options: Vec<DecisionOption>,
        allow_note: bool,
        content: &crate::decisions::DecisionCardContent,
        runtime_session_id: &str,
    ) -> Result<PendingSealed<CreateDecisionRequest>> {
        crate::decisions::prepare_seal_decision_card(
            &self.keyring,
            &self.signer()?,
            crate::decisions::CardPlacement {
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

/// A `sealed-steps/started` body, validated.
fn started_body(
    step_id: &str,
    step_type: &StepType,
    message_id: Option<&str>,
    sealed: Option<SealedPayload>,
) -> Result<SealedStepStartedRequest> {
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

/// What opening a claimed invocation reads of it: its ids, author, revision
/// and `sealedContext`. A binding that reads the invocation from another
/// language deserializes this instead of a whole [`Invocation`] (its other
/// fields, e.g. `metadata`, `context` and `actor`, are ignored);
/// [`OpenedInvocation::prepare_to_open`] opens it exactly as
/// [`OpenedInvocation::prepare`] opens the invocation it came from.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationToOpen {
    /// The invocation id.
    pub id: String,
    /// The root stream: the state's.
    pub root_stream_id: String,
    /// The stream of the trigger message (the prompt's slot names it).
    pub active_stream_id: String,
    /// The trigger message (the prompt's slot names it).
    pub source_message_id: String,
    /// Where the reply goes.
    pub response_stream_id: String,
    /// The trigger message's revision (the prompt's slot names it).
    pub source_revision: u32,
    /// Who triggered it: the owner the state pinned.
    pub author_user_id: String,
    /// The sealed context; absent on a plaintext invocation.
    #[serde(default)]
    pub sealed_context: Option<SealedContext>,
}

impl From<&Invocation> for InvocationToOpen {
    fn from(invocation: &Invocation) -> Self {
        Self {
            id: invocation.id.clone(),
            root_stream_id: invocation.root_stream_id.clone(),
            active_stream_id: invocation.active_stream_id.clone(),
            source_message_id: invocation.source_message_id.clone(),
            response_stream_id: invocation.response_stream_id.clone(),
            source_revision: invocation.source_revision,
            author_user_id: invocation.author_user_id.clone(),
            sealed_context: invocation.sealed_context.clone(),
        }
    }
}

/// The borrowed fields of an invocation that opening reads.
#[derive(Clone, Copy)]
struct InvocationParts<'a> {
    id: &'a str,
    root_stream_id: &'a str,
    active_stream_id: &'a str,
    source_message_id: &'a str,
    response_stream_id: &'a str,
    source_revision: u32,
    author_user_id: &'a str,
    sealed_context: Option<&'a SealedContext>,
}

impl<'a> InvocationParts<'a> {
    fn of(invocation: &'a Invocation) -> Self {
        Self {
            id: &invocation.id,
            root_stream_id: &invocation.root_stream_id,
            active_stream_id: &invocation.active_stream_id,
            source_message_id: &invocation.source_message_id,
            response_stream_id: &invocation.response_stream_id,
            source_revision: invocation.source_revision,
            author_user_id: &invocation.author_user_id,
            sealed_context: invocation.sealed_context.as_ref(),
        }
    }

    fn to_open(invocation: &'a InvocationToOpen) -> Self {
        Self {
            id: &invocation.id,
            root_stream_id: &invocation.root_stream_id,
            active_stream_id: &invocation.active_stream_id,
            source_message_id: &invocation.source_message_id,
            response_stream_id: &invocation.response_stream_id,
            source_revision: invocation.source_revision,
            author_user_id: &invocation.author_user_id,
            sealed_context: invocation.sealed_context.as_ref(),
        }
    }
}

/// A trace step, opened: its text and who sealed it.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct OpenedStep {
    /// The step's text.
    pub text: String,
    /// The bot that sealed it, and whether its key is verified.
    pub sealed_by: SealedBy,
}

impl fmt::Debug for OpenedStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenedStep")
            .field("text", &"[redacted]")
            .field("sealed_by", &self.sealed_by)
            .finish()
    }
}

/// Where a trace step belongs, as a viewer knows it.
#[derive(Clone, Copy, Debug)]
pub struct StepPlacement<'a> {
    /// The invocation.
    pub invocation_id: &'a str,
    /// The bot the invocation is for: the step's signer must be it.
    pub bot_id: &'a str,
    /// The step id.
    pub step_id: &'a str,
    /// The step type.
    pub step_type: &'a StepType,
    /// Started or completed.
    pub phase: StepPhase,
    /// The message the step names, if any.
    pub message_id: Option<&'a str>,
}

/// Opens a sealed trace step as a viewer: the placement says which
/// invocation, bot, step and phase it must be bound to; a step sealed by
/// anyone but that bot is `UNEXPECTED_AUTHOR`.
///
/// # Errors
///
/// As [`streamseal_crypto::envelope::open`]: `AAD_MISMATCH` when the step is bound to
/// another invocation, step, type, phase or message, and its codes for the
/// envelope (`UNSUPPORTED_ENVELOPE_VERSION`, `MALFORMED_BASE64`,
/// `INVALID_LENGTH`, `INPUT_TOO_LARGE`, `MALFORMED_AAD`), the key
/// (`UNKNOWN_KEY_GENERATION`, `DECRYPTION_FAILED`) and the signer
/// (`UNKNOWN_KEY`, `KEY_CHANGED`, `KEY_NOT_VERIFIED`, `SENDER_MISMATCH` for
/// another key holder's signature); `UNEXPECTED_AUTHOR` when it is signed by
/// anyone but `placement.bot_id`; `INVALID_FIELD` when its text is not UTF-8.
pub fn open_step(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    placement: StepPlacement<'_>,
    sealed: &SealedPayload,
) -> Result<OpenedStep> {
    prepare_step(keyring, senders, placement, sealed)?.open(keyring)
}

/// [`open_step`]'s checks before AES-GCM (the slot, the envelope, the key,
/// the signer's key and commitment), with its checks after decryption (the
/// bot, UTF-8) left to the [`Pending`]'s completion.
///
/// # Errors
///
/// As [`open_step`], but for `DECRYPTION_FAILED` (the tag),
/// `SENDER_MISMATCH`, `UNEXPECTED_AUTHOR` and `INVALID_FIELD`, which the
/// completion reports.
pub fn prepare_step(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    placement: StepPlacement<'_>,
    sealed: &SealedPayload,
) -> Result<Pending<OpenedStep>> {
    let slot = Slot::TraceStep {
        invocation_id: placement.invocation_id.to_owned(),
        step_id: placement.step_id.to_owned(),
        step_type: placement.step_type.as_str().to_owned(),
        phase: placement.phase,
        message_id: placement.message_id.map(str::to_owned),
    };
    let envelope = prepare_open(keyring, senders, sealed, |s| *s == slot)?;
    let bot_id = placement.bot_id.to_owned();
    Ok(Pending::new(envelope, move |opened| {
        if opened.sealed_by.subject != bot_id {
            return Err(Error::UnexpectedAuthor {
                expected: bot_id,
                actual: opened.sealed_by.subject,
            });
        }
        Ok(OpenedStep {
            text: utf8(opened.plaintext)?,
            sealed_by: opened.sealed_by,
        })
    }))
}
