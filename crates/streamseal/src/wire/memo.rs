//! Memos (section 2.5): preserved records of decisions and context, memo
//! search results, and the get-memo response with its source messages.

use serde::{Deserialize, Serialize};

use crate::wire::common::{AuthorType, StreamType};
use crate::wire::open_enum::open_enum;

open_enum!(
    /// What a memo was extracted from (`memoType`): an open enum.
    MemoType {
        /// A single message.
        Message => "message",
        /// A conversation.
        Conversation => "conversation",
    }
);

open_enum!(
    /// The kind of knowledge a memo holds (`knowledgeType`): an open enum.
    KnowledgeType {
        /// A decision.
        Decision => "decision",
        /// A learning.
        Learning => "learning",
        /// A procedure.
        Procedure => "procedure",
        /// Context.
        Context => "context",
        /// A reference.
        Reference => "reference",
    }
);

/// A memo. Every field is required; "or null" fields serialise as `null`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Memo {
    /// Memo id.
    pub id: String,
    /// Workspace id.
    pub workspace_id: String,
    /// `message` or `conversation`.
    pub memo_type: MemoType,
    /// Source message, or null.
    pub source_message_id: Option<String>,
    /// Source conversation, or null.
    pub source_conversation_id: Option<String>,
    /// Parent memo, or null.
    pub parent_memo_id: Option<String>,
    /// Why this revision was made, or null.
    pub revision_reason: Option<String>,
    /// Title.
    pub title: String,
    /// Abstract.
    #[serde(rename = "abstract")]
    pub abstract_text: String,
    /// Key points.
    pub key_points: Vec<String>,
    /// Source message ids.
    pub source_message_ids: Vec<String>,
    /// Participant ids.
    pub participant_ids: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// `decision`, `learning`, `procedure`, `context`, `reference`.
    pub knowledge_type: KnowledgeType,
    /// Status; its values are not shown in the spec.
    pub status: String,
    /// Memo version.
    pub version: u32,
    /// Created.
    pub created_at: String,
    /// Updated.
    pub updated_at: String,
    /// Archived, or null.
    pub archived_at: Option<String>,
}

/// `{id, type, name}` of a memo result's source or root stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MemoStreamRef {
    /// Stream id.
    pub id: String,
    /// Stream type (an open enum on the wire; kept as the stream types).
    #[serde(rename = "type")]
    pub stream_type: StreamType,
    /// Stream name, or null.
    pub name: Option<String>,
}

/// A memo search result: the memo's fields plus `distance`, `sourceStream`
/// and `rootStream`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MemoResult {
    /// The memo (its fields sit at the top level of the result).
    #[serde(flatten)]
    pub memo: Memo,
    /// Semantic distance.
    pub distance: f64,
    /// The source stream, or null.
    pub source_stream: Option<MemoStreamRef>,
    /// The root stream, or null.
    pub root_stream: Option<MemoStreamRef>,
}

/// `GET memos/{memoId}`: a memo result plus its provenance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MemoWithSources {
    /// The memo result (flattened).
    #[serde(flatten)]
    pub result: MemoResult,
    /// The messages the memo was extracted from.
    pub source_messages: Vec<MemoSourceMessage>,
}

/// A source message of a memo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MemoSourceMessage {
    /// Message id.
    pub id: String,
    /// Stream id.
    pub stream_id: String,
    /// Stream name.
    pub stream_name: String,
    /// Author id.
    pub author_id: String,
    /// `user`, `persona`, `system`, `bot`.
    pub author_type: AuthorType,
    /// Author name.
    pub author_name: String,
    /// Markdown content.
    pub content: String,
    /// Created.
    pub created_at: String,
}
