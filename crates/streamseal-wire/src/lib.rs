//! Wire types of the workspace messaging API: resources, requests with
//! their bounds, errors, events and versions.
//!
//! - [`ids`] and [`secret`]: typed identifiers (prefix + ULID) and secrets
//!   (API keys, claim and callback tokens).
//! - [`version`] and [`versioned`]: dated API versions, and one normalised
//!   model per shape read from and written to any version's JSON.
//! - Resources (API §2): [`message`], [`stream`], [`conversation`],
//!   [`memo`], [`attachment`], [`label`], [`bot`], [`presence`],
//!   [`invocation`], [`delegation`], [`keys`], [`me`], with [`list`]
//!   envelopes and the hydration [`slots`].
//! - [`requests`]: request bodies, validated against the spec's bounds
//!   ([`validate`] has the field-path convention).
//! - [`error_body`] (API §7) and [`events`] (API §6).
//! - [`shape`]: each response type's fields as a static table
//!   (`#[derive(WireShape)]`) and one reader of every table, which accepts
//!   and writes what the typed read does (the npm package's endpoint
//!   module reads with it).
//!
//! Tolerance (API §9.6): no response type denies unknown fields; every
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
//! use streamseal_wire::{parse_data, conversation::{Conversation, ConversationStatus}, ExtraJson};
//!
//! let c: Conversation = parse_data(r#"{"data":{"id":"conversation_1","streamId":"stream_1",
//!   "rootStreamId":"stream_1","topicSummary":null,"summary":null,"status":"dormant",
//!   "messageCount":2,"participantIds":["usr_1"],"lastActivityAt":"2026-08-01T00:00:00Z",
//!   "createdAt":"2026-08-01T00:00:00Z","updatedAt":"2026-08-01T00:00:00Z","later":1}}"#)?;
//! // An unknown status is kept, and so is the unknown field.
//! assert_eq!(c.status, ConversationStatus::Other("dormant".into()));
//! assert_eq!(c.extra.get_json("later"), Some(serde_json::json!(1)));
//! let back = serde_json::to_string(&c).unwrap();
//! assert!(back.contains("\"status\":\"dormant\"") && back.contains("\"later\":1"));
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

#![forbid(unsafe_code)]

// `::streamseal_wire::shape` names the same paths here as in the crates
// that derive `WireShape` for their own types.
extern crate self as streamseal_wire;

// `ts_decl!`, the TypeScript declarations of hand-written serde forms.
#[macro_use]
extern crate streamseal_crypto;

pub(crate) mod open_enum;

pub mod attachment;
pub mod bot;
pub mod common;
pub mod conversation;
pub mod delegation;
pub mod error_body;
pub mod events;
pub mod extra;
pub mod http_date;
pub mod ids;
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
pub mod shape;
pub mod slots;
pub mod stream;
pub mod validate;
pub mod version;
pub mod versioned;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use extra::{Extra, ExtraJson, JsonRecord};

/// The one error type of every layer (crate `streamseal-crypto`), for the
/// layers above the wire that depend on it alone.
pub use streamseal_crypto::error;
pub use streamseal_crypto::error::{ErrorCode, ValidationDetails};
/// The operating system's randomness (crate `streamseal-crypto`), for the
/// layers above: the jitter of the retry policy, minted ids.
pub use streamseal_crypto::random;
/// `ts_decl!` for the layers above (the sans-IO endpoints).
#[doc(hidden)]
pub use streamseal_crypto::ts_decl;
pub use streamseal_crypto::{Error, Result};

/// Parses a JSON document into a wire type: [`parse_value`], then
/// [`from_value`], so that an object with a key twice, at any depth, is
/// refused here too. Failures are [`Error::MalformedJson`] (the message
/// names the problem, never the input).
///
/// ```
/// let err = streamseal_wire::parse::<serde_json::Value>(r#"{"a":1,"a":1}"#).unwrap_err();
/// assert_eq!(err.code().as_str(), "MALFORMED_JSON");
/// ```
///
/// # Errors
///
/// `MALFORMED_JSON` when `json` is not JSON, has a key twice in one
/// object, or does not read as a `T`.
pub fn parse<T: DeserializeOwned>(json: &str) -> Result<T> {
    from_value(parse_value(json)?)
}

/// JSON text straight into `T`, as serde_json reads it (the last of two
/// keys kept): only for [`OneKeyEach`], which refuses them itself.
fn from_text<T: DeserializeOwned>(json: &str) -> Result<T> {
    serde_json::from_str(json).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

/// Parses a JSON document into an untyped value, refusing an object that
/// has a key twice, at any depth. `serde_json::Value` keeps the last of
/// two; a hostile server could then have this library read one value and
/// another reader the other. Every document this library reads from text
/// goes through this, then into its type: the endpoints' success and error
/// bodies, [`parse`] and [`parse_data`], the sealed records' `from_json`
/// ([`JsonRecord`]), UniFFI's readers of the service's documents and the
/// CLI's of its files.
///
/// ```
/// let value = streamseal_wire::parse_value(r#"{"a":1,"b":[{"c":2}]}"#)?;
/// assert_eq!(value["b"][0]["c"], 2);
/// let err = streamseal_wire::parse_value(r#"{"a":1,"b":[{"c":2,"c":3}]}"#).unwrap_err();
/// assert!(err.to_string().starts_with("malformed JSON: duplicate key in an object at line 1"));
/// # Ok::<(), streamseal_wire::Error>(())
/// ```
///
/// # Errors
///
/// `MALFORMED_JSON` when `json` is not JSON, nests deeper than serde_json's
/// limit (128), or has a key twice in one object.
pub fn parse_value(json: &str) -> Result<serde_json::Value> {
    from_text::<OneKeyEach>(json).map(|v| v.0)
}

/// Reads a wire type from a value [`parse_value`] gave: the second half of
/// reading a success body. Failures are [`Error::MalformedJson`], as with
/// [`parse`].
///
/// # Errors
///
/// `MALFORMED_JSON` when `value` is not a `T`.
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T> {
    serde_json::from_value(value).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

/// A JSON value read with each key of an object at most once.
struct OneKeyEach(serde_json::Value);

impl<'de> Deserialize<'de> for OneKeyEach {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(OneKeyEachVisitor).map(OneKeyEach)
    }
}

struct OneKeyEachVisitor;

impl<'de> serde::de::Visitor<'de> for OneKeyEachVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> std::result::Result<Self::Value, E> {
        // As serde_json's own reader: JSON has no NaN or infinity to give.
        Ok(serde_json::Number::from_f64(v)
            .map_or(serde_json::Value::Null, serde_json::Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut items = Vec::new();
        while let Some(OneKeyEach(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(serde_json::Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Self::Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match object.entry(key) {
                // The key is not named: it is the server's text, of any length.
                serde_json::map::Entry::Occupied(_) => {
                    return Err(serde::de::Error::custom("duplicate key in an object"));
                }
                serde_json::map::Entry::Vacant(slot) => {
                    let OneKeyEach(value) = map.next_value()?;
                    slot.insert(value);
                }
            }
        }
        Ok(serde_json::Value::Object(object))
    }
}

/// `{"data": T, ...}`: the `data` and every other key of the envelope,
/// kept (API §9.6). Read by hand, not derived with `flatten`, so that `T`
/// is read straight from the text as before (one reader of `T` per format,
/// no buffering of the whole `data`).
struct DataEnvelope<T> {
    data: T,
    extra: Extra,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for DataEnvelope<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct Visit<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Visit<T> {
            type Value = DataEnvelope<T>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object with `data`")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<Self::Value, A::Error> {
                let mut data = None;
                let mut extra = Extra::new();
                while next_data_key(&mut map, &mut extra, data.is_some())? {
                    data = Some(map.next_value::<T>()?);
                }
                let data = data.ok_or_else(|| serde::de::Error::missing_field("data"))?;
                Ok(DataEnvelope { data, extra })
            }
        }
        d.deserialize_map(Visit(std::marker::PhantomData))
    }
}

/// Reads the envelope's keys up to the next `data` (true: its value is
/// next) or the end (false), keeping every other key's value in `extra`; a
/// second `data` is a duplicate field. One copy per reader, not one per
/// `T` (in the npm package's second module, each response type's envelope
/// carried this loop).
#[inline(never)]
fn next_data_key<'de, A: serde::de::MapAccess<'de>>(
    map: &mut A,
    extra: &mut Extra,
    seen_data: bool,
) -> std::result::Result<bool, A::Error> {
    while let Some(key) = map.next_key::<String>()? {
        if key == "data" {
            if seen_data {
                return Err(serde::de::Error::duplicate_field("data"));
            }
            return Ok(true);
        }
        extra.insert(key, map.next_value::<streamseal_crypto::extra::Value>()?);
    }
    Ok(false)
}

#[derive(Serialize)]
struct DataEnvelopeRef<'a, T> {
    data: &'a T,
}

/// Parses a single-object response `{"data": ...}` into its `data`.
///
/// # Errors
///
/// `MALFORMED_JSON` when the text is not such an object or `data` is not a `T`.
pub fn parse_data<T: DeserializeOwned>(json: &str) -> Result<T> {
    parse_data_kept(json).map(|(data, _)| data)
}

/// Parses a single-object response `{"data": ...}` into its `data` and the
/// keys beside `data` that the library does not know (API §9.6: the
/// service may add them), kept as [`Extra`].
///
/// ```
/// let (n, extra): (u32, _) = streamseal_wire::parse_data_kept(r#"{"data":7,"meta":{"x":1}}"#)?;
/// use streamseal_wire::ExtraJson;
/// assert_eq!((n, extra.get_json("meta")), (7, Some(serde_json::json!({"x": 1}))));
/// # Ok::<(), streamseal_wire::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::MalformedJson`] when the text is not such an object or `data` is
/// not a `T`.
pub fn parse_data_kept<T: DeserializeOwned>(json: &str) -> Result<(T, Extra)> {
    parse::<DataEnvelope<T>>(json).map(|e| (e.data, e.extra))
}

/// Serialises a value wrapped as `{"data": ...}`.
pub fn to_data_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(&DataEnvelopeRef { data: value }).unwrap_or_default()
}
