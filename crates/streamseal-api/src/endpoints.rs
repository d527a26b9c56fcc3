//! Every endpoint of API §4, declared once.
//!
//! Each entry below is the whole of one endpoint: its catalogue row (id,
//! family, method, path template, required scope, authentication, whether
//! a retry is safe, whether a 409 may mean an earlier attempt landed), its
//! request (path parameters, body or query, per-claim credential) and how
//! its response is read. The one `endpoints!` invocation yields from them:
//! - [`Endpoint`], [`ENDPOINTS`] and each endpoint's row (see
//!   [`crate::catalogue`] for what is asked of a row);
//! - [`EndpointRequest`], the binding-facing request enum: its variants, its
//!   endpoint, its decoding from JSON field by field and its building;
//! - the response parse of [`crate::parse_response`], into the
//!   binding-facing [`ResponseData`];
//! - one marker type per endpoint ([`typed::SendMessage`],
//!   [`typed::GetStream`], ...) and the typed [`parse_response`]: a Rust caller gets the endpoint's own
//!   response type, without matching [`ResponseData`].
//!
//! A new endpoint is one more entry (and its wire types in
//! `streamseal-wire`, when they are new; a response type no endpoint had
//! yet also needs its [`ResponseData`] variant). The `match`es the macro
//! writes are exhaustive, so nothing can be left out.
//!
//! ```
//! use streamseal_api::endpoints::{self, typed::GetConversation};
//! use streamseal_api::{build_request, Context, EndpointRequest, HttpResponse};
//! use streamseal_wire::{conversation::ConversationStatus, ids::WorkspaceId, secret::ApiKey};
//!
//! let ctx = Context::new(
//!     "https://chat.example.test",
//!     WorkspaceId::parse("ws_01J80000000000000000000001")?,
//!     Some(ApiKey::parse("svc_bk_secret")?),
//! );
//! let call = EndpointRequest::GetConversation { conversation_id: "conversation_1".into() };
//! let request = build_request(&ctx, &call)?;
//! let response = HttpResponse {
//!     status: 200,
//!     headers: vec![],
//!     body: r#"{"data":{"id":"conversation_1","streamId":"stream_1","rootStreamId":"stream_1",
//!       "topicSummary":null,"summary":null,"status":"active","messageCount":2,
//!       "participantIds":["usr_1"],"lastActivityAt":"2026-08-01T00:00:00Z",
//!       "createdAt":"2026-08-01T00:00:00Z","updatedAt":"2026-08-01T00:00:00Z"}}"#.into(),
//! };
//! // The endpoint fixes the type: a `Conversation`, not a `ResponseData` to match.
//! let parsed = endpoints::parse_response::<GetConversation>(&request, &response).unwrap();
//! assert_eq!(parsed.data.status, ConversationStatus::Active);
//! // A request built for another endpoint is refused, not misread.
//! let other = build_request(&ctx, &EndpointRequest::GetMe)?;
//! assert!(endpoints::parse_response::<GetConversation>(&other, &response).is_err());
//! # Ok::<(), streamseal_api::Error>(())
//! ```
//!
//! # Field kinds
//!
//! A request field is `name: Type = kind(...)`:
//! - `path("streamId")`: a path parameter, in the order of the path template;
//! - `body()` / `query()`: the JSON body / the query string, validated;
//! - `token("callbackToken")`: the per-claim token, sent as
//!   `X-Service-Callback-Token`;
//! - `filter("traits")`: an optional open-enum query parameter, checked
//!   against the values the library knows;
//! - `upload("upload")`: the file part of a multipart upload.
//!
//! # Response kinds
//!
//! `data V(T)`: `{"data": T}`, keys beside `data` kept; `versioned_data
//! V(T)`: the same, read in the shape of the resolved version; `whole V(T)`:
//! the whole body is a `T`; `versioned V(T)`: the whole body, by version;
//! `no_content`: nothing; `raw`: JSON the spec does not show, kept as text;
//! `plain_text`: a plain-text acknowledgement. An entry whose endpoint is
//! not idempotent but dedupes a retry by a body field ends with
//! `retry_safe_if body.<field>`: [`EndpointRequest::is_retry_safe`] is then
//! true when the request carries that field.

use crate::catalogue::{AuthKind, Family, RequiredScope, Row, Scope};
use crate::error::{MalformedResponse, ResponseError};
use crate::request::{AttachmentUpload, Fields, Parts};
use crate::response::{
    DataJson, data, data_json, raw, raw_json, versioned_data, versioned_data_json, versioned_json,
    whole, whole_body, whole_json,
};
use crate::{HttpMethod, HttpRequest, HttpResponse, RequestBody, ResponseData};
use streamseal_wire::attachment::Attachment;
use streamseal_wire::bot::BotTrait;
use streamseal_wire::conversation::Conversation;
use streamseal_wire::delegation::{
    Delegation, DelegationClaim, DelegationCompletion, DelegationDetail, DelegationHeartbeat,
};
use streamseal_wire::error::{Error, Result};
use streamseal_wire::error_body::RateLimitHeaders;
use streamseal_wire::invocation::{
    ClaimResponse, InvocationCompleted, InvocationMessagePosted, InvocationStatusResult,
    RenewResult, SealedCompleted, SealedMessagePosted, StepRecorded,
};
use streamseal_wire::keys::{KeyWraps, KeyWrapsStored, OwnKey, OwnerKey};
use streamseal_wire::label::{Label, LabelAssigned};
use streamseal_wire::list::{
    AttachmentSearchResults, BotList, ConversationPage, DelegationList, MemberPage,
    MemoSearchResults, StreamPage,
};
use streamseal_wire::me::Me;
use streamseal_wire::memo::MemoWithSources;
use streamseal_wire::message::{MessageList, MessageResponse, MessageSearchResults, MessagesFound};
use streamseal_wire::presence::{BriefCreated, Presence, SessionEnded, SessionLink};
use streamseal_wire::requests::attachments::SearchAttachmentsRequest;
use streamseal_wire::requests::bot_runtime::{
    BriefRequest, CreateSessionRequest, EndSessionRequest, PresenceRequest, RebindSessionRequest,
    RenameSessionRequest,
};
use streamseal_wire::requests::conversations::ListConversationsQuery;
use streamseal_wire::requests::decisions::CreateDecisionRequest;
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
use streamseal_wire::requests::webhooks::{CompatWebhookPayload, WebhookAccepted, WebhookPost};
use streamseal_wire::secret::{CallbackToken, ClaimToken};
use streamseal_wire::stream::Stream;
use streamseal_wire::validate::Check;
use streamseal_wire::version::{ApiVersion, ServiceVersion};
use streamseal_wire::versioned::Versioned;
use streamseal_wire::{Extra, ts_decl};

use AuthKind::{Bearer, BearerAndCallbackHeader, BearerAndClaimInBody, SecretUrl};
use RequiredScope::{AnyKey, NoKey, NotShown};

/// `RequiredScope::Scope`, short for the table.
const fn s(scope: Scope) -> RequiredScope {
    RequiredScope::Scope(scope)
}

/// One endpoint's response type, fixed by the endpoint: what the typed
/// [`parse_response`] returns for it.
pub trait EndpointSpec {
    /// The endpoint.
    const ENDPOINT: Endpoint;
    /// What a success response of it holds.
    type Response;
    /// Its response out of the binding-facing enum (`None` for a variant
    /// of another endpoint, which [`parse_response`] never gives it).
    fn from_data(data: ResponseData) -> Option<Self::Response>;
}

/// A success response of one endpoint, typed by it.
#[derive(Clone, Debug, PartialEq)]
pub struct Typed<T> {
    /// What the response holds.
    pub data: T,
    /// The HTTP status (2xx).
    pub status: u16,
    /// `Service-Version` as echoed by the server, when present.
    pub version: Option<ServiceVersion>,
    /// The version whose shape `data` was read in.
    pub shape: ApiVersion,
    /// The `RateLimit-*` figures.
    pub rate_limit: RateLimitHeaders,
    /// Keys beside `data` the library does not know, kept (API §9.6).
    pub extra: Extra,
}

/// [`crate::parse_response`] for one endpoint fixed by its type: the data is
/// `E`'s own response type.
///
/// # Errors
///
/// As [`crate::parse_response`]: `ResponseError::Api` for an error status,
/// `ResponseError::Malformed` for a body that is not `E`'s response; a
/// request built for another endpoint is `Malformed` with `INVALID_FIELD`.
pub fn parse_response<E: EndpointSpec>(
    request: &HttpRequest,
    response: &HttpResponse,
) -> std::result::Result<Typed<E::Response>, ResponseError> {
    if request.endpoint != E::ENDPOINT {
        return Err(ResponseError::Malformed(Box::new(MalformedResponse {
            endpoint: request.endpoint,
            status: response.status,
            version: ServiceVersion::from_response_headers(response.header_pairs()),
            shape: request.service_version.unwrap_or(ApiVersion::LATEST),
            rate_limit: RateLimitHeaders::from_headers(response.header_pairs()),
            error: Error::invalid("endpoint", "the request was built for another endpoint"),
        })));
    }
    let parsed = crate::parse_response(request, response)?;
    match E::from_data(parsed.data) {
        Some(data) => Ok(Typed {
            data,
            status: parsed.status,
            version: parsed.version,
            shape: parsed.shape,
            rate_limit: parsed.rate_limit,
            extra: parsed.extra,
        }),
        // The declaration that parsed it also extracts it: never reached.
        None => Err(ResponseError::Malformed(Box::new(MalformedResponse {
            endpoint: parsed.endpoint,
            status: parsed.status,
            version: parsed.version,
            shape: parsed.shape,
            rate_limit: parsed.rate_limit,
            error: Error::MalformedJson {
                reason: "the response is not this endpoint's".to_owned(),
            },
        }))),
    }
}

/// A request field's value from the JSON request, by its kind.
macro_rules! decode_field {
    ($f:ident, path($name:literal)) => {
        $f.param($name)
    };
    ($f:ident, token($name:literal)) => {
        $f.param($name)
    };
    ($f:ident, upload($name:literal)) => {
        $f.param($name)
    };
    ($f:ident, filter($name:literal)) => {
        $f.optional($name)
    };
    ($f:ident, body()) => {
        $f.document("body")
    };
    ($f:ident, query()) => {
        $f.document("query")
    };
}

/// A request field's part of what the builder needs, by its kind.
macro_rules! build_field {
    ($p:ident, $v:ident: $fty:ty = path($name:literal)) => {
        $p = $p.param($name, $v)?
    };
    ($p:ident, $v:ident: $fty:ty = token($name:literal)) => {
        $p = $p.token($name, $v.expose())?
    };
    ($p:ident, $v:ident: $fty:ty = body()) => {
        $p = $p.json($v)?
    };
    ($p:ident, $v:ident: $fty:ty = query()) => {
        $p = $p.query($v)?
    };
    ($p:ident, $v:ident: $fty:ty = filter($name:literal)) => {
        if let Some(value) = $v {
            let mut c = Check::new();
            c.known($name, value.is_known(), known_values(value));
            c.finish()?;
            $p.query.push(($name.to_owned(), value.as_str().to_owned()));
        }
    };
    ($p:ident, $v:ident: $fty:ty = upload($name:literal)) => {{
        let mut c = Check::new();
        c.len(concat!($name, ".filename"), &$v.filename, 1, usize::MAX);
        c.len(
            concat!($name, ".contentType"),
            &$v.content_type,
            1,
            usize::MAX,
        );
        c.finish()?;
        $p.body = Some(RequestBody::Multipart {
            field: "file".to_owned(),
            filename: $v.filename.clone(),
            content_type: $v.content_type.clone(),
        });
    }};
}

/// A variant read field by field, or every failure at once.
macro_rules! decode_variant {
    ($f:ident, $name:ident) => {
        EndpointRequest::$name
    };
    ($f:ident, $name:ident { $($field:ident = $kind:ident($($karg:literal)?)),+ }) => {{
        $( let $field = decode_field!($f, $kind($($karg)?)); )+
        match ($($field,)+) {
            ($(Some($field),)+) if $f.check.is_empty() => EndpointRequest::$name { $($field),+ },
            _ => return Err(std::mem::take(&mut $f.check).into_error()),
        }
    }};
}

/// How a response body becomes [`ResponseData`], by its kind.
macro_rules! parse_body {
    ($body:ident, $v:ident, data, $variant:ident, $rty:ty) => {
        kept(ResponseData::$variant, data($body)?)
    };
    ($body:ident, $v:ident, versioned_data, $variant:ident, $rty:ty) => {
        kept(ResponseData::$variant, versioned_data($v, $body)?)
    };
    ($body:ident, $v:ident, whole, $variant:ident, $rty:ty) => {
        whole(ResponseData::$variant(whole_body($body)?))
    };
    ($body:ident, $v:ident, versioned, $variant:ident, $rty:ty) => {
        whole(ResponseData::$variant(<$rty>::from_version_json(
            $v, $body,
        )?))
    };
    ($body:ident, $v:ident, no_content) => {
        whole(ResponseData::NoContent)
    };
    ($body:ident, $v:ident, raw) => {
        raw($body)?
    };
    ($body:ident, $v:ident, plain_text) => {
        whole(ResponseData::CompatWebhookAccepted)
    };
}

macro_rules! read_body {
    ($body:ident, $v:ident, data, $variant:ident, $rty:ty) => {
        data_json::<$rty>(stringify!($variant), $body)?
    };
    ($body:ident, $v:ident, versioned_data, $variant:ident, $rty:ty) => {
        versioned_data_json::<$rty>(stringify!($variant), $v, $body)?
    };
    ($body:ident, $v:ident, whole, $variant:ident, $rty:ty) => {
        whole_json::<$rty>(stringify!($variant), $body)?
    };
    ($body:ident, $v:ident, versioned, $variant:ident, $rty:ty) => {
        versioned_json::<$rty>(stringify!($variant), $v, $body)?
    };
    ($body:ident, $v:ident, no_content) => {
        (DataJson::none("NoContent"), Extra::new())
    };
    ($body:ident, $v:ident, raw) => {
        raw_json($body)?
    };
    ($body:ident, $v:ident, plain_text) => {
        (DataJson::none("CompatWebhookAccepted"), Extra::new())
    };
}

/// An endpoint's typed response: its type and how it comes out of
/// [`ResponseData`], by the response's kind.
macro_rules! typed_response {
    ($how:ident, $variant:ident, $rty:ty) => {
        type Response = $rty;
        fn from_data(data: ResponseData) -> Option<$rty> {
            match data {
                ResponseData::$variant(value) => Some(value),
                _ => None,
            }
        }
    };
    (no_content) => {
        type Response = ();
        fn from_data(data: ResponseData) -> Option<()> {
            matches!(data, ResponseData::NoContent).then_some(())
        }
    };
    (plain_text) => {
        type Response = ();
        fn from_data(data: ResponseData) -> Option<()> {
            matches!(data, ResponseData::CompatWebhookAccepted).then_some(())
        }
    };
    // JSON the spec does not show, as text; `None` for an empty body.
    (raw) => {
        type Response = Option<String>;
        fn from_data(data: ResponseData) -> Option<Option<String>> {
            match data {
                ResponseData::Raw(text) => Some(Some(text)),
                ResponseData::NoContent => Some(None),
                _ => None,
            }
        }
    };
}

/// An open-enum query value that a `filter(...)` field takes.
trait FilterValue {
    /// The values this library knows.
    const KNOWN: &'static [&'static str];
}

impl FilterValue for BotTrait {
    const KNOWN: &'static [&'static str] = BotTrait::KNOWN;
}

/// The values the library knows of `value`'s type.
fn known_values<T: FilterValue>(_value: &T) -> &'static [&'static str] {
    T::KNOWN
}

/// The response's data and the keys kept beside it.
fn kept<T>(variant: fn(T) -> ResponseData, (data, extra): (T, Extra)) -> (ResponseData, Extra) {
    (variant(data), extra)
}

macro_rules! endpoints {
    ($(
        $(#[$doc:meta])*
        $name:ident($id:literal, $family:ident, $method:ident, $path:literal, $scope:expr,
            $auth:ident, $idem:literal, $landed:literal)
        $({ $($(#[$fdoc:meta])* $field:ident: $fty:ty = $kind:ident($($karg:literal)?)),+ $(,)? })?
        => $how:ident $($variant:ident($rty:ty))? $(, retry_safe_if $dedupe:ident.$dedupe_field:ident)?;
    )+) => {
        /// Every endpoint of API §4.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Endpoint {
            $($(#[$doc])* $name,)+
        }

        // TypeScript (feature `wasm`): an endpoint crosses as its id.
        ts_decl!(concat!("export type Endpoint = ", $( "\"", $id, "\" | ", )+ "never;"));

        /// The whole catalogue, in the order of API §4.
        pub const ENDPOINTS: &[Endpoint] = &[$(Endpoint::$name),+];

        impl Endpoint {
            /// The endpoint's catalogue row.
            pub(crate) fn row(self) -> Row {
                match self {
                    $(Endpoint::$name => Row {
                        id: $id,
                        family: Family::$family,
                        method: HttpMethod::$method,
                        path: $path,
                        scope: $scope,
                        auth: $auth,
                        idempotent: $idem,
                        conflict_may_mean_landed: $landed,
                    },)+
                }
            }
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
            $(
                $(#[$doc])*
                $name $({ $($(#[$fdoc])* $field: $fty,)+ })?,
            )+
        }

        impl EndpointRequest {
            /// The endpoint this request calls.
            pub fn endpoint(&self) -> Endpoint {
                match self {
                    $(EndpointRequest::$name $({ $($field: _,)+ })? => Endpoint::$name,)+
                }
            }

            /// Whether sending this request again after an unknown outcome (a
            /// timeout, a 5xx) cannot do the work twice: the endpoint is
            /// idempotent, or the request carries the field its entry names
            /// with `retry_safe_if` (`clientMessageId` on sends and invocation
            /// messages, the `idempotencyKey` of a delegation claim).
            pub fn is_retry_safe(&self) -> bool {
                match self {
                    $($(EndpointRequest::$name { $dedupe, .. } => $dedupe.$dedupe_field.is_some(),)?)+
                    other => other.endpoint().is_idempotent(),
                }
            }

            /// Reads the fields of `endpoint`'s variant (no validation).
            pub(crate) fn decode_fields(endpoint: Endpoint, f: &mut Fields) -> Result<Self> {
                Ok(match endpoint {
                    $(Endpoint::$name => decode_variant!(f, $name $({ $($field = $kind($($karg)?)),+ })?),)+
                })
            }

            /// Validates and splits the request into what the builder needs.
            pub(crate) fn parts(&self) -> Result<Parts> {
                Ok(match self {
                    $(EndpointRequest::$name $({ $($field,)+ })? => {
                        #[allow(unused_mut)]
                        let mut p = Parts::new(Endpoint::$name);
                        $($( build_field!(p, $field: $fty = $kind($($karg)?)); )+)?
                        p
                    })+
                })
            }
        }

        /// The body of a success response of `endpoint`, read in the shape
        /// of version `v`, and the keys kept beside its `data`.
        pub(crate) fn parse_data_for(
            endpoint: Endpoint,
            response: &HttpResponse,
            v: ApiVersion,
        ) -> Result<(ResponseData, Extra)> {
            let body = response.body.as_str();
            Ok(match endpoint {
                $(Endpoint::$name => parse_body!(body, v, $how $(, $variant, $rty)?),)+
            })
        }

        /// [`parse_data_for`] through the result type's shape table
        /// ([`crate::parse_response_json`]).
        pub(crate) fn read_data_for(
            endpoint: Endpoint,
            response: &HttpResponse,
            v: ApiVersion,
        ) -> Result<(DataJson, Extra)> {
            let body = response.body.as_str();
            Ok(match endpoint {
                $(Endpoint::$name => read_body!(body, v, $how $(, $variant, $rty)?),)+
            })
        }

        /// One marker type per endpoint, named as its [`Endpoint`] variant:
        /// the type parameter of the typed [`parse_response`](super::parse_response).
        pub mod typed {
            $(
                $(#[$doc])*
                ///
                /// The marker type of the typed [`parse_response`](super::parse_response).
                #[derive(Clone, Copy, Debug, PartialEq, Eq)]
                pub struct $name;
            )+
        }

        $(
            impl EndpointSpec for typed::$name {
                const ENDPOINT: Endpoint = Endpoint::$name;
                typed_response!($how $(, $variant, $rty)?);
            }
        )+
    };
}

endpoints! {
    // ---- API §4.1, Identity
    /// `GET /me`.
    GetMe("getMe", Identity, Get, "/me", AnyKey, Bearer, true, false) => data Me(Me);
    /// `GET /me/bots`.
    ListMyBots("listMyBots", Identity, Get, "/me/bots", AnyKey, Bearer, true, false) {
        /// `traits` filter.
        traits: Option<BotTrait> = filter("traits"),
    } => whole Bots(BotList);
    /// `GET /me/e2e-key`.
    GetOwnE2eKey("getOwnE2eKey", Identity, Get, "/me/e2e-key", AnyKey, Bearer, true, false) => data OwnKey(OwnKey);

    // ---- API §4.2, Streams
    /// `GET /streams`.
    ListStreams("listStreams", Streams, Get, "/streams", s(Scope::StreamsRead), Bearer, true, false) {
        /// The query.
        query: ListStreamsQuery = query(),
    } => versioned Streams(StreamPage);
    /// `GET /streams/{streamId}`.
    GetStream("getStream", Streams, Get, "/streams/{streamId}", s(Scope::StreamsRead), Bearer, true, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
    } => versioned_data Stream(Stream);
    /// `PATCH /streams/{streamId}`.
    UpdateStream("updateStream", Streams, Patch, "/streams/{streamId}", s(Scope::StreamsWrite), Bearer, true, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
        /// The body.
        body: UpdateStreamRequest = body(),
    } => versioned_data Stream(Stream);
    /// `POST /streams/{streamId}/archive`.
    ArchiveStream("archiveStream", Streams, Post, "/streams/{streamId}/archive", s(Scope::StreamsWrite), Bearer, true, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
    } => versioned_data Stream(Stream);
    /// `POST /streams/{streamId}/unarchive`.
    UnarchiveStream("unarchiveStream", Streams, Post, "/streams/{streamId}/unarchive", s(Scope::StreamsWrite), Bearer, true, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
    } => versioned_data Stream(Stream);
    /// `GET /streams/{streamId}/members`.
    ListStreamMembers("listStreamMembers", Streams, Get, "/streams/{streamId}/members", s(Scope::StreamsRead), Bearer, true, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
        /// The query.
        query: ListMembersQuery = query(),
    } => whole Members(MemberPage);
    /// `GET /streams/{streamId}/e2e/key-wraps`.
    GetKeyWraps("getKeyWraps", Streams, Get, "/streams/{streamId}/e2e/key-wraps", s(Scope::StreamsRead), Bearer, true, false) {
        /// `streamId` (the root: threads inherit its key).
        stream_id: String = path("streamId"),
    } => data KeyWraps(KeyWraps);
    /// `POST /streams/{streamId}/e2e/key-wraps`: a 409 means an earlier attempt landed.
    PostKeyWraps("postKeyWraps", Streams, Post, "/streams/{streamId}/e2e/key-wraps", s(Scope::BotRuntimeWrite), Bearer, false, true) {
        /// `streamId`.
        stream_id: String = path("streamId"),
        /// The body.
        body: PostKeyWrapsRequest = body(),
    } => data KeyWrapsStored(KeyWrapsStored);

    // ---- API §4.3, Messages
    /// `POST /messages/search`.
    SearchMessages("searchMessages", Messages, Post, "/messages/search", s(Scope::MessagesSearch), Bearer, true, false) {
        /// The body.
        body: SearchMessagesRequest = body(),
    } => versioned MessageSearch(MessageSearchResults);
    /// `GET /streams/{streamId}/messages`.
    ListMessages("listMessages", Messages, Get, "/streams/{streamId}/messages", s(Scope::MessagesRead), Bearer, true, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
        /// The query (by sequence).
        query: ListMessagesQuery = query(),
    } => versioned Messages(MessageList);
    /// `POST /streams/{streamId}/messages`: idempotent with a `clientMessageId`.
    SendMessage("sendMessage", Messages, Post, "/streams/{streamId}/messages", s(Scope::MessagesWrite), Bearer, false, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
        /// The body; set `clientMessageId` (see [`crate::paging::mint_client_message_id`])
        /// to make it safe to retry.
        body: SendMessageRequest = body(),
    } => versioned Message(MessageResponse), retry_safe_if body.client_message_id;
    /// `POST /messages/find-by-metadata`.
    FindMessagesByMetadata("findMessagesByMetadata", Messages, Post, "/messages/find-by-metadata", s(Scope::MessagesRead), Bearer, true, false) {
        /// The body.
        body: FindByMetadataRequest = body(),
    } => versioned MessagesFound(MessagesFound);
    /// `PATCH /messages/{messageId}`.
    UpdateMessage("updateMessage", Messages, Patch, "/messages/{messageId}", s(Scope::MessagesWrite), Bearer, true, false) {
        /// `messageId`.
        message_id: String = path("messageId"),
        /// The body.
        body: UpdateMessageRequest = body(),
    } => versioned Message(MessageResponse);
    /// `DELETE /messages/{messageId}`.
    DeleteMessage("deleteMessage", Messages, Delete, "/messages/{messageId}", s(Scope::MessagesWrite), Bearer, true, false) {
        /// `messageId`.
        message_id: String = path("messageId"),
    } => no_content;

    // ---- API §4.4, Conversations
    /// `GET /conversations`.
    ListConversations("listConversations", Conversations, Get, "/conversations", s(Scope::MessagesRead), Bearer, true, false) {
        /// The query.
        query: ListConversationsQuery = query(),
    } => whole Conversations(ConversationPage);
    /// `GET /conversations/{conversationId}`.
    GetConversation("getConversation", Conversations, Get, "/conversations/{conversationId}", s(Scope::MessagesRead), Bearer, true, false) {
        /// `conversationId`.
        conversation_id: String = path("conversationId"),
    } => data Conversation(Conversation);

    // ---- API §4.5, Memos
    /// `POST /memos/search`.
    SearchMemos("searchMemos", Memos, Post, "/memos/search", s(Scope::MemosRead), Bearer, true, false) {
        /// The body.
        body: SearchMemosRequest = body(),
    } => whole Memos(MemoSearchResults);
    /// `GET /memos/{memoId}`.
    GetMemo("getMemo", Memos, Get, "/memos/{memoId}", s(Scope::MemosRead), Bearer, true, false) {
        /// `memoId`.
        memo_id: String = path("memoId"),
    } => data Memo(MemoWithSources);

    // ---- API §4.6, Attachments
    /// `POST /attachments` (multipart).
    UploadAttachment("uploadAttachment", Attachments, Post, "/attachments", s(Scope::AttachmentsWrite), Bearer, false, false) {
        /// The part to stream.
        upload: AttachmentUpload = upload("upload"),
    } => data Attachment(Attachment);
    /// `POST /attachments/search`.
    SearchAttachments("searchAttachments", Attachments, Post, "/attachments/search", s(Scope::AttachmentsRead), Bearer, true, false) {
        /// The body.
        body: SearchAttachmentsRequest = body(),
    } => whole AttachmentSearch(AttachmentSearchResults);
    /// `GET /attachments/{attachmentId}`.
    GetAttachment("getAttachment", Attachments, Get, "/attachments/{attachmentId}", s(Scope::AttachmentsRead), Bearer, true, false) {
        /// `attachmentId`.
        attachment_id: String = path("attachmentId"),
    } => raw;

    // ---- API §4.7, Labels
    /// `POST /labels/assignments`.
    AssignLabel("assignLabel", Labels, Post, "/labels/assignments", s(Scope::LabelsWrite), Bearer, false, false) {
        /// The body.
        body: AssignLabelRequest = body(),
    } => data LabelAssigned(LabelAssigned);
    /// `DELETE /labels/assignments`.
    RemoveLabel("removeLabel", Labels, Delete, "/labels/assignments", s(Scope::LabelsWrite), Bearer, true, false) {
        /// The query.
        query: RemoveLabelQuery = query(),
    } => no_content;
    /// `PATCH /labels/{labelId}`.
    UpdateLabel("updateLabel", Labels, Patch, "/labels/{labelId}", s(Scope::LabelsWrite), Bearer, true, false) {
        /// `labelId`.
        label_id: String = path("labelId"),
        /// The body.
        body: UpdateLabelRequest = body(),
    } => data Label(Label);
    /// `DELETE /labels/{labelId}`.
    ArchiveLabel("archiveLabel", Labels, Delete, "/labels/{labelId}", s(Scope::LabelsWrite), Bearer, true, false) {
        /// `labelId`.
        label_id: String = path("labelId"),
    } => no_content;

    // ---- API §4.9, BotRuntime
    /// `POST /bot-runtime/presence`: the complete state, so repeating it is safe.
    PostPresence("postPresence", BotRuntime, Post, "/bot-runtime/presence", s(Scope::BotRuntimeWrite), Bearer, true, false) {
        /// The body.
        body: PresenceRequest = body(),
    } => data Presence(Presence);
    /// `POST /bot-runtime/sessions`.
    CreateSession("createSession", BotRuntime, Post, "/bot-runtime/sessions", s(Scope::BotRuntimeWrite), Bearer, false, false) {
        /// The body.
        body: CreateSessionRequest = body(),
    } => data SessionLink(SessionLink);
    /// `GET /bot-runtime/owner-e2e-key`.
    GetOwnerE2eKey("getOwnerE2eKey", BotRuntime, Get, "/bot-runtime/owner-e2e-key", s(Scope::BotRuntimeWrite), Bearer, true, false) => data OwnerKey(OwnerKey);
    /// `POST /bot-runtime/sessions/rename`.
    RenameSession("renameSession", BotRuntime, Post, "/bot-runtime/sessions/rename", s(Scope::BotRuntimeWrite), Bearer, true, false) {
        /// The body.
        body: RenameSessionRequest = body(),
    } => data SessionLink(SessionLink);
    /// `POST /bot-runtime/sessions/rebind`.
    RebindSession("rebindSession", BotRuntime, Post, "/bot-runtime/sessions/rebind", s(Scope::BotRuntimeWrite), Bearer, false, false) {
        /// The body.
        body: RebindSessionRequest = body(),
    } => data SessionLink(SessionLink);
    /// `POST /bot-runtime/sessions/end`.
    EndSession("endSession", BotRuntime, Post, "/bot-runtime/sessions/end", s(Scope::BotRuntimeWrite), Bearer, false, false) {
        /// The body.
        body: EndSessionRequest = body(),
    } => data SessionEnded(SessionEnded);
    /// `POST /bot-runtime/sessions/brief`: the same prompt returns the in-flight invocation.
    CreateBrief("createBrief", BotRuntime, Post, "/bot-runtime/sessions/brief", s(Scope::BotRuntimeWrite), Bearer, true, false) {
        /// The body.
        body: BriefRequest = body(),
    } => data BriefCreated(BriefCreated);

    // ---- API §4.10, BotInvocations
    /// `POST /bot-invocations/claim`.
    ClaimInvocation("claimInvocation", BotInvocations, Post, "/bot-invocations/claim", s(Scope::BotInvocationsWrite), Bearer, false, false) {
        /// The body.
        body: ClaimRequest = body(),
    } => whole Claim(ClaimResponse);
    /// `POST /bot-invocations/{invocationId}/renew`.
    RenewInvocation("renewInvocation", BotInvocations, Post, "/bot-invocations/{invocationId}/renew", s(Scope::BotInvocationsWrite), BearerAndClaimInBody, true, false) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The body (carries `instanceId` and `claimToken`).
        body: RenewRequest = body(),
    } => data Renewed(RenewResult);
    /// `POST /bot-invocations/{invocationId}/progress`.
    InvocationProgress("invocationProgress", BotInvocations, Post, "/bot-invocations/{invocationId}/progress", s(Scope::BotInvocationsWrite), BearerAndClaimInBody, false, false) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The body.
        body: ProgressRequest = body(),
    } => data InvocationStatus(InvocationStatusResult);
    /// `POST /bot-invocations/{invocationId}/steps`.
    InvocationStep("invocationStep", BotInvocations, Post, "/bot-invocations/{invocationId}/steps", s(Scope::BotInvocationsWrite), BearerAndClaimInBody, false, false) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The body.
        body: StepRequest = body(),
    } => data StepRecorded(StepRecorded);
    /// `POST /bot-invocations/{invocationId}/messages`: idempotent with a `clientMessageId`.
    InvocationMessage("invocationMessage", BotInvocations, Post, "/bot-invocations/{invocationId}/messages", s(Scope::BotInvocationsWrite), BearerAndClaimInBody, false, true) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The body.
        body: InvocationMessageRequest = body(),
    } => data InvocationMessagePosted(InvocationMessagePosted), retry_safe_if body.client_message_id;
    /// `POST /bot-invocations/{invocationId}/sealed-steps/started`.
    SealedStepStarted("sealedStepStarted", BotInvocations, Post, "/bot-invocations/{invocationId}/sealed-steps/started", s(Scope::BotInvocationsWrite), BearerAndCallbackHeader, false, false) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The sealed context's `callbackToken`, sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken = token("callbackToken"),
        /// The body.
        body: SealedStepStartedRequest = body(),
    } => data StepRecorded(StepRecorded);
    /// `POST /bot-invocations/{invocationId}/sealed-steps`.
    SealedStep("sealedStep", BotInvocations, Post, "/bot-invocations/{invocationId}/sealed-steps", s(Scope::BotInvocationsWrite), BearerAndCallbackHeader, false, false) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// Sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken = token("callbackToken"),
        /// The body.
        body: SealedStepRequest = body(),
    } => data StepRecorded(StepRecorded);
    /// `POST /bot-invocations/{invocationId}/sealed-messages`: the client-minted `messageId` dedupes retries.
    SealedMessage("sealedMessage", BotInvocations, Post, "/bot-invocations/{invocationId}/sealed-messages", s(Scope::BotInvocationsWrite), BearerAndCallbackHeader, true, true) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// Sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken = token("callbackToken"),
        /// The body (its client-minted `messageId` dedupes retries).
        body: SealedMessageRequest = body(),
    } => data SealedMessagePosted(SealedMessagePosted);
    /// `POST /bot-invocations/{invocationId}/sealed-complete`.
    SealedComplete("sealedComplete", BotInvocations, Post, "/bot-invocations/{invocationId}/sealed-complete", s(Scope::BotInvocationsWrite), BearerAndCallbackHeader, false, true) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// Sent as `X-Service-Callback-Token`.
        callback_token: CallbackToken = token("callbackToken"),
        /// The body.
        body: SealedCompleteRequest = body(),
    } => data SealedCompleted(SealedCompleted);
    /// `POST /bot-invocations/{invocationId}/complete`.
    CompleteInvocation("completeInvocation", BotInvocations, Post, "/bot-invocations/{invocationId}/complete", s(Scope::BotInvocationsWrite), BearerAndClaimInBody, false, true) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The body.
        body: CompleteRequest = body(),
    } => versioned InvocationCompleted(InvocationCompleted);
    /// `POST /bot-invocations/{invocationId}/fail`.
    FailInvocation("failInvocation", BotInvocations, Post, "/bot-invocations/{invocationId}/fail", s(Scope::BotInvocationsWrite), BearerAndClaimInBody, false, false) {
        /// `invocationId`.
        invocation_id: String = path("invocationId"),
        /// The body.
        body: FailRequest = body(),
    } => data InvocationStatus(InvocationStatusResult);

    // ---- API §4.11, Delegations
    /// `GET /delegations`.
    ListDelegations("listDelegations", Delegations, Get, "/delegations", s(Scope::DelegationsRead), Bearer, true, false) {
        /// The query.
        query: ListDelegationsQuery = query(),
    } => whole Delegations(DelegationList);
    /// `GET /delegations/{delegationId}`.
    GetDelegation("getDelegation", Delegations, Get, "/delegations/{delegationId}", s(Scope::DelegationsRead), Bearer, true, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
    } => data DelegationDetail(DelegationDetail);
    /// `POST /delegations/{delegationId}/claim`: a lost race is 409 `DELEGATION_NOT_OPEN`.
    ClaimDelegation("claimDelegation", Delegations, Post, "/delegations/{delegationId}/claim", s(Scope::DelegationsWrite), Bearer, false, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
        /// The body.
        body: ClaimDelegationRequest = body(),
    } => data DelegationClaim(DelegationClaim), retry_safe_if body.idempotency_key;
    /// `POST /delegations/{delegationId}/status`.
    DelegationStatus("delegationStatus", Delegations, Post, "/delegations/{delegationId}/status", s(Scope::DelegationsWrite), BearerAndCallbackHeader, true, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
        /// The claim token, sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken = token("claimToken"),
        /// The body.
        body: DelegationStatusRequest = body(),
    } => data Delegation(Delegation);
    /// `POST /delegations/{delegationId}/heartbeat`.
    DelegationHeartbeat("delegationHeartbeat", Delegations, Post, "/delegations/{delegationId}/heartbeat", s(Scope::DelegationsWrite), BearerAndCallbackHeader, true, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken = token("claimToken"),
    } => data DelegationHeartbeat(DelegationHeartbeat);
    /// `POST /delegations/{delegationId}/release`.
    ReleaseDelegation("releaseDelegation", Delegations, Post, "/delegations/{delegationId}/release", s(Scope::DelegationsWrite), BearerAndCallbackHeader, false, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken = token("claimToken"),
    } => data Delegation(Delegation);
    /// `POST /delegations/{delegationId}/complete`: a retry with the same token returns the committed outcome.
    CompleteDelegation("completeDelegation", Delegations, Post, "/delegations/{delegationId}/complete", s(Scope::DelegationsWrite), BearerAndCallbackHeader, true, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken = token("claimToken"),
        /// The body.
        body: CompleteDelegationRequest = body(),
    } => versioned_data DelegationCompletion(DelegationCompletion);
    /// `POST /delegations/{delegationId}/fail`.
    FailDelegation("failDelegation", Delegations, Post, "/delegations/{delegationId}/fail", s(Scope::DelegationsWrite), BearerAndCallbackHeader, false, false) {
        /// `delegationId`.
        delegation_id: String = path("delegationId"),
        /// Sent as `X-Service-Callback-Token`.
        claim_token: ClaimToken = token("claimToken"),
        /// The body.
        body: FailDelegationRequest = body(),
    } => raw;

    // ---- API §4.12, Decisions
    /// `POST /streams/{streamId}/decisions` (scope not shown).
    CreateDecision("createDecision", Decisions, Post, "/streams/{streamId}/decisions", NotShown, Bearer, false, false) {
        /// `streamId`.
        stream_id: String = path("streamId"),
        /// The body.
        body: CreateDecisionRequest = body(),
    } => raw;
    /// `GET /decisions/{decisionId}` (scope not shown).
    GetDecision("getDecision", Decisions, Get, "/decisions/{decisionId}", NotShown, Bearer, true, false) {
        /// `decisionId` (`dreq_...`).
        decision_id: String = path("decisionId"),
    } => raw;

    // ---- API §4.13, Webhooks
    /// `POST /hooks/{hookId}/{secret}`: no key.
    PostWebhook("postWebhook", Webhooks, Post, "/hooks/{hookId}/{secret}", NoKey, SecretUrl, false, false) {
        /// `hookId`.
        hook_id: String = path("hookId"),
        /// The URL's secret.
        secret: String = path("secret"),
        /// The body.
        body: WebhookPost = body(),
    } => whole WebhookAccepted(WebhookAccepted);
    /// `POST /hooks/{hookId}/{secret}/compat`: no key; plain-text answers.
    PostCompatWebhook("postCompatWebhook", Webhooks, Post, "/hooks/{hookId}/{secret}/compat", NoKey, SecretUrl, false, false) {
        /// `hookId`.
        hook_id: String = path("hookId"),
        /// The URL's secret.
        secret: String = path("secret"),
        /// The chat-platform payload, sent as JSON.
        body: CompatWebhookPayload = body(),
    } => plain_text;
}
