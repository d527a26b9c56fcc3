//! Bot invocation requests (API §4.10).
//!
//! Plain calls carry `instanceId` (1 to 128) and `claimToken` (1 to 256) in
//! the body; sealed calls authenticate with the claim's token in the
//! `X-Service-Callback-Token` header and have no such fields. Sealed bodies
//! carry `ciphertext` and `envelope` at their top level: the
//! [`SealedPayload`] flattened. They are read through plain-field forms
//! of their own: `#[serde(flatten)]` would buffer the
//! two fields and lose the wire path of a mistake inside them
//! (`envelope.keyGeneration`, `reply.envelope.iv`).

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use crate::open_enum::open_enum;
use crate::presence::RuntimeKind;
use crate::requests::Validate;
use crate::requests::messages::MAX_CLIENT_MESSAGE_ID_LEN;
use crate::secret::ClaimToken;
use crate::validate::{Check, item, path};
use streamseal_crypto::envelope::{Envelope, SealedPayload};
use streamseal_crypto::error::Result;

/// The default `claimTtlSeconds`.
pub const DEFAULT_CLAIM_TTL_SECONDS: u32 = 60;

open_enum!(
    /// The type of a trace step (`stepType`): an open enum.
    StepType {
        /// Context received.
        ContextReceived => "context_received",
        /// Thinking.
        Thinking => "thinking",
        /// Reconsidering.
        Reconsidering => "reconsidering",
        /// Steered by the user.
        Steer => "steer",
        /// Web search.
        WebSearch => "web_search",
        /// Visiting a page.
        VisitPage => "visit_page",
        /// Workspace search.
        WorkspaceSearch => "workspace_search",
        /// Research.
        Research => "research",
        /// Version-control access.
        VcsAccess => "vcs_access",
        /// Issue-tracker access.
        TrackerAccess => "tracker_access",
        /// A message was sent.
        MessageSent => "message_sent",
        /// A message was edited.
        MessageEdited => "message_edited",
        /// The response.
        Response => "response",
        /// A tool call.
        ToolCall => "tool_call",
        /// A tool error.
        ToolError => "tool_error",
        /// Rate limited.
        RateLimited => "rate_limited",
        /// Retrying after a rate limit.
        RateLimitRetry => "rate_limit_retry",
        /// Digest of a turn.
        TurnDigest => "turn_digest",
        /// Escalated to another model.
        ModelEscalated => "model_escalated",
    }
);

open_enum!(
    /// The kind of a completion source (`sources[].type`): an open enum.
    SourceType {
        /// A web page.
        Web => "web",
        /// A workspace item.
        Workspace => "workspace",
        /// A version-control item.
        Vcs => "vcs",
    }
);

fn check_claim(c: &mut Check, instance_id: &str, claim_token: &ClaimToken) {
    c.len("instanceId", instance_id, 1, 128);
    c.len("claimToken", claim_token.expose(), 1, 256);
}

fn check_step_type(c: &mut Check, step_type: &StepType) {
    c.known("stepType", step_type.is_known(), StepType::KNOWN);
}

/// `POST bot-invocations/claim`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ClaimRequest {
    /// The runtime kind.
    pub runtime_kind: RuntimeKind,
    /// 1 to 128.
    pub instance_id: String,
    /// Capabilities the runtime serves (required).
    pub supported_capabilities: Vec<String>,
    /// 15 to 300 (required; 60 is the service's default).
    pub claim_ttl_seconds: u32,
    /// 1 to 256.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_session_id: Option<String>,
    /// 1 to 64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_stream_id: Option<String>,
    /// Response streams to skip.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_response_stream_ids: Option<Vec<String>>,
    /// Claim this invocation only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invocation_id: Option<String>,
}

impl ClaimRequest {
    /// A claim with the default TTL of 60 seconds.
    pub fn new(
        runtime_kind: RuntimeKind,
        instance_id: impl Into<String>,
        supported_capabilities: Vec<String>,
    ) -> Self {
        ClaimRequest {
            runtime_kind,
            instance_id: instance_id.into(),
            supported_capabilities,
            claim_ttl_seconds: DEFAULT_CLAIM_TTL_SECONDS,
            runtime_session_id: None,
            response_stream_id: None,
            exclude_response_stream_ids: None,
            invocation_id: None,
        }
    }
}

impl Validate for ClaimRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.known(
            "runtimeKind",
            self.runtime_kind.is_known(),
            RuntimeKind::KNOWN,
        );
        c.len("instanceId", &self.instance_id, 1, 128);
        c.range("claimTtlSeconds", self.claim_ttl_seconds.into(), 15, 300);
        c.opt_len(
            "runtimeSessionId",
            self.runtime_session_id.as_deref(),
            1,
            256,
        );
        c.opt_len(
            "responseStreamId",
            self.response_stream_id.as_deref(),
            1,
            64,
        );
        c.finish()
    }
}

/// `POST bot-invocations/{id}/renew`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct RenewRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub claim_token: ClaimToken,
    /// 15 to 300, default 60.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_ttl_seconds: Option<u32>,
    /// The source revision the runtime works from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known_source_revision: Option<u32>,
    /// A revision from which the runtime must restart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub restart_required_revision: Option<u32>,
}

impl Validate for RenewRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_claim(&mut c, &self.instance_id, &self.claim_token);
        c.opt_range("claimTtlSeconds", self.claim_ttl_seconds, 15, 300);
        c.finish()
    }
}

/// `POST bot-invocations/{id}/progress` (slash commands only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ProgressRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub claim_token: ClaimToken,
    /// The progress step text.
    pub step: String,
}

impl Validate for ProgressRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_claim(&mut c, &self.instance_id, &self.claim_token);
        c.finish()
    }
}

/// `POST bot-invocations/{id}/steps`: a plaintext trace step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct StepRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub claim_token: ClaimToken,
    /// The step type.
    pub step_type: StepType,
    /// 1 to 10000.
    pub content: String,
    /// At most 200.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_text: Option<String>,
    /// 1 to 128; dedupes retries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_step_id: Option<String>,
    /// Phase; values not shown in the spec.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Duration in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl Validate for StepRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_claim(&mut c, &self.instance_id, &self.claim_token);
        check_step_type(&mut c, &self.step_type);
        c.len("content", &self.content, 1, 10_000);
        c.opt_len("statusText", self.status_text.as_deref(), 0, 200);
        c.opt_len("clientStepId", self.client_step_id.as_deref(), 1, 128);
        c.finish()
    }
}

/// `POST bot-invocations/{id}/messages`: a plaintext message into the
/// invocation's response stream.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct InvocationMessageRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub claim_token: ClaimToken,
    /// Markdown (required).
    pub content: String,
    /// Dedupes retries; at most 128.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_message_id: Option<String>,
    /// Metadata of the message (string to string).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<BTreeMap<String, String>>,
}

impl Validate for InvocationMessageRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_claim(&mut c, &self.instance_id, &self.claim_token);
        c.opt_len(
            "clientMessageId",
            self.client_message_id.as_deref(),
            0,
            MAX_CLIENT_MESSAGE_ID_LEN,
        );
        c.finish()
    }
}

/// `POST bot-invocations/{id}/sealed-steps/started`: opens an in-flight sealed step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedStepStartedRequest {
    /// 1 to 128, client-minted.
    pub step_id: String,
    /// The step type.
    pub step_type: StepType,
    /// 1 to 128.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// Base64 ciphertext.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ciphertext: Option<String>,
    /// Its envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Envelope>,
}

impl Validate for SealedStepStartedRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("stepId", &self.step_id, 1, 128);
        check_step_type(&mut c, &self.step_type);
        c.opt_len("messageId", self.message_id.as_deref(), 1, 128);
        c.finish()
    }
}

/// `POST bot-invocations/{id}/sealed-steps`: finalises a sealed step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedStepRequest {
    /// 1 to 128, client-minted.
    pub step_id: String,
    /// The step type.
    pub step_type: StepType,
    /// `{ciphertext, envelope}` (required), at the top level.
    #[serde(flatten)]
    pub sealed: SealedPayload,
    /// 1 to 128.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// 0 or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl Validate for SealedStepRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("stepId", &self.step_id, 1, 128);
        check_step_type(&mut c, &self.step_type);
        c.opt_len("messageId", self.message_id.as_deref(), 1, 128);
        c.finish()
    }
}

/// `POST bot-invocations/{id}/sealed-messages`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedMessageRequest {
    /// 1 to 128, client-minted (see [`crate::ids::MessageId::mint`]);
    /// binds the seal and dedupes retries.
    pub message_id: String,
    /// `{ciphertext, envelope}`, at the top level.
    #[serde(flatten)]
    pub sealed: SealedPayload,
    /// Attachments to link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment_ids: Option<Vec<String>>,
}

impl Validate for SealedMessageRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("messageId", &self.message_id, 1, 128);
        c.finish()
    }
}

/// `reply` of `sealed-complete`: `{messageId, ciphertext, envelope, attachmentIds?}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedReply {
    /// Client-minted message id.
    pub message_id: String,
    /// `{ciphertext, envelope}`, flattened.
    #[serde(flatten)]
    pub sealed: SealedPayload,
    /// Attachments to link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachment_ids: Option<Vec<String>>,
}

/// `POST bot-invocations/{id}/sealed-complete`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedCompleteRequest {
    /// The source revision answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_revision: Option<u32>,
    /// The sealed reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<SealedReply>,
    /// Complete without a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_response: Option<bool>,
}

impl Validate for SealedCompleteRequest {
    fn validate(&self) -> Result<()> {
        // The spec gives this body no bounds; the reply's `{ciphertext,
        // envelope}` is checked when it is sealed.
        Ok(())
    }
}

/// A source of a completion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CompletionSource {
    /// `web`, `workspace` or `vcs`.
    #[serde(rename = "type")]
    pub source_type: SourceType,
    /// 1 to 500.
    pub title: String,
    /// 1 to 2000.
    pub url: String,
    /// At most 2000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

/// `sealedReply` of `complete`: `{messageId, ciphertext, envelope}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CompleteSealedReply {
    /// Client-minted message id.
    pub message_id: String,
    /// `{ciphertext, envelope}`, flattened.
    #[serde(flatten)]
    pub sealed: SealedPayload,
}

/// `POST bot-invocations/{id}/complete`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct CompleteRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub claim_token: ClaimToken,
    /// The source revision answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_revision: Option<u32>,
    /// 1 to 50000.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_message_markdown: Option<String>,
    /// Complete without a reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_response: Option<bool>,
    /// A summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Sources cited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<Vec<CompletionSource>>,
    /// Metadata; its shape is not shown beyond "object".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown> | null"))]
    pub metadata: Option<Map<String, Value>>,
    /// A sealed reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sealed_reply: Option<CompleteSealedReply>,
}

impl Validate for CompleteRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_claim(&mut c, &self.instance_id, &self.claim_token);
        c.opt_len(
            "finalMessageMarkdown",
            self.final_message_markdown.as_deref(),
            1,
            50_000,
        );
        for (i, source) in self.sources.iter().flatten().enumerate() {
            let at = item("sources", i);
            c.known(
                &path(&at, "type"),
                source.source_type.is_known(),
                SourceType::KNOWN,
            );
            c.len(&path(&at, "title"), &source.title, 1, 500);
            c.len(&path(&at, "url"), &source.url, 1, 2000);
            c.opt_len(&path(&at, "snippet"), source.snippet.as_deref(), 0, 2000);
        }
        c.finish()
    }
}

/// `POST bot-invocations/{id}/fail`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct FailRequest {
    /// 1 to 128.
    pub instance_id: String,
    /// 1 to 256.
    pub claim_token: ClaimToken,
    /// Why it failed (required).
    pub error_message: String,
}

impl Validate for FailRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        check_claim(&mut c, &self.instance_id, &self.claim_token);
        c.finish()
    }
}

/// The wire forms the sealed bodies decode through: each body's fields
/// with `{ciphertext, envelope}` as plain fields, so that serde reports the
/// path of a mistake inside them.
mod sealed_wire {
    use serde::Deserialize;

    use crate::requests::invocation::StepType;
    use streamseal_crypto::envelope::Envelope;

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Step {
        pub(super) step_id: String,
        pub(super) step_type: StepType,
        pub(super) ciphertext: String,
        pub(super) envelope: Envelope,
        #[serde(default)]
        pub(super) message_id: Option<String>,
        #[serde(default)]
        pub(super) duration_ms: Option<u64>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Message {
        pub(super) message_id: String,
        pub(super) ciphertext: String,
        pub(super) envelope: Envelope,
        #[serde(default)]
        pub(super) attachment_ids: Option<Vec<String>>,
    }

    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub(super) struct Reply {
        pub(super) message_id: String,
        pub(super) ciphertext: String,
        pub(super) envelope: Envelope,
    }
}

impl<'de> Deserialize<'de> for SealedStepRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = sealed_wire::Step::deserialize(d)?;
        Ok(SealedStepRequest {
            step_id: w.step_id,
            step_type: w.step_type,
            sealed: SealedPayload {
                ciphertext: w.ciphertext,
                envelope: w.envelope,
                extra: Default::default(),
            },
            message_id: w.message_id,
            duration_ms: w.duration_ms,
        })
    }
}

impl<'de> Deserialize<'de> for SealedMessageRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = sealed_wire::Message::deserialize(d)?;
        Ok(SealedMessageRequest {
            message_id: w.message_id,
            sealed: SealedPayload {
                ciphertext: w.ciphertext,
                envelope: w.envelope,
                extra: Default::default(),
            },
            attachment_ids: w.attachment_ids,
        })
    }
}

impl<'de> Deserialize<'de> for SealedReply {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // The same fields as a sealed message.
        let w = sealed_wire::Message::deserialize(d)?;
        Ok(SealedReply {
            message_id: w.message_id,
            sealed: SealedPayload {
                ciphertext: w.ciphertext,
                envelope: w.envelope,
                extra: Default::default(),
            },
            attachment_ids: w.attachment_ids,
        })
    }
}

impl<'de> Deserialize<'de> for CompleteSealedReply {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let w = sealed_wire::Reply::deserialize(d)?;
        Ok(CompleteSealedReply {
            message_id: w.message_id,
            sealed: SealedPayload {
                ciphertext: w.ciphertext,
                envelope: w.envelope,
                extra: Default::default(),
            },
        })
    }
}
