//! Unknown fields of a response object, kept (API §9.6), and the JSON form
//! of the crypto layer's records.
//!
//! [`Extra`] lives in the crypto layer, which keeps no JSON library: its
//! values are [`streamseal_crypto::extra::Value`]. This module adds what JSON
//! callers want: [`ExtraJson`] reads and writes the fields as
//! `serde_json::Value`s, and [`JsonRecord`] parses and writes the crypto
//! records (`SealedPayload`, `Envelope`, `KeyWrap`, `KdfParams`) as JSON text.
//!
//! ```
//! use streamseal_wire::{parse_data, conversation::Conversation, ExtraJson};
//!
//! let json = r#"{"data":{"id":"conversation_1","streamId":"stream_1","rootStreamId":"stream_1",
//!   "topicSummary":null,"summary":null,"status":"active","messageCount":2,"participantIds":[],
//!   "lastActivityAt":"2026-08-01T00:00:00Z","createdAt":"2026-08-01T00:00:00Z",
//!   "updatedAt":"2026-08-01T00:00:00Z","mood":{"score":0.5}}}"#;
//! let c: Conversation = parse_data(json)?;
//! assert_eq!(c.extra.get_json("mood"), Some(serde_json::json!({"score": 0.5})));
//! assert!(serde_json::to_string(&c).unwrap().contains(r#""mood":{"score":0.5}"#));
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub use streamseal_crypto::extra::{Extra, Iter, KEY_NEWTYPE, Key};

use streamseal_crypto::envelope::{Envelope, SealedPayload};
use streamseal_crypto::error::{Error, Result};
use streamseal_crypto::kdf::KdfParams;
use streamseal_crypto::wrap::KeyWrap;

/// `serde_json` access to the unknown fields of an [`Extra`].
pub trait ExtraJson: Sized {
    /// The value of the unknown field `key` as JSON, if the service sent it.
    fn get_json(&self, key: &str) -> Option<Value>;
    /// Adds or replaces an unknown field.
    fn insert_json(&mut self, key: impl Into<String>, value: Value);
    /// The unknown fields as a JSON object (a copy).
    fn to_json_map(&self) -> Map<String, Value>;
    /// The unknown fields of a JSON object.
    fn from_json_map(map: Map<String, Value>) -> Self;
}

/// Converts between the two value types through serde, which cannot fail:
/// both are the JSON data model.
fn convert<T: DeserializeOwned>(value: impl Serialize) -> Option<T> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

impl ExtraJson for Extra {
    fn get_json(&self, key: &str) -> Option<Value> {
        self.get(key).and_then(convert)
    }

    fn insert_json(&mut self, key: impl Into<String>, value: Value) {
        if let Some(v) = convert(value) {
            self.insert(key, v);
        }
    }

    fn to_json_map(&self) -> Map<String, Value> {
        self.iter()
            .filter_map(|(k, v)| Some((k.clone(), convert(v)?)))
            .collect()
    }

    fn from_json_map(map: Map<String, Value>) -> Self {
        map.into_iter()
            .filter_map(|(k, v)| Some((k, convert(v)?)))
            .collect()
    }
}

/// The JSON text form of a record that carries sealed data.
pub trait JsonRecord: Serialize + DeserializeOwned {
    /// Parses the record from a JSON object (unknown fields are kept in its
    /// `extra`). serde's derived `Deserialize` would also take a struct as a
    /// positional array, a second spelling of the wire shape; this refuses
    /// it. (Nested values keep serde's behaviour; the spelling of JSON never
    /// affects what the AAD binds.) A key twice in one object, at any depth,
    /// is refused, as by [`crate::parse`].
    ///
    /// # Errors
    ///
    /// `MALFORMED_JSON` when `json` is not a JSON object of the record's shape.
    fn from_json(json: &str) -> Result<Self> {
        if !json.trim_start().starts_with('{') {
            return Err(Error::MalformedJson {
                reason: "expected a JSON object".to_owned(),
            });
        }
        crate::parse(json)
    }

    /// Serialises the record as compact JSON.
    fn to_json(&self) -> String {
        // Records of strings, integers and JSON values cannot fail to serialise.
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl JsonRecord for SealedPayload {}
impl JsonRecord for Envelope {}
impl JsonRecord for KeyWrap {}
impl JsonRecord for KdfParams {}
