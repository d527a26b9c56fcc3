//! Message requests (API §4.3).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};

use crate::common::StreamType;
use crate::requests::{QueryParams, Validate, push};
use crate::validate::{Check, item};
use streamseal_crypto::envelope::SealedPayload;
use streamseal_crypto::error::Result;

/// Longest `clientMessageId`.
pub const MAX_CLIENT_MESSAGE_ID_LEN: usize = 128;

/// `POST messages/search`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SearchMessagesRequest {
    /// Required, at least 1 character.
    pub query: String,
    /// Semantic search (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub semantic: Option<bool>,
    /// Exact match (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    /// Streams to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<String>>,
    /// Author filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// Stream types.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub stream_types: Option<Vec<StreamType>>,
    /// Only before this date-time (RFC 3339, checked by `validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Only after this date-time (RFC 3339, checked by `validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// 1 to 50, default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for SearchMessagesRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("query", &self.query, 1, usize::MAX);
        for (i, t) in self.stream_types.iter().flatten().enumerate() {
            c.known(&item("type", i), t.is_known(), StreamType::KNOWN);
        }
        c.opt_date_time("before", self.before.as_deref());
        c.opt_date_time("after", self.after.as_deref());
        c.opt_range("limit", self.limit, 1, 50);
        c.finish()
    }
}

/// Query of `GET streams/{streamId}/messages`: pages by sequence.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ListMessagesQuery {
    /// Only messages before this sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<u64>,
    /// Only messages after this sequence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    /// 1 to 100, default 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for ListMessagesQuery {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.opt_range("limit", self.limit, 1, 100);
        c.finish()
    }
}

impl QueryParams for ListMessagesQuery {
    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "before", self.before.as_ref());
        push(&mut out, "after", self.after.as_ref());
        push(&mut out, "limit", self.limit.as_ref());
        out
    }
}

/// `conversation` of a send: `{intent: "new"}` or `{intent: "existing", conversationId}`.
///
/// `intent` is a closed enum: any other value is refused when the send is
/// decoded (`conversation.intent`: "must be one of: new, existing").
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(
    tag = "intent",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum ConversationIntent {
    /// Start a new conversation.
    New,
    /// Join an existing conversation under the same root stream.
    Existing {
        /// The conversation.
        conversation_id: String,
    },
}

/// The wire form `conversation` decodes through: serde's internally tagged
/// enums buffer their content and lose the path of a mistake inside
/// (`conversation.conversationId`); a plain struct keeps it.
mod conversation_wire {
    use serde::Deserialize;

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) enum Intent {
        New,
        Existing,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Conversation {
        pub(super) intent: Intent,
        #[serde(default)]
        pub(super) conversation_id: Option<String>,
    }
}

impl<'de> Deserialize<'de> for ConversationIntent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let wire = conversation_wire::Conversation::deserialize(d)?;
        match (wire.intent, wire.conversation_id) {
            (conversation_wire::Intent::New, _) => Ok(ConversationIntent::New),
            (conversation_wire::Intent::Existing, Some(conversation_id)) => {
                Ok(ConversationIntent::Existing { conversation_id })
            }
            (conversation_wire::Intent::Existing, None) => {
                Err(serde::de::Error::missing_field("conversationId"))
            }
        }
    }
}

/// `POST streams/{streamId}/messages`. Exactly one of `content` (plaintext
/// stream) and `sealed` (sealed stream); `conversation` is unsupported with
/// a sealed body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SendMessageRequest {
    /// Markdown, at least 1 character.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The sealed body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed: Option<SealedPayload>,
    /// Idempotency id, at most 128 characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_message_id: Option<String>,
    /// Metadata (string to string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
    /// Conversation placement.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<ConversationIntent>,
}

impl Validate for SendMessageRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        match (&self.content, &self.sealed) {
            (None, None) => c.fail("content", "is required (or `sealed` in a sealed stream)"),
            (Some(_), Some(_)) => c.fail("sealed", "is sent instead of `content`, not with it"),
            _ => {}
        }
        c.opt_len("content", self.content.as_deref(), 1, usize::MAX);
        c.opt_len(
            "clientMessageId",
            self.client_message_id.as_deref(),
            0,
            MAX_CLIENT_MESSAGE_ID_LEN,
        );
        if self.sealed.is_some() && self.conversation.is_some() {
            c.fail("conversation", "is unsupported for a sealed body");
        }
        if let Some(ConversationIntent::Existing { conversation_id }) = &self.conversation {
            c.len(
                "conversation.conversationId",
                conversation_id,
                1,
                usize::MAX,
            );
        }
        c.finish()
    }
}

/// `POST messages/find-by-metadata`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct FindByMetadataRequest {
    /// Key/value pairs that must all match.
    pub metadata: BTreeMap<String, String>,
    /// Restrict to a stream (at least 1 character).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<String>,
    /// 1 to 100, default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for FindByMetadataRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.opt_len("streamId", self.stream_id.as_deref(), 1, usize::MAX);
        c.opt_range("limit", self.limit, 1, 100);
        c.finish()
    }
}

/// `PATCH messages/{messageId}`: `{content}` (at least 1 character).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct UpdateMessageRequest {
    /// The new markdown.
    pub content: String,
}

impl Validate for UpdateMessageRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("content", &self.content, 1, usize::MAX);
        c.finish()
    }
}
