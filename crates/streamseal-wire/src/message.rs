//! Messages (API §2.1): the message resource, its attachments, search
//! hits, and the responses that carry messages with their `slots`.
//!
//! The `sealed` object reuses [`streamseal_crypto::envelope::SealedPayload`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::attachment::ProcessingStatus;
use crate::common::{AuthorType, Sequence};
use crate::extra::Extra;
use crate::slots::Slots;
use streamseal_crypto::envelope::SealedPayload;

/// A message as list, send, update, find-by-metadata and completed
/// invocations return it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Message {
    /// `msg_` prefixed id. Kept as text: sealed messages carry ids their
    /// senders minted (`sealed-messages` takes any 1 to 128 characters), so a
    /// list must not fail because one sender minted its id differently. Use
    /// [`crate::ids::MessageId::parse`] where a strict id is wanted.
    pub id: String,
    /// The stream the message is in.
    pub stream_id: String,
    /// Sequence in the stream (numeric, as a string).
    pub sequence: Sequence,
    /// The author: a user, persona, system or bot id.
    pub author_id: String,
    /// `user`, `persona`, `system`, `bot`.
    pub author_type: AuthorType,
    /// The author's display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_display_name: Option<String>,
    /// Markdown; an opaque placeholder in a sealed stream.
    pub content: String,
    /// Number of replies.
    pub reply_count: u32,
    /// The thread opened on this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_stream_id: Option<String>,
    /// The sender's idempotency id (at most 128 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_message_id: Option<String>,
    /// Present when sent through the API with a user or bot key; `api_key:<id>` names the key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_via: Option<String>,
    /// External references attached by the sender; always present, empty when unset.
    pub metadata: BTreeMap<String, String>,
    /// Attachments of the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<MessageAttachment>>,
    /// 1 for the original body, +1 per edit. Required from the 2026-07-12
    /// shape on, which is every known version.
    pub revision: u32,
    /// When the message was last edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<String>,
    /// When the message was created.
    pub created_at: String,
    /// Only in sealed streams: the ciphertext and its envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SealedPayload>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// An attachment item of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessageAttachment {
    /// Attachment id.
    pub id: String,
    /// File name.
    pub filename: String,
    /// MIME type.
    pub mime_type: String,
    /// Size in bytes.
    pub size_bytes: u64,
    /// Extraction status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub processing_status: Option<ProcessingStatus>,
    /// Image width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// Image height.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A hit of `POST messages/search`. It carries no threadStreamId,
/// clientMessageId, sentVia, attachments, revision or sealed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessageSearchHit {
    /// `msg_` prefixed id (kept as text, as in [`Message`]).
    pub id: String,
    /// The stream the message is in.
    pub stream_id: String,
    /// Sequence in the stream.
    pub sequence: Sequence,
    /// Markdown content.
    pub content: String,
    /// The author id.
    pub author_id: String,
    /// The author type.
    pub author_type: AuthorType,
    /// The author's display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author_display_name: Option<String>,
    /// Number of replies.
    pub reply_count: u32,
    /// Sender metadata.
    pub metadata: BTreeMap<String, String>,
    /// When the message was last edited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_at: Option<String>,
    /// When the message was created.
    pub created_at: String,
    /// Relevance rank.
    pub rank: f64,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `GET streams/{streamId}/messages`: pages by sequence with `before` and
/// `after`, so it has `hasMore` and no cursor.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessageList {
    /// The messages.
    pub data: Vec<Message>,
    /// Whether more messages exist past this page.
    pub has_more: bool,
    /// Hydrated shared-message slots (empty before 2026-07-24).
    #[serde(default)]
    pub slots: Slots,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST messages/search`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessageSearchResults {
    /// The hits, ranked.
    pub data: Vec<MessageSearchHit>,
    /// Hydrated shared-message slots.
    #[serde(default)]
    pub slots: Slots,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST messages/find-by-metadata`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessagesFound {
    /// Matching non-deleted messages.
    pub data: Vec<Message>,
    /// Hydrated shared-message slots.
    #[serde(default)]
    pub slots: Slots,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST streams/{streamId}/messages` (201) and `PATCH messages/{messageId}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MessageResponse {
    /// The message.
    pub data: Message,
    /// The conversation, present when the send declared `conversation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// Hydrated shared-message slots.
    #[serde(default)]
    pub slots: Slots,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
