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
//! **Message ids that survive any server.** `POST streams/{id}/messages` has
//! no message-id field, only `clientMessageId`, while `sealed-messages` says
//! its client-minted `messageId` "binds the seal". So a sealed send binds the
//! sender-minted [`MessageId`] in the AAD **and** sends it as
//! `clientMessageId`. The rule for opening: a message opens when the id its
//! AAD binds is the resource's `id`, or, when the service assigned an `id` of
//! its own, the resource's `clientMessageId`; the result carries the bound
//! id, and a page that repeats a bound id and revision opens it once
//! (`DUPLICATE_MESSAGE` for the repeat). An app keys messages by the bound id.
//!
//! **Who wrote it.** Every sealed message is signed by its author's identity
//! key (envelope version 2): a member holding the stream key cannot seal as
//! another member. Opening checks the signature against the caller's
//! [`SenderKeys`] and says how sure it is ([`OpenedMessage::sealed_by`]).
//!
//! ```
//! use streamseal_crypto::identity::{IdentityKey, KeyId, RecipientKind};
//! use streamseal_sealed::messages;
//! use streamseal_crypto::sender::Signer;
//! use streamseal_crypto::stream_key::{Keyring, StreamKey};
//! use streamseal_wire::ids::MessageId;
//!
//! let me = IdentityKey::generate(RecipientKind::User, KeyId::new("laptop")?)?;
//! let mut ring = Keyring::new("stream_r")?;
//! ring.insert(0, StreamKey::generate()?)?;
//! let id = MessageId::mint(1_700_000_000_000)?;
//! let body = messages::seal_message(&ring, &Signer::new("usr_me", &me)?, "stream_r", &id, "hello")?;
//! assert_eq!(body.client_message_id.as_deref(), Some(id.as_str()));
//! messages::check_send_rules(true, Some(true), &body)?; // a sealed stream takes a sealed body
//! assert_eq!(
//!     messages::check_send_rules(false, Some(false), &body).unwrap_err().code().as_str(),
//!     "E2E_PAYLOAD_REQUIRES_E2E_STREAM"
//! );
//! # Ok::<(), streamseal_sealed::Error>(())
//! ```

use std::collections::BTreeSet;

use crate::pending::{Pending, PendingSealed};
use crate::utf8;
use streamseal_crypto::envelope::{
    Opened, SealedPayload, open_matching, prepare_open, prepare_open_decoded, prepare_seal,
};
use streamseal_crypto::error::{CryptoError, Error, Result};
use streamseal_crypto::sender::{SealedBy, SenderKeys, Signer};
use streamseal_crypto::slot::Slot;
use streamseal_crypto::stream_key::Keyring;
use streamseal_wire::common::AuthorType;
use streamseal_wire::ids::MessageId;
use streamseal_wire::message::Message;
use streamseal_wire::requests::Validate;
use streamseal_wire::requests::messages::SendMessageRequest;

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
    /// The message id the ciphertext is bound to (the resource's `id`, or
    /// its `clientMessageId` when the service assigned an id of its own).
    pub message_id: String,
    /// The stream the ciphertext is bound to: the one the caller asked for.
    pub stream_id: String,
    /// The author the ciphertext is bound to, who signed it.
    pub author_id: String,
    /// The author type the ciphertext is bound to (`bot` for bot replies).
    pub author_type: String,
    /// The revision the ciphertext is bound to (1 for bot replies).
    pub revision: u32,
    /// The generation it was sealed under.
    pub key_generation: u32,
    /// For a bot's reply: the invocation it answered.
    pub invocation_id: Option<String>,
    /// Who sealed it (the author) and whether its key is verified.
    pub sealed_by: SealedBy,
    /// The plaintext markdown.
    pub text: String,
}

impl std::fmt::Debug for OpenedMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedMessage")
            .field("message_id", &self.message_id)
            .field("stream_id", &self.stream_id)
            .field("author_id", &self.author_id)
            .field("author_type", &self.author_type)
            .field("revision", &self.revision)
            .field("key_generation", &self.key_generation)
            .field("invocation_id", &self.invocation_id)
            .field("sealed_by", &self.sealed_by)
            .field("text", &"[redacted]")
            .finish()
    }
}

/// The `authorType` a signer's messages carry: `user` for a user's key,
/// `bot` for a bot's, the kind's own spelling otherwise.
fn author_type_of(signer: &Signer<'_>) -> String {
    signer.key().kind().as_str().to_owned()
}

/// The `POST streams/{streamId}/messages` body for a sealed stream: the
/// message sealed as revision 1 by `signer` (its subject is the author), no
/// plaintext `content`, and `clientMessageId` set to the minted id the AAD
/// binds. The body is validated against the API's bounds before it is
/// returned.
///
/// # Errors
///
/// As [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
/// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring has no
/// usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the slot does
/// not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext exceeds the size
/// limit; `RANDOMNESS_UNAVAILABLE`; `VALIDATION_FAILED` when the body breaks
/// the API's bounds.
pub fn seal_message(
    keyring: &Keyring,
    signer: &Signer<'_>,
    stream_id: &str,
    message_id: &MessageId,
    text: &str,
) -> Result<SendMessageRequest> {
    prepare_seal_message(keyring, signer, stream_id, message_id, text)?.encrypt(keyring)
}

/// [`seal_message`] up to its AES-GCM (the seal is counted, the signature
/// made); the body is built and validated on completion.
///
/// # Errors
///
/// As [`seal_message`], but for `VALIDATION_FAILED`, which the completion
/// reports.
pub fn prepare_seal_message(
    keyring: &Keyring,
    signer: &Signer<'_>,
    stream_id: &str,
    message_id: &MessageId,
    text: &str,
) -> Result<PendingSealed<SendMessageRequest>> {
    let slot = Slot::Message {
        stream_id: stream_id.to_owned(),
        message_id: message_id.as_str().to_owned(),
        author_id: signer.subject().to_owned(),
        author_type: author_type_of(signer),
        revision: 1,
    };
    let seal = prepare_seal(keyring, signer, &slot, text.as_bytes())?;
    let client_message_id = message_id.as_str().to_owned();
    Ok(PendingSealed::new(seal, move |sealed| {
        let body = SendMessageRequest {
            sealed: Some(sealed),
            client_message_id: Some(client_message_id),
            ..SendMessageRequest::default()
        };
        body.validate()?;
        Ok(body)
    }))
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
/// # Errors
///
/// `SEALED_STREAM_DOWNGRADE`, `E2E_STREAM_REQUIRES_CIPHERTEXT` or
/// `E2E_PAYLOAD_REQUIRES_E2E_STREAM` as listed above; `VALIDATION_FAILED` when
/// the body breaks the API's bounds.
///
/// [`StreamState::is_sealed`]: crate::state::StreamState::is_sealed
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

/// Seals the next revision of `message` (its revision + 1), signed by
/// `signer`, who must be its author.
///
/// The spec does not show the body of a sealed edit (`PATCH messages/{id}`
/// shows only `content`), so this returns the sealed payload for the app to
/// place; whatever carries it, the ciphertext is bound to the new revision.
/// The AAD binds the message's bound id: its `clientMessageId` when the
/// service assigned an `id` of its own.
///
/// # Errors
///
/// `UNEXPECTED_AUTHOR` when `signer` is not the message's author;
/// `INVALID_FIELD` when its revision is `u32::MAX`; as
/// [`streamseal_crypto::envelope::seal`]: `UNKNOWN_KEY_GENERATION`,
/// `KEY_GENERATION_CONFLICT` or `SEAL_BUDGET_EXHAUSTED` when the keyring has no
/// usable sealing key; `INVALID_FIELD` or `INVALID_LENGTH` when the slot does
/// not encode as an AAD; `INPUT_TOO_LARGE` when the plaintext exceeds the size
/// limit; `RANDOMNESS_UNAVAILABLE`.
pub fn seal_edit(
    keyring: &Keyring,
    signer: &Signer<'_>,
    message: &Message,
    text: &str,
) -> Result<SealedPayload> {
    prepare_seal_edit(keyring, signer, message, text)?.encrypt(keyring)
}

/// [`seal_edit`] up to its AES-GCM (the author checked, the seal counted,
/// the signature made).
///
/// # Errors
///
/// As [`seal_edit`].
pub fn prepare_seal_edit(
    keyring: &Keyring,
    signer: &Signer<'_>,
    message: &Message,
    text: &str,
) -> Result<PendingSealed<SealedPayload>> {
    prepare_seal_edit_of(keyring, signer, &MessageToEdit::from(message), text)
}

/// What sealing an edit reads of the message edited: the fields the new
/// revision's AAD binds. A binding that reads the message from another
/// language deserializes this instead of a whole [`Message`] (its other
/// fields are ignored); [`prepare_seal_edit_of`] seals exactly as
/// [`prepare_seal_edit`] does for the message it came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageToEdit {
    /// The message id (the AAD names `clientMessageId` instead when it is a
    /// message id).
    pub id: String,
    /// The stream the message is in.
    pub stream_id: String,
    /// The author, who alone may edit.
    pub author_id: String,
    /// The author type.
    pub author_type: AuthorType,
    /// The revision edited: the edit is the next.
    pub revision: u32,
    /// The client-minted id, which the AAD names when the service assigned `id`.
    #[serde(default)]
    pub client_message_id: Option<String>,
}

impl From<&Message> for MessageToEdit {
    fn from(message: &Message) -> Self {
        Self {
            id: message.id.clone(),
            stream_id: message.stream_id.clone(),
            author_id: message.author_id.clone(),
            author_type: message.author_type.clone(),
            revision: message.revision,
            client_message_id: message.client_message_id.clone(),
        }
    }
}

/// [`prepare_seal_edit`] of the parts of the message edited.
///
/// # Errors
///
/// As [`prepare_seal_edit`].
pub fn prepare_seal_edit_of(
    keyring: &Keyring,
    signer: &Signer<'_>,
    message: &MessageToEdit,
    text: &str,
) -> Result<PendingSealed<SealedPayload>> {
    if message.author_id != signer.subject() {
        return Err(Error::UnexpectedAuthor {
            expected: message.author_id.clone(),
            actual: signer.subject().to_owned(),
        });
    }
    let revision = message
        .revision
        .checked_add(1)
        .ok_or_else(|| Error::invalid("revision", "no revision after u32::MAX"))?;
    let bound_id = message
        .client_message_id
        .as_deref()
        .filter(|c| MessageId::parse(c).is_ok())
        .unwrap_or(&message.id);
    let slot = Slot::Message {
        stream_id: message.stream_id.clone(),
        message_id: bound_id.to_owned(),
        author_id: message.author_id.clone(),
        author_type: message.author_type.as_str().to_owned(),
        revision,
    };
    let seal = prepare_seal(keyring, signer, &slot, text.as_bytes())?;
    Ok(PendingSealed::new(seal, Ok))
}

/// Opens a sealed message of `stream_id` (the stream the caller asked for:
/// a ciphertext bound to another stream, a thread's or its root's, is
/// refused) with the keyring of its root stream, checking the ciphertext is
/// bound to this message's id, author, author type and revision, and signed
/// by its author.
///
/// # Errors
///
/// `INVALID_FIELD` when the message carries no sealed body or its plaintext is
/// not UTF-8; as [`streamseal_crypto::envelope::open_matching`]: `AAD_MISMATCH` when the
/// ciphertext is bound to another stream, message, author, author type or
/// revision, and its codes for the envelope (`UNSUPPORTED_ENVELOPE_VERSION`,
/// `MALFORMED_BASE64`, `INVALID_LENGTH`, `INPUT_TOO_LARGE`, `MALFORMED_AAD`),
/// the key (`UNKNOWN_KEY_GENERATION`, `DECRYPTION_FAILED`) and the signer
/// (`UNKNOWN_KEY`, `KEY_CHANGED`, `KEY_NOT_VERIFIED`, `SENDER_MISMATCH` for
/// another key holder's signature).
pub fn open_message(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    message: &Message,
) -> Result<OpenedMessage> {
    open_parts(keyring, senders, stream_id, MessageParts::of(message))
}

/// What opening a message reads of it: the fields its AAD binds and its
/// sealed body. A binding that reads a long history from another language
/// deserializes this instead of a whole [`Message`] (a message's other fields
/// are ignored); [`open_message_to_open`] opens it exactly as
/// [`open_message`] opens the message it came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageToOpen {
    /// The message id the AAD must name (or `clientMessageId`).
    pub id: String,
    /// The author the AAD must name.
    pub author_id: String,
    /// The author type the AAD must name.
    pub author_type: AuthorType,
    /// The revision the AAD must name.
    pub revision: u32,
    /// The client-minted id, which the AAD names when the service assigned `id`.
    #[serde(default)]
    pub client_message_id: Option<String>,
    /// The ciphertext and envelope (absent on a plaintext message).
    #[serde(default)]
    pub sealed: Option<SealedPayload>,
}

impl From<&Message> for MessageToOpen {
    fn from(message: &Message) -> Self {
        Self {
            id: message.id.clone(),
            author_id: message.author_id.clone(),
            author_type: message.author_type.clone(),
            revision: message.revision,
            client_message_id: message.client_message_id.clone(),
            sealed: message.sealed.clone(),
        }
    }
}

/// Opens the parts of a message (see [`MessageToOpen`]); the same checks
/// and result as [`open_message`].
///
/// # Errors
///
/// As [`open_message`].
pub fn open_message_to_open(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    message: &MessageToOpen,
) -> Result<OpenedMessage> {
    open_parts(keyring, senders, stream_id, MessageParts::to_open(message))
}

/// Opens a page of [`MessageToOpen`]s of `stream_id`; each entry succeeds or
/// fails on its own, and a repeat of a bound id and revision already opened
/// in the page is `DUPLICATE_MESSAGE`.
pub fn open_messages_to_open(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    messages: &[MessageToOpen],
) -> Vec<Result<OpenedMessage>> {
    dedupe(
        messages
            .iter()
            .map(|m| open_message_to_open(keyring, senders, stream_id, m)),
    )
}

/// The borrowed fields of a message that opening reads.
struct MessageParts<'a> {
    id: &'a str,
    author_id: &'a str,
    author_type: &'a str,
    revision: u32,
    client_message_id: Option<&'a str>,
    sealed: Option<&'a SealedPayload>,
}

impl<'a> MessageParts<'a> {
    fn of(message: &'a Message) -> Self {
        Self {
            id: &message.id,
            author_id: &message.author_id,
            author_type: message.author_type.as_str(),
            revision: message.revision,
            client_message_id: message.client_message_id.as_deref(),
            sealed: message.sealed.as_ref(),
        }
    }

    fn to_open(message: &'a MessageToOpen) -> Self {
        Self {
            id: &message.id,
            author_id: &message.author_id,
            author_type: message.author_type.as_str(),
            revision: message.revision,
            client_message_id: message.client_message_id.as_deref(),
            sealed: message.sealed.as_ref(),
        }
    }

    fn sealed_body(&self) -> Result<&'a SealedPayload> {
        self.sealed
            .ok_or_else(|| Error::invalid("sealed", "the message carries no sealed body"))
    }

    /// Whether `slot`, parsed from the AAD, is this message's in the stream
    /// the caller asked for.
    fn accepts(&self, asked_stream: &str, slot: &Slot) -> bool {
        match slot {
            Slot::Message {
                stream_id,
                message_id,
                author_id,
                author_type,
                revision,
            } => {
                stream_id == asked_stream
                    && self.names(message_id)
                    && *author_id == self.author_id
                    && *author_type == self.author_type
                    && *revision == self.revision
            }
            Slot::BotReply {
                stream_id,
                message_id,
                author_id,
                ..
            } => {
                stream_id == asked_stream
                    && self.names(message_id)
                    && *author_id == self.author_id
                    && self.author_type == "bot"
                    && self.revision == 1
            }
            _ => false,
        }
    }

    fn known(&self, asked_stream: &str) -> Known {
        Known {
            stream_id: asked_stream.to_owned(),
            author_id: self.author_id.to_owned(),
            author_type: self.author_type.to_owned(),
            revision: self.revision,
        }
    }

    /// The AAD's message id is this message's: its `id`, or the
    /// `clientMessageId` it was sent with.
    fn names(&self, bound: &str) -> bool {
        bound == self.id || self.client_message_id == Some(bound)
    }
}

fn open_parts(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    asked_stream: &str,
    message: MessageParts<'_>,
) -> Result<OpenedMessage> {
    let opened = open_matching(keyring, senders, message.sealed_body()?, |slot| {
        message.accepts(asked_stream, slot)
    })?;
    opened_message(message.known(asked_stream), opened)
}

/// What the caller knew of a message, kept from the check of its slot to
/// the result.
struct Known {
    stream_id: String,
    author_id: String,
    author_type: String,
    revision: u32,
}

fn prepare_parts(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    asked_stream: &str,
    message: MessageParts<'_>,
    decoded: Option<&[u8]>,
) -> Result<PendingMessage> {
    let sealed = message.sealed_body()?;
    let accept = |slot: &Slot| message.accepts(asked_stream, slot);
    let pending = match decoded {
        None => prepare_open(keyring, senders, sealed, accept)?,
        Some(ciphertext) => {
            prepare_open_decoded(keyring, senders, &sealed.envelope, ciphertext, accept)?
        }
    };
    let known = message.known(asked_stream);
    Ok(Pending::new(pending, move |opened| {
        opened_message(known, opened)
    }))
}

fn opened_message(known: Known, opened: Opened) -> Result<OpenedMessage> {
    let (message_id, invocation_id) = match &opened.slot {
        Slot::BotReply {
            message_id,
            invocation_id,
            ..
        } => (message_id.clone(), Some(invocation_id.clone())),
        Slot::Message { message_id, .. } => (message_id.clone(), None),
        _ => return Err(Error::Crypto(CryptoError::AadMismatch { what: "slot" })),
    };
    Ok(OpenedMessage {
        message_id,
        stream_id: known.stream_id,
        author_id: known.author_id,
        author_type: known.author_type,
        revision: known.revision,
        key_generation: opened.key_generation,
        invocation_id,
        sealed_by: opened.sealed_by,
        text: utf8(opened.plaintext)?,
    })
}

/// A sealed message checked up to its AES-GCM part ([`prepare_messages`]):
/// its slot, sender, key and commitment have passed; AES-256-GCM over
/// [`Pending::envelope`]'s ciphertext and the signature are left, then the
/// message's own checks (its slot kind, UTF-8). [`Pending::open`] completes
/// it here, [`Pending::finish`] after a platform's AES-GCM.
pub type PendingMessage = Pending<OpenedMessage>;

/// Checks a page of [`MessageToOpen`]s of `stream_id` up to the AES-GCM of
/// each ([`prepare_open`]): each entry passes or fails on its own, with the
/// codes [`open_message`] gives before decryption. [`finish_messages`]
/// completes the page.
pub fn prepare_messages(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    messages: &[MessageToOpen],
) -> Vec<Result<PendingMessage>> {
    messages
        .iter()
        .map(|m| prepare_parts(keyring, senders, stream_id, MessageParts::to_open(m), None))
        .collect()
}

/// [`prepare_messages`] for one message. With `decoded`, the caller has
/// decoded the ciphertext itself (see
/// [`streamseal_crypto::envelope::prepare_open_decoded`]) and
/// `sealed.ciphertext` is not read.
///
/// # Errors
///
/// The codes [`open_message`] gives before decryption.
pub fn prepare_message(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    message: &MessageToOpen,
    decoded: Option<&[u8]>,
) -> Result<PendingMessage> {
    prepare_parts(
        keyring,
        senders,
        stream_id,
        MessageParts::to_open(message),
        decoded,
    )
}

/// Completes a page of [`prepare_messages`]: the results of each entry's
/// [`PendingMessage::finish`] (or open), in order, with a repeat of a bound
/// id and revision marked `DUPLICATE_MESSAGE`, exactly as
/// [`open_messages_to_open`] returns them.
pub fn finish_messages(
    opened: impl IntoIterator<Item = Result<OpenedMessage>>,
) -> Vec<Result<OpenedMessage>> {
    dedupe(opened.into_iter())
}

/// Marks the repeats of a bound id and revision after the first as `DUPLICATE_MESSAGE`.
fn dedupe(opened: impl Iterator<Item = Result<OpenedMessage>>) -> Vec<Result<OpenedMessage>> {
    // A B-tree, not a hash set: in WebAssembly the standard library seeds
    // its hash sets from memory addresses (`hazmat::PlatformDh`).
    let mut seen = BTreeSet::new();
    opened
        .map(|r| match r {
            Ok(m) if !seen.insert((m.message_id.clone(), m.revision)) => {
                Err(Error::DuplicateMessage {
                    message_id: m.message_id,
                    revision: m.revision,
                })
            }
            other => other,
        })
        .collect()
}

/// Opens a whole page of messages of `stream_id` in one call; each entry
/// succeeds or fails on its own (one tampered message does not hide the
/// others), and a repeat of a bound id and revision is `DUPLICATE_MESSAGE`.
pub fn open_messages(
    keyring: &Keyring,
    senders: &SenderKeys<'_>,
    stream_id: &str,
    messages: &[Message],
) -> Vec<Result<OpenedMessage>> {
    dedupe(
        messages
            .iter()
            .map(|m| open_message(keyring, senders, stream_id, m)),
    )
}
