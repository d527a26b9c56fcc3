//! Section 9.6, per resource family: unknown fields are kept (each
//! object's `extra`) and unknown values of open enums are kept, and both
//! serialise back unchanged, the crypto records the wire carries (`sealed`
//! `{ciphertext, envelope}`, `envelope`, key wraps, `kdfParams`) included.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
#[allow(unused_imports)]
use streamseal::wire::{ExtraJson as _, JsonRecord as _};

use streamseal::identity::RecipientKind;
use streamseal::wire::attachment::{AttachmentContentType, ProcessingStatus};
use streamseal::wire::bot::BotTrait;
use streamseal::wire::common::{ActorType, AuthorType, StreamType};
use streamseal::wire::conversation::ConversationStatus;
use streamseal::wire::delegation::{DelegationDetail, DelegationStatus};
use streamseal::wire::error_body::{ApiError, ApiErrorCode, CompatWebhookError, ErrorBody};
use streamseal::wire::events::Event;
use streamseal::wire::ids::AnchorId;
use streamseal::wire::invocation::{ClaimResponse, RenewResult};
use streamseal::wire::keys::{KeyWraps, OwnKey};
use streamseal::wire::label::{LabelAssigned, LabelResourceType};
use streamseal::wire::list::{
    AttachmentSearchResults, BotList, ConversationPage, MemoSearchResults, StreamPage,
};
use streamseal::wire::me::{Me, MeIdentity};
use streamseal::wire::memo::{KnowledgeType, MemoType};
use streamseal::wire::message::MessageList;
use streamseal::wire::presence::{Presence, PresenceStatus, RuntimeKind};
use streamseal::wire::requests::invocation::StepType;
use streamseal::wire::slots::{SlotKey, SlotValue};
use streamseal::wire::stream::MemoryMode;
use streamseal::wire::version::ApiVersion;
use streamseal::wire::versioned::Versioned;

use crate::support::wire_json as fixture;

fn at<'a>(v: &'a mut Value, pointer: &str) -> &'a mut Value {
    v.pointer_mut(pointer)
        .unwrap_or_else(|| panic!("no {pointer}"))
}

fn add_unknown_fields(doc: &mut Value, pointer: &str) {
    let obj = at(doc, pointer).as_object_mut().unwrap();
    obj.insert(
        "fieldFromTheFuture".into(),
        json!({"nested": [1, "two", null, {"deeper": 2.5}]}),
    );
    obj.insert("anotherNewFlag".into(), json!(true));
}

/// Sets open-enum values in `base`, then adds unknown fields at `objects`
/// (JSON pointers of structs, the crypto records the wire carries among
/// them) to a copy. The copy must parse, and serialise back to itself:
/// unknown fields and unknown values kept at every depth.
fn tolerate<T: DeserializeOwned + Serialize>(
    mut base: Value,
    values: &[(&str, Value)],
    objects: &[&str],
) -> T {
    for (pointer, value) in values {
        *at(&mut base, pointer) = value.clone();
    }
    let mut input = base.clone();
    for pointer in objects {
        add_unknown_fields(&mut input, pointer);
    }
    assert_ne!(input, base);
    let parsed: T = serde_json::from_value(input.clone()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(serde_json::to_value(&parsed).unwrap(), input);
    parsed
}

fn future() -> Option<Value> {
    Some(json!({"nested": [1, "two", null, {"deeper": 2.5}]}))
}

fn att_extra(list: &MessageList) -> &streamseal::wire::Extra {
    &list.data[0].attachments.as_ref().unwrap()[0].extra
}

#[test]
fn messages_and_slots() {
    let mut base = fixture("message_list_2026-08-21.json");
    let slots = base["slots"].as_object_mut().unwrap();
    slots.insert(
        "quote:msg_1#p2".into(),
        json!({"status": "ok", "content": "a new key form"}),
    );
    slots.insert(
        "shared:msg_01J80000000000000000000024".into(),
        json!({"status": "pending", "eta": 3}),
    );
    let list: MessageList = tolerate(
        base,
        &[
            ("/data/0/authorType", json!("agent")),
            (
                "/data/0/attachments/0/processingStatus",
                json!("quarantined"),
            ),
        ],
        &[
            "",
            "/data/0",
            "/data/0/attachments/0",
            "/slots/shared:msg_01J80000000000000000000023@2",
            "/slots/shared:msg_01J80000000000000000000024",
            "/data/1/sealed",
            "/data/1/sealed/envelope",
        ],
    );
    // Reachable by the app, at every depth.
    assert_eq!(list.extra.get_json("fieldFromTheFuture"), future());
    assert_eq!(
        list.data[0].extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );
    assert_eq!(att_extra(&list).get_json("fieldFromTheFuture"), future());
    let SlotValue::Ok(ok) = list
        .slots
        .get(&SlotKey::parse("shared:msg_01J80000000000000000000023@2"))
        .unwrap()
    else {
        panic!("not ok")
    };
    assert_eq!(ok.extra.get_json("anotherNewFlag"), Some(json!(true)));
    assert!(
        ok.extra.get_json("status").is_none(),
        "the tag is not unknown"
    );
    assert_eq!(list.data[0].author_type, AuthorType::Other("agent".into()));
    let att = &list.data[0].attachments.as_ref().unwrap()[0];
    assert_eq!(
        att.processing_status,
        Some(ProcessingStatus::Other("quarantined".into()))
    );
    // A key of a new form is kept; its `ok` value is still read.
    assert!(matches!(
        list.slots.get(&SlotKey::Other("quote:msg_1#p2".into())),
        Some(SlotValue::Ok(ok)) if ok.content == "a new key form"
    ));
    let pending = list
        .slots
        .get(&SlotKey::parse("shared:msg_01J80000000000000000000024"))
        .unwrap();
    assert_eq!(pending.status(), Some("pending"));
    // Through every version's reader too, unknown fields included.
    for v in ApiVersion::ALL {
        let json = list.to_version_value(v);
        assert_eq!(
            MessageList::from_version_value(v, json).unwrap(),
            list.restricted_to(v)
        );
    }
}

#[test]
fn streams() {
    let page: StreamPage = tolerate(
        fixture("stream_page_2026-08-21.json"),
        &[
            ("/data/0/type", json!("forum")),
            ("/data/0/memoryMode", json!("sometimes")),
            ("/data/1/anchorId", json!("card_0001")),
        ],
        &["", "/data/0", "/data/1"],
    );
    assert_eq!(page.data[1].extra.get_json("fieldFromTheFuture"), future());
    assert_eq!(page.data[0].stream_type, StreamType::Other("forum".into()));
    assert_eq!(
        page.data[0].memory_mode,
        MemoryMode::Other("sometimes".into())
    );
    assert_eq!(
        page.data[1].anchor_id,
        Some(AnchorId::Other("card_0001".into()))
    );
    // The 2026-07-12 reader keeps the unknown anchor and fields too.
    let old = page.to_version_value(ApiVersion::V2026_07_12);
    assert_eq!(old["data"][1]["parentMessageId"], json!("card_0001"));
    assert_eq!(old["data"][1]["anotherNewFlag"], json!(true));
    assert_eq!(old["anotherNewFlag"], json!(true));
    assert_eq!(
        StreamPage::from_version_value(ApiVersion::V2026_07_12, old).unwrap(),
        page
    );
}

#[test]
fn conversations_and_memos() {
    let convs: ConversationPage = tolerate(
        fixture("conversation_page.json"),
        &[("/data/0/status", json!("archived"))],
        &["", "/data/0"],
    );
    assert_eq!(
        convs.data[0].status,
        ConversationStatus::Other("archived".into())
    );
    let memos: MemoSearchResults = tolerate(
        fixture("memo_search.json"),
        &[
            ("/data/0/memo/memoType", json!("document")),
            ("/data/0/memo/knowledgeType", json!("opinion")),
            ("/data/0/sourceStream/type", json!("forum")),
        ],
        &[
            "",
            "/data/0",
            "/data/0/memo",
            "/data/0/sourceStream",
            "/data/1/memo",
        ],
    );
    assert_eq!(
        memos.data[0].extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );
    assert_eq!(
        memos.data[0].memo.extra.get_json("fieldFromTheFuture"),
        future()
    );
    assert_eq!(
        memos.data[0].memo.memo_type,
        MemoType::Other("document".into())
    );
    assert_eq!(
        memos.data[0].memo.knowledge_type,
        KnowledgeType::Other("opinion".into())
    );
    assert_eq!(
        memos.data[0].source_stream.as_ref().unwrap().stream_type,
        StreamType::Other("forum".into())
    );
}

#[test]
fn attachments_labels_bots_presence() {
    let hits: AttachmentSearchResults = tolerate(
        fixture("attachment_search.json"),
        &[("/data/0/contentType", json!("audio"))],
        &["", "/data/0"],
    );
    assert_eq!(
        hits.data[0].content_type,
        Some(AttachmentContentType::Other("audio".into()))
    );
    assert_eq!(
        hits.data[2].content_type,
        Some(AttachmentContentType::OtherContent)
    );

    let labels: LabelAssigned = tolerate(
        fixture("label_assigned.json")["data"].clone(),
        &[
            ("/label/creatorActorType", json!("integration")),
            ("/assignment/resourceType", json!("conversation")),
        ],
        &["", "/label", "/assignment"],
    );
    assert_eq!(
        labels.label.creator_actor_type,
        ActorType::Other("integration".into())
    );
    assert_eq!(
        labels.assignment.resource_type,
        LabelResourceType::Other("conversation".into())
    );

    let bots: BotList = tolerate(
        fixture("bots_2026-07-12.json"),
        &[("/data/0/traits", json!(["mentionable", "telepathic"]))],
        &["", "/data/0"],
    );
    assert_eq!(
        bots.data[0].traits,
        [BotTrait::Mentionable, BotTrait::Other("telepathic".into())]
    );

    let p: Presence = tolerate(
        fixture("presence.json")["data"].clone(),
        &[
            ("/runtimeKind", json!("epsilon")),
            ("/status", json!("hibernating")),
        ],
        &[""],
    );
    assert_eq!(p.runtime_kind, RuntimeKind::Other("epsilon".into()));
    assert_eq!(p.status, PresenceStatus::Other("hibernating".into()));
}

#[test]
fn invocations() {
    let plain: ClaimResponse = tolerate(
        fixture("claim_plain.json"),
        &[("/data/context/messages/0/authorType", json!("agent"))],
        &[
            "",
            "/data",
            "/data/actor",
            "/data/context",
            "/data/context/messages/0",
        ],
    );
    let ctx = plain.data.unwrap().context.unwrap();
    assert_eq!(
        ctx.messages[0].author_type,
        AuthorType::Other("agent".into())
    );
    let sealed: ClaimResponse = tolerate(
        fixture("claim_sealed.json"),
        &[("/data/sealedContext/trigger/authorType", json!("agent"))],
        &[
            "/data/sealedContext",
            "/data/sealedContext/history/0",
            "/data/sealedContext/reply",
            "/data/sealedContext/trigger",
            "/data/sealedContext/wraps/0",
            "/data/sealedContext/history/0/envelope",
            "/data/sealedContext/prompt",
        ],
    );
    let ctx = sealed.data.unwrap().sealed_context.unwrap();
    assert_eq!(
        ctx.trigger.extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );
    // The crypto records keep theirs too (API §9.6).
    assert_eq!(
        ctx.prompt.extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );
    assert_eq!(
        ctx.wraps[0].extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );
    assert_eq!(
        ctx.history[0].envelope.extra.get_json("fieldFromTheFuture"),
        future()
    );
    let _: RenewResult = tolerate(
        fixture("renew_with_revision.json")["data"].clone(),
        &[],
        &["", "/update"],
    );
}

#[test]
fn delegations_keys_me() {
    let d: DelegationDetail = tolerate(
        fixture("delegation_get.json")["data"].clone(),
        &[("/status", json!("failed"))],
        &[""],
    );
    assert_eq!(
        d.delegation.status,
        DelegationStatus::Other("failed".into())
    );
    // A flattened composition keeps the unknown fields once, in its base.
    assert_eq!(
        d.delegation.extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );
    assert_eq!(d.delegation.extra.len(), 2);

    let wraps: KeyWraps = tolerate(
        fixture("key_wraps.json")["data"].clone(),
        &[("/wraps/0/recipientKind", json!("device"))],
        &["", "/wraps/0"],
    );
    assert_eq!(
        wraps.wraps[0].recipient_kind,
        Some(RecipientKind::Other("device".into()))
    );
    assert_eq!(
        wraps.wraps[0].extra.get_json("fieldFromTheFuture"),
        future()
    );
    let own: OwnKey = tolerate(
        fixture("own_key.json")["data"].clone(),
        &[],
        &["", "/kdfParams"],
    );
    assert_eq!(own.extra.get_json("fieldFromTheFuture"), future());
    assert_eq!(
        own.kdf_params.extra.get_json("anotherNewFlag"),
        Some(json!(true))
    );

    // `kind` is an open union: an unknown kind keeps all its fields.
    let mut me = fixture("me_user.json")["data"].clone();
    me["kind"] = json!("service");
    let parsed: Me = serde_json::from_value(me.clone()).unwrap();
    assert!(
        matches!(&parsed.identity, MeIdentity::Other { kind, fields } if kind == "service" && fields.contains_key("userId"))
    );
    assert_eq!(serde_json::to_value(&parsed).unwrap(), me);
    let me: Me = tolerate(
        fixture("me_user.json")["data"].clone(),
        &[],
        &["", "/apiVersion"],
    );
    assert_eq!(me.extra.get_json("anotherNewFlag"), Some(json!(true)));
    assert_eq!(
        me.api_version.extra.get_json("fieldFromTheFuture"),
        future()
    );
    // A newer `current` than this library knows is only text.
    let mut newer = fixture("me_user.json")["data"].clone();
    newer["apiVersion"]["current"] = json!("2027-01-01");
    let parsed: Me = serde_json::from_value(newer).unwrap();
    assert!(parsed.api_version.newer_version_exists());
}

#[test]
fn errors_and_events() {
    let body: ErrorBody = tolerate(
        fixture("error_invalid_api_version.json"),
        &[("/code", json!("NEW_CODE"))],
        &[""],
    );
    assert_eq!(body.code, Some(ApiErrorCode::Other("NEW_CODE".into())));
    assert_eq!(
        CompatWebhookError::from_body("gone_fishing\n"),
        CompatWebhookError::Other("gone_fishing".into())
    );
    assert_eq!(CompatWebhookError::from_body("no_text").status(), Some(400));
    // A body the spec does not show stays raw.
    let raw = ApiError::parse(403, "Forbidden");
    assert_eq!(raw.code(), None);

    let mut revoke = fixture("event_e2e_revoke.json");
    revoke["reason"] = json!("owner removed the bot");
    let event = Event::from_parts("bot:e2e_revoke", revoke.clone()).unwrap();
    assert_eq!(event.payload(), revoke);

    let mut steps = fixture("event_sealed_steps.json");
    steps["steps"][0]["stepType"] = json!("dreaming");
    steps["steps"][0]["priority"] = json!(1);
    let event = Event::from_parts("bot:invocation:sealed-steps", steps.clone()).unwrap();
    let Event::SealedSteps(s) = &event else {
        panic!()
    };
    assert_eq!(s.steps[0].step_type, StepType::Other("dreaming".into()));
    assert_eq!(s.steps[0].extra.get_json("priority"), Some(json!(1)));
    assert_eq!(event.payload(), steps);
}

#[test]
fn messages_with_ids_their_senders_minted_differently_still_parse() {
    let list: MessageList = serde_json::from_value(serde_json::json!({
        "data": [{
            "id": "msg_client-minted-7f3a", "streamId": "stream_01J80000000000000000000012",
            "sequence": "9", "authorId": "bot_1", "authorType": "bot", "content": "[sealed]",
            "replyCount": 0, "metadata": {}, "revision": 1, "createdAt": "2026-08-01T10:00:00Z"
        }],
        "hasMore": false,
        "slots": {}
    }))
    .unwrap();
    assert_eq!(list.data[0].id, "msg_client-minted-7f3a");
    assert!(streamseal::wire::ids::MessageId::parse(&list.data[0].id).is_err());
}
