//! The sans-IO endpoints (`streamseal::api`) under the names every binding
//! shares (UniFFI's snake_case names are these in Kotlin and Swift):
//! `buildRequest`, `parseResponse`, the catalogue (`endpoints`, `endpoint`,
//! `endpointCount`, `missingScope`), the send rules of a sealed stream
//! (`checkSendRules`), a presence body's machine key (`withMachineKey`),
//! the paging helpers (`nextCursor`,
//! `nextMessageQuery`, `nextPage`, `mintClientMessageId`) and the retry
//! policy (`retryStep`, `noResponseRetryFacts`, `defaultRetryPolicy`). The app owns the
//! network: it sends what `buildRequest` returns and hands the answer to
//! `parseResponse`.
//!
//! Catalogue rows are the core's `EndpointInfo`, built by the core
//! (`Endpoint::info`). `nextPage` reads only the paging fields of the
//! response data it is given (the core's `paging::PageView`): reading the
//! whole `ResponseData` back from JS would add a deserializer of every
//! response type to the module (measured: about 120 KB gzip, over the size
//! budget).

use serde::{Deserialize, Serialize};
use streamseal::api::{
    self, ApiFailure, ApiResponse, Endpoint, EndpointInfo, EndpointRequest, HttpRequest,
    HttpResponse, RequestFacts, ResponseError, Scope,
    paging::{self, MessagePage, PageView},
    retry::{RetryFacts, RetryPolicy, RetryStep},
};
use streamseal::identity::{KeyId, PublicKey};
use streamseal::wire::error_body::RateLimitHeaders;
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::message::MessageList;
use streamseal::wire::requests::bot_runtime::PresenceRequest;
use streamseal::wire::requests::messages::{ListMessagesQuery, SendMessageRequest};
use streamseal::wire::secret::ApiKey;
use streamseal::wire::version::{ApiVersion, ServiceVersion};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::error::{
    JsResult, error_with, from_js, input, js, output, output_json, output_text, request_input,
    request_value, to_js,
};
use streamseal::ErrorCode;

/// Where requests go and as whom (`api::Context`). The key is given as text
/// and checked by the core; it travels only in the built `Authorization`
/// header.
#[derive(Deserialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct ContextInit {
    /// `https://chat.example.test` (a trailing `/` is ignored).
    pub base_url: String,
    /// The workspace of every path (`ws_` + ULID).
    pub workspace_id: String,
    /// The API key; required by every endpoint but the webhooks.
    #[serde(default)]
    pub api_key: Option<String>,
    /// Sent as `Service-Version` when set.
    #[serde(default)]
    pub service_version: Option<ApiVersion>,
}

fn context(init: &Ts<ContextInit>) -> JsResult<api::Context> {
    let init: ContextInit = input("context", init)?;
    let workspace_id = js(WorkspaceId::parse(&init.workspace_id))?;
    let api_key = match init.api_key.as_deref() {
        Some(key) => Some(js(ApiKey::parse(key))?),
        None => None,
    };
    let mut ctx = api::Context::new(&init.base_url, workspace_id, api_key);
    ctx.service_version = init.service_version;
    Ok(ctx)
}

/// Builds `{method, path, query, headers, body, url, ...}` of one endpoint
/// call; the body is validated with the API's bounds first
/// (`VALIDATION_FAILED` with `details`). A field of the wrong type (`60.5`
/// for `claimTtlSeconds`), a missing one or an unknown `endpoint` is the same
/// `VALIDATION_FAILED`, keyed by the wire path (`claimTtlSeconds`,
/// `wraps[0].recipientKeyId`, `streamId`).
#[wasm_bindgen(js_name = buildRequest)]
pub fn build_request(
    context_init: Ts<ContextInit>,
    request: Ts<EndpointRequest>,
) -> JsResult<Ts<HttpRequest>> {
    let ctx = context(&context_init)?;
    let request = js(EndpointRequest::from_value(request_value(
        "request",
        request.js_value(),
    )?))?;
    output(&js(api::build_request(&ctx, &request))?)
}

/// What `parseResponse` returns: the typed result of a 2xx, the API's
/// failure (any other status), or a 2xx whose body did not read as the
/// endpoint's type. Each carries the status, the `Service-Version` echo and
/// the `RateLimit-*` figures.
#[derive(Serialize, Tsify)]
#[serde(tag = "status", rename_all = "camelCase")]
pub enum Parsed {
    /// A 2xx, read. Never built in Rust: [`parse_response`] writes this
    /// variant's JSON from the shape tables' text (`parse_response_json`),
    /// and the variant declares its TypeScript type; the JS suites read it.
    Ok {
        /// The typed result.
        response: Box<ApiResponse>,
    },
    /// Any other status, read.
    Failed {
        /// Status, code, details, rate limits, retry safety.
        failure: Box<ApiFailure>,
    },
    /// A 2xx whose body is not the endpoint's type (`MALFORMED_JSON`).
    Malformed {
        /// Status, version, rate limits and why the body did not read.
        failure: Box<MalformedFailure>,
    },
}

/// A 2xx whose body did not read (the core's `MalformedResponse`).
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct MalformedFailure {
    /// The endpoint that answered.
    pub endpoint: Endpoint,
    /// The HTTP status (2xx).
    pub status: u16,
    /// The `Service-Version` echo, when the response carried one.
    pub version: Option<ServiceVersion>,
    /// The version whose shapes the body was read with.
    pub shape: ApiVersion,
    /// The `RateLimit-*` and `Retry-After` headers.
    pub rate_limit: RateLimitHeaders,
    /// `MALFORMED_JSON`.
    #[tsify(type = "ErrorCode")]
    pub code: String,
    /// Why the body did not read (never the body itself).
    pub message: String,
}

/// Reads `(status, headers, body)` of the response to a built request. Of
/// `request` only what reading the response needs is read: its `endpoint`,
/// `retrySafe` and `serviceVersion` (the core's `RequestFacts`).
#[wasm_bindgen(js_name = parseResponse)]
pub fn parse_response(
    request: Ts<HttpRequest>,
    response: Ts<HttpResponse>,
) -> JsResult<Ts<Parsed>> {
    let request: RequestFacts = from_js("request", request.js_value())?;
    let response = input("response", &response)?;
    // A 2xx body is checked by its result type's shape table and crosses
    // as the JSON text the typed result would write (`parse_response_json`:
    // no reader of each result type in this module, issue 20).
    let parsed = match api::parse_response_json(&request, &response) {
        Ok(response) => {
            return output_text(&format!(
                "{{\"status\":\"ok\",\"response\":{}}}",
                response.to_json()
            ));
        }
        Err(ResponseError::Api(failure)) => Parsed::Failed { failure },
        Err(ResponseError::Malformed(m)) => Parsed::Malformed {
            failure: Box::new(MalformedFailure {
                endpoint: m.endpoint,
                status: m.status,
                version: m.version,
                shape: m.shape,
                rate_limit: m.rate_limit,
                code: m.error.code().as_str().to_owned(),
                message: m.error.to_string(),
            }),
        },
    };
    output_json(&parsed)
}

/// Every endpoint of the API, in the order of API §4 (the core's
/// `EndpointInfo` rows).
#[wasm_bindgen(unchecked_return_type = "EndpointInfo[]")]
pub fn endpoints() -> JsResult<JsValue> {
    let rows: Vec<EndpointInfo> = api::ENDPOINTS.iter().map(|e| e.info()).collect();
    to_js(&rows)
}

/// The catalogue row of `id` (`INVALID_FIELD` for an unknown id).
#[wasm_bindgen]
pub fn endpoint(
    #[wasm_bindgen(unchecked_param_type = "Endpoint")] id: String,
) -> JsResult<Ts<EndpointInfo>> {
    output(&js(Endpoint::lookup(&id))?.info())
}

/// How many endpoints the catalogue has (58).
#[wasm_bindgen(js_name = endpointCount)]
pub fn endpoint_count() -> u32 {
    u32::try_from(api::ENDPOINT_COUNT).unwrap_or(u32::MAX)
}

/// The scope a key granted `granted` lacks for `endpoint`, if any
/// (`INVALID_FIELD` for an unknown endpoint id).
#[wasm_bindgen(js_name = missingScope)]
pub fn missing_scope(
    #[wasm_bindgen(unchecked_param_type = "Endpoint")] endpoint: String,
    #[wasm_bindgen(unchecked_param_type = "Scope[]")] granted: JsValue,
) -> JsResult<Option<String>> {
    let endpoint = js(Endpoint::lookup(&endpoint))?;
    let granted: Vec<Scope> = from_js("granted", granted)?;
    Ok(endpoint
        .missing_scope(&granted)
        .map(|s| s.as_str().to_owned()))
}

/// The `after` of the next page of a cursor list (`undefined` when done).
#[wasm_bindgen(js_name = nextCursor)]
pub fn next_cursor(has_more: bool, cursor: Option<String>) -> Option<String> {
    paging::next_cursor(has_more, cursor.as_deref())
}

/// The query of the next page of a message list (`undefined` when done).
/// Only the paging fields of `page` are read (`hasMore` and each message's
/// `sequence`: the core's `paging::MessagePage`), as with `nextPage`.
#[wasm_bindgen(js_name = nextMessageQuery)]
pub fn next_message_query(
    query: Ts<ListMessagesQuery>,
    page: Ts<MessageList>,
) -> JsResult<Option<Ts<ListMessagesQuery>>> {
    let query: ListMessagesQuery = request_input("query", query.js_value())?;
    let page: MessagePage = from_js("page", page.js_value())?;
    paging::next_message_query_of(&query, &page)
        .map(|next| output_json(&next))
        .transpose()
}

/// The request of the page after `data` (the `response.data` that
/// `parseResponse` returned for `request`); `undefined` on the last page,
/// for a query-ranked list (cursoring off), or for a request that does not
/// page. Only the paging fields of `data` are read (`paging::PageView`).
#[wasm_bindgen(js_name = nextPage)]
pub fn next_page(
    request: Ts<EndpointRequest>,
    #[wasm_bindgen(unchecked_param_type = "ResponseData")] data: JsValue,
) -> JsResult<Option<Ts<EndpointRequest>>> {
    let request = js(EndpointRequest::from_value(request_value(
        "request",
        request.js_value(),
    )?))?;
    let page: PageView = from_js("data", data)?;
    paging::next_page_of(&request, &page)
        .map(|next| output_json(&next))
        .transpose()
}

/// A `clientMessageId` minted at `nowMs` (e.g. `Date.now()`): sends that
/// carry one are safe to retry.
#[wasm_bindgen(js_name = mintClientMessageId)]
pub fn mint_client_message_id(now_ms: f64) -> JsResult<String> {
    js(paging::mint_client_message_id(crate::error::whole_ms(
        now_ms,
    )?))
}

/// What to do after attempt number `attempt` (1 for the first) failed:
/// `{step: "retry", delayMs}`, `{step: "readBack", endpoint, delayMs}` (do
/// not resend: read `endpoint` to learn whether it landed) or `{step:
/// "giveUp", reason, waitMs?}` (the core's `retry::RetryPolicy::step`).
/// `facts` is a failure's `retry` (`parseResponse`) or
/// `noResponseRetryFacts(request)`; `nowMs` (e.g. `Date.now()`) measures a
/// `Retry-After` date that came without a `Date` header; `policy` defaults
/// to `defaultRetryPolicy()`. The jitter is drawn from `crypto.getRandomValues`.
#[wasm_bindgen(js_name = retryStep)]
pub fn retry_step(
    facts: Ts<RetryFacts>,
    attempt: u32,
    now_ms: Option<f64>,
    policy: Option<Ts<RetryPolicy>>,
) -> JsResult<Ts<RetryStep>> {
    let facts = input("facts", &facts)?;
    let policy = match policy {
        Some(p) => input("policy", &p)?,
        None => RetryPolicy::default(),
    };
    let now_ms = now_ms.map(crate::error::whole_ms).transpose()?;
    output(&js(policy.step(&facts, attempt, now_ms))?)
}

/// The retry facts of `request` when no response came at all (a timeout, a
/// reset connection, an aborted `fetch`): the work may have been done.
#[wasm_bindgen(js_name = noResponseRetryFacts)]
pub fn no_response_retry_facts(request: Ts<HttpRequest>) -> JsResult<Ts<RetryFacts>> {
    let request: RequestFacts = from_js("request", request.js_value())?;
    output(&RetryFacts::no_response_to(&request))
}

/// The policy `retryStep` uses when given none: 500 ms doubling to 30 s,
/// 5 attempts, waits of up to 2 minutes.
#[wasm_bindgen(js_name = defaultRetryPolicy)]
pub fn default_retry_policy() -> JsResult<Ts<RetryPolicy>> {
    output(&RetryPolicy::default())
}

/// `request` with a `clientMessageId` minted at `nowMs` when it is a
/// `sendMessage` or `invocationMessage` without one (the core's
/// `EndpointRequest::mint_client_message_id`); any other request as it
/// came. Mint once, then send the same request on every attempt.
#[wasm_bindgen(js_name = withClientMessageId)]
pub fn with_client_message_id(
    request: Ts<EndpointRequest>,
    now_ms: f64,
) -> JsResult<Ts<EndpointRequest>> {
    let mut request = js(EndpointRequest::from_value(request_value(
        "request",
        request.js_value(),
    )?))?;
    js(request.mint_client_message_id(crate::error::whole_ms(now_ms)?))?;
    output_json(&request)
}

/// Checks a send body against what the caller knows (`knownSealed`: its
/// `StreamState.isSealed`, from the first module) and the stream's
/// `e2eEnabled` as the server gave it: plaintext to a known-sealed stream
/// the server presents as plain is `SEALED_STREAM_DOWNGRADE`; otherwise the
/// service's own codes, and the body's bounds (`VALIDATION_FAILED`).
///
/// It lives in this module because it reads the whole request body through
/// the request decoder that `buildRequest` uses: in the first module that
/// decoder cost 80 KB of code (28.5 KB gzip) for this one call, and an app
/// that sends loads this module to build the request anyway.
#[wasm_bindgen(js_name = checkSendRules)]
pub fn check_send_rules(
    known_sealed: bool,
    e2e_enabled: Option<bool>,
    body: Ts<SendMessageRequest>,
) -> JsResult<()> {
    let body: SendMessageRequest = crate::error::request_shape_input("body", body.js_value())?;
    js(streamseal::sealed::messages::check_send_rules(
        known_sealed,
        e2e_enabled,
        &body,
    ))
}

#[wasm_bindgen(typescript_custom_section)]
const MACHINE_KEY_TS: &str = r#"
/** The public half of a machine's key, as an `IdentityKey` of the first module has it. */
export interface MachineKey {
  /** 44 characters of padded base64 (X25519). */
  readonly publicKey: string;
  /** 1 to 128 characters. */
  readonly keyId: string;
}
"#;

/// A string property of the caller's key; a getter that throws (a freed
/// `IdentityKey`, a revoked proxy) is `INVALID_FIELD` too.
fn key_text(key: &JsValue, name: &str) -> JsResult<String> {
    if !key.is_object() {
        return Err(error_with(
            ErrorCode::InvalidField,
            "field `key` is invalid: expected an IdentityKey (its publicKey and keyId)",
        ));
    }
    js_sys::Reflect::get(key, &JsValue::from_str(name))
        .ok()
        .and_then(|value| value.as_string())
        .ok_or_else(|| {
            error_with(
                ErrorCode::InvalidField,
                &format!(
                    "field `key.{name}` is invalid: expected a string (an IdentityKey not freed)"
                ),
            )
        })
}

/// `presence` with this machine's key set (`publicKey`, `publicKeyId`),
/// validated: `key` is the runtime's `IdentityKey` (of the first module),
/// of which only the public half is read. It lives in this module, next to
/// the request it completes, because reading a whole presence body from JS
/// cost the first module 30 KB of code (twiggy dominators).
#[wasm_bindgen(js_name = withMachineKey)]
pub fn with_machine_key(
    presence: Ts<PresenceRequest>,
    #[wasm_bindgen(unchecked_param_type = "MachineKey")] key: &JsValue,
) -> JsResult<Ts<PresenceRequest>> {
    let public_key = js(PublicKey::from_base64(&key_text(key, "publicKey")?))?;
    let key_id = js(KeyId::new(key_text(key, "keyId")?))?;
    // Read and written as `buildRequest` reads and writes a request body,
    // with the decoder and serializer this module has for it already.
    let presence: PresenceRequest =
        crate::error::request_shape_input("presence", presence.js_value())?;
    output_json(&js(streamseal::sealed::presence::with_public_key(
        presence,
        &public_key,
        &key_id,
    ))?)
}
