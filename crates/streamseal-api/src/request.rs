//! One typed request per endpoint: its path parameters, its query or body
//! (the wire request types, validated before anything is built) and its
//! per-claim credential.
//!
//! A request that comes in as JSON (every binding's `buildRequest`) is read
//! by [`EndpointRequest::from_json`]: one decoding path whose every mistake
//! is `VALIDATION_FAILED` keyed by the wire path (see
//! [`streamseal_wire::requests::decode`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::RequestBody;
use crate::catalogue::Endpoint;
use streamseal_wire::bot::BotTrait;
use streamseal_wire::error::{Error, Result};
use streamseal_wire::requests::attachments::SearchAttachmentsRequest;
use streamseal_wire::requests::bot_runtime::{
    BriefRequest, CreateSessionRequest, EndSessionRequest, PresenceRequest, RebindSessionRequest,
    RenameSessionRequest,
};
use streamseal_wire::requests::conversations::ListConversationsQuery;
use streamseal_wire::requests::decisions::CreateDecisionRequest;
use streamseal_wire::requests::decode::{self, decode_in};
use streamseal_wire::requests::delegations::{
    ClaimDelegationRequest, CompleteDelegationRequest, DelegationStatusRequest,
    FailDelegationRequest, ListDelegationsQuery,
};
use streamseal_wire::requests::invocation::{
    ClaimRequest, CompleteRequest, FailRequest, InvocationMessageRequest, ProgressRequest,
    RenewRequest, SealedCompleteRequest, SealedMessageRequest, SealedStepRequest,
    SealedStepStartedRequest, StepRequest,
};
use streamseal_wire::requests::labels::{AssignLabelRequest, RemoveLabelQuery, UpdateLabelRequest};
use streamseal_wire::requests::memos::SearchMemosRequest;
use streamseal_wire::requests::messages::{
    FindByMetadataRequest, ListMessagesQuery, SearchMessagesRequest, SendMessageRequest,
    UpdateMessageRequest,
};
use streamseal_wire::requests::streams::{
    ListMembersQuery, ListStreamsQuery, PostKeyWrapsRequest, UpdateStreamRequest,
};
use streamseal_wire::requests::webhooks::{CompatWebhookPayload, WebhookPost};
use streamseal_wire::requests::{QueryParams, Validate};
use streamseal_wire::secret::{CallbackToken, ClaimToken};
use streamseal_wire::validate::Check;

/// The file part of `POST attachments`: the app streams the bytes in a
/// `multipart/form-data` field `file`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(any(feature = "wasm", feature = "uniffi"), derive(serde::Serialize))]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct AttachmentUpload {
    /// The part's file name (non-empty).
    pub filename: String,
    /// The part's content type, e.g. `image/png` (non-empty).
    pub content_type: String,
}

/// A call of one endpoint: its path parameters and its body or query.
/// Variant names are the [`Endpoint`] names.
///
/// As JSON (the bindings' shape): `{"endpoint": "sendMessage", "streamId":
/// ..., "body": {...}}`, the endpoint id as tag and the fields in
/// camelCase. Read it with [`EndpointRequest::from_json`] (its
/// `Deserialize` reads the same shape, without the validation).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    any(feature = "wasm", feature = "uniffi"),
    derive(serde::Serialize),
    serde(
        tag = "endpoint",
        rename_all = "camelCase",
        rename_all_fields = "camelCase"
    )
)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub enum EndpointRequest {
    /// `GET /me`.
    GetMe,
    /// `GET /me/bots`.
    ListMyBots {
        /// `traits` filter.
        traits: Option<BotTrait>,
    },
    /// `GET /me/e2e-key`.
    GetOwnE2eKey,
    /// `GET /streams`.
    ListStreams {
        /// The query.
        query: ListStreamsQuery,
    },
    /// `GET /streams/{streamId}`.
    GetStream {
        /// `streamId`.
        stream_id: String,
    },
    /// `PATCH /streams/{streamId}`.
    UpdateStream {
        /// `streamId`.
        stream_id: String,
        /// The body.
        body: UpdateStreamRequest,
    },
    /// `POST /streams/{streamId}/archive`.
    ArchiveStream {
        /// `streamId`.
        stream_id: String,
    },
    /// `POST /streams/{streamId}/unarchive`.
    UnarchiveStream {
        /// `streamId`.
        stream_id: String,
    },
    /// `GET /streams/{streamId}/members`.
    ListStreamMembers {
        /// `streamId`.
        stream_id: String,
        /// The query.
        query: ListMembersQuery,
    },
    /// `GET /streams/{streamId}/e2e/key-wraps`.
    GetKeyWraps {
        /// `streamId` (the root: threads inherit its key).
        stream_id: String,
    },
    /// `POST /streams/{streamId}/e2e/key-wraps`.
    PostKeyWraps {
        /// `streamId`.
        stream_id: String,
        /// The body.
        body: PostKeyWrapsRequest,
    },
    /// `POST /messages/search`.
    SearchMessages {
        /// The body.
        body: SearchMessagesRequest,
    },
    /// `GET /streams/{streamId}/messages`.
    ListMessages {
        /// `streamId`.
        stream_id: String,
        /// The query (by sequence).
        query: ListMessagesQuery,
    },
    /// `POST /streams/{streamId}/messages`.
    SendMessage {
        /// `streamId`.
        stream_id: String,
        /// The body; set `clientMessageId` (see [`crate::paging::mint_client_message_id`])
        /// to make it safe to retry.
        body: SendMessageRequest,
    },
    /// `POST /messages/find-by-metadata`.
    FindMessagesByMetadata {
        /// The body.
        body: FindByMetadataRequest,
    },
    /// `PATCH /messages/{messageId}`.
    UpdateMessage {
        /// `messageId`.
        message_id: String,
        /// The body.
        body: UpdateMessageRequest,
    },
    /// `DELETE /messages/{messageId}`.
    DeleteMessage {
        /// `messageId`.
        message_id: String,
    },
    /// `GET /conversations`.
    ListConversations {
        /// The query.
        query: ListConversationsQuery,
    },
    /// `GET /conversations/{conversationId}`.
    GetConversation {
        /// `conversationId`.
        conversation_id: String,
    },
    /// `POST /memos/search`.
    SearchMemos {
        /// The body.
        body: SearchMemosRequest,
    },
    /// `GET /memos/{memoId}`.
    GetMemo {
        /// `memoId`.
        memo_id: String,
    },
    /// `POST /attachments` (multipart).
    UploadAttachment {
        /// The part to stream.
        upload: AttachmentUpload,
    },
    /// `POST /attachments/search`.
    SearchAttachments {
        /// The body.
        body: SearchAttachmentsRequest,
    },
    /// `GET /attachments/{attachmentId}`.
    GetAttachment {
        /// `attachmentId`.
        attachment_id: String,
    },
    /// `POST /labels/assignments`.
    AssignLabel {
        /// The body.
        body: AssignLabelRequest,
    },
    /// `DELETE /labels/assignments`.
    RemoveLabel {
        /// The query.
        query: RemoveLabelQuery,
    },
    /// `PATCH /labels/{labelId}`.
    UpdateLabel {
        /// `labelId`.
        label_id: String,
        /// The body.
        body: UpdateLabelRequest,
    },
    /// `DELETE /labels/{labelId}`.
    ArchiveLabel {
        /// `labelId`.
        label_id: String,
    },
    /// `POST /bot-runtime/presence`.
    PostPresence {
        /// The body.
        body: PresenceRequest,
    },
    /// `POST /bot-runtime/sessions`.
    CreateSession {
        /// The body.
        body: CreateSessionRequest,
    },
    /// `GET /bot-runtime/owner-e2e-key`.
    GetOwnerE2eKey,
    /// `POST /bot-runtime/sessions/rename`.
    RenameSession {
        /// The body.
        body: RenameSessionRequest,
    },
    /// `POST /bot-runtime/sessions/rebind`.
    RebindSession {
        /// The body.
        body: RebindSessionRequest,
    },
    /// `POST /bot-runtime/sessions/end`.
    EndSession {
        /// The body.
        body: EndSessionRequest,
    },
    /// `POST /bot-runtime/sessions/brief`.
    CreateBrief {
        /// The body.
        body: BriefRequest,
    },
    /// `POST /bot-invocations/claim`.
    ClaimInvocation {
        /// The body.
        body: ClaimRequest,
    },
    /// `POST /bot-invocations/{invocationId}/renew`.
    RenewInvocation {
        /// `invocationId`.
        invocation_id: String,
        /// The body (carries `instanceId` and `claimToken`).
        body: RenewRequest,
    },
    /// `POST /bot-invocations/{invocationId}/progress`.
    InvocationProgress {
        /// `invocationId`.
        invocation_id: String,
        /// The body.
        body: ProgressRequest,
    },
    /// `POST /bot-invocations/{invocationId}/steps`.
    InvocationStep {
        /// `invocationId`.
        invocation_id: String,
        /// The body.
        body: StepRequest,
    },
    /// `POST /bot-invocations/{invocationId}/messages`.
    InvocationMessage {
        /// `invocationId`.
        invocation_id: String,
        /// The body.
        body: InvocationMessageRequest,
    },
    /// `POST /bot-invocations/{invocationId}/sealed-steps/started`.
    SealedStepStarted {
        /// `invocationId`.
        invocation_id: String,
        /// The sealed context's `callbackToken`, sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken,
        /// The body.
        body: SealedStepStartedRequest,
    },
    /// `POST /bot-invocations/{invocationId}/sealed-steps`.
    SealedStep {
        /// `invocationId`.
        invocation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken,
        /// The body.
        body: SealedStepRequest,
    },
    /// `POST /bot-invocations/{invocationId}/sealed-messages`.
    SealedMessage {
        /// `invocationId`.
        invocation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken,
        /// The body (its client-minted `messageId` dedupes retries).
        body: SealedMessageRequest,
    },
    /// `POST /bot-invocations/{invocationId}/sealed-complete`.
    SealedComplete {
        /// `invocationId`.
        invocation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken,
        /// The body.
        body: SealedCompleteRequest,
    },
    /// `POST /bot-invocations/{invocationId}/complete`.
    CompleteInvocation {
        /// `invocationId`.
        invocation_id: String,
        /// The body.
        body: CompleteRequest,
    },
    /// `POST /bot-invocations/{invocationId}/fail`.
    FailInvocation {
        /// `invocationId`.
        invocation_id: String,
        /// The body.
        body: FailRequest,
    },
    /// `GET /delegations`.
    ListDelegations {
        /// The query.
        query: ListDelegationsQuery,
    },
    /// `GET /delegations/{delegationId}`.
    GetDelegation {
        /// `delegationId`.
        delegation_id: String,
    },
    /// `POST /delegations/{delegationId}/claim`.
    ClaimDelegation {
        /// `delegationId`.
        delegation_id: String,
        /// The body.
        body: ClaimDelegationRequest,
    },
    /// `POST /delegations/{delegationId}/status`.
    DelegationStatus {
        /// `delegationId`.
        delegation_id: String,
        /// The claim token, sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken,
        /// The body.
        body: DelegationStatusRequest,
    },
    /// `POST /delegations/{delegationId}/heartbeat` (no body).
    DelegationHeartbeat {
        /// `delegationId`.
        delegation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken,
    },
    /// `POST /delegations/{delegationId}/release` (no body).
    ReleaseDelegation {
        /// `delegationId`.
        delegation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken,
    },
    /// `POST /delegations/{delegationId}/complete`.
    CompleteDelegation {
        /// `delegationId`.
        delegation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken,
        /// The body.
        body: CompleteDelegationRequest,
    },
    /// `POST /delegations/{delegationId}/fail`.
    FailDelegation {
        /// `delegationId`.
        delegation_id: String,
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken,
        /// The body.
        body: FailDelegationRequest,
    },
    /// `POST /streams/{streamId}/decisions`.
    CreateDecision {
        /// `streamId`.
        stream_id: String,
        /// The body.
        body: CreateDecisionRequest,
    },
    /// `GET /decisions/{decisionId}`.
    GetDecision {
        /// `decisionId` (`dreq_...`).
        decision_id: String,
    },
    /// `POST /hooks/{hookId}/{secret}` (no API key).
    PostWebhook {
        /// `hookId`.
        hook_id: String,
        /// The URL's secret.
        secret: String,
        /// The body.
        body: WebhookPost,
    },
    /// `POST /hooks/{hookId}/{secret}/compat` (no API key).
    PostCompatWebhook {
        /// `hookId`.
        hook_id: String,
        /// The URL's secret.
        secret: String,
        /// The chat-platform payload, sent as JSON.
        body: CompatWebhookPayload,
    },
}

/// The fields of a request object, read one by one into a [`Check`]: a
/// failure is recorded under its wire path and the reading goes on, so
/// that a path parameter and the body fail together.
struct Fields {
    map: Map<String, Value>,
    check: Check,
}

impl Fields {
    /// A required path parameter, header value or other object (`upload`),
    /// keyed by its own name; paths inside it in full (`upload.filename`).
    fn param<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            Some(value) => decode_in(&mut self.check, value, name, name),
            None => {
                self.check.fail(name, "is required");
                None
            }
        }
    }

    /// An optional value (absent or `null` is `None`), keyed by its own name.
    fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => decode_in(&mut self.check, value, name, name).map(Some),
        }
    }

    /// The body or the query: its fields keyed by their path inside it, as
    /// the service names them (`wraps[0].recipientKeyId`); a failure of the
    /// document as a whole keyed by `name`.
    fn document<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            Some(value) => decode_in(&mut self.check, value, "", name),
            None => {
                self.check.fail(name, "is required");
                None
            }
        }
    }
}

/// `R::Variant { field, ... }` from the fields read by `Fields::$how`,
/// or every failure at once.
macro_rules! read {
    ($fields:ident, $variant:ident { $($field:ident: $how:ident($name:literal)),+ $(,)? }) => {{
        $( let $field = $fields.$how($name); )+
        match ($($field,)+) {
            ($(Some($field),)+) if $fields.check.is_empty() => EndpointRequest::$variant { $($field),+ },
            _ => return Err($fields.check.into_error()),
        }
    }};
}

impl EndpointRequest {
    /// Reads a request from its JSON text (`{"endpoint": "sendMessage",
    /// "streamId": ..., "body": {...}}`) and validates it. Text that is not
    /// JSON is `MALFORMED_JSON`; every other mistake is `VALIDATION_FAILED`
    /// keyed by its wire path: `endpoint` (absent or unknown), a path
    /// parameter by its name (`streamId`), a body or query field by its
    /// path inside the body or query (`wraps[0].recipientKeyId`,
    /// `claimTtlSeconds`, `conversation.intent`), as the service's 400
    /// names them. Fields that no variant has are ignored.
    ///
    /// ```
    /// use streamseal_api::EndpointRequest;
    ///
    /// let err = EndpointRequest::from_json(
    ///     r#"{"endpoint": "postKeyWraps", "streamId": 5,
    ///         "body": {"keyGeneration": -1, "wraps": [{"recipientKind": "user"}]}}"#,
    /// )
    /// .unwrap_err();
    /// let keys: Vec<&str> = err.details().unwrap().keys().map(String::as_str).collect();
    /// assert_eq!(keys, ["keyGeneration", "streamId"]);
    ///
    /// let ok = EndpointRequest::from_json(r#"{"endpoint": "getStream", "streamId": "stream_1"}"#)?;
    /// assert_eq!(ok, EndpointRequest::GetStream { stream_id: "stream_1".into() });
    /// # Ok::<(), streamseal_api::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `MALFORMED_JSON` when `json` is not JSON; `VALIDATION_FAILED` for every
    /// other failure, keyed by wire path.
    pub fn from_json(json: &str) -> Result<Self> {
        Self::from_value(decode::parse(json)?)
    }

    /// [`EndpointRequest::from_json`] of a JSON value (what the WASM
    /// binding reads a plain JS object into).
    ///
    /// # Errors
    ///
    /// `VALIDATION_FAILED` for every failure, keyed by wire path.
    pub fn from_value(value: Value) -> Result<Self> {
        let request = Self::decode(value)?;
        request.validate()?;
        Ok(request)
    }

    /// Checks every bound of the request's body or query and its other
    /// inputs, as [`crate::build_request`] does before building;
    /// every failure is `VALIDATION_FAILED` keyed by its wire path.
    ///
    /// # Errors
    ///
    /// `VALIDATION_FAILED` for every failed bound, keyed by wire path.
    pub fn validate(&self) -> Result<()> {
        self.parts().map(|_| ())
    }

    /// Reads the variant named by `endpoint` field by field (no validation).
    fn decode(value: Value) -> Result<Self> {
        use EndpointRequest as R;
        let mut check = Check::new();
        let Value::Object(mut map) = value else {
            check.fail("", "must be an object");
            return Err(check.into_error());
        };
        let endpoint = match map.remove("endpoint") {
            None | Some(Value::Null) => {
                check.fail("endpoint", "is required");
                None
            }
            Some(Value::String(id)) => {
                let endpoint = Endpoint::from_id(&id);
                if endpoint.is_none() {
                    check.fail("endpoint", "is not an endpoint of the API");
                }
                endpoint
            }
            Some(_) => {
                check.fail("endpoint", "must be a string");
                None
            }
        };
        let Some(endpoint) = endpoint else {
            return Err(check.into_error());
        };
        let mut f = Fields { map, check };
        // Exhaustive over the catalogue: a new endpoint does not compile
        // until it is read here.
        Ok(match endpoint {
            Endpoint::GetMe => R::GetMe,
            Endpoint::ListMyBots => read!(
                f,
                ListMyBots {
                    traits: optional("traits")
                }
            ),
            Endpoint::GetOwnE2eKey => R::GetOwnE2eKey,
            Endpoint::ListStreams => read!(
                f,
                ListStreams {
                    query: document("query")
                }
            ),
            Endpoint::GetStream => read!(
                f,
                GetStream {
                    stream_id: param("streamId")
                }
            ),
            Endpoint::UpdateStream => read!(
                f,
                UpdateStream {
                    stream_id: param("streamId"),
                    body: document("body"),
                }
            ),
            Endpoint::ArchiveStream => read!(
                f,
                ArchiveStream {
                    stream_id: param("streamId")
                }
            ),
            Endpoint::UnarchiveStream => read!(
                f,
                UnarchiveStream {
                    stream_id: param("streamId")
                }
            ),
            Endpoint::ListStreamMembers => read!(
                f,
                ListStreamMembers {
                    stream_id: param("streamId"),
                    query: document("query"),
                }
            ),
            Endpoint::GetKeyWraps => read!(
                f,
                GetKeyWraps {
                    stream_id: param("streamId")
                }
            ),
            Endpoint::PostKeyWraps => read!(
                f,
                PostKeyWraps {
                    stream_id: param("streamId"),
                    body: document("body"),
                }
            ),
            Endpoint::SearchMessages => read!(
                f,
                SearchMessages {
                    body: document("body")
                }
            ),
            Endpoint::ListMessages => read!(
                f,
                ListMessages {
                    stream_id: param("streamId"),
                    query: document("query"),
                }
            ),
            Endpoint::SendMessage => read!(
                f,
                SendMessage {
                    stream_id: param("streamId"),
                    body: document("body"),
                }
            ),
            Endpoint::FindMessagesByMetadata => {
                read!(
                    f,
                    FindMessagesByMetadata {
                        body: document("body")
                    }
                )
            }
            Endpoint::UpdateMessage => read!(
                f,
                UpdateMessage {
                    message_id: param("messageId"),
                    body: document("body"),
                }
            ),
            Endpoint::DeleteMessage => read!(
                f,
                DeleteMessage {
                    message_id: param("messageId")
                }
            ),
            Endpoint::ListConversations => read!(
                f,
                ListConversations {
                    query: document("query")
                }
            ),
            Endpoint::GetConversation => read!(
                f,
                GetConversation {
                    conversation_id: param("conversationId"),
                }
            ),
            Endpoint::SearchMemos => read!(
                f,
                SearchMemos {
                    body: document("body")
                }
            ),
            Endpoint::GetMemo => read!(
                f,
                GetMemo {
                    memo_id: param("memoId")
                }
            ),
            Endpoint::UploadAttachment => read!(
                f,
                UploadAttachment {
                    upload: param("upload")
                }
            ),
            Endpoint::SearchAttachments => read!(
                f,
                SearchAttachments {
                    body: document("body")
                }
            ),
            Endpoint::GetAttachment => read!(
                f,
                GetAttachment {
                    attachment_id: param("attachmentId"),
                }
            ),
            Endpoint::AssignLabel => read!(
                f,
                AssignLabel {
                    body: document("body")
                }
            ),
            Endpoint::RemoveLabel => read!(
                f,
                RemoveLabel {
                    query: document("query")
                }
            ),
            Endpoint::UpdateLabel => read!(
                f,
                UpdateLabel {
                    label_id: param("labelId"),
                    body: document("body"),
                }
            ),
            Endpoint::ArchiveLabel => read!(
                f,
                ArchiveLabel {
                    label_id: param("labelId")
                }
            ),
            Endpoint::PostPresence => read!(
                f,
                PostPresence {
                    body: document("body")
                }
            ),
            Endpoint::CreateSession => read!(
                f,
                CreateSession {
                    body: document("body")
                }
            ),
            Endpoint::GetOwnerE2eKey => R::GetOwnerE2eKey,
            Endpoint::RenameSession => read!(
                f,
                RenameSession {
                    body: document("body")
                }
            ),
            Endpoint::RebindSession => read!(
                f,
                RebindSession {
                    body: document("body")
                }
            ),
            Endpoint::EndSession => read!(
                f,
                EndSession {
                    body: document("body")
                }
            ),
            Endpoint::CreateBrief => read!(
                f,
                CreateBrief {
                    body: document("body")
                }
            ),
            Endpoint::ClaimInvocation => read!(
                f,
                ClaimInvocation {
                    body: document("body")
                }
            ),
            Endpoint::RenewInvocation => read!(
                f,
                RenewInvocation {
                    invocation_id: param("invocationId"),
                    body: document("body"),
                }
            ),
            Endpoint::InvocationProgress => read!(
                f,
                InvocationProgress {
                    invocation_id: param("invocationId"),
                    body: document("body"),
                }
            ),
            Endpoint::InvocationStep => read!(
                f,
                InvocationStep {
                    invocation_id: param("invocationId"),
                    body: document("body"),
                }
            ),
            Endpoint::InvocationMessage => read!(
                f,
                InvocationMessage {
                    invocation_id: param("invocationId"),
                    body: document("body"),
                }
            ),
            Endpoint::SealedStepStarted => read!(
                f,
                SealedStepStarted {
                    invocation_id: param("invocationId"),
                    callback_token: param("callbackToken"),
                    body: document("body"),
                }
            ),
            Endpoint::SealedStep => read!(
                f,
                SealedStep {
                    invocation_id: param("invocationId"),
                    callback_token: param("callbackToken"),
                    body: document("body"),
                }
            ),
            Endpoint::SealedMessage => read!(
                f,
                SealedMessage {
                    invocation_id: param("invocationId"),
                    callback_token: param("callbackToken"),
                    body: document("body"),
                }
            ),
            Endpoint::SealedComplete => read!(
                f,
                SealedComplete {
                    invocation_id: param("invocationId"),
                    callback_token: param("callbackToken"),
                    body: document("body"),
                }
            ),
            Endpoint::CompleteInvocation => read!(
                f,
                CompleteInvocation {
                    invocation_id: param("invocationId"),
                    body: document("body"),
                }
            ),
            Endpoint::FailInvocation => read!(
                f,
                FailInvocation {
                    invocation_id: param("invocationId"),
                    body: document("body"),
                }
            ),
            Endpoint::ListDelegations => read!(
                f,
                ListDelegations {
                    query: document("query")
                }
            ),
            Endpoint::GetDelegation => read!(
                f,
                GetDelegation {
                    delegation_id: param("delegationId"),
                }
            ),
            Endpoint::ClaimDelegation => read!(
                f,
                ClaimDelegation {
                    delegation_id: param("delegationId"),
                    body: document("body"),
                }
            ),
            Endpoint::DelegationStatus => read!(
                f,
                DelegationStatus {
                    delegation_id: param("delegationId"),
                    claim_token: param("claimToken"),
                    body: document("body"),
                }
            ),
            Endpoint::DelegationHeartbeat => read!(
                f,
                DelegationHeartbeat {
                    delegation_id: param("delegationId"),
                    claim_token: param("claimToken"),
                }
            ),
            Endpoint::ReleaseDelegation => read!(
                f,
                ReleaseDelegation {
                    delegation_id: param("delegationId"),
                    claim_token: param("claimToken"),
                }
            ),
            Endpoint::CompleteDelegation => read!(
                f,
                CompleteDelegation {
                    delegation_id: param("delegationId"),
                    claim_token: param("claimToken"),
                    body: document("body"),
                }
            ),
            Endpoint::FailDelegation => read!(
                f,
                FailDelegation {
                    delegation_id: param("delegationId"),
                    claim_token: param("claimToken"),
                    body: document("body"),
                }
            ),
            Endpoint::CreateDecision => read!(
                f,
                CreateDecision {
                    stream_id: param("streamId"),
                    body: document("body"),
                }
            ),
            Endpoint::GetDecision => read!(
                f,
                GetDecision {
                    decision_id: param("decisionId")
                }
            ),
            Endpoint::PostWebhook => read!(
                f,
                PostWebhook {
                    hook_id: param("hookId"),
                    secret: param("secret"),
                    body: document("body"),
                }
            ),
            Endpoint::PostCompatWebhook => read!(
                f,
                PostCompatWebhook {
                    hook_id: param("hookId"),
                    secret: param("secret"),
                    body: document("body"),
                }
            ),
        })
    }
}

/// Reads the shape as [`EndpointRequest::from_value`] does (without its
/// validation, like any `Deserialize`); a failure is the message of the
/// `VALIDATION_FAILED` (use `from_json` or `from_value` for its `details`).
impl<'de> serde::Deserialize<'de> for EndpointRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let value = <Value as serde::Deserialize>::deserialize(d)?;
        EndpointRequest::decode(value).map_err(serde::de::Error::custom)
    }
}

/// What the builder needs from a request.
pub(crate) struct Parts {
    pub(crate) endpoint: Endpoint,
    pub(crate) params: Vec<String>,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) body: Option<RequestBody>,
    pub(crate) callback_token: Option<String>,
}

impl Parts {
    fn new(endpoint: Endpoint, params: &[&String]) -> Self {
        Parts {
            endpoint,
            params: params.iter().map(|p| (*p).clone()).collect(),
            query: Vec::new(),
            body: None,
            callback_token: None,
        }
    }

    fn json<T: Validate + Serialize>(mut self, body: &T) -> Result<Self> {
        body.validate()?;
        let json = serde_json::to_string(body).map_err(|e| Error::MalformedJson {
            reason: e.to_string(),
        })?;
        self.body = Some(RequestBody::Json(json));
        Ok(self)
    }

    fn query<T: Validate + QueryParams>(mut self, query: &T) -> Result<Self> {
        query.validate()?;
        self.query = query
            .query_pairs()
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v))
            .collect();
        Ok(self)
    }

    fn token(mut self, token: &str) -> Self {
        self.callback_token = Some(token.to_owned());
        self
    }
}

impl EndpointRequest {
    /// The endpoint this request calls.
    pub fn endpoint(&self) -> Endpoint {
        use EndpointRequest as R;
        match self {
            R::GetMe => Endpoint::GetMe,
            R::ListMyBots { .. } => Endpoint::ListMyBots,
            R::GetOwnE2eKey => Endpoint::GetOwnE2eKey,
            R::ListStreams { .. } => Endpoint::ListStreams,
            R::GetStream { .. } => Endpoint::GetStream,
            R::UpdateStream { .. } => Endpoint::UpdateStream,
            R::ArchiveStream { .. } => Endpoint::ArchiveStream,
            R::UnarchiveStream { .. } => Endpoint::UnarchiveStream,
            R::ListStreamMembers { .. } => Endpoint::ListStreamMembers,
            R::GetKeyWraps { .. } => Endpoint::GetKeyWraps,
            R::PostKeyWraps { .. } => Endpoint::PostKeyWraps,
            R::SearchMessages { .. } => Endpoint::SearchMessages,
            R::ListMessages { .. } => Endpoint::ListMessages,
            R::SendMessage { .. } => Endpoint::SendMessage,
            R::FindMessagesByMetadata { .. } => Endpoint::FindMessagesByMetadata,
            R::UpdateMessage { .. } => Endpoint::UpdateMessage,
            R::DeleteMessage { .. } => Endpoint::DeleteMessage,
            R::ListConversations { .. } => Endpoint::ListConversations,
            R::GetConversation { .. } => Endpoint::GetConversation,
            R::SearchMemos { .. } => Endpoint::SearchMemos,
            R::GetMemo { .. } => Endpoint::GetMemo,
            R::UploadAttachment { .. } => Endpoint::UploadAttachment,
            R::SearchAttachments { .. } => Endpoint::SearchAttachments,
            R::GetAttachment { .. } => Endpoint::GetAttachment,
            R::AssignLabel { .. } => Endpoint::AssignLabel,
            R::RemoveLabel { .. } => Endpoint::RemoveLabel,
            R::UpdateLabel { .. } => Endpoint::UpdateLabel,
            R::ArchiveLabel { .. } => Endpoint::ArchiveLabel,
            R::PostPresence { .. } => Endpoint::PostPresence,
            R::CreateSession { .. } => Endpoint::CreateSession,
            R::GetOwnerE2eKey => Endpoint::GetOwnerE2eKey,
            R::RenameSession { .. } => Endpoint::RenameSession,
            R::RebindSession { .. } => Endpoint::RebindSession,
            R::EndSession { .. } => Endpoint::EndSession,
            R::CreateBrief { .. } => Endpoint::CreateBrief,
            R::ClaimInvocation { .. } => Endpoint::ClaimInvocation,
            R::RenewInvocation { .. } => Endpoint::RenewInvocation,
            R::InvocationProgress { .. } => Endpoint::InvocationProgress,
            R::InvocationStep { .. } => Endpoint::InvocationStep,
            R::InvocationMessage { .. } => Endpoint::InvocationMessage,
            R::SealedStepStarted { .. } => Endpoint::SealedStepStarted,
            R::SealedStep { .. } => Endpoint::SealedStep,
            R::SealedMessage { .. } => Endpoint::SealedMessage,
            R::SealedComplete { .. } => Endpoint::SealedComplete,
            R::CompleteInvocation { .. } => Endpoint::CompleteInvocation,
            R::FailInvocation { .. } => Endpoint::FailInvocation,
            R::ListDelegations { .. } => Endpoint::ListDelegations,
            R::GetDelegation { .. } => Endpoint::GetDelegation,
            R::ClaimDelegation { .. } => Endpoint::ClaimDelegation,
            R::DelegationStatus { .. } => Endpoint::DelegationStatus,
            R::DelegationHeartbeat { .. } => Endpoint::DelegationHeartbeat,
            R::ReleaseDelegation { .. } => Endpoint::ReleaseDelegation,
            R::CompleteDelegation { .. } => Endpoint::CompleteDelegation,
            R::FailDelegation { .. } => Endpoint::FailDelegation,
            R::CreateDecision { .. } => Endpoint::CreateDecision,
            R::GetDecision { .. } => Endpoint::GetDecision,
            R::PostWebhook { .. } => Endpoint::PostWebhook,
            R::PostCompatWebhook { .. } => Endpoint::PostCompatWebhook,
        }
    }

    /// Whether sending this request again after an unknown outcome (a
    /// timeout, a 5xx) cannot do the work twice: the endpoint is
    /// idempotent, or the request carries the field that dedupes it
    /// (`clientMessageId` on sends and invocation messages, the
    /// `idempotencyKey` of a delegation claim).
    pub fn is_retry_safe(&self) -> bool {
        match self {
            EndpointRequest::SendMessage { body, .. } => body.client_message_id.is_some(),
            EndpointRequest::InvocationMessage { body, .. } => body.client_message_id.is_some(),
            EndpointRequest::ClaimDelegation { body, .. } => body.idempotency_key.is_some(),
            other => other.endpoint().is_idempotent(),
        }
    }

    /// Validates and splits the request into what the builder needs.
    pub(crate) fn parts(&self) -> Result<Parts> {
        use EndpointRequest as R;
        let e = self.endpoint();
        let none: &[&String] = &[];
        Ok(match self {
            R::GetMe | R::GetOwnE2eKey | R::GetOwnerE2eKey => Parts::new(e, none),
            R::ListMyBots { traits } => {
                let mut p = Parts::new(e, none);
                if let Some(t) = traits {
                    let mut c = Check::new();
                    c.known("traits", t.is_known(), BotTrait::KNOWN);
                    c.finish()?;
                    p.query.push(("traits".to_owned(), t.as_str().to_owned()));
                }
                p
            }
            R::ListStreams { query } => Parts::new(e, none).query(query)?,
            R::ListMessages { stream_id, query } => Parts::new(e, &[stream_id]).query(query)?,
            R::ListStreamMembers { stream_id, query } => {
                Parts::new(e, &[stream_id]).query(query)?
            }
            R::ListConversations { query } => Parts::new(e, none).query(query)?,
            R::RemoveLabel { query } => Parts::new(e, none).query(query)?,
            R::ListDelegations { query } => Parts::new(e, none).query(query)?,
            R::GetStream { stream_id }
            | R::ArchiveStream { stream_id }
            | R::UnarchiveStream { stream_id }
            | R::GetKeyWraps { stream_id } => Parts::new(e, &[stream_id]),
            R::UpdateStream { stream_id, body } => Parts::new(e, &[stream_id]).json(body)?,
            R::PostKeyWraps { stream_id, body } => Parts::new(e, &[stream_id]).json(body)?,
            R::SearchMessages { body } => Parts::new(e, none).json(body)?,
            R::SendMessage { stream_id, body } => Parts::new(e, &[stream_id]).json(body)?,
            R::FindMessagesByMetadata { body } => Parts::new(e, none).json(body)?,
            R::UpdateMessage { message_id, body } => Parts::new(e, &[message_id]).json(body)?,
            R::DeleteMessage { message_id } => Parts::new(e, &[message_id]),
            R::GetConversation { conversation_id } => Parts::new(e, &[conversation_id]),
            R::SearchMemos { body } => Parts::new(e, none).json(body)?,
            R::GetMemo { memo_id } => Parts::new(e, &[memo_id]),
            R::UploadAttachment { upload } => {
                let mut c = Check::new();
                c.len("upload.filename", &upload.filename, 1, usize::MAX);
                c.len("upload.contentType", &upload.content_type, 1, usize::MAX);
                c.finish()?;
                let mut p = Parts::new(e, none);
                p.body = Some(RequestBody::Multipart {
                    field: "file".to_owned(),
                    filename: upload.filename.clone(),
                    content_type: upload.content_type.clone(),
                });
                p
            }
            R::SearchAttachments { body } => Parts::new(e, none).json(body)?,
            R::GetAttachment { attachment_id } => Parts::new(e, &[attachment_id]),
            R::AssignLabel { body } => Parts::new(e, none).json(body)?,
            R::UpdateLabel { label_id, body } => Parts::new(e, &[label_id]).json(body)?,
            R::ArchiveLabel { label_id } => Parts::new(e, &[label_id]),
            R::PostPresence { body } => Parts::new(e, none).json(body)?,
            R::CreateSession { body } => Parts::new(e, none).json(body)?,
            R::RenameSession { body } => Parts::new(e, none).json(body)?,
            R::RebindSession { body } => Parts::new(e, none).json(body)?,
            R::EndSession { body } => Parts::new(e, none).json(body)?,
            R::CreateBrief { body } => Parts::new(e, none).json(body)?,
            R::ClaimInvocation { body } => Parts::new(e, none).json(body)?,
            R::RenewInvocation {
                invocation_id,
                body,
            } => Parts::new(e, &[invocation_id]).json(body)?,
            R::InvocationProgress {
                invocation_id,
                body,
            } => Parts::new(e, &[invocation_id]).json(body)?,
            R::InvocationStep {
                invocation_id,
                body,
            } => Parts::new(e, &[invocation_id]).json(body)?,
            R::InvocationMessage {
                invocation_id,
                body,
            } => Parts::new(e, &[invocation_id]).json(body)?,
            R::SealedStepStarted {
                invocation_id,
                callback_token,
                body,
            } => Parts::new(e, &[invocation_id])
                .json(body)?
                .token(callback_token.expose()),
            R::SealedStep {
                invocation_id,
                callback_token,
                body,
            } => Parts::new(e, &[invocation_id])
                .json(body)?
                .token(callback_token.expose()),
            R::SealedMessage {
                invocation_id,
                callback_token,
                body,
            } => Parts::new(e, &[invocation_id])
                .json(body)?
                .token(callback_token.expose()),
            R::SealedComplete {
                invocation_id,
                callback_token,
                body,
            } => Parts::new(e, &[invocation_id])
                .json(body)?
                .token(callback_token.expose()),
            R::CompleteInvocation {
                invocation_id,
                body,
            } => Parts::new(e, &[invocation_id]).json(body)?,
            R::FailInvocation {
                invocation_id,
                body,
            } => Parts::new(e, &[invocation_id]).json(body)?,
            R::GetDelegation { delegation_id } => Parts::new(e, &[delegation_id]),
            R::ClaimDelegation {
                delegation_id,
                body,
            } => Parts::new(e, &[delegation_id]).json(body)?,
            R::DelegationStatus {
                delegation_id,
                claim_token,
                body,
            } => Parts::new(e, &[delegation_id])
                .json(body)?
                .token(claim_token.expose()),
            R::DelegationHeartbeat {
                delegation_id,
                claim_token,
            }
            | R::ReleaseDelegation {
                delegation_id,
                claim_token,
            } => Parts::new(e, &[delegation_id]).token(claim_token.expose()),
            R::CompleteDelegation {
                delegation_id,
                claim_token,
                body,
            } => Parts::new(e, &[delegation_id])
                .json(body)?
                .token(claim_token.expose()),
            R::FailDelegation {
                delegation_id,
                claim_token,
                body,
            } => Parts::new(e, &[delegation_id])
                .json(body)?
                .token(claim_token.expose()),
            R::CreateDecision { stream_id, body } => Parts::new(e, &[stream_id]).json(body)?,
            R::GetDecision { decision_id } => Parts::new(e, &[decision_id]),
            R::PostWebhook {
                hook_id,
                secret,
                body,
            } => Parts::new(e, &[hook_id, secret]).json(body)?,
            R::PostCompatWebhook {
                hook_id,
                secret,
                body,
            } => Parts::new(e, &[hook_id, secret]).json(body)?,
        })
    }
}
