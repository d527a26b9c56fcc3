//! Every fixture of `tests/fixtures/wire/` (written from the spec) is parsed,
//! checked field by field, re-serialised and compared with the original JSON.

use std::path::PathBuf;
#[allow(unused_imports)]
use streamseal::wire::{ExtraJson as _, JsonRecord as _};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use streamseal::envelope::{Envelope, seal};
use streamseal::identity::{IdentityKey, KeyId, RecipientKind};
use streamseal::sender::Signer;
use streamseal::slot::Slot;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::wire::attachment::{AttachmentContentType, ProcessingStatus};
use streamseal::wire::bot::BotTrait;
use streamseal::wire::common::{AuthorType, StreamType};
use streamseal::wire::conversation::ConversationStatus;
use streamseal::wire::delegation::{
    DelegationClaim, DelegationCompletion, DelegationDetail, DelegationHeartbeat, DelegationStatus,
    ResultPlacement,
};
use streamseal::wire::error_body::{
    ApiError, ApiErrorBody, ApiErrorCode, ClientAction, ErrorBody, RateLimitBody,
};
use streamseal::wire::events::{Event, HelloAck};
use streamseal::wire::ids::{AnchorId, MessageId};
use streamseal::wire::invocation::{ClaimResponse, InvocationCompleted, RenewResult, RenewShape};
use streamseal::wire::keys::{KeyWraps, OwnKey, OwnerKey};
use streamseal::wire::label::{LabelAssigned, LabelResourceType};
use streamseal::wire::list::{
    AttachmentSearchResults, BotList, ConversationPage, DelegationList, MemberPage,
    MemoSearchResults, StreamPage,
};
use streamseal::wire::me::{Me, MeIdentity};
use streamseal::wire::memo::{KnowledgeType, MemoType, MemoWithSources};
use streamseal::wire::message::{
    MessageList, MessageResponse, MessageSearchResults, MessagesFound,
};
use streamseal::wire::presence::{
    Presence, PresenceStatus, RuntimeKind, SessionEnded, SessionLink,
};
use streamseal::wire::slots::{SharedRef, SlotKey, SlotValue};
use streamseal::wire::stream::{MemoryMode, Stream};
use streamseal::wire::version::ApiVersion;
use streamseal::wire::versioned::Versioned;
use streamseal::wire::{attachment::Attachment, label::Label};

use crate::support::wire_json as fixture;

const M1: &str = "msg_01J80000000000000000000020";
const SRC: &str = "msg_01J80000000000000000000023";

/// A whole-body fixture: parse, re-serialise, compare.
fn body<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let original = fixture(name);
    let parsed: T =
        serde_json::from_value(original.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        serde_json::to_value(&parsed).unwrap(),
        original,
        "{name} re-serialised"
    );
    parsed
}

/// A `{data: ...}` fixture: parse through `parse_data`, re-serialise, compare.
fn data<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let original = fixture(name);
    let parsed: T = streamseal::wire::parse_data(&original.to_string())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let back: Value = serde_json::from_str(&streamseal::wire::to_data_json(&parsed)).unwrap();
    assert_eq!(back, original, "{name} re-serialised");
    parsed
}

/// A fixture in the shape of `version`: parse, write back in that version, compare.
fn versioned<T: Versioned>(name: &str, version: ApiVersion, value: Value) -> T {
    let parsed =
        T::from_version_value(version, value.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(
        parsed.to_version_value(version),
        value,
        "{name} re-serialised for {version}"
    );
    parsed
}

#[test]
fn message_list_in_each_version() {
    let v0712: MessageList = versioned(
        "ml0712",
        ApiVersion::V2026_07_12,
        fixture("message_list_2026-07-12.json"),
    );
    assert!(v0712.slots.is_empty());
    assert!(v0712.has_more);
    let m = &v0712.data[0];
    assert_eq!(m.id.as_str(), M1);
    assert_eq!(m.stream_id, "stream_01J80000000000000000000010");
    assert_eq!(m.sequence.as_u64(), Some(42));
    assert_eq!(m.author_id, "usr_01J80000000000000000000002");
    assert_eq!(m.author_type, AuthorType::User);
    assert_eq!(m.author_display_name.as_deref(), Some("Ada"));
    assert_eq!(m.content, "Ship it, see attachment:att_1");
    assert_eq!(m.reply_count, 2);
    assert_eq!(
        m.thread_stream_id.as_deref(),
        Some("stream_01J80000000000000000000011")
    );
    assert_eq!(m.client_message_id.as_deref(), Some("client-42"));
    assert_eq!(m.sent_via.as_deref(), Some("api_key:key_1"));
    assert_eq!(m.metadata.get("ticket").map(String::as_str), Some("OPS-1"));
    let atts = m.attachments.as_ref().unwrap();
    assert_eq!(atts[0].processing_status, Some(ProcessingStatus::Completed));
    assert_eq!(
        (atts[0].width, atts[0].height, atts[0].size_bytes),
        (Some(640), Some(480), 20480)
    );
    assert_eq!(atts[1].processing_status, None);
    assert_eq!(m.revision, 2);
    assert_eq!(m.edited_at.as_deref(), Some("2026-08-01T10:05:00Z"));
    assert_eq!(m.created_at, "2026-08-01T10:00:00Z");
    assert!(m.sealed.is_none());
    let s = &v0712.data[1];
    assert_eq!(s.author_type, AuthorType::Bot);
    assert!(s.metadata.is_empty());
    let sealed = s.sealed.as_ref().unwrap();
    assert_eq!(sealed.envelope.key_generation, 2);
    assert_eq!(sealed.envelope.v, 1);
    // The spec's envelope, four fields, written back as exactly those (the
    // key commitment travels inside the ciphertext).
    assert_eq!(
        envelope_keys(&serde_json::to_value(&sealed.envelope).unwrap()),
        ENVELOPE_KEYS
    );

    let v0724: MessageList = versioned(
        "ml0724",
        ApiVersion::V2026_07_24,
        fixture("message_list_2026-07-24.json"),
    );
    assert_eq!(v0724.data, v0712.data);
    let plain = SlotKey::parse(&format!("shared:{SRC}"));
    match v0724.slots.get(&plain) {
        Some(SlotValue::Ok(ok)) => {
            assert_eq!(ok.content, "The source, highest revision");
            assert_eq!(
                (ok.version, ok.current_revision, ok.range.clone()),
                (None, None, None)
            );
        }
        other => panic!("{other:?}"),
    }
    let forbidden = SlotKey::parse("shared:msg_01J80000000000000000000022");
    assert_eq!(
        v0724.slots.get(&forbidden).and_then(SlotValue::status),
        Some("forbidden")
    );

    let v0821: MessageList = versioned(
        "ml0821",
        ApiVersion::V2026_08_21,
        fixture("message_list_2026-08-21.json"),
    );
    assert!(!v0821.has_more);
    assert_eq!(v0821.slots.0.len(), 4);
    let span = SlotKey::Shared(SharedRef {
        message_id: MessageId::parse(SRC).unwrap(),
        version: Some(2),
        range: Some((4, 18)),
    });
    match v0821.slots.get(&span) {
        Some(SlotValue::Ok(ok)) => {
            assert_eq!(ok.content, "source at");
            assert_eq!((ok.version, ok.current_revision), (Some(2), Some(3)));
            assert_eq!(ok.range, Some(json!({"from": 4, "to": 18})));
        }
        other => panic!("{other:?}"),
    }
    // Written for 2026-07-24, the pinned model keeps one unpinned key per
    // source and drops the span: exactly what the 2026-07-24 fixture holds.
    assert_eq!(
        v0821.slots.restricted_to(ApiVersion::V2026_07_24),
        v0724.slots
    );
    let as_0724 = v0821.to_version_value(ApiVersion::V2026_07_24);
    assert_eq!(
        as_0724["slots"],
        fixture("message_list_2026-07-24.json")["slots"]
    );
    assert!(
        v0821
            .to_version_value(ApiVersion::V2026_07_22)
            .get("slots")
            .is_none()
    );
}

#[test]
fn message_search_send_and_find() {
    let old: MessageSearchResults = versioned(
        "ms0712",
        ApiVersion::V2026_07_12,
        fixture("message_search_2026-07-12.json"),
    );
    let hit = &old.data[0];
    assert_eq!(hit.id.as_str(), M1);
    assert_eq!(hit.rank, 0.875);
    assert_eq!(hit.author_display_name.as_deref(), Some("Ada"));
    assert_eq!(hit.edited_at.as_deref(), Some("2026-08-01T10:05:00Z"));
    assert_eq!(old.data[1].author_type, AuthorType::Persona);
    assert_eq!(old.data[1].author_display_name, None);
    let new: MessageSearchResults = versioned(
        "ms0821",
        ApiVersion::V2026_08_21,
        fixture("message_search_2026-08-21.json"),
    );
    assert_eq!(new.data, old.data);
    assert_eq!(new.slots.0.len(), 4);

    let sent: MessageResponse = versioned(
        "send0722",
        ApiVersion::V2026_07_22,
        fixture("message_send_2026-07-22.json"),
    );
    assert_eq!(
        sent.conversation_id.as_deref(),
        Some("conversation_01J80000000000000000000030")
    );
    assert!(sent.slots.is_empty());
    let sent2: MessageResponse = versioned(
        "send0821",
        ApiVersion::V2026_08_21,
        fixture("message_send_2026-08-21.json"),
    );
    assert_eq!(sent2, sent);

    let found: MessagesFound = versioned(
        "found",
        ApiVersion::V2026_07_24,
        fixture("messages_found_2026-07-24.json"),
    );
    assert_eq!(found.data.len(), 1);
    assert_eq!(found.slots.0.len(), 2);
}

#[test]
fn stream_parent_message_id_and_anchor_id() {
    let old: Stream = versioned(
        "s0712",
        ApiVersion::V2026_07_12,
        fixture("stream_2026-07-12.json")["data"].clone(),
    );
    assert_eq!(old.id.as_str(), "stream_01J80000000000000000000011");
    assert_eq!(old.stream_type, StreamType::Thread);
    assert_eq!(old.display_name, "Release thread");
    assert_eq!(old.slug.as_deref(), Some("release-thread"));
    assert_eq!(old.description.as_deref(), Some("Where we ship"));
    assert_eq!(old.visibility, "private");
    assert_eq!(old.memory_mode, MemoryMode::Auto);
    assert_eq!(
        old.parent_stream_id.as_deref(),
        Some("stream_01J80000000000000000000010")
    );
    assert_eq!(
        old.root_stream_id.as_deref(),
        Some("stream_01J80000000000000000000010")
    );
    assert_eq!(
        old.anchor_id,
        Some(AnchorId::Message(MessageId::parse(M1).unwrap()))
    );
    assert_eq!(old.e2e_enabled, Some(false));
    assert_eq!(old.archived_at, None);

    let new: Stream = versioned(
        "s0722",
        ApiVersion::V2026_07_22,
        fixture("stream_2026-07-22.json")["data"].clone(),
    );
    assert!(
        matches!(new.anchor_id, Some(AnchorId::Event(ref e)) if e.as_str() == "event_01J80000000000000000000050")
    );
    // The same model differs only by its anchor.
    assert_eq!(
        Stream {
            anchor_id: old.anchor_id.clone(),
            ..new.clone()
        },
        old
    );
    // Serde alone is the latest shape.
    assert_eq!(
        serde_json::to_value(&new).unwrap(),
        fixture("stream_2026-07-22.json")["data"]
    );

    let page_old: StreamPage = versioned(
        "sp0712",
        ApiVersion::V2026_07_12,
        fixture("stream_page_2026-07-12.json"),
    );
    assert_eq!(page_old.cursor.as_deref(), Some("cur_abc"));
    assert!(page_old.has_more);
    assert_eq!(page_old.data[0].stream_type, StreamType::Channel);
    assert_eq!(page_old.data[0].memory_mode, MemoryMode::Off);
    assert_eq!(
        page_old.data[0].archived_at.as_deref(),
        Some("2026-08-02T00:00:00Z")
    );
    assert_eq!(page_old.data[1], old);
    let page_new: StreamPage = versioned(
        "sp0821",
        ApiVersion::V2026_08_21,
        fixture("stream_page_2026-08-21.json"),
    );
    assert_eq!(page_new.cursor, None);
    assert_eq!(page_new.data[1], new);
}

#[test]
fn members_conversations_memos() {
    let members: MemberPage = body("member_page.json");
    assert_eq!(members.data[0].user_id, "usr_01J80000000000000000000002");
    assert_eq!(
        members.data[0].avatar_url.as_deref(),
        Some("https://example.test/a.png")
    );
    assert_eq!(members.data[1].avatar_url, None);
    assert_eq!(members.data[1].slug, "grace");
    assert_eq!(members.data[1].joined_at, "2026-07-02T00:00:00Z");
    assert_eq!(members.cursor, None);

    let convs: ConversationPage = body("conversation_page.json");
    let c = &convs.data[0];
    assert_eq!(c.status, ConversationStatus::Active);
    assert_eq!(c.topic_summary.as_deref(), Some("Release"));
    assert_eq!(c.summary, None);
    assert_eq!(c.message_count, 5);
    assert_eq!(c.participant_ids.len(), 2);
    assert_eq!(c.stream_id, "stream_01J80000000000000000000011");
    assert_eq!(c.root_stream_id, "stream_01J80000000000000000000010");
    assert_eq!(c.last_activity_at, "2026-08-01T12:00:00Z");
    assert_eq!(convs.cursor.as_deref(), Some("cur_1"));

    let memos: MemoSearchResults = body("memo_search.json");
    let r = &memos.data[0];
    assert_eq!(r.memo.memo_type, MemoType::Conversation);
    assert_eq!(r.memo.knowledge_type, KnowledgeType::Decision);
    assert_eq!(r.memo.abstract_text, "We decided to ship.");
    assert_eq!(r.memo.key_points, ["Friday", "Rollback plan"]);
    assert_eq!(r.memo.source_message_id, None);
    assert_eq!(
        r.memo.source_conversation_id.as_deref(),
        Some("conversation_01J80000000000000000000030")
    );
    assert_eq!(r.memo.status, "active");
    assert_eq!(r.memo.version, 1);
    assert_eq!(r.memo.archived_at, None);
    assert_eq!(r.distance, 0.25);
    let src = r.source_stream.as_ref().unwrap();
    assert_eq!(
        (src.stream_type.clone(), src.name.clone()),
        (StreamType::Thread, None)
    );
    assert_eq!(
        r.root_stream.as_ref().unwrap().name.as_deref(),
        Some("general")
    );
    let r2 = &memos.data[1];
    assert_eq!(r2.memo.parent_memo_id.as_deref(), Some("memo_1"));
    assert_eq!(r2.memo.revision_reason.as_deref(), Some("edited"));
    assert_eq!(r2.memo.knowledge_type, KnowledgeType::Procedure);
    assert_eq!(
        (r2.source_stream.clone(), r2.root_stream.clone()),
        (None, None)
    );

    // API §2.5: "a memo result wraps the memo with `distance`,
    // `sourceStream` and `rootStream`", naming no key. The fixtures above are
    // nested under `memo` (what the library writes); the flat reading, the
    // memo's fields beside the three, reads as the same value and is written
    // back nested.
    let flat: MemoSearchResults = serde_json::from_value(fixture("memo_search_flat.json")).unwrap();
    assert_eq!(flat, memos);
    assert_eq!(
        serde_json::to_value(&flat).unwrap(),
        fixture("memo_search.json")
    );
    assert!(fixture("memo_search.json")["data"][0]["memo"]["title"].is_string());

    // API §4.5: get-memo "returns memo result plus `sourceMessages`".
    let got: MemoWithSources = data("memo_get.json");
    assert_eq!(got.result, memos.data[0]);
    let got_flat: MemoWithSources =
        streamseal::wire::parse_data(&fixture("memo_get_flat.json").to_string()).unwrap();
    assert_eq!(got_flat, got);
    let written: Value = serde_json::from_str(&streamseal::wire::to_data_json(&got_flat)).unwrap();
    assert_eq!(written, fixture("memo_get.json"));
    let sm = &got.source_messages[0];
    assert_eq!(
        (sm.stream_name.as_str(), sm.author_name.as_str()),
        ("general", "Ada")
    );
    assert_eq!(sm.author_type, AuthorType::User);
}

#[test]
fn attachments_labels_bots_presence() {
    let up: Attachment = data("attachment_upload.json");
    assert_eq!(up.processing_status, ProcessingStatus::Pending);
    assert_eq!(up.size_bytes, 20480);
    let hits: AttachmentSearchResults = body("attachment_search.json");
    assert_eq!(
        hits.data[0].content_type,
        Some(AttachmentContentType::Chart)
    );
    assert_eq!(hits.data[0].message_id.as_deref(), Some(M1));
    assert_eq!(hits.data[1].content_type, None);
    assert_eq!(hits.data[1].summary, None);
    assert_eq!(hits.data[1].stream_id, None);
    assert_eq!(
        hits.data[2].content_type,
        Some(AttachmentContentType::OtherContent)
    );

    let assigned: LabelAssigned = data("label_assigned.json");
    assert_eq!(assigned.label.name, "Needs review");
    assert_eq!(assigned.label.emoji, None);
    assert_eq!(assigned.label.color, "#ff8800");
    assert_eq!(
        assigned.assignment.resource_type,
        LabelResourceType::Message
    );
    assert_eq!(assigned.assignment.resource_id, M1);
    let updated: Label = data("label_updated.json");
    assert_eq!(updated.emoji.as_deref(), Some(":eyes:"));
    assert_eq!(updated.description, None);

    let old: BotList = body("bots_2026-07-12.json");
    let bot = &old.data[0];
    assert_eq!(
        bot.traits,
        [BotTrait::Mentionable, BotTrait::ActiveScratchpad]
    );
    assert_eq!(bot.reads_as_owner, Some(true));
    assert_eq!(bot.avatar_emoji.as_deref(), Some(":robot:"));
    assert_eq!(
        (
            bot.description.clone(),
            bot.avatar_url.clone(),
            bot.archived_at.clone()
        ),
        (None, None, None)
    );
    assert_eq!(bot.bot_type, "personal");
    let new: BotList = body("bots_2026-08-21.json");
    assert_eq!(new.data[0].reads_as_owner, None);
    for v in ApiVersion::ALL {
        assert_eq!(bot.to_version_value(v)["readsAsOwner"], json!(true));
    }

    let p: Presence = data("presence.json");
    assert_eq!(p.runtime_kind, RuntimeKind::AlphaLocal);
    assert_eq!(p.status, PresenceStatus::Available);
    assert!(p.accepting_invocations);
    assert_eq!(p.display_name, None);
    assert_eq!(p.capabilities["tools"], json!(["search"]));
    let link: SessionLink = data("session_link.json");
    assert_eq!(link.e2e_enabled, Some(true));
    let ended: SessionEnded = data("session_end.json");
    assert_eq!(ended.status, "ended");
}

#[test]
fn invocation_claims_and_renewals() {
    let plain: ClaimResponse = body("claim_plain.json");
    let inv = plain.data.as_ref().unwrap();
    assert_eq!(inv.actor.slug, "helper");
    assert_eq!(inv.trigger, "mention");
    assert_eq!(
        inv.prompt_markdown.as_deref(),
        Some("@helper summarise this")
    );
    assert_eq!(inv.source_revision, 1);
    assert_eq!(inv.claim_token.expose(), "clm_s3cr3t_plain");
    assert!(
        !format!("{inv:?}").contains("s3cr3t"),
        "Debug leaks the claim token"
    );
    assert_eq!(inv.runtime_session_id, None);
    assert_eq!(inv.metadata["origin"], json!("mention"));
    let ctx = inv.context.as_ref().unwrap();
    assert_eq!(ctx.kind, "thread");
    assert_eq!(ctx.messages[0].content_markdown, "Ship it");
    assert!(inv.sealed_context.is_none());

    let sealed: ClaimResponse = body("claim_sealed.json");
    let inv = sealed.data.as_ref().unwrap();
    assert_eq!(inv.prompt_markdown, None);
    assert!(inv.context.is_none());
    let sc = inv.sealed_context.as_ref().unwrap();
    assert_eq!(sc.callback_token.expose(), "cbt_s3cr3t");
    assert!(!format!("{sc:?}").contains("s3cr3t"));
    assert_eq!(sc.wraps[0].key_generation, 2);
    assert_eq!(sc.wraps[0].recipient_key_id, None);
    assert_eq!(sc.history[0].sequence.as_u64(), Some(6));
    assert_eq!(sc.history[0].payload().ciphertext, "aGlzdG9yeQ==");
    assert_eq!(sc.prompt.ciphertext, "cHJvbXB0");
    assert_eq!(sc.reply.sender_id, "bot_01J80000000000000000000070");
    assert_eq!(sc.trigger.author_type, AuthorType::User);

    let empty: ClaimResponse = body("claim_empty.json");
    assert!(empty.data.is_none());

    let basic: RenewResult = data("renew_basic.json");
    assert_eq!(basic.shape(), RenewShape::Basic);
    assert_eq!(
        basic.claim_expires_at.as_deref(),
        Some("2026-08-01T10:02:00Z")
    );
    let newer: RenewResult = data("renew_with_revision.json");
    assert_eq!(newer.shape(), RenewShape::WithRevision);
    assert_eq!(newer.claim_expires_at, None);
    let update = newer.update.as_ref().unwrap();
    assert_eq!(
        (update.delivery.as_str(), update.source_revision),
        ("steer", 2)
    );
    assert_eq!(update.mentioned_actor_slugs, ["helper"]);

    let old: InvocationCompleted = versioned(
        "ic0712",
        ApiVersion::V2026_07_12,
        fixture("invocation_completed_2026-07-12.json"),
    );
    assert_eq!(old.message.as_ref().unwrap().id.as_str(), M1);
    let new: InvocationCompleted = versioned(
        "ic0821",
        ApiVersion::V2026_08_21,
        fixture("invocation_completed_2026-08-21.json"),
    );
    assert_eq!(new.message, old.message);
    assert_eq!(new.slots.0.len(), 4);
    let none: InvocationCompleted = versioned(
        "ic0724",
        ApiVersion::V2026_07_24,
        fixture("invocation_completed_none_2026-07-24.json"),
    );
    assert!(none.message.is_none());
    // API §4.10: `complete` "Returns `{invocationId, message (message or
    // null)}` plus `slots`", and §4: bodies are given under `data` unless
    // stated (§1: single objects are wrapped as `{"data": ...}`). The
    // fixtures above are that shape: `slots` beside `data`, not inside.
    let spec = fixture("invocation_completed_2026-08-21.json");
    assert_eq!(spec["data"]["invocationId"], json!(new.invocation_id));
    assert!(spec["data"].get("slots").is_none() && spec["slots"].is_object());
    // The flat form (no `data` key) is read as a tolerant fallback, and
    // written back in the spec's shape.
    let flat = InvocationCompleted::from_version_value(
        ApiVersion::V2026_08_21,
        fixture("invocation_completed_flat_2026-08-21.json"),
    )
    .unwrap();
    assert_eq!(flat, new);
    assert_eq!(flat.to_version_value(ApiVersion::V2026_08_21), spec);
    // Pins before 2026-07-24 have no slots (§2.1), in either reading.
    assert!(
        old.to_version_value(ApiVersion::V2026_07_12)
            .get("slots")
            .is_none()
    );
}

#[test]
fn delegations_in_every_shape() {
    // API §1: list endpoints return `hasMore` and an opaque `cursor` (null
    // on the last page); `GET delegations` (§4.11) is a list.
    let list: DelegationList = body("delegation_list.json");
    assert!(list.has_more);
    assert_eq!(list.cursor.as_deref(), Some("cur_deleg_2"));
    let last: DelegationList = body("delegation_list_last_page.json");
    assert_eq!((last.has_more, last.cursor.as_deref()), (false, None));
    assert_eq!(list.data[0].status, DelegationStatus::Open);
    assert_eq!(list.data[1].status, DelegationStatus::Expired);
    assert_eq!(list.data[0].claimed_by_label, None);
    assert_eq!(
        list.data[0].source_conversation_id.as_deref(),
        Some("conversation_01J80000000000000000000030")
    );

    let got: DelegationDetail = data("delegation_get.json");
    assert_eq!(got.delegation.status, DelegationStatus::Running);
    assert_eq!(got.brief, "Find why test_x flakes");
    assert_eq!(got.context_refs.len(), 2);
    assert_eq!(
        got.claim_expires_at.as_deref(),
        Some("2026-08-01T09:20:00Z")
    );
    assert_eq!(got.delegation.status_note.as_deref(), Some("bisecting"));

    let claim: DelegationClaim = data("delegation_claim.json");
    assert_eq!(claim.claim_token.expose(), "clm_deleg_s3cr3t");
    assert!(!format!("{claim:?}").contains("s3cr3t"));
    assert_eq!(claim.claim_expires_at, "2026-08-01T09:15:00Z");

    for (name, version, placement) in [
        (
            "delegation_complete_2026-07-12.json",
            ApiVersion::V2026_07_12,
            ResultPlacement::SyntheticMessageAnchor,
        ),
        (
            "delegation_complete_2026-07-22.json",
            ApiVersion::V2026_07_22,
            ResultPlacement::CardThread,
        ),
    ] {
        let done: DelegationCompletion = versioned(name, version, fixture(name)["data"].clone());
        assert_eq!(done.delegation.status, DelegationStatus::Completed);
        assert_eq!(
            done.delegation.result_message_id.as_deref(),
            Some("msg_01J80000000000000000000022")
        );
        assert_eq!(
            done.result_thread_id.as_deref(),
            Some("stream_01J80000000000000000000011")
        );
        assert_eq!(ResultPlacement::for_version(version), placement);
    }
    let hb: DelegationHeartbeat = data("delegation_heartbeat.json");
    assert_eq!(hb.claim_expires_at, "2026-08-01T09:30:00Z");
}

#[test]
fn key_records_and_me() {
    let owner: OwnerKey = data("owner_key.json");
    assert_eq!(owner.key_id, "key_owner");
    assert_eq!(owner.public_key.as_bytes()[0], 1);
    let own: OwnKey = data("own_key.json");
    assert_eq!(own.kdf_params.m, 65536);
    assert_eq!(own.kdf_params.version, 19);
    assert_eq!(own.kdf_params.algorithm, "argon2id");
    assert_eq!(own.kdf_salt, "c2FsdHNhbHRzYWx0c2FsdA==");
    let wraps: KeyWraps = data("key_wraps.json");
    assert_eq!(wraps.current_key_generation, 2);
    assert_eq!(wraps.wraps[0].recipient_kind, Some(RecipientKind::User));
    assert_eq!(wraps.wraps[1].recipient_kind, Some(RecipientKind::Bot));
    assert_eq!(
        wraps.wraps[1].recipient_key_id.as_deref(),
        Some("machine-a")
    );

    let me: Me = data("me_user.json");
    assert_eq!(
        me.identity,
        MeIdentity::User {
            workspace_id: "ws_01J80000000000000000000001".into(),
            user_id: "usr_01J80000000000000000000002".into()
        }
    );
    assert_eq!(me.api_version.pinned.as_deref(), Some("2026-07-24"));
    assert!(me.api_version.newer_version_exists());
    assert!(me.api_version.supports(ApiVersion::V2026_07_12));
    let bot: Me = data("me_bot.json");
    match &bot.identity {
        MeIdentity::Bot { fields } => {
            assert_eq!(fields["botId"], json!("bot_01J80000000000000000000070"))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(bot.api_version.pinned, None);
    assert!(!bot.api_version.newer_version_exists());
}

#[test]
fn errors() {
    let v: ErrorBody = body("error_validation.json");
    assert_eq!(v.details.as_ref().unwrap()["instanceId"], ["Required"]);
    let e = ApiError::parse(400, &fixture("error_validation.json").to_string());
    assert_eq!(e.action(), ClientAction::FixInput);
    assert!(e.details().unwrap().contains_key("claimTtlSeconds"));

    let iv: ErrorBody = body("error_invalid_api_version.json");
    assert_eq!(iv.code, Some(ApiErrorCode::InvalidApiVersion));
    let dn = ApiError::parse(409, &fixture("error_delegation_not_open.json").to_string());
    assert_eq!(dn.code(), Some(ApiErrorCode::DelegationNotOpen));
    assert_eq!(dn.action(), ClientAction::RefreshState);

    let rl: RateLimitBody = body("error_rate_limited.json");
    assert_eq!((rl.limit, rl.window_ms), (60, 60_000));
    let e = ApiError::parse(429, &fixture("error_rate_limited.json").to_string());
    assert!(matches!(e.body, ApiErrorBody::RateLimited(_)));
    assert!(e.action().is_retryable());
}

#[test]
fn events() {
    let e =
        Event::from_parts("decision:resolved", fixture("event_decision_resolved.json")).unwrap();
    let Event::DecisionResolved(d) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(d.option_id, "approve");
    assert_eq!(d.note().unwrap().ciphertext, "bm90ZQ==");
    assert_eq!(e.payload(), fixture("event_decision_resolved.json"));
    let e = Event::from_parts(
        "decision:resolved",
        fixture("event_decision_resolved_no_note.json"),
    )
    .unwrap();
    let Event::DecisionResolved(d) = &e else {
        panic!("{e:?}")
    };
    assert!(d.note().is_none());
    assert_eq!(e.payload(), fixture("event_decision_resolved_no_note.json"));

    let e = Event::from_parts("bot:e2e_revoke", fixture("event_e2e_revoke.json")).unwrap();
    let Event::E2eRevoke(r) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(r.stream_id, "stream_01J80000000000000000000012");
    assert_eq!(e.payload(), fixture("event_e2e_revoke.json"));

    let e = Event::from_parts(
        "bot:invocation:sealed-steps",
        fixture("event_sealed_steps.json"),
    )
    .unwrap();
    let Event::SealedSteps(s) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(s.steps.len(), 2);
    assert_eq!(s.steps[1].duration_ms, Some(1250));
    assert!(!format!("{s:?}").contains("s3cr3t"));
    assert_eq!(e.payload(), fixture("event_sealed_steps.json"));

    let hello: HelloAck = body("event_hello_ack.json");
    assert_eq!(
        hello.e2e_granted_stream_ids,
        ["stream_01J80000000000000000000012"]
    );
    assert_eq!(
        hello.fields["botId"],
        json!("bot_01J80000000000000000000070")
    );

    // Payloads the spec does not show stay raw.
    let raw = json!({"whatever": [1, 2]});
    let e = Event::from_parts("bot:e2e_grant", raw.clone()).unwrap();
    assert_eq!((e.name(), e.payload()), ("bot:e2e_grant", raw.clone()));
    let e = Event::from_parts("bot_invocation:available", raw.clone()).unwrap();
    assert!(matches!(e, Event::InvocationAvailable(_)));
    let e = Event::from_parts("bot:future", raw.clone()).unwrap();
    assert_eq!((e.name(), e.payload()), ("bot:future", raw));
    // A known event with a broken payload is an error, not a guess.
    assert!(Event::from_parts("bot:e2e_revoke", json!({"botId": 1})).is_err());
}

/// The wire names of an envelope (FORMAT.md section 2), sorted.
const ENVELOPE_KEYS: [&str; 4] = ["aad", "iv", "keyGeneration", "v"];

fn envelope_keys(envelope: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = envelope
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {envelope}"))
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

/// Every envelope (`envelope`, `noteEnvelope`) in the spec's fixtures.
fn envelopes_in<'a>(value: &'a Value, out: &mut Vec<&'a Value>) {
    match value {
        Value::Object(map) => {
            for (key, item) in map {
                if matches!(key.as_str(), "envelope" | "noteEnvelope") && item.is_object() {
                    out.push(item);
                }
                envelopes_in(item, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| envelopes_in(item, out)),
        _ => {}
    }
}

/// The envelopes of the spec's fixtures are exactly `{v, keyGeneration, iv,
/// aad}`, and an `Envelope` parsed from one serialises back to exactly those
/// keys and values; so does one the library seals.
#[test]
fn envelopes_are_the_specs_four_fields() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/wire");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    let mut seen = 0;
    for name in &names {
        let value = fixture(name);
        let mut found = Vec::new();
        envelopes_in(&value, &mut found);
        for raw in found {
            assert_eq!(envelope_keys(raw), ENVELOPE_KEYS, "{name}: {raw}");
            let parsed = Envelope::from_json(&raw.to_string()).unwrap();
            let back = serde_json::to_value(&parsed).unwrap();
            assert_eq!(&back, raw, "{name}");
            let back: Value = serde_json::from_str(&parsed.to_json()).unwrap();
            assert_eq!(&back, raw, "{name}");
            seen += 1;
        }
    }
    // message lists (3), claim_sealed (2), sealed steps (2), decision:resolved (1),
    // and the unknown-fields copies of a message list (1) and claim_sealed (2).
    assert_eq!(seen, 11, "envelopes in the fixtures");

    // One the library seals.
    let key = IdentityKey::generate(RecipientKind::User, KeyId::new("laptop").unwrap()).unwrap();
    let mut ring = Keyring::new("stream_root").unwrap();
    ring.insert(0, StreamKey::generate().unwrap()).unwrap();
    let slot = Slot::Message {
        stream_id: "stream_root".into(),
        message_id: "msg_1".into(),
        author_id: "usr_1".into(),
        author_type: "user".into(),
        revision: 1,
    };
    let sealed = seal(&ring, &Signer::new("usr_1", &key).unwrap(), &slot, b"hi").unwrap();
    let wire = serde_json::to_value(&sealed).unwrap();
    assert_eq!(envelope_keys(&wire["envelope"]), ENVELOPE_KEYS);
    let mut top: Vec<&str> = wire
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    top.sort_unstable();
    assert_eq!(top, ["ciphertext", "envelope"]);
}
