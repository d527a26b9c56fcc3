//! Streams (API §2.2) and stream members (API §2.3).
//!
//! [`Stream`] is the normalised model; its serde is the latest shape
//! (`anchorId`). The 2026-07-12 shape names the anchor `parentMessageId`;
//! read and write it through [`crate::versioned::Versioned`].

use serde::{Deserialize, Serialize};

use crate::common::StreamType;
use crate::extra::Extra;
use crate::ids::{AnchorId, StreamId};
use crate::open_enum::open_enum;

open_enum!(
    /// Whether memos are extracted from a stream (`memoryMode`): an open enum.
    MemoryMode {
        /// Memos are extracted.
        Auto => "auto",
        /// No memos.
        Off => "off",
    }
);

/// A stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Stream {
    /// `stream_` prefixed id.
    pub id: StreamId,
    /// `scratchpad`, `channel`, `dm`, `thread`, `system`.
    #[serde(rename = "type")]
    pub stream_type: StreamType,
    /// Display name.
    pub display_name: String,
    /// Slug.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slug: Option<String>,
    /// Description (markdown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Visibility; its values are not shown in the spec.
    pub visibility: String,
    /// `auto` or `off`.
    pub memory_mode: MemoryMode,
    /// The parent stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_stream_id: Option<String>,
    /// The root stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_stream_id: Option<String>,
    /// Threads only: the timeline item the thread anchors on. `anchorId`
    /// from 2026-07-22, `parentMessageId` in the 2026-07-12 shape.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor_id: Option<AnchorId>,
    /// True when the stream is end-to-end encrypted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_enabled: Option<bool>,
    /// When the stream was created.
    pub created_at: String,
    /// When it was archived; absent while live.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<String>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A member of a stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct StreamMember {
    /// The user.
    pub user_id: String,
    /// Name.
    pub name: String,
    /// Slug.
    pub slug: String,
    /// Avatar URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar_url: Option<String>,
    /// When the user joined.
    pub joined_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
