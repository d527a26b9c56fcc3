//! Stream messages in sealed streams: build the send body, seal an edit,
//! open what a list returns.
//!
//! A message is sealed into the [`Slot::Message`] of its stream, its
//! client-minted id, its author and its revision. Opening rebuilds that slot
//! from the message resource the server returned (`streamId`, `id`,
//! `authorId`, `revision`), so the server cannot move a ciphertext to
//! another message, stream or author, nor serve an older revision's
//! ciphertext as the current revision. A bot's reply appears in lists as a
//! message too; it was sealed as a [`Slot::BotReply`], which binds the same
//! stream, id and author plus the invocation, which opening returns.
//!
//! **An assumption the spec leaves open.** `POST streams/{id}/messages` has
//! no message-id field (only `clientMessageId`), while `sealed-messages`
//! says its client-minted `messageId` "binds the seal". This module binds
//! the sender-minted [`MessageId`] in the AAD and assumes the service adopts
//! the id the AAD names (it can read it: the AAD travels in the clear) as
//! the message's `id`, as it does for `sealed-messages`; the prompt of an
//! invocation is then checked against `sourceMessageId` too. A service that
//! assigned its own ids would make every sealed stream send unopenable
//! (`AAD_MISMATCH`), loudly rather than silently; the alternative, binding
//! `clientMessageId`, would leave the invocation prompt unbindable, since
//! `sealedContext` names the trigger only by its service id.
//!
//! ```
//! use streamseal::sealed::messages;
//! use streamseal::stream_key::{Keyring, StreamKey};
//! use streamseal::wire::ids::MessageId;
//!
//! let mut ring = Keyring::new("stream_r")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! let id = MessageId::mint(1_700_000_000_000)?;
//! let body = messages::seal_message(&ring, "stream_r", &id, "usr_me", "hello", Some("c-1".into()))?;
//! messages::check_send_rules(true, Some(true), &body)?; // a sealed stream takes a sealed body
//! assert_eq!(
//!     messages::check_send_rules(false, Some(false), &body).unwrap_err().code().as_str(),
//!     "E2E_PAYLOAD_REQUIRES_E2E_STREAM"
//! );
//! # Ok::<(), streamseal::Error>(())
//! ```

use crate::envelope::{SealedPayload, open_matching, seal};
use crate::error::{Error, Result};
use crate::sealed::utf8;
use crate::slot::Slot;
use crate::stream_key::Keyring;
use crate::wire::ids::MessageId;
use crate::wire::message::Message;
use crate::wire::requests::Validate;
use crate::wire::requests::messages::SendMessageRequest;

/// A message opened from a list, send or find response. `Debug` prints
/// `[redacted]` for the text.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "wasm",
    derive(serde::Serialize, serde::Deserialize, tsify::Tsify),
    serde(rename_all = "camelCase")
)]
#[cfg_attr(feature = "uniffi", derive(uniffi::Record))]
pub struct OpenedMessage {
    /// The message id.
    pub message_id: String,
    /// The author the ciphertext is bound to.
    pub author_id: String,
    /// The revision the ciphertext is bound to (1 for bot replies).
    pub revision: u32,
    /// For a bot's reply: the invocation it answered.
    pub invocation_id: Option<String>,
    /// The plaintext markdown.
    pub text: String,
}

impl std::fmt::Debug for OpenedMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedMessage")
            .field("message_id", &self.message_id)
            .field("author_id", &self.author_id)
            .field("revision", &self.revision)
            .field("invocation_id", &self.invocation_id)
            .field("text", &"[redacted]")
            .finish()
    }
}

/// The `POST streams/{streamId}/messages` body for a sealed stream: the
/// message sealed as revision 1 by `author_id`, no plaintext `content`.
/// The body is validated against the API's bounds before it is returned.
pub fn seal_message(
    keyring: &Keyring,
    stream_id: &str,
    message_id: &MessageId,
    author_id: &str,
    text: &str,
    client_message_id: Option<String>,
) -> Result<SendMessageRequest> {
    let slot = Slot::Message {
        stream_id: stream_id.to_owned(),
        message_id: message_id.as_str().to_owned(),
        author_id: author_id.to_owned(),
        revision: 1,
    };
    let body = SendMessageRequest {
        sealed: Some(seal(keyring, &slot, text.as_bytes())?),
        client_message_id,
        ..SendMessageRequest::default()
    };
    body.validate()?;
    Ok(body)
}

/// The service's rules for a send, checked before sending, from what the
/// caller knows: `known_sealed` is its [`StreamState::is_sealed`] for the
/// stream's root (once sealed, never plaintext), `e2e_enabled` the stream
/// resource's `e2eEnabled` as the server gave it.
///
/// - plaintext to a stream the state knows to be sealed while the server
///   presents it as plain (no `e2eEnabled: true`): `SEALED_STREAM_DOWNGRADE`;
/// - plaintext to a stream with `e2eEnabled: true`: `E2E_STREAM_REQUIRES_CIPHERTEXT`;
/// - a sealed body to a stream neither the state nor the server calls sealed:
///   `E2E_PAYLOAD_REQUIRES_E2E_STREAM`.
///
/// [`StreamState::is_sealed`]: crate::sealed::state::StreamState::is_sealed
pub fn check_send_rules(
    known_sealed: bool,
    e2e_enabled: Option<bool>,
    body: &SendMessageRequest,
) -> Result<()> {
    let server_sealed = e2e_enabled == Some(true);
    let plaintext = body.content.is_some() || body.sealed.is_none();
    match (
        known_sealed,
        server_sealed,
        plaintext,
        body.sealed.is_some(),
    ) {
        (true, false, true, _) => Err(Error::SealedStreamDowngrade {
            reason: "plaintext to a stream known to be sealed",
        }),
        (_, true, true, _) => Err(Error::E2eStreamRequiresCiphertext),
        (false, false, _, true) => Err(Error::E2ePayloadRequiresE2eStream),
        _ => body.validate(),
    }
}

/// Seals the next revision of `message` (its revision + 1) by `author_id`.
///
/// The spec does not show the body of a sealed edit (`PATCH messages/{id}`
/// shows only `content`), so this returns the sealed payload for the app to
/// place; whatever carries it, the ciphertext is bound to the new revision.
pub fn seal_edit(
    keyring: &Keyring,
    message: &Message,
    author_id: &str,
    text: &str,
) -> Result<SealedPayload> {
    let revision = message
        .revision
        .checked_add(1)
        .ok_or_else(|| Error::invalid("revision", "no revision after u32::MAX"))?;
    let slot = Slot::Message {
        stream_id: message.stream_id.clone(),
        message_id: message.id.as_str().to_owned(),
        author_id: author_id.to_owned(),
        revision,
    };
    seal(keyring, &slot, text.as_bytes())
}

/// Opens a sealed message with the keyring of its root stream, checking the
/// ciphertext is bound to this message's stream, id, author and revision.
pub fn open_message(keyring: &Keyring, message: &Message) -> Result<OpenedMessage> {
    open_parts(keyring, MessageParts::of(message))
}

/// What opening a message reads of it: the fields its AAD binds and its
/// sealed body. A binding that reads a long history from another language
/// deserializes this instead of a whole [`Message`] (a message's other fields
/// are ignored), so it converts five fields per message rather than fifteen;
/// [`open_message_to_open`] opens it exactly as [`open_message`] opens the
/// message it came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageToOpen {
    /// The message id the AAD must name.
    pub id: String,
    /// The stream the AAD must name.
    pub stream_id: String,
    /// The author the AAD must name.
    pub author_id: String,
    /// The revision the AAD must name.
    pub revision: u32,
    /// The ciphertext and envelope (absent on a plaintext message).
    #[serde(default)]
    pub sealed: Option<SealedPayload>,
}

impl From<&Message> for MessageToOpen {
    fn from(message: &Message) -> Self {
        Self {
            id: message.id.clone(),
            stream_id: message.stream_id.clone(),
            author_id: message.author_id.clone(),
            revision: message.revision,
            sealed: message.sealed.clone(),
        }
    }
}

/// Opens the parts of a message (see [`MessageToOpen`]); the same checks
/// and result as [`open_message`].
pub fn open_message_to_open(keyring: &Keyring, message: &MessageToOpen) -> Result<OpenedMessage> {
    open_parts(
        keyring,
        MessageParts {
            id: &message.id,
            stream_id: &message.stream_id,
            author_id: &message.author_id,
            revision: message.revision,
            sealed: message.sealed.as_ref(),
        },
    )
}

/// Opens a page of [`MessageToOpen`]s; each entry succeeds or fails on its own.
pub fn open_messages_to_open(
    keyring: &Keyring,
    messages: &[MessageToOpen],
) -> Vec<Result<OpenedMessage>> {
    messages
        .iter()
        .map(|m| open_message_to_open(keyring, m))
        .collect()
}

/// The borrowed fields of a message that opening reads.
struct MessageParts<'a> {
    id: &'a str,
    stream_id: &'a str,
    author_id: &'a str,
    revision: u32,
    sealed: Option<&'a SealedPayload>,
}

impl<'a> MessageParts<'a> {
    fn of(message: &'a Message) -> Self {
        Self {
            id: &message.id,
            stream_id: &message.stream_id,
            author_id: &message.author_id,
            revision: message.revision,
            sealed: message.sealed.as_ref(),
        }
    }
}

fn open_parts(keyring: &Keyring, message: MessageParts<'_>) -> Result<OpenedMessage> {
    let sealed = message
        .sealed
        .ok_or_else(|| Error::invalid("sealed", "the message carries no sealed body"))?;
    let id = message.id;
    let (slot, plain) = open_matching(keyring, sealed, |slot| match slot {
        Slot::Message {
            stream_id,
            message_id,
            author_id,
            revision,
        } => {
            *stream_id == message.stream_id
                && message_id == id
                && *author_id == message.author_id
                && *revision == message.revision
        }
        Slot::BotReply {
            stream_id,
            message_id,
            author_id,
            ..
        } => {
            *stream_id == message.stream_id
                && message_id == id
                && *author_id == message.author_id
                && message.revision == 1
        }
        _ => false,
    })?;
    let invocation_id = match &slot {
        Slot::BotReply { invocation_id, .. } => Some(invocation_id.clone()),
        _ => None,
    };
    Ok(OpenedMessage {
        message_id: id.to_owned(),
        author_id: message.author_id.to_owned(),
        revision: message.revision,
        invocation_id,
        text: utf8(plain)?,
    })
}

/// Opens a whole page of messages in one call; each entry succeeds or fails
/// on its own (one tampered message does not hide the others).
pub fn open_messages(keyring: &Keyring, messages: &[Message]) -> Vec<Result<OpenedMessage>> {
    messages.iter().map(|m| open_message(keyring, m)).collect()
}
