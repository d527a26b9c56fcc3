//! Conversation requests (API §4.4).

use serde::{Deserialize, Serialize};

use crate::conversation::ConversationStatus;
use crate::requests::{QueryParams, Validate, push};
use crate::validate::Check;
use streamseal_crypto::error::Result;

/// Query of `GET conversations`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ListConversationsQuery {
    /// Scopes to that stream's root and its threads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_id: Option<String>,
    /// `active`, `stalled` or `resolved`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ConversationStatus>,
    /// Cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// 1 to 100, default 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for ListConversationsQuery {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        if let Some(status) = &self.status {
            c.known("status", status.is_known(), ConversationStatus::KNOWN);
        }
        c.opt_range("limit", self.limit, 1, 100);
        c.finish()
    }
}

impl QueryParams for ListConversationsQuery {
    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "streamId", self.stream_id.as_ref());
        push(&mut out, "status", self.status.as_ref());
        push(&mut out, "after", self.after.as_ref());
        push(&mut out, "limit", self.limit.as_ref());
        out
    }
}
