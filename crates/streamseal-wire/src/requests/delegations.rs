//! Delegation requests (API §4.11). Claim-bound calls send the claim
//! token as `X-Service-Callback-Token`, not in the body. `heartbeat` and
//! `release` have no body.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::delegation::DelegationStatus;
use crate::requests::{QueryParams, Validate, push};
use crate::validate::Check;
use streamseal_crypto::error::Result;

/// Query of `GET delegations`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ListDelegationsQuery {
    /// Status filter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<DelegationStatus>,
    /// Date-time (RFC 3339, checked by `validate`) compared with `statusChangedAt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

impl Validate for ListDelegationsQuery {
    fn validate(&self) -> Result<()> {
        // `since` is a date-time; the status filter's accepted values are
        // not listed beyond the status names, so any status passes.
        let mut c = Check::new();
        c.opt_date_time("since", self.since.as_deref());
        c.finish()
    }
}

impl QueryParams for ListDelegationsQuery {
    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "status", self.status.as_ref());
        push(&mut out, "since", self.since.as_ref());
        out
    }
}

/// `POST delegations/{id}/claim`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ClaimDelegationRequest {
    /// Who claims (required).
    pub claimed_by_label: String,
    /// Re-keys only the current unexpired claimed or running claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
}

impl Validate for ClaimDelegationRequest {
    fn validate(&self) -> Result<()> {
        // The spec gives this body no bounds beyond its required fields,
        // which the type itself requires.
        Ok(())
    }
}

/// `POST delegations/{id}/status`: marks running and replaces the card note.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DelegationStatusRequest {
    /// The note.
    pub status_note: String,
}

impl Validate for DelegationStatusRequest {
    fn validate(&self) -> Result<()> {
        // The spec gives this body no bounds beyond its required fields,
        // which the type itself requires.
        Ok(())
    }
}

/// `POST delegations/{id}/complete`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CompleteDelegationRequest {
    /// The result; posted as a compact anchor plus the full result in a thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_markdown: Option<String>,
    /// Stamped on the result message (findable via find-by-metadata).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
}

impl Validate for CompleteDelegationRequest {
    fn validate(&self) -> Result<()> {
        // The spec gives this body no bounds beyond its required fields,
        // which the type itself requires.
        Ok(())
    }
}

/// `POST delegations/{id}/fail`: `{errorMessage}`. The full body is not
/// shown in the spec; only this field is modelled.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct FailDelegationRequest {
    /// The reason put on the card.
    pub error_message: String,
}

impl Validate for FailDelegationRequest {
    fn validate(&self) -> Result<()> {
        // The spec gives this body no bounds beyond its required fields,
        // which the type itself requires.
        Ok(())
    }
}
