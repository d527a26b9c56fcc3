//! Typed API errors (API §7): status, named code, details, rate-limit
//! figures, and whether the request may be sent again.

use std::fmt;

use crate::catalogue::Endpoint;
use crate::retry::RetryFacts;
use crate::{HttpRequest, HttpResponse, RequestFacts};
use streamseal_wire::error::{Error, ValidationDetails};
use streamseal_wire::error_body::{
    ApiError, ApiErrorBody, ApiErrorCode, ClientAction, CompatWebhookError, RateLimitHeaders,
};
use streamseal_wire::version::{ApiVersion, ServiceVersion};

/// Longest error message kept from a body that is not the standard shape.
const MAX_RAW_MESSAGE_CHARS: usize = 500;

/// A non-2xx response, read into what a client acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct ApiFailure {
    /// The endpoint that answered.
    pub endpoint: Endpoint,
    /// The HTTP status.
    pub status: u16,
    /// The named code (`code`), when the body has one.
    pub code: Option<ApiErrorCode>,
    /// The message: `error` of a JSON body, the compat webhook's plain
    /// text, or the start of any other body.
    pub message: String,
    /// Validation failures of a 400 (field to reasons).
    pub details: Option<ValidationDetails>,
    /// The compat webhook's plain-text error, for that endpoint.
    pub compat_error: Option<CompatWebhookError>,
    /// `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` and `Retry-After`.
    pub rate_limit: RateLimitHeaders,
    /// `limit` of a 429 body: the limit that was hit.
    pub limit_hit: Option<u32>,
    /// `windowMs` of a 429 body.
    pub window_ms: Option<u64>,
    /// Seconds to wait before retrying a 429 or 5xx: `Retry-After`, else
    /// `RateLimit-Reset` (429 only).
    pub retry_after: Option<u64>,
    /// What the status means to the client.
    pub action: ClientAction,
    /// Whether sending the same request again (after `retry_after`) cannot
    /// do the work twice: a 429 was refused before any work; a 5xx is safe
    /// only for an idempotent request (a send with `clientMessageId`, a
    /// read, ...).
    pub retry_safe: bool,
    /// A 409 from an endpoint where it may mean an earlier attempt of the
    /// same request landed (sealed messages and completions, invocation
    /// messages, key wraps): re-read the state instead of reporting failure.
    pub may_have_landed: bool,
    /// The version the response resolved, when echoed (absent on `INVALID_API_VERSION`).
    pub version: Option<ServiceVersion>,
    /// The body as read.
    pub body: ApiErrorBody,
    /// What [`crate::retry::RetryPolicy::step`] reads to decide the next step.
    pub retry: RetryFacts,
}

impl ApiFailure {
    /// Reads an error response to `request`.
    pub fn from_response(request: &HttpRequest, response: &HttpResponse) -> Self {
        ApiFailure::from_response_to(&request.facts(), response)
    }

    /// Reads an error response to the request of `request`'s facts.
    pub fn from_response_to(request: &RequestFacts, response: &HttpResponse) -> Self {
        let endpoint = request.endpoint;
        let status = response.status;
        let rate_limit = RateLimitHeaders::from_headers(response.header_pairs());
        let version = ServiceVersion::from_response_headers(response.header_pairs());

        let compat_error = if endpoint == Endpoint::PostCompatWebhook {
            let e = CompatWebhookError::from_body(&response.body);
            e.is_known().then_some(e)
        } else {
            None
        };
        let parsed = ApiError::parse(status, &response.body);
        let code = parsed.code();
        let details = parsed.details().cloned();
        let (message, limit_hit, window_ms) = match &parsed.body {
            ApiErrorBody::Standard(b) => (b.error.clone(), None, None),
            ApiErrorBody::RateLimited(b) => (b.error.clone(), Some(b.limit), Some(b.window_ms)),
            ApiErrorBody::Raw(text) => (
                text.trim().chars().take(MAX_RAW_MESSAGE_CHARS).collect(),
                None,
                None,
            ),
        };

        let action = ClientAction::for_status(status);
        let retry_after = match action {
            ClientAction::RetryAfterWait => rate_limit.wait_seconds(),
            ClientAction::RetryLater => rate_limit.retry_after_seconds,
            _ => None,
        }
        .map(u64::from);
        let retry_safe = match action {
            ClientAction::RetryAfterWait => true,
            ClientAction::RetryLater => request.retry_safe,
            _ => false,
        };
        let may_have_landed = status == 409 && endpoint.conflict_may_mean_landed();
        let retry = RetryFacts::of_response(
            endpoint,
            status,
            action,
            may_have_landed,
            &rate_limit,
            window_ms,
            retry_safe,
        );

        ApiFailure {
            endpoint,
            status,
            code,
            message,
            details,
            compat_error,
            rate_limit,
            limit_hit,
            window_ms,
            retry_after,
            action,
            retry_safe,
            may_have_landed,
            version,
            body: parsed.body,
            retry,
        }
    }
}

impl fmt::Display for ApiFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} answered {}", self.endpoint.id(), self.status)?;
        if let Some(code) = &self.code {
            write!(f, " {code}")?;
        }
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// A 2xx response whose body did not read as the endpoint's type, with
/// what every response carries all the same: the status, the version echo
/// (API §9.3) and the `RateLimit-*` figures (API §8), which a client needs
/// most when something went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MalformedResponse {
    /// The endpoint that answered.
    pub endpoint: Endpoint,
    /// The HTTP status (2xx).
    pub status: u16,
    /// The `Service-Version` echo, when the response carried one.
    pub version: Option<ServiceVersion>,
    /// The version whose shapes the body was read with.
    pub shape: ApiVersion,
    /// The `RateLimit-*` (and `Retry-After`) headers.
    pub rate_limit: RateLimitHeaders,
    /// Why the body did not read ([`Error::MalformedJson`]).
    pub error: Error,
}

/// Why a response did not yield the endpoint's result. Either way the
/// status, the version echo and the rate-limit figures are kept
/// ([`ResponseError::status`], [`ResponseError::version`],
/// [`ResponseError::rate_limit`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResponseError {
    /// The service answered with an error status.
    Api(Box<ApiFailure>),
    /// A 2xx body did not parse as the endpoint's type.
    Malformed(Box<MalformedResponse>),
}

impl ResponseError {
    /// The API error, when the service answered with one.
    pub fn api_failure(&self) -> Option<&ApiFailure> {
        match self {
            ResponseError::Api(f) => Some(f),
            ResponseError::Malformed(_) => None,
        }
    }

    /// The malformed 2xx, when the body did not read.
    pub fn malformed(&self) -> Option<&MalformedResponse> {
        match self {
            ResponseError::Api(_) => None,
            ResponseError::Malformed(m) => Some(m),
        }
    }

    /// The HTTP status of the response.
    pub fn status(&self) -> u16 {
        match self {
            ResponseError::Api(f) => f.status,
            ResponseError::Malformed(m) => m.status,
        }
    }

    /// The `Service-Version` echo of the response, if any.
    pub fn version(&self) -> Option<&ServiceVersion> {
        match self {
            ResponseError::Api(f) => f.version.as_ref(),
            ResponseError::Malformed(m) => m.version.as_ref(),
        }
    }

    /// The `RateLimit-*` and `Retry-After` figures of the response.
    pub fn rate_limit(&self) -> &RateLimitHeaders {
        match self {
            ResponseError::Api(f) => &f.rate_limit,
            ResponseError::Malformed(m) => &m.rate_limit,
        }
    }
}

impl fmt::Display for ResponseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseError::Api(e) => e.fmt(f),
            ResponseError::Malformed(m) => {
                write!(f, "{} answered {}: {}", m.endpoint.id(), m.status, m.error)
            }
        }
    }
}

impl std::error::Error for ResponseError {}
