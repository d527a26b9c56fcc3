//! The sans-IO response parser (`api::parse_response`): status, headers and
//! body of any endpoint's response, as a hostile server may send them.
//!
//! Oracle: never panics; a non-2xx is a typed failure that keeps the status
//! and the endpoint; a 2xx that parses resolves the version from the
//! `Service-Version` echo (else the request's override, else the newest) and
//! reads the `RateLimit-*` headers the same way `RateLimitHeaders` does;
//! parsing is deterministic. And the shape tables (`parse_response_json`,
//! what the npm package's endpoint module reads with) accept exactly what
//! the typed read accepts, write the text its result's `Serialize` writes,
//! and fail the same way where it fails.
#![no_main]

use libfuzzer_sys::fuzz_target;
use streamseal::api::{
    ENDPOINTS, HttpMethod, HttpRequest, HttpResponse, parse_response, parse_response_json,
};
use streamseal::wire::error_body::RateLimitHeaders;
use streamseal::wire::version::{ApiVersion, ServiceVersion};

/// Byte 0: the endpoint; bytes 1-2: the status (big-endian); byte 3: the
/// request's version override (none when >= 128); then UTF-8 text: header
/// lines `name: value`, a NUL, the body.
/// Endpoint selector, status, version selector, headers, body.
type Parts = (u8, u16, u8, Vec<(String, String)>, String);

fn split(data: &[u8]) -> Option<Parts> {
    let [endpoint, s1, s2, version, rest @ ..] = data else {
        return None;
    };
    let text = std::str::from_utf8(rest).ok()?;
    let (head, body) = text.split_once('\0').unwrap_or(("", text));
    let headers = head
        .lines()
        .take(16)
        .map(|line| match line.split_once(':') {
            Some((n, v)) => (n.to_owned(), v.trim_start().to_owned()),
            None => (line.to_owned(), String::new()),
        })
        .collect();
    Some((
        *endpoint,
        u16::from_be_bytes([*s1, *s2]),
        *version,
        headers,
        body.to_owned(),
    ))
}

fuzz_target!(|data: &[u8]| {
    let Some((endpoint, status, version, headers, body)) = split(data) else {
        return;
    };
    let Some(&endpoint) = ENDPOINTS.get(usize::from(endpoint) % ENDPOINTS.len()) else {
        return;
    };
    let service_version = (version < 128)
        .then(|| {
            ApiVersion::ALL
                .get(usize::from(version) % ApiVersion::ALL.len())
                .copied()
        })
        .flatten();
    let request = HttpRequest {
        endpoint,
        method: HttpMethod::Post,
        path: "/api/v1/workspaces/ws_x/fuzz".into(),
        query: Vec::new(),
        headers: Vec::new(),
        body: None,
        url: "https://chat.example.test/api/v1/workspaces/ws_x/fuzz".into(),
        retry_safe: false,
        service_version,
    };
    let response = HttpResponse {
        status,
        headers: headers.clone(),
        body,
    };
    let first = parse_response(&request, &response);
    let second = parse_response(&request, &response);
    assert_eq!(first, second, "parsing is not deterministic");
    match (&first, parse_response_json(&request.facts(), &response)) {
        (Ok(typed), Ok(table)) => assert_eq!(
            serde_json::to_string(typed).expect("a typed result writes"),
            table.to_json(),
            "the shape table wrote other text than the typed result"
        ),
        (Err(typed), Err(table)) => {
            assert_eq!(typed.api_failure(), table.api_failure());
            assert_eq!(typed.malformed().is_some(), table.malformed().is_some());
        }
        (typed, table) => panic!(
            "the typed read {} and the shape table {}",
            if typed.is_ok() { "accepted" } else { "refused" },
            if table.is_ok() { "accepted" } else { "refused" },
        ),
    }
    let pairs = headers.iter().map(|(n, v)| (n.as_str(), v.as_str()));
    let echo = ServiceVersion::from_response_headers(pairs.clone());
    let shape = echo
        .as_ref()
        .map(ServiceVersion::shape)
        .or(service_version)
        .unwrap_or(ApiVersion::LATEST);
    let rate_limit = RateLimitHeaders::from_headers(pairs);
    match first {
        Ok(ok) => {
            assert!(
                (200..=299).contains(&status),
                "a {} read as a success",
                status
            );
            assert_eq!(ok.endpoint, endpoint);
            assert_eq!(ok.status, status);
            assert_eq!(ok.version, echo);
            assert_eq!(ok.shape, shape);
            assert_eq!(ok.rate_limit, rate_limit);
        }
        Err(e) => {
            // Every outcome keeps the status, the echo and the rate limits.
            assert_eq!(e.status(), status);
            assert_eq!(e.version(), echo.as_ref());
            assert_eq!(e.rate_limit(), &rate_limit);
            if let Some(api) = e.api_failure() {
                assert!(!(200..=299).contains(&status));
                assert_eq!(api.endpoint, endpoint);
            } else {
                let m = e.malformed().expect("neither an API failure nor malformed");
                assert!(
                    (200..=299).contains(&status),
                    "a {} was not an API failure",
                    status
                );
                assert_eq!(m.endpoint, endpoint);
                assert_eq!(m.shape, shape);
                assert_eq!(m.error.code(), streamseal::ErrorCode::MalformedJson);
            }
        }
    }
});
