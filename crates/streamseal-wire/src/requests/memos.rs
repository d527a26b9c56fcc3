//! Memo requests (API §4.5).

use serde::{Deserialize, Serialize};

use crate::memo::{KnowledgeType, MemoType};
use crate::requests::Validate;
use crate::validate::{Check, item};
use streamseal_crypto::error::Result;

/// `POST memos/search`. Semantic by default; an empty query gives
/// recent-first retrieval.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SearchMemosRequest {
    /// Query text (default empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Exact match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    /// Streams to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<String>>,
    /// Memo types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memo_type: Option<Vec<MemoType>>,
    /// Knowledge types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub knowledge_type: Option<Vec<KnowledgeType>>,
    /// Tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Only before this date-time (RFC 3339, checked by `validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// Only after this date-time (RFC 3339, checked by `validate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// 1 to 100, default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for SearchMemosRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        for (i, t) in self.memo_type.iter().flatten().enumerate() {
            c.known(&item("memoType", i), t.is_known(), MemoType::KNOWN);
        }
        for (i, t) in self.knowledge_type.iter().flatten().enumerate() {
            c.known(
                &item("knowledgeType", i),
                t.is_known(),
                KnowledgeType::KNOWN,
            );
        }
        c.opt_date_time("before", self.before.as_deref());
        c.opt_date_time("after", self.after.as_deref());
        c.opt_range("limit", self.limit, 1, 100);
        c.finish()
    }
}
