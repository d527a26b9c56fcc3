//! Paging helpers (API §1) and `clientMessageId` minting (API §4.3).
//!
//! Cursor lists (streams, members, conversations) feed `cursor` back as
//! `after` while `hasMore` is true; with a free-text `query` cursoring is
//! off. Message lists page by sequence: backwards with `before` (the
//! default, from the newest) or forwards with `after`.
//!
//! ```
//! use streamseal_api::{paging::next_page, EndpointRequest, ResponseData};
//! use streamseal_wire::{list::ConversationPage, requests::conversations::ListConversationsQuery};
//!
//! let first = EndpointRequest::ListConversations { query: ListConversationsQuery::default() };
//! let page = ResponseData::Conversations(ConversationPage {
//!     data: vec![], has_more: true, cursor: Some("c2".into()), extra: Default::default(),
//! });
//! let Some(EndpointRequest::ListConversations { query }) = next_page(&first, &page) else { panic!() };
//! assert_eq!(query.after.as_deref(), Some("c2"));
//! ```
//!
//! [`next_page`] reads only a [`PageView`] of the response: which list it
//! is, `hasMore`, `cursor` and the messages' sequences. The bindings take
//! that view from the app (the `{"kind", "data"}` document of a
//! [`ResponseData`]) and call [`next_page_of`], so that they need no
//! deserializer of every response type.

use crate::{EndpointRequest, ResponseData};
use streamseal_wire::common::Sequence;
use streamseal_wire::error::Result;
use streamseal_wire::ids::mint_ulid;
use streamseal_wire::message::MessageList;
use streamseal_wire::requests::messages::ListMessagesQuery;

/// Prefix of the `clientMessageId`s this library mints (the spec fixes no format).
pub const CLIENT_MESSAGE_ID_PREFIX: &str = "cmid_";

/// Mints a `clientMessageId` (`cmid_` + ULID, 31 characters, within the
/// 128 allowed) from the caller's clock in milliseconds. Mint it once per
/// logical message and reuse it on every retry: the service then returns
/// the original message instead of a duplicate.
///
/// # Errors
///
/// `INVALID_FIELD` (`timestamp`) when `now_ms` does not fit a ULID;
/// `RANDOMNESS_UNAVAILABLE` when the random bits cannot be drawn.
pub fn mint_client_message_id(now_ms: u64) -> Result<String> {
    Ok(format!("{CLIENT_MESSAGE_ID_PREFIX}{}", mint_ulid(now_ms)?))
}

/// [`mint_client_message_id`] with the system clock (not on wasm32).
///
/// # Errors
///
/// `RANDOMNESS_UNAVAILABLE` when the random bits cannot be drawn;
/// `INVALID_FIELD` (`timestamp`) once the clock is past a ULID's range.
#[cfg(not(target_arch = "wasm32"))]
pub fn mint_client_message_id_now() -> Result<String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    mint_client_message_id(now)
}

/// The `after` to send for the next page of a cursor list: the cursor,
/// while `has_more` is true and a cursor came.
pub fn next_cursor(has_more: bool, cursor: Option<&str>) -> Option<String> {
    match cursor {
        Some(c) if has_more && !c.is_empty() => Some(c.to_owned()),
        _ => None,
    }
}

/// The query of the next page of a message list: if `query` paged forward
/// (`after` set, `before` not), `after` the highest sequence received;
/// otherwise `before` the lowest. `None` when `hasMore` is false or no
/// numeric sequence came.
pub fn next_message_query(
    query: &ListMessagesQuery,
    page: &MessageList,
) -> Option<ListMessagesQuery> {
    next_message_query_of(query, &MessagePage::of(page))
}

/// [`next_message_query`] from the [`MessagePage`] of the list.
pub fn next_message_query_of(
    query: &ListMessagesQuery,
    page: &MessagePage,
) -> Option<ListMessagesQuery> {
    if !page.has_more {
        return None;
    }
    let forward = query.after.is_some() && query.before.is_none();
    let mut next = query.clone();
    if forward {
        next.after = Some(page.highest_sequence?);
    } else {
        next.before = Some(page.lowest_sequence?);
    }
    Some(next)
}

/// What [`next_message_query`] reads of a message list: `hasMore` and the
/// range of its messages' numeric sequences.
///
/// The bindings read the list an app hands back (a `MessageList` object or
/// its JSON) into this, leaving every other field unread, so that they
/// need no deserializer of a whole message (in the npm package's second
/// module, serde-wasm-bindgen's reader of `MessageList` with its messages,
/// attachments and envelopes).
///
/// ```
/// use streamseal_api::paging::MessagePage;
/// use streamseal_wire::message::MessageList;
///
/// let list = MessageList {
///     data: vec![], has_more: true, slots: Default::default(), extra: Default::default(),
/// };
/// let page = MessagePage::of(&list);
/// assert!(page.has_more);
/// assert_eq!((page.lowest_sequence, page.highest_sequence), (None, None));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    any(feature = "wasm", feature = "uniffi"),
    derive(serde::Deserialize),
    serde(from = "MessageFields")
)]
pub struct MessagePage {
    /// Whether another page follows.
    pub has_more: bool,
    /// The lowest numeric sequence of the list's messages.
    pub lowest_sequence: Option<u64>,
    /// The highest numeric sequence of the list's messages.
    pub highest_sequence: Option<u64>,
}

impl MessagePage {
    /// The page of a typed message list.
    pub fn of(list: &MessageList) -> MessagePage {
        MessagePage::of_sequences(list.has_more, list.data.iter().map(|m| &m.sequence))
    }

    /// The page of a list whose messages have `sequences`.
    fn of_sequences<'a>(
        has_more: bool,
        sequences: impl Iterator<Item = &'a Sequence> + Clone,
    ) -> MessagePage {
        let (lowest_sequence, highest_sequence) = sequence_range(sequences);
        MessagePage {
            has_more,
            lowest_sequence,
            highest_sequence,
        }
    }
}

/// The lowest and highest numeric sequence of a message list's messages.
fn sequence_range<'a>(
    sequences: impl Iterator<Item = &'a Sequence> + Clone,
) -> (Option<u64>, Option<u64>) {
    let numbers = sequences.filter_map(Sequence::as_u64);
    (numbers.clone().min(), numbers.max())
}

/// The request for the page after `response`, for list endpoints; `None`
/// on the last page, for a query-ranked list (cursoring off), or for a
/// request/response pair that does not page.
pub fn next_page(request: &EndpointRequest, response: &ResponseData) -> Option<EndpointRequest> {
    next_page_of(request, &PageView::of(response))
}

/// [`next_page`] from the [`PageView`] of the response.
pub fn next_page_of(request: &EndpointRequest, page: &PageView) -> Option<EndpointRequest> {
    use EndpointRequest as R;
    use PagedList as L;
    let after = || next_cursor(page.has_more, page.cursor.as_deref());
    match (request, page.list?) {
        (R::ListStreams { query }, L::Streams) => {
            let mut query = query.clone();
            query.after = Some(after()?);
            Some(R::ListStreams { query })
        }
        (R::ListStreamMembers { stream_id, query }, L::Members) => {
            let mut query = query.clone();
            query.after = Some(after()?);
            Some(R::ListStreamMembers {
                stream_id: stream_id.clone(),
                query,
            })
        }
        (R::ListConversations { query }, L::Conversations) => {
            let mut query = query.clone();
            query.after = Some(after()?);
            Some(R::ListConversations { query })
        }
        (R::ListMessages { stream_id, query }, L::Messages) => Some(R::ListMessages {
            stream_id: stream_id.clone(),
            query: next_message_query_of(
                query,
                &MessagePage {
                    has_more: page.has_more,
                    lowest_sequence: page.lowest_sequence,
                    highest_sequence: page.highest_sequence,
                },
            )?,
        }),
        _ => None,
    }
}

/// The lists that page: the [`ResponseData`] variants [`next_page`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PagedList {
    /// [`ResponseData::Streams`] (`kind` `"streams"`), by cursor.
    Streams,
    /// [`ResponseData::Members`] (`"members"`), by cursor.
    Members,
    /// [`ResponseData::Conversations`] (`"conversations"`), by cursor.
    Conversations,
    /// [`ResponseData::Messages`] (`"messages"`), by sequence.
    Messages,
}

impl PagedList {
    /// The list of a [`ResponseData`] `kind` (its serde tag), if it pages.
    pub fn of_kind(kind: &str) -> Option<PagedList> {
        match kind {
            "streams" => Some(PagedList::Streams),
            "members" => Some(PagedList::Members),
            "conversations" => Some(PagedList::Conversations),
            "messages" => Some(PagedList::Messages),
            _ => None,
        }
    }
}

/// What [`next_page`] reads of a response, and nothing else: which list it
/// is, whether more follows, its cursor, and the range of its messages'
/// sequences.
///
/// With feature `wasm` or `uniffi` it deserializes from the `{"kind",
/// "data"}` document of a [`ResponseData`] (what the bindings' `parseResponse`
/// returns), reading only these fields; any other `kind` is a response that
/// does not page (`list` is `None`). Reading the whole `ResponseData` back
/// instead would add a deserializer of every response type to the WASM
/// module (measured: about 120 KB gzip, over its size budget).
///
/// ```
/// use streamseal_api::paging::{PageView, PagedList};
/// use streamseal_api::ResponseData;
/// use streamseal_wire::list::StreamPage;
///
/// let page = ResponseData::Streams(StreamPage {
///     data: vec![], has_more: true, cursor: Some("c2".into()), extra: Default::default(),
/// });
/// let view = PageView::of(&page);
/// assert_eq!(view.list, Some(PagedList::Streams));
/// assert_eq!((view.has_more, view.cursor.as_deref()), (true, Some("c2")));
/// assert_eq!(PageView::of(&ResponseData::NoContent).list, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    any(feature = "wasm", feature = "uniffi"),
    derive(serde::Deserialize),
    serde(try_from = "PageDocument")
)]
pub struct PageView {
    /// The list, or `None` for a response that does not page.
    pub list: Option<PagedList>,
    /// Whether another page follows.
    pub has_more: bool,
    /// The cursor of a cursor list.
    pub cursor: Option<String>,
    /// The lowest numeric sequence of a message list's messages.
    pub lowest_sequence: Option<u64>,
    /// The highest numeric sequence of a message list's messages.
    pub highest_sequence: Option<u64>,
}

impl PageView {
    /// The view of a message list's page.
    fn of_messages(page: MessagePage) -> PageView {
        PageView {
            list: Some(PagedList::Messages),
            has_more: page.has_more,
            cursor: None,
            lowest_sequence: page.lowest_sequence,
            highest_sequence: page.highest_sequence,
        }
    }

    /// The view of a typed response.
    pub fn of(response: &ResponseData) -> PageView {
        let cursor_page = |list, has_more: bool, cursor: &Option<String>| PageView {
            list: Some(list),
            has_more,
            cursor: cursor.clone(),
            ..PageView::default()
        };
        match response {
            ResponseData::Streams(p) => cursor_page(PagedList::Streams, p.has_more, &p.cursor),
            ResponseData::Members(p) => cursor_page(PagedList::Members, p.has_more, &p.cursor),
            ResponseData::Conversations(p) => {
                cursor_page(PagedList::Conversations, p.has_more, &p.cursor)
            }
            ResponseData::Messages(p) => PageView::of_messages(MessagePage::of(p)),
            _ => PageView::default(),
        }
    }
}

/// The `{"kind", "data"}` document a [`PageView`] is read from.
#[cfg(any(feature = "wasm", feature = "uniffi"))]
#[derive(serde::Deserialize)]
struct PageDocument {
    kind: String,
    #[serde(default)]
    data: serde_json::Value,
}

/// The paging fields of a list's `data`.
#[cfg(any(feature = "wasm", feature = "uniffi"))]
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct PageFields {
    has_more: bool,
    #[serde(default)]
    cursor: Option<String>,
}

/// A message of a message list, as far as paging reads it.
#[cfg(any(feature = "wasm", feature = "uniffi"))]
#[derive(serde::Deserialize)]
struct MessageSequence {
    sequence: Sequence,
}

/// The paging fields of a message list's `data`.
#[cfg(any(feature = "wasm", feature = "uniffi"))]
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageFields {
    has_more: bool,
    data: Vec<MessageSequence>,
}

#[cfg(any(feature = "wasm", feature = "uniffi"))]
impl From<MessageFields> for MessagePage {
    fn from(fields: MessageFields) -> MessagePage {
        MessagePage::of_sequences(fields.has_more, fields.data.iter().map(|m| &m.sequence))
    }
}

#[cfg(any(feature = "wasm", feature = "uniffi"))]
impl TryFrom<PageDocument> for PageView {
    type Error = serde_json::Error;

    fn try_from(doc: PageDocument) -> std::result::Result<Self, Self::Error> {
        let Some(list) = PagedList::of_kind(&doc.kind) else {
            return Ok(PageView::default());
        };
        if list == PagedList::Messages {
            return Ok(PageView::of_messages(serde_json::from_value(doc.data)?));
        }
        let fields: PageFields = serde_json::from_value(doc.data)?;
        Ok(PageView {
            list: Some(list),
            has_more: fields.has_more,
            cursor: fields.cursor,
            ..PageView::default()
        })
    }
}
