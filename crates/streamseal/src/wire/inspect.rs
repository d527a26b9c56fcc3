//! Inspecting wire JSON: which shape a document is, which API version
//! shapes it can belong to, and every request bound it breaks. Backs the
//! CLI's `streamseal inspect`.
//!
//! ```
//! use streamseal::wire::inspect::{WireKind, inspect};
//!
//! let body = r#"{"runtimeKind":"custom","instanceId":"","supportedCapabilities":[],"claimTtlSeconds":5}"#;
//! let report = inspect(WireKind::parse("claim-request").unwrap(), body)?;
//! assert!(report.violations.contains_key("instanceId"));
//! assert!(report.violations.contains_key("claimTtlSeconds"));
//! # Ok::<(), streamseal::Error>(())
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::{Error, Result, ValidationDetails};
use crate::wire::requests::Validate;

/// What [`inspect`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inspection {
    /// The shape the document was read as.
    pub kind: WireKind,
    /// The API version shapes the document can belong to.
    pub version_shape: String,
    /// Every request bound the document breaks (empty for responses).
    pub violations: ValidationDetails,
    /// The document as the library reads it, pretty-printed.
    pub pretty: String,
}

fn read<T: DeserializeOwned>(value: &Value) -> Result<T> {
    T::deserialize(value).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

fn pretty<T: Serialize>(value: &T) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn request<T: DeserializeOwned + Serialize + Validate>(
    value: &Value,
) -> Result<(String, ValidationDetails)> {
    let parsed: T = read(value)?;
    let violations = match parsed.validate() {
        Err(Error::ValidationFailed { details }) => details,
        Err(other) => return Err(other),
        Ok(()) => ValidationDetails::new(),
    };
    Ok((pretty(&parsed), violations))
}

/// Responses come as `{data: ...}` or bare; either is read.
fn response<T: DeserializeOwned + Serialize>(value: &Value) -> Result<(String, ValidationDetails)> {
    match read::<T>(value) {
        Ok(parsed) => Ok((pretty(&parsed), ValidationDetails::new())),
        Err(first) => match value.get("data") {
            Some(inner) => read::<T>(inner).map(|p| (pretty(&p), ValidationDetails::new())),
            None => Err(first),
        },
    }
}

macro_rules! kinds {
    ($( $variant:ident => $name:literal, $how:ident, $ty:ty; )*) => {
        /// Every wire shape `inspect` knows, by a stable kebab-case name.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum WireKind {
            $(
                #[doc = concat!("`", $name, "`: [`", stringify!($ty), "`].")]
                $variant,
            )*
        }

        impl WireKind {
            /// Every kind, requests first.
            pub const ALL: &'static [WireKind] = &[$(WireKind::$variant),*];

            /// The kind's stable name.
            pub const fn name(self) -> &'static str {
                match self { $(WireKind::$variant => $name),* }
            }

            /// The kind named `name`.
            pub fn parse(name: &str) -> Option<WireKind> {
                WireKind::ALL.iter().copied().find(|k| k.name() == name)
            }

            /// Whether this is a request body (validated against the API's bounds).
            pub fn is_request(self) -> bool {
                self.name().ends_with("-request") || self.name().ends_with("-query") || self.name().starts_with("webhook")
            }

            fn read(self, value: &Value) -> Result<(String, ValidationDetails)> {
                match self { $(WireKind::$variant => $how::<$ty>(value)),* }
            }
        }
    };
}

use crate::wire::requests::{
    attachments::SearchAttachmentsRequest, bot_runtime::*, conversations::ListConversationsQuery,
    decisions::CreateDecisionRequest, delegations::*, invocation::*, labels::*,
    memos::SearchMemosRequest, messages::*, streams::*, webhooks::WebhookPost,
};

kinds! {
    SendMessage => "send-message-request", request, SendMessageRequest;
    UpdateMessage => "update-message-request", request, UpdateMessageRequest;
    SearchMessages => "search-messages-request", request, SearchMessagesRequest;
    FindByMetadata => "find-by-metadata-request", request, FindByMetadataRequest;
    ListMessages => "list-messages-query", request, ListMessagesQuery;
    ListStreams => "list-streams-query", request, ListStreamsQuery;
    ListMembers => "list-members-query", request, ListMembersQuery;
    UpdateStream => "update-stream-request", request, UpdateStreamRequest;
    PostKeyWraps => "post-key-wraps-request", request, PostKeyWrapsRequest;
    ListConversations => "list-conversations-query", request, ListConversationsQuery;
    SearchMemos => "search-memos-request", request, SearchMemosRequest;
    SearchAttachments => "search-attachments-request", request, SearchAttachmentsRequest;
    AssignLabel => "assign-label-request", request, AssignLabelRequest;
    RemoveLabel => "remove-label-query", request, RemoveLabelQuery;
    UpdateLabel => "update-label-request", request, UpdateLabelRequest;
    Presence => "presence-request", request, PresenceRequest;
    CreateSession => "create-session-request", request, CreateSessionRequest;
    RenameSession => "rename-session-request", request, RenameSessionRequest;
    RebindSession => "rebind-session-request", request, RebindSessionRequest;
    EndSession => "end-session-request", request, EndSessionRequest;
    Brief => "brief-request", request, BriefRequest;
    Claim => "claim-request", request, ClaimRequest;
    Renew => "renew-request", request, RenewRequest;
    Progress => "progress-request", request, ProgressRequest;
    Step => "step-request", request, StepRequest;
    InvocationMessage => "invocation-message-request", request, InvocationMessageRequest;
    SealedStepStarted => "sealed-step-started-request", request, SealedStepStartedRequest;
    SealedStep => "sealed-step-request", request, SealedStepRequest;
    SealedMessage => "sealed-message-request", request, SealedMessageRequest;
    SealedComplete => "sealed-complete-request", request, SealedCompleteRequest;
    Complete => "complete-request", request, CompleteRequest;
    Fail => "fail-request", request, FailRequest;
    CreateDecision => "create-decision-request", request, CreateDecisionRequest;
    ListDelegations => "list-delegations-query", request, ListDelegationsQuery;
    ClaimDelegation => "claim-delegation-request", request, ClaimDelegationRequest;
    DelegationStatus => "delegation-status-request", request, DelegationStatusRequest;
    CompleteDelegation => "complete-delegation-request", request, CompleteDelegationRequest;
    FailDelegation => "fail-delegation-request", request, FailDelegationRequest;
    Webhook => "webhook-post", request, WebhookPost;
    MessageList => "message-list", response, crate::wire::message::MessageList;
    MessageResponse => "message-response", response, crate::wire::message::MessageResponse;
    MessageSearch => "message-search-results", response, crate::wire::message::MessageSearchResults;
    Message => "message", response, crate::wire::message::Message;
    StreamPage => "stream-page", response, crate::wire::list::StreamPage;
    Stream => "stream", response, crate::wire::stream::Stream;
    MemberPage => "member-page", response, crate::wire::list::MemberPage;
    ConversationPage => "conversation-page", response, crate::wire::list::ConversationPage;
    ClaimResponse => "claim-response", response, crate::wire::invocation::ClaimResponse;
    Invocation => "invocation", response, crate::wire::invocation::Invocation;
    KeyWraps => "key-wraps", response, crate::wire::keys::KeyWraps;
    OwnKey => "own-key", response, crate::wire::keys::OwnKey;
    OwnerKey => "owner-key", response, crate::wire::keys::OwnerKey;
    PresenceResponse => "presence", response, crate::wire::presence::Presence;
    Delegation => "delegation", response, crate::wire::delegation::Delegation;
    Me => "me", response, crate::wire::me::Me;
    ErrorBody => "error-body", response, crate::wire::error_body::ErrorBody;
    RateLimitBody => "rate-limit-body", response, crate::wire::error_body::RateLimitBody;
    DecisionResolved => "decision-resolved", response, crate::wire::events::DecisionResolved;
    E2eRevoke => "e2e-revoke", response, crate::wire::events::E2eRevoke;
    SealedSteps => "sealed-steps-event", response, crate::wire::events::SealedSteps;
}

/// The version shapes a document can belong to, from the fields that differ
/// by version (section 9's changelog): `parentMessageId` is the 2026-07-12
/// stream shape and `anchorId` the later one; top-level `slots` arrived in
/// 2026-07-24, and slot keys pinning a version (`shared:<id>@<v>`) in 2026-08-21.
pub fn version_shape(value: &Value) -> String {
    let text = value.to_string();
    let slots = value.get("slots").and_then(Value::as_object);
    if let Some(slots) = slots {
        if slots.keys().any(|k| k.contains('@')) {
            return "2026-08-21".into();
        }
        return "2026-07-24 or later".into();
    }
    if text.contains("\"parentMessageId\"") {
        return "2026-07-12".into();
    }
    if text.contains("\"anchorId\"") {
        return "2026-07-22 or later".into();
    }
    "any version (no field that differs by version)".into()
}

/// Inspects `json` as `kind`. Bound violations are reported, not errors;
/// JSON that does not parse as `kind` is `MALFORMED_JSON`.
pub fn inspect(kind: WireKind, json: &str) -> Result<Inspection> {
    let value: Value = serde_json::from_str(json).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })?;
    let (pretty, violations) = kind.read(&value)?;
    let mut version_shape = version_shape(&value);
    let carries_slots = matches!(
        kind,
        WireKind::MessageList | WireKind::MessageResponse | WireKind::MessageSearch
    );
    if carries_slots && value.get("slots").is_none() {
        // Message responses carry `slots` from 2026-07-24 on.
        version_shape = "before 2026-07-24 (no slots)".into();
    }
    Ok(Inspection {
        kind,
        version_shape,
        violations,
        pretty,
    })
}

/// Inspects `json` as every kind it parses as, best match first: the kind
/// whose reading keeps the most of the document's fields unchanged ranks
/// highest (a `{data: ...}` wrapper is looked through).
pub fn detect(json: &str) -> Vec<Inspection> {
    let Ok(value) = serde_json::from_str::<Value>(json) else {
        return Vec::new();
    };
    let inner = value.get("data").unwrap_or(&value);
    let kept = |read: &Value| -> usize {
        [&value, inner]
            .iter()
            .map(|doc| match (doc.as_object(), read.as_object()) {
                (Some(doc), Some(read)) => {
                    doc.iter().filter(|(k, v)| read.get(*k) == Some(*v)).count()
                }
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    };
    let mut found: Vec<(usize, Inspection)> = WireKind::ALL
        .iter()
        .filter_map(|k| inspect(*k, json).ok())
        .map(|i| {
            let read = serde_json::from_str::<Value>(&i.pretty).unwrap_or(Value::Null);
            (kept(&read), i)
        })
        .collect();
    found.sort_by_key(|(kept, i)| (std::cmp::Reverse(*kept), !i.violations.is_empty()));
    found.into_iter().map(|(_, i)| i).collect()
}
