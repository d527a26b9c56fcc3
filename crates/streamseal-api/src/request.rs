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
use crate::endpoints::EndpointRequest;
use streamseal_wire::error::{Error, Result};
use streamseal_wire::requests::decode::{self, decode_in};
use streamseal_wire::requests::{QueryParams, Validate};
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

/// The fields of a request object, read one by one into a [`Check`]: a
/// failure is recorded under its wire path and the reading goes on, so
/// that a path parameter and the body fail together.
pub(crate) struct Fields {
    map: Map<String, Value>,
    pub(crate) check: Check,
}

impl Fields {
    /// A required path parameter, header value or other object (`upload`),
    /// keyed by its own name; paths inside it in full (`upload.filename`).
    pub(crate) fn param<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            Some(value) => decode_in(&mut self.check, value, name, name),
            None => {
                self.check.fail(name, "is required");
                None
            }
        }
    }

    /// An optional value (absent or `null` is `None`), keyed by its own name.
    pub(crate) fn optional<T: DeserializeOwned>(&mut self, name: &str) -> Option<Option<T>> {
        match self.map.remove(name) {
            None | Some(Value::Null) => Some(None),
            Some(value) => decode_in(&mut self.check, value, name, name).map(Some),
        }
    }

    /// The body or the query: its fields keyed by their path inside it, as
    /// the service names them (`wraps[0].recipientKeyId`); a failure of the
    /// document as a whole keyed by `name`.
    pub(crate) fn document<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        match self.map.remove(name) {
            Some(value) => decode_in(&mut self.check, value, "", name),
            None => {
                self.check.fail(name, "is required");
                None
            }
        }
    }
}

impl EndpointRequest {
    /// Gives a send that takes a `clientMessageId` (`sendMessage`,
    /// `invocationMessage`) and has none one minted at `now_ms`
    /// ([`crate::paging::mint_client_message_id`]); whether it did. Mint
    /// once per logical message and send the same request on every
    /// attempt: the service then returns the original instead of posting
    /// twice, and the request becomes safe to resend
    /// ([`EndpointRequest::is_retry_safe`]). What the HTTP adapters
    /// (`createClient`, `streamseal.http`) call before the first attempt.
    ///
    /// ```
    /// use streamseal_api::EndpointRequest;
    ///
    /// let mut send = EndpointRequest::from_json(
    ///     r#"{"endpoint": "sendMessage", "streamId": "stream_1", "body": {"content": "hi"}}"#,
    /// )?;
    /// assert!(!send.is_retry_safe());
    /// assert!(send.mint_client_message_id(1_800_000_000_000)?);
    /// assert!(send.is_retry_safe());
    /// assert!(!send.mint_client_message_id(1_800_000_000_001)?, "kept, not replaced");
    /// # Ok::<(), streamseal_api::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`crate::paging::mint_client_message_id`]: `INVALID_FIELD` for a
    /// clock past a ULID's range, `RANDOMNESS_UNAVAILABLE`.
    pub fn mint_client_message_id(&mut self, now_ms: u64) -> Result<bool> {
        let slot = match self {
            EndpointRequest::SendMessage { body, .. } => &mut body.client_message_id,
            EndpointRequest::InvocationMessage { body, .. } => &mut body.client_message_id,
            _ => return Ok(false),
        };
        if slot.is_some() {
            return Ok(false);
        }
        *slot = Some(crate::paging::mint_client_message_id(now_ms)?);
        Ok(true)
    }

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
        Self::decode_fields(endpoint, &mut Fields { map, check })
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
    /// Nothing yet but the endpoint.
    pub(crate) fn new(endpoint: Endpoint) -> Self {
        Parts {
            endpoint,
            params: Vec::new(),
            query: Vec::new(),
            body: None,
            callback_token: None,
        }
    }

    /// The next path parameter, in the order of the path template:
    /// `VALIDATION_FAILED` keyed by its name (`streamId`) when it is empty,
    /// `.` or `..` (URL normalisation would resolve those away: the call
    /// would reach another resource).
    pub(crate) fn param(mut self, name: &str, value: &str) -> Result<Self> {
        if value.is_empty() || value == "." || value == ".." {
            let mut check = Check::new();
            check.fail(name, "must not be empty, `.` or `..`");
            check.finish()?;
        }
        self.params.push(value.to_owned());
        Ok(self)
    }

    pub(crate) fn json<T: Validate + Serialize>(mut self, body: &T) -> Result<Self> {
        body.validate()?;
        let json = serde_json::to_string(body).map_err(|e| Error::MalformedJson {
            reason: e.to_string(),
        })?;
        self.body = Some(RequestBody::Json(json));
        Ok(self)
    }

    pub(crate) fn query<T: Validate + QueryParams>(mut self, query: &T) -> Result<Self> {
        query.validate()?;
        self.query = query
            .query_pairs()
            .into_iter()
            .map(|(n, v)| (n.to_owned(), v))
            .collect();
        Ok(self)
    }

    /// The per-claim token (`X-Service-Callback-Token`):
    /// `VALIDATION_FAILED` keyed by its name when it is empty.
    pub(crate) fn token(mut self, name: &str, token: &str) -> Result<Self> {
        if token.is_empty() {
            let mut check = Check::new();
            check.fail(name, "must not be empty");
            check.finish()?;
        }
        self.callback_token = Some(token.to_owned());
        Ok(self)
    }
}
