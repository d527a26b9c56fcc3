//! Error responses (API §7): the standard body, the rate-limit body and
//! headers, the named codes, the compat webhook's plain-text errors, and
//! what each status means to a client.
//!
//! ```
//! use streamseal_wire::error_body::{ApiError, ApiErrorCode, ClientAction};
//!
//! let err = ApiError::parse(409, r#"{"error":"not open","code":"DELEGATION_NOT_OPEN"}"#);
//! assert_eq!(err.code(), Some(ApiErrorCode::DelegationNotOpen));
//! assert_eq!(err.action(), ClientAction::RefreshState);
//! // Bodies the spec does not show are kept as they came.
//! assert_eq!(ApiError::parse(404, "<html>").action(), ClientAction::NotFound);
//! ```

use serde::{Deserialize, Serialize};

use crate::extra::Extra;
use crate::http_date::parse_http_date;
use crate::open_enum::open_enum;
use streamseal_crypto::error::ValidationDetails;

open_enum!(
    /// The named error codes (`code`): an open enum.
    ApiErrorCode {
        /// 400: `Service-Version` is unknown or malformed.
        InvalidApiVersion => "INVALID_API_VERSION",
        /// 400: plaintext sent to a sealed stream.
        E2eStreamRequiresCiphertext => "E2E_STREAM_REQUIRES_CIPHERTEXT",
        /// 400: sealed payload sent to a non-sealed stream.
        E2ePayloadRequiresE2eStream => "E2E_PAYLOAD_REQUIRES_E2E_STREAM",
        /// 409: the delegation is not open (lost race).
        DelegationNotOpen => "DELEGATION_NOT_OPEN",
        /// 404: webhook unknown, wrong secret or revoked.
        NotFound => "NOT_FOUND",
    }
);

/// The standard error body: `{error, details?, code?}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    /// Human-readable message.
    pub error: String,
    /// Validation failures: field to reasons (400).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<ValidationDetails>,
    /// A named code, on some errors.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<ApiErrorCode>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

impl ErrorBody {
    /// The body a 400 with these validation details has; what
    /// [`crate::Error::ValidationFailed`] carries, in the service's shape.
    pub fn validation(details: ValidationDetails) -> Self {
        ErrorBody {
            error: "Validation failed".to_owned(),
            details: Some(details),
            code: None,
            extra: Extra::default(),
        }
    }
}

/// The 429 body: `{error, limit, windowMs}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RateLimitBody {
    /// Human-readable message.
    pub error: String,
    /// The limit that was hit.
    pub limit: u32,
    /// Its window in milliseconds.
    pub window_ms: u64,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (every
/// response) and `Retry-After` (429).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct RateLimitHeaders {
    /// `RateLimit-Limit`.
    pub limit: Option<u32>,
    /// `RateLimit-Remaining`.
    pub remaining: Option<u32>,
    /// `RateLimit-Reset`: seconds until the window resets.
    pub reset_seconds: Option<u32>,
    /// `Retry-After` in seconds: the delta-seconds form, or the HTTP-date
    /// form less the response's own `Date` (both on the server's clock, so
    /// no skew with the client's; 0 for a date already past). `None` for a
    /// date without a `Date` header: then [`RateLimitHeaders::retry_after_date`]
    /// holds it, for the caller's clock to measure.
    pub retry_after_seconds: Option<u32>,
    /// `Retry-After` given as an HTTP-date (RFC 9110 section 10.2.3), as
    /// Unix seconds.
    pub retry_after_date: Option<u64>,
}

impl RateLimitHeaders {
    /// Reads the headers (names case-insensitive); absent or unreadable
    /// values are `None`. `Retry-After` is read in both of its forms
    /// (delta-seconds and HTTP-date, RFC 9110 section 10.2.3); the date form
    /// is measured against the response's `Date` header when it has one.
    pub fn from_headers<'a>(headers: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut out = RateLimitHeaders::default();
        let mut date = None;
        for (name, value) in headers {
            let value = value.trim();
            if name.eq_ignore_ascii_case("Retry-After") {
                out.retry_after_seconds = value.parse::<u32>().ok();
                out.retry_after_date = match out.retry_after_seconds {
                    Some(_) => None,
                    None => parse_http_date(value),
                };
                continue;
            }
            if name.eq_ignore_ascii_case("Date") {
                date = parse_http_date(value);
                continue;
            }
            let slot = if name.eq_ignore_ascii_case("RateLimit-Limit") {
                &mut out.limit
            } else if name.eq_ignore_ascii_case("RateLimit-Remaining") {
                &mut out.remaining
            } else if name.eq_ignore_ascii_case("RateLimit-Reset") {
                &mut out.reset_seconds
            } else {
                continue;
            };
            *slot = value.parse::<u32>().ok();
        }
        if let (Some(at), Some(now)) = (out.retry_after_date, date) {
            out.retry_after_seconds =
                Some(u32::try_from(at.saturating_sub(now)).unwrap_or(u32::MAX));
        }
        out
    }

    /// Seconds to wait before retrying: `Retry-After`, else `RateLimit-Reset`.
    pub fn wait_seconds(&self) -> Option<u32> {
        self.retry_after_seconds.or(self.reset_seconds)
    }
}

/// What a status means to a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub enum ClientAction {
    /// 2xx (204 has no body).
    Success,
    /// 400: the request is wrong; fix the input (see `details`), do not retry as is.
    FixInput,
    /// 401: the key is missing, malformed, revoked or expired, or its owner is
    /// inactive: re-authenticate (get a new key).
    Reauthenticate,
    /// 403: authenticated but not allowed; retrying will not help.
    Forbidden,
    /// 404: not found, or the key lacks the scope to see it.
    NotFound,
    /// 409: the resource is not in the required state; re-read it before acting.
    RefreshState,
    /// 429: rate limited; retry after the indicated wait.
    RetryAfterWait,
    /// 5xx: server-side failure; retry later with backoff.
    RetryLater,
    /// Any other status.
    Unexpected,
}

impl ClientAction {
    /// The action for a status code.
    pub fn for_status(status: u16) -> Self {
        match status {
            200..=299 => ClientAction::Success,
            400 => ClientAction::FixInput,
            401 => ClientAction::Reauthenticate,
            403 => ClientAction::Forbidden,
            404 => ClientAction::NotFound,
            409 => ClientAction::RefreshState,
            429 => ClientAction::RetryAfterWait,
            500..=599 => ClientAction::RetryLater,
            _ => ClientAction::Unexpected,
        }
    }

    /// Whether the same request may succeed when sent again later.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            ClientAction::RetryAfterWait | ClientAction::RetryLater
        )
    }
}

/// The body of an error response, as far as the spec shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(tag = "kind", content = "body", rename_all = "camelCase")
)]
pub enum ApiErrorBody {
    /// `{error, details?, code?}`.
    Standard(ErrorBody),
    /// The 429 body `{error, limit, windowMs}`.
    RateLimited(RateLimitBody),
    /// Anything else (bodies of 403, 404 and 409 other than the named ones
    /// are not shown in the spec), kept as text.
    Raw(String),
}

/// An error response: its status and body. Parsing never fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: u16,
    /// The body.
    pub body: ApiErrorBody,
}

impl ApiError {
    /// Reads an error response of any status. A body that is not JSON, has
    /// a key twice in one object ([`crate::parse_value`]), or is not of a
    /// shape the spec shows is kept as text ([`ApiErrorBody::Raw`]): no code
    /// or details are read from it.
    pub fn parse(status: u16, body: &str) -> Self {
        let typed = crate::parse_value(body).ok().and_then(|value| {
            if status == 429
                && let Ok(limited) = crate::from_value::<RateLimitBody>(value.clone())
            {
                return Some(ApiErrorBody::RateLimited(limited));
            }
            crate::from_value::<ErrorBody>(value)
                .ok()
                .map(ApiErrorBody::Standard)
        });
        let body = typed.unwrap_or_else(|| ApiErrorBody::Raw(body.to_owned()));
        ApiError { status, body }
    }

    /// What the status means to the client.
    pub fn action(&self) -> ClientAction {
        ClientAction::for_status(self.status)
    }

    /// The named code, when the body has one.
    pub fn code(&self) -> Option<ApiErrorCode> {
        match &self.body {
            ApiErrorBody::Standard(b) => b.code.clone(),
            _ => None,
        }
    }

    /// Validation details of a 400, when the body has them.
    pub fn details(&self) -> Option<&ValidationDetails> {
        match &self.body {
            ApiErrorBody::Standard(b) => b.details.as_ref(),
            _ => None,
        }
    }
}

open_enum!(
    /// The plain-text error bodies of `POST hooks/{hookId}/{secret}/compat`: an open enum.
    CompatWebhookError {
        /// 400: not a JSON object, unparseable, or too large.
        InvalidPayload => "invalid_payload",
        /// 400: parsed but nothing renderable.
        NoText => "no_text",
        /// 404: unknown hook, wrong secret, revoked, or the bot can no longer post.
        NoService => "no_service",
        /// 429: a limit was hit; `Retry-After` is present.
        RateLimited => "rate_limited",
        /// 500: delivery failed server-side.
        ServerError => "server_error",
    }
);

impl CompatWebhookError {
    /// Reads a compat webhook's plain-text body (surrounding whitespace ignored).
    pub fn from_body(body: &str) -> Self {
        CompatWebhookError::parse(body.trim())
    }

    /// The status the service sends with this body.
    pub fn status(&self) -> Option<u16> {
        match self {
            CompatWebhookError::InvalidPayload | CompatWebhookError::NoText => Some(400),
            CompatWebhookError::NoService => Some(404),
            CompatWebhookError::RateLimited => Some(429),
            CompatWebhookError::ServerError => Some(500),
            CompatWebhookError::Other(_) => None,
        }
    }
}

/// The success body of the compat webhook: `text/plain` `ok` (200).
pub const COMPAT_WEBHOOK_OK: &str = "ok";
