//! Versions, headers, ids, secrets, slot-key grammar and error semantics.

use streamseal::ErrorCode;
use streamseal::wire::delegation::ResultPlacement;
use streamseal::wire::error_body::{ClientAction, CompatWebhookError, RateLimitHeaders};
use streamseal::wire::ids::*;
use streamseal::wire::requests::QueryParams;
use streamseal::wire::requests::invocation::RenewRequest;
use streamseal::wire::requests::messages::ListMessagesQuery;
use streamseal::wire::secret::{ApiKey, ApiKeyKind, ClaimToken};
use streamseal::wire::slots::{SharedRef, SlotKey};
use streamseal::wire::version::{ApiVersion, SERVICE_VERSION_HEADER, ServiceVersion};

const U: &str = "01J80000000000000000000001";

#[test]
fn api_version_follows_the_invalid_api_version_rule() {
    for v in ["2026-07-12", "2026-07-22", "2026-07-24", "2026-08-21"] {
        assert_eq!(ApiVersion::parse(v).unwrap().as_str(), v);
    }
    for bad in [
        "",
        "2026-07-23",
        "2026-7-24",
        " 2026-07-24",
        "2026-07-24 ",
        "2026/07/24",
        "20260724",
        "latest",
        "2026-09-01",
        "v1",
    ] {
        let err = ApiVersion::parse(bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidField, "{bad:?}");
        let text = err.to_string();
        assert!(
            text.contains("INVALID_API_VERSION")
                && text.contains("2026-07-12, 2026-07-22, 2026-07-24, 2026-08-21"),
            "{text}"
        );
    }
    assert_eq!(ApiVersion::LATEST, ApiVersion::V2026_08_21);
    assert_eq!(
        ApiVersion::V2026_07_22.header(),
        ("Service-Version", "2026-07-22")
    );
    assert!(ApiVersion::V2026_07_12 < ApiVersion::V2026_08_21);
}

#[test]
fn version_features() {
    use ApiVersion::*;
    let table = [
        (
            V2026_07_12,
            false,
            false,
            false,
            ResultPlacement::SyntheticMessageAnchor,
        ),
        (V2026_07_22, true, false, false, ResultPlacement::CardThread),
        (V2026_07_24, true, true, false, ResultPlacement::CardThread),
        (V2026_08_21, true, true, true, ResultPlacement::CardThread),
    ];
    for (v, anchor, slots, pins, placement) in table {
        assert_eq!(
            (v.uses_anchor_id(), v.has_slots(), v.has_pinned_slots()),
            (anchor, slots, pins),
            "{v}"
        );
        assert_eq!(ResultPlacement::for_version(v), placement);
    }
}

#[test]
fn service_version_echo() {
    let headers = [
        ("content-type", "application/json"),
        ("service-version", "2026-07-24"),
    ];
    assert_eq!(
        ServiceVersion::from_response_headers(headers),
        Some(ServiceVersion::Known(ApiVersion::V2026_07_24))
    );
    let future =
        ServiceVersion::from_response_headers([(SERVICE_VERSION_HEADER, "2027-01-15")]).unwrap();
    assert_eq!(future, ServiceVersion::Unknown("2027-01-15".into()));
    assert_eq!(future.shape(), ApiVersion::LATEST);
    assert_eq!(future.as_str(), "2027-01-15");
    // A 400 INVALID_API_VERSION carries no echo.
    assert_eq!(
        ServiceVersion::from_response_headers([("RateLimit-Limit", "60")]),
        None
    );
}

#[test]
fn typed_ids_parse_strictly() {
    assert!(WorkspaceId::parse(&format!("ws_{U}")).is_ok());
    assert!(UserId::parse(&format!("usr_{U}")).is_ok());
    assert!(StreamId::parse(&format!("stream_{U}")).is_ok());
    assert!(MessageId::parse(&format!("msg_{U}")).is_ok());
    assert!(ConversationId::parse(&format!("conversation_{U}")).is_ok());
    assert!(InvocationId::parse(&format!("inv_{U}")).is_ok());
    assert!(HookId::parse(&format!("hook_{U}")).is_ok());
    assert!(DecisionId::parse(&format!("dreq_{U}")).is_ok());
    assert!(EventId::parse(&format!("event_{U}")).is_ok());
    for bad in [
        format!("ws{U}"),
        format!("WS_{U}"),
        format!("ws_{}", &U[1..]),
        format!("ws_{U}0"),
        format!("ws_{}", U.to_lowercase()),
        format!("ws_{}U", &U[..25]),
        format!(" ws_{U}"),
        "ws_".to_owned(),
        String::new(),
    ] {
        let err = WorkspaceId::parse(&bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidField, "{bad:?}");
    }
    // Serde is as strict as parse.
    assert!(serde_json::from_str::<MessageId>(&format!("\"stream_{U}\"")).is_err());
    let id = MessageId::parse(&format!("msg_{U}")).unwrap();
    assert_eq!(format!("{id:?}"), format!("MessageId(msg_{U})"));
    assert_eq!(id.ulid(), U);
    assert_eq!(String::from(id), format!("msg_{U}"));
}

#[test]
fn minting() {
    let a = MessageId::mint(1_750_000_000_000).unwrap();
    let b = MessageId::mint(1_750_000_000_000).unwrap();
    assert_ne!(a, b, "80 random bits each");
    assert_eq!(&a.ulid()[..10], &b.ulid()[..10], "same timestamp prefix");
    assert!(MessageId::mint(1 << 48).is_err());
    let now = EventId::mint_now().unwrap();
    assert!(EventId::parse(now.as_str()).is_ok());
    assert!(StepId::mint_now().unwrap().as_str().len() == ULID_LEN);
    assert!(StepId::parse("").is_err());
    assert!(StepId::parse(&"s".repeat(129)).is_err());
    assert!(StepId::parse(&"s".repeat(128)).is_ok());
}

#[test]
fn anchors_classify_without_failing() {
    assert!(matches!(
        AnchorId::parse(&format!("msg_{U}")),
        AnchorId::Message(_)
    ));
    assert!(matches!(
        AnchorId::parse(&format!("event_{U}")),
        AnchorId::Event(_)
    ));
    assert_eq!(
        AnchorId::parse("msg_legacy"),
        AnchorId::Other("msg_legacy".into())
    );
}

#[test]
fn secrets_are_recognised_and_redacted() {
    let user = ApiKey::parse("svc_uk_abc").unwrap();
    assert_eq!(user.kind(), ApiKeyKind::User);
    assert_eq!(ApiKey::parse("svc_bk_abc").unwrap().kind(), ApiKeyKind::Bot);
    for bad in ["svc_uk_", "svc_bk_", "svc_abc", "sk_abc", ""] {
        assert!(ApiKey::parse(bad).is_err(), "{bad}");
    }
    assert!(!format!("{:?}", user).contains("abc"));
    let renew = RenewRequest {
        instance_id: "i".into(),
        claim_token: ClaimToken::parse("clm_topsecret").unwrap(),
        claim_ttl_seconds: None,
        known_source_revision: None,
        restart_required_revision: None,
    };
    assert!(!format!("{renew:?}").contains("topsecret"));
    // ...while the wire still carries it.
    assert!(
        serde_json::to_string(&renew)
            .unwrap()
            .contains("\"claimToken\":\"clm_topsecret\"")
    );
}

/// API §2.1: `shared:<messageId>[@<version>[:<from>-<to>]]`, the message
/// id being `msg_` plus a ULID (API §1).
#[test]
fn slot_key_grammar() {
    let id = || MessageId::parse(&format!("msg_{U}")).unwrap();
    let cases = [
        (
            format!("shared:msg_{U}"),
            SharedRef {
                message_id: id(),
                version: None,
                range: None,
            },
        ),
        (
            format!("shared:msg_{U}@0"),
            SharedRef {
                message_id: id(),
                version: Some(0),
                range: None,
            },
        ),
        (
            format!("shared:msg_{U}@12:0-40"),
            SharedRef {
                message_id: id(),
                version: Some(12),
                range: Some((0, 40)),
            },
        ),
    ];
    for (text, parsed) in cases {
        assert_eq!(SharedRef::parse(&text).unwrap(), parsed);
        assert_eq!(parsed.to_string(), text);
        assert!(parsed.is_well_formed());
    }
    let near_misses = [
        "shared:".to_owned(),
        "shared:@1".to_owned(),
        // A range without a version (issue 17), and whitespace around the key.
        format!("shared:msg_{U}:10-42"),
        format!("shared:msg_{U} "),
        format!(" shared:msg_{U}"),
        format!("shared:msg_{U}@1 "),
        format!("shared:msg_{U}@1:2-3 "),
        format!("shared: msg_{U}"),
        // Not a message id.
        "shared:msg_1".to_owned(),
        format!("shared:stream_{U}"),
        format!("shared:msg_{}", U.to_lowercase()),
        format!("shared:msg_{U}@"),
        format!("shared:msg_{U}@x"),
        format!("shared:msg_{U}@01"),
        format!("shared:msg_{U}@+1"),
        format!("shared:msg_{U}@1:"),
        format!("shared:msg_{U}@1:2"),
        format!("shared:msg_{U}@1:2-"),
        format!("shared:msg_{U}@1:-3"),
        format!("shared:msg_{U}@1:2-3-4"),
        format!("shared:msg_{U}@1@2"),
        format!("shared:msg_{U}@4294967296"),
        format!("quote:msg_{U}"),
        format!("Shared:msg_{U}"),
    ];
    for bad in near_misses {
        assert!(SharedRef::parse(&bad).is_err(), "{bad:?}");
        assert_eq!(SlotKey::parse(&bad), SlotKey::Other(bad.clone()));
    }
}

/// `tests/fixtures/wire/grammar/slot_keys.json`: the keys of API §2.1 read as
/// shared references, and near misses kept verbatim as other keys.
#[test]
fn slot_key_fixture() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/wire/grammar/slot_keys.json");
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let shared = fixture["shared"].as_array().unwrap();
    let other = fixture["other"].as_array().unwrap();
    assert!(shared.len() >= 5 && other.len() >= 14);
    for case in shared {
        let key = case["key"].as_str().unwrap();
        let r = SharedRef::parse(key).unwrap();
        assert_eq!(r.message_id.as_str(), case["messageId"].as_str().unwrap());
        assert_eq!(r.version.map(u64::from), case["version"].as_u64());
        let range = case["range"]
            .as_array()
            .map(|a| (a[0].as_u64().unwrap(), a[1].as_u64().unwrap()));
        assert_eq!(r.range.map(|(f, t)| (u64::from(f), u64::from(t))), range);
        assert_eq!(r.to_string(), key);
    }
    for case in other {
        let key = case["key"].as_str().unwrap();
        assert!(SharedRef::parse(key).is_err(), "{key:?}: {}", case["why"]);
        assert_eq!(SlotKey::parse(key), SlotKey::Other(key.to_owned()));
        assert_eq!(SlotKey::parse(key).to_string(), key);
    }
}

#[test]
fn what_each_status_means() {
    let table = [
        (200, ClientAction::Success),
        (201, ClientAction::Success),
        (204, ClientAction::Success),
        (400, ClientAction::FixInput),
        (401, ClientAction::Reauthenticate),
        (403, ClientAction::Forbidden),
        (404, ClientAction::NotFound),
        (409, ClientAction::RefreshState),
        (429, ClientAction::RetryAfterWait),
        (500, ClientAction::RetryLater),
        (503, ClientAction::RetryLater),
        (418, ClientAction::Unexpected),
    ];
    for (status, action) in table {
        assert_eq!(ClientAction::for_status(status), action, "{status}");
        assert_eq!(action.is_retryable(), matches!(status, 429 | 500..=599));
    }
    let headers = RateLimitHeaders::from_headers([
        ("ratelimit-limit", "60"),
        ("RateLimit-Remaining", "0"),
        ("RateLimit-Reset", "17"),
        ("Retry-After", " 12 "),
    ]);
    assert_eq!(
        headers,
        RateLimitHeaders {
            limit: Some(60),
            remaining: Some(0),
            reset_seconds: Some(17),
            retry_after_seconds: Some(12),
            retry_after_date: None,
        }
    );
    assert_eq!(headers.wait_seconds(), Some(12));
    let no_retry = RateLimitHeaders::from_headers([
        ("RateLimit-Reset", "5"),
        ("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT"),
    ]);
    // An HTTP-date with no `Date` to measure it by: kept as a date, for
    // the caller's clock (the retry policy's `now_ms`).
    assert_eq!(no_retry.retry_after_seconds, None);
    assert_eq!(no_retry.retry_after_date, Some(1_792_567_680));
    assert_eq!(no_retry.wait_seconds(), Some(5));

    for (body, status) in [
        ("invalid_payload", 400),
        ("no_text", 400),
        ("no_service", 404),
        ("rate_limited", 429),
        ("server_error", 500),
    ] {
        let e = CompatWebhookError::from_body(body);
        assert!(e.is_known());
        assert_eq!(e.status(), Some(status));
        assert_eq!(e.as_str(), body);
    }
}

#[test]
fn query_parameters() {
    let q = ListMessagesQuery {
        before: Some(120),
        after: None,
        limit: Some(50),
    };
    assert_eq!(
        q.query_pairs(),
        [("before", "120".to_owned()), ("limit", "50".to_owned())]
    );
}

#[test]
fn older_versions_drop_pin_fields_under_any_key() {
    use serde_json::json;
    use streamseal::wire::slots::{SlotValue, Slots};
    // Found by the property test: an `ok` slot under a key of another form
    // kept its 2026-08-21 fields when written for 2026-07-24.
    let slots: Slots = serde_json::from_value(json!({
        "quote:": {"status": "ok", "content": "", "currentRevision": 0}
    }))
    .unwrap();
    let old = slots.restricted_to(ApiVersion::V2026_07_24);
    match old.get(&SlotKey::Other("quote:".into())) {
        Some(SlotValue::Ok(ok)) => assert_eq!(ok.current_revision, None),
        other => panic!("{other:?}"),
    }
}
