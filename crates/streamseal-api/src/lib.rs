//! The sans-IO client core: every endpoint of API §4 as a typed request
//! that builds `{method, path, query, headers, body}`, and a parser that
//! reads `(status, headers, body)` into the endpoint's typed result or a
//! typed API error. The app owns the network.
//!
//! - [`endpoints`]: every endpoint declared once (row, request fields,
//!   response kind); the rest of this crate is generated from it or driven
//!   by it.
//! - [`catalogue`]: what a row says (method, path template, scope,
//!   credential, retry safety).
//! - [`EndpointRequest`]: one variant per endpoint with its path parameters
//!   and its wire request body ([`streamseal_wire::requests`]), validated with
//!   the wire bounds before anything is built.
//! - [`parse_response`]: the [`ApiResponse`] (its data a [`ResponseData`],
//!   the shape the bindings see) or a [`ResponseError`], each with the
//!   status, the version the response resolved and the rate-limit figures;
//!   [`endpoints::parse_response`] is the same for a Rust caller that names
//!   the endpoint by type and gets its own response type.
//! - [`paging`]: next-page requests and `clientMessageId` minting.
//!
//! Public request and response types are owned data without generics or
//! lifetimes, so that bindings can export them as they are.
//!
//! ```
//! use streamseal_api::{build_request, parse_response, Context, EndpointRequest, HttpResponse, ResponseData};
//! use streamseal_wire::{ids::WorkspaceId, requests::messages::SendMessageRequest, secret::ApiKey};
//!
//! let ctx = Context::new(
//!     "https://chat.example.test",
//!     WorkspaceId::parse("ws_01J80000000000000000000001")?,
//!     Some(ApiKey::parse("svc_bk_secret")?),
//! );
//! let send = EndpointRequest::SendMessage {
//!     stream_id: "stream_01J80000000000000000000010".into(),
//!     body: SendMessageRequest {
//!         content: Some("ship it".into()),
//!         client_message_id: Some("cmid_1".into()),
//!         ..Default::default()
//!     },
//! };
//! let request = build_request(&ctx, &send)?;
//! assert_eq!(request.method.as_str(), "POST");
//! assert_eq!(
//!     request.path,
//!     "/api/v1/workspaces/ws_01J80000000000000000000001/streams/stream_01J80000000000000000000010/messages"
//! );
//! assert!(request.retry_safe); // idempotent thanks to clientMessageId
//!
//! // The app sends it, then hands back what came.
//! let response = HttpResponse {
//!     status: 429,
//!     headers: vec![("Retry-After".into(), "7".into())],
//!     body: r#"{"error":"Too many requests","limit":60,"windowMs":60000}"#.into(),
//! };
//! let err = parse_response(&request, &response).unwrap_err();
//! let api = err.api_failure().unwrap();
//! assert_eq!((api.status, api.retry_after), (429, Some(7)));
//! assert!(api.retry_safe);
//! # Ok::<(), streamseal_api::Error>(())
//! ```

#![forbid(unsafe_code)]

pub mod catalogue;
mod encode;
pub mod endpoints;
mod error;
pub mod paging;
mod request;
mod response;
pub mod retry;

use std::fmt;

use streamseal_wire::ids::WorkspaceId;
use streamseal_wire::secret::{ApiKey, CALLBACK_TOKEN_HEADER};
use streamseal_wire::version::{ApiVersion, SERVICE_VERSION_HEADER};
pub use streamseal_wire::{Error, ErrorCode, Result};

pub use catalogue::{
    AuthKind, ENDPOINT_COUNT, ENDPOINTS, Endpoint, EndpointInfo, Family, RequiredScope, Scope,
};
pub use encode::encode_component;
pub use endpoints::EndpointRequest;
pub use error::{ApiFailure, MalformedResponse, ResponseError};
pub use request::AttachmentUpload;
pub use response::{
    ApiResponse, DataJson, JsonResponse, ResponseData, ResponseHead, parse_response,
    parse_response_json, parse_response_to,
};

// The UniFFI shape of the catalogue and the request/response records
// (feature `uniffi`, for bindings/uniffi), in the namespace
// `streamseal_api`. The generated code is the macro's, outside this crate's
// own sources, which stay free of `unsafe`.
#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("streamseal_api");

/// The fixed prefix of every API path (API §1).
pub const API_PREFIX: &str = "/api/v1/workspaces";

/// An HTTP method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "UPPERCASE")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum HttpMethod {
    /// `GET`.
    Get,
    /// `POST`.
    Post,
    /// `PATCH`.
    Patch,
    /// `DELETE`.
    Delete,
}

impl HttpMethod {
    /// The method's name.
    pub const fn as_str(self) -> &'static str {
        match self {
            HttpMethod::Get => "GET",
            HttpMethod::Post => "POST",
            HttpMethod::Patch => "PATCH",
            HttpMethod::Delete => "DELETE",
        }
    }
}

/// Where requests go and as whom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Context {
    /// `{base_url}`, e.g. `https://chat.example.test` (a trailing `/` is ignored).
    pub base_url: String,
    /// The workspace of every path.
    pub workspace_id: WorkspaceId,
    /// The API key; required by every endpoint but the webhooks.
    pub api_key: Option<ApiKey>,
    /// Sent as `Service-Version` to override the key's pin, when set.
    pub service_version: Option<ApiVersion>,
}

impl Context {
    /// A context without a version override.
    pub fn new(base_url: &str, workspace_id: WorkspaceId, api_key: Option<ApiKey>) -> Self {
        Context {
            base_url: base_url.to_owned(),
            workspace_id,
            api_key,
            service_version: None,
        }
    }
}

/// A request body.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(
        tag = "kind",
        content = "value",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )
)]
pub enum RequestBody {
    /// A JSON document, sent with `Content-Type: application/json`.
    Json(String),
    /// A `multipart/form-data` body with one binary part. The app streams
    /// the bytes and writes the boundary (and so the `Content-Type` header
    /// with it); this describes the part.
    Multipart {
        /// The form field (`file`).
        field: String,
        /// The part's file name.
        filename: String,
        /// The part's content type, e.g. `image/png`.
        content_type: String,
    },
}

impl RequestBody {
    /// The media type of the body (`multipart/form-data` needs the app's boundary).
    pub fn media_type(&self) -> &'static str {
        match self {
            RequestBody::Json(_) => "application/json",
            RequestBody::Multipart { .. } => "multipart/form-data",
        }
    }
}

impl fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // Bodies may carry claim tokens; only their size is printed.
            RequestBody::Json(json) => write!(f, "Json({} bytes)", json.len()),
            RequestBody::Multipart {
                field,
                filename,
                content_type,
            } => f
                .debug_struct("Multipart")
                .field("field", field)
                .field("filename", filename)
                .field("content_type", content_type)
                .finish(),
        }
    }
}

/// A built request, ready for any HTTP client.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct HttpRequest {
    /// The endpoint it calls (the parser needs it).
    pub endpoint: Endpoint,
    /// The method.
    pub method: HttpMethod,
    /// The path, from `/api/v1/...`, each parameter percent-encoded.
    pub path: String,
    /// The query parameters, in order, not yet encoded.
    pub query: Vec<(String, String)>,
    /// The headers, in order. May hold the key and a claim token: never log them.
    pub headers: Vec<(String, String)>,
    /// The body, when the endpoint has one.
    pub body: Option<RequestBody>,
    /// The full URL: base, path and percent-encoded query.
    pub url: String,
    /// Whether sending the same request again after an unknown outcome is
    /// safe (see [`EndpointRequest::is_retry_safe`]).
    pub retry_safe: bool,
    /// The version override sent, if any; the parser reads a response
    /// without a `Service-Version` echo in this version's shape.
    pub service_version: Option<ApiVersion>,
}

impl HttpRequest {
    /// What reading the response to this request needs of it.
    pub fn facts(&self) -> RequestFacts {
        RequestFacts {
            endpoint: self.endpoint,
            retry_safe: self.retry_safe,
            service_version: self.service_version,
        }
    }

    /// The value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The JSON body text, when the body is JSON.
    pub fn json_body(&self) -> Option<&str> {
        match &self.body {
            Some(RequestBody::Json(json)) => Some(json),
            _ => None,
        }
    }
}

/// What reading a response needs of the request it answers: the endpoint
/// (which type the body is), whether a retry is safe (a failure's
/// [`retry::RetryFacts`]) and the version override sent (the shape of a
/// body without a `Service-Version` echo).
///
/// [`parse_response`] and [`ApiFailure::from_response`] take it from a
/// whole [`HttpRequest`]. The npm package reads it from the built request
/// the app hands back, leaving the method, path, headers and body unread,
/// so that its `parseResponse` carries no reader of a request body.
///
/// ```
/// use streamseal_api::{build_request, Context, EndpointRequest, RequestFacts};
/// use streamseal_wire::{ids::WorkspaceId, secret::ApiKey};
///
/// let ctx = Context::new(
///     "https://chat.example.test",
///     WorkspaceId::parse("ws_01J80000000000000000000001")?,
///     Some(ApiKey::parse("svc_bk_secret")?),
/// );
/// let request = build_request(&ctx, &EndpointRequest::GetMe)?;
/// let facts: RequestFacts = request.facts();
/// assert_eq!(facts.endpoint, request.endpoint);
/// assert!(facts.retry_safe);
/// # Ok::<(), streamseal_api::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Deserialize),
    serde(rename_all = "camelCase")
)]
pub struct RequestFacts {
    /// The endpoint the request calls.
    pub endpoint: Endpoint,
    /// Whether sending the same request again after an unknown outcome is
    /// safe.
    pub retry_safe: bool,
    /// The version override sent, if any.
    #[cfg_attr(feature = "wasm", serde(default))]
    pub service_version: Option<ApiVersion>,
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(n, v)| {
                let secret = n.eq_ignore_ascii_case("Authorization")
                    || n.eq_ignore_ascii_case(CALLBACK_TOKEN_HEADER);
                (n.as_str(), if secret { "[redacted]" } else { v.as_str() })
            })
            .collect();
        let path = if self.endpoint.auth() == AuthKind::SecretUrl {
            "[redacted webhook URL]"
        } else {
            self.path.as_str()
        };
        f.debug_struct("HttpRequest")
            .field("endpoint", &self.endpoint)
            .field("method", &self.method)
            .field("path", &path)
            .field("query", &self.query)
            .field("headers", &headers)
            .field("body", &self.body)
            .field("retry_safe", &self.retry_safe)
            .finish()
    }
}

/// A response as the app received it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct HttpResponse {
    /// The HTTP status.
    pub status: u16,
    /// The headers (names in any case).
    pub headers: Vec<(String, String)>,
    /// The body text (empty for 204).
    pub body: String,
}

impl HttpResponse {
    pub(crate) fn header_pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }
}

/// Builds the HTTP request of `request` in `ctx`: validates its body and
/// query with the wire bounds, fills and percent-encodes the path, and sets
/// `Authorization` (not for webhooks), `Content-Type`, `Service-Version`
/// (when `ctx` asks) and `X-Service-Callback-Token` (claim-bound sealed and
/// delegation calls).
///
/// # Errors
///
/// `VALIDATION_FAILED`, as [`EndpointRequest::validate`], when the body or
/// query breaks its bounds, a path parameter is empty, `.` or `..` (keyed
/// by its name, `streamId`), or the per-claim token is empty;
/// `INVALID_FIELD` when `ctx` has no API key for an endpoint that needs one
/// (`apiKey`).
pub fn build_request(ctx: &Context, request: &EndpointRequest) -> Result<HttpRequest> {
    let parts = request.parts()?;
    let endpoint = parts.endpoint;

    let mut path = format!(
        "{API_PREFIX}/{}",
        encode_component(ctx.workspace_id.as_str())
    );
    path.push_str(&fill_template(endpoint, &parts.params)?);

    let mut headers = Vec::new();
    if endpoint.auth() != AuthKind::SecretUrl {
        let key = ctx.api_key.as_ref().ok_or_else(|| {
            Error::invalid(
                "apiKey",
                "this endpoint needs `Authorization: Bearer <key>`",
            )
        })?;
        headers.push((
            "Authorization".to_owned(),
            key.authorization_header().as_str().to_owned(),
        ));
    }
    if let Some(version) = ctx.service_version {
        headers.push((
            SERVICE_VERSION_HEADER.to_owned(),
            version.as_str().to_owned(),
        ));
    }
    if let Some(token) = parts.callback_token {
        headers.push((CALLBACK_TOKEN_HEADER.to_owned(), token));
    }
    if let Some(RequestBody::Json(_)) = &parts.body {
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
    }

    let mut url = format!("{}{path}", ctx.base_url.trim_end_matches('/'));
    for (i, (name, value)) in parts.query.iter().enumerate() {
        url.push(if i == 0 { '?' } else { '&' });
        url.push_str(&encode_component(name));
        url.push('=');
        url.push_str(&encode_component(value));
    }

    Ok(HttpRequest {
        endpoint,
        method: endpoint.method(),
        path,
        query: parts.query,
        headers,
        body: parts.body,
        url,
        retry_safe: request.is_retry_safe(),
        service_version: ctx.service_version,
    })
}

/// Fills the endpoint's path template with the encoded parameters (each
/// checked by `Parts::param`: never empty, `.` or `..`).
fn fill_template(endpoint: Endpoint, params: &[String]) -> Result<String> {
    let names = endpoint.path_params();
    if names.len() != params.len() {
        return Err(Error::invalid("path", "wrong number of path parameters"));
    }
    let mut out = endpoint.path_template().to_owned();
    for (name, value) in names.iter().zip(params) {
        out = out.replacen(&format!("{{{name}}}"), &encode_component(value), 1);
    }
    Ok(out)
}
