//! Delegations (API §2.11 and 4.11): tasks posted as cards, claimed by
//! an external agent and completed with a result.
//!
//! One base [`Delegation`] with the list fields; get, claim and complete add
//! theirs on top (flattened, as on the wire). The unknown fields of those
//! responses are kept in the base's `extra` (`delegation.extra`).
//!
//! Versions: 2026-07-22 changed where a completion's result lands (straight
//! into the card's thread) while 2026-07-12 keeps a synthetic message anchor.
//! The response fields are the same in both; [`ResultPlacement`] says which
//! meaning `resultMessageId`/`resultThreadId` have for a version. Nothing
//! more is shown, so nothing more is modelled.

use serde::{Deserialize, Serialize};

use crate::extra::Extra;
use crate::open_enum::open_enum;
use crate::secret::ClaimToken;
use crate::version::ApiVersion;

open_enum!(
    /// Delegation status: an open enum. The failed state's name is not shown
    /// in the spec; it arrives as [`DelegationStatus::Other`].
    DelegationStatus {
        /// In the open queue.
        Open => "open",
        /// Claimed, not yet reported on.
        Claimed => "claimed",
        /// Reported running.
        Running => "running",
        /// Completed.
        Completed => "completed",
        /// Expired (historical rows; still claimable by id).
        Expired => "expired",
        /// Cancelled.
        Cancelled => "cancelled",
    }
);

/// A delegation as listed (and the base of every delegation response).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Delegation {
    /// Delegation id.
    pub id: String,
    /// The stream the card is in.
    pub stream_id: String,
    /// Title.
    pub title: String,
    /// Status.
    pub status: DelegationStatus,
    /// Who claimed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claimed_by_label: Option<String>,
    /// The claimer's latest note.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_note: Option<String>,
    /// The result message (the compact anchor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_message_id: Option<String>,
    /// The conversation it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_conversation_id: Option<String>,
    /// Created.
    pub created_at: String,
    /// When the status last changed.
    pub status_changed_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `GET delegations/{id}`: adds the brief; never a claim token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DelegationDetail {
    /// The base fields.
    #[serde(flatten)]
    pub delegation: Delegation,
    /// The task brief.
    pub brief: String,
    /// Context references.
    pub context_refs: Vec<String>,
    /// The current claim's expiry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_expires_at: Option<String>,
}

/// `POST delegations/{id}/claim`: adds the claim token (shown once).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DelegationClaim {
    /// The base fields.
    #[serde(flatten)]
    pub delegation: Delegation,
    /// The claim token; send it as `X-Service-Callback-Token`.
    pub claim_token: ClaimToken,
    /// The lease expiry (15 minutes).
    pub claim_expires_at: String,
}

/// `POST delegations/{id}/complete`: adds the result thread.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DelegationCompletion {
    /// The base fields.
    #[serde(flatten)]
    pub delegation: Delegation,
    /// The thread holding the full result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_thread_id: Option<String>,
}

/// `POST delegations/{id}/heartbeat`: `{claimExpiresAt}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DelegationHeartbeat {
    /// The renewed lease expiry.
    pub claim_expires_at: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// Where a completed delegation's result lands, by version (changelog of 2026-07-22).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultPlacement {
    /// 2026-07-12: a synthetic message anchor carries the result thread.
    SyntheticMessageAnchor,
    /// From 2026-07-22: the result goes directly into the card's thread.
    CardThread,
}

impl ResultPlacement {
    /// The placement a response of `version` describes.
    pub fn for_version(version: ApiVersion) -> Self {
        if version.uses_anchor_id() {
            ResultPlacement::CardThread
        } else {
            ResultPlacement::SyntheticMessageAnchor
        }
    }
}
