//! Realtime events of the `/bot` namespace (API §6).
//!
//! Payloads the spec shows are typed: `decision:resolved`, `bot:e2e_revoke`,
//! `bot:invocation:sealed-steps` and the hello acknowledgement's
//! `e2eGrantedStreamIds`. The payloads of `bot_invocation:available` and
//! `bot:e2e_grant` are not shown, so they are kept as raw JSON; so is any
//! event this library does not know.
//!
//! ```
//! use streamseal_wire::events::Event;
//!
//! let event = Event::from_parts("bot:e2e_revoke",
//!     serde_json::json!({"workspaceId":"ws_1","botId":"bot_1","streamId":"stream_1"}))?;
//! assert!(matches!(event, Event::E2eRevoke(_)));
//! assert_eq!(event.name(), "bot:e2e_revoke");
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::extra::Extra;
use crate::secret::CallbackToken;
use streamseal_crypto::envelope::{Envelope, SealedPayload};
use streamseal_crypto::error::{Error, Result};

/// `bot_invocation:available` (server to runtime).
pub const INVOCATION_AVAILABLE: &str = "bot_invocation:available";
/// `bot:invocation:sealed-steps` (runtime to server).
pub const SEALED_STEPS: &str = "bot:invocation:sealed-steps";
/// `decision:resolved` (server to runtime).
pub const DECISION_RESOLVED: &str = "decision:resolved";
/// `bot:e2e_revoke` (server to runtime).
pub const E2E_REVOKE: &str = "bot:e2e_revoke";
/// `bot:e2e_grant` (server to runtime).
pub const E2E_GRANT: &str = "bot:e2e_grant";

/// `decision:resolved`: an answer to a decision card.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct DecisionResolved {
    /// The `dreq_` decision.
    pub decision_id: String,
    /// The chosen option (clear).
    pub option_id: String,
    /// Who decided.
    pub decided_by: String,
    /// The sealed note's ciphertext, when a note was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note_ciphertext: Option<String>,
    /// The sealed note's envelope, when a note was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note_envelope: Option<Envelope>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

impl DecisionResolved {
    /// The sealed note as `{ciphertext, envelope}`, when both halves are present.
    pub fn note(&self) -> Option<SealedPayload> {
        match (&self.note_ciphertext, &self.note_envelope) {
            (Some(ciphertext), Some(envelope)) => Some(SealedPayload {
                ciphertext: ciphertext.clone(),
                envelope: envelope.clone(),
                extra: Default::default(),
            }),
            _ => None,
        }
    }
}

/// `bot:e2e_revoke`: the owner removed the bot from a sealed scratchpad.
/// The runtime drops the stream's key and writes presence again.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct E2eRevoke {
    /// The workspace.
    pub workspace_id: String,
    /// The bot.
    pub bot_id: String,
    /// The sealed stream.
    pub stream_id: String,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// `bot:invocation:sealed-steps`: `{invocationId, callbackToken, steps}` for
/// high-volume sealed steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedSteps {
    /// The invocation.
    pub invocation_id: String,
    /// The sealed context's callback token.
    pub callback_token: CallbackToken,
    /// The frames: sealed step bodies.
    pub steps: Vec<SealedStepFrame>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// A frame of [`SealedSteps`]: a sealed step body, as
/// `sealed-steps/started` (ciphertext optional) or `sealed-steps`
/// (ciphertext required) take it; the union of the two.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SealedStepFrame {
    /// Client-minted step id.
    pub step_id: String,
    /// The step type.
    pub step_type: crate::requests::invocation::StepType,
    /// The message the step refers to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The sealed body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ciphertext: Option<String>,
    /// Its envelope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub envelope: Option<Envelope>,
    /// Duration in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// The hello acknowledgement of the socket. It carries the bot id (under a
/// field name the spec does not show) and `e2eGrantedStreamIds`, the grants
/// missed while offline; every field but the latter is kept as raw JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct HelloAck {
    /// Sealed streams granted while the runtime was offline.
    pub e2e_granted_stream_ids: Vec<String>,
    /// The other fields, as they came.
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub fields: Map<String, Value>,
}

/// A named event with its payload.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// `bot_invocation:available`; payload not shown, kept raw.
    InvocationAvailable(Value),
    /// `bot:invocation:sealed-steps`.
    SealedSteps(SealedSteps),
    /// `decision:resolved`.
    DecisionResolved(DecisionResolved),
    /// `bot:e2e_revoke`.
    E2eRevoke(E2eRevoke),
    /// `bot:e2e_grant`; payload not shown, kept raw.
    E2eGrant(Value),
    /// An event this library does not know.
    Other {
        /// The event name.
        name: String,
        /// Its payload.
        payload: Value,
    },
}

fn typed<'de, T: Deserialize<'de>, D: serde::Deserializer<'de>>(payload: D) -> Result<T> {
    T::deserialize(payload).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

fn raw<T: Serialize>(payload: &T) -> Value {
    serde_json::to_value(payload).unwrap_or(Value::Null)
}

impl Event {
    /// Whether this library reads `name`'s payload into a typed shape
    /// ([`Event::decode`]); the others are kept as they came, so a binding
    /// may hand them back unread.
    pub fn has_typed_payload(name: &str) -> bool {
        matches!(name, SEALED_STEPS | DECISION_RESOLVED | E2E_REVOKE)
    }

    /// Reads an event from its name and payload. A known event whose
    /// payload does not have the shown shape is an error.
    ///
    /// # Errors
    ///
    /// `MALFORMED_JSON` when a known event's payload does not have its shape.
    pub fn from_parts(name: &str, payload: Value) -> Result<Self> {
        Self::decode(name, payload)
    }

    /// [`Event::from_parts`] reading the payload from any serde
    /// `Deserializer` (a JSON text's, a `Value`, or the WASM binding's JS
    /// value), so that a binding decodes the payload once, with the
    /// deserializer it already has, instead of building a `Value` first.
    ///
    /// # Errors
    ///
    /// `MALFORMED_JSON` when a known event's payload does not have its shape.
    pub fn decode<'de, D>(name: &str, payload: D) -> Result<Self>
    where
        D: serde::Deserializer<'de>,
    {
        Ok(match name {
            INVOCATION_AVAILABLE => Event::InvocationAvailable(typed(payload)?),
            SEALED_STEPS => Event::SealedSteps(typed(payload)?),
            DECISION_RESOLVED => Event::DecisionResolved(typed(payload)?),
            E2E_REVOKE => Event::E2eRevoke(typed(payload)?),
            E2E_GRANT => Event::E2eGrant(typed(payload)?),
            _ => Event::Other {
                name: name.to_owned(),
                payload: typed(payload)?,
            },
        })
    }

    /// The event name.
    pub fn name(&self) -> &str {
        match self {
            Event::InvocationAvailable(_) => INVOCATION_AVAILABLE,
            Event::SealedSteps(_) => SEALED_STEPS,
            Event::DecisionResolved(_) => DECISION_RESOLVED,
            Event::E2eRevoke(_) => E2E_REVOKE,
            Event::E2eGrant(_) => E2E_GRANT,
            Event::Other { name, .. } => name,
        }
    }

    /// The payload as JSON.
    pub fn payload(&self) -> Value {
        match self {
            Event::InvocationAvailable(v) | Event::E2eGrant(v) => v.clone(),
            Event::SealedSteps(p) => raw(p),
            Event::DecisionResolved(p) => raw(p),
            Event::E2eRevoke(p) => raw(p),
            Event::Other { payload, .. } => payload.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `has_typed_payload` says exactly which payloads `decode` reads into a
    /// shape: those refuse a payload of another shape, the others keep it.
    #[test]
    fn typed_payloads_are_the_ones_decode_shapes() {
        for name in [
            INVOCATION_AVAILABLE,
            SEALED_STEPS,
            DECISION_RESOLVED,
            E2E_REVOKE,
            E2E_GRANT,
            "bot:later",
        ] {
            let shaped = Event::decode(name, serde_json::json!([1])).is_err();
            assert_eq!(shaped, Event::has_typed_payload(name), "{name}");
        }
    }
}
