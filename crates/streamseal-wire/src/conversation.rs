//! Conversations (API §2.4): topic-level groupings of messages.

use serde::{Deserialize, Serialize};

use crate::extra::Extra;
use crate::open_enum::open_enum;

open_enum!(
    /// Conversation status: an open enum.
    ConversationStatus {
        /// Ongoing.
        Active => "active",
        /// No recent activity.
        Stalled => "stalled",
        /// Resolved.
        Resolved => "resolved",
    }
);

/// A conversation. Every field is required.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// Conversation id.
    pub id: String,
    /// Anchor stream (may be a thread).
    pub stream_id: String,
    /// Effective root; its access governs the conversation.
    pub root_stream_id: String,
    /// Topic summary, or null.
    pub topic_summary: Option<String>,
    /// Summary, or null.
    pub summary: Option<String>,
    /// `active`, `stalled`, `resolved`.
    pub status: ConversationStatus,
    /// Number of primary member messages.
    pub message_count: u32,
    /// Distinct author ids of member messages.
    pub participant_ids: Vec<String>,
    /// Last activity.
    pub last_activity_at: String,
    /// Created.
    pub created_at: String,
    /// Updated.
    pub updated_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
