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

use crate::codec::{Reader, Writer, check_str};
use crate::error::{CryptoError, CryptoResult};

/// Most options a sealed decision card may carry.
pub const MAX_DECISION_OPTIONS: usize = 64;

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

/// How one field of a slot is checked, written into the AAD and read back
/// from it: each field type of the `slots!` declarations has one rule.
pub(crate) trait AadField: Sized {
    /// A check made before any field is written (a card's option list:
    /// its count and distinct ids come first, as encoding reports them).
    fn precheck(&self, _field: &'static str) -> CryptoResult<()> {
        Ok(())
    }
    /// What encoding needs of the value (strings 1 to 1024 bytes).
    fn check(&self, field: &'static str) -> CryptoResult<()>;
    /// The value's bytes in the AAD.
    fn write(&self, field: &'static str, w: &mut Writer) -> CryptoResult<()>;
    /// The value, read strictly from the AAD.
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self>;
}

/// A length-prefixed string of 1 to 1024 bytes.
impl AadField for String {
    fn check(&self, field: &'static str) -> CryptoResult<()> {
        check_str(field, self)
    }
    fn write(&self, field: &'static str, w: &mut Writer) -> CryptoResult<()> {
        w.str(field, self).map(|_| ())
    }
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self> {
        r.str()
    }
}

/// `0`, or `1` and the string.
impl AadField for Option<String> {
    fn check(&self, field: &'static str) -> CryptoResult<()> {
        self.as_deref().map_or(Ok(()), |s| check_str(field, s))
    }
    fn write(&self, field: &'static str, w: &mut Writer) -> CryptoResult<()> {
        w.opt_str(field, self.as_deref()).map(|_| ())
    }
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self> {
        r.opt_str()
    }
}

/// Four bytes, big-endian.
impl AadField for u32 {
    fn check(&self, _field: &'static str) -> CryptoResult<()> {
        Ok(())
    }
    fn write(&self, _field: &'static str, w: &mut Writer) -> CryptoResult<()> {
        w.u32(*self);
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self> {
        r.u32()
    }
}

/// `0` or `1`.
impl AadField for bool {
    fn check(&self, _field: &'static str) -> CryptoResult<()> {
        Ok(())
    }
    fn write(&self, _field: &'static str, w: &mut Writer) -> CryptoResult<()> {
        w.bool(*self);
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self> {
        r.bool()
    }
}

/// The phase's one-byte code.
impl AadField for StepPhase {
    fn check(&self, _field: &'static str) -> CryptoResult<()> {
        Ok(())
    }
    fn write(&self, _field: &'static str, w: &mut Writer) -> CryptoResult<()> {
        w.u8(self.code());
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self> {
        let code = r.u8()?;
        StepPhase::from_code(code).ok_or_else(|| r.fail("unknown step phase"))
    }
}

/// A two-byte count (1 to 64), then each option's id and tone.
impl AadField for Vec<DecisionOption> {
    fn precheck(&self, _field: &'static str) -> CryptoResult<()> {
        Slot::check_options(self)
    }
    // Errors name an option's parts under the one list a slot has,
    // `options` (`options.id`, `options.tone`).
    fn check(&self, _field: &'static str) -> CryptoResult<()> {
        self.iter().try_for_each(|option| {
            check_str("options.id", &option.id)?;
            check_str("options.tone", &option.tone)
        })
    }
    fn write(&self, _field: &'static str, w: &mut Writer) -> CryptoResult<()> {
        // precheck bounds the count to 64.
        w.u16(u16::try_from(self.len()).unwrap_or(u16::MAX));
        for option in self {
            w.str("options.id", &option.id)?
                .str("options.tone", &option.tone)?;
        }
        Ok(())
    }
    fn read(r: &mut Reader<'_>) -> CryptoResult<Self> {
        let count = usize::from(r.u16()?);
        if count == 0 || count > MAX_DECISION_OPTIONS {
            return Err(r.fail("option count out of range"));
        }
        let mut options = Vec::with_capacity(count);
        for _ in 0..count {
            options.push(DecisionOption {
                id: r.str()?,
                tone: r.str()?,
            });
        }
        Slot::check_options(&options).map_err(|_| r.fail("duplicate option ids"))?;
        Ok(options)
    }
}

/// Declares every slot kind once: its doc, its variant, its AAD code, its
/// [`SlotKind`]'s doc (which states the code), the fields its accessors name (`stream`,
/// `message`, `author`, each optional) and its fields with their wire
/// names, in AAD order. From it come [`SlotKind`] with its codes, [`Slot`],
/// [`Slot::kind`], the accessors, [`Slot::validate`], and the slot's part of
/// the AAD encoding and parsing ([`crate::aad`]).
macro_rules! slots {
    ($(
        $(#[$vdoc:meta])*
        $variant:ident = $code:literal, $kdoc:literal,
        [$(stream: $stream:ident;)? $(message: $message:ident;)? $(author: $author:ident;)?]
        { $($(#[$fattr:meta])* $field:ident: $fty:ty = $wire:literal),+ $(,)? }
    )+) => {
        /// The kind of a slot, with its one-byte code in the AAD.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
        #[serde(rename_all = "camelCase")]
        #[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
        pub enum SlotKind {
            $(#[doc = $kdoc] $variant,)+
        }

        impl SlotKind {
            /// The byte that names this kind in the AAD.
            pub const fn code(self) -> u8 {
                match self {
                    $(SlotKind::$variant => $code,)+
                }
            }

            /// The kind named by an AAD byte.
            pub const fn from_code(code: u8) -> Option<SlotKind> {
                match code {
                    $($code => Some(SlotKind::$variant),)+
                    _ => None,
                }
            }
        }

        /// Where a ciphertext belongs. See the module docs for which API surface
        /// uses which slot. Ids are the API's prefixed ids, compared byte for byte.
        #[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
        #[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
        #[serde(
            tag = "kind",
            rename_all = "camelCase",
            rename_all_fields = "camelCase"
        )]
        #[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
        pub enum Slot {
            $($(#[$vdoc])* $variant { $($(#[$fattr])* $field: $fty,)+ },)+
        }

        impl Slot {
            /// The kind of this slot.
            pub fn kind(&self) -> SlotKind {
                match self {
                    $(Slot::$variant { .. } => SlotKind::$variant,)+
                }
            }

            /// The stream id for slots that name one.
            pub fn stream_id(&self) -> Option<&str> {
                #[allow(unreachable_patterns)]
                match self {
                    $($(Slot::$variant { $stream, .. } => Some($stream.as_str()),)?)+
                    _ => None,
                }
            }

            /// The message id for message-like slots (`Message`, `BotReply`).
            pub fn message_id(&self) -> Option<&str> {
                #[allow(unreachable_patterns)]
                match self {
                    $($(Slot::$variant { $message, .. } => Some($message.as_str()),)?)+
                    _ => None,
                }
            }

            /// The author the slot names, which must be the envelope's signer:
            /// `authorId` of a message or bot reply, `decidedBy` of a decision note.
            /// Trace steps and decision cards name none (their signer is the bot).
            pub fn author_id(&self) -> Option<&str> {
                #[allow(unreachable_patterns)]
                match self {
                    $($(Slot::$variant { $author, .. } => Some($author.as_str()),)?)+
                    _ => None,
                }
            }

            /// Checks the rules the AAD encoding needs: every string 1 to 1024 bytes,
            /// 1 to 64 decision options with distinct ids; in the order encoding
            /// checks them, so that the first broken rule is the one it reports.
            ///
            /// # Errors
            ///
            /// `INVALID_LENGTH` when a string is empty or over 1024 bytes, or a decision
            /// card has no options or more than 64; `INVALID_FIELD` when option ids
            /// repeat.
            pub fn validate(&self) -> CryptoResult<()> {
                match self {
                    $(Slot::$variant { $($field,)+ } => {
                        $(AadField::precheck($field, $wire)?;)+
                        $(AadField::check($field, $wire)?;)+
                    })+
                }
                Ok(())
            }

            /// Writes the kind-specific fields into the AAD, in declaration order.
            pub(crate) fn write_fields(&self, w: &mut Writer) -> CryptoResult<()> {
                match self {
                    $(Slot::$variant { $($field,)+ } => {
                        $(AadField::precheck($field, $wire)?;)+
                        $(AadField::write($field, $wire, w)?;)+
                    })+
                }
                Ok(())
            }

            /// The slot a flat object of fields makes for its `kind`; the
            /// wire name of the first required field it lacks otherwise.
            fn from_flat(f: SlotFields) -> Result<Slot, &'static str> {
                Ok(match f.kind {
                    $(SlotKind::$variant => Slot::$variant {
                        $($field: FromFlat::from_flat(f.$field).ok_or($wire)?,)+
                    },)+
                })
            }

            /// Reads the kind-specific fields of a `kind` slot from the AAD.
            pub(crate) fn read_fields(kind: SlotKind, r: &mut Reader<'_>) -> CryptoResult<Slot> {
                Ok(match kind {
                    $(SlotKind::$variant => Slot::$variant {
                        $($field: <$fty as AadField>::read(r)?,)+
                    },)+
                })
            }
        }
    };
}

slots! {
    /// A message in a stream (root or thread), at one revision.
    Message = 1, "A stream message (code 1).",
    [stream: stream_id; message: message_id; author: author_id;]
    {
        /// The stream the message is posted in (a thread's own id for thread messages).
        stream_id: String = "streamId",
        /// The client-minted message id.
        message_id: String = "messageId",
        /// The author's id (`usr_...` or the bot id); the envelope's signer.
        author_id: String = "authorId",
        /// The author's `authorType` (`user`, `persona`, `system`, `bot`).
        author_type: String = "authorType",
        /// 1 for the original body, +1 per edit.
        revision: u32 = "revision",
    }

    /// A bot's message posted through an invocation (`sealed-complete`
    /// reply, `sealed-messages`, `complete`'s `sealedReply`).
    BotReply = 2, "A bot's reply or follow-up message within an invocation (code 2).",
    [stream: stream_id; message: message_id; author: author_id;]
    {
        /// The invocation's response stream.
        stream_id: String = "streamId",
        /// The client-minted message id.
        message_id: String = "messageId",
        /// The sending bot (`reply.senderId` of the sealed context).
        author_id: String = "authorId",
        /// The invocation the reply belongs to.
        invocation_id: String = "invocationId",
    }

    /// A trace step of an invocation.
    TraceStep = 3, "A trace step of an invocation (code 3).",
    []
    {
        /// The invocation.
        invocation_id: String = "invocationId",
        /// The client-minted step id.
        step_id: String = "stepId",
        /// The step type (`thinking`, `tool_call`, ...).
        step_type: String = "stepType",
        /// Started or completed.
        phase: StepPhase = "phase",
        /// The message the step refers to, when the body names one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<String> = "messageId",
    }

    /// A decision card: title, body and option labels are the plaintext;
    /// option ids, tones and `allowNote` are clear and bound here.
    DecisionCard = 4, "A decision card (code 4).",
    [stream: stream_id;]
    {
        /// The stream the card is posted to.
        stream_id: String = "streamId",
        /// The `dreq_` id.
        decision_id: String = "decisionId",
        /// The invocation that asks.
        invocation_id: String = "invocationId",
        /// The runtime session that asks.
        runtime_session_id: String = "runtimeSessionId",
        /// The options, in order.
        options: Vec<DecisionOption> = "options",
        /// Whether a note may be attached.
        allow_note: bool = "allowNote",
    }

    /// The optional note of a decision, sealed by the decider.
    DecisionNote = 5, "The note a decider attached to a decision (code 5).",
    [author: decided_by;]
    {
        /// The `dreq_` id.
        decision_id: String = "decisionId",
        /// The chosen option id.
        option_id: String = "optionId",
        /// Who decided.
        decided_by: String = "decidedBy",
    }
}
/// Every field any slot kind has, by its wire name, and the kind: what a
/// [`Slot`] is read from (JSON, a JS object), then checked against its
/// `kind`. A field another kind names must still have that field's type;
/// unknown fields are ignored. Serde's derive for an internally tagged enum
/// buffers the whole object first, once per deserializer: 41 KB of the
/// browser module's code for this one type (issue 20).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SlotFields {
    kind: SlotKind,
    #[serde(default)]
    stream_id: Option<String>,
    #[serde(default)]
    message_id: Option<String>,
    #[serde(default)]
    author_id: Option<String>,
    #[serde(default)]
    author_type: Option<String>,
    #[serde(default)]
    revision: Option<u32>,
    #[serde(default)]
    invocation_id: Option<String>,
    #[serde(default)]
    step_id: Option<String>,
    #[serde(default)]
    step_type: Option<String>,
    #[serde(default)]
    phase: Option<StepPhase>,
    #[serde(default)]
    decision_id: Option<String>,
    #[serde(default)]
    runtime_session_id: Option<String>,
    #[serde(default)]
    options: Option<Vec<DecisionOption>>,
    #[serde(default)]
    allow_note: Option<bool>,
    #[serde(default)]
    option_id: Option<String>,
    #[serde(default)]
    decided_by: Option<String>,
}

/// A slot field from its flat form: a required field is `None` when
/// absent, an optional one is whatever came (`TraceStep.messageId`).
trait FromFlat<F>: Sized {
    fn from_flat(value: Option<F>) -> Option<Self>;
}

impl<T> FromFlat<T> for T {
    fn from_flat(value: Option<T>) -> Option<T> {
        value
    }
}

impl<T> FromFlat<T> for Option<T> {
    fn from_flat(value: Option<T>) -> Option<Option<T>> {
        Some(value)
    }
}

/// A slot is an object: the derive of [`SlotFields`] would also take an
/// array of its fields in declaration order, a second spelling no kind's
/// order matches.
struct SlotObject;

impl<'de> serde::de::Visitor<'de> for SlotObject {
    type Value = SlotFields;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a slot object")
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<SlotFields, A::Error> {
        SlotFields::deserialize(serde::de::value::MapAccessDeserializer::new(map))
    }
}

impl<'de> Deserialize<'de> for Slot {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Slot::from_flat(deserializer.deserialize_map(SlotObject)?)
            .map_err(<D::Error as serde::de::Error>::missing_field)
    }
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

    pub(crate) fn check_options(options: &[DecisionOption]) -> CryptoResult<()> {
        if options.is_empty() || options.len() > MAX_DECISION_OPTIONS {
            return Err(CryptoError::length("options", "1..=64", options.len()));
        }
        // Pairwise (at most 64 options): no sort of its own in the modules.
        let repeated = options
            .iter()
            .enumerate()
            .any(|(i, option)| options.iter().take(i).any(|o| o.id == option.id));
        if repeated {
            return Err(CryptoError::invalid(
                "options",
                "option ids must be distinct",
            ));
        }
        Ok(())
    }
}
