//! Typed identifiers: a type prefix plus a ULID (API §1).
//!
//! Each id type parses strictly: the exact prefix, then 26 characters of
//! upper-case Crockford base32 that decode to a 128-bit ULID. Ids the client
//! mints itself (message ids of sealed sends, decision ids) come from
//! [`MessageId::mint`] and friends, with the caller's clock and the crate's
//! randomness.
//!
//! Tolerance: response types use these strict types only where the spec
//! fixes the prefix of that very field (a message's `id`, a stream's `id`).
//! A field that may name several kinds of actor (`authorId` may be a user or
//! a bot, whose prefix the spec does not give) stays a `String`, and
//! [`AnchorId`] keeps an anchor of an unknown kind instead of failing.
//! Request bodies carry plain strings that `validate()` checks, so that a
//! bad id comes back in the service's 400 shape like every other failure.
//!
//! ```
//! use streamseal_wire::ids::{MessageId, StreamId};
//!
//! let id = MessageId::mint(1_750_000_000_000)?;
//! assert!(id.as_str().starts_with("msg_"));
//! assert_eq!(MessageId::parse(id.as_str())?, id);
//! // The wrong prefix, lower case, or a short ULID: rejected.
//! assert!(MessageId::parse("stream_01J0000000000000000000000A").is_err());
//! assert!(StreamId::parse("stream_01j0000000000000000000000a").is_err());
//! # Ok::<(), streamseal_wire::Error>(())
//! ```

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use streamseal_crypto::error::{Error, Result};
use streamseal_crypto::random;

/// Length of a ULID in its Crockford base32 text form.
pub const ULID_LEN: usize = 26;

/// Largest millisecond timestamp a ULID holds (48 bits).
pub const MAX_ULID_TIMESTAMP_MS: u64 = (1 << 48) - 1;

const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// Whether `text` is a canonical ULID: 26 upper-case Crockford base32
/// characters whose value fits 128 bits (first character `0` to `7`).
pub fn is_ulid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == ULID_LEN
        && bytes.first().is_some_and(|b| (b'0'..=b'7').contains(b))
        && bytes.iter().all(|b| CROCKFORD.contains(b))
}

/// Mints a ULID from a millisecond timestamp and 80 random bits of the
/// crate's randomness.
///
/// # Errors
///
/// `INVALID_FIELD` (`timestamp`) when `now_ms` does not fit a ULID's 48
/// bits; `RANDOMNESS_UNAVAILABLE` when the random bits cannot be drawn.
pub fn mint_ulid(now_ms: u64) -> Result<String> {
    if now_ms > MAX_ULID_TIMESTAMP_MS {
        return Err(Error::invalid(
            "timestamp",
            "does not fit the 48 bits of a ULID",
        ));
    }
    let mut wide = [0u8; 16];
    let bytes = random::array::<10>()?;
    for (dst, src) in wide.iter_mut().skip(6).zip(bytes) {
        *dst = src;
    }
    Ok(ulid::Ulid::from_parts(now_ms, u128::from_be_bytes(wide)).to_string())
}

#[cfg(not(target_arch = "wasm32"))]
fn now_ms() -> Result<u64> {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|_| Error::invalid("timestamp", "the system clock is before 1970"))?;
    u64::try_from(since.as_millis())
        .map_err(|_| Error::invalid("timestamp", "the system clock is out of range"))
}

macro_rules! typed_id {
    ($(#[$meta:meta])* $name:ident, $prefix:literal, $field:literal) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(String);

        impl $name {
            /// The type prefix, including the underscore.
            pub const PREFIX: &'static str = $prefix;

            /// Parses strictly: the exact prefix followed by a canonical ULID.
            ///
            /// # Errors
            ///
            /// `INVALID_FIELD` when the prefix or the ULID after it is wrong.
            pub fn parse(text: &str) -> Result<Self> {
                match text.strip_prefix($prefix) {
                    Some(rest) if is_ulid(rest) => Ok($name(text.to_owned())),
                    Some(_) => Err(Error::invalid($field, concat!("expected `", $prefix, "` followed by a 26-character upper-case ULID"))),
                    None => Err(Error::invalid($field, concat!("expected the prefix `", $prefix, "`"))),
                }
            }

            /// Mints a new id from the caller's clock (milliseconds since the
            /// Unix epoch) and the crate's randomness.
            ///
            /// # Errors
            ///
            /// As [`mint_ulid`]: `INVALID_FIELD` (`timestamp`), `RANDOMNESS_UNAVAILABLE`.
            pub fn mint(now_ms: u64) -> Result<Self> {
                Ok($name(format!("{}{}", $prefix, mint_ulid(now_ms)?)))
            }

            /// Mints a new id from the system clock (not on wasm32, where the
            /// caller passes the time to [`Self::mint`]).
            ///
            /// # Errors
            ///
            /// `INVALID_FIELD` (`timestamp`) when the system clock is before 1970 or out
            /// of a ULID's range; `RANDOMNESS_UNAVAILABLE`.
            #[cfg(not(target_arch = "wasm32"))]
            pub fn mint_now() -> Result<Self> {
                Self::mint(now_ms()?)
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The ULID part, after the prefix.
            pub fn ulid(&self) -> &str {
                self.0.strip_prefix($prefix).unwrap_or_default()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}({})", stringify!($name), self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self> {
                $name::parse(s)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        ts_decl!(concat!("export type ", stringify!($name), " = string;"));

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                $name::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
            }
        }

        $crate::leaf_shape!($name);
    };
}

typed_id!(
    /// A workspace id, `ws_` + ULID.
    WorkspaceId, "ws_", "workspaceId"
);
typed_id!(
    /// A user id, `usr_` + ULID.
    UserId, "usr_", "userId"
);
typed_id!(
    /// A stream id, `stream_` + ULID (channels, DMs, scratchpads, threads, system streams).
    StreamId, "stream_", "streamId"
);
typed_id!(
    /// A message id, `msg_` + ULID. Sealed sends mint their own.
    MessageId, "msg_", "messageId"
);
typed_id!(
    /// A conversation id, `conversation_` + ULID.
    ConversationId, "conversation_", "conversationId"
);
typed_id!(
    /// A bot invocation id, `inv_` + ULID.
    InvocationId, "inv_", "invocationId"
);
typed_id!(
    /// An incoming-webhook id, `hook_` + ULID.
    HookId, "hook_", "hookId"
);
typed_id!(
    /// A decision (question card) id, `dreq_` + ULID, minted by the client.
    DecisionId, "dreq_", "decisionId"
);
typed_id!(
    /// An event card id, `event_` + ULID (a thread may anchor on one).
    EventId, "event_", "eventId"
);

/// Longest step id the API accepts (`stepId`, `clientStepId`: 1 to 128).
pub const MAX_STEP_ID_LEN: usize = 128;

/// A client-minted trace step id (`stepId`, `clientStepId`).
///
/// The spec bounds it to 1 to 128 characters and names no prefix, so none
/// is invented: [`StepId::mint`] gives a bare ULID and [`StepId::parse`]
/// accepts any 1-to-128-character value.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(transparent)]
pub struct StepId(String);

impl StepId {
    /// Accepts any id of 1 to 128 characters.
    ///
    /// # Errors
    ///
    /// `INVALID_LENGTH` when `text` is not 1 to 128 characters.
    pub fn parse(text: &str) -> Result<Self> {
        let len = text.chars().count();
        if !(1..=MAX_STEP_ID_LEN).contains(&len) {
            return Err(Error::length("stepId", "1..=128", len));
        }
        Ok(StepId(text.to_owned()))
    }

    /// Mints a bare ULID from the caller's clock and the crate's randomness.
    ///
    /// # Errors
    ///
    /// As [`mint_ulid`]: `INVALID_FIELD` (`timestamp`), `RANDOMNESS_UNAVAILABLE`.
    pub fn mint(now_ms: u64) -> Result<Self> {
        Ok(StepId(mint_ulid(now_ms)?))
    }

    /// Mints from the system clock (not on wasm32).
    ///
    /// # Errors
    ///
    /// `INVALID_FIELD` (`timestamp`) when the system clock is before 1970 or out
    /// of a ULID's range; `RANDOMNESS_UNAVAILABLE`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn mint_now() -> Result<Self> {
        Self::mint(now_ms()?)
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StepId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<StepId> for String {
    fn from(id: StepId) -> String {
        id.0
    }
}

impl<'de> Deserialize<'de> for StepId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        StepId::parse(&String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// What a thread anchors on (`anchorId`, or `parentMessageId` in the
/// 2026-07-12 shape): a message (`msg_`) or, from 2026-07-22, an event card
/// (`event_`). An id of any other form is kept as it came, so a new kind of
/// anchor never fails a stream listing.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AnchorId {
    /// The thread anchors on a message.
    Message(MessageId),
    /// The thread anchors on an event card.
    Event(EventId),
    /// An anchor this library cannot classify, kept verbatim.
    Other(String),
}

impl AnchorId {
    /// Classifies an anchor id; never fails.
    pub fn parse(text: &str) -> Self {
        if let Ok(id) = MessageId::parse(text) {
            AnchorId::Message(id)
        } else if let Ok(id) = EventId::parse(text) {
            AnchorId::Event(id)
        } else {
            AnchorId::Other(text.to_owned())
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        match self {
            AnchorId::Message(id) => id.as_str(),
            AnchorId::Event(id) => id.as_str(),
            AnchorId::Other(s) => s,
        }
    }
}

impl fmt::Display for AnchorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

ts_decl!("export type AnchorId = string;");

impl Serialize for AnchorId {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for AnchorId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Ok(AnchorId::parse(&String::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulid_grammar_is_strict() {
        assert!(is_ulid("01J0000000000000000000000A"));
        assert!(is_ulid("7ZZZZZZZZZZZZZZZZZZZZZZZZZ"));
        assert!(!is_ulid("8ZZZZZZZZZZZZZZZZZZZZZZZZZ"), "overflows 128 bits");
        assert!(!is_ulid("01J0000000000000000000000"), "25 characters");
        assert!(!is_ulid("01J0000000000000000000000AB"), "27 characters");
        assert!(!is_ulid("01J000000000000000000000IA"), "I is not Crockford");
        assert!(!is_ulid("01j0000000000000000000000a"), "lower case");
    }

    #[test]
    fn mint_rejects_a_timestamp_beyond_48_bits() {
        assert!(mint_ulid(MAX_ULID_TIMESTAMP_MS + 1).is_err());
    }

    #[test]
    fn minted_ulid_keeps_the_timestamp() {
        let text = mint_ulid(1_750_000_000_000).unwrap_or_default();
        let parsed = ulid::Ulid::from_string(&text).map(|u| u.timestamp_ms());
        assert_eq!(parsed, Ok(1_750_000_000_000));
    }
}
