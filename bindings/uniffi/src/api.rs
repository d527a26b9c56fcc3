//! The sans-IO endpoints (`streamseal::api`) under the names every binding
//! shares (Kotlin and Swift read them in camelCase, the JS package's
//! names): `build_request`, `parse_response`, the catalogue (`endpoints`,
//! `endpoint`, `endpoint_count`, `missing_scope`) and the paging helpers
//! (`next_cursor`, `next_message_query`, `next_page`,
//! `mint_client_message_id`), and the retry policy (`retry_step`,
//! `no_response_retry_facts`, `default_retry_policy`; an `Api` error
//! carries its `retry` facts).
//!
//! **The request crosses as JSON**: `EndpointRequest` has 58 variants whose
//! bodies are the wire request types (open enums, `serde_json::Value`
//! metadata, nested optional structs); a typed UniFFI mirror would copy the
//! whole request model and drift from it. Its JSON is the shape the core's
//! serde derive gives it (`{"endpoint": "sendMessage", ...}`), shared with
//! the JS binding, and `build_request` validates it like any request. The
//! typed result of `parse_response` crosses as JSON for the same reason
//! (`data_json`); everything an app branches on (status, version, rate
//! limits, error code, retry safety) is a typed field. The wire documents
//! of `next_message_query` (`ListMessagesQuery`, `MessageList`) cross as
//! JSON text too, like every wire document of this binding.
//!
//! Catalogue rows are the core's `EndpointInfo` record (`Endpoint::info`);
//! its `id` is the core's `Endpoint`, a custom type that crosses as the id
//! string (`"sendMessage"`, the same spelling the JS binding uses).
//! `Family`, `AuthKind`, `RequiredScope` and `HttpMethod` are the core's
//! enums; a scope crosses as its wire spelling (`"messages:read"`).

use std::collections::HashMap;

use streamseal::api::catalogue::{ENDPOINT_COUNT, ENDPOINTS, Endpoint, EndpointInfo, Scope};
use streamseal::api::paging::{self, PageView};
use streamseal::api::retry::{RetryFacts, RetryPolicy, RetryStep};
use streamseal::api::{self, EndpointRequest, HttpMethod, ResponseError};
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::requests::messages::ListMessagesQuery;
use streamseal::wire::secret::ApiKey;
use streamseal::wire::version::ApiVersion;

use crate::error::{Result, StreamsealError, from_json, request_from_json, to_json};

/// Every endpoint of the catalogue, in the order of API §4.
#[uniffi::export]
pub fn endpoints() -> Vec<EndpointInfo> {
    ENDPOINTS.iter().map(|e| e.info()).collect()
}

/// How many endpoints the catalogue has (58).
#[uniffi::export]
pub fn endpoint_count() -> u32 {
    u32::try_from(ENDPOINT_COUNT).unwrap_or(u32::MAX)
}

/// The catalogue row of `id` (`INVALID_FIELD` for an unknown id).
#[uniffi::export]
pub fn endpoint(id: String) -> Result<EndpointInfo> {
    Ok(Endpoint::lookup(&id)?.info())
}

/// The scope a key granted `granted` lacks for `endpoint_id`, if any
/// (unknown scope spellings in `granted` are ignored).
#[uniffi::export]
pub fn missing_scope(endpoint_id: String, granted: Vec<String>) -> Result<Option<Scope>> {
    let granted: Vec<Scope> = granted.iter().filter_map(|s| Scope::parse(s)).collect();
    Ok(Endpoint::lookup(&endpoint_id)?.missing_scope(&granted))
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

/// Where requests go and as whom (the core's `Context`, ids as text).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Context {
    /// e.g. `https://chat.example.test`.
    pub base_url: String,
    /// The workspace of every path (`ws_...`).
    pub workspace_id: String,
    /// The API key; required by every endpoint but the webhooks.
    pub api_key: Option<String>,
    /// Sent as `Service-Version` when set, e.g. `2026-08-21`.
    pub service_version: Option<String>,
}

/// One header or query parameter, in order.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct Header {
    /// The name.
    pub name: String,
    /// The value (query values not yet encoded).
    pub value: String,
}

/// A request body (the core's `RequestBody`).
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Enum)]
pub enum RequestBody {
    /// JSON, sent with `Content-Type: application/json`.
    Json {
        /// The document.
        json: String,
    },
    /// `multipart/form-data` with one binary part the app streams.
    Multipart {
        /// The form field (`file`).
        field: String,
        /// The part's file name.
        filename: String,
        /// The part's content type.
        content_type: String,
    },
}

/// A built request, ready for any HTTP client. Headers may hold the API key
/// and a claim token: never log them.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct HttpRequest {
    /// The endpoint's id.
    pub endpoint: String,
    /// The method.
    pub method: HttpMethod,
    /// The path, from `/api/v1/...`, percent-encoded.
    pub path: String,
    /// The query parameters, in order, not yet encoded.
    pub query: Vec<Header>,
    /// The headers, in order.
    pub headers: Vec<Header>,
    /// The body, when the endpoint has one.
    pub body: Option<RequestBody>,
    /// The full URL with the encoded query.
    pub url: String,
    /// Whether sending it again after an unknown outcome is safe.
    pub retry_safe: bool,
    /// The version override sent, if any.
    pub service_version: Option<String>,
}

/// A response as the app received it.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct HttpResponse {
    /// The status.
    pub status: u16,
    /// The headers (names in any case).
    pub headers: Vec<Header>,
    /// The body text (empty for 204).
    pub body: String,
}

/// A successful response, read.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct ApiResponse {
    /// The endpoint's id.
    pub endpoint: String,
    /// The 2xx status.
    pub status: u16,
    /// The `Service-Version` echo.
    pub version: Option<String>,
    /// The version whose shapes the body was read with.
    pub shape: String,
    /// `RateLimit-Limit`.
    pub rate_limit_limit: Option<u32>,
    /// `RateLimit-Remaining`.
    pub rate_limit_remaining: Option<u32>,
    /// `RateLimit-Reset` (seconds).
    pub rate_limit_reset_seconds: Option<u32>,
    /// The typed result as JSON, `{"kind": <result type>, "data": <value>}`:
    /// the same document the JS binding returns.
    pub data_json: String,
    /// The keys of a `{"data": ...}` body beside `data` that the library
    /// does not know (API §9.6), as a JSON object (`{}` when none came).
    pub extra_json: String,
}

fn pairs(list: Vec<(String, String)>) -> Vec<Header> {
    list.into_iter()
        .map(|(name, value)| Header { name, value })
        .collect()
}

fn unpairs(list: &[Header]) -> Vec<(String, String)> {
    list.iter()
        .map(|h| (h.name.clone(), h.value.clone()))
        .collect()
}

fn version_of(text: Option<&str>) -> Result<Option<ApiVersion>> {
    Ok(text.map(ApiVersion::parse).transpose()?)
}

/// Builds the HTTP request of `request_json` (an `EndpointRequest` as JSON:
/// `{"endpoint": "sendMessage", "streamId": ..., "body": {...}}`, the shape
/// the JS binding takes) in `context`; validates it with the wire bounds first.
/// Every mistake in the request, a value of the wrong type (`60.5` for
/// `claimTtlSeconds`), a missing field or an unknown `endpoint` as much as
/// a broken bound, is `VALIDATION_FAILED` with `details` keyed by the wire
/// path (`claimTtlSeconds`, `wraps[0].recipientKeyId`, `streamId`); only
/// text that is not JSON is `MALFORMED_JSON`.
#[uniffi::export]
pub fn build_request(context: Context, request_json: String) -> Result<HttpRequest> {
    let request = EndpointRequest::from_json(&request_json)?;
    let ctx = api::Context {
        base_url: context.base_url,
        workspace_id: WorkspaceId::parse(&context.workspace_id)?,
        api_key: context.api_key.as_deref().map(ApiKey::parse).transpose()?,
        service_version: version_of(context.service_version.as_deref())?,
    };
    let built = api::build_request(&ctx, &request)?;
    Ok(HttpRequest {
        endpoint: built.endpoint.id().to_owned(),
        method: built.method,
        path: built.path,
        query: pairs(built.query),
        headers: pairs(built.headers),
        body: built.body.map(|b| match b {
            api::RequestBody::Json(json) => RequestBody::Json { json },
            api::RequestBody::Multipart {
                field,
                filename,
                content_type,
            } => RequestBody::Multipart {
                field,
                filename,
                content_type,
            },
        }),
        url: built.url,
        retry_safe: built.retry_safe,
        service_version: built.service_version.map(|v| v.as_str().to_owned()),
    })
}

/// Reads the response to `request`: the typed result of a 2xx,
/// `StreamsealError.Api` for any other status (code, message, details,
/// retry figures), `StreamsealError.MalformedResponse` (`MALFORMED_JSON`)
/// when a 2xx body does not parse; each with the status, the version echo
/// and the rate-limit figures.
#[uniffi::export]
pub fn parse_response(request: HttpRequest, response: HttpResponse) -> Result<ApiResponse> {
    let core_request = core_request(request)?;
    let core_response = api::HttpResponse {
        status: response.status,
        headers: unpairs(&response.headers),
        body: response.body,
    };
    match api::parse_response(&core_request, &core_response) {
        Ok(r) => Ok(ApiResponse {
            endpoint: r.endpoint.id().to_owned(),
            status: r.status,
            version: r.version.as_ref().map(|v| v.as_str().to_owned()),
            shape: r.shape.as_str().to_owned(),
            rate_limit_limit: r.rate_limit.limit,
            rate_limit_remaining: r.rate_limit.remaining,
            rate_limit_reset_seconds: r.rate_limit.reset_seconds,
            data_json: to_json(&r.data)?,
            extra_json: to_json(&r.extra)?,
        }),
        Err(ResponseError::Malformed(m)) => Err(StreamsealError::MalformedResponse {
            code: m.error.code().as_str().to_owned(),
            error_message: m.error.to_string(),
            details: HashMap::new(),
            status: m.status,
            version: m.version.as_ref().map(|v| v.as_str().to_owned()),
            shape: m.shape.as_str().to_owned(),
            rate_limit_limit: m.rate_limit.limit,
            rate_limit_remaining: m.rate_limit.remaining,
            rate_limit_reset_seconds: m.rate_limit.reset_seconds,
        }),
        Err(ResponseError::Api(f)) => Err(StreamsealError::Api {
            code: f
                .code
                .as_ref()
                .map_or_else(|| format!("HTTP_{}", f.status), |c| c.as_str().to_owned()),
            error_message: f.message.clone(),
            details: f
                .details
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            status: f.status,
            retry_after: f.retry_after,
            retry_safe: f.retry_safe,
            may_have_landed: f.may_have_landed,
            version: f.version.as_ref().map(|v| v.as_str().to_owned()),
            rate_limit_limit: f.rate_limit.limit,
            rate_limit_remaining: f.rate_limit.remaining,
            rate_limit_reset_seconds: f.rate_limit.reset_seconds,
            retry: f.retry,
        }),
    }
}

/// The core's request of a built one (as `build_request` returned it).
fn core_request(request: HttpRequest) -> Result<api::HttpRequest> {
    Ok(api::HttpRequest {
        endpoint: Endpoint::lookup(&request.endpoint)?,
        method: request.method,
        path: request.path,
        query: unpairs(&request.query),
        headers: unpairs(&request.headers),
        body: request.body.map(|b| match b {
            RequestBody::Json { json } => api::RequestBody::Json(json),
            RequestBody::Multipart {
                field,
                filename,
                content_type,
            } => api::RequestBody::Multipart {
                field,
                filename,
                content_type,
            },
        }),
        url: request.url,
        retry_safe: request.retry_safe,
        service_version: version_of(request.service_version.as_deref())?,
    })
}

/// The request of the next page after `data_json` (an `ApiResponse`'s
/// `data_json`) answered `request_json`, as JSON; `None` on the last page,
/// for a query-ranked list (cursoring off), or for a request that does not
/// page. Only the paging fields of `data_json` are read (`paging::PageView`).
#[uniffi::export]
pub fn next_page(request_json: String, data_json: String) -> Result<Option<String>> {
    let request = EndpointRequest::from_json(&request_json)?;
    let page: PageView = from_json(&data_json)?;
    paging::next_page_of(&request, &page)
        .map(|next| to_json(&next))
        .transpose()
}

/// The query of the next page of a message list, as JSON: `query_json` (a
/// `ListMessagesQuery`, e.g. `{"limit": 50}`) paged on past `page_json`
/// (the `MessageList` it answered, e.g. the `data` of a `messages` result);
/// `None` when `hasMore` is false or no numeric sequence came. Only the
/// paging fields of `page_json` are read (`hasMore` and each message's
/// `sequence`: the core's `paging::MessagePage`), as in every binding.
#[uniffi::export]
pub fn next_message_query(query_json: String, page_json: String) -> Result<Option<String>> {
    let query: ListMessagesQuery = request_from_json(&query_json)?;
    let page: paging::MessagePage = from_json(&page_json)?;
    paging::next_message_query_of(&query, &page)
        .map(|next| to_json(&next))
        .transpose()
}

/// What to do after attempt number `attempt` (1 for the first) failed with
/// `facts` (an `Api` error's `retry`, or [`no_response_retry_facts`]):
/// retry after a delay, read back whether it landed, or give up (the
/// core's `retry::RetryPolicy::step`; the jitter is drawn from the
/// operating system). `now_ms`, the device clock in Unix milliseconds,
/// measures a `Retry-After` date that came without a `Date` header;
/// `policy` defaults to [`default_retry_policy`].
#[uniffi::export(default(now_ms = None, policy = None))]
pub fn retry_step(
    facts: RetryFacts,
    attempt: u32,
    now_ms: Option<u64>,
    policy: Option<RetryPolicy>,
) -> Result<RetryStep> {
    Ok(policy.unwrap_or_default().step(&facts, attempt, now_ms)?)
}

/// The retry facts of `request` when no response came at all (a timeout, a
/// reset connection): the work may have been done.
#[uniffi::export]
pub fn no_response_retry_facts(request: HttpRequest) -> Result<RetryFacts> {
    Ok(RetryFacts::no_response(&core_request(request)?))
}

/// The policy `retry_step` uses when given none: 500 ms doubling to 30 s,
/// 5 attempts, waits of up to 2 minutes.
#[uniffi::export]
pub fn default_retry_policy() -> RetryPolicy {
    RetryPolicy::default()
}

/// `request_json` with a `clientMessageId` minted at `now_ms` when it is a
/// `sendMessage` or `invocationMessage` without one (the core's
/// `EndpointRequest::mint_client_message_id`); any other request as it
/// came. Mint once, then send the same request on every attempt.
#[uniffi::export]
pub fn with_client_message_id(request_json: String, now_ms: u64) -> Result<String> {
    let mut request = EndpointRequest::from_json(&request_json)?;
    request.mint_client_message_id(now_ms)?;
    to_json(&request)
}
