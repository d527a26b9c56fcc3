//! Stream requests (API §4.2).

use serde::{Deserialize, Serialize};

use crate::common::StreamType;
use crate::requests::{QueryParams, Validate, push};
use crate::validate::{Check, item, path};
use streamseal_crypto::error::Result;
use streamseal_crypto::identity::RecipientKind;
use streamseal_crypto::wrap::KeyWrap;

/// Longest stream description.
pub const MAX_DESCRIPTION_LEN: usize = 10_000;

/// Query of `GET streams`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ListStreamsQuery {
    /// Stream type (listed as required).
    #[serde(rename = "type")]
    pub stream_type: StreamType,
    /// Free-text query (turns cursoring off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// 1 to 200, default 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    /// Include archived streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_archived: Option<bool>,
}

impl Validate for ListStreamsQuery {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.known("type", self.stream_type.is_known(), StreamType::KNOWN);
        c.opt_range("limit", self.limit, 1, 200);
        c.finish()
    }
}

impl QueryParams for ListStreamsQuery {
    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("type", self.stream_type.to_string())];
        push(&mut out, "query", self.query.as_ref());
        push(&mut out, "after", self.after.as_ref());
        push(&mut out, "limit", self.limit.as_ref());
        push(&mut out, "includeArchived", self.include_archived.as_ref());
        out
    }
}

/// `PATCH streams/{streamId}`: `{description}` (required, max 10000; empty clears).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct UpdateStreamRequest {
    /// Markdown description; the empty string clears it.
    pub description: String,
}

impl Validate for UpdateStreamRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("description", &self.description, 0, MAX_DESCRIPTION_LEN);
        c.finish()
    }
}

/// Query of `GET streams/{streamId}/members`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct ListMembersQuery {
    /// Cursor of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// 1 to 200, default 50.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

impl Validate for ListMembersQuery {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.opt_range("limit", self.limit, 1, 200);
        c.finish()
    }
}

impl QueryParams for ListMembersQuery {
    fn query_pairs(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        push(&mut out, "after", self.after.as_ref());
        push(&mut out, "limit", self.limit.as_ref());
        out
    }
}

/// `POST streams/{streamId}/e2e/key-wraps`: the wraps of one generation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct PostKeyWrapsRequest {
    /// The generation (0 or more; the stream's current one).
    pub key_generation: u32,
    /// The wraps.
    pub wraps: Vec<NewKeyWrap>,
}

impl PostKeyWrapsRequest {
    /// The request for wraps made by [`streamseal_crypto::wrap::wrap_stream_key`].
    pub fn from_wraps(key_generation: u32, wraps: &[KeyWrap]) -> Self {
        PostKeyWrapsRequest {
            key_generation,
            wraps: wraps.iter().map(NewKeyWrap::from).collect(),
        }
    }
}

/// A wrap item of [`PostKeyWrapsRequest`]: `{recipientKind, recipientKeyId,
/// wrapEnc, wrapCt}`, a [`KeyWrap`] without its generation (the body names
/// it once). The recipient fields are required; they are `Option` only so
/// that a [`KeyWrap`] without them converts and `validate` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct NewKeyWrap {
    /// `user` or `bot`.
    pub recipient_kind: Option<RecipientKind>,
    /// 1 to 128 characters.
    pub recipient_key_id: Option<String>,
    /// Base64 encapsulation, non-empty.
    pub wrap_enc: String,
    /// Base64 wrapped stream key, non-empty.
    pub wrap_ct: String,
}

impl From<&KeyWrap> for NewKeyWrap {
    fn from(wrap: &KeyWrap) -> Self {
        NewKeyWrap {
            recipient_kind: wrap.recipient_kind.clone(),
            recipient_key_id: wrap.recipient_key_id.clone(),
            wrap_enc: wrap.wrap_enc.clone(),
            wrap_ct: wrap.wrap_ct.clone(),
        }
    }
}

impl Validate for PostKeyWrapsRequest {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        for (i, wrap) in self.wraps.iter().enumerate() {
            let at = item("wraps", i);
            match &wrap.recipient_kind {
                None => c.fail(&path(&at, "recipientKind"), "is required"),
                Some(kind) => c.known(
                    &path(&at, "recipientKind"),
                    !matches!(kind, RecipientKind::Other(_)),
                    &["user", "bot"],
                ),
            }
            match &wrap.recipient_key_id {
                None => c.fail(&path(&at, "recipientKeyId"), "is required"),
                Some(id) => c.len(&path(&at, "recipientKeyId"), id, 1, 128),
            }
            c.len(&path(&at, "wrapEnc"), &wrap.wrap_enc, 1, usize::MAX);
            c.len(&path(&at, "wrapCt"), &wrap.wrap_ct, 1, usize::MAX);
        }
        c.finish()
    }
}
