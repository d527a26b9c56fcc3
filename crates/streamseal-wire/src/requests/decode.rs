//! Request documents read from JSON, with every mistake keyed by its wire
//! path: the one validation path of requests that come in as data (the
//! bindings' `buildRequest`, `nextPage`, ...; an app's own JSON).
//!
//! Text that is not JSON at all is [`crate::Error::MalformedJson`]. Every
//! other failure, of decoding or of the bounds, is
//! [`crate::Error::ValidationFailed`] with `details` keyed by the full wire
//! path in the syntax of the service's 400 body (see
//! [`crate::validate`]): a fraction where an integer is required,
//! a negative number for an unsigned one, a string for a boolean, `null`
//! for a required field, an unknown value of a closed enum, a missing field
//! (keyed by its own path, `wraps[0].recipientKeyId`), an array for an
//! object. The decoded document's own [`Validate::validate`] runs next, so
//! a caller meets one error shape whatever the mistake.
//!
//! Reasons name what is expected (`must be an integer between 0 and
//! 4294967295`, `must be a boolean`, `is required`, `must be one of: new,
//! existing`) and never repeat the value that was given: a mistaken
//! request may carry a secret in the wrong field. A failure of the
//! document as a whole (an array where the body object belongs) is keyed
//! by the empty path `""`.
//!
//! ```
//! use streamseal_wire::requests::decode;
//! use streamseal_wire::requests::invocation::ClaimRequest;
//!
//! let json = r#"{"runtimeKind": "custom", "instanceId": "machine-a",
//!                "supportedCapabilities": [], "claimTtlSeconds": 60.5}"#;
//! let err = decode::from_json::<ClaimRequest>(json).unwrap_err();
//! assert_eq!(err.code().as_str(), "VALIDATION_FAILED");
//! let details = err.details().unwrap();
//! assert_eq!(details["claimTtlSeconds"], ["must be an integer between 0 and 4294967295"]);
//!
//! // Decoded, then validated: the bound of claimTtlSeconds comes back the same way.
//! let err = decode::from_json::<ClaimRequest>(&json.replace("60.5", "301")).unwrap_err();
//! assert!(err.details().unwrap().contains_key("claimTtlSeconds"));
//!
//! // Not JSON at all.
//! let err = decode::from_json::<ClaimRequest>("{").unwrap_err();
//! assert_eq!(err.code().as_str(), "MALFORMED_JSON");
//! ```
//!
//! `EndpointRequest::from_json` of the endpoint layer (`streamseal-api`) reads a whole endpoint call
//! the same way: path parameters keyed by their own name (`streamId`), the
//! body's and the query's fields by their path inside the body or query,
//! as the service names them.

use serde::de::{self, DeserializeOwned};
use serde_json::Value;
use serde_path_to_error::{Path, Segment};

use crate::requests::Validate;
use crate::validate::Check;
use streamseal_crypto::error::{Error, Result};

/// Decodes a request document from JSON text and validates it: see the
/// module docs for the errors.
///
/// # Errors
///
/// `MALFORMED_JSON` when `json` is not JSON; `VALIDATION_FAILED` for every
/// other failure, of decoding or of the bounds.
pub fn from_json<T: DeserializeOwned + Validate>(json: &str) -> Result<T> {
    from_value(parse(json)?)
}

/// Decodes a request document from a JSON value and validates it: see the
/// module docs for the errors.
///
/// # Errors
///
/// `VALIDATION_FAILED` when `value` does not decode as a `T` or breaks its
/// bounds.
pub fn from_value<T: DeserializeOwned + Validate>(value: Value) -> Result<T> {
    let decoded: T = decode_value(value)?;
    decoded.validate()?;
    Ok(decoded)
}

/// Like [`from_json`] without the `validate()` step, for callers that run
/// their own checks first (the send rules, then the bounds).
///
/// # Errors
///
/// `MALFORMED_JSON` when `json` is not JSON; `VALIDATION_FAILED` when it
/// does not decode as a `T`.
pub fn decode_json<T: DeserializeOwned>(json: &str) -> Result<T> {
    decode_value(parse(json)?)
}

/// Like [`from_value`] without the `validate()` step.
///
/// # Errors
///
/// `VALIDATION_FAILED` when `value` does not decode as a `T`.
pub fn decode_value<T: DeserializeOwned>(value: Value) -> Result<T> {
    let mut check = Check::new();
    match decode_in(&mut check, value, "", "") {
        Some(decoded) => Ok(decoded),
        None => Err(check.into_error()),
    }
}

/// JSON text as a value; only text that is not JSON is `MALFORMED_JSON`.
///
/// # Errors
///
/// `MALFORMED_JSON` when `json` is not JSON.
pub fn parse(json: &str) -> Result<Value> {
    serde_json::from_str(json).map_err(|e| Error::MalformedJson {
        reason: e.to_string(),
    })
}

/// Decodes `value` into `check`: on failure, records one reason and
/// returns `None`. Paths inside the document are written under `prefix`
/// (`""` for a body, whose fields the service names from the body), and a
/// failure of the document itself is keyed `whole`.
pub fn decode_in<T: DeserializeOwned>(
    check: &mut Check,
    value: Value,
    prefix: &str,
    whole: &str,
) -> Option<T> {
    match serde_path_to_error::deserialize::<_, T>(Strict(value)) {
        Ok(decoded) => Some(decoded),
        Err(err) => {
            let inner = render(err.path());
            let failure = reason(&err.inner().to_string());
            let inner = match &failure.child {
                Some(child) => join(&inner, child),
                None => inner,
            };
            let key = if inner.is_empty() {
                whole.to_owned()
            } else {
                join(prefix, &inner)
            };
            check.fail(&key, failure.reason);
            None
        }
    }
}

/// A JSON value as a deserializer that reads objects only as objects:
/// serde's derived structs also take an array of the fields in order (and
/// `[]` for a struct whose fields all have defaults), which the service
/// refuses. Everything else is `serde_json::Value`'s own reading, with the
/// same messages.
struct Strict(Value);

/// `serde::de::Unexpected` of a value, for the "invalid type" message.
fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64(), n.as_f64()) {
            (Some(u), _, _) => de::Unexpected::Unsigned(u),
            (_, Some(i), _) => de::Unexpected::Signed(i),
            (_, _, Some(f)) => de::Unexpected::Float(f),
            _ => de::Unexpected::Other("number"),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

impl<'de> de::Deserializer<'de> for Strict {
    type Error = serde_json::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Array(items) => {
                let len = items.len();
                let mut seq = StrictSeq(items.into_iter());
                let out = visitor.visit_seq(&mut seq)?;
                match seq.0.len() {
                    0 => Ok(out),
                    _ => Err(de::Error::invalid_length(len, &"fewer elements in array")),
                }
            }
            Value::Object(map) => {
                let len = map.len();
                let mut access = StrictMap {
                    entries: map.into_iter(),
                    value: None,
                };
                let out = visitor.visit_map(&mut access)?;
                match access.entries.len() {
                    0 => Ok(out),
                    _ => Err(de::Error::invalid_length(len, &"fewer elements in map")),
                }
            }
            other => other.deserialize_any(visitor),
        }
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Strict(other)),
        }
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Object(_) => self.deserialize_any(visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_newtype_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: de::Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // Request enums are unit variants written as strings.
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_ignored_any<V: de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

/// The items of an array, each read strictly.
struct StrictSeq(std::vec::IntoIter<Value>);

impl<'de> de::SeqAccess<'de> for StrictSeq {
    type Error = serde_json::Error;

    fn next_element_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        self.0
            .next()
            .map(|v| seed.deserialize(Strict(v)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// The entries of an object, each value read strictly.
struct StrictMap {
    entries: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> de::MapAccess<'de> for StrictMap {
    type Error = serde_json::Error;

    fn next_key_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        match self.entries.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Value::String(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        // serde calls this once after each key.
        seed.deserialize(Strict(self.value.take().unwrap_or(Value::Null)))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// `parent.child`, `parent[0]`, or `child` at the root.
fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else if child.starts_with('[') {
        format!("{parent}{child}")
    } else {
        format!("{parent}.{child}")
    }
}

/// A path in the service's syntax (`wraps[0].recipientKeyId`), up to the
/// first segment serde could not name.
fn render(path: &Path) -> String {
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } | Segment::Enum { variant: key } => out = join(&out, key),
            Segment::Unknown => break,
        }
    }
    out
}

/// What failed where, from serde's message.
struct Failure {
    /// A field under the failing path that the reason is about (missing,
    /// given twice).
    child: Option<String>,
    /// The reason, naming what is expected and never the given value.
    reason: String,
}

/// The text between the first pair of backticks.
fn quoted(text: &str) -> Option<&str> {
    let (_, rest) = text.split_once('`')?;
    rest.split_once('`').map(|(name, _)| name)
}

/// The expectation after serde's `, expected `: it comes from the type,
/// never from the input. (`rsplit`: the input part before it may itself
/// contain those words.)
fn expected(message: &str) -> Option<&str> {
    message.rsplit_once(", expected ").map(|(_, e)| e)
}

/// Maps serde's message forms to a reason: `missing field`, `duplicate
/// field`, `unknown field`, `unknown variant`, `invalid type`, `invalid
/// value`, `invalid length`; anything else (a type's own custom message,
/// which could quote the input) is "is invalid".
fn reason(message: &str) -> Failure {
    let at = |reason: String| Failure {
        child: None,
        reason,
    };
    let field = |prefix: &str, reason: &str| {
        message
            .strip_prefix(prefix)
            .and_then(quoted)
            .map(|name| Failure {
                child: Some(name.to_owned()),
                reason: reason.to_owned(),
            })
    };
    if let Some(f) = field("missing field ", "is required") {
        return f;
    }
    if let Some(f) = field("duplicate field ", "is given more than once") {
        return f;
    }
    if let Some(f) = field("unknown field ", "is not a field of this request") {
        return f;
    }
    if message.starts_with("unknown variant ") {
        let names: Vec<&str> = expected(message)
            .unwrap_or_default()
            .split('`')
            .skip(1)
            .step_by(2)
            .collect();
        return at(if names.is_empty() {
            "is not an allowed value".to_owned()
        } else {
            format!("must be one of: {}", names.join(", "))
        });
    }
    if message.starts_with("invalid length ") {
        return at(match expected(message) {
            Some(e) => format!("has the wrong number of items (expected {e})"),
            None => "has the wrong number of items".to_owned(),
        });
    }
    if message.starts_with("invalid type: ") || message.starts_with("invalid value: ") {
        let mut reason = expected(message).map_or_else(|| "is invalid".to_owned(), expectation);
        if message.starts_with("invalid type: null,") {
            reason.push_str(", not null");
        }
        return at(reason);
    }
    at("is invalid".to_owned())
}

/// A reason from serde's expectation text (`u32`, `a boolean`, `struct X`, ...).
fn expectation(expected: &str) -> String {
    let between = |min: &dyn ToString, max: &dyn ToString| {
        format!(
            "must be an integer between {} and {}",
            min.to_string(),
            max.to_string()
        )
    };
    match expected {
        "u8" => between(&0, &u8::MAX),
        "u16" => between(&0, &u16::MAX),
        "u32" => between(&0, &u32::MAX),
        "u64" | "usize" => between(&0, &u64::MAX),
        "i8" => between(&i8::MIN, &i8::MAX),
        "i16" => between(&i16::MIN, &i16::MAX),
        "i32" => between(&i32::MIN, &i32::MAX),
        "i64" | "isize" => between(&i64::MIN, &i64::MAX),
        "f32" | "f64" => "must be a number".to_owned(),
        "a boolean" => "must be a boolean".to_owned(),
        "a string" | "a borrowed string" | "a character" | "string" | "a JSON string"
        | "variant identifier" | "field identifier" => "must be a string".to_owned(),
        "a sequence" => "must be an array".to_owned(),
        "unit" => "must be null".to_owned(),
        e if e.starts_with("a map")
            || e.starts_with("struct ")
            || e.starts_with("a JSON object")
            || e.starts_with("internally tagged enum ") =>
        {
            "must be an object".to_owned()
        }
        e if e.starts_with("a tuple") || e.starts_with("an array") => "must be an array".to_owned(),
        _ => "has the wrong type".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(message: &str) -> (Option<String>, String) {
        let f = reason(message);
        (f.child, f.reason)
    }

    #[test]
    fn serde_messages_become_reasons_without_the_value() {
        assert_eq!(
            one("invalid type: floating point `60.5`, expected u32"),
            (
                None,
                "must be an integer between 0 and 4294967295".to_owned()
            )
        );
        assert_eq!(
            one("invalid value: integer `-1`, expected u32"),
            (
                None,
                "must be an integer between 0 and 4294967295".to_owned()
            )
        );
        assert_eq!(
            one(r#"invalid type: string "true", expected a boolean"#),
            (None, "must be a boolean".to_owned())
        );
        assert_eq!(
            one("invalid type: null, expected a string"),
            (None, "must be a string, not null".to_owned())
        );
        assert_eq!(
            one("missing field `recipientKeyId`"),
            (Some("recipientKeyId".to_owned()), "is required".to_owned())
        );
        assert_eq!(
            one("duplicate field `content`"),
            (
                Some("content".to_owned()),
                "is given more than once".to_owned()
            )
        );
        assert_eq!(
            one("unknown variant `bogus, expected x`, expected `new` or `existing`"),
            (None, "must be one of: new, existing".to_owned())
        );
        assert_eq!(
            one("unknown variant `a`, expected one of `x`, `y`, `z`"),
            (None, "must be one of: x, y, z".to_owned())
        );
        assert_eq!(
            one("unknown variant `a`, there are no variants"),
            (None, "is not an allowed value".to_owned())
        );
        assert_eq!(
            one("invalid length 3, expected a tuple of size 2"),
            (
                None,
                "has the wrong number of items (expected a tuple of size 2)".to_owned()
            )
        );
        assert_eq!(
            one(r#"invalid type: string "s, expected u32", expected struct Envelope"#),
            (None, "must be an object".to_owned())
        );
        assert_eq!(
            one("secret-looking custom text"),
            (None, "is invalid".to_owned())
        );
    }

    #[test]
    fn paths_join_in_the_service_syntax() {
        assert_eq!(join("", "a"), "a");
        assert_eq!(join("a", "[0]"), "a[0]");
        assert_eq!(join("a[0]", "b"), "a[0].b");
    }
}
