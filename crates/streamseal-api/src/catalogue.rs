//! The endpoint catalogue of API §4: one row per endpoint with its id,
//! method, path template, required scope (API §5), how it
//! authenticates, and whether sending it twice is safe.
//!
//! The rows are declared with the rest of each endpoint in
//! [`crate::endpoints`]. Everything else in [`crate`] is driven by them: the
//! request builder fills the path template, the parser picks the response
//! type by endpoint, and [`Endpoint::missing_scope`] answers "may this key
//! call it?" before a request is sent.
//!
//! ```
//! use streamseal_api::catalogue::{Endpoint, RequiredScope, Scope, ENDPOINTS, ENDPOINT_COUNT};
//!
//! assert_eq!(ENDPOINTS.len(), ENDPOINT_COUNT);
//! assert_eq!(Endpoint::SendMessage.path_template(), "/streams/{streamId}/messages");
//! assert_eq!(Endpoint::SendMessage.scope(), RequiredScope::Scope(Scope::MessagesWrite));
//! assert_eq!(Endpoint::SendMessage.missing_scope(&[Scope::MessagesRead]), Some(Scope::MessagesWrite));
//! assert_eq!(Endpoint::GetMe.missing_scope(&[]), None);
//! ```
//!
//! [`EndpointInfo`] is one row as plain data ([`Endpoint::info`]): what the
//! bindings hand to apps, so that every language reads the same row.

use crate::HttpMethod;
use streamseal_wire::error::{Error, Result};
use streamseal_wire::ts_decl;

/// The catalogue itself is declared with the rest of each endpoint in
/// [`crate::endpoints`].
pub use crate::endpoints::{ENDPOINTS, Endpoint};

/// An API-key scope of API §5.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// `messages:search`.
    MessagesSearch,
    /// `streams:read`.
    StreamsRead,
    /// `streams:write`.
    StreamsWrite,
    /// `messages:read`.
    MessagesRead,
    /// `messages:write`.
    MessagesWrite,
    /// `users:read`.
    UsersRead,
    /// `memos:read`.
    MemosRead,
    /// `attachments:read`.
    AttachmentsRead,
    /// `attachments:write`.
    AttachmentsWrite,
    /// `bot-runtime:read`.
    BotRuntimeRead,
    /// `bot-runtime:write`.
    BotRuntimeWrite,
    /// `bot-invocations:read`.
    BotInvocationsRead,
    /// `bot-invocations:write`.
    BotInvocationsWrite,
    /// `delegations:read`.
    DelegationsRead,
    /// `delegations:write`.
    DelegationsWrite,
    /// `labels:write`.
    LabelsWrite,
}

ts_decl!(
    "export type Scope = \"messages:search\" | \"streams:read\" | \"streams:write\" | \"messages:read\" | \"messages:write\" | \"users:read\" | \"memos:read\" | \"attachments:read\" | \"attachments:write\" | \"bot-runtime:read\" | \"bot-runtime:write\" | \"bot-invocations:read\" | \"bot-invocations:write\" | \"delegations:read\" | \"delegations:write\" | \"labels:write\";"
);

// Crosses to JavaScript (feature `wasm`) as its wire spelling.
#[cfg(feature = "wasm")]
impl serde::Serialize for Scope {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(feature = "wasm")]
impl<'de> serde::Deserialize<'de> for Scope {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        Scope::parse(&text).ok_or_else(|| serde::de::Error::custom("unknown scope"))
    }
}

// Crosses to JavaScript (feature `wasm`) as its id, e.g. `"sendMessage"`.
#[cfg(feature = "wasm")]
impl serde::Serialize for Endpoint {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.id())
    }
}

#[cfg(feature = "wasm")]
impl<'de> serde::Deserialize<'de> for Endpoint {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        Endpoint::from_id(&text).ok_or_else(|| serde::de::Error::custom("unknown endpoint"))
    }
}

impl Scope {
    /// Every scope of the table in API §5.
    pub const ALL: [Scope; 16] = [
        Scope::MessagesSearch,
        Scope::StreamsRead,
        Scope::StreamsWrite,
        Scope::MessagesRead,
        Scope::MessagesWrite,
        Scope::UsersRead,
        Scope::MemosRead,
        Scope::AttachmentsRead,
        Scope::AttachmentsWrite,
        Scope::BotRuntimeRead,
        Scope::BotRuntimeWrite,
        Scope::BotInvocationsRead,
        Scope::BotInvocationsWrite,
        Scope::DelegationsRead,
        Scope::DelegationsWrite,
        Scope::LabelsWrite,
    ];

    /// The wire spelling, e.g. `"messages:write"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scope::MessagesSearch => "messages:search",
            Scope::StreamsRead => "streams:read",
            Scope::StreamsWrite => "streams:write",
            Scope::MessagesRead => "messages:read",
            Scope::MessagesWrite => "messages:write",
            Scope::UsersRead => "users:read",
            Scope::MemosRead => "memos:read",
            Scope::AttachmentsRead => "attachments:read",
            Scope::AttachmentsWrite => "attachments:write",
            Scope::BotRuntimeRead => "bot-runtime:read",
            Scope::BotRuntimeWrite => "bot-runtime:write",
            Scope::BotInvocationsRead => "bot-invocations:read",
            Scope::BotInvocationsWrite => "bot-invocations:write",
            Scope::DelegationsRead => "delegations:read",
            Scope::DelegationsWrite => "delegations:write",
            Scope::LabelsWrite => "labels:write",
        }
    }

    /// Reads a scope's wire spelling; `None` for a scope this library does not know.
    pub fn parse(text: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// What an endpoint needs of the caller's key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(tag = "kind", content = "scope", rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum RequiredScope {
    /// `-` in the spec: any valid key.
    AnyKey,
    /// A key granted this scope.
    Scope(Scope),
    /// A key is needed but the spec does not show which scope (decisions):
    /// the library cannot tell in advance.
    NotShown,
    /// No API key at all: the URL is the credential (incoming webhooks).
    NoKey,
}

/// How an endpoint authenticates, beyond its scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum AuthKind {
    /// `Authorization: Bearer <key>` only.
    Bearer,
    /// Bearer key plus the invocation's `instanceId` and `claimToken` in the
    /// body (claim-bound, API §5.5).
    BearerAndClaimInBody,
    /// Bearer key plus the per-claim token in `X-Service-Callback-Token`
    /// (sealed invocation calls and claim-bound delegation calls).
    BearerAndCallbackHeader,
    /// No key: the secret in the path authenticates (webhooks).
    SecretUrl,
}

/// The API family an endpoint belongs to (the subsections of API §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Enum))]
pub enum Family {
    /// 4.1.
    Identity,
    /// 4.2.
    Streams,
    /// 4.3.
    Messages,
    /// 4.4.
    Conversations,
    /// 4.5.
    Memos,
    /// 4.6.
    Attachments,
    /// 4.7.
    Labels,
    /// 4.9.
    BotRuntime,
    /// 4.10.
    BotInvocations,
    /// 4.11.
    Delegations,
    /// 4.12.
    Decisions,
    /// 4.13.
    Webhooks,
}

// Crosses UniFFI as its wire spelling (`"messages:read"`), as it does to JS.
#[cfg(feature = "uniffi")]
uniffi::custom_type!(Scope, String, {
    lower: |scope| scope.as_str().to_owned(),
    try_lift: |text| Scope::parse(&text).ok_or_else(|| uniffi::deps::anyhow::anyhow!("unknown scope")),
});

// Crosses UniFFI as its id (`"sendMessage"`), as it does to JS. Kotlin,
// Swift and Python see a string (`typealias Endpoint = String`). Functions
// of the binding that take an id from the app take a `String` and call
// [`Endpoint::lookup`], so that an unknown id raises `INVALID_FIELD` from
// inside the call instead of failing in the generated lift code.
#[cfg(feature = "uniffi")]
uniffi::custom_type!(Endpoint, String, {
    lower: |endpoint| endpoint.id().to_owned(),
    try_lift: |text| Endpoint::from_id(&text).ok_or_else(|| uniffi::deps::anyhow::anyhow!("unknown endpoint")),
});

/// One endpoint's row, as its declaration in [`crate::endpoints`] writes it.
pub(crate) struct Row {
    pub(crate) id: &'static str,
    pub(crate) family: Family,
    pub(crate) method: HttpMethod,
    pub(crate) path: &'static str,
    pub(crate) scope: RequiredScope,
    pub(crate) auth: AuthKind,
    /// Safe to send again after an unknown outcome (reads, set-to-value
    /// writes, and writes the spec says dedupe or return the committed outcome).
    pub(crate) idempotent: bool,
    /// A 409 may mean an earlier attempt of this very request landed.
    pub(crate) conflict_may_mean_landed: bool,
}

/// The number of endpoints in the catalogue: the 58 API §4 lists (3
/// identity, 8 streams, 6 messages, 2 conversations, 2 memos, 3
/// attachments, 4 labels, 7 bot runtime, 11 bot invocations, 8
/// delegations, 2 decisions, 2 webhooks), counted from the declarations.
pub const ENDPOINT_COUNT: usize = ENDPOINTS.len();

impl Endpoint {
    /// A stable id (the spec's operation name where it gives one, e.g. `sendMessage`).
    pub fn id(self) -> &'static str {
        self.row().id
    }

    /// Finds an endpoint by its [`Endpoint::id`].
    pub fn from_id(id: &str) -> Option<Endpoint> {
        ENDPOINTS.iter().copied().find(|e| e.id() == id)
    }

    /// [`Endpoint::from_id`] for an id that came from an app: an unknown id
    /// is `INVALID_FIELD` (field `endpoint`) naming it. The bindings'
    /// `endpoint(id)` and `missingScope` raise this error.
    ///
    /// ```
    /// use streamseal_api::{catalogue::Endpoint, ErrorCode};
    ///
    /// assert_eq!(Endpoint::lookup("sendMessage")?, Endpoint::SendMessage);
    /// assert_eq!(Endpoint::lookup("noSuchEndpoint").unwrap_err().code(), ErrorCode::InvalidField);
    /// # Ok::<(), streamseal_api::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` (`endpoint`) when `id` names no endpoint.
    pub fn lookup(id: &str) -> Result<Endpoint> {
        Endpoint::from_id(id)
            .ok_or_else(|| Error::invalid("endpoint", format!("unknown endpoint `{id}`")))
    }

    /// The whole row of this endpoint as plain data (what the bindings'
    /// `endpoints()` and `endpoint(id)` return).
    ///
    /// ```
    /// use streamseal_api::{catalogue::{AuthKind, Endpoint, EndpointInfo, RequiredScope, Scope}, HttpMethod};
    ///
    /// let row: EndpointInfo = Endpoint::SendMessage.info();
    /// assert_eq!(row.id, Endpoint::SendMessage);
    /// assert_eq!(row.method, HttpMethod::Post);
    /// assert_eq!(row.path_template, "/streams/{streamId}/messages");
    /// assert_eq!(row.path_params, ["streamId"]);
    /// assert_eq!(row.scope, RequiredScope::Scope(Scope::MessagesWrite));
    /// assert_eq!(row.auth, AuthKind::Bearer);
    /// assert!(!row.idempotent); // safe to retry only with a clientMessageId
    /// ```
    pub fn info(self) -> EndpointInfo {
        EndpointInfo {
            id: self,
            family: self.family(),
            method: self.method(),
            path_template: self.path_template().to_owned(),
            path_params: self.path_params().into_iter().map(str::to_owned).collect(),
            scope: self.scope(),
            auth: self.auth(),
            claim_bound: self.is_claim_bound(),
            idempotent: self.is_idempotent(),
            conflict_may_mean_landed: self.conflict_may_mean_landed(),
        }
    }

    /// The subsection of API §4.
    pub fn family(self) -> Family {
        self.row().family
    }

    /// The HTTP method.
    pub fn method(self) -> HttpMethod {
        self.row().method
    }

    /// The path template relative to `/api/v1/workspaces/{workspaceId}`,
    /// with `{name}` placeholders.
    pub fn path_template(self) -> &'static str {
        self.row().path
    }

    /// The names of the path placeholders, in order.
    pub fn path_params(self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let mut rest = self.path_template();
        while let Some(start) = rest.find('{') {
            let after = rest.get(start + 1..).unwrap_or_default();
            let Some(end) = after.find('}') else { break };
            out.push(after.get(..end).unwrap_or_default());
            rest = after.get(end + 1..).unwrap_or_default();
        }
        out
    }

    /// The scope the key needs (API §5).
    pub fn scope(self) -> RequiredScope {
        self.row().scope
    }

    /// How the endpoint authenticates.
    pub fn auth(self) -> AuthKind {
        self.row().auth
    }

    /// Whether the call needs a per-claim credential (API §5.5).
    pub fn is_claim_bound(self) -> bool {
        matches!(
            self.auth(),
            AuthKind::BearerAndClaimInBody | AuthKind::BearerAndCallbackHeader
        )
    }

    /// Whether the endpoint is safe to send again after an unknown outcome
    /// on its own. Some others become safe with an idempotency field; see
    /// [`crate::EndpointRequest::is_retry_safe`].
    pub fn is_idempotent(self) -> bool {
        self.row().idempotent
    }

    /// Whether a 409 from this endpoint may mean an earlier attempt of the
    /// same request already landed (re-read before acting).
    pub fn conflict_may_mean_landed(self) -> bool {
        self.row().conflict_may_mean_landed
    }

    /// The read that tells whether an attempt of this endpoint landed when
    /// its outcome is unknown (a 5xx or no response to a request that is
    /// not safe to send again, or a 409 that may mean it landed): one that
    /// finds the attempt by an id the client chose.
    ///
    /// - `postKeyWraps`: `getKeyWraps` lists the generation's wraps;
    /// - `sealedMessage` and `sealedComplete` (with a reply): `listMessages`
    ///   of the stream shows the message by its client-minted `messageId`;
    /// - `claimDelegation`: `getDelegation` shows who holds the claim.
    ///
    /// `None` where no read tells, such as a send without `clientMessageId`
    /// (nothing to find it by: send one, and the send is safe to resend)
    /// ([`crate::retry::GiveUpReason::OutcomeUnknown`]).
    pub fn landed_read(self) -> Option<Endpoint> {
        match self {
            Endpoint::PostKeyWraps => Some(Endpoint::GetKeyWraps),
            Endpoint::SealedMessage | Endpoint::SealedComplete => Some(Endpoint::ListMessages),
            Endpoint::ClaimDelegation => Some(Endpoint::GetDelegation),
            _ => None,
        }
    }

    /// The scope a key granted `granted` lacks for this endpoint, if any.
    /// `None` also when the spec does not show the scope or no key is used.
    pub fn missing_scope(self, granted: &[Scope]) -> Option<Scope> {
        match self.scope() {
            RequiredScope::Scope(needed) if !granted.contains(&needed) => Some(needed),
            _ => None,
        }
    }
}

/// One row of the catalogue as plain data: [`Endpoint::info`].
///
/// The bindings return it as it is (JS `endpoints()` / `endpoint(id)`,
/// Kotlin/Swift/Python `endpoints()` / `endpoint(id)`), so every language
/// reads the same row under the same field names (camelCase in JS, Kotlin
/// and Swift; snake_case in Python).
///
/// `id` is the typed [`Endpoint`], not a string: JS gets the `Endpoint`
/// union of ids (`"getMe" | "sendMessage" | ...`), which a plain `string`
/// would lose, and the UniFFI languages get a `String` through the
/// `Endpoint` custom type (no 58-case mirror enum to keep in step). Both
/// spell it as [`Endpoint::id`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct EndpointInfo {
    /// The endpoint; crosses as its id, e.g. `"sendMessage"` (the
    /// `endpoint` tag of requests).
    pub id: Endpoint,
    /// The subsection of API §4.
    pub family: Family,
    /// The HTTP method.
    pub method: HttpMethod,
    /// The path relative to `/api/v1/workspaces/{workspaceId}`, with
    /// `{name}` placeholders, e.g. `/streams/{streamId}`.
    pub path_template: String,
    /// The names of the path placeholders, in order.
    pub path_params: Vec<String>,
    /// The scope the key needs (API §5).
    pub scope: RequiredScope,
    /// How the endpoint authenticates.
    pub auth: AuthKind,
    /// Whether the call needs a per-claim credential (API §5.5).
    pub claim_bound: bool,
    /// Whether sending it again after an unknown outcome is safe on its own.
    pub idempotent: bool,
    /// Whether a 409 may mean an earlier attempt of the same request landed.
    pub conflict_may_mean_landed: bool,
}
