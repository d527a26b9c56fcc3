//! Paging helpers (section 1) and `clientMessageId` minting (section 4.3).
//!
//! Cursor lists (streams, members, conversations) feed `cursor` back as
//! `after` while `hasMore` is true; with a free-text `query` cursoring is
//! off. Message lists page by sequence: backwards with `before` (the
//! default, from the newest) or forwards with `after`.
//!
//! ```
//! use streamseal::api::{paging::next_page, EndpointRequest, ResponseData};
//! use streamseal::wire::{list::ConversationPage, requests::conversations::ListConversationsQuery};
//!
//! let first = EndpointRequest::ListConversations { query: ListConversationsQuery::default() };
//! let page = ResponseData::Conversations(ConversationPage {
//!     data: vec![], has_more: true, cursor: Some("c2".into()),
//! });
//! let Some(EndpointRequest::ListConversations { query }) = next_page(&first, &page) else { panic!() };
//! assert_eq!(query.after.as_deref(), Some("c2"));
//! ```

use crate::api::{EndpointRequest, ResponseData};
use crate::error::Result;
use crate::wire::ids::mint_ulid;
use crate::wire::message::MessageList;
use crate::wire::requests::messages::ListMessagesQuery;

/// Prefix of the `clientMessageId`s this library mints (the spec fixes no format).
pub const CLIENT_MESSAGE_ID_PREFIX: &str = "cmid_";

/// Mints a `clientMessageId` (`cmid_` + ULID, 31 characters, within the
/// 128 allowed) from the caller's clock in milliseconds. Mint it once per
/// logical message and reuse it on every retry: the service then returns
/// the original message instead of a duplicate.
pub fn mint_client_message_id(now_ms: u64) -> Result<String> {
    Ok(format!("{CLIENT_MESSAGE_ID_PREFIX}{}", mint_ulid(now_ms)?))
}

/// [`mint_client_message_id`] with the system clock (not on wasm32).
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
    if !page.has_more {
        return None;
    }
    let sequences = page.data.iter().filter_map(|m| m.sequence.as_u64());
    let forward = query.after.is_some() && query.before.is_none();
    let mut next = query.clone();
    if forward {
        next.after = Some(sequences.max()?);
    } else {
        next.before = Some(sequences.min()?);
    }
    Some(next)
}

/// The request for the page after `response`, for list endpoints; `None`
/// on the last page, for a query-ranked list (cursoring off), or for a
/// request/response pair that does not page.
pub fn next_page(request: &EndpointRequest, response: &ResponseData) -> Option<EndpointRequest> {
    use EndpointRequest as R;
    use ResponseData as D;
    match (request, response) {
        (R::ListStreams { query }, D::Streams(page)) => {
            let mut query = query.clone();
            query.after = Some(next_cursor(page.has_more, page.cursor.as_deref())?);
            Some(R::ListStreams { query })
        }
        (R::ListStreamMembers { stream_id, query }, D::Members(page)) => {
            let mut query = query.clone();
            query.after = Some(next_cursor(page.has_more, page.cursor.as_deref())?);
            Some(R::ListStreamMembers {
                stream_id: stream_id.clone(),
                query,
            })
        }
        (R::ListConversations { query }, D::Conversations(page)) => {
            let mut query = query.clone();
            query.after = Some(next_cursor(page.has_more, page.cursor.as_deref())?);
            Some(R::ListConversations { query })
        }
        (R::ListMessages { stream_id, query }, D::Messages(page)) => Some(R::ListMessages {
            stream_id: stream_id.clone(),
            query: next_message_query(query, page)?,
        }),
        _ => None,
    }
}
