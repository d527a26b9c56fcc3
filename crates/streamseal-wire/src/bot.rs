//! Personal bots (API §2.8, `GET me/bots`).

use serde::{Deserialize, Serialize};

use crate::extra::Extra;
use crate::open_enum::open_enum;

open_enum!(
    /// A bot trait: an open enum.
    BotTrait {
        /// People can summon the bot with an @mention.
        Mentionable => "mentionable",
        /// The bot answers in its active scratchpad.
        ActiveScratchpad => "active-scratchpad",
    }
);

/// A personal bot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Bot {
    /// Bot id.
    pub id: String,
    /// Workspace id.
    pub workspace_id: String,
    /// Traits.
    pub traits: Vec<BotTrait>,
    /// Slug, or null.
    pub slug: Option<String>,
    /// Name.
    pub name: String,
    /// Description, or null.
    pub description: Option<String>,
    /// Avatar emoji, or null.
    pub avatar_emoji: Option<String>,
    /// Avatar URL, or null.
    pub avatar_url: Option<String>,
    /// Archived, or null.
    pub archived_at: Option<String>,
    /// Created.
    pub created_at: String,
    /// Updated.
    pub updated_at: String,
    /// Bot type; its values are not shown in the spec.
    #[serde(rename = "type")]
    pub bot_type: String,
    /// The owning user.
    pub owner_user_id: String,
    /// Present in the 2026-07-12 shape; the spec does not say whether later
    /// versions drop it, so it is optional in every version and kept when sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reads_as_owner: Option<bool>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
