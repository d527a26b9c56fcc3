use js_sys::{Array, ArrayBuffer, JsString, Map, Number, Symbol, Uint8Array};
use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer};
use std::convert::TryFrom;
use wasm_bindgen::convert::IntoWasmAbi;
use wasm_bindgen::prelude::wasm_bindgen;
use wasm_bindgen::{JsCast, JsValue, UnwrapThrowExt};

use crate::preserve::PRESERVED_VALUE_MAGIC;
use crate::{static_str_to_js, Error, ObjectExt, Result};

// streamseal: `SeqAccess` and `MapAccess` (a JS iterator read item by item)
// are removed: sequences and maps are read from arrays only (PATCHED.md).
// What runs JS code of the value's own (getters, iterators, proxies' traps)
// is read through these functions, each bound with `catch`: an exception is
// the deserializer's error, never one thrown through WebAssembly.
// - `iterableItems`: the items of an iterable object, its iterator asked
//   for once (`undefined`: not an iterable object);
// - `iterablePairs`: the same, each item made a fresh `[key, value]` array
//   (`[undefined, undefined]` for an item that is not an object);
// - `objectEntries`: `Object.entries`, whose pairs are fresh arrays.
#[wasm_bindgen(inline_js = "function items(value, pair) {
  if (value === null || typeof value !== 'object') return undefined;
  const iterator = value[Symbol.iterator];
  if (typeof iterator !== 'function') return undefined;
  return Array.from({ [Symbol.iterator]: () => iterator.call(value) }, pair);
}
export function iterableItems(value) { return items(value, (item) => item); }
export function iterablePairs(value) {
  return items(value, (p) => p !== null && typeof p === 'object' ? [p[0], p[1]] : [undefined, undefined]);
}
export function objectEntries(value) { return Object.entries(value); }")]
extern "C" {
    #[wasm_bindgen(catch, js_name = iterableItems)]
    fn iterable_items(value: &JsValue) -> std::result::Result<Option<Array>, JsValue>;
    #[wasm_bindgen(catch, js_name = iterablePairs)]
    fn iterable_pairs(value: &JsValue) -> std::result::Result<Option<Array>, JsValue>;
    #[wasm_bindgen(catch, js_name = objectEntries)]
    fn object_entries(value: &JsValue) -> std::result::Result<Array, JsValue>;
}

/// streamseal: how deep a value may nest (arrays, objects, maps, iterables,
/// enums with a payload) before it is refused: 128, the limit serde_json
/// has (`streamseal-wasm-glue`'s `MAX_NESTING` is this). serde recurses
/// once per level: without it, a value some thousands deep overflows the
/// WASM stack and leaves the instance's memory corrupt (PATCHED.md).
pub const MAX_DEPTH: u32 = 128;

struct ObjectAccess {
    obj: ObjectExt,
    fields: std::slice::Iter<'static, &'static str>,
    next_value: Option<Deserializer>,
    /// The depth of the fields' values.
    depth: u32,
}

impl ObjectAccess {
    fn new(obj: ObjectExt, fields: &'static [&'static str], depth: u32) -> Self {
        Self {
            obj,
            fields: fields.iter(),
            next_value: None,
            depth,
        }
    }
}

fn str_deserializer(s: &str) -> de::value::StrDeserializer<Error> {
    de::IntoDeserializer::into_deserializer(s)
}

impl<'de> de::MapAccess<'de> for ObjectAccess {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        debug_assert!(self.next_value.is_none());

        for field in &mut self.fields {
            let js_field = static_str_to_js(field);
            // streamseal: read with `Reflect.get` and `Reflect.has`, which
            // js_sys binds with `catch`: a getter (or a proxy's trap) that
            // throws is the error, not an exception through WebAssembly.
            let next_value = js_sys::Reflect::get(&self.obj, &js_field)?;
            // If this value is `undefined`, it might be actually a missing field;
            // double-check with `Reflect.has` (the `in` operator) if so.
            let is_missing_field =
                next_value.is_undefined() && !js_sys::Reflect::has(&self.obj, &js_field)?;
            if !is_missing_field {
                self.next_value = Some(Deserializer::at(next_value, self.depth));
                return Ok(Some(seed.deserialize(str_deserializer(field))?));
            }
        }

        Ok(None)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value> {
        seed.deserialize(self.next_value.take().unwrap_throw())
    }
}

enum PreservedValueAccess {
    OnMagic(JsValue),
    OnValue(JsValue),
    Done,
}

impl<'de> de::SeqAccess<'de> for PreservedValueAccess {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>> {
        // Temporary replacement to avoid borrow checker issues when moving out `JsValue`.
        let this = std::mem::replace(self, Self::Done);
        match this {
            Self::OnMagic(value) => {
                *self = Self::OnValue(value);
                seed.deserialize(str_deserializer(PRESERVED_VALUE_MAGIC))
                    .map(Some)
            }
            Self::OnValue(value) => seed
                .deserialize(Deserializer::from(JsValue::from(value.into_abi())))
                .map(Some),
            Self::Done => Ok(None),
        }
    }
}

/// Provides [`de::EnumAccess`] from given JS values for the `tag` and the `payload`.
struct EnumAccess {
    tag: Deserializer,
    payload: Deserializer,
}

impl<'de> de::EnumAccess<'de> for EnumAccess {
    type Error = Error;
    type Variant = Deserializer;

    fn variant_seed<V: de::DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant)> {
        Ok((seed.deserialize(self.tag)?, self.payload))
    }
}

/// A newtype that allows using any [`JsValue`] as a [`de::Deserializer`].
pub struct Deserializer {
    value: JsValue,
    /// streamseal: how many arrays, objects, maps or enums hold the value.
    depth: u32,
}

impl From<JsValue> for Deserializer {
    fn from(value: JsValue) -> Self {
        Self { value, depth: 0 }
    }
}

// Ideally this would be implemented for `JsValue` instead, but we can't because
// of the orphan rule.
impl<'de> IntoDeserializer<'de, Error> for Deserializer {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self::Deserializer {
        self
    }
}

/// Destructures a JS `[key, value]` pair into a tuple of [`Deserializer`]s.
/// streamseal: at `depth`. Every pair comes from `iterablePairs` or
/// `objectEntries`, a fresh array: reading it runs no JS of the value's.
fn convert_pair(pair: JsValue, depth: u32) -> (Deserializer, Deserializer) {
    let pair = pair.unchecked_into::<Array>();
    (
        Deserializer::at(pair.get(0), depth),
        Deserializer::at(pair.get(1), depth),
    )
}

impl Deserializer {
    /// streamseal: a value held by `depth` arrays, objects, maps or enums.
    fn at(value: JsValue, depth: u32) -> Self {
        Self { value, depth }
    }

    /// streamseal: the depth of what this value holds, or the error when
    /// it would be past [`MAX_DEPTH`].
    fn inner_depth(&self) -> Result<u32> {
        if self.depth >= MAX_DEPTH {
            return Err(de::Error::custom(format_args!(
                "nested deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(self.depth + 1)
    }

    /// streamseal: `Object.entries` through [`object_entries`] (bound with
    /// `catch`: a getter that throws is the error).
    fn as_object_entries(&self) -> Result<Option<Array>> {
        if self.value.is_object() {
            Ok(Some(object_entries(&self.value)?))
        } else {
            Ok(None)
        }
    }

    fn is_nullish(&self) -> bool {
        self.value.loose_eq(&JsValue::NULL)
    }

    fn as_bytes(&self) -> Option<Vec<u8>> {
        let temp;

        let v = if let Some(v) = self.value.dyn_ref::<Uint8Array>() {
            v
        } else if let Some(v) = self.value.dyn_ref::<ArrayBuffer>() {
            temp = Uint8Array::new(v);
            &temp
        } else {
            return None;
        };

        Some(v.to_vec())
    }

    #[cold]
    fn invalid_type_(&self, visitor: &dyn de::Expected) -> Error {
        let string;
        let bytes;

        let unexpected = if self.is_nullish() {
            de::Unexpected::Unit
        } else if let Some(v) = self.value.as_bool() {
            de::Unexpected::Bool(v)
        } else if let Some(v) = self.value.as_f64() {
            de::Unexpected::Float(v)
        } else if let Some(v) = self.value.as_string() {
            string = v;
            de::Unexpected::Str(&string)
        } else if let Some(v) = self.as_bytes() {
            bytes = v;
            de::Unexpected::Bytes(&bytes)
        } else if Array::is_array(&self.value) {
            // streamseal: a kind, not `format!("{:?}", value)`: wasm-bindgen's
            // `debugString` walks the value in JS without a depth limit or
            // `catch` (a deep array threw a `RangeError` through
            // WebAssembly), and would copy what was given into the message.
            de::Unexpected::Seq
        } else if self.value.is_object() {
            de::Unexpected::Map
        } else {
            de::Unexpected::Other("a JS value of another kind")
        };

        de::Error::invalid_type(unexpected, visitor)
    }

    fn invalid_type<'de, V: de::Visitor<'de>>(&self, visitor: V) -> Result<V::Value> {
        Err(self.invalid_type_(&visitor))
    }

    fn as_safe_integer(&self) -> Option<i64> {
        if Number::is_safe_integer(&self.value) {
            return Some(self.value.unchecked_into_f64() as i64);
        }
        None
    }

    fn deserialize_from_js_number_signed<'de, V: de::Visitor<'de>>(
        &self,
        visitor: V,
    ) -> Result<V::Value> {
        match self.as_safe_integer() {
            Some(v) => visitor.visit_i64(v),
            _ => self.invalid_type(visitor),
        }
    }

    fn deserialize_from_js_number_unsigned<'de, V: de::Visitor<'de>>(
        &self,
        visitor: V,
    ) -> Result<V::Value> {
        match self.as_safe_integer() {
            Some(v) if v >= 0 => visitor.visit_u64(v as _),
            _ => self.invalid_type(visitor),
        }
    }

    fn deserialize_from_array<'de, V: de::Visitor<'de>>(
        &self,
        visitor: V,
        array: &Array,
    ) -> Result<V::Value> {
        let depth = self.inner_depth()?;
        visitor.visit_seq(SeqDeserializer::new(
            array.iter().map(move |item| Deserializer::at(item, depth)),
        ))
    }
}

impl<'de> de::Deserializer<'de> for Deserializer {
    type Error = Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.is_nullish() {
            // Ideally we would only treat `undefined` as `()` / `None` which would be semantically closer
            // to JS definitions, but, unfortunately, WebIDL generates missing values as `null`
            // and we probably want to support these as well.
            visitor.visit_unit()
        } else if let Some(v) = self.value.as_bool() {
            visitor.visit_bool(v)
        } else if self.value.is_bigint() {
            match i64::try_from(self.value) {
                Ok(v) => visitor.visit_i64(v),
                Err(value) => match u64::try_from(value) {
                    Ok(v) => visitor.visit_u64(v),
                    Err(_) => Err(de::Error::custom("Couldn't deserialize i64 or u64 from a BigInt outside i64::MIN..u64::MAX bounds"))
                }
            }
        } else if let Some(v) = self.value.as_f64() {
            if Number::is_safe_integer(&self.value) {
                visitor.visit_i64(v as i64)
            } else {
                visitor.visit_f64(v)
            }
        } else if let Some(v) = self.value.as_string() {
            visitor.visit_string(v)
        } else if Array::is_array(&self.value) {
            self.deserialize_seq(visitor)
        } else if let Some(bytes) = self.as_bytes() {
            // We need to handle this here because serde uses `deserialize_any`
            // for internally tagged enums
            visitor.visit_byte_buf(bytes)
        } else if self.value.is_object() &&
            // The only reason we want to support objects here is because serde uses
            // `deserialize_any` for internally tagged enums
            // (see https://github.com/RReverser/serde-wasm-bindgen/pull/4#discussion_r352245020).
            //
            // We expect such enums to be represented via plain JS objects, so let's explicitly
            // exclude Sets and other iterables. These should be deserialized via concrete
            // `deserialize_*` methods instead of us trying to guess the right target type.
            //
            // We still do support Map, so that the format described here stays a self-describing
            // format: we happen to serialize to Map, and it is not ambiguous.
            //
            // Hopefully we can rid of these hacks altogether once
            // https://github.com/serde-rs/serde/issues/1183 is implemented / fixed on serde side.
            (!Symbol::iterator().js_in(&self.value) || self.value.has_type::<Map>())
        {
            self.deserialize_map(visitor)
        } else {
            self.invalid_type(visitor)
        }
    }

    fn deserialize_unit<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.is_nullish() {
            visitor.visit_unit()
        } else {
            self.invalid_type(visitor)
        }
    }

    fn deserialize_unit_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_bool<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(v) = self.value.as_bool() {
            visitor.visit_bool(v)
        } else {
            self.invalid_type(visitor)
        }
    }

    // Serde happily converts `f64` to `f32` (with checks), so we can forward.
    fn deserialize_f32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_f64(visitor)
    }

    fn deserialize_f64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(v) = self.value.as_f64() {
            visitor.visit_f64(v)
        } else {
            self.invalid_type(visitor)
        }
    }

    fn deserialize_identifier<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_str<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_string(visitor)
    }

    fn deserialize_string<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(v) = self.value.as_string() {
            visitor.visit_string(v)
        } else {
            self.invalid_type(visitor)
        }
    }

    // Serde happily converts any integer to any integer (with checks), so let's forward all of
    // these to 64-bit methods to save some space in the generated WASM.

    fn deserialize_i8<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_from_js_number_signed(visitor)
    }

    fn deserialize_i16<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_from_js_number_signed(visitor)
    }

    fn deserialize_i32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_from_js_number_signed(visitor)
    }

    fn deserialize_u8<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_from_js_number_unsigned(visitor)
    }

    fn deserialize_u16<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_from_js_number_unsigned(visitor)
    }

    fn deserialize_u32<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_from_js_number_unsigned(visitor)
    }

    /// Supported inputs:
    /// - `BigInt` within `i64` boundaries.
    /// - number within safe integer boundaries.
    fn deserialize_i64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_bigint() {
            match i64::try_from(self.value) {
                Ok(v) => visitor.visit_i64(v),
                Err(_) => Err(de::Error::custom(
                    "Couldn't deserialize i64 from a BigInt outside i64::MIN..i64::MAX bounds",
                )),
            }
        } else {
            self.deserialize_from_js_number_signed(visitor)
        }
    }

    /// Supported inputs:
    /// - `BigInt` within `u64` boundaries.
    /// - number within safe integer boundaries.
    fn deserialize_u64<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_bigint() {
            match u64::try_from(self.value) {
                Ok(v) => visitor.visit_u64(v),
                Err(_) => Err(de::Error::custom(
                    "Couldn't deserialize u64 from a BigInt outside u64::MIN..u64::MAX bounds",
                )),
            }
        } else {
            self.deserialize_from_js_number_unsigned(visitor)
        }
    }

    /// Supported inputs:
    /// - `BigInt` within `i128` boundaries.
    fn deserialize_i128<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_bigint() {
            match i128::try_from(self.value) {
                Ok(v) => visitor.visit_i128(v),
                Err(_) => Err(de::Error::custom(
                    "Couldn't deserialize i128 from a BigInt outside i128::MIN..i128::MAX bounds",
                )),
            }
        } else {
            self.invalid_type(visitor)
        }
    }

    /// Supported inputs:
    /// - `BigInt` within `u128` boundaries.
    fn deserialize_u128<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if self.value.is_bigint() {
            match u128::try_from(self.value) {
                Ok(v) => visitor.visit_u128(v),
                Err(_) => Err(de::Error::custom(
                    "Couldn't deserialize u128 from a BigInt outside u128::MIN..u128::MAX bounds",
                )),
            }
        } else {
            self.invalid_type(visitor)
        }
    }

    /// Converts a JavaScript string to a Rust `char`.
    ///
    /// By default we don't perform detection of single chars because it's pretty complicated,
    /// but if we get a hint that they're expected, this methods allows to avoid heap allocations
    /// of an intermediate `String` by directly converting numeric codepoints instead.
    fn deserialize_char<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(s) = self.value.dyn_ref::<JsString>() {
            if let Some(c) = s.as_char() {
                return visitor.visit_char(c);
            }
        }
        self.invalid_type(visitor)
    }

    /// Deserializes `undefined` or `null` into `None` and any other value into `Some(value)`.
    // Serde can deserialize `visit_unit` into `None`, but can't deserialize arbitrary value
    // as `Some`, so we need to provide own simple implementation.
    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if !self.is_nullish() {
            visitor.visit_some(self)
        } else {
            visitor.visit_none()
        }
    }

    /// Forwards to deserializing newtype contents.
    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value> {
        visitor.visit_newtype_struct(self)
    }

    /// Supported inputs:
    ///  - JS iterable (an object with [`[Symbol.iterator]`](https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Symbol/iterator)).
    ///
    /// Supported outputs:
    ///  - Any Rust sequence from Serde point of view ([`Vec`], [`HashSet`](std::collections::HashSet), etc.)
    fn deserialize_seq<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // streamseal: an iterable that is not an array is read as the array
        // of its items (the same items, in the same order), so that each
        // sequence type's `visit_seq` is instantiated once, for
        // `SeqDeserializer`, not also for `SeqAccess` (PATCHED.md).
        if let Some(arr) = self.value.dyn_ref::<Array>() {
            self.deserialize_from_array(visitor, arr)
        } else if let Some(items) = iterable_items(&self.value)? {
            self.deserialize_from_array(visitor, &items)
        } else {
            self.invalid_type(visitor)
        }
    }

    /// Forwards to [`Self::deserialize_seq`](#method.deserialize_seq).
    fn deserialize_tuple<V: de::Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value> {
        self.deserialize_seq(visitor)
    }

    /// Forwards to [`Self::deserialize_tuple`](#method.deserialize_tuple).
    fn deserialize_tuple_struct<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value> {
        if name == PRESERVED_VALUE_MAGIC {
            return visitor.visit_seq(PreservedValueAccess::OnMagic(self.value));
        }
        self.deserialize_tuple(len, visitor)
    }

    /// Supported inputs:
    ///  - A JS iterable that is expected to return `[key, value]` pairs.
    ///  - A JS object, which will be iterated using [`Object.entries`](https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Object/entries).
    ///
    /// Supported outputs:
    ///  - A Rust key-value map ([`HashMap`](std::collections::HashMap), [`BTreeMap`](std::collections::BTreeMap), etc.).
    ///  - A typed Rust structure with `#[derive(Deserialize)]`.
    fn deserialize_map<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        // streamseal: the pairs of an iterable are read as the array of
        // them (the same pairs, in the same order), so that each map type's
        // `visit_map` is instantiated once, for `MapDeserializer`, not also
        // for `MapAccess` (PATCHED.md).
        let depth = self.inner_depth()?;
        let pairs = match iterable_pairs(&self.value)? {
            Some(pairs) => pairs,
            None => match self.as_object_entries()? {
                Some(arr) => arr,
                None => return self.invalid_type(visitor),
            },
        };
        visitor.visit_map(MapDeserializer::new(
            pairs.iter().map(move |pair| convert_pair(pair, depth)),
        ))
    }

    /// Supported inputs:
    ///  - A plain JS object.
    ///
    /// Supported outputs:
    ///  - A typed Rust structure with `#[derive(Deserialize)]`.
    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        if !self.value.is_object() {
            return self.invalid_type(visitor);
        }
        let depth = self.inner_depth()?;
        let obj = self.value.unchecked_into::<ObjectExt>();
        visitor.visit_map(ObjectAccess::new(obj, fields, depth))
    }

    /// Here we try to be compatible with `serde-json`, which means supporting:
    ///  - `"Variant"` - gets converted to a unit variant `MyEnum::Variant`
    ///  - `{ Variant: ...payload... }` - gets converted to a `MyEnum::Variant { ...payload... }`.
    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        let access = if self.value.is_string() {
            EnumAccess {
                tag: self.value.into(),
                payload: JsValue::UNDEFINED.into(),
            }
        } else if let Some(entries) = self.as_object_entries()? {
            if entries.length() != 1 {
                return Err(de::Error::invalid_length(entries.length() as _, &"1"));
            }
            let entry = entries.get(0);
            let (tag, payload) = convert_pair(entry, self.inner_depth()?);
            EnumAccess { tag, payload }
        } else {
            return self.invalid_type(visitor);
        };
        visitor.visit_enum(access)
    }

    /// Ignores any value without calling to the JS side even to check its type.
    fn deserialize_ignored_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        visitor.visit_unit()
    }

    /// We can't take references to JS memory, so forwards to an owned [`Self::deserialize_byte_buf`](#method.deserialize_byte_buf).
    fn deserialize_bytes<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        self.deserialize_byte_buf(visitor)
    }

    /// Serde expects `visit_byte_buf` to be called only in response to an explicit `deserialize_bytes`,
    /// so we provide conversions here.
    ///
    /// Supported inputs:
    ///  - `ArrayBuffer` - converted to an `Uint8Array` view first.
    ///  - `Uint8Array`, `Array` - copied to a newly created `Vec<u8>` on the Rust side.
    fn deserialize_byte_buf<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value> {
        if let Some(bytes) = self.as_bytes() {
            visitor.visit_byte_buf(bytes)
        } else if let Some(arr) = self.value.dyn_ref::<Array>() {
            self.deserialize_from_array(visitor, arr)
        } else {
            self.invalid_type(visitor)
        }
    }

    fn is_human_readable(&self) -> bool {
        true
    }
}

impl<'de> de::VariantAccess<'de> for Deserializer {
    type Error = Error;

    fn unit_variant(self) -> Result<()> {
        de::Deserialize::deserialize(self)
    }

    fn newtype_variant_seed<T: de::DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value> {
        seed.deserialize(self)
    }

    fn tuple_variant<V: de::Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value> {
        de::Deserializer::deserialize_tuple(self, len, visitor)
    }

    fn struct_variant<V: de::Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value> {
        de::Deserializer::deserialize_struct(self, "", fields, visitor)
    }
}
