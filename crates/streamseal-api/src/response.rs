//! One response parser for every endpoint, picked by the catalogue entry:
//! the typed result in the shape of the version the response resolved.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::catalogue::Endpoint;
use crate::endpoints::{parse_data_for, read_data_for};
use crate::error::{ApiFailure, MalformedResponse, ResponseError};
use crate::{HttpRequest, HttpResponse, RequestFacts};
use streamseal_wire::ExtraJson as _;
use streamseal_wire::attachment::Attachment;
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
use streamseal_wire::requests::webhooks::WebhookAccepted;
use streamseal_wire::shape::{Shape, WireShape, read};
use streamseal_wire::stream::Stream;
use streamseal_wire::version::{ApiVersion, ServiceVersion};
use streamseal_wire::versioned::Versioned;
use streamseal_wire::{Extra, conversation::Conversation, from_value, parse_value};

/// The typed result of an endpoint. Variants name the result type; the
/// endpoint that produced it is [`ApiResponse::endpoint`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    any(feature = "wasm", feature = "uniffi"),
    derive(serde::Serialize, serde::Deserialize),
    serde(tag = "kind", content = "data", rename_all = "camelCase")
)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub enum ResponseData {
    /// 204 (deletes): no body.
    NoContent,
    /// `GET me`.
    Me(Me),
    /// `GET me/bots`.
    Bots(BotList),
    /// `GET me/e2e-key`.
    OwnKey(OwnKey),
    /// `GET streams`.
    Streams(StreamPage),
    /// A stream (get, update, archive, unarchive).
    Stream(Stream),
    /// `GET streams/{streamId}/members`.
    Members(MemberPage),
    /// `GET streams/{streamId}/e2e/key-wraps`.
    KeyWraps(KeyWraps),
    /// `POST streams/{streamId}/e2e/key-wraps`.
    KeyWrapsStored(KeyWrapsStored),
    /// `POST messages/search`.
    MessageSearch(MessageSearchResults),
    /// `GET streams/{streamId}/messages`.
    Messages(MessageList),
    /// A sent or updated message.
    Message(MessageResponse),
    /// `POST messages/find-by-metadata`.
    MessagesFound(MessagesFound),
    /// `GET conversations`.
    Conversations(ConversationPage),
    /// `GET conversations/{conversationId}`.
    Conversation(Conversation),
    /// `POST memos/search`.
    Memos(MemoSearchResults),
    /// `GET memos/{memoId}`.
    Memo(MemoWithSources),
    /// `POST attachments` (201).
    Attachment(Attachment),
    /// `POST attachments/search`.
    AttachmentSearch(AttachmentSearchResults),
    /// `POST labels/assignments` (201).
    LabelAssigned(LabelAssigned),
    /// `PATCH labels/{labelId}`.
    Label(Label),
    /// `POST bot-runtime/presence`.
    Presence(Presence),
    /// A session link (create, rename, rebind).
    SessionLink(SessionLink),
    /// `GET bot-runtime/owner-e2e-key`.
    OwnerKey(OwnerKey),
    /// `POST bot-runtime/sessions/end`.
    SessionEnded(SessionEnded),
    /// `POST bot-runtime/sessions/brief` (201).
    BriefCreated(BriefCreated),
    /// `POST bot-invocations/claim`: `data` is null when nothing is pending.
    Claim(ClaimResponse),
    /// `POST bot-invocations/{id}/renew`.
    Renewed(RenewResult),
    /// `{invocationId, status}` of progress and fail.
    InvocationStatus(InvocationStatusResult),
    /// `{invocationId, sessionId, stepId}` of steps and sealed steps.
    StepRecorded(StepRecorded),
    /// `POST bot-invocations/{id}/messages`.
    InvocationMessagePosted(InvocationMessagePosted),
    /// `POST bot-invocations/{id}/sealed-messages`.
    SealedMessagePosted(SealedMessagePosted),
    /// `POST bot-invocations/{id}/sealed-complete`.
    SealedCompleted(SealedCompleted),
    /// `POST bot-invocations/{id}/complete`.
    InvocationCompleted(InvocationCompleted),
    /// `GET delegations`.
    Delegations(DelegationList),
    /// `GET delegations/{delegationId}`.
    DelegationDetail(DelegationDetail),
    /// `POST delegations/{id}/claim`: carries the claim token (shown once).
    DelegationClaim(DelegationClaim),
    /// A delegation (status, release).
    Delegation(Delegation),
    /// `POST delegations/{id}/heartbeat`.
    DelegationHeartbeat(DelegationHeartbeat),
    /// `POST delegations/{id}/complete`.
    DelegationCompletion(DelegationCompletion),
    /// `POST hooks/{hookId}/{secret}` (201 `{"ok": true}`).
    WebhookAccepted(WebhookAccepted),
    /// `POST hooks/{hookId}/{secret}/compat` (200 `text/plain` `ok`).
    CompatWebhookAccepted,
    /// A response whose shape the spec does not show (get attachment,
    /// delegation fail, decisions): the JSON text of `data` (or of the
    /// whole body when it has no `data`).
    Raw(String),
}

/// A successful response, read.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
pub struct ApiResponse {
    /// The endpoint that answered.
    pub endpoint: Endpoint,
    /// The HTTP status (2xx).
    pub status: u16,
    /// The `Service-Version` echo: the version the response resolved.
    pub version: Option<ServiceVersion>,
    /// The version whose shapes the body was read with: the echo, else the
    /// request's override, else the newest known version.
    pub shape: ApiVersion,
    /// The `RateLimit-*` headers every response carries.
    pub rate_limit: RateLimitHeaders,
    /// The typed result.
    pub data: ResponseData,
    /// The keys of a `{"data": ...}` body beside `data` that the library
    /// does not know (API §9.6), kept as the service sent them. A body that
    /// is the result itself (a list, a page) keeps its unknown keys in the
    /// result's own `extra` instead.
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// Reads the response to a built request: the endpoint's typed result for
/// a 2xx, an [`ApiFailure`] for any other status, or a
/// [`MalformedResponse`] when a 2xx body does not parse. Every outcome
/// carries the status, the `Service-Version` echo and the `RateLimit-*`
/// figures. Never panics.
///
/// # Errors
///
/// [`ResponseError::Api`] for a non-2xx status, [`ResponseError::Malformed`]
/// for a 2xx body that is not the endpoint's type.
pub fn parse_response(
    request: &HttpRequest,
    response: &HttpResponse,
) -> std::result::Result<ApiResponse, ResponseError> {
    parse_response_to(&request.facts(), response)
}

/// [`parse_response`] from what it reads of the request (its
/// [`RequestFacts`]).
///
/// # Errors
///
/// As [`parse_response`].
pub fn parse_response_to(
    request: &RequestFacts,
    response: &HttpResponse,
) -> std::result::Result<ApiResponse, ResponseError> {
    let (head, (data, extra)) = read_with(request, response, parse_data_for)?;
    Ok(ApiResponse {
        endpoint: head.endpoint,
        status: head.status,
        version: head.version,
        shape: head.shape,
        rate_limit: head.rate_limit,
        data,
        extra,
    })
}

/// [`parse_response_to`] for a binding that hands the result on as JSON
/// (the npm package's endpoint module): each 2xx body is checked by its
/// result type's shape table ([`streamseal_wire::shape`]) instead of being
/// read into the type. It accepts and refuses what [`parse_response_to`]
/// does, and `JsonResponse::to_json` (feature `wasm`) is the text the
/// typed result's `Serialize` writes (`tests/it/wire_shapes.rs` reads
/// every fixture, and mutations of each, both ways). Never panics.
///
/// # Errors
///
/// As [`parse_response`].
pub fn parse_response_json(
    request: &RequestFacts,
    response: &HttpResponse,
) -> std::result::Result<JsonResponse, ResponseError> {
    let (head, (data, extra)) = read_with(request, response, read_data_for)?;
    Ok(JsonResponse { head, data, extra })
}

/// What every outcome carries: the endpoint, the status, the
/// `Service-Version` echo, the shape read and the `RateLimit-*` figures.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize),
    serde(rename_all = "camelCase")
)]
pub struct ResponseHead {
    /// The endpoint that answered.
    pub endpoint: Endpoint,
    /// The HTTP status.
    pub status: u16,
    /// The `Service-Version` echo: the version the response resolved.
    pub version: Option<ServiceVersion>,
    /// The version whose shapes the body was read with.
    pub shape: ApiVersion,
    /// The `RateLimit-*` headers.
    pub rate_limit: RateLimitHeaders,
}

/// A successful response checked by its result type's shape table
/// ([`parse_response_json`]): the typed result as JSON text.
#[derive(Clone, Debug, PartialEq)]
pub struct JsonResponse {
    /// As [`ApiResponse`]'s.
    pub head: ResponseHead,
    /// The result ([`ApiResponse::data`]) as JSON.
    pub data: DataJson,
    /// As [`ApiResponse::extra`].
    pub extra: Extra,
}

/// A result as JSON: which [`ResponseData`] variant, and the JSON text of
/// its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataJson {
    /// The variant's name (`Me`, `NoContent`, `Raw`).
    pub variant: &'static str,
    /// The JSON text of the variant's value (none for `NoContent` and
    /// `CompatWebhookAccepted`).
    pub json: Option<String>,
}

#[cfg(feature = "wasm")]
impl JsonResponse {
    /// The JSON text [`ApiResponse`]'s `Serialize` writes for the typed
    /// read of the same response, byte for byte.
    pub fn to_json(&self) -> String {
        // The head's object without its `}`, then `data` and `extra`.
        let head = serde_json::to_string(&self.head).unwrap_or_default();
        let mut out = head.strip_suffix('}').unwrap_or(&head).to_owned();
        out.push_str(",\"data\":{\"kind\":\"");
        let mut chars = self.data.variant.chars();
        if let Some(first) = chars.next() {
            out.push(first.to_ascii_lowercase());
            out.push_str(chars.as_str());
        }
        out.push('"');
        if let Some(json) = &self.data.json {
            out.push_str(",\"data\":");
            out.push_str(json);
        }
        out.push_str("},\"extra\":");
        out.push_str(&serde_json::to_string(&self.extra).unwrap_or_default());
        out.push('}');
        out
    }
}

/// Reads what every outcome carries, then the 2xx body with `read`.
fn read_with<D>(
    request: &RequestFacts,
    response: &HttpResponse,
    read: fn(Endpoint, &HttpResponse, ApiVersion) -> Result<(D, Extra)>,
) -> std::result::Result<(ResponseHead, (D, Extra)), ResponseError> {
    if !(200..=299).contains(&response.status) {
        return Err(ResponseError::Api(Box::new(ApiFailure::from_response_to(
            request, response,
        ))));
    }
    let version = ServiceVersion::from_response_headers(response.header_pairs());
    let shape = version
        .as_ref()
        .map(ServiceVersion::shape)
        .or(request.service_version)
        .unwrap_or(ApiVersion::LATEST);
    let rate_limit = RateLimitHeaders::from_headers(response.header_pairs());
    match read(request.endpoint, response, shape) {
        Ok(read) => Ok((
            ResponseHead {
                endpoint: request.endpoint,
                status: response.status,
                version,
                shape,
                rate_limit,
            },
            read,
        )),
        Err(error) => Err(ResponseError::Malformed(Box::new(MalformedResponse {
            endpoint: request.endpoint,
            status: response.status,
            version,
            shape,
            rate_limit,
            error,
        }))),
    }
}

/// `{data: T}` checked by `T`'s shape table, with the envelope's other keys.
pub(crate) fn data_json<T: WireShape>(
    variant: &'static str,
    body: &str,
) -> Result<(DataJson, Extra)> {
    let (data, extra) = envelope(body)?;
    Ok((DataJson::of(variant, T::SHAPE, data)?, extra))
}

/// `{data: T}` where T's shape varies by version, checked by its table.
pub(crate) fn versioned_data_json<T: Versioned + WireShape>(
    variant: &'static str,
    version: ApiVersion,
    body: &str,
) -> Result<(DataJson, Extra)> {
    let (mut data, extra) = envelope(body)?;
    T::upgrade_value(version, &mut data);
    Ok((DataJson::of(variant, T::SHAPE, data)?, extra))
}

/// A result that is the whole body, checked by its table.
pub(crate) fn whole_json<T: WireShape>(
    variant: &'static str,
    body: &str,
) -> Result<(DataJson, Extra)> {
    Ok((
        DataJson::of(variant, T::SHAPE, parse_value(body)?)?,
        Extra::new(),
    ))
}

/// A whole body whose shape varies by version, checked by its table.
pub(crate) fn versioned_json<T: Versioned + WireShape>(
    variant: &'static str,
    version: ApiVersion,
    body: &str,
) -> Result<(DataJson, Extra)> {
    let mut value = parse_value(body)?;
    T::upgrade_value(version, &mut value);
    Ok((DataJson::of(variant, T::SHAPE, value)?, Extra::new()))
}

/// [`raw`] as JSON.
pub(crate) fn raw_json(body: &str) -> Result<(DataJson, Extra)> {
    let (data, extra) = raw(body)?;
    let data = match data {
        ResponseData::Raw(text) => DataJson {
            variant: "Raw",
            json: Some(
                serde_json::to_string(&text).map_err(|e| Error::MalformedJson {
                    reason: e.to_string(),
                })?,
            ),
        },
        _ => DataJson::none("NoContent"),
    };
    Ok((data, extra))
}

impl DataJson {
    /// A variant with no value.
    pub(crate) fn none(variant: &'static str) -> Self {
        DataJson {
            variant,
            json: None,
        }
    }

    fn of(variant: &'static str, shape: &Shape, value: Value) -> Result<Self> {
        Ok(DataJson {
            variant,
            json: Some(read(shape, value)?),
        })
    }
}

/// The `data` of a `{"data": ...}` body and the envelope's other keys.
///
/// Every success body is read as one untyped value first, with each key of
/// an object at most once ([`parse_value`]: a key sent twice is refused,
/// not resolved to one of its values), then into its type: one reader of
/// each type (from that value), whether its shape varies by version or not.
fn envelope(body: &str) -> Result<(Value, Extra)> {
    match parse_value(body)? {
        Value::Object(mut obj) => match obj.remove("data") {
            Some(data) => Ok((data, Extra::from_json_map(obj))),
            None => Err(Error::MalformedJson {
                reason: "missing field `data`".to_owned(),
            }),
        },
        _ => Err(Error::MalformedJson {
            reason: "expected a JSON object".to_owned(),
        }),
    }
}

/// `{data: T}` where T's shape varies by version, with the envelope's
/// other keys.
pub(crate) fn versioned_data<T: Versioned>(version: ApiVersion, body: &str) -> Result<(T, Extra)> {
    let (data, extra) = envelope(body)?;
    Ok((T::from_version_value(version, data)?, extra))
}

/// `{data: T}`, with the envelope's other keys.
pub(crate) fn data<T: DeserializeOwned>(body: &str) -> Result<(T, Extra)> {
    let (data, extra) = envelope(body)?;
    Ok((from_value(data)?, extra))
}

/// A result that is the whole body, read as [`data`] reads its `data`.
pub(crate) fn whole_body<T: DeserializeOwned>(body: &str) -> Result<T> {
    streamseal_wire::parse(body)
}

/// A result that is the whole body: its unknown keys are its own.
pub(crate) fn whole<T>(data: T) -> (T, Extra) {
    (data, Extra::new())
}

/// The `data` of a body whose shape is not shown, as JSON text, with the
/// envelope's other keys (none when the body has no `data`: it is all raw).
pub(crate) fn raw(body: &str) -> Result<(ResponseData, Extra)> {
    if body.trim().is_empty() {
        return Ok(whole(ResponseData::NoContent));
    }
    Ok(match parse_value(body)? {
        Value::Object(mut obj) if obj.contains_key("data") => {
            let inner = obj.remove("data").unwrap_or(Value::Null);
            (
                ResponseData::Raw(inner.to_string()),
                Extra::from_json_map(obj),
            )
        }
        other => whole(ResponseData::Raw(other.to_string())),
    })
}
