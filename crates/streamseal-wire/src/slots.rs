//! Hydration slots of message responses (API §2.1): the top-level
//! `slots` object that carries the content of cross-stream shared-message
//! pointers.
//!
//! Not to be confused with [`streamseal_crypto::slot`], the place a ciphertext is bound
//! to. Here a slot is an entry of `slots`, keyed
//! `shared:<messageId>[@<version>[:<from>-<to>]]` (the pin and span parts only
//! from 2026-08-21).
//!
//! Tolerance: a key of another form is kept as [`SlotKey::Other`]; a value
//! whose status is not `ok` is kept as it came in [`SlotValue::Other`].
//! The shape of an `ok` slot's `range` is not shown in the spec, so it is
//! kept as raw JSON. The field that carries `ok` is read as `status`
//! (the spec speaks of "`ok` slots" without naming the field).
//!
//! ```
//! use streamseal_wire::slots::{SharedRef, SlotKey};
//!
//! let key = SlotKey::parse("shared:msg_01J0000000000000000000000A@3:10-42");
//! let SlotKey::Shared(r) = &key else { unreachable!() };
//! assert_eq!((r.version, r.range), (Some(3), Some((10, 42))));
//! assert_eq!(key.to_string(), "shared:msg_01J0000000000000000000000A@3:10-42");
//! // Not canonical, a span without a version, whitespace: not shared refs.
//! assert!(SharedRef::parse("shared:msg_01J0000000000000000000000A@03").is_err());
//! assert!(SharedRef::parse("shared:msg_01J0000000000000000000000A:10-42").is_err());
//! assert!(SharedRef::parse("shared:msg_01J0000000000000000000000A ").is_err());
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::extra::Extra;
use crate::ids::MessageId;
use crate::version::ApiVersion;
use streamseal_crypto::error::{Error, Result};

/// The prefix of a shared-message slot key.
pub const SHARED_PREFIX: &str = "shared:";

/// A parsed `shared:<messageId>[@<version>[:<from>-<to>]]` key.
///
/// The grammar exactly as API §2.1 writes it: the prefix, a message id
/// (`msg_` plus a ULID, API §1), then optionally `@` and a version, then,
/// only after a version, `:` and a span `<from>-<to>`. Numbers are
/// canonical decimals (no sign, no leading zero, at most `u32::MAX`).
/// Nothing else: no whitespace, no range without a version, no other
/// separator. A key of any other form is not an error where keys are read:
/// [`SlotKey::parse`] keeps it verbatim as [`SlotKey::Other`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SharedRef {
    /// The shared (source) message.
    pub message_id: MessageId,
    /// The pinned revision, when the reference pins one (from 2026-08-21).
    pub version: Option<u32>,
    /// The pinned span `(from, to)`; only together with a version.
    pub range: Option<(u32, u32)>,
}

fn parse_decimal(text: &str) -> Option<u32> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    if canonical { text.parse().ok() } else { None }
}

impl SharedRef {
    /// Parses a key strictly by the grammar above.
    ///
    /// # Errors
    ///
    /// [`CryptoError::InvalidField`](streamseal_crypto::CryptoError::InvalidField) (`slots`) for any text outside the grammar.
    pub fn parse(key: &str) -> Result<Self> {
        let bad = || {
            Error::invalid(
                "slots",
                "expected `shared:<messageId>[@<version>[:<from>-<to>]]`",
            )
        };
        let rest = key.strip_prefix(SHARED_PREFIX).ok_or_else(bad)?;
        let (id, pin) = match rest.split_once('@') {
            Some((id, pin)) => (id, Some(pin)),
            None => (rest, None),
        };
        // The id is exactly a message id: this refuses a span without a
        // version (`msg_..:10-42`) and any whitespace around it.
        let message_id = MessageId::parse(id).map_err(|_| bad())?;
        let (version, range) = match pin {
            None => (None, None),
            Some(pin) => {
                let (version, span) = match pin.split_once(':') {
                    Some((v, span)) => (v, Some(span)),
                    None => (pin, None),
                };
                let version = parse_decimal(version).ok_or_else(bad)?;
                let range = match span {
                    None => None,
                    Some(span) => {
                        let (from, to) = span.split_once('-').ok_or_else(bad)?;
                        Some((
                            parse_decimal(from).ok_or_else(bad)?,
                            parse_decimal(to).ok_or_else(bad)?,
                        ))
                    }
                };
                (Some(version), range)
            }
        };
        Ok(SharedRef {
            message_id,
            version,
            range,
        })
    }

    /// The whole-message, unpinned reference to the same source.
    pub fn unpinned(&self) -> SharedRef {
        SharedRef {
            message_id: self.message_id.clone(),
            version: None,
            range: None,
        }
    }

    /// Whether the key parses back to `self`: a range needs a version.
    pub fn is_well_formed(&self) -> bool {
        self.range.is_none() || self.version.is_some()
    }
}

impl fmt::Display for SharedRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{SHARED_PREFIX}{}", self.message_id)?;
        if let Some(version) = self.version {
            write!(f, "@{version}")?;
            if let Some((from, to)) = self.range {
                write!(f, ":{from}-{to}")?;
            }
        }
        Ok(())
    }
}

/// A key of the `slots` object.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SlotKey {
    /// A shared-message reference.
    Shared(SharedRef),
    /// A key of a form this library does not know, kept verbatim.
    Other(String),
}

impl SlotKey {
    /// Classifies a key; never fails.
    pub fn parse(key: &str) -> Self {
        match SharedRef::parse(key) {
            Ok(r) => SlotKey::Shared(r),
            Err(_) => SlotKey::Other(key.to_owned()),
        }
    }
}

impl fmt::Display for SlotKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SlotKey::Shared(r) => r.fmt(f),
            SlotKey::Other(s) => f.write_str(s),
        }
    }
}

ts_decl!("export type SlotKey = string;");

impl Serialize for SlotKey {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for SlotKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(SlotKey::parse(&String::deserialize(d)?))
    }
}

/// An `ok` slot: the shared message's markdown, and from 2026-08-21 the pin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct OkSlot {
    /// Markdown of the revision the reference names (the highest before 2026-08-21).
    pub content: String,
    /// The revision the content is (from 2026-08-21).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u32>,
    /// The source message's current revision (from 2026-08-21).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_revision: Option<u32>,
    /// The pinned span (from 2026-08-21). Its shape is not shown in the
    /// spec, so it is kept as raw JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "wasm", tsify(type = "unknown | null"))]
    pub range: Option<Value>,
    /// Fields this library does not know (besides `status`), kept as raw
    /// JSON and written back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}

/// The value of a slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SlotValue {
    /// `status: "ok"` with content.
    Ok(OkSlot),
    /// Any other status (or an `ok` this library cannot read), kept as it came.
    Other(Map<String, Value>),
}

impl SlotValue {
    /// The value without the 2026-08-21 pin fields (`version`,
    /// `currentRevision`, `range`), as earlier versions carry an `ok` slot.
    pub fn without_pin(&self) -> SlotValue {
        match self {
            SlotValue::Ok(slot) => SlotValue::Ok(OkSlot {
                version: None,
                current_revision: None,
                range: None,
                ..slot.clone()
            }),
            other => other.clone(),
        }
    }

    /// The `status` value.
    pub fn status(&self) -> Option<&str> {
        match self {
            SlotValue::Ok(_) => Some("ok"),
            SlotValue::Other(raw) => raw.get("status").and_then(Value::as_str),
        }
    }
}

#[derive(Serialize)]
struct TaggedOk<'a> {
    status: &'static str,
    #[serde(flatten)]
    slot: &'a OkSlot,
}

ts_decl!("export type SlotValue = ({ status: \"ok\" } & OkSlot) | Record<string, unknown>;");

impl Serialize for SlotValue {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            SlotValue::Ok(slot) => TaggedOk { status: "ok", slot }.serialize(s),
            SlotValue::Other(raw) => raw.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for SlotValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let raw = Map::<String, Value>::deserialize(d)?;
        let is_ok = raw.get("status").and_then(Value::as_str) == Some("ok");
        // `status` is the tag, written by `TaggedOk`: not an unknown field.
        let parsed = is_ok
            .then(|| {
                let mut fields = raw.clone();
                fields.remove("status");
                serde_json::from_value::<OkSlot>(Value::Object(fields)).ok()
            })
            .flatten();
        if let Some(slot) = parsed {
            return Ok(SlotValue::Ok(slot));
        }
        Ok(SlotValue::Other(raw))
    }
}

/// The top-level `slots` object: required (empty when unused) from
/// 2026-07-24, stripped before.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(transparent)]
pub struct Slots(pub BTreeMap<SlotKey, SlotValue>);

impl Slots {
    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The slot under a key.
    pub fn get(&self, key: &SlotKey) -> Option<&SlotValue> {
        self.0.get(key)
    }

    /// What a response of `version` carries for these slots:
    /// - before 2026-07-24, nothing;
    /// - before 2026-08-21, one `shared:<messageId>` key per source: the
    ///   unpinned entry when there is one, otherwise the pinned entry of the
    ///   highest version; references to a span omitted; no `ok` slot (of
    ///   any key) carries pin fields;
    /// - from 2026-08-21, everything.
    pub fn restricted_to(&self, version: ApiVersion) -> Slots {
        if !version.has_slots() {
            return Slots::default();
        }
        if version.has_pinned_slots() {
            return self.clone();
        }
        let mut out: BTreeMap<SlotKey, SlotValue> = BTreeMap::new();
        let mut chosen: BTreeMap<MessageId, Option<u32>> = BTreeMap::new();
        for (key, value) in &self.0 {
            let SlotKey::Shared(r) = key else {
                out.insert(key.clone(), value.without_pin());
                continue;
            };
            if r.range.is_some() {
                continue;
            }
            // None (unpinned) beats every pin; otherwise the highest version wins.
            let better = match chosen.get(&r.message_id) {
                None => true,
                Some(None) => false,
                Some(Some(held)) => r.version.is_none_or(|v| v > *held),
            };
            if !better {
                continue;
            }
            chosen.insert(r.message_id.clone(), r.version);
            out.insert(SlotKey::Shared(r.unpinned()), value.without_pin());
        }
        Slots(out)
    }
}
