//! A value as JSON without the unknown fields it keeps: what the library
//! models of it. [`super::detect`] ranks the kinds that fit a document by
//! how many of its fields each kind models.
//!
//! Every response object keeps the fields the library does not know in an
//! [`Extra`], which writes each key as the newtype struct
//! [`KEY_NEWTYPE`] (the plain key in JSON). This serialiser builds the same
//! [`Value`] as [`serde_json::to_value`], except that it leaves out the
//! entries whose key comes so. It holds no state beyond the value it builds.
//!
//! [`Extra`]: streamseal::wire::Extra

use serde::Serialize;
use serde::ser;
use serde_json::{Error, Map, Value};
use streamseal::wire::extra::KEY_NEWTYPE;

/// [`serde_json::to_value`] without the entries of every [`Extra`]
/// (see the module docs).
///
/// [`Extra`]: streamseal::wire::Extra
pub(crate) fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    value.serialize(Known::VALUE).map(Option::unwrap_or_default)
}

/// Serialises into a [`Value`]; `None` is the key of an unknown field (only
/// where a map key is serialised).
#[derive(Clone, Copy)]
struct Known {
    /// Whether a map key is being serialised.
    at_key: bool,
}

impl Known {
    const VALUE: Known = Known { at_key: false };
    const KEY: Known = Known { at_key: true };
}

/// `value` as [`Known`] serialises it in a value's place.
fn element<T: Serialize + ?Sized>(value: &T) -> Result<Value, Error> {
    to_value(value)
}

/// A leaf, exactly as serde_json writes it.
fn leaf<T: Serialize + ?Sized>(value: &T) -> Result<Option<Value>, Error> {
    serde_json::to_value(value).map(Some)
}

/// One map entry with `key` and a null value, so that serde_json names the
/// key as it would in a map (numbers and booleans as strings, and so on).
struct OneKey<'a, K: ?Sized>(&'a K);

impl<K: Serialize + ?Sized> Serialize for OneKey<'_, K> {
    fn serialize<S: ser::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use ser::SerializeMap as _;
        let mut map = s.serialize_map(Some(1))?;
        map.serialize_entry(self.0, &())?;
        map.end()
    }
}

/// The JSON key of `key`, or `None` for the key of an unknown field.
fn key_of<K: Serialize + ?Sized>(key: &K) -> Result<Option<String>, Error> {
    match key.serialize(Known::KEY)? {
        None => Ok(None),
        Some(Value::String(name)) => Ok(Some(name)),
        Some(_) => match serde_json::to_value(OneKey(key))? {
            Value::Object(map) => Ok(map.into_iter().next().map(|(name, _)| name)),
            _ => Err(ser::Error::custom("key must be a string")),
        },
    }
}

fn tagged(variant: &str, value: Value) -> Option<Value> {
    let mut map = Map::new();
    map.insert(variant.to_owned(), value);
    Some(Value::Object(map))
}

impl ser::Serializer for Known {
    type Ok = Option<Value>;
    type Error = Error;
    type SerializeSeq = Seq;
    type SerializeTuple = Seq;
    type SerializeTupleStruct = Seq;
    type SerializeTupleVariant = Seq;
    type SerializeMap = Object;
    type SerializeStruct = Object;
    type SerializeStructVariant = Object;

    fn serialize_bool(self, v: bool) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_i8(self, v: i8) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_i16(self, v: i16) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_i32(self, v: i32) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_i64(self, v: i64) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_i128(self, v: i128) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_u8(self, v: u8) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_u16(self, v: u16) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_u32(self, v: u32) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_u64(self, v: u64) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_u128(self, v: u128) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_f32(self, v: f32) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_f64(self, v: f64) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_char(self, v: char) -> Result<Self::Ok, Error> {
        leaf(&v)
    }
    fn serialize_str(self, v: &str) -> Result<Self::Ok, Error> {
        Ok(Some(Value::String(v.to_owned())))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Self::Ok, Error> {
        Ok(Some(Value::Array(
            v.iter().map(|b| Value::from(*b)).collect(),
        )))
    }
    fn serialize_none(self) -> Result<Self::Ok, Error> {
        Ok(Some(Value::Null))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Self::Ok, Error> {
        Ok(Some(Value::Null))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok, Error> {
        Ok(Some(Value::Null))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, Error> {
        Ok(Some(Value::String(variant.to_owned())))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Error> {
        if self.at_key && name == KEY_NEWTYPE {
            return Ok(None);
        }
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok, Error> {
        Ok(tagged(variant, element(value)?))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq, Error> {
        Ok(Seq {
            variant: None,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Seq, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Seq, Error> {
        Ok(Seq {
            variant: Some(variant),
            items: Vec::with_capacity(len),
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Object, Error> {
        Ok(Object::new(None))
    }
    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Object, Error> {
        Ok(Object::new(None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Object, Error> {
        Ok(Object::new(Some(variant)))
    }
}

/// An array being built, inside `{variant: ...}` for a tuple variant.
struct Seq {
    variant: Option<&'static str>,
    items: Vec<Value>,
}

impl Seq {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.items.push(element(value)?);
        Ok(())
    }

    fn finish(self) -> Option<Value> {
        let array = Value::Array(self.items);
        match self.variant {
            Some(variant) => tagged(variant, array),
            None => Some(array),
        }
    }
}

impl ser::SerializeSeq for Seq {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTuple for Seq {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleStruct for Seq {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeTupleVariant for Seq {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.push(value)
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

/// An object being built, inside `{variant: ...}` for a struct variant.
struct Object {
    variant: Option<&'static str>,
    map: Map<String, Value>,
    /// The key of the entry whose value comes next: `Some(None)` when it is
    /// an unknown field's, left out.
    pending: Option<Option<String>>,
}

impl Object {
    fn new(variant: Option<&'static str>) -> Self {
        Object {
            variant,
            map: Map::new(),
            pending: None,
        }
    }

    fn finish(self) -> Option<Value> {
        let object = Value::Object(self.map);
        match self.variant {
            Some(variant) => tagged(variant, object),
            None => Some(object),
        }
    }
}

impl ser::SerializeMap for Object {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.pending = Some(key_of(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        match self.pending.take() {
            Some(Some(key)) => {
                self.map.insert(key, element(value)?);
                Ok(())
            }
            Some(None) => Ok(()),
            None => Err(ser::Error::custom("a map value without its key")),
        }
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStruct for Object {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.map.insert(key.to_owned(), element(value)?);
        Ok(())
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

impl ser::SerializeStructVariant for Object {
    type Ok = Option<Value>;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.map.insert(key.to_owned(), element(value)?);
        Ok(())
    }
    fn end(self) -> Result<Self::Ok, Error> {
        Ok(self.finish())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use streamseal::wire::{Extra, ExtraJson as _};

    use super::to_value;

    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Inner {
        known_field: u32,
        #[serde(flatten)]
        extra: Extra,
    }

    #[derive(serde::Serialize)]
    struct Outer {
        inner: Vec<Inner>,
        map: std::collections::BTreeMap<u32, Option<f64>>,
        unit: (),
        value: serde_json::Value,
        #[serde(flatten)]
        extra: Extra,
    }

    #[test]
    fn leaves_out_only_the_unknown_fields() {
        let extra = |k: &str| {
            let mut e = Extra::new();
            e.insert_json(k, json!({"x": [1, 2]}));
            e
        };
        let outer = Outer {
            inner: vec![Inner {
                known_field: 7,
                extra: extra("later"),
            }],
            map: [(1, Some(0.5)), (2, None)].into_iter().collect(),
            unit: (),
            value: json!({"kept": {"as": "is"}}),
            extra: extra("top"),
        };
        let full = serde_json::to_value(&outer).unwrap();
        assert_eq!(full["top"], json!({"x": [1, 2]}));
        assert_eq!(full["inner"][0]["later"], json!({"x": [1, 2]}));
        let mut known = full.clone();
        known.as_object_mut().unwrap().remove("top");
        known["inner"][0].as_object_mut().unwrap().remove("later");
        assert_eq!(to_value(&outer).unwrap(), known);
    }
}
