//! List envelopes (API §1, paging).
//!
//! Cursor lists are `{data, hasMore, cursor}` with `cursor` null on the last
//! page; feed it back as `after`. With a free-text `query` results rank by
//! relevance and cursoring is off. Message lists page by sequence instead
//! (see [`crate::message::MessageList`]). Lists the spec gives without
//! paging fields (bots, memo and attachment search) are `{data}`.
//!
//! Each list is its own concrete type (no generics), so bindings can expose
//! them directly.

use serde::{Deserialize, Serialize};

use crate::attachment::AttachmentSearchHit;
use crate::bot::Bot;
use crate::conversation::Conversation;
use crate::delegation::Delegation;
use crate::extra::Extra;
use crate::memo::MemoResult;
use crate::stream::{Stream, StreamMember};

macro_rules! cursor_page {
    ($(#[$meta:meta])* $name:ident, $item:ty) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, crate::shape::WireShape)]
        #[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// The items of this page.
            pub data: Vec<$item>,
            /// Whether another page follows.
            pub has_more: bool,
            /// Opaque cursor for `after`; null on the last page (and when a
            /// `query` turned cursoring off).
            pub cursor: Option<String>,
            /// Fields this library does not know, kept as raw JSON and
            /// written back unchanged (API §9.6).
            #[serde(flatten)]
            #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
            pub extra: Extra,
        }
    };
}

macro_rules! data_list {
    ($(#[$meta:meta])* $name:ident, $item:ty) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize, crate::shape::WireShape)]
        #[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
        #[serde(rename_all = "camelCase")]
        pub struct $name {
            /// The items.
            pub data: Vec<$item>,
            /// Fields this library does not know, kept as raw JSON and
            /// written back unchanged (API §9.6).
            #[serde(flatten)]
            #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
            pub extra: Extra,
        }
    };
}

cursor_page!(
    /// `GET streams`.
    StreamPage, Stream
);
cursor_page!(
    /// `GET streams/{streamId}/members`.
    MemberPage, StreamMember
);
cursor_page!(
    /// `GET conversations`.
    ConversationPage, Conversation
);
data_list!(
    /// `GET me/bots`.
    BotList, Bot
);
data_list!(
    /// `POST memos/search`.
    MemoSearchResults, MemoResult
);
data_list!(
    /// `POST attachments/search`.
    AttachmentSearchResults, AttachmentSearchHit
);
cursor_page!(
    /// `GET delegations`: open delegations in accessible streams. API §1
    /// gives every list `hasMore` and `cursor`; API §4.11 shows only the
    /// `status` and `since` filters of this one.
    DelegationList, Delegation
);
