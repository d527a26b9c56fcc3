//! One normalised model per shape, read from and written to the JSON of
//! any known version.
//!
//! The serde of each type is its latest shape. [`Versioned`] maps other
//! versions' shapes onto the same model:
//!
//! | type | 2026-07-12 | 2026-07-22 | 2026-07-24 | 2026-08-21 |
//! |---|---|---|---|---|
//! | [`Stream`], [`StreamPage`] | `parentMessageId` | `anchorId` | `anchorId` | `anchorId` |
//! | message responses | no `slots` | no `slots` | `slots`, unpinned keys | `slots`, pinned keys and fields |
//! | [`DelegationCompletion`] | same fields; see [`crate::delegation::ResultPlacement`] | | | |
//! | [`Bot`] | `readsAsOwner` | kept when sent | kept when sent | kept when sent |
//!
//! Unknown fields (each type's `extra`, API §9.6) pass through every
//! conversion unchanged: a version's reading and writing only rename or
//! drop that version's own fields.
//!
//! A version cannot always express the whole model (no slots before
//! 2026-07-24, no pins before 2026-08-21): [`Versioned::restricted_to`] is
//! the model as that version sees it, and for every version `v`,
//! `from_version_json(v, to_version_json(v, m)) == m.restricted_to(v)`.
//!
//! ```
//! use streamseal_wire::{stream::Stream, version::ApiVersion, versioned::Versioned};
//!
//! let old = r#"{"id":"stream_01J0000000000000000000000A","type":"thread","displayName":"t",
//!   "visibility":"private","memoryMode":"auto","parentMessageId":"msg_01J0000000000000000000000B",
//!   "createdAt":"2026-07-30T10:00:00Z"}"#;
//! let stream = Stream::from_version_json(ApiVersion::V2026_07_12, old)?;
//! assert_eq!(stream.anchor_id.as_ref().map(|a| a.as_str()), Some("msg_01J0000000000000000000000B"));
//! assert!(stream.to_version_json(ApiVersion::LATEST).contains("\"anchorId\""));
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::bot::Bot;
use crate::delegation::DelegationCompletion;
use crate::invocation::InvocationCompleted;
use crate::list::StreamPage;
use crate::message::{MessageList, MessageResponse, MessageSearchResults, MessagesFound};
use crate::stream::Stream;
use crate::version::ApiVersion;
use streamseal_crypto::error::Result;

/// A type whose JSON shape differs between versions.
pub trait Versioned: Sized + Serialize + DeserializeOwned {
    /// The model as a response of `version` can express it.
    fn restricted_to(&self, version: ApiVersion) -> Self;

    /// Rewrites a `version`-shaped JSON value into the latest shape.
    fn upgrade_value(version: ApiVersion, value: &mut Value);

    /// Rewrites a latest-shaped JSON value into `version`'s shape.
    fn downgrade_value(version: ApiVersion, value: &mut Value);

    /// Reads a JSON value in the shape of `version`.
    ///
    /// # Errors
    ///
    /// `MALFORMED_JSON` when the upgraded value does not have the model's shape.
    fn from_version_value(version: ApiVersion, mut value: Value) -> Result<Self> {
        Self::upgrade_value(version, &mut value);
        crate::from_value(value)
    }

    /// Writes the JSON value of `version`'s shape.
    fn to_version_value(&self, version: ApiVersion) -> Value {
        let mut value = serde_json::to_value(self.restricted_to(version)).unwrap_or(Value::Null);
        Self::downgrade_value(version, &mut value);
        value
    }

    /// Parses JSON text in the shape of `version`.
    ///
    /// # Errors
    ///
    /// `MALFORMED_JSON` when `json` is not JSON (or has a key twice in an
    /// object: [`crate::parse_value`]) or not of the model's shape.
    fn from_version_json(version: ApiVersion, json: &str) -> Result<Self> {
        Self::from_version_value(version, crate::parse_value(json)?)
    }

    /// Serialises to JSON text in the shape of `version`.
    fn to_version_json(&self, version: ApiVersion) -> String {
        self.to_version_value(version).to_string()
    }
}

fn object(value: &mut Value) -> Option<&mut Map<String, Value>> {
    value.as_object_mut()
}

fn rename(value: &mut Value, from: &str, to: &str) {
    if let Some(obj) = object(value) {
        obj.remove(to);
        if let Some(v) = obj.remove(from) {
            obj.insert(to.to_owned(), v);
        }
    }
}

fn remove(value: &mut Value, key: &str) {
    if let Some(obj) = object(value) {
        obj.remove(key);
    }
}

impl Versioned for Stream {
    fn restricted_to(&self, _version: ApiVersion) -> Self {
        // The spec does not say what a 2026-07-12 pin sees for a thread that
        // anchors on a card; the anchor id is written as it is.
        self.clone()
    }

    fn upgrade_value(version: ApiVersion, value: &mut Value) {
        if version.uses_anchor_id() {
            remove(value, "parentMessageId");
        } else {
            rename(value, "parentMessageId", "anchorId");
        }
    }

    fn downgrade_value(version: ApiVersion, value: &mut Value) {
        if !version.uses_anchor_id() {
            rename(value, "anchorId", "parentMessageId");
        }
    }
}

impl Versioned for StreamPage {
    fn restricted_to(&self, _version: ApiVersion) -> Self {
        self.clone()
    }

    fn upgrade_value(version: ApiVersion, value: &mut Value) {
        if let Some(Value::Array(items)) = object(value).and_then(|o| o.get_mut("data")) {
            items
                .iter_mut()
                .for_each(|s| Stream::upgrade_value(version, s));
        }
    }

    fn downgrade_value(version: ApiVersion, value: &mut Value) {
        if let Some(Value::Array(items)) = object(value).and_then(|o| o.get_mut("data")) {
            items
                .iter_mut()
                .for_each(|s| Stream::downgrade_value(version, s));
        }
    }
}

macro_rules! slot_bearing {
    ($($ty:ty),+) => {$(
        impl Versioned for $ty {
            fn restricted_to(&self, version: ApiVersion) -> Self {
                let mut out = self.clone();
                out.slots = self.slots.restricted_to(version);
                out
            }

            fn upgrade_value(version: ApiVersion, value: &mut Value) {
                if !version.has_slots() {
                    remove(value, "slots");
                }
            }

            fn downgrade_value(version: ApiVersion, value: &mut Value) {
                if !version.has_slots() {
                    remove(value, "slots");
                }
            }
        }
    )+};
}

slot_bearing!(
    MessageList,
    MessageSearchResults,
    MessagesFound,
    MessageResponse,
    InvocationCompleted
);

macro_rules! same_shape {
    ($($ty:ty),+) => {$(
        impl Versioned for $ty {
            fn restricted_to(&self, _version: ApiVersion) -> Self {
                self.clone()
            }
            fn upgrade_value(_version: ApiVersion, _value: &mut Value) {}
            fn downgrade_value(_version: ApiVersion, _value: &mut Value) {}
        }
    )+};
}

// Same fields in every version: a completion's meaning changed in
// 2026-07-22 (see `ResultPlacement`), and `readsAsOwner` is described for
// the 2026-07-12 shape without a stated removal.
same_shape!(DelegationCompletion, Bot);
