//! Labels and label assignments (API §2.7).

use serde::{Deserialize, Serialize};

use crate::common::ActorType;
use crate::extra::Extra;
use crate::open_enum::open_enum;

open_enum!(
    /// What a label is assigned to (`resourceType`): an open enum.
    LabelResourceType {
        /// A stream.
        Stream => "stream",
        /// A message.
        Message => "message",
    }
);

/// A label.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Label {
    /// Label id.
    pub id: String,
    /// Workspace id.
    pub workspace_id: String,
    /// `user` or `bot`.
    pub creator_actor_type: ActorType,
    /// The creator.
    pub creator_actor_id: String,
    /// Name, 1 to 100 characters.
    pub name: String,
    /// Slug.
    pub slug: String,
    /// Color.
    pub color: String,
    /// Emoji, or null.
    pub emoji: Option<String>,
    /// Description, or null.
    pub description: Option<String>,
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

/// An assignment of a label to a stream or message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct LabelAssignment {
    /// The label.
    pub label_id: String,
    /// `stream` or `message`.
    pub resource_type: LabelResourceType,
    /// The labelled resource.
    pub resource_id: String,
    /// The assigning actor's type.
    pub actor_type: ActorType,
    /// The assigning actor.
    pub actor_id: String,
    /// Workspace id.
    pub workspace_id: String,
    /// When assigned.
    pub assigned_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST labels/assignments` (201): `{label, assignment}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct LabelAssigned {
    /// The label (created when the name was new).
    pub label: Label,
    /// The assignment.
    pub assignment: LabelAssignment,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
