//! The realtime events of the `/bot` namespace (API §6), decoded: the
//! payloads the spec shows typed, the others kept as JSON text.

use streamseal::envelope::SealedPayload;
use streamseal::wire::events::{Event, HelloAck};

use crate::error::{Result, from_json};

/// A realtime event. Every variant but `E2eRevoke` and `SealedSteps` keeps its payload as
/// JSON text (`payload_json`), for what the typed fields leave out and to
/// hand on (a `decision:resolved` payload is `open_decision_answer`'s
/// `event_json`).
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Enum)]
pub enum RealtimeEvent {
    /// `bot_invocation:available`: claimable work (payload not shown by the spec).
    InvocationAvailable {
        /// The payload.
        payload_json: String,
    },
    /// `bot:invocation:sealed-steps` (runtime to server; decoded for
    /// symmetry and tests). Its payload, which holds the invocation's
    /// callback token, is not kept: the token is a secret.
    SealedSteps {
        /// The invocation the steps belong to.
        invocation_id: String,
        /// How many step frames it carries.
        step_count: u32,
    },
    /// `decision:resolved`: an answer to a decision card.
    DecisionResolved {
        /// The decision.
        decision_id: String,
        /// The option the server says was chosen: clear, unproven. Act only on
        /// the answer `open_decision_answer` proves from the sealed note.
        claimed_option_id: String,
        /// Who decided.
        decided_by: String,
        /// The sealed note, when the event carries one.
        note: Option<SealedPayload>,
        /// The payload (`open_decision_answer`'s `event_json`).
        payload_json: String,
    },
    /// `bot:e2e_revoke`: drop the stream's key, then write presence again.
    E2eRevoke {
        /// The workspace.
        workspace_id: String,
        /// The bot removed.
        bot_id: String,
        /// The sealed stream.
        stream_id: String,
    },
    /// `bot:e2e_grant`: invited to a sealed scratchpad (payload not shown by the spec).
    E2eGrant {
        /// The payload.
        payload_json: String,
    },
    /// An event this library does not know.
    Other {
        /// Its name.
        name: String,
        /// The payload.
        payload_json: String,
    },
}

/// Decodes a realtime event from its name and payload (JSON text). A known
/// event whose payload does not have its shape, or any payload with a key
/// twice in one object (`wire::parse_value`, as the endpoints' responses),
/// is `MALFORMED_JSON`.
#[uniffi::export]
pub fn decode_event(name: String, payload_json: String) -> Result<RealtimeEvent> {
    let event = Event::from_parts(&name, streamseal::wire::parse_value(&payload_json)?)?;
    Ok(match event {
        Event::InvocationAvailable(_) => RealtimeEvent::InvocationAvailable { payload_json },
        Event::SealedSteps(e) => RealtimeEvent::SealedSteps {
            invocation_id: e.invocation_id.clone(),
            step_count: u32::try_from(e.steps.len()).unwrap_or(u32::MAX),
        },
        Event::DecisionResolved(e) => RealtimeEvent::DecisionResolved {
            note: e.note(),
            decision_id: e.decision_id,
            claimed_option_id: e.option_id,
            decided_by: e.decided_by,
            payload_json,
        },
        Event::E2eRevoke(e) => RealtimeEvent::E2eRevoke {
            workspace_id: e.workspace_id,
            bot_id: e.bot_id,
            stream_id: e.stream_id,
        },
        Event::E2eGrant(_) => RealtimeEvent::E2eGrant { payload_json },
        Event::Other { name, .. } => RealtimeEvent::Other { name, payload_json },
    })
}

/// The socket's hello acknowledgement, decoded.
#[derive(Debug, Clone, PartialEq, Eq, uniffi::Record)]
pub struct HelloAckInfo {
    /// Sealed streams granted while the runtime was offline.
    pub e2e_granted_stream_ids: Vec<String>,
    /// The payload as it came (the bot id is in it, under a field name the spec does not show).
    pub payload_json: String,
}

/// Decodes the socket's hello acknowledgement (JSON text).
#[uniffi::export]
pub fn decode_hello_ack(payload_json: String) -> Result<HelloAckInfo> {
    let ack: HelloAck = from_json(&payload_json)?;
    Ok(HelloAckInfo {
        e2e_granted_stream_ids: ack.e2e_granted_stream_ids,
        payload_json,
    })
}
