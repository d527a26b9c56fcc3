//! Attachment requests (API §4.6). The upload is `multipart/form-data`
//! with one binary field `file`; it has no JSON body to model here.

use serde::{Deserialize, Serialize};

use crate::attachment::AttachmentContentType;
use crate::requests::Validate;
use crate::validate::{Check, item};
use streamseal_crypto::error::Result;

/// The form field name of an upload.
pub const UPLOAD_FIELD: &str = "file";

/// `POST attachments/search`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct SearchAttachmentsRequest {
    /// Required, at least 1 character.
    pub query: String,
    /// Streams to search.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams: Option<Vec<String>>,
    /// Content types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_types: Option<Vec<AttachmentContentType>>,
    /// 1 to 50, default 20.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for SearchAttachmentsRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("query", &self.query, 1, usize::MAX);
        for (i, t) in self.content_types.iter().flatten().enumerate() {
            c.known(
                &item("contentTypes", i),
                t.is_known(),
                AttachmentContentType::KNOWN,
            );
        }
        c.opt_range("limit", self.limit, 1, 50);
        c.finish()
    }
}
