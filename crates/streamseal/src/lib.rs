//! # streamseal
//!
//! The sans-IO core that web front ends, mobile apps and bot runtimes embed to
//! speak the workspace messaging API and to take part in its end-to-end
//! encrypted ("sealed") streams. It does no networking: it builds, validates,
//! seals, opens and parses what travels.
//!
//! ## Crypto core
//! - [`identity`]: X25519 identity keys, 44-character base64 public keys, key ids.
//! - [`stream_key`]: per-stream AES-256-GCM keys by generation, the [`Keyring`].
//! - [`wrap`]: HPKE (RFC 9180) wraps of a stream key to a recipient's public key.
//! - [`slot`] and [`aad`]: where a ciphertext belongs, and the canonical AAD
//!   that binds it there.
//! - [`envelope`]: sealing and opening `{ciphertext, envelope}` payloads.
//! - [`bundle`] and [`kdf`]: the Argon2id passphrase-protected private-key bundle.
//! - [`error`]: one [`Error`] type with stable [`ErrorCode`]s.
//!
//! ## Sealed flows and wire types
//! - [`sealed`]: the operations apps and runtimes call (unlock a key, open
//!   key wraps, send and open messages, open a claimed invocation and seal
//!   its steps and reply, roll generations, decision cards and notes).
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
//! **Key holders of a stream are trusted.** A stream key is a group key: any
//! holder can seal a ciphertext into any slot of that stream, including one
//! that names another member as its author. The AAD proves *where* a
//! ciphertext belongs, not *who* among the key holders wrote it. Removing a
//! member rolls the generation so that it cannot read what follows; what it
//! already held stays readable to it.
//!
//! ```
//! use streamseal::{envelope, identity::*, slot::Slot, stream_key::*, wrap};
//!
//! // A bot runtime's key, registered in presence.
//! let bot = IdentityKey::generate(RecipientKind::Bot, KeyId::new("machine-a")?)?;
//!
//! // The owner creates generation 0 of a sealed stream and wraps it to the bot.
//! let key = StreamKey::generate()?;
//! let record = wrap::wrap_stream_key("stream_root", 0, &key, &Recipient::of(&bot))?;
//! let mut owner = Keyring::new("stream_root")?;
//! owner.insert(0, key)?;
//!
//! let slot = Slot::Message {
//!     stream_id: "stream_root".into(),
//!     message_id: "msg_1".into(),
//!     author_id: "usr_owner".into(),
//!     revision: 1,
//! };
//! let sealed = envelope::seal(&owner, &slot, b"ship it")?;
//!
//! // The bot opens its wrap into a keyring and reads the message.
//! let mut ring = Keyring::new("stream_root")?;
//! ring.insert(0, wrap::unwrap_stream_key("stream_root", &record, &[bot])?)?;
//! assert_eq!(&*envelope::open(&ring, &slot, &sealed)?, b"ship it");
//! # Ok::<(), streamseal::Error>(())
//! ```

#![forbid(unsafe_code)]

/// Declares a TypeScript type in the WASM binding's generated `.d.ts`
/// (feature `wasm`) for a type whose serde form is hand-written, so that
/// the derived declarations of the types around it can name it.
#[cfg(feature = "wasm")]
macro_rules! ts_decl {
    ($decl:expr) => {
        const _: () = {
            #[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
            const TS_DECL: &str = $decl;
        };
    };
}
#[cfg(not(feature = "wasm"))]
macro_rules! ts_decl {
    ($decl:expr) => {};
}

pub mod aad;
mod aead;
pub mod api;
pub mod bundle;
mod codec;
pub mod encoding;
pub mod envelope;
pub mod error;
pub mod fingerprint;
pub mod identity;
pub mod kdf;
mod persist;
mod random;
pub mod sealed;
pub mod slot;
pub mod stream_key;
pub mod trust;
pub mod wire;
pub mod wrap;

#[cfg(feature = "test-seams")]
#[doc(hidden)]
pub mod testing;

pub use error::{Error, ErrorCode, Result};

// The UniFFI shape of the core's records and enums (feature `uniffi`, for
// bindings/uniffi). The generated code is the macro's, outside this crate's
// own sources, which stay free of `unsafe`.
#[cfg(feature = "uniffi")]
uniffi::setup_scaffolding!("streamseal");
pub use stream_key::Keyring;
