//! Attachments (API §2.6): the upload response and the search hit.

use serde::{Deserialize, Serialize};

use crate::extra::Extra;
use crate::open_enum::open_enum;

open_enum!(
    /// Extraction status of an attachment (`processingStatus`): an open enum.
    ProcessingStatus {
        /// Waiting.
        Pending => "pending",
        /// Running.
        Processing => "processing",
        /// Done.
        Completed => "completed",
        /// Failed.
        Failed => "failed",
        /// Not processed.
        Skipped => "skipped",
    }
);

open_enum!(
    /// What an attachment shows (`contentType` of a search hit): an open enum.
    /// Note the known value `"other"` is [`AttachmentContentType::OtherContent`];
    /// [`AttachmentContentType::Other`] holds values this library does not know.
    AttachmentContentType {
        /// A chart.
        Chart => "chart",
        /// A table.
        Table => "table",
        /// A diagram.
        Diagram => "diagram",
        /// A screenshot.
        Screenshot => "screenshot",
        /// A photo.
        Photo => "photo",
        /// A document.
        Document => "document",
        /// The service's own `"other"` value.
        OtherContent => "other",
    }
);

/// `POST attachments` (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    /// Attachment id.
    pub id: String,
    /// File name.
    pub filename: String,
    /// MIME type.
    pub mime_type: String,
    /// Size in bytes.
    pub size_bytes: u64,
    /// Extraction status.
    pub processing_status: ProcessingStatus,
    /// Created.
    pub created_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A hit of `POST attachments/search`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct AttachmentSearchHit {
    /// Attachment id.
    pub id: String,
    /// File name.
    pub filename: String,
    /// MIME type.
    pub mime_type: String,
    /// What the attachment shows, or null.
    pub content_type: Option<AttachmentContentType>,
    /// Summary of extracted content, or null.
    pub summary: Option<String>,
    /// The stream it was posted in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<String>,
    /// The message it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Created.
    pub created_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
