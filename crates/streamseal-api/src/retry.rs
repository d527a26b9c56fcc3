//! When to send a failed request again, sans IO: capped exponential backoff
//! with full jitter, the server's own wait honoured, and for a call whose
//! outcome is unknown, the read that tells whether it landed.
//!
//! A client holds no timer here: it reads the failure into [`RetryFacts`]
//! (every [`crate::ApiFailure`] carries them as its `retry`; a request
//! that got no response at all has [`RetryFacts::no_response`]), asks a
//! [`RetryPolicy`] for the [`RetryStep`] after attempt `n`, and sleeps,
//! reads or gives up as told.
//!
//! What it decides, in order:
//!
//! - **Never resend what may do the work twice.** A 5xx or a lost response
//!   to a request that is not retry-safe (a sealed reply, a key-wrap post,
//!   a send without `clientMessageId`) is [`RetryStep::ReadBack`] naming the
//!   read that shows whether it landed ([`Endpoint::landed_read`]), or
//!   [`GiveUpReason::OutcomeUnknown`] where no read can tell (a send without
//!   an id to find it by) and after the last attempt, whatever the wait. A
//!   409 that may mean an earlier attempt landed is a read-back at once.
//! - **Final statuses are final**: 4xx other than 429 and 409, and 501 and
//!   505 (the server will not do it at all).
//! - **The server's wait first.** A 429 waits `Retry-After` (delta-seconds,
//!   or an HTTP-date: measured against the response's `Date`, else against
//!   the caller's clock), else `RateLimit-Reset`, else the body's
//!   `windowMs`; a 5xx waits its `Retry-After` when it sends one. A jitter
//!   is added on top, so that clients refused together do not return
//!   together.
//! - **Otherwise full jitter** (the AWS Architecture Blog's "Exponential
//!   Backoff and Jitter"): a delay drawn uniformly from `[0, min(cap, base *
//!   2^(attempt - 1)))`.
//! - **Bounded.** After `max_attempts` attempts, or when the wait would
//!   exceed `max_wait_ms`, give up ([`GiveUpReason::AttemptsExhausted`],
//!   [`GiveUpReason::WaitTooLong`]). Waits are capped at 2^53 - 1 ms
//!   ([`MAX_SAFE_MS`]).
//!
//! ```
//! use streamseal_api::retry::{RetryPolicy, RetryStep};
//! use streamseal_api::{ApiFailure, HttpMethod, HttpRequest, HttpResponse, catalogue::Endpoint};
//!
//! let request = HttpRequest {
//!     endpoint: Endpoint::ListStreams,
//!     method: HttpMethod::Get,
//!     path: "/api/v1/workspaces/ws_1/streams".into(),
//!     query: vec![],
//!     headers: vec![],
//!     body: None,
//!     url: "https://chat.example.test/api/v1/workspaces/ws_1/streams".into(),
//!     retry_safe: true,
//!     service_version: None,
//! };
//! let response = HttpResponse {
//!     status: 429,
//!     headers: vec![
//!         ("Date".into(), "Wed, 21 Oct 2026 07:28:00 GMT".into()),
//!         ("Retry-After".into(), "Wed, 21 Oct 2026 07:28:07 GMT".into()),
//!     ],
//!     body: r#"{"error":"Too many requests","limit":60,"windowMs":60000}"#.into(),
//! };
//! let failure = ApiFailure::from_response(&request, &response);
//! assert_eq!(failure.retry.wait_ms, Some(7_000)); // the date, on the server's clock
//!
//! let policy = RetryPolicy::default();
//! match policy.step(&failure.retry, 1, None)? {
//!     RetryStep::Retry { delay_ms } => assert!((7_000..7_500).contains(&delay_ms)),
//!     other => panic!("{other:?}"),
//! }
//! # Ok::<(), streamseal_api::Error>(())
//! ```

use streamseal_wire::error_body::ClientAction;
use streamseal_wire::random;

use crate::catalogue::Endpoint;
use crate::{HttpRequest, RequestFacts, Result};

/// How a client retries: the backoff's base and cap, and its bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RetryPolicy {
    /// The backoff of the first retry, in milliseconds; it doubles with
    /// each attempt.
    pub base_delay_ms: u64,
    /// The cap of the backoff, in milliseconds.
    pub max_delay_ms: u64,
    /// How many attempts in all, the first included: after the attempt of
    /// this number, give up.
    pub max_attempts: u32,
    /// The longest delay worth waiting, in milliseconds: a server asking
    /// for more (a `Retry-After` of an hour) gets
    /// [`GiveUpReason::WaitTooLong`], for the app to decide.
    pub max_wait_ms: u64,
}

impl Default for RetryPolicy {
    /// 500 ms doubling to a cap of 30 s, 5 attempts, waits up to 2 minutes.
    fn default() -> Self {
        RetryPolicy {
            base_delay_ms: 500,
            max_delay_ms: 30_000,
            max_attempts: 5,
            max_wait_ms: 120_000,
        }
    }
}

/// What kind of failure a request met, for the policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum RetryKind {
    /// 429: refused before any work was done; retry after the wait.
    RateLimited,
    /// 5xx: the server failed; the work may or may not have been done.
    Unavailable,
    /// No response (timeout, connection reset): the work may or may not
    /// have been done.
    NoResponse,
    /// A 409 from an endpoint where it may mean an earlier attempt landed.
    MayHaveLanded,
    /// Any other failure: sending it again as is will not help.
    Final,
}

/// What the policy needs to know of a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct RetryFacts {
    /// The endpoint called.
    pub endpoint: Endpoint,
    /// What kind of failure.
    pub kind: RetryKind,
    /// The HTTP status, when a response came.
    pub status: Option<u16>,
    /// The server's wait, in milliseconds: `Retry-After` (delta-seconds, or
    /// an HTTP-date less the response's `Date`), else for a 429
    /// `RateLimit-Reset`, else the body's `windowMs`.
    pub wait_ms: Option<u64>,
    /// `Retry-After` as an HTTP-date in Unix milliseconds, when the response
    /// had no `Date` to measure it by: the caller's clock measures it
    /// ([`RetryPolicy::step`]'s `now_ms`), and it then takes precedence
    /// over `wait_ms`.
    pub retry_at_ms: Option<u64>,
    /// Whether sending the same request again cannot do the work twice.
    pub retry_safe: bool,
}

impl RetryFacts {
    /// The facts of `request` when no response came at all (a timeout, a
    /// reset connection, a DNS failure): the work may have been done.
    pub fn no_response(request: &HttpRequest) -> Self {
        RetryFacts::no_response_to(&request.facts())
    }

    /// [`RetryFacts::no_response`] from what it reads of the request.
    pub fn no_response_to(request: &RequestFacts) -> Self {
        RetryFacts {
            endpoint: request.endpoint,
            kind: RetryKind::NoResponse,
            status: None,
            wait_ms: None,
            retry_at_ms: None,
            retry_safe: request.retry_safe,
        }
    }

    /// The facts of an error response (called by [`crate::ApiFailure::from_response`]).
    pub(crate) fn of_response(
        endpoint: Endpoint,
        status: u16,
        action: ClientAction,
        may_have_landed: bool,
        rate_limit: &streamseal_wire::error_body::RateLimitHeaders,
        window_ms: Option<u64>,
        retry_safe: bool,
    ) -> Self {
        let seconds = |s: u32| u64::from(s) * 1000;
        // 501 and 505 say the server will not do this request, now or later.
        let action = if matches!(status, 501 | 505) {
            ClientAction::Unexpected
        } else {
            action
        };
        let (kind, wait_ms) = match action {
            ClientAction::RetryAfterWait => (
                RetryKind::RateLimited,
                rate_limit.wait_seconds().map(seconds).or(window_ms),
            ),
            ClientAction::RetryLater => (
                RetryKind::Unavailable,
                rate_limit.retry_after_seconds.map(seconds),
            ),
            _ if may_have_landed => (RetryKind::MayHaveLanded, None),
            _ => (RetryKind::Final, None),
        };
        let retry_at_ms = match (kind, rate_limit.retry_after_seconds) {
            (RetryKind::RateLimited | RetryKind::Unavailable, None) => rate_limit
                .retry_after_date
                .map(|at| at.saturating_mul(1000)),
            _ => None,
        };
        // A server may name any wait; JavaScript reads numbers exactly only
        // up to 2^53 - 1.
        RetryFacts {
            endpoint,
            kind,
            status: Some(status),
            wait_ms: wait_ms.map(|w| w.min(MAX_SAFE_MS)),
            retry_at_ms: retry_at_ms.map(|w| w.min(MAX_SAFE_MS)),
            retry_safe,
        }
    }
}

/// The largest wait the policy names: 2^53 - 1 ms, a number every binding
/// (JavaScript's above all) carries exactly.
pub const MAX_SAFE_MS: u64 = (1 << 53) - 1;

/// Why the policy gives up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum GiveUpReason {
    /// The failure is final (a 400, 401, 403, 404, a 409 that is not a
    /// landed earlier attempt, ...): fix the request or the state first.
    NotRetryable,
    /// The work may have been done, the request is not safe to send again,
    /// and no read tells whether it landed: report the unknown outcome.
    OutcomeUnknown,
    /// `max_attempts` attempts were made.
    AttemptsExhausted,
    /// The wait would be longer than `max_wait_ms`.
    WaitTooLong,
}

/// What to do after a failed attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(
        tag = "step",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum RetryStep {
    /// Send the same request again after `delay_ms` milliseconds.
    Retry {
        /// The delay, in milliseconds.
        delay_ms: u64,
    },
    /// Do not send it again: after `delay_ms` milliseconds, call `endpoint`
    /// to learn whether the attempt landed (the message with its
    /// `clientMessageId` or client-minted id, the key wraps of the
    /// generation, the delegation's state), and send it again only if it
    /// did not.
    ReadBack {
        /// The read that tells.
        endpoint: Endpoint,
        /// The delay, in milliseconds.
        delay_ms: u64,
    },
    /// Stop, and report the failure.
    GiveUp {
        /// Why.
        reason: GiveUpReason,
        /// For [`GiveUpReason::WaitTooLong`], the wait asked, in milliseconds.
        wait_ms: Option<u64>,
    },
}

impl RetryPolicy {
    /// The step after attempt number `attempt` (1 for the first) failed
    /// with `facts`, the jitter drawn from the operating system. `now_ms`
    /// is the caller's clock in Unix milliseconds: it measures a
    /// `Retry-After` date that came without a `Date` header, and may be
    /// `None` where no clock is at hand (the date is then not used).
    ///
    /// # Errors
    ///
    /// `RANDOMNESS_UNAVAILABLE` when the jitter cannot be drawn.
    pub fn step(&self, facts: &RetryFacts, attempt: u32, now_ms: Option<u64>) -> Result<RetryStep> {
        let draw = u32::from_be_bytes(random::array::<4>()?);
        Ok(self.step_with_draw(facts, attempt, now_ms, draw))
    }

    /// [`RetryPolicy::step`] with the jitter given: `draw` is a uniform
    /// random `u32`, scaled to the backoff window (0 gives no jitter,
    /// `u32::MAX` almost the whole window). For tests and replays.
    pub fn step_with_draw(
        &self,
        facts: &RetryFacts,
        attempt: u32,
        now_ms: Option<u64>,
        draw: u32,
    ) -> RetryStep {
        let give_up = |reason| RetryStep::GiveUp {
            reason,
            wait_ms: None,
        };
        let jitter = self.jitter(attempt, draw);
        match facts.kind {
            RetryKind::Final => give_up(GiveUpReason::NotRetryable),
            RetryKind::MayHaveLanded => match facts.endpoint.landed_read() {
                Some(endpoint) => RetryStep::ReadBack {
                    endpoint,
                    delay_ms: 0,
                },
                None => give_up(GiveUpReason::NotRetryable),
            },
            RetryKind::RateLimited | RetryKind::Unavailable | RetryKind::NoResponse => {
                let server_wait = match (facts.retry_at_ms, now_ms) {
                    (Some(at), Some(now)) => Some(at.saturating_sub(now)),
                    _ => facts.wait_ms,
                };
                let delay = server_wait
                    .map_or(jitter, |w| w.saturating_add(jitter))
                    .min(MAX_SAFE_MS);
                // A 429 did no work; anything else may have done it. What may
                // have landed is never resent blindly, whatever the wait: it
                // is read back (after the wait, capped to the policy's), or
                // reported unknown; and past the last attempt, unknown.
                let resend_safe = facts.retry_safe || facts.kind == RetryKind::RateLimited;
                if !resend_safe {
                    return match facts.endpoint.landed_read() {
                        Some(endpoint) if attempt < self.max_attempts => RetryStep::ReadBack {
                            endpoint,
                            delay_ms: delay.min(self.max_wait_ms),
                        },
                        _ => give_up(GiveUpReason::OutcomeUnknown),
                    };
                }
                if attempt >= self.max_attempts {
                    return give_up(GiveUpReason::AttemptsExhausted);
                }
                if delay > self.max_wait_ms {
                    return RetryStep::GiveUp {
                        reason: GiveUpReason::WaitTooLong,
                        wait_ms: Some(delay),
                    };
                }
                RetryStep::Retry { delay_ms: delay }
            }
        }
    }

    /// The backoff window after attempt `attempt`: `min(cap, base *
    /// 2^(attempt - 1))`, saturating.
    pub fn backoff_window_ms(&self, attempt: u32) -> u64 {
        let doublings = attempt.saturating_sub(1);
        let factor = 1u64.checked_shl(doublings).unwrap_or(u64::MAX);
        self.base_delay_ms
            .saturating_mul(factor)
            .min(self.max_delay_ms)
    }

    /// Full jitter: `draw` scaled into `[0, window)`.
    fn jitter(&self, attempt: u32, draw: u32) -> u64 {
        let window = u128::from(self.backoff_window_ms(attempt));
        // window * draw / 2^32 < window, which is a u64.
        u64::try_from((window * u128::from(draw)) >> 32).unwrap_or(u64::MAX)
    }
}
