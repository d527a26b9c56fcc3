//! Unknown fields of a response object, kept (section 9.6).
//!
//! The spec lets the service add response fields without a new version, and
//! asks clients to ignore what they do not know. Ignoring must not mean
//! losing: an app that reads a resource and writes it back, caches it, or
//! shows a field the library does not know yet, keeps everything the service
//! sent. Every response object of [`crate::wire`] therefore has an `extra`
//! field of type [`Extra`]: the keys the library does not model, as raw JSON,
//! written back unchanged next to the known fields.
//!
//! ```
//! use streamseal::wire::{parse_data, conversation::Conversation};
//!
//! let json = r#"{"data":{"id":"conversation_1","streamId":"stream_1","rootStreamId":"stream_1",
//!   "topicSummary":null,"summary":null,"status":"active","messageCount":2,"participantIds":[],
//!   "lastActivityAt":"2026-08-01T00:00:00Z","createdAt":"2026-08-01T00:00:00Z",
//!   "updatedAt":"2026-08-01T00:00:00Z","mood":{"score":0.5}}}"#;
//! let c: Conversation = parse_data(json)?;
//! assert_eq!(c.extra.get("mood"), Some(&serde_json::json!({"score": 0.5})));
//! assert!(serde_json::to_string(&c).unwrap().contains(r#""mood":{"score":0.5}"#));
//! # Ok::<(), streamseal::Error>(())
//! ```

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The keys of a response object that the library does not know, kept as
/// raw JSON and written back unchanged (API section 9.6: new response fields
/// ship without a new version).
///
/// Each response struct carries one as its last field, `extra`, flattened:
/// on the wire its keys sit beside the known fields. A struct built from
/// another by flattening (a delegation detail on a delegation, a memo result
/// on a memo) keeps the unknown keys of the shared object in the base's
/// `extra`.
///
/// Do not insert a key that names a known field of the same object: it
/// would be written twice, and the known field wins when read back.
///
/// It takes one pointer while empty (most objects), so that the wire types
/// stay small.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Extra(Option<Box<Map<String, Value>>>);

/// The name of the newtype struct each key of an [`Extra`] is serialised
/// as. JSON serialisers (serde_json, serde-wasm-bindgen) write a newtype
/// struct as what it wraps, so on the wire the key is the plain string. A
/// serialiser that wants only what the library models of a value leaves out
/// the entries whose key comes as this newtype struct: the CLI's `inspect`
/// does, to rank the wire kinds that fit a document.
pub const KEY_NEWTYPE: &str = "streamseal::wire::extra::Key";

/// A key of an unknown field, serialised as the newtype struct
/// [`KEY_NEWTYPE`] (the field's key itself in JSON).
pub(crate) struct Key<'a>(pub(crate) &'a str);

impl Serialize for Key<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(KEY_NEWTYPE, self.0)
    }
}

// Crosses UniFFI as the JSON text of the object, or as the empty string
// when there is none: the default of a record field, so that a record built
// in Kotlin, Swift or Python equals the same record returned by the core.
#[cfg(feature = "uniffi")]
uniffi::custom_type!(Extra, String, {
    lower: |extra| if extra.is_empty() {
        String::new()
    } else {
        serde_json::to_string(&extra.to_map()).unwrap_or_default()
    },
    try_lift: |text| {
        if text.trim().is_empty() {
            return Ok(Extra::new());
        }
        serde_json::from_str::<Map<String, Value>>(&text)
            .map(Extra::from)
            .map_err(|_| uniffi::deps::anyhow::anyhow!("extra: expected a JSON object"))
    },
});

impl Serialize for Extra {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(map) => s.collect_map(map.iter().map(|(key, value)| (Key(key), value))),
            None => s.collect_map(std::iter::empty::<(Key<'_>, &Value)>()),
        }
    }
}

impl<'de> Deserialize<'de> for Extra {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Map::deserialize(d).map(Extra::from)
    }
}

/// The iterator of [`Extra::iter`]: the unknown fields, by key.
pub struct Iter<'a>(Option<serde_json::map::Iter<'a>>);

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a String, &'a Value);

    fn next(&mut self) -> Option<Self::Item> {
        self.0.as_mut()?.next()
    }
}

impl Extra {
    /// No unknown fields.
    pub fn new() -> Self {
        Extra::default()
    }

    /// The value of an unknown field.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref()?.get(key)
    }

    /// The unknown fields, by key.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.0.as_ref().map(|map| map.iter()))
    }

    /// Whether no unknown field came.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// How many unknown fields came.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |m| m.len())
    }

    /// Adds or replaces an unknown field, returning the previous value. The
    /// key must not name a known field of the object (see the type's docs).
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.0
            .get_or_insert_with(Box::default)
            .insert(key.into(), value)
    }

    /// Removes an unknown field, returning its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let map = self.0.as_mut()?;
        let out = map.remove(key);
        if map.is_empty() {
            self.0 = None;
        }
        out
    }

    /// The unknown fields as a JSON map.
    pub fn to_map(&self) -> Map<String, Value> {
        self.0.as_deref().cloned().unwrap_or_default()
    }

    /// The unknown fields as a JSON map, taken.
    pub fn into_map(self) -> Map<String, Value> {
        self.0.map(|m| *m).unwrap_or_default()
    }
}

impl From<Map<String, Value>> for Extra {
    fn from(map: Map<String, Value>) -> Self {
        Extra((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl From<Extra> for Map<String, Value> {
    fn from(extra: Extra) -> Self {
        extra.into_map()
    }
}

impl FromIterator<(String, Value)> for Extra {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        Extra::from(iter.into_iter().collect::<Map<String, Value>>())
    }
}

impl<'a> IntoIterator for &'a Extra {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
