//! Bot invocations (API §2.10 and 4.10): the claim payload with its
//! plaintext `context` or its `sealedContext`, the renew result in both
//! shapes, and the small responses of the invocation endpoints.
//!
//! The spec lists the claim payload's fields without saying which may be
//! null or absent. This module requires what every invocation must have
//! and reads the rest as optional: `promptMarkdown` (absent in a sealed
//! stream, where `sealedContext` stands in for it), `context` (the plaintext
//! context; not said to exist in sealed streams), `runtimeSessionId` (an
//! optional claim parameter).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::common::{AuthorType, Sequence};
use crate::extra::Extra;
use crate::message::Message;
use crate::secret::{CallbackToken, ClaimToken};
use crate::slots::Slots;
use streamseal_crypto::envelope::{Envelope, SealedPayload};
use streamseal_crypto::wrap::KeyWrap;

/// `POST bot-invocations/claim`: `{data: invocation | null}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ClaimResponse {
    /// The claimed invocation, or null when nothing is pending.
    pub data: Option<Invocation>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A claimed bot invocation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Invocation {
    /// Invocation id.
    pub id: String,
    /// Workspace id.
    pub workspace_id: String,
    /// Root stream.
    pub root_stream_id: String,
    /// The stream the work happens in.
    pub active_stream_id: String,
    /// The message that triggered the invocation.
    pub source_message_id: String,
    /// Where the reply goes.
    pub response_stream_id: String,
    /// The summoned actor.
    pub actor: InvocationActor,
    /// What triggered it (e.g. `mention`); values are only examples in the spec.
    pub trigger: String,
    /// The capability required (e.g. `mentionable`).
    pub required_capability: String,
    /// The prompt; absent in a sealed stream (see `sealed_context`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_markdown: Option<String>,
    /// Revision of the source message (from the 2026-07-12 shape, so every known version).
    pub source_revision: u32,
    /// The user who wrote the source message.
    pub author_user_id: String,
    /// Slugs mentioned in the prompt.
    pub mentioned_actor_slugs: Vec<String>,
    /// The per-claim secret, shown on claim only.
    pub claim_token: ClaimToken,
    /// When the claim expires unless renewed.
    pub claim_expires_at: String,
    /// The runtime session, or null.
    #[serde(default)]
    pub runtime_session_id: Option<String>,
    /// Invocation metadata; its shape is not shown in the spec, kept as raw JSON.
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub metadata: Map<String, Value>,
    /// Plaintext context messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<InvocationContext>,
    /// Sealed streams only: what the runtime needs to open and answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_context: Option<SealedContext>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `actor` of an invocation: `{type, id, slug}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct InvocationActor {
    /// Actor type; values not shown in the spec.
    #[serde(rename = "type")]
    pub actor_type: String,
    /// Actor id.
    pub id: String,
    /// Actor slug.
    pub slug: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `context`: `{kind, messages}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct InvocationContext {
    /// Context kind; values not shown in the spec.
    pub kind: String,
    /// The context messages.
    pub messages: Vec<ContextMessage>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A message of the plaintext context.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ContextMessage {
    /// Message id.
    pub message_id: String,
    /// Role; values not shown in the spec.
    pub role: String,
    /// Author id.
    pub author_id: String,
    /// Author type.
    pub author_type: AuthorType,
    /// Author display name.
    pub author_display_name: String,
    /// Markdown.
    pub content_markdown: String,
    /// Created.
    pub created_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `sealedContext` of an invocation in a sealed stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedContext {
    /// The token for `X-Service-Callback-Token` on sealed calls.
    pub callback_token: CallbackToken,
    /// Wraps of the stream key to the runtime (recipient fields absent).
    pub wraps: Vec<KeyWrap>,
    /// Sealed history messages.
    pub history: Vec<SealedHistoryItem>,
    /// The sealed trigger message.
    pub prompt: SealedPayload,
    /// How to seal the reply.
    pub reply: SealedReplyParams,
    /// The trigger message.
    pub trigger: SealedTrigger,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A sealed history item: `{ciphertext, envelope, role, sequence}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedHistoryItem {
    /// `ciphertext || tag`, base64.
    pub ciphertext: String,
    /// The envelope.
    pub envelope: Envelope,
    /// Role; values not shown in the spec.
    pub role: String,
    /// Sequence of the message.
    pub sequence: Sequence,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

impl SealedHistoryItem {
    /// The `{ciphertext, envelope}` to open.
    pub fn payload(&self) -> SealedPayload {
        SealedPayload {
            ciphertext: self.ciphertext.clone(),
            envelope: self.envelope.clone(),
            extra: Default::default(),
        }
    }
}

/// `sealedContext.reply`: `{keyGeneration, senderId}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedReplyParams {
    /// Generation to seal the reply under.
    pub key_generation: u32,
    /// The sender id bound into the reply's slot.
    pub sender_id: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `sealedContext.trigger`: `{messageId, authorName, authorType, createdAt}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedTrigger {
    /// The trigger message.
    pub message_id: String,
    /// Its author's name.
    pub author_name: String,
    /// Its author's type.
    pub author_type: AuthorType,
    /// Created.
    pub created_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST bot-invocations/{id}/renew`, both shapes in one model: the older
/// `{invocationId, status, claimExpiresAt}` and the newer one that adds
/// `sourceRevision` and `update`. The spec does not tie the newer shape to
/// a dated version, so the shape is read from what arrives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RenewResult {
    /// Invocation id.
    pub invocation_id: String,
    /// Invocation status; value names are not shown in the spec.
    pub status: String,
    /// New expiry, or null.
    pub claim_expires_at: Option<String>,
    /// Newer shape: the source message's current revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_revision: Option<u32>,
    /// Newer shape: an edit of the source message to deliver.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub update: Option<RenewUpdate>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// Which renew shape a [`RenewResult`] has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenewShape {
    /// `{invocationId, status, claimExpiresAt}`.
    Basic,
    /// With `sourceRevision` (and `update` when there is one).
    WithRevision,
}

impl RenewResult {
    /// The shape this result was sent in.
    pub fn shape(&self) -> RenewShape {
        if self.source_revision.is_some() || self.update.is_some() {
            RenewShape::WithRevision
        } else {
            RenewShape::Basic
        }
    }
}

/// `update` of a renew: `{delivery, sourceRevision, promptMarkdown, mentionedActorSlugs}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RenewUpdate {
    /// How the update is delivered; values not shown in the spec.
    pub delivery: String,
    /// The revision the update carries.
    pub source_revision: u32,
    /// The new prompt (null for a sealed source, which the spec does not exclude).
    pub prompt_markdown: Option<String>,
    /// Slugs mentioned in the new prompt.
    pub mentioned_actor_slugs: Vec<String>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `{invocationId, status}` of `progress` and `fail`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct InvocationStatusResult {
    /// Invocation id.
    pub invocation_id: String,
    /// Status; value names not shown in the spec.
    pub status: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `{invocationId, sessionId, stepId}` of `steps`, `sealed-steps/started`, `sealed-steps`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct StepRecorded {
    /// Invocation id.
    pub invocation_id: String,
    /// Agent session id.
    pub session_id: String,
    /// Step id.
    pub step_id: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `{invocationId, sessionId, messageId}` of `messages`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct InvocationMessagePosted {
    /// Invocation id.
    pub invocation_id: String,
    /// Agent session id.
    pub session_id: String,
    /// The posted message.
    pub message_id: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `{messageId}` of `sealed-messages`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedMessagePosted {
    /// The posted message.
    pub message_id: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `{invocationId, sessionId, messageId}` of `sealed-complete`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedCompleted {
    /// Invocation id.
    pub invocation_id: String,
    /// Agent session id.
    pub session_id: String,
    /// The reply, or null with `noResponse`.
    pub message_id: Option<String>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST bot-invocations/{id}/complete`. API §4.10: "Returns
/// `{invocationId, message (message or null)}` plus `slots`"; API §4:
/// response bodies are given under `data` unless stated. So the body is
/// `{"data": {"invocationId": .., "message": ..}, "slots": {..}}` (`slots`
/// from 2026-07-24), and that is this type's serde.
///
/// A body with no `data` key, the fields flat beside `slots`
/// (`{invocationId, message, slots}`), is read too, as a tolerant
/// fallback; it is written back in the spec's shape, its unknown fields
/// inside `data`.
///
/// ```
/// use streamseal_wire::{invocation::InvocationCompleted, version::ApiVersion, versioned::Versioned};
///
/// let body = r#"{"data":{"invocationId":"inv_1","message":null},"slots":{}}"#;
/// let done = InvocationCompleted::from_version_json(ApiVersion::LATEST, body)?;
/// assert_eq!((done.invocation_id.as_str(), done.message.is_none()), ("inv_1", true));
/// assert_eq!(done.to_version_json(ApiVersion::LATEST), body);
/// let flat = r#"{"invocationId":"inv_1","message":null,"slots":{}}"#;
/// assert_eq!(InvocationCompleted::from_version_json(ApiVersion::LATEST, flat)?, done);
/// # Ok::<(), streamseal_wire::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvocationCompleted {
    /// Invocation id (`data.invocationId`).
    pub invocation_id: String,
    /// The reply message, or null (`data.message`).
    pub message: Option<Message>,
    /// Hydrated shared-message slots (empty before 2026-07-24).
    pub slots: Slots,
    /// Fields this library does not know inside `data`, kept as raw JSON
    /// and written back unchanged (API §9.6).
    pub data_extra: Extra,
    /// Fields this library does not know beside `data` and `slots`, kept
    /// as raw JSON and written back unchanged (API §9.6).
    pub extra: Extra,
}

ts_decl!(
    "export type InvocationCompleted = { data: { invocationId: string; message: Message | null } & Record<string, unknown>; slots: Slots } & Record<string, unknown>;"
);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CompletedDataOut<'a> {
    invocation_id: &'a str,
    message: &'a Option<Message>,
    #[serde(flatten)]
    extra: &'a Extra,
}

#[derive(Serialize)]
struct CompletedOut<'a> {
    data: CompletedDataOut<'a>,
    slots: &'a Slots,
    #[serde(flatten)]
    extra: &'a Extra,
}

#[derive(Deserialize, crate::shape::WireShape)]
#[serde(rename_all = "camelCase")]
struct CompletedDataIn {
    invocation_id: String,
    message: Option<Message>,
    #[serde(flatten)]
    extra: Extra,
}

#[derive(Deserialize, crate::shape::WireShape)]
struct CompletedIn {
    data: CompletedDataIn,
    #[serde(default)]
    slots: Slots,
    #[serde(flatten)]
    extra: Extra,
}

impl Serialize for InvocationCompleted {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        CompletedOut {
            data: CompletedDataOut {
                invocation_id: &self.invocation_id,
                message: &self.message,
                extra: &self.data_extra,
            },
            slots: &self.slots,
            extra: &self.extra,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for InvocationCompleted {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = Map::<String, Value>::deserialize(d)?;
        if !map.contains_key("data") {
            // The flat fallback: everything but `slots` belongs to `data`.
            let slots = map.remove("slots");
            let data = std::mem::take(&mut map);
            map.insert("data".to_owned(), Value::Object(data));
            if let Some(slots) = slots {
                map.insert("slots".to_owned(), slots);
            }
        }
        let wire: CompletedIn =
            serde_json::from_value(Value::Object(map)).map_err(D::Error::custom)?;
        Ok(InvocationCompleted {
            invocation_id: wire.data.invocation_id,
            message: wire.data.message,
            slots: wire.slots,
            data_extra: wire.data.extra,
            extra: wire.extra,
        })
    }
}
