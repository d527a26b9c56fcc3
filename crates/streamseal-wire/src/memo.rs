//! Memos (API §2.5): preserved records of decisions and context, memo
//! search results, and the get-memo response with its source messages.
//!
//! A memo result is read with the memo nested under `memo` or flattened
//! beside `distance`, and written nested (see [`MemoResult`]).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::ExtraJson as _;
use crate::common::{AuthorType, StreamType};
use crate::extra::Extra;
use crate::open_enum::open_enum;

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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
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
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `{id, type, name}` of a memo result's source or root stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
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
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A memo result (API §2.5): "a memo result wraps the memo with
/// `distance`, `sourceStream` and `rootStream`". The spec does not name the
/// key the memo sits under, so both readings are accepted:
///
/// - nested: `{"memo": {...}, "distance": .., "sourceStream": .., "rootStream": ..}`
///   (a body whose `memo` is an object is read this way);
/// - flat: the memo's fields at the top level, beside the three.
///
/// The library writes the nested form, under `memo` (the spec's word is
/// "wraps"). A body that is neither fails to parse.
///
/// Unknown fields: read nested, those inside `memo` are kept in
/// `memo.extra` and those beside it in `extra`; read flat, they cannot be
/// told apart and are all kept in `memo.extra` (so they are written back
/// inside `memo`).
///
/// ```
/// use streamseal_wire::memo::MemoResult;
///
/// let memo = r#""id":"memo_1","workspaceId":"ws_1","memoType":"message","sourceMessageId":null,
///   "sourceConversationId":null,"parentMemoId":null,"revisionReason":null,"title":"t",
///   "abstract":"a","keyPoints":[],"sourceMessageIds":[],"participantIds":[],"tags":[],
///   "knowledgeType":"decision","status":"active","version":1,
///   "createdAt":"2026-08-01T00:00:00Z","updatedAt":"2026-08-01T00:00:00Z","archivedAt":null"#;
/// let rest = r#""distance":0.25,"sourceStream":null,"rootStream":null"#;
/// let nested: MemoResult = serde_json::from_str(&format!("{{\"memo\":{{{memo}}},{rest}}}"))?;
/// let flat: MemoResult = serde_json::from_str(&format!("{{{memo},{rest}}}"))?;
/// assert_eq!(nested, flat);
/// assert!(serde_json::to_string(&flat)?.starts_with(r#"{"memo":{"id":"memo_1""#));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MemoResult {
    /// The memo, written under `memo`.
    pub memo: Memo,
    /// Semantic distance.
    pub distance: f64,
    /// The source stream, or null.
    pub source_stream: Option<MemoStreamRef>,
    /// The root stream, or null.
    pub root_stream: Option<MemoStreamRef>,
    /// Fields this library does not know beside `memo`, kept as raw JSON and
    /// written back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A required field of a memo result, taken from its map.
fn take<T: serde::de::DeserializeOwned, E: serde::de::Error>(
    map: &mut Map<String, Value>,
    key: &'static str,
) -> Result<T, E> {
    let value = map.remove(key).ok_or_else(|| E::missing_field(key))?;
    serde_json::from_value(value).map_err(E::custom)
}

impl<'de> Deserialize<'de> for MemoResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut map = Map::<String, Value>::deserialize(d)?;
        let distance = take(&mut map, "distance")?;
        let source_stream = take(&mut map, "sourceStream")?;
        let root_stream = take(&mut map, "rootStream")?;
        // Nested when `memo` is an object; otherwise the memo's fields are
        // what is left, and its unknown fields cannot be told from the
        // result's: the memo keeps them.
        let (memo, extra) = match map.remove("memo") {
            Some(memo @ Value::Object(_)) => (memo, Extra::from_json_map(map)),
            Some(other) => {
                map.insert("memo".to_owned(), other);
                (Value::Object(map), Extra::default())
            }
            None => (Value::Object(map), Extra::default()),
        };
        Ok(MemoResult {
            memo: serde_json::from_value(memo).map_err(D::Error::custom)?,
            distance,
            source_stream,
            root_stream,
            extra,
        })
    }
}

/// `GET memos/{memoId}`: a memo result plus its provenance, `sourceMessages`.
/// The result is read in either form and written nested (see
/// [`MemoResult`]); `sourceMessages` sits beside `memo`, and the unknown
/// fields beside them are kept in `result.extra`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct MemoWithSources {
    /// The memo result (its fields sit beside `sourceMessages`).
    #[serde(flatten)]
    pub result: MemoResult,
    /// The messages the memo was extracted from.
    pub source_messages: Vec<MemoSourceMessage>,
}

/// A source message of a memo.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
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
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
