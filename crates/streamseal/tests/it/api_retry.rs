//! The retry policy (issue 21): the server's wait in both `Retry-After`
//! forms, full jitter inside its window, and never a blind resend of what
//! may have landed. A hostile or broken server controls every header and
//! status here: the policy must stay inside its bounds whatever they say.

use proptest::prelude::*;
use streamseal::api::retry::{
    GiveUpReason, MAX_SAFE_MS, RetryFacts, RetryKind, RetryPolicy, RetryStep,
};
use streamseal::api::{ApiFailure, Endpoint, HttpMethod, HttpRequest, HttpResponse};

fn request(endpoint: Endpoint, retry_safe: bool) -> HttpRequest {
    HttpRequest {
        endpoint,
        method: HttpMethod::Post,
        path: "/api/v1/workspaces/ws_1/x".to_owned(),
        query: vec![],
        headers: vec![],
        body: None,
        url: "https://chat.example.test/api/v1/workspaces/ws_1/x".to_owned(),
        retry_safe,
        service_version: None,
    }
}

fn failure(
    endpoint: Endpoint,
    retry_safe: bool,
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
) -> ApiFailure {
    let response = HttpResponse {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.to_owned(),
    };
    ApiFailure::from_response(&request(endpoint, retry_safe), &response)
}

const RATE_BODY: &str = r#"{"error":"Too many requests","limit":60,"windowMs":60000}"#;
const POLICY: RetryPolicy = RetryPolicy {
    base_delay_ms: 500,
    max_delay_ms: 30_000,
    max_attempts: 5,
    max_wait_ms: 120_000,
};

fn delay(step: RetryStep) -> u64 {
    match step {
        RetryStep::Retry { delay_ms } => delay_ms,
        other => panic!("expected a retry, got {other:?}"),
    }
}

#[test]
fn retry_after_as_an_http_date_is_measured_on_the_servers_clock() {
    // The server's clock says 07:28:00 and asks for 07:28:07: 7 s, whatever
    // the client's clock says (it is not consulted).
    let f = failure(
        Endpoint::ListStreams,
        true,
        429,
        &[
            ("Date", "Wed, 21 Oct 2026 07:28:00 GMT"),
            ("Retry-After", "Wed, 21 Oct 2026 07:28:07 GMT"),
            ("RateLimit-Reset", "40"),
        ],
        RATE_BODY,
    );
    assert_eq!(f.retry_after, Some(7), "the date is no longer dropped");
    assert_eq!(f.retry.kind, RetryKind::RateLimited);
    assert_eq!(f.retry.wait_ms, Some(7_000));
    assert_eq!(f.retry.retry_at_ms, None);
    assert_eq!(delay(POLICY.step_with_draw(&f.retry, 1, Some(0), 0)), 7_000);
    // The jitter goes on top, inside the first window (500 ms).
    assert_eq!(
        delay(POLICY.step_with_draw(&f.retry, 1, Some(0), u32::MAX)),
        7_499
    );

    // The obsolete forms read too (RFC 9110 section 5.6.7).
    for date in [
        "Wednesday, 21-Oct-26 07:28:07 GMT",
        "Wed Oct 21 07:28:07 2026",
    ] {
        let f = failure(
            Endpoint::ListStreams,
            true,
            429,
            &[
                ("Date", "Wed, 21 Oct 2026 07:28:00 GMT"),
                ("Retry-After", date),
            ],
            RATE_BODY,
        );
        assert_eq!(f.retry.wait_ms, Some(7_000), "{date}");
    }

    // A date already past waits no more than the jitter.
    let past = failure(
        Endpoint::ListStreams,
        true,
        503,
        &[
            ("Date", "Wed, 21 Oct 2026 07:28:00 GMT"),
            ("Retry-After", "Wed, 21 Oct 2026 07:00:00 GMT"),
        ],
        "",
    );
    assert_eq!(past.retry.wait_ms, Some(0));
}

#[test]
fn a_date_without_a_date_header_is_measured_on_the_callers_clock() {
    let f = failure(
        Endpoint::ListStreams,
        true,
        429,
        &[("Retry-After", "Wed, 21 Oct 2026 07:28:07 GMT")],
        RATE_BODY,
    );
    let at = 1_792_567_687_000;
    assert_eq!(f.retry.retry_at_ms, Some(at));
    // Without a clock, the body's window stands in.
    assert_eq!(f.retry.wait_ms, Some(60_000));
    assert_eq!(delay(POLICY.step_with_draw(&f.retry, 1, None, 0)), 60_000);
    assert_eq!(
        delay(POLICY.step_with_draw(&f.retry, 1, Some(at - 2_500), 0)),
        2_500
    );
    assert_eq!(
        delay(POLICY.step_with_draw(&f.retry, 1, Some(at + 9_000), 0)),
        0
    );
}

#[test]
fn a_429_waits_retry_after_then_reset_then_window() {
    let by =
        |headers: &[(&str, &str)]| failure(Endpoint::SendMessage, false, 429, headers, RATE_BODY);
    assert_eq!(
        by(&[("Retry-After", "3"), ("RateLimit-Reset", "9")])
            .retry
            .wait_ms,
        Some(3_000)
    );
    assert_eq!(by(&[("RateLimit-Reset", "9")]).retry.wait_ms, Some(9_000));
    assert_eq!(by(&[]).retry.wait_ms, Some(60_000));
    // Refused before any work: resent even though a send without
    // clientMessageId is not retry-safe.
    let f = by(&[("Retry-After", "3")]);
    assert!(matches!(
        POLICY.step_with_draw(&f.retry, 1, None, 7),
        RetryStep::Retry { .. }
    ));
}

#[test]
fn what_may_have_landed_is_read_back_never_resent() {
    // A 5xx to a sealed reply: it may be stored; its client-minted id finds it.
    let f = failure(Endpoint::SealedComplete, false, 502, &[], "bad gateway");
    assert_eq!(f.retry.kind, RetryKind::Unavailable);
    match POLICY.step_with_draw(&f.retry, 1, None, u32::MAX) {
        RetryStep::ReadBack { endpoint, delay_ms } => {
            assert_eq!(endpoint, Endpoint::ListMessages);
            assert!(delay_ms < 500);
        }
        other => panic!("{other:?}"),
    }
    // A send without clientMessageId: nothing to find it by, so unknown.
    let f = failure(Endpoint::SendMessage, false, 502, &[], "bad gateway");
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 1, None, 0),
        RetryStep::GiveUp {
            reason: GiveUpReason::OutcomeUnknown,
            wait_ms: None
        }
    );
    // The same send with a clientMessageId is resent: the service dedupes.
    let f = failure(Endpoint::SendMessage, true, 502, &[], "bad gateway");
    assert!(matches!(
        POLICY.step_with_draw(&f.retry, 1, None, 1),
        RetryStep::Retry { .. }
    ));
    // No response at all to a key-wrap post: read the wraps back.
    let lost = RetryFacts::no_response(&request(Endpoint::PostKeyWraps, false));
    assert!(matches!(
        POLICY.step_with_draw(&lost, 1, None, 0),
        RetryStep::ReadBack {
            endpoint: Endpoint::GetKeyWraps,
            ..
        }
    ));
    // A 409 there means an earlier attempt landed: read at once.
    let f = failure(
        Endpoint::PostKeyWraps,
        false,
        409,
        &[],
        r#"{"error":"exists"}"#,
    );
    assert_eq!(f.retry.kind, RetryKind::MayHaveLanded);
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 4, None, u32::MAX),
        RetryStep::ReadBack {
            endpoint: Endpoint::GetKeyWraps,
            delay_ms: 0
        }
    );
    // Where no read tells, the outcome is reported unknown.
    let lost = RetryFacts::no_response(&request(Endpoint::CreateDecision, false));
    assert_eq!(
        POLICY.step_with_draw(&lost, 1, None, 0),
        RetryStep::GiveUp {
            reason: GiveUpReason::OutcomeUnknown,
            wait_ms: None
        }
    );
}

/// A long `Retry-After` does not hide that a call may have landed: a
/// "wait too long" would read as "try later", and a later resend could do
/// the work twice.
#[test]
fn a_long_wait_never_hides_what_may_have_landed() {
    let hour = [("Retry-After", "3600")];
    let f = failure(Endpoint::SealedComplete, false, 503, &hour, "");
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 1, None, 0),
        RetryStep::ReadBack {
            endpoint: Endpoint::ListMessages,
            delay_ms: POLICY.max_wait_ms
        }
    );
    let f = failure(Endpoint::SendMessage, false, 503, &hour, "");
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 1, None, 0),
        RetryStep::GiveUp {
            reason: GiveUpReason::OutcomeUnknown,
            wait_ms: None
        }
    );
    // And read-backs are bounded by the attempts like resends: past the
    // last attempt, the outcome is unknown.
    let f = failure(Endpoint::SealedComplete, false, 502, &[], "");
    for attempt in [5, 6, 99] {
        assert_eq!(
            POLICY.step_with_draw(&f.retry, attempt, None, 0),
            RetryStep::GiveUp {
                reason: GiveUpReason::OutcomeUnknown,
                wait_ms: None
            }
        );
    }
}

#[test]
fn a_501_or_505_is_final_and_a_hostile_window_stays_exact_in_js() {
    for status in [501, 505] {
        let f = failure(Endpoint::GetStream, true, status, &[], "");
        assert_eq!(f.retry.kind, RetryKind::Final, "{status}");
        assert_eq!(
            POLICY.step_with_draw(&f.retry, 1, None, 0),
            RetryStep::GiveUp {
                reason: GiveUpReason::NotRetryable,
                wait_ms: None
            }
        );
    }
    let f = failure(
        Endpoint::GetStream,
        true,
        429,
        &[],
        r#"{"error":"slow down","limit":1,"windowMs":18446744073709551615}"#,
    );
    assert_eq!(f.retry.wait_ms, Some(MAX_SAFE_MS));
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 1, None, u32::MAX),
        RetryStep::GiveUp {
            reason: GiveUpReason::WaitTooLong,
            wait_ms: Some(MAX_SAFE_MS)
        }
    );
}

#[test]
fn final_statuses_and_bounds_give_up() {
    for status in [400, 401, 403, 404, 409, 418] {
        let f = failure(Endpoint::GetStream, true, status, &[], r#"{"error":"no"}"#);
        assert_eq!(
            POLICY.step_with_draw(&f.retry, 1, None, 0),
            RetryStep::GiveUp {
                reason: GiveUpReason::NotRetryable,
                wait_ms: None
            },
            "{status}"
        );
    }
    let f = failure(Endpoint::GetStream, true, 500, &[], "");
    assert!(matches!(
        POLICY.step_with_draw(&f.retry, 4, None, 0),
        RetryStep::Retry { .. }
    ));
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 5, None, 0),
        RetryStep::GiveUp {
            reason: GiveUpReason::AttemptsExhausted,
            wait_ms: None
        }
    );
    // A server asking for a day is not waited for blindly.
    let f = failure(
        Endpoint::GetStream,
        true,
        429,
        &[("Retry-After", "86400")],
        RATE_BODY,
    );
    assert_eq!(
        POLICY.step_with_draw(&f.retry, 1, None, 0),
        RetryStep::GiveUp {
            reason: GiveUpReason::WaitTooLong,
            wait_ms: Some(86_400_000)
        }
    );
}

#[test]
fn the_backoff_window_doubles_to_its_cap_and_never_overflows() {
    let windows: Vec<u64> = (1..=8).map(|a| POLICY.backoff_window_ms(a)).collect();
    assert_eq!(
        windows,
        [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]
    );
    assert_eq!(POLICY.backoff_window_ms(0), 500);
    assert_eq!(POLICY.backoff_window_ms(u32::MAX), 30_000);
    let huge = RetryPolicy {
        base_delay_ms: u64::MAX,
        max_delay_ms: u64::MAX,
        max_attempts: u32::MAX,
        max_wait_ms: u64::MAX,
    };
    assert_eq!(huge.backoff_window_ms(64), u64::MAX);
    let lost = RetryFacts::no_response(&request(Endpoint::GetStream, true));
    // The window saturates; the delay is capped where every binding reads it exactly.
    assert_eq!(
        delay(huge.step_with_draw(&lost, 64, None, u32::MAX)),
        MAX_SAFE_MS
    );
}

#[test]
fn the_jitter_is_drawn_from_the_os() {
    let lost = RetryFacts::no_response(&request(Endpoint::GetStream, true));
    let delays: std::collections::BTreeSet<u64> = (0..64)
        .map(|_| delay(POLICY.step(&lost, 4, None).unwrap()))
        .collect();
    assert!(delays.iter().all(|d| *d < 4_000));
    // 64 draws from [0, 4000) are not all one value (chance 4000^-63).
    assert!(delays.len() > 1);
}

fn any_facts() -> impl Strategy<Value = RetryFacts> {
    (
        0..7usize,
        prop::sample::select(vec![
            RetryKind::RateLimited,
            RetryKind::Unavailable,
            RetryKind::NoResponse,
            RetryKind::MayHaveLanded,
            RetryKind::Final,
        ]),
        proptest::option::of(any::<u16>()),
        proptest::option::of(any::<u64>()),
        proptest::option::of(any::<u64>()),
        any::<bool>(),
    )
        .prop_map(
            |(e, kind, status, wait_ms, retry_at_ms, retry_safe)| RetryFacts {
                endpoint: [
                    Endpoint::SendMessage,
                    Endpoint::PostKeyWraps,
                    Endpoint::GetStream,
                    Endpoint::CreateDecision,
                    Endpoint::SealedComplete,
                    Endpoint::ClaimDelegation,
                    Endpoint::ListMessages,
                ][e],
                kind,
                status,
                wait_ms,
                retry_at_ms,
                retry_safe,
            },
        )
}

proptest! {
    /// Whatever a server sends: a resend only of what is safe (or did no
    /// work), within the attempts, never a delay past `max_wait_ms`, and
    /// never shorter than the wait the server asked for.
    #[test]
    fn every_step_stays_inside_the_policy(
        facts in any_facts(),
        attempt in 0u32..12,
        now in proptest::option::of(any::<u64>()),
        draw in any::<u32>(),
    ) {
        let step = POLICY.step_with_draw(&facts, attempt, now, draw);
        let server_wait = match (facts.retry_at_ms, now) {
            (Some(at), Some(now)) => Some(at.saturating_sub(now)),
            _ => facts.wait_ms,
        };
        match step {
            RetryStep::Retry { delay_ms } => {
                prop_assert!(facts.retry_safe || facts.kind == RetryKind::RateLimited);
                prop_assert!(matches!(
                    facts.kind,
                    RetryKind::RateLimited | RetryKind::Unavailable | RetryKind::NoResponse
                ));
                prop_assert!(attempt < POLICY.max_attempts);
                prop_assert!(delay_ms <= POLICY.max_wait_ms);
                prop_assert!(delay_ms >= server_wait.unwrap_or(0));
                prop_assert!(delay_ms < server_wait.unwrap_or(0) + POLICY.backoff_window_ms(attempt).max(1));
            }
            RetryStep::ReadBack { endpoint, delay_ms } => {
                prop_assert_eq!(Some(endpoint), facts.endpoint.landed_read());
                prop_assert!(attempt < POLICY.max_attempts || facts.kind == RetryKind::MayHaveLanded);
                prop_assert!(!facts.retry_safe || facts.kind == RetryKind::MayHaveLanded);
                prop_assert!(delay_ms <= POLICY.max_wait_ms);
            }
            RetryStep::GiveUp { reason, wait_ms } => {
                if reason == GiveUpReason::WaitTooLong {
                    prop_assert!(wait_ms.unwrap() > POLICY.max_wait_ms);
                    // Only what may be resent is told to wait.
                    prop_assert!(facts.retry_safe || facts.kind == RetryKind::RateLimited);
                } else {
                    prop_assert_eq!(wait_ms, None);
                }
            }
        }
    }

    /// `Retry-After`, `Date` and `RateLimit-Reset` as a server may bend
    /// them: read without panic, and a resend never asked sooner than a
    /// delta-seconds `Retry-After` it understood.
    #[test]
    fn bent_headers_never_panic(
        retry_after in "\\PC{0,40}",
        date in "\\PC{0,40}",
        reset in "\\PC{0,12}",
        status in 400u16..600,
    ) {
        let f = failure(
            Endpoint::ListStreams,
            true,
            status,
            &[("Retry-After", &retry_after), ("Date", &date), ("RateLimit-Reset", &reset)],
            RATE_BODY,
        );
        let step = POLICY.step_with_draw(&f.retry, 1, Some(1_800_000_000_000), 0);
        if let (Ok(seconds), RetryStep::Retry { delay_ms }) = (retry_after.trim().parse::<u32>(), step)
            && matches!(status, 429 | 500..=599)
        {
            prop_assert!(delay_ms >= u64::from(seconds) * 1000);
        }
    }
}
