//! Each wire type's shape as a table, and one reader of every table.
//!
//! A response type is read by serde's derive into its Rust type
//! ([`crate::from_value`]). A binding that hands the result straight on as
//! JSON (the npm package's endpoint module) needs only what that read
//! checks and what the type writes back: the same JSON text, or the same
//! refusal. [`read`] gives it from the type's [`WireShape::SHAPE`], a static
//! table derived (`#[derive(WireShape)]`, crate `streamseal-wire-derive`)
//! from the one declaration serde's derive reads too: field names after
//! `rename_all` and `rename`, `default`, `skip_serializing_if`, the kept
//! unknown fields (`#[serde(flatten)] extra`). A type whose `Deserialize` is
//! written by hand (ids, open enums, slots, the sealed records) is a
//! [`Leaf`]: it is read and written by its own serde code.
//!
//! Why: in WebAssembly each type's derived reader is code of its own. The
//! npm package's endpoint module read its 40 typed results that way; with
//! the tables instead it is 45.6 KB gzip smaller (249,709 -> 204,087 B,
//! issue 20), the interpreter and the tables included. The typed read stays the definition: the tests read every
//! fixture, and thousands of mutations of each, both ways and compare the
//! text or the refusal (`tests/it/wire_shapes.rs`).
//!
//! ```
//! use streamseal_wire::{message::MessageAttachment, shape::{read, WireShape}};
//!
//! let value = serde_json::json!({"id": "att_1", "filename": "a.txt", "mimeType": "text/plain",
//!     "sizeBytes": 3, "width": null, "later": [1]});
//! let text = read(MessageAttachment::SHAPE, value.clone())?;
//! // What the typed read writes back, byte for byte.
//! let typed: MessageAttachment = streamseal_wire::from_value(value)?;
//! assert_eq!(text, serde_json::to_string(&typed).unwrap());
//! // And what it refuses.
//! assert!(read(MessageAttachment::SHAPE, serde_json::json!({"id": "att_1"})).is_err());
//! # Ok::<(), streamseal_wire::Error>(())
//! ```
//!
//! What the derive does not model does not compile. This does:
//!
//! ```
//! use streamseal_wire::shape::WireShape;
//! #[derive(serde::Deserialize, serde::Serialize, WireShape)]
//! struct Tags {
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     tags: Option<Vec<String>>,
//! }
//! ```
//!
//! and each of these, one attribute or type apart, does not:
//!
//! ```compile_fail
//! use streamseal_wire::shape::WireShape;
//! #[derive(serde::Deserialize, serde::Serialize, WireShape)]
//! struct Tags {
//!     #[serde(default, skip_serializing_if = "Vec::is_empty")]
//!     tags: Vec<String>,
//! }
//! ```
//!
//! ```compile_fail
//! use streamseal_wire::shape::WireShape;
//! fn none() -> Option<Vec<String>> { None }
//! #[derive(serde::Deserialize, serde::Serialize, WireShape)]
//! struct Tags {
//!     #[serde(default = "none", skip_serializing_if = "Option::is_none")]
//!     tags: Option<Vec<String>>,
//! }
//! ```
//!
//! ```compile_fail
//! use streamseal_wire::shape::WireShape;
//! #[derive(serde::Deserialize, serde::Serialize, WireShape)]
//! struct Tags {
//!     #[serde(default, skip_serializing_if = "Option::is_none")]
//!     tags: std::collections::HashMap<String, String>,
//! }
//! ```

use std::collections::BTreeMap;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::{Error, Extra, ExtraJson, Result};

pub use streamseal_wire_derive::WireShape;

/// A type whose JSON shape is a table (derived) or its own serde code
/// (a [`Leaf`]).
pub trait WireShape {
    /// The type's shape.
    const SHAPE: &'static Shape;
}

/// What a JSON value must be to read as a type, and how it is written back.
#[derive(Debug)]
pub enum Shape {
    /// A string (`String`).
    Str,
    /// `true` or `false`.
    Bool,
    /// An integer from 0 to the bound (`u8` to `u64`).
    Uint(u64),
    /// An integer between the bounds (`i8` to `i64`).
    Int(i64, i64),
    /// Any number, written back as an `f64`.
    F64,
    /// Any JSON value, written back as it is (`serde_json::Value`).
    Any,
    /// `null` (written `null`), or the inner shape.
    Option(&'static Shape),
    /// An array of the inner shape.
    List(&'static Shape),
    /// An object whose values are of the inner shape (`BTreeMap<String, T>`:
    /// written in key order, as a `serde_json::Value` object is without
    /// serde_json's `preserve_order`, which `tests/it/wire_shapes.rs` checks).
    Map(&'static Shape),
    /// An object of named fields (or an array of them in order, as serde
    /// reads a struct without a flattened field).
    Struct(&'static StructShape),
    /// A type read and written by its own serde code.
    Leaf(&'static Leaf),
    /// The unknown fields a type keeps ([`Extra`], flattened): an object
    /// whose entries are written back as they came.
    Extra,
}

/// A derived struct's fields.
#[derive(Debug)]
pub struct StructShape {
    /// The Rust type's name (in a refusal's text).
    pub name: &'static str,
    /// The fields serde reads, in declaration order (the order written).
    pub fields: &'static [Field],
    /// Whether a field is flattened (`#[serde(flatten)]`): the struct is
    /// then read from an object only, and the keys no other field names go
    /// to that field; without one, they are dropped.
    pub flat: bool,
}

/// One field of a [`StructShape`].
#[derive(Debug)]
pub struct Field {
    /// Its JSON name.
    pub name: &'static str,
    /// Its shape.
    pub shape: &'static Shape,
    /// What an absent field reads as.
    pub missing: Missing,
    /// When it is left out of what is written.
    pub skip: Skip,
    /// Whether its fields sit beside the struct's own (`#[serde(flatten)]`:
    /// the kept unknown fields, `Extra`, or a struct of shared fields).
    pub flatten: bool,
}

/// What an absent field reads as.
#[derive(Debug)]
pub enum Missing {
    /// A refusal, or `null` for an [`Shape::Option`] (serde's rule).
    Required,
    /// `#[serde(default)]` on a type whose `Default` the shape says:
    /// `Option` (`null`), `Vec` (`[]`), `BTreeMap` (`{}`), `String` (`""`),
    /// `bool`, the integers and `f64`. The derive names them by type.
    Default,
    /// `#[serde(default)]` on any other type: the JSON of its `Default`.
    With(fn() -> Value),
}

/// When a field is left out of what is written (`skip_serializing_if`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Always written.
    Never,
    /// Left out when `null`: `skip_serializing_if = "Option::is_none"` (the
    /// one the wire types use; the derive refuses any other).
    Null,
}

/// A type read and written by its own serde code.
pub struct Leaf {
    /// Reads the value as the type and writes the type's JSON.
    pub write: fn(Value, &mut Vec<u8>) -> Result<()>,
}

impl std::fmt::Debug for Leaf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Leaf")
    }
}

/// [`Leaf::write`] of a type: read by its `Deserialize`, written by its
/// `Serialize`.
///
/// # Errors
///
/// `MALFORMED_JSON` when `value` is not a `T`.
pub fn write_leaf<T: DeserializeOwned + Serialize>(value: Value, out: &mut Vec<u8>) -> Result<()> {
    let typed: T = crate::from_value(value)?;
    write_json(out, &typed)
}

/// The JSON of a value ([`Missing::With`]: a field type's `Default`).
pub fn json_of<T: Serialize>(value: T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Implements [`WireShape`] as a [`Leaf`] for types with a hand-written
/// serde form.
#[macro_export]
macro_rules! leaf_shape {
    ($($ty:ty),+ $(,)?) => {
        $(
            impl $crate::shape::WireShape for $ty {
                const SHAPE: &'static $crate::shape::Shape =
                    &$crate::shape::Shape::Leaf(&$crate::shape::Leaf {
                        write: $crate::shape::write_leaf::<$ty>,
                    });
            }
        )+
    };
}

impl WireShape for Extra {
    const SHAPE: &'static Shape = &Shape::Extra;
}

// The wire types whose serde form is written by hand: each is read and
// written by its own code.
leaf_shape!(
    crate::slots::Slots,
    crate::ids::StepId,
    crate::ids::AnchorId,
    crate::me::Me,
    crate::memo::MemoResult,
    crate::invocation::InvocationCompleted,
    crate::version::ApiVersion,
    streamseal_crypto::envelope::Envelope,
    streamseal_crypto::envelope::SealedPayload,
    streamseal_crypto::identity::PublicKey,
    streamseal_crypto::identity::KeyId,
    streamseal_crypto::identity::RecipientKind,
    streamseal_crypto::kdf::KdfParams,
    streamseal_crypto::wrap::KeyWrap,
    streamseal_crypto::slot::Slot,
);

macro_rules! uint_shape {
    ($($ty:ty),+) => {$(
        // `u64 as u64` in the macro's last instance.
        #[allow(trivial_numeric_casts)]
        impl WireShape for $ty {
            const SHAPE: &'static Shape = &Shape::Uint(<$ty>::MAX as u64);
        }
    )+};
}
uint_shape!(u8, u16, u32, u64);

macro_rules! int_shape {
    ($($ty:ty),+) => {$(
        // `i64 as i64` in the macro's last instance.
        #[allow(trivial_numeric_casts)]
        impl WireShape for $ty {
            const SHAPE: &'static Shape = &Shape::Int(<$ty>::MIN as i64, <$ty>::MAX as i64);
        }
    )+};
}
int_shape!(i8, i16, i32, i64);

impl WireShape for String {
    const SHAPE: &'static Shape = &Shape::Str;
}
impl WireShape for bool {
    const SHAPE: &'static Shape = &Shape::Bool;
}
impl WireShape for f64 {
    const SHAPE: &'static Shape = &Shape::F64;
}
impl WireShape for Value {
    const SHAPE: &'static Shape = &Shape::Any;
}
impl WireShape for Map<String, Value> {
    const SHAPE: &'static Shape = &Shape::Map(&Shape::Any);
}
impl<T: WireShape> WireShape for Option<T> {
    const SHAPE: &'static Shape = &Shape::Option(T::SHAPE);
}
impl<T: WireShape> WireShape for Box<T> {
    const SHAPE: &'static Shape = T::SHAPE;
}
impl<T: WireShape> WireShape for Vec<T> {
    const SHAPE: &'static Shape = &Shape::List(T::SHAPE);
}
impl<T: WireShape> WireShape for BTreeMap<String, T> {
    const SHAPE: &'static Shape = &Shape::Map(T::SHAPE);
}

/// Reads `value` as `shape` and writes what the type would write back:
/// the same JSON text as reading it into the type with
/// [`crate::from_value`] and writing that with `serde_json::to_string`, or
/// a refusal where that read refuses.
///
/// # Errors
///
/// `MALFORMED_JSON` when `value` does not read as `shape`.
pub fn read(shape: &Shape, value: Value) -> Result<String> {
    let mut out = Vec::new();
    write(shape, value, &mut out)?;
    String::from_utf8(out).map_err(|_| malformed("a result was not UTF-8".to_owned()))
}

/// [`read`], appending to `out`.
///
/// # Errors
///
/// As [`read`].
pub fn write(shape: &Shape, value: Value, out: &mut Vec<u8>) -> Result<()> {
    match (shape, value) {
        (Shape::Str, Value::String(s)) => write_json(out, &s),
        (Shape::Bool, Value::Bool(b)) => write_json(out, &b),
        (Shape::Uint(max), Value::Number(n)) => match n.as_u64() {
            Some(u) if u <= *max => write_json(out, &u),
            _ => Err(number_refused(&n, "an unsigned integer in range")),
        },
        (Shape::Int(min, max), Value::Number(n)) => match n.as_i64() {
            Some(i) if (*min..=*max).contains(&i) => write_json(out, &i),
            _ => Err(number_refused(&n, "an integer in range")),
        },
        (Shape::F64, Value::Number(n)) => write_json(out, &n.as_f64().unwrap_or(f64::NAN)),
        (Shape::Any, value) => write_json(out, &value),
        (Shape::Option(_), Value::Null) => {
            out.extend_from_slice(b"null");
            Ok(())
        }
        (Shape::Option(inner), value) => write(inner, value, out),
        (Shape::List(inner), Value::Array(items)) => {
            out.push(b'[');
            for (i, item) in items.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write(inner, item, out)?;
            }
            out.push(b']');
            Ok(())
        }
        (Shape::Map(inner), Value::Object(entries)) => {
            out.push(b'{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_json(out, &key)?;
                out.push(b':');
                write(inner, item, out)?;
            }
            out.push(b'}');
            Ok(())
        }
        (Shape::Struct(s), Value::Object(entries)) => write_struct(s, entries, out),
        (Shape::Struct(s), Value::Array(items)) if !s.flat => write_struct_seq(s, items, out),
        (Shape::Leaf(leaf), value) => (leaf.write)(value, out),
        (Shape::Extra, Value::Object(entries)) => write_json(out, &Extra::from_json_map(entries)),
        (shape, value) => Err(malformed(format!(
            "invalid type: {}, expected {}",
            kind(&value),
            expected(shape)
        ))),
    }
}

/// A struct from an object: each field by name; the keys no field names
/// go to the flattened field (the kept unknown fields, or a struct whose
/// fields sit beside these), or are dropped, as the derived `Deserialize`
/// and `Serialize` do.
fn write_struct(s: &StructShape, entries: Map<String, Value>, out: &mut Vec<u8>) -> Result<()> {
    // One pass over the entries (in key order, as serde's visitor reads
    // them): each to its field, the others kept for the flattened field.
    let mut named: Vec<Option<Value>> = s.fields.iter().map(|_| None).collect();
    let mut others = Map::new();
    for (key, value) in entries {
        let field = s.fields.iter().position(|f| !f.flatten && f.name == key);
        match field.and_then(|i| named.get_mut(i)) {
            Some(slot) => *slot = Some(value),
            None if s.flat => {
                others.insert(key, value);
            }
            None => {}
        }
    }
    out.push(b'{');
    let mut first = true;
    for (field, value) in s.fields.iter().zip(named) {
        if field.flatten {
            // The derive allows one flattened field: it takes them all.
            let rest = std::mem::take(&mut others);
            if rest.is_empty() && matches!(field.shape, Shape::Extra) {
                // No unknown field: nothing to write.
                continue;
            }
            let mut text = Vec::new();
            write(field.shape, Value::Object(rest), &mut text)?;
            // `{...}`: its entries, spliced among the named fields.
            match text.get(1..text.len().saturating_sub(1)) {
                Some(inner) if text.first() == Some(&b'{') && !inner.is_empty() => {
                    if !first {
                        out.push(b',');
                    }
                    out.extend_from_slice(inner);
                    first = false;
                }
                Some(_) if text == b"{}" => {}
                _ => return Err(malformed(format!("`{}` is not an object", field.name))),
            }
            continue;
        }
        let value = match value {
            Some(value) => value,
            None => missing(field)?,
        };
        write_field(field, value, &mut first, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// A struct from an array of its fields in order (serde's `visit_seq`).
fn write_struct_seq(s: &StructShape, items: Vec<Value>, out: &mut Vec<u8>) -> Result<()> {
    let len = items.len();
    let mut items = items.into_iter();
    out.push(b'{');
    let mut first = true;
    for (i, field) in s.fields.iter().enumerate() {
        let value = match items.next() {
            Some(value) => value,
            None => match field.missing {
                Missing::Required => {
                    return Err(malformed(format!(
                        "invalid length {i}, expected struct {} with {} elements",
                        s.name,
                        s.fields.len()
                    )));
                }
                _ => missing(field)?,
            },
        };
        write_field(field, value, &mut first, out)?;
    }
    if items.next().is_some() {
        return Err(malformed(format!(
            "invalid length {len}, expected fewer elements in array"
        )));
    }
    out.push(b'}');
    Ok(())
}

/// `"name":value`, unless the field's `skip_serializing_if` holds.
fn write_field(field: &Field, value: Value, first: &mut bool, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    if !*first {
        out.push(b',');
    }
    write_json(out, field.name)?;
    out.push(b':');
    let at = out.len();
    write(field.shape, value, out)?;
    let written = out.get(at..).unwrap_or_default();
    let skipped = match field.skip {
        Skip::Never => false,
        Skip::Null => written == b"null",
    };
    if skipped {
        out.truncate(start);
    } else {
        *first = false;
    }
    Ok(())
}

/// What an absent field reads as.
fn missing(field: &Field) -> Result<Value> {
    match (&field.missing, field.shape) {
        (Missing::With(f), _) => Ok(f()),
        (Missing::Required, Shape::Option(_)) => Ok(Value::Null),
        (Missing::Required, _) => Err(malformed(format!("missing field `{}`", field.name))),
        (Missing::Default, shape) => default_of(shape).ok_or_else(|| {
            malformed(format!(
                "no default for field `{}` in its table",
                field.name
            ))
        }),
    }
}

/// The JSON of a shape's `Default`, where the shape says it.
fn default_of(shape: &Shape) -> Option<Value> {
    Some(match shape {
        Shape::Str => Value::String(String::new()),
        Shape::Bool => Value::Bool(false),
        Shape::Uint(_) | Shape::Int(..) => Value::from(0),
        Shape::F64 => Value::from(0.0),
        Shape::Any | Shape::Option(_) => Value::Null,
        Shape::List(_) => Value::Array(Vec::new()),
        Shape::Map(_) => Value::Object(Map::new()),
        Shape::Struct(_) | Shape::Leaf(_) | Shape::Extra => return None,
    })
}

/// serde_json's text of `value`, appended.
fn write_json<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Result<()> {
    serde_json::to_writer(out, value).map_err(|e| malformed(e.to_string()))
}

fn malformed(reason: String) -> Error {
    Error::MalformedJson { reason }
}

fn number_refused(n: &serde_json::Number, what: &str) -> Error {
    malformed(format!("invalid value: {n}, expected {what}"))
}

/// serde's word for a JSON value's kind (without the value itself: the
/// server's text, of any length).
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "sequence",
        Value::Object(_) => "map",
    }
}

fn expected(shape: &Shape) -> String {
    match shape {
        Shape::Str => "a string".to_owned(),
        Shape::Bool => "a boolean".to_owned(),
        Shape::Uint(_) | Shape::Int(..) => "an integer".to_owned(),
        Shape::F64 => "f64".to_owned(),
        Shape::List(_) => "a sequence".to_owned(),
        Shape::Map(_) => "a map".to_owned(),
        Shape::Struct(s) => format!("struct {}", s.name),
        Shape::Extra => "a map".to_owned(),
        Shape::Any | Shape::Option(_) | Shape::Leaf(_) => "a value".to_owned(),
    }
}
