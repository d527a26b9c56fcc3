//! The realtime events of the `/bot` namespace (API §6), decoded: the
//! payloads the spec shows typed, the others kept as they came. The same
//! decoder as UniFFI's `decode_event` (the core's `wire::events::Event`).
//!
//! The payload is read once, straight from the JS value (the core's
//! `Event::decode` with serde-wasm-bindgen's deserializer, which the module
//! holds already for `openDecisionAnswer`); the result crosses as JSON text
//! read by the engine's `JSON.parse` ([`output_json`]), and the `payload`
//! a result carries is the caller's own object, not a copy.

use serde::{Deserialize, Serialize};
use streamseal::ErrorCode;
use streamseal::envelope::SealedPayload;
use streamseal::wire::events::{E2E_GRANT, Event, HelloAck, INVOCATION_AVAILABLE};
use tsify::{Ts, Tsify};
use wasm_bindgen::prelude::*;

use crate::error::{JsResult, check_nesting, error_with, js, output_json};

/// A realtime event, tagged by `type`. `decisionResolved`'s option is only
/// what the server claims: act on the answer `openDecisionAnswer` proves
/// from the sealed note.
#[derive(Serialize, Tsify)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum RealtimeEvent {
    /// `bot_invocation:available`: claimable work (payload not shown by the spec).
    InvocationAvailable {
        /// The payload as it came (the caller's object).
        #[tsify(type = "unknown")]
        payload: (),
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
        /// The option the server says was chosen: clear, unproven.
        claimed_option_id: String,
        /// Who decided.
        decided_by: String,
        /// The sealed note, when the event carries one.
        note: Option<SealedPayload>,
        /// The payload as it came (the caller's object; `openDecisionAnswer`'s `event`).
        #[tsify(type = "DecisionResolved")]
        payload: (),
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
        /// The payload as it came (the caller's object).
        #[tsify(type = "unknown")]
        payload: (),
    },
    /// An event this library does not know.
    Other {
        /// Its name.
        name: String,
        /// The payload as it came (the caller's object).
        #[tsify(type = "unknown")]
        payload: (),
    },
}

/// Decodes a realtime event from its name and payload (as the socket gives
/// it). A known event whose payload does not have its shape is
/// `MALFORMED_JSON`.
#[wasm_bindgen(js_name = decodeEvent)]
pub fn decode_event(
    name: &str,
    #[wasm_bindgen(unchecked_param_type = "unknown")] payload: JsValue,
) -> JsResult<Ts<RealtimeEvent>> {
    // The events this library does not type are handed back as they came,
    // never read: a binary or deeply nested payload is the app's to read.
    if !Event::has_typed_payload(name) {
        let kept = match name {
            INVOCATION_AVAILABLE => RealtimeEvent::InvocationAvailable { payload: () },
            E2E_GRANT => RealtimeEvent::E2eGrant { payload: () },
            other => RealtimeEvent::Other {
                name: other.to_owned(),
                payload: (),
            },
        };
        return with_payload(output_json(&kept)?, &payload);
    }
    check_nesting("payload", &payload)?;
    let event = js(Event::decode(
        name,
        serde_wasm_bindgen::Deserializer::from(payload.clone()),
    ))?;
    let decoded = match event {
        Event::InvocationAvailable(_) => RealtimeEvent::InvocationAvailable { payload: () },
        Event::SealedSteps(e) => {
            return output_json(&RealtimeEvent::SealedSteps {
                invocation_id: e.invocation_id.clone(),
                step_count: u32::try_from(e.steps.len()).unwrap_or(u32::MAX),
            });
        }
        Event::DecisionResolved(e) => RealtimeEvent::DecisionResolved {
            note: e.note(),
            decision_id: e.decision_id,
            claimed_option_id: e.option_id,
            decided_by: e.decided_by,
            payload: (),
        },
        Event::E2eRevoke(e) => {
            return output_json(&RealtimeEvent::E2eRevoke {
                workspace_id: e.workspace_id,
                bot_id: e.bot_id,
                stream_id: e.stream_id,
            });
        }
        Event::E2eGrant(_) => RealtimeEvent::E2eGrant { payload: () },
        Event::Other { name, .. } => RealtimeEvent::Other { name, payload: () },
    };
    with_payload(output_json(&decoded)?, &payload)
}

/// `result` with its `payload` the caller's own object.
fn with_payload<T: Tsify>(result: Ts<T>, payload: &JsValue) -> JsResult<Ts<T>> {
    js_sys::Reflect::set(&result.js_value(), &JsValue::from_str("payload"), payload).map_err(
        |_| {
            error_with(
                ErrorCode::MalformedJson,
                "a result did not take its payload",
            )
        },
    )?;
    Ok(result)
}

/// The socket's hello acknowledgement, decoded.
#[derive(Serialize, Tsify)]
#[serde(rename_all = "camelCase")]
pub struct HelloAckInfo {
    /// Sealed streams granted while the runtime was offline.
    pub e2e_granted_stream_ids: Vec<String>,
    /// The payload as it came (the caller's object; the bot id is in it,
    /// under a field name the spec does not show).
    #[tsify(type = "unknown")]
    pub payload: (),
}

/// Decodes the socket's hello acknowledgement. A payload without its shape
/// is `MALFORMED_JSON`.
#[wasm_bindgen(js_name = decodeHelloAck)]
pub fn decode_hello_ack(
    #[wasm_bindgen(unchecked_param_type = "unknown")] payload: JsValue,
) -> JsResult<Ts<HelloAckInfo>> {
    check_nesting("payload", &payload)?;
    let ack = js(
        HelloAck::deserialize(serde_wasm_bindgen::Deserializer::from(payload.clone())).map_err(
            |e| streamseal::Error::MalformedJson {
                reason: e.to_string(),
            },
        ),
    )?;
    let decoded = output_json(&HelloAckInfo {
        e2e_granted_stream_ids: ack.e2e_granted_stream_ids,
        payload: (),
    })?;
    with_payload(decoded, &payload)
}
