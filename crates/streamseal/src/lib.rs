//! # streamseal
//!
//! The sans-IO core that web front ends, mobile apps and bot runtimes embed to
//! speak the workspace messaging API and to take part in its end-to-end
//! encrypted ("sealed") streams. It does no networking: it builds, validates,
//! seals, opens and parses what travels.
//!
//! ## Crypto core
//! - [`identity`]: X25519 identity keys, 44-character base64 public keys, key ids.
//! - [`stream_key`]: per-stream AES-256-GCM keys by generation, the [`Keyring`]
//!   (its sealing generation only rises; seals are counted per generation).
//! - [`wrap`]: HPKE (RFC 9180) wraps of a stream key to a recipient's public
//!   key, in auth mode from the identity key of the member who made the generation.
//! - [`slot`] and [`aad`]: where a ciphertext belongs, and the canonical AAD
//!   that binds it there.
//! - [`envelope`]: sealing and opening `{ciphertext, envelope}` payloads,
//!   signed by their sender and committed to their key.
//! - [`signature`] and [`sender`]: XEdDSA signatures with the X25519 identity
//!   keys, the [`sender::Signer`] who seals and the [`sender::SenderKeys`] an
//!   opener checks signatures against.
//! - [`bundle`] and [`kdf`]: the Argon2id passphrase-protected private-key bundle.
//! - [`trust`] and [`fingerprint`]: the keys each user and bot is known by
//!   (pinned on first use, verified by comparing safety numbers).
//! - [`error`]: the top-level [`Error`] over the crypto layer's [`CryptoError`], with stable [`ErrorCode`]s.
//!
//! ## Sealed flows and wire types
//! - [`sealed`]: the operations apps and runtimes call (unlock a key, keep a
//!   persistent [`sealed::state::StreamState`] per root stream, open key
//!   wraps, send and open messages, open a claimed invocation and seal its
//!   steps and reply, roll generations, decision cards and their proven answers).
//! - [`wire`]: every resource, request, error, event and version shape of the API.
//!
//! The byte-level format is written down in `FORMAT.md` next to this crate's
//! manifest, with golden vectors in `tests/vectors/streamseal/`.
//!
//! ## Threat model
//! The server and the network may read, drop, replay, reorder and move any
//! bytes. They never learn a plaintext or a stream key, and cannot move a
//! ciphertext to another slot, stream, author, revision or key generation
//! without the opener rejecting it. Inputs from the server are treated as
//! hostile: sizes are bounded, Argon2 parameters capped, base64 and lengths
//! strict, and no input makes the library panic.
//!
//! **The server cannot hand a member a stream key of its own.** Wraps are
//! HPKE auth mode: only the holder of a sender's secret key can make a wrap
//! that opens as that sender's, and a member admits a generation only from
//! the senders its [`sealed::state::StreamState`] accepts for that stream
//! (`UNTRUSTED_WRAP` otherwise). The state remembers the sealed flag, the
//! high-water generation (it only rises, and sealing uses it), the owner and
//! the prompts acted on, and persists sealed under the member's identity key,
//! so neither a later response nor a restart rolls it back.
//!
//! **Public keys start as the server's word.** The [`trust::TrustStore`] pins
//! the first key it sees for each user and bot and refuses a key that changes
//! later (`KEY_CHANGED`) until the user handles it. Pinning cannot tell
//! whether that first key was genuine: a server that substitutes its own key
//! before the first sight is pinned like the real one. Two people close that
//! gap by comparing their [`fingerprint::safety_number`] over another channel
//! and marking the key verified; [`trust::TrustPolicy::VerifiedOnly`] makes
//! that a precondition.
//!
//! **Who wrote it.** A stream key is a group key, so every envelope is also
//! signed by its sender's identity key (XEdDSA over the AAD and the content)
//! and the AAD names the sender, who must be the slot's author: a key holder
//! cannot seal as another member (`SENDER_MISMATCH`), and every opened result
//! says who sealed it and whether that key is verified or only pinned. The
//! envelope commits to its key, so one ciphertext never opens under two. A
//! member removed at a generation keeps that generation's key and can still
//! read what it held, but a runtime acts on prompts, and an asker accepts
//! answers, only under the newest generation (`STALE_KEY_GENERATION`).
//! FORMAT.md section 8 lists what the format does not protect.
//!
//! ```
//! use streamseal::{envelope, identity::*, slot::Slot, stream_key::*, wrap};
//! use streamseal::sender::{SenderKeys, Signer};
//! use streamseal::trust::{TrustLevel, TrustPolicy, TrustStore};
//!
//! // The owner's key, and a bot runtime's key registered in presence.
//! let owner = IdentityKey::generate(RecipientKind::User, KeyId::new("owner-laptop")?)?;
//! let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a")?)?;
//!
//! // The owner makes generation 0 of a sealed stream and wraps it to the
//! // bot, authenticated as made by the owner's key.
//! let key = StreamKey::generate()?;
//! let record = wrap::wrap_stream_key("stream_root", 0, &key, &owner, &Recipient::of(&bot))?;
//! let mut owner_ring = Keyring::new("stream_root")?;
//! owner_ring.insert(0, key)?;
//!
//! let slot = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_1".into(),
//!     author_id: "usr_owner".into(),
//!     author_type: "user".into(),
//!     revision: 1,
//! };
//! let sealed = envelope::seal(&owner_ring, &Signer::new("usr_owner", &owner)?, &slot, b"ship it")?;
//!
//! // The bot accepts this stream's keys from the owner's key only (in an
//! // app: the senders its StreamState accepts, pinned in its TrustStore),
//! // and learns which sender made the wrap.
//! let opened = wrap::unwrap_stream_key("stream_root", &record, &[bot.clone()], &[Recipient::of(&owner)])?;
//! assert_eq!(opened.sender, 0);
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, opened.key)?;
//! // It checks the signature against the owner's key as its trust store pins it.
//! let mut trust = TrustStore::new(TrustPolicy::TofuWithAlerts);
//! trust.observe("usr_owner", &Recipient::of(&owner))?;
//! let opened = envelope::open(&ring, &SenderKeys::new(&trust), &slot, &sealed)?;
//! assert_eq!(&*opened.plaintext, b"ship it");
//! assert_eq!((opened.sealed_by.subject.as_str(), opened.sealed_by.status), ("usr_owner", TrustLevel::Unverified));
//!
//! // A wrap the server made with a key pair of its own, even under the
//! // owner's key id, is refused.
//! let server = IdentityKey::generate(RecipientKind::User, KeyId::new("owner-laptop")?)?;
//! let forged = wrap::wrap_stream_key("stream_root", 1, &StreamKey::generate()?, &server, &Recipient::of(&bot))?;
//! let refused = wrap::unwrap_stream_key("stream_root", &forged, &[bot], &[Recipient::of(&owner)]);
//! assert_eq!(refused.unwrap_err().code(), streamseal::ErrorCode::UntrustedWrap);
//! # Ok::<(), streamseal::Error>(())
//! ```

#![forbid(unsafe_code)]

/// The README's Rust example, compiled and run as a doc test so it cannot
/// drift from the API.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

// The crypto layer (crate `streamseal-crypto`), under the paths it has
// always had here.
pub use streamseal_crypto::{
    aad, bundle, codec, encoding, envelope, error, extra, fingerprint, hazmat, identity, kdf,
    persist, plaintext, random, sender, signature, slot, stream_key, trust, wrap,
};

pub use streamseal_api as api;
pub use streamseal_sealed as sealed;
pub use streamseal_wire as wire;

pub use error::{CryptoError, Error, ErrorCode, Result};

pub use streamseal_crypto::Keyring;
