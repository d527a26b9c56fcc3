//! Wire types of the workspace messaging API: resources, requests with
//! their bounds, errors, events and versions.
//!
//! - [`ids`] and [`secret`]: typed identifiers (prefix + ULID) and secrets
//!   (API keys, claim and callback tokens).
//! - [`version`] and [`versioned`]: dated API versions, and one normalised
//!   model per shape read from and written to any version's JSON.
//! - Resources (section 2): [`message`], [`stream`], [`conversation`],
//!   [`memo`], [`attachment`], [`label`], [`bot`], [`presence`],
//!   [`invocation`], [`delegation`], [`keys`], [`me`], with [`list`]
//!   envelopes and the hydration [`slots`].
//! - [`requests`]: request bodies, validated against the spec's bounds
//!   ([`validate`] has the field-path convention).
//! - [`error_body`] (section 7) and [`events`] (section 6).
//!
//! Tolerance (section 9.6): no response type denies unknown fields; every
//! response object keeps the fields it does not know in its `extra` map
//! ([`Extra`]) and writes them back unchanged, and every open enum keeps an
//! unknown value so that it serialises back unchanged. Where the spec says
//! "not shown", nothing is invented: the value is kept as raw JSON, and the
//! type's docs say so.
//!
//! Responses are wrapped as `{"data": ...}`; [`parse_data`] unwraps them
//! (and returns the resource only: a key beside `data` is not kept).
//!
//! ```
//! use streamseal::wire::{parse_data, conversation::{Conversation, ConversationStatus}};
//!
//! let c: Conversation = parse_data(r#"{"data":{"id":"conversation_1","streamId":"stream_1",
//!   "rootStreamId":"stream_1","topicSummary":null,"summary":null,"status":"dormant",
//!   "messageCount":2,"participantIds":["usr_1"],"lastActivityAt":"2026-08-01T00:00:00Z",
//!   "createdAt":"2026-08-01T00:00:00Z","updatedAt":"2026-08-01T00:00:00Z","later":1}}"#)?;
//! // An unknown status is kept, and so is the unknown field.
//! assert_eq!(c.status, ConversationStatus::Other("dormant".into()));
//! assert_eq!(c.extra.get("later"), Some(&serde_json::json!(1)));
//! let back = serde_json::to_string(&c).unwrap();
//! assert!(back.contains("\"status\":\"dormant\"") && back.contains("\"later\":1"));
//! # Ok::<(), streamseal::Error>(())
//! ```

pub(crate) mod open_enum;

pub mod attachment;
pub mod bot;
pub mod common;
pub mod conversation;
pub mod delegation;
pub mod error_body;
pub mod events;
pub mod extra;
pub mod ids;
pub mod inspect;
pub mod invocation;
pub mod keys;
pub mod label;
pub mod list;
pub mod me;
pub mod memo;
pub mod message;
pub mod presence;
pub mod requests;
pub mod secret;
pub mod slots;
pub mod stream;
pub mod validate;
pub mod version;
pub mod versioned;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub use extra::Extra;

/// Parses a JSON document into a wire type. Failures are
/// [`Error::MalformedJson`] (the message names the problem, never the input).
pub fn parse<T: DeserializeOwned>(json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

#[derive(Deserialize)]
struct DataEnvelope<T> {
    data: T,
}

#[derive(Serialize)]
struct DataEnvelopeRef<'a, T> {
    data: &'a T,
}

/// Parses a single-object response `{"data": ...}` into its `data`.
pub fn parse_data<T: DeserializeOwned>(json: &str) -> Result<T> {
    parse::<DataEnvelope<T>>(json).map(|e| e.data)
}

/// Serialises a value wrapped as `{"data": ...}`.
pub fn to_data_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(&DataEnvelopeRef { data: value }).unwrap_or_default()
}
