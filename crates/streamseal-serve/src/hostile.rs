//! `--hostile`: the stand-in performs the active server's attacks (the
//! threat model: the server may forge any bytes and knows every public
//! key, but no member's secret key). Clients tested against it must refuse
//! each with its code:
//!
//! - **mint-generation**: the server makes a stream key of its own and
//!   wraps it, as the next generation, to every member's public key from an
//!   X25519 key pair of its own posing under the genuine sender's key id
//!   (the bot's machine in a key-wraps list, the owner in a claim), and
//!   announces it as current; a claim names it as the reply's generation.
//! - **forge-prompt**: the prompt of a claim is replaced by one the server
//!   sealed under its minted generation in the owner's name, signed by its
//!   own key pair under the owner's key id.
//! - **rollback**: the key-wraps list and the claim announce the
//!   generation before the current one, and drop the current one's wraps.
//! - **downgrade**: `e2eEnabled` is dropped from streams and sessions, and
//!   a claim on a sealed stream comes as a plaintext invocation.

use serde_json::{Value, json};
use streamseal::identity::{IdentityKey, KeyId, PublicKey, Recipient, RecipientKind};
use streamseal::sealed::messages::seal_message;
use streamseal::sender::Signer;
use streamseal::stream_key::{Keyring, StreamKey};
use streamseal::wire::ids::MessageId;
use streamseal::wrap::wrap_stream_key;

/// One attack of the hostile server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Attack {
    /// A generation of the server's own, wrapped to every member.
    MintGeneration,
    /// A prompt sealed by the server in the owner's name.
    ForgePrompt,
    /// The generation before the current one, announced as current.
    Rollback,
    /// A sealed stream presented as plaintext.
    Downgrade,
}

impl Attack {
    /// Every attack, in the order above.
    pub const ALL: [Attack; 4] = [
        Attack::MintGeneration,
        Attack::ForgePrompt,
        Attack::Rollback,
        Attack::Downgrade,
    ];

    /// Its name on the command line and in `POST /_serve/hostile`.
    pub fn as_str(self) -> &'static str {
        match self {
            Attack::MintGeneration => "mint-generation",
            Attack::ForgePrompt => "forge-prompt",
            Attack::Rollback => "rollback",
            Attack::Downgrade => "downgrade",
        }
    }

    /// The attack named `name`.
    pub fn parse(name: &str) -> Option<Attack> {
        Attack::ALL.into_iter().find(|a| a.as_str() == name)
    }
}

/// The stream key the server minted for a root, and its generation.
pub(crate) struct Minted {
    pub(crate) generation: u32,
    pub(crate) key: StreamKey,
}

impl Minted {
    pub(crate) fn new(generation: u32) -> Option<Minted> {
        Some(Minted {
            generation,
            key: StreamKey::generate().ok()?,
        })
    }
}

/// A member's key as the server knows it: kind, key id, public key (base64).
pub(crate) struct Member {
    pub(crate) kind: RecipientKind,
    pub(crate) key_id: String,
    pub(crate) public_key: String,
}

/// Wraps of `minted` to each member, from a fresh key pair of the server's
/// posing as `pose` (kind, key id); `named` keeps the recipient fields (a
/// key-wraps list) or drops them (a claim's `sealedContext`).
pub(crate) fn minted_wraps(
    root: &str,
    minted: &Minted,
    members: &[Member],
    pose: (RecipientKind, &str),
    named: bool,
) -> Vec<Value> {
    let Ok(impostor) = KeyId::new(pose.1).and_then(|id| IdentityKey::generate(pose.0, id)) else {
        return Vec::new();
    };
    members
        .iter()
        .filter_map(|m| {
            let recipient = Recipient {
                kind: m.kind.clone(),
                key_id: KeyId::new(m.key_id.clone()).ok()?,
                public_key: PublicKey::from_base64(&m.public_key).ok()?,
            };
            let wrap = wrap_stream_key(root, minted.generation, &minted.key, &impostor, &recipient)
                .ok()?;
            let mut value = serde_json::to_value(&wrap).ok()?;
            if !named && let Some(o) = value.as_object_mut() {
                o.remove("recipientKeyId");
                o.remove("recipientKind");
            }
            Some(value)
        })
        .collect()
}

/// A prompt sealed under `minted` in `owner_id`'s name as message
/// `message_id`, signed by a key pair of the server's under
/// `owner_key_id`: the `{ciphertext, envelope}` a claim carries.
pub(crate) fn forged_prompt(
    root: &str,
    minted: &Minted,
    owner_id: &str,
    owner_key_id: &str,
    message_id: &str,
    text: &str,
) -> Option<Value> {
    let mut ring = Keyring::new(root).ok()?;
    ring.insert(
        minted.generation,
        StreamKey::from_bytes(&minted.key.to_bytes()),
    )
    .ok()?;
    let impostor =
        IdentityKey::generate(RecipientKind::User, KeyId::new(owner_key_id).ok()?).ok()?;
    let signer = Signer::new(owner_id, &impostor).ok()?;
    let body = seal_message(
        &ring,
        &signer,
        root,
        &MessageId::parse(message_id).ok()?,
        text,
    )
    .ok()?;
    let sealed = body.sealed?;
    Some(json!({"ciphertext": sealed.ciphertext, "envelope": sealed.envelope}))
}
