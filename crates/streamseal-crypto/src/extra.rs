//! Unknown fields of a JSON object, kept (API §9.6).
//!
//! The spec lets the service add response fields without a new version, and
//! asks clients to ignore what they do not know. Ignoring must not mean
//! losing: an app that reads a resource and writes it back, caches it, or
//! shows a field the library does not know yet, keeps everything the service
//! sent. Every response object of the wire layer, and each JSON record of
//! this crate that carries sealed data ([`KeyWrap`](crate::wrap::KeyWrap),
//! [`Envelope`](crate::envelope::Envelope),
//! [`SealedPayload`](crate::envelope::SealedPayload),
//! [`KdfParams`](crate::kdf::KdfParams)), therefore has an `extra` field of
//! type [`Extra`]: the keys the library does not model, written back
//! unchanged next to the known fields. Nothing in them is ever read when a
//! record is opened or checked (FORMAT.md §2).
//!
//! The values are this module's [`Value`], the JSON data model, so that the
//! crypto layer keeps no JSON library of its own: any serde format (serde_json
//! in the wire layer, serde-wasm-bindgen in the browser) reads and writes it.
//! The wire layer adds `serde_json` conversions (`streamseal::wire::ExtraJson`).
//!
//! ```
//! use streamseal_crypto::extra::{Extra, Value};
//!
//! let mut extra = Extra::new();
//! assert!(extra.is_empty());
//! extra.insert("later", Value::from("kept"));
//! assert_eq!(extra.get("later"), Some(&Value::from("kept")));
//! assert_eq!(extra.len(), 1);
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A JSON value as the service sent it: what an unknown field holds.
///
/// Numbers are kept as serde reads them (a non-negative integer, a negative
/// integer or a finite float), so that they are written back as they came; a
/// float that is not finite (which JSON cannot carry, but a JS caller can
/// pass) is kept as `null`, as `serde_json` does.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Value {
    /// `null`.
    #[default]
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string.
    String(String),
    /// An array.
    Array(Vec<Value>),
    /// An object, keys sorted (the order `serde_json` writes them in).
    Object(BTreeMap<String, Value>),
}

/// A JSON number, as serde read it.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    /// A non-negative integer.
    PosInt(u64),
    /// A negative integer.
    NegInt(i64),
    /// A finite float.
    Float(f64),
}

impl PartialEq for Number {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Number::PosInt(a), Number::PosInt(b)) => a == b,
            (Number::NegInt(a), Number::NegInt(b)) => a == b,
            // Floats are finite (never NaN), so bit equality is equality,
            // but for 0.0 and -0.0, which compare equal as `serde_json` has it.
            (Number::Float(a), Number::Float(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Number {}

impl Hash for Number {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match *self {
            Number::PosInt(v) => (0u8, v).hash(state),
            Number::NegInt(v) => (1u8, v).hash(state),
            // 0.0 and -0.0 are equal, so they must hash alike.
            Number::Float(v) => {
                let v = if v == 0.0 { 0.0f64 } else { v };
                (2u8, v.to_bits()).hash(state);
            }
        }
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Self {
        Value::String(v.to_owned())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Self {
        Value::String(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

impl From<u64> for Value {
    fn from(v: u64) -> Self {
        Value::Number(Number::PosInt(v))
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Self {
        match u64::try_from(v) {
            Ok(u) => Value::Number(Number::PosInt(u)),
            Err(_) => Value::Number(Number::NegInt(v)),
        }
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Self {
        if v.is_finite() {
            Value::Number(Number::Float(v))
        } else {
            Value::Null
        }
    }
}

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(Number::PosInt(v)) => s.serialize_u64(*v),
            Value::Number(Number::NegInt(v)) => s.serialize_i64(*v),
            Value::Number(Number::Float(v)) => s.serialize_f64(*v),
            Value::String(v) => s.serialize_str(v),
            Value::Array(v) => s.collect_seq(v),
            Value::Object(v) => s.collect_map(v),
        }
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Value::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Value, A::Error> {
        one_key_each(map).map(Value::Object)
    }
}

/// An object's entries, refusing a key it has twice: a map would keep the
/// last, and another reader of the same bytes might keep the first. The one
/// reader of the objects an [`Extra`] keeps, at every depth and whatever
/// drives it (text, a JS object, UniFFI's lift of an app's text).
fn one_key_each<'de, A: MapAccess<'de>>(mut map: A) -> Result<BTreeMap<String, Value>, A::Error> {
    let mut out = BTreeMap::new();
    while let Some((k, v)) = map.next_entry::<String, Value>()? {
        if out.insert(k, v).is_some() {
            // The key is the sender's text, of any length: not repeated here.
            return Err(serde::de::Error::custom("duplicate key in an object"));
        }
    }
    Ok(out)
}

/// Reads an [`Extra`]: an object, through [`one_key_each`].
struct ExtraVisitor;

impl<'de> Visitor<'de> for ExtraVisitor {
    type Value = Extra;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Extra, A::Error> {
        one_key_each(map).map(Extra::from)
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

/// The keys of a JSON object that the library does not know, kept and
/// written back unchanged (API §9.6: new response fields ship without a new
/// version).
///
/// Each record carries one as its last field, `extra`, flattened: on the wire
/// its keys sit beside the known fields. A struct built from another by
/// flattening (a delegation detail on a delegation, a memo result on a memo)
/// keeps the unknown keys of the shared object in the base's `extra`.
///
/// Do not insert a key that names a known field of the same object: it
/// would be written twice, and the known field wins when read back.
///
/// It takes one pointer while empty (most objects), so that the records
/// stay small.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[allow(
    clippy::box_collection,
    reason = "one pointer while empty (most records), where a map is three words"
)]
pub struct Extra(Option<Box<BTreeMap<String, Value>>>);

/// The name of the newtype struct each key of an [`Extra`] is serialised
/// as. JSON serialisers (serde_json, serde-wasm-bindgen) write a newtype
/// struct as its content, so the key reads as a plain string; a serialiser
/// that wants only the known fields (the CLI's `inspect`) recognises the
/// name and leaves the entry out.
pub const KEY_NEWTYPE: &str = "streamseal::extra::Key";

/// A key of an [`Extra`] on its way out: see [`KEY_NEWTYPE`]. A hand-written
/// `Serialize` that writes unknown keys beside known ones uses it too.
pub struct Key<'a>(pub &'a str);

impl Serialize for Key<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(KEY_NEWTYPE, self.0)
    }
}

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
        d.deserialize_map(ExtraVisitor)
    }
}

/// The keys and values of an [`Extra`], in key order.
pub struct Iter<'a>(Option<std::collections::btree_map::Iter<'a, String, Value>>);

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

    /// The value of the unknown field `key`, if the service sent it.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref()?.get(key)
    }

    /// The unknown fields, in key order.
    pub fn iter(&self) -> Iter<'_> {
        Iter(self.0.as_ref().map(|map| map.iter()))
    }

    /// Whether the object had no unknown field.
    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// The number of unknown fields.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |m| m.len())
    }

    /// Adds or replaces an unknown field; returns the value it replaced.
    pub fn insert(&mut self, key: impl Into<String>, value: Value) -> Option<Value> {
        self.0
            .get_or_insert_with(Box::default)
            .insert(key.into(), value)
    }

    /// Removes an unknown field; returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        let map = self.0.as_mut()?;
        let out = map.remove(key);
        if map.is_empty() {
            self.0 = None;
        }
        out
    }

    /// The unknown fields as a map (a copy).
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        self.0.as_deref().cloned().unwrap_or_default()
    }

    /// The unknown fields as a map.
    pub fn into_map(self) -> BTreeMap<String, Value> {
        self.0.map(|m| *m).unwrap_or_default()
    }
}

impl From<BTreeMap<String, Value>> for Extra {
    fn from(map: BTreeMap<String, Value>) -> Self {
        Extra((!map.is_empty()).then(|| Box::new(map)))
    }
}

impl From<Extra> for BTreeMap<String, Value> {
    fn from(extra: Extra) -> Self {
        extra.into_map()
    }
}

impl FromIterator<(String, Value)> for Extra {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Self {
        Extra::from(iter.into_iter().collect::<BTreeMap<String, Value>>())
    }
}

impl<'a> IntoIterator for &'a Extra {
    type Item = (&'a String, &'a Value);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

// UniFFI crosses an `Extra` as the JSON text of its object (`""` when empty,
// so that a record built in Kotlin, Swift or Python without it compares
// equal). The text is written and read by serde_json, which only the `uniffi`
// feature brings in: the crate itself keeps no JSON library.
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
        serde_json::from_str::<Extra>(&text)
            .map_err(|_| uniffi::deps::anyhow::anyhow!("extra: expected a JSON object, each key once"))
    },
});

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_convert_as_serde_reads_them() {
        assert_eq!(Value::from(5i64), Value::Number(Number::PosInt(5)));
        assert_eq!(Value::from(-5i64), Value::Number(Number::NegInt(-5)));
        assert_eq!(Value::from(f64::NAN), Value::Null);
        assert_eq!(Value::from(0.0f64), Value::from(-0.0f64));
    }

    #[test]
    fn empty_after_removing_the_last_key() {
        let mut e = Extra::new();
        e.insert("a", Value::Bool(true));
        assert_eq!(e.remove("a"), Some(Value::Bool(true)));
        assert!(e.is_empty());
        assert_eq!(e, Extra::new());
    }
}
