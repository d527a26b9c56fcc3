//! The sans-IO endpoints (`streamseal::api`) with the core's names: the
//! catalogue, `clientMessageId` minting and paging helpers.
//!
//! An endpoint crosses as its id (`"sendMessage"`, the same spelling the JS
//! binding uses); `Family`, `AuthKind`, `RequiredScope` and `HttpMethod` are
//! the core's enums; a scope crosses as its wire spelling (`"messages:read"`).

use streamseal::Error;
use streamseal::api::catalogue::{
    AuthKind, ENDPOINT_COUNT, ENDPOINTS, Endpoint, Family, RequiredScope, Scope,
};
use streamseal::api::{HttpMethod, paging};

use crate::error::Result;

/// One row of the endpoint catalogue (section 4 and the scope table of section 5).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct EndpointInfo {
    /// The endpoint's id, e.g. `sendMessage`.
    pub id: String,
    /// Its family (subsection of section 4).
    pub family: Family,
    /// Its method.
    pub method: HttpMethod,
    /// The path after `/api/v1/workspaces/{workspaceId}`, with `{param}`s.
    pub path_template: String,
    /// The path parameters, in order.
    pub path_params: Vec<String>,
    /// What it needs of the caller's key.
    pub scope: RequiredScope,
    /// How it authenticates.
    pub auth: AuthKind,
    /// Whether it needs the claim's `X-Service-Callback-Token` or claim fields.
    pub claim_bound: bool,
    /// Whether sending it again after an unknown outcome is safe.
    pub idempotent: bool,
    /// Whether a 409 may mean an earlier attempt landed.
    pub conflict_may_mean_landed: bool,
}

fn info(e: Endpoint) -> EndpointInfo {
    EndpointInfo {
        id: e.id().to_owned(),
        family: e.family(),
        method: e.method(),
        path_template: e.path_template().to_owned(),
        path_params: e.path_params().into_iter().map(str::to_owned).collect(),
        scope: e.scope(),
        auth: e.auth(),
        claim_bound: e.is_claim_bound(),
        idempotent: e.is_idempotent(),
        conflict_may_mean_landed: e.conflict_may_mean_landed(),
    }
}

/// The endpoint of an id (`INVALID_FIELD` for an unknown id).
pub(crate) fn endpoint_of(id: &str) -> Result<Endpoint> {
    Endpoint::from_id(id).ok_or_else(|| {
        Error::InvalidField {
            field: "endpoint",
            reason: format!("unknown endpoint `{id}`"),
        }
        .into()
    })
}

/// Every endpoint of the catalogue, in the order of section 4.
#[uniffi::export]
pub fn endpoints() -> Vec<EndpointInfo> {
    ENDPOINTS.iter().copied().map(info).collect()
}

/// How many endpoints the catalogue has (58).
#[uniffi::export]
pub fn endpoint_count() -> u32 {
    u32::try_from(ENDPOINT_COUNT).unwrap_or(u32::MAX)
}

/// The catalogue row of `id`.
#[uniffi::export]
pub fn endpoint(id: String) -> Result<EndpointInfo> {
    Ok(info(endpoint_of(&id)?))
}

/// The scope a key granted `granted` lacks for `endpoint_id`, if any
/// (unknown scope spellings in `granted` are ignored).
#[uniffi::export]
pub fn missing_scope(endpoint_id: String, granted: Vec<String>) -> Result<Option<Scope>> {
    let granted: Vec<Scope> = granted.iter().filter_map(|s| Scope::parse(s)).collect();
    Ok(endpoint_of(&endpoint_id)?.missing_scope(&granted))
}

/// A `clientMessageId` (`cmid_` + ULID) for `now_ms`, for idempotent sends.
#[uniffi::export]
pub fn mint_client_message_id(now_ms: u64) -> Result<String> {
    Ok(paging::mint_client_message_id(now_ms)?)
}

/// The cursor of the next page: `cursor` when `has_more` and non-empty.
#[uniffi::export]
pub fn next_cursor(has_more: bool, cursor: Option<String>) -> Option<String> {
    paging::next_cursor(has_more, cursor.as_deref())
}
