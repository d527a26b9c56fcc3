//! Property tests: arbitrary instances of every wire type round-trip
//! through JSON; every version's serialisation re-parses to the same
//! normalised model; slot keys, ids and versions round-trip.

use std::collections::BTreeMap;
use std::fmt::Debug;

use proptest::collection::{btree_map, vec};
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use streamseal::envelope::{Envelope, SealedPayload};
use streamseal::identity::{PublicKey, RecipientKind};
use streamseal::kdf::KdfParams;
use streamseal::slot::DecisionOption;
use streamseal::wire::Extra;
use streamseal::wire::attachment::*;
use streamseal::wire::bot::*;
use streamseal::wire::common::*;
use streamseal::wire::conversation::*;
use streamseal::wire::delegation::*;
use streamseal::wire::error_body::*;
use streamseal::wire::events::*;
use streamseal::wire::ids::*;
use streamseal::wire::invocation::*;
use streamseal::wire::keys::*;
use streamseal::wire::label::*;
use streamseal::wire::list::*;
use streamseal::wire::me::*;
use streamseal::wire::memo::*;
use streamseal::wire::message::*;
use streamseal::wire::presence::*;
use streamseal::wire::requests::attachments::SearchAttachmentsRequest;
use streamseal::wire::requests::bot_runtime::*;
use streamseal::wire::requests::conversations::ListConversationsQuery;
use streamseal::wire::requests::decisions::CreateDecisionRequest;
use streamseal::wire::requests::delegations::*;
use streamseal::wire::requests::invocation::*;
use streamseal::wire::requests::labels::*;
use streamseal::wire::requests::memos::SearchMemosRequest;
use streamseal::wire::requests::messages::*;
use streamseal::wire::requests::streams::*;
use streamseal::wire::requests::webhooks::*;
use streamseal::wire::secret::{CallbackToken, ClaimToken};
use streamseal::wire::slots::*;
use streamseal::wire::stream::*;
use streamseal::wire::version::*;
use streamseal::wire::versioned::Versioned;
use streamseal::wrap::KeyWrap;

// ---------- leaves ----------

fn s() -> impl Strategy<Value = String> {
    "\\PC{0,12}"
}
fn os() -> impl Strategy<Value = Option<String>> {
    option::of(s())
}
fn strings() -> impl Strategy<Value = Vec<String>> {
    vec(s(), 0..3)
}
fn ulid() -> impl Strategy<Value = String> {
    "[0-7][0-9A-HJKMNP-TV-Z]{25}"
}
fn message_id() -> impl Strategy<Value = MessageId> {
    ulid().prop_map(|u| MessageId::parse(&format!("msg_{u}")).unwrap())
}
fn stream_id() -> impl Strategy<Value = StreamId> {
    ulid().prop_map(|u| StreamId::parse(&format!("stream_{u}")).unwrap())
}
fn anchor() -> impl Strategy<Value = AnchorId> {
    prop_oneof![
        ulid().prop_map(|u| format!("msg_{u}")),
        ulid().prop_map(|u| format!("event_{u}")),
        s(),
    ]
    .prop_map(|t| AnchorId::parse(&t))
}
fn number() -> impl Strategy<Value = f64> {
    (-100_000i32..100_000).prop_map(|n| f64::from(n) / 64.0)
}
fn string_map() -> impl Strategy<Value = BTreeMap<String, String>> {
    btree_map(s(), s(), 0..3)
}
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        s().prop_map(Value::String),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..3).prop_map(Value::Array),
            btree_map(s(), inner, 0..3).prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
/// A JSON object whose keys cannot collide with a struct's own fields.
fn extra_map() -> impl Strategy<Value = Map<String, Value>> {
    btree_map("x_[a-z]{1,6}", json_value(), 0..3).prop_map(|m| m.into_iter().collect())
}
fn json_map() -> impl Strategy<Value = Map<String, Value>> {
    btree_map(s(), json_value(), 0..3).prop_map(|m| m.into_iter().collect())
}

macro_rules! open {
    ($name:ident, $ty:ty) => {
        fn $name() -> impl Strategy<Value = $ty> {
            prop_oneof![
                select(<$ty>::KNOWN).prop_map(str::to_owned),
                "[a-z_-]{0,10}"
            ]
            .prop_map(|v| <$ty>::parse(&v))
        }
    };
}
open!(author_type, AuthorType);
open!(actor_type, ActorType);
open!(stream_type, StreamType);
open!(memory_mode, MemoryMode);
open!(conversation_status, ConversationStatus);
open!(memo_type, MemoType);
open!(knowledge_type, KnowledgeType);
open!(processing_status, ProcessingStatus);
open!(content_type, AttachmentContentType);
open!(resource_type, LabelResourceType);
open!(bot_trait, BotTrait);
open!(runtime_kind, RuntimeKind);
open!(presence_status, PresenceStatus);
open!(delegation_status, DelegationStatus);
open!(error_code, ApiErrorCode);
open!(step_type, StepType);
open!(source_type, SourceType);
open!(if_archived, IfArchived);
open!(if_missing, IfMissing);

fn recipient_kind() -> impl Strategy<Value = RecipientKind> {
    prop_oneof![
        Just("user".to_owned()),
        Just("bot".to_owned()),
        "[a-z]{0,6}"
    ]
    .prop_map(|v| RecipientKind::parse(&v))
}
fn envelope() -> impl Strategy<Value = Envelope> {
    (any::<u32>(), any::<u32>(), s(), s()).prop_map(|(v, key_generation, iv, aad)| Envelope {
        v,
        key_generation,
        iv,
        aad,
        extra: Default::default(),
    })
}
fn sealed() -> impl Strategy<Value = SealedPayload> {
    (s(), envelope()).prop_map(|(ciphertext, envelope)| SealedPayload {
        ciphertext,
        envelope,
        extra: Default::default(),
    })
}
fn key_wrap() -> impl Strategy<Value = KeyWrap> {
    (any::<u32>(), os(), option::of(recipient_kind()), s(), s()).prop_map(
        |(key_generation, recipient_key_id, recipient_kind, wrap_enc, wrap_ct)| KeyWrap {
            key_generation,
            recipient_key_id,
            recipient_kind,
            wrap_enc,
            wrap_ct,
            extra: Default::default(),
        },
    )
}
fn claim_token() -> impl Strategy<Value = ClaimToken> {
    s().prop_map(ClaimToken::from)
}

// ---------- slots ----------

fn shared_ref() -> impl Strategy<Value = SharedRef> {
    (
        message_id(),
        option::of((any::<u32>(), option::of((any::<u32>(), any::<u32>())))),
    )
        .prop_map(|(message_id, pin)| SharedRef {
            message_id,
            version: pin.map(|p| p.0),
            range: pin.and_then(|p| p.1),
        })
}
/// Whether every number after the message id of a key fits a `u32`.
fn numbers_fit_after_id(key: &str) -> bool {
    let pins = key.split_once('@').map_or("", |(_, p)| p);
    pins.split([':', '-'])
        .filter(|d| !d.is_empty())
        .all(|d| d.parse::<u32>().is_ok())
}
fn slot_key() -> impl Strategy<Value = SlotKey> {
    prop_oneof![
        shared_ref().prop_map(SlotKey::Shared),
        "quote:[a-z0-9]{0,8}".prop_map(SlotKey::Other)
    ]
}
fn slot_value() -> impl Strategy<Value = SlotValue> {
    let range = json_value().prop_filter("null reads as absent", |v| !v.is_null());
    let ok = (
        s(),
        option::of(any::<u32>()),
        option::of(any::<u32>()),
        option::of(range),
    )
        .prop_map(|(content, version, current_revision, range)| {
            SlotValue::Ok(OkSlot {
                content,
                version,
                current_revision,
                range,
                extra: Default::default(),
            })
        });
    let other = (
        "[a-z]{0,8}".prop_filter("not ok", |s| s != "ok"),
        extra_map(),
    )
        .prop_map(|(status, mut m)| {
            m.insert("status".into(), Value::String(status));
            SlotValue::Other(m)
        });
    prop_oneof![ok, other]
}
fn slots() -> impl Strategy<Value = Slots> {
    btree_map(slot_key(), slot_value(), 0..5).prop_map(Slots)
}

// ---------- resources ----------

fn attachment_item() -> impl Strategy<Value = MessageAttachment> {
    (
        s(),
        s(),
        s(),
        any::<u64>(),
        option::of(processing_status()),
        option::of(any::<u32>()),
        option::of(any::<u32>()),
    )
        .prop_map(
            |(id, filename, mime_type, size_bytes, processing_status, width, height)| {
                MessageAttachment {
                    id,
                    filename,
                    mime_type,
                    size_bytes,
                    processing_status,
                    width,
                    height,
                    extra: Default::default(),
                }
            },
        )
}
fn message() -> impl Strategy<Value = Message> {
    (
        (
            message_id(),
            s(),
            s(),
            s(),
            author_type(),
            os(),
            s(),
            any::<u32>(),
        ),
        (
            os(),
            os(),
            os(),
            string_map(),
            option::of(vec(attachment_item(), 0..2)),
            any::<u32>(),
            os(),
            s(),
        ),
        option::of(sealed()),
    )
        .prop_map(
            |(
                (
                    id,
                    stream_id,
                    sequence,
                    author_id,
                    author_type,
                    author_display_name,
                    content,
                    reply_count,
                ),
                (
                    thread_stream_id,
                    client_message_id,
                    sent_via,
                    metadata,
                    attachments,
                    revision,
                    edited_at,
                    created_at,
                ),
                sealed,
            )| Message {
                id: id.to_string(),
                stream_id,
                sequence: Sequence(sequence),
                author_id,
                author_type,
                author_display_name,
                content,
                reply_count,
                thread_stream_id,
                client_message_id,
                sent_via,
                metadata,
                attachments,
                revision,
                edited_at,
                created_at,
                sealed,
                extra: Default::default(),
            },
        )
}
fn search_hit() -> impl Strategy<Value = MessageSearchHit> {
    (
        (message_id(), s(), s(), s(), s(), author_type(), os()),
        (any::<u32>(), string_map(), os(), s(), number()),
    )
        .prop_map(
            |(
                (id, stream_id, sequence, content, author_id, author_type, author_display_name),
                (reply_count, metadata, edited_at, created_at, rank),
            )| MessageSearchHit {
                id: id.to_string(),
                stream_id,
                sequence: Sequence(sequence),
                content,
                author_id,
                author_type,
                author_display_name,
                reply_count,
                metadata,
                edited_at,
                created_at,
                rank,
                extra: Default::default(),
            },
        )
}
fn stream() -> impl Strategy<Value = Stream> {
    (
        (
            stream_id(),
            stream_type(),
            s(),
            os(),
            os(),
            s(),
            memory_mode(),
        ),
        (
            os(),
            os(),
            option::of(anchor()),
            option::of(any::<bool>()),
            s(),
            os(),
        ),
    )
        .prop_map(
            |(
                (id, stream_type, display_name, slug, description, visibility, memory_mode),
                (parent_stream_id, root_stream_id, anchor_id, e2e_enabled, created_at, archived_at),
            )| Stream {
                id,
                stream_type,
                display_name,
                slug,
                description,
                visibility,
                memory_mode,
                parent_stream_id,
                root_stream_id,
                anchor_id,
                e2e_enabled,
                created_at,
                archived_at,
                extra: Default::default(),
            },
        )
}
fn member() -> impl Strategy<Value = StreamMember> {
    (s(), s(), s(), os(), s()).prop_map(|(user_id, name, slug, avatar_url, joined_at)| {
        StreamMember {
            user_id,
            name,
            slug,
            avatar_url,
            joined_at,
            extra: Default::default(),
        }
    })
}
fn conversation() -> impl Strategy<Value = Conversation> {
    (
        (s(), s(), s(), os(), os(), conversation_status()),
        (any::<u32>(), strings(), s(), s(), s()),
    )
        .prop_map(
            |(
                (id, stream_id, root_stream_id, topic_summary, summary, status),
                (message_count, participant_ids, last_activity_at, created_at, updated_at),
            )| Conversation {
                id,
                stream_id,
                root_stream_id,
                topic_summary,
                summary,
                status,
                message_count,
                participant_ids,
                last_activity_at,
                created_at,
                updated_at,
                extra: Default::default(),
            },
        )
}
fn memo() -> impl Strategy<Value = Memo> {
    (
        (s(), s(), memo_type(), os(), os(), os(), os(), s(), s()),
        (
            strings(),
            strings(),
            strings(),
            strings(),
            knowledge_type(),
            s(),
            any::<u32>(),
            s(),
            s(),
            os(),
        ),
    )
        .prop_map(
            |(
                (
                    id,
                    workspace_id,
                    memo_type,
                    source_message_id,
                    source_conversation_id,
                    parent_memo_id,
                    revision_reason,
                    title,
                    abstract_text,
                ),
                (
                    key_points,
                    source_message_ids,
                    participant_ids,
                    tags,
                    knowledge_type,
                    status,
                    version,
                    created_at,
                    updated_at,
                    archived_at,
                ),
            )| Memo {
                id,
                workspace_id,
                memo_type,
                source_message_id,
                source_conversation_id,
                parent_memo_id,
                revision_reason,
                title,
                abstract_text,
                key_points,
                source_message_ids,
                participant_ids,
                tags,
                knowledge_type,
                status,
                version,
                created_at,
                updated_at,
                archived_at,
                extra: Default::default(),
            },
        )
}
fn memo_stream() -> impl Strategy<Value = MemoStreamRef> {
    (s(), stream_type(), os()).prop_map(|(id, stream_type, name)| MemoStreamRef {
        id,
        stream_type,
        name,
        extra: Default::default(),
    })
}
fn memo_result() -> impl Strategy<Value = MemoResult> {
    (
        memo(),
        number(),
        option::of(memo_stream()),
        option::of(memo_stream()),
    )
        .prop_map(|(memo, distance, source_stream, root_stream)| MemoResult {
            memo,
            distance,
            source_stream,
            root_stream,
            extra: Default::default(),
        })
}
fn memo_source() -> impl Strategy<Value = MemoSourceMessage> {
    (s(), s(), s(), s(), author_type(), s(), s(), s()).prop_map(
        |(id, stream_id, stream_name, author_id, author_type, author_name, content, created_at)| {
            MemoSourceMessage {
                id,
                stream_id,
                stream_name,
                author_id,
                author_type,
                author_name,
                content,
                created_at,
                extra: Default::default(),
            }
        },
    )
}
fn attachment() -> impl Strategy<Value = Attachment> {
    (s(), s(), s(), any::<u64>(), processing_status(), s()).prop_map(
        |(id, filename, mime_type, size_bytes, processing_status, created_at)| Attachment {
            id,
            filename,
            mime_type,
            size_bytes,
            processing_status,
            created_at,
            extra: Default::default(),
        },
    )
}
fn attachment_hit() -> impl Strategy<Value = AttachmentSearchHit> {
    (
        s(),
        s(),
        s(),
        option::of(content_type()),
        os(),
        os(),
        os(),
        s(),
    )
        .prop_map(
            |(
                id,
                filename,
                mime_type,
                content_type,
                summary,
                stream_id,
                message_id,
                created_at,
            )| AttachmentSearchHit {
                id,
                filename,
                mime_type,
                content_type,
                summary,
                stream_id,
                message_id,
                created_at,
                extra: Default::default(),
            },
        )
}
fn label() -> impl Strategy<Value = Label> {
    (
        (s(), s(), actor_type(), s(), s(), s()),
        (s(), os(), os(), s(), s(), os()),
    )
        .prop_map(
            |(
                (id, workspace_id, creator_actor_type, creator_actor_id, name, slug),
                (color, emoji, description, created_at, updated_at, archived_at),
            )| Label {
                id,
                workspace_id,
                creator_actor_type,
                creator_actor_id,
                name,
                slug,
                color,
                emoji,
                description,
                created_at,
                updated_at,
                archived_at,
                extra: Default::default(),
            },
        )
}
fn assignment() -> impl Strategy<Value = LabelAssignment> {
    (s(), resource_type(), s(), actor_type(), s(), s(), s()).prop_map(
        |(
            label_id,
            resource_type,
            resource_id,
            actor_type,
            actor_id,
            workspace_id,
            assigned_at,
        )| LabelAssignment {
            label_id,
            resource_type,
            resource_id,
            actor_type,
            actor_id,
            workspace_id,
            assigned_at,
            extra: Default::default(),
        },
    )
}
fn bot() -> impl Strategy<Value = Bot> {
    (
        (s(), s(), vec(bot_trait(), 0..3), os(), s(), os(), os()),
        (os(), os(), s(), s(), s(), s(), option::of(any::<bool>())),
    )
        .prop_map(
            |(
                (id, workspace_id, traits, slug, name, description, avatar_emoji),
                (
                    avatar_url,
                    archived_at,
                    created_at,
                    updated_at,
                    bot_type,
                    owner_user_id,
                    reads_as_owner,
                ),
            )| Bot {
                id,
                workspace_id,
                traits,
                slug,
                name,
                description,
                avatar_emoji,
                avatar_url,
                archived_at,
                created_at,
                updated_at,
                bot_type,
                owner_user_id,
                reads_as_owner,
                extra: Default::default(),
            },
        )
}
fn presence() -> impl Strategy<Value = Presence> {
    (
        (s(), s(), s(), runtime_kind(), s(), os(), presence_status()),
        (any::<bool>(), json_map(), os(), s(), s(), s()),
    )
        .prop_map(
            |(
                (id, workspace_id, bot_id, runtime_kind, instance_id, display_name, status),
                (
                    accepting_invocations,
                    capabilities,
                    status_text,
                    last_seen_at,
                    created_at,
                    updated_at,
                ),
            )| Presence {
                id,
                workspace_id,
                bot_id,
                runtime_kind,
                instance_id,
                display_name,
                status,
                accepting_invocations,
                capabilities,
                status_text,
                last_seen_at,
                created_at,
                updated_at,
                extra: Default::default(),
            },
        )
}
fn session_link() -> impl Strategy<Value = SessionLink> {
    (s(), s(), s(), s(), s(), option::of(any::<bool>()), os()).prop_map(
        |(
            link_id,
            root_stream_id,
            active_stream_id,
            runtime_session_id,
            stream_url_path,
            e2e_enabled,
            display_name,
        )| {
            SessionLink {
                link_id,
                root_stream_id,
                active_stream_id,
                runtime_session_id,
                stream_url_path,
                e2e_enabled,
                display_name,
                extra: Default::default(),
            }
        },
    )
}
fn context() -> impl Strategy<Value = InvocationContext> {
    let msg = (s(), s(), s(), author_type(), s(), s(), s()).prop_map(
        |(
            message_id,
            role,
            author_id,
            author_type,
            author_display_name,
            content_markdown,
            created_at,
        )| ContextMessage {
            message_id,
            role,
            author_id,
            author_type,
            author_display_name,
            content_markdown,
            created_at,
            extra: Default::default(),
        },
    );
    (s(), vec(msg, 0..2)).prop_map(|(kind, messages)| InvocationContext {
        kind,
        messages,
        extra: Default::default(),
    })
}
fn sealed_context() -> impl Strategy<Value = SealedContext> {
    let history = (s(), envelope(), s(), s()).prop_map(|(ciphertext, envelope, role, sequence)| {
        SealedHistoryItem {
            ciphertext,
            envelope,
            role,
            sequence: Sequence(sequence),
            extra: Default::default(),
        }
    });
    let reply = (any::<u32>(), s()).prop_map(|(key_generation, sender_id)| SealedReplyParams {
        key_generation,
        sender_id,
        extra: Default::default(),
    });
    let trigger = (s(), s(), author_type(), s()).prop_map(
        |(message_id, author_name, author_type, created_at)| SealedTrigger {
            message_id,
            author_name,
            author_type,
            created_at,
            extra: Default::default(),
        },
    );
    (
        s(),
        vec(key_wrap(), 0..2),
        vec(history, 0..2),
        sealed(),
        reply,
        trigger,
    )
        .prop_map(
            |(callback_token, wraps, history, prompt, reply, trigger)| SealedContext {
                callback_token: CallbackToken::from(callback_token),
                wraps,
                history,
                prompt,
                reply,
                trigger,
                extra: Default::default(),
            },
        )
}
fn invocation() -> impl Strategy<Value = Invocation> {
    (
        (s(), s(), s(), s(), s(), s(), (s(), s(), s()), s(), s()),
        (
            os(),
            any::<u32>(),
            s(),
            strings(),
            claim_token(),
            s(),
            os(),
            json_map(),
        ),
        (option::of(context()), option::of(sealed_context())),
    )
        .prop_map(
            |(
                (
                    id,
                    workspace_id,
                    root_stream_id,
                    active_stream_id,
                    source_message_id,
                    response_stream_id,
                    (actor_type, actor_id, slug),
                    trigger,
                    required_capability,
                ),
                (
                    prompt_markdown,
                    source_revision,
                    author_user_id,
                    mentioned_actor_slugs,
                    claim_token,
                    claim_expires_at,
                    runtime_session_id,
                    metadata,
                ),
                (context, sealed_context),
            )| Invocation {
                id,
                workspace_id,
                root_stream_id,
                active_stream_id,
                source_message_id,
                response_stream_id,
                actor: InvocationActor {
                    actor_type,
                    id: actor_id,
                    slug,
                    extra: Default::default(),
                },
                trigger,
                required_capability,
                prompt_markdown,
                source_revision,
                author_user_id,
                mentioned_actor_slugs,
                claim_token,
                claim_expires_at,
                runtime_session_id,
                metadata,
                context,
                sealed_context,
                extra: Default::default(),
            },
        )
}
fn renew() -> impl Strategy<Value = RenewResult> {
    let update = (s(), any::<u32>(), os(), strings()).prop_map(
        |(delivery, source_revision, prompt_markdown, mentioned_actor_slugs)| RenewUpdate {
            delivery,
            source_revision,
            prompt_markdown,
            mentioned_actor_slugs,
            extra: Default::default(),
        },
    );
    (s(), s(), os(), option::of(any::<u32>()), option::of(update)).prop_map(
        |(invocation_id, status, claim_expires_at, source_revision, update)| RenewResult {
            invocation_id,
            status,
            claim_expires_at,
            source_revision,
            update,
            extra: Default::default(),
        },
    )
}
fn delegation() -> impl Strategy<Value = Delegation> {
    (
        s(),
        s(),
        s(),
        delegation_status(),
        os(),
        os(),
        os(),
        os(),
        s(),
        s(),
    )
        .prop_map(
            |(
                id,
                stream_id,
                title,
                status,
                claimed_by_label,
                status_note,
                result_message_id,
                source_conversation_id,
                created_at,
                status_changed_at,
            )| {
                Delegation {
                    id,
                    stream_id,
                    title,
                    status,
                    claimed_by_label,
                    status_note,
                    result_message_id,
                    source_conversation_id,
                    created_at,
                    status_changed_at,
                    extra: Default::default(),
                }
            },
        )
}
fn public_key() -> impl Strategy<Value = PublicKey> {
    any::<[u8; 32]>().prop_map(PublicKey::from_bytes)
}
fn kdf_params() -> impl Strategy<Value = KdfParams> {
    (s(), any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>()).prop_map(
        |(algorithm, m, t, p, version)| KdfParams {
            algorithm,
            m,
            t,
            p,
            version,
            extra: Default::default(),
        },
    )
}
fn api_version_info() -> impl Strategy<Value = ApiVersionInfo> {
    (os(), s(), s(), strings()).prop_map(|(pinned, resolved, current, supported)| ApiVersionInfo {
        pinned,
        resolved,
        current,
        supported,
        extra: Default::default(),
    })
}
fn me() -> impl Strategy<Value = Me> {
    let identity = prop_oneof![
        (s(), s()).prop_map(|(workspace_id, user_id)| MeIdentity::User {
            workspace_id,
            user_id
        }),
        extra_map().prop_map(|fields| MeIdentity::Bot { fields }),
        (
            "[a-z]{0,6}".prop_filter("unknown kind", |k| k != "user" && k != "bot"),
            extra_map()
        )
            .prop_map(|(kind, fields)| MeIdentity::Other { kind, fields }),
    ];
    (identity, api_version_info()).prop_map(|(identity, api_version)| Me {
        identity,
        api_version,
        extra: Default::default(),
    })
}
fn details() -> impl Strategy<Value = BTreeMap<String, Vec<String>>> {
    btree_map(s(), vec(s(), 1..3), 0..3)
}
fn step_frame() -> impl Strategy<Value = SealedStepFrame> {
    (
        s(),
        step_type(),
        os(),
        os(),
        option::of(envelope()),
        option::of(any::<u64>()),
    )
        .prop_map(
            |(step_id, step_type, message_id, ciphertext, envelope, duration_ms)| SealedStepFrame {
                step_id,
                step_type,
                message_id,
                ciphertext,
                envelope,
                duration_ms,
                extra: Default::default(),
            },
        )
}

// ---------- properties ----------

fn json_round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(
    value: &T,
) -> Result<(), TestCaseError> {
    let json = serde_json::to_string(value).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let back: T =
        serde_json::from_str(&json).map_err(|e| TestCaseError::fail(format!("{e}: {json}")))?;
    prop_assert_eq!(&back, value, "{}", json);
    Ok(())
}

fn versions_round_trip<T: Versioned + PartialEq + Debug>(model: &T) -> Result<(), TestCaseError> {
    prop_assert_eq!(&model.restricted_to(ApiVersion::LATEST), model);
    for v in ApiVersion::ALL {
        let restricted = model.restricted_to(v);
        prop_assert_eq!(
            &restricted.restricted_to(v),
            &restricted,
            "restriction is idempotent at {}",
            v
        );
        let json = model.to_version_json(v);
        let back =
            T::from_version_json(v, &json).map_err(|e| TestCaseError::fail(format!("{v}: {e}")))?;
        prop_assert_eq!(&back, &restricted, "{} {}", v, json);
    }
    Ok(())
}

macro_rules! round_trips {
    ($($test:ident: $strategy:expr;)+) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(64))]
            $(
                #[test]
                fn $test(value in $strategy) {
                    json_round_trip(&value)?;
                }
            )+
        }
    };
}

round_trips! {
    message_round_trips: message();
    search_hit_round_trips: search_hit();
    message_list_round_trips: (vec(message(), 0..3), any::<bool>(), slots())
        .prop_map(|(data, has_more, slots)| MessageList { data, has_more, slots, extra: Default::default() });
    message_search_round_trips: (vec(search_hit(), 0..3), slots()).prop_map(|(data, slots)| MessageSearchResults { data, slots, extra: Default::default() });
    messages_found_round_trips: (vec(message(), 0..3), slots()).prop_map(|(data, slots)| MessagesFound { data, slots, extra: Default::default() });
    message_response_round_trips: (message(), os(), slots())
        .prop_map(|(data, conversation_id, slots)| MessageResponse { data, conversation_id, slots, extra: Default::default() });
    slots_round_trip: slots();
    stream_round_trips: stream();
    stream_page_round_trips: (vec(stream(), 0..3), any::<bool>(), os())
        .prop_map(|(data, has_more, cursor)| StreamPage { data, has_more, cursor, extra: Default::default() });
    member_page_round_trips: (vec(member(), 0..3), any::<bool>(), os())
        .prop_map(|(data, has_more, cursor)| MemberPage { data, has_more, cursor, extra: Default::default() });
    conversation_page_round_trips: (vec(conversation(), 0..3), any::<bool>(), os())
        .prop_map(|(data, has_more, cursor)| ConversationPage { data, has_more, cursor, extra: Default::default() });
    memo_round_trips: memo();
    memo_search_round_trips: vec(memo_result(), 0..3).prop_map(|data| MemoSearchResults { data, extra: Default::default() });
    memo_with_sources_round_trips: (memo_result(), vec(memo_source(), 0..3))
        .prop_map(|(result, source_messages)| MemoWithSources { result, source_messages });
    attachment_round_trips: attachment();
    attachment_search_round_trips: vec(attachment_hit(), 0..3).prop_map(|data| AttachmentSearchResults { data, extra: Default::default() });
    label_assigned_round_trips: (label(), assignment()).prop_map(|(label, assignment)| LabelAssigned { label, assignment, extra: Default::default() });
    bot_list_round_trips: vec(bot(), 0..3).prop_map(|data| BotList { data, extra: Default::default() });
    presence_round_trips: presence();
    session_link_round_trips: session_link();
    session_ended_round_trips: (s(), s(), s(), s()).prop_map(|(link_id, root_stream_id, active_stream_id, status)| SessionEnded {
        link_id, root_stream_id, active_stream_id, status, extra: Default::default() });
    brief_created_round_trips: (s(), s()).prop_map(|(invocation_id, stream_id)| BriefCreated { invocation_id, stream_id, extra: Default::default() });
    claim_response_round_trips: option::of(invocation()).prop_map(|data| ClaimResponse { data, extra: Default::default() });
    renew_round_trips: renew();
    invocation_status_round_trips: (s(), s()).prop_map(|(invocation_id, status)| InvocationStatusResult { invocation_id, status, extra: Default::default() });
    step_recorded_round_trips: (s(), s(), s()).prop_map(|(invocation_id, session_id, step_id)| StepRecorded {
        invocation_id, session_id, step_id, extra: Default::default() });
    invocation_message_round_trips: (s(), s(), s()).prop_map(|(invocation_id, session_id, message_id)| InvocationMessagePosted {
        invocation_id, session_id, message_id, extra: Default::default() });
    sealed_message_posted_round_trips: s().prop_map(|message_id| SealedMessagePosted { message_id, extra: Default::default() });
    sealed_completed_round_trips: (s(), s(), os()).prop_map(|(invocation_id, session_id, message_id)| SealedCompleted {
        invocation_id, session_id, message_id, extra: Default::default() });
    invocation_completed_round_trips: (s(), option::of(message()), slots())
        .prop_map(|(invocation_id, message, slots)| InvocationCompleted { invocation_id, message, slots, data_extra: Default::default(), extra: Default::default() });
    delegation_list_round_trips: (vec(delegation(), 0..3), any::<bool>(), os())
        .prop_map(|(data, has_more, cursor)| DelegationList { data, has_more, cursor, extra: Default::default() });
    delegation_detail_round_trips: (delegation(), s(), strings(), os()).prop_map(|(delegation, brief, context_refs, claim_expires_at)|
        DelegationDetail { delegation, brief, context_refs, claim_expires_at });
    delegation_claim_round_trips: (delegation(), claim_token(), s()).prop_map(|(delegation, claim_token, claim_expires_at)|
        DelegationClaim { delegation, claim_token, claim_expires_at });
    delegation_completion_round_trips: (delegation(), os()).prop_map(|(delegation, result_thread_id)|
        DelegationCompletion { delegation, result_thread_id });
    delegation_heartbeat_round_trips: s().prop_map(|claim_expires_at| DelegationHeartbeat { claim_expires_at, extra: Default::default() });
    owner_key_round_trips: (s(), public_key()).prop_map(|(key_id, public_key)| OwnerKey { key_id, public_key, extra: Default::default() });
    own_key_round_trips: (s(), public_key(), s(), s(), kdf_params(), s()).prop_map(
        |(key_id, public_key, encrypted_private_bundle, kdf_salt, kdf_params, created_at)| OwnKey {
            key_id, public_key, encrypted_private_bundle, kdf_salt, kdf_params, created_at, extra: Default::default() });
    key_wraps_round_trip: (any::<u32>(), s(), vec(key_wrap(), 0..3)).prop_map(|(current_key_generation, owner_user_id, wraps)|
        KeyWraps { current_key_generation, owner_user_id, wraps, extra: Default::default() });
    key_wraps_stored_round_trips: any::<u32>().prop_map(|stored| KeyWrapsStored { stored, extra: Default::default() });
    me_round_trips: me();
    api_version_info_round_trips: api_version_info();
    error_body_round_trips: (s(), option::of(details()), option::of(error_code()))
        .prop_map(|(error, details, code)| ErrorBody { error, details, code, extra: Default::default() });
    rate_limit_body_round_trips: (s(), any::<u32>(), any::<u64>()).prop_map(|(error, limit, window_ms)| RateLimitBody {
        error, limit, window_ms, extra: Default::default() });
    decision_resolved_round_trips: (s(), s(), s(), os(), option::of(envelope())).prop_map(
        |(decision_id, option_id, decided_by, note_ciphertext, note_envelope)| DecisionResolved {
            decision_id, option_id, decided_by, note_ciphertext, note_envelope, extra: Default::default() });
    e2e_revoke_round_trips: (s(), s(), s()).prop_map(|(workspace_id, bot_id, stream_id)| E2eRevoke { workspace_id, bot_id, stream_id, extra: Default::default() });
    sealed_steps_round_trip: (s(), s(), vec(step_frame(), 0..3)).prop_map(|(invocation_id, token, steps)| SealedSteps {
        invocation_id, callback_token: CallbackToken::from(token), steps, extra: Default::default() });
    hello_ack_round_trips: (strings(), extra_map()).prop_map(|(e2e_granted_stream_ids, fields)| HelloAck { e2e_granted_stream_ids, fields });
    webhook_accepted_round_trips: any::<bool>().prop_map(|ok| WebhookAccepted {
        ok,
        extra: Extra::default(),
    });
}

// Requests.
round_trips! {
    search_messages_round_trips: ((s(), option::of(any::<bool>()), option::of(any::<bool>()), option::of(strings()), os()),
        (option::of(vec(stream_type(), 0..3)), os(), os(), option::of(any::<u32>())))
        .prop_map(|((query, semantic, exact, streams, from), (stream_types, before, after, limit))| SearchMessagesRequest {
            query, semantic, exact, streams, from, stream_types, before, after, limit });
    list_messages_round_trips: (option::of(any::<u64>()), option::of(any::<u64>()), option::of(any::<u32>()))
        .prop_map(|(before, after, limit)| ListMessagesQuery { before, after, limit });
    send_message_round_trips: (os(), option::of(sealed()), os(), option::of(string_map()),
        option::of(prop_oneof![Just(ConversationIntent::New), s().prop_map(|conversation_id| ConversationIntent::Existing { conversation_id })]))
        .prop_map(|(content, sealed, client_message_id, metadata, conversation)| SendMessageRequest {
            content, sealed, client_message_id, metadata, conversation });
    find_by_metadata_round_trips: (string_map(), os(), option::of(any::<u32>()))
        .prop_map(|(metadata, stream_id, limit)| FindByMetadataRequest { metadata, stream_id, limit });
    update_message_round_trips: s().prop_map(|content| UpdateMessageRequest { content });
    list_streams_round_trips: (stream_type(), os(), os(), option::of(any::<u32>()), option::of(any::<bool>()))
        .prop_map(|(stream_type, query, after, limit, include_archived)| ListStreamsQuery { stream_type, query, after, limit, include_archived });
    update_stream_round_trips: s().prop_map(|description| UpdateStreamRequest { description });
    list_members_round_trips: (os(), option::of(any::<u32>())).prop_map(|(after, limit)| ListMembersQuery { after, limit });
    post_key_wraps_round_trips: (any::<u32>(), vec(key_wrap(), 0..3))
        .prop_map(|(g, wraps)| PostKeyWrapsRequest::from_wraps(g, &wraps));
    list_conversations_round_trips: (os(), option::of(conversation_status()), os(), option::of(any::<u32>()))
        .prop_map(|(stream_id, status, after, limit)| ListConversationsQuery { stream_id, status, after, limit });
    search_memos_round_trips: ((os(), option::of(any::<bool>()), option::of(strings()), option::of(vec(memo_type(), 0..2))),
        (option::of(vec(knowledge_type(), 0..2)), option::of(strings()), os(), os(), option::of(any::<u32>())))
        .prop_map(|((query, exact, streams, memo_type), (knowledge_type, tags, before, after, limit))| SearchMemosRequest {
            query, exact, streams, memo_type, knowledge_type, tags, before, after, limit });
    search_attachments_round_trips: (s(), option::of(strings()), option::of(vec(content_type(), 0..3)), option::of(any::<u32>()))
        .prop_map(|(query, streams, content_types, limit)| SearchAttachmentsRequest { query, streams, content_types, limit });
    assign_label_round_trips: (s(), resource_type(), s()).prop_map(|(name, resource_type, resource_id)| AssignLabelRequest {
        name, resource_type, resource_id });
    remove_label_round_trips: (s(), resource_type(), s()).prop_map(|(name, resource_type, resource_id)| RemoveLabelQuery {
        name, resource_type, resource_id });
    update_label_round_trips: (os(), os(), option::of(os()), option::of(os())).prop_map(|(name, color, emoji, description)|
        UpdateLabelRequest { name, color, emoji, description });
    presence_request_round_trips: ((runtime_kind(), s(), os(), os(), presence_status(), any::<bool>()), (json_map(), os(), os(), os(), extra_map()))
        .prop_map(|((runtime_kind, instance_id, runtime_session_id, display_name, status, accepting_invocations),
            (capabilities, status_text, public_key, public_key_id, extra))| PresenceRequest {
            runtime_kind, instance_id, runtime_session_id, display_name, status, accepting_invocations, capabilities,
            status_text, public_key, public_key_id, extra });
    create_session_round_trips: ((runtime_kind(), s(), s(), s(), os(), option::of(memory_mode())),
        (os(), os(), option::of(s().prop_map(|owner_key_id| SessionE2e { owner_key_id })), option::of(if_archived()), option::of(if_missing())))
        .prop_map(|((runtime_kind, instance_id, runtime_session_id, display_name, local_cwd, memory_mode),
            (label_name, description, e2e, if_archived, if_missing))| CreateSessionRequest {
            runtime_kind, instance_id, runtime_session_id, display_name, local_cwd, memory_mode, label_name, description, e2e,
            if_archived, if_missing });
    rename_session_round_trips: (s(), s(), s()).prop_map(|(instance_id, runtime_session_id, display_name)| RenameSessionRequest {
        instance_id, runtime_session_id, display_name });
    rebind_session_round_trips: (s(), s(), s(), s()).prop_map(|(link_id, instance_id, runtime_session_id, new_instance_id)|
        RebindSessionRequest { link_id, instance_id, runtime_session_id, new_instance_id });
    end_session_round_trips: (s(), s(), os()).prop_map(|(instance_id, runtime_session_id, except_invocation_id)| EndSessionRequest {
        instance_id, runtime_session_id, except_invocation_id });
    brief_round_trips: (s(), s(), s()).prop_map(|(instance_id, runtime_session_id, content)| BriefRequest {
        instance_id, runtime_session_id, content });
    claim_round_trips: ((runtime_kind(), s(), strings(), any::<u32>()), (os(), os(), option::of(strings()), os()))
        .prop_map(|((runtime_kind, instance_id, supported_capabilities, claim_ttl_seconds),
            (runtime_session_id, response_stream_id, exclude_response_stream_ids, invocation_id))| ClaimRequest {
            runtime_kind, instance_id, supported_capabilities, claim_ttl_seconds, runtime_session_id, response_stream_id,
            exclude_response_stream_ids, invocation_id });
    renew_request_round_trips: (s(), claim_token(), option::of(any::<u32>()), option::of(any::<u32>()), option::of(any::<u32>()))
        .prop_map(|(instance_id, claim_token, claim_ttl_seconds, known_source_revision, restart_required_revision)| RenewRequest {
            instance_id, claim_token, claim_ttl_seconds, known_source_revision, restart_required_revision });
    progress_round_trips: (s(), claim_token(), s()).prop_map(|(instance_id, claim_token, step)| ProgressRequest {
        instance_id, claim_token, step });
    step_round_trips: ((s(), claim_token(), step_type(), s()), (os(), os(), os(), option::of(any::<u64>())))
        .prop_map(|((instance_id, claim_token, step_type, content), (status_text, client_step_id, phase, duration_ms))| StepRequest {
            instance_id, claim_token, step_type, content, status_text, client_step_id, phase, duration_ms });
    invocation_message_request_round_trips: (s(), claim_token(), s(), os(), option::of(string_map()))
        .prop_map(|(instance_id, claim_token, content, client_message_id, metadata)| InvocationMessageRequest {
            instance_id, claim_token, content, client_message_id, metadata });
    sealed_step_started_round_trips: (s(), step_type(), os(), os(), option::of(envelope()))
        .prop_map(|(step_id, step_type, message_id, ciphertext, envelope)| SealedStepStartedRequest {
            step_id, step_type, message_id, ciphertext, envelope });
    sealed_step_round_trips: (s(), step_type(), sealed(), os(), option::of(any::<u64>()))
        .prop_map(|(step_id, step_type, sealed, message_id, duration_ms)| SealedStepRequest {
            step_id, step_type, sealed, message_id, duration_ms });
    sealed_message_round_trips: (s(), sealed(), option::of(strings()))
        .prop_map(|(message_id, sealed, attachment_ids)| SealedMessageRequest { message_id, sealed, attachment_ids });
    sealed_complete_round_trips: (option::of(any::<u32>()),
        option::of((s(), sealed(), option::of(strings())).prop_map(|(message_id, sealed, attachment_ids)| SealedReply {
            message_id, sealed, attachment_ids })), option::of(any::<bool>()))
        .prop_map(|(source_revision, reply, no_response)| SealedCompleteRequest { source_revision, reply, no_response });
    complete_round_trips: ((s(), claim_token(), option::of(any::<u32>()), os(), option::of(any::<bool>())),
        (os(), option::of(vec((source_type(), s(), s(), os()).prop_map(|(source_type, title, url, snippet)| CompletionSource {
            source_type, title, url, snippet }), 0..3)), option::of(json_map()),
         option::of((s(), sealed()).prop_map(|(message_id, sealed)| CompleteSealedReply { message_id, sealed }))))
        .prop_map(|((instance_id, claim_token, source_revision, final_message_markdown, no_response), (summary, sources, metadata, sealed_reply))|
            CompleteRequest { instance_id, claim_token, source_revision, final_message_markdown, no_response, summary, sources,
                metadata, sealed_reply });
    fail_round_trips: (s(), claim_token(), s()).prop_map(|(instance_id, claim_token, error_message)| FailRequest {
        instance_id, claim_token, error_message });
    list_delegations_round_trips: (option::of(delegation_status()), os()).prop_map(|(status, since)| ListDelegationsQuery { status, since });
    claim_delegation_round_trips: (s(), os()).prop_map(|(claimed_by_label, idempotency_key)| ClaimDelegationRequest {
        claimed_by_label, idempotency_key });
    delegation_status_round_trips: s().prop_map(|status_note| DelegationStatusRequest { status_note });
    complete_delegation_round_trips: (os(), option::of(string_map())).prop_map(|(result_markdown, metadata)| CompleteDelegationRequest {
        result_markdown, metadata });
    fail_delegation_round_trips: s().prop_map(|error_message| FailDelegationRequest { error_message });
    create_decision_round_trips: (s(), vec((s(), s()).prop_map(|(id, tone)| DecisionOption { id, tone }), 0..3), any::<bool>(), s(), s(), option::of(sealed()))
        .prop_map(|(decision_id, options, allow_note, runtime_session_id, invocation_id, sealed)| CreateDecisionRequest {
            decision_id, options, allow_note, runtime_session_id, invocation_id, sealed });
    webhook_post_round_trips: s().prop_map(|content| WebhookPost { content });
    compat_payload_round_trips: json_value().prop_map(CompatWebhookPayload);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn stream_versions(model in stream()) {
        versions_round_trip(&model)?;
    }

    #[test]
    fn stream_page_versions(data in vec(stream(), 0..3), has_more in any::<bool>(), cursor in os()) {
        versions_round_trip(&StreamPage { data, has_more, cursor, extra: Default::default() })?;
    }

    #[test]
    fn message_list_versions(data in vec(message(), 0..2), has_more in any::<bool>(), slots in slots()) {
        versions_round_trip(&MessageList { data, has_more, slots, extra: Default::default() })?;
    }

    #[test]
    fn message_search_versions(data in vec(search_hit(), 0..2), slots in slots()) {
        versions_round_trip(&MessageSearchResults { data, slots, extra: Default::default() })?;
    }

    #[test]
    fn messages_found_versions(data in vec(message(), 0..2), slots in slots()) {
        versions_round_trip(&MessagesFound { data, slots, extra: Default::default() })?;
    }

    #[test]
    fn message_response_versions(data in message(), conversation_id in os(), slots in slots()) {
        versions_round_trip(&MessageResponse { data, conversation_id, slots, extra: Default::default() })?;
    }

    #[test]
    fn invocation_completed_versions(invocation_id in s(), message in option::of(message()), slots in slots()) {
        versions_round_trip(&InvocationCompleted { invocation_id, message, slots, data_extra: Default::default(), extra: Default::default() })?;
    }

    #[test]
    fn delegation_completion_versions(delegation in delegation(), result_thread_id in os()) {
        versions_round_trip(&DelegationCompletion { delegation, result_thread_id })?;
    }

    #[test]
    fn bot_versions(bot in bot()) {
        versions_round_trip(&bot)?;
    }

    #[test]
    fn restricted_slots_have_no_pins(slots in slots()) {
        let old = slots.restricted_to(ApiVersion::V2026_07_24);
        for (key, value) in &old.0 {
            if let SlotKey::Shared(r) = key {
                prop_assert_eq!((r.version, r.range), (None, None));
            }
            if let SlotValue::Ok(ok) = value {
                prop_assert_eq!((ok.version, ok.current_revision, ok.range.is_none()), (None, None, true));
            }
        }
        prop_assert!(slots.restricted_to(ApiVersion::V2026_07_22).is_empty());
    }

    #[test]
    fn slot_keys_round_trip(key in slot_key()) {
        prop_assert_eq!(SlotKey::parse(&key.to_string()), key);
    }

    #[test]
    fn shared_refs_round_trip(r in shared_ref()) {
        prop_assert_eq!(SharedRef::parse(&r.to_string()).unwrap(), r);
    }

    #[test]
    fn slot_key_parsing_never_panics(text in "\\PC{0,30}") {
        let key = SlotKey::parse(&text);
        prop_assert_eq!(key.to_string(), text);
    }

    /// API §2.1's grammar `shared:<messageId>[@<version>[:<from>-<to>]]`
    /// (the id `msg_` plus a ULID, API §1; canonical `u32` decimals): keys
    /// generated from it and near misses one edit away are classified
    /// exactly as an independent regular expression of the grammar says.
    #[test]
    fn slot_keys_follow_the_grammar_exactly(
        r in shared_ref(),
        edit in 0usize..12,
        at in any::<prop::sample::Index>(),
        junk in prop_oneof![
            Just(" ".to_owned()), Just("\t".to_owned()), Just("\n".to_owned()),
            Just("@".to_owned()), Just(":".to_owned()), Just("-".to_owned()),
            Just("0".to_owned()), Just("+".to_owned()), Just("x".to_owned()),
            Just("\u{a0}".to_owned()), "\\PC".prop_map(|c| c.to_string()),
        ],
    ) {
        let valid = r.to_string();
        let mut text = valid.clone();
        let pos = |t: &str| t.char_indices().map(|(i, _)| i).chain([t.len()]).nth(at.index(t.chars().count() + 1)).unwrap_or(t.len());
        match edit {
            0 | 1 => {}                                                // the key itself
            2 => { let p = pos(&text); text.insert_str(p, &junk); }    // a character inserted
            3 => { let p = pos(&text); if p < text.len() { text.remove(p); } } // one removed
            4 => text.push_str(&junk),                                 // trailing junk
            5 => text.insert_str(0, &junk),                            // leading junk
            6 => { if let Some((from, to)) = r.range {                 // a span without a version
                text = format!("shared:{}:{from}-{to}", r.message_id);
            } else { text = format!("shared:{}:1-2", r.message_id); } }
            7 => text = text.replacen('@', "@0", 1),                   // a leading zero
            8 => text = text.to_lowercase(),
            9 => text = text.replacen("shared:", "shared:msg_", 1),
            10 => text = format!("{text}@1"),
            _ => { let p = pos(&text); if p < text.len() {             // one replaced
                let c = text[p..].chars().next().unwrap();
                text.replace_range(p..p + c.len_utf8(), &junk);
            } }
        }
        let grammar = regex::Regex::new(
            r"^shared:msg_[0-7][0-9A-HJKMNP-TV-Z]{25}(@(0|[1-9][0-9]*)(:(0|[1-9][0-9]*)-(0|[1-9][0-9]*))?)?$",
        ).unwrap();
        let in_grammar = grammar.is_match(&text) && numbers_fit_after_id(&text);
        match SharedRef::parse(&text) {
            Ok(parsed) => {
                prop_assert!(in_grammar, "accepted outside the grammar: {:?}", text);
                prop_assert_eq!(parsed.to_string(), text.clone());
                prop_assert_eq!(SlotKey::parse(&text), SlotKey::Shared(parsed));
            }
            Err(_) => {
                prop_assert!(!in_grammar, "refused inside the grammar: {:?}", text);
                prop_assert_eq!(SlotKey::parse(&text), SlotKey::Other(text.clone()));
            }
        }
        if edit < 2 {
            prop_assert_eq!(SharedRef::parse(&valid).unwrap(), r);
        }
    }

    #[test]
    fn ids_round_trip(u in ulid(), ts in 0u64..(1 << 48)) {
        let text = format!("msg_{u}");
        let id = MessageId::parse(&text).unwrap();
        prop_assert_eq!(id.to_string(), text.clone());
        prop_assert_eq!(id.ulid(), u.as_str());
        prop_assert_eq!(serde_json::from_str::<MessageId>(&serde_json::to_string(&id).unwrap()).unwrap(), id);
        prop_assert!(StreamId::parse(&text).is_err());
        prop_assert!(MessageId::parse(&text.to_lowercase()).is_err());
        let minted = DecisionId::mint(ts).unwrap();
        prop_assert_eq!(DecisionId::parse(minted.as_str()).unwrap(), minted.clone());
        prop_assert!(minted.as_str().starts_with("dreq_"));
        let step = StepId::mint(ts).unwrap();
        prop_assert_eq!(StepId::parse(step.as_str()).unwrap(), step);
        for text in [format!("msg_{u}"), format!("event_{u}"), u.clone()] {
            prop_assert_eq!(AnchorId::parse(&text).to_string(), text);
        }
    }

    #[test]
    fn id_parsing_never_panics(text in "\\PC{0,40}") {
        let _ = WorkspaceId::parse(&text);
        let _ = ConversationId::parse(&text);
        let _ = InvocationId::parse(&text);
        let _ = HookId::parse(&text);
        let _ = UserId::parse(&text);
        let _ = EventId::parse(&text);
        let _ = StepId::parse(&text);
        let _ = ClaimToken::parse(&text);
        let _ = streamseal::wire::secret::ApiKey::parse(&text);
    }

    #[test]
    fn versions_parse_strictly(text in "\\PC{0,12}") {
        match ApiVersion::parse(&text) {
            Ok(v) => prop_assert_eq!(v.as_str(), text.as_str()),
            Err(e) => prop_assert!(e.to_string().contains("2026-08-21")),
        }
    }

    #[test]
    fn errors_parse_any_body(status in 100u16..600, body in "\\PC{0,40}") {
        let e = ApiError::parse(status, &body);
        prop_assert_eq!(e.action(), ClientAction::for_status(status));
    }
}

#[test]
fn every_known_version_round_trips() {
    for v in ApiVersion::ALL {
        assert_eq!(ApiVersion::parse(v.as_str()).unwrap(), v);
        assert_eq!(
            serde_json::from_str::<ApiVersion>(&serde_json::to_string(&v).unwrap()).unwrap(),
            v
        );
    }
}
