//! The stand-in, sans IO: every request is built by the core
//! (`build_request`) and every answer read back by it (`parse_response`),
//! so what is tested is that the stand-in and the library agree.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]

use serde_json::{Value, json};
use streamseal::api::retry::{RetryKind, RetryPolicy, RetryStep};
use streamseal::api::{
    ApiResponse, Context, EndpointRequest, HttpRequest, HttpResponse, RequestBody, ResponseError,
    build_request, parse_response,
};
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::secret::ApiKey;
use streamseal::wire::version::ApiVersion;
use streamseal_serve::{Options, Request, Service};

const T0: u64 = 1_800_000_000_000;

struct World {
    service: Service,
    now: u64,
}

impl World {
    fn new(options: Options) -> Self {
        World {
            service: Service::new(options, T0),
            now: T0,
        }
    }

    fn ctx(&self, key: &str) -> Context {
        Context::new(
            "http://127.0.0.1:1",
            WorkspaceId::parse(&self.service.seed().workspace_id).unwrap(),
            Some(ApiKey::parse(key).unwrap()),
        )
    }

    fn user(&self) -> String {
        self.service.seed().user_key.clone()
    }

    fn bot(&self) -> String {
        self.service.seed().bots[0].1.clone()
    }

    /// Sends `request` as `key`; the answer as the core reads it, and the raw one.
    fn call(
        &mut self,
        key: &str,
        request: Value,
    ) -> (
        Result<ApiResponse, ResponseError>,
        streamseal_serve::Response,
    ) {
        self.call_in(&self.ctx(key), request)
    }

    fn call_in(
        &mut self,
        ctx: &Context,
        request: Value,
    ) -> (
        Result<ApiResponse, ResponseError>,
        streamseal_serve::Response,
    ) {
        let request = EndpointRequest::from_value(request).unwrap();
        let built = build_request(ctx, &request).unwrap();
        let raw = self.service.handle(&to_serve(&built), self.now);
        self.now += 1;
        let parsed = parse_response(
            &built,
            &HttpResponse {
                status: raw.status,
                headers: raw.headers.clone(),
                body: raw.body.clone(),
            },
        );
        (parsed, raw)
    }

    fn ok(&mut self, key: &str, request: Value) -> Value {
        let (parsed, raw) = self.call(key, request);
        // The core read it: then its JSON is what the test looks into.
        parsed.unwrap_or_else(|e| panic!("{e:?}: {}", raw.body));
        let body: Value = serde_json::from_str(&raw.body).unwrap();
        if body.get("hasMore").is_some() {
            body
        } else {
            body["data"].clone()
        }
    }
}

fn to_serve(built: &HttpRequest) -> Request {
    let url = built.url.strip_prefix("http://127.0.0.1:1").unwrap();
    let path = url.split('?').next().unwrap().to_owned();
    Request {
        method: built.method.as_str().to_owned(),
        path,
        query: built.query.clone(),
        headers: built.headers.clone(),
        body: match &built.body {
            Some(RequestBody::Json(text)) => text.clone().into_bytes(),
            _ => Vec::new(),
        },
    }
}

#[test]
fn a_request_the_library_would_refuse_is_refused_with_its_details() {
    let mut w = World::new(Options::default());
    // Built by hand (the core would not build it): an empty content.
    let mut built = build_request(
        &w.ctx(&w.bot()),
        &EndpointRequest::from_value(json!({"endpoint": "getMe"})).unwrap(),
    )
    .unwrap();
    let mut request = to_serve(&built);
    request.method = "POST".into();
    request.path = format!(
        "/api/v1/workspaces/{}/streams/stream_1/messages",
        w.service.seed().workspace_id
    );
    request.body = br#"{"content": ""}"#.to_vec();
    let raw = w.service.handle(&request, T0);
    assert_eq!(raw.status, 400);
    let body: Value = serde_json::from_str(&raw.body).unwrap();
    let core = EndpointRequest::from_value(
        json!({"endpoint": "sendMessage", "streamId": "stream_1", "body": {"content": ""}}),
    )
    .unwrap_err();
    let expected: Value = serde_json::to_value(core.details().unwrap()).unwrap();
    assert_eq!(body["details"], expected);
    // No key at all: 401, which the core reads as re-authenticate.
    built.headers.retain(|(n, _)| n != "Authorization");
    let raw = w.service.handle(&to_serve(&built), T0);
    assert_eq!(raw.status, 401);
}

#[test]
fn a_429_carries_the_window_and_retry_after_and_the_policy_waits_it_out() {
    let mut w = World::new(Options {
        rate_limit: 2,
        window_ms: 10_000,
        ..Options::default()
    });
    let bot = w.bot();
    for _ in 0..2 {
        assert!(w.call(&bot, json!({"endpoint": "getMe"})).0.is_ok());
    }
    let (parsed, raw) = w.call(&bot, json!({"endpoint": "getMe"}));
    let failure = parsed.unwrap_err().api_failure().cloned().unwrap();
    assert_eq!(
        (failure.status, failure.limit_hit, failure.window_ms),
        (429, Some(2), Some(10_000))
    );
    assert_eq!(failure.rate_limit.remaining, Some(0));
    let wait = failure.retry_after.unwrap();
    assert!((1..=10).contains(&wait), "{raw:?}");
    assert_eq!(failure.retry.kind, RetryKind::RateLimited);
    let RetryStep::Retry { delay_ms } =
        RetryPolicy::default().step_with_draw(&failure.retry, 1, None, 0)
    else {
        panic!("a 429 is retried");
    };
    assert_eq!(delay_ms, wait * 1000);
    // Once the window has passed, it answers again.
    w.now += delay_ms;
    assert!(w.call(&bot, json!({"endpoint": "getMe"})).0.is_ok());
}

#[test]
fn versions_are_pinned_overridden_echoed_and_refused() {
    let mut w = World::new(Options {
        pinned: Some(ApiVersion::V2026_07_12),
        ..Options::default()
    });
    let bot = w.bot();
    let (parsed, raw) = w.call(&bot, json!({"endpoint": "getMe"}));
    assert_eq!(parsed.unwrap().version.unwrap().as_str(), "2026-07-12");
    assert!(raw.body.contains(r#""pinned":"2026-07-12""#));
    let mut ctx = w.ctx(&bot);
    ctx.service_version = Some(ApiVersion::V2026_08_21);
    let (parsed, _) = w.call_in(&ctx, json!({"endpoint": "getMe"}));
    assert_eq!(parsed.unwrap().version.unwrap().as_str(), "2026-08-21");
    let built = build_request(
        &w.ctx(&bot),
        &EndpointRequest::from_value(json!({"endpoint": "getMe"})).unwrap(),
    )
    .unwrap();
    let mut request = to_serve(&built);
    request
        .headers
        .push(("Service-Version".into(), "2026-01-01".into()));
    let raw = w.service.handle(&request, T0);
    assert_eq!(raw.status, 400);
    assert!(raw.body.contains("INVALID_API_VERSION"));
    assert!(
        raw.headers.iter().all(|(n, _)| n != "Service-Version"),
        "no echo"
    );
}

/// A plain session: the owner's message summons the bot, which claims,
/// steps and completes; a resend of the owner's message posts nothing twice.
#[test]
fn a_plain_bot_loop_and_idempotent_sends() {
    let mut w = World::new(Options::default());
    let (user, bot) = (w.user(), w.bot());
    w.ok(&bot, json!({"endpoint": "postPresence", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "status": "available", "acceptingInvocations": true, "capabilities": {}}}));
    let link = w.ok(&bot, json!({"endpoint": "createSession", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "sess-1", "displayName": "Scratch"}}));
    let stream = link["rootStreamId"].as_str().unwrap().to_owned();
    // Nothing to claim yet.
    let claim = json!({"endpoint": "claimInvocation", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "supportedCapabilities": ["active-scratchpad"], "claimTtlSeconds": 60}});
    assert_eq!(w.ok(&bot, claim.clone()), Value::Null);
    let send = json!({"endpoint": "sendMessage", "streamId": stream, "body": {"content": "summarise", "clientMessageId": "cmid_1"}});
    let first = w.ok(&user, send.clone());
    let again = w.ok(&user, send);
    assert_eq!(first["id"], again["id"]);
    let invocation = w.ok(&bot, claim.clone());
    assert_eq!(invocation["promptMarkdown"], "summarise");
    assert_eq!(
        w.ok(&bot, claim.clone()),
        Value::Null,
        "one invocation for one message"
    );
    let inv = invocation["id"].as_str().unwrap().to_owned();
    let token = invocation["claimToken"].as_str().unwrap().to_owned();
    w.ok(&bot, json!({"endpoint": "invocationStep", "invocationId": inv, "body": {"instanceId": "machine-a", "claimToken": token, "stepType": "thinking", "content": "reading"}}));
    let done = w.ok(&bot, json!({"endpoint": "completeInvocation", "invocationId": inv, "body": {"instanceId": "machine-a", "claimToken": token, "finalMessageMarkdown": "done"}}));
    assert_eq!(done["message"]["content"], "done");
    // A second completion is a 409 (the invocation is terminal).
    let (parsed, _) = w.call(&bot, json!({"endpoint": "completeInvocation", "invocationId": inv, "body": {"instanceId": "machine-a", "claimToken": token, "finalMessageMarkdown": "again"}}));
    assert_eq!(parsed.unwrap_err().status(), 409);
    let listed = w.ok(
        &user,
        json!({"endpoint": "listMessages", "streamId": stream, "query": {}}),
    );
    let contents: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["summarise", "done"]);
    assert_eq!(w.service.message_count(), 2);
}

#[test]
fn a_lost_answer_still_does_the_work() {
    let mut w = World::new(Options::default());
    let (user, bot) = (w.user(), w.bot());
    let link = w.ok(&bot, json!({"endpoint": "createSession", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "sess-1", "displayName": "Scratch"}}));
    let stream = link["rootStreamId"].as_str().unwrap().to_owned();
    let fault = Request {
        method: "POST".into(),
        path: "/_serve/faults".into(),
        headers: vec![("Authorization".into(), format!("Bearer {user}"))],
        body: br#"{"endpoint": "sendMessage"}"#.to_vec(),
        ..Request::default()
    };
    assert_eq!(w.service.handle(&fault, T0).status, 204);
    let send = json!({"endpoint": "sendMessage", "streamId": stream, "body": {"content": "hi", "clientMessageId": "cmid_lost"}});
    let (_, raw) = w.call(&user, send.clone());
    assert!(raw.drop_connection);
    assert_eq!(w.service.message_count(), 1);
    // The resend (same clientMessageId) returns the original: still one.
    let again = w.ok(&user, send);
    assert_eq!(again["clientMessageId"], "cmid_lost");
    assert_eq!(w.service.message_count(), 1);
}

#[test]
fn sealed_streams_take_ciphertext_only_and_wraps_once() {
    let mut w = World::new(Options::default());
    let (user, bot) = (w.user(), w.bot());
    let link = w.ok(&bot, json!({"endpoint": "createSession", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "sess-1", "displayName": "Scratch", "e2e": {"ownerKeyId": "key_owner"}}}));
    assert_eq!(link["e2eEnabled"], true);
    let stream = link["rootStreamId"].as_str().unwrap().to_owned();
    let (parsed, raw) = w.call(
        &user,
        json!({"endpoint": "sendMessage", "streamId": stream, "body": {"content": "plain"}}),
    );
    assert_eq!(parsed.unwrap_err().status(), 400);
    assert!(raw.body.contains("E2E_STREAM_REQUIRES_CIPHERTEXT"));
    let wraps = json!({"endpoint": "postKeyWraps", "streamId": stream, "body": {"keyGeneration": 0, "wraps": [{"recipientKind": "user", "recipientKeyId": "key_owner", "wrapEnc": "ZW5j", "wrapCt": "Y3Q="}]}});
    let stored = w.ok(&bot, wraps.clone());
    assert_eq!(stored["stored"], 1);
    // Again: a 409 the core reads as "may have landed".
    let (parsed, _) = w.call(&bot, wraps);
    let failure = parsed.unwrap_err().api_failure().cloned().unwrap();
    assert!(failure.may_have_landed);
    assert_eq!(failure.retry.kind, RetryKind::MayHaveLanded);
    let listed = w.ok(
        &user,
        json!({"endpoint": "getKeyWraps", "streamId": stream}),
    );
    assert_eq!(listed["currentKeyGeneration"], 0);
    assert_eq!(listed["wraps"].as_array().unwrap().len(), 1);
}

#[test]
fn a_lapsed_claim_cannot_complete_and_a_fault_needs_a_real_status() {
    let mut w = World::new(Options::default());
    let (user, bot) = (w.user(), w.bot());
    let link = w.ok(&bot, json!({"endpoint": "createSession", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "runtimeSessionId": "sess-1", "displayName": "Scratch"}}));
    let stream = link["rootStreamId"].as_str().unwrap().to_owned();
    w.ok(
        &user,
        json!({"endpoint": "sendMessage", "streamId": stream, "body": {"content": "hi"}}),
    );
    let invocation = w.ok(&bot, json!({"endpoint": "claimInvocation", "body": {"runtimeKind": "alpha-local", "instanceId": "machine-a", "supportedCapabilities": [], "claimTtlSeconds": 15}}));
    let (inv, token) = (
        invocation["id"].as_str().unwrap().to_owned(),
        invocation["claimToken"].as_str().unwrap().to_owned(),
    );
    w.now += 15_000;
    let (parsed, _) = w.call(&bot, json!({"endpoint": "completeInvocation", "invocationId": inv, "body": {"instanceId": "machine-a", "claimToken": token, "finalMessageMarkdown": "late"}}));
    assert_eq!(parsed.unwrap_err().status(), 409);
    assert_eq!(w.service.message_count(), 1, "no late reply posted");
    for status in [42, 600, 1000] {
        let fault = Request {
            method: "POST".into(),
            path: "/_serve/faults".into(),
            headers: vec![("Authorization".into(), format!("Bearer {user}"))],
            body: format!(r#"{{"endpoint": "getMe", "status": {status}}}"#).into_bytes(),
            ..Request::default()
        };
        assert_eq!(w.service.handle(&fault, T0).status, 400, "{status}");
    }
}
