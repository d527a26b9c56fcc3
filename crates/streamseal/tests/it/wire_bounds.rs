//! Both edges of every bound of sections 4 and 8: the last valid value
//! passes, the first invalid one fails with exactly that field in `details`.

use std::fmt::Debug;

use serde_json::{Value, json};

use streamseal::ErrorCode;
use streamseal::envelope::{Envelope, SealedPayload};
use streamseal::identity::RecipientKind;
use streamseal::wire::common::StreamType;
use streamseal::wire::ids::DecisionId;
use streamseal::wire::label::LabelResourceType;
use streamseal::wire::presence::{PresenceStatus, RuntimeKind};
use streamseal::wire::requests::attachments::SearchAttachmentsRequest;
use streamseal::wire::requests::bot_runtime::{
    CreateSessionRequest, EndSessionRequest, PresenceRequest, RebindSessionRequest,
    RenameSessionRequest, SessionE2e,
};
use streamseal::wire::requests::conversations::ListConversationsQuery;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::invocation::{
    ClaimRequest, CompleteRequest, CompletionSource, FailRequest, InvocationMessageRequest,
    RenewRequest, SealedMessageRequest, SealedStepRequest, SealedStepStartedRequest, SourceType,
    StepRequest, StepType,
};
use streamseal::wire::requests::labels::{
    AssignLabelRequest, RemoveLabelQuery, UpdateLabelRequest,
};
use streamseal::wire::requests::memos::SearchMemosRequest;
use streamseal::wire::requests::messages::{
    ConversationIntent, FindByMetadataRequest, ListMessagesQuery, SearchMessagesRequest,
    SendMessageRequest, UpdateMessageRequest,
};
use streamseal::wire::requests::streams::{
    ListMembersQuery, ListStreamsQuery, NewKeyWrap, PostKeyWrapsRequest, UpdateStreamRequest,
};
use streamseal::wire::requests::webhooks::{CompatWebhookPayload, WebhookPost};
use streamseal::wire::requests::{QueryParams, Validate};
use streamseal::wire::secret::ClaimToken;

fn x(n: usize) -> String {
    "x".repeat(n)
}

#[track_caller]
fn passes<T: Validate + Debug>(r: &T) {
    if let Err(e) = r.validate() {
        panic!("{r:?} should pass: {e}");
    }
}

#[track_caller]
fn fails_on<T: Validate + Debug>(r: &T, field: &str) {
    let err = r.validate().expect_err("should fail");
    assert_eq!(err.code(), ErrorCode::ValidationFailed);
    let keys: Vec<&String> = err.details().unwrap().keys().collect();
    assert_eq!(keys, [field], "{r:?}");
    assert!(!err.details().unwrap()[field].is_empty());
}

/// The last valid value passes, the first invalid one fails on `field`.
#[track_caller]
fn edge<T: Validate + Debug + Clone, V>(
    base: &T,
    set: impl Fn(&mut T, V),
    valid: V,
    invalid: V,
    field: &str,
) {
    let mut ok = base.clone();
    set(&mut ok, valid);
    passes(&ok);
    let mut bad = base.clone();
    set(&mut bad, invalid);
    fails_on(&bad, field);
}

fn sealed() -> SealedPayload {
    SealedPayload {
        ciphertext: "Y3Q=".into(),
        envelope: Envelope {
            v: 2,
            key_generation: 0,
            iv: "AAECAwQFBgcICQoL".into(),
            aad: "YWFk".into(),
            extra: Default::default(),
        },
        extra: Default::default(),
    }
}

fn token() -> ClaimToken {
    ClaimToken::parse("clm_t").unwrap()
}

#[test]
fn list_and_search_limits() {
    let search = SearchMessagesRequest {
        query: "q".into(),
        ..Default::default()
    };
    passes(&search);
    edge(&search, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&search, |r, v| r.limit = Some(v), 50, 51, "limit");
    edge(&search, |r, v| r.query = v, x(1), x(0), "query");

    let att = SearchAttachmentsRequest {
        query: "q".into(),
        ..Default::default()
    };
    edge(&att, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&att, |r, v| r.limit = Some(v), 50, 51, "limit");
    edge(&att, |r, v| r.query = v, x(1), x(0), "query");

    let memos = SearchMemosRequest::default();
    passes(&memos);
    edge(&memos, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&memos, |r, v| r.limit = Some(v), 100, 101, "limit");

    let find = FindByMetadataRequest::default();
    edge(&find, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&find, |r, v| r.limit = Some(v), 100, 101, "limit");
    edge(&find, |r, v| r.stream_id = Some(v), x(1), x(0), "streamId");

    let list = ListMessagesQuery::default();
    edge(&list, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&list, |r, v| r.limit = Some(v), 100, 101, "limit");

    let convs = ListConversationsQuery::default();
    edge(&convs, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&convs, |r, v| r.limit = Some(v), 100, 101, "limit");

    let streams = ListStreamsQuery {
        stream_type: StreamType::Channel,
        query: None,
        after: None,
        limit: None,
        include_archived: None,
    };
    edge(&streams, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&streams, |r, v| r.limit = Some(v), 200, 201, "limit");
    let members = ListMembersQuery::default();
    edge(&members, |r, v| r.limit = Some(v), 1, 0, "limit");
    edge(&members, |r, v| r.limit = Some(v), 200, 201, "limit");
}

#[test]
fn messages_and_streams() {
    let send = SendMessageRequest {
        content: Some("hi".into()),
        ..Default::default()
    };
    passes(&send);
    edge(
        &send,
        |r, v| r.client_message_id = Some(v),
        x(128),
        x(129),
        "clientMessageId",
    );
    edge(&send, |r, v| r.content = Some(v), x(1), x(0), "content");
    fails_on(&SendMessageRequest::default(), "content");
    let sealed_send = SendMessageRequest {
        sealed: Some(sealed()),
        ..Default::default()
    };
    passes(&sealed_send);
    fails_on(
        &SendMessageRequest {
            content: Some("hi".into()),
            ..sealed_send.clone()
        },
        "sealed",
    );
    fails_on(
        &SendMessageRequest {
            conversation: Some(ConversationIntent::New),
            ..sealed_send
        },
        "conversation",
    );
    edge(
        &send,
        |r, v| r.conversation = Some(ConversationIntent::Existing { conversation_id: v }),
        x(1),
        x(0),
        "conversation.conversationId",
    );

    let update = UpdateMessageRequest {
        content: "a".into(),
    };
    edge(&update, |r, v| r.content = v, x(1), x(0), "content");

    let desc = UpdateStreamRequest {
        description: String::new(),
    };
    passes(&desc); // the empty string clears
    edge(
        &desc,
        |r, v| r.description = v,
        x(10_000),
        x(10_001),
        "description",
    );

    let wrap = NewKeyWrap {
        recipient_kind: Some(RecipientKind::Bot),
        recipient_key_id: Some("machine-a".into()),
        wrap_enc: "ZW5j".into(),
        wrap_ct: "Y3Q=".into(),
    };
    let wraps = PostKeyWrapsRequest {
        key_generation: 0,
        wraps: vec![wrap.clone(), wrap],
    };
    passes(&wraps);
    edge(
        &wraps,
        |r, v| r.wraps[1].recipient_key_id = Some(v),
        x(128),
        x(129),
        "wraps[1].recipientKeyId",
    );
    edge(
        &wraps,
        |r, v| r.wraps[0].recipient_key_id = Some(v),
        x(1),
        x(0),
        "wraps[0].recipientKeyId",
    );
    edge(
        &wraps,
        |r, v| r.wraps[0].wrap_enc = v,
        x(1),
        x(0),
        "wraps[0].wrapEnc",
    );
    edge(
        &wraps,
        |r, v| r.wraps[0].wrap_ct = v,
        x(1),
        x(0),
        "wraps[0].wrapCt",
    );
    edge(
        &wraps,
        |r, v| r.wraps[0].recipient_kind = Some(RecipientKind::parse(v)),
        "user",
        "robot",
        "wraps[0].recipientKind",
    );
    edge(
        &wraps,
        |r, v| r.wraps[0].recipient_kind = v,
        Some(RecipientKind::User),
        None,
        "wraps[0].recipientKind",
    );
}

fn presence() -> PresenceRequest {
    PresenceRequest::new(
        RuntimeKind::Custom,
        "machine-a",
        PresenceStatus::Available,
        true,
    )
}

#[test]
fn presence_bounds() {
    let p = presence();
    passes(&p);
    edge(&p, |r, v| r.instance_id = v, x(1), x(0), "instanceId");
    edge(&p, |r, v| r.instance_id = v, x(128), x(129), "instanceId");
    edge(
        &p,
        |r, v| r.runtime_session_id = Some(v),
        x(1),
        x(0),
        "runtimeSessionId",
    );
    edge(
        &p,
        |r, v| r.runtime_session_id = Some(v),
        x(256),
        x(257),
        "runtimeSessionId",
    );
    edge(
        &p,
        |r, v| r.display_name = Some(v),
        x(100),
        x(101),
        "displayName",
    );
    edge(
        &p,
        |r, v| r.status_text = Some(v),
        x(200),
        x(201),
        "statusText",
    );
    edge(&p, |r, v| r.public_key = Some(v), x(44), x(45), "publicKey");
    edge(&p, |r, v| r.public_key = Some(v), x(44), x(43), "publicKey");
    edge(
        &p,
        |r, v| r.public_key_id = Some(v),
        x(1),
        x(0),
        "publicKeyId",
    );
    edge(
        &p,
        |r, v| r.public_key_id = Some(v),
        x(128),
        x(129),
        "publicKeyId",
    );
    edge(
        &p,
        |r, v| r.runtime_kind = RuntimeKind::parse(v),
        "delta-channel",
        "epsilon",
        "runtimeKind",
    );
    edge(
        &p,
        |r, v| r.status = PresenceStatus::parse(v),
        "error",
        "sleeping",
        "status",
    );
    // The public-key set (its field name is not shown): at most 32 keys.
    let keys = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| json!({"publicKeyId": format!("k{i}")}))
                .collect(),
        )
    };
    edge(
        &p,
        |r, v| {
            r.extra.insert("publicKeys".into(), keys(v));
        },
        32,
        33,
        "publicKeys",
    );
    edge(
        &p,
        |r, v| {
            r.extra.insert("publicKeys".into(), keys(v));
        },
        0,
        33,
        "publicKeys",
    );
}

#[test]
fn session_bounds() {
    let s = CreateSessionRequest {
        runtime_kind: RuntimeKind::AlphaLocal,
        instance_id: "i".into(),
        runtime_session_id: "s".into(),
        display_name: "d".into(),
        local_cwd: None,
        memory_mode: None,
        label_name: None,
        description: None,
        e2e: None,
        if_archived: None,
        if_missing: None,
    };
    passes(&s);
    edge(
        &s,
        |r, v| r.runtime_kind = RuntimeKind::parse(v),
        "delta-channel",
        "beta",
        "runtimeKind",
    );
    edge(&s, |r, v| r.instance_id = v, x(128), x(129), "instanceId");
    edge(&s, |r, v| r.instance_id = v, x(1), x(0), "instanceId");
    edge(
        &s,
        |r, v| r.runtime_session_id = v,
        x(256),
        x(257),
        "runtimeSessionId",
    );
    edge(
        &s,
        |r, v| r.runtime_session_id = v,
        x(1),
        x(0),
        "runtimeSessionId",
    );
    edge(&s, |r, v| r.display_name = v, x(100), x(101), "displayName");
    edge(&s, |r, v| r.display_name = v, x(1), x(0), "displayName");
    edge(
        &s,
        |r, v| r.local_cwd = Some(v),
        x(1000),
        x(1001),
        "localCwd",
    );
    edge(
        &s,
        |r, v| r.label_name = Some(v),
        x(100),
        x(101),
        "labelName",
    );
    edge(&s, |r, v| r.label_name = Some(v), x(1), x(0), "labelName");
    edge(
        &s,
        |r, v| r.description = Some(v),
        x(10_000),
        x(10_001),
        "description",
    );
    edge(
        &s,
        |r, v| r.e2e = Some(SessionE2e { owner_key_id: v }),
        x(128),
        x(129),
        "e2e.ownerKeyId",
    );
    edge(
        &s,
        |r, v| r.e2e = Some(SessionE2e { owner_key_id: v }),
        x(1),
        x(0),
        "e2e.ownerKeyId",
    );
    edge(
        &s,
        |r, v| r.memory_mode = Some(v.into()),
        "off",
        "sometimes",
        "memoryMode",
    );
    edge(
        &s,
        |r, v| r.if_archived = Some(v.into()),
        "replace",
        "ignore",
        "ifArchived",
    );
    edge(
        &s,
        |r, v| r.if_missing = Some(v.into()),
        "error",
        "ignore",
        "ifMissing",
    );

    let rename = RenameSessionRequest {
        instance_id: "i".into(),
        runtime_session_id: "s".into(),
        display_name: "d".into(),
    };
    edge(
        &rename,
        |r, v| r.display_name = v,
        x(100),
        x(101),
        "displayName",
    );
    edge(
        &rename,
        |r, v| r.display_name = v,
        x(1),
        x(0),
        "displayName",
    );
    let rebind = RebindSessionRequest {
        link_id: "l".into(),
        instance_id: "i".into(),
        runtime_session_id: "s".into(),
        new_instance_id: "n".into(),
    };
    edge(&rebind, |r, v| r.link_id = v, x(128), x(129), "linkId");
    edge(
        &rebind,
        |r, v| r.new_instance_id = v,
        x(128),
        x(129),
        "newInstanceId",
    );
    edge(
        &rebind,
        |r, v| r.new_instance_id = v,
        x(1),
        x(0),
        "newInstanceId",
    );
    let end = EndSessionRequest {
        instance_id: "i".into(),
        runtime_session_id: "s".into(),
        except_invocation_id: None,
    };
    edge(
        &end,
        |r, v| r.runtime_session_id = v,
        x(256),
        x(257),
        "runtimeSessionId",
    );
}

#[test]
fn invocation_bounds() {
    let claim = ClaimRequest::new(RuntimeKind::Custom, "i", vec!["mentionable".into()]);
    assert_eq!(claim.claim_ttl_seconds, 60);
    passes(&claim);
    edge(
        &claim,
        |r, v| r.claim_ttl_seconds = v,
        15,
        14,
        "claimTtlSeconds",
    );
    edge(
        &claim,
        |r, v| r.claim_ttl_seconds = v,
        300,
        301,
        "claimTtlSeconds",
    );
    edge(
        &claim,
        |r, v| r.instance_id = v,
        x(128),
        x(129),
        "instanceId",
    );
    edge(
        &claim,
        |r, v| r.runtime_session_id = Some(v),
        x(256),
        x(257),
        "runtimeSessionId",
    );
    edge(
        &claim,
        |r, v| r.response_stream_id = Some(v),
        x(64),
        x(65),
        "responseStreamId",
    );
    edge(
        &claim,
        |r, v| r.response_stream_id = Some(v),
        x(1),
        x(0),
        "responseStreamId",
    );

    let renew = RenewRequest {
        instance_id: "i".into(),
        claim_token: token(),
        claim_ttl_seconds: None,
        known_source_revision: None,
        restart_required_revision: None,
    };
    passes(&renew);
    edge(
        &renew,
        |r, v| r.claim_ttl_seconds = Some(v),
        15,
        14,
        "claimTtlSeconds",
    );
    edge(
        &renew,
        |r, v| r.claim_ttl_seconds = Some(v),
        300,
        301,
        "claimTtlSeconds",
    );
    edge(
        &renew,
        |r, v| r.claim_token = ClaimToken::from(v),
        x(256),
        x(257),
        "claimToken",
    );
    edge(
        &renew,
        |r, v| r.claim_token = ClaimToken::from(v),
        x(1),
        x(0),
        "claimToken",
    );
    edge(&renew, |r, v| r.instance_id = v, x(1), x(0), "instanceId");

    let step = StepRequest {
        instance_id: "i".into(),
        claim_token: token(),
        step_type: StepType::Thinking,
        content: "c".into(),
        status_text: None,
        client_step_id: None,
        phase: None,
        duration_ms: None,
    };
    edge(&step, |r, v| r.content = v, x(1), x(0), "content");
    edge(&step, |r, v| r.content = v, x(10_000), x(10_001), "content");
    edge(
        &step,
        |r, v| r.status_text = Some(v),
        x(200),
        x(201),
        "statusText",
    );
    edge(
        &step,
        |r, v| r.client_step_id = Some(v),
        x(128),
        x(129),
        "clientStepId",
    );
    edge(
        &step,
        |r, v| r.client_step_id = Some(v),
        x(1),
        x(0),
        "clientStepId",
    );
    edge(
        &step,
        |r, v| r.step_type = StepType::parse(v),
        "model_escalated",
        "daydreaming",
        "stepType",
    );

    let msg = InvocationMessageRequest {
        instance_id: "i".into(),
        claim_token: token(),
        content: "c".into(),
        client_message_id: None,
        metadata: None,
    };
    edge(
        &msg,
        |r, v| r.client_message_id = Some(v),
        x(128),
        x(129),
        "clientMessageId",
    );

    let started = SealedStepStartedRequest {
        step_id: "s".into(),
        step_type: StepType::ToolCall,
        message_id: None,
        ciphertext: None,
        envelope: None,
    };
    passes(&started);
    edge(&started, |r, v| r.step_id = v, x(128), x(129), "stepId");
    edge(&started, |r, v| r.step_id = v, x(1), x(0), "stepId");
    edge(
        &started,
        |r, v| r.message_id = Some(v),
        x(128),
        x(129),
        "messageId",
    );
    edge(
        &started,
        |r, v| r.message_id = Some(v),
        x(1),
        x(0),
        "messageId",
    );

    let finished = SealedStepRequest {
        step_id: "s".into(),
        step_type: StepType::Response,
        sealed: sealed(),
        message_id: None,
        duration_ms: Some(0),
    };
    edge(&finished, |r, v| r.step_id = v, x(128), x(129), "stepId");
    edge(
        &finished,
        |r, v| r.message_id = Some(v),
        x(1),
        x(0),
        "messageId",
    );

    let sm = SealedMessageRequest {
        message_id: "m".into(),
        sealed: sealed(),
        attachment_ids: None,
    };
    edge(&sm, |r, v| r.message_id = v, x(128), x(129), "messageId");
    edge(&sm, |r, v| r.message_id = v, x(1), x(0), "messageId");

    let complete = CompleteRequest {
        instance_id: "i".into(),
        claim_token: token(),
        source_revision: None,
        final_message_markdown: Some("done".into()),
        no_response: None,
        summary: None,
        sources: Some(vec![CompletionSource {
            source_type: SourceType::Web,
            title: "t".into(),
            url: "https://example.test".into(),
            snippet: None,
        }]),
        metadata: None,
        sealed_reply: None,
    };
    passes(&complete);
    edge(
        &complete,
        |r, v| r.final_message_markdown = Some(v),
        x(50_000),
        x(50_001),
        "finalMessageMarkdown",
    );
    edge(
        &complete,
        |r, v| r.final_message_markdown = Some(v),
        x(1),
        x(0),
        "finalMessageMarkdown",
    );
    let src = |f: fn(&mut CompletionSource, String)| {
        move |r: &mut CompleteRequest, v: String| f(&mut r.sources.as_mut().unwrap()[0], v)
    };
    edge(
        &complete,
        src(|s, v| s.title = v),
        x(500),
        x(501),
        "sources[0].title",
    );
    edge(
        &complete,
        src(|s, v| s.title = v),
        x(1),
        x(0),
        "sources[0].title",
    );
    edge(
        &complete,
        src(|s, v| s.url = v),
        x(2000),
        x(2001),
        "sources[0].url",
    );
    edge(
        &complete,
        src(|s, v| s.url = v),
        x(1),
        x(0),
        "sources[0].url",
    );
    edge(
        &complete,
        src(|s, v| s.snippet = Some(v)),
        x(2000),
        x(2001),
        "sources[0].snippet",
    );
    edge(
        &complete,
        src(|s, v| s.source_type = SourceType::parse(&v)),
        "vcs".into(),
        "blog".into(),
        "sources[0].type",
    );

    let fail = FailRequest {
        instance_id: "i".into(),
        claim_token: token(),
        error_message: "boom".into(),
    };
    edge(
        &fail,
        |r, v| r.instance_id = v,
        x(128),
        x(129),
        "instanceId",
    );
}

#[test]
fn label_bounds() {
    let assign = AssignLabelRequest {
        name: "n".into(),
        resource_type: LabelResourceType::Stream,
        resource_id: "r".into(),
    };
    edge(&assign, |r, v| r.name = v, x(100), x(101), "name");
    edge(&assign, |r, v| r.name = v, x(1), x(0), "name");
    edge(
        &assign,
        |r, v| r.resource_id = v,
        x(64),
        x(65),
        "resourceId",
    );
    edge(&assign, |r, v| r.resource_id = v, x(1), x(0), "resourceId");
    edge(
        &assign,
        |r, v| r.resource_type = LabelResourceType::parse(v),
        "message",
        "memo",
        "resourceType",
    );
    // Characters, not bytes: 100 two-byte characters are a valid name.
    edge(
        &assign,
        |r, v| r.name = v,
        "é".repeat(100),
        "é".repeat(101),
        "name",
    );

    let remove = RemoveLabelQuery {
        name: "n".into(),
        resource_type: LabelResourceType::Message,
        resource_id: "r".into(),
    };
    edge(&remove, |r, v| r.name = v, x(100), x(101), "name");
    edge(
        &remove,
        |r, v| r.resource_id = v,
        x(64),
        x(65),
        "resourceId",
    );
    assert_eq!(
        remove.query_pairs()[1],
        ("resourceType", "message".to_owned())
    );

    let update = UpdateLabelRequest::default();
    passes(&update);
    edge(&update, |r, v| r.name = Some(v), x(100), x(101), "name");
    edge(&update, |r, v| r.name = Some(v), x(1), x(0), "name");
}

#[test]
fn webhook_and_decision_bounds() {
    let hook = WebhookPost {
        content: "hi".into(),
    };
    edge(&hook, |r, v| r.content = v, x(1), x(0), "content");
    edge(&hook, |r, v| r.content = v, x(50_000), x(50_001), "content");

    // 256 KB request body for the compat hook: `{"text":"..."}` is 11 bytes of framing.
    let compat = |n: usize| CompatWebhookPayload(json!({ "text": x(n) }));
    passes(&compat(256 * 1024 - 11));
    fails_on(&compat(256 * 1024 - 10), "payload");
    fails_on(
        &CompatWebhookPayload(json!(["not", "an", "object"])),
        "payload",
    );

    let decision = CreateDecisionRequest {
        decision_id: DecisionId::mint(1_750_000_000_000).unwrap().into(),
        options: vec![],
        allow_note: true,
        runtime_session_id: "s".into(),
        invocation_id: "inv_1".into(),
        sealed: Some(sealed()),
    };
    passes(&decision);
    edge(
        &decision,
        |r, v| r.decision_id = v,
        "dreq_01J80000000000000000000060".into(),
        "req_01J80000000000000000000060".into(),
        "decisionId",
    );
}

#[test]
fn every_failure_is_reported_at_once() {
    let mut claim = ClaimRequest::new(RuntimeKind::parse("epsilon"), "", vec![]);
    claim.claim_ttl_seconds = 0;
    let err = claim.validate().unwrap_err();
    let keys: Vec<&str> = err.details().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["claimTtlSeconds", "instanceId", "runtimeKind"]);
    // The service's own 400 shape.
    let body = streamseal::wire::error_body::ErrorBody::validation(err.details().unwrap().clone());
    let value = serde_json::to_value(&body).unwrap();
    assert!(value["details"]["claimTtlSeconds"][0].is_string());
    assert!(value["error"].is_string());
}
