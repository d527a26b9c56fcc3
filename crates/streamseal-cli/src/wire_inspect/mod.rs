//! Inspecting wire JSON: which shape a document is, which API versions'
//! shapes it can be, and every request bound it breaks. Backs
//! `streamseal inspect`; a module of the CLI crate's library, so that its
//! tests and the `wire` fuzz target use it too.
//!
//! - [`inspect`] reads a document as a named [`WireKind`].
//! - [`detect`] reads it as every kind and ranks the kinds that fit.
//!
//! Requests are validated with [`Validate::validate`]: a body that breaks
//! bounds is still read, and its violations are reported, never an error.
//! Only JSON that does not parse as the kind is an error
//! ([`Error::MalformedJson`]).
//!
//! Version shapes come from the version model of
//! [`streamseal::wire::versioned`]: a document is read and written back in every
//! known version's shape, and it is of the versions whose writing agrees
//! with it on every field where the versions' writings differ. Kinds that
//! do not implement [`Versioned`] are the same in every version (`"any"`).
//!
//! ```
//! use streamseal_cli::wire_inspect::{WireKind, detect, inspect};
//!
//! let body = r#"{"runtimeKind":"custom","instanceId":"","supportedCapabilities":[],"claimTtlSeconds":5}"#;
//! let report = inspect(WireKind::Claim, body)?;
//! assert!(report.violations.contains_key("instanceId"));
//! assert!(report.violations.contains_key("claimTtlSeconds"));
//!
//! let stream = r#"{"data":{"id":"stream_01J0000000000000000000000A","type":"thread",
//!   "displayName":"t","visibility":"private","memoryMode":"auto",
//!   "parentMessageId":"msg_01J0000000000000000000000B","createdAt":"2026-07-30T10:00:00Z"}}"#;
//! let best = &detect(stream)[0];
//! assert_eq!((best.kind.name(), best.version_shape.as_str()), ("stream", "2026-07-12"));
//! assert!(best.pretty.contains("parentMessageId")); // written back in its own shape
//! # Ok::<(), streamseal::Error>(())
//! ```

mod known;

use std::cmp::Reverse;
use std::collections::BTreeSet;
use std::fmt;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use streamseal::error::{Error, Result, ValidationDetails};
use streamseal::wire::requests::Validate;
use streamseal::wire::version::ApiVersion;
use streamseal::wire::versioned::Versioned;

/// What [`inspect`] found in a document.
///
/// `Debug` leaves out [`Inspection::pretty`]: the document may carry
/// secrets (claim and callback tokens), which this crate never prints in
/// `Debug`.
#[derive(Clone, PartialEq, Eq)]
pub struct Inspection {
    /// The shape the document was read as.
    pub kind: WireKind,
    /// The API version shapes the document can be, in words: a single
    /// version (`"2026-07-12"`), a range (`"2026-07-24 or later"`,
    /// `"2026-07-22 or earlier"`, `"2026-07-22 to 2026-07-24"`), `"any"`
    /// when no field differs by version, or `"none: ..."` when the document
    /// mixes fields of different versions. See [`Inspection::versions`].
    pub version_shape: String,
    /// The versions behind [`Inspection::version_shape`], oldest first
    /// (empty when the document mixes fields of different versions).
    pub versions: Vec<ApiVersion>,
    /// Every bound the document breaks: field to reasons, exactly as
    /// [`Validate::validate`] reports them. Empty for responses and events,
    /// which have no request bounds.
    pub violations: ValidationDetails,
    /// The document as the library reads it, re-serialised and
    /// pretty-printed (object keys sorted): the normalised model written
    /// back in the newest version shape the document can be, inside
    /// `{"data": ...}` when it came wrapped. Fields the library does not
    /// know are kept as they came (API §9.6) in a response or event;
    /// request bodies leave them out.
    pub pretty: String,
}

impl fmt::Debug for Inspection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inspection")
            .field("kind", &self.kind)
            .field("version_shape", &self.version_shape)
            .field("versions", &self.versions)
            .field("violations", &self.violations)
            .field("pretty", &format_args!("[{} bytes]", self.pretty.len()))
            .finish()
    }
}

impl Inspection {
    fn new(kind: WireKind, reading: Reading) -> Self {
        Inspection {
            kind,
            version_shape: describe_versions(&reading.versions),
            versions: reading.versions,
            violations: reading.violations,
            pretty: serde_json::to_string_pretty(&reading.value).unwrap_or_default(),
        }
    }
}

/// A document as one kind reads it.
struct Reading {
    /// The normalised model, written back as JSON.
    value: Value,
    /// The same without the unknown fields it keeps: what the kind models.
    known: Value,
    /// The versions whose shape the document has.
    versions: Vec<ApiVersion>,
    /// The request bounds it breaks.
    violations: ValidationDetails,
}

/// How a kind finds its value in a document.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The whole document: a request body, or a response whose own type
    /// has the `data` field (lists, message responses, the claim response).
    Whole,
    /// A resource that responses wrap as `{"data": ...}`; read bare too
    /// (events, error bodies and fixtures without the wrapper).
    Data,
}

fn malformed(e: &serde_json::Error) -> Error {
    Error::MalformedJson {
        reason: e.to_string(),
    }
}

fn read<T: DeserializeOwned>(value: &Value) -> Result<T> {
    T::deserialize(value).map_err(|e| malformed(&e))
}

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// [`to_value`] without the unknown fields kept in every `extra`.
fn to_known_value<T: Serialize>(value: &T) -> Value {
    known::to_value(value).unwrap_or(Value::Null)
}

/// A request body: read, then validated.
fn request<T: DeserializeOwned + Serialize + Validate>(doc: &Value) -> Result<Reading> {
    let parsed: T = read(doc)?;
    let violations = match parsed.validate() {
        Ok(()) => ValidationDetails::new(),
        Err(Error::ValidationFailed { details }) => details,
        // Every `validate` reports through `ValidationFailed`; anything else
        // is still a broken bound of the body as a whole, not a parse error.
        Err(other) => ValidationDetails::from([(String::new(), vec![other.to_string()])]),
    };
    Ok(Reading {
        value: to_value(&parsed),
        known: to_known_value(&parsed),
        versions: ApiVersion::ALL.to_vec(),
        violations,
    })
}

/// A response or event whose shape is the same in every version.
fn response<T: DeserializeOwned + Serialize>(doc: &Value) -> Result<Reading> {
    let parsed: T = read(doc)?;
    Ok(Reading {
        value: to_value(&parsed),
        known: to_known_value(&parsed),
        versions: ApiVersion::ALL.to_vec(),
        violations: ValidationDetails::new(),
    })
}

/// A response whose shape differs by version: read and written back in
/// every version's shape (see the module docs).
///
/// Every version must read it: a version's reading only renames or drops
/// that version's own fields, so a value one version cannot read is
/// malformed, whatever version the document is.
fn versioned<T: Versioned>(doc: &Value) -> Result<Reading> {
    let mut written = Vec::with_capacity(ApiVersion::ALL.len());
    for version in ApiVersion::ALL {
        let model = T::from_version_value(version, doc.clone())?;
        // As `to_version_value` writes it, without the unknown fields.
        let mut known = to_known_value(&model.restricted_to(version));
        T::downgrade_value(version, &mut known);
        written.push((version, model.to_version_value(version), known));
    }
    let mut differing = BTreeSet::new();
    for (i, (_, a, _)) in written.iter().enumerate() {
        for (_, b, _) in written.iter().skip(i + 1) {
            differences(a, b, &mut Vec::new(), &mut differing);
        }
    }
    let scored: Vec<(ApiVersion, usize, Value, Value)> = written
        .into_iter()
        .map(|(version, value, known)| {
            let misses = differing
                .iter()
                .filter(|at| !agrees(doc, &value, at))
                .count();
            (version, misses, value, known)
        })
        .collect();
    let versions = scored
        .iter()
        .filter(|(_, misses, _, _)| *misses == 0)
        .map(|(version, _, _, _)| *version)
        .collect();
    // Written in the newest of the best-fitting versions.
    let (value, known) = scored
        .into_iter()
        .min_by_key(|(version, misses, _, _)| (*misses, Reverse(*version)))
        .map(|(_, _, value, known)| (value, known))
        .unwrap_or((Value::Null, Value::Null));
    Ok(Reading {
        value,
        known,
        versions,
        violations: ValidationDetails::new(),
    })
}

/// A step of a path into a JSON value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Key(String),
    Index(usize),
}

/// Collects the paths where `a` and `b` differ: a member present in one
/// only, a scalar that differs, or arrays of different lengths.
fn differences(a: &Value, b: &Value, at: &mut Vec<Step>, out: &mut BTreeSet<Vec<Step>>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (key, p) in x {
                at.push(Step::Key(key.clone()));
                match y.get(key) {
                    Some(q) => differences(p, q, at, out),
                    None => {
                        out.insert(at.clone());
                    }
                }
                at.pop();
            }
            for key in y.keys().filter(|k| !x.contains_key(*k)) {
                at.push(Step::Key(key.clone()));
                out.insert(at.clone());
                at.pop();
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                at.push(Step::Index(i));
                differences(p, q, at, out);
                at.pop();
            }
        }
        _ => {
            if a != b {
                out.insert(at.clone());
            }
        }
    }
}

fn lookup<'a>(value: &'a Value, at: &[Step]) -> Option<&'a Value> {
    at.iter().try_fold(value, |v, step| match step {
        Step::Key(key) => v.get(key.as_str()),
        Step::Index(i) => v.get(*i),
    })
}

/// Whether `doc` and a version's writing agree at `at`: both absent (or
/// null), both objects or arrays (their differences are paths of their
/// own), or equal.
fn agrees(doc: &Value, written: &Value, at: &[Step]) -> bool {
    fn present<'a>(value: &'a Value, at: &[Step]) -> Option<&'a Value> {
        lookup(value, at).filter(|v| !v.is_null())
    }
    let container = |v: &Value| v.is_object() || v.is_array();
    match (present(doc, at), present(written, at)) {
        (None, None) => true,
        (Some(d), Some(w)) => (container(d) && container(w)) || d == w,
        _ => false,
    }
}

/// Names a set of versions (oldest first), as [`Inspection::version_shape`] says.
fn describe_versions(versions: &[ApiVersion]) -> String {
    let all = ApiVersion::ALL;
    let index = |v: &ApiVersion| all.iter().position(|a| a == v).unwrap_or(usize::MAX);
    let contiguous = versions
        .windows(2)
        .all(|w| matches!(w, [a, b] if index(a).checked_add(1) == Some(index(b))));
    match (versions.first(), versions.last()) {
        (None, _) | (_, None) => "none: the document mixes fields of different versions".into(),
        _ if versions.len() == all.len() => "any".into(),
        (Some(first), Some(last)) if first == last => first.as_str().into(),
        (Some(first), Some(last)) if contiguous => {
            if *last == ApiVersion::LATEST {
                format!("{first} or later")
            } else if all.first() == Some(first) {
                format!("{last} or earlier")
            } else {
                format!("{first} to {last}")
            }
        }
        _ => versions
            .iter()
            .map(|v| v.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    }
}

macro_rules! kinds {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, $place:ident, $reader:ident, $ty:ty; )*) => {
        /// Every wire shape [`inspect`] knows, by a stable kebab-case name
        /// ([`WireKind::name`]). Requests come first in [`WireKind::ALL`].
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum WireKind {
            $(
                $(#[$doc])*
                #[doc = concat!("\n\n`", $name, "`: [`", stringify!($ty), "`].")]
                $variant,
            )*
        }

        impl WireKind {
            /// Every kind: requests first, then responses and events.
            pub const ALL: &'static [WireKind] = &[$(WireKind::$variant),*];

            /// The kind's stable kebab-case name, e.g. `"claim-request"`.
            pub const fn name(self) -> &'static str {
                match self { $(WireKind::$variant => $name),* }
            }

            /// Whether this is a request body or query, validated against
            /// the API's bounds (requests are never version-shaped).
            pub fn is_request(self) -> bool {
                match self { $(WireKind::$variant => stringify!($reader) == "request"),* }
            }

            fn place(self) -> Place {
                match self { $(WireKind::$variant => Place::$place),* }
            }

            fn reader(self) -> fn(&Value) -> Result<Reading> {
                match self { $(WireKind::$variant => $reader::<$ty>),* }
            }
        }
    };
}

use streamseal::wire::requests::{
    attachments as att_req, bot_runtime as bot_req, conversations as conv_req,
    decisions as dec_req, delegations as del_req, invocation as inv_req, labels as label_req,
    memos as memo_req, messages as msg_req, streams as stream_req, webhooks as hook_req,
};
use streamseal::wire::{
    attachment, delegation, error_body, events, invocation, keys, label, list, me, memo, message,
    presence, stream,
};

kinds! {
    /// A message send.
    SendMessage => "send-message-request", Whole, request, msg_req::SendMessageRequest;
    /// A message edit.
    UpdateMessage => "update-message-request", Whole, request, msg_req::UpdateMessageRequest;
    /// A message search.
    SearchMessages => "search-messages-request", Whole, request, msg_req::SearchMessagesRequest;
    /// A find-by-metadata.
    FindByMetadata => "find-by-metadata-request", Whole, request, msg_req::FindByMetadataRequest;
    /// The query of a message list, as a JSON object.
    ListMessages => "list-messages-query", Whole, request, msg_req::ListMessagesQuery;
    /// The query of a stream list, as a JSON object.
    ListStreams => "list-streams-query", Whole, request, stream_req::ListStreamsQuery;
    /// A stream update.
    UpdateStream => "update-stream-request", Whole, request, stream_req::UpdateStreamRequest;
    /// The query of a member list, as a JSON object.
    ListMembers => "list-members-query", Whole, request, stream_req::ListMembersQuery;
    /// New key wraps of a sealed stream.
    PostKeyWraps => "post-key-wraps-request", Whole, request, stream_req::PostKeyWrapsRequest;
    /// The query of a conversation list, as a JSON object.
    ListConversations => "list-conversations-query", Whole, request, conv_req::ListConversationsQuery;
    /// A memo search.
    SearchMemos => "search-memos-request", Whole, request, memo_req::SearchMemosRequest;
    /// An attachment search.
    SearchAttachments => "search-attachments-request", Whole, request, att_req::SearchAttachmentsRequest;
    /// A label assignment.
    AssignLabel => "assign-label-request", Whole, request, label_req::AssignLabelRequest;
    /// The query of a label removal, as a JSON object.
    RemoveLabel => "remove-label-query", Whole, request, label_req::RemoveLabelQuery;
    /// A label update.
    UpdateLabel => "update-label-request", Whole, request, label_req::UpdateLabelRequest;
    /// A runtime's presence.
    Presence => "presence-request", Whole, request, bot_req::PresenceRequest;
    /// A runtime session creation.
    CreateSession => "create-session-request", Whole, request, bot_req::CreateSessionRequest;
    /// A runtime session rename.
    RenameSession => "rename-session-request", Whole, request, bot_req::RenameSessionRequest;
    /// A runtime session rebind.
    RebindSession => "rebind-session-request", Whole, request, bot_req::RebindSessionRequest;
    /// A runtime session end.
    EndSession => "end-session-request", Whole, request, bot_req::EndSessionRequest;
    /// A brief.
    Brief => "brief-request", Whole, request, bot_req::BriefRequest;
    /// An invocation claim.
    Claim => "claim-request", Whole, request, inv_req::ClaimRequest;
    /// A claim renewal.
    Renew => "renew-request", Whole, request, inv_req::RenewRequest;
    /// An invocation's progress.
    Progress => "progress-request", Whole, request, inv_req::ProgressRequest;
    /// An agent step.
    Step => "step-request", Whole, request, inv_req::StepRequest;
    /// A message posted by an invocation.
    InvocationMessage => "invocation-message-request", Whole, request, inv_req::InvocationMessageRequest;
    /// A sealed step's start.
    SealedStepStarted => "sealed-step-started-request", Whole, request, inv_req::SealedStepStartedRequest;
    /// A sealed step.
    SealedStep => "sealed-step-request", Whole, request, inv_req::SealedStepRequest;
    /// A sealed message posted by an invocation.
    SealedMessage => "sealed-message-request", Whole, request, inv_req::SealedMessageRequest;
    /// A sealed invocation's completion.
    SealedComplete => "sealed-complete-request", Whole, request, inv_req::SealedCompleteRequest;
    /// An invocation's completion.
    Complete => "complete-request", Whole, request, inv_req::CompleteRequest;
    /// An invocation's failure.
    Fail => "fail-request", Whole, request, inv_req::FailRequest;
    /// A decision card.
    CreateDecision => "create-decision-request", Whole, request, dec_req::CreateDecisionRequest;
    /// The query of a delegation list, as a JSON object.
    ListDelegations => "list-delegations-query", Whole, request, del_req::ListDelegationsQuery;
    /// A delegation claim.
    ClaimDelegation => "claim-delegation-request", Whole, request, del_req::ClaimDelegationRequest;
    /// A delegation's status.
    DelegationStatus => "delegation-status-request", Whole, request, del_req::DelegationStatusRequest;
    /// A delegation's completion.
    CompleteDelegation => "complete-delegation-request", Whole, request, del_req::CompleteDelegationRequest;
    /// A delegation's failure.
    FailDelegation => "fail-delegation-request", Whole, request, del_req::FailDelegationRequest;
    /// A native webhook post.
    Webhook => "webhook-post", Whole, request, hook_req::WebhookPost;
    /// A compat webhook payload: any JSON object reads as one, so
    /// [`detect`] never offers it; name it to check its size.
    CompatWebhook => "compat-webhook-payload", Whole, request, hook_req::CompatWebhookPayload;

    /// A message list page, with its slots.
    MessageList => "message-list", Whole, versioned, message::MessageList;
    /// A send or edit response, with its slots.
    MessageResponse => "message-response", Whole, versioned, message::MessageResponse;
    /// Message search results, with their slots.
    MessageSearch => "message-search-results", Whole, versioned, message::MessageSearchResults;
    /// Find-by-metadata results, with their slots.
    MessagesFound => "messages-found", Whole, versioned, message::MessagesFound;
    /// A stream page.
    StreamPage => "stream-page", Whole, versioned, list::StreamPage;
    /// A member page.
    MemberPage => "member-page", Whole, response, list::MemberPage;
    /// A conversation page.
    ConversationPage => "conversation-page", Whole, response, list::ConversationPage;
    /// The personal bots.
    BotList => "bot-list", Whole, response, list::BotList;
    /// Memo search results.
    MemoSearch => "memo-search-results", Whole, response, list::MemoSearchResults;
    /// Attachment search results.
    AttachmentSearch => "attachment-search-results", Whole, response, list::AttachmentSearchResults;
    /// Open delegations.
    DelegationList => "delegation-list", Whole, response, list::DelegationList;
    /// A claim's response: an invocation or null.
    ClaimResponse => "claim-response", Whole, response, invocation::ClaimResponse;
    /// A message.
    Message => "message", Data, response, message::Message;
    /// A stream.
    Stream => "stream", Data, versioned, stream::Stream;
    /// A conversation.
    Conversation => "conversation", Data, response, streamseal::wire::conversation::Conversation;
    /// A memo with its sources.
    Memo => "memo", Data, response, memo::MemoWithSources;
    /// An uploaded attachment.
    Attachment => "attachment", Data, response, attachment::Attachment;
    /// A label.
    Label => "label", Data, response, label::Label;
    /// A label assignment's response.
    LabelAssigned => "label-assigned", Data, response, label::LabelAssigned;
    /// A claimed invocation.
    Invocation => "invocation", Data, response, invocation::Invocation;
    /// A renewal's result.
    RenewResult => "renew-result", Data, response, invocation::RenewResult;
    /// The status of progress and fail.
    InvocationStatus => "invocation-status", Data, response, invocation::InvocationStatusResult;
    /// A recorded step.
    StepRecorded => "step-recorded", Data, response, invocation::StepRecorded;
    /// An invocation's posted message.
    InvocationMessagePosted => "invocation-message-posted", Data, response, invocation::InvocationMessagePosted;
    /// A posted sealed message.
    SealedMessagePosted => "sealed-message-posted", Data, response, invocation::SealedMessagePosted;
    /// A sealed completion.
    SealedCompleted => "sealed-completed", Data, response, invocation::SealedCompleted;
    /// A completion, with its slots.
    InvocationCompleted => "invocation-completed", Data, versioned, invocation::InvocationCompleted;
    /// A stream's key wraps.
    KeyWraps => "key-wraps", Data, response, keys::KeyWraps;
    /// Stored key wraps.
    KeyWrapsStored => "key-wraps-stored", Data, response, keys::KeyWrapsStored;
    /// The caller's own key record.
    OwnKey => "own-key", Data, response, keys::OwnKey;
    /// The owner's public key.
    OwnerKey => "owner-key", Data, response, keys::OwnerKey;
    /// A runtime's presence.
    PresenceResponse => "presence", Data, response, presence::Presence;
    /// A runtime session link.
    SessionLink => "session-link", Data, response, presence::SessionLink;
    /// An ended runtime session.
    SessionEnded => "session-ended", Data, response, presence::SessionEnded;
    /// A created brief.
    BriefCreated => "brief-created", Data, response, presence::BriefCreated;
    /// A delegation.
    Delegation => "delegation", Data, response, delegation::Delegation;
    /// A delegation with its brief.
    DelegationDetail => "delegation-detail", Data, response, delegation::DelegationDetail;
    /// A claimed delegation.
    DelegationClaim => "delegation-claim", Data, response, delegation::DelegationClaim;
    /// A completed delegation.
    DelegationCompletion => "delegation-completion", Data, versioned, delegation::DelegationCompletion;
    /// A delegation heartbeat.
    DelegationHeartbeat => "delegation-heartbeat", Data, response, delegation::DelegationHeartbeat;
    /// `GET /me`.
    Me => "me", Data, response, me::Me;
    /// A native webhook's success body.
    WebhookAccepted => "webhook-accepted", Data, response, hook_req::WebhookAccepted;
    /// An error body.
    ErrorBody => "error-body", Data, response, error_body::ErrorBody;
    /// A rate-limit error body.
    RateLimitBody => "rate-limit-body", Data, response, error_body::RateLimitBody;
    /// The `decision:resolved` event.
    DecisionResolved => "decision-resolved", Data, response, events::DecisionResolved;
    /// The `bot:e2e_revoke` event.
    E2eRevoke => "e2e-revoke", Data, response, events::E2eRevoke;
    /// The `bot:invocation:sealed-steps` event.
    SealedSteps => "sealed-steps-event", Data, response, events::SealedSteps;
    /// The socket's hello acknowledgement.
    HelloAck => "hello-ack", Data, response, events::HelloAck;
}

impl WireKind {
    /// The kind named `name` (see [`WireKind::name`]).
    pub fn parse(name: &str) -> Option<WireKind> {
        WireKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Reads `doc` as this kind.
    fn read(self, doc: &Value) -> Result<Reading> {
        let reader = self.reader();
        match (self.place(), reader(doc)) {
            (Place::Whole, read) | (Place::Data, read @ Ok(_)) => read,
            (Place::Data, Err(bare)) => match doc.get("data") {
                None => Err(bare),
                Some(inner) => reader(inner).map(|mut read| {
                    let wrap =
                        |v: Value| Value::Object([("data".to_owned(), v)].into_iter().collect());
                    read.value = wrap(read.value);
                    read.known = wrap(read.known);
                    read
                }),
            },
        }
    }
}

impl fmt::Display for WireKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Inspects `json` as `kind`: its version shape, every request bound it
/// breaks (reported, not an error) and its normalised pretty form.
///
/// A resource kind reads the document bare or as `{"data": ...}`.
///
/// # Errors
///
/// [`Error::MalformedJson`] (naming the parser's complaint) when `json` is
/// not JSON, has a key twice in one object (as the library refuses it in
/// what the service sends: `streamseal::wire::parse_value`), or does not
/// parse as `kind`.
pub fn inspect(kind: WireKind, json: &str) -> Result<Inspection> {
    let doc = streamseal::wire::parse_value(json)?;
    kind.read(&doc)
        .map(|reading| Inspection::new(kind, reading))
}

/// Inspects `json` as every kind it parses as, best match first; empty
/// when it is not JSON (a key twice in one object included) or fits no kind.
///
/// A kind fits when its reading keeps at least one of the document's
/// fields. The best fit drops the fewest of the document's fields (nested
/// ones count; a null counts as absent), then keeps the most; ties go to
/// the order of [`WireKind::ALL`], requests first. Here a field is kept
/// when the kind models it: one a response keeps only as unknown (in an
/// `extra`) counts as dropped. Kinds that read any JSON
/// (`compat-webhook-payload`) are never offered.
pub fn detect(json: &str) -> Vec<Inspection> {
    let Ok(doc) = streamseal::wire::parse_value(json) else {
        return Vec::new();
    };
    let mut found: Vec<(Rank, Inspection)> = WireKind::ALL
        .iter()
        .enumerate()
        .filter(|(_, kind)| **kind != WireKind::CompatWebhook)
        .filter_map(|(order, kind)| {
            let reading = kind.read(&doc).ok()?;
            let (kept, dropped) = coverage(&doc, &reading.known);
            (kept > 0).then(|| {
                (
                    (dropped, Reverse(kept), order),
                    Inspection::new(*kind, reading),
                )
            })
        })
        .collect();
    found.sort_by_key(|(rank, _)| *rank);
    found
        .into_iter()
        .map(|(_, inspection)| inspection)
        .collect()
}

/// A fit's rank, best lowest: fields dropped, fields kept (more is better),
/// then the kind's place in [`WireKind::ALL`].
type Rank = (usize, Reverse<usize>, usize);

/// How many of `input`'s fields (nested ones too) `output` keeps, and how
/// many it drops. A null field counts as absent.
fn coverage(input: &Value, output: &Value) -> (usize, usize) {
    fn fields(v: &Value) -> usize {
        match v {
            Value::Object(m) => m.values().map(|x| 1 + fields(x)).sum(),
            Value::Array(a) => a.iter().map(fields).sum(),
            _ => 0,
        }
    }
    fn walk(input: &Value, output: &Value, kept: &mut usize, dropped: &mut usize) {
        match (input, output) {
            (Value::Object(i), Value::Object(o)) => {
                for (key, v) in i {
                    match o.get(key) {
                        Some(w) => {
                            *kept += 1;
                            walk(v, w, kept, dropped);
                        }
                        None if v.is_null() => {}
                        None => *dropped += 1 + fields(v),
                    }
                }
            }
            (Value::Array(i), Value::Array(o)) => {
                for (v, w) in i.iter().zip(o) {
                    walk(v, w, kept, dropped);
                }
                *dropped += i.iter().skip(o.len()).map(fields).sum::<usize>();
            }
            _ => {}
        }
    }
    let (mut kept, mut dropped) = (0, 0);
    walk(input, output, &mut kept, &mut dropped);
    (kept, dropped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_version_sets() {
        use ApiVersion::*;
        assert_eq!(describe_versions(&ApiVersion::ALL), "any");
        assert_eq!(describe_versions(&[V2026_07_12]), "2026-07-12");
        assert_eq!(
            describe_versions(&[V2026_07_22, V2026_07_24, V2026_08_21]),
            "2026-07-22 or later"
        );
        assert_eq!(
            describe_versions(&[V2026_07_12, V2026_07_22]),
            "2026-07-22 or earlier"
        );
        assert_eq!(
            describe_versions(&[V2026_07_22, V2026_07_24]),
            "2026-07-22 to 2026-07-24"
        );
        assert_eq!(
            describe_versions(&[V2026_07_12, V2026_07_24]),
            "2026-07-12, 2026-07-24"
        );
        assert!(describe_versions(&[]).starts_with("none"));
    }

    #[test]
    fn a_document_mixing_versions_fits_none() {
        let both = r#"{"id":"stream_01J0000000000000000000000A","type":"thread","displayName":"t",
          "visibility":"private","memoryMode":"auto","createdAt":"2026-07-30T10:00:00Z",
          "parentMessageId":"msg_01J0000000000000000000000B","anchorId":"msg_01J0000000000000000000000B"}"#;
        let report = inspect(WireKind::Stream, both).ok();
        assert_eq!(report.map(|r| r.versions), Some(Vec::new()));
    }

    #[test]
    fn nested_fields_do_not_name_a_version() {
        // `parentMessageId` inside metadata is not the stream field.
        let msg = r#"{"id":"msg_1","streamId":"stream_1","sequence":"1","authorId":"usr_1",
          "authorType":"user","content":"x","replyCount":0,"metadata":{"parentMessageId":"y"},
          "revision":1,"createdAt":"2026-08-01T00:00:00Z"}"#;
        let report = inspect(WireKind::Message, msg).ok();
        assert_eq!(report.map(|r| r.version_shape), Some("any".to_owned()));
    }

    #[test]
    fn coverage_counts_nested_and_ignores_nulls() {
        let input = serde_json::json!({"a": {"b": 1, "c": null}, "d": [ {"e": 1} ], "f": 2});
        let output = serde_json::json!({"a": {"b": 1}, "d": [ {} ]});
        assert_eq!(coverage(&input, &output), (3, 2));
    }

    #[test]
    fn debug_leaves_the_document_out() {
        let report = inspect(
            WireKind::OwnerKey,
            r#"{"keyId":"k","publicKey":"AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA="}"#,
        )
        .ok();
        let text = format!("{report:?}");
        assert!(
            text.contains("OwnerKey") && !text.contains("AQIDBAUG"),
            "{text}"
        );
    }
}
