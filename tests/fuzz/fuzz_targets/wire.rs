//! Decoding of every wire response type (and, while at it, every request
//! body, event and error body), dispatched on the first two bytes.
//!
//! Oracle: decode -> encode -> decode gives the same value and the encoding
//! is stable. Version-shaped types are read in the shape of each API
//! version: read(v) -> write(v) -> read(v) gives the model restricted to v.
//! Responses and events keep unknown fields (section 9.6): their encoding,
//! with unknown fields added to every struct object at every depth, decodes
//! and re-encodes to exactly the same JSON, in every version's shape too.
//! Events: `from_parts(name(e), payload(e)) == e`. Error bodies of any
//! status read without panicking, and `wire_inspect::detect` (the CLI's)
//! never panics.
#![no_main]

use std::fmt::Debug;

use libfuzzer_sys::fuzz_target;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use streamseal::wire::error_body::{ApiError, ClientAction};
use streamseal::wire::events::Event;
use streamseal::wire::requests::{
    attachments as att_req, bot_runtime as bot_req, conversations as conv_req,
    decisions as dec_req, delegations as del_req, invocation as inv_req, labels as label_req,
    memos as memo_req, messages as msg_req, streams as stream_req, webhooks as hook_req,
};
use streamseal::wire::version::ApiVersion;
use streamseal::wire::versioned::Versioned;
use streamseal::wire::{
    attachment, bot, conversation, delegation, error_body, events, invocation, keys, label, list,
    me, memo, message, presence, slots, stream,
};
use streamseal_cli::wire_inspect;
use streamseal_fuzz::{
    json_round_trip, no_key_twice, unknown_fields, unknown_fields_survive, with_unknown_fields,
};

/// Whether a type of the dispatch table keeps unknown fields: every
/// response and event does; request bodies (the `*_req` modules, where
/// `WebhookAccepted` lives too) do not, and `Slots` is a map whose values
/// are checked inside the message responses.
fn keeps_unknown_fields(what: &str) -> bool {
    !(what.contains("_req") || what.ends_with("Slots"))
}

fn plain<T: Serialize + DeserializeOwned + PartialEq + Debug>(what: &str, text: &str) {
    if let Ok(value) = serde_json::from_str::<T>(text) {
        json_round_trip(what, &value);
        if keeps_unknown_fields(what) {
            let input = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
            no_key_twice(what, &value);
            unknown_fields_survive(what, &value, &input);
        }
    }
    // The `{"data": ...}` envelope of responses.
    if let Ok(value) = streamseal::wire::parse_data::<T>(text) {
        let wrapped = streamseal::wire::to_data_json(&value);
        let back = streamseal::wire::parse_data::<T>(&wrapped)
            .unwrap_or_else(|e| panic!("{what}: its data envelope does not parse: {e}"));
        assert_eq!(back, value, "{what}: data envelope round trip");
    }
}

fn versioned<T: Versioned + PartialEq + Debug>(what: &str, text: &str) {
    plain::<T>(what, text);
    let input = serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
    for v in ApiVersion::ALL {
        let Ok(model) = T::from_version_json(v, text) else {
            continue;
        };
        let json = model.to_version_json(v);
        let back = T::from_version_json(v, &json)
            .unwrap_or_else(|e| panic!("{what} at {v}: its own shape does not read: {e}\n{json}"));
        assert_eq!(
            back,
            model.restricted_to(v),
            "{what} at {v}: read(write(x)) != x\n{json}"
        );
        assert_eq!(back.to_version_json(v), json, "{what} at {v}: not stable");
        // Unknown fields survive this version's reader and writer.
        let widened = with_unknown_fields(&back.to_version_value(v), &unknown_fields(&input));
        let read = T::from_version_value(v, widened.clone()).unwrap_or_else(|e| {
            panic!("{what} at {v}: unknown fields make it fail: {e}\n{widened}")
        });
        assert_eq!(
            read.to_version_value(v),
            widened,
            "{what} at {v}: unknown fields not written back unchanged"
        );
    }
}

const EVENT_NAMES: &[&str] = &[
    "bot_invocation:available",
    "bot:invocation:sealed-steps",
    "decision:resolved",
    "bot:e2e_revoke",
    "bot:e2e_grant",
    "other",
];

fn event(name_byte: u8, text: &str) {
    let name = EVENT_NAMES
        .get(usize::from(name_byte) % EVENT_NAMES.len())
        .copied()
        .unwrap_or("x");
    let Ok(payload) = serde_json::from_str::<Value>(text) else {
        return;
    };
    if let Ok(e) = Event::from_parts(name, payload) {
        assert_eq!(e.name(), name);
        let again = Event::from_parts(e.name(), e.payload())
            .unwrap_or_else(|err| panic!("an event's own parts do not read: {err}"));
        assert_eq!(again, e);
    }
}

macro_rules! dispatch {
    ($sel:expr, $text:expr; plain: $($p:ty),+; versioned: $($v:ty),+;) => {{
        let table: &[fn(&str)] = &[
            $(|t| plain::<$p>(stringify!($p), t),)+
            $(|t| versioned::<$v>(stringify!($v), t),)+
        ];
        if let Some(f) = table.get(usize::from($sel) % table.len()) {
            f($text);
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    // Byte 0: what to read (events, error bodies, or a type); byte 1: which.
    let [mode, which, rest @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    match mode % 8 {
        0 => event(*which, text),
        1 => {
            let status = 100 + u16::from(*which) * 2;
            let e = ApiError::parse(status, text);
            assert_eq!(e.action(), ClientAction::for_status(status));
            let _ = wire_inspect::detect(text);
        }
        _ => dispatch!(*which, text;
            plain:
                message::Message, message::MessageSearchHit, stream::StreamMember,
                list::MemberPage, list::ConversationPage, list::BotList, list::MemoSearchResults,
                list::AttachmentSearchResults, list::DelegationList, invocation::ClaimResponse,
                invocation::Invocation, invocation::RenewResult, invocation::InvocationStatusResult,
                invocation::StepRecorded, invocation::InvocationMessagePosted,
                invocation::SealedMessagePosted, invocation::SealedCompleted,
                conversation::Conversation, memo::Memo, memo::MemoWithSources, attachment::Attachment,
                label::Label, label::LabelAssigned, keys::KeyWraps, keys::KeyWrapsStored, keys::OwnKey,
                keys::OwnerKey, presence::Presence, presence::SessionLink, presence::SessionEnded,
                presence::BriefCreated, delegation::Delegation, delegation::DelegationDetail,
                delegation::DelegationClaim, delegation::DelegationHeartbeat, me::Me,
                hook_req::WebhookAccepted, error_body::ErrorBody, error_body::RateLimitBody,
                events::DecisionResolved, events::E2eRevoke, events::SealedSteps, events::HelloAck,
                slots::Slots,
                msg_req::SendMessageRequest, msg_req::UpdateMessageRequest,
                msg_req::SearchMessagesRequest, msg_req::FindByMetadataRequest,
                msg_req::ListMessagesQuery, stream_req::ListStreamsQuery,
                stream_req::UpdateStreamRequest, stream_req::ListMembersQuery,
                stream_req::PostKeyWrapsRequest, conv_req::ListConversationsQuery,
                memo_req::SearchMemosRequest, att_req::SearchAttachmentsRequest,
                label_req::AssignLabelRequest, label_req::RemoveLabelQuery,
                label_req::UpdateLabelRequest, bot_req::PresenceRequest,
                bot_req::CreateSessionRequest, bot_req::RenameSessionRequest,
                bot_req::RebindSessionRequest, bot_req::EndSessionRequest, bot_req::BriefRequest,
                inv_req::ClaimRequest, inv_req::RenewRequest, inv_req::ProgressRequest,
                inv_req::StepRequest, inv_req::InvocationMessageRequest,
                inv_req::SealedStepStartedRequest, inv_req::SealedStepRequest,
                inv_req::SealedMessageRequest, inv_req::SealedCompleteRequest,
                inv_req::CompleteRequest, inv_req::FailRequest, dec_req::CreateDecisionRequest,
                del_req::ListDelegationsQuery, del_req::ClaimDelegationRequest,
                del_req::DelegationStatusRequest, del_req::CompleteDelegationRequest,
                del_req::FailDelegationRequest, hook_req::WebhookPost, hook_req::CompatWebhookPayload;
            versioned:
                message::MessageList, message::MessageResponse, message::MessageSearchResults,
                message::MessagesFound, list::StreamPage, stream::Stream,
                invocation::InvocationCompleted, delegation::DelegationCompletion, bot::Bot;
        ),
    }
});
