//! Small shapes shared by several resource families: the message sequence
//! and the author type.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::open_enum::open_enum;

open_enum!(
    /// Who wrote a message (`authorType`): an open enum.
    AuthorType {
        /// A workspace user.
        User => "user",
        /// A persona.
        Persona => "persona",
        /// The system.
        System => "system",
        /// A bot.
        Bot => "bot",
    }
);

open_enum!(
    /// The kind of actor behind a label or an assignment (`user` or `bot`): an open enum.
    ActorType {
        /// A user.
        User => "user",
        /// A bot.
        Bot => "bot",
    }
);

open_enum!(
    /// Stream types (`type`): an open enum.
    StreamType {
        /// A bot scratchpad.
        Scratchpad => "scratchpad",
        /// A channel.
        Channel => "channel",
        /// A direct message.
        Dm => "dm",
        /// A thread.
        Thread => "thread",
        /// A system stream.
        System => "system",
    }
);

/// A message's sequence in its stream: numeric, carried as a string.
///
/// Kept as the text that came, so a value larger than any integer type
/// still round-trips; [`Sequence::as_u64`] reads it as a number.
#[derive(
    Clone,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    crate::shape::WireShape,
)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(transparent)]
pub struct Sequence(pub String);

impl Sequence {
    /// The sequence as a number, when it is one.
    pub fn as_u64(&self) -> Option<u64> {
        if self.0.bytes().all(|b| b.is_ascii_digit()) {
            self.0.parse().ok()
        } else {
            None
        }
    }
}

impl From<u64> for Sequence {
    fn from(n: u64) -> Self {
        Sequence(n.to_string())
    }
}

impl fmt::Display for Sequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
