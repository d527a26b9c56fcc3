//! Incoming webhook bodies (API §4.13 and the webhook limits of 8).
//!
//! The URL is the credential; no API key. The native hook takes
//! `{content}`; the compat hook takes a chat-platform payload, kept as raw
//! JSON (its translation happens server-side, and its 50 000-character
//! limit is measured after translation, so only the body size is checked
//! here).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Extra;
use crate::requests::Validate;
use crate::validate::Check;
use streamseal_crypto::error::Result;

/// Longest webhook request body in bytes (256 KB).
pub const MAX_WEBHOOK_BODY_BYTES: usize = 256 * 1024;
/// Longest webhook message in characters.
pub const MAX_WEBHOOK_MESSAGE_CHARS: usize = 50_000;

fn check_body_size<T: Serialize>(c: &mut Check, field: &str, body: &T) {
    let size = serde_json::to_vec(body).map(|b| b.len()).unwrap_or(0);
    if size > MAX_WEBHOOK_BODY_BYTES {
        c.fail(
            field,
            format!("the request body must be at most {MAX_WEBHOOK_BODY_BYTES} bytes"),
        );
    }
}

/// `POST hooks/{hookId}/{secret}`: `{content}` (required, non-empty markdown).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct WebhookPost {
    /// Markdown, 1 to 50 000 characters.
    pub content: String,
}

impl Validate for WebhookPost {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        c.len("content", &self.content, 1, MAX_WEBHOOK_MESSAGE_CHARS);
        check_body_size(&mut c, "content", self);
        c.finish()
    }
}

/// `POST hooks/{hookId}/{secret}/compat`: a chat-platform payload, sent as JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(
    feature = "wasm",
    derive(tsify::Tsify),
    tsify(type = "Record<string, unknown>")
)]
#[serde(transparent)]
pub struct CompatWebhookPayload(pub Value);

impl Validate for CompatWebhookPayload {
    fn validate(&self) -> Result<()> {
        let mut c = Check::new();
        if !self.0.is_object() {
            c.fail("payload", "must be a JSON object");
        }
        check_body_size(&mut c, "payload", self);
        c.finish()
    }
}

/// The native webhook's success body: `{"ok": true}` (201).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, crate::shape::WireShape)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct WebhookAccepted {
    /// Always true.
    pub ok: bool,
    /// Fields this library does not know, kept as raw JSON and written
    /// back unchanged (API §9.6).
    #[serde(flatten)]
    #[cfg_attr(feature = "wasm", tsify(type = "Record<string, unknown>"))]
    pub extra: Extra,
}
