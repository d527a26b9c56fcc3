//! Bot runtime presence (API §2.9) and runtime session links (4.9).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::extra::Extra;
use crate::open_enum::open_enum;

open_enum!(
    /// The runtime a bot runs in (`runtimeKind`): an open enum.
    RuntimeKind {
        /// A local agent runtime.
        AlphaLocal => "alpha-local",
        /// Runtime "beta".
        Beta => "beta",
        /// Runtime "gamma".
        Gamma => "gamma",
        /// A channel-bridged runtime.
        DeltaChannel => "delta-channel",
        /// A custom runtime.
        Custom => "custom",
    }
);

open_enum!(
    /// Presence status: an open enum.
    PresenceStatus {
        /// Ready for work.
        Available => "available",
        /// Working.
        Busy => "busy",
        /// Not running.
        Offline => "offline",
        /// Broken.
        Error => "error",
    }
);

/// A runtime's presence record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Presence {
    /// Presence id.
    pub id: String,
    /// Workspace id.
    pub workspace_id: String,
    /// The bot.
    pub bot_id: String,
    /// The runtime kind.
    pub runtime_kind: RuntimeKind,
    /// The runtime instance.
    pub instance_id: String,
    /// Display name, or null.
    pub display_name: Option<String>,
    /// Status.
    pub status: PresenceStatus,
    /// Whether the runtime claims invocations.
    pub accepting_invocations: bool,
    /// Capabilities; their shape is not shown in the spec, kept as raw JSON.
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub capabilities: Map<String, Value>,
    /// Status text, or null.
    pub status_text: Option<String>,
    /// Last heartbeat.
    pub last_seen_at: String,
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

/// A runtime session link (`POST bot-runtime/sessions`, `.../rebind`, and
/// with `displayName` `.../rename`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SessionLink {
    /// Link id.
    pub link_id: String,
    /// The session's root stream.
    pub root_stream_id: String,
    /// The stream the session currently works in.
    pub active_stream_id: String,
    /// The runtime session.
    pub runtime_session_id: String,
    /// Path of the stream in the app.
    pub stream_url_path: String,
    /// Whether the session is end-to-end encrypted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub e2e_enabled: Option<bool>,
    /// Present on the rename response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST bot-runtime/sessions/end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SessionEnded {
    /// Link id.
    pub link_id: String,
    /// Root stream.
    pub root_stream_id: String,
    /// Active stream.
    pub active_stream_id: String,
    /// Link status; values not shown in the spec.
    pub status: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `POST bot-runtime/sessions/brief` (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct BriefCreated {
    /// The invocation delivering the brief.
    pub invocation_id: String,
    /// The thread it answers into.
    pub stream_id: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
