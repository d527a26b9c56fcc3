//! One test per endpoint of the catalogue: the built request against the
//! expected `{method, path, query, headers, body}`, and a response fixture
//! parsed into the endpoint's type.
//!
//! `case` matches every [`Endpoint`] without a wildcard, so an endpoint
//! added to the catalogue without a case does not compile; `tested!`
//! generates the per-endpoint tests and the list the coverage test checks
//! the catalogue against.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use streamseal::ErrorCode;
use streamseal::api::endpoints::{self, EndpointSpec, typed};
use streamseal::api::{
    ApiResponse, AttachmentUpload, AuthKind, Context, ENDPOINT_COUNT, ENDPOINTS, Endpoint,
    EndpointRequest, Family, HttpMethod, HttpRequest, HttpResponse, RequestBody, RequiredScope,
    ResponseData, Scope, build_request, parse_response,
};
use streamseal::wire::ids::WorkspaceId;
use streamseal::wire::secret::{ApiKey, CallbackToken, ClaimToken};
use streamseal::wire::version::{ApiVersion, ServiceVersion};

use crate::support::{api_fixture, wire_fixture};

const WS: &str = "ws_01J80000000000000000000001";
const STREAM: &str = "stream_01J80000000000000000000010";
const MSG: &str = "msg_01J80000000000000000000020";
const INV: &str = "inv_01J80000000000000000000040";
const CONV: &str = "conversation_01J80000000000000000000030";

fn from<T: DeserializeOwned>(v: &Value) -> T {
    serde_json::from_value(v.clone()).unwrap()
}

fn ctx() -> Context {
    Context::new(
        "https://chat.example.test/",
        WorkspaceId::parse(WS).unwrap(),
        Some(ApiKey::parse("svc_bk_test").unwrap()),
    )
}

fn sealed() -> Value {
    json!({"ciphertext": "c3RlcA==", "envelope": {"v": 2, "keyGeneration": 2,
        "iv": "AAECAwQFBgcICQoL", "aad": "c3RyZWFtc2VhbC1hYWQ="}})
}

fn merged(a: Value, b: Value) -> Value {
    let mut a = a;
    if let (Value::Object(a), Value::Object(b)) = (&mut a, b) {
        a.extend(b);
    }
    a
}

fn claim_body(extra: Value) -> Value {
    merged(
        json!({"instanceId": "machine-a", "claimToken": "clm_tok"}),
        extra,
    )
}

fn data(v: Value) -> String {
    json!({ "data": v }).to_string()
}

type Check = Box<dyn Fn(&ResponseData)>;

struct Case {
    request: EndpointRequest,
    path: String,
    query: Vec<(&'static str, String)>,
    callback: Option<&'static str>,
    body: Option<Value>,
    status: u16,
    version: ApiVersion,
    response: String,
    check: Check,
}

impl Case {
    fn new(request: EndpointRequest, path: impl Into<String>) -> Self {
        Case {
            request,
            path: path.into(),
            query: Vec::new(),
            callback: None,
            body: None,
            status: 200,
            version: ApiVersion::LATEST,
            response: String::new(),
            check: Box::new(|_| {}),
        }
    }
    fn query(mut self, q: &[(&'static str, &str)]) -> Self {
        self.query = q.iter().map(|(n, v)| (*n, (*v).to_owned())).collect();
        self
    }
    fn callback(mut self, token: &'static str) -> Self {
        self.callback = Some(token);
        self
    }
    fn body(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }
    fn responds(mut self, status: u16, body: impl Into<String>) -> Self {
        self.status = status;
        self.response = body.into();
        self
    }
    fn version(mut self, v: ApiVersion) -> Self {
        self.version = v;
        self
    }
    fn check(mut self, f: impl Fn(&ResponseData) + 'static) -> Self {
        self.check = Box::new(f);
        self
    }
}

macro_rules! expect {
    ($data:expr, $pat:pat => $body:expr) => {
        match $data {
            $pat => $body,
            other => panic!("unexpected response data: {other:?}"),
        }
    };
}

/// The case of every endpoint.
fn case(e: Endpoint) -> Case {
    use EndpointRequest as R;
    use ResponseData as D;
    let s = format!("/streams/{STREAM}");
    match e {
        Endpoint::GetMe => Case::new(R::GetMe, "/me")
            .responds(200, wire_fixture("me_user.json"))
            .check(|d| expect!(d, D::Me(me) => assert!(me.api_version.supported.len() >= 4))),
        Endpoint::ListMyBots => Case::new(
            R::ListMyBots {
                traits: Some("mentionable".into()),
            },
            "/me/bots",
        )
        .query(&[("traits", "mentionable")])
        .responds(200, wire_fixture("bots_2026-08-21.json"))
        .check(|d| expect!(d, D::Bots(b) => assert_eq!(b.data.len(), 1))),
        Endpoint::GetOwnE2eKey => Case::new(R::GetOwnE2eKey, "/me/e2e-key")
            .responds(200, wire_fixture("own_key.json"))
            .check(|d| expect!(d, D::OwnKey(k) => assert_eq!(k.key_id, "key_laptop"))),
        Endpoint::ListStreams => Case::new(
            R::ListStreams {
                query: from(&json!({"type": "channel", "limit": 2, "includeArchived": false})),
            },
            "/streams",
        )
        .query(&[("type", "channel"), ("limit", "2"), ("includeArchived", "false")])
        .version(ApiVersion::V2026_07_12)
        .responds(200, wire_fixture("stream_page_2026-07-12.json"))
        .check(|d| expect!(d, D::Streams(p) => assert!(!p.data.is_empty()))),
        Endpoint::GetStream => Case::new(
            R::GetStream {
                stream_id: STREAM.into(),
            },
            s,
        )
        .version(ApiVersion::V2026_07_12)
        .responds(200, wire_fixture("stream_2026-07-12.json"))
        .check(|d| {
            // The 2026-07-12 `parentMessageId` is read as `anchorId`.
            expect!(d, D::Stream(st) => assert!(st.anchor_id.is_some()))
        }),
        Endpoint::UpdateStream => Case::new(
            R::UpdateStream {
                stream_id: STREAM.into(),
                body: from(&json!({"description": "Release notes"})),
            },
            s,
        )
        .body(json!({"description": "Release notes"}))
        .version(ApiVersion::V2026_07_22)
        .responds(200, wire_fixture("stream_2026-07-22.json"))
        .check(|d| expect!(d, D::Stream(st) => assert!(st.anchor_id.is_some()))),
        Endpoint::ArchiveStream => Case::new(
            R::ArchiveStream {
                stream_id: STREAM.into(),
            },
            format!("{s}/archive"),
        )
        .version(ApiVersion::V2026_07_22)
        .responds(200, wire_fixture("stream_2026-07-22.json"))
        .check(|d| expect!(d, D::Stream(_) => ())),
        Endpoint::UnarchiveStream => Case::new(
            R::UnarchiveStream {
                stream_id: STREAM.into(),
            },
            format!("{s}/unarchive"),
        )
        .version(ApiVersion::V2026_07_22)
        .responds(200, wire_fixture("stream_2026-07-22.json"))
        .check(|d| expect!(d, D::Stream(_) => ())),
        Endpoint::ListStreamMembers => Case::new(
            R::ListStreamMembers {
                stream_id: STREAM.into(),
                query: from(&json!({"after": "c1", "limit": 200})),
            },
            format!("{s}/members"),
        )
        .query(&[("after", "c1"), ("limit", "200")])
        .responds(200, wire_fixture("member_page.json"))
        .check(|d| expect!(d, D::Members(p) => assert!(!p.data.is_empty()))),
        Endpoint::GetKeyWraps => Case::new(
            R::GetKeyWraps {
                stream_id: STREAM.into(),
            },
            format!("{s}/e2e/key-wraps"),
        )
        .responds(200, wire_fixture("key_wraps.json"))
        .check(|d| expect!(d, D::KeyWraps(k) => assert_eq!(k.current_key_generation, 2))),
        Endpoint::PostKeyWraps => {
            let body = json!({"keyGeneration": 0, "wraps": [{"recipientKind": "bot",
                "recipientKeyId": "machine-a", "wrapEnc": "ZW5j", "wrapCt": "Y3Q="}]});
            Case::new(
                R::PostKeyWraps {
                    stream_id: STREAM.into(),
                    body: from(&body),
                },
                format!("{s}/e2e/key-wraps"),
            )
            .body(body)
            .responds(201, data(json!({"stored": 1})))
            .check(|d| expect!(d, D::KeyWrapsStored(k) => assert_eq!(k.stored, 1)))
        }
        Endpoint::SearchMessages => {
            let body = json!({"query": "release", "semantic": true, "limit": 10});
            Case::new(R::SearchMessages { body: from(&body) }, "/messages/search")
                .body(body)
                .responds(200, wire_fixture("message_search_2026-08-21.json"))
                .check(|d| expect!(d, D::MessageSearch(r) => assert!(!r.data.is_empty())))
        }
        Endpoint::ListMessages => Case::new(
            R::ListMessages {
                stream_id: STREAM.into(),
                query: from(&json!({"before": 100, "limit": 2})),
            },
            format!("{s}/messages"),
        )
        .query(&[("before", "100"), ("limit", "2")])
        .version(ApiVersion::V2026_07_24)
        .responds(200, wire_fixture("message_list_2026-07-24.json"))
        .check(|d| expect!(d, D::Messages(l) => assert!(!l.data.is_empty()))),
        Endpoint::SendMessage => {
            let body = json!({"content": "ship it", "clientMessageId": "cmid_1",
                "metadata": {"ticket": "T-1"}, "conversation": {"intent": "new"}});
            Case::new(
                R::SendMessage {
                    stream_id: STREAM.into(),
                    body: from(&body),
                },
                format!("{s}/messages"),
            )
            .body(body)
            .responds(201, wire_fixture("message_send_2026-08-21.json"))
            .check(|d| expect!(d, D::Message(m) => assert_eq!(m.data.id, MSG)))
        }
        Endpoint::FindMessagesByMetadata => {
            let body = json!({"metadata": {"ticket": "T-1"}, "streamId": STREAM, "limit": 5});
            Case::new(
                R::FindMessagesByMetadata { body: from(&body) },
                "/messages/find-by-metadata",
            )
            .body(body)
            .version(ApiVersion::V2026_07_24)
            .responds(200, wire_fixture("messages_found_2026-07-24.json"))
            .check(|d| expect!(d, D::MessagesFound(f) => assert!(!f.data.is_empty())))
        }
        Endpoint::UpdateMessage => Case::new(
            R::UpdateMessage {
                message_id: MSG.into(),
                body: from(&json!({"content": "edited"})),
            },
            format!("/messages/{MSG}"),
        )
        .body(json!({"content": "edited"}))
        .version(ApiVersion::V2026_07_22)
        .responds(200, wire_fixture("message_send_2026-07-22.json"))
        .check(|d| expect!(d, D::Message(m) => assert!(m.slots.0.is_empty()))),
        Endpoint::DeleteMessage => Case::new(
            R::DeleteMessage {
                message_id: MSG.into(),
            },
            format!("/messages/{MSG}"),
        )
        .responds(204, "")
        .check(|d| assert_eq!(d, &D::NoContent)),
        Endpoint::ListConversations => Case::new(
            R::ListConversations {
                query: from(&json!({"streamId": STREAM, "status": "active", "limit": 10})),
            },
            "/conversations",
        )
        .query(&[("streamId", STREAM), ("status", "active"), ("limit", "10")])
        .responds(200, wire_fixture("conversation_page.json"))
        .check(|d| expect!(d, D::Conversations(p) => assert!(!p.data.is_empty()))),
        Endpoint::GetConversation => Case::new(
            R::GetConversation {
                conversation_id: CONV.into(),
            },
            format!("/conversations/{CONV}"),
        )
        .responds(200, api_fixture("conversation_get.json"))
        .check(|d| expect!(d, D::Conversation(c) => assert_eq!(c.id, CONV))),
        Endpoint::SearchMemos => {
            let body = json!({"query": "deploy", "knowledgeType": ["decision"], "limit": 5});
            Case::new(R::SearchMemos { body: from(&body) }, "/memos/search")
                .body(body)
                .responds(200, wire_fixture("memo_search.json"))
                .check(|d| expect!(d, D::Memos(m) => assert!(!m.data.is_empty())))
        }
        Endpoint::GetMemo => Case::new(
            R::GetMemo {
                memo_id: "memo_1".into(),
            },
            "/memos/memo_1",
        )
        .responds(200, wire_fixture("memo_get.json"))
        .check(|d| expect!(d, D::Memo(m) => assert!(!m.source_messages.is_empty()))),
        Endpoint::UploadAttachment => Case::new(
            R::UploadAttachment {
                upload: AttachmentUpload {
                    filename: "chart.png".into(),
                    content_type: "image/png".into(),
                },
            },
            "/attachments",
        )
        .responds(201, wire_fixture("attachment_upload.json"))
        .check(|d| expect!(d, D::Attachment(a) => assert_eq!(a.size_bytes, 20480))),
        Endpoint::SearchAttachments => {
            let body = json!({"query": "chart", "contentTypes": ["chart"]});
            Case::new(
                R::SearchAttachments { body: from(&body) },
                "/attachments/search",
            )
            .body(body)
            .responds(200, wire_fixture("attachment_search.json"))
            .check(|d| expect!(d, D::AttachmentSearch(r) => assert!(!r.data.is_empty())))
        }
        Endpoint::GetAttachment => Case::new(
            R::GetAttachment {
                attachment_id: "att_1".into(),
            },
            "/attachments/att_1",
        )
        .responds(200, data(json!({"id": "att_1", "extracted": "text"})))
        .check(|d| {
            expect!(d, D::Raw(j) => assert_eq!(serde_json::from_str::<Value>(j).unwrap()["id"], "att_1"))
        }),
        Endpoint::AssignLabel => {
            let body = json!({"name": "urgent", "resourceType": "stream", "resourceId": STREAM});
            Case::new(R::AssignLabel { body: from(&body) }, "/labels/assignments")
                .body(body)
                .responds(201, wire_fixture("label_assigned.json"))
                .check(|d| expect!(d, D::LabelAssigned(l) => assert_eq!(l.label.id, "label_1")))
        }
        Endpoint::RemoveLabel => Case::new(
            R::RemoveLabel {
                query: from(&json!({"name": "urgent", "resourceType": "message", "resourceId": MSG})),
            },
            "/labels/assignments",
        )
        .query(&[("name", "urgent"), ("resourceType", "message"), ("resourceId", MSG)])
        .responds(204, "")
        .check(|d| assert_eq!(d, &D::NoContent)),
        Endpoint::UpdateLabel => {
            let body = json!({"name": "urgent", "emoji": null});
            Case::new(
                R::UpdateLabel {
                    label_id: "label_1".into(),
                    body: from(&body),
                },
                "/labels/label_1",
            )
            .body(body)
            .responds(200, wire_fixture("label_updated.json"))
            .check(|d| expect!(d, D::Label(l) => assert_eq!(l.id, "label_1")))
        }
        Endpoint::ArchiveLabel => Case::new(
            R::ArchiveLabel {
                label_id: "label_1".into(),
            },
            "/labels/label_1",
        )
        .responds(204, "")
        .check(|d| assert_eq!(d, &D::NoContent)),
        Endpoint::PostPresence => {
            let body = json!({"runtimeKind": "custom", "instanceId": "machine-a",
                "status": "available", "acceptingInvocations": true, "capabilities": {}});
            Case::new(R::PostPresence { body: from(&body) }, "/bot-runtime/presence")
                .body(body)
                .responds(200, wire_fixture("presence.json"))
                .check(|d| expect!(d, D::Presence(p) => assert_eq!(p.id, "presence_1")))
        }
        Endpoint::CreateSession => {
            let body = json!({"runtimeKind": "alpha-local", "instanceId": "machine-a",
                "runtimeSessionId": "sess-1", "displayName": "Refactor", "e2e": {"ownerKeyId": "key_owner"}});
            Case::new(R::CreateSession { body: from(&body) }, "/bot-runtime/sessions")
                .body(body)
                .responds(200, wire_fixture("session_link.json"))
                .check(|d| expect!(d, D::SessionLink(l) => assert_eq!(l.link_id, "link_1")))
        }
        Endpoint::GetOwnerE2eKey => Case::new(R::GetOwnerE2eKey, "/bot-runtime/owner-e2e-key")
            .responds(200, wire_fixture("owner_key.json"))
            .check(|d| expect!(d, D::OwnerKey(k) => assert_eq!(k.key_id, "key_owner"))),
        Endpoint::RenameSession => {
            let body = json!({"instanceId": "machine-a", "runtimeSessionId": "sess-1", "displayName": "New"});
            Case::new(
                R::RenameSession { body: from(&body) },
                "/bot-runtime/sessions/rename",
            )
            .body(body)
            .responds(200, wire_fixture("session_link.json"))
            .check(|d| expect!(d, D::SessionLink(_) => ()))
        }
        Endpoint::RebindSession => {
            let body = json!({"linkId": "link_1", "instanceId": "machine-a",
                "runtimeSessionId": "sess-1", "newInstanceId": "machine-b"});
            Case::new(
                R::RebindSession { body: from(&body) },
                "/bot-runtime/sessions/rebind",
            )
            .body(body)
            .responds(200, wire_fixture("session_link.json"))
            .check(|d| expect!(d, D::SessionLink(_) => ()))
        }
        Endpoint::EndSession => {
            let body = json!({"instanceId": "machine-a", "runtimeSessionId": "sess-1",
                "exceptInvocationId": INV});
            Case::new(R::EndSession { body: from(&body) }, "/bot-runtime/sessions/end")
                .body(body)
                .responds(200, wire_fixture("session_end.json"))
                .check(|d| expect!(d, D::SessionEnded(l) => assert_eq!(l.link_id, "link_1")))
        }
        Endpoint::CreateBrief => {
            let body = json!({"instanceId": "machine-a", "runtimeSessionId": "sess-1", "content": "Summarise"});
            Case::new(R::CreateBrief { body: from(&body) }, "/bot-runtime/sessions/brief")
                .body(body)
                .responds(201, data(json!({"invocationId": INV, "streamId": STREAM})))
                .check(|d| expect!(d, D::BriefCreated(b) => assert_eq!(b.invocation_id, INV)))
        }
        Endpoint::ClaimInvocation => {
            let body = json!({"runtimeKind": "custom", "instanceId": "machine-a",
                "supportedCapabilities": ["mentionable"], "claimTtlSeconds": 60});
            Case::new(R::ClaimInvocation { body: from(&body) }, "/bot-invocations/claim")
                .body(body)
                .responds(200, wire_fixture("claim_sealed.json"))
                .check(|d| {
                    expect!(d, D::Claim(c) => assert!(c.data.as_ref().unwrap().sealed_context.is_some()))
                })
        }
        Endpoint::RenewInvocation => {
            let body = claim_body(json!({"claimTtlSeconds": 120, "knownSourceRevision": 1}));
            Case::new(
                R::RenewInvocation {
                    invocation_id: INV.into(),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/renew"),
            )
            .body(body)
            .responds(200, wire_fixture("renew_with_revision.json"))
            .check(|d| expect!(d, D::Renewed(r) => assert_eq!(r.source_revision, Some(2))))
        }
        Endpoint::InvocationProgress => {
            let body = claim_body(json!({"step": "compiling"}));
            Case::new(
                R::InvocationProgress {
                    invocation_id: INV.into(),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/progress"),
            )
            .body(body)
            .responds(200, data(json!({"invocationId": INV, "status": "claimed"})))
            .check(|d| expect!(d, D::InvocationStatus(s) => assert_eq!(s.status, "claimed")))
        }
        Endpoint::InvocationStep => {
            let body = claim_body(json!({"stepType": "thinking", "content": "Reading", "durationMs": 40}));
            Case::new(
                R::InvocationStep {
                    invocation_id: INV.into(),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/steps"),
            )
            .body(body)
            .responds(200, api_fixture("step_recorded.json"))
            .check(|d| expect!(d, D::StepRecorded(s) => assert_eq!(s.step_id, "step_1")))
        }
        Endpoint::InvocationMessage => {
            let body = claim_body(json!({"content": "note", "clientMessageId": "cmid_2"}));
            Case::new(
                R::InvocationMessage {
                    invocation_id: INV.into(),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/messages"),
            )
            .body(body)
            .responds(
                200,
                data(json!({"invocationId": INV, "sessionId": "sess_1", "messageId": MSG})),
            )
            .check(|d| expect!(d, D::InvocationMessagePosted(m) => assert_eq!(m.message_id, MSG)))
        }
        Endpoint::SealedStepStarted => {
            let body = json!({"stepId": "01J8STEP000000000000000001", "stepType": "thinking"});
            Case::new(
                R::SealedStepStarted {
                    invocation_id: INV.into(),
                    callback_token: CallbackToken::from("cbt_s3cr3t".to_owned()),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/sealed-steps/started"),
            )
            .callback("cbt_s3cr3t")
            .body(body)
            .responds(200, api_fixture("step_recorded.json"))
            .check(|d| expect!(d, D::StepRecorded(_) => ()))
        }
        Endpoint::SealedStep => {
            let body = merged(
                json!({"stepId": "01J8STEP000000000000000001", "stepType": "thinking", "durationMs": 5}),
                sealed(),
            );
            Case::new(
                R::SealedStep {
                    invocation_id: INV.into(),
                    callback_token: CallbackToken::from("cbt_s3cr3t".to_owned()),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/sealed-steps"),
            )
            .callback("cbt_s3cr3t")
            .body(body)
            .responds(200, api_fixture("step_recorded.json"))
            .check(|d| expect!(d, D::StepRecorded(_) => ()))
        }
        Endpoint::SealedMessage => {
            let body = merged(json!({"messageId": MSG}), sealed());
            Case::new(
                R::SealedMessage {
                    invocation_id: INV.into(),
                    callback_token: CallbackToken::from("cbt_s3cr3t".to_owned()),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/sealed-messages"),
            )
            .callback("cbt_s3cr3t")
            .body(body)
            .responds(200, data(json!({"messageId": MSG})))
            .check(|d| expect!(d, D::SealedMessagePosted(m) => assert_eq!(m.message_id, MSG)))
        }
        Endpoint::SealedComplete => {
            let body = json!({"sourceRevision": 1, "reply": merged(json!({"messageId": MSG}), sealed())});
            Case::new(
                R::SealedComplete {
                    invocation_id: INV.into(),
                    callback_token: CallbackToken::from("cbt_s3cr3t".to_owned()),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/sealed-complete"),
            )
            .callback("cbt_s3cr3t")
            .body(body)
            .responds(
                200,
                data(json!({"invocationId": INV, "sessionId": "sess_1", "messageId": MSG})),
            )
            .check(|d| {
                expect!(d, D::SealedCompleted(c) => assert_eq!(c.message_id.as_deref(), Some(MSG)))
            })
        }
        Endpoint::CompleteInvocation => {
            let body = claim_body(json!({"finalMessageMarkdown": "Done", "sources": [
                {"type": "web", "title": "Docs", "url": "https://docs.example.test"}]}));
            Case::new(
                R::CompleteInvocation {
                    invocation_id: INV.into(),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/complete"),
            )
            .body(body)
            .responds(200, wire_fixture("invocation_completed_2026-08-21.json"))
            .check(|d| expect!(d, D::InvocationCompleted(c) => assert!(c.message.is_some())))
        }
        Endpoint::FailInvocation => {
            let body = claim_body(json!({"errorMessage": "boom"}));
            Case::new(
                R::FailInvocation {
                    invocation_id: INV.into(),
                    body: from(&body),
                },
                format!("/bot-invocations/{INV}/fail"),
            )
            .body(body)
            .responds(200, data(json!({"invocationId": INV, "status": "failed"})))
            .check(|d| expect!(d, D::InvocationStatus(s) => assert_eq!(s.status, "failed")))
        }
        Endpoint::ListDelegations => Case::new(
            R::ListDelegations {
                query: from(&json!({"status": "open", "since": "2026-08-01T00:00:00Z"})),
            },
            "/delegations",
        )
        .query(&[("status", "open"), ("since", "2026-08-01T00:00:00Z")])
        .responds(200, wire_fixture("delegation_list.json"))
        .check(|d| expect!(d, D::Delegations(l) => assert!(!l.data.is_empty()))),
        Endpoint::GetDelegation => Case::new(
            R::GetDelegation {
                delegation_id: "deleg_1".into(),
            },
            "/delegations/deleg_1",
        )
        .responds(200, wire_fixture("delegation_get.json"))
        .check(|d| expect!(d, D::DelegationDetail(g) => assert_eq!(g.delegation.id, "deleg_1"))),
        Endpoint::ClaimDelegation => Case::new(
            R::ClaimDelegation {
                delegation_id: "deleg_1".into(),
                body: from(&json!({"claimedByLabel": "agent-a", "idempotencyKey": "k1"})),
            },
            "/delegations/deleg_1/claim",
        )
        .body(json!({"claimedByLabel": "agent-a", "idempotencyKey": "k1"}))
        .responds(200, wire_fixture("delegation_claim.json"))
        .check(|d| expect!(d, D::DelegationClaim(c) => assert!(c.claim_token.expose().starts_with("clm_")))),
        Endpoint::DelegationStatus => Case::new(
            R::DelegationStatus {
                delegation_id: "deleg_1".into(),
                claim_token: ClaimToken::from("clm_deleg".to_owned()),
                body: from(&json!({"statusNote": "halfway"})),
            },
            "/delegations/deleg_1/status",
        )
        .callback("clm_deleg")
        .body(json!({"statusNote": "halfway"}))
        .responds(200, wire_fixture("delegation_get.json"))
        .check(|d| expect!(d, D::Delegation(g) => assert_eq!(g.id, "deleg_1"))),
        Endpoint::DelegationHeartbeat => Case::new(
            R::DelegationHeartbeat {
                delegation_id: "deleg_1".into(),
                claim_token: ClaimToken::from("clm_deleg".to_owned()),
            },
            "/delegations/deleg_1/heartbeat",
        )
        .callback("clm_deleg")
        .responds(200, wire_fixture("delegation_heartbeat.json"))
        .check(|d| expect!(d, D::DelegationHeartbeat(h) => assert!(!h.claim_expires_at.is_empty()))),
        Endpoint::ReleaseDelegation => Case::new(
            R::ReleaseDelegation {
                delegation_id: "deleg_1".into(),
                claim_token: ClaimToken::from("clm_deleg".to_owned()),
            },
            "/delegations/deleg_1/release",
        )
        .callback("clm_deleg")
        .responds(200, wire_fixture("delegation_get.json"))
        .check(|d| expect!(d, D::Delegation(_) => ())),
        Endpoint::CompleteDelegation => {
            let body = json!({"resultMarkdown": "done", "metadata": {"ticket": "T-1"}});
            Case::new(
                R::CompleteDelegation {
                    delegation_id: "deleg_1".into(),
                    claim_token: ClaimToken::from("clm_deleg".to_owned()),
                    body: from(&body),
                },
                "/delegations/deleg_1/complete",
            )
            .callback("clm_deleg")
            .body(body)
            .version(ApiVersion::V2026_07_22)
            .responds(200, wire_fixture("delegation_complete_2026-07-22.json"))
            .check(|d| expect!(d, D::DelegationCompletion(c) => assert_eq!(c.delegation.id, "deleg_1")))
        }
        Endpoint::FailDelegation => Case::new(
            R::FailDelegation {
                delegation_id: "deleg_1".into(),
                claim_token: ClaimToken::from("clm_deleg".to_owned()),
                body: from(&json!({"errorMessage": "cannot"})),
            },
            "/delegations/deleg_1/fail",
        )
        .callback("clm_deleg")
        .body(json!({"errorMessage": "cannot"}))
        .responds(200, data(json!({"id": "deleg_1", "status": "failed"})))
        .check(|d| expect!(d, D::Raw(j) => assert!(j.contains("\"failed\"")))),
        Endpoint::CreateDecision => {
            let body = merged(
                json!({"decisionId": "dreq_01J80000000000000000000060",
                    "options": [{"id": "approve", "tone": "primary"}, {"id": "reject", "tone": "neutral"}],
                    "allowNote": true, "runtimeSessionId": "sess-1", "invocationId": INV}),
                json!({"sealed": sealed()}),
            );
            Case::new(
                R::CreateDecision {
                    stream_id: STREAM.into(),
                    body: from(&body),
                },
                format!("{s}/decisions"),
            )
            .body(body)
            .responds(201, data(json!({"id": "event_1"})))
            .check(|d| expect!(d, D::Raw(j) => assert_eq!(j, r#"{"id":"event_1"}"#)))
        }
        Endpoint::GetDecision => Case::new(
            R::GetDecision {
                decision_id: "dreq_01J80000000000000000000060".into(),
            },
            "/decisions/dreq_01J80000000000000000000060",
        )
        .responds(200, data(json!({"optionId": "approve"})))
        .check(|d| expect!(d, D::Raw(j) => assert!(j.contains("approve")))),
        Endpoint::PostWebhook => Case::new(
            R::PostWebhook {
                hook_id: "hook_01J80000000000000000000080".into(),
                secret: "s3cr3t/+x".into(),
                body: from(&json!({"content": "deploy done"})),
            },
            "/hooks/hook_01J80000000000000000000080/s3cr3t%2F%2Bx",
        )
        .body(json!({"content": "deploy done"}))
        .responds(201, r#"{"ok":true}"#)
        .check(|d| expect!(d, D::WebhookAccepted(a) => assert!(a.ok))),
        Endpoint::PostCompatWebhook => Case::new(
            R::PostCompatWebhook {
                hook_id: "hook_01J80000000000000000000080".into(),
                secret: "s3cr3t".into(),
                body: from(&json!({"text": "*hi* <!here>"})),
            },
            "/hooks/hook_01J80000000000000000000080/s3cr3t/compat",
        )
        .body(json!({"text": "*hi* <!here>"}))
        .responds(200, "ok")
        .check(|d| assert_eq!(d, &D::CompatWebhookAccepted)),
    }
}

/// Builds the case's request, compares it with the expected one, then
/// parses the case's response; returns the request, the response and the
/// parse.
fn run(e: Endpoint) -> (HttpRequest, HttpResponse, ApiResponse) {
    let case = case(e);
    assert_eq!(case.request.endpoint(), e);
    let request = build_request(&ctx(), &case.request).unwrap_or_else(|err| panic!("{e:?}: {err}"));

    assert_eq!(request.endpoint, e);
    assert_eq!(request.method, e.method(), "{e:?}");
    assert_eq!(
        request.path,
        format!("/api/v1/workspaces/{WS}{}", case.path),
        "{e:?}"
    );
    let query: Vec<(String, String)> = case
        .query
        .iter()
        .map(|(n, v)| ((*n).to_owned(), v.clone()))
        .collect();
    assert_eq!(request.query, query, "{e:?}");
    assert!(
        request
            .url
            .starts_with(&format!("https://chat.example.test{}", request.path)),
        "{e:?}"
    );

    let mut headers = Vec::new();
    if e != Endpoint::PostWebhook && e != Endpoint::PostCompatWebhook {
        headers.push(("Authorization".to_owned(), "Bearer svc_bk_test".to_owned()));
    }
    if let Some(token) = case.callback {
        headers.push(("X-Service-Callback-Token".to_owned(), token.to_owned()));
    }
    if case.body.is_some() {
        headers.push(("Content-Type".to_owned(), "application/json".to_owned()));
    }
    assert_eq!(request.headers, headers, "{e:?}");

    match (&case.body, &request.body) {
        (Some(expected), Some(RequestBody::Json(json))) => {
            let got: Value = serde_json::from_str(json).unwrap();
            assert_eq!(&got, expected, "{e:?}");
        }
        (None, None) => {}
        (
            None,
            Some(RequestBody::Multipart {
                field,
                filename,
                content_type,
            }),
        ) => {
            assert_eq!(e, Endpoint::UploadAttachment);
            assert_eq!(
                (field.as_str(), filename.as_str(), content_type.as_str()),
                ("file", "chart.png", "image/png")
            );
        }
        (expected, got) => panic!("{e:?}: expected body {expected:?}, built {got:?}"),
    }

    let response = HttpResponse {
        status: case.status,
        headers: vec![
            (
                "service-version".to_owned(),
                case.version.as_str().to_owned(),
            ),
            ("RateLimit-Remaining".to_owned(), "59".to_owned()),
        ],
        body: case.response.clone(),
    };
    let parsed = parse_response(&request, &response).unwrap_or_else(|err| panic!("{e:?}: {err}"));
    assert_eq!(parsed.endpoint, e);
    assert_eq!(parsed.status, case.status);
    assert_eq!(parsed.version, Some(ServiceVersion::Known(case.version)));
    assert_eq!(parsed.shape, case.version);
    assert_eq!(parsed.rate_limit.remaining, Some(59));
    (case.check)(&parsed.data);
    (request, response, parsed)
}

/// The typed parse of endpoint `E` (its declaration's marker type) gives
/// the data the untyped parse gives in `E`'s variant, with the same
/// figures; a request of `E` read as another endpoint's is refused.
fn typed_agrees<E: EndpointSpec>(
    (request, response, parsed): (HttpRequest, HttpResponse, ApiResponse),
) where
    E::Response: std::fmt::Debug,
{
    let e = E::ENDPOINT;
    let typed = endpoints::parse_response::<E>(&request, &response)
        .unwrap_or_else(|err| panic!("{e:?}: typed parse failed: {err}"));
    assert_eq!(typed.status, parsed.status, "{e:?}");
    assert_eq!(typed.version, parsed.version, "{e:?}");
    assert_eq!(typed.shape, parsed.shape, "{e:?}");
    assert_eq!(typed.rate_limit, parsed.rate_limit, "{e:?}");
    assert_eq!(typed.extra, parsed.extra, "{e:?}");
    let inner = format!("{:?}", typed.data);
    let outer = format!("{:?}", parsed.data);
    match &parsed.data {
        ResponseData::NoContent => assert!(inner == "()" || inner == "None", "{e:?}: {inner}"),
        ResponseData::CompatWebhookAccepted => assert_eq!(inner, "()", "{e:?}"),
        ResponseData::Raw(text) => assert_eq!(inner, format!("Some({text:?})"), "{e:?}"),
        _ => assert!(
            outer.ends_with(&format!("({inner})")),
            "{e:?}: typed {inner} is not the data of {outer}"
        ),
    }
    let refused = if e == Endpoint::GetMe {
        endpoints::parse_response::<typed::ListMyBots>(&request, &response).map(|_| ())
    } else {
        endpoints::parse_response::<typed::GetMe>(&request, &response).map(|_| ())
    };
    let err = refused.expect_err("another endpoint's type is refused");
    assert_eq!(
        err.malformed().map(|m| m.error.code()),
        Some(ErrorCode::InvalidField),
        "{e:?}"
    );
}

macro_rules! tested {
    ($($test:ident => $endpoint:ident,)+) => {
        $(
            #[test]
            fn $test() {
                typed_agrees::<typed::$endpoint>(run(Endpoint::$endpoint));
            }
        )+

        /// The endpoints that have a test of their own.
        const TESTED: &[Endpoint] = &[$(Endpoint::$endpoint),+];
    };
}

tested! {
    get_me => GetMe,
    list_my_bots => ListMyBots,
    get_own_e2e_key => GetOwnE2eKey,
    list_streams => ListStreams,
    get_stream => GetStream,
    update_stream => UpdateStream,
    archive_stream => ArchiveStream,
    unarchive_stream => UnarchiveStream,
    list_stream_members => ListStreamMembers,
    get_key_wraps => GetKeyWraps,
    post_key_wraps => PostKeyWraps,
    search_messages => SearchMessages,
    list_messages => ListMessages,
    send_message => SendMessage,
    find_messages_by_metadata => FindMessagesByMetadata,
    update_message => UpdateMessage,
    delete_message => DeleteMessage,
    list_conversations => ListConversations,
    get_conversation => GetConversation,
    search_memos => SearchMemos,
    get_memo => GetMemo,
    upload_attachment => UploadAttachment,
    search_attachments => SearchAttachments,
    get_attachment => GetAttachment,
    assign_label => AssignLabel,
    remove_label => RemoveLabel,
    update_label => UpdateLabel,
    archive_label => ArchiveLabel,
    post_presence => PostPresence,
    create_session => CreateSession,
    get_owner_e2e_key => GetOwnerE2eKey,
    rename_session => RenameSession,
    rebind_session => RebindSession,
    end_session => EndSession,
    create_brief => CreateBrief,
    claim_invocation => ClaimInvocation,
    renew_invocation => RenewInvocation,
    invocation_progress => InvocationProgress,
    invocation_step => InvocationStep,
    invocation_message => InvocationMessage,
    sealed_step_started => SealedStepStarted,
    sealed_step => SealedStep,
    sealed_message => SealedMessage,
    sealed_complete => SealedComplete,
    complete_invocation => CompleteInvocation,
    fail_invocation => FailInvocation,
    list_delegations => ListDelegations,
    get_delegation => GetDelegation,
    claim_delegation => ClaimDelegation,
    delegation_status => DelegationStatus,
    delegation_heartbeat => DelegationHeartbeat,
    release_delegation => ReleaseDelegation,
    complete_delegation => CompleteDelegation,
    fail_delegation => FailDelegation,
    create_decision => CreateDecision,
    get_decision => GetDecision,
    post_webhook => PostWebhook,
    post_compat_webhook => PostCompatWebhook,
}

#[test]
fn every_catalogue_endpoint_has_its_own_test() {
    assert_eq!(ENDPOINTS.len(), ENDPOINT_COUNT);
    assert_eq!(ENDPOINT_COUNT, 58, "section 4 lists 58 endpoints");
    for e in ENDPOINTS {
        assert!(TESTED.contains(e), "{e:?} has no test");
        assert_eq!(Endpoint::from_id(e.id()), Some(*e));
    }
    assert_eq!(
        TESTED.len(),
        ENDPOINTS.len(),
        "a test names an endpoint twice"
    );
}

/// The README states the endpoint count; it must be the catalogue's.
#[test]
fn readme_states_the_catalogue_endpoint_count() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let marker = "a catalogue of the API's ";
    let at = readme
        .find(marker)
        .expect("README names the endpoint count")
        + marker.len();
    let count: usize = readme[at..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number follows");
    assert_eq!(count, ENDPOINT_COUNT, "README.md says {count} endpoints");
}

/// `Endpoint::info` is the catalogue row the bindings return (JS and
/// UniFFI `endpoints()` / `endpoint(id)`); `Endpoint::lookup` is their
/// `endpoint(id)` error.
#[test]
fn endpoint_info_is_the_catalogue_row() {
    for &e in ENDPOINTS {
        let row = e.info();
        assert_eq!(row.id, e);
        assert_eq!(row.family, e.family());
        assert_eq!(row.method, e.method());
        assert_eq!(row.path_template, e.path_template());
        assert_eq!(row.path_params, e.path_params());
        assert_eq!(row.scope, e.scope());
        assert_eq!(row.auth, e.auth());
        assert_eq!(row.claim_bound, e.is_claim_bound());
        assert_eq!(row.idempotent, e.is_idempotent());
        assert_eq!(row.conflict_may_mean_landed, e.conflict_may_mean_landed());
        assert_eq!(Endpoint::lookup(e.id()).unwrap(), e);
    }
    let send = Endpoint::lookup("sendMessage").unwrap().info();
    assert_eq!(send.method, HttpMethod::Post);
    assert_eq!(send.path_params, ["streamId"]);
    assert_eq!(send.scope, RequiredScope::Scope(Scope::MessagesWrite));
    let sealed = Endpoint::SealedComplete.info();
    assert_eq!(sealed.auth, AuthKind::BearerAndCallbackHeader);
    assert!(sealed.claim_bound && sealed.conflict_may_mean_landed && !sealed.idempotent);
    let hook = Endpoint::PostWebhook.info();
    assert_eq!(hook.path_params, ["hookId", "secret"]);
    assert_eq!(hook.family, Family::Webhooks);

    let err = Endpoint::lookup("noSuchEndpoint").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidField);
    assert!(err.to_string().contains("noSuchEndpoint"), "{err}");
    assert_eq!(
        Endpoint::lookup("").unwrap_err().code(),
        ErrorCode::InvalidField
    );
}

/// The JS package gets the row as this document (feature `wasm`).
#[cfg(feature = "wasm")]
#[test]
fn endpoint_info_serializes_in_camel_case() {
    assert_eq!(
        serde_json::to_value(Endpoint::SendMessage.info()).unwrap(),
        json!({
            "id": "sendMessage",
            "family": "messages",
            "method": "POST",
            "pathTemplate": "/streams/{streamId}/messages",
            "pathParams": ["streamId"],
            "scope": {"kind": "scope", "scope": "messages:write"},
            "auth": "bearer",
            "claimBound": false,
            "idempotent": false,
            "conflictMayMeanLanded": false,
        })
    );
}

/// `is_retry_safe` is the row's idempotency, except for the three entries
/// that name a dedupe field (`retry_safe_if`): those are safe exactly when
/// the request carries it.
#[test]
fn retry_safety_follows_the_dedupe_field_an_entry_names() {
    let dedupes = [
        Endpoint::SendMessage,
        Endpoint::InvocationMessage,
        Endpoint::ClaimDelegation,
    ];
    for e in ENDPOINTS {
        let request = case(*e).request;
        if !dedupes.contains(e) {
            assert_eq!(request.is_retry_safe(), e.is_idempotent(), "{e:?}");
        }
    }
    for e in dedupes {
        assert!(!e.is_idempotent(), "{e:?}");
        for carried in [true, false] {
            let value = carried.then(|| "dedupe_1".to_owned());
            let mut request = case(e).request;
            match &mut request {
                EndpointRequest::SendMessage { body, .. } => body.client_message_id = value,
                EndpointRequest::InvocationMessage { body, .. } => body.client_message_id = value,
                EndpointRequest::ClaimDelegation { body, .. } => body.idempotency_key = value,
                other => panic!("not a dedupe entry: {other:?}"),
            }
            assert_eq!(request.is_retry_safe(), carried, "{e:?} carried={carried}");
        }
    }
}
