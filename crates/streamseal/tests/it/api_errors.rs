//! Error responses of section 7 through the client core, retry safety,
//! versions, scopes, paging and the request-side checks.

use serde_json::json;
use streamseal::api::paging::{mint_client_message_id, next_page};
use streamseal::api::{
    ApiFailure, Context, Endpoint, EndpointRequest, HttpRequest, HttpResponse, ResponseData,
    ResponseError, Scope, build_request, parse_response,
};
use streamseal::wire::error_body::{
    ApiErrorCode, ClientAction, CompatWebhookError, RateLimitHeaders,
};
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::list::StreamPage;
use streamseal::wire::requests::messages::{ListMessagesQuery, SendMessageRequest};
use streamseal::wire::requests::webhooks::CompatWebhookPayload;
use streamseal::wire::secret::{ApiKey, CallbackToken};
use streamseal::wire::version::{ApiVersion, ServiceVersion};
use streamseal::{Error, ErrorCode};

use crate::support::wire_fixture;

const WS: &str = "ws_01J80000000000000000000001";
const STREAM: &str = "stream_01J80000000000000000000010";
const INV: &str = "inv_01J80000000000000000000040";

fn ctx() -> Context {
    Context::new(
        "https://chat.example.test",
        WorkspaceId::parse(WS).unwrap(),
        Some(ApiKey::parse("svc_uk_test").unwrap()),
    )
}

fn send(client_message_id: Option<&str>) -> HttpRequest {
    build_request(
        &ctx(),
        &EndpointRequest::SendMessage {
            stream_id: STREAM.into(),
            body: SendMessageRequest {
                content: Some("hi".into()),
                client_message_id: client_message_id.map(Into::into),
                ..Default::default()
            },
        },
    )
    .unwrap()
}

fn sealed_message() -> HttpRequest {
    build_request(
        &ctx(),
        &EndpointRequest::SealedMessage {
            invocation_id: INV.into(),
            callback_token: CallbackToken::from("cbt_x".to_owned()),
            body: serde_json::from_value(json!({"messageId": "msg_01J80000000000000000000020",
                "ciphertext": "c3RlcA==", "envelope": {"v": 2, "keyGeneration": 0,
                "iv": "AAECAwQFBgcICQoL", "aad": "YWFk"}}))
            .unwrap(),
        },
    )
    .unwrap()
}

fn fail(request: &HttpRequest, status: u16, headers: &[(&str, &str)], body: &str) -> ApiFailure {
    let response = HttpResponse {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.to_owned(),
    };
    match parse_response(request, &response) {
        Err(ResponseError::Api(f)) => *f,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[test]
fn validation_400_has_details_and_is_not_retried() {
    let f = fail(
        &send(None),
        400,
        &[],
        &wire_fixture("error_validation.json"),
    );
    assert_eq!(f.action, ClientAction::FixInput);
    assert!(f.details.as_ref().unwrap().contains_key("claimTtlSeconds"));
    assert_eq!(f.message, "Validation failed");
    assert!(!f.retry_safe && !f.may_have_landed);
}

#[test]
fn every_named_code_is_read() {
    let cases = [
        (
            400,
            "INVALID_API_VERSION",
            ApiErrorCode::InvalidApiVersion,
            ClientAction::FixInput,
        ),
        (
            400,
            "E2E_STREAM_REQUIRES_CIPHERTEXT",
            ApiErrorCode::E2eStreamRequiresCiphertext,
            ClientAction::FixInput,
        ),
        (
            400,
            "E2E_PAYLOAD_REQUIRES_E2E_STREAM",
            ApiErrorCode::E2ePayloadRequiresE2eStream,
            ClientAction::FixInput,
        ),
        (
            409,
            "DELEGATION_NOT_OPEN",
            ApiErrorCode::DelegationNotOpen,
            ClientAction::RefreshState,
        ),
        (
            404,
            "NOT_FOUND",
            ApiErrorCode::NotFound,
            ClientAction::NotFound,
        ),
    ];
    for (status, code, expected, action) in cases {
        let body = json!({"error": "e", "code": code}).to_string();
        let f = fail(&send(Some("cmid_1")), status, &[], &body);
        assert_eq!(f.status, status);
        assert_eq!(f.code, Some(expected), "{code}");
        assert_eq!(f.action, action);
        assert!(!f.retry_safe, "{code}");
    }
    // The fixtures as the wire tests know them.
    let f = fail(
        &send(None),
        400,
        &[],
        &wire_fixture("error_invalid_api_version.json"),
    );
    assert_eq!(f.code, Some(ApiErrorCode::InvalidApiVersion));
    assert_eq!(f.version, None, "INVALID_API_VERSION has no echo");
    let f = fail(
        &send(None),
        409,
        &[],
        &wire_fixture("error_delegation_not_open.json"),
    );
    assert_eq!(f.code, Some(ApiErrorCode::DelegationNotOpen));
}

#[test]
fn rate_limited_429_carries_headers_and_body_figures() {
    let f = fail(
        &send(None),
        429,
        &[
            ("RateLimit-Limit", "60"),
            ("ratelimit-remaining", "0"),
            ("RateLimit-Reset", "42"),
            ("Retry-After", "7"),
        ],
        &wire_fixture("error_rate_limited.json"),
    );
    assert_eq!(f.action, ClientAction::RetryAfterWait);
    assert_eq!(f.rate_limit.limit, Some(60));
    assert_eq!(f.rate_limit.remaining, Some(0));
    assert_eq!(f.rate_limit.reset_seconds, Some(42));
    assert_eq!(f.retry_after, Some(7));
    assert_eq!((f.limit_hit, f.window_ms), (Some(60), Some(60_000)));
    assert_eq!(f.message, "Too many requests");
    // Refused before any work: safe to send again, even without clientMessageId.
    assert!(f.retry_safe);

    // Without Retry-After the reset is the wait.
    let f = fail(
        &send(None),
        429,
        &[("RateLimit-Reset", "42")],
        &wire_fixture("error_rate_limited.json"),
    );
    assert_eq!(f.retry_after, Some(42));
}

#[test]
fn server_errors_are_retry_safe_only_for_idempotent_sends() {
    let f = fail(
        &send(Some("cmid_1")),
        503,
        &[("Retry-After", "3")],
        "<html>busy</html>",
    );
    assert_eq!(f.action, ClientAction::RetryLater);
    assert!(f.retry_safe);
    assert_eq!(f.retry_after, Some(3));
    assert_eq!(f.message, "<html>busy</html>");

    let f = fail(&send(None), 503, &[], "");
    assert!(
        !f.retry_safe,
        "a send without clientMessageId may land twice"
    );
}

#[test]
fn a_409_after_a_sealed_send_may_mean_it_landed() {
    let f = fail(&sealed_message(), 409, &[], r#"{"error":"conflict"}"#);
    assert_eq!(f.action, ClientAction::RefreshState);
    assert!(f.may_have_landed);
    assert!(!f.retry_safe);
    // Not so for a plain send.
    assert!(!fail(&send(None), 409, &[], "{}").may_have_landed);
}

#[test]
fn compat_webhook_plain_text_errors() {
    let request = build_request(
        &Context {
            api_key: None,
            ..ctx()
        },
        &EndpointRequest::PostCompatWebhook {
            hook_id: "hook_1".into(),
            secret: "s".into(),
            body: CompatWebhookPayload(json!({"text": "hi"})),
        },
    )
    .unwrap();
    assert_eq!(request.header("Authorization"), None);
    let cases = [
        (400, "invalid_payload", CompatWebhookError::InvalidPayload),
        (400, "no_text", CompatWebhookError::NoText),
        (404, "no_service", CompatWebhookError::NoService),
        (429, "rate_limited", CompatWebhookError::RateLimited),
        (500, "server_error", CompatWebhookError::ServerError),
    ];
    for (status, text, expected) in cases {
        let f = fail(
            &request,
            status,
            &[("Retry-After", "30")],
            &format!("{text}\n"),
        );
        assert_eq!(f.compat_error, Some(expected.clone()), "{text}");
        assert_eq!(expected.status(), Some(status));
        assert_eq!(f.message, text);
        assert_eq!(f.code, None);
        if status == 429 {
            assert_eq!(f.retry_after, Some(30));
            assert!(f.retry_safe);
        }
    }
}

#[test]
fn native_webhook_not_found_uses_the_json_shape() {
    let request = build_request(
        &ctx(),
        &EndpointRequest::PostWebhook {
            hook_id: "hook_1".into(),
            secret: "s".into(),
            body: serde_json::from_value(json!({"content": "x"})).unwrap(),
        },
    )
    .unwrap();
    // Even with a key in the context, a webhook sends none.
    assert_eq!(request.header("Authorization"), None);
    assert!(!format!("{request:?}").contains("/hooks/hook_1/s"));
    let f = fail(
        &request,
        404,
        &[],
        r#"{"error":"Not found","code":"NOT_FOUND"}"#,
    );
    assert_eq!(f.code, Some(ApiErrorCode::NotFound));
    assert_eq!(f.compat_error, None);
}

#[test]
fn auth_failures_map_to_actions() {
    for (status, action) in [
        (401, ClientAction::Reauthenticate),
        (403, ClientAction::Forbidden),
        (404, ClientAction::NotFound),
    ] {
        let f = fail(&send(None), status, &[], "");
        assert_eq!(f.action, action);
        assert!(f.message.is_empty());
    }
}

#[test]
fn malformed_success_bodies_are_malformed_json() {
    let response = HttpResponse {
        status: 201,
        headers: vec![],
        body: "{not json".into(),
    };
    match parse_response(&send(None), &response) {
        Err(ResponseError::Malformed(m)) => {
            assert_eq!(m.error.code(), ErrorCode::MalformedJson);
            assert_eq!((m.endpoint, m.status), (Endpoint::SendMessage, 201));
        }
        other => panic!("{other:?}"),
    }
    let response = HttpResponse {
        status: 200,
        headers: vec![],
        body: r#"{"data": 5}"#.into(),
    };
    assert!(matches!(
        parse_response(&send(None), &response),
        Err(ResponseError::Malformed(m)) if matches!(m.error, Error::MalformedJson { .. })
    ));
}

/// API §8: every response carries `RateLimit-*`; API §9.3: a response that
/// resolved a version echoes it. Both survive a body that does not read and
/// an error status, where a client needs them most (issue 17).
#[test]
fn version_and_rate_limits_come_with_every_outcome() {
    let headers = [
        ("Service-Version", "2026-07-24"),
        ("RateLimit-Limit", "60"),
        ("RateLimit-Remaining", "0"),
        ("RateLimit-Reset", "12"),
    ];
    let response = |status: u16, body: &str| HttpResponse {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
            .collect(),
        body: body.to_owned(),
    };
    let expected = RateLimitHeaders {
        limit: Some(60),
        remaining: Some(0),
        reset_seconds: Some(12),
        retry_after_seconds: None,
        retry_after_date: None,
    };
    let echo = Some(ServiceVersion::Known(ApiVersion::V2026_07_24));
    let cases = [
        (201, "{not json"),
        (201, r#"{"data": 5}"#),
        (201, ""),
        (400, r#"{"error":"bad","details":{"content":["required"]}}"#),
        (404, "not json at all"),
        (409, ""),
        (429, r#"{"error":"slow down","limit":60,"windowMs":60000}"#),
        (500, "<html>"),
    ];
    for (status, body) in cases {
        let err = parse_response(&send(None), &response(status, body)).unwrap_err();
        assert_eq!(err.status(), status, "{body}");
        assert_eq!(err.rate_limit(), &expected, "{status} {body}");
        assert_eq!(err.version(), echo.as_ref(), "{status} {body}");
        assert_eq!(err.malformed().is_some(), status < 300);
        assert_eq!(err.api_failure().is_some(), status >= 300);
        if let Some(m) = err.malformed() {
            assert_eq!(m.shape, ApiVersion::V2026_07_24);
            assert_eq!(m.error.code(), ErrorCode::MalformedJson);
        }
    }
    let ok = parse_response(
        &send(None),
        &response(201, &wire_fixture("message_send_2026-08-21.json")),
    )
    .unwrap();
    assert_eq!((ok.rate_limit, ok.version), (expected, echo));
}

#[test]
fn service_version_override_and_echo() {
    let ctx = Context {
        service_version: Some(ApiVersion::V2026_07_12),
        ..ctx()
    };
    let request = build_request(
        &ctx,
        &EndpointRequest::GetStream {
            stream_id: STREAM.into(),
        },
    )
    .unwrap();
    assert_eq!(request.header("Service-Version"), Some("2026-07-12"));
    assert_eq!(
        request.headers,
        vec![
            ("Authorization".to_owned(), "Bearer svc_uk_test".to_owned()),
            ("Service-Version".to_owned(), "2026-07-12".to_owned()),
        ]
    );
    // No echo: the body is read in the requested version's shape.
    let response = HttpResponse {
        status: 200,
        headers: vec![],
        body: wire_fixture("stream_2026-07-12.json"),
    };
    let parsed = parse_response(&request, &response).unwrap();
    assert_eq!(parsed.version, None);
    assert_eq!(parsed.shape, ApiVersion::V2026_07_12);
    let ResponseData::Stream(stream) = parsed.data else {
        panic!()
    };
    assert!(stream.anchor_id.is_some());

    // A newer version than this library: kept, read as the latest shape.
    let response = HttpResponse {
        status: 200,
        headers: vec![("Service-Version".into(), "2027-01-01".into())],
        body: wire_fixture("stream_2026-07-22.json"),
    };
    let parsed = parse_response(&request, &response).unwrap();
    assert_eq!(
        parsed.version,
        Some(ServiceVersion::Unknown("2027-01-01".into()))
    );
    assert_eq!(parsed.shape, ApiVersion::LATEST);
}

#[test]
fn bodies_are_validated_before_building() {
    let err = build_request(
        &ctx(),
        &EndpointRequest::SendMessage {
            stream_id: STREAM.into(),
            body: SendMessageRequest {
                content: Some("hi".into()),
                client_message_id: Some("x".repeat(129)),
                ..Default::default()
            },
        },
    )
    .unwrap_err();
    assert!(err.details().unwrap().contains_key("clientMessageId"));

    let err = build_request(
        &ctx(),
        &EndpointRequest::ListMessages {
            stream_id: STREAM.into(),
            query: ListMessagesQuery {
                limit: Some(101),
                ..Default::default()
            },
        },
    )
    .unwrap_err();
    assert!(err.details().unwrap().contains_key("limit"));
}

#[test]
fn path_parameters_are_escaped_and_checked() {
    let build = |id: &str| {
        build_request(
            &ctx(),
            &EndpointRequest::GetStream {
                stream_id: id.into(),
            },
        )
    };
    let r = build("a/b?c#d e").unwrap();
    assert_eq!(
        r.path,
        format!("/api/v1/workspaces/{WS}/streams/a%2Fb%3Fc%23d%20e")
    );
    // Refused by validation, keyed by the parameter's name: `validate()`
    // and `build_request` refuse the same requests.
    for bad in ["", ".", ".."] {
        let request = EndpointRequest::GetStream {
            stream_id: bad.into(),
        };
        for err in [build(bad).unwrap_err(), request.validate().unwrap_err()] {
            match err {
                Error::ValidationFailed { details } => assert_eq!(
                    details.into_iter().collect::<Vec<_>>(),
                    [(
                        "streamId".to_owned(),
                        vec!["must not be empty, `.` or `..`".to_owned()]
                    )],
                    "{bad:?}"
                ),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        let text = json!({"endpoint": "getStream", "streamId": bad}).to_string();
        assert!(
            matches!(
                EndpointRequest::from_json(&text),
                Err(Error::ValidationFailed { .. })
            ),
            "{bad:?}"
        );
    }
}

#[test]
fn an_empty_callback_token_is_refused_by_validation() {
    let text = |token: &str| {
        json!({"endpoint": "sealedStepStarted", "invocationId": "inv_1", "callbackToken": token,
            "body": {"stepId": "01J8STEP000000000000000001", "stepType": "thinking"}})
        .to_string()
    };
    match EndpointRequest::from_json(&text("")) {
        Err(Error::ValidationFailed { details }) => assert_eq!(
            details.into_iter().collect::<Vec<_>>(),
            [(
                "callbackToken".to_owned(),
                vec!["must not be empty".to_owned()]
            )]
        ),
        other => panic!("{other:?}"),
    }
    let request = EndpointRequest::from_json(&text("cbt_1")).unwrap();
    let built = build_request(&ctx(), &request).unwrap();
    assert!(
        built
            .headers
            .contains(&("X-Service-Callback-Token".to_owned(), "cbt_1".to_owned()))
    );
}

#[test]
fn query_values_are_encoded_in_the_url() {
    let r = build_request(
        &ctx(),
        &EndpointRequest::ListStreams {
            query: serde_json::from_value(json!({"type": "channel", "query": "a&b c"})).unwrap(),
        },
    )
    .unwrap();
    assert_eq!(
        r.url,
        format!(
            "https://chat.example.test/api/v1/workspaces/{WS}/streams?type=channel&query=a%26b%20c"
        )
    );
}

#[test]
fn a_key_is_required_except_for_webhooks() {
    let no_key = Context {
        api_key: None,
        ..ctx()
    };
    assert!(build_request(&no_key, &EndpointRequest::GetMe).is_err());
}

#[test]
fn secrets_stay_out_of_debug_output() {
    let text = format!("{:?}", sealed_message());
    assert!(!text.contains("svc_uk_test"), "{text}");
    assert!(!text.contains("cbt_x"), "{text}");
}

#[test]
fn scopes_are_known_before_calling() {
    let bot_loop = [
        Scope::BotRuntimeWrite,
        Scope::BotInvocationsWrite,
        Scope::MessagesWrite,
        Scope::StreamsRead,
        Scope::MessagesRead,
    ];
    assert_eq!(Endpoint::ClaimInvocation.missing_scope(&bot_loop), None);
    assert_eq!(
        Endpoint::SearchMemos.missing_scope(&bot_loop),
        Some(Scope::MemosRead)
    );
    assert_eq!(
        Endpoint::ClaimDelegation.missing_scope(&[Scope::DelegationsRead]),
        Some(Scope::DelegationsWrite)
    );
    assert_eq!(Endpoint::GetMe.missing_scope(&[]), None);
    assert_eq!(Endpoint::PostWebhook.missing_scope(&[]), None);
    for s in Scope::ALL {
        assert_eq!(Scope::parse(s.as_str()), Some(s));
    }
    assert!(Endpoint::SealedComplete.is_claim_bound());
    assert!(Endpoint::DelegationHeartbeat.is_claim_bound());
    assert!(!Endpoint::ClaimDelegation.is_claim_bound());
}

#[test]
fn paging_follows_cursors_and_sequences() {
    let first = EndpointRequest::ListStreams {
        query: serde_json::from_value(json!({"type": "channel"})).unwrap(),
    };
    let page: StreamPage =
        serde_json::from_str(&wire_fixture("stream_page_2026-08-21.json")).unwrap();
    let next = next_page(&first, &ResponseData::Streams(page.clone()));
    if page.has_more {
        let Some(EndpointRequest::ListStreams { query }) = next else {
            panic!()
        };
        assert_eq!(query.after, page.cursor);
    }
    let last = StreamPage {
        has_more: false,
        ..page
    };
    assert_eq!(next_page(&first, &ResponseData::Streams(last)), None);

    // Messages: backwards by `before` the lowest sequence.
    let list: streamseal::wire::message::MessageList =
        serde_json::from_str(&wire_fixture("message_list_2026-08-21.json")).unwrap();
    let mut more = list.clone();
    more.has_more = true;
    let req = EndpointRequest::ListMessages {
        stream_id: STREAM.into(),
        query: ListMessagesQuery::default(),
    };
    let lowest = more.data.iter().filter_map(|m| m.sequence.as_u64()).min();
    let Some(EndpointRequest::ListMessages { query, .. }) =
        next_page(&req, &ResponseData::Messages(more.clone()))
    else {
        panic!()
    };
    assert_eq!(query.before, lowest);
    // Forwards by `after` the highest.
    let req = EndpointRequest::ListMessages {
        stream_id: STREAM.into(),
        query: ListMessagesQuery {
            after: Some(1),
            ..Default::default()
        },
    };
    let highest = more.data.iter().filter_map(|m| m.sequence.as_u64()).max();
    let Some(EndpointRequest::ListMessages { query, .. }) =
        next_page(&req, &ResponseData::Messages(more))
    else {
        panic!()
    };
    assert_eq!(query.after, highest);
}

#[test]
fn client_message_ids_are_unique_and_within_bounds() {
    let a = mint_client_message_id(1_700_000_000_000).unwrap();
    let b = mint_client_message_id(1_700_000_000_000).unwrap();
    assert_ne!(a, b);
    assert!(a.starts_with("cmid_") && a.len() <= 128);
    assert!(send(Some(&a)).retry_safe);
    assert!(!send(None).retry_safe);
}

#[test]
fn hostile_responses_never_panic() {
    let request = send(Some("cmid_1"));
    let bodies = [
        "",
        "null",
        "[]",
        "{\"data\":null}",
        "\u{0}\u{ffff}",
        "{\"error\":5}",
        &"[".repeat(10_000),
    ];
    for status in [0u16, 100, 200, 201, 204, 302, 400, 409, 429, 500, 999] {
        for body in bodies {
            let headers = vec![
                ("Retry-After".to_owned(), "-1".to_owned()),
                ("Service-Version".to_owned(), body.to_owned()),
            ];
            let _ = parse_response(
                &request,
                &HttpResponse {
                    status,
                    headers,
                    body: body.to_owned(),
                },
            );
        }
    }
}

/// The bindings' `nextPage` reads a `PageView` from the `{"kind", "data"}`
/// document of a `ResponseData` (features `wasm`/`uniffi`): the same view,
/// and so the same next request, as the typed response gives, whatever
/// the key order; other kinds do not page; a list without `hasMore` is
/// malformed.
#[cfg(any(feature = "wasm", feature = "uniffi"))]
#[test]
fn page_view_is_read_from_the_response_data_document() {
    use streamseal::api::paging::{PageView, PagedList, next_page_of};
    use streamseal::wire::list::{ConversationPage, MemberPage};
    use streamseal::wire::message::MessageList;

    let more = |mut v: serde_json::Value| {
        v["hasMore"] = json!(true);
        v
    };
    let streams: StreamPage = serde_json::from_value(more(
        serde_json::from_str(&wire_fixture("stream_page_2026-08-21.json")).unwrap(),
    ))
    .unwrap();
    let streams = StreamPage {
        cursor: Some("c2".into()),
        ..streams
    };
    let members: MemberPage = serde_json::from_str(&wire_fixture("member_page.json")).unwrap();
    let conversations: ConversationPage =
        serde_json::from_str(&wire_fixture("conversation_page.json")).unwrap();
    let messages: MessageList = serde_json::from_value(more(
        serde_json::from_str(&wire_fixture("message_list_2026-08-21.json")).unwrap(),
    ))
    .unwrap();
    let cases = [
        (
            ResponseData::Streams(streams),
            PagedList::Streams,
            EndpointRequest::ListStreams {
                query: serde_json::from_value(json!({"type": "channel"})).unwrap(),
            },
        ),
        (
            ResponseData::Members(members),
            PagedList::Members,
            EndpointRequest::ListStreamMembers {
                stream_id: STREAM.into(),
                query: Default::default(),
            },
        ),
        (
            ResponseData::Conversations(conversations),
            PagedList::Conversations,
            EndpointRequest::ListConversations {
                query: Default::default(),
            },
        ),
        (
            ResponseData::Messages(messages),
            PagedList::Messages,
            EndpointRequest::ListMessages {
                stream_id: STREAM.into(),
                query: Default::default(),
            },
        ),
    ];
    for (data, list, request) in cases {
        let view = PageView::of(&data);
        assert_eq!(view.list, Some(list));
        if list == PagedList::Messages {
            assert!(view.has_more && view.lowest_sequence.is_some());
            assert!(view.lowest_sequence <= view.highest_sequence);
            assert!(next_page(&request, &data).is_some());
        }
        let doc = serde_json::to_value(&data).unwrap();
        let kind_first = format!(r#"{{"kind":{},"data":{}}}"#, doc["kind"], doc["data"]);
        let data_first = format!(r#"{{"data":{},"kind":{}}}"#, doc["data"], doc["kind"]);
        for text in [kind_first, data_first] {
            let read: PageView = serde_json::from_str(&text).unwrap();
            assert_eq!(read, view, "{list:?}");
            assert_eq!(next_page_of(&request, &read), next_page(&request, &data));
        }
    }

    // Other kinds, whatever their data, do not page.
    for text in [
        r#"{"kind":"noContent"}"#,
        r#"{"kind":"me","data":{"hasMore":"not a bool"}}"#,
        r#"{"data":"text","kind":"webhookAccepted"}"#,
        r#"{"kind":"someKindAddedLater","data":[1,2]}"#,
    ] {
        let read: PageView = serde_json::from_str(text).unwrap();
        assert_eq!(read, PageView::default(), "{text}");
        let request = EndpointRequest::ListStreams {
            query: serde_json::from_value(json!({"type": "channel"})).unwrap(),
        };
        assert_eq!(next_page_of(&request, &read), None);
    }
    // A list without its paging fields, or no kind: malformed.
    for text in [
        r#"{"kind":"streams","data":{"data":[]}}"#,
        r#"{"kind":"messages","data":{"hasMore":true}}"#,
        r#"{"data":{"data":[],"hasMore":true}}"#,
    ] {
        assert!(serde_json::from_str::<PageView>(text).is_err(), "{text}");
    }
}

/// The bindings' `nextMessageQuery` reads a `MessagePage` (features
/// `wasm`/`uniffi`) from the `MessageList` the app hands back: the same
/// page, and so the same next query, as the typed list gives; every field
/// but `hasMore` and the messages' `sequence` is left unread; those two are
/// still checked.
#[cfg(any(feature = "wasm", feature = "uniffi"))]
#[test]
fn message_page_is_read_from_the_list_alone() {
    use streamseal::api::paging::{MessagePage, next_message_query, next_message_query_of};
    use streamseal::wire::message::MessageList;
    use streamseal::wire::requests::messages::ListMessagesQuery;

    let mut doc: serde_json::Value =
        serde_json::from_str(&wire_fixture("message_list_2026-08-21.json")).unwrap();
    doc["hasMore"] = json!(true);
    let list: MessageList = serde_json::from_value(doc.clone()).unwrap();
    let page = MessagePage::of(&list);
    assert_eq!(
        (page.lowest_sequence, page.highest_sequence),
        (Some(7), Some(42))
    );
    let bare = json!({
        "hasMore": true,
        "data": doc["data"].as_array().unwrap().iter()
            .map(|m| json!({"sequence": m["sequence"]})).collect::<Vec<_>>(),
    });
    for text in [doc.to_string(), bare.to_string()] {
        let read: MessagePage = serde_json::from_str(&text).unwrap();
        assert_eq!(read, page);
        for query in [json!({"limit": 2}), json!({"after": 1}), json!({})] {
            let query: ListMessagesQuery = serde_json::from_value(query).unwrap();
            assert_eq!(
                next_message_query_of(&query, &read),
                next_message_query(&query, &list)
            );
        }
    }
    for text in [
        r#"{"hasMore":true}"#,
        r#"{"hasMore":"yes","data":[]}"#,
        r#"{"hasMore":true,"data":[{}]}"#,
        r#"{"hasMore":true,"data":[{"sequence":true}]}"#,
    ] {
        assert!(serde_json::from_str::<MessagePage>(text).is_err(), "{text}");
    }
}

/// A hostile server sends one key twice in an object, hoping that the
/// library and whatever else reads the body pick different values. Every
/// success body is refused (`MALFORMED_JSON`, "duplicate"), whatever its
/// shape: the `{"data"}` envelope, a result read whole, a versioned result
/// (messages, which went through an untyped value and kept the last), a
/// known field, an unknown one, and one nested in a message's envelope.
#[test]
fn a_key_sent_twice_in_a_success_body_is_refused_in_every_shape() {
    let get = |request: EndpointRequest| build_request(&ctx(), &request).unwrap();
    let list = get(EndpointRequest::ListMessages {
        stream_id: STREAM.into(),
        query: ListMessagesQuery::default(),
    });
    let me = get(EndpointRequest::GetMe);
    let bots = get(EndpointRequest::ListMyBots { traits: None });
    let messages = wire_fixture("message_list_2026-08-21.json");
    let me_text = wire_fixture("me_user.json");
    let bots_text = wire_fixture("bots_2026-08-21.json");
    // (what, request, honest body, the key a second one goes before, the
    // second one): one insertion each.
    let cases: [(&str, &HttpRequest, &str, &str, &str); 8] = [
        (
            "a known field of a versioned list's message",
            &list,
            &messages,
            "\"content\":",
            "\"content\": \"forged\", ",
        ),
        (
            "an unknown field of a versioned list's message",
            &list,
            &messages,
            "\"content\":",
            "\"zz\": 1, \"zz\": 2, ",
        ),
        (
            "a field of a message's envelope",
            &list,
            &messages,
            "\"iv\":",
            "\"iv\": \"AAAAAAAAAAAAAAAA\", ",
        ),
        (
            "the envelope's data, around a versioned list",
            &list,
            &messages,
            "\"data\":",
            "\"data\": [], ",
        ),
        (
            "a known field of a `{data}` result",
            &me,
            &me_text,
            "\"kind\":",
            "\"kind\": \"bot\", ",
        ),
        (
            "an unknown field of a `{data}` result",
            &me,
            &me_text,
            "\"kind\":",
            "\"zz\": 1, \"zz\": 2, ",
        ),
        (
            "an unknown key of the `{data}` envelope",
            &me,
            &me_text,
            "\"data\":",
            "\"zz\": 1, \"zz\": 2, ",
        ),
        (
            "a field of a result read whole",
            &bots,
            &bots_text,
            "\"workspaceId\":",
            "\"workspaceId\": \"ws_x\", ",
        ),
    ];
    for (what, request, honest, before, second) in cases {
        // A fixture without the key would leave the honest body, which reads.
        assert!(
            honest.contains(before),
            "{what}: the fixture has no {before}"
        );
        let body = honest.replacen(before, &format!("{second}{before}"), 1);
        let response = HttpResponse {
            status: 200,
            headers: vec![],
            body,
        };
        match parse_response(request, &response) {
            Err(ResponseError::Malformed(m)) => {
                assert_eq!(m.error.code(), ErrorCode::MalformedJson, "{what}");
                assert!(
                    m.error.to_string().contains("duplicate"),
                    "{what}: {}",
                    m.error
                );
            }
            other => panic!("{what} was not refused: {other:?}"),
        }
    }
    // The same bodies without the second key read.
    for (request, name) in [
        (&list, "message_list_2026-08-21.json"),
        (&me, "me_user.json"),
        (&bots, "bots_2026-08-21.json"),
    ] {
        let response = HttpResponse {
            status: 200,
            headers: vec![],
            body: wire_fixture(name),
        };
        assert!(parse_response(request, &response).is_ok(), "{name}");
    }
}
