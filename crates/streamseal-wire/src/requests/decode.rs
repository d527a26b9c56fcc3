//! Request documents read from JSON, with every mistake keyed by its wire
//! path: the one validation path of requests that come in as data (the
//! bindings' `buildRequest`, `nextPage`, ...; an app's own JSON).
//!
//! Text that is not JSON at all, or has a key twice in one object, is
//! [`crate::Error::MalformedJson`]. Every
//! other failure, of decoding or of the bounds, is
//! [`crate::Error::ValidationFailed`] with `details` keyed by the full wire
//! path in the syntax of the service's 400 body (see
//! [`crate::validate`]): a fraction where an integer is required,
//! a negative number for an unsigned one, a string for a boolean, `null`
//! for a required field, an unknown value of a closed enum (or anything
//! but a string for one: request enums are unit variants), a missing field
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

use std::cell::RefCell;

use serde::de::{self, DeserializeOwned, IntoDeserializer};
use serde_json::Value;

use crate::requests::Validate;
use crate::validate::Check;
use streamseal_crypto::error::Result;

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

/// JSON text as a value; only text that is not JSON, or has a key twice in
/// one object (as [`crate::parse_value`] refuses it), is `MALFORMED_JSON`.
///
/// # Errors
///
/// `MALFORMED_JSON` when `json` is not JSON or has a key twice.
pub fn parse(json: &str) -> Result<Value> {
    crate::parse_value(json)
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
    let track = Track::default();
    match T::deserialize(Strict {
        value,
        track: &track,
    }) {
        Ok(decoded) => Some(decoded),
        Err(err) => {
            report(check, track, &err, prefix, whole);
            None
        }
    }
}

/// Records the failure of [`decode_in`] (one copy of this, not one per
/// type decoded).
#[inline(never)]
fn report(check: &mut Check, track: Track, err: &serde_json::Error, prefix: &str, whole: &str) {
    track.failed();
    let inner = track.failed_at.into_inner().unwrap_or_default();
    let failure = reason(&err.to_string());
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
}

/// Where the reading is in the document, and where it failed.
///
/// Each array item and object value is read under its index or key; when
/// a read fails, the first [`Track::failed`] (the innermost: an error
/// passes the outer ones on its way up) writes the path in the service's
/// syntax. A read that succeeds clears it, so a failure a type recovered
/// from is not reported for a later one (as with `serde_path_to_error`,
/// a type that recovers and then fails on its own, reading nothing more,
/// is reported where its inner read failed).
#[derive(Default)]
struct Track {
    path: RefCell<Vec<Step>>,
    failed_at: RefCell<Option<String>>,
}

/// One step of a path.
enum Step {
    Index(usize),
    Key(String),
}

impl Track {
    /// Reads one item or value under `step`: [`Track::enter`], the read,
    /// [`Track::leave`] (the generic part is this one line, so each type
    /// read adds no more code than that).
    fn under<T, E>(&self, step: Step, read: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
        self.enter(step);
        let result = read();
        self.leave(result.is_ok());
        result
    }

    #[inline(never)]
    fn enter(&self, step: Step) {
        self.path.borrow_mut().push(step);
    }

    #[inline(never)]
    fn leave(&self, read: bool) {
        if read {
            *self.failed_at.borrow_mut() = None;
        } else {
            self.failed();
        }
        self.path.borrow_mut().pop();
    }

    /// Notes that the read at the current path failed, unless one inside
    /// it already did.
    fn failed(&self) {
        let mut failed_at = self.failed_at.borrow_mut();
        if failed_at.is_none() {
            *failed_at = Some(render(&self.path.borrow()));
        }
    }
}

/// A JSON value as a deserializer that reads objects only as objects:
/// serde's derived structs also take an array of the fields in order (and
/// `[]` for a struct whose fields all have defaults), which the service
/// refuses. An enum is read from a string only: request enums are unit
/// variants, and serde_json would also take `{"new": null}` for `"new"`
/// (any other value is "invalid type: ..., expected enum X": "has the
/// wrong type"). Everything else is `serde_json::Value`'s own reading,
/// with the same messages. Arrays and objects are read under their
/// [`Track`].
struct Strict<'t> {
    value: Value,
    track: &'t Track,
}

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

impl<'t> Strict<'t> {
    /// The items of an array, given to `visitor.visit_seq`.
    fn visit_array<'de, V: de::Visitor<'de>>(
        items: Vec<Value>,
        track: &'t Track,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let len = items.len();
        let mut seq = StrictSeq {
            items: items.into_iter(),
            index: 0,
            track,
        };
        let out = visitor.visit_seq(&mut seq)?;
        match seq.items.len() {
            0 => Ok(out),
            _ => Err(de::Error::invalid_length(len, &"fewer elements in array")),
        }
    }

    /// A value that is neither an array nor an object, given to the
    /// visitor's method for it: `Value::deserialize_any`'s own arms for
    /// these, without its arms for arrays and objects, which would add a
    /// copy of serde_json's map and sequence readers for every type read
    /// (measured: 200 KB of code in the npm package's second module).
    fn visit_scalar<'de, V: de::Visitor<'de>>(
        value: Value,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        match value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => de::Deserializer::deserialize_any(n, visitor),
            Value::String(s) => visitor.visit_string(s),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    /// The entries of an object, given to `visitor.visit_map`.
    fn visit_object<'de, V: de::Visitor<'de>>(
        map: serde_json::Map<String, Value>,
        track: &'t Track,
        visitor: V,
    ) -> Result<V::Value, serde_json::Error> {
        let len = map.len();
        let mut access = StrictMap {
            entries: map.into_iter(),
            next: None,
            track,
        };
        let out = visitor.visit_map(&mut access)?;
        match access.entries.len() {
            0 => Ok(out),
            _ => Err(de::Error::invalid_length(len, &"fewer elements in map")),
        }
    }
}

// A struct, a map and a sequence are not read through `deserialize_any`:
// its arm for arrays would bring a struct's and a map's `visit_seq` into
// the module (the struct's array form, which this reader refuses), and its
// arm for objects a sequence's `visit_map`, which are never taken. A map
// given an array and a sequence given an object get the "invalid type"
// error those `visit_*` defaults give; a scalar still goes to the visitor's
// method for it (`serde_json::Map` reads `null` as an empty map). A struct
// that is not an object is refused as before.
impl<'de> de::Deserializer<'de> for Strict<'_> {
    type Error = serde_json::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Array(items) => Strict::visit_array(items, self.track, visitor),
            Value::Object(map) => Strict::visit_object(map, self.track, visitor),
            scalar => Strict::visit_scalar(scalar, visitor),
        }
    }

    fn deserialize_option<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            other => visitor.visit_some(Strict {
                value: other,
                track: self.track,
            }),
        }
    }

    fn deserialize_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Object(map) => Strict::visit_object(map, self.track, visitor),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_map<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Object(map) => Strict::visit_object(map, self.track, visitor),
            Value::Array(_) => Err(de::Error::invalid_type(de::Unexpected::Seq, &visitor)),
            scalar => Strict::visit_scalar(scalar, visitor),
        }
    }

    fn deserialize_seq<V: de::Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.value {
            Value::Array(items) => Strict::visit_array(items, self.track, visitor),
            Value::Object(_) => Err(de::Error::invalid_type(de::Unexpected::Map, &visitor)),
            scalar => Strict::visit_scalar(scalar, visitor),
        }
    }

    fn deserialize_tuple<V: de::Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: de::Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.deserialize_seq(visitor)
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
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // Request enums are unit variants written as strings, and nothing
        // else is one (serde_json's `Value` would also take `{"new": null}`
        // for `"new"`: a second spelling, which the service refuses).
        match self.value {
            Value::String(variant) => visitor.visit_enum(variant.into_deserializer()),
            other => Err(de::Error::invalid_type(unexpected(&other), &visitor)),
        }
    }

    fn deserialize_ignored_any<V: de::Visitor<'de>>(
        self,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct identifier
    }
}

/// The items of an array, each read strictly under its index.
struct StrictSeq<'t> {
    items: std::vec::IntoIter<Value>,
    index: usize,
    track: &'t Track,
}

impl<'de> de::SeqAccess<'de> for StrictSeq<'_> {
    type Error = serde_json::Error;

    fn next_element_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        let Some(value) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        let track = self.track;
        track
            .under(Step::Index(index), || {
                seed.deserialize(Strict { value, track })
            })
            .map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The entries of an object, each value read strictly under its key.
struct StrictMap<'t> {
    entries: serde_json::map::IntoIter,
    /// The key and value of the entry whose key was just read.
    next: Option<(String, Value)>,
    track: &'t Track,
}

impl<'de> de::MapAccess<'de> for StrictMap<'_> {
    type Error = serde_json::Error;

    fn next_key_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Self::Error> {
        match self.entries.next() {
            Some((key, value)) => {
                let read = seed.deserialize(Value::String(key.clone()));
                self.next = Some((key, value));
                read.map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, Self::Error> {
        // serde calls this once after each key.
        let (key, value) = self
            .next
            .take()
            .unwrap_or_else(|| (String::new(), Value::Null));
        let track = self.track;
        track.under(Step::Key(key), || seed.deserialize(Strict { value, track }))
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

/// A path in the service's syntax (`wraps[0].recipientKeyId`).
fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Index(index) => out.push_str(&format!("[{index}]")),
            Step::Key(key) => out = join(&out, key),
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
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::requests::decisions::CreateDecisionRequest;
    use crate::requests::invocation::{ClaimRequest, SealedCompleteRequest};
    use crate::requests::messages::{SearchMessagesRequest, SendMessageRequest};
    use crate::requests::streams::PostKeyWrapsRequest;

    /// What the decoder reported before it tracked paths itself:
    /// `serde_path_to_error` over the same strict reading, its path
    /// rendered as the decoder did then. The oracle of the tracking.
    fn oracle_in<T: DeserializeOwned>(value: Value) -> Reported {
        let track = Track::default();
        let err = serde_path_to_error::deserialize::<_, T>(Strict {
            value,
            track: &track,
        })
        .err()?;
        let mut inner = String::new();
        for segment in err.path().iter() {
            match segment {
                serde_path_to_error::Segment::Seq { index } => {
                    inner.push_str(&format!("[{index}]"))
                }
                serde_path_to_error::Segment::Map { key }
                | serde_path_to_error::Segment::Enum { variant: key } => inner = join(&inner, key),
                serde_path_to_error::Segment::Unknown => break,
            }
        }
        let failure = reason(&err.inner().to_string());
        let inner = match &failure.child {
            Some(child) => join(&inner, child),
            None => inner,
        };
        Some((inner, failure.reason))
    }

    /// What [`decode_in`] reports: the failing path and its reason.
    fn tracked<T: DeserializeOwned>(value: Value) -> Reported {
        let mut check = Check::new();
        if decode_in::<T>(&mut check, value, "", "").is_some() {
            return None;
        }
        let error = check.into_error();
        let details = error.details().expect("a decoding failure has details");
        assert_eq!(details.len(), 1, "{details:?}");
        let (path, reasons) = details.iter().next()?;
        assert_eq!(reasons.len(), 1, "{details:?}");
        Some((path.clone(), reasons.first()?.clone()))
    }

    /// Valid bodies with arrays of objects, nested objects, options,
    /// enums, maps and flattened extras.
    fn bodies() -> Vec<(&'static str, Value)> {
        let envelope = json!({"v": 2, "keyGeneration": 0, "iv": "AAAAAAAAAAAAAAAA", "aad": "AAAA"});
        vec![
            (
                "wraps",
                json!({"keyGeneration": 1, "wraps": [
                {"recipientKind": "user", "recipientKeyId": "laptop", "wrapEnc": "AAAA", "wrapCt": "AAAA"},
                {"recipientKind": "bot", "recipientKeyId": "runner", "wrapEnc": "AAAA", "wrapCt": "AAAA"}]}),
            ),
            (
                "send",
                json!({"content": "hi", "clientMessageId": "cmid_1", "metadata": {"ticket": "T-1"},
                "conversation": {"intent": "existing", "conversationId": "conversation_1"}}),
            ),
            (
                "send",
                json!({"sealed": {"ciphertext": "AAAA", "envelope": envelope}}),
            ),
            (
                "search",
                json!({"query": "roadmap", "semantic": true, "exact": false, "streams": ["stream_1"],
                "from": "usr_1", "type": ["channel", "dm"], "before": "2026-07-12T09:30:00Z", "limit": 20}),
            ),
            (
                "claim",
                json!({"runtimeKind": "custom", "instanceId": "machine-a",
                "supportedCapabilities": ["mentionable"], "claimTtlSeconds": 60}),
            ),
            (
                "decision",
                json!({"decisionId": "dreq_01JD3QQB2C4E6G8J0K2M4P6R8T", "invocationId": "inv_1",
                "runtimeSessionId": "s-1", "options": [{"id": "a", "tone": "primary"}, {"id": "b", "tone": "neutral"}],
                "allowNote": true, "sealed": {"ciphertext": "AAAA", "envelope": envelope}}),
            ),
            (
                "complete",
                json!({"finalMessage": {"clientMessageId": "cmid_1",
                "sealed": {"ciphertext": "AAAA", "envelope": envelope}}, "summary": "done"}),
            ),
        ]
    }

    /// The failing path and its reason, if the body did not decode.
    type Reported = Option<(String, String)>;

    fn both(kind: &str, value: Value) -> (Reported, Reported) {
        macro_rules! pair {
            ($t:ty) => {
                (oracle_in::<$t>(value.clone()), tracked::<$t>(value))
            };
        }
        match kind {
            "wraps" => pair!(PostKeyWrapsRequest),
            "send" => pair!(SendMessageRequest),
            "search" => pair!(SearchMessagesRequest),
            "claim" => pair!(ClaimRequest),
            "decision" => pair!(CreateDecisionRequest),
            _ => pair!(SealedCompleteRequest),
        }
    }

    /// Every place in `value`: the JSON pointer of each node.
    fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    pointers(child, format!("{at}/{key}"), out);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    pointers(child, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
        out.push(at);
    }

    fn replacement() -> impl Strategy<Value = Option<Value>> {
        prop_oneof![
            Just(None),
            Just(Some(Value::Null)),
            any::<bool>().prop_map(|b| Some(json!(b))),
            any::<i64>().prop_map(|n| Some(json!(n))),
            Just(Some(json!(1.5))),
            "[a-z]{0,6}".prop_map(|s| Some(json!(s))),
            Just(Some(json!([]))),
            Just(Some(json!([1, "x", {}]))),
            Just(Some(json!({}))),
            Just(Some(json!({"zz": 1, "id": 5}))),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

        /// One node of a valid body replaced (another type, an empty or
        /// odd container) or removed: the path and reason reported are
        /// serde_path_to_error's, and a body still valid decodes.
        #[test]
        fn the_tracked_path_is_serde_path_to_errors(
            which in any::<prop::sample::Index>(),
            node in any::<prop::sample::Index>(),
            new in replacement(),
            extra in any::<bool>(),
        ) {
            let all = bodies();
            let (kind, mut body) = all[which.index(all.len())].clone();
            let mut places = Vec::new();
            pointers(&body, String::new(), &mut places);
            let place = places[node.index(places.len())].clone();
            match (place.rsplit_once('/'), new) {
                (None, Some(v)) => body = v,
                (None, None) => body = json!([]),
                (Some((parent, last)), new) => match (body.pointer_mut(parent), new) {
                    (Some(Value::Object(map)), None) => { map.remove(last); }
                    (Some(Value::Array(items)), None) => { items.remove(last.parse::<usize>().unwrap()); }
                    (_, Some(v)) => *body.pointer_mut(&place).unwrap() = v,
                    _ => {}
                },
            }
            if extra && let Some(map) = body.as_object_mut() {
                map.insert("unknownField".to_owned(), json!(1));
            }
            let (want, got) = both(kind, body.clone());
            prop_assert_eq!(got, want, "{}", body);
        }
    }

    /// A list that reads as `None` when it does not read: it recovers
    /// from a failure inside it.
    struct Lenient(#[allow(dead_code)] Option<Vec<u32>>);

    impl<'de> de::Deserialize<'de> for Lenient {
        fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            Ok(Lenient(Vec::<u32>::deserialize(d).ok()))
        }
    }

    #[derive(serde::Deserialize)]
    struct Recovering {
        #[allow(dead_code)]
        first: Lenient,
        #[allow(dead_code)]
        second: u32,
    }

    #[test]
    fn a_failure_recovered_from_is_not_reported_for_a_later_one() {
        // Read in key order (serde_json's map is sorted).
        let body = json!({"first": [1, "x"], "second": "y"});
        let mut check = Check::new();
        assert!(decode_in::<Recovering>(&mut check, body, "", "").is_none());
        let error = check.into_error();
        let keys: Vec<&String> = error.details().unwrap().keys().collect();
        assert_eq!(keys, ["second"]);
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    enum WithData {
        A(u32),
        B,
    }

    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Closed {
        a: u32,
        e: Option<WithData>,
    }

    /// What the tracker reports where serde_path_to_error reported
    /// otherwise, for shapes no request type has (pinned here).
    #[test]
    fn where_the_tracker_and_the_oracle_part() {
        // An unknown field of a closed struct is named once (the oracle:
        // `zz.zz`, the key captured and then named again by the message).
        let body = json!({"a": 1, "zz": 1});
        assert_eq!(
            tracked::<Closed>(body.clone()),
            Some(("zz".to_owned(), "is not a field of this request".to_owned()))
        );
        assert_eq!(
            oracle_in::<Closed>(body).map(|(path, _)| path).as_deref(),
            Some("zz.zz")
        );
        // An enum is a string only: a variant with data cannot be given,
        // in either form.
        for e in [json!({"A": 1}), json!({"B": null}), json!(["B"])] {
            assert_eq!(
                tracked::<Closed>(json!({"a": 1, "e": e})),
                Some(("e".to_owned(), "has the wrong type".to_owned())),
                "{e}"
            );
        }
        // serde_json's own reading, which the decoder used for enums, takes it.
        assert!(serde_json::from_value::<Closed>(json!({"a": 1, "e": {"A": 1}})).is_ok());
        assert_eq!(
            tracked::<Closed>(json!({"a": 1, "e": "A"}))
                .map(|(path, _)| path)
                .as_deref(),
            Some("e")
        );
        assert_eq!(tracked::<Closed>(json!({"a": 1, "e": "B"})), None);
    }

    #[test]
    fn valid_bodies_decode_under_both() {
        for (kind, body) in bodies() {
            assert_eq!(both(kind, body.clone()), (None, None), "{body}");
        }
    }

    #[test]
    fn a_failure_deep_in_an_array_is_named_by_its_full_path() {
        let mut body = bodies()[0].1.clone();
        body["wraps"][1]["recipientKeyId"] = json!(7);
        let (want, got) = both("wraps", body.clone());
        assert_eq!(got, want);
        assert_eq!(
            got.map(|(path, _)| path).as_deref(),
            Some("wraps[1].recipientKeyId")
        );
        let mut body = bodies()[0].1.clone();
        body["wraps"][1].as_object_mut().unwrap().remove("wrapEnc");
        let (want, got) = both("wraps", body);
        assert_eq!(got, want);
        assert_eq!(
            got,
            Some(("wraps[1].wrapEnc".to_owned(), "is required".to_owned()))
        );
    }

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
